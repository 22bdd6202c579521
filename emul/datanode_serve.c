/* The DataNode data service (datanode.h): one thread, one epoll loop,
 * every socket non-blocking.
 *
 * A client connection goes REQ (reading its line) -> READ (sending the
 * block) or WRITE (checking what comes, forwarding it through a relay
 * transfer to the next hop) -> REPLY (its OK or ERR line) -> closed, with
 * DRAIN after an ERR (discard input until the peer closes, so the ERR is
 * not lost to the reset a close with unread data sends).
 *
 * Timers without a heap: every connection waits on one of two lists, each
 * kept in deadline order by construction. The idle list (REQ, REPLY,
 * DRAIN) gets deadlines now + idle_ns appended and never moved; the stall
 * list (READ, WRITE) is in order of last progress, a connection moved to
 * its tail whenever a byte moves. So only the heads can be due.
 *
 * Events of one epoll_wait batch may name a connection that an earlier
 * event of the batch closed (its client socket and its relay socket are two
 * events): closed connections wait on a graveyard list until the batch is
 * over. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/log.h"
#include "core/util.h"
#include "emul/datanode.h"
#include "emul/shuffle.h"

#define SCRATCH (256 * 1024)
#define READ_CHUNK (128 * 1024)
#define DRAIN_MAX (64ULL << 20) /* discarded after an ERR before giving up */
#define BAD_PER_SEC 10		/* bad-peer lines a second */
#define ACCEPT_RETRY_NS (100 * NSEC_PER_MSEC)
/* Bytes moved per event at most: one fast client must not starve the
 * others (epoll is level-triggered: the rest comes at the next turn). */
#define BUDGET (1024 * 1024)

enum tag_kind { TAG_LISTEN, TAG_SIGNAL, TAG_UP, TAG_DOWN };

struct conn;

/* What an epoll event's data.ptr points to. */
struct tag {
	enum tag_kind kind;
	struct conn *c;
};

enum conn_state { ST_REQ, ST_READ, ST_WRITE, ST_REPLY, ST_DRAIN, ST_DEAD };

struct clist {
	struct conn *head, *tail;
};

struct conn {
	struct server *s;
	struct tag up_tag, down_tag;
	int fd;
	enum conn_state state;
	uint32_t events;	/* interest registered for fd */
	char peer[32], self[INET_ADDRSTRLEN];
	char line[DN_LINE_MAX];
	size_t line_len;
	struct dn_request req;
	uint64_t key;
	uint64_t done;		/* READ: sent; WRITE: received and checked */
	int64_t first_ns, last_ns;
	uint8_t *buf;		/* READ: generated, not yet sent */
	size_t buf_head, buf_tail;
	struct dn_xfer *down;	/* WRITE along a pipeline: to the next hop */
	char *reply;		/* REPLY */
	size_t reply_len, reply_off;
	bool reply_err, paused;
	uint64_t drained;
	struct prio_mark mark;	/* READ: its band as it goes */
	/* timer */
	struct clist *list;
	struct conn *prev, *next;
	int64_t deadline;
};

struct server {
	const struct dn_serve_opts *o;
	int ep, lfd, sfd;
	struct tag listen_tag, signal_tag;
	bool accepting;
	int64_t accept_retry; /* 0, or when to listen again after EMFILE */
	bool starved;	      /* accept has been failing for want of descriptors */
	unsigned n_conns;
	struct clist idle, stall, dead;
	uint8_t *scratch;
	int64_t bad_window;
	unsigned bad_n, bad_dropped;
};

/* ---- lists ---- */

static void list_del(struct conn *c)
{
	struct clist *l = c->list;

	if (!l)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		l->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		l->tail = c->prev;
	c->prev = c->next = NULL;
	c->list = NULL;
}

static void list_add(struct clist *l, struct conn *c, int64_t deadline)
{
	list_del(c);
	c->list = l;
	c->deadline = deadline;
	c->prev = l->tail;
	if (l->tail)
		l->tail->next = c;
	else
		l->head = c;
	l->tail = c;
}

static void wait_idle(struct conn *c)
{
	list_add(&c->s->idle, c, now_ns() + c->s->o->idle_ns);
}

/* A byte moved: the stall timeout starts again. */
static void progress(struct conn *c)
{
	list_add(&c->s->stall, c, now_ns() + c->s->o->stall_ns);
}

/* ---- logging ---- */

static void bad_flush(struct server *s, int64_t now)
{
	if (now - s->bad_window < NSEC_PER_SEC)
		return;
	if (s->bad_dropped)
		log_warnx("datanode: %u more bad or failed connection(s) in the last second, not logged",
			  s->bad_dropped);
	s->bad_window = now;
	s->bad_n = s->bad_dropped = 0;
}

/* One line per bad peer (or failed pipeline), at most BAD_PER_SEC a
 * second, the rest counted: a flood of bad peers must not turn into a
 * flood of log. */
static void bad_peer(struct conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void bad_peer(struct conn *c, const char *fmt, ...)
{
	struct server *s = c->s;
	char msg[HYDE_ERRBUF_SIZE];
	va_list ap;

	bad_flush(s, now_ns());
	if (s->bad_n == BAD_PER_SEC) {
		s->bad_dropped++;
		return;
	}
	s->bad_n++;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warnx("datanode: %s: %s", c->peer, msg);
}

/* ---- connections ---- */

static void listen_on(struct server *s, bool on)
{
	struct epoll_event ev = { .events = on ? EPOLLIN : 0, .data.ptr = &s->listen_tag };

	if (on != s->accepting && !epoll_ctl(s->ep, EPOLL_CTL_MOD, s->lfd, &ev))
		s->accepting = on;
}

static void conn_want(struct conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = &c->up_tag };

	if (events != c->events && !epoll_ctl(c->s->ep, EPOLL_CTL_MOD, c->fd, &ev))
		c->events = events;
}

static void conn_close(struct conn *c)
{
	struct server *s = c->s;

	if (c->state == ST_DEAD)
		return;
	epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
	prio_mark_end(&c->mark); /* its last bytes are in the socket */
	close(c->fd);
	dn_xfer_free(c->down);
	c->down = NULL;
	c->state = ST_DEAD;
	list_add(&s->dead, c, 0);
	s->n_conns--;
	if (!s->accept_retry)
		listen_on(s, true);
}

static void bury(struct server *s)
{
	struct conn *c;

	while ((c = s->dead.head)) {
		list_del(c);
		free(c->buf);
		free(c->reply);
		free(c);
	}
}

static void reply_send(struct conn *c)
{
	while (c->reply_off < c->reply_len) {
		ssize_t n = send(c->fd, c->reply + c->reply_off, c->reply_len - c->reply_off,
				 MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				conn_want(c, EPOLLOUT);
				return;
			}
			conn_close(c); /* the peer is gone: no one to tell */
			return;
		}
		c->reply_off += (size_t)n;
	}
	if (!c->reply_err) {
		conn_close(c);
		return;
	}
	/* Let the peer read the ERR: no reset while it may still send. */
	shutdown(c->fd, SHUT_WR);
	c->state = ST_DRAIN;
	conn_want(c, EPOLLIN);
	wait_idle(c);
}

static void reply_start(struct conn *c, char *text, size_t len, bool err)
{
	dn_xfer_free(c->down); /* an ERR: the next hop sees a cut stream */
	c->down = NULL;
	c->reply = text;
	c->reply_len = len;
	c->reply_off = 0;
	c->reply_err = err;
	c->state = ST_REPLY;
	conn_want(c, 0);
	wait_idle(c);
	reply_send(c);
}

/* ERR <where>: <why> (where: this service, named by the address the
 * client reached it at). */
static void conn_err(struct conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void conn_err(struct conn *c, const char *fmt, ...)
{
	char *text = xmalloc(HYDE_ERRBUF_SIZE + 64);
	va_list ap;
	int n;

	n = snprintf(text, HYDE_ERRBUF_SIZE + 64, "ERR %s: ", c->self);
	va_start(ap, fmt);
	n += vsnprintf(text + n, HYDE_ERRBUF_SIZE, fmt, ap);
	va_end(ap);
	if (n > HYDE_ERRBUF_SIZE + 62)
		n = HYDE_ERRBUF_SIZE + 62;
	text[n++] = '\n';
	reply_start(c, text, (size_t)n, true);
}

/* An ERR from further down (or about the next hop): passed up unchanged,
 * it already names its hop. */
static void conn_err_down(struct conn *c)
{
	size_t n = strlen(c->down->err);

	/* A connection that never came up has no local address of its own
	 * yet: this service is its client end. */
	const char *me = c->down->status != -EREMOTEIO && !strncmp(c->down->err, "-> ", 3) ? c->self : "";
	size_t k = strlen(me);
	char *text = xmalloc(n + k + 7);

	bad_peer(c, "WRITE of block %" PRIu64 ": %s%s%s", c->req.uid, me, k ? " " : "",
		 c->down->err);
	memcpy(text, "ERR ", 4);
	memcpy(text + 4, me, k);
	if (k)
		text[4 + k++] = ' ';
	memcpy(text + 4 + k, c->down->err, n);
	text[n + k + 4] = '\n';
	reply_start(c, text, n + k + 5, true);
}

static void reply_ok(struct conn *c)
{
	size_t cap = 64 + (size_t)(DN_MAX_PIPELINE + 1) * DN_HOP_LINE_MAX, len;
	char *text = xmalloc(cap);
	unsigned i;

	len = (size_t)snprintf(text, cap, "OK %u %" PRId64 " %" PRId64 "\n", c->req.n_next,
			       c->first_ns, c->last_ns);
	if (c->down) {
		len += (size_t)dn_hop_format(&c->down->conn, text + len, cap - len);
		for (i = 0; i < c->down->n_hops; i++)
			len += (size_t)dn_hop_format(&c->down->hops[i], text + len, cap - len);
	}
	reply_start(c, text, len, false);
}

/* ---- READ ---- */

static void read_send(struct conn *c)
{
	size_t sent = 0;

	while ((c->done < c->req.len || c->buf_head < c->buf_tail) && sent < BUDGET) {
		ssize_t n;

		if (c->buf_head == c->buf_tail) {
			uint64_t left = c->req.len - c->done + (c->buf_tail - c->buf_head);
			size_t k = left < READ_CHUNK ? (size_t)left : READ_CHUNK;

			shuffle_fill(c->key, c->req.off + c->done, c->buf, k);
			c->buf_head = 0;
			c->buf_tail = k;
			c->done += k;
		}
		prio_mark_update(&c->mark, c->fd, c->done - (c->buf_tail - c->buf_head), c->req.len);
		n = send(c->fd, c->buf + c->buf_head, c->buf_tail - c->buf_head, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			bad_peer(c, "READ of block %" PRIu64 ": %s after %" PRIu64 " of %" PRIu64
				 " bytes", c->req.uid, strerror(errno),
				 c->done - (c->buf_tail - c->buf_head), c->req.len);
			conn_close(c);
			return;
		}
		c->buf_head += (size_t)n;
		sent += (size_t)n;
	}
	if (c->done == c->req.len && c->buf_head == c->buf_tail) {
		conn_close(c); /* all sent: the close is the end of the block */
		return;
	}
	if (sent)
		progress(c);
}

/* ---- WRITE ---- */

/* n bytes of the block at p: check them, then forward them. */
static int write_take(struct conn *c, uint8_t *p, size_t n)
{
	size_t bad = shuffle_check(c->key, c->done, p, n);

	if (!c->done)
		c->first_ns = shuffle_realtime_ns();
	if (bad < n) {
		bad_peer(c, "WRITE of block %" PRIu64 ": byte %" PRIu64 " is wrong", c->req.uid,
			 c->done + bad);
		conn_err(c, "byte %" PRIu64 " of block %" PRIu64 " is wrong", c->done + bad,
			 c->req.uid);
		return -EBADMSG;
	}
	c->done += n;
	if (c->done == c->req.len)
		c->last_ns = shuffle_realtime_ns();
	if (c->down && dn_xfer_commit(c->down, n) < 0) {
		conn_err_down(c);
		return -EIO;
	}
	if (c->done == c->req.len && (!c->down || c->down->status == 1))
		reply_ok(c);
	return 0;
}

/* Where the next bytes from the client go, and how many: into the relay's
 * buffer, or (no next hop) into the scratch buffer, checked and dropped. */
static size_t write_room(struct conn *c, uint8_t **at)
{
	uint64_t left = c->req.len - c->done;
	size_t room;

	if (c->down) {
		room = dn_xfer_room(c->down, at);
	} else {
		*at = c->s->scratch;
		room = SCRATCH;
	}
	return left < room ? (size_t)left : room;
}

static void write_recv(struct conn *c, uint32_t events)
{
	size_t moved = 0;

	while (c->state == ST_WRITE && moved < BUDGET) {
		uint8_t *at;
		size_t room = write_room(c, &at);
		ssize_t n;

		if (c->done == c->req.len) {
			/* All in, waiting for the next hop: anything more is an
			 * error, an end of stream is fine. */
			at = c->s->scratch;
			room = 1;
		} else if (!room) {
			if (events & (EPOLLERR | EPOLLHUP)) {
				/* reset while paused: say so now, not once the relay drains */
				bad_peer(c, "WRITE of block %" PRIu64 ": the client went away after %"
					 PRIu64 " of %" PRIu64 " bytes", c->req.uid, c->done, c->req.len);
				conn_close(c);
				return;
			}
			/* The next hop is slower: stop reading, TCP's window
			 * tells the client (backpressure up the pipeline). */
			c->paused = true;
			conn_want(c, 0);
			break;
		}
		n = read(c->fd, at, room);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN) {
				bad_peer(c, "WRITE of block %" PRIu64 ": %s after %" PRIu64 " of %" PRIu64
					 " bytes", c->req.uid, strerror(errno), c->done, c->req.len);
				conn_close(c);
				return;
			}
			break;
		}
		if (n == 0) {
			if (c->done == c->req.len) {
				conn_want(c, 0); /* the client is done sending: fine */
				break;
			}
			bad_peer(c, "WRITE of block %" PRIu64 ": the stream ended after %" PRIu64 " of %"
				 PRIu64 " bytes", c->req.uid, c->done, c->req.len);
			conn_err(c, "the stream ended after %" PRIu64 " of %" PRIu64 " bytes", c->done,
				 c->req.len);
			return;
		}
		if (c->done == c->req.len) {
			bad_peer(c, "WRITE of block %" PRIu64 ": more than %" PRIu64 " bytes",
				 c->req.uid, c->req.len);
			conn_err(c, "more than %" PRIu64 " bytes", c->req.len);
			return;
		}
		moved += (size_t)n;
		if (write_take(c, at, (size_t)n))
			return;
	}
	if (moved && c->state == ST_WRITE)
		progress(c);
}

static void down_event(struct conn *c, uint32_t events)
{
	int r = dn_xfer_event(c->down, events);

	if (r < 0) {
		conn_err_down(c);
		return;
	}
	progress(c);
	if (r > 0) {
		if (c->done == c->req.len)
			reply_ok(c);
		return; /* else the relay could not have said OK */
	}
	if (c->paused) {
		uint8_t *at;

		if (write_room(c, &at)) {
			c->paused = false;
			conn_want(c, EPOLLIN);
		}
	}
}

/* ---- requests ---- */

static void request(struct conn *c, size_t line_len)
{
	struct sockaddr_in next = { .sin_family = AF_INET, .sin_port = htons(c->s->o->port) };
	size_t extra = c->line_len - line_len - 1;
	const char *why;

	if (dn_request_parse(c->line, line_len, &c->req, &why)) {
		bad_peer(c, "malformed request: %s", why);
		conn_err(c, "malformed request: %s", why);
		return;
	}
	c->key = datanode_key(c->s->o->seed, c->req.uid);
	if (c->req.op == DN_OP_READ) {
		if (extra) {
			bad_peer(c, "bytes after a READ line");
			conn_err(c, "bytes after a READ line");
			return;
		}
		c->state = ST_READ;
		c->buf = xmalloc(READ_CHUNK);
		prio_mark_start(&c->mark, &c->s->o->prio, c->fd, shuffle_realtime_ns());
		conn_want(c, EPOLLOUT);
		progress(c);
		read_send(c);
		return;
	}
	if (extra > c->req.len) {
		bad_peer(c, "WRITE of block %" PRIu64 ": more than %" PRIu64 " bytes", c->req.uid,
			 c->req.len);
		conn_err(c, "more than %" PRIu64 " bytes", c->req.len);
		return;
	}
	c->state = ST_WRITE;
	progress(c);
	if (c->req.n_next) {
		c->down = dn_relay_new(c->req.uid, c->req.len, c->req.next + 1, c->req.n_next - 1);
		next.sin_addr = c->req.next[0];
		if (dn_xfer_start(c->down, c->s->ep, &c->down_tag, &next, 0)) {
			conn_err_down(c);
			return;
		}
	}
	if (!c->req.len) {
		c->first_ns = c->last_ns = shuffle_realtime_ns();
		if (!c->down)
			reply_ok(c);
	}
	if (extra && c->state == ST_WRITE) {
		/* block bytes that came with the line */
		uint8_t *at;
		size_t room = write_room(c, &at);

		/* extra <= len, and a relay's buffer is far bigger than a line */
		if (room < extra) {
			conn_err(c, "internal: no room for %zu bytes", extra);
			return;
		}
		memcpy(at, c->line + line_len + 1, extra);
		if (write_take(c, at, extra))
			return;
	}
	if (c->state == ST_WRITE)
		conn_want(c, EPOLLIN);
}

static void req_recv(struct conn *c)
{
	for (;;) {
		ssize_t n = read(c->fd, c->line + c->line_len, sizeof(c->line) - c->line_len);
		char *nl;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN) {
				bad_peer(c, "request: %s", strerror(errno));
				conn_close(c);
			}
			return;
		}
		if (n == 0) {
			if (!c->line_len) {
				conn_close(c); /* nothing at all: a probe, not worth a line */
				return;
			}
			bad_peer(c, "request cut short: %zu bytes and no end of line", c->line_len);
			conn_err(c, "request cut short: no end of line");
			return;
		}
		nl = memchr(c->line + c->line_len, '\n', (size_t)n);
		c->line_len += (size_t)n;
		if (nl) {
			request(c, (size_t)(nl - c->line));
			return;
		}
		if (c->line_len == sizeof(c->line)) {
			bad_peer(c, "request line longer than %d bytes", DN_LINE_MAX - 1);
			conn_err(c, "request line longer than %d bytes", DN_LINE_MAX - 1);
			return;
		}
	}
}

static void drain(struct conn *c)
{
	int k;

	for (k = 0; k < BUDGET / SCRATCH; k++) {
		ssize_t n = read(c->fd, c->s->scratch, SCRATCH);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0 || (c->drained += (uint64_t)n) > DRAIN_MAX) {
			conn_close(c);
			return;
		}
	}
}

static void up_event(struct conn *c, uint32_t events)
{
	switch (c->state) {
	case ST_REQ:
		req_recv(c);
		break;
	case ST_READ:
		read_send(c);
		break;
	case ST_WRITE:
		write_recv(c, events);
		break;
	case ST_REPLY:
		reply_send(c);
		break;
	case ST_DRAIN:
		drain(c);
		break;
	case ST_DEAD:
		break;
	}
}

static void accept_all(struct server *s)
{
	for (;;) {
		struct sockaddr_in peer, self;
		socklen_t pl = sizeof(peer), sl = sizeof(self);
		struct epoll_event ev;
		struct conn *c;
		char ip[INET_ADDRSTRLEN];
		int fd;

		if (s->n_conns >= s->o->max_conns) {
			listen_on(s, false); /* the rest wait in the backlog */
			return;
		}
		fd = accept4(s->lfd, (struct sockaddr *)&peer, &pl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				/* once per shortage, not at every retry */
				if (!s->starved)
					log_warn("datanode: accept (new clients wait until a client leaves)");
				s->starved = true;
				listen_on(s, false);
				s->accept_retry = now_ns() + ACCEPT_RETRY_NS;
			} else if (errno == EAGAIN) {
				s->starved = false; /* every waiting client is in */
			}
			return;
		}
		c = xcalloc(1, sizeof(*c));
		c->s = s;
		c->fd = fd;
		c->up_tag = (struct tag){ TAG_UP, c };
		c->down_tag = (struct tag){ TAG_DOWN, c };
		c->first_ns = c->last_ns = -1;
		inet_ntop(AF_INET, &peer.sin_addr, ip, sizeof(ip));
		snprintf(c->peer, sizeof(c->peer), "%s:%u", ip, ntohs(peer.sin_port));
		if (getsockname(fd, (struct sockaddr *)&self, &sl))
			self.sin_addr.s_addr = htonl(INADDR_ANY);
		inet_ntop(AF_INET, &self.sin_addr, c->self, sizeof(c->self));
		ev = (struct epoll_event){ .events = EPOLLIN, .data.ptr = &c->up_tag };
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev)) {
			log_warn("datanode: epoll");
			close(fd);
			free(c);
			continue;
		}
		c->events = EPOLLIN;
		s->n_conns++;
		wait_idle(c);
	}
}

/* Close what is due; the time until the next deadline in ms (-1: none). */
static int expire(struct server *s)
{
	int64_t now = now_ns(), next = INT64_MAX;
	struct conn *c;

	bad_flush(s, now);
	while ((c = s->idle.head) && c->deadline <= now) {
		if (c->state == ST_REQ) {
			char line[96];
			int n = snprintf(line, sizeof(line), "ERR %s: no request line within %" PRId64
					 " ms\n", c->self, (int64_t)(s->o->idle_ns / NSEC_PER_MSEC));

			bad_peer(c, "no request line within %" PRId64 " ms (%zu bytes)",
				 (int64_t)(s->o->idle_ns / NSEC_PER_MSEC), c->line_len);
			/* best effort, no drain: an idle peer may not read */
			send(c->fd, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
		}
		conn_close(c);
	}
	while ((c = s->stall.head) && c->deadline <= now) {
		bad_peer(c, "%s of block %" PRIu64 ": no byte moved for %" PRId64 " ms (%" PRIu64
			 " of %" PRIu64 " bytes)", c->req.op == DN_OP_READ ? "READ" : "WRITE",
			 c->req.uid, (int64_t)(s->o->stall_ns / NSEC_PER_MSEC),
			 c->done - (c->buf_tail - c->buf_head), c->req.len);
		conn_close(c);
	}
	if (s->accept_retry && s->accept_retry <= now) {
		s->accept_retry = 0;
		listen_on(s, true);
	}
	if (s->idle.head)
		next = s->idle.head->deadline;
	if (s->stall.head && s->stall.head->deadline < next)
		next = s->stall.head->deadline;
	if (s->accept_retry && s->accept_retry < next)
		next = s->accept_retry;
	if (s->bad_dropped && s->bad_window + NSEC_PER_SEC < next)
		next = s->bad_window + NSEC_PER_SEC;
	if (next == INT64_MAX)
		return -1;
	next = (next - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
	return next > 60000 ? 60000 : (int)next;
}

void dn_serve_opts_default(struct dn_serve_opts *o)
{
	*o = (struct dn_serve_opts){
		.seed = 1,
		.port = DN_PORT,
		.idle_ns = 5 * NSEC_PER_SEC,
		.stall_ns = 60 * NSEC_PER_SEC,
		.max_conns = 4096,
		.ready_fd = -1,
	};
	prio_opts_default(&o->prio);
}

static int serve_setup(struct server *s, char *errbuf)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(s->o->port) };
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t sigs;
	int one = 1, r;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	signal(SIGPIPE, SIG_IGN);
	s->lfd = s->sfd = s->ep = -1;
	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->lfd < 0 || setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s->lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(s->lfd, 1024)) {
		r = -errno;
		errbuf_set(errbuf, "datanode: TCP port %u: %s", s->o->port, strerror(errno));
		goto err;
	}
	/* SIGTERM ends the loop cleanly, between two events */
	if (sigprocmask(SIG_BLOCK, &sigs, NULL) ||
	    (s->sfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
		r = -errno;
		errbuf_set(errbuf, "datanode: signalfd: %s", strerror(errno));
		goto err;
	}
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	s->listen_tag.kind = TAG_LISTEN;
	s->signal_tag.kind = TAG_SIGNAL;
	ev.data.ptr = &s->listen_tag;
	if (s->ep < 0 || epoll_ctl(s->ep, EPOLL_CTL_ADD, s->lfd, &ev)) {
		r = -errno;
		errbuf_set(errbuf, "datanode: epoll: %s", strerror(errno));
		goto err;
	}
	ev.data.ptr = &s->signal_tag;
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->sfd, &ev)) {
		r = -errno;
		errbuf_set(errbuf, "datanode: epoll: %s", strerror(errno));
		goto err;
	}
	s->accepting = true;
	s->scratch = xmalloc(SCRATCH);
	return 0;
err:
	if (s->ep >= 0)
		close(s->ep);
	if (s->sfd >= 0)
		close(s->sfd);
	if (s->lfd >= 0)
		close(s->lfd);
	return r;
}

static void serve_teardown(struct server *s)
{
	struct clist *lists[] = { &s->idle, &s->stall };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lists); i++)
		while (lists[i]->head)
			conn_close(lists[i]->head);
	bury(s);
	close(s->ep);
	close(s->sfd);
	close(s->lfd);
	free(s->scratch);
}

int dn_serve(const struct dn_serve_opts *o, char *errbuf)
{
	struct server s = { .o = o };
	struct epoll_event evs[64];
	int r, i, n, timeout = -1;

	if ((r = serve_setup(&s, errbuf)))
		return r;
	/* listening: whoever started it may send clients now */
	if (o->ready_fd >= 0 && (write(o->ready_fd, "ready\n", 6) != 6 || close(o->ready_fd)))
		log_warn("datanode: cannot say it is ready");
	for (;;) {
		n = epoll_wait(s.ep, evs, ARRAY_SIZE(evs), timeout);
		if (n < 0 && errno != EINTR) {
			r = -errno;
			errbuf_set(errbuf, "datanode: epoll: %s", strerror(errno));
			break;
		}
		for (i = 0; i < n; i++) {
			struct tag *t = evs[i].data.ptr;

			if (t->kind == TAG_LISTEN) {
				accept_all(&s);
			} else if (t->kind == TAG_SIGNAL) {
				r = 0;
				goto out;
			} else if (t->c->state == ST_DEAD) {
				continue; /* closed earlier in this batch */
			} else if (t->kind == TAG_UP) {
				up_event(t->c, evs[i].events);
			} else if (t->c->down) {
				down_event(t->c, evs[i].events);
			}
		}
		bury(&s);
		timeout = expire(&s);
		bury(&s);
	}
out:
	serve_teardown(&s);
	return r;
}
