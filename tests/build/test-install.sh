#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# test-install.sh - test `make install` both ways:
#   1. without dkms (SRPT_DEBUG_HOOKS=y exported, which must be ignored):
#      modules_install INSTALL_MOD_DIR=updates + depmod, into a
#      private INSTALL_MOD_PATH, against the host's 6.1 headers (SRPT_K61 of
#      scripts/kernels.conf);
#   2. with dkms: inside a throw-away overlay of the cached trixie-backports
#      matrix chroot (scripts/mkchroot.sh) with dkms installed there, against
#      its 7.x headers; `modinfo -k <kver> -n ib_srpt` must name our module
#      under updates/ and report our version.
# After each, `make uninstall` (INSTALL_MOD_PATH=<private root> for 1) must
# remove it: no ib_srpt left for that kernel, and for 2 no DKMS entry and
# no /usr/src/srpt-dkms-<version>.
# Needs root. Exit 0 = pass, 1 = fail, 77 = nothing could be tested.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/kernels.conf
. "$top/scripts/kernels.conf"
kver61=$SRPT_K61
chroot_dir=$SRPT_CACHE/chroots/trixie-backports
version=$("$top/scripts/version.sh")
t=$(mktemp -d "${TMPDIR:-/tmp}/srpt-install-test.XXXXXX")
if [ "${SRPT_TEST_KEEP:-0}" = 1 ]; then
	echo "keeping $t"
else
	trap 'rm -rf "$t"' EXIT
fi
fails=0 tested=0
ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; fails=$((fails + 1)); }
copy_tree() {
	mkdir -p "$1"
	tar -C "$top" -cf - dkms.conf Makefile src include scripts |
		tar -C "$1" -xf -
	rm -rf "$1/src/generated"
}

# 1. kbuild install
if [ -f "/usr/src/linux-headers-$kver61/Makefile" ]; then
	tested=1
	copy_tree "$t/tree"
	# SRPT_DEBUG_HOOKS in the environment (a root shell that exported it)
	# must not turn the installed module into a test build: only a make
	# command-line variable does (src/Kbuild)
	if SRPT_DEBUG_HOOKS=y PATH=/usr/sbin:/sbin:$PATH make -C "$t/tree" install-kbuild \
		KVER="$kver61" KDIR="/usr/src/linux-headers-$kver61" \
		INSTALL_MOD_PATH="$t/root" >"$t/kbuild.log" 2>&1; then
		n=$(modinfo -b "$t/root" -k "$kver61" -p ib_srpt 2>/dev/null | grep -c '^debug_' || true)
		[ "$n" = 0 ] && ok "SRPT_DEBUG_HOOKS=y from the environment: no debug parameters" ||
			nok "SRPT_DEBUG_HOOKS=y from the environment built a test module ($n debug parameters)"
		p=$(modinfo -b "$t/root" -k "$kver61" -n ib_srpt 2>/dev/null || true)
		case $p in
		*/lib/modules/$kver61/updates/ib_srpt.ko*) ok "make install-kbuild: $p" ;;
		*) nok "make install-kbuild: modinfo -n gives '$p'" ;;
		esac
		v=$(modinfo -b "$t/root" -k "$kver61" -F version ib_srpt 2>/dev/null || true)
		[ "$v" = "$version" ] && ok "installed version $v" ||
			nok "installed version '$v' != '$version'"
		if PATH=/usr/sbin:/sbin:$PATH make -C "$t/tree" uninstall \
			INSTALL_MOD_PATH="$t/root" >"$t/kbuild-un.log" 2>&1; then
			p=$(modinfo -b "$t/root" -k "$kver61" -n ib_srpt 2>/dev/null || true)
			[ -z "$p" ] && [ -z "$(ls "$t/root/lib/modules/$kver61/updates" 2>/dev/null)" ] &&
				ok "make uninstall INSTALL_MOD_PATH=...: module and its modules.dep entry gone" ||
				nok "make uninstall INSTALL_MOD_PATH=...: modinfo -n still gives '$p'"
		else
			nok "make uninstall INSTALL_MOD_PATH=... failed"
			tail -n 20 "$t/kbuild-un.log"
		fi
	else
		nok "make install-kbuild failed"
		tail -n 20 "$t/kbuild.log"
	fi
else
	echo "skip - no headers for $kver61"
fi

# 2. dkms install in an overlay of the trixie-backports chroot
if [ -e "$chroot_dir/.srpt-chroot-ok" ]; then
	tested=1
	kver=$(cd "$chroot_dir/usr/src" && ls -d linux-headers-*-amd64 | head -n 1)
	kver=${kver#linux-headers-}
	mkdir -p "$t/upper" "$t/work" "$t/merged"
	copy_tree "$t/upper/srpt"
	if unshare --mount --propagation private sh -c '
		set -e
		mount -t overlay overlay -o "lowerdir=$1,upperdir=$2/upper,workdir=$2/work" "$2/merged"
		mount -t proc proc "$2/merged/proc"
		chroot "$2/merged" sh -c "
			set -e
			export DEBIAN_FRONTEND=noninteractive
			apt-get -q -o Acquire::Check-Valid-Until=false update >/dev/null
			apt-get -q install -y --no-install-recommends dkms kmod >/dev/null
			# an installed kernel has a modules.dep (dkms does not
			# create one for a headers-only kernel)
			depmod -a $3
			cd /srpt
			make install KVER=$3 KDIR=/usr/src/linux-headers-$3
			echo MODINFO_PATH=\$(modinfo -k $3 -n ib_srpt)
			echo MODINFO_VERSION=\$(modinfo -k $3 -F version ib_srpt)
			dkms status
			make uninstall
			echo UN_DKMS=\$(dkms status srpt-dkms)
			echo UN_SRC=\$(ls -d /usr/src/srpt-dkms-* 2>/dev/null)
			echo UN_MODINFO=\$(modinfo -k $3 -n ib_srpt 2>/dev/null)
		"
	' sh "$chroot_dir" "$t" "$kver" >"$t/dkms.log" 2>&1; then
		p=$(sed -n 's/^MODINFO_PATH=//p' "$t/dkms.log")
		v=$(sed -n 's/^MODINFO_VERSION=//p' "$t/dkms.log")
		case $p in
		*/updates/*ib_srpt.ko*) ok "make install via dkms ($kver): $p" ;;
		*) nok "make install via dkms: modinfo -n gives '$p'" ;;
		esac
		[ "$v" = "$version" ] && ok "dkms-installed version $v" ||
			nok "dkms-installed version '$v' != '$version'"
		grep -q "srpt-dkms/$version.*installed" "$t/dkms.log" &&
			ok "dkms status: installed" || nok "dkms status does not say installed"
		if grep -qx 'UN_DKMS=' "$t/dkms.log" && grep -qx 'UN_SRC=' "$t/dkms.log" &&
		   grep -qx 'UN_MODINFO=' "$t/dkms.log"; then
			ok "make uninstall: no DKMS entry, no /usr/src/srpt-dkms-*, no ib_srpt for $kver"
		else
			nok "make uninstall left: $(grep '^UN_' "$t/dkms.log" | tr '\n' ' ')"
		fi
	else
		nok "make install via dkms failed"
		tail -n 30 "$t/dkms.log"
	fi
else
	echo "skip - no trixie-backports chroot at $chroot_dir (run make matrix first)"
fi

[ "$tested" = 1 ] || exit 77
if [ "$fails" -ne 0 ]; then
	echo "FAIL test-install: $fails check(s) failed"
	exit 1
fi
echo "PASS test-install"
