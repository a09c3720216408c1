// SPDX-License-Identifier: GPL-2.0
/*
 * test_dm.c - unit tests of src/dm.c: replies of the Device Management
 * agent (docs/design.md, "Device management (DM) agent").
 *
 * Every reply is compared as a whole 256-byte image. The expected images
 * are written independently of the code under test: a literal 24-byte MAD
 * header followed by literal byte runs placed at the offsets the IBTA
 * Device Management annex and SRP r16a give for each attribute (offsets
 * below are absolute, i.e. data offset + 64).
 */
#include <stdio.h>

#include "srpt_dm.h"
#include "unit.h"

/* A run of literal bytes at an absolute offset of the expected MAD. */
struct run {
	unsigned int off;
	unsigned int len;
	const unsigned char *bytes;
};

#define RUN(o, ...)							\
	{ (o), sizeof((const unsigned char[]){ __VA_ARGS__ }),		\
	  (const unsigned char[]){ __VA_ARGS__ } }
#define RUN_STR(o, s) { (o), sizeof(s) - 1, (const unsigned char *)(s) }
#define END_RUNS { 0, 0, NULL }

/* Filler put in the request's reserved bytes and data area. */
#define JUNK 0xa5

/* Transaction ID used by every request: de ad be ef 01 02 03 04. */
static void make_request(struct srpt_dm_mad *req, unsigned char method,
			 unsigned short attr_id, unsigned int attr_mod)
{
	unsigned char *b = (unsigned char *)req;
	const unsigned char hdr[24] = {
		0x01, 0x06, 0x01, method,	/* base, class, version, method */
		0x00, 0x00, 0x00, 0x00,		/* status, class specific */
		0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04, /* TID */
		attr_id >> 8, attr_id & 0xff, 0x00, 0x00,
		attr_mod >> 24, (attr_mod >> 16) & 0xff,
		(attr_mod >> 8) & 0xff, attr_mod & 0xff,
	};

	memset(b, JUNK, 256);
	memcpy(b, hdr, sizeof(hdr));
	/* RMPP header: inactive, all zero */
	memset(b + 24, 0, 12);
}

/*
 * Expected reply: request header with method 0x81 and the given status;
 * reserved bytes 36..63 echoed; data area zero (success) or echoed junk
 * (error); then the literal runs.
 */
static void make_expected(unsigned char *e, unsigned short attr_id,
			  unsigned int attr_mod, unsigned short status,
			  const struct run *runs)
{
	const unsigned char hdr[24] = {
		0x01, 0x06, 0x01, 0x81,
		status >> 8, status & 0xff, 0x00, 0x00,
		0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04,
		attr_id >> 8, attr_id & 0xff, 0x00, 0x00,
		attr_mod >> 24, (attr_mod >> 16) & 0xff,
		(attr_mod >> 8) & 0xff, attr_mod & 0xff,
	};

	memset(e, JUNK, 256);
	memcpy(e, hdr, sizeof(hdr));
	memset(e + 24, 0, 12);
	if (status == 0)
		memset(e + 64, 0, 192);
	for (; runs && runs->bytes; runs++)
		memcpy(e + runs->off, runs->bytes, runs->len);
}

/* The device of most tests: a ConnectX-5-like HCA, no SRQ, defaults. */
static const struct srpt_dm_dev_info dev_default = {
	.ioc_guid	= 0x0002c90300a1b2c3ULL,
	.vendor_id	= 0x0002c9,
	.device_id	= 0x1017,
	.hw_ver		= 0x00011a2b,	/* only 0x1a2b fits */
	.use_srq	= false,
	.srq_size	= 4095,
	.max_qp_wr	= 16384,
	.rq_size	= 128,
	.max_req_size	= 8276,
	.max_rdma_size	= 65536,
};

/* rxe-like device with SRQ in use and an oversized RDMA size setting. */
static const struct srpt_dm_dev_info dev_srq = {
	.ioc_guid	= 0xfedcba9876543210ULL,
	.vendor_id	= 0xffffff,
	.device_id	= 0,
	.hw_ver		= 0,
	.use_srq	= true,
	.srq_size	= 4095,
	.max_qp_wr	= 16384,
	.rq_size	= 128,
	.max_req_size	= 996,
	.max_rdma_size	= 1U << 25,
};

/* small device: max_qp_wr below 128, no SRQ, maximum RDMA size */
static const struct srpt_dm_dev_info dev_small = {
	.ioc_guid	= 0x1ULL,
	.vendor_id	= 0x1234,
	.device_id	= 0xabcdef01,
	.hw_ver		= 0xffff,
	.use_srq	= false,
	.srq_size	= 4095,
	.max_qp_wr	= 64,
	.rq_size	= 128,
	.max_req_size	= 2132,
	.max_rdma_size	= 1U << 24,
};

/* dev_default with srp_rq_size 512: a deeper queue is reported */
static const struct srpt_dm_dev_info dev_deep = {
	.ioc_guid	= 0x0002c90300a1b2c3ULL,
	.vendor_id	= 0x0002c9,
	.device_id	= 0x1017,
	.hw_ver		= 0x00011a2b,
	.use_srq	= false,
	.srq_size	= 4095,
	.max_qp_wr	= 16384,
	.rq_size	= 512,
	.max_req_size	= 8276,
	.max_rdma_size	= 65536,
};

static void check_reply(const char *what, unsigned char method,
			unsigned short attr_id, unsigned int attr_mod,
			const struct srpt_dm_dev_info *info,
			unsigned short status, const struct run *runs)
{
	struct srpt_dm_mad req, rsp;
	unsigned char exp[256];
	unsigned short ret;

	make_request(&req, method, attr_id, attr_mod);
	make_expected(exp, attr_id, attr_mod, status, runs);
	memset(&rsp, 0x5a, sizeof(rsp));
	ret = srpt_dm_build_reply(&rsp, &req, info);
	UNIT_NOTE("%s", what);
	CHECK_EQ(ret, status);
	CHECK_MEM_EQ(&rsp, exp, 256);
}

/* ClassPortInfo: versions 1/1, RespTimeValue 20 in byte 7 of the data. */
static const struct run cpi_runs[] = {
	RUN(64, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14),
	END_RUNS
};

/* IOUnitInfo: ChangeID 1, 16 controllers, slot 1 present. */
static const struct run iou_runs[] = {
	RUN(64, 0x00, 0x01, 0x10, 0x00, 0x10),
	END_RUNS
};

/* IOControllerProfile of dev_default. */
static const struct run ioc_default_runs[] = {
	RUN(64, 0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc3), /* GUID */
	RUN(72, 0x00, 0x00, 0x02, 0xc9),	/* vendor ID */
	RUN(76, 0x00, 0x00, 0x10, 0x17),	/* device ID */
	RUN(80, 0x1a, 0x2b),			/* device version */
	RUN(84, 0x00, 0x00, 0x02, 0xc9),	/* subsystem vendor ID */
	RUN(92, 0x01, 0x00),			/* I/O class SRP r16a */
	RUN(94, 0x60, 0x9e),			/* I/O subclass */
	RUN(96, 0x01, 0x08),			/* protocol */
	RUN(98, 0x00, 0x01),			/* protocol version */
	RUN(104, 0x00, 0x80),			/* queue depth min(128, 16384) */
	RUN(107, 0x04),				/* RDMA read depth */
	RUN(108, 0x00, 0x00, 0x20, 0x54),	/* send size 8276 */
	RUN(112, 0x00, 0x01, 0x00, 0x00),	/* RDMA size 65536 */
	RUN(116, 0x2b),				/* op capabilities */
	RUN(118, 0x01),				/* one service entry */
	RUN_STR(128, "Linux SRP target"),
	END_RUNS
};

/* IOControllerProfile of dev_deep: dev_default's with depth 512. */
static const struct run ioc_deep_runs[] = {
	RUN(64, 0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc3),
	RUN(72, 0x00, 0x00, 0x02, 0xc9, 0x00, 0x00, 0x10, 0x17, 0x1a, 0x2b),
	RUN(84, 0x00, 0x00, 0x02, 0xc9),
	RUN(92, 0x01, 0x00, 0x60, 0x9e, 0x01, 0x08, 0x00, 0x01),
	RUN(104, 0x02, 0x00),			/* queue depth 512 */
	RUN(107, 0x04),
	RUN(108, 0x00, 0x00, 0x20, 0x54),
	RUN(112, 0x00, 0x01, 0x00, 0x00),
	RUN(116, 0x2b, 0x00, 0x01),
	RUN_STR(128, "Linux SRP target"),
	END_RUNS
};

/* IOControllerProfile of dev_srq. */
static const struct run ioc_srq_runs[] = {
	RUN(64, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10),
	RUN(72, 0x00, 0xff, 0xff, 0xff),
	RUN(84, 0x00, 0xff, 0xff, 0xff),
	RUN(92, 0x01, 0x00, 0x60, 0x9e, 0x01, 0x08, 0x00, 0x01),
	RUN(104, 0x0f, 0xff),			/* SRQ size 4095 */
	RUN(107, 0x04),
	RUN(108, 0x00, 0x00, 0x03, 0xe4),	/* 996 */
	RUN(112, 0x01, 0x00, 0x00, 0x00),	/* capped at 2^24 */
	RUN(116, 0x2b, 0x00, 0x01),
	RUN_STR(128, "Linux SRP target"),
	END_RUNS
};

/* IOControllerProfile of dev_small. */
static const struct run ioc_small_runs[] = {
	RUN(64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01),
	RUN(72, 0x00, 0x00, 0x12, 0x34, 0xab, 0xcd, 0xef, 0x01, 0xff, 0xff),
	RUN(84, 0x00, 0x00, 0x12, 0x34),
	RUN(92, 0x01, 0x00, 0x60, 0x9e, 0x01, 0x08, 0x00, 0x01),
	RUN(104, 0x00, 0x40),			/* min(128, 64) */
	RUN(107, 0x04),
	RUN(108, 0x00, 0x00, 0x08, 0x54),	/* 2132 */
	RUN(112, 0x01, 0x00, 0x00, 0x00),
	RUN(116, 0x2b, 0x00, 0x01),
	RUN_STR(128, "Linux SRP target"),
	END_RUNS
};

/* ServiceEntries of dev_default: one entry, name then ID at +40. */
static const struct run svc_default_runs[] = {
	RUN_STR(64, "SRP.T10:0002c90300a1b2c3"),
	RUN(104, 0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc3),
	END_RUNS
};

static const struct run svc_srq_runs[] = {
	RUN_STR(64, "SRP.T10:fedcba9876543210"),
	RUN(104, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10),
	END_RUNS
};

static const struct run svc_small_runs[] = {
	RUN_STR(64, "SRP.T10:0000000000000001"),
	RUN(104, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01),
	END_RUNS
};

static void test_attributes(void)
{
	check_reply("GET ClassPortInfo", 0x01, 0x0001, 0, &dev_default, 0,
		    cpi_runs);
	check_reply("GET ClassPortInfo ignores the modifier", 0x01, 0x0001,
		    0xffffffff, &dev_default, 0, cpi_runs);
	check_reply("GET IOUnitInfo", 0x01, 0x0010, 0, &dev_default, 0,
		    iou_runs);
	check_reply("GET IOControllerProfile slot 1", 0x01, 0x0011, 1,
		    &dev_default, 0, ioc_default_runs);
	check_reply("GET IOControllerProfile slot 2", 0x01, 0x0011, 2,
		    &dev_default, 0, ioc_default_runs);
	check_reply("GET IOControllerProfile, SRQ", 0x01, 0x0011, 1,
		    &dev_srq, 0, ioc_srq_runs);
	check_reply("GET IOControllerProfile, max_qp_wr 64", 0x01, 0x0011, 1,
		    &dev_small, 0, ioc_small_runs);
	check_reply("GET IOControllerProfile, srp_rq_size 512", 0x01, 0x0011,
		    1, &dev_deep, 0, ioc_deep_runs);
	check_reply("GET ServiceEntries slot 1 0..0", 0x01, 0x0012,
		    0x00010000, &dev_default, 0, svc_default_runs);
	check_reply("GET ServiceEntries slot 2 0..1", 0x01, 0x0012,
		    0x00020100, &dev_default, 0, svc_default_runs);
	check_reply("GET ServiceEntries slot 1 1..1", 0x01, 0x0012,
		    0x00010101, &dev_default, 0, svc_default_runs);
	check_reply("GET ServiceEntries, hex letters in the GUID", 0x01,
		    0x0012, 0x00010000, &dev_srq, 0, svc_srq_runs);
	check_reply("GET ServiceEntries, leading zeros in the GUID", 0x01,
		    0x0012, 0x00010000, &dev_small, 0, svc_small_runs);
}

static void test_errors(void)
{
	/* slots */
	check_reply("IOControllerProfile slot 0", 0x01, 0x0011, 0,
		    &dev_default, 0x001c, NULL);
	check_reply("IOControllerProfile slot 17", 0x01, 0x0011, 17,
		    &dev_default, 0x001c, NULL);
	check_reply("IOControllerProfile slot 0x10001", 0x01, 0x0011,
		    0x00010001, &dev_default, 0x001c, NULL);
	check_reply("IOControllerProfile slot 0xffffffff", 0x01, 0x0011,
		    0xffffffff, &dev_default, 0x001c, NULL);
	check_reply("IOControllerProfile slot 3", 0x01, 0x0011, 3,
		    &dev_default, 0x0100, NULL);
	check_reply("IOControllerProfile slot 16", 0x01, 0x0011, 16,
		    &dev_default, 0x0100, NULL);
	check_reply("ServiceEntries slot 0", 0x01, 0x0012, 0x00000000,
		    &dev_default, 0x001c, NULL);
	check_reply("ServiceEntries slot 17", 0x01, 0x0012, 0x00110000,
		    &dev_default, 0x001c, NULL);
	check_reply("ServiceEntries slot 0xffff", 0x01, 0x0012, 0xffff0000,
		    &dev_default, 0x001c, NULL);
	check_reply("ServiceEntries slot 17 lo > hi: slot checked first",
		    0x01, 0x0012, 0x00110001, &dev_default, 0x001c, NULL);
	check_reply("ServiceEntries slot 3", 0x01, 0x0012, 0x00030000,
		    &dev_default, 0x0100, NULL);
	check_reply("ServiceEntries slot 16", 0x01, 0x0012, 0x00100000,
		    &dev_default, 0x0100, NULL);
	check_reply("ServiceEntries lo > hi", 0x01, 0x0012, 0x00010001,
		    &dev_default, 0x0100, NULL);
	check_reply("ServiceEntries hi > 1", 0x01, 0x0012, 0x00010200,
		    &dev_default, 0x0100, NULL);
	check_reply("ServiceEntries hi 0xff lo 0xff", 0x01, 0x0012,
		    0x0001ffff, &dev_default, 0x0100, NULL);

	/* methods */
	check_reply("SET IOUnitInfo", 0x02, 0x0010, 0, &dev_default, 0x000c,
		    NULL);
	check_reply("SET ClassPortInfo", 0x02, 0x0001, 0, &dev_default,
		    0x000c, NULL);
	check_reply("SET unknown attribute", 0x02, 0x1234, 0, &dev_default,
		    0x000c, NULL);
	check_reply("Send method (0x03)", 0x03, 0x0010, 0, &dev_default,
		    0x0008, NULL);
	check_reply("Trap method (0x05)", 0x05, 0x0010, 0, &dev_default,
		    0x0008, NULL);
	check_reply("GetResp as a request (0x81)", 0x81, 0x0010, 0,
		    &dev_default, 0x0008, NULL);
	check_reply("method 0x00", 0x00, 0x0001, 0, &dev_default, 0x0008,
		    NULL);

	/* attributes */
	check_reply("GET attribute 0x0000", 0x01, 0x0000, 0, &dev_default,
		    0x000c, NULL);
	check_reply("GET attribute 0x0013", 0x01, 0x0013, 0, &dev_default,
		    0x000c, NULL);
	check_reply("GET attribute 0x0002 (Notice)", 0x01, 0x0002, 0,
		    &dev_default, 0x000c, NULL);
	check_reply("GET attribute 0x1000 (byte-swapped IOUnitInfo)", 0x01,
		    0x1000, 0, &dev_default, 0x000c, NULL);
}

/* A request with nonzero status/class-specific bits: they are replaced. */
static void test_header_fields(void)
{
	struct srpt_dm_mad req, rsp;
	unsigned char exp[256];

	make_request(&req, 0x01, 0x0010, 0);
	((unsigned char *)&req)[4] = 0x12;	/* status in a request */
	((unsigned char *)&req)[5] = 0x34;
	((unsigned char *)&req)[6] = 0x56;	/* class specific: echoed */
	make_expected(exp, 0x0010, 0, 0, iou_runs);
	exp[6] = 0x56;
	CHECK_EQ(srpt_dm_build_reply(&rsp, &req, &dev_default), 0);
	CHECK_MEM_EQ(&rsp, exp, 256);
	/* the request is not modified */
	CHECK_EQ(((unsigned char *)&req)[3], 0x01);
	CHECK_EQ(((unsigned char *)&req)[64], JUNK);
}

int main(void)
{
	test_attributes();
	test_errors();
	test_header_fields();
	return unit_done();
}
