// SPDX-License-Identifier: GPL-2.0
/*
 * device.c - per-HCA state of the ib_srpt target: the ib_client add and
 * remove callbacks, port refresh, asynchronous events and the use_srq
 * switch, which suspends the ports of the HCA while its shared receive
 * queue is created or destroyed (the SRQ itself is in srq.c).
 *
 * Ordering rules implemented here (docs/design.md, "Device add and
 * remove"):
 *  - the async event handler is registered only after every port (and its
 *    refresh work) is initialized (CVE-2024-26872);
 *  - removal first stops everything that could create new work for the
 *    device (events, refresh work, listeners, port table), then waits for
 *    the channels, then frees the SRQ and the PD, and finally drops the
 *    client reference; configfs directories may keep the srpt_device (not
 *    the ib_device) alive after that.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/string.h>
#include <rdma/ib_cache.h>

#include "srpt.h"
#include "srpt_debug.h"

/* How long srpt_use_srq() waits for the channels of an HCA to go away. */
enum {
	SRPT_SRQ_WAIT_SLICE_SECS	= 5,
	SRPT_SRQ_WAIT_SLICES		= 6,
};

/* ---------------------------------------------------------------------- */
/* Port refresh                                                           */
/* ---------------------------------------------------------------------- */

/**
 * srpt_refresh_port() - query a port and (re)establish what depends on it.
 * @sport: the port.
 *
 * Caches the LIDs and GID index 0, recomputes both configfs names of the
 * port and, except on iWARP ports, makes sure the device management MAD
 * agent is registered. Runs at device add time and from the refresh work.
 * A MAD registration failure is not an error (the port then works without
 * DM discovery).
 *
 * Return: 0 on success or the negative errno of the failed query.
 */
int srpt_refresh_port(struct srpt_port *sport)
{
	struct srpt_device *sdev = sport->sdev;
	struct ib_port_attr port_attr;
	union ib_gid gid;
	bool changed;
	int ret;

	ret = ib_query_port(sdev->device, sport->port, &port_attr);
	if (ret) {
		srpt_port_err(sport, "ib_query_port() failed (%d)\n", ret);
		return ret;
	}
	sport->sm_lid = port_attr.sm_lid;
	sport->lid = port_attr.lid;

	ret = rdma_query_gid(sdev->device, sport->port, 0, &gid);
	if (ret) {
		srpt_port_err(sport, "rdma_query_gid() failed (%d)\n", ret);
		return ret;
	}
	/* a change after the first query is worth a line in the log */
	changed = memchr_inv(sport->gid.raw, 0, sizeof(sport->gid.raw)) &&
		  memcmp(&sport->gid, &gid, sizeof(gid)) != 0;
	sport->gid = gid;
	srpt_port_set_names(sport, &gid);
	if (changed)
		srpt_port_info(sport, "GID 0 changed; port names now %s and %s\n",
			       sport->guid_name, sport->gid_name);

	if (!rdma_protocol_iwarp(sdev->device, sport->port))
		srpt_mad_register(sport);

	return 0;
}

/**
 * srpt_refresh_port_work() - refresh work of a port.
 * @work: srpt_port.work.
 */
static void srpt_refresh_port_work(struct work_struct *work)
{
	struct srpt_port *sport = container_of(work, struct srpt_port, work);

	srpt_refresh_port(sport);
}

/* ---------------------------------------------------------------------- */
/* Asynchronous events                                                    */
/* ---------------------------------------------------------------------- */

/**
 * srpt_event_port() - the port an asynchronous port event refers to.
 * @sdev: the HCA.
 * @event: the event.
 *
 * Return: the port, or NULL (with a warning) if the port number is invalid.
 */
static struct srpt_port *srpt_event_port(struct srpt_device *sdev,
					 const struct ib_event *event)
{
	u32 port_num = event->element.port_num;

	if (WARN_ON_ONCE(port_num < 1 || port_num > sdev->port_cnt))
		return NULL;
	return &sdev->port[port_num - 1];
}

/**
 * srpt_event_handler() - asynchronous event handler of an HCA.
 * @handler: srpt_device.event_handler.
 * @event: the event.
 *
 * May run in atomic context. Unlike the in-kernel driver, every event that
 * may change a port's LIDs, GIDs or SM always schedules the refresh work,
 * so that the port names never go stale (docs/design.md, "Port names
 * follow GID changes").
 */
static void srpt_event_handler(struct ib_event_handler *handler,
			       struct ib_event *event)
{
	struct srpt_device *sdev =
		container_of(handler, struct srpt_device, event_handler);
	struct srpt_port *sport;

	srpt_dev_dbg(sdev, "async event %s (%d)\n",
		     ib_event_msg(event->event), event->event);

	switch (event->event) {
	case IB_EVENT_PORT_ERR:
		sport = srpt_event_port(sdev, event);
		if (sport) {
			WRITE_ONCE(sport->lid, 0);
			WRITE_ONCE(sport->sm_lid, 0);
		}
		break;
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
		sport = srpt_event_port(sdev, event);
		if (sport)
			schedule_work(&sport->work);
		break;
	default:
		srpt_dev_err(sdev, "unexpected async event %s (%d)\n",
			     ib_event_msg(event->event), event->event);
		break;
	}
}

/* ---------------------------------------------------------------------- */
/* use_srq switch                                                         */
/* ---------------------------------------------------------------------- */

/**
 * srpt_channel_count() - number of channels of all ports of an HCA.
 * @sdev: the HCA.
 *
 * Return: the sum of srpt_port.ch_count over the ports.
 */
static int srpt_channel_count(struct srpt_device *sdev)
{
	int n = 0;
	u32 i;

	for (i = 0; i < sdev->port_cnt; i++)
		n += atomic_read(&sdev->port[i].ch_count);
	return n;
}

/**
 * srpt_channels_wait() - wait until no port of an HCA has a channel.
 * @sdev: the HCA; every port is disabled.
 *
 * Waits in slices of SRPT_SRQ_WAIT_SLICE_SECS seconds and logs the number
 * of remaining channels after each slice, so a hang is never silent.
 *
 * Return: 0 once no channel is left, -EBUSY after SRPT_SRQ_WAIT_SLICES
 * slices.
 */
static int srpt_channels_wait(struct srpt_device *sdev)
{
	int n, slices = 0;
	u32 i;

	for (i = 0; i < sdev->port_cnt; i++) {
		struct srpt_port *sport = &sdev->port[i];

		while (!wait_event_timeout(sport->ch_wq,
					   atomic_read(&sport->ch_count) == 0,
					   SRPT_SRQ_WAIT_SLICE_SECS * HZ)) {
			n = srpt_channel_count(sdev);
			if (++slices >= SRPT_SRQ_WAIT_SLICES) {
				srpt_dev_warn(sdev, "%d channel(s) still open; use_srq not changed\n",
					      n);
				return -EBUSY;
			}
			srpt_dev_info(sdev, "waiting for %d channel(s) to close before changing use_srq\n",
				      n);
		}
	}
	return 0;
}

/*
 * Disable every enabled port of @sdev (closing its channels) and note which
 * ones were enabled in @was_enabled, for srpt_ports_restore().
 */
static void srpt_ports_disable(struct srpt_device *sdev, bool use_srq,
			       unsigned long *was_enabled)
{
	u32 i;

	for (i = 0; i < sdev->port_cnt; i++) {
		struct srpt_port *sport = &sdev->port[i];

		mutex_lock(&sport->mutex);
		if (sport->enabled) {
			__set_bit(i, was_enabled);
			srpt_port_info(sport, "disabling the port to change use_srq to %d\n",
				       use_srq);
			srpt_set_enabled(sport, false);
		}
		mutex_unlock(&sport->mutex);
	}
}

/* Enable again the ports srpt_ports_disable() disabled, unless removed. */
static void srpt_ports_restore(struct srpt_device *sdev,
			       const unsigned long *was_enabled)
{
	u32 i;

	for (i = 0; i < sdev->port_cnt; i++) {
		struct srpt_port *sport = &sdev->port[i];

		if (!test_bit(i, was_enabled))
			continue;
		mutex_lock(&sport->mutex);
		if (!srpt_port_is_removed(sport))
			srpt_set_enabled(sport, true);
		mutex_unlock(&sport->mutex);
	}
}

/* Show @use_srq in the use_srq attribute of every port of @sdev. */
static void srpt_ports_set_use_srq(struct srpt_device *sdev, bool use_srq)
{
	u32 i;

	for (i = 0; i < sdev->port_cnt; i++) {
		struct srpt_port *sport = &sdev->port[i];

		mutex_lock(&sport->mutex);
		sport->port_attrib.use_srq = use_srq;
		mutex_unlock(&sport->mutex);
	}
}

/**
 * srpt_use_srq() - switch an HCA between a shared receive queue and
 * per-channel receive queues.
 * @sdev: the HCA.
 * @use_srq: whether channels created from now on use the SRQ.
 *
 * The SRQ is shared by every port of the HCA, so it may only be created or
 * destroyed while no channel of any port exists. This function therefore
 * disables every port of the HCA (which closes their channels), waits for
 * the channels to be released, switches, and restores the enabled state of
 * each port (unless the device was removed meanwhile). If channels remain
 * after about 30 seconds, nothing is changed and -EBUSY is returned. The
 * use_srq attribute of every port of the HCA is updated on success, so all
 * of them show the value that is in effect. An enable or disable written to
 * a TPG of the HCA while this function waits is overridden by the restore.
 *
 * Takes @sdev->sdev_mutex and then each srpt_port.mutex in turn.
 *
 * Return: 0 on success, -ENODEV if the HCA has been removed, -EBUSY if
 * channels did not go away or the SRQ is still in use, -ENOMEM or another
 * negative errno if creating the SRQ failed.
 */
int srpt_use_srq(struct srpt_device *sdev, bool use_srq)
{
	unsigned long *was_enabled;
	int ret;

	mutex_lock(&sdev->sdev_mutex);
	if (READ_ONCE(sdev->removed)) {
		ret = -ENODEV;
		goto unlock;
	}
	if (sdev->use_srq == use_srq) {
		ret = 0;
		goto set_attr;
	}

	was_enabled = srpt_dbg_alloc("use_srq_bitmap",
				     bitmap_zalloc(sdev->port_cnt, GFP_KERNEL));
	if (!was_enabled) {
		ret = -ENOMEM;
		goto unlock;
	}
	WRITE_ONCE(sdev->srq_switching, true);
	srpt_ports_disable(sdev, use_srq, was_enabled);
	/*
	 * Paired with srpt_ch_create(): a channel counts itself in ch_count
	 * before it reads srq_switching, so after this barrier either its
	 * login sees the switch or the wait below sees the channel.
	 */
	smp_mb();
	ret = srpt_channels_wait(sdev);
	srpt_debug_delay(SRPT_DBG_SRQ_SWITCH);
	if (!ret)
		ret = use_srq ? srpt_srq_create(sdev) : srpt_srq_destroy(sdev);
	/* logins see the new use_srq before they may go on */
	smp_store_release(&sdev->srq_switching, false);
	srpt_ports_restore(sdev, was_enabled);
	bitmap_free(was_enabled);

	if (ret)
		goto unlock;
	srpt_dev_info(sdev, "use_srq is now %d\n", use_srq);
set_attr:
	srpt_ports_set_use_srq(sdev, use_srq);
unlock:
	mutex_unlock(&sdev->sdev_mutex);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* ib_client add / remove                                                 */
/* ---------------------------------------------------------------------- */

/**
 * srpt_unregister_mad_agents() - unregister the MAD agents of some ports.
 * @sdev: the HCA.
 * @n: number of ports, starting with port 1, to handle.
 */
static void srpt_unregister_mad_agents(struct srpt_device *sdev, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		srpt_mad_unregister(&sdev->port[i]);
}

/**
 * srpt_add_one() - ib_client add callback: set up an RDMA device.
 * @device: the new device.
 *
 * Return: 0 on success or a negative errno; the RDMA core then does not
 * call srpt_remove_one() for @device.
 */
int srpt_add_one(struct ib_device *device)
{
	struct srpt_device *sdev;
	u32 i;
	int ret;

	pr_debug("%s: adding the device\n", dev_name(&device->dev));

	sdev = srpt_sdev_alloc(device, device->phys_port_cnt);
	if (!sdev) {
		ret = -ENOMEM;
		goto err;
	}

	sdev->pd = srpt_dbg_err_ptr("pd", ib_alloc_pd(device, 0));
	if (IS_ERR(sdev->pd)) {
		ret = PTR_ERR(sdev->pd);
		goto put_sdev;
	}
	sdev->lkey = sdev->pd->local_dma_lkey;

	/* No SRQ at start-up: the use_srq attribute defaults to 0. */
	sdev->srq_size = min_t(u32, srpt_srq_size, device->attrs.max_srq_wr);
	sdev->rq_size_max = srpt_login_rq_size_max(device->attrs.max_qp_wr,
						   device->attrs.max_cqe);

	if (!srpt_service_guid)
		srpt_service_guid = be64_to_cpu(device->node_guid);

	/*
	 * Without its IB CM listener an InfiniBand HCA is reachable only
	 * through RDMA/CM, so the add fails if there is none; on RoCE the
	 * IB CM listener is an extra (srpt_ib_cm_roce), RDMA/CM the rule.
	 */
	ret = srpt_ib_cm_listen(sdev);
	if (ret) {
		if (!srpt_rdma_cm_get_port() &&
		    rdma_port_get_link_layer(device, 1) ==
		    IB_LINK_LAYER_INFINIBAND) {
			srpt_dev_err(sdev, "no IB CM listener (%d) and no RDMA/CM listener\n",
				     ret);
			goto dealloc_pd;
		}
		srpt_dev_warn(sdev, "no IB CM listener (%d); only RDMA/CM logins are possible\n",
			      ret);
	}

	for (i = 1; i <= sdev->port_cnt; i++) {
		/* srpt_sdev_alloc() initialized everything but the work */
		INIT_WORK(&sdev->port[i - 1].work, srpt_refresh_port_work);
		ret = srpt_refresh_port(&sdev->port[i - 1]);
		if (ret) {
			srpt_port_err(&sdev->port[i - 1],
				      "port initialization failed (%d)\n", ret);
			srpt_unregister_mad_agents(sdev, i);
			goto stop_cm;
		}
	}

	/* Only now: events schedule sport->work, initialized above. */
	INIT_IB_EVENT_HANDLER(&sdev->event_handler, device, srpt_event_handler);
	ib_register_event_handler(&sdev->event_handler);

	srpt_port_table_add(sdev);
	ib_set_client_data(device, &srpt_client, sdev);

	for (i = 0; i < sdev->port_cnt; i++)
		srpt_port_info(&sdev->port[i], "port names %s and %s\n",
			       sdev->port[i].guid_name,
			       sdev->port[i].gid_name);
	return 0;

stop_cm:
	srpt_ib_cm_stop(sdev);
dealloc_pd:
	ib_dealloc_pd(sdev->pd);
put_sdev:
	srpt_sdev_put(sdev);
err:
	pr_err("%s: adding the device failed (%d)\n", dev_name(&device->dev), ret);
	return ret;
}

/**
 * srpt_remove_one() - ib_client remove callback: release an RDMA device.
 * @device: the device being removed.
 * @client_data: the srpt_device set by srpt_add_one().
 *
 * Blocks until every channel of the device has been released (progress is
 * logged every few seconds by srpt_release_sport()). Configfs directories
 * of the device's ports may keep the srpt_device alive afterwards; their
 * operations then fail with -ENODEV.
 */
void srpt_remove_one(struct ib_device *device, void *client_data)
{
	struct srpt_device *sdev = client_data;
	u32 i;

	if (WARN_ON_ONCE(!sdev))
		return;

	/*
	 * Stop the sources of refresh work first, so that no refresh can
	 * register a MAD agent again after the agents are gone.
	 */
	ib_unregister_event_handler(&sdev->event_handler);
	for (i = 0; i < sdev->port_cnt; i++)
		cancel_work_sync(&sdev->port[i].work);
	srpt_unregister_mad_agents(sdev, sdev->port_cnt);

	srpt_ib_cm_stop(sdev);
	ib_set_client_data(device, &srpt_client, NULL);
	/*
	 * Unlinks the device and marks it removed: CM login handlers that
	 * start from now on find no device (srpt_sdev_lookup()) and configfs
	 * operations get -ENODEV. A handler that found the device earlier
	 * holds a reference on it; srpt_release_sport() below either makes
	 * it see its port disabled or waits for its channel.
	 */
	srpt_port_table_del(sdev);

	for (i = 0; i < sdev->port_cnt; i++)
		srpt_release_sport(&sdev->port[i]);

	mutex_lock(&sdev->sdev_mutex);
	if (srpt_srq_destroy(sdev))
		srpt_dev_err(sdev, "leaking the SRQ\n");
	mutex_unlock(&sdev->sdev_mutex);

	ib_dealloc_pd(sdev->pd);
	srpt_dev_info(sdev, "removed\n");
	srpt_sdev_put(sdev);
}
