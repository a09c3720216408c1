#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rpm-scriptlets.sh RPM - check the install and uninstall scriptlets of the
# srpt-dkms RPM (run by tests/pkg/run.sh after rpmbuild):
#   1. %post and %preun are /bin/sh scripts that pass `sh -n` and
#      pass shellcheck -s sh;
#   2. they are run (with sh, that is dash here: no bashisms) against stubs:
#      a `dkms` and a common.postinst that only log their arguments and exit
#      with a status the case chooses, and a `uname`; the absolute paths of
#      the scriptlets (/usr/lib/dkms, /var/lib/dkms, /lib/modules) are
#      rewritten into a temporary directory. For install, upgrade and
#      erase, with and without dkms's common.postinst, each case checks the
#      exact dkms calls and the exit status (a failed build must be
#      reported, a skipped one not).
# Needs rpm (and shellcheck for that check); no root; changes nothing
# outside a temporary directory. Prints PASS/FAIL/SKIP lines; exits 1 if a
# check failed.
set -u

[ $# -eq 1 ] || { echo "usage: $0 RPM" >&2; exit 2; }
rpmf=$1
nfail=0
pass() { echo "PASS: rpm scriptlets: $1"; }
fail() { echo "FAIL: rpm scriptlets: $1${2:+ - $2}"; nfail=$((nfail + 1)); }
skip() { echo "SKIP: rpm scriptlets: $1${2:+ - $2}"; }

t=$(mktemp -d /tmp/srpt-rpm-scriptlets.XXXXXX)
trap 'rm -rf "$t"' EXIT

ver=$(rpm -qp --qf '%{VERSION}' "$rpmf" 2>/dev/null)
name=$(rpm -qp --qf '%{NAME}' "$rpmf" 2>/dev/null)
[ -n "$ver" ] && [ "$name" = srpt-dkms ] ||
	{ fail "read $rpmf" "name '$name' version '$ver'"; exit 1; }

# ---- extract and lint ----------------------------------------------------
for s in POSTIN PREUN; do
	rpm -qp --qf "%{$s}" "$rpmf" >"$t/$s.sh" 2>/dev/null
	prog=$(rpm -qp --qf "%{${s}PROG}" "$rpmf" 2>/dev/null)
	if [ ! -s "$t/$s.sh" ] || [ "$prog" != /bin/sh ]; then
		fail "$s is a /bin/sh scriptlet" "interpreter '$prog'"
		continue
	fi
	if err=$(sh -n "$t/$s.sh" 2>&1); then
		pass "$s: sh -n"
	else
		fail "$s: sh -n" "$err"
	fi
	if command -v shellcheck >/dev/null 2>&1; then
		if err=$(shellcheck -s sh "$t/$s.sh" 2>&1); then
			pass "$s: shellcheck -s sh"
		else
			fail "$s: shellcheck -s sh" "$(echo "$err" | head -n 8 | tr '\n' ' ')"
		fi
	else
		skip "$s: shellcheck" "not installed"
	fi
done

# ---- sandbox ---------------------------------------------------------------
# root/ stands for /: the scriptlets' absolute paths are moved under it
root=$t/root
for s in POSTIN PREUN; do
	sed -e "s,/usr/lib/dkms/,$root/usr/lib/dkms/,g" \
	    -e "s,/var/lib/dkms/,$root/var/lib/dkms/,g" \
	    -e "s,/lib/modules/,$root/lib/modules/,g" "$t/$s.sh" >"$t/$s.run"
	left=$(sed "s,$root/[a-z/]*,,g" "$t/$s.run" |
	       grep -o -E '/(usr/lib/dkms|var/lib/dkms|lib/modules)/' | head -n 1)
	[ -z "$left" ] || fail "$s: every system path moved into the sandbox" "$left"
done
mkdir -p "$t/bin"
# dkms stub: logs "dkms ARGS"; "dkms build" exits $STUB_BUILD_RC, "dkms
# remove" $STUB_REMOVE_RC, everything else 0
cat >"$t/bin/dkms" <<'EOF'
#!/bin/sh
echo "dkms $*" >>"$STUB_LOG"
case $1 in
build) exit "${STUB_BUILD_RC:-0}" ;;
remove) exit "${STUB_REMOVE_RC:-0}" ;;
esac
exit 0
EOF
cat >"$t/bin/uname" <<'EOF'
#!/bin/sh
echo 6.99.0-test.x86_64
EOF
cat >"$t/common.postinst" <<'EOF'
#!/bin/sh
printf 'common.postinst' >>"$STUB_LOG"
for a in "$@"; do printf ' [%s]' "$a" >>"$STUB_LOG"; done
echo >>"$STUB_LOG"
exit "${STUB_CP_RC:-0}"
EOF
chmod 755 "$t/bin/dkms" "$t/bin/uname" "$t/common.postinst"
kv=6.99.0-test.x86_64

# setup [postinst] [headers] [old]: a fresh sandbox root; postinst: with
# dkms's common.postinst; headers: the running kernel's headers exist;
# old: version 0.0.1 is registered in DKMS (with a kernel link and an
# original_module directory beside it, as dkms leaves them)
setup() {
	rm -rf "$root"
	mkdir -p "$root/var/lib/dkms" "$root/usr/lib/dkms" "$root/lib/modules"
	local o
	for o in "$@"; do
		case $o in
		postinst) cp "$t/common.postinst" "$root/usr/lib/dkms/" ;;
		headers) mkdir -p "$root/lib/modules/$kv/build/include" ;;
		old)
			mkdir -p "$root/var/lib/dkms/srpt-dkms/0.0.1/$kv/x86_64" \
				 "$root/var/lib/dkms/srpt-dkms/original_module"
			ln -s /usr/src/srpt-dkms-0.0.1 "$root/var/lib/dkms/srpt-dkms/0.0.1/source"
			ln -s "0.0.1/$kv/x86_64" "$root/var/lib/dkms/srpt-dkms/kernel-$kv-x86_64"
			;;
		esac
	done
}
# run SCRIPT ARG [VAR=VALUE...]: run a scriptlet as rpm does (sh SCRIPT
# ARG); sets $rc, $out (its output) and $calls (the stub calls, one a line)
run() {
	local s=$1 a=$2
	shift 2
	: >"$t/log"
	out=$(env PATH="$t/bin:/usr/bin:/bin" STUB_LOG="$t/log" "$@" \
		sh "$t/$s.run" "$a" 2>&1)
	rc=$?
	calls=$(cat "$t/log")
}
# expect NAME RC CALLS [OUTPUT-PATTERN]
expect() {
	local why=
	[ "$rc" = "$2" ] || why="exit $rc, want $2;"
	[ "$calls" = "$3" ] || why="$why calls <$(echo "$calls" | tr '\n' '|')>, want <$(echo "$3" | tr '\n' '|')>;"
	if [ -n "${4:-}" ] && ! printf '%s\n' "$out" | grep -q -E -- "$4"; then
		why="$why output lacks /$4/: $(echo "$out" | tr '\n' ' ')"
	fi
	[ -z "$why" ] && pass "$1" || fail "$1" "$why"
}

m="-m srpt-dkms -v $ver"
cp_call="common.postinst [srpt-dkms] [$ver] [/usr/src] []"

# ---- %post with common.postinst ------------------------------------------
setup postinst headers
run POSTIN 1
expect "install: common.postinst srpt-dkms $ver, no other dkms call" 0 \
	"$cp_call []"
setup postinst headers
run POSTIN 1 STUB_CP_RC=10
expect "install: a failure of common.postinst is the scriptlet's exit status" 10 \
	"$cp_call []"
setup postinst headers old
run POSTIN 2
expect "upgrade from 0.0.1: dkms remove 0.0.1 --all, then common.postinst (upgrade)" 0 \
	"dkms remove -m srpt-dkms -v 0.0.1 --all
$cp_call [upgrade]" "removing version 0\\.0\\.1"

# ---- %post without common.postinst ---------------------------------------
setup headers
run POSTIN 1
expect "install without common.postinst: dkms add, build, install for the running kernel" 0 \
	"dkms add $m
dkms build $m -k $kv
dkms install $m -k $kv"
setup headers
run POSTIN 1 STUB_BUILD_RC=77
expect "install without common.postinst: a skipped build (77) is reported, exit 0" 0 \
	"dkms add $m
dkms build $m -k $kv" "skipped kernel $kv"
setup headers
run POSTIN 1 STUB_BUILD_RC=10
expect "install without common.postinst: a failed build fails the scriptlet" 10 \
	"dkms add $m
dkms build $m -k $kv" "error: .*build.*failed"
setup
run POSTIN 1
expect "install without common.postinst, no headers: dkms add only, says how to build" 0 \
	"dkms add $m" "dkms autoinstall -k $kv"
setup headers old
mkdir -p "$root/var/lib/dkms/srpt-dkms/$ver/source"
run POSTIN 2
expect "upgrade without common.postinst: old version and this one removed, then add, build, install" 0 \
	"dkms remove -m srpt-dkms -v 0.0.1 --all
dkms remove $m --all
dkms add $m
dkms build $m -k $kv
dkms install $m -k $kv"

# ---- %preun --------------------------------------------------------------
setup postinst
run PREUN 0
expect "erase: dkms remove $ver --all" 0 "dkms remove $m --all"
setup postinst
run PREUN 0 STUB_REMOVE_RC=3
expect "erase: a failed dkms remove warns, the erase goes on" 0 \
	"dkms remove $m --all" "warning"
setup postinst
run PREUN 1
expect "upgrade: the old package's preun leaves DKMS alone" 0 ""

[ "$nfail" = 0 ]
