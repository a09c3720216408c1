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

# ensure_sparse: the kernel headers of 7.x use __typeof_unqual__, which
# sparse 0.6.4 (trixie) cannot parse: every file then fails with parse
# errors. If the chroot's sparse cannot handle it, put the sparse binary of
# Debian unstable (0.6.5~rc1 or later; it only needs libc) into the chroot's
# /usr/local/bin, fetched with the ordinary apt client and a private list
# directory.
ensure_sparse() {
	# only needed when the kernel headers use it
	grep -rqs __typeof_unqual__ "$dir"/usr/src/linux-headers-*/include/linux/ ||
		return 0
	printf 'int f(const int *p)\n{\n\t__typeof_unqual__(*p) x = *p;\n\treturn x;\n}\n' \
		>"$dir/tmp/srpt-unqual.c"
	if chroot "$dir" sparse -Wno-decl /tmp/srpt-unqual.c >/dev/null 2>&1 &&
	   [ -z "$(chroot "$dir" sparse -Wno-decl /tmp/srpt-unqual.c 2>&1)" ]; then
		rm -f "$dir/tmp/srpt-unqual.c"
		return 0
	fi
	echo "mkchroot.sh: $name: sparse lacks __typeof_unqual__, installing sparse from unstable into /usr/local/bin" >&2
	t=$(mktemp -d)
	mkdir -p "$t/lists/partial" "$t/deb"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror sid main" >"$t/sources.list"
	set -- -q -o Dir::Etc::SourceList="$t/sources.list" \
		-o Dir::Etc::SourceParts=- -o Dir::State::Lists="$t/lists" \
		-o Acquire::Check-Valid-Until=false
	apt-get "$@" update >&2
	(cd "$t/deb" && apt-get "$@" download sparse/sid) >&2
	dpkg -x "$t"/deb/sparse_*.deb "$t/x"
	install -m 0755 "$t/x/usr/bin/sparse" "$dir/usr/local/bin/sparse"
	rm -rf "$t"
	out=$(chroot "$dir" /usr/local/bin/sparse -Wno-decl /tmp/srpt-unqual.c 2>&1) || {
		echo "mkchroot.sh: sparse from unstable does not work in $name: $out" >&2
		rm -f "$dir/usr/local/bin/sparse"
		return 1
	}
	rm -f "$dir/tmp/srpt-unqual.c"
}

if [ -e "$stamp" ] && [ "${SRPT_CHROOT_REFRESH:-0}" != 1 ]; then
	ensure_sparse
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
ensure_sparse
touch "$stamp"
