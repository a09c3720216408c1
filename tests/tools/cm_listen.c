// SPDX-License-Identifier: GPL-2.0
/*
 * cm_listen - hold an RDMA/CM listener on a port, so that a test can see
 * another listener on that port fail (case 214, the rdma_cm_port module
 * parameter).
 *
 *   cm_listen -p PORT [-t SECONDS]
 *
 * Binds the IPv6 wildcard address (the IPv4 one if that fails) in the TCP
 * port space, as ib_srpt does, listens, prints "listening=PORT" and waits
 * SECONDS (default 60) or until it is killed. Connect requests are
 * rejected. Exit status 0 after the wait, 1 if the listener could not be
 * created (the error on stderr).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

int main(int argc, char **argv)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_event_channel *ec;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int port = -1, secs = 60, opt;
	time_t end;

	while ((opt = getopt(argc, argv, "p:t:")) != -1) {
		switch (opt) {
		case 'p':
			port = atoi(optarg);
			break;
		case 't':
			secs = atoi(optarg);
			break;
		default:
			port = -1;
			optind = argc;
			break;
		}
	}
	if (port < 0 || port > 65535) {
		fprintf(stderr, "usage: cm_listen -p PORT [-t SECONDS]\n");
		return 1;
	}
	ec = rdma_create_event_channel();
	if (!ec || rdma_create_id(ec, &id, NULL, RDMA_PS_TCP)) {
		perror("cm_listen: rdma_create_id");
		return 1;
	}
	sin6.sin6_addr = in6addr_any;
	sin6.sin6_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	sin.sin_port = htons(port);
	if (rdma_bind_addr(id, (struct sockaddr *)&sin6) &&
	    rdma_bind_addr(id, (struct sockaddr *)&sin)) {
		perror("cm_listen: rdma_bind_addr");
		return 1;
	}
	if (rdma_listen(id, 4)) {
		perror("cm_listen: rdma_listen");
		return 1;
	}
	printf("listening=%d\n", port);
	fflush(stdout);
	end = time(NULL) + secs;
	while (time(NULL) < end) {
		struct pollfd pfd = { .fd = ec->fd, .events = POLLIN };

		if (poll(&pfd, 1, 500) <= 0)
			continue;
		if (rdma_get_cm_event(ec, &ev))
			break;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			struct rdma_cm_id *child = ev->id;

			rdma_reject(child, NULL, 0);
			rdma_ack_cm_event(ev);
			rdma_destroy_id(child);
			continue;
		}
		rdma_ack_cm_event(ev);
	}
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ec);
	return 0;
}
