/* dawn: Dawn, the dependency-aware network-adaptive scheduler of job DAGs
 * ([Dawn §3], IEEE TPDS; a first version at ICAC 2017). The pure rules are
 * in dawn_policy.c (dawn.h), so tests can drive them on the paper's
 * examples; this file keeps the plan of every job and answers containers.
 *
 * - Dependency detector (§3.1): Next_x is the job's children, Prev_{x,y}
 *   the other parents of each child y (the workload's DAG, hyde_job's
 *   parents/children). The plan looks two levels ahead: a job's reduce
 *   stage is placed for its children's input, given their co-parents.
 * - Online plan (§3.2), per job, its preferred racks and its traffic on
 *   each rack, Network_Cost_r:
 *   map stage: Cost_r = the job's input bytes not on rack r (eq. 2);
 *   max_map the rack holding most of it (eq. 3); preferred = {max_map}.
 *   Reduce stage: Cost_r = its map output not on rack r; max_reduce the
 *   rack holding most (eq. 4); dep_reduce the rack minimising
 *   sum over y in Next_x of R_Cost_min^y(In) with In_y = Out_x on that
 *   rack + the finished co-parents' output (eq. 5-6), whose traffic is
 *   eq. 7 (Cost_r at dep_reduce); preferred = {max_reduce, dep_reduce}.
 * - Alg. 2: the plan is brought up to date at every container offer (a
 *   heartbeat with free resources): max_map once a job is READY (its
 *   blocks located), max_reduce and dep_reduce once its maps are all done,
 *   and dep_reduce again when a job of some Prev_{x,y} has finished since.
 * - Alg. 3 (balancing, factor b, default 0): at an offer on rack i, P_i
 *   the jobs preferring i, P_max those preferring the most preferred rack
 *   max; if the rule holds, rack i joins the preferred racks of the jobs
 *   preferring max (with its Cost_i as their traffic there).
 * - Alg. 1 (adaptive task scheduler): the network is saturated when the
 *   cross-rack load is at or over theta (0.8); saturated, the job with the
 *   least traffic among those preferring rack i; unsaturated, the most;
 *   equal traffic: the least (saturated) / most cross-node traffic of the
 *   task it would run on the host; then submission order. In the chosen
 *   job: a map, node-local, then rack-local, then any (an aggregated map
 *   reads remotely, §3.2.1); or a reduce. No job prefers rack i: the
 *   container stays idle.
 *
 * Where the paper leaves a choice open, this file chooses (options name
 * the alternatives):
 * - Bytes, not blocks, in eq. 2-3 (eq. 4-7 are in bytes; blocks of one
 *   job are of one size in hyde's workloads but a split of parents' output
 *   is not). A block counts on every rack holding a replica ("different
 *   blocks in the r-th rack", §3.2.1): hyde_input_bytes_on_rack.
 * - Out_x in eq. 5 is all of x's output on the candidate rack, and the
 *   finished co-parents' Out_i their output parts on their writer's rack
 *   (replica 0): §3.2.4's "output stored in the rack where the final tasks
 *   run"; the output size is the workload's (§3.2.4: sizes are known). A
 *   child that does not read its parents' output (no input=parents) is
 *   left out of eq. 6. dep_reduce ties keep max_reduce.
 * - Balancing's condition: Alg. 3 line 6 literally returns when
 *   P_max x b <= P_i, which never balances at the default b = 0, while
 *   §3.3.2 says b = 0 balances exactly when P_i = 0. Read as: balance iff
 *   P_i < P_max and P_i <= b x P_max. "The job that prefer the rack max":
 *   every such job. P counts the jobs in the cluster with a plan, whether
 *   they have a task to place or not (a rack whose jobs are all running
 *   is not one nobody prefers; counting only jobs with pending tasks
 *   balanced a two-chain example onto the other chain's rack whenever
 *   that chain was between stages). A rack added
 *   by balancing stays until the job's next stage (Alg. 2 recomputes).
 * - Sorting (Alg. 1 lines 6-9, 14-17): the literal text sorts by each
 *   job's min (saturated) / max (unsaturated) traffic over its preferred
 *   racks but places on rack i; sort=rack (default) sorts by the job's
 *   traffic on rack i, what placing there costs; sort=minmax is literal.
 * - Saturation: theta of the cluster's cross-rack capacity, the ToR
 *   uplinks' bytes over the network view's last interval (one heartbeat
 *   period); scope=rack: rack i's uplink or downlink at or over theta.
 *   Without an EPS core the network is never saturated (hyde's OCS is not
 *   counted: Dawn's clusters have none).
 * - Stages run one after the other (§3.2.1's assumption, and dep_reduce
 *   needs the map output): a job's reduces may start once its maps are
 *   all done (slowstart is not used).
 * - Line 31 (node level, "skipped for simplicity" in the paper): a map's
 *   input bytes not on the host, a reduce's map output not on the host.
 * - No fairness between users (§3.4: Dawn, like ShuffleWatcher, aims at
 *   throughput).
 * Ablation: dep=no drops dep_reduce (preferred = {max_reduce}).
 * The log line at the end counts the offers answered saturated /
 * unsaturated or left idle, the balancing events, and Fig. 14's tasks: by
 * the data they process (a first-level job's input, dependent data, map
 * output), the network's state, and whether some of it was off the rack. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hyde/sched.h>

#include "sched/dawn.h"

enum dawn_stage { ST_NONE, ST_MAP, ST_REDUCE };

struct dawn_opts {
	double theta, b;
	char scope[8]; /* cluster | rack */
	char sort[8];  /* rack | minmax */
	bool dep;
};

struct dawn_job {
	enum dawn_stage stage;
	uint64_t pref, added; /* preferred racks; those balancing added */
	unsigned max_rack, dep_rack;
	bool dirty;	      /* a co-parent finished: dep_reduce again */
	double *cost;	      /* R: Network_Cost_r of its current stage */
	/* its maps' output per host and in all, read once in its reduce
	 * stage (its maps are all done: they stay so), or NULL */
	uint64_t *out_host, out_total;
};

struct dawn_priv {
	struct dawn_opts o; /* first */
	struct dawn_job *jobs;
	struct dawn_cand *cand;
	uint32_t *cand_job;
	const struct hyde_task **cand_task;
	uint64_t *pref;
	double *here, *prev;
	uint64_t *per_rack, *per_host;
	struct dawn_child *kids;
	size_t kids_cap;
	bool rack_scope;
	enum dawn_sort sort;
	/* what ran: for the log */
	uint64_t n_sat, n_unsat, n_idle, n_balanced, n_dep_diff, n_dep_update;
	/* Fig. 14: tasks placed, by the data they process (TD_*), by the
	 * network's state then (saturated 1), and whether their data was not
	 * all on the rack (cross 1) */
	uint64_t n_task[3][2][2];
};

/* What a task processes (Fig. 14(a)): a first-level job's input, its
 * parents' output (dependent data), or map output (intermediate data). */
enum { TD_INPUT, TD_DEPENDENT, TD_INTERMEDIATE };
static const char *const td_name[3] = { "input", "dependent", "intermediate" };

static const struct hyde_opt dawn_opts[] = {
	{ "theta", HYDE_OPT_DOUBLE, offsetof(struct dawn_opts, theta), 0, 10,
	  "cross-rack load (of capacity) from which the network is saturated" },
	{ "b", HYDE_OPT_DOUBLE, offsetof(struct dawn_opts, b), 0, 1,
	  "balancing factor: balance rack i when its preferences <= b x the most preferred's" },
	{ "scope", HYDE_OPT_STR, offsetof(struct dawn_opts, scope), 0, 8,
	  "saturation of the cluster (all uplinks) or of the rack (its uplink/downlink)" },
	{ "sort", HYDE_OPT_STR, offsetof(struct dawn_opts, sort), 0, 8,
	  "jobs sorted by their traffic on the free rack (rack) or min/max over theirs (minmax)" },
	{ "dep", HYDE_OPT_BOOL, offsetof(struct dawn_opts, dep), 0, 1,
	  "dep_reduce among the reduce stage's preferred racks (no: max_reduce only)" },
};

static void dawn_defaults(void *priv)
{
	struct dawn_priv *p = priv;

	p->o.theta = 0.8; /* not given in the paper; ShuffleWatcher's and NAS's */
	p->o.b = 0;	  /* §3.3.2's default */
	strcpy(p->o.scope, "cluster");
	strcpy(p->o.sort, "rack");
	p->o.dep = true;
}

static int dawn_init(struct hyde_sched *s, char *errbuf)
{
	struct dawn_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);

	if (!strcmp(p->o.scope, "rack")) {
		p->rack_scope = true;
	} else if (strcmp(p->o.scope, "cluster")) {
		snprintf(errbuf, HYDE_SCHED_ERRBUF, "scope: expected cluster or rack, got '%s'",
			 p->o.scope);
		return -EINVAL;
	}
	if (!strcmp(p->o.sort, "minmax")) {
		p->sort = DAWN_SORT_MINMAX;
	} else if (!strcmp(p->o.sort, "rack")) {
		p->sort = DAWN_SORT_RACK;
	} else {
		snprintf(errbuf, HYDE_SCHED_ERRBUF, "sort: expected rack or minmax, got '%s'",
			 p->o.sort);
		return -EINVAL;
	}
	if (ci->racks > DAWN_MAX_RACKS) {
		snprintf(errbuf, HYDE_SCHED_ERRBUF, "dawn: at most %d racks, the topology has %u",
			 DAWN_MAX_RACKS, ci->racks);
		return -EINVAL;
	}
	p->jobs = hyde_calloc(ci->n_jobs + 1, sizeof(*p->jobs));
	p->cand = hyde_calloc(ci->n_jobs + 1, sizeof(*p->cand));
	p->cand_job = hyde_calloc(ci->n_jobs + 1, sizeof(uint32_t));
	p->cand_task = hyde_calloc(ci->n_jobs + 1, sizeof(*p->cand_task));
	p->pref = hyde_calloc(ci->n_jobs + 1, sizeof(uint64_t));
	p->here = hyde_calloc(ci->racks, sizeof(double));
	p->per_rack = hyde_calloc(ci->racks, sizeof(uint64_t));
	p->per_host = hyde_calloc(ci->n_hosts, sizeof(uint64_t));
	return 0;
}

static void dawn_destroy(struct hyde_sched *s)
{
	struct dawn_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	size_t i;

	hyde_log(s,
		 "offers saturated=%llu unsaturated=%llu idle=%llu balanced=%llu "
		 "dep_reduce!=max_reduce=%llu dep_updates=%llu",
		 (unsigned long long)p->n_sat, (unsigned long long)p->n_unsat,
		 (unsigned long long)p->n_idle, (unsigned long long)p->n_balanced,
		 (unsigned long long)p->n_dep_diff, (unsigned long long)p->n_dep_update);
	for (i = 0; i < 3; i++)
		hyde_log(s,
			 "tasks %s: saturated local=%llu cross=%llu unsaturated local=%llu cross=%llu",
			 td_name[i], (unsigned long long)p->n_task[i][1][0],
			 (unsigned long long)p->n_task[i][1][1], (unsigned long long)p->n_task[i][0][0],
			 (unsigned long long)p->n_task[i][0][1]);
	for (i = 0; p->jobs && i < ci->n_jobs; i++) {
		free(p->jobs[i].cost);
		free(p->jobs[i].out_host);
	}
	free(p->jobs);
	free(p->cand);
	free(p->cand_job);
	free(p->cand_task);
	free(p->pref);
	free(p->here);
	free(p->prev);
	free(p->per_rack);
	free(p->per_host);
	free(p->kids);
}

/* Network_Cost_r of the stage for every rack, from what each rack holds. */
static void set_costs(struct dawn_priv *p, struct dawn_job *dj, unsigned R)
{
	unsigned r;

	if (!dj->cost)
		dj->cost = hyde_calloc(R, sizeof(double));
	for (r = 0; r < R; r++)
		dj->cost[r] = dawn_cost_at(p->here, R, r);
}

/* §3.2.1: max_map over the job's input (eq. 2-3). */
static void plan_map(struct hyde_sched *s, struct dawn_priv *p, const struct hyde_job *j)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	struct dawn_job *dj = &p->jobs[j->idx];
	double total = 0;
	unsigned r;
	uint32_t m;

	for (r = 0; r < ci->racks; r++) {
		p->here[r] = 0;
		for (m = 0; m < j->n_maps; m++)
			p->here[r] += (double)hyde_input_bytes_on_rack(s, j, m, r);
	}
	for (m = 0; m < j->n_maps; m++)
		total += (double)j->blocks[m].bytes;
	dj->max_rack = dawn_max_rack(p->here, ci->racks, NULL);
	if (!dj->cost)
		dj->cost = hyde_calloc(ci->racks, sizeof(double));
	/* eq. (2): |In_x^Rack| is the job's blocks, not the sum over racks
	 * (a replicated block is on several) */
	for (r = 0; r < ci->racks; r++)
		dj->cost[r] = fmax(0, total - p->here[r]);
	dj->pref = 1ULL << dj->max_rack;
	dj->added = 0;
	dj->stage = ST_MAP;
}

/* The finished co-parents' output per rack, on their writers' racks. */
static void add_output(struct hyde_sched *s, const struct hyde_job *z, double *out)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	uint32_t q;

	if (!z->outputs)
		return;
	for (q = 0; q < z->n_reduces; q++)
		if (z->outputs[q].n_replicas)
			out[hyde_rack_of(ci, z->outputs[q].replica[0])] += (double)z->outputs[q].bytes;
}

/* eq. (5)-(6) over Next_x, given the co-parents finished now. */
static void plan_dep(struct hyde_sched *s, struct dawn_priv *p, const struct hyde_job *x)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	struct dawn_job *dj = &p->jobs[x->idx];
	unsigned R = ci->racks;
	size_t n = 0;
	uint32_t c, k;

	dj->dep_rack = dj->max_rack;
	if (p->o.dep && x->n_children) {
		if (p->kids_cap < x->n_children) {
			p->kids = hyde_realloc(p->kids, x->n_children, sizeof(*p->kids));
			p->prev = hyde_realloc(p->prev, (size_t)x->n_children * R, sizeof(double));
			p->kids_cap = x->n_children;
		}
		for (c = 0; c < x->n_children; c++) {
			const struct hyde_job *y = hyde_job(s, x->children[c]);
			double *out = &p->prev[n * R];

			if (!y->input_from_parents)
				continue; /* it does not read x's output */
			memset(out, 0, R * sizeof(double));
			for (k = 0; k < y->n_parents; k++) {
				const struct hyde_job *z = hyde_job(s, y->parents[k]);

				if (z->idx != x->idx && z->state == HYDE_JOB_DONE)
					add_output(s, z, out);
			}
			p->kids[n].from_x = (double)x->output;
			p->kids[n].prev_out = out;
			n++;
		}
		if (n)
			dj->dep_rack = dawn_dep_reduce(p->kids, n, R, dj->max_rack, NULL);
	}
	if (dj->dep_rack != dj->max_rack)
		p->n_dep_diff++;
	dj->pref = 1ULL << dj->max_rack | 1ULL << dj->dep_rack | dj->added;
	dj->dirty = false;
}

/* §3.2.2: max_reduce (eq. 4), dep_reduce (eq. 5-7). */
static void plan_reduce(struct hyde_sched *s, struct dawn_priv *p, const struct hyde_job *j)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	struct dawn_job *dj = &p->jobs[j->idx];
	unsigned r;

	hyde_job_map_output(s, j->idx, p->per_rack, NULL);
	for (r = 0; r < ci->racks; r++)
		p->here[r] = (double)p->per_rack[r];
	dj->max_rack = dawn_max_rack(p->here, ci->racks, NULL);
	set_costs(p, dj, ci->racks);
	dj->added = 0;
	dj->stage = ST_REDUCE;
	plan_dep(s, p, j);
}

/* Alg. 2 over the jobs in the cluster. */
static void plan_update(struct hyde_sched *s, struct dawn_priv *p)
{
	size_t n, i;
	const uint32_t *act = hyde_active_jobs(s, &n);

	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, act[i]);
		struct dawn_job *dj = &p->jobs[j->idx];

		if (j->state != HYDE_JOB_READY || !j->blocks)
			continue;
		if (dj->stage == ST_NONE)
			plan_map(s, p, j); /* lines 3-5 */
		if (dj->stage == ST_MAP && hyde_job_maps_done(j)) {
			plan_reduce(s, p, j); /* lines 7-12 */
		} else if (dj->stage == ST_REDUCE && dj->dirty) {
			plan_dep(s, p, j); /* lines 13-16 */
			p->n_dep_update++;
		}
	}
}

static bool saturated(struct hyde_sched *s, struct dawn_priv *p, unsigned rack)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	struct hyde_link_state up, down;
	double bytes = 0, cap = 0;
	int64_t from, to;
	unsigned r;

	if (!ci->has_eps)
		return false;
	if (p->rack_scope) {
		if (hyde_net_link(s, HYDE_LINK_TOR_UP, rack, &up) ||
		    hyde_net_link(s, HYDE_LINK_TOR_DOWN, rack, &down))
			return false;
		return fmax(up.utilisation, down.utilisation) >= p->o.theta;
	}
	hyde_net_interval(s, &from, &to);
	if (from < 0 || to <= from)
		return false;
	for (r = 0; r < ci->racks; r++) {
		if (hyde_net_link(s, HYDE_LINK_TOR_UP, r, &up))
			return false;
		cap += (double)up.capacity / 8 * (double)(to - from) / 1e9;
		bytes += (double)up.bytes;
	}
	return cap > 0 && bytes / cap >= p->o.theta;
}

/* The task job j would run on host, and its cross-node traffic there. */
static const struct hyde_task *task_for(struct hyde_sched *s, struct dawn_priv *p,
					const struct hyde_job *j, unsigned host, double *node)
{
	const struct hyde_task *t;
	enum hyde_locality lvl;
	uint64_t total = 0;
	unsigned h;

	if (p->jobs[j->idx].stage == ST_MAP) {
		t = hyde_pending_map(s, j, host, HYDE_OFF_RACK, &lvl);
		if (t) {
			uint64_t here = hyde_input_bytes_on_host(s, j, t->idx, host);

			*node = here < j->blocks[t->idx].bytes
				? (double)(j->blocks[t->idx].bytes - here) : 0;
		}
		return t;
	}
	t = hyde_pending_reduce(s, j, host);
	if (t) {
		const struct hyde_cluster_info *ci = hyde_cluster(s);
		struct dawn_job *dj = &p->jobs[j->idx];

		/* (a reduce stage starts once every map is done: a job's
		 * output per host does not change in it; a scan of every map
		 * a pick was a fifth of dawn's time at scale 1) */
		if (!dj->out_host) {
			dj->out_host = hyde_calloc(ci->n_hosts, sizeof(uint64_t));
			hyde_job_map_output(s, j->idx, NULL, dj->out_host);
			for (h = 0, total = 0; h < ci->n_hosts; h++)
				total += dj->out_host[h];
			dj->out_total = total;
		}
		*node = (double)(dj->out_total - dj->out_host[host]);
	}
	return t;
}

/* Fig. 14: the task's data and whether some of it is off the rack. */
static void count_task(struct hyde_sched *s, struct dawn_priv *p, const struct hyde_task *t,
		       unsigned rack, bool sat)
{
	const struct hyde_job *j = hyde_job(s, t->job);
	int kind;
	bool cross;

	if (t->kind == HYDE_MAP) {
		kind = j->input_from_parents ? TD_DEPENDENT : TD_INPUT;
		cross = hyde_input_bytes_on_rack(s, j, t->idx, rack) < j->blocks[t->idx].bytes;
	} else {
		kind = TD_INTERMEDIATE;
		cross = p->jobs[j->idx].cost && p->jobs[j->idx].cost[rack] > 0;
	}
	p->n_task[kind][sat][cross]++;
}

static const struct hyde_task *dawn_pick(struct hyde_sched *s, unsigned host)
{
	struct dawn_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	unsigned rack = hyde_rack_of(ci, host);
	size_t n_act, i, n = 0;
	const uint32_t *act;
	bool sat;
	long k;

	plan_update(s, p); /* Alg. 1 line 3 */
	act = hyde_active_jobs(s, &n_act);
	for (i = 0; i < n_act; i++) {
		const struct hyde_job *j = hyde_job(s, act[i]);
		struct dawn_job *dj = &p->jobs[j->idx];

		/* every job in the cluster with a plan, running tasks or
		 * not: a rack whose jobs are busy is still preferred */
		if (j->state != HYDE_JOB_READY || dj->stage == ST_NONE)
			continue;
		p->cand_job[n] = j->idx;
		p->pref[n] = dj->pref;
		n++;
	}
	/* line 4: Alg. 3 */
	if (dawn_balance(p->pref, n, ci->racks, rack, p->o.b)) {
		p->n_balanced++;
		for (i = 0; i < n; i++) {
			struct dawn_job *dj = &p->jobs[p->cand_job[i]];

			dj->added |= p->pref[i] & ~dj->pref;
			dj->pref = p->pref[i];
		}
	}
	/* the candidates: jobs preferring rack i with a task for the host */
	{
		size_t m = 0;

		for (i = 0; i < n; i++) {
			const struct hyde_job *j = hyde_job(s, p->cand_job[i]);
			struct dawn_job *dj = &p->jobs[j->idx];
			const struct hyde_task *t;
			double node = 0;

			if (!(dj->pref >> rack & 1) ||
			    !hyde_job_has_pending(j, dj->stage == ST_MAP ? HYDE_MAP : HYDE_REDUCE))
				continue;
			t = task_for(s, p, j, host, &node);
			if (!t)
				continue;
			p->cand[m] = (struct dawn_cand){ .pref = dj->pref, .cost = dj->cost,
							 .node_cost = node };
			p->cand_task[m] = t;
			m++;
		}
		n = m;
	}
	if (!n) {
		p->n_idle++;
		return NULL;
	}
	sat = saturated(s, p, rack);
	if (sat)
		p->n_sat++;
	else
		p->n_unsat++;
	k = dawn_select(p->cand, n, ci->racks, rack, sat, p->sort);
	if (k < 0)
		return NULL;
	count_task(s, p, p->cand_task[k], rack, sat);
	return p->cand_task[k];
}

static bool dawn_reduces_may_start(struct hyde_sched *s, const struct hyde_job *j)
{
	(void)s;
	return hyde_job_maps_done(j);
}

/* Alg. 2 line 1 and 13: a finished job marks the jobs whose Prev_{x,y}
 * holds it, for dep_reduce again. */
static void dawn_job_finished(struct hyde_sched *s, const struct hyde_job *j)
{
	struct dawn_priv *p = s->priv;
	uint32_t c, k;

	for (c = 0; c < j->n_children; c++) {
		const struct hyde_job *y = hyde_job(s, j->children[c]);

		for (k = 0; k < y->n_parents; k++)
			if (y->parents[k] != j->idx && p->jobs[y->parents[k]].stage == ST_REDUCE)
				p->jobs[y->parents[k]].dirty = true;
	}
	free(p->jobs[j->idx].cost);
	p->jobs[j->idx].cost = NULL;
	free(p->jobs[j->idx].out_host);
	p->jobs[j->idx].out_host = NULL;
}

const struct hyde_sched_ops sched_dawn = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "dawn",
	.summary = "Dawn: dependency-aware online plan (max_map, max_reduce, dep_reduce), "
		   "balancing, network-adaptive job selection",
	.priv_size = sizeof(struct dawn_priv),
	.opts = dawn_opts,
	.n_opts = sizeof(dawn_opts) / sizeof(dawn_opts[0]),
	.defaults = dawn_defaults,
	.init = dawn_init,
	.destroy = dawn_destroy,
	.job_finished = dawn_job_finished,
	.reduces_may_start = dawn_reduces_may_start,
	.pick_task = dawn_pick,
};
