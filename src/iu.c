// SPDX-License-Identifier: GPL-2.0
/*
 * iu.c - parsing of the information units an initiator sends on a live
 * channel (SRP_CMD, SRP_TSK_MGMT) and building of the SRP_RSP the target
 * answers with.
 *
 * Pure code: it includes only srpt_pure.h and the wire format headers, so
 * tests/unit/test_iu.c and the fuzzers in tests/fuzz/ build it in userspace.
 * The parser of SRP_CMD and the builder of SRP_RSP, which run for every
 * command, are inline functions in srpt_iu.h; what the notes below say
 * about them applies there.
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
