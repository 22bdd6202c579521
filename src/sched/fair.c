/* fair: the Hadoop Fair Scheduler (ALGORITHMS.md). Users (pools) are
 * ordered by running tasks over weight (all weights 1 here), ties by the
 * earliest job; inside a user, jobs by running tasks, ties by arrival. A
 * free container gets a task of the first job that has one: a map,
 * preferring one whose input is on the host, then in its rack, then any
 * (no waiting: that is delay scheduling, its own scheduler), else a reduce
 * once the job's slowstart fraction of maps is done. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "sched/sched.h"

struct fair_priv {
	uint32_t *order; /* jobs to consider, sorted per pick */
	unsigned *user_running;
	size_t n_users;
	struct sched *s;
};

static struct sched *sort_sched;

/* Fair order: user's running tasks, then the job's, then arrival, then
 * index (a total order: runs are deterministic). */
static int cmp_fair(const void *a, const void *b)
{
	const struct sched *s = sort_sched;
	const struct fair_priv *p = s->priv;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct job *jx = &s->c->jobs[x], *jy = &s->c->jobs[y];
	unsigned ux = p->user_running[s->c->wl->user_of[x]];
	unsigned uy = p->user_running[s->c->wl->user_of[y]];
	unsigned rx = jx->maps_running + jx->reduces_running;
	unsigned ry = jy->maps_running + jy->reduces_running;

	if (ux != uy)
		return ux < uy ? -1 : 1;
	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (jx->ready_at != jy->ready_at)
		return jx->ready_at < jy->ready_at ? -1 : 1;
	return (x > y) - (x < y);
}

static int fair_init(struct sched *s, char *errbuf)
{
	struct fair_priv *p = s->priv;

	(void)errbuf;
	p->order = xcalloc(s->c->n_jobs + 1, sizeof(uint32_t));
	p->n_users = s->c->wl->n_users;
	p->user_running = xcalloc(p->n_users + 1, sizeof(unsigned));
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
	size_t n = 0, i;

	memset(p->user_running, 0, p->n_users * sizeof(unsigned));
	for (i = 0; i < s->c->n_jobs; i++) {
		const struct job *j = &s->c->jobs[i];

		p->user_running[s->c->wl->user_of[i]] += j->maps_running + j->reduces_running;
		if (j->state == JOB_READY &&
		    (sched_job_has_pending(j, TASK_MAP) || sched_job_has_pending(j, TASK_REDUCE)))
			p->order[n++] = (uint32_t)i;
	}
	sort_sched = s;
	qsort(p->order, n, sizeof(uint32_t), cmp_fair);
	sort_sched = NULL;
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
