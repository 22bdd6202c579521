/* srs: Spark's static resource allocation (SRS, COBRA §VII-C): every app
 * asks for `executors` containers (spark.executor.instances, 2 by
 * default) of the default size when it arrives and holds them until it
 * is done, under the fair job scheduler. An executor runs a task per core
 * (spark.task.cpus = 1: a 1-core container runs one task at a time,
 * whatever the task uses of it); `pack=yes` packs tasks by their demands
 * instead, as COBRA does (Fig. 2(c)'s static schedule). Tasks are taken
 * with Spark's delay scheduling (spark.locality.wait, 3s a level, FIFO
 * over the app's jobs). */
#include "config.h"

#include <stdlib.h>

#include <hyde/sched.h>

#include "sched/twolevel.h"

struct srs_opts {
	unsigned executors;
	bool pack;
	int64_t locality_wait;
};

struct srs_priv {
	struct srs_opts o;
	struct twolevel tl;
};

static const struct hyde_opt srs_opts[] = {
	{ "executors", HYDE_OPT_UNS, offsetof(struct srs_opts, executors), 1, 1e6,
	  "containers each app holds for its life (spark.executor.instances)" },
	{ "pack", HYDE_OPT_BOOL, offsetof(struct srs_opts, pack), 0, 1,
	  "pack tasks by their demands (yes) or run one per core (no, Spark's)" },
	{ "locality_wait", HYDE_OPT_TIME, offsetof(struct srs_opts, locality_wait), 0, 1e13,
	  "Spark's delay scheduling wait per locality level (spark.locality.wait)" },
};

static void srs_defaults(void *priv)
{
	struct srs_priv *p = priv;

	p->o.executors = 2;
	p->o.pack = false;
	p->o.locality_wait = 3000000000LL;
}

static int srs_init(struct hyde_sched *s, char *errbuf)
{
	int r = tl_check_fit(s, errbuf);

	return r ? r : tl_init(&((struct srs_priv *)s->priv)->tl, s, errbuf);
}

static void srs_destroy(struct hyde_sched *s)
{
	tl_destroy(&((struct srs_priv *)s->priv)->tl);
}

static void srs_job_arrived(struct hyde_sched *s, const struct hyde_job *j)
{
	struct srs_priv *p = s->priv;

	tl_job_arrived(&p->tl, j);
	tl_want(&p->tl, &p->tl.apps[j->app], p->o.executors);
}

static void srs_stage_finished(struct hyde_sched *s, const struct hyde_job *j,
			       enum hyde_task_kind k)
{
	tl_stage_finished(&((struct srs_priv *)s->priv)->tl, j, k);
}

static void srs_job_finished(struct hyde_sched *s, const struct hyde_job *j)
{
	tl_job_finished(&((struct srs_priv *)s->priv)->tl, j);
}

static void srs_heartbeat(struct hyde_sched *s, unsigned host)
{
	tl_allocate(&((struct srs_priv *)s->priv)->tl, host);
}

static const struct hyde_task *srs_pick_in(struct hyde_sched *s, const struct hyde_container *c)
{
	struct srs_priv *p = s->priv;

	return tl_spark_pick_in(&p->tl, c, p->o.pack, p->o.locality_wait);
}

const struct hyde_sched_ops sched_srs = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "srs",
	.summary = "Spark static allocation: 2 executors per app for its life, fair job scheduler",
	.priv_size = sizeof(struct srs_priv),
	.opts = srs_opts,
	.n_opts = sizeof(srs_opts) / sizeof(srs_opts[0]),
	.defaults = srs_defaults,
	.init = srs_init,
	.destroy = srs_destroy,
	.job_arrived = srs_job_arrived,
	.stage_finished = srs_stage_finished,
	.job_finished = srs_job_finished,
	.heartbeat = srs_heartbeat,
	.reduces_may_start = tl_reduces_may_start,
	.pick_task_in = srs_pick_in,
};
