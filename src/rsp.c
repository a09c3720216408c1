// SPDX-License-Identifier: GPL-2.0
/*
 * rsp.c - the send side of the I/O path: RDMA transfers of write and read
 * data, building and posting SRP responses (including those the driver
 * generates itself for commands LIO never saw), credit accounting, and the
 * LIO fabric callbacks from write data to the response (docs/design.md,
 * "I/O path"). The command state helpers and send queue accounting are in
 * srpt_io.h. Receiving IUs, starting commands, the send completion and
 * release_cmd are in cmd.c, which calls this file and is never called by
 * it (the send completion is reached through the handler the send ring
 * was allocated with).
 *
 * Contexts: send and RDMA READ completions run on the channel's CQ
 * (IB_POLL_WORKQUEUE), serialized with its receive completions. LIO
 * callbacks run in LIO's own work items or, with direct completion (7.x),
 * in the backend's completion context, which may be a hardirq (see
 * srpt_queue_data_in(); docs/design.md, "Completion context: direct
 * completion (7.x)"); they may race with the completions of the same
 * command only where the command state machine says so (docs/design.md,
 * "Command state machine").
 *
 * Where this differs from the in-kernel driver (docs/design.md,
 * "Driver-built responses" and "Full send queue: retry or defer"):
 *  - responses the driver generates itself are built without touching an
 *    uninitialised se_cmd or a freed se_tmr_req; the send completion then
 *    frees the tag;
 *  - a response that does not fit in the send queue is never dropped: LIO
 *    retries those of SCSI commands it owns (-EAGAIN); the others (built
 *    by the driver, TMF responses, commands without a device) wait on the
 *    channel's list of deferred responses until send completions give
 *    room back (srpt_rsp_defer()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <scsi/scsi_proto.h>

#include "srpt.h"
#include "srpt_debug.h"
#include "srpt_io.h"
#include "srpt_iu.h"
#include "srpt_trace.h"

/**
 * srpt_rsp_send() - post a response whose send queue room is reserved.
 * @sio: send context; 1 + @sio->n_rdma entries are reserved for it.
 * @len: response length in bytes.
 * @with_data: put the RDMA WRITEs of the read data in front of the SEND.
 * @state: state the command enters before the post (CMD_RSP_SENT or
 *	   MGMT_RSP_SENT); the previous state is restored on failure.
 *
 * srpt_send_done() gives the room back. If ib_post_send() fails, the room
 * is given back here and the caller must look at the list of deferred
 * responses (see srpt_sq_wrs_put()).
 *
 * Always inline: it is on the path of every response, and a call of its
 * own costs a second stack frame with a canary.
 *
 * Return: 0 or the negative errno of ib_post_send().
 */
static __always_inline int srpt_rsp_send(struct srpt_send_ioctx *sio,
					 int len, bool with_data,
					 enum srpt_command_state state)
{
	struct srpt_rdma_ch *ch = sio->ch;
	struct srpt_device *sdev = ch->sport->sdev;
	/*
	 * Designated initializers: each member is stored once, where
	 * zeroing the WR and the SGE first (CONFIG_INIT_STACK_ALL_ZERO for
	 * the SGE) and then storing the members cost every response seven
	 * stores more.
	 */
	struct ib_sge sge = {
		.addr	= sio->ioctx.dma,
		.length	= len,
		.lkey	= sdev->lkey,
	};
	struct ib_send_wr send_wr = {
		.wr_cqe		= &sio->ioctx.cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
		.opcode		= IB_WR_SEND,
		.send_flags	= IB_SEND_SIGNALED,
	};
	struct ib_send_wr *first_wr = &send_wr;
	enum srpt_command_state prev;
	int i, ret;

	if (with_data) {
		for (i = sio->n_rw_mapped - 1; i >= 0; i--)
			first_wr = rdma_rw_ctx_wrs(&sio->rw_ctxs[i].rw, ch->qp,
						   ch->sport->port, NULL,
						   first_wr);
	}
	ib_dma_sync_single_for_device(sdev->device, sio->ioctx.dma, len,
				      DMA_TO_DEVICE);

	/* The completion may run before ib_post_send() returns. */
	prev = srpt_set_cmd_state(sio, state);
	ret = ib_post_send(ch->qp, first_wr, NULL);
	if (ret) {
		srpt_set_cmd_state(sio, prev);
		srpt_sq_wrs_put(ch, 1 + sio->n_rdma);
		srpt_ch_info_ratelimited(ch, "posting response failed: %d\n",
					 ret);
	}
	return ret;
}

/**
 * srpt_rsp_post() - post the response held in the send buffer.
 * @sio: send context.
 * @len: response length in bytes.
 * @with_data: put the RDMA WRITEs of the read data in front of the SEND.
 * @state: state the command enters before the post (CMD_RSP_SENT or
 *	   MGMT_RSP_SENT); the previous state is restored on failure.
 *
 * Reserves 1 + n_rdma send queue entries, given back by srpt_send_done().
 * A response without data posts only its SEND, so n_rdma is cleared first
 * (the rw contexts of a command answered before its data moved, e.g. a
 * WRITE to a LUN that does not exist, need no WRs). No RDMA READ of the
 * command is outstanding here: responses are only sent in the states NEW,
 * DATA_IN and MGMT, and srpt_rdma_read_done() clears n_rdma before the
 * command leaves NEED_DATA.
 *
 * Always inline, like srpt_rsp_send(): gcc 14 (7.x) made it a call.
 *
 * Context: not under @sio->ch->rsp_lock (a failed post looks at the list
 * of deferred responses).
 * Return: 0; -EAGAIN if the send queue is full; another negative errno if
 * posting failed.
 */
static __always_inline int srpt_rsp_post(struct srpt_send_ioctx *sio,
					 int len, bool with_data,
					 enum srpt_command_state state)
{
	struct srpt_rdma_ch *ch = sio->ch;
	int ret;

	if (!with_data)
		sio->n_rdma = 0;
	if (!srpt_sq_wrs_get(ch, 1 + sio->n_rdma))
		return -EAGAIN;
	ret = srpt_rsp_send(sio, len, with_data, state);
	if (ret)
		srpt_rsp_list_kick(ch);
	return ret;
}

/* Credits granted by the next response: 1 plus the pending delta. */
static u32 srpt_credits_take(struct srpt_rdma_ch *ch)
{
	u32 delta = 1 + atomic_xchg(&ch->req_lim_delta, 0);

	atomic_add(delta, &ch->req_lim);
	atomic64_add(delta, &ch->stats.credits);
	return delta;
}

/*
 * Undo srpt_credits_take() for a response that was not sent. Out of line:
 * inlined into srpt_queue_response(), its counters' addresses were
 * computed and kept on the stack for every response.
 */
static noinline void srpt_credits_untake(struct srpt_rdma_ch *ch, u32 delta)
{
	atomic_sub(delta, &ch->req_lim);
	atomic_add(delta - 1, &ch->req_lim_delta);
	atomic64_sub(delta, &ch->stats.credits);
}

/*
 * Drop a response that was not posted: its credits go to a later response
 * and the command is freed (by LIO if it owns it).
 */
static void srpt_rsp_drop(struct srpt_send_ioctx *sio)
{
	struct srpt_rdma_ch *ch = sio->ch;

	srpt_credits_untake(ch, sio->rsp_delta);
	srpt_credit_return(ch);
	srpt_set_cmd_state(sio, SRPT_STATE_DONE);
	if (sio->local_rsp)
		srpt_put_send_ioctx(sio);
	else
		target_put_sess_cmd(&sio->cmd);
}

/*
 * Drop the responses srpt_rsp_list_run() could not post (errors, closed
 * list), outside @ch->rsp_lock: dropping frees commands.
 */
static void srpt_rsps_drop(struct srpt_rdma_ch *ch, struct list_head *dropped)
{
	struct srpt_send_ioctx *sio, *next;

	list_for_each_entry_safe(sio, next, dropped, rsp_entry) {
		list_del(&sio->rsp_entry);
		srpt_ch_dbg(ch, "dropping deferred response of tag %#llx\n",
			    sio->cmd.tag);
		srpt_rsp_drop(sio);
	}
}

/**
 * srpt_rsp_list_run() - post deferred responses while they fit.
 * @ch: channel; the caller holds @ch->rsp_lock.
 * @dropped: responses that must be dropped are moved here.
 * @deferring: called by srpt_rsp_defer() (only the debug hook cares).
 *
 * Oldest first. The head stays on the list until its send queue room is
 * reserved: whoever gives room back while it waits finds the list
 * non-empty and comes here after us. Only then is it unlinked (its
 * completion may free it as soon as it is posted) and posted. If the post
 * fails its room comes back at once and the loop goes on with the next
 * one. Once the release work has closed the list, everything on it is
 * dropped.
 */
static void srpt_rsp_list_run(struct srpt_rdma_ch *ch,
			      struct list_head *dropped, bool deferring)
{
	struct srpt_send_ioctx *sio;

	lockdep_assert_held(&ch->rsp_lock);
	while ((sio = list_first_entry_or_null(&ch->rsp_wait_list,
					       struct srpt_send_ioctx,
					       rsp_entry))) {
		if (ch->rsp_closed) {
			list_move_tail(&sio->rsp_entry, dropped);
			continue;
		}
		if (!srpt_sq_wrs_get(ch, 1 + sio->n_rdma)) {
			if (deferring)
				srpt_debug_spin(SRPT_DBG_DEFER_REQUEUE,
						&ch->sq_wr_avail);
			break;
		}
		list_del(&sio->rsp_entry);
		if (srpt_rsp_send(sio, sio->rsp_len, sio->rsp_with_data,
				  sio->rsp_state))
			list_add_tail(&sio->rsp_entry, dropped);
	}
}

/**
 * srpt_rsp_list_post() - the slow part of srpt_rsp_list_kick(): post what
 * waits on @ch->rsp_wait_list while it fits, drop what must be dropped.
 * @ch: channel.
 *
 * Context: any but under @ch->rsp_lock; takes it with interrupts disabled.
 */
void srpt_rsp_list_post(struct srpt_rdma_ch *ch)
{
	unsigned long flags;
	LIST_HEAD(dropped);

	spin_lock_irqsave(&ch->rsp_lock, flags);
	srpt_rsp_list_run(ch, &dropped, false);
	spin_unlock_irqrestore(&ch->rsp_lock, flags);
	srpt_rsps_drop(ch, &dropped);
}

/**
 * srpt_rsp_defer() - let a response wait for send queue room.
 * @sio: send context; its send buffer holds the response, which grants
 *	 @sio->rsp_delta credits; with @with_data its RDMA WRITEs are set up
 *	 (n_rdma of them), else n_rdma is 0.
 * @len: length of the response.
 * @with_data: post the RDMA WRITEs of the read data in front of it.
 * @state: state the command enters when the response is posted.
 *
 * For responses LIO cannot retry: those of commands it does not own or
 * no longer waits for, and those built where LIO's retry must not be
 * started (srpt_queue_response()). Send queue entries are only missing while
 * earlier WRs are outstanding, so a completion will give room back and post
 * it; the SRP credits bound how many responses can wait. The list is run
 * right away too, because those completions may all have come and gone
 * since srpt_rsp_post() found the queue full (see
 * srpt_rsp_list_kick() for why one of the two sides always sees the
 * response). If the release work has already closed the list, the
 * response is dropped at once.
 */
static void srpt_rsp_defer(struct srpt_send_ioctx *sio, int len,
			   bool with_data, enum srpt_command_state state)
{
	struct srpt_rdma_ch *ch = sio->ch;
	unsigned long flags;
	LIST_HEAD(dropped);

	sio->rsp_len = len;
	sio->rsp_with_data = with_data;
	sio->rsp_state = state;
	atomic64_inc(&ch->stats.sq_full);
	srpt_ch_warn_ratelimited(ch, "IB send queue full, response of tag %#llx deferred\n",
				 sio->cmd.tag);
	trace_srpt_sq_full(ch, sio->cmd.tag, SRPT_SQ_FULL_RSP_DEFER,
			   1 + sio->n_rdma);
	spin_lock_irqsave(&ch->rsp_lock, flags);
	list_add_tail(&sio->rsp_entry, &ch->rsp_wait_list);
	/* The response is on the list before the room is read. */
	smp_mb();
	srpt_rsp_list_run(ch, &dropped, true);
	spin_unlock_irqrestore(&ch->rsp_lock, flags);
	srpt_rsps_drop(ch, &dropped);
}

/**
 * srpt_rsp_list_close() - drop the deferred responses for good.
 * @ch: channel, at the start of its release work (its QP is in the error
 *	state, so nothing posted now would reach the initiator anyway), or a
 *	channel that never got a session.
 *
 * What is on the list is dropped, and so is, at once, every response
 * deferred later (srpt_rsp_defer()). Dropping a TMF response or the
 * response of a command without a device gives LIO its command back, so
 * the release work must do this before it waits for LIO's commands;
 * nothing is posted from the list after the drain marker either (see
 * struct srpt_rdma_ch, "Teardown").
 */
void srpt_rsp_list_close(struct srpt_rdma_ch *ch)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->rsp_lock, flags);
	ch->rsp_closed = true;
	spin_unlock_irqrestore(&ch->rsp_lock, flags);
	srpt_rsp_list_kick(ch);
}

/**
 * srpt_local_rsp_send() - answer a command or TMF LIO does not own.
 * @sio: send context (state NEW or MGMT).
 * @len: response length, already built in the send buffer with the
 *	 credits @delta, or a negative errno if building failed.
 * @delta: credits the response grants.
 *
 * If the response cannot be posted the context is freed right away and the
 * credit is carried by a later response.
 */
static void srpt_local_rsp_send(struct srpt_send_ioctx *sio, int len,
				u32 delta)
{
	enum srpt_command_state state = sio->state == SRPT_STATE_MGMT ?
		SRPT_STATE_MGMT_RSP_SENT : SRPT_STATE_CMD_RSP_SENT;
	int ret;

	sio->local_rsp = true;
	/* Nothing is transferred: the rw contexts need no send WRs. */
	sio->n_rdma = 0;
	sio->rsp_delta = delta;
	ret = len < 0 ? len : srpt_rsp_post(sio, len, false, state);
	if (ret == 0)
		return;
	if (ret == -EAGAIN)
		srpt_rsp_defer(sio, len, false, state);
	else
		srpt_rsp_drop(sio);
}

/**
 * srpt_local_cmd_rsp() - answer an SRP_CMD without LIO.
 * @sio: send context of the command (state NEW).
 * @tag: tag of the SRP_CMD.
 * @status: SCSI status.
 * @key: sense key, used if @status is CHECK CONDITION.
 * @asc: additional sense code, likewise.
 * @ascq: additional sense code qualifier, likewise.
 *
 * Sends @status, with fixed-format sense data for CHECK CONDITION.
 * The send completion frees @sio; if the response cannot be posted, @sio
 * is freed right away.
 */
void srpt_local_cmd_rsp(struct srpt_send_ioctx *sio, u64 tag, u8 status,
			u8 key, u8 asc, u8 ascq)
{
	struct srpt_rdma_ch *ch = sio->ch;
	struct srpt_rsp_info info = {};
	u8 sense[SRPT_FIXED_SENSE_LEN];
	int len;

	info.tag = tag;
	info.status = status;
	if (status == SAM_STAT_CHECK_CONDITION) {
		len = srpt_iu_build_sense(sense, sizeof(sense), key, asc,
					  ascq);
		info.sense = sense;
		info.sense_len = len > 0 ? len : 0;
	}
	info.req_lim_delta = srpt_credits_take(ch);
	len = srpt_iu_build_rsp(sio->ioctx.buf, ch->max_rsp_size,
				ch->max_ti_iu_len, &info);
	srpt_local_rsp_send(sio, len, info.req_lim_delta);
}

/**
 * srpt_local_tmf_rsp() - answer an SRP_TSK_MGMT with @code, without LIO.
 * @sio: send context of the TMF (state MGMT).
 * @tag: tag of the SRP_TSK_MGMT.
 * @code: SRP task management response code.
 *
 * The send completion frees @sio; if the response cannot be posted, @sio
 * is freed right away.
 */
void srpt_local_tmf_rsp(struct srpt_send_ioctx *sio, u64 tag, u8 code)
{
	struct srpt_rdma_ch *ch = sio->ch;
	u32 delta = srpt_credits_take(ch);
	int len;

	len = srpt_iu_build_tsk_mgmt_rsp(sio->ioctx.buf, ch->max_rsp_size,
					 ch->max_ti_iu_len, tag, delta, code);
	srpt_local_rsp_send(sio, len, delta);
}

/**
 * srpt_abort_cmd() - fail a command whose write data could not be fetched.
 * @sio: send context.
 */
static void srpt_abort_cmd(struct srpt_send_ioctx *sio)
{
	if (srpt_test_and_set_cmd_state(sio, SRPT_STATE_NEED_DATA,
					SRPT_STATE_DATA_IN))
		transport_generic_request_failure(&sio->cmd,
						  TCM_CHECK_CONDITION_ABORT_CMD);
	else
		pr_debug("abort of tag %#llx in state %d\n", sio->cmd.tag,
			 sio->state);
}

/**
 * srpt_rdma_read_done() - the write data of a command has arrived.
 * @cq: completion queue.
 * @wc: completion of the last RDMA READ of the command.
 *
 * Context: CQ context of the channel.
 */
static void srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = wc->qp->qp_context;
	struct srpt_send_ioctx *sio =
		container_of(wc->wr_cqe, struct srpt_send_ioctx, rdma_cqe);

	WARN_ON_ONCE(sio->n_rdma == 0);
	srpt_sq_wrs_put(ch, sio->n_rdma);
	sio->n_rdma = 0;
	srpt_rsp_list_kick(ch);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			atomic64_inc(&ch->stats.rdma_errors);
			srpt_ch_warn_ratelimited(ch, "RDMA READ of tag %#llx failed: %s\n",
						 sio->cmd.tag,
						 ib_wc_status_msg(wc->status));
		}
		srpt_abort_cmd(sio);
		return;
	}
	if (srpt_test_and_set_cmd_state(sio, SRPT_STATE_NEED_DATA,
					SRPT_STATE_DATA_IN))
		target_execute_cmd(&sio->cmd);
	else
		srpt_ch_err_ratelimited(ch, "RDMA READ of tag %#llx completed in state %d\n",
					sio->cmd.tag, sio->state);
}

/*
 * Post the RDMA READs of the write data of @sio as one chain, only the
 * last one signaled. Out of line: a command whose data came as immediate
 * data (ib_srp sends small writes so by default) pays neither the
 * frame nor the stack canary of this part.
 */
static noinline int srpt_rdma_read_post(struct srpt_send_ioctx *sio)
{
	struct srpt_rdma_ch *ch = sio->ch;
	struct ib_send_wr *first_wr = NULL;
	struct ib_cqe *cqe = &sio->rdma_cqe;
	enum srpt_command_state prev;
	int i, ret, n = sio->n_rdma;

	if (!srpt_sq_wrs_get(ch, n)) {
		srpt_ch_warn_ratelimited(ch, "IB send queue full (needed %d)\n",
					 n);
		trace_srpt_sq_full(ch, sio->cmd.tag, SRPT_SQ_FULL_READ_RETRY,
				   n);
		return -ENOMEM;
	}
	cqe->done = srpt_rdma_read_done;
	for (i = sio->n_rw_mapped - 1; i >= 0; i--) {
		first_wr = rdma_rw_ctx_wrs(&sio->rw_ctxs[i].rw, ch->qp,
					   ch->sport->port, cqe, first_wr);
		cqe = NULL;
	}
	prev = srpt_set_cmd_state(sio, SRPT_STATE_NEED_DATA);
	WARN_ON_ONCE(prev == SRPT_STATE_DONE);
	ret = ib_post_send(ch->qp, first_wr, NULL);
	if (ret) {
		srpt_set_cmd_state(sio, prev);
		srpt_sq_wrs_put(ch, n);
		srpt_rsp_list_kick(ch);
		srpt_ch_err_ratelimited(ch, "posting RDMA READ of tag %#llx failed: %d\n",
					sio->cmd.tag, ret);
	}
	return ret;
}

/**
 * srpt_write_pending() - fetch the write data of a command (LIO callback).
 * @cmd: the command.
 *
 * Immediate data is already there; otherwise all RDMA READs are posted as
 * one chain, only the last one signaled (srpt_rdma_read_post()).
 *
 * Return: 0; -ENOMEM if the send queue is full (LIO retries later);
 * another negative errno if posting failed.
 */
int srpt_write_pending(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *sio =
		container_of(cmd, struct srpt_send_ioctx, cmd);

	if (sio->recv_ioctx || !sio->n_rw_mapped) {
		srpt_set_cmd_state(sio, SRPT_STATE_DATA_IN);
		target_execute_cmd(cmd);
		return 0;
	}
	return srpt_rdma_read_post(sio);
}

/* SRP_RSP of a TMF: map the LIO response to an SRP response code. */
static u8 srpt_tmr_rsp_code(struct se_cmd *cmd)
{
	switch (cmd->se_tmr_req->response) {
	case TMR_FUNCTION_COMPLETE:
		return SRPT_TSK_MGMT_SUCCESS;
	case TMR_FUNCTION_REJECTED:
		return SRPT_TSK_MGMT_FUNC_NOT_SUPP;
	default:
		return SRPT_TSK_MGMT_FAILED;
	}
}

/*
 * The SRP_RSP of a command whose read data LIO produced could not be sent
 * (srpt_data_in_map() failed): ABORTED COMMAND / INSUFFICIENT RESOURCES,
 * with the whole data-in length as residual, whatever LIO's status was.
 * Out of line: its sense buffer would cost the common path a stack
 * canary and zeroing.
 */
static noinline int srpt_build_no_data_rsp(struct srpt_send_ioctx *sio,
					   u32 delta)
{
	struct srpt_rdma_ch *ch = sio->ch;
	struct srpt_rsp_info info = {};
	u8 sense[SRPT_FIXED_SENSE_LEN];
	int len;
	u32 i;

	info.tag = sio->cmd.tag;
	info.req_lim_delta = delta;
	info.status = SAM_STAT_CHECK_CONDITION;
	info.dir = SRPT_DIR_READ;
	info.underflow = true;
	for (i = 0; i < sio->n_rw_ctx; i++)
		info.residual += sio->rw_ctxs[i].len;
	len = srpt_iu_build_sense(sense, sizeof(sense), ABORTED_COMMAND,
				  0x55, 0x03);
	info.sense = sense;
	info.sense_len = len > 0 ? len : 0;
	return srpt_iu_build_rsp(sio->ioctx.buf, ch->max_rsp_size,
				 ch->max_ti_iu_len, &info);
}

/*
 * Build the SRP_RSP of a SCSI command LIO completed; with @no_data see
 * srpt_build_no_data_rsp(). Always inline: one caller, which gcc 12 and
 * 14 both called out of line.
 */
static __always_inline int srpt_build_cmd_rsp(struct srpt_send_ioctx *sio,
					      u32 delta, bool no_data)
{
	struct srpt_rdma_ch *ch = sio->ch;
	struct se_cmd *cmd = &sio->cmd;
	struct srpt_rsp_info info = {};
	int len;

	if (unlikely(no_data))
		return srpt_build_no_data_rsp(sio, delta);

	info.tag = cmd->tag;
	info.req_lim_delta = delta;
	info.status = cmd->scsi_status;
	WARN_ON_ONCE(info.status & 1);
	if (cmd->data_direction == DMA_TO_DEVICE)
		info.dir = SRPT_DIR_WRITE;
	else if (cmd->data_direction == DMA_FROM_DEVICE)
		info.dir = SRPT_DIR_READ;
	info.underflow = cmd->se_cmd_flags & SCF_UNDERFLOW_BIT;
	info.overflow = cmd->se_cmd_flags & SCF_OVERFLOW_BIT;
	info.residual = cmd->residual_count;
	if (cmd->scsi_sense_length) {
		u32 avail = min_t(u32, cmd->scsi_sense_length,
				  sizeof(sio->sense_data));

		info.sense = sio->sense_data;
		info.sense_len = srpt_iu_sense_len(sio->sense_data, avail);
	}
	len = srpt_iu_build_rsp(sio->ioctx.buf, ch->max_rsp_size,
				ch->max_ti_iu_len, &info);
	if (len >= 0 && len - (int)sizeof(struct srpt_rsp) <
	    (int)info.sense_len)
		srpt_ch_warn_ratelimited(ch, "sense data of tag %#llx truncated from %u to %d bytes\n",
					 cmd->tag, info.sense_len,
					 len - (int)sizeof(struct srpt_rsp));
	return len;
}

/**
 * enum srpt_rsp_retry - whether srpt_queue_response() may hand a response
 *	that finds the send queue full back to LIO (-EAGAIN).
 * @SRPT_RSP_WAIT: never; the response waits on the channel
 *	(srpt_rsp_defer()) like those LIO cannot retry.
 * @SRPT_RSP_RETRY: LIO called and may be asked to call again.
 * @SRPT_RSP_RETRY_IF_SLEEPS: LIO called and may be asked to call again if
 *	it called where we may sleep (srpt_compat_rsp_may_sleep()). That is
 *	asked only when the queue is full, in the same call: with direct
 *	completion (7.x) the answer costs every response a look at the
 *	preempt count and the interrupt flag.
 */
enum srpt_rsp_retry {
	SRPT_RSP_WAIT,
	SRPT_RSP_RETRY,
	SRPT_RSP_RETRY_IF_SLEEPS,
};

/* Whether a response that found the send queue full goes back to LIO. */
static bool srpt_rsp_lio_retries(enum srpt_rsp_retry retry)
{
	return retry == SRPT_RSP_RETRY ||
	       (retry == SRPT_RSP_RETRY_IF_SLEEPS &&
		srpt_compat_rsp_may_sleep());
}

/**
 * srpt_queue_response() - send the response of a command or TMF.
 * @cmd: the command.
 * @retry: whether LIO may be asked to call again (enum srpt_rsp_retry).
 *
 * Context: may sleep if the response carries read data whose RDMA WRITEs
 * are not set up yet (srpt_data_in_map()); any context otherwise.
 * Return: 0 if the response was posted, deferred or dropped; -EAGAIN
 * (only if @retry allows it) if the send queue is full and LIO should call
 * again later.
 */
static int srpt_queue_response(struct se_cmd *cmd, enum srpt_rsp_retry retry)
{
	struct srpt_send_ioctx *sio =
		container_of(cmd, struct srpt_send_ioctx, cmd);
	struct srpt_rdma_ch *ch = sio->ch;
	enum srpt_command_state state = READ_ONCE(sio->state);
	enum srpt_command_state new_state;
	bool with_data = false;
	u32 delta;
	int len, ret;

	switch (state) {
	case SRPT_STATE_NEW:
	case SRPT_STATE_DATA_IN:
		new_state = SRPT_STATE_CMD_RSP_SENT;
		break;
	case SRPT_STATE_MGMT:
		new_state = SRPT_STATE_MGMT_RSP_SENT;
		break;
	default:
		WARN_ONCE(1, "%s/%u %s: response for tag %#llx in state %d\n",
			  srpt_sdev_name(ch->sport->sdev), ch->sport->port,
			  ch->sess_name, cmd->tag, state);
		return 0;
	}

	delta = srpt_credits_take(ch);
	if (new_state == SRPT_STATE_MGMT_RSP_SENT) {
		len = srpt_iu_build_tsk_mgmt_rsp(sio->ioctx.buf,
						 ch->max_rsp_size,
						 ch->max_ti_iu_len, cmd->tag,
						 delta,
						 srpt_tmr_rsp_code(cmd));
	} else {
		bool no_data = false;

		/* Only the data_length bytes LIO produced are sent. */
		with_data = cmd->data_direction == DMA_FROM_DEVICE &&
			    cmd->data_length && !sio->queue_status_only;
		if (with_data && srpt_data_in_map(sio)) {
			with_data = false;
			no_data = true;
		}
		len = srpt_build_cmd_rsp(sio, delta, no_data);
	}
	ret = len < 0 ? len : srpt_rsp_post(sio, len, with_data, new_state);
	if (!ret)
		return 0;

	sio->rsp_delta = delta;
	/*
	 * Send queue full: let LIO retry. That needs the device of the
	 * command and a caller LIO may hand the retry to; responses of TMFs
	 * and of commands that never reached a LUN (no data), and those
	 * built in atomic context or on srpt_rsp_wq, wait on the channel
	 * instead.
	 */
	if (ret == -EAGAIN && new_state == SRPT_STATE_CMD_RSP_SENT &&
	    cmd->se_dev && srpt_rsp_lio_retries(retry)) {
		srpt_credits_untake(ch, delta);
		atomic64_inc(&ch->stats.sq_full);
		srpt_ch_warn_ratelimited(ch, "IB send queue full, response of tag %#llx retried\n",
					 cmd->tag);
		trace_srpt_sq_full(ch, cmd->tag, SRPT_SQ_FULL_RSP_RETRY,
				   1 + sio->n_rdma);
		return -EAGAIN;
	}
	if (ret == -EAGAIN) {
		srpt_rsp_defer(sio, len, with_data, new_state);
		return 0;
	}
	srpt_ch_warn_ratelimited(ch, "dropping response of tag %#llx: %d\n",
				 cmd->tag, ret);
	srpt_rsp_drop(sio);
	return 0;
}

/*
 * Responses with read data that LIO completed where we may not sleep,
 * module-owned so that module exit waits for the last of them
 * (srpt_rsp_exit()). Not the release workqueue: a release work waits for
 * these commands. Unbound: 7.x warns about a workqueue that says neither
 * WQ_PERCPU nor WQ_UNBOUND, and only 7.x has WQ_PERCPU.
 */
static struct workqueue_struct *srpt_rsp_wq;

/**
 * srpt_rsp_init() - create the workqueue of deferred data-in responses.
 *
 * Return: 0 or -ENOMEM.
 */
int srpt_rsp_init(void)
{
	srpt_rsp_wq = alloc_workqueue("srpt_rsp", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return srpt_rsp_wq ? 0 : -ENOMEM;
}

/**
 * srpt_rsp_exit() - wait for deferred data-in responses and destroy their
 * workqueue. Call at module exit once no channel is left.
 */
void srpt_rsp_exit(void)
{
	destroy_workqueue(srpt_rsp_wq);
	srpt_rsp_wq = NULL;
}

/*
 * The response of a command srpt_queue_data_in() could not answer where
 * LIO called it. LIO is done with @work (se_cmd.work) once it has
 * completed the command, and the command lives on: its acknowledgment
 * reference is dropped only with the response (posted, deferred or
 * dropped here).
 */
static void srpt_queue_data_in_work(struct work_struct *work)
{
	srpt_queue_response(container_of(work, struct se_cmd, work),
			    SRPT_RSP_WAIT);
}

/**
 * srpt_queue_data_in() - send read data and status (LIO callback).
 * @cmd: the command.
 *
 * With direct completion (7.x) LIO may call this from the backend's
 * completion, e.g. a hardirq, where setting up the RDMA WRITEs must not
 * run (rdma_rw_ctx_init() allocates with GFP_KERNEL) and where LIO's own
 * queue-full retry must not be started either (it takes a lock with
 * spin_lock_irq()). The response is then built on srpt_rsp_wq.
 *
 * Return: see srpt_queue_response().
 */
int srpt_queue_data_in(struct se_cmd *cmd)
{
	if (srpt_compat_rsp_may_sleep())
		return srpt_queue_response(cmd, SRPT_RSP_RETRY);
	INIT_WORK(&cmd->work, srpt_queue_data_in_work);
	queue_work(srpt_rsp_wq, &cmd->work);
	return 0;
}

/**
 * srpt_queue_status() - send status without data (LIO callback).
 * @cmd: the command.
 *
 * Nothing here sleeps, so with direct completion (7.x) the response is
 * posted from whatever context LIO calls in; only a full send queue is
 * handled differently there: the response waits on the channel instead
 * of being handed back to LIO (see srpt_queue_data_in()).
 *
 * Return: see srpt_queue_response().
 */
int srpt_queue_status(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *sio =
		container_of(cmd, struct srpt_send_ioctx, cmd);

	WARN_ON_ONCE(cmd->sense_buffer != sio->sense_data);
	WARN_ON_ONCE((cmd->se_cmd_flags &
		      (SCF_TRANSPORT_TASK_SENSE | SCF_EMULATED_TASK_SENSE)) &&
		     cmd->scsi_status != SAM_STAT_CHECK_CONDITION);
	sio->queue_status_only = true;
	return srpt_queue_response(cmd, SRPT_RSP_RETRY_IF_SLEEPS);
}

/**
 * srpt_queue_tm_rsp() - send the response of a TMF (LIO callback).
 * @cmd: the TMF command.
 */
void srpt_queue_tm_rsp(struct se_cmd *cmd)
{
	srpt_queue_response(cmd, SRPT_RSP_RETRY);
}

/**
 * srpt_aborted_task() - LIO aborted a command without a response.
 * @cmd: the command.
 *
 * The initiator's credit comes back with the next response.
 */
void srpt_aborted_task(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *sio =
		container_of(cmd, struct srpt_send_ioctx, cmd);

	srpt_credit_return(sio->ch);
}

/**
 * srpt_check_stop_free() - drop the fabric acknowledgment reference.
 * @cmd: the command.
 *
 * Return: the target_put_sess_cmd() result.
 */
int srpt_check_stop_free(struct se_cmd *cmd)
{
	return target_put_sess_cmd(cmd);
}

/**
 * srpt_get_tcm_cmd_state() - command state for LIO debug output.
 * @cmd: the command.
 *
 * Return: enum srpt_command_state value.
 */
int srpt_get_tcm_cmd_state(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *sio =
		container_of(cmd, struct srpt_send_ioctx, cmd);

	return sio->state;
}
