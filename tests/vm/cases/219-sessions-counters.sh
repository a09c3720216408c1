# SPDX-License-Identifier: GPL-2.0
# 219-sessions-counters: the ACL "info" attribute and the port counters
# (docs/design.md, "Counters and sessions"; issue 11). With two channels
# (ch_count=2) the info of the ACL that matched shows one session with two
# LOGGED_IN connections at the initiator's address over RoCE, and the other
# ACLs show no session. Known I/O (100 direct 4 KiB reads, 50 direct 8 KiB
# writes) moves the port's command counters by exactly that and its byte
# counters by that within one block, and the per-channel counters of the
# info text add up to the same. A LUN RESET (sg_reset -d) counts once in
# task_mgmt. Each reject reason that can be provoked (as in 202) counts
# once in login_reject_reasons and appears in login_reject_history.
# channels_open is 2 while logged in and 0 after the logout.
# vmtest-timeout: 180

requires ours "counters of srpt-dkms"
requires tool srp_login
case_begin --login-opts "ch_count=2"

PD=${PORTDIRS# }
PD=${PD%% *}
ST=$PD/fabric_statistics/srpt_port
st() { cat "$ST/$1"; }
# reason_count NAME: the count of reject reason NAME
reason_count() { awk -v n="$1" '$1 == n { print $2 }' "$ST/login_reject_reasons"; }
tmf_count() { awk -v n="$1" '$1 == n { print $2 }' "$ST/task_mgmt"; }

[ -d "$ST" ] && pass stats_dir || fail stats_dir "no $ST"

# 1. info: the ACL that matched has the session, the others none
ACL="" others=0 nosess=0
for a in "$TPG"/acls/*; do
	if head -n 1 "$a/info" | grep -q '^No active SRP session for Initiator Endpoint: '; then
		nosess=$((nosess + 1))
	else
		ACL=$a
	fi
	others=$((others + 1))
done
if [ -z "$ACL" ]; then
	fail info_session "no ACL shows a session"
else
	INFO=$(cat "$ACL/info")
	info "info of $(basename "$ACL"):"
	echo "$INFO" | sed 's/^/VMTEST INFO 219-sessions-counters |/'
	[ $nosess -eq $((others - 1)) ] && pass info_others_none ||
		fail info_others_none "$nosess of $((others - 1)) other ACLs without session"
	echo "$INFO" | grep -qx "InitiatorName: $(basename "$ACL")" &&
		echo "$INFO" | grep -q '^LIO Session ID: [0-9]*   SessionType: Normal$' &&
		echo "$INFO" | grep -qx 'Session State: TARG_SESS_STATE_LOGGED_IN' &&
		pass info_session || fail info_session "$INFO"
	n=$(echo "$INFO" | grep -c '^CID: [0-9]*  Connection State: TARG_CONN_STATE_LOGGED_IN$')
	a=$(echo "$INFO" | grep -c "^   Address $IP RoCE  I_T 0x")
	[ "$n" = 2 ] && [ "$a" = 2 ] && pass info_connections "2 channels at $IP" ||
		fail info_connections "$n connections, $a address lines"
fi
[ "$(st channels_open)" = 2 ] && pass channels_open_2 ||
	fail channels_open_2 "channels_open $(st channels_open)"
[ "$(cat "$ACL/auth/authenticate_target")" = 0 ] && pass authenticate_target ||
	fail authenticate_target "$(cat "$ACL/auth/authenticate_target")"

# 2. known I/O against the counters (the disk is idle once the partition
# scan is over: wait until no request is in flight)
wait_for 10 sh -c "grep -q '^ *0 *0$' /sys/block/${DISK#/dev/}/inflight"
sleep 1
r0=$(st commands_read) w0=$(st commands_write)
br0=$(st bytes_read) bw0=$(st bytes_write)
dd if="$DISK" of=/dev/null bs=4k count=100 iflag=direct 2>/dev/null
dd if=/dev/zero of="$DISK" bs=8k count=50 oflag=direct 2>/dev/null
dr=$(($(st commands_read) - r0)) dw=$(($(st commands_write) - w0))
dbr=$(($(st bytes_read) - br0)) dbw=$(($(st bytes_write) - bw0))
[ $dr = 100 ] && [ $dw = 50 ] && pass command_counters "read $dr write $dw" ||
	fail command_counters "read $dr write $dw, expected 100 and 50"
[ $dbr -ge 409600 ] && [ $dbr -le $((409600 + 4096)) ] &&
	[ $dbw -ge 409600 ] && [ $dbw -le $((409600 + 4096)) ] &&
	pass byte_counters "read $dbr write $dbw" ||
	fail byte_counters "read $dbr write $dbw, expected 409600 each"
# the channels' own counters add up to the port's
if [ -n "$ACL" ]; then
	sum=$(awk '/^CID [0-9]* commands:/ { r += $5; w += $7 } END { print r + 0, w + 0 }' "$ACL/info")
	[ "$sum" = "$(st commands_read) $(st commands_write)" ] &&
		pass channel_counters_sum "$sum" ||
		fail channel_counters_sum "channels $sum, port $(st commands_read) $(st commands_write)"
fi
[ "$(st credits_granted)" -gt 0 ] && pass credits_granted "$(st credits_granted)" ||
	fail credits_granted "$(st credits_granted)"

# 3. a LUN RESET
t0=$(tmf_count lun_reset)
if out=$(sg_reset -d "$DISK" 2>&1); then
	[ $(($(tmf_count lun_reset) - t0)) = 1 ] && pass tmf_lun_reset ||
		fail tmf_lun_reset "lun_reset $t0 -> $(tmf_count lun_reset)"
else
	skip tmf_lun_reset "sg_reset -d: $out"
fi

# 4. logout: no channel open, the ACL without session
logout_all || fail logout "remote port still present"
wait_for 30 sh -c "[ \"\$(cat $ST/channels_open)\" = 0 ]" &&
	pass channels_open_0 || fail channels_open_0 "channels_open $(st channels_open)"
[ -z "$ACL" ] || head -n 1 "$ACL/info" | grep -q '^No active SRP session' &&
	pass info_after_logout || fail info_after_logout "$(cat "$ACL/info")"
[ "$(st logins_accepted)" -ge 2 ] && pass logins_accepted "$(st logins_accepted)" ||
	fail logins_accepted "$(st logins_accepted)"

# 5. each reject reason that can be provoked, once (after the logout:
# disabling the TPG would close the channels)
rej() { # rej NAME REASON-CODE srp_login-args...
	_n=$1 _code=$2
	shift 2
	_c0=$(reason_count "$_n")
	srp_login "$@"
	# shellcheck disable=SC2154 # result, reason: eval in srp_login()
	if [ "$result" = rejected ] && [ "$reason" = "$_code" ] &&
	   [ $(($(reason_count "$_n") - _c0)) = 1 ] &&
	   tail -n 1 "$ST/login_reject_history" | grep -q "^[0-9-]*T[0-9:]*Z $_code $_n 0x[0-9a-f]\{32\} "; then
		pass "reject_$_n" "$(tail -n 1 "$ST/login_reject_history")"
	else
		fail "reject_$_n" "result=$result reason=$reason count $_c0 -> $(reason_count "$_n"); $(tail -n 1 "$ST/login_reject_history")"
	fi
}
total0=$(st logins_rejected)
rej channel_limit_reached 0x00010006 -i 00000000000000000000000000000abc
rej unable_associate_channel 0x00010003 -i "$IPID" -t "0000000000000099$SG"
rej it_iu_length_too_large 0x00010002 -i "$IPID" -l 63
echo 0 > "$TPG/enable"
rej insufficient_resources 0x00010001 -i "$IPID"
echo 1 > "$TPG/enable"
[ $(($(st logins_rejected) - total0)) = 4 ] && pass logins_rejected "+4" ||
	fail logins_rejected "$total0 -> $(st logins_rejected)"
info "login_reject_history:"
sed 's/^/VMTEST INFO 219-sessions-counters |/' "$ST/login_reject_history"
