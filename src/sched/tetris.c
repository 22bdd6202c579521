/* tetris: Tetris (Grandl et al., SIGCOMM'14) as COBRA's clairvoyant
 * baseline (§VII-B): variable-size, disposable containers packed onto
 * hosts [Tetris]. A RECONSTRUCTION, not checked against the paper
 * (docs/REFERENCES.md, "Readings"): treat its constants as knobs.
 *
 * At each host's heartbeat, while anything fits what the host has not
 * given out: among the apps furthest below their fair share (the
 * ceil((1 - fairness) x J) of the J active apps with the smallest
 * dominant share of what they hold, at least one), every stage with a
 * waiting task not yet given a container is scored
 *     alignment x (1 - remote_penalty if its next task's input is not on
 *     the host) + eps x srpt,
 * alignment = sum_k demand_k / cap_k x free_k / cap_k (0 if it does not
 * fit), srpt = 1 - the app's remaining work / the largest remaining work
 * among the candidates (remaining work: every task not done, of every job
 * of the app, released or not: Tetris knows it all, COBRA only the
 * available stages), eps = the candidates' mean alignment over their mean
 * srpt x srpt_weight (both terms weigh the same on average). The best
 * stage gets a container of exactly its task's demand on the host; when
 * the container starts (after the response time) it runs the stage's
 * best task for its host, and is released when that task ends.
 *
 * Options: fairness (0.25), remote_penalty (0.1), srpt_weight (1). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hyde/sched.h>

#include "core/util.h"
#include "sched/twolevel.h"

struct tetris_opts {
	double fairness, remote_penalty, srpt_weight;
};

struct tetris_cand {
	uint32_t app, job;
	enum hyde_task_kind kind;
	double align, srpt;
};

struct tetris_priv {
	struct tetris_opts o;
	struct twolevel tl;
	uint32_t *reserved[2]; /* per job: containers starting for its maps, reduces */
	uint32_t *stage_of;    /* per container: job x 2 + kind, +1 once consumed */
	uint8_t *consumed;
	size_t cap_stage, cap_consumed;
	uint32_t *order;
	double *share, *rem;
	struct tetris_cand *cand;
	size_t cap_cand;
	struct hyde_res least; /* per kind, the least demand of an arrived job's tasks */
	uint64_t *share_at;    /* per app: its held_changes when share was summed, + 1 */
};

static const struct hyde_opt tetris_opts[] = {
	{ "fairness", HYDE_OPT_DOUBLE, offsetof(struct tetris_opts, fairness), 0, 1,
	  "fairness knob f: only the ceil((1-f) J) apps furthest below their share are packed" },
	{ "remote_penalty", HYDE_OPT_DOUBLE, offsetof(struct tetris_opts, remote_penalty), 0, 1,
	  "score penalty of a task whose input is not on the host" },
	{ "srpt_weight", HYDE_OPT_DOUBLE, offsetof(struct tetris_opts, srpt_weight), 0, 1000,
	  "weight of the remaining-work term against the alignment" },
};

static void tetris_defaults(void *priv)
{
	struct tetris_priv *p = priv;

	p->o.fairness = 0.25;
	p->o.remote_penalty = 0.1;
	p->o.srpt_weight = 1;
}

static int tetris_init(struct hyde_sched *s, char *errbuf)
{
	struct tetris_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	int k;

	p->reserved[0] = hyde_calloc(ci->n_jobs + 1, sizeof(uint32_t));
	p->reserved[1] = hyde_calloc(ci->n_jobs + 1, sizeof(uint32_t));
	p->order = hyde_calloc(ci->n_apps + 1, sizeof(uint32_t));
	p->share = hyde_calloc(ci->n_apps + 1, sizeof(double));
	p->rem = hyde_calloc(ci->n_apps + 1, sizeof(double));
	p->share_at = hyde_calloc(ci->n_apps + 1, sizeof(uint64_t));
	for (k = 0; k < HYDE_RES_KINDS; k++)
		p->least.v[k] = INFINITY;
	return tl_init(&p->tl, s, errbuf);
}

static void tetris_destroy(struct hyde_sched *s)
{
	struct tetris_priv *p = s->priv;

	free(p->reserved[0]);
	free(p->reserved[1]);
	free(p->stage_of);
	free(p->consumed);
	free(p->order);
	free(p->share);
	free(p->rem);
	free(p->share_at);
	free(p->cand);
	tl_destroy(&p->tl);
}

static void tetris_job_arrived(struct hyde_sched *s, const struct hyde_job *j)
{
	struct tetris_priv *p = s->priv;
	int k;

	for (k = 0; k < HYDE_RES_KINDS; k++) {
		if (j->n_maps && j->map_demand.v[k] < p->least.v[k])
			p->least.v[k] = j->map_demand.v[k];
		if (j->n_reduces && j->reduce_demand.v[k] < p->least.v[k])
			p->least.v[k] = j->reduce_demand.v[k];
	}
	tl_job_arrived(&p->tl, j);
}

static void tetris_stage_finished(struct hyde_sched *s, const struct hyde_job *j,
				  enum hyde_task_kind k)
{
	tl_stage_finished(&((struct tetris_priv *)s->priv)->tl, j, k);
}

static void tetris_job_finished(struct hyde_sched *s, const struct hyde_job *j)
{
	tl_job_finished(&((struct tetris_priv *)s->priv)->tl, j);
}

static double dominant(const struct hyde_res *r, const struct hyde_res *cap)
{
	double d = 0;
	int k;

	for (k = 0; k < HYDE_RES_KINDS; k++)
		if (cap->v[k] > 0 && r->v[k] / cap->v[k] > d)
			d = r->v[k] / cap->v[k];
	return d;
}

/* Work left in the app: every task not done, demand x time (clairvoyant). */
static double remaining_work(struct tetris_priv *p, uint32_t app)
{
	struct hyde_sched *s = p->tl.s;
	const struct hyde_app *ap = hyde_app(s, app);
	const struct hyde_res *cap = &hyde_cluster(s)->host_capacity;
	double w = 0;
	uint32_t i;

	for (i = 0; i < ap->n_jobs; i++) {
		const struct hyde_job *j = hyde_job(s, ap->jobs[i]);

		w += (double)(j->n_maps - j->maps_done) * (double)j->map_time *
		     dominant(&j->map_demand, cap);
		w += (double)(j->n_reduces - j->reduces_done) * (double)j->reduce_time *
		     dominant(&j->reduce_demand, cap);
	}
	return w;
}

/* The dominant share of what the app's live containers hold. */
static double held_share(struct hyde_sched *s, uint32_t app, const struct hyde_res *cluster)
{
	struct hyde_res held;

	hyde_app_held(s, app, &held);
	return dominant(&held, cluster);
}

static const struct tetris_priv *sort_p;

static int cmp_share(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sort_p->share[x] != sort_p->share[y])
		return sort_p->share[x] < sort_p->share[y] ? -1 : 1;
	if (sort_p->tl.apps[x].arrived != sort_p->tl.apps[y].arrived)
		return sort_p->tl.apps[x].arrived < sort_p->tl.apps[y].arrived ? -1 : 1;
	return (x > y) - (x < y);
}

static void add_cand(struct tetris_priv *p, size_t *n, uint32_t app, uint32_t job,
		     enum hyde_task_kind kind, double align)
{
	if (align <= 0)
		return;
	hyde_grow((void **)&p->cand, &p->cap_cand, *n + 1, sizeof(*p->cand));
	p->cand[(*n)++] = (struct tetris_cand){ app, job, kind, align, 0 };
}

/* The stages of the kept apps that could take a container on host. */
static size_t candidates(struct tetris_priv *p, unsigned host, const struct hyde_res *free,
			 size_t keep)
{
	struct hyde_sched *s = p->tl.s;
	const struct hyde_res *cap = &hyde_cluster(s)->host_capacity;
	size_t n = 0, i;
	uint32_t k;

	for (i = 0; i < keep; i++) {
		uint32_t app = p->order[i];
		const struct hyde_app *ap = hyde_app(s, app);

		for (k = 0; k < ap->n_jobs; k++) {
			const struct hyde_job *j = hyde_job(s, ap->jobs[k]);
			enum hyde_locality lvl;

			if (j->state != HYDE_JOB_READY)
				continue;
			if (j->n_maps - j->maps_running - j->maps_done > p->reserved[0][j->idx] &&
			    hyde_pending_map(s, j, host, HYDE_OFF_RACK, &lvl))
				add_cand(p, &n, app, j->idx, HYDE_MAP,
					 tl_alignment(&j->map_demand, free, cap) *
						 (lvl == HYDE_NODE_LOCAL ? 1 : 1 - p->o.remote_penalty));
			if (hyde_job_maps_done(j) &&
			    j->n_reduces - j->reduces_running - j->reduces_done > p->reserved[1][j->idx] &&
			    hyde_pending_reduce(s, j, host))
				add_cand(p, &n, app, j->idx, HYDE_REDUCE,
					 tl_alignment(&j->reduce_demand, free, cap));
		}
	}
	return n;
}

static void tetris_heartbeat(struct hyde_sched *s, unsigned host)
{
	struct tetris_priv *p = s->priv;
	struct twolevel *tl = &p->tl;
	const struct hyde_res *cap = &hyde_cluster(s)->host_capacity;

	while (tl->n_active) {
		struct hyde_res free;
		size_t i, n, keep, best = 0;
		double sa = 0, ss = 0, max_rem = 0, eps, top = -1;
		const struct hyde_job *j;
		int id;

		hyde_host_unreserved(s, host, &free);
		/* no arrived job's task fits: no candidate (most heartbeats of
		 * a busy cluster) */
		if (!hyde_res_fits(&p->least, &free))
			return;
		/* the apps furthest below their fair share (summed again only
		 * for an app whose containers changed) */
		for (i = 0; i < tl->n_active; i++) {
			uint32_t app = tl->active[i];
			uint64_t at = hyde_app(s, app)->held_changes + 1;

			if (p->share_at[app] != at) {
				p->share[app] = held_share(s, app, &tl->cluster);
				p->share_at[app] = at;
			}
			p->order[i] = app;
		}
		sort_p = p;
		xqsort(p->order, tl->n_active, sizeof(uint32_t), cmp_share);
		sort_p = NULL;
		keep = (size_t)ceil((1 - p->o.fairness) * (double)tl->n_active - 1e-9);
		if (keep < 1)
			keep = 1;
		n = candidates(p, host, &free, keep);
		if (!n)
			return;
		for (i = 0; i < keep; i++)
			p->rem[p->order[i]] = remaining_work(p, p->order[i]);
		for (i = 0; i < n; i++)
			if (p->rem[p->cand[i].app] > max_rem)
				max_rem = p->rem[p->cand[i].app];
		for (i = 0; i < n; i++) {
			p->cand[i].srpt = max_rem > 0 ? 1 - p->rem[p->cand[i].app] / max_rem : 0;
			sa += p->cand[i].align;
			ss += p->cand[i].srpt;
		}
		eps = ss > 0 ? sa / ss * p->o.srpt_weight : 0;
		for (i = 0; i < n; i++) {
			double score = p->cand[i].align + eps * p->cand[i].srpt;

			if (score > top) {
				top = score;
				best = i;
			}
		}
		j = hyde_job(s, p->cand[best].job);
		id = hyde_container_request(s, p->cand[best].app, host,
					    p->cand[best].kind == HYDE_MAP ? &j->map_demand
									   : &j->reduce_demand);
		if (id < 0)
			return;
		hyde_grow((void **)&p->stage_of, &p->cap_stage, (size_t)id + 1, sizeof(uint32_t));
		hyde_grow((void **)&p->consumed, &p->cap_consumed, (size_t)id + 1, 1);
		p->stage_of[id] = j->idx * 2 + (p->cand[best].kind == HYDE_REDUCE);
		p->consumed[id] = 0;
		p->reserved[p->cand[best].kind == HYDE_REDUCE][j->idx]++;
		(void)cap;
	}
}

static const struct hyde_task *tetris_pick_in(struct hyde_sched *s, const struct hyde_container *c)
{
	struct tetris_priv *p = s->priv;
	const struct hyde_task *t = NULL;
	const struct hyde_job *j;
	enum hyde_locality lvl;
	unsigned kind;

	if (c->tasks)
		return NULL;
	if (c->id < p->cap_stage && !p->consumed[c->id]) {
		p->consumed[c->id] = 1;
		kind = p->stage_of[c->id] & 1;
		j = hyde_job(s, p->stage_of[c->id] / 2);
		p->reserved[kind][j->idx]--;
		if (!c->tasks_run && p->tl.apps[c->app].active)
			t = kind ? hyde_pending_reduce(s, j, c->host)
				 : hyde_pending_map(s, j, c->host, HYDE_OFF_RACK, &lvl);
	}
	if (!t) /* its task is done: disposable */
		hyde_container_release(s, c->id);
	return t;
}

const struct hyde_sched_ops sched_tetris = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "tetris",
	.summary = "Tetris (a reconstruction): clairvoyant packing into task-sized containers, SRPT-like",
	.priv_size = sizeof(struct tetris_priv),
	.opts = tetris_opts,
	.n_opts = sizeof(tetris_opts) / sizeof(tetris_opts[0]),
	.defaults = tetris_defaults,
	.init = tetris_init,
	.destroy = tetris_destroy,
	.job_arrived = tetris_job_arrived,
	.stage_finished = tetris_stage_finished,
	.job_finished = tetris_job_finished,
	.heartbeat = tetris_heartbeat,
	.reduces_may_start = tl_reduces_may_start,
	.pick_task_in = tetris_pick_in,
};
