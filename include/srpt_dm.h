/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_dm.h - InfiniBand Device Management (DM) MAD wire formats and the
 * pure reply builder (src/dm.c).
 *
 * The kernel defines these structures in a header that is private to its
 * driver directory, so the project defines its own. Layouts follow the
 * IBTA specification (MAD common header, RMPP header, ClassPortInfo) and
 * its Device Management annex (IOUnitInfo, IOControllerProfile,
 * ServiceEntries); the SRP-specific values come from SRP r16a. Every
 * multi-byte field is big-endian. Sizes and offsets are pinned by static
 * assertions at the end of this file.
 *
 * Pure header: usable from userspace tests (SRPT_USERSPACE).
 */
#ifndef SRPT_DM_H
#define SRPT_DM_H

#include "srpt_pure.h"

/* Sizes of a MAD of the DM class. */
enum {
	SRPT_DM_MAD_SIZE	= 256,
	SRPT_DM_HDR_SIZE	= 64,	/* common + RMPP header + reserved */
	SRPT_DM_DATA_SIZE	= 192,
};

/* Management class, versions and methods used by the DM agent. */
enum {
	SRPT_MAD_BASE_VERSION		= 1,
	SRPT_MAD_CLASS_DEVICE_MGMT	= 0x06,
	SRPT_DM_CLASS_VERSION		= 1,
	SRPT_MAD_METHOD_GET		= 0x01,
	SRPT_MAD_METHOD_SET		= 0x02,
	SRPT_MAD_METHOD_GET_RESP	= 0x81,
};

/* DM attribute IDs. */
enum {
	SRPT_DM_ATTR_CLASS_PORT_INFO	= 0x0001,
	SRPT_DM_ATTR_IOU_INFO		= 0x0010,
	SRPT_DM_ATTR_IOC_PROFILE	= 0x0011,
	SRPT_DM_ATTR_SVC_ENTRIES	= 0x0012,
};

/* MAD status values returned by the DM agent (host order). */
enum {
	SRPT_DM_STATUS_OK		 = 0x0000,
	SRPT_DM_STATUS_UNSUP_METHOD	 = 0x0008,
	SRPT_DM_STATUS_UNSUP_METHOD_ATTR = 0x000c,
	SRPT_DM_STATUS_INVALID_FIELD	 = 0x001c,
	SRPT_DM_STATUS_NO_IOC		 = 0x0100,
};

/* Values advertised by the agent. */
enum {
	SRPT_DM_RESP_TIME_VALUE		= 20,	/* 4.096 us * 2^20 ~ 4.3 s */
	SRPT_DM_MAX_CONTROLLERS		= 16,
	SRPT_DM_IOC_SLOTS		= 2,	/* slots answering with a profile */
	SRPT_DM_IOU_CHANGE_ID		= 1,
	SRPT_DM_IO_CLASS_SRP_R16A	= 0x0100,
	SRPT_DM_IO_SUBCLASS_SRP		= 0x609e,
	SRPT_DM_PROTOCOL_SRP		= 0x0108,
	SRPT_DM_PROTOCOL_VERSION_SRP	= 0x0001,
	SRPT_DM_RDMA_READ_DEPTH		= 4,
	SRPT_DM_MAX_RDMA_SIZE		= 1 << 24,
	SRPT_DM_SVC_ENTRIES_PER_MAD	= 4,
	SRPT_DM_SVC_NAME_LEN		= 40,
	SRPT_DM_ID_STRING_LEN		= 64,
};

/* IOControllerProfile.op_cap_mask bits. */
enum {
	SRPT_DM_OPCAP_SEND_TO_IOC	= 0x01,
	SRPT_DM_OPCAP_SEND_FROM_IOC	= 0x02,
	SRPT_DM_OPCAP_RDMA_READ_TO_IOC	= 0x04,
	SRPT_DM_OPCAP_RDMA_READ_FROM_IOC = 0x08,
	SRPT_DM_OPCAP_RDMA_WRITE_TO_IOC	= 0x10,
	SRPT_DM_OPCAP_RDMA_WRITE_FROM_IOC = 0x20,
};

#define SRPT_DM_ID_STRING	"Linux SRP target"
#define SRPT_DM_SVC_NAME_PREFIX	"SRP.T10:"

/**
 * struct srpt_mad_hdr - MAD common header (24 bytes).
 * @base_version: MAD base version (1).
 * @mgmt_class: management class (0x06 for DM).
 * @class_version: class version (1 for DM).
 * @method: method; bit 7 set for responses.
 * @status: MAD status; 0 in requests.
 * @class_specific: class specific; unused by DM.
 * @tid: transaction ID, echoed unchanged.
 * @attr_id: attribute ID.
 * @resv: reserved.
 * @attr_mod: attribute modifier.
 */
struct srpt_mad_hdr {
	u8	base_version;
	u8	mgmt_class;
	u8	class_version;
	u8	method;
	__be16	status;
	__be16	class_specific;
	__be64	tid;
	__be16	attr_id;
	__be16	resv;
	__be32	attr_mod;
};

/**
 * struct srpt_rmpp_hdr - RMPP header (12 bytes); inactive for DM replies.
 * @rmpp_version: RMPP version.
 * @rmpp_type: RMPP packet type.
 * @rmpp_rtime_flags: response time (5 bits) and flags (3 bits).
 * @rmpp_status: RMPP status.
 * @seg_num: segment number.
 * @paylen_newwin: payload length or new window.
 */
struct srpt_rmpp_hdr {
	u8	rmpp_version;
	u8	rmpp_type;
	u8	rmpp_rtime_flags;
	u8	rmpp_status;
	__be32	seg_num;
	__be32	paylen_newwin;
};

/**
 * struct srpt_dm_class_port_info - ClassPortInfo attribute (72 bytes).
 * @base_version: MAD base version supported.
 * @class_version: class version supported.
 * @capability_mask: class capabilities.
 * @cap_mask2_resp_time: CapabilityMask2 (27 bits) and RespTimeValue
 *			 (low 5 bits).
 * @redirect_gid: redirection GID.
 * @redirect_tc_sl_fl: redirection traffic class, SL and flow label.
 * @redirect_lid: redirection LID.
 * @redirect_pkey: redirection P_Key.
 * @redirect_qp: redirection QP (24 bits).
 * @redirect_qkey: redirection Q_Key.
 * @trap_gid: trap GID.
 * @trap_tc_sl_fl: trap traffic class, SL and flow label.
 * @trap_lid: trap LID.
 * @trap_pkey: trap P_Key.
 * @trap_hl_qp: trap hop limit (8 bits) and QP (24 bits).
 * @trap_qkey: trap Q_Key.
 */
struct srpt_dm_class_port_info {
	u8	base_version;
	u8	class_version;
	__be16	capability_mask;
	__be32	cap_mask2_resp_time;
	u8	redirect_gid[16];
	__be32	redirect_tc_sl_fl;
	__be16	redirect_lid;
	__be16	redirect_pkey;
	__be32	redirect_qp;
	__be32	redirect_qkey;
	u8	trap_gid[16];
	__be32	trap_tc_sl_fl;
	__be16	trap_lid;
	__be16	trap_pkey;
	__be32	trap_hl_qp;
	__be32	trap_qkey;
};

/**
 * struct srpt_dm_iou_info - IOUnitInfo attribute (132 bytes).
 * @change_id: incremented when the IOC configuration changes.
 * @max_controllers: number of controller slots.
 * @op_rom: option ROM and diagnostic flags.
 * @controller_list: four bits per slot, slot 1 in the high nibble of byte
 *		     0, slot 2 in its low nibble, and so on; 1 = IOC present.
 */
struct srpt_dm_iou_info {
	__be16	change_id;
	u8	max_controllers;
	u8	op_rom;
	u8	controller_list[128];
};

/**
 * struct srpt_dm_ioc_profile - IOControllerProfile attribute (128 bytes).
 * @guid: IOC GUID.
 * @vendor_id: vendor ID (as a 32-bit number, like the in-kernel driver).
 * @device_id: device ID.
 * @device_version: device version.
 * @reserved1: reserved.
 * @subsys_vendor_id: subsystem vendor ID.
 * @subsys_device_id: subsystem device ID.
 * @io_class: I/O class.
 * @io_subclass: I/O subclass.
 * @protocol: protocol.
 * @protocol_version: protocol version.
 * @service_conn: reserved for the service connection count.
 * @initiators_supported: reserved for the supported initiator count.
 * @send_queue_depth: send message queue depth.
 * @reserved2: reserved.
 * @rdma_read_depth: RDMA read queue depth.
 * @send_size: largest send message (SRP request IU) in bytes.
 * @rdma_size: largest RDMA transfer in bytes.
 * @op_cap_mask: controller operations capability mask.
 * @svc_cap_mask: service capability mask.
 * @num_svc_entries: number of service entries.
 * @reserved3: reserved.
 * @id_string: NUL padded ID string.
 */
struct srpt_dm_ioc_profile {
	__be64	guid;
	__be32	vendor_id;
	__be32	device_id;
	__be16	device_version;
	__be16	reserved1;
	__be32	subsys_vendor_id;
	__be32	subsys_device_id;
	__be16	io_class;
	__be16	io_subclass;
	__be16	protocol;
	__be16	protocol_version;
	__be16	service_conn;
	__be16	initiators_supported;
	__be16	send_queue_depth;
	u8	reserved2;
	u8	rdma_read_depth;
	__be32	send_size;
	__be32	rdma_size;
	u8	op_cap_mask;
	u8	svc_cap_mask;
	u8	num_svc_entries;
	u8	reserved3[9];
	u8	id_string[SRPT_DM_ID_STRING_LEN];
};

/**
 * struct srpt_dm_svc_entry - one service entry (48 bytes).
 * @name: NUL padded service name.
 * @id: service ID.
 */
struct srpt_dm_svc_entry {
	u8	name[SRPT_DM_SVC_NAME_LEN];
	__be64	id;
};

/**
 * struct srpt_dm_svc_entries - ServiceEntries attribute (192 bytes).
 * @entry: up to four service entries.
 */
struct srpt_dm_svc_entries {
	struct srpt_dm_svc_entry entry[SRPT_DM_SVC_ENTRIES_PER_MAD];
};

/**
 * struct srpt_dm_mad - a MAD of the Device Management class (256 bytes).
 * @hdr: common MAD header.
 * @rmpp: RMPP header.
 * @reserved: reserved bytes completing the 64-byte DM header.
 * @data: attribute data.
 * @cpi: @data as ClassPortInfo.
 * @iou: @data as IOUnitInfo.
 * @ioc: @data as IOControllerProfile.
 * @svc: @data as ServiceEntries.
 */
struct srpt_dm_mad {
	struct srpt_mad_hdr	hdr;
	struct srpt_rmpp_hdr	rmpp;
	u8			reserved[28];
	union {
		u8				data[SRPT_DM_DATA_SIZE];
		struct srpt_dm_class_port_info	cpi;
		struct srpt_dm_iou_info		iou;
		struct srpt_dm_ioc_profile	ioc;
		struct srpt_dm_svc_entries	svc;
	};
};

/**
 * struct srpt_dm_dev_info - what an IOControllerProfile is built from.
 * @ioc_guid: IOC GUID (srpt_service_guid); also the service ID.
 * @vendor_id: HCA vendor ID (ib_device_attr.vendor_id).
 * @device_id: HCA part ID (ib_device_attr.vendor_part_id).
 * @hw_ver: HCA hardware version; the low 16 bits are reported.
 * @use_srq: whether channels use the shared receive queue.
 * @srq_size: SRQ depth, reported as queue depth when @use_srq.
 * @max_qp_wr: ib_device_attr.max_qp_wr.
 * @rq_size: the port's srp_rq_size (channel depth); the queue depth
 *	     reported without SRQ is min(@rq_size, @max_qp_wr).
 * @max_req_size: srp_max_req_size, the largest request IU accepted.
 * @max_rdma_size: the port's srp_max_rdma_size; capped at 2^24.
 */
struct srpt_dm_dev_info {
	u64	ioc_guid;
	u32	vendor_id;
	u32	device_id;
	u32	hw_ver;
	bool	use_srq;
	u32	srq_size;
	u32	max_qp_wr;
	u32	rq_size;
	u32	max_req_size;
	u32	max_rdma_size;
};

u16 srpt_dm_build_reply(struct srpt_dm_mad *rsp, const struct srpt_dm_mad *req,
			const struct srpt_dm_dev_info *info);

/* Layout checks. */
static_assert(sizeof(struct srpt_mad_hdr) == 24);
static_assert(offsetof(struct srpt_mad_hdr, base_version) == 0);
static_assert(offsetof(struct srpt_mad_hdr, mgmt_class) == 1);
static_assert(offsetof(struct srpt_mad_hdr, class_version) == 2);
static_assert(offsetof(struct srpt_mad_hdr, method) == 3);
static_assert(offsetof(struct srpt_mad_hdr, status) == 4);
static_assert(offsetof(struct srpt_mad_hdr, class_specific) == 6);
static_assert(offsetof(struct srpt_mad_hdr, tid) == 8);
static_assert(offsetof(struct srpt_mad_hdr, attr_id) == 16);
static_assert(offsetof(struct srpt_mad_hdr, resv) == 18);
static_assert(offsetof(struct srpt_mad_hdr, attr_mod) == 20);

static_assert(sizeof(struct srpt_rmpp_hdr) == 12);
static_assert(offsetof(struct srpt_rmpp_hdr, rmpp_version) == 0);
static_assert(offsetof(struct srpt_rmpp_hdr, rmpp_type) == 1);
static_assert(offsetof(struct srpt_rmpp_hdr, rmpp_rtime_flags) == 2);
static_assert(offsetof(struct srpt_rmpp_hdr, rmpp_status) == 3);
static_assert(offsetof(struct srpt_rmpp_hdr, seg_num) == 4);
static_assert(offsetof(struct srpt_rmpp_hdr, paylen_newwin) == 8);

static_assert(sizeof(struct srpt_dm_class_port_info) == 72);
static_assert(offsetof(struct srpt_dm_class_port_info, base_version) == 0);
static_assert(offsetof(struct srpt_dm_class_port_info, class_version) == 1);
static_assert(offsetof(struct srpt_dm_class_port_info, capability_mask) == 2);
static_assert(offsetof(struct srpt_dm_class_port_info,
		       cap_mask2_resp_time) == 4);
static_assert(offsetof(struct srpt_dm_class_port_info, redirect_gid) == 8);
static_assert(offsetof(struct srpt_dm_class_port_info,
		       redirect_tc_sl_fl) == 24);
static_assert(offsetof(struct srpt_dm_class_port_info, redirect_lid) == 28);
static_assert(offsetof(struct srpt_dm_class_port_info, redirect_pkey) == 30);
static_assert(offsetof(struct srpt_dm_class_port_info, redirect_qp) == 32);
static_assert(offsetof(struct srpt_dm_class_port_info, redirect_qkey) == 36);
static_assert(offsetof(struct srpt_dm_class_port_info, trap_gid) == 40);
static_assert(offsetof(struct srpt_dm_class_port_info, trap_tc_sl_fl) == 56);
static_assert(offsetof(struct srpt_dm_class_port_info, trap_lid) == 60);
static_assert(offsetof(struct srpt_dm_class_port_info, trap_pkey) == 62);
static_assert(offsetof(struct srpt_dm_class_port_info, trap_hl_qp) == 64);
static_assert(offsetof(struct srpt_dm_class_port_info, trap_qkey) == 68);

static_assert(sizeof(struct srpt_dm_iou_info) == 132);
static_assert(offsetof(struct srpt_dm_iou_info, change_id) == 0);
static_assert(offsetof(struct srpt_dm_iou_info, max_controllers) == 2);
static_assert(offsetof(struct srpt_dm_iou_info, op_rom) == 3);
static_assert(offsetof(struct srpt_dm_iou_info, controller_list) == 4);

static_assert(sizeof(struct srpt_dm_ioc_profile) == 128);
static_assert(offsetof(struct srpt_dm_ioc_profile, guid) == 0);
static_assert(offsetof(struct srpt_dm_ioc_profile, vendor_id) == 8);
static_assert(offsetof(struct srpt_dm_ioc_profile, device_id) == 12);
static_assert(offsetof(struct srpt_dm_ioc_profile, device_version) == 16);
static_assert(offsetof(struct srpt_dm_ioc_profile, reserved1) == 18);
static_assert(offsetof(struct srpt_dm_ioc_profile, subsys_vendor_id) == 20);
static_assert(offsetof(struct srpt_dm_ioc_profile, subsys_device_id) == 24);
static_assert(offsetof(struct srpt_dm_ioc_profile, io_class) == 28);
static_assert(offsetof(struct srpt_dm_ioc_profile, io_subclass) == 30);
static_assert(offsetof(struct srpt_dm_ioc_profile, protocol) == 32);
static_assert(offsetof(struct srpt_dm_ioc_profile, protocol_version) == 34);
static_assert(offsetof(struct srpt_dm_ioc_profile, service_conn) == 36);
static_assert(offsetof(struct srpt_dm_ioc_profile,
		       initiators_supported) == 38);
static_assert(offsetof(struct srpt_dm_ioc_profile, send_queue_depth) == 40);
static_assert(offsetof(struct srpt_dm_ioc_profile, reserved2) == 42);
static_assert(offsetof(struct srpt_dm_ioc_profile, rdma_read_depth) == 43);
static_assert(offsetof(struct srpt_dm_ioc_profile, send_size) == 44);
static_assert(offsetof(struct srpt_dm_ioc_profile, rdma_size) == 48);
static_assert(offsetof(struct srpt_dm_ioc_profile, op_cap_mask) == 52);
static_assert(offsetof(struct srpt_dm_ioc_profile, svc_cap_mask) == 53);
static_assert(offsetof(struct srpt_dm_ioc_profile, num_svc_entries) == 54);
static_assert(offsetof(struct srpt_dm_ioc_profile, reserved3) == 55);
static_assert(offsetof(struct srpt_dm_ioc_profile, id_string) == 64);

static_assert(sizeof(struct srpt_dm_svc_entry) == 48);
static_assert(offsetof(struct srpt_dm_svc_entry, name) == 0);
static_assert(offsetof(struct srpt_dm_svc_entry, id) == 40);
static_assert(sizeof(struct srpt_dm_svc_entries) == SRPT_DM_DATA_SIZE);
static_assert(offsetof(struct srpt_dm_svc_entries, entry[1]) == 48);
static_assert(offsetof(struct srpt_dm_svc_entries, entry[3]) == 144);

static_assert(sizeof(struct srpt_dm_mad) == SRPT_DM_MAD_SIZE);
static_assert(offsetof(struct srpt_dm_mad, hdr) == 0);
static_assert(offsetof(struct srpt_dm_mad, rmpp) == 24);
static_assert(offsetof(struct srpt_dm_mad, reserved) == 36);
static_assert(offsetof(struct srpt_dm_mad, data) == SRPT_DM_HDR_SIZE);
static_assert(offsetof(struct srpt_dm_mad, cpi) == SRPT_DM_HDR_SIZE);
static_assert(offsetof(struct srpt_dm_mad, iou) == SRPT_DM_HDR_SIZE);
static_assert(offsetof(struct srpt_dm_mad, ioc) == SRPT_DM_HDR_SIZE);
static_assert(offsetof(struct srpt_dm_mad, svc) == SRPT_DM_HDR_SIZE);
static_assert(SRPT_DM_HDR_SIZE + SRPT_DM_DATA_SIZE == SRPT_DM_MAD_SIZE);

#endif /* SRPT_DM_H */
