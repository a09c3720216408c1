// SPDX-License-Identifier: GPL-2.0
/*
 * test_names.c - unit tests of src/names.c: port name and RDMA/CM session
 * name formatting and ACL name parsing (docs/design.md, "Port names and
 * port directories" and "Session and ACL names").
 */
#include "srpt_names.h"
#include "unit.h"

static const u8 gid_rxe[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0,
	0x00, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x01,
};

static const u8 gid_doc[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0,
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b,
};

/* gid_doc as 32 hex digits */
#define GID_DOC_HEX "fe80000000000000505400fffe4a0b7b"

static const u8 gid_ff[16] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

static void test_format(void)
{
	u8 zero[16] = { 0 };
	char buf[64];

	CHECK_EQ(srpt_format_guid_name(buf, sizeof(buf), gid_doc), 19);
	CHECK_STR_EQ(buf, "5054:00ff:fe4a:0b7b");
	CHECK_EQ(srpt_format_guid_name(buf, sizeof(buf), gid_rxe), 19);
	CHECK_STR_EQ(buf, "0000:00ff:fe00:0001");
	CHECK_EQ(srpt_format_guid_name(buf, sizeof(buf), gid_ff), 19);
	CHECK_STR_EQ(buf, "ffff:ffff:ffff:ffff");

	CHECK_EQ(srpt_format_gid_name(buf, sizeof(buf), gid_rxe), 34);
	CHECK_STR_EQ(buf, "0xfe80000000000000000000fffe000001");
	CHECK_EQ(srpt_format_gid_name(buf, sizeof(buf), gid_doc), 34);
	CHECK_STR_EQ(buf, "0xfe80000000000000505400fffe4a0b7b");
	CHECK_EQ(srpt_format_port_id(buf, sizeof(buf), zero), 34);
	CHECK_STR_EQ(buf, "0x00000000000000000000000000000000");
	CHECK_EQ(srpt_format_port_id(buf, sizeof(buf), gid_ff), 34);
	CHECK_STR_EQ(buf, "0xffffffffffffffffffffffffffffffff");
	/* the session name without "0x" */
	CHECK_STR_EQ(buf + 2, "ffffffffffffffffffffffffffffffff");
}

static void test_format_sizes(void)
{
	char buf[64];

	/* exact sizes work, one less fails and leaves an empty string */
	CHECK_EQ(srpt_format_guid_name(buf, SRPT_GUID_NAME_SIZE, gid_doc), 19);
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ(srpt_format_guid_name(buf, SRPT_GUID_NAME_SIZE - 1, gid_doc),
		 -ENOSPC);
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(buf[1], 'x');
	CHECK_EQ(srpt_format_port_id(buf, SRPT_HEX128_NAME_SIZE, gid_doc), 34);
	CHECK_EQ(buf[34], '\0');
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ(srpt_format_port_id(buf, SRPT_HEX128_NAME_SIZE - 1, gid_doc),
		 -ENOSPC);
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(buf[1], 'x');
	CHECK_EQ(srpt_format_gid_name(buf, 0, gid_doc), -ENOSPC);
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(srpt_format_guid_name(buf, 0, gid_doc), -ENOSPC);
}

static void test_format_ip(void)
{
	static const u8 v4[4] = { 192, 0, 2, 2 };
	static const u8 v4_edge[4] = { 0, 10, 100, 255 };
	static const u8 v6[16] = {
		0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02 };
	static const u8 v4_mapped[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 51, 100, 7 };
	/* ::fffe:... and ::ffff:0:0/96 with a non-zero upper byte: IPv6 */
	static const u8 not_mapped[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 198, 51, 100, 7 };
	char buf[64];

	CHECK_EQ(srpt_format_ip_name(buf, sizeof(buf), v4, 4), 9);
	CHECK_STR_EQ(buf, "192.0.2.2");
	CHECK_EQ(srpt_format_ip_name(buf, sizeof(buf), v4_edge, 4), 12);
	CHECK_STR_EQ(buf, "0.10.100.255");
	/* as "%pIS" prints it: uncompressed, lowercase, 39 characters */
	CHECK_EQ(srpt_format_ip_name(buf, sizeof(buf), v6, 16), 39);
	CHECK_STR_EQ(buf, "fd00:0000:0000:0000:0000:0000:0000:0002");
	CHECK_EQ(srpt_format_ip_name(buf, sizeof(buf), gid_doc, 16), 39);
	CHECK_STR_EQ(buf, "fe80:0000:0000:0000:5054:00ff:fe4a:0b7b");
	CHECK_EQ(srpt_format_ip_name(buf, sizeof(buf), gid_ff, 16), 39);
	CHECK_STR_EQ(buf, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
	CHECK_EQ(srpt_format_ip_name(buf, sizeof(buf), v4_mapped, 16), 12);
	CHECK_STR_EQ(buf, "198.51.100.7");
	CHECK_EQ(srpt_format_ip_name(buf, sizeof(buf), not_mapped, 16), 39);
	CHECK_STR_EQ(buf, "0000:0000:0000:0000:0001:ffff:c633:6407");

	/* every name fits SRPT_IP_NAME_SIZE exactly; less fails */
	CHECK_EQ(srpt_format_ip_name(buf, SRPT_IP_NAME_SIZE, gid_ff, 16), 39);
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ(srpt_format_ip_name(buf, SRPT_IP_NAME_SIZE - 1, v4, 4),
		 -ENOSPC);
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(buf[1], 'x');
	CHECK_EQ(srpt_format_ip_name(buf, 0, v4, 4), -ENOSPC);
	/* other lengths are refused */
	memset(buf, 'x', sizeof(buf));
	CHECK_EQ(srpt_format_ip_name(buf, sizeof(buf), v6, 6), -EINVAL);
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(srpt_format_ip_name(buf, sizeof(buf), v6, 0), -EINVAL);
}

static void test_parse_guid(void)
{
	static const u8 doc_iid[8] = {
		0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b };
	static const u8 short_iid[8] = { 0, 1, 0, 0x23, 0x04, 0x56, 0xab, 0xcd };
	u8 iid[8], keep[8];
	char buf[32];

	CHECK_EQ(srpt_parse_guid_name("5054:00ff:fe4a:0b7b", iid), 0);
	CHECK_MEM_EQ(iid, doc_iid, 8);
	CHECK_EQ(srpt_parse_guid_name("1:23:456:abcd", iid), 0);
	CHECK_MEM_EQ(iid, short_iid, 8);
	CHECK_EQ(srpt_parse_guid_name("1:23:456:ABCD", iid), 0);
	CHECK_MEM_EQ(iid, short_iid, 8);
	CHECK_EQ(srpt_parse_guid_name("0:0:0:0", NULL), 0);
	CHECK_EQ(srpt_parse_guid_name("ffff:FFFF:0000:fFfF", NULL), 0);

	/* round trip */
	CHECK_EQ(srpt_format_guid_name(buf, sizeof(buf), gid_doc), 19);
	CHECK_EQ(srpt_parse_guid_name(buf, iid), 0);
	CHECK_MEM_EQ(iid, gid_doc + 8, 8);

	/* malformed; the output must be left untouched */
	memset(iid, 0x5a, sizeof(iid));
	memcpy(keep, iid, sizeof(keep));
	CHECK_EQ(srpt_parse_guid_name("", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name(":::", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name("1:2:3", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name("1:2:3:", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name("1:2::4", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name(":1:2:3:4", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name("1:2:3:4:", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name("1:2:3:4:5", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name("1:2:3:4x", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name("1:2:3:4 ", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name(" 1:2:3:4", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name("12345:2:3:4", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name("1:2:3:00000", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name("0x1:2:3:4", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name("-1:2:3:4", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name("g:2:3:4", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name("1.2.3.4", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name("fe80::1", iid), -EINVAL);
	CHECK_EQ(srpt_parse_guid_name("0xfe80000000000000505400fffe4a0b7b",
				      iid), -EINVAL);
	CHECK_MEM_EQ(iid, keep, 8);
}

static void test_parse_hex(void)
{
	u8 id[16], expect[16], keep[16];

	CHECK_EQ(srpt_parse_hex_port_id("0xfe80000000000000505400fffe4a0b7b",
					id), 0);
	CHECK_MEM_EQ(id, gid_doc, 16);
	CHECK_EQ(srpt_parse_hex_port_id("0XFE80000000000000505400FFFE4A0B7B",
					id), 0);
	CHECK_MEM_EQ(id, gid_doc, 16);
	/* without prefix */
	CHECK_EQ(srpt_parse_hex_port_id("fe80000000000000505400fffe4a0b7b",
					id), 0);
	CHECK_MEM_EQ(id, gid_doc, 16);

	/* shorter than 32 digits: left-padded with zero bytes */
	memset(expect, 0, sizeof(expect));
	expect[15] = 0x01;
	CHECK_EQ(srpt_parse_hex_port_id("0x01", id), 0);
	CHECK_MEM_EQ(id, expect, 16);
	memset(id, 0xee, sizeof(id));
	CHECK_EQ(srpt_parse_hex_port_id("01", id), 0);
	CHECK_MEM_EQ(id, expect, 16);
	memset(expect, 0, sizeof(expect));
	memcpy(expect + 8, gid_doc + 8, 8);
	CHECK_EQ(srpt_parse_hex_port_id("0x505400fffe4a0b7b", id), 0);
	CHECK_MEM_EQ(id, expect, 16);

	/* more than 32 digits: only the first 32 are used */
	CHECK_EQ(srpt_parse_hex_port_id("0x" GID_DOC_HEX "1234", id), 0);
	CHECK_MEM_EQ(id, gid_doc, 16);
	CHECK_EQ(srpt_parse_hex_port_id(GID_DOC_HEX GID_DOC_HEX, id), 0);
	CHECK_MEM_EQ(id, gid_doc, 16);

	/* malformed; the output must be left untouched */
	memset(id, 0x5a, sizeof(id));
	memcpy(keep, id, sizeof(keep));
	CHECK_EQ(srpt_parse_hex_port_id("", id), -EINVAL);
	CHECK_EQ(srpt_parse_hex_port_id("0x", id), -EINVAL);
	CHECK_EQ(srpt_parse_hex_port_id("0X", id), -EINVAL);
	CHECK_EQ(srpt_parse_hex_port_id("0", id), -EINVAL);
	CHECK_EQ(srpt_parse_hex_port_id("0x1", id), -EINVAL);
	CHECK_EQ(srpt_parse_hex_port_id("123", id), -EINVAL);
	CHECK_EQ(srpt_parse_hex_port_id("0xfe80000000000000505400fffe4a0b7",
					id), -EINVAL);
	CHECK_EQ(srpt_parse_hex_port_id("0x0x12", id), -EINVAL);
	CHECK_EQ(srpt_parse_hex_port_id("x12", id), -EINVAL);
	CHECK_EQ(srpt_parse_hex_port_id("0x12g4", id), -EINVAL);
	CHECK_EQ(srpt_parse_hex_port_id("0x12 ", id), -EINVAL);
	CHECK_EQ(srpt_parse_hex_port_id(" 0x12", id), -EINVAL);
	CHECK_EQ(srpt_parse_hex_port_id("0x-1234", id), -EINVAL);
	CHECK_EQ(srpt_parse_hex_port_id("5054:00ff:fe4a:0b7b", id), -EINVAL);
	CHECK_EQ(srpt_parse_hex_port_id("192.0.2.1", id), -EINVAL);
	/* non-hex after the 32nd digit */
	CHECK_EQ(srpt_parse_hex_port_id("0x" GID_DOC_HEX "zz", id), -EINVAL);
	CHECK_MEM_EQ(id, keep, 16);
	CHECK_EQ(srpt_parse_hex_port_id("0x12", NULL), 0);
	CHECK_EQ(srpt_parse_hex_port_id("0x1", NULL), -EINVAL);
}

static void test_parse_acl(void)
{
	char buf[SRPT_HEX128_NAME_SIZE];

	/* names the driver itself produces */
	srpt_format_guid_name(buf, sizeof(buf), gid_rxe);
	CHECK_EQ(srpt_parse_acl_name(buf), 0);
	srpt_format_port_id(buf, sizeof(buf), gid_rxe);
	CHECK_EQ(srpt_parse_acl_name(buf), 0);
	CHECK_EQ(srpt_parse_acl_name(buf + 2), 0);

	CHECK_EQ(srpt_parse_acl_name("5054:00ff:fe4a:0b7b"), 0);
	CHECK_EQ(srpt_parse_acl_name("0x00000000000000000000000000000001"), 0);
	CHECK_EQ(srpt_parse_acl_name("0xab"), 0);

	/* left to configfs.c (IP forms) or invalid */
	CHECK_EQ(srpt_parse_acl_name("192.0.2.1"), -EINVAL);
	CHECK_EQ(srpt_parse_acl_name("fe80::1"), -EINVAL);
	CHECK_EQ(srpt_parse_acl_name(""), -EINVAL);
	CHECK_EQ(srpt_parse_acl_name("0x"), -EINVAL);
	CHECK_EQ(srpt_parse_acl_name("0x123"), -EINVAL);
	CHECK_EQ(srpt_parse_acl_name("iqn.2003-01.org.linux-iscsi:x"), -EINVAL);
	CHECK_EQ(srpt_parse_acl_name("1:2:3:4:5"), -EINVAL);
}

int main(void)
{
	test_format();
	test_format_sizes();
	test_format_ip();
	test_parse_guid();
	test_parse_hex();
	test_parse_acl();
	return unit_done();
}
