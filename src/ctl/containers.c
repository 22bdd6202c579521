/* Applications and their containers: see containers.h. The comments here
 * say why. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rundir.h"
#include "core/util.h"
#include "ctl/containers.h"
#include "ctl/ctl_int.h"

struct idlist {
	uint32_t *v;
	size_t n, cap;
};

struct cont {
	struct hyde_container pub;
	struct evtimer timer; /* its response time */
	struct ctl *ctl;
	/* the model of its use: cores of the tasks computing now, bytes of
	 * the tasks running now, and the core-ns they used up to acc_at */
	double cpu_now, mem_now;
	double cpu_acc;
	int64_t acc_at;
	/* the monitor's last sample (and the model's, beside a backend's) */
	double cpu_at_sample, model_at_sample, raw_at_sample;
	int64_t sample_at;
	struct hyde_res util;
	bool has_util;
	void *bpriv; /* the backend's (a cgroup) */
};

/* per job: where each task runs and whether it computes now (maps first,
 * then reduces) */
struct jcont {
	int32_t *cont;
	uint8_t *computing;
};

struct conts {
	bool on; /* the scheduler holds containers */
	struct hyde_app *apps;
	size_t n_apps;
	uint32_t *app_jobs;
	struct idlist *app_live, *host_live;
	/* per app: what its live containers hold in all, kept as they come
	 * and go while every size is a whole number (then every partial sum
	 * is exact, in any order: the sum of the list, as cont_app_held
	 * would add it); held_inexact once one is not */
	struct hyde_res *app_held;
	bool *held_inexact;
	uint64_t changes; /* containers asked for and released, in all */
	struct hyde_res *host_free;
	struct cont **v; /* every container, by id */
	size_t n, cap;
	struct jcont *jc;
	struct rng rng;
	bool offering; /* an offer loop runs: no nested one */
};

#define CONT_OF_TIMER(t) ((struct cont *)((char *)(t) - offsetof(struct cont, timer)))

static void idl_add(struct idlist *l, uint32_t id)
{
	xgrow((void **)&l->v, &l->cap, l->n + 1, sizeof(uint32_t));
	l->v[l->n++] = id;
}

/* in order: the lists are short (an app's or a host's containers) */
static void idl_remove(struct idlist *l, uint32_t id)
{
	size_t k;

	for (k = 0; k < l->n; k++)
		if (l->v[k] == id) {
			memmove(&l->v[k], &l->v[k + 1], (l->n - k - 1) * sizeof(uint32_t));
			l->n--;
			return;
		}
}

/* A container of the app comes (sign 1) or goes (-1): its kept sum. A
 * size of whole numbers under 2^52, into a sum that stays under 2^52,
 * keeps it exact. */
static void held_add(struct conts *ct, uint32_t app, const struct hyde_res *size, int sign)
{
	int r;

	if (ct->held_inexact[app])
		return;
	for (r = 0; r < HYDE_RES_KINDS; r++) {
		double v = size->v[r], sum = ct->app_held[app].v[r] + sign * v;

		if (v != floor(v) || v >= 0x1p52 || sum >= 0x1p52) {
			ct->held_inexact[app] = true;
			return;
		}
	}
	for (r = 0; r < HYDE_RES_KINDS; r++)
		ct->app_held[app].v[r] += sign * size->v[r];
}

/* ---- the response time ---- */

/* COBRA Table I gives the mean (996 ms), the median (1286 ms) and the
 * 95th percentile (2711 ms) of a container's response time. A mean below
 * the median needs a mass of fast answers: a third of the requests within
 * 150 ms (a container already free on the node), the rest around 1.3 s
 * with a tail to 4.1 s. The quantile function below is linear between
 * these knots; its mean is 996.2 ms, its median 1286 ms, its 95th
 * percentile 2711 ms (tests/check_cobra.c). A reconstruction: the paper
 * gives nothing but the three figures. */
static const double table1_knots[][2] = {
	{ 0.00, 50 },	{ 0.30, 150 },	{ 0.45, 900 },	{ 0.50, 1286 },
	{ 0.90, 1500 }, { 0.95, 2711 }, { 1.00, 4100 },
};

int64_t cont_delay_draw(const struct topo_delay *d, double u)
{
	size_t k;

	switch (d->kind) {
	case TOPO_DELAY_FIXED:
		return d->mean;
	case TOPO_DELAY_EXP:
		return (int64_t)(-log1p(-u) * (double)d->mean);
	case TOPO_DELAY_TABLE1:
		for (k = 1; k < ARRAY_SIZE(table1_knots); k++)
			if (u <= table1_knots[k][0]) {
				double u0 = table1_knots[k - 1][0], u1 = table1_knots[k][0];
				double q0 = table1_knots[k - 1][1], q1 = table1_knots[k][1];

				return (int64_t)((q0 + (q1 - q0) * (u - u0) / (u1 - u0)) * 1e6 *
						 ((double)d->mean / 996e6));
			}
		return (int64_t)(table1_knots[ARRAY_SIZE(table1_knots) - 1][1] * 1e6 *
				 ((double)d->mean / 996e6));
	}
	return 0;
}

/* ---- set-up ---- */

static void demand_of(const struct topo *t, double cpu, uint64_t mem, struct hyde_res *out)
{
	out->v[HYDE_RES_CPU] = cpu > 0 ? cpu : t->cores / t->containers;
	out->v[HYDE_RES_MEM] = mem ? (double)mem : (double)t->memory / t->containers;
}

bool cont_mode(const struct ctl *c)
{
	return c->conts && c->conts->on;
}

int cont_init(struct ctl *c, char *errbuf)
{
	struct conts *ct = xcalloc(1, sizeof(*ct));
	const struct workload *wl = c->wl;
	unsigned H = topo_n_hosts(c->t);
	uint32_t *fill;
	size_t i, a;

	c->conts = ct;
	ct->n_apps = wl->n_apps;
	ct->apps = xcalloc(ct->n_apps + 1, sizeof(*ct->apps));
	ct->app_jobs = xcalloc(wl->n_jobs + 1, sizeof(uint32_t));
	fill = xcalloc(ct->n_apps + 1, sizeof(uint32_t));
	for (i = 0; i < wl->n_jobs; i++)
		fill[wl->app_of[i]]++;
	for (a = 0, i = 0; a < ct->n_apps; a++) {
		struct hyde_app *ap = &ct->apps[a];

		ap->idx = (uint32_t)a;
		ap->id = wl->apps[a];
		ap->jobs = &ct->app_jobs[i];
		ap->arrival = ap->end = -1;
		ap->submit = -1;
		i += fill[a];
	}
	for (i = 0; i < wl->n_jobs; i++) {
		const struct wl_job *w = &wl->jobs[i];
		struct hyde_job *j = &c->c->jobs[i];
		struct hyde_app *ap = &ct->apps[wl->app_of[i]];

		if (!ap->n_jobs)
			ap->user_idx = wl->user_of[i];
		((uint32_t *)ap->jobs)[ap->n_jobs++] = (uint32_t)i;
		if (ap->submit < 0 || w->arrival < ap->submit)
			ap->submit = w->arrival;
		j->app = wl->app_of[i];
		demand_of(c->t, w->map_cpu, w->map_mem, &j->map_demand);
		demand_of(c->t, w->reduce_cpu, w->reduce_mem, &j->reduce_demand);
	}
	free(fill);
	ct->on = c->sched->ops->pick_task_in != NULL;
	if (!ct->on)
		return 0;
	/* a task that fits no host would never run: say so now */
	for (i = 0; i < wl->n_jobs; i++) {
		const struct hyde_job *j = &c->c->jobs[i];
		struct hyde_res cap = { { c->t->cores, (double)c->t->memory } };
		int k;

		for (k = 0; k < 2; k++) {
			const struct hyde_res *d = k ? &j->reduce_demand : &j->map_demand;

			if ((k ? j->n_reduces : j->n_maps) && !hyde_res_fits(d, &cap)) {
				errbuf_set(errbuf, "%s:%u: job '%s': a %s needs %g cores and %.0f bytes, more than a host has (%g cores, %" PRIu64 " bytes)",
					   c->opts.wl_spec, j->wl->line, j->wl->id, k ? "reduce" : "map",
					   d->v[HYDE_RES_CPU], d->v[HYDE_RES_MEM], c->t->cores,
					   c->t->memory);
				return -EINVAL;
			}
		}
	}
	c->c->unlimited_slots = true; /* containers, not slots, bound the tasks */
	/* COBRA's Pdelay lets a task wait up to 2 tau x its own time (tau up
	 * to 2 in its sweeps): a run is stalled only past 4 x the longest */
	if (4 * ctl_longest_task(c) > c->stall_limit)
		c->stall_limit = 4 * ctl_longest_task(c);
	ct->app_live = xcalloc(ct->n_apps + 1, sizeof(*ct->app_live));
	ct->app_held = xcalloc(ct->n_apps + 1, sizeof(*ct->app_held));
	ct->held_inexact = xcalloc(ct->n_apps + 1, sizeof(bool));
	ct->host_live = xcalloc(H, sizeof(*ct->host_live));
	ct->host_free = xcalloc(H, sizeof(*ct->host_free));
	for (i = 0; i < H; i++) {
		ct->host_free[i].v[HYDE_RES_CPU] = c->t->cores;
		ct->host_free[i].v[HYDE_RES_MEM] = (double)c->t->memory;
	}
	ct->jc = xcalloc(wl->n_jobs + 1, sizeof(*ct->jc));
	rng_seed2(&ct->rng, c->opts.seed, 4);
	return 0;
}

void cont_free(struct ctl *c)
{
	struct conts *ct = c->conts;
	size_t i;

	if (!ct)
		return;
	for (i = 0; i < ct->n; i++)
		free(ct->v[i]);
	free(ct->v);
	if (ct->app_live)
		for (i = 0; i < ct->n_apps; i++)
			free(ct->app_live[i].v);
	if (ct->host_live)
		for (i = 0; i < topo_n_hosts(c->t); i++)
			free(ct->host_live[i].v);
	if (ct->jc)
		for (i = 0; i < c->wl->n_jobs; i++) {
			free(ct->jc[i].cont);
			free(ct->jc[i].computing);
		}
	free(ct->jc);
	free(ct->app_live);
	free(ct->app_held);
	free(ct->held_inexact);
	free(ct->host_live);
	free(ct->host_free);
	free(ct->apps);
	free(ct->app_jobs);
	free(ct);
	c->conts = NULL;
}

/* ---- apps ---- */

void cont_job_arrived(struct ctl *c, const struct hyde_job *j)
{
	struct hyde_app *ap = &c->conts->apps[j->app];

	if (ap->arrival < 0)
		ap->arrival = ctl_now(c);
}

void cont_job_done(struct ctl *c, const struct hyde_job *j)
{
	struct hyde_app *ap = &c->conts->apps[j->app];

	if (++ap->jobs_done == ap->n_jobs) {
		ap->end = ctl_now(c);
		ctl_event(c, "app_done %s", ap->id);
	}
}

const struct hyde_app *cont_app(const struct ctl *c, uint32_t idx)
{
	return idx < c->conts->n_apps ? &c->conts->apps[idx] : NULL;
}

size_t cont_n_apps(const struct ctl *c)
{
	return c->conts->n_apps;
}

/* ---- the model of a container's use ---- */

static void integrate(struct cont *k, int64_t now)
{
	if (now > k->acc_at)
		k->cpu_acc += k->cpu_now * (double)(now - k->acc_at);
	k->acc_at = now;
}

static struct jcont *jcont_of(struct conts *ct, const struct ctl *c, uint32_t job)
{
	struct jcont *jc = &ct->jc[job];

	if (!jc->cont) {
		const struct wl_job *w = &c->wl->jobs[job];
		size_t n = (size_t)w->maps + w->reduces, i;

		jc->cont = xcalloc(n + 1, sizeof(int32_t));
		jc->computing = xcalloc(n + 1, 1);
		for (i = 0; i < n; i++)
			jc->cont[i] = -1;
	}
	return jc;
}

static size_t task_slot(const struct ctl *c, const struct hyde_task *t)
{
	return t->kind == HYDE_MAP ? t->idx : c->wl->jobs[t->job].maps + t->idx;
}

int32_t ctl_task_container(struct ctl *c, const struct hyde_task *t, void **bpriv)
{
	struct conts *ct = c->conts;
	int32_t id;

	if (!cont_mode(c) || !ct->jc[t->job].cont)
		return -1;
	id = ct->jc[t->job].cont[task_slot(c, t)];
	if (id >= 0 && bpriv)
		*bpriv = ct->v[id]->bpriv;
	return id;
}

void cont_compute(struct ctl *c, const struct hyde_task *t, bool on)
{
	struct conts *ct = c->conts;
	const struct hyde_job *j = &c->c->jobs[t->job];
	struct jcont *jc;
	struct cont *k;
	size_t s;

	if (!cont_mode(c) || !ct->jc[t->job].cont)
		return;
	jc = &ct->jc[t->job];
	s = task_slot(c, t);
	if (jc->cont[s] < 0 || jc->computing[s] == on)
		return;
	k = ct->v[jc->cont[s]];
	integrate(k, ctl_now(c));
	k->cpu_now += (on ? 1 : -1) * hyde_task_demand(j, t)->v[HYDE_RES_CPU];
	if (k->cpu_now < 1e-12)
		k->cpu_now = 0;
	jc->computing[s] = on;
}

/* ---- offers ---- */

/* The scheduler's choice for container k, checked: a task of this run,
 * pending, of a READY job of the container's app, allowed on its host,
 * whose demand fits what is left. NULL (the run failed) otherwise. */
static struct hyde_task *check_pick(struct ctl *c, struct cont *k, const struct hyde_task *ct)
{
	struct hyde_task *t = NULL;
	const char *why = NULL;
	struct hyde_res left;
	int r;

	if (ct && ct->job < c->c->n_jobs) {
		struct hyde_job *jb = &c->c->jobs[ct->job];

		if (!jb->maps)
			t = NULL; /* not arrived, or done (hyde sim frees its tasks) */
		else if (ct->kind == HYDE_MAP && ct->idx < jb->n_maps && ct == &jb->maps[ct->idx])
			t = &jb->maps[ct->idx];
		else if (ct->kind == HYDE_REDUCE && ct->idx < jb->n_reduces &&
			 ct == &jb->reduces[ct->idx])
			t = &jb->reduces[ct->idx];
	}
	for (r = 0; r < HYDE_RES_KINDS; r++)
		left.v[r] = k->pub.size.v[r] - k->pub.used.v[r];
	if (!t)
		why = "a task that is not one of this run's";
	else if (t->state != HYDE_TASK_PENDING)
		why = "a task that is not pending";
	else if (c->c->jobs[t->job].state != HYDE_JOB_READY)
		why = "a task of a job that is not ready";
	else if (c->c->jobs[t->job].app != k->pub.app)
		why = "a task of another app";
	else if (!hyde_task_fits(c->sched, t, k->pub.host))
		why = "a task pinned to another rack";
	else if (!hyde_res_fits(hyde_task_demand(&c->c->jobs[t->job], t), &left))
		why = "a task whose demand does not fit what the container has left";
	if (!why)
		return t;
	if (t)
		ctl_fail(c, "scheduler %s picked %s %u of job %s for container %u (app %s on r%uh%u): %s",
			 sched_name(c->sched), task_kind_name(t->kind), t->idx,
			 c->wl->jobs[t->job].id, k->pub.id, c->conts->apps[k->pub.app].id,
			 k->pub.host / c->t->hosts, k->pub.host % c->t->hosts, why);
	else
		ctl_fail(c, "scheduler %s picked %s for container %u", sched_name(c->sched), why,
			 k->pub.id);
	return NULL;
}

static void start_in(struct ctl *c, struct cont *k, struct hyde_task *t)
{
	struct conts *ct = c->conts;
	const struct hyde_res *d = hyde_task_demand(&c->c->jobs[t->job], t);
	struct jcont *jc = jcont_of(ct, c, t->job);
	int r;

	if (task_start(c->c, t, k->pub.host, ctl_now(c))) {
		ctl_fail(c, "job %s %s %u: cannot start in container %u", c->wl->jobs[t->job].id,
			 task_kind_name(t->kind), t->idx, k->pub.id);
		return;
	}
	integrate(k, ctl_now(c));
	for (r = 0; r < HYDE_RES_KINDS; r++)
		k->pub.used.v[r] += d->v[r];
	k->mem_now += d->v[HYDE_RES_MEM];
	k->pub.tasks++;
	k->pub.tasks_run++;
	k->pub.idle_since = -1;
	jc->cont[task_slot(c, t)] = (int32_t)k->pub.id;
	ctl_event(c, "task_container %s %s %u %u", c->wl->jobs[t->job].id,
		  task_kind_name(t->kind), t->idx, k->pub.id);
	ctl_task_launched(c, t, k->pub.host);
}

/* Ask the scheduler for tasks for container k until it has none (or the
 * container is gone). Not nested: a task that starts may end at once
 * (nothing to do) and offer its container again from inside this loop;
 * that offer is this loop's next turn. */
static void offer(struct ctl *c, struct cont *k)
{
	struct conts *ct = c->conts;
	struct hyde_sched *s = c->sched;

	if (ct->offering)
		return;
	ct->offering = true;
	while (!c->failed && k->pub.state == HYDE_CONTAINER_RUNNING) {
		const struct hyde_task *p = s->ops->pick_task_in(s, &k->pub);
		struct hyde_task *t;

		if (!p)
			break;
		if (!(t = check_pick(c, k, p)))
			break;
		start_in(c, k, t);
	}
	ct->offering = false;
}

void cont_heartbeat(struct ctl *c, unsigned host)
{
	struct conts *ct = c->conts;
	struct idlist *l = &ct->host_live[host];
	size_t i;

	/* a copy: an offer may release containers of the host */
	uint32_t *ids;
	size_t n = l->n;

	if (!n)
		return; /* (most hosts of a long run's tail) */
	ids = xcalloc(n + 1, sizeof(uint32_t));
	memcpy(ids, l->v, n * sizeof(uint32_t));
	for (i = 0; i < n && !c->failed; i++)
		offer(c, ct->v[ids[i]]);
	free(ids);
}

void cont_task_done(struct ctl *c, const struct hyde_task *t)
{
	struct conts *ct = c->conts;
	const struct hyde_res *d = hyde_task_demand(&c->c->jobs[t->job], t);
	struct jcont *jc;
	struct cont *k;
	size_t s;
	int r;

	if (!cont_mode(c) || !ct->jc[t->job].cont)
		return;
	jc = &ct->jc[t->job];
	s = task_slot(c, t);
	if (jc->cont[s] < 0)
		return;
	cont_compute(c, t, false);
	k = ct->v[jc->cont[s]];
	integrate(k, ctl_now(c));
	for (r = 0; r < HYDE_RES_KINDS; r++) {
		k->pub.used.v[r] -= d->v[r];
		if (k->pub.used.v[r] < 1e-9 * (k->pub.size.v[r] + 1))
			k->pub.used.v[r] = 0;
	}
	k->mem_now -= d->v[HYDE_RES_MEM];
	if (k->mem_now < 1)
		k->mem_now = 0;
	if (!--k->pub.tasks)
		k->pub.idle_since = ctl_now(c);
	if (!c->failed)
		offer(c, k);
}

/* ---- requests and releases ---- */

static void cont_ready(struct evloop *l, struct evtimer *tm)
{
	struct cont *k = CONT_OF_TIMER(tm);
	struct ctl *c = k->ctl;
	int r;

	(void)l;
	if (c->failed || k->pub.state != HYDE_CONTAINER_STARTING)
		return;
	if (c->be.ops->container_start &&
	    (r = c->be.ops->container_start(&c->be, &k->pub, &k->bpriv))) {
		ctl_fail(c, "container %u of app %s on r%uh%u: cannot start: %s", k->pub.id,
			 c->conts->apps[k->pub.app].id, k->pub.host / c->t->hosts,
			 k->pub.host % c->t->hosts, strerror(-r));
		return;
	}
	k->pub.state = HYDE_CONTAINER_RUNNING;
	k->pub.ready = k->pub.idle_since = ctl_now(c);
	k->acc_at = k->sample_at = ctl_now(c);
	ctl_event(c, "container_ready %u", k->pub.id);
	offer(c, k);
}

void cont_host_unreserved(const struct ctl *c, unsigned host, struct hyde_res *out)
{
	if (!cont_mode(c) || host >= topo_n_hosts(c->t)) {
		memset(out, 0, sizeof(*out));
		return;
	}
	*out = c->conts->host_free[host];
}

int cont_request(struct ctl *c, uint32_t app, unsigned host, const struct hyde_res *size)
{
	struct conts *ct = c->conts;
	struct cont *k;
	bool some = false;
	int r;

	if (!cont_mode(c) || app >= ct->n_apps || host >= topo_n_hosts(c->t) || !size)
		return -EINVAL;
	for (r = 0; r < HYDE_RES_KINDS; r++) {
		if (!(size->v[r] >= 0) || !isfinite(size->v[r]))
			return -EINVAL;
		some |= size->v[r] > 0;
	}
	if (!some)
		return -EINVAL;
	if (!hyde_res_fits(size, &ct->host_free[host]))
		return -ENOSPC;
	for (r = 0; r < HYDE_RES_KINDS; r++) {
		ct->host_free[host].v[r] -= size->v[r];
		if (ct->host_free[host].v[r] < 0)
			ct->host_free[host].v[r] = 0; /* the rounding margin */
	}
	k = xcalloc(1, sizeof(*k));
	k->ctl = c;
	k->pub = (struct hyde_container){
		.id = (uint32_t)ct->n, .app = app, .host = host,
		.state = HYDE_CONTAINER_STARTING, .size = *size,
		.requested = ctl_now(c), .ready = -1, .released = -1, .idle_since = -1,
	};
	xgrow((void **)&ct->v, &ct->cap, ct->n + 1, sizeof(*ct->v));
	ct->v[ct->n++] = k;
	idl_add(&ct->app_live[app], k->pub.id);
	held_add(ct, app, size, 1);
	ct->apps[app].held_changes++;
	ct->changes++;
	idl_add(&ct->host_live[host], k->pub.id);
	evtimer_init(&k->timer, cont_ready);
	evloop_at(&c->loop, &k->timer,
		  ctl_now(c) + cont_delay_draw(&c->t->container_delay, rng_unit(&ct->rng)));
	ctl_event(c, "container_request %u %s r%uh%u %g %.0f", k->pub.id, ct->apps[app].id,
		  host / c->t->hosts, host % c->t->hosts, size->v[HYDE_RES_CPU],
		  size->v[HYDE_RES_MEM]);
	return (int)k->pub.id;
}

static void cont_drop(struct ctl *c, struct cont *k)
{
	struct conts *ct = c->conts;
	int r;

	if (k->pub.state == HYDE_CONTAINER_STARTING)
		evloop_cancel(&c->loop, &k->timer);
	else if (c->be.ops->container_stop)
		c->be.ops->container_stop(&c->be, &k->pub, k->bpriv);
	k->bpriv = NULL;
	k->pub.state = HYDE_CONTAINER_RELEASED;
	k->pub.released = ctl_now(c);
	for (r = 0; r < HYDE_RES_KINDS; r++)
		ct->host_free[k->pub.host].v[r] += k->pub.size.v[r];
	idl_remove(&ct->app_live[k->pub.app], k->pub.id);
	held_add(ct, k->pub.app, &k->pub.size, -1);
	ct->apps[k->pub.app].held_changes++;
	ct->changes++;
	idl_remove(&ct->host_live[k->pub.host], k->pub.id);
	ctl_event(c, "container_release %u", k->pub.id);
	/* without heartbeats, resources freed are offered at once */
	if (!c->nodes.period)
		nodes_wake(c);
}

int cont_release(struct ctl *c, uint32_t id)
{
	struct conts *ct = c->conts;
	struct cont *k;

	if (!cont_mode(c) || id >= ct->n)
		return -EINVAL;
	k = ct->v[id];
	if (k->pub.state == HYDE_CONTAINER_RELEASED)
		return -EINVAL;
	if (k->pub.tasks)
		return -EBUSY;
	cont_drop(c, k);
	return 0;
}

void cont_run_end(struct ctl *c)
{
	struct conts *ct = c->conts;
	size_t i;

	if (!cont_mode(c))
		return;
	for (i = 0; i < ct->n; i++)
		if (ct->v[i]->pub.state != HYDE_CONTAINER_RELEASED && !ct->v[i]->pub.tasks)
			cont_drop(c, ct->v[i]);
}

const struct hyde_container *cont_get(const struct ctl *c, uint32_t id)
{
	return cont_mode(c) && id < c->conts->n ? &c->conts->v[id]->pub : NULL;
}

const uint32_t *cont_app_list(const struct ctl *c, uint32_t app, size_t *n)
{
	if (!cont_mode(c) || app >= c->conts->n_apps) {
		*n = 0;
		return NULL;
	}
	*n = c->conts->app_live[app].n;
	return c->conts->app_live[app].v;
}

void cont_app_held(const struct ctl *c, uint32_t app, struct hyde_res *held)
{
	const struct conts *ct = c->conts;
	size_t i;
	int r;

	*held = (struct hyde_res){ { 0, 0 } };
	if (!cont_mode(c) || app >= ct->n_apps)
		return;
	if (!ct->held_inexact[app]) {
		*held = ct->app_held[app];
		return;
	}
	for (i = 0; i < ct->app_live[app].n; i++)
		for (r = 0; r < HYDE_RES_KINDS; r++)
			held->v[r] += ct->v[ct->app_live[app].v[i]]->pub.size.v[r];
}

uint64_t cont_changes(const struct ctl *c)
{
	return cont_mode(c) ? c->conts->changes : 0;
}

const uint32_t *cont_host_list(const struct ctl *c, unsigned host, size_t *n)
{
	if (!cont_mode(c) || host >= topo_n_hosts(c->t)) {
		*n = 0;
		return NULL;
	}
	*n = c->conts->host_live[host].n;
	return c->conts->host_live[host].v;
}

/* ---- the monitor ---- */

void cont_tick(struct ctl *c)
{
	struct conts *ct = c->conts;
	int64_t now = ctl_now(c);
	size_t a, i;

	if (!cont_mode(c))
		return;
	for (a = 0; a < ct->n_apps; a++)
		for (i = 0; i < ct->app_live[a].n; i++) {
			struct cont *k = ct->v[ct->app_live[a].v[i]];
			double cpu, mem, model_cpu, raw = 0;

			if (k->pub.state != HYDE_CONTAINER_RUNNING || now <= k->sample_at)
				continue;
			integrate(k, now);
			cpu = k->cpu_acc;
			mem = k->mem_now;
			model_cpu = (k->cpu_acc - k->model_at_sample) / (double)(now - k->sample_at);
			k->model_at_sample = k->cpu_acc;
			/* in emulation the cgroup's own counters */
			if (c->be.ops->container_usage &&
			    c->be.ops->container_usage(&c->be, &k->pub, k->bpriv, k->cpu_acc, &cpu,
						       &raw, &mem))
				continue;
			if (cpu < k->cpu_at_sample) /* a count only grows */
				cpu = k->cpu_at_sample;
			k->util.v[HYDE_RES_CPU] =
				k->pub.size.v[HYDE_RES_CPU] > 0
					? (cpu - k->cpu_at_sample) / ((double)(now - k->sample_at) *
								      k->pub.size.v[HYDE_RES_CPU])
					: 0;
			k->util.v[HYDE_RES_MEM] =
				k->pub.size.v[HYDE_RES_MEM] > 0 ? mem / k->pub.size.v[HYDE_RES_MEM] : 0;
			k->has_util = true;
			/* measured (emulation): in the log beside what its tasks
			 * declare, for the tests and the curious (the model's
			 * own samples would only repeat the demands) */
			if (c->be.ops->container_usage)
				ctl_event(c, "container_usage %u %.4f %.4f declared %.4f %.4f counted %.4f",
					  k->pub.id, k->util.v[HYDE_RES_CPU], k->util.v[HYDE_RES_MEM],
					  model_cpu / k->pub.size.v[HYDE_RES_CPU],
					  k->mem_now / k->pub.size.v[HYDE_RES_MEM],
					  k->pub.size.v[HYDE_RES_CPU] > 0
						  ? (raw - k->raw_at_sample) /
							    ((double)(now - k->sample_at) *
							     k->pub.size.v[HYDE_RES_CPU])
						  : 0);
			k->raw_at_sample = raw;
			k->cpu_at_sample = cpu;
			k->sample_at = now;
		}
}

int cont_usage(const struct ctl *c, uint32_t id, struct hyde_res *util)
{
	const struct cont *k;

	if (!cont_mode(c) || id >= c->conts->n || !util)
		return -EINVAL;
	k = c->conts->v[id];
	if (k->pub.state != HYDE_CONTAINER_RUNNING)
		return -EINVAL;
	if (!k->has_util)
		return -EAGAIN;
	*util = k->util;
	return 0;
}

/* ---- the report ---- */

static FILE *report_open(const struct ctl *c, const char *name, const char *header,
			 char *path, char *tmp, size_t len, char *errbuf)
{
	FILE *fp;

	snprintf(path, len, "%s/%s", c->outdir, name);
	snprintf(tmp, len, "%s.tmp", path);
	fp = fopen(tmp, "w");
	if (!fp)
		errbuf_set(errbuf, "%s: %s", tmp, strerror(errno));
	else
		fprintf(fp, "%s\n", header);
	return fp;
}

static int report_close(FILE *fp, const char *path, const char *tmp, char *errbuf)
{
	int bad = ferror(fp);

	if (fclose(fp) || bad || rename(tmp, path)) {
		errbuf_set(errbuf, "%s: %s", path, strerror(errno ? errno : EIO));
		unlink(tmp);
		return -EIO;
	}
	return 0;
}

int cont_report(struct ctl *c, char *errbuf)
{
	struct conts *ct = c->conts;
	char path[4096], tmp[4096];
	uint32_t *held;
	double *secs;
	FILE *fp;
	size_t i;
	int r;

	if (!c->outdir || !ct)
		return 0;
	held = xcalloc(ct->n_apps + 1, sizeof(uint32_t));
	secs = xcalloc(ct->n_apps + 1, sizeof(double));
	for (i = 0; i < ct->n; i++) {
		const struct hyde_container *k = &ct->v[i]->pub;

		held[k->app]++;
		if (k->ready >= 0)
			secs[k->app] += (double)((k->released >= 0 ? k->released : ctl_now(c)) -
						 k->ready) / 1e9;
	}
	fp = report_open(c, RUNDIR_APP_APPS, RUNDIR_APP_APPS_HEADER, path, tmp, sizeof(path),
			 errbuf);
	if (!fp) {
		r = -EIO;
		goto out;
	}
	for (i = 0; i < ct->n_apps; i++) {
		const struct hyde_app *ap = &ct->apps[i];
		uint64_t tasks = 0;
		uint32_t k;

		for (k = 0; k < ap->n_jobs; k++)
			tasks += c->wl->jobs[ap->jobs[k]].maps + c->wl->jobs[ap->jobs[k]].reduces;
		fprintf(fp, "%s,%s,%" PRIu32 ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64
			",%" PRId64 ",%" PRIu32 ",%.3f\n",
			ap->id, c->wl->users[ap->user_idx], ap->n_jobs, tasks, ap->submit,
			ap->arrival, ap->end, ap->end >= 0 && ap->arrival >= 0 ? ap->end - ap->arrival : -1,
			held[i], secs[i]);
	}
	if ((r = report_close(fp, path, tmp, errbuf)))
		goto out;
	if (!cont_mode(c))
		goto out;
	fp = report_open(c, RUNDIR_APP_CONTAINERS, RUNDIR_APP_CONTAINERS_HEADER, path, tmp,
			 sizeof(path), errbuf);
	if (!fp) {
		r = -EIO;
		goto out;
	}
	for (i = 0; i < ct->n; i++) {
		const struct hyde_container *k = &ct->v[i]->pub;
		char host[32];

		topo_host_name(c->t, k->host, host, sizeof(host));
		fprintf(fp, "%" PRIu32 ",%s,%s,%g,%.0f,%" PRId64 ",%" PRId64 ",%" PRId64
			",%" PRIu32 "\n",
			k->id, ct->apps[k->app].id, host, k->size.v[HYDE_RES_CPU],
			k->size.v[HYDE_RES_MEM], k->requested, k->ready, k->released, k->tasks_run);
	}
	r = report_close(fp, path, tmp, errbuf);
out:
	free(held);
	free(secs);
	return r;
}
