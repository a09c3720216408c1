// SPDX-License-Identifier: GPL-2.0
/*
 * Canary probe: must always compile.
 *
 * What: nothing version dependent; a minimal module that includes the same
 * RDMA and target headers as the driver.
 * Why: if this fails, the build environment itself is broken (for example a
 * chroot without /proc, where objtool fails, or a headers tree without its
 * compiler) and every other probe would silently read "absent".
 * Fallback: none. scripts/compat-probes.sh stops with an error.
 */
#include <linux/module.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

static int __init probe_init(void)
{
	return 0;
}
module_init(probe_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("srpt-dkms compile probe");
