// SPDX-License-Identifier: GPL-2.0
/*
 * srpt_ibcm_init - a minimal SRP initiator that logs in through the IB CM
 * (not the RDMA CM), for testing the IB CM login path of ib_srpt. It runs in
 * loopback on one RoCE device (Soft-RoCE in the test VM): initiator and
 * target share port 1 and the source GID is also the destination GID. It is
 * a test tool only and is never installed.
 *
 * Interface: debugfs file srpt_ibcm_init/ctl. Writing one command line runs
 * it synchronously; the write returns the byte count if the command ran,
 * whatever the target answered, -EINVAL for an unknown command, option or
 * value, -ENODEV without a device, -EBUSY if no slot is free and -ENOENT for
 * a free slot. Reading ctl returns the result line of the last command,
 * which is also logged. Options are key=value words; numbers are decimal or
 * 0x hex. Up to 8 channels ("slots" 0..7) exist at once.
 *
 *   login [slot=N] [guid=G] [sid=G] [id_ext=G] [ioc_guid=G] [init_ext=G]
 *         [it_iu_len=N] [multi=0|1] [imm=0|1] [pdata=ok|short|garbage|badop]
 *         [no_rtu=1] [mra=1] [qpn_of=K] [dmac=good|bad] [retries=N]
 *	(dmac=bad: the netdev's MAC with its last byte complemented)
 *	-> rep slot=N qpn=Q max_it_iu_len=L max_ti_iu_len=T req_lim=R
 *	   rsp_flags=0xF			(Q: the target's QP number)
 *	-> rej slot=N cm_reason=C srp_reason=0xS|none
 *	-> timeout slot=N | error slot=N err=E	(slot destroyed unless "rep")
 *	guid (default: the node GUID) sets sid, id_ext and ioc_guid at once;
 *	it_iu_len defaults to 8192, imm to 1, retries to 3.
 *   tur slot=N [lun=L]
 *   write slot=N lba=B len=BYTES [fmt=direct|indirect|imm] [ndesc=K]
 *         [seed=S] [lun=L]
 *   read slot=N lba=B len=BYTES [fmt=direct|indirect] [ndesc=K] [seed=S]
 *        [lun=L] [verify=0|1]
 *	-> rsp slot=N tag=T status=0xSS sense=K/AA/QQ|- resid=R req_lim=C
 *	   verify=ok|mismatch@OFF|-	(hex sense key/ASC/ASCQ; OFF is the
 *					 disk byte offset, decimal)
 *   tmf slot=N [func=lun_reset|abort] [task_tag=T] [lun=L]
 *	-> tmf slot=N status=0xSS rsp_code=0xRR|-
 *	I/O and TMF also answer "timeout slot=N" or "error slot=N err=E":
 *	-ENOTCONN unless the QP reached RTS, -EAGAIN without a credit, and
 *	"error slot=N err=-EIO wc=STATUS" once a completion failed.
 *   logout slot=N	-> logout slot=N drep|dreq_error|timeout|
 *			   already_disconnected (the slot is destroyed)
 *   wait_dreq slot=N [timeout_ms=M]	-> dreq slot=N | timeout slot=N
 *   destroy slot=N			-> destroyed slot=N
 *   sidr [guid=G|sid=G] [timeout_ms=M]	-> sidr_rep status=S qpn=Q |
 *					   sidr timeout
 *   status				-> slots[ N:STATE]...
 * Without a device, commands other than status answer "error nodev".
 * Data written or read at disk byte offset o is
 * (u8)((o >> 9) * 131 + (o & 511) * 7 + seed).
 *
 * Ownership and locking:
 *  - ibcm_mutex serializes the commands, the client's add/remove callbacks
 *    and module exit; it guards ibcm_dev, ibcm_slots[], ibcm_tag and the
 *    result line. The CM handler and the completion callbacks never take it.
 *  - A slot is freed only under ibcm_mutex, by a command, by the removal of
 *    its device or by module exit, and only after ib_destroy_cm_id() (which
 *    waits for a running CM handler) and after its QP was destroyed and its
 *    CQ freed (no completion can arrive afterwards).
 *  - The CM handler runs on the CM's workqueue, shared with the target's own
 *    handler: it never blocks and always returns 0. It and the completion
 *    callbacks (CQ work) update a slot under slot->lock and wake slot->wq;
 *    received IUs are parsed and answered only in command context.
 *  - A data buffer whose command got no response stays mapped on the slot
 *    until the slot is destroyed: the target may still access it.
 *  - Every wait has a timeout.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>
#include <scsi/scsi_proto.h>
#include <scsi/srp.h>

#define IBCM_PORT		1
#define IBCM_SLOTS		8
#define IBCM_NR_RX		16
#define IBCM_RX_SIZE		4096
#define IBCM_TX_SIZE		8192
#define IBCM_REPLY_SIZE		64
#define IBCM_SEND_WR		32
#define IBCM_MAX_DATA		(1024 * 1024)
#define IBCM_MAX_NDESC		16
#define IBCM_BLOCK		512
/* what ib_srp uses: srp_cmd, 16 more CDB bytes, then struct srp_imm_buf */
#define IBCM_IMM_OFFSET		68
#define IBCM_DEF_IT_IU_LEN	8192
#define IBCM_WAIT		(30 * HZ)
#define IBCM_TX_WAIT		(5 * HZ)

static int gid_index = -1;
module_param(gid_index, int, 0444);
MODULE_PARM_DESC(gid_index,
		 "source GID index on port 1 (-1: the first IPv4-mapped RoCE v2 GID)");

enum ibcm_state {
	ST_CONNECTING, ST_CONNECTED, ST_REP_NO_RTU, ST_DREQ_RCVD,
	ST_DISCONNECTING, ST_DISCONNECTED, ST_REJECTED, ST_FAILED,
};

static const char * const ibcm_state_names[] = {
	"connecting", "connected", "rep_no_rtu", "dreq_received",
	"disconnecting", "disconnected", "rejected", "failed",
};

/* what the CM said to a login */
enum ibcm_answer { ANS_NONE, ANS_REP, ANS_REJ, ANS_TIMEOUT, ANS_ERROR };

/* bits of ibcm_slot.events */
enum { EV_DREQ, EV_DREP, EV_DREQ_ERR, EV_TIMEWAIT };

enum { TX_CMD, TX_REPLY, TX_NR };

struct ibcm_slot;

struct ibcm_rx {
	struct ib_cqe		cqe;
	struct list_head	entry;	/* on slot->rx_ready until parsed */
	struct ibcm_slot	*slot;
	void			*buf;
	u64			dma;
	u32			len;
};

struct ibcm_tx {
	struct ib_cqe		cqe;
	struct ibcm_slot	*slot;
	void			*buf;
	u64			dma;
	u32			size;
	bool			busy;	/* posted, no completion yet */
};

struct ibcm_data {
	struct list_head	entry;	/* on slot->stale after a lost command */
	void			*buf;
	u64			dma;
	u32			len;
};

struct ibcm_slot {
	int			idx;
	struct ib_device	*dev;
	struct ib_cm_id		*cm_id;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct ib_qp		*qp;
	bool			qp_init;	/* the QP left RESET */
	struct ibcm_rx		rx[IBCM_NR_RX];
	struct ibcm_tx		tx[TX_NR];
	struct list_head	stale;

	spinlock_t		lock;	/* the fields up to wc_status */
	wait_queue_head_t	wq;
	struct list_head	rx_ready;
	enum ibcm_state		state;
	enum ibcm_answer	answer;
	int			cm_err;
	int			rej_reason;
	bool			srp_rej_valid;
	u32			srp_rej;
	bool			qp_rts;
	unsigned int		wc_errors;
	enum ib_wc_status	wc_status;	/* of the first failure */
	unsigned long		events;		/* EV_* bits */

	/* login: set before the REQ, read by the REP handler */
	bool			no_rtu;
	bool			mra;
	/* written by the REP handler, then command context only */
	u32			remote_qpn;
	u32			max_it_iu_len;
	u32			max_ti_iu_len;
	u8			rsp_flags;
	int			req_lim;
	u64			last_tag;
};

/* an SRP_RSP, as far as the commands need it */
struct ibcm_rsp {
	bool	found;
	u8	status;
	u8	flags;
	int	rsp_code;	/* -1: none */
	int	sense_key;	/* -1: no sense data */
	u8	asc;
	u8	ascq;
	s64	resid;
};

static DEFINE_MUTEX(ibcm_mutex);
static struct ib_device *ibcm_dev;
static struct ibcm_slot *ibcm_slots[IBCM_SLOTS];
static u64 ibcm_tag;
static char ibcm_res[256] = "none\n";
static struct dentry *ibcm_dir;

static __printf(1, 2) void ibcm_result(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(ibcm_res, sizeof(ibcm_res), fmt, ap);
	va_end(ap);
	pr_info("%s", ibcm_res);
}

static void ibcm_put_be64(u8 *p, u64 v)
{
	__be64 be = cpu_to_be64(v);

	memcpy(p, &be, sizeof(be));
}

/* ---- buffers and work requests ------------------------------------- */

static void *ibcm_buf_alloc(struct ib_device *dev, size_t size,
			    enum dma_data_direction dir, u64 *dma)
{
	void *buf = kzalloc(size, GFP_KERNEL | __GFP_NOWARN);

	if (!buf)
		return NULL;
	*dma = ib_dma_map_single(dev, buf, size, dir);
	if (ib_dma_mapping_error(dev, *dma)) {
		kfree(buf);
		return NULL;
	}
	return buf;
}

static void ibcm_buf_free(struct ib_device *dev, void *buf, size_t size,
			  enum dma_data_direction dir, u64 dma)
{
	if (!buf)
		return;
	ib_dma_unmap_single(dev, dma, size, dir);
	kfree(buf);
}

static u8 ibcm_pattern(u64 off, u64 seed)
{
	return (u8)((off >> 9) * 131 + (off & 511) * 7 + seed);
}

/* fill @buf with the pattern of disk block @lba on; @xor 0xff poisons */
static void ibcm_fill(u8 *buf, u64 lba, u32 len, u64 seed, u8 xor)
{
	u64 base = lba * IBCM_BLOCK;
	u32 i;

	for (i = 0; i < len; i++)
		buf[i] = ibcm_pattern(base + i, seed) ^ xor;
}

/**
 * ibcm_data_alloc() - allocate and map the data buffer of one command
 * @s: the slot.
 * @len: its length, at most 1 MiB (kmalloc memory: DMA-mappable, and on
 *	rxe the DMA address is the kernel virtual address).
 * @lba: first block, for the pattern.
 * @seed: pattern seed.
 * @write: fill with the pattern (write) or with its complement (read).
 *
 * Return: the buffer, or NULL if out of memory.
 */
static struct ibcm_data *ibcm_data_alloc(struct ibcm_slot *s, u32 len,
					 u64 lba, u64 seed, bool write)
{
	struct ibcm_data *d = kzalloc(sizeof(*d), GFP_KERNEL);

	if (!d)
		return NULL;
	d->len = len;
	d->buf = kmalloc(len, GFP_KERNEL | __GFP_NOWARN);
	if (!d->buf)
		goto free;
	ibcm_fill(d->buf, lba, len, seed, write ? 0 : 0xff);
	d->dma = ib_dma_map_single(s->dev, d->buf, len, DMA_BIDIRECTIONAL);
	if (!ib_dma_mapping_error(s->dev, d->dma))
		return d;
	kfree(d->buf);
free:
	kfree(d);
	return NULL;
}

static void ibcm_data_free(struct ibcm_slot *s, struct ibcm_data *d)
{
	ib_dma_unmap_single(s->dev, d->dma, d->len, DMA_BIDIRECTIONAL);
	kfree(d->buf);
	kfree(d);
}

static void ibcm_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibcm_rx *rx = container_of(wc->wr_cqe, struct ibcm_rx, cqe);
	struct ibcm_slot *s = rx->slot;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	if (wc->status == IB_WC_SUCCESS) {
		rx->len = wc->byte_len;
		list_add_tail(&rx->entry, &s->rx_ready);
	} else if (!s->wc_errors++) {
		s->wc_status = wc->status;
	}
	spin_unlock_irqrestore(&s->lock, flags);
	wake_up(&s->wq);
}

static void ibcm_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibcm_tx *tx = container_of(wc->wr_cqe, struct ibcm_tx, cqe);
	struct ibcm_slot *s = tx->slot;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	WRITE_ONCE(tx->busy, false);
	if (wc->status != IB_WC_SUCCESS && !s->wc_errors++)
		s->wc_status = wc->status;
	spin_unlock_irqrestore(&s->lock, flags);
	wake_up(&s->wq);
}

static int ibcm_post_recv(struct ibcm_slot *s, struct ibcm_rx *rx)
{
	struct ib_sge sge = {
		.addr = rx->dma,
		.length = IBCM_RX_SIZE,
		.lkey = s->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &rx->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	ib_dma_sync_single_for_device(s->dev, rx->dma, IBCM_RX_SIZE,
				      DMA_FROM_DEVICE);
	return ib_post_recv(s->qp, &wr, NULL);
}

/* wait until the previous send from @tx completed: 0 or -EBUSY */
static int ibcm_tx_get(struct ibcm_slot *s, struct ibcm_tx *tx)
{
	if (!wait_event_timeout(s->wq, !READ_ONCE(tx->busy), IBCM_TX_WAIT))
		return -EBUSY;
	return 0;
}

static int ibcm_post_send(struct ibcm_slot *s, struct ibcm_tx *tx, u32 len)
{
	struct ib_sge sge = {
		.addr = tx->dma,
		.length = len,
		.lkey = s->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &tx->cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	int ret;

	ib_dma_sync_single_for_device(s->dev, tx->dma, len, DMA_TO_DEVICE);
	WRITE_ONCE(tx->busy, true);
	ret = ib_post_send(s->qp, &wr, NULL);
	if (ret)
		WRITE_ONCE(tx->busy, false);
	return ret;
}

/* ---- slots --------------------------------------------------------- */

static int ibcm_cm_handler(struct ib_cm_id *cm_id,
			   const struct ib_cm_event *ev);

static void ibcm_qp_event(struct ib_event *ev, void *ctx)
{
	struct ibcm_slot *s = ctx;

	pr_info("slot %d: QP event %s\n", s->idx, ib_event_msg(ev->event));
}

/**
 * ibcm_slot_destroy() - release a slot and everything it owns
 * @s: the slot; called with ibcm_mutex held.
 *
 * The cm_id goes first (ib_destroy_cm_id() sends a REJ or DREQ as its state
 * requires and waits for a running handler), then the QP, whose destruction
 * ends all DMA by the device, then the CQ, the buffers and the PD.
 */
static void ibcm_slot_destroy(struct ibcm_slot *s)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ibcm_data *d, *tmp;
	int i;

	if (s->cm_id)
		ib_destroy_cm_id(s->cm_id);
	if (s->qp) {
		if (s->qp_init)
			ib_modify_qp(s->qp, &attr, IB_QP_STATE);
		ib_destroy_qp(s->qp);
	}
	if (s->cq)
		ib_free_cq(s->cq);
	for (i = 0; i < IBCM_NR_RX; i++)
		ibcm_buf_free(s->dev, s->rx[i].buf, IBCM_RX_SIZE,
			      DMA_FROM_DEVICE, s->rx[i].dma);
	for (i = 0; i < TX_NR; i++)
		ibcm_buf_free(s->dev, s->tx[i].buf, s->tx[i].size,
			      DMA_TO_DEVICE, s->tx[i].dma);
	list_for_each_entry_safe(d, tmp, &s->stale, entry)
		ibcm_data_free(s, d);
	if (s->pd)
		ib_dealloc_pd(s->pd);
	ibcm_slots[s->idx] = NULL;
	kfree(s);
}

/* move the new QP to INIT and post all receive buffers */
static int ibcm_qp_init(struct ibcm_slot *s)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = IBCM_PORT,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE |
				   IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_WRITE,
	};
	u16 pkey_index;
	int i, ret;

	ret = ib_find_cached_pkey(s->dev, IBCM_PORT, 0xffff, &pkey_index);
	if (ret)
		return ret;
	attr.pkey_index = pkey_index;
	ret = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	s->qp_init = true;
	for (i = 0; i < IBCM_NR_RX; i++) {
		ret = ibcm_post_recv(s, &s->rx[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * ibcm_slot_create() - create slot @idx: cm_id, PD, CQ, RC QP in INIT
 * @dev: the device.
 * @idx: a free slot index.
 * @sp: returns the slot, also on failure (then ibcm_slot_destroy() it).
 *
 * Return: 0 or a negative errno.
 */
static int ibcm_slot_create(struct ib_device *dev, int idx,
			    struct ibcm_slot **sp)
{
	struct ib_qp_init_attr init = {};
	struct ibcm_slot *s;
	int i;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	*sp = s;
	if (!s)
		return -ENOMEM;
	s->idx = idx;
	s->dev = dev;
	spin_lock_init(&s->lock);
	init_waitqueue_head(&s->wq);
	INIT_LIST_HEAD(&s->rx_ready);
	INIT_LIST_HEAD(&s->stale);
	ibcm_slots[idx] = s;

	s->cm_id = ib_create_cm_id(dev, ibcm_cm_handler, s);
	if (IS_ERR(s->cm_id))
		return PTR_ERR(xchg(&s->cm_id, NULL));
	s->pd = ib_alloc_pd(dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(s->pd))
		return PTR_ERR(xchg(&s->pd, NULL));
	/*
	 * Workqueue-polled like the target's CQs: a softirq-polled CQ can be
	 * re-armed after ib_free_cq() on rxe (KBUG-1, tests/vm/README.md).
	 */
	s->cq = ib_alloc_cq(dev, s, IBCM_NR_RX + IBCM_SEND_WR + 1, 0,
			    IB_POLL_WORKQUEUE);
	if (IS_ERR(s->cq))
		return PTR_ERR(xchg(&s->cq, NULL));
	init.event_handler = ibcm_qp_event;
	init.qp_context = s;
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	init.cap.max_send_wr = IBCM_SEND_WR;
	init.cap.max_recv_wr = IBCM_NR_RX;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.qp_type = IB_QPT_RC;
	s->qp = ib_create_qp(s->pd, &init);
	if (IS_ERR(s->qp))
		return PTR_ERR(xchg(&s->qp, NULL));

	for (i = 0; i < IBCM_NR_RX; i++) {
		s->rx[i].slot = s;
		s->rx[i].cqe.done = ibcm_rx_done;
		s->rx[i].buf = ibcm_buf_alloc(dev, IBCM_RX_SIZE,
					      DMA_FROM_DEVICE, &s->rx[i].dma);
		if (!s->rx[i].buf)
			return -ENOMEM;
	}
	for (i = 0; i < TX_NR; i++) {
		s->tx[i].slot = s;
		s->tx[i].cqe.done = ibcm_tx_done;
		s->tx[i].size = i == TX_CMD ? IBCM_TX_SIZE : IBCM_REPLY_SIZE;
		s->tx[i].buf = ibcm_buf_alloc(dev, s->tx[i].size,
					      DMA_TO_DEVICE, &s->tx[i].dma);
		if (!s->tx[i].buf)
			return -ENOMEM;
	}
	return ibcm_qp_init(s);
}

static enum ibcm_answer ibcm_get_answer(struct ibcm_slot *s)
{
	enum ibcm_answer ans;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	ans = s->answer;
	spin_unlock_irqrestore(&s->lock, flags);
	return ans;
}

static void ibcm_set_state(struct ibcm_slot *s, enum ibcm_state st)
{
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	s->state = st;
	spin_unlock_irqrestore(&s->lock, flags);
}

/* ---- CM handler (CM workqueue: never blocks) ------------------------ */

static int ibcm_modify_qp(struct ib_cm_id *cm_id, struct ib_qp *qp,
			  enum ib_qp_state st)
{
	struct ib_qp_attr attr = { .qp_state = st };
	int mask, ret;

	ret = ib_cm_init_qp_attr(cm_id, &attr, &mask);
	if (!ret)
		ret = ib_modify_qp(qp, &attr, mask);
	return ret;
}

/*
 * The MRA of mra=1. Newer kernels (7.x) replaced ib_send_cm_mra() by
 * ib_prepare_cm_mra(), which sends an MRA only if a duplicate REP arrives;
 * IB_CM_MRA_FLAG_DELAY went away in the same change and tells them apart.
 */
static int ibcm_send_mra(struct ib_cm_id *cm_id)
{
#ifdef IB_CM_MRA_FLAG_DELAY
	return ib_send_cm_mra(cm_id, 20, NULL, 0);
#else
	return ib_prepare_cm_mra(cm_id);
#endif
}

/**
 * ibcm_rep() - take the SRP_LOGIN_RSP of a REP and complete the login
 * @s: the slot.
 * @cm_id: its cm_id.
 * @ev: the REP event.
 *
 * Unless the login asked for no RTU: an optional MRA first, then the QP to
 * RTR and RTS with the attributes the CM computed, then the RTU.
 *
 * Return: 0, or a negative errno (the login then fails and the command
 * destroys the slot, which makes the CM send a REJ).
 */
static int ibcm_rep(struct ibcm_slot *s, struct ib_cm_id *cm_id,
		    const struct ib_cm_event *ev)
{
	const struct srp_login_rsp *rsp = ev->private_data;
	unsigned long flags;
	int ret;

	if (!rsp || rsp->opcode != SRP_LOGIN_RSP)
		return -EPROTO;
	s->remote_qpn = ev->param.rep_rcvd.remote_qpn;
	s->max_it_iu_len = be32_to_cpu(rsp->max_it_iu_len);
	s->max_ti_iu_len = be32_to_cpu(rsp->max_ti_iu_len);
	s->rsp_flags = rsp->rsp_flags;
	s->req_lim = be32_to_cpu(rsp->req_lim_delta);
	if (s->no_rtu) {
		ibcm_set_state(s, ST_REP_NO_RTU);
		return 0;
	}
	if (s->mra) {
		ret = ibcm_send_mra(cm_id);
		if (ret)
			return ret;
	}
	ret = ibcm_modify_qp(cm_id, s->qp, IB_QPS_RTR);
	if (!ret)
		ret = ibcm_modify_qp(cm_id, s->qp, IB_QPS_RTS);
	if (!ret)
		ret = ib_send_cm_rtu(cm_id, NULL, 0);
	if (ret)
		return ret;
	spin_lock_irqsave(&s->lock, flags);
	s->state = ST_CONNECTED;
	s->qp_rts = true;
	spin_unlock_irqrestore(&s->lock, flags);
	return 0;
}

static int ibcm_cm_handler(struct ib_cm_id *cm_id,
			   const struct ib_cm_event *ev)
{
	struct ibcm_slot *s = cm_id->context;
	const u8 *pdata = ev->private_data;
	const struct srp_login_rej *rej;
	unsigned long flags;
	int ret, bit = -1;

	switch (ev->event) {
	case IB_CM_REP_RECEIVED:
		ret = ibcm_rep(s, cm_id, ev);
		spin_lock_irqsave(&s->lock, flags);
		if (ret) {
			s->cm_err = ret;
			s->state = ST_FAILED;
		}
		s->answer = ret ? ANS_ERROR : ANS_REP;
		spin_unlock_irqrestore(&s->lock, flags);
		break;
	case IB_CM_REJ_RECEIVED:
		spin_lock_irqsave(&s->lock, flags);
		s->rej_reason = ev->param.rej_rcvd.reason;
		if (pdata && pdata[0] == SRP_LOGIN_REJ) {
			rej = ev->private_data;
			s->srp_rej = be32_to_cpu(rej->reason);
			s->srp_rej_valid = true;
		}
		s->state = ST_REJECTED;
		s->answer = ANS_REJ;
		spin_unlock_irqrestore(&s->lock, flags);
		break;
	case IB_CM_REQ_ERROR:
	case IB_CM_REP_ERROR:
		spin_lock_irqsave(&s->lock, flags);
		s->state = ST_FAILED;
		s->answer = ANS_TIMEOUT;
		spin_unlock_irqrestore(&s->lock, flags);
		break;
	case IB_CM_DREQ_RECEIVED:
		ret = ib_send_cm_drep(cm_id, NULL, 0);
		if (ret)
			pr_warn("slot %d: sending DREP failed (%d)\n",
				s->idx, ret);
		ibcm_set_state(s, ST_DREQ_RCVD);
		bit = EV_DREQ;
		break;
	case IB_CM_DREP_RECEIVED:
		bit = EV_DREP;
		break;
	case IB_CM_DREQ_ERROR:
		bit = EV_DREQ_ERR;
		break;
	case IB_CM_TIMEWAIT_EXIT:
		bit = EV_TIMEWAIT;
		break;
	default:
		pr_info("slot %d: CM event %d ignored\n", s->idx, ev->event);
		return 0;
	}
	if (bit >= 0) {
		if (bit != EV_DREQ)
			ibcm_set_state(s, ST_DISCONNECTED);
		set_bit(bit, &s->events);
	}
	wake_up(&s->wq);
	return 0;
}

/* ---- receiving and waiting ------------------------------------------ */

static void ibcm_parse_sense(const u8 *sns, u64 len, struct ibcm_rsp *r)
{
	if (len >= 4 && (sns[0] & 0x7f) >= 0x72) {	/* descriptor format */
		r->sense_key = sns[1] & 0xf;
		r->asc = sns[2];
		r->ascq = sns[3];
	} else if (len >= 14) {				/* fixed format */
		r->sense_key = sns[2] & 0xf;
		r->asc = sns[12];
		r->ascq = sns[13];
	}
}

/* credit an SRP_RSP and, if it answers @tag, fill @r */
static void ibcm_parse_rsp(struct ibcm_slot *s, const u8 *iu, u32 len,
			   u64 tag, struct ibcm_rsp *r)
{
	const struct srp_rsp *rsp = (const void *)iu;
	u32 rsp_len = 0;
	u64 off;

	s->req_lim += be32_to_cpu(rsp->req_lim_delta);
	if (rsp->tag != tag) {
		pr_info("slot %d: response to tag %llu ignored\n", s->idx,
			(u64)rsp->tag);
		return;
	}
	r->found = true;
	r->status = rsp->status;
	r->flags = rsp->flags;
	if (r->flags & SRP_RSP_FLAG_DIUNDER)
		r->resid = be32_to_cpu(rsp->data_in_res_cnt);
	else if (r->flags & SRP_RSP_FLAG_DIOVER)
		r->resid = -(s64)be32_to_cpu(rsp->data_in_res_cnt);
	else if (r->flags & SRP_RSP_FLAG_DOUNDER)
		r->resid = be32_to_cpu(rsp->data_out_res_cnt);
	else if (r->flags & SRP_RSP_FLAG_DOOVER)
		r->resid = -(s64)be32_to_cpu(rsp->data_out_res_cnt);
	if (r->flags & SRP_RSP_FLAG_RSPVALID) {
		rsp_len = be32_to_cpu(rsp->resp_data_len);
		if (rsp_len >= 4 && sizeof(*rsp) + 4 <= len)
			r->rsp_code = rsp->data[3];
	}
	off = sizeof(*rsp) + (u64)rsp_len;
	if ((r->flags & SRP_RSP_FLAG_SNSVALID) && off < len)
		ibcm_parse_sense(iu + off,
				 min_t(u64, be32_to_cpu(rsp->sense_data_len),
				       len - off), r);
}

/* answer an SRP_CRED_REQ or SRP_AER_REQ (both responses: opcode + tag) */
static void ibcm_reply(struct ibcm_slot *s, u8 opcode, u64 tag)
{
	struct ibcm_tx *tx = &s->tx[TX_REPLY];
	struct srp_cred_rsp *rsp = tx->buf;
	int ret;

	ret = ibcm_tx_get(s, tx);
	if (!ret) {
		memset(rsp, 0, sizeof(*rsp));
		rsp->opcode = opcode;
		rsp->tag = tag;
		ret = ibcm_post_send(s, tx, sizeof(*rsp));
	}
	if (ret)
		pr_warn("slot %d: response %#x not sent (%d)\n", s->idx,
			opcode, ret);
}

static void ibcm_handle_iu(struct ibcm_slot *s, struct ibcm_rx *rx,
			   u64 tag, struct ibcm_rsp *r)
{
	const struct srp_cred_req *req = rx->buf;
	const u8 *iu = rx->buf;
	u32 len = rx->len;

	if (!len) {
		pr_warn("slot %d: empty IU\n", s->idx);
		return;
	}
	switch (iu[0]) {
	case SRP_RSP:
		if (len < sizeof(struct srp_rsp))
			break;
		ibcm_parse_rsp(s, iu, len, tag, r);
		return;
	case SRP_CRED_REQ:
	case SRP_AER_REQ:	/* same offsets of req_lim_delta and tag */
		if (len < sizeof(*req))
			break;
		s->req_lim += be32_to_cpu(req->req_lim_delta);
		ibcm_reply(s, iu[0] == SRP_CRED_REQ ? SRP_CRED_RSP :
			   SRP_AER_RSP, req->tag);
		return;
	case SRP_T_LOGOUT:
		pr_info("slot %d: SRP_T_LOGOUT received\n", s->idx);
		return;
	default:
		pr_warn("slot %d: IU with opcode %#x ignored\n", s->idx, iu[0]);
		return;
	}
	pr_warn("slot %d: short IU (opcode %#x, %u bytes)\n", s->idx, iu[0],
		len);
}

/* parse and repost every received IU; @tag is the awaited response */
static void ibcm_drain_rx(struct ibcm_slot *s, u64 tag, struct ibcm_rsp *r)
{
	struct ibcm_rx *rx;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&s->lock, flags);
		rx = list_first_entry_or_null(&s->rx_ready, struct ibcm_rx,
					      entry);
		if (rx)
			list_del(&rx->entry);
		spin_unlock_irqrestore(&s->lock, flags);
		if (!rx)
			break;
		ib_dma_sync_single_for_cpu(s->dev, rx->dma, IBCM_RX_SIZE,
					   DMA_FROM_DEVICE);
		ibcm_handle_iu(s, rx, tag, r);
		if (ibcm_post_recv(s, rx))
			pr_warn("slot %d: reposting a receive failed\n",
				s->idx);
	}
}

/* first failed completion status, or IB_WC_SUCCESS */
static enum ib_wc_status ibcm_wc_failed(struct ibcm_slot *s)
{
	enum ib_wc_status st = IB_WC_SUCCESS;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	if (s->wc_errors)
		st = s->wc_status;
	spin_unlock_irqrestore(&s->lock, flags);
	return st;
}

static bool ibcm_io_event(struct ibcm_slot *s)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&s->lock, flags);
	ret = !list_empty(&s->rx_ready) || s->wc_errors;
	spin_unlock_irqrestore(&s->lock, flags);
	return ret;
}

/* wait up to 30 s for the response to @tag: 0, -ETIMEDOUT or -EIO */
static int ibcm_wait_rsp(struct ibcm_slot *s, u64 tag, struct ibcm_rsp *r)
{
	unsigned long deadline = jiffies + IBCM_WAIT;
	long left;

	for (;;) {
		ibcm_drain_rx(s, tag, r);
		if (r->found)
			return 0;
		if (ibcm_wc_failed(s) != IB_WC_SUCCESS)
			return -EIO;
		left = (long)(deadline - jiffies);
		if (left <= 0)
			return -ETIMEDOUT;
		wait_event_timeout(s->wq, ibcm_io_event(s), left);
	}
}

/* the result line of a failed I/O or TMF command */
static void ibcm_io_error(struct ibcm_slot *s, int err)
{
	enum ib_wc_status st = ibcm_wc_failed(s);

	if (err == -ETIMEDOUT)
		ibcm_result("timeout slot=%d\n", s->idx);
	else if (err == -EIO && st != IB_WC_SUCCESS)
		ibcm_result("error slot=%d err=-EIO wc=%s\n", s->idx,
			    ib_wc_status_msg(st));
	else
		ibcm_result("error slot=%d err=%pe\n", s->idx, ERR_PTR(err));
}

/**
 * ibcm_ready() - may the slot send a request IU now?
 * @s: the slot.
 *
 * Needs no failed completion, a QP in RTS and a credit, after crediting
 * whatever arrived since the last command.
 * Return: 0, or the error for the result line.
 */
static int ibcm_ready(struct ibcm_slot *s)
{
	struct ibcm_rsp none = {};

	if (ibcm_wc_failed(s) != IB_WC_SUCCESS)
		return -EIO;
	if (!READ_ONCE(s->qp_rts))
		return -ENOTCONN;
	ibcm_drain_rx(s, 0, &none);
	if (s->req_lim <= 0)
		return -EAGAIN;
	return ibcm_tx_get(s, &s->tx[TX_CMD]);
}

/* ---- path and GID --------------------------------------------------- */

/* the gid_index GID, else the first IPv4-mapped RoCE v2 GID, else the
 * first RoCE v2 GID, else index 0; a reference for the caller to put
 */
static const struct ib_gid_attr *ibcm_pick_gid(struct ib_device *dev)
{
	const struct ib_gid_attr *attr, *best = NULL;
	int i, rank, best_rank = -1;

	if (gid_index >= 0)
		return rdma_get_gid_attr(dev, IBCM_PORT, gid_index);
	for (i = 0; best_rank < 2; i++) {
		attr = rdma_get_gid_attr(dev, IBCM_PORT, i);
		if (IS_ERR(attr)) {
			if (PTR_ERR(attr) == -EINVAL)	/* past the table */
				break;
			continue;
		}
		if (attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
			rank = i == 0 ? 0 : -1;
		else if (ipv6_addr_v4mapped((const struct in6_addr *)
					    attr->gid.raw))
			rank = 2;
		else
			rank = 1;
		if (rank > best_rank) {
			if (best)
				rdma_put_gid_attr(best);
			best = attr;
			best_rank = rank;
		} else {
			rdma_put_gid_attr(attr);
		}
	}
	return best ? best : ERR_PTR(-ENODATA);
}

/**
 * ibcm_path() - build the loopback path record (source GID = destination)
 * @dev: the device.
 * @path: filled in; routed, with the netdev's own MAC as dmac (rxe loops
 *	back only frames sent to that MAC).
 * @bad_dmac: use that MAC with its last byte complemented instead, a MAC
 *	that is surely not the netdev's: the REQ is lost.
 *
 * Return: the source GID attribute (a reference the caller puts after
 * ib_send_cm_req()/ib_send_cm_sidr_req()), or an ERR_PTR.
 */
static const struct ib_gid_attr *ibcm_path(struct ib_device *dev,
					   struct sa_path_rec *path,
					   bool bad_dmac)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	u8 mac[ETH_ALEN];
	int ret = 0;

	attr = ibcm_pick_gid(dev);
	if (IS_ERR(attr))
		return attr;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (IS_ERR(ndev))
		ret = PTR_ERR(ndev);
	else
		memcpy(mac, ndev->dev_addr, ETH_ALEN);
	rcu_read_unlock();
	if (ret) {
		rdma_put_gid_attr(attr);
		return ERR_PTR(ret);
	}
	if (bad_dmac)
		mac[ETH_ALEN - 1] ^= 0xff;

	memset(path, 0, sizeof(*path));
	path->rec_type = attr->gid_type == IB_GID_TYPE_ROCE ?
			 SA_PATH_REC_TYPE_ROCE_V1 : SA_PATH_REC_TYPE_ROCE_V2;
	path->sgid = attr->gid;
	path->dgid = attr->gid;
	path->pkey = cpu_to_be16(0xffff);
	path->mtu_selector = IB_SA_EQ;
	path->mtu = IB_MTU_1024;
	path->rate_selector = IB_SA_EQ;
	path->rate = IB_RATE_10_GBPS;
	path->packet_life_time_selector = IB_SA_EQ;
	path->packet_life_time = 14;
	path->hop_limit = 64;
	path->reversible = 1;
	path->numb_path = 1;
	sa_path_set_dmac(path, mac);
	path->roce.route_resolved = true;
	return attr;
}

/* ---- commands ------------------------------------------------------- */

enum ibcm_key {
	K_SLOT, K_GUID, K_SID, K_ID_EXT, K_IOC_GUID, K_INIT_EXT, K_IT_IU_LEN,
	K_MULTI, K_IMM, K_PDATA, K_NO_RTU, K_MRA, K_QPN_OF, K_DMAC, K_RETRIES,
	K_LUN, K_LBA, K_LEN, K_FMT, K_NDESC, K_SEED, K_VERIFY, K_FUNC,
	K_TASK_TAG, K_TIMEOUT_MS, K_NR
};

enum { PDATA_OK, PDATA_SHORT, PDATA_GARBAGE, PDATA_BADOP };
enum { FMT_DIRECT, FMT_INDIRECT, FMT_IMM };
enum { OP_NONE, OP_TUR, OP_READ, OP_WRITE };

static const char * const ibcm_pdata_words[] = {
	"ok", "short", "garbage", "badop", NULL };
static const char * const ibcm_fmt_words[] = {
	"direct", "indirect", "imm", NULL };
static const char * const ibcm_dmac_words[] = { "good", "bad", NULL };
static const char * const ibcm_func_words[] = { "lun_reset", "abort", NULL };

/* option names; a value is one of @words (its index) or a number <= @max */
static const struct ibcm_keydef {
	const char		*name;
	const char * const	*words;
	u64			max;
} ibcm_keys[K_NR] = {
	[K_SLOT]	= { "slot", NULL, IBCM_SLOTS - 1 },
	[K_GUID]	= { "guid", NULL, U64_MAX },
	[K_SID]		= { "sid", NULL, U64_MAX },
	[K_ID_EXT]	= { "id_ext", NULL, U64_MAX },
	[K_IOC_GUID]	= { "ioc_guid", NULL, U64_MAX },
	[K_INIT_EXT]	= { "init_ext", NULL, U64_MAX },
	[K_IT_IU_LEN]	= { "it_iu_len", NULL, U32_MAX },
	[K_MULTI]	= { "multi", NULL, 1 },
	[K_IMM]		= { "imm", NULL, 1 },
	[K_PDATA]	= { "pdata", ibcm_pdata_words, 0 },
	[K_NO_RTU]	= { "no_rtu", NULL, 1 },
	[K_MRA]		= { "mra", NULL, 1 },
	[K_QPN_OF]	= { "qpn_of", NULL, IBCM_SLOTS - 1 },
	[K_DMAC]	= { "dmac", ibcm_dmac_words, 0 },
	[K_RETRIES]	= { "retries", NULL, 15 },
	[K_LUN]		= { "lun", NULL, 255 },
	[K_LBA]		= { "lba", NULL, U32_MAX },
	[K_LEN]		= { "len", NULL, IBCM_MAX_DATA },
	[K_FMT]		= { "fmt", ibcm_fmt_words, 0 },
	[K_NDESC]	= { "ndesc", NULL, IBCM_MAX_NDESC },
	[K_SEED]	= { "seed", NULL, U64_MAX },
	[K_VERIFY]	= { "verify", NULL, 1 },
	[K_FUNC]	= { "func", ibcm_func_words, 0 },
	[K_TASK_TAG]	= { "task_tag", NULL, U64_MAX },
	[K_TIMEOUT_MS]	= { "timeout_ms", NULL, 600000 },
};

struct ibcm_args {
	u64	v[K_NR];
	u32	given;		/* BIT(key) of every option given */
};

static bool ibcm_has(const struct ibcm_args *a, enum ibcm_key k)
{
	return a->given & BIT(k);
}

static u64 ibcm_arg(const struct ibcm_args *a, enum ibcm_key k, u64 def)
{
	return ibcm_has(a, k) ? a->v[k] : def;
}

static int ibcm_bad(const char *why)
{
	pr_warn("command refused: %s\n", why);
	return -EINVAL;
}

/* the slot named by slot=N: -EINVAL without slot=, -ENOENT if free */
static int ibcm_get_slot(const struct ibcm_args *a, struct ibcm_slot **sp)
{
	if (!ibcm_has(a, K_SLOT))
		return ibcm_bad("slot= is required");
	*sp = ibcm_slots[a->v[K_SLOT]];
	if (*sp)
		return 0;
	pr_warn("slot %llu is free\n", a->v[K_SLOT]);
	return -ENOENT;
}

/* the SRP_LOGIN_REQ of a login command */
static void ibcm_login_req(struct srp_login_req *req,
			   const struct ibcm_args *a,
			   const struct ib_gid_attr *attr, u64 guid)
{
	memset(req, 0, sizeof(*req));
	req->opcode = ibcm_arg(a, K_PDATA, PDATA_OK) == PDATA_BADOP ?
		      SRP_CMD : SRP_LOGIN_REQ;
	req->tag = ++ibcm_tag;
	req->req_it_iu_len = cpu_to_be32(ibcm_arg(a, K_IT_IU_LEN,
						  IBCM_DEF_IT_IU_LEN));
	req->req_buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT |
				       SRP_BUF_FORMAT_INDIRECT);
	req->req_flags = ibcm_arg(a, K_MULTI, 0) ? SRP_MULTICHAN_MULTI :
			 SRP_MULTICHAN_SINGLE;
	if (ibcm_arg(a, K_IMM, 1)) {
		req->req_flags |= SRP_IMMED_REQUESTED;
		req->imm_data_offset = cpu_to_be16(IBCM_IMM_OFFSET);
	}
	ibcm_put_be64(req->initiator_port_id, ibcm_arg(a, K_INIT_EXT, 0));
	memcpy(req->initiator_port_id + 8, attr->gid.raw + 8, 8);
	ibcm_put_be64(req->target_port_id, ibcm_arg(a, K_ID_EXT, guid));
	ibcm_put_be64(req->target_port_id + 8,
		      ibcm_arg(a, K_IOC_GUID, guid));
	if (ibcm_arg(a, K_PDATA, PDATA_OK) == PDATA_GARBAGE)
		get_random_bytes(req, sizeof(*req));
}

static int ibcm_cmd_login(const struct ibcm_args *a, int op)
{
	struct ib_device *dev = ibcm_dev;
	u64 guid = ibcm_arg(a, K_GUID, be64_to_cpu(dev->node_guid));
	struct ib_cm_req_param p = {};
	const struct ib_gid_attr *attr;
	struct srp_login_req req;
	struct ibcm_slot *s = NULL;
	struct sa_path_rec path;
	int idx = 0, ret;
	char tail[40];

	if (ibcm_has(a, K_SLOT)) {
		idx = a->v[K_SLOT];
		if (ibcm_slots[idx]) {
			pr_warn("slot %d is in use\n", idx);
			return -EBUSY;
		}
	} else {
		while (idx < IBCM_SLOTS && ibcm_slots[idx])
			idx++;
		if (idx == IBCM_SLOTS) {
			pr_warn("all slots are in use\n");
			return -EBUSY;
		}
	}
	if (ibcm_has(a, K_QPN_OF) && !ibcm_slots[a->v[K_QPN_OF]]) {
		pr_warn("qpn_of: slot %llu is free\n", a->v[K_QPN_OF]);
		return -ENOENT;
	}

	ret = ibcm_slot_create(dev, idx, &s);
	if (ret)
		goto fail;
	s->no_rtu = ibcm_arg(a, K_NO_RTU, 0);
	s->mra = ibcm_arg(a, K_MRA, 0);
	attr = ibcm_path(dev, &path, ibcm_arg(a, K_DMAC, 0));
	if (IS_ERR(attr)) {
		ret = PTR_ERR(attr);
		goto fail;
	}
	ibcm_login_req(&req, a, attr, guid);

	p.primary_path = &path;
	p.ppath_sgid_attr = attr;
	p.service_id = cpu_to_be64(ibcm_arg(a, K_SID, guid));
	p.qp_num = ibcm_has(a, K_QPN_OF) ?
		   ibcm_slots[a->v[K_QPN_OF]]->qp->qp_num : s->qp->qp_num;
	p.qp_type = IB_QPT_RC;
	p.starting_psn = get_random_u32() & 0xffffff;
	p.private_data = &req;
	p.private_data_len = ibcm_arg(a, K_PDATA, PDATA_OK) == PDATA_SHORT ?
			     8 : sizeof(req);
	p.responder_resources = 4;
	p.initiator_depth = 4;
	p.remote_cm_response_timeout = 18;
	p.local_cm_response_timeout = 18;
	p.flow_control = 1;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	p.max_cm_retries = ibcm_arg(a, K_RETRIES, 3);
	ret = ib_send_cm_req(s->cm_id, &p);
	rdma_put_gid_attr(attr);
	if (ret)
		goto fail;

	wait_event_timeout(s->wq, ibcm_get_answer(s) != ANS_NONE, IBCM_WAIT);
	switch (ibcm_get_answer(s)) {
	case ANS_REP:
		scnprintf(tail, sizeof(tail), "req_lim=%d rsp_flags=0x%x",
			  s->req_lim, s->rsp_flags);
		ibcm_result("rep slot=%d qpn=%u max_it_iu_len=%u max_ti_iu_len=%u %s\n",
			    idx, s->remote_qpn, s->max_it_iu_len,
			    s->max_ti_iu_len, tail);
		return 0;
	case ANS_REJ:
		if (s->srp_rej_valid)
			ibcm_result("rej slot=%d cm_reason=%d srp_reason=0x%x\n",
				    idx, s->rej_reason, s->srp_rej);
		else
			ibcm_result("rej slot=%d cm_reason=%d srp_reason=none\n",
				    idx, s->rej_reason);
		break;
	case ANS_ERROR:
		ibcm_result("error slot=%d err=%pe\n", idx, ERR_PTR(s->cm_err));
		break;
	default:
		ibcm_result("timeout slot=%d\n", idx);
		break;
	}
	ibcm_slot_destroy(s);
	return 0;
fail:
	ibcm_result("error slot=%d err=%pe\n", idx, ERR_PTR(ret));
	if (s)
		ibcm_slot_destroy(s);
	return 0;
}

static void ibcm_set_lun(struct scsi_lun *lun, u64 l)
{
	memset(lun, 0, sizeof(*lun));
	lun->scsi_lun[1] = l;
}

static u8 *ibcm_put_desc(u8 *p, u64 va, u32 key, u32 len)
{
	struct srp_direct_buf desc = {
		.va = cpu_to_be64(va),
		.key = cpu_to_be32(key),
		.len = cpu_to_be32(len),
	};

	memcpy(p, &desc, sizeof(desc));
	return p + sizeof(desc);
}

/* length of an SRP_CMD IU with these data descriptors */
static u32 ibcm_iu_len(int fmt, u32 len, u32 ndesc)
{
	if (!len)
		return sizeof(struct srp_cmd);
	if (fmt == FMT_IMM)
		return IBCM_IMM_OFFSET + len;
	if (fmt == FMT_INDIRECT)
		return sizeof(struct srp_cmd) + sizeof(struct srp_indirect_buf) +
		       ndesc * sizeof(struct srp_direct_buf);
	return sizeof(struct srp_cmd) + sizeof(struct srp_direct_buf);
}

/**
 * ibcm_put_data() - add the data descriptors to an SRP_CMD
 * @s: the slot (its PD's global rkey, the IU's DMA address).
 * @cmd: the IU, in the slot's command send buffer.
 * @fmt: FMT_DIRECT, FMT_INDIRECT (all @ndesc descriptors in the IU) or
 *	FMT_IMM (the data follows at IBCM_IMM_OFFSET).
 * @write: data-out (high nibble of buf_fmt) rather than data-in.
 * @d: the data buffer (NULL for FMT_IMM).
 * @len: data length, a non-zero multiple of 512.
 * @ndesc: FMT_INDIRECT: number of parts, the last one takes the rest.
 * @lba: FMT_IMM: first block of the pattern.
 * @seed: FMT_IMM: pattern seed.
 */
static void ibcm_put_data(struct ibcm_slot *s, struct srp_cmd *cmd, int fmt,
			  bool write, const struct ibcm_data *d, u32 len,
			  u32 ndesc, u64 lba, u64 seed)
{
	u32 rkey = s->pd->unsafe_global_rkey, part, off = 0, i;
	struct srp_imm_buf imm = { .len = cpu_to_be32(len) };
	u8 *p = cmd->add_data, code, cnt = 0;
	__be32 total = cpu_to_be32(len);

	switch (fmt) {
	case FMT_IMM:
		memcpy(p, &imm, sizeof(imm));
		ibcm_fill((u8 *)cmd + IBCM_IMM_OFFSET, lba, len, seed, 0);
		code = SRP_DATA_DESC_IMM;
		break;
	case FMT_INDIRECT:
		p = ibcm_put_desc(p, s->tx[TX_CMD].dma + sizeof(*cmd) +
				  sizeof(struct srp_indirect_buf), rkey,
				  ndesc * sizeof(struct srp_direct_buf));
		memcpy(p, &total, sizeof(total));
		p += sizeof(total);
		part = len / IBCM_BLOCK / ndesc * IBCM_BLOCK;
		for (i = 0; i < ndesc; i++) {
			u32 n = i == ndesc - 1 ? len - off : part;

			p = ibcm_put_desc(p, d->dma + off, rkey, n);
			off += n;
		}
		code = SRP_DATA_DESC_INDIRECT;
		cnt = ndesc;
		break;
	default:
		ibcm_put_desc(p, d->dma, rkey, len);
		code = SRP_DATA_DESC_DIRECT;
		break;
	}
	if (write) {
		cmd->buf_fmt = code << 4;
		cmd->data_out_desc_cnt = cnt;
	} else {
		cmd->buf_fmt = code;
		cmd->data_in_desc_cnt = cnt;
	}
}

/* first byte of @buf that differs from the pattern, or -1 */
static s64 ibcm_verify(const u8 *buf, u64 lba, u32 len, u64 seed)
{
	u64 base = lba * IBCM_BLOCK;
	u32 i;

	for (i = 0; i < len; i++)
		if (buf[i] != ibcm_pattern(base + i, seed))
			return i;
	return -1;
}

/* tur, read and write */
static int ibcm_cmd_io(const struct ibcm_args *a, int op)
{
	u32 len = ibcm_arg(a, K_LEN, 0), ndesc = ibcm_arg(a, K_NDESC, 4);
	u64 lba = ibcm_arg(a, K_LBA, 0), seed = ibcm_arg(a, K_SEED, 0);
	int fmt = ibcm_arg(a, K_FMT, FMT_DIRECT), ret;
	struct ibcm_rsp r = { .rsp_code = -1, .sense_key = -1 };
	char verify[32] = "-", sense[16] = "-";
	struct ibcm_data *d = NULL;
	struct ibcm_slot *s;
	struct srp_cmd *cmd;
	__be32 lba32;
	__be16 nblk;
	u32 iu_len;
	s64 bad;
	u64 tag;

	if (op != OP_TUR && (!ibcm_has(a, K_LBA) || !ibcm_has(a, K_LEN)))
		return ibcm_bad("lba= and len= are required");
	if (len % IBCM_BLOCK)
		return ibcm_bad("len must be a multiple of 512");
	if (fmt == FMT_IMM && op != OP_WRITE)
		return ibcm_bad("fmt=imm is for writes only");
	if (fmt == FMT_INDIRECT && len && (!ndesc || len / IBCM_BLOCK < ndesc))
		return ibcm_bad("ndesc must be 1 .. len/512");
	ret = ibcm_get_slot(a, &s);
	if (ret)
		return ret;

	iu_len = ibcm_iu_len(fmt, len, ndesc);
	ret = ibcm_ready(s);
	if (!ret && fmt == FMT_IMM && len &&
	    !(s->rsp_flags & SRP_LOGIN_RSP_IMMED_SUPP))
		ret = -EOPNOTSUPP;
	if (!ret && (iu_len > s->max_it_iu_len || iu_len > IBCM_TX_SIZE))
		ret = -EMSGSIZE;
	if (!ret && len && fmt != FMT_IMM) {
		d = ibcm_data_alloc(s, len, lba, seed, op == OP_WRITE);
		if (!d)
			ret = -ENOMEM;
	}
	if (ret) {
		ibcm_io_error(s, ret);
		return 0;
	}

	tag = ++ibcm_tag;
	cmd = s->tx[TX_CMD].buf;
	memset(cmd, 0, sizeof(*cmd) + sizeof(struct srp_indirect_buf));
	cmd->opcode = SRP_CMD;
	cmd->tag = tag;
	ibcm_set_lun(&cmd->lun, ibcm_arg(a, K_LUN, 0));
	if (op == OP_TUR) {
		cmd->cdb[0] = TEST_UNIT_READY;
	} else {
		cmd->cdb[0] = op == OP_WRITE ? WRITE_10 : READ_10;
		lba32 = cpu_to_be32(lba);
		nblk = cpu_to_be16(len / IBCM_BLOCK);
		memcpy(&cmd->cdb[2], &lba32, sizeof(lba32));
		memcpy(&cmd->cdb[7], &nblk, sizeof(nblk));
	}
	if (len)
		ibcm_put_data(s, cmd, fmt, op == OP_WRITE, d, len, ndesc,
			      lba, seed);
	ret = ibcm_post_send(s, &s->tx[TX_CMD], iu_len);
	if (ret) {
		if (d)
			ibcm_data_free(s, d);
		ibcm_io_error(s, ret);
		return 0;
	}
	s->req_lim--;
	s->last_tag = tag;

	ret = ibcm_wait_rsp(s, tag, &r);
	if (ret) {
		/* the target may still access the buffer: keep it */
		if (d)
			list_add_tail(&d->entry, &s->stale);
		ibcm_io_error(s, ret);
		return 0;
	}
	if (op == OP_READ && d && ibcm_arg(a, K_VERIFY, 1) &&
	    r.status == SAM_STAT_GOOD) {
		if (r.flags & SRP_RSP_FLAG_DIUNDER)
			len -= min_t(u64, r.resid, len);
		ib_dma_sync_single_for_cpu(s->dev, d->dma, d->len,
					   DMA_BIDIRECTIONAL);
		bad = ibcm_verify(d->buf, lba, len, seed);
		if (bad < 0)
			strscpy(verify, "ok", sizeof(verify));
		else
			scnprintf(verify, sizeof(verify), "mismatch@%llu",
				  lba * IBCM_BLOCK + bad);
	}
	if (d)
		ibcm_data_free(s, d);
	if (r.sense_key >= 0)
		scnprintf(sense, sizeof(sense), "%x/%02x/%02x", r.sense_key,
			  r.asc, r.ascq);
	ibcm_result("rsp slot=%d tag=%llu status=0x%02x sense=%s resid=%lld req_lim=%d verify=%s\n",
		    s->idx, tag, r.status, sense, r.resid, s->req_lim, verify);
	return 0;
}

static int ibcm_cmd_tmf(const struct ibcm_args *a, int op)
{
	struct ibcm_rsp r = { .rsp_code = -1, .sense_key = -1 };
	struct srp_tsk_mgmt *tm;
	struct ibcm_slot *s;
	int ret;
	u64 tag;

	ret = ibcm_get_slot(a, &s);
	if (ret)
		return ret;
	ret = ibcm_ready(s);
	if (ret) {
		ibcm_io_error(s, ret);
		return 0;
	}
	tag = ++ibcm_tag;
	tm = s->tx[TX_CMD].buf;
	memset(tm, 0, sizeof(*tm));
	tm->opcode = SRP_TSK_MGMT;
	tm->tag = tag;
	ibcm_set_lun(&tm->lun, ibcm_arg(a, K_LUN, 0));
	tm->tsk_mgmt_func = ibcm_arg(a, K_FUNC, 0) ? SRP_TSK_ABORT_TASK :
			    SRP_TSK_LUN_RESET;
	tm->task_tag = ibcm_arg(a, K_TASK_TAG, s->last_tag);
	ret = ibcm_post_send(s, &s->tx[TX_CMD], sizeof(*tm));
	if (!ret) {
		s->req_lim--;
		ret = ibcm_wait_rsp(s, tag, &r);
	}
	if (ret)
		ibcm_io_error(s, ret);
	else if (r.rsp_code < 0)
		ibcm_result("tmf slot=%d status=0x%02x rsp_code=-\n", s->idx,
			    r.status);
	else
		ibcm_result("tmf slot=%d status=0x%02x rsp_code=0x%02x\n",
			    s->idx, r.status, r.rsp_code);
	return 0;
}

static bool ibcm_disconnected(struct ibcm_slot *s)
{
	return test_bit(EV_DREP, &s->events) ||
	       test_bit(EV_DREQ_ERR, &s->events) ||
	       test_bit(EV_TIMEWAIT, &s->events);
}

static int ibcm_cmd_logout(const struct ibcm_args *a, int op)
{
	struct ibcm_slot *s;
	int ret;

	ret = ibcm_get_slot(a, &s);
	if (ret)
		return ret;
	if (test_bit(EV_DREQ, &s->events)) {
		ibcm_result("logout slot=%d already_disconnected\n", s->idx);
		goto out;
	}
	ret = ib_send_cm_dreq(s->cm_id, NULL, 0);
	if (ret) {
		ibcm_result("error slot=%d err=%pe\n", s->idx, ERR_PTR(ret));
		goto out;
	}
	ibcm_set_state(s, ST_DISCONNECTING);
	wait_event_timeout(s->wq, ibcm_disconnected(s), IBCM_WAIT);
	if (test_bit(EV_DREP, &s->events) || test_bit(EV_TIMEWAIT, &s->events))
		ibcm_result("logout slot=%d drep\n", s->idx);
	else if (test_bit(EV_DREQ_ERR, &s->events))
		ibcm_result("logout slot=%d dreq_error\n", s->idx);
	else
		ibcm_result("logout slot=%d timeout\n", s->idx);
out:
	ibcm_slot_destroy(s);
	return 0;
}

static int ibcm_cmd_wait_dreq(const struct ibcm_args *a, int op)
{
	unsigned long ms = ibcm_arg(a, K_TIMEOUT_MS, 30000);
	struct ibcm_slot *s;
	int ret;

	ret = ibcm_get_slot(a, &s);
	if (ret)
		return ret;
	if (wait_event_timeout(s->wq, test_bit(EV_DREQ, &s->events),
			       msecs_to_jiffies(ms)))
		ibcm_result("dreq slot=%d\n", s->idx);
	else
		ibcm_result("timeout slot=%d\n", s->idx);
	return 0;
}

static int ibcm_cmd_destroy(const struct ibcm_args *a, int op)
{
	struct ibcm_slot *s;
	int ret;

	ret = ibcm_get_slot(a, &s);
	if (ret)
		return ret;
	ibcm_result("destroyed slot=%d\n", s->idx);
	ibcm_slot_destroy(s);
	return 0;
}

struct ibcm_sidr {
	struct completion	done;
	bool			timeout;
	int			status;
	u32			qpn;
};

static int ibcm_sidr_handler(struct ib_cm_id *cm_id,
			     const struct ib_cm_event *ev)
{
	struct ibcm_sidr *r = cm_id->context;

	switch (ev->event) {
	case IB_CM_SIDR_REP_RECEIVED:
		r->status = ev->param.sidr_rep_rcvd.status;
		r->qpn = ev->param.sidr_rep_rcvd.qpn;
		break;
	case IB_CM_SIDR_REQ_ERROR:
		r->timeout = true;
		break;
	default:
		pr_info("SIDR: CM event %d ignored\n", ev->event);
		return 0;
	}
	complete(&r->done);
	return 0;
}

/* SIDR_REQ on a temporary cm_id (handler context on this stack) */
static int ibcm_cmd_sidr(const struct ibcm_args *a, int op)
{
	struct ib_device *dev = ibcm_dev;
	u64 guid = ibcm_arg(a, K_GUID, be64_to_cpu(dev->node_guid));
	struct ib_cm_sidr_req_param p = {};
	const struct ib_gid_attr *attr;
	struct ibcm_sidr r = {};
	struct ib_cm_id *cm_id;
	struct sa_path_rec path;
	u8 pdata[8] = {};
	int ret;

	init_completion(&r.done);
	cm_id = ib_create_cm_id(dev, ibcm_sidr_handler, &r);
	if (IS_ERR(cm_id)) {
		ibcm_result("error err=%pe\n", cm_id);
		return 0;
	}
	attr = ibcm_path(dev, &path, false);
	if (IS_ERR(attr)) {
		ret = PTR_ERR(attr);
		goto out;
	}
	p.path = &path;
	p.sgid_attr = attr;
	p.service_id = cpu_to_be64(ibcm_arg(a, K_SID, guid));
	p.timeout_ms = ibcm_arg(a, K_TIMEOUT_MS, 1000);
	p.private_data = pdata;
	p.private_data_len = sizeof(pdata);
	p.max_cm_retries = 2;
	ret = ib_send_cm_sidr_req(cm_id, &p);
	rdma_put_gid_attr(attr);
	if (ret)
		goto out;
	if (!wait_for_completion_timeout(&r.done, IBCM_WAIT) || r.timeout)
		ibcm_result("sidr timeout\n");
	else
		ibcm_result("sidr_rep status=%d qpn=%u\n", r.status, r.qpn);
out:
	if (ret)
		ibcm_result("error err=%pe\n", ERR_PTR(ret));
	ib_destroy_cm_id(cm_id);
	return 0;
}

static int ibcm_cmd_status(const struct ibcm_args *a, int op)
{
	char line[sizeof(ibcm_res)];
	unsigned long flags;
	int i, n;

	n = scnprintf(line, sizeof(line), "slots");
	for (i = 0; i < IBCM_SLOTS; i++) {
		struct ibcm_slot *s = ibcm_slots[i];
		enum ibcm_state st;

		if (!s)
			continue;
		spin_lock_irqsave(&s->lock, flags);
		st = s->state;
		spin_unlock_irqrestore(&s->lock, flags);
		n += scnprintf(line + n, sizeof(line) - n, " %d:%s", i,
			       ibcm_state_names[st]);
	}
	ibcm_result("%s\n", line);
	return 0;
}

#define IBCM_IO_KEYS	(BIT(K_SLOT) | BIT(K_LBA) | BIT(K_LEN) | \
			 BIT(K_FMT) | BIT(K_NDESC) | BIT(K_SEED) | BIT(K_LUN))

static const struct ibcm_cmd {
	const char	*name;
	u32		keys;
	int		op;
	bool		need_dev;
	int		(*fn)(const struct ibcm_args *a, int op);
} ibcm_cmds[] = {
	{ "login", BIT(K_SLOT) | BIT(K_GUID) | BIT(K_SID) | BIT(K_ID_EXT) |
	  BIT(K_IOC_GUID) | BIT(K_INIT_EXT) | BIT(K_IT_IU_LEN) |
	  BIT(K_MULTI) | BIT(K_IMM) | BIT(K_PDATA) | BIT(K_NO_RTU) |
	  BIT(K_MRA) | BIT(K_QPN_OF) | BIT(K_DMAC) | BIT(K_RETRIES),
	  OP_NONE, true, ibcm_cmd_login },
	{ "tur", BIT(K_SLOT) | BIT(K_LUN), OP_TUR, true, ibcm_cmd_io },
	{ "write", IBCM_IO_KEYS, OP_WRITE, true, ibcm_cmd_io },
	{ "read", IBCM_IO_KEYS | BIT(K_VERIFY), OP_READ, true, ibcm_cmd_io },
	{ "tmf", BIT(K_SLOT) | BIT(K_FUNC) | BIT(K_TASK_TAG) | BIT(K_LUN),
	  OP_NONE, true, ibcm_cmd_tmf },
	{ "logout", BIT(K_SLOT), OP_NONE, true, ibcm_cmd_logout },
	{ "wait_dreq", BIT(K_SLOT) | BIT(K_TIMEOUT_MS), OP_NONE, true,
	  ibcm_cmd_wait_dreq },
	{ "destroy", BIT(K_SLOT), OP_NONE, true, ibcm_cmd_destroy },
	{ "sidr", BIT(K_GUID) | BIT(K_SID) | BIT(K_TIMEOUT_MS), OP_NONE, true,
	  ibcm_cmd_sidr },
	{ "status", 0, OP_NONE, false, ibcm_cmd_status },
};

static char *ibcm_word(char **line)
{
	char *w;

	do {
		w = strsep(line, " \t\n");
	} while (w && !*w);
	return w;
}

/* one option value: an index into @kd->words or a number <= @kd->max */
static int ibcm_value(const struct ibcm_keydef *kd, const char *val, u64 *v)
{
	int i;

	if (kd->words) {
		i = match_string(kd->words, -1, val);
		*v = i;
		return i < 0 ? -EINVAL : 0;
	}
	if (kstrtou64(val, 0, v) || *v > kd->max)
		return -EINVAL;
	return 0;
}

/* parse a command line into *@cmdp and @a; -EINVAL with a warning */
static int ibcm_parse(char *line, const struct ibcm_cmd **cmdp,
		      struct ibcm_args *a)
{
	const struct ibcm_cmd *cmd = NULL;
	unsigned int i, k;
	char *w, *val;

	w = ibcm_word(&line);
	if (!w)
		return ibcm_bad("empty command");
	for (i = 0; i < ARRAY_SIZE(ibcm_cmds) && !cmd; i++)
		if (!strcmp(w, ibcm_cmds[i].name))
			cmd = &ibcm_cmds[i];
	if (!cmd) {
		pr_warn("unknown command '%s'\n", w);
		return -EINVAL;
	}
	while ((w = ibcm_word(&line))) {
		val = strchr(w, '=');
		if (val)
			*val++ = '\0';
		for (k = 0; k < K_NR; k++)
			if (!strcmp(w, ibcm_keys[k].name))
				break;
		if (!val || k == K_NR || !(cmd->keys & BIT(k))) {
			pr_warn("%s: unknown option '%s'\n", cmd->name, w);
			return -EINVAL;
		}
		if (ibcm_value(&ibcm_keys[k], val, &a->v[k])) {
			pr_warn("%s: bad value '%s' of %s\n", cmd->name, val, w);
			return -EINVAL;
		}
		a->given |= BIT(k);
	}
	*cmdp = cmd;
	return 0;
}

static ssize_t ibcm_ctl_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	const struct ibcm_cmd *cmd;
	struct ibcm_args a = {};
	char line[256];
	int ret;

	if (count >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, ubuf, count))
		return -EFAULT;
	line[count] = '\0';
	ret = mutex_lock_killable(&ibcm_mutex);
	if (ret)
		return ret;
	ret = ibcm_parse(line, &cmd, &a);
	if (!ret && cmd->need_dev && !ibcm_dev) {
		ibcm_result("error nodev\n");
		ret = -ENODEV;
	} else if (!ret) {
		ret = cmd->fn(&a, cmd->op);
	}
	if (ret && ret != -ENODEV)
		ibcm_result("error err=%pe\n", ERR_PTR(ret));
	mutex_unlock(&ibcm_mutex);
	return ret ? ret : count;
}

static ssize_t ibcm_ctl_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	ssize_t ret;

	if (mutex_lock_killable(&ibcm_mutex))
		return -EINTR;
	ret = simple_read_from_buffer(ubuf, count, ppos, ibcm_res,
				      strlen(ibcm_res));
	mutex_unlock(&ibcm_mutex);
	return ret;
}

static const struct file_operations ibcm_ctl_fops = {
	.owner	= THIS_MODULE,
	.read	= ibcm_ctl_read,
	.write	= ibcm_ctl_write,
	.llseek	= default_llseek,
};

/* ---- IB client ------------------------------------------------------ */

static int ibcm_add_one(struct ib_device *dev)
{
	int ret = -EOPNOTSUPP;

	mutex_lock(&ibcm_mutex);
	if (!ibcm_dev && rdma_is_port_valid(dev, IBCM_PORT) &&
	    rdma_cap_ib_cm(dev, IBCM_PORT) &&
	    rdma_protocol_roce(dev, IBCM_PORT)) {
		ibcm_dev = dev;
		pr_info("using %s\n", dev_name(&dev->dev));
		ret = 0;
	}
	mutex_unlock(&ibcm_mutex);
	return ret;
}

static void ibcm_remove_one(struct ib_device *dev, void *client_data)
{
	int i;

	mutex_lock(&ibcm_mutex);
	if (dev == ibcm_dev) {
		for (i = 0; i < IBCM_SLOTS; i++)
			if (ibcm_slots[i])
				ibcm_slot_destroy(ibcm_slots[i]);
		ibcm_dev = NULL;
		pr_info("%s removed\n", dev_name(&dev->dev));
	}
	mutex_unlock(&ibcm_mutex);
}

static struct ib_client ibcm_client = {
	.name	= "srpt_ibcm_init",
	.add	= ibcm_add_one,
	.remove	= ibcm_remove_one,
};

static int __init ibcm_init(void)
{
	int ret;

	/* the IU layouts this file relies on */
	BUILD_BUG_ON(sizeof(struct srp_cmd) != 48);
	BUILD_BUG_ON(sizeof(struct srp_indirect_buf) != 20);
	BUILD_BUG_ON(sizeof(struct srp_login_req) != 64);
	ret = ib_register_client(&ibcm_client);
	if (ret)
		return ret;
	ibcm_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("ctl", 0600, ibcm_dir, NULL, &ibcm_ctl_fops);
	return 0;
}

/* debugfs first (waits for a running command), then the client, whose
 * removal callback destroys the slots
 */
static void __exit ibcm_exit(void)
{
	debugfs_remove_recursive(ibcm_dir);
	ib_unregister_client(&ibcm_client);
}

module_init(ibcm_init);
module_exit(ibcm_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test SRP initiator logging in through the IB CM (ib_srpt tests)");
