/* dnclient: drives the DataNode client state machines (emul/datanode.h)
 * from one epoll loop, as a task process would, and plays bad peers, for
 * tests/datanode.sh.
 *
 *   dnclient uid input|output JOB IDX
 *       print the block uid
 *   dnclient wait IP PORT
 *       until the data service accepts a connection (30 s at most)
 *   dnclient read IP PORT SEED UID OFF LEN [TOS]
 *       one READ, every byte checked: "OK <hop line>"
 *   dnclient write IP PORT SEED UID LEN [IP[,IP...]]
 *       one WRITE along the pipeline: "OK <n>", then the hop line of its own
 *       connection and the n hop lines the service reported
 *   dnclient flip IP PORT SEED UID LEN K [IP[,IP...]]
 *       a WRITE whose byte K is wrong (the bytes fed through the relay API)
 *   dnclient cut IP PORT SEED UID LEN K
 *       a WRITE of LEN bytes that sends K, then ends its stream
 *   dnclient many IP PORT SEED N LEN [IP[,IP...]]
 *       N READs and N WRITEs at once, one loop
 *   dnclient raw IP PORT [hold] [noread]
 *       send standard input; then end the stream (unless hold) and print
 *       what comes back until the service closes (unless noread: then wait
 *       to be killed)
 * A failed transfer prints "FAIL <errno name> <why>"; the exit status is 1
 * if any transfer failed, 2 on bad usage. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/util.h"
#include "emul/datanode.h"
#include "emul/shuffle.h"

/* Not a time limit of the test: only what ends a run that hangs. */
#define STUCK_NS (120 * NSEC_PER_SEC)

struct job {
	struct dn_xfer *x;
	uint64_t key, fed; /* flip: the bytes fed so far */
	int64_t flip;	   /* -1: none */
};

static int usage(void)
{
	fprintf(stderr, "usage: see the head of tests/dnclient.c\n");
	return 2;
}

static uint64_t num(const char *s)
{
	uint64_t v;

	if (parse_uint(s, 0, UINT64_MAX, &v)) {
		fprintf(stderr, "dnclient: '%s': expected a number\n", s);
		exit(2);
	}
	return v;
}

static struct sockaddr_in addr(const char *ip, const char *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)num(port)) };

	if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1) {
		fprintf(stderr, "dnclient: '%s': expected an IPv4 address\n", ip);
		exit(2);
	}
	return sa;
}

static unsigned pipeline(const char *s, struct in_addr *next)
{
	char *copy = xstrdup(s), *save = NULL, *tok;
	unsigned n = 0;

	for (tok = strtok_r(copy, ",", &save); tok && n < DN_MAX_PIPELINE;
	     tok = strtok_r(NULL, ",", &save))
		if (inet_pton(AF_INET, tok, &next[n++]) != 1) {
			fprintf(stderr, "dnclient: '%s': expected an IPv4 address\n", tok);
			exit(2);
		}
	free(copy);
	return n;
}

static void print_hop(const char *pre, const struct dn_hop *h)
{
	char line[DN_HOP_LINE_MAX];

	dn_hop_format(h, line, sizeof(line));
	printf("%s%s", pre, line);
}

static void print_result(const struct job *j)
{
	const struct dn_xfer *x = j->x;
	unsigned i;

	if (x->status < 0) {
		printf("FAIL %s %s\n", strerrorname_np(-x->status), x->err);
		return;
	}
	if (x->mode == DN_XFER_READ) {
		print_hop("OK ", &x->conn);
		return;
	}
	printf("OK %u\n", x->n_hops);
	print_hop("", &x->conn);
	for (i = 0; i < x->n_hops; i++)
		print_hop("", &x->hops[i]);
}

/* flip: feed the relay the block's bytes, one of them wrong. */
static int feed(struct job *j)
{
	uint8_t *at;
	size_t room;
	int r = 0;

	while (!r && (room = dn_xfer_room(j->x, &at))) {
		shuffle_fill(j->key, j->fed, at, room);
		if (j->flip >= 0 && (uint64_t)j->flip >= j->fed && (uint64_t)j->flip < j->fed + room)
			at[j->flip - (int64_t)j->fed] ^= 0x5a;
		j->fed += room;
		r = dn_xfer_commit(j->x, room);
	}
	return r;
}

/* Drive every transfer to its end in one epoll loop; the number failed. */
static int run(int ep, struct job *jobs, int n)
{
	int left = n, failed = 0, i;

	for (i = 0; i < n; i++)
		if (jobs[i].x->status || (jobs[i].x->mode == DN_XFER_RELAY && feed(&jobs[i])))
			left--;
	while (left > 0) {
		struct epoll_event evs[64];
		int k = epoll_wait(ep, evs, 64, 1000), e;
		int64_t now = now_ns();

		if (k < 0 && errno != EINTR) {
			perror("dnclient: epoll_wait");
			exit(1);
		}
		for (e = 0; e < k; e++) {
			struct job *j = evs[e].data.ptr;

			if (j->x->status)
				continue;
			if (dn_xfer_event(j->x, evs[e].events) ||
			    (j->x->mode == DN_XFER_RELAY && feed(j)))
				left--;
		}
		for (i = 0; i < n; i++)
			if (!jobs[i].x->status && now - jobs[i].x->last_progress_ns > STUCK_NS) {
				fprintf(stderr, "dnclient: transfer %d stuck, giving up\n", i);
				exit(1);
			}
	}
	for (i = 0; i < n; i++)
		failed += jobs[i].x->status < 0;
	return failed;
}

static int one(struct job *j, const struct sockaddr_in *srv, int tos)
{
	int ep = epoll_create1(EPOLL_CLOEXEC), failed;

	dn_xfer_start(j->x, ep, j, srv, tos);
	failed = run(ep, j, 1);
	print_result(j);
	dn_xfer_free(j->x);
	close(ep);
	return failed ? 1 : 0;
}

static int cmd_many(int argc, char **argv)
{
	struct sockaddr_in srv = addr(argv[2], argv[3]);
	uint64_t seed = num(argv[4]), n = num(argv[5]), len = num(argv[6]);
	struct in_addr next[DN_MAX_PIPELINE];
	unsigned n_next = argc > 7 ? pipeline(argv[7], next) : 0;
	struct job *jobs = xcalloc(2 * n, sizeof(*jobs));
	int ep = epoll_create1(EPOLL_CLOEXEC), failed;
	uint64_t i;

	for (i = 0; i < n; i++) {
		jobs[i].x = dn_read_new(seed, datanode_uid(DN_INPUT, 1, (uint32_t)i), 0, len);
		jobs[n + i].x = dn_write_new(seed, datanode_uid(DN_OUTPUT, 1, (uint32_t)i), len,
					     next, n_next);
	}
	for (i = 0; i < 2 * n; i++)
		dn_xfer_start(jobs[i].x, ep, &jobs[i], &srv, 0);
	failed = run(ep, jobs, (int)(2 * n));
	for (i = 0; i < 2 * n; i++) {
		if (jobs[i].x->status < 0)
			print_result(&jobs[i]);
		dn_xfer_free(jobs[i].x);
	}
	printf("%d of %d transfers done\n", (int)(2 * n) - failed, (int)(2 * n));
	free(jobs);
	close(ep);
	return failed ? 1 : 0;
}

static int write_all(int fd, const void *p, size_t len)
{
	const char *b = p;

	while (len) {
		ssize_t n = send(fd, b, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

static int connect_to(const struct sockaddr_in *srv)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (const struct sockaddr *)srv, sizeof(*srv))) {
		perror("dnclient: connect");
		exit(1);
	}
	return fd;
}

/* Print what the service sends until it closes. */
static void print_until_close(int fd)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			fwrite(buf, 1, (size_t)n, stdout);
	if (n < 0)
		printf("(read: %s)\n", strerror(errno));
}

static int cmd_raw(int argc, char **argv)
{
	struct sockaddr_in srv = addr(argv[2], argv[3]);
	bool hold = false, noread = false;
	char buf[4096];
	ssize_t n;
	int fd, i;

	for (i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "hold"))
			hold = true;
		else if (!strcmp(argv[i], "noread"))
			noread = true;
		else
			return usage();
	}
	fd = connect_to(&srv);
	while ((n = read(0, buf, sizeof(buf))) > 0)
		if (write_all(fd, buf, (size_t)n))
			break;
	if (!hold)
		shutdown(fd, SHUT_WR);
	printf("sent\n");
	fflush(stdout);
	if (noread)
		for (;;)
			pause();
	print_until_close(fd);
	close(fd);
	return 0;
}

/* A WRITE that announces len bytes and sends the first k. */
static int cmd_cut(char **argv)
{
	struct sockaddr_in srv = addr(argv[2], argv[3]);
	uint64_t key = datanode_key(num(argv[4]), num(argv[5])), len = num(argv[6]), k = num(argv[7]);
	uint8_t buf[65536];
	char hdr[128];
	uint64_t off = 0;
	int fd = connect_to(&srv);

	snprintf(hdr, sizeof(hdr), "WRITE %s %" PRIu64 "\n", argv[5], len);
	write_all(fd, hdr, strlen(hdr));
	while (off < k) {
		size_t m = k - off < sizeof(buf) ? (size_t)(k - off) : sizeof(buf);

		shuffle_fill(key, off, buf, m);
		if (write_all(fd, buf, m))
			break;
		off += m;
	}
	shutdown(fd, SHUT_WR);
	print_until_close(fd);
	close(fd);
	return 0;
}

static int cmd_wait(char **argv)
{
	struct sockaddr_in srv = addr(argv[2], argv[3]);
	int i;

	for (i = 0; i < 300; i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (!connect(fd, (struct sockaddr *)&srv, sizeof(srv))) {
			close(fd); /* no request: the service takes it for a probe */
			return 0;
		}
		close(fd);
		usleep(100000);
	}
	fprintf(stderr, "dnclient: %s:%s never accepted\n", argv[2], argv[3]);
	return 1;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	struct in_addr next[DN_MAX_PIPELINE];
	struct job j = { .flip = -1 };

	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(cmd, "uid") && argc == 5) {
		enum dn_kind k = !strcmp(argv[2], "input") ? DN_INPUT : DN_OUTPUT;

		printf("%" PRIu64 "\n", datanode_uid(k, (uint32_t)num(argv[3]), (uint32_t)num(argv[4])));
		return 0;
	}
	if (!strcmp(cmd, "wait") && argc == 4)
		return cmd_wait(argv);
	if (!strcmp(cmd, "read") && (argc == 8 || argc == 9)) {
		struct sockaddr_in srv = addr(argv[2], argv[3]);

		j.x = dn_read_new(num(argv[4]), num(argv[5]), num(argv[6]), num(argv[7]));
		return one(&j, &srv, argc == 9 ? (int)num(argv[8]) : 0);
	}
	if (!strcmp(cmd, "write") && (argc == 7 || argc == 8)) {
		struct sockaddr_in srv = addr(argv[2], argv[3]);
		unsigned n = argc == 8 ? pipeline(argv[7], next) : 0;

		j.x = dn_write_new(num(argv[4]), num(argv[5]), num(argv[6]), next, n);
		return one(&j, &srv, 0);
	}
	if (!strcmp(cmd, "flip") && (argc == 8 || argc == 9)) {
		struct sockaddr_in srv = addr(argv[2], argv[3]);
		unsigned n = argc == 9 ? pipeline(argv[8], next) : 0;

		j.x = dn_relay_new(num(argv[5]), num(argv[6]), next, n);
		j.key = datanode_key(num(argv[4]), num(argv[5]));
		j.flip = (int64_t)num(argv[7]);
		return one(&j, &srv, 0);
	}
	if (!strcmp(cmd, "cut") && argc == 8)
		return cmd_cut(argv);
	if (!strcmp(cmd, "many") && (argc == 7 || argc == 8))
		return cmd_many(argc, argv);
	if (!strcmp(cmd, "raw") && argc >= 4)
		return cmd_raw(argc, argv);
	return usage();
}
