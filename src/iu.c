// SPDX-License-Identifier: GPL-2.0
/*
 * iu.c - parsing of the information units an initiator sends on a live
 * channel (SRP_CMD, SRP_TSK_MGMT) and building of the SRP_RSP the target
 * answers with.
 *
 * Pure code: it includes only srpt_pure.h and the wire format headers, so
 * tests/unit/test_iu.c and the fuzzers in tests/fuzz/ build it in userspace.
 *
 * Where this differs from the in-kernel driver (docs/design.md, "Reads stop
 * at the received length"):
 *  - nothing past the received length is read: an IU too short to carry
 *    its tag has no tag (srpt_iu_tag()), instead of the one an earlier IU
 *    left in the receive buffer;
 *  - the additional CDB, the descriptor and the inline indirect table are
 *    bounded by the bytes actually received;
 *  - the inline indirect table must hold exactly the descriptors it
 *    announces, none of zero length, and their lengths must add up to the
 *    total length (otherwise LIO would see a data length that does not
 *    match the scatterlist built from the descriptors);
 *  - immediate data length checks are done in 64-bit arithmetic;
 *  - bidirectional commands, immediate data-in and unknown descriptor
 *    formats are rejected instead of being run without data;
 *  - sense data is capped by both the initiator's IU limit and the size of
 *    the response buffer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "srpt_iu.h"

/* Direct descriptor: one srpt_direct_buf at @desc_off. */
static int srpt_iu_parse_direct(const void *iu, u32 byte_len,
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
static int srpt_iu_parse_indirect(const void *iu, u32 byte_len, u8 desc_cnt,
				  struct srpt_cmd_desc *d)
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
static int srpt_iu_parse_imm(const void *iu, u32 byte_len, u32 buf_size,
			     u32 imm_data_offset, struct srpt_cmd_desc *d)
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
int srpt_iu_parse_cmd(const void *iu, u32 byte_len, u32 buf_size,
		      u32 imm_data_offset, struct srpt_cmd_desc *desc)
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

/**
 * srpt_iu_check_tsk_mgmt() - validate the length and opcode of SRP_TSK_MGMT.
 * @iu: the received IU.
 * @byte_len: bytes received.
 *
 * Return: 0 if @iu holds a complete SRP_TSK_MGMT, -EINVAL otherwise.
 */
int srpt_iu_check_tsk_mgmt(const void *iu, u32 byte_len)
{
	const u8 *p = iu;

	if (byte_len < sizeof(struct srpt_tsk_mgmt) ||
	    p[offsetof(struct srpt_tsk_mgmt, opcode)] != SRPT_OP_TSK_MGMT)
		return -EINVAL;
	return 0;
}

/**
 * srpt_iu_build_sense() - build fixed-format sense data.
 * @buf: output buffer.
 * @size: size of @buf.
 * @key: sense key.
 * @asc: additional sense code.
 * @ascq: additional sense code qualifier.
 *
 * Return: number of bytes written (SRPT_FIXED_SENSE_LEN) or -EINVAL if
 * @buf is too small.
 */
int srpt_iu_build_sense(u8 *buf, u32 size, u8 key, u8 asc, u8 ascq)
{
	if (size < SRPT_FIXED_SENSE_LEN)
		return -EINVAL;
	memset(buf, 0, SRPT_FIXED_SENSE_LEN);
	buf[0] = 0x70;			/* current error, fixed format */
	buf[2] = key & 0xf;
	buf[7] = SRPT_FIXED_SENSE_LEN - 8;
	buf[12] = asc;
	buf[13] = ascq;
	return SRPT_FIXED_SENSE_LEN;
}

/**
 * srpt_iu_sense_len() - number of meaningful bytes in a sense buffer.
 * @sense: sense data.
 * @len: bytes available in @sense (LIO always reports its full buffer).
 *
 * Fixed (70h/71h) and descriptor (72h/73h) format sense data carry their
 * length in byte 7; anything else is taken as @len bytes.
 *
 * Return: 8 plus the additional sense length, at most @len.
 */
u32 srpt_iu_sense_len(const u8 *sense, u32 len)
{
	u32 n;

	if (len < 8)
		return len;
	switch (sense[0] & 0x7f) {
	case 0x70:
	case 0x71:
	case 0x72:
	case 0x73:
		n = 8 + sense[7];
		return n < len ? n : len;
	default:
		return len;
	}
}

/* Bytes of sense or response data that fit after the SRP_RSP header. */
static u32 srpt_iu_rsp_room(u32 buf_size, u32 max_ti_iu_len)
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
int srpt_iu_build_rsp(void *buf, u32 buf_size, u32 max_ti_iu_len,
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

/**
 * srpt_iu_build_tsk_mgmt_rsp() - build the SRP_RSP of a task management
 * function.
 * @buf: response buffer.
 * @buf_size: size of @buf.
 * @max_ti_iu_len: largest IU the initiator accepts.
 * @tag: tag of the SRP_TSK_MGMT request.
 * @req_lim_delta: credits granted with this response.
 * @rsp_code: SRPT_TSK_MGMT_* response code.
 *
 * Return: length of the response (40 bytes) or -EINVAL if it does not fit
 * in @buf or @max_ti_iu_len.
 */
int srpt_iu_build_tsk_mgmt_rsp(void *buf, u32 buf_size, u32 max_ti_iu_len,
			       u64 tag, u32 req_lim_delta, u8 rsp_code)
{
	struct srpt_rsp *rsp = buf;
	const u32 data_len = 4;

	if (buf_size < sizeof(*rsp) ||
	    srpt_iu_rsp_room(buf_size, max_ti_iu_len) < data_len)
		return -EINVAL;
	memset(rsp, 0, sizeof(*rsp) + data_len);
	rsp->opcode = SRPT_OP_RSP;
	rsp->req_lim_delta = cpu_to_be32(req_lim_delta);
	rsp->tag = tag;
	rsp->flags = SRPT_RSP_FLAG_RSPVALID;
	rsp->resp_data_len = cpu_to_be32(data_len);
	rsp->data[3] = rsp_code;
	return sizeof(*rsp) + data_len;
}

/*
 * Sense key, ASC and ASCQ of @len bytes of sense data in fixed (70h/71h)
 * or descriptor (72h/73h) format; fields the data is too short for, and
 * everything of an unknown format, stay 0.
 */
static void srpt_iu_sense_fields(const u8 *sense, u32 len,
				 struct srpt_rsp_summary *sum)
{
	if (len < 1)
		return;
	switch (sense[0] & 0x7f) {
	case 0x70:
	case 0x71:
		if (len > 2)
			sum->sense_key = sense[2] & 0x0f;
		if (len > 13) {
			sum->asc = sense[12];
			sum->ascq = sense[13];
		}
		break;
	case 0x72:
	case 0x73:
		if (len > 3) {
			sum->sense_key = sense[1] & 0x0f;
			sum->asc = sense[2];
			sum->ascq = sense[3];
		}
		break;
	}
}

/**
 * srpt_iu_rsp_summary() - read back the fields of a built SRP_RSP.
 * @buf: the response.
 * @len: bytes of @buf that may be read (the send buffer size).
 * @sum: filled in; zeroed first.
 *
 * Used by the tracepoint of a response's send completion, so that the
 * trace shows what was sent rather than what the driver meant to send.
 * Response and sense data are only looked at as far as @len reaches.
 *
 * Return: 0, or -EINVAL if @buf is shorter than an SRP_RSP or is not one.
 */
int srpt_iu_rsp_summary(const void *buf, u32 len,
			struct srpt_rsp_summary *sum)
{
	const struct srpt_rsp *rsp = buf;
	u32 room, rsp_len = 0, sense_len;

	memset(sum, 0, sizeof(*sum));
	if (len < sizeof(*rsp) || rsp->opcode != SRPT_OP_RSP)
		return -EINVAL;
	sum->tag = rsp->tag;
	sum->req_lim_delta = be32_to_cpu(rsp->req_lim_delta);
	sum->status = rsp->status;
	sum->flags = rsp->flags;
	if (rsp->flags & (SRPT_RSP_FLAG_DIUNDER | SRPT_RSP_FLAG_DIOVER))
		sum->residual = be32_to_cpu(rsp->data_in_res_cnt);
	else if (rsp->flags & (SRPT_RSP_FLAG_DOUNDER | SRPT_RSP_FLAG_DOOVER))
		sum->residual = be32_to_cpu(rsp->data_out_res_cnt);

	room = len - sizeof(*rsp);
	if (rsp->flags & SRPT_RSP_FLAG_RSPVALID) {
		rsp_len = be32_to_cpu(rsp->resp_data_len);
		if (rsp_len > room)
			rsp_len = room;
		if (rsp_len > 3)
			sum->rsp_code = rsp->data[3];
	}
	if (rsp->flags & SRPT_RSP_FLAG_SNSVALID) {
		sense_len = be32_to_cpu(rsp->sense_data_len);
		if (sense_len > room - rsp_len)
			sense_len = room - rsp_len;
		srpt_iu_sense_fields(rsp->data + rsp_len, sense_len, sum);
	}
	return 0;
}
