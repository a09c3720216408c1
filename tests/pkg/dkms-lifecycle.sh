#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dkms-lifecycle.sh [--release RELEASE] DEB [NEWER_DEB] - the DKMS life of
# the srpt-dkms .deb (the one built on the host) in a throw-away chroot of
# Debian RELEASE, with that release's own dkms and kernel headers: an
# overlay on a cached chroot made by scripts/mkchroot.sh (nothing on this
# machine outside a temporary directory is changed).
#
# RELEASE bullseye or trixie (Debian 11: dkms 2.8, 5.10; Debian 13: dkms
# 3.2, 6.12; chroot RELEASE-dkms):
#   1. apt installs DEB;
#   2. newer and unsupported kernels (below);
#   3. the kernel hook (/etc/kernel/postinst.d/dkms K) builds and installs
#      the module for the release's kernel K: dkms status "installed",
#      modinfo -k K -n under updates/dkms, our version; the hook again
#      (module already there) succeeds;
#   4. purge leaves nothing (dkms status, /var/lib/dkms, updates/dkms,
#      /usr/src).
# Both: a "note:" line with the release, dkms version, kernels and result.
#
# RELEASE bookworm (the default; Debian 12, dkms 3.0, chroot bookworm-dkms
# with the 6.1 and 6.12 headers of scripts/kernels.conf), NEWER_DEB needed:
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
#
# Newer and unsupported kernels, on every release (newer_kernel below):
# fake kernels whose build/ is the release's real headers: 8.0.0-test
# (newer than the newest tested line) and one without RDMA/LIO in its
# .config. The kernel hook succeeds and installs nothing for them and says
# which kernel was skipped, why and how to opt in; the package's postinst
# says the same; with BUILD_EXCLUSIVE_KERNEL in /etc/dkms/srpt-dkms.conf
# (the dkms override file) the hook builds and installs the module for
# 8.0.0-test.
# Prints PASS/FAIL/SKIP per check; exits 1 if any check failed.
set -u

if [ -z "${SRPT_IN_UNSHARE:-}" ]; then
	# private mount namespace: every mount below disappears with us
	exec unshare --mount --propagation private \
		env SRPT_IN_UNSHARE=1 "$0" "$@"
fi

rel=bookworm
if [ "${1:-}" = --release ]; then
	rel=${2:-}
	shift 2 || shift
fi
case $rel:$# in
bookworm:2 | bullseye:[12] | trixie:[12]) ;;
*)	echo "usage: $0 [--release bullseye|bookworm|trixie] DEB [NEWER_DEB]" \
	     "(NEWER_DEB: needed for bookworm)" >&2
	exit 2 ;;
esac
deb=$(readlink -f "$1")
newdeb=$(readlink -f "${2:-$1}")
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/kernels.conf
. "$top/scripts/kernels.conf"
if [ "$rel" = bookworm ]; then
	chroot_name=bookworm-dkms
	base=$SRPT_PKG_CHROOT
else
	chroot_name=$rel-dkms
	base=$SRPT_CACHE/pkg/$chroot_name
fi
debs=$(dirname "$base")/debs
k61=$SRPT_K61
k612=$SRPT_K612
kcloud=$SRPT_K61_ABI-cloud-amd64
name=srpt-dkms
ver=$(dpkg-deb -f "$deb" Version)
newver=$(dpkg-deb -f "$newdeb" Version)

npass=0 nfail=0 nskip=0
pass() { echo "PASS: dkms: $rel: $1"; npass=$((npass + 1)); }
fail() { echo "FAIL: dkms: $rel: $1${2:+ - $2}"; nfail=$((nfail + 1)); }
skip() { echo "SKIP: dkms: $rel: $1${2:+ - $2}"; nskip=$((nskip + 1)); }
check() { # check NAME command... : PASS if the command succeeds
	local n=$1
	shift
	if "$@"; then pass "$n"; else fail "$n"; fi
}

"$top/scripts/mkchroot.sh" "$chroot_name" "$base" ||
	{ fail "base chroot" "mkchroot.sh failed"; exit 1; }

work=$(mktemp -d /var/tmp/srpt-pkg.XXXXXX)
root=$work/root
log=${SRPT_PKG_LOG:-/tmp/srpt-pkg-dkms-$rel.log}
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

modpath() { inch modinfo -k "$1" -n ib_srpt 2>>"$log"; }
modver() { inch modinfo -k "$1" -F version ib_srpt 2>/dev/null; }
status_is() { # status_is VERSION KVER: dkms says installed (dkms 3.x:
	# "name/version, kernel, arch: installed"; 2.8: "name, version, ...")
	local line
	while IFS= read -r line; do
		case $line in
		"$name/$1, $2, "*": installed" | "$name/$1, $2, "*": installed "* | \
		"$name, $1, $2, "*": installed" | "$name, $1, $2, "*": installed "*)
			return 0 ;;
		esac
	done < <(inch dkms status -m "$name" -v "$1" -k "$2" 2>/dev/null)
	return 1
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

# unsupported_kernels VERSION HDR: the fake kernels of the head of this
# file, their build/ made from HDR (the release's real headers, a path in
# the chroot); VERSION is the installed package version
unsupported_kernels() {
	local v=$1 hdr=$2 k out rc optin kn=8.0.0-test kb=6.1.0-99-noib
	mkdir -p "$root/usr/src/fake-noib" "$root/lib/modules/$kb" "$root/lib/modules/$kn"
	grep -Ev '^CONFIG_(INFINIBAND|TARGET_CORE)=' \
		"$root$hdr/.config" >"$root/usr/src/fake-noib/.config"
	cp -a "$root$hdr/include" "$root/usr/src/fake-noib/"
	# dkms 3.2 reads include/config/auto.conf where it exists
	grep -Ev '^CONFIG_(INFINIBAND|TARGET_CORE)=' \
		"$root$hdr/include/config/auto.conf" \
		>"$root/usr/src/fake-noib/include/config/auto.conf"
	ln -s /usr/src/fake-noib "$root/lib/modules/$kb/build"
	ln -s "$hdr" "$root/lib/modules/$kn/build"
	# as if its image were installed: dkms 3.2 runs depmod only then
	: >"$root/lib/modules/$kn/modules.dep"
	for k in "$kb" "$kn"; do
		# dkms decides from dkms.conf and the .config: no compiler runs
		inchq dkms build -m "$name" -v "$v" -k "$k"
		rc=$?
		# dkms 3.x: 77 (skipped); dkms 2.8: 9 (BUILD_EXCLUSIVE)
		case $rc in
		77 | 9) pass "$k: dkms build skipped (exit $rc)" ;;
		*) fail "$k: dkms build skipped (exit 77 or 9)" "exit $rc" ;;
		esac
		out=$(inch /etc/kernel/postinst.d/dkms "$k" 2>&1)
		rc=$?
		printf '### hook %s\n%s\n' "$k" "$out" >>"$log"
		if [ $rc = 0 ]; then
			pass "$k: kernel postinst hook succeeds"
		else
			fail "$k: kernel postinst hook succeeds" "exit $rc"
		fi
		if printf '%s\n' "$out" | grep -q "srpt-dkms: ib_srpt is not built for kernel $k "; then
			pass "$k: the hook says the kernel is skipped and why"
		else
			fail "$k: the hook says the kernel is skipped and why" "$(printf '%s\n' "$out" | tail -n 3 | tr '\n' ' ')"
		fi
		if inch dkms status -m "$name" -k "$k" 2>/dev/null | grep -q installed; then
			fail "$k: nothing installed" "$(inch dkms status -m "$name" -k "$k")"
		else
			pass "$k: nothing installed"
		fi
	done
	# the opt-in line, as the message gives it
	optin=$(printf '%s\n' "$out" | sed -n 's/^srpt-dkms: *\(BUILD_EXCLUSIVE_KERNEL=.*\)$/\1/p' | head -n 1)
	if [ -n "$optin" ] && printf '%s\n' "$out" | grep -q "/etc/dkms/$name.conf" &&
	   printf '%s\n' "$out" | grep -q "dkms autoinstall -k $kn"; then
		pass "$kn: the hook says how to opt in (/etc/dkms/$name.conf)"
	else
		fail "$kn: the hook says how to opt in (/etc/dkms/$name.conf)"
	fi
	rm -rf "$root/lib/modules/$kb" "$root/usr/src/fake-noib"
	# the package's postinst (dkms's common.postinst) builds for the
	# newest kernel (on Debian 11 the newest /boot/config-*); run as at a
	# first install (no old version: with one it would remove the built
	# modules first)
	cp "$root$hdr/.config" "$root/boot/config-$kn"
	out=$(inch "/var/lib/dpkg/info/$name.postinst" configure 2>&1)
	rc=$?
	printf '### postinst configure\n%s\n' "$out" >>"$log"
	if [ $rc = 0 ] && printf '%s\n' "$out" | grep -q "srpt-dkms: ib_srpt is not built for kernel $kn " &&
	   printf '%s\n' "$out" | grep -q "/etc/dkms/$name.conf"; then
		pass "postinst: says $kn is skipped, why and how to opt in"
	else
		fail "postinst: says $kn is skipped, why and how to opt in" \
		     "exit $rc: $(printf '%s\n' "$out" | tail -n 3 | tr '\n' ' ')"
	fi
	# opt in through the dkms override file: the hook builds it
	mkdir -p "$root/etc/dkms"
	printf '%s\n' "${optin:-BUILD_EXCLUSIVE_KERNEL=}" >"$root/etc/dkms/$name.conf"
	if inchq /etc/kernel/postinst.d/dkms "$kn"; then
		pass "$kn: opted in: kernel postinst hook succeeds"
	else
		fail "$kn: opted in: kernel postinst hook succeeds" "see $log"
	fi
	ours_installed "$kn" "$v"
	inchq dkms remove -m "$name" -v "$v" -k "$kn"
	rm -rf "$root/lib/modules/$kn" "$root/boot/config-$kn" \
		"$root/etc/dkms/$name.conf" "$root/var/lib/dkms/$name/kernel-$kn-"*
}

# purge_checks KVER INTREE: purge the package; nothing of ours is left, and
# the in-kernel module of KVER (INTREE, if any) is found again
purge_checks() {
	local left stale now
	if inchq apt-get purge -y -q "$name"; then
		pass "purge $name"
	else
		fail "purge $name" "see $log"
	fi
	left=$(inch dkms status -m "$name" 2>/dev/null)
	check "purge: dkms status empty" test -z "$left"
	check "purge: /var/lib/dkms/$name removed" test ! -e "$root/var/lib/dkms/$name"
	stale=$(cd "$root" && ls -d lib/modules/*/updates/dkms/ib_srpt.ko* \
		usr/src/"$name"-* 2>/dev/null)
	if [ -z "$stale" ]; then
		pass "purge: no ib_srpt under updates/dkms, no /usr/src/$name-*"
	else
		fail "purge: no ib_srpt under updates/dkms, no /usr/src/$name-*" "$stale"
	fi
	now=$(modpath "$1")
	if [ -z "$2" ]; then
		[ -z "$now" ] && pass "purge: $1 has no ib_srpt (no in-kernel module in this chroot)" ||
			fail "purge: $1 has no ib_srpt" "got '$now'"
	elif [ "$now" = "$2" ]; then
		pass "purge: $1 in-kernel module path restored ($now)"
	else
		fail "purge: $1 in-kernel module path restored" "got '$now', before '$2'"
	fi
}

# ---- Debian 11 and 13 ------------------------------------------------------
if [ "$rel" != bookworm ]; then
	# the kernel whose headers the chroot has (the newest, if several)
	k=$(inch sh -c 'for d in /lib/modules/*/build/include; do
		[ -e "$d" ] && d=${d%/build/include} && echo "${d##*/}"; done' |
		sort -V | tail -n 1)
	dkmsver=$(inch dpkg-query -W -f '${Version}' dkms)
	if [ -z "$k" ]; then
		fail "the chroot has kernel headers"
		exit 1
	fi
	hdr=$(inch readlink -f "/lib/modules/$k/build")
	intree=$(modpath "$k")
	if inchq apt-get install -y -q --no-install-recommends "$name"; then
		pass "apt installs the .deb (Depends: $(dpkg-deb -f "$deb" Depends); dkms $dkmsver)"
	else
		fail "apt installs the .deb (dkms $dkmsver)" "see $log"
	fi
	# first the skipped kernels: re-running the postinst there makes
	# dkms's common.postinst remove what the package had built
	unsupported_kernels "$ver" "$hdr"
	# in a chroot, uname -r is the host's kernel: the package's postinst
	# may not have built for $k; the kernel hook does, as at a kernel
	# upgrade
	if inchq /etc/kernel/postinst.d/dkms "$k"; then
		pass "$k: kernel postinst hook succeeds"
	else
		fail "$k: kernel postinst hook succeeds" "see $log"
	fi
	ours_installed "$k" "$ver"
	check "$k: kernel postinst hook again (already installed) succeeds" \
		inchq /etc/kernel/postinst.d/dkms "$k"
	purge_checks "$k" "$intree"
	r=PASS
	[ "$nfail" = 0 ] || r=FAIL
	echo "note: dkms: $rel: dkms $dkmsver, kernel $k, $r ($npass passed, $nfail failed)"
	echo "dkms lifecycle $rel: $npass passed, $nfail failed, $nskip skipped (log: $log)"
	[ "$nfail" = 0 ]
	exit
fi

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

# 3. unsupported and newer kernels: skipped with a message, opt-in
unsupported_kernels "$ver" "/usr/src/linux-headers-$k612"

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
purge_checks "$k612" "$intree"
r=PASS
[ "$nfail" = 0 ] || r=FAIL
echo "note: dkms: $rel: dkms $(inch dpkg-query -W -f '${Version}' dkms), kernels $k61 $k612 $kcloud, $r ($npass passed, $nfail failed)"
echo "dkms lifecycle $rel: $npass passed, $nfail failed, $nskip skipped (log: $log)"
[ "$nfail" = 0 ]
