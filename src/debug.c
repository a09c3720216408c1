// SPDX-License-Identifier: GPL-2.0
/*
 * debug.c - test-only delay hooks of a debug build (make SRPT_DEBUG_HOOKS=y).
 *
 * Races between a login and a teardown, or between the completions of a
 * channel and its release, are a few instructions wide; the VM tests
 * (tests/vm/cases/208-login-races.sh, 212-release-tpg-disable.sh,
 * 313-teardown-hooks.sh) widen them by making one hook point sleep (or,
 * where sleeping is not allowed, busy-wait: srpt_debug_spin(), used by
 * tests/vm/cases/314-deferred-rsp-wakeup.sh):
 *   debug_delay_point  enum srpt_debug_point value, 0 = off (default)
 *   debug_delay_ms     how long the hook sleeps (default 0, at most
 *                      SRPT_DEBUG_SLEEP_MAX_MS; disarming the hook, point
 *                      or ms 0, ends a sleep early)
 *                      or spins (at most SRPT_DEBUG_SPIN_MAX_MS)
 * and one that makes the HCA look smaller than it is
 * (tests/vm/cases/315-small-qp.sh):
 *   debug_max_qp_wr    channels created from now on get a send queue as if
 *                      the HCA's max_qp_wr were this (0 = off, default)
 * All are writable at run time under /sys/module/ib_srpt/parameters/.
 * This file is not built into release or DKMS modules, so production
 * modules have neither the parameters nor the sleeps.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>

#include "srpt.h"
#include "srpt_debug.h"

static unsigned int debug_delay_point;
module_param(debug_delay_point, uint, 0644);
MODULE_PARM_DESC(debug_delay_point,
		 "Debug build only: hook point that sleeps (enum srpt_debug_point, 0 = none)");

static unsigned int debug_delay_ms;
module_param(debug_delay_ms, uint, 0644);
MODULE_PARM_DESC(debug_delay_ms,
		 "Debug build only: sleep of the hook point in ms (max 30000, ended early when the hook is disarmed; busy-waiting points: max 3000)");

static unsigned int debug_max_qp_wr;
module_param(debug_max_qp_wr, uint, 0644);
MODULE_PARM_DESC(debug_max_qp_wr,
		 "Debug build only: channels created from now on get a send queue as if the HCA allowed this many WRs per queue (0 = the HCA's own limit)");

/*
 * A spinning hook point runs with interrupts disabled: well below the soft
 * lockup (20 s) and RCU stall (21 s) limits, and below the 10 s of the
 * hard lockup detector.
 */
#define SRPT_DEBUG_SPIN_MAX_MS	3000U

/*
 * A sleeping hook point sleeps in short steps and ends early when the test
 * disarms it, so that a test can hold a login in the hook for as long as
 * its disruption takes (an ACL rmdir takes seconds on a loaded sanitizer
 * kernel) and release it right after, instead of guessing a fixed time.
 * Each step is a new sleep, so the hung task detector does not fire.
 */
#define SRPT_DEBUG_SLEEP_MAX_MS	30000U
#define SRPT_DEBUG_SLEEP_STEP_MS	20U

/**
 * srpt_debug_delay() - sleep if @point is the selected hook point.
 * @point: the calling hook point.
 *
 * Sleeps up to debug_delay_ms, or until the hook is disarmed
 * (debug_delay_point or debug_delay_ms set to 0), whichever comes first.
 *
 * Context: process context (the CM handlers and the CQ polling run in work
 * items).
 */
void srpt_debug_delay(enum srpt_debug_point point)
{
	unsigned long end;
	unsigned int ms;

	if (READ_ONCE(debug_delay_point) != point)
		return;
	ms = min(READ_ONCE(debug_delay_ms), SRPT_DEBUG_SLEEP_MAX_MS);
	if (!ms)
		return;
	pr_info("debug hook %d: sleeping up to %u ms\n", point, ms);
	end = jiffies + msecs_to_jiffies(ms);
	while (time_before(jiffies, end) &&
	       READ_ONCE(debug_delay_point) == point &&
	       READ_ONCE(debug_delay_ms))
		msleep(SRPT_DEBUG_SLEEP_STEP_MS);
}

/**
 * srpt_debug_spin() - busy-wait if @point is the selected hook point.
 * @point: the calling hook point.
 * @watch: counter whose value is logged before and after the wait, so that
 *	   a test can tell whether another CPU changed it meanwhile (i.e.
 *	   whether the race the hook widens really happened); may be NULL.
 *
 * For hook points inside a spinlock or with interrupts disabled. The wait
 * is measured with ktime_get(), not with a count of mdelay() calls, so it
 * lasts as long as asked even when the delay loop is miscalibrated (TCG).
 *
 * Context: any; does not sleep.
 */
void srpt_debug_spin(enum srpt_debug_point point, const atomic_t *watch)
{
	unsigned int ms;
	ktime_t end;
	int before;

	if (READ_ONCE(debug_delay_point) != point)
		return;
	ms = min(READ_ONCE(debug_delay_ms), SRPT_DEBUG_SPIN_MAX_MS);
	if (!ms)
		return;
	before = watch ? atomic_read(watch) : 0;
	pr_info("debug hook %d: spinning %u ms (value %d)\n", point, ms, before);
	end = ktime_add_ms(ktime_get(), ms);
	while (ktime_before(ktime_get(), end))
		cpu_relax();
	pr_info("debug hook %d: spun %u ms, value %d -> %d\n", point, ms,
		before, watch ? atomic_read(watch) : 0);
}

/**
 * srpt_debug_max_qp_wr() - the WRs per queue a new channel may use.
 * @hca_max: the HCA's max_qp_wr.
 *
 * Return: @hca_max, or the debug_max_qp_wr parameter if it is set and
 * smaller, so that a test on Soft-RoCE (16384 WRs per queue) sees a send
 * queue that holds fewer WRs than the srp_sq_size attribute asks for.
 */
u32 srpt_debug_max_qp_wr(u32 hca_max)
{
	u32 cap = READ_ONCE(debug_max_qp_wr);

	if (!cap)
		return hca_max;
	/* room for one WR besides the spare ones, or the sums underflow */
	return min(max_t(u32, cap, SRPT_SQ_SPARE_WRS + 1), hca_max);
}
