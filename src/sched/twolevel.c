/* Two-level scheduling over containers applications hold: see twolevel.h. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hyde/sched.h>

#include "sched/twolevel.h"

/* ---- pure rules ---- */

double tl_af(double d_prev, bool satisfied, double u, bool waiting, double rho,
	     double delta_u, enum tl_af_case *why)
{
	enum tl_af_case c;
	double d;

	if (d_prev <= 0) { /* Alg. 1 line 1-2 */
		c = TL_AF_FIRST;
		d = 1;
	} else if (u < delta_u && !waiting) { /* line 3-4 */
		c = TL_AF_INEFFICIENT;
		d = d_prev / rho;
	} else if (!satisfied) { /* line 5-6 */
		c = TL_AF_DEPRIVED;
		d = d_prev;
	} else { /* line 7-8 */
		c = TL_AF_SATISFIED;
		d = d_prev * rho;
	}
	/* Lemma 3 takes d >= 1 throughout (the final potential): a job
	 * always asks for a container */
	if (d < 1)
		d = 1;
	if (why)
		*why = c;
	return d;
}

unsigned tl_af_want(double d, unsigned most)
{
	double c = ceil(d - 1e-9);
	unsigned w = c < 1 ? 1 : c > 4e9 ? 4000000000U : (unsigned)c;

	if (most < 1)
		most = 1;
	return w > most ? most : w;
}

bool tl_pdelay_ok(enum hyde_locality level, double wait, double p, double tau,
		  double free_frac, double delta_u)
{
	switch (level) {
	case HYDE_NODE_LOCAL: /* Alg. 2 line 4 */
		return true;
	case HYDE_RACK_LOCAL: /* line 6 */
		return wait >= tau * p;
	case HYDE_OFF_RACK: /* line 8 */
		return wait >= 2 * tau * p && free_frac >= 1 - delta_u - 1e-12;
	}
	return false;
}

double tl_alignment(const struct hyde_res *demand, const struct hyde_res *free,
		    const struct hyde_res *cap)
{
	double a = 0;
	int k;

	if (!hyde_res_fits(demand, free))
		return 0;
	for (k = 0; k < HYDE_RES_KINDS; k++)
		if (cap->v[k] > 0)
			a += demand->v[k] / cap->v[k] * (free->v[k] / cap->v[k]);
	return a;
}

double tl_theorem6(double lb, double delta_u, double rho, double tau, double theta, double l,
		   double p)
{
	double c = 2 / (1 - delta_u) + (1 + rho) / delta_u + 2 * tau / theta;

	return c * lb + l * log(p) / log(rho) + 2 * l;
}

/* ---- the framework ---- */

int tl_check_fit(struct hyde_sched *s, char *errbuf)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	size_t i;

	for (i = 0; i < ci->n_jobs; i++) {
		const struct hyde_job *j = hyde_job(s, (uint32_t)i);

		if ((j->n_maps && !hyde_res_fits(&j->map_demand, &ci->container_size)) ||
		    (j->n_reduces && !hyde_res_fits(&j->reduce_demand, &ci->container_size))) {
			snprintf(errbuf, HYDE_SCHED_ERRBUF,
				 "job %s has tasks larger than a default container (%g cores, %.0f bytes): they would never run",
				 j->id, ci->container_size.v[HYDE_RES_CPU],
				 ci->container_size.v[HYDE_RES_MEM]);
			return -EINVAL;
		}
	}
	return 0;
}

int tl_init(struct twolevel *tl, struct hyde_sched *s, char *errbuf)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	size_t i;
	int k;

	(void)errbuf;
	memset(tl, 0, sizeof(*tl));
	tl->s = s;
	tl->n_apps = ci->n_apps;
	tl->apps = hyde_calloc(tl->n_apps + 1, sizeof(*tl->apps));
	tl->active = hyde_calloc(tl->n_apps + 1, sizeof(uint32_t));
	tl->csize = ci->container_size;
	for (k = 0; k < HYDE_RES_KINDS; k++)
		tl->cluster.v[k] = ci->host_capacity.v[k] * ci->n_hosts;
	tl->reduce_ready = hyde_calloc(ci->n_jobs + 1, sizeof(int64_t));
	tl->spark_level = hyde_calloc(ci->n_jobs + 1, sizeof(*tl->spark_level));
	tl->spark_last = hyde_calloc(ci->n_jobs + 1, sizeof(int64_t));
	for (i = 0; i < ci->n_jobs; i++)
		tl->reduce_ready[i] = tl->spark_last[i] = -1;
	for (i = 0; i < tl->n_apps; i++)
		tl->apps[i].arrived = tl->apps[i].backlog_since = -1;
	return 0;
}

void tl_destroy(struct twolevel *tl)
{
	free(tl->apps);
	free(tl->active);
	free(tl->reduce_ready);
	free(tl->spark_level);
	free(tl->spark_last);
}

void tl_job_arrived(struct twolevel *tl, const struct hyde_job *j)
{
	struct tl_app *a = &tl->apps[j->app];

	if (a->arrived >= 0)
		return;
	a->arrived = hyde_now(tl->s);
	a->active = true;
	tl->active[tl->n_active++] = j->app;
	tl->active_gen++;
}

void tl_stage_finished(struct twolevel *tl, const struct hyde_job *j, enum hyde_task_kind k)
{
	if (k != HYDE_MAP)
		return;
	tl->reduce_ready[j->idx] = hyde_now(tl->s);
	/* the reduce stage is a new task set for Spark */
	tl->spark_level[j->idx] = HYDE_NODE_LOCAL;
	tl->spark_last[j->idx] = hyde_now(tl->s);
}

void tl_job_finished(struct twolevel *tl, const struct hyde_job *j)
{
	const struct hyde_app *ap = hyde_app(tl->s, j->app);
	size_t i;

	if (ap->jobs_done < ap->n_jobs || !tl->apps[j->app].active)
		return;
	tl->apps[j->app].active = false;
	for (i = 0; i < tl->n_active; i++)
		if (tl->active[i] == j->app) {
			memmove(&tl->active[i], &tl->active[i + 1],
				(tl->n_active - i - 1) * sizeof(uint32_t));
			tl->n_active--;
			tl->active_gen++;
			break;
		}
	/* its containers go back; the one whose task just ended goes when
	 * it is offered (a task still counts in it until then) */
	tl_release_all(tl, j->app);
}

bool tl_reduces_may_start(struct hyde_sched *s, const struct hyde_job *j)
{
	(void)s;
	return hyde_job_maps_done(j);
}

unsigned tl_held(const struct twolevel *tl, uint32_t app)
{
	size_t n;

	hyde_app_containers(tl->s, app, &n);
	return (unsigned)n;
}

unsigned tl_waiting(const struct twolevel *tl, uint32_t app)
{
	const struct hyde_app *ap = hyde_app(tl->s, app);
	unsigned n = 0;
	uint32_t i;

	for (i = 0; i < ap->n_jobs; i++) {
		const struct hyde_job *j = hyde_job(tl->s, ap->jobs[i]);

		if (j->state != HYDE_JOB_READY)
			continue;
		n += j->n_maps - j->maps_running - j->maps_done;
		if (hyde_job_maps_done(j))
			n += j->n_reduces - j->reduces_running - j->reduces_done;
	}
	return n;
}

unsigned tl_running(const struct twolevel *tl, uint32_t app)
{
	const struct hyde_app *ap = hyde_app(tl->s, app);
	unsigned n = 0;
	uint32_t i;

	for (i = 0; i < ap->n_jobs; i++) {
		const struct hyde_job *j = hyde_job(tl->s, ap->jobs[i]);

		n += j->maps_running + j->reduces_running;
	}
	return n;
}

int64_t tl_waiting_since(const struct twolevel *tl, const struct hyde_task *t)
{
	const struct hyde_job *j = hyde_job(tl->s, t->job);

	return t->kind == HYDE_MAP ? j->ready_at : tl->reduce_ready[t->job];
}

void tl_allocate(struct twolevel *tl, unsigned host)
{
	/* no app wanted one at the last look, and nothing it reads changed
	 * (most heartbeats of a long run whose apps hold what they ask) */
	if (tl->idle && tl->idle_want == tl->want_gen && tl->idle_active == tl->active_gen &&
	    tl->idle_conts == hyde_container_changes(tl->s))
		return;
	for (;;) {
		size_t i, best = SIZE_MAX;
		unsigned best_held = 0;

		for (i = 0; i < tl->n_active; i++) {
			uint32_t a = tl->active[i];
			unsigned h = tl_held(tl, a);

			/* the fewest containers is the smallest share: every
			 * app asks for the same size; ties by arrival */
			if (h < tl->apps[a].want && (best == SIZE_MAX || h < best_held)) {
				best = i;
				best_held = h;
			}
		}
		tl->idle = best == SIZE_MAX;
		if (tl->idle) {
			tl->idle_want = tl->want_gen;
			tl->idle_active = tl->active_gen;
			tl->idle_conts = hyde_container_changes(tl->s);
			return;
		}
		if (hyde_container_request(tl->s, tl->active[best], host, &tl->csize) < 0)
			return;
	}
}

void tl_room(const struct hyde_container *c, struct hyde_res *room)
{
	int k;

	for (k = 0; k < HYDE_RES_KINDS; k++)
		room->v[k] = c->size.v[k] - c->used.v[k];
}

double tl_free_frac(const struct hyde_container *c)
{
	double f = 1;
	int k;

	for (k = 0; k < HYDE_RES_KINDS; k++)
		if (c->size.v[k] > 0 && (c->size.v[k] - c->used.v[k]) / c->size.v[k] < f)
			f = (c->size.v[k] - c->used.v[k]) / c->size.v[k];
	return f;
}

const struct hyde_task *tl_next_task(struct twolevel *tl, uint32_t app, unsigned host,
				     enum hyde_locality max, const struct hyde_res *room,
				     tl_ok_fn ok, void *arg, enum hyde_locality *level)
{
	struct hyde_sched *s = tl->s;
	const struct hyde_app *ap = hyde_app(s, app);
	int lv;
	uint32_t i;

	/* every job's node-local task first, then rack-local, then any
	 * (COBRA Alg. 2's order; a reduce has no input to be near) */
	for (lv = HYDE_NODE_LOCAL; lv <= (int)max; lv++)
		for (i = 0; i < ap->n_jobs; i++) {
			const struct hyde_job *j = hyde_job(s, ap->jobs[i]);
			const struct hyde_task *t;
			enum hyde_locality got;

			if (j->state != HYDE_JOB_READY)
				continue;
			if (hyde_job_has_pending(j, HYDE_MAP) &&
			    (!room || hyde_res_fits(&j->map_demand, room))) {
				t = hyde_pending_map(s, j, host, (enum hyde_locality)lv, &got);
				if (t && got == (enum hyde_locality)lv && (!ok || ok(tl, t, got, arg))) {
					*level = got;
					return t;
				}
			}
			if (lv == HYDE_NODE_LOCAL && (!room || hyde_res_fits(&j->reduce_demand, room)) &&
			    (t = hyde_pending_reduce(s, j, host)) &&
			    (!ok || ok(tl, t, HYDE_NODE_LOCAL, arg))) {
				*level = HYDE_NODE_LOCAL;
				return t;
			}
		}
	return NULL;
}

const struct hyde_task *tl_spark_task(struct twolevel *tl, uint32_t app, unsigned host,
				      const struct hyde_res *room, int64_t wait)
{
	struct hyde_sched *s = tl->s;
	const struct hyde_app *ap = hyde_app(s, app);
	int64_t now = hyde_now(s);
	int lv;
	uint32_t i;

	/* TaskSetManager.getAllowedLocalityLevel: a level is allowed once
	 * `wait` passed without a launch at the one below */
	for (i = 0; i < ap->n_jobs; i++) {
		uint32_t jx = ap->jobs[i];
		const struct hyde_job *j = hyde_job(s, jx);

		if (j->state != HYDE_JOB_READY)
			continue;
		if (tl->spark_last[jx] < 0) {
			tl->spark_last[jx] = j->ready_at;
			tl->spark_level[jx] = HYDE_NODE_LOCAL;
		}
		while (tl->spark_level[jx] < HYDE_OFF_RACK && wait >= 0 &&
		       now - tl->spark_last[jx] >= wait) {
			tl->spark_last[jx] += wait;
			tl->spark_level[jx]++;
		}
	}
	for (lv = HYDE_NODE_LOCAL; lv <= HYDE_OFF_RACK; lv++)
		for (i = 0; i < ap->n_jobs; i++) {
			uint32_t jx = ap->jobs[i];
			const struct hyde_job *j = hyde_job(s, jx);
			const struct hyde_task *t;
			enum hyde_locality got;

			if (j->state != HYDE_JOB_READY)
				continue;
			if (hyde_job_has_pending(j, HYDE_MAP) && lv <= (int)tl->spark_level[jx] &&
			    (!room || hyde_res_fits(&j->map_demand, room))) {
				t = hyde_pending_map(s, j, host, (enum hyde_locality)lv, &got);
				if (t && got == (enum hyde_locality)lv) {
					/* a launch resets the wait at its level */
					tl->spark_level[jx] = got;
					tl->spark_last[jx] = now;
					return t;
				}
			}
			if (lv == HYDE_NODE_LOCAL && (!room || hyde_res_fits(&j->reduce_demand, room)) &&
			    (t = hyde_pending_reduce(s, j, host)))
				return t;
		}
	return NULL;
}

unsigned tl_shrink(struct twolevel *tl, uint32_t app, unsigned keep)
{
	unsigned done = 0;

	for (;;) {
		size_t n, i;
		const uint32_t *ids = hyde_app_containers(tl->s, app, &n);
		int64_t oldest = -1;
		uint32_t pick = 0;

		if (n <= keep)
			return done;
		for (i = 0; i < n; i++) {
			const struct hyde_container *c = hyde_container(tl->s, ids[i]);

			if (c->state == HYDE_CONTAINER_RUNNING && !c->tasks &&
			    (oldest < 0 || c->idle_since < oldest)) {
				oldest = c->idle_since;
				pick = ids[i];
			}
		}
		if (oldest < 0 || hyde_container_release(tl->s, pick))
			return done;
		done++;
	}
}

void tl_release_all(struct twolevel *tl, uint32_t app)
{
	size_t n, i;
	const uint32_t *ids = hyde_app_containers(tl->s, app, &n);
	uint32_t *copy = hyde_calloc(n + 1, sizeof(uint32_t));

	memcpy(copy, ids, n * sizeof(uint32_t));
	for (i = 0; i < n; i++)
		hyde_container_release(tl->s, copy[i]); /* -EBUSY: released when offered */
	free(copy);
}

/* A task for an executor: Spark's slots (a task per core) or packing. */
const struct hyde_task *tl_spark_pick_in(struct twolevel *tl, const struct hyde_container *c,
					 bool pack, int64_t wait)
{
	struct hyde_sched *s = tl->s;
	struct hyde_res room;
	unsigned slots = (unsigned)(c->size.v[HYDE_RES_CPU] + 1e-9);

	if (!tl->apps[c->app].active) {
		if (!c->tasks)
			hyde_container_release(s, c->id);
		return NULL;
	}
	if (!pack && c->tasks >= (slots ? slots : 1))
		return NULL;
	tl_room(c, &room);
	return tl_spark_task(tl, c->app, c->host, &room, wait);
}
