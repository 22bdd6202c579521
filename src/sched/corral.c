/* corral: Corral [Corral], a RECONSTRUCTION (docs/REFERENCES.md,
 * "Readings"), not the authors' code. Corral plans recurring jobs ahead:
 * each job gets a few racks, one replica of its input is placed there,
 * and all its tasks run only there, isolating jobs in space and time.
 *
 * Plan (at init; the workload's jobs are the recurring jobs, known ahead):
 * every planned job starts with one rack; list-schedule the jobs (arrival
 * order for mean JCT, or longest first for makespan) onto the racks that
 * free up earliest, each job taking the latency of the reconstructed
 * model on its racks (maps and reduces in waves of the racks' containers, the
 * shuffle's cross-rack share S (r-1)/r^2 over one uplink); keep the best
 * plan seen; give one more rack to the job on the critical path (the one
 * ending last for makespan, the longest JCT for mean JCT); stop when it
 * cannot grow or after plan_iters rounds.
 *
 * Run: a planned job's first replicas are spread evenly over its racks at
 * arrival, and its tasks run only there (fair order among the jobs
 * planned on a rack). Leftover containers go to unplanned jobs (the
 * fraction 1 - planned of jobs, chosen at random, and jobs whose
 * workload pins racks) in fair order. Reduces start after the slowstart
 * fraction of maps, as in Hadoop.
 *
 * Options: objective (jct or makespan), plan_iters, planned. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hyde/sched.h>

#include "core/util.h"
#include "sched/policy.h"

struct corral_opts {
	char objective[16];
	unsigned plan_iters;
	double planned;
};

struct corral_priv {
	struct corral_opts o; /* first: opts[] offsets are relative to it */
	bool makespan;
	bool *planned;	   /* per job */
	unsigned *n_racks; /* per job: racks in the plan */
	bool *on_rack;	   /* job x racks: the plan */
	uint32_t *order;
	unsigned *user_running;
	double plan_value; /* of the plan kept, seconds */
};

static const struct hyde_opt corral_opts[] = {
	{ "objective", HYDE_OPT_STR, offsetof(struct corral_opts, objective), 0, 16,
	  "what the plan minimises: jct (mean, arrival order) or makespan" },
	{ "plan_iters", HYDE_OPT_UNS, offsetof(struct corral_opts, plan_iters), 1, 1e7,
	  "rounds of the planner (one more rack to the critical job each)" },
	{ "planned", HYDE_OPT_DOUBLE, offsetof(struct corral_opts, planned), 0, 1,
	  "fraction of the jobs planned (the rest are ad hoc, on leftovers)" },
};

static void corral_defaults(void *priv)
{
	struct corral_priv *p = priv;

	strcpy(p->o.objective, "jct");
	p->o.plan_iters = 1000;
	p->o.planned = 1.0;
}

/* Latency of job i on r racks ([Corral], reconstructed), in seconds. */
static double job_latency(const struct hyde_sched *s, size_t i, unsigned r)
{
	const struct hyde_job *w = hyde_job(s, (uint32_t)i);
	const struct hyde_cluster_info *ci = hyde_cluster(s);

	return pol_corral_latency(w->n_maps, (double)w->map_time / 1e9, w->n_reduces,
				  (double)w->reduce_time / 1e9, (double)w->shuffle, r,
				  ci->hosts_per_rack * ci->containers,
				  (double)ci->uplink_rate / 8);
}

static const double *sort_key;

static int cmp_key_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sort_key[x] != sort_key[y])
		return sort_key[x] > sort_key[y] ? -1 : 1;
	return (x > y) - (x < y);
}

static const double *rack_free_at;

static int cmp_rack_free(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (rack_free_at[x] != rack_free_at[y])
		return rack_free_at[x] < rack_free_at[y] ? -1 : 1;
	return (x > y) - (x < y);
}

static const struct hyde_sched *sort_sched;

static int cmp_submit(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t sx = hyde_job(sort_sched, x)->submit, sy = hyde_job(sort_sched, y)->submit;

	if (sx != sy)
		return sx < sy ? -1 : 1;
	return (x > y) - (x < y);
}

/* The jobs by submission time, ties by index (the caller frees). */
static uint32_t *arrival_order(const struct hyde_sched *s)
{
	size_t n = hyde_cluster(s)->n_jobs, i;
	uint32_t *v = hyde_calloc(n + 1, sizeof(uint32_t));

	for (i = 0; i < n; i++)
		v[i] = (uint32_t)i;
	sort_sched = s;
	xqsort(v, n, sizeof(uint32_t), cmp_submit);
	sort_sched = NULL;
	return v;
}

/* One list schedule of the planned jobs (in order[]) with r[] racks each;
 * fills on_rack and end[], returns the objective and the critical job. */
static double list_schedule(struct hyde_sched *s, const uint32_t *order, size_t n,
			    const unsigned *r, bool *on_rack, double *end,
			    size_t *critical)
{
	struct corral_priv *p = s->priv;
	unsigned racks = hyde_cluster(s)->racks, k;
	double *free_at = hyde_calloc(racks, sizeof(double)), value = 0, worst = -1;
	uint32_t *rk = hyde_calloc(racks, sizeof(uint32_t));
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t j = order[i];
		const struct hyde_job *w = hyde_job(s, j);
		double start = (double)w->submit / 1e9, crit;

		for (k = 0; k < racks; k++)
			rk[k] = k;
		rack_free_at = free_at;
		xqsort(rk, racks, sizeof(uint32_t), cmp_rack_free);
		rack_free_at = NULL;
		memset(&on_rack[(size_t)j * racks], 0, racks * sizeof(bool));
		for (k = 0; k < r[j]; k++) {
			on_rack[(size_t)j * racks + rk[k]] = true;
			if (free_at[rk[k]] > start)
				start = free_at[rk[k]];
		}
		end[j] = start + job_latency(s, j, r[j]);
		for (k = 0; k < r[j]; k++)
			free_at[rk[k]] = end[j];
		crit = p->makespan ? end[j] : end[j] - (double)w->submit / 1e9;
		if (p->makespan) {
			if (end[j] > value)
				value = end[j];
		} else {
			value += crit;
		}
		if (crit > worst) {
			worst = crit;
			*critical = j;
		}
	}
	free(free_at);
	free(rk);
	return p->makespan ? value : (n ? value / (double)n : 0);
}

static void plan(struct hyde_sched *s)
{
	struct corral_priv *p = s->priv;
	size_t nj = hyde_cluster(s)->n_jobs, n = 0, i, crit = 0;
	unsigned racks = hyde_cluster(s)->racks, it, *r = hyde_calloc(nj + 1, sizeof(unsigned));
	uint32_t *order = hyde_calloc(nj + 1, sizeof(uint32_t)), *arr = arrival_order(s);
	bool *try = hyde_calloc(nj * racks + 1, sizeof(bool));
	double *end = hyde_calloc(nj + 1, sizeof(double)), *lat = NULL, best = INFINITY;

	for (i = 0; i < nj; i++)
		if (p->planned[arr[i]]) {
			order[n++] = arr[i];
			r[arr[i]] = 1;
		}
	free(arr);
	if (p->makespan) {
		/* longest first (at one rack) */
		lat = hyde_calloc(nj + 1, sizeof(double));
		for (i = 0; i < n; i++)
			lat[order[i]] = job_latency(s, order[i], 1);
		sort_key = lat;
		xqsort(order, n, sizeof(uint32_t), cmp_key_desc);
		sort_key = NULL;
	}
	for (it = 0; n && it < p->o.plan_iters; it++) {
		double v = list_schedule(s, order, n, r, try, end, &crit);

		if (v < best) {
			best = v;
			memcpy(p->on_rack, try, nj * racks * sizeof(bool));
			for (i = 0; i < nj; i++)
				p->n_racks[i] = r[i];
		}
		if (r[crit] >= racks)
			break; /* the critical job cannot grow */
		r[crit]++;
	}
	p->plan_value = best;
	free(lat);
	free(end);
	free(try);
	free(order);
	free(r);
}

static int corral_init(struct hyde_sched *s, char *errbuf)
{
	struct corral_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	size_t nj = ci->n_jobs, i;

	if (!strcmp(p->o.objective, "makespan")) {
		p->makespan = true;
	} else if (strcmp(p->o.objective, "jct")) {
		snprintf(errbuf, HYDE_SCHED_ERRBUF, "objective: expected jct or makespan, got '%s'",
			 p->o.objective);
		return -EINVAL;
	}
	p->planned = hyde_calloc(nj + 1, sizeof(bool));
	p->n_racks = hyde_calloc(nj + 1, sizeof(unsigned));
	p->on_rack = hyde_calloc(nj * ci->racks + 1, sizeof(bool));
	p->order = hyde_calloc(nj + 1, sizeof(uint32_t));
	p->user_running = hyde_calloc(ci->n_users + 1, sizeof(unsigned));
	for (i = 0; i < nj; i++) {
		const struct hyde_job *w = hyde_job(s, (uint32_t)i);
		double u = hyde_rand_unit(s);

		p->planned[i] = !w->map_racks && !w->reduce_racks && u < p->o.planned;
	}
	plan(s);
	return 0;
}

static void corral_destroy(struct hyde_sched *s)
{
	struct corral_priv *p = s->priv;

	free(p->planned);
	free(p->n_racks);
	free(p->on_rack);
	free(p->order);
	free(p->user_running);
}

/* One replica of each block, evenly over the job's racks: the first
 * replica moves there, the others stay where HDFS put them (one that
 * lands on the new first's host goes where the first was). */
static void corral_job_arrived(struct hyde_sched *s, const struct hyde_job *j)
{
	struct corral_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	unsigned racks = ci->racks, r, n = 0, *mine;
	uint32_t b;

	if (!p->planned[j->idx] || !j->n_maps || j->input_from_parents)
		return;
	mine = hyde_calloc(racks, sizeof(unsigned));
	for (r = 0; r < racks; r++)
		if (p->on_rack[(size_t)j->idx * racks + r])
			mine[n++] = r;
	for (b = 0; n && b < j->n_maps; b++) {
		const struct hyde_block *blk = &j->blocks[b];
		uint32_t rep[HYDE_MAX_REPLICAS], k;
		unsigned h = mine[b % n] * ci->hosts_per_rack +
			     (unsigned)hyde_rand_below(s, ci->hosts_per_rack);

		memcpy(rep, blk->replica, blk->n_replicas * sizeof(uint32_t));
		for (k = 1; k < blk->n_replicas; k++)
			if (rep[k] == h)
				rep[k] = rep[0];
		rep[0] = h;
		hyde_place_block(s, j, b, rep, blk->n_replicas);
	}
	free(mine);
}

static const struct hyde_task *job_task(struct hyde_sched *s, const struct hyde_job *j,
					unsigned host)
{
	enum hyde_locality lvl;
	const struct hyde_task *t = hyde_pending_map(s, j, host, HYDE_OFF_RACK, &lvl);

	return t ? t : hyde_pending_reduce(s, j, host);
}

static const struct hyde_task *corral_pick(struct hyde_sched *s, unsigned host)
{
	struct corral_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	unsigned rack = hyde_rack_of(ci, host);
	size_t n = hyde_fair_order(s, p->order, p->user_running), i;
	const struct hyde_task *t;

	/* the jobs planned on this rack, then the unplanned ones */
	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, p->order[i]);

		if (p->planned[j->idx] && p->on_rack[(size_t)j->idx * ci->racks + rack] &&
		    (t = job_task(s, j, host)))
			return t;
	}
	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, p->order[i]);

		if (!p->planned[j->idx] && (t = job_task(s, j, host)))
			return t;
	}
	return NULL;
}

const struct hyde_sched_ops sched_corral = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "corral",
	.summary = "Corral (reconstruction): jobs planned on few racks, input and tasks there",
	.priv_size = sizeof(struct corral_priv),
	.opts = corral_opts,
	.n_opts = sizeof(corral_opts) / sizeof(corral_opts[0]),
	.defaults = corral_defaults,
	.init = corral_init,
	.destroy = corral_destroy,
	.job_arrived = corral_job_arrived,
	.pick_task = corral_pick,
};
