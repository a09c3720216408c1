#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# srcbuild.sh DEB [RELEASE...] - build the srpt-dkms source package on each
# Debian release whose kernels we support (default: bullseye bookworm
# trixie), each in a throw-away overlay of a cached chroot of that release
# with only dpkg-dev, debhelper and dh_dkms in it: no kernel headers and no
# kernel tools (scripts/mkchroot.sh RELEASE-deb makes it once). For each
# release:
#   1. dpkg-checkbuilddeps: the Build-Depends resolve there;
#   2. dpkg-buildpackage -us -uc -b succeeds;
#   3. the .deb has the same files as DEB (the package built on the host).
# A "note:" line gives the release's dh_dkms and the dkms version that
# the built package depends on. Prints PASS/FAIL per check; exits 1 if any
# check failed. Needs root (chroot, mounts); nothing outside a temporary
# directory is changed.
set -u

if [ -z "${SRPT_IN_UNSHARE:-}" ]; then
	# private mount namespace: every mount below disappears with us
	exec unshare --mount --propagation private \
		env SRPT_IN_UNSHARE=1 "$0" "$@"
fi

[ $# -ge 1 ] || { echo "usage: $0 DEB [RELEASE...]" >&2; exit 2; }
deb=$(readlink -f "$1")
shift
releases=${*:-bullseye bookworm trixie}
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/kernels.conf
. "$top/scripts/kernels.conf"

nfail=0
pass() { echo "PASS: srcbuild: $1"; }
fail() { echo "FAIL: srcbuild: $1${2:+ - $2}"; nfail=$((nfail + 1)); }

work=$(mktemp -d /var/tmp/srpt-srcbuild.XXXXXX)
cleanup() {
	for m in $(grep -o " $work/[^ ]*" /proc/self/mounts | sort -r); do
		umount -l "$m" 2>/dev/null
	done
	rm -rf --one-file-system "$work"
}
trap cleanup EXIT

files() { # files DEB: the file list of a .deb, sorted
	dpkg-deb -c "$1" | awk '{ print $6 }' | sort
}
files "$deb" >"$work/host.files"

for rel in $releases; do
	base=$SRPT_CACHE/pkg/$rel-deb
	if ! "$top/scripts/mkchroot.sh" "$rel-deb" "$base" >"$work/$rel-mkchroot.log" 2>&1; then
		fail "$rel: chroot" "$(tail -n 3 "$work/$rel-mkchroot.log" | tr '\n' ' ')"
		continue
	fi
	root=$work/$rel/root
	mkdir -p "$work/$rel/upper" "$work/$rel/ovl" "$root"
	if ! mount -t overlay overlay \
		-o "lowerdir=$base,upperdir=$work/$rel/upper,workdir=$work/$rel/ovl" "$root"; then
		fail "$rel: overlay mount"
		continue
	fi
	mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" ||
		{ fail "$rel: chroot mounts"; continue; }
	# the tree without git, build products or earlier package builds
	mkdir -p "$root/build/srpt-dkms"
	tar -C "$top" --exclude=.git --exclude=./build --exclude='*.o' \
		--exclude='*.ko' --exclude='*.ko.xz' --exclude='.*.cmd' \
		--exclude=./src/generated --exclude='./debian/srpt-dkms' \
		--exclude='./debian/.debhelper' -cf - . |
		tar -C "$root/build/srpt-dkms" -xf -
	inch() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 sh -c "cd /build/srpt-dkms && $1"; }
	if inch dpkg-checkbuilddeps >"$work/$rel-deps.log" 2>&1; then
		pass "$rel: Build-Depends resolve (dpkg-checkbuilddeps)"
	else
		fail "$rel: Build-Depends resolve (dpkg-checkbuilddeps)" \
		     "$(tr '\n' ' ' <"$work/$rel-deps.log")"
	fi
	if inch "dpkg-buildpackage -us -uc -b" >"$work/$rel-build.log" 2>&1; then
		pass "$rel: dpkg-buildpackage -us -uc -b"
	else
		fail "$rel: dpkg-buildpackage -us -uc -b" \
		     "$(tail -n 5 "$work/$rel-build.log" | tr '\n' ' ')"
		continue
	fi
	out=$(ls "$root"/build/srpt-dkms_*_all.deb 2>/dev/null | head -n 1)
	if [ -z "$out" ]; then
		fail "$rel: .deb built" "no srpt-dkms_*_all.deb"
		continue
	fi
	d=$(files "$out" | diff "$work/host.files" - | grep '^[<>]' | head -n 5 | tr '\n' ' ')
	[ -z "$d" ] && pass "$rel: same files as the package built on the host" ||
		fail "$rel: same files as the package built on the host" "$d"
	echo "note: srcbuild: $rel: dh_dkms of $(chroot "$root" dpkg-query -W -f '${Package} ${Version}' dh-dkms 2>/dev/null ||
		chroot "$root" dpkg-query -W -f '${Package} ${Version}' dkms); built package Depends: $(dpkg-deb -f "$out" Depends)"
done

[ "$nfail" = 0 ]
