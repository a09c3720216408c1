// SPDX-License-Identifier: GPL-2.0
/*
 * srp_flood - srp_login's sibling for command floods (-B): logs in, sends
 * many SRP_CMDs back to back ignoring req_lim, and disconnects abruptly.
 * (Split off srp_login when both grew incompatible options in parallel;
 * merging the two is a test-tool cleanup left for later.)
 *
 *   srp_flood -a ADDR [-p PORT] -g SERVICE_GUID [options]
 *     -t HEX32   target port ID (default: SERVICE_GUID twice)
 *     -i HEX32   initiator port ID (default: 0...01)
 *     -l LEN     req_it_iu_len (default 8260)
 *     -f FLAGS   req_flags (default 0: single channel, no immediate data)
 *     -o OFF     imm_data_offset (default 0)
 *     -H MS      after a successful login stay connected up to MS ms and
 *                report whether the target disconnected
 *     -T MS      timeout for each CM step (default 5000)
 *     -s HEX     after a successful login send this IU (hex bytes; "@FILE"
 *                reads raw bytes from FILE) and wait for one IU back
 *     -S LEN     pad the IU sent with -s with zeroes to LEN bytes
 *     -B N       hostile initiator: after a successful login send one REPORT
 *                LUNS to LUN and wait for its answer (the channel is then
 *                known to be live), then send N SRP_CMDs
 *                back to back, ignoring the credits the target granted
 *                (READ(10) of one 512-byte block, direct descriptor), wait
 *                until the target has received all of them (send
 *                completions; receivers not ready are retried forever), then
 *                disconnect at once without waiting for any response
 *     -L LUN     LUN of the -B commands (default 0)
 *     -W         -B sends WRITE(10)s of one block as immediate data instead
 *                (log in with -f 0x80 -o OFF)
 *     -N         -B posts no receive buffer for the flood's responses (one
 *                for the REPORT LUNS only): a stalled initiator, whose
 *                responses wait in the target's RNR retries; with -H it then
 *                stays connected instead of disconnecting
 *
 * Output (stdout, one key=value per line): result=accepted|rejected|error,
 * then for accepted: req_lim_delta, max_it_iu_len, max_ti_iu_len, buf_fmt,
 * rsp_flags; for rejected: cm_status and, if an SRP_LOGIN_REJ came back,
 * reason; with -s: sent=N, then reply_len, reply_opcode and reply (hex) or
 * reply=none; with -H: disconnected=0|1; with -B: blast_sent, blast_acked,
 * blast_rsps (responses received before the disconnect), blast_status
 * (their SCSI status counts) and blast_rsp1 (the first 64 bytes of the
 * first response, hex). Exit status 0 if the CM exchange
 * completed (accepted or rejected), 1 otherwise.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

struct login_req_rdma {
	uint64_t tag;
	uint16_t req_buf_fmt;
	uint8_t req_flags;
	uint8_t opcode;
	uint32_t req_it_iu_len;
	uint8_t initiator_port_id[16];
	uint8_t target_port_id[16];
	uint16_t imm_data_offset;
	uint8_t reserved[6];
};

static int timeout_ms = 5000;

static int parse_hex(const char *s, uint8_t *out, int len)
{
	int i, n = strlen(s);

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	if (n != 2 * len)
		return -1;
	for (i = 0; i < len; i++) {
		unsigned int v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = v;
	}
	return 0;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

/* Wait for the next CM event; returns NULL on timeout. */
static struct rdma_cm_event *next_event(struct rdma_event_channel *ec,
					int ms)
{
	struct pollfd pfd = { .fd = ec->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, ms) <= 0)
		return NULL;
	if (rdma_get_cm_event(ec, &ev))
		return NULL;
	return ev;
}

static int expect(struct rdma_event_channel *ec, enum rdma_cm_event_type t)
{
	struct rdma_cm_event *ev = next_event(ec, timeout_ms);
	int ok;

	if (!ev) {
		fprintf(stderr, "timeout waiting for %s\n", rdma_event_str(t));
		return -1;
	}
	ok = ev->event == t;
	if (!ok)
		fprintf(stderr, "got %s (status %d), expected %s\n",
			rdma_event_str(ev->event), ev->status,
			rdma_event_str(t));
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

static int load_iu(const char *arg, uint8_t *buf, int max)
{
	int n = 0;

	if (arg[0] == '@') {
		FILE *f = fopen(arg + 1, "rb");

		if (!f)
			return -1;
		n = fread(buf, 1, max, f);
		fclose(f);
		return n;
	}
	while (arg[0] && arg[1] && n < max) {
		unsigned int v;

		if (sscanf(arg, "%2x", &v) != 1)
			return -1;
		buf[n++] = v;
		arg += 2;
	}
	return n;
}

/*
 * Send one IU on the connected QP and wait for one IU from the target.
 * Prints sent=, reply_len=, reply_opcode= and reply= lines.
 */
static void exchange_iu(struct rdma_cm_id *id, struct ibv_pd *pd,
			struct ibv_cq *cq, const char *arg, int pad)
{
	static uint8_t sbuf[65536], rbuf[65536];
	struct ibv_mr *smr, *rmr;
	struct ibv_sge ssge, rsge;
	struct ibv_send_wr swr, *bad_s;
	struct ibv_recv_wr rwr, *bad_r;
	struct ibv_wc wc;
	int len, i, got_recv = 0, waited = 0;

	len = load_iu(arg, sbuf, sizeof(sbuf));
	if (len < 0) {
		fprintf(stderr, "bad IU argument\n");
		return;
	}
	if (pad > len && pad <= (int)sizeof(sbuf))
		len = pad;
	smr = ibv_reg_mr(pd, sbuf, sizeof(sbuf), IBV_ACCESS_LOCAL_WRITE);
	rmr = ibv_reg_mr(pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!smr || !rmr) {
		perror("ibv_reg_mr");
		return;
	}
	rsge.addr = (uintptr_t)rbuf;
	rsge.length = sizeof(rbuf);
	rsge.lkey = rmr->lkey;
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 2;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	ssge.addr = (uintptr_t)sbuf;
	ssge.length = len;
	ssge.lkey = smr->lkey;
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = 1;
	swr.sg_list = &ssge;
	swr.num_sge = 1;
	swr.opcode = IBV_WR_SEND;
	swr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_recv(id->qp, &rwr, &bad_r) ||
	    ibv_post_send(id->qp, &swr, &bad_s)) {
		perror("ibv_post");
		return;
	}
	printf("sent=%d\n", len);
	while (!got_recv && waited < timeout_ms) {
		int n = ibv_poll_cq(cq, 1, &wc);

		if (n <= 0) {
			usleep(1000);
			waited++;
			continue;
		}
		if (wc.wr_id == 1 && wc.status != IBV_WC_SUCCESS)
			printf("send_status=%d\n", wc.status);
		if (wc.wr_id != 2)
			continue;
		got_recv = 1;
		if (wc.status != IBV_WC_SUCCESS) {
			printf("reply=none\nrecv_status=%d\n", wc.status);
			break;
		}
		printf("reply_len=%u\n", wc.byte_len);
		printf("reply_opcode=0x%02x\n", rbuf[0]);
		printf("reply=");
		for (i = 0; i < (int)wc.byte_len && i < 256; i++)
			printf("%02x", rbuf[i]);
		printf("\n");
	}
	if (!got_recv)
		printf("reply=none\n");
}

/* SRP_CMD fields used by blast() (offsets of the SRP r16a layout). */
enum {
	CMD_LEN		= 48,	/* fixed part, descriptors follow */
	BLAST_BLOCK	= 512,
	BLAST_RSP_LEN	= 1024,	/* >= the target's max_rsp_size */
};

/*
 * Poll until both the send and the receive of one exchange have completed.
 * Return: 0, or -1 on timeout or an error completion.
 */
static int wait_exchange(struct ibv_cq *cq)
{
	int waited = 0, got_send = 0, got_recv = 0;
	struct ibv_wc wc;

	while ((!got_send || !got_recv) && waited < timeout_ms) {
		if (ibv_poll_cq(cq, 1, &wc) <= 0) {
			usleep(1000);
			waited++;
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS)
			return -1;
		if (wc.wr_id >= 0x10000)
			got_recv = 1;
		else
			got_send = 1;
	}
	return got_send && got_recv ? 0 : -1;
}

/*
 * Hostile initiator: post N SRP_CMDs without looking at req_lim, wait for
 * their send completions (the target has received each one), then let the
 * caller disconnect. Responses that arrive meanwhile are only counted.
 */
static void blast(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_cq *cq,
		  int n, uint64_t lun, int write_imm, unsigned int imm_off,
		  int no_recv)
{
	uint8_t *cmds, *rsps, *data;
	struct ibv_mr *cmr, *rmr, *dmr;
	int st[3] = { 0 };	/* statuses: GOOD, CHECK CONDITION, other */
	int i, acked = 0, rsps_seen = 0, waited = 0, len;
	struct ibv_wc wc[16];

	len = write_imm ? (int)imm_off + BLAST_BLOCK : CMD_LEN + 16;
	cmds = calloc(n + 1, len);
	rsps = calloc(n + 1, BLAST_RSP_LEN);
	data = calloc(1, BLAST_BLOCK);
	if (!cmds || !rsps || !data) {
		fprintf(stderr, "out of memory\n");
		return;
	}
	cmr = ibv_reg_mr(pd, cmds, (size_t)(n + 1) * len,
			 IBV_ACCESS_LOCAL_WRITE);
	rmr = ibv_reg_mr(pd, rsps, (size_t)(n + 1) * BLAST_RSP_LEN,
			 IBV_ACCESS_LOCAL_WRITE);
	dmr = ibv_reg_mr(pd, data, BLAST_BLOCK, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!cmr || !rmr || !dmr) {
		perror("ibv_reg_mr");
		return;
	}
	for (i = 0; i <= (no_recv ? 0 : n); i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)(rsps + (size_t)i * BLAST_RSP_LEN),
			.length = BLAST_RSP_LEN,
			.lkey = rmr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = 0x10000 + i, .sg_list = &sge, .num_sge = 1,
		}, *bad;

		if (ibv_post_recv(id->qp, &wr, &bad)) {
			perror("ibv_post_recv");
			return;
		}
	}
	/*
	 * Command 0 is a REPORT LUNS to the flood's LUN, answered before the
	 * flood, so the flood starts on a live channel. It does not clear
	 * LIO's REPORTED LUNS DATA HAS CHANGED unit attention: when a LUN was
	 * added after the ACL, the first flood command to a LUN that existed
	 * before still gets it (seen in blast_rsp1 and as one CHECK CONDITION
	 * in blast_status); the LUN added last has none. (Until the LUN went
	 * into the LUN field at byte 20 of the SRP_CMD, every command went to
	 * LUN 0, which is why the first flood command always got it.)
	 */
	for (i = 0; i <= n; i++) {
		uint8_t *c = cmds + (size_t)i * len;
		uint64_t tag = htobe64(0xb1a5700000000000ULL + i);
		uint64_t be_lun = htobe64(lun << 48);
		uint32_t lba = htobe32(i), v32;
		uint64_t v64;
		struct ibv_sge sge = {
			.addr = (uintptr_t)c, .length = len, .lkey = cmr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		c[0] = 0x02;				/* SRP_CMD */
		memcpy(c + 8, &tag, 8);
		memcpy(c + 20, &be_lun, 8);	/* SRP_CMD LUN field */
		c[32] = write_imm ? 0x2a : 0x28;	/* WRITE(10)/READ(10) */
		memcpy(c + 34, &lba, 4);
		c[39] = 0;
		c[40] = 1;				/* one block */
		if (i == 0) {
			memset(c + 32, 0, 16);
			c[32] = 0xa0;			/* REPORT LUNS */
			c[38] = BLAST_BLOCK >> 8;	/* allocation length */
		}
		if (write_imm && i) {
			c[5] = 0x30;			/* data-out: immediate */
			v32 = htobe32(BLAST_BLOCK);
			memcpy(c + CMD_LEN, &v32, 4);
			memset(c + imm_off, 0x5a, BLAST_BLOCK);
		} else {
			c[5] = 0x01;			/* data-in: direct */
			c[7] = 1;
			v64 = htobe64((uintptr_t)data);
			memcpy(c + CMD_LEN, &v64, 8);
			v32 = htobe32(dmr->rkey);
			memcpy(c + CMD_LEN + 8, &v32, 4);
			v32 = htobe32(BLAST_BLOCK);
			memcpy(c + CMD_LEN + 12, &v32, 4);
		}
		if (ibv_post_send(id->qp, &wr, &bad)) {
			perror("ibv_post_send");
			n = i - 1;
			break;
		}
		if (i == 0 && wait_exchange(cq))
			fprintf(stderr, "no answer to REPORT LUNS\n");
	}
	printf("blast_sent=%d\n", n);
	while (acked < n && waited < timeout_ms) {
		int k, got = ibv_poll_cq(cq, 16, wc);

		if (got <= 0) {
			usleep(1000);
			waited++;
			continue;
		}
		for (k = 0; k < got; k++) {
			if (wc[k].wr_id >= 0x10000) {
				const uint8_t *r = rsps + (size_t)
					(wc[k].wr_id - 0x10000) * BLAST_RSP_LEN;

				if (wc[k].status == IBV_WC_SUCCESS)
					st[r[19] == 0 ? 0 : r[19] == 2 ? 1 : 2]++;
				if (!rsps_seen++ &&
				    wc[k].status == IBV_WC_SUCCESS) {
					printf("blast_rsp1=");
					for (i = 0; i < 64 &&
					     i < (int)wc[k].byte_len; i++)
						printf("%02x", r[i]);
					printf("\n");
				}
			} else if (wc[k].status == IBV_WC_SUCCESS) {
				acked++;
			} else {
				waited = timeout_ms;	/* QP failed */
			}
		}
	}
	printf("blast_acked=%d\nblast_rsps=%d\n", acked, rsps_seen);
	printf("blast_status=good:%d,check:%d,other:%d\n", st[0], st[1], st[2]);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "5555";
	struct login_req_rdma req;
	uint8_t guid[8] = { 0 };
	int have_guid = 0, have_tpid = 0, hold_ms = 0, opt, rc = 1, pad = 0;
	int blast_n = 0, blast_write = 0, blast_no_recv = 0;
	uint64_t blast_lun = 0;
	const char *iu = NULL;
	unsigned long it_iu_len = 8260, flags = 0, imm_off = 0;
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct rdma_conn_param param;
	struct ibv_qp_init_attr qpa;
	struct rdma_cm_event *ev;
	struct addrinfo *ai;
	struct ibv_pd *pd;
	struct ibv_cq *cq;

	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&req, 0, sizeof(req));
	req.initiator_port_id[15] = 1;
	while ((opt = getopt(argc, argv, "a:p:g:t:i:l:f:o:H:T:s:S:B:L:WN")) != -1) {
		switch (opt) {
		case 'a':
			addr = optarg;
			break;
		case 'p':
			port = optarg;
			break;
		case 'g':
			if (parse_hex(optarg, guid, 8))
				goto usage;
			have_guid = 1;
			break;
		case 't':
			if (parse_hex(optarg, req.target_port_id, 16))
				goto usage;
			have_tpid = 1;
			break;
		case 'i':
			if (parse_hex(optarg, req.initiator_port_id, 16))
				goto usage;
			break;
		case 'l':
			it_iu_len = strtoul(optarg, NULL, 0);
			break;
		case 'f':
			flags = strtoul(optarg, NULL, 0);
			break;
		case 'o':
			imm_off = strtoul(optarg, NULL, 0);
			break;
		case 'H':
			hold_ms = atoi(optarg);
			break;
		case 'T':
			timeout_ms = atoi(optarg);
			break;
		case 's':
			iu = optarg;
			break;
		case 'S':
			pad = atoi(optarg);
			break;
		case 'B':
			blast_n = atoi(optarg);
			if (blast_n < 1 || blast_n > 4096)
				goto usage;
			break;
		case 'L':
			blast_lun = strtoull(optarg, NULL, 0);
			break;
		case 'W':
			blast_write = 1;
			break;
		case 'N':
			blast_no_recv = 1;
			break;
		default:
			goto usage;
		}
	}
	if (!addr || (!have_guid && !have_tpid))
		goto usage;
	if (!have_tpid) {
		memcpy(req.target_port_id, guid, 8);
		memcpy(req.target_port_id + 8, guid, 8);
	}
	req.opcode = 0;
	req.tag = htobe64(0x5352504c4f47494eULL);
	req.req_it_iu_len = htobe32(it_iu_len);
	req.req_buf_fmt = htobe16(0x6);
	req.req_flags = flags;
	req.imm_data_offset = htobe16(imm_off);

	if (getaddrinfo(addr, port, NULL, &ai)) {
		fprintf(stderr, "cannot resolve %s:%s\n", addr, port);
		return 1;
	}
	ec = rdma_create_event_channel();
	if (!ec || rdma_create_id(ec, &id, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return 1;
	}
	if (rdma_resolve_addr(id, NULL, ai->ai_addr, timeout_ms) ||
	    expect(ec, RDMA_CM_EVENT_ADDR_RESOLVED) ||
	    rdma_resolve_route(id, timeout_ms) ||
	    expect(ec, RDMA_CM_EVENT_ROUTE_RESOLVED)) {
		printf("result=error\n");
		return 1;
	}
	pd = ibv_alloc_pd(id->verbs);
	cq = pd ? ibv_create_cq(id->verbs, 16 + 2 * blast_n, NULL, NULL, 0) :
		  NULL;
	memset(&qpa, 0, sizeof(qpa));
	qpa.send_cq = cq;
	qpa.recv_cq = cq;
	qpa.qp_type = IBV_QPT_RC;
	qpa.cap.max_send_wr = 8 + blast_n;
	qpa.cap.max_recv_wr = 8 + blast_n;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	if (!cq || rdma_create_qp(id, pd, &qpa)) {
		perror("rdma_create_qp");
		printf("result=error\n");
		return 1;
	}

	memset(&param, 0, sizeof(param));
	param.private_data = &req;
	param.private_data_len = sizeof(req);
	param.responder_resources = 4;
	param.initiator_depth = 4;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_connect(id, &param)) {
		perror("rdma_connect");
		printf("result=error\n");
		return 1;
	}
	ev = next_event(ec, timeout_ms);
	if (!ev) {
		printf("result=error\n");
		fprintf(stderr, "no answer to the login\n");
		return 1;
	}
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED &&
	    ev->param.conn.private_data_len >= 27) {
		const uint8_t *p = ev->param.conn.private_data;

		printf("result=accepted\n");
		printf("opcode=0x%02x\n", p[0]);
		printf("req_lim_delta=%u\n", get_be32(p + 4));
		printf("tag_ok=%d\n", memcmp(p + 8, &req.tag, 8) == 0);
		printf("max_it_iu_len=%u\n", get_be32(p + 16));
		printf("max_ti_iu_len=%u\n", get_be32(p + 20));
		printf("buf_fmt=0x%x\n", p[24] << 8 | p[25]);
		printf("rsp_flags=0x%x\n", p[26]);
		rc = 0;
	} else if (ev->event == RDMA_CM_EVENT_REJECTED) {
		const uint8_t *p = ev->param.conn.private_data;

		printf("result=rejected\n");
		printf("cm_status=%d\n", ev->status);
		if (p && ev->param.conn.private_data_len >= 8 && p[0] == 0xc2)
			printf("reason=0x%08x\n", get_be32(p + 4));
		rc = 0;
	} else {
		printf("result=error\n");
		fprintf(stderr, "unexpected event %s (status %d)\n",
			rdma_event_str(ev->event), ev->status);
	}
	int accepted = ev->event == RDMA_CM_EVENT_ESTABLISHED;

	rdma_ack_cm_event(ev);
	if (accepted) {
		int disconnected = 0;

		if (iu)
			exchange_iu(id, pd, cq, iu, pad);
		if (blast_n)
			blast(id, pd, cq, blast_n, blast_lun, blast_write,
			      imm_off, blast_no_recv);

		if (hold_ms) {
			ev = next_event(ec, hold_ms);
			if (ev) {
				disconnected =
					ev->event == RDMA_CM_EVENT_DISCONNECTED;
				rdma_ack_cm_event(ev);
			}
			printf("disconnected=%d\n", disconnected);
		}
		rdma_disconnect(id);
		if (!disconnected) {
			ev = next_event(ec, timeout_ms);
			if (ev)
				rdma_ack_cm_event(ev);
		}
	}
	rdma_destroy_qp(id);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ec);
	freeaddrinfo(ai);
	return rc;

usage:
	fprintf(stderr,
		"usage: %s -a ADDR [-p PORT] -g GUID [-t HEX32] [-i HEX32] [-l LEN] [-f FLAGS] [-o OFF] [-H MS] [-T MS] [-s HEX|@FILE] [-S LEN] [-B N [-L LUN] [-W] [-N]]\n",
		argv[0]);
	return 2;
}
