# SPDX-License-Identifier: GPL-2.0
# 202-login-reject: every SRP_LOGIN_REJ reason (docs/design.md, "Login
# stages") that can
# be provoked over RDMA CM, checked in the reject that reaches the initiator
# (/tools/srp_login, 56-byte RDMA CM private data) and in dmesg, plus the
# kernel initiator being refused: no ACL -> CHANNEL_LIMIT_REACHED, TPG
# disabled -> INSUFFICIENT_RESOURCES, wrong target port ID ->
# UNABLE_ASSOCIATE_CHANNEL, IU length above srp_max_req_size or below 64 ->
# REQ_IT_IU_LENGTH_TOO_LARGE. Nothing may stay behind.
# vmtest-timeout: 300

MAXREQ=$(cat /sys/module/ib_srpt/parameters/srp_max_req_size)

# expect_rej NAME REASON ARGS...: the tool's login must be rejected with REASON
expect_rej() {
	rj_name=$1 rj_reason=$2
	shift 2
	dmesg_mark
	srp_login "$@"
	# shellcheck disable=SC2154 # result, reason: eval in srp_login()
	if [ "$result" = rejected ] && [ "$reason" = "$rj_reason" ]; then
		pass "$rj_name" "reason $reason"
	else
		fail "$rj_name" "result=$result reason=$reason (expected rejected $rj_reason) $(cat /tmp/srp_login.err)"
	fi
	if ! ours "${rj_name}_dmesg"; then
		:
	elif dmesg_since | grep -q "Rejecting login.*reason $(printf '%#x' "$rj_reason")"; then
		pass "${rj_name}_dmesg"
	else
		fail "${rj_name}_dmesg" "no 'Rejecting login ... reason $rj_reason' in dmesg"
	fi
}

# kernel initiator must fail to log in, and ib_srp must report REASON
# (ib_srp words the IU length reason differently from the others)
expect_srp_rej() {
	sr_name=$1 sr_reason=$2
	shift 2
	dmesg_mark
	if login "$@"; then
		fail "$sr_name" "ib_srp login succeeded"
		logout_all
		return
	fi
	sr_msg="REJECTED, reason $sr_reason"
	[ "$sr_reason" = 0x00010002 ] && sr_msg="requested max_it_iu_len too large"
	if dmesg_since | grep -q "$sr_msg"; then
		pass "$sr_name" "ib_srp: $sr_msg"
	else
		fail "$sr_name" "ib_srp login failed without '$sr_msg': $ERR"
	fi
	logout_all
}

requires tool srp_login
case_begin

# 1. No matching ACL (only an unrelated initiator is allowed).
if setup_target --acl 0x00000000000000000000000000000abc; then
	expect_rej no_acl 0x00010006 -i "$IPID"
	expect_srp_rej no_acl_ib_srp 0x00010006
fi
teardown_target || fail teardown_1 "configuration left behind"

# 2. Disabled TPG.
if setup_target --no-enable; then
	expect_rej tpg_disabled 0x00010001 -i "$IPID"
	expect_srp_rej tpg_disabled_ib_srp 0x00010001
	# Enabled -> accepted; disabled again -> rejected again.
	echo 1 > "$TPG/enable"
	srp_login -i "$IPID"
	[ "$result" = accepted ] && pass enabled_accepts || fail enabled_accepts "result=$result reason=$reason"
	echo 0 > "$TPG/enable"
	expect_rej tpg_disabled_again 0x00010001 -i "$IPID"
	echo 1 > "$TPG/enable"
fi

# 3. Target port ID not matching srpt_service_guid (either half).
if [ -n "$TPG" ]; then
	expect_rej wrong_tport_id_ext 0x00010003 -i "$IPID" -t "0000000000000099$SG"
	expect_rej wrong_tport_ioc_guid 0x00010003 -i "$IPID" -t "${SG}0000000000000099"
	expect_srp_rej wrong_tport_ib_srp 0x00010003 id_ext=0000000000000099

	# 4. IU length: above srp_max_req_size, below 64, the limits themselves.
	expect_rej iu_len_above_max 0x00010002 -i "$IPID" -l $((MAXREQ + 1))
	expect_rej iu_len_huge 0x00010002 -i "$IPID" -l 0xffffffff
	expect_rej iu_len_below_64 0x00010002 -i "$IPID" -l 63
	expect_rej iu_len_zero 0x00010002 -i "$IPID" -l 0
	srp_login -i "$IPID" -l "$MAXREQ"
	[ "$result" = accepted ] && pass iu_len_max_ok || fail iu_len_max_ok "result=$result reason=$reason"
	srp_login -i "$IPID" -l 64 -f 0x80 -o 80
	# shellcheck disable=SC2154 # max_ti_iu_len, rsp_flags: eval in srp_login()
	[ "$result" = accepted ] && [ "$max_ti_iu_len" = 64 ] && [ $((rsp_flags & 0x80)) -eq $((0x80)) ] &&
		pass iu_len_64_ok "max_ti_iu_len=$max_ti_iu_len rsp_flags=$rsp_flags" ||
		fail iu_len_64_ok "result=$result max_ti_iu_len=$max_ti_iu_len rsp_flags=$rsp_flags"
	# ib_srp asking for a tiny IU (its max_it_iu_size caps its request)
	expect_srp_rej iu_len_below_64_ib_srp 0x00010002 max_it_iu_size=32
	# The good login still works after all of this.
	if login; then pass login_after_rejects; logout_all; else fail login_after_rejects "$ERR"; fi
fi
teardown_target || fail teardown_2 "configuration left behind"
expect_refcnt_zero

# 5. ib_srp's default request (about 8 KiB) above a small srp_max_req_size.
if srpt_reload srp_max_req_size=996; then
	if setup_target; then
		expect_srp_rej iu_len_above_max_ib_srp 0x00010002
	fi
	teardown_target
else
	fail reload_996 "$ERR"
fi
srpt_reload || fail reload_default "$ERR"
