// SPDX-License-Identifier: GPL-2.0
/*
 * channel.c - I_T nexus and SRP channel lifecycle: creation, the state
 * machine, disconnect, drain and release. The channel's CQ, QP and context
 * rings themselves are made and destroyed by ch_qp.c.
 *
 * A channel is created by the login code in cm.c. Until it owns a LIO
 * session it is torn down with srpt_ch_destroy_unstarted(); afterwards only
 * through srpt_close_ch() (ch_close.c, with the state changes and the
 * release workqueue): the QP is moved to the error state and a
 * zero-length RDMA WRITE is posted. Its flush completion proves that every
 * earlier send WR has completed and schedules the release work, which stops
 * the session, closes the wait list, drains the QP (send and receive side)
 * and only then removes the session and frees everything. The order and
 * why it is safe are written next to struct srpt_rdma_ch (srpt.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/delay.h>
#include <linux/timekeeping.h>
#include "srpt.h"
#include "srpt_login.h"
#include "srpt_debug.h"
#include "srpt_names.h"

#define SRPT_WAIT_LOG_INTERVAL	(5 * HZ)

/**
 * srpt_get_nexus() - find or create the I_T nexus of a channel being linked.
 * @sport: the port the login arrived on; the caller holds @sport->mutex.
 * @i_port_id: initiator port ID of the login request.
 * @t_port_id: target port ID of the login request.
 *
 * Only srpt_ch_link() calls this, for a login that already owns a LIO
 * session, so a login refused earlier (no ACL, port disabled, bad request)
 * never allocates a nexus. A new nexus is added to @sport->nexus_list with
 * an empty channel list; the caller adds the channel before it drops the
 * mutex (see struct srpt_nexus for the lifetime).
 *
 * Return: the nexus, or NULL if memory is short.
 */
static struct srpt_nexus *srpt_get_nexus(struct srpt_port *sport,
					 const u8 i_port_id[16],
					 const u8 t_port_id[16])
{
	struct srpt_nexus *nexus;

	lockdep_assert_held(&sport->mutex);
	list_for_each_entry(nexus, &sport->nexus_list, entry) {
		if (memcmp(nexus->i_port_id, i_port_id, 16) == 0 &&
		    memcmp(nexus->t_port_id, t_port_id, 16) == 0)
			return nexus;
	}
	nexus = srpt_dbg_alloc("nexus", kzalloc(sizeof(*nexus), GFP_KERNEL));
	if (!nexus)
		return NULL;
	INIT_LIST_HEAD(&nexus->ch_list);
	memcpy(nexus->i_port_id, i_port_id, 16);
	memcpy(nexus->t_port_id, t_port_id, 16);
	list_add_tail_rcu(&nexus->entry, &sport->nexus_list);
	return nexus;
}

/*
 * The ID of the last channel linked on any port (channel IDs are shown in
 * the ACL info attribute and are unique while the module is loaded, until
 * they wrap after 2^32 logins).
 */
static atomic_t srpt_ch_last_id = ATOMIC_INIT(0);

/**
 * srpt_ch_stats_read() - take a snapshot of a channel's counters.
 * @ch: the channel.
 * @c: the snapshot.
 *
 * Context: any; see struct srpt_ch_stats for why no lock is needed.
 */
void srpt_ch_stats_read(struct srpt_rdma_ch *ch, struct srpt_counters *c)
{
	const struct srpt_ch_stats *s = &ch->stats;
	int i;

	c->cmds_read = READ_ONCE(s->cmds_read);
	c->cmds_write = READ_ONCE(s->cmds_write);
	c->cmds_none = READ_ONCE(s->cmds_none);
	c->bytes_read = READ_ONCE(s->bytes_read);
	c->bytes_write = READ_ONCE(s->bytes_write);
	for (i = 0; i < SRPT_TMF_KINDS; i++)
		c->tmf[i] = READ_ONCE(s->tmf[i]);
	c->sq_full = atomic64_read(&s->sq_full);
	c->rdma_errors = atomic64_read(&s->rdma_errors);
	c->recv_errors = atomic64_read(&s->recv_errors);
	c->short_ius = READ_ONCE(ch->short_ius);
	c->credits = atomic64_read(&s->credits);
}

/**
 * srpt_ch_login_accepted() - count an accepted login.
 * @ch: its channel; the login response granted it @ch->rq_size credits.
 */
void srpt_ch_login_accepted(struct srpt_rdma_ch *ch)
{
	struct srpt_port *sport = ch->sport;

	atomic64_add(ch->rq_size, &ch->stats.credits);
	spin_lock(&sport->stats_lock);
	sport->logins_accepted++;
	spin_unlock(&sport->stats_lock);
}

/**
 * srpt_port_login_rejected() - count a rejected login and remember it.
 * @sport: the port the login came in on.
 * @reason: SRP_LOGIN_REJ reason code.
 * @i_port_id: initiator port ID of the request (16 bytes).
 * @initiator: name of the connection's source (the session name).
 */
void srpt_port_login_rejected(struct srpt_port *sport, u32 reason,
			      const u8 *i_port_id, const char *initiator)
{
	char id[SRPT_HEX128_NAME_SIZE];

	srpt_format_port_id(id, sizeof(id), i_port_id);
	spin_lock(&sport->stats_lock);
	srpt_rej_history_add(&sport->rejects, ktime_get_real_seconds(), reason,
			     id, initiator);
	spin_unlock(&sport->stats_lock);
}

/* Free a nexus that has no channel left. Caller holds sport->mutex. */
static void srpt_nexus_free_if_empty(struct srpt_nexus *nexus)
{
	if (list_empty(&nexus->ch_list)) {
		list_del_rcu(&nexus->entry);
		kfree_rcu(nexus, rcu);
	}
}

/*
 * Take a released channel off its nexus and free the nexus if that was its
 * last channel. Caller holds sport->mutex.
 */
static void srpt_ch_unlink(struct srpt_rdma_ch *ch)
{
	struct srpt_nexus *nexus = ch->nexus;
	struct srpt_counters c;

	lockdep_assert_held(&ch->sport->mutex);
	/* see srpt_port.released */
	if (nexus) {
		srpt_ch_stats_read(ch, &c);
		srpt_counters_add(&ch->sport->released, &c);
	}
	list_del_rcu(&ch->list);
	if (nexus)
		srpt_nexus_free_if_empty(nexus);
}

/*
 * Completion of the zero-length write posted when the channel became LIVE:
 * on success, process the IUs received while connecting. A failure means
 * the QP is in the error state: if nobody is closing the channel yet (the
 * HCA moved the QP to error), start closing it. Never schedules the release
 * work itself: the zero-length write of srpt_close_ch() may still be
 * outstanding.
 */
static void srpt_rtu_write_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = container_of(wc->wr_cqe, struct srpt_rdma_ch,
					       rtu_cqe);

	if (wc->status == IB_WC_SUCCESS) {
		srpt_process_wait_list(ch);
		return;
	}
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		srpt_ch_warn_ratelimited(ch, "zero-length write failed: %s\n",
					 ib_wc_status_msg(wc->status));
	srpt_close_ch(ch);
}

static void srpt_release_channel_work(struct work_struct *w);

/**
 * srpt_ch_create() - allocate a channel with its rings, CQ and QP.
 * @sport: the port the login arrived on.
 * @ib_cm_id: IB CM id, or NULL for RDMA CM.
 * @rdma_cm_id: RDMA CM id, or NULL for IB CM.
 * @pkey: partition key of the connection.
 * @max_ti_iu_len: the initiator's req_it_iu_len.
 * @imm_data_offset: negotiated immediate data offset (0 = none).
 * @use_srq: use the device's shared receive queue.
 *
 * The channel holds a port reference and counts in sport->ch_count from here
 * on. The cm_id context is pointed at the channel. It has no nexus yet
 * (srpt_ch_link() gives it one).
 *
 * Return: the channel or an ERR_PTR().
 */
struct srpt_rdma_ch *srpt_ch_create(struct srpt_port *sport,
				    struct ib_cm_id *ib_cm_id,
				    struct rdma_cm_id *rdma_cm_id, u16 pkey,
				    u32 max_ti_iu_len, u16 imm_data_offset,
				    bool use_srq)
{
	struct srpt_device *sdev = sport->sdev;
	struct srpt_rdma_ch *ch;
	int ret;

	ch = srpt_dbg_alloc("channel", kzalloc(sizeof(*ch), GFP_KERNEL));
	if (!ch)
		return ERR_PTR(-ENOMEM);
	kref_init(&ch->kref);
	spin_lock_init(&ch->spinlock);
	INIT_LIST_HEAD(&ch->list);
	spin_lock_init(&ch->wait_lock);
	INIT_LIST_HEAD(&ch->cmd_wait_list);
	spin_lock_init(&ch->rsp_lock);
	INIT_LIST_HEAD(&ch->rsp_wait_list);
	init_llist_head(&ch->spare_list);
	INIT_WORK(&ch->wait_work, srpt_wait_list_work);
	init_completion(&ch->last_wqe);
	INIT_WORK(&ch->release_work, srpt_release_channel_work);
	ch->rtu_cqe.done = srpt_rtu_write_done;
	ch->close_cqe.done = srpt_close_write_done;
	ch->pkey = pkey;
	ch->sport = sport;
	srpt_port_get_ref(sport);
	atomic_inc(&sport->ch_count);
	if (rdma_cm_id) {
		ch->using_rdma_cm = true;
		ch->peer = rdma_cm_id->route.addr.dst_addr;
		ch->rdma_cm.cm_id = rdma_cm_id;
		rdma_cm_id->context = ch;
	} else {
		ch->ib_cm.cm_id = ib_cm_id;
		ib_cm_id->context = ch;
	}
	ch->rq_size = srpt_login_rq_size(READ_ONCE(sport->port_attrib.srp_rq_size),
					 sdev->device->attrs.max_qp_wr,
					 sdev->device->attrs.max_cqe);
	ch->state = CH_CONNECTING;
	ch->max_rsp_size = sport->port_attrib.srp_max_rsp_size;
	ch->max_ti_iu_len = max_ti_iu_len;
	ch->imm_data_offset = use_srq ? 0 : imm_data_offset;
	strscpy(ch->sess_name, "(logging in)", sizeof(ch->sess_name));

	/*
	 * Paired with srpt_use_srq(), which sets srq_switching, disables
	 * every port of the HCA and then waits for ch_count to drop to zero
	 * before it creates or destroys the SRQ. This channel is counted
	 * before srq_switching is read, so either the switch waits for this
	 * channel or this login sees the switch and gives up: the SRQ never
	 * changes under a channel that is being created. (The port state
	 * alone is not enough: a TPG enable written during the switch's wait
	 * enables the port again.)
	 */
	smp_mb__after_atomic();
	/* acquire: pairs with the release in srpt_use_srq(), see above */
	if (!READ_ONCE(sport->enabled) || smp_load_acquire(&sdev->srq_switching) ||
	    READ_ONCE(sdev->use_srq) != use_srq) {
		ret = -EAGAIN;
		goto put;
	}
	if (use_srq) {
		ch->srq_credits = srpt_srq_reserve(sdev, ch->rq_size);
		if (!ch->srq_credits) {
			srpt_dev_warn_ratelimited(sdev, "every receive buffer of the SRQ (srpt_srq_size %d) is promised to a channel; login refused\n",
						  sdev->srq_size);
			ret = -ENOSPC;
			goto put;
		}
		ch->rq_size = ch->srq_credits;
	}

	ret = srpt_ch_alloc_rings(ch, use_srq);
	if (ret)
		goto put;
	ret = srpt_ch_create_qp(ch, use_srq);
	if (ret)
		goto free_rings;
	return ch;

free_rings:
	srpt_ch_free_rings(ch);
put:
	if (rdma_cm_id)
		rdma_cm_id->context = NULL;
	else
		ib_cm_id->context = NULL;
	kref_put(&ch->kref, srpt_free_ch);
	return ERR_PTR(ret);
}

/**
 * srpt_ch_destroy_unstarted() - free a channel that never got a session.
 * @ch: the channel; not on any nexus list.
 *
 * Used on the reject path of a login. The cm_id is left to the CM (the
 * caller returns non-zero from the CM handler), so its context is cleared.
 */
void srpt_ch_destroy_unstarted(struct srpt_rdma_ch *ch)
{
	WARN_ON_ONCE(ch->sess);
	/* IUs received while connecting: SRQ buffers go back to the SRQ. */
	srpt_wait_list_close(ch);
	srpt_rsp_list_close(ch);
	srpt_ch_destroy_qp(ch);
	srpt_ch_free_rings(ch);
	if (ch->using_rdma_cm)
		ch->rdma_cm.cm_id->context = NULL;
	else
		ch->ib_cm.cm_id->context = NULL;
	kref_put(&ch->kref, srpt_free_ch);
}

/**
 * srpt_disconnect_ch() - start disconnecting a channel.
 * @ch: the channel.
 *
 * Call from a CM callback of @ch's cm_id or with sport->mutex held: the
 * release work destroys the cm_id only after either has returned (see
 * srpt_release_channel_work()). Sends a DREQ (IB CM; a
 * DREP if a DREQ cannot be sent) or calls rdma_disconnect(). If nothing can
 * be sent the channel is closed.
 *
 * A channel that is not live yet (accepted, but no RTU or ESTABLISHED
 * seen) is closed as well: the IB CM cannot send a DREQ or DREP then and
 * says so, and rdma_disconnect() sends nothing either but returns 0, so
 * the release would wait for the initiator to complete or give up the
 * connection, forever for one that never does. The release work's
 * destruction of the cm_id then tells the initiator's CM.
 *
 * Return: 0 if the disconnect was started, -ENOTCONN if it already was,
 * another negative errno on failure.
 */
int srpt_disconnect_ch(struct srpt_rdma_ch *ch)
{
	bool live = srpt_get_ch_state(ch) == CH_LIVE;
	int ret;

	if (!srpt_set_ch_state(ch, CH_DISCONNECTING))
		return -ENOTCONN;
	srpt_debug_delay(SRPT_DBG_DISCONNECT);

	if (ch->using_rdma_cm) {
		ret = rdma_disconnect(ch->rdma_cm.cm_id);
		if (ret == 0 && !live)
			ret = -ENOTCONN;
	} else {
		ret = ib_send_cm_dreq(ch->ib_cm.cm_id, NULL, 0);
		if (ret < 0)
			ret = ib_send_cm_drep(ch->ib_cm.cm_id, NULL, 0);
	}
	if (ret < 0 && srpt_close_ch(ch))
		ret = 0;
	return ret;
}

/**
 * srpt_ch_established() - the connection is established (RTU received).
 * @ch: the channel.
 *
 * Moves an IB CM QP to RTS, marks the channel LIVE and posts a zero-length
 * write whose completion processes the IUs that arrived while connecting.
 * The write is posted under ch->spinlock together with the state change, so
 * a concurrent srpt_close_ch() (which needs the state lock to move on)
 * posts its own write after it and the QP cannot be released under it.
 */
void srpt_ch_established(struct srpt_rdma_ch *ch)
{
	unsigned long flags;
	bool live;
	int ret;

	if (!ch->using_rdma_cm) {
		ret = srpt_ch_qp_rts(ch);
		if (ret < 0) {
			srpt_ch_err_ratelimited(ch, "moving the QP to RTS failed: %d\n",
						ret);
			srpt_close_ch(ch);
			return;
		}
	}
	spin_lock_irqsave(&ch->spinlock, flags);
	live = srpt_ch_state_advance_locked(ch, CH_LIVE);
	if (live)
		ret = srpt_zerolength_write(ch, &ch->rtu_cqe);
	spin_unlock_irqrestore(&ch->spinlock, flags);
	if (!live) {
		srpt_ch_dbg(ch, "RTU in state %s\n",
			    srpt_ch_state_name(srpt_get_ch_state(ch)));
		return;
	}
	if (ret < 0) {
		srpt_ch_err_ratelimited(ch, "posting the zero-length write failed: %d\n",
					ret);
		srpt_close_ch(ch);
		return;
	}
	srpt_ch_dbg(ch, "channel is live\n");
}

/*
 * Wait until no completion of the QP can run any more. For a QP with its own
 * receive queue this is ib_drain_qp(): send side, then receive side (buffers
 * lent for immediate data are reposted by send completions, before the
 * receive marker). A QP on the SRQ gets ib_drain_sq() only after its Last
 * WQE Reached event: no receive completes after that event, and the send
 * marker completes on the same CQ after every CQE before it has been
 * handled. ib_drain_qp() is not used for SRQ QPs: kernels without SRQ
 * support in it only drain the send side, and those with it poll the CQ
 * directly, which this workqueue-polled (and shared) pool CQ must not be.
 */
static void srpt_ch_drain_qp(struct srpt_rdma_ch *ch)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	unsigned long tmo = msecs_to_jiffies(SRPT_LAST_WQE_TIMEOUT_MS);
	int ret;

	if (!ch->qp->srq) {
		ib_drain_qp(ch->qp);
		return;
	}
	ret = ib_modify_qp(ch->qp, &attr, IB_QP_STATE);
	if (ret)
		srpt_ch_warn_ratelimited(ch, "moving the QP to error failed: %d\n",
					 ret);
	else if (!wait_for_completion_timeout(&ch->last_wqe, tmo))
		srpt_ch_warn_ratelimited(ch, "no Last WQE Reached event after %d ms\n",
					 SRPT_LAST_WQE_TIMEOUT_MS);
	ib_drain_sq(ch->qp);
}

/*
 * Release work: runs in process context, never in a CM callback, so it may
 * destroy the cm_id.
 *
 * The cm_id is destroyed before anything else: rdma_destroy_id() and
 * ib_destroy_cm_id() return only after a handler running on that cm_id has
 * returned, and the login handler (cm.c) may still be between
 * srpt_ch_link() and its accept or reject, using the QP, the rings and the
 * channel itself. Once the cm_id is gone no CM callback can reach this
 * channel, and since the channel is DISCONNECTED no close or disconnect
 * path touches the cm_id or the QP any more (states only increase).
 */
static void srpt_release_channel_work(struct work_struct *w)
{
	struct srpt_rdma_ch *ch = container_of(w, struct srpt_rdma_ch,
					       release_work);
	struct srpt_port *sport = ch->sport;
	struct completion *closed;
	struct se_session *sess;

	srpt_ch_dbg(ch, "releasing channel\n");
	WARN_ON_ONCE(srpt_get_ch_state(ch) != CH_DISCONNECTED);

	/* The steps are explained next to struct srpt_rdma_ch. */
	srpt_rsp_list_close(ch);
	/*
	 * A disconnect outside a CM handler (srpt_disconnect_ch() from a TPG
	 * or port disable, a relogin or close_session) holds sport->mutex
	 * from its state change until it is done with the cm_id. The channel
	 * is DISCONNECTED, so none can start any more: once the mutex has
	 * been free, nobody but a CM handler uses the cm_id, and destroying
	 * it waits for those.
	 */
	mutex_lock(&sport->mutex);
	mutex_unlock(&sport->mutex);
	if (ch->using_rdma_cm) {
		rdma_destroy_id(ch->rdma_cm.cm_id);
		ch->rdma_cm.cm_id = NULL;
	} else {
		ib_destroy_cm_id(ch->ib_cm.cm_id);
		ch->ib_cm.cm_id = NULL;
	}
	if (ch->sess) {
		srpt_compat_stop_session(ch->sess);
		target_wait_for_sess_cmds(ch->sess);
	}
	srpt_wait_list_close(ch);
	if (ch->qp)
		srpt_ch_drain_qp(ch);
	sess = ch->sess;
	if (sess) {
		/*
		 * Cleared under the mutex before the session (and with it,
		 * perhaps, its ACL) is freed: the channel stays linked until
		 * srpt_ch_unlink() below, and a TPG disable walks the linked
		 * channels and their sessions, the ACL info attribute their
		 * ACLs.
		 */
		mutex_lock(&sport->mutex);
		if (ch->nacl)
			container_of(ch->nacl, struct srpt_node_acl,
				     nacl)->channels--;
		ch->sess = NULL;
		ch->nacl = NULL;
		mutex_unlock(&sport->mutex);
		target_remove_session(sess);
		srpt_debug_delay(SRPT_DBG_SESSION_REMOVED);
	}
	srpt_ch_destroy_qp(ch);

	mutex_lock(&sport->mutex);
	srpt_ch_unlink(ch);
	closed = ch->closed;
	ch->closed = NULL;
	ch->released = true;
	mutex_unlock(&sport->mutex);

	srpt_ch_free_rings(ch);
	srpt_ch_info(ch, "channel released\n");
	if (closed)
		complete(closed);
	kref_put(&ch->kref, srpt_free_ch);
}

/*
 * Whether the TPG that holds the channel's session is enabled (true while no
 * session exists yet). Caller holds ch->sport->mutex, which also protects
 * srpt_tpg.enabled.
 */
static bool srpt_ch_tpg_enabled(struct srpt_rdma_ch *ch)
{
	lockdep_assert_held(&ch->sport->mutex);
	return !ch->sess || srpt_tpg_to_stpg(ch->sess->se_tpg)->enabled;
}

/**
 * srpt_ch_link() - add a channel to its I_T nexus, applying the multichannel
 * action of the login.
 * @ch: the new channel; it owns a LIO session.
 * @i_port_id: initiator port ID of the login request.
 * @t_port_id: target port ID of the login request.
 * @single: the login asked for SRP_MULTICHAN_SINGLE.
 * @rsp_flags: SRPT_LOGIN_RSP_MULTICHAN_* flags are or-ed in.
 *
 * The nexus is looked up or created here, after the ACL check, so that
 * refused logins leave nothing behind.
 *
 * The channels of the session's ACL are counted (srpt_node_acl.channels)
 * and bounded by srpt_acl_max_ch; with @single the channels of the same
 * ACL that this login closes do not count.
 *
 * Return: 0 if the channel was linked and the port and the TPG of its
 * session are still enabled; -ENODEV if it was linked but the port or that
 * TPG has been disabled meanwhile (a later disable finds the linked channel
 * and closes it); -ENOMEM if no nexus could be allocated and -EMLINK if the
 * ACL has srpt_acl_max_ch channels already (in both cases the channel is
 * not linked and nothing was closed). The login must be rejected on any
 * error.
 */
int srpt_ch_link(struct srpt_rdma_ch *ch, const u8 i_port_id[16],
		 const u8 t_port_id[16], bool single, u8 *rsp_flags)
{
	struct srpt_node_acl *nacl = container_of(ch->sess->se_node_acl,
						  struct srpt_node_acl, nacl);
	unsigned int max_ch = READ_ONCE(srpt_acl_max_ch), going = 0;
	struct srpt_port *sport = ch->sport;
	struct srpt_nexus *nexus;
	struct srpt_rdma_ch *other;
	int ret = 0;

	mutex_lock(&sport->mutex);
	nexus = srpt_get_nexus(sport, i_port_id, t_port_id);
	if (!nexus) {
		ret = -ENOMEM;
		goto unlock;
	}
	if (single)
		list_for_each_entry(other, &nexus->ch_list, list)
			going += other->nacl == &nacl->nacl;
	if (nacl->channels - going >= max_ch) {
		srpt_ch_info(ch, "initiator %s has %u channels (srpt_acl_max_ch %u): login refused\n",
			     nacl->nacl.initiatorname, nacl->channels, max_ch);
		srpt_nexus_free_if_empty(nexus);
		ret = -EMLINK;
		goto unlock;
	}
	if (single) {
		list_for_each_entry(other, &nexus->ch_list, list) {
			if (srpt_disconnect_ch(other) < 0)
				continue;
			srpt_ch_info(ch, "relogin - closed existing channel %s\n",
				     other->sess_name);
			*rsp_flags |= SRPT_LOGIN_RSP_MULTICHAN_TERMINATED;
		}
	} else {
		*rsp_flags |= SRPT_LOGIN_RSP_MULTICHAN_MAINTAINED;
	}
	ch->nexus = nexus;
	ch->id = atomic_inc_return(&srpt_ch_last_id);
	ch->nacl = &nacl->nacl;
	ch->acl_data_bytes = &nacl->data_bytes;
	nacl->channels++;
	list_add_tail_rcu(&ch->list, &nexus->ch_list);
	if (!sport->enabled || !srpt_ch_tpg_enabled(ch))
		ret = -ENODEV;
unlock:
	mutex_unlock(&sport->mutex);
	return ret;
}

/**
 * srpt_ch_may_accept_locked() - whether a login may still be accepted.
 * @ch: the channel.
 *
 * Caller holds sport->mutex.
 *
 * Return: true if the port and the TPG of the channel's session are enabled,
 * no use_srq switch runs and the channel is still connecting.
 */
bool srpt_ch_may_accept_locked(struct srpt_rdma_ch *ch)
{
	lockdep_assert_held(&ch->sport->mutex);
	return ch->sport->enabled && !READ_ONCE(ch->sport->sdev->srq_switching) &&
	       srpt_ch_tpg_enabled(ch) &&
	       srpt_get_ch_state(ch) == CH_CONNECTING;
}

static void srpt_disconnect_ch_sync(struct srpt_rdma_ch *ch)
{
	DECLARE_COMPLETION_ONSTACK(closed);
	struct srpt_port *sport = ch->sport;
	bool wait;
	int ret;

	srpt_ch_dbg(ch, "synchronous disconnect, state %s\n",
		    srpt_ch_state_name(srpt_get_ch_state(ch)));

	mutex_lock(&sport->mutex);
	wait = !ch->released;
	if (wait) {
		WARN_ON_ONCE(ch->closed);
		ch->closed = &closed;
		/* Keeps @ch valid for the progress messages below. */
		kref_get(&ch->kref);
		ret = srpt_disconnect_ch(ch);
		if (ret == -ENOTCONN)
			srpt_close_ch(ch);
	}
	mutex_unlock(&sport->mutex);
	if (!wait)
		return;

	while (!wait_for_completion_timeout(&closed, SRPT_WAIT_LOG_INTERVAL))
		srpt_ch_info(ch, "still waiting for the channel to be released (state %s)\n",
			     srpt_ch_state_name(srpt_get_ch_state(ch)));
	kref_put(&ch->kref, srpt_free_ch);
}

/**
 * srpt_close_session() - LIO close_session callback (e.g. ACL removal).
 * @se_sess: the session; fabric_sess_ptr is its channel.
 *
 * Disconnects the channel and waits until it has been released.
 */
void srpt_close_session(struct se_session *se_sess)
{
	struct srpt_rdma_ch *ch = se_sess->fabric_sess_ptr;

	srpt_disconnect_ch_sync(ch);
}

/*
 * Disconnect and close every channel of @sport whose session is in @tpg, or
 * every channel of the port if @tpg is NULL. Caller holds sport->mutex.
 */
static void srpt_channels_close(struct srpt_port *sport,
				struct se_portal_group *tpg)
{
	struct srpt_nexus *nexus;
	struct srpt_rdma_ch *ch;

	lockdep_assert_held(&sport->mutex);

	list_for_each_entry(nexus, &sport->nexus_list, entry) {
		list_for_each_entry(ch, &nexus->ch_list, list) {
			if (tpg && (!ch->sess || ch->sess->se_tpg != tpg))
				continue;
			if (srpt_disconnect_ch(ch) >= 0)
				srpt_ch_info(ch, "Closing channel because target %s has been disabled\n",
					     tpg ? config_item_name(&tpg->tpg_group.cg_item) :
						   "port");
			srpt_close_ch(ch);
		}
	}
}

/**
 * srpt_set_enabled() - enable or disable logins on a port.
 * @sport: the port.
 * @enabled: new value.
 *
 * Caller holds sport->mutex. Disabling closes every channel of the port.
 */
void srpt_set_enabled(struct srpt_port *sport, bool enabled)
{
	lockdep_assert_held(&sport->mutex);

	if (sport->enabled == enabled)
		return;
	sport->enabled = enabled;
	if (!enabled)
		srpt_channels_close(sport, NULL);
}

/**
 * srpt_tpg_set_enabled() - enable or disable one TPG of a port.
 * @sport: the port of the TPG.
 * @stpg: the TPG.
 * @enabled: new value.
 * @port_enabled: whether the port accepts logins afterwards (some TPG of
 *		  the port is enabled); the caller computes it under the
 *		  same lock hold.
 *
 * Caller holds sport->mutex. Disabling a TPG closes the channels whose
 * session is in it; the port itself is disabled (closing every channel)
 * only when @port_enabled is false, so the other TPGs of the port keep
 * their sessions and keep accepting logins.
 */
void srpt_tpg_set_enabled(struct srpt_port *sport, struct srpt_tpg *stpg,
			  bool enabled, bool port_enabled)
{
	lockdep_assert_held(&sport->mutex);

	stpg->enabled = enabled;
	if (!enabled)
		srpt_channels_close(sport, &stpg->tpg);
	srpt_set_enabled(sport, port_enabled);
}

static void srpt_channels_log(struct srpt_port *sport)
{
	struct srpt_nexus *nexus;
	struct srpt_rdma_ch *ch;

	rcu_read_lock();
	list_for_each_entry_rcu(nexus, &sport->nexus_list, entry) {
		list_for_each_entry_rcu(ch, &nexus->ch_list, list)
			srpt_ch_info(ch, "state %s\n",
				     srpt_ch_state_name(srpt_get_ch_state(ch)));
	}
	rcu_read_unlock();
}

/**
 * srpt_release_sport() - close every channel of a port and wait for them.
 * @sport: the port (its device is being removed).
 *
 * Logs progress every 5 seconds while channels remain. The release work of
 * the last channel of a nexus frees it, so no nexus should be left; one that
 * is left is freed here (with a warning).
 */
void srpt_release_sport(struct srpt_port *sport)
{
	struct srpt_nexus *nexus, *next;
	int n;

	mutex_lock(&sport->mutex);
	srpt_set_enabled(sport, false);
	mutex_unlock(&sport->mutex);

	/*
	 * Paired with srpt_ch_create(), as in srpt_use_srq(): a login counts
	 * its channel in ch_count before it reads sport->enabled, so after
	 * this barrier either that login sees the port disabled or the wait
	 * below sees its channel (a login handler still running holds a
	 * device reference, see srpt_sdev_lookup()). mutex_unlock() alone
	 * orders only the store before it, not the ch_count load after it.
	 */
	smp_mb();
	while (!wait_event_timeout(sport->ch_wq,
				   atomic_read(&sport->ch_count) == 0,
				   SRPT_WAIT_LOG_INTERVAL)) {
		n = atomic_read(&sport->ch_count);
		srpt_port_info(sport, "waiting for unregistration of %d sessions\n",
			       n);
		srpt_channels_log(sport);
	}

	mutex_lock(&sport->mutex);
	list_for_each_entry_safe(nexus, next, &sport->nexus_list, entry) {
		WARN_ON_ONCE(!list_empty(&nexus->ch_list));
		list_del_rcu(&nexus->entry);
		kfree_rcu(nexus, rcu);
	}
	mutex_unlock(&sport->mutex);
}
