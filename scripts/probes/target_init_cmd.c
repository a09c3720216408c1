// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: do target_init_cmd(), target_submit_prep() and target_submit()
 * exist?
 *
 * What changed: 5.13 ("scsi: target: core: Add workqueue based cmd
 * submission" / "Split target_submit_cmd_map_sgls()", Mike Christie) split
 * command submission into init, prep and submit steps. 5.10 only has the
 * one-shot target_submit_cmd_map_sgls().
 * Fallback: srpt_compat_submit_cmd() calls target_submit_cmd_map_sgls().
 * (target_submit() itself returns int since 6.10; the wrapper ignores the
 * value, so that difference needs no probe.)
 */
#include <linux/module.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

static int __init probe_init(void)
{
	BUILD_BUG_ON(!__same_type(&target_init_cmd,
				  int (*)(struct se_cmd *, struct se_session *,
					  unsigned char *, u64, u32, int, int,
					  int)));
	BUILD_BUG_ON(!__same_type(&target_submit_prep,
				  int (*)(struct se_cmd *, unsigned char *,
					  struct scatterlist *, u32,
					  struct scatterlist *, u32,
					  struct scatterlist *, u32, gfp_t)));
	(void)target_submit;
	return 0;
}
module_init(probe_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("srpt-dkms compile probe");
