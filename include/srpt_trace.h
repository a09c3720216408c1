/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_trace.h - the tracepoints of ib_srpt (trace system "ib_srpt"):
 * logins, channel state changes, commands, task management functions and
 * full send queues (docs/design.md, "Tracepoints"; ib_srpt(4), TRACEPOINTS).
 *
 * src/trace.c includes this header with CREATE_TRACE_POINTS and so defines
 * the events; every other file includes it to call them. The pure files
 * (srpt_pure.h) never do. A disabled event costs a static branch (a NOP):
 * every argument is either a pointer the caller has anyway or a value the
 * caller computed for its own use; everything else is read in
 * TP_fast_assign(), which runs only when the event is enabled.
 *
 * The strings are fixed arrays rather than __string(), whose __assign_str()
 * lost its second argument in 6.10, so one text builds on every kernel.
 * Every enum printed with __print_symbolic() has a TRACE_DEFINE_ENUM(), so
 * trace-cmd and perf, which read the format files, print names too.
 */
#ifndef SRPT_TRACE_TYPES_H
#define SRPT_TRACE_TYPES_H

#include "srpt.h"

/**
 * enum srpt_sq_full_act - what happens to work that found the send queue full.
 * @SRPT_SQ_FULL_READ_RETRY: the RDMA READs of write data; LIO calls
 *			     write_pending again later (-ENOMEM).
 * @SRPT_SQ_FULL_RSP_RETRY: a response LIO sends again later (-EAGAIN).
 * @SRPT_SQ_FULL_RSP_DEFER: a response put on the channel's list of
 *			    deferred responses.
 */
enum srpt_sq_full_act {
	SRPT_SQ_FULL_READ_RETRY,
	SRPT_SQ_FULL_RSP_RETRY,
	SRPT_SQ_FULL_RSP_DEFER,
};

/* QP number of a channel for the trace records; 0 before its QP exists. */
static inline u32 srpt_trace_qpn(const struct srpt_rdma_ch *ch)
{
	return ch->qp ? ch->qp->qp_num : 0;
}

#endif /* SRPT_TRACE_TYPES_H */

#undef TRACE_SYSTEM
#define TRACE_SYSTEM ib_srpt

#if !defined(SRPT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SRPT_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>
#include <scsi/scsi_common.h>
#include "srpt.h"
#include "srpt_iu.h"

/* Bytes kept of a device name (IB_DEVICE_NAME_MAX would double the size). */
#define SRPT_TRACE_DEV_LEN	20

TRACE_DEFINE_ENUM(SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
TRACE_DEFINE_ENUM(SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES);
TRACE_DEFINE_ENUM(SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
TRACE_DEFINE_ENUM(SRPT_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
TRACE_DEFINE_ENUM(SRPT_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
TRACE_DEFINE_ENUM(SRPT_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED);
TRACE_DEFINE_ENUM(SRPT_LOGIN_REJ_CHANNEL_LIMIT_REACHED);

#define srpt_show_rej_reason(r)						\
	__print_symbolic(r,						\
		{ SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL, "UNABLE_ESTABLISH_CHANNEL" }, \
		{ SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES, "INSUFFICIENT_RESOURCES" }, \
		{ SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE, "REQ_IT_IU_LENGTH_TOO_LARGE" }, \
		{ SRPT_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL, "UNABLE_ASSOCIATE_CHANNEL" }, \
		{ SRPT_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT, "UNSUPPORTED_DESCRIPTOR_FMT" }, \
		{ SRPT_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED, "MULTI_CHANNEL_UNSUPPORTED" }, \
		{ SRPT_LOGIN_REJ_CHANNEL_LIMIT_REACHED, "CHANNEL_LIMIT_REACHED" })

TRACE_DEFINE_ENUM(CH_CONNECTING);
TRACE_DEFINE_ENUM(CH_LIVE);
TRACE_DEFINE_ENUM(CH_DISCONNECTING);
TRACE_DEFINE_ENUM(CH_DRAINING);
TRACE_DEFINE_ENUM(CH_DISCONNECTED);

#define srpt_show_ch_state(s)						\
	__print_symbolic(s,						\
		{ CH_CONNECTING, "CONNECTING" },			\
		{ CH_LIVE, "LIVE" },					\
		{ CH_DISCONNECTING, "DISCONNECTING" },			\
		{ CH_DRAINING, "DRAINING" },				\
		{ CH_DISCONNECTED, "DISCONNECTED" })

TRACE_DEFINE_ENUM(SRPT_DIR_NONE);
TRACE_DEFINE_ENUM(SRPT_DIR_READ);
TRACE_DEFINE_ENUM(SRPT_DIR_WRITE);

#define srpt_show_dir(d)						\
	__print_symbolic(d,						\
		{ SRPT_DIR_NONE, "none" },				\
		{ SRPT_DIR_READ, "read" },				\
		{ SRPT_DIR_WRITE, "write" })

TRACE_DEFINE_ENUM(SRPT_DATA_DESC_NONE);
TRACE_DEFINE_ENUM(SRPT_DATA_DESC_DIRECT);
TRACE_DEFINE_ENUM(SRPT_DATA_DESC_INDIRECT);
TRACE_DEFINE_ENUM(SRPT_DATA_DESC_IMM);

#define srpt_show_fmt(f)						\
	__print_symbolic(f,						\
		{ SRPT_DATA_DESC_NONE, "none" },			\
		{ SRPT_DATA_DESC_DIRECT, "direct" },			\
		{ SRPT_DATA_DESC_INDIRECT, "indirect" },		\
		{ SRPT_DATA_DESC_IMM, "imm" })

/* SAM status codes (SAM-5 table 40), written out: they are macros on 5.10. */
#define srpt_show_status(s)						\
	__print_symbolic(s,						\
		{ 0x00, "GOOD" },					\
		{ 0x02, "CHECK_CONDITION" },				\
		{ 0x04, "CONDITION_MET" },				\
		{ 0x08, "BUSY" },					\
		{ 0x18, "RESERVATION_CONFLICT" },			\
		{ 0x28, "TASK_SET_FULL" },				\
		{ 0x30, "ACA_ACTIVE" },					\
		{ 0x40, "TASK_ABORTED" })

TRACE_DEFINE_ENUM(SRPT_TSK_ABORT_TASK);
TRACE_DEFINE_ENUM(SRPT_TSK_ABORT_TASK_SET);
TRACE_DEFINE_ENUM(SRPT_TSK_CLEAR_TASK_SET);
TRACE_DEFINE_ENUM(SRPT_TSK_LUN_RESET);
TRACE_DEFINE_ENUM(SRPT_TSK_CLEAR_ACA);

#define srpt_show_tmf(f)						\
	__print_symbolic(f,						\
		{ SRPT_TSK_ABORT_TASK, "ABORT_TASK" },			\
		{ SRPT_TSK_ABORT_TASK_SET, "ABORT_TASK_SET" },		\
		{ SRPT_TSK_CLEAR_TASK_SET, "CLEAR_TASK_SET" },		\
		{ SRPT_TSK_LUN_RESET, "LUN_RESET" },			\
		{ SRPT_TSK_CLEAR_ACA, "CLEAR_ACA" })

TRACE_DEFINE_ENUM(SRPT_TSK_MGMT_SUCCESS);
TRACE_DEFINE_ENUM(SRPT_TSK_MGMT_FUNC_NOT_SUPP);
TRACE_DEFINE_ENUM(SRPT_TSK_MGMT_FAILED);

#define srpt_show_tmf_rsp(c)						\
	__print_symbolic(c,						\
		{ SRPT_TSK_MGMT_SUCCESS, "SUCCESS" },			\
		{ SRPT_TSK_MGMT_FUNC_NOT_SUPP, "FUNC_NOT_SUPP" },	\
		{ SRPT_TSK_MGMT_FAILED, "FAILED" })

TRACE_DEFINE_ENUM(IB_WC_SUCCESS);
TRACE_DEFINE_ENUM(IB_WC_WR_FLUSH_ERR);

#define srpt_show_wc(w)							\
	__print_symbolic(w,						\
		{ IB_WC_SUCCESS, "ok" },				\
		{ IB_WC_WR_FLUSH_ERR, "flushed" })

TRACE_DEFINE_ENUM(SRPT_SQ_FULL_READ_RETRY);
TRACE_DEFINE_ENUM(SRPT_SQ_FULL_RSP_RETRY);
TRACE_DEFINE_ENUM(SRPT_SQ_FULL_RSP_DEFER);

#define srpt_show_sq_act(a)						\
	__print_symbolic(a,						\
		{ SRPT_SQ_FULL_READ_RETRY, "read_retry" },		\
		{ SRPT_SQ_FULL_RSP_RETRY, "rsp_retry" },		\
		{ SRPT_SQ_FULL_RSP_DEFER, "rsp_defer" })

/*
 * srpt_login_accept - a login was accepted (the REP or accept was sent).
 * @ch: the new channel.
 * @i_port_id: initiator port ID of the login request (16 bytes).
 * @rsp_flags: SRP_LOGIN_RSP flags sent.
 */
TRACE_EVENT(srpt_login_accept,
	TP_PROTO(const struct srpt_rdma_ch *ch, const u8 *i_port_id,
		 u8 rsp_flags),
	TP_ARGS(ch, i_port_id, rsp_flags),
	TP_STRUCT__entry(
		__array(char, dev, SRPT_TRACE_DEV_LEN)
		__field(u32, port)
		__array(char, sess, SRPT_SESS_NAME_LEN)
		__array(u8, i_port_id, 16)
		__field(u32, qpn)
		__field(u32, rq_size)
		__field(u32, sq_wrs)
		__field(u16, imm_data_offset)
		__field(u8, rsp_flags)
		__field(bool, rdma_cm)
	),
	TP_fast_assign(
		strscpy(__entry->dev, srpt_sdev_name(ch->sport->sdev),
			SRPT_TRACE_DEV_LEN);
		__entry->port = ch->sport->port;
		strscpy(__entry->sess, ch->sess_name, SRPT_SESS_NAME_LEN);
		memcpy(__entry->i_port_id, i_port_id, 16);
		__entry->qpn = srpt_trace_qpn(ch);
		__entry->rq_size = ch->rq_size;
		__entry->sq_wrs = ch->sq_wrs;
		__entry->imm_data_offset = ch->imm_data_offset;
		__entry->rsp_flags = rsp_flags;
		__entry->rdma_cm = ch->using_rdma_cm;
	),
	TP_printk("%s/%u sess=%s i_port_id=0x%s cm=%s qpn=%u rq_size=%u imm_data_offset=%u rsp_flags=%#x sq_wrs=%u",
		  __entry->dev, __entry->port, __entry->sess,
		  __print_hex_str(__entry->i_port_id, 16),
		  __entry->rdma_cm ? "rdma" : "ib", __entry->qpn,
		  __entry->rq_size, __entry->imm_data_offset,
		  __entry->rsp_flags, __entry->sq_wrs)
);

/*
 * srpt_login_reject - a login was refused (an SRP_LOGIN_REJ was sent).
 * @sport: the port the request arrived on.
 * @name: connection name (the session name the ACL lookup uses first).
 * @i_port_id: initiator port ID of the login request (16 bytes).
 * @reason: SRPT_LOGIN_REJ_* reason sent.
 * @err: the errno of the failed stage.
 * @rdma_cm: the request came through the RDMA CM.
 */
TRACE_EVENT(srpt_login_reject,
	TP_PROTO(const struct srpt_port *sport, const char *name,
		 const u8 *i_port_id, u32 reason, int err, bool rdma_cm),
	TP_ARGS(sport, name, i_port_id, reason, err, rdma_cm),
	TP_STRUCT__entry(
		__array(char, dev, SRPT_TRACE_DEV_LEN)
		__field(u32, port)
		__array(char, name, SRPT_SESS_NAME_LEN)
		__array(u8, i_port_id, 16)
		__field(u32, reason)
		__field(int, err)
		__field(bool, rdma_cm)
	),
	TP_fast_assign(
		strscpy(__entry->dev, srpt_sdev_name(sport->sdev),
			SRPT_TRACE_DEV_LEN);
		__entry->port = sport->port;
		strscpy(__entry->name, name, SRPT_SESS_NAME_LEN);
		memcpy(__entry->i_port_id, i_port_id, 16);
		__entry->reason = reason;
		__entry->err = err;
		__entry->rdma_cm = rdma_cm;
	),
	TP_printk("%s/%u sess=%s i_port_id=0x%s cm=%s reason=%s (%#x) err=%d",
		  __entry->dev, __entry->port, __entry->name,
		  __print_hex_str(__entry->i_port_id, 16),
		  __entry->rdma_cm ? "rdma" : "ib",
		  srpt_show_rej_reason(__entry->reason), __entry->reason,
		  __entry->err)
);

/*
 * srpt_ch_state - a channel moved to a higher state.
 * @ch: the channel (its spinlock is held).
 * @old: the state it left.
 * @new: the state it entered.
 */
TRACE_EVENT(srpt_ch_state,
	TP_PROTO(const struct srpt_rdma_ch *ch, enum rdma_ch_state old,
		 enum rdma_ch_state new),
	TP_ARGS(ch, old, new),
	TP_STRUCT__entry(
		__array(char, dev, SRPT_TRACE_DEV_LEN)
		__field(u32, port)
		__array(char, sess, SRPT_SESS_NAME_LEN)
		__field(u32, qpn)
		__field(u8, old)
		__field(u8, new)
	),
	TP_fast_assign(
		strscpy(__entry->dev, srpt_sdev_name(ch->sport->sdev),
			SRPT_TRACE_DEV_LEN);
		__entry->port = ch->sport->port;
		strscpy(__entry->sess, ch->sess_name, SRPT_SESS_NAME_LEN);
		__entry->qpn = srpt_trace_qpn(ch);
		__entry->old = old;
		__entry->new = new;
	),
	TP_printk("%s/%u sess=%s qpn=%u %s -> %s",
		  __entry->dev, __entry->port, __entry->sess, __entry->qpn,
		  srpt_show_ch_state(__entry->old),
		  srpt_show_ch_state(__entry->new))
);

/*
 * srpt_cmd_start - an SRP_CMD was parsed and is about to get its data
 * buffers and go to LIO.
 * @ch: the channel.
 * @srp_cmd: the SRP_CMD (valid: it was parsed).
 * @tag: its tag.
 * @desc: the parse result.
 */
TRACE_EVENT(srpt_cmd_start,
	TP_PROTO(const struct srpt_rdma_ch *ch, const struct srpt_cmd *srp_cmd,
		 u64 tag, const struct srpt_cmd_desc *desc),
	TP_ARGS(ch, srp_cmd, tag, desc),
	TP_STRUCT__entry(
		__field(u64, tag)
		__field(u64, lun)
		__field(u32, qpn)
		__field(u32, data_len)
		__field(u8, opcode)
		__field(u8, dir)
		__field(u8, fmt)
		__field(u8, task_attr)
	),
	TP_fast_assign(
		__entry->tag = tag;
		__entry->lun = scsilun_to_int((struct scsi_lun *)srp_cmd->lun);
		__entry->qpn = srpt_trace_qpn(ch);
		__entry->data_len = desc->data_len;
		__entry->opcode = srp_cmd->cdb[0];
		__entry->dir = desc->dir;
		__entry->fmt = desc->fmt;
		__entry->task_attr = srp_cmd->task_attr & 7;
	),
	TP_printk("qpn=%u tag=%#llx lun=%llu opcode=0x%02x len=%u dir=%s desc=%s task_attr=%u",
		  __entry->qpn, __entry->tag, __entry->lun, __entry->opcode,
		  __entry->data_len, srpt_show_dir(__entry->dir),
		  srpt_show_fmt(__entry->fmt), __entry->task_attr)
);

/*
 * srpt_cmd_done - the send of the SRP_RSP of an SRP_CMD completed.
 * @ch: the channel.
 * @sio: the command's send context; its buffer holds the response.
 * @state: the state the command was in (the event fires for
 *	   SRPT_STATE_CMD_RSP_SENT only).
 * @wc_status: status of the send completion.
 *
 * The fields are read back from the response that was sent.
 */
TRACE_EVENT_CONDITION(srpt_cmd_done,
	TP_PROTO(const struct srpt_rdma_ch *ch,
		 const struct srpt_send_ioctx *sio,
		 enum srpt_command_state state, enum ib_wc_status wc_status),
	TP_ARGS(ch, sio, state, wc_status),
	TP_CONDITION(state == SRPT_STATE_CMD_RSP_SENT),
	TP_STRUCT__entry(
		__field(u64, tag)
		__field(u32, qpn)
		__field(u32, residual)
		__field(u32, req_lim_delta)
		__field(u8, status)
		__field(u8, flags)
		__field(u8, sense_key)
		__field(u8, asc)
		__field(u8, ascq)
		__field(u8, local)
		__field(u8, wc_status)
	),
	TP_fast_assign(
		struct srpt_rsp_summary sum;

		srpt_iu_rsp_summary(sio->ioctx.buf, ch->max_rsp_size, &sum);
		__entry->tag = sum.tag;
		__entry->qpn = srpt_trace_qpn(ch);
		__entry->residual = sum.residual;
		__entry->req_lim_delta = sum.req_lim_delta;
		__entry->status = sum.status;
		__entry->flags = sum.flags;
		__entry->sense_key = sum.sense_key;
		__entry->asc = sum.asc;
		__entry->ascq = sum.ascq;
		__entry->local = sio->local_rsp;
		__entry->wc_status = wc_status;
	),
	TP_printk("qpn=%u tag=%#llx status=%s sense=%x/%02x/%02x rsp_flags=%#x residual=%u credits=%u local=%u wc=%s",
		  __entry->qpn, __entry->tag, srpt_show_status(__entry->status),
		  __entry->sense_key, __entry->asc, __entry->ascq,
		  __entry->flags, __entry->residual, __entry->req_lim_delta,
		  __entry->local, srpt_show_wc(__entry->wc_status))
);

/*
 * srpt_tmf_start - an SRP_TSK_MGMT is handled.
 * @ch: the channel.
 * @tsk: the SRP_TSK_MGMT (at least its fixed part was received unless
 *	 @truncated).
 * @tag: its tag.
 * @truncated: the IU is shorter than its fixed part; only @tag is valid.
 */
TRACE_EVENT(srpt_tmf_start,
	TP_PROTO(const struct srpt_rdma_ch *ch,
		 const struct srpt_tsk_mgmt *tsk, u64 tag, bool truncated),
	TP_ARGS(ch, tsk, tag, truncated),
	TP_STRUCT__entry(
		__field(u64, tag)
		__field(u64, lun)
		__field(u64, task_tag)
		__field(u32, qpn)
		__field(u8, func)
		__field(bool, truncated)
	),
	TP_fast_assign(
		__entry->tag = tag;
		__entry->lun = truncated ? 0 :
			scsilun_to_int((struct scsi_lun *)tsk->lun);
		__entry->task_tag = truncated ? 0 : tsk->task_tag;
		__entry->qpn = srpt_trace_qpn(ch);
		__entry->func = truncated ? 0 : tsk->tsk_mgmt_func;
		__entry->truncated = truncated;
	),
	TP_printk("qpn=%u tag=%#llx lun=%llu func=%s task_tag=%#llx truncated=%u",
		  __entry->qpn, __entry->tag, __entry->lun,
		  srpt_show_tmf(__entry->func), __entry->task_tag,
		  __entry->truncated)
);

/*
 * srpt_tmf_done - the send of the response of an SRP_TSK_MGMT completed.
 * @ch: the channel.
 * @sio: the TMF's send context; its buffer holds the response.
 * @state: the state the TMF was in (the event fires for
 *	   SRPT_STATE_MGMT_RSP_SENT only).
 * @wc_status: status of the send completion.
 */
TRACE_EVENT_CONDITION(srpt_tmf_done,
	TP_PROTO(const struct srpt_rdma_ch *ch,
		 const struct srpt_send_ioctx *sio,
		 enum srpt_command_state state, enum ib_wc_status wc_status),
	TP_ARGS(ch, sio, state, wc_status),
	TP_CONDITION(state == SRPT_STATE_MGMT_RSP_SENT),
	TP_STRUCT__entry(
		__field(u64, tag)
		__field(u32, qpn)
		__field(u8, rsp_code)
		__field(u8, local)
		__field(u8, wc_status)
	),
	TP_fast_assign(
		struct srpt_rsp_summary sum;

		srpt_iu_rsp_summary(sio->ioctx.buf, ch->max_rsp_size, &sum);
		__entry->tag = sum.tag;
		__entry->qpn = srpt_trace_qpn(ch);
		__entry->rsp_code = sum.rsp_code;
		__entry->local = sio->local_rsp;
		__entry->wc_status = wc_status;
	),
	TP_printk("qpn=%u tag=%#llx result=%s local=%u wc=%s",
		  __entry->qpn, __entry->tag,
		  srpt_show_tmf_rsp(__entry->rsp_code), __entry->local,
		  srpt_show_wc(__entry->wc_status))
);

/*
 * srpt_sq_full - RDMA READs or a response did not fit in the send queue.
 * @ch: the channel.
 * @tag: tag of the command.
 * @act: what happens to it.
 * @needed: send WRs it needs.
 */
TRACE_EVENT(srpt_sq_full,
	TP_PROTO(const struct srpt_rdma_ch *ch, u64 tag,
		 enum srpt_sq_full_act act, u32 needed),
	TP_ARGS(ch, tag, act, needed),
	TP_STRUCT__entry(
		__field(u64, tag)
		__array(char, sess, SRPT_SESS_NAME_LEN)
		__field(u32, qpn)
		__field(u32, needed)
		__field(int, avail)
		__field(u8, act)
	),
	TP_fast_assign(
		__entry->tag = tag;
		strscpy(__entry->sess, ch->sess_name, SRPT_SESS_NAME_LEN);
		__entry->qpn = srpt_trace_qpn(ch);
		__entry->needed = needed;
		__entry->avail = atomic_read(&ch->sq_wr_avail);
		__entry->act = act;
	),
	TP_printk("sess=%s qpn=%u tag=%#llx %s needed=%u avail=%d",
		  __entry->sess, __entry->qpn, __entry->tag,
		  srpt_show_sq_act(__entry->act), __entry->needed,
		  __entry->avail)
);

#endif /* SRPT_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE srpt_trace
#include <trace/define_trace.h>
