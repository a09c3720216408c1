// SPDX-License-Identifier: GPL-2.0
/*
 * login.c - pure SRP login logic shared by the IB CM and RDMA CM paths.
 *
 * Parses login requests from CM private data, validates them and builds
 * the login response and reject IUs. The channel state rules and the CM
 * event table are in ch_state.c.
 * Built into the module and, with -DSRPT_USERSPACE, into the unit test
 * tests/unit/test_login.c.
 */
#include "srpt_login.h"

/**
 * srpt_login_from_ib_cm() - extract a login request from IB CM REQ data.
 * @req: result.
 * @pdata: REQ private data (the SRP_LOGIN_REQ starts at offset 0).
 * @len: bytes available at @pdata.
 *
 * Return: 0, or -EINVAL if @len is too short or the opcode is not
 * SRP_LOGIN_REQ.
 */
int srpt_login_from_ib_cm(struct srpt_login_req *req, const void *pdata,
			  size_t len)
{
	if (!pdata || len < sizeof(*req))
		return -EINVAL;
	memcpy(req, pdata, sizeof(*req));
	if (req->opcode != SRPT_OP_LOGIN_REQ)
		return -EINVAL;
	return 0;
}

/**
 * srpt_login_from_rdma_cm() - convert RDMA CM connect data to a login request.
 * @req: result, in the IB CM layout.
 * @pdata: connect request private data (struct srpt_login_req_rdma).
 * @len: bytes available at @pdata.
 *
 * Return: 0, or -EINVAL if @len is shorter than 56 bytes or the opcode is
 * not SRP_LOGIN_REQ.
 */
int srpt_login_from_rdma_cm(struct srpt_login_req *req, const void *pdata,
			    size_t len)
{
	struct srpt_login_req_rdma r;

	if (!pdata || len < sizeof(r))
		return -EINVAL;
	memcpy(&r, pdata, sizeof(r));
	if (r.opcode != SRPT_OP_LOGIN_REQ)
		return -EINVAL;
	memset(req, 0, sizeof(*req));
	req->opcode = r.opcode;
	req->tag = r.tag;
	req->req_it_iu_len = r.req_it_iu_len;
	req->req_buf_fmt = r.req_buf_fmt;
	req->req_flags = r.req_flags;
	req->imm_data_offset = r.imm_data_offset;
	memcpy(req->initiator_port_id, r.initiator_port_id,
	       sizeof(req->initiator_port_id));
	memcpy(req->target_port_id, r.target_port_id,
	       sizeof(req->target_port_id));
	return 0;
}

/**
 * srpt_login_check() - validate a login request (docs/design.md, "Login
 * stages", step 2).
 * @req: the request.
 * @lim: target limits and port state.
 *
 * Checks in this order: the requested IU length (64 ... max_req_size), the
 * port being enabled, and both halves of the target port ID matching the
 * service GUID.
 *
 * Return: 0 if the login may proceed, otherwise the SRP_LOGIN_REJ reason.
 */
u32 srpt_login_check(const struct srpt_login_req *req,
		     const struct srpt_login_limits *lim)
{
	u32 it_iu_len = be32_to_cpu(req->req_it_iu_len);
	__be64 guid = cpu_to_be64(lim->service_guid);

	if (it_iu_len > lim->max_req_size || it_iu_len < SRPT_MIN_IU_LEN)
		return SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE;
	if (!lim->enabled)
		return SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	if (memcmp(&req->target_port_id[0], &guid, 8) != 0 ||
	    memcmp(&req->target_port_id[8], &guid, 8) != 0)
		return SRPT_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL;
	return 0;
}

/**
 * srpt_login_imm_data_offset() - negotiated immediate data offset.
 * @req: the request.
 * @lim: target limits; immediate data needs a per-channel receive ring.
 *
 * Immediate data is supported if the initiator asked for it, the channel
 * does not use an SRQ, and the offset lies after the fixed SRP_CMD header
 * and inside the largest IU the target accepts.
 *
 * Return: the offset, or 0 if there is no immediate data.
 */
u16 srpt_login_imm_data_offset(const struct srpt_login_req *req,
			       const struct srpt_login_limits *lim)
{
	u16 off;

	if (lim->use_srq || !(req->req_flags & SRPT_IMMED_REQUESTED))
		return 0;
	off = be16_to_cpu(req->imm_data_offset);
	if (off < sizeof(struct srpt_cmd) || off > lim->max_req_size)
		return 0;
	return off;
}

/**
 * srpt_login_imm_align() - receive buffer shift for aligned immediate data.
 * @imm_data_offset: negotiated offset (0 if none).
 *
 * Return: bytes to skip at the start of a receive buffer so that data at
 * @imm_data_offset in the IU starts on a 512-byte boundary.
 */
u32 srpt_login_imm_align(u16 imm_data_offset)
{
	return (SRPT_IMM_DATA_ALIGN - imm_data_offset % SRPT_IMM_DATA_ALIGN) %
		SRPT_IMM_DATA_ALIGN;
}

/**
 * srpt_login_single_channel() - whether the login asks to end other channels.
 * @req: the request.
 *
 * Return: true for SRP_MULTICHAN_SINGLE; values 1 to 3 keep the existing
 * channels of the I_T nexus.
 */
bool srpt_login_single_channel(const struct srpt_login_req *req)
{
	return (req->req_flags & SRPT_MULTICHAN_MASK) == SRPT_MULTICHAN_SINGLE;
}

/*
 * The deepest channel whose queues fit the HCA: the receive queue holds
 * the ring plus the drain marker and the send queue one response per
 * credit plus the spare WRs (both at most @max_qp_wr), and the CQ, which
 * must hold a completion for every WR that can be outstanding at once
 * (they all complete when the QP is flushed, signaled or not: the
 * receive ring, the drain marker and the smallest send queue with its
 * spare WRs, see srpt_ch_cq_need()), still fits (at most @max_cqe). 0 if
 * nothing fits.
 */
static u32 srpt_login_rq_fit(u32 max_qp_wr, u32 max_cqe)
{
	u32 by_qp = max_qp_wr > SRPT_SQ_SPARE_WRS ?
		    max_qp_wr - SRPT_SQ_SPARE_WRS : 0;
	u32 min_sq = srpt_ch_cq_need(0, SRPT_MIN_SQ_SIZE + SRPT_SQ_SPARE_WRS,
				     true);
	u32 by_cq = max_cqe > min_sq ? max_cqe - min_sq : 0;

	return by_qp < by_cq ? by_qp : by_cq;
}

/**
 * srpt_login_rq_size_max() - largest channel depth srp_rq_size accepts.
 * @max_qp_wr: the HCA's max_qp_wr (WRs of one send or receive queue).
 * @max_cqe: the HCA's max_cqe (entries of one CQ).
 *
 * See srpt_login_rq_fit(). The result lies in [SRPT_MIN_RQ_SIZE,
 * SRPT_MAX_RQ_SIZE]: on an HCA too small for the minimum,
 * srpt_login_rq_size() still shrinks each channel to fit.
 *
 * Return: the upper bound of the srp_rq_size attribute.
 */
u32 srpt_login_rq_size_max(u32 max_qp_wr, u32 max_cqe)
{
	u32 fit = srpt_login_rq_fit(max_qp_wr, max_cqe);

	if (fit > SRPT_MAX_RQ_SIZE)
		return SRPT_MAX_RQ_SIZE;
	if (fit < SRPT_MIN_RQ_SIZE)
		return SRPT_MIN_RQ_SIZE;
	return fit;
}

/**
 * srpt_login_rq_size() - depth of a new channel.
 * @depth: the port's srp_rq_size.
 * @max_qp_wr: the HCA's max_qp_wr.
 * @max_cqe: the HCA's max_cqe.
 *
 * @depth, but never more than the HCA's queues hold (see
 * srpt_login_rq_fit()) and never 0. A channel on the SRQ may get fewer
 * credits still (srpt_srq_reserve()).
 *
 * Return: the receive ring size, send contexts and credits of the channel.
 */
u32 srpt_login_rq_size(u32 depth, u32 max_qp_wr, u32 max_cqe)
{
	u32 fit = srpt_login_rq_fit(max_qp_wr, max_cqe);

	if (depth > fit)
		depth = fit;
	return depth ? depth : 1;
}

/**
 * srpt_login_build_rsp() - fill in an SRP_LOGIN_RSP.
 * @rsp: the response buffer.
 * @req: the request being answered (tag, requested IU length).
 * @max_it_iu_len: largest IU the target accepts (srp_max_req_size).
 * @req_lim: initial credits (the channel depth, see srpt_login_rq_size()).
 * @rsp_flags: SRPT_LOGIN_RSP_* flags.
 *
 * max_ti_iu_len echoes the initiator's req_it_iu_len.
 */
void srpt_login_build_rsp(struct srpt_login_rsp *rsp,
			  const struct srpt_login_req *req, u32 max_it_iu_len,
			  u32 req_lim, u8 rsp_flags)
{
	memset(rsp, 0, sizeof(*rsp));
	rsp->opcode = SRPT_OP_LOGIN_RSP;
	rsp->req_lim_delta = cpu_to_be32(req_lim);
	rsp->tag = req->tag;
	rsp->max_it_iu_len = cpu_to_be32(max_it_iu_len);
	rsp->max_ti_iu_len = req->req_it_iu_len;
	rsp->buf_fmt = cpu_to_be16(SRPT_BUF_FORMAT_DIRECT |
				   SRPT_BUF_FORMAT_INDIRECT);
	rsp->rsp_flags = rsp_flags;
}

/**
 * srpt_login_build_rej() - fill in an SRP_LOGIN_REJ.
 * @rej: the reject buffer.
 * @tag: tag of the request, echoed unchanged.
 * @reason: SRPT_LOGIN_REJ_* reason.
 */
void srpt_login_build_rej(struct srpt_login_rej *rej, u64 tag, u32 reason)
{
	memset(rej, 0, sizeof(*rej));
	rej->opcode = SRPT_OP_LOGIN_REJ;
	rej->reason = cpu_to_be32(reason);
	rej->tag = tag;
	rej->buf_fmt = cpu_to_be16(SRPT_BUF_FORMAT_DIRECT |
				   SRPT_BUF_FORMAT_INDIRECT);
}

/**
 * srpt_login_rej_str() - human readable reject reason.
 * @reason: SRPT_LOGIN_REJ_* reason.
 *
 * Return: a static string.
 */
const char *srpt_login_rej_str(u32 reason)
{
	switch (reason) {
	case SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL:
		return "unable to establish channel";
	case SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES:
		return "insufficient resources";
	case SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE:
		return "requested IU length not supported";
	case SRPT_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL:
		return "unable to associate channel";
	case SRPT_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT:
		return "unsupported descriptor format";
	case SRPT_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED:
		return "multichannel unsupported";
	case SRPT_LOGIN_REJ_CHANNEL_LIMIT_REACHED:
		return "channel limit reached";
	default:
		return "unknown";
	}
}
