// SPDX-License-Identifier: GPL-2.0
/*
 * cm.c - IB CM and RDMA CM listeners, their event handlers and SRP login.
 *
 * Both CMs feed one login path, srpt_cm_req_recv(), split into stages:
 * validate, create the channel, set up the LIO session, link the channel
 * into its I_T nexus, then accept or reject. Ownership contract with the
 * CMs: a handler that returns non-zero makes the CM destroy the cm_id; it
 * does so only for a connect request whose login failed before a LIO
 * session existed (struct srpt_login.started). In every other case the
 * channel release work destroys the cm_id, first of all, and that waits for
 * a handler still running on it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include "srpt.h"
#include "srpt_debug.h"
#include "srpt_login.h"
#include "srpt_names.h"
#include "srpt_trace.h"

/* The global RDMA CM listener (configfs discovery_auth/rdma_cm_port). */
static DEFINE_MUTEX(srpt_rdma_cm_mutex);
static struct rdma_cm_id *srpt_rdma_cm_id;
static u16 srpt_rdma_cm_port;

/**
 * struct srpt_login - one login request on its way through the stages.
 * @sdev: the HCA the request arrived on.
 * @sport: the port the request arrived on.
 * @ib_cm_id: IB CM id of the connection, or NULL.
 * @rdma_cm_id: RDMA CM id of the connection, or NULL.
 * @pkey: partition key of the connection.
 * @req: the login request (IB CM layout).
 * @src_name: session name derived from the connection: for IB CM the
 *	      GUID form of the initiator's GID, for RDMA CM the initiator's
 *	      address (docs/design.md, "Session and ACL names").
 * @old_name: RDMA CM only: the target's own address, the session name of
 *	      earlier versions, still tried after @src_name (docs/design.md,
 *	      "RDMA CM session names"); NULL for IB CM and when it equals
 *	      @src_name.
 * @ch: the channel once created.
 * @started: @ch owns a LIO session. From then on LIO, an enable=0, a
 *	     use_srq switch, a relogin or a device removal may close the
 *	     channel at any time, so only srpt_close_ch() may end it and its
 *	     release work destroys the cm_id (which waits for this handler to
 *	     return, see srpt_release_channel_work()). Set only by the login
 *	     itself and never derived from @ch->sess, which the release work
 *	     clears.
 * @reason: SRP_LOGIN_REJ reason if the login fails.
 * @rsp_flags: SRP_LOGIN_RSP flags collected so far.
 */
struct srpt_login {
	struct srpt_device		*sdev;
	struct srpt_port		*sport;
	struct ib_cm_id			*ib_cm_id;
	struct rdma_cm_id		*rdma_cm_id;
	u16				pkey;
	const struct srpt_login_req	*req;
	const char			*src_name;
	const char			*old_name;
	struct srpt_rdma_ch		*ch;
	bool				started;
	u32				reason;
	u8				rsp_flags;
};

/*
 * Whether a failed session lookup may go on with the next name or TPG:
 * only if no ACL matched (-EACCES from LIO, -ENOENT here). Any other error
 * (-ENOMEM) ends the login, so that a transient failure never lets it
 * match a different ACL, with other LUNs, than it normally would.
 */
static bool srpt_sess_no_acl(const struct se_session *sess)
{
	return IS_ERR(sess) &&
	       (PTR_ERR(sess) == -EACCES || PTR_ERR(sess) == -ENOENT);
}

/*
 * Try to create a session with @name in every enabled TPG of @port_id.
 * Caller holds sport->mutex (which protects srpt_tpg.enabled).
 */
static struct se_session *srpt_session_in(struct srpt_port_id *port_id,
					  struct srpt_rdma_ch *ch,
					  const char *name)
{
	struct se_session *sess = ERR_PTR(-ENOENT);
	struct srpt_tpg *stpg;

	lockdep_assert_held(&ch->sport->mutex);
	if (!port_id)
		return sess;
	mutex_lock(&port_id->mutex);
	list_for_each_entry(stpg, &port_id->tpg_list, entry) {
		if (!stpg->enabled)
			continue;
		/* no LIO tag pool: see srpt_get_send_ioctx() */
		sess = srpt_dbg_err_ptr("session",
					target_setup_session(&stpg->tpg, 0, 0,
							     TARGET_PROT_NORMAL,
							     name, ch, NULL));
		if (!sess)
			sess = ERR_PTR(-ENOENT);
		if (!srpt_sess_no_acl(sess))
			break;
	}
	mutex_unlock(&port_id->mutex);
	return sess;
}

/*
 * A session of an RDMA CM login was created under the old name, the
 * target's address: ask the administrator, once per ACL, to name the ACL
 * after the initiator. Caller holds sport->mutex; @sess and its ACL and TPG
 * stay valid while the login handler runs (see struct srpt_login.started).
 */
static void srpt_login_warn_old_name(struct srpt_login *l,
				     struct se_session *sess)
{
	struct srpt_node_acl *nacl;
	struct srpt_tpg *stpg;

	lockdep_assert_held(&l->sport->mutex);
	nacl = container_of(sess->se_node_acl, struct srpt_node_acl, nacl);
	if (test_and_set_bit(SRPT_NACL_OLD_NAME_WARNED, &nacl->flags))
		return;
	stpg = container_of(sess->se_tpg, struct srpt_tpg, tpg);
	srpt_port_warn(l->sport, "RDMA/CM login of %s matched ACL %s of %s/%s, which is named after the target's own address (the old RDMA/CM session name); name the ACL after the initiator's address, %s, instead (warned once per ACL)\n",
		       l->src_name, l->old_name, stpg->sport_id->name,
		       config_item_name(&sess->se_tpg->tpg_group.cg_item),
		       l->src_name);
}

/*
 * The names a login is looked up under, in order: TPGs of the GUID-named
 * directory with the connection name, for RDMA CM then with the old name
 * (the target's address), then TPGs of the GID-named directory with the
 * initiator port ID, first with and then without "0x". This order makes
 * existing targetcli configurations work unchanged.
 */
struct srpt_login_name {
	struct srpt_port_id	*port_id;
	const char		*name;
	bool			old;
};

enum { SRPT_LOGIN_NAMES = 4 };

/* Fill @n with the names of @l; @i_port_id is its "0x" hex form. */
static void srpt_login_names(struct srpt_login *l, const char *i_port_id,
			     struct srpt_login_name n[SRPT_LOGIN_NAMES])
{
	struct srpt_port *sport = l->sport;

	n[0] = (struct srpt_login_name){ sport->guid_id, l->src_name, false };
	n[1] = (struct srpt_login_name){ sport->guid_id, l->old_name, true };
	n[2] = (struct srpt_login_name){ sport->gid_id, i_port_id, false };
	n[3] = (struct srpt_login_name){ sport->gid_id, i_port_id + 2, false };
}

/*
 * Whether an enabled TPG of @port_id has an ACL named @name. The driver has
 * no demo mode, so an ACL is the only way in. Caller holds sport->mutex.
 */
static bool srpt_acl_in(struct srpt_port_id *port_id, const char *name)
{
	char buf[TRANSPORT_IQN_LEN];
	struct se_node_acl *nacl;
	struct srpt_tpg *stpg;
	bool found = false;

	if (!port_id || !name)
		return false;
	/* (the lookup takes a non-const name on older kernels) */
	strscpy(buf, name, sizeof(buf));
	mutex_lock(&port_id->mutex);
	list_for_each_entry(stpg, &port_id->tpg_list, entry) {
		if (!stpg->enabled)
			continue;
		nacl = core_tpg_get_initiator_node_acl(&stpg->tpg, buf);
		if (nacl) {
			target_put_nacl(nacl);
			found = true;
			break;
		}
	}
	mutex_unlock(&port_id->mutex);
	return found;
}

/*
 * Stage, before anything is allocated for the channel: some ACL must know
 * the initiator. A login is refused for want of an ACL far more often than
 * for anything else (a wrong port, a scanning initiator, a hostile one),
 * and a channel at the largest srp_rq_size maps hundreds of MiB of rings;
 * logins are handled one at a time, so a stream of unknown initiators
 * would otherwise delay every other login of the port. The session itself
 * is created later (srpt_login_session()), and fails cleanly if the ACL
 * went away in between.
 */
static int srpt_login_acl_known(struct srpt_login *l)
{
	struct srpt_login_name n[SRPT_LOGIN_NAMES];
	char i_port_id[SRPT_HEX128_NAME_SIZE];
	bool found = false;
	unsigned int i;

	srpt_format_port_id(i_port_id, sizeof(i_port_id),
			    l->req->initiator_port_id);
	mutex_lock(&l->sport->mutex);
	srpt_login_names(l, i_port_id, n);
	for (i = 0; i < SRPT_LOGIN_NAMES && !found; i++)
		found = srpt_acl_in(n[i].port_id, n[i].name);
	mutex_unlock(&l->sport->mutex);
	if (found)
		return 0;
	if (l->old_name)
		srpt_login_info(l->sport, "Rejected login for initiator %s: no ACL for %s (old name: %s) or %s\n",
				i_port_id, l->src_name, l->old_name, i_port_id);
	else
		srpt_login_info(l->sport, "Rejected login for initiator %s: no ACL for %s or %s\n",
				i_port_id, l->src_name, i_port_id);
	l->reason = SRPT_LOGIN_REJ_CHANNEL_LIMIT_REACHED;
	return -EACCES;
}

/*
 * Stage: create the LIO session under the first name (srpt_login_names())
 * an ACL matches. No matching ACL (it went away since
 * srpt_login_acl_known()) rejects the login with CHANNEL_LIMIT_REACHED.
 */
static int srpt_login_session(struct srpt_login *l)
{
	struct srpt_login_name n[SRPT_LOGIN_NAMES];
	struct srpt_rdma_ch *ch = l->ch;
	struct srpt_port *sport = l->sport;
	char i_port_id[SRPT_HEX128_NAME_SIZE];
	struct se_session *sess = ERR_PTR(-ENOENT);
	unsigned int i;

	strscpy(ch->sess_name, l->src_name, sizeof(ch->sess_name));
	srpt_format_port_id(i_port_id, sizeof(i_port_id),
			    l->req->initiator_port_id);

	/*
	 * The port_id slots are written under sport->mutex (port.c), so
	 * holding it keeps the port name directories alive while their TPG
	 * lists are walked (lock order sport->mutex -> port_id->mutex).
	 */
	mutex_lock(&sport->mutex);
	srpt_login_names(l, i_port_id, n);
	for (i = 0; i < SRPT_LOGIN_NAMES && srpt_sess_no_acl(sess); i++) {
		if (!n[i].name)
			continue;
		sess = srpt_session_in(n[i].port_id, ch, n[i].name);
		if (!IS_ERR(sess) && n[i].old)
			srpt_login_warn_old_name(l, sess);
	}
	mutex_unlock(&sport->mutex);
	if (IS_ERR(sess) && !srpt_sess_no_acl(sess))
		srpt_login_info(sport, "Rejected login for initiator %s: creating its session failed: %ld\n",
				i_port_id, PTR_ERR(sess));
	else if (IS_ERR(sess))
		srpt_login_info(sport, "Rejected login for initiator %s: its ACL went away during the login\n",
				i_port_id);
	if (IS_ERR(sess)) {
		l->reason = PTR_ERR(sess) == -ENOMEM ?
			SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES :
			SRPT_LOGIN_REJ_CHANNEL_LIMIT_REACHED;
		return PTR_ERR(sess);
	}
	ch->sess = sess;
	l->started = true;
	return 0;
}

/* Stage: validate the request and create the channel. */
static int srpt_login_create_ch(struct srpt_login *l)
{
	const struct srpt_login_req *req = l->req;
	struct srpt_login_limits lim = {
		.max_req_size	= srp_max_req_size,
		.service_guid	= srpt_service_guid,
		.enabled	= READ_ONCE(l->sport->enabled),
		.use_srq	= READ_ONCE(l->sdev->use_srq),
	};
	struct srpt_rdma_ch *ch;
	int ret;

	/*
	 * Nothing here is kept per initiator: the I_T nexus is only looked
	 * up (or created) by srpt_ch_link(), after the ACL check, so refused
	 * logins leave no memory behind.
	 */
	l->reason = srpt_login_check(req, &lim);
	if (l->reason)
		return -EINVAL;
	ret = srpt_login_acl_known(l);
	if (ret)
		return ret;

	ch = srpt_ch_create(l->sport, l->ib_cm_id, l->rdma_cm_id,
			    l->pkey, be32_to_cpu(req->req_it_iu_len),
			    srpt_login_imm_data_offset(req, &lim), lim.use_srq);
	if (IS_ERR(ch)) {
		l->reason = SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES;
		return PTR_ERR(ch);
	}
	l->ch = ch;
	if (ch->imm_data_offset)
		l->rsp_flags |= SRPT_LOGIN_RSP_IMMED_SUPP;
	return 0;
}

/* Stage: send the REP / accept the connection under sport->mutex. */
static int srpt_login_accept(struct srpt_login *l)
{
	struct srpt_rdma_ch *ch = l->ch;
	struct srpt_login_rsp rsp;
	int ret;

	srpt_login_build_rsp(&rsp, l->req, srp_max_req_size, ch->rq_size,
			     l->rsp_flags);
	atomic_set(&ch->req_lim, ch->rq_size);
	atomic_set(&ch->req_lim_delta, 0);

	mutex_lock(&l->sport->mutex);
	if (!srpt_ch_may_accept_locked(ch)) {
		ret = -EINVAL;
	} else if (ch->using_rdma_cm) {
		struct rdma_conn_param param = {
			.private_data		= &rsp,
			.private_data_len	= sizeof(rsp),
			.rnr_retry_count	= 7,
			.flow_control		= 1,
			.responder_resources	= SRPT_RDMA_DEPTH,
			.initiator_depth	= SRPT_RDMA_DEPTH,
		};

		ret = rdma_accept(l->rdma_cm_id, &param);
	} else {
		struct ib_cm_rep_param param = {
			.qp_num			= ch->qp->qp_num,
			.private_data		= &rsp,
			.private_data_len	= sizeof(rsp),
			.rnr_retry_count	= 7,
			.flow_control		= 1,
			.failover_accepted	= 0,
			.srq			= 1,
			.responder_resources	= SRPT_RDMA_DEPTH,
			.initiator_depth	= SRPT_RDMA_DEPTH,
		};

		ret = ib_send_cm_rep(l->ib_cm_id, &param);
	}
	mutex_unlock(&l->sport->mutex);

	if (ret)
		l->reason = SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	return ret;
}

/*
 * Stage: reject. Who tears the channel down is decided by @l->started alone:
 * a started channel is closed (it may already be closing) and its release
 * work owns the cm_id, so the handler returns 0; otherwise nobody else knows
 * the channel, it is freed here and the CM destroys the cm_id.
 * Return: the value the CM handler must return.
 */
static int srpt_login_reject(struct srpt_login *l, int err)
{
	struct srpt_rdma_ch *ch = l->ch;
	struct srpt_login_rej rej;
	int ret;

	if (!l->reason)
		l->reason = SRPT_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	srpt_login_info(l->sport, "Rejecting login from %s: %s (reason %#x, error %d)\n",
			l->src_name, srpt_login_rej_str(l->reason),
			l->reason, err);
	srpt_port_login_rejected(l->sport, l->reason, l->req->initiator_port_id,
				 l->src_name);
	trace_srpt_login_reject(l->sport, l->src_name,
				l->req->initiator_port_id, l->reason, err,
				l->rdma_cm_id);

	srpt_login_build_rej(&rej, l->req->tag, l->reason);
	if (l->rdma_cm_id)
		ret = rdma_reject(l->rdma_cm_id, &rej, sizeof(rej),
				  IB_CM_REJ_CONSUMER_DEFINED);
	else
		ret = ib_send_cm_rej(l->ib_cm_id, IB_CM_REJ_CONSUMER_DEFINED,
				     NULL, 0, &rej, sizeof(rej));
	if (ret)
		srpt_port_warn_ratelimited(l->sport, "sending the login reject failed: %d\n",
					   ret);

	if (l->started) {
		/*
		 * @ch is still valid: its release work cannot get past the
		 * cm_id destruction before this handler has returned.
		 */
		srpt_close_ch(ch);
		return 0;
	}
	if (ch)
		srpt_ch_destroy_unstarted(ch);
	return err ? err : -EINVAL;
}

/**
 * srpt_cm_req_recv() - process a login request from either CM.
 * @l: the request and its connection; @l->ch is set here.
 *
 * Return: 0 if the driver owns the cm_id (login accepted, or rejected after
 * the session existed), non-zero if the CM must destroy it.
 */
static int srpt_cm_req_recv(struct srpt_login *l)
{
	const struct srpt_login_req *req = l->req;
	int ret;

	srpt_login_info(l->sport, "Received SRP_LOGIN_REQ with i_port_id %pI6, t_port_id %pI6 and it_iu_len %u; pkey %#06x; from %s\n",
			req->initiator_port_id, req->target_port_id,
			be32_to_cpu(req->req_it_iu_len), l->pkey,
			l->src_name);

	ret = srpt_login_create_ch(l);
	if (ret)
		return srpt_login_reject(l, ret);

	ret = srpt_login_session(l);
	if (ret)
		return srpt_login_reject(l, ret);

	/* From here on (l->started) failures close the channel. */
	ret = srpt_ch_link(l->ch, req->initiator_port_id, req->target_port_id,
			   srpt_login_single_channel(req), &l->rsp_flags);
	if (ret) {
		l->reason = ret == -EMLINK ?
			SRPT_LOGIN_REJ_CHANNEL_LIMIT_REACHED :
			SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES;
		return srpt_login_reject(l, ret);
	}
	srpt_debug_delay(SRPT_DBG_LOGIN_LINKED);

	if (l->ib_cm_id) {
		ret = srpt_ch_qp_rtr(l->ch);
		if (ret) {
			srpt_ch_err_ratelimited(l->ch, "moving the QP to RTR failed: %d\n",
						ret);
			l->reason = SRPT_LOGIN_REJ_INSUFFICIENT_RESOURCES;
			return srpt_login_reject(l, ret);
		}
	}

	ret = srpt_login_accept(l);
	if (ret)
		return srpt_login_reject(l, ret);

	srpt_ch_login_accepted(l->ch);
	srpt_port_info(l->sport, "Accepted login of %s (channel %s, rq_size %d, imm_data_offset %u, flags %#x)\n",
		       l->ch->sess_name, l->rdma_cm_id ? "RDMA/CM" : "IB/CM",
		       l->ch->rq_size, l->ch->imm_data_offset, l->rsp_flags);
	trace_srpt_login_accept(l->ch, req->initiator_port_id, l->rsp_flags);
	return 0;
}

static struct srpt_port *srpt_login_port(struct srpt_device *sdev,
					 u32 port_num)
{
	if (port_num < 1 || port_num > sdev->port_cnt)
		return NULL;
	return &sdev->port[port_num - 1];
}

/* IB CM connect request: private data holds the 64-byte SRP_LOGIN_REQ. */
static int srpt_ib_cm_req_recv(struct ib_cm_id *cm_id,
			       const struct ib_cm_event *event)
{
	const struct ib_cm_req_event_param *param = &event->param.req_rcvd;
	struct srpt_login_req req;
	char name[SRPT_GUID_NAME_SIZE];
	struct srpt_login l = {
		.ib_cm_id	= cm_id,
		.req		= &req,
		.src_name	= name,
	};
	int ret;

	/* a reference, not the listener's context: see srpt_sdev_lookup() */
	l.sdev = srpt_sdev_lookup(cm_id->device);
	if (!l.sdev)
		return -ECONNREFUSED;
	srpt_debug_delay(SRPT_DBG_CM_REQ);
	l.sport = srpt_login_port(l.sdev, param->port);
	if (!l.sport ||
	    srpt_login_from_ib_cm(&req, event->private_data,
				  event->private_data ?
				  IB_CM_REQ_PRIVATE_DATA_SIZE : 0)) {
		srpt_dev_warn_ratelimited(l.sdev, "ignoring malformed IB CM login request\n");
		ret = -EINVAL;
		goto put;
	}
	l.pkey = be16_to_cpu(param->primary_path->pkey);
	srpt_format_guid_name(name, sizeof(name),
			      param->primary_path->dgid.raw);
	ret = srpt_cm_req_recv(&l);
put:
	srpt_sdev_put(l.sdev);
	return ret;
}

/**
 * srpt_rdma_cm_names() - the session names of an RDMA CM connection.
 * @cm_id: the passive-side id of the connect request.
 * @name: receives the initiator's address (SRPT_IP_NAME_SIZE bytes).
 * @old_name: receives the target's address, the name earlier versions
 *	      used (SRPT_IP_NAME_SIZE bytes).
 *
 * On the passive side the RDMA CM stores the peer's (initiator's) address
 * in route.addr.dst_addr and the local (target's) address in src_addr, for
 * IB/RoCE (taken from the CM header of the REQ) and iWARP (from the
 * connection) alike (docs/design.md, "RDMA CM session names").
 *
 * Return: true if @old_name differs from @name (it is then worth a try).
 */
static bool srpt_rdma_cm_names(const struct rdma_cm_id *cm_id, char *name,
			       char *old_name)
{
	const struct sockaddr *dst =
		(const struct sockaddr *)&cm_id->route.addr.dst_addr;
	int ret = -EINVAL;

	if (dst->sa_family == AF_INET)
		ret = srpt_format_ip_name(name, SRPT_IP_NAME_SIZE,
					  (const u8 *)&((const struct sockaddr_in *)dst)->sin_addr,
					  4);
	else if (dst->sa_family == AF_INET6)
		ret = srpt_format_ip_name(name, SRPT_IP_NAME_SIZE,
					  ((const struct sockaddr_in6 *)dst)->sin6_addr.s6_addr,
					  16);
	if (ret < 0)
		snprintf(name, SRPT_IP_NAME_SIZE, "%pIS", dst);
	/* byte for byte what earlier versions (and the in-kernel driver) used */
	snprintf(old_name, SRPT_IP_NAME_SIZE, "%pIS",
		 &cm_id->route.addr.src_addr);
	return strcmp(name, old_name) != 0;
}

/* RDMA CM connect request: private data holds the 56-byte variant. */
static int srpt_rdma_cm_req_recv(struct rdma_cm_id *cm_id,
				 const struct rdma_cm_event *event)
{
	struct srpt_login_req req;
	char name[SRPT_IP_NAME_SIZE], old_name[SRPT_IP_NAME_SIZE];
	struct srpt_login l = {
		.rdma_cm_id	= cm_id,
		.req		= &req,
		.src_name	= name,
	};
	int ret;

	/*
	 * Not ib_get_client_data(): that pointer carries no reference and
	 * srpt_remove_one() may free the device meanwhile.
	 */
	l.sdev = srpt_sdev_lookup(cm_id->device);
	if (!l.sdev)
		return -ECONNREFUSED;
	srpt_debug_delay(SRPT_DBG_CM_REQ);
	l.sport = srpt_login_port(l.sdev, cm_id->port_num);
	if (!l.sport ||
	    srpt_login_from_rdma_cm(&req, event->param.conn.private_data,
				    event->param.conn.private_data_len)) {
		srpt_dev_warn_ratelimited(l.sdev, "ignoring malformed RDMA CM login request (%u bytes)\n",
					  event->param.conn.private_data_len);
		ret = -EINVAL;
		goto put;
	}
	if (cm_id->route.path_rec)
		l.pkey = be16_to_cpu(cm_id->route.path_rec->pkey);
	if (srpt_rdma_cm_names(cm_id, name, old_name))
		l.old_name = old_name;
	ret = srpt_cm_req_recv(&l);
put:
	srpt_sdev_put(l.sdev);
	return ret;
}

/* Act on a non-REQ event of a channel (both CMs). */
static void srpt_cm_act(struct srpt_rdma_ch *ch, enum srpt_cm_ev ev,
			const char *ev_name)
{
	enum srpt_cm_act act;

	act = srpt_cm_event_action(ev, ch, ch ? READ_ONCE(ch->state) : 0);
	switch (act) {
	case SRPT_CM_ACT_RTU:
		srpt_ch_established(ch);
		break;
	case SRPT_CM_ACT_DISCONNECT:
		srpt_disconnect_ch(ch);
		break;
	case SRPT_CM_ACT_DISCONNECT_CLOSE:
		srpt_disconnect_ch(ch);
		srpt_close_ch(ch);
		break;
	case SRPT_CM_ACT_CLOSE:
		srpt_ch_dbg(ch, "%s\n", ev_name);
		srpt_close_ch(ch);
		break;
	case SRPT_CM_ACT_LOG:
		if (ch)
			srpt_ch_info_ratelimited(ch, "received %s\n", ev_name);
		else
			pr_info_ratelimited("received %s without a channel\n",
					    ev_name);
		break;
	case SRPT_CM_ACT_UNEXPECTED:
		if (ch)
			srpt_ch_err_ratelimited(ch, "received unexpected CM event %s\n",
						ev_name);
		else
			pr_err_ratelimited("received unexpected CM event %s without a channel\n",
					   ev_name);
		break;
	case SRPT_CM_ACT_NONE:
	case SRPT_CM_ACT_LOGIN:
		break;
	}
}

/*
 * Every IB CM event, by name: what a passive side can receive is mapped to
 * what it means for a channel; the events of an active side (we never
 * send a REQ, LAP or SIDR_REQ) are OTHER, an error if they ever came.
 * SIDR_REQ never gets here (srpt_cm_handler()).
 */
static enum srpt_cm_ev srpt_ib_cm_ev(enum ib_cm_event_type type)
{
	switch (type) {
	case IB_CM_REQ_RECEIVED:
		return SRPT_CM_EV_REQ;
	case IB_CM_REJ_RECEIVED:
		return SRPT_CM_EV_REJ;
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		return SRPT_CM_EV_ESTABLISHED;
	case IB_CM_DREQ_RECEIVED:
		return SRPT_CM_EV_DREQ;
	case IB_CM_DREP_RECEIVED:
		return SRPT_CM_EV_DREP;
	case IB_CM_TIMEWAIT_EXIT:
		return SRPT_CM_EV_TIMEWAIT_EXIT;
	case IB_CM_REP_ERROR:
		return SRPT_CM_EV_CONN_ERROR;
	case IB_CM_DREQ_ERROR:
	case IB_CM_MRA_RECEIVED:
	case IB_CM_LAP_RECEIVED:	/* no path migration: the CM answers */
		return SRPT_CM_EV_INFO;
	case IB_CM_REQ_ERROR:
	case IB_CM_REP_RECEIVED:
	case IB_CM_LAP_ERROR:
	case IB_CM_APR_RECEIVED:
	case IB_CM_SIDR_REQ_ERROR:
	case IB_CM_SIDR_REQ_RECEIVED:
	case IB_CM_SIDR_REP_RECEIVED:
		return SRPT_CM_EV_OTHER;
	}
	return SRPT_CM_EV_OTHER;
}

static const char *srpt_ib_cm_ev_name(enum ib_cm_event_type type)
{
	switch (type) {
	case IB_CM_REJ_RECEIVED:
		return "REJ";
	case IB_CM_RTU_RECEIVED:
		return "RTU";
	case IB_CM_USER_ESTABLISHED:
		return "USER_ESTABLISHED";
	case IB_CM_DREQ_RECEIVED:
		return "DREQ";
	case IB_CM_DREP_RECEIVED:
		return "DREP";
	case IB_CM_TIMEWAIT_EXIT:
		return "TIMEWAIT_EXIT";
	case IB_CM_REP_ERROR:
		return "REP_ERROR";
	case IB_CM_DREQ_ERROR:
		return "DREQ_ERROR";
	case IB_CM_MRA_RECEIVED:
		return "MRA";
	case IB_CM_LAP_RECEIVED:
		return "LAP";
	case IB_CM_REQ_ERROR:
		return "REQ_ERROR";
	case IB_CM_REP_RECEIVED:
		return "REP";
	case IB_CM_LAP_ERROR:
		return "LAP_ERROR";
	case IB_CM_APR_RECEIVED:
		return "APR";
	case IB_CM_SIDR_REQ_ERROR:
		return "SIDR_REQ_ERROR";
	case IB_CM_SIDR_REP_RECEIVED:
		return "SIDR_REP";
	default:
		return "unknown IB CM event";
	}
}

/**
 * srpt_ib_cm_sidr_req_recv() - answer a service ID resolution request.
 * @cm_id: the new cm_id the IB CM made for the request (its context is the
 *	   listener's, NULL: never a channel).
 *
 * SRP runs on RC connections only, so there is no UD service to resolve:
 * the request gets a SIDR REP with status "unsupported", as the IB CM's
 * own reject does for a cm_id that is destroyed unanswered.
 *
 * Return: non-zero, so that the IB CM destroys @cm_id (nothing else
 * refers to it).
 */
static int srpt_ib_cm_sidr_req_recv(struct ib_cm_id *cm_id)
{
	struct ib_cm_sidr_rep_param rep = { .status = IB_SIDR_UNSUPPORTED };
	int ret;

	pr_info_ratelimited("%s: refusing an IB CM SIDR_REQ for service ID %#llx (SRP uses RC connections only)\n",
			    dev_name(&cm_id->device->dev),
			    be64_to_cpu(cm_id->service_id));
	ret = ib_send_cm_sidr_rep(cm_id, &rep);
	if (ret)
		pr_warn_ratelimited("sending the SIDR REP failed: %d\n", ret);
	return -EPROTONOSUPPORT;
}

/**
 * srpt_cm_handler() - IB CM event handler of the listener and the channels.
 * @cm_id: the listener's cm_id never gets events; a new cm_id of a REQ or
 *	   SIDR_REQ starts with the listener's context, NULL, and a REQ's
 *	   becomes its channel (srpt_ch_create()).
 * @event: the event.
 *
 * cm_id->context is read as a channel only for events of an established
 * or connecting cm_id, whose context srpt_ch_create() set.
 *
 * Return: non-zero only for a REQ whose login failed and for a SIDR_REQ;
 * the IB CM then destroys @cm_id.
 */
static int srpt_cm_handler(struct ib_cm_id *cm_id,
			   const struct ib_cm_event *event)
{
	enum srpt_cm_ev ev = srpt_ib_cm_ev(event->event);

	if (ev == SRPT_CM_EV_REQ)
		return srpt_ib_cm_req_recv(cm_id, event);
	if (event->event == IB_CM_SIDR_REQ_RECEIVED)
		return srpt_ib_cm_sidr_req_recv(cm_id);
	if (event->event == IB_CM_REJ_RECEIVED)
		pr_info_ratelimited("received IB CM REJ, reason %d (%s)\n",
				    event->param.rej_rcvd.reason,
				    ibcm_reject_msg(event->param.rej_rcvd.reason));
	srpt_cm_act(cm_id->context, ev, srpt_ib_cm_ev_name(event->event));
	return 0;
}

static enum srpt_cm_ev srpt_rdma_cm_ev(enum rdma_cm_event_type type)
{
	switch (type) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return SRPT_CM_EV_REQ;
	case RDMA_CM_EVENT_REJECTED:
		return SRPT_CM_EV_REJ;
	case RDMA_CM_EVENT_ESTABLISHED:
		return SRPT_CM_EV_ESTABLISHED;
	case RDMA_CM_EVENT_DISCONNECTED:
		return SRPT_CM_EV_DISCONNECTED;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return SRPT_CM_EV_TIMEWAIT_EXIT;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		return SRPT_CM_EV_CONN_ERROR;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		return SRPT_CM_EV_IGNORE;
	default:
		return SRPT_CM_EV_OTHER;
	}
}

/* RDMA CM handler. Returns non-zero only for a request whose login failed. */
static int srpt_rdma_cm_handler(struct rdma_cm_id *cm_id,
				struct rdma_cm_event *event)
{
	enum srpt_cm_ev ev = srpt_rdma_cm_ev(event->event);

	if (ev == SRPT_CM_EV_REQ)
		return srpt_rdma_cm_req_recv(cm_id, event);
	if (event->event == RDMA_CM_EVENT_REJECTED)
		pr_info_ratelimited("received RDMA CM reject, status %d\n",
				    event->status);
	srpt_cm_act(cm_id->context, ev, rdma_event_msg(event->event));
	return 0;
}

/**
 * srpt_ib_cm_listen() - create the IB CM listener of an HCA.
 * @sdev: the HCA; sdev->cm_id is set on success.
 *
 * HCAs whose port 1 has an InfiniBand link layer get one, and with
 * srpt_ib_cm_roce also those whose port 1 is RoCE (whose ports carry the
 * IB CM over RoCE v1/v2); iWARP ports have no IB CM. The service ID is
 * srpt_service_guid.
 *
 * Return: 0 on success or when no listener is needed, a negative errno
 * otherwise (the caller decides whether RDMA CM alone is enough).
 */
int srpt_ib_cm_listen(struct srpt_device *sdev)
{
	struct ib_cm_id *cm_id;
	int ret;

	sdev->cm_id = NULL;
	if (!rdma_cap_ib_cm(sdev->device, 1) ||
	    (rdma_port_get_link_layer(sdev->device, 1) !=
	     IB_LINK_LAYER_INFINIBAND && !srpt_ib_cm_roce))
		return 0;
	/*
	 * Context NULL: the IB CM copies it into the cm_id of every REQ and
	 * SIDR_REQ, and srpt_cm_handler() must not take it for a channel.
	 * Login handlers find the device with srpt_sdev_lookup().
	 */
	cm_id = ib_create_cm_id(sdev->device, srpt_cm_handler, NULL);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		srpt_dev_err(sdev, "ib_create_cm_id() failed: %d\n", ret);
		return ret;
	}
	ret = srpt_compat_ib_cm_listen(cm_id, cpu_to_be64(srpt_service_guid));
	if (ret) {
		srpt_dev_err(sdev, "ib_cm_listen() failed: %d\n", ret);
		ib_destroy_cm_id(cm_id);
		return ret;
	}
	sdev->cm_id = cm_id;
	return 0;
}

/**
 * srpt_ib_cm_stop() - destroy the IB CM listener of an HCA, if any.
 * @sdev: the HCA.
 */
void srpt_ib_cm_stop(struct srpt_device *sdev)
{
	if (sdev->cm_id)
		ib_destroy_cm_id(sdev->cm_id);
	sdev->cm_id = NULL;
}

/* Create an RDMA CM listener on the IPv6 (else IPv4) wildcard address. */
static struct rdma_cm_id *srpt_rdma_cm_listen(u16 port)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family	= AF_INET6,
		.sin6_addr	= IN6ADDR_ANY_INIT,
		.sin6_port	= cpu_to_be16(port),
	};
	struct sockaddr_in sin = {
		.sin_family	= AF_INET,
		.sin_addr.s_addr = cpu_to_be32(INADDR_ANY),
		.sin_port	= cpu_to_be16(port),
	};
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, srpt_rdma_cm_handler, NULL,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		pr_err("rdma_create_id() failed: %ld\n", PTR_ERR(id));
		return id;
	}
	ret = rdma_bind_addr(id, (struct sockaddr *)&sin6);
	if (ret) {
		pr_debug("binding to [::]:%u failed (%d); trying IPv4\n", port,
			 ret);
		ret = rdma_bind_addr(id, (struct sockaddr *)&sin);
	}
	if (ret) {
		pr_err("binding the RDMA/CM listener to port %u failed: %d\n",
		       port, ret);
		goto destroy;
	}
	ret = rdma_listen(id, SRPT_RDMA_CM_BACKLOG);
	if (ret) {
		pr_err("rdma_listen() on port %u failed: %d\n", port, ret);
		goto destroy;
	}
	return id;

destroy:
	rdma_destroy_id(id);
	return ERR_PTR(ret);
}

/**
 * srpt_rdma_cm_set_port() - move, start or stop the RDMA CM listener.
 * @port: new port; 0 stops the listener.
 *
 * The new listener is created before the old one is destroyed; writing the
 * current value does nothing.
 *
 * Return: 0 or a negative errno (the old listener then stays).
 */
int srpt_rdma_cm_set_port(u16 port)
{
	struct rdma_cm_id *new_id = NULL, *old_id;

	mutex_lock(&srpt_rdma_cm_mutex);
	if (port == srpt_rdma_cm_port) {
		mutex_unlock(&srpt_rdma_cm_mutex);
		return 0;
	}
	if (port) {
		new_id = srpt_rdma_cm_listen(port);
		if (IS_ERR(new_id)) {
			mutex_unlock(&srpt_rdma_cm_mutex);
			return PTR_ERR(new_id);
		}
	}
	old_id = srpt_rdma_cm_id;
	srpt_rdma_cm_id = new_id;
	srpt_rdma_cm_port = port;
	mutex_unlock(&srpt_rdma_cm_mutex);

	if (old_id)
		rdma_destroy_id(old_id);
	return 0;
}

/**
 * srpt_rdma_cm_get_port() - port of the RDMA CM listener.
 *
 * Return: the port, 0 if there is no listener.
 */
u16 srpt_rdma_cm_get_port(void)
{
	u16 port;

	mutex_lock(&srpt_rdma_cm_mutex);
	port = srpt_rdma_cm_port;
	mutex_unlock(&srpt_rdma_cm_mutex);
	return port;
}

/**
 * srpt_rdma_cm_stop() - destroy the RDMA CM listener (module exit, before
 * the IB client is unregistered).
 */
void srpt_rdma_cm_stop(void)
{
	srpt_rdma_cm_set_port(0);
}
