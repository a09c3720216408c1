// SPDX-License-Identifier: GPL-2.0
/*
 * port_stats.c - the port counters in configfs:
 * <port name>/fabric_statistics/srpt_port/, one read-only attribute per
 * counter (docs/design.md, "Counters and sessions"; ib_srpt(4)).
 *
 * The group lives in LIO's fabric_statistics directory of the port name
 * (the add_wwn_groups callout), where rtslib-fb neither takes it for a
 * target nor saves it. The texts are made by the pure code of stats.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "srpt.h"
#include "srpt_stats.h"

static struct srpt_port *srpt_stats_to_sport(struct config_item *item)
{
	return container_of(to_config_group(item), struct srpt_port_id,
			    stats_group)->sport;
}

/*
 * The port counters: those of the released channels plus those of every
 * linked channel, all under sport->mutex (see srpt_port.released).
 */
static void srpt_port_counters(struct srpt_port *sport,
			       struct srpt_counters *sum, u64 *open)
{
	struct srpt_nexus *nexus;
	struct srpt_rdma_ch *ch;
	struct srpt_counters c;

	*open = 0;
	mutex_lock(&sport->mutex);
	*sum = sport->released;
	list_for_each_entry(nexus, &sport->nexus_list, entry) {
		list_for_each_entry(ch, &nexus->ch_list, list) {
			srpt_ch_stats_read(ch, &c);
			srpt_counters_add(sum, &c);
			(*open)++;
		}
	}
	mutex_unlock(&sport->mutex);
}

/* One read-only attribute per scalar port counter. */
#define SRPT_PORT_COUNTER(name, expr)					\
static ssize_t srpt_port_stats_##name##_show(struct config_item *item,	\
					     char *page)		\
{									\
	struct srpt_counters c;						\
	u64 open;							\
									\
	srpt_port_counters(srpt_stats_to_sport(item), &c, &open);	\
	return sysfs_emit(page, "%llu\n", (unsigned long long)(expr));	\
}									\
CONFIGFS_ATTR_RO(srpt_port_stats_, name)

SRPT_PORT_COUNTER(channels_open, open);
SRPT_PORT_COUNTER(commands_read, c.cmds_read);
SRPT_PORT_COUNTER(commands_write, c.cmds_write);
SRPT_PORT_COUNTER(commands_none, c.cmds_none);
SRPT_PORT_COUNTER(bytes_read, c.bytes_read);
SRPT_PORT_COUNTER(bytes_write, c.bytes_write);
SRPT_PORT_COUNTER(sq_full_retries, c.sq_full);
SRPT_PORT_COUNTER(rdma_errors, c.rdma_errors);
SRPT_PORT_COUNTER(recv_errors, c.recv_errors);
SRPT_PORT_COUNTER(short_ius, c.short_ius);
SRPT_PORT_COUNTER(credits_granted, c.credits);

static ssize_t srpt_port_stats_task_mgmt_show(struct config_item *item,
					      char *page)
{
	struct srpt_counters c;
	struct srpt_text t;
	u64 open;

	srpt_port_counters(srpt_stats_to_sport(item), &c, &open);
	srpt_text_init(&t, page, SRPT_CFS_SHOW_SIZE);
	srpt_format_tmf_counts(&t, c.tmf);
	return srpt_text_end(&t);
}

CONFIGFS_ATTR_RO(srpt_port_stats_, task_mgmt);

static ssize_t srpt_port_stats_logins_accepted_show(struct config_item *item,
						    char *page)
{
	struct srpt_port *sport = srpt_stats_to_sport(item);
	u64 n;

	spin_lock(&sport->stats_lock);
	n = sport->logins_accepted;
	spin_unlock(&sport->stats_lock);
	return sysfs_emit(page, "%llu\n", n);
}

CONFIGFS_ATTR_RO(srpt_port_stats_, logins_accepted);

static ssize_t srpt_port_stats_logins_rejected_show(struct config_item *item,
						    char *page)
{
	struct srpt_port *sport = srpt_stats_to_sport(item);
	u64 n;

	spin_lock(&sport->stats_lock);
	n = sport->rejects.total;
	spin_unlock(&sport->stats_lock);
	return sysfs_emit(page, "%llu\n", n);
}

CONFIGFS_ATTR_RO(srpt_port_stats_, logins_rejected);

static ssize_t srpt_port_stats_login_reject_reasons_show(struct config_item *item,
							 char *page)
{
	struct srpt_port *sport = srpt_stats_to_sport(item);
	u64 count[SRPT_REJ_KINDS];
	struct srpt_text t;

	spin_lock(&sport->stats_lock);
	memcpy(count, sport->rejects.count, sizeof(count));
	spin_unlock(&sport->stats_lock);
	srpt_text_init(&t, page, SRPT_CFS_SHOW_SIZE);
	srpt_format_rej_counts(&t, count);
	return srpt_text_end(&t);
}

CONFIGFS_ATTR_RO(srpt_port_stats_, login_reject_reasons);

static ssize_t srpt_port_stats_login_reject_history_show(struct config_item *item,
							 char *page)
{
	struct srpt_port *sport = srpt_stats_to_sport(item);
	struct srpt_rej_history *h;
	struct srpt_text t;

	h = kmalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	spin_lock(&sport->stats_lock);
	*h = sport->rejects;
	spin_unlock(&sport->stats_lock);
	srpt_text_init(&t, page, SRPT_CFS_SHOW_SIZE);
	srpt_format_rej_history(&t, h);
	kfree(h);
	return srpt_text_end(&t);
}

CONFIGFS_ATTR_RO(srpt_port_stats_, login_reject_history);

static struct configfs_attribute *srpt_port_stats_attrs[] = {
	&srpt_port_stats_attr_logins_accepted,
	&srpt_port_stats_attr_logins_rejected,
	&srpt_port_stats_attr_login_reject_reasons,
	&srpt_port_stats_attr_login_reject_history,
	&srpt_port_stats_attr_channels_open,
	&srpt_port_stats_attr_commands_read,
	&srpt_port_stats_attr_commands_write,
	&srpt_port_stats_attr_commands_none,
	&srpt_port_stats_attr_bytes_read,
	&srpt_port_stats_attr_bytes_write,
	&srpt_port_stats_attr_task_mgmt,
	&srpt_port_stats_attr_sq_full_retries,
	&srpt_port_stats_attr_rdma_errors,
	&srpt_port_stats_attr_recv_errors,
	&srpt_port_stats_attr_short_ius,
	&srpt_port_stats_attr_credits_granted,
	NULL,
};

static const struct config_item_type srpt_port_stats_type = {
	.ct_attrs	= srpt_port_stats_attrs,
	.ct_owner	= THIS_MODULE,
};

/**
 * srpt_port_stats_add() - add fabric_statistics/srpt_port to a port
 *	directory.
 * @port_id: the port name directory.
 * @parent: its fabric_statistics group (LIO's se_wwn.fabric_stat_group).
 *
 * LIO removes the group (configfs_remove_default_groups() of
 * fabric_statistics) before it drops the port name directory.
 */
void srpt_port_stats_add(struct srpt_port_id *port_id,
			 struct config_group *parent)
{
	config_group_init_type_name(&port_id->stats_group, "srpt_port",
				    &srpt_port_stats_type);
	configfs_add_default_group(&port_id->stats_group, parent);
}
