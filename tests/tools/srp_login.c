// SPDX-License-Identifier: GPL-2.0
/*
 * srp_login - a minimal SRP initiator over RDMA CM that sends one crafted
 * SRP_LOGIN_REQ (56-byte RDMA CM private data) and reports the answer.
 *
 *   srp_login -a ADDR [-p PORT] -g SERVICE_GUID [options]
 *     -t HEX32   target port ID (default: SERVICE_GUID twice)
 *     -i HEX32   initiator port ID (default: 0...01)
 *     -l LEN     req_it_iu_len (default 8260)
 *     -f FLAGS   req_flags (default 0: single channel, no immediate data)
 *     -o OFF     imm_data_offset (default 0)
 *     -H MS      after a successful login stay connected up to MS ms and
 *                report whether the target disconnected
 *     -T MS      timeout for each CM step (default 5000)
 *     -s HEX     after a successful login send this IU (hex bytes; "@FILE"
 *                reads raw bytes from FILE; "" sends a 0-byte IU) and wait
 *                for one IU back. May be given up to MAX_IUS times: the IUs
 *                are exchanged one after the other, in order.
 *     -S LEN     pad the IU of the last -s with zeroes to LEN bytes
 *     -r N       send the IU of the first -s N times (default 1), e.g. to
 *                fill every receive buffer of the target with known bytes
 *     -W MS      how long to wait for the reply to the IU of the last -s
 *                (before any -s: the default for all IUs, which is -T)
 *     -E MS      never complete the connection: the QP is not the cm_id's,
 *                so the RDMA CM hands the target's REP to this tool
 *                (CONNECT_RESPONSE) instead of sending the RTU itself, and
 *                the tool does not call rdma_establish(); it waits up to MS
 *                ms for a CM event and reports it (no -s, -H)
 *
 * Output (stdout, one key=value per line): result=accepted|rejected|error,
 * then for accepted: req_lim_delta, max_it_iu_len, max_ti_iu_len, buf_fmt,
 * rsp_flags; for rejected: cm_status and, if an SRP_LOGIN_REJ came back,
 * reason; with -s: sent=N, then reply_len, reply_opcode and reply (hex) or
 * reply=none, once per IU sent (with reply_ms, the time the reply took);
 * with -H: disconnected=0|1; with -E: result=responded (the target
 * accepted) and then held_event=NAME|none and held_ms. Exit status 0 if
 * the CM exchange
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
#include <time.h>
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

#define MAX_IUS 64

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

/* Monotonic time in milliseconds. */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
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
			struct ibv_cq *cq, const char *arg, int pad,
			int reply_ms)
{
	static uint8_t sbuf[65536], rbuf[65536];
	static struct ibv_mr *smr, *rmr;
	static int recv_posted;
	struct ibv_sge ssge, rsge;
	struct ibv_send_wr swr, *bad_s;
	struct ibv_recv_wr rwr, *bad_r;
	struct ibv_wc wc;
	int len, i, got_recv = 0, waited = 0;
	long long start = now_ms();

	len = load_iu(arg, sbuf, sizeof(sbuf));
	if (len < 0) {
		fprintf(stderr, "bad IU argument\n");
		return;
	}
	if (pad > len && pad <= (int)sizeof(sbuf))
		len = pad;
	if (!smr)
		smr = ibv_reg_mr(pd, sbuf, sizeof(sbuf),
				 IBV_ACCESS_LOCAL_WRITE);
	if (!rmr)
		rmr = ibv_reg_mr(pd, rbuf, sizeof(rbuf),
				 IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_WRITE |
				 IBV_ACCESS_REMOTE_READ);
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
	/* a receive left over from an IU that got no reply is reused */
	if (!recv_posted) {
		if (ibv_post_recv(id->qp, &rwr, &bad_r)) {
			perror("ibv_post_recv");
			return;
		}
		recv_posted = 1;
	}
	if (ibv_post_send(id->qp, &swr, &bad_s)) {
		perror("ibv_post_send");
		return;
	}
	printf("sent=%d\n", len);
	while (!got_recv && waited < reply_ms) {
		int n = ibv_poll_cq(cq, 1, &wc);

		if (n <= 0) {
			usleep(1000);
			waited = now_ms() - start;
			continue;
		}
		if (wc.wr_id == 1 && wc.status != IBV_WC_SUCCESS)
			printf("send_status=%d\n", wc.status);
		if (wc.wr_id != 2)
			continue;
		got_recv = 1;
		recv_posted = 0;
		if (wc.status != IBV_WC_SUCCESS) {
			printf("reply=none\nrecv_status=%d\n", wc.status);
			break;
		}
		printf("reply_len=%u\n", wc.byte_len);
		printf("reply_ms=%lld\n", now_ms() - start);
		printf("reply_opcode=0x%02x\n", rbuf[0]);
		printf("reply=");
		for (i = 0; i < (int)wc.byte_len && i < 256; i++)
			printf("%02x", rbuf[i]);
		printf("\n");
	}
	if (!got_recv)
		printf("reply=none\n");
}

/*
 * -E: wait for the target's answer, which the RDMA CM delivers as
 * CONNECT_RESPONSE because the QP is not the cm_id's, never send the RTU,
 * and report the next CM event within @ms (the target giving up: a
 * DISCONNECTED, REJECTED or UNREACHABLE, say). The process then exits;
 * destroying the cm_id tells the target's CM.
 */
static int hold_unestablished(struct rdma_event_channel *ec,
			      struct rdma_cm_id *id, struct ibv_qp *qp, int ms)
{
	struct rdma_cm_event *ev = next_event(ec, timeout_ms);
	struct timespec t0, t1;
	int rc = 1;

	if (!ev) {
		printf("result=error\n");
	} else if (ev->event == RDMA_CM_EVENT_CONNECT_RESPONSE) {
		printf("result=responded\n");
		rc = 0;
	} else if (ev->event == RDMA_CM_EVENT_REJECTED) {
		printf("result=rejected\ncm_status=%d\n", ev->status);
		rc = 0;
	} else {
		printf("result=error\n");
		fprintf(stderr, "unexpected event %s\n",
			rdma_event_str(ev->event));
	}
	if (ev)
		rdma_ack_cm_event(ev);
	if (rc == 0 && ev && ev->event == RDMA_CM_EVENT_CONNECT_RESPONSE) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ev = next_event(ec, ms);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("held_event=%s\n", ev ? rdma_event_str(ev->event) : "none");
		printf("held_ms=%ld\n", (t1.tv_sec - t0.tv_sec) * 1000 +
		       (t1.tv_nsec - t0.tv_nsec) / 1000000);
		if (ev)
			rdma_ack_cm_event(ev);
	}
	rdma_destroy_id(id);
	ibv_destroy_qp(qp);
	return rc;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "5555";
	struct login_req_rdma req;
	uint8_t guid[8] = { 0 };
	int have_guid = 0, have_tpid = 0, hold_ms = 0, opt, rc = 1;
	const char *ius[MAX_IUS];
	int pads[MAX_IUS] = { 0 }, waits[MAX_IUS], n_ius = 0, repeat = 1;
	int reply_ms = -1, i, r, no_rtu_ms = 0;
	struct ibv_qp *own_qp = NULL;
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
	while ((opt = getopt(argc, argv, "a:p:g:t:i:l:f:o:H:T:s:S:r:W:E:")) != -1) {
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
		case 'E':
			no_rtu_ms = atoi(optarg);
			break;
		case 'H':
			hold_ms = atoi(optarg);
			break;
		case 'T':
			timeout_ms = atoi(optarg);
			break;
		case 's':
			if (n_ius == MAX_IUS)
				goto usage;
			waits[n_ius] = -1;
			ius[n_ius++] = optarg;
			break;
		case 'S':
			if (!n_ius)
				goto usage;
			pads[n_ius - 1] = atoi(optarg);
			break;
		case 'r':
			repeat = atoi(optarg);
			break;
		case 'W':
			if (n_ius)
				waits[n_ius - 1] = atoi(optarg);
			else
				reply_ms = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (!addr || (!have_guid && !have_tpid))
		goto usage;
	if (reply_ms < 0)
		reply_ms = timeout_ms;
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
	cq = pd ? ibv_create_cq(id->verbs, 16, NULL, NULL, 0) : NULL;
	memset(&qpa, 0, sizeof(qpa));
	qpa.send_cq = cq;
	qpa.recv_cq = cq;
	qpa.qp_type = IBV_QPT_RC;
	qpa.cap.max_send_wr = 8;
	qpa.cap.max_recv_wr = 8;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	if (no_rtu_ms) {
		own_qp = cq ? ibv_create_qp(pd, &qpa) : NULL;
		if (!own_qp) {
			perror("ibv_create_qp");
			printf("result=error\n");
			return 1;
		}
	} else if (!cq || rdma_create_qp(id, pd, &qpa)) {
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
	if (own_qp)
		param.qp_num = own_qp->qp_num;
	if (rdma_connect(id, &param)) {
		perror("rdma_connect");
		printf("result=error\n");
		return 1;
	}
	if (own_qp)
		return hold_unestablished(ec, id, own_qp, no_rtu_ms);
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

		for (i = 0; i < n_ius; i++)
			for (r = 0; r < (i ? 1 : repeat); r++)
				exchange_iu(id, pd, cq, ius[i], pads[i],
					    waits[i] < 0 ? reply_ms : waits[i]);

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
		"usage: %s -a ADDR [-p PORT] -g GUID [-t HEX32] [-i HEX32] [-l LEN] [-f FLAGS] [-o OFF] [-H MS] [-T MS] [-s HEX|@FILE [-S LEN]]... [-r N] [-W MS] [-E MS]\n",
		argv[0]);
	return 2;
}
