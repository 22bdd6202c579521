#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "util.h"

static void cluster_index_children(struct cluster *c)
{
	uint32_t *fill, k;
	size_t i, n = c->n_jobs;

	c->child_off = xcalloc(n + 2, sizeof(uint32_t));
	for (i = 0; i < n; i++)
		for (k = 0; k < c->jobs[i].wl->n_parents; k++)
			c->child_off[c->jobs[i].wl->parents[k] + 1]++;
	for (i = 0; i < n; i++)
		c->child_off[i + 1] += c->child_off[i];
	c->children = xcalloc(c->child_off[n] + 1, sizeof(uint32_t));
	fill = xcalloc(n + 1, sizeof(uint32_t));
	for (i = 0; i < n; i++)
		for (k = 0; k < c->jobs[i].wl->n_parents; k++) {
			uint32_t p = c->jobs[i].wl->parents[k];

			c->children[c->child_off[p] + fill[p]++] = (uint32_t)i;
		}
	free(fill);
}

struct cluster *cluster_new(const struct topo *t, const struct workload *wl)
{
	struct cluster *c = xcalloc(1, sizeof(*c));
	unsigned h;
	size_t i;

	c->topo = t;
	c->wl = wl;
	c->n_hosts = topo_n_hosts(t);
	c->free_slots = xcalloc(c->n_hosts, sizeof(unsigned));
	c->rack_free = xcalloc(t->racks, sizeof(unsigned));
	for (h = 0; h < c->n_hosts; h++) {
		c->free_slots[h] = t->containers;
		c->rack_free[topo_host_rack(t, h)] += t->containers;
	}
	c->total_free = c->n_hosts * t->containers;
	c->n_jobs = wl ? wl->n_jobs : 0;
	c->jobs = xcalloc(c->n_jobs + 1, sizeof(struct job));
	for (i = 0; i < c->n_jobs; i++) {
		struct job *j = &c->jobs[i];
		const struct wl_job *w = &wl->jobs[i];
		uint32_t k;

		j->wl = w;
		j->idx = (uint32_t)i;
		j->state = JOB_WAITING;
		j->parents_left = w->n_parents;
		j->ready_at = j->end = -1;
		j->maps = xcalloc(w->maps, sizeof(struct task));
		j->reduces = xcalloc(w->reduces + 1, sizeof(struct task));
		j->blocks = xcalloc(w->maps, sizeof(struct block));
		for (k = 0; k < w->maps; k++) {
			j->maps[k] = (struct task){ .job = (uint32_t)i, .idx = k,
				.kind = TASK_MAP, .host = -1, .start = -1, .end = -1 };
			j->blocks[k].job = (uint32_t)i;
			j->blocks[k].idx = k;
			/* input split into maps blocks, the remainder spread */
			j->blocks[k].bytes = w->input / w->maps + (k < w->input % w->maps);
		}
		for (k = 0; k < w->reduces; k++)
			j->reduces[k] = (struct task){ .job = (uint32_t)i, .idx = k,
				.kind = TASK_REDUCE, .host = -1, .start = -1, .end = -1 };
	}
	cluster_index_children(c);
	return c;
}

void cluster_free(struct cluster *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n_jobs; i++) {
		free(c->jobs[i].maps);
		free(c->jobs[i].reduces);
		free(c->jobs[i].blocks);
		map_index_free(c->jobs[i].map_idx);
	}
	free(c->jobs);
	free(c->child_off);
	free(c->children);
	free(c->free_slots);
	free(c->rack_free);
	free(c);
}

int cluster_slot_take(struct cluster *c, unsigned host)
{
	if (host >= c->n_hosts || c->free_slots[host] == 0)
		return -EBUSY;
	c->free_slots[host]--;
	c->rack_free[topo_host_rack(c->topo, host)]--;
	c->total_free--;
	return 0;
}

void cluster_slot_release(struct cluster *c, unsigned host)
{
	c->free_slots[host]++;
	c->rack_free[topo_host_rack(c->topo, host)]++;
	c->total_free++;
}

bool block_on_host(const struct block *b, unsigned host)
{
	uint32_t k;

	for (k = 0; k < b->n_replicas; k++)
		if (b->replica[k] == host)
			return true;
	return false;
}

bool block_on_rack(const struct cluster *c, const struct block *b,
		   unsigned rack)
{
	uint32_t k;

	for (k = 0; k < b->n_replicas; k++)
		if (topo_host_rack(c->topo, b->replica[k]) == rack)
			return true;
	return false;
}

static unsigned random_host_in_rack(const struct topo *t, unsigned rack,
				    struct rng *rng)
{
	return topo_host_id(t, rack, (unsigned)rng_below(rng, t->hosts));
}

void cluster_place_blocks_random(struct cluster *c, struct job *j,
				 struct rng *rng)
{
	const struct topo *t = c->topo;
	unsigned want = t->replicas, n_hosts = c->n_hosts;
	uint32_t k;

	if (want > CLUSTER_MAX_REPLICAS)
		want = CLUSTER_MAX_REPLICAS;
	j->blocks_version++;
	for (k = 0; k < j->wl->maps; k++) {
		struct block *b = &j->blocks[k];
		unsigned first, second, h;

		b->n_replicas = 0;
		first = (unsigned)rng_below(rng, n_hosts);
		b->replica[b->n_replicas++] = first;
		if (want >= 2) {
			if (t->racks > 1) {
				unsigned r0 = topo_host_rack(t, first);
				unsigned r = (unsigned)rng_below(rng, t->racks - 1);

				second = random_host_in_rack(t, r >= r0 ? r + 1 : r, rng);
			} else {
				do
					second = (unsigned)rng_below(rng, n_hosts);
				while (second == first);
			}
			b->replica[b->n_replicas++] = second;
			if (want >= 3) {
				unsigned r2 = topo_host_rack(t, second);

				if (t->hosts > 1) {
					do
						h = random_host_in_rack(t, r2, rng);
					while (h == second);
				} else {
					do
						h = (unsigned)rng_below(rng, n_hosts);
					while (block_on_host(b, h));
				}
				b->replica[b->n_replicas++] = h;
			}
		}
		while (b->n_replicas < want) {
			do
				h = (unsigned)rng_below(rng, n_hosts);
			while (block_on_host(b, h));
			b->replica[b->n_replicas++] = h;
		}
	}
}

void cluster_place_blocks_racks(struct cluster *c, struct job *j,
				const uint32_t *const *sets, unsigned n_racks,
				struct rng *rng)
{
	const struct topo *t = c->topo;
	unsigned want = t->replicas, k;
	uint32_t b;

	if (want > CLUSTER_MAX_REPLICAS)
		want = CLUSTER_MAX_REPLICAS;
	j->blocks_version++;
	for (b = 0; b < j->wl->maps; b++) {
		struct block *blk = &j->blocks[b];

		blk->n_replicas = 0;
		for (k = 0; k < want; k++) {
			unsigned rack = sets[k][b % n_racks];

			blk->replica[blk->n_replicas++] = random_host_in_rack(t, rack, rng);
		}
	}
}

/* ---- state machine ---- */

static void job_maybe_ready(struct job *j, int64_t now)
{
	if (j->state == JOB_WAITING && j->arrived && j->parents_left == 0) {
		j->state = JOB_READY;
		j->ready_at = now;
	}
}

int job_arrive(struct cluster *c, struct job *j, int64_t now)
{
	(void)c;
	if (j->arrived || j->state != JOB_WAITING)
		return -EINVAL;
	j->arrived = true;
	job_maybe_ready(j, now);
	return 0;
}

int job_parent_done(struct cluster *c, struct job *j, int64_t now)
{
	(void)c;
	if (j->state != JOB_WAITING || j->parents_left == 0)
		return -EINVAL;
	j->parents_left--;
	job_maybe_ready(j, now);
	return 0;
}

int task_start(struct cluster *c, struct task *t, unsigned host, int64_t now)
{
	struct job *j = &c->jobs[t->job];

	if (t->state != TASK_PENDING || j->state != JOB_READY)
		return -EINVAL;
	if (cluster_slot_take(c, host))
		return -EBUSY;
	t->state = TASK_RUNNING;
	t->host = (int32_t)host;
	t->start = now;
	if (t->kind == TASK_MAP)
		j->maps_running++;
	else
		j->reduces_running++;
	return 0;
}

static void job_done(struct cluster *c, struct job *j, int64_t now)
{
	uint32_t k;

	j->state = JOB_DONE;
	j->end = now;
	for (k = c->child_off[j->idx]; k < c->child_off[j->idx + 1]; k++)
		job_parent_done(c, &c->jobs[c->children[k]], now);
}

int task_finish(struct cluster *c, struct task *t, int64_t now)
{
	struct job *j = &c->jobs[t->job];

	if (t->state != TASK_RUNNING)
		return -EINVAL;
	t->state = TASK_DONE;
	t->end = now;
	cluster_slot_release(c, (unsigned)t->host);
	if (t->kind == TASK_MAP) {
		j->maps_running--;
		j->maps_done++;
	} else {
		j->reduces_running--;
		j->reduces_done++;
	}
	if (j->maps_done == j->wl->maps && j->reduces_done == j->wl->reduces)
		job_done(c, j, now);
	return 0;
}

int task_fail(struct cluster *c, struct task *t, int64_t now)
{
	struct job *j = &c->jobs[t->job];

	if (t->state != TASK_RUNNING)
		return -EINVAL;
	t->state = TASK_FAILED;
	t->end = now;
	cluster_slot_release(c, (unsigned)t->host);
	if (t->kind == TASK_MAP)
		j->maps_running--;
	else
		j->reduces_running--;
	j->state = JOB_FAILED;
	j->end = now;
	return 0;
}

const char *task_kind_name(enum task_kind k)
{
	return k == TASK_MAP ? "map" : "reduce";
}

const char *job_state_name(enum job_state s)
{
	static const char *const names[] = { "waiting", "ready", "done", "failed" };

	return names[s];
}

int wl_check_topo(const struct workload *wl, const struct topo *t,
		  const char *path, char *errbuf)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < wl->n_jobs; i++) {
		const struct wl_job *j = &wl->jobs[i];
		const uint32_t *lists[2] = { j->map_racks, j->reduce_racks };
		uint32_t lens[2] = { j->maps, j->reduces };
		int l;

		for (l = 0; l < 2; l++)
			for (k = 0; lists[l] && k < lens[l]; k++)
				if (lists[l][k] >= t->racks) {
					if (j->line)
						errbuf_set(errbuf, "%s:%u: job '%s': %s rack %u does not exist in topology '%s' (racks 0 to %u)",
							   path, j->line, j->id, l ? "reduce" : "map",
							   lists[l][k], t->name, t->racks - 1);
					else
						errbuf_set(errbuf, "%s: job '%s': %s rack %u does not exist in topology '%s' (racks 0 to %u)",
							   path, j->id, l ? "reduce" : "map",
							   lists[l][k], t->name, t->racks - 1);
					return -EINVAL;
				}
	}
	return 0;
}

int wl_check_coflow_only(const struct workload *wl, const char *path,
			 char *errbuf)
{
	size_t i;

	for (i = 0; i < wl->n_jobs; i++) {
		const struct wl_job *j = &wl->jobs[i];
		const char *why = NULL;

		if (!j->map_racks || !j->reduce_racks)
			why = "map_racks and reduce_racks (pinned tasks)";
		else if (j->map_time || j->reduce_time)
			why = "map_time=0s and reduce_time=0s (no compute)";
		else if (j->n_parents)
			why = "no parents (no DAG)";
		if (!why)
			continue;
		if (j->line)
			errbuf_set(errbuf, "%s:%u: job '%s': coflow-only mode expects %s, as coflow: traces give",
				   path, j->line, j->id, why);
		else
			errbuf_set(errbuf, "%s: job '%s': coflow-only mode expects %s, as coflow: traces give",
				   path, j->id, why);
		return -EINVAL;
	}
	return 0;
}
