#!/bin/sh
# devbuild.sh KVER OUTDIR [make args...] - build ib_srpt.ko for KVER in a
# private copy of the tree (OUTDIR), so that several people can build at
# once without sharing object files. Prints the path of the module.
set -eu
kver=$1 out=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
# copy sources only; keep objects from earlier builds for speed
tar -C "$top" --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
	-cf - dkms.conf Makefile src include scripts | tar -C "$out" -xf -
make -s -C "$out" KVER="$kver" KDIR="/usr/src/linux-headers-$kver" "$@" module
echo "$out/src/ib_srpt.ko"
