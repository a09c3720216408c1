// SPDX-License-Identifier: GPL-2.0
/*
 * ch_state.c - pure rules of the channel state machine: which state a
 * channel may enter, what a connection manager event means for a channel
 * in a given state, and the state names used in log messages
 * (docs/design.md, "Channel state machine" and "CM events"). The channel
 * itself and its state changes under ch->spinlock are in channel.c, the CM
 * handlers that act on the table in cm.c.
 *
 * Built into the module and, with -DSRPT_USERSPACE, into the unit test
 * tests/unit/test_ch_state.c.
 */
#include "srpt_ch_state.h"

/**
 * srpt_ch_state_may_advance() - whether a channel may enter a state.
 * @cur: current state.
 * @next: requested state.
 *
 * Channel states only ever increase.
 *
 * Return: true if @next is greater than @cur.
 */
bool srpt_ch_state_may_advance(enum rdma_ch_state cur,
			       enum rdma_ch_state next)
{
	return next > cur;
}

/**
 * srpt_cm_event_action() - map a CM event to what must happen to a channel.
 * @ev: the event.
 * @have_ch: whether the cm_id has a channel (false before login completes
 *	     or after a failed login).
 * @ch_state: current channel state, ignored without a channel.
 *
 * A REJ, a connection error or the disconnect of a channel that is still
 * connecting close the channel, so that no channel is left behind when the
 * peer gives up after the REP.
 *
 * Return: the action to take.
 */
enum srpt_cm_act srpt_cm_event_action(enum srpt_cm_ev ev, bool have_ch,
				      enum rdma_ch_state ch_state)
{
	if (ev == SRPT_CM_EV_REQ)
		return SRPT_CM_ACT_LOGIN;
	if (!have_ch) {
		switch (ev) {
		case SRPT_CM_EV_IGNORE:
			return SRPT_CM_ACT_NONE;
		case SRPT_CM_EV_OTHER:
			return SRPT_CM_ACT_UNEXPECTED;
		default:
			return SRPT_CM_ACT_LOG;
		}
	}
	switch (ev) {
	case SRPT_CM_EV_ESTABLISHED:
		return SRPT_CM_ACT_RTU;
	case SRPT_CM_EV_DREQ:
		return SRPT_CM_ACT_DISCONNECT;
	case SRPT_CM_EV_DISCONNECTED:
		if (ch_state < CH_DISCONNECTING)
			return SRPT_CM_ACT_DISCONNECT_CLOSE;
		return SRPT_CM_ACT_CLOSE;
	case SRPT_CM_EV_REJ:
	case SRPT_CM_EV_DREP:
	case SRPT_CM_EV_TIMEWAIT_EXIT:
	case SRPT_CM_EV_CONN_ERROR:
		return SRPT_CM_ACT_CLOSE;
	case SRPT_CM_EV_INFO:
		return SRPT_CM_ACT_LOG;
	case SRPT_CM_EV_IGNORE:
		return SRPT_CM_ACT_NONE;
	default:
		return SRPT_CM_ACT_UNEXPECTED;
	}
}

/**
 * srpt_ch_state_name() - name of a channel state for log messages.
 * @state: the state (any value: unknown ones get "???").
 *
 * Return: a static string.
 */
const char *srpt_ch_state_name(enum rdma_ch_state state)
{
	switch (state) {
	case CH_CONNECTING:
		return "connecting";
	case CH_LIVE:
		return "live";
	case CH_DISCONNECTING:
		return "disconnecting";
	case CH_DRAINING:
		return "draining";
	case CH_DISCONNECTED:
		return "disconnected";
	default:
		return "???";
	}
}
