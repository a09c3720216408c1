/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_io.h - small helpers of the per-command I/O path, shared by
 * ioctx.c, cmd.c and rsp.c (and srpt_post_recv() by channel.c and srq.c
 * for the first posts of a ring) as static inline functions, so that
 * splitting the I/O path over several files adds no function call per
 * command.
 *
 * The command state machine lives here: every plain write of
 * srpt_send_ioctx.state goes through srpt_set_cmd_state(), the one
 * compare-and-exchange through srpt_test_and_set_cmd_state()
 * (docs/design.md, "Command state machine").
 */
#ifndef SRPT_IO_H
#define SRPT_IO_H

#include "srpt.h"

/**
 * srpt_set_cmd_state() - set the state of a command.
 * @sio: send context of the command.
 * @new: new state.
 *
 * A command in state DONE stays there; only NEW leaves it, when the send
 * context is reset for its next command (srpt_get_send_ioctx()).
 *
 * Return: the previous state.
 */
static inline enum srpt_command_state
srpt_set_cmd_state(struct srpt_send_ioctx *sio, enum srpt_command_state new)
{
	enum srpt_command_state prev = READ_ONCE(sio->state);

	if (prev != SRPT_STATE_DONE || new == SRPT_STATE_NEW)
		WRITE_ONCE(sio->state, new);
	return prev;
}

/**
 * srpt_test_and_set_cmd_state() - change the state if it has a given value.
 * @sio: send context of the command.
 * @old: expected current state (not DONE).
 * @new: new state (not NEW).
 *
 * Return: true if the state was @old and is now @new.
 */
static inline bool srpt_test_and_set_cmd_state(struct srpt_send_ioctx *sio,
					       enum srpt_command_state old,
					       enum srpt_command_state new)
{
	WARN_ON_ONCE(old == SRPT_STATE_DONE);
	WARN_ON_ONCE(new == SRPT_STATE_NEW);
	return cmpxchg(&sio->state, old, new) == old;
}

/**
 * srpt_credit_return() - add one credit to the next response.
 * @ch: channel.
 *
 * For an IU that gets no response of its own (docs/design.md, "Every
 * credit comes back").
 */
static inline void srpt_credit_return(struct srpt_rdma_ch *ch)
{
	atomic_inc(&ch->req_lim_delta);
}

/**
 * srpt_post_recv() - post a receive buffer.
 * @sdev: HCA.
 * @ch: channel the buffer belongs to, or NULL for a buffer of the
 *	device's SRQ that is posted before any channel exists.
 * @rio: receive context; its completion handler was set when its ring was
 *	 allocated (srpt_alloc_recv_ring()).
 *
 * The buffer goes to the SRQ the channel's QP uses, or to the QP's own
 * receive queue when it has none. Always inline: it is on the per-IU
 * path of cmd.c and also frees the buffer a command borrowed (ioctx.c),
 * and gcc 14 (7.x) made a plain inline one a call.
 *
 * Context: any; does not sleep.
 * Return: 0 or the ib_post_*recv() error.
 */
static __always_inline int srpt_post_recv(struct srpt_device *sdev,
					  struct srpt_rdma_ch *ch,
					  struct srpt_recv_ioctx *rio)
{
	/*
	 * Designated initializers: each member is stored once (zeroing the
	 * whole WR first and then storing three of its members cost every
	 * repost three stores more).
	 */
	struct ib_sge sge = {
		.addr	= rio->ioctx.dma + rio->ioctx.offset,
		.length	= srp_max_req_size,
		.lkey	= sdev->lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe		= &rio->ioctx.cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
	};

	ib_dma_sync_single_for_device(sdev->device, rio->ioctx.dma,
				      rio->ioctx.offset + srp_max_req_size,
				      DMA_FROM_DEVICE);
	if (ch && !ch->qp->srq)
		return ib_post_recv(ch->qp, &wr, NULL);
	if (ch)
		return ib_post_srq_recv(ch->qp->srq, &wr, NULL);
	if (WARN_ON_ONCE(!sdev->srq))
		return -EINVAL;
	return ib_post_srq_recv(sdev->srq, &wr, NULL);
}

/*
 * Repost a receive buffer, logging a failure (the QP is then dying).
 * Always inline for the reason srpt_post_recv() is.
 */
static __always_inline void srpt_recv_repost(struct srpt_rdma_ch *ch,
					     struct srpt_recv_ioctx *rio)
{
	int ret = srpt_post_recv(ch->sport->sdev, ch, rio);

	if (ret)
		pr_info_ratelimited("%s: reposting receive buffer failed: %d\n",
				    ch->sess_name, ret);
}

/*
 * The most send WRs one command may need (ch->sq_wr_max, fixed when the QP
 * was created). A command needing more could never be posted, and retrying
 * it through LIO would never end.
 */
static inline u32 srpt_sq_capacity(const struct srpt_rdma_ch *ch)
{
	return ch->sq_wr_max;
}

/**
 * srpt_get_send_ioctx() - take a free send context for a new command.
 * @ch: channel.
 *
 * The channel keeps its own list of free send contexts instead of using
 * LIO's tag pool (an sbitmap): taking and freeing a context are then one
 * compare-and-exchange each, where sbitmap_queue_get() and
 * sbitmap_queue_clear() cost a 4 KiB write about 290 guest instructions
 * (scripts/benchmark.sh --profile, 6.1). LIO itself never looks
 * at se_cmd.map_tag. Inline: cmd.c calls it for every SRP_CMD and
 * SRP_TSK_MGMT; the context goes back with srpt_put_send_ioctx().
 *
 * Context: the caller that holds SRPT_WAIT_BUSY in @ch->wait_state (only
 * srpt_recv_try()), the one taker of @ch->free_ioctxs.
 * Return: the reset send context, or NULL if every one is in use.
 */
static inline struct srpt_send_ioctx *
srpt_get_send_ioctx(struct srpt_rdma_ch *ch)
{
	struct llist_node *node = llist_del_first(&ch->free_ioctxs);
	struct srpt_send_ioctx *sio;

	if (!node)
		return NULL;
	sio = llist_entry(node, struct srpt_send_ioctx, free_node);
	WARN_ON_ONCE(sio->ch != ch);
	/* srpt_put_send_ioctx() cleared it: no store unless it did not */
	if (WARN_ON_ONCE(sio->recv_ioctx))
		sio->recv_ioctx = NULL;
	srpt_set_cmd_state(sio, SRPT_STATE_NEW);
	sio->rw_ctxs = &sio->s_rw_ctx;
	sio->n_rdma = 0;
	sio->n_rw_ctx = 0;
	sio->n_rw_mapped = 0;
	sio->data_charge = 0;
	sio->queue_status_only = false;
	sio->local_rsp = false;
	memset(&sio->cmd, 0, sizeof(sio->cmd));
	memset(sio->sense_data, 0, sizeof(sio->sense_data));
	return sio;
}

/**
 * srpt_sq_wrs_get() - reserve send queue entries.
 * @ch: channel.
 * @n: entries wanted.
 *
 * Takes @n entries of @ch->sq_wr_avail only if that many are free, with a
 * compare-and-exchange loop, so the counter never dips below what is
 * really free, not even for a moment. Whoever finds too little room
 * therefore knows that it is held by posted WRs, whose completions will
 * give it back and then look at the list of deferred responses (a
 * subtract-then-undo reservation could make such a completion's retry of
 * the list fail only because of a reservation that was about to be
 * undone). A successful reservation is fully ordered.
 *
 * Return: true if the entries are now the caller's.
 */
static inline bool srpt_sq_wrs_get(struct srpt_rdma_ch *ch, int n)
{
	int avail = atomic_read(&ch->sq_wr_avail);

	do {
		if (avail < n)
			return false;
	} while (!atomic_try_cmpxchg(&ch->sq_wr_avail, &avail, avail - n));
	return true;
}

/**
 * srpt_sq_wrs_put() - give back send queue entries.
 * @ch: channel.
 * @n: entries, from a completion or from a post that failed.
 *
 * The full barrier orders the new room before the caller's lockless look
 * at the list of deferred responses (srpt_rsp_list_kick()); it pairs
 * with the smp_mb() of srpt_rsp_defer() between adding to the list and
 * reading the room. Every caller must call srpt_rsp_list_kick()
 * afterwards, except srpt_rsp_list_run(), which holds @ch->rsp_lock and
 * goes on with the list itself.
 */
static inline void srpt_sq_wrs_put(struct srpt_rdma_ch *ch, int n)
{
	atomic_add(n, &ch->sq_wr_avail);
	/* the room before the look at the list: see srpt_rsp_list_kick() */
	smp_mb__after_atomic();
}

/**
 * srpt_rsp_list_kick() - post the responses waiting for send queue room.
 * @ch: channel.
 *
 * Called after send queue entries came back: by the send and RDMA READ
 * completions and after a post that failed (srpt_sq_wrs_put()). The list
 * is first looked at without the lock. That cannot miss a response that
 * is being deferred concurrently: the giver of room does atomic_add(),
 * full barrier, then reads the list; srpt_rsp_defer() adds to the list,
 * full barrier (smp_mb()), then reads the room. With both barriers at
 * least one side sees the other's store: either this look finds the list
 * non-empty, or srpt_rsp_defer() finds the room and posts the response
 * itself. The response stays on the list until its room is reserved
 * (srpt_rsp_list_run()), so "empty" here really means that nothing waits.
 *
 * Inline: every send completion calls it, and the list is almost always
 * empty (scripts/benchmark.sh --profile).
 *
 * Context: any but under @ch->rsp_lock; takes it with interrupts disabled.
 */
static inline void srpt_rsp_list_kick(struct srpt_rdma_ch *ch)
{
	if (!list_empty_careful(&ch->rsp_wait_list))
		srpt_rsp_list_post(ch);
}

/**
 * srpt_put_send_ioctx() - release what a command holds and free its send context.
 * @sio: send context.
 *
 * Reposts a receive buffer lent for immediate data, frees the rw contexts
 * and puts the context back on the channel's free list, after which it
 * may be in use again at once. Always inline: LIO's release_cmd calls it
 * for every command.
 *
 * Context: any.
 */
static __always_inline void srpt_put_send_ioctx(struct srpt_send_ioctx *sio)
{
	struct srpt_rdma_ch *ch = sio->ch;
	struct srpt_recv_ioctx *rio = sio->recv_ioctx;

	if (rio) {
		sio->recv_ioctx = NULL;
		WARN_ON_ONCE(!list_empty(&rio->wait_list));
		srpt_recv_repost(ch, rio);
	}
	if (sio->n_rw_ctx || sio->data_charge)
		srpt_free_rw_ctxs(sio, sio->n_rw_ctx);
	/* a full barrier: see srpt_process_wait_list() */
	llist_add(&sio->free_node, &ch->free_ioctxs);
}

#endif /* SRPT_IO_H */
