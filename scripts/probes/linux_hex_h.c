// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: does <linux/hex.h> exist?
 *
 * What changed: hex2bin(), hex_to_bin() and hex_asc were split out of
 * <linux/kernel.h> into <linux/hex.h> (upstream 6.x; Debian's 6.12.y
 * already has the header). Newer kernels no longer get it through
 * <linux/kernel.h>.
 * Fallback: srpt_compat.h includes <linux/kernel.h> instead.
 */
#include <linux/module.h>
#include <linux/hex.h>

static int __init probe_init(void)
{
	u8 b;

	return hex2bin(&b, "00", 1);
}
module_init(probe_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("srpt-dkms compile probe");
