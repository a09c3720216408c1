#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-debroot.sh - the Debian root of the VM cases that use the real
# targetcli-fb and python3-rtslib-fb ("requires targetcli" in lib.sh): a
# read-only ext4 disk image, cached, whose path is printed on stdout.
#
# Usage: tests/vm/build-debroot.sh
#
# The root is the chroot "bookworm-targetcli" of scripts/mkchroot.sh
# (mmdebstrap, variant essential, Debian 12 with targetcli-fb and
# python3-rtslib-fb; $SRPT_CACHE/pkg/bookworm-targetcli), copied into
# $SRPT_VM_CACHE/debroot-<hash>.img with mke2fs -d. run.sh attaches the
# image as the second virtio disk (/dev/vdb) only when a selected case
# needs it; the guest mounts it read-only and runs targetcli in it with
# chroot (tcli in lib.sh), with tmpfs on the directories that targetcli
# writes. The first build takes a few minutes (mostly the download);
# scripts/check.sh starts it in the background. Callers are serialized by
# flock (mkchroot.sh's lock on the chroot, then a lock on the image).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
# shellcheck source=scripts/kernels.conf
. "$TOP/scripts/kernels.conf"
CACHE=$SRPT_VM_CACHE
DIR=$SRPT_CACHE/pkg/bookworm-targetcli

case ${1:-} in
-h | --help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
"$TOP/scripts/mkchroot.sh" bookworm-targetcli "$DIR" >&2
mkdir -p "$CACHE"
# the image depends on this script and on what the chroot was made with
key=$( { cat "$0"; cat "$DIR/.srpt-stamp"; stat -c '%Y' "$DIR/.srpt-stamp"; } |
	md5sum | cut -c1-12)
IMG=$CACHE/debroot-$key.img
exec 9>"$CACHE/debroot.lock"
flock 9
if [ ! -s "$IMG" ]; then
	echo "build-debroot: building $IMG from $DIR" >&2
	# the mount points of the guest's tmpfs and bind mounts (lib.sh,
	# _debroot_up); rtslib-fb and targetcli keep their files in
	# /etc/rtslib-fb-target on Debian; the guest's kernel modules are
	# bound to /usr/lib/modules (for rtslib's modprobe)
	for d in proc sys dev run tmp root etc/rtslib-fb-target var/tmp usr/lib/modules; do
		mkdir -p "$DIR/$d"
	done
	mb=$(( $(du -sm "$DIR" | cut -f1) * 11 / 10 + 32 ))
	mke2fs -q -F -t ext4 -O ^has_journal -L srptdeb -d "$DIR" "$IMG.tmp" "${mb}M" >&2
	mv "$IMG.tmp" "$IMG"
	echo "build-debroot: $IMG (${mb} MB)" >&2
	# images of older versions of this script or of the chroot: a run
	# that uses one right now keeps it open, and one a day old is unused
	find "$CACHE" -maxdepth 1 -name 'debroot-*.img' ! -name "${IMG##*/}" \
		-mtime +0 -delete 2>/dev/null || true
fi
echo "$IMG"
