# SPDX-License-Identifier: GPL-2.0
# 314-deferred-rsp-wakeup: a response deferred because the send queue was
# full must be posted when the send queue empties, even if the last send
# completions run while the deferring context is still looking at the list
# (issue 10: deferred-response lost wakeup, and through it the release work
# waiting forever for the stuck TMF; debug build only, see src/debug.c).
#
# /tools/srp_xfer logs in, sets a short RNR timer on its QP (-R 14), sends
# N TEST UNIT READYs and posts no receive buffer: N is the number of send
# WRs the channel has for responses, so their N responses fill the send
# queue and wait in RNR retries. With srp_sq_size=16 the driver asks for 8
# + 2 spare WRs, but the provider may give more (Soft-RoCE rounds the queue
# up to a power of two minus one: 15, so N = 13), so a first login reads
# max_send_wr from the driver's pr_debug line (dynamic debug). One command
# more would be given back to LIO (-EAGAIN) and retried in a loop, one
# less would leave room for the TMF response. 500 ms later it sends an SRP_TSK_MGMT
# ABORT TASK for a tag that does not exist; LIO answers it from its TMR work
# (not from a completion), the response finds the send queue full and is
# deferred. The hook SRPT_DBG_DEFER_REQUEUE makes srpt_rsp_defer()'s look
# at the list busy-wait SPIN_MS with the response's rsp_lock held, right
# after the head of the list did not fit, and logs the send queue room
# before and after. The tool posts its receive buffers as soon as the
# hook's first log line ("spinning") appears in /dev/kmsg (srp_xfer -K,
# busy-polling, so that a CPU spinning with interrupts off cannot delay
# it; at the latest after -W), so the N responses can complete and give
# their room back inside the wait, however late the hook is reached.
#  - Unfixed (b6fea52 = 43a7d3f + the hook): the deferred response is off the list
#    inside the wait (list_del() before the room check), every completion
#    finds the list empty and returns, then the response is put back with
#    nobody left to post it: the TMF response never arrives, and after the
#    disconnect the release work waits forever for the TMF LIO still counts
#    (target_wait_for_sess_cmds() before srpt_rsp_list_close()); ib_srpt
#    cannot be unloaded.
#  - Fixed: the response stays on the list until its room is reserved, so
#    the first completion of the wait sees it and posts it once the lock is
#    free.
# Whether the race happened is read from the hook's second log line (room
# grew inside the wait): the completions need the target's RNR retry timer,
# and when that timer happens to be queued on the spinning CPU they come
# after the wait (room 0 -> 0). Such a round proves nothing, so one login
# repeats the commands and the TMF up to ROUNDS times (srp_xfer -r, -E: it
# stops at the first round that raced), and up to TRIES logins are made.
# How often a round races depends on the load of the host: about every
# second on an idle machine; 3 in 11 with three busy loops beside the
# guest (2026-12-04, 2 cores, one round per login); CI's run of 563e539
# saw none in 5 (then one round per login, 5 logins, and the receive
# buffers were posted a fixed 700 ms after the TMF, not when the hook
# started).
# Checks: TMF responses (every round), channel released after the
# disconnect (every try), the race happened at least once, the module unloads.
# Seen on the sanitizer kernel (2026-12-02, quick runs, 29 WRs): unfixed
# module built from b6fea52: tries 1 and 2 did not race (room 0 -> 0), try
# 3 did (0 -> 29), its TMF response never came, "channel not released 40 s
# after the disconnect", "INFO: task kworker/u8:2:16 blocked for more than
# 61 seconds" (the release work) and "task rmdir ... blocked", unload FAIL.
# Fixed (9bdaf92): the race happened at try 2 (0 -> 1: with the response
# on the list the first completion waits for rsp_lock), TMF answered,
# channel released, unload PASS.
# vmtest-timeout: 600

SPARE=2			# SRPT_SQ_SPARE_WRS
SPIN_MS=3000		# SRPT_DEBUG_SPIN_MAX_MS
TRIES=3			# logins
ROUNDS=8		# TMFs per login
HOOK_LINE='debug hook 4: spinning'
END_LINE='debug hook 4: spun'

requires hooks
requires ours
requires tool srp_xfer
case_begin --attr use_srq=0 --attr srp_sq_size=16
on_exit debug_hook 0 0

dyndbg srpt_ch_try_create_qp on || { skip all "no dynamic debug: $ERR"; exit 0; }
dmesg_mark
run_bounded 60 srp_tool srp_xfer -i "$IPID" -c 00 -d 0 -n 1
mw=$(dmesg_since | sed -n 's/.*max_send_wr \([0-9]*\), rq_size.*/\1/p' | head -n 1)
dyndbg srpt_ch_try_create_qp off
if [ -z "$mw" ] || [ "$mw" -le $SPARE ]; then
	fail setup "no max_send_wr in the log of a login: $ERR"
	exit 0
fi
N=$((mw - SPARE))
info "max_send_wr $mw: $N send WRs for responses"
wait_released 1 40

raced=0
bad=0
i=1
while [ $i -le $TRIES ] && [ $raced = 0 ] && [ $bad = 0 ]; do
	dmesg_mark
	debug_hook 4 $SPIN_MS
	_t0=$(date +%s)
	run_bounded 300 srp_tool srp_xfer -i "$IPID" -c 00 -d 0 -n $N \
		-A 500 -W 20000 -K "$HOOK_LINE" -E "$END_LINE" -r $ROUNDS \
		-R 14 -T 30000
	OUT=$ERR
	debug_hook 0 0
	info "try $i: $(echo "$OUT" | grep -e '^round=' -e '^kmsg_' -e '^tmf_rsp' -e '^raced' -e '^result' | tr '\n' ' ')"
	nr=$(echo "$OUT" | grep -c '^round=')
	nt=$(echo "$OUT" | grep -c '^tmf_sent=1$')
	nrsp=$(echo "$OUT" | grep -c '^tmf_rsp=[0-9]')
	if [ "$nt" = 0 ] || [ "$nt" != "$nr" ]; then
		fail "try$i-tmf" "$nt TMFs sent in $nr rounds: $(echo "$OUT" | grep -v '^rsp_' | tr '\n' ' ')"
		bad=1
	elif [ "$nrsp" != "$nt" ]; then
		fail "try$i-tmf" "a deferred TMF response never arrived ($nrsp of $nt); $(echo "$OUT" | grep -v '^rsp_' | tr '\n' ' ')"
		bad=1
	else
		pass "try$i-tmf" "$nrsp TMF responses in $nr rounds"
	fi
	if wait_released 1 40; then
		pass "try$i-released" "after $(( $(date +%s) - _t0 )) s"
	else
		fail "try$i-released" "channel not released 40 s after the disconnect: $(dmesg_since | tail -n 5 | tr '\n' ' ')"
		bad=1
	fi
	# the tool stops at the first round whose wait saw the room grow
	rr=$(echo "$OUT" | sed -n 's/^raced_round=//p' | head -n 1)
	if [ -n "$rr" ]; then
		raced=1
		info "try $i: completions gave room back inside the wait (round $rr)"
	fi
	i=$((i + 1))
done
if [ $raced = 1 ]; then
	pass race "completions ran inside the wait at try $((i - 1)), round $rr"
elif [ $bad = 0 ]; then
	fail race "in $TRIES tries of $ROUNDS rounds no completion ran inside the wait"
fi

if run_bounded 120 srpt_reload; then
	pass unload "ib_srpt unloaded and reloaded"
else
	fail unload "teardown/unload did not finish: $ERR"
fi
