#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# install-deps.sh - install every Debian 12 package the srpt-dkms build and
# test suite needs (scripts/check.sh runs it first). Needs root. Idempotent:
# prints one line and does nothing when everything is installed; otherwise
# runs `apt-get update` once and `apt-get install -y` for the missing ones.
#
# To add a package, append it to PACKAGES below. The kernel headers and
# the kernel source package are the ones scripts/kernels.conf pins (the
# build matrix, the OFED and install tests and lint use exactly those).
set -euo pipefail

# shellcheck source=scripts/kernels.conf
. "$(dirname "$0")/kernels.conf"
PACKAGES="
	build-essential sparse
	linux-headers-$SRPT_K61_ABI-amd64 linux-headers-$SRPT_K61_ABI-cloud-amd64
	linux-headers-$SRPT_K61_ABI-rt-amd64
	linux-headers-$SRPT_K612_ABI-amd64 linux-headers-$SRPT_K612_ABI-cloud-amd64
	linux-headers-$SRPT_K612_ABI-rt-amd64
	qemu-system-x86 busybox-static kmod cpio xz-utils zstd e2fsprogs util-linux
	fio mmdebstrap iproute2 sg3-utils shellcheck
	clang libclang-rt-14-dev
	rdma-core ibverbs-providers ibverbs-utils libibumad-dev librdmacm-dev libibverbs-dev
	debhelper dh-dkms dkms lintian rpm man-db groff-base
	$SRPT_SOURCE_PKG flex bison bc libelf-dev libssl-dev
"

missing=()
for p in $PACKAGES; do
	# installed = dpkg status "install ok installed" (virtual/meta names too)
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$s" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all $(echo $PACKAGES | wc -w) packages present"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages (need root to install): ${missing[*]}" >&2
	exit 1
fi
echo "install-deps: installing ${#missing[@]} package(s): ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get -q update > /tmp/srpt-install-deps.log 2>&1 ||
	{ tail -n 20 /tmp/srpt-install-deps.log >&2; exit 1; }
apt-get -q install -y --no-install-recommends "${missing[@]}" >> /tmp/srpt-install-deps.log 2>&1 ||
	{ tail -n 30 /tmp/srpt-install-deps.log >&2; exit 1; }
echo "install-deps: done (log /tmp/srpt-install-deps.log)"
