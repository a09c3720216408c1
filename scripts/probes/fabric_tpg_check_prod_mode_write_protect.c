// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: does struct target_core_fabric_ops have the member tpg_check_prod_mode_write_protect?
 *
 * What changed: up to 6.3, target_fabric_tf_ops_check() rejected a fabric
 * template without this callback, so every fabric driver had to set a dummy
 * one. Since 6.4 ("scsi: target: core: Remove unused/unneeded dummy
 * callouts" series, Dmitry Bogdanov, March 2023) the callback is optional;
 * the member still exists in 6.17 but may be removed later.
 * Fallback: when absent, SRPT_FABRIC_DUMMY_OPS in srpt_compat.h does not set
 * it.
 */
#include <linux/module.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

static int __init probe_init(void)
{
	struct target_core_fabric_ops ops = { };

	BUILD_BUG_ON(!__same_type(ops.tpg_check_prod_mode_write_protect,
				  int (*)(struct se_portal_group *)));
	return 0;
}
module_init(probe_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("srpt-dkms compile probe");
