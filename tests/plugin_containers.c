/* A container-holding scheduler as a plugin (API version 2), for
 * tests/plugin.sh: each app holds one default container, asked for at the
 * first heartbeat after its arrival on the heartbeating host, and packs
 * its tasks in it while their demands fit; the container goes back when
 * the app is done. It aborts on a broken promise of the API and logs how
 * many tasks it placed. Built against the installed header alone. */
#include <stdlib.h>

#include <hyde/sched.h>

struct cplug {
	int32_t *held; /* per app: its container, or -1 */
	unsigned placed;
};

static int cp_init(struct hyde_sched *s, char *errbuf)
{
	struct cplug *p = s->priv;
	size_t i, n = hyde_cluster(s)->n_apps;

	(void)errbuf;
	p->held = hyde_calloc(n + 1, sizeof(int32_t));
	for (i = 0; i < n; i++)
		p->held[i] = -1;
	return 0;
}

static void cp_destroy(struct hyde_sched *s)
{
	struct cplug *p = s->priv;

	hyde_log(s, "placed %u tasks", p->placed);
	free(p->held);
}

static void cp_heartbeat(struct hyde_sched *s, unsigned host)
{
	struct cplug *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	size_t n, i;
	const uint32_t *act = hyde_active_jobs(s, &n);

	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, act[i]);

		if (p->held[j->app] < 0 && j->state == HYDE_JOB_READY)
			p->held[j->app] = hyde_container_request(s, j->app, host, &ci->container_size);
	}
}

static const struct hyde_task *cp_pick_in(struct hyde_sched *s, const struct hyde_container *c)
{
	struct cplug *p = s->priv;
	const struct hyde_app *a = hyde_app(s, c->app);
	struct hyde_res room;
	uint32_t i, k;
	int r;

	if (c->app >= hyde_cluster(s)->n_apps || (int32_t)c->id != p->held[c->app] ||
	    c->host >= hyde_cluster(s)->n_hosts || c->state != HYDE_CONTAINER_RUNNING)
		abort();
	for (r = 0; r < HYDE_RES_KINDS; r++)
		room.v[r] = c->size.v[r] - c->used.v[r];
	for (i = 0; i < a->n_jobs; i++) {
		const struct hyde_job *j = hyde_job(s, a->jobs[i]);

		if (j->state != HYDE_JOB_READY)
			continue;
		for (k = 0; k < j->n_maps + j->n_reduces; k++) {
			const struct hyde_task *t = k < j->n_maps ? &j->maps[k] : &j->reduces[k - j->n_maps];

			if (t->state != HYDE_TASK_PENDING || !hyde_res_fits(hyde_task_demand(j, t), &room) ||
			    (t->kind == HYDE_REDUCE && !hyde_job_maps_done(j)) || !hyde_task_fits(s, t, c->host))
				continue;
			p->placed++;
			return t;
		}
	}
	if (a->jobs_done == a->n_jobs && !c->tasks) {
		if (hyde_container_release(s, c->id))
			abort();
		p->held[c->app] = -1;
	}
	return NULL;
}

static void cp_job_finished(struct hyde_sched *s, const struct hyde_job *j)
{
	struct cplug *p = s->priv;
	const struct hyde_container *c;

	if (p->held[j->app] < 0 || hyde_app(s, j->app)->jobs_done < hyde_app(s, j->app)->n_jobs)
		return;
	c = hyde_container(s, (uint32_t)p->held[j->app]);
	if (c->state == HYDE_CONTAINER_STARTING || !c->tasks) {
		if (hyde_container_release(s, c->id))
			abort();
		p->held[j->app] = -1;
	}
}

static bool cp_reduces(struct hyde_sched *s, const struct hyde_job *j)
{
	(void)s;
	return hyde_job_maps_done(j);
}

const struct hyde_sched_ops hyde_sched_plugin = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "oneper",
	.summary = "one container per app, tasks packed in it",
	.priv_size = sizeof(struct cplug),
	.init = cp_init,
	.destroy = cp_destroy,
	.heartbeat = cp_heartbeat,
	.job_finished = cp_job_finished,
	.reduces_may_start = cp_reduces,
	.pick_task_in = cp_pick_in,
};
