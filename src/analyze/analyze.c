/* hyde analyze: rebuild every connection of a run (shuffle fetches, HDFS
 * input reads and output writes) from its captures and join it to its
 * flow, coflow and job (see analyze.h).
 *
 * Which capture measures what (emul/README.md names the ports):
 * - the data receiver's ToR host port (tor<k>-h<i> for r<k>h<i>: the
 *   client of a fetch or a read, the server of a write) sees the SYN,
 *   every data segment that reached the receiver and its ACKs: it gives
 *   the FCT (tcpconn.h) and the retransmitted bytes;
 * - tor<k>-up and tor<k>-ocs of the receiver's rack k see the data arrive
 *   over the EPS or the OCS: they give the bytes per path, each byte
 *   counted once per port type (the sender rack's port sees the same
 *   bytes leave and is not counted again);
 * - every capture is checked for TCP connections the manifest does not
 *   list, which are reported, never dropped silently.
 * Host ports are read first, so that the path ports can tell the instances
 * of a reused 4-tuple apart by their SYN times. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hyde/model.h>

#include "analyze/analyze_int.h"
#include "analyze/pcap_read.h"
#include "analyze/plot.h"
#include "analyze/timeline.h"
#include "analyze/tcpconn.h"
#include "core/log.h"
#include "core/util.h"
#include "emul/capture.h"
#include "core/rundir.h"

/* A connect() and the SYN it sends are microseconds apart on one clock;
 * this slack only absorbs the order of app and capture timestamps. */
#define CONNECT_SLACK_NS (1 * NSEC_PER_MSEC)
/* A closed connection's record is kept this long (capture time) to absorb
 * its last packets: Linux's TIME_WAIT is 60 s. */
#define CLOSED_KEEP_NS (120 * NSEC_PER_SEC)
#define PURGE_EVERY_NS (10 * NSEC_PER_SEC)
#define DEFAULT_LIST_UNKNOWN 100

static const char *const an_plot_names[] = {
	"fct_cdf.png", "cct_cdf.png", "path_bytes.png", "timeline.png",
};

void an_warn(struct an_state *st, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_warnx("analyze: %s", buf);
	xgrow((void **)&st->warnings, &st->cap_warnings, st->n_warnings + 1,
	      sizeof(*st->warnings));
	st->warnings[st->n_warnings++] = xstrdup(buf);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least p of the set at or below. */
static int64_t rank(const int64_t *sorted, size_t n, double p)
{
	size_t k = (size_t)((double)n * p + 0.999999999);

	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return sorted[k - 1];
}

void analyze_dist_of(int64_t *v, size_t n, struct analyze_dist *d)
{
	double sum = 0;
	size_t i;

	d->n = n;
	if (!n) {
		d->median = d->p99 = d->max = -1;
		d->mean = -1;
		return;
	}
	xqsort(v, n, sizeof(*v), cmp_i64);
	for (i = 0; i < n; i++)
		sum += (double)v[i];
	d->mean = sum / (double)n;
	d->median = rank(v, n, 0.5);
	d->p99 = rank(v, n, 0.99);
	d->max = v[n - 1];
}

/* ---- the manifest's index ---- */

static const struct an_run *order_run;

static int cmp_order(const void *a, const void *b)
{
	const struct an_flow *x = &order_run->flows[*(const size_t *)a];
	const struct an_flow *y = &order_run->flows[*(const size_t *)b];

#define CMP(f) \
	if (x->f != y->f) \
		return x->f < y->f ? -1 : 1
	CMP(cli_ip);
	CMP(srv_ip);
	CMP(cli_port);
	CMP(srv_port);
	/* unknown connect times last, then manifest order */
	if ((x->connect_ns < 0) != (y->connect_ns < 0))
		return x->connect_ns < 0 ? 1 : -1;
	CMP(connect_ns);
	CMP(line);
#undef CMP
	return 0;
}

static struct tuple flow_key(const struct an_flow *f)
{
	return (struct tuple){ .a_ip = f->cli_ip, .b_ip = f->srv_ip,
			       .a_port = f->cli_port, .b_port = f->srv_port };
}

static void build_index(struct an_state *st)
{
	const struct an_run *r = st->run;
	size_t i, ng = 0;

	st->order = xmalloc((r->n_flows ? r->n_flows : 1) * sizeof(*st->order));
	st->groups = xmalloc((r->n_flows ? r->n_flows : 1) * sizeof(*st->groups));
	for (i = 0; i < r->n_flows; i++)
		st->order[i] = i;
	order_run = r;
	xqsort(st->order, r->n_flows, sizeof(*st->order), cmp_order);
	tuplemap_init(&st->index);
	for (i = 0; i < r->n_flows; i++) {
		const struct an_flow *f = &r->flows[st->order[i]];
		struct tuple k = flow_key(f);

		if (f->path == AN_PATH_HOST)
			continue; /* loopback: in no capture */
		if (ng && i > 0 && st->groups[ng - 1].start + st->groups[ng - 1].n == i) {
			const struct an_flow *prev = &r->flows[st->order[i - 1]];
			struct tuple pk = flow_key(prev);

			if (!memcmp(&pk, &k, sizeof(k)) && prev->path != AN_PATH_HOST) {
				st->groups[ng - 1].n++;
				continue;
			}
		}
		st->groups[ng] = (struct an_group){ .start = i, .n = 1 };
		tuplemap_put(&st->index, &k, &st->groups[ng]);
		ng++;
	}
}

/* The manifest lines of p's 4-tuple, and p's direction. */
static struct an_group *lookup(struct an_state *st, const struct pkt_tcp *p,
			       bool *from_cli)
{
	struct tuple k = { p->saddr, p->daddr, p->sport, p->dport };
	struct an_group *g = tuplemap_get(&st->index, &k);

	if (g) {
		*from_cli = true;
		return g;
	}
	k = (struct tuple){ p->daddr, p->saddr, p->dport, p->sport };
	*from_cli = false;
	return tuplemap_get(&st->index, &k);
}

static struct an_flow *group_flow(struct an_state *st, const struct an_group *g,
				  size_t i)
{
	return &st->run->flows[st->order[g->start + i]];
}

static void unknown_add(struct an_state *st, size_t cap,
			const struct pkt_tcp *p, bool in_manifest)
{
	struct tuple k = { p->saddr, p->daddr, p->sport, p->dport };
	struct tuple rk = { p->daddr, p->saddr, p->dport, p->sport };
	struct an_unknown *u = tuplemap_get(&st->unknown_map, &k);

	if (!u)
		u = tuplemap_get(&st->unknown_map, &rk);
	if (!u) {
		u = xcalloc(1, sizeof(*u));
		u->k = k;
		u->capture = cap;
		u->first_ns = p->ts;
		u->in_manifest = in_manifest;
		tuplemap_put(&st->unknown_map, &k, u);
		xgrow((void **)&st->unknown, &st->cap_unknown, st->n_unknown + 1,
		      sizeof(*st->unknown));
		st->unknown[st->n_unknown++] = u;
	}
	u->packets++;
	u->payload += p->payload;
	if (p->ts > u->last_ns)
		u->last_ns = p->ts;
}

/* ---- captures ---- */

static int cmp_caps(const void *a, const void *b)
{
	const struct an_capture *x = a, *y = b;

	/* host ports first (they fix the instances), then by name */
	if ((x->role == AN_ROLE_HOST) != (y->role == AN_ROLE_HOST))
		return x->role == AN_ROLE_HOST ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void classify(struct an_state *st, struct an_capture *c)
{
	const struct topo *t = st->run->topo;
	char *base = xstrdup(c->name), *dot, *dash, *end;
	struct topo_node n;
	unsigned long i;

	c->role = AN_ROLE_OTHER;
	dot = strrchr(base, '.');
	if (dot)
		*dot = '\0';
	dash = strchr(base, '-');
	if (!dash)
		goto out;
	*dash++ = '\0';
	if (topo_node_parse(t, base, &n) || n.kind != TOPO_NODE_TOR)
		goto out;
	c->rack = n.rack;
	if (!strcmp(dash, "up")) {
		c->role = AN_ROLE_UP;
	} else if (!strcmp(dash, "ocs")) {
		c->role = AN_ROLE_OCS;
	} else if (dash[0] == 'h' && dash[1] >= '0' && dash[1] <= '9') {
		i = strtoul(dash + 1, &end, 10);
		if (!*end && i < t->hosts && (dash[1] != '0' || !dash[2])) {
			c->role = AN_ROLE_HOST;
			c->host = (unsigned)i;
		}
	}
out:
	free(base);
}

static bool is_capture_name(const char *s)
{
	size_t n = strlen(s);

	return s[0] != '.' &&
	       ((n > 5 && !strcmp(s + n - 5, ".pcap")) ||
		(n > 7 && !strcmp(s + n - 7, ".pcapng")));
}

/* The captures' own counts: every pcap/<node>.capstats line,
 * "iface rate_bps ring_bytes received dropped ifdropped lost", to the capture
 * file <node>-<iface>.pcap it describes; dropped counts the frames the
 * ring had no room for and those lost on the way to the file. A line that cannot be read is
 * said and skipped: the counts describe the captures, they are not them. */
static void read_capstats(struct an_state *st)
{
	const struct an_run *r = st->run;
	struct dirent *de;
	char *dir;
	DIR *d;

	dir = xasprintf("%s/%s", r->dir, RUNDIR_PCAP_DIR);
	d = opendir(dir);
	free(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name), sl = strlen(CAPTURE_STATS_SUFFIX), i;
		char line[512], ifn[64], name[400], *path;
		unsigned lineno = 0;
		FILE *fp;

		if (de->d_name[0] == '.' || n <= sl || n - sl >= 300 ||
		    strcmp(de->d_name + n - sl, CAPTURE_STATS_SUFFIX))
			continue;
		path = xasprintf("%s/%s/%s", r->dir, RUNDIR_PCAP_DIR, de->d_name);
		fp = fopen(path, "r");
		if (!fp) {
			an_warn(st, "%s: %s", path, strerror(errno));
			free(path);
			continue;
		}
		while (fgets(line, sizeof(line), fp)) {
			unsigned long long rate, ring, rx, drop, ifdrop, lost = 0;
			int k;

			if (++lineno == 1)
				continue; /* the header */
			/* "lost" (frames the writer had no room for) is the
			 * 7th column since it was added */
			k = sscanf(line, "%63s %llu %llu %llu %llu %llu %llu", ifn, &rate, &ring, &rx,
				   &drop, &ifdrop, &lost);
			if (k != 6 && k != 7) {
				an_warn(st, "%s:%u: expected 'iface rate_bps ring_bytes received dropped ifdropped lost': skipped",
					path, lineno);
				continue;
			}
			drop += lost;
			snprintf(name, sizeof(name), "%.*s-%s.pcap", (int)(n - sl), de->d_name, ifn);
			for (i = 0; i < st->n_caps; i++) {
				struct an_capture *c = &st->caps[i];

				if (strcmp(c->name, name))
					continue;
				c->has_stats = true;
				c->ring_bytes = ring;
				c->cap_received = rx;
				c->cap_dropped = drop;
				c->cap_ifdropped = ifdrop;
				break;
			}
		}
		fclose(fp);
		free(path);
	}
	closedir(d);
}

static int list_captures(struct an_state *st, char *errbuf)
{
	const struct an_run *r = st->run;
	size_t cap = 0, i, need = 0;
	struct dirent *de;
	bool *has_port;
	char *dir;
	DIR *d;

	for (i = 0; i < r->n_flows; i++)
		need += r->flows[i].path != AN_PATH_HOST;
	dir = xasprintf("%s/%s", r->dir, RUNDIR_PCAP_DIR);
	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT && !need) {
			free(dir);
			return 0; /* nothing crossed a ToR port */
		}
		errbuf_set(errbuf, "%s: %s", dir, strerror(errno));
		free(dir);
		return -EINVAL;
	}
	while ((de = readdir(d))) {
		struct an_capture *c;
		struct stat sb;

		if (!is_capture_name(de->d_name))
			continue;
		xgrow((void **)&st->caps, &cap, st->n_caps + 1, sizeof(*st->caps));
		c = &st->caps[st->n_caps++];
		c->name = xstrdup(de->d_name);
		c->path = xasprintf("%s/%s", dir, de->d_name);
		c->first_ns = c->last_ns = -1;
		if (!stat(c->path, &sb))
			c->file_bytes = (uint64_t)sb.st_size;
		classify(st, c);
	}
	closedir(d);
	if (!st->n_caps && need) {
		errbuf_set(errbuf, "%s: no captures (*.pcap), but %s lists %zu connections that cross a ToR port",
			   dir, RUNDIR_MANIFEST, need);
		free(dir);
		return -EINVAL;
	}
	free(dir);
	xqsort(st->caps, st->n_caps, sizeof(*st->caps), cmp_caps);

	/* A flow whose client's host port was not captured cannot be
	 * measured: say so once per port. */
	has_port = xcalloc(topo_n_hosts(r->topo), sizeof(*has_port));
	for (i = 0; i < st->n_caps; i++)
		if (st->caps[i].role == AN_ROLE_HOST)
			has_port[topo_host_id(r->topo, st->caps[i].rack, st->caps[i].host)] = true;
	for (i = 0; i < r->n_flows; i++) {
		const struct an_flow *f = &r->flows[i];
		unsigned id = topo_host_id(r->topo, f->rcv_rack, f->rcv_host);
		size_t j, nf = 0;

		if (f->path == AN_PATH_HOST || has_port[id])
			continue;
		for (j = i; j < r->n_flows; j++)
			nf += r->flows[j].path != AN_PATH_HOST &&
			      topo_host_id(r->topo, r->flows[j].rcv_rack, r->flows[j].rcv_host) == id;
		an_warn(st, "no capture of port tor%u-h%u: %zu flow(s) to r%uh%u cannot be measured",
			f->rcv_rack, f->rcv_host, nf, f->rcv_rack, f->rcv_host);
		has_port[id] = true; /* warn once */
	}
	free(has_port);
	return 0;
}

/* One instance of a connection on the client's host port. */
struct an_inst {
	struct tcpconn tc;
	size_t row; /* index into run->flows, SIZE_MAX: no line left for it */
	bool done;  /* results handed to its flow */
};

/* The manifest line a new instance stands for: among the lines of its
 * 4-tuple not yet taken, the latest connect() at or before its first
 * packet; failing that (timestamps a hair out of order) the earliest
 * within CONNECT_SLACK_NS after it; then lines without app timestamps, in
 * manifest order. */
static size_t pick_line(struct an_state *st, const struct an_group *g,
			int64_t ts, bool syn)
{
	size_t i, before = SIZE_MAX, after = SIZE_MAX, untimed = SIZE_MAX;
	size_t first_free = SIZE_MAX, best;

	for (i = 0; i < g->n; i++) {
		struct an_flow *f = group_flow(st, g, i);

		if (f->taken)
			continue;
		if (first_free == SIZE_MAX)
			first_free = i;
		if (f->connect_ns < 0) {
			if (untimed == SIZE_MAX)
				untimed = i;
		} else if (f->connect_ns <= ts) {
			before = i; /* sorted by connect_ns: the last wins */
		} else if (f->connect_ns <= ts + CONNECT_SLACK_NS && after == SIZE_MAX) {
			after = i;
		}
	}
	best = before != SIZE_MAX ? before : after != SIZE_MAX ? after : untimed;
	/* A SYN always opens a connection: with the clocks disagreeing it
	 * still gets the earliest free line. A packet without SYN (capture
	 * started late, or the last ACK of a purged instance) does not. */
	if (best == SIZE_MAX && syn)
		best = first_free;
	return best == SIZE_MAX ? SIZE_MAX : st->order[g->start + best];
}

static void inst_finish(struct an_state *st, struct an_inst *in)
{
	struct an_flow *f;

	if (in->done)
		return;
	in->done = true;
	if (in->row != SIZE_MAX) {
		f = &st->run->flows[in->row];
		f->start_ns = in->tc.syn_ns;
		f->data_ns = in->tc.data_ns;
		f->end_ns = in->tc.end_ns;
		f->retrans_bytes = in->tc.retrans_bytes;
		f->data_bytes = in->tc.data_bytes;
		/* a flow the horizon cut: what it sent in the tear-down
		 * after it is not the run's */
		if (st->run->horizon_ns >= 0 && f->end_ns > st->run->horizon_ns)
			f->end_ns = -1;
		if (in->tc.syn_ns < 0)
			f->status = AN_NO_SYN;
		else if (f->end_ns < 0)
			f->status = AN_UNFINISHED;
		else
			f->status = AN_DONE;
	}
	tcpconn_free(&in->tc);
}

static void purge_closed(struct tuplemap *conns, int64_t now)
{
	size_t i = 0;

	/* Deleting shifts later slots back: re-examine slot i after one. */
	while (i < conns->cap) {
		struct an_inst *in = conns->slots[i].v;

		if (in && in->done && in->tc.last_ns + CLOSED_KEEP_NS < now) {
			struct tuple k = conns->slots[i].k;

			tuplemap_del(conns, &k);
			free(in);
			continue;
		}
		i++;
	}
}

static void host_packet(struct an_state *st, size_t ci, struct tuplemap *conns,
			const struct pkt_tcp *p)
{
	struct an_capture *c = &st->caps[ci];
	struct an_group *g;
	struct an_flow *f0;
	struct an_inst *in;
	struct tuple k;
	bool from_cli;

	g = lookup(st, p, &from_cli);
	if (!g) {
		unknown_add(st, ci, p, false);
		return;
	}
	f0 = group_flow(st, g, 0);
	if (f0->rcv_rack != c->rack || f0->rcv_host != c->host)
		return; /* the sender's host port: measured at the receiver's */
	c->matched++;
	k = flow_key(f0);
	in = tuplemap_get(conns, &k);
	if (in && tcpconn_is_new_syn(&in->tc, p, from_cli)) {
		inst_finish(st, in);
		tuplemap_del(conns, &k);
		free(in);
		in = NULL;
	}
	if (!in) {
		bool syn = from_cli && (p->flags & (TCPF_SYN | TCPF_ACK)) == TCPF_SYN;

		in = xcalloc(1, sizeof(*in));
		in->row = pick_line(st, g, p->ts, syn);
		if (in->row != SIZE_MAX)
			st->run->flows[in->row].taken = true;
		if (in->row != SIZE_MAX && st->run->flows[in->row].data_from_cli)
			tcpconn_init_write(&in->tc, st->run->flows[in->row].req_bytes,
					   st->run->flows[in->row].bytes);
		else
			tcpconn_init(&in->tc, in->row != SIZE_MAX ? st->run->flows[in->row].bytes : 0);
		tuplemap_put(conns, &k, in);
	}
	if (in->row == SIZE_MAX) {
		/* more instances of this 4-tuple than manifest lines */
		unknown_add(st, ci, p, true);
		return;
	}
	if (in->done) {
		/* A last packet after it closed. Every byte was acked by then:
		 * data from the sender is sent again (a probe or a timeout that
		 * crossed the ACK), and the wire carried it (tests/analyze_real.sh:
		 * 1160 bytes so, which tshark counted and hyde did not). */
		if (in->row != SIZE_MAX && !in->tc.rst && p->payload && from_cli == in->tc.cli_sends)
			st->run->flows[in->row].retrans_bytes += p->payload;
		return;
	}
	tcpconn_packet(&in->tc, p, from_cli);
	if (tcpconn_closed(&in->tc))
		inst_finish(st, in);
}

static void path_packet(struct an_state *st, size_t ci, const struct pkt_tcp *p)
{
	struct an_capture *c = &st->caps[ci];
	struct an_flow *f, *best = NULL;
	struct an_group *g;
	bool from_cli;
	size_t i;

	g = lookup(st, p, &from_cli);
	if (!g) {
		unknown_add(st, ci, p, false);
		return;
	}
	c->matched++;
	f = group_flow(st, g, 0);
	if (from_cli != f->data_from_cli || !p->payload || f->rcv_rack != c->rack)
		return; /* requests, ACKs, and data leaving the sender's rack */
	/* The instance of a reused 4-tuple the packet belongs to: the last
	 * one started (SYN seen on the host port, else connect()) before it. */
	for (i = 0; i < g->n; i++) {
		int64_t key;

		f = group_flow(st, g, i);
		key = f->start_ns >= 0 ? f->start_ns : f->connect_ns;
		if (key >= 0 && key <= p->ts)
			best = f;
	}
	if (!best)
		best = group_flow(st, g, 0);
	if (c->role == AN_ROLE_OCS)
		best->ocs_bytes += p->payload;
	else
		best->eps_bytes += p->payload;
}

static int read_capture(struct an_state *st, size_t ci, char *errbuf)
{
	struct an_capture *c = &st->caps[ci];
	struct capfile *cf;
	struct tuplemap conns;
	int64_t next_purge = INT64_MIN;
	enum pkt_kind kind;
	struct pkt_tcp p;
	uint32_t wirelen;
	size_t i;
	int r;

	if (st->run->interrupted && c->file_bytes < 24) {
		/* stopped before it wrote even the file header */
		an_warn(st, "%s: %" PRIu64 " bytes, no capture header: skipped (the run was interrupted)",
			c->name, c->file_bytes);
		return 0;
	}
	if ((r = capfile_open(c->path, &cf, errbuf)))
		return r;
	tuplemap_init(&conns);
	while ((r = capfile_next(cf, &p, &kind, &wirelen, errbuf)) == 1) {
		c->packets++;
		c->wire_bytes += wirelen;
		if (kind == PKT_OTHER) {
			c->other++;
			continue;
		}
		if (kind != PKT_TCP) {
			c->bad++;
			continue;
		}
		c->tcp++;
		if (c->first_ns < 0 || p.ts < c->first_ns)
			c->first_ns = p.ts;
		if (p.ts > c->last_ns)
			c->last_ns = p.ts;
		switch (c->role) {
		case AN_ROLE_HOST:
			host_packet(st, ci, &conns, &p);
			if (conns.n > st->res->peak_conns)
				st->res->peak_conns = conns.n;
			if (p.ts >= next_purge) {
				if (next_purge != INT64_MIN)
					purge_closed(&conns, p.ts);
				next_purge = p.ts + PURGE_EVERY_NS;
			}
			break;
		case AN_ROLE_UP:
		case AN_ROLE_OCS:
			path_packet(st, ci, &p);
			break;
		case AN_ROLE_OTHER:
			if (!lookup(st, &p, &(bool){ false }))
				unknown_add(st, ci, &p, false);
			break;
		}
	}
	for (i = 0; i < conns.cap; i++) {
		struct an_inst *in = conns.slots[i].v;

		if (in) {
			inst_finish(st, in);
			free(in);
		}
	}
	tuplemap_free(&conns);
	capfile_close(cf);
	if (c->bad)
		an_warn(st, "%s: %" PRIu64 " packet(s) with headers too short or malformed to decode (snaplen?)",
			c->name, c->bad);
	if (r == -ENODATA && st->run->interrupted) {
		an_warn(st, "%s: ends inside packet %" PRIu64 ": read up to there (the run was interrupted)",
			c->name, c->packets + 1);
		c->cut = true;
		return 0;
	}
	return r == -ENODATA ? -EINVAL : r < 0 ? r : 0;
}

/* ---- results ---- */

static void finish_flows(struct an_state *st)
{
	struct an_run *r = st->run;
	size_t i;

	for (i = 0; i < r->n_flows; i++) {
		struct an_flow *f = &r->flows[i];

		if (f->path == AN_PATH_HOST) {
			/* Loopback crosses no ToR port: the reducer's own
			 * timestamps are the only record, marked as such. */
			f->status = AN_HOST;
			f->start_ns = f->connect_ns;
			f->end_ns = f->last_byte_ns;
			if (r->horizon_ns >= 0 && f->end_ns > r->horizon_ns)
				f->end_ns = -1; /* cut by the horizon */
		} else if (!f->taken) {
			f->status = AN_NOT_CAPTURED;
		}
		/* a write's request crossed the ports with its data */
		if (f->req_bytes) {
			uint64_t *pb = f->ocs_bytes ? &f->ocs_bytes : &f->eps_bytes;

			*pb -= *pb < f->req_bytes ? *pb : f->req_bytes;
		}
	}
}

/* Captures full of TCP connections of which none is in the manifest: the
 * manifest belongs to another run. Not so for an interrupted run whose
 * manifest lists nothing yet: the controller writes a connection's line
 * once the task has told it the connection's port, after its SYN crossed
 * the ports, so a kill in between leaves a captured connection and an
 * empty manifest (the connection is then counted and warned of as
 * unknown). */
static int check_match(struct an_state *st, char *errbuf)
{
	const struct an_run *r = st->run;
	size_t i, seen = 0, listed = 0, unknown = 0;
	char a[16], b[16];

	for (i = 0; i < r->n_flows; i++) {
		listed += r->flows[i].path != AN_PATH_HOST;
		seen += r->flows[i].taken || r->flows[i].ocs_bytes ||
			r->flows[i].eps_bytes;
	}
	for (i = 0; i < st->n_unknown; i++)
		unknown += !st->unknown[i]->in_manifest;
	if (seen || !unknown || (r->interrupted && !listed))
		return 0;
	{
		const struct an_unknown *u = st->unknown[0];

		errbuf_set(errbuf, "%s/%s: none of its %zu connection(s) appears in the captures, which hold %zu TCP connection(s) it does not list (first: %s:%u -> %s:%u in %s): the manifest does not belong to these captures",
			   r->dir, RUNDIR_MANIFEST, listed, unknown,
			   topo_addr_str(u->k.a_ip, a, sizeof(a)), u->k.a_port,
			   topo_addr_str(u->k.b_ip, b, sizeof(b)), u->k.b_port,
			   st->caps[u->capture].name);
	}
	return -EINVAL;
}

int64_t an_flow_fct(const struct an_flow *f)
{
	return f->start_ns >= 0 && f->end_ns >= 0 ? f->end_ns - f->start_ns : -1;
}

int64_t an_flow_app_fct(const struct an_flow *f)
{
	return f->connect_ns >= 0 && f->last_byte_ns >= 0 ?
		       f->last_byte_ns - f->connect_ns : -1;
}

static int64_t i64abs(int64_t v)
{
	return v < 0 ? -v : v;
}

/* The samples of the distributions the analysis reports. */
struct an_samples {
	int64_t *fct, *err, *cct, *cerr, *jct, *fb, *fbs;
	size_t n_fct, n_err, n_cct, n_cerr, n_jct, n_fb, n_fbs;
};

/* Every flow: its status, kind and bytes; the shuffle's FCTs, paths and
 * coflows (incomplete: a coflow with a flow that has no start or end). */
static void compute_flows(struct an_state *st, struct an_samples *sm, bool *incomplete)
{
	struct an_run *r = st->run;
	struct analyze_result *res = st->res;
	size_t i;

	res->flows = r->n_flows;
	for (i = 0; i < r->n_flows; i++) {
		struct an_flow *f = &r->flows[i];
		struct an_cfres *c;
		int64_t v = an_flow_fct(f), app = an_flow_app_fct(f);

		switch (f->status) {
		case AN_DONE: res->flows_done++; break;
		case AN_UNFINISHED: res->flows_unfinished++; break;
		case AN_NO_SYN: res->flows_no_syn++; break;
		case AN_NOT_CAPTURED: res->flows_not_captured++; break;
		case AN_HOST: res->flows_host++; break;
		}
		if (f->status == AN_DONE && app >= 0)
			sm->err[sm->n_err++] = i64abs(v - app);
		if (f->status == AN_DONE && f->data_bytes != f->bytes)
			res->flows_bytes_mismatch++;
		if (f->status == AN_DONE && f->data_ns >= f->start_ns) {
			sm->fb[sm->n_fb++] = f->data_ns - f->start_ns;
			if (f->bytes < FIRST_BYTE_SMALL)
				sm->fbs[sm->n_fbs++] = f->data_ns - f->start_ns;
		}
		if ((f->path == AN_PATH_OCS && f->eps_bytes) ||
		    (f->path == AN_PATH_EPS && f->ocs_bytes))
			res->flows_path_mismatch++;
		res->kind_flows[f->kind]++;
		res->kind_bytes[f->kind] += f->bytes;
		if (f->cross_rack)
			res->kind_cross[f->kind] += f->bytes;
		res->retrans_bytes += f->retrans_bytes;
		/* the rest is the shuffle's: its FCTs, paths and coflows */
		if (f->kind != HYDE_FLOW_SHUFFLE)
			continue;
		c = &st->cf[f->cf];
		if (v >= 0)
			sm->fct[sm->n_fct++] = v;
		res->shuffle_bytes += f->bytes;
		res->ocs_bytes += f->ocs_bytes;
		res->eps_bytes += f->eps_bytes;
		if (f->path == AN_PATH_RACK)
			res->rack_bytes += f->bytes;
		if (f->path == AN_PATH_HOST)
			res->host_bytes += f->bytes;
		if (f->cross_rack) {
			res->cross_rack_bytes += f->bytes;
			st->job_cross[f->job] += f->bytes;
		}
		/* CCT: first flow start to last flow end, known only when
		 * every flow of the coflow has both. */
		c->flows++;
		c->bytes += f->bytes;
		c->ocs_bytes += f->ocs_bytes;
		c->eps_bytes += f->eps_bytes;
		if (f->status == AN_DONE)
			c->measured = true;
		if (f->start_ns < 0 || f->end_ns < 0)
			incomplete[f->cf] = true;
		if (f->start_ns >= 0 && (c->start_ns < 0 || f->start_ns < c->start_ns))
			c->start_ns = f->start_ns;
		if (f->end_ns > c->end_ns)
			c->end_ns = f->end_ns;
	}
}

/* Every coflow's CCT, measured and as the application saw it. */
static void compute_coflows(struct an_state *st, struct an_samples *sm, bool *incomplete)
{
	struct an_run *r = st->run;
	struct analyze_result *res = st->res;
	size_t i;

	res->coflows = r->n_coflows;
	for (i = 0; i < r->n_coflows; i++) {
		struct an_cfres *c = &st->cf[i];
		const struct an_coflow *a = &r->coflows[i];

		/* In an interrupted run, a coflow may have flows that never
		 * started (in no manifest line): complete only if its job
		 * ended. */
		if (r->interrupted && r->jobs[a->job].end_ns < 0)
			incomplete[i] = true;
		/* stopped at its horizon: a coflow the controller saw open
		 * (more flows were to come) is not complete either */
		if (r->horizon_ns >= 0 && a->end_ns < 0)
			incomplete[i] = true;
		if (incomplete[i] || !c->flows)
			c->end_ns = -1;
		c->cct_ns = c->start_ns >= 0 && c->end_ns >= 0 ? c->end_ns - c->start_ns : -1;
		c->app_cct_ns = a->start_ns >= 0 && a->end_ns >= a->start_ns ?
					a->end_ns - a->start_ns : -1;
		if (c->flows != a->flows || c->bytes != a->bytes)
			an_warn(st, "coflow %" PRIu64 ": %s lists %" PRIu64 " flow(s) of %" PRIu64 " bytes, %s %" PRIu64 " of %" PRIu64,
				a->coflow, RUNDIR_MANIFEST, c->flows, c->bytes,
				RUNDIR_APP_COFLOWS, a->flows, a->bytes);
		if (c->cct_ns < 0)
			continue;
		res->coflows_complete++;
		sm->cct[sm->n_cct++] = c->cct_ns;
		if (c->measured && c->app_cct_ns >= 0)
			sm->cerr[sm->n_cerr++] = i64abs(c->cct_ns - c->app_cct_ns);
	}
}

/* Every job's JCT, the makespan, and the run's completeness. */
static void compute_jobs(struct an_state *st, struct an_samples *sm)
{
	struct an_run *r = st->run;
	struct analyze_result *res = st->res;
	int64_t first = -1, last = -1;
	size_t i;

	res->jobs = r->n_jobs;
	for (i = 0; i < r->n_jobs; i++) {
		const struct an_job *j = &r->jobs[i];

		if (j->arrival_ns < 0)
			continue; /* an interrupted run that never said */
		if (first < 0 || j->arrival_ns < first)
			first = j->arrival_ns;
		if (j->end_ns < 0)
			continue;
		res->jobs_finished++;
		sm->jct[sm->n_jct++] = j->end_ns - j->arrival_ns;
		if (j->end_ns > last)
			last = j->end_ns;
	}
	res->makespan_ns = last >= 0 ? last - first : -1;
	res->interrupted = r->interrupted;
	res->incomplete = r->interrupted || res->capture_drops;
	res->jobs_per_hour = res->makespan_ns > 0 ?
		(double)res->jobs_finished * 3600e9 / (double)res->makespan_ns : -1;
	res->ocs_share = res->ocs_bytes + res->eps_bytes ?
		(double)res->ocs_bytes / (double)(res->ocs_bytes + res->eps_bytes) : -1;
}

/* What the analysis could not match or measure, said once each. */
static void compute_warnings(struct an_state *st)
{
	struct analyze_result *res = st->res;
	size_t i;

	for (i = 0; i < st->n_unknown; i++) {
		if (st->unknown[i]->in_manifest)
			res->stray_instances++;
		else
			res->unknown_conns++;
	}
	if (res->unknown_conns)
		an_warn(st, "%zu TCP connection(s) in no line of %s (listed in %s)",
			res->unknown_conns, RUNDIR_MANIFEST, RUNDIR_SUMMARY);
	if (res->stray_instances)
		an_warn(st, "%zu connection instance(s) beyond the lines %s has for their 4-tuple (listed in %s)",
			res->stray_instances, RUNDIR_MANIFEST, RUNDIR_SUMMARY);
	if (res->flows_bytes_mismatch)
		an_warn(st, "%zu measured flow(s) whose payload seen on the client's port differs from their bytes in %s",
			res->flows_bytes_mismatch, RUNDIR_MANIFEST);
	if (res->flows_unfinished)
		an_warn(st, "%zu flow(s) never finished (no ACK of the last data byte)",
			res->flows_unfinished);
	if (res->flows_not_captured)
		an_warn(st, "%zu flow(s) not seen on their client's host port",
			res->flows_not_captured);
}

static void compute(struct an_state *st)
{
	struct an_run *r = st->run;
	struct analyze_result *res = st->res;
	size_t i, nmax = r->n_flows + r->n_coflows + r->n_jobs + 1;
	struct an_samples sm = { 0 };
	bool *incomplete;

	sm.fct = xmalloc(nmax * sizeof(*sm.fct));
	sm.err = xmalloc(nmax * sizeof(*sm.err));
	sm.cct = xmalloc(nmax * sizeof(*sm.cct));
	sm.cerr = xmalloc(nmax * sizeof(*sm.cerr));
	sm.jct = xmalloc(nmax * sizeof(*sm.jct));
	sm.fb = xmalloc(nmax * sizeof(*sm.fb));
	sm.fbs = xmalloc(nmax * sizeof(*sm.fbs));
	st->cf = xcalloc(r->n_coflows + 1, sizeof(*st->cf));
	st->job_cross = xcalloc(r->n_jobs + 1, sizeof(*st->job_cross));
	incomplete = xcalloc(r->n_coflows + 1, sizeof(*incomplete));
	for (i = 0; i < r->n_coflows; i++)
		st->cf[i].start_ns = st->cf[i].end_ns = -1;
	compute_flows(st, &sm, incomplete);
	compute_coflows(st, &sm, incomplete);
	compute_jobs(st, &sm);
	analyze_dist_of(sm.fct, sm.n_fct, &res->fct);
	analyze_dist_of(sm.err, sm.n_err, &res->fct_err);
	analyze_dist_of(sm.cct, sm.n_cct, &res->cct);
	analyze_dist_of(sm.cerr, sm.n_cerr, &res->cct_err);
	analyze_dist_of(sm.jct, sm.n_jct, &res->jct);
	analyze_dist_of(sm.fb, sm.n_fb, &res->first_byte);
	analyze_dist_of(sm.fbs, sm.n_fbs, &res->first_byte_small);
	compute_warnings(st);
	free(incomplete);
	free(sm.fct);
	free(sm.err);
	free(sm.cct);
	free(sm.cerr);
	free(sm.jct);
	free(sm.fb);
	free(sm.fbs);
}

/* ---- plots ---- */

/* timeline.png (timeline.h): the links, circuits and jobs over time.
 * Built before anything is written: a --window that holds none of the
 * run is bad input (-EINVAL); without one, a timeline that cannot be
 * built is only a missing plot. */
static int build_timeline(struct an_state *st, struct timeline **tl, char *errbuf)
{
	const struct analyze_opts *o = &st->opts;
	char err[HYDE_ERRBUF_SIZE];

	*tl = NULL;
	if (o->no_plots || !plot_available())
		return 0;
	if (!timeline_build(st->run->dir, st->run->topo, o->window ? o->window_from : INT64_MIN,
			    o->window ? o->window_to : INT64_MAX, tl, err))
		return 0;
	if (o->window) {
		errbuf_set(errbuf, "%s", err);
		return -EINVAL;
	}
	an_warn(st, "plot timeline.png: %s", err);
	return 0;
}

static void make_timeline(struct an_state *st, struct an_outset *out,
			  const struct timeline *tl)
{
	char err[HYDE_ERRBUF_SIZE];
	const char *tmp;

	if (!tl)
		return;
	if (an_outset_add(out, "timeline.png", &tmp, err) || timeline_plot(tl, tmp, err))
		an_warn(st, "plot timeline.png: %s", err);
	else
		st->res->plots++;
}

static void make_plots(struct an_state *st, struct an_outset *out,
		       const struct timeline *tl)
{
	const struct an_run *r = st->run;
	struct analyze_result *res = st->res;
	double *x = xmalloc((r->n_flows + r->n_coflows + 1) * sizeof(*x));
	char err[HYDE_ERRBUF_SIZE];
	const char *tmp;
	size_t i, n;
	int ret;

	if (!plot_available()) {
		an_warn(st, "gnuplot not found: no plots (install gnuplot-nox)");
		free(x);
		return;
	}
	for (i = n = 0; i < r->n_flows; i++) {
		int64_t v = an_flow_fct(&r->flows[i]);

		if (v >= 0)
			x[n++] = (double)v / 1e6;
	}
	if (n) {
		struct plot_cdf_series s = { "flows", x, n };

		if ((ret = an_outset_add(out, "fct_cdf.png", &tmp, err)) ||
		    (ret = plot_cdf(tmp, "CDF of flow completion time", "FCT (ms)",
				    &s, 1, err)))
			an_warn(st, "plot fct_cdf.png: %s", err);
		else
			res->plots++;
	}
	for (i = n = 0; i < r->n_coflows; i++)
		if (st->cf[i].cct_ns >= 0)
			x[n++] = (double)st->cf[i].cct_ns / 1e6;
	if (n) {
		struct plot_cdf_series s = { "coflows", x, n };

		if ((ret = an_outset_add(out, "cct_cdf.png", &tmp, err)) ||
		    (ret = plot_cdf(tmp, "CDF of coflow completion time", "CCT (ms)",
				    &s, 1, err)))
			an_warn(st, "plot cct_cdf.png: %s", err);
		else
			res->plots++;
	}
	{
		static const char *const groups[] = {
			"OCS", "EPS", "in rack", "on host", "retransmitted",
		};
		static const char *const series[] = { "MB" };
		double v[5] = {
			(double)res->ocs_bytes / 1e6, (double)res->eps_bytes / 1e6,
			(double)res->rack_bytes / 1e6, (double)res->host_bytes / 1e6,
			(double)res->retrans_bytes / 1e6,
		};
		struct plot_bars b = {
			.title = "Shuffle bytes per path",
			.ylabel = "MB",
			.groups = groups, .n_groups = ARRAY_SIZE(groups),
			.series = series, .n_series = 1,
			.values = v, .baseline = -1,
		};

		if ((ret = an_outset_add(out, "path_bytes.png", &tmp, err)) ||
		    (ret = plot_bars(tmp, &b, err)))
			an_warn(st, "plot path_bytes.png: %s", err);
		else
			res->plots++;
	}
	free(x);
	make_timeline(st, out, tl);
}

/* ---- entry point ---- */

static void state_free(struct an_state *st)
{
	size_t i;

	for (i = 0; i < st->n_caps; i++) {
		free(st->caps[i].name);
		free(st->caps[i].path);
	}
	free(st->caps);
	for (i = 0; i < st->n_unknown; i++)
		free(st->unknown[i]);
	free(st->unknown);
	for (i = 0; i < st->n_warnings; i++)
		free(st->warnings[i]);
	free(st->warnings);
	if (st->index.slots)
		tuplemap_free(&st->index);
	if (st->unknown_map.slots)
		tuplemap_free(&st->unknown_map);
	free(st->groups);
	free(st->order);
	free(st->cf);
	free(st->job_cross);
	an_run_free(st->run);
}

int analyze_run(const char *rundir, const struct analyze_opts *o,
		struct analyze_result *res, char *errbuf)
{
	struct analyze_result local;
	struct an_state st = { 0 };
	struct timeline *tl = NULL;
	struct an_outset out;
	size_t i;
	int ret;

	if (!res)
		res = &local;
	memset(res, 0, sizeof(*res));
	st.res = res;
	if (o)
		st.opts = *o;
	if (!st.opts.list_unknown)
		st.opts.list_unknown = DEFAULT_LIST_UNKNOWN;
	an_outset_init(&out, rundir);

	if ((ret = an_run_load(rundir, &st.run, errbuf)))
		goto err;
	build_index(&st);
	tuplemap_init(&st.unknown_map);
	if ((ret = list_captures(&st, errbuf)))
		goto err;
	for (i = 0; i < st.n_caps; i++) {
		if ((ret = read_capture(&st, i, errbuf)))
			goto err;
		res->packets += st.caps[i].packets;
		res->tcp_packets += st.caps[i].tcp;
		res->capture_bytes += st.caps[i].file_bytes;
	}
	res->captures = (unsigned)st.n_caps;
	read_capstats(&st);
	for (i = 0; i < st.n_caps; i++) {
		const struct an_capture *c = &st.caps[i];

		res->capture_no_stats += !c->has_stats;
		res->capture_ring_bytes += c->ring_bytes;
		res->capture_drops += c->cap_dropped;
		res->capture_drop_ports += c->cap_dropped > 0;
		if (c->cap_dropped)
			an_warn(&st, "%s: the capture dropped %" PRIu64 " of %" PRIu64
				" frames (its %" PRIu64 " KB ring was full): the run is incomplete; a longer --capture-window gives larger rings",
				c->name, c->cap_dropped, c->cap_received, c->ring_bytes >> 10);
	}
	finish_flows(&st);
	if ((ret = check_match(&st, errbuf)))
		goto err;
	compute(&st);
	if ((ret = build_timeline(&st, &tl, errbuf)))
		goto err;

	/* Writing: from here a failure is not the input's fault. */
	if ((ret = an_outset_write(&out, RUNDIR_FLOWS, an_write_flows, &st, errbuf)) ||
	    (ret = an_outset_write(&out, RUNDIR_COFLOWS, an_write_coflows, &st, errbuf)) ||
	    (ret = an_outset_write(&out, RUNDIR_JOBS, an_write_jobs, &st, errbuf)))
		goto err_write;
	if (!st.opts.no_plots)
		make_plots(&st, &out, tl);
	if ((ret = an_outset_write(&out, RUNDIR_SUMMARY, an_write_summary, &st, errbuf)) ||
	    (ret = an_outset_commit(&out, errbuf)))
		goto err_write;
	/* A plot not made this time would describe an earlier analysis. */
	for (i = 0; i < ARRAY_SIZE(an_plot_names); i++)
		if (!an_outset_has(&out, an_plot_names[i])) {
			char *p = xasprintf("%s/%s", rundir, an_plot_names[i]);

			unlink(p);
			free(p);
		}
	an_outset_free(&out);
	timeline_free(tl);
	state_free(&st);
	return 0;
err_write:
	if (ret == -EINVAL)
		ret = -EIO; /* -EINVAL means bad input to the caller */
err:
	an_outset_abort(&out);
	timeline_free(tl);
	state_free(&st);
	return ret;
}
