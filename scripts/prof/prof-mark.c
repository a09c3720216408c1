// SPDX-License-Identifier: GPL-2.0
/*
 * prof-mark.c - the marker of scripts/prof/kprof.c: a static program whose
 * only code is linked at a fixed address (see the Makefile) that nothing
 * else in the guest uses. Running it makes the plugin write its counts.
 * No C library: _start exits at once (exit_group(0)).
 */
void _start(void);

void _start(void)
{
	__asm__ volatile("mov $231, %%eax\n\txor %%edi, %%edi\n\tsyscall"
			 ::: "memory");
	__builtin_unreachable();
}
