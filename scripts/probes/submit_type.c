// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: do target_core_fabric_ops.default_submit_type and
 * .direct_submit_supp exist (with TARGET_DIRECT_SUBMIT)?
 *
 * What changed: 6.10 ("scsi: target: Allow userspace to request direct
 * submissions", Mike Christie) lets a fabric say whether target_submit()
 * may run the backend directly in the caller's context. Before 6.10
 * submission is always direct.
 * Fallback: when absent, SRPT_FABRIC_SUBMIT_OPS expands to nothing (same
 * behaviour: direct submission).
 */
#include <linux/module.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

static int __init probe_init(void)
{
	struct target_core_fabric_ops ops = {
		.default_submit_type = TARGET_DIRECT_SUBMIT,
		.direct_submit_supp = 1,
	};

	return ops.default_submit_type == TARGET_DIRECT_SUBMIT ? 0 : -EINVAL;
}
module_init(probe_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("srpt-dkms compile probe");
