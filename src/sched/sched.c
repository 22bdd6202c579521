/* The scheduler registry and the helpers schedulers share. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "sched/sched.h"

const struct hyde_sched_ops *sched_find(const char *name)
{
	size_t i;

	for (i = 0; sched_table[i]; i++)
		if (!strcmp(sched_table[i]->name, name))
			return sched_table[i];
	return NULL;
}

static const struct opt_desc common_opts[] = {
	{ "slowstart", O_DOUBLE, offsetof(struct sched, slowstart), 0, 1,
	  "fraction of maps done before reduces may start (Hadoop's slowstart)" },
};

int sched_new(const char *name, char *const *kv, int n_kv, struct sched **out,
	      char *errbuf)
{
	const struct hyde_sched_ops *ops = sched_find(name);
	struct sched *s;
	int i, r;

	if (!ops) {
		char names[256] = "";

		for (i = 0; sched_table[i]; i++) {
			strncat(names, i ? ", " : "", sizeof(names) - strlen(names) - 1);
			strncat(names, sched_table[i]->name, sizeof(names) - strlen(names) - 1);
		}
		errbuf_set(errbuf, "unknown scheduler '%s' (expected one of: %s)", name, names);
		return -EINVAL;
	}
	s = xcalloc(1, sizeof(*s));
	s->ops = ops;
	s->slowstart = 0.05; /* mapreduce.job.reduce.slowstart.completedmaps */
	s->priv = xcalloc(1, ops->priv_size ? ops->priv_size : 1);
	if (ops->defaults)
		ops->defaults(s->priv);
	for (i = 0; i < n_kv; i++) {
		char msg[HYDE_ERRBUF_SIZE];

		r = opts_try_set(s, common_opts, ARRAY_SIZE(common_opts), kv[i], msg);
		if (r == -ENOENT)
			r = ops->n_opts ? opts_try_set(s->priv, ops->opts, ops->n_opts, kv[i], msg)
					: -ENOENT;
		if (r == -ENOENT) {
			char names[512] = "slowstart";
			size_t k;

			for (k = 0; k < ops->n_opts; k++) {
				strncat(names, ", ", sizeof(names) - strlen(names) - 1);
				strncat(names, ops->opts[k].name, sizeof(names) - strlen(names) - 1);
			}
			errbuf_set(errbuf, "scheduler %s: unknown option '%.*s' (expected one of: %s)",
				   name, (int)strcspn(kv[i], "="), kv[i], names);
			sched_free(s);
			return -EINVAL;
		}
		if (r) {
			errbuf_set(errbuf, "scheduler %s: %s", name, msg);
			sched_free(s);
			return -EINVAL;
		}
	}
	*out = s;
	return 0;
}

void sched_free(struct sched *s)
{
	if (!s)
		return;
	free(s->priv);
	free(s);
}

bool sched_task_fits(const struct sched *s, const struct task *t, unsigned host)
{
	const struct wl_job *w = s->c->jobs[t->job].wl;
	const uint32_t *pin = t->kind == TASK_MAP ? w->map_racks : w->reduce_racks;

	return !pin || pin[t->idx] == topo_host_rack(s->t, host);
}

bool sched_job_has_pending(const struct job *j, enum task_kind kind)
{
	if (kind == TASK_MAP)
		return j->maps_running + j->maps_done < j->wl->maps;
	return j->reduces_running + j->reduces_done < j->wl->reduces;
}

struct task *sched_pending_map(struct sched *s, struct job *j, unsigned host,
			       enum sched_locality max_level,
			       enum sched_locality *level)
{
	unsigned rack = topo_host_rack(s->t, host);
	struct task *rack_local = NULL, *any = NULL;
	uint32_t k;

	if (!sched_job_has_pending(j, TASK_MAP))
		return NULL;
	for (k = 0; k < j->wl->maps; k++) {
		struct task *t = &j->maps[k];

		if (t->state != TASK_PENDING || !sched_task_fits(s, t, host))
			continue;
		if (block_on_host(&j->blocks[k], host)) {
			*level = LOC_NODE;
			return t;
		}
		if (!rack_local && block_on_rack(s->c, &j->blocks[k], rack))
			rack_local = t;
		if (!any)
			any = t;
	}
	if (rack_local && max_level >= LOC_RACK) {
		*level = LOC_RACK;
		return rack_local;
	}
	if (any && max_level >= LOC_ANY) {
		*level = rack_local == any ? LOC_RACK : LOC_ANY;
		return any;
	}
	return NULL;
}

bool sched_reduces_may_start(struct sched *s, const struct job *j)
{
	if (s->ops->reduce_start && s->ops->reduce_start(s) == SCHED_AFTER_MAPS)
		return job_maps_done(j);
	return j->maps_done >= (uint32_t)ceil(s->slowstart * j->wl->maps);
}

struct task *sched_pending_reduce(struct sched *s, struct job *j, unsigned host)
{
	uint32_t k;

	if (!sched_job_has_pending(j, TASK_REDUCE) || !sched_reduces_may_start(s, j))
		return NULL;
	for (k = 0; k < j->wl->reduces; k++)
		if (j->reduces[k].state == TASK_PENDING &&
		    sched_task_fits(s, &j->reduces[k], host))
			return &j->reduces[k];
	return NULL;
}

unsigned sched_user_running(struct sched *s, uint32_t user)
{
	const struct workload *wl = s->c->wl;
	unsigned n = 0;
	size_t i;

	for (i = 0; i < s->c->n_jobs; i++)
		if (wl->user_of[i] == user)
			n += s->c->jobs[i].maps_running + s->c->jobs[i].reduces_running;
	return n;
}
