#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mkchroot.sh NAME [DIR] - create (once) a Debian chroot of the build matrix
# or of the packaging tests, with mmdebstrap, from the mirror and with the
# kernels that scripts/kernels.conf names.
#
# NAME is one of:
#   bullseye          Debian 11, linux-headers-amd64 (5.10), gcc 10
#   trixie-backports  Debian 13 + backports, linux-headers-amd64 from
#                     trixie-backports (7.x), gcc 14
#   sid               Debian unstable, linux-headers-amd64 (7.x)
#     (the build chroots of scripts/matrix.sh, default DIR
#     $SRPT_CACHE/chroots/NAME: make, the compiler the headers were made
#     with (pulled in by the headers package), sparse and the headers; the
#     install test, tests/build/test-install.sh, adds dkms to an overlay of
#     the trixie-backports one)
#   bookworm-dkms     Debian 12 with updates and security: dkms and the
#                     headers of $SRPT_K61 and $SRPT_K612 (and so the
#                     6.12 image), default DIR $SRPT_PKG_CHROOT; the base of
#                     the DKMS lifecycle test (tests/pkg/dkms-lifecycle.sh),
#                     which runs in a throw-away overlay of it. The headers
#                     .deb of the 6.1 cloud flavour (installed during that
#                     test, for the kernel hook) is downloaded to
#                     $(dirname DIR)/debs.
#   bullseye-dkms, trixie-dkms
#                     a copy of bullseye-deb / trixie-deb (below; made
#                     first if needed) with dkms, kmod and the release's
#                     linux-headers-amd64 (5.10 / 6.12) added: the base of
#                     the DKMS lifecycle test on Debian 11 and 13
#                     (tests/pkg/dkms-lifecycle.sh --release). Copying the
#                     build chroot saves a second debootstrap of the same
#                     release on a fresh machine. Default DIR
#                     $SRPT_CACHE/pkg/NAME; remade when its package list or
#                     the build chroot's stamp changes.
#   bullseye-deb, bookworm-deb, trixie-deb
#                     Debian 11, 12, 13 with build-essential, dpkg-dev, debhelper and
#                     dh_dkms (the dkms package on Debian 11, dh-dkms
#                     later), no kernel headers: tests/pkg/srcbuild.sh
#                     builds the source package in an overlay of each;
#                     default DIR $SRPT_CACHE/pkg/NAME. Stamp as for the
#                     dkms chroot.
#   bookworm-targetcli
#                     Debian 12, variant essential, with targetcli-fb,
#                     python3-rtslib-fb, dbus and kmod (the real tools for
#                     the VM cases that say "requires targetcli"): the
#                     script tests/vm/build-debroot.sh makes the guest's
#                     read-only disk image of it. Default
#                     DIR $SRPT_CACHE/pkg/NAME. Stamp as for the dkms chroot.
#
# An existing chroot is reused as it is: a build chroot has the stamp file
# DIR/.srpt-chroot-ok (SRPT_CHROOT_REFRESH=1 recreates it); the dkms chroot
# has DIR/.srpt-stamp with its package list and is made anew when the list
# changes (a new pin in scripts/kernels.conf). Callers of the same NAME are
# serialized with flock on DIR.lock.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/kernels.conf
. "$here/kernels.conf"

[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 NAME [DIR]" >&2; exit 2; }
name=$1
mirror=$SRPT_MIRROR
kind=build
case $name in
bullseye)
	suite=bullseye
	sources="deb $mirror bullseye main"
	hdr=linux-headers-amd64
	;;
trixie-backports)
	suite=trixie
	sources="deb $mirror trixie main|deb $mirror trixie-backports main"
	hdr=linux-headers-amd64/trixie-backports
	;;
sid)
	suite=sid
	sources="deb $mirror sid main"
	hdr=linux-headers-amd64
	;;
bookworm-dkms)
	kind=dkms
	suite=bookworm
	sources="deb $mirror bookworm main|deb $mirror bookworm-updates main|deb $SRPT_SECURITY_MIRROR bookworm-security main"
	pkgs="dkms openssl kmod linux-headers-$SRPT_K61 linux-headers-$SRPT_K612"
	;;
bullseye-dkms | trixie-dkms)
	kind=layer
	suite=${name%-dkms}
	pkgs="dkms kmod linux-headers-amd64"
	;;
bullseye-deb | bookworm-deb | trixie-deb)
	kind=deb
	suite=${name%-deb}
	sources="deb $mirror $suite main"
	case $suite in
	bullseye) pkgs="build-essential dpkg-dev debhelper dkms" ;;
	*) pkgs="build-essential dpkg-dev debhelper dh-dkms" ;;
	esac
	;;
bookworm-targetcli)
	kind=guest
	suite=bookworm
	sources="deb $mirror bookworm main"
	# dbus: Debian 12's targetcli-fb connects to the system bus at
	# every start (to list tcmu-runner's backstores) and fails without;
	# kmod: rtslib-fb runs modprobe for every fabric it looks at (and
	# saveconfig and clearconfig look at iscsi)
	pkgs="targetcli-fb python3-rtslib-fb dbus kmod"
	;;
*)
	echo "mkchroot.sh: unknown chroot '$name'" >&2
	exit 2
	;;
esac
if [ $# = 2 ]; then
	dir=$2
elif [ $kind = dkms ]; then
	dir=$SRPT_PKG_CHROOT
elif [ $kind = deb ] || [ $kind = layer ] || [ $kind = guest ]; then
	dir=$SRPT_CACHE/pkg/$name
else
	dir=$SRPT_CACHE/chroots/$name
fi

mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9

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

# fetch_cloud_headers: the .deb of one more kernel's headers, installed
# by the lifecycle test to check that the kernel headers hook builds the
# module. The cloud flavour shares everything else with the 6.1 headers.
fetch_cloud_headers() {
	debs=$(dirname "$dir")/debs
	extra=linux-headers-$SRPT_K61_ABI-cloud-amd64
	ls "$debs/${extra}_"*.deb >/dev/null 2>&1 && return 0
	mkdir -p "$debs"
	(cd "$debs" && { apt-get download "$extra" ||
			 { apt-get update -q && apt-get download "$extra"; }; }) ||
		echo "mkchroot.sh: could not download $extra (the hook test will be skipped)" >&2
}

# ---- reuse ----
if [ $kind = build ]; then
	stampfile=$dir/.srpt-chroot-ok
	if [ -e "$stampfile" ] && [ "${SRPT_CHROOT_REFRESH:-0}" != 1 ]; then
		ensure_sparse
		exit 0
	fi
else
	stampfile=$dir/.srpt-stamp
	stamp="mmdebstrap $suite v1: $pkgs"
	if [ $kind = layer ]; then
		base=$SRPT_CACHE/pkg/$suite-deb
		"$0" "$suite-deb" "$base" >&2
		stamp="copy of $suite-deb ($(cat "$base/.srpt-stamp")) v2: $pkgs"
	fi
	[ $kind != dkms ] || fetch_cloud_headers
	if [ -f "$stampfile" ] && [ "$(cat "$stampfile")" = "$stamp" ]; then
		echo "mkchroot.sh: using cached $dir"
		exit 0
	fi
fi

command -v mmdebstrap >/dev/null 2>&1 ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends mmdebstrap >&2 ||
	{ echo "mkchroot.sh: mmdebstrap is needed (apt-get install mmdebstrap)" >&2; exit 1; }

# ---- create ----
rm -rf "$dir.tmp"
if [ $kind = layer ]; then
	# add_packages: copy the build chroot and install $pkgs into the copy,
	# in a private mount namespace (the mounts go away with it)
	echo "mkchroot.sh: creating $name in $dir from $base (one time)" >&2
	cp -a "$base" "$dir.tmp"
	rm -f "$dir.tmp/.srpt-stamp"
	cp /etc/resolv.conf "$dir.tmp/etc/resolv.conf" 2>/dev/null || true
	# shellcheck disable=SC2016,SC2086 # $1: inner shell; $pkgs: a list
	unshare --mount --propagation private sh -euc '
		mount -t proc proc "$1/proc"
		mount --rbind /dev "$1/dev"
		r=$1
		shift
		inch() { chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
		# as for bookworm-dkms: no initramfs, and of the modules of a
		# kernel image (if the headers pull one in) only infiniband/
		inch dpkg-divert --local --rename --add /usr/sbin/update-initramfs
		ln -sf /bin/true "$r/usr/sbin/update-initramfs"
		for d in /lib /usr/lib; do
			echo "path-exclude=$d/modules/*/kernel/*"
			echo "path-include=$d/modules/*/kernel/drivers/infiniband/*"
		done >"$r/etc/dpkg/dpkg.cfg.d/srpt-kernel-modules"
		inch apt-get -q -o Acquire::Check-Valid-Until=false update
		inch apt-get install -y -q --no-install-recommends "$@"
		inch apt-get clean' _ "$dir.tmp" $pkgs >&2
	echo "$stamp" >"$dir.tmp/.srpt-stamp"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	echo "mkchroot.sh: done ($dir)" >&2
	exit 0
fi
echo "mkchroot.sh: creating $name chroot in $dir (one time, a few minutes)" >&2
# the sources, one argument each
old_ifs=$IFS
IFS='|'
# shellcheck disable=SC2086 # split at | on purpose
set -- $sources
IFS=$old_ifs
# Check-Valid-Until=false: a mirror snapshot (or a machine clock ahead of
# the mirror) must not make an expired Release file fatal.
if [ $kind = build ]; then
	mmdebstrap --quiet --variant=apt --mode=root \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--include="make,gcc,libc6-dev,sparse,$hdr" \
		"$suite" "$dir.tmp" "$@"
elif [ $kind = deb ]; then
	mmdebstrap --quiet --variant=apt --mode=root \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--include="$(echo "$pkgs" | tr ' ' ,)" \
		"$suite" "$dir.tmp" "$@"
	echo "$stamp" >"$dir.tmp/.srpt-stamp"
elif [ $kind = guest ]; then
	# no apt inside: nothing is installed there later; the Python
	# modules are byte-compiled by their postinst (the guest's disk is
	# read-only, and compiling at every start would be slow under TCG)
	mmdebstrap --quiet --variant=essential --mode=root \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--include="$(echo "$pkgs" | tr ' ' ,)" \
		"$suite" "$dir.tmp" "$@"
	echo "$stamp" >"$dir.tmp/.srpt-stamp"
else
	# update-initramfs is diverted to true: an initramfs is useless here
	# and slow to make. Only the infiniband part of the kernel images'
	# modules is unpacked (enough for modinfo of the in-kernel ib_srpt).
	# shellcheck disable=SC2016 # $1 is expanded by mmdebstrap's hook shell
	mmdebstrap --mode=root --variant=apt \
		--include="$(echo "$pkgs" | tr ' ' ,)" \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-exclude=/lib/modules/*/kernel/*' \
		--dpkgopt='path-include=/lib/modules/*/kernel/drivers/infiniband/*' \
		--dpkgopt='path-exclude=/usr/lib/modules/*/kernel/*' \
		--dpkgopt='path-include=/usr/lib/modules/*/kernel/drivers/infiniband/*' \
		--essential-hook='chroot "$1" dpkg-divert --local --rename --add /usr/sbin/update-initramfs' \
		--essential-hook='ln -sf /bin/true "$1/usr/sbin/update-initramfs"' \
		"$suite" "$dir.tmp" "$@"
	echo "$stamp" >"$dir.tmp/.srpt-stamp"
fi
rm -rf "$dir"
mv "$dir.tmp" "$dir"
if [ $kind = build ]; then
	ensure_sparse
	touch "$stampfile"
fi
echo "mkchroot.sh: done ($dir)" >&2
