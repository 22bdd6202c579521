/* The DataNode role (emul/datanode.h): block uids, the request line
 * parser, hop lines, and the client state machines against canned
 * replies from a fake service on the loopback. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check_hyde.h"
#include "emul/datanode.h"
#include "emul/shuffle.h"

/* ---- uids ---- */

START_TEST(uid_layout)
{
	enum dn_kind k;
	uint32_t job, idx;

	ck_assert_uint_eq(datanode_uid(DN_INPUT, 0, 0), 1ULL << 62);
	ck_assert_uint_eq(datanode_uid(DN_OUTPUT, 0, 0), 2ULL << 62);
	ck_assert_uint_eq(datanode_uid(DN_INPUT, 3, 4), 1ULL << 62 | 3ULL << 32 | 4);
	ck_assert_uint_eq(datanode_uid(DN_OUTPUT, DN_JOB_MAX, UINT32_MAX), 0xbfffffffffffffffULL);
	/* out of the domain: no block */
	ck_assert_uint_eq(datanode_uid(DN_INPUT, DN_JOB_MAX + 1, 0), 0);
	ck_assert_uint_eq(datanode_uid(DN_OUTPUT, UINT32_MAX, 7), 0);
	ck_assert_uint_eq(datanode_uid((enum dn_kind)0, 1, 1), 0);
	ck_assert_uint_eq(datanode_uid((enum dn_kind)3, 1, 1), 0);
	ck_assert_int_eq(datanode_uid_split(0, &k, &job, &idx), -EINVAL);
	ck_assert_int_eq(datanode_uid_split(3ULL << 62, &k, &job, &idx), -EINVAL);
	ck_assert_int_eq(datanode_uid_split(UINT64_MAX, &k, &job, &idx), -EINVAL);
	ck_assert_int_eq(datanode_uid_split(0xbfffffffffffffffULL, &k, &job, &idx), 0);
	ck_assert_int_eq(k, DN_OUTPUT);
	ck_assert_uint_eq(job, DN_JOB_MAX);
	ck_assert_uint_eq(idx, UINT32_MAX);
}
END_TEST

/* Every (kind, job, idx) over the edges of each field: a uid of its own,
 * and back. */
START_TEST(uid_distinct)
{
	static const uint32_t jobs[] = { 0, 1, 2, 0x3fff, 1U << 29, DN_JOB_MAX - 1, DN_JOB_MAX };
	static const uint32_t idxs[] = { 0, 1, 2, 0xffff, 1U << 31, UINT32_MAX - 1, UINT32_MAX };
	uint64_t seen[2 * ARRAY_SIZE(jobs) * ARRAY_SIZE(idxs)], keys[ARRAY_SIZE(seen)];
	size_t n = 0, a, b;
	int kind;

	for (kind = DN_INPUT; kind <= DN_OUTPUT; kind++)
		for (a = 0; a < ARRAY_SIZE(jobs); a++)
			for (b = 0; b < ARRAY_SIZE(idxs); b++) {
				uint64_t uid = datanode_uid((enum dn_kind)kind, jobs[a], idxs[b]);
				enum dn_kind k;
				uint32_t j, i;

				ck_assert_uint_ne(uid, 0);
				ck_assert_int_eq(datanode_uid_split(uid, &k, &j, &i), 0);
				ck_assert_int_eq(k, kind);
				ck_assert_uint_eq(j, jobs[a]);
				ck_assert_uint_eq(i, idxs[b]);
				keys[n] = datanode_key(1, uid);
				seen[n++] = uid;
			}
	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++) {
			ck_assert_uint_ne(seen[a], seen[b]);
			ck_assert_uint_ne(keys[a], keys[b]);
		}
}
END_TEST

/* Blocks and map outputs are streams of different keys for the same
 * numbers, and the seed changes every block. */
START_TEST(key_domains)
{
	uint32_t j, m;

	for (j = 0; j < 20; j++)
		for (m = 0; m < 20; m++) {
			uint64_t in = datanode_key(1, datanode_uid(DN_INPUT, j, m));

			ck_assert_uint_ne(in, shuffle_key(1, j, m, 0));
			ck_assert_uint_ne(in, datanode_key(2, datanode_uid(DN_INPUT, j, m)));
			ck_assert_uint_ne(in, datanode_key(1, datanode_uid(DN_OUTPUT, j, m)));
		}
}
END_TEST

/* ---- request lines ---- */

static const struct {
	const char *line;
	enum dn_op op;
	uint64_t uid, off, len;
	unsigned n_next;
	const char *next[DN_MAX_PIPELINE];
} req_ok[] = {
	{ "READ 0 0 0", DN_OP_READ, 0, 0, 0, 0, { NULL } },
	{ "READ 4611686018427387904 100 4096", DN_OP_READ, 1ULL << 62, 100, 4096, 0, { NULL } },
	{ "READ 18446744073709551615 0 1", DN_OP_READ, UINT64_MAX, 0, 1, 0, { NULL } },
	{ "READ 5 0 68719476736", DN_OP_READ, 5, 0, DN_MAX_LEN, 0, { NULL } },
	{ "READ 5 68719476735 1", DN_OP_READ, 5, DN_MAX_LEN - 1, 1, 0, { NULL } },
	{ "READ 007 0 1", DN_OP_READ, 7, 0, 1, 0, { NULL } },
	{ "WRITE 1 100", DN_OP_WRITE, 1, 0, 100, 0, { NULL } },
	{ "WRITE 1 0", DN_OP_WRITE, 1, 0, 0, 0, { NULL } },
	{ "WRITE 9 68719476736 10.0.0.2", DN_OP_WRITE, 9, 0, DN_MAX_LEN, 1, { "10.0.0.2" } },
	{ "WRITE 1 100 10.0.0.2,10.0.1.3", DN_OP_WRITE, 1, 0, 100, 2, { "10.0.0.2", "10.0.1.3" } },
	{ "WRITE 1 100 127.0.0.1", DN_OP_WRITE, 1, 0, 100, 1, { "127.0.0.1" } },
	{ "WRITE 2 3 1.0.0.1,1.0.0.2,1.0.0.3,1.0.0.4,1.0.0.5,1.0.0.6,1.0.0.7,1.0.0.8",
	  DN_OP_WRITE, 2, 0, 3, 8,
	  { "1.0.0.1", "1.0.0.2", "1.0.0.3", "1.0.0.4", "1.0.0.5", "1.0.0.6", "1.0.0.7", "1.0.0.8" } },
};

START_TEST(request_ok)
{
	const char *line = req_ok[_i].line, *why = NULL;
	struct dn_request r, again;
	char buf[DN_LINE_MAX];
	unsigned k;
	int n;

	ck_assert_msg(!dn_request_parse(line, strlen(line), &r, &why), "'%s': %s", line, why);
	ck_assert_int_eq(r.op, req_ok[_i].op);
	ck_assert_uint_eq(r.uid, req_ok[_i].uid);
	ck_assert_uint_eq(r.off, req_ok[_i].off);
	ck_assert_uint_eq(r.len, req_ok[_i].len);
	ck_assert_uint_eq(r.n_next, req_ok[_i].n_next);
	for (k = 0; k < r.n_next; k++) {
		struct in_addr ip;

		inet_pton(AF_INET, req_ok[_i].next[k], &ip);
		ck_assert_uint_eq(r.next[k].s_addr, ip.s_addr);
	}
	/* what a client sends parses back to the same request */
	n = dn_request_format(&r, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(buf[n - 1], '\n');
	ck_assert_int_eq(dn_request_parse(buf, (size_t)n - 1, &again, &why), 0);
	ck_assert_mem_eq(&r, &again, sizeof(r));
}
END_TEST

static const struct {
	const char *line;
	size_t len; /* 0: strlen(line) */
	int err;
	const char *why; /* a part of the reason given */
} req_bad[] = {
	{ "", 0, -EINVAL, "empty request" },
	{ "READ", 0, -EINVAL, "READ takes" },
	{ "READ 1 2", 0, -EINVAL, "READ takes" },
	{ "READ 1 2 3 4", 0, -EINVAL, "READ takes" },
	{ "READ 1 2 3 4 5 6", 0, -EINVAL, "too many" },
	{ "read 1 0 1", 0, -EINVAL, "unknown request" },
	{ "GET 1 2 1:3", 0, -EINVAL, "unknown request" },
	{ "READ  1 0 1", 0, -EINVAL, "empty field" },
	{ " READ 1 0 1", 0, -EINVAL, "empty field" },
	{ "READ 1 0 1 ", 0, -EINVAL, "empty field" },
	{ "READ\t1 0 1", 0, -EINVAL, "unknown request" },
	{ "READ 1 0 1\r", 0, -EINVAL, "len: expected" },
	{ "READ 1\0 0 1", 11, -EINVAL, "uid: expected" },
	{ "READ -1 0 1", 0, -EINVAL, "uid: expected" },
	{ "READ +1 0 1", 0, -EINVAL, "uid: expected" },
	{ "READ 0x10 0 1", 0, -EINVAL, "uid: expected" },
	{ "READ 1 1e3 1", 0, -EINVAL, "offset: expected" },
	{ "READ 18446744073709551616 0 1", 0, -ERANGE, "2^64" },
	{ "READ 1 0 68719476737", 0, -ERANGE, "len above 64 GiB" },
	{ "READ 1 0 99999999999999999999999", 0, -ERANGE, "len above 64 GiB" },
	{ "READ 1 99999999999999999999999 0", 0, -ERANGE, "2^64" },
	{ "READ 1 68719476736 1", 0, -ERANGE, "offset + len" },
	{ "READ 1 18446744073709551615 1", 0, -ERANGE, "offset + len" },
	{ "WRITE 1", 0, -EINVAL, "WRITE takes" },
	{ "WRITE 1 100 10.0.0.2 10.0.0.3", 0, -EINVAL, "WRITE takes" },
	{ "WRITE 1 -100", 0, -EINVAL, "len: expected" },
	{ "WRITE 1 68719476737", 0, -ERANGE, "len above 64 GiB" },
	{ "WRITE 1 100 10.0.0.2,", 0, -EINVAL, "IPv4 address" },
	{ "WRITE 1 100 ,10.0.0.2", 0, -EINVAL, "IPv4 address" },
	{ "WRITE 1 100 10.0.0.2,,10.0.0.3", 0, -EINVAL, "IPv4 address" },
	{ "WRITE 1 100 10.0.0.256", 0, -EINVAL, "IPv4 address" },
	{ "WRITE 1 100 10.0.0", 0, -EINVAL, "IPv4 address" },
	{ "WRITE 1 100 010.0.0.2", 0, -EINVAL, "IPv4 address" },
	{ "WRITE 1 100 datanode.example", 0, -EINVAL, "IPv4 address" },
	{ "WRITE 1 100 ::1", 0, -EINVAL, "IPv4 address" },
	{ "WRITE 1 100 10.0.0.2:9866", 0, -EINVAL, "IPv4 address" },
	{ "WRITE 1 100 0.0.0.0", 0, -EINVAL, "one host" },
	{ "WRITE 1 100 0.1.2.3", 0, -EINVAL, "one host" },
	{ "WRITE 1 100 224.0.0.1", 0, -EINVAL, "one host" },
	{ "WRITE 1 100 255.255.255.255", 0, -EINVAL, "one host" },
	{ "WRITE 1 100 10.0.0.2,10.0.0.3,10.0.0.2", 0, -EINVAL, "twice" },
	{ "WRITE 2 3 1.0.0.1,1.0.0.2,1.0.0.3,1.0.0.4,1.0.0.5,1.0.0.6,1.0.0.7,1.0.0.8,1.0.0.9",
	  0, -ERANGE, "more than 8" },
};

START_TEST(request_bad)
{
	size_t len = req_bad[_i].len ? req_bad[_i].len : strlen(req_bad[_i].line);
	const char *why = NULL;
	struct dn_request r;

	ck_assert_int_eq(dn_request_parse(req_bad[_i].line, len, &r, &why), req_bad[_i].err);
	ck_assert_ptr_nonnull(why);
	ck_assert_msg(strstr(why, req_bad[_i].why), "'%s': '%s', expected '%s'", req_bad[_i].line,
		      why, req_bad[_i].why);
}
END_TEST

/* The cap is on the line: 511 bytes and the '\n' pass, one more does not. */
START_TEST(request_too_long)
{
	char line[DN_LINE_MAX + 1];
	const char *why = NULL;
	struct dn_request r;

	memset(line, '0', sizeof(line)); /* leading zeros: still a number */
	memcpy(line, "READ 1 0 ", 9);
	line[DN_LINE_MAX - 2] = '1';
	ck_assert_int_eq(dn_request_parse(line, DN_LINE_MAX - 1, &r, &why), 0);
	ck_assert_uint_eq(r.len, 1);
	ck_assert_int_eq(dn_request_parse(line, DN_LINE_MAX, &r, &why), -ERANGE);
	ck_assert_ptr_nonnull(strstr(why, "longer than 511 bytes"));
}
END_TEST

/* ---- hop lines ---- */

START_TEST(hop_roundtrip)
{
	struct dn_hop h = { .cli_port = htons(40001), .srv_port = htons(DN_PORT),
			    .connect_ns = 1700000000000000001LL, .established_ns = 1700000000000000002LL,
			    .first_byte_ns = 1700000000000000003LL, .last_byte_ns = INT64_MAX,
			    .bytes = DN_MAX_LEN }, back;
	char line[DN_HOP_LINE_MAX];
	int n;

	inet_pton(AF_INET, "255.255.255.254", &h.cli_ip);
	inet_pton(AF_INET, "10.16.7.200", &h.srv_ip);
	n = dn_hop_format(&h, line, sizeof(line));
	ck_assert_int_gt(n, 0);
	ck_assert_str_eq(line, "255.255.255.254 40001 10.16.7.200 9866 1700000000000000001 "
			       "1700000000000000002 1700000000000000003 9223372036854775807 "
			       "68719476736\n");
	ck_assert_int_eq(dn_hop_parse(line, (size_t)n - 1, &back), 0);
	/* field by field: the struct's padding is nobody's */
	ck_assert_uint_eq(back.cli_ip.s_addr, h.cli_ip.s_addr);
	ck_assert_uint_eq(back.srv_ip.s_addr, h.srv_ip.s_addr);
	ck_assert_uint_eq(back.cli_port, h.cli_port);
	ck_assert_uint_eq(back.srv_port, h.srv_port);
	ck_assert_int_eq(back.connect_ns, h.connect_ns);
	ck_assert_int_eq(back.established_ns, h.established_ns);
	ck_assert_int_eq(back.first_byte_ns, h.first_byte_ns);
	ck_assert_int_eq(back.last_byte_ns, h.last_byte_ns);
	ck_assert_uint_eq(back.bytes, h.bytes);
	ck_assert_int_eq(dn_hop_format(&h, line, 20), -ENOSPC);
}
END_TEST

static const char *const hop_bad[] = {
	"",
	"10.0.0.1 40001 10.0.0.2 9866 1 2 3 4",
	"10.0.0.1 40001 10.0.0.2 9866 1 2 3 4 5 6",
	"10.0.0.1 0 10.0.0.2 9866 1 2 3 4 5",
	"10.0.0.1 40001 10.0.0.2 65536 1 2 3 4 5",
	"10.0.0.1 40001 10.0.0.2 9866 -1 2 3 4 5",
	"10.0.0.1 40001 10.0.0.2 9866 1 2 3 9223372036854775808 5",
	"10.0.0.1 40001 10.0.0.2 9866 1 2 3 4 68719476737",
	"10.0.0.x 40001 10.0.0.2 9866 1 2 3 4 5",
	"10.0.0.1  40001 10.0.0.2 9866 1 2 3 4 5",
};

START_TEST(hop_bad_lines)
{
	struct dn_hop h;

	ck_assert_int_eq(dn_hop_parse(hop_bad[_i], strlen(hop_bad[_i]), &h), -EINVAL);
}
END_TEST

/* ---- clients against a fake service ---- */

#define SEED 11
#define UID 4242
#define LEN 3000

static int fake_listen(struct sockaddr_in *sa)
{
	socklen_t sl = sizeof(*sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	*sa = (struct sockaddr_in){ .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)sa, sizeof(*sa)), 0);
	ck_assert_int_eq(listen(fd, 4), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)sa, &sl), 0);
	return fd;
}

/* Drive x until it is over or until it has nothing more to do at once. */
static int drive(struct dn_xfer *x, int ep, int timeout_ms)
{
	struct epoll_event ev;
	int n;

	while (!x->status && (n = epoll_wait(ep, &ev, 1, timeout_ms)) > 0)
		dn_xfer_event(x, ev.events);
	return x->status;
}

static void read_exact(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		ck_assert_int_gt(n, 0);
		got += (size_t)n;
	}
}

static void write_exact(int fd, const void *buf, size_t len)
{
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
}

static const struct {
	unsigned n_next;
	bool early; /* the reply before reading the request */
	const char *reply;
	int status;
	const char *err;
	bool relay; /* dn_relay_new, no byte ever committed */
} write_replies[] = {
	{ 0, false, "OK 0 100 200\n", 1, NULL, false },
	{ 1, false, "OK 1 100 200\n10.0.0.2 40000 10.0.0.3 9866 1 2 3 4 3000\n", 1, NULL, false },
	{ 0, false, "ERR 10.0.0.2: byte 5 of block 9 is wrong\n", -EREMOTEIO,
	  "10.0.0.2: byte 5 of block 9 is wrong", false },
	{ 0, true, "ERR 10.0.0.2: malformed request\n", -EREMOTEIO, "10.0.0.2: malformed request", false },
	{ 1, false, "ERR 10.0.0.3: no\001pe\n", -EREMOTEIO, "10.0.0.3: no?pe", false },
	{ 0, false, "ERR cut without end of line", -EREMOTEIO, "cut without end of line", false },
	{ 1, false, "OK 0 1 2\n", -EPROTO, "OK with 0 hops for a pipeline of 1", false },
	{ 0, false, "", -EPIPE, "closed without a reply after 3000 of 3000 bytes", false },
	{ 0, false, "HELLO\n", -EPROTO, "unexpected reply 'HELLO'", false },
	{ 0, false, "OK zero\n", -EPROTO, "malformed reply", false },
	{ 1, false, "OK 1 1 2\nbogus\n", -EPROTO, "malformed hop line 'bogus'", false },
	{ 0, false, "OK 0 1 2\nextra\n", -EPROTO, "bytes after the reply", false },
	{ 1, false, "OK 1 1 2\n10.0.0.2 40000 10.0.0.3 9866 1 2 3 4 3000", -EPROTO,
	  "closed in its reply", false },
	{ 0, true, "OK 0 1 2\n", -EPROTO, "OK after 0 of 3000 bytes", true },
};

START_TEST(write_reply)
{
	struct in_addr next = { htonl(0x0a000003) };
	char req[64], data[LEN], want[LEN], line[64];
	struct sockaddr_in sa;
	int lfd = fake_listen(&sa), ep = epoll_create1(EPOLL_CLOEXEC), fd, n;
	unsigned nn = write_replies[_i].n_next;
	struct dn_xfer *x = write_replies[_i].relay ? dn_relay_new(UID, LEN, &next, nn)
						    : dn_write_new(SEED, UID, LEN, &next, nn);

	ck_assert_int_eq(dn_xfer_start(x, ep, NULL, &sa, 0), 0);
	fd = accept(lfd, NULL, NULL);
	ck_assert_int_ge(fd, 0);
	n = snprintf(line, sizeof(line), "WRITE %d %d%s\n", UID, LEN, nn ? " 10.0.0.3" : "");
	if (write_replies[_i].early) {
		/* before the client has a chance to send its bytes */
		write_exact(fd, write_replies[_i].reply, strlen(write_replies[_i].reply));
	} else {
		drive(x, ep, 100); /* LEN fits in the socket buffers */
		ck_assert_uint_eq(x->moved, LEN);
		read_exact(fd, req, (size_t)n);
		ck_assert_mem_eq(req, line, (size_t)n);
		read_exact(fd, data, LEN);
		shuffle_fill(datanode_key(SEED, UID), 0, (uint8_t *)want, LEN);
		ck_assert_mem_eq(data, want, LEN);
		write_exact(fd, write_replies[_i].reply, strlen(write_replies[_i].reply));
	}
	shutdown(fd, SHUT_WR);
	ck_assert_int_eq(drive(x, ep, 5000), write_replies[_i].status);
	if (write_replies[_i].err)
		ck_assert_msg(strstr(x->err, write_replies[_i].err), "'%s', expected '%s'", x->err,
			      write_replies[_i].err);
	if (x->status == 1) {
		ck_assert_int_eq(x->conn.first_byte_ns, 100);
		ck_assert_int_eq(x->conn.last_byte_ns, 200);
		ck_assert_uint_eq(x->conn.bytes, LEN);
		ck_assert_uint_eq(x->conn.srv_port, sa.sin_port);
		ck_assert_uint_eq(x->conn.cli_ip.s_addr, htonl(INADDR_LOOPBACK));
		ck_assert_uint_ne(x->conn.cli_port, 0);
		ck_assert_int_gt(x->conn.established_ns, 0);
		ck_assert_int_ge(x->conn.established_ns, x->conn.connect_ns);
		ck_assert_uint_eq(x->n_hops, nn);
		if (nn)
			ck_assert_uint_eq(x->hops[0].bytes, 3000);
	}
	dn_xfer_free(x);
	close(fd);
	close(lfd);
	close(ep);
}
END_TEST

/* What the fake service sends for a READ of LEN bytes from offset 7. */
enum read_case { R_GOOD, R_SHORT, R_WRONG, R_EXTRA, R_ERR, R_GARBAGE };

static const struct {
	enum read_case what;
	int status;
	const char *err;
} read_replies[] = {
	{ R_GOOD, 1, NULL },
	{ R_SHORT, -EPIPE, "short read: 2999 of 3000 bytes" },
	{ R_WRONG, -EBADMSG, "byte 1007 of block 4242 is wrong" },
	{ R_EXTRA, -EPROTO, "more bytes than the 3000 asked for" },
	{ R_ERR, -EREMOTEIO, "10.0.0.9: no such thing" },
	{ R_GARBAGE, -EBADMSG, "byte 7 of block 4242 is wrong" },
};

START_TEST(read_reply)
{
	uint8_t data[LEN + 1];
	struct sockaddr_in sa;
	int lfd = fake_listen(&sa), ep = epoll_create1(EPOLL_CLOEXEC), fd;
	struct dn_xfer *x = dn_read_new(SEED, UID, 7, LEN);
	size_t len = LEN;
	char req[64];

	ck_assert_int_eq(dn_xfer_start(x, ep, NULL, &sa, 0x04), 0);
	fd = accept(lfd, NULL, NULL);
	ck_assert_int_ge(fd, 0);
	drive(x, ep, 100);
	read_exact(fd, req, strlen("READ 4242 7 3000\n"));
	ck_assert_mem_eq(req, "READ 4242 7 3000\n", strlen("READ 4242 7 3000\n"));
	shuffle_fill(datanode_key(SEED, UID), 7, data, LEN + 1);
	switch (read_replies[_i].what) {
	case R_GOOD:
		break;
	case R_SHORT:
		len--;
		break;
	case R_WRONG:
		data[1000] ^= 1;
		break;
	case R_EXTRA:
		len++;
		break;
	case R_ERR:
		len = (size_t)sprintf((char *)data, "ERR 10.0.0.9: no such thing\n");
		break;
	case R_GARBAGE:
		len = (size_t)sprintf((char *)data, "GARBAGE\n");
		break;
	}
	write_exact(fd, data, len);
	close(fd);
	ck_assert_int_eq(drive(x, ep, 5000), read_replies[_i].status);
	if (read_replies[_i].err)
		ck_assert_msg(strstr(x->err, read_replies[_i].err), "'%s', expected '%s'", x->err,
			      read_replies[_i].err);
	else
		ck_assert_uint_eq(x->conn.bytes, LEN);
	if (x->status == 1)
		ck_assert_int_ge(x->conn.last_byte_ns, x->conn.first_byte_ns);
	dn_xfer_free(x);
	close(lfd);
	close(ep);
}
END_TEST

/* A client never sends what the service would refuse. */
START_TEST(client_refuses_bad_request)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(DN_PORT),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct in_addr twice[2] = { { htonl(0x0a000002) }, { htonl(0x0a000002) } };
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct dn_xfer *x = dn_read_new(SEED, UID, DN_MAX_LEN, 1);

	ck_assert_int_eq(dn_xfer_start(x, ep, NULL, &sa, 0), -EINVAL);
	ck_assert_ptr_nonnull(strstr(x->err, "offset + len above 64 GiB"));
	dn_xfer_free(x);
	x = dn_write_new(SEED, UID, 10, twice, 2);
	ck_assert_int_eq(dn_xfer_start(x, ep, NULL, &sa, 0), -EINVAL);
	ck_assert_ptr_nonnull(strstr(x->err, "next hop listed twice"));
	dn_xfer_free(x);
	{
		struct in_addr nine[DN_MAX_PIPELINE + 1];
		unsigned i;

		for (i = 0; i < ARRAY_SIZE(nine); i++)
			nine[i].s_addr = htonl(0x0a000002 + i);
		x = dn_write_new(SEED, UID, 10, nine, ARRAY_SIZE(nine));
		ck_assert_int_eq(dn_xfer_start(x, ep, NULL, &sa, 0), -E2BIG);
		ck_assert_ptr_nonnull(strstr(x->err, "more than 8 next hops"));
		dn_xfer_free(x);
	}
	close(ep);
}
END_TEST

Suite *datanode_suite(void)
{
	Suite *s = suite_create("datanode");
	TCase *tc = tcase_create("uid");

	tcase_add_test(tc, uid_layout);
	tcase_add_test(tc, uid_distinct);
	tcase_add_test(tc, key_domains);
	suite_add_tcase(s, tc);
	tc = tcase_create("request");
	tcase_add_loop_test(tc, request_ok, 0, ARRAY_SIZE(req_ok));
	tcase_add_loop_test(tc, request_bad, 0, ARRAY_SIZE(req_bad));
	tcase_add_test(tc, request_too_long);
	tcase_add_test(tc, hop_roundtrip);
	tcase_add_loop_test(tc, hop_bad_lines, 0, ARRAY_SIZE(hop_bad));
	suite_add_tcase(s, tc);
	tc = tcase_create("client");
	tcase_add_loop_test(tc, write_reply, 0, ARRAY_SIZE(write_replies));
	tcase_add_loop_test(tc, read_reply, 0, ARRAY_SIZE(read_replies));
	tcase_add_test(tc, client_refuses_bad_request);
	suite_add_tcase(s, tc);
	return s;
}
