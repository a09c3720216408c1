/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_stats.h - counters, the login reject history and the text of the
 * ACL "info" attribute (src/stats.c, pure code: no allocation, locking or
 * logging; tests/unit/test_stats.c).
 *
 * The driver takes a snapshot of its live counters (struct srpt_ch_stats in
 * srpt.h) into the plain structures below and lets this code format them.
 * docs/design.md, "Counters and sessions" says where each text appears and
 * why; man/ib_srpt.4 documents every counter.
 */
#ifndef SRPT_STATS_H
#define SRPT_STATS_H

#include "srpt_pure.h"
#include "srpt_ch_state.h"

/* Task management functions, by kind (struct srpt_counters.tmf). */
enum srpt_tmf_kind {
	SRPT_TMF_ABORT_TASK,
	SRPT_TMF_ABORT_TASK_SET,
	SRPT_TMF_CLEAR_TASK_SET,
	SRPT_TMF_LUN_RESET,
	SRPT_TMF_CLEAR_ACA,
	SRPT_TMF_OTHER,
	SRPT_TMF_KINDS
};

enum {
	/* SRP_LOGIN_REJ reasons 0x10000..0x10006, then "other" */
	SRPT_REJ_KINDS		= 8,
	/* login rejects kept per port */
	SRPT_REJ_HISTORY	= 8,
	/* bytes of an initiator name kept in the history, with the NUL */
	SRPT_REJ_NAME_LEN	= 48,
	/* bytes of "0x" + 32 hex digits, with the NUL */
	SRPT_STATS_ID_LEN	= 35,
};

/**
 * struct srpt_counters - a snapshot of the counters of a channel, or their
 *	sum over a port.
 * @cmds_read: SRP_CMDs with a data-in (read) descriptor.
 * @cmds_write: SRP_CMDs with a data-out (write) descriptor.
 * @cmds_none: SRP_CMDs without data.
 * @bytes_read: data length of the read commands (as the descriptors ask).
 * @bytes_write: data length of the write commands.
 * @tmf: SRP_TSK_MGMTs by enum srpt_tmf_kind.
 * @sq_full: responses that found the send queue full (retried by LIO or
 *	     deferred until room came back).
 * @rdma_errors: failed send-side work completions (RDMA READ, response
 *		 send with its RDMA WRITEs), flushes not counted.
 * @recv_errors: failed receive completions, flushes not counted.
 * @short_ius: IUs dropped because they were too short to carry a tag.
 * @credits: credits granted: those of the login response plus those that
 *	     rode on every response sent.
 */
struct srpt_counters {
	u64	cmds_read;
	u64	cmds_write;
	u64	cmds_none;
	u64	bytes_read;
	u64	bytes_write;
	u64	tmf[SRPT_TMF_KINDS];
	u64	sq_full;
	u64	rdma_errors;
	u64	recv_errors;
	u64	short_ius;
	u64	credits;
};

/**
 * struct srpt_rej_record - one rejected login.
 * @time: seconds since the epoch (UTC).
 * @reason: SRP_LOGIN_REJ reason code.
 * @i_port_id: initiator port ID of the request ("0x" + 32 hex digits).
 * @initiator: name of the connection's source (as the session name).
 */
struct srpt_rej_record {
	s64	time;
	u32	reason;
	char	i_port_id[SRPT_STATS_ID_LEN];
	char	initiator[SRPT_REJ_NAME_LEN];
};

/**
 * struct srpt_rej_history - login reject counters and the latest rejects.
 * @count: rejects by srpt_rej_kind().
 * @total: rejects ever recorded; the next record goes to
 *	   @rec[@total % SRPT_REJ_HISTORY].
 * @rec: the last min(@total, SRPT_REJ_HISTORY) rejects.
 */
struct srpt_rej_history {
	u64			count[SRPT_REJ_KINDS];
	u64			total;
	struct srpt_rej_record	rec[SRPT_REJ_HISTORY];
};

/**
 * struct srpt_text - a bounded text buffer (a configfs page).
 * @buf: the buffer, always NUL-terminated.
 * @size: its size.
 * @len: bytes written, without the NUL.
 * @truncated: a line did not fit and was left out.
 */
struct srpt_text {
	char	*buf;
	size_t	size;
	size_t	len;
	bool	truncated;
};

/**
 * struct srpt_info_ch - what the info attribute shows of one channel.
 * @id: channel ID, unique while the module is loaded.
 * @state: channel state.
 * @addr: initiator address: the port GUID (IB CM) or the IP address
 *	  (RDMA CM); one word.
 * @transport: "IB", "RoCE" or "iWARP"; one word.
 * @i_port_id: initiator port ID of the login ("0x" + 32 hex digits).
 * @t_port_id: target port ID of the login.
 * @rq_size: credits granted at login (send contexts).
 * @req_lim: credits the initiator holds now (as the target counts them).
 * @c: the channel's counters.
 */
struct srpt_info_ch {
	u32			id;
	enum rdma_ch_state	state;
	const char		*addr;
	const char		*transport;
	const char		*i_port_id;
	const char		*t_port_id;
	u32			rq_size;
	int			req_lim;
	struct srpt_counters	c;
};

unsigned int srpt_tmf_kind(u8 srp_tsk_mgmt_func);
const char *srpt_tmf_kind_name(unsigned int kind);
unsigned int srpt_rej_kind(u32 reason);
const char *srpt_rej_kind_name(unsigned int kind);
void srpt_counters_add(struct srpt_counters *sum,
		       const struct srpt_counters *c);
void srpt_rej_history_add(struct srpt_rej_history *h, s64 time, u32 reason,
			  const char *i_port_id, const char *initiator);

void srpt_text_init(struct srpt_text *t, char *buf, size_t size);
size_t srpt_text_end(struct srpt_text *t);
void srpt_info_no_session(struct srpt_text *t, const char *acl);
void srpt_info_session(struct srpt_text *t, const char *acl,
		       const struct srpt_info_ch *first, unsigned int n_live,
		       unsigned int n_connecting);
void srpt_info_conn(struct srpt_text *t, const struct srpt_info_ch *ch);
void srpt_info_counters_head(struct srpt_text *t);
void srpt_info_ch_counters(struct srpt_text *t, const struct srpt_info_ch *ch);
void srpt_format_tmf_counts(struct srpt_text *t, const u64 *tmf);
void srpt_format_rej_counts(struct srpt_text *t, const u64 *count);
void srpt_format_rej_history(struct srpt_text *t,
			     const struct srpt_rej_history *h);
int srpt_format_utc(char *buf, size_t size, s64 time);

#endif /* SRPT_STATS_H */
