// SPDX-License-Identifier: GPL-2.0
/*
 * configfs.c - the "srpt" LIO fabric: port name directories (WWNs), TPGs,
 * ACL name validation and the configfs attributes of the ib_srpt target.
 *
 * The names, ranges and output formats of every attribute are those of the
 * in-kernel driver (docs/design.md, "configfs interface"), so that existing
 * targetcli configurations and blktests work unchanged; srp_rq_size is ours
 * (the channel depth, fixed at 128 there, which is its default):
 *
 *   /sys/kernel/config/target/srpt/
 *	discovery_auth/rdma_cm_port	RDMA/CM listener port (u16, 0 = none)
 *	version				srpt-dkms version
 *	<GUID or GID form port name>/<any TPG name>/
 *		attrib/srp_max_rdma_size, srp_max_rsp_size, srp_sq_size,
 *		srp_rq_size, use_srq	per physical port, shared by all TPGs
 *		acls/<initiator port ID, GUID form or IP address>/
 *			info			the ACL's SRP session (rtslib)
 *			auth/authenticate_target	always 0
 *	<port name>/fabric_statistics/srpt_port/	port counters (RO, port_stats.c)
 *
 * The directories of a port survive the removal of its HCA. Afterwards
 * attribute writes, enable=1 and mkdir of a TPG fail with -ENODEV instead
 * of touching the device; reads, enable=0 and rmdir keep working.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <net/net_namespace.h>
#include <scsi/scsi_proto.h>

#include "srpt.h"
#include "srpt_debug.h"
#include "srpt_names.h"
#include "srpt_stats.h"

/**
 * srpt_tpg_to_sport() - the port a TPG belongs to.
 * @tpg: a TPG of the srpt fabric.
 *
 * Return: the srpt_port named by the parent directory of @tpg.
 */
struct srpt_port *srpt_tpg_to_sport(struct se_portal_group *tpg)
{
	return tpg->se_tpg_wwn->priv;
}

/**
 * srpt_wwn_to_port_id() - the port name directory of a LIO WWN.
 * @wwn: a WWN of the srpt fabric.
 *
 * Return: the srpt_port_id that embeds @wwn.
 */
static struct srpt_port_id *srpt_wwn_to_port_id(struct se_wwn *wwn)
{
	return container_of(wwn, struct srpt_port_id, wwn);
}

/* ---------------------------------------------------------------------- */
/* Start items for the fabric group (tfc_wwn_attrs, tfc_discovery_attrs)  */
/* ---------------------------------------------------------------------- */

static ssize_t srpt_wwn_version_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "srpt-dkms %s\n", SRPT_VERSION);
}

CONFIGFS_ATTR_RO(srpt_wwn_, version);

static struct configfs_attribute *srpt_wwn_attrs[] = {
	&srpt_wwn_attr_version,
	NULL,
};

static ssize_t srpt_rdma_cm_port_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", srpt_rdma_cm_get_port());
}

/**
 * srpt_rdma_cm_port_store() - start, move or stop the RDMA/CM listener.
 * @item: the discovery_auth group.
 * @page: the new port number (u16, any base); 0 stops the listener.
 * @count: length of @page.
 *
 * Return: @count on success or a negative errno.
 */
static ssize_t srpt_rdma_cm_port_store(struct config_item *item,
				       const char *page, size_t count)
{
	u16 val;
	int ret;

	ret = kstrtou16(page, 0, &val);
	if (ret) {
		pr_warn("rdma_cm_port: invalid value '%.*s'\n",
			(int)strcspn(page, "\n"), page);
		return -EINVAL;
	}

	ret = srpt_rdma_cm_set_port(val);
	return ret ? ret : count;
}

CONFIGFS_ATTR(srpt_, rdma_cm_port);

static struct configfs_attribute *srpt_discovery_attrs[] = {
	&srpt_attr_rdma_cm_port,
	NULL,
};

/* ---------------------------------------------------------------------- */
/* End items for the fabric group                                         */
/* ---------------------------------------------------------------------- */

/* ---------------------------------------------------------------------- */
/* Start items for port name directories (fabric_make_wwn/drop_wwn)       */
/* ---------------------------------------------------------------------- */

/**
 * srpt_make_tport() - mkdir of a port name directory.
 * @tf: the srpt fabric.
 * @group: the fabric group.
 * @name: GUID form or GID form name of an existing RDMA port.
 *
 * Return: the new WWN or an ERR_PTR (-EINVAL if no port has that name).
 */
static struct se_wwn *srpt_make_tport(struct target_fabric_configfs *tf,
				      struct config_group *group,
				      const char *name)
{
	struct srpt_port_id *port_id;

	port_id = srpt_port_id_create(name);
	if (IS_ERR(port_id))
		return ERR_CAST(port_id);

	pr_debug("created port directory %s\n", port_id->name);
	return &port_id->wwn;
}

/**
 * srpt_drop_tport() - rmdir of a port name directory.
 * @wwn: the WWN created by srpt_make_tport().
 */
static void srpt_drop_tport(struct se_wwn *wwn)
{
	struct srpt_port_id *port_id = srpt_wwn_to_port_id(wwn);

	pr_debug("removing port directory %s\n", port_id->name);
	srpt_port_id_destroy(port_id);
}

/* ---------------------------------------------------------------------- */
/* End items for port name directories                                    */
/* ---------------------------------------------------------------------- */

/* ---------------------------------------------------------------------- */
/* Start items for TPGs (fabric_make_tpg/drop_tpg/enable_tpg)             */
/* ---------------------------------------------------------------------- */

/**
 * srpt_make_tpg() - mkdir of a TPG below a port name directory.
 * @wwn: the parent WWN.
 * @name: the directory name; any name is accepted and the tag is always 1.
 *
 * Return: the new TPG or an ERR_PTR (-ENODEV if the port's HCA has been
 * removed; note that the LIO core may report any error as -EINVAL).
 */
static struct se_portal_group *srpt_make_tpg(struct se_wwn *wwn,
					     const char *name)
{
	struct srpt_port_id *port_id = srpt_wwn_to_port_id(wwn);
	struct srpt_tpg *stpg;
	int ret;

	if (srpt_port_is_removed(port_id->sport)) {
		/* the LIO core reports -EINVAL to userspace; say why here */
		pr_warn("%s/%s: the RDMA device of this port has been removed\n",
			port_id->name, name);
		return ERR_PTR(-ENODEV);
	}

	stpg = srpt_dbg_alloc("tpg", kzalloc(sizeof(*stpg), GFP_KERNEL));
	if (!stpg)
		return ERR_PTR(-ENOMEM);
	stpg->sport_id = port_id;

	ret = core_tpg_register(wwn, &stpg->tpg, SCSI_PROTOCOL_SRP);
	if (ret) {
		kfree(stpg);
		return ERR_PTR(ret);
	}

	mutex_lock(&port_id->mutex);
	list_add_tail(&stpg->entry, &port_id->tpg_list);
	mutex_unlock(&port_id->mutex);

	return &stpg->tpg;
}

/*
 * Whether a TPG other than @skip of either name directory of @sport is
 * enabled. Caller holds sport->mutex (lock order sport->mutex ->
 * port_id->mutex; the port_id slots are stable under sport->mutex).
 */
static bool srpt_port_other_tpg_enabled(struct srpt_port *sport,
					struct srpt_tpg *skip)
{
	struct srpt_port_id *ids[] = { sport->guid_id, sport->gid_id };
	struct srpt_tpg *stpg;
	bool found = false;
	int i;

	lockdep_assert_held(&sport->mutex);
	for (i = 0; i < ARRAY_SIZE(ids) && !found; i++) {
		if (!ids[i])
			continue;
		mutex_lock(&ids[i]->mutex);
		list_for_each_entry(stpg, &ids[i]->tpg_list, entry) {
			if (stpg != skip && stpg->enabled) {
				found = true;
				break;
			}
		}
		mutex_unlock(&ids[i]->mutex);
	}
	return found;
}

/**
 * srpt_drop_tpg() - rmdir of a TPG.
 * @tpg: the TPG.
 *
 * configfs has already removed the ACLs below the TPG, which closed their
 * sessions. If the TPG was enabled it is disabled first. The port stops
 * accepting logins only if no other TPG of the port (under either name) is
 * enabled: removing one TPG leaves the sessions and logins of the others
 * alone (the in-kernel driver disables the whole port here).
 */
static void srpt_drop_tpg(struct se_portal_group *tpg)
{
	struct srpt_tpg *stpg = srpt_tpg_to_stpg(tpg);
	struct srpt_port_id *port_id = stpg->sport_id;
	struct srpt_port *sport = srpt_tpg_to_sport(tpg);

	mutex_lock(&port_id->mutex);
	list_del(&stpg->entry);
	mutex_unlock(&port_id->mutex);

	mutex_lock(&sport->mutex);
	srpt_tpg_set_enabled(sport, stpg, false,
			     !srpt_port_is_removed(sport) &&
			     srpt_port_other_tpg_enabled(sport, stpg));
	mutex_unlock(&sport->mutex);

	srpt_compat_tpg_drop_refused(tpg, stpg->refused_rtpi);
	core_tpg_deregister(tpg);
	kfree(stpg);
}

/**
 * srpt_enable_tpg() - write to the LIO "enable" attribute of a TPG.
 * @tpg: the TPG.
 * @enable: the new state of this TPG.
 *
 * The port accepts logins while any of its TPGs is enabled; a login creates
 * its session only in an enabled TPG. Disabling a TPG closes the sessions in
 * it, and every session of the port if it was the last enabled TPG.
 *
 * Return: 0 on success; -ENODEV when enabling a port whose HCA has been
 * removed (disabling it succeeds). After such a refusal LIO itself refuses
 * later attempts with -EINVAL (see srpt_compat_tpg_enable_refused()).
 */
static int srpt_enable_tpg(struct se_portal_group *tpg, bool enable)
{
	struct srpt_tpg *stpg = srpt_tpg_to_stpg(tpg);
	struct srpt_port *sport = srpt_tpg_to_sport(tpg);
	int ret = 0;

	mutex_lock(&sport->mutex);
	if (srpt_port_is_removed(sport)) {
		if (enable) {
			pr_warn("%s: cannot enable a TPG of a port whose RDMA device has been removed\n",
				stpg->sport_id->name);
			stpg->refused_rtpi = srpt_compat_tpg_enable_refused(tpg);
			ret = -ENODEV;
		} else {
			stpg->enabled = false;
		}
	} else {
		srpt_tpg_set_enabled(sport, stpg, enable, enable ||
				     srpt_port_other_tpg_enabled(sport, stpg));
	}
	mutex_unlock(&sport->mutex);

	return ret;
}

/**
 * srpt_tpg_enabled() - the state of a TPG's "enable" attribute.
 * @tpg: the TPG.
 *
 * Used only by kernels whose LIO core does not provide "enable" (< 5.16).
 *
 * Return: whether this TPG is enabled.
 */
static bool srpt_tpg_enabled(struct se_portal_group *tpg)
{
	struct srpt_port *sport = srpt_tpg_to_sport(tpg);
	bool enabled;

	mutex_lock(&sport->mutex);
	enabled = srpt_tpg_to_stpg(tpg)->enabled;
	mutex_unlock(&sport->mutex);
	return enabled;
}

/* The LIO "enable" attribute is the core's since 5.16; ours before. */
SRPT_COMPAT_DEFINE_TPG_ENABLE(srpt_enable_tpg, srpt_tpg_enabled);

static char *srpt_get_fabric_wwn(struct se_portal_group *tpg)
{
	return srpt_tpg_to_stpg(tpg)->sport_id->name;
}

static u16 srpt_get_tag(struct se_portal_group *tpg)
{
	return 1;
}

static int srpt_check_true(struct se_portal_group *tpg)
{
	return 1;
}

/* ---------------------------------------------------------------------- */
/* Start items for TPG attributes (tfc_tpg_attrib_attrs)                  */
/* ---------------------------------------------------------------------- */

/**
 * srpt_attrib_parse() - parse a TPG attribute value and check its range.
 * @sport: the port (for the -ENODEV check).
 * @attr: attribute name, for the log message.
 * @page: the value written.
 * @min: smallest accepted value.
 * @max: largest accepted value.
 * @val: the parsed value.
 *
 * Return: 0 on success, -ENODEV if the HCA was removed, -EINVAL (with a
 * warning) if @page is not a number in [@min, @max].
 */
static int srpt_attrib_parse(struct srpt_port *sport, const char *attr,
			     const char *page, unsigned long min,
			     unsigned long max, unsigned long *val)
{
	int ret;

	if (srpt_port_is_removed(sport))
		return -ENODEV;

	ret = kstrtoul(page, 0, val);
	if (ret || *val < min || *val > max) {
		pr_warn("%s: invalid value '%.*s' (accepted: %lu..%lu)\n",
			attr, (int)strcspn(page, "\n"), page, min, max);
		return -EINVAL;
	}
	return 0;
}

/**
 * srpt_attrib_to_sport() - the port of a TPG attrib group.
 * @item: the attrib group of a TPG.
 *
 * Return: the srpt_port whose attributes the group shows.
 */
static struct srpt_port *srpt_attrib_to_sport(struct config_item *item)
{
	return srpt_tpg_to_sport(attrib_to_tpg(item));
}

/**
 * srpt_attrib_show() - show a numeric TPG attribute.
 * @sport: the port.
 * @page: output page.
 * @field: the member of @sport->port_attrib.
 *
 * Works after the HCA was removed too (it only reads the stored value), so
 * that tools that dump the whole configuration keep working.
 *
 * Return: number of characters written.
 */
static ssize_t srpt_attrib_show(struct srpt_port *sport, char *page,
				const u32 *field)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(*field));
}

/**
 * srpt_attrib_store() - store a numeric TPG attribute.
 * @sport: the port.
 * @page: the value written.
 * @count: length of @page.
 * @attr: attribute name, for the log message.
 * @field: the member of @sport->port_attrib.
 * @min: smallest accepted value.
 * @max: largest accepted value.
 *
 * Return: @count on success or a negative errno (the old value is kept).
 */
static ssize_t srpt_attrib_store(struct srpt_port *sport, const char *page,
				 size_t count, const char *attr, u32 *field,
				 unsigned long min, unsigned long max)
{
	unsigned long val;
	int ret;

	ret = srpt_attrib_parse(sport, attr, page, min, max, &val);
	if (ret)
		return ret;

	mutex_lock(&sport->mutex);
	WRITE_ONCE(*field, val);
	mutex_unlock(&sport->mutex);
	return count;
}

static ssize_t srpt_tpg_attrib_srp_max_rdma_size_show(struct config_item *item,
						      char *page)
{
	struct srpt_port *sport = srpt_attrib_to_sport(item);

	return srpt_attrib_show(sport, page,
				&sport->port_attrib.srp_max_rdma_size);
}

static ssize_t srpt_tpg_attrib_srp_max_rdma_size_store(struct config_item *item,
						       const char *page,
						       size_t count)
{
	struct srpt_port *sport = srpt_attrib_to_sport(item);

	return srpt_attrib_store(sport, page, count, "srp_max_rdma_size",
				 &sport->port_attrib.srp_max_rdma_size,
				 SRPT_MIN_MAX_RDMA_SIZE, SRPT_MAX_MAX_RDMA_SIZE);
}

static ssize_t srpt_tpg_attrib_srp_max_rsp_size_show(struct config_item *item,
						     char *page)
{
	struct srpt_port *sport = srpt_attrib_to_sport(item);

	return srpt_attrib_show(sport, page,
				&sport->port_attrib.srp_max_rsp_size);
}

static ssize_t srpt_tpg_attrib_srp_max_rsp_size_store(struct config_item *item,
						      const char *page,
						      size_t count)
{
	struct srpt_port *sport = srpt_attrib_to_sport(item);

	return srpt_attrib_store(sport, page, count, "srp_max_rsp_size",
				 &sport->port_attrib.srp_max_rsp_size,
				 SRPT_MIN_MAX_RSP_SIZE, SRPT_MAX_MAX_RSP_SIZE);
}

static ssize_t srpt_tpg_attrib_srp_sq_size_show(struct config_item *item,
						char *page)
{
	struct srpt_port *sport = srpt_attrib_to_sport(item);

	return srpt_attrib_show(sport, page, &sport->port_attrib.srp_sq_size);
}

/* The accepted range is the in-kernel driver's (it reuses the SRQ bounds). */
static ssize_t srpt_tpg_attrib_srp_sq_size_store(struct config_item *item,
						 const char *page, size_t count)
{
	struct srpt_port *sport = srpt_attrib_to_sport(item);

	return srpt_attrib_store(sport, page, count, "srp_sq_size",
				 &sport->port_attrib.srp_sq_size,
				 SRPT_MIN_SRQ_SIZE, SRPT_MAX_SRQ_SIZE);
}

static ssize_t srpt_tpg_attrib_srp_rq_size_show(struct config_item *item,
						char *page)
{
	struct srpt_port *sport = srpt_attrib_to_sport(item);

	return srpt_attrib_show(sport, page, &sport->port_attrib.srp_rq_size);
}

/**
 * srpt_tpg_attrib_srp_rq_size_store() - set the depth of new channels.
 * @item: the attrib group of a TPG.
 * @page: the depth: credits granted at login, receive ring size and LIO
 *	  tags of each channel created from now on.
 * @count: length of @page.
 *
 * The upper bound is what the HCA's queue pairs hold
 * (srpt_device.rq_size_max), so the value read back is the depth channels
 * really get without an SRQ; with one they may get fewer (see
 * srpt_srq_reserve()).
 *
 * Return: @count on success or a negative errno (the old value is kept).
 */
static ssize_t srpt_tpg_attrib_srp_rq_size_store(struct config_item *item,
						 const char *page, size_t count)
{
	struct srpt_port *sport = srpt_attrib_to_sport(item);

	return srpt_attrib_store(sport, page, count, "srp_rq_size",
				 &sport->port_attrib.srp_rq_size,
				 SRPT_MIN_RQ_SIZE, sport->sdev->rq_size_max);
}

CONFIGFS_ATTR(srpt_tpg_attrib_, srp_max_rdma_size);
CONFIGFS_ATTR(srpt_tpg_attrib_, srp_max_rsp_size);
CONFIGFS_ATTR(srpt_tpg_attrib_, srp_sq_size);
CONFIGFS_ATTR(srpt_tpg_attrib_, srp_rq_size);

static ssize_t srpt_tpg_attrib_use_srq_show(struct config_item *item,
					    char *page)
{
	struct srpt_port *sport = srpt_attrib_to_sport(item);

	return sysfs_emit(page, "%d\n", READ_ONCE(sport->port_attrib.use_srq));
}

/**
 * srpt_tpg_attrib_use_srq_store() - switch the HCA of a port between SRQ
 * and per-channel receive queues.
 * @item: the attrib group of a TPG.
 * @page: "0" or "1" (any base).
 * @count: length of @page.
 *
 * The SRQ belongs to the HCA, so the change applies to (and closes the
 * channels of) every port of the HCA; see srpt_use_srq().
 *
 * Return: @count on success or a negative errno (the old value is kept).
 */
static ssize_t srpt_tpg_attrib_use_srq_store(struct config_item *item,
					     const char *page, size_t count)
{
	struct srpt_port *sport = srpt_attrib_to_sport(item);
	unsigned long val;
	int ret;

	ret = srpt_attrib_parse(sport, "use_srq", page, 0, 1, &val);
	if (ret)
		return ret;

	ret = srpt_use_srq(sport->sdev, val);
	return ret ? ret : count;
}

CONFIGFS_ATTR(srpt_tpg_attrib_, use_srq);

static struct configfs_attribute *srpt_tpg_attrib_attrs[] = {
	&srpt_tpg_attrib_attr_srp_max_rdma_size,
	&srpt_tpg_attrib_attr_srp_max_rsp_size,
	&srpt_tpg_attrib_attr_srp_sq_size,
	&srpt_tpg_attrib_attr_srp_rq_size,
	&srpt_tpg_attrib_attr_use_srq,
	NULL,
};

/* ---------------------------------------------------------------------- */
/* End items for TPG attributes                                           */
/* ---------------------------------------------------------------------- */

/* ---------------------------------------------------------------------- */
/* Start items for ACLs (fabric_init_nodeacl)                             */
/* ---------------------------------------------------------------------- */

/**
 * srpt_init_nodeacl() - validate the name of a new ACL directory.
 * @se_nacl: the ACL.
 * @name: initiator port ID: GUID form, optional "0x" plus hex digits, or
 *	  an IPv4/IPv6 address (RDMA/CM session names; docs/design.md,
 *	  "Session and ACL names").
 *
 * Nothing is stored: LIO matches the name against the session name.
 *
 * Return: 0 if @name has one of the accepted forms, -EINVAL otherwise.
 */
static int srpt_init_nodeacl(struct se_node_acl *se_nacl, const char *name)
{
	struct sockaddr_storage addr;

	if (srpt_parse_acl_name(name) == 0)
		return 0;
	if (inet_pton_with_scope(&init_net, AF_UNSPEC, name, NULL, &addr) == 0)
		return 0;

	pr_warn("invalid initiator port ID %s\n", name);
	return -EINVAL;
}

/*
 * Strings the info text of one channel points at (struct srpt_info_ch), so
 * that the channel's own fields are copied only under srpt_port.mutex.
 */
struct srpt_info_strs {
	char	addr[64];
	char	i_port_id[SRPT_HEX128_NAME_SIZE];
	char	t_port_id[SRPT_HEX128_NAME_SIZE];
};

/*
 * What the info attribute shows of a linked channel. Caller holds
 * sport->mutex: the channel and its nexus stay linked, its device present
 * (srpt_remove_one() waits for the channels) and its sess_name set.
 */
static void srpt_info_ch_fill(struct srpt_rdma_ch *ch, struct srpt_info_ch *ic,
			      struct srpt_info_strs *b, bool counters)
{
	struct srpt_port *sport = ch->sport;
	struct ib_device *dev = sport->sdev->device;

	lockdep_assert_held(&sport->mutex);
	memset(ic, 0, sizeof(*ic));
	ic->id = ch->id;
	ic->state = READ_ONCE(ch->state);
	/* the port's transport, whichever CM the login came through */
	ic->transport = rdma_protocol_iwarp(dev, sport->port) ? "iWARP" :
			rdma_protocol_roce(dev, sport->port) ? "RoCE" : "IB";
	if (ch->using_rdma_cm)
		snprintf(b->addr, sizeof(b->addr), "%pISc", &ch->peer);
	else
		strscpy(b->addr, ch->sess_name, sizeof(b->addr));
	srpt_format_port_id(b->i_port_id, sizeof(b->i_port_id),
			    ch->nexus->i_port_id);
	srpt_format_port_id(b->t_port_id, sizeof(b->t_port_id),
			    ch->nexus->t_port_id);
	ic->addr = b->addr;
	ic->i_port_id = b->i_port_id;
	ic->t_port_id = b->t_port_id;
	ic->rq_size = ch->rq_size;
	ic->req_lim = atomic_read(&ch->req_lim);
	if (counters)
		srpt_ch_stats_read(ch, &ic->c);
}

/**
 * srpt_nacl_info_show() - the ACL's "info" attribute: its SRP session.
 * @item: the ACL directory.
 * @page: output page.
 *
 * The text rtslib-fb's NodeACL session parser reads (src/stats.c), so that
 * "targetcli sessions" lists the channels of the ACL as the connections of
 * one session: no session while the ACL has no channel, otherwise the ACL's
 * oldest channel gives the session ID, then one connection per channel and
 * the counters of each channel (docs/design.md, "Counters and sessions").
 *
 * Return: the length of the text.
 */
static ssize_t srpt_nacl_info_show(struct config_item *item, char *page)
{
	struct se_node_acl *nacl = acl_to_nacl(item);
	struct srpt_port *sport = srpt_tpg_to_sport(nacl->se_tpg);
	unsigned int n_live = 0, n_connecting = 0;
	struct srpt_rdma_ch *ch, *first = NULL;
	struct srpt_info_strs b;
	struct srpt_nexus *nexus;
	struct srpt_info_ch ic;
	struct srpt_text t;
	int pass;

	srpt_text_init(&t, page, SRPT_CFS_SHOW_SIZE);
	mutex_lock(&sport->mutex);
	list_for_each_entry(nexus, &sport->nexus_list, entry) {
		list_for_each_entry(ch, &nexus->ch_list, list) {
			enum rdma_ch_state state = READ_ONCE(ch->state);

			if (ch->nacl != nacl)
				continue;
			n_live += state == CH_LIVE;
			n_connecting += state == CH_CONNECTING;
			if (!first || (s32)(ch->id - first->id) < 0)
				first = ch;
		}
	}
	if (!first) {
		mutex_unlock(&sport->mutex);
		srpt_info_no_session(&t, nacl->initiatorname);
		return srpt_text_end(&t);
	}
	srpt_info_ch_fill(first, &ic, &b, false);
	srpt_info_session(&t, nacl->initiatorname, &ic, n_live, n_connecting);
	/* all connections first, then the counters: see src/stats.c */
	for (pass = 0; pass < 2; pass++) {
		if (pass)
			srpt_info_counters_head(&t);
		list_for_each_entry(nexus, &sport->nexus_list, entry) {
			list_for_each_entry(ch, &nexus->ch_list, list) {
				if (ch->nacl != nacl)
					continue;
				srpt_info_ch_fill(ch, &ic, &b, pass);
				if (pass)
					srpt_info_ch_counters(&t, &ic);
				else
					srpt_info_conn(&t, &ic);
			}
		}
	}
	mutex_unlock(&sport->mutex);
	return srpt_text_end(&t);
}

CONFIGFS_ATTR_RO(srpt_nacl_, info);

static struct configfs_attribute *srpt_nacl_base_attrs[] = {
	&srpt_nacl_attr_info,
	NULL,
};

/*
 * auth/authenticate_target: SRP has no target authentication, always 0.
 * "targetcli sessions detail" reads it for every session it lists.
 */
static ssize_t srpt_nacl_auth_authenticate_target_show(struct config_item *item,
						       char *page)
{
	return sysfs_emit(page, "0\n");
}

CONFIGFS_ATTR_RO(srpt_nacl_auth_, authenticate_target);

static struct configfs_attribute *srpt_nacl_auth_attrs[] = {
	&srpt_nacl_auth_attr_authenticate_target,
	NULL,
};

/* ---------------------------------------------------------------------- */
/* End items for ACLs                                                     */
/* ---------------------------------------------------------------------- */

/**
 * srpt_add_wwn_groups() - add the port counters to a port directory.
 * @wwn: the WWN created by srpt_make_tport().
 *
 * The counters are those of port_stats.c, in fabric_statistics/srpt_port.
 */
static void srpt_add_wwn_groups(struct se_wwn *wwn)
{
	srpt_port_stats_add(srpt_wwn_to_port_id(wwn), &wwn->fabric_stat_group);
}

static const struct target_core_fabric_ops srpt_template = {
	.module				= THIS_MODULE,
	.fabric_name			= "srpt",
	.tpg_get_wwn			= srpt_get_fabric_wwn,
	.tpg_get_tag			= srpt_get_tag,
	.tpg_check_demo_mode_cache	= srpt_check_true,
	.tpg_check_demo_mode_write_protect = srpt_check_true,
	.release_cmd			= srpt_release_cmd,
	.check_stop_free		= srpt_check_stop_free,
	.close_session			= srpt_close_session,
	.sess_get_initiator_sid		= NULL,
	.write_pending			= srpt_write_pending,
	.get_cmd_state			= srpt_get_tcm_cmd_state,
	.queue_data_in			= srpt_queue_data_in,
	.queue_status			= srpt_queue_status,
	.queue_tm_rsp			= srpt_queue_tm_rsp,
	.aborted_task			= srpt_aborted_task,
	.fabric_make_wwn		= srpt_make_tport,
	.fabric_drop_wwn		= srpt_drop_tport,
	.add_wwn_groups			= srpt_add_wwn_groups,
	.fabric_make_tpg		= srpt_make_tpg,
	SRPT_FABRIC_ENABLE_OPS(srpt_enable_tpg)
	.fabric_drop_tpg		= srpt_drop_tpg,
	.node_acl_size			= sizeof(struct srpt_node_acl),
	.fabric_init_nodeacl		= srpt_init_nodeacl,
	.tfc_discovery_attrs		= srpt_discovery_attrs,
	.tfc_wwn_attrs			= srpt_wwn_attrs,
	.tfc_tpg_attrib_attrs		= srpt_tpg_attrib_attrs,
	.tfc_tpg_nacl_base_attrs	= srpt_nacl_base_attrs,
	.tfc_tpg_nacl_auth_attrs	= srpt_nacl_auth_attrs,
	/* 6.1's mandatory dummy callouts, submission/completion types */
	SRPT_FABRIC_COMPAT_OPS
};

/**
 * srpt_fabric_register() - register the srpt fabric with LIO.
 *
 * Return: 0 on success or a negative errno.
 */
int srpt_fabric_register(void)
{
	return target_register_template(&srpt_template);
}

/**
 * srpt_fabric_unregister() - unregister the srpt fabric.
 */
void srpt_fabric_unregister(void)
{
	target_unregister_template(&srpt_template);
}
