// SPDX-License-Identifier: GPL-2.0
/*
 * cmd.c - the ends of a command's life on the I/O path: receiving
 * information units and dispatching them, the wait list, handing SCSI
 * commands and task management functions to LIO, and the two places where
 * a command's send context comes free and waiting IUs may go on: the send
 * completion of its response (srpt_send_done()) and LIO's release_cmd
 * (docs/design.md, "I/O path"). Send contexts, data buffers and RDMA
 * contexts are in ioctx.c (srpt_io.h for the inline parts); data transfer
 * and responses are in rsp.c.
 *
 * Call direction: cmd.c calls rsp.c (driver-built responses, deferred
 * responses), never the other way. rsp.c gets back to a command only
 * through the completion handler of the response it posts, srpt_send_done(),
 * which the channel installs in every send context when it allocates the
 * ring (srpt_alloc_send_ring()); so the file graph of the I/O path has no
 * cycle (docs/design.md, "Source files").
 *
 * Contexts: receive, send, RDMA READ and zero-length-write completions of a
 * channel all run on the channel's CQ (IB_POLL_WORKQUEUE), so they are
 * serialized. LIO callbacks run in LIO's own work items and may race with
 * the completions of the same command only where the command state
 * machine says so (docs/design.md, "Command state machine").
 *
 * The wait list: IUs are handled in arrival order by one caller at a time
 * (SRPT_WAIT_BUSY in ch->wait_state). A received IU is handled at once when
 * nothing waits and nobody else handles IUs; otherwise it is appended to
 * ch->cmd_wait_list, which is handled from its head. The caller is the CQ
 * work (a receive or send completion, the zero-length write after the
 * RTU) or ch->wait_work, queued when LIO releases a command outside the
 * CQ work (an aborted command). An IU that cannot be handled yet (channel
 * connecting, no free send context) stays at the head, so IUs are started in
 * arrival order. ch->wait_state (BUSY, AGAIN, CLOSED) is changed with
 * atomic operations, so that a command that finds nothing waiting takes
 * no lock; ch->wait_lock serializes the changes of the list and is never
 * held while an IU is handled, nor across a function boundary; the
 * release work closes the list (srpt_wait_list_close()) before it drains
 * the QP.
 *
 * Where this differs from the in-kernel driver (docs/design.md, "Where we
 * differ from the in-kernel driver and why"):
 *  - a malformed SRP_CMD, a command whose resources cannot be allocated and
 *    a command or TMF LIO refuses (session shutting down) are answered by
 *    the driver itself with an SRP_RSP (CHECK CONDITION, BUSY or TMF
 *    FAILED) built without touching an uninitialised se_cmd or a freed
 *    se_tmr_req; the send completion then frees the send context;
 *  - every IU that used a credit returns it: IUs that get no response add
 *    it to req_lim_delta, so it rides on the next SRP_RSP; SRP_CRED_RSP and
 *    SRP_AER_RSP use none and return none (srpt_iu_uses_credit());
 *  - an IU too short to carry its tag is dropped (srpt_recv_drop_short()),
 *    and no tag is ever read beyond the bytes received;
 *  - the SRP task attribute is passed to LIO;
 *  - the RDMA WRITEs of read data are set up when the response is queued
 *    and cover only the bytes LIO produced, not the whole descriptor
 *    (srpt_data_in_map());
 *  - the data buffers one channel holds are bounded (srpt_charge_data()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>

#include "srpt.h"
#include "srpt_debug.h"
#include "srpt_io.h"
#include "srpt_iu.h"
#include "srpt_trace.h"

/* Map the SRP task attribute to the LIO one (ORDERED for unknown ones). */
static int srpt_task_attr(u8 attr)
{
	switch (attr & 7) {
	case SRPT_CMD_SIMPLE_Q:
		return TCM_SIMPLE_TAG;
	case SRPT_CMD_HEAD_OF_Q:
		return TCM_HEAD_TAG;
	case SRPT_CMD_ACA:
		return TCM_ACA_TAG;
	default:
		return TCM_ORDERED_TAG;
	}
}

/* DMA direction of the data of a parsed SRP_CMD. */
static enum dma_data_direction srpt_cmd_dma_dir(const struct srpt_cmd_desc *desc)
{
	switch (desc->dir) {
	case SRPT_DIR_READ:
		return DMA_FROM_DEVICE;
	case SRPT_DIR_WRITE:
		return DMA_TO_DEVICE;
	default:
		return DMA_NONE;
	}
}

/**
 * srpt_cmd_data() - set up the data buffer of a parsed SRP_CMD.
 * @ch: channel.
 * @rio: receive context holding the IU.
 * @sio: send context of the command.
 * @desc: the parsed data descriptors.
 * @sg: set to the scatterlist handed to LIO (NULL without data).
 * @sg_cnt: set to its number of entries.
 *
 * Immediate data stays in the receive buffer, which the command then
 * borrows until it is freed. Otherwise an rw context is allocated for each
 * descriptor; a command whose transfers could never fit in the send queue
 * is refused here.
 *
 * Return: 0, or a negative errno after the driver answered the command
 * itself (TASK SET FULL, BUSY or CHECK CONDITION); the caller stops then.
 */
static int srpt_cmd_data(struct srpt_rdma_ch *ch, struct srpt_recv_ioctx *rio,
			 struct srpt_send_ioctx *sio,
			 const struct srpt_cmd_desc *desc,
			 struct scatterlist **sg, u32 *sg_cnt)
{
	struct srpt_cmd *srp_cmd = rio->ioctx.buf + rio->ioctx.offset;
	u64 tag = sio->cmd.tag;
	int ret;

	/* @sg and @sg_cnt are set once on each way */
	if (desc->fmt == SRPT_DATA_DESC_IMM && desc->data_len) {
		sio->recv_ioctx = rio;
		sg_init_one(&sio->imm_sg, (u8 *)srp_cmd + desc->imm_off,
			    desc->data_len);
		*sg = &sio->imm_sg;
		*sg_cnt = 1;
		return 0;
	}
	if (!desc->nbufs) {
		*sg = NULL;
		*sg_cnt = 0;
		return 0;
	}

	/*
	 * Lets tests see which descriptor format ib_srp chose (305-io-limits
	 * turns it on by this function's name).
	 */
	if (desc->fmt == SRPT_DATA_DESC_INDIRECT)
		srpt_ch_dbg(ch, "tag %#llx: indirect table, %u descriptors, %u bytes\n",
			    tag, desc->nbufs, desc->data_len);
	ret = srpt_alloc_rw_ctxs(sio, srp_cmd, desc, sg, sg_cnt);
	if (ret == -EBUSY) {
		srpt_ch_dbg(ch, "tag %#llx: channel data budget exhausted (%u bytes)\n",
			    tag, desc->data_len);
		srpt_local_cmd_rsp(sio, tag, SAM_STAT_TASK_SET_FULL, 0, 0, 0);
		return ret;
	}
	if (ret) {
		srpt_ch_info_ratelimited(ch, "no resources for tag %#llx: %d\n",
					 tag, ret);
		srpt_local_cmd_rsp(sio, tag, SAM_STAT_BUSY, 0, 0, 0);
		return ret;
	}
	/* Data-in is mapped and checked in srpt_data_in_map(). */
	if (1 + sio->n_rdma > srpt_sq_capacity(ch)) {
		srpt_ch_warn_ratelimited(ch, "tag %#llx needs %u send WRs, the send queue holds %u\n",
					 tag, 1 + sio->n_rdma,
					 srpt_sq_capacity(ch));
		srpt_free_rw_ctxs(sio, sio->n_rw_ctx);
		/* ABORTED COMMAND, INSUFFICIENT RESOURCES */
		srpt_local_cmd_rsp(sio, tag, SAM_STAT_CHECK_CONDITION,
				   ABORTED_COMMAND, 0x55, 0x03);
		return -ENOSPC;
	}
	return 0;
}

/* Count a well-formed SRP_CMD; see struct srpt_ch_stats for the rule. */
static void srpt_cmd_count(struct srpt_rdma_ch *ch,
			   const struct srpt_cmd_desc *desc)
{
	struct srpt_ch_stats *s = &ch->stats;

	switch (desc->dir) {
	case SRPT_DIR_READ:
		srpt_stat_add(&s->cmds_read, 1);
		srpt_stat_add(&s->bytes_read, desc->data_len);
		break;
	case SRPT_DIR_WRITE:
		srpt_stat_add(&s->cmds_write, 1);
		srpt_stat_add(&s->bytes_write, desc->data_len);
		break;
	default:
		srpt_stat_add(&s->cmds_none, 1);
		break;
	}
}

/**
 * srpt_handle_cmd() - start an SRP_CMD.
 * @ch: channel.
 * @rio: receive context holding the IU.
 * @byte_len: bytes received (@rio->byte_len, at least
 *	      SRPT_MIN_TAGGED_IU_LEN).
 * @sio: send context allocated for it.
 *
 * Parses the IU, sets up its data (srpt_cmd_data()) and submits it to LIO.
 * A malformed IU gets CHECK CONDITION, INVALID FIELD IN COMMAND
 * INFORMATION UNIT; a command LIO refuses gets BUSY.
 *
 * Always inline: every SRP_CMD runs it, and a frame of its own with a stack
 * canary costs a write about 35 instructions.
 *
 * Return: true if the receive buffer was lent to the command (immediate
 * data) and must not be reposted now.
 */
static __always_inline bool srpt_handle_cmd(struct srpt_rdma_ch *ch,
					    struct srpt_recv_ioctx *rio,
					    u32 byte_len,
					    struct srpt_send_ioctx *sio)
{
	struct srpt_cmd *srp_cmd = rio->ioctx.buf + rio->ioctx.offset;
	struct se_cmd *cmd = &sio->cmd;
	/*
	 * __uninitialized: not zeroed by CONFIG_INIT_STACK_ALL_ZERO (Debian's
	 * kernels). The parser fills @desc completely and srpt_cmd_data()
	 * sets @sg and @sg_cnt before anything reads them (the
	 * compiler's zeroing came on top of the parser's).
	 */
	struct srpt_cmd_desc desc __uninitialized;
	struct scatterlist *sg __uninitialized;
	u32 sg_cnt __uninitialized;
	int ret;

	/*
	 * srpt_recv_try() dropped IUs too short to carry a tag; @byte_len is
	 * the length it checked, so the compiler sees that this cannot fire.
	 */
	if (WARN_ON_ONCE(srpt_iu_tag(srp_cmd, byte_len, &cmd->tag)))
		cmd->tag = 0;
	ret = srpt_iu_parse_cmd(srp_cmd, byte_len, srp_max_req_size,
				ch->imm_data_offset, &desc);
	/*
	 * The CDB must fit in the bytes the IU gives it. desc.cdb_len is at
	 * least 16 and a CDB of any other group is at most 16 bytes long
	 * (COMMAND_SIZE()), so only a variable-length CDB can be longer: the
	 * same check as scsi_command_size() > desc.cdb_len, without its
	 * table look-up for every command.
	 */
	if (!ret && unlikely(srp_cmd->cdb[0] == VARIABLE_LENGTH_CMD) &&
	    scsi_varlen_cdb_length(srp_cmd->cdb) > desc.cdb_len)
		ret = -EINVAL;
	if (ret) {
		srpt_ch_warn_ratelimited(ch, "malformed SRP_CMD (tag %#llx, %u bytes): %d\n",
					 cmd->tag, byte_len, ret);
		/* INVALID FIELD IN COMMAND INFORMATION UNIT */
		srpt_local_cmd_rsp(sio, cmd->tag, SAM_STAT_CHECK_CONDITION,
				   ILLEGAL_REQUEST, 0x0e, 0x03);
		return false;
	}

	trace_srpt_cmd_start(ch, srp_cmd, cmd->tag, &desc);
	cmd->data_direction = srpt_cmd_dma_dir(&desc);
	srpt_cmd_count(ch, &desc);
	if (srpt_cmd_data(ch, rio, sio, &desc, &sg, &sg_cnt))
		return false;

	ret = srpt_compat_submit_cmd(cmd, ch->sess, srp_cmd->cdb,
				     sio->sense_data,
				     scsilun_to_int((struct scsi_lun *)srp_cmd->lun),
				     desc.data_len,
				     srpt_task_attr(srp_cmd->task_attr),
				     cmd->data_direction,
				     TARGET_SCF_ACK_KREF, sg, sg_cnt,
				     GFP_KERNEL);
	if (ret) {
		/* LIO refused the command; it is still ours. */
		srpt_ch_dbg(ch, "submitting tag %#llx failed: %d\n", cmd->tag,
			    ret);
		srpt_set_cmd_state(sio, SRPT_STATE_NEW);
		srpt_local_cmd_rsp(sio, cmd->tag, SAM_STAT_BUSY, 0, 0, 0);
	}
	/* an immediate-data command borrows its receive buffer */
	return desc.fmt == SRPT_DATA_DESC_IMM && desc.data_len;
}

/* Map an SRP task management function to the LIO one. */
static int srpt_tmr_func(u8 fn)
{
	switch (fn) {
	case SRPT_TSK_ABORT_TASK:
		return TMR_ABORT_TASK;
	case SRPT_TSK_ABORT_TASK_SET:
		return TMR_ABORT_TASK_SET;
	case SRPT_TSK_CLEAR_TASK_SET:
		return TMR_CLEAR_TASK_SET;
	case SRPT_TSK_LUN_RESET:
		return TMR_LUN_RESET;
	case SRPT_TSK_CLEAR_ACA:
		return TMR_CLEAR_ACA;
	default:
		return -1;	/* LIO answers FUNCTION REJECTED */
	}
}

/**
 * srpt_handle_tsk_mgmt() - start an SRP_TSK_MGMT.
 * @ch: channel.
 * @rio: receive context holding the IU.
 * @sio: send context allocated for it.
 */
static void srpt_handle_tsk_mgmt(struct srpt_rdma_ch *ch,
				 struct srpt_recv_ioctx *rio,
				 struct srpt_send_ioctx *sio)
{
	struct srpt_tsk_mgmt *tsk = rio->ioctx.buf + rio->ioctx.offset;
	u64 tag;
	int ret;

	/* srpt_recv_try() dropped IUs too short to carry a tag. */
	if (WARN_ON_ONCE(srpt_iu_tag(tsk, rio->byte_len, &tag)))
		tag = 0;
	srpt_set_cmd_state(sio, SRPT_STATE_MGMT);
	sio->cmd.tag = tag;
	ret = srpt_iu_check_tsk_mgmt(tsk, rio->byte_len);
	trace_srpt_tmf_start(ch, tsk, tag, ret);
	if (ret) {
		srpt_ch_warn_ratelimited(ch, "truncated SRP_TSK_MGMT (%u bytes)\n",
					 rio->byte_len);
		srpt_local_tmf_rsp(sio, tag, SRPT_TSK_MGMT_FAILED);
		return;
	}
	srpt_stat_add(&ch->stats.tmf[srpt_tmf_kind(tsk->tsk_mgmt_func)], 1);
	ret = target_submit_tmr(&sio->cmd, ch->sess, NULL,
				scsilun_to_int((struct scsi_lun *)tsk->lun),
				sio, srpt_tmr_func(tsk->tsk_mgmt_func),
				GFP_KERNEL, tsk->task_tag,
				TARGET_SCF_ACK_KREF);
	if (ret) {
		/* se_tmr_req may be NULL or freed: do not touch it. */
		srpt_ch_dbg(ch, "submitting TMF %#x failed: %d\n",
			    tsk->tsk_mgmt_func, ret);
		srpt_local_tmf_rsp(sio, tag, SRPT_TSK_MGMT_FAILED);
	}
}

/**
 * srpt_recv_drop_short() - discard an IU too short to carry its tag.
 * @ch: channel it arrived on.
 * @rio: receive context.
 * @opcode: its opcode, negative for a 0-byte IU.
 *
 * An IU of fewer than SRPT_MIN_TAGGED_IU_LEN bytes cannot be answered:
 * any response needs the request's tag, and the bytes where the tag would
 * be are what an earlier IU left in the buffer (with an SRQ possibly one
 * of another initiator). Such an IU is dropped without a response; it is
 * counted and logged (rate-limited), and its credit, if it used one (see
 * srpt_iu_uses_credit()), comes back with the next SRP_RSP. The channel is
 * not disconnected: the IU had no effect, and an initiator that waits for
 * an answer times out and recovers as it would after any lost request.
 * IUs that carry a tag but are shorter than the fixed part of their
 * opcode are answered with that tag (srpt_handle_cmd(),
 * srpt_handle_tsk_mgmt()).
 *
 * Context: the channel's CQ context.
 */
static void srpt_recv_drop_short(struct srpt_rdma_ch *ch,
				 struct srpt_recv_ioctx *rio, int opcode)
{
	ch->short_ius++;
	srpt_ch_warn_ratelimited(ch, "dropped an IU of %u bytes (opcode %d), too short to carry a tag (%u on this channel)\n",
				 rio->byte_len, opcode, ch->short_ius);
	if (srpt_iu_uses_credit(opcode))
		srpt_credit_return(ch);
}

/**
 * srpt_recv_try() - handle one received information unit if possible.
 * @ch: channel it arrived on.
 * @rio: receive context, already taken off the wait list.
 *
 * Always inline, like srpt_handle_cmd(): one frame for the whole receive
 * side of a command.
 *
 * Context: srpt_wait_list_run(), the only caller.
 * Return: false if the IU has to wait (channel still connecting or no free
 * send context; nothing was done); true if it was consumed (its buffer is reposted
 * or lent to the command).
 */
static __always_inline bool srpt_recv_try(struct srpt_rdma_ch *ch,
					  struct srpt_recv_ioctx *rio)
{
	struct srpt_send_ioctx *sio = NULL;
	bool lent = false;
	u32 byte_len;
	void *iu;
	int opcode;

	if (unlikely(READ_ONCE(ch->state) == CH_CONNECTING))
		return false;

	iu = rio->ioctx.buf + rio->ioctx.offset;
	byte_len = rio->byte_len;
	opcode = srpt_iu_opcode(iu, byte_len);
	if (unlikely(byte_len < SRPT_MIN_TAGGED_IU_LEN)) {
		srpt_recv_drop_short(ch, rio, opcode);
		opcode = -EMSGSIZE;
	} else if (opcode == SRPT_OP_CMD || opcode == SRPT_OP_TSK_MGMT) {
		if (unlikely(!ch->sess)) {
			srpt_ch_warn_ratelimited(ch, "IU without a session\n");
			opcode = -ENOTCONN;
		} else {
			sio = srpt_get_send_ioctx(ch);
			if (unlikely(!sio))
				return false;
		}
	}

	switch (opcode) {
	case SRPT_OP_CMD:
		lent = srpt_handle_cmd(ch, rio, byte_len, sio);
		break;
	case SRPT_OP_TSK_MGMT:
		srpt_handle_tsk_mgmt(ch, rio, sio);
		break;
	case SRPT_OP_I_LOGOUT:
		srpt_ch_err_ratelimited(ch, "SRP_I_LOGOUT is not supported\n");
		srpt_credit_return(ch);
		break;
	case SRPT_OP_CRED_RSP:
	case SRPT_OP_AER_RSP:
		/* Sent without a credit: none to give back. */
		srpt_ch_dbg(ch, "received IU with opcode %#x\n", opcode);
		break;
	case -EMSGSIZE:
		/* srpt_recv_drop_short() gave the credit back if one was used. */
		break;
	default:
		srpt_ch_err_ratelimited(ch, "unexpected IU with opcode %#x (%u bytes)\n",
					opcode, rio->byte_len);
		srpt_credit_return(ch);
		break;
	}
	if (!lent)
		srpt_recv_repost(ch, rio);
	return true;
}

/*
 * An IU that will never be handled (the wait list is closed): a buffer of
 * the device's SRQ goes back to the SRQ, which other channels share; a
 * buffer of the channel's own ring is freed with the ring.
 */
static void srpt_recv_drop(struct srpt_rdma_ch *ch, struct srpt_recv_ioctx *rio)
{
	struct srpt_device *sdev = ch->sport->sdev;
	int ret;

	if (ch->ioctx_recv_ring)
		return;
	ret = srpt_post_recv(sdev, NULL, rio);
	if (ret)
		srpt_ch_info_ratelimited(ch, "returning an SRQ buffer failed: %d\n",
					 ret);
}

/*
 * srpt_wait_list_pop() - take the oldest waiting IU off the list.
 * Called with @ch->wait_lock held; the IU is off the list while it is
 * handled: once reposted, its buffer may complete again and be appended
 * by srpt_recv_done().
 */
static struct srpt_recv_ioctx *srpt_wait_list_pop(struct srpt_rdma_ch *ch)
{
	struct srpt_recv_ioctx *rio;

	rio = list_first_entry_or_null(&ch->cmd_wait_list,
				       struct srpt_recv_ioctx, wait_list);
	if (rio)
		list_del_init(&rio->wait_list);
	return rio;
}

/*
 * srpt_wait_own() - become the one caller that handles IUs (set BUSY in
 * @ch->wait_state). If another caller is handling IUs, it is told to look
 * at the list once more before it stops (AGAIN) instead.
 * Return: true if the caller now handles IUs; false if another one does or
 * the list is closed. Fully ordered.
 */
static bool srpt_wait_own(struct srpt_rdma_ch *ch)
{
	int old = atomic_read(&ch->wait_state);

	for (;;) {
		if (old & SRPT_WAIT_CLOSED)
			return false;
		if (old & SRPT_WAIT_BUSY) {
			if (atomic_try_cmpxchg(&ch->wait_state, &old,
					       old | SRPT_WAIT_AGAIN))
				return false;
		} else if (atomic_try_cmpxchg(&ch->wait_state, &old,
					      SRPT_WAIT_BUSY)) {
			return true;
		}
	}
}

/* The rest of srpt_wait_release(), when AGAIN or CLOSED is set in @old. */
static noinline bool srpt_wait_release_flags(struct srpt_rdma_ch *ch, int old)
{
	if (old & SRPT_WAIT_CLOSED) {
		atomic_fetch_andnot(SRPT_WAIT_BUSY | SRPT_WAIT_AGAIN,
				    &ch->wait_state);
		wake_up_var(&ch->wait_state);
		return true;
	}
	atomic_fetch_andnot(SRPT_WAIT_AGAIN, &ch->wait_state);
	return false;
}

/*
 * srpt_wait_release() - stop handling IUs, unless told to look again.
 * Return: true if BUSY is clear now (and srpt_wait_list_close(), if the
 * list is closed, woken); false if AGAIN was set: it is cleared and the
 * caller must look at the list once more. Fully ordered, so that the
 * caller's next look sees what the one who set AGAIN did before. Always
 * inline: every IU ends here, almost always with BUSY alone set (one
 * compare-and-exchange).
 */
static __always_inline bool srpt_wait_release(struct srpt_rdma_ch *ch)
{
	int old = SRPT_WAIT_BUSY;

	if (likely(atomic_try_cmpxchg(&ch->wait_state, &old, 0)))
		return true;
	return srpt_wait_release_flags(ch, old);
}

/**
 * srpt_wait_list_run() - handle IUs as the one caller that holds BUSY.
 * @ch: channel; the caller has set SRPT_WAIT_BUSY in @ch->wait_state.
 * @rio: the first IU to handle, not on the list; NULL to start with the
 *	 head of the list.
 * @alone: @rio is not NULL and the list was empty when the caller, the
 *	   CQ context, set BUSY (srpt_recv_done()'s common case). Only the
 *	   CQ context appends to the list and only the holder of BUSY takes
 *	   from it, so it is still empty once @rio is handled: BUSY is then
 *	   cleared without looking at the list again.
 *
 * Handles @rio, then the list from its head. Stops when the list is
 * empty, at the first IU that cannot be handled yet (it goes back to the
 * head, and is tried once more if AGAIN was set meanwhile) and when the
 * list is closed; then clears BUSY (srpt_wait_release()). The list is only
 * ever changed under @ch->wait_lock, which is taken and released here,
 * never held across a call (sparse checks the lock context on PREEMPT_RT
 * kernels too, whose rt_spin_lock() carries no annotation).
 *
 * Context: process context (CQ work or ch->wait_work); handling an IU may
 * sleep.
 */
static void srpt_wait_list_run(struct srpt_rdma_ch *ch,
			       struct srpt_recv_ioctx *rio, bool alone)
{
	unsigned long flags;

	for (;;) {
		if (rio && unlikely(!srpt_recv_try(ch, rio))) {
			/* Back to the head: later IUs were only appended. */
			spin_lock_irqsave(&ch->wait_lock, flags);
			list_add(&rio->wait_list, &ch->cmd_wait_list);
			spin_unlock_irqrestore(&ch->wait_lock, flags);
			/* a freed send context or the live channel set AGAIN: retry */
			if (srpt_wait_release(ch))
				return;
		} else if (alone && likely(srpt_wait_release(ch))) {
			/* the list is still empty: see @alone */
			return;
		}
		alone = false;
		rio = NULL;
		if (!(atomic_read(&ch->wait_state) & SRPT_WAIT_CLOSED) &&
		    !list_empty_careful(&ch->cmd_wait_list)) {
			spin_lock_irqsave(&ch->wait_lock, flags);
			rio = srpt_wait_list_pop(ch);
			spin_unlock_irqrestore(&ch->wait_lock, flags);
		}
		if (!rio && srpt_wait_release(ch))
			return;
	}
}

/**
 * srpt_recv_enqueue() - a received IU that cannot be handled at once.
 * @ch: channel.
 * @rio: receive context of the IU.
 * @owner: the caller set SRPT_WAIT_BUSY, but IUs wait: @rio goes behind
 *	   them and the list is handled from its head. Otherwise another
 *	   caller handles IUs (@rio is appended and that caller told to
 *	   look again) or the list is closed (@rio is dropped).
 *
 * Out of line: with it the common case of srpt_recv_done() needs neither
 * the lock nor the registers for it.
 *
 * Context: CQ context of the channel.
 */
static noinline void srpt_recv_enqueue(struct srpt_rdma_ch *ch,
				       struct srpt_recv_ioctx *rio, bool owner)
{
	unsigned long flags;
	bool closed;

	if (owner) {
		/* behind the IUs that wait */
		spin_lock_irqsave(&ch->wait_lock, flags);
		list_add_tail(&rio->wait_list, &ch->cmd_wait_list);
		rio = srpt_wait_list_pop(ch);
		spin_unlock_irqrestore(&ch->wait_lock, flags);
		srpt_wait_list_run(ch, rio, false);
		return;
	}

	/* Another caller handles IUs, or the list is closed. */
	spin_lock_irqsave(&ch->wait_lock, flags);
	closed = atomic_read(&ch->wait_state) & SRPT_WAIT_CLOSED;
	if (!closed)
		list_add_tail(&rio->wait_list, &ch->cmd_wait_list);
	spin_unlock_irqrestore(&ch->wait_lock, flags);
	if (unlikely(closed))
		srpt_recv_drop(ch, rio);
	else if (srpt_wait_own(ch))
		srpt_wait_list_run(ch, NULL, false);
}

/*
 * A receive that failed. Out of line: the repost below would cost every
 * successful receive a stack frame with a canary.
 *
 * A flush of an SRQ buffer may come after its channel, and even its QP,
 * have been freed: a QP can take an SRQ buffer (the first packet of a
 * message) and complete it with a flush when it goes to the error state,
 * and when an HCA never raises Last WQE Reached, the release work cannot
 * know when that flush has come (srpt_ch_drain_qp()). Such a completion
 * carries a stale wc->qp: it is given back to the SRQ through the buffer's
 * own HCA pointer and nothing else is looked at. Other errors come from a
 * QP still in use (they are what moves it to the error state), before any
 * drain marker, so the channel can be charged with them.
 */
static noinline void srpt_recv_failed(struct srpt_recv_ioctx *rio,
				      struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch;
	int ret;

	if (wc->status != IB_WC_WR_FLUSH_ERR) {
		ch = wc->qp->qp_context;
		atomic64_inc(&ch->stats.recv_errors);
		srpt_ch_warn_ratelimited(ch, "receive failed: %s\n",
					 ib_wc_status_msg(wc->status));
	}
	/*
	 * A buffer of the device's SRQ is the SRQ's, not the channel's: give
	 * it back, or each receive that fails (an IU larger than the buffer:
	 * a length error) shrinks the queue all channels of the HCA share,
	 * for good. A buffer of the channel's own ring is freed with the
	 * ring; its QP is in the error state now.
	 */
	if (!rio->srq_sdev)
		return;
	ret = srpt_post_recv(rio->srq_sdev, NULL, rio);
	if (ret)
		pr_info_ratelimited("reposting an SRQ receive buffer failed: %d\n",
				    ret);
}

/**
 * srpt_recv_over_credit() - an IU that used a credit the initiator did not
 * have.
 * @ch: channel.
 * @rio: receive context of the IU.
 *
 * Every credit granted stands for a receive buffer the IU may use (the
 * channel's own ring, or its share of the SRQ: the grants of all channels
 * of an HCA add up to at most srpt_srq_size). On its own ring the initiator
 * cannot get beyond its buffers, so the IU is handled and only logged. On
 * the SRQ each IU past the grant would keep one of the buffers all channels
 * of the HCA receive into until a send context frees up; an initiator that
 * stalls its responses and keeps sending would empty the SRQ and stop every
 * other channel. So the buffer goes straight back to the SRQ and the
 * channel is closed: the initiator broke the protocol.
 *
 * Context: CQ context of the channel.
 * Return: true if @rio was given back and must not be handled.
 */
static noinline bool srpt_recv_over_credit(struct srpt_rdma_ch *ch,
					   struct srpt_recv_ioctx *rio)
{
	bool own_ring = !!ch->ioctx_recv_ring;

	srpt_ch_err_ratelimited(ch, "initiator exceeded its credits (%d)%s\n",
				atomic_read(&ch->req_lim),
				own_ring ? "" : " on the SRQ; closing the channel");
	if (own_ring)
		return false;
	atomic_inc(&ch->req_lim);
	srpt_recv_drop(ch, rio);
	srpt_close_ch(ch);
	return true;
}

/**
 * srpt_recv_done() - receive completion handler.
 * @cq: completion queue.
 * @wc: work completion of a receive posted by srpt_post_recv().
 *
 * Handles the IU right away if no IU is waiting and no other caller is
 * handling IUs (one compare-and-exchange of @ch->wait_state, no lock);
 * otherwise appends it to the wait list, behind the IUs that wait, and
 * processes the list or tells the caller that handles IUs to look again.
 *
 * Context: CQ context of the channel.
 */
void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_recv_ioctx *rio =
		container_of(wc->wr_cqe, struct srpt_recv_ioctx, ioctx.cqe);
	struct srpt_rdma_ch *ch;
	struct srpt_device *sdev;
	int req_lim, idle = 0;

	if (srpt_debug_hold_recv(cq, wc))
		return;
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		/* before anything of wc->qp is looked at: see there */
		srpt_recv_failed(rio, wc);
		return;
	}
	ch = wc->qp->qp_context;
	sdev = ch->sport->sdev;
	rio->byte_len = wc->byte_len;
	ib_dma_sync_single_for_cpu(sdev->device, rio->ioctx.dma,
				   rio->ioctx.offset + srp_max_req_size,
				   DMA_FROM_DEVICE);
	if (srpt_iu_uses_credit(srpt_iu_opcode(rio->ioctx.buf +
					       rio->ioctx.offset,
					       rio->byte_len))) {
		req_lim = atomic_dec_return(&ch->req_lim);
		if (unlikely(req_lim < 0) && srpt_recv_over_credit(ch, rio))
			return;
	}
	WARN_ON_ONCE(!list_empty(&rio->wait_list));

	if (likely(atomic_try_cmpxchg(&ch->wait_state, &idle,
				      SRPT_WAIT_BUSY))) {
		/*
		 * Nobody else handles IUs, and only this CQ context appends
		 * to the list: it cannot change under us now.
		 */
		if (likely(list_empty(&ch->cmd_wait_list)))
			srpt_wait_list_run(ch, rio, true);
		else
			srpt_recv_enqueue(ch, rio, true);
		return;
	}
	srpt_recv_enqueue(ch, rio, false);
}

/**
 * srpt_process_wait_list() - handle the IUs on the wait list, oldest first.
 * @ch: channel.
 *
 * Called after each send completion, after the channel became live
 * (zero-length write completion) and from ch->wait_work when LIO freed a
 * tag elsewhere. If nobody handles IUs and nothing waits (the usual case
 * after a send completion) it returns after one look, without a lock. If
 * another caller is handling IUs, it is told to look again (AGAIN) and
 * this call returns at once. See srpt_wait_list_run().
 *
 * Why the look without a lock cannot miss an IU that waits for the send
 * context just freed: the caller that handles IUs puts such an IU back on
 * the list before it clears BUSY with a fully ordered compare-and-exchange,
 * and takes send contexts only after it set BUSY, also fully ordered. This
 * side frees the send context, then (full barrier) reads @ch->wait_state
 * with acquire semantics, then the list: it either sees BUSY (and sets
 * AGAIN, which the other side sees before it stops), or an idle state
 * written after the IU went back (and then sees the IU), or an idle state
 * from before the other side started (and then that side finds the send
 * context).
 *
 * Context: process context (CQ work or ch->wait_work); handling an IU may
 * sleep.
 */
void srpt_process_wait_list(struct srpt_rdma_ch *ch)
{
	/* the freed send context, or the live state, before the look */
	smp_mb();
	if (likely(!atomic_read_acquire(&ch->wait_state) &&
		   list_empty_careful(&ch->cmd_wait_list)))
		return;
	if (srpt_wait_own(ch))
		srpt_wait_list_run(ch, NULL, false);
}

/**
 * srpt_wait_list_work() - ch->wait_work: process the wait list.
 * @w: the work item.
 */
void srpt_wait_list_work(struct work_struct *w)
{
	srpt_process_wait_list(container_of(w, struct srpt_rdma_ch,
					    wait_work));
}

/* The rest of srpt_wait_list_kick(), when IUs wait or @old is not idle. */
static noinline void srpt_wait_list_kick_busy(struct srpt_rdma_ch *ch,
					      int old)
{
	unsigned long flags;

	while ((old & (SRPT_WAIT_BUSY | SRPT_WAIT_CLOSED)) == SRPT_WAIT_BUSY) {
		if (atomic_try_cmpxchg(&ch->wait_state, &old,
				       old | SRPT_WAIT_AGAIN))
			return;
	}
	if (old & SRPT_WAIT_CLOSED)
		return;
	/* Nobody handles IUs: the work does, unless the list closes first. */
	spin_lock_irqsave(&ch->wait_lock, flags);
	if (!(atomic_read(&ch->wait_state) & SRPT_WAIT_CLOSED) &&
	    !list_empty(&ch->cmd_wait_list))
		queue_work(system_wq, &ch->wait_work);
	spin_unlock_irqrestore(&ch->wait_lock, flags);
}

/**
 * srpt_wait_list_kick() - a send context was freed outside the CQ work.
 * @ch: channel.
 *
 * If a caller is handling IUs it is told to look again (it may just have
 * failed to get a send context for the head IU); if nobody is and IUs
 * wait, and the list is still open, ch->wait_work is queued, so that a send
 * context freed by an aborted command is not left unused while IUs wait
 * for one (no send completion would follow to process the list). Every
 * command's release_cmd comes here: nothing waits is found with one look,
 * without a lock (see srpt_process_wait_list() for why that look is
 * enough), inline in srpt_release_cmd().
 *
 * Context: any.
 */
static __always_inline void srpt_wait_list_kick(struct srpt_rdma_ch *ch)
{
	int old;

	/* the freed send context before the look */
	smp_mb();
	old = atomic_read_acquire(&ch->wait_state);
	if (likely(!old && list_empty_careful(&ch->cmd_wait_list)))
		return;
	srpt_wait_list_kick_busy(ch, old);
}

/**
 * srpt_wait_list_close() - stop handling IUs on a channel being released.
 * @ch: channel; its LIO session is stopped and LIO's commands are done.
 *
 * After this returns no IU of @ch is handled any more: the caller handling
 * IUs (if any) has finished, ch->wait_work is neither queued nor running,
 * and IUs received later are dropped by srpt_recv_done(). The IUs still
 * waiting are dropped here (SRQ buffers go back to the SRQ). CLOSED is
 * set under @ch->wait_lock, so that nobody appends to the list or queues
 * ch->wait_work after the list has been emptied below.
 *
 * Context: process context (the release work).
 */
void srpt_wait_list_close(struct srpt_rdma_ch *ch)
{
	struct srpt_recv_ioctx *rio, *tmp;
	unsigned long flags;
	LIST_HEAD(left);

	spin_lock_irqsave(&ch->wait_lock, flags);
	atomic_or(SRPT_WAIT_CLOSED, &ch->wait_state);
	spin_unlock_irqrestore(&ch->wait_lock, flags);
	wait_var_event(&ch->wait_state,
		       !(atomic_read(&ch->wait_state) & SRPT_WAIT_BUSY));
	cancel_work_sync(&ch->wait_work);

	spin_lock_irqsave(&ch->wait_lock, flags);
	list_splice_init(&ch->cmd_wait_list, &left);
	spin_unlock_irqrestore(&ch->wait_lock, flags);
	list_for_each_entry_safe(rio, tmp, &left, wait_list) {
		list_del_init(&rio->wait_list);
		srpt_recv_drop(ch, rio);
	}
}

/*
 * The send completion of a response the driver built itself frees the
 * command here. Out of line: srpt_put_send_ioctx() is inline, and its
 * receive repost would cost every send completion a stack canary.
 */
static noinline void srpt_local_rsp_done(struct srpt_send_ioctx *sio)
{
	srpt_debug_delay(SRPT_DBG_LOCAL_RSP_DONE);
	srpt_put_send_ioctx(sio);
}

/**
 * srpt_send_done() - completion of the SEND of a response.
 * @cq: completion queue.
 * @wc: work completion.
 *
 * Gives back the send queue entries and frees the command.
 *
 * Context: CQ context of the channel.
 */
void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = wc->qp->qp_context;
	struct srpt_send_ioctx *sio =
		container_of(wc->wr_cqe, struct srpt_send_ioctx, ioctx.cqe);
	enum srpt_command_state state;

	state = srpt_set_cmd_state(sio, SRPT_STATE_DONE);
	WARN_ON_ONCE(state != SRPT_STATE_CMD_RSP_SENT &&
		     state != SRPT_STATE_MGMT_RSP_SENT);
	/* Each fires only for its own state (TRACE_EVENT_CONDITION). */
	trace_srpt_cmd_done(ch, sio, state, wc->status);
	trace_srpt_tmf_done(ch, sio, state, wc->status);
	srpt_sq_wrs_put(ch, 1 + sio->n_rdma);
	if (unlikely(wc->status != IB_WC_SUCCESS &&
		     wc->status != IB_WC_WR_FLUSH_ERR)) {
		atomic64_inc(&ch->stats.rdma_errors);
		srpt_ch_warn_ratelimited(ch, "sending response failed: %s\n",
					 ib_wc_status_msg(wc->status));
	}

	if (sio->local_rsp)
		srpt_local_rsp_done(sio);
	else if (state != SRPT_STATE_DONE)
		transport_generic_free_cmd(&sio->cmd, 0);
	else
		srpt_ch_err_ratelimited(ch, "response completion for tag %#llx came too late\n",
					sio->cmd.tag);

	srpt_rsp_list_kick(ch);
	srpt_process_wait_list(ch);
	srpt_debug_qp_event(ch->qp);
}

/**
 * srpt_release_cmd() - free a command (LIO callback, last reference).
 * @cmd: the command.
 *
 * The freed send context may be what IUs on the wait list are waiting for. After a
 * send completion the CQ work processes the list anyway, but a command LIO
 * aborted has no send completion, so the list is kicked here.
 */
void srpt_release_cmd(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *sio =
		container_of(cmd, struct srpt_send_ioctx, cmd);
	struct srpt_rdma_ch *ch = sio->ch;

	WARN_ON_ONCE(sio->state != SRPT_STATE_DONE &&
		     !(cmd->transport_state & CMD_T_ABORTED));
	srpt_put_send_ioctx(sio);
	srpt_wait_list_kick(ch);
}
