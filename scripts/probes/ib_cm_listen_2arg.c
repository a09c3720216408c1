// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: is ib_cm_listen() int (struct ib_cm_id *, __be64)?
 *
 * What changed: the third argument (service_mask) was removed during the
 * 6.1 cycle (every caller passed 0; upstream commit subject not verified
 * here). 5.x has ib_cm_listen(cm_id, service_id, service_mask).
 * Fallback: srpt_compat_ib_cm_listen() passes a mask of 0 (exact match).
 */
#include <linux/module.h>
#include <rdma/ib_cm.h>

static int __init probe_init(void)
{
	BUILD_BUG_ON(!__same_type(&ib_cm_listen,
				  int (*)(struct ib_cm_id *, __be64)));
	return 0;
}
module_init(probe_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("srpt-dkms compile probe");
