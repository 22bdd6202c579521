/* neat: NEAT, network-scheduling-aware task placement (Munir, He,
 * Raghavendra, Le, Liu, CoNEXT'16), and the baselines it is measured
 * against: minload, mindist (§2.2, §6.1) and minfct (§6.3, Fig. 9). All
 * are host-mode schedulers (next_task + pick_host): the task is chosen,
 * then the host it runs on, which for a task that reads data is the
 * destination of its flows.
 *
 * What of the paper is where:
 * - A task's flows (§5.1.3): a map reads its input block from a replica
 *   holder unless one is on the host (the closest holder, as hyde's HDFS
 *   does); a reduce fetches its share of the finished maps' output from
 *   each host holding some. A job's input reads are one coflow, its
 *   shuffle another (NEAT's two coflows per MapReduce job).
 * - Which task next (§5.1.2): jobs in submission order; inside a job its
 *   maps, largest input first (a coflow's flows are placed largest
 *   first, each with the state the earlier ones left), then its reduces
 *   once they may start.
 * - The links predicted: `mode=edge` (the paper: only the candidate's
 *   edge link, its downlink for a task that receives data, as each
 *   network daemon predicts for its own node), or `mode=path` (every link
 *   of the flow's path: the source's uplink, the racks' uplink and
 *   downlink across the oversubscribed core, the candidate's downlink;
 *   hyde's fabric is not the paper's non-blocking core, §7).
 * - The predictors, eq. (3)-(17), and the compressed state, eq. (18)-(21):
 *   neat_predict.h. `predictor=fair` (default): the Fair FCT for every
 *   flow policy, as the paper's evaluation (§6.1, Prop. 4.1); `net`: the
 *   network's own policy; or one named. Under a coflow policy (--coflow)
 *   the CCT model of that policy (§6.1: "the prediction models
 *   corresponding to each evaluated coflow scheduling scheme"): Varys as a
 *   permutation by bottleneck time (SEBF), SCF as TCF (eq. 17), FCFS
 *   (eq. 10), Fair (eq. 11, 13). `bins=N` predicts from N size bins
 *   instead of every flow (0, the default: exact state).
 * - The objective: `objective=fct`, the new flow's (coflow's) predicted
 *   completion, max over its links (Alg. 1); `sum`, eq. (2): that plus
 *   the most, over its links, of the increase it causes the others;
 *   `auto` (default): fct for flows, sum for coflows (§4.2.2: the impact
 *   on existing coflows must be weighed explicitly).
 * - Preferred hosts (§5.1.1, Alg. 1): among the offered hosts that may
 *   run the task, those whose link carries no flow or only flows with at
 *   least as many bytes left as the task's (the node state: the smallest
 *   remaining flow). If none is preferred, `fallback=all` takes every
 *   candidate (the text), `fallback=rack` those in the input's rack (the
 *   pseudo-code's "1-hop away"; all if there are none). `preferred=no`
 *   is minFCT (Fig. 9); `minfct` is that scheduler by name.
 * - Alg. 1 read as meant: `found == 1` is an assignment, and minFCT is
 *   updated as hosts are compared (the printed loop never updates it).
 *   Equal predictions go to the host closest to the input (its rack),
 *   then to a seeded draw, never to the host number.
 * - The network view is exact (hyde_net_flows: every active flow with the
 *   bytes it has left), where the paper's daemons cache node states
 *   between queries; the paper's communication savings are not modelled.
 * Each placement is logged (`predict ...` in events.log) with its
 * predicted completion, for the prediction error of Fig. 10.
 *
 * minload (§6.1): the candidate whose link (the direction the task's data
 * takes) has the fewest bytes left to carry (`load=bytes`), or, as the
 * paper words it, the lowest utilisation over the last heartbeat period
 * (`load=util`, which needs heartbeats). mindist (§2.2, [12]): the
 * candidate closest to the task's input: fewest bytes across racks, then
 * fewest over the network, then, for a coflow, a rack its other tasks
 * run in (§6.2: "flows of the same coflow within the same rack"). Both
 * break ties with a seeded draw. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hyde/sched.h>

#include "sched/neat_predict.h"

enum neat_kind { K_NEAT, K_MINLOAD, K_MINDIST };

struct neat_opts {
	char predictor[16];
	char objective[8];
	char mode[8];
	bool preferred;
	char fallback[8];
	unsigned bins;
	char load[8];
};

/* One flow the task would make on a candidate host. */
struct newflow {
	unsigned src;
	double bytes;
};

/* The flows into a host as the predictor of its downlink sees them
 * (competitors as flows, in hyde_net_flows_into's order) and the node
 * state (the least bytes left of one; INFINITY: none), of version ver;
 * and the last prediction made on them (e_t, e_delta for a task of e_on
 * bytes into the host while e_ver == ver: the same inputs, the same
 * prediction, to the bit). */
struct hview {
	uint64_t ver;
	double least;
	struct neat_comp *comp;
	uint32_t n, cap;
	uint64_t e_ver;
	double e_on, e_t, e_delta;
};

/* A link of the fabric as the predictor sees it. */
struct lkey {
	enum hyde_link_kind kind;
	unsigned idx;
};

struct neat_priv {
	struct neat_opts o; /* first: the options table points into it */
	enum neat_kind kind;
	bool path, coflow, sum, log;
	enum neat_model fmodel, cmodel;
	bool varys;
	/* the snapshot of the network, per pick; by_host: per candidate
	 * instead, of the flows into it alone (what a prediction of the
	 * candidate's own link reads), kept in hv while their version holds */
	bool by_host;
	struct hview *hv;
	struct hyde_flow_state *fl;
	size_t nfl, cap_fl;
	uint32_t *by_dst, *dst_off;	 /* flows into each host */
	uint32_t *by_src, *src_off;	 /* flows out of each host */
	uint32_t *by_rup, *rup_off;	 /* EPS flows out of each rack */
	uint32_t *by_rdown, *rdown_off; /* EPS flows into each rack */
	double *cf_left;		 /* per coflow (job x 3 + kind): bytes left */
	double *cf_gamma;		 /* Varys: its bottleneck time alone */
	double *cf_acc;			 /* scratch per coflow */
	uint32_t *touched;
	size_t n_touched;
	struct neat_comp *comp;
	size_t cap_comp;
	uint64_t *per_host;
	uint32_t ph_job, ph_done; /* per_host is of job ph_job with ph_done maps done */
	uint32_t *ph_src, n_src;  /* the hosts with some of it, in order */
	/* the sums a loop over a reduce's flows makes, in ph_src's order: of
	 * the first i shares (ph_pre[i], ph_pre[n_src] all of them, valid when
	 * pre_at == ph_gen), and a host's place in ph_src (if per_host > 0) */
	double *ph_pre;
	uint32_t *ph_pos;
	uint64_t pre_at;
	/* mindist's reduce scores of that output, worked out as candidates
	 * ask (valid where *_at == ph_gen): per rack the bytes from other
	 * racks, per host the bytes from other hosts (the tie-break) */
	uint64_t ph_gen, *cross_at, *other_at;
	double *cross, *other;
	/* which task next, for one job at a time (a task never becomes
	 * pending again): its maps by input size, largest first, and the
	 * first that may still be pending; the first reduce that may be */
	uint32_t nx_job, nx_cur, nx_red, *nx_maps;
	size_t cap_nx;
	struct newflow *nf;
	size_t cap_nf;
	uint64_t placed, preferred_hits, fallbacks;
};

#define N_KINDS 3

static const struct hyde_opt neat_opts_table[] = {
	{ "predictor", HYDE_OPT_STR, offsetof(struct neat_opts, predictor), 0, 16,
	  "flow completion model: fair (Prop. 4.1), fcfs, srpt, las, or net (the network's)" },
	{ "objective", HYDE_OPT_STR, offsetof(struct neat_opts, objective), 0, 8,
	  "fct (Alg. 1), sum (eq. 2: + the others' delay), auto (fct for flows, sum for coflows)" },
	{ "mode", HYDE_OPT_STR, offsetof(struct neat_opts, mode), 0, 8,
	  "links predicted: edge (the candidate's, as the paper) or path (every link)" },
	{ "preferred", HYDE_OPT_BOOL, offsetof(struct neat_opts, preferred), 0, 1,
	  "prefer hosts whose flows are all at least the task's size (no: minFCT)" },
	{ "fallback", HYDE_OPT_STR, offsetof(struct neat_opts, fallback), 0, 8,
	  "no preferred host: all (the text) or rack (the input's, Alg. 1's code)" },
	{ "bins", HYDE_OPT_UNS, offsetof(struct neat_opts, bins), 0, NEAT_MAX_BINS,
	  "compressed link state in this many size bins (eq. 18-21); 0: exact" },
};

static const struct hyde_opt minload_opts_table[] = {
	{ "load", HYDE_OPT_STR, offsetof(struct neat_opts, load), 0, 8,
	  "bytes (left to carry on the host's link) or util (its utilisation, heartbeats)" },
};

static void neat_defaults(void *priv)
{
	struct neat_opts *o = priv;

	strcpy(o->predictor, "fair");
	strcpy(o->objective, "auto");
	strcpy(o->mode, "edge");
	o->preferred = true;
	strcpy(o->fallback, "all");
	o->bins = 0;
	strcpy(o->load, "bytes");
}

static void minfct_defaults(void *priv)
{
	neat_defaults(priv);
	((struct neat_opts *)priv)->preferred = false;
}

static int model_of(const char *name, enum hyde_net_policy net, enum neat_model *out)
{
	static const char *const names[] = { "fcfs", "fair", "srpt", "las" };
	static const enum neat_model of_net[] = { NEAT_FAIR, NEAT_FCFS, NEAT_SRPT, NEAT_LAS };
	size_t i;

	if (!strcmp(name, "net")) {
		*out = of_net[net];
		return 0;
	}
	for (i = 0; i < 4; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum neat_model)i;
			return 0;
		}
	return -1;
}

static int init_common(struct hyde_sched *s, enum neat_kind kind, char *errbuf)
{
	struct neat_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	size_t H = ci->n_hosts, R = ci->racks;

	p->kind = kind;
	if (model_of(p->o.predictor, ci->net, &p->fmodel)) {
		snprintf(errbuf, HYDE_SCHED_ERRBUF,
			 "predictor=%s: expected fair, fcfs, srpt, las or net", p->o.predictor);
		return -1;
	}
	if (strcmp(p->o.mode, "edge") && strcmp(p->o.mode, "path")) {
		snprintf(errbuf, HYDE_SCHED_ERRBUF, "mode=%s: expected edge or path", p->o.mode);
		return -1;
	}
	if (strcmp(p->o.objective, "auto") && strcmp(p->o.objective, "fct") &&
	    strcmp(p->o.objective, "sum")) {
		snprintf(errbuf, HYDE_SCHED_ERRBUF, "objective=%s: expected auto, fct or sum",
			 p->o.objective);
		return -1;
	}
	if (strcmp(p->o.fallback, "all") && strcmp(p->o.fallback, "rack")) {
		snprintf(errbuf, HYDE_SCHED_ERRBUF, "fallback=%s: expected all or rack", p->o.fallback);
		return -1;
	}
	if (strcmp(p->o.load, "bytes") && strcmp(p->o.load, "util")) {
		snprintf(errbuf, HYDE_SCHED_ERRBUF, "load=%s: expected bytes or util", p->o.load);
		return -1;
	}
	if (p->o.bins == 1) {
		snprintf(errbuf, HYDE_SCHED_ERRBUF, "bins=1: expected 0 (exact) or 2 to %d",
			 NEAT_MAX_BINS);
		return -1;
	}
	p->path = !strcmp(p->o.mode, "path");
	p->coflow = ci->coflow != HYDE_COFLOW_NONE;
	switch (ci->coflow) {
	case HYDE_COFLOW_FCFS:
		p->cmodel = NEAT_CF_FCFS;
		break;
	case HYDE_COFLOW_VARYS:
		p->cmodel = NEAT_CF_PERM;
		p->varys = true;
		break;
	case HYDE_COFLOW_SCF:
		p->cmodel = NEAT_CF_PERM;
		break;
	default:
		p->cmodel = NEAT_CF_FAIR;
		break;
	}
	p->sum = !strcmp(p->o.objective, "sum") || (!strcmp(p->o.objective, "auto") && p->coflow);
	p->by_host = kind != K_NEAT || (!p->path && !p->coflow); /* (minload, mindist: never more) */
	if (p->by_host && kind == K_NEAT)
		p->hv = hyde_calloc(H, sizeof(*p->hv));
	p->dst_off = hyde_calloc(H + 2, sizeof(uint32_t));
	p->src_off = hyde_calloc(H + 2, sizeof(uint32_t));
	p->rup_off = hyde_calloc(R + 2, sizeof(uint32_t));
	p->rdown_off = hyde_calloc(R + 2, sizeof(uint32_t));
	p->cf_left = hyde_calloc(ci->n_jobs * N_KINDS + 1, sizeof(double));
	p->cf_gamma = hyde_calloc(ci->n_jobs * N_KINDS + 1, sizeof(double));
	p->cf_acc = hyde_calloc(ci->n_jobs * N_KINDS + 1, sizeof(double));
	p->touched = hyde_calloc(ci->n_jobs * N_KINDS + 1, sizeof(uint32_t));
	p->per_host = hyde_calloc(H + 1, sizeof(uint64_t));
	p->ph_src = hyde_calloc(H + 1, sizeof(uint32_t));
	p->ph_pre = hyde_calloc(H + 1, sizeof(double));
	p->ph_pos = hyde_calloc(H + 1, sizeof(uint32_t));
	p->ph_job = p->nx_job = UINT32_MAX;
	p->other = hyde_calloc(H + 1, sizeof(double));
	p->other_at = hyde_calloc(H + 1, sizeof(uint64_t));
	if (kind == K_MINDIST) {
		p->cross = hyde_calloc(R + 1, sizeof(double));
		p->cross_at = hyde_calloc(R + 1, sizeof(uint64_t));
	}
	return 0;
}

static int neat_init(struct hyde_sched *s, char *errbuf)
{
	return init_common(s, K_NEAT, errbuf);
}

static int minload_init(struct hyde_sched *s, char *errbuf)
{
	return init_common(s, K_MINLOAD, errbuf);
}

static int mindist_init(struct hyde_sched *s, char *errbuf)
{
	return init_common(s, K_MINDIST, errbuf);
}

static void neat_destroy(struct hyde_sched *s)
{
	struct neat_priv *p = s->priv;
	unsigned h;

	if (p->kind == K_NEAT)
		hyde_log(s, "placed %llu tasks, %llu on a preferred host, %llu with none preferred",
			 (unsigned long long)p->placed, (unsigned long long)p->preferred_hits,
			 (unsigned long long)p->fallbacks);
	if (p->hv)
		for (h = 0; h < hyde_cluster(s)->n_hosts; h++)
			free(p->hv[h].comp);
	free(p->hv);
	free(p->fl);
	free(p->by_dst);
	free(p->dst_off);
	free(p->by_src);
	free(p->src_off);
	free(p->by_rup);
	free(p->rup_off);
	free(p->by_rdown);
	free(p->rdown_off);
	free(p->cf_left);
	free(p->cf_gamma);
	free(p->cf_acc);
	free(p->touched);
	free(p->comp);
	free(p->per_host);
	free(p->ph_src);
	free(p->ph_pre);
	free(p->ph_pos);
	free(p->cross);
	free(p->cross_at);
	free(p->other);
	free(p->other_at);
	free(p->nx_maps);
	free(p->nf);
}

/* ---- which task next ---- */

static const struct hyde_job *nx_sort_job; /* (qsort has no context) */

/* Largest input first, then the lower index: the order of a scan that
 * keeps the first largest. */
static int cmp_map_size(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t bx = nx_sort_job->blocks[x].bytes, by = nx_sort_job->blocks[y].bytes;

	if (bx != by)
		return bx > by ? -1 : 1;
	return (x > y) - (x < y);
}

/* Job j's next task by the rule (its largest pending map, else its
 * first pending reduce), with the job's cursors. */
static void nx_load(struct neat_priv *p, const struct hyde_job *j)
{
	uint32_t k;

	if (p->nx_job == j->idx)
		return;
	hyde_grow((void **)&p->nx_maps, &p->cap_nx, j->n_maps + 1, sizeof(uint32_t));
	for (k = 0; k < j->n_maps; k++)
		p->nx_maps[k] = k;
	nx_sort_job = j;
	qsort(p->nx_maps, j->n_maps, sizeof(uint32_t), cmp_map_size);
	nx_sort_job = NULL;
	p->nx_job = j->idx;
	p->nx_cur = p->nx_red = 0;
}

static const struct hyde_task *largest_pending_map(struct neat_priv *p, const struct hyde_job *j)
{
	nx_load(p, j);
	while (p->nx_cur < j->n_maps && j->maps[p->nx_maps[p->nx_cur]].state != HYDE_TASK_PENDING)
		p->nx_cur++;
	return p->nx_cur < j->n_maps ? &j->maps[p->nx_maps[p->nx_cur]] : NULL;
}

static const struct hyde_task *first_pending_reduce(struct neat_priv *p, const struct hyde_job *j)
{
	nx_load(p, j);
	while (p->nx_red < j->n_reduces && j->reduces[p->nx_red].state != HYDE_TASK_PENDING)
		p->nx_red++;
	return p->nx_red < j->n_reduces ? &j->reduces[p->nx_red] : NULL;
}

static const struct hyde_task *neat_next(struct hyde_sched *s)
{
	struct neat_priv *p = s->priv;
	size_t n, i;
	const uint32_t *act = hyde_active_jobs(s, &n);

	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, act[i]);
		const struct hyde_task *t;

		if (j->state != HYDE_JOB_READY)
			continue;
		if (hyde_job_has_pending(j, HYDE_MAP) && (t = largest_pending_map(p, j)))
			return t;
		if (hyde_job_has_pending(j, HYDE_REDUCE) && hyde_reduces_may_start(s, j) &&
		    (t = first_pending_reduce(p, j)))
			return t;
	}
	return NULL;
}

/* ---- the snapshot of the network ---- */

static size_t cf_of(const struct hyde_flow_state *f)
{
	return (size_t)f->job * N_KINDS + f->kind;
}

static bool crosses_eps(const struct hyde_flow_state *f)
{
	return f->path == HYDE_PATH_EPS;
}

/* CSR of flow indices by a key (UINT32_MAX: not listed). */
static void group(struct neat_priv *p, uint32_t **list, uint32_t *off, size_t nkeys,
		  uint32_t (*key)(const struct hyde_flow_state *))
{
	size_t i;
	uint32_t *fill;

	memset(off, 0, (nkeys + 2) * sizeof(uint32_t));
	for (i = 0; i < p->nfl; i++) {
		uint32_t k = key(&p->fl[i]);

		if (k != UINT32_MAX)
			off[k + 1]++;
	}
	for (i = 0; i < nkeys; i++)
		off[i + 1] += off[i];
	*list = hyde_realloc(*list, off[nkeys] + 1, sizeof(uint32_t));
	fill = hyde_calloc(nkeys + 1, sizeof(uint32_t));
	for (i = 0; i < p->nfl; i++) {
		uint32_t k = key(&p->fl[i]);

		if (k != UINT32_MAX)
			(*list)[off[k] + fill[k]++] = (uint32_t)i;
	}
	free(fill);
}

/* group()'s keys need the racks' size; set by snapshot() before it
 * groups (one scheduler runs at a time in a process). */
static unsigned snap_hosts_per_rack;

static uint32_t key_dst(const struct hyde_flow_state *f)
{
	return f->path == HYDE_PATH_HOST ? UINT32_MAX : f->dst_host;
}

static uint32_t key_src(const struct hyde_flow_state *f)
{
	return f->path == HYDE_PATH_HOST ? UINT32_MAX : f->src_host;
}

static uint32_t key_rup(const struct hyde_flow_state *f)
{
	return crosses_eps(f) ? f->src_host / snap_hosts_per_rack : UINT32_MAX;
}

static uint32_t key_rdown(const struct hyde_flow_state *f)
{
	return crosses_eps(f) ? f->dst_host / snap_hosts_per_rack : UINT32_MAX;
}

static double link_cap(const struct hyde_cluster_info *ci, enum hyde_link_kind k)
{
	return (double)(k == HYDE_LINK_TOR_UP || k == HYDE_LINK_TOR_DOWN ? ci->uplink_rate
									 : ci->host_rate);
}

/* The flows on a link, from the snapshot's groups. */
static void link_flows(const struct neat_priv *p, struct lkey l, const uint32_t **list,
		       size_t *n)
{
	const uint32_t *lst, *off;

	switch (l.kind) {
	case HYDE_LINK_HOST_UP:
		lst = p->by_src, off = p->src_off;
		break;
	case HYDE_LINK_TOR_UP:
		lst = p->by_rup, off = p->rup_off;
		break;
	case HYDE_LINK_TOR_DOWN:
		lst = p->by_rdown, off = p->rdown_off;
		break;
	default:
		lst = p->by_dst, off = p->dst_off;
		break;
	}
	*list = lst + off[l.idx];
	*n = off[l.idx + 1] - off[l.idx];
}

static void snapshot(struct hyde_sched *s)
{
	struct neat_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	size_t n, i;

	for (i = 0; i < p->nfl; i++) { /* the last snapshot's coflows */
		p->cf_left[cf_of(&p->fl[i])] = 0;
		p->cf_gamma[cf_of(&p->fl[i])] = 0;
	}
	n = hyde_net_flows(s, p->fl, p->cap_fl);
	if (n > p->cap_fl) {
		p->cap_fl = n + n / 2 + 16;
		p->fl = hyde_realloc(p->fl, p->cap_fl, sizeof(*p->fl));
		n = hyde_net_flows(s, p->fl, p->cap_fl);
	}
	p->nfl = n;
	snap_hosts_per_rack = ci->hosts_per_rack;
	group(p, &p->by_dst, p->dst_off, ci->n_hosts, key_dst);
	group(p, &p->by_src, p->src_off, ci->n_hosts, key_src);
	group(p, &p->by_rup, p->rup_off, ci->racks, key_rup);
	group(p, &p->by_rdown, p->rdown_off, ci->racks, key_rdown);
	for (i = 0; i < n; i++)
		if (p->fl[i].path != HYDE_PATH_HOST)
			p->cf_left[cf_of(&p->fl[i])] += (double)p->fl[i].left;
	if (p->varys) { /* SEBF's key: bytes on a link / its rate, most */
		static const enum hyde_link_kind kinds[] = { HYDE_LINK_HOST_UP, HYDE_LINK_HOST_DOWN,
							     HYDE_LINK_TOR_UP, HYDE_LINK_TOR_DOWN };
		size_t k;

		for (k = 0; k < (p->path ? 4 : 2); k++) {
			size_t nl = kinds[k] >= HYDE_LINK_TOR_UP ? ci->racks : ci->n_hosts, l;

			for (l = 0; l < nl; l++) {
				const uint32_t *lst;
				size_t m, j;

				link_flows(p, (struct lkey){ kinds[k], (unsigned)l }, &lst, &m);
				for (j = 0; j < m; j++)
					p->cf_acc[cf_of(&p->fl[lst[j]])] += (double)p->fl[lst[j]].left;
				for (j = 0; j < m; j++) {
					size_t c = cf_of(&p->fl[lst[j]]);
					double g = p->cf_acc[c] * 8 / link_cap(ci, kinds[k]);

					if (g > p->cf_gamma[c])
						p->cf_gamma[c] = g;
				}
				for (j = 0; j < m; j++)
					p->cf_acc[cf_of(&p->fl[lst[j]])] = 0;
			}
		}
	}
}

/* Host h's view (by_host), read again only if its flows' version moved. */
static const struct hview *host_view(struct hyde_sched *s, unsigned h)
{
	struct neat_priv *p = s->priv;
	struct hview *v = &p->hv[h];
	uint64_t ver = hyde_net_into_version(s, h);
	size_t n, i;

	if (v->ver == ver)
		return v;
	n = hyde_net_flows_into(s, h, p->fl, p->cap_fl);
	if (n > p->cap_fl) {
		p->cap_fl = n + n / 2 + 16;
		p->fl = hyde_realloc(p->fl, p->cap_fl, sizeof(*p->fl));
		n = hyde_net_flows_into(s, h, p->fl, p->cap_fl);
	}
	if (n > v->cap) {
		v->cap = (uint32_t)(n + n / 2 + 4);
		v->comp = hyde_realloc(v->comp, v->cap, sizeof(*v->comp));
	}
	v->least = INFINITY;
	for (i = 0; i < n; i++) {
		double left = (double)p->fl[i].left;

		v->comp[i] = (struct neat_comp){ left, left, (double)p->fl[i].sent, 0 };
		if (left < v->least)
			v->least = left;
	}
	v->n = (uint32_t)n;
	v->ver = ver;
	return v;
}

/* ---- a task's flows on a candidate ---- */

/* The replica a reader on host h takes: -1 if h holds one, else one in
 * h's rack, else the first (hyde's HDFS draws among equals: the rack is
 * what matters to the links predicted). */
static int block_source(const struct hyde_cluster_info *ci, const struct hyde_block *b,
			unsigned h)
{
	uint32_t k;

	if (!b->n_replicas || hyde_block_on_host(b, h))
		return -1;
	for (k = 0; k < b->n_replicas; k++)
		if (hyde_rack_of(ci, b->replica[k]) == hyde_rack_of(ci, h))
			return (int)b->replica[k];
	return (int)b->replica[0];
}

/* The flows the task would make on host h, into p->nf; their number. A
 * reduce's share of each host's finished map output is an even split
 * (what the API tells of partitions). */
static size_t task_flows(struct hyde_sched *s, const struct hyde_task *t, unsigned h)
{
	struct neat_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	const struct hyde_job *j = hyde_job(s, t->job);
	size_t n = 0;
	uint32_t i, x;

	if (t->kind == HYDE_MAP) {
		int src = block_source(ci, &j->blocks[t->idx], h);

		hyde_grow((void **)&p->nf, &p->cap_nf, 1, sizeof(*p->nf));
		if (src >= 0 && j->blocks[t->idx].bytes)
			p->nf[n++] = (struct newflow){ (unsigned)src, (double)j->blocks[t->idx].bytes };
		return n;
	}
	hyde_grow((void **)&p->nf, &p->cap_nf, ci->n_hosts, sizeof(*p->nf));
	for (i = 0; i < p->n_src; i++)
		if ((x = p->ph_src[i]) != h)
			p->nf[n++] = (struct newflow){ x, (double)p->per_host[x] / j->n_reduces };
	return n;
}

/* The bytes the task reads in all (its size, for the node state). */
static double task_bytes(struct hyde_sched *s, const struct hyde_task *t)
{
	struct neat_priv *p = s->priv;
	const struct hyde_job *j = hyde_job(s, t->job);
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	double b = 0;
	uint32_t i;

	(void)ci;
	if (t->kind == HYDE_MAP)
		return (double)j->blocks[t->idx].bytes;
	for (i = 0; i < p->n_src; i++) /* (a host with none adds +0) */
		b += (double)p->per_host[p->ph_src[i]] / j->n_reduces;
	return b;
}

/* The links a flow src -> h crosses that are predicted. */
static size_t flow_links(const struct neat_priv *p, const struct hyde_cluster_info *ci,
			 unsigned src, unsigned h, struct lkey *out)
{
	size_t n = 0;

	out[n++] = (struct lkey){ HYDE_LINK_HOST_DOWN, h };
	if (!p->path)
		return n;
	out[n++] = (struct lkey){ HYDE_LINK_HOST_UP, src };
	if (hyde_rack_of(ci, src) != hyde_rack_of(ci, h)) {
		out[n++] = (struct lkey){ HYDE_LINK_TOR_UP, hyde_rack_of(ci, src) };
		out[n++] = (struct lkey){ HYDE_LINK_TOR_DOWN, hyde_rack_of(ci, h) };
	}
	return n;
}

/* A reduce's bytes on a host of rack k (by_rack: the bytes its flows
 * would carry from other racks, mindist's score) or on host k (from other
 * hosts: mindist's tie-break, and what NEAT predicts on k's downlink): the
 * sums the loop over task_flows's flows makes, in the same order, so the
 * same to the last bit, worked out once per rack and host for the job's
 * output as it stands. */
static double reduce_sum(struct hyde_sched *s, const struct hyde_task *t, bool by_rack, unsigned k)
{
	struct neat_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	uint64_t *at = by_rack ? &p->cross_at[k] : &p->other_at[k];
	double *sum = by_rack ? &p->cross[k] : &p->other[k], b = 0;
	uint32_t i, x, n_red = hyde_job(s, t->job)->n_reduces;

	if (*at == p->ph_gen)
		return *sum;
	if (!by_rack) { /* the first shares up to k's are the prefix's */
		if (p->pre_at != p->ph_gen) {
			for (i = 0; i < p->n_src; i++)
				p->ph_pre[i + 1] = p->ph_pre[i] +
						   (double)p->per_host[p->ph_src[i]] / n_red;
			p->pre_at = p->ph_gen;
		}
		if (!p->per_host[k])
			return p->ph_pre[p->n_src]; /* (none of it on k) */
		b = p->ph_pre[p->ph_pos[k]];
		for (i = p->ph_pos[k] + 1; i < p->n_src; i++)
			b += (double)p->per_host[p->ph_src[i]] / n_red;
	} else
		for (i = 0; i < p->n_src; i++) {
			x = p->ph_src[i];
			if (hyde_rack_of(ci, x) != k)
				b += (double)p->per_host[x] / n_red;
		}
	*sum = b;
	*at = p->ph_gen;
	return b;
}

/* ---- prediction on a candidate ---- */

struct eval {
	double t, delta; /* max over links of each */
};

/* The competitors on link l, excluding the task's own coflow `self`
 * (flows of a coflow under a coflow policy; SIZE_MAX: none), as flows or
 * as coflows. */
static size_t competitors(struct neat_priv *p, struct lkey l, size_t self, bool as_coflows)
{
	const uint32_t *lst;
	size_t m, j, n = 0;

	link_flows(p, l, &lst, &m);
	hyde_grow((void **)&p->comp, &p->cap_comp, m + 1, sizeof(*p->comp));
	if (!as_coflows) {
		for (j = 0; j < m; j++) {
			const struct hyde_flow_state *f = &p->fl[lst[j]];

			p->comp[n++] = (struct neat_comp){ (double)f->left, (double)f->left,
							   (double)f->sent, 0 };
		}
		return n;
	}
	p->n_touched = 0;
	for (j = 0; j < m; j++) {
		size_t c = cf_of(&p->fl[lst[j]]);

		if (c == self)
			continue;
		if (p->cf_acc[c] == 0)
			p->touched[p->n_touched++] = (uint32_t)c;
		p->cf_acc[c] += (double)p->fl[lst[j]].left;
	}
	for (j = 0; j < p->n_touched; j++) {
		size_t c = p->touched[j];

		p->comp[n++] = (struct neat_comp){ p->cf_left[c], p->cf_acc[c], 0,
						   p->varys ? p->cf_gamma[c] : p->cf_left[c] };
		p->cf_acc[c] = 0;
	}
	return n;
}

/* The bytes of coflow c on link l now (its own earlier flows). */
static double own_on_link(struct neat_priv *p, struct lkey l, size_t c)
{
	const uint32_t *lst;
	size_t m, j;
	double b = 0;

	link_flows(p, l, &lst, &m);
	for (j = 0; j < m; j++)
		if (cf_of(&p->fl[lst[j]]) == c)
			b += (double)p->fl[lst[j]].left;
	return b;
}

/* The pending bytes of the task's coflow (its maps' blocks, or its
 * reduces' shares), the task's included. */
static double coflow_pending(struct hyde_sched *s, const struct hyde_task *t)
{
	const struct hyde_job *j = hyde_job(s, t->job);
	double b = 0;
	uint32_t k;

	if (t->kind == HYDE_MAP) {
		for (k = 0; k < j->n_maps; k++)
			if (j->maps[k].state == HYDE_TASK_PENDING)
				b += (double)j->blocks[k].bytes;
		return b;
	}
	for (k = 0; k < j->n_reduces; k++)
		if (j->reduces[k].state == HYDE_TASK_PENDING)
			b += task_bytes(s, &j->reduces[k]);
	return b;
}

/* The prediction on host h's downlink of a task of b bytes into h,
 * against the flows into h as hv[h] holds them, kept there for its
 * version (out of line: 99% of a pick's candidates find it kept, and
 * the loop over them is leaner without this). */
static void __attribute__((noinline)) edge_predict(struct hyde_sched *s, unsigned h, double b,
						   struct eval *ev)
{
	struct neat_priv *p = s->priv;
	struct hview *v = &p->hv[h];
	struct neat_link l = { link_cap(hyde_cluster(s), HYDE_LINK_HOST_DOWN), v->comp, v->n, NULL };
	struct neat_bins bins;
	struct neat_pred pr;
	size_t k;

	if (p->o.bins) {
		neat_bins_init(&bins, p->o.bins);
		for (k = 0; k < l.n; k++)
			neat_bins_add(&bins, &l.comp[k]);
		l.bins = &bins;
	}
	neat_predict_flow(p->fmodel, &l, b, &pr);
	if (pr.t > ev->t)
		ev->t = pr.t;
	if (pr.delta > ev->delta)
		ev->delta = pr.delta;
	v->e_ver = v->ver;
	v->e_on = b;
	v->e_t = ev->t;
	v->e_delta = ev->delta;
}

/* evaluate's prediction for an edge-mode scheduler of flows (by_host):
 * one link, h's downlink, carrying what task_flows's flow or reduce_sum
 * would put on it, against the flows into h as hv[h] holds them (fresh:
 * host_view first); blk: a map's input block. The same prediction for
 * the same bytes while hv[h]'s version holds is kept there. */
static void evaluate_edge(struct hyde_sched *s, const struct hyde_task *t,
			  const struct hyde_block *blk, unsigned h, struct eval *ev)
{
	struct neat_priv *p = s->priv;
	const struct hview *v = &p->hv[h];
	double b;

	ev->t = ev->delta = 0;
	if (t->kind == HYDE_REDUCE) {
		if (p->n_src == (p->per_host[h] != 0))
			return; /* all its data is on h */
		b = reduce_sum(s, t, false, h);
	} else {
		/* (where block_source gives none; its rack does not matter) */
		if (!blk->n_replicas || !blk->bytes || hyde_block_on_host(blk, h))
			return; /* its input is on h */
		b = (double)blk->bytes;
	}
	if (v->e_ver == v->ver && v->e_on == b) {
		ev->t = v->e_t;
		ev->delta = v->e_delta;
		return;
	}
	edge_predict(s, h, b, ev);
}

static void evaluate(struct hyde_sched *s, const struct hyde_task *t, unsigned h,
		     struct eval *ev)
{
	struct neat_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	size_t nf = 0, i, k, nl = 0, self = SIZE_MAX;
	struct lkey links[4 * 64], fl[4];
	double on[4 * 64], s0 = 0, key0 = 0;
	struct neat_bins bins;

	ev->t = ev->delta = 0;
	if (!p->path && t->kind == HYDE_REDUCE) {
		/* one link, h's downlink, with the sum the loop below makes
		 * (reduce_sum's, kept for the job's output as it stands) */
		if (p->n_src == (p->per_host[h] != 0))
			return; /* all its data is on h */
		links[nl] = (struct lkey){ HYDE_LINK_HOST_DOWN, h };
		on[nl++] = reduce_sum(s, t, false, h);
	} else if (!(nf = task_flows(s, t, h)))
		return; /* all its data is on h */
	/* the links its flows cross, with their bytes on each (a task of
	 * many flows is one flow of their bytes on each link) */
	for (i = 0; i < nf; i++) {
		size_t m = flow_links(p, ci, p->nf[i].src, h, fl);

		for (k = 0; k < m; k++) {
			size_t x;

			for (x = 0; x < nl; x++)
				if (links[x].kind == fl[k].kind && links[x].idx == fl[k].idx)
					break;
			if (x == nl) {
				if (nl == sizeof(links) / sizeof(links[0]))
					continue; /* more sources than predicted links */
				links[nl] = fl[k];
				on[nl++] = 0;
			}
			on[x] += p->nf[i].bytes;
		}
	}
	if (p->coflow) {
		self = (size_t)t->job * N_KINDS + (t->kind == HYDE_MAP ? HYDE_FLOW_INPUT
								       : HYDE_FLOW_SHUFFLE);
		s0 = p->cf_left[self] + coflow_pending(s, t);
		key0 = s0;
		for (i = 0; i < nl; i++)
			on[i] += own_on_link(p, links[i], self);
		if (p->varys) {
			key0 = p->cf_gamma[self];
			for (i = 0; i < nl; i++) {
				double g = on[i] * 8 / link_cap(ci, links[i].kind);

				if (g > key0)
					key0 = g;
			}
		}
	}
	for (i = 0; i < nl; i++) {
		struct neat_link l = { link_cap(ci, links[i].kind), p->comp, 0, NULL };
		struct neat_pred pr;

		l.n = competitors(p, links[i], self, p->coflow);
		l.comp = p->comp; /* (competitors may have moved it) */
		if (p->o.bins && !p->varys) {
			neat_bins_init(&bins, p->o.bins);
			for (k = 0; k < l.n; k++)
				neat_bins_add(&bins, &l.comp[k]);
			l.bins = &bins;
		}
		if (p->coflow)
			neat_predict_coflow(p->cmodel, &l, s0, on[i], key0, &pr);
		else
			neat_predict_flow(p->fmodel, &l, on[i], &pr);
		if (pr.t > ev->t)
			ev->t = pr.t;
		if (pr.delta > ev->delta)
			ev->delta = pr.delta;
	}
}

/* ---- choosing ---- */

/* The smallest bytes left of a flow into h (the node state); INFINITY
 * for an idle link. */
static double node_state(const struct neat_priv *p, unsigned h)
{
	double m = INFINITY;
	uint32_t k;

	if (p->by_host)
		return p->hv[h].least;
	for (k = p->dst_off[h]; k < p->dst_off[h + 1]; k++)
		if ((double)p->fl[p->by_dst[k]].left < m)
			m = (double)p->fl[p->by_dst[k]].left;
	return m;
}

/* A candidate's score, lowest best; near: in the input's rack. */
struct cand {
	int host;
	double score, score2;
	bool near;
	unsigned ties;
};

/* Keep the better of the best so far and h; equal scores go to the one
 * near the input, then to a seeded draw among the equals (reservoir). */
static bool score_ties(const struct cand *best, double score)
{
	double tol = 1e-9 * (fabs(best->score) > 1 ? fabs(best->score) : 1);

	return best->host >= 0 && score <= best->score + tol && score >= best->score - tol;
}

static void consider(struct hyde_sched *s, struct cand *best, unsigned h, double score,
		     double score2, bool near)
{
	double tol = 1e-9 * (fabs(best->score) > 1 ? fabs(best->score) : 1);

	if (best->host >= 0) {
		if (score > best->score + tol)
			return;
		if (score_ties(best, score)) { /* equal */
			if (score2 > best->score2 + 1e-9)
				return;
			if (score2 >= best->score2 - 1e-9) {
				if (best->near && !near)
					return;
				if (best->near == near) {
					best->ties++;
					if (hyde_rand_below(s, best->ties))
						return;
					best->host = (int)h;
					return;
				}
			}
		}
	}
	*best = (struct cand){ (int)h, score, score2, near, 1 };
}

static bool candidate(struct hyde_sched *s, const struct hyde_task *t, unsigned h)
{
	return hyde_host_offered(s, h) > 0 && hyde_task_fits(s, t, h);
}

/* The rack of the task's input (its largest source), or -1. */
static int input_rack(struct hyde_sched *s, const struct hyde_task *t)
{
	struct neat_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	const struct hyde_job *j = hyde_job(s, t->job);
	uint64_t most = 0;
	int best = -1;
	uint32_t i, x;

	if (t->kind == HYDE_MAP)
		return j->blocks[t->idx].n_replicas
			       ? (int)hyde_rack_of(ci, j->blocks[t->idx].replica[0])
			       : -1;
	for (i = 0; i < p->n_src; i++)
		if (p->per_host[x = p->ph_src[i]] > most) {
			most = p->per_host[x];
			best = (int)hyde_rack_of(ci, x);
		}
	return best;
}

static int pick_neat(struct hyde_sched *s, const struct hyde_task *t, int in_rack)
{
	struct neat_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	struct cand pref = { -1, 0, 0, false, 0 }, all = { -1, 0, 0, false, 0 },
		    rack = { -1, 0, 0, false, 0 };
	double size = task_bytes(s, t), pref_t = 0, all_t = 0, rack_t = 0, *pt;
	const struct hyde_block *blk =
		t->kind == HYDE_MAP ? &hyde_job(s, t->job)->blocks[t->idx] : NULL;
	const struct cand *chosen;
	unsigned h;

	for (h = 0; h < ci->n_hosts; h++) {
		struct eval ev;
		double score;
		bool near;

		if (!candidate(s, t, h))
			continue;
		if (p->by_host) {
			host_view(s, h);
			evaluate_edge(s, t, blk, h, &ev);
		} else {
			evaluate(s, t, h, &ev);
		}
		score = p->sum ? ev.t + ev.delta : ev.t;
		near = in_rack >= 0 && hyde_rack_of(ci, h) == (unsigned)in_rack;
		if (p->o.preferred && node_state(p, h) >= size) {
			consider(s, &pref, h, score, 0, near);
			if (pref.host == (int)h)
				pref_t = ev.t;
		}
		consider(s, &all, h, score, 0, near);
		if (all.host == (int)h)
			all_t = ev.t;
		if (near) {
			consider(s, &rack, h, score, 0, near);
			if (rack.host == (int)h)
				rack_t = ev.t;
		}
	}
	if (pref.host >= 0) {
		chosen = &pref, pt = &pref_t;
		p->preferred_hits++;
	} else if (!strcmp(p->o.fallback, "rack") && rack.host >= 0) {
		chosen = &rack, pt = &rack_t;
		p->fallbacks += p->o.preferred;
	} else {
		chosen = &all, pt = &all_t;
		p->fallbacks += p->o.preferred;
	}
	if (chosen->host >= 0) {
		const struct hyde_job *j = hyde_job(s, t->job);

		p->placed++;
		hyde_log(s, "predict %s %s %u r%uh%u %.0f", j->id,
			 t->kind == HYDE_MAP ? "map" : "reduce", t->idx,
			 hyde_rack_of(ci, (unsigned)chosen->host),
			 (unsigned)chosen->host % ci->hosts_per_rack, *pt * 1e9);
	}
	return chosen->host;
}

static int pick_baseline(struct hyde_sched *s, const struct hyde_task *t)
{
	struct neat_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	struct cand best = { -1, 0, 0, false, 0 };
	bool util = !strcmp(p->o.load, "util");
	int lazy = -1; /* the best so far whose score2 is still to work out */
	const struct hyde_block *blk =
		t->kind == HYDE_MAP ? &hyde_job(s, t->job)->blocks[t->idx] : NULL;
	unsigned h;

	for (h = 0; h < ci->n_hosts; h++) {
		double score = 0, score2 = 0;
		bool near = false;

		if (!candidate(s, t, h))
			continue;
		if (p->kind == K_MINLOAD) {
			if (util) {
				struct hyde_link_state ls;

				if (!hyde_net_link(s, HYDE_LINK_HOST_DOWN, h, &ls))
					score = ls.utilisation;
			} else {
				/* what a loop over its flows in added up as
				 * doubles, to the bit while the sum is below 2^53
				 * (9 PB: every partial sum a whole number) */
				score = (double)hyde_net_bytes_into(s, h);
			}
		} else if (t->kind == HYDE_REDUCE) { /* mindist, as below */
			bool tied;

			score = reduce_sum(s, t, true, hyde_rack_of(ci, h));
			near = hyde_tasks_on_rack(s, t->job, t->kind, hyde_rack_of(ci, h)) > 0;
			/* the tie-break only where the bytes across racks tie */
			if ((tied = score_ties(&best, score))) {
				if (lazy >= 0)
					best.score2 = reduce_sum(s, t, false, (unsigned)lazy);
				lazy = -1;
				score2 = reduce_sum(s, t, false, h);
			}
			consider(s, &best, h, score, score2, near);
			if (best.host == (int)h && best.ties == 1) /* h the best so far */
				lazy = tied ? -1 : (int)h;
			continue;
		} else { /* mindist: bytes across racks, then over the network */
			/* (task_flows's one flow, read from the block) */
			int src = block_source(ci, blk, h);

			if (src >= 0 && blk->bytes) {
				if (hyde_rack_of(ci, (unsigned)src) != hyde_rack_of(ci, h))
					score = (double)blk->bytes;
				score2 = (double)blk->bytes;
			}
			/* a rack where a task of its coflow runs or ran */
			near = hyde_tasks_on_rack(s, t->job, t->kind, hyde_rack_of(ci, h)) > 0;
		}
		consider(s, &best, h, score, score2, near);
	}
	return best.host;
}

static int neat_pick_host(struct hyde_sched *s, const struct hyde_task *t)
{
	struct neat_priv *p = s->priv;

	/* a whole snapshot for what reads more than a candidate's own flows
	 * in (a path's links, coflows), none for what reads no flow */
	if (p->kind == K_NEAT && !p->by_host)
		snapshot(s);
	/* (a finished map stays so, on its host: the same maps done, the
	 * same output per host) */
	if (t->kind == HYDE_REDUCE &&
	    (p->ph_job != t->job || p->ph_done != hyde_job(s, t->job)->maps_done)) {
		const struct hyde_cluster_info *ci = hyde_cluster(s);
		uint32_t x;

		hyde_job_map_output(s, t->job, NULL, p->per_host);
		for (x = 0, p->n_src = 0; x < ci->n_hosts; x++)
			if (p->per_host[x]) {
				p->ph_pos[x] = p->n_src;
				p->ph_src[p->n_src++] = x;
			}
		p->ph_job = t->job;
		p->ph_done = hyde_job(s, t->job)->maps_done;
		p->ph_gen++;
	}
	if (p->kind == K_NEAT)
		return pick_neat(s, t, input_rack(s, t));
	return pick_baseline(s, t);
}

const struct hyde_sched_ops sched_neat = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "neat",
	.summary = "NEAT: the host with the least predicted flow/coflow completion, among preferred hosts",
	.priv_size = sizeof(struct neat_priv),
	.opts = neat_opts_table,
	.n_opts = sizeof(neat_opts_table) / sizeof(neat_opts_table[0]),
	.defaults = neat_defaults,
	.init = neat_init,
	.destroy = neat_destroy,
	.next_task = neat_next,
	.pick_host = neat_pick_host,
};

const struct hyde_sched_ops sched_minfct = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "minfct",
	.summary = "NEAT without preferred hosts: the least predicted completion (NEAT Fig. 9)",
	.priv_size = sizeof(struct neat_priv),
	.opts = neat_opts_table,
	.n_opts = sizeof(neat_opts_table) / sizeof(neat_opts_table[0]),
	.defaults = minfct_defaults,
	.init = neat_init,
	.destroy = neat_destroy,
	.next_task = neat_next,
	.pick_host = neat_pick_host,
};

const struct hyde_sched_ops sched_minload = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "minload",
	.summary = "the host whose link has the least left to carry (NEAT's minLoad)",
	.priv_size = sizeof(struct neat_priv),
	.opts = minload_opts_table,
	.n_opts = sizeof(minload_opts_table) / sizeof(minload_opts_table[0]),
	.defaults = neat_defaults,
	.init = minload_init,
	.destroy = neat_destroy,
	.next_task = neat_next,
	.pick_host = neat_pick_host,
};

const struct hyde_sched_ops sched_mindist = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "mindist",
	.summary = "the host closest to the task's input (NEAT's minDist)",
	.priv_size = sizeof(struct neat_priv),
	.defaults = neat_defaults,
	.init = mindist_init,
	.destroy = neat_destroy,
	.next_task = neat_next,
	.pick_host = neat_pick_host,
};
