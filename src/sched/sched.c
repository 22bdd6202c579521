/* The scheduler registry and the helpers schedulers share. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
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

void sched_print_options(void *fpv)
{
	FILE *fp = fpv;
	size_t i;

	fprintf(fp, "Scheduler options (-S KEY=VALUE; defaults shown):\n all:\n");
	opts_print(&(struct sched){ .slowstart = 0.05 }, common_opts, ARRAY_SIZE(common_opts), fp);
	for (i = 0; sched_table[i]; i++) {
		const struct hyde_sched_ops *ops = sched_table[i];
		void *priv;

		if (!ops->n_opts)
			continue;
		priv = xcalloc(1, ops->priv_size);
		if (ops->defaults)
			ops->defaults(priv);
		fprintf(fp, " %s:\n", ops->name);
		opts_print(priv, ops->opts, ops->n_opts, fp);
		free(priv);
	}
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

/* Pending maps of a job by where their input is (Hadoop's task cache):
 * per host, the maps with a replica there; per rack, the same by rack (or,
 * for maps pinned to racks, by pin); and all of them. Lists are in map
 * order and each has a cursor that only moves forward past maps that have
 * started: a map never becomes pending again (a failure fails the run). */
struct map_index {
	unsigned version;
	uint32_t *host_off, *host_maps, *host_cur;
	uint32_t *rack_off, *rack_maps, *rack_cur;
	uint32_t any_cur;
	uint32_t red_cur; /* reduces before it have started */
	bool pinned;
};

void map_index_free(struct map_index *mi)
{
	if (!mi)
		return;
	free(mi->host_off);
	free(mi->host_maps);
	free(mi->host_cur);
	free(mi->rack_off);
	free(mi->rack_maps);
	free(mi->rack_cur);
	free(mi);
}

/* CSR lists: key(m, k) gives the k-th key of map m, or -1. */
static void csr_build(uint32_t n_keys, uint32_t n_maps, unsigned per_map,
		      long (*key)(const struct job *, uint32_t, unsigned, const struct topo *),
		      const struct job *j, const struct topo *t,
		      uint32_t **off, uint32_t **list, uint32_t **cur)
{
	uint32_t m, *fill;
	unsigned k;

	*off = xcalloc(n_keys + 1, sizeof(uint32_t));
	for (m = 0; m < n_maps; m++)
		for (k = 0; k < per_map; k++) {
			long v = key(j, m, k, t);

			if (v >= 0)
				(*off)[v + 1]++;
		}
	for (k = 0; k < n_keys; k++)
		(*off)[k + 1] += (*off)[k];
	*list = xcalloc((*off)[n_keys] + 1, sizeof(uint32_t));
	fill = xcalloc(n_keys + 1, sizeof(uint32_t));
	for (m = 0; m < n_maps; m++)
		for (k = 0; k < per_map; k++) {
			long v = key(j, m, k, t);

			if (v >= 0)
				(*list)[(*off)[v] + fill[v]++] = m;
		}
	free(fill);
	*cur = xcalloc(n_keys + 1, sizeof(uint32_t));
	for (k = 0; k < n_keys; k++)
		(*cur)[k] = (*off)[k];
}

static long key_host(const struct job *j, uint32_t m, unsigned k, const struct topo *t)
{
	const struct block *b = &j->blocks[m];
	unsigned i;

	(void)t;
	if (k >= b->n_replicas)
		return -1;
	for (i = 0; i < k; i++) /* count a host once */
		if (b->replica[i] == b->replica[k])
			return -1;
	return b->replica[k];
}

static long key_rack(const struct job *j, uint32_t m, unsigned k, const struct topo *t)
{
	const struct block *b = &j->blocks[m];
	unsigned i;

	if (j->wl->map_racks)
		return k == 0 ? (long)j->wl->map_racks[m] : -1;
	if (k >= b->n_replicas)
		return -1;
	for (i = 0; i < k; i++)
		if (topo_host_rack(t, b->replica[i]) == topo_host_rack(t, b->replica[k]))
			return -1;
	return topo_host_rack(t, b->replica[k]);
}

static struct map_index *map_index_of(struct sched *s, struct job *j)
{
	struct map_index *mi = j->map_idx;

	if (mi && mi->version == j->blocks_version)
		return mi;
	map_index_free(mi);
	mi = xcalloc(1, sizeof(*mi));
	mi->version = j->blocks_version;
	mi->pinned = j->wl->map_racks != NULL;
	csr_build(topo_n_hosts(s->t), j->wl->maps, CLUSTER_MAX_REPLICAS, key_host, j, s->t,
		  &mi->host_off, &mi->host_maps, &mi->host_cur);
	csr_build(s->t->racks, j->wl->maps, CLUSTER_MAX_REPLICAS, key_rack, j, s->t,
		  &mi->rack_off, &mi->rack_maps, &mi->rack_cur);
	j->map_idx = mi;
	return mi;
}

/* First pending map in list[*cur .. end) that fits host; moves *cur past
 * the maps that have started. */
static struct task *scan(struct sched *s, struct job *j, const uint32_t *list,
			 uint32_t *cur, uint32_t end, unsigned host)
{
	uint32_t k;

	while (*cur < end && j->maps[list[*cur]].state != TASK_PENDING)
		(*cur)++;
	for (k = *cur; k < end; k++) {
		struct task *t = &j->maps[list[k]];

		if (t->state == TASK_PENDING && sched_task_fits(s, t, host))
			return t;
	}
	return NULL;
}

struct task *sched_pending_map(struct sched *s, struct job *j, unsigned host,
			       enum sched_locality max_level,
			       enum sched_locality *level)
{
	unsigned rack = topo_host_rack(s->t, host);
	struct map_index *mi;
	struct task *t;

	if (!sched_job_has_pending(j, TASK_MAP))
		return NULL;
	mi = map_index_of(s, j);
	t = scan(s, j, mi->host_maps, &mi->host_cur[host], mi->host_off[host + 1], host);
	if (t) {
		*level = LOC_NODE;
		return t;
	}
	if (max_level < LOC_RACK)
		return NULL;
	t = scan(s, j, mi->rack_maps, &mi->rack_cur[rack], mi->rack_off[rack + 1], host);
	if (t) {
		*level = LOC_RACK;
		return t;
	}
	if (max_level < LOC_ANY || mi->pinned)
		return NULL; /* a pinned map runs on its rack or nowhere */
	while (mi->any_cur < j->wl->maps && j->maps[mi->any_cur].state != TASK_PENDING)
		mi->any_cur++;
	if (mi->any_cur < j->wl->maps) {
		*level = LOC_ANY;
		return &j->maps[mi->any_cur];
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
	struct map_index *mi;
	uint32_t k;

	if (!sched_job_has_pending(j, TASK_REDUCE) || !sched_reduces_may_start(s, j))
		return NULL;
	/* as the maps' cursors: a reduce never becomes pending again */
	mi = map_index_of(s, j);
	while (mi->red_cur < j->wl->reduces && j->reduces[mi->red_cur].state != TASK_PENDING)
		mi->red_cur++;
	for (k = mi->red_cur; k < j->wl->reduces; k++)
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

static struct sched *sort_sched;
static const unsigned *sort_user_running;

/* Fair order: user's running tasks, then the job's, then arrival, then
 * index (a total order: runs are deterministic). */
static int cmp_fair(const void *a, const void *b)
{
	const struct sched *s = sort_sched;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct job *jx = &s->c->jobs[x], *jy = &s->c->jobs[y];
	unsigned ux = sort_user_running[s->c->wl->user_of[x]];
	unsigned uy = sort_user_running[s->c->wl->user_of[y]];
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

size_t sched_fair_order(struct sched *s, uint32_t *order, unsigned *user_running)
{
	size_t n = 0, i;

	memset(user_running, 0, s->c->wl->n_users * sizeof(unsigned));
	for (i = 0; i < s->c->n_jobs; i++) {
		const struct job *j = &s->c->jobs[i];

		user_running[s->c->wl->user_of[i]] += j->maps_running + j->reduces_running;
		if (j->state == JOB_READY &&
		    (sched_job_has_pending(j, TASK_MAP) || sched_job_has_pending(j, TASK_REDUCE)))
			order[n++] = (uint32_t)i;
	}
	sort_sched = s;
	sort_user_running = user_running;
	qsort(order, n, sizeof(uint32_t), cmp_fair);
	sort_sched = NULL;
	sort_user_running = NULL;
	return n;
}
