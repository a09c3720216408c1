// SPDX-License-Identifier: GPL-2.0
/*
 * names.c - formatting of port names, port ID strings and RDMA/CM session
 * names (IP addresses), and validation of ACL (initiator) names.
 *
 * Pure code: it includes only srpt_pure.h, so the unit tests in
 * tests/unit/test_names.c build it in userspace.
 *
 * ACL names (docs/design.md, "Session and ACL names"): LIO stores nothing
 * for an srpt ACL, the fabric only decides whether a name is acceptable.
 * This file accepts
 *  (a) the GUID form: exactly four groups of 1 to 4 hex digits (either
 *      case) separated by ':' and nothing else, e.g. "fe80:0:1:ABCD";
 *  (b) the hex form: an optional "0x" or "0X", then an even, non-zero
 *      number of hex digits (either case) and nothing else. Fewer than 32
 *      digits are left-padded with zero bytes; when there are more than 32
 *      digits only the first 32 are used (the rest must still be hex
 *      digits).
 * The IPv4/IPv6 form is checked by configfs.c after these.
 *
 * Where this differs from the in-kernel driver, it is stricter about
 * malformed input the old sscanf()/hex2bin() based parser let through:
 * no white space, sign or "0x" inside GUID groups, no group of more than 4
 * digits, no trailing characters after the fourth group, no empty hex form
 * ("" or "0x", which used to mean an all-zero ID) and no non-hex characters
 * after the 32nd digit. No name produced by the driver, targetcli or
 * blktests is affected: those are GUID form names of four 4-digit groups,
 * "0x" + 32 hex digits, or IP addresses.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "srpt_names.h"

static const char srpt_hex_digits[] = "0123456789abcdef";

/* Return: value of hex digit @c (either case), or -1 if it is none. */
static int srpt_hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Write @n bytes of @src as 2 * @n lowercase hex digits to @dst. */
static char *srpt_put_hex(char *dst, const u8 *src, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		*dst++ = srpt_hex_digits[src[i] >> 4];
		*dst++ = srpt_hex_digits[src[i] & 0xf];
	}
	return dst;
}

/**
 * srpt_format_guid_name() - format the GUID form name of a GID.
 * @buf: output buffer.
 * @size: size of @buf; at least SRPT_GUID_NAME_SIZE.
 * @gid: 16-byte GID (network order); only its interface ID (bytes 8..15)
 *	 is used.
 *
 * Writes "xxxx:xxxx:xxxx:xxxx" (lowercase, zero-padded groups). This is
 * both the GUID form port name and the IB CM session name.
 *
 * Return: the length of the name (19), or -ENOSPC if @size is too small
 * (then @buf holds an empty string if @size is not zero).
 */
int srpt_format_guid_name(char *buf, size_t size, const u8 *gid)
{
	char *p = buf;
	int i;

	if (size < SRPT_GUID_NAME_SIZE) {
		if (size)
			buf[0] = '\0';
		return -ENOSPC;
	}
	for (i = 0; i < 4; i++) {
		if (i)
			*p++ = ':';
		p = srpt_put_hex(p, gid + 8 + 2 * i, 2);
	}
	*p = '\0';
	return p - buf;
}

/**
 * srpt_format_port_id() - format a 128-bit port ID as "0x" + 32 hex digits.
 * @buf: output buffer.
 * @size: size of @buf; at least SRPT_HEX128_NAME_SIZE.
 * @id: 16 bytes (network order).
 *
 * Used for the GID form port name and for the initiator port ID session
 * names. The name without "0x" is @buf + 2.
 *
 * Return: the length of the string (34), or -ENOSPC if @size is too small
 * (then @buf holds an empty string if @size is not zero).
 */
int srpt_format_port_id(char *buf, size_t size, const u8 *id)
{
	char *p = buf;

	if (size < SRPT_HEX128_NAME_SIZE) {
		if (size)
			buf[0] = '\0';
		return -ENOSPC;
	}
	*p++ = '0';
	*p++ = 'x';
	p = srpt_put_hex(p, id, 16);
	*p = '\0';
	return p - buf;
}

/**
 * srpt_format_gid_name() - format the GID form name of a GID.
 * @buf: output buffer.
 * @size: size of @buf; at least SRPT_HEX128_NAME_SIZE.
 * @gid: 16-byte GID (network order).
 *
 * Return: as srpt_format_port_id().
 */
int srpt_format_gid_name(char *buf, size_t size, const u8 *gid)
{
	return srpt_format_port_id(buf, size, gid);
}

/* Write @v (0..255) in decimal to @dst; return the end. */
static char *srpt_put_dec_u8(char *dst, u8 v)
{
	if (v >= 100)
		*dst++ = '0' + v / 100;
	if (v >= 10)
		*dst++ = '0' + v / 10 % 10;
	*dst++ = '0' + v % 10;
	return dst;
}

/**
 * srpt_format_ip_name() - format an IP address as an RDMA/CM session name.
 * @buf: output buffer.
 * @size: size of @buf; at least SRPT_IP_NAME_SIZE.
 * @addr: the address in network order: 4 bytes (IPv4) or 16 bytes (IPv6).
 * @len: 4 or 16.
 *
 * The text is the one the kernel's "%pIS" prints without flags: IPv4 in
 * dotted decimal ("192.0.2.2"); IPv6 uncompressed, eight groups of four
 * lowercase hex digits ("fd00:0000:0000:0000:0000:0000:0000:0002"). An
 * IPv4-mapped IPv6 address (::ffff:a.b.c.d, as an iWARP connection to an
 * IPv6 listener may report an IPv4 peer) is written as the IPv4 address, so
 * that one ACL name covers an IPv4 initiator however it connected.
 *
 * Return: the length of the name, -EINVAL if @len is neither 4 nor 16, or
 * -ENOSPC if @size is too small (then @buf holds an empty string if @size
 * is not zero).
 */
int srpt_format_ip_name(char *buf, size_t size, const u8 *addr, size_t len)
{
	static const u8 v4_mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	char *p = buf;
	int i;

	if (size)
		buf[0] = '\0';
	if (len != 4 && len != 16)
		return -EINVAL;
	if (size < SRPT_IP_NAME_SIZE)
		return -ENOSPC;
	if (len == 16 && memcmp(addr, v4_mapped, sizeof(v4_mapped)) == 0) {
		addr += sizeof(v4_mapped);
		len = 4;
	}
	if (len == 4) {
		for (i = 0; i < 4; i++) {
			if (i)
				*p++ = '.';
			p = srpt_put_dec_u8(p, addr[i]);
		}
	} else {
		for (i = 0; i < 8; i++) {
			if (i)
				*p++ = ':';
			p = srpt_put_hex(p, addr + 2 * i, 2);
		}
	}
	*p = '\0';
	return p - buf;
}

/**
 * srpt_parse_guid_name() - parse a GUID form name.
 * @name: NUL-terminated string.
 * @interface_id: 8 bytes, receives the groups in network order; may be
 *		  NULL. Written only on success.
 *
 * Accepts exactly four groups of 1 to 4 hex digits separated by ':'.
 *
 * Return: 0 on success, -EINVAL if @name is not a GUID form name.
 */
int srpt_parse_guid_name(const char *name, u8 *interface_id)
{
	unsigned int group[4];
	const char *p = name;
	int i, digits, v;

	for (i = 0; i < 4; i++) {
		if (i && *p++ != ':')
			return -EINVAL;
		group[i] = 0;
		for (digits = 0; (v = srpt_hex_val(*p)) >= 0; digits++, p++) {
			if (digits == 4)
				return -EINVAL;
			group[i] = group[i] << 4 | v;
		}
		if (digits == 0)
			return -EINVAL;
	}
	if (*p)
		return -EINVAL;
	if (interface_id) {
		for (i = 0; i < 4; i++) {
			interface_id[2 * i] = group[i] >> 8;
			interface_id[2 * i + 1] = group[i] & 0xff;
		}
	}
	return 0;
}

/**
 * srpt_parse_hex_port_id() - parse the hex form of a 128-bit port ID.
 * @name: NUL-terminated string.
 * @id: 16 bytes, receives the ID in network order; may be NULL. Written
 *	only on success.
 *
 * Accepts an optional "0x"/"0X" prefix followed by a non-zero, even number
 * of hex digits and nothing else. Fewer than 32 digits are right-aligned
 * (left-padded with zero bytes); of more than 32 digits only the first 32
 * are used.
 *
 * Return: 0 on success, -EINVAL if @name is not a hex form port ID.
 */
int srpt_parse_hex_port_id(const char *name, u8 *id)
{
	const char *p = name;
	size_t n, i, pad;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (n = 0; p[n]; n++)
		if (srpt_hex_val(p[n]) < 0)
			return -EINVAL;
	if (n == 0 || n % 2)
		return -EINVAL;
	if (!id)
		return 0;
	if (n > 32)
		n = 32;
	pad = 16 - n / 2;
	for (i = 0; i < pad; i++)
		id[i] = 0;
	for (i = 0; i < n / 2; i++)
		id[pad + i] = srpt_hex_val(p[2 * i]) << 4 |
			      srpt_hex_val(p[2 * i + 1]);
	return 0;
}

/**
 * srpt_parse_acl_name() - check the GUID and hex forms of an ACL name.
 * @name: NUL-terminated string.
 *
 * configfs.c calls this first and falls back to the IPv4/IPv6 form.
 *
 * Return: 0 if @name is a GUID form or hex form name, otherwise -EINVAL.
 */
int srpt_parse_acl_name(const char *name)
{
	if (srpt_parse_guid_name(name, NULL) == 0)
		return 0;
	return srpt_parse_hex_port_id(name, NULL);
}
