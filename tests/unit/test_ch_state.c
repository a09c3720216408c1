// SPDX-License-Identifier: GPL-2.0
/*
 * test_ch_state.c - unit tests of src/ch_state.c: the channel state rules
 * and the CM event to channel action table (docs/design.md, "CM events"
 * and "Channel state machine"). The IB CM events also run end to end in
 * the VM case 221-ib-cm-login (srpt_ib_cm_roce=1 and the test initiator
 * tests/selftest/srpt_ibcm_init.c over Soft-RoCE); this covers every
 * event and state, including those no initiator can provoke at will.
 */
#include "srpt_ch_state.h"
#include "unit.h"

static void test_states(void)
{
	int a, b;
	int bad = 0;

	for (a = CH_CONNECTING; a <= CH_DISCONNECTED; a++) {
		for (b = CH_CONNECTING; b <= CH_DISCONNECTED; b++) {
			bool up = b > a;

			if (srpt_ch_state_may_advance(a, b) != up)
				bad++;
		}
	}
	CHECK_EQ(bad, 0);
	/* skipping states is allowed (reject: CONNECTING -> DRAINING) */
	CHECK(srpt_ch_state_may_advance(CH_CONNECTING, CH_DRAINING));
	CHECK(!srpt_ch_state_may_advance(CH_DRAINING, CH_LIVE));
	CHECK(!srpt_ch_state_may_advance(CH_LIVE, CH_LIVE));
	CHECK_STR_EQ(srpt_ch_state_name(CH_DRAINING), "draining");
	CHECK_STR_EQ(srpt_ch_state_name(CH_DISCONNECTED), "disconnected");
	CHECK_STR_EQ(srpt_ch_state_name(42), "???");
}

/* IB CM: REQ, RTU, DREQ, DREP, TimeWait, REJ and errors. */
static void test_cm_events(void)
{
	/* REQ always logs in, with or without a context */
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_REQ, false, 0),
		 SRPT_CM_ACT_LOGIN);
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_ESTABLISHED, true,
				      CH_CONNECTING), SRPT_CM_ACT_RTU);
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_DREQ, true, CH_LIVE),
		 SRPT_CM_ACT_DISCONNECT);
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_DREQ, true,
				      CH_CONNECTING),
		 SRPT_CM_ACT_DISCONNECT);
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_DREP, true,
				      CH_DISCONNECTING),
		 SRPT_CM_ACT_CLOSE);
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_TIMEWAIT_EXIT, true,
				      CH_DISCONNECTING),
		 SRPT_CM_ACT_CLOSE);
	/* a REJ or REP timeout after our REP must not leak the channel */
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_REJ, true,
				      CH_CONNECTING), SRPT_CM_ACT_CLOSE);
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_CONN_ERROR, true,
				      CH_CONNECTING), SRPT_CM_ACT_CLOSE);
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_INFO, true, CH_LIVE),
		 SRPT_CM_ACT_LOG);
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_OTHER, true, CH_LIVE),
		 SRPT_CM_ACT_UNEXPECTED);
	/* RDMA CM DISCONNECTED */
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_DISCONNECTED, true,
				      CH_LIVE),
		 SRPT_CM_ACT_DISCONNECT_CLOSE);
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_DISCONNECTED, true,
				      CH_CONNECTING),
		 SRPT_CM_ACT_DISCONNECT_CLOSE);
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_DISCONNECTED, true,
				      CH_DISCONNECTING),
		 SRPT_CM_ACT_CLOSE);
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_IGNORE, true, CH_LIVE),
		 SRPT_CM_ACT_NONE);
	/* without a channel nothing is touched */
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_DREQ, false, 0),
		 SRPT_CM_ACT_LOG);
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_ESTABLISHED, false, 0),
		 SRPT_CM_ACT_LOG);
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_TIMEWAIT_EXIT, false, 0),
		 SRPT_CM_ACT_LOG);
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_IGNORE, false, 0),
		 SRPT_CM_ACT_NONE);
	CHECK_EQ(srpt_cm_event_action(SRPT_CM_EV_OTHER, false, 0),
		 SRPT_CM_ACT_UNEXPECTED);
}

/*
 * A full IB CM connection through the action table and the state rules:
 * REQ -> RTU -> DREQ received -> TimeWait exit.
 */
static void test_cm_sequence(void)
{
	int st = CH_CONNECTING;
	enum srpt_cm_act act;

	act = srpt_cm_event_action(SRPT_CM_EV_ESTABLISHED, true, st);
	CHECK_EQ(act, SRPT_CM_ACT_RTU);
	CHECK(srpt_ch_state_may_advance(st, CH_LIVE));
	st = CH_LIVE;
	/* a second RTU (USER_ESTABLISHED after COMM_EST) changes nothing */
	CHECK(!srpt_ch_state_may_advance(st, CH_LIVE));
	act = srpt_cm_event_action(SRPT_CM_EV_DREQ, true, st);
	CHECK_EQ(act, SRPT_CM_ACT_DISCONNECT);
	CHECK(srpt_ch_state_may_advance(st, CH_DISCONNECTING));
	st = CH_DISCONNECTING;
	/* a second DREQ: disconnect returns -ENOTCONN */
	CHECK(!srpt_ch_state_may_advance(st, CH_DISCONNECTING));
	act = srpt_cm_event_action(SRPT_CM_EV_TIMEWAIT_EXIT, true, st);
	CHECK_EQ(act, SRPT_CM_ACT_CLOSE);
	CHECK(srpt_ch_state_may_advance(st, CH_DRAINING));
	st = CH_DRAINING;
	/* DREP after close: close is a no-op */
	act = srpt_cm_event_action(SRPT_CM_EV_DREP, true, st);
	CHECK_EQ(act, SRPT_CM_ACT_CLOSE);
	CHECK(!srpt_ch_state_may_advance(st, CH_DRAINING));
	CHECK(srpt_ch_state_may_advance(st, CH_DISCONNECTED));
}

int main(void)
{
	test_states();
	test_cm_events();
	test_cm_sequence();
	return unit_done();
}
