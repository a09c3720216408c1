#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# install-dkms.sh [KVER] - install srpt-dkms on this machine through DKMS:
# installs make, dkms and the kernel headers of KVER (default: the running
# kernel) with apt-get when they are missing, then runs "make install-dkms".
# Run as root from a clone of the repository.
set -eu
kver=${1:-$(uname -r)}
top=$(cd "$(dirname "$0")/.." && pwd)

need=""
command -v make >/dev/null 2>&1 || need="$need make"
command -v dkms >/dev/null 2>&1 || need="$need dkms"
[ -f "/lib/modules/$kver/build/Makefile" ] ||
	[ -f "/usr/src/linux-headers-$kver/Makefile" ] ||
	need="$need linux-headers-$kver"
if [ -n "$need" ]; then
	command -v apt-get >/dev/null 2>&1 || {
		echo "install-dkms: please install:$need" >&2
		exit 1
	}
	echo "install-dkms: installing$need"
	apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need
fi
kdir=/lib/modules/$kver/build
[ -f "$kdir/Makefile" ] || kdir=/usr/src/linux-headers-$kver
exec make -C "$top" KVER="$kver" KDIR="$kdir" install-dkms
