#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mkchroot.sh [DIR] - create (once) the base Debian 12 chroot used by the
# DKMS lifecycle test (tests/pkg/dkms-lifecycle.sh): dkms plus the 6.1 and
# 6.12 headers (and so the 6.12 image). It is cached outside the tree, by
# default in /var/cache/srpt-dkms/pkg/bookworm-dkms, and never modified by
# the tests: they run in a throw-away overlay on top of it. A stamp file
# records the package list; the chroot is rebuilt when the list changes.
set -euo pipefail

dir=${1:-${SRPT_PKG_CHROOT:-/var/cache/srpt-dkms/pkg/bookworm-dkms}}
k61=${SRPT_K61:-6.1.0-57-amd64}
k612=${SRPT_K612:-6.12.117+deb12-amd64}
pkgs="dkms openssl kmod linux-headers-$k61 linux-headers-$k612"
stamp="mmdebstrap bookworm v1: $pkgs"
mirror=${SRPT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
secmirror=${SRPT_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

# Headers of one more kernel, installed during the test to check that the
# kernel headers hook builds the module: a .deb kept next to the chroot.
# The cloud flavour shares everything else with the 6.1 headers above.
debs=$(dirname "$dir")/debs
extra=linux-headers-${k61%-amd64}-cloud-amd64
if ! ls "$debs/${extra}_"*.deb >/dev/null 2>&1; then
	mkdir -p "$debs"
	(cd "$debs" && { apt-get download "$extra" ||
			 { apt-get update -q && apt-get download "$extra"; }; }) ||
		echo "mkchroot: could not download $extra (the hook test will be skipped)" >&2
fi

if [ -f "$dir/.srpt-stamp" ] && [ "$(cat "$dir/.srpt-stamp")" = "$stamp" ]; then
	echo "mkchroot: using cached $dir"
	exit 0
fi

command -v mmdebstrap >/dev/null || apt-get install -y --no-install-recommends mmdebstrap
rm -rf "$dir.tmp"
mkdir -p "$(dirname "$dir")"
echo "mkchroot: creating $dir (one time, a few minutes)"
# update-initramfs is diverted to true: an initramfs is useless here and
# slow to make. Only the infiniband part of the kernel images' modules
# is unpacked (enough for modinfo of the in-kernel ib_srpt).
mmdebstrap --mode=root --variant=apt --include="${pkgs// /,}" \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-exclude=/lib/modules/*/kernel/*' \
	--dpkgopt='path-include=/lib/modules/*/kernel/drivers/infiniband/*' \
	--dpkgopt='path-exclude=/usr/lib/modules/*/kernel/*' \
	--dpkgopt='path-include=/usr/lib/modules/*/kernel/drivers/infiniband/*' \
	--essential-hook='chroot "$1" dpkg-divert --local --rename --add /usr/sbin/update-initramfs' \
	--essential-hook='ln -sf /bin/true "$1/usr/sbin/update-initramfs"' \
	bookworm "$dir.tmp" \
	"deb $mirror bookworm main" \
	"deb $mirror bookworm-updates main" \
	"deb $secmirror bookworm-security main"
echo "$stamp" > "$dir.tmp/.srpt-stamp"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "mkchroot: done"
