# SPDX-License-Identifier: GPL-2.0
# tests/vm/lib.d/report.sh - result lines of a case (VMTEST RESULT, INFO) and
# the predicates about the run (is_ref, is_quick, is_sanitizer, reps).
# Sourced by tests/vm/lib.sh (busybox ash, in the guest); the functions
# a case calls are listed in the header of lib.sh.

# (The helpers of lib.d share the case's global variables: _result, which
# every check calls, sets only _rs_line, a name no case uses; a helper that
# kept a call number in _n broke when this one still set _n, 2026-12-06.)
_result() { # _result STATUS NAME [detail...]
	echo "$1 $2" >> "$RESULTS_DIR/$CASE"
	_rs_line="VMTEST RESULT $CASE.$2 $1"
	shift 2
	echo "$_rs_line${*:+ $*}"
	return 0
}
pass() { _result PASS "$@"; }
fail() { _result FAIL "$@"; _fail_dmesg || true; }
# The first FAIL of a case also prints the end of the case's kernel log, at
# every level, into the console log: the console itself shows only warnings
# and above, and a failure that does not come back must be explainable
# from the log of the run that saw it.
_fail_dmesg() {
	[ -z "${_FAIL_DMESG:-}" ] || return 0
	_FAIL_DMESG=1
	dmesg | sed -n "/VMTEST-CASE-START $CASE\$/,\$p" | tail -n 40 |
		sed "s/^/VMTEST INFO $CASE dmesg: /"
}
skip() { _result SKIP "$@"; }
info() { echo "VMTEST INFO $CASE $*"; }
is_ref() { [ "${SRPT_MODE:-ours}" = ref ]; }
# ours NAME: a check that reads srpt-dkms log messages; with --ref it is
# reported as skipped and ours returns 1 (use as: ours NAME && ...)
ours() {
	is_ref || return 0
	skip "$1" "reads srpt-dkms log messages"
	return 1
}
xfail_ref() {
	if is_ref; then
		_xr_name=$1
		shift
		_result XFAIL "$_xr_name" "(known upstream bug, expected with --ref) $*"
	else
		fail "$@"
	fi
}
is_quick() { [ "${VMTEST_QUICK:-0}" = 1 ]; }
is_sanitizer() { [ "${VMTEST_SANITIZER:-0}" = 1 ]; }
reps() { if is_quick; then echo "$2"; else echo "$1"; fi; }
xfail_ref_dmesg() {
	is_ref && echo "$*" > "$RESULTS_DIR/$CASE.refdmesg"
	return 0
}
check() { # check NAME cmd...
	_cn=$1
	shift
	if _out=$("$@" 2>&1); then
		pass "$_cn"
	else
		fail "$_cn" "'$*' failed: $(echo "$_out" | tail -n 3 | tr '\n' ' ')"
	fi
}
