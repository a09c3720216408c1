# SPDX-License-Identifier: GPL-2.0
# 200-login-basic: ib_srp logs in over RDMA CM (Soft-RoCE), a SCSI disk
# appears and reads work, the login is logged with the negotiated
# parameters, and a logout releases every channel (docs/design.md, "Login"
# and "Channel release").
# vmtest-timeout: 180

dmesg_mark
if ! setup_target; then
	teardown_target
	exit 0
fi
if login; then
	pass login "$DISK"
	check read_disk dd if="$DISK" of=/dev/null bs=4k count=256
	n=$(dmesg_since | grep -c 'Accepted login of')
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
	elif wait_for 30 sh -c "[ \$(dmesg | sed -n '/VMTEST-MARK $CASE $_MARK\$/,\$p' | grep -c 'channel released') -ge $nch ]"; then
		pass channels_released "$nch"
	else
		fail channels_released "$(dmesg_since | grep -c 'channel released') of $nch released"
	fi
else
	fail login "$ERR"
	dmesg_since | tail -n 20 | while read -r l; do info "$l"; done
fi
teardown_target || fail teardown "could not remove the configuration"
[ "$(module_refcnt)" = 0 ] && pass refcnt_zero || fail refcnt_zero "refcnt $(module_refcnt)"
