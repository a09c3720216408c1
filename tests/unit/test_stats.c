// SPDX-License-Identifier: GPL-2.0
/*
 * test_stats.c - unit tests of src/stats.c: counter kinds, the reject
 * history, the port counter texts and the ACL info text (docs/design.md,
 * "Counters and sessions").
 *
 * "test_stats --dump DIR" writes sample info texts to DIR instead
 * (info-none, info-two, info-full), for tests/unit/rtslib_info.py, which
 * feeds them to rtslib-fb's parser.
 */
#include <stdlib.h>
#include "srpt_stats.h"
#include "srpt_proto.h"
#include "unit.h"

#define PAGE 4096

static const char ipid[] = "0x00000000000000000000000000000abc";
static const char tpid[] = "0x0000000000000001fe80000000000001";

static void sample_ch(struct srpt_info_ch *ch, unsigned int id,
		      enum rdma_ch_state state)
{
	memset(ch, 0, sizeof(*ch));
	ch->id = id;
	ch->state = state;
	ch->addr = id % 2 ? "192.0.2.1" : "0000:00ff:fe00:0001";
	ch->transport = id % 2 ? "RoCE" : "IB";
	ch->i_port_id = ipid;
	ch->t_port_id = tpid;
	ch->rq_size = 128;
	ch->req_lim = 127;
	ch->c.cmds_read = 100;
	ch->c.cmds_write = 50;
	ch->c.cmds_none = 3;
	ch->c.bytes_read = 409600;
	ch->c.bytes_write = 409600;
	ch->c.tmf[SRPT_TMF_ABORT_TASK] = 1;
	ch->c.credits = 281;
}

/* The info text of an ACL with @n channels, starting at ID 7. */
static size_t sample_info(char *buf, size_t size, unsigned int n)
{
	struct srpt_info_ch ch[64];
	struct srpt_text t;
	unsigned int i;

	srpt_text_init(&t, buf, size);
	if (!n) {
		srpt_info_no_session(&t, ipid);
		return srpt_text_end(&t);
	}
	for (i = 0; i < n; i++)
		sample_ch(&ch[i], 7 + i, i ? CH_CONNECTING : CH_LIVE);
	srpt_info_session(&t, ipid, &ch[0], 1, n - 1);
	for (i = 0; i < n; i++)
		srpt_info_conn(&t, &ch[i]);
	srpt_info_counters_head(&t);
	for (i = 0; i < n; i++)
		srpt_info_ch_counters(&t, &ch[i]);
	return srpt_text_end(&t);
}

static void test_kinds(void)
{
	CHECK_EQ(srpt_tmf_kind(SRPT_TSK_ABORT_TASK), SRPT_TMF_ABORT_TASK);
	CHECK_EQ(srpt_tmf_kind(SRPT_TSK_LUN_RESET), SRPT_TMF_LUN_RESET);
	CHECK_EQ(srpt_tmf_kind(SRPT_TSK_CLEAR_ACA), SRPT_TMF_CLEAR_ACA);
	CHECK_EQ(srpt_tmf_kind(0x80), SRPT_TMF_OTHER);
	CHECK_STR_EQ(srpt_tmf_kind_name(SRPT_TMF_LUN_RESET), "lun_reset");
	CHECK_STR_EQ(srpt_tmf_kind_name(99), "other");

	CHECK_EQ(srpt_rej_kind(SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL), 0);
	CHECK_EQ(srpt_rej_kind(SRPT_LOGIN_REJ_CHANNEL_LIMIT_REACHED), 6);
	CHECK_EQ(srpt_rej_kind(0x00010007), 7);
	CHECK_EQ(srpt_rej_kind(0), 7);
	CHECK_EQ(srpt_rej_kind(0xffffffff), 7);
	CHECK_STR_EQ(srpt_rej_kind_name(srpt_rej_kind(SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES)),
		     "insufficient_resources");
	CHECK_STR_EQ(srpt_rej_kind_name(srpt_rej_kind(SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE)),
		     "it_iu_length_too_large");
	CHECK_STR_EQ(srpt_rej_kind_name(1000), "other");
}

static void test_counters_add(void)
{
	struct srpt_counters a = { .cmds_read = 1, .credits = 5 };
	struct srpt_counters b = { .cmds_read = 2, .bytes_write = 7,
				   .tmf[SRPT_TMF_OTHER] = 3, .short_ius = 1 };

	srpt_counters_add(&a, &b);
	CHECK_EQ(a.cmds_read, 3);
	CHECK_EQ(a.bytes_write, 7);
	CHECK_EQ(a.tmf[SRPT_TMF_OTHER], 3);
	CHECK_EQ(a.short_ius, 1);
	CHECK_EQ(a.credits, 5);
}

static void test_utc(void)
{
	char buf[32];

	CHECK_EQ(srpt_format_utc(buf, sizeof(buf), 0), 20);
	CHECK_STR_EQ(buf, "1970-01-01T00:00:00Z");
	srpt_format_utc(buf, sizeof(buf), 951782400);	/* leap day 2000 */
	CHECK_STR_EQ(buf, "2000-02-29T00:00:00Z");
	srpt_format_utc(buf, sizeof(buf), 1796225412);
	CHECK_STR_EQ(buf, "2026-12-02T15:30:12Z");
	srpt_format_utc(buf, sizeof(buf), 4102444799LL);
	CHECK_STR_EQ(buf, "2099-12-31T23:59:59Z");
	srpt_format_utc(buf, sizeof(buf), -1);
	CHECK_STR_EQ(buf, "1969-12-31T23:59:59Z");
	CHECK_EQ(srpt_format_utc(buf, 20, 0), -ENOSPC);
	CHECK_STR_EQ(buf, "");
}

static void test_history(void)
{
	struct srpt_rej_history h;
	struct srpt_text t;
	char buf[PAGE], name[8];
	unsigned int i;
	char *p;

	memset(&h, 0, sizeof(h));
	srpt_text_init(&t, buf, sizeof(buf));
	srpt_format_rej_history(&t, &h);
	CHECK_EQ(srpt_text_end(&t), 0);
	CHECK_STR_EQ(buf, "");

	srpt_rej_history_add(&h, 0, SRPT_LOGIN_REJ_CHANNEL_LIMIT_REACHED,
			     ipid, "192.0.2.1");
	srpt_text_init(&t, buf, sizeof(buf));
	srpt_format_rej_history(&t, &h);
	srpt_text_end(&t);
	CHECK_STR_EQ(buf, "1970-01-01T00:00:00Z 0x00010006 channel_limit_reached 0x00000000000000000000000000000abc 192.0.2.1\n");
	CHECK_EQ(h.count[6], 1);

	/* eleven more: the oldest four are gone, order oldest first */
	for (i = 1; i <= 11; i++) {
		snprintf(name, sizeof(name), "n%u", i);
		srpt_rej_history_add(&h, i, SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL + i % 8,
				     NULL, name);
	}
	CHECK_EQ(h.total, 12);
	CHECK_EQ(h.count[7], 1);	/* 0x10007: other */
	srpt_text_init(&t, buf, sizeof(buf));
	srpt_format_rej_history(&t, &h);
	srpt_text_end(&t);
	CHECK(strncmp(buf, "1970-01-01T00:00:04Z 0x00010004 unsupported_descriptor_fmt - n4\n", 64) == 0);
	p = strrchr(buf, '\n');
	*p = '\0';
	p = strrchr(buf, '\n');
	CHECK_STR_EQ(p + 1, "1970-01-01T00:00:11Z 0x00010003 unable_associate_channel - n11");

	/* names are cut, never overrun */
	srpt_rej_history_add(&h, 0, 0, "0x0123456789abcdef0123456789abcdef0123",
			     "a-very-long-initiator-name-that-does-not-fit-into-48");
	CHECK_EQ(strlen(h.rec[12 % SRPT_REJ_HISTORY].initiator),
		 SRPT_REJ_NAME_LEN - 1);
	CHECK_EQ(strlen(h.rec[12 % SRPT_REJ_HISTORY].i_port_id), 34);
}

static void test_counts(void)
{
	u64 tmf[SRPT_TMF_KINDS] = { 1, 0, 0, 2, 0, 5 };
	u64 rej[SRPT_REJ_KINDS] = { 0, 2, 4, 1, 0, 0, 1, 0 };
	struct srpt_text t;
	char buf[PAGE];

	srpt_text_init(&t, buf, sizeof(buf));
	srpt_format_tmf_counts(&t, tmf);
	srpt_text_end(&t);
	CHECK_STR_EQ(buf, "abort_task 1\nabort_task_set 0\nclear_task_set 0\nlun_reset 2\nclear_aca 0\nother 5\n");
	srpt_text_init(&t, buf, sizeof(buf));
	srpt_format_rej_counts(&t, rej);
	srpt_text_end(&t);
	CHECK_STR_EQ(buf, "unable_establish_channel 0\ninsufficient_resources 2\nit_iu_length_too_large 4\nunable_associate_channel 1\nunsupported_descriptor_fmt 0\nmultichannel_unsupported 0\nchannel_limit_reached 1\nother 0\n");
}

static void test_info(void)
{
	char buf[PAGE];
	size_t len;

	len = sample_info(buf, sizeof(buf), 0);
	CHECK_STR_EQ(buf, "No active SRP session for Initiator Endpoint: 0x00000000000000000000000000000abc\n");
	CHECK_EQ(len, strlen(buf));

	len = sample_info(buf, sizeof(buf), 2);
	CHECK_EQ(len, strlen(buf));
	CHECK(strncmp(buf, "InitiatorName: 0x00000000000000000000000000000abc\nInitiatorAlias: 0x00000000000000000000000000000abc\nLIO Session ID: 7   SessionType: Normal\nSession State: TARG_SESS_STATE_LOGGED_IN\n", 179) == 0);
	CHECK(strstr(buf, "\nCID: 7  Connection State: TARG_CONN_STATE_LOGGED_IN\n   Address 192.0.2.1 RoCE  I_T 0x00000000000000000000000000000abc 0x0000000000000001fe80000000000001\n"));
	CHECK(strstr(buf, "\nCID: 8  Connection State: TARG_CONN_STATE_IN_LOGIN\n   Address 0000:00ff:fe00:0001 IB  I_T "));
	CHECK(strstr(buf, "\nCID 7 commands: read 100 write 50 none 3\nCID 7 bytes: read 409600 write 409600\nCID 7 task_mgmt: abort_task 1 abort_task_set 0 clear_task_set 0 lun_reset 0 clear_aca 0 other 0\nCID 7 errors: sq_full 0 rdma 0 recv 0 short_iu 0\nCID 7 credits: granted 281 held 127 rq_size 128\n"));
	CHECK(!strstr(buf, "(truncated)"));

	/* 40 channels do not fit into a page: whole lines, then the mark */
	len = sample_info(buf, sizeof(buf), 40);
	CHECK_EQ(len, strlen(buf));
	CHECK(len < PAGE);
	CHECK(len > PAGE - 200);
	CHECK(strstr(buf, "CID: 20  Connection State: TARG_CONN_STATE_IN_LOGIN\n   Address"));
	CHECK(len > 12 && strcmp(buf + len - 12, "(truncated)\n") == 0);
	CHECK(buf[len - 13] == '\n');

	/* a tiny buffer: nothing but a terminated (possibly empty) string */
	len = sample_info(buf, 30, 2);
	CHECK_EQ(len, strlen(buf));
	CHECK(len < 30);
	len = sample_info(buf, 5, 2);
	CHECK_EQ(len, 0);
	CHECK_STR_EQ(buf, "");
}

static int dump(const char *dir)
{
	static const struct { const char *name; unsigned int n; } s[] = {
		{ "info-none", 0 }, { "info-two", 2 }, { "info-full", 40 },
	};
	char buf[PAGE], path[512];
	unsigned int i;
	FILE *f;

	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, s[i].name);
		f = fopen(path, "w");
		if (!f)
			return 1;
		fwrite(buf, 1, sample_info(buf, sizeof(buf), s[i].n), f);
		fclose(f);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--dump") == 0)
		return dump(argv[2]);
	test_kinds();
	test_counters_add();
	test_utc();
	test_history();
	test_counts();
	test_info();
	return unit_done();
}
