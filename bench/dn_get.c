/* dn_get: one client for both data services, so that bench/datanode.sh
 * compares the services and not two clients. It sends one request line,
 * reads (or, for a WRITE, sends) the bytes in a blocking loop, checks every
 * byte against the stream, and prints "<bytes> <seconds>".
 *
 *   dn_get shuffle IP PORT SEED JOB MAP BYTES      (GET JOB 0 1 MAP:BYTES)
 *   dn_get read IP PORT SEED UID BYTES             (READ UID 0 BYTES)
 *   dn_get write IP PORT SEED UID BYTES            (WRITE UID BYTES, then OK)
 */
#include "config.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "emul/datanode.h"
#include "emul/shuffle.h"

static uint8_t buf[256 * 1024];

static uint64_t num(const char *s)
{
	uint64_t v;

	if (parse_uint(s, 0, UINT64_MAX, &v)) {
		fprintf(stderr, "dn_get: '%s': expected a number\n", s);
		exit(2);
	}
	return v;
}

static int dial(const char *ip, const char *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)num(port)) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1 || fd < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("dn_get: connect");
		exit(1);
	}
	return fd;
}

static void send_all(int fd, const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len) {
		ssize_t n = write(fd, b, len);

		if (n <= 0) {
			perror("dn_get: write");
			exit(1);
		}
		b += n;
		len -= (size_t)n;
	}
}

/* Read to the end of the stream, checking it is exactly the stream key. */
static uint64_t receive(int fd, uint64_t key, uint64_t want)
{
	uint64_t got = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (got + (uint64_t)n > want ||
		    shuffle_check(key, got, buf, (size_t)n) != (size_t)n) {
			fprintf(stderr, "dn_get: wrong byte near %" PRIu64 "\n", got);
			exit(1);
		}
		got += (uint64_t)n;
	}
	if (got != want) {
		fprintf(stderr, "dn_get: %" PRIu64 " of %" PRIu64 " bytes\n", got, want);
		exit(1);
	}
	return got;
}

int main(int argc, char **argv)
{
	char line[128];
	uint64_t bytes;
	int64_t t0;
	int fd;

	if (argc == 8 && !strcmp(argv[1], "shuffle")) {
		bytes = num(argv[7]);
		t0 = now_ns();
		fd = dial(argv[2], argv[3]);
		snprintf(line, sizeof(line), "GET %s 0 1 %s:%" PRIu64 "\n", argv[5], argv[6], bytes);
		send_all(fd, line, strlen(line));
		receive(fd, shuffle_key(num(argv[4]), (uint32_t)num(argv[5]), (uint32_t)num(argv[6]), 0),
			bytes);
	} else if (argc == 7 && !strcmp(argv[1], "read")) {
		bytes = num(argv[6]);
		t0 = now_ns();
		fd = dial(argv[2], argv[3]);
		snprintf(line, sizeof(line), "READ %s 0 %" PRIu64 "\n", argv[5], bytes);
		send_all(fd, line, strlen(line));
		receive(fd, datanode_key(num(argv[4]), num(argv[5])), bytes);
	} else if (argc == 7 && !strcmp(argv[1], "write")) {
		uint64_t key = datanode_key(num(argv[4]), num(argv[5])), off = 0;
		ssize_t n;

		bytes = num(argv[6]);
		t0 = now_ns();
		fd = dial(argv[2], argv[3]);
		snprintf(line, sizeof(line), "WRITE %s %" PRIu64 "\n", argv[5], bytes);
		send_all(fd, line, strlen(line));
		while (off < bytes) {
			size_t k = bytes - off < sizeof(buf) ? (size_t)(bytes - off) : sizeof(buf);

			shuffle_fill(key, off, buf, k);
			send_all(fd, buf, k);
			off += k;
		}
		n = read(fd, line, sizeof(line) - 1);
		if (n < 3 || strncmp(line, "OK ", 3)) {
			fprintf(stderr, "dn_get: WRITE not OK: %.*s\n", n > 0 ? (int)n : 0, line);
			return 1;
		}
	} else {
		fprintf(stderr, "usage: see the head of bench/dn_get.c\n");
		return 2;
	}
	close(fd);
	printf("%" PRIu64 " %.6f\n", bytes, (double)(now_ns() - t0) / 1e9);
	return 0;
}
