// SPDX-License-Identifier: GPL-2.0
/*
 * test_iu.c - unit tests of src/iu.c: SRP_CMD parsing with hostile input
 * (truncated IUs, descriptor tables that overrun the IU, huge immediate
 * lengths) and SRP_RSP building (docs/design.md, "Data descriptors and
 * buffers", "Responses", "Task management" and "Reads stop at the received
 * length").
 *
 * IUs are placed at the very end of a heap block of exactly the received
 * size, so AddressSanitizer reports any read past the received bytes.
 */
#include <stdlib.h>

#include "srpt_iu.h"
#include "unit.h"

#define BUF_SIZE	SRPT_DEF_MAX_REQ_SIZE
#define IMM_OFF		80

static u8 scratch[BUF_SIZE];

/* A fresh SRP_CMD in scratch: opcode, tag, buf_fmt and counts. */
static struct srpt_cmd *cmd_init(u8 buf_fmt, u8 out_cnt, u8 in_cnt)
{
	struct srpt_cmd *c = (struct srpt_cmd *)scratch;

	memset(scratch, 0, sizeof(scratch));
	c->opcode = SRPT_OP_CMD;
	c->tag = 0x1122334455667788ULL;
	c->buf_fmt = buf_fmt;
	c->data_out_desc_cnt = out_cnt;
	c->data_in_desc_cnt = in_cnt;
	return c;
}

static void put_direct(u32 off, u64 va, u32 key, u32 len)
{
	struct srpt_direct_buf db;

	db.va = cpu_to_be64(va);
	db.key = cpu_to_be32(key);
	db.len = cpu_to_be32(len);
	memcpy(scratch + off, &db, sizeof(db));
}

static void put_be32(u32 off, u32 v)
{
	__be32 b = cpu_to_be32(v);

	memcpy(scratch + off, &b, sizeof(b));
}

/*
 * Parse the first @byte_len bytes of scratch from a heap copy of exactly
 * @byte_len bytes (buf_size as given), so over-reads are caught.
 */
static int parse(u32 byte_len, u32 buf_size, u32 imm_off,
		 struct srpt_cmd_desc *d)
{
	u8 *p = malloc(byte_len ? byte_len : 1);
	int ret;

	memcpy(p, scratch, byte_len);
	ret = srpt_iu_parse_cmd(p, byte_len, buf_size, imm_off, d);
	free(p);
	return ret;
}

static void test_fixed_part(void)
{
	struct srpt_cmd_desc d;
	struct srpt_cmd *c;

	cmd_init(0, 0, 0);
	CHECK_EQ(parse(48, BUF_SIZE, 0, &d), 0);
	CHECK_EQ(d.dir, SRPT_DIR_NONE);
	CHECK_EQ(d.data_len, 0);
	CHECK_EQ(d.cdb_len, 16);
	/* truncated below the fixed part */
	CHECK_EQ(parse(47, BUF_SIZE, 0, &d), -EINVAL);
	CHECK_EQ(parse(1, BUF_SIZE, 0, &d), -EINVAL);
	CHECK_EQ(parse(0, BUF_SIZE, 0, &d), -EINVAL);
	/* more bytes than the buffer holds */
	CHECK_EQ(parse(64, 63, 0, &d), -EINVAL);
	/* wrong opcode */
	c = cmd_init(0, 0, 0);
	c->opcode = SRPT_OP_TSK_MGMT;
	CHECK_EQ(parse(48, BUF_SIZE, 0, &d), -EINVAL);
	/* additional CDB beyond the received bytes */
	c = cmd_init(0, 0, 0);
	c->add_cdb_len = 252;
	CHECK_EQ(parse(48 + 248, BUF_SIZE, 0, &d), -EINVAL);
	CHECK_EQ(parse(48 + 252, BUF_SIZE, 0, &d), 0);
	CHECK_EQ(d.cdb_len, 16 + 252);
	/* the two low bits of add_cdb_len are reserved */
	c = cmd_init(0, 0, 0);
	c->add_cdb_len = 3;
	CHECK_EQ(parse(48, BUF_SIZE, 0, &d), 0);
	CHECK_EQ(d.cdb_len, 16);
}

static void test_direct(void)
{
	struct srpt_cmd_desc d;
	struct srpt_cmd *c;
	u32 key, len;
	u64 va;

	cmd_init(0x01, 0, 1);
	put_direct(48, 0xdeadbeef000ULL, 0x1234, 4096);
	CHECK_EQ(parse(64, BUF_SIZE, 0, &d), 0);
	CHECK_EQ(d.dir, SRPT_DIR_READ);
	CHECK_EQ(d.fmt, SRPT_DATA_DESC_DIRECT);
	CHECK_EQ(d.data_len, 4096);
	CHECK_EQ(d.nbufs, 1);
	CHECK_EQ(d.desc_off, 48);
	srpt_iu_get_desc(scratch, &d, 0, &va, &key, &len);
	CHECK_EQ(va, 0xdeadbeef000ULL);
	CHECK_EQ(key, 0x1234);
	CHECK_EQ(len, 4096);
	/* descriptor truncated by one byte */
	CHECK_EQ(parse(63, BUF_SIZE, 0, &d), -EINVAL);
	CHECK_EQ(d.nbufs, 0);

	/* data-out, after a 16-byte additional CDB */
	c = cmd_init(0x10, 1, 0);
	c->add_cdb_len = 16;
	put_direct(64, 0x1000, 7, 512);
	CHECK_EQ(parse(80, BUF_SIZE, 0, &d), 0);
	CHECK_EQ(d.dir, SRPT_DIR_WRITE);
	CHECK_EQ(d.desc_off, 64);
	CHECK_EQ(d.cdb_len, 32);
	CHECK_EQ(parse(79, BUF_SIZE, 0, &d), -EINVAL);

	/* zero length: no transfer */
	cmd_init(0x01, 0, 1);
	put_direct(48, 0x1000, 7, 0);
	CHECK_EQ(parse(64, BUF_SIZE, 0, &d), 0);
	CHECK_EQ(d.nbufs, 0);
	CHECK_EQ(d.data_len, 0);

	/* huge length */
	cmd_init(0x01, 0, 1);
	put_direct(48, 0x1000, 7, 0xffffffff);
	CHECK_EQ(parse(64, BUF_SIZE, 0, &d), -EINVAL);
	put_direct(48, 0x1000, 7, SRPT_MAX_CMD_DATA_LEN + 1);
	CHECK_EQ(parse(64, BUF_SIZE, 0, &d), -EINVAL);
	put_direct(48, 0x1000, 7, SRPT_MAX_CMD_DATA_LEN);
	CHECK_EQ(parse(64, BUF_SIZE, 0, &d), 0);

	/* bidirectional and unknown formats */
	cmd_init(0x11, 1, 1);
	put_direct(48, 0x1000, 7, 512);
	put_direct(64, 0x2000, 7, 512);
	CHECK_EQ(parse(80, BUF_SIZE, 0, &d), -EINVAL);
	CHECK_EQ(d.dir, SRPT_DIR_NONE);
	cmd_init(0x04, 0, 1);
	CHECK_EQ(parse(80, BUF_SIZE, 0, &d), -EINVAL);
	cmd_init(0xf0, 1, 0);
	CHECK_EQ(parse(80, BUF_SIZE, 0, &d), -EINVAL);
}

/* Indirect table with @n descriptors of @len bytes each at offset 48. */
static u32 put_indirect(u32 n, u32 len)
{
	u32 i;

	put_direct(48, 0xabc000, 9, n * 16);
	put_be32(64, n * len);
	for (i = 0; i < n; i++)
		put_direct(68 + i * 16, 0x100000 * (i + 1), 100 + i, len);
	return 68 + n * 16;
}

static void test_indirect(void)
{
	struct srpt_cmd_desc d;
	u32 end, key, len;
	u64 va;

	cmd_init(0x20, 3, 0);
	end = put_indirect(3, 8192);
	CHECK_EQ(parse(end, BUF_SIZE, 0, &d), 0);
	CHECK_EQ(d.dir, SRPT_DIR_WRITE);
	CHECK_EQ(d.fmt, SRPT_DATA_DESC_INDIRECT);
	CHECK_EQ(d.nbufs, 3);
	CHECK_EQ(d.data_len, 3 * 8192);
	CHECK_EQ(d.desc_off, 68);
	srpt_iu_get_desc(scratch, &d, 2, &va, &key, &len);
	CHECK_EQ(va, 0x300000);
	CHECK_EQ(key, 102);
	CHECK_EQ(len, 8192);
	/* table runs past the received bytes */
	CHECK_EQ(parse(end - 1, BUF_SIZE, 0, &d), -EINVAL);
	/* header truncated */
	CHECK_EQ(parse(67, BUF_SIZE, 0, &d), -EINVAL);

	/* more descriptors than the IU says it carries (external table) */
	cmd_init(0x02, 0, 2);
	end = put_indirect(3, 4096);
	CHECK_EQ(parse(end, BUF_SIZE, 0, &d), -EINVAL);
	/* the data-out count does not count for data-in */
	cmd_init(0x02, 3, 2);
	end = put_indirect(3, 4096);
	CHECK_EQ(parse(end, BUF_SIZE, 0, &d), -EINVAL);
	cmd_init(0x02, 0, 3);
	end = put_indirect(3, 4096);
	CHECK_EQ(parse(end, BUF_SIZE, 0, &d), 0);
	CHECK_EQ(d.dir, SRPT_DIR_READ);

	/* 255 descriptors claimed, but a short IU: bounded by byte_len */
	cmd_init(0x20, 255, 0);
	put_direct(48, 0xabc000, 9, 255 * 16);
	put_be32(64, 255 * 512);
	CHECK_EQ(parse(68 + 16, BUF_SIZE, 0, &d), -EINVAL);
	CHECK_EQ(parse(BUF_SIZE, BUF_SIZE, 0, &d), -EINVAL); /* zero lengths */
	/* a table larger than any buffer */
	cmd_init(0x20, 255, 255);
	put_direct(48, 0xabc000, 9, 0xfffffff0);
	CHECK_EQ(parse(BUF_SIZE, BUF_SIZE, 0, &d), -EINVAL);

	/* table length not a multiple of 16, or zero */
	cmd_init(0x20, 3, 0);
	end = put_indirect(3, 512);
	put_direct(48, 0xabc000, 9, 47);
	CHECK_EQ(parse(end, BUF_SIZE, 0, &d), -EINVAL);
	put_direct(48, 0xabc000, 9, 0);
	CHECK_EQ(parse(end, BUF_SIZE, 0, &d), -EINVAL);

	/* total length does not match the descriptors */
	cmd_init(0x20, 3, 0);
	end = put_indirect(3, 512);
	put_be32(64, 3 * 512 + 1);
	CHECK_EQ(parse(end, BUF_SIZE, 0, &d), -EINVAL);
	put_be32(64, 3 * 512 - 1);
	CHECK_EQ(parse(end, BUF_SIZE, 0, &d), -EINVAL);

	/* descriptor lengths that overflow 32 bits when added */
	cmd_init(0x20, 2, 0);
	end = put_indirect(2, 0x80000000);
	put_be32(64, 0);
	CHECK_EQ(parse(end, BUF_SIZE, 0, &d), -EINVAL);

	/* a zero-length descriptor */
	cmd_init(0x20, 2, 0);
	end = put_indirect(2, 512);
	put_direct(68 + 16, 0x1000, 1, 0);
	put_be32(64, 512);
	CHECK_EQ(parse(end, BUF_SIZE, 0, &d), -EINVAL);

	/* total above the limit */
	cmd_init(0x20, 2, 0);
	end = put_indirect(2, SRPT_MAX_CMD_DATA_LEN / 2 + 512);
	CHECK_EQ(parse(end, BUF_SIZE, 0, &d), -EINVAL);

	/* the largest table a default-sized IU can carry */
	cmd_init(0x02, 0, 255);
	end = put_indirect(255, 4096);
	CHECK(end <= BUF_SIZE);
	CHECK_EQ(parse(end, BUF_SIZE, 0, &d), 0);
	CHECK_EQ(d.nbufs, 255);
}

/*
 * Parse an immediate-data SRP_CMD placed so that imm_off lands 512-byte
 * aligned (as the driver's receive buffers do), in a block that ends
 * exactly after byte_len bytes.
 */
static int parse_imm(u32 byte_len, u32 buf_size, u32 imm_off, u32 shift,
		     struct srpt_cmd_desc *d)
{
	u32 lead = (SRPT_IMM_DATA_ALIGN - imm_off % SRPT_IMM_DATA_ALIGN) %
		   SRPT_IMM_DATA_ALIGN + shift;
	void *block;
	int ret;

	/* exactly lead + byte_len bytes: over-reads are reported */
	if (posix_memalign(&block, SRPT_IMM_DATA_ALIGN, lead + byte_len))
		return -ENOMEM;
	memcpy((u8 *)block + lead, scratch, byte_len);
	ret = srpt_iu_parse_cmd((u8 *)block + lead, byte_len, buf_size,
				imm_off, d);
	free(block);
	return ret;
}

static void test_immediate(void)
{
	struct srpt_cmd_desc d;

	cmd_init(0x30, 1, 0);
	put_be32(48, 4096);
	CHECK_EQ(parse_imm(IMM_OFF + 4096, BUF_SIZE, IMM_OFF, 0, &d), 0);
	CHECK_EQ(d.dir, SRPT_DIR_WRITE);
	CHECK_EQ(d.fmt, SRPT_DATA_DESC_IMM);
	CHECK_EQ(d.data_len, 4096);
	CHECK_EQ(d.imm_off, IMM_OFF);
	CHECK_EQ(d.nbufs, 0);
	/* largest immediate data that fits the default buffer */
	put_be32(48, BUF_SIZE - IMM_OFF);
	CHECK_EQ(parse_imm(BUF_SIZE, BUF_SIZE, IMM_OFF, 0, &d), 0);
	put_be32(48, BUF_SIZE - IMM_OFF + 1);
	CHECK_EQ(parse_imm(BUF_SIZE, BUF_SIZE, IMM_OFF, 0, &d), -EINVAL);
	/* not all data received */
	put_be32(48, 4096);
	CHECK_EQ(parse_imm(IMM_OFF + 4095, BUF_SIZE, IMM_OFF, 0, &d), -EIO);
	CHECK_EQ(d.data_len, 0);
	/* lengths that wrap a 32-bit imm_data_offset + len */
	put_be32(48, 0xffffffff);
	CHECK_EQ(parse_imm(IMM_OFF + 16, BUF_SIZE, IMM_OFF, 0, &d), -EINVAL);
	put_be32(48, 0x100000000ULL - IMM_OFF);
	CHECK_EQ(parse_imm(IMM_OFF + 16, BUF_SIZE, IMM_OFF, 0, &d), -EINVAL);
	put_be32(48, 0x100000000ULL - IMM_OFF + 8);
	CHECK_EQ(parse_imm(IMM_OFF + 16, BUF_SIZE, IMM_OFF, 0, &d), -EINVAL);
	/* immediate data not negotiated */
	put_be32(48, 16);
	CHECK_EQ(parse_imm(IMM_OFF + 16, BUF_SIZE, 0, 0, &d), -EINVAL);
	/* descriptor overlaps the data */
	cmd_init(0x30, 1, 0);
	put_be32(48, 16);
	CHECK_EQ(parse_imm(64 + 16, BUF_SIZE, 50, 0, &d), -EINVAL);
	/* descriptor ends exactly where the data starts */
	CHECK_EQ(parse_imm(52 + 16, BUF_SIZE, 52, 0, &d), 0);
	/* descriptor after an additional CDB that reaches the data */
	cmd_init(0x30, 1, 0);
	((struct srpt_cmd *)scratch)->add_cdb_len = 32;
	put_be32(80, 16);
	CHECK_EQ(parse_imm(IMM_OFF + 16, BUF_SIZE, IMM_OFF, 0, &d), -EINVAL);
	/* misaligned data */
	cmd_init(0x30, 1, 0);
	put_be32(48, 16);
	CHECK_EQ(parse_imm(IMM_OFF + 16, BUF_SIZE, IMM_OFF, 8, &d), -EINVAL);
	/* immediate data-in does not exist */
	cmd_init(0x03, 0, 1);
	put_be32(48, 16);
	CHECK_EQ(parse_imm(IMM_OFF + 16, BUF_SIZE, IMM_OFF, 0, &d), -EINVAL);
	/* zero length is fine */
	cmd_init(0x30, 1, 0);
	put_be32(48, 0);
	CHECK_EQ(parse_imm(IMM_OFF, BUF_SIZE, IMM_OFF, 0, &d), 0);
	CHECK_EQ(d.data_len, 0);
}

static void test_tsk_mgmt(void)
{
	struct srpt_tsk_mgmt t = { .opcode = SRPT_OP_TSK_MGMT };

	CHECK_EQ(srpt_iu_check_tsk_mgmt(&t, sizeof(t)), 0);
	CHECK_EQ(srpt_iu_check_tsk_mgmt(&t, sizeof(t) - 1), -EINVAL);
	CHECK_EQ(srpt_iu_check_tsk_mgmt(&t, 0), -EINVAL);
	t.opcode = SRPT_OP_CMD;
	CHECK_EQ(srpt_iu_check_tsk_mgmt(&t, sizeof(t)), -EINVAL);
	CHECK_EQ(srpt_iu_opcode(&t, 1), SRPT_OP_CMD);
	CHECK_EQ(srpt_iu_opcode(&t, 0), -EINVAL);
}

/*
 * srpt_iu_tag() from a heap copy of exactly @byte_len bytes, so that a
 * read past the received bytes (the stale tail of a receive buffer) is an
 * AddressSanitizer error and not a silently wrong tag.
 */
static int tag_of(const void *iu, u32 byte_len, u64 *tag)
{
	u8 *p = malloc(byte_len ? byte_len : 1);
	int ret;

	memcpy(p, iu, byte_len);
	ret = srpt_iu_tag(p, byte_len, tag);
	free(p);
	return ret;
}

static void test_short_iu(void)
{
	static const u8 ops[] = { SRPT_OP_CMD, SRPT_OP_TSK_MGMT,
				  SRPT_OP_I_LOGOUT, SRPT_OP_CRED_RSP,
				  SRPT_OP_AER_RSP, 0x7f };
	static const u32 lens[] = { 0, 1, 8, 15 };
	u8 iu[48];
	u64 tag;
	u32 i, j, rejected = 0, tagged = 0;

	CHECK_EQ(SRPT_MIN_TAGGED_IU_LEN, 16);
	for (i = 0; i < sizeof(ops); i++) {
		memset(iu, 0xd1, sizeof(iu));	/* what an earlier IU left */
		iu[0] = ops[i];
		for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			tag = 0x5a5a5a5a5a5a5a5aULL;
			if (tag_of(iu, lens[j], &tag) == -EINVAL &&
			    tag == 0x5a5a5a5a5a5a5a5aULL)
				rejected++;
		}
		memset(iu + 8, 0x51, 8);
		for (j = 16; j <= 47; j += 31) {
			tag = 0;
			if (tag_of(iu, j, &tag) == 0 &&
			    tag == 0x5151515151515151ULL)
				tagged++;
		}
	}
	/* 0, 1, 8 and 15 bytes: no tag, and *tag is left alone */
	CHECK_EQ(rejected, 4 * sizeof(ops));
	/* 16 and 47 bytes: the tag that was received */
	CHECK_EQ(tagged, 2 * sizeof(ops));

	/* 16..47 bytes: a tag, but not a complete SRP_CMD / SRP_TSK_MGMT */
	cmd_init(0, 0, 0);
	for (j = 16; j < 48; j++) {
		struct srpt_cmd_desc d;

		if (parse(j, BUF_SIZE, 0, &d) != -EINVAL)
			break;
	}
	CHECK_EQ(j, 48);
	memset(iu, 0, sizeof(iu));
	iu[0] = SRPT_OP_TSK_MGMT;
	for (j = 0; j < 48; j++)
		if (srpt_iu_check_tsk_mgmt(iu, j) != -EINVAL)
			break;
	CHECK_EQ(j, 48);
	CHECK_EQ(srpt_iu_check_tsk_mgmt(iu, 48), 0);
}

static void test_credits(void)
{
	CHECK(srpt_iu_uses_credit(SRPT_OP_CMD));
	CHECK(srpt_iu_uses_credit(SRPT_OP_TSK_MGMT));
	CHECK(srpt_iu_uses_credit(SRPT_OP_I_LOGOUT));
	CHECK(srpt_iu_uses_credit(0x7f));
	CHECK(srpt_iu_uses_credit(-EINVAL));	/* 0-byte IU */
	CHECK(!srpt_iu_uses_credit(SRPT_OP_CRED_RSP));
	CHECK(!srpt_iu_uses_credit(SRPT_OP_AER_RSP));
}

static void test_sense(void)
{
	u8 s[SRPT_FIXED_SENSE_LEN];

	CHECK_EQ(srpt_iu_build_sense(s, sizeof(s), 0x05, 0x0e, 0x03), 18);
	CHECK_EQ(s[0], 0x70);
	CHECK_EQ(s[2], 0x05);
	CHECK_EQ(s[7], 10);
	CHECK_EQ(s[12], 0x0e);
	CHECK_EQ(s[13], 0x03);
	CHECK_EQ(srpt_iu_build_sense(s, 17, 0x05, 0x0e, 0x03), -EINVAL);

	/* meaningful length of a padded sense buffer */
	{
		u8 b[96] = { 0x70, 0, 5, 0, 0, 0, 0, 10 };

		CHECK_EQ(srpt_iu_sense_len(b, 96), 18);
		b[0] = 0xf2;	/* descriptor format, VALID bit set */
		b[7] = 200;
		CHECK_EQ(srpt_iu_sense_len(b, 96), 96);
		b[7] = 20;
		CHECK_EQ(srpt_iu_sense_len(b, 96), 28);
		CHECK_EQ(srpt_iu_sense_len(b, 7), 7);
		b[0] = 0x7f;	/* vendor specific: all of it */
		CHECK_EQ(srpt_iu_sense_len(b, 96), 96);
	}
}

static void test_rsp(void)
{
	struct srpt_rsp_info info = {};
	u8 sense[96], buf[1024], *small;
	struct srpt_rsp *rsp = (struct srpt_rsp *)buf;
	int i;

	for (i = 0; i < 96; i++)
		sense[i] = i + 1;
	info.tag = 0x0102030405060708ULL;
	info.req_lim_delta = 3;
	info.status = 0x02;
	info.sense = sense;
	info.sense_len = 18;
	memset(buf, 0xee, sizeof(buf));
	CHECK_EQ(srpt_iu_build_rsp(buf, sizeof(buf), 256, &info), 36 + 18);
	CHECK_EQ(rsp->opcode, SRPT_OP_RSP);
	CHECK_EQ(be32_to_cpu(rsp->req_lim_delta), 3);
	CHECK(rsp->tag == info.tag);
	CHECK_EQ(rsp->status, 0x02);
	CHECK_EQ(rsp->flags, SRPT_RSP_FLAG_SNSVALID);
	CHECK_EQ(be32_to_cpu(rsp->sense_data_len), 18);
	CHECK_EQ(rsp->resp_data_len, 0);
	CHECK_MEM_EQ(rsp->data, sense, 18);
	CHECK_EQ(buf[36 + 18], 0xee);

	/* sense capped by the initiator's IU limit */
	info.sense_len = 96;
	CHECK_EQ(srpt_iu_build_rsp(buf, sizeof(buf), 64, &info), 64);
	CHECK_EQ(be32_to_cpu(rsp->sense_data_len), 28);
	/* ... and by the response buffer: 40-byte buffer, nothing beyond */
	small = malloc(40);
	CHECK_EQ(srpt_iu_build_rsp(small, 40, 1024, &info), 40);
	CHECK_EQ(be32_to_cpu(((struct srpt_rsp *)small)->sense_data_len), 4);
	CHECK_EQ(srpt_iu_build_rsp(small, 35, 1024, &info), -EINVAL);
	free(small);
	/* an IU limit below the header: no sense at all */
	CHECK_EQ(srpt_iu_build_rsp(buf, sizeof(buf), 20, &info), 36);
	CHECK_EQ(rsp->flags, 0);
	/* no sense buffer */
	info.sense = NULL;
	CHECK_EQ(srpt_iu_build_rsp(buf, sizeof(buf), 256, &info), 36);
	CHECK_EQ(rsp->sense_data_len, 0);

	/* residuals */
	info.status = 0;
	info.dir = SRPT_DIR_READ;
	info.underflow = true;
	info.residual = 512;
	CHECK_EQ(srpt_iu_build_rsp(buf, sizeof(buf), 256, &info), 36);
	CHECK_EQ(rsp->flags, SRPT_RSP_FLAG_DIUNDER);
	CHECK_EQ(be32_to_cpu(rsp->data_in_res_cnt), 512);
	CHECK_EQ(rsp->data_out_res_cnt, 0);
	info.dir = SRPT_DIR_WRITE;
	srpt_iu_build_rsp(buf, sizeof(buf), 256, &info);
	CHECK_EQ(rsp->flags, SRPT_RSP_FLAG_DOUNDER);
	CHECK_EQ(be32_to_cpu(rsp->data_out_res_cnt), 512);
	CHECK_EQ(rsp->data_in_res_cnt, 0);
	info.underflow = false;
	info.overflow = true;
	srpt_iu_build_rsp(buf, sizeof(buf), 256, &info);
	CHECK_EQ(rsp->flags, SRPT_RSP_FLAG_DOOVER);
	info.dir = SRPT_DIR_READ;
	srpt_iu_build_rsp(buf, sizeof(buf), 256, &info);
	CHECK_EQ(rsp->flags, SRPT_RSP_FLAG_DIOVER);
	CHECK_EQ(be32_to_cpu(rsp->data_in_res_cnt), 512);
	/* no data transfer: no residual */
	info.dir = SRPT_DIR_NONE;
	srpt_iu_build_rsp(buf, sizeof(buf), 256, &info);
	CHECK_EQ(rsp->flags, 0);
	CHECK_EQ(rsp->data_in_res_cnt, 0);
}

static void test_tsk_mgmt_rsp(void)
{
	u8 buf[64];
	struct srpt_rsp *rsp = (struct srpt_rsp *)buf;

	memset(buf, 0xee, sizeof(buf));
	CHECK_EQ(srpt_iu_build_tsk_mgmt_rsp(buf, sizeof(buf), 256, 0x42ULL, 2,
					    SRPT_TSK_MGMT_FUNC_NOT_SUPP), 40);
	CHECK_EQ(rsp->opcode, SRPT_OP_RSP);
	CHECK_EQ(rsp->flags, SRPT_RSP_FLAG_RSPVALID);
	CHECK_EQ(rsp->status, 0);
	CHECK_EQ(be32_to_cpu(rsp->req_lim_delta), 2);
	CHECK_EQ(be32_to_cpu(rsp->resp_data_len), 4);
	CHECK_EQ(rsp->sense_data_len, 0);
	CHECK(rsp->tag == 0x42ULL);
	CHECK_EQ(buf[36], 0);
	CHECK_EQ(buf[39], SRPT_TSK_MGMT_FUNC_NOT_SUPP);
	CHECK_EQ(buf[40], 0xee);
	CHECK_EQ(srpt_iu_build_tsk_mgmt_rsp(buf, 39, 256, 1, 1, 0), -EINVAL);
	CHECK_EQ(srpt_iu_build_tsk_mgmt_rsp(buf, 64, 39, 1, 1, 0), -EINVAL);
}

/* Reading back built responses: what the trace of a send completion shows. */
static void test_rsp_summary(void)
{
	struct srpt_rsp_info info = {};
	struct srpt_rsp_summary sum;
	u8 sense[SRPT_FIXED_SENSE_LEN], buf[256], *small;
	int len;

	/* CHECK CONDITION with fixed-format sense */
	CHECK_EQ(srpt_iu_build_sense(sense, sizeof(sense), 0x05, 0x21, 0x00),
		 18);
	info.tag = 0x1122334455667788ULL;
	info.req_lim_delta = 7;
	info.status = 0x02;
	info.sense = sense;
	info.sense_len = sizeof(sense);
	len = srpt_iu_build_rsp(buf, sizeof(buf), 256, &info);
	CHECK_EQ(len, 36 + 18);
	CHECK_EQ(srpt_iu_rsp_summary(buf, sizeof(buf), &sum), 0);
	CHECK(sum.tag == info.tag);
	CHECK_EQ(sum.req_lim_delta, 7);
	CHECK_EQ(sum.status, 0x02);
	CHECK_EQ(sum.flags, SRPT_RSP_FLAG_SNSVALID);
	CHECK_EQ(sum.sense_key, 0x05);
	CHECK_EQ(sum.asc, 0x21);
	CHECK_EQ(sum.ascq, 0x00);
	CHECK_EQ(sum.rsp_code, 0);
	CHECK_EQ(sum.residual, 0);

	/* sense cut by the readable length: key yes, ASC/ASCQ no */
	CHECK_EQ(srpt_iu_rsp_summary(buf, 36 + 4, &sum), 0);
	CHECK_EQ(sum.sense_key, 0x05);
	CHECK_EQ(sum.asc, 0);
	/* nothing read past a buffer of exactly the header */
	small = malloc(36);
	memcpy(small, buf, 36);
	CHECK_EQ(srpt_iu_rsp_summary(small, 36, &sum), 0);
	CHECK_EQ(sum.status, 0x02);
	CHECK_EQ(sum.sense_key, 0);
	CHECK_EQ(srpt_iu_rsp_summary(small, 35, &sum), -EINVAL);
	free(small);

	/* descriptor format: key, ASC, ASCQ in bytes 1 to 3 */
	sense[0] = 0x72;
	sense[1] = 0x03;
	sense[2] = 0x11;
	sense[3] = 0x04;
	sense[7] = 0;
	info.sense_len = 8;
	srpt_iu_build_rsp(buf, sizeof(buf), 256, &info);
	CHECK_EQ(srpt_iu_rsp_summary(buf, sizeof(buf), &sum), 0);
	CHECK_EQ(sum.sense_key, 0x03);
	CHECK_EQ(sum.asc, 0x11);
	CHECK_EQ(sum.ascq, 0x04);

	/* GOOD with a data-in residual, then a data-out one */
	info.status = 0;
	info.sense = NULL;
	info.dir = SRPT_DIR_READ;
	info.underflow = true;
	info.residual = 4096;
	srpt_iu_build_rsp(buf, sizeof(buf), 256, &info);
	CHECK_EQ(srpt_iu_rsp_summary(buf, sizeof(buf), &sum), 0);
	CHECK_EQ(sum.status, 0);
	CHECK_EQ(sum.sense_key, 0);
	CHECK_EQ(sum.residual, 4096);
	info.dir = SRPT_DIR_WRITE;
	info.residual = 512;
	srpt_iu_build_rsp(buf, sizeof(buf), 256, &info);
	CHECK_EQ(srpt_iu_rsp_summary(buf, sizeof(buf), &sum), 0);
	CHECK_EQ(sum.residual, 512);

	/* task management response code */
	srpt_iu_build_tsk_mgmt_rsp(buf, sizeof(buf), 256, 0x42ULL, 1,
				   SRPT_TSK_MGMT_FUNC_NOT_SUPP);
	CHECK_EQ(srpt_iu_rsp_summary(buf, sizeof(buf), &sum), 0);
	CHECK(sum.tag == 0x42ULL);
	CHECK_EQ(sum.rsp_code, SRPT_TSK_MGMT_FUNC_NOT_SUPP);
	CHECK_EQ(sum.flags, SRPT_RSP_FLAG_RSPVALID);
	CHECK_EQ(srpt_iu_rsp_summary(buf, 38, &sum), 0);
	CHECK_EQ(sum.rsp_code, 0);

	/* not an SRP_RSP */
	buf[0] = SRPT_OP_CMD;
	CHECK_EQ(srpt_iu_rsp_summary(buf, sizeof(buf), &sum), -EINVAL);
}

/*
 * Random IUs: nothing may crash or read past byte_len, and every success
 * must describe descriptors that lie inside the received bytes.
 */
static void test_random(void)
{
	struct srpt_cmd_desc d;
	unsigned int seed = 12345, bad = 0, ok = 0;
	int i, ret;

	for (i = 0; i < 200000; i++) {
		u32 byte_len, j;

		seed = seed * 1103515245 + 12345;
		byte_len = 48 + (seed >> 8) % 600;
		for (j = 0; j < byte_len; j++) {
			seed = seed * 1103515245 + 12345;
			scratch[j] = seed >> 16;
		}
		scratch[0] = SRPT_OP_CMD;
		/* bias towards plausible formats and small counts */
		scratch[5] = (seed >> 3) & 1 ? 0x02 : (seed >> 4) & 0x33;
		scratch[31] &= (seed >> 5) & 1 ? 0x1f : 0xff;
		ret = parse_imm(byte_len, BUF_SIZE, IMM_OFF, 0, &d);
		if (ret == 0) {
			ok++;
			if (d.desc_off + (u64)d.nbufs * 16 > byte_len ||
			    (d.fmt == SRPT_DATA_DESC_IMM &&
			     (u64)d.imm_off + d.data_len > byte_len))
				bad++;
		} else if (ret != -EINVAL && ret != -EIO) {
			bad++;
		}
	}
	UNIT_NOTE("random IUs: %u parsed, %u rejected", ok, 200000 - ok);
	CHECK_EQ(bad, 0);
}

int main(void)
{
	test_fixed_part();
	test_direct();
	test_indirect();
	test_immediate();
	test_tsk_mgmt();
	test_short_iu();
	test_credits();
	test_sense();
	test_rsp();
	test_tsk_mgmt_rsp();
	test_rsp_summary();
	test_random();
	return unit_done();
}
