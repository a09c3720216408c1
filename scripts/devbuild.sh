#!/bin/sh
# devbuild.sh KVER OUTDIR [make args...] - build ib_srpt.ko for KVER in a
# private copy of the tree (OUTDIR), so that several people can build at
# once without sharing object files. Prints the path of the module.
# Environment: SRPT_KDIR=<build tree> (default /usr/src/linux-headers-KVER);
# SRPT_DEVBUILD_SELFTEST=1 also builds tests/selftest into
# OUTDIR/tests/selftest/ with the same make args.
set -eu
kver=$1 out=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
# copy sources only; keep objects from earlier builds for speed
kdir=${SRPT_KDIR:-/usr/src/linux-headers-$kver}
selftest=""
[ "${SRPT_DEVBUILD_SELFTEST:-}" = 1 ] && [ -d "$top/tests/selftest" ] && selftest=tests/selftest
# shellcheck disable=SC2086
tar -C "$top" --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
	-cf - dkms.conf Makefile src include scripts $selftest | tar -C "$out" -xf -
make -s -C "$out" KVER="$kver" KDIR="$kdir" "$@" module
[ -z "$selftest" ] || make -s -C "$kdir" M="$out/tests/selftest" "$@" modules
echo "$out/src/ib_srpt.ko"
