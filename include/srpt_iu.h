/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_iu.h - parsing of SRP_CMD / SRP_TSK_MGMT and building of SRP_RSP
 * (src/iu.c and the inline functions below, pure code: no allocation,
 * locking or logging).
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
 * that a command pays no call for them (the instruction profile
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

/*
 * The parser of SRP_CMD and the builder of SRP_RSP run once per command:
 * inline as well, so that the caller's descriptor and response info stay
 * in registers instead of a structure on the stack that a call in another
 * file fills and reads (an instruction profile of 4 KiB writes
 * showed about 110 instructions per command in the two calls). Still pure
 * code, built into the unit tests and fuzzers with iu.c.
 */

/* Direct descriptor: one srpt_direct_buf at @desc_off. */
static inline int srpt_iu_parse_direct(const void *iu, u32 byte_len,
				       struct srpt_cmd_desc *d)
{
	u32 len;

	if ((u64)d->desc_off + sizeof(struct srpt_direct_buf) > byte_len)
		return -EINVAL;
	len = srpt_get_be32((const u8 *)iu + d->desc_off +
			    offsetof(struct srpt_direct_buf, len));
	if (len > SRPT_MAX_CMD_DATA_LEN)
		return -EINVAL;
	d->data_len = len;
	d->nbufs = len ? 1 : 0;
	return 0;
}

/*
 * Indirect descriptor: a table header (srpt_indirect_buf) followed by the
 * descriptors, all of which must be carried in the IU itself.
 */
static inline int srpt_iu_parse_indirect(const void *iu, u32 byte_len,
					 u8 desc_cnt, struct srpt_cmd_desc *d)
{
	const u8 *ib = (const u8 *)iu + d->desc_off;
	const size_t dbsz = sizeof(struct srpt_direct_buf);
	u32 table_len, nbufs, total, i, off, len;
	u64 sum = 0;

	if ((u64)d->desc_off + sizeof(struct srpt_indirect_buf) > byte_len)
		return -EINVAL;
	table_len = srpt_get_be32(ib + offsetof(struct srpt_indirect_buf,
						table_desc.len));
	if (table_len == 0 || table_len % dbsz)
		return -EINVAL;
	nbufs = table_len / dbsz;
	/* The target never fetches an external descriptor table. */
	if (nbufs > desc_cnt)
		return -EINVAL;
	off = d->desc_off + sizeof(struct srpt_indirect_buf);
	if ((u64)off + (u64)nbufs * dbsz > byte_len)
		return -EINVAL;
	total = srpt_get_be32(ib + offsetof(struct srpt_indirect_buf, len));
	if (total > SRPT_MAX_CMD_DATA_LEN)
		return -EINVAL;
	for (i = 0; i < nbufs; i++) {
		len = srpt_get_be32((const u8 *)iu + off + i * dbsz +
				    offsetof(struct srpt_direct_buf, len));
		if (len == 0)
			return -EINVAL;
		sum += len;
	}
	if (sum != total)
		return -EINVAL;
	d->desc_off = off;
	d->nbufs = nbufs;
	d->data_len = total;
	return 0;
}

/* Immediate data-out: srpt_imm_buf at @desc_off, data at imm_data_offset. */
static inline int srpt_iu_parse_imm(const void *iu, u32 byte_len,
				    u32 buf_size, u32 imm_data_offset,
				    struct srpt_cmd_desc *d)
{
	u64 end;
	u32 len;

	if (imm_data_offset == 0)
		return -EINVAL;		/* not negotiated at login */
	if ((u64)d->desc_off + sizeof(struct srpt_imm_buf) > byte_len ||
	    (u64)d->desc_off + sizeof(struct srpt_imm_buf) > imm_data_offset)
		return -EINVAL;
	len = srpt_get_be32((const u8 *)iu + d->desc_off +
			    offsetof(struct srpt_imm_buf, len));
	end = (u64)imm_data_offset + len;
	if (end > buf_size)
		return -EINVAL;
	if (end > byte_len)
		return -EIO;
	if (((uintptr_t)iu + imm_data_offset) % SRPT_IMM_DATA_ALIGN)
		return -EINVAL;
	d->imm_off = imm_data_offset;
	d->data_len = len;
	d->nbufs = 0;
	return 0;
}

/**
 * srpt_iu_parse_cmd() - validate an SRP_CMD and locate its data.
 * @iu: the received IU.
 * @byte_len: bytes received (wc->byte_len; peer controlled).
 * @buf_size: bytes of @iu that may be read (the receive buffer size,
 *	      srp_max_req_size); @byte_len larger than this is rejected.
 * @imm_data_offset: offset of immediate data negotiated at login, 0 if
 *		     immediate data is not in use.
 * @desc: filled in on success; zeroed (no data) on failure.
 *
 * Every offset derived from the IU (additional CDB, descriptor, inline
 * descriptor table, immediate data) is checked against @byte_len and
 * @buf_size before it is used, in 64-bit arithmetic.
 *
 * Return: 0 on success; -EINVAL for a malformed or unsupported command;
 * -EIO if the immediate data announced was not fully received.
 */
static __always_inline int srpt_iu_parse_cmd(const void *iu, u32 byte_len,
					     u32 buf_size,
					     u32 imm_data_offset,
					     struct srpt_cmd_desc *desc)
{
	const u8 *p = iu;	/* byte access: @iu need not be aligned */
	u8 out_fmt, in_fmt, cnt;
	u32 add_cdb;
	int ret;

	memset(desc, 0, sizeof(*desc));
	if (byte_len > buf_size || byte_len < sizeof(struct srpt_cmd))
		return -EINVAL;
	if (p[offsetof(struct srpt_cmd, opcode)] != SRPT_OP_CMD)
		return -EINVAL;
	/* Length in 4-byte units in bits 7..2; bits 1..0 are reserved. */
	add_cdb = p[offsetof(struct srpt_cmd, add_cdb_len)] & ~3U;
	if (sizeof(struct srpt_cmd) + add_cdb > byte_len)
		return -EINVAL;
	desc->cdb_len = 16 + add_cdb;	/* srpt_cmd.cdb[16] */
	desc->desc_off = sizeof(struct srpt_cmd) + add_cdb;

	out_fmt = p[offsetof(struct srpt_cmd, buf_fmt)] >> 4;
	in_fmt = p[offsetof(struct srpt_cmd, buf_fmt)] & 0xf;
	if (!out_fmt && !in_fmt)
		return 0;
	if (out_fmt && in_fmt) {
		ret = -EINVAL;		/* bidirectional: not supported */
		goto fail;
	}
	desc->dir = in_fmt ? SRPT_DIR_READ : SRPT_DIR_WRITE;

	desc->fmt = in_fmt ? in_fmt : out_fmt;
	cnt = in_fmt ? p[offsetof(struct srpt_cmd, data_in_desc_cnt)] :
		       p[offsetof(struct srpt_cmd, data_out_desc_cnt)];
	switch (desc->fmt) {
	case SRPT_DATA_DESC_DIRECT:
		ret = srpt_iu_parse_direct(iu, byte_len, desc);
		break;
	case SRPT_DATA_DESC_INDIRECT:
		ret = srpt_iu_parse_indirect(iu, byte_len, cnt, desc);
		break;
	case SRPT_DATA_DESC_IMM:
		if (desc->dir != SRPT_DIR_WRITE)
			ret = -EINVAL;
		else
			ret = srpt_iu_parse_imm(iu, byte_len, buf_size,
						imm_data_offset, desc);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	if (ret)
		goto fail;
	return 0;

fail:
	memset(desc, 0, sizeof(*desc));
	return ret;
}

/* Bytes of sense or response data that fit after the SRP_RSP header. */
static inline u32 srpt_iu_rsp_room(u32 buf_size, u32 max_ti_iu_len)
{
	u32 lim = buf_size < max_ti_iu_len ? buf_size : max_ti_iu_len;

	return lim > sizeof(struct srpt_rsp) ? lim - sizeof(struct srpt_rsp) : 0;
}

/**
 * srpt_iu_build_rsp() - build the SRP_RSP of a SCSI command.
 * @buf: response buffer.
 * @buf_size: size of @buf.
 * @max_ti_iu_len: largest IU the initiator accepts.
 * @info: status, residual and sense to report.
 *
 * Sense data is truncated to what fits both in @buf and in @max_ti_iu_len;
 * the caller can compare the result with @info->sense_len to notice.
 *
 * Return: length of the response in bytes, or -EINVAL if @buf cannot hold
 * even the fixed part.
 */
static __always_inline int srpt_iu_build_rsp(void *buf, u32 buf_size,
					     u32 max_ti_iu_len,
					     const struct srpt_rsp_info *info)
{
	struct srpt_rsp *rsp = buf;
	u32 sense_len = info->sense ? info->sense_len : 0;
	u32 room;

	if (buf_size < sizeof(*rsp))
		return -EINVAL;
	room = srpt_iu_rsp_room(buf_size, max_ti_iu_len);
	if (sense_len > room)
		sense_len = room;

	memset(rsp, 0, sizeof(*rsp));
	rsp->opcode = SRPT_OP_RSP;
	rsp->req_lim_delta = cpu_to_be32(info->req_lim_delta);
	rsp->tag = info->tag;
	rsp->status = info->status;

	if (info->dir == SRPT_DIR_WRITE) {
		if (info->underflow) {
			rsp->flags |= SRPT_RSP_FLAG_DOUNDER;
			rsp->data_out_res_cnt = cpu_to_be32(info->residual);
		} else if (info->overflow) {
			rsp->flags |= SRPT_RSP_FLAG_DOOVER;
			rsp->data_out_res_cnt = cpu_to_be32(info->residual);
		}
	} else if (info->dir == SRPT_DIR_READ) {
		if (info->underflow) {
			rsp->flags |= SRPT_RSP_FLAG_DIUNDER;
			rsp->data_in_res_cnt = cpu_to_be32(info->residual);
		} else if (info->overflow) {
			rsp->flags |= SRPT_RSP_FLAG_DIOVER;
			rsp->data_in_res_cnt = cpu_to_be32(info->residual);
		}
	}

	if (sense_len) {
		rsp->flags |= SRPT_RSP_FLAG_SNSVALID;
		rsp->sense_data_len = cpu_to_be32(sense_len);
		memcpy(rsp->data, info->sense, sense_len);
	}
	return sizeof(*rsp) + sense_len;
}

int srpt_iu_check_tsk_mgmt(const void *iu, u32 byte_len);
int srpt_iu_build_sense(u8 *buf, u32 size, u8 key, u8 asc, u8 ascq);
u32 srpt_iu_sense_len(const u8 *sense, u32 len);
int srpt_iu_build_tsk_mgmt_rsp(void *buf, u32 buf_size, u32 max_ti_iu_len,
			       u64 tag, u32 req_lim_delta, u8 rsp_code);
int srpt_iu_rsp_summary(const void *buf, u32 len,
			struct srpt_rsp_summary *sum);

#endif /* SRPT_IU_H */
