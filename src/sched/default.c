/* default: YARN's default, as COBRA's evaluation calls it (§VII-B): one
 * task per disposable container of the default size (the host over
 * `containers`), under the fair job scheduler. An app asks for a
 * container per task it has running or waiting; when one starts it runs
 * the app's best task for its host (node-local, then rack-local, then
 * any: no waiting, as Hadoop's MapReduce application master takes what
 * the resource manager gives), and it is released when that task ends.
 * Every task thus pays a container's response time. A task must fit a
 * default container (the run is refused otherwise). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <hyde/sched.h>

#include "sched/twolevel.h"

struct default_priv {
	struct twolevel tl;
};

static int default_init(struct hyde_sched *s, char *errbuf)
{
	struct default_priv *p = s->priv;
	int r = tl_check_fit(s, errbuf);

	return r ? r : tl_init(&p->tl, s, errbuf);
}

static void default_destroy(struct hyde_sched *s)
{
	tl_destroy(&((struct default_priv *)s->priv)->tl);
}

static void default_job_arrived(struct hyde_sched *s, const struct hyde_job *j)
{
	tl_job_arrived(&((struct default_priv *)s->priv)->tl, j);
}

static void default_stage_finished(struct hyde_sched *s, const struct hyde_job *j,
				   enum hyde_task_kind k)
{
	tl_stage_finished(&((struct default_priv *)s->priv)->tl, j, k);
}

static void default_job_finished(struct hyde_sched *s, const struct hyde_job *j)
{
	tl_job_finished(&((struct default_priv *)s->priv)->tl, j);
}

static void default_heartbeat(struct hyde_sched *s, unsigned host)
{
	struct twolevel *tl = &((struct default_priv *)s->priv)->tl;
	size_t i;

	/* a container per task running or waiting */
	for (i = 0; i < tl->n_active; i++) {
		uint32_t a = tl->active[i];

		tl_want(tl, &tl->apps[a], tl_waiting(tl, a) + tl_running(tl, a));
	}
	tl_allocate(tl, host);
}

static const struct hyde_task *default_pick_in(struct hyde_sched *s,
					       const struct hyde_container *c)
{
	struct twolevel *tl = &((struct default_priv *)s->priv)->tl;
	const struct hyde_task *t = NULL;
	enum hyde_locality lvl;

	if (c->tasks)
		return NULL;
	if (!c->tasks_run && tl->apps[c->app].active)
		t = tl_next_task(tl, c->app, c->host, HYDE_OFF_RACK, NULL, NULL, NULL, &lvl);
	if (!t) /* its task is done, or none is left for it: disposable */
		hyde_container_release(s, c->id);
	return t;
}

const struct hyde_sched_ops sched_default = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "default",
	.summary = "YARN's default: one task per disposable default container, fair job scheduler",
	.priv_size = sizeof(struct default_priv),
	.init = default_init,
	.destroy = default_destroy,
	.job_arrived = default_job_arrived,
	.stage_finished = default_stage_finished,
	.job_finished = default_job_finished,
	.heartbeat = default_heartbeat,
	.reduces_may_start = tl_reduces_may_start,
	.pick_task_in = default_pick_in,
};
