/* Traffic for the crossbar's tests and benchmark, run inside host
 * namespaces:
 *   ocs_xfer recv PORT BYTES           TCP: accept one connection, read BYTES
 *                                      and check every byte of the stream
 *   ocs_xfer send ADDR PORT BYTES      TCP: connect and send BYTES of it
 *   ocs_xfer udp ADDR PORT COUNT SIZE [MBIT]
 *                                      send COUNT datagrams of SIZE bytes,
 *                                      numbered, paced at MBIT (0: at once)
 *   ocs_xfer udprecv PORT IDLE_MS MAX_MS
 *                                      count datagrams until IDLE_MS pass
 *                                      without one (after the first) or
 *                                      MAX_MS in all; print the count
 *   ocs_xfer ctl PATH                  copy stdin, bytes as they are, to the
 *                                      UNIX socket PATH, then print what
 *                                      comes back until it closes
 * The TCP stream is a function of the byte offset, so the receiver checks
 * every byte without a copy of what was sent. Exit 0 on success, 1 when
 * the transfer failed or a byte differs, 2 on bad usage. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 65536

static uint8_t stream_byte(uint64_t off)
{
	uint64_t x = (off / 8 + 1) * 0x9E3779B97F4A7C15ULL;

	x ^= x >> 29;
	x *= 0xBF58476D1CE4E5B9ULL;
	x ^= x >> 32;
	return (uint8_t)(x >> (8 * (off % 8)));
}

static void stream_fill(uint8_t *buf, uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = stream_byte(off + i);
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int parse_addr(const char *a, const char *p, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)atoi(p));
	if (inet_pton(AF_INET, a, &sin->sin_addr) != 1) {
		fprintf(stderr, "ocs_xfer: bad address '%s'\n", a);
		return -1;
	}
	return 0;
}

static int do_recv(const char *port, uint64_t bytes)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	static uint8_t buf[CHUNK], want[CHUNK];
	uint64_t got = 0;
	int one = 1, l, fd;

	sin.sin_port = htons((uint16_t)atoi(port));
	l = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l < 0 || bind(l, (struct sockaddr *)&sin, sizeof(sin)) || listen(l, 1)) {
		perror("ocs_xfer recv: listen");
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	fd = accept(l, NULL, NULL);
	if (fd < 0) {
		perror("ocs_xfer recv: accept");
		return 1;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		ssize_t i;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("ocs_xfer recv: read");
			return 1;
		}
		if (n == 0)
			break;
		stream_fill(want, got, (size_t)n);
		if (memcmp(buf, want, (size_t)n)) {
			for (i = 0; i < n && buf[i] == want[i]; i++)
				;
			printf("mismatch at byte %" PRIu64 "\n", got + (uint64_t)i);
			return 1;
		}
		got += (uint64_t)n;
	}
	printf("received %" PRIu64 " bytes, %s\n", got, got == bytes ? "all verified" : "SHORT");
	return got == bytes ? 0 : 1;
}

static int do_send(const char *addr, const char *port, uint64_t bytes)
{
	static uint8_t buf[CHUNK];
	struct sockaddr_in sin;
	uint64_t off = 0;
	int fd;

	if (parse_addr(addr, port, &sin))
		return 2;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("ocs_xfer send: connect");
		return 1;
	}
	while (off < bytes) {
		size_t len = bytes - off < CHUNK ? (size_t)(bytes - off) : CHUNK;
		ssize_t n;

		stream_fill(buf, off, len);
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("ocs_xfer send: write");
			return 1;
		}
		off += (uint64_t)n;
		/* after a short write the next turn refills from the new offset */
	}
	if (shutdown(fd, SHUT_WR) == 0) {
		char c;

		/* Wait for the receiver to close: every byte was read. */
		while (read(fd, &c, 1) > 0)
			;
	}
	close(fd);
	printf("sent %" PRIu64 " bytes\n", bytes);
	return 0;
}

static int do_udp(const char *addr, const char *port, uint64_t count, size_t size,
		  double mbit)
{
	static uint8_t buf[65507];
	struct sockaddr_in sin;
	int64_t start, gap = 0;
	uint64_t k;
	int fd;

	if (size < 8 || size > sizeof(buf) || parse_addr(addr, port, &sin))
		return 2;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("ocs_xfer udp: connect");
		return 1;
	}
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (mbit > 0) /* wire bytes: payload + UDP/IP/Ethernet headers */
		gap = (int64_t)((double)(size + 42) * 8e3 / mbit);
	memset(buf, 0xab, size);
	start = mono_ns();
	for (k = 0; k < count; k++) {
		if (gap) {
			int64_t at = start + (int64_t)k * gap, now = mono_ns();

			if (at > now) {
				struct timespec ts = { .tv_sec = (at - now) / 1000000000LL,
						       .tv_nsec = (at - now) % 1000000000LL };

				nanosleep(&ts, NULL);
			}
		}
		memcpy(buf, &k, sizeof(k));
		/* ECONNREFUSED from an earlier ICMP is not our business. */
		if (send(fd, buf, size, 0) < 0 && errno != ECONNREFUSED) {
			perror("ocs_xfer udp: send");
			return 1;
		}
	}
	printf("sent %" PRIu64 " datagrams\n", count);
	return 0;
}

static int do_udprecv(const char *port, int idle_ms, int max_ms)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	static uint8_t buf[65536];
	uint64_t n = 0, first = UINT64_MAX, last = 0;
	int64_t end = mono_ns() + (int64_t)max_ms * 1000000LL;
	int fd, rcvbuf = 16 << 20;

	sin.sin_port = htons((uint16_t)atoi(port));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	/* Room for a VOQ released at once: the default buffer holds about 90
	 * datagrams of 1000 bytes. */
	if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("ocs_xfer udprecv: bind");
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = (end - mono_ns()) / 1000000LL;
		int to = n ? idle_ms : (int)left;
		ssize_t r;

		if (left <= 0)
			break;
		if (to > left)
			to = (int)left;
		if (poll(&p, 1, to) <= 0)
			break;
		r = recv(fd, buf, sizeof(buf), 0);
		if (r >= 8) {
			uint64_t seq;

			memcpy(&seq, buf, sizeof(seq));
			if (seq < first)
				first = seq;
			if (seq > last)
				last = seq;
			n++;
		}
	}
	if (n)
		printf("received %" PRIu64 " datagrams, numbers %" PRIu64 "..%" PRIu64 "\n", n,
		       first, last);
	else
		printf("received 0 datagrams\n");
	return 0;
}

static int do_ctl(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	static char buf[65536];
	ssize_t n;
	int fd;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		perror("ocs_xfer ctl: connect");
		return 1;
	}
	while ((n = read(0, buf, sizeof(buf))) > 0)
		if (send(fd, buf, (size_t)n, MSG_NOSIGNAL) != n)
			break; /* the daemon may close on us: read what it said */
	shutdown(fd, SHUT_WR);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "ctl"))
		return do_ctl(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "recv"))
		return do_recv(argv[2], strtoull(argv[3], NULL, 10));
	if (argc == 5 && !strcmp(argv[1], "send"))
		return do_send(argv[2], argv[3], strtoull(argv[4], NULL, 10));
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "udp"))
		return do_udp(argv[2], argv[3], strtoull(argv[4], NULL, 10),
			      (size_t)strtoul(argv[5], NULL, 10), argc == 7 ? atof(argv[6]) : 0);
	if (argc == 5 && !strcmp(argv[1], "udprecv"))
		return do_udprecv(argv[2], atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr, "usage: ocs_xfer recv PORT BYTES | send ADDR PORT BYTES |\n"
			"       udp ADDR PORT COUNT SIZE [MBIT] | udprecv PORT IDLE_MS MAX_MS |\n"
			"       ctl PATH\n");
	return 2;
}
