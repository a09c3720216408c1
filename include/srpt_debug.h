/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_debug.h - test-only hooks, compiled in only by a debug build
 * (make SRPT_DEBUG_HOOKS=y, see src/debug.c). In a normal build every hook
 * is an empty (or identity) inline function and the module has no debug
 * parameters.
 */
#ifndef SRPT_DEBUG_H
#define SRPT_DEBUG_H

#include <linux/err.h>
#include <linux/types.h>

/**
 * enum srpt_debug_point - places where a debug build can be made to sleep.
 * @SRPT_DBG_NONE: no hook.
 * @SRPT_DBG_CM_REQ: a CM connect request handler, right after it found the
 *		     HCA the request arrived on (login against device
 *		     removal).
 * @SRPT_DBG_LOGIN_LINKED: srpt_cm_req_recv() after the channel was linked
 *			   into its nexus and before the QP moves to RTR and
 *			   the login is accepted (login against channel
 *			   release).
 * @SRPT_DBG_LOCAL_RSP_DONE: srpt_send_done() of a response the driver built
 *			     itself (LIO does not count the command), after
 *			     the completion was taken and before the tag is
 *			     freed into ch->sess (a CQ work item sleeps; the
 *			     channel's other completions wait behind it).
 *			     A release work that does not wait for such
 *			     completions frees the session, the QP or the
 *			     send ring inside the sleep.
 * @SRPT_DBG_DEFER_REQUEUE: srpt_rsp_list_kick() called by
 *			    srpt_rsp_defer() (a response that found the send
 *			    queue full, from LIO's TMR work or the wait list
 *			    work, never from a completion), after the head
 *			    of the list of deferred responses did not fit in
 *			    the send queue and before @ch->rsp_lock is
 *			    dropped. Busy-waits (srpt_debug_spin(), the lock
 *			    is held with interrupts off) and logs the send
 *			    queue room before and after: completions that
 *			    give all room back inside the wait must still
 *			    get the response posted (no lost wakeup).
 * @SRPT_DBG_SESSION_REMOVED: srpt_release_channel_work() right after the
 *			      LIO session was removed (freed) and before the
 *			      channel is unlinked from its nexus: a TPG
 *			      disable that walks the port's channels inside
 *			      the sleep finds this one still linked and must
 *			      not look at its session (tests/vm/cases/
 *			      212-release-tpg-disable.sh).
 * @SRPT_DBG_DISCONNECT: srpt_disconnect_ch() after it moved the channel to
 *			 CH_DISCONNECTING and before it sends the DREQ (or
 *			 calls rdma_disconnect()) on the cm_id: a
 *			 disconnect outside a CM handler (TPG disable,
 *			 relogin, close_session) holds srpt_port.mutex here,
 *			 and the channel's release work must not destroy the
 *			 cm_id inside the sleep (tests/vm/cases/
 *			 215-disconnect-release.sh).
 * @SRPT_DBG_QP_EVENT: the delivery of a QP event by a debug build
 *		       (debug_qp_event, srpt_debug_qp_event()), in its work
 *		       item before srpt_qp_event() runs: Soft-RoCE never
 *		       raises COMM_EST, and a COMM_EST that arrives while the
 *		       release work destroys the cm_id must not reach a freed
 *		       one. The handler itself never sleeps (HCAs call it in
 *		       atomic context).
 * @SRPT_DBG_SRQ_SWITCH: srpt_use_srq() after the channels of the HCA are
 *			 gone and before the SRQ is created or destroyed: a
 *			 TPG enable and a login inside the sleep must not
 *			 get a channel onto the SRQ that is changing.
 */
enum srpt_debug_point {
	SRPT_DBG_NONE		= 0,
	SRPT_DBG_CM_REQ		= 1,
	SRPT_DBG_LOGIN_LINKED	= 2,
	SRPT_DBG_LOCAL_RSP_DONE	= 3,
	SRPT_DBG_DEFER_REQUEUE	= 4,
	SRPT_DBG_SESSION_REMOVED = 5,
	SRPT_DBG_DISCONNECT	= 6,
	SRPT_DBG_QP_EVENT	= 7,
	SRPT_DBG_SRQ_SWITCH	= 8,
};

struct ib_cq;
struct ib_qp;
struct ib_wc;

#ifdef SRPT_DEBUG_HOOKS
void srpt_debug_init(void);
void srpt_debug_delay(enum srpt_debug_point point);
void srpt_debug_spin(enum srpt_debug_point point, const atomic_t *watch);
u32 srpt_debug_max_qp_wr(u32 hca_max);
bool srpt_debug_fail(const char *site);
void srpt_debug_qp_event(struct ib_qp *qp);
void srpt_debug_qp_destroy(struct ib_qp *qp);
bool srpt_debug_hold_recv(struct ib_cq *cq, struct ib_wc *wc);
void srpt_debug_srq_destroy(void);
void srpt_debug_exit(void);
#else
static inline void srpt_debug_init(void)
{
}

static inline void srpt_debug_delay(enum srpt_debug_point point)
{
}

static inline void srpt_debug_spin(enum srpt_debug_point point,
				   const atomic_t *watch)
{
}

static inline u32 srpt_debug_max_qp_wr(u32 hca_max)
{
	return hca_max;
}

static inline bool srpt_debug_fail(const char *site)
{
	return false;
}

static inline void srpt_debug_qp_event(struct ib_qp *qp)
{
}

static inline void srpt_debug_qp_destroy(struct ib_qp *qp)
{
}

static inline bool srpt_debug_hold_recv(struct ib_cq *cq, struct ib_wc *wc)
{
	return false;
}

static inline void srpt_debug_srq_destroy(void)
{
}

static inline void srpt_debug_exit(void)
{
}
#endif

/*
 * srpt_dbg_alloc() - @expr, an allocation that returns NULL on failure, or
 * NULL without calling it when a debug build's injected failure fires at
 * @site (see srpt_debug_fail()). srpt_dbg_err_ptr() is the same for calls
 * that return an ERR_PTR, srpt_dbg_err() for those that return an errno.
 * In a normal build each is just @expr.
 */
#define srpt_dbg_alloc(site, expr)	(srpt_debug_fail(site) ? NULL : (expr))
#define srpt_dbg_err_ptr(site, expr)	\
	(srpt_debug_fail(site) ? ERR_PTR(-ENOMEM) : (expr))
#define srpt_dbg_err(site, expr)	(srpt_debug_fail(site) ? -ENOMEM : (expr))

#endif /* SRPT_DEBUG_H */
