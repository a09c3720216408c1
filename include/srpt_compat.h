/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_compat.h - kernel API differences between the kernels srpt-dkms
 * builds against (5.10 ... 7.x).
 *
 * This is the ONLY file that reads the HAVE_* results of the compile probes
 * (scripts/compat-probes.sh writes generated/srpt_probes.h for the kernel
 * being built against; each probe in scripts/probes/ documents what changed
 * and when). Source files use the wrappers below and contain no #if of
 * their own. No LINUX_VERSION_CODE anywhere.
 *
 * Wrappers offered (what to use instead of what):
 *
 * In the struct target_core_fabric_ops initializer (configfs.c):
 *   SRPT_FABRIC_COMPAT_OPS          all of the three below; put it once in
 *                                   the initializer
 *   SRPT_FABRIC_DUMMY_OPS           .tpg_check_demo_mode (0),
 *                                   .tpg_check_prod_mode_write_protect (0),
 *                                   .tpg_get_inst_index (1),
 *                                   .sess_get_index (0),
 *                                   .set_default_node_attributes (empty);
 *                                   mandatory up to 6.3, optional later;
 *                                   each set only if the member exists
 *   SRPT_FABRIC_SUBMIT_OPS          .default_submit_type =
 *                                   TARGET_DIRECT_SUBMIT, .direct_submit_supp
 *                                   = 1 (6.10+; nothing before)
 *   SRPT_FABRIC_COMPL_OPS           .default_compl_type = TARGET_QUEUE_COMPL
 *                                   (7.x; nothing before), and
 *                                   .direct_compl_supp = 1 where LIO can
 *                                   complete directly, for backstores whose
 *                                   complete_type is 1 (docs/design.md,
 *                                   "Completion context: direct completion
 *                                   (7.x)").
 *   SRPT_FABRIC_ENABLE_OPS(fn)      instead of .fabric_enable_tpg = fn: sets
 *                                   .fabric_enable_tpg (5.16+) or, before
 *                                   5.16, .tfc_tpg_base_attrs pointing to an
 *                                   "enable" attribute that calls fn. Needs
 *                                   SRPT_COMPAT_DEFINE_TPG_ENABLE() in the
 *                                   same file, after fn and enabled_fn:
 *   SRPT_COMPAT_DEFINE_TPG_ENABLE(fn, enabled_fn)
 *                                   fn: int (*)(struct se_portal_group *,
 *                                   bool); enabled_fn: bool (*)(struct
 *                                   se_portal_group *) reports the state for
 *                                   reading "enable" (used only before 5.16,
 *                                   referenced always, so no unused warning).
 *
 * Functions:
 *   srpt_compat_rsp_may_sleep()     whether a queue_data_in/queue_status
 *                                   call may sleep: always where LIO only
 *                                   calls them from its work items; see its
 *                                   comment where LIO may call them from
 *                                   the backend's completion.
 *   srpt_compat_ib_cm_listen(cm_id, service_id)
 *                                   instead of ib_cm_listen() (2 arguments
 *                                   since 6.1, 3 before).
 *   srpt_compat_submit_cmd(...)     instead of target_init_cmd() +
 *                                   target_submit_prep() + target_submit()
 *                                   (5.13+; target_submit_cmd_map_sgls()
 *                                   before). See its kernel-doc for the
 *                                   return value contract.
 *   srpt_compat_stop_session(sess)  instead of target_stop_session()
 *                                   (target_sess_cmd_list_set_waiting() on
 *                                   5.10).
 *   srpt_compat_tpg_enable_refused(tpg)
 *   srpt_compat_tpg_drop_refused(tpg, rtpi)
 *                                   work around LIO's leak of the TPG's
 *                                   relative port ID when fabric_enable_tpg
 *                                   refuses (6.2+; nothing before): see
 *                                   the comment at their definition.
 *
 * Headers: this file includes <linux/hex.h> where it exists, else
 * <linux/kernel.h>, so hex2bin()/hex_to_bin() are available to every file
 * that includes srpt.h.
 */
#ifndef SRPT_COMPAT_H
#define SRPT_COMPAT_H

#include <linux/configfs.h>
#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sysfs.h>
#include <linux/types.h>
#include <rdma/ib_cm.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "srpt_probes.h"

#if HAVE_LINUX_HEX_H
#include <linux/hex.h>
#endif

/* ---- mandatory dummy fabric callbacks (<= 6.3), optional later ---- */

#if HAVE_FABRIC_TPG_CHECK_DEMO_MODE
/* No demo mode: every initiator needs an explicit ACL. */
static inline int srpt_compat_tpg_check_demo_mode(struct se_portal_group *tpg)
{
	return 0;
}

#define SRPT_DUMMY_TPG_CHECK_DEMO_MODE \
	.tpg_check_demo_mode = srpt_compat_tpg_check_demo_mode,
#else
#define SRPT_DUMMY_TPG_CHECK_DEMO_MODE
#endif

#if HAVE_FABRIC_TPG_CHECK_PROD_MODE_WRITE_PROTECT
static inline int
srpt_compat_tpg_check_prod_mode_write_protect(struct se_portal_group *tpg)
{
	return 0;
}

#define SRPT_DUMMY_TPG_CHECK_PROD_MODE_WRITE_PROTECT \
	.tpg_check_prod_mode_write_protect = \
		srpt_compat_tpg_check_prod_mode_write_protect,
#else
#define SRPT_DUMMY_TPG_CHECK_PROD_MODE_WRITE_PROTECT
#endif

#if HAVE_FABRIC_TPG_GET_INST_INDEX
static inline u32 srpt_compat_tpg_get_inst_index(struct se_portal_group *tpg)
{
	return 1;
}

#define SRPT_DUMMY_TPG_GET_INST_INDEX \
	.tpg_get_inst_index = srpt_compat_tpg_get_inst_index,
#else
#define SRPT_DUMMY_TPG_GET_INST_INDEX
#endif

#if HAVE_FABRIC_SESS_GET_INDEX
static inline u32 srpt_compat_sess_get_index(struct se_session *sess)
{
	return 0;
}

#define SRPT_DUMMY_SESS_GET_INDEX \
	.sess_get_index = srpt_compat_sess_get_index,
#else
#define SRPT_DUMMY_SESS_GET_INDEX
#endif

#if HAVE_FABRIC_SET_DEFAULT_NODE_ATTRIBUTES
static inline void
srpt_compat_set_default_node_attributes(struct se_node_acl *nacl)
{
}

#define SRPT_DUMMY_SET_DEFAULT_NODE_ATTRIBUTES \
	.set_default_node_attributes = srpt_compat_set_default_node_attributes,
#else
#define SRPT_DUMMY_SET_DEFAULT_NODE_ATTRIBUTES
#endif

#define SRPT_FABRIC_DUMMY_OPS				\
	SRPT_DUMMY_TPG_CHECK_DEMO_MODE			\
	SRPT_DUMMY_TPG_CHECK_PROD_MODE_WRITE_PROTECT	\
	SRPT_DUMMY_TPG_GET_INST_INDEX			\
	SRPT_DUMMY_SESS_GET_INDEX			\
	SRPT_DUMMY_SET_DEFAULT_NODE_ATTRIBUTES

/* ---- submission and completion context (6.10+, 7.x) ---- */

#if HAVE_SUBMIT_TYPE
#define SRPT_FABRIC_SUBMIT_OPS				\
	.default_submit_type = TARGET_DIRECT_SUBMIT,	\
	.direct_submit_supp = 1,
#else
#define SRPT_FABRIC_SUBMIT_OPS
#endif

#if HAVE_DIRECT_COMPL
#define SRPT_FABRIC_COMPL_OPS				\
	.default_compl_type = TARGET_QUEUE_COMPL,	\
	.direct_compl_supp = 1,

/*
 * With direct completion LIO calls queue_data_in, queue_status and
 * check_stop_free from the backend's completion: process context for
 * rd_mcp and synchronous fileio, a hardirq or softirq for block devices.
 * preemptible() is false in every atomic context on a kernel that counts
 * preemption (all of Debian's) and always false on one that does not, so
 * an unknown context is taken for atomic. A read-side section of
 * preemptible RCU does not show in the preemption count, hence
 * rcu_preempt_depth().
 */
static inline bool srpt_compat_rsp_may_sleep(void)
{
	return preemptible() && !rcu_preempt_depth();
}
#else
#if HAVE_COMPL_TYPE
#define SRPT_FABRIC_COMPL_OPS				\
	.default_compl_type = TARGET_QUEUE_COMPL,
#else
#define SRPT_FABRIC_COMPL_OPS
#endif

/* LIO calls the response callbacks from its work items only. */
static inline bool srpt_compat_rsp_may_sleep(void)
{
	return true;
}
#endif

#define SRPT_FABRIC_COMPAT_OPS		\
	SRPT_FABRIC_DUMMY_OPS		\
	SRPT_FABRIC_SUBMIT_OPS		\
	SRPT_FABRIC_COMPL_OPS

/* ---- TPG "enable" attribute (core-provided since 5.16) ---- */

#if HAVE_FABRIC_ENABLE_TPG

#define SRPT_FABRIC_ENABLE_OPS(fn)	.fabric_enable_tpg = (fn),

/*
 * The core provides "enable"; only make sure both callbacks count as used
 * (enabled_fn is needed before 5.16 only).
 */
#define SRPT_COMPAT_DEFINE_TPG_ENABLE(fn, enabled_fn)			\
static inline void srpt_compat_tpg_enable_unused(void)			\
{									\
	(void)(fn);							\
	(void)(enabled_fn);						\
}

#else /* !HAVE_FABRIC_ENABLE_TPG */

#define SRPT_FABRIC_ENABLE_OPS(fn)					\
	.tfc_tpg_base_attrs = srpt_compat_tpg_base_attrs,

#define SRPT_COMPAT_DEFINE_TPG_ENABLE(fn, enabled_fn)			\
static struct se_portal_group *						\
srpt_compat_item_to_tpg(struct config_item *item)			\
{									\
	return container_of(to_config_group(item),			\
			    struct se_portal_group, tpg_group);		\
}									\
									\
static ssize_t srpt_compat_tpg_enable_show(struct config_item *item,	\
					   char *page)			\
{									\
	return sysfs_emit(page, "%d\n",					\
			  (enabled_fn)(srpt_compat_item_to_tpg(item)));	\
}									\
									\
static ssize_t srpt_compat_tpg_enable_store(struct config_item *item,	\
					    const char *page,		\
					    size_t count)		\
{									\
	bool enable;							\
	int ret;							\
									\
	ret = kstrtobool(page, &enable);				\
	if (ret)							\
		return ret;						\
	ret = (fn)(srpt_compat_item_to_tpg(item), enable);		\
	return ret ? ret : count;					\
}									\
									\
CONFIGFS_ATTR(srpt_compat_tpg_, enable);				\
									\
static struct configfs_attribute *srpt_compat_tpg_base_attrs[] = {	\
	&srpt_compat_tpg_attr_enable,					\
	NULL,								\
}

#endif /* HAVE_FABRIC_ENABLE_TPG */

/*
 * Since 6.2 LIO's target_tpg_enable() allocates the TPG's relative target
 * port ID (RTPI) in a global xarray before it calls fabric_enable_tpg(true),
 * and when that call fails it erases the ID only if the TPG was already
 * enabled, i.e. never: every refused enable=1 leaks one ID (and an xarray
 * node that kmemleak reports once target_core_mod is unloaded). The entry
 * is only used to keep IDs unique; nothing dereferences it.
 *
 * A fabric driver cannot erase the entry itself, so srpt-dkms bounds the
 * leak to one entry per refused TPG and gives it back at rmdir:
 * - srpt_compat_tpg_enable_refused(), called while refusing, marks the ID as
 *   manually set, so later enable attempts re-insert the SAME ID, which is
 *   still taken, and LIO fails them (-EINVAL, "Can not set RTPI ... busy")
 *   before it allocates anything. Returns the ID that stays registered, or
 *   0 when there is none.
 * - srpt_compat_tpg_drop_refused(), called in fabric_drop_tpg before
 *   core_tpg_deregister(), marks the TPG enabled so that the deregistration
 *   erases the ID, but only if the TPG still holds the ID that was left
 *   registered (an admin may have written another value to "rtpi" since,
 *   and that one may belong to another TPG).
 */
#if HAVE_TPG_RTPI

static inline u16 srpt_compat_tpg_enable_refused(struct se_portal_group *tpg)
{
	tpg->rtpi_manual = true;
	return tpg->tpg_rtpi;
}

static inline void srpt_compat_tpg_drop_refused(struct se_portal_group *tpg,
						u16 rtpi)
{
	if (rtpi && tpg->tpg_rtpi == rtpi && !tpg->enabled)
		tpg->enabled = true;
}

#else /* !HAVE_TPG_RTPI */

static inline u16 srpt_compat_tpg_enable_refused(struct se_portal_group *tpg)
{
	return 0;
}

static inline void srpt_compat_tpg_drop_refused(struct se_portal_group *tpg,
						u16 rtpi)
{
}

#endif /* HAVE_TPG_RTPI */

/* ---- IB CM ---- */

/**
 * srpt_compat_ib_cm_listen() - listen for IB CM REQs for one service ID
 * @cm_id: IB CM id created with ib_create_cm_id().
 * @service_id: service ID to match exactly.
 *
 * ib_cm_listen() lost its service_mask argument in 6.1; before, a mask of 0
 * means "match @service_id exactly", which is what the 2-argument form does.
 *
 * Return: 0 on success or a negative errno.
 */
static inline int srpt_compat_ib_cm_listen(struct ib_cm_id *cm_id,
					   __be64 service_id)
{
#if HAVE_IB_CM_LISTEN_2ARG
	return ib_cm_listen(cm_id, service_id);
#else
	return ib_cm_listen(cm_id, service_id, 0);
#endif
}

/* ---- LIO command submission and session stop ---- */

/**
 * srpt_compat_submit_cmd() - hand a new SCSI command to LIO
 * @cmd: command descriptor (embedded in the driver's I/O context).
 * @sess: session the command arrived on.
 * @cdb: SCSI CDB.
 * @sense: sense buffer of at least TRANSPORT_SENSE_BUFFER bytes.
 * @lun: unpacked LUN.
 * @data_length: expected transfer length in bytes.
 * @task_attr: TCM_SIMPLE_TAG, TCM_HEAD_TAG, TCM_ORDERED_TAG or TCM_ACA_TAG.
 * @data_dir: DMA_TO_DEVICE, DMA_FROM_DEVICE or DMA_NONE.
 * @flags: TARGET_SCF_* flags (typically TARGET_SCF_ACK_KREF).
 * @sgl: data buffer scatterlist, or NULL to let LIO allocate one.
 * @sgl_count: number of entries in @sgl.
 * @gfp: allocation flags for the CDB preparation step (5.13+ only; 5.10
 *	allocates with GFP_KERNEL internally, so call this from process
 *	context, which target_submit() needs anyway).
 *
 * Uses target_init_cmd(), target_submit_prep() and target_submit() where
 * they exist (5.13+) and target_submit_cmd_map_sgls() on older kernels.
 * The return value of the int-returning target_submit() (6.10+) is ignored
 * as it only reports an internal LIO inconsistency.
 *
 * Return: 0 if LIO owns the command: it will be completed through the fabric
 * callbacks, including when the CDB was rejected (LIO then sends CHECK
 * CONDITION via queue_status). A negative errno (-ESHUTDOWN while the
 * session is being stopped) if LIO did not accept the command: the caller
 * still owns it and must respond and free it itself.
 */
static inline int srpt_compat_submit_cmd(struct se_cmd *cmd,
					 struct se_session *sess,
					 unsigned char *cdb,
					 unsigned char *sense, u64 lun,
					 u32 data_length, int task_attr,
					 int data_dir, int flags,
					 struct scatterlist *sgl,
					 u32 sgl_count, gfp_t gfp)
{
#if HAVE_TARGET_INIT_CMD
	int ret;

	ret = target_init_cmd(cmd, sess, sense, lun, data_length, task_attr,
			      data_dir, flags);
	if (ret)
		return ret;
	if (target_submit_prep(cmd, cdb, sgl, sgl_count, NULL, 0, NULL, 0,
			       gfp))
		return 0;	/* LIO already queued an error response */
	target_submit(cmd);
	return 0;
#else
	return target_submit_cmd_map_sgls(cmd, sess, cdb, sense, lun,
					  data_length, task_attr, data_dir,
					  flags, sgl, sgl_count, NULL, 0,
					  NULL, 0);
#endif
}

/**
 * srpt_compat_stop_session() - refuse new commands on a session
 * @sess: LIO session about to be torn down.
 *
 * After this, new submissions fail with -ESHUTDOWN (see
 * srpt_compat_submit_cmd()) and target_wait_for_sess_cmds() can wait for the
 * outstanding ones.
 */
static inline void srpt_compat_stop_session(struct se_session *sess)
{
#if HAVE_TARGET_STOP_SESSION
	target_stop_session(sess);
#else
	target_sess_cmd_list_set_waiting(sess);
#endif
}

#endif /* SRPT_COMPAT_H */
