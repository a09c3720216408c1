// SPDX-License-Identifier: GPL-2.0
/*
 * mad.c - the InfiniBand Device Management (DM) agent of a port.
 *
 * srp_daemon and ibsrpdm find SRP targets by looking for ports whose
 * PortInfo.CapabilityMask has IsDeviceManagementSupported set and then
 * asking the DM agent of such a port (a GSI MAD agent of management class
 * 0x06) for its IOUnitInfo, IOControllerProfile and ServiceEntries. This
 * file registers that agent and moves MADs in and out; the replies are
 * built by the pure code in dm.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/kernel.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "srpt.h"
#include "srpt_debug.h"
#include "srpt_dm.h"

/* The layouts of dm.c must agree with the kernel's MAD sizes. */
static_assert((int)SRPT_DM_MAD_SIZE == (int)IB_MGMT_MAD_SIZE);
static_assert((int)SRPT_DM_HDR_SIZE == (int)IB_MGMT_DEVICE_HDR);
static_assert((int)SRPT_DM_DATA_SIZE == (int)IB_MGMT_DEVICE_DATA);
static_assert(SRPT_MAD_CLASS_DEVICE_MGMT == IB_MGMT_CLASS_DEVICE_MGMT);
static_assert(SRPT_MAD_BASE_VERSION == IB_MGMT_BASE_VERSION);
static_assert(SRPT_MAD_METHOD_GET == IB_MGMT_METHOD_GET);
static_assert(SRPT_MAD_METHOD_SET == IB_MGMT_METHOD_SET);
static_assert(SRPT_MAD_METHOD_GET_RESP == IB_MGMT_METHOD_GET_RESP);
static_assert(sizeof(struct srpt_mad_hdr) == sizeof(struct ib_mad_hdr));
static_assert(sizeof(struct srpt_rmpp_hdr) == sizeof(struct ib_rmpp_hdr));

/**
 * srpt_mad_dev_info() - describe the device and settings for dm.c.
 * @sport: the port whose agent received a MAD.
 * @info: filled in.
 *
 * Settings may change while a MAD is answered (use_srq, the port's
 * srp_max_rdma_size); each is read once, and a reply that mixes an old and
 * a new value is harmless.
 */
static void srpt_mad_dev_info(struct srpt_port *sport,
			      struct srpt_dm_dev_info *info)
{
	struct srpt_device *sdev = sport->sdev;
	const struct ib_device_attr *attrs = &sdev->device->attrs;

	info->ioc_guid = READ_ONCE(srpt_service_guid);
	info->vendor_id = attrs->vendor_id;
	info->device_id = attrs->vendor_part_id;
	info->hw_ver = attrs->hw_ver;
	info->use_srq = READ_ONCE(sdev->use_srq);
	info->srq_size = max(READ_ONCE(sdev->srq_size), 0);
	info->max_qp_wr = max(attrs->max_qp_wr, 0);
	info->rq_size = READ_ONCE(sport->port_attrib.srp_rq_size);
	info->max_req_size = READ_ONCE(srp_max_req_size);
	info->max_rdma_size = READ_ONCE(sport->port_attrib.srp_max_rdma_size);
}

/**
 * srpt_mad_send_handler() - a reply was sent (or failed).
 * @agent: our agent.
 * @wc: send completion; wc->send_buf is the reply of srpt_mad_recv_handler.
 *
 * Releases the address handle and the send buffer.
 */
static void srpt_mad_send_handler(struct ib_mad_agent *agent,
				  struct ib_mad_send_wc *wc)
{
	struct ib_mad_send_buf *send_buf = wc->send_buf;
	struct srpt_port *sport = agent->context;

	if (wc->status != IB_WC_SUCCESS)
		srpt_port_dbg(sport, "DM reply not sent (status %d)\n",
			      wc->status);
	rdma_destroy_ah(send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(send_buf);
}

/**
 * srpt_mad_recv_handler() - answer a received DM MAD.
 * @agent: our agent; agent->context is the srpt_port.
 * @send_buf: unused (we send no requests of our own).
 * @recv_wc: the received MAD.
 *
 * Builds the reply with srpt_dm_build_reply() and sends it back to the
 * requester over an address handle made from the receive completion (with
 * its GRH, which RoCE requires). The received MAD is always freed; the
 * reply and its address handle are freed by srpt_mad_send_handler() once
 * posted, here otherwise.
 */
static void srpt_mad_recv_handler(struct ib_mad_agent *agent,
				  struct ib_mad_send_buf *send_buf,
				  struct ib_mad_recv_wc *recv_wc)
{
	struct srpt_port *sport = agent->context;
	struct srpt_dm_dev_info info;
	struct ib_mad_send_buf *rsp;
	struct ib_ah *ah;
	u16 status;
	int ret;

	if (!recv_wc)
		return;
	if (!recv_wc->recv_buf.mad || recv_wc->mad_len < SRPT_DM_MAD_SIZE) {
		srpt_port_warn_ratelimited(sport, "dropping a malformed DM MAD\n");
		goto free_recv;
	}

	ah = ib_create_ah_from_wc(agent->qp->pd, recv_wc->wc,
				  recv_wc->recv_buf.grh, agent->port_num);
	if (IS_ERR(ah)) {
		srpt_port_warn_ratelimited(sport, "no address handle for a DM reply (%ld)\n",
					   PTR_ERR(ah));
		goto free_recv;
	}

	rsp = ib_create_send_mad(agent, recv_wc->wc->src_qp,
				 recv_wc->wc->pkey_index, 0,
				 IB_MGMT_DEVICE_HDR, IB_MGMT_DEVICE_DATA,
				 GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (IS_ERR(rsp)) {
		srpt_port_warn_ratelimited(sport, "no buffer for a DM reply (%ld)\n",
					   PTR_ERR(rsp));
		goto destroy_ah;
	}
	rsp->ah = ah;

	srpt_mad_dev_info(sport, &info);
	status = srpt_dm_build_reply(rsp->mad,
				     (const void *)recv_wc->recv_buf.mad,
				     &info);
	srpt_port_dbg(sport, "DM method %#x attr %#x mod %#x -> status %#x\n",
		      recv_wc->recv_buf.mad->mad_hdr.method,
		      be16_to_cpu(recv_wc->recv_buf.mad->mad_hdr.attr_id),
		      be32_to_cpu(recv_wc->recv_buf.mad->mad_hdr.attr_mod),
		      status);

	ret = ib_post_send_mad(rsp, NULL);
	if (ret) {
		srpt_port_warn_ratelimited(sport, "sending a DM reply failed (%d)\n",
					   ret);
		ib_free_send_mad(rsp);
		goto destroy_ah;
	}
	ib_free_recv_mad(recv_wc);
	return;

destroy_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
free_recv:
	ib_free_recv_mad(recv_wc);
}

/**
 * srpt_mad_set_cap() - set or clear IsDeviceManagementSupported.
 * @sport: the port.
 * @set: true to set the bit, false to clear it.
 *
 * Return: 0 or the negative errno of ib_modify_port().
 */
static int srpt_mad_set_cap(struct srpt_port *sport, bool set)
{
	struct ib_port_modify pm = {};

	if (set)
		pm.set_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP;
	else
		pm.clr_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP;
	return ib_modify_port(sport->sdev->device, sport->port, 0, &pm);
}

/**
 * srpt_mad_register() - advertise DM support and register the DM agent.
 * @sport: the port; called from srpt_refresh_port() (add time and the
 *	   port's refresh work, never concurrently for one port).
 *
 * Sets IsDeviceManagementSupported in the port's capability mask and, if
 * the port has no agent yet, registers a GSI agent for the Device
 * Management class (version 1, methods GET and SET). iWARP ports have no
 * MADs and are skipped. If the provider refuses either step (SR-IOV
 * virtual functions, some RoCE devices) the port carries on without DM;
 * that is logged once per port. On failure sport->mad_agent stays NULL and
 * the capability bit is cleared again.
 */
void srpt_mad_register(struct srpt_port *sport)
{
	struct ib_device *device = sport->sdev->device;
	struct ib_mad_reg_req reg_req = {};
	struct ib_mad_agent *agent;
	int ret;

	if (rdma_protocol_iwarp(device, sport->port))
		return;

	ret = srpt_mad_set_cap(sport, true);
	if (ret) {
		if (!sport->mad_warned)
			srpt_port_warn(sport, "cannot set IsDeviceManagementSupported (%d), continuing without DM MADs; expected with SR-IOV\n",
				       ret);
		sport->mad_warned = true;
		return;
	}

	if (sport->mad_agent)
		return;

	reg_req.mgmt_class = IB_MGMT_CLASS_DEVICE_MGMT;
	reg_req.mgmt_class_version = IB_MGMT_BASE_VERSION;
	set_bit(IB_MGMT_METHOD_GET, reg_req.method_mask);
	set_bit(IB_MGMT_METHOD_SET, reg_req.method_mask);

	agent = srpt_dbg_err_ptr("mad_agent",
				 ib_register_mad_agent(device, sport->port,
						       IB_QPT_GSI, &reg_req, 0,
						       srpt_mad_send_handler,
						       srpt_mad_recv_handler,
						       sport, 0));
	if (IS_ERR(agent)) {
		if (!sport->mad_warned)
			srpt_port_warn(sport, "DM MAD agent registration failed (%ld), continuing without DM MADs\n",
				       PTR_ERR(agent));
		sport->mad_warned = true;
		srpt_mad_set_cap(sport, false);
		return;
	}
	sport->mad_agent = agent;
	srpt_port_dbg(sport, "DM MAD agent registered\n");
}

/**
 * srpt_mad_unregister() - unregister the DM agent of a port.
 * @sport: the port; its refresh work must no longer run.
 *
 * Clears IsDeviceManagementSupported and unregisters the agent, which
 * waits for running handlers. Does nothing if the port has no agent.
 */
void srpt_mad_unregister(struct srpt_port *sport)
{
	struct ib_mad_agent *agent = sport->mad_agent;
	int ret;

	if (!agent)
		return;
	ret = srpt_mad_set_cap(sport, false);
	if (ret)
		srpt_port_warn(sport, "clearing IsDeviceManagementSupported failed (%d)\n",
			       ret);
	ib_unregister_mad_agent(agent);
	sport->mad_agent = NULL;
}
