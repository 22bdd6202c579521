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

	j->map_in = xcalloc(w->maps + 1, sizeof(*j->map_in));
	j->red_out = xcalloc(w->reduces + 1, sizeof(*j->red_out));
}

void taskio_free(struct jstate *j)
{
	free(j->map_in);
	free(j->red_out);
	j->map_in = j->red_out = NULL;
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
		ctl_start_compute(c, &jb->maps[t->idx], jb->wl->map_time);
		io->work_start = ctl_now(c);
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
	struct tio *io = &js->map_in[t->idx];
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
		ctl_start_compute(c, t, jb->wl->map_time);
		io->work_start = ctl_now(c);
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
	struct tio *io = f->kind == HYDE_FLOW_INPUT ? &js->map_in[f->reduce] : &js->red_out[f->reduce];

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

	if (!js->map_in)
		return -1;
	io = t->kind == HYDE_MAP ? &js->map_in[t->idx] : &js->red_out[t->idx];
	if (!io->bytes)
		return -1;
	return (double)io->done / (double)io->bytes;
}

int64_t taskio_work_start(const struct ctl *c, const struct hyde_task *t)
{
	const struct jstate *js = &c->js[t->job];

	return js->map_in && t->kind == HYDE_MAP ? js->map_in[t->idx].work_start : -1;
}
