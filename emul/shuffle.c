/* Map output and the shuffle service (shuffle.h), and the line and socket
 * helpers the task processes (task.c) share with it. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "core/log.h"
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

int emul_set_nonblock(int fd)
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

int emul_write_all(int fd, const char *buf, size_t len)
{
	bool sock = true;

	while (len) {
		ssize_t n = sock ? send(fd, buf, len, MSG_NOSIGNAL) : write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOTSOCK && sock) {
				sock = false;
				continue;
			}
			if (errno == EAGAIN) {
				/* a non-blocking descriptor whose peer is slow to
				 * read (a controller busy with hundreds of tasks):
				 * wait for room, as a blocking one would */
				struct pollfd pf = { .fd = fd, .events = POLLOUT };

				if (poll(&pf, 1, -1) < 0 && errno != EINTR)
					return -errno;
				continue;
			}
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read what is there; returns 0, or -1 at end of file, -EMSGSIZE when max
 * bytes are held and none is an end of line, or another -errno. */
int emul_lb_fill(struct linebuf *lb, int fd)
{
	for (;;) {
		size_t room;
		ssize_t n;

		if (lb->max && lb->len >= lb->max)
			return memchr(lb->b, '\n', lb->len) ? 0 : -EMSGSIZE;
		if (lb->cap - lb->len < 4096) {
			lb->cap = lb->cap ? lb->cap * 2 : 8192;
			if (lb->max && lb->cap > lb->max + 1)
				lb->cap = lb->max + 1;
			lb->b = xrealloc(lb->b, lb->cap);
		}
		room = lb->cap - lb->len - 1;
		if (lb->max && room > lb->max - lb->len)
			room = lb->max - lb->len;
		n = read(fd, lb->b + lb->len, room);
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
char *emul_lb_line(struct linebuf *lb, size_t *consumed)
{
	char *nl = lb->len ? memchr(lb->b, '\n', lb->len) : NULL;

	if (!nl)
		return NULL;
	*nl = '\0';
	*consumed = (size_t)(nl - lb->b) + 1;
	return lb->b;
}

void emul_lb_drop(struct linebuf *lb, size_t n)
{
	memmove(lb->b, lb->b + n, lb->len - n);
	lb->len -= n;
}

/* ---- requests ---- */

/* The next word of [*p, end): blanks (space, tab) separate words. Returns
 * its length (0 at the end) and leaves *p at its start. */
static size_t next_word(const char **p, const char *end)
{
	const char *w = *p, *e;

	while (w < end && (*w == ' ' || *w == '\t'))
		w++;
	for (e = w; e < end && *e != ' ' && *e != '\t'; e++)
		;
	*p = w;
	return (size_t)(e - w);
}

/* A decimal number of len digits, at most max. */
static int word_uint(const char *w, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!len || len > 20)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned d = (unsigned char)w[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* Copy a word for a message: at most 24 characters, printable only. */
static const char *word_show(const char *w, size_t len, char *buf, size_t size)
{
	size_t i, n = len < 24 ? len : 24;

	for (i = 0; i < n && i + 1 < size; i++)
		buf[i] = w[i] >= 0x20 && w[i] < 0x7f ? w[i] : '?';
	buf[i] = '\0';
	if (len > n && i + 4 < size)
		strcpy(buf + i, "...");
	return buf;
}

int shuffle_req_parse(const char *line, size_t len, struct shuffle_req *req,
		      char *errbuf)
{
	static const char *const what[3] = { "a job number", "a reduce number",
					     "a count of partitions" };
	const char *p = line, *end = line + len;
	uint64_t v[3];
	char show[32];
	uint32_t i;
	size_t wl;
	int k;

	memset(req, 0, sizeof(*req));
	wl = next_word(&p, end);
	if (wl != 3 || memcmp(p, "GET", 3)) {
		errbuf_set(errbuf, "expected 'GET', got '%s'", word_show(p, wl, show, sizeof(show)));
		return -EINVAL;
	}
	p += wl;
	for (k = 0; k < 3; k++) {
		wl = next_word(&p, end);
		if (word_uint(p, wl, UINT32_MAX, &v[k])) {
			errbuf_set(errbuf, "expected %s, got '%s'", what[k],
				   word_show(p, wl, show, sizeof(show)));
			return -EINVAL;
		}
		p += wl;
	}
	/* Each partition takes at least four bytes ("0:0 "): a count the
	 * line cannot hold is refused before anything is allocated. */
	if (!v[2] || v[2] > (uint64_t)(end - p) / 4 + 1) {
		errbuf_set(errbuf, "%" PRIu64 " partition(s) announced in a line that holds at most %zu",
			   v[2], (size_t)(end - p) / 4 + 1);
		return -EINVAL;
	}
	req->job = (uint32_t)v[0];
	req->reduce = (uint32_t)v[1];
	req->n_parts = (uint32_t)v[2];
	req->parts = xcalloc(req->n_parts, sizeof(*req->parts));
	for (i = 0; i < req->n_parts; i++) {
		const char *colon;
		uint64_t m, b;

		wl = next_word(&p, end);
		colon = wl ? memchr(p, ':', wl) : NULL;
		if (!colon || word_uint(p, (size_t)(colon - p), UINT32_MAX, &m) ||
		    word_uint(colon + 1, wl - (size_t)(colon - p) - 1, UINT64_MAX / 2, &b)) {
			errbuf_set(errbuf, "partition %u of %u: expected MAP:BYTES, got '%s'", i + 1,
				   req->n_parts, word_show(p, wl, show, sizeof(show)));
			shuffle_req_free(req);
			return -EINVAL;
		}
		req->parts[i] = (struct shuffle_part){ (uint32_t)m, b };
		p += wl;
	}
	wl = next_word(&p, end);
	if (wl) {
		errbuf_set(errbuf, "%u partition(s) announced, more given ('%s')", req->n_parts,
			   word_show(p, wl, show, sizeof(show)));
		shuffle_req_free(req);
		return -EINVAL;
	}
	return 0;
}

void shuffle_req_free(struct shuffle_req *req)
{
	free(req->parts);
	req->parts = NULL;
	req->n_parts = 0;
}

int shuffle_reg_parse(const char *line, size_t len, uint32_t *job, uint32_t *map)
{
	const char *p = line, *end = line + len;
	uint64_t j, m;
	size_t wl;

	wl = next_word(&p, end);
	if (wl != 3 || memcmp(p, "reg", 3))
		return -EINVAL;
	p += wl;
	wl = next_word(&p, end);
	if (word_uint(p, wl, UINT32_MAX, &j))
		return -EINVAL;
	p += wl;
	wl = next_word(&p, end);
	if (word_uint(p, wl, UINT32_MAX, &m))
		return -EINVAL;
	p += wl;
	if (next_word(&p, end))
		return -EINVAL;
	*job = (uint32_t)j;
	*map = (uint32_t)m;
	return 0;
}

/* ---- the shuffle service ---- */

enum sconn_kind { SC_TCP, SC_REG };

/* A connection. While it waits for its request it is on the server's
 * `waiting` list, while it sends on `sending`; each list is in the order
 * of `since`, as every connection on one list has the same time limit, so
 * the first is always the next to expire. */
struct sconn {
	struct sconn *prev, *next;
	int fd;
	enum sconn_kind kind;
	struct linebuf in;
	bool sending;
	int64_t since; /* accepted, last request line, or last byte sent */
	struct shuffle_req req;
	uint32_t cur;
	uint64_t off;	/* in req.parts[cur] */
	uint8_t *out;	/* generated, not yet written */
	size_t out_len, out_off;
	char peer[64];
	struct prio_mark mark;	 /* its band as it goes */
	uint64_t total, written; /* bytes of the request, written so far */
};

struct sconn_list {
	struct sconn *head, *tail;
};

struct regset {
	uint64_t *keys; /* (job << 32 | map) + 1, open addressing */
	size_t mask, n;
};

struct sserver {
	const struct shuffle_serve_opts *o;
	int ep, tcp, ux;
	bool paused; /* listeners out of epoll: no descriptor to accept with */
	unsigned n_conns, max_conns;
	struct regset reg;
	struct sconn_list waiting, sending;
	struct log_ratelimit rl;
};

static void list_del(struct sconn_list *l, struct sconn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		l->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		l->tail = c->prev;
	c->prev = c->next = NULL;
}

static void list_add_tail(struct sconn_list *l, struct sconn *c)
{
	c->next = NULL;
	c->prev = l->tail;
	if (l->tail)
		l->tail->next = c;
	else
		l->head = c;
	l->tail = c;
}

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

static void listeners_enable(struct sserver *s, bool on)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (on == !s->paused)
		return;
	s->paused = !on;
	ev.data.ptr = &s->tcp;
	epoll_ctl(s->ep, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, s->tcp, &ev);
	ev.data.ptr = &s->ux;
	epoll_ctl(s->ep, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, s->ux, &ev);
}

static void sconn_close(struct sserver *s, struct sconn *c)
{
	list_del(c->sending ? &s->sending : &s->waiting, c);
	epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
	prio_mark_end(&c->mark);
	close(c->fd);
	free(c->in.b);
	shuffle_req_free(&c->req);
	free(c->out);
	free(c);
	s->n_conns--;
	listeners_enable(s, true); /* a descriptor is free again */
}

/* Write as much as the socket takes; true when everything is sent. */
static bool sconn_send(struct sconn *c, uint64_t seed, int *err)
{
	for (;;) {
		ssize_t n;

		if (c->out_off == c->out_len) {
			struct shuffle_part *p;
			size_t len;

			while (c->cur < c->req.n_parts && c->off == c->req.parts[c->cur].bytes) {
				c->cur++;
				c->off = 0;
			}
			if (c->cur == c->req.n_parts)
				return true;
			p = &c->req.parts[c->cur];
			len = p->bytes - c->off < SHUFFLE_CHUNK ? (size_t)(p->bytes - c->off) : SHUFFLE_CHUNK;
			if (!c->out)
				c->out = xmalloc(SHUFFLE_CHUNK);
			shuffle_fill(shuffle_key(seed, c->req.job, p->map, c->req.reduce), c->off,
				     c->out, len);
			c->off += len;
			c->out_len = len;
			c->out_off = 0;
		}
		prio_mark_update(&c->mark, c->fd, c->written, c->total);
		n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				*err = errno;
			return false;
		}
		c->out_off += (size_t)n;
		c->written += (uint64_t)n;
	}
}

static void sconn_accept(struct sserver *s, int lfd)
{
	for (;;) {
		struct sockaddr_in sin;
		socklen_t sl = sizeof(sin);
		struct epoll_event ev;
		struct sconn *c;
		int fd;

		fd = accept4(lfd, (struct sockaddr *)&sin, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				/* the listeners would stay readable and spin the
				 * loop: listen again once a connection closes */
				log_warnx_rl(&s->rl, "shuffle service: cannot accept (%s, %u connections): pausing until one closes",
					     strerror(errno), s->n_conns);
				if (s->n_conns)
					listeners_enable(s, false);
			}
			return;
		}
		if (s->n_conns >= s->max_conns) {
			log_warnx_rl(&s->rl, "shuffle service: %u connections open: refused one more",
				     s->n_conns);
			close(fd);
			continue;
		}
		c = xcalloc(1, sizeof(*c));
		c->fd = fd;
		c->kind = lfd == s->tcp ? SC_TCP : SC_REG;
		c->in.max = SHUFFLE_REQ_MAX;
		c->since = now_ns();
		if (c->kind == SC_TCP) {
			char ip[INET_ADDRSTRLEN] = "?";

			inet_ntop(AF_INET, &sin.sin_addr, ip, sizeof(ip));
			snprintf(c->peer, sizeof(c->peer), "%s:%u", ip, ntohs(sin.sin_port));
		} else {
			snprintf(c->peer, sizeof(c->peer), "a local client");
		}
		ev = (struct epoll_event){ .events = EPOLLIN, .data.ptr = c };
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev)) {
			close(fd);
			free(c);
			continue;
		}
		list_add_tail(&s->waiting, c);
		s->n_conns++;
	}
}

/* A registration connection: answer each "reg" line. */
static void sconn_reg_lines(struct sserver *s, struct sconn *c)
{
	size_t used;
	char *line;

	while ((line = emul_lb_line(&c->in, &used))) {
		uint32_t j, m;

		if (!shuffle_reg_parse(line, used - 1, &j, &m)) {
			reg_add(&s->reg, j, m);
			emul_write_all(c->fd, "ok\n", 3);
		} else {
			log_warnx_rl(&s->rl, "shuffle service: %s: malformed registration (%zu bytes)",
				     c->peer, used - 1);
			emul_write_all(c->fd, "err\n", 4);
		}
		emul_lb_drop(&c->in, used);
		/* each line restarts the clock */
		c->since = now_ns();
		list_del(&s->waiting, c);
		list_add_tail(&s->waiting, c);
	}
}

/* A fetch connection with its request line: start sending, or refuse
 * (close at once: the reduce sees a short read and names the fetch). */
static void sconn_request(struct sserver *s, struct sconn *c, char *line, size_t len)
{
	char why[HYDE_ERRBUF_SIZE];
	struct epoll_event ev;
	uint32_t i;
	int err = 0;

	if (shuffle_req_parse(line, len, &c->req, why)) {
		log_warnx_rl(&s->rl, "shuffle service: %s: malformed request (%zu bytes): %s",
			     c->peer, len, why);
		sconn_close(s, c);
		return;
	}
	for (i = 0; i < c->req.n_parts; i++)
		if (!reg_has(&s->reg, c->req.job, c->req.parts[i].map)) {
			log_warnx_rl(&s->rl, "shuffle service: %s: map %u of job %u is not on this host: refused",
				     c->peer, c->req.parts[i].map, c->req.job);
			sconn_close(s, c);
			return;
		}
	list_del(&s->waiting, c);
	c->sending = true;
	c->since = now_ns();
	list_add_tail(&s->sending, c);
	for (i = 0; i < c->req.n_parts; i++)
		c->total += c->req.parts[i].bytes;
	prio_mark_start(&c->mark, &s->o->prio, c->fd, shuffle_realtime_ns());
	free(c->in.b);
	c->in = (struct linebuf){ 0 };
	shutdown(c->fd, SHUT_RD);
	ev = (struct epoll_event){ .events = EPOLLOUT, .data.ptr = c };
	epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev);
	if (sconn_send(c, s->o->seed, &err) || err)
		sconn_close(s, c);
}

static void sconn_io(struct sserver *s, struct sconn *c)
{
	size_t used;
	char *line;
	int r, err = 0;

	if (c->sending) {
		uint64_t before = c->off, cur = c->cur;
		size_t out_off = c->out_off;

		if (sconn_send(c, s->o->seed, &err) || err) {
			sconn_close(s, c); /* all sent (or the peer left) */
			return;
		}
		if (c->off != before || c->cur != cur || c->out_off != out_off) {
			c->since = now_ns();
			list_del(&s->sending, c);
			list_add_tail(&s->sending, c);
		}
		return;
	}
	r = emul_lb_fill(&c->in, c->fd);
	if (r == -EMSGSIZE) {
		log_warnx_rl(&s->rl, "shuffle service: %s: request longer than %d bytes: refused",
			     c->peer, SHUFFLE_REQ_MAX);
		sconn_close(s, c);
		return;
	}
	if (c->kind == SC_REG) {
		sconn_reg_lines(s, c);
		if (r) {
			if (c->in.len)
				log_warnx_rl(&s->rl, "shuffle service: %s: left with %zu bytes of an unfinished line",
					     c->peer, c->in.len);
			sconn_close(s, c);
		}
		return;
	}
	line = emul_lb_line(&c->in, &used);
	if (line) {
		sconn_request(s, c, line, used - 1);
		return;
	}
	if (r) {
		if (c->in.len)
			log_warnx_rl(&s->rl, "shuffle service: %s: truncated request (%zu bytes, then %s)",
				     c->peer, c->in.len, r == -1 ? "end of file" : strerror(-r));
		sconn_close(s, c);
	}
}

/* Close the connections past their time: a request not complete within
 * request_timeout_ns of its connection (or of the previous registration),
 * a transfer that has not moved for send_timeout_ns (if set). Called after the
 * events of a wait are handled, so that a server that was itself held up
 * reads what arrived meanwhile before it judges anyone slow. Returns the
 * time to the next expiry in ms for epoll_wait, -1 for none. */
static int sconn_expire(struct sserver *s)
{
	int64_t now = now_ns(), next = INT64_MAX;

	while (s->waiting.head && now - s->waiting.head->since >= s->o->request_timeout_ns) {
		struct sconn *c = s->waiting.head;

		log_warnx_rl(&s->rl, "shuffle service: %s: no whole request after %.1fs (%zu bytes): closed",
			     c->peer, (double)s->o->request_timeout_ns / 1e9, c->in.len);
		sconn_close(s, c);
	}
	while (s->o->send_timeout_ns && s->sending.head &&
	       now - s->sending.head->since >= s->o->send_timeout_ns) {
		struct sconn *c = s->sending.head;

		log_warnx_rl(&s->rl, "shuffle service: %s: took nothing for %.1fs (job %u, reduce %u): closed",
			     c->peer, (double)s->o->send_timeout_ns / 1e9, c->req.job, c->req.reduce);
		sconn_close(s, c);
	}
	if (s->waiting.head)
		next = s->waiting.head->since + s->o->request_timeout_ns;
	if (s->o->send_timeout_ns && s->sending.head &&
	    s->sending.head->since + s->o->send_timeout_ns < next)
		next = s->sending.head->since + s->o->send_timeout_ns;
	if (next == INT64_MAX)
		return -1;
	return next <= now ? 0 : (int)((next - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC);
}

static int serve_open(struct sserver *s, char *errbuf)
{
	const struct shuffle_serve_opts *o = s->o;
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(o->port) };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct rlimit rl;
	int one = 1, r;

	s->tcp = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->tcp < 0 || setsockopt(s->tcp, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s->tcp, (struct sockaddr *)&sin, sizeof(sin)) || listen(s->tcp, 1024)) {
		r = -errno;
		errbuf_set(errbuf, "shuffle service: TCP port %u: %s", o->port, strerror(errno));
		return r;
	}
	if (strlen(o->reg_path) >= sizeof(sun.sun_path)) {
		errbuf_set(errbuf, "shuffle service: %s: path too long", o->reg_path);
		return -ENAMETOOLONG;
	}
	strcpy(sun.sun_path, o->reg_path);
	unlink(o->reg_path);
	s->ux = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->ux < 0 || bind(s->ux, (struct sockaddr *)&sun, sizeof(sun)) ||
	    chmod(o->reg_path, 0600) || listen(s->ux, 256)) {
		r = -errno;
		errbuf_set(errbuf, "shuffle service: %s: %s", o->reg_path, strerror(errno));
		return r;
	}
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0) {
		r = -errno;
		errbuf_set(errbuf, "shuffle service: epoll: %s", strerror(errno));
		return r;
	}
	/* a connection is one descriptor: stay below the limit, with room for
	 * the listeners, epoll and the standard streams */
	s->max_conns = o->max_conns ? o->max_conns : 4096;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)s->max_conns + 16)
		s->max_conns = rl.rlim_cur > 32 ? (unsigned)rl.rlim_cur - 16 : 16;
	s->paused = true;
	listeners_enable(s, true);
	return 0;
}

int shuffle_serve(const struct shuffle_serve_opts *o, char *errbuf)
{
	struct sserver s = { .o = o, .tcp = -1, .ux = -1, .ep = -1,
			     .rl = LOG_RATELIMIT(10 * NSEC_PER_SEC, 50) };
	struct epoll_event evs[64];
	int i, n, r, timeout;

	signal(SIGPIPE, SIG_IGN);
	s.reg.mask = 1023;
	s.reg.keys = xcalloc(s.reg.mask + 1, sizeof(uint64_t));
	r = serve_open(&s, errbuf);
	if (r)
		goto out;
	for (timeout = -1;; timeout = sconn_expire(&s)) {
		n = epoll_wait(s.ep, evs, 64, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			errbuf_set(errbuf, "shuffle service: epoll: %s", strerror(errno));
			goto out;
		}
		for (i = 0; i < n; i++) {
			if (evs[i].data.ptr == &s.tcp || evs[i].data.ptr == &s.ux) {
				if (!s.paused)
					sconn_accept(&s, *(int *)evs[i].data.ptr);
				continue;
			}
			sconn_io(&s, evs[i].data.ptr);
		}
	}
out:
	while (s.waiting.head)
		sconn_close(&s, s.waiting.head);
	while (s.sending.head)
		sconn_close(&s, s.sending.head);
	free(s.reg.keys);
	if (s.ep >= 0)
		close(s.ep);
	if (s.tcp >= 0)
		close(s.tcp);
	if (s.ux >= 0)
		close(s.ux);
	return r;
}
