// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_iu_rsp.c - libFuzzer target for the SRP_RSP builders of src/iu.c.
 *
 * Input: response buffer size (2 bytes), initiator IU limit (2 bytes),
 * status, flags, residual, sense length (2 bytes) and the sense bytes.
 * The response buffer is an exactly sized heap block, so writing past it
 * is an AddressSanitizer report; the result must fit both limits.
 */
#include <stdlib.h>

#include "srpt_iu.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

static u32 get16(const u8 *p)
{
	return p[0] << 8 | p[1];
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct srpt_rsp_info info = {};
	u32 buf_size, max_ti, limit;
	u8 *buf;
	int len;

	if (size < 12)
		return 0;
	buf_size = get16(data) % 2048;
	max_ti = get16(data + 2);
	info.status = data[4];
	info.dir = data[5] % 3;
	info.underflow = data[5] & 4;
	info.overflow = data[5] & 8;
	info.residual = get16(data + 6) << 8 | data[8];
	info.sense_len = get16(data + 9);
	info.tag = 0x55;
	info.req_lim_delta = data[11];
	data += 12;
	size -= 12;
	if (info.sense_len > size)
		info.sense_len = size;
	info.sense = (data[-7] & 16) ? data : NULL;

	buf = malloc(buf_size ? buf_size : 1);
	if (!buf)
		return 0;
	limit = buf_size < max_ti ? buf_size : max_ti;
	if (limit < sizeof(struct srpt_rsp))
		limit = sizeof(struct srpt_rsp);

	len = srpt_iu_build_rsp(buf, buf_size, max_ti, &info);
	if (buf_size < sizeof(struct srpt_rsp)) {
		if (len != -EINVAL)
			__builtin_trap();
	} else if (len < (int)sizeof(struct srpt_rsp) || (u32)len > limit) {
		__builtin_trap();
	}

	len = srpt_iu_build_tsk_mgmt_rsp(buf, buf_size, max_ti, 1, 1,
					 info.status);
	if (len != -EINVAL && (len != 40 || buf_size < 40 || max_ti < 40))
		__builtin_trap();
	if (len == -EINVAL && buf_size >= 40 && max_ti >= 40)
		__builtin_trap();

	len = srpt_iu_build_sense(buf, buf_size, data[-1], 1, 2);
	if (len != -EINVAL && (len != SRPT_FIXED_SENSE_LEN ||
			       buf_size < SRPT_FIXED_SENSE_LEN))
		__builtin_trap();
	free(buf);
	return 0;
}
