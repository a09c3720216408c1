// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - the text of the ACL "info" attribute, of the port counters and
 * of the login reject history; counter kinds and the reject ring.
 *
 * Pure code: it includes only srpt_pure.h and its own headers, so the unit
 * tests in tests/unit/test_stats.c build it in userspace, and
 * tests/unit/rtslib_info.py feeds its output to rtslib-fb's own parser.
 *
 * The info text is what rtslib-fb's NodeACL session parser reads (the
 * format LIO's iSCSI fabric writes; docs/design.md, "Counters and
 * sessions"): it looks at lines starting with "InitiatorName:",
 * "InitiatorAlias:" and "LIO Session ID:" (the number after the colon and
 * the word after "SessionType:"), at the word after "_STATE_" in lines
 * holding "TARG_SESS_STATE_" or "TARG_CONN_STATE_" (the latter also the
 * number after the first colon, the connection ID), and at the second and
 * third word of any other line holding "Address" (address, transport) for
 * the connection before it. Every other line must hold none of these
 * words, and a connection line is always followed by its address line.
 */
#include "srpt_stats.h"
#include "srpt_proto.h"

/* Bytes kept free for the line that says the text was cut short. */
#define SRPT_TEXT_RESERVE	24

static const char * const srpt_tmf_names[SRPT_TMF_KINDS] = {
	[SRPT_TMF_ABORT_TASK]		= "abort_task",
	[SRPT_TMF_ABORT_TASK_SET]	= "abort_task_set",
	[SRPT_TMF_CLEAR_TASK_SET]	= "clear_task_set",
	[SRPT_TMF_LUN_RESET]		= "lun_reset",
	[SRPT_TMF_CLEAR_ACA]		= "clear_aca",
	[SRPT_TMF_OTHER]		= "other",
};

static const char * const srpt_rej_names[SRPT_REJ_KINDS] = {
	"unable_establish_channel",
	"insufficient_resources",
	"it_iu_length_too_large",
	"unable_associate_channel",
	"unsupported_descriptor_fmt",
	"multichannel_unsupported",
	"channel_limit_reached",
	"other",
};

/**
 * srpt_tmf_kind() - the counter kind of an SRP task management function.
 * @srp_tsk_mgmt_func: tsk_mgmt_func of the SRP_TSK_MGMT IU.
 *
 * Return: an enum srpt_tmf_kind (SRPT_TMF_OTHER for unknown functions).
 */
unsigned int srpt_tmf_kind(u8 srp_tsk_mgmt_func)
{
	switch (srp_tsk_mgmt_func) {
	case SRPT_TSK_ABORT_TASK:
		return SRPT_TMF_ABORT_TASK;
	case SRPT_TSK_ABORT_TASK_SET:
		return SRPT_TMF_ABORT_TASK_SET;
	case SRPT_TSK_CLEAR_TASK_SET:
		return SRPT_TMF_CLEAR_TASK_SET;
	case SRPT_TSK_LUN_RESET:
		return SRPT_TMF_LUN_RESET;
	case SRPT_TSK_CLEAR_ACA:
		return SRPT_TMF_CLEAR_ACA;
	default:
		return SRPT_TMF_OTHER;
	}
}

/**
 * srpt_tmf_kind_name() - name of a task management kind.
 * @kind: enum srpt_tmf_kind; larger values are "other".
 *
 * Return: a static one-word string.
 */
const char *srpt_tmf_kind_name(unsigned int kind)
{
	return srpt_tmf_names[kind < SRPT_TMF_KINDS ? kind : SRPT_TMF_OTHER];
}

/**
 * srpt_rej_kind() - the counter index of an SRP_LOGIN_REJ reason.
 * @reason: SRPT_LOGIN_REJ_* reason code.
 *
 * Return: 0..6 for the reasons 0x10000..0x10006, SRPT_REJ_KINDS - 1 for
 * any other value.
 */
unsigned int srpt_rej_kind(u32 reason)
{
	u32 i = reason - SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;

	return reason >= SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL &&
	       i < SRPT_REJ_KINDS - 1 ? i : SRPT_REJ_KINDS - 1;
}

/**
 * srpt_rej_kind_name() - name of a reject counter.
 * @kind: index from srpt_rej_kind(); larger values are "other".
 *
 * Return: a static one-word string.
 */
const char *srpt_rej_kind_name(unsigned int kind)
{
	return srpt_rej_names[kind < SRPT_REJ_KINDS ? kind :
			      SRPT_REJ_KINDS - 1];
}

/**
 * srpt_counters_add() - add one set of counters to another.
 * @sum: the sum.
 * @c: the counters added.
 */
void srpt_counters_add(struct srpt_counters *sum,
		       const struct srpt_counters *c)
{
	int i;

	sum->cmds_read += c->cmds_read;
	sum->cmds_write += c->cmds_write;
	sum->cmds_none += c->cmds_none;
	sum->bytes_read += c->bytes_read;
	sum->bytes_write += c->bytes_write;
	for (i = 0; i < SRPT_TMF_KINDS; i++)
		sum->tmf[i] += c->tmf[i];
	sum->sq_full += c->sq_full;
	sum->rdma_errors += c->rdma_errors;
	sum->recv_errors += c->recv_errors;
	sum->short_ius += c->short_ius;
	sum->credits += c->credits;
}

/* Copy the string @src into @dst of @size bytes, cut short if needed. */
static void srpt_copy_name(char *dst, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size - 1) : 0;

	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

/**
 * srpt_rej_history_add() - count a rejected login and remember it.
 * @h: the port's history.
 * @time: seconds since the epoch.
 * @reason: SRP_LOGIN_REJ reason code.
 * @i_port_id: initiator port ID string; may be NULL.
 * @initiator: name of the connection's source; may be NULL. Cut short to
 *	       SRPT_REJ_NAME_LEN - 1 bytes.
 *
 * The oldest record is overwritten once SRPT_REJ_HISTORY are kept.
 */
void srpt_rej_history_add(struct srpt_rej_history *h, s64 time, u32 reason,
			  const char *i_port_id, const char *initiator)
{
	struct srpt_rej_record *r = &h->rec[h->total % SRPT_REJ_HISTORY];

	h->count[srpt_rej_kind(reason)]++;
	h->total++;
	r->time = time;
	r->reason = reason;
	srpt_copy_name(r->i_port_id, sizeof(r->i_port_id), i_port_id);
	srpt_copy_name(r->initiator, sizeof(r->initiator), initiator);
}

/**
 * srpt_text_init() - start a text in a buffer.
 * @t: the text.
 * @buf: the buffer (for configfs: the page).
 * @size: its size; at least SRPT_TEXT_RESERVE + 1 bytes are needed for
 *	  anything to be written.
 */
void srpt_text_init(struct srpt_text *t, char *buf, size_t size)
{
	t->buf = buf;
	t->size = size;
	t->len = 0;
	t->truncated = false;
	if (size)
		buf[0] = '\0';
}

/*
 * Append one or more whole lines, or nothing: what does not fit, leaving
 * SRPT_TEXT_RESERVE bytes for the end line, is left out and the text is
 * marked truncated, so that no line (and no connection without its
 * address line) is ever cut in half.
 */
static __printf(2, 3) void srpt_text_add(struct srpt_text *t,
					 const char *fmt, ...)
{
	size_t room;
	va_list ap;
	int n;

	if (t->truncated || t->size < t->len + SRPT_TEXT_RESERVE + 1)
		goto full;
	room = t->size - t->len - SRPT_TEXT_RESERVE;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room)
		goto full;
	t->len += n;
	return;
full:
	t->truncated = true;
	if (t->size)
		t->buf[t->len] = '\0';
}

/**
 * srpt_text_end() - finish a text.
 * @t: the text.
 *
 * If a line was left out, a last line "(truncated)" says so.
 *
 * Return: the length of the text (what a configfs show returns).
 */
size_t srpt_text_end(struct srpt_text *t)
{
	if (t->truncated && t->size >= t->len + sizeof("(truncated)\n")) {
		memcpy(t->buf + t->len, "(truncated)\n", sizeof("(truncated)\n"));
		t->len += sizeof("(truncated)\n") - 1;
	}
	return t->len;
}

/**
 * srpt_info_no_session() - the info text of an ACL without channels.
 * @t: the text.
 * @acl: the ACL (initiator) name.
 */
void srpt_info_no_session(struct srpt_text *t, const char *acl)
{
	srpt_text_add(t, "No active SRP session for Initiator Endpoint: %s\n",
		      acl);
}

/* iSCSI's connection state words for our channel states. */
static const char *srpt_info_conn_state(enum rdma_ch_state state)
{
	switch (state) {
	case CH_CONNECTING:
		return "IN_LOGIN";
	case CH_LIVE:
		return "LOGGED_IN";
	case CH_DISCONNECTING:
		return "IN_LOGOUT";
	case CH_DRAINING:
		return "CLEANUP_WAIT";
	default:
		return "FREE";
	}
}

/**
 * srpt_info_session() - the session part of the info text.
 * @t: the text.
 * @acl: the ACL (initiator) name.
 * @first: the ACL's oldest channel: its ID is the session ID and its
 *	   initiator port ID the alias.
 * @n_live: channels of the ACL that are live.
 * @n_connecting: channels of the ACL that are still logging in.
 *
 * The session state is LOGGED_IN while a channel is live, ACTIVE while
 * channels log in and none is live, FAILED when all are closing.
 */
void srpt_info_session(struct srpt_text *t, const char *acl,
		       const struct srpt_info_ch *first, unsigned int n_live,
		       unsigned int n_connecting)
{
	const char *state = n_live ? "LOGGED_IN" :
			    n_connecting ? "ACTIVE" : "FAILED";

	srpt_text_add(t, "InitiatorName: %s\nInitiatorAlias: %s\n", acl,
		      first->i_port_id);
	srpt_text_add(t, "LIO Session ID: %u   SessionType: Normal\n",
		      first->id);
	srpt_text_add(t, "Session State: TARG_SESS_STATE_%s\n", state);
	srpt_text_add(t, "----------------------[SRP Channels]----------------------\n");
}

/**
 * srpt_info_conn() - the connection lines of one channel.
 * @t: the text.
 * @ch: the channel.
 *
 * Two lines, written together or not at all: "CID: <id>  Connection
 * State: TARG_CONN_STATE_<state>" and "   Address <address> <transport>"
 * followed by the initiator and target port IDs of the login.
 */
void srpt_info_conn(struct srpt_text *t, const struct srpt_info_ch *ch)
{
	srpt_text_add(t, "CID: %u  Connection State: TARG_CONN_STATE_%s\n"
		      "   Address %s %s  I_T %s %s\n",
		      ch->id, srpt_info_conn_state(ch->state), ch->addr,
		      ch->transport, ch->i_port_id, ch->t_port_id);
}

/**
 * srpt_info_counters_head() - the line before the channel counters.
 * @t: the text.
 */
void srpt_info_counters_head(struct srpt_text *t)
{
	srpt_text_add(t, "------------------[SRP Channel Counters]------------------\n");
}

#define SRPT_ULL(x)	((unsigned long long)(x))

/**
 * srpt_info_ch_counters() - the counter lines of one channel.
 * @t: the text.
 * @ch: the channel.
 *
 * Five lines, each starting with "CID <id> " (no colon after "CID", so
 * that rtslib takes none of them for a connection).
 */
void srpt_info_ch_counters(struct srpt_text *t, const struct srpt_info_ch *ch)
{
	const struct srpt_counters *c = &ch->c;
	/* six names of at most 14 bytes and six numbers of at most 20 */
	char tmf[SRPT_TMF_KINDS * 37];
	unsigned int i, n;

	srpt_text_add(t, "CID %u commands: read %llu write %llu none %llu\n",
		      ch->id, SRPT_ULL(c->cmds_read), SRPT_ULL(c->cmds_write),
		      SRPT_ULL(c->cmds_none));
	srpt_text_add(t, "CID %u bytes: read %llu write %llu\n", ch->id,
		      SRPT_ULL(c->bytes_read), SRPT_ULL(c->bytes_write));
	for (i = 0, n = 0; i < SRPT_TMF_KINDS; i++)
		n += snprintf(tmf + n, sizeof(tmf) - n, " %s %llu",
			      srpt_tmf_names[i], SRPT_ULL(c->tmf[i]));
	srpt_text_add(t, "CID %u task_mgmt:%s\n", ch->id, tmf);
	srpt_text_add(t, "CID %u errors: sq_full %llu rdma %llu recv %llu short_iu %llu\n",
		      ch->id, SRPT_ULL(c->sq_full), SRPT_ULL(c->rdma_errors),
		      SRPT_ULL(c->recv_errors), SRPT_ULL(c->short_ius));
	srpt_text_add(t, "CID %u credits: granted %llu held %d rq_size %u\n",
		      ch->id, SRPT_ULL(c->credits), ch->req_lim, ch->rq_size);
}

/**
 * srpt_format_tmf_counts() - "<kind> <count>" lines of the TMF counters.
 * @t: the text.
 * @tmf: SRPT_TMF_KINDS counters.
 */
void srpt_format_tmf_counts(struct srpt_text *t, const u64 *tmf)
{
	unsigned int i;

	for (i = 0; i < SRPT_TMF_KINDS; i++)
		srpt_text_add(t, "%s %llu\n", srpt_tmf_names[i],
			      SRPT_ULL(tmf[i]));
}

/**
 * srpt_format_rej_counts() - "<reason> <count>" lines of the reject
 *	counters.
 * @t: the text.
 * @count: SRPT_REJ_KINDS counters.
 */
void srpt_format_rej_counts(struct srpt_text *t, const u64 *count)
{
	unsigned int i;

	for (i = 0; i < SRPT_REJ_KINDS; i++)
		srpt_text_add(t, "%s %llu\n", srpt_rej_names[i],
			      SRPT_ULL(count[i]));
}

/* Days since 1970-01-01 to a proleptic Gregorian date. */
static void srpt_civil_date(s64 days, s64 *y, unsigned int *m,
			    unsigned int *d)
{
	s64 era, doe, yoe, doy, mp;

	days += 719468;		/* from 0000-03-01 */
	era = (days >= 0 ? days : days - 146096) / 146097;
	doe = days - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = yoe + era * 400 + (*m <= 2);
}

/**
 * srpt_format_utc() - format a time as ISO 8601 UTC, "YYYY-MM-DDThh:mm:ssZ".
 * @buf: output buffer.
 * @size: its size; 21 bytes hold any time of the years 0 to 9999.
 * @time: seconds since the epoch.
 *
 * Return: the length written, or -ENOSPC if @size is too small (then @buf
 * holds an empty string if @size is not zero).
 */
int srpt_format_utc(char *buf, size_t size, s64 time)
{
	s64 days = time >= 0 ? time / 86400 : -((-time + 86399) / 86400);
	s64 secs = time - days * 86400;
	unsigned int m, d;
	s64 y;
	int n;

	srpt_civil_date(days, &y, &m, &d);
	n = snprintf(buf, size, "%04lld-%02u-%02uT%02u:%02u:%02uZ",
		     (long long)y, m, d, (unsigned int)(secs / 3600),
		     (unsigned int)(secs / 60 % 60), (unsigned int)(secs % 60));
	if (n < 0 || (size_t)n >= size) {
		if (size)
			buf[0] = '\0';
		return -ENOSPC;
	}
	return n;
}

/**
 * srpt_format_rej_history() - the last rejected logins, oldest first.
 * @t: the text.
 * @h: the history.
 *
 * One line per reject: "<time> <reason code> <reason name> <initiator
 * port ID> <initiator>", the time as by srpt_format_utc().
 */
void srpt_format_rej_history(struct srpt_text *t,
			     const struct srpt_rej_history *h)
{
	u64 n = h->total < SRPT_REJ_HISTORY ? h->total : SRPT_REJ_HISTORY;
	const struct srpt_rej_record *r;
	char when[32];
	u64 i;

	for (i = h->total - n; i < h->total; i++) {
		r = &h->rec[i % SRPT_REJ_HISTORY];
		srpt_format_utc(when, sizeof(when), r->time);
		srpt_text_add(t, "%s %#010x %s %s %s\n", when, r->reason,
			      srpt_rej_kind_name(srpt_rej_kind(r->reason)),
			      r->i_port_id[0] ? r->i_port_id : "-",
			      r->initiator[0] ? r->initiator : "-");
	}
}
