# SPDX-License-Identifier: GPL-2.0
# 215-disconnect-release: a disconnect that does not run in a CM handler
# (here a TPG disable) against the release work of the same channel (debug
# build only, see src/debug.c).
#
# srpt_disconnect_ch() moves the channel to CH_DISCONNECTING and then sends
# the DREQ (IB CM) or calls rdma_disconnect() on the channel's cm_id. The
# callers outside a CM handler (TPG or port disable, relogin with
# SRP_MULTICHAN_SINGLE, LIO's close_session) hold srpt_port.mutex, but the
# unfixed release work destroyed the cm_id without looking at that mutex:
# if the initiator disconnects in between, its DREQ closes the channel
# (DISCONNECTING -> DRAINING), the release work runs and frees the cm_id,
# and the disable then uses the freed cm_id (found by a review after the
# use-after-free of 212-release-tpg-disable).
#
# The hook SRPT_DBG_DISCONNECT makes srpt_disconnect_ch() sleep between the
# state change and the use of the cm_id. The case logs in with ib_srp,
# writes enable=0 in the background with the hook armed, waits until the
# disable sleeps there, logs ib_srp out (its DREQ closes the channel),
# waits until the release work of the channel has started (dynamic debug
# "releasing channel") and a little longer, then disarms the hook.
#  - unfixed: the release work destroys the cm_id inside the sleep; the
#    disable's rdma_disconnect() then reads the freed rdma_cm_id (KASAN on
#    the sanitizer kernel);
#  - fixed: the release work waits for srpt_port.mutex (held by the
#    disable) before it destroys the cm_id.
# Checks: the disable returns, every channel is released, the TPG can be
# enabled again and ib_srp logs in and reads, no kernel warning (the
# runner's dmesg check), the module unloads.
# vmtest-timeout: 300

DELAY_MS=30000		# SRPT_DEBUG_SLEEP_MAX_MS; the case disarms it earlier

requires hooks
requires ours
case_begin --login
on_exit debug_hook 0 0
on_exit dyndbg srpt_release_channel_work off

dyndbg srpt_release_channel_work on || { skip all "no dynamic debug: $ERR"; exit 0; }
dmesg_mark
debug_hook 6 $DELAY_MS
(echo 0 > "$TPG/enable") 2>/tmp/enable.err &
dpid=$!
if wait_for 60 hook_slept 6; then
	pass hook "the TPG disable sleeps between the state change and the DREQ"
else
	fail hook "the TPG disable never reached the hook"
fi
logout_all || fail logout "ib_srp did not log out: $ERR"
if wait_for 60 release_started; then
	pass release "the release work started while the disable sleeps"
else
	fail release "no release work started"
fi
# the unfixed release work destroys the cm_id right after its first line
nap 2
debug_hook 0 0
if wait_for 60 sh -c "! kill -0 $dpid 2>/dev/null"; then
	wait $dpid
	rc=$?
	if [ $rc = 0 ]; then
		pass disable "enable=0 returned"
	else
		fail disable "enable=0: $(cat /tmp/enable.err)"
	fi
else
	fail disable "enable=0 still blocked 60 s after the hook was disarmed"
fi
n=$(count_since 'releasing channel')
expect_released "$n"
dyndbg srpt_release_channel_work off

expect_relogin
expect_unload
