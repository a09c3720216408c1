# SPDX-License-Identifier: GPL-2.0
# 221-ib-cm-login: the IB CM login path, which InfiniBand initiators
# (ib_srp, srp_daemon) use, end to end over Soft-RoCE: ib_srpt loaded with
# srpt_ib_cm_roce=1 listens on the IB CM of rxe0, and the test initiator
# /selftest/srpt_ibcm_init.ko (tests/selftest/srpt_ibcm_init.c; ib_srp
# needs an SA path query, which rxe has not) sends REQ/RTU/DREQ with a
# loopback RoCE path (docs/design.md, "Listeners" and "CM events"):
#  - a SIDR_REQ to the service ID gets SIDR REP "unsupported", and nothing
#    is left behind;
#  - the srp_daemon chain: the DM agent's IOC profile and service entry give
#    the IDs the login uses;
#  - login with one and several channels (MULTI, then SINGLE closes the
#    others with a DREQ), verified WRITE and READ with direct, indirect and
#    immediate-data descriptors, a LUN reset, logout by DREQ, a target that
#    disconnects (TPG enable=0: DREQ received, DREP sent);
#  - every reachable SRP_LOGIN_REJ reason, an unknown service ID, REQ
#    retries that time out, and hostile REQs: short, garbage and wrong
#    opcode private data, an MRA before the RTU, no RTU at all (the target
#    must release the half-open channel), a REQ that reuses the QPN of a
#    live connection (the CM's stale-connection handling);
#  - a login storm (8 channels at a time), the ACL removed, the device
#    removed and the module unloaded with IB CM channels open.
# The in-kernel driver never listens on the IB CM of a RoCE port: --ref
# skips this case.
# vmtest-timeout: 420

requires ours "the in-kernel driver has no IB CM listener on RoCE ports"
KO=/selftest/srpt_ibcm_init.ko
if [ ! -f "$KO" ]; then
	# run.sh takes every module of build/<kver>/tests/selftest: a
	# missing one is a build or image fault, not a reason to skip
	fail ibcm_module "$KO not in the image (build tests/selftest)"
	exit 0
fi
CTL=/sys/kernel/debug/srpt_ibcm_init/ctl

# ibcm CMD...: one command of the test initiator; RES is its result line.
ibcm() {
	RES=""
	if ! (echo "$*" > "$CTL") 2>/tmp/ibcm.err; then
		RES="command '$*' failed: $(cat /tmp/ibcm.err)"
		return 1
	fi
	RES=$(cat "$CTL")
}

# expect_res NAME PATTERN CMD...: run CMD; pass NAME if its result line
# matches the grep -E PATTERN.
expect_res() {
	_er_name=$1 _er_pat=$2
	shift 2
	if ibcm "$@" && echo "$RES" | grep -Eq "$_er_pat"; then
		pass "$_er_name" "$RES"
		return 0
	fi
	fail "$_er_name" "$*: got '$RES', expected /$_er_pat/"
	return 1
}

# no_slots: destroy every slot the initiator still has (one that an
# unexpected answer left behind must not shift the slots of the next part)
no_slots() {
	ibcm status || return 0
	for _ns in ${RES#slots}; do
		ibcm destroy slot="${_ns%%:*}"
		info "destroyed slot ${_ns%%:*} (${_ns#*:}) left by an earlier part"
	done
}

# during_login NAME PATTERN DISRUPTION: a login whose target handler
# sleeps (SRPT_DBG_CM_REQ) while DISRUPTION (eval'd) runs; its result must
# match PATTERN. Debug builds only.
during_login() {
	debug_hook 1 5000
	dmesg_mark
	rm -f /tmp/ibcm.dl
	(ibcm login guid="$G"; echo "$RES" > /tmp/ibcm.dl) &
	_dl_pid=$!
	wait_for 10 hook_slept 1 || info "$1: the hook did not sleep"
	eval "$3" || fail "$1" "disruption '$3' failed: $ERR"
	debug_hook 0 0
	wait $_dl_pid
	RES=$(cat /tmp/ibcm.dl 2>/dev/null)
	if echo "$RES" | grep -Eq "$2"; then
		pass "$1" "$RES"
	else
		fail "$1" "got '$RES', expected /$2/"
	fi
}

ibcm_load() {
	[ -d /sys/module/srpt_ibcm_init ] && rmmod srpt_ibcm_init
	try insmod "$KO" || { fail ibcm_load "insmod $KO: $ERR"; return 1; }
}
ibcm_unload() {
	[ -d /sys/module/srpt_ibcm_init ] || return 0
	try rmmod srpt_ibcm_init || fail ibcm_unload "rmmod: $ERR"
}

dmesg_mark
on_exit ibcm_unload
ibcm_load || exit 0
srp_ids
G=0x$SG
# by default there is no IB CM listener on a RoCE port: the CM itself
# rejects the REQ (invalid service ID, 8)
expect_res no_listener_by_default '^rej slot=[0-9] cm_reason=8 ' login guid="$G"
case_begin --srpt srpt_ib_cm_roce=1 --port guid || exit 0

# --- SIDR_REQ: answered "unsupported" (status 1), no cm_id left ----------
expect_res sidr_req '^sidr_rep status=1 ' sidr sid="$G"
expect_res sidr_req_again '^sidr_rep status=1 ' sidr sid="$G"

# --- the srp_daemon chain: IDs from the DM agent ---------------------------
if have tool dm_query; then
	Q=$(/tools/dm_query -C "$IBDEV" -P "$IBPORT" ioc 1 2>&1)
	ioc_guid=$(echo "$Q" | sed -n 's/^guid=//p')
	Q=$(/tools/dm_query -C "$IBDEV" -P "$IBPORT" svc 0x00010000 2>&1)
	svc_id=$(echo "$Q" | sed -n 's/^svc0_id=//p')
	svc_name=$(echo "$Q" | sed -n "s/^svc0_name='\{0,1\}\([^']*\)'\{0,1\}$/\1/p")
	if [ -n "$ioc_guid" ] && [ -n "$svc_id" ] &&
	   [ "$svc_name" = "SRP.T10:${svc_id#0x}" ]; then
		pass dm_ids "ioc_guid=$ioc_guid service $svc_name"
		if expect_res dm_login '^rep slot=0 ' login sid="$svc_id" \
			id_ext="$svc_id" ioc_guid="$ioc_guid"; then
			expect_res dm_login_logout '^logout slot=0 drep' logout slot=0
		fi
	else
		fail dm_ids "IOC profile / service entry: guid='$ioc_guid' svc0_id='$svc_id' svc0_name='$svc_name'"
	fi
else
	skip dm_ids "$WHY"
fi

# --- one channel: login, the ACL's info, TUR, verified I/O, TMF, logout ---
nrel=0
if expect_res login_single '^rep slot=0 .*rsp_flags=0x[0-9a-f]*' login guid="$G"; then
	n=$(count_since 'Accepted login of .*channel IB/CM')
	[ "$n" -ge 1 ] && pass accepted_ib_cm "$n" ||
		fail accepted_ib_cm "no 'Accepted login ... IB/CM' message"
	# the session name of an IB CM login is the GUID form of the
	# initiator's GID (::ffff:192.0.2.1 here), on a RoCE port
	addr=$(cat "$TPG"/acls/*/info 2>/dev/null | grep -m 1 'Address')
	case $addr in
	*"Address 0000:ffff:c000:0201 RoCE "*) pass info_transport "$addr" ;;
	*) fail info_transport "'$addr'" ;;
	esac
	expect_res tur '^rsp slot=0 .*status=0x00 ' tur slot=0
	for f in direct:4096 indirect:65536 imm:4096 direct:131072; do
		fmt=${f%:*} len=${f#*:}
		expect_res "write_${fmt}_$len" '^rsp slot=0 .*status=0x00 ' \
			write slot=0 lba=64 len="$len" fmt="$fmt" seed=7
		rfmt=$fmt
		[ "$fmt" = imm ] && rfmt=indirect
		expect_res "read_${rfmt}_$len" '^rsp slot=0 .*status=0x00 .*verify=ok' \
			read slot=0 lba=64 len="$len" fmt="$rfmt" seed=7
	done
	# a read with the wrong seed must not verify: the check can fail
	expect_res read_mismatch_detected 'verify=mismatch' \
		read slot=0 lba=64 len=4096 fmt=direct seed=8
	expect_res tmf_lun_reset '^tmf slot=0 status=0x00 ' tmf slot=0 func=lun_reset
	expect_res tur_after_reset '^rsp slot=0 ' tur slot=0
	expect_res logout_dreq '^logout slot=0 drep' logout slot=0
	nrel=$((nrel + 1))
	wait_released $nrel 30 && pass released_after_logout ||
		fail released_after_logout "$(count_since 'channel released') released"
fi

# --- several channels; a SINGLE login closes the others --------------------
no_slots
if expect_res login_multi_0 '^rep slot=0 ' login guid="$G" multi=1 &&
   expect_res login_multi_1 '^rep slot=1 ' login guid="$G" multi=1; then
	expect_res tur_multi_1 '^rsp slot=1 .*status=0x00 ' tur slot=1
	expect_res login_single_closes '^rep slot=2 ' login guid="$G" multi=0
	expect_res dreq_to_slot0 '^dreq slot=0' wait_dreq slot=0
	expect_res dreq_to_slot1 '^dreq slot=1' wait_dreq slot=1
	ibcm destroy slot=0
	ibcm destroy slot=1
	expect_res tur_single '^rsp slot=2 .*status=0x00 ' tur slot=2
	# the target disconnects: TPG disabled, DREQ to the initiator
	cfs_write "$TPG/enable" 0 || fail tpg_disable "$ERR"
	expect_res target_dreq '^dreq slot=2' wait_dreq slot=2
	ibcm destroy slot=2
	nrel=$((nrel + 3))
	wait_released $nrel 30 && pass released_multi ||
		fail released_multi "$(count_since 'channel released') of $nrel released"
	# disabled TPG: INSUFFICIENT_RESOURCES (0x10001)
	expect_res rej_disabled '^rej slot=[0-9] .*srp_reason=0x1000[16]' login guid="$G"
	cfs_write "$TPG/enable" 1 || fail tpg_enable "$ERR"
fi

# --- rejects --------------------------------------------------------------
no_slots
expect_res rej_it_iu_len '^rej slot=[0-9] .*srp_reason=0x10002' \
	login guid="$G" it_iu_len=1048576
expect_res rej_it_iu_len_small '^rej slot=[0-9] .*srp_reason=0x10002' \
	login guid="$G" it_iu_len=32
expect_res rej_target_port_id '^rej slot=[0-9] .*srp_reason=0x10003' \
	login sid="$G" id_ext=0x1234 ioc_guid="$G"
# no listener for that service ID: the CM's own REJ (invalid service ID, 8)
expect_res rej_service_id '^rej slot=[0-9] cm_reason=8 ' login guid="$G" sid=0x1
# REQs that never reach the target (wrong MAC): retried, then a timeout
expect_res req_timeout '^timeout slot=[0-9]' login guid="$G" dmac=bad retries=1

# --- hostile REQs: each refused, none leaves anything behind --------------
no_slots
for p in short garbage badop; do
	expect_res "hostile_pdata_$p" '^rej slot=[0-9] ' login guid="$G" pdata=$p
done
# an MRA from the initiator before its RTU: logged, the login completes
if expect_res login_mra '^rep slot=0 ' login guid="$G" mra=1; then
	expect_res tur_after_mra '^rsp slot=0 .*status=0x00 ' tur slot=0
	expect_res logout_after_mra '^logout slot=0 drep' logout slot=0
	nrel=$((nrel + 1))
fi
no_slots
# no RTU: the target's REP times out (REP error) and it releases the channel
if expect_res login_no_rtu '^rep slot=0 ' login guid="$G" no_rtu=1; then
	nrel=$((nrel + 1))
	if wait_released $nrel 60; then
		pass no_rtu_released
	else
		fail no_rtu_released "$(count_since 'channel released') of $nrel released"
	fi
	ibcm destroy slot=0
fi
no_slots
# a REQ that reuses the QPN of a live connection: the CM rejects it as stale
# and disconnects the old connection, which the target then releases
if expect_res login_for_stale '^rep slot=0 ' login guid="$G"; then
	expect_res rej_stale_qpn '^rej slot=[1-9] ' login guid="$G" qpn_of=0
	nrel=$((nrel + 1))
	ibcm wait_dreq slot=0 timeout_ms=10000
	info "stale QPN: the old connection: $RES"
	ibcm destroy slot=0
	wait_released $nrel 60 && pass stale_qpn_released ||
		fail stale_qpn_released "$(count_since 'channel released') of $nrel released"
fi
no_slots
# REQ retries: the target's handler sleeps (debug hook SRPT_DBG_CM_REQ)
# past the initiator's REQ timeout. With retries left the initiator's CM
# resends the REQ (the target's CM drops the duplicates) and the REP still
# comes in time; with none it gives up, and the channel the target made
# for it must be released when its REP is refused or times out.
if have hooks; then
	dmesg_mark
	nrel=0
	debug_hook 1 3000
	if expect_res login_slow_target '^rep slot=0 ' login guid="$G" retries=6; then
		expect_res logout_slow_target '^logout slot=0 drep' logout slot=0
		nrel=$((nrel + 1))
	fi
	debug_hook 1 4000
	expect_res login_gave_up '^timeout slot=[0-9]' login guid="$G" retries=0
	nrel=$((nrel + 1))
	wait_for 10 hook_slept 1
	debug_hook 0 0
	if wait_released $nrel 60; then
		pass gave_up_released
	else
		fail gave_up_released "$(count_since 'channel released') of $nrel released"
	fi
	# a TPG disabled while the login sleeps: INSUFFICIENT_RESOURCES
	no_slots
	during_login tpg_disable_during_login 'srp_reason=0x10001' \
		'cfs_write "$TPG/enable" 0'
	cfs_write "$TPG/enable" 1 || fail tpg_enable "$ERR"
	# the device removed while the login sleeps: ib_srpt loaded again
	# after the initiator module, so that the RDMA core removes it first,
	# beside its sleeping handler (the initiator's login then waits for
	# the answer the target still sends on its way out)
	no_slots
	if srpt_reload srpt_ib_cm_roce=1 && setup_target --port guid; then
		during_login removal_during_login '^(rej|timeout) ' rxe_del
		rxe_add || fail rxe_add "$ERR"
		teardown_target || fail teardown "could not remove the configuration"
		setup_target --port guid || fail setup_after_removal "$ERR"
	else
		fail removal_during_login "reload: $ERR"
	fi
else
	skip req_retries "$WHY"
fi
dmesg_mark
nrel=0

no_slots
# after all that, a normal login still works
expect_res login_after_hostile '^rep slot=0 ' login guid="$G" &&
	expect_res logout_after_hostile '^logout slot=0 drep' logout slot=0
nrel=$((nrel + 1))
wait_released $nrel 30 || fail released_all "$(count_since 'channel released') of $nrel released"
n=$(count_since 'unexpected CM event')
[ "$n" = 0 ] && pass no_unexpected_event || fail no_unexpected_event "$n"

# --- a login storm: 8 channels at a time, many times -----------------------
no_slots
dmesg_mark
storm_ok=0 storm_bad=""
for _ in $(seq "$(reps 6 3)"); do
	for i in 0 1 2 3 4 5 6 7; do
		if ibcm login guid="$G" multi=1; then
			case $RES in "rep slot=$i "*) storm_ok=$((storm_ok + 1)) ;;
			*) storm_bad="$storm_bad|$RES" ;; esac
		else
			storm_bad="$storm_bad|$RES"
		fi
	done
	ibcm tur slot=7
	case $RES in "rsp slot=7 "*"status=0x00 "*) ;; *) storm_bad="$storm_bad|$RES" ;; esac
	for i in 0 1 2 3 4 5 6 7; do ibcm destroy slot=$i; done
done
if [ -z "$storm_bad" ]; then
	pass login_storm "$storm_ok logins"
else
	fail login_storm "$storm_ok logins; unexpected: $(echo "$storm_bad" | cut -c1-300)"
fi
if wait_released "$storm_ok" 60; then
	pass login_storm_released "$storm_ok"
else
	fail login_storm_released "$(count_since 'channel released') of $storm_ok released"
fi

# --- device removal with an IB CM channel open -----------------------------
no_slots
if expect_res login_before_removal '^rep slot=0 ' login guid="$G"; then
	if rxe_del; then
		pass rxe_del_with_channel
	else
		fail rxe_del_with_channel "rdma link delete: status $?"
	fi
	ibcm status
	info "after the removal: $RES"
	rxe_add || fail rxe_add "$ERR"
fi

# --- the initiator's ACL removed with an IB CM channel open ----------------
# (on a new configuration: the old one went with the device)
no_slots
teardown_target || fail teardown "could not remove the configuration"
setup_target --port guid || fail setup_after_removal "$ERR"
if expect_res login_before_acl_rmdir '^rep slot=0 ' login guid="$G"; then
	a=$TPG/acls/0000:ffff:c000:0201
	_cfs_rm_links "$a"
	for l in "$a"/lun_*; do [ -d "$l" ] && rmdir "$l"; done
	if try rmdir "$a"; then
		pass acl_rmdir_with_channel
	else
		fail acl_rmdir_with_channel "$ERR"
	fi
	expect_res acl_rmdir_dreq '^dreq slot=0' wait_dreq slot=0
	ibcm destroy slot=0
fi

# --- no ACL for the initiator: CHANNEL_LIMIT_REACHED (0x10006) -------------
teardown_target || fail teardown "could not remove the configuration"
if setup_target --port guid --acl 1111:2222:3333:4444; then
	expect_res rej_no_acl '^rej slot=[0-9] .*srp_reason=0x10006' login guid="$G"
fi
no_slots
teardown_target || fail teardown "could not remove the configuration"

# --- module unload with an IB CM session ----------------------------------
if srpt_reload srpt_ib_cm_roce=1 && setup_target --port guid; then
	if expect_res login_before_unload '^rep slot=0 ' login guid="$G"; then
		teardown_target || fail teardown_with_session "configuration left"
		expect_res unload_dreq '^dreq slot=0' wait_dreq slot=0 timeout_ms=20000
		ibcm destroy slot=0
		if try rmmod ib_srpt; then
			pass unload_after_ib_cm_session
		else
			fail unload_after_ib_cm_session "rmmod ib_srpt: $ERR"
		fi
		try modprobe ib_srpt srpt_ib_cm_roce=1 || fail reload "$ERR"
	fi
else
	fail reload_setup "$ERR"
fi
ibcm_unload
teardown_target || fail teardown "could not remove the configuration"
expect_refcnt_zero
