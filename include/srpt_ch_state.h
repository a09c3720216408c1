/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_ch_state.h - the channel state machine, one definition for the
 * driver and the pure code (src/ch_state.c): the channel states, the
 * connection manager events and the actions they map to (docs/design.md,
 * "Channel state machine" and "CM events"). Nothing here allocates,
 * sleeps, locks or logs, so it builds in userspace tests too.
 */
#ifndef SRPT_CH_STATE_H
#define SRPT_CH_STATE_H

#include "srpt_pure.h"

/**
 * enum rdma_ch_state - channel state; only ever moves to a higher value.
 * @CH_CONNECTING: login accepted, waiting for the RTU / ESTABLISHED event.
 * @CH_LIVE: RTU received, QP in RTS; IUs are processed.
 * @CH_DISCONNECTING: DREQ sent or received.
 * @CH_DRAINING: QP in error, zero-length write posted to flush the SQ.
 * @CH_DISCONNECTED: every send WR posted before the close write has
 *	completed; release work scheduled (it drains the rest).
 */
enum rdma_ch_state {
	CH_CONNECTING,
	CH_LIVE,
	CH_DISCONNECTING,
	CH_DRAINING,
	CH_DISCONNECTED,
};

/**
 * enum srpt_cm_ev - connection manager events, independent of the CM.
 * @SRPT_CM_EV_REQ: connect request (login).
 * @SRPT_CM_EV_REJ: the peer rejected our REP or DREQ.
 * @SRPT_CM_EV_ESTABLISHED: RTU received or connection established.
 * @SRPT_CM_EV_DREQ: the peer asked to disconnect (IB CM).
 * @SRPT_CM_EV_DISCONNECTED: the connection is gone (RDMA CM).
 * @SRPT_CM_EV_DREP: our disconnect request was answered.
 * @SRPT_CM_EV_TIMEWAIT_EXIT: time wait is over.
 * @SRPT_CM_EV_CONN_ERROR: REP or RTU timeout, unreachable peer.
 * @SRPT_CM_EV_INFO: events that are only logged (MRA, DREQ error).
 * @SRPT_CM_EV_IGNORE: events handled elsewhere (device removal).
 * @SRPT_CM_EV_OTHER: anything not known.
 */
enum srpt_cm_ev {
	SRPT_CM_EV_REQ,
	SRPT_CM_EV_REJ,
	SRPT_CM_EV_ESTABLISHED,
	SRPT_CM_EV_DREQ,
	SRPT_CM_EV_DISCONNECTED,
	SRPT_CM_EV_DREP,
	SRPT_CM_EV_TIMEWAIT_EXIT,
	SRPT_CM_EV_CONN_ERROR,
	SRPT_CM_EV_INFO,
	SRPT_CM_EV_IGNORE,
	SRPT_CM_EV_OTHER,
};

/**
 * enum srpt_cm_act - what the CM handlers do for an event.
 * @SRPT_CM_ACT_NONE: nothing.
 * @SRPT_CM_ACT_LOGIN: process a login request.
 * @SRPT_CM_ACT_RTU: move the channel to LIVE and kick the wait list.
 * @SRPT_CM_ACT_DISCONNECT: start a disconnect (send DREQ or DREP).
 * @SRPT_CM_ACT_DISCONNECT_CLOSE: start a disconnect, then close right away.
 * @SRPT_CM_ACT_CLOSE: close the channel (QP error, drain, release).
 * @SRPT_CM_ACT_LOG: log the event only.
 * @SRPT_CM_ACT_UNEXPECTED: log an error about an unexpected event.
 */
enum srpt_cm_act {
	SRPT_CM_ACT_NONE,
	SRPT_CM_ACT_LOGIN,
	SRPT_CM_ACT_RTU,
	SRPT_CM_ACT_DISCONNECT,
	SRPT_CM_ACT_DISCONNECT_CLOSE,
	SRPT_CM_ACT_CLOSE,
	SRPT_CM_ACT_LOG,
	SRPT_CM_ACT_UNEXPECTED,
};

bool srpt_ch_state_may_advance(enum rdma_ch_state cur,
			       enum rdma_ch_state next);
enum srpt_cm_act srpt_cm_event_action(enum srpt_cm_ev ev, bool have_ch,
				      enum rdma_ch_state ch_state);
const char *srpt_ch_state_name(enum rdma_ch_state state);

#endif /* SRPT_CH_STATE_H */
