/* fair: the Hadoop Fair Scheduler [Fair]. Users (pools) are
 * ordered by running tasks over weight (all weights 1 here), ties by the
 * earliest job; inside a user, jobs by running tasks, ties by arrival. A
 * free container gets a task of the first job that has one: a map,
 * preferring one whose input is on the host, then in its rack, then any
 * (no waiting: that is delay scheduling, its own scheduler), else a reduce
 * once the job's slowstart fraction of maps is done. */
#include "config.h"

#include <stdlib.h>

#include <hyde/sched.h>

struct fair_priv {
	unsigned *user_running;
};

static int fair_init(struct hyde_sched *s, char *errbuf)
{
	struct fair_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);

	(void)errbuf;
	p->user_running = hyde_calloc(ci->n_users + 1, sizeof(unsigned));
	return 0;
}

static void fair_destroy(struct hyde_sched *s)
{
	struct fair_priv *p = s->priv;

	free(p->user_running);
}

static const struct hyde_task *fair_pick(struct hyde_sched *s, unsigned host)
{
	struct fair_priv *p = s->priv;
	uint32_t x;

	/* the fair order job by job: the first with a task is most often
	 * the first (a sort of every ready job was a tenth of the SWIM
	 * day's time) */
	for (x = hyde_fair_next(s, p->user_running); x != UINT32_MAX; x = hyde_fair_next(s, NULL)) {
		const struct hyde_job *j = hyde_job(s, x);
		enum hyde_locality lvl;
		const struct hyde_task *t = hyde_pending_map(s, j, host, HYDE_OFF_RACK, &lvl);

		if (!t)
			t = hyde_pending_reduce(s, j, host);
		if (t)
			return t;
	}
	return NULL;
}

const struct hyde_sched_ops sched_fair = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "fair",
	.summary = "Hadoop Fair Scheduler: users and jobs by running tasks",
	.priv_size = sizeof(struct fair_priv),
	.init = fair_init,
	.destroy = fair_destroy,
	.pick_task = fair_pick,
};
