// SPDX-License-Identifier: GPL-2.0
/*
 * kbug_cq_delay.c - test-only module that makes a race of the kernel's RDMA
 * core (not of ib_srpt) reproducible on demand. See tests/vm/README.md,
 * "Known kernel bugs we work around".
 *
 * ib_poll_handler() in drivers/infiniband/core/cq.c, the softirq poller of
 * IB_POLL_SOFTIRQ completion queues, first ends its polling round with
 * irq_poll_complete(), which clears IRQ_POLL_F_SCHED, and only then re-arms
 * the CQ with ib_req_notify_cq(). ib_free_cq() waits in irq_poll_disable()
 * for nothing but that bit. A task that frees the CQ on another CPU can
 * therefore destroy it between the two calls, and the re-arm then runs on
 * freed memory.
 *
 * This module puts a kprobe on the driver's req_notify_cq method
 * (rxe_req_notify_cq unless @symbol says otherwise) and busy-waits there for
 * @delay_ms whenever it is entered in softirq context, which is exactly
 * that window. Boot with init_on_free=1 so that the freed memory is zeroed
 * and a use of it faults at once.
 *
 * Never load it outside a throw-away VM.
 */
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/preempt.h>

static char *symbol = "rxe_req_notify_cq";
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "function to delay (a driver's req_notify_cq method)");

static unsigned int delay_ms = 20;
module_param(delay_ms, uint, 0644);
MODULE_PARM_DESC(delay_ms, "busy wait per call from softirq context, in ms (0: off)");

/* Number of delayed calls; updated without locking (information only). */
static unsigned int hits;
module_param(hits, uint, 0444);
MODULE_PARM_DESC(hits, "number of delayed calls so far");

/**
 * kbug_cq_delay_pre() - kprobe pre-handler: delay softirq callers
 * @p: the kprobe
 * @regs: registers at the probe point
 *
 * Return: 0 (run the probed instruction normally).
 */
static int kbug_cq_delay_pre(struct kprobe *p, struct pt_regs *regs)
{
	unsigned int ms = READ_ONCE(delay_ms);

	if (!ms || !in_serving_softirq())
		return 0;
	WRITE_ONCE(hits, hits + 1);
	mdelay(ms);
	return 0;
}

static struct kprobe kbug_cq_delay_kp = {
	.pre_handler = kbug_cq_delay_pre,
};

static int __init kbug_cq_delay_init(void)
{
	int ret;

	kbug_cq_delay_kp.symbol_name = symbol;
	ret = register_kprobe(&kbug_cq_delay_kp);
	if (ret) {
		pr_warn("kbug_cq_delay: cannot probe %s: %d\n", symbol, ret);
		return ret;
	}
	pr_info("kbug_cq_delay: delaying softirq calls of %s by %u ms\n",
		symbol, delay_ms);
	return 0;
}

static void __exit kbug_cq_delay_exit(void)
{
	unregister_kprobe(&kbug_cq_delay_kp);
	pr_info("kbug_cq_delay: removed after %u delayed calls\n", hits);
}

module_init(kbug_cq_delay_init);
module_exit(kbug_cq_delay_exit);
MODULE_DESCRIPTION("Test only: widen the ib_poll_handler/ib_free_cq race window");
MODULE_LICENSE("GPL");
