/* fair: the Hadoop Fair Scheduler (ALGORITHMS.md). Users (pools) are
 * ordered by running tasks over weight (all weights 1 here), ties by the
 * earliest job; inside a user, jobs by running tasks, ties by arrival. A
 * free container gets a task of the first job that has one: a map,
 * preferring one whose input is on the host, then in its rack, then any
 * (no waiting: that is delay scheduling, its own scheduler), else a reduce
 * once the job's slowstart fraction of maps is done. */
#include "config.h"

#include <stdlib.h>

#include "core/util.h"
#include "sched/sched.h"

struct fair_priv {
	uint32_t *order; /* jobs to consider, sorted per pick */
	unsigned *user_running;
};

static int fair_init(struct sched *s, char *errbuf)
{
	struct fair_priv *p = s->priv;

	(void)errbuf;
	p->order = xcalloc(s->c->n_jobs + 1, sizeof(uint32_t));
	p->user_running = xcalloc(s->c->wl->n_users + 1, sizeof(unsigned));
	return 0;
}

static void fair_destroy(struct sched *s)
{
	struct fair_priv *p = s->priv;

	free(p->order);
	free(p->user_running);
}

static struct task *fair_pick(struct sched *s, unsigned host)
{
	struct fair_priv *p = s->priv;
	size_t n = sched_fair_order(s, p->order, p->user_running), i;

	for (i = 0; i < n; i++) {
		struct job *j = &s->c->jobs[p->order[i]];
		enum sched_locality lvl;
		struct task *t = sched_pending_map(s, j, host, LOC_ANY, &lvl);

		if (!t)
			t = sched_pending_reduce(s, j, host);
		if (t)
			return t;
	}
	return NULL;
}

const struct hyde_sched_ops sched_fair = {
	.name = "fair",
	.summary = "Hadoop Fair Scheduler: users and jobs by running tasks",
	.priv_size = sizeof(struct fair_priv),
	.init = fair_init,
	.destroy = fair_destroy,
	.pick_task = fair_pick,
};
