// SPDX-License-Identifier: GPL-2.0
/*
 * dm.c - replies of the Device Management (DM) agent, built as pure
 * functions: a received 256-byte DM MAD plus a description of the device
 * and the current settings in, the complete 256-byte reply out. No kernel
 * calls, so the same file is compiled into the userspace unit tests
 * (tests/unit/test_dm.c, -DSRPT_USERSPACE).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "srpt_dm.h"

/* min() and friends are not available to pure code in userspace. */
static u32 srpt_dm_min_u32(u32 a, u32 b)
{
	return a < b ? a : b;
}

/**
 * srpt_dm_class_port_info() - fill a ClassPortInfo reply.
 * @cpi: attribute area of the reply, already zeroed.
 *
 * No redirection and no traps; only the versions and the response time
 * are set.
 */
static void srpt_dm_class_port_info(struct srpt_dm_class_port_info *cpi)
{
	cpi->base_version = SRPT_MAD_BASE_VERSION;
	cpi->class_version = SRPT_DM_CLASS_VERSION;
	/* CapabilityMask2 stays 0; RespTimeValue is the low 5 bits. */
	cpi->cap_mask2_resp_time = cpu_to_be32(SRPT_DM_RESP_TIME_VALUE & 0x1f);
}

/**
 * srpt_dm_iou_info() - fill an IOUnitInfo reply.
 * @iou: attribute area of the reply, already zeroed.
 *
 * Sixteen slots; only slot 1 (high nibble of the first list byte) holds an
 * IOC.
 */
static void srpt_dm_iou_info(struct srpt_dm_iou_info *iou)
{
	iou->change_id = cpu_to_be16(SRPT_DM_IOU_CHANGE_ID);
	iou->max_controllers = SRPT_DM_MAX_CONTROLLERS;
	iou->op_rom = 0;
	iou->controller_list[0] = 1 << 4;
}

/**
 * srpt_dm_slot_status() - check the slot number of an IOC attribute.
 * @slot: slot from the attribute modifier.
 *
 * Return: SRPT_DM_STATUS_INVALID_FIELD for slot 0 and slots beyond the
 * sixteen of the IOUnit, SRPT_DM_STATUS_NO_IOC for slots without a profile,
 * SRPT_DM_STATUS_OK otherwise. Slots 1 and 2 both answer, as the in-kernel
 * driver does.
 */
static u16 srpt_dm_slot_status(u32 slot)
{
	if (slot == 0 || slot > SRPT_DM_MAX_CONTROLLERS)
		return SRPT_DM_STATUS_INVALID_FIELD;
	if (slot > SRPT_DM_IOC_SLOTS)
		return SRPT_DM_STATUS_NO_IOC;
	return SRPT_DM_STATUS_OK;
}

/**
 * srpt_dm_ioc_profile() - fill an IOControllerProfile reply.
 * @ioc: attribute area of the reply, already zeroed.
 * @info: device and settings.
 */
static void srpt_dm_ioc_profile(struct srpt_dm_ioc_profile *ioc,
				const struct srpt_dm_dev_info *info)
{
	static const char id[] = SRPT_DM_ID_STRING;
	u32 depth;

	if (info->use_srq)
		depth = info->srq_size;
	else
		depth = srpt_dm_min_u32(info->rq_size, info->max_qp_wr);

	ioc->guid = cpu_to_be64(info->ioc_guid);
	ioc->vendor_id = cpu_to_be32(info->vendor_id);
	ioc->device_id = cpu_to_be32(info->device_id);
	ioc->device_version = cpu_to_be16((u16)info->hw_ver);
	ioc->subsys_vendor_id = cpu_to_be32(info->vendor_id);
	ioc->subsys_device_id = cpu_to_be32(0);
	ioc->io_class = cpu_to_be16(SRPT_DM_IO_CLASS_SRP_R16A);
	ioc->io_subclass = cpu_to_be16(SRPT_DM_IO_SUBCLASS_SRP);
	ioc->protocol = cpu_to_be16(SRPT_DM_PROTOCOL_SRP);
	ioc->protocol_version = cpu_to_be16(SRPT_DM_PROTOCOL_VERSION_SRP);
	ioc->service_conn = cpu_to_be16(0);
	ioc->initiators_supported = cpu_to_be16(0);
	ioc->send_queue_depth = cpu_to_be16((u16)srpt_dm_min_u32(depth, 0xffff));
	ioc->rdma_read_depth = SRPT_DM_RDMA_READ_DEPTH;
	ioc->send_size = cpu_to_be32(info->max_req_size);
	ioc->rdma_size = cpu_to_be32(srpt_dm_min_u32(info->max_rdma_size,
						     SRPT_DM_MAX_RDMA_SIZE));
	ioc->op_cap_mask = SRPT_DM_OPCAP_SEND_TO_IOC |
			   SRPT_DM_OPCAP_SEND_FROM_IOC |
			   SRPT_DM_OPCAP_RDMA_READ_FROM_IOC |
			   SRPT_DM_OPCAP_RDMA_WRITE_FROM_IOC;
	ioc->svc_cap_mask = 0;
	ioc->num_svc_entries = 1;
	memcpy(ioc->id_string, id, sizeof(id) - 1);
}

/**
 * srpt_dm_svc_name() - write "SRP.T10:" and 16 lowercase hex digits.
 * @name: service name field (40 bytes, already zeroed).
 * @guid: IOC GUID.
 */
static void srpt_dm_svc_name(u8 *name, u64 guid)
{
	static const char prefix[] = SRPT_DM_SVC_NAME_PREFIX;
	static const char hex[] = "0123456789abcdef";
	unsigned int plen = sizeof(prefix) - 1;
	unsigned int i;

	memcpy(name, prefix, plen);
	for (i = 0; i < 16; i++)
		name[plen + i] = hex[(guid >> (60 - 4 * i)) & 0xf];
}

/**
 * srpt_dm_svc_entries() - fill a ServiceEntries reply.
 * @svc: attribute area of the reply, already zeroed.
 * @info: device and settings.
 *
 * The IOC has one service; entries 1 to 3 stay zero.
 */
static void srpt_dm_svc_entries(struct srpt_dm_svc_entries *svc,
				const struct srpt_dm_dev_info *info)
{
	srpt_dm_svc_name(svc->entry[0].name, info->ioc_guid);
	svc->entry[0].id = cpu_to_be64(info->ioc_guid);
}

/**
 * srpt_dm_get() - answer a GET.
 * @rsp: the reply; a copy of the request.
 * @info: device and settings.
 *
 * On success the whole data area is replaced by the attribute (zero
 * padded); on error it is left as received.
 *
 * Return: the DM status (host order).
 */
static u16 srpt_dm_get(struct srpt_dm_mad *rsp,
		       const struct srpt_dm_dev_info *info)
{
	u32 attr_mod = be32_to_cpu(rsp->hdr.attr_mod);
	u32 slot, hi, lo;
	u16 status;

	switch (be16_to_cpu(rsp->hdr.attr_id)) {
	case SRPT_DM_ATTR_CLASS_PORT_INFO:
		memset(rsp->data, 0, sizeof(rsp->data));
		srpt_dm_class_port_info(&rsp->cpi);
		return SRPT_DM_STATUS_OK;
	case SRPT_DM_ATTR_IOU_INFO:
		memset(rsp->data, 0, sizeof(rsp->data));
		srpt_dm_iou_info(&rsp->iou);
		return SRPT_DM_STATUS_OK;
	case SRPT_DM_ATTR_IOC_PROFILE:
		status = srpt_dm_slot_status(attr_mod);
		if (status != SRPT_DM_STATUS_OK)
			return status;
		memset(rsp->data, 0, sizeof(rsp->data));
		srpt_dm_ioc_profile(&rsp->ioc, info);
		return SRPT_DM_STATUS_OK;
	case SRPT_DM_ATTR_SVC_ENTRIES:
		slot = attr_mod >> 16;
		hi = (attr_mod >> 8) & 0xff;
		lo = attr_mod & 0xff;
		status = srpt_dm_slot_status(slot);
		if (status != SRPT_DM_STATUS_OK)
			return status;
		if (lo > hi || hi > 1)
			return SRPT_DM_STATUS_NO_IOC;
		memset(rsp->data, 0, sizeof(rsp->data));
		srpt_dm_svc_entries(&rsp->svc, info);
		return SRPT_DM_STATUS_OK;
	default:
		return SRPT_DM_STATUS_UNSUP_METHOD_ATTR;
	}
}

/**
 * srpt_dm_build_reply() - build the reply to a received DM MAD.
 * @rsp: where the 256-byte reply is written; must not overlap @req.
 * @req: the received MAD.
 * @info: device and settings the IOControllerProfile reflects.
 *
 * The reply starts as a copy of @req (transaction ID, attribute and
 * modifier are echoed) with method GetResp. GET of ClassPortInfo,
 * IOUnitInfo, IOControllerProfile and ServiceEntries is answered; SET gets
 * "unsupported method/attribute combination", other methods "unsupported
 * method", unknown attributes "unsupported method/attribute combination",
 * invalid slots "invalid field" and empty slots "no IOC".
 *
 * Return: the DM status put in the reply (host order).
 */
u16 srpt_dm_build_reply(struct srpt_dm_mad *rsp, const struct srpt_dm_mad *req,
			const struct srpt_dm_dev_info *info)
{
	u16 status;

	memcpy(rsp, req, sizeof(*rsp));
	rsp->hdr.method = SRPT_MAD_METHOD_GET_RESP;

	switch (req->hdr.method) {
	case SRPT_MAD_METHOD_GET:
		status = srpt_dm_get(rsp, info);
		break;
	case SRPT_MAD_METHOD_SET:
		status = SRPT_DM_STATUS_UNSUP_METHOD_ATTR;
		break;
	default:
		status = SRPT_DM_STATUS_UNSUP_METHOD;
		break;
	}
	rsp->hdr.status = cpu_to_be16(status);
	return status;
}
