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
# drop the sources the tree no longer has: a renamed or deleted file would
# stay in OUTDIR and could still be included or built (what the build
# generates, the probe results in src/generated/ and *.mod.c, stays)
(cd "$out" && find src include scripts $selftest -path '*/generated' -prune \
	-o -type f \( -name '*.[ch]' -o -name '*.sh' -o -name '*.pl' \
	-o -name Kbuild -o -name Makefile \) ! -name '*.mod.c' -print \
	2>/dev/null || true) | while read -r f; do
	[ -e "$top/$f" ] || rm -f "$out/$f"
done
make -s -C "$out" KVER="$kver" KDIR="$kdir" "$@" module
[ -z "$selftest" ] || make -s -C "$kdir" M="$out/tests/selftest" "$@" modules
echo "$out/src/ib_srpt.ko"
