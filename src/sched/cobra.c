/* cobra: COBRA [COBRA] under YARN's Fair Scheduler: a
 * task scheduler per application (COBRA's "job", hyde's app: jobs that
 * share containers) made of Af and Pdelay, with multi-task, reusable
 * containers of the default size (the host over `containers`).
 *
 * Af (Alg. 1), every period L from the app's arrival: the utilisation of
 * the period u = max_k of the mean, over the monitor's samples (every
 * heartbeat period, hyde_container_usage), of resource k used over
 * resource k held by the app's running containers; the period is
 * inefficient if u < delta_u and no task of the app waited at any sample
 * of the period, else deprived if the app held fewer containers at the
 * period's end than it asked for, else satisfied; the desire d is divided
 * by rho, kept, or multiplied by rho (d >= 1 always, as Lemma 3 takes it,
 * and at most every container of the cluster, |P|). The app asks the job
 * scheduler for ceil(d) containers, and no more than its waiting plus
 * running tasks (a container per task is the most it can use: our reading
 * of "desires are reals", docs/REFERENCES.md). Shrinking (§VI-B): idle
 * containers beyond the desire are released at the period's end, busy
 * ones as soon as they become empty ("the containers which firstly become
 * free").
 *
 * Pdelay (Alg. 2), each time a container is offered (it starts, a task in
 * it ends, its host heartbeats): a node-local task of any of the app's
 * jobs whose demand fits what the container has left; else a rack-local
 * one that has waited tau x p (line 6 tests t_ij's demand: t_ik's is
 * meant: our reading, docs/REFERENCES.md); else any task that has
 * waited 2 tau x p, if the container has at least 1 - delta_u of every
 * resource free. A task waits from when its stage became available (its job
 * ready, or its job's maps all done for a reduce); p is its stage's
 * processing time, known for available stages only (semi-clairvoyance: a
 * later stage's is not read before it is available). A reduce has no
 * input to be near: it is node-local everywhere.
 *
 * The job scheduler (§V): at each host's heartbeat, while a default
 * container fits, it goes to the app holding the fewest (the smallest
 * share: every app asks for one size) among those holding fewer than
 * they ask for.
 *
 * Containers still starting count in the utilisation as held and idle:
 * §III's allocation a(J, q) is what the job scheduler granted, and the
 * waste Lemma 3 bounds, (1 - u) a L, includes a container's response
 * time.
 *
 * Options: rho (1.5), delta_u (0.7; the paper's delta, named apart from
 * the OCS's), period (L, 5s), tau (0.5: the paper gives none), d1 (1: Alg.
 * 1's first desire; Fig. 2's toy gives the job both containers at once);
 * two readings the paper leaves open: waiting_period (yes: "no waiting
 * task in period q - 1" read as at no sample of the period; no: at its
 * end, when Af runs) and round_nearest (no: ask for ceil(d), READING-
 * NOTES; yes: the nearest whole container). Fig. 2(c)'s 15s comes out
 * with waiting_period=no and round_nearest=yes, 15.5s with the defaults
 * (tests/check_cobra.c, README).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include <hyde/sched.h>

#include "sched/twolevel.h"

struct cobra_opts {
	double rho, delta_u, tau, d1;
	int64_t period;
	bool waiting_period, round_nearest;
};

struct cobra_priv {
	struct cobra_opts o; /* first: the options */
	struct twolevel tl;
	double max_desire; /* |P| */
};

static const struct hyde_opt cobra_opts[] = {
	{ "rho", HYDE_OPT_DOUBLE, offsetof(struct cobra_opts, rho), 1.000001, 100,
	  "Af's resource adjustment factor (MIMD)" },
	{ "delta_u", HYDE_OPT_DOUBLE, offsetof(struct cobra_opts, delta_u), 0.01, 0.99,
	  "Af's utilisation threshold (the paper's delta)" },
	{ "tau", HYDE_OPT_DOUBLE, offsetof(struct cobra_opts, tau), 0, 1000,
	  "Pdelay's waiting factor: rack-local after tau x p, anywhere after 2 tau x p" },
	{ "period", HYDE_OPT_TIME, offsetof(struct cobra_opts, period), 1e6, 1e13,
	  "Af's scheduling period L" },
	{ "d1", HYDE_OPT_DOUBLE, offsetof(struct cobra_opts, d1), 1, 1e6,
	  "an app's desire in its first period (Alg. 1: 1)" },
	{ "waiting_period", HYDE_OPT_BOOL, offsetof(struct cobra_opts, waiting_period), 0, 1,
	  "a task waiting at any sample of the period makes it efficient (no: only at its end)" },
	{ "round_nearest", HYDE_OPT_BOOL, offsetof(struct cobra_opts, round_nearest), 0, 1,
	  "ask for the desire rounded to the nearest container (no: rounded up)" },
};

static void cobra_defaults(void *priv)
{
	struct cobra_priv *p = priv;

	p->o.rho = 1.5;
	p->o.delta_u = 0.7;
	p->o.tau = 0.5;
	p->o.period = 5000000000LL;
	p->o.d1 = 1;
	p->o.waiting_period = true;
	p->o.round_nearest = false;
}

static int cobra_init(struct hyde_sched *s, char *errbuf)
{
	struct cobra_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);

	int r = tl_check_fit(s, errbuf);

	if (r)
		return r;
	p->max_desire = (double)ci->n_hosts * ci->containers;
	return tl_init(&p->tl, s, errbuf);
}

static void cobra_destroy(struct hyde_sched *s)
{
	struct cobra_priv *p = s->priv;

	tl_destroy(&p->tl);
}

static unsigned most_useful(struct cobra_priv *p, uint32_t app)
{
	unsigned n = tl_waiting(&p->tl, app) + tl_running(&p->tl, app);

	return n ? n : 1;
}

static void cobra_job_arrived(struct hyde_sched *s, const struct hyde_job *j)
{
	struct cobra_priv *p = s->priv;
	struct tl_app *a = &p->tl.apps[j->app];
	bool first = a->arrived < 0;

	tl_job_arrived(&p->tl, j);
	if (!first)
		return;
	a->desire = p->o.d1; /* Alg. 1 line 2 (period q = 1) */
	tl_want(&p->tl, a, tl_af_want(a->desire, most_useful(p, j->app)));
	a->period_start = hyde_now(s);
	a->period = 1;
}

static void cobra_stage_finished(struct hyde_sched *s, const struct hyde_job *j,
				 enum hyde_task_kind k)
{
	tl_stage_finished(&((struct cobra_priv *)s->priv)->tl, j, k);
}

static void cobra_job_finished(struct hyde_sched *s, const struct hyde_job *j)
{
	tl_job_finished(&((struct cobra_priv *)s->priv)->tl, j);
}

static void cobra_heartbeat(struct hyde_sched *s, unsigned host)
{
	tl_allocate(&((struct cobra_priv *)s->priv)->tl, host);
}

/* The monitor's sample: the app's use of what it holds, per resource. */
static void sample(struct cobra_priv *p, uint32_t app)
{
	struct hyde_sched *s = p->tl.s;
	struct tl_app *a = &p->tl.apps[app];
	double used[HYDE_RES_KINDS] = { 0 }, held[HYDE_RES_KINDS] = { 0 };
	const uint32_t *ids;
	size_t n, i;
	bool any = false;
	int k;

	if (tl_waiting(&p->tl, app) && p->o.waiting_period)
		a->waited = true;
	ids = hyde_app_containers(s, app, &n);
	for (i = 0; i < n; i++) {
		const struct hyde_container *c = hyde_container(s, ids[i]);
		struct hyde_res u = { { 0, 0 } };

		/* a container still starting is held and does nothing (the
		 * allocation a(J, q) of §III counts it); a running one not
		 * sampled yet is left out */
		if (c->state == HYDE_CONTAINER_RUNNING && hyde_container_usage(s, ids[i], &u))
			continue;
		for (k = 0; k < HYDE_RES_KINDS; k++) {
			used[k] += u.v[k] * c->size.v[k];
			held[k] += c->size.v[k];
		}
		any = true;
	}
	if (!any)
		return; /* nothing held and running: no utilisation to speak of */
	for (k = 0; k < HYDE_RES_KINDS; k++)
		a->u_sum[k] += held[k] > 0 ? used[k] / held[k] : 0;
	a->u_n++;
}

/* Af at the end of the app's period. */
static void period_end(struct cobra_priv *p, uint32_t app)
{
	struct hyde_sched *s = p->tl.s;
	struct tl_app *a = &p->tl.apps[app];
	unsigned held = tl_held(&p->tl, app);
	static const char *const cases[] = { "first", "inefficient", "deprived", "satisfied" };
	enum tl_af_case why;
	double u = 0;
	int k;

	for (k = 0; k < HYDE_RES_KINDS; k++)
		if (a->u_n && a->u_sum[k] / a->u_n > u)
			u = a->u_sum[k] / a->u_n;
	if (!p->o.waiting_period && tl_waiting(&p->tl, app))
		a->waited = true;
	a->desire = tl_af(a->desire, held >= a->want, u, a->waited, p->o.rho, p->o.delta_u, &why);
	if (a->desire > p->max_desire)
		a->desire = p->max_desire;
	tl_want(&p->tl, a,
		tl_af_want(p->o.round_nearest ? floor(a->desire + 0.5) : a->desire,
			   most_useful(p, app)));
	hyde_log(s, "app %s period %u: u %.3f waited %d held %u -> %s, d %.3f, asks %u",
		 hyde_app(s, app)->id, a->period, u, a->waited, held, cases[why], a->desire,
		 a->want);
	tl_shrink(&p->tl, app, a->want);
	a->period++;
	a->period_start += p->o.period;
	a->waited = false;
	a->u_n = 0;
	for (k = 0; k < HYDE_RES_KINDS; k++)
		a->u_sum[k] = 0;
}

static void cobra_tick(struct hyde_sched *s)
{
	struct cobra_priv *p = s->priv;
	int64_t now = hyde_now(s);
	size_t i;

	for (i = 0; i < p->tl.n_active; i++) {
		uint32_t app = p->tl.active[i];
		struct tl_app *a = &p->tl.apps[app];

		sample(p, app);
		while (now - a->period_start >= p->o.period)
			period_end(p, app);
	}
}

struct pdelay_arg {
	struct cobra_priv *p;
	double free_frac;
	int64_t now;
};

static bool pdelay_ok(struct twolevel *tl, const struct hyde_task *t, enum hyde_locality level,
		      void *arg)
{
	struct pdelay_arg *a = arg;
	const struct hyde_job *j = hyde_job(tl->s, t->job);
	double wait = (double)(a->now - tl_waiting_since(tl, t));
	double pt = (double)(t->kind == HYDE_MAP ? j->map_time : j->reduce_time);

	return tl_pdelay_ok(level, wait, pt, a->p->o.tau, a->free_frac, a->p->o.delta_u);
}

static const struct hyde_task *cobra_pick_in(struct hyde_sched *s, const struct hyde_container *c)
{
	struct cobra_priv *p = s->priv;
	struct tl_app *a = &p->tl.apps[c->app];
	struct pdelay_arg arg = { p, tl_free_frac(c), hyde_now(s) };
	const struct hyde_task *t = NULL;
	enum hyde_locality lvl;
	struct hyde_res room;

	if (a->active) {
		tl_room(c, &room);
		t = tl_next_task(&p->tl, c->app, c->host, HYDE_OFF_RACK, &room, pdelay_ok, &arg,
				 &lvl);
	}
	if (t)
		return t;
	/* an emptied container beyond the desire goes back at once */
	if (!c->tasks && (!a->active || tl_held(&p->tl, c->app) > a->want))
		hyde_container_release(s, c->id);
	return NULL;
}

const struct hyde_sched_ops sched_cobra = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "cobra",
	.summary = "COBRA: Af desires and Pdelay in reusable multi-task containers, fair job scheduler",
	.priv_size = sizeof(struct cobra_priv),
	.opts = cobra_opts,
	.n_opts = sizeof(cobra_opts) / sizeof(cobra_opts[0]),
	.defaults = cobra_defaults,
	.init = cobra_init,
	.destroy = cobra_destroy,
	.job_arrived = cobra_job_arrived,
	.stage_finished = cobra_stage_finished,
	.job_finished = cobra_job_finished,
	.heartbeat = cobra_heartbeat,
	.tick = cobra_tick,
	.reduces_may_start = tl_reduces_may_start,
	.pick_task_in = cobra_pick_in,
};
