#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dkms-lifecycle.sh DEB NEWER_DEB - the DKMS life of the srpt-dkms .deb, in
# a throw-away Debian 12 chroot with the 6.1 and 6.12 headers (an overlay on
# the cached base chroot made by scripts/mkchroot.sh bookworm-dkms; the
# kernels are those of scripts/kernels.conf; nothing on this
# machine outside a temporary directory is changed):
#   1. /usr/lib/dkms/dkms-autopkgtest installs DEB and builds and installs
#      the module for both kernels (PASS for each);
#   2. for each kernel: dkms status "installed", modinfo -k <kver> -n names
#      our module under updates/dkms, with our version;
#   3. a kernel without RDMA/LIO in its config and a kernel newer than the
#      newest tested line are skipped by dkms (exit 77), and the kernel hook
#      does not fail for them;
#   4. upgrading to NEWER_DEB rebuilds the module (new version installed,
#      old version gone);
#   5. installing another kernel's headers (6.1 cloud) builds the module
#      for it through the kernel headers hook;
#   6. purging the package removes every built module and the in-kernel
#      module path comes back (modinfo -k 6.12 -n).
# Prints PASS/FAIL/SKIP per check; exits 1 if any check failed.
set -u

if [ -z "${SRPT_IN_UNSHARE:-}" ]; then
	# private mount namespace: every mount below disappears with us
	exec unshare --mount --propagation private \
		env SRPT_IN_UNSHARE=1 "$0" "$@"
fi

[ $# -eq 2 ] || { echo "usage: $0 DEB NEWER_DEB" >&2; exit 2; }
deb=$(readlink -f "$1")
newdeb=$(readlink -f "$2")
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/kernels.conf
. "$top/scripts/kernels.conf"
base=$SRPT_PKG_CHROOT
debs=$(dirname "$base")/debs
k61=$SRPT_K61
k612=$SRPT_K612
kcloud=$SRPT_K61_ABI-cloud-amd64
# a kernel of the line after the newest tested one (7.3 -> 7.4.0-1-amd64)
knew=${SRPT_NEWEST_LINE%%.*}.$((${SRPT_NEWEST_LINE#*.} + 1)).0-1-amd64
name=srpt-dkms
ver=$(dpkg-deb -f "$deb" Version)
newver=$(dpkg-deb -f "$newdeb" Version)

npass=0 nfail=0 nskip=0
pass() { echo "PASS: dkms: $1"; npass=$((npass + 1)); }
fail() { echo "FAIL: dkms: $1${2:+ - $2}"; nfail=$((nfail + 1)); }
skip() { echo "SKIP: dkms: $1${2:+ - $2}"; nskip=$((nskip + 1)); }
check() { # check NAME command... : PASS if the command succeeds
	local n=$1
	shift
	if "$@"; then pass "$n"; else fail "$n"; fi
}

"$top/scripts/mkchroot.sh" bookworm-dkms "$base" ||
	{ fail "base chroot" "mkchroot.sh failed"; exit 1; }

work=$(mktemp -d /var/tmp/srpt-pkg.XXXXXX)
root=$work/root
log=${SRPT_PKG_LOG:-/tmp/srpt-pkg-dkms.log}
: >"$log"
cleanup() {
	umount -R "$root/dev" 2>/dev/null || umount -l "$root/dev" 2>/dev/null
	umount "$root/proc" 2>/dev/null || umount -l "$root/proc" 2>/dev/null
	umount "$root" 2>/dev/null || umount -l "$root" 2>/dev/null
	if [ -n "${SRPT_PKG_KEEP:-}" ]; then
		echo "kept $work"
	elif grep -q " $work/" /proc/self/mounts; then
		# never recurse into a still mounted /dev or /proc
		echo "warning: $work still has mounts, not removed" >&2
	else
		rm -rf --one-file-system "$work"
	fi
}
trap cleanup EXIT
mkdir -p "$work/upper" "$work/ovl" "$root"
if ! mount -t overlay overlay \
	-o "lowerdir=$base,upperdir=$work/upper,workdir=$work/ovl" "$root" 2>/dev/null; then
	echo "note: overlayfs not available, copying the base chroot"
	cp -a "$base/." "$root/" || { fail "chroot copy"; exit 1; }
fi
mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" ||
	{ fail "chroot mounts"; exit 1; }

inch() { # run a command in the chroot, output to the log
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
inchq() { echo "### $*" >>"$log"; inch "$@" >>"$log" 2>&1; }

# local apt repository with the package (and nothing else: the chroot has
# every dependency already)
repo_add() {
	mkdir -p "$root/srv/repo"
	cp "$1" "$root/srv/repo/"
	(cd "$root/srv/repo" && dpkg-scanpackages -m . 2>/dev/null >Packages)
	inchq apt-get update -q
}
echo "deb [trusted=yes] file:/srv/repo ./" >"$root/etc/apt/sources.list"
rm -f "$root"/etc/apt/sources.list.d/*
repo_add "$deb"

modpath() { inch modinfo -k "$1" -n ib_srpt 2>/dev/null; }
modver() { inch modinfo -k "$1" -F version ib_srpt 2>/dev/null; }
status_is() { # status_is VERSION KVER: dkms says installed
	inch dkms status -m "$name" -v "$1" -k "$2" 2>/dev/null |
		grep -q "^$name/$1, $2, [^:]*: installed"
}
ours_installed() { # ours_installed KVER VERSION
	local p v
	p=$(modpath "$1") v=$(modver "$1")
	if ! status_is "$2" "$1"; then
		fail "$1: dkms status installed ($2)" \
		     "$(inch dkms status -m "$name" 2>&1 | tr '\n' ' ')"
		return
	fi
	pass "$1: dkms status installed ($2)"
	case $p in
	/lib/modules/"$1"/updates/dkms/ib_srpt.ko*)
		pass "$1: modinfo -n is $p" ;;
	*)	fail "$1: modinfo -n under updates/dkms" "got '$p'" ;;
	esac
	if [ "$v" = "$2" ]; then
		pass "$1: module version $v"
	else
		fail "$1: module version $2" "got '$v'"
	fi
}

intree=$(modpath "$k612")
case $intree in
*/kernel/drivers/infiniband/ulp/srpt/ib_srpt.ko*)
	pass "before install: $k612 has the in-kernel module ($intree)" ;;
*)	fail "before install: in-kernel module of $k612" "got '$intree'" ;;
esac

# 1. autopkgtest (builds for every kernel with headers)
echo "### dkms-autopkgtest" >>"$log"
inch sh -c "cd /tmp && /usr/lib/dkms/dkms-autopkgtest $name" >"$work/apt.log" 2>&1
rc=$?
cat "$work/apt.log" >>"$log"
if [ $rc = 0 ]; then
	pass "dkms-autopkgtest $name ($(grep -c '^I: PASS' "$work/apt.log") kernels PASS)"
else
	fail "dkms-autopkgtest $name" "exit $rc; $(grep -E '^(I: (PASS|FAIL|SKIP)|E:)' "$work/apt.log" | tr '\n' ' ')"
	sed -n '/==========.*make.log/,/====================/p' "$work/apt.log" | tail -n 40
fi
for k in "$k61" "$k612"; do
	if grep -q "^I: PASS $k\$" "$work/apt.log"; then
		pass "dkms-autopkgtest: PASS $k"
	else
		fail "dkms-autopkgtest: PASS $k"
	fi
done

# 2. both kernels carry our module
for k in "$k61" "$k612"; do
	ours_installed "$k" "$ver"
done

# 3. unsupported kernels are skipped, not failed (no compiler runs here:
#    dkms decides from dkms.conf and the kernel's .config)
mkdir -p "$root/usr/src/fake-noib" "$root/lib/modules/6.1.0-99-noib/"
grep -Ev '^CONFIG_(INFINIBAND|TARGET_CORE)=' \
	"$root/usr/src/linux-headers-$k61/.config" >"$root/usr/src/fake-noib/.config"
cp -a "$root/usr/src/linux-headers-$k61/include" "$root/usr/src/fake-noib/" 2>/dev/null
ln -s /usr/src/fake-noib "$root/lib/modules/6.1.0-99-noib/build"
mkdir -p "$root/lib/modules/$knew"
ln -s "/usr/src/linux-headers-$k612" "$root/lib/modules/$knew/build"
for k in 6.1.0-99-noib "$knew"; do
	inchq dkms build -m "$name" -v "$ver" -k "$k"
	rc=$?
	if [ $rc = 77 ]; then
		pass "$k: dkms build skipped (exit 77)"
	else
		fail "$k: dkms build skipped (exit 77)" "exit $rc"
	fi
	inchq /etc/kernel/postinst.d/dkms "$k"
	rc=$?
	if [ $rc = 0 ]; then
		pass "$k: kernel postinst hook succeeds"
	else
		fail "$k: kernel postinst hook succeeds" "exit $rc"
	fi
	if inch dkms status -m "$name" -k "$k" 2>/dev/null | grep -q installed; then
		fail "$k: nothing installed" "$(inch dkms status -m "$name" -k "$k")"
	else
		pass "$k: nothing installed"
	fi
done
rm -rf "$root/lib/modules/6.1.0-99-noib" "$root/lib/modules/$knew" \
	"$root/usr/src/fake-noib"

# 4. upgrade to a newer version: the maintainer scripts rebuild it. In a
#    chroot (uname -r is not an installed kernel) Debian's dkms postinst
#    builds an upgrade for the newest kernel only (on a real system: the
#    running and the newest kernel; the others at their next kernel hook).
repo_add "$newdeb"
if inchq apt-get install -y -q --no-install-recommends "$name"; then
	pass "upgrade $ver -> $newver installs"
else
	fail "upgrade $ver -> $newver installs" "see $log"
fi
ours_installed "$k612" "$newver"
if inch dkms status -m "$name" -v "$ver" 2>/dev/null | grep -q .; then
	fail "upgrade: $ver removed from dkms" "$(inch dkms status -m "$name")"
else
	pass "upgrade: $ver removed from dkms"
fi
if [ -e "$root/usr/src/$name-$ver" ]; then
	fail "upgrade: /usr/src/$name-$ver removed"
else
	pass "upgrade: /usr/src/$name-$ver removed"
fi

# 5. a new kernel's headers: the headers hook builds the module for it
cdeb=$(ls "$debs"/linux-headers-"$kcloud"_*.deb 2>/dev/null | head -n 1)
if [ -z "$cdeb" ]; then
	skip "kernel headers hook" "no $kcloud .deb in $debs"
else
	cp "$cdeb" "$root/tmp/"
	if inchq dpkg -i "/tmp/$(basename "$cdeb")"; then
		pass "install linux-headers-$kcloud"
		ours_installed "$kcloud" "$newver"
	else
		fail "install linux-headers-$kcloud" "see $log"
	fi
fi

# 6. purge: everything of ours goes, the in-kernel module comes back
if inchq apt-get purge -y -q "$name"; then
	pass "purge $name"
else
	fail "purge $name" "see $log"
fi
left=$(inch dkms status -m "$name" 2>/dev/null)
check "purge: dkms status empty" test -z "$left"
check "purge: /var/lib/dkms/$name removed" test ! -e "$root/var/lib/dkms/$name"
stale=$(cd "$root" && ls -d lib/modules/*/updates/dkms/ib_srpt.ko* 2>/dev/null)
if [ -z "$stale" ]; then
	pass "purge: no ib_srpt left under updates/dkms"
else
	fail "purge: no ib_srpt left under updates/dkms" "$stale"
fi
now=$(modpath "$k612")
if [ -n "$intree" ] && [ "$now" = "$intree" ]; then
	pass "purge: $k612 in-kernel module path restored ($now)"
else
	fail "purge: $k612 in-kernel module path restored" "got '$now', before '$intree'"
fi

echo "dkms lifecycle: $npass passed, $nfail failed, $nskip skipped (log: $log)"
[ "$nfail" = 0 ]
