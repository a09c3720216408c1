// SPDX-License-Identifier: GPL-2.0
/*
 * cmd.c - the I/O path: receiving information units, SCSI commands and
 * task management functions, RDMA data transfer and SRP responses, and the
 * LIO fabric callbacks that drive a command (srpt-spec.md section 5).
 *
 * Contexts: receive, send, RDMA READ and zero-length-write completions of a
 * channel all run on the channel's CQ (IB_POLL_WORKQUEUE), so they are
 * serialized; the wait list is touched only there. LIO callbacks run in
 * LIO's own work items and may race with the completions of the same
 * command only where the state machine below says so.
 *
 * Where this differs from the in-kernel driver:
 *  - a malformed SRP_CMD, a command whose resources cannot be allocated and
 *    a command or TMF LIO refuses (session shutting down) are answered by
 *    the driver itself with an SRP_RSP (CHECK CONDITION, BUSY or TMF
 *    FAILED) built without touching an uninitialised se_cmd or a freed
 *    se_tmr_req; the send completion then frees the tag;
 *  - every IU returns its credit: IUs that get no response add it to
 *    req_lim_delta, so it rides on the next SRP_RSP;
 *  - a response that does not fit in the send queue is retried by LIO
 *    (-EAGAIN) instead of being dropped;
 *  - the SRP task attribute is passed to LIO.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>

#include "srpt.h"
#include "srpt_iu.h"

static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc);
static void srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc);

/**
 * srpt_set_cmd_state() - set the state of a command.
 * @sio: send context of the command.
 * @new: new state.
 *
 * A command in state DONE stays there.
 *
 * Return: the previous state.
 */
static enum srpt_command_state
srpt_set_cmd_state(struct srpt_send_ioctx *sio, enum srpt_command_state new)
{
	enum srpt_command_state prev = READ_ONCE(sio->state);

	if (prev != SRPT_STATE_DONE)
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
static bool srpt_test_and_set_cmd_state(struct srpt_send_ioctx *sio,
					enum srpt_command_state old,
					enum srpt_command_state new)
{
	WARN_ON_ONCE(old == SRPT_STATE_DONE);
	WARN_ON_ONCE(new == SRPT_STATE_NEW);
	return cmpxchg(&sio->state, old, new) == old;
}

/* Data direction of the RDMA transfer (the reverse of the LIO one). */
static enum dma_data_direction srpt_rw_dir(enum dma_data_direction dir)
{
	return dir == DMA_FROM_DEVICE ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
}

/*
 * Send WRs the channel's QP is guaranteed to hold: max_send_wr was
 * created as at least half the send queue size (cq_size = rq_size +
 * sq_size). A command needing more could never be posted, and retrying it
 * through LIO would never end.
 */
static u32 srpt_sq_capacity(const struct srpt_rdma_ch *ch)
{
	return (ch->cq_size - ch->rq_size) / 2;
}

/* Add one credit to the next response for an IU that gets none. */
static void srpt_return_credit(struct srpt_rdma_ch *ch)
{
	atomic_inc(&ch->req_lim_delta);
}

/**
 * srpt_post_recv() - post a receive buffer.
 * @sdev: HCA.
 * @ch: channel the buffer belongs to, or NULL for a buffer of the
 *	device's SRQ that is posted before any channel exists.
 * @rio: receive context.
 *
 * The buffer goes to the SRQ the channel's QP uses, or to the QP's own
 * receive queue when it has none.
 *
 * Context: any; does not sleep.
 * Return: 0 or the ib_post_*recv() error.
 */
int srpt_post_recv(struct srpt_device *sdev, struct srpt_rdma_ch *ch,
		   struct srpt_recv_ioctx *rio)
{
	struct ib_recv_wr wr = {};
	struct ib_sge sge;

	sge.addr = rio->ioctx.dma + rio->ioctx.offset;
	sge.length = srp_max_req_size;
	sge.lkey = sdev->lkey;
	rio->ioctx.cqe.done = srpt_recv_done;
	wr.wr_cqe = &rio->ioctx.cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;

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

/* Repost a receive buffer, logging a failure (the QP is then dying). */
static void srpt_repost_recv(struct srpt_rdma_ch *ch,
			     struct srpt_recv_ioctx *rio)
{
	int ret = srpt_post_recv(ch->sport->sdev, ch, rio);

	if (ret)
		pr_info_ratelimited("%s: reposting receive buffer failed: %d\n",
				    ch->sess_name, ret);
}

/**
 * srpt_get_send_ioctx() - allocate a LIO tag and its send context.
 * @ch: channel.
 *
 * Return: the reset send context, or NULL if every tag is in use.
 */
static struct srpt_send_ioctx *srpt_get_send_ioctx(struct srpt_rdma_ch *ch)
{
	struct se_session *sess = ch->sess;
	struct srpt_send_ioctx *sio;
	unsigned int cpu;
	int tag;

	tag = sbitmap_queue_get(&sess->sess_tag_pool, &cpu);
	if (tag < 0)
		return NULL;
	sio = ch->ioctx_ring[tag];
	WARN_ON_ONCE(sio->ch != ch);
	WARN_ON_ONCE(sio->recv_ioctx);
	sio->state = SRPT_STATE_NEW;
	sio->recv_ioctx = NULL;
	sio->rw_ctxs = &sio->s_rw_ctx;
	sio->n_rdma = 0;
	sio->n_rw_ctx = 0;
	sio->queue_status_only = false;
	sio->local_rsp = false;
	memset(&sio->cmd, 0, sizeof(sio->cmd));
	memset(sio->sense_data, 0, sizeof(sio->sense_data));
	sio->cmd.map_tag = tag;
	sio->cmd.map_cpu = cpu;
	return sio;
}

/* Destroy the first @n rw contexts of @sio and free their buffers. */
static void srpt_destroy_rw_ctxs(struct srpt_send_ioctx *sio, u32 n)
{
	struct srpt_rdma_ch *ch = sio->ch;
	enum dma_data_direction dir = srpt_rw_dir(sio->cmd.data_direction);
	u32 i;

	for (i = 0; i < n; i++) {
		struct srpt_rw_ctx *ctx = &sio->rw_ctxs[i];

		rdma_rw_ctx_destroy(&ctx->rw, ch->qp, ch->sport->port,
				    ctx->sg, ctx->nents, dir);
		target_free_sgl(ctx->sg, ctx->nents);
	}
	if (sio->rw_ctxs != &sio->s_rw_ctx)
		kfree(sio->rw_ctxs);
	sio->rw_ctxs = &sio->s_rw_ctx;
	sio->n_rw_ctx = 0;
	sio->n_rdma = 0;
}

/**
 * srpt_alloc_rw_ctxs() - set up the RDMA transfer of a command.
 * @sio: send context; sio->cmd.data_direction must be set.
 * @iu: the SRP_CMD.
 * @desc: its parse result, with @desc->nbufs > 0.
 * @sg: the chained scatterlist of all descriptors, for LIO.
 * @sg_cnt: number of data entries in @sg.
 *
 * One rw context and one target-side buffer per descriptor. On failure
 * everything built so far is torn down and the counters are reset, so the
 * send-queue accounting never sees stale values.
 *
 * Return: 0 or a negative errno.
 */
static int srpt_alloc_rw_ctxs(struct srpt_send_ioctx *sio, const void *iu,
			      const struct srpt_cmd_desc *desc,
			      struct scatterlist **sg, u32 *sg_cnt)
{
	struct srpt_rdma_ch *ch = sio->ch;
	enum dma_data_direction dir = srpt_rw_dir(sio->cmd.data_direction);
	struct scatterlist *prev = NULL;
	unsigned int prev_nents = 0;
	u32 i, nbufs = desc->nbufs;
	int ret;

	*sg = NULL;
	*sg_cnt = 0;
	if (nbufs > 1) {
		sio->rw_ctxs = kmalloc_array(nbufs, sizeof(*sio->rw_ctxs),
					     GFP_KERNEL);
		if (!sio->rw_ctxs) {
			sio->rw_ctxs = &sio->s_rw_ctx;
			return -ENOMEM;
		}
	}
	for (i = 0; i < nbufs; i++) {
		struct srpt_rw_ctx *ctx = &sio->rw_ctxs[i];
		u32 key, len;
		u64 va;

		srpt_iu_get_desc(iu, desc, i, &va, &key, &len);
		ret = target_alloc_sgl(&ctx->sg, &ctx->nents, len, false,
				       i + 1 < nbufs);
		if (ret)
			goto unwind;
		ret = rdma_rw_ctx_init(&ctx->rw, ch->qp, ch->sport->port,
				       ctx->sg, ctx->nents, 0, va, key, dir);
		if (ret < 0) {
			target_free_sgl(ctx->sg, ctx->nents);
			goto unwind;
		}
		sio->n_rdma += ret;
		sio->n_rw_ctx++;
		if (prev) {
			sg_unmark_end(&prev[prev_nents - 1]);
			sg_chain(prev, prev_nents + 1, ctx->sg);
		} else {
			*sg = ctx->sg;
		}
		prev = ctx->sg;
		prev_nents = ctx->nents;
		*sg_cnt += ctx->nents;
	}
	return 0;

unwind:
	srpt_destroy_rw_ctxs(sio, sio->n_rw_ctx);
	*sg = NULL;
	*sg_cnt = 0;
	return ret < 0 ? ret : -ENOMEM;
}

/**
 * srpt_put_send_ioctx() - release what a command holds and free its tag.
 * @sio: send context.
 *
 * Reposts a receive buffer lent for immediate data, frees the rw contexts
 * and returns the tag to the session's pool.
 */
static void srpt_put_send_ioctx(struct srpt_send_ioctx *sio)
{
	struct srpt_rdma_ch *ch = sio->ch;
	struct srpt_recv_ioctx *rio = sio->recv_ioctx;

	if (rio) {
		sio->recv_ioctx = NULL;
		WARN_ON_ONCE(!list_empty(&rio->wait_list));
		srpt_repost_recv(ch, rio);
	}
	if (sio->n_rw_ctx)
		srpt_destroy_rw_ctxs(sio, sio->n_rw_ctx);
	target_free_tag(ch->sess, &sio->cmd);
}

/**
 * srpt_post_rsp() - post the response held in the send buffer.
 * @sio: send context.
 * @len: response length in bytes.
 * @with_data: put the RDMA WRITEs of the read data in front of the SEND.
 * @state: state the command enters before the post (CMD_RSP_SENT or
 *	   MGMT_RSP_SENT); the previous state is restored on failure.
 *
 * Reserves 1 + n_rdma send queue entries, given back by srpt_send_done().
 *
 * Return: 0; -EAGAIN if the send queue is full; another negative errno if
 * posting failed.
 */
static int srpt_post_rsp(struct srpt_send_ioctx *sio, int len, bool with_data,
			 enum srpt_command_state state)
{
	struct srpt_rdma_ch *ch = sio->ch;
	struct srpt_device *sdev = ch->sport->sdev;
	struct ib_send_wr send_wr = {}, *first_wr = &send_wr;
	enum srpt_command_state prev;
	int n = 1 + sio->n_rdma;
	struct ib_sge sge;
	int i, ret;

	if (atomic_sub_return(n, &ch->sq_wr_avail) < 0) {
		atomic_add(n, &ch->sq_wr_avail);
		return -EAGAIN;
	}
	if (with_data) {
		for (i = sio->n_rw_ctx - 1; i >= 0; i--)
			first_wr = rdma_rw_ctx_wrs(&sio->rw_ctxs[i].rw, ch->qp,
						   ch->sport->port, NULL,
						   first_wr);
	}
	ib_dma_sync_single_for_device(sdev->device, sio->ioctx.dma, len,
				      DMA_TO_DEVICE);
	sge.addr = sio->ioctx.dma;
	sge.length = len;
	sge.lkey = sdev->lkey;
	sio->ioctx.cqe.done = srpt_send_done;
	send_wr.wr_cqe = &sio->ioctx.cqe;
	send_wr.sg_list = &sge;
	send_wr.num_sge = 1;
	send_wr.opcode = IB_WR_SEND;
	send_wr.send_flags = IB_SEND_SIGNALED;

	/* The completion may run before ib_post_send() returns. */
	prev = srpt_set_cmd_state(sio, state);
	ret = ib_post_send(ch->qp, first_wr, NULL);
	if (ret) {
		WRITE_ONCE(sio->state, prev);
		atomic_add(n, &ch->sq_wr_avail);
		pr_info_ratelimited("%s: posting response failed: %d\n",
				    ch->sess_name, ret);
	}
	return ret;
}

/* Credits granted by the next response: 1 plus the pending delta. */
static u32 srpt_take_credits(struct srpt_rdma_ch *ch)
{
	u32 delta = 1 + atomic_xchg(&ch->req_lim_delta, 0);

	atomic_add(delta, &ch->req_lim);
	return delta;
}

/* Undo srpt_take_credits() for a response that was not sent. */
static void srpt_untake_credits(struct srpt_rdma_ch *ch, u32 delta)
{
	atomic_sub(delta, &ch->req_lim);
	atomic_add(delta - 1, &ch->req_lim_delta);
}

/**
 * srpt_send_local_rsp() - answer a command or TMF LIO does not own.
 * @sio: send context (state NEW or MGMT).
 * @len: response length, already built in the send buffer with the
 *	 credits @delta, or a negative errno if building failed.
 * @delta: credits the response grants.
 *
 * If the response cannot be posted the context is freed right away and the
 * credit is carried by a later response.
 */
static void srpt_send_local_rsp(struct srpt_send_ioctx *sio, int len,
				u32 delta)
{
	struct srpt_rdma_ch *ch = sio->ch;
	enum srpt_command_state state = sio->state == SRPT_STATE_MGMT ?
		SRPT_STATE_MGMT_RSP_SENT : SRPT_STATE_CMD_RSP_SENT;

	sio->local_rsp = true;
	/* Nothing is transferred: the rw contexts need no send WRs. */
	sio->n_rdma = 0;
	if (len >= 0 && srpt_post_rsp(sio, len, false, state) == 0)
		return;
	srpt_untake_credits(ch, delta);
	srpt_return_credit(ch);
	sio->state = SRPT_STATE_DONE;
	srpt_put_send_ioctx(sio);
}

/* Answer an SRP_CMD with @status and optional sense, without LIO. */
static void srpt_local_cmd_rsp(struct srpt_send_ioctx *sio, u64 tag,
			       u8 status, u8 key, u8 asc, u8 ascq)
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
	info.req_lim_delta = srpt_take_credits(ch);
	len = srpt_iu_build_rsp(sio->ioctx.buf, ch->max_rsp_size,
				ch->max_ti_iu_len, &info);
	srpt_send_local_rsp(sio, len, info.req_lim_delta);
}

/* Answer an SRP_TSK_MGMT with @code, without LIO. */
static void srpt_local_tmf_rsp(struct srpt_send_ioctx *sio, u64 tag, u8 code)
{
	struct srpt_rdma_ch *ch = sio->ch;
	u32 delta = srpt_take_credits(ch);
	int len;

	len = srpt_iu_build_tsk_mgmt_rsp(sio->ioctx.buf, ch->max_rsp_size,
					 ch->max_ti_iu_len, tag, delta, code);
	srpt_send_local_rsp(sio, len, delta);
}

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

/**
 * srpt_handle_cmd() - start an SRP_CMD.
 * @ch: channel.
 * @rio: receive context holding the IU.
 * @sio: send context allocated for it.
 *
 * Return: true if the receive buffer was lent to the command (immediate
 * data) and must not be reposted now.
 */
static bool srpt_handle_cmd(struct srpt_rdma_ch *ch,
			    struct srpt_recv_ioctx *rio,
			    struct srpt_send_ioctx *sio)
{
	struct srpt_cmd *srp_cmd = rio->ioctx.buf + rio->ioctx.offset;
	struct se_cmd *cmd = &sio->cmd;
	struct scatterlist *sg = NULL;
	struct srpt_cmd_desc desc;
	enum dma_data_direction dir;
	u32 sg_cnt = 0;
	bool lent = false;
	int ret;

	cmd->tag = srp_cmd->tag;
	ret = srpt_iu_parse_cmd(srp_cmd, rio->byte_len, srp_max_req_size,
				ch->imm_data_offset, &desc);
	if (!ret && scsi_command_size(srp_cmd->cdb) > desc.cdb_len)
		ret = -EINVAL;
	if (ret) {
		pr_warn_ratelimited("%s: malformed SRP_CMD (tag %#llx, %u bytes): %d\n",
				    ch->sess_name, cmd->tag, rio->byte_len,
				    ret);
		/* INVALID FIELD IN COMMAND INFORMATION UNIT */
		srpt_local_cmd_rsp(sio, cmd->tag, SAM_STAT_CHECK_CONDITION,
				   ILLEGAL_REQUEST, 0x0e, 0x03);
		return false;
	}

	switch (desc.dir) {
	case SRPT_DIR_READ:
		dir = DMA_FROM_DEVICE;
		break;
	case SRPT_DIR_WRITE:
		dir = DMA_TO_DEVICE;
		break;
	default:
		dir = DMA_NONE;
		break;
	}
	cmd->data_direction = dir;

	if (desc.fmt == SRPT_DATA_DESC_IMM && desc.data_len) {
		sio->recv_ioctx = rio;
		lent = true;
		sg_init_one(&sio->imm_sg, (u8 *)srp_cmd + desc.imm_off,
			    desc.data_len);
		sg = &sio->imm_sg;
		sg_cnt = 1;
	} else if (desc.nbufs) {
		/* Lets tests see which descriptor format ib_srp chose. */
		if (desc.fmt == SRPT_DATA_DESC_INDIRECT)
			pr_debug("%s: tag %#llx: indirect table, %u descriptors, %u bytes\n",
				 ch->sess_name, cmd->tag, desc.nbufs,
				 desc.data_len);
		ret = srpt_alloc_rw_ctxs(sio, srp_cmd, &desc, &sg, &sg_cnt);
		if (ret) {
			pr_info_ratelimited("%s: no resources for tag %#llx: %d\n",
					    ch->sess_name, cmd->tag, ret);
			srpt_local_cmd_rsp(sio, cmd->tag, SAM_STAT_BUSY, 0, 0, 0);
			return false;
		}
		if (1 + sio->n_rdma > srpt_sq_capacity(ch)) {
			pr_warn_ratelimited("%s: tag %#llx needs %u send WRs, the send queue holds %u\n",
					    ch->sess_name, cmd->tag,
					    1 + sio->n_rdma,
					    srpt_sq_capacity(ch));
			srpt_destroy_rw_ctxs(sio, sio->n_rw_ctx);
			/* ABORTED COMMAND, INSUFFICIENT RESOURCES */
			srpt_local_cmd_rsp(sio, cmd->tag,
					   SAM_STAT_CHECK_CONDITION,
					   ABORTED_COMMAND, 0x55, 0x03);
			return false;
		}
	}

	ret = srpt_compat_submit_cmd(cmd, ch->sess, srp_cmd->cdb,
				     sio->sense_data,
				     scsilun_to_int((struct scsi_lun *)srp_cmd->lun),
				     desc.data_len,
				     srpt_task_attr(srp_cmd->task_attr), dir,
				     TARGET_SCF_ACK_KREF, sg, sg_cnt,
				     GFP_KERNEL);
	if (ret) {
		/* LIO refused the command; it is still ours. */
		pr_debug("%s: submitting tag %#llx failed: %d\n",
			 ch->sess_name, cmd->tag, ret);
		sio->state = SRPT_STATE_NEW;
		srpt_local_cmd_rsp(sio, cmd->tag, SAM_STAT_BUSY, 0, 0, 0);
	}
	return lent;
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
	u64 tag = rio->byte_len >= offsetof(struct srpt_tsk_mgmt, reserved2) ?
		  tsk->tag : 0;
	int ret;

	srpt_set_cmd_state(sio, SRPT_STATE_MGMT);
	sio->cmd.tag = tag;
	if (srpt_iu_check_tsk_mgmt(tsk, rio->byte_len)) {
		pr_warn_ratelimited("%s: truncated SRP_TSK_MGMT (%u bytes)\n",
				    ch->sess_name, rio->byte_len);
		srpt_local_tmf_rsp(sio, tag, SRPT_TSK_MGMT_FAILED);
		return;
	}
	ret = target_submit_tmr(&sio->cmd, ch->sess, NULL,
				scsilun_to_int((struct scsi_lun *)tsk->lun),
				sio, srpt_tmr_func(tsk->tsk_mgmt_func),
				GFP_KERNEL, tsk->task_tag,
				TARGET_SCF_ACK_KREF);
	if (ret) {
		/* se_tmr_req may be NULL or freed: do not touch it. */
		pr_debug("%s: submitting TMF %#x failed: %d\n",
			 ch->sess_name, tsk->tsk_mgmt_func, ret);
		srpt_local_tmf_rsp(sio, tag, SRPT_TSK_MGMT_FAILED);
	}
}

/**
 * srpt_handle_new_iu() - process a received information unit.
 * @ch: channel it arrived on.
 * @rio: receive context.
 *
 * Context: the channel's CQ context (or the wait list processing there).
 * Return: false if the IU has to wait (channel still connecting or no free
 * tag) and was queued on the wait list; true if it was consumed.
 */
static bool srpt_handle_new_iu(struct srpt_rdma_ch *ch,
			       struct srpt_recv_ioctx *rio)
{
	struct srpt_device *sdev = ch->sport->sdev;
	struct srpt_send_ioctx *sio = NULL;
	bool lent = false;
	void *iu;
	int opcode;

	if (unlikely(READ_ONCE(ch->state) == CH_CONNECTING))
		goto wait;

	ib_dma_sync_single_for_cpu(sdev->device, rio->ioctx.dma,
				   rio->ioctx.offset + srp_max_req_size,
				   DMA_FROM_DEVICE);
	iu = rio->ioctx.buf + rio->ioctx.offset;
	opcode = srpt_iu_opcode(iu, rio->byte_len);
	if (opcode == SRPT_OP_CMD || opcode == SRPT_OP_TSK_MGMT) {
		if (unlikely(!ch->sess)) {
			pr_warn_ratelimited("%s: IU without a session\n",
					    ch->sess_name);
			opcode = -ENOTCONN;
		} else {
			sio = srpt_get_send_ioctx(ch);
			if (unlikely(!sio))
				goto wait;
		}
	}
	if (!list_empty(&rio->wait_list))
		list_del_init(&rio->wait_list);

	switch (opcode) {
	case SRPT_OP_CMD:
		lent = srpt_handle_cmd(ch, rio, sio);
		break;
	case SRPT_OP_TSK_MGMT:
		srpt_handle_tsk_mgmt(ch, rio, sio);
		break;
	case SRPT_OP_I_LOGOUT:
		pr_err_ratelimited("%s: SRP_I_LOGOUT is not supported\n",
				   ch->sess_name);
		srpt_return_credit(ch);
		break;
	case SRPT_OP_CRED_RSP:
	case SRPT_OP_AER_RSP:
		pr_debug("%s: received IU with opcode %#x\n", ch->sess_name,
			 opcode);
		srpt_return_credit(ch);
		break;
	default:
		pr_err_ratelimited("%s: unexpected IU with opcode %#x (%u bytes)\n",
				   ch->sess_name, opcode, rio->byte_len);
		srpt_return_credit(ch);
		break;
	}
	if (!lent)
		srpt_repost_recv(ch, rio);
	return true;

wait:
	if (list_empty(&rio->wait_list))
		list_add_tail(&rio->wait_list, &ch->cmd_wait_list);
	return false;
}

/**
 * srpt_recv_done() - receive completion handler.
 * @cq: completion queue.
 * @wc: work completion of a receive posted by srpt_post_recv().
 *
 * Context: CQ context of the channel.
 */
void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = wc->qp->qp_context;
	struct srpt_recv_ioctx *rio =
		container_of(wc->wr_cqe, struct srpt_recv_ioctx, ioctx.cqe);
	int req_lim;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info_ratelimited("%s: receive failed: %s\n",
					    ch->sess_name,
					    ib_wc_status_msg(wc->status));
		return;
	}
	req_lim = atomic_dec_return(&ch->req_lim);
	if (unlikely(req_lim < 0))
		pr_err_ratelimited("%s: initiator exceeded its credits (%d)\n",
				   ch->sess_name, req_lim);
	rio->byte_len = wc->byte_len;
	srpt_handle_new_iu(ch, rio);
}

/**
 * srpt_process_wait_list() - process IUs that had to wait.
 * @ch: channel.
 *
 * Called after the channel became live (zero-length write completion) and
 * after each send completion, which may have freed a tag.
 *
 * Context: CQ context of the channel.
 */
void srpt_process_wait_list(struct srpt_rdma_ch *ch)
{
	struct srpt_recv_ioctx *rio, *tmp;

	if (list_empty(&ch->cmd_wait_list) || ch->processing_wait_list)
		return;
	ch->processing_wait_list = true;
	list_for_each_entry_safe(rio, tmp, &ch->cmd_wait_list, wait_list) {
		if (!srpt_handle_new_iu(ch, rio))
			break;
	}
	ch->processing_wait_list = false;
}

/**
 * srpt_drain_wait_list() - drop the IUs still waiting on a dying channel.
 * @ch: channel being released; its QP still exists and every completion
 *	of it has been processed (the zero-length write has flushed).
 *
 * Receive buffers of the device's SRQ are posted again, so that the SRQ
 * does not lose a buffer per IU left behind; buffers of the channel's own
 * ring are freed with the ring.
 */
void srpt_drain_wait_list(struct srpt_rdma_ch *ch)
{
	struct srpt_recv_ioctx *rio, *tmp;

	list_for_each_entry_safe(rio, tmp, &ch->cmd_wait_list, wait_list) {
		list_del_init(&rio->wait_list);
		if (ch->qp->srq)
			srpt_repost_recv(ch, rio);
	}
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
static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = wc->qp->qp_context;
	struct srpt_send_ioctx *sio =
		container_of(wc->wr_cqe, struct srpt_send_ioctx, ioctx.cqe);
	enum srpt_command_state state;

	state = srpt_set_cmd_state(sio, SRPT_STATE_DONE);
	WARN_ON_ONCE(state != SRPT_STATE_CMD_RSP_SENT &&
		     state != SRPT_STATE_MGMT_RSP_SENT);
	atomic_add(1 + sio->n_rdma, &ch->sq_wr_avail);
	if (unlikely(wc->status != IB_WC_SUCCESS &&
		     wc->status != IB_WC_WR_FLUSH_ERR))
		pr_info_ratelimited("%s: sending response failed: %s\n",
				    ch->sess_name,
				    ib_wc_status_msg(wc->status));

	if (sio->local_rsp)
		srpt_put_send_ioctx(sio);
	else if (state != SRPT_STATE_DONE)
		transport_generic_free_cmd(&sio->cmd, 0);
	else
		pr_err("%s: response completion for tag %#llx came too late\n",
		       ch->sess_name, sio->cmd.tag);

	srpt_process_wait_list(ch);
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
	atomic_add(sio->n_rdma, &ch->sq_wr_avail);
	sio->n_rdma = 0;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info_ratelimited("%s: RDMA READ of tag %#llx failed: %s\n",
					    ch->sess_name, sio->cmd.tag,
					    ib_wc_status_msg(wc->status));
		srpt_abort_cmd(sio);
		return;
	}
	if (srpt_test_and_set_cmd_state(sio, SRPT_STATE_NEED_DATA,
					SRPT_STATE_DATA_IN))
		target_execute_cmd(&sio->cmd);
	else
		pr_err("%s: RDMA READ of tag %#llx completed in state %d\n",
		       ch->sess_name, sio->cmd.tag, sio->state);
}

/**
 * srpt_write_pending() - fetch the write data of a command (LIO callback).
 * @cmd: the command.
 *
 * Immediate data is already there; otherwise all RDMA READs are posted as
 * one chain, only the last one signaled.
 *
 * Return: 0; -ENOMEM if the send queue is full (LIO retries later);
 * another negative errno if posting failed.
 */
int srpt_write_pending(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *sio =
		container_of(cmd, struct srpt_send_ioctx, cmd);
	struct srpt_rdma_ch *ch = sio->ch;
	struct ib_send_wr *first_wr = NULL;
	struct ib_cqe *cqe = &sio->rdma_cqe;
	enum srpt_command_state prev;
	int i, ret, n = sio->n_rdma;

	if (sio->recv_ioctx || !sio->n_rw_ctx) {
		srpt_set_cmd_state(sio, SRPT_STATE_DATA_IN);
		target_execute_cmd(cmd);
		return 0;
	}

	if (atomic_sub_return(n, &ch->sq_wr_avail) < 0) {
		atomic_add(n, &ch->sq_wr_avail);
		pr_warn_ratelimited("%s: IB send queue full (needed %d)\n",
				    ch->sess_name, n);
		return -ENOMEM;
	}
	cqe->done = srpt_rdma_read_done;
	for (i = sio->n_rw_ctx - 1; i >= 0; i--) {
		first_wr = rdma_rw_ctx_wrs(&sio->rw_ctxs[i].rw, ch->qp,
					   ch->sport->port, cqe, first_wr);
		cqe = NULL;
	}
	prev = srpt_set_cmd_state(sio, SRPT_STATE_NEED_DATA);
	WARN_ON_ONCE(prev == SRPT_STATE_DONE);
	ret = ib_post_send(ch->qp, first_wr, NULL);
	if (ret) {
		WRITE_ONCE(sio->state, prev);
		atomic_add(n, &ch->sq_wr_avail);
		pr_err_ratelimited("%s: posting RDMA READ of tag %#llx failed: %d\n",
				   ch->sess_name, cmd->tag, ret);
	}
	return ret;
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

/* Build the SRP_RSP of a SCSI command LIO completed. */
static int srpt_build_cmd_rsp(struct srpt_send_ioctx *sio, u32 delta)
{
	struct srpt_rdma_ch *ch = sio->ch;
	struct se_cmd *cmd = &sio->cmd;
	struct srpt_rsp_info info = {};
	int len;

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
		pr_warn_ratelimited("%s: sense data of tag %#llx truncated from %u to %d bytes\n",
				    ch->sess_name, cmd->tag, info.sense_len,
				    len - (int)sizeof(struct srpt_rsp));
	return len;
}

/**
 * srpt_queue_response() - send the response of a command or TMF.
 * @cmd: the command.
 *
 * Context: may run in completion context; does not sleep.
 * Return: 0 if the response was posted or dropped; -EAGAIN if the send
 * queue is full and LIO should call again later.
 */
static int srpt_queue_response(struct se_cmd *cmd)
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
		WARN_ONCE(1, "%s: response for tag %#llx in state %d\n",
			  ch->sess_name, cmd->tag, state);
		return 0;
	}

	delta = srpt_take_credits(ch);
	if (new_state == SRPT_STATE_MGMT_RSP_SENT) {
		len = srpt_iu_build_tsk_mgmt_rsp(sio->ioctx.buf,
						 ch->max_rsp_size,
						 ch->max_ti_iu_len, cmd->tag,
						 delta,
						 srpt_tmr_rsp_code(cmd));
	} else {
		with_data = cmd->data_direction == DMA_FROM_DEVICE &&
			    cmd->data_length && !sio->queue_status_only;
		len = srpt_build_cmd_rsp(sio, delta);
	}
	ret = len < 0 ? len : srpt_post_rsp(sio, len, with_data, new_state);
	if (!ret)
		return 0;

	srpt_untake_credits(ch, delta);
	/*
	 * Send queue full: let LIO retry. That needs the device of the
	 * command; TMFs and commands that never reached a LUN are dropped.
	 */
	if (ret == -EAGAIN && new_state == SRPT_STATE_CMD_RSP_SENT &&
	    cmd->se_dev) {
		pr_debug("%s: send queue full, tag %#llx retried\n",
			 ch->sess_name, cmd->tag);
		return -EAGAIN;
	}
	pr_warn_ratelimited("%s: dropping response of tag %#llx: %d\n",
			    ch->sess_name, cmd->tag, ret);
	srpt_return_credit(ch);
	sio->state = SRPT_STATE_DONE;
	target_put_sess_cmd(cmd);
	return 0;
}

/**
 * srpt_queue_data_in() - send read data and status (LIO callback).
 * @cmd: the command.
 *
 * Return: see srpt_queue_response().
 */
int srpt_queue_data_in(struct se_cmd *cmd)
{
	return srpt_queue_response(cmd);
}

/**
 * srpt_queue_status() - send status without data (LIO callback).
 * @cmd: the command.
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
	return srpt_queue_response(cmd);
}

/**
 * srpt_queue_tm_rsp() - send the response of a TMF (LIO callback).
 * @cmd: the TMF command.
 */
void srpt_queue_tm_rsp(struct se_cmd *cmd)
{
	srpt_queue_response(cmd);
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

	srpt_return_credit(sio->ch);
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
 * srpt_release_cmd() - free a command (LIO callback, last reference).
 * @cmd: the command.
 */
void srpt_release_cmd(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *sio =
		container_of(cmd, struct srpt_send_ioctx, cmd);

	WARN_ON_ONCE(sio->state != SRPT_STATE_DONE &&
		     !(cmd->transport_state & CMD_T_ABORTED));
	srpt_put_send_ioctx(sio);
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
