# SPDX-License-Identifier: GPL-2.0
# tests/vm/lib.d/util.sh - polling without forks, bounded commands, configfs
# writes, expected errors, module reference counts, kernel log marks,
# debug hooks and dynamic debug.
# Sourced by tests/vm/lib.sh (busybox ash, in the guest); the functions
# a case calls are listed in the header of lib.sh.

# The polling helpers below avoid forks: on the sanitizer kernel under TCG a
# fork and exec of busybox costs tens of milliseconds of guest CPU, and a
# poll every 0.2 s that forks date and sleep took that CPU from the code
# under test. Shell builtins (read, test, echo, arithmetic) do not fork.

# now_s: NOW = whole seconds since boot (from /proc/uptime, no fork).
now_s() {
	read -r _now _ < /proc/uptime
	NOW=${_now%.*}
}

# nap SECONDS: sleep without a fork: read -t on a FIFO that nobody writes
# to. A signal to the shell (SIGCHLD of a background job) restarts the
# timeout, so a nap can last longer than asked: for polling only.
NAP_FIFO=/tmp/.vmtest-nap
nap() {
	[ -p "$NAP_FIFO" ] || mkfifo "$NAP_FIFO" 2>/dev/null
	if [ -p "$NAP_FIFO" ]; then
		# shellcheck disable=SC3045 # busybox ash has read -t (fractions too)
		read -r -t "$1" _ <> "$NAP_FIFO" 2>/dev/null
	else
		sleep "$1"
	fi
	return 0
}

# read_file FILE: ERR = the contents of FILE (no fork; empty if missing).
read_file() {
	ERR=
	[ -f "$1" ] || return 0
	while IFS= read -r _rl || [ -n "$_rl" ]; do
		ERR="${ERR:+$ERR
}$_rl"
	done < "$1"
}

wait_for() { # wait_for SECONDS cmd...
	_wt=$1
	shift
	now_s
	_wend=$((NOW + _wt))
	while ! "$@" >/dev/null 2>&1; do
		now_s
		[ "$NOW" -ge "$_wend" ] && return 1
		nap 0.2
	done
	return 0
}

run_bounded() { # run_bounded SECONDS cmd...
	_bt=$1
	shift
	# A name of its own for every call, also in concurrent subshells
	# (which share $$): the pid of this shell process, read from
	# /proc/self by the shell itself, and a counter.
	read -r _bpid _ < /proc/self/stat
	_BOUNDED_SEQ=$((${_BOUNDED_SEQ:-0} + 1))
	_bf=/tmp/bounded.$_bpid.$_BOUNDED_SEQ
	( "$@" > "$_bf.out" 2>&1; echo $? > "$_bf.rc" ) &
	if wait_for "$_bt" test -s "$_bf.rc"; then
		read -r _brc < "$_bf.rc"
	else
		_brc=124
	fi
	read_file "$_bf.out"
	rm -f "$_bf.rc" "$_bf.out"
	return "$_brc"
}

try() { # try cmd... ; stderr+stdout in $ERR
	ERR=$("$@" 2>&1)
}

cfs_write() { # cfs_write FILE VALUE
	ERR=$( (echo "$2" > "$1") 2>&1 )
}

expect_err() { # expect_err NAME ERRTEXT cmd...
	_en=$1 _ee=$2
	shift 2
	if _out=$("$@" 2>&1); then
		fail "$_en" "'$*' succeeded, expected failure ($_ee)"
		return 1
	fi
	case $_out in
	*"$_ee"*) pass "$_en"; return 0 ;;
	esac
	fail "$_en" "'$*' failed with '$(echo "$_out" | tail -n 1)', expected '$_ee'"
	return 1
}

expect_ok() { # expect_ok NAME cmd...
	_on=$1
	shift
	if _out=$("$@" 2>&1); then
		pass "$_on"
		return 0
	fi
	fail "$_on" "'$*': $(echo "$_out" | tail -n 2 | tr '\n' ' ')"
	return 1
}

module_refcnt() { # module_refcnt [MOD]
	cat "/sys/module/${1:-ib_srpt}/refcnt" 2>/dev/null || echo -1
}

expect_refcnt_zero() {
	_rc0=$(module_refcnt ib_srpt)
	if [ "$_rc0" = 0 ]; then
		pass refcnt_zero
	else
		fail refcnt_zero "refcnt $_rc0"
	fi
}

_MARK=0
dmesg_mark() {
	_MARK=$((_MARK + 1))
	echo "VMTEST-MARK $CASE $_MARK" > /dev/kmsg
}
dmesg_since() {
	dmesg | sed -n "/VMTEST-MARK $CASE $_MARK\$/,\$p" | sed 1d
}
count_since() { # count_since TEXT
	dmesg_since | grep -c "$1"
}
released_ge() { # released_ge N
	[ "$(count_since 'channel released')" -ge "$1" ]
}
wait_released() { # wait_released N SECONDS
	wait_for "$2" released_ge "$1"
}
# expect_released N: pass "released" if N channels were released (the
# "channel released" lines since the last dmesg_mark) within 60 s
expect_released() {
	if wait_released "$1" 60; then
		pass released "$1 channel(s) released"
	else
		fail released "$(count_since 'channel released') of $1 channels released: $(dmesg_since | tail -n 5 | tr '\n' ' ')"
	fi
}

hook_slept() { # hook_slept POINT
	[ "$(count_since "debug hook $1: sleeping")" -gt 0 ]
}
release_started() {
	[ "$(count_since 'releasing channel')" -gt 0 ]
}

debug_hook() { # debug_hook POINT MS
	_dhp=/sys/module/ib_srpt/parameters
	echo "$2" > $_dhp/debug_delay_ms
	echo "$1" > $_dhp/debug_delay_point
}

dyndbg() { # dyndbg FUNC on|off
	_dc=/sys/kernel/debug/dynamic_debug/control
	[ -w "$_dc" ] || { ERR="no $_dc"; return 1; }
	case $2 in on) _fl=+p ;; *) _fl=-p ;; esac
	cfs_write "$_dc" "module ib_srpt func $1 $_fl"
}
