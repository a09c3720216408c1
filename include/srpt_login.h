/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_login.h - pure login logic (src/login.c).
 *
 * Converts IB CM and RDMA CM private data into struct srpt_login_req,
 * validates a login in the order of docs/design.md, "Login stages" (step 2),
 * and builds SRP_LOGIN_RSP and SRP_LOGIN_REJ (names are formatted by
 * srpt_names.h; the channel state rules and the CM event table are in
 * srpt_ch_state.h). Nothing here
 * allocates, sleeps, locks or logs, so it builds in userspace tests too.
 */
#ifndef SRPT_LOGIN_H
#define SRPT_LOGIN_H

#include "srpt_proto.h"

/* Bytes of REQ private data that the IB CM always delivers. */
#define SRPT_IB_CM_REQ_PDATA_LEN	92

/*
 * Channel depth: the srp_rq_size TPG attribute, i.e. the credits a login
 * grants, the receive ring size and the number of send contexts of a channel
 * (docs/design.md, "Limits and defaults" and "Channel depth"). The default
 * is the in-kernel driver's fixed depth (its MAX_SRPT_RQ_SIZE).
 */
enum {
	SRPT_MIN_RQ_SIZE	= 16,
	SRPT_DEF_RQ_SIZE	= 128,
	SRPT_MAX_RQ_SIZE	= 65535,
	/*
	 * WRs of each queue of a channel's QP that carry no IU or response:
	 * the two zero-length writes and the drain marker on the send queue,
	 * the drain marker on the receive queue.
	 */
	SRPT_SQ_SPARE_WRS	= 2,
	/* Smallest send queue tried (half of it for responses). */
	SRPT_MIN_SQ_SIZE	= 16,
};

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
/**
 * srpt_ch_cq_need() - CQ entries a channel's QP can fill at once.
 * @rq_size: the channel's receive ring (or its SRQ credits).
 * @max_send_wr: the send queue as created (the rdma_rw contexts' WRs and
 *		 the spare WRs included).
 * @own_rq: the QP has its own receive queue, with a drain marker.
 *
 * When the QP is flushed every posted WR completes, signaled or not.
 *
 * Return: the smallest CQ size that cannot overrun.
 */
static inline u32 srpt_ch_cq_need(u32 rq_size, u32 max_send_wr, bool own_rq)
{
	return rq_size + max_send_wr + (own_rq ? 1 : 0);
}

u32 srpt_login_rq_size_max(u32 max_qp_wr, u32 max_cqe);
u32 srpt_login_rq_size(u32 depth, u32 max_qp_wr, u32 max_cqe);
void srpt_login_build_rsp(struct srpt_login_rsp *rsp,
			  const struct srpt_login_req *req, u32 max_it_iu_len,
			  u32 req_lim, u8 rsp_flags);
void srpt_login_build_rej(struct srpt_login_rej *rej, u64 tag, u32 reason);
const char *srpt_login_rej_str(u32 reason);

#endif /* SRPT_LOGIN_H */
