# SPDX-License-Identifier: GPL-2.0
# 206-tool-iu: /tools/srp_login logs in over RDMA CM and exchanges an IU
# (SRP_CMD TEST UNIT READY -> SRP_RSP with the tag echoed), then logs out;
# the channel is released. Exercises a login by a non-kernel initiator with
# immediate data requested and the multichannel MULTI action.
# vmtest-timeout: 120

Z4=00000000
TUR=02${Z4}000000 # opcode, sol_not, reserved, buf_fmt, desc counts
TUR=${TUR}0102030405060708${Z4}${Z4}${Z4}${Z4}${Z4}${Z4}${Z4}${Z4}

requires tool srp_login
case_begin --target
dmesg_mark
out=$(srp_tool srp_login -i "$IPID" -f 0x81 -o 80 -s "$TUR" 2>&1)
info "$(echo "$out" | tr '\n' ' ')"
echo "$out" | grep -q '^result=accepted' && pass login || fail login "$out"
echo "$out" | grep -q '^rsp_flags=0x82' && pass rsp_flags_multi_imm ||
	fail rsp_flags_multi_imm "$(echo "$out" | grep rsp_flags)"
echo "$out" | grep -q '^sent=48' && pass sent || fail sent "$(echo "$out" | grep sent)"
if echo "$out" | grep -q '^reply_opcode=0xc1'; then
	pass srp_rsp
	echo "$out" | grep -q '^reply=c1.\{14\}0102030405060708' && pass tag_echoed ||
		fail tag_echoed "$(echo "$out" | grep '^reply=')"
else
	fail srp_rsp "$(echo "$out" | grep reply)"
fi
if ! ours released; then
	:
elif wait_released 1 20; then
	pass released
else
	fail released "channel not released after the tool disconnected"
fi
teardown_target || fail teardown "configuration left behind"
