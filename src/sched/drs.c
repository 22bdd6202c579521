/* drs: Spark's dynamic resource allocation (DRS, COBRA §VII-C) with
 * Spark's defaults (ExecutorAllocationManager), under the fair job
 * scheduler: an app starts with no executor (initialExecutors =
 * minExecutors = 0); once tasks have waited backlog_timeout (1s,
 * schedulerBacklogTimeout) it asks for one more executor, then, while the
 * backlog lasts, every sustained_timeout (1s) for twice as many as the
 * last time (1, 2, 4, ...), never beyond what its running and waiting
 * tasks need (a task per core), to which the target also falls when they
 * need fewer; an executor idle for idle_timeout (60s,
 * executorIdleTimeout) is released. Executors are default containers,
 * running a task per core as srs does (pack=yes: by demands), with
 * Spark's delay scheduling. Its policy looks at waiting tasks alone: no
 * utilisation feedback (COBRA's point). */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include <hyde/sched.h>

#include "sched/twolevel.h"

struct drs_opts {
	int64_t backlog_timeout, sustained_timeout, idle_timeout, locality_wait;
	bool pack;
};

struct drs_priv {
	struct drs_opts o;
	struct twolevel tl;
};

static const struct hyde_opt drs_opts[] = {
	{ "backlog_timeout", HYDE_OPT_TIME, offsetof(struct drs_opts, backlog_timeout), 0, 1e13,
	  "tasks waiting this long ask for a first executor (schedulerBacklogTimeout)" },
	{ "sustained_timeout", HYDE_OPT_TIME, offsetof(struct drs_opts, sustained_timeout), 0,
	  1e13, "then each this long twice as many more (sustainedSchedulerBacklogTimeout)" },
	{ "idle_timeout", HYDE_OPT_TIME, offsetof(struct drs_opts, idle_timeout), 0, 1e13,
	  "an executor idle this long is released (executorIdleTimeout)" },
	{ "pack", HYDE_OPT_BOOL, offsetof(struct drs_opts, pack), 0, 1,
	  "pack tasks by their demands (yes) or run one per core (no, Spark's)" },
	{ "locality_wait", HYDE_OPT_TIME, offsetof(struct drs_opts, locality_wait), 0, 1e13,
	  "Spark's delay scheduling wait per locality level (spark.locality.wait)" },
};

static void drs_defaults(void *priv)
{
	struct drs_priv *p = priv;

	p->o.backlog_timeout = 1000000000LL;
	p->o.sustained_timeout = 1000000000LL;
	p->o.idle_timeout = 60000000000LL;
	p->o.locality_wait = 3000000000LL;
	p->o.pack = false;
}

static int drs_init(struct hyde_sched *s, char *errbuf)
{
	int r = tl_check_fit(s, errbuf);

	return r ? r : tl_init(&((struct drs_priv *)s->priv)->tl, s, errbuf);
}

static void drs_destroy(struct hyde_sched *s)
{
	tl_destroy(&((struct drs_priv *)s->priv)->tl);
}

static void drs_job_arrived(struct hyde_sched *s, const struct hyde_job *j)
{
	tl_job_arrived(&((struct drs_priv *)s->priv)->tl, j);
}

static void drs_stage_finished(struct hyde_sched *s, const struct hyde_job *j,
			       enum hyde_task_kind k)
{
	tl_stage_finished(&((struct drs_priv *)s->priv)->tl, j, k);
}

static void drs_job_finished(struct hyde_sched *s, const struct hyde_job *j)
{
	tl_job_finished(&((struct drs_priv *)s->priv)->tl, j);
}

static void drs_heartbeat(struct hyde_sched *s, unsigned host)
{
	tl_allocate(&((struct drs_priv *)s->priv)->tl, host);
}

/* ExecutorAllocationManager.schedule, once a second. */
static void drs_tick(struct hyde_sched *s)
{
	struct drs_priv *p = s->priv;
	struct twolevel *tl = &p->tl;
	int64_t now = hyde_now(s);
	double per = floor(tl->csize.v[HYDE_RES_CPU] + 1e-9);
	size_t i;

	if (per < 1 || p->o.pack)
		per = 1;
	for (i = 0; i < tl->n_active; i++) {
		uint32_t app = tl->active[i];
		struct tl_app *a = &tl->apps[app];
		unsigned waiting = tl_waiting(tl, app);
		unsigned needed = (unsigned)ceil((waiting + tl_running(tl, app)) / per);
		const uint32_t *ids;
		size_t n, k;

		if (waiting) {
			if (a->backlog_since < 0) {
				a->backlog_since = now;
				a->next_add = now + p->o.backlog_timeout;
				a->to_add = 1;
			}
			if (now >= a->next_add) {
				tl_want(tl, a, a->want + a->to_add < needed ? a->want + a->to_add : needed);
				a->to_add *= 2;
				a->next_add = now + p->o.sustained_timeout;
			}
		} else {
			a->backlog_since = -1;
			a->to_add = 1;
		}
		if (a->want > needed)
			tl_want(tl, a, needed);
		/* idle executors go after idle_timeout */
		ids = hyde_app_containers(s, app, &n);
		for (k = 0; k < n; k++) {
			const struct hyde_container *c = hyde_container(s, ids[k]);

			if (c->state == HYDE_CONTAINER_RUNNING && !c->tasks &&
			    now - c->idle_since >= p->o.idle_timeout) {
				hyde_container_release(s, c->id);
				ids = hyde_app_containers(s, app, &n);
				k = (size_t)-1;
			}
		}
	}
}

static const struct hyde_task *drs_pick_in(struct hyde_sched *s, const struct hyde_container *c)
{
	struct drs_priv *p = s->priv;

	return tl_spark_pick_in(&p->tl, c, p->o.pack, p->o.locality_wait);
}

const struct hyde_sched_ops sched_drs = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "drs",
	.summary = "Spark dynamic allocation (its defaults): executors follow waiting tasks, fair job scheduler",
	.priv_size = sizeof(struct drs_priv),
	.opts = drs_opts,
	.n_opts = sizeof(drs_opts) / sizeof(drs_opts[0]),
	.defaults = drs_defaults,
	.init = drs_init,
	.destroy = drs_destroy,
	.job_arrived = drs_job_arrived,
	.stage_finished = drs_stage_finished,
	.job_finished = drs_job_finished,
	.heartbeat = drs_heartbeat,
	.tick = drs_tick,
	.reduces_may_start = tl_reduces_may_start,
	.pick_task_in = drs_pick_in,
};
