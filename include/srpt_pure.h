/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_pure.h - the few types and helpers that pure protocol code may use.
 *
 * Files that parse or build SRP information units, DM MADs and port names
 * (src/iu.c, src/dm.c, src/names.c) include only this header and the wire
 * format headers. In the kernel it maps to the kernel's own types; in
 * userspace (unit tests, fuzzers; SRPT_USERSPACE defined) it maps to libc.
 * Nothing here may allocate, sleep, lock or log.
 */
#ifndef SRPT_PURE_H
#define SRPT_PURE_H

#ifdef SRPT_USERSPACE

#include <endian.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>

/* __always_inline (srpt_iu.h) comes from glibc's <sys/cdefs.h>. */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
typedef uint16_t __be16;
typedef uint32_t __be32;
typedef uint64_t __be64;

#define cpu_to_be16(x) htobe16(x)
#define cpu_to_be32(x) htobe32(x)
#define cpu_to_be64(x) htobe64(x)
#define be16_to_cpu(x) be16toh(x)
#define be32_to_cpu(x) be32toh(x)
#define be64_to_cpu(x) be64toh(x)

#define __packed __attribute__((packed))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define static_assert(e, ...) _Static_assert(e, #e)

#else /* kernel */

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/stddef.h>
#include <linux/build_bug.h>
#include <asm/byteorder.h>

#endif /* SRPT_USERSPACE */

/*
 * Loads from a received IU, which need not be aligned: a packed struct
 * lets the compiler emit one load (on x86 a plain mov, plus a bswap for the
 * big-endian ones) without a copy to the stack.
 */
struct srpt_unaligned_u64 {
	u64 v;
} __packed;

struct srpt_unaligned_be32 {
	__be32 v;
} __packed;

struct srpt_unaligned_be64 {
	__be64 v;
} __packed;

/* A 64-bit field as stored (tags are opaque: not byte-swapped). */
static inline u64 srpt_get_u64(const void *p)
{
	return ((const struct srpt_unaligned_u64 *)p)->v;
}

/* A big-endian 32-bit field. */
static inline u32 srpt_get_be32(const void *p)
{
	return be32_to_cpu(((const struct srpt_unaligned_be32 *)p)->v);
}

/* A big-endian 64-bit field. */
static inline u64 srpt_get_be64(const void *p)
{
	return be64_to_cpu(((const struct srpt_unaligned_be64 *)p)->v);
}

#endif /* SRPT_PURE_H */
