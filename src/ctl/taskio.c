/* A task's HDFS traffic, as Hadoop's tasks make it:
 * - a map whose input has no replica on its host reads it from a replica
 *   holder's data service (the closest: in its rack if one is, else off
 *   rack), one flow per block (a split of parents' output may span
 *   several parts: one flow per part it needs from elsewhere), and works
 *   only once every byte is in;
 * - a reduce, its work done, writes its output part: the first replica
 *   on its own host (no network), the others through HDFS's write
 *   pipeline (writer -> second replica -> third ...), one flow per hop,
 *   all hops at once; it is done when every hop is.
 * Which replica a map reads from, and where output replicas go, are drawn
 * from the run's seed and the task alone, never from the order events
 * came in, so that both backends decide the same. Topologies without an
 * EPS (Sunflow's setup), coflow-only runs and --no-io model the shuffle
 * alone: there, input is local and output has one replica. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "ctl/ctl_int.h"

static bool models_hdfs(const struct ctl *c)
{
	return c->t->has_eps && !c->opts.coflow_only && !c->opts.no_io;
}

/* A stream of draws for one task (salt: what it is for). */
static void task_rng(const struct ctl *c, uint32_t job, uint32_t idx, uint64_t salt,
		     struct rng *rng)
{
	uint64_t k = ((uint64_t)job << 32 | idx) ^ salt * 0x9e3779b97f4a7c15ULL;

	rng_seed2(rng, c->opts.seed ^ splitmix64(&k), 5);
}

/* The replica of b a reader on host h takes: none if h holds one (-1),
 * else one in h's rack if any, else any (HDFS: the closest). */
static int source_of(const struct ctl *c, const struct hyde_block *b, unsigned h,
		     struct rng *rng)
{
	unsigned rack = topo_host_rack(c->t, h), k, n = 0;
	uint32_t near[HYDE_MAX_REPLICAS];

	if (!b->n_replicas || block_on_host(b, h))
		return -1;
	for (k = 0; k < b->n_replicas; k++)
		if (topo_host_rack(c->t, b->replica[k]) == rack)
			near[n++] = b->replica[k];
	if (n)
		return (int)near[rng_below(rng, n)];
	return (int)b->replica[rng_below(rng, b->n_replicas)];
}

void taskio_init(struct ctl *c, struct jstate *j, uint32_t job)
{
	const struct wl_job *w = &c->wl->jobs[job];

	j->map_at = xcalloc(w->maps + 1, sizeof(*j->map_at));
	j->red_out = xcalloc(w->reduces + 1, sizeof(*j->red_out));
}

void taskio_free(struct jstate *j)
{
	free(j->map_at);
	free(j->red_out);
	j->map_at = NULL;
	j->red_out = NULL;
}

void taskio_pool_free(struct ctl *c)
{
	size_t k;

	for (k = 0; k < c->tio_pool.n_block; k++)
		free(c->tio_pool.block[k]);
	free(c->tio_pool.block);
	free(c->tio_pool.free);
	memset(&c->tio_pool, 0, sizeof(c->tio_pool));
}

/* The pool's entry i (from 1). */
static struct tio *pool_find(const struct tio_pool *p, uint32_t i)
{
	return &p->block[(i - 1) / TIO_BLOCK][(i - 1) % TIO_BLOCK];
}

/* Map m's input reads while it runs, else NULL. */
static struct tio *map_io_of(const struct ctl *c, const struct jstate *j, uint32_t m)
{
	return j->map_at[m] ? pool_find(&c->tio_pool, j->map_at[m]) : NULL;
}

/* ... and a zeroed one when it starts. */
static struct tio *map_io_new(struct ctl *c, struct jstate *j, uint32_t m)
{
	struct tio_pool *p = &c->tio_pool;
	struct tio *io;

	if (j->map_at[m]) /* (no map starts twice) */
		return map_io_of(c, j, m);
	if (p->n_free) {
		j->map_at[m] = p->free[--p->n_free];
	} else {
		if (p->n % TIO_BLOCK == 0) {
			xgrow((void **)&p->block, &p->cap_block, p->n_block + 1, sizeof(*p->block));
			p->block[p->n_block++] = xcalloc(TIO_BLOCK, sizeof(struct tio));
		}
		j->map_at[m] = ++p->n;
	}
	io = pool_find(p, j->map_at[m]);
	memset(io, 0, sizeof(*io));
	return io;
}

struct tio *taskio_map_tio(struct ctl *c, struct jstate *j, uint32_t m)
{
	return j->map_at ? map_io_of(c, j, m) : NULL;
}

void taskio_map_done(struct ctl *c, const struct hyde_task *t)
{
	struct jstate *j = &c->js[t->job];
	struct tio_pool *p = &c->tio_pool;

	if (!j->map_at || !j->map_at[t->idx])
		return;
	if (p->n_free == p->cap_free)
		xgrow((void **)&p->free, &p->cap_free, p->n_free + 1, sizeof(*p->free));
	p->free[p->n_free++] = j->map_at[t->idx];
	j->map_at[t->idx] = 0;
}

/* A flow of the task, made, to start with the others (start_pending):
 * every one is listed before any starts, so that one ending at once
 * cannot end the reading or writing early. */
static void io_pend(struct tio *io, struct flow *f)
{
	io->left++;
	io->bytes += f->bytes;
	f->next = NULL;
	if (io->pend_tail)
		io->pend_tail->next = f;
	else
		io->pend_head = f;
	io->pend_tail = f;
}

static void read_from(struct ctl *c, struct hyde_task *t, struct tio *io, int src,
		      uint32_t blk_job, uint32_t blk_idx, bool output, uint64_t off,
		      uint64_t bytes)
{
	struct flow *f;

	if (src < 0 || !bytes)
		return;
	f = ctl_flow_new(c, HYDE_FLOW_INPUT, t->job, t->idx, (unsigned)src, (unsigned)t->host);
	f->bytes = bytes;
	f->n_maps = 1;
	f->nth = (uint32_t)io->left; /* the reads made before it */
	f->blk_job = blk_job;
	f->blk_idx = blk_idx;
	f->blk_output = output;
	f->blk_off = off;
	io_pend(io, f);
}

/* Every read (or write) of the task is in: it works (or is done). */
static void io_over(struct ctl *c, const struct hyde_task *t, struct tio *io)
{
	struct hyde_job *jb = &c->c->jobs[t->job];

	io->active = false;
	if (t->kind == HYDE_MAP) {
		/* (noted first: the record goes back to the pool when the map ends) */
		io->work_start = ctl_now(c);
		ctl_start_compute(c, &jb->maps[t->idx], jb->wl->map_time);
	} else {
		ctl_task_done(c, &jb->reduces[t->idx]);
	}
}

/* Start the flows made; every one of them listed first, so that one
 * ending at once cannot end the reading or writing early. */
static void start_pending(struct ctl *c, const struct hyde_task *t, struct tio *io)
{
	struct flow *f;

	io->active = true;
	while ((f = io->pend_head)) {
		io->pend_head = f->next;
		if (!io->pend_head)
			io->pend_tail = NULL;
		f->next = NULL;
		ctl_flow_start(c, f);
	}
	if (!io->left && io->active)
		io_over(c, t, io);
}

void taskio_map_started(struct ctl *c, struct hyde_task *t)
{
	struct hyde_job *jb = &c->c->jobs[t->job];
	struct jstate *js = &c->js[t->job];
	struct tio *io = map_io_new(c, js, t->idx);
	unsigned h = (unsigned)t->host;
	struct rng rng;

	io->work_start = -1;
	if (models_hdfs(c)) {
		task_rng(c, t->job, t->idx, 1, &rng);
		if (!jb->input_from_parents || !c->c->segs || !c->c->segs[jb->idx]) {
			read_from(c, t, io, source_of(c, &jb->blocks[t->idx], h, &rng), t->job,
				  t->idx, false, 0, jb->blocks[t->idx].bytes);
		} else {
			uint32_t k;

			for (k = c->c->seg_off[jb->idx][t->idx];
			     k < c->c->seg_off[jb->idx][t->idx + 1]; k++) {
				const struct cluster_seg *sg = &c->c->segs[jb->idx][k];
				const struct hyde_block *part = &c->c->jobs[sg->job].outputs[sg->part];

				read_from(c, t, io, source_of(c, part, h, &rng), sg->job, sg->part,
					  true, sg->off, sg->len);
			}
		}
	}
	if (!io->left) {
		io->work_start = ctl_now(c);
		ctl_start_compute(c, t, jb->wl->map_time);
		return;
	}
	start_pending(c, t, io);
}

bool taskio_reduce_computed(struct ctl *c, struct hyde_task *t)
{
	struct hyde_job *jb = &c->c->jobs[t->job];
	struct tio *io = &c->js[t->job].red_out[t->idx];
	struct hyde_block *part = &jb->outputs[t->idx];
	struct flow *prev = NULL, *f;
	struct rng rng;
	uint32_t k;

	task_rng(c, t->job, t->idx, 2, &rng);
	if (!models_hdfs(c) || !part->bytes) {
		part->n_replicas = 1;
		part->replica[0] = (uint32_t)t->host;
		return false;
	}
	cluster_place_output(c->c, jb, t->idx, (unsigned)t->host, &rng);
	if (part->n_replicas < 2)
		return false;
	for (k = 1; k < part->n_replicas; k++) {
		f = ctl_flow_new(c, HYDE_FLOW_OUTPUT, t->job, t->idx, part->replica[k - 1],
				 part->replica[k]);
		f->bytes = part->bytes;
		f->n_maps = 1;
		f->blk_job = t->job;
		f->blk_idx = t->idx;
		f->blk_output = true;
		f->pipe_head = k == 1;
		f->nth = k;
		if (prev)
			prev->pipe_next = f;
		prev = f;
		io_pend(io, f);
	}
	ctl_event(c, "reduce_write %s %u %u", jb->wl->id, t->idx, part->n_replicas);
	start_pending(c, t, io);
	return true;
}

void taskio_flow_done(struct ctl *c, struct flow *f)
{
	struct jstate *js = &c->js[f->job];
	struct tio *io = f->kind == HYDE_FLOW_INPUT ? map_io_of(c, js, f->reduce)
						    : &js->red_out[f->reduce];

	struct hyde_job *jb = &c->c->jobs[f->job];

	io->done += f->bytes;
	if (--io->left || io->pend_head)
		return; /* more to come, or the rest not started yet */
	io_over(c, f->kind == HYDE_FLOW_INPUT ? &jb->maps[f->reduce] : &jb->reduces[f->reduce], io);
}

double taskio_progress(const struct ctl *c, const struct hyde_task *t)
{
	const struct jstate *js = &c->js[t->job];
	const struct tio *io;

	if (!js->map_at)
		return -1;
	io = t->kind == HYDE_MAP ? map_io_of(c, js, t->idx) : &js->red_out[t->idx];
	if (!io || !io->bytes) /* (a map not running: as if it read nothing) */
		return -1;
	return (double)io->done / (double)io->bytes;
}

int64_t taskio_work_start(const struct ctl *c, const struct hyde_task *t)
{
	const struct jstate *js = &c->js[t->job];
	const struct tio *io;

	if (!js->map_at || t->kind != HYDE_MAP)
		return -1;
	io = map_io_of(c, js, t->idx);
	return io ? io->work_start : 0; /* (0, as a zeroed one said, before it starts) */
}
