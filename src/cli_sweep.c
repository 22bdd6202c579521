/* hyde sweep: a grid of simulation runs from a spec file.
 *
 * The spec names values per dimension (topologies, workloads, schedulers,
 * seeds, scheduler options, hyde sim options); the grid is every
 * combination, each an independent `hyde sim` with its own run directory
 * under OUT/runs/. The sweep writes, before anything runs:
 *   OUT/spec          the spec as given;
 *   OUT/sweep.csv     one line per run: id, directory, group (the run
 *                     without its seed), label, the value of every
 *                     dimension;
 *   OUT/commands.txt  line i: the shell command of run i (absolute paths,
 *                     output to the run's .log): what GNU parallel or a
 *                     Slurm array task executes;
 *   OUT/slurm.sh      a job array script, task i runs line i + 1.
 * Then it runs them here (-j processes at once, default one per core),
 * through GNU parallel (--parallel, with --sshloginfile for other
 * machines sharing the file system), or submits the array (--slurm); or
 * stops there (--dry-run). A run whose events.log ends with "run_end ok"
 * (or "run_end horizon") is done and not run again: a sweep stopped half-way resumes. `hyde
 * compare --from OUT -o DIR` reads the finished runs wherever they ran. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "ctl/backend.h"
#include "core/cluster.h"
#include "core/topo.h"
#include "core/units.h"
#include "core/util.h"
#include "core/workload.h"
#include "ctl/sched_host.h"
#include "net/netsched.h"

enum dim_kind {
	D_TOPO,	 /* -t */
	D_WL,	 /* -w */
	D_SCHED, /* -s NAME[:KEY=VALUE...] */
	D_SET,	 /* -S KEY=VALUE */
	D_OPT,	 /* --NAME VALUE */
	D_FLAG,	 /* --NAME when yes */
	D_BOPT,	 /* -B KEY=VALUE: the simulator's own options */
	D_SEED,	 /* --seed */
};

struct dim {
	enum dim_kind kind;
	char *key;    /* D_SET: the option; D_OPT, D_FLAG: the long option;
		       * D_BOPT: the backend option */
	char **vals;
	size_t n;
	unsigned line;
};

struct sweep_run {
	size_t *pick; /* per dimension: the value's index */
	char *label, *group, *dir, *log;
	char **argv;
	int argc;
	pid_t pid;
	int64_t t0;
	bool ok;
};

struct sweep {
	const char *path;
	struct dim *d;
	size_t nd;
	char *out;
	struct sweep_run *runs;
	size_t n_runs;
	char *hyde; /* the executable the commands run */
};

/* hyde sim options a sweep may set, and how their values are checked. */
static const struct {
	const char *name;
	enum dim_kind kind;
	const char *what;
} sim_options[] = {
	{ "circuits", D_OPT, "sunflow, greedy or none" },
	{ "heartbeat", D_OPT, "a time (0: none)" },
	{ "copies", D_OPT, "a number from 1 up" },
	{ "rates", D_OPT, "maxmin, fcfs, srpt or las" },
	{ "net", D_OPT, "fair, fcfs, srpt or las" },
	{ "coflow", D_OPT, "varys, scf, fcfs, fair or none" },
	{ "ocs-fetch", D_OPT, "circuit or copies" },
	{ "fetch-order", D_OPT, "fifo or random" },
	{ "rate-quantum", D_OPT, "a time" },
	{ "horizon", D_OPT, "a time over 0" },
	{ "no-io", D_FLAG, "yes or no" },
	{ "coflow-only", D_FLAG, "yes or no" },
};

static volatile sig_atomic_t sweep_interrupted;

static void sweep_on_signal(int sig)
{
	(void)sig;
	sweep_interrupted = 1;
}

static void sweep_usage(FILE *fp)
{
	fprintf(fp,
		"usage: hyde sweep SPEC [-o DIR] [-j N] [--dry-run | --parallel\n"
		"          [--sshloginfile FILE] | --slurm] [--hyde PATH] [-q]\n\n"
		"Expand a grid of simulation runs (topologies x workloads x schedulers x\n"
		"option values x seeds) into independent hyde sim runs, each with its own\n"
		"run directory, and run them: here, one per core; through GNU parallel,\n"
		"on this machine or others (--sshloginfile); or as a Slurm job array.\n"
		"Runs already done are not run again. Read the results with\n"
		"'hyde compare --from DIR -o OUT'.\n\n"
		"The spec, one dimension per line (KEY VALUE..., '#' starts a comment):\n"
		"  topology FILE...        topologies (-t)\n"
		"  workload SPEC...        workloads (-w: a .wl file, swim:TRACE, coflow:TRACE,\n"
		"                          gen:fb,... or gen:dag,..., drawn with each run's seed)\n"
		"  scheduler SPEC...       NAME[:KEY=VALUE...] (-s and its -S), as hyde compare\n"
		"  seed N...               seeds; A..B for a range (default 1)\n"
		"  set KEY VALUE...        a scheduler option for every scheduler (-S KEY=VALUE)\n"
		"  option NAME VALUE...    a hyde sim option: circuits, heartbeat, copies, rates,\n"
		"                          net, coflow, ocs-fetch, fetch-order, rate-quantum,\n"
		"                          horizon (a value), no-io, coflow-only (yes/no)\n"
		"  backend KEY VALUE...    a simulator option (-B KEY=VALUE: hyde sim --help\n"
		"                          lists them), e.g. backend fetch host rack\n"
		"  out DIR                 where the sweep goes (default runs/sweep-DATE-TIME)\n"
		"topology, workload and scheduler are required; a dimension with one value\n"
		"is the same for every run. Paths are relative to the current directory.\n\n"
		"  -o, --out DIR           instead of the spec's out\n"
		"  -j, --jobs N            runs at once (default: the cores here; --parallel:\n"
		"                          per machine, GNU parallel's -j)\n"
		"  -n, --dry-run           write sweep.csv, commands.txt, slurm.sh; run nothing\n"
		"      --parallel          run commands.txt with GNU parallel (parallel(1))\n"
		"      --sshloginfile FILE GNU parallel's: the machines to run on (they need\n"
		"                          this hyde and these paths: a shared file system)\n"
		"      --slurm             submit slurm.sh (sbatch, a job array)\n"
		"      --hyde PATH         the hyde the commands run (default: this one)\n"
		"  -q, --quiet             no progress lines\n\n"
		"Exit status: 0 every run done, 1 a run failed, 2 bad usage or input.\n");
}

/* ---- the spec ---- */

static void dims_free(struct sweep *sw)
{
	size_t i, k;

	for (i = 0; i < sw->nd; i++) {
		for (k = 0; k < sw->d[i].n; k++)
			free(sw->d[i].vals[k]);
		free(sw->d[i].vals);
		free(sw->d[i].key);
	}
	free(sw->d);
	for (i = 0; i < sw->n_runs; i++) {
		struct sweep_run *r = &sw->runs[i];

		free(r->pick);
		free(r->label);
		free(r->group);
		free(r->dir);
		free(r->log);
		for (k = 0; k < (size_t)r->argc; k++)
			free(r->argv[k]);
		free(r->argv);
	}
	free(sw->runs);
	free(sw->out);
	free(sw->hyde);
}

static struct dim *dim_of(struct sweep *sw, enum dim_kind kind, const char *key)
{
	size_t i;

	for (i = 0; i < sw->nd; i++)
		if (sw->d[i].kind == kind && (!key || !strcmp(sw->d[i].key, key)))
			return &sw->d[i];
	return NULL;
}

static void dim_add_val(struct dim *d, const char *v)
{
	d->vals = xrealloc(d->vals, (d->n + 1) * sizeof(*d->vals));
	d->vals[d->n++] = xstrdup(v);
}

/* A value as its dimension wants it; errbuf says why not. */
static int check_value(const struct dim *d, const char *v, char *errbuf)
{
	char msg[HYDE_ERRBUF_SIZE];
	uint64_t u;
	int64_t t;

	switch (d->kind) {
	case D_SEED:
		if (parse_uint(v, 0, UINT64_MAX, &u)) {
			errbuf_set(errbuf, "seed: expected a number or A..B, got '%s'", v);
			return -EINVAL;
		}
		return 0;
	case D_SET:
		return 0; /* checked with each scheduler, below */
	case D_FLAG:
		if (strcmp(v, "yes") && strcmp(v, "no")) {
			errbuf_set(errbuf, "option %s: expected yes or no, got '%s'", d->key, v);
			return -EINVAL;
		}
		return 0;
	case D_OPT:
		if (!strcmp(d->key, "circuits") && strcmp(v, "sunflow") && strcmp(v, "greedy") &&
		    strcmp(v, "none"))
			break;
		if (!strcmp(d->key, "rates") && strcmp(v, "maxmin") && strcmp(v, "fcfs") &&
		    strcmp(v, "srpt") && strcmp(v, "las"))
			break;
		if (!strcmp(d->key, "net") && (netsched_net_parse(v) < 0 || !strcmp(v, "maxmin")))
			break;
		if (!strcmp(d->key, "coflow") && netsched_coflow_parse(v) < 0)
			break;
		if (!strcmp(d->key, "ocs-fetch") && strcmp(v, "circuit") && strcmp(v, "copies"))
			break;
		if (!strcmp(d->key, "fetch-order") && strcmp(v, "fifo") && strcmp(v, "random"))
			break;
		if (!strcmp(d->key, "copies") && parse_uint(v, 1, 1000000, &u))
			break;
		if ((!strcmp(d->key, "heartbeat") || !strcmp(d->key, "rate-quantum")) &&
		    strcmp(v, "0") && (unit_parse_time(v, &t) || t < 0))
			break;
		if (!strcmp(d->key, "horizon") && (unit_parse_time(v, &t) || t <= 0))
			break;
		return 0;
	case D_TOPO: {
		struct topo *tp;

		if (topo_load(v, &tp, msg)) {
			errbuf_set(errbuf, "topology %s", msg);
			return -EINVAL;
		}
		topo_free(tp);
		return 0;
	}
	case D_WL: {
		struct workload *wl;

		if (wl_open(v, &wl, msg)) {
			errbuf_set(errbuf, "workload %s", msg);
			return -EINVAL;
		}
		wl_free(wl);
		return 0;
	}
	case D_SCHED:
		return 0; /* with the options, below */
	case D_BOPT: {
		char *kv = xasprintf("%s=%s", d->key, v);
		int r = backend_opts_check(&backend_sim, &kv, 1, msg);

		/* (a replay's only: a sweep's runs replay nothing) */
		if (!r && !strcmp(d->key, "measured_setup")) {
			snprintf(msg, sizeof(msg), "measured_setup: only for hyde sim --replay (a sweep's runs replay no run)");
			r = -EINVAL;
		}

		free(kv);
		if (r) {
			errbuf_set(errbuf, "%s", msg);
			return -EINVAL;
		}
		return 0;
	}
	}
	{
		size_t i;

		for (i = 0; i < ARRAY_SIZE(sim_options); i++)
			if (!strcmp(sim_options[i].name, d->key))
				errbuf_set(errbuf, "option %s: expected %s, got '%s'", d->key,
					   sim_options[i].what, v);
	}
	return -EINVAL;
}

/* One line of the spec: KEY VALUE... */
static int spec_line(struct sweep *sw, char **f, int nf, unsigned line, char *errbuf)
{
	static const struct {
		const char *key;
		enum dim_kind kind;
	} keys[] = {
		{ "topology", D_TOPO }, { "workload", D_WL }, { "scheduler", D_SCHED },
		{ "seed", D_SEED },
	};
	enum dim_kind kind;
	const char *key = NULL;
	struct dim *d;
	size_t i;
	int first = 1, k;

	if (!strcmp(f[0], "out")) {
		if (nf != 2) {
			errbuf_set(errbuf, "out: expected one directory");
			return -EINVAL;
		}
		if (sw->out) {
			errbuf_set(errbuf, "out is given twice");
			return -EINVAL;
		}
		sw->out = xstrdup(f[1]);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strcmp(f[0], keys[i].key))
			break;
	if (i < ARRAY_SIZE(keys)) {
		kind = keys[i].kind;
	} else if (!strcmp(f[0], "set")) {
		if (nf < 2 || strchr(f[1], '=')) {
			errbuf_set(errbuf, "set: expected a scheduler option's name, then its values");
			return -EINVAL;
		}
		kind = D_SET;
		key = f[1];
		first = 2;
	} else if (!strcmp(f[0], "option")) {
		for (i = 0; nf >= 2 && i < ARRAY_SIZE(sim_options); i++)
			if (!strcmp(sim_options[i].name, f[1]))
				break;
		if (nf < 2 || i == ARRAY_SIZE(sim_options)) {
			errbuf_set(errbuf, "option: expected one of circuits, heartbeat, copies, rates, net, coflow, ocs-fetch, fetch-order, rate-quantum, horizon, no-io, coflow-only, got '%s'",
				   nf < 2 ? "" : f[1]);
			return -EINVAL;
		}
		kind = sim_options[i].kind;
		key = f[1];
		first = 2;
	} else if (!strcmp(f[0], "backend")) {
		if (nf < 2 || strchr(f[1], '=')) {
			errbuf_set(errbuf, "backend: expected a simulator option's name, then its values");
			return -EINVAL;
		}
		kind = D_BOPT;
		key = f[1];
		first = 2;
	} else {
		errbuf_set(errbuf, "unknown key '%s' (expected topology, workload, scheduler, seed, set, option, backend or out)",
			   f[0]);
		return -EINVAL;
	}
	if (nf <= first) {
		errbuf_set(errbuf, "%s: expected at least one value", key ? key : f[0]);
		return -EINVAL;
	}
	if (dim_of(sw, kind, key)) {
		errbuf_set(errbuf, "%s%s%s is given twice (list its values on one line)", f[0],
			   key ? " " : "", key ? key : "");
		return -EINVAL;
	}
	sw->d = xrealloc(sw->d, (sw->nd + 1) * sizeof(*sw->d));
	d = &sw->d[sw->nd++];
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->key = key ? xstrdup(key) : NULL;
	d->line = line;
	for (k = first; k < nf; k++) {
		char *dots = kind == D_SEED ? strstr(f[k], "..") : NULL;
		uint64_t a, b, s;
		size_t j;

		if (dots) { /* a range of seeds */
			*dots = '\0';
			if (parse_uint(f[k], 0, UINT64_MAX, &a) || parse_uint(dots + 2, 0, UINT64_MAX, &b) ||
			    b < a || b - a > 100000) {
				errbuf_set(errbuf, "seed: expected A..B with A <= B, got '%s..%s'", f[k],
					   dots + 2);
				return -EINVAL;
			}
			for (s = a; s <= b; s++) {
				char num[32];

				snprintf(num, sizeof(num), "%llu", (unsigned long long)s);
				dim_add_val(d, num);
			}
		} else {
			if (check_value(d, f[k], errbuf))
				return -EINVAL;
			dim_add_val(d, f[k]);
		}
		for (j = 0; j + 1 < d->n; j++)
			for (i = j + 1; i < d->n; i++)
				if (!strcmp(d->vals[i], d->vals[j])) {
					errbuf_set(errbuf, "%s: '%s' is listed twice",
						   key ? key : f[0], d->vals[i]);
					return -EINVAL;
				}
	}
	return 0;
}

/* The scheduler specs, with every value of every `set` option: each must
 * be one the scheduler takes. */
static int check_schedulers(struct sweep *sw, char *errbuf)
{
	struct dim *sd = dim_of(sw, D_SCHED, NULL);
	size_t i;

	for (i = 0; i < sd->n; i++) {
		char *spec = xstrdup(sd->vals[i]), *save = NULL, *name = strtok_r(spec, ":", &save);
		char *kv[64], msg[HYDE_ERRBUF_SIZE];
		int n = 0, r = 0;
		struct hyde_sched *s;
		size_t j, v;

		while (n < 60 && (kv[n] = strtok_r(NULL, ":", &save)))
			n++;
		if (!name) {
			errbuf_set(errbuf, "scheduler: expected NAME[:KEY=VALUE...], got '%s'", sd->vals[i]);
			free(spec);
			return -EINVAL;
		}
		/* each set option's values, one at a time, after the spec's */
		for (j = 0; j < sw->nd && !r; j++) {
			if (sw->d[j].kind != D_SET)
				continue;
			for (v = 0; v < sw->d[j].n && !r; v++) {
				char *one = xasprintf("%s=%s", sw->d[j].key, sw->d[j].vals[v]);

				kv[n] = one;
				if ((r = sched_new(name, kv, n + 1, &s, msg)))
					errbuf_set(errbuf, "line %u: %s", sw->d[j].line, msg);
				else
					sched_free(s);
				free(one);
			}
		}
		if (!r && (r = sched_new(name, kv, n, &s, msg)))
			errbuf_set(errbuf, "scheduler '%s': %s", sd->vals[i], msg);
		else if (!r)
			sched_free(s);
		free(spec);
		if (r)
			return -EINVAL;
	}
	return 0;
}

static int spec_load(struct sweep *sw, const char *path, char *errbuf)
{
	static const char *const need[] = { "topology", "workload", "scheduler" };
	static const enum dim_kind need_kind[] = { D_TOPO, D_WL, D_SCHED };
	FILE *fp = fopen(path, "r");
	char *line = NULL, *f[1024];
	size_t cap = 0, i;
	unsigned no = 0;
	long len;
	int r = 0;

	if (!fp) {
		errbuf_set(errbuf, "%s: %s", path, strerror(errno));
		return -errno;
	}
	while ((len = read_line(fp, &line, &cap)) >= 0) {
		char msg[HYDE_ERRBUF_SIZE];
		int nf;

		no++;
		nf = str_split_fields(line, f, (int)ARRAY_SIZE(f));
		if (!nf)
			continue;
		if (nf >= (int)ARRAY_SIZE(f)) {
			errbuf_set(errbuf, "%s:%u: too many values on one line", path, no);
			r = -EINVAL;
			break;
		}
		if (spec_line(sw, f, nf, no, msg)) {
			errbuf_set(errbuf, "%s:%u: %s", path, no, msg);
			r = -EINVAL;
			break;
		}
	}
	if (!r && len == -2) {
		errbuf_set(errbuf, "%s:%u: not a text file", path, no + 1);
		r = -EINVAL;
	}
	free(line);
	fclose(fp);
	for (i = 0; !r && i < ARRAY_SIZE(need); i++)
		if (!dim_of(sw, need_kind[i], NULL)) {
			errbuf_set(errbuf, "%s: no '%s' line (expected at least one %s)", path, need[i],
				   need[i]);
			r = -EINVAL;
		}
	if (!r && !dim_of(sw, D_SEED, NULL)) {
		char *one[] = { "seed", "1" };

		r = spec_line(sw, one, 2, 0, errbuf);
	}
	if (!r && check_schedulers(sw, errbuf)) {
		char msg[HYDE_ERRBUF_SIZE];

		snprintf(msg, sizeof(msg), "%s", errbuf);
		errbuf_set(errbuf, "%.100s: %.400s", path, msg);
		r = -EINVAL;
	}
	return r;
}

/* ---- the grid ---- */

/* An absolute path for a file, keeping a workload's swim:/coflow: prefix
 * and its ,options. */
static char *abs_spec(const char *v)
{
	const char *p = v, *colon = strchr(v, ':');
	char *file, *comma, *abs, *out;

	if (colon && (!strncmp(v, "swim:", 5) || !strncmp(v, "coflow:", 7) || !strncmp(v, "wl:", 3)))
		p = colon + 1;
	file = xstrdup(p);
	comma = p != v ? strchr(file, ',') : NULL;
	if (comma)
		*comma = '\0';
	abs = realpath(file, NULL);
	if (!abs) {
		free(file);
		return xstrdup(v);
	}
	out = xasprintf("%.*s%s%s%s", (int)(p - v), v, abs, comma ? "," : "",
			comma ? p + (comma - file) + 1 : "");
	free(abs);
	free(file);
	return out;
}

/* What a topology or workload is called in labels: its file's name
 * without the directory nor the extension, a trace's without its import
 * options ("gen:fb" for gen:fb,jobs=4); whole (the base name with its
 * options), when short is false. */
static size_t file_name(const char *v, bool short_name, const char **start)
{
	const char *base = v, *p;
	size_t n;

	for (p = v; *p; p++)
		if (*p == '/')
			base = p + 1;
	*start = base;
	if (!short_name)
		return strlen(base);
	n = strcspn(base, ",");
	if (n > 3 && !strncmp(base + n - 3, ".wl", 3))
		n -= 3;
	else if (n > 5 && !strncmp(base + n - 5, ".topo", 5))
		n -= 5;
	return n;
}

static bool same_name(const char *a, const char *b, bool short_name)
{
	const char *sa, *sb;
	size_t na = file_name(a, short_name, &sa), nb = file_name(b, short_name, &sb);

	return na == nb && !strncmp(sa, sb, na);
}

/* A short name for value k of a dimension, for directory names and
 * labels, told apart from the dimension's other values: a topology or
 * workload whose short name another value shares is named with its
 * options (gen:fb,scale=0.1), and if that is shared too (one file name
 * in two directories) numbered by its place in the spec (rack8#2). */
static void short_name(const struct dim *d, size_t k, char *buf, size_t len)
{
	const char *v = d->vals[k], *start;
	bool shared = false, whole_shared = false;
	size_t j, n;

	switch (d->kind) {
	case D_TOPO:
	case D_WL:
		for (j = 0; j < d->n; j++)
			if (j != k && same_name(v, d->vals[j], true)) {
				shared = true;
				whole_shared |= same_name(v, d->vals[j], false);
			}
		n = file_name(v, !shared || whole_shared, &start);
		if (whole_shared)
			snprintf(buf, len, "%.*s#%zu", (int)n, start, k + 1);
		else
			snprintf(buf, len, "%.*s", (int)n, start);
		break;
	case D_SCHED:
		snprintf(buf, len, "%s", v);
		break;
	case D_SEED:
		snprintf(buf, len, "seed=%s", v);
		break;
	case D_FLAG:
		snprintf(buf, len, "%s%s", !strcmp(v, "yes") ? "" : "no-", d->key);
		break;
	default:
		snprintf(buf, len, "%s=%s", d->key, v);
		break;
	}
}

static char *sanitize(const char *s)
{
	char *o = xstrdup(s), *p;

	for (p = o; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("._=+-", *p)))
			*p = *p == ' ' ? '_' : '-';
	return o;
}

static void argv_add(struct sweep_run *r, const char *a)
{
	r->argv = xrealloc(r->argv, (size_t)(r->argc + 2) * sizeof(*r->argv));
	r->argv[r->argc++] = xstrdup(a);
	r->argv[r->argc] = NULL;
}

/* Run k of the grid: the last dimension (the seed) varies fastest. */
static void make_run(struct sweep *sw, size_t k, struct sweep_run *r)
{
	char label[2048] = "", group[2048] = "", part[512];
	size_t i, rem = k, n;
	char *dirname;

	r->pick = xcalloc(sw->nd, sizeof(size_t));
	for (i = sw->nd; i-- > 0;) {
		r->pick[i] = rem % sw->d[i].n;
		rem /= sw->d[i].n;
	}
	argv_add(r, sw->hyde);
	argv_add(r, "sim");
	for (i = 0; i < sw->nd; i++) {
		const struct dim *d = &sw->d[i];
		const char *v = d->vals[r->pick[i]];
		char *abs, *kv, *save = NULL, *spec, *tok;

		/* the label: the scheduler and what varies */
		if (d->kind == D_SCHED || d->n > 1) {
			short_name(d, r->pick[i], part, sizeof(part));
			n = strlen(label);
			snprintf(label + n, sizeof(label) - n, "%s%s", n ? " " : "", part);
			if (d->kind != D_SEED) {
				n = strlen(group);
				snprintf(group + n, sizeof(group) - n, "%s%s", n ? " " : "", part);
			}
		}
		switch (d->kind) {
		case D_TOPO:
		case D_WL:
			abs = abs_spec(v);
			argv_add(r, d->kind == D_TOPO ? "-t" : "-w");
			argv_add(r, abs);
			free(abs);
			break;
		case D_SCHED:
			spec = xstrdup(v);
			tok = strtok_r(spec, ":", &save);
			argv_add(r, "-s");
			if (sched_is_plugin(tok)) { /* runs start elsewhere: its whole path */
				abs = realpath(tok, NULL);
				argv_add(r, abs ? abs : tok);
				free(abs);
			} else {
				argv_add(r, tok);
			}
			while ((tok = strtok_r(NULL, ":", &save))) {
				argv_add(r, "-S");
				argv_add(r, tok);
			}
			free(spec);
			break;
		case D_SET:
			kv = xasprintf("%s=%s", d->key, v);
			argv_add(r, "-S");
			argv_add(r, kv);
			free(kv);
			break;
		case D_OPT:
			kv = xasprintf("--%s", d->key);
			argv_add(r, !strcmp(d->key, "circuits") ? "-C" : kv);
			argv_add(r, v);
			free(kv);
			break;
		case D_FLAG:
			if (!strcmp(v, "yes")) {
				kv = xasprintf("--%s", d->key);
				argv_add(r, kv);
				free(kv);
			}
			break;
		case D_BOPT:
			kv = xasprintf("%s=%s", d->key, v);
			argv_add(r, "-B");
			argv_add(r, kv);
			free(kv);
			break;
		case D_SEED:
			argv_add(r, "--seed");
			argv_add(r, v);
			break;
		}
	}
	r->label = xstrdup(label);
	r->group = xstrdup(group);
	dirname = sanitize(label);
	r->dir = xasprintf("%s/runs/%04zu_%s", sw->out, k, dirname);
	r->log = xasprintf("%s.log", r->dir);
	free(dirname);
	argv_add(r, "-o");
	argv_add(r, r->dir);
}

static int make_grid(struct sweep *sw)
{
	size_t n = 1, i;

	for (i = 0; i < sw->nd; i++) {
		if (n > 1000000 / sw->d[i].n)
			return -E2BIG;
		n *= sw->d[i].n;
	}
	sw->runs = xcalloc(n, sizeof(*sw->runs));
	sw->n_runs = n;
	for (i = 0; i < n; i++)
		make_run(sw, i, &sw->runs[i]);
	return 0;
}

/* Put the seed dimension last (it varies fastest: a group's runs are
 * neighbours), the others in the spec's order, topology first. */
static void order_dims(struct sweep *sw)
{
	static const enum dim_kind order[] = { D_TOPO, D_WL, D_SCHED, D_SET, D_OPT, D_FLAG, D_BOPT,
					       D_SEED };
	struct dim *d = xcalloc(sw->nd, sizeof(*d));
	size_t n = 0, i, k;

	for (k = 0; k < ARRAY_SIZE(order); k++)
		for (i = 0; i < sw->nd; i++)
			if (sw->d[i].kind == order[k])
				d[n++] = sw->d[i];
	free(sw->d);
	sw->d = d;
}

/* ---- files ---- */

/* A word for sh: single-quoted unless plain. */
static void sh_word(FILE *fp, const char *s)
{
	const char *p;

	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("/._=+-:,@%", *p)))
			break;
	if (*s && !*p) {
		fputs(s, fp);
		return;
	}
	fputc('\'', fp);
	for (p = s; *p; p++)
		if (*p == '\'')
			fputs("'\\''", fp);
		else
			fputc(*p, fp);
	fputc('\'', fp);
}

static void csv_field(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static int write_commands(FILE *fp, void *arg)
{
	const struct sweep *sw = arg;
	size_t i;
	int k;

	for (i = 0; i < sw->n_runs; i++) {
		const struct sweep_run *r = &sw->runs[i];

		for (k = 0; k < r->argc; k++) {
			if (k)
				fputc(' ', fp);
			sh_word(fp, r->argv[k]);
		}
		fputs(" >", fp);
		sh_word(fp, r->log);
		fputs(" 2>&1\n", fp);
	}
	return ferror(fp) ? -EIO : 0;
}

static const char *dim_column(const struct dim *d, char *buf, size_t len)
{
	static const char *const names[] = { [D_TOPO] = "topology", [D_WL] = "workload",
					     [D_SCHED] = "scheduler", [D_SEED] = "seed" };

	if (d->key)
		snprintf(buf, len, "%s", d->key);
	else
		snprintf(buf, len, "%s", names[d->kind]);
	return buf;
}

static int write_manifest(FILE *fp, void *arg)
{
	const struct sweep *sw = arg;
	char col[256];
	size_t i, k;

	fputs("id,dir,group,label", fp);
	for (k = 0; k < sw->nd; k++) {
		fputc(',', fp);
		csv_field(fp, dim_column(&sw->d[k], col, sizeof(col)));
	}
	fputc('\n', fp);
	for (i = 0; i < sw->n_runs; i++) {
		const struct sweep_run *r = &sw->runs[i];

		fprintf(fp, "%zu,", i);
		csv_field(fp, r->dir);
		fputc(',', fp);
		csv_field(fp, r->group);
		fputc(',', fp);
		csv_field(fp, r->label);
		for (k = 0; k < sw->nd; k++) {
			fputc(',', fp);
			csv_field(fp, sw->d[k].vals[r->pick[k]]);
		}
		fputc('\n', fp);
	}
	return ferror(fp) ? -EIO : 0;
}

/* Task i of the array runs line i + 1 of commands.txt. */
static int write_slurm(FILE *fp, void *arg)
{
	const struct sweep *sw = arg;
	char *cmds = xasprintf("%s/commands.txt", sw->out);

	fprintf(fp, "#!/bin/bash\n"
		    "# hyde sweep: %zu runs as a Slurm job array (sbatch %s/slurm.sh);\n"
		    "# task i runs line i + 1 of commands.txt. Every machine needs this\n"
		    "# hyde and these paths (a shared file system).\n"
		    "#SBATCH --job-name=hyde-sweep\n"
		    "#SBATCH --array=0-%zu\n"
		    "#SBATCH --ntasks=1\n"
		    "#SBATCH --cpus-per-task=1\n"
		    "#SBATCH --output=%s/slurm-%%A_%%a.out\n"
		    "set -eu\n"
		    "line=$((SLURM_ARRAY_TASK_ID + 1))\n"
		    "cmd=$(sed -n \"${line}p\" ",
		sw->n_runs, sw->out, sw->n_runs - 1, sw->out);
	sh_word(fp, cmds);
	fprintf(fp, ")\n"
		    "[ -n \"$cmd\" ] || { echo \"hyde sweep: no line $line in commands.txt\" >&2; exit 2; }\n"
		    "exec bash -c \"$cmd\"\n");
	free(cmds);
	return ferror(fp) ? -EIO : 0;
}

static int copy_spec(FILE *fp, void *arg)
{
	FILE *in = fopen(arg, "r");
	char buf[8192];
	size_t n;

	if (!in)
		return -errno;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, fp);
	fclose(in);
	return ferror(fp) ? -EIO : 0;
}

static int mkdir_p(const char *path)
{
	char *p = xstrdup(path), *s;
	int r = 0;

	for (s = p + 1;; s++) {
		if (*s == '/' || !*s) {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0755) && errno != EEXIST) {
				r = -errno;
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return r;
}

static int write_files(struct sweep *sw, char *errbuf)
{
	char *runs = xasprintf("%s/runs", sw->out), *p;
	int r;

	if ((r = mkdir_p(runs))) {
		errbuf_set(errbuf, "%s: %s", runs, strerror(-r));
		free(runs);
		return r;
	}
	free(runs);
#define WRITE(name, fn, arg)                                          \
	do {                                                          \
		p = xasprintf("%s/%s", sw->out, name);                \
		r = cli_write_file(p, fn, arg, errbuf);               \
		free(p);                                              \
		if (r)                                                \
			return r;                                     \
	} while (0)
	WRITE("spec", copy_spec, (void *)sw->path);
	WRITE("sweep.csv", write_manifest, sw);
	WRITE("commands.txt", write_commands, sw);
	WRITE("slurm.sh", write_slurm, sw);
#undef WRITE
	p = xasprintf("%s/slurm.sh", sw->out);
	chmod(p, 0755);
	free(p);
	return 0;
}

/* ---- running ---- */

/* Did the run finish, every job done? (its events.log's run_end line says so) */
bool sweep_run_done(const char *dir)
{
	char *path = xasprintf("%s/events.log", dir), *buf, *p, *last = NULL;
	FILE *fp = fopen(path, "r");
	bool ok = false;
	long size;

	free(path);
	if (!fp)
		return false;
	/* the run's end line, in the file's last 64 KiB: a scheduler may log
	 * its own figures after it (dawn's, nas's) */
	buf = xmalloc(65536);
	if (!fseek(fp, 0, SEEK_END) && (size = ftell(fp)) > 0) {
		long from = size > 65535 ? size - 65535 : 0;
		size_t n;

		fseek(fp, from, SEEK_SET);
		n = fread(buf, 1, 65535, fp);
		buf[n] = '\0';
		for (p = buf; (p = strstr(p, " run_end ")); p++)
			last = p + 9;
		/* a run stopped at its --horizon is done too */
		ok = last && (!strncmp(last, "ok\n", 3) || !strncmp(last, "horizon\n", 8) ||
			      !strcmp(last, "ok") || !strcmp(last, "horizon"));
	}
	free(buf);
	fclose(fp);
	return ok;
}

static pid_t spawn(struct sweep_run *r)
{
	pid_t pid;
	int fd;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fd = open(r->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execv(r->argv[0], r->argv);
		fprintf(stderr, "hyde sweep: exec %s: %s\n", r->argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static int run_local(struct sweep *sw, unsigned jobs, bool quiet)
{
	size_t next = 0, running = 0, done = 0, failed = 0, skipped = 0, i;
	int status;

	for (i = 0; i < sw->n_runs; i++)
		if (sweep_run_done(sw->runs[i].dir)) {
			sw->runs[i].ok = true;
			sw->runs[i].pid = -2; /* done before */
			skipped++;
		}
	if (!quiet && skipped)
		printf("  %zu of %zu runs already done\n", skipped, sw->n_runs);
	done = skipped;
	while (done < sw->n_runs) {
		pid_t pid;

		while (!sweep_interrupted && running < jobs && next < sw->n_runs) {
			struct sweep_run *r = &sw->runs[next++];

			if (r->pid == -2)
				continue;
			r->t0 = now_ns();
			r->pid = spawn(r);
			if (r->pid < 0) {
				fprintf(stderr, "hyde sweep: fork: %s\n", strerror(errno));
				sweep_interrupted = 1;
				break;
			}
			running++;
		}
		if (!running)
			break;
		pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno != EINTR)
				break;
			if (sweep_interrupted == 1) { /* pass it on, once */
				for (i = 0; i < sw->n_runs; i++)
					if (sw->runs[i].pid > 0)
						kill(sw->runs[i].pid, SIGINT);
				sweep_interrupted = 2;
			}
			continue;
		}
		for (i = 0; i < sw->n_runs && sw->runs[i].pid != pid; i++)
			;
		if (i == sw->n_runs)
			continue;
		running--;
		done++;
		sw->runs[i].pid = 0;
		sw->runs[i].ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
		if (!sw->runs[i].ok)
			failed++;
		if (!quiet) {
			double s = (double)(now_ns() - sw->runs[i].t0) / 1e9;

			printf("  [%zu/%zu] %-40s %s in %.1fs%s%s\n", done, sw->n_runs,
			       sw->runs[i].label, sw->runs[i].ok ? "done" : "FAILED", s,
			       sw->runs[i].ok ? "" : "; log: ", sw->runs[i].ok ? "" : sw->runs[i].log);
			fflush(stdout);
		}
	}
	if (sweep_interrupted) {
		fprintf(stderr, "hyde sweep: interrupted; run it again to go on where it stopped\n");
		return EXIT_RUN_FAILED;
	}
	return failed ? EXIT_RUN_FAILED : 0;
}

/* An executable in PATH, or NULL. */
static char *which(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL, *dir, *found = NULL;

	if (!path)
		return NULL;
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", *dir ? dir : ".", name);

		if (!access(p, X_OK))
			found = p;
		else
			free(p);
	}
	free(copy);
	return found;
}

/* Run a program and wait for it; its exit status, or -1. */
static int run_tool(char *const *argv)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv(argv[0], argv);
		fprintf(stderr, "hyde sweep: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int run_parallel(struct sweep *sw, unsigned jobs, const char *sshloginfile)
{
	char *bin = which("parallel"), *cmds = xasprintf("%s/commands.txt", sw->out);
	char *log = xasprintf("%s/parallel.log", sw->out), j[32];
	const char *argv[16];
	int argc = 0, st;

	if (!bin) {
		fprintf(stderr, "hyde sweep: --parallel needs GNU parallel in PATH (Debian: apt-get install parallel)\n");
		free(cmds);
		free(log);
		return EXIT_USAGE;
	}
	snprintf(j, sizeof(j), "%u", jobs);
	argv[argc++] = bin;
	argv[argc++] = "--will-cite";
	argv[argc++] = "--joblog"; /* with --resume: a sweep run again goes on */
	argv[argc++] = log;
	argv[argc++] = "--resume";
	argv[argc++] = "-j";
	argv[argc++] = j;
	if (sshloginfile) {
		argv[argc++] = "--sshloginfile";
		argv[argc++] = sshloginfile;
	}
	argv[argc++] = "::::"; /* each line of the file is a command */
	argv[argc++] = cmds;
	argv[argc] = NULL;
	st = run_tool((char *const *)argv);
	free(bin);
	free(cmds);
	free(log);
	if (st < 0)
		return EXIT_RUN_FAILED;
	return st ? EXIT_RUN_FAILED : 0;
}

static int run_slurm(struct sweep *sw)
{
	char *bin = which("sbatch"), *script = xasprintf("%s/slurm.sh", sw->out);
	const char *argv[] = { bin, script, NULL };
	int st;

	if (!bin) {
		fprintf(stderr, "hyde sweep: --slurm needs sbatch in PATH (or submit %s yourself)\n",
			script);
		free(script);
		return EXIT_USAGE;
	}
	st = run_tool((char *const *)argv);
	free(bin);
	free(script);
	if (st) {
		fprintf(stderr, "hyde sweep: sbatch failed (exit %d)\n", st);
		return EXIT_RUN_FAILED;
	}
	return 0;
}

int cmd_sweep(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "parallel", no_argument, NULL, 1 },
		{ "sshloginfile", required_argument, NULL, 2 },
		{ "slurm", no_argument, NULL, 3 },
		{ "hyde", required_argument, NULL, 4 },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sweep sw = { 0 };
	const char *out = NULL, *sshlogin = NULL, *hyde = NULL;
	bool dry = false, parallel = false, slurm = false, quiet = false;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned jobs = cores > 0 ? (unsigned)cores : 1;
	char errbuf[HYDE_ERRBUF_SIZE], outbuf[128];
	struct sigaction sa, old_int, old_term;
	uint64_t u;
	int opt, r = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:j:nqh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'j':
			if (parse_uint(optarg, 1, 4096, &u))
				return cli_usage_error("sweep", "-j: expected a number from 1 to 4096, got '%s'",
						       optarg);
			jobs = (unsigned)u;
			break;
		case 'n':
			dry = true;
			break;
		case 1:
			parallel = true;
			break;
		case 2:
			sshlogin = optarg;
			break;
		case 3:
			slurm = true;
			break;
		case 4:
			hyde = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			sweep_usage(stdout);
			return 0;
		default:
			sweep_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("sweep", optind >= argc ? "expected a spec file" :
						 "unexpected argument '%s'",
				       optind >= argc ? "" : argv[optind + 1]);
	if (dry + parallel + slurm > 1)
		return cli_usage_error("sweep", "--dry-run, --parallel and --slurm exclude each other");
	if (sshlogin && !parallel)
		return cli_usage_error("sweep", "--sshloginfile goes with --parallel");
	if (sshlogin && access(sshlogin, R_OK)) {
		fprintf(stderr, "hyde sweep: %s: %s\n", sshlogin, strerror(errno));
		return EXIT_USAGE;
	}
	sw.path = argv[optind];
	if (spec_load(&sw, sw.path, errbuf)) {
		fprintf(stderr, "hyde sweep: %s\n", errbuf);
		r = EXIT_USAGE;
		goto out;
	}
	order_dims(&sw);
	if (out) {
		free(sw.out);
		sw.out = xstrdup(out);
	}
	if (!sw.out) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		snprintf(outbuf, sizeof(outbuf), "runs/sweep-%04d%02d%02d-%02d%02d%02d",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			 tm.tm_sec);
		sw.out = xstrdup(outbuf);
	}
	if ((r = mkdir_p(sw.out))) {
		fprintf(stderr, "hyde sweep: %s: %s\n", sw.out, strerror(-r));
		r = EXIT_USAGE;
		goto out;
	}
	{ /* commands and files name everything absolutely */
		char *abs = realpath(sw.out, NULL);

		free(sw.out);
		sw.out = abs;
	}
	sw.hyde = hyde ? xstrdup(hyde) : realpath("/proc/self/exe", NULL);
	if (!sw.hyde || !sw.out) {
		fprintf(stderr, "hyde sweep: cannot resolve %s: %s\n", sw.hyde ? "the output directory" :
			"this executable's path", strerror(errno));
		r = EXIT_USAGE;
		goto out;
	}
	if (make_grid(&sw)) {
		fprintf(stderr, "hyde sweep: %s: more than 1,000,000 runs\n", sw.path);
		r = EXIT_USAGE;
		goto out;
	}
	if (write_files(&sw, errbuf)) {
		fprintf(stderr, "hyde sweep: %s\n", errbuf);
		r = EXIT_RUN_FAILED;
		goto out;
	}
	if (!quiet)
		printf("sweep: %zu runs in %s (sweep.csv, commands.txt, slurm.sh)\n", sw.n_runs,
		       sw.out);
	if (dry) {
		if (!quiet)
			printf("dry run: run them with 'hyde sweep %s -o %s', or\n"
			       "  parallel --joblog %s/parallel.log -j N :::: %s/commands.txt, or\n"
			       "  sbatch %s/slurm.sh; then: hyde compare --from %s -o %s/compare\n",
			       sw.path, sw.out, sw.out, sw.out, sw.out, sw.out, sw.out);
		goto out;
	}
	if (slurm) {
		r = run_slurm(&sw);
		if (!r && !quiet)
			printf("submitted; when the array is done: hyde compare --from %s -o %s/compare\n",
			       sw.out, sw.out);
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sweep_on_signal;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	if (!quiet)
		printf("running %s, %u at a time%s\n", parallel ? "through GNU parallel" : "here",
		       jobs, sshlogin ? " per machine" : "");
	r = parallel ? run_parallel(&sw, jobs, sshlogin) : run_local(&sw, jobs, quiet);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	{
		size_t i, ok = 0;

		for (i = 0; i < sw.n_runs; i++)
			ok += sweep_run_done(sw.runs[i].dir);
		if (!quiet)
			printf("sweep: %zu of %zu runs done%s; read them with: hyde compare --from %s -o %s/compare\n",
			       ok, sw.n_runs, ok == sw.n_runs ? "" : " (see their .log)", sw.out, sw.out);
		if (ok < sw.n_runs && !r)
			r = EXIT_RUN_FAILED;
	}
out:
	dims_free(&sw);
	return r;
}
