# SPDX-License-Identifier: GPL-2.0
# tests/vm/lib.d/case.sh - the case framework: requirements (have,
# requires), case_begin, target_up, on_exit and the case teardown.
# Sourced by tests/vm/lib.sh (busybox ash, in the guest); the functions
# a case calls are listed in the header of lib.sh.

have() { # have WHAT [ARG...]: 0 if met, else 1 with the reason in $WHY
	WHY=""
	case $1 in
	tool) [ -x "/tools/$2" ] || WHY="/tools/$2 missing" ;;
	ours) ! is_ref || WHY=${2:-in-kernel driver} ;;
	hooks)
		[ -e "/sys/module/ib_srpt/parameters/${2:-debug_delay_point}" ] ||
			WHY="not a debug build (make SRPT_DEBUG_HOOKS=y)"
		;;
	module)
		_hm=$2
		shift 2
		[ -e "/sys/module/$_hm" ] && rmmod "$_hm" 2>/dev/null
		if try modprobe "$_hm" "$@"; then
			case " $_TD_MODULES " in
			*" $_hm "*) ;;
			*) _TD_MODULES="$_hm $_TD_MODULES" ;;
			esac
		else
			WHY="modprobe $_hm: $ERR"
		fi
		;;
	targetcli)
		if _debroot_up && [ -z "$_TCLI_ON_EXIT" ]; then
			_TCLI_ON_EXIT=1
			on_exit _tcli_down
		fi
		;;
	*) WHY="unknown requirement '$1'" ;;
	esac
	[ -z "$WHY" ]
}

requires() { # requires WHAT [ARG...]: SKIP all and end the case if not met
	have "$@" && return 0
	skip all "$WHY"
	exit 0
}

guest_state_clean() {
	GUEST_DIRT=""
	ls /sys/class/srp_remote_ports/* >/dev/null 2>&1 && GUEST_DIRT="$GUEST_DIRT logged-in"
	if [ -d "$SRPT" ]; then
		for _pd in "$SRPT"/*; do
			case ${_pd##*/} in discovery_auth|'*') continue ;; esac
			[ -d "$_pd" ] && GUEST_DIRT="$GUEST_DIRT port-dir:${_pd##*/}"
		done
	fi
	for _hba in "$T"/core/*_*; do
		[ -d "$_hba" ] || continue
		case ${_hba##*/} in alua) continue ;; esac
		GUEST_DIRT="$GUEST_DIRT backstore:${_hba##*/}"
	done
	[ -d /sys/module/ib_srpt ] || GUEST_DIRT="$GUEST_DIRT ib_srpt-not-loaded"
	[ -d "/sys/class/infiniband/$IBDEV" ] || GUEST_DIRT="$GUEST_DIRT no-$IBDEV"
	[ -z "$GUEST_DIRT" ]
}

_TD_MODULES=""
_ON_EXIT=""
on_exit() { # on_exit CMD...: run CMD in the case teardown (newest first)
	_ON_EXIT="$*
$_ON_EXIT"
}

case_teardown() {
	trap - EXIT
	# 1. what the case registered, newest first
	_td_cmds=$_ON_EXIT
	_ON_EXIT=""
	while IFS= read -r _td_c; do
		[ -n "$_td_c" ] && eval "$_td_c"
	done <<TDEOF
$_td_cmds
TDEOF
	# 2. the target, the device, the module
	guest_state_clean
	if [ -n "$GUEST_DIRT" ] || [ -d "$SRPT" ]; then
		info "teardown: undoing what the case left:${GUEST_DIRT:- $SRPT}"
		run_bounded 120 teardown_target ||
			fail teardown "configuration left behind: $ERR"
		if ! [ -d "/sys/class/infiniband/$IBDEV" ]; then
			rxe_add || fail teardown "rxe_add: $ERR"
		fi
		if ! [ -d /sys/module/ib_srpt ]; then
			try modprobe ib_srpt || fail teardown "modprobe ib_srpt: $ERR"
		fi
	fi
	# 3. modules of requires/have module
	for _td_m in $_TD_MODULES; do
		if [ -d "/sys/module/$_td_m" ] && ! try rmmod "$_td_m"; then
			fail teardown "rmmod $_td_m: $ERR"
		fi
	done
	# 4. default module parameters
	if [ "$_SRPT_PARAMS_SET" = 1 ]; then
		srpt_reload || fail teardown "$ERR"
	fi
	if [ "$_IB_SRP_PARAMS_SET" = 1 ]; then
		reload_ib_srp || true
	fi
}

case_begin() { # case_begin [target_up options]
	trap case_teardown EXIT
	srp_ids
	[ $# -eq 0 ] && return 0
	target_up "$@" || exit 0
}

target_up() { # target_up [options] [setup_target options]
	_tu_srpt="" _tu_srpt_set=0 _tu_srp="" _tu_srp_set=0 _tu_luns="" _tu_attrs=""
	_tu_login=0 _tu_lopts="" _tu_as=setup _tu_enable=1 _tu_st=""
	while [ $# -gt 0 ]; do
		case $1 in
		--srpt) _tu_srpt=$2 _tu_srpt_set=1; shift 2 ;;
		--ib-srp) _tu_srp=$2 _tu_srp_set=1; shift 2 ;;
		--lun) _tu_luns="$_tu_luns$2 $3 $4
"; shift 4 ;;
		--attr) _tu_attrs="$_tu_attrs $2"; shift 2 ;;
		--login) _tu_login=1; shift ;;
		--login-opts) _tu_login=1 _tu_lopts=$2; shift 2 ;;
		--as) _tu_as=$2; shift 2 ;;
		--target) shift ;;
		--no-enable) _tu_enable=0; shift ;;
		--port | --backstore | --size | --luns | --acl)
			_tu_st="$_tu_st $1 $2"; shift 2 ;;
		*) fail "$_tu_as" "target_up: unknown option $1"; return 2 ;;
		esac
	done
	if [ $_tu_srpt_set = 1 ]; then
		# shellcheck disable=SC2086 # PARAMS: words, no globs
		srpt_reload $_tu_srpt || { fail "$_tu_as" "$ERR"; return 1; }
	fi
	if [ $_tu_srp_set = 1 ]; then
		# shellcheck disable=SC2086 # as above
		reload_ib_srp $_tu_srp || return 1
	fi
	# shellcheck disable=SC2086 # setup_target options: words, no globs
	setup_target $_tu_st --no-enable || return 1
	while read -r _tu_h _tu_n _tu_c; do
		[ -n "$_tu_h" ] || continue
		add_lun "$_tu_h" "$_tu_n" "$_tu_c" || return 1
	done <<TUEOF
$_tu_luns
TUEOF
	for _tu_a in $_tu_attrs; do
		cfs_write "$TPG/attrib/${_tu_a%%=*}" "${_tu_a#*=}" ||
			{ fail "$_tu_as" "${_tu_a}: $ERR"; return 1; }
	done
	if [ $_tu_enable = 1 ]; then
		for _tu_t in $TPGS; do
			cfs_write "$_tu_t/enable" 1 ||
				{ fail "$_tu_as" "enable $_tu_t: $ERR"; return 1; }
		done
	fi
	[ $_tu_login = 1 ] || return 0
	# shellcheck disable=SC2086 # login options: words
	login $_tu_lopts || { fail login "$ERR"; return 1; }
}

# expect_unload: tear the target down and reload ib_srpt with default
# parameters (checks "teardown" and "unload": no channel, no reference left)
expect_unload() {
	teardown_target || fail teardown "configuration left behind"
	if srpt_reload; then
		pass unload "ib_srpt unloaded and reloaded"
	else
		fail unload "$ERR"
	fi
}

# expect_relogin: enable $TPG again, log ib_srp in and read from the disk
# (checks "relogin" and "read", or "enable" if the enable fails)
expect_relogin() {
	if ! cfs_write "$TPG/enable" 1; then
		fail enable "$ERR"
	elif ! login; then
		fail relogin "$ERR"
	else
		check read dd if="$DISK" of=/dev/null bs=4k count=16 iflag=direct
	fi
}
