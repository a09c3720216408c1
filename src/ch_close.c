// SPDX-License-Identifier: GPL-2.0
/*
 * ch_close.c - a channel's state changes and its closing: the QP to the
 * error state, the zero-length RDMA WRITE whose flush completion queues
 * the release work on the module's release workqueue, and freeing the
 * channel with its last reference. The release work itself (channel.c)
 * and the rest of the channel's life are above this file; the receive
 * path (cmd.c), which closes a channel whose initiator broke the protocol,
 * calls down into it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/workqueue.h>
#include "srpt.h"
#include "srpt_trace.h"

/**
 * srpt_ch_state_advance_locked() - move a channel to a higher state.
 * @ch: the channel; the caller holds @ch->spinlock.
 * @new: the new state.
 *
 * Every state change after srpt_ch_create() goes through here (from
 * srpt_set_ch_state() and srpt_ch_established()), so the srpt_ch_state
 * tracepoint sees every transition of a channel, in order.
 *
 * Return: true if the state changed, false if the channel already was in
 * @new or a later state.
 */
bool srpt_ch_state_advance_locked(struct srpt_rdma_ch *ch,
				  enum rdma_ch_state new)
{
	enum rdma_ch_state old = ch->state;

	lockdep_assert_held(&ch->spinlock);
	if (!srpt_ch_state_may_advance(old, new))
		return false;
	ch->state = new;
	trace_srpt_ch_state(ch, old, new);
	return true;
}

/**
 * srpt_set_ch_state() - move a channel to a higher state.
 * @ch: the channel.
 * @new: the new state.
 *
 * Return: true if the state changed, false if the channel already was in
 * @new or a later state.
 */
bool srpt_set_ch_state(struct srpt_rdma_ch *ch, enum rdma_ch_state new)
{
	unsigned long flags;
	bool changed;

	spin_lock_irqsave(&ch->spinlock, flags);
	changed = srpt_ch_state_advance_locked(ch, new);
	spin_unlock_irqrestore(&ch->spinlock, flags);
	return changed;
}

/*
 * Release works run on a module-owned workqueue so that module exit can wait
 * for the last of them to return (srpt_channel_exit()). Before
 * srpt_channel_init() has run they fall back to the system workqueue.
 */
static struct workqueue_struct *srpt_release_wq;

/**
 * srpt_channel_init() - create the channel release workqueue.
 *
 * Return: 0 or -ENOMEM.
 */
int srpt_channel_init(void)
{
	srpt_release_wq = alloc_workqueue("srpt_release", WQ_UNBOUND, 0);
	return srpt_release_wq ? 0 : -ENOMEM;
}

/**
 * srpt_channel_exit() - wait for running release works and destroy their
 * workqueue. Call after ib_unregister_client() at module exit.
 */
void srpt_channel_exit(void)
{
	if (srpt_release_wq)
		destroy_workqueue(srpt_release_wq);
	srpt_release_wq = NULL;
}

static void srpt_queue_release(struct srpt_rdma_ch *ch)
{
	queue_work(srpt_release_wq ? srpt_release_wq : system_wq,
		   &ch->release_work);
}

/**
 * srpt_free_ch() - free a channel when its last reference goes.
 * @kref: srpt_rdma_ch.kref.
 *
 * Gives its SRQ credits back, drops its count in the port (waking
 * srpt_release_sport() at zero) and its port reference.
 */
void srpt_free_ch(struct kref *kref)
{
	struct srpt_rdma_ch *ch = container_of(kref, struct srpt_rdma_ch,
					       kref);
	struct srpt_port *sport = ch->sport;

	/* Before ch_count drops: srpt_use_srq() may then replace the SRQ. */
	srpt_srq_unreserve(sport->sdev, ch->srq_credits);
	if (atomic_dec_and_test(&sport->ch_count))
		wake_up(&sport->ch_wq);
	srpt_port_put_ref(sport);
	kfree_rcu(ch, rcu);
}

/**
 * srpt_zerolength_write() - post a signaled zero-length RDMA WRITE.
 * @ch: the channel.
 * @cqe: its completion (ch->rtu_cqe or ch->close_cqe).
 *
 * Return: the result of ib_post_send().
 */
int srpt_zerolength_write(struct srpt_rdma_ch *ch, struct ib_cqe *cqe)
{
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = cqe,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
	};

	return ib_post_send(ch->qp, &wr.wr, NULL);
}

/*
 * Completion of the zero-length write of srpt_close_ch(), posted after the
 * QP was moved to the error state: every earlier send WR has completed, so
 * the release work may start.
 */
void srpt_close_write_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = container_of(wc->wr_cqe, struct srpt_rdma_ch,
					       close_cqe);

	if (srpt_set_ch_state(ch, CH_DISCONNECTED))
		srpt_queue_release(ch);
	else
		srpt_ch_dbg(ch, "zero-length write completed in state %s\n",
			    srpt_ch_state_name(srpt_get_ch_state(ch)));
}

/**
 * srpt_close_ch() - close a channel: QP to error, then drain the SQ.
 * @ch: the channel.
 *
 * The release work is scheduled by the flush completion of the zero-length
 * write (ch->close_cqe), or right away if it cannot be posted. Only the
 * call that moves the channel to CH_DRAINING gets past the state check, and
 * the release work cannot start before that call has posted its write, so
 * ch->qp is valid here.
 *
 * Return: true if this call started closing the channel.
 */
bool srpt_close_ch(struct srpt_rdma_ch *ch)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret;

	if (!srpt_set_ch_state(ch, CH_DRAINING)) {
		srpt_ch_dbg(ch, "already closed\n");
		return false;
	}
	kref_get(&ch->kref);

	ret = ib_modify_qp(ch->qp, &attr, IB_QP_STATE);
	if (ret < 0)
		srpt_ch_err_ratelimited(ch, "changing the QP state to error failed: %d\n",
					ret);

	ret = srpt_zerolength_write(ch, &ch->close_cqe);
	if (ret < 0) {
		srpt_ch_err_ratelimited(ch, "posting the zero-length write failed: %d\n",
					ret);
		if (srpt_set_ch_state(ch, CH_DISCONNECTED))
			srpt_queue_release(ch);
		else
			WARN_ON_ONCE(1);
	}

	kref_put(&ch->kref, srpt_free_ch);
	return true;
}
