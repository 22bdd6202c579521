/* The DataNode role's data, its protocol lines and the client state
 * machines (datanode.h). The service is in datanode_serve.c. */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/rng.h"
#include "core/util.h"
#include "emul/datanode.h"
#include "emul/shuffle.h"

/* ---- block data ---- */

#define UID_KIND_SHIFT 62
#define UID_JOB_SHIFT 32

uint64_t datanode_uid(enum dn_kind kind, uint32_t job, uint32_t idx)
{
	if ((kind != DN_INPUT && kind != DN_OUTPUT) || job > DN_JOB_MAX)
		return 0;
	return (uint64_t)kind << UID_KIND_SHIFT | (uint64_t)job << UID_JOB_SHIFT | idx;
}

int datanode_uid_split(uint64_t uid, enum dn_kind *kind, uint32_t *job, uint32_t *idx)
{
	unsigned k = (unsigned)(uid >> UID_KIND_SHIFT);

	if (k != DN_INPUT && k != DN_OUTPUT)
		return -EINVAL;
	*kind = (enum dn_kind)k;
	*job = (uint32_t)(uid >> UID_JOB_SHIFT) & DN_JOB_MAX;
	*idx = (uint32_t)uid;
	return 0;
}

uint64_t datanode_key(uint64_t seed, uint64_t uid)
{
	/* Another tag than shuffle_key's ("hyde"), so block streams and map
	 * output streams are keyed apart; for one seed, uid -> key is a
	 * bijection (xor, then splitmix64's invertible mix), so two blocks
	 * never share a stream. */
	uint64_t s = seed ^ 0x68646673ULL; /* "hdfs" */
	uint64_t k = splitmix64(&s) ^ uid;

	return splitmix64(&k);
}

/* ---- protocol lines ---- */

struct field {
	const char *p;
	size_t len;
};

/* Split [line, line + len) on single spaces into at most max fields;
 * the number of fields, or -1 if a field is empty (two spaces in a row, or
 * one at an end) or there are more than max. */
static int split_fields(const char *line, size_t len, struct field *f, int max)
{
	size_t i, start = 0;
	int n = 0;

	for (i = 0; i <= len; i++) {
		if (i < len && line[i] != ' ')
			continue;
		if (i == start || n == max)
			return -1;
		f[n++] = (struct field){ line + start, i - start };
		start = i + 1;
	}
	return n;
}

static bool field_is(const struct field *f, const char *s)
{
	return f->len == strlen(s) && !memcmp(f->p, s, f->len);
}

/* A decimal number of the whole field, at most max. */
static int field_u64(const struct field *f, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!f->len)
		return -EINVAL;
	for (i = 0; i < f->len; i++) {
		unsigned d = (unsigned char)f->p[i] - '0';

		if (d > 9)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static int field_ip(const struct field *f, struct in_addr *ip)
{
	char s[INET_ADDRSTRLEN];

	if (f->len >= sizeof(s))
		return -EINVAL;
	memcpy(s, f->p, f->len);
	s[f->len] = '\0';
	return inet_pton(AF_INET, s, ip) == 1 ? 0 : -EINVAL;
}

/* A next hop must be one host: not 0.0.0.0/8, multicast or broadcast. */
static bool ip_is_host(struct in_addr ip)
{
	uint32_t a = ntohl(ip.s_addr);

	return (a >> 24) != 0 && (a >> 28) != 0xe && a != 0xffffffffU;
}

static int parse_pipeline(const struct field *f, struct dn_request *req, const char **why)
{
	size_t i, start = 0;
	unsigned k;

	for (i = 0; i <= f->len; i++) {
		struct field ipf;
		struct in_addr ip;

		if (i < f->len && f->p[i] != ',')
			continue;
		ipf = (struct field){ f->p + start, i - start };
		start = i + 1;
		if (req->n_next == DN_MAX_PIPELINE) {
			*why = "more than 8 next hops";
			return -ERANGE;
		}
		if (field_ip(&ipf, &ip)) {
			*why = "next hop: expected an IPv4 address";
			return -EINVAL;
		}
		if (!ip_is_host(ip)) {
			*why = "next hop: not the address of one host";
			return -EINVAL;
		}
		for (k = 0; k < req->n_next; k++)
			if (req->next[k].s_addr == ip.s_addr) {
				*why = "next hop listed twice";
				return -EINVAL;
			}
		req->next[req->n_next++] = ip;
	}
	return 0;
}

static int number(const struct field *f, uint64_t max, uint64_t *out, const char *what,
		  const char **why)
{
	int r = field_u64(f, max, out);

	if (r == -EINVAL)
		*why = what;
	else if (r == -ERANGE)
		*why = max == UINT64_MAX ? "number above 2^64 - 1" : "len above 64 GiB";
	return r;
}

int dn_request_parse(const char *line, size_t len, struct dn_request *req, const char **why)
{
	struct field f[5];
	int n, r;

	memset(req, 0, sizeof(*req));
	if (len >= DN_LINE_MAX) {
		*why = "request line longer than 511 bytes";
		return -ERANGE;
	}
	/* one field more than any request has: "READ takes ..." says more
	 * than "too many" */
	n = split_fields(line, len, f, 5);
	if (n < 0) {
		*why = len ? "malformed request (an empty field or too many)" : "empty request";
		return -EINVAL;
	}
	if (field_is(&f[0], "READ")) {
		if (n != 4) {
			*why = "READ takes <uid> <offset> <len>";
			return -EINVAL;
		}
		req->op = DN_OP_READ;
		if ((r = number(&f[1], UINT64_MAX, &req->uid, "uid: expected a decimal number", why)) ||
		    (r = number(&f[2], UINT64_MAX, &req->off, "offset: expected a decimal number", why)) ||
		    (r = number(&f[3], DN_MAX_LEN, &req->len, "len: expected a decimal number", why)))
			return r;
		if (req->off > DN_MAX_LEN - req->len) {
			*why = "offset + len above 64 GiB";
			return -ERANGE;
		}
		return 0;
	}
	if (field_is(&f[0], "WRITE")) {
		if (n != 3 && n != 4) {
			*why = "WRITE takes <uid> <len> [<ip>[,<ip>...]]";
			return -EINVAL;
		}
		req->op = DN_OP_WRITE;
		if ((r = number(&f[1], UINT64_MAX, &req->uid, "uid: expected a decimal number", why)) ||
		    (r = number(&f[2], DN_MAX_LEN, &req->len, "len: expected a decimal number", why)))
			return r;
		return n == 4 ? parse_pipeline(&f[3], req, why) : 0;
	}
	*why = "unknown request (expected READ or WRITE)";
	return -EINVAL;
}

int dn_request_format(const struct dn_request *req, char *buf, size_t size)
{
	size_t len;
	unsigned i;
	int n;

	if (req->op == DN_OP_READ)
		n = snprintf(buf, size, "READ %" PRIu64 " %" PRIu64 " %" PRIu64, req->uid,
			     req->off, req->len);
	else
		n = snprintf(buf, size, "WRITE %" PRIu64 " %" PRIu64, req->uid, req->len);
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	len = (size_t)n;
	for (i = 0; i < req->n_next; i++) {
		char ip[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &req->next[i], ip, sizeof(ip));
		n = snprintf(buf + len, size - len, "%c%s", i ? ',' : ' ', ip);
		if (n < 0 || (size_t)n >= size - len)
			return -ENOSPC;
		len += (size_t)n;
	}
	if (len + 1 >= size)
		return -ENOSPC;
	buf[len++] = '\n';
	buf[len] = '\0';
	return (int)len;
}

int dn_hop_format(const struct dn_hop *h, char *buf, size_t size)
{
	char cli[INET_ADDRSTRLEN], srv[INET_ADDRSTRLEN];
	int n;

	inet_ntop(AF_INET, &h->cli_ip, cli, sizeof(cli));
	inet_ntop(AF_INET, &h->srv_ip, srv, sizeof(srv));
	n = snprintf(buf, size, "%s %u %s %u %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRIu64 "\n",
		     cli, ntohs(h->cli_port), srv, ntohs(h->srv_port), h->connect_ns,
		     h->established_ns, h->first_byte_ns, h->last_byte_ns, h->bytes);
	return n < 0 || (size_t)n >= size ? -ENOSPC : n;
}

int dn_hop_parse(const char *line, size_t len, struct dn_hop *h)
{
	struct field f[9];
	uint64_t v[7];
	int i;

	if (split_fields(line, len, f, 9) != 9 || field_ip(&f[0], &h->cli_ip) ||
	    field_ip(&f[2], &h->srv_ip) || field_u64(&f[1], 65535, &v[0]) || !v[0] ||
	    field_u64(&f[3], 65535, &v[1]) || !v[1])
		return -EINVAL;
	for (i = 0; i < 4; i++)
		if (field_u64(&f[4 + i], INT64_MAX, &v[2 + i]))
			return -EINVAL;
	if (field_u64(&f[8], DN_MAX_LEN, &v[6]))
		return -EINVAL;
	h->cli_port = htons((uint16_t)v[0]);
	h->srv_port = htons((uint16_t)v[1]);
	h->connect_ns = (int64_t)v[2];
	h->established_ns = (int64_t)v[3];
	h->first_byte_ns = (int64_t)v[4];
	h->last_byte_ns = (int64_t)v[5];
	h->bytes = v[6];
	return 0;
}

/* ---- clients ---- */

#define XFER_BUF (256 * 1024)
/* Bytes moved per event at most: a fast peer must not keep the caller's
 * loop from its other sockets (epoll is level-triggered: it comes back). */
#define XFER_BUDGET (1024 * 1024)
#define READ_ERR_MAX 512 /* an ERR line where a READ's data should be */

static struct dn_xfer *xfer_new(enum dn_xfer_mode mode, uint64_t uid, uint64_t off, uint64_t len,
				const struct in_addr *next, unsigned n_next)
{
	struct dn_xfer *x = xcalloc(1, sizeof(*x));

	x->mode = mode;
	x->fd = -1;
	x->ep = -1;
	x->req.op = mode == DN_XFER_READ ? DN_OP_READ : DN_OP_WRITE;
	x->req.uid = uid;
	x->req.off = off;
	x->req.len = len;
	/* dn_xfer_start refuses what the service would */
	x->too_many = n_next > DN_MAX_PIPELINE;
	x->req.n_next = x->too_many ? 0 : n_next;
	if (x->req.n_next)
		memcpy(x->req.next, next, n_next * sizeof(*next));
	x->conn.first_byte_ns = x->conn.last_byte_ns = -1;
	x->buf_cap = len < XFER_BUF ? (size_t)len : XFER_BUF;
	if (!x->buf_cap)
		x->buf_cap = 1;
	if (mode == DN_XFER_READ && x->buf_cap < 4096)
		x->buf_cap = 4096; /* room for an ERR line in place of a short block */
	return x;
}

struct dn_xfer *dn_read_new(uint64_t seed, uint64_t uid, uint64_t off, uint64_t len)
{
	struct dn_xfer *x = xfer_new(DN_XFER_READ, uid, off, len, NULL, 0);

	x->key = datanode_key(seed, uid);
	return x;
}

struct dn_xfer *dn_write_new(uint64_t seed, uint64_t uid, uint64_t len,
			     const struct in_addr *next, unsigned n_next)
{
	struct dn_xfer *x = xfer_new(DN_XFER_WRITE, uid, 0, len, next, n_next);

	x->key = datanode_key(seed, uid);
	return x;
}

struct dn_xfer *dn_relay_new(uint64_t uid, uint64_t len, const struct in_addr *next,
			     unsigned n_next)
{
	return xfer_new(DN_XFER_RELAY, uid, 0, len, next, n_next);
}

static void xfer_close(struct dn_xfer *x)
{
	if (x->fd < 0)
		return;
	if (x->ep >= 0)
		epoll_ctl(x->ep, EPOLL_CTL_DEL, x->fd, NULL);
	close(x->fd);
	x->fd = -1;
	free(x->buf);
	x->buf = NULL;
}

/* "<cli> -> <srv>:<port>" (just "-> <srv>:<port>" before the connection is
 * up): the hop a client-side failure happened on. */
static void xfer_where(const struct dn_xfer *x, char *buf, size_t size)
{
	char cli[INET_ADDRSTRLEN] = "", srv[INET_ADDRSTRLEN];

	if (x->connected)
		inet_ntop(AF_INET, &x->conn.cli_ip, cli, sizeof(cli));
	inet_ntop(AF_INET, &x->conn.srv_ip, srv, sizeof(srv));
	snprintf(buf, size, "%s%s-> %s:%u", cli, *cli ? " " : "", srv, ntohs(x->conn.srv_port));
}

static int xfer_fail(struct dn_xfer *x, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int xfer_fail(struct dn_xfer *x, int err, const char *fmt, ...)
{
	char where[64], what[HYDE_ERRBUF_SIZE - 66];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	xfer_where(x, where, sizeof(where));
	snprintf(x->err, sizeof(x->err), "%s: %s", where, what);
	x->status = err;
	xfer_close(x);
	return err;
}

/* The service's own ERR text, passed up unchanged but for bytes that are
 * not printable (it came from the network). */
static int xfer_remote_err(struct dn_xfer *x, const char *text, size_t len)
{
	size_t i;

	if (len >= sizeof(x->err))
		len = sizeof(x->err) - 1;
	for (i = 0; i < len; i++)
		x->err[i] = isprint((unsigned char)text[i]) ? text[i] : '?';
	x->err[len] = '\0';
	x->status = -EREMOTEIO;
	xfer_close(x);
	return x->status;
}

static void xfer_want(struct dn_xfer *x, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = x->tag };

	if (x->fd < 0 || events == x->events)
		return;
	if (!epoll_ctl(x->ep, EPOLL_CTL_MOD, x->fd, &ev))
		x->events = events;
}

int dn_xfer_start(struct dn_xfer *x, int ep, void *tag, const struct sockaddr_in *srv, int tos)
{
	struct epoll_event ev = { .events = EPOLLOUT };
	struct dn_request check;
	const char *why;
	int n, err;

	x->ep = ep;
	x->tag = tag ? tag : x;
	x->conn.srv_ip = srv->sin_addr;
	x->conn.srv_port = srv->sin_port;
	x->last_progress_ns = now_ns();
	if (x->too_many)
		return xfer_fail(x, -E2BIG, "request: more than %d next hops", DN_MAX_PIPELINE);
	n = dn_request_format(&x->req, x->hdr, sizeof(x->hdr));
	if (n < 0 || dn_request_parse(x->hdr, (size_t)n - 1, &check, &why))
		return xfer_fail(x, -EINVAL, "request: %s", n < 0 ? "too long" : why);
	x->hdr_len = (size_t)n;
	x->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (x->fd < 0)
		return xfer_fail(x, -errno, "socket: %s", strerror(errno));
	/* As the shuffle's fetches: a TOS byte lets the fabric classify the
	 * flow's packets (its ACKs included). */
	if (tos && setsockopt(x->fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)))
		return xfer_fail(x, -errno, "IP_TOS %d: %s", tos, strerror(errno));
	x->conn.connect_ns = shuffle_realtime_ns();
	if (connect(x->fd, (const struct sockaddr *)srv, sizeof(*srv)) && errno != EINPROGRESS)
		return xfer_fail(x, -errno, "connect: %s", strerror(errno));
	ev.data.ptr = x->tag;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, x->fd, &ev)) {
		err = -errno;
		x->ep = -1; /* not in it: nothing to remove */
		return xfer_fail(x, err, "epoll: %s", strerror(-err));
	}
	x->events = EPOLLOUT;
	x->buf = xmalloc(x->buf_cap);
	return 0;
}

static int xfer_connected(struct dn_xfer *x)
{
	struct sockaddr_in me;
	socklen_t sl = sizeof(int);
	int err = 0;

	if (getsockopt(x->fd, SOL_SOCKET, SO_ERROR, &err, &sl))
		err = errno;
	if (err)
		return xfer_fail(x, -err, "connect: %s", strerror(err));
	x->connected = true;
	x->conn.established_ns = shuffle_realtime_ns();
	sl = sizeof(me);
	if (!getsockname(x->fd, (struct sockaddr *)&me, &sl)) {
		x->conn.cli_ip = me.sin_addr;
		x->conn.cli_port = me.sin_port;
	}
	x->last_progress_ns = now_ns();
	return 0;
}

static bool xfer_has_data(const struct dn_xfer *x)
{
	if (x->buf_head < x->buf_tail)
		return true;
	return x->mode == DN_XFER_WRITE && x->queued < x->req.len;
}

static int xfer_read_reply(struct dn_xfer *x);

/* A send failed: the service may have said why before it went (an ERR
 * line, then a reset); that is the better error. */
static int xfer_send_failed(struct dn_xfer *x, int err)
{
	if (x->mode != DN_XFER_READ && xfer_read_reply(x))
		return x->status;
	return xfer_fail(x, -err, "send: %s after %" PRIu64 " of %" PRIu64 " bytes",
			 strerror(err), x->moved, x->req.len);
}

/* Send what the socket takes: the request line, then (WRITE, RELAY) the
 * block bytes. */
static int xfer_send(struct dn_xfer *x)
{
	size_t budget = XFER_BUDGET;

	while (budget) {
		const uint8_t *p;
		size_t want;
		int flags = MSG_NOSIGNAL;
		ssize_t n;
		bool hdr = x->hdr_off < x->hdr_len;

		if (hdr) {
			p = (const uint8_t *)x->hdr + x->hdr_off;
			want = x->hdr_len - x->hdr_off;
			/* the block follows at once: one segment, not a runt */
			if (x->mode == DN_XFER_WRITE && x->req.len)
				flags |= MSG_MORE;
		} else {
			if (x->mode == DN_XFER_READ)
				return 0;
			if (x->buf_head == x->buf_tail) {
				size_t k;

				x->buf_head = x->buf_tail = 0;
				if (x->mode != DN_XFER_WRITE || x->queued == x->req.len)
					return 0;
				k = x->req.len - x->queued < x->buf_cap ? (size_t)(x->req.len - x->queued)
									: x->buf_cap;
				shuffle_fill(x->key, x->queued, x->buf, k);
				x->queued += k;
				x->buf_tail = k;
			}
			p = x->buf + x->buf_head;
			want = x->buf_tail - x->buf_head;
		}
		n = send(x->fd, p, want, flags);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return xfer_send_failed(x, errno);
		}
		x->last_progress_ns = now_ns();
		if (hdr) {
			x->hdr_off += (size_t)n;
			continue;
		}
		x->buf_head += (size_t)n;
		x->moved += (uint64_t)n;
		budget -= (size_t)n < budget ? (size_t)n : budget;
	}
	return 0;
}

/* A READ's data: checked as it comes. */
static int xfer_read_data(struct dn_xfer *x)
{
	size_t budget = XFER_BUDGET;

	for (;;) {
		ssize_t n = read(x->fd, x->buf, x->buf_cap);
		size_t take, bad;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return xfer_fail(x, -errno, "read: %s after %" PRIu64 " of %" PRIu64 " bytes",
					 strerror(errno), x->moved, x->req.len);
		}
		x->last_progress_ns = now_ns();
		if (n == 0)
			break;
		if ((size_t)n >= budget)
			budget = 0;
		else
			budget -= (size_t)n;
		if (x->reply) { /* an ERR line in place of the data */
			size_t k = READ_ERR_MAX - x->reply_len;

			k = (size_t)n < k ? (size_t)n : k;
			memcpy(x->reply + x->reply_len, x->buf, k);
			x->reply_len += k;
			continue;
		}
		if (!x->moved)
			x->conn.first_byte_ns = shuffle_realtime_ns();
		take = x->req.len - x->moved < (uint64_t)n ? (size_t)(x->req.len - x->moved) : (size_t)n;
		bad = shuffle_check(x->key, x->req.off + x->moved, x->buf, take);
		if (bad < (size_t)n) { /* a wrong byte, or bytes past the end */
			size_t k = (size_t)n < 4 ? (size_t)n : 4;

			/* What the service says instead of data when it refuses. */
			if (!x->moved && !memcmp(x->buf, "ERR ", k)) {
				x->reply = xmalloc(READ_ERR_MAX);
				x->reply_len = (size_t)n < READ_ERR_MAX ? (size_t)n : READ_ERR_MAX;
				memcpy(x->reply, x->buf, x->reply_len);
				continue;
			}
			if (bad == take)
				return xfer_fail(x, -EPROTO, "more bytes than the %" PRIu64 " asked for",
						 x->req.len);
			return xfer_fail(x, -EBADMSG, "byte %" PRIu64 " of block %" PRIu64 " is wrong",
					 x->req.off + x->moved + bad, x->req.uid);
		}
		x->moved += (uint64_t)n;
		if (x->moved == x->req.len)
			x->conn.last_byte_ns = shuffle_realtime_ns();
		if (!budget)
			return 0;
	}
	/* the service closed */
	if (x->reply) {
		char *nl = memchr(x->reply, '\n', x->reply_len);

		if (x->reply_len >= 4 && !memcmp(x->reply, "ERR ", 4))
			return xfer_remote_err(x, x->reply + 4,
					       (nl ? (size_t)(nl - x->reply) : x->reply_len) - 4);
		return xfer_fail(x, -EBADMSG, "byte 0 of block %" PRIu64 " is wrong", x->req.uid);
	}
	if (x->moved < x->req.len)
		return xfer_fail(x, -EPIPE, "short read: %" PRIu64 " of %" PRIu64
				 " bytes, then the service closed", x->moved, x->req.len);
	if (!x->req.len)
		x->conn.first_byte_ns = x->conn.last_byte_ns = shuffle_realtime_ns();
	x->conn.bytes = x->moved;
	x->status = 1;
	xfer_close(x);
	return 1;
}

/* "OK <n> <first_ns> <last_ns>" and n hop lines, complete in the reply:
 * take them. */
static int xfer_take_ok(struct dn_xfer *x, const char *line, size_t len, const char *rest,
			size_t rest_len)
{
	struct field f[4];
	uint64_t n, first, last;
	unsigned i;

	if (split_fields(line, len, f, 4) != 4 || field_u64(&f[1], DN_MAX_PIPELINE, &n) ||
	    field_u64(&f[2], INT64_MAX, &first) || field_u64(&f[3], INT64_MAX, &last))
		return xfer_fail(x, -EPROTO, "malformed reply '%.*s'", (int)(len < 80 ? len : 80), line);
	if (n != x->req.n_next)
		return xfer_fail(x, -EPROTO, "OK with %" PRIu64 " hops for a pipeline of %u", n,
				 x->req.n_next);
	for (i = 0; i < n; i++) {
		const char *nl = memchr(rest, '\n', rest_len);

		if (!nl)
			return x->in_eof ? xfer_fail(x, -EPROTO, "the service closed in its reply") : 0;
		if (dn_hop_parse(rest, (size_t)(nl - rest), &x->hops[i]))
			return xfer_fail(x, -EPROTO, "malformed hop line '%.*s'",
					 (int)((size_t)(nl - rest) < 120 ? nl - rest : 120), rest);
		rest_len -= (size_t)(nl - rest) + 1;
		rest = nl + 1;
	}
	if (rest_len)
		return xfer_fail(x, -EPROTO, "bytes after the reply");
	if (x->moved != x->req.len)
		return xfer_fail(x, -EPROTO, "OK after %" PRIu64 " of %" PRIu64 " bytes", x->moved,
				 x->req.len);
	x->n_hops = (unsigned)n;
	x->conn.first_byte_ns = (int64_t)first;
	x->conn.last_byte_ns = (int64_t)last;
	x->conn.bytes = x->moved;
	x->status = 1;
	xfer_close(x);
	return 1;
}

/* A WRITE's reply, read as it comes (an ERR may come before every byte is
 * sent). Returns non-zero once the transfer is over. */
static int xfer_read_reply(struct dn_xfer *x)
{
	const char *nl;
	int rerr = 0;

	if (!x->reply)
		x->reply = xmalloc(DN_REPLY_MAX);
	while (!x->in_eof && x->reply_len < DN_REPLY_MAX) {
		ssize_t n = read(x->fd, x->reply + x->reply_len, DN_REPLY_MAX - x->reply_len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* a reset comes after what was sent before it: look at that first */
			if (errno != EAGAIN)
				rerr = errno;
			break;
		}
		x->last_progress_ns = now_ns();
		if (n == 0)
			x->in_eof = true;
		x->reply_len += (size_t)n;
	}
	nl = memchr(x->reply, '\n', x->reply_len);
	if (x->reply_len >= 4 && !memcmp(x->reply, "ERR ", 4) && (nl || x->in_eof || rerr))
		return xfer_remote_err(x, x->reply + 4,
				       (nl ? (size_t)(nl - x->reply) : x->reply_len) - 4);
	if (nl && x->reply_len >= 3 && !memcmp(x->reply, "OK ", 3)) {
		size_t len = (size_t)(nl - x->reply);
		int r = xfer_take_ok(x, x->reply, len, nl + 1, x->reply_len - len - 1);

		if (r)
			return r;
	} else if (nl || x->reply_len >= 4) {
		size_t len = nl ? (size_t)(nl - x->reply) : x->reply_len;

		if (!nl && (!memcmp(x->reply, "ERR ", 4) || !memcmp(x->reply, "OK ", 3)))
			len = 0; /* a good start: wait for the rest */
		if (len)
			return xfer_fail(x, -EPROTO, "unexpected reply '%.*s'",
					 (int)(len < 80 ? len : 80), x->reply);
	}
	if (rerr)
		return xfer_fail(x, -rerr, "read: %s after %" PRIu64 " of %" PRIu64 " bytes",
				 strerror(rerr), x->moved, x->req.len);
	if (x->reply_len == DN_REPLY_MAX)
		return xfer_fail(x, -EPROTO, "reply longer than %d bytes", DN_REPLY_MAX);
	if (x->in_eof)
		return xfer_fail(x, -EPIPE, "the service closed without a reply after %" PRIu64
				 " of %" PRIu64 " bytes", x->moved, x->req.len);
	return 0;
}

static void xfer_rearm(struct dn_xfer *x)
{
	uint32_t ev;

	if (x->status || x->fd < 0)
		return;
	if (!x->connected)
		ev = EPOLLOUT;
	else if (x->mode == DN_XFER_READ)
		ev = x->hdr_off < x->hdr_len ? EPOLLOUT : EPOLLIN;
	else
		ev = EPOLLIN | (x->hdr_off < x->hdr_len || xfer_has_data(x) ? EPOLLOUT : 0);
	xfer_want(x, ev);
}

int dn_xfer_event(struct dn_xfer *x, uint32_t events)
{
	int r;

	if (x->status || x->fd < 0)
		return x->status;
	if (!x->connected) {
		if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return 0;
		if ((r = xfer_connected(x)))
			return r;
	}
	if ((r = xfer_send(x)))
		return r;
	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP | EPOLLRDHUP)) {
		if (x->mode == DN_XFER_READ)
			r = x->hdr_off == x->hdr_len ? xfer_read_data(x) : 0;
		else
			r = xfer_read_reply(x);
		if (r)
			return r;
	}
	xfer_rearm(x);
	return 0;
}

size_t dn_xfer_room(struct dn_xfer *x, uint8_t **at)
{
	size_t room;

	if (x->mode != DN_XFER_RELAY || x->status || !x->buf)
		return 0;
	if (x->buf_head == x->buf_tail) {
		x->buf_head = x->buf_tail = 0;
	} else if (x->buf_head && x->buf_cap - x->buf_tail < x->buf_cap / 4) {
		/* compact rather than ring: a send is then always one piece */
		memmove(x->buf, x->buf + x->buf_head, x->buf_tail - x->buf_head);
		x->buf_tail -= x->buf_head;
		x->buf_head = 0;
	}
	room = x->buf_cap - x->buf_tail;
	if (room > x->req.len - x->queued)
		room = (size_t)(x->req.len - x->queued);
	*at = x->buf + x->buf_tail;
	return room;
}

int dn_xfer_commit(struct dn_xfer *x, size_t n)
{
	int r;

	if (x->status || x->fd < 0)
		return x->status;
	if (n > x->buf_cap - x->buf_tail || n > x->req.len - x->queued)
		return xfer_fail(x, -EINVAL, "relay: %zu bytes committed past the room given", n);
	x->buf_tail += n;
	x->queued += n;
	if (x->connected && (r = xfer_send(x)))
		return r;
	xfer_rearm(x);
	return 0;
}

void dn_xfer_free(struct dn_xfer *x)
{
	if (!x)
		return;
	xfer_close(x);
	free(x->reply);
	free(x);
}
