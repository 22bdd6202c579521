/* hyde sim --replay RUN: the fluid model's prediction for exactly the flows
 * of a finished run (an emulated one, usually), its decisions held equal.
 *
 * What is held equal, from RUN's files:
 * - the flows: every line of RUN/flows.csv, by its name (the job, kind and
 *   task, the map or read or hop, its source host), its source and
 *   destination hosts (the placements), its path (eps, ocs, rack, host)
 *   and its bytes;
 * - when each flow starts: its start_ns in RUN/flows.csv (in emulation,
 *   its first SYN: when it entered the network), or, for a flow the
 *   captures did not time, the controller's flow_start in RUN/events.log;
 *   both from RUN's run_start;
 * - the circuits: each circuit i -> j carries data from its circuit_up to
 *   its circuit_down in RUN/events.log (the controller's view of the
 *   crossbar): the simulator is asked for it delta before its circuit_up,
 *   so that it comes up then.
 * Nothing else decides: no scheduler, no circuit scheduler, no fetch slots,
 * no tasks. The flows then move as the simulator's rate model says (--net,
 * -B rates=...). An OCS flow with bytes left when its circuit goes down
 * for the last time in RUN never ends (stranded: the model's prediction
 * for that plan; its end is -1 and the replay says how many). The run
 * directory gets flows.csv and coflows.csv
 * (the same names, so `hyde fidelity RUN REPLAY` joins them) and
 * events.log; no jobs.csv: the jobs' times are RUN's decisions. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/csv.h"
#include "core/rundir.h"
#include "core/util.h"
#include "ctl/ctl_int.h"

struct rp_flow {
	int64_t at; /* from the run's start */
	uint64_t id;
	int kind;
	uint32_t job, task, nth;
	unsigned src, dst;
	enum flow_path path;
	uint64_t bytes;
	size_t line;
};

struct rp_circ {
	int64_t at;
	unsigned src;
	int32_t dst; /* up: the destination; down: -1 - its destination */
};

struct replay {
	struct rp_flow *fl;
	size_t n_fl, next_fl;
	struct rp_circ *cv;
	size_t n_cv, next_cv;
	int32_t *out_of;
	struct evtimer timer;
	struct ctl *c;
	size_t left;
};

struct rp_jobid {
	const char *id;
	uint32_t idx;
};

static int cmp_jobid(const void *a, const void *b)
{
	return strcmp(((const struct rp_jobid *)a)->id, ((const struct rp_jobid *)b)->id);
}

static int cmp_flow_at(const void *a, const void *b)
{
	const struct rp_flow *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_circ_at(const void *a, const void *b)
{
	const struct rp_circ *x = a, *y = b;

	return (x->at > y->at) - (x->at < y->at);
}

struct rp_fstart {
	uint64_t id;
	int64_t at;
};

static int cmp_fstart(const void *a, const void *b)
{
	const struct rp_fstart *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* events.log: the run's start, each flow_start's time by flow id, and the
 * circuits' ups and downs. */
struct rp_events {
	int64_t t0;
	struct rp_fstart *fstart; /* by flow id (sorted once read) */
	size_t n_fstart;
	struct rp_circ *cv;
	size_t n_cv, cap_cv;
};

static int read_events(const char *dir, const struct topo *t, struct rp_events *ev,
		       char *errbuf)
{
	char *path = xasprintf("%s/%s", dir, RUNDIR_EVENTS), *buf = NULL;
	size_t cap = 0, line = 0, cap_fs = 0;
	FILE *fp = fopen(path, "r");
	int r = 0;

	memset(ev, 0, sizeof(*ev));
	ev->t0 = -1;
	if (!fp) {
		errbuf_set(errbuf, "%s: %s", path, strerror(errno));
		free(path);
		return -EINVAL;
	}
	while (getline(&buf, &cap, fp) > 0) {
		char name[32];
		long long at;
		unsigned long long id;
		unsigned s, d;
		int n;

		line++;
		if (sscanf(buf, "%lld %31s%n", &at, name, &n) != 2)
			continue; /* (a line cut short by a killed run) */
		if (!strcmp(name, "run_start")) {
			ev->t0 = at;
		} else if (!strcmp(name, "flow_start")) {
			if (sscanf(buf + n, "%llu", &id) != 1 || id > UINT32_MAX) {
				errbuf_set(errbuf, "%s:%zu: flow_start: expected a flow id", path, line);
				r = -EINVAL;
				break;
			}
			xgrow((void **)&ev->fstart, &cap_fs, ev->n_fstart + 1, sizeof(*ev->fstart));
			ev->fstart[ev->n_fstart++] = (struct rp_fstart){ id, at };
		} else if (!strcmp(name, "circuit_up") || !strcmp(name, "circuit_down")) {
			if (sscanf(buf + n, "%u %u", &s, &d) != 2 || s >= t->racks || d >= t->racks) {
				errbuf_set(errbuf, "%s:%zu: %s: expected two racks of 0..%u", path, line,
					   name, t->racks - 1);
				r = -EINVAL;
				break;
			}
			xgrow((void **)&ev->cv, &ev->cap_cv, ev->n_cv + 1, sizeof(*ev->cv));
			ev->cv[ev->n_cv++] = (struct rp_circ){ at, s, name[8] == 'u' ? (int32_t)d : -1 };
			if (name[8] != 'u') /* down: which circuit, in dst's place */
				ev->cv[ev->n_cv - 1].dst = -1 - (int32_t)d;
		}
	}
	if (ev->n_fstart)
		xqsort(ev->fstart, ev->n_fstart, sizeof(*ev->fstart), cmp_fstart);
	if (!r && ev->t0 < 0) {
		errbuf_set(errbuf, "%s: no run_start line: not a run's event log", path);
		r = -EINVAL;
	}
	free(buf);
	fclose(fp);
	free(path);
	return r;
}

static int host_of(struct csv *c, int field, const struct topo *t, unsigned *host,
		   char *errbuf)
{
	struct topo_node n;

	if (topo_node_parse(t, c->f[field], &n) || n.kind != TOPO_NODE_HOST)
		return csv_err(c, field, "a host of the run's topology (r<rack>h<host>)", errbuf);
	*host = topo_host_id(t, n.rack, n.host);
	return 0;
}

/* A flow's name, JOB/KIND/xTASK/[m]NTH@SRC, against its line's columns:
 * its task and nth. */
static int parse_name(struct csv *c, int field, const char *job, int kind, const char *src,
		      uint32_t *task, uint32_t *nth, char *errbuf)
{
	char want[64];
	const char *s = c->f[field], *p;
	char *end;
	unsigned long v;

	snprintf(want, sizeof(want), "%s/%s/", job, flow_kind_name(kind));
	if (strncmp(s, want, strlen(want)))
		goto bad;
	p = s + strlen(want);
	if (*p != (kind == HYDE_FLOW_INPUT ? 'm' : 'r'))
		goto bad;
	v = strtoul(p + 1, &end, 10);
	if (end == p + 1 || *end != '/' || v > UINT32_MAX)
		goto bad;
	*task = (uint32_t)v;
	p = end + 1;
	if (kind == HYDE_FLOW_SHUFFLE && *p++ != 'm')
		goto bad;
	v = strtoul(p, &end, 10);
	if (end == p || *end != '@' || v > UINT32_MAX || strcmp(end + 1, src))
		goto bad;
	*nth = (uint32_t)v;
	return 0;
bad:
	snprintf(want, sizeof(want), "a flow name %s/%s/%cTASK/%sN@%s", job, flow_kind_name(kind),
		 kind == HYDE_FLOW_INPUT ? 'm' : 'r', kind == HYDE_FLOW_SHUFFLE ? "m" : "", src);
	return csv_err(c, field, want, errbuf);
}

static int read_flows(struct replay *rp, const char *dir, const struct rp_events *ev,
		      char *errbuf)
{
	struct ctl *c = rp->c;
	const struct topo *t = c->t;
	size_t nj = c->wl->n_jobs, cap = 0, i;
	struct rp_jobid *ids = xcalloc(nj + 1, sizeof(*ids)), key, *hit;
	struct csv cv;
	int k, r;
	int fc[7];
	static const char *const cols[7] = { "flow", "job", "path", "bytes", "start_ns", "kind", "src" };

	for (i = 0; i < nj; i++)
		ids[i] = (struct rp_jobid){ c->wl->jobs[i].id, (uint32_t)i };
	xqsort(ids, nj, sizeof(*ids), cmp_jobid);
	if ((r = csv_open(&cv, dir, RUNDIR_FLOWS, RUNDIR_FLOWS_HEADER, errbuf))) {
		char e2[HYDE_ERRBUF_SIZE];

		if (!csv_open(&cv, dir, RUNDIR_FLOWS, RUNDIR_FLOWS_HEADER_V1, e2)) {
			errbuf_set(errbuf, "%s/%s: its flows have no names (a run from before hyde named them): a replay needs them",
				   dir, RUNDIR_FLOWS);
			csv_close(&cv);
		}
		free(ids);
		return -EINVAL;
	}
	for (i = 0; i < 7; i++)
		fc[i] = csv_col(&cv, cols[i]);
	while ((k = csv_next(&cv, errbuf)) == 1) {
		struct rp_flow *f;
		int64_t start;
		const char *pn;

		xgrow((void **)&rp->fl, &cap, rp->n_fl + 1, sizeof(*rp->fl));
		f = &rp->fl[rp->n_fl];
		memset(f, 0, sizeof(*f));
		f->line = cv.line;
		if ((r = csv_u64(&cv, fc[0], UINT32_MAX, &f->id, errbuf)) ||
		    (r = csv_u64(&cv, fc[3], UINT64_MAX, &f->bytes, errbuf)) ||
		    (r = csv_ns(&cv, fc[4], &start, errbuf)) ||
		    (r = host_of(&cv, fc[6], t, &f->src, errbuf)) ||
		    (r = host_of(&cv, fc[6] + 1, t, &f->dst, errbuf)))
			goto out;
		key.id = cv.f[fc[1]];
		hit = bsearch(&key, ids, nj, sizeof(*ids), cmp_jobid);
		if (!hit) {
			r = csv_err(&cv, fc[1], "a job of the run's workload", errbuf);
			goto out;
		}
		f->job = hit->idx;
		f->kind = flow_kind_parse(cv.f[fc[5]]);
		if (f->kind < 0) {
			r = csv_err(&cv, fc[5], "input, shuffle or output", errbuf);
			goto out;
		}
		if ((r = parse_name(&cv, fc[6] + 2, key.id, f->kind, cv.f[fc[6]], &f->task, &f->nth,
				    errbuf)))
			goto out;
		if (f->kind == HYDE_FLOW_INPUT ? f->task >= c->wl->jobs[f->job].maps
					       : f->task >= c->wl->jobs[f->job].reduces) {
			r = csv_err(&cv, fc[6] + 2, "a task the job has", errbuf);
			goto out;
		}
		pn = cv.f[fc[2]];
		f->path = flow_base_path(t, f->src, f->dst);
		if (!strcmp(pn, "ocs") && f->path == PATH_EPS && t->has_ocs)
			f->path = PATH_OCS;
		if (strcmp(pn, flow_path_name(f->path))) {
			r = csv_err(&cv, fc[2],
				    f->path == PATH_EPS ? (t->has_ocs ? "eps or ocs between two racks" : "eps between two racks (no OCS)")
				    : f->path == PATH_RACK ? "rack for two hosts of one rack" : "host for one host",
				    errbuf);
			goto out;
		}
		/* when it entered the network; else when the controller started it */
		if (start < 0 && ev->n_fstart) {
			struct rp_fstart want = { f->id, 0 }, *e;

			e = bsearch(&want, ev->fstart, ev->n_fstart, sizeof(want), cmp_fstart);
			if (e)
				start = e->at;
		}
		if (start < 0) {
			r = csv_err(&cv, fc[4], "a start (or a flow_start in " RUNDIR_EVENTS ")", errbuf);
			goto out;
		}
		if (start < ev->t0) {
			r = csv_err(&cv, fc[4], "a time after the run's run_start", errbuf);
			goto out;
		}
		f->at = start - ev->t0;
		rp->n_fl++;
	}
	r = k;
out:
	csv_close(&cv);
	free(ids);
	return r;
}

/* The circuits: i -> j asked for delta before its circuit_up, so that it
 * carries from then, and gone at its circuit_down. */
static void plan_circuits(struct replay *rp, struct rp_events *ev)
{
	const struct topo *t = rp->c->t;
	int64_t *last = xcalloc(t->racks, sizeof(*last));
	size_t i;

	if (ev->n_cv) /* (qsort of none: NULL is not a base) */
		xqsort(ev->cv, ev->n_cv, sizeof(*ev->cv), cmp_circ_at);
	for (i = 0; i < ev->n_cv; i++) {
		struct rp_circ *e = &ev->cv[i];

		e->at -= ev->t0;
		if (e->dst >= 0) {
			e->at -= t->delta;
			if (e->at < last[e->src]) /* never before the port's last change */
				e->at = last[e->src];
			if (e->at < 0)
				e->at = 0;
		}
		last[e->src] = e->at;
	}
	if (ev->n_cv) /* (qsort of none: NULL is not a base) */
		xqsort(ev->cv, ev->n_cv, sizeof(*ev->cv), cmp_circ_at);
	rp->cv = ev->cv;
	rp->n_cv = ev->n_cv;
	ev->cv = NULL;
	free(last);
}

static void rp_arm(struct replay *rp)
{
	int64_t next = INT64_MAX;

	if (rp->next_cv < rp->n_cv)
		next = rp->cv[rp->next_cv].at;
	if (rp->next_fl < rp->n_fl && rp->fl[rp->next_fl].at < next)
		next = rp->fl[rp->next_fl].at;
	if (next != INT64_MAX)
		evloop_at(&rp->c->loop, &rp->timer, rp->c->t0 + next);
}

static void rp_fire(struct evloop *l, struct evtimer *tm)
{
	struct replay *rp = (struct replay *)((char *)tm - offsetof(struct replay, timer));
	struct ctl *c = rp->c;
	int64_t now = ctl_now(c) - c->t0;
	bool changed = false;

	(void)l;
	/* circuits first: a flow released by its circuit starts with it */
	while (rp->next_cv < rp->n_cv && rp->cv[rp->next_cv].at <= now) {
		const struct rp_circ *e = &rp->cv[rp->next_cv++];

		/* a circuit that goes is logged as the controller logs it
		 * (circuit_down when it is asked to go; the backend logs
		 * circuit_up when one carries), so that the replay's events.log
		 * has its windows as the replayed run's has them */
		if (e->dst >= 0) {
			if (rp->out_of[e->src] != e->dst) {
				if (rp->out_of[e->src] >= 0)
					ctl_circuit_down(c, (unsigned)e->src, (unsigned)rp->out_of[e->src]);
				changed = true;
			}
			rp->out_of[e->src] = e->dst;
		} else if (rp->out_of[e->src] == -1 - e->dst) {
			ctl_circuit_down(c, (unsigned)e->src, (unsigned)(-1 - e->dst));
			rp->out_of[e->src] = -1;
			changed = true;
		}
	}
	if (changed) {
		int e = c->be.ops->ocs_set(&c->be, rp->out_of);

		c->cx.reconfigs++;
		if (e) {
			ctl_fail(c, "OCS: cannot set circuits: %s", strerror(-e));
			return;
		}
	}
	while (rp->next_fl < rp->n_fl && rp->fl[rp->next_fl].at <= now) {
		const struct rp_flow *g = &rp->fl[rp->next_fl++];
		struct flow *f = ctl_flow_new(c, (enum hyde_flow_kind)g->kind, g->job, g->task,
					      g->src, g->dst);

		f->id = (uint32_t)g->id; /* the replayed run's */
		f->bytes = g->bytes;
		f->n_maps = 1;
		f->nth = g->nth;
		f->path = g->path;
		if (f->kind == HYDE_FLOW_SHUFFLE) {
			struct jstate *j = &c->js[f->job];

			j->bytes += f->bytes;
			if (f->src_rack != f->dst_rack)
				j->cross_rack_bytes += f->bytes;
			if (f->path == PATH_OCS)
				j->ocs_bytes += f->bytes;
		}
		ctl_flow_start(c, f);
		if (c->failed)
			return;
	}
	rp_arm(rp);
}

void ctl_replay_flow_done(struct ctl *c, struct flow *f)
{
	struct jstate *j = &c->js[f->job];

	if (f->kind == HYDE_FLOW_SHUFFLE) {
		j->flows_done++;
		j->bytes_done += f->bytes;
		if (f->end > j->cf_end)
			j->cf_end = f->end;
	}
	if (f->end > c->last_end)
		c->last_end = f->end;
	c->replay_left--;
}

/* The run's flows and circuits, checked: -EINVAL with file:line: what. */
static int load(struct replay *rp, struct rp_events *ev, const char *dir, char *errbuf)
{
	int r;

	if ((r = read_events(dir, rp->c->t, ev, errbuf)) || (r = read_flows(rp, dir, ev, errbuf)))
		return r;
	if (ev->n_cv && !rp->c->t->has_ocs) {
		errbuf_set(errbuf, "%s/%s: circuits in a run of a topology without OCS", dir,
			   RUNDIR_EVENTS);
		return -EINVAL;
	}
	if (rp->n_fl)
		xqsort(rp->fl, rp->n_fl, sizeof(*rp->fl), cmp_flow_at);
	plan_circuits(rp, ev);
	return 0;
}

int ctl_replay_check(struct ctl *c, char *errbuf)
{
	struct replay rp = { .c = c };
	struct rp_events ev;
	int r = load(&rp, &ev, c->opts.replay, errbuf);

	free(ev.fstart);
	free(ev.cv);
	free(rp.fl);
	free(rp.cv);
	return r;
}

int ctl_replay(struct ctl *c, struct ctl_replay_totals *tot, char *errbuf)
{
	struct replay rp = { .c = c };
	struct rp_events ev;
	const char *dir = c->opts.replay;
	size_t i;
	int r;

	memset(tot, 0, sizeof(*tot));
	c->replay = true;
	c->t0 = ctl_now(c);
	c->first_arrival = c->t0;
	c->last_end = c->t0;
	if ((r = load(&rp, &ev, dir, errbuf)))
		goto out;
	rp.out_of = xcalloc(c->t->racks ? c->t->racks : 1, sizeof(int32_t));
	for (i = 0; i < c->t->racks; i++)
		rp.out_of[i] = -1;
	c->replay_left = rp.n_fl;
	evtimer_init(&rp.timer, rp_fire);
	rp_arm(&rp);
	ctl_event(c, "run_start %s replay none", c->be.ops->name);
	ctl_event_backend_options(c);
	r = evloop_run(&c->loop);
	if (r && !c->failed)
		ctl_fail(c, "event loop: %s", strerror(-r));
	ctl_event(c, "run_end %s", c->failed ? "failed" : "ok");
	if (c->events)
		fflush(c->events);
	tot->flows = rp.n_fl;
	tot->flows_done = rp.n_fl - c->replay_left;
	if (c->be.ops->flow_remaining) {
		const struct flow *f;

		for (f = c->active_head; f; f = f->anext) {
			uint64_t left = c->be.ops->flow_remaining(&c->be, (struct flow *)f);

			tot->left_bytes += left;
			if (left > tot->left_max)
				tot->left_max = left;
		}
	}
	tot->circuit_changes = c->cx.reconfigs;
	tot->end = c->last_end - c->t0;
	for (i = 0; i < rp.n_cv; i++)
		tot->circuits_up += rp.cv[i].dst >= 0;
	if (c->outdir && report_write_replay(c, errbuf)) {
		r = -EIO;
		goto out;
	}
	if (c->failed) {
		errbuf_set(errbuf, "%s", c->failmsg);
		r = -1;
	}
out:
	free(ev.fstart);
	free(ev.cv);
	free(rp.fl);
	free(rp.cv);
	free(rp.out_of);
	return r;
}
