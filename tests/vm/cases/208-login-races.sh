# SPDX-License-Identifier: GPL-2.0
# 208-login-races: RDMA CM logins racing against device removal and channel
# teardown (issue 10, findings 5 and 3). Each check requires that the login
# is not accepted by a target that is going away, that every channel is
# released, that no kernel warning is logged (the runner's dmesg check) and
# that the module unloads afterwards (final checks).
#
# Deterministic part, debug build only (make SRPT_DEBUG_HOOKS=y; see
# src/debug.c): the module parameters debug_delay_point / debug_delay_ms make
# one point of the login sleep, and the disruption runs inside that sleep.
#  removal_in_req (finding 5): the connect request handler sleeps right after
#    it found its HCA while `rdma link delete` removes the HCA. No port
#    directory exists, so nothing but the login could keep the srpt_device
#    alive: without a reference the handler reads freed memory.
#  linked_* (finding 3): the login sleeps after srpt_ch_link() and before its
#    accept while enable=0 is written, use_srq is switched, the ACL is
#    removed, or the HCA is deleted: the login must be refused. While another
#    (enabled, empty) TPG of the port is removed, the login must be accepted
#    (enable is per TPG since issue 10 finding 12). Before the fix the release work
#    freed the QP and the session under the sleeping login, and both the
#    login and the release work freed the channel and its cm_id.
# Without the debug parameters these checks are reported as SKIP.
#
# Stress part, any build:
#  connect_during_removal (finding 5): a loop of logins with random
#    initiator port IDs while the HCA is deleted and added again 3 times
#    (1 quick).
#  logins_during_toggles (finding 3): two login loops (single-channel and
#    multichannel logins of one initiator) while enable, use_srq and the
#    ACL are toggled.
# vmtest-timeout: 900

P=/sys/module/ib_srpt/parameters
# The disruption must happen while the login sleeps in the hook. removal_in_req
# sleeps DELAY_MS (the device removal waits for the login). The linked_*
# logins are held in the hook for at most HOLD_MS and the hook is disarmed,
# which ends the sleep (src/debug.c), as soon as the disruption has done
# its part: when its command returns, or when the driver logs that it waits
# for the sleeping login's channel (ACL removal, use_srq and device removal
# wait for it, and log that every 5 s). A fixed sleep was either too short
# on a loaded host (sanitizer lane, 2026-12-02: removing the ACLs took more
# than 10 s, the login woke up first and was accepted) or idle time.
# The login tool waits up to LOGIN_T ms for each CM step.
DELAY_MS=4000
is_sanitizer && DELAY_MS=10000
HOLD_MS=30000
LOGIN_T=$((HOLD_MS * 2 + 12000))

requires tool srp_login_loop
case_begin

# srp_login_bg FILE [options]: one login in the background, output in FILE
srp_login_bg() {
	_f=$1
	shift
	srp_tool srp_login_loop -T "$LOGIN_T" "$@" > "$_f" 2>&1 &
	BG=$!
}

# not_accepted NAME FILE: the login in FILE must not have been accepted
not_accepted() {
	if grep -q '^result=accepted' "$2"; then
		fail "$1" "login accepted by a target going away: $(tr '\n' ' ' < "$2")"
	else
		pass "$1" "$(grep '^result=\|^reason=' "$2" | tr '\n' ' ')"
	fi
}

# hook POINT: arm the delay hook (0 disarms it)
hook() { debug_hook "$1" "$DELAY_MS"; }

# wait_hook: wait until the login sleeps in the hook
wait_hook() { wait_for 60 hook_slept '[0-9]*'; }

# disrupt HOW: the disruption of linked_HOW (in a background subshell)
disrupt() {
	case $1 in
	enable0) cfs_write "$TPG/enable" 0 ;;
	use_srq) sh -c "echo 1 > $TPG/attrib/use_srq" ;;
	acl_rmdir)
		for a in "$TPG"/acls/*; do
			[ -d "$a" ] || continue
			find "$a" -type l -exec rm -f {} \;
			for l in "$a"/lun_*; do [ -d "$l" ] && rmdir "$l"; done
			rmdir "$a" || return 1
		done
		;;
	tpg_rmdir) rmdir "${TPG%/*}/tpgt_2" ;;
	rxe_del) rxe_del ;;
	esac
}

# disrupted: the disruption returned ($DRC), or it waits for the sleeping
# login's channel (the driver's progress messages)
disrupted() {
	[ -s "$DRC" ] ||
		[ "$(count_since 'still waiting for the channel\|channel(s) to close before\|waiting for unregistration')" -gt 0 ]
}

# released_ok NAME: the channel of the login that slept in the hook (it was
# linked into its nexus) has been released
released_ok() {
	ours "$1" || return 0
	if wait_released 1 30; then
		pass "$1"
	else
		fail "$1" "no 'channel released' after the login"
	fi
}

# --- deterministic part ------------------------------------------------------
if ! have hooks || ! have ours; then
	skip hooks "$WHY"
else
	on_exit debug_hook 0 0
	# Finding 5: the HCA goes away while a connect request handler holds it.
	mkdir -p "$SRPT" && echo "$CM_PORT" > "$SRPT/discovery_auth/rdma_cm_port"
	dmesg_mark
	hook 1
	srp_login_bg /tmp/race.out -r
	if wait_hook; then
		if rxe_del; then
			wait $BG
			not_accepted removal_in_req /tmp/race.out
		else
			fail removal_in_req "rdma link delete: $ERR"
		fi
	else
		fail removal_in_req "the login never reached the hook"
	fi
	hook 0
	wait $BG 2>/dev/null
	[ -d /sys/class/infiniband/$IBDEV ] || rxe_add || fail rxe_add_1 "$ERR"
	teardown_target

	# Finding 3: the channel is closed between srpt_ch_link() and accept.
	for how in enable0 use_srq acl_rmdir tpg_rmdir rxe_del; do
		setup_target || break
		# an enabled, empty second TPG: its rmdir must leave the login
		# in tpgt_1 alone (enable is per TPG, see 209-tpg-rmdir)
		[ "$how" = tpg_rmdir ] && mkdir "${TPG%/*}/tpgt_2" &&
			echo 1 > "${TPG%/*}/tpgt_2/enable"
		dmesg_mark
		debug_hook 2 $HOLD_MS
		srp_login_bg /tmp/race.out -i "$IPID"
		if ! wait_hook; then
			fail "linked_$how" "the login never reached the hook"
			hook 0
			wait $BG
			teardown_target
			continue
		fi
		# files of their own per disruption: one that outlived its
		# check (failed above) cannot answer for the next one
		DRC=/tmp/disrupt.$how.rc
		( disrupt "$how" > "/tmp/disrupt.$how.out" 2>&1
		  echo "$? $ERR" > "$DRC" ) &
		wait_for 60 disrupted || fail "linked_${how}_disrupt" "neither done nor waiting after 60 s"
		hook 0
		if wait_for 60 test -s "$DRC"; then
			read -r rc err < "$DRC"
			[ "$rc" = 0 ] || fail "linked_${how}_disrupt" "status $rc: $err $(tr '\n' ' ' < "/tmp/disrupt.$how.out")"
		else
			fail "linked_${how}_disrupt" "not done 60 s after the login woke up"
		fi
		wait $BG
		if [ "$how" = tpg_rmdir ]; then
			if grep -q '^result=accepted' /tmp/race.out; then
				pass "linked_$how" "accepted: the removed TPG was another one"
			else
				fail "linked_$how" "login refused: $(tr '\n' ' ' < /tmp/race.out)"
			fi
		else
			not_accepted "linked_$how" /tmp/race.out
		fi
		hook 0
		released_ok "linked_${how}_released"
		[ -d /sys/class/infiniband/$IBDEV ] || rxe_add || fail "linked_${how}_add" "$ERR"
		[ "$how" = use_srq ] && cfs_write "$TPG/attrib/use_srq" 0
		teardown_target || fail "linked_${how}_teardown" "configuration left behind"
	done
	hook 0
	echo 0 > $P/debug_delay_ms
fi

# --- stress part -------------------------------------------------------------
# Finding 5: connect loop while the HCA is deleted and re-added.
mkdir -p "$SRPT" && echo "$CM_PORT" > "$SRPT/discovery_auth/rdma_cm_port"
rounds=$(reps 3 1)
( while [ ! -e /tmp/race.stop ]; do
	# short runs: `rdma link delete` waits for this tool to close rxe0
	srp_tool srp_login_loop -r -n 3 -T 2000 > /dev/null 2>&1
done ) &
LOOP=$!
ok=1
i=0
while [ $i -lt "$rounds" ]; do
	i=$((i + 1))
	sleep 2
	rxe_del || { ok=0; fail connect_during_removal "round $i: rdma link delete: $ERR"; break; }
	sleep 1
	rxe_add || { ok=0; fail connect_during_removal "round $i: rdma link add: $ERR"; break; }
done
touch /tmp/race.stop
wait $LOOP
rm -f /tmp/race.stop
[ $ok = 1 ] && pass connect_during_removal "$rounds removal(s) during a login loop"
[ -d /sys/class/infiniband/$IBDEV ] || rxe_add || fail rxe_add_2 "$ERR"
teardown_target

# Finding 3: login loops while enable, use_srq and the ACLs are toggled.
if setup_target --acl "0x$IPID"; then
	# one loop asks for a single channel (ends the other loop's channels
	# during their login), the other for multichannel
	for f in 0 1; do
		( while [ ! -e /tmp/race.stop ]; do
			srp_tool srp_login_loop -i "$IPID" -f $f -n 10 -T 5000 > /dev/null 2>&1
		done ) &
	done
	t=$(reps 12 4)
	j=0
	while [ $j -lt "$t" ]; do
		j=$((j + 1))
		cfs_write "$TPG/enable" 0
		cfs_write "$TPG/enable" 1
		run_bounded 60 sh -c "echo $((j % 2)) > $TPG/attrib/use_srq"
		a=$TPG/acls/0x$IPID
		find "$a" -type l -exec rm -f {} \;
		rmdir "$a"/lun_* 2>/dev/null
		run_bounded 60 rmdir "$a"
		mkdir "$a" && mkdir "$a/lun_0" &&
			ln -s "$TPG/lun/lun_0" "$a/lun_0/default" 2>/dev/null
	done
	touch /tmp/race.stop
	wait
	rm -f /tmp/race.stop
	cfs_write "$TPG/attrib/use_srq" 0
	pass logins_during_toggles "$t rounds of enable, use_srq and ACL toggles"
	if login; then pass login_after_races; logout_all; else fail login_after_races "$ERR"; fi
fi
teardown_target || fail teardown "configuration left behind"
expect_refcnt_zero
