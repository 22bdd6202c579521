/* hyde fidelity EMUL_RUN SIM_RUN: how far a simulation is from an emulated
 * run, flow by flow, coflow by coflow and job by job.
 *
 * Flows are joined by name (flows.csv's name: what the flow is, the same on
 * both backends for the same decisions), coflows and jobs by job id. For
 * every pair timed on both sides (FCT, CCT or JCT above 0) the ratio
 * emulated / simulated (above 1: the emulation was slower than the model)
 * and the error |simulated - emulated| / emulated; their distributions
 * (median, p90: nearest rank; worst: the largest error) over all pairs, by
 * the emulated flow's path and by size class, and by kind; coflows by their
 * bytes, jobs by class. Writes
 * fidelity.csv (every joined pair) and fidelity.png (simulated against
 * emulated, log-log) into -o DIR (default SIM_RUN).
 *
 * With free decisions the two runs may place tasks apart, and a coflow's
 * error is then the decision's as much as the network model's: the task
 * starts of both events.log (job, kind, index: host) are joined too, and
 * CCT and JCT are also given for the jobs placed alike (every task on the
 * same host) and those placed otherwise. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/plot.h"
#include "cli.h"
#include "core/csv.h"
#include "core/rundir.h"
#include "core/units.h"
#include "core/util.h"
#include "ctl/ctl.h"
#include "inspect/runlog.h"

/* One line of a run's file, as the join needs it. */
struct fd_row {
	char *name; /* flow name, or job id */
	char kind[16], path[8];
	uint64_t bytes;
	int64_t t; /* fct_ns, cct_ns or jct_ns; -1: not timed */
	size_t line;
	/* a flow over a circuit: how many of its circuit's windows (the
	 * times it was up, in the run's events.log) its life, start to end,
	 * met; -1: not over a circuit, or not known */
	int win;
};

struct fd_set {
	struct fd_row *r;
	size_t n;
	bool present; /* the file exists (jobs.csv may not: a replay) */
};

/* A joined pair. */
struct fd_pair {
	const struct fd_row *e, *s;
	double ratio, err; /* NAN when either time is not above 0 */
};

enum { LV_FLOW, LV_COFLOW, LV_JOB, LV_N };
static const char *const lv_name[LV_N] = { "flow", "coflow", "job" };
static const char *const lv_metric[LV_N] = { "FCT", "CCT", "JCT" };

static int cmp_row(const void *a, const void *b)
{
	return strcmp(((const struct fd_row *)a)->name, ((const struct fd_row *)b)->name);
}

static void set_free(struct fd_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->r[i].name);
	free(s->r);
	memset(s, 0, sizeof(*s));
}

/* A run's circuits: each window a circuit was up, on the run's clock,
 * sorted by source rack, destination rack and time; read on first use. */
struct fd_window {
	unsigned src, dst;
	int64_t up, down; /* down INT64_MAX: up at the run's end */
};

struct fd_circuits {
	struct fd_window *w;
	size_t n;
	bool read;
};

static int cmp_window(const void *a, const void *b)
{
	const struct fd_window *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	if (x->up != y->up)
		return (x->up > y->up) - (x->up < y->up);
	return (x->down > y->down) - (x->down < y->down);
}

/* From the run's logs as hyde's other run viewers read them (runlog.h:
 * the crossbar's own events where its clock can be placed, else the
 * controller's circuit_up and circuit_down). */
static void read_circuits(const char *dir, struct fd_circuits *cx)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct runlog *rl;
	size_t cap = 0, i, k;

	cx->read = true;
	if (runlog_load(dir, &rl, errbuf))
		return; /* (logs that do not read: no window known) */
	for (i = 0; i < rl->n_circ; i++) { /* in time order */
		const struct rl_circuit *c = &rl->circ[i];

		/* the pair's open window, if any: the last one of it */
		for (k = cx->n; k > 0; k--)
			if (cx->w[k - 1].src == c->src && cx->w[k - 1].dst == c->dst)
				break;
		if (c->up) {
			if (k && cx->w[k - 1].down == INT64_MAX)
				continue; /* up already */
			xgrow((void **)&cx->w, &cap, cx->n + 1, sizeof(*cx->w));
			cx->w[cx->n++] = (struct fd_window){ c->src, c->dst, c->t, INT64_MAX };
		} else if (k && cx->w[k - 1].down == INT64_MAX) {
			cx->w[k - 1].down = c->t;
		}
	}
	runlog_free(rl);
	if (cx->n)
		xqsort(cx->w, cx->n, sizeof(*cx->w), cmp_window);
}

/* How many windows of the circuit from SRC's rack to DST's (host names,
 * r<rack>h<host>) a flow that lived from a to b met (a window [up, down)
 * meets it if up < b and down > a); -1 if the names are no racks'. */
static int circuit_windows(struct fd_circuits *cx, const char *dir, const char *src,
			   const char *dst, int64_t a, int64_t b)
{
	unsigned sr, dr;
	size_t lo = 0, hi, i;
	int n = 0;

	if (sscanf(src, "r%u", &sr) != 1 || sscanf(dst, "r%u", &dr) != 1)
		return -1;
	if (!cx->read)
		read_circuits(dir, cx);
	/* the pair's first window that ends after a */
	hi = cx->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fd_window *w = &cx->w[mid];

		if (w->src < sr || (w->src == sr && (w->dst < dr || (w->dst == dr && w->down <= a))))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < cx->n && cx->w[i].src == sr && cx->w[i].dst == dr && cx->w[i].up < b; i++)
		n++;
	return n;
}

/* A run's flows.csv, coflows.csv or jobs.csv; names unique. */
static int read_set(const char *dir, int lv, struct fd_set *out, char *errbuf)
{
	struct fd_circuits cx = { NULL, 0, false };
	static const char *const file[LV_N] = { RUNDIR_FLOWS, RUNDIR_COFLOWS, RUNDIR_JOBS };
	static const char *const hdr[LV_N] = { RUNDIR_FLOWS_HEADER, RUNDIR_COFLOWS_HEADER,
					       RUNDIR_JOBS_HEADER };
	static const char *const tcol[LV_N] = { "fct_ns", "cct_ns", "jct_ns" };
	struct fd_set s = { 0 };
	size_t cap = 0, i;
	struct csv c;
	int k, r, nc, tc;
	struct stat sb;
	char *path = xasprintf("%s/%s", dir, file[lv]);

	memset(out, 0, sizeof(*out));
	if (lv == LV_JOB && stat(path, &sb) && errno == ENOENT) {
		free(path);
		return 0; /* no jobs: a replay's */
	}
	free(path);
	if ((r = csv_open(&c, dir, file[lv], hdr[lv], errbuf))) {
		char e2[HYDE_ERRBUF_SIZE];

		if (lv == LV_FLOW && !csv_open(&c, dir, file[lv], RUNDIR_FLOWS_HEADER_V1, e2)) {
			errbuf_set(errbuf, "%s/%s: its flows have no names (a run from before hyde named them): nothing to join on",
				   dir, file[lv]);
			csv_close(&c);
		}
		return -EINVAL;
	}
	nc = csv_col(&c, lv == LV_FLOW ? "name" : "job");
	tc = csv_col(&c, tcol[lv]);
	while ((k = csv_next(&c, errbuf)) == 1) {
		struct fd_row *w;

		xgrow((void **)&s.r, &cap, s.n + 1, sizeof(*s.r));
		w = &s.r[s.n];
		memset(w, 0, sizeof(*w));
		w->line = c.line;
		if ((r = csv_ns(&c, tc, &w->t, errbuf)))
			goto out;
		if (!*c.f[nc] || !strcmp(c.f[nc], "-")) {
			r = csv_err(&c, nc, lv == LV_FLOW ? "a flow name (a run from before names has '-')" : "a job id",
				    errbuf);
			goto out;
		}
		w->win = -1;
		if (lv == LV_FLOW) {
			int pc = csv_col(&c, "path"), kc = csv_col(&c, "kind");
			int64_t a, b;

			if ((r = csv_u64(&c, csv_col(&c, "bytes"), UINT64_MAX, &w->bytes, errbuf)) ||
			    (r = csv_ns(&c, csv_col(&c, "start_ns"), &a, errbuf)) ||
			    (r = csv_ns(&c, csv_col(&c, "end_ns"), &b, errbuf)))
				goto out;
			snprintf(w->path, sizeof(w->path), "%s", c.f[pc]);
			snprintf(w->kind, sizeof(w->kind), "%s", c.f[kc]);
			if (!strcmp(w->path, "ocs") && a >= 0 && b >= a)
				w->win = circuit_windows(&cx, dir, c.f[csv_col(&c, "src")],
							 c.f[csv_col(&c, "dst")], a, b);
		} else if (lv == LV_COFLOW) {
			if ((r = csv_u64(&c, csv_col(&c, "bytes"), UINT64_MAX, &w->bytes, errbuf)))
				goto out;
		} else {
			int cc = csv_col(&c, "class");

			if ((r = csv_u64(&c, csv_col(&c, "shuffle_bytes"), UINT64_MAX, &w->bytes, errbuf)))
				goto out;
			snprintf(w->kind, sizeof(w->kind), "%s", c.f[cc]);
		}
		w->name = xstrdup(c.f[nc]);
		s.n++;
	}
	r = k;
	if (r)
		goto out;
	if (s.n)
		xqsort(s.r, s.n, sizeof(*s.r), cmp_row);
	for (i = 1; i < s.n; i++)
		if (!strcmp(s.r[i].name, s.r[i - 1].name)) {
			errbuf_set(errbuf, "%s/%s:%zu: %s '%s' already on line %zu", dir, file[lv],
				   s.r[i].line > s.r[i - 1].line ? s.r[i].line : s.r[i - 1].line,
				   lv == LV_FLOW ? "flow" : "job", s.r[i].name,
				   s.r[i].line > s.r[i - 1].line ? s.r[i - 1].line : s.r[i].line);
			r = -EINVAL;
			goto out;
		}
	s.present = true;
	*out = s;
	s.r = NULL;
	s.n = 0;
out:
	csv_close(&c);
	set_free(&s);
	free(cx.w);
	return r;
}

/* A task's start in a run's events.log: "job kind index" and its host. */
struct fd_task {
	char *key, *host;
	size_t seq;	    /* its line's order: a task's first start wins */
	int64_t start, end; /* ns on the run's clock; end -1: no task_done after it */
};

struct fd_tasks {
	struct fd_task *t;
	size_t n;
};

static int cmp_task(const void *a, const void *b)
{
	const struct fd_task *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

static void tasks_free(struct fd_tasks *ts)
{
	size_t i;

	for (i = 0; i < ts->n; i++) {
		free(ts->t[i].key);
		free(ts->t[i].host);
	}
	free(ts->t);
	memset(ts, 0, sizeof(*ts));
}

/* The task starts of DIR/events.log, sorted by key, a task's first start
 * only, each with its end (its first task_done after it, or -1); none if
 * the file is missing or has none (a replay). */
static void read_tasks(const char *dir, struct fd_tasks *ts)
{
	char *path = xasprintf("%s/%s", dir, RUNDIR_EVENTS), *line = NULL, *f[8];
	size_t cap = 0, lcap = 0, dcap = 0, i, w;
	struct fd_tasks dn = { NULL, 0 }; /* the task_done lines */
	FILE *fp = fopen(path, "r");

	memset(ts, 0, sizeof(*ts));
	free(path);
	if (!fp)
		return;
	while (read_line(fp, &line, &lcap) >= 0) {
		int nf;
		bool done;

		if (!strstr(line, " task_start ") && !strstr(line, " task_done "))
			continue;
		nf = str_split_fields(line, f, 8);
		done = nf >= 5 && !strcmp(f[1], "task_done");
		if (!done && (nf < 6 || strcmp(f[1], "task_start")))
			continue;
		if (done) { /* kept aside: matched to its start below */
			xgrow((void **)&dn.t, &dcap, dn.n + 1, sizeof(*dn.t));
			dn.t[dn.n].key = xasprintf("%s %s %s", f[2], f[3], f[4]);
			dn.t[dn.n].host = NULL;
			dn.t[dn.n].seq = dn.n;
			dn.t[dn.n].start = strtoll(f[0], NULL, 10);
			dn.n++;
			continue;
		}
		xgrow((void **)&ts->t, &cap, ts->n + 1, sizeof(*ts->t));
		ts->t[ts->n].key = xasprintf("%s %s %s", f[2], f[3], f[4]);
		ts->t[ts->n].host = xstrdup(f[5]);
		ts->t[ts->n].seq = ts->n;
		ts->t[ts->n].start = strtoll(f[0], NULL, 10);
		ts->t[ts->n].end = -1;
		ts->n++;
	}
	free(line);
	fclose(fp);
	/* by key, a task's first start first; the others dropped */
	xqsort(ts->t, ts->n, sizeof(*ts->t), cmp_task);
	for (i = w = 0; i < ts->n; i++) {
		if (w && !strcmp(ts->t[w - 1].key, ts->t[i].key)) {
			free(ts->t[i].key);
			free(ts->t[i].host);
			continue;
		}
		ts->t[w++] = ts->t[i];
	}
	ts->n = w;
	/* each task's end: its first task_done at or after its start */
	xqsort(dn.t, dn.n, sizeof(*dn.t), cmp_task);
	for (i = w = 0; i < ts->n && w < dn.n;) {
		int c = strcmp(ts->t[i].key, dn.t[w].key);

		if (c > 0 || (!c && dn.t[w].start < ts->t[i].start))
			w++;
		else if (c < 0)
			i++;
		else {
			ts->t[i++].end = dn.t[w++].start;
		}
	}
	for (i = 0; i < dn.n; i++)
		free(dn.t[i].key);
	free(dn.t);
}

/* KEY's value on the simulated run's first line with TAG in DIR/events.log
 * (" backend_options": its -B, setup, task_overhead...; " backend_derived":
 * what the backend worked out itself, -B measured_setup's setup), into
 * buf; "none" without one (the model's default: nothing of it). */
static void read_backend_line(const char *dir, const char *tag, const char *key, char *buf,
			      size_t len)
{
	char *path = xasprintf("%s/%s", dir, RUNDIR_EVENTS), *line = NULL, *k;
	char *pat = xasprintf(" %s=", key);
	size_t lcap = 0;
	FILE *fp = fopen(path, "r");

	snprintf(buf, len, "none");
	free(path);
	if (fp) {
		while (read_line(fp, &line, &lcap) >= 0)
			if (strstr(line, tag)) {
				if ((k = strstr(line, pat)))
					snprintf(buf, len, "%.*s", (int)strcspn(k + strlen(pat), " "),
						 k + strlen(pat));
				break;
			}
		fclose(fp);
	}
	free(line);
	free(pat);
}

/* The simulated run's -B KEY (its backend_options line). */
static void read_backend_opt(const char *dir, const char *key, char *buf, size_t len)
{
	read_backend_line(dir, " backend_options", key, buf, len);
}

/* DIR/events.log's run_options fields (KEY=VALUE, the controller's
 * options as the run ran), or NULL for a run without the line (a replay,
 * a run from before it). The caller frees it. */
static char *read_run_options(const char *dir)
{
	char *path = xasprintf("%s/%s", dir, RUNDIR_EVENTS), *line = NULL, *k, *v = NULL;
	size_t lcap = 0;
	FILE *fp = fopen(path, "r");

	free(path);
	if (!fp)
		return NULL;
	while (!v && read_line(fp, &line, &lcap) >= 0) {
		if ((k = strstr(line, " run_options ")))
			v = xstrdup(k + strlen(" run_options "));
		else if (strstr(line, " job_arrive ") || strstr(line, " flow_start "))
			break; /* the options come before anything happens */
	}
	free(line);
	fclose(fp);
	return v;
}

/* The value as compared: a topology's or workload's file by its last
 * path component (the same file named from elsewhere is the same), the
 * rest as written. */
static const char *option_key_value(const char *field, size_t len, size_t *vlen)
{
	const char *eq = memchr(field, '=', len), *v, *slash;

	if (!eq) {
		*vlen = len;
		return field;
	}
	v = eq + 1;
	*vlen = len - (size_t)(v - field);
	if ((eq - field == 8 && !strncmp(field, "topology", 8)) ||
	    (eq - field == 8 && !strncmp(field, "workload", 8)))
		for (slash = v; slash < field + len; slash++)
			if (*slash == '/') {
				*vlen -= (size_t)(slash + 1 - v);
				v = slash + 1;
			}
	return v;
}

/* Prints the options the two runs were made with otherwise ("KEY=A
 * against B"), if both say: decisions and flows may part for that alone,
 * which the figures below cannot tell from the network model's error. */
static void report_options(const char *emul, const char *sim)
{
	char *o[2] = { read_run_options(emul), read_run_options(sim) };
	const char *p, *q;
	size_t n = 0;

	if (!o[0] || !o[1])
		goto out;
	for (p = o[0]; *p; p += strspn(p, " ")) {
		size_t len = strcspn(p, " "), klen = strcspn(p, "="), va, vb;
		const char *a, *b = NULL;

		if (klen >= len) {
			p += len;
			continue;
		}
		for (q = o[1]; *q; q += strspn(q, " ")) {
			size_t l2 = strcspn(q, " ");

			if (l2 > klen && q[klen] == '=' && !strncmp(p, q, klen)) {
				b = option_key_value(q, l2, &vb);
				break;
			}
			q += l2;
		}
		a = option_key_value(p, len, &va);
		if (!b || va != vb || strncmp(a, b, va)) {
			printf("%s%.*s against %.*s", n++ ? "; " : "Options: the two runs were made otherwise: ",
			       (int)len, p, b ? (int)vb : 4, b ? b : "none");
		}
		p += len;
	}
	if (n)
		printf(" (run_options in events.log): their decisions and flows may differ for that alone\n\n");
out:
	free(o[0]);
	free(o[1]);
}

/* How the two runs' decisions compare: task starts in both, on the same
 * host; and per job (sorted by id) whether every task of it was placed
 * alike (its tasks the same in both runs, each on the same host). */
struct fd_placement {
	bool known;		/* both runs have task starts */
	size_t both, same, only;
	char **job;		/* sorted */
	bool *alike;
	size_t n_jobs, n_alike;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t key_job_len(const char *key)
{
	return strcspn(key, " ");
}

/* the job's slot in pl (added if new, in key order: keys come sorted) */
static size_t placement_job(struct fd_placement *pl, size_t *cap, const char *key)
{
	size_t n = key_job_len(key);

	if (pl->n_jobs && strlen(pl->job[pl->n_jobs - 1]) == n &&
	    !strncmp(pl->job[pl->n_jobs - 1], key, n))
		return pl->n_jobs - 1;
	xgrow((void **)&pl->job, cap, pl->n_jobs + 1, sizeof(*pl->job));
	pl->alike = xrealloc(pl->alike, *cap * sizeof(*pl->alike));
	pl->job[pl->n_jobs] = xasprintf("%.*s", (int)n, key);
	pl->alike[pl->n_jobs] = true;
	return pl->n_jobs++;
}

static void placement(const struct fd_tasks *e, const struct fd_tasks *s, struct fd_placement *pl)
{
	size_t a = 0, b = 0, cap = 0, i;

	memset(pl, 0, sizeof(*pl));
	if (!e->n || !s->n)
		return;
	pl->known = true;
	while (a < e->n || b < s->n) {
		int c = a == e->n ? 1 : b == s->n ? -1 : strcmp(e->t[a].key, s->t[b].key);
		const char *key = c <= 0 ? e->t[a].key : s->t[b].key;
		size_t j = placement_job(pl, &cap, key);

		if (c) {
			pl->only++;
			pl->alike[j] = false;
			if (c < 0)
				a++;
			else
				b++;
			continue;
		}
		pl->both++;
		if (!strcmp(e->t[a].host, s->t[b].host))
			pl->same++;
		else
			pl->alike[j] = false;
		a++;
		b++;
	}
	/* a job's keys are contiguous ("JOB " sorts before any longer id
	 * that JOB begins, ' ' being below every character of an id), and the
	 * jobs come in the order of their ids: pl->job is sorted */
	for (i = 0; i < pl->n_jobs; i++)
		pl->n_alike += pl->alike[i];
}

/* 1: job placed alike, 0: otherwise, -1: not known */
static int placed_alike(const struct fd_placement *pl, const char *job)
{
	char **hit;

	if (!pl->known)
		return -1;
	hit = bsearch(&job, pl->job, pl->n_jobs, sizeof(*pl->job), cmp_str);
	return hit ? pl->alike[hit - pl->job] : -1;
}

static void placement_free(struct fd_placement *pl)
{
	size_t i;

	for (i = 0; i < pl->n_jobs; i++)
		free(pl->job[i]);
	free(pl->job);
	free(pl->alike);
	memset(pl, 0, sizeof(*pl));
}

/* The pairs of two sets, by name. */
struct fd_join {
	struct fd_pair *p;
	size_t n;
	size_t only_e, only_s, untimed_e, untimed_s, zero_e, zero_s;
};

static void join(const struct fd_set *e, const struct fd_set *s, struct fd_join *j)
{
	size_t a = 0, b = 0, cap = 0;

	memset(j, 0, sizeof(*j));
	while (a < e->n || b < s->n) {
		int c = a == e->n ? 1 : b == s->n ? -1 : strcmp(e->r[a].name, s->r[b].name);
		struct fd_pair *p;

		if (c < 0) {
			j->only_e++;
			a++;
			continue;
		}
		if (c > 0) {
			j->only_s++;
			b++;
			continue;
		}
		xgrow((void **)&j->p, &cap, j->n + 1, sizeof(*j->p));
		p = &j->p[j->n++];
		p->e = &e->r[a];
		p->s = &s->r[b];
		p->ratio = p->err = NAN;
		j->untimed_e += p->e->t < 0;
		j->untimed_s += p->s->t < 0;
		j->zero_e += p->e->t == 0;
		j->zero_s += p->s->t == 0;
		if (p->e->t > 0 && p->s->t > 0) {
			p->ratio = (double)p->e->t / (double)p->s->t;
			p->err = fabs((double)p->s->t - (double)p->e->t) / (double)p->e->t;
		}
		a++;
		b++;
	}
}

/* The median of several simulated runs of the same decisions (draws of
 * what the model leaves out: replays with -B share_jitter and other
 * jitter_seeds), name by name: into *out, each name's row (bytes, path,
 * kind: the same in every set) with its time the median (nearest rank) of
 * its times in all n sets, a run in
 * which it did not end (-1) counting as longer than any, and the circuit
 * windows of the run it has that time in. A name not in every set is
 * left out and counted in *partial. */
struct fd_tw {
	int64_t t;
	int win;
};

static int cmp_tw(const void *a, const void *b)
{
	const struct fd_tw *x = a, *y = b;

	if (x->t != y->t)
		return (x->t > y->t) - (x->t < y->t);
	return (x->win > y->win) - (x->win < y->win);
}

static void median_set(const struct fd_set *s, size_t n, struct fd_set *out, size_t *partial)
{
	size_t *at = xcalloc(n, sizeof(*at)), cap = 0, k, m;
	struct fd_tw *t = xmalloc(n * sizeof(*t));

	memset(out, 0, sizeof(*out));
	*partial = 0;
	out->present = s[0].present;
	for (;;) { /* every set is sorted by name: the least name at the cursors */
		const struct fd_row *r = NULL;

		for (k = 0; k < n; k++)
			if (at[k] < s[k].n && (!r || strcmp(s[k].r[at[k]].name, r->name) < 0))
				r = &s[k].r[at[k]];
		if (!r)
			break;
		for (k = m = 0; k < n; k++)
			if (at[k] < s[k].n && !strcmp(s[k].r[at[k]].name, r->name)) {
				t[m].t = s[k].r[at[k]].t;
				t[m++].win = s[k].r[at[k]].win;
			}
		if (m < n) {
			(*partial)++;
		} else {
			for (k = 0; k < n; k++)
				if (t[k].t < 0)
					t[k].t = INT64_MAX;
			xqsort(t, n, sizeof(*t), cmp_tw);
			xgrow((void **)&out->r, &cap, out->n + 1, sizeof(*out->r));
			out->r[out->n] = *r;
			out->r[out->n].name = xstrdup(r->name);
			m = (n + 1) / 2; /* nearest rank, as pct() */
			out->r[out->n].t = t[m - 1].t == INT64_MAX ? -1 : t[m - 1].t;
			/* the circuit's windows of the run with that time */
			out->r[out->n].win = t[m - 1].win;
			out->n++;
		}
		for (k = 0; k < n; k++) /* (r stays valid: a cursor moves, no row) */
			if (at[k] < s[k].n && !strcmp(s[k].r[at[k]].name, r->name))
				at[k]++;
	}
	free(at);
	free(t);
}

/* Nearest rank. */
static double pct(const double *v, size_t n, double q)
{
	size_t k = (size_t)ceil(q * (double)n);

	return v[k ? k - 1 : 0];
}

struct fd_stat {
	size_t n;
	double r_med, r_p90, e_med, e_p90, e_max;
};

static void stats(const struct fd_pair *const *v, size_t n, struct fd_stat *st)
{
	double *r = xmalloc((n ? n : 1) * sizeof(double)), *e = xmalloc((n ? n : 1) * sizeof(double));
	size_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < n; i++) {
		r[i] = v[i]->ratio;
		e[i] = v[i]->err;
	}
	xqsort(r, n, sizeof(double), cmp_double);
	xqsort(e, n, sizeof(double), cmp_double);
	st->n = n;
	if (n) {
		st->r_med = pct(r, n, 0.5);
		st->r_p90 = pct(r, n, 0.9);
		st->e_med = pct(e, n, 0.5);
		st->e_p90 = pct(e, n, 0.9);
		st->e_max = e[n - 1];
	}
	free(r);
	free(e);
}

/* Over the flows between hosts timed on both (a same-host fetch is not in
 * the network model): what the per-flow goal is stated on. v: room for
 * j->n. */
static void hosts_stats(const struct fd_join *j, const struct fd_pair **v, struct fd_stat *st)
{
	size_t i, n = 0;

	for (i = 0; i < j->n; i++)
		if (!isnan(j->p[i].ratio) && strcmp(j->p[i].e->path, "host"))
			v[n++] = &j->p[i];
	stats(v, n, st);
}

/* The model's own spread, with several SIM_RUNs (draws of the same
 * decisions): each draw against the median of the others, over the flows
 * between hosts, as EMUL_RUN is against the median of them all. Its FCT
 * ratio's median and p90 per draw, and their least, median (nearest rank)
 * and greatest over the draws: how far one draw of the model lies from
 * the model's median prediction, the yardstick for EMUL_RUN's distance
 * (an emulated run is one draw of what TCP does). */
struct fd_spread {
	size_t n; /* draws with flows to compare (0: none, or under 3 SIM_RUNs) */
	double med[3], p90[3]; /* least, median, greatest */
};

static void model_spread(const struct fd_set *each, size_t n, struct fd_spread *sp)
{
	struct fd_set *others, med;
	double *m, *p;
	size_t k, i, o, partial;

	memset(sp, 0, sizeof(*sp));
	if (n < 3)
		return;
	others = xmalloc((n - 1) * sizeof(*others));
	m = xmalloc(n * sizeof(double));
	p = xmalloc(n * sizeof(double));
	for (k = 0; k < n; k++) {
		const struct fd_pair **v;
		struct fd_join j;
		struct fd_stat st;

		for (i = o = 0; i < n; i++)
			if (i != k)
				others[o++] = each[i]; /* (shallow: median_set copies) */
		median_set(others, n - 1, &med, &partial);
		join(&each[k], &med, &j);
		v = xmalloc((j.n + 1) * sizeof(*v));
		hosts_stats(&j, v, &st);
		if (st.n) {
			m[sp->n] = st.r_med;
			p[sp->n++] = st.r_p90;
		}
		free(v);
		free(j.p);
		set_free(&med);
	}
	if (sp->n) {
		xqsort(m, sp->n, sizeof(double), cmp_double);
		xqsort(p, sp->n, sizeof(double), cmp_double);
		sp->med[0] = m[0];
		sp->med[1] = pct(m, sp->n, 0.5);
		sp->med[2] = m[sp->n - 1];
		sp->p90[0] = p[0];
		sp->p90[1] = pct(p, sp->n, 0.5);
		sp->p90[2] = p[sp->n - 1];
	}
	free(others);
	free(m);
	free(p);
}

/* The spread's line, EMUL_RUN's p90 (over the flows between hosts) placed
 * against it. */
static void print_spread(const struct fd_spread *sp, size_t nsim, const struct fd_stat *e)
{
	if (!sp->n || !e->n)
		return;
	printf("Model's own spread: each of the %zu SIM_RUNs against the median of the other %zu, flows between hosts: ratio median %.3f-%.3f, p90 %.3f-%.3f (median %.3f); EMUL_RUN's p90 %.3f is %s\n\n",
	       nsim, nsim - 1, sp->med[0], sp->med[2], sp->p90[0], sp->p90[2], sp->p90[1],
	       e->r_p90,
	       e->r_p90 > sp->p90[2]	? "above every draw's: EMUL_RUN is further from the model than the model's own draws are"
	       : e->r_p90 < sp->p90[0] ? "below every draw's"
				       : "within the draws'");
}

static void print_stat(const char *group, const struct fd_stat *st)
{
	if (!st->n)
		return;
	printf("  %-16s %6zu %9.3f %9.3f %9.1f%% %9.1f%% %9.1f%%\n", group, st->n, st->r_med,
	       st->r_p90, 100 * st->e_med, 100 * st->e_p90, 100 * st->e_max);
}

/* The size classes of flows (the emulated run's bytes). */
static const char *size_class(uint64_t b)
{
	return b < 100000 ? "size <100KB" : b < 1000000 ? "size 100KB-1MB" :
	       b < 10000000 ? "size 1MB-10MB" : "size >=10MB";
}

/* And of coflows (their bytes): a workload's many tiny coflows make most
 * of the median ratio, its few big ones most of the average CCT. */
static const char *const cf_sizes[] = { "bytes <1MB", "bytes 1MB-10MB", "bytes 10MB-100MB",
					"bytes >=100MB" };

static const char *cf_size_class(uint64_t b)
{
	return cf_sizes[b < 1000000 ? 0 : b < 10000000 ? 1 : b < 100000000 ? 2 : 3];
}

static void report_level(int lv, const struct fd_join *j, const struct fd_placement *pl)
{
	static const char *const paths[] = { "eps", "ocs", "rack", "host" };
	static const char *const sizes[] = { "size <100KB", "size 100KB-1MB", "size 1MB-10MB",
					     "size >=10MB" };
	static const char *const kinds[] = { "input", "shuffle", "output" };
	/* the emulated run's windows against the simulated one's */
	static const char *const wins[] = { "ocs windows +", "ocs windows =", "ocs windows -" };
	const struct fd_pair **v = xmalloc((j->n ? j->n : 1) * sizeof(*v));
	struct fd_stat st;
	size_t i, n, g, nwin = 0;
	char label[32];

	printf("%s: %zu %ss joined; %zu only in EMUL_RUN, %zu only in SIM_RUN; not ended: %zu in EMUL_RUN, %zu in SIM_RUN; no time (0): %zu, %zu\n",
	       lv_metric[lv], j->n, lv_name[lv], j->only_e, j->only_s, j->untimed_e, j->untimed_s,
	       j->zero_e, j->zero_s);
	printf("  %-16s %6s %9s %9s %10s %10s %10s\n", "", "n", "ratio med", "ratio p90",
	       "|err| med", "|err| p90", "worst");
	for (i = n = 0; i < j->n; i++)
		if (!isnan(j->p[i].ratio))
			v[n++] = &j->p[i];
	stats(v, n, &st);
	print_stat("all", &st);
	if (lv == LV_FLOW) {
		hosts_stats(j, v, &st);
		print_stat("between hosts", &st);
		for (i = n = 0; i < j->n; i++)
			if (!isnan(j->p[i].ratio) && strcmp(j->p[i].e->path, "host") &&
			    j->p[i].e->bytes >= 100000)
				v[n++] = &j->p[i];
		stats(v, n, &st);
		print_stat("hosts, >=100KB", &st);
		for (g = 0; g < ARRAY_SIZE(paths); g++) {
			for (i = n = 0; i < j->n; i++)
				if (!isnan(j->p[i].ratio) && !strcmp(j->p[i].e->path, paths[g]))
					v[n++] = &j->p[i];
			stats(v, n, &st);
			snprintf(label, sizeof(label), "path %s", paths[g]);
			print_stat(label, &st);
		}
		for (g = 0; g < ARRAY_SIZE(sizes); g++) {
			for (i = n = 0; i < j->n; i++)
				if (!isnan(j->p[i].ratio) && !strcmp(size_class(j->p[i].e->bytes), sizes[g]))
					v[n++] = &j->p[i];
			stats(v, n, &st);
			print_stat(sizes[g], &st);
		}
		for (g = 0; g < ARRAY_SIZE(kinds); g++) {
			for (i = n = 0; i < j->n; i++)
				if (!isnan(j->p[i].ratio) && !strcmp(j->p[i].e->kind, kinds[g]))
					v[n++] = &j->p[i];
			stats(v, n, &st);
			snprintf(label, sizeof(label), "kind %s", kinds[g]);
			print_stat(label, &st);
		}
		/* a flow over a circuit that met more of its circuit's windows
		 * in one run than in the other waited for the next (a window
		 * is often shorter than the flow: a few percent of its rate
		 * lost or gained moves its end a whole down time) */
		for (g = 0; g < ARRAY_SIZE(wins); g++) {
			for (i = n = 0; i < j->n; i++) {
				const struct fd_pair *p = &j->p[i];

				if (!isnan(p->ratio) && p->e->win >= 0 && p->s->win >= 0 &&
				    (p->e->win > p->s->win) - (p->e->win < p->s->win) == 1 - (int)g)
					v[n++] = p;
			}
			stats(v, n, &st);
			print_stat(wins[g], &st);
			nwin += n;
		}
		if (nwin)
			printf("  (ocs windows +, =, -: the flows over a circuit that met more, as many or fewer of its windows in EMUL_RUN than in SIM_RUN)\n");
	}
	if (lv == LV_COFLOW)
		for (g = 0; g < ARRAY_SIZE(cf_sizes); g++) {
			for (i = n = 0; i < j->n; i++)
				if (!isnan(j->p[i].ratio) &&
				    cf_size_class(j->p[i].e->bytes) == cf_sizes[g])
					v[n++] = &j->p[i];
			stats(v, n, &st);
			print_stat(cf_sizes[g], &st);
		}
	if (lv != LV_FLOW && pl->known) {
		static const char *const how[] = { "placed otherwise", "placed alike" };

		for (g = 0; g < ARRAY_SIZE(how); g++) {
			for (i = n = 0; i < j->n; i++)
				if (!isnan(j->p[i].ratio) && placed_alike(pl, j->p[i].e->name) == (int)g)
					v[n++] = &j->p[i];
			stats(v, n, &st);
			print_stat(how[g], &st);
		}
	}
	if (lv == LV_JOB) {
		static const char *const cls[] = { "heavy", "light" };

		for (g = 0; g < ARRAY_SIZE(cls); g++) {
			for (i = n = 0; i < j->n; i++)
				if (!isnan(j->p[i].ratio) && !strcmp(j->p[i].e->kind, cls[g]))
					v[n++] = &j->p[i];
			stats(v, n, &st);
			snprintf(label, sizeof(label), "class %s", cls[g]);
			print_stat(label, &st);
		}
	}
	free(v);
}

struct fd_all {
	struct fd_join j[LV_N];
	bool have[LV_N];
};

static int write_csv(FILE *fp, void *arg)
{
	const struct fd_all *a = arg;
	int lv;
	size_t i;

	fprintf(fp, "level,name,kind,path,bytes,emul_ns,sim_ns,ratio\n");
	for (lv = 0; lv < LV_N; lv++)
		for (i = 0; a->have[lv] && i < a->j[lv].n; i++) {
			const struct fd_pair *p = &a->j[lv].p[i];

			fprintf(fp, "%s,%s,%s,%s,%" PRIu64 ",%" PRId64 ",%" PRId64 ",", lv_name[lv],
				p->e->name, *p->e->kind ? p->e->kind : "-",
				*p->e->path ? p->e->path : "-", p->e->bytes, p->e->t, p->s->t);
			if (isnan(p->ratio))
				fprintf(fp, "-1\n");
			else
				fprintf(fp, "%.6f\n", p->ratio);
		}
	return ferror(fp) ? -EIO : 0;
}

struct fd_plot {
	const struct fd_all *a;
	const char *png;
};

static void scatter_body(FILE *fp, const void *arg)
{
	static const char *const paths[] = { "eps", "ocs", "rack", "host" };
	const struct fd_plot *pl = arg;
	const struct fd_all *a = pl->a;
	double lo = INFINITY, hi = 0;
	size_t g, i;
	int lv;

	fprintf(fp, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		    "  set terminal pngcairo size 760,700 noenhanced font ',11'\n"
		    "} else {\n"
		    "  set terminal png size 760,700 noenhanced\n"
		    "}\n");
	fprintf(fp, "set output ");
	plot_quote(fp, pl->png);
	fprintf(fp, "\n");
	for (lv = 0; lv < LV_N; lv++)
		for (i = 0; a->have[lv] && i < a->j[lv].n; i++) {
			const struct fd_pair *p = &a->j[lv].p[i];

			if (isnan(p->ratio))
				continue;
			lo = fmin(lo, fmin((double)p->e->t, (double)p->s->t) / 1e6);
			hi = fmax(hi, fmax((double)p->e->t, (double)p->s->t) / 1e6);
		}
	fprintf(fp, "set title 'simulated against emulated (log-log; on the line: equal)'\n"
		    "set xlabel 'emulated (ms)'\nset ylabel 'simulated (ms)'\n"
		    "set logscale xy\nset grid\nset key top left\nset size square\n");
	if (hi > 0)
		fprintf(fp, "set xrange [%g:%g]\nset yrange [%g:%g]\n", lo / 1.5, hi * 1.5,
			lo / 1.5, hi * 1.5);
	for (g = 0; g < ARRAY_SIZE(paths) + 2; g++) {
		fprintf(fp, "$d%zu << EOD\n", g);
		lv = g < ARRAY_SIZE(paths) ? LV_FLOW : g == ARRAY_SIZE(paths) ? LV_COFLOW : LV_JOB;
		for (i = 0; a->have[lv] && i < a->j[lv].n; i++) {
			const struct fd_pair *p = &a->j[lv].p[i];

			if (isnan(p->ratio) || (lv == LV_FLOW && strcmp(p->e->path, paths[g])))
				continue;
			fprintf(fp, "%.9g %.9g\n", (double)p->e->t / 1e6, (double)p->s->t / 1e6);
		}
		fprintf(fp, "0 0\nEOD\n"); /* (never drawn on log axes: no empty block) */
	}
	fprintf(fp, "plot x title 'equal' with lines lc rgb '#888888' dt 2");
	for (g = 0; g < ARRAY_SIZE(paths); g++)
		fprintf(fp, ", $d%zu using 1:2 title 'FCT, %s' with points pt 7 ps 0.6", g, paths[g]);
	fprintf(fp, ", $d%zu using 1:2 title 'CCT' with points pt 5 ps 1.0", ARRAY_SIZE(paths));
	fprintf(fp, ", $d%zu using 1:2 title 'JCT' with points pt 9 ps 1.2\n", ARRAY_SIZE(paths) + 1);
}

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: hyde fidelity EMUL_RUN SIM_RUN [SIM_RUN...] [-o DIR] [-q]\n\n"
		"How far a simulation is from an emulated run: flows joined by name\n"
		"(flows.csv's name: job, kind, task, map or read or hop, source host),\n"
		"coflows and jobs by job id. For every pair timed on both sides (FCT, CCT,\n"
		"JCT above 0): the ratio emulated / simulated (above 1: the emulation was\n"
		"slower than the model) and the error |simulated - emulated| / emulated;\n"
		"median, p90 (nearest rank) and the worst error, over all pairs, over\n"
		"the flows between hosts (all but same-host: the network model's), and\n"
		"those of 100KB or more, by the\n"
		"emulated flow's path (eps, ocs, rack, host), by size class (<100KB,\n"
		"100KB-1MB, 1MB-10MB, >=10MB), by kind, coflows by their bytes (<1MB,\n"
		"1MB-10MB, 10MB-100MB, >=100MB) and jobs by class; the flows over a\n"
		"circuit also by how many of its windows (its times up, each run's\n"
		"events.log) they met in EMUL_RUN against SIM_RUN: more (ocs windows +,\n"
		"they waited for a later one), as many (=) or fewer (-). SIM_RUN is\n"
		"usually hyde sim --replay EMUL_RUN (the decisions held equal; it has no\n"
		"jobs.csv, so no JCT) or hyde sim with the same inputs and seed (free\n"
		"decisions: flows join only where the decisions agreed). Then the task\n"
		"starts of both events.log are joined too (job, kind, index: host): how\n"
		"many were on the same host, and CCT and JCT also for the jobs placed\n"
		"alike (every task on the same host) and those placed otherwise.\n\n"
		"With several SIM_RUNs, draws of the model for the same decisions (replays\n"
		"of EMUL_RUN with share_jitter drawn by jitter_seed 1..K: hyde-sim(1)), each\n"
		"flow's, coflow's and job's simulated time is its median over them\n"
		"(nearest rank; a run in which it did not end counts as longer than any),\n"
		"and a name not in every one is left out: the model's median prediction\n"
		"where TCP's uneven share of a link is a draw it does not know (a flow's\n"
		"circuit windows: those of the run its median time is from). With three\n"
		"or more, the model's own spread too: each SIM_RUN against the median of\n"
		"the others, over the flows between hosts, its ratio's median and p90\n"
		"(least, greatest, and the median p90 over them), and where EMUL_RUN's p90\n"
		"lies against theirs: within, above every draw's (the emulation is further\n"
		"from the model than one draw of the model is), or below.\n\n"
		"  -o, --out DIR         where fidelity.csv (every joined pair: level, name,\n"
		"                        kind, path, bytes, emul_ns, sim_ns, ratio; -1: not\n"
		"                        timed on both) and fidelity.png (simulated against\n"
		"                        emulated, log-log) go (default the first SIM_RUN)\n"
		"  -q, --quiet           no tables\n\n"
		"Exit status: 0 done, 2 bad usage or input (nothing written).\n");
}

/* Whether the map (key "JOB map I") read its input over the network in
 * this run: an input flow named JOB/input/mI/... on a path other than the
 * host's own. */
static bool map_read_input(const struct fd_set *flows, const char *key)
{
	char job[128], idx[32], pre[192];
	size_t lo = 0, hi = flows->n, n;

	if (sscanf(key, "%127s map %31s", job, idx) != 2)
		return false;
	n = (size_t)snprintf(pre, sizeof(pre), "%s/input/m%s/", job, idx);
	/* the flows are sorted by name (read_set): the first at or after pre */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(flows->r[mid].name, pre) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < flows->n && !strncmp(flows->r[lo].name, pre, n); lo++)
		if (!strcmp(flows->r[lo].kind, "input") && strcmp(flows->r[lo].path, "host"))
			return true;
	return false;
}

static void human_signed(double ns, char *buf, size_t len)
{
	if (ns < 0) {
		buf[0] = '-';
		unit_human_time(-ns, buf + 1, len - 1);
	} else
		unit_human_time(ns, buf, len);
}

/* What the model's -B task_overhead and task_jitter stand for, as
 * measured: the maps that ran on the same host in both runs and read
 * nothing over the network (their time is their work and the process's
 * own), each one's time in EMUL_RUN less its time in SIM_RUN. Nothing
 * without such maps (a replay, other placements). */
static void report_task_delays(const char *const dir[2], const struct fd_tasks t[2],
			       const struct fd_set *fe, const struct fd_set *fs)
{
	double *d = xmalloc((t[0].n + 1) * sizeof(double));
	char a[32], b[32], c[32], m[32], ov[64], ji[64];
	size_t n = 0, x = 0, y = 0, early = 0, i;

	while (x < t[0].n && y < t[1].n) {
		const struct fd_task *e = &t[0].t[x], *s = &t[1].t[y];
		int k = strcmp(e->key, s->key);

		if (k) {
			k < 0 ? x++ : y++;
			continue;
		}
		x++;
		y++;
		if (!strstr(e->key, " map ") || strcmp(e->host, s->host) || e->end < 0 || s->end < 0 ||
		    map_read_input(fe, e->key) || map_read_input(fs, e->key))
			continue;
		d[n++] = (double)(e->end - e->start) - (double)(s->end - s->start);
	}
	if (n) {
		xqsort(d, n, sizeof(double), cmp_double);
		for (i = 0; i < n; i++)
			early += d[i] < 0;
		human_signed(pct(d, n, 0.5), m, sizeof(m));
		human_signed(pct(d, n, 0.1), a, sizeof(a));
		human_signed(pct(d, n, 0.9), b, sizeof(b));
		human_signed(d[n - 1], c, sizeof(c));
		read_backend_opt(dir[1], "task_overhead", ov, sizeof(ov));
		read_backend_opt(dir[1], "task_jitter", ji, sizeof(ji));
		printf("Tasks: %zu maps ran on the same host in both runs and read nothing over the network; each took a median %s longer in EMUL_RUN than in SIM_RUN (p10 %s, p90 %s, most %s; %zu shorter); the model's -B task_overhead: %s, task_jitter: %s\n\n",
		       n, m, a, b, c, early, ov, ji);
	}
	free(d);
}

/* The join of two runs: printed unless quiet, its files in out, its
 * overall figures in *fs (may be NULL). 0; EXIT_USAGE with a message on
 * bad input (nothing written); EXIT_RUN_FAILED if a file cannot be
 * written. */
int fidelity_run(const char *emul, const char *sim, const char *out, bool quiet,
		 struct fidelity_summary *fs)
{
	return fidelity_run_n(emul, &sim, 1, out, quiet, fs);
}

/* The simulated side of one level: SIM_RUN's set, or with several the
 * median of theirs (*partial: names not in every one). 0, or -EINVAL
 * with errbuf set. */
static int read_sim_set(const char *const *sims, size_t nsim, int lv, struct fd_set *out,
			size_t *partial, struct fd_set **each, char *errbuf)
{
	struct fd_set *ss;
	size_t k;
	int r = 0;

	*partial = 0;
	if (each)
		*each = NULL;
	if (nsim == 1)
		return read_set(sims[0], lv, out, errbuf);
	ss = xcalloc(nsim, sizeof(*ss));
	for (k = 0; k < nsim && !r; k++)
		r = read_set(sims[k], lv, &ss[k], errbuf);
	for (k = 1; k < nsim && !r; k++)
		if (ss[k].present != ss[0].present) {
			errbuf_set(errbuf, "%s has %s and %s has none: not runs of the same kind",
				   sims[ss[0].present ? 0 : k], RUNDIR_JOBS, sims[ss[0].present ? k : 0]);
			r = -EINVAL;
		}
	if (!r)
		median_set(ss, nsim, out, partial);
	if (!r && each) { /* each run's set, to the caller */
		*each = ss;
		return 0;
	}
	for (k = 0; k < nsim; k++)
		set_free(&ss[k]);
	free(ss);
	return r;
}

int fidelity_run_n(const char *emul, const char *const *sims, size_t nsim, const char *out,
		   bool quiet, struct fidelity_summary *fs)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	const char *dir[2] = { emul, sims[0] };
	size_t partial[LV_N] = { 0 }, i;
	struct fd_set sets[2][LV_N], *each = NULL;
	struct fd_spread spread;
	struct fd_stat hst;
	struct fd_tasks tasks[2];
	struct fd_placement place;
	struct fd_all all;
	struct stat sb;
	int lv, r = 0, k;
	char *csv = NULL, *png = NULL, *tmp = NULL;

	memset(sets, 0, sizeof(sets));
	memset(tasks, 0, sizeof(tasks));
	memset(&place, 0, sizeof(place));
	memset(&all, 0, sizeof(all));
	if (fs)
		memset(fs, 0, sizeof(*fs));
	for (i = 0; i <= nsim; i++)
		if (stat(i ? sims[i - 1] : emul, &sb) || !S_ISDIR(sb.st_mode)) {
			fprintf(stderr, "hyde fidelity: %s: not a run directory\n", i ? sims[i - 1] : emul);
			return EXIT_USAGE;
		}
	if (stat(out, &sb) || !S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "hyde fidelity: -o %s: not a directory\n", out);
		return EXIT_USAGE;
	}
	for (lv = 0; lv < LV_N; lv++)
		for (k = 0; k < 2; k++)
			if (k ? read_sim_set(sims, nsim, lv, &sets[k][lv], &partial[lv],
					     lv == LV_FLOW ? &each : NULL, errbuf) :
				read_set(dir[k], lv, &sets[k][lv], errbuf)) {
				fprintf(stderr, "hyde fidelity: %s\n", errbuf);
				r = EXIT_USAGE;
				goto out;
			}
	for (lv = 0; lv < LV_N; lv++) {
		all.have[lv] = sets[0][lv].present && sets[1][lv].present;
		if (all.have[lv])
			join(&sets[0][lv], &sets[1][lv], &all.j[lv]);
	}
	if (!all.j[LV_FLOW].n) {
		fprintf(stderr, "hyde fidelity: %s and %s have no flow in common (by name): not runs of the same inputs\n",
			dir[0], dir[1]);
		r = EXIT_USAGE;
		goto out;
	}
	model_spread(each, each ? nsim : 0, &spread);
	{
		const struct fd_pair **v = xmalloc((all.j[LV_FLOW].n + 1) * sizeof(*v));

		hosts_stats(&all.j[LV_FLOW], v, &hst);
		free(v);
	}
	for (k = 0; k < 2; k++)
		read_tasks(dir[k], &tasks[k]);
	placement(&tasks[0], &tasks[1], &place);
	if (!quiet) {
		if (nsim == 1)
			printf("hyde fidelity: %s (emulated) against %s (simulated)\n", dir[0], dir[1]);
		else {
			printf("hyde fidelity: %s (emulated) against the median of %zu simulated runs:", dir[0],
			       nsim);
			for (i = 0; i < nsim; i++)
				printf(" %s", sims[i]);
			printf("\nsimulated: each flow's, coflow's and job's time is its median over the %zu (nearest rank; a run in which it did not end counts as longer than any); left out, not in every one of them: %zu flows, %zu coflows, %zu jobs; decisions and task times below: the first's\n",
			       nsim, partial[LV_FLOW], partial[LV_COFLOW], partial[LV_JOB]);
		}
		printf("ratio: emulated / simulated (above 1: the emulation slower); |err|: |sim - emul| / emul\n\n");
		report_options(dir[0], dir[1]);
		if (place.known)
			printf("Decisions: %zu task starts in both runs, %zu on the same host (%.1f%%), %zu in one run only; %zu of %zu jobs placed alike (every task on the same host)\n\n",
			       place.both, place.same,
			       place.both ? 100.0 * (double)place.same / (double)place.both : 0.0,
			       place.only, place.n_alike, place.n_jobs);
		{
			int64_t fb;
			size_t nfb;
			char a[32], b[32], setup[64], ms[32];

			/* what the model's -B setup stands for, as measured */
			if (rundir_first_byte(dir[0], &fb, &nfb)) {
				read_backend_opt(dir[1], "setup", setup, sizeof(setup));
				read_backend_line(dir[1], " backend_derived", "setup", ms, sizeof(ms));
				if (strcmp(ms, "none")) /* -B measured_setup: what it took */
					snprintf(setup, sizeof(setup), "%s, the run's own (measured_setup)",
						 unit_human_time((double)strtoll(ms, NULL, 10), b, sizeof(b)));
				printf("Set-up: the emulated flows under 100 KB had their first data byte a median %s after their SYN (%zu flows, hyde analyze); the model's -B setup: %s\n\n",
				       unit_human_time((double)fb, a, sizeof(a)), nfb, setup);
			}
		}
		report_task_delays(dir, tasks, &sets[0][LV_FLOW], &sets[1][LV_FLOW]);
		for (lv = 0; lv < LV_N; lv++) {
			if (all.have[lv])
				report_level(lv, &all.j[lv], &place);
			else
				printf("%s: not compared: %s has no %s\n", lv_metric[lv],
				       sets[0][lv].present ? dir[1] : dir[0], RUNDIR_JOBS);
			printf("\n");
			if (lv == LV_FLOW)
				print_spread(&spread, nsim, &hst);
		}
	}
	if (fs) {
		fs->flows_e = sets[0][LV_FLOW].n;
		fs->flows_s = sets[1][LV_FLOW].n;
		fs->jobs_alike = place.n_alike;
		fs->jobs_placed = place.n_jobs;
		fs->untimed_s = all.j[LV_FLOW].untimed_s;
		fs->hosts_n = hst.n;
		fs->hosts_med = hst.n ? hst.r_med : NAN;
		fs->hosts_p90 = hst.n ? hst.r_p90 : NAN;
		fs->spread_n = spread.n;
		fs->spread_p90 = spread.n ? spread.p90[1] : NAN;
		for (lv = 0; lv < LV_N; lv++) {
			const struct fd_pair **v = xmalloc((all.j[lv].n + 1) * sizeof(*v));
			struct fd_stat st;
			size_t n = 0;

			for (i = 0; all.have[lv] && i < all.j[lv].n; i++)
				if (!isnan(all.j[lv].p[i].ratio))
					v[n++] = &all.j[lv].p[i];
			stats(v, n, &st);
			fs->joined[lv] = all.j[lv].n;
			fs->n[lv] = st.n;
			fs->ratio_med[lv] = st.n ? st.r_med : NAN;
			fs->ratio_p90[lv] = st.n ? st.r_p90 : NAN;
			free(v);
		}
	}
	csv = xasprintf("%s/fidelity.csv", out);
	if (cli_write_file(csv, write_csv, &all, errbuf)) {
		fprintf(stderr, "hyde fidelity: %s\n", errbuf);
		r = EXIT_RUN_FAILED;
		goto out;
	}
	png = xasprintf("%s/fidelity.png", out);
	tmp = xasprintf("%s/fidelity.tmp.png", out);
	{
		struct fd_plot pl = { &all, tmp };
		int e = plot_script(tmp, scatter_body, &pl, errbuf);

		if (e == -ENOENT) {
			fprintf(stderr, "hyde fidelity: fidelity.png not drawn: no gnuplot\n");
			free(png);
			png = xstrdup("no fidelity.png (no gnuplot)");
		} else if (e || rename(tmp, png)) {
			fprintf(stderr, "hyde fidelity: %s: %s\n", png, e ? errbuf : strerror(errno));
			unlink(tmp);
			r = EXIT_RUN_FAILED;
			goto out;
		}
	}
	if (!quiet)
		printf("written: %s, %s\n", csv, png);
out:
	for (lv = 0; lv < LV_N; lv++) {
		for (k = 0; k < 2; k++)
			set_free(&sets[k][lv]);
		free(all.j[lv].p);
	}
	for (i = 0; each && i < nsim; i++)
		set_free(&each[i]);
	free(each);
	for (k = 0; k < 2; k++)
		tasks_free(&tasks[k]);
	placement_free(&place);
	free(csv);
	free(png);
	free(tmp);
	return r;
}

int cmd_fidelity(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	bool quiet = false;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:qh", lo, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind < 2)
		return cli_usage_error("fidelity", "expected two run directories or more, EMUL_RUN and SIM_RUN...");
	return fidelity_run_n(argv[optind], (const char *const *)argv + optind + 1,
			      (size_t)(argc - optind - 1), out ? out : argv[optind + 1], quiet, NULL);
}
