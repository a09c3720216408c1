#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# depmod-order.sh - does depmod pick the DKMS-installed ib_srpt over the
# kernel's own kernel/drivers/infiniband/ulp/srpt/ib_srpt.ko, for the
# directory dkms installs into on each kind of distribution (dkms 3.0
# overrides dkms.conf's DEST_MODULE_LOCATION by /etc/os-release):
#   Fedora, RHEL and rebuilds   extra/       search updates extra built-in
#                                            (kmod's depmod.d dist.conf)
#   SUSE                        updates/     search updates extra built-in
#   Debian, Ubuntu              updates/dkms/  kmod's default order
# Each case builds a fake /lib/modules/<kver> tree under a temporary
# directory with two modules named ib_srpt (tiny ELF objects with a
# .modinfo section: the kernel's and ours), runs `depmod -b ROOT -C CONF`
# with only the case's search line, and checks which file modules.dep
# names. Every case is run with the two directories created in both
# orders, so that the directory scan order cannot decide. A control case
# (built-in searched first) must pick the kernel's file: it shows that the
# test can see a loss. Needs gcc and depmod; no root; changes nothing
# outside a temporary directory. Prints PASS/FAIL lines; exits 1 if a check
# failed.
set -u

nfail=0
pass() { echo "PASS: depmod order: $1"; }
fail() { echo "FAIL: depmod order: $1${2:+ - $2}"; nfail=$((nfail + 1)); }

depmod=$(PATH=/usr/sbin:/sbin:$PATH command -v depmod) ||
	{ fail "depmod" "not installed"; exit 1; }
t=$(mktemp -d /tmp/srpt-depmod-order.XXXXXX)
trap 'rm -rf "$t"' EXIT
kv=6.1.0-99-test
intree=kernel/drivers/infiniband/ulp/srpt

# a module object: just enough ELF for depmod (name, vermagic)
cat >"$t/m.c" <<EOF
static const char n[] __attribute__((used, section(".modinfo"))) = "name=ib_srpt";
static const char v[] __attribute__((used, section(".modinfo"))) = "vermagic=$kv SMP mod_unload ";
EOF
gcc -c -o "$t/m.o" "$t/m.c" || { fail "gcc: module object"; exit 1; }

# winner DIR1 DIR2 SEARCH: the directory of the ib_srpt that depmod picks
# with both in the tree (DIR1 created first) and the depmod.d line SEARCH
# (empty: no configuration, kmod's default)
winner() {
	local r=$t/root d
	rm -rf "$r"
	mkdir -p "$r/conf"
	for d in "$1" "$2"; do
		mkdir -p "$r/lib/modules/$kv/$d"
		cp "$t/m.o" "$r/lib/modules/$kv/$d/ib_srpt.ko"
	done
	[ -z "$3" ] || echo "$3" >"$r/conf/search.conf"
	"$depmod" -b "$r" -C "$r/conf" "$kv" 2>"$t/depmod.err" ||
		{ echo "depmod failed: $(head -n 2 "$t/depmod.err")"; return; }
	sed -n 's,^\(.*\)/ib_srpt\.ko:.*,\1,p' "$r/lib/modules/$kv/modules.dep"
}
# check NAME OURS SEARCH WANT: WANT is "ours" or "kernel"
check() {
	local want=$2 got1 got2
	[ "$4" = kernel ] && want=$intree
	got1=$(winner "$intree" "$2" "$3")
	got2=$(winner "$2" "$intree" "$3")
	if [ "$got1" = "$want" ] && [ "$got2" = "$want" ]; then
		pass "$1: $want/ib_srpt.ko"
	else
		fail "$1" "picked '$got1' / '$got2', want '$want'"
	fi
}

check "Fedora/RHEL: extra/ with 'search updates extra built-in'" \
	extra "search updates extra built-in" ours
check "SUSE: updates/ with 'search updates extra built-in'" \
	updates "search updates extra built-in" ours
check "Debian/Ubuntu: updates/dkms/ with kmod's default order" \
	updates/dkms "" ours
check "control: extra/ with 'search built-in extra' loses" \
	extra "search built-in extra" kernel

[ "$nfail" = 0 ]
