#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mkchroot.sh NAME DIR - create (once) a build chroot for the build matrix.
#
# NAME is one of:
#   bullseye          Debian 11, linux-headers-amd64 (5.10), gcc 10
#   trixie-backports  Debian 13 + backports, linux-headers-amd64 from
#                     trixie-backports (7.x), gcc 14
#   sid               Debian unstable, linux-headers-amd64 (7.x)
# The chroot gets make, the compiler the headers were made with (pulled in by
# the headers package), sparse and the headers. An existing chroot (stamp file
# DIR/.srpt-chroot-ok) is reused as is; set SRPT_CHROOT_REFRESH=1 to recreate.
# Mirror: $SRPT_MIRROR (default http://deb.debian.org/debian).
set -eu

name=$1 dir=$2
mirror=${SRPT_MIRROR:-http://deb.debian.org/debian}
stamp=$dir/.srpt-chroot-ok

if [ -e "$stamp" ] && [ "${SRPT_CHROOT_REFRESH:-0}" != 1 ]; then
	exit 0
fi

case $name in
bullseye)
	suite=bullseye
	extra=
	hdr=linux-headers-amd64
	;;
trixie-backports)
	suite=trixie
	extra="deb $mirror trixie-backports main"
	hdr=linux-headers-amd64/trixie-backports
	;;
sid)
	suite=sid
	extra=
	hdr=linux-headers-amd64
	;;
*)
	echo "mkchroot.sh: unknown chroot '$name'" >&2
	exit 2
	;;
esac

command -v mmdebstrap >/dev/null 2>&1 || {
	echo "mkchroot.sh: mmdebstrap is needed (apt-get install mmdebstrap)" >&2
	exit 1
}

rm -rf "$dir.tmp"
mkdir -p "$(dirname "$dir")"
echo "mkchroot.sh: creating $name chroot in $dir (takes a minute or two)" >&2
# shellcheck disable=SC2086
# Check-Valid-Until=false: a mirror snapshot (or a machine clock ahead of
# the mirror) must not make an expired Release file fatal.
mmdebstrap --quiet --variant=apt --mode=root \
	--aptopt='Acquire::Check-Valid-Until "false"' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--include="make,gcc,libc6-dev,sparse,$hdr" \
	"$suite" "$dir.tmp" "deb $mirror $suite main" ${extra:+"$extra"}
rm -rf "$dir"
mv "$dir.tmp" "$dir"
touch "$stamp"
