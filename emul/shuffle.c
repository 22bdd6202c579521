/* Map output, the shuffle service and the task processes (shuffle.h). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "core/rng.h"
#include "core/util.h"
#include "emul/shuffle.h"

/* ---- the data ---- */

uint64_t shuffle_key(uint64_t seed, uint32_t job, uint32_t map, uint32_t reduce)
{
	uint64_t s = seed ^ 0x68796465ULL; /* "hyde" */
	uint64_t k = splitmix64(&s);

	k ^= (uint64_t)job * 0xd1342543de82ef95ULL;
	k = splitmix64(&k);
	k ^= (uint64_t)map * 0x9e3779b97f4a7c15ULL;
	k = splitmix64(&k);
	k ^= (uint64_t)reduce * 0xbf58476d1ce4e5b9ULL;
	return splitmix64(&k);
}

/* Word i of stream key: a counter-based mix, so any offset can be made
 * without the bytes before it. */
static inline uint64_t stream_word(uint64_t key, uint64_t i)
{
	uint64_t z = key + i * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void shuffle_fill(uint64_t key, uint64_t off, uint8_t *buf, size_t len)
{
	size_t done = 0;

	while (done < len && ((off + done) & 7)) {
		uint64_t w = stream_word(key, (off + done) >> 3);

		buf[done] = (uint8_t)(w >> (8 * ((off + done) & 7)));
		done++;
	}
	while (len - done >= 8) {
		uint64_t w = stream_word(key, (off + done) >> 3);

		memcpy(buf + done, &w, 8); /* little-endian: byte k is w >> 8k */
		done += 8;
	}
	while (done < len) {
		uint64_t w = stream_word(key, (off + done) >> 3);

		buf[done] = (uint8_t)(w >> (8 * ((off + done) & 7)));
		done++;
	}
}

size_t shuffle_check(uint64_t key, uint64_t off, const uint8_t *buf, size_t len)
{
	uint8_t tmp[4096];
	size_t done = 0, i;

	while (done < len) {
		size_t n = len - done < sizeof(tmp) ? len - done : sizeof(tmp);

		shuffle_fill(key, off + done, tmp, n);
		if (memcmp(tmp, buf + done, n))
			for (i = 0; i < n; i++)
				if (tmp[i] != buf[done + i])
					return done + i;
		done += n;
	}
	return len;
}

int64_t shuffle_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -errno : 0;
}

int emul_unix_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A line reader over a non-blocking or blocking descriptor. */
struct linebuf {
	char *b;
	size_t len, cap;
};

/* Read what is there; returns 0, or -1 at end of file, or -errno. */
static int lb_fill(struct linebuf *lb, int fd)
{
	for (;;) {
		ssize_t n;

		if (lb->cap - lb->len < 4096) {
			lb->cap = lb->cap ? lb->cap * 2 : 8192;
			lb->b = xrealloc(lb->b, lb->cap);
		}
		n = read(fd, lb->b + lb->len, lb->cap - lb->len - 1);
		if (n > 0) {
			lb->len += (size_t)n;
			continue;
		}
		if (n == 0)
			return -1;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN ? 0 : -errno;
	}
}

/* Next complete line (NUL-terminated, in place) or NULL; *consumed is how
 * much to drop afterwards with lb_drop. */
static char *lb_line(struct linebuf *lb, size_t *consumed)
{
	char *nl = memchr(lb->b, '\n', lb->len);

	if (!nl)
		return NULL;
	*nl = '\0';
	*consumed = (size_t)(nl - lb->b) + 1;
	return lb->b;
}

static void lb_drop(struct linebuf *lb, size_t n)
{
	memmove(lb->b, lb->b + n, lb->len - n);
	lb->len -= n;
}

/* ---- the shuffle service ---- */

struct part {
	uint32_t map;
	uint64_t bytes;
};

enum sconn_kind { SC_TCP, SC_REG };

struct sconn {
	int fd;
	enum sconn_kind kind;
	struct linebuf in;
	bool sending;
	uint32_t job, reduce;
	struct part *parts;
	uint32_t n_parts, cur;
	uint64_t off;	/* in parts[cur] */
	uint8_t *out;	/* generated, not yet written */
	size_t out_len, out_off;
};

struct regset {
	uint64_t *keys; /* (job << 32 | map) + 1, open addressing */
	size_t mask, n;
};

static void reg_add(struct regset *r, uint32_t job, uint32_t map)
{
	uint64_t k = ((uint64_t)job << 32 | map) + 1, h;
	size_t i;

	if ((r->n + 1) * 2 > r->mask + 1) {
		struct regset nr = { .mask = (r->mask + 1) * 2 - 1 };

		nr.keys = xcalloc(nr.mask + 1, sizeof(uint64_t));
		for (i = 0; i <= r->mask; i++)
			if (r->keys[i])
				reg_add(&nr, (uint32_t)((r->keys[i] - 1) >> 32),
					(uint32_t)(r->keys[i] - 1));
		free(r->keys);
		*r = nr;
	}
	h = k;
	for (i = splitmix64(&h) & r->mask; r->keys[i]; i = (i + 1) & r->mask)
		if (r->keys[i] == k)
			return;
	r->keys[i] = k;
	r->n++;
}

static bool reg_has(const struct regset *r, uint32_t job, uint32_t map)
{
	uint64_t k = ((uint64_t)job << 32 | map) + 1, h = k;
	size_t i;

	for (i = splitmix64(&h) & r->mask; r->keys[i]; i = (i + 1) & r->mask)
		if (r->keys[i] == k)
			return true;
	return false;
}

#define SHUFFLE_CHUNK (256 * 1024)

static void sconn_close(int ep, struct sconn *c)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->in.b);
	free(c->parts);
	free(c->out);
	free(c);
}

/* "GET job reduce n map:bytes ...": parse into c; false if malformed or a
 * map output that is not on this host. */
static bool parse_get(struct sconn *c, char *line, const struct regset *reg)
{
	char *save = NULL, *tok = strtok_r(line, " ", &save);
	uint64_t v[3];
	uint32_t i;
	int k;

	if (!tok || strcmp(tok, "GET"))
		return false;
	for (k = 0; k < 3; k++) {
		tok = strtok_r(NULL, " ", &save);
		if (!tok || parse_uint(tok, 0, UINT32_MAX, &v[k]))
			return false;
	}
	c->job = (uint32_t)v[0];
	c->reduce = (uint32_t)v[1];
	c->n_parts = (uint32_t)v[2];
	c->parts = xcalloc(c->n_parts + 1, sizeof(*c->parts));
	for (i = 0; i < c->n_parts; i++) {
		char *colon;
		uint64_t m, b;

		tok = strtok_r(NULL, " ", &save);
		if (!tok || !(colon = strchr(tok, ':')))
			return false;
		*colon = '\0';
		if (parse_uint(tok, 0, UINT32_MAX, &m) || parse_uint(colon + 1, 0, UINT64_MAX / 2, &b))
			return false;
		if (!reg_has(reg, c->job, (uint32_t)m))
			return false;
		c->parts[i] = (struct part){ (uint32_t)m, b };
	}
	return strtok_r(NULL, " ", &save) == NULL;
}

/* Write as much as the socket takes; true when everything is sent. */
static bool sconn_send(struct sconn *c, uint64_t seed, int *err)
{
	for (;;) {
		ssize_t n;

		if (c->out_off == c->out_len) {
			struct part *p;
			size_t len;

			while (c->cur < c->n_parts && c->off == c->parts[c->cur].bytes) {
				c->cur++;
				c->off = 0;
			}
			if (c->cur == c->n_parts)
				return true;
			p = &c->parts[c->cur];
			len = p->bytes - c->off < SHUFFLE_CHUNK ? (size_t)(p->bytes - c->off) : SHUFFLE_CHUNK;
			if (!c->out)
				c->out = xmalloc(SHUFFLE_CHUNK);
			shuffle_fill(shuffle_key(seed, c->job, p->map, c->reduce), c->off, c->out, len);
			c->off += len;
			c->out_len = len;
			c->out_off = 0;
		}
		n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				*err = errno;
			return false;
		}
		c->out_off += (size_t)n;
	}
}

int shuffle_serve(const char *reg_path, uint16_t port, uint64_t seed, char *errbuf)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct regset reg = { .mask = 1023 };
	struct epoll_event ev, evs[64];
	int tcp, ux, ep, one = 1, i, n;

	signal(SIGPIPE, SIG_IGN);
	reg.keys = xcalloc(reg.mask + 1, sizeof(uint64_t));
	tcp = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (tcp < 0 || setsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(tcp, (struct sockaddr *)&sin, sizeof(sin)) || listen(tcp, 1024)) {
		errbuf_set(errbuf, "shuffle service: TCP port %u: %s", port, strerror(errno));
		return -errno;
	}
	if (strlen(reg_path) >= sizeof(sun.sun_path)) {
		errbuf_set(errbuf, "shuffle service: %s: path too long", reg_path);
		return -ENAMETOOLONG;
	}
	strcpy(sun.sun_path, reg_path);
	unlink(reg_path);
	ux = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (ux < 0 || bind(ux, (struct sockaddr *)&sun, sizeof(sun)) || listen(ux, 256)) {
		errbuf_set(errbuf, "shuffle service: %s: %s", reg_path, strerror(errno));
		return -errno;
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.ptr = &tcp };
	epoll_ctl(ep, EPOLL_CTL_ADD, tcp, &ev);
	ev.data.ptr = &ux;
	epoll_ctl(ep, EPOLL_CTL_ADD, ux, &ev);
	for (;;) {
		n = epoll_wait(ep, evs, 64, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			errbuf_set(errbuf, "shuffle service: epoll: %s", strerror(errno));
			return -errno;
		}
		for (i = 0; i < n; i++) {
			struct sconn *c;
			size_t used;
			char *line;
			int fd, err = 0;

			if (evs[i].data.ptr == &tcp || evs[i].data.ptr == &ux) {
				int lfd = *(int *)evs[i].data.ptr;

				while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
					c = xcalloc(1, sizeof(*c));
					c->fd = fd;
					c->kind = lfd == tcp ? SC_TCP : SC_REG;
					ev = (struct epoll_event){ .events = EPOLLIN, .data.ptr = c };
					epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
				}
				continue;
			}
			c = evs[i].data.ptr;
			if (c->sending) {
				if (sconn_send(c, seed, &err) || err)
					sconn_close(ep, c); /* all sent (or the peer left) */
				continue;
			}
			if (lb_fill(&c->in, c->fd) && !memchr(c->in.b, '\n', c->in.len)) {
				sconn_close(ep, c);
				continue;
			}
			while ((line = lb_line(&c->in, &used))) {
				if (c->kind == SC_REG) {
					uint64_t j, m;

					if (sscanf(line, "reg %" SCNu64 " %" SCNu64, &j, &m) == 2 &&
					    j <= UINT32_MAX && m <= UINT32_MAX) {
						reg_add(&reg, (uint32_t)j, (uint32_t)m);
						write_all(c->fd, "ok\n", 3);
					} else {
						write_all(c->fd, "err\n", 4);
					}
					lb_drop(&c->in, used);
					continue;
				}
				if (!parse_get(c, line, &reg)) {
					sconn_close(ep, c); /* refused: the reduce sees a short read */
					c = NULL;
					break;
				}
				lb_drop(&c->in, used);
				c->sending = true;
				shutdown(c->fd, SHUT_RD);
				ev = (struct epoll_event){ .events = EPOLLOUT, .data.ptr = c };
				epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
				if (sconn_send(c, seed, &err) || err)
					sconn_close(ep, c);
				break;
			}
		}
	}
}

/* ---- tasks ---- */

static void do_work(int64_t ns, int cpu)
{
	int64_t end = now_ns() + ns;

	if (ns <= 0)
		return;
	if (cpu) {
		volatile uint64_t x = 0;

		while (now_ns() < end)
			for (int k = 0; k < 10000; k++)
				x += (uint64_t)k;
		return;
	}
	for (;;) {
		struct timespec ts;
		int64_t left = end - now_ns();

		if (left <= 0)
			return;
		ts.tv_sec = left / NSEC_PER_SEC;
		ts.tv_nsec = left % NSEC_PER_SEC;
		nanosleep(&ts, NULL);
	}
}

int shuffle_map_task(const char *reg_path, uint32_t job, uint32_t map,
		     int64_t ns, int cpu, char *errbuf)
{
	char line[64], reply[8];
	ssize_t n;
	int fd;

	do_work(ns, cpu);
	fd = emul_unix_connect(reg_path);
	if (fd < 0) {
		errbuf_set(errbuf, "map %u of job %u: shuffle service %s: %s", map, job,
			   reg_path, strerror(-fd));
		return fd;
	}
	snprintf(line, sizeof(line), "reg %u %u\n", job, map);
	if (write_all(fd, line, strlen(line)) || (n = read(fd, reply, sizeof(reply))) < 3 ||
	    strncmp(reply, "ok\n", 3)) {
		errbuf_set(errbuf, "map %u of job %u: the shuffle service refused its output", map, job);
		close(fd);
		return -EPROTO;
	}
	close(fd);
	return 0;
}

struct fetch {
	uint32_t flow;
	int fd;
	struct sockaddr_in srv;
	struct part *parts;
	uint32_t n_parts, cur;
	uint64_t off, total, got;
	int64_t connect_ns, est_ns, first_ns, last_ns;
	char req[64];
	bool connected;
	char *reqline;
	size_t reqlen, reqoff;
};

struct reducer {
	int ctl, ep;
	uint32_t job, reduce;
	uint64_t seed;
	struct linebuf in;
	char *errbuf;
	bool failed;
};

static void ctl_say(struct reducer *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ctl_say(struct reducer *r, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write_all(r->ctl, buf, (size_t)n))
		_exit(1); /* the controller is gone: nothing left to do */
}

static void fetch_fail(struct reducer *r, struct fetch *f, const char *why)
{
	char ip[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &f->srv.sin_addr, ip, sizeof(ip));
	ctl_say(r, "fail %u %s (from %s)", f->flow, why, ip);
	r->failed = true;
}

static void fetch_free(struct reducer *r, struct fetch *f)
{
	epoll_ctl(r->ep, EPOLL_CTL_DEL, f->fd, NULL);
	close(f->fd);
	free(f->parts);
	free(f->reqline);
	free(f);
}

/* "fetch flow srv_ip tos n map:bytes ..." */
static int fetch_start(struct reducer *r, char *line)
{
	char *save = NULL, *tok;
	struct fetch *f = xcalloc(1, sizeof(*f));
	struct epoll_event ev;
	uint64_t v, tos;
	size_t cap, len;
	uint32_t i;

	strtok_r(line, " ", &save);
	if (!(tok = strtok_r(NULL, " ", &save)) || parse_uint(tok, 0, UINT32_MAX, &v))
		goto bad;
	f->flow = (uint32_t)v;
	f->srv.sin_family = AF_INET;
	f->srv.sin_port = htons(13562);
	if (!(tok = strtok_r(NULL, " ", &save)) || inet_pton(AF_INET, tok, &f->srv.sin_addr) != 1)
		goto bad;
	if (!(tok = strtok_r(NULL, " ", &save)) || parse_uint(tok, 0, 255, &tos))
		goto bad;
	if (!(tok = strtok_r(NULL, " ", &save)) || parse_uint(tok, 1, UINT32_MAX, &v))
		goto bad;
	f->n_parts = (uint32_t)v;
	f->parts = xcalloc(f->n_parts, sizeof(*f->parts));
	cap = 64 + 32 * (size_t)f->n_parts;
	f->reqline = xmalloc(cap);
	len = (size_t)snprintf(f->reqline, cap, "GET %u %u %u", r->job, r->reduce, f->n_parts);
	for (i = 0; i < f->n_parts; i++) {
		char *colon;
		uint64_t m, b;

		if (!(tok = strtok_r(NULL, " ", &save)) || !(colon = strchr(tok, ':')))
			goto bad;
		*colon = '\0';
		if (parse_uint(tok, 0, UINT32_MAX, &m) || parse_uint(colon + 1, 0, UINT64_MAX / 2, &b))
			goto bad;
		f->parts[i] = (struct part){ (uint32_t)m, b };
		f->total += b;
		len += (size_t)snprintf(f->reqline + len, cap - len, " %" PRIu64 ":%" PRIu64, m, b);
	}
	f->reqline[len++] = '\n';
	f->reqlen = len;
	f->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (f->fd < 0) {
		fetch_fail(r, f, strerror(errno));
		free(f->parts);
		free(f->reqline);
		free(f);
		return -1;
	}
	if (tos) {
		int t = (int)tos;

		setsockopt(f->fd, IPPROTO_IP, IP_TOS, &t, sizeof(t));
	}
	f->connect_ns = shuffle_realtime_ns();
	if (connect(f->fd, (struct sockaddr *)&f->srv, sizeof(f->srv)) && errno != EINPROGRESS) {
		char why[128];

		snprintf(why, sizeof(why), "connect: %s", strerror(errno));
		fetch_fail(r, f, why);
		close(f->fd);
		free(f->parts);
		free(f->reqline);
		free(f);
		return -1;
	}
	ev = (struct epoll_event){ .events = EPOLLOUT, .data.ptr = f };
	epoll_ctl(r->ep, EPOLL_CTL_ADD, f->fd, &ev);
	return 0;
bad:
	ctl_say(r, "fail %u malformed fetch command", f->flow);
	r->failed = true;
	free(f->parts);
	free(f->reqline);
	free(f);
	return -1;
}

/* Returns true when the fetch is over (done or failed). */
static bool fetch_io(struct reducer *r, struct fetch *f)
{
	static uint8_t buf[256 * 1024];

	if (!f->connected) {
		struct sockaddr_in me;
		socklen_t sl = sizeof(me);
		char ip[INET_ADDRSTRLEN];
		int err = 0;
		struct epoll_event ev;

		getsockopt(f->fd, SOL_SOCKET, SO_ERROR, &err, &sl);
		if (err) {
			char why[128];

			snprintf(why, sizeof(why), "connect: %s", strerror(err));
			fetch_fail(r, f, why);
			return true;
		}
		f->connected = true;
		f->est_ns = shuffle_realtime_ns();
		sl = sizeof(me);
		getsockname(f->fd, (struct sockaddr *)&me, &sl);
		inet_ntop(AF_INET, &me.sin_addr, ip, sizeof(ip));
		ctl_say(r, "conn %u %s %u %u", f->flow, ip, ntohs(me.sin_port), ntohs(f->srv.sin_port));
		/* the request is small: one send, at most a few */
		while (f->reqoff < f->reqlen) {
			ssize_t n = send(f->fd, f->reqline + f->reqoff, f->reqlen - f->reqoff, MSG_NOSIGNAL);

			if (n < 0) {
				char why[128];

				if (errno == EINTR || errno == EAGAIN)
					continue;
				snprintf(why, sizeof(why), "request: %s", strerror(errno));
				fetch_fail(r, f, why);
				return true;
			}
			f->reqoff += (size_t)n;
		}
		ev = (struct epoll_event){ .events = EPOLLIN, .data.ptr = f };
		epoll_ctl(r->ep, EPOLL_CTL_MOD, f->fd, &ev);
		return false;
	}
	for (;;) {
		ssize_t n = read(f->fd, buf, sizeof(buf));
		size_t done = 0;

		if (n < 0) {
			char why[128];

			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return false;
			snprintf(why, sizeof(why), "read: %s after %" PRIu64 " of %" PRIu64 " bytes",
				 strerror(errno), f->got, f->total);
			fetch_fail(r, f, why);
			return true;
		}
		if (n == 0) {
			char why[160];

			if (f->got == f->total) {
				ctl_say(r, "done %u %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRIu64,
					f->flow, f->connect_ns, f->est_ns,
					f->first_ns < 0 ? f->est_ns : f->first_ns,
					f->last_ns < 0 ? f->est_ns : f->last_ns, f->got);
				return true;
			}
			snprintf(why, sizeof(why), "short read: %" PRIu64 " of %" PRIu64
				 " bytes, then the shuffle service closed", f->got, f->total);
			fetch_fail(r, f, why);
			return true;
		}
		if (!f->got)
			f->first_ns = shuffle_realtime_ns();
		if (f->got + (uint64_t)n > f->total) {
			fetch_fail(r, f, "more bytes than asked for");
			return true;
		}
		while (done < (size_t)n) {
			struct part *p;
			size_t take, bad;

			while (f->cur < f->n_parts && f->off == f->parts[f->cur].bytes) {
				f->cur++;
				f->off = 0;
			}
			p = &f->parts[f->cur];
			take = (size_t)n - done;
			if (take > p->bytes - f->off)
				take = (size_t)(p->bytes - f->off);
			bad = shuffle_check(shuffle_key(r->seed, r->job, p->map, r->reduce), f->off,
					    buf + done, take);
			if (bad < take) {
				char why[160];

				snprintf(why, sizeof(why), "byte %" PRIu64 " of map %u's partition is wrong",
					 f->off + bad, p->map);
				fetch_fail(r, f, why);
				return true;
			}
			f->off += take;
			done += take;
		}
		f->got += (uint64_t)n;
		if (f->got == f->total)
			f->last_ns = shuffle_realtime_ns();
	}
}

int shuffle_reduce_task(const char *ctl_path, uint32_t job, uint32_t reduce,
			uint64_t seed, char *errbuf)
{
	struct reducer r = { .job = job, .reduce = reduce, .seed = seed, .errbuf = errbuf };
	struct epoll_event ev, evs[64];
	int n, i;

	signal(SIGPIPE, SIG_IGN);
	r.ctl = emul_unix_connect(ctl_path);
	if (r.ctl < 0) {
		errbuf_set(errbuf, "reduce %u of job %u: controller %s: %s", reduce, job, ctl_path,
			   strerror(-r.ctl));
		return r.ctl;
	}
	set_nonblock(r.ctl);
	r.ep = epoll_create1(EPOLL_CLOEXEC);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.ptr = NULL };
	epoll_ctl(r.ep, EPOLL_CTL_ADD, r.ctl, &ev);
	ctl_say(&r, "hello %u %u %d", job, reduce, (int)getpid());
	for (;;) {
		n = epoll_wait(r.ep, evs, 64, -1);
		if (n < 0 && errno == EINTR)
			continue;
		for (i = 0; i < n; i++) {
			struct fetch *f = evs[i].data.ptr;

			if (f) {
				if (fetch_io(&r, f))
					fetch_free(&r, f);
				continue;
			}
			if (lb_fill(&r.in, r.ctl) && !memchr(r.in.b, '\n', r.in.len)) {
				errbuf_set(errbuf, "reduce %u of job %u: the controller went away", reduce, job);
				return -EPIPE;
			}
			for (;;) {
				size_t used;
				char *line = lb_line(&r.in, &used);
				int64_t ns;
				char work[16];

				if (!line)
					break;
				if (!strncmp(line, "fetch ", 6)) {
					fetch_start(&r, line);
				} else if (sscanf(line, "compute %" SCNd64 " %15s", &ns, work) == 2) {
					do_work(ns, !strcmp(work, "cpu"));
					ctl_say(&r, "computed");
					return 0;
				}
				lb_drop(&r.in, used);
			}
		}
	}
}
