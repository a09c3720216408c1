/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpt_names.h - port names, port ID strings and ACL name validation
 * (src/names.c, pure code: no allocation, locking or logging).
 *
 * Formats (docs/design.md, "Port names and port directories" and "Session
 * and ACL names"):
 *  - GUID form: the interface ID (bytes 8..15 of a GID) as four big-endian
 *    16-bit groups of four lowercase hex digits joined by ':', e.g.
 *    "5054:00ff:fe4a:0b7b". Also the IB CM session name.
 *  - GID form / 128-bit port ID: "0x" followed by the 16 bytes as 32
 *    lowercase hex digits, e.g. "0xfe80000000000000505400fffe4a0b7b".
 *  - RDMA/CM session name: the initiator's IP address as "%pIS" prints it,
 *    IPv4 dotted ("192.0.2.2"), IPv6 uncompressed
 *    ("fd00:0000:0000:0000:0000:0000:0000:0002"); an IPv4-mapped IPv6
 *    address as IPv4.
 */
#ifndef SRPT_NAMES_H
#define SRPT_NAMES_H

#include "srpt_pure.h"

enum {
	/* bytes needed for a GUID form name, including the NUL */
	SRPT_GUID_NAME_SIZE	= 20,
	/* bytes needed for a GID form name / port ID string, with NUL */
	SRPT_HEX128_NAME_SIZE	= 35,
	/* bytes needed for an RDMA/CM session name (IPv6: 39), with NUL */
	SRPT_IP_NAME_SIZE	= 40,
};

int srpt_format_guid_name(char *buf, size_t size, const u8 *gid);
int srpt_format_gid_name(char *buf, size_t size, const u8 *gid);
int srpt_format_port_id(char *buf, size_t size, const u8 *id);
int srpt_format_ip_name(char *buf, size_t size, const u8 *addr, size_t len);
int srpt_parse_guid_name(const char *name, u8 *interface_id);
int srpt_parse_hex_port_id(const char *name, u8 *id);
int srpt_parse_acl_name(const char *name);

#endif /* SRPT_NAMES_H */
