// SPDX-License-Identifier: GPL-2.0
/*
 * debug.c - test-only hooks of a debug build (make SRPT_DEBUG_HOOKS=y).
 *
 * Races between a login and a teardown, or between the completions of a
 * channel and its release, are a few instructions wide; the VM tests
 * (tests/vm/cases/208-login-races.sh, 212-release-tpg-disable.sh,
 * 215-disconnect-release.sh, 313-teardown-hooks.sh) widen them by making
 * one hook point sleep (or, where sleeping is not allowed, busy-wait:
 * srpt_debug_spin(), used by tests/vm/cases/314-deferred-rsp-wakeup.sh):
 *   debug_delay_point  enum srpt_debug_point value, 0 = off (default)
 *   debug_delay_ms     how long the hook sleeps (default 0, at most
 *                      SRPT_DEBUG_SLEEP_MAX_MS; disarming the hook, point
 *                      or ms 0, ends a sleep early)
 *                      or spins (at most SRPT_DEBUG_SPIN_MAX_MS)
 * and one that makes the HCA look smaller than it is
 * (tests/vm/cases/315-small-qp.sh):
 *   debug_max_qp_wr    channels created from now on get a send queue as if
 *                      the HCA's max_qp_wr were this (0 = off, default)
 * and one that delivers a QP event Soft-RoCE never raises
 * (tests/vm/cases/216-qp-event-release.sh):
 *   debug_qp_event     writing an enum ib_event_type value (IB_EVENT_COMM_EST
 *                      is 4) makes the next send completion of any channel
 *                      have a work item deliver that event to the channel's
 *                      QP event handler, once; reads back 0 once it was
 *                      queued
 * and one that makes a receive completion arrive late, as a flush, the way
 * an HCA that never raises Last WQE Reached can deliver one after the
 * channel is gone (tests/vm/cases/325-late-srq-flush.sh):
 *   debug_hold_recv    writing MS makes the next successful receive of an
 *                      SRQ buffer be held back (the IU is not handled) and
 *                      delivered MS ms later by a work item, with the
 *                      status IB_WC_WR_FLUSH_ERR and its original wc->qp,
 *                      once; reads back 0 once a receive was taken
 * and three that make one allocation (or verbs call) of the driver fail, so
 * that the error paths run (tests/vm/cases/213-alloc-failures.sh):
 *   debug_fail_nth     writing N (re)starts the count: the Nth call of a
 *                      site wrapped in srpt_dbg_alloc(), srpt_dbg_err_ptr()
 *                      or srpt_dbg_err() from now on fails, once (0 = off;
 *                      a large N just counts); reads back 0 once it fired
 *   debug_fail_site    only calls at this site name count (the first
 *                      argument of the wrapper; empty = every site);
 *                      writing it restarts the count too
 *   debug_fail_calls   (read-only) wrapped calls counted since the last
 *                      write of debug_fail_nth or debug_fail_site
 * All but debug_fail_calls are writable at run time under
 * /sys/module/ib_srpt/parameters/.
 * This file is not built into release or DKMS modules, so production
 * modules have neither the parameters nor the sleeps.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kstrtox.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "srpt.h"
#include "srpt_debug.h"
#include "srpt_io.h"

static unsigned int debug_delay_point;
module_param(debug_delay_point, uint, 0644);
MODULE_PARM_DESC(debug_delay_point,
		 "Debug build only: hook point that sleeps (enum srpt_debug_point, 0 = none)");

static unsigned int debug_delay_ms;
module_param(debug_delay_ms, uint, 0644);
MODULE_PARM_DESC(debug_delay_ms,
		 "Debug build only: sleep of the hook point in ms (max 30000, ended early when the hook is disarmed; busy-waiting points: max 3000)");

#define SRPT_DEBUG_SITE_LEN	32

/* protects debug_fail_nth, debug_fail_site and debug_fail_calls */
static DEFINE_SPINLOCK(debug_fail_lock);
static unsigned int debug_fail_nth;
static char debug_fail_site[SRPT_DEBUG_SITE_LEN];
static unsigned int debug_fail_calls;

static int srpt_debug_fail_nth_set(const char *val,
				   const struct kernel_param *kp)
{
	unsigned long flags;
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	spin_lock_irqsave(&debug_fail_lock, flags);
	debug_fail_nth = n;
	debug_fail_calls = 0;
	spin_unlock_irqrestore(&debug_fail_lock, flags);
	return 0;
}

static const struct kernel_param_ops srpt_debug_fail_nth_ops = {
	.set	= srpt_debug_fail_nth_set,
	.get	= param_get_uint,
};

module_param_cb(debug_fail_nth, &srpt_debug_fail_nth_ops, &debug_fail_nth,
		0644);
MODULE_PARM_DESC(debug_fail_nth,
		 "Debug build only: the Nth wrapped allocation or verbs call from now on fails, once (0 = off)");

static int srpt_debug_fail_site_set(const char *val,
				    const struct kernel_param *kp)
{
	char site[SRPT_DEBUG_SITE_LEN];
	unsigned long flags;

	if (strscpy(site, val, sizeof(site)) < 0)
		return -EINVAL;
	strim(site);
	spin_lock_irqsave(&debug_fail_lock, flags);
	strscpy(debug_fail_site, site, sizeof(debug_fail_site));
	debug_fail_calls = 0;
	spin_unlock_irqrestore(&debug_fail_lock, flags);
	return 0;
}

static int srpt_debug_fail_site_get(char *buf, const struct kernel_param *kp)
{
	unsigned long flags;
	int len;

	spin_lock_irqsave(&debug_fail_lock, flags);
	len = sysfs_emit(buf, "%s\n", debug_fail_site);
	spin_unlock_irqrestore(&debug_fail_lock, flags);
	return len;
}

static const struct kernel_param_ops srpt_debug_fail_site_ops = {
	.set	= srpt_debug_fail_site_set,
	.get	= srpt_debug_fail_site_get,
};

module_param_cb(debug_fail_site, &srpt_debug_fail_site_ops, NULL, 0644);
MODULE_PARM_DESC(debug_fail_site,
		 "Debug build only: only the wrapped calls at this site count for debug_fail_nth (empty = all)");
module_param(debug_fail_calls, uint, 0444);
MODULE_PARM_DESC(debug_fail_calls,
		 "Debug build only: wrapped calls since debug_fail_nth was written");

static unsigned int debug_max_qp_wr;
module_param(debug_max_qp_wr, uint, 0644);
MODULE_PARM_DESC(debug_max_qp_wr,
		 "Debug build only: channels created from now on get a send queue as if the HCA allowed this many WRs per queue (0 = the HCA's own limit)");

static unsigned int debug_qp_event;
module_param(debug_qp_event, uint, 0644);
MODULE_PARM_DESC(debug_qp_event,
		 "Debug build only: the next send completion delivers this QP event (enum ib_event_type, 0 = off) to its channel, once");

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

/**
 * srpt_debug_fail() - whether the wrapped call at @site fails this time.
 * @site: name of the call site, logged when the failure fires.
 *
 * Counts the call while debug_fail_nth is set (if debug_fail_site is set,
 * only calls at that site); the call that reaches it fails, and the count
 * stops (debug_fail_nth goes back to 0), so one write injects exactly one
 * failure.
 *
 * Context: any.
 * Return: true if the caller must fail as if its call had failed.
 */
bool srpt_debug_fail(const char *site)
{
	unsigned long flags;
	unsigned int call;
	bool fail;

	if (!READ_ONCE(debug_fail_nth))
		return false;
	spin_lock_irqsave(&debug_fail_lock, flags);
	call = 0;
	if (debug_fail_nth &&
	    (!debug_fail_site[0] || !strcmp(debug_fail_site, site)))
		call = ++debug_fail_calls;
	fail = call && call == debug_fail_nth;
	if (fail)
		debug_fail_nth = 0;
	spin_unlock_irqrestore(&debug_fail_lock, flags);
	if (fail)
		pr_info("debug fail: call %u (%s) fails\n", call, site);
	return fail;
}

/*
 * The QP event debug_qp_event asks for, delivered by a work item: an HCA
 * raises asynchronous events from its own context, not from the channel's
 * CQ work (which the channel's close waits for), and in atomic context,
 * so the handler runs with preemption and interrupts disabled here (a
 * handler that sleeps is reported as "scheduling while atomic", on any
 * kernel). The hook SRPT_DBG_QP_EVENT delays the delivery, in the work
 * item, before the handler runs. One at a time. Like an
 * HCA driver, whose QP destruction waits for the QP's event handlers, the
 * channel's QP destruction waits for this work (srpt_debug_qp_destroy()),
 * so the QP and its channel (the handler's context) outlive the handler
 * without a reference.
 */
static struct ib_qp *debug_event_qp;
static unsigned int debug_event_type;

static void srpt_debug_qp_event_work(struct work_struct *work)
{
	struct ib_qp *qp = debug_event_qp;
	struct ib_event event = {
		.device		= qp->device,
		.element.qp	= qp,
		.event		= debug_event_type,
	};

	unsigned long flags;

	/* the event is late: the sleep is here, not in the handler */
	srpt_debug_delay(SRPT_DBG_QP_EVENT);
	pr_info("debug QP event: delivering %s (%u)\n",
		ib_event_msg(event.event), debug_event_type);
	/* HCA drivers call the handler in atomic context, so does this */
	preempt_disable();
	local_irq_save(flags);
	qp->event_handler(&event, qp->qp_context);
	local_irq_restore(flags);
	preempt_enable();
	pr_info("debug QP event: handler returned\n");
}

static DECLARE_WORK(debug_event_work, srpt_debug_qp_event_work);

/**
 * srpt_debug_qp_event() - deliver the QP event debug_qp_event asks for.
 * @qp: the QP of a channel, from a send completion of it.
 *
 * Has a work item call the QP's event handler as an HCA driver does for an
 * asynchronous event (through ib_core's wrapper where the kernel has one),
 * once per write of debug_qp_event.
 *
 * Context: a send completion on @qp (its channel's CQ work, so the QP
 * exists and is not being destroyed).
 */
void srpt_debug_qp_event(struct ib_qp *qp)
{
	unsigned int ev;

	if (!READ_ONCE(debug_qp_event) || work_busy(&debug_event_work))
		return;
	ev = xchg(&debug_qp_event, 0);
	if (!ev)
		return;
	debug_event_qp = qp;
	debug_event_type = ev;
	queue_work(system_unbound_wq, &debug_event_work);
}

/**
 * srpt_debug_qp_destroy() - wait for a QP event this QP may be handling.
 * @qp: a channel's QP, about to be destroyed.
 *
 * The work is queued only from a send completion, and a QP that is being
 * destroyed has none left (drained, or never used), so once the work has
 * finished nothing delivers an event to @qp any more. Any QP waits for
 * the work, whichever QP it serves: simpler, and debug builds only.
 *
 * Context: process context (the release work, or a failed login).
 */
void srpt_debug_qp_destroy(struct ib_qp *qp)
{
	flush_work(&debug_event_work);
}

static unsigned int debug_hold_recv;
module_param(debug_hold_recv, uint, 0644);
MODULE_PARM_DESC(debug_hold_recv,
		 "Debug build only: hold the next SRQ receive back for this many ms and deliver it as a flush, once (0 = off)");

/* the receive held back: one at a time (debug_hold_work pending) */
static struct ib_cq *debug_hold_cq;
static struct ib_wc debug_hold_wc;

static void srpt_debug_hold_work_fn(struct work_struct *work)
{
	pr_info("debug hold recv: delivering the held-back receive as a flush\n");
	debug_hold_wc.wr_cqe->done(debug_hold_cq, &debug_hold_wc);
	pr_info("debug hold recv: delivered\n");
}

static DECLARE_DELAYED_WORK(debug_hold_work, srpt_debug_hold_work_fn);

/**
 * srpt_debug_hold_recv() - hold a receive completion back, see
 * debug_hold_recv.
 * @cq: the CQ it completed on (a pool CQ of the HCA: it outlives channels).
 * @wc: the completion.
 *
 * Context: srpt_recv_done(), before it looks at @wc.
 * Return: true if the completion was taken and must not be handled now.
 */
bool srpt_debug_hold_recv(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_recv_ioctx *rio;
	unsigned int ms;

	if (likely(!READ_ONCE(debug_hold_recv)) || wc->status != IB_WC_SUCCESS)
		return false;
	rio = container_of(wc->wr_cqe, struct srpt_recv_ioctx, ioctx.cqe);
	if (!rio->srq_sdev || delayed_work_pending(&debug_hold_work))
		return false;
	ms = xchg(&debug_hold_recv, 0);
	if (!ms)
		return false;
	debug_hold_cq = cq;
	debug_hold_wc = *wc;
	debug_hold_wc.status = IB_WC_WR_FLUSH_ERR;
	pr_info("debug hold recv: holding back a receive of QP %u for %u ms\n",
		wc->qp->qp_num, ms);
	queue_delayed_work(system_unbound_wq, &debug_hold_work,
			   msecs_to_jiffies(min(ms, SRPT_DEBUG_SLEEP_MAX_MS)));
	return true;
}

/**
 * srpt_debug_srq_destroy() - drop a held-back receive before its SRQ goes.
 *
 * Its buffer is freed with the SRQ's ring, so it must not be delivered
 * after that (a real HCA has no CQE left for an SRQ once every QP on it
 * is destroyed and the SRQ is).
 *
 * Context: process context (srpt_srq_destroy()).
 */
void srpt_debug_srq_destroy(void)
{
	if (cancel_delayed_work_sync(&debug_hold_work))
		pr_info("debug hold recv: dropped with the SRQ\n");
}

/**
 * srpt_debug_init() - say at load that this module is a test build.
 *
 * Its parameters can make the driver sleep, spin or fail on purpose, so an
 * administrator who finds it loaded must be able to tell from the log.
 */
void srpt_debug_init(void)
{
	pr_notice("test build with debug hooks (make SRPT_DEBUG_HOOKS=y): not for production use\n");
}

/**
 * srpt_debug_exit() - wait for the debug work items (module exit).
 *
 * Every channel's QP destruction already waited for the QP event work;
 * this is the last word on it before the module text goes away.
 */
void srpt_debug_exit(void)
{
	flush_work(&debug_event_work);
	cancel_delayed_work_sync(&debug_hold_work);
}
