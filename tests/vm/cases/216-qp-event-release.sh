# SPDX-License-Identifier: GPL-2.0
# 216-qp-event-release: a QP event that uses the cm_id (IB_EVENT_COMM_EST)
# against the release work of the same channel (debug build only, see
# src/debug.c).
#
# An HCA raises COMM_EST when the first packet arrives on a QP whose
# connection the CM has not seen established yet; srpt_qp_event() then
# tells the CM (rdma_notify() or ib_cm_notify() on the channel's cm_id).
# The handler runs asynchronously to the CM: if the channel is closed and
# its release work destroys the cm_id between the handler's look at the
# channel state and its use of the cm_id, the handler uses a freed (or
# cleared) cm_id (found by a review, session 20's "Noticed" list).
#
# Soft-RoCE never raises COMM_EST, so the debug build delivers it itself:
# debug_qp_event=4 makes the next send completion have a work item call
# the QP's event handler with IB_EVENT_COMM_EST (not the CQ work itself: a
# channel's close waits for its CQ work, an HCA's event does not; the QP's
# destruction waits for the work, as an HCA's waits for its event
# handlers) and calls the handler with preemption and interrupts off, as
# HCA drivers call it in atomic context;
# the hook SRPT_DBG_QP_EVENT delays the delivery in that work item (the
# handler itself must not sleep). The case logs in, arms both,
# reads one block (its response's send completion queues the event),
# waits until the delivery sleeps, logs ib_srp out, waits until the release
# work of the channel has started (dynamic debug "releasing channel"; it
# destroys the cm_id first) and a little longer, then disarms the hook, so
# that the handler runs on a channel whose cm_id is gone.
#  - unfixed: the handler looked at the state before the logout and then
#    calls rdma_notify() with the cm_id the release work destroyed and
#    cleared (an oops on any kernel);
#  - fixed: the handler looks at the state and uses the cm_id under the
#    channel's spinlock, under which every state change happens, so a
#    handler that finds the channel live notifies before it can close.
# Before that, the same event on a live channel without the hook: the
# handler returns and I/O goes on.
# Checks: the event was delivered and the handler slept, every channel is
# released, ib_srp logs in again and reads, no kernel warning (the
# runner's dmesg check), the module unloads.
# Seen (2026-12-06, quick runs): unfixed (9d69098 + the hook and the
# injection, tests/vm/before/qp-event-release-hook.patch), Debian 6.1:
# "BUG: kernel NULL pointer dereference, address: 00000000000002e8",
# RIP rdma_notify+0x5 [rdma_cm], then the case's unload hangs (the dead
# work item held its channel reference; with the QP destruction waiting
# for the work instead, since, the release work would wait for it) until
# the case timeout; fixed:
# PASS, no report.
# vmtest-timeout: 300

DELAY_MS=30000		# SRPT_DEBUG_SLEEP_MAX_MS; the case disarms it earlier
COMM_EST=4		# enum ib_event_type IB_EVENT_COMM_EST

event_done() { [ "$(count_since 'debug QP event: handler returned')" -gt 0 ]; }
# event_read NAME WAIT...: arm the COMM_EST delivery, read one block (check
# NAME; its send completion delivers the event), then wait_for 60 WAIT...
event_read() {
	_er=$1
	shift
	cfs_write /sys/module/ib_srpt/parameters/debug_qp_event $COMM_EST ||
		fail arm "debug_qp_event: $ERR"
	check "$_er" dd if="$DISK" of=/dev/null bs=4k count=1 iflag=direct
	wait_for 60 "$@"
}

requires hooks
requires ours
case_begin --login
on_exit debug_hook 0 0
on_exit cfs_write /sys/module/ib_srpt/parameters/debug_qp_event 0
on_exit dyndbg srpt_release_channel_work off

dyndbg srpt_release_channel_work on || { skip all "no dynamic debug: $ERR"; exit 0; }

# First on a live channel, without the hook: the handler notifies the CM
# under the channel's spinlock (lockdep sees that nesting on the sanitizer
# kernel), and I/O goes on.
dmesg_mark
if event_read live_read event_done; then
	pass live_event "COMM_EST handled on a live channel"
else
	fail live_event "the COMM_EST handler did not return: $(dmesg_since | tail -n 3 | tr '\n' ' ')"
fi
check live_reread dd if="$DISK" of=/dev/null bs=4k count=16 iflag=direct

# Then against the release work.
dmesg_mark
debug_hook 7 $DELAY_MS
if event_read read hook_slept 7; then
	pass hook "the COMM_EST delivery waits"
else
	fail hook "no QP event delivery reached the hook: $(dmesg_since | tail -n 3 | tr '\n' ' ')"
fi
logout_all || fail logout "ib_srp did not log out: $ERR"
if wait_for 60 release_started; then
	pass release "the release work started before the event"
else
	fail release "no release work started"
fi
# the unfixed release work destroys the cm_id right after its first line
nap 2
debug_hook 0 0
n=$(count_since 'releasing channel')
expect_released "$n"
dyndbg srpt_release_channel_work off

if ! login; then
	fail relogin "$ERR"
else
	check reread dd if="$DISK" of=/dev/null bs=4k count=16 iflag=direct
fi
expect_unload
