/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt.h - objects of the ib_srpt SRP target driver and the functions each
 * source file offers the others, grouped by defining file.
 *
 * Object lifetimes and the locks that protect each member are documented
 * next to the members; docs/design.md, "Objects", "References and
 * lifetimes" and "Locking" give the overview. Lock order:
 * srpt_device.sdev_mutex ->
 * srpt_port.mutex -> srpt_port_id.mutex; srpt_dev_lock (spinlock),
 * srpt_rdma_ch.spinlock and srpt_rdma_ch.wait_lock are innermost among the
 * driver's locks (under srpt_rdma_ch.spinlock the QP event handler calls
 * into the CM, which takes its own spinlock).
 */
#ifndef SRPT_H
#define SRPT_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "srpt_ch_state.h"
#include "srpt_compat.h"
#include "srpt_log.h"
#include "srpt_login.h"
#include "srpt_proto.h"
#include "srpt_stats.h"

/*
 * Limits and defaults (docs/design.md, "Limits and defaults"). The channel
 * depth bounds SRPT_{MIN,DEF,MAX}_RQ_SIZE, SRPT_SQ_SPARE_WRS and
 * SRPT_MIN_SQ_SIZE are in srpt_login.h, where the unit tests reach them.
 */
enum {
	SRPT_DEF_SQ_SIZE	= 4096,
	SRPT_MIN_SRQ_SIZE	= 4,
	/* Fewest credits a channel using the SRQ is granted (srq.c). */
	SRPT_MIN_SRQ_GRANT	= 4,
	SRPT_DEF_SRQ_SIZE	= 4095,
	SRPT_MAX_SRQ_SIZE	= 65535,
	SRPT_MIN_MAX_RSP_SIZE	= 40,
	SRPT_DEF_MAX_RSP_SIZE	= 256,
	SRPT_MAX_MAX_RSP_SIZE	= 1024,
	SRPT_MIN_MAX_RDMA_SIZE	= 65536,
	SRPT_DEF_MAX_RDMA_SIZE	= 65536,
	SRPT_MAX_MAX_RDMA_SIZE	= 1U << 24,
	SRPT_DEF_CH_DATA_MB	= 128,	/* = SRPT_MAX_CMD_DATA_LEN */
	SRPT_MAX_CH_DATA_MB	= 1U << 20,
	SRPT_DEF_ACL_DATA_MB	= 1024,	/* 8 channels at SRPT_DEF_CH_DATA_MB */
	SRPT_DEF_ACL_MAX_CH	= 64,	/* ib_srp: ch_count <= 4 per socket */
	SRPT_MAX_ACL_MAX_CH	= 65535,
	SRPT_DEF_PORT_DATA_MB	= 4096,	/* 4 such initiators */
	SRPT_DEF_CH_SPARE_KB	= 256,
	SRPT_RDMA_DEPTH		= 4,	/* responder resources, initiator depth */
	SRPT_RDMA_CM_BACKLOG	= 128,
	SRPT_NAME_LEN		= 64,
	SRPT_SESS_NAME_LEN	= 40,
	SRPT_LAST_WQE_TIMEOUT_MS = 5000,
	/*
	 * Most a configfs show handler may return: configfs refuses (and
	 * warns about) more than 4096 bytes whatever the page size.
	 */
	SRPT_CFS_SHOW_SIZE	= 4096,
};

struct srpt_device;
struct srpt_port;
struct srpt_rdma_ch;
struct srpt_cmd_desc;

/* ---------------------------------------------------------------------- */
/* Port, port name directories and TPGs                                   */
/* ---------------------------------------------------------------------- */

/**
 * struct srpt_port_attrib - per-port settings shown as TPG attributes.
 * @srp_max_rdma_size: reported in IOControllerProfile.rdma_size.
 * @srp_max_rsp_size: send buffer size of channels created from now on.
 * @srp_sq_size: send queue size of channels created from now on.
 * @srp_rq_size: depth (credits, receive ring, send contexts) of channels created
 *		 from now on; see srpt_login_rq_size().
 * @use_srq: whether channels of this HCA use the shared receive queue.
 *
 * Written by configfs stores under srpt_port.mutex; read without a lock when
 * a channel is created (a torn read is impossible for these scalars).
 */
struct srpt_port_attrib {
	u32	srp_max_rdma_size;
	u32	srp_max_rsp_size;
	u32	srp_sq_size;
	u32	srp_rq_size;
	bool	use_srq;
};

/**
 * struct srpt_port_id - one configfs port-name directory (LIO WWN).
 * @mutex: protects @tpg_list.
 * @tpg_list: srpt_tpg.entry nodes of the TPGs below this directory.
 * @wwn: LIO WWN; wwn.priv points at the srpt_port.
 * @sport: the port this directory names; holds a port reference
 *	   (srpt_port_get_ref()) from creation until srpt_port_id_destroy().
 * @name: the name the directory was created with (GUID or GID form),
 *	  returned by tpg_get_wwn(); immutable.
 * @stats_group: fabric_statistics/srpt_port, the port's counters (the same
 *		 under both names of the port); a default group of
 *		 wwn.fabric_stat_group, removed by LIO before
 *		 fabric_drop_wwn.
 */
struct srpt_port_id {
	struct mutex		mutex;		/* protects tpg_list */
	struct list_head	tpg_list;
	struct se_wwn		wwn;
	struct srpt_port	*sport;
	char			name[SRPT_NAME_LEN];
	struct config_group	stats_group;
};

/**
 * struct srpt_tpg - one TPG directory below a port name directory.
 * @entry: node in srpt_port_id.tpg_list.
 * @sport_id: the parent directory.
 * @enabled: this TPG's "enable" attribute as last written successfully;
 *	     written and read under the port's srpt_port.mutex. Logins only
 *	     create sessions in enabled TPGs, and the port accepts logins while
 *	     at least one of its TPGs (under either name) is enabled.
 * @refused_rtpi: the relative target port ID that LIO left registered when
 *		  srpt_enable_tpg() refused enable=1 (0: none); given back at
 *		  rmdir, see srpt_compat_tpg_enable_refused(). Written under
 *		  the port's srpt_port.mutex, read at rmdir.
 * @tpg: LIO portal group.
 */
struct srpt_tpg {
	struct list_head	entry;
	struct srpt_port_id	*sport_id;
	bool			enabled;
	u16			refused_rtpi;
	struct se_portal_group	tpg;
};

/* Bits of srpt_node_acl.flags. */
enum {
	/* srpt_login_warn_old_name() has warned about this ACL */
	SRPT_NACL_OLD_NAME_WARNED,
};

/**
 * struct srpt_node_acl - one ACL directory below a TPG.
 * @nacl: LIO node ACL; LIO allocates the whole structure (fabric op
 *	  node_acl_size) and frees it with the ACL directory.
 * @flags: SRPT_NACL_* bits, set atomically (test_and_set_bit()) by login
 *	   handlers that hold a session of this ACL, which keeps it alive.
 * @data_bytes: bytes of target-side data buffers the commands of all
 *		channels whose sessions belong to this ACL hold, charged
 *		against srpt_acl_data_mb like srpt_rdma_ch.data_bytes
 *		(srpt_charge_data()). Only commands of a session use it, and
 *		a session keeps its ACL allocated (LIO frees an ACL after its
 *		last session), so it is valid wherever it is charged.
 * @channels: channels with a session of this ACL, from srpt_ch_link() to
 *	      their release work (which clears srpt_rdma_ch.nacl), at most
 *	      srpt_acl_max_ch when a login links; protected by srpt_port.mutex
 *	      of the port of the ACL's TPG (an ACL's channels are all on it).
 *
 * LIO matches the ACL name against the session name (docs/design.md,
 * "Session and ACL names").
 */
struct srpt_node_acl {
	struct se_node_acl	nacl;
	unsigned long		flags;
	atomic64_t		data_bytes;
	unsigned int		channels;
};

/**
 * srpt_tpg_to_stpg() - the srpt_tpg that embeds a LIO TPG.
 * @tpg: a TPG of the srpt fabric.
 *
 * Return: the srpt_tpg.
 */
static inline struct srpt_tpg *srpt_tpg_to_stpg(struct se_portal_group *tpg)
{
	return container_of(tpg, struct srpt_tpg, tpg);
}

/**
 * struct port_and_port_id - result of srpt_lookup_port().
 * @sport: the port whose GUID or GID name matched, or NULL.
 * @port_id: the slot of the matching name (&sport->guid_id or
 *	     &sport->gid_id), or NULL.
 *
 * When @sport is not NULL the caller holds a port reference and drops it
 * with srpt_port_put_ref().
 */
struct port_and_port_id {
	struct srpt_port	*sport;
	struct srpt_port_id	**port_id;
};

/**
 * struct srpt_port - one physical port of an HCA (embedded in srpt_device).
 * @sdev: the HCA; immutable.
 * @mad_agent: DM MAD agent or NULL; owned by mad.c, changed only from the
 *	       refresh work and srpt_remove_one().
 * @mad_warned: mad.c already logged that DM is unavailable on this port;
 *	        same writers as @mad_agent.
 * @enabled: whether logins are accepted; protected by @mutex. True while
 *	     some TPG of the port is enabled (srpt_tpg.enabled), except while
 *	     a use_srq switch suspends the port and after device removal.
 * @port: 1-based port number; immutable.
 * @sm_lid: subnet manager LID, 0 after a port error.
 * @lid: port LID, 0 after a port error.
 * @gid: cached GID index 0.
 * @work: refresh work (srpt_refresh_port()), scheduled by async events.
 * @guid_name: GUID form name; written under srpt_dev_lock
 *	       (srpt_port_set_names()).
 * @guid_id: configfs directory created with a GUID form name, or NULL;
 *	     written under @mutex and srpt_dev_lock, read under either. A
 *	     port_id read under @mutex stays allocated until @mutex is dropped.
 * @gid_name: GID form name; written under srpt_dev_lock.
 * @gid_id: as @guid_id, for the GID form name.
 * @port_attrib: TPG attributes shared by every TPG of both names.
 * @ch_count: number of channels that own a LIO session on this port.
 * @ch_wq: woken when @ch_count drops to zero (srpt_release_sport()).
 * @mutex: protects @enabled, @nexus_list and every nexus ch_list, and
 *	   serializes accepting a login against disconnecting it.
 * @nexus_list: srpt_nexus.entry nodes, one per I_T nexus that has a
 *		channel (see struct srpt_nexus); RCU for readers.
 * @data_bytes: bytes of target-side data buffers the commands of all
 *		channels of the port hold, charged against srpt_port_data_mb
 *		like srpt_rdma_ch.data_bytes (srpt_charge_data()).
 * @released: the counters of the channels released so far; the release
 *	      work adds a channel's counters when it unlinks it, under
 *	      @mutex, so that the port counters (the sum of @released and of
 *	      the linked channels, read under @mutex) never count a channel
 *	      twice or lose it.
 * @stats_lock: protects @logins_accepted and @rejects. Taken in the login
 *		path and by configfs reads, never on the I/O path; innermost.
 * @logins_accepted: logins accepted on this port.
 * @rejects: login rejects by reason and the last SRPT_REJ_HISTORY of them.
 */
struct srpt_port {
	struct srpt_device	*sdev;
	struct ib_mad_agent	*mad_agent;
	bool			mad_warned;
	bool			enabled;
	u32			port;
	u32			sm_lid;
	u32			lid;
	union ib_gid		gid;
	struct work_struct	work;
	char			guid_name[SRPT_NAME_LEN];
	struct srpt_port_id	*guid_id;
	char			gid_name[SRPT_NAME_LEN];
	struct srpt_port_id	*gid_id;
	struct srpt_port_attrib	port_attrib;
	atomic_t		ch_count;
	wait_queue_head_t	ch_wq;
	struct mutex		mutex;		/* see @mutex above */
	struct list_head	nexus_list;
	atomic64_t		data_bytes;
	struct srpt_counters	released;
	spinlock_t		stats_lock;	/* see @stats_lock above */
	u64			logins_accepted;
	struct srpt_rej_history	rejects;
};

/**
 * struct srpt_device - per-HCA state.
 * @refcnt: one reference for the ib_client binding (taken by
 *	    srpt_sdev_alloc(), dropped by srpt_remove_one()) plus one per port
 *	    reference (srpt_lookup_port(), srpt_port_get_ref(), each
 *	    srpt_port_id). Freed with kfree() when the last goes, so it may
 *	    outlive @device while configfs directories still exist.
 * @device: the RDMA device; valid until srpt_remove_one() returns.
 * @pd: protection domain.
 * @lkey: pd->local_dma_lkey.
 * @srq: shared receive queue, or NULL; protected by @sdev_mutex.
 * @cm_id: IB CM listener, or NULL (iWARP; RoCE unless srpt_ib_cm_roce).
 * @srq_size: depth of @srq.
 * @rq_size_max: largest srp_rq_size the ports accept
 *		 (srpt_login_rq_size_max() of max_qp_wr, max_cqe); set before the
 *		 ports are visible, then immutable. Kept here because the
 *		 ib_device is gone after removal, the configfs tree is not.
 * @srq_credits: receive buffers of @srq not promised to any channel as
 *		 credits (srpt_srq_reserve()); srq_size when the SRQ is
 *		 created, each channel using it takes its grant out at
 *		 creation and puts it back when it is freed.
 * @sdev_mutex: serializes use_srq changes.
 * @use_srq: whether @srq exists and channels use it; @sdev_mutex.
 * @srq_switching: a use_srq switch runs (srpt_use_srq()); written under
 *		   @sdev_mutex, read without a lock by srpt_ch_create() and
 *		   srpt_ch_may_accept_locked(), which refuse every login
 *		   meanwhile. Unlike srpt_port.enabled no TPG write can clear
 *		   it, so no login builds a channel on an SRQ that is being
 *		   created or destroyed.
 * @removed: set under srpt_dev_lock by srpt_port_table_del() (from
 *	     srpt_remove_one()); configfs operations on ports of a removed
 *	     device return -ENODEV (srpt_port_is_removed()).
 * @req_buf_cache: buffer cache of @ioctx_ring.
 * @ioctx_ring: receive contexts posted on @srq.
 * @event_handler: async event handler.
 * @list: node in srpt_dev_list (port.c), protected by srpt_dev_lock.
 * @port_cnt: number of entries in @port.
 * @port: one entry per physical port.
 */
struct srpt_device {
	struct kref		refcnt;
	struct ib_device	*device;
	struct ib_pd		*pd;
	u32			lkey;
	struct ib_srq		*srq;
	struct ib_cm_id		*cm_id;
	int			srq_size;
	u32			rq_size_max;
	atomic_t		srq_credits;
	struct mutex		sdev_mutex;	/* serializes use_srq */
	bool			use_srq;
	bool			srq_switching;
	bool			removed;
	struct kmem_cache	*req_buf_cache;
	struct srpt_recv_ioctx	**ioctx_ring;
	struct ib_event_handler	event_handler;
	struct list_head	list;
	u32			port_cnt;
	struct srpt_port	port[];
};

/* ---------------------------------------------------------------------- */
/* Nexus and channels                                                     */
/* ---------------------------------------------------------------------- */

/**
 * struct srpt_nexus - I_T nexus.
 * @rcu: for kfree_rcu().
 * @entry: node in srpt_port.nexus_list.
 * @ch_list: srpt_rdma_ch.list nodes; writers hold srpt_port.mutex.
 * @i_port_id: initiator port ID from the login request.
 * @t_port_id: target port ID from the login request.
 *
 * Lifetime: created by srpt_ch_link() for a login that already owns a LIO
 * session (so after the ACL check: a refused login never creates one) and
 * linked into srpt_port.nexus_list together with its first channel, under
 * srpt_port.mutex. The release work of the channel that leaves @ch_list
 * empty unlinks it and frees it with kfree_rcu(), under the same mutex; so
 * every nexus on the list has a channel, and the memory kept per port is
 * bounded by its channels, not by the initiator port IDs ever seen.
 * srpt_release_sport() frees any that would be left (there should be none).
 * Holders of srpt_port.mutex may use a nexus found on the list until they
 * drop the mutex; RCU readers until rcu_read_unlock().
 */
struct srpt_nexus {
	struct rcu_head		rcu;
	struct list_head	entry;
	struct list_head	ch_list;
	u8			i_port_id[16];
	u8			t_port_id[16];
};

/* ---------------------------------------------------------------------- */
/* I/O contexts                                                           */
/* ---------------------------------------------------------------------- */

/**
 * struct srpt_ioctx - part common to receive and send contexts.
 * @cqe: completion entry of the WR that uses @buf.
 * @buf: IU buffer.
 * @dma: DMA address of @buf.
 * @offset: bytes at the start of @buf before the IU (receive buffers are
 *	    shifted so that immediate data starts 512-byte aligned).
 * @index: position in its ring.
 */
struct srpt_ioctx {
	struct ib_cqe		cqe;
	void			*buf;
	dma_addr_t		dma;
	u32			offset;
	u32			index;
};

/**
 * struct srpt_recv_ioctx - receive context.
 * @ioctx: common part.
 * @wait_list: node in srpt_rdma_ch.cmd_wait_list from its receive
 *	       completion until it is handled; srpt_rdma_ch.wait_lock.
 * @byte_len: bytes received (wc->byte_len; peer-controlled).
 * @srq_sdev: the HCA whose SRQ the buffer belongs to, NULL for a buffer of
 *	      a channel's own ring; set at SRQ creation, then immutable. A
 *	      flushed SRQ receive goes back to the SRQ through it, without
 *	      looking at the QP or channel it completed on (see
 *	      srpt_recv_failed()).
 */
struct srpt_recv_ioctx {
	struct srpt_ioctx	ioctx;
	struct list_head	wait_list;
	u32			byte_len;
	struct srpt_device	*srq_sdev;
};

/**
 * struct srpt_rw_ctx - the target-side buffer of one SRP descriptor and the
 *	RDMA READ/WRITE context that moves it.
 * @rw: the rdma_rw context; valid only while @rw_nents is not zero.
 * @sg: scatterlist of the target-side buffer (@len bytes).
 * @nents: entries in @sg.
 * @rw_nents: leading entries of @sg mapped by @rw, 0 if @rw is not set up.
 *	      For data-in only the bytes LIO produced are mapped, so the last
 *	      mapped entry may have been shortened.
 * @remote_addr: virtual address of the descriptor (initiator side).
 * @rkey: remote key of the descriptor.
 * @len: length of the descriptor.
 */
struct srpt_rw_ctx {
	struct rdma_rw_ctx	rw;
	struct scatterlist	*sg;
	unsigned int		nents;
	unsigned int		rw_nents;
	u64			remote_addr;
	u32			rkey;
	u32			len;
};

/**
 * enum srpt_command_state - SCSI command / TMF state.
 * @SRPT_STATE_NEW: allocated, not yet submitted.
 * @SRPT_STATE_NEED_DATA: waiting for RDMA READ of write data.
 * @SRPT_STATE_DATA_IN: write data present, command executing.
 * @SRPT_STATE_CMD_RSP_SENT: SRP_RSP posted.
 * @SRPT_STATE_MGMT: task management function submitted.
 * @SRPT_STATE_MGMT_RSP_SENT: TMF response posted.
 * @SRPT_STATE_DONE: response completed; never left.
 */
enum srpt_command_state {
	SRPT_STATE_NEW		 = 0,
	SRPT_STATE_NEED_DATA	 = 1,
	SRPT_STATE_DATA_IN	 = 2,
	SRPT_STATE_CMD_RSP_SENT	 = 3,
	SRPT_STATE_MGMT		 = 4,
	SRPT_STATE_MGMT_RSP_SENT = 5,
	SRPT_STATE_DONE		 = 6,
};

/* Bits of srpt_rdma_ch.wait_state (see there and cmd.c). */
enum {
	SRPT_WAIT_BUSY		= 1,
	SRPT_WAIT_AGAIN		= 2,
	SRPT_WAIT_CLOSED	= 4,
};

/**
 * struct srpt_spare - a data buffer in a channel's pool of spare buffers.
 * @node: entry in srpt_rdma_ch.spare_list while @in_pool.
 * @sg: the buffer (target_alloc_sgl() of @nents pages, not chainable).
 * @nents: its pages.
 * @lun: the LUN field of the SRP_CMD that used the buffer last, as it
 *	 came (see srpt_spare_reuse()).
 * @in_pool: @node is on the list. Set by the context that owns this entry
 *	     (embedded in its struct srpt_send_ioctx) when it adds it;
 *	     cleared with release semantics by the one taker of the pool
 *	     once it has read @sg, @nents and @lun. While it is set the owner
 *	     frees the buffers of its commands instead of adding them.
 *
 * See "Spare data buffers" in docs/design.md.
 */
struct srpt_spare {
	struct llist_node	node;
	struct scatterlist	*sg;
	u32			nents;
	u64			lun;
	bool			in_pool;
};

/**
 * struct srpt_send_ioctx - send context, one per command the channel may
 *	run at once (rq_size of them).
 * @ioctx: common part (@ioctx.buf holds the SRP_RSP).
 * @ch: owning channel; immutable.
 * @free_node: entry in srpt_rdma_ch.free_ioctxs while no command uses the
 *	       context.
 * @recv_ioctx: receive buffer lent to the command for immediate data.
 * @s_rw_ctx: inline context used when there is one descriptor.
 * @rw_ctxs: @s_rw_ctx or a kmalloc'd array of @n_rw_ctx entries.
 * @imm_sg: one scatterlist entry over the immediate data.
 * @rdma_cqe: completion of the last RDMA READ WR.
 * @state: enum srpt_command_state; written only through
 *	   srpt_set_cmd_state() and srpt_test_and_set_cmd_state().
 * @cmd: the LIO command.
 * @n_rdma: send WRs the rw contexts set up so far need (u32: 255
 *	    descriptors may need more than 255 WRs).
 * @n_rw_ctx: entries in @rw_ctxs (target-side buffers allocated).
 * @n_rw_mapped: leading entries of @rw_ctxs whose rw context is set up:
 *	       all of them for data-out, from the submission on; for data-in
 *	       only those holding data LIO produced, set up when the response
 *	       is queued (srpt_map_rw_ctxs()).
 * @queue_status_only: the response carries status only, no data.
 * @local_rsp: the response was built by the driver itself without LIO
 *	       (malformed IU, failed submission); the send completion then
 *	       frees the context instead of handing it back to LIO. LIO does
 *	       not count such a command, so the release work waits for it by
 *	       draining the QP before it removes the session (see
 *	       struct srpt_rdma_ch).
 * @rsp_with_data: the waiting response puts the RDMA WRITEs of its read
 *	       data in front of it (a data-in response built on srpt_rsp_wq
 *	       that found the send queue full, see srpt_queue_data_in()).
 * @data_charge: bytes this command charged to srpt_rdma_ch.data_bytes
 *		 and to those of its ACL and port.
 * @data_lun: LUN field of the command's SRP_CMD as it came, set with its
 *	      buffers; goes with the buffer into the pool (struct srpt_spare).
 * @rsp_entry: node in srpt_rdma_ch.rsp_wait_list while the response waits
 *	       for send queue room (srpt_rsp_defer()).
 * @rsp_len: length of that response, already built in the send buffer.
 * @rsp_delta: credits it grants (taken by srpt_credits_take()).
 * @rsp_state: state the command enters when it is posted.
 * @sense_data: sense buffer given to LIO.
 * @spare: how this context puts the buffer of its last command into the
 *	    channel's pool of spare buffers (srpt_spare_keep() in ioctx.c).
 */
struct srpt_send_ioctx {
	struct srpt_ioctx	ioctx;
	struct srpt_rdma_ch	*ch;
	struct llist_node	free_node;
	struct srpt_recv_ioctx	*recv_ioctx;
	struct srpt_rw_ctx	s_rw_ctx;
	struct srpt_rw_ctx	*rw_ctxs;
	struct scatterlist	imm_sg;
	struct ib_cqe		rdma_cqe;
	enum srpt_command_state	state;
	struct se_cmd		cmd;
	u32			n_rdma;
	u32			data_charge;
	u64			data_lun;
	u8			n_rw_ctx;
	u8			n_rw_mapped;
	bool			queue_status_only;
	bool			local_rsp;
	bool			rsp_with_data;
	struct list_head	rsp_entry;
	int			rsp_len;
	u32			rsp_delta;
	enum srpt_command_state	rsp_state;
	u8			sense_data[TRANSPORT_SENSE_BUFFER];
	struct srpt_spare	spare;
};

/**
 * struct srpt_ch_stats - the live counters of a channel (docs/design.md,
 *	"Counters and sessions"; struct srpt_counters describes each).
 * @cmds_read: see struct srpt_counters.
 * @cmds_write: see struct srpt_counters.
 * @cmds_none: see struct srpt_counters.
 * @bytes_read: see struct srpt_counters.
 * @bytes_write: see struct srpt_counters.
 * @tmf: see struct srpt_counters.
 * @sq_full: see struct srpt_counters.
 * @rdma_errors: see struct srpt_counters.
 * @recv_errors: see struct srpt_counters.
 * @credits: see struct srpt_counters (srpt_ch_login_accepted() adds the
 *	     credits of the login response).
 *
 * Locking rule: the per-command counters (@cmds_*, @bytes_*, @tmf) have one
 * writer at a time, the srpt_wait_list_run() call that holds SRPT_WAIT_BUSY
 * of srpt_rdma_ch.wait_state (it hands IUs to srpt_handle_cmd() and
 * srpt_handle_tsk_mgmt()); they are plain u64, written with
 * srpt_stat_add() (WRITE_ONCE) and read without a lock with READ_ONCE, so
 * the per-command path takes no lock and no atomic for them (a reader on a
 * 32-bit kernel may see a torn value). The others are written from any
 * context (LIO callbacks, CQ completions) and are atomic64_t; @credits is
 * updated with the credits themselves, once per response.
 *
 * Why two structures: struct srpt_counters (srpt_stats.h) is a plain
 * snapshot that the pure formatting code, the port totals and the sums of
 * the port's attributes use; this one is the live form, whose field types
 * follow the writers. srpt_ch_stats_read() copies one into the other, and
 * a released channel's snapshot is added to srpt_port.released.
 */
struct srpt_ch_stats {
	u64		cmds_read;
	u64		cmds_write;
	u64		cmds_none;
	u64		bytes_read;
	u64		bytes_write;
	u64		tmf[SRPT_TMF_KINDS];
	atomic64_t	sq_full;
	atomic64_t	rdma_errors;
	atomic64_t	recv_errors;
	atomic64_t	credits;
};

/**
 * srpt_stat_add() - add to a single-writer counter of struct srpt_ch_stats.
 * @counter: the counter.
 * @n: what to add.
 */
static inline void srpt_stat_add(u64 *counter, u64 n)
{
	WRITE_ONCE(*counter, *counter + n);
}

/**
 * struct srpt_rdma_ch - one SRP channel (one RC connection).
 * @nexus: I_T nexus; NULL until srpt_ch_link(), then immutable. Valid
 *	   while the channel is on its @ch_list (until the release work).
 * @qp: the queue pair. Used for posting until the release work has drained
 *	it (see "Teardown" below); NULL after srpt_ch_destroy_qp().
 * @ib_cm: IB CM connection (when !@using_rdma_cm).
 * @ib_cm.cm_id: IB CM id.
 * @rdma_cm: RDMA CM connection (when @using_rdma_cm).
 * @rdma_cm.cm_id: RDMA CM id.
 * @cq: completion queue (from the CQ pool).
 * @cq_size: entries requested from the CQ pool.
 * @rtu_cqe: completion of the zero-length RDMA WRITE posted once the channel
 *	     is LIVE; its success starts processing the IUs that arrived
 *	     while connecting. Never schedules the release work.
 * @close_cqe: completion of the zero-length RDMA WRITE posted by
 *	       srpt_close_ch() after the QP was moved to the error state; the
 *	       only completion that schedules the release work. The two writes
 *	       have their own CQEs so that a flushed @rtu_cqe can never be
 *	       taken for the end of the send queue.
 * @last_wqe: completed by the QP event handler on
 *	      IB_EVENT_QP_LAST_WQE_REACHED (SRQ channels: no receive of this QP
 *	      completes after it).
 * @rcu: for kfree_rcu().
 * @kref: one reference for the lifetime (dropped by the release work) plus
 *	  temporary references taken by close paths.
 * @closed: completed by the release work if set (srpt_disconnect_ch_sync()).
 * @rq_size: receive ring size and number of send contexts.
 * @max_rsp_size: size of each send buffer.
 * @sq_wr_avail: send queue WRs still available for responses and RDMA
 *		 (the QP has SRPT_SQ_SPARE_WRS more for the zero-length
 *		 writes and the drain). Taken only with srpt_sq_wrs_get()
 *		 (compare-and-exchange, never below what is free), given
 *		 back with srpt_sq_wrs_put() (full barrier, then a look at
 *		 @rsp_wait_list).
 * @sq_wr_max: the most send WRs one command may need: half the send queue
 *	       srp_sq_size asked for, and never more than @sq_wr_avail was
 *	       at QP creation (an HCA with a small max_qp_wr gives a smaller
 *	       QP). A command needing more is refused, since it could never
 *	       be posted. Set once, before the channel can receive.
 * @sq_wrs: what @sq_wr_avail starts at, and so its ceiling: the send WRs
 *	    of the QP the HCA gave (the core adds the WRs of the RDMA
 *	    contexts, and an HCA may round up) minus SRPT_SQ_SPARE_WRS.
 *	    Set once with @sq_wr_max; only reported (srpt_login_accept).
 * @data_bytes: bytes of target-side data buffers the channel's commands
 *		hold (page-rounded per descriptor), charged against
 *		srpt_ch_data_mb in the CQ context when a command is received,
 *		given back when its buffers are freed (any context). The
 *		same charge goes to @acl_data_bytes and to the port's.
 * @acl_data_bytes: srpt_node_acl.data_bytes of the ACL of the channel's
 *		    session; set with the session in srpt_ch_link(), before
 *		    the channel can handle a command, then immutable.
 * @spare_list: pool of spare data buffers (struct srpt_spare), last in,
 *		first out: commands add the buffers they are done with from
 *		any context (llist_add()); only the caller that holds
 *		SRPT_WAIT_BUSY takes from it (llist_del_first(), which allows one
 *		taker without a lock), when it sets up a command's data
 *		(srpt_spare_reuse()). Emptied when the send ring is freed.
 * @spare_pages: pages of the buffers on @spare_list, at most
 *		 srpt_ch_spare_kb.
 * @sport: the port; the channel holds a port reference.
 * @max_ti_iu_len: largest IU the initiator accepts (limits sense data).
 * @req_lim: diagnostics counter of outstanding credits.
 * @req_lim_delta: credits to return with the next response.
 * @imm_data_offset: offset of immediate data in SRP_CMD, 0 if none.
 * @spinlock: protects @state; srpt_ch_established() also posts the
 *	      @rtu_cqe write under it, and the QP event handler uses the
 *	      cm_id under it only while @state is below CH_DRAINING.
 * @state: enum rdma_ch_state.
 * @rsp_buf_cache: cache of the send buffers.
 * @ioctx_ring: the send contexts (srpt_alloc_send_ring()).
 * @free_ioctxs: the send contexts no command uses, last in, first out:
 *		 freed from any context (llist_add() in srpt_put_send_ioctx());
 *		 only the caller that holds SRPT_WAIT_BUSY takes from it
 *		 (srpt_get_send_ioctx(); llist_del_first() allows one taker
 *		 without a lock). Filled when the ring is allocated.
 * @req_buf_cache: cache of the receive buffers (no SRQ).
 * @ioctx_recv_ring: receive contexts, NULL with SRQ.
 * @list: node in srpt_nexus.ch_list; srpt_port.mutex for writers.
 * @wait_lock: serializes the changes of @cmd_wait_list, the setting of
 *	       SRPT_WAIT_CLOSED and the queueing of @wait_work. Innermost;
 *	       taken from the CQ work, LIO callbacks and the release work,
 *	       never held while an IU is handled, and not taken at all by a
 *	       command that finds nothing waiting.
 * @cmd_wait_list: the received IUs that wait, in arrival order:
 *		   srpt_recv_done() appends, srpt_wait_list_run() takes from
 *		   the head. An IU stays there while the channel is
 *		   connecting or every send context is in use, so later
 *		   IUs never overtake it. An IU that arrives while the list
 *		   is empty and nobody handles IUs is handled without being
 *		   queued. Read without the lock by the caller that holds
 *		   SRPT_WAIT_BUSY and, for a first look, by those that free a
 *		   send context (srpt_process_wait_list() says why that is
 *		   enough).
 * @wait_state: SRPT_WAIT_BUSY: a srpt_wait_list_run() call is handling
 *		IUs; only that call handles IUs and takes them off
 *		@cmd_wait_list. SRPT_WAIT_AGAIN: something changed (a send
 *		context was freed, an IU appended, the channel went live)
 *		while BUSY was set: the busy caller looks at the list again
 *		before it stops. SRPT_WAIT_CLOSED: set by the release work
 *		(srpt_wait_list_close()), which then waits for BUSY to clear
 *		(wait_var_event(), woken only once CLOSED is set); from then
 *		on no IU is handled, so no send context is allocated and
 *		nothing is posted for an IU any more. Changed only with
 *		fully ordered atomic operations.
 * @wait_work: processes @cmd_wait_list when a send context is freed outside the CQ
 *	       work (a command LIO aborted) while nobody handles IUs; queued
 *	       only under @wait_lock without CLOSED, cancelled by the
 *	       release work.
 * @rsp_lock: protects @rsp_wait_list and @rsp_closed, and serializes the
 *	      posts of deferred responses. Taken with interrupts disabled,
 *	      from the CQ work and LIO callbacks; nothing is taken inside it
 *	      but the verbs provider's own locks (ib_post_send()).
 * @rsp_wait_list: responses without data that found the send queue full
 *		   and that LIO cannot retry (driver-built responses, TMF
 *		   responses, commands without a device), oldest first;
 *		   posted by srpt_rsp_list_kick() after send queue
 *		   entries come back. A response stays on it until its send
 *		   queue entry is reserved, so a lockless list_empty_careful()
 *		   after giving room back never misses one (see
 *		   srpt_rsp_list_kick()).
 * @rsp_closed: set by the release work (srpt_rsp_list_close()) first of
 *		all; from then on deferred responses are dropped, never
 *		posted.
 * @pkey: partition key of the connection.
 * @using_rdma_cm: whether @rdma_cm or @ib_cm is valid.
 * @sess: LIO session, NULL before login completes and after release.
 *	  Cleared by the release work under srpt_port.mutex before it
 *	  removes (frees) the session, so a walk of the port's linked
 *	  channels under that mutex (srpt_channels_close()) sees either
 *	  NULL or a live session.
 * @sess_name: session (initiator) name used for the ACL lookup.
 * @release_work: tears the channel down in process context.
 * @released: set under srpt_port.mutex by the release work once it no
 *	      longer looks at @closed.
 * @srq_credits: credits taken from srpt_device.srq_credits, given back
 *		 by srpt_free_ch(); 0 without SRQ.
 * @short_ius: IUs dropped because they were too short to carry a tag
 *	       (srpt_recv_drop_short()); only touched from CQ context.
 * @id: channel ID shown in the ACL info attribute, unique while the module
 *	is loaded; set by srpt_ch_link() under srpt_port.mutex, then
 *	immutable.
 * @peer: the initiator's address for RDMA CM channels (copied at creation,
 *	  since the cm_id goes away before the channel is unlinked); unused
 *	  for IB CM channels, whose @sess_name is the initiator's port GUID.
 * @nacl: the ACL of @sess, set by srpt_ch_link() and only compared, never
 *	  dereferenced. Cleared together with @sess, under srpt_port.mutex:
 *	  LIO skips a stopped session when it closes the sessions of an ACL,
 *	  so the ACL can be freed (by target_remove_session()) while the
 *	  channel is still linked, and a new ACL at the same address must
 *	  not list it.
 * @stats: the channel's counters.
 *
 * Teardown (srpt_close_ch(), then srpt_release_channel_work()), in order:
 *  1. the QP goes to the error state and the @close_cqe write is posted;
 *     its completion proves every earlier send WR has completed and
 *     schedules the release work;
 *  2. the list of deferred responses is closed (srpt_rsp_list_close()):
 *     what is on it is dropped, and so is, at once, every response
 *     deferred later, never posted. This comes first: a TMF response or
 *     the response of a command without a device waiting there is a
 *     command LIO counts, and step 4 would wait for it forever. Nothing
 *     is lost, since the QP is already in the error state;
 *  3. the cm_id is destroyed, after srpt_port.mutex has been free once
 *     (a disconnect outside a CM handler holds it while it uses the
 *     cm_id, see srpt_disconnect_ch()); the destruction waits for a CM
 *     handler still running on it (a login between srpt_ch_link() and the
 *     accept decides ownership with its own flag, see cm.c), so no CM
 *     event can reach the channel afterwards;
 *  4. the LIO session is stopped and every command LIO counts is waited
 *     for; IUs still waiting for a tag meanwhile get tags and responses the
 *     driver builds itself (LIO refuses them), which LIO does not count;
 *  5. the wait list is closed: no IU is handled after this;
 *  6. the QP is drained: ib_drain_qp() semantics (send side, then the
 *     channel's own receive queue), for SRQ QPs first waiting for
 *     @last_wqe, then the send side. Every completion of the QP, including
 *     those of the driver-built responses of step 4 (which free their
 *     send contexts), has run when this returns;
 *  7. only now @sess is cleared (under srpt_port.mutex) and the session
 *     removed, then the QP and the rings are freed.
 * So nothing posts through @qp or frees a send context after step 6.
 * docs/design.md, "Channel release" describes the whole sequence.
 */
struct srpt_rdma_ch {
	struct srpt_nexus	*nexus;
	struct ib_qp		*qp;
	union {
		struct {
			struct ib_cm_id		*cm_id;
		} ib_cm;
		struct {
			struct rdma_cm_id	*cm_id;
		} rdma_cm;
	};
	struct ib_cq		*cq;
	u32			cq_size;
	struct ib_cqe		rtu_cqe;
	struct ib_cqe		close_cqe;
	struct completion	last_wqe;
	struct rcu_head		rcu;
	struct kref		kref;
	struct completion	*closed;
	int			rq_size;
	u32			max_rsp_size;
	atomic_t		sq_wr_avail;
	u32			sq_wr_max;
	u32			sq_wrs;
	atomic64_t		data_bytes;
	atomic64_t		*acl_data_bytes;
	struct llist_head	spare_list;
	atomic_t		spare_pages;
	struct srpt_port	*sport;
	int			max_ti_iu_len;
	atomic_t		req_lim;
	atomic_t		req_lim_delta;
	u16			imm_data_offset;
	spinlock_t		spinlock;	/* protects state */
	enum rdma_ch_state	state;
	struct kmem_cache	*rsp_buf_cache;
	struct srpt_send_ioctx	**ioctx_ring;
	struct llist_head	free_ioctxs;
	struct kmem_cache	*req_buf_cache;
	struct srpt_recv_ioctx	**ioctx_recv_ring;
	struct list_head	list;
	spinlock_t		wait_lock;	/* see @wait_lock above */
	struct list_head	cmd_wait_list;
	atomic_t		wait_state;
	struct work_struct	wait_work;
	spinlock_t		rsp_lock;	/* see @rsp_lock above */
	struct list_head	rsp_wait_list;
	bool			rsp_closed;
	u16			pkey;
	bool			using_rdma_cm;
	struct se_session	*sess;
	char			sess_name[SRPT_SESS_NAME_LEN];
	struct work_struct	release_work;
	bool			released;
	int			srq_credits;
	u32			short_ius;
	u32			id;
	struct sockaddr_storage	peer;
	struct se_node_acl	*nacl;
	struct srpt_ch_stats	stats;
};

/**
 * srpt_get_ch_state() - the state of a channel, read under its spinlock.
 * @ch: the channel.
 *
 * Return: the state (it may change as soon as the lock is dropped).
 */
static inline enum rdma_ch_state srpt_get_ch_state(struct srpt_rdma_ch *ch)
{
	unsigned long flags;
	enum rdma_ch_state state;

	spin_lock_irqsave(&ch->spinlock, flags);
	state = ch->state;
	spin_unlock_irqrestore(&ch->spinlock, flags);
	return state;
}

/* ---------------------------------------------------------------------- */
/* Functions, grouped by defining file                                    */
/* ---------------------------------------------------------------------- */

/* main.c */
extern u64 srpt_service_guid;
extern unsigned int srp_max_req_size;
extern unsigned int srpt_srq_size;
extern unsigned int srpt_ch_data_mb;
extern unsigned int srpt_acl_data_mb;
extern unsigned int srpt_acl_max_ch;
extern unsigned int srpt_port_data_mb;
extern unsigned int srpt_ch_spare_kb;
extern bool srpt_ib_cm_roce;
extern struct ib_client srpt_client;

/* port.c: the port table */
struct srpt_device *srpt_sdev_alloc(struct ib_device *device, u32 port_cnt);
void srpt_port_table_add(struct srpt_device *sdev);
void srpt_port_table_del(struct srpt_device *sdev);
void srpt_port_table_exit(void);
struct port_and_port_id srpt_lookup_port(const char *name);
void srpt_port_get_ref(struct srpt_port *sport);
void srpt_port_put_ref(struct srpt_port *sport);
void srpt_sdev_put(struct srpt_device *sdev);
struct srpt_device *srpt_sdev_lookup(const struct ib_device *device);
bool srpt_port_is_removed(const struct srpt_port *sport);
void srpt_port_set_names(struct srpt_port *sport, const union ib_gid *gid);
struct srpt_port_id *srpt_port_id_create(const char *name);
void srpt_port_id_destroy(struct srpt_port_id *port_id);

/* device.c: ib_client add/remove, async events, the use_srq switch */
int srpt_add_one(struct ib_device *device);
void srpt_remove_one(struct ib_device *device, void *client_data);
int srpt_refresh_port(struct srpt_port *sport);
int srpt_use_srq(struct srpt_device *sdev, bool use_srq);

/* srq.c: the shared receive queue and its credits */
int srpt_srq_create(struct srpt_device *sdev);
int srpt_srq_destroy(struct srpt_device *sdev);
int srpt_srq_reserve(struct srpt_device *sdev, int want);
void srpt_srq_unreserve(struct srpt_device *sdev, int credits);

/* configfs.c: the LIO fabric */
int srpt_fabric_register(void);
void srpt_fabric_unregister(void);
struct srpt_port *srpt_tpg_to_sport(struct se_portal_group *tpg);

/* port_stats.c: the port counters in configfs */
void srpt_port_stats_add(struct srpt_port_id *port_id,
			 struct config_group *parent);

/* mad.c: device management MAD agent */
void srpt_mad_register(struct srpt_port *sport);
void srpt_mad_unregister(struct srpt_port *sport);

/* cm.c: listeners and login */
int srpt_ib_cm_listen(struct srpt_device *sdev);
void srpt_ib_cm_stop(struct srpt_device *sdev);
int srpt_rdma_cm_set_port(u16 port);
u16 srpt_rdma_cm_get_port(void);
void srpt_rdma_cm_stop(void);

/* ch_qp.c: CQ, QP and context rings of a channel */
int srpt_ch_alloc_rings(struct srpt_rdma_ch *ch, bool use_srq);
void srpt_ch_free_rings(struct srpt_rdma_ch *ch);
int srpt_ch_create_qp(struct srpt_rdma_ch *ch, bool use_srq);
void srpt_ch_destroy_qp(struct srpt_rdma_ch *ch);
int srpt_ch_qp_rtr(struct srpt_rdma_ch *ch);
int srpt_ch_qp_rts(struct srpt_rdma_ch *ch);

/* ch_close.c: state changes and closing */
bool srpt_ch_state_advance_locked(struct srpt_rdma_ch *ch,
				  enum rdma_ch_state new);
bool srpt_set_ch_state(struct srpt_rdma_ch *ch, enum rdma_ch_state new);
int srpt_channel_init(void);
void srpt_channel_exit(void);
void srpt_free_ch(struct kref *kref);
int srpt_zerolength_write(struct srpt_rdma_ch *ch, struct ib_cqe *cqe);
void srpt_close_write_done(struct ib_cq *cq, struct ib_wc *wc);
bool srpt_close_ch(struct srpt_rdma_ch *ch);

/* channel.c: channel lifecycle */
void srpt_set_enabled(struct srpt_port *sport, bool enabled);
void srpt_tpg_set_enabled(struct srpt_port *sport, struct srpt_tpg *stpg,
			  bool enabled, bool port_enabled);
void srpt_release_sport(struct srpt_port *sport);
void srpt_close_session(struct se_session *se_sess);
struct srpt_rdma_ch *srpt_ch_create(struct srpt_port *sport,
				    struct ib_cm_id *ib_cm_id,
				    struct rdma_cm_id *rdma_cm_id, u16 pkey,
				    u32 max_ti_iu_len, u16 imm_data_offset,
				    bool use_srq);
void srpt_ch_destroy_unstarted(struct srpt_rdma_ch *ch);
int srpt_ch_link(struct srpt_rdma_ch *ch, const u8 i_port_id[16],
		 const u8 t_port_id[16], bool single, u8 *rsp_flags);
bool srpt_ch_may_accept_locked(struct srpt_rdma_ch *ch);
void srpt_ch_established(struct srpt_rdma_ch *ch);
int srpt_disconnect_ch(struct srpt_rdma_ch *ch);
void srpt_ch_stats_read(struct srpt_rdma_ch *ch, struct srpt_counters *c);
void srpt_ch_login_accepted(struct srpt_rdma_ch *ch);
void srpt_port_login_rejected(struct srpt_port *sport, u32 reason,
			      const u8 *i_port_id, const char *initiator);

/* ioctx.c: I/O context rings, buffer caches, send and RDMA contexts */
struct kmem_cache *srpt_cache_get(unsigned int object_size);
void srpt_cache_put(struct kmem_cache *cache);
void srpt_cache_exit(void);
struct srpt_recv_ioctx **srpt_alloc_recv_ring(struct srpt_device *sdev,
					      int ring_size,
					      struct kmem_cache *buf_cache,
					      int alignment_offset,
					      void (*done)(struct ib_cq *cq,
							   struct ib_wc *wc));
void srpt_free_recv_ring(struct srpt_device *sdev,
			 struct srpt_recv_ioctx **ring, int ring_size,
			 struct kmem_cache *buf_cache);
struct srpt_send_ioctx **srpt_alloc_send_ring(struct srpt_rdma_ch *ch,
					      int ring_size,
					      struct kmem_cache *buf_cache,
					      void (*done)(struct ib_cq *cq,
							   struct ib_wc *wc));
void srpt_free_send_ring(struct srpt_rdma_ch *ch,
			 struct srpt_send_ioctx **ring, int ring_size,
			 struct kmem_cache *buf_cache);
int srpt_alloc_rw_ctxs(struct srpt_send_ioctx *sio, const void *iu,
		       const struct srpt_cmd_desc *desc,
		       struct scatterlist **sg, u32 *sg_cnt);
void srpt_free_rw_ctxs(struct srpt_send_ioctx *sio, u32 n);
int srpt_data_in_map(struct srpt_send_ioctx *sio);

/* cmd.c: receiving IUs, starting commands, ending them (their send contexts free) */
void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc);
void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc);
void srpt_release_cmd(struct se_cmd *cmd);
void srpt_process_wait_list(struct srpt_rdma_ch *ch);
void srpt_wait_list_work(struct work_struct *w);
void srpt_wait_list_close(struct srpt_rdma_ch *ch);

/* rsp.c: data transfer, responses and the LIO command callbacks */
void srpt_local_cmd_rsp(struct srpt_send_ioctx *sio, u64 tag, u8 status,
			u8 key, u8 asc, u8 ascq);
void srpt_local_tmf_rsp(struct srpt_send_ioctx *sio, u64 tag, u8 code);
int srpt_check_stop_free(struct se_cmd *cmd);
int srpt_write_pending(struct se_cmd *cmd);
int srpt_get_tcm_cmd_state(struct se_cmd *cmd);
int srpt_queue_data_in(struct se_cmd *cmd);
int srpt_queue_status(struct se_cmd *cmd);
void srpt_queue_tm_rsp(struct se_cmd *cmd);
void srpt_aborted_task(struct se_cmd *cmd);
void srpt_rsp_list_post(struct srpt_rdma_ch *ch);
void srpt_rsp_list_close(struct srpt_rdma_ch *ch);
int srpt_rsp_init(void);
void srpt_rsp_exit(void);

#endif /* SRPT_H */
