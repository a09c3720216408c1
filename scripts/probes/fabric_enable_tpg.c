// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: does target_core_fabric_ops.fabric_enable_tpg exist?
 *
 * What changed: 5.16 ("scsi: target: core: Add common TPG enable
 * attribute", Dmitry Bogdanov) moved the TPG "enable" configfs attribute
 * into the core, which then calls fabric_enable_tpg(). Before that every
 * fabric driver defined its own "enable" attribute.
 * Fallback: SRPT_COMPAT_DEFINE_TPG_ENABLE() in srpt_compat.h defines an
 * "enable" attribute that calls the same callback, and
 * SRPT_FABRIC_ENABLE_OPS() hooks it into tfc_tpg_base_attrs.
 */
#include <linux/module.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

static int probe_enable(struct se_portal_group *tpg, bool enable)
{
	return 0;
}

static int __init probe_init(void)
{
	struct target_core_fabric_ops ops = {
		.fabric_enable_tpg = probe_enable,
	};

	return ops.fabric_enable_tpg(NULL, false);
}
module_init(probe_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("srpt-dkms compile probe");
