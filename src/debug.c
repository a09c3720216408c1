// SPDX-License-Identifier: GPL-2.0
/*
 * debug.c - test-only delay hooks of a debug build (make SRPT_DEBUG_HOOKS=y).
 *
 * Races between a login and a teardown, or between the completions of a
 * channel and its release, are a few instructions wide; the VM tests
 * (tests/vm/cases/208-login-races.sh, 313-teardown-hooks.sh) widen them by
 * making one hook point sleep:
 *   debug_delay_point  enum srpt_debug_point value, 0 = off (default)
 *   debug_delay_ms     how long the hook sleeps (default 0, at most 10000)
 * Both are writable at run time under /sys/module/ib_srpt/parameters/.
 * This file is not built into release or DKMS modules, so production
 * modules have neither the parameters nor the sleeps.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>

#include "srpt_debug.h"

static unsigned int debug_delay_point;
module_param(debug_delay_point, uint, 0644);
MODULE_PARM_DESC(debug_delay_point,
		 "Debug build only: hook point that sleeps (enum srpt_debug_point, 0 = none)");

static unsigned int debug_delay_ms;
module_param(debug_delay_ms, uint, 0644);
MODULE_PARM_DESC(debug_delay_ms,
		 "Debug build only: sleep of the hook point in ms (max 10000)");

/**
 * srpt_debug_delay() - sleep if @point is the selected hook point.
 * @point: the calling hook point.
 *
 * Context: process context (the CM handlers and the CQ polling run in work
 * items).
 */
void srpt_debug_delay(enum srpt_debug_point point)
{
	unsigned int ms;

	if (READ_ONCE(debug_delay_point) != point)
		return;
	ms = min(READ_ONCE(debug_delay_ms), 10000U);
	if (!ms)
		return;
	pr_info("debug hook %d: sleeping %u ms\n", point, ms);
	msleep(ms);
}
