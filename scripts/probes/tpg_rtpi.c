// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: does struct se_portal_group have tpg_rtpi and rtpi_manual?
 *
 * What changed: 6.2 ("scsi: target: core: Add RTPI attribute for target
 * port", Dmitry Bogdanov) moved the relative target port identifier from
 * each LUN to the TPG, allocated from a global xarray when the TPG is
 * enabled. target_tpg_enable() registers the ID before it calls
 * fabric_enable_tpg() and does not erase it when the fabric refuses.
 * Fallback: without a per-TPG RTPI there is nothing to give back, so
 * srpt_compat_tpg_enable_refused() and srpt_compat_tpg_drop_refused() do
 * nothing.
 */
#include <linux/module.h>
#include <target/target_core_base.h>

static int __init probe_init(void)
{
	struct se_portal_group tpg = { .tpg_rtpi = 1, .rtpi_manual = true };

	return tpg.rtpi_manual && tpg.tpg_rtpi == 1 ? 0 : -EINVAL;
}
module_init(probe_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("srpt-dkms compile probe");
