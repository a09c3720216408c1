# SPDX-License-Identifier: GPL-2.0
# 200-login-basic: ib_srp logs in over RDMA CM (Soft-RoCE), a SCSI disk
# appears and reads work, the login is logged with the negotiated
# parameters, and a logout releases every channel (docs/design.md, "Login"
# and "Channel release").
# vmtest-timeout: 180

dmesg_mark
case_begin --target
if login; then
	pass login "$DISK"
	check read_disk dd if="$DISK" of=/dev/null bs=4k count=256
	n=$(count_since 'Accepted login of')
	ours accepted_logged && { [ "$n" -ge 1 ] && pass accepted_logged "$n channel(s)" ||
		fail accepted_logged "no 'Accepted login' message"; }
	# ib_srp requests immediate data (offset 68 on these kernels).
	if ! ours immediate_data; then
		:
	elif dmesg_since | grep 'Accepted login of' | grep -q 'imm_data_offset [1-9].*flags 0x8'; then
		pass immediate_data
	else
		fail immediate_data "$(dmesg_since | grep 'Accepted login of' | head -n 1)"
	fi
	nch=$n
	if logout_all; then
		pass logout
	else
		fail logout "remote ports still present"
	fi
	if ! ours channels_released; then
		:
	elif wait_released "$nch" 30; then
		pass channels_released "$nch"
	else
		fail channels_released "$(count_since 'channel released') of $nch released"
	fi
else
	fail login "$ERR"
	dmesg_since | tail -n 20 | while read -r l; do info "$l"; done
fi
teardown_target || fail teardown "could not remove the configuration"
expect_refcnt_zero
