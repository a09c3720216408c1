#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fetch-kernel.sh - download and unpack a Debian kernel image for the VM tests.
#
# Usage: tests/vm/fetch-kernel.sh <6.1|6.12|7.3|6.12-debug|7.3-debug|full-kver> [--resolve-only]
#        tests/vm/fetch-kernel.sh --deb PKG
#
# Prints two lines on stdout:
#   KVER=<full kernel release>
#   KDIR=<dir>        with <dir>/vmlinuz and <dir>/lib/modules/<kver>/ (depmod done)
# and for a kernel built here (6.12-debug, 7.3-debug) a third one:
#   KBUILD=<dir>      the kernel's build tree (modules build against it)
#
# 6.12-debug (or "debug") is the sanitizer kernel (KASAN, lockdep, kmemleak...)
# that scripts/build-debug-kernel.sh builds from linux-source-6.12 (or takes
# from its cache); 7.3-debug (<line>-debug for a 7.x line) the same built
# from linux-source-7.3 of trixie-backports (build-debug-kernel.sh --line
# 7.3); --resolve-only does not apply to them.
#
# --deb PKG downloads the newest PKG of SRPT_NEW_KERNEL_SUITE (with the
# private apt below) into $SRPT_VM_CACHE/debs, unless that version is there
# already, and prints DEB=<path of the .deb> (build-debug-kernel.sh: the
# linux-source-7.x package).
#
# Kernels are fetched with `apt-get download` and unpacked with `dpkg -x` into
# $SRPT_VM_CACHE; nothing is installed on the host. The kernels, the suite
# and the mirror are those of scripts/kernels.conf (6.1 = SRPT_K61, 6.12 =
# SRPT_K612). 6.x kernels come from the host's own (bookworm) apt sources. 7.x
# kernels come from trixie-backports (SRPT_NEW_KERNEL_SUITE, on SRPT_MIRROR),
# reached with a private apt source list,
# list directory and cache directory so that the host's apt state is never
# touched; from 7.x on the kernel is split into linux-binary-<v> (vmlinuz),
# linux-modules-<v> and linux-base-<v> (config).
#
# Concurrent callers are serialized with flock on $SRPT_VM_CACHE/.lock.
set -euo pipefail

# shellcheck source=scripts/kernels.conf
. "$(dirname "$0")/../../scripts/kernels.conf"
CACHE=$SRPT_VM_CACHE
KARG=${1:?usage: fetch-kernel.sh <6.1|6.12|7.3|6.12-debug|7.3-debug|full-kver> [--resolve-only] | --deb PKG}
RESOLVE_ONLY=0
[ "${2:-}" = --resolve-only ] && RESOLVE_ONLY=1

case $KARG in
debug | 6.12-debug)
	out=$("$(dirname "$0")/../../scripts/build-debug-kernel.sh") || exit 2
	echo "$out"
	echo "KBUILD=$(echo "$out" | sed -n 's/^KDIR=//p')/build"
	exit 0
	;;
7.*[0-9]-debug)
	out=$("$(dirname "$0")/../../scripts/build-debug-kernel.sh" --line "${KARG%-debug}") || exit 2
	echo "$out"
	echo "KBUILD=$(echo "$out" | sed -n 's/^KDIR=//p')/build"
	exit 0
	;;
--deb) DEBPKG=${2:?usage: fetch-kernel.sh --deb PKG} ;;
esac

mkdir -p "$CACHE/debs"
exec 9>"$CACHE/.lock"
flock 9

say() { echo "fetch-kernel: $*" >&2; }

# --- private apt for trixie-backports ------------------------------------------
TBP=$CACHE/apt-$SRPT_NEW_KERNEL_SUITE
tbp_apt() { # tbp_apt apt-get|apt-cache ARGS...
	local tool=$1
	shift
	"$tool" -q -o Dir::Etc::SourceList="$TBP/sources.list" \
		-o Dir::Etc::SourceParts="$TBP/empty.d" -o Dir::State::Lists="$TBP/lists" \
		-o Dir::Cache="$TBP/cache" -o Dir::Etc::Preferences=/dev/null \
		-o Dir::Etc::PreferencesParts="$TBP/empty.d" -o APT::Default-Release= \
		-o APT::Sandbox::User=root "$@"
}
tbp_update() {
	mkdir -p "$TBP/lists/partial" "$TBP/cache/archives/partial" "$TBP/empty.d"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $SRPT_MIRROR $SRPT_NEW_KERNEL_SUITE main" \
		> "$TBP/sources.list"
	# Refresh at most once a day.
	if [ -z "$(find "$TBP/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null)" ]; then
		say "apt-get update (private list dir $TBP/lists, $SRPT_NEW_KERNEL_SUITE)"
		tbp_apt apt-get update >&2
	fi
}

# --- --deb PKG: one package of the suite -----------------------------------------
if [ "$KARG" = --deb ]; then
	tbp_update
	ver=$(tbp_apt apt-cache show --no-all-versions "$DEBPKG" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n1)
	[ -n "$ver" ] || { say "no $DEBPKG in $SRPT_NEW_KERNEL_SUITE"; exit 2; }
	# (apt-get download writes an epoch colon as %3a)
	deb=$(ls "$CACHE/debs/${DEBPKG}_${ver/:/%3a}_"*.deb 2>/dev/null | head -n1 || true)
	if [ -z "$deb" ]; then
		say "apt-get download $DEBPKG=$ver"
		(cd "$CACHE/debs" && tbp_apt apt-get download "$DEBPKG=$ver") >&2
		deb=$(ls "$CACHE/debs/${DEBPKG}_${ver/:/%3a}_"*.deb | head -n1)
	fi
	echo "DEB=$deb"
	exit 0
fi

# --- resolve the full version ----------------------------------------------------
case $KARG in
6.1) KVER=$SRPT_K61 ;;
6.12) KVER=$SRPT_K612 ;;
7.*[0-9]-amd64 | 6.*-amd64 | 5.*-amd64) KVER=$KARG ;;
7.*)
	tbp_update
	KVER=$(tbp_apt apt-cache pkgnames "linux-binary-$KARG." 2>/dev/null |
		sed -n "s/^linux-binary-\($KARG\.[0-9]*+deb[0-9]*-amd64\)\$/\1/p" |
		sort -V | tail -n1)
	[ -n "$KVER" ] || { say "no linux-binary-$KARG.*-amd64 in $SRPT_NEW_KERNEL_SUITE"; exit 2; }
	;;
*) say "unknown kernel '$KARG'"; exit 2 ;;
esac

KDIR=$CACHE/k-$KVER
if [ "$RESOLVE_ONLY" = 1 ] || [ -f "$KDIR/.complete" ]; then
	echo "KVER=$KVER"
	echo "KDIR=$KDIR"
	exit 0
fi

# --- download + unpack ------------------------------------------------------------
download() { # download PKG [tbp]
	local pkg=$1 deb
	deb=$(ls "$CACHE"/debs/"${pkg}"_*.deb 2>/dev/null | head -n1 || true)
	if [ -z "$deb" ]; then
		say "apt-get download $pkg"
		if [ "${2:-}" = tbp ]; then
			(cd "$CACHE/debs" && tbp_apt apt-get download "$pkg") >&2
		else
			(cd "$CACHE/debs" && apt-get -q -o APT::Sandbox::User=root download "$pkg") >&2
		fi
		deb=$(ls "$CACHE"/debs/"${pkg}"_*.deb | head -n1)
	fi
	echo "$deb"
}

rm -rf "$KDIR.tmp"
mkdir -p "$KDIR.tmp/x"
case $KVER in
7.* | [89].*)
	tbp_update
	for p in linux-binary linux-modules linux-base; do
		dpkg -x "$(download "$p-$KVER" tbp)" "$KDIR.tmp/x"
	done
	;;
*)
	dpkg -x "$(download "linux-image-$KVER")" "$KDIR.tmp/x"
	;;
esac
X=$KDIR.tmp/x
# Normalize: vmlinuz + lib/modules/<kver> (7.x ships everything under /usr/lib/modules).
mkdir -p "$KDIR.tmp/lib/modules"
if [ -d "$X/usr/lib/modules/$KVER" ]; then
	mv "$X/usr/lib/modules/$KVER" "$KDIR.tmp/lib/modules/$KVER"
elif [ -d "$X/lib/modules/$KVER" ]; then
	mv "$X/lib/modules/$KVER" "$KDIR.tmp/lib/modules/$KVER"
else
	say "no modules for $KVER in the packages"; exit 2
fi
M=$KDIR.tmp/lib/modules/$KVER
if [ -f "$X/boot/vmlinuz-$KVER" ]; then
	mv "$X/boot/vmlinuz-$KVER" "$KDIR.tmp/vmlinuz"
elif [ -f "$M/vmlinuz" ]; then
	mv "$M/vmlinuz" "$KDIR.tmp/vmlinuz"
else
	say "no vmlinuz for $KVER"; exit 2
fi
for c in "$X/boot/config-$KVER" "$M/config"; do
	[ -f "$c" ] && cp "$c" "$KDIR.tmp/config" && break
done
rm -rf "$X"
depmod -b "$KDIR.tmp" "$KVER"
touch "$KDIR.tmp/.complete"
rm -rf "$KDIR"
mv "$KDIR.tmp" "$KDIR"
say "unpacked $KVER into $KDIR"
echo "KVER=$KVER"
echo "KDIR=$KDIR"
