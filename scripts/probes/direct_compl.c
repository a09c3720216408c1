// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: can a fabric let LIO complete commands directly from the
 * backend's completion context (target_core_fabric_ops.direct_compl_supp,
 * TARGET_DIRECT_COMPL)?
 *
 * What changed: the same 7.x target-core series as default_compl_type
 * (probe compl_type). With it, queue_data_in, queue_status and
 * check_stop_free may be called in whatever context the backend completes
 * in, a hardirq for block devices (docs/design.md, "Completion context:
 * direct completion (7.x)").
 * Fallback: when absent, completions are always queued to LIO's workqueue
 * and our callbacks only ever run in process context.
 */
#include <linux/module.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

static int __init probe_init(void)
{
	struct target_core_fabric_ops ops = {
		.direct_compl_supp = 1,
	};

	if (TARGET_DIRECT_COMPL == TARGET_QUEUE_COMPL)
		return -EINVAL;

	return ops.direct_compl_supp ? 0 : -EINVAL;
}
module_init(probe_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("srpt-dkms compile probe");
