// SPDX-License-Identifier: GPL-2.0
/*
 * ioctx.c - I/O context rings and the buffer caches they draw from.
 *
 * Buffer caches are shared by size: srpt_cache_get() returns the cache
 * named "srpt-<size>" (objects 512-byte aligned) and takes a reference;
 * srpt_cache_put() drops it and destroys the cache with the last one.
 * Channel creation on 6.12+ would warn about duplicate cache names
 * otherwise, and sharing saves memory when many channels exist.
 *
 * A ring is a kvmalloc'd array of individually allocated contexts, each
 * with one buffer from a cache, DMA mapped for its whole object size:
 * DMA_FROM_DEVICE for receive rings, DMA_TO_DEVICE for send rings.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "srpt.h"
#include "srpt_io.h"

/**
 * struct srpt_cache_entry - one shared buffer cache.
 * @cache: the slab cache.
 * @refcnt: number of srpt_cache_get() calls not yet matched by a put.
 */
struct srpt_cache_entry {
	struct kmem_cache	*cache;
	unsigned int		refcnt;
};

/* Entries indexed by object size; protected by srpt_cache_mutex. */
static DEFINE_XARRAY(srpt_cache_xa);
static DEFINE_MUTEX(srpt_cache_mutex);

/**
 * srpt_cache_get() - get a reference to the buffer cache for a size.
 * @object_size: buffer size in bytes.
 *
 * Context: process context; may sleep.
 * Return: the cache, or NULL on allocation failure.
 */
struct kmem_cache *srpt_cache_get(unsigned int object_size)
{
	struct srpt_cache_entry *e;
	struct kmem_cache *cache = NULL;
	char name[32];
	void *old;

	mutex_lock(&srpt_cache_mutex);
	e = xa_load(&srpt_cache_xa, object_size);
	if (e) {
		e->refcnt++;
		cache = e->cache;
		goto unlock;
	}
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		goto unlock;
	snprintf(name, sizeof(name), "srpt-%u", object_size);
	e->cache = kmem_cache_create(name, object_size, 512, 0, NULL);
	if (!e->cache)
		goto free_entry;
	old = xa_store(&srpt_cache_xa, object_size, e, GFP_KERNEL);
	if (xa_is_err(old))
		goto destroy_cache;
	e->refcnt = 1;
	cache = e->cache;
	goto unlock;

destroy_cache:
	kmem_cache_destroy(e->cache);
free_entry:
	kfree(e);
unlock:
	mutex_unlock(&srpt_cache_mutex);
	return cache;
}

/**
 * srpt_cache_put() - drop a reference obtained from srpt_cache_get().
 * @cache: the cache; NULL is ignored.
 *
 * Context: process context; may sleep.
 */
void srpt_cache_put(struct kmem_cache *cache)
{
	struct srpt_cache_entry *e;
	unsigned long index;

	if (!cache)
		return;
	mutex_lock(&srpt_cache_mutex);
	xa_for_each(&srpt_cache_xa, index, e) {
		if (e->cache != cache)
			continue;
		if (--e->refcnt == 0) {
			xa_erase(&srpt_cache_xa, index);
			kmem_cache_destroy(e->cache);
			kfree(e);
		}
		mutex_unlock(&srpt_cache_mutex);
		return;
	}
	mutex_unlock(&srpt_cache_mutex);
	WARN_ONCE(1, "put of unknown cache %p\n", cache);
}

/**
 * srpt_cache_exit() - check at module exit that every buffer cache is gone.
 *
 * Each device and channel puts its caches when it is freed, so after the
 * last device is removed and the last release work has run the registry
 * must be empty; a cache left here is a reference leak.
 */
void srpt_cache_exit(void)
{
	WARN_ON_ONCE(!xa_empty(&srpt_cache_xa));
}

/* Allocate and map the buffer of one context. */
static int srpt_ioctx_init(struct srpt_device *sdev, struct srpt_ioctx *io,
			   struct kmem_cache *cache, enum dma_data_direction dir)
{
	io->buf = kmem_cache_alloc(cache, GFP_KERNEL);
	if (!io->buf)
		return -ENOMEM;
	io->dma = ib_dma_map_single(sdev->device, io->buf,
				    kmem_cache_size(cache), dir);
	if (ib_dma_mapping_error(sdev->device, io->dma)) {
		kmem_cache_free(cache, io->buf);
		io->buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Unmap and free the buffer of one context. */
static void srpt_ioctx_exit(struct srpt_device *sdev, struct srpt_ioctx *io,
			    struct kmem_cache *cache,
			    enum dma_data_direction dir)
{
	ib_dma_unmap_single(sdev->device, io->dma, kmem_cache_size(cache),
			    dir);
	kmem_cache_free(cache, io->buf);
}

/*
 * Both context types start with their struct srpt_ioctx, so the generic ring
 * code below can treat every element as one.
 */
static_assert(offsetof(struct srpt_recv_ioctx, ioctx) == 0);
static_assert(offsetof(struct srpt_send_ioctx, ioctx) == 0);

/* Free the first @n contexts of a ring and the ring itself. */
static void srpt_free_ring(struct srpt_device *sdev, void **ring, int n,
			   struct kmem_cache *cache,
			   enum dma_data_direction dir)
{
	int i;

	for (i = 0; i < n; i++) {
		srpt_ioctx_exit(sdev, ring[i], cache, dir);
		kfree(ring[i]);
	}
	kvfree(ring);
}

/*
 * Allocate a ring of @ring_size zeroed contexts of @obj_size bytes, each with
 * a mapped buffer from @cache and its index set. NULL on failure, with
 * everything allocated so far freed again.
 */
static void **srpt_alloc_ring(struct srpt_device *sdev, int ring_size,
			      size_t obj_size, struct kmem_cache *cache,
			      enum dma_data_direction dir)
{
	struct srpt_ioctx *io;
	void **ring;
	int i;

	ring = kvmalloc_array(ring_size, sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return NULL;
	for (i = 0; i < ring_size; i++) {
		io = kzalloc(obj_size, GFP_KERNEL);
		if (!io)
			goto unwind;
		if (srpt_ioctx_init(sdev, io, cache, dir)) {
			kfree(io);
			goto unwind;
		}
		io->index = i;
		ring[i] = io;
	}
	return ring;

unwind:
	srpt_free_ring(sdev, ring, i, cache, dir);
	return NULL;
}

/**
 * srpt_alloc_recv_ring() - allocate a ring of receive contexts.
 * @sdev: HCA the buffers are mapped for.
 * @ring_size: number of contexts.
 * @buf_cache: cache of the receive buffers; each object must hold
 *	       @alignment_offset + srp_max_req_size bytes.
 * @alignment_offset: bytes to skip at the start of each buffer so that
 *		      immediate data lands 512-byte aligned.
 * @done: completion handler of every receive posted from the ring
 *	  (srpt_recv_done()); set here once, srpt_post_recv() leaves it.
 *
 * Context: process context; may sleep.
 * Return: the ring, or NULL on allocation failure.
 */
struct srpt_recv_ioctx **srpt_alloc_recv_ring(struct srpt_device *sdev,
					      int ring_size,
					      struct kmem_cache *buf_cache,
					      int alignment_offset,
					      void (*done)(struct ib_cq *cq,
							   struct ib_wc *wc))
{
	struct srpt_recv_ioctx **ring;
	int i;

	if (WARN_ON_ONCE(ring_size <= 0 || alignment_offset < 0 ||
			 alignment_offset + srp_max_req_size >
			 kmem_cache_size(buf_cache)))
		return NULL;
	ring = (struct srpt_recv_ioctx **)
		srpt_alloc_ring(sdev, ring_size, sizeof(**ring), buf_cache,
				DMA_FROM_DEVICE);
	if (!ring)
		return NULL;
	for (i = 0; i < ring_size; i++) {
		ring[i]->ioctx.offset = alignment_offset;
		ring[i]->ioctx.cqe.done = done;
		INIT_LIST_HEAD(&ring[i]->wait_list);
	}
	return ring;
}

/**
 * srpt_free_recv_ring() - free a ring from srpt_alloc_recv_ring().
 * @sdev: HCA the buffers were mapped for.
 * @ring: the ring; NULL is ignored.
 * @ring_size: number of contexts.
 * @buf_cache: cache the buffers came from.
 *
 * No receive of the ring may be posted any more (QP or SRQ destroyed).
 */
void srpt_free_recv_ring(struct srpt_device *sdev,
			 struct srpt_recv_ioctx **ring, int ring_size,
			 struct kmem_cache *buf_cache)
{
	if (ring)
		srpt_free_ring(sdev, (void **)ring, ring_size, buf_cache,
			       DMA_FROM_DEVICE);
}

/**
 * srpt_alloc_send_ring() - allocate the send contexts of a channel.
 * @ch: the channel; @ch->sport must be set.
 * @ring_size: number of contexts (the number of LIO tags, rq_size).
 * @buf_cache: cache of the response buffers (ch->max_rsp_size bytes).
 *
 * Context: process context; may sleep.
 * Return: the ring, or NULL on allocation failure.
 */
struct srpt_send_ioctx **srpt_alloc_send_ring(struct srpt_rdma_ch *ch,
					      int ring_size,
					      struct kmem_cache *buf_cache)
{
	struct srpt_send_ioctx **ring;
	int i;

	if (WARN_ON_ONCE(ring_size <= 0))
		return NULL;
	ring = (struct srpt_send_ioctx **)
		srpt_alloc_ring(ch->sport->sdev, ring_size, sizeof(**ring),
				buf_cache, DMA_TO_DEVICE);
	if (!ring)
		return NULL;
	for (i = 0; i < ring_size; i++) {
		ring[i]->ch = ch;
		ring[i]->rw_ctxs = &ring[i]->s_rw_ctx;
		srpt_set_cmd_state(ring[i], SRPT_STATE_DONE);
	}
	return ring;
}

/**
 * srpt_free_send_ring() - free a ring from srpt_alloc_send_ring().
 * @ch: the channel.
 * @ring: the ring; NULL is ignored.
 * @ring_size: number of contexts.
 * @buf_cache: cache the buffers came from.
 *
 * Every command of the channel must have been released by LIO.
 */
void srpt_free_send_ring(struct srpt_rdma_ch *ch,
			 struct srpt_send_ioctx **ring, int ring_size,
			 struct kmem_cache *buf_cache)
{
	if (ring)
		srpt_free_ring(ch->sport->sdev, (void **)ring, ring_size,
			       buf_cache, DMA_TO_DEVICE);
}
