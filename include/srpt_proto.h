/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_proto.h - SRP information unit wire formats (SRP r16a / T10 SRP-2).
 *
 * Pure header: no driver objects, usable from userspace tests and fuzzers.
 * Every multi-byte numeric field is big-endian on the wire. Tags are opaque
 * 64-bit values that the target echoes back unchanged, so they are kept as
 * raw u64 and never byte-swapped. Offsets are pinned by static assertions
 * at the end of the file.
 *
 * The kernel's <scsi/srp.h> is deliberately not used: these definitions
 * must also compile in userspace, and the srpt_ prefix keeps the two apart.
 */
#ifndef SRPT_PROTO_H
#define SRPT_PROTO_H

#include "srpt_pure.h"

/* IU opcodes (SRP r16a table 9). */
enum {
	SRPT_OP_LOGIN_REQ	= 0x00,
	SRPT_OP_TSK_MGMT	= 0x01,
	SRPT_OP_CMD		= 0x02,
	SRPT_OP_I_LOGOUT	= 0x03,
	SRPT_OP_LOGIN_RSP	= 0xc0,
	SRPT_OP_RSP		= 0xc1,
	SRPT_OP_LOGIN_REJ	= 0xc2,
	SRPT_OP_T_LOGOUT	= 0x80,
	SRPT_OP_CRED_REQ	= 0x81,
	SRPT_OP_AER_REQ		= 0x82,
	SRPT_OP_CRED_RSP	= 0x41,
	SRPT_OP_AER_RSP		= 0x42,
};

/* Buffer formats supported, as advertised in login IUs (bit mask). */
enum {
	SRPT_BUF_FORMAT_DIRECT		= 1 << 1,
	SRPT_BUF_FORMAT_INDIRECT	= 1 << 2,
};

/* Data descriptor formats in the nibbles of srpt_cmd.buf_fmt. */
enum {
	SRPT_DATA_DESC_NONE	= 0,
	SRPT_DATA_DESC_DIRECT	= 1,
	SRPT_DATA_DESC_INDIRECT	= 2,
	SRPT_DATA_DESC_IMM	= 3,
};

/* Login request flags (req_flags). */
enum {
	SRPT_MULTICHAN_SINGLE	= 0,
	SRPT_MULTICHAN_MULTI	= 1,
	SRPT_MULTICHAN_MASK	= 0x03,
	SRPT_LOSOLNT		= 0x10,
	SRPT_CRSOLNT		= 0x20,
	SRPT_AESOLNT		= 0x40,
	SRPT_IMMED_REQUESTED	= 0x80,
};

/* Login response flags (rsp_flags). */
enum {
	SRPT_LOGIN_RSP_MULTICHAN_NO_CHAN	= 0x0,
	SRPT_LOGIN_RSP_MULTICHAN_TERMINATED	= 0x1,
	SRPT_LOGIN_RSP_MULTICHAN_MAINTAINED	= 0x2,
	SRPT_LOGIN_RSP_IMMED_SUPP		= 0x80,
};

/* Login reject reasons (SRP r16a table 14). */
enum {
	SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL		= 0x00010000,
	SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES		= 0x00010001,
	SRPT_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE	= 0x00010002,
	SRPT_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL		= 0x00010003,
	SRPT_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT	= 0x00010004,
	SRPT_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED	= 0x00010005,
	SRPT_LOGIN_REJ_CHANNEL_LIMIT_REACHED		= 0x00010006,
};

/* SRP_RSP flags. */
enum {
	SRPT_RSP_FLAG_RSPVALID	= 1 << 0,
	SRPT_RSP_FLAG_SNSVALID	= 1 << 1,
	SRPT_RSP_FLAG_DOOVER	= 1 << 2,
	SRPT_RSP_FLAG_DOUNDER	= 1 << 3,
	SRPT_RSP_FLAG_DIOVER	= 1 << 4,
	SRPT_RSP_FLAG_DIUNDER	= 1 << 5,
};

/* SRP task attributes (srpt_cmd.task_attr). */
enum {
	SRPT_CMD_SIMPLE_Q	= 0,
	SRPT_CMD_HEAD_OF_Q	= 1,
	SRPT_CMD_ORDERED_Q	= 2,
	SRPT_CMD_ACA		= 4,
};

/* Task management functions and response codes. */
enum {
	SRPT_TSK_ABORT_TASK	= 0x01,
	SRPT_TSK_ABORT_TASK_SET	= 0x02,
	SRPT_TSK_CLEAR_TASK_SET	= 0x04,
	SRPT_TSK_LUN_RESET	= 0x08,
	SRPT_TSK_CLEAR_ACA	= 0x40,
};

enum {
	SRPT_TSK_MGMT_SUCCESS	= 0x00,
	SRPT_TSK_MGMT_FUNC_NOT_SUPP = 0x04,
	SRPT_TSK_MGMT_FAILED	= 0x05,
};

/* Sizes and limits shared by the driver and the tests. */
enum {
	SRPT_MIN_IU_LEN		= 64,	/* smallest req_it_iu_len accepted */
	SRPT_MIN_MAX_REQ_SIZE	= 996,
	SRPT_MAX_ADD_CDB_LEN	= 16,
	SRPT_MAX_IMM_DATA_OFFSET = 80,
	SRPT_MAX_IMM_DATA	= 8 * 1024,
	/* max(48 + 16 + 20 + 128 * 16, 80 + 4 + 8192) */
	SRPT_DEF_MAX_REQ_SIZE = 8276,
	SRPT_IMM_DATA_ALIGN	= 512,
	/*
	 * Every IU starts with the opcode (byte 0) and carries its tag in
	 * bytes 8..15: an IU shorter than this has no tag to answer with.
	 */
	SRPT_MIN_TAGGED_IU_LEN	= 16,
};

/**
 * struct srpt_login_req - SRP_LOGIN_REQ as carried in IB CM private data.
 * @opcode: SRPT_OP_LOGIN_REQ.
 * @reserved1: reserved.
 * @tag: opaque, echoed in the response.
 * @req_it_iu_len: largest initiator-to-target IU the initiator will send.
 * @reserved2: reserved.
 * @req_buf_fmt: buffer formats the initiator supports (not validated).
 * @req_flags: multichannel action and SRPT_IMMED_REQUESTED.
 * @reserved3: reserved.
 * @imm_data_offset: offset of immediate data in SRP_CMD, if requested.
 * @reserved4: reserved.
 * @initiator_port_id: 128-bit initiator port identifier.
 * @target_port_id: 128-bit target port identifier.
 *
 * RDMA CM logins are converted into this layout (srpt_login_req_rdma).
 */
struct srpt_login_req {
	u8	opcode;
	u8	reserved1[7];
	u64	tag;
	__be32	req_it_iu_len;
	u8	reserved2[4];
	__be16	req_buf_fmt;
	u8	req_flags;
	u8	reserved3[1];
	__be16	imm_data_offset;
	u8	reserved4[2];
	u8	initiator_port_id[16];
	u8	target_port_id[16];
};

/**
 * struct srpt_login_req_rdma - SRP_LOGIN_REQ in RDMA CM private data.
 * @tag: opaque, echoed in the response.
 * @req_buf_fmt: buffer formats the initiator supports.
 * @req_flags: as in struct srpt_login_req.
 * @opcode: SRPT_OP_LOGIN_REQ.
 * @req_it_iu_len: largest initiator-to-target IU.
 * @initiator_port_id: 128-bit initiator port identifier.
 * @target_port_id: 128-bit target port identifier.
 * @imm_data_offset: offset of immediate data in SRP_CMD.
 * @reserved: reserved.
 *
 * RDMA CM over IB carries at most 56 bytes of private data, hence the
 * reshuffled layout.
 */
struct srpt_login_req_rdma {
	u64	tag;
	__be16	req_buf_fmt;
	u8	req_flags;
	u8	opcode;
	__be32	req_it_iu_len;
	u8	initiator_port_id[16];
	u8	target_port_id[16];
	__be16	imm_data_offset;
	u8	reserved[6];
};

/**
 * struct srpt_login_rsp - SRP_LOGIN_RSP.
 * @opcode: SRPT_OP_LOGIN_RSP.
 * @reserved1: reserved.
 * @req_lim_delta: initial request credits.
 * @tag: echoed from the request.
 * @max_it_iu_len: largest IU the target accepts.
 * @max_ti_iu_len: largest IU the target will send.
 * @buf_fmt: supported buffer formats.
 * @rsp_flags: SRPT_LOGIN_RSP_* flags.
 * @reserved2: reserved.
 */
struct srpt_login_rsp {
	u8	opcode;
	u8	reserved1[3];
	__be32	req_lim_delta;
	u64	tag;
	__be32	max_it_iu_len;
	__be32	max_ti_iu_len;
	__be16	buf_fmt;
	u8	rsp_flags;
	u8	reserved2[25];
} __packed;

/**
 * struct srpt_login_rej - SRP_LOGIN_REJ.
 * @opcode: SRPT_OP_LOGIN_REJ.
 * @reserved1: reserved.
 * @reason: SRPT_LOGIN_REJ_* reason code.
 * @tag: echoed from the request.
 * @reserved2: reserved.
 * @buf_fmt: supported buffer formats.
 * @reserved3: reserved.
 */
struct srpt_login_rej {
	u8	opcode;
	u8	reserved1[3];
	__be32	reason;
	u64	tag;
	u8	reserved2[8];
	__be16	buf_fmt;
	u8	reserved3[6];
};

/**
 * struct srpt_direct_buf - memory descriptor (SRP r16a table 3).
 * @va: remote virtual address.
 * @key: remote key.
 * @len: length in bytes.
 */
struct srpt_direct_buf {
	__be64	va;
	__be32	key;
	__be32	len;
};

/**
 * struct srpt_indirect_buf - indirect descriptor table header.
 * @table_desc: where the whole table lives on the initiator.
 * @len: total data length of all descriptors.
 * @desc_list: the descriptors carried inline in the IU.
 */
struct srpt_indirect_buf {
	struct srpt_direct_buf	table_desc;
	__be32			len;
	struct srpt_direct_buf	desc_list[];
} __packed;

/**
 * struct srpt_imm_buf - immediate data descriptor.
 * @len: number of data bytes that follow at imm_data_offset.
 */
struct srpt_imm_buf {
	__be32	len;
};

/**
 * struct srpt_cmd - SRP_CMD fixed part.
 * @opcode: SRPT_OP_CMD.
 * @sol_not: solicited notification flags.
 * @reserved1: reserved.
 * @buf_fmt: high nibble data-out format, low nibble data-in format.
 * @data_out_desc_cnt: number of data-out descriptors.
 * @data_in_desc_cnt: number of data-in descriptors.
 * @tag: opaque, echoed in SRP_RSP.
 * @reserved2: reserved.
 * @lun: SAM LUN.
 * @reserved3: reserved.
 * @task_attr: SRPT_CMD_* task attribute (low 3 bits).
 * @reserved4: reserved.
 * @add_cdb_len: additional CDB length in 4-byte units (low 2 bits reserved).
 * @cdb: command descriptor block.
 * @add_data: additional CDB, then data descriptors.
 */
struct srpt_cmd {
	u8	opcode;
	u8	sol_not;
	u8	reserved1[3];
	u8	buf_fmt;
	u8	data_out_desc_cnt;
	u8	data_in_desc_cnt;
	u64	tag;
	u8	reserved2[4];
	u8	lun[8];
	u8	reserved3;
	u8	task_attr;
	u8	reserved4;
	u8	add_cdb_len;
	u8	cdb[16];
	u8	add_data[];
};

/**
 * struct srpt_rsp - SRP_RSP fixed part.
 * @opcode: SRPT_OP_RSP.
 * @sol_not: solicited notification flags.
 * @reserved1: reserved.
 * @req_lim_delta: credits granted with this response.
 * @tag: echoed from the request.
 * @reserved2: reserved.
 * @flags: SRPT_RSP_FLAG_*.
 * @status: SCSI status.
 * @data_out_res_cnt: data-out residual count.
 * @data_in_res_cnt: data-in residual count.
 * @sense_data_len: bytes of sense data in @data.
 * @resp_data_len: bytes of response data in @data.
 * @data: response data, then sense data.
 */
struct srpt_rsp {
	u8	opcode;
	u8	sol_not;
	u8	reserved1[2];
	__be32	req_lim_delta;
	u64	tag;
	u8	reserved2[2];
	u8	flags;
	u8	status;
	__be32	data_out_res_cnt;
	__be32	data_in_res_cnt;
	__be32	sense_data_len;
	__be32	resp_data_len;
	u8	data[];
} __packed;

/**
 * struct srpt_tsk_mgmt - SRP_TSK_MGMT.
 * @opcode: SRPT_OP_TSK_MGMT.
 * @sol_not: solicited notification flags.
 * @reserved1: reserved.
 * @tag: opaque, echoed in SRP_RSP.
 * @reserved2: reserved.
 * @lun: SAM LUN.
 * @reserved3: reserved.
 * @tsk_mgmt_func: SRPT_TSK_* function.
 * @reserved4: reserved.
 * @task_tag: tag of the task to abort (ABORT TASK).
 * @reserved5: reserved.
 */
struct srpt_tsk_mgmt {
	u8	opcode;
	u8	sol_not;
	u8	reserved1[6];
	u64	tag;
	u8	reserved2[4];
	u8	lun[8];
	u8	reserved3[2];
	u8	tsk_mgmt_func;
	u8	reserved4;
	u64	task_tag;
	u8	reserved5[8];
};

/*
 * sparse releases before 0.6.4 (Debian 11 ships 0.6.3) ignore __packed and
 * compute padded sizes for the three packed IUs; the compiler's view is the
 * one that matters, so sparse only checks a lower bound.
 */
#ifdef __CHECKER__
#define srpt_packed_size_assert(type, size) \
	static_assert(sizeof(type) >= (size))
#else
#define srpt_packed_size_assert(type, size) \
	static_assert(sizeof(type) == (size))
#endif

static_assert(sizeof(struct srpt_login_req) == 64);
static_assert(offsetof(struct srpt_login_req, req_it_iu_len) == 16);
static_assert(offsetof(struct srpt_login_req, req_buf_fmt) == 24);
static_assert(offsetof(struct srpt_login_req, req_flags) == 26);
static_assert(offsetof(struct srpt_login_req, imm_data_offset) == 28);
static_assert(offsetof(struct srpt_login_req, initiator_port_id) == 32);
static_assert(offsetof(struct srpt_login_req, target_port_id) == 48);
static_assert(sizeof(struct srpt_login_req_rdma) == 56);
static_assert(offsetof(struct srpt_login_req_rdma, req_flags) == 10);
static_assert(offsetof(struct srpt_login_req_rdma, opcode) == 11);
static_assert(offsetof(struct srpt_login_req_rdma, req_it_iu_len) == 12);
static_assert(offsetof(struct srpt_login_req_rdma, initiator_port_id) == 16);
static_assert(offsetof(struct srpt_login_req_rdma, target_port_id) == 32);
static_assert(offsetof(struct srpt_login_req_rdma, imm_data_offset) == 48);
srpt_packed_size_assert(struct srpt_login_rsp, 52);
static_assert(offsetof(struct srpt_login_rsp, req_lim_delta) == 4);
static_assert(offsetof(struct srpt_login_rsp, max_it_iu_len) == 16);
static_assert(offsetof(struct srpt_login_rsp, max_ti_iu_len) == 20);
static_assert(offsetof(struct srpt_login_rsp, buf_fmt) == 24);
static_assert(offsetof(struct srpt_login_rsp, rsp_flags) == 26);
static_assert(sizeof(struct srpt_login_rej) == 32);
static_assert(offsetof(struct srpt_login_rej, reason) == 4);
static_assert(offsetof(struct srpt_login_rej, buf_fmt) == 24);
static_assert(sizeof(struct srpt_direct_buf) == 16);
srpt_packed_size_assert(struct srpt_indirect_buf, 20);
static_assert(sizeof(struct srpt_imm_buf) == 4);
static_assert(sizeof(struct srpt_cmd) == 48);
static_assert(offsetof(struct srpt_cmd, buf_fmt) == 5);
static_assert(offsetof(struct srpt_cmd, tag) == 8);
static_assert(offsetof(struct srpt_cmd, tag) + sizeof(u64) ==
	      SRPT_MIN_TAGGED_IU_LEN);
static_assert(offsetof(struct srpt_tsk_mgmt, tag) + sizeof(u64) ==
	      SRPT_MIN_TAGGED_IU_LEN);
static_assert(offsetof(struct srpt_cmd, lun) == 20);
static_assert(offsetof(struct srpt_cmd, task_attr) == 29);
static_assert(offsetof(struct srpt_cmd, add_cdb_len) == 31);
static_assert(offsetof(struct srpt_cmd, cdb) == 32);
srpt_packed_size_assert(struct srpt_rsp, 36);
static_assert(offsetof(struct srpt_rsp, flags) == 18);
static_assert(offsetof(struct srpt_rsp, status) == 19);
static_assert(offsetof(struct srpt_rsp, data_out_res_cnt) == 20);
static_assert(offsetof(struct srpt_rsp, sense_data_len) == 28);
static_assert(offsetof(struct srpt_rsp, resp_data_len) == 32);
static_assert(sizeof(struct srpt_tsk_mgmt) == 48);
static_assert(offsetof(struct srpt_tsk_mgmt, lun) == 20);
static_assert(offsetof(struct srpt_tsk_mgmt, tsk_mgmt_func) == 30);
static_assert(offsetof(struct srpt_tsk_mgmt, task_tag) == 32);

#endif /* SRPT_PROTO_H */
