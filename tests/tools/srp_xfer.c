// SPDX-License-Identifier: GPL-2.0
/*
 * srp_xfer - a minimal SRP initiator over RDMA CM that sends SRP_CMDs with
 * a direct data descriptor pointing into a memory region it registered, and
 * reports what the target did to that region and what it answered. It
 * checks the target's data transfers themselves: how many bytes the target
 * RDMA-wrote beyond the transfer length the CDB asked for, and the
 * residual the SRP_RSP reports.
 *
 *   srp_xfer -a ADDR [-p PORT] -g SERVICE_GUID -c CDB [options]
 *     -i HEX32   initiator port ID (default: 0...01)
 *     -c HEX     CDB (up to 16 bytes, zero padded)
 *     -D in|out  data direction of the descriptor (default in)
 *     -d LEN     descriptor length in bytes (default 65536); 0: no descriptor
 *     -m LEN     memory region size (default: the descriptor length)
 *     -e LEN     expected transfer length: bytes of the region past LEN
 *                that changed are counted (default 0)
 *     -n N       send N commands at once (tags 1..N, all with the same
 *                descriptor) before reading any response (default 1)
 *     -w MS      post the receive buffers for the responses only MS ms
 *                after the last command was sent; meanwhile the target's
 *                responses wait in RNR retries and each command keeps its
 *                target-side resources. MemFree of this machine is sampled
 *                before sending and during the wait (useful only when
 *                the target runs on the same machine); memfree_held_kb is
 *                the lowest value seen during the wait (sampled every
 *                100 ms).
 *     -T MS      timeout for each CM step and for the responses (5000;
 *                wall-clock time, however slowly the machine runs)
 *     -A MS      MS ms after the last command, send an SRP_TSK_MGMT
 *                ABORT TASK (tag N + 1) for a task that does not exist
 *                (tag 0xdead0000); its response is one more expected
 *                response and is reported as tmf_rsp=CODE (the SRP
 *                response code) or tmf_rsp=none
 *     -W MS      with -A: post the receive buffers MS ms after the TMF
 *                was sent (instead of -w). The wait busy-polls the clock
 *                rather than sleeping, so that it ends on time even when
 *                a CPU of this machine runs with interrupts disabled
 *                (where a sleeping task's timer could be queued)
 *     -K TEXT    with -A and -W: post the receive buffers as soon as a
 *                kernel log record (/dev/kmsg) that contains TEXT appears
 *                after the TMF was sent, and at the latest after the -W
 *                time; reported as kmsg_seen=0|1 and kmsg_wait_ms=N. A
 *                test uses it to post while a debug hook of the target
 *                busy-waits (the hook logs a line when it starts), however
 *                slowly the machine runs, instead of guessing a delay
 *     -r N       with -A: N rounds on the one connection (default 1), each
 *                the -n commands, the TMF, the wait and the responses;
 *                every round's lines follow a line round=R
 *     -E TEXT    with -K: after each round's responses, wait (up to 5 s)
 *                for a kernel log record that contains TEXT and print it
 *                as kmsg_end=...; if it ends with "value A -> B" (the
 *                line of srpt_debug_spin()) and B is greater than A, print
 *                raced_round=R and stop: the race the hook widens
 *                happened. Rounds also stop at the first that misses a
 *                response
 *     -P CDB     first send a command with this CDB and the same
 *                descriptor and wait for its response, PRIMES times one
 *                after the other (prime_rsp=STATUS of the last), fill the
 *                region with the pattern again, then go on as usual
 *                (srpt-dkms keeps the data buffers of finished commands
 *                for the next ones: a test can make sure that the
 *                commands find such buffers)
 *     -R N       set the minimum RNR NAK timer of this QP to N (IB
 *                encoding, 1..31; e.g. 14 = 1.28 ms) once connected, so
 *                that the target retries a refused response quickly
 *     -M         log in with SRP_MULTICHAN_MULTI: other channels of the
 *                same initiator port ID stay (default: SINGLE, which
 *                makes the target close them)
 *
 * The region is filled with 0xa5 before the commands are sent (for -D out
 * it is the data the target reads).
 *
 * Output (stdout, key=value lines): result=accepted|rejected|error; then
 * req_lim=N (credits granted at login), sent=N, for each response
 * rsp_TAG=status:flags:di_res:do_res (hex status and flags, decimal
 * residual counts), responses=N, busy=N (responses with status BUSY or
 * TASK SET FULL), good=N, and for data-in:
 * changed_total=N (bytes of the region that differ from the pattern),
 * changed_beyond=N (of those, past the -e length), nonzero_beyond=N (of
 * those, bytes that are not zero). With -w: memfree_before_kb,
 * memfree_held_kb, pinned_kb (the difference). Exit status 0 if every
 * command got a response, 1 otherwise.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#define PATTERN		0xa5
#define CMD_LEN		64	/* 48-byte header with CDB + one descriptor */
#define RSP_BUF_LEN	512
#define MAX_CMDS	256

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

#define ABORT_TAG	0xdead0000ULL
#define PRIME_TAG	0xfff0	/* the -P command */
#define PRIMES		4	/* times it is sent */

static int timeout_ms = 5000;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Wait @ms without sleeping (see -W). */
static void spin_ms(int ms)
{
	long long end = now_ms() + ms;

	while (now_ms() < end)
		;
}

/* Post one IU of @len bytes at @buf (inside @mr) as a signaled SEND. */
static int post_iu(struct ibv_qp *qp, const struct ibv_mr *mr, uint8_t *buf,
		   uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf,
		.length = len,
		.lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (ibv_post_send(qp, &wr, &bad)) {
		perror("ibv_post_send");
		return -1;
	}
	return 0;
}

/*
 * Busy-poll the kernel log (@fd: /dev/kmsg, non-blocking, positioned at its
 * end before the commands were sent) for a record that contains @text, for
 * at most @ms. Return 1 if one was seen; its message text (without the
 * record's prefix, cut to @len - 1 bytes) goes to @msg unless @msg is NULL.
 */
static int wait_kmsg(int fd, const char *text, int ms, char *msg, size_t len)
{
	long long end = now_ms() + ms;
	char rec[8192], *m;
	ssize_t n;

	while (now_ms() < end) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0) {
			/* EAGAIN: nothing new; EPIPE: records were overwritten */
			if (errno != EAGAIN && errno != EPIPE)
				return 0;
			continue;
		}
		rec[n] = '\0';
		if (!strstr(rec, text))
			continue;
		if (msg) {
			/* "prio,seq,usec,flags;message\n" */
			m = strchr(rec, ';');
			m = m ? m + 1 : rec;
			m[strcspn(m, "\n")] = '\0';
			n = strlen(m);
			if ((size_t)n >= len)
				n = len - 1;
			memcpy(msg, m, n);
			msg[n] = '\0';
		}
		return 1;
	}
	return 0;
}

static int parse_hex(const char *s, uint8_t *out, int max)
{
	int n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	while (s[0] && s[1]) {
		unsigned int v;

		if (n >= max || sscanf(s, "%2x", &v) != 1)
			return -1;
		out[n++] = v;
		s += 2;
	}
	return s[0] ? -1 : n;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, v >> 32);
	put_be32(p + 4, v);
}

static long memfree_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemFree: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

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

/*
 * prime() - send one SRP_CMD with @cdb and the descriptor of the commands
 * (tag PRIME_TAG) and wait for its response; print prime_rsp=STATUS if it
 * is the @last one or failed.
 * Return: 0 once a GOOD response came, 1 otherwise.
 */
static int prime(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_mr *smr,
		 struct ibv_mr *rmr, uint8_t *sbuf, uint8_t *rbuf,
		 const uint8_t *cdb, int data_in, uint64_t va, uint32_t rkey,
		 uint32_t desc_len, int timeout_ms, int last)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rbuf,
		.length = RSP_BUF_LEN,
		.lkey = rmr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = 0, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	long long deadline = now_ms() + timeout_ms;
	uint8_t *c = sbuf;
	struct ibv_wc wc;

	memset(c, 0, CMD_LEN);
	c[0] = 0x02;			/* SRP_CMD */
	if (desc_len)
		c[5] = data_in ? 0x01 : 0x10;	/* direct descriptor */
	put_be64(c + 8, PRIME_TAG);
	memcpy(c + 32, cdb, 16);
	put_be64(c + 48, va);
	put_be32(c + 56, rkey);
	put_be32(c + 60, desc_len);
	if (ibv_post_recv(qp, &wr, &bad) ||
	    post_iu(qp, smr, c, desc_len ? CMD_LEN : 48, 2000)) {
		printf("prime_rsp=error\n");
		return 1;
	}
	while (now_ms() < deadline) {
		if (ibv_poll_cq(cq, 1, &wc) <= 0) {
			usleep(1000);
			continue;
		}
		if (wc.wr_id >= 1000)
			continue;	/* the send */
		if (wc.status != IBV_WC_SUCCESS || wc.byte_len < 36 ||
		    rbuf[0] != 0xc1) {
			printf("prime_rsp=bad\n");
			return 1;
		}
		if (last || rbuf[19])
			printf("prime_rsp=%02x\n", rbuf[19]);
		return rbuf[19] != 0;
	}
	printf("prime_rsp=none\n");
	return 1;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "5555";
	struct login_req_rdma req;
	uint8_t guid[8], cdb[16];
	int have_guid = 0, have_cdb = 0, opt, ncmd = 1, wait_ms = 0, data_in = 1;
	unsigned long desc_len = 65536, mr_len = 0, expect_len = 0;
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct rdma_conn_param param;
	struct ibv_qp_init_attr qpa;
	struct rdma_cm_event *ev;
	struct addrinfo *ai;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *dmr, *smr, *rmr;
	uint8_t *data, *sbuf, *rbuf;
	unsigned long i, changed = 0, beyond = 0, nonzero = 0;
	int sent, got = 0, busy = 0, good = 0, accepted;
	int abort_ms = -1, post_ms = 0, min_rnr = 0, nexp, tmf_code = -1;
	long long deadline;
	long mem_before = -1, mem_held = -1;
	const char *kmsg_text = NULL, *end_text = NULL;
	int kmsg_fd = -1, rounds = 1, round, all_ok = 1, have_prime = 0;
	uint8_t prime_cdb[16];

	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&req, 0, sizeof(req));
	memset(cdb, 0, sizeof(cdb));
	req.initiator_port_id[15] = 1;
	while ((opt = getopt(argc, argv, "a:p:g:i:c:D:d:m:e:n:w:T:A:W:R:K:r:E:P:M")) != -1) {
		switch (opt) {
		case 'a':
			addr = optarg;
			break;
		case 'p':
			port = optarg;
			break;
		case 'g':
			if (parse_hex(optarg, guid, 8) != 8)
				goto usage;
			have_guid = 1;
			break;
		case 'i':
			if (parse_hex(optarg, req.initiator_port_id, 16) != 16)
				goto usage;
			break;
		case 'c':
			if (parse_hex(optarg, cdb, 16) < 1)
				goto usage;
			have_cdb = 1;
			break;
		case 'D':
			data_in = strcmp(optarg, "out") != 0;
			break;
		case 'd':
			desc_len = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			mr_len = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			expect_len = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			ncmd = atoi(optarg);
			break;
		case 'w':
			wait_ms = atoi(optarg);
			break;
		case 'T':
			timeout_ms = atoi(optarg);
			break;
		case 'A':
			abort_ms = atoi(optarg);
			break;
		case 'W':
			post_ms = atoi(optarg);
			break;
		case 'R':
			min_rnr = atoi(optarg);
			break;
		case 'M':
			req.req_flags = 1;	/* SRP_MULTICHAN_MULTI */
			break;
		case 'K':
			kmsg_text = optarg;
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'E':
			end_text = optarg;
			break;
		case 'P':
			memset(prime_cdb, 0, sizeof(prime_cdb));
			if (parse_hex(optarg, prime_cdb, 16) < 1)
				goto usage;
			have_prime = 1;
			break;
		default:
			goto usage;
		}
	}
	if (!addr || !have_guid || !have_cdb || ncmd < 1 || ncmd > MAX_CMDS ||
	    min_rnr < 0 || min_rnr > 31 || (post_ms && abort_ms < 0) ||
	    (kmsg_text && !post_ms) || rounds < 1 ||
	    (rounds > 1 && abort_ms < 0) || (end_text && !kmsg_text))
		goto usage;
	if (kmsg_text) {
		kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
		if (kmsg_fd < 0 || lseek(kmsg_fd, 0, SEEK_END) < 0) {
			perror("/dev/kmsg");
			return 1;
		}
	}
	if (!mr_len)
		mr_len = desc_len ? desc_len : 4096;
	if (desc_len > mr_len || expect_len > mr_len)
		goto usage;
	memcpy(req.target_port_id, guid, 8);
	memcpy(req.target_port_id + 8, guid, 8);
	req.tag = htobe64(0x5352505846455221ULL);
	req.req_it_iu_len = htobe32(8260);
	req.req_buf_fmt = htobe16(0x6);

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
	cq = pd ? ibv_create_cq(id->verbs, 2 * ncmd + 6, NULL, NULL, 0) : NULL;
	memset(&qpa, 0, sizeof(qpa));
	qpa.send_cq = cq;
	qpa.recv_cq = cq;
	qpa.qp_type = IBV_QPT_RC;
	qpa.cap.max_send_wr = ncmd + 3;
	qpa.cap.max_recv_wr = ncmd + 3;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	if (!cq || rdma_create_qp(id, pd, &qpa)) {
		perror("rdma_create_qp");
		printf("result=error\n");
		return 1;
	}
	data = malloc(mr_len);
	sbuf = calloc(ncmd + 1, CMD_LEN);
	rbuf = calloc(ncmd + 1, RSP_BUF_LEN);
	if (!data || !sbuf || !rbuf) {
		printf("result=error\n");
		return 1;
	}
	memset(data, PATTERN, mr_len);
	dmr = ibv_reg_mr(pd, data, mr_len, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	smr = ibv_reg_mr(pd, sbuf, (ncmd + 1) * CMD_LEN,
			 IBV_ACCESS_LOCAL_WRITE);
	rmr = ibv_reg_mr(pd, rbuf, (ncmd + 1) * RSP_BUF_LEN,
			 IBV_ACCESS_LOCAL_WRITE);
	if (!dmr || !smr || !rmr) {
		perror("ibv_reg_mr");
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
		return 1;
	}
	accepted = ev->event == RDMA_CM_EVENT_ESTABLISHED &&
		   ev->param.conn.private_data_len >= 27;
	if (accepted) {
		const uint8_t *p = ev->param.conn.private_data;

		printf("result=accepted\nreq_lim=%u\n", get_be32(p + 4));
	} else {
		printf("result=%s\n", ev->event == RDMA_CM_EVENT_REJECTED ?
		       "rejected" : "error");
	}
	rdma_ack_cm_event(ev);
	if (!accepted)
		return 1;
	if (min_rnr) {
		struct ibv_qp_attr qa = { .min_rnr_timer = min_rnr };

		if (ibv_modify_qp(id->qp, &qa, IBV_QP_MIN_RNR_TIMER))
			printf("min_rnr_timer=failed\n");
		else
			printf("min_rnr_timer=%d\n", min_rnr);
	}

	for (i = 0; have_prime && all_ok && i < PRIMES; i++)
		if (prime(id->qp, cq, smr, rmr, sbuf, rbuf, prime_cdb, data_in,
			  (uintptr_t)data, dmr->rkey, desc_len, timeout_ms,
			  i + 1 == PRIMES))
			all_ok = 0;
	memset(data, PATTERN, mr_len);

	for (round = 1; all_ok && round <= rounds; round++) {
		char end_msg[512];
		const char *v;
		int a, b;

		if (rounds > 1) {
			if (round > 1)
				usleep(500 * 1000);	/* the target's completions */
			printf("round=%d\n", round);
			got = busy = good = 0;
			changed = beyond = nonzero = 0;
			tmf_code = -1;
		}
		/* Build and send every command at once. */
		for (sent = 0; sent < ncmd; sent++) {
			uint8_t *c = sbuf + sent * CMD_LEN;

			c[0] = 0x02;			/* SRP_CMD */
			if (desc_len)
				c[5] = data_in ? 0x01 : 0x10;	/* direct descriptor */
			put_be64(c + 8, sent + 1);	/* tag */
			memcpy(c + 32, cdb, 16);
			put_be64(c + 48, (uintptr_t)data);
			put_be32(c + 56, dmr->rkey);
			put_be32(c + 60, desc_len);
			if (sent == 0)
				mem_before = memfree_kb();
			if (post_iu(id->qp, smr, c, desc_len ? CMD_LEN : 48,
				    1000 + sent))
				break;
		}
		printf("sent=%d\n", sent);
		nexp = sent;
		if (abort_ms >= 0 && sent == ncmd) {
			uint8_t *c = sbuf + ncmd * CMD_LEN;

			spin_ms(abort_ms);
			c[0] = 0x01;			/* SRP_TSK_MGMT */
			put_be64(c + 8, ncmd + 1);	/* tag */
			c[30] = 0x01;			/* ABORT TASK */
			put_be64(c + 32, ABORT_TAG);
			if (!post_iu(id->qp, smr, c, 48, 1000 + ncmd)) {
				printf("tmf_sent=1\n");
				nexp++;
			}
			if (kmsg_fd >= 0) {
				long long t0 = now_ms();

				printf("kmsg_seen=%d\n",
				       wait_kmsg(kmsg_fd, kmsg_text, post_ms, NULL, 0));
				printf("kmsg_wait_ms=%lld\n", now_ms() - t0);
			} else {
				spin_ms(post_ms);
			}
		}
		if (wait_ms) {
			/* the lowest MemFree seen while the responses are held */
			for (i = 0; i < (unsigned long)wait_ms / 100; i++) {
				long kb;

				usleep(100 * 1000);
				kb = memfree_kb();
				if (mem_held < 0 || (kb >= 0 && kb < mem_held))
					mem_held = kb;
			}
			printf("memfree_before_kb=%ld\nmemfree_held_kb=%ld\npinned_kb=%ld\n",
			       mem_before, mem_held, mem_before - mem_held);
		}
		for (i = 0; i < (unsigned long)nexp; i++) {
			struct ibv_sge sge = {
				.addr = (uintptr_t)(rbuf + i * RSP_BUF_LEN),
				.length = RSP_BUF_LEN,
				.lkey = rmr->lkey,
			};
			struct ibv_recv_wr wr = {
				.wr_id = i,
				.sg_list = &sge,
				.num_sge = 1,
			}, *bad;

			if (ibv_post_recv(id->qp, &wr, &bad)) {
				perror("ibv_post_recv");
				break;
			}
		}
		deadline = now_ms() + timeout_ms;
		while (got < nexp && now_ms() < deadline) {
			struct ibv_wc wc;
			const uint8_t *r;

			if (ibv_poll_cq(cq, 1, &wc) <= 0) {
				usleep(1000);
				continue;
			}
			if (wc.wr_id >= 1000) {
				if (wc.status != IBV_WC_SUCCESS)
					printf("send_status=%d\n", wc.status);
				continue;
			}
			if (wc.status != IBV_WC_SUCCESS) {
				printf("recv_status=%d\n", wc.status);
				break;
			}
			got++;
			r = rbuf + wc.wr_id * RSP_BUF_LEN;
			if (wc.byte_len < 36 || r[0] != 0xc1) {
				printf("rsp_bad=opcode 0x%02x len %u\n", r[0],
				       wc.byte_len);
				continue;
			}
			if (get_be32(r + 12) == (uint32_t)ncmd + 1 && nexp > sent) {
				/* SRP_RSP of the TMF: code in the response data */
				tmf_code = (r[18] & 1) && get_be32(r + 32) >= 4 &&
					   wc.byte_len >= 40 ? r[39] : 0x100;
				continue;
			}
			printf("rsp_%u=%02x:%02x:%u:%u\n", get_be32(r + 12), r[19],
			       r[18], get_be32(r + 24), get_be32(r + 20));
			if (r[19] == 0x08 || r[19] == 0x28)
				busy++;
			else if (r[19] == 0)
				good++;
		}
		printf("responses=%d\nbusy=%d\ngood=%d\n", got, busy, good);
		if (nexp > sent) {
			if (tmf_code < 0)
				printf("tmf_rsp=none\n");
			else
				printf("tmf_rsp=%d\n", tmf_code);
		}
		if (data_in) {
			for (i = 0; i < mr_len; i++) {
				if (data[i] == PATTERN)
					continue;
				changed++;
				if (i >= expect_len) {
					beyond++;
					nonzero += data[i] != 0;
				}
			}
			printf("changed_total=%lu\nchanged_beyond=%lu\nnonzero_beyond=%lu\n",
			       changed, beyond, nonzero);
		}
		if (got != nexp) {
			all_ok = 0;
			break;
		}
		if (end_text) {
			if (!wait_kmsg(kmsg_fd, end_text, 5000, end_msg,
				       sizeof(end_msg))) {
				printf("kmsg_end=none\n");
				continue;
			}
			printf("kmsg_end=%s\n", end_msg);
			v = strstr(end_msg, "value ");
			if (v && sscanf(v, "value %d -> %d", &a, &b) == 2 &&
			    b > a) {
				printf("raced_round=%d\n", round);
				break;
			}
		}
	}
	rdma_disconnect(id);
	ev = next_event(ec, timeout_ms);
	if (ev)
		rdma_ack_cm_event(ev);
	rdma_destroy_qp(id);
	ibv_dereg_mr(dmr);
	ibv_dereg_mr(smr);
	ibv_dereg_mr(rmr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ec);
	freeaddrinfo(ai);
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	return all_ok ? 0 : 1;

usage:
	fprintf(stderr,
		"usage: %s -a ADDR [-p PORT] -g GUID -c CDB [-i HEX32] [-D in|out] [-d LEN] [-m LEN] [-e LEN] [-n N] [-w MS] [-T MS] [-A MS [-W MS [-K TEXT [-E TEXT]]] [-r N]] [-P CDB] [-R N] [-M]\n",
		argv[0]);
	return 2;
}
