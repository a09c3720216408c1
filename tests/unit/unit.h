/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unit.h - minimal TAP-style helpers for the userspace unit tests.
 *
 * Each check prints "ok N - what" or "not ok N - what # file:line ...".
 * main() ends with "return unit_done();", which prints the plan "1..N"
 * and returns non-zero if a check failed. tests/unit/Makefile counts the
 * "ok"/"not ok" lines of every test program.
 */
#ifndef SRPT_UNIT_H
#define SRPT_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_count;
static int unit_failures;

static inline int unit_report(int ok, const char *what, const char *file,
			      int line)
{
	unit_count++;
	if (ok) {
		printf("ok %d - %s\n", unit_count, what);
	} else {
		unit_failures++;
		printf("not ok %d - %s # %s:%d\n", unit_count, what, file,
		       line);
	}
	return ok;
}

/* CHECK(cond): passes if cond is true. */
#define CHECK(cond) unit_report(!!(cond), #cond, __FILE__, __LINE__)

/* CHECK_EQ(a, b): integer equality; prints both values on failure. */
#define CHECK_EQ(a, b)							\
	do {								\
		long long unit_a_ = (long long)(a);			\
		long long unit_b_ = (long long)(b);			\
		if (!unit_report(unit_a_ == unit_b_, #a " == " #b,	\
				 __FILE__, __LINE__))			\
			printf("#   got %lld (0x%llx), expected %lld (0x%llx)\n", \
			       unit_a_, (unsigned long long)unit_a_,	\
			       unit_b_, (unsigned long long)unit_b_);	\
	} while (0)

/* CHECK_STR_EQ(a, b): string equality; prints both on failure. */
#define CHECK_STR_EQ(a, b)						\
	do {								\
		const char *unit_s_ = (a), *unit_t_ = (b);		\
		if (!unit_report(strcmp(unit_s_, unit_t_) == 0,		\
				 #a " == " #b, __FILE__, __LINE__))	\
			printf("#   got \"%s\", expected \"%s\"\n",	\
			       unit_s_, unit_t_);			\
	} while (0)

/* CHECK_MEM_EQ(a, b, n): n bytes equal; prints the first difference. */
#define CHECK_MEM_EQ(a, b, n)						\
	do {								\
		const unsigned char *unit_p_ = (const void *)(a);	\
		const unsigned char *unit_q_ = (const void *)(b);	\
		size_t unit_n_ = (n), unit_i_;				\
		for (unit_i_ = 0; unit_i_ < unit_n_; unit_i_++)		\
			if (unit_p_[unit_i_] != unit_q_[unit_i_])	\
				break;					\
		if (!unit_report(unit_i_ == unit_n_, #a " == " #b,	\
				 __FILE__, __LINE__))			\
			printf("#   byte %zu: got 0x%02x, expected 0x%02x\n", \
			       unit_i_, unit_p_[unit_i_], unit_q_[unit_i_]); \
	} while (0)

/* Print a TAP comment line. */
#define UNIT_NOTE(...)							\
	do {								\
		printf("# ");						\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	} while (0)

static inline int unit_done(void)
{
	printf("1..%d\n", unit_count);
	return unit_failures ? 1 : 0;
}

#endif /* SRPT_UNIT_H */
