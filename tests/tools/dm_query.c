// SPDX-License-Identifier: GPL-2.0
/*
 * dm_query.c - send one Device Management (class 0x06) MAD to the QP1 of an
 * RDMA port through /dev/infiniband/umadN and print the reply.
 *
 * Used to test the DM agent of ib_srpt end to end, including over
 * Soft-RoCE: RoCE needs a GRH, so the request is addressed to a GID
 * (default: GID 0 of the port itself, i.e. a loopback query).
 *
 * Usage: dm_query [-C ca] [-P port] [-g gid] [-l lid] [-n] [-m method]
 *                 [-t timeout_ms] [-x] ATTR [ATTR_MOD]
 *
 *   ATTR      cpi | iou | ioc | svc or a number (attribute ID)
 *   ATTR_MOD  attribute modifier (default 0; for ioc use the slot, for svc
 *             slot << 16 | hi << 8 | lo)
 *   -m        get (default), set, or a method number
 *   -g        destination GID (default: the port's GID 0); -n: no GRH
 *   -l        destination LID (default: the port's LID)
 *   -x        also print the whole reply as hex
 *
 * Output (stdout): shell-assignable lines "key=value" (strings in single
 * quotes): status, method, attr_id, attr_mod, tid_match, then the fields
 * of the attribute when status is 0. The fields are decoded at the byte
 * offsets of the IBTA specification, independently of the driver's
 * headers. Exit status: 0 a reply was received, 1 no reply, 2 usage or
 * setup error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#define MAD_SIZE	256
#define DATA		64	/* offset of the attribute data */
#define DM_CLASS	0x06
#define QP1_QKEY	0x80010000U

static const uint8_t *g_mad;

static unsigned int u8_at(unsigned int off)
{
	return g_mad[off];
}

static unsigned int be16_at(unsigned int off)
{
	return (unsigned int)g_mad[off] << 8 | g_mad[off + 1];
}

static unsigned long be32_at(unsigned int off)
{
	return (unsigned long)be16_at(off) << 16 | be16_at(off + 2);
}

static unsigned long long be64_at(unsigned int off)
{
	return (unsigned long long)be32_at(off) << 32 | be32_at(off + 4);
}

/* Print a NUL padded string field of at most len bytes, quoted. */
static void print_str(const char *key, unsigned int off, unsigned int len)
{
	unsigned int i;

	printf("%s='", key);
	for (i = 0; i < len && g_mad[off + i]; i++) {
		int c = g_mad[off + i];

		putchar(c >= 0x20 && c < 0x7f && c != '\'' ? c : '?');
	}
	printf("'\n");
}

static void print_cpi(void)
{
	printf("base_version=%u\n", u8_at(DATA + 0));
	printf("class_version=%u\n", u8_at(DATA + 1));
	printf("capability_mask=0x%04x\n", be16_at(DATA + 2));
	printf("cap_mask2=0x%07lx\n", be32_at(DATA + 4) >> 5);
	printf("resp_time_value=%lu\n", be32_at(DATA + 4) & 0x1f);
	printf("redirect_lid=%u\n", be16_at(DATA + 28));
	printf("redirect_qp=0x%06lx\n", be32_at(DATA + 32) & 0xffffff);
	printf("trap_lid=%u\n", be16_at(DATA + 60));
}

static void print_iou(void)
{
	unsigned int i;

	printf("change_id=%u\n", be16_at(DATA + 0));
	printf("max_controllers=%u\n", u8_at(DATA + 2));
	printf("op_rom=0x%02x\n", u8_at(DATA + 3));
	/* 4 bits per slot, slot 1 first: one hex digit per slot */
	printf("controller_list=");
	for (i = 0; i < 8; i++)
		printf("%02x", u8_at(DATA + 4 + i));
	printf("\n");
}

static void print_ioc(void)
{
	printf("guid=0x%016llx\n", be64_at(DATA + 0));
	printf("vendor_id=0x%08lx\n", be32_at(DATA + 8));
	printf("device_id=0x%08lx\n", be32_at(DATA + 12));
	printf("device_version=0x%04x\n", be16_at(DATA + 16));
	printf("subsys_vendor_id=0x%08lx\n", be32_at(DATA + 20));
	printf("subsys_device_id=0x%08lx\n", be32_at(DATA + 24));
	printf("io_class=0x%04x\n", be16_at(DATA + 28));
	printf("io_subclass=0x%04x\n", be16_at(DATA + 30));
	printf("protocol=0x%04x\n", be16_at(DATA + 32));
	printf("protocol_version=0x%04x\n", be16_at(DATA + 34));
	printf("service_conn=%u\n", be16_at(DATA + 36));
	printf("initiators_supported=%u\n", be16_at(DATA + 38));
	printf("send_queue_depth=%u\n", be16_at(DATA + 40));
	printf("rdma_read_depth=%u\n", u8_at(DATA + 43));
	printf("send_size=%lu\n", be32_at(DATA + 44));
	printf("rdma_size=%lu\n", be32_at(DATA + 48));
	printf("op_cap_mask=0x%02x\n", u8_at(DATA + 52));
	printf("svc_cap_mask=0x%02x\n", u8_at(DATA + 53));
	printf("num_svc_entries=%u\n", u8_at(DATA + 54));
	print_str("id_string", DATA + 64, 64);
}

static void print_svc(void)
{
	char key[32];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		snprintf(key, sizeof(key), "svc%u_name", i);
		print_str(key, DATA + 48 * i, 40);
		printf("svc%u_id=0x%016llx\n", i, be64_at(DATA + 48 * i + 40));
	}
}

static void hexdump(void)
{
	unsigned int i;

	for (i = 0; i < MAD_SIZE; i++)
		printf("%s%02x%s", i % 16 ? "" : "# ", g_mad[i],
		       i % 16 == 15 ? "\n" : " ");
}

static void usage(void)
{
	fprintf(stderr,
		"usage: dm_query [-C ca] [-P port] [-g gid] [-l lid] [-n] [-m get|set|N]\n"
		"                [-t timeout_ms] [-x] cpi|iou|ioc|svc|ATTR_ID [ATTR_MOD]\n");
	exit(2);
}

static unsigned long parse_num(const char *s, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || end == s || v > max) {
		fprintf(stderr, "dm_query: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *ca = NULL, *gid_str = NULL;
	int port = 0, lid = -1, grh = 1, dump = 0, timeout = 2000;
	unsigned int method = 0x01, attr_id, attr_mod = 0;
	uint8_t gid[16];
	umad_port_t uport;
	ib_user_mad_t *req, *rsp;
	uint8_t *mad;
	uint32_t tid;
	int fd, agent, len, opt, ret;

	while ((opt = getopt(argc, argv, "C:P:g:l:nm:t:x")) != -1) {
		switch (opt) {
		case 'C':
			ca = optarg;
			break;
		case 'P':
			port = (int)parse_num(optarg, 255);
			break;
		case 'g':
			gid_str = optarg;
			break;
		case 'l':
			lid = (int)parse_num(optarg, 0xffff);
			break;
		case 'n':
			grh = 0;
			break;
		case 'm':
			if (!strcmp(optarg, "get"))
				method = 0x01;
			else if (!strcmp(optarg, "set"))
				method = 0x02;
			else
				method = parse_num(optarg, 0x7f);
			break;
		case 't':
			timeout = (int)parse_num(optarg, 600000);
			break;
		case 'x':
			dump = 1;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc || argc - optind > 2)
		usage();
	if (!strcmp(argv[optind], "cpi"))
		attr_id = 0x0001;
	else if (!strcmp(argv[optind], "iou"))
		attr_id = 0x0010;
	else if (!strcmp(argv[optind], "ioc"))
		attr_id = 0x0011;
	else if (!strcmp(argv[optind], "svc"))
		attr_id = 0x0012;
	else
		attr_id = parse_num(argv[optind], 0xffff);
	if (argc - optind == 2)
		attr_mod = parse_num(argv[optind + 1], 0xffffffffUL);

	if (umad_init() < 0) {
		fprintf(stderr, "dm_query: umad_init failed\n");
		return 2;
	}
	if (umad_get_port(ca, port, &uport) < 0) {
		fprintf(stderr, "dm_query: no port %s/%d\n", ca ? ca : "(default)",
			port);
		return 2;
	}
	if (gid_str) {
		if (inet_pton(AF_INET6, gid_str, gid) != 1) {
			fprintf(stderr, "dm_query: bad GID '%s'\n", gid_str);
			return 2;
		}
	} else {
		/* GID 0 of the port: prefix and GUID, both network order */
		memcpy(gid, &uport.gid_prefix, 8);
		memcpy(gid + 8, &uport.port_guid, 8);
	}
	if (lid < 0)
		lid = uport.base_lid;

	fd = umad_open_port(uport.ca_name, uport.portnum);
	if (fd < 0) {
		fprintf(stderr, "dm_query: cannot open umad for %s/%d (%d)\n",
			uport.ca_name, uport.portnum, fd);
		return 2;
	}
	/* no method mask: we only send requests and receive their replies */
	agent = umad_register(fd, DM_CLASS, 1, 0, NULL);
	if (agent < 0) {
		fprintf(stderr, "dm_query: umad_register failed (%d)\n", agent);
		return 2;
	}

	req = calloc(1, umad_size() + MAD_SIZE);
	rsp = calloc(1, umad_size() + MAD_SIZE);
	if (!req || !rsp)
		return 2;
	mad = umad_get_mad(req);
	tid = (uint32_t)getpid() ^ (uint32_t)time(NULL) << 8;
	mad[0] = 1;			/* base version */
	mad[1] = DM_CLASS;
	mad[2] = 1;			/* class version */
	mad[3] = method;
	/* TID: the kernel replaces the high 32 bits with the agent's */
	mad[12] = tid >> 24;
	mad[13] = tid >> 16;
	mad[14] = tid >> 8;
	mad[15] = tid;
	mad[16] = attr_id >> 8;
	mad[17] = attr_id;
	mad[20] = attr_mod >> 24;
	mad[21] = attr_mod >> 16;
	mad[22] = attr_mod >> 8;
	mad[23] = attr_mod;

	umad_set_addr(req, lid, 1, 0, QP1_QKEY);
	umad_set_pkey(req, 0);
	if (grh) {
		req->addr.grh_present = 1;
		memcpy(req->addr.gid, gid, 16);
		req->addr.gid_index = 0;
		req->addr.hop_limit = 64;
		req->addr.traffic_class = 0;
		req->addr.flow_label = 0;
	}

	ret = umad_send(fd, agent, req, MAD_SIZE, timeout, 0);
	if (ret < 0) {
		fprintf(stderr, "dm_query: umad_send failed (%d)\n", ret);
		return 1;
	}
	for (;;) {
		len = MAD_SIZE;
		ret = umad_recv(fd, rsp, &len, timeout + 1000);
		if (ret < 0) {
			fprintf(stderr, "dm_query: no reply (%d)\n", ret);
			return 1;
		}
		if (umad_status(rsp)) {
			/* our request came back: timed out or not sent */
			fprintf(stderr, "dm_query: request failed, status %d\n",
				umad_status(rsp));
			return 1;
		}
		g_mad = umad_get_mad(rsp);
		if (len >= MAD_SIZE && g_mad[1] == DM_CLASS &&
		    be32_at(12) == tid)
			break;
		fprintf(stderr, "dm_query: ignoring an unrelated MAD\n");
	}

	printf("status=0x%04x\n", be16_at(4));
	printf("method=0x%02x\n", u8_at(3));
	printf("attr_id=0x%04x\n", be16_at(16));
	printf("attr_mod=0x%08lx\n", be32_at(20));
	printf("tid_match=%d\n", be32_at(12) == tid);
	if (dump)
		hexdump();
	if (be16_at(4) == 0 && u8_at(3) == 0x81) {
		switch (attr_id) {
		case 0x0001:
			print_cpi();
			break;
		case 0x0010:
			print_iou();
			break;
		case 0x0011:
			print_ioc();
			break;
		case 0x0012:
			print_svc();
			break;
		}
	}
	umad_unregister(fd, agent);
	umad_close_port(fd);
	umad_release_port(&uport);
	umad_done();
	return 0;
}
