# SPDX-License-Identifier: GPL-2.0
# 325-late-srq-flush: a flush completion of an SRQ receive that arrives
# after its channel and QP were freed (debug build only, see src/debug.c).
# A QP takes an SRQ buffer with the first packet of a message and, moved to
# the error state, completes it with a flush; the release work knows that
# flush has come only from the Last WQE Reached event, which some HCAs
# (Debian 6.1's rxe) never raise: after a timeout it drains the send side
# and frees the QP and the channel, and the flush may still come. Before
# the fix its handler looked up the channel through wc->qp (freed memory).
# The hook debug_hold_recv holds the first IU of a login on the SRQ back
# and delivers it as a flush 30 s later (the longest hold), long after
# the initiator (srp_xfer, whose command never gets an answer) has gone and
# the channel was released.
# Checks: the channel is released before the flush comes; the flush is
# handled (the buffer goes back to the SRQ) with no kernel report; a new
# login on the SRQ runs commands; the SRQ can then be destroyed (use_srq
# 1 -> 0: every buffer is back, none is used).
# vmtest-timeout: 300

requires hooks
requires ours
requires tool srp_xfer
case_begin --target --attr use_srq=1
HOLD=/sys/module/ib_srpt/parameters/debug_hold_recv
on_exit 'echo 0 > $HOLD'
on_exit 'cfs_write "$TPG/attrib/use_srq" 0'

dmesg_mark
cfs_write $HOLD 30000 || fail arm "$ERR"
OUT=$(srp_tool srp_xfer -i "$IPID" -c 28000000000000000100 -d 4096 -n 1 \
	-T 3000 2>&1)
info "initiator: $(echo "$OUT" | tr '\n' ' ')"
if dmesg_since | grep -q 'debug hold recv: holding back'; then
	pass held "$(dmesg_since | grep -m1 'debug hold recv: holding back' | sed 's/^\[[^]]*\] //')"
else
	fail held "no receive was held back"
fi
released() { dmesg_since | grep -q 'channel released'; }
if wait_for 60 released; then
	pass released "the channel was released"
else
	fail released "no 'channel released' within 60 s"
fi
if dmesg_since | grep -q 'debug hold recv: delivering'; then
	fail late "the flush came before the channel was released: nothing tested"
else
	pass late "the flush is still to come"
fi
delivered() { dmesg_since | grep -q 'debug hold recv: delivered'; }
if wait_for 60 delivered; then
	pass flush-handled "the late flush was handled"
else
	fail flush-handled "no 'delivered' within 60 s"
fi

OUT=$(srp_tool srp_xfer -i "$IPID" -c 28000000000000000100 -d 4096 -n 4 \
	-T 30000 2>&1)
[ "$(echo "$OUT" | sed -n 's/^good=//p')" = 4 ] &&
	pass relogin-io "4 of 4 commands GOOD" ||
	fail relogin-io "$(echo "$OUT" | grep -v '^rsp_' | tr '\n' ' ')"
if cfs_write "$TPG/attrib/use_srq" 0; then
	pass srq-destroy "use_srq 1 -> 0"
else
	fail srq-destroy "$ERR"
fi
