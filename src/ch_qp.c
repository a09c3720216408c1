// SPDX-License-Identifier: GPL-2.0
/*
 * ch_qp.c - the verbs objects of an SRP channel: its CQ and QP (creation
 * with a shrinking send queue, the state changes of an IB CM QP, the error
 * state, destruction), the QP event handler, and its send and receive
 * context rings. The channel's lifecycle, which decides when these are
 * created and destroyed, is in channel.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include "srpt.h"
#include "srpt_debug.h"
#include "srpt_io.h"
#include "srpt_login.h"

/*
 * Tell the CM that the first packet arrived before it saw the connection
 * established (COMM_EST). The state is looked at and the cm_id used under
 * @ch->spinlock, under which every state change happens: a channel found
 * below CH_DRAINING cannot start closing before the notification is done,
 * and its release work, which destroys the cm_id, only runs after that.
 * Looking at the state first and using the cm_id after dropping the lock
 * left a window in which a close and the whole release work could pass
 * (tests/vm/cases/216-qp-event-release.sh). The notification only takes
 * the CM's spinlock and allocates with GFP_ATOMIC.
 */
static void srpt_qp_comm_est(struct srpt_rdma_ch *ch, enum ib_event_type ev)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->spinlock, flags);
	if (ch->state < CH_DRAINING) {
		if (ch->using_rdma_cm)
			rdma_notify(ch->rdma_cm.cm_id, ev);
		else
			ib_cm_notify(ch->ib_cm.cm_id, ev);
	}
	spin_unlock_irqrestore(&ch->spinlock, flags);
}

/* QP event handler; @ptr is the channel (qp_context). */
static void srpt_qp_event(struct ib_event *event, void *ptr)
{
	struct srpt_rdma_ch *ch = ptr;

	switch (event->event) {
	case IB_EVENT_COMM_EST:
		srpt_qp_comm_est(ch, event->event);
		break;
	case IB_EVENT_QP_LAST_WQE_REACHED:
		srpt_ch_dbg(ch, "last WQE reached\n");
		complete(&ch->last_wqe);
		break;
	default:
		srpt_ch_err_ratelimited(ch, "received QP event %s (%d) in state %s\n",
					ib_event_msg(event->event),
					event->event,
					srpt_ch_state_name(srpt_get_ch_state(ch)));
		break;
	}
}

static int srpt_ch_qp_init(struct srpt_rdma_ch *ch, struct ib_qp *qp)
{
	struct srpt_port *sport = ch->sport;
	struct ib_qp_attr *attr;
	u16 pkey_index = 0;
	int ret;

	attr = srpt_dbg_alloc("qp_init_attr", kzalloc(sizeof(*attr), GFP_KERNEL));
	if (!attr)
		return -ENOMEM;
	ret = ib_find_cached_pkey(sport->sdev->device, sport->port, ch->pkey,
				  &pkey_index);
	if (ret) {
		srpt_ch_warn_ratelimited(ch, "P_Key %#x not found; using index 0\n",
					 ch->pkey);
		pkey_index = 0;
	}
	attr->qp_state = IB_QPS_INIT;
	attr->qp_access_flags = IB_ACCESS_LOCAL_WRITE;
	attr->port_num = sport->port;
	attr->pkey_index = pkey_index;
	ret = ib_modify_qp(qp, attr, IB_QP_STATE | IB_QP_ACCESS_FLAGS |
			   IB_QP_PORT | IB_QP_PKEY_INDEX);
	kfree(attr);
	return ret;
}

static int srpt_ch_qp_modify_cm(struct srpt_rdma_ch *ch,
				enum ib_qp_state state)
{
	struct ib_qp_attr *attr;
	int mask, ret;

	attr = srpt_dbg_alloc("qp_attr", kzalloc(sizeof(*attr), GFP_KERNEL));
	if (!attr)
		return -ENOMEM;
	attr->qp_state = state;
	ret = ib_cm_init_qp_attr(ch->ib_cm.cm_id, attr, &mask);
	if (ret)
		goto out;
	if (state == IB_QPS_RTR)
		attr->max_dest_rd_atomic = SRPT_RDMA_DEPTH;
	else
		attr->max_rd_atomic = SRPT_RDMA_DEPTH;
	ret = ib_modify_qp(ch->qp, attr, mask);
out:
	kfree(attr);
	return ret;
}

/**
 * srpt_ch_qp_rtr() - move the QP of an IB CM channel to RTR.
 * @ch: the channel.
 *
 * Return: 0 or a negative errno.
 */
int srpt_ch_qp_rtr(struct srpt_rdma_ch *ch)
{
	return srpt_ch_qp_modify_cm(ch, IB_QPS_RTR);
}

/**
 * srpt_ch_qp_rts() - move the QP of an IB CM channel to RTS.
 * @ch: the channel.
 *
 * Return: 0 or a negative errno.
 */
int srpt_ch_qp_rts(struct srpt_rdma_ch *ch)
{
	return srpt_ch_qp_modify_cm(ch, IB_QPS_RTS);
}

/**
 * srpt_ch_destroy_qp() - destroy the QP of a channel and put its CQ.
 * @ch: the channel; nothing happens if it has no QP.
 *
 * An RDMA CM QP goes through its cm_id while that still exists (login
 * reject path); the release work destroys the cm_id first and then the QP
 * directly. Destroying the QP waits for its event handlers
 * (srpt_qp_event(), whose context is @ch): the HCA driver's does, and a
 * debug build's delivered events too (srpt_debug_qp_destroy()), so @ch
 * may be freed after this returns.
 */
void srpt_ch_destroy_qp(struct srpt_rdma_ch *ch)
{
	if (!ch->qp)
		return;
	srpt_debug_qp_destroy(ch->qp);
	if (ch->using_rdma_cm && ch->rdma_cm.cm_id)
		rdma_destroy_qp(ch->rdma_cm.cm_id);
	else
		ib_destroy_qp(ch->qp);
	ch->qp = NULL;
	ib_cq_pool_put(ch->cq, ch->cq_size);
	ch->cq = NULL;
}

/*
 * Create CQ and QP once with @sq_size send queue entries and a CQ of
 * @cq_size. The QP's send queue is known only once it exists (the core
 * adds the WRs of the rdma_rw contexts, how many depends on the device),
 * and it may hold more than the CQ has room for: the send WRs the channel
 * posts (srpt_rdma_ch.sq_wrs plus the spare ones) are capped at the room
 * the receives leave in the CQ, so the CQ cannot overrun even when a
 * flush completes every posted WR at once.
 */
static int srpt_ch_try_create_qp(struct srpt_rdma_ch *ch, u32 sq_size,
				 u32 cq_size, bool use_srq)
{
	struct srpt_device *sdev = ch->sport->sdev;
	const struct ib_device_attr *attrs = &sdev->device->attrs;
	u32 max_qp_wr = srpt_debug_max_qp_wr(attrs->max_qp_wr);
	struct ib_qp_init_attr *init;
	u32 max_send_wr;
	struct ib_qp *qp;
	int ret;

	ch->cq_size = cq_size;
	ch->cq = srpt_dbg_err_ptr("cq",
				  ib_cq_pool_get(sdev->device, ch->cq_size, -1,
						 IB_POLL_WORKQUEUE));
	if (IS_ERR(ch->cq)) {
		ret = PTR_ERR(ch->cq);
		ch->cq = NULL;
		srpt_ch_err_ratelimited(ch, "allocating a CQ with %u entries failed: %d\n",
					ch->cq_size, ret);
		return ret;
	}

	init = srpt_dbg_alloc("qp_create_attr", kzalloc(sizeof(*init), GFP_KERNEL));
	if (!init) {
		ret = -ENOMEM;
		goto put_cq;
	}
	init->qp_context = ch;
	init->event_handler = srpt_qp_event;
	init->send_cq = ch->cq;
	init->recv_cq = ch->cq;
	init->sq_sig_type = IB_SIGNAL_REQ_WR;
	init->qp_type = IB_QPT_RC;
	/* The spare WRs are for the zero-length writes and the drain. */
	init->cap.max_send_wr = min_t(u32, sq_size / 2,
				      max_qp_wr - SRPT_SQ_SPARE_WRS) +
				SRPT_SQ_SPARE_WRS;
	init->cap.max_rdma_ctxs = sq_size / 2;
	init->cap.max_send_sge = attrs->max_send_sge;
	init->cap.max_recv_sge = 1;
	init->port_num = ch->sport->port;
	if (use_srq)
		init->srq = sdev->srq;
	else
		init->cap.max_recv_wr = ch->rq_size + 1;	/* drain marker */

	if (ch->using_rdma_cm) {
		ret = srpt_dbg_err("qp", rdma_create_qp(ch->rdma_cm.cm_id,
							sdev->pd, init));
		if (ret)
			goto free_init;
		ch->qp = ch->rdma_cm.cm_id->qp;
	} else {
		qp = srpt_dbg_err_ptr("qp", ib_create_qp(sdev->pd, init));
		if (IS_ERR(qp)) {
			ret = PTR_ERR(qp);
			goto free_init;
		}
		ret = srpt_ch_qp_init(ch, qp);
		if (ret) {
			ib_destroy_qp(qp);
			goto free_init;
		}
		ch->qp = qp;
	}
	/*
	 * The core added the WRs of the rdma_rw contexts to max_send_wr and
	 * capped the sum at max_qp_wr, which a debug build may lower.
	 */
	max_send_wr = min3(init->cap.max_send_wr, max_qp_wr,
			   cq_size - srpt_ch_cq_need(ch->rq_size, 0, !use_srq));
	kfree(init);
	ch->sq_wrs = max_send_wr - SRPT_SQ_SPARE_WRS;
	atomic_set(&ch->sq_wr_avail, ch->sq_wrs);
	ch->sq_wr_max = min(sq_size / 2, ch->sq_wrs);
	srpt_ch_dbg(ch, "cq_size %u, sq_size %u, max_send_wr %u, rq_size %d\n",
		    ch->cq_size, sq_size, max_send_wr, ch->rq_size);
	return 0;

free_init:
	kfree(init);
put_cq:
	ib_cq_pool_put(ch->cq, ch->cq_size);
	ch->cq = NULL;
	return ret;
}

/**
 * srpt_ch_create_qp() - create the CQ and QP of a channel.
 * @ch: the channel, with its rings allocated (srpt_ch_alloc_rings()).
 * @use_srq: attach the QP to the device's shared receive queue.
 *
 * Halves the send queue size after each failure, down to SRPT_MIN_SQ_SIZE,
 * and posts the receive ring when the channel has its own.
 *
 * Return: 0 or a negative errno (nothing is left allocated).
 */
int srpt_ch_create_qp(struct srpt_rdma_ch *ch, bool use_srq)
{
	struct srpt_device *sdev = ch->sport->sdev;
	u32 max_cqe = sdev->device->attrs.max_cqe;
	u32 sq_size = max_t(u32, ch->sport->port_attrib.srp_sq_size,
			    SRPT_MIN_SQ_SIZE);
	u32 recv = srpt_ch_cq_need(ch->rq_size, 0, !use_srq);
	u32 cq_size;
	int i, ret;

	/*
	 * The CQ takes the receives plus the send queue (sq_size / 2
	 * responses, as many rdma_rw WRs, the spare WRs; see
	 * srpt_ch_try_create_qp()) and the CQ pool cannot give more than
	 * max_cqe in one CQ: asked for more, ib_cq_pool_get() keeps
	 * allocating CQs that are all too small. srpt_login_rq_size() left
	 * room for SRPT_MIN_SQ_SIZE; the send queue gets what is left.
	 */
	if (max_cqe > recv + SRPT_SQ_SPARE_WRS &&
	    sq_size > max_cqe - recv - SRPT_SQ_SPARE_WRS)
		sq_size = max_t(u32, max_cqe - recv - SRPT_SQ_SPARE_WRS,
				SRPT_MIN_SQ_SIZE);
	cq_size = recv + sq_size + SRPT_SQ_SPARE_WRS;

	for (;;) {
		ret = srpt_ch_try_create_qp(ch, sq_size, cq_size, use_srq);
		if (ret == 0)
			break;
		if (sq_size <= SRPT_MIN_SQ_SIZE) {
			srpt_ch_err_ratelimited(ch, "creating a QP failed: %d\n",
						ret);
			return ret;
		}
		sq_size = max_t(u32, sq_size / 2, SRPT_MIN_SQ_SIZE);
		cq_size = recv + sq_size + SRPT_SQ_SPARE_WRS;
		srpt_ch_dbg(ch, "retrying QP creation with sq_size %u\n",
			    sq_size);
	}

	if (use_srq)
		return 0;
	for (i = 0; i < ch->rq_size; i++) {
		ret = srpt_post_recv(sdev, ch, ch->ioctx_recv_ring[i]);
		if (ret) {
			srpt_ch_err_ratelimited(ch, "posting receive %d failed: %d\n",
						i, ret);
			srpt_ch_destroy_qp(ch);
			return ret;
		}
	}
	return 0;
}

/**
 * srpt_ch_free_rings() - free the context rings of a channel and put their
 * buffer caches.
 * @ch: the channel; rings it does not have are skipped.
 */
void srpt_ch_free_rings(struct srpt_rdma_ch *ch)
{
	struct srpt_device *sdev = ch->sport->sdev;

	if (ch->ioctx_recv_ring)
		srpt_free_recv_ring(sdev, ch->ioctx_recv_ring, ch->rq_size,
				    ch->req_buf_cache);
	ch->ioctx_recv_ring = NULL;
	if (ch->req_buf_cache)
		srpt_cache_put(ch->req_buf_cache);
	ch->req_buf_cache = NULL;
	if (ch->ioctx_ring)
		srpt_free_send_ring(ch, ch->ioctx_ring, ch->rq_size,
				    ch->rsp_buf_cache);
	ch->ioctx_ring = NULL;
	if (ch->rsp_buf_cache)
		srpt_cache_put(ch->rsp_buf_cache);
	ch->rsp_buf_cache = NULL;
}

/**
 * srpt_ch_alloc_rings() - allocate the send context ring of a channel and,
 * without SRQ, its receive context ring.
 * @ch: the channel, with rq_size, max_rsp_size and imm_data_offset set.
 * @use_srq: the channel receives through the device's SRQ.
 *
 * Return: 0 or -ENOMEM (nothing is left allocated).
 */
int srpt_ch_alloc_rings(struct srpt_rdma_ch *ch, bool use_srq)
{
	struct srpt_device *sdev = ch->sport->sdev;
	u32 align = srpt_login_imm_align(ch->imm_data_offset);
	struct kmem_cache *cache;

	cache = srpt_cache_get(ch->max_rsp_size);
	if (IS_ERR_OR_NULL(cache))
		return -ENOMEM;
	ch->rsp_buf_cache = cache;
	ch->ioctx_ring = srpt_alloc_send_ring(ch, ch->rq_size, cache,
					      srpt_send_done);
	if (IS_ERR_OR_NULL(ch->ioctx_ring)) {
		ch->ioctx_ring = NULL;
		goto fail;
	}
	if (use_srq)
		return 0;

	cache = srpt_cache_get(align + ch->imm_data_offset + srp_max_req_size);
	if (IS_ERR_OR_NULL(cache))
		goto fail;
	ch->req_buf_cache = cache;
	ch->ioctx_recv_ring = srpt_alloc_recv_ring(sdev, ch->rq_size, cache,
						   align, srpt_recv_done);
	if (IS_ERR_OR_NULL(ch->ioctx_recv_ring)) {
		ch->ioctx_recv_ring = NULL;
		goto fail;
	}
	return 0;

fail:
	srpt_ch_free_rings(ch);
	return -ENOMEM;
}
