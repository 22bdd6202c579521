/* The task processes (task.h): a map reads its input and works; a reduce
 * fetches map output, works and writes its output through the data
 * services' pipeline. One epoll loop over the controller's socket and
 * every transfer under way. */
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
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <hyde/model.h>

#include "core/util.h"
#include "emul/datanode.h"
#include "emul/shuffle.h"
#include "emul/task.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

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

/* In a container: burn `cores` of CPU for ns, measured on the process's
 * own CPU clock, in slices of at most 1ms; a task the cgroup or the box
 * held back keeps burning after ns until it has had its share (a task's
 * work is CPU, not time). */
static void burn(int64_t ns, double cores)
{
	int64_t start = now_ns(), want_total = (int64_t)((double)ns * cores), t0;
	struct timespec ts;
	volatile uint64_t x = 0;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	t0 = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	for (;;) {
		int64_t el = now_ns() - start, used, want;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		used = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec - t0;
		if (el >= ns && used >= want_total)
			return;
		want = el >= ns ? want_total : (int64_t)((double)el * cores);
		if (used < want) {
			int64_t stop = used + (want - used < 1000000 ? want - used : 1000000);

			while (used < stop) {
				for (int k = 0; k < 2000; k++)
					x += (uint64_t)k;
				clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
				used = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec - t0;
			}
			continue;
		}
		/* ahead: sleep until the share catches up (at most 10ms) */
		{
			int64_t until = cores > 0 ? (int64_t)((double)used / cores) : ns;
			int64_t nap = until - el;

			if (nap > 10000000)
				nap = 10000000;
			if (el < ns && nap > ns - el)
				nap = ns - el;
			if (nap < 100000)
				nap = 100000;
			ts.tv_sec = nap / NSEC_PER_SEC;
			ts.tv_nsec = nap % NSEC_PER_SEC;
			nanosleep(&ts, NULL);
		}
	}
}

/* In a container: take and touch the memory the task holds. The cgroup
 * counts the pages touched once the process is in it, which the
 * controller's first line says ("contained", sent as it joins; its code's
 * own pages were counted where it started).
 * The kernel fills them in one call (MADV_POPULATE_WRITE, Linux 5.14; an
 * older one, page by page): touched one by one they cost a fault each,
 * 55 ms of CPU for 16 MB on this kind of VM against 3 ms in one call,
 * and the container's quota (its cores x cpu_scale + 0.25) stretched that
 * over periods: on rack8 x fb-small, cobra's maps read their input a
 * median 140 ms after they started (the fluid model: at once). NULL if it
 * cannot have them. */
static char *hold_memory(size_t bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t k;

	if (m == MAP_FAILED)
		return NULL;
	if (madvise(m, bytes, MADV_POPULATE_WRITE))
		for (k = 0; k < bytes; k += (size_t)page)
			m[k] = (char)k;
	return m;
}

/* A map's output joins its host's shuffle service, which serves it from
 * then on. */
static int register_output(const struct task_opts *o, char *errbuf)
{
	char line[64], reply[8];
	ssize_t n;
	int fd;

	fd = emul_unix_connect(o->reg_path);
	if (fd < 0) {
		errbuf_set(errbuf, "map %u of job %u: shuffle service %s: %s", o->idx, o->job,
			   o->reg_path, strerror(-fd));
		return fd;
	}
	snprintf(line, sizeof(line), "reg %u %u\n", o->job, o->idx);
	if (emul_write_all(fd, line, strlen(line)) || (n = read(fd, reply, sizeof(reply))) < 3 ||
	    strncmp(reply, "ok\n", 3)) {
		errbuf_set(errbuf, "map %u of job %u: the shuffle service refused its output", o->idx,
			   o->job);
		close(fd);
		return -EPROTO;
	}
	close(fd);
	return 0;
}

/* What an epoll event's data.ptr points at. */
enum xtype { X_FETCH = 1, X_DN };

struct fetch {
	enum xtype type;	   /* first: X_FETCH */
	struct fetch *prev, *next; /* the reducer's fetches under way */
	uint64_t said;		   /* the bytes the last prog line said */
	uint32_t flow;
	int fd;
	struct sockaddr_in srv;
	struct shuffle_part *parts;
	uint32_t n_parts, cur;
	uint64_t off, total, got;
	int64_t connect_ns, est_ns, first_ns, last_ns;
	char req[64];
	bool connected;
	char *reqline;
	size_t reqlen, reqoff;
};

/* An input read or an output write through a data service. */
struct dnx {
	enum xtype type; /* first: X_DN */
	struct dnx *prev, *next;
	struct dn_xfer *x;
	uint32_t flow;
	uint32_t hop_flow[DN_MAX_PIPELINE]; /* a write: the flows of the later hops */
	unsigned n_hop_flows;
	bool conn_said;
	uint64_t said;
};

struct reducer {
	int ctl, ep;
	int kind; /* enum hyde_task_kind */
	uint32_t job, reduce; /* reduce: the task's index, a map's too */
	uint64_t seed;
	struct linebuf in;
	struct fetch *fetches;
	struct dnx *dnxs;
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
	if (emul_write_all(r->ctl, buf, (size_t)n))
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
	if (f->prev)
		f->prev->next = f->next;
	else
		r->fetches = f->next;
	if (f->next)
		f->next->prev = f->prev;
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

	f->type = X_FETCH;
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
		f->parts[i] = (struct shuffle_part){ (uint32_t)m, b };
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
	f->next = r->fetches;
	if (r->fetches)
		r->fetches->prev = f;
	r->fetches = f;
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
			struct shuffle_part *p;
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

/* ---- reads and writes through the data services ---- */

static void dnx_free(struct reducer *r, struct dnx *d)
{
	if (d->prev)
		d->prev->next = d->next;
	else
		r->dnxs = d->next;
	if (d->next)
		d->next->prev = d->prev;
	dn_xfer_free(d->x);
	free(d);
}

static struct dnx *dnx_add(struct reducer *r, struct dn_xfer *x, uint32_t flow)
{
	struct dnx *d = xcalloc(1, sizeof(*d));

	d->type = X_DN;
	d->x = x;
	d->flow = flow;
	d->next = r->dnxs;
	if (r->dnxs)
		r->dnxs->prev = d;
	r->dnxs = d;
	return d;
}

static void dnx_fail(struct reducer *r, uint32_t flow, const char *why)
{
	ctl_say(r, "fail %u %s", flow, why);
	r->failed = true;
}

static int dnx_start(struct reducer *r, struct dnx *d, struct in_addr ip)
{
	struct sockaddr_in srv = { .sin_family = AF_INET, .sin_port = htons(DN_PORT), .sin_addr = ip };

	if (dn_xfer_start(d->x, r->ep, d, &srv, 0)) {
		dnx_fail(r, d->flow, d->x->err);
		dnx_free(r, d);
		return -1;
	}
	return 0;
}

/* "read <flow> <srv_ip> <uid> <off> <len>" */
static void read_start(struct reducer *r, const char *line)
{
	char ip[32];
	uint64_t flow, uid, off, len;
	struct in_addr a;

	if (sscanf(line, "read %" SCNu64 " %31s %" SCNu64 " %" SCNu64 " %" SCNu64, &flow, ip, &uid,
		   &off, &len) != 5 || flow > UINT32_MAX || inet_pton(AF_INET, ip, &a) != 1 ||
	    r->kind != HYDE_MAP) {
		dnx_fail(r, (uint32_t)flow, "malformed read command");
		return;
	}
	dnx_start(r, dnx_add(r, dn_read_new(r->seed, uid, off, len), (uint32_t)flow), a);
}

/* "write <flow> <uid> <len> <ip>[,<ip>...] <hop>[,<hop>...]|-": the
 * first address is the data service written to, the others its
 * pipeline. */
static void write_start(struct reducer *r, char *line)
{
	char ips[DN_MAX_PIPELINE * 20 + 32], hops[DN_MAX_PIPELINE * 12 + 16], *tok, *save = NULL;
	struct in_addr a[DN_MAX_PIPELINE + 1];
	uint64_t flow, uid, len, v;
	unsigned n = 0, k = 0;
	struct dnx *d;

	if (sscanf(line, "write %" SCNu64 " %" SCNu64 " %" SCNu64 " %191s %111s", &flow, &uid, &len,
		   ips, hops) != 5 || flow > UINT32_MAX || r->kind != HYDE_REDUCE)
		goto bad;
	for (tok = strtok_r(ips, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (n > DN_MAX_PIPELINE || inet_pton(AF_INET, tok, &a[n++]) != 1)
			goto bad;
	if (!n)
		goto bad;
	d = dnx_add(r, dn_write_new(r->seed, uid, len, a + 1, n - 1), (uint32_t)flow);
	save = NULL;
	if (strcmp(hops, "-"))
		for (tok = strtok_r(hops, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (k == DN_MAX_PIPELINE || parse_uint(tok, 0, UINT32_MAX, &v)) {
				dnx_free(r, d);
				goto bad;
			}
			d->hop_flow[k++] = (uint32_t)v;
		}
	d->n_hop_flows = k;
	if (k != n - 1) {
		dnx_free(r, d);
		goto bad;
	}
	dnx_start(r, d, a[0]);
	return;
bad:
	dnx_fail(r, (uint32_t)flow, "malformed write command");
}

static void hop_addr(const struct dn_hop *h, char *cli, char *srv)
{
	inet_ntop(AF_INET, &h->cli_ip, cli, INET_ADDRSTRLEN);
	inet_ntop(AF_INET, &h->srv_ip, srv, INET_ADDRSTRLEN);
}

/* An event of a read or write; true when it is over (reported). */
static bool dnx_io(struct reducer *r, struct dnx *d, uint32_t events)
{
	int st = dn_xfer_event(d->x, events);
	char cli[INET_ADDRSTRLEN], srv[INET_ADDRSTRLEN];
	const struct dn_hop *h = &d->x->conn;
	unsigned k;

	if (!d->conn_said && (d->x->connected || st > 0)) {
		hop_addr(h, cli, srv);
		ctl_say(r, "conn %u %s %u %u", d->flow, cli, ntohs(h->cli_port), ntohs(h->srv_port));
		d->conn_said = true;
	}
	if (st == 0)
		return false;
	if (st < 0) {
		dnx_fail(r, d->flow, d->x->err);
		return true;
	}
	ctl_say(r, "done %u %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRIu64, d->flow,
		h->connect_ns, h->established_ns, h->first_byte_ns, h->last_byte_ns, h->bytes);
	for (k = 0; k < d->x->n_hops && k < d->n_hop_flows; k++) {
		const struct dn_hop *x = &d->x->hops[k];

		hop_addr(x, cli, srv);
		ctl_say(r, "hop %u %s %u %s %u %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRIu64,
			d->hop_flow[k], cli, ntohs(x->cli_port), srv, ntohs(x->srv_port), x->connect_ns,
			x->established_ns, x->first_byte_ns, x->last_byte_ns, x->bytes);
	}
	if (d->x->n_hops != d->n_hop_flows)
		dnx_fail(r, d->flow, "the pipeline reported another number of hops");
	return true;
}

/* What has arrived of every transfer under way, for the network view. */
static void say_progress(struct reducer *r)
{
	struct fetch *f;
	struct dnx *d;

	for (f = r->fetches; f; f = f->next)
		if (f->got != f->said) {
			ctl_say(r, "prog %u %" PRIu64, f->flow, f->got);
			f->said = f->got;
		}
	for (d = r->dnxs; d; d = d->next)
		if (d->x->moved != d->said) {
			ctl_say(r, "prog %u %" PRIu64, d->flow, d->x->moved);
			d->said = d->x->moved;
		}
}

static void reducer_free(struct reducer *r)
{
	while (r->fetches)
		fetch_free(r, r->fetches);
	while (r->dnxs)
		dnx_free(r, r->dnxs);
	free(r->in.b);
	close(r->ep);
	close(r->ctl);
}

#define PROGRESS_EVERY (NSEC_PER_SEC / 10)

/* One line from the controller: 1 when the process is to end, 0 on, or
 * negative (errbuf) on failure. */
static int command(struct reducer *r, const struct task_opts *o, char *line, char *errbuf)
{
	int64_t ns;
	char work[16];

	if (!strncmp(line, "fetch ", 6) && r->kind == HYDE_REDUCE) {
		fetch_start(r, line);
	} else if (!strncmp(line, "read ", 5)) {
		read_start(r, line);
	} else if (!strncmp(line, "write ", 6)) {
		write_start(r, line);
	} else if (sscanf(line, "compute %" SCNd64 " %15s", &ns, work) == 2) {
		if (o->cpu > 0)
			burn(ns, o->cpu);
		else
			do_work(ns, !strcmp(work, "cpu"));
		if (r->kind == HYDE_MAP) {
			int e = register_output(o, errbuf);

			if (e)
				return e;
			ctl_say(r, "computed");
			return 1; /* a map's work ends its process */
		}
		ctl_say(r, "computed");
	} else if (!strcmp(line, "exit")) {
		return 1;
	} else if (!strcmp(line, "contained")) {
		/* in its container's cgroup: its memory is held now (below) */
	} else {
		ctl_say(r, "fail 0 unknown command '%.64s'", line);
		r->failed = true;
	}
	return 0;
}

int task_process(const struct task_opts *o, char *errbuf)
{
	struct reducer r = { .kind = o->kind, .job = o->job, .reduce = o->idx, .seed = o->seed,
			     .errbuf = errbuf };
	const char *kind = o->kind == HYDE_MAP ? "map" : "reduce";
	struct epoll_event ev, evs[64];
	int64_t next_prog = now_ns() + PROGRESS_EVERY;
	int n, i, ret = 0;
	char *heap = NULL; /* what it holds in its container */
	bool held = false;

	signal(SIGPIPE, SIG_IGN);
	r.ctl = emul_unix_connect(o->ctl_path);
	if (r.ctl < 0) {
		errbuf_set(errbuf, "%s %u of job %u: controller %s: %s", kind, o->idx, o->job,
			   o->ctl_path, strerror(-r.ctl));
		return r.ctl;
	}
	emul_set_nonblock(r.ctl);
	r.ep = epoll_create1(EPOLL_CLOEXEC);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.ptr = NULL };
	epoll_ctl(r.ep, EPOLL_CTL_ADD, r.ctl, &ev);
	ctl_say(&r, "hello %s %u %u %d", kind, o->job, o->idx, (int)getpid());
	for (;;) {
		int64_t now = now_ns();

		n = epoll_wait(r.ep, evs, 64, (int)((next_prog > now ? next_prog - now : 0) / 1000000) + 1);
		if (n < 0 && errno == EINTR)
			continue;
		for (i = 0; i < n; i++) {
			enum xtype *x = evs[i].data.ptr;

			if (x && *x == X_FETCH) {
				struct fetch *f = (struct fetch *)x;

				if (fetch_io(&r, f))
					fetch_free(&r, f);
				continue;
			}
			if (x) {
				struct dnx *d = (struct dnx *)x;

				if (dnx_io(&r, d, evs[i].events))
					dnx_free(&r, d);
				continue;
			}
			if (emul_lb_fill(&r.in, r.ctl) && !memchr(r.in.b, '\n', r.in.len)) {
				errbuf_set(errbuf, "%s %u of job %u: the controller went away", kind,
					   o->idx, o->job);
				ret = -EPIPE;
				goto out;
			}
			for (;;) {
				size_t used;
				char *line = emul_lb_line(&r.in, &used);

				if (!line)
					break;
				if (o->mem && !held) {
					held = true;
					heap = hold_memory((size_t)o->mem);
				}
				ret = command(&r, o, line, errbuf);
				emul_lb_drop(&r.in, used);
				if (ret)
					goto out;
			}
		}
		if (now_ns() >= next_prog) {
			say_progress(&r);
			next_prog = now_ns() + PROGRESS_EVERY;
		}
	}
out:
	if (heap)
		munmap(heap, (size_t)o->mem);
	reducer_free(&r);
	return ret > 0 ? 0 : ret;
}
