// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: does target_stop_session() exist?
 *
 * What changed: 5.11/5.12 ("scsi: target: Add target_stop_session()" in the
 * session command-counter rework, Mike Christie) replaced
 * target_sess_cmd_list_set_waiting() with target_stop_session().
 * Fallback: srpt_compat_stop_session() calls
 * target_sess_cmd_list_set_waiting().
 */
#include <linux/module.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

static int __init probe_init(void)
{
	BUILD_BUG_ON(!__same_type(&target_stop_session,
				  void (*)(struct se_session *)));
	return 0;
}
module_init(probe_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("srpt-dkms compile probe");
