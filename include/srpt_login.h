/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_login.h - pure login and connection-event logic (src/login.c).
 *
 * Converts IB CM and RDMA CM private data into struct srpt_login_req,
 * validates a login in the order of docs/design.md, "Login stages" (step 2),
 * builds SRP_LOGIN_RSP and SRP_LOGIN_REJ, and decides what a CM event means
 * for a channel (names are formatted by srpt_names.h). Nothing here
 * allocates, sleeps, locks or logs, so it builds in userspace tests too.
 */
#ifndef SRPT_LOGIN_H
#define SRPT_LOGIN_H

#include "srpt_proto.h"

/* Bytes of REQ private data that the IB CM always delivers. */
#define SRPT_IB_CM_REQ_PDATA_LEN	92

/**
 * struct srpt_login_limits - target-side values a login is checked against.
 * @max_req_size: srp_max_req_size (largest IU the target accepts).
 * @service_guid: srpt_service_guid in CPU byte order.
 * @enabled: whether the port accepts logins.
 * @use_srq: whether the channel will use the shared receive queue.
 */
struct srpt_login_limits {
	u32	max_req_size;
	u64	service_guid;
	bool	enabled;
	bool	use_srq;
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

/* Channel states as plain numbers (must equal enum rdma_ch_state). */
enum {
	SRPT_CH_CONNECTING	= 0,
	SRPT_CH_LIVE		= 1,
	SRPT_CH_DISCONNECTING	= 2,
	SRPT_CH_DRAINING	= 3,
	SRPT_CH_DISCONNECTED	= 4,
};

int srpt_login_from_ib_cm(struct srpt_login_req *req, const void *pdata,
			  size_t len);
int srpt_login_from_rdma_cm(struct srpt_login_req *req, const void *pdata,
			    size_t len);
u32 srpt_login_check(const struct srpt_login_req *req,
		     const struct srpt_login_limits *lim);
u16 srpt_login_imm_data_offset(const struct srpt_login_req *req,
			       const struct srpt_login_limits *lim);
u32 srpt_login_imm_align(u16 imm_data_offset);
bool srpt_login_single_channel(const struct srpt_login_req *req);
void srpt_login_build_rsp(struct srpt_login_rsp *rsp,
			  const struct srpt_login_req *req, u32 max_it_iu_len,
			  u32 req_lim, u8 rsp_flags);
void srpt_login_build_rej(struct srpt_login_rej *rej, u64 tag, u32 reason);
const char *srpt_login_rej_str(u32 reason);
bool srpt_ch_state_may_advance(int cur, int next);
enum srpt_cm_act srpt_cm_event_action(enum srpt_cm_ev ev, bool have_ch,
				      int ch_state);
const char *srpt_ch_state_name(int state);

#endif /* SRPT_LOGIN_H */
