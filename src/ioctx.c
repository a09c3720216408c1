// SPDX-License-Identifier: GPL-2.0
/*
 * ioctx.c - I/O contexts: the rings of receive and send contexts, the
 * buffer caches they draw from, and what a send context holds for one
 * command: its target-side data buffers (charged to the channel's data
 * budget), the rdma_rw contexts that move them, and their release
 * (srpt_free_rw_ctxs()). The per-command helpers (srpt_get_send_ioctx(),
 * srpt_put_send_ioctx(), srpt_post_recv(), the command state) are static
 * inline functions in srpt_io.h.
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
#include <scsi/scsi_proto.h>

#include "srpt.h"
#include "srpt_debug.h"
#include "srpt_io.h"
#include "srpt_iu.h"

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
	e = srpt_dbg_alloc("cache_entry", kzalloc(sizeof(*e), GFP_KERNEL));
	if (!e)
		goto unlock;
	snprintf(name, sizeof(name), "srpt-%u", object_size);
	e->cache = srpt_dbg_alloc("cache", kmem_cache_create(name, object_size,
							     512, 0, NULL));
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
	io->buf = srpt_dbg_alloc("iu_buf", kmem_cache_alloc(cache, GFP_KERNEL));
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

	ring = srpt_dbg_alloc("ring", kvmalloc_array(ring_size, sizeof(*ring),
						     GFP_KERNEL));
	if (!ring)
		return NULL;
	for (i = 0; i < ring_size; i++) {
		io = srpt_dbg_alloc("ring_ctx", kzalloc(obj_size, GFP_KERNEL));
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
 * @ring_size: number of contexts (rq_size).
 * @buf_cache: cache of the response buffers (ch->max_rsp_size bytes).
 * @done: completion handler of the SEND of every response posted from a
 *	  context of the ring (srpt_send_done()); set here once.
 *
 * All contexts go on @ch->free_ioctxs, the first one on top.
 *
 * Context: process context; may sleep.
 * Return: the ring, or NULL on allocation failure.
 */
struct srpt_send_ioctx **srpt_alloc_send_ring(struct srpt_rdma_ch *ch,
					      int ring_size,
					      struct kmem_cache *buf_cache,
					      void (*done)(struct ib_cq *cq,
							   struct ib_wc *wc))
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
	init_llist_head(&ch->free_ioctxs);
	for (i = ring_size - 1; i >= 0; i--) {
		ring[i]->ch = ch;
		ring[i]->ioctx.cqe.done = done;
		ring[i]->rw_ctxs = &ring[i]->s_rw_ctx;
		srpt_set_cmd_state(ring[i], SRPT_STATE_DONE);
		llist_add(&ring[i]->free_node, &ch->free_ioctxs);
	}
	return ring;
}

/*
 * Free the buffers in the pool of spare data buffers of @ch; no command of
 * @ch may be left (nothing adds to the pool any more).
 */
static void srpt_spare_drain(struct srpt_rdma_ch *ch)
{
	struct srpt_spare *sp, *next;

	llist_for_each_entry_safe(sp, next, llist_del_all(&ch->spare_list),
				  node) {
		target_free_sgl(sp->sg, sp->nents);
		atomic_sub(sp->nents, &ch->spare_pages);
		sp->in_pool = false;
	}
	WARN_ON_ONCE(atomic_read(&ch->spare_pages));
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
	if (!ring)
		return;
	/* the pool's entries live in the contexts */
	srpt_spare_drain(ch);
	srpt_free_ring(ch->sport->sdev, (void **)ring, ring_size, buf_cache,
		       DMA_TO_DEVICE);
	init_llist_head(&ch->free_ioctxs);
}

/* ---------------------------------------------------------------------- */
/* Send contexts, RDMA contexts and data buffers                          */
/* ---------------------------------------------------------------------- */

/* Data direction of the RDMA transfer (the reverse of the LIO one). */
static enum dma_data_direction srpt_rw_dir(enum dma_data_direction dir)
{
	return dir == DMA_FROM_DEVICE ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
}

/**
 * srpt_unmap_rw_ctxs() - tear down the rw contexts of a command.
 * @sio: send context.
 *
 * The target-side buffers stay allocated; srpt_map_rw_ctxs() may set the
 * contexts up again.
 */
static void srpt_unmap_rw_ctxs(struct srpt_send_ioctx *sio)
{
	struct srpt_rdma_ch *ch = sio->ch;
	enum dma_data_direction dir = srpt_rw_dir(sio->cmd.data_direction);
	u32 i;

	for (i = 0; i < sio->n_rw_mapped; i++) {
		struct srpt_rw_ctx *ctx = &sio->rw_ctxs[i];

		rdma_rw_ctx_destroy(&ctx->rw, ch->qp, ch->sport->port,
				    ctx->sg, ctx->rw_nents, dir);
		ctx->rw_nents = 0;
	}
	sio->n_rw_mapped = 0;
	sio->n_rdma = 0;
}

/**
 * srpt_spare_reuse() - give a command the spare data buffer on top of the
 * channel's pool.
 * @sio: send context of a command with one data descriptor.
 * @ctx: its rw context, whose buffer is to be set.
 * @len: length of the descriptor, not zero.
 * @data_in: the command returns data (its buffer is read by the initiator).
 *
 * Why spare buffers: allocating the data buffer of every command and
 * freeing it again costs the page allocator twice per command, and the
 * kernels of most distributions zero every page they hand out
 * (init_on_alloc=1), which for a 4 KiB command is more work than the rest
 * of this driver does for it (scripts/benchmark.sh --profile).
 * Commands put their buffers into a pool of the channel (srpt_spare_keep())
 * and the next command takes the one added last: if it has the number of
 * pages this command needs, it is used, otherwise it is freed, so that
 * the pool follows what the channel does now. Last in, first out, the pool
 * holds about as many buffers as commands run at once.
 *
 * The old contents are data of an earlier command of the same channel.
 * A data-out buffer is overwritten by the RDMA READ of the whole
 * descriptor before LIO sees it. Of a data-in buffer only the bytes LIO
 * reports are sent (srpt_map_rw_ctxs()), but a backstore may report bytes
 * it never wrote: rd_mcp with rd_nullio=1 completes a READ with GOOD and
 * leaves the buffer alone. So a data-in command gets a buffer as it is
 * only if it was last used for the same LUN, i.e. it holds data of the
 * same I_T_L nexus; otherwise it is cleared first. Commands whose buffer
 * must start zeroed (srpt_data_in_zero()) never take one.
 *
 * Context: the caller that holds SRPT_WAIT_BUSY of @sio->ch->wait_state, the
 * one taker of the pool (see struct srpt_rdma_ch).
 * Return: true if @ctx now uses a spare buffer.
 */
static bool srpt_spare_reuse(struct srpt_send_ioctx *sio,
			     struct srpt_rw_ctx *ctx, u32 len, bool data_in)
{
	struct srpt_rdma_ch *ch = sio->ch;
	unsigned int i, n = DIV_ROUND_UP(len, PAGE_SIZE);
	struct llist_node *node = llist_del_first(&ch->spare_list);
	struct scatterlist *sgl, *sg;
	struct srpt_spare *sp;
	bool clear;
	u32 nents;

	if (!node)
		return false;
	sp = llist_entry(node, struct srpt_spare, node);
	sgl = sp->sg;
	nents = sp->nents;
	clear = data_in && sp->lun != sio->data_lun;
	/* Its owner may add the next buffer once this is seen. */
	smp_store_release(&sp->in_pool, false);
	atomic_sub(nents, &ch->spare_pages);
	if (nents != n) {
		target_free_sgl(sgl, nents);
		return false;
	}
	/* The lengths of the last use may have been trimmed (srpt_sg_trim()). */
	for_each_sg(sgl, sg, n, i) {
		sg->length = min_t(u32, len, PAGE_SIZE);
		len -= sg->length;
		if (clear)
			clear_highpage(sg_page(sg));
	}
	ctx->sg = sgl;
	ctx->nents = n;
	/* 307-short-read turns this on to see that a spare buffer was used. */
	srpt_ch_dbg(ch, "tag %#llx: spare buffer of %u pages%s\n", sio->cmd.tag,
		    n, clear ? ", cleared" : "");
	return true;
}

/*
 * The three levels a command's data buffers are charged to, in the order
 * srpt_charge_data() takes them.
 */
static void srpt_uncharge_data(struct srpt_rdma_ch *ch, u64 charge)
{
	atomic64_sub(charge, &ch->sport->data_bytes);
	atomic64_sub(charge, ch->acl_data_bytes);
	atomic64_sub(charge, &ch->data_bytes);
}

/**
 * srpt_spare_keep() - put the data buffer of a finished command into the
 * channel's pool of spare buffers.
 * @sio: send context.
 * @ctx: the only rw context of the command.
 *
 * The pool holds at most srpt_ch_spare_kb of buffers (module parameter,
 * default 256 KiB); the in-kernel driver frees every buffer. The entry
 * that goes on the list is the one embedded in @sio: if it is still on
 * the list with an earlier buffer (nobody took that one yet), this buffer
 * is freed instead. The pool is emptied with the send ring
 * (srpt_free_send_ring()).
 *
 * Context: any (llist_add() needs no lock).
 * Return: true if the buffer of @ctx is now in the pool.
 */
static bool srpt_spare_keep(struct srpt_send_ioctx *sio,
			    struct srpt_rw_ctx *ctx)
{
	struct srpt_rdma_ch *ch = sio->ch;
	unsigned int limit = READ_ONCE(srpt_ch_spare_kb) / (PAGE_SIZE / 1024);
	struct srpt_spare *sp = &sio->spare;

	if (ctx->nents > limit)
		return false;
	/* pairs with the taker's release: it has read sg and nents */
	if (smp_load_acquire(&sp->in_pool))
		return false;
	if (atomic_add_return(ctx->nents, &ch->spare_pages) > limit) {
		atomic_sub(ctx->nents, &ch->spare_pages);
		return false;
	}
	sp->sg = ctx->sg;
	sp->nents = ctx->nents;
	sp->lun = sio->data_lun;
	sp->in_pool = true;
	/* a full barrier: the taker sees the fields above */
	llist_add(&sp->node, &ch->spare_list);
	return true;
}

/*
 * Tear down the rw contexts of @sio and free its first @n buffers; the
 * buffer of a command with one descriptor may go into the channel's pool
 * of spare buffers instead (srpt_spare_keep()).
 */
void srpt_free_rw_ctxs(struct srpt_send_ioctx *sio, u32 n)
{
	u32 i;

	srpt_unmap_rw_ctxs(sio);
	for (i = 0; i < n; i++) {
		struct srpt_rw_ctx *ctx = &sio->rw_ctxs[i];

		/*
		 * Only the buffer of a command with one descriptor (its rw
		 * context is the embedded one, and so n is 1): the first
		 * buffer of a multi-descriptor command whose second one could
		 * not be allocated (n is 1 then too) has a chaining slot and
		 * no end mark on its last entry.
		 */
		if (sio->rw_ctxs == &sio->s_rw_ctx && srpt_spare_keep(sio, ctx))
			continue;
		target_free_sgl(ctx->sg, ctx->nents);
	}
	if (sio->rw_ctxs != &sio->s_rw_ctx)
		kfree(sio->rw_ctxs);
	sio->rw_ctxs = &sio->s_rw_ctx;
	sio->n_rw_ctx = 0;
	if (sio->data_charge)
		srpt_uncharge_data(sio->ch, sio->data_charge);
	sio->data_charge = 0;
}

/*
 * Add @charge to @used unless that takes it past @budget while it held
 * something before: a level that holds nothing admits any one command.
 */
static bool srpt_budget_take(atomic64_t *used, u64 charge, u64 budget)
{
	u64 now = atomic64_add_return(charge, used);

	if (now > budget && now != charge) {
		atomic64_sub(charge, used);
		return false;
	}
	return true;
}

/**
 * srpt_charge_data() - reserve buffer space for a command in its channel,
 * ACL and port.
 * @sio: send context.
 * @iu: the SRP_CMD.
 * @desc: its parse result.
 *
 * The data buffers of a command are allocated at the length of its
 * descriptors when it arrives, before LIO has looked at the CDB: LIO takes
 * a fabric's scatterlist only together with the command. One descriptor
 * may be 128 MiB (SRPT_MAX_CMD_DATA_LEN) and a channel has up to 128
 * commands, so without a bound one initiator could make the target pin
 * 16 GiB per channel with commands that transfer nothing (a READ of one
 * block with a huge descriptor) and keep it pinned by not taking the
 * responses. Letting LIO allocate after parsing the CDB would not remove
 * the need: a WRITE-type control CDB keeps the descriptor length, and a
 * legitimate READ(16) can ask for as much. So each channel gets a budget,
 * srpt_ch_data_mb (module parameter, default 128 MiB: room for 128
 * commands of 1 MiB, while ib_srp by default keeps fewer than 64 commands
 * of at most 512 KiB in flight). A command that would exceed it while
 * others hold buffers is answered with TASK SET FULL; the initiator
 * retries it and lowers its queue depth. A command is always admitted on a
 * channel that holds nothing, so any command the parser accepts can run.
 * The charge is the page-rounded size of every descriptor, which is what
 * target_alloc_sgl() allocates.
 *
 * One initiator may open many channels, and many initiators share a port,
 * so the same charge also goes against a budget of the initiator's ACL
 * (srpt_acl_data_mb, default 1 GiB) and of the HCA port
 * (srpt_port_data_mb, default 4 GiB), with the same rule at each level:
 * refused if it takes the level past its budget while the level holds
 * something else. So what a level holds never exceeds the larger of its
 * budget and one command (128 MiB), whatever the number of channels.
 *
 * Context: the channel's CQ context (commands of a channel are received
 *	    one at a time; buffers may be freed concurrently elsewhere).
 * Return: true if the command may allocate its buffers.
 */
static bool srpt_charge_data(struct srpt_send_ioctx *sio, const void *iu,
			     const struct srpt_cmd_desc *desc)
{
	struct srpt_rdma_ch *ch = sio->ch;
	u64 charge = 0;
	u32 i;

	/* one descriptor (the usual case): its length is the data length */
	if (desc->nbufs == 1)
		charge = PAGE_ALIGN((u64)desc->data_len);
	for (i = 0; desc->nbufs > 1 && i < desc->nbufs; i++) {
		u32 key, len;
		u64 va;

		srpt_iu_get_desc(iu, desc, i, &va, &key, &len);
		charge += PAGE_ALIGN((u64)len);
	}
	if (!srpt_budget_take(&ch->data_bytes, charge,
			      (u64)READ_ONCE(srpt_ch_data_mb) << 20))
		return false;
	if (!srpt_budget_take(ch->acl_data_bytes, charge,
			      (u64)READ_ONCE(srpt_acl_data_mb) << 20))
		goto channel;
	if (!srpt_budget_take(&ch->sport->data_bytes, charge,
			      (u64)READ_ONCE(srpt_port_data_mb) << 20))
		goto acl;
	sio->data_charge = charge;
	return true;

acl:
	atomic64_sub(charge, ch->acl_data_bytes);
channel:
	atomic64_sub(charge, &ch->data_bytes);
	return false;
}

/*
 * Number of leading entries of @sg that hold the first @bytes bytes; the
 * last of them is shortened to end there. @bytes is at most the length of
 * the whole list and not zero.
 */
static unsigned int srpt_sg_trim(struct scatterlist *sg, unsigned int nents,
				 u32 bytes)
{
	unsigned int i;

	for (i = 0; i < nents; i++, sg = sg_next(sg)) {
		if (sg->length >= bytes) {
			sg->length = bytes;
			return i + 1;
		}
		bytes -= sg->length;
	}
	WARN_ON_ONCE(1);
	return nents;
}

/**
 * srpt_map_rw_ctxs() - set up the RDMA transfer of the data of a command.
 * @sio: send context whose buffers srpt_alloc_rw_ctxs() allocated.
 * @limit: bytes to transfer, at most the sum of the descriptor lengths.
 *
 * The descriptors are filled in order and only up to @limit bytes: for
 * data-in @limit is the length LIO produced (se_cmd->data_length when the
 * response is queued), which is shorter than the descriptors when the CDB
 * asks for less (target_cmd_size_check() cut data_length and set the
 * residual) or when the command completed with less data
 * (target_complete_cmd_with_length()). Nothing past it reaches the
 * initiator: it was never written by LIO. For data-out @limit is the
 * whole length, as LIO expects all of the data to arrive.
 *
 * Context: process context (rdma_rw_ctx_init() may sleep).
 * Return: 0 or the negative errno of rdma_rw_ctx_init(); on failure
 *	   nothing is left set up.
 */
static int srpt_map_rw_ctxs(struct srpt_send_ioctx *sio, u32 limit)
{
	struct srpt_rdma_ch *ch = sio->ch;
	enum dma_data_direction dir = srpt_rw_dir(sio->cmd.data_direction);
	u32 i;
	int ret;

	if (WARN_ON_ONCE(sio->n_rw_mapped))
		return 0;
	for (i = 0; i < sio->n_rw_ctx && limit; i++) {
		struct srpt_rw_ctx *ctx = &sio->rw_ctxs[i];
		u32 bytes = min(limit, ctx->len);
		unsigned int nents = ctx->nents;

		if (bytes < ctx->len)
			nents = srpt_sg_trim(ctx->sg, ctx->nents, bytes);
		ret = srpt_dbg_err("rw_ctx",
				   rdma_rw_ctx_init(&ctx->rw, ch->qp,
						    ch->sport->port, ctx->sg,
						    nents, 0, ctx->remote_addr,
						    ctx->rkey, dir));
		if (ret < 0) {
			srpt_unmap_rw_ctxs(sio);
			return ret;
		}
		ctx->rw_nents = nents;
		sio->n_rdma += ret;
		sio->n_rw_mapped++;
		limit -= bytes;
	}
	return 0;
}

/**
 * srpt_data_in_map() - set up the RDMA WRITEs of the data of a read.
 * @sio: send context of a data-in command whose response is being queued.
 *
 * Only se_cmd->data_length bytes are mapped (see srpt_map_rw_ctxs()). A
 * response LIO retries after a full send queue keeps what the first try
 * set up.
 *
 * Context: process context (LIO's completion or queue-full work).
 * Return: 0; a negative errno if the transfer cannot be set up (-ENOSPC:
 * it needs more send WRs than the send queue holds), and then nothing is
 * set up.
 */
int srpt_data_in_map(struct srpt_send_ioctx *sio)
{
	struct srpt_rdma_ch *ch = sio->ch;
	int ret;

	if (sio->n_rw_mapped)
		return 0;
	ret = srpt_map_rw_ctxs(sio, sio->cmd.data_length);
	if (ret) {
		srpt_ch_info_ratelimited(ch, "no resources for the data of tag %#llx: %d\n",
					 sio->cmd.tag, ret);
		return ret;
	}
	if (1 + sio->n_rdma > srpt_sq_capacity(ch)) {
		srpt_ch_warn_ratelimited(ch, "tag %#llx needs %u send WRs, the send queue holds %u\n",
					 sio->cmd.tag, 1 + sio->n_rdma,
					 srpt_sq_capacity(ch));
		srpt_unmap_rw_ctxs(sio);
		return -ENOSPC;
	}
	return 0;
}

/*
 * Whether a data-in command must get a fresh buffer, never a spare one.
 * Fresh data-in buffers are allocated zeroed: what a backstore does not
 * write must read as zeroes, as it does with the in-kernel driver on a
 * kernel that clears the pages it hands out (init_on_alloc), and costs
 * nothing more there. A READ takes a spare buffer (srpt_spare_reuse()
 * clears one that held another LUN's data). Anything else that returns
 * data is emulated by LIO or passed through, and some of those handlers
 * write less than data_length while reporting all of it (LIO zeroes the
 * buffers it allocates itself for such commands for the same reason), so
 * they always get a fresh one. The descriptor was checked against the
 * received length, so the CDB bytes can be read.
 */
static bool srpt_data_in_zero(const u8 *cdb)
{
	switch (cdb[0]) {
	case READ_6:
	case READ_10:
	case READ_12:
	case READ_16:
		return false;
	default:
		return true;
	}
}

/**
 * srpt_alloc_rw_ctxs() - allocate the target-side buffers of a command.
 * @sio: send context; sio->cmd.data_direction must be set.
 * @iu: the SRP_CMD.
 * @desc: its parse result, with @desc->nbufs > 0.
 * @sg: the chained scatterlist of all descriptors, for LIO.
 * @sg_cnt: number of data entries in @sg.
 *
 * One target-side buffer per descriptor, of the descriptor's length. For
 * data-out the rw contexts are set up here as well (srpt_map_rw_ctxs());
 * for data-in only when the response is queued, once it is known how many
 * bytes LIO produced. On failure everything built so far is torn down and
 * the counters are reset, so the send-queue accounting never sees stale
 * values. The buffers are charged to the channel first
 * (srpt_charge_data()).
 *
 * Return: 0; -EBUSY if the channel's data budget is exhausted; another
 * negative errno.
 */
int srpt_alloc_rw_ctxs(struct srpt_send_ioctx *sio, const void *iu,
		       const struct srpt_cmd_desc *desc,
		       struct scatterlist **sg, u32 *sg_cnt)
{
	const struct srpt_cmd *srp_cmd = iu;
	bool data_in = sio->cmd.data_direction == DMA_FROM_DEVICE;
	bool fresh = data_in && srpt_data_in_zero(srp_cmd->cdb);
	struct scatterlist *prev = NULL;
	unsigned int prev_nents = 0;
	u32 i, nbufs = desc->nbufs;
	int ret = -ENOMEM;

	*sg = NULL;
	*sg_cnt = 0;
	if (!srpt_charge_data(sio, iu, desc))
		return -EBUSY;
	/* compared as it came: only an identical LUN field may share data */
	memcpy(&sio->data_lun, srp_cmd->lun, sizeof(sio->data_lun));
	if (nbufs > 1) {
		sio->rw_ctxs = srpt_dbg_alloc("rw_ctxs",
					      kmalloc_array(nbufs,
							    sizeof(*sio->rw_ctxs),
							    GFP_KERNEL));
		if (!sio->rw_ctxs) {
			sio->rw_ctxs = &sio->s_rw_ctx;
			ret = -ENOMEM;
			goto unwind;
		}
	}
	for (i = 0; i < nbufs; i++) {
		struct srpt_rw_ctx *ctx = &sio->rw_ctxs[i];
		u32 key, len;
		u64 va;

		srpt_iu_get_desc(iu, desc, i, &va, &key, &len);
		if (nbufs > 1 || fresh ||
		    !srpt_spare_reuse(sio, ctx, len, data_in)) {
			ret = srpt_dbg_err("data_buf",
					   target_alloc_sgl(&ctx->sg,
							    &ctx->nents, len,
							    data_in,
							    i + 1 < nbufs));
			if (ret)
				goto unwind;
		}
		ctx->rw_nents = 0;
		ctx->remote_addr = va;
		ctx->rkey = key;
		ctx->len = len;
		sio->n_rw_ctx++;
		if (prev) {
			sg_unmark_end(&prev[prev_nents - 1]);
			sg_chain(prev, prev_nents + 1, ctx->sg);
		} else {
			*sg = ctx->sg;
		}
		prev = ctx->sg;
		prev_nents = ctx->nents;
		*sg_cnt += ctx->nents;
	}
	if (!data_in) {
		ret = srpt_map_rw_ctxs(sio, desc->data_len);
		if (ret)
			goto unwind;
	}
	return 0;

unwind:
	srpt_free_rw_ctxs(sio, sio->n_rw_ctx);
	*sg = NULL;
	*sg_cnt = 0;
	return ret < 0 ? ret : -ENOMEM;
}
