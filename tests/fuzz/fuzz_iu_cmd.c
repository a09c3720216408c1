// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_iu_cmd.c - libFuzzer target for the SRP_CMD / SRP_TSK_MGMT parsers
 * of src/iu.c.
 *
 * Input: byte 0 selects the immediate data offset and the placement, byte
 * 1 the receive buffer size slack, the rest is the received IU. The IU is
 * copied to the very end of an exactly sized heap block, so reading one
 * byte past what was received is an AddressSanitizer report. A successful
 * parse must describe descriptors and data inside the received bytes; all
 * of them are read back. srpt_iu_tag() must find a tag exactly in IUs of
 * at least SRPT_MIN_TAGGED_IU_LEN bytes.
 */
#include <stdlib.h>

#include "srpt_iu.h"

#define BUF_SIZE	SRPT_DEF_MAX_REQ_SIZE

static const u32 imm_offsets[8] = { 0, 80, 64, 68, 52, 96, 4, 8192 };

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct srpt_cmd_desc d;
	u32 imm_off, buf_size, lead, byte_len, i;
	volatile u8 sink = 0;
	void *block;
	u8 *iu;
	int ret;

	if (size < 2)
		return 0;
	imm_off = imm_offsets[data[0] & 7];
	buf_size = BUF_SIZE - (data[1] & 0x7f);
	data += 2;
	size -= 2;
	byte_len = size > BUF_SIZE ? BUF_SIZE : size;
	/* align the immediate data like the driver does, unless bit 3 */
	lead = (SRPT_IMM_DATA_ALIGN - imm_off % SRPT_IMM_DATA_ALIGN) %
	       SRPT_IMM_DATA_ALIGN + ((data[-2] >> 3) & 1);
	if (posix_memalign(&block, SRPT_IMM_DATA_ALIGN,
			   lead + byte_len ? lead + byte_len : 1))
		return 0;
	iu = (u8 *)block + lead;
	memcpy(iu, data, byte_len);
	if (byte_len && (data[-2] & 0x10))
		iu[0] = SRPT_OP_CMD;

	ret = srpt_iu_parse_cmd(iu, byte_len, buf_size, imm_off, &d);
	if (ret == 0) {
		if (byte_len > buf_size)
			__builtin_trap();
		if ((u64)d.desc_off + (u64)d.nbufs * 16 > byte_len)
			__builtin_trap();
		if (d.data_len > SRPT_MAX_CMD_DATA_LEN)
			__builtin_trap();
		for (i = 0; i < d.nbufs; i++) {
			u32 key, len;
			u64 va;

			srpt_iu_get_desc(iu, &d, i, &va, &key, &len);
			if (len == 0 && d.fmt == SRPT_DATA_DESC_INDIRECT)
				__builtin_trap();
		}
		if (d.fmt == SRPT_DATA_DESC_IMM) {
			if ((u64)d.imm_off + d.data_len > byte_len)
				__builtin_trap();
			for (i = 0; i < d.data_len; i++)
				sink ^= iu[d.imm_off + i];
		}
	} else if (ret != -EINVAL && ret != -EIO) {
		__builtin_trap();
	}
	(void)srpt_iu_check_tsk_mgmt(iu, byte_len);
	(void)srpt_iu_opcode(iu, byte_len);
	/* a tag exactly when opcode and tag were received */
	{
		u64 tag;

		ret = srpt_iu_tag(iu, byte_len, &tag);
		if ((ret == 0) != (byte_len >= SRPT_MIN_TAGGED_IU_LEN))
			__builtin_trap();
		if (ret == 0 && memcmp(&tag, iu + 8, 8))
			__builtin_trap();
	}
	(void)sink;
	free(block);
	return 0;
}
