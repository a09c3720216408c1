# SPDX-License-Identifier: GPL-2.0
# 201-multichannel: ib_srp logins with ch_count=1, 2 and 4 create that many
# channels of one I_T nexus (SRP_MULTICHAN_SINGLE for the first, MULTI for
# the others); a new login with the single-channel action terminates the
# earlier channels of the same nexus and says so in rsp_flags
# (docs/design.md, "Login stages", step 5), checked with /tools/srp_login.
# vmtest-timeout: 240

case_begin --target

for n in 1 2 4; do
	dmesg_mark
	if login "ch_count=$n"; then
		got=$(count_since 'Accepted login of')
		if ! ours "ch_count_$n"; then
			:
		elif [ "$got" -eq "$n" ]; then
			pass "ch_count_$n" "$got channels"
		else
			fail "ch_count_$n" "$got channels accepted, expected $n"
		fi
		check "io_ch_count_$n" dd if="$DISK" of=/dev/null bs=64k count=64
		logout_all || fail "logout_$n" "remote port still present"
		if ! ours "released_$n"; then
			:
		elif wait_released "$n" 30; then
			pass "released_$n"
		else
			fail "released_$n" "$(count_since 'channel released') of $n released"
		fi
	else
		fail "ch_count_$n" "$ERR"
	fi
done

if have tool srp_login; then
	dmesg_mark
	# First channel of a nexus, held open; then a MULTI login keeps it,
	# then a SINGLE login of the same nexus terminates both.
	srp_tool srp_login -i "$IPID" -H 15000 > /tmp/first.out 2>&1 &
	FIRST=$!
	wait_for 30 grep -q '^result=' /tmp/first.out
	grep -q '^result=accepted' /tmp/first.out && pass first_login ||
		fail first_login "$(cat /tmp/first.out)"
	srp_login -i "$IPID" -f 1 -H 300
	# shellcheck disable=SC2154 # result, rsp_flags, reason: eval in srp_login()
	[ "$result" = accepted ] && [ $((rsp_flags & 3)) -eq 2 ] &&
		pass multi_maintained "rsp_flags=$rsp_flags" ||
		fail multi_maintained "result=$result rsp_flags=$rsp_flags"
	srp_login -i "$IPID" -f 0 -H 300
	[ "$result" = accepted ] && [ $((rsp_flags & 3)) -eq 1 ] &&
		pass single_terminated "rsp_flags=$rsp_flags" ||
		fail single_terminated "result=$result rsp_flags=$rsp_flags"
	wait $FIRST
	grep -q '^disconnected=1' /tmp/first.out && pass first_disconnected ||
		fail first_disconnected "$(tr '\n' ' ' < /tmp/first.out)"
	if ! ours relogin_logged; then
		:
	elif count_since 'relogin - closed existing channel' | grep -q '^[1-9]'; then
		pass relogin_logged
	else
		fail relogin_logged "no relogin message"
	fi
	# A different nexus (other initiator port ID) is not affected.
	srp_login -i "0x00000000000000010000000000000002" -f 0
	# shellcheck disable=SC2154 # reason: eval in srp_login()
	info "other nexus login: result=$result reason=$reason"
else
	skip single_terminated "$WHY"
fi

teardown_target || fail teardown "could not remove the configuration"
expect_refcnt_zero
