#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# install-hygiene.sh [RPM] - "make install-dkms" and "make uninstall" next
# to the packages (run by tests/pkg/run.sh):
#   1. install-dkms refuses, with a message naming the package and a
#      non-zero exit, when an installed .deb (dpkg -S) or .rpm (rpm -qf)
#      owns /usr/src/srpt-dkms-<version>, and then changes nothing: no dkms
#      call, the directory as it was; with no owner it installs;
#   2. uninstall refuses the same way; otherwise it removes this version
#      from DKMS and /usr/src, and the install-kbuild module (ours only,
#      not another driver's ib_srpt, not one DKMS installed) of every
#      kernel, with depmod; with INSTALL_MOD_PATH only the latter, there.
# The package databases are real but private: a dpkg admin directory that
# lists the package's files, and an rpm database into which RPM (the
# package built by run.sh; without it the rpm case is skipped) is
# installed with --justdb. dpkg and rpm are wrappers in PATH that point
# them there; dkms is a stub that logs its calls. Runs in a private mount
# namespace with tmpfs over /usr/src and /lib/modules, so nothing of this
# machine changes. Needs root (unshare, mount), gcc, depmod, modinfo.
# Prints PASS/FAIL/SKIP lines; exits 1 if a check failed.
set -u

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: install hygiene - needs root (mount namespace)"
	exit 0
fi
if [ -z "${SRPT_IN_UNSHARE:-}" ]; then
	exec unshare --mount --propagation private \
		env SRPT_IN_UNSHARE=1 "$0" "$@"
fi
rpmf=${1:+$(readlink -f "$1")}
top=$(cd "$(dirname "$0")/../.." && pwd)
version=$("$top/scripts/version.sh")
src=/usr/src/srpt-dkms-$version
kv=6.99.0-test

nfail=0
pass() { echo "PASS: install hygiene: $1"; }
fail() { echo "FAIL: install hygiene: $1${2:+ - $2}"; nfail=$((nfail + 1)); }
skip() { echo "SKIP: install hygiene: $1${2:+ - $2}"; }

t=$(mktemp -d /tmp/srpt-install-hygiene.XXXXXX)
trap 'rm -rf "$t"' EXIT
mount -t tmpfs tmpfs /usr/src && mount -t tmpfs tmpfs /lib/modules ||
	{ fail "tmpfs over /usr/src and /lib/modules"; exit 1; }

# ---- stubs and private package databases ---------------------------------
mkdir -p "$t/bin" "$t/kdir"
touch "$t/kdir/Makefile"
realdpkg=$(command -v dpkg)
realrpm=$(command -v rpm)
cat >"$t/bin/dkms" <<EOF
#!/bin/sh
echo "dkms \$*" >>"$t/calls"
if [ "\$1" = status ]; then
	case " \$* " in
	*" -k "*) for k in \$(cat "$t/dkms-k" 2>/dev/null); do
			case " \$* " in *" \$k "*) echo "srpt-dkms/0.0.1, \$k, x86_64: installed" ;; esac
		  done ;;
	*) cat "$t/dkms-status" 2>/dev/null ;;
	esac
fi
exit 0
EOF
printf '#!/bin/sh\nexec %s --admindir=%s "$@"\n' "$realdpkg" "$t/dpkg" >"$t/bin/dpkg"
printf '#!/bin/sh\nexec %s --dbpath %s "$@"\n' "${realrpm:-false}" "$t/rpmdb" >"$t/bin/rpm"
chmod 755 "$t/bin/dkms" "$t/bin/dpkg" "$t/bin/rpm"
export PATH="$t/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# dpkg_owns yes|no: the private dpkg database has srpt-dkms installed
# (owning $src) or nothing
dpkg_owns() {
	rm -rf "$t/dpkg"
	mkdir -p "$t/dpkg/info" "$t/dpkg/updates"
	: >"$t/dpkg/status"
	[ "$1" = yes ] || return 0
	printf '%s\n' "Package: srpt-dkms" "Status: install ok installed" \
		"Version: $version" "Architecture: all" \
		"Maintainer: tests <tests@example.org>" "Description: test" "" \
		>"$t/dpkg/status"
	printf '%s\n' /. /usr /usr/src "$src" "$src/dkms.conf" \
		>"$t/dpkg/info/srpt-dkms.list"
}
# rpm_owns yes|no: the private rpm database has RPM installed or nothing
rpm_owns() {
	rm -rf "$t/rpmdb"
	[ -n "$realrpm" ] || return 0
	"$realrpm" --dbpath "$t/rpmdb" --initdb 2>/dev/null
	[ "$1" = yes ] || return 0
	"$realrpm" --dbpath "$t/rpmdb" -i --justdb --nodeps --noscripts \
		"$rpmf" >/dev/null 2>&1
}
# a package's sources as the package left them (a marker file in them)
pkg_tree() {
	rm -rf "$src"
	mkdir -p "$src"
	echo package >"$src/dkms.conf"
}
untouched() { [ "$(cat "$src/dkms.conf" 2>/dev/null)" = package ]; }
# mk MAKE-ARGS...: run make in the tree; sets $rc, $out, $calls
mk() {
	: >"$t/calls"
	out=$(make --no-print-directory -C "$top" "$@" 2>&1)
	rc=$?
	calls=$(cat "$t/calls")
}
oneline() { printf '%s' "$1" | tr '\n' '|'; }

# ---- install-dkms ----------------------------------------------------------
for owner in dpkg rpm; do
	if [ $owner = rpm ] && { [ -z "$realrpm" ] || [ -z "$rpmf" ]; }; then
		skip "install-dkms refused when an rpm owns $src" "no rpm or no RPM built"
		continue
	fi
	if [ $owner = dpkg ]; then dpkg_owns yes; else dpkg_owns no; fi
	if [ $owner = rpm ]; then rpm_owns yes; else rpm_owns no; fi ||
		{ fail "rpm --justdb install of $rpmf"; continue; }
	pkg_tree
	mk install-dkms KVER=$kv KDIR="$t/kdir"
	if [ $rc != 0 ] && [ -z "$calls" ] && untouched &&
	   printf '%s\n' "$out" | grep -q "belongs to the installed package srpt-dkms ($owner)"; then
		pass "install-dkms refused when a $owner package owns $src (exit $rc, nothing changed)"
	else
		fail "install-dkms refused when a $owner package owns $src" \
		     "exit $rc, dkms calls <$(oneline "$calls")>, $(untouched && echo untouched || echo changed), output: $(oneline "$out")"
	fi
	mk uninstall
	if [ $rc != 0 ] && [ -z "$calls" ] && untouched &&
	   printf '%s\n' "$out" | grep -q "belongs to the installed package srpt-dkms ($owner)"; then
		pass "uninstall refused when a $owner package owns $src (exit $rc, nothing changed)"
	else
		fail "uninstall refused when a $owner package owns $src" \
		     "exit $rc, dkms calls <$(oneline "$calls")>, $(untouched && echo untouched || echo changed), output: $(oneline "$out")"
	fi
done

# no owner: install-dkms goes ahead (over an earlier hand install)
dpkg_owns no
rpm_owns no
pkg_tree
mk install-dkms KVER=$kv KDIR="$t/kdir"
want="dkms remove srpt-dkms/$version --all
dkms add srpt-dkms/$version
dkms build srpt-dkms/$version -k $kv
dkms install srpt-dkms/$version -k $kv --force"
if [ $rc = 0 ] && [ "$calls" = "$want" ] && ! untouched &&
   cmp -s "$top/dkms.conf" "$src/dkms.conf"; then
	pass "install-dkms without an owning package: dkms remove/add/build/install, sources copied"
else
	fail "install-dkms without an owning package" \
	     "exit $rc, dkms calls <$(oneline "$calls")>, output: $(oneline "$(echo "$out" | tail -n 3)")"
fi

# ---- uninstall ---------------------------------------------------------------
# module objects: ours (the description srpt-dkms gives) and another
# driver's ib_srpt (MLNX_OFED, a vendor)
modobj() { # modobj FILE DESCRIPTION
	printf '%s\n' \
	  'static const char n[] __attribute__((used, section(".modinfo"))) = "name=ib_srpt";' \
	  "static const char d[] __attribute__((used, section(\".modinfo\"))) = \"description=$2\";" \
	  "static const char v[] __attribute__((used, section(\".modinfo\"))) = \"vermagic=$kv SMP mod_unload \";" \
	  >"$t/m.c"
	gcc -c -o "$1" "$t/m.c"
}
modobj "$t/ours.ko" "SCSI RDMA Protocol target driver (srpt-dkms)" &&
modobj "$t/other.ko" "SCSI RDMA Protocol target driver" ||
	{ fail "gcc: module objects"; exit 1; }
# kmods ROOT: kernel A with our kbuild module, kernel B with another
# ib_srpt, kernel C with ours (compressed) where DKMS has srpt-dkms installed
kmods() {
	local r=$1/lib/modules
	rm -rf "${r:?}"/*
	mkdir -p "$r/$kv-a/updates" "$r/$kv-b/updates" "$r/$kv-c/updates"
	cp "$t/ours.ko" "$r/$kv-a/updates/ib_srpt.ko"
	cp "$t/other.ko" "$r/$kv-b/updates/ib_srpt.ko"
	xz -c "$t/ours.ko" >"$r/$kv-c/updates/ib_srpt.ko.xz"
	for k in a b c; do depmod -a ${1:+-b "$1"} "$kv-$k" 2>/dev/null; done
	echo "$kv-c" >"$t/dkms-k"
}
# after_uninstall ROOT DKMS-AWARE: the files and modules.dep afterwards
after_uninstall() {
	local r=$1/lib/modules why=
	[ ! -e "$r/$kv-a/updates/ib_srpt.ko" ] || why="$why ours kept in $kv-a;"
	grep -q '^updates/ib_srpt' "$r/$kv-a/modules.dep" &&
		why="$why $kv-a modules.dep still names it (no depmod);"
	[ -e "$r/$kv-b/updates/ib_srpt.ko" ] || why="$why another driver's removed;"
	if [ "$2" = yes ]; then
		[ -e "$r/$kv-c/updates/ib_srpt.ko.xz" ] ||
			why="$why the one DKMS installed removed;"
	fi
	echo "$why"
}

dpkg_owns no
rpm_owns no
echo "srpt-dkms/$version: added" >"$t/dkms-status"
kmods ""
mk uninstall
why=$(after_uninstall "" yes)
case $calls in
"dkms status -m srpt-dkms -v $version
dkms remove srpt-dkms/$version --all"*) ;;
*) why="$why dkms calls <$(oneline "$calls")>;" ;;
esac
[ -e "$src" ] && why="$why $src kept;"
if [ $rc = 0 ] && [ -z "$why" ]; then
	pass "uninstall: dkms remove, $src deleted, our updates/ib_srpt.ko deleted + depmod (not another driver's, not DKMS's)"
else
	fail "uninstall" "exit $rc;$why output: $(oneline "$out")"
fi

# nothing installed: no dkms remove, exit 0
rm -f "$t/dkms-status"
mk uninstall
case $calls in
*"dkms remove"*) fail "uninstall with nothing installed" "dkms calls <$(oneline "$calls")>" ;;
*)	[ $rc = 0 ] && pass "uninstall with nothing installed: exit 0, no dkms remove" ||
		fail "uninstall with nothing installed" "exit $rc: $(oneline "$out")" ;;
esac

# INSTALL_MOD_PATH: only the kbuild modules there; /usr/src and DKMS alone
pkg_tree
dpkg_owns yes
mkdir -p "$t/modroot"
kmods "$t/modroot"
mk uninstall INSTALL_MOD_PATH="$t/modroot"
why=$(after_uninstall "$t/modroot" no)
[ -z "$(printf '%s\n' "$calls" | grep 'dkms remove')" ] || why="$why dkms calls <$(oneline "$calls")>;"
untouched || why="$why $src changed;"
if [ $rc = 0 ] && [ -z "$why" ]; then
	pass "uninstall INSTALL_MOD_PATH=...: only our kbuild modules there (+ depmod -b)"
else
	fail "uninstall INSTALL_MOD_PATH=..." "exit $rc;$why output: $(oneline "$out")"
fi

[ "$nfail" = 0 ]
