#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "util.h"

/* Reduce r's output part: the job's output split as the shuffle is. */
static uint64_t cluster_output_bytes(const struct wl_job *w, uint32_t r)
{
	return w->output / w->reduces + (r < w->output % w->reduces);
}

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
	for (i = 0; i < n; i++) {
		c->jobs[i].children = &c->children[c->child_off[i]];
		c->jobs[i].n_children = c->child_off[i + 1] - c->child_off[i];
	}
}

/* The job's entry of the fair order's keys, after a change to it */
static void jkey_set(struct cluster *c, const struct hyde_job *j)
{
	struct cluster_jkey *k = &c->jkey[j->idx];

	k->running = j->maps_running + j->reduces_running;
	k->user_idx = j->user_idx;
	k->ready = j->state == HYDE_JOB_READY;
	k->pending = hyde_job_has_pending(j, HYDE_MAP) || hyde_job_has_pending(j, HYDE_REDUCE);
}

struct cluster *cluster_new_lazy(const struct topo *t, const struct workload *wl)
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
	c->jobs = xcalloc(c->n_jobs + 1, sizeof(struct hyde_job));
	c->placed = xcalloc(c->n_jobs + 1, sizeof(uint32_t *));
	c->user_running = xcalloc((wl ? wl->n_users : 0) + 1, sizeof(unsigned));
	c->ready_log = xcalloc(c->n_jobs + 1, sizeof(uint32_t));
	c->jkey = xcalloc(c->n_jobs + 1, sizeof(*c->jkey));
	for (i = 0; i < c->n_jobs; i++) {
		struct hyde_job *j = &c->jobs[i];
		const struct wl_job *w = &wl->jobs[i];

		j->wl = w;
		j->idx = (uint32_t)i;
		j->id = w->id;
		j->user = w->user;
		j->user_idx = wl->user_of[i];
		j->submit = w->arrival;
		j->input = w->input;
		j->shuffle = w->shuffle;
		j->output = w->output;
		j->n_maps = w->maps;
		j->n_reduces = w->reduces;
		j->map_time = w->map_time;
		j->reduce_time = w->reduce_time;
		j->parents = w->parents;
		j->n_parents = w->n_parents;
		j->map_racks = w->map_racks;
		j->reduce_racks = w->reduce_racks;
		j->input_from_parents = w->input_from_parents;
		j->state = HYDE_JOB_WAITING;
		j->parents_left = w->n_parents;
		j->arrival = j->ready_at = j->end = -1;
		jkey_set(c, j);
	}
	cluster_index_children(c);
	return c;
}

void cluster_job_open(struct cluster *c, struct hyde_job *j)
{
	const struct wl_job *w = j->wl;
	uint32_t k, i = j->idx;

	if (j->maps || j->tasks_closed)
		return;
	j->maps = xcalloc(w->maps + 1, sizeof(struct hyde_task));
	c->placed[i] = xcalloc(2 * (size_t)c->topo->racks, sizeof(uint32_t));
	j->reduces = xcalloc(w->reduces + 1, sizeof(struct hyde_task));
	j->blocks = xcalloc(w->maps + 1, sizeof(struct hyde_block));
	j->outputs = xcalloc(w->reduces + 1, sizeof(struct hyde_block));
	for (k = 0; k < w->reduces; k++)
		j->outputs[k] = (struct hyde_block){ .job = i, .idx = k,
			.bytes = cluster_output_bytes(w, k) };
	for (k = 0; k < w->maps; k++) {
		j->maps[k] = (struct hyde_task){ .job = i, .idx = k,
			.kind = HYDE_MAP, .host = -1, .start = -1, .end = -1 };
		j->blocks[k].job = i;
		j->blocks[k].idx = k;
		/* input split into maps blocks, the remainder spread
		 * (or the workload's block_bytes) */
		j->blocks[k].bytes = wl_block_bytes(w, k);
	}
	for (k = 0; k < w->reduces; k++)
		j->reduces[k] = (struct hyde_task){ .job = i, .idx = k,
			.kind = HYDE_REDUCE, .host = -1, .start = -1, .end = -1 };
}

void cluster_job_close(struct cluster *c, struct hyde_job *j, bool outputs)
{
	free(j->maps);
	free(j->reduces);
	free(j->blocks);
	free(c->placed[j->idx]);
	c->placed[j->idx] = NULL;
	j->maps = j->reduces = NULL;
	j->blocks = NULL;
	j->tasks_closed = true;
	if (c->segs) {
		free(c->segs[j->idx]);
		free(c->seg_off[j->idx]);
		c->segs[j->idx] = NULL;
		c->seg_off[j->idx] = NULL;
	}
	if (outputs) {
		free(j->outputs);
		j->outputs = NULL;
	}
}

struct cluster *cluster_new(const struct topo *t, const struct workload *wl)
{
	struct cluster *c = cluster_new_lazy(t, wl);
	size_t i;

	for (i = 0; i < c->n_jobs; i++)
		cluster_job_open(c, &c->jobs[i]);
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
		free(c->jobs[i].outputs);
		free(c->placed[i]);
		if (c->segs) {
			free(c->segs[i]);
			free(c->seg_off[i]);
		}
	}
	free(c->jobs);
	free(c->placed);
	free(c->segs);
	free(c->seg_off);
	free(c->child_off);
	free(c->children);
	free(c->free_slots);
	free(c->rack_free);
	free(c->user_running);
	free(c->ready_log);
	free(c->jkey);
	free(c);
}

int cluster_slot_take(struct cluster *c, unsigned host)
{
	if (host < c->n_hosts && c->unlimited_slots)
		return 0;
	if (host >= c->n_hosts || c->free_slots[host] == 0)
		return -EBUSY;
	c->free_slots[host]--;
	c->rack_free[topo_host_rack(c->topo, host)]--;
	c->total_free--;
	return 0;
}

void cluster_slot_release(struct cluster *c, unsigned host)
{
	if (c->unlimited_slots)
		return;
	c->free_slots[host]++;
	c->rack_free[topo_host_rack(c->topo, host)]++;
	c->total_free++;
}

bool block_on_host(const struct hyde_block *b, unsigned host)
{
	uint32_t k;

	for (k = 0; k < b->n_replicas; k++)
		if (b->replica[k] == host)
			return true;
	return false;
}

bool block_on_rack(const struct cluster *c, const struct hyde_block *b,
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

/* The workload's input_racks: replica k of block b on a random host of
 * rack input_racks[(b + k) % n], another host than the block's others
 * while the racks have any. */
static void place_on_racks(struct cluster *c, struct hyde_job *j, unsigned want,
			   struct rng *rng)
{
	const struct topo *t = c->topo;
	const struct wl_job *w = j->wl;
	uint32_t b, n = w->n_input_racks, k;
	unsigned pool = n * t->hosts;

	if (want > pool)
		want = pool; /* no more replicas than hosts to hold them */
	for (b = 0; b < w->maps; b++) {
		struct hyde_block *blk = &j->blocks[b];

		blk->n_replicas = 0;
		for (k = 0; k < want; k++) {
			unsigned h, tries = 0;

			do
				h = random_host_in_rack(t, w->input_racks[(b + k + tries / t->hosts) % n],
							rng);
			while (block_on_host(blk, h) && ++tries < 64 * pool);
			blk->replica[blk->n_replicas++] = h;
		}
	}
}

void cluster_place_blocks_random(struct cluster *c, struct hyde_job *j,
				 struct rng *rng)
{
	const struct topo *t = c->topo;
	unsigned want = t->replicas, n_hosts = c->n_hosts;
	uint32_t k;

	if (want > HYDE_MAX_REPLICAS)
		want = HYDE_MAX_REPLICAS;
	j->blocks_version++;
	if (j->wl->input_hosts) { /* each block's one holder, as given */
		for (k = 0; k < j->wl->maps; k++) {
			const struct wl_host *ih = &j->wl->input_hosts[k % j->wl->n_input_hosts];

			j->blocks[k].n_replicas = 1;
			j->blocks[k].replica[0] = topo_host_id(t, ih->rack, ih->host);
		}
		return;
	}
	if (j->wl->input_racks) {
		place_on_racks(c, j, want, rng);
		return;
	}
	for (k = 0; k < j->wl->maps; k++) {
		struct hyde_block *b = &j->blocks[k];
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

void cluster_place_blocks_racks(struct cluster *c, struct hyde_job *j,
				const uint32_t *const *sets, unsigned n_racks,
				struct rng *rng)
{
	const struct topo *t = c->topo;
	unsigned want = t->replicas, k;
	uint32_t b;

	if (want > HYDE_MAX_REPLICAS)
		want = HYDE_MAX_REPLICAS;
	j->blocks_version++;
	for (b = 0; b < j->wl->maps; b++) {
		struct hyde_block *blk = &j->blocks[b];

		blk->n_replicas = 0;
		for (k = 0; k < want; k++) {
			unsigned rack = sets[k][b % n_racks];

			blk->replica[blk->n_replicas++] = random_host_in_rack(t, rack, rng);
		}
	}
}

void cluster_place_output(struct cluster *c, struct hyde_job *j, uint32_t r,
			  unsigned writer, struct rng *rng)
{
	const struct topo *t = c->topo;
	struct hyde_block *b = &j->outputs[r];
	unsigned want = t->output_replication, h;

	if (want > HYDE_MAX_REPLICAS)
		want = HYDE_MAX_REPLICAS;
	if (want > c->n_hosts)
		want = c->n_hosts;
	b->n_replicas = 0;
	b->replica[b->n_replicas++] = writer;
	/* HDFS: the second replica off the writer's rack, the third on the
	 * second's rack, further ones anywhere not used yet */
	if (want >= 2) {
		if (t->racks > 1) {
			unsigned r0 = topo_host_rack(t, writer);
			unsigned k = (unsigned)rng_below(rng, t->racks - 1);

			h = random_host_in_rack(t, k >= r0 ? k + 1 : k, rng);
		} else {
			do
				h = (unsigned)rng_below(rng, c->n_hosts);
			while (h == writer);
		}
		b->replica[b->n_replicas++] = h;
	}
	if (want >= 3) {
		unsigned r2 = topo_host_rack(t, b->replica[1]);

		if (t->hosts > 1) {
			do
				h = random_host_in_rack(t, r2, rng);
			while (h == b->replica[1]);
		} else {
			do
				h = (unsigned)rng_below(rng, c->n_hosts);
			while (block_on_host(b, h));
		}
		b->replica[b->n_replicas++] = h;
	}
	while (b->n_replicas < want) {
		do
			h = (unsigned)rng_below(rng, c->n_hosts);
		while (block_on_host(b, h));
		b->replica[b->n_replicas++] = h;
	}
}

/* Hosts of a split by bytes held, most first (ties: lowest first seen). */
struct host_bytes {
	uint32_t host;
	uint64_t bytes;
};

static void add_host_bytes(struct host_bytes *hb, unsigned *n, uint32_t host, uint64_t bytes)
{
	unsigned i;

	for (i = 0; i < *n; i++)
		if (hb[i].host == host) {
			hb[i].bytes += bytes;
			return;
		}
	hb[(*n)++] = (struct host_bytes){ host, bytes };
}

void cluster_locate_split(struct cluster *c, struct hyde_job *j)
{
	const struct workload *wl = c->wl;
	const struct wl_job *w = j->wl;
	uint32_t m, k, p, r, n = 0;
	size_t cap = 0;
	struct cluster_seg *segs = NULL;
	uint32_t *off;
	uint64_t pos = 0, part_end = 0, from;

	if (!w->input_from_parents || !w->maps)
		return;
	if (!c->segs) {
		c->segs = xcalloc(c->n_jobs + 1, sizeof(*c->segs));
		c->seg_off = xcalloc(c->n_jobs + 1, sizeof(*c->seg_off));
	}
	free(c->segs[j->idx]);
	free(c->seg_off[j->idx]);
	off = xcalloc(w->maps + 1, sizeof(uint32_t));
	/* the parents' parts, concatenated in parents= order, then reduce
	 * order, cut into maps equal splits (CombineFileInputFormat over the
	 * part files): a split may span parts */
	p = 0;
	r = 0;
	for (m = 0; m < w->maps; m++) {
		uint64_t len = j->blocks[m].bytes, left = len;
		struct host_bytes hb[64];
		unsigned nh = 0, i, a, b2;

		off[m] = n;
		while (left) {
			const struct hyde_job *par;
			uint64_t take;

			while (pos == part_end && p < w->n_parents) {
				/* the next non-empty part */
				par = &c->jobs[w->parents[p]];
				if (r == par->n_reduces) {
					p++;
					r = 0;
					continue;
				}
				part_end = pos + par->outputs[r].bytes;
				r++;
			}
			if (p == w->n_parents)
				break; /* cannot be: input is the parts' sum */
			par = &c->jobs[w->parents[p]];
			from = pos - (part_end - par->outputs[r - 1].bytes);
			take = part_end - pos < left ? part_end - pos : left;
			xgrow((void **)&segs, &cap, n + 1, sizeof(*segs));
			segs[n++] = (struct cluster_seg){ par->idx, r - 1, from, take };
			for (k = 0; k < par->outputs[r - 1].n_replicas && nh < ARRAY_SIZE(hb); k++)
				add_host_bytes(hb, &nh, par->outputs[r - 1].replica[k], take);
			pos += take;
			left -= take;
		}
		/* its locations: the hosts holding most of it */
		for (a = 1; a < nh; a++) {
			struct host_bytes x = hb[a];

			for (b2 = a; b2 > 0 && hb[b2 - 1].bytes < x.bytes; b2--)
				hb[b2] = hb[b2 - 1];
			hb[b2] = x;
		}
		j->blocks[m].n_replicas = 0;
		for (i = 0; i < nh && i < HYDE_MAX_REPLICAS; i++)
			j->blocks[m].replica[j->blocks[m].n_replicas++] = hb[i].host;
	}
	off[w->maps] = n;
	c->segs[j->idx] = segs;
	c->seg_off[j->idx] = off;
	j->blocks_version++;
	(void)wl;
}

static bool held(const struct cluster *c, const struct hyde_block *b, unsigned where, bool rack)
{
	return rack ? block_on_rack(c, b, where) : block_on_host(b, where);
}

uint64_t cluster_input_bytes_on(const struct cluster *c, const struct hyde_job *j, uint32_t m,
				unsigned where, bool rack)
{
	const struct cluster_seg *sg;
	uint64_t n = 0;
	uint32_t k;

	if (m >= j->n_maps || !j->blocks)
		return 0;
	if (!j->input_from_parents || !c->segs || !c->segs[j->idx])
		return held(c, &j->blocks[m], where, rack) ? j->blocks[m].bytes : 0;
	for (k = c->seg_off[j->idx][m]; k < c->seg_off[j->idx][m + 1]; k++) {
		sg = &c->segs[j->idx][k];
		if (held(c, &c->jobs[sg->job].outputs[sg->part], where, rack))
			n += sg->len;
	}
	return n;
}

/* ---- state machine ---- */

static void job_maybe_ready(struct cluster *c, struct hyde_job *j, int64_t now)
{
	if (j->state == HYDE_JOB_WAITING && j->arrived && j->parents_left == 0) {
		j->state = HYDE_JOB_READY;
		j->ready_at = now;
		c->ready_log[c->n_ready++] = j->idx;
		jkey_set(c, j);
	}
}

int job_arrive(struct cluster *c, struct hyde_job *j, int64_t now)
{
	if (j->arrived || j->state != HYDE_JOB_WAITING)
		return -EINVAL;
	j->arrived = true;
	j->arrival = now;
	job_maybe_ready(c, j, now);
	return 0;
}

int job_parent_done(struct cluster *c, struct hyde_job *j, int64_t now)
{
	if (j->state != HYDE_JOB_WAITING || j->parents_left == 0)
		return -EINVAL;
	j->parents_left--;
	job_maybe_ready(c, j, now);
	return 0;
}

int task_start(struct cluster *c, struct hyde_task *t, unsigned host, int64_t now)
{
	struct hyde_job *j = &c->jobs[t->job];

	if (t->state != HYDE_TASK_PENDING || j->state != HYDE_JOB_READY)
		return -EINVAL;
	if (cluster_slot_take(c, host))
		return -EBUSY;
	t->state = HYDE_TASK_RUNNING;
	t->host = (int32_t)host;
	t->start = now;
	c->placed[t->job][(t->kind == HYDE_MAP ? 0 : c->topo->racks) + topo_host_rack(c->topo, host)]++;
	if (t->kind == HYDE_MAP)
		j->maps_running++;
	else
		j->reduces_running++;
	c->user_running[j->user_idx]++;
	jkey_set(c, j);
	return 0;
}

static void job_done(struct cluster *c, struct hyde_job *j, int64_t now)
{
	uint32_t k;

	j->state = HYDE_JOB_DONE;
	j->end = now;
	c->n_ended++;
	jkey_set(c, j);
	for (k = c->child_off[j->idx]; k < c->child_off[j->idx + 1]; k++)
		job_parent_done(c, &c->jobs[c->children[k]], now);
}

int task_finish(struct cluster *c, struct hyde_task *t, int64_t now)
{
	struct hyde_job *j = &c->jobs[t->job];

	if (t->state != HYDE_TASK_RUNNING)
		return -EINVAL;
	t->state = HYDE_TASK_DONE;
	t->end = now;
	cluster_slot_release(c, (unsigned)t->host);
	if (t->kind == HYDE_MAP) {
		j->maps_running--;
		j->maps_done++;
	} else {
		j->reduces_running--;
		j->reduces_done++;
	}
	if (j->state != HYDE_JOB_FAILED)
		c->user_running[j->user_idx]--;
	jkey_set(c, j);
	if (j->maps_done == j->wl->maps && j->reduces_done == j->wl->reduces)
		job_done(c, j, now);
	return 0;
}

int task_fail(struct cluster *c, struct hyde_task *t, int64_t now)
{
	struct hyde_job *j = &c->jobs[t->job];

	if (t->state != HYDE_TASK_RUNNING)
		return -EINVAL;
	t->state = HYDE_TASK_FAILED;
	t->end = now;
	cluster_slot_release(c, (unsigned)t->host);
	if (t->kind == HYDE_MAP)
		j->maps_running--;
	else
		j->reduces_running--;
	if (j->state != HYDE_JOB_FAILED) { /* the task, and the job's others */
		c->user_running[j->user_idx] -= 1 + j->maps_running + j->reduces_running;
		c->n_ended++;
	}
	j->state = HYDE_JOB_FAILED;
	j->end = now;
	jkey_set(c, j);
	return 0;
}

const char *task_kind_name(enum hyde_task_kind k)
{
	return k == HYDE_MAP ? "map" : "reduce";
}

const char *job_state_name(enum hyde_job_state s)
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
		const uint32_t *lists[3] = { j->map_racks, j->reduce_racks, j->input_racks };
		uint32_t lens[3] = { j->maps, j->reduces, j->n_input_racks };
		static const char *const what[3] = { "map", "reduce", "input" };
		int l;

		for (l = 0; l < 3; l++)
			for (k = 0; lists[l] && k < lens[l]; k++)
				if (lists[l][k] >= t->racks) {
					if (j->line)
						errbuf_set(errbuf, "%s:%u: job '%s': %s rack %u does not exist in topology '%s' (racks 0 to %u)",
							   path, j->line, j->id, what[l],
							   lists[l][k], t->name, t->racks - 1);
					else
						errbuf_set(errbuf, "%s: job '%s': %s rack %u does not exist in topology '%s' (racks 0 to %u)",
							   path, j->id, what[l],
							   lists[l][k], t->name, t->racks - 1);
					return -EINVAL;
				}
		for (k = 0; k < j->n_input_hosts; k++)
			if (j->input_hosts[k].rack >= t->racks || j->input_hosts[k].host >= t->hosts) {
				errbuf_set(errbuf, "%s:%u: job '%s': input host r%uh%u does not exist in topology '%s' (r0h0 to r%uh%u)",
					   path, j->line, j->id, j->input_hosts[k].rack,
					   j->input_hosts[k].host, t->name, t->racks - 1, t->hosts - 1);
				return -EINVAL;
			}
		if (j->remote && t->racks * t->hosts < 2) {
			errbuf_set(errbuf, "%s:%u: job '%s': remote=yes needs a second host to read from",
				   path, j->line, j->id);
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
