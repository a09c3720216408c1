// SPDX-License-Identifier: GPL-2.0
/*
 * test_login.c - unit tests of src/login.c: login request conversion from
 * IB CM and RDMA CM private data, validation order and reject reasons,
 * immediate data negotiation and response/reject layout (docs/design.md,
 * "Login stages"). The channel state rules and the CM event table are
 * tested by test_ch_state.c.
 */
#include "srpt_login.h"
#include "unit.h"

static const u64 guid = 0x000000fffe000001ULL;

static void put_be16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put_be32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void put_be64(u8 *p, u64 v)
{
	put_be32(p, v >> 32);
	put_be32(p + 4, v);
}

/* A 92-byte IB CM REQ private data area with a 64-byte login request. */
static void make_ib_pdata(u8 *pd, u32 it_iu_len, u8 flags, u16 imm_off)
{
	int i;

	memset(pd, 0xee, 92);
	memset(pd, 0, 64);
	pd[0] = SRPT_OP_LOGIN_REQ;
	for (i = 0; i < 8; i++)
		pd[8 + i] = 0x11 * (i + 1);	/* tag */
	put_be32(pd + 16, it_iu_len);
	put_be16(pd + 24, 0x0006);
	pd[26] = flags;
	put_be16(pd + 28, imm_off);
	for (i = 0; i < 16; i++)
		pd[32 + i] = 0xa0 + i;		/* initiator port ID */
	put_be64(pd + 48, guid);
	put_be64(pd + 56, guid);
}

/* A 56-byte RDMA CM private data area. */
static void make_rdma_pdata(u8 *pd, u32 it_iu_len, u8 flags, u16 imm_off)
{
	int i;

	memset(pd, 0, 56);
	for (i = 0; i < 8; i++)
		pd[i] = 0x11 * (i + 1);		/* tag */
	put_be16(pd + 8, 0x0006);
	pd[10] = flags;
	pd[11] = SRPT_OP_LOGIN_REQ;
	put_be32(pd + 12, it_iu_len);
	for (i = 0; i < 16; i++)
		pd[16 + i] = 0xa0 + i;
	put_be64(pd + 32, guid);
	put_be64(pd + 40, guid);
	put_be16(pd + 48, imm_off);
}

static struct srpt_login_limits limits(void)
{
	struct srpt_login_limits lim = {
		.max_req_size = 8276,
		.service_guid = guid,
		.enabled = true,
		.use_srq = false,
	};
	return lim;
}

static void test_parse(void)
{
	struct srpt_login_req a, b;
	u8 ib[92], rd[56];

	make_ib_pdata(ib, 8260, SRPT_IMMED_REQUESTED | 1, 80);
	make_rdma_pdata(rd, 8260, SRPT_IMMED_REQUESTED | 1, 80);
	CHECK_EQ(srpt_login_from_ib_cm(&a, ib, sizeof(ib)), 0);
	CHECK_EQ(srpt_login_from_rdma_cm(&b, rd, sizeof(rd)), 0);
	/* both layouts convert to the same request */
	CHECK_MEM_EQ(&a, &b, sizeof(a));
	CHECK_EQ(be32_to_cpu(a.req_it_iu_len), 8260);
	CHECK_EQ(a.req_flags, SRPT_IMMED_REQUESTED | 1);
	CHECK_EQ(be16_to_cpu(b.imm_data_offset), 80);
	CHECK_EQ(be16_to_cpu(b.req_buf_fmt), 6);
	CHECK_EQ(b.initiator_port_id[15], 0xaf);
	CHECK_MEM_EQ(&b.tag, rd, 8);

	/* lengths */
	CHECK_EQ(srpt_login_from_ib_cm(&a, ib, 63), -EINVAL);
	CHECK_EQ(srpt_login_from_ib_cm(&a, ib, 64), 0);
	CHECK_EQ(srpt_login_from_ib_cm(&a, NULL, 92), -EINVAL);
	CHECK_EQ(srpt_login_from_rdma_cm(&b, rd, 55), -EINVAL);
	CHECK_EQ(srpt_login_from_rdma_cm(&b, rd, 0), -EINVAL);
	CHECK_EQ(srpt_login_from_rdma_cm(&b, NULL, 56), -EINVAL);
	CHECK_EQ(srpt_login_from_rdma_cm(&b, rd, 200), 0);

	/* wrong opcode */
	ib[0] = SRPT_OP_CMD;
	CHECK_EQ(srpt_login_from_ib_cm(&a, ib, sizeof(ib)), -EINVAL);
	rd[11] = SRPT_OP_CMD;
	CHECK_EQ(srpt_login_from_rdma_cm(&b, rd, sizeof(rd)), -EINVAL);
}

static void test_check(void)
{
	struct srpt_login_limits lim = limits();
	struct srpt_login_req req;
	u8 pd[92];

	make_ib_pdata(pd, 8276, 0, 0);
	srpt_login_from_ib_cm(&req, pd, sizeof(pd));
	CHECK_EQ(srpt_login_check(&req, &lim), 0);

	/* a: IU length bounds, checked first */
	req.req_it_iu_len = cpu_to_be32(8277);
	CHECK_EQ(srpt_login_check(&req, &lim),
		 SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	req.req_it_iu_len = cpu_to_be32(63);
	CHECK_EQ(srpt_login_check(&req, &lim),
		 SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	req.req_it_iu_len = cpu_to_be32(0xffffffff);
	CHECK_EQ(srpt_login_check(&req, &lim),
		 SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	req.req_it_iu_len = cpu_to_be32(64);
	CHECK_EQ(srpt_login_check(&req, &lim), 0);

	/* order: a bad length wins over a disabled port */
	lim.enabled = false;
	req.req_it_iu_len = cpu_to_be32(10);
	CHECK_EQ(srpt_login_check(&req, &lim),
		 SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	/* b: disabled port */
	req.req_it_iu_len = cpu_to_be32(8276);
	CHECK_EQ(srpt_login_check(&req, &lim),
		 SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES);
	/* order: a disabled port wins over a wrong target port ID */
	req.target_port_id[0] ^= 1;
	CHECK_EQ(srpt_login_check(&req, &lim),
		 SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES);

	/* c: either half of the target port ID */
	lim.enabled = true;
	CHECK_EQ(srpt_login_check(&req, &lim),
		 SRPT_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
	req.target_port_id[0] ^= 1;
	req.target_port_id[15] ^= 0x80;
	CHECK_EQ(srpt_login_check(&req, &lim),
		 SRPT_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
	req.target_port_id[15] ^= 0x80;
	CHECK_EQ(srpt_login_check(&req, &lim), 0);
	lim.service_guid = guid + 1;
	CHECK_EQ(srpt_login_check(&req, &lim),
		 SRPT_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
}

static void test_imm(void)
{
	struct srpt_login_limits lim = limits();
	struct srpt_login_req req;
	u8 pd[92];

	make_ib_pdata(pd, 8276, SRPT_IMMED_REQUESTED, 80);
	srpt_login_from_ib_cm(&req, pd, sizeof(pd));
	CHECK_EQ(srpt_login_imm_data_offset(&req, &lim), 80);
	req.imm_data_offset = cpu_to_be16(48);
	CHECK_EQ(srpt_login_imm_data_offset(&req, &lim), 48);
	req.imm_data_offset = cpu_to_be16(47);
	CHECK_EQ(srpt_login_imm_data_offset(&req, &lim), 0);
	req.imm_data_offset = cpu_to_be16(0);
	CHECK_EQ(srpt_login_imm_data_offset(&req, &lim), 0);
	/* beyond the largest IU: no immediate data */
	req.imm_data_offset = cpu_to_be16(65535);
	CHECK_EQ(srpt_login_imm_data_offset(&req, &lim), 0);
	req.imm_data_offset = cpu_to_be16(8276);
	CHECK_EQ(srpt_login_imm_data_offset(&req, &lim), 8276);
	/* not requested */
	req.imm_data_offset = cpu_to_be16(80);
	req.req_flags = 0;
	CHECK_EQ(srpt_login_imm_data_offset(&req, &lim), 0);
	/* SRQ: never */
	req.req_flags = SRPT_IMMED_REQUESTED;
	lim.use_srq = true;
	CHECK_EQ(srpt_login_imm_data_offset(&req, &lim), 0);

	CHECK_EQ(srpt_login_imm_align(0), 0);
	CHECK_EQ(srpt_login_imm_align(80), 432);
	CHECK_EQ(srpt_login_imm_align(48), 464);
	CHECK_EQ(srpt_login_imm_align(512), 0);
	CHECK_EQ(srpt_login_imm_align(513), 511);
	CHECK_EQ((80 + srpt_login_imm_align(80)) % 512, 0);
}

static void test_multichan(void)
{
	struct srpt_login_req req = { 0 };

	req.req_flags = 0;
	CHECK(srpt_login_single_channel(&req));
	req.req_flags = SRPT_IMMED_REQUESTED;
	CHECK(srpt_login_single_channel(&req));
	req.req_flags = 1;
	CHECK(!srpt_login_single_channel(&req));
	req.req_flags = 2;
	CHECK(!srpt_login_single_channel(&req));
	req.req_flags = 3 | SRPT_IMMED_REQUESTED;
	CHECK(!srpt_login_single_channel(&req));
}

static void test_build(void)
{
	struct srpt_login_req req;
	struct srpt_login_rsp rsp;
	struct srpt_login_rej rej;
	const u8 *p = (const u8 *)&rsp;
	const u8 *q = (const u8 *)&rej;
	u8 pd[92];

	make_ib_pdata(pd, 4160, SRPT_IMMED_REQUESTED | 1, 80);
	srpt_login_from_ib_cm(&req, pd, sizeof(pd));
	memset(&rsp, 0xff, sizeof(rsp));
	srpt_login_build_rsp(&rsp, &req, 8276, 128,
			     SRPT_LOGIN_RSP_MULTICHAN_MAINTAINED |
			     SRPT_LOGIN_RSP_IMMED_SUPP);
	CHECK_EQ(sizeof(rsp), 52);
	CHECK_EQ(p[0], 0xc0);
	CHECK_EQ(p[4] << 24 | p[5] << 16 | p[6] << 8 | p[7], 128);
	CHECK_MEM_EQ(p + 8, pd + 8, 8);		/* tag echoed unchanged */
	CHECK_EQ(p[16] << 24 | p[17] << 16 | p[18] << 8 | p[19], 8276);
	/* max_ti_iu_len echoes req_it_iu_len */
	CHECK_EQ(p[20] << 24 | p[21] << 16 | p[22] << 8 | p[23], 4160);
	CHECK_EQ(p[24] << 8 | p[25], 0x0006);
	CHECK_EQ(p[26], 0x82);
	CHECK_EQ(p[1] | p[2] | p[3] | p[27] | p[51], 0);

	memset(&rej, 0xff, sizeof(rej));
	srpt_login_build_rej(&rej, req.tag,
			     SRPT_LOGIN_REJ_CHANNEL_LIMIT_REACHED);
	CHECK_EQ(sizeof(rej), 32);
	CHECK_EQ(q[0], 0xc2);
	CHECK_EQ(q[4] << 24 | q[5] << 16 | q[6] << 8 | q[7], 0x00010006);
	CHECK_MEM_EQ(q + 8, pd + 8, 8);
	CHECK_EQ(q[24] << 8 | q[25], 0x0006);
	CHECK_EQ(q[16] | q[23] | q[26] | q[31], 0);

	CHECK_STR_EQ(srpt_login_rej_str(SRPT_LOGIN_REJ_CHANNEL_LIMIT_REACHED),
		     "channel limit reached");
	CHECK_STR_EQ(srpt_login_rej_str(0x1234), "unknown");
}

/* Channel depth bounds (srp_rq_size; docs/design.md, "Channel depth"). */
static void test_rq_size(void)
{
	struct srpt_login_req req;
	struct srpt_login_rsp rsp;
	const u8 *p = (const u8 *)&rsp;
	u8 pd[92];

	/* the range on small and large max_qp_wr, rxe (2^20, 32767), mlx5 */
	CHECK_EQ(srpt_login_rq_size_max(16384, 32767), 16382);
	CHECK_EQ(srpt_login_rq_size_max(1 << 20, 32767), 32748);
	CHECK_EQ(srpt_login_rq_size_max(32768, 4194303), 32766);
	CHECK_EQ(srpt_login_rq_size_max(1 << 20, 1 << 22), 65535);
	CHECK_EQ(srpt_login_rq_size_max(0xffffffff, 0xffffffff), 65535);
	/* tiny or bogus HCAs: the attribute still accepts its minimum */
	CHECK_EQ(srpt_login_rq_size_max(18, 1000), 16);
	CHECK_EQ(srpt_login_rq_size_max(17, 1000), 16);
	CHECK_EQ(srpt_login_rq_size_max(2, 1000), 16);
	CHECK_EQ(srpt_login_rq_size_max(0, 1000), 16);
	CHECK_EQ(srpt_login_rq_size_max(1000, 16), 16);
	CHECK_EQ(srpt_login_rq_size_max(1000, 0), 16);
	CHECK_EQ(SRPT_DEF_RQ_SIZE, 128);
	CHECK(SRPT_MIN_RQ_SIZE <= SRPT_DEF_RQ_SIZE);
	/*
	 * At the largest depth the CQ still holds a completion for every WR
	 * a flush can complete: the receive ring, its drain marker and the
	 * smallest send queue (SRPT_MIN_SQ_SIZE / 2 responses, as many
	 * rdma_rw WRs, the spare WRs). Before, rxe's 32751 + 1 + 18 = 32770
	 * overran its 32767 entries.
	 */
	CHECK(srpt_ch_cq_need(srpt_login_rq_size_max(1 << 20, 32767),
			      SRPT_MIN_SQ_SIZE + SRPT_SQ_SPARE_WRS, true) <= 32767);
	CHECK(srpt_ch_cq_need(srpt_login_rq_size_max(16384, 32767),
			      SRPT_MIN_SQ_SIZE + SRPT_SQ_SPARE_WRS, true) <= 32767);
	CHECK(srpt_ch_cq_need(srpt_login_rq_size_max(32768, 4194303),
			      SRPT_MIN_SQ_SIZE + SRPT_SQ_SPARE_WRS, true) <= 4194303);
	CHECK_EQ(srpt_ch_cq_need(100, 50, true), 151);
	CHECK_EQ(srpt_ch_cq_need(100, 50, false), 150);

	/* a channel gets the attribute's depth when the HCA holds it */
	CHECK_EQ(srpt_login_rq_size(128, 16384, 32767), 128);
	CHECK_EQ(srpt_login_rq_size(512, 16384, 32767), 512);
	CHECK_EQ(srpt_login_rq_size(16382, 16384, 32767), 16382);
	CHECK_EQ(srpt_login_rq_size(16383, 16384, 32767), 16382);
	CHECK_EQ(srpt_login_rq_size(65535, 16384, 32767), 16382);
	CHECK_EQ(srpt_login_rq_size(65535, 1 << 20, 32767), 32748);
	/* ... and shrinks to what a small HCA holds, never to 0 */
	CHECK_EQ(srpt_login_rq_size(128, 64, 32767), 62);
	CHECK_EQ(srpt_login_rq_size(128, 16384, 100), 81);
	CHECK_EQ(srpt_login_rq_size(16, 10, 32767), 8);
	CHECK_EQ(srpt_login_rq_size(128, 3, 32767), 1);
	CHECK_EQ(srpt_login_rq_size(128, 2, 32767), 1);
	CHECK_EQ(srpt_login_rq_size(128, 0, 32767), 1);
	CHECK_EQ(srpt_login_rq_size(128, 16384, 16), 1);
	CHECK_EQ(srpt_login_rq_size(0, 16384, 32767), 1);
	/* what the attribute accepts fits the QP and the CQ, or is shrunk */
	CHECK(srpt_login_rq_size(srpt_login_rq_size_max(64, 1000), 64,
				 1000) + 2 <= 64);
	CHECK(srpt_login_rq_size(srpt_login_rq_size_max(1 << 20, 32767),
				 1 << 20, 32767) + 16 <= 32767);

	/* the login response advertises the depth */
	make_ib_pdata(pd, 4160, 1, 0);
	srpt_login_from_ib_cm(&req, pd, sizeof(pd));
	srpt_login_build_rsp(&rsp, &req, 8276,
			     srpt_login_rq_size(4096, 16384, 32767), 0);
	CHECK_EQ(p[4] << 24 | p[5] << 16 | p[6] << 8 | p[7], 4096);
}

int main(void)
{
	test_parse();
	test_check();
	test_imm();
	test_multichan();
	test_build();
	test_rq_size();
	return unit_done();
}
