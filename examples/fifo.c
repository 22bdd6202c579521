/* fifo: Hadoop's original FIFO scheduler, as a hyde scheduler plugin.
 *
 * Jobs are served in the order they became ready (ties: workload order);
 * a free container gets the first job's map whose input is on the host,
 * else in the host's rack, else any of its maps, else its next reduce once
 * Hadoop's slowstart allows; only when the first job has nothing for this
 * host is the next job asked.
 *
 * It is written against the public API alone, <hyde/sched.h>, and built
 * outside hyde's tree:
 *
 *     cc -shared -fPIC $(pkg-config --cflags hyde) -o fifo.so fifo.c
 *     hyde sim -t topologies/tiny.topo -w workloads/small.wl -s ./fifo.so
 *     hyde compare --backend sim -s fair,./fifo.so:locality=no
 *
 * Options (-S key=value, or after the path): locality (yes: prefer maps
 * whose input is near, as Hadoop's JobQueueTaskScheduler does; no: maps in
 * index order wherever the container is). */
#include <stdlib.h>
#include <string.h>

#include <hyde/sched.h>

struct fifo_opts {
	bool locality;
};

struct fifo_priv {
	struct fifo_opts o; /* first: the option table's offsets start here */
	uint32_t *order;    /* the active jobs, by readiness */
};

static const struct hyde_opt fifo_opts[] = {
	{ "locality", HYDE_OPT_BOOL, offsetof(struct fifo_opts, locality), 0, 0,
	  "prefer maps whose input is on the host or in its rack" },
};

static void fifo_defaults(void *priv)
{
	struct fifo_priv *p = priv;

	p->o.locality = true;
}

static int fifo_init(struct hyde_sched *s, char *errbuf)
{
	struct fifo_priv *p = s->priv;

	(void)errbuf;
	p->order = hyde_calloc(hyde_cluster(s)->n_jobs + 1, sizeof(uint32_t));
	return 0;
}

static void fifo_destroy(struct hyde_sched *s)
{
	struct fifo_priv *p = s->priv;

	free(p->order);
}

static const struct hyde_sched *sorting;

static int by_readiness(const void *a, const void *b)
{
	const struct hyde_job *x = hyde_job(sorting, *(const uint32_t *)a);
	const struct hyde_job *y = hyde_job(sorting, *(const uint32_t *)b);

	if (x->ready_at != y->ready_at)
		return x->ready_at < y->ready_at ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static const struct hyde_task *fifo_pick(struct hyde_sched *s, unsigned host)
{
	struct fifo_priv *p = s->priv;
	const uint32_t *act;
	size_t n, i, k = 0;

	act = hyde_active_jobs(s, &n);
	for (i = 0; i < n; i++)
		if (hyde_job(s, act[i])->state == HYDE_JOB_READY)
			p->order[k++] = act[i];
	sorting = s;
	qsort(p->order, k, sizeof(uint32_t), by_readiness);
	sorting = NULL;
	for (i = 0; i < k; i++) {
		const struct hyde_job *j = hyde_job(s, p->order[i]);
		enum hyde_locality lvl;
		const struct hyde_task *t = NULL;

		if (p->o.locality) {
			t = hyde_pending_map(s, j, host, HYDE_OFF_RACK, &lvl);
		} else if (hyde_job_has_pending(j, HYDE_MAP)) {
			uint32_t m;

			for (m = 0; m < j->n_maps && !t; m++)
				if (j->maps[m].state == HYDE_TASK_PENDING &&
				    hyde_task_fits(s, &j->maps[m], host))
					t = &j->maps[m];
		}
		if (!t)
			t = hyde_pending_reduce(s, j, host);
		if (t)
			return t;
	}
	return NULL;
}

const struct hyde_sched_ops hyde_sched_plugin = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "fifo",
	.summary = "Hadoop's FIFO scheduler: jobs by readiness, maps near their input",
	.priv_size = sizeof(struct fifo_priv),
	.opts = fifo_opts,
	.n_opts = sizeof(fifo_opts) / sizeof(fifo_opts[0]),
	.defaults = fifo_defaults,
	.init = fifo_init,
	.destroy = fifo_destroy,
	.pick_task = fifo_pick,
};
