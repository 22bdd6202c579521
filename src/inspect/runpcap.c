/* hyde pcap: a run's captures merged into one annotated pcapng (see
 * runpcap.h). The captures are read all at once, one packet ahead each,
 * and merged by timestamp through a binary heap, so memory is one packet
 * per capture whatever their size. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <hyde/model.h>

#include "analyze/pcap_read.h"
#include "analyze/runread.h"
#include "analyze/tuplemap.h"
#include "core/coflow.h"
#include "core/log.h"
#include "core/rundir.h"
#include "core/units.h"
#include "core/util.h"
#include "inspect/pcapng.h"
#include "inspect/runlog.h"
#include "inspect/runpcap.h"

/* A connect() and the capture's first packet of it disagree by this much
 * at most (the analyzer's slack). */
#define CONNECT_SLACK_NS NSEC_PER_MSEC
/* A capture is not quite in time order: a frame the ToR sends and one it
 * receives are stamped on different paths of the kernel (tens of us apart
 * on rack8; more under load). Each capture is read this far ahead and
 * sorted on the way: a frame later than this in its file is written where
 * it comes, and counted (runpcap_result.late). */
#define REORDER_NS (100 * NSEC_PER_MSEC)

enum rp_role { RP_HOST, RP_UP, RP_OCS, RP_OTHER };

/* A packet read ahead, its bytes copied. */
struct rp_pkt {
	int64_t ts;
	uint64_t seq; /* its place in the file: ties keep it */
	uint32_t caplen, len;
	uint8_t *data;
};

struct rp_cap {
	char *name; /* "tor3-up" */
	char *path;
	enum rp_role role;
	unsigned rack, host;
	pcap_t *p;
	struct rp_pkt *ahead; /* min-heap by (ts, seq): read, not written */
	size_t n_ahead, cap_ahead;
	int64_t newest;	      /* the latest timestamp read so far */
	int64_t written;      /* the latest timestamp written so far */
	uint64_t packets;
	uint32_t if_id;
	bool eof;
};

/* Manifest lines sharing one 4-tuple, by connect time. */
struct rp_group {
	size_t start, n;
};

struct runpcap {
	struct an_run *run;
	struct runlog *rl;
	struct runpcap_opts o;
	struct rp_cap *caps;
	size_t n_caps;
	struct tuplemap index;
	struct rp_group *groups;
	size_t *order;
	char **comment;	   /* per manifest line */
	bool *keep;	   /* per manifest line: passes --job / --flow */
	bool filter_flows; /* --job or --flow given */
	bool ocs_if;	   /* the OCS records' interface is written */
	int64_t from, to;  /* absolute window */
	int64_t t0;	   /* the run's start, -1 if unknown */
};

/* ---- the manifest's index ---- */

static const struct an_run *sort_run;

static int cmp_line(const void *a, const void *b)
{
	const struct an_flow *x = &sort_run->flows[*(const size_t *)a];
	const struct an_flow *y = &sort_run->flows[*(const size_t *)b];

#define CMP(f) \
	if (x->f != y->f) \
		return x->f < y->f ? -1 : 1
	CMP(cli_ip);
	CMP(srv_ip);
	CMP(cli_port);
	CMP(srv_port);
	CMP(connect_ns);
	CMP(line);
#undef CMP
	return 0;
}

static struct tuple line_key(const struct an_flow *f)
{
	return (struct tuple){ f->cli_ip, f->srv_ip, f->cli_port, f->srv_port };
}

static void build_index(struct runpcap *rp)
{
	const struct an_run *r = rp->run;
	size_t i, ng = 0, n = r->n_flows ? r->n_flows : 1;

	rp->order = xmalloc(n * sizeof(*rp->order));
	rp->groups = xmalloc(n * sizeof(*rp->groups));
	for (i = 0; i < r->n_flows; i++)
		rp->order[i] = i;
	sort_run = r;
	xqsort(rp->order, r->n_flows, sizeof(*rp->order), cmp_line);
	tuplemap_init(&rp->index);
	for (i = 0; i < r->n_flows; i++) {
		struct tuple k = line_key(&r->flows[rp->order[i]]);

		if (ng) {
			struct tuple pk = line_key(&r->flows[rp->order[i - 1]]);

			if (!memcmp(&pk, &k, sizeof(k))) {
				rp->groups[ng - 1].n++;
				continue;
			}
		}
		rp->groups[ng] = (struct rp_group){ i, 1 };
		tuplemap_put(&rp->index, &k, &rp->groups[ng]);
		ng++;
	}
}

/* The manifest line of a TCP packet at ts, or SIZE_MAX: among the lines
 * of its 4-tuple (port reuse), the last whose connect() came before it. */
static size_t packet_line(const struct runpcap *rp, const struct pkt_tcp *p)
{
	struct tuple k = { p->saddr, p->daddr, p->sport, p->dport };
	const struct rp_group *g = tuplemap_get(&rp->index, &k);
	size_t i, best;

	if (!g) {
		k = (struct tuple){ p->daddr, p->saddr, p->dport, p->sport };
		g = tuplemap_get(&rp->index, &k);
	}
	if (!g)
		return SIZE_MAX;
	best = rp->order[g->start];
	for (i = 1; i < g->n; i++) {
		size_t l = rp->order[g->start + i];

		if (rp->run->flows[l].connect_ns <= p->ts + CONNECT_SLACK_NS)
			best = l;
	}
	return best;
}

static void host_str(char *buf, size_t len, unsigned rack, unsigned host)
{
	snprintf(buf, len, "r%uh%u", rack, host);
}

static char *flow_comment(const struct an_run *r, const struct an_flow *f)
{
	char src[32], dst[32], task[48];
	unsigned sr = f->srv_rack, sh = f->srv_host, dr = f->cli_rack, dh = f->cli_host;

	if (f->data_from_cli) {
		sr = f->cli_rack, sh = f->cli_host;
		dr = f->srv_rack, dh = f->srv_host;
	}
	host_str(src, sizeof(src), sr, sh);
	host_str(dst, sizeof(dst), dr, dh);
	if (f->kind == HYDE_FLOW_INPUT)
		snprintf(task, sizeof(task), "map=%" PRIu64, f->reduce);
	else if (f->kind == HYDE_FLOW_OUTPUT)
		snprintf(task, sizeof(task), "reduce=%" PRIu64, f->reduce);
	else
		snprintf(task, sizeof(task), "reduce=%" PRIu64 " maps=%" PRIu64, f->reduce, f->map);
	return xasprintf("hyde flow=%" PRIu64 " coflow=%" PRIu64 " job=%s kind=%s path=%s src=%s dst=%s bytes=%" PRIu64 " %s",
			 f->flow, f->coflow, r->jobs[f->job].job, flow_kind_name(f->kind),
			 an_path_names[f->path], src, dst, f->bytes, task);
}

/* ---- the captures ---- */

static void classify(const struct topo *t, struct rp_cap *c)
{
	char *base = xstrdup(c->name), *dash = strchr(base, '-'), *end;
	struct topo_node n;
	unsigned long i;

	c->role = RP_OTHER;
	if (!dash)
		goto out;
	*dash++ = '\0';
	if (topo_node_parse(t, base, &n) || n.kind != TOPO_NODE_TOR)
		goto out;
	c->rack = n.rack;
	if (!strcmp(dash, "up")) {
		c->role = RP_UP;
	} else if (!strcmp(dash, "ocs")) {
		c->role = RP_OCS;
	} else if (dash[0] == 'h' && dash[1] >= '0' && dash[1] <= '9') {
		i = strtoul(dash + 1, &end, 10);
		if (!*end && i < t->hosts) {
			c->role = RP_HOST;
			c->host = (unsigned)i;
		}
	}
out:
	free(base);
}

static int cmp_cap(const void *a, const void *b)
{
	return strcmp(((const struct rp_cap *)a)->name, ((const struct rp_cap *)b)->name);
}

static bool port_selected(const struct runpcap *rp, const char *name)
{
	size_t i;

	if (!rp->o.n_ports)
		return true;
	for (i = 0; i < rp->o.n_ports; i++)
		if (!strcmp(rp->o.ports[i], name))
			return true;
	return false;
}

static int list_captures(struct runpcap *rp, const char *rundir, char *errbuf)
{
	char *dir = xasprintf("%s/%s", rundir, RUNDIR_PCAP_DIR);
	size_t cap = 0, i, n;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d) {
		errbuf_set(errbuf, "%s: %s (hyde pcap reads an emulated run's captures; hyde sim makes none)",
			   dir, strerror(errno));
		free(dir);
		return -EINVAL;
	}
	while ((de = readdir(d))) {
		struct rp_cap *c;

		n = strlen(de->d_name);
		if (de->d_name[0] == '.' || n <= 5 || strcmp(de->d_name + n - 5, ".pcap"))
			continue;
		xgrow((void **)&rp->caps, &cap, rp->n_caps + 1, sizeof(*rp->caps));
		c = &rp->caps[rp->n_caps++];
		memset(c, 0, sizeof(*c));
		c->name = xstrdup(de->d_name);
		c->name[n - 5] = '\0';
		c->path = xasprintf("%s/%s", dir, de->d_name);
		classify(rp->run->topo, c);
	}
	closedir(d);
	free(dir);
	if (!rp->n_caps) {
		errbuf_set(errbuf, "%s/%s: no captures (*.pcap)", rundir, RUNDIR_PCAP_DIR);
		return -EINVAL;
	}
	xqsort(rp->caps, rp->n_caps, sizeof(*rp->caps), cmp_cap);
	for (i = 0; i < rp->o.n_ports; i++) {
		size_t k;

		for (k = 0; k < rp->n_caps; k++)
			if (!strcmp(rp->caps[k].name, rp->o.ports[i]))
				break;
		if (k == rp->n_caps && strcmp(rp->o.ports[i], "ocs-control")) {
			errbuf_set(errbuf, "--port %s: the run captured no such port (its ports: %s, ..., %s, and ocs-control)",
				   rp->o.ports[i], rp->caps[0].name, rp->caps[rp->n_caps - 1].name);
			return -EINVAL;
		}
	}
	return 0;
}

static void describe(const struct topo *t, const struct rp_cap *c, char *buf, size_t len)
{
	char rate[32], e[20], o[20], d[32];

	switch (c->role) {
	case RP_HOST: {
		unsigned h = topo_host_id(t, c->rack, c->host);

		snprintf(buf, len, "node tor%u, port h%u: the link to host r%uh%u (EPS %s, OCS %s), %s",
			 c->rack, c->host, c->rack, c->host,
			 topo_addr_str(topo_host_addr(t, &t->eps_net, h), e, sizeof(e)),
			 topo_addr_str(topo_host_addr(t, &t->ocs_net, h), o, sizeof(o)),
			 unit_fmt_rate(t->host_rate, rate, sizeof(rate)));
		break;
	}
	case RP_UP:
		snprintf(buf, len, "node tor%u, port up: the uplink to the EPS core (core port r%u), %s (bw_e)",
			 c->rack, c->rack, unit_fmt_rate(t->uplink_rate, rate, sizeof(rate)));
		break;
	case RP_OCS:
		snprintf(buf, len, "node tor%u, port ocs: the link to the OCS crossbar (its port p%u), %s (bw_o), reconfiguration delta %s",
			 c->rack, c->rack, unit_fmt_rate(t->ocs_rate, rate, sizeof(rate)),
			 unit_fmt_time(t->delta, d, sizeof(d)));
		break;
	default:
		snprintf(buf, len, "capture %s (not a ToR port of topology %s)", c->name, t->name);
		break;
	}
}

static uint64_t cap_speed(const struct topo *t, const struct rp_cap *c)
{
	switch (c->role) {
	case RP_HOST:
		return t->host_rate;
	case RP_UP:
		return t->uplink_rate;
	case RP_OCS:
		return t->ocs_rate;
	default:
		return 0;
	}
}

/* Host i of rack k's addresses, or the rack of an address: -1 if none. */
static int addr_rack(const struct topo *t, uint32_t a)
{
	const struct topo_net *nets[2] = { &t->eps_net, &t->ocs_net };
	int k;

	for (k = 0; k < 2; k++) {
		uint32_t mask = nets[k]->plen ? ~0u << (32 - nets[k]->plen) : 0;

		if ((a & mask) == (nets[k]->addr & mask)) {
			uint32_t rack = (a - nets[k]->addr) >> t->host_bits;

			return rack < t->racks ? (int)rack : -1;
		}
	}
	return -1;
}

static bool is_host_addr(const struct topo *t, uint32_t a, unsigned host)
{
	return a == topo_host_addr(t, &t->eps_net, host) ||
	       a == topo_host_addr(t, &t->ocs_net, host);
}

/* The direction of an IPv4 packet on its ToR port: in (the ToR receives
 * it there) or out. */
static enum pcapng_dir direction(const struct topo *t, const struct rp_cap *c,
				 const struct pkt_tcp *p)
{
	int sr, dr;

	if (c->role == RP_HOST) {
		unsigned h = topo_host_id(t, c->rack, c->host);

		if (is_host_addr(t, p->saddr, h))
			return PCAPNG_DIR_IN;
		if (is_host_addr(t, p->daddr, h))
			return PCAPNG_DIR_OUT;
		return PCAPNG_DIR_UNKNOWN;
	}
	if (c->role != RP_UP && c->role != RP_OCS)
		return PCAPNG_DIR_UNKNOWN;
	sr = addr_rack(t, p->saddr);
	dr = addr_rack(t, p->daddr);
	if (sr == (int)c->rack && dr != (int)c->rack)
		return PCAPNG_DIR_OUT;
	if (dr == (int)c->rack && sr != (int)c->rack)
		return PCAPNG_DIR_IN;
	return PCAPNG_DIR_UNKNOWN;
}

static bool pkt_before(const struct rp_pkt *a, const struct rp_pkt *b)
{
	return a->ts != b->ts ? a->ts < b->ts : a->seq < b->seq;
}

static void ahead_push(struct rp_cap *c, const struct rp_pkt *pk)
{
	size_t i;

	xgrow((void **)&c->ahead, &c->cap_ahead, c->n_ahead + 1, sizeof(*c->ahead));
	i = c->n_ahead++;
	c->ahead[i] = *pk;
	while (i > 0 && pkt_before(&c->ahead[i], &c->ahead[(i - 1) / 2])) {
		struct rp_pkt t = c->ahead[i];

		c->ahead[i] = c->ahead[(i - 1) / 2];
		c->ahead[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/* Drop the earliest packet (the caller has written it). */
static void ahead_pop(struct rp_cap *c)
{
	size_t i = 0;

	free(c->ahead[0].data);
	c->ahead[0] = c->ahead[--c->n_ahead];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct rp_pkt t;

		if (l < c->n_ahead && pkt_before(&c->ahead[l], &c->ahead[m]))
			m = l;
		if (l + 1 < c->n_ahead && pkt_before(&c->ahead[l + 1], &c->ahead[m]))
			m = l + 1;
		if (m == i)
			return;
		t = c->ahead[i];
		c->ahead[i] = c->ahead[m];
		c->ahead[m] = t;
		i = m;
	}
}

static int cap_read(struct rp_cap *c, bool *cut, char *errbuf);

/* Read c ahead until its earliest packet can no longer be preceded by one
 * still in the file: the file has gone REORDER_NS past it, or ended.
 * c->ahead[0] is then the next packet (none: c is done). */
static int cap_fill(struct rp_cap *c, bool *cut, char *errbuf)
{
	int r;

	while (!c->eof && (!c->n_ahead || c->newest - c->ahead[0].ts < REORDER_NS))
		if ((r = cap_read(c, cut, errbuf)))
			return r;
	return 0;
}

/* The next packet of the file into c->ahead (c->eof at its end). A
 * capture cut inside a packet (an interrupted run) ends there; a corrupt
 * one is an error. */
static int cap_read(struct rp_cap *c, bool *cut, char *errbuf)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	struct rp_pkt pk;
	int r = pcap_next_ex(c->p, &h, &data);

	if (r == 1) {
		pk.ts = (int64_t)h->ts.tv_sec * NSEC_PER_SEC + h->ts.tv_usec;
		pk.seq = c->packets++;
		pk.caplen = h->caplen;
		pk.len = h->len;
		pk.data = xmalloc(h->caplen ? h->caplen : 1);
		memcpy(pk.data, data, h->caplen);
		if (pk.ts > c->newest || pk.seq == 0)
			c->newest = pk.ts;
		ahead_push(c, &pk);
		return 0;
	}
	c->eof = true;
	if (r == PCAP_ERROR_BREAK)
		return 0;
	if (pcap_file(c->p) && feof(pcap_file(c->p))) {
		log_warnx("pcap: %s: ends inside packet %" PRIu64 " (an interrupted run): the rest is left out",
			  c->path, c->packets + 1);
		*cut = true;
		return 0;
	}
	errbuf_set(errbuf, "%s: packet %" PRIu64 ": %s (truncated or corrupt capture)",
		   c->path, c->packets + 1, pcap_geterr(c->p));
	return -EINVAL;
}

static int cap_open(struct rp_cap *c, char *errbuf)
{
	char perr[PCAP_ERRBUF_SIZE] = "";

	c->p = pcap_open_offline_with_tstamp_precision(c->path, PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!c->p) {
		errbuf_set(errbuf, "%s: cannot read as a capture: %s", c->path, perr);
		return -EINVAL;
	}
	if (pcap_datalink(c->p) != DLT_EN10MB) {
		errbuf_set(errbuf, "%s: link type %d: expected Ethernet, as hyde captures its ToR ports",
			   c->path, pcap_datalink(c->p));
		return -EINVAL;
	}
	return 0;
}

/* ---- the OCS records ---- */

static void circuits_text(const struct topo *t, const char *words, char *buf, size_t len)
{
	char *copy = xstrdup(words), *f[64];
	int n = str_split_fields(copy, f, 64), i;
	size_t off = 0;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++) {
		unsigned a, b;
		char sep;

		if (sscanf(f[i], "%u%c%u", &a, &sep, &b) != 3 || a >= t->racks || b >= t->racks)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%stor%u %s tor%u", off ? ", " : "",
					a, sep == '-' ? "<->" : "->", b);
	}
	free(copy);
}

static char *ocs_comment(const struct topo *t, const struct rl_ocs_line *l)
{
	char what[16] = "", buf[512];
	unsigned a, b;
	long long down, up, ready, at;
	char stalled[256] = "";

	if (l->kind == RL_OCS_EVENT && sscanf(l->text, "%15s %u %u", what, &a, &b) == 3)
		return xasprintf("hyde ocs: circuit %u>%u %s (tor%u -> tor%u)%s", a, b, what, a, b,
				 what[0] == 'u' ? ": carries frames from now" : "");
	if (l->kind == RL_OCS_REQUEST) {
		if (!strncmp(l->text, "set ", 4)) {
			if (!strcmp(l->text + 4, "none"))
				return xstrdup("hyde ocs: the controller asks for no circuit at all");
			circuits_text(t, l->text + 4, buf, sizeof(buf));
			return xasprintf("hyde ocs: the controller asks for the circuits %s (%s)",
					 l->text + 4, buf);
		}
		if (!strcmp(l->text, "time"))
			return xstrdup("hyde ocs: the controller reads the crossbar's clocks (its events on the captures' clock)");
		if (!strcmp(l->text, "watch"))
			return xstrdup("hyde ocs: the controller asks for circuit events");
		return xasprintf("hyde ocs: request '%s'", l->text);
	}
	if (sscanf(l->text, "ok t=%lld down=%lld cancelled=%*d up=%lld ready=%lld stalled=%255s",
		   &at, &down, &up, &ready, stalled) >= 4) {
		char d[32];

		return xasprintf("hyde ocs: %lld circuit(s) down now, %lld up after delta (%s, at %lld ns monotonic); ports stalled: %s",
				 down, up, unit_human_time((double)(ready - at), d, sizeof(d)), ready,
				 *stalled ? stalled : "none");
	}
	if (!strncmp(l->text, "err", 3))
		return xasprintf("hyde ocs: the crossbar refused: %s", l->text);
	return xasprintf("hyde ocs: reply '%s'", l->text);
}

static void write_ocs(struct runpcap *rp, struct pcapng_writer *w, uint32_t if_id,
		      const struct rl_ocs_line *l)
{
	size_t tlen = strlen(l->text), hl;
	uint8_t *buf = xmalloc(tlen + 64);
	char *comment = ocs_comment(rp->run->topo, l);

	/* the controller's side: its requests sent, replies and events
	 * received */
	hl = pcapng_exported_pdu_header(buf, 64, "hyde_ocs",
					l->kind == RL_OCS_REQUEST ? EXP_PDU_P2P_SENT : EXP_PDU_P2P_RECV);
	memcpy(buf + hl, l->text, tlen);
	buf[hl + tlen] = '\n';
	pcapng_packet(w, if_id, l->t, buf, (uint32_t)(hl + tlen + 1), (uint32_t)(hl + tlen + 1),
		      l->kind == RL_OCS_REQUEST ? PCAPNG_DIR_OUT : PCAPNG_DIR_IN, comment);
	free(comment);
	free(buf);
}

/* ---- the whole ---- */

static bool job_known(const struct an_run *r, const char *job)
{
	size_t i;

	for (i = 0; i < r->n_jobs; i++)
		if (!strcmp(r->jobs[i].job, job))
			return true;
	return false;
}

static int select_flows(struct runpcap *rp, char *errbuf)
{
	const struct an_run *r = rp->run;
	size_t i, k;

	rp->keep = xcalloc(r->n_flows + 1, sizeof(*rp->keep));
	rp->comment = xcalloc(r->n_flows + 1, sizeof(*rp->comment));
	rp->filter_flows = rp->o.job || rp->o.n_flows;
	if (rp->o.job && !job_known(r, rp->o.job)) {
		errbuf_set(errbuf, "--job %s: no such job in the run", rp->o.job);
		return -EINVAL;
	}
	for (k = 0; k < rp->o.n_flows; k++) {
		for (i = 0; i < r->n_flows; i++)
			if (r->flows[i].flow == rp->o.flows[k])
				break;
		if (i == r->n_flows) {
			errbuf_set(errbuf, "--flow %" PRIu64 ": no such flow in %s", rp->o.flows[k],
				   RUNDIR_MANIFEST);
			return -EINVAL;
		}
	}
	for (i = 0; i < r->n_flows; i++) {
		const struct an_flow *f = &r->flows[i];
		bool keep = true;

		rp->comment[i] = flow_comment(r, f);
		if (rp->o.job && strcmp(r->jobs[f->job].job, rp->o.job))
			keep = false;
		if (keep && rp->o.n_flows) {
			keep = false;
			for (k = 0; k < rp->o.n_flows; k++)
				keep |= f->flow == rp->o.flows[k];
		}
		rp->keep[i] = keep;
	}
	return 0;
}

int runpcap_open(const char *rundir, const struct runpcap_opts *o,
		 struct runpcap **out, char *errbuf)
{
	struct runpcap *rp = xcalloc(1, sizeof(*rp));
	size_t i;
	int r;

	rp->o = *o;
	if ((r = an_run_load(rundir, &rp->run, errbuf)) ||
	    (r = runlog_load(rundir, &rp->rl, errbuf)) ||
	    (r = list_captures(rp, rundir, errbuf)) ||
	    (r = select_flows(rp, errbuf)))
		goto err;
	build_index(rp);
	/* the run's start: run_start in events.log, else its first arrival */
	rp->t0 = rp->rl->t0;
	for (i = 0; rp->t0 < 0 && i < rp->run->n_jobs; i++)
		if (rp->run->jobs[i].arrival_ns >= 0 &&
		    (rp->t0 < 0 || rp->run->jobs[i].arrival_ns < rp->t0))
			rp->t0 = rp->run->jobs[i].arrival_ns;
	if (rp->t0 < 0 && (o->from != INT64_MIN || o->to != INT64_MAX)) {
		errbuf_set(errbuf, "--window: %s/%s has no run_start line and %s no arrival: the run's start is unknown",
			   rundir, RUNDIR_EVENTS, RUNDIR_APP_JOBS);
		r = -EINVAL;
		goto err;
	}
	rp->from = o->from == INT64_MIN ? INT64_MIN : rp->t0 + o->from;
	rp->to = o->to == INT64_MAX ? INT64_MAX : rp->t0 + o->to;
	rp->ocs_if = !o->no_ocs && rp->rl->n_ocs && port_selected(rp, "ocs-control");
	*out = rp;
	return 0;
err:
	runpcap_free(rp);
	return r < 0 ? r : -EINVAL;
}

/* A binary min-heap of source indices by (time, index). */
struct heap {
	size_t *a, n;
	const int64_t *key;
};

static bool heap_less(const struct heap *h, size_t x, size_t y)
{
	return h->key[x] != h->key[y] ? h->key[x] < h->key[y] : x < y;
}

static void heap_down(struct heap *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i, t;

		if (l < h->n && heap_less(h, h->a[l], h->a[m]))
			m = l;
		if (l + 1 < h->n && heap_less(h, h->a[l + 1], h->a[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h->a[i], h->a[i] = h->a[m], h->a[m] = t;
		i = m;
	}
}

static void heap_up(struct heap *h, size_t i)
{
	while (i > 0) {
		size_t p = (i - 1) / 2, t;

		if (!heap_less(h, h->a[i], h->a[p]))
			return;
		t = h->a[i], h->a[i] = h->a[p], h->a[p] = t;
		i = p;
	}
}

static void write_interfaces(struct runpcap *rp, struct pcapng_writer *w,
			     uint32_t *ocs_if, struct runpcap_result *res)
{
	const struct topo *t = rp->run->topo;
	char descr[512], comment[128];
	size_t i;

	for (i = 0; i < rp->n_caps; i++) {
		struct rp_cap *c = &rp->caps[i];
		struct pcapng_if ifc = {
			.linktype = PCAPNG_LINKTYPE_ETHERNET,
			.snaplen = (uint32_t)pcap_snapshot(c->p),
			.name = c->name, .descr = descr, .speed_bps = cap_speed(t, c),
			.comment = comment,
		};

		if (!port_selected(rp, c->name))
			continue;
		describe(t, c, descr, sizeof(descr));
		snprintf(comment, sizeof(comment), "from %s/%s.pcap, snaplen %d%s",
			 RUNDIR_PCAP_DIR, c->name, pcap_snapshot(c->p),
			 pcap_snapshot(c->p) <= 256 ? " (headers only)" : "");
		c->if_id = pcapng_add_if(w, &ifc);
		res->interfaces++;
	}
	if (rp->ocs_if) {
		struct pcapng_if ifc = {
			.linktype = PCAPNG_LINKTYPE_UPPER_PDU,
			.name = "ocs-control",
			.descr = "the OCS crossbar's control protocol as its controller spoke it: requests, replies and circuit events (one record a line; dissector hyde_ocs, wireshark/hyde.lua)",
		};

		*ocs_if = pcapng_add_if(w, &ifc);
		res->interfaces++;
	}
}

/* One captured packet (c's earliest): filtered, annotated, written. */
static void write_packet(struct runpcap *rp, struct pcapng_writer *w, struct rp_cap *c,
			 struct runpcap_result *res)
{
	const struct rp_pkt *pk = &c->ahead[0];
	const struct topo *t = rp->run->topo;
	enum pcapng_dir dir = PCAPNG_DIR_UNKNOWN;
	const char *comment = NULL;
	struct pkt_tcp p;
	enum pkt_kind k;
	size_t line;

	/* later than REORDER_NS in its file: written where it came */
	if (pk->ts < c->written)
		res->late++;
	else
		c->written = pk->ts;
	if (pk->ts < rp->from || pk->ts > rp->to)
		return;
	k = pkt_decode(pk->data, pk->caplen, pk->len, pk->ts, &p);
	if (k == PKT_TCP) {
		dir = direction(t, c, &p);
		line = packet_line(rp, &p);
		if (line == SIZE_MAX) {
			if (rp->filter_flows)
				return;
			comment = "hyde: a TCP connection in no line of manifest.csv";
			res->unknown++;
		} else {
			if (!rp->keep[line])
				return;
			comment = rp->comment[line];
			res->commented++;
		}
	} else if (rp->filter_flows) {
		return;
	}
	pcapng_packet(w, c->if_id, pk->ts, pk->data, pk->caplen, pk->len, dir, comment);
	res->packets++;
}

int runpcap_write(struct runpcap *rp, FILE *fp, struct runpcap_result *res,
		  char *errbuf)
{
	const struct topo *t = rp->run->topo;
	size_t n_src = rp->n_caps + 1, i, next_ocs = 0;
	int64_t *key = xcalloc(n_src, sizeof(*key));
	struct heap h = { xcalloc(n_src, sizeof(size_t)), 0, key };
	struct pcapng_writer w;
	uint32_t ocs_if = 0;
	struct rlimit rl;
	char shb[512], t0[32];
	int r = 0;

	memset(res, 0, sizeof(*res));
	res->ocs_clock_how = rp->rl->ocs_clock_how;
	/* every capture open at once: a 64 x 16 fabric has 1,152 */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < rp->n_caps + 64) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > rp->n_caps + 64 ?
			      rp->n_caps + 64 : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	res->ocs_unplaced = rp->rl->ocs_events_unplaced;
	for (i = 0; i < rp->n_caps; i++)
		if ((r = cap_open(&rp->caps[i], errbuf)))
			goto out;
	snprintf(t0, sizeof(t0), "%" PRId64, rp->t0);
	snprintf(shb, sizeof(shb), "hyde run %s: topology %s, %u racks x %u hosts; the run started at %s ns (run_start in %s); packet comments name each TCP segment's flow (%s)",
		 rp->run->dir, t->name, t->racks, t->hosts, t0, RUNDIR_EVENTS, RUNDIR_MANIFEST);
	pcapng_begin(&w, fp, "hyde " PACKAGE_VERSION, shb);
	write_interfaces(rp, &w, &ocs_if, res);
	for (i = 0; i < rp->n_caps; i++) {
		struct rp_cap *c = &rp->caps[i];

		res->captures++;
		if (!port_selected(rp, c->name))
			continue;
		if ((r = cap_fill(c, &res->cut, errbuf)))
			goto out;
		if (!c->n_ahead)
			continue;
		key[i] = c->ahead[0].ts;
		h.a[h.n++] = i;
		heap_up(&h, h.n - 1);
	}
	if (rp->ocs_if) {
		key[rp->n_caps] = rp->rl->ocs[0].t;
		h.a[h.n++] = rp->n_caps;
		heap_up(&h, h.n - 1);
	}
	while (h.n && !pcapng_error(&w)) {
		size_t s = h.a[0];

		if (s == rp->n_caps) {
			const struct rl_ocs_line *l = &rp->rl->ocs[next_ocs++];

			if (l->t >= rp->from && l->t <= rp->to) {
				write_ocs(rp, &w, ocs_if, l);
				res->ocs_records++;
			}
			if (next_ocs == rp->rl->n_ocs) {
				h.a[0] = h.a[--h.n];
			} else {
				key[s] = rp->rl->ocs[next_ocs].t;
			}
		} else {
			struct rp_cap *c = &rp->caps[s];

			write_packet(rp, &w, c, res);
			ahead_pop(c);
			if ((r = cap_fill(c, &res->cut, errbuf)))
				goto out;
			if (!c->n_ahead)
				h.a[0] = h.a[--h.n];
			else
				key[s] = c->ahead[0].ts;
		}
		heap_down(&h, 0);
	}
	for (i = 0; i < rp->n_caps; i++)
		res->packets_in += rp->caps[i].packets;
	if ((r = pcapng_error(&w)))
		errbuf_set(errbuf, "writing the pcapng: %s", strerror(-r));
out:
	free(key);
	free(h.a);
	return r;
}

void runpcap_free(struct runpcap *rp)
{
	size_t i;

	if (!rp)
		return;
	for (i = 0; i < rp->n_caps; i++) {
		while (rp->caps[i].n_ahead)
			ahead_pop(&rp->caps[i]);
		free(rp->caps[i].ahead);
		if (rp->caps[i].p)
			pcap_close(rp->caps[i].p);
		free(rp->caps[i].name);
		free(rp->caps[i].path);
	}
	free(rp->caps);
	if (rp->run)
		for (i = 0; i < rp->run->n_flows; i++)
			if (rp->comment)
				free(rp->comment[i]);
	free(rp->comment);
	free(rp->keep);
	if (rp->index.slots)
		tuplemap_free(&rp->index);
	free(rp->groups);
	free(rp->order);
	an_run_free(rp->run);
	runlog_free(rp->rl);
	free(rp);
}
