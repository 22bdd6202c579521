/* A run's logs on the captures' clock (see runlog.h). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rundir.h"
#include "core/units.h"
#include "core/util.h"
#include "inspect/runlog.h"

struct rl_build {
	struct runlog *rl;
	size_t cap_jobs, cap_circ, cap_ocs;
	/* shuffle flows: id -> job, to place their ends */
	uint32_t *flow_job;
	size_t cap_flow;
	/* events.log's own circuit lines */
	struct rl_circuit *ctl_circ;
	size_t n_ctl_circ, cap_ctl_circ;
};

static FILE *open_in(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *fp = fopen(p, "r");

	free(p);
	return fp;
}

static size_t job_index(struct rl_build *b, const char *id)
{
	struct runlog *rl = b->rl;
	size_t i;

	for (i = rl->n_jobs; i-- > 0;)
		if (!strcmp(rl->jobs[i].id, id))
			return i;
	xgrow((void **)&rl->jobs, &b->cap_jobs, rl->n_jobs + 1, sizeof(*rl->jobs));
	rl->jobs[rl->n_jobs] = (struct rl_job){
		.id = xstrdup(id), .arrive = -1, .done = -1, .map_start = -1,
		.map_end = -1, .shuffle_start = -1, .shuffle_end = -1,
		.reduce_start = -1, .reduce_end = -1,
	};
	return rl->n_jobs++;
}

static void first(int64_t *v, int64_t t)
{
	if (*v < 0 || t < *v)
		*v = t;
}

static void last(int64_t *v, int64_t t)
{
	if (t > *v)
		*v = t;
}

static void add_circ(struct rl_circuit **arr, size_t *n, size_t *cap,
		     int64_t t, unsigned src, unsigned dst, bool up)
{
	xgrow((void **)arr, cap, *n + 1, sizeof(**arr));
	(*arr)[(*n)++] = (struct rl_circuit){ t, src, dst, up };
}

/* One line of events.log: "<ns> <what> <args>". */
static void event_line(struct rl_build *b, char *line)
{
	struct runlog *rl = b->rl;
	char *f[8];
	int n = str_split_fields(line, f, 8);
	long long ns;
	char *end;
	size_t j;

	if (n < 2)
		return;
	ns = strtoll(f[0], &end, 10);
	if (*end || ns < 0)
		return;
	if (!strcmp(f[1], "run_start")) {
		rl->t0 = ns;
	} else if (!strcmp(f[1], "run_end")) {
		rl->t_end = ns;
	} else if (!strcmp(f[1], "job_arrive") && n >= 3) {
		j = job_index(b, f[2]); /* it may move rl->jobs */
		rl->jobs[j].arrive = ns;
	} else if (!strcmp(f[1], "job_done") && n >= 3) {
		j = job_index(b, f[2]);
		rl->jobs[j].done = ns;
	} else if ((!strcmp(f[1], "task_start") || !strcmp(f[1], "task_done")) && n >= 4) {
		struct rl_job *jb;
		bool start = f[1][5] == 's', map = !strcmp(f[3], "map");

		j = job_index(b, f[2]);
		jb = &rl->jobs[j];

		if (map && start) {
			first(&jb->map_start, ns);
			jb->maps_started++;
		} else if (map) {
			last(&jb->map_end, ns);
		} else if (start) {
			first(&jb->reduce_start, ns);
			jb->reduces_started++;
		} else {
			last(&jb->reduce_end, ns);
		}
	} else if (!strcmp(f[1], "flow_start") && n == 7) {
		/* "flow_start ID JOB TASK PATH BYTES": a shuffle flow (input and
		 * output flows name their kind after the bytes) */
		unsigned long id = strtoul(f[2], &end, 10);

		if (*end || id > UINT32_MAX - 1)
			return;
		j = job_index(b, f[3]);
		first(&rl->jobs[j].shuffle_start, ns);
		if (id >= b->cap_flow) {
			size_t old = b->cap_flow;

			xgrow((void **)&b->flow_job, &b->cap_flow, id + 1, sizeof(*b->flow_job));
			memset(b->flow_job + old, 0xff, (b->cap_flow - old) * sizeof(*b->flow_job));
		}
		b->flow_job[id] = (uint32_t)j;
	} else if (!strcmp(f[1], "flow_done") && n >= 3) {
		unsigned long id = strtoul(f[2], &end, 10);

		if (!*end && id < b->cap_flow && b->flow_job[id] != UINT32_MAX)
			last(&rl->jobs[b->flow_job[id]].shuffle_end, ns);
	} else if ((!strcmp(f[1], "circuit_up") || !strcmp(f[1], "circuit_down")) && n >= 4) {
		unsigned long s = strtoul(f[2], &end, 10), d;

		if (*end)
			return;
		d = strtoul(f[3], &end, 10);
		if (*end)
			return;
		add_circ(&b->ctl_circ, &b->n_ctl_circ, &b->cap_ctl_circ, ns, (unsigned)s,
			 (unsigned)d, f[1][8] == 'u');
	}
}

static void add_ocs(struct rl_build *b, int64_t t, enum rl_ocs_kind kind, bool watch,
		    const char *text)
{
	struct runlog *rl = b->rl;

	xgrow((void **)&rl->ocs, &b->cap_ocs, rl->n_ocs + 1, sizeof(*rl->ocs));
	rl->ocs[rl->n_ocs++] = (struct rl_ocs_line){ t, kind, watch, xstrdup(text) };
}

/* ocs-control.log: "<ns> ctl|watch >|< line" */
static void control_log(struct rl_build *b, FILE *fp)
{
	char *buf = NULL, *rest;
	size_t cap = 0;
	long long ns, mono, real;
	int len;

	while (read_line(fp, &buf, &cap) >= 0) {
		char conn[8], dir;

		len = 0;
		if (sscanf(buf, "%lld %7s %c %n", &ns, conn, &dir, &len) < 3 || !len ||
		    (dir != '<' && dir != '>') || (strcmp(conn, "ctl") && strcmp(conn, "watch")))
			continue;
		rest = buf + len;
		add_ocs(b, ns, dir == '>' ? RL_OCS_REQUEST : RL_OCS_REPLY,
			!strcmp(conn, "watch"), rest);
		if (dir == '<' && sscanf(rest, "ok mono=%lld real=%lld", &mono, &real) == 2 &&
		    !b->rl->ocs_clock_how) {
			b->rl->ocs_clock_off = real - mono;
			b->rl->ocs_clock_how = "time";
		}
	}
	free(buf);
}

/* ocs-events.log: "up|down I J T" (T monotonic). Read into *ev. */
static size_t ocs_events(FILE *fp, struct rl_circuit **ev)
{
	char *buf = NULL, what[8];
	size_t cap = 0, n = 0, cap_ev = 0;
	unsigned s, d;
	long long t;

	while (read_line(fp, &buf, &cap) >= 0)
		if (sscanf(buf, "%7s %u %u %lld", what, &s, &d, &t) == 4 &&
		    (!strcmp(what, "up") || !strcmp(what, "down")))
			add_circ(ev, &n, &cap_ev, t, s, d, what[0] == 'u');
	free(buf);
	return n;
}

/* Without a "time" exchange: the smallest (controller heard up) - (it
 * happened), over the ups both logs have, in order per circuit. */
static bool offset_from_ups(const struct rl_build *b, const struct rl_circuit *ev,
			    size_t n, int64_t *off)
{
	size_t i, k, used = 0;
	bool have = false;
	bool *taken = xcalloc(b->n_ctl_circ + 1, sizeof(*taken));

	for (i = 0; i < n; i++) {
		if (!ev[i].up)
			continue;
		for (k = 0; k < b->n_ctl_circ; k++) {
			const struct rl_circuit *c = &b->ctl_circ[k];

			if (taken[k] || !c->up || c->src != ev[i].src || c->dst != ev[i].dst)
				continue;
			taken[k] = true;
			if (!have || c->t - ev[i].t < *off)
				*off = c->t - ev[i].t;
			have = true;
			used++;
			break;
		}
	}
	free(taken);
	return have && used;
}

static int cmp_ocs(const void *a, const void *b)
{
	const struct rl_ocs_line *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

static int cmp_circ(const void *a, const void *b)
{
	const struct rl_circuit *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (int)x->up - (int)y->up; /* a down before an up at one instant */
}

static int cmp_job(const void *a, const void *b)
{
	const struct rl_job *x = a, *y = b;

	if (x->arrive != y->arrive)
		return x->arrive < y->arrive ? -1 : 1;
	return strcmp(x->id, y->id);
}

int runlog_load(const char *dir, struct runlog **out, char *errbuf)
{
	struct rl_build b = { 0 };
	struct runlog *rl = xcalloc(1, sizeof(*rl));
	struct rl_circuit *ev = NULL;
	char *buf = NULL;
	size_t cap = 0, n_ev = 0, i;
	FILE *fp;

	b.rl = rl;
	rl->t0 = rl->t_end = -1;
	fp = open_in(dir, RUNDIR_EVENTS);
	if (!fp && errno != ENOENT) {
		errbuf_set(errbuf, "%s/%s: %s", dir, RUNDIR_EVENTS, strerror(errno));
		free(rl);
		return -EINVAL;
	}
	/* without one (a run directory made by hand or by a test), nothing
	 * happened as far as the logs say: t0 stays -1 */
	while (fp && read_line(fp, &buf, &cap) >= 0)
		event_line(&b, buf);
	if (fp)
		fclose(fp);
	free(buf);
	if ((fp = open_in(dir, RUNDIR_OCS_CONTROL))) {
		control_log(&b, fp);
		fclose(fp);
	}
	if ((fp = open_in(dir, RUNDIR_OCS_EVENTS))) {
		n_ev = ocs_events(fp, &ev);
		fclose(fp);
	}
	if (n_ev && !rl->ocs_clock_how && offset_from_ups(&b, ev, n_ev, &rl->ocs_clock_off))
		rl->ocs_clock_how = "circuit_up";
	if (n_ev && rl->ocs_clock_how) {
		for (i = 0; i < n_ev; i++) {
			char line[96];

			snprintf(line, sizeof(line), "%s %u %u %" PRId64, ev[i].up ? "up" : "down",
				 ev[i].src, ev[i].dst, ev[i].t);
			ev[i].t += rl->ocs_clock_off;
			add_ocs(&b, ev[i].t, RL_OCS_EVENT, true, line);
		}
		rl->circ = ev;
		rl->n_circ = n_ev;
		rl->circ_from_ocs = true;
		free(b.ctl_circ);
	} else {
		rl->ocs_events_unplaced = n_ev;
		free(ev);
		rl->circ = b.ctl_circ;
		rl->n_circ = b.n_ctl_circ;
	}
	/* (qsort of nothing: its array may be NULL, which qsort refuses) */
	if (rl->n_circ)
		xqsort(rl->circ, rl->n_circ, sizeof(*rl->circ), cmp_circ);
	if (rl->n_ocs)
		xqsort(rl->ocs, rl->n_ocs, sizeof(*rl->ocs), cmp_ocs);
	if (rl->n_jobs)
		xqsort(rl->jobs, rl->n_jobs, sizeof(*rl->jobs), cmp_job);
	free(b.flow_job);
	*out = rl;
	return 0;
}

void runlog_free(struct runlog *rl)
{
	size_t i;

	if (!rl)
		return;
	for (i = 0; i < rl->n_jobs; i++)
		free(rl->jobs[i].id);
	free(rl->jobs);
	for (i = 0; i < rl->n_ocs; i++)
		free(rl->ocs[i].text);
	free(rl->ocs);
	free(rl->circ);
	free(rl);
}

int runlog_parse_window(const char *s, int64_t *from, int64_t *to)
{
	const char *dash = strchr(s, '-');
	char *a;
	int r = 0;

	if (!dash || strchr(dash + 1, '-') || (dash == s && !dash[1]))
		return -EINVAL;
	*from = INT64_MIN;
	*to = INT64_MAX;
	a = xstrdup(s);
	a[dash - s] = '\0';
	if (*a && unit_parse_time(a, from))
		r = -EINVAL;
	if (!r && dash[1] && unit_parse_time(dash + 1, to))
		r = -EINVAL;
	if (!r && *from != INT64_MIN && *to != INT64_MAX && *to <= *from)
		r = -EINVAL;
	free(a);
	return r;
}
