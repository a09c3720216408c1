// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module parameters, the ib_client binding and module init/exit of
 * the ib_srpt SCSI RDMA Protocol target driver.
 *
 * Load order: validate the parameters, register the LIO fabric template
 * (configfs.c), start the RDMA/CM listener if rdma_cm_port asks for one,
 * then register the ib_client (device.c adds every RDMA device, and
 * refuses an InfiniBand HCA without IB CM listener only if there is no
 * RDMA/CM listener either, so the listener must exist by then). Unload
 * destroys the RDMA/CM listener first, so that no new login can reach a
 * device being removed, then goes back in reverse.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "srpt.h"
#include "srpt_debug.h"

/* ---------------------------------------------------------------------- */
/* Module parameters                                                      */
/* ---------------------------------------------------------------------- */

unsigned int srp_max_req_size = SRPT_DEF_MAX_REQ_SIZE;
module_param(srp_max_req_size, uint, 0444);
MODULE_PARM_DESC(srp_max_req_size,
		 "Largest SRP request IU accepted, in bytes (default 8276, minimum 996)");

unsigned int srpt_srq_size = SRPT_DEF_SRQ_SIZE;
module_param(srpt_srq_size, uint, 0444);
MODULE_PARM_DESC(srpt_srq_size,
		 "Depth of the per-HCA shared receive queue (4..65535, default 4095)");

/*
 * Per-channel budget of target-side data buffers, in MiB (see
 * srpt_charge_data() in ioctx.c). Not a parameter of the in-kernel driver.
 */
unsigned int srpt_ch_data_mb = SRPT_DEF_CH_DATA_MB;

static int srpt_ch_data_mb_set(const char *val, const struct kernel_param *kp)
{
	unsigned int mb;
	int ret = kstrtouint(val, 0, &mb);

	if (ret)
		return ret;
	if (mb < 1 || mb > SRPT_MAX_CH_DATA_MB) {
		pr_warn("%s=%u is out of range 1..%u\n", kp->name, mb,
			SRPT_MAX_CH_DATA_MB);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, mb);
	return 0;
}

static const struct kernel_param_ops srpt_ch_data_mb_ops = {
	.set = srpt_ch_data_mb_set,
	.get = param_get_uint,
};

module_param_cb(srpt_ch_data_mb, &srpt_ch_data_mb_ops, &srpt_ch_data_mb,
		0444);
MODULE_PARM_DESC(srpt_ch_data_mb,
		 "MiB of data buffers the commands of one channel may hold; commands beyond get TASK SET FULL (1..1048576, default 128)");

/*
 * The same bound for all channels of the sessions of one ACL (one
 * initiator as the administrator admitted it: however many channels and
 * initiator port IDs it logs in with) and for all channels of an HCA
 * port. Read for every command: a new value applies to the commands
 * received from then on.
 */
unsigned int srpt_acl_data_mb = SRPT_DEF_ACL_DATA_MB;
module_param_cb(srpt_acl_data_mb, &srpt_ch_data_mb_ops, &srpt_acl_data_mb,
		0644);
MODULE_PARM_DESC(srpt_acl_data_mb,
		 "MiB of data buffers the commands of all channels of one initiator (ACL) may hold; commands beyond get TASK SET FULL (1..1048576, default 1024)");

/*
 * Channels all sessions of one ACL may have at a time (srpt_ch_link()):
 * each costs its rings and queues, srp_rq_size receive buffers of
 * srp_max_req_size bytes, whatever its commands hold.
 */
unsigned int srpt_acl_max_ch = SRPT_DEF_ACL_MAX_CH;

static int srpt_acl_max_ch_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret = kstrtouint(val, 0, &n);

	if (ret)
		return ret;
	if (n < 1 || n > SRPT_MAX_ACL_MAX_CH) {
		pr_warn("%s=%u is out of range 1..%u\n", kp->name, n,
			SRPT_MAX_ACL_MAX_CH);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, n);
	return 0;
}

static const struct kernel_param_ops srpt_acl_max_ch_ops = {
	.set = srpt_acl_max_ch_set,
	.get = param_get_uint,
};

module_param_cb(srpt_acl_max_ch, &srpt_acl_max_ch_ops, &srpt_acl_max_ch, 0644);
MODULE_PARM_DESC(srpt_acl_max_ch,
		 "Channels all sessions of one initiator (ACL) may have at a time; further logins are rejected (1..65535, default 64)");

unsigned int srpt_port_data_mb = SRPT_DEF_PORT_DATA_MB;
module_param_cb(srpt_port_data_mb, &srpt_ch_data_mb_ops, &srpt_port_data_mb,
		0644);
MODULE_PARM_DESC(srpt_port_data_mb,
		 "MiB of data buffers the commands of all channels of one HCA port may hold; commands beyond get TASK SET FULL (1..1048576, default 4096)");

/*
 * Spare data buffers one channel may keep in its pool between commands,
 * in KiB (see srpt_spare_keep() in ioctx.c); 0 keeps none. Not a parameter
 * of the in-kernel driver. Read each time a command's buffer is freed: a
 * new value applies to the buffers added from then on (those in the pool
 * stay until a command takes them or the channel ends).
 */
unsigned int srpt_ch_spare_kb = SRPT_DEF_CH_SPARE_KB;
module_param(srpt_ch_spare_kb, uint, 0644);
MODULE_PARM_DESC(srpt_ch_spare_kb,
		 "KiB of data buffers one channel keeps for reuse by later commands instead of freeing them (0: none; default 256)");

/*
 * An IB CM listener also on HCAs whose port 1 is RoCE (docs/design.md,
 * "Listeners"). Initiators on RoCE use RDMA/CM; this is an
 * interoperability and test switch. Not a parameter of the in-kernel driver.
 */
bool srpt_ib_cm_roce;
module_param(srpt_ib_cm_roce, bool, 0444);
MODULE_PARM_DESC(srpt_ib_cm_roce,
		 "Also listen for IB CM logins on RoCE HCAs (default N: only on InfiniBand HCAs; RoCE initiators use RDMA/CM)");

u64 srpt_service_guid;

/**
 * srpt_service_guid_set() - parse a value written to srpt_service_guid.
 * @val: the text given on the command line or to modprobe.
 * @kp: the parameter; @kp->arg points at the u64.
 *
 * The value is hexadecimal, with or without a leading "0x".
 *
 * Return: 0 on success or a negative errno if @val is not a hex u64.
 */
static int srpt_service_guid_set(const char *val,
				 const struct kernel_param *kp)
{
	u64 guid;
	int ret;

	ret = kstrtou64(val, 16, &guid);
	if (ret) {
		pr_err("invalid srpt_service_guid '%s'\n", val);
		return ret;
	}
	*(u64 *)kp->arg = guid;
	return 0;
}

/**
 * srpt_service_guid_get() - show srpt_service_guid.
 * @buffer: output page.
 * @kp: the parameter; @kp->arg points at the u64.
 *
 * Return: number of characters written.
 */
static int srpt_service_guid_get(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "0x%016llx\n", *(u64 *)kp->arg);
}

module_param_call(srpt_service_guid, srpt_service_guid_set,
		  srpt_service_guid_get, &srpt_service_guid, 0444);
MODULE_PARM_DESC(srpt_service_guid,
		 "Hex GUID used as IOC GUID, SRP target port ID and IB CM service ID (0: node GUID of the first HCA)");

/*
 * The RDMA/CM listener port requested at load time (docs/design.md,
 * "Listeners"). The listener itself is started by srpt_init_module() and
 * belongs to cm.c from then on; reading the parameter shows the port the
 * listener has now, the same value as discovery_auth/rdma_cm_port.
 */
static u16 srpt_rdma_cm_port_param;

/**
 * srpt_rdma_cm_port_param_set() - parse rdma_cm_port at load time.
 * @val: the text given to modprobe or insmod.
 * @kp: the parameter; @kp->arg points at srpt_rdma_cm_port_param.
 *
 * Only stores the value: the listener is created once the module is
 * initialized. The parameter is read-only (0444), so this runs only at load.
 *
 * Return: 0, or -EINVAL if @val is not a number from 0 to 65535 (loading
 * then fails).
 */
static int srpt_rdma_cm_port_param_set(const char *val,
				       const struct kernel_param *kp)
{
	u16 port;

	if (kstrtou16(val, 0, &port)) {
		pr_warn("rdma_cm_port: invalid value '%s' (0 to 65535)\n", val);
		return -EINVAL;
	}
	*(u16 *)kp->arg = port;
	return 0;
}

/**
 * srpt_rdma_cm_port_param_get() - show the port of the RDMA/CM listener.
 * @buffer: output page.
 * @kp: the parameter (unused: the listener's port is shown, see above).
 *
 * Return: number of characters written.
 */
static int srpt_rdma_cm_port_param_get(char *buffer,
				       const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%u\n", srpt_rdma_cm_get_port());
}

static const struct kernel_param_ops srpt_rdma_cm_port_ops = {
	.set = srpt_rdma_cm_port_param_set,
	.get = srpt_rdma_cm_port_param_get,
};

module_param_cb(rdma_cm_port, &srpt_rdma_cm_port_ops,
		&srpt_rdma_cm_port_param, 0444);
MODULE_PARM_DESC(rdma_cm_port,
		 "RDMA/CM listener port started at load (0: none, the default); reads the current port, also set by configfs discovery_auth/rdma_cm_port");

/* ---------------------------------------------------------------------- */
/* ib_client and module init/exit                                         */
/* ---------------------------------------------------------------------- */

struct ib_client srpt_client = {
	.name	= "ib_srpt",
	.add	= srpt_add_one,
	.remove	= srpt_remove_one,
};

/**
 * srpt_check_params() - validate the module parameters.
 *
 * Return: 0 if they are usable, -EINVAL otherwise.
 */
static int srpt_check_params(void)
{
	if (srp_max_req_size < SRPT_MIN_MAX_REQ_SIZE) {
		pr_err("srp_max_req_size %u is below the minimum %d\n",
		       srp_max_req_size, SRPT_MIN_MAX_REQ_SIZE);
		return -EINVAL;
	}
	if (srpt_srq_size < SRPT_MIN_SRQ_SIZE ||
	    srpt_srq_size > SRPT_MAX_SRQ_SIZE) {
		pr_err("srpt_srq_size %u is outside %d..%d\n",
		       srpt_srq_size, SRPT_MIN_SRQ_SIZE, SRPT_MAX_SRQ_SIZE);
		return -EINVAL;
	}
	return 0;
}

/**
 * srpt_init_module() - module entry point.
 *
 * Return: 0 on success or a negative errno.
 */
static int __init srpt_init_module(void)
{
	int ret;

	ret = srpt_check_params();
	if (ret)
		return ret;
	srpt_debug_init();

	ret = srpt_channel_init();
	if (ret)
		return ret;

	ret = srpt_rsp_init();
	if (ret)
		goto out_channel_exit;

	ret = srpt_fabric_register();
	if (ret) {
		pr_err("registering the srpt LIO fabric failed (%d)\n", ret);
		goto out_rsp_exit;
	}

	/*
	 * Before the client, so that srpt_add_one() sees it (a request that
	 * comes before its HCA is added finds no device and is refused). A
	 * listener that cannot be created does not fail the load: IB CM
	 * logins and the restore of the LIO configuration must not depend
	 * on it (docs/design.md, "Listeners").
	 */
	if (srpt_rdma_cm_port_param) {
		ret = srpt_rdma_cm_set_port(srpt_rdma_cm_port_param);
		if (ret)
			pr_warn("rdma_cm_port=%u: the RDMA/CM listener could not be created (%d); no RDMA/CM logins until a port is written to discovery_auth/rdma_cm_port\n",
				srpt_rdma_cm_port_param, ret);
	}

	ret = ib_register_client(&srpt_client);
	if (ret) {
		pr_err("ib_register_client() failed (%d)\n", ret);
		goto out_stop_rdma_cm;
	}

	pr_info("srpt-dkms %s loaded\n", SRPT_VERSION);
	return 0;

out_stop_rdma_cm:
	srpt_rdma_cm_stop();
	srpt_fabric_unregister();
out_rsp_exit:
	srpt_rsp_exit();
out_channel_exit:
	srpt_channel_exit();
	return ret;
}

/**
 * srpt_cleanup_module() - module exit point; the reverse of
 * srpt_init_module(), after stopping the RDMA/CM listener.
 */
static void __exit srpt_cleanup_module(void)
{
	srpt_rdma_cm_stop();
	ib_unregister_client(&srpt_client);
	/* after the client: waits for release works still returning */
	srpt_channel_exit();
	srpt_debug_exit();
	/* no channel is left: waits for data-in response works returning */
	srpt_rsp_exit();
	srpt_fabric_unregister();
	/* nothing may be left of the devices and channels */
	srpt_port_table_exit();
	srpt_cache_exit();
}

module_init(srpt_init_module);
module_exit(srpt_cleanup_module);

MODULE_AUTHOR("srpt-dkms developers");
MODULE_DESCRIPTION("SCSI RDMA Protocol target driver (srpt-dkms)");
MODULE_LICENSE("GPL");
MODULE_VERSION(SRPT_VERSION);
