// SPDX-License-Identifier: GPL-2.0
/*
 * srq.c - the shared receive queue (SRQ) of an HCA: creating it with its
 * ring of receive contexts, destroying it, and sharing its buffers out as
 * channel credits (docs/design.md, "Shared receive queue" and "SRQ credit
 * bound").
 *
 * The SRQ belongs to the srpt_device and is created and destroyed under
 * srpt_device.sdev_mutex while no channel of the HCA exists; switching an
 * HCA between the SRQ and per-channel receive queues (srpt_use_srq(),
 * which suspends the ports to get there) is in device.c. Channels only
 * take credits out (srpt_srq_reserve()) and put them back
 * (srpt_srq_unreserve()), lock-free.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>

#include "srpt.h"
#include "srpt_debug.h"
#include "srpt_io.h"

/**
 * srpt_srq_event() - SRQ asynchronous event handler.
 * @event: the event.
 * @ctx: the srpt_device.
 */
static void srpt_srq_event(struct ib_event *event, void *ctx)
{
	struct srpt_device *sdev = ctx;

	srpt_dev_dbg(sdev, "SRQ event %s (%d)\n",
		     ib_event_msg(event->event), event->event);
}

/**
 * srpt_srq_create() - create the SRQ of an HCA and fill it.
 * @sdev: the HCA; the caller holds @sdev->sdev_mutex and no channel of the
 *	  HCA exists.
 *
 * Return: 0 on success or a negative errno (nothing is left allocated).
 */
int srpt_srq_create(struct srpt_device *sdev)
{
	struct ib_srq_init_attr srq_attr = {
		.event_handler	= srpt_srq_event,
		.srq_context	= sdev,
		.attr.max_wr	= sdev->srq_size,
		.attr.max_sge	= 1,
		.srq_type	= IB_SRQT_BASIC,
	};
	struct srpt_recv_ioctx **ring;
	struct kmem_cache *cache;
	struct ib_srq *srq;
	int i, ret;

	lockdep_assert_held(&sdev->sdev_mutex);
	srq = srpt_dbg_err_ptr("srq", ib_create_srq(sdev->pd, &srq_attr));
	if (IS_ERR(srq)) {
		ret = PTR_ERR(srq);
		srpt_dev_err(sdev, "ib_create_srq() failed (%d)\n", ret);
		return ret;
	}

	cache = srpt_cache_get(srp_max_req_size);
	if (!cache) {
		ret = -ENOMEM;
		goto destroy_srq;
	}

	ring = srpt_alloc_recv_ring(sdev, sdev->srq_size, cache, 0,
				    srpt_recv_done);
	if (!ring) {
		ret = -ENOMEM;
		goto put_cache;
	}

	for (i = 0; i < sdev->srq_size; i++)
		ring[i]->srq_sdev = sdev;
	sdev->srq = srq;
	sdev->req_buf_cache = cache;
	sdev->ioctx_ring = ring;
	atomic_set(&sdev->srq_credits, sdev->srq_size);
	sdev->use_srq = true;

	for (i = 0; i < sdev->srq_size; i++) {
		ret = srpt_post_recv(sdev, NULL, ring[i]);
		if (ret) {
			srpt_dev_err(sdev, "posting SRQ receive %d failed (%d)\n",
				     i, ret);
			goto undo;
		}
	}

	srpt_dev_dbg(sdev, "created SRQ with %d entries\n", sdev->srq_size);
	return 0;

undo:
	sdev->use_srq = false;
	atomic_set(&sdev->srq_credits, 0);
	sdev->srq = NULL;
	sdev->req_buf_cache = NULL;
	sdev->ioctx_ring = NULL;
	/* destroying the SRQ discards the receives already posted */
	ib_destroy_srq(srq);
	srpt_free_recv_ring(sdev, ring, sdev->srq_size, cache);
	srpt_cache_put(cache);
	return ret;

put_cache:
	srpt_cache_put(cache);
destroy_srq:
	ib_destroy_srq(srq);
	return ret;
}

/**
 * srpt_srq_reserve() - take the credits of a new channel out of the SRQ.
 * @sdev: the HCA; its SRQ exists (the channel was counted in
 *	  srpt_port.ch_count while sdev->use_srq was set, so the SRQ stays).
 * @want: credits the channel would get without an SRQ (its rq_size).
 *
 * Every credit granted to an initiator is an IU it may send without
 * waiting, so it must find a posted receive. With an SRQ all channels of
 * the HCA receive from the same srq_size buffers: if the grants added up
 * to more, initiators that stay within their credits would still meet an
 * empty SRQ (RNR NAKs, stalls, SCSI timeouts). So the grants of the
 * channels using the SRQ never add up to more than srq_size: a channel
 * gets @want (its srp_rq_size, whatever that is), but at most half of the
 * buffers not yet promised, so that later logins still get a share, and
 * at least SRPT_MIN_SRQ_GRANT. When fewer than SRPT_MIN_SRQ_GRANT buffers
 * are left, the login is refused (INSUFFICIENT RESOURCES) until a channel
 * goes away. The default SRQ of 4095 entries gives the default 128
 * credits to 30 channels (a depth of 512 to 6 channels).
 *
 * Context: any; lock-free.
 * Return: the credits granted (between 1 and @want), or 0 if the SRQ is
 * fully committed. They go back with srpt_srq_unreserve() when the
 * channel is freed (srpt_free_ch()).
 */
int srpt_srq_reserve(struct srpt_device *sdev, int want)
{
	int avail = atomic_read(&sdev->srq_credits);
	int grant;

	do {
		if (avail < SRPT_MIN_SRQ_GRANT)
			return 0;
		grant = min(want, max(avail / 2, (int)SRPT_MIN_SRQ_GRANT));
	} while (!atomic_try_cmpxchg(&sdev->srq_credits, &avail,
				     avail - grant));
	return grant;
}

/**
 * srpt_srq_unreserve() - give the credits of a channel back to the SRQ.
 * @sdev: the HCA.
 * @credits: what srpt_srq_reserve() granted the channel (0: nothing).
 *
 * Context: any; lock-free.
 */
void srpt_srq_unreserve(struct srpt_device *sdev, int credits)
{
	if (credits)
		atomic_add(credits, &sdev->srq_credits);
}

/**
 * srpt_srq_destroy() - destroy the SRQ of an HCA and free its ring.
 * @sdev: the HCA; the caller holds @sdev->sdev_mutex.
 *
 * The RDMA core refuses to destroy an SRQ that a QP still uses; in that
 * case the SRQ and its buffers are kept, so nothing in use is ever freed.
 *
 * Return: 0 on success (or if there is no SRQ), else the negative errno of
 * ib_destroy_srq() (-EBUSY while a QP uses the SRQ).
 */
int srpt_srq_destroy(struct srpt_device *sdev)
{
	int ret;

	lockdep_assert_held(&sdev->sdev_mutex);
	if (!sdev->srq)
		return 0;

	/*
	 * ib_destroy_srq() WARNs when the SRQ is in use; check first and
	 * call the variant that reports the error instead.
	 */
	if (atomic_read(&sdev->srq->usecnt))
		ret = -EBUSY;
	else
		ret = ib_destroy_srq_user(sdev->srq, NULL);
	if (ret) {
		srpt_dev_warn(sdev, "the SRQ is still in use (%d); keeping it\n",
			      ret);
		return ret;
	}

	srpt_debug_srq_destroy();
	srpt_free_recv_ring(sdev, sdev->ioctx_ring, sdev->srq_size,
			    sdev->req_buf_cache);
	srpt_cache_put(sdev->req_buf_cache);
	sdev->srq = NULL;
	sdev->ioctx_ring = NULL;
	sdev->req_buf_cache = NULL;
	sdev->use_srq = false;
	atomic_set(&sdev->srq_credits, 0);
	srpt_dev_dbg(sdev, "destroyed the SRQ\n");
	return 0;
}
