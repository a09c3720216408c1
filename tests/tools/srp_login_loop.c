// SPDX-License-Identifier: GPL-2.0
/*
 * srp_login_loop - srp_login's sibling for login floods: logs in once or
 * COUNT times in a row (-n), optionally with random initiator port IDs (-r),
 * and reports a summary. (It was split off srp_login when both grew
 * incompatible options in parallel; merging the two is a test-tool cleanup
 * left for later.)
 *
 *   srp_login_loop -a ADDR [-p PORT] -g SERVICE_GUID [options]
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
 *     -n COUNT   log in COUNT times in a row (loop mode, see below)
 *     -r         use a new random initiator port ID for every login
 *
 * Output (stdout, one key=value per line): result=accepted|rejected|error,
 * then for accepted: req_lim_delta, max_it_iu_len, max_ti_iu_len, buf_fmt,
 * rsp_flags; for rejected: cm_status and, if an SRP_LOGIN_REJ came back,
 * reason; with -s: sent=N, then reply_len, reply_opcode and reply (hex) or
 * reply=none; with -H: disconnected=0|1. Exit status 0 if the CM exchange
 * completed (accepted or rejected), 1 otherwise.
 *
 * Loop mode (-n): each login uses a new cm_id and QP; an accepted one is
 * disconnected right away (-s and -H are not allowed). The per-login lines
 * are replaced by a summary: logins, accepted, rejected, errors, reason (the
 * SRP_LOGIN_REJ reason if every reject carried the same one, else "mixed"),
 * elapsed_ms (wall time of all COUNT logins), first_ms and last_ms (wall
 * time of the first and of the last min(100, COUNT) logins). Exit status 0
 * if no login ended in an error.
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

enum login_result { LOGIN_ACCEPTED, LOGIN_REJECTED, LOGIN_ERROR };

/* What one login needs besides the request itself. */
struct login_opts {
	struct addrinfo *ai;
	const char *iu;		/* -s */
	int pad;		/* -S */
	int hold_ms;		/* -H */
	int quiet;		/* loop mode: no per-login output */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * One login with its own cm_id and QP on @ec. Prints the key=value lines of
 * the single-login mode unless o->quiet. *reason is set to the
 * SRP_LOGIN_REJ reason of a reject (0 if there was none).
 */
static enum login_result one_login(struct rdma_event_channel *ec,
				   const struct login_req_rdma *req,
				   const struct login_opts *o,
				   uint32_t *reason)
{
	enum login_result res = LOGIN_ERROR;
	struct rdma_conn_param param;
	struct ibv_qp_init_attr qpa;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	int have_qp = 0;

	*reason = 0;
	if (rdma_create_id(ec, &id, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return LOGIN_ERROR;
	}
	if (rdma_resolve_addr(id, NULL, o->ai->ai_addr, timeout_ms) ||
	    expect(ec, RDMA_CM_EVENT_ADDR_RESOLVED) ||
	    rdma_resolve_route(id, timeout_ms) ||
	    expect(ec, RDMA_CM_EVENT_ROUTE_RESOLVED))
		goto out;
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
	if (!cq || rdma_create_qp(id, pd, &qpa)) {
		perror("rdma_create_qp");
		goto out;
	}
	have_qp = 1;

	memset(&param, 0, sizeof(param));
	param.private_data = req;
	param.private_data_len = sizeof(*req);
	param.responder_resources = 4;
	param.initiator_depth = 4;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_connect(id, &param)) {
		perror("rdma_connect");
		goto out;
	}
	ev = next_event(ec, timeout_ms);
	if (!ev) {
		fprintf(stderr, "no answer to the login\n");
		goto out;
	}
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED &&
	    ev->param.conn.private_data_len >= 27) {
		const uint8_t *p = ev->param.conn.private_data;

		res = LOGIN_ACCEPTED;
		if (!o->quiet) {
			printf("result=accepted\n");
			printf("opcode=0x%02x\n", p[0]);
			printf("req_lim_delta=%u\n", get_be32(p + 4));
			printf("tag_ok=%d\n", memcmp(p + 8, &req->tag, 8) == 0);
			printf("max_it_iu_len=%u\n", get_be32(p + 16));
			printf("max_ti_iu_len=%u\n", get_be32(p + 20));
			printf("buf_fmt=0x%x\n", p[24] << 8 | p[25]);
			printf("rsp_flags=0x%x\n", p[26]);
		}
	} else if (ev->event == RDMA_CM_EVENT_REJECTED) {
		const uint8_t *p = ev->param.conn.private_data;

		res = LOGIN_REJECTED;
		if (p && ev->param.conn.private_data_len >= 8 && p[0] == 0xc2)
			*reason = get_be32(p + 4);
		if (!o->quiet) {
			printf("result=rejected\n");
			printf("cm_status=%d\n", ev->status);
			if (*reason)
				printf("reason=0x%08x\n", *reason);
		}
	} else {
		fprintf(stderr, "unexpected event %s (status %d)\n",
			rdma_event_str(ev->event), ev->status);
	}
	rdma_ack_cm_event(ev);
	if (res == LOGIN_ACCEPTED) {
		int disconnected = 0;

		if (o->iu)
			exchange_iu(id, pd, cq, o->iu, o->pad);

		if (o->hold_ms) {
			ev = next_event(ec, o->hold_ms);
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
out:
	if (res == LOGIN_ERROR && !o->quiet)
		printf("result=error\n");
	if (have_qp)
		rdma_destroy_qp(id);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	return res;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "5555";
	struct login_req_rdma req;
	struct login_opts o = { 0 };
	uint8_t guid[8] = { 0 };
	int have_guid = 0, have_tpid = 0, random_ipid = 0, opt, i;
	unsigned long it_iu_len = 8260, flags = 0, imm_off = 0, count = 0;
	unsigned long n_res[3] = { 0 }, window;
	uint32_t reason, first_reason = 0;
	int mixed = 0;
	uint64_t t0, t_first = 0, t_last_start = 0, t_end;
	struct rdma_event_channel *ec;
	enum login_result res;

	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&req, 0, sizeof(req));
	req.initiator_port_id[15] = 1;
	while ((opt = getopt(argc, argv, "a:p:g:t:i:l:f:o:H:T:s:S:n:r")) != -1) {
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
			o.hold_ms = atoi(optarg);
			break;
		case 'T':
			timeout_ms = atoi(optarg);
			break;
		case 's':
			o.iu = optarg;
			break;
		case 'S':
			o.pad = atoi(optarg);
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			if (!count)
				goto usage;
			break;
		case 'r':
			random_ipid = 1;
			break;
		default:
			goto usage;
		}
	}
	if (!addr || (!have_guid && !have_tpid))
		goto usage;
	if (count && (o.iu || o.hold_ms))
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

	if (getaddrinfo(addr, port, NULL, &o.ai)) {
		fprintf(stderr, "cannot resolve %s:%s\n", addr, port);
		return 1;
	}
	ec = rdma_create_event_channel();
	if (!ec) {
		perror("rdma_create_event_channel");
		return 1;
	}
	srandom(time(NULL) ^ getpid());

	if (!count) {
		if (random_ipid)
			for (i = 0; i < 16; i++)
				req.initiator_port_id[i] = random();
		res = one_login(ec, &req, &o, &reason);
		rdma_destroy_event_channel(ec);
		freeaddrinfo(o.ai);
		return res == LOGIN_ERROR;
	}

	o.quiet = 1;
	window = count < 100 ? count : 100;
	t0 = now_ms();
	for (unsigned long n = 0; n < count; n++) {
		if (n == count - window)
			t_last_start = now_ms();
		if (random_ipid)
			for (i = 0; i < 16; i++)
				req.initiator_port_id[i] = random();
		res = one_login(ec, &req, &o, &reason);
		n_res[res]++;
		if (res == LOGIN_REJECTED) {
			if (!first_reason)
				first_reason = reason;
			else if (reason != first_reason)
				mixed = 1;
		}
		if (n + 1 == window)
			t_first = now_ms() - t0;
	}
	t_end = now_ms();
	printf("logins=%lu\naccepted=%lu\nrejected=%lu\nerrors=%lu\n", count,
	       n_res[LOGIN_ACCEPTED], n_res[LOGIN_REJECTED],
	       n_res[LOGIN_ERROR]);
	if (mixed)
		printf("reason=mixed\n");
	else
		printf("reason=0x%08x\n", first_reason);
	printf("elapsed_ms=%llu\nfirst_ms=%llu\nlast_ms=%llu\n",
	       (unsigned long long)(t_end - t0), (unsigned long long)t_first,
	       (unsigned long long)(t_end - t_last_start));
	rdma_destroy_event_channel(ec);
	freeaddrinfo(o.ai);
	return n_res[LOGIN_ERROR] != 0;

usage:
	fprintf(stderr,
		"usage: %s -a ADDR [-p PORT] -g GUID [-t HEX32] [-i HEX32|-r] [-l LEN] [-f FLAGS] [-o OFF] [-H MS] [-T MS] [-s HEX|@FILE] [-S LEN] [-n COUNT]\n",
		argv[0]);
	return 2;
}
