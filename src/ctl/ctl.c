/* The controller's core. See ctl.h for what it does; the comments here say
 * why. It owns the event loop (arrivals, heartbeat, progress, stall and
 * interrupt), a run's set-up and tear-down (ctl_new, ctl_free, ctl_run),
 * jobs and tasks (start, done, placement rounds, node heartbeats) and the
 * shuffle's flows (made, queued for copies or circuits, started, done).
 * It may call every other part of the controller (ctl_int.h): rundir.c
 * for the run directory and events.log, ocspairs.c for the OCS pair
 * table, jobbatch.c for the simulator's lazy job batching, nodes.c,
 * taskio.c, netview.c, metrics.c, circuits.c, containers.c, report.c, and
 * the backend and the scheduler through their ops. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/rundir.h"
#include "core/units.h"
#include "ctl/ctl_int.h"
#include "ctl/live.h"
#include "net/netsched.h"

#define CTL_OF_TIMER(t, field) \
	((struct ctl *)((char *)(t) - offsetof(struct ctl, field)))

void ctl_opts_default(struct ctl_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->sched_name = "fair";
	o->csched_name = "sunflow";
	o->backend = &backend_sim;
	o->seed = 1;
	o->parallel_copies = 5; /* mapreduce.reduce.shuffle.parallelcopies */
	o->heartbeat = NSEC_PER_SEC;
}

int64_t ctl_now(struct ctl *c)
{
	return evloop_now(&c->loop);
}

struct evloop *ctl_loop(struct ctl *c)
{
	return &c->loop;
}

const struct topo *ctl_topo(const struct ctl *c)
{
	return c->t;
}

struct cluster *ctl_cluster(struct ctl *c)
{
	return c->c;
}

const char *ctl_outdir(const struct ctl *c)
{
	return c->outdir;
}

const struct ctl_opts *ctl_options(const struct ctl *c)
{
	return &c->opts;
}

const void *ctl_backend_priv(const struct ctl *c)
{
	return c->be.priv;
}

void ctl_fail(struct ctl *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->failed) {
		va_start(ap, fmt);
		vsnprintf(c->failmsg, sizeof(c->failmsg), fmt, ap);
		va_end(ap);
		c->failed = true;
		ctl_event(c, "fail %s", c->failmsg);
	}
	evloop_stop(&c->loop);
}

struct flow *const *ctl_flows(const struct ctl *c, size_t *n)
{
	*n = c->opts.stream_flows ? 0 : c->n_flows;
	return c->flows;
}

void ctl_coflow_times(const struct ctl *c, uint32_t job, int64_t *start,
		      int64_t *end)
{
	*start = c->js[job].cf_start;
	*end = c->js[job].cf_end;
}

int64_t ctl_job_end(const struct ctl *c, uint32_t job)
{
	return c->c->jobs[job].state == HYDE_JOB_DONE ? c->c->jobs[job].end : -1;
}

bool ctl_coflow_done(const struct ctl *c, uint32_t job)
{
	const struct hyde_job *jb = &c->c->jobs[job];
	const struct jstate *j = &c->js[job];
	uint32_t r;

	if (jb->state == HYDE_JOB_DONE)
		return true;
	/* a reduce computes once it has every map's output */
	if (!j->red || j->flows_done < j->flows)
		return false;
	for (r = 0; r < jb->n_reduces; r++)
		if (!j->red[r].computing)
			return false;
	return true;
}

/* ---- view for schedulers (sched_api.c) ---- */

unsigned ctl_host_flows_out(const struct ctl *c, unsigned host)
{
	return host < topo_n_hosts(c->t) ? c->host_out[host] : 0;
}

unsigned ctl_host_flows_in(const struct ctl *c, unsigned host)
{
	return host < topo_n_hosts(c->t) ? c->host_in[host] : 0;
}

const uint32_t *ctl_arrived_jobs(struct ctl *c, size_t *n)
{
	*n = c->n_arrived;
	return c->arrived;
}

uint64_t ctl_map_output_bytes(const struct ctl *c, uint32_t job, uint32_t m)
{
	const struct hyde_job *j;

	if (job >= c->wl->n_jobs || m >= c->wl->jobs[job].maps)
		return 0;
	j = &c->c->jobs[job];
	if (!j->maps) /* not arrived, or done and gone (hyde sim) */
		return j->state == HYDE_JOB_DONE ? wl_map_output_bytes(j->wl, m) : 0;
	return j->maps[m].state == HYDE_TASK_DONE ? wl_map_output_bytes(j->wl, m) : 0;
}

void ctl_job_map_output(const struct ctl *c, uint32_t job, uint64_t *per_rack,
			uint64_t *per_host)
{
	struct jstate *js = &c->js[job];
	const struct hyde_job *j = &c->c->jobs[job];
	size_t H = topo_n_hosts(c->t);
	uint32_t m;

	if (per_rack) {
		if (js->out_rack)
			memcpy(per_rack, js->out_rack, c->t->racks * sizeof(uint64_t));
		else
			memset(per_rack, 0, c->t->racks * sizeof(uint64_t));
	}
	if (!per_host)
		return;
	if (!j->maps) { /* not arrived, or done and gone (hyde sim) */
		memset(per_host, 0, H * sizeof(uint64_t));
		return;
	}
	/* the first question sums the maps done; each map done after it
	 * adds its own (ctl_task_done) */
	if (!js->out_host) {
		js->out_host = xcalloc(H, sizeof(uint64_t));
		for (m = 0; m < j->n_maps; m++)
			if (j->maps[m].state == HYDE_TASK_DONE)
				js->out_host[j->maps[m].host] += wl_map_output_bytes(j->wl, m);
	}
	memcpy(per_host, js->out_host, H * sizeof(uint64_t));
}

int ctl_task_progress(struct ctl *c, const struct hyde_task *t, int64_t *elapsed,
		      double *p)
{
	const struct wl_job *w = &c->wl->jobs[t->job];
	int64_t now = ctl_now(c);
	double done, io;

	if (t->state != HYDE_TASK_RUNNING)
		return -EINVAL;
	*elapsed = now - t->start;
	io = taskio_progress(c, t);
	if (t->kind == HYDE_MAP) {
		/* reading its input (when remote) then working, a half each */
		int64_t ws = taskio_work_start(c, t);
		double work = ws < 0 ? 0
				     : w->map_time > 0 ? (double)(now - ws) / (double)w->map_time : 1;

		done = io < 0 ? work : ws < 0 ? 0.5 * io : 0.5 + 0.5 * work;
	} else {
		/* fetching then working, a half each; writing the output
		 * replicas counts as done */
		const struct rstate *rs = &c->js[t->job].red[t->idx];
		uint64_t want = wl_reduce_bytes(w, t->idx);

		done = 0.5 * (want ? (double)rs->bytes_done / (double)want : 1);
		if (rs->computing)
			done = 0.5 + 0.5 * (w->reduce_time > 0
						    ? (double)(now - rs->compute_start) /
							      (double)w->reduce_time
						    : 1);
		if (io >= 0)
			done = 1;
	}
	*p = done < 0 ? 0 : done > 1 ? 1 : done;
	return 0;
}

/* ---- set-up ---- */

int ctl_new(const struct ctl_opts *o, struct ctl **out, char *errbuf)
{
	struct ctl *c = xcalloc(1, sizeof(*c));
	size_t i;
	int r;

	c->loop.epfd = -1; /* (no loop yet: ctl_free closes nothing) */
	c->opts = *o;
	if ((r = topo_load(o->topo_path, &c->t, errbuf)))
		goto err;
	if ((r = wl_open_seed(o->wl_spec, o->seed, &c->wl, errbuf)))
		goto err;
	if ((r = wl_check_topo(c->wl, c->t, o->wl_spec, errbuf)))
		goto err;
	if (o->coflow_only && (r = wl_check_coflow_only(c->wl, o->wl_spec, errbuf)))
		goto err;
	if ((r = o->sched_ops ? sched_new_ops(o->sched_ops, o->sched_kv, o->n_sched_kv, &c->sched, errbuf)
			      : sched_new(o->sched_name, o->sched_kv, o->n_sched_kv, &c->sched, errbuf)))
		goto err;
	if ((r = evloop_init(&c->loop, o->backend->clock))) {
		errbuf_set(errbuf, "event loop: %s", strerror(-r));
		goto err;
	}
	if ((r = cexec_init(c, o->csched_name, errbuf)))
		goto err;
	c->c = cluster_new_lazy(c->t, c->wl); /* a job's tasks when it comes */
	rng_seed2(&c->rng, o->seed, 1);
	rng_seed2(&c->fetch_rng, o->seed, 6);
	c->js = xcalloc(c->wl->n_jobs, sizeof(*c->js));
	for (i = 0; i < c->wl->n_jobs; i++)
		c->js[i].start = c->js[i].maps_done_at = c->js[i].cf_start =
			c->js[i].cf_end = -1;
	c->host_out = xcalloc(topo_n_hosts(c->t), sizeof(unsigned));
	c->host_in = xcalloc(topo_n_hosts(c->t), sizeof(unsigned));
	c->arrival_order = wl_arrival_order(c->wl);
	c->arrived = xcalloc(c->wl->n_jobs + 1, sizeof(uint32_t));
	/* coflow-only runs place their pinned tasks at once: no heartbeats */
	if (o->coflow_only)
		c->opts.heartbeat = 0;
	nodes_init(c);
	netview_init(c);
	if ((r = cont_init(c, errbuf)))
		goto err;
	/* the backend's state, its options set (the schedulers may ask
	 * what they make of the network) */
	c->be.priv = xcalloc(1, o->backend->priv_size ? o->backend->priv_size : 1);
	if ((r = backend_opts_apply(o->backend, c->be.priv, o->backend_kv, o->n_backend_kv,
				    errbuf)))
		goto err;
	if ((r = sched_bind(c->sched, c, c->c, c->t, o->seed, c->opts.heartbeat, errbuf)))
		goto err;
	if ((r = rundir_setup(c, errbuf)))
		goto err;
	c->be.ops = o->backend;
	c->be.ctl = c;
	c->be.loop = &c->loop;
	/* a failed init is torn down by destroy (what it made half-way),
	 * in ctl_free */
	if ((r = o->backend->init(&c->be, errbuf))) {
		rundir_discard(c); /* nothing half-built */
		goto err;
	}
	*out = c;
	return 0;
err:
	ctl_free(c);
	return r;
}

void ctl_free(struct ctl *c)
{
	size_t i;

	if (!c)
		return;
	if (c->be.ops)
		c->be.ops->destroy(&c->be);
	/* what a run stopped early (--horizon, an interrupt) left queued is
	 * forgotten while it is all still there; a cancel later is a no-op */
	evloop_destroy(&c->loop);
	free(c->be.priv);
	if (!c->opts.stream_flows)
		for (i = 0; i < c->n_flows; i++) {
			free(c->flows[i]->maps);
			free(c->flows[i]);
		}
	free(c->flows);
	for (i = 0; i < c->n_flow_blocks; i++) {
		for (size_t k = 0; k < ctl_block_len(c, i); k++)
			if (!c->flow_blocks[i][k].forgotten)
				free(c->flow_blocks[i][k].maps);
		free(c->flow_blocks[i]);
	}
	free(c->flow_blocks);
	free(c->spare_flows);
	if (c->flows_fp) { /* a run that never got to its report */
		fclose(c->flows_fp);
		unlink(c->flows_out.tmp);
	}
	free(c->ptab_key);
	free(c->ptab_val);
	free(c->rack_of);
	free(c->live_jobs);
	free(c->live_tmp);
	free(c->rel_v);
	free(c->opening_src);
	if (c->js && c->wl)
		for (i = 0; i < c->wl->n_jobs; i++) {
			struct jstate *j = &c->js[i];
			uint32_t r;

			if (j->red)
				for (r = 0; r < c->wl->jobs[i].reduces; r++)
					free(j->red[r].open);
			free(j->open_rack);
			jobbatch_free(c, j);
			taskio_free(j);
			free(j->out_rack);
			free(j->out_host);
			free(j->red);
			free(j->fetching);
			free(j->maps_done_rack);
			free(j->red_bytes_rack);
			for (r = 0; r < j->n_pairs; r++)
				ocspairs_free_pair(&j->pairs[r]);
			free(j->pairs);
			free(j->lv);
		}
	free(c->js);
	taskio_pool_free(c);
	cexec_destroy(c);
	sched_free(c->sched);
	cont_free(c);
	nodes_free(c);
	netview_free(c);
	if (c->c)
		for (i = 0; i < c->c->n_jobs; i++)
			map_index_free(c->c->jobs[i].map_idx);
	cluster_free(c->c);
	free(c->arrival_order);
	free(c->arrived);
	free(c->host_out);
	free(c->host_in);
	if (c->events)
		fclose(c->events);
	free(c->outdir);
	wl_free(c->wl);
	topo_free(c->t);
	free(c);
}

/* ---- scheduling ---- */

static struct jstate *jstate_of(struct ctl *c, uint32_t job)
{
	struct jstate *j = &c->js[job];
	const struct wl_job *w = &c->wl->jobs[job];

	if (!j->red) {
		j->red = xcalloc(w->reduces + 1, sizeof(*j->red));
		j->fetching = xcalloc(w->reduces + 1, sizeof(uint32_t));
		j->maps_done_rack = xcalloc(c->t->racks, sizeof(uint32_t));
		j->red_bytes_rack = xcalloc(c->t->racks, sizeof(uint64_t));
		jobbatch_init(c, j, w);
		taskio_init(c, j, job);
	}
	return j;
}

void ctl_start_compute(struct ctl *c, struct hyde_task *t, int64_t duration)
{
	int r;

	cont_compute(c, t, true);
	r = c->be.ops->task_compute(&c->be, t, duration);

	if (r)
		ctl_fail(c, "job %s %s %u: cannot start its work: %s",
			 c->wl->jobs[t->job].id, task_kind_name(t->kind), t->idx,
			 strerror(-r));
}

/* The reduces of a job that take map outputs, in index order (the order
 * the outputs are offered in): a finished map visits these, not every
 * reduce of the job. */
static uint32_t fetching_pos(const struct jstate *j, uint32_t r)
{
	uint32_t lo = 0, hi = j->n_fetching;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (j->fetching[mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void fetching_add(struct jstate *j, uint32_t r)
{
	uint32_t k = fetching_pos(j, r);

	if (k < j->n_fetching && j->fetching[k] == r)
		return;
	memmove(&j->fetching[k + 1], &j->fetching[k], (j->n_fetching - k) * sizeof(uint32_t));
	j->fetching[k] = r;
	j->n_fetching++;
}

static void fetching_remove(struct jstate *j, uint32_t r)
{
	uint32_t k = fetching_pos(j, r);

	if (k == j->n_fetching || j->fetching[k] != r)
		return;
	memmove(&j->fetching[k], &j->fetching[k + 1], (j->n_fetching - k - 1) * sizeof(uint32_t));
	j->n_fetching--;
}

static void reduce_maybe_compute(struct ctl *c, struct hyde_task *t)
{
	struct hyde_job *job = &c->c->jobs[t->job];
	struct jstate *j = &c->js[t->job];
	struct rstate *rs = &j->red[t->idx];
	/* batched: an open reduce has been offered every finished map */
	uint32_t seen = j->lz || j->rk ? (rs->opened ? job->maps_done : 0) : rs->maps_seen;

	if (rs->computing || !hyde_job_maps_done(job) || seen < job->wl->maps || rs->flows_left)
		return;
	rs->computing = true;
	if (j->lz) {
		unsigned h;

		for (h = 0; h < topo_n_hosts(c->t); h++)
			jobbatch_need(j->lz, h, t->idx, false);
	}
	if (j->rk)
		jobbatch_rack_close(c, t->job, t->idx);
	rs->compute_start = ctl_now(c);
	free(rs->open); /* no more fetches for this reduce */
	rs->open = NULL;
	rs->open_own = NULL;
	if (j->open_rack) /* (each started: empty already) */
		for (size_t k = 0; k < c->t->racks; k++)
			j->open_rack[k * job->wl->reduces + t->idx] = NULL;
	fetching_remove(&c->js[t->job], t->idx);
	ctl_event(c, "reduce_compute %s %u", job->wl->id, t->idx);
	ctl_start_compute(c, t, job->wl->reduce_time);
}

static void flow_activate(struct ctl *c, struct flow *f);
static void fetch_start(struct ctl *c, struct rstate *rs, struct flow *f, bool slot);

/* A copy slot freed (or a flow arrived): start waiting flows. */
static void reduce_pump(struct ctl *c, struct jstate *j, struct rstate *rs)
{
	while (rs->wait_head && rs->active < c->opts.parallel_copies) {
		struct flow *f = rs->wait_head, **pp = &rs->wait_head, *prev = NULL;

		/* --fetch-order random; a circuit's fetches are at the head
		 * (queue_for_copy's front) and keep it */
		if (c->opts.fetch_random && f->path != PATH_OCS && f->next) {
			size_t n = 0, k;

			for (f = rs->wait_head; f; f = f->next)
				n++;
			k = (size_t)rng_below(&c->fetch_rng, n);
			for (f = rs->wait_head; k--; f = f->next) {
				prev = f;
				pp = &f->next;
			}
		}
		*pp = f->next;
		if (rs->wait_tail == f)
			rs->wait_tail = prev;
		f->next = NULL;
		(void)j;
		fetch_start(c, rs, f, true);
	}
}

/* A fetch's place in its reduce's open[] (the fetches that may still
 * batch outputs): its source host, or for a fetch from a rack H + its
 * rack (a reduce on a rack's first host may have both). */
static size_t fetch_slot(const struct ctl *c, const struct flow *f)
{
	return f->from_rack ? topo_n_hosts(c->t) + f->src_rack : f->src_host;
}

/* A fetch starts, in one of its reduce's copies or not: a batched one
 * takes no more of its host's outputs. Whether it is its reduce's open
 * fetch from its source (ctl_open_at) is the flow's own flag: reading
 * the slot was a cache miss at every start (87% of this function's time
 * at paper60 scale 1); now only the open fetch's start writes there.
 * HYDE_SIM_VERIFY reads the slot and checks the flag. */
static void fetch_start(struct ctl *c, struct rstate *rs, struct flow *f, bool slot)
{
	if (c->cx.verify) {
		struct flow **o = ctl_open_at(c, f->job, f->reduce, fetch_slot(c, f), false);

		if (o && (*o == f) != f->in_open)
			fatalx("ctl: flow %u of job %u: its reduce's open fetch from slot %zu is %s, "
			       "its flag says %s", f->id, f->job, fetch_slot(c, f),
			       *o == f ? "it" : "another", f->in_open ? "it is" : "not");
	}
	if (f->in_open) {
		*ctl_open_at(c, f->job, f->reduce, fetch_slot(c, f), false) = NULL;
		f->in_open = false;
	}
	f->slot = slot;
	rs->active += slot;
	flow_activate(c, f);
}

static void flow_activate(struct ctl *c, struct flow *f)
{
	int r;

	f->state = FLOW_ACTIVE;
	f->start = ctl_now(c);
	c->host_out[f->link_host] += !f->no_link;
	c->host_in[f->dst_host]++;
	c->active_paths[f->path]++;
	f->aprev = NULL;
	f->anext = c->active_head;
	if (f->anext)
		f->anext->aprev = f;
	c->active_head = f;
	netview_flow(c, f, 1);
	if (c->replay && f->kind == HYDE_FLOW_SHUFFLE && c->js[f->job].cf_start < 0)
		c->js[f->job].cf_start = f->start;
	/* (a replayed flow: as recorded, no fetch bookkeeping) */
	if (f->kind != HYDE_FLOW_SHUFFLE || c->replay) {
		ctl_event_flow_start(c, f, true);
		if ((r = c->be.ops->flow_start(&c->be, f)))
			ctl_fail(c, "%s flow %" PRIu32 " of job %s: cannot start: %s",
				 flow_kind_name(f->kind), f->id, c->wl->jobs[f->job].id, strerror(-r));
		return;
	}
	if (c->js[f->job].cf_start < 0)
		c->js[f->job].cf_start = f->start;
	if (c->js[f->job].lz)
		jobbatch_settle(c, f);
	else if (f->lz_open)
		jobbatch_rack_settle(c, f);
	if (f->path == PATH_OCS) {
		struct ocs_pair *p = &c->js[f->job].pairs[f->pair];

		if (!c->js[f->job].lz)
			ctl_pair_wait(c, p, f->src_host, -(int64_t)f->bytes);
		xgrow((void **)&p->active, &p->cap_active, p->n_active + 1, sizeof(*p->active));
		f->pslot = (uint32_t)p->n_active;
		p->active[p->n_active++] = f;
		p->active_known = false;
		ocspairs_touch(c, p); /* (a batched fetch settled before may not
				       * change its waiting bytes now) */
	}
	ctl_event_flow_start(c, f, false);
	r = c->be.ops->flow_start(&c->be, f);
	if (r)
		ctl_fail(c, "flow %" PRIu32 " of job %s: cannot start: %s", f->id,
			 c->wl->jobs[f->job].id, strerror(-r));
}

static void queue_for_copy(struct ctl *c, struct flow *f, bool front)
{
	struct rstate *rs = &c->js[f->job].red[f->reduce];

	f->state = FLOW_WAIT_SLOT;
	f->next = NULL;
	if (front) {
		f->next = rs->wait_head;
		rs->wait_head = f;
		if (!rs->wait_tail)
			rs->wait_tail = f;
	} else {
		if (rs->wait_tail)
			rs->wait_tail->next = f;
		else
			rs->wait_head = f;
		rs->wait_tail = f;
	}
	if (!c->opening) /* (else at the opening's end) */
		reduce_pump(c, &c->js[f->job], rs);
}

/* The circuit of (src, dst) is up and owned by the job's coflow: its
 * waiting flows go to their reduces' copies, ahead of EPS flows (the
 * circuit's time is reserved for them). */
void ctl_release_pair(struct ctl *c, uint32_t job, uint32_t src, uint32_t dst)
{
	struct ocs_pair *p;
	/* the list of the last call's (a malloc, reallocs and a free a call
	 * before); a call made from inside this one makes its own */
	struct flow *f, **v;
	size_t n, cap, i;

	if (c->js[job].pairs_gone)
		return; /* done: nothing of it waits (its records are gone) */
	p = ctl_pair(c, job, src, dst);
	v = c->rel_v;
	n = p->n_wait;
	cap = c->cap_rel_v;
	c->rel_v = NULL;
	c->cap_rel_v = 0;
	xgrow((void **)&v, &cap, n + 1, sizeof(*v));
	if (n)
		memcpy(v, p->wait, n * sizeof(*v));
	p->n_wait = 0;
	/* in a random order, as Hadoop's fetchers pick a random host among
	 * those with output for them (ShuffleScheduler): in host order, every
	 * reduce of the rack would fetch from the same first `copies` hosts
	 * and leave the others' links, and the circuit, half idle */
	for (i = n; i > 1; i--) {
		size_t k = (size_t)rng_below(&c->fetch_rng, i);

		f = v[k];
		v[k] = v[i - 1];
		v[i - 1] = f;
	}
	for (i = 0; i < n; i++) {
		if (i + 4 < n) /* (each flow elsewhere in memory) */
			__builtin_prefetch(v[i + 4], 1);
		/* the reservation is sized for the pair's whole demand (Sunflow):
		 * held to the reduces' copies, the fetches could not fill it, and
		 * one stalled when the circuit went away kept its copy from the
		 * rest of the shuffle */
		if (c->opts.ocs_fetch_slots)
			queue_for_copy(c, v[i], true);
		else
			fetch_start(c, &c->js[job].red[v[i]->reduce], v[i], false);
	}
	if (!c->rel_v) {
		c->rel_v = v;
		c->cap_rel_v = cap;
	} else {
		free(v);
	}
}

/* A new flow; from_rack: a fetch of a rack's outputs (-B fetch=rack), its
 * source the rack (src_host its first host, a key). */
static struct flow *flow_init(struct ctl *c, enum hyde_flow_kind kind, uint32_t job,
			      uint32_t task, unsigned src_host, unsigned dst_host, bool from_rack)
{
	struct flow *f;

	if (c->n_spare_flows) { /* one done, reused (see flow_forget) */
		f = c->spare_flows[--c->n_spare_flows];
		/* (those made next: on their way, a few ahead) */
		if (c->n_spare_flows >= 4)
			for (size_t k = 0; k < sizeof(*f); k += 64)
				__builtin_prefetch((const char *)c->spare_flows[c->n_spare_flows - 4] + k, 1);
		memset(f, 0, sizeof(*f));
	} else if (c->opts.stream_flows) {
		if (!c->n_flow_blocks || c->block_fill == CTL_FLOW_BLOCK) {
			xgrow((void **)&c->flow_blocks, &c->cap_flow_blocks, c->n_flow_blocks + 1,
			      sizeof(*c->flow_blocks));
			c->flow_blocks[c->n_flow_blocks++] = xcalloc(CTL_FLOW_BLOCK, sizeof(*f));
			c->block_fill = 0;
		}
		f = &c->flow_blocks[c->n_flow_blocks - 1][c->block_fill++];
	} else {
		f = xcalloc(1, sizeof(*f));
	}
	f->id = (uint32_t)c->n_flows++;
	f->kind = kind;
	f->job = job;
	f->reduce = task;
	f->src_host = src_host;
	f->dst_host = dst_host;
	f->src_rack = topo_host_rack(c->t, src_host);
	f->dst_rack = topo_host_rack(c->t, dst_host);
	f->created = ctl_now(c);
	f->start = f->end = -1;
	f->path = flow_base_path(c->t, src_host, dst_host);
	f->link_host = src_host;
	if (from_rack) {
		/* from the rack: between hosts even where the key is dst */
		f->from_rack = true;
		f->no_link = true; /* until its first output (flow_add_map) */
		f->path = f->src_rack == f->dst_rack ? PATH_RACK : PATH_EPS;
	}
	/* only the shuffle's elephants take circuits (Co-scheduler eq. 3) */
	if (kind == HYDE_FLOW_SHUFFLE && f->path == PATH_EPS && c->cx.cs &&
	    ocspairs_is_elephant(c, job, f->src_rack, f->dst_rack)) {
		f->path = PATH_OCS;
		f->pair = (uint32_t)(ctl_pair(c, job, f->src_rack, f->dst_rack) - c->js[job].pairs);
	}
	if (!c->opts.stream_flows) {
		xgrow((void **)&c->flows, &c->cap_flows, c->n_flows, sizeof(*c->flows));
		c->flows[c->n_flows - 1] = f;
	}
	if (kind == HYDE_FLOW_SHUFFLE)
		c->js[job].flows++;
	return f;
}

void ctl_flow_src_name(const struct ctl *c, const struct flow *f, char *buf, size_t len)
{
	if (f->from_rack)
		snprintf(buf, len, "r%" PRIu32, f->src_rack);
	else
		topo_host_name(c->t, f->src_host, buf, len);
}

void ctl_flow_name(const struct ctl *c, const struct flow *f, char *buf, size_t len)
{
	char src[32];

	ctl_flow_src_name(c, f, src, sizeof(src));
	snprintf(buf, len, "%s/%s/%c%" PRIu32 "/%s%" PRIu32 "@%s", c->wl->jobs[f->job].id,
		 flow_kind_name(f->kind), f->kind == HYDE_FLOW_INPUT ? 'm' : 'r', f->reduce,
		 f->kind == HYDE_FLOW_SHUFFLE ? "m" : "", f->nth, src);
}

void ctl_set_fetch_rack(struct ctl *c)
{
	c->fetch_rack = true;
}

void ctl_set_open_batch(struct ctl *c)
{
	c->open_batch = true;
}

void ctl_set_no_flow_log(struct ctl *c)
{
	c->no_flow_log = true;
}

struct flow *ctl_flow_new(struct ctl *c, enum hyde_flow_kind kind, uint32_t job,
			  uint32_t task, unsigned src_host, unsigned dst_host)
{
	return flow_init(c, kind, job, task, src_host, dst_host, false);
}

void ctl_flow_start(struct ctl *c, struct flow *f)
{
	c->motion++;
	flow_activate(c, f);
}

void ctl_flow_add_map(struct ctl *c, struct flow *f, uint32_t m, uint64_t bytes)
{
	struct jstate *j = &c->js[f->job];

	if (!c->opts.stream_flows) {
		/* a power of two: grow */
		if (!(f->n_maps & (f->n_maps - 1)))
			f->maps = xrealloc(f->maps, (f->n_maps ? 2 * f->n_maps : 1) * sizeof(uint32_t));
		f->maps[f->n_maps] = m;
	}
	f->n_maps++;
	f->bytes += bytes;
	j->bytes += bytes;
	if (f->from_rack) { /* one host's outputs so far: its link */
		uint32_t h = c->c->jobs[f->job].maps[m].host;

		if (f->n_maps == 1) {
			f->link_host = h;
			f->no_link = false;
		} else if (f->link_host != h) {
			f->link_host = f->src_host; /* several: the rack's key */
			f->no_link = true;
		}
	}
	if (f->src_rack != f->dst_rack)
		j->cross_rack_bytes += bytes;
	if (f->path == PATH_OCS) {
		struct ocs_pair *p = &j->pairs[f->pair];

		p->bytes += bytes;
		ctl_pair_wait(c, p, f->src_host, (int64_t)bytes);
		j->ocs_bytes += bytes;
	}
}

/* n outputs of `bytes` in all at once, on one host (or several:
 * UINT32_MAX), to a fetch that holds one already, in a streamed run: what
 * n ctl_flow_add_map would leave (the link rule depends on the hosts, not
 * their order; a pair's waiting bytes only grow here, so its busiest host
 * ends as after n steps). counted: a circuit fetch's pair has them in its
 * waiting bytes already (they were added as the outputs came). */
void ctl_flow_add_bulk(struct ctl *c, struct flow *f, uint32_t n, uint64_t bytes, uint32_t host,
		       bool counted)
{
	struct jstate *j = &c->js[f->job];

	f->n_maps += n;
	f->bytes += bytes;
	j->bytes += bytes;
	if (f->from_rack && f->link_host != host) {
		f->link_host = f->src_host;
		f->no_link = true;
	}
	if (f->src_rack != f->dst_rack)
		j->cross_rack_bytes += bytes;
	if (f->path == PATH_OCS && bytes) {
		struct ocs_pair *p = &j->pairs[f->pair];

		p->bytes += bytes;
		if (!counted)
			ctl_pair_wait(c, p, f->src_host, (int64_t)bytes);
		j->ocs_bytes += bytes;
	}
}

/* A new fetch waits for its circuit (OCS: at the end of its pair's queue)
 * or for a copy slot (EPS and within a rack). */
void ctl_flow_enqueue(struct ctl *c, struct jstate *j, uint32_t job, struct flow *f)
{
	if (f->path == PATH_OCS) {
		struct ocs_pair *p = &j->pairs[f->pair];

		f->state = FLOW_WAIT_CIRCUIT;
		xgrow((void **)&p->wait, &p->cap_wait, p->n_wait + 1, sizeof(*p->wait));
		p->wait[p->n_wait++] = f;
		ocspairs_count(c, p, f, +1);
		if (cexec_may_send(c, f) && c->opening) { /* (released at its end) */
			xgrow((void **)&c->opening_src, &c->cap_opening_src, c->n_opening_src + 1,
			      sizeof(*c->opening_src));
			c->opening_src[c->n_opening_src++] = f->src_rack;
		} else if (cexec_may_send(c, f)) {
			ctl_release_pair(c, job, f->src_rack, f->dst_rack);
		}
	} else {
		queue_for_copy(c, f, false);
	}
}

struct flow **ctl_open_at(struct ctl *c, uint32_t job, uint32_t r, size_t slot, bool make)
{
	struct jstate *j = &c->js[job];
	size_t H = topo_n_hosts(c->t), n = c->wl->jobs[job].reduces;

	if (slot >= H) {
		if (!j->open_rack) {
			if (!make)
				return NULL;
			j->open_rack = xcalloc((size_t)c->t->racks * n, sizeof(*j->open_rack));
		}
		return &j->open_rack[(slot - H) * n + r];
	}
	if (c->fetch_rack) { /* (a host's: only ever the reduce's own) */
		if (c->cx.verify && slot != (size_t)c->c->jobs[job].reduces[r].host)
			fatalx("ctl: job %u reduce %u on host %d: an open fetch from host %zu "
			       "under -B fetch=rack", job, r, c->c->jobs[job].reduces[r].host, slot);
		return &j->red[r].open_own;
	}
	if (!j->red[r].open) {
		if (!make)
			return NULL;
		j->red[r].open = xcalloc(H, sizeof(*j->red[r].open));
	}
	return &j->red[r].open[slot];
}

/* Hand map m's output to reduce r: batch it into a fetch from the same
 * host that has not started yet, or make a new fetch. */
void ctl_offer_map_output(struct ctl *c, uint32_t job, uint32_t m, uint32_t r)
{
	struct hyde_job *jb = &c->c->jobs[job];
	struct jstate *j = &c->js[job];
	struct rstate *rs = &j->red[r];
	unsigned src = (unsigned)jb->maps[m].host, dst = (unsigned)jb->reduces[r].host;
	/* -B fetch=rack: per rack, but the reduce's own host's outputs, as
	 * ever, cross no link */
	bool rack = c->fetch_rack && src != dst;
	size_t slot = rack ? topo_n_hosts(c->t) + topo_host_rack(c->t, src) : src;
	/* wl_partition_bytes, with the reduce's share worked out once */
	uint64_t bytes = rs->part_base + (m < rs->part_rem);
	struct flow **o, *f;

	rs->maps_seen++;
	if (bytes == 0)
		return;
	o = ctl_open_at(c, job, r, slot, true);
	f = *o;
	if (f && (f->state == FLOW_WAIT_SLOT || f->state == FLOW_WAIT_CIRCUIT)) {
		ctl_flow_add_map(c, f, m, bytes);
		return;
	}
	if (rack) /* keyed by the rack's first host */
		src = topo_host_rack(c->t, src) * c->t->hosts;
	if (f) /* (it is not waiting: no longer open) */
		f->in_open = false;
	f = flow_init(c, HYDE_FLOW_SHUFFLE, job, r, src, dst, rack);
	f->nth = m;
	*o = f;
	f->in_open = true;
	rs->flows_left++;
	ctl_flow_add_map(c, f, m, bytes);
	ctl_flow_enqueue(c, j, job, f);
}

/* Reduce r may now receive every finished map's output. */
static void reduce_open(struct ctl *c, uint32_t job, uint32_t r)
{
	struct hyde_job *jb = &c->c->jobs[job];
	struct jstate *j = &c->js[job];
	struct rstate *rs = &j->red[r];
	uint64_t rb = wl_reduce_bytes(jb->wl, r);
	uint32_t m;

	rs->part_base = rb / jb->wl->maps;
	rs->part_rem = (uint32_t)(rb % jb->wl->maps);
	rs->opened = true;
	fetching_add(j, r);
	c->opening = c->open_batch;
	if (j->lz)
		jobbatch_reduce_open(c, job, r);
	else if (j->rk)
		jobbatch_rack_offer_done(c, job, r);
	else
		for (m = 0; m < jb->wl->maps; m++)
			if (jb->maps[m].state == HYDE_TASK_DONE)
				ctl_offer_map_output(c, job, m, r);
	if (c->opening) {
		/* (nothing started in the offers: no reduce opened inside) */
		size_t k;

		c->opening = false;
		for (k = 0; k < c->n_opening_src; k++)
			ctl_release_pair(c, job, c->opening_src[k],
					 topo_host_rack(c->t, (unsigned)jb->reduces[r].host));
		c->n_opening_src = 0;
		reduce_pump(c, j, rs);
	}
	if (j->rk)
		jobbatch_rack_open(c, job, r);
	reduce_maybe_compute(c, &jb->reduces[r]);
}

/* The scheduler's say on when a job's placed reduces may fetch (Hadoop:
 * at once; Co-scheduler §IV-A: once every reduce is placed). Once open,
 * every running reduce takes map outputs, and later ones as they start. */
static void shuffle_maybe_open(struct ctl *c, uint32_t job)
{
	struct hyde_job *jb = &c->c->jobs[job];
	struct jstate *j = &c->js[job];
	struct hyde_sched *s = c->sched;
	uint32_t k;

	if (j->shuffle_open || !jb->reduces_running ||
	    (s->ops->shuffle_may_start && !s->ops->shuffle_may_start(s, jb)))
		return;
	j->shuffle_open = true;
	if (s->ops->shuffle_may_start)
		ctl_event(c, "shuffle_open %s", jb->wl->id);
	for (k = 0; k < jb->n_reduces; k++)
		if (jb->reduces[k].state == HYDE_TASK_RUNNING && !j->red[k].opened)
			reduce_open(c, job, k);
}

static void task_started(struct ctl *c, struct hyde_task *t, unsigned host)
{
	struct hyde_job *jb = &c->c->jobs[t->job];
	struct jstate *j = jstate_of(c, t->job);
	const struct wl_job *w = jb->wl;
	int r;

	if (j->start < 0)
		j->start = ctl_now(c);
	ctl_event(c, "task_start %s %s %u r%uh%u", w->id, task_kind_name(t->kind),
		  t->idx, host / c->t->hosts, host % c->t->hosts);
	r = c->be.ops->task_start(&c->be, t);
	if (r) {
		ctl_fail(c, "job %s %s %u: cannot start on r%uh%u: %s", w->id,
			 task_kind_name(t->kind), t->idx, host / c->t->hosts,
			 host % c->t->hosts, strerror(-r));
		return;
	}
	metrics_task_started(c, t, host, t->kind == HYDE_REDUCE && !j->reduces_placed);
	if (t->kind == HYDE_MAP) {
		taskio_map_started(c, t); /* reads its input, then works */
		return;
	}
	j->reduces_placed++;
	j->red_bytes_rack[topo_host_rack(c->t, host)] += wl_reduce_bytes(w, t->idx);
	if (j->shuffle_open)
		reduce_open(c, t->job, t->idx);
	else
		shuffle_maybe_open(c, t->job);
}

static bool job_pending(const struct hyde_job *j)
{
	return j->state == HYDE_JOB_READY &&
	       (hyde_job_has_pending(j, HYDE_MAP) || hyde_job_has_pending(j, HYDE_REDUCE));
}

/* Is there a task any scheduler could start: a pending task of a ready
 * job? Over the jobs arrived and not done (dropping those done), so that a
 * heartbeat with nothing to start costs those jobs, not a pick (a
 * scheduler's pick may weigh every job of the workload). */
bool ctl_anything_pending(struct ctl *c)
{
	size_t i, k = 0;
	bool any = false;

	/* no job ended since the list was last compacted: nothing to drop,
	 * any ready job with a pending task answers, the last one first */
	if (c->c->n_ended == c->ended_seen) {
		if (c->n_arrived && job_pending(&c->c->jobs[c->pending_hint]))
			return true;
		for (i = 0; i < c->n_arrived; i++)
			if (job_pending(&c->c->jobs[c->arrived[i]])) {
				c->pending_hint = c->arrived[i];
				return true;
			}
		return false;
	}
	c->ended_seen = c->c->n_ended;
	for (i = 0; i < c->n_arrived; i++) {
		const struct hyde_job *j = &c->c->jobs[c->arrived[i]];

		if (j->state == HYDE_JOB_DONE || j->state == HYDE_JOB_FAILED)
			continue;
		c->arrived[k++] = c->arrived[i];
		if (!any && job_pending(j)) {
			c->pending_hint = c->arrived[i];
			any = true;
		}
	}
	c->n_arrived = k;
	return any;
}

/* The scheduler's choice, checked: a task of this run's model, pending,
 * of a READY job, allowed on the host, which has a free container. A
 * plugin that gets this wrong fails the run with a message. */
static int start_task(struct ctl *c, const struct hyde_task *ct, unsigned h)
{
	const char *why = NULL;
	struct hyde_task *t = NULL;

	if (ct && ct->job < c->c->n_jobs) {
		struct hyde_job *jb = &c->c->jobs[ct->job];

		if (!jb->maps)
			t = NULL; /* not arrived, or done */
		else if (ct->kind == HYDE_MAP && ct->idx < jb->n_maps && ct == &jb->maps[ct->idx])
			t = &jb->maps[ct->idx];
		else if (ct->kind == HYDE_REDUCE && ct->idx < jb->n_reduces &&
			 ct == &jb->reduces[ct->idx])
			t = &jb->reduces[ct->idx];
	}
	if (!t)
		why = "a task that is not one of this run's";
	else if (t->state != HYDE_TASK_PENDING)
		why = "a task that is not pending";
	else if (c->c->jobs[t->job].state != HYDE_JOB_READY)
		why = "a task of a job that is not ready";
	else if (!hyde_task_fits(c->sched, t, h))
		why = c->wl->jobs[t->job].remote && t->kind == HYDE_MAP
			      ? "a remote map on a host holding its input"
			      : "a task pinned to another rack";
	else if (!c->c->free_slots[h])
		why = "a host without a free container";
	if (why || task_start(c->c, t, h, ctl_now(c))) {
		if (t)
			ctl_fail(c, "scheduler %s picked %s %u of job %s for r%uh%u: %s",
				 sched_name(c->sched), task_kind_name(t->kind), t->idx,
				 c->wl->jobs[t->job].id, h / c->t->hosts, h % c->t->hosts,
				 why ? why : "it cannot start there");
		else
			ctl_fail(c, "scheduler %s picked %s for r%uh%u", sched_name(c->sched),
				 why, h / c->t->hosts, h % c->t->hosts);
		return -EINVAL;
	}
	c->tasks_started++;
	nodes_slot_changed(c, h);
	task_started(c, t, h);
	return 0;
}

void ctl_task_launched(struct ctl *c, struct hyde_task *t, unsigned host)
{
	c->tasks_started++;
	task_started(c, t, host);
}

/* Host mode (NEAT): the scheduler names a task, then a host for it among
 * those whose heartbeats offered containers, until it has no task or
 * wants to wait. */
static void place_round(struct ctl *c)
{
	struct hyde_sched *s = c->sched;

	while (!c->failed) {
		const struct hyde_task *t = s->ops->next_task(s);
		int h;

		if (!t)
			return;
		h = s->ops->pick_host(s, t);
		if (h < 0)
			return;
		if ((unsigned)h >= topo_n_hosts(c->t) || !s->host->offered[h]) {
			ctl_fail(c, "scheduler %s chose host %d for %s %u of job %s: no container of it was offered",
				 sched_name(s), h, task_kind_name(t->kind), t->idx,
				 t->job < c->c->n_jobs ? c->wl->jobs[t->job].id : "?");
			return;
		}
		if (start_task(c, t, (unsigned)h))
			return;
		s->host->offered[h]--;
	}
}

/* Host h's node manager heartbeats: its free containers are offered, at
 * most `assign` of them to pick_task (all with no heartbeats), or, in host
 * mode, they join the offers the scheduler places tasks on. */
void ctl_node_heartbeat(struct ctl *c, unsigned h)
{
	struct hyde_sched *s = c->sched;
	unsigned n, k;

	if (s->ops->heartbeat)
		s->ops->heartbeat(s, h);
	if (cont_mode(c)) {
		cont_heartbeat(c, h);
		return;
	}
	if (sched_host_mode(s)) {
		s->host->offered[h] = c->c->free_slots[h];
		place_round(c);
		return;
	}
	n = s->host->assign && c->nodes.period ? s->host->assign : UINT32_MAX;
	for (k = 0; k < n && c->c->free_slots[h] && !c->failed; k++) {
		const struct hyde_task *t = s->ops->pick_task(s, h);

		if (!t || start_task(c, t, h))
			return;
	}
}

/* Without heartbeats, in host mode: every host offers its free
 * containers, then the scheduler places tasks once, choosing among all of
 * them (not among the hosts offered so far in the cycle). */
void ctl_offer_all_hosts(struct ctl *c, const uint32_t *hosts, size_t n)
{
	struct hyde_sched *s = c->sched;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s->ops->heartbeat)
			s->ops->heartbeat(s, hosts[i]);
		s->host->offered[hosts[i]] = c->c->free_slots[hosts[i]];
	}
	place_round(c);
}

static void check_all_done(struct ctl *c)
{
	if (c->jobs_done + c->jobs_failed == c->wl->n_jobs)
		evloop_stop(&c->loop);
}

/* Its tasks may run now: a child reading its parents' output learns
 * where that is (its splits and their locations), and the scheduler
 * hears of it. */
static void job_became_ready(struct ctl *c, struct hyde_job *jb)
{
	if (jb->input_from_parents)
		cluster_locate_split(c->c, jb);
	ctl_event(c, "job_ready %s", jb->wl->id);
	if (c->sched->ops->job_ready)
		c->sched->ops->job_ready(c->sched, jb);
	nodes_wake(c);
}

/* hyde sim, streaming its files (stream_flows: it keeps nothing
 * finished): a job done leaves only its figures (and its output parts
 * while a child may read them), so that memory follows the jobs in the
 * cluster. (The emulator keeps them: its task processes may still be
 * heard of; and a program that reads the run afterwards, the tests,
 * does not stream.) */
static void job_forget(struct ctl *c, struct hyde_job *jb)
{
	struct jstate *j = &c->js[jb->idx];
	uint32_t r, k;

	if (c->be.ops != &backend_sim || !c->opts.stream_flows)
		return;
	for (r = 0; j->red && r < jb->n_reduces; r++)
		free(j->red[r].open);
	free(j->open_rack);
	j->open_rack = NULL;
	free(j->red);
	free(j->fetching);
	free(j->maps_done_rack);
	free(j->red_bytes_rack);
	free(j->out_rack);
	free(j->out_host);
	j->red = NULL;
	j->fetching = NULL;
	j->maps_done_rack = NULL;
	j->red_bytes_rack = NULL;
	j->out_rack = NULL;
	j->out_host = NULL;
	map_index_free(jb->map_idx);
	jb->map_idx = NULL;
	cluster_job_close(c->c, jb, jb->n_children == 0);
	/* a parent whose children are all done: its parts too */
	for (k = 0; k < jb->n_parents; k++) {
		struct hyde_job *p = &c->c->jobs[jb->parents[k]];

		if (++c->js[p->idx].children_done == p->n_children) {
			free(p->outputs);
			p->outputs = NULL;
		}
	}
}

static void job_finished(struct ctl *c, struct hyde_job *jb)
{
	struct jstate *j = &c->js[jb->idx];
	uint32_t i;

	c->jobs_done++;
	c->last_end = ctl_now(c);
	jobbatch_free(c, j);
	taskio_free(j);
	ocspairs_job_done(c, jb->idx);
	ctl_event(c, "job_done %s", jb->wl->id);
	if (j->flows && j->flows_done == j->flows && j->cf_end < 0)
		j->cf_end = ctl_now(c);
	cont_job_done(c, jb);
	if (c->sched->ops->job_finished)
		c->sched->ops->job_finished(c->sched, jb);
	/* children may have become ready (cluster.c counted this parent) */
	for (i = 0; i < jb->n_children; i++) {
		struct hyde_job *ch = &c->c->jobs[jb->children[i]];

		if (ch->state == HYDE_JOB_READY && ch->arrived &&
		    !c->js[ch->idx].ready_seen) {
			c->js[ch->idx].ready_seen = true;
			job_became_ready(c, ch);
		}
	}
	job_forget(c, jb);
	check_all_done(c);
}

void ctl_compute_done(struct ctl *c, struct hyde_task *t)
{
	c->motion++;
	if (t->state != HYDE_TASK_RUNNING)
		return;
	cont_compute(c, t, false);
	/* a reduce writes its output (HDFS) before it is done */
	if (t->kind == HYDE_REDUCE && taskio_reduce_computed(c, t))
		return;
	ctl_task_done(c, t);
}

void ctl_task_done(struct ctl *c, struct hyde_task *t)
{
	struct hyde_job *jb = &c->c->jobs[t->job];
	struct jstate *j = &c->js[t->job];
	const struct wl_job *w = jb->wl;
	unsigned host = (unsigned)t->host;
	struct hyde_task done;
	uint32_t k;
	int r;

	if (t->state != HYDE_TASK_RUNNING)
		return;
	if ((r = c->be.ops->task_end(&c->be, t))) {
		ctl_fail(c, "job %s %s %u: %s", w->id, task_kind_name(t->kind), t->idx,
			 strerror(-r));
		return;
	}
	task_finish(c->c, t, ctl_now(c));
	if (t->kind == HYDE_MAP)
		taskio_map_done(c, t);
	nodes_slot_changed(c, host);
	ctl_event(c, "task_done %s %s %u", w->id, task_kind_name(t->kind), t->idx);
	if (t->kind == HYDE_MAP)
		metrics_map_ended(c, t, host);
	if (t->kind == HYDE_MAP) {
		uint64_t out = wl_map_output_bytes(w, t->idx);

		j->maps_done_rack[topo_host_rack(c->t, host)]++;
		if (!j->out_rack)
			j->out_rack = xcalloc(c->t->racks, sizeof(uint64_t));
		j->out_rack[topo_host_rack(c->t, host)] += out;
		if (j->out_host)
			j->out_host[host] += out;
		if (j->lz)
			jobbatch_map_done(c, t->job, t->idx);
		else if (j->rk)
			jobbatch_rack_map_done(c, t->job, t->idx);
		else if (j->shuffle_open)
			for (k = 0; k < j->n_fetching; k++)
				ctl_offer_map_output(c, t->job, t->idx, j->fetching[k]);
	}
	if (c->sched->ops->task_finished)
		c->sched->ops->task_finished(c->sched, t);
	if (t->kind == HYDE_MAP && hyde_job_maps_done(jb)) {
		j->maps_done_at = ctl_now(c);
		if (c->sched->ops->stage_finished)
			c->sched->ops->stage_finished(c->sched, jb, HYDE_MAP);
		for (k = 0; k < w->reduces; k++)
			if (jb->reduces[k].state == HYDE_TASK_RUNNING)
				reduce_maybe_compute(c, &jb->reduces[k]);
	}
	if (t->kind == HYDE_REDUCE && jb->reduces_done == w->reduces &&
	    c->sched->ops->stage_finished)
		c->sched->ops->stage_finished(c->sched, jb, HYDE_REDUCE);
	/* (a copy: in hyde sim, a job done frees its tasks, job_forget) */
	done = *t;
	if (jb->state == HYDE_JOB_DONE)
		job_finished(c, jb);
	/* its container has room again: offered last, once the scheduler
	 * knows what this task's end released (a stage, a job) */
	cont_task_done(c, &done);
}

/* A flow ends, whatever its kind: the totals. */
static void flow_ended(struct ctl *c, struct flow *f)
{
	f->state = FLOW_DONE;
	f->end = ctl_now(c);
	c->host_out[f->link_host] -= !f->no_link;
	c->host_in[f->dst_host]--;
	c->active_paths[f->path]--;
	if (f->aprev)
		f->aprev->anext = f->anext;
	else
		c->active_head = f->anext;
	if (f->anext)
		f->anext->aprev = f->aprev;
	f->aprev = f->anext = NULL;
	netview_flow(c, f, -1);
	c->kind_flows[f->kind]++;
	c->kind_bytes[f->kind] += f->bytes;
	if (f->src_rack != f->dst_rack)
		c->kind_cross_bytes[f->kind] += f->bytes;
	metrics_flow_ended(c, f);
	ctl_event_flow_done(c, f);
	if (f->kind != HYDE_FLOW_SHUFFLE)
		return; /* the path totals are the shuffle's (Co-scheduler Fig. 3) */
	c->bytes_done += f->bytes;
	switch (f->path) {
	case PATH_OCS:
		c->ocs_bytes += f->bytes;
		break;
	case PATH_EPS:
		c->eps_bytes += f->bytes;
		break;
	case PATH_RACK:
		c->rack_bytes += f->bytes;
		break;
	case PATH_HOST:
		c->host_bytes += f->bytes;
		break;
	}
}

/* Free a flow whose line is in flows.csv (stream_flows). It is kept for
 * the next flow made: a run at scale starts and ends millions, and
 * malloc's own free memory (these and the run's arrays, merged and split
 * again) grew into lists it walked at every allocation (a tenth of a
 * run's time). */
static void flow_forget(struct ctl *c, struct flow *f)
{
	report_flow_line(c, f);
	free(f->maps);
	f->forgotten = true;
	xgrow((void **)&c->spare_flows, &c->cap_spare_flows, c->n_spare_flows + 1,
	      sizeof(*c->spare_flows));
	c->spare_flows[c->n_spare_flows++] = f;
}

void ctl_flow_done(struct ctl *c, struct flow *f)
{
	struct jstate *j = &c->js[f->job];
	struct rstate *rs;
	struct hyde_job *jb = &c->c->jobs[f->job];

	if (f->state != FLOW_ACTIVE)
		return;
	flow_ended(c, f);
	if (c->replay) {
		ctl_replay_flow_done(c, f);
		return;
	}
	if (f->kind != HYDE_FLOW_SHUFFLE) {
		taskio_flow_done(c, f);
		if (c->opts.stream_flows)
			flow_forget(c, f);
		return;
	}
	rs = &j->red[f->reduce];
	if (f->slot)
		rs->active--;
	rs->flows_left--;
	rs->bytes_done += f->bytes;
	j->flows_done++;
	j->bytes_done += f->bytes;
	if (f->end > j->cf_end)
		j->cf_end = f->end;
	if (f->path == PATH_OCS) {
		struct ocs_pair *p = &j->pairs[f->pair];
		struct flow *last = p->active[--p->n_active];

		p->active_known = false;

		p->active[f->pslot] = last;
		last->pslot = f->pslot;
		ocspairs_count(c, p, f, -1);
	}
	reduce_pump(c, j, rs);
	reduce_maybe_compute(c, &jb->reduces[f->reduce]);
	if (c->opts.stream_flows)
		flow_forget(c, f);
}

void ctl_circuit_up(struct ctl *c, unsigned src, unsigned dst)
{
	c->motion++;
	ctl_event(c, "circuit_up %u %u", src, dst);
	cexec_circuit_up(c, src, dst);
}

void ctl_circuit_down(struct ctl *c, unsigned src, unsigned dst)
{
	c->motion++;
	ctl_event(c, "circuit_down %u %u", src, dst);
}

/* ---- arrivals, heartbeat, progress ---- */

static void arrival(struct evloop *l, struct evtimer *tm)
{
	struct ctl *c = CTL_OF_TIMER(tm, arrival_timer);
	size_t n = c->wl->n_jobs;

	while (c->next_arrival < n) {
		uint32_t idx = c->arrival_order[c->next_arrival];
		struct hyde_job *jb = &c->c->jobs[idx];

		if (c->t0 + jb->wl->arrival > ctl_now(c)) {
			evloop_at(l, tm, c->t0 + jb->wl->arrival);
			return;
		}
		c->next_arrival++;
		cluster_job_open(c->c, jb);
		jstate_of(c, idx)->arrived = true;
		if (c->opts.coflow_only)
			c->js[idx].cf_start = ctl_now(c);
		if (c->first_arrival < 0)
			c->first_arrival = ctl_now(c);
		/* HDFS's default placement; the scheduler may place the
		 * input itself while it hears of the job (data placement at
		 * upload). A child reading its parents' output has its
		 * input where they wrote it. */
		if (!jb->input_from_parents)
			cluster_place_blocks_random(c->c, jb, &c->rng);
		/* at its own arrival time, however late a real-time loop runs:
		 * a job without parents is ready when it arrives */
		job_arrive(c->c, jb, c->t0 + jb->wl->arrival);
		cont_job_arrived(c, jb);
		c->arrived[c->n_arrived++] = idx;
		ctl_event(c, "job_arrive %s", jb->wl->id);
		if (c->sched->ops->job_arrived) {
			sched_placing(c->sched, (int32_t)idx);
			c->sched->ops->job_arrived(c->sched, jb);
			sched_placing(c->sched, -1);
		}
		if (jb->state == HYDE_JOB_READY) {
			c->js[idx].ready_seen = true;
			job_became_ready(c, jb);
		}
	}
}

static volatile sig_atomic_t interrupted;

void ctl_interrupt(void)
{
	interrupted = 1;
}

static void on_interrupt(struct evloop *l)
{
	struct ctl *c = CTL_OF_TIMER(l, loop);

	if (!c->failed)
		ctl_fail(c, "interrupted at %.3fs with %zu of %zu jobs done",
			 (double)(ctl_now(c) - c->t0) / 1e9, c->jobs_done, c->wl->n_jobs);
}

/* In virtual time, nothing in flight (no arrival to come, no task at
 * work, no flow moving, no circuit coming: only the periodic timers) and
 * no task started for this long is a run that cannot finish. Schedulers
 * may wait on time (delay scheduling: seconds), never this long. */
#define CTL_STALL (100 * NSEC_PER_SEC)

/* In real time (the emulated fabric), a run in which nothing moved for
 * this long (no byte of a flow, no task started or done, no flow started
 * or ended, no circuit changed) cannot finish: TCP's timer is at most 120
 * s, a circuit schedule rotates in seconds. Or 4 x the longest task,
 * which may compute that long without a word. */
#define CTL_STALL_REAL (300 * NSEC_PER_SEC)

void ctl_motion(struct ctl *c)
{
	c->motion++;
}

void ctl_set_stall(struct ctl *c, int64_t ns)
{
	c->stall_real = ns;
}

int64_t ctl_longest_task(const struct ctl *c)
{
	int64_t m = 0;
	size_t i;

	for (i = 0; i < c->wl->n_jobs; i++) {
		const struct wl_job *w = &c->wl->jobs[i];
		int64_t t = w->map_time > w->reduce_time ? w->map_time : w->reduce_time;

		if (t > m)
			m = t;
	}
	return m;
}

static int64_t stall_real_limit(const struct ctl *c)
{
	int64_t t = 4 * ctl_longest_task(c);

	if (c->stall_real)
		return c->stall_real;
	return t > CTL_STALL_REAL ? t : CTL_STALL_REAL;
}

/* What a stalled real-time run had in flight, for its failure. */
static void stall_in_flight(struct ctl *c, char *buf, size_t len)
{
	const struct flow *f;
	size_t n = 0, off = 0;
	char name[128];

	for (f = c->active_head; f; f = f->anext)
		n++;
	off += (size_t)snprintf(buf, len, "%zu flow(s) moving", n);
	n = 0;
	for (f = c->active_head; f && n < 3 && off < len; f = f->anext, n++) {
		ctl_flow_name(c, f, name, sizeof(name));
		off += (size_t)snprintf(buf + off, len - off, "%s %s (%" PRIu64 " of %" PRIu64 " bytes left)",
					n ? "," : ":", name,
					c->be.ops->flow_remaining ? c->be.ops->flow_remaining(&c->be, (struct flow *)f)
								  : f->bytes,
					f->bytes);
	}
}

static void check_stall(struct ctl *c)
{
	struct evloop *l = &c->loop;
	size_t idle = evtimer_armed(&c->progress_timer) + evtimer_armed(&c->nodes.timer) +
		      evtimer_armed(&c->nodes.pass);

	if (l->clock != EVLOOP_VIRTUAL) {
		int64_t lim = stall_real_limit(c);
		uint64_t m = c->motion + c->tasks_started + c->bytes_done;
		char what[512];

		/* waiting for the next arrival, every job so far done, is
		 * no stall */
		if (m != c->stall_motion || c->next_arrival <= c->jobs_done + c->jobs_failed) {
			c->stall_motion = m;
			c->stall_since = ctl_now(c);
			return;
		}
		if (ctl_now(c) - c->stall_since < lim)
			return;
		stall_in_flight(c, what, sizeof(what));
		ctl_fail(c, "stalled at %.3fs: %zu of %zu jobs not done and nothing moved for %.0fs (no byte of a flow, no task or flow started or done, no circuit changed); %s",
			 (double)(ctl_now(c) - c->t0) / 1e9, c->wl->n_jobs - c->jobs_done,
			 c->wl->n_jobs, (double)lim / 1e9, what);
		return;
	}
	if (l->clock != EVLOOP_VIRTUAL || evq_len(&l->q) != idle ||
	    c->tasks_started != c->stall_tasks) {
		c->stall_tasks = c->tasks_started;
		c->stall_since = ctl_now(c);
		return;
	}
	if (ctl_now(c) - c->stall_since >= (c->stall_limit > CTL_STALL ? c->stall_limit : CTL_STALL))
		ctl_fail(c, "stalled at %.3fs: %zu of %zu jobs not done, nothing in flight and no task placed for %.0fs (a scheduler that never places them?)",
			 (double)(ctl_now(c) - c->t0) / 1e9, c->wl->n_jobs - c->jobs_done,
			 c->wl->n_jobs,
			 (double)(c->stall_limit > CTL_STALL ? c->stall_limit : CTL_STALL) / 1e9);
}

/* The cluster-wide period: the scheduler's tick, shuffles waiting for
 * the scheduler's word, and the check for a stalled run. */
static void heartbeat(struct evloop *l, struct evtimer *tm)
{
	struct ctl *c = CTL_OF_TIMER(tm, heartbeat_timer);
	size_t i;

	if (interrupted) {
		ctl_fail(c, "interrupted at %.3fs with %zu of %zu jobs done",
			 (double)(ctl_now(c) - c->t0) / 1e9, c->jobs_done, c->wl->n_jobs);
		return;
	}
	netview_tick(c);
	cont_tick(c);
	if (c->sched->ops->tick)
		c->sched->ops->tick(c->sched);
	for (i = 0; i < c->n_arrived && !c->failed; i++)
		if (!c->js[c->arrived[i]].shuffle_open)
			shuffle_maybe_open(c, c->arrived[i]);
	if (!c->nodes.period)
		nodes_wake(c); /* without heartbeats, a tick offers again */
	if (c->failed || c->jobs_done + c->jobs_failed >= c->wl->n_jobs)
		return;
	check_stall(c);
	/* from the tick's own time, not the clock's (evloop_event_time): a
	 * real-time loop is a few ms late at each tick, and from the clock the
	 * ticks drifted (rack8 x fb-small, cobra: 140 ms late at 68 s, where
	 * Af ran and asked for containers, so the next host's heartbeat with
	 * room was another host than the simulator's) */
	if (!c->failed)
		evloop_at(l, tm, evloop_event_time(l) + (c->nodes.period ? c->nodes.period : NSEC_PER_SEC));
}

/* The live view (live.h): the backend's status about every second, and
 * on stderr when asked, refreshed in place on a terminal, else a plain
 * line every progress_every. */
static void progress_line(struct ctl *c, bool final)
{
	char line[320], extra[128] = "";
	int64_t wall = now_ns() - c->wall_start;
	int64_t every = c->opts.progress_every > 0 ? c->opts.progress_every : 10 * NSEC_PER_SEC;
	struct live_status s;
	bool tty;

	if (!c->opts.progress && !c->be.ops->live)
		return;
	c->live_at = wall;
	ctl_live(c, final, &s);
	if (c->be.ops->live)
		c->be.ops->live(&c->be, &s);
	if (!c->opts.progress)
		return;
	tty = isatty(STDERR_FILENO);
	if (!tty && !final && c->progress_at && wall - c->progress_at < every)
		return;
	c->progress_at = wall;
	live_format(&s, line, sizeof(line));
	if (c->be.ops->progress)
		c->be.ops->progress(&c->be, extra, sizeof(extra));
	if (tty)
		fprintf(stderr, "\r%s%s%s\033[K%s", line, extra[0] ? "  " : "", extra,
			final ? "\n" : "");
	else
		fprintf(stderr, "%s%s%s\n", line, extra[0] ? "  " : "", extra);
	fflush(stderr);
}

/* In virtual time the timer comes often (every 100ms simulated) and the
 * status is only taken a few times a wall-clock second. */
static void progress_tick(struct evloop *l, struct evtimer *tm)
{
	struct ctl *c = CTL_OF_TIMER(tm, progress_timer);
	bool virt = l->clock == EVLOOP_VIRTUAL;

	if (!virt || now_ns() - c->wall_start - c->live_at >= NSEC_PER_SEC / 4)
		progress_line(c, false);
	if (c->jobs_done + c->jobs_failed < c->wl->n_jobs)
		evloop_at(l, tm, ctl_now(c) + (virt ? NSEC_PER_SEC / 10 : NSEC_PER_SEC));
}

/* The backend options as given (-B and its aliases; the rest are the
 * defaults --help lists): the model a simulated run is, the fabric's
 * settings of an emulated one. */
void ctl_event_backend_options(struct ctl *c)
{
	int k;

	if (!c->events)
		return;
	fprintf(c->events, "%" PRId64 " backend_options", ctl_now(c));
	for (k = 0; k < c->opts.n_backend_kv; k++)
		fprintf(c->events, " %s", c->opts.backend_kv[k]);
	fputc('\n', c->events);
	if (c->be.ops && c->be.ops->derived) {
		char buf[256] = "";

		c->be.ops->derived(&c->be, buf, sizeof(buf));
		if (*buf)
			fprintf(c->events, "%" PRId64 " backend_derived %s\n", ctl_now(c), buf);
	}
}

/* A value of run_options: bytes that would split the line or be read as
 * an escape (white space, control bytes, '%') as %XX, so every field is
 * KEY=VALUE without spaces. */
static void event_value(FILE *fp, const char *v)
{
	for (; *v; v++)
		if ((unsigned char)*v <= ' ' || *v == '%' || *v == 0x7f)
			fprintf(fp, "%%%02X", (unsigned char)*v);
		else
			fputc(*v, fp);
}

/* The "run_options" line of events.log: every option of the controller
 * that makes a run what it is, as it ran (defaults included), beside the
 * scheduler's and the backend's own (sched_options, backend_options). A
 * run directory then says how it was made, and hyde fidelity can say
 * where two runs it joins were made otherwise (man hyde-sim, FILES). */
void ctl_event_run_options(struct ctl *c)
{
	const struct ctl_opts *o = &c->opts;
	const char *net = o->net;
	char b[32];
	int v;

	if (!c->events)
		return;
	/* the flow policy as the schedulers are told it: --net, else what
	 * the backend's options set (the simulator's -B rates) */
	if (!net && c->be.ops->net_policy && (v = c->be.ops->net_policy(c->be.priv)) >= 0)
		net = netsched_net_name((enum hyde_net_policy)v);
	fprintf(c->events, "%" PRId64 " run_options topology=", ctl_now(c));
	event_value(c->events, o->topo_path ? o->topo_path : c->t->name);
	fprintf(c->events, " workload=");
	event_value(c->events, o->wl_spec ? o->wl_spec : "-");
	fprintf(c->events, " seed=%" PRIu64 " copies=%u heartbeat=%s", o->seed,
		o->parallel_copies, o->heartbeat ? unit_fmt_time(o->heartbeat, b, sizeof(b)) : "0");
	fprintf(c->events, " net=%s coflow=%s io=%s ocs_fetch=%s fetch_order=%s coflow_only=%s",
		net ? net : "fair", o->coflow ? o->coflow : "none",
		o->no_io ? "none" : "hdfs", o->ocs_fetch_slots ? "copies" : "circuit",
		o->fetch_random ? "random" : "fifo", o->coflow_only ? "yes" : "no");
	fprintf(c->events, " horizon=%s\n", o->horizon > 0 ? unit_fmt_time(o->horizon, b, sizeof(b)) : "0");
}

int ctl_run(struct ctl *c, char *errbuf)
{
	int r;

	c->t0 = ctl_now(c);
	c->first_arrival = -1;
	c->wall_start = now_ns();
	evtimer_init(&c->arrival_timer, arrival);
	evtimer_init(&c->heartbeat_timer, heartbeat);
	evtimer_init(&c->progress_timer, progress_tick);
	evloop_at(&c->loop, &c->arrival_timer, c->t0);
	evloop_at(&c->loop, &c->heartbeat_timer,
		  c->t0 + (c->opts.heartbeat ? c->opts.heartbeat : NSEC_PER_SEC));
	nodes_start(c);
	netview_start(c);
	c->stall_since = c->t0;
	if (c->opts.progress || c->be.ops->live)
		evloop_at(&c->loop, &c->progress_timer, c->t0 + NSEC_PER_SEC / 10);
	if (c->be.ops == &backend_sim && report_flows_begin(c, errbuf))
		return -1;
	ctl_event(c, "run_start %s %s %s", c->be.ops->name, c->sched->ops->name,
		  c->cx.cs ? c->cx.cs->name : "none");
	/* the scheduler options as given (the rest are the defaults that
	 * hyde sim --help lists), so a run directory says how it was made */
	if (c->events) {
		int k;

		fprintf(c->events, "%" PRId64 " sched_options", ctl_now(c));
		for (k = 0; k < c->opts.n_sched_kv; k++)
			fprintf(c->events, " %s", c->opts.sched_kv[k]);
		fputc('\n', c->events);
		ctl_event_backend_options(c);
		ctl_event_run_options(c);
	}
	c->loop.flag = &interrupted;
	c->loop.on_flag = on_interrupt;
	if (c->opts.horizon > 0)
		c->loop.until = c->t0 + c->opts.horizon;
	r = evloop_run(&c->loop);
	if (r && !c->failed)
		ctl_fail(c, "event loop: %s", strerror(-r));
	/* stopped at the horizon: a run cut there, not a failed one (what
	 * is not done is reported as not done) */
	c->at_horizon = c->loop.reached && !c->failed;
	/* at its own instant, however late a real-time loop saw it: the
	 * analyzer counts no flow as ended after it */
	if (c->at_horizon && c->events)
		fprintf(c->events, "%" PRId64 " horizon %.9f %zu of %zu jobs done\n",
			c->t0 + c->opts.horizon, (double)c->opts.horizon / 1e9, c->jobs_done,
			c->wl->n_jobs);
	cont_run_end(c);
	jobbatch_rack_flush(c);
	if (!c->failed && !c->at_horizon && c->jobs_done < c->wl->n_jobs)
		ctl_fail(c, "nothing left to do but %zu of %zu jobs are not done (a scheduler that never places them?)",
			 c->wl->n_jobs - c->jobs_done, c->wl->n_jobs);
	progress_line(c, true);
	ctl_event(c, "run_end %s", c->failed ? "failed" : c->at_horizon ? "horizon" : "ok");
	if (c->events)
		fflush(c->events);
	if (c->outdir) {
		if (report_write_app(c, errbuf) || cont_report(c, errbuf) ||
		    (c->be.ops == &backend_sim && report_write_analysis(c, errbuf)))
			return -1;
	}
	if (c->failed) {
		errbuf_set(errbuf, "%s", c->failmsg);
		return -1;
	}
	return 0;
}

void ctl_totals(const struct ctl *c, struct ctl_totals *t)
{
	double jct = 0, cct = 0;
	size_t i, ncf = 0;

	memset(t, 0, sizeof(*t));
	t->jobs = c->wl->n_jobs;
	t->jobs_done = c->jobs_done;
	t->jobs_failed = c->jobs_failed;
	t->flows = c->n_flows;
	t->bytes_done = c->bytes_done;
	t->ocs_bytes = c->ocs_bytes;
	t->eps_bytes = c->eps_bytes;
	t->rack_bytes = c->rack_bytes;
	t->host_bytes = c->host_bytes;
	t->first_arrival = c->first_arrival;
	t->last_end = c->last_end;
	t->makespan = c->last_end - c->first_arrival;
	t->reconfigurations = c->cx.reconfigs;
	t->events = c->loop.events;
	t->horizon = c->opts.horizon;
	t->at_horizon = c->at_horizon;
	memcpy(t->kind_flows, c->kind_flows, sizeof(t->kind_flows));
	memcpy(t->kind_bytes, c->kind_bytes, sizeof(t->kind_bytes));
	memcpy(t->kind_cross, c->kind_cross_bytes, sizeof(t->kind_cross));
	for (i = 0; i < c->wl->n_jobs; i++) {
		const struct hyde_job *jb = &c->c->jobs[i];
		const struct jstate *j = &c->js[i];

		if (jb->state == HYDE_JOB_DONE)
			jct += (double)(jb->end - (c->t0 + jb->wl->arrival));
		t->flows_done += j->flows_done;
		if (j->flows && j->cf_start >= 0 && j->cf_end >= 0 && ctl_coflow_done(c, (uint32_t)i)) {
			cct += (double)(j->cf_end - j->cf_start);
			ncf++;
		}
	}
	/* of the flows done, as ocs_bytes and eps_bytes (a job's own count
	 * takes a flow's bytes when it is made: the same at a run's end, not
	 * in a run stopped early) */
	t->cross_rack_bytes = c->ocs_bytes + c->eps_bytes;
	t->avg_jct = c->jobs_done ? jct / (double)c->jobs_done : 0;
	t->avg_cct = ncf ? cct / (double)ncf : 0;
}
