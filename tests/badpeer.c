/* Bad peers against a running shuffle service or OCS crossbar (tests/
 * badpeer.sh starts them, in a namespace of its own, with short time
 * limits):
 *
 *   badpeer shuffle PORT REGSOCK SEED   the service on 127.0.0.1:PORT
 *   badpeer ocs SOCK                    the crossbar's control socket
 *
 * Malformed, oversized, truncated and idle (slow) requests are sent while
 * a well-behaved client is served; each bad connection must be refused
 * or closed by the server (never answered with data it should not send),
 * and the good client must get exactly what it asked for. Prints one line
 * per check; exits 1 if any failed. No check depends on how long anything
 * takes: the slow clients are waited for until the server closes them. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/util.h"
#include "emul/shuffle.h"

static int failures;

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
	if (!ok)
		failures++;
}

static int tcp_connect(uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("connect");
		exit(2);
	}
	return fd;
}

static int unix_connect(const char *path)
{
	int fd = emul_unix_connect(path);

	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(-fd));
		exit(2);
	}
	return fd;
}

/* Send all of buf; false if the server closed first (it may refuse a
 * long request before reading all of it). */
static int send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return 0;
		}
		p += n;
		len -= (size_t)n;
	}
	return 1;
}

/* Read until the server closes: the bytes it sent (up to cap kept in buf),
 * or -1 if it reset the connection. Blocks as long as the server keeps the
 * connection open: that is what the slow clients wait for. */
static long read_to_close(int fd, char *buf, size_t cap)
{
	char tmp[65536];
	long total = 0;

	for (;;) {
		ssize_t n = read(fd, tmp, sizeof(tmp));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == ECONNRESET ? (total ? total : -1) : -1;
		if (n == 0)
			return total;
		if (buf && (size_t)total < cap) {
			size_t k = cap - (size_t)total < (size_t)n ? cap - (size_t)total : (size_t)n;

			memcpy(buf + total, tmp, k);
		}
		total += n;
	}
}

/* ---- the shuffle service ---- */

static void reg(const char *sock, const char *line, const char *want, const char *what)
{
	int fd = unix_connect(sock);
	char reply[16] = "";
	ssize_t n;

	send_all(fd, line, strlen(line));
	n = read(fd, reply, sizeof(reply) - 1);
	reply[n > 0 ? n : 0] = '\0';
	check(!strcmp(reply, want), what);
	close(fd);
}

/* One good fetch: every byte of every partition, checked. */
static void good_fetch(uint16_t port, uint64_t seed, const char *what)
{
	static const struct shuffle_part parts[] = { { 2, 1000000 }, { 3, 500000 } };
	char req[128], *buf = malloc(1500000 + 1);
	int fd = tcp_connect(port);
	long got;
	int ok;

	snprintf(req, sizeof(req), "GET 7 2 2 2:1000000 3:500000\n");
	ok = send_all(fd, req, strlen(req));
	got = read_to_close(fd, buf, 1500001);
	ok = ok && got == 1500000 &&
	     shuffle_check(shuffle_key(seed, 7, parts[0].map, 2), 0, (uint8_t *)buf,
			   parts[0].bytes) == parts[0].bytes &&
	     shuffle_check(shuffle_key(seed, 7, parts[1].map, 2), 0,
			   (uint8_t *)buf + parts[0].bytes, parts[1].bytes) == parts[1].bytes;
	check(ok, what);
	close(fd);
	free(buf);
}

/* A request the service must refuse: closed with no data. */
static void refused(uint16_t port, const void *req, size_t len, int shut, const char *what)
{
	int fd = tcp_connect(port);
	long got;

	send_all(fd, req, len);
	if (shut)
		shutdown(fd, SHUT_WR);
	got = read_to_close(fd, NULL, 0);
	check(got <= 0, what);
	close(fd);
}

static int shuffle_main(uint16_t port, const char *sock, uint64_t seed)
{
	static char big[1536 * 1024];
	int slow, slow_reg, nonreader, idle[10], k, closed;
	char bin[64];

	reg(sock, "reg 7 2\n", "ok\n", "registration of map 2");
	reg(sock, "reg 7 3\n", "ok\n", "registration of map 3");
	reg(sock, "reg 7 x\n", "err\n", "a malformed registration is answered err");
	{
		/* a registration cut short: the client leaves mid-line */
		int fd = unix_connect(sock);

		send_all(fd, "reg 7 ", 6);
		close(fd);
	}

	/* held open while the others are served */
	slow = tcp_connect(port);
	send_all(slow, "GET 7 2 1 2:10", 14); /* no end of line: slow */
	slow_reg = unix_connect(sock);
	send_all(slow_reg, "reg 7", 5);
	nonreader = tcp_connect(port);
	send_all(nonreader, "GET 7 2 1 2:100000000\n", 22); /* 100 MB it never reads */

	memset(big, 'A', sizeof(big));
	refused(port, big, sizeof(big), 0, "an oversized request (1.5 MB, no end of line) is refused");
	refused(port, "GET x y\n", 8, 0, "a malformed request is refused");
	refused(port, "GET 7 2 4000000000 2:10\n", 24, 0,
		"a request announcing 4e9 partitions is refused (nothing allocated)");
	refused(port, "GET 7 2 1 99:10\n", 16, 0, "a request for a map output not on this host is refused");
	refused(port, "GET 7 2 2 2:10\n", 15, 0, "a request with fewer partitions than announced is refused");
	for (k = 0; k < (int)sizeof(bin); k++)
		bin[k] = (char)(k * 37 + 1);
	bin[40] = '\n';
	refused(port, bin, sizeof(bin), 0, "binary garbage is refused");
	refused(port, "GET 7 2 2 2:5", 13, 1, "a truncated request (then end of file) is refused");

	good_fetch(port, seed, "a good fetch is served while slow and bad clients are connected");

	/* more connections than --max-conns: the extra ones are closed at
	 * once, the rest when their time runs out; all of them are closed */
	for (k = 0; k < 10; k++)
		idle[k] = tcp_connect(port);
	for (k = 0, closed = 0; k < 10; k++) {
		closed += read_to_close(idle[k], NULL, 0) <= 0;
		close(idle[k]);
	}
	check(closed == 10, "10 idle connections (more than --max-conns) are all closed by the server");

	check(read_to_close(slow, NULL, 0) <= 0, "a request without an end of line is closed");
	close(slow);
	{
		char r[8];
		ssize_t n = read(slow_reg, r, sizeof(r));

		check(n <= 0, "a registration without an end of line is closed");
		close(slow_reg);
	}
	{
		/* it took nothing: the service gives up on it; what it had
		 * sent before is far less than the 100 MB asked for */
		long got = read_to_close(nonreader, NULL, 0);

		check(got < 100000000, "a client that reads nothing is closed before its 100 MB");
		close(nonreader);
	}
	good_fetch(port, seed, "a good fetch is served after all that");
	return failures ? 1 : 0;
}

/* ---- the crossbar's control socket ---- */

/* Send a request and read the reply up to its status line. */
static void ocs_ask(int fd, const char *req, char *reply, size_t cap)
{
	size_t got = 0;

	send_all(fd, req, strlen(req));
	reply[0] = '\0';
	while (got + 1 < cap) {
		ssize_t n = read(fd, reply + got, cap - got - 1);
		char *last;

		if (n <= 0)
			break;
		got += (size_t)n;
		reply[got] = '\0';
		if (reply[got - 1] != '\n')
			continue;
		reply[got - 1] = '\0';
		last = strrchr(reply, '\n');
		last = last ? last + 1 : reply;
		reply[got - 1] = '\n';
		if (!strncmp(last, "ok", 2) || !strncmp(last, "err", 3))
			break;
	}
}

static int starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static int ocs_main(const char *sock)
{
	static char big[5000];
	char reply[8192];
	int slow, slow2, fd, crowd[70], k, refused_n;

	slow = unix_connect(sock);
	send_all(slow, "show", 4); /* no end of line */
	slow2 = unix_connect(sock);
	memset(big, 'x', sizeof(big));
	send_all(slow2, big, sizeof(big)); /* an overlong line that never ends */

	fd = unix_connect(sock);
	ocs_ask(fd, "bogus\n", reply, sizeof(reply));
	check(starts(reply, "err unknown command"), "an unknown command gets err");
	ocs_ask(fd, "set 0-1 1-2\n", reply, sizeof(reply));
	check(starts(reply, "err"), "a set that is not a matching gets err");
	ocs_ask(fd, "\x01\x02 set\n", reply, sizeof(reply));
	check(starts(reply, "err not a command"), "control bytes get err");
	send_all(fd, "sh\0ow\n", 6);
	ocs_ask(fd, "", reply, sizeof(reply));
	check(starts(reply, "err not a command: byte 0x00"), "a NUL byte gets err");
	memset(big, 'y', sizeof(big));
	big[sizeof(big) - 1] = '\n';
	send_all(fd, big, sizeof(big));
	ocs_ask(fd, "", reply, sizeof(reply));
	check(starts(reply, "err line too long"), "an overlong line gets err line too long");
	ocs_ask(fd, "show\n", reply, sizeof(reply));
	check(strstr(reply, "ok ports=2") != NULL, "the same client is served after its bad requests");
	close(fd);

	fd = unix_connect(sock);
	send_all(fd, "set 0-", 6); /* truncated: the client leaves */
	close(fd);

	/* more clients than the crossbar takes: the extra ones are told so */
	for (k = 0; k < 70; k++)
		crowd[k] = unix_connect(sock);
	for (k = 0, refused_n = 0; k < 70; k++) {
		/* an accepted client gets its reply; a refused one has
		 * "err too many clients" and the end of the connection */
		ocs_ask(crowd[k], "time\n", reply, sizeof(reply));
		refused_n += starts(reply, "err too many clients");
		if (!starts(reply, "err too many clients") && !starts(reply, "ok mono="))
			check(0, "a client in the crowd got neither an answer nor a refusal");
	}
	printf("%d of 70 clients refused\n", refused_n);
	check(refused_n > 0, "clients beyond the limit get err too many clients");
	for (k = 0; k < 70; k++)
		close(crowd[k]);

	fd = unix_connect(sock);
	ocs_ask(fd, "set 0-1\n", reply, sizeof(reply));
	check(starts(reply, "ok t="), "set is served while a slow client is connected");
	ocs_ask(fd, "show\n", reply, sizeof(reply));
	check(strstr(reply, "circuit 0 1") != NULL && strstr(reply, "ok ports=2"),
	      "show lists the circuit");

	/* the slow ones: told why, then closed */
	{
		long n = read_to_close(slow, reply, sizeof(reply) - 1);

		reply[n > 0 ? (n < (long)sizeof(reply) ? n : (long)sizeof(reply) - 1) : 0] = '\0';
		check(n > 0 && starts(reply, "err request not finished"),
		      "a request without an end of line is answered err and closed");
		close(slow);
		n = read_to_close(slow2, reply, sizeof(reply) - 1);
		reply[n > 0 ? (n < (long)sizeof(reply) ? n : (long)sizeof(reply) - 1) : 0] = '\0';
		check(n > 0 && strstr(reply, "err request not finished"),
		      "an overlong line that never ends is closed");
		close(slow2);
	}
	ocs_ask(fd, "show\n", reply, sizeof(reply));
	check(strstr(reply, "ok ports=2") != NULL, "a client that behaves stays connected");
	close(fd);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t v;

	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a server that never closes a slow client would hang the test: end
	 * it (failed) long after any time limit the servers were given */
	alarm(300);
	if (argc == 5 && !strcmp(argv[1], "shuffle")) {
		if (parse_uint(argv[2], 1, 65535, &v))
			return 2;
		return shuffle_main((uint16_t)v, argv[3], strtoull(argv[4], NULL, 10));
	}
	if (argc == 3 && !strcmp(argv[1], "ocs"))
		return ocs_main(argv[2]);
	fprintf(stderr, "usage: badpeer shuffle PORT REGSOCK SEED | badpeer ocs SOCK\n");
	return 2;
}
