// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: does target_core_fabric_ops.default_compl_type exist (with
 * TARGET_QUEUE_COMPL)?
 *
 * What changed: the target-core series of February 2026 (7.x) lets a
 * fabric choose whether completions run directly or are queued to LIO's
 * completion workqueue. ib_srpt asks for the historic queued behaviour by
 * default; where LIO can complete directly (probe direct_compl) it also
 * lets a backstore ask for that (complete_type 1).
 * Fallback: when absent, SRPT_FABRIC_COMPL_OPS expands to nothing (the core
 * then always queues completions, which is what we ask for anyway).
 */
#include <linux/module.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

static int __init probe_init(void)
{
	struct target_core_fabric_ops ops = {
		.default_compl_type = TARGET_QUEUE_COMPL,
	};

	return ops.default_compl_type == TARGET_QUEUE_COMPL ? 0 : -EINVAL;
}
module_init(probe_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("srpt-dkms compile probe");
