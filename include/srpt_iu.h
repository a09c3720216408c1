/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_iu.h - parsing of SRP_CMD / SRP_TSK_MGMT and building of SRP_RSP
 * (src/iu.c, pure code: no allocation, locking or logging).
 *
 * Everything a peer sends is bounded here: the parser checks every offset
 * and length against the number of bytes actually received and against the
 * receive buffer size before the driver looks at a descriptor.
 */
#ifndef SRPT_IU_H
#define SRPT_IU_H

#include "srpt_proto.h"

/* Largest data transfer of one SRP_CMD the target accepts. */
#define SRPT_MAX_CMD_DATA_LEN	(128U << 20)

/* Bytes of fixed-format sense data built by srpt_iu_build_sense(). */
#define SRPT_FIXED_SENSE_LEN	18

/**
 * enum srpt_iu_dir - data direction seen from the initiator.
 * @SRPT_DIR_NONE: no data transfer.
 * @SRPT_DIR_READ: data-in: the target RDMA WRITEs into initiator memory.
 * @SRPT_DIR_WRITE: data-out: the target fetches data (RDMA READ or
 *		    immediate data in the IU).
 */
enum srpt_iu_dir {
	SRPT_DIR_NONE,
	SRPT_DIR_READ,
	SRPT_DIR_WRITE,
};

/**
 * struct srpt_cmd_desc - result of srpt_iu_parse_cmd().
 * @dir: data direction.
 * @fmt: SRPT_DATA_DESC_* format of the descriptor that was used.
 * @data_len: total number of data bytes.
 * @nbufs: number of struct srpt_direct_buf descriptors at @desc_off
 *	   (0 when there is no RDMA transfer).
 * @desc_off: byte offset in the IU of the first direct descriptor.
 * @imm_off: byte offset in the IU of the immediate data (fmt IMM only).
 * @cdb_len: bytes of CDB (16 plus the additional CDB length).
 */
struct srpt_cmd_desc {
	enum srpt_iu_dir	dir;
	u8			fmt;
	u32			data_len;
	u32			nbufs;
	u32			desc_off;
	u32			imm_off;
	u32			cdb_len;
};

/**
 * struct srpt_rsp_info - what goes into an SRP_RSP for a SCSI command.
 * @tag: tag of the command (opaque, copied unchanged).
 * @req_lim_delta: credits granted with this response.
 * @status: SCSI status.
 * @dir: data direction of the command; residuals are reported only for
 *	 commands that transfer data.
 * @underflow: fewer bytes were transferred than the initiator asked for.
 * @overflow: the command wanted more bytes than the initiator offered.
 * @residual: residual count for @underflow or @overflow.
 * @sense: sense data or NULL.
 * @sense_len: bytes in @sense.
 */
struct srpt_rsp_info {
	u64			tag;
	u32			req_lim_delta;
	u8			status;
	enum srpt_iu_dir	dir;
	bool			underflow;
	bool			overflow;
	u32			residual;
	const u8		*sense;
	u32			sense_len;
};

/**
 * struct srpt_rsp_summary - what an SRP_RSP says, for tracing.
 * @tag: tag, as on the wire.
 * @req_lim_delta: credits granted.
 * @status: SCSI status.
 * @flags: SRPT_RSP_FLAG_* bits.
 * @sense_key: sense key of the sense data, 0 without sense data.
 * @asc: additional sense code, 0 if the sense data does not carry one.
 * @ascq: additional sense code qualifier, likewise.
 * @rsp_code: byte 3 of the response data (the task management response
 *	      code), 0 without response data.
 * @residual: data-in residual count if a DI flag is set, else data-out
 *	      residual count if a DO flag is set, else 0.
 */
struct srpt_rsp_summary {
	u64	tag;
	u32	req_lim_delta;
	u8	status;
	u8	flags;
	u8	sense_key;
	u8	asc;
	u8	ascq;
	u8	rsp_code;
	u32	residual;
};

/*
 * The accessors below are on the per-command path and small: inline, so
 * that a command pays no call for them (issue 13; the instruction profile
 * of scripts/benchmark.sh --profile). They are pure code like iu.c.
 */

/**
 * srpt_iu_opcode() - opcode of a received information unit.
 * @iu: the received bytes.
 * @byte_len: number of bytes received.
 *
 * Return: the opcode, or -EINVAL if nothing was received.
 */
static inline int srpt_iu_opcode(const void *iu, u32 byte_len)
{
	if (byte_len < 1)
		return -EINVAL;
	return *(const u8 *)iu;
}

/**
 * srpt_iu_tag() - tag of a received information unit.
 * @iu: the received bytes.
 * @byte_len: number of bytes received.
 * @tag: set to the tag, as on the wire (tags are opaque), on success.
 *
 * Only the @byte_len bytes received are looked at: the rest of a receive
 * buffer still holds an earlier IU, with an SRQ possibly one of another
 * channel, and must never be echoed to this initiator.
 *
 * Return: 0, or -EINVAL if @byte_len is shorter than opcode and tag
 * (SRPT_MIN_TAGGED_IU_LEN).
 */
static inline int srpt_iu_tag(const void *iu, u32 byte_len, u64 *tag)
{
	if (byte_len < SRPT_MIN_TAGGED_IU_LEN)
		return -EINVAL;
	/* as on the wire: no byte swap */
	*tag = srpt_get_u64((const u8 *)iu + offsetof(struct srpt_cmd, tag));
	return 0;
}

/**
 * srpt_iu_uses_credit() - whether an IU from the initiator used a credit.
 * @opcode: its opcode, or a negative value if it had none (0 bytes).
 *
 * The request limit applies to the requests an initiator sends (SRP_CMD,
 * SRP_TSK_MGMT, SRP_I_LOGOUT; anything unknown is counted as one too). The
 * initiator's answers to target requests, SRP_CRED_RSP and SRP_AER_RSP,
 * are sent without a credit, so the target must not give one back for
 * them (the target never sends the requests they answer anyway).
 *
 * Return: false for SRP_CRED_RSP and SRP_AER_RSP, true otherwise.
 */
static inline bool srpt_iu_uses_credit(int opcode)
{
	return opcode != SRPT_OP_CRED_RSP && opcode != SRPT_OP_AER_RSP;
}

/**
 * srpt_iu_get_desc() - read direct descriptor @i of a parsed SRP_CMD.
 * @iu: the IU passed to srpt_iu_parse_cmd().
 * @desc: its successful parse result.
 * @i: descriptor index, less than @desc->nbufs.
 * @va: remote virtual address.
 * @key: remote key.
 * @len: length in bytes.
 */
static inline void srpt_iu_get_desc(const void *iu,
				    const struct srpt_cmd_desc *desc, u32 i,
				    u64 *va, u32 *key, u32 *len)
{
	const u8 *db = (const u8 *)iu + desc->desc_off +
		       i * sizeof(struct srpt_direct_buf);

	*va = srpt_get_be64(db + offsetof(struct srpt_direct_buf, va));
	*key = srpt_get_be32(db + offsetof(struct srpt_direct_buf, key));
	*len = srpt_get_be32(db + offsetof(struct srpt_direct_buf, len));
}

int srpt_iu_parse_cmd(const void *iu, u32 byte_len, u32 buf_size,
		      u32 imm_data_offset, struct srpt_cmd_desc *desc);
int srpt_iu_check_tsk_mgmt(const void *iu, u32 byte_len);
int srpt_iu_build_sense(u8 *buf, u32 size, u8 key, u8 asc, u8 ascq);
u32 srpt_iu_sense_len(const u8 *sense, u32 len);
int srpt_iu_build_rsp(void *buf, u32 buf_size, u32 max_ti_iu_len,
		      const struct srpt_rsp_info *info);
int srpt_iu_build_tsk_mgmt_rsp(void *buf, u32 buf_size, u32 max_ti_iu_len,
			       u64 tag, u32 req_lim_delta, u8 rsp_code);
int srpt_iu_rsp_summary(const void *buf, u32 len,
			struct srpt_rsp_summary *sum);

#endif /* SRPT_IU_H */
