/* hyde compare: the main job. Runs each scheduler on the same topology,
 * workload and seed, each in its own `hyde run` (emulation) or `hyde sim`
 * child with its own run directory, then reads the run directories'
 * flows.csv, coflows.csv and jobs.csv (the same columns from both backends,
 * src/core/rundir.h) and prints one table, absolute and normalised to the
 * first scheduler, as the papers report them; writes compare.csv and the
 * plots next to the runs.
 *
 * A scheduler spec is NAME[:KEY=VALUE[:KEY=VALUE...]], so ablations can be
 * compared side by side: -s fair,coscheduler,coscheduler:mts=no. Every spec
 * is checked (name and options) before anything runs. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "analyze/plot.h"
#include "cli.h"
#include "core/csv.h"
#include "core/rundir.h"
#include "core/units.h"
#include "core/util.h"
#include "ctl/sched_host.h"

#define CMP_DEFAULT_TOPO "topologies/rack8.topo"
#define CMP_DEFAULT_WL "workloads/fb-small.wl"
#define CMP_DEFAULT_SCHEDS "fair,coscheduler"

struct cmp_run {
	char *label;	/* the spec as given */
	char *name;	/* scheduler */
	char **kv;	/* its options */
	int n_kv;
	char *dir;	/* run directory */
	char *log;	/* the child's output */
	bool ok;
	double wall_s;
	/* figures, from the run directory */
	size_t jobs, jobs_done, coflows, coflows_done;
	double makespan_s, avg_jct_s, avg_cct_s, throughput, ocs_share;
	uint64_t shuffle_bytes, cross_rack_bytes, ocs_bytes, eps_bytes;
	double *jct, *cct; /* seconds, for the CDFs */
};

struct cmp_opts {
	const char *topo, *wl, *scheds, *outdir, *circuits, *backend;
	const char *seed, *copies, *heartbeat, *prefix;
	char **kv; /* -S for every scheduler */
	int n_kv;
	bool quiet, no_io;
};

static volatile sig_atomic_t cmp_interrupted;

static void cmp_on_signal(int sig)
{
	(void)sig;
	cmp_interrupted = 1;
}

static void compare_usage(FILE *fp)
{
	fprintf(fp,
		"usage: hyde compare [-t TOPOLOGY] [-w WORKLOAD] [-s SCHED[,SCHED...]]\n"
		"          [--backend emul|sim] [-o DIR] [-S KEY=VALUE]... [-C CIRCUITS]\n"
		"          [--seed N] [--copies N] [--heartbeat TIME] [--no-io] [--prefix P] [-q]\n"
		"       hyde compare --runs DIR... [-o DIR] [-q]\n\n"
		"Run each scheduler on the same topology, workload and seed, then print one\n"
		"table (makespan, average JCT, average CCT, throughput, OCS share of the\n"
		"cross-rack bytes, cross-rack bytes), absolute and normalised to the first\n"
		"scheduler, and write compare.csv and plots. With no options: fair and\n"
		"coscheduler on %s with %s, in emulation (root).\n\n"
		"  -t, --topology FILE   topology (default %s)\n"
		"  -w, --workload SPEC   workload (default %s)\n"
		"  -s, --schedulers LIST comma-separated specs NAME[:KEY=VALUE...]\n"
		"                        (default %s); the first is the baseline\n"
		"      --backend B       emul (default: hyde run, needs root) or sim (hyde sim)\n"
		"  -o, --out DIR         where the runs, compare.csv and the plots go\n"
		"                        (default runs/compare-DATE-TIME)\n"
		"  -S KEY=VALUE          an option for every scheduler (e.g. slowstart=0.05)\n"
		"  -C, --circuits NAME   circuit scheduler (default sunflow)\n"
		"      --seed N          seed of every random choice (default 1)\n"
		"      --copies N        parallel fetches per reduce (default 5)\n"
		"      --heartbeat TIME  node managers' heartbeat (default 1s; 0: none)\n"
		"      --no-io           no HDFS traffic: only the shuffle crosses the network\n"
		"      --prefix P        (emul) namespace prefix of the fabric\n"
		"  -q, --quiet           only the table\n"
		"      --runs DIR...     run nothing: read finished run directories, or sweeps\n"
		"                        (hyde sweep's output: one row per group of runs that\n"
		"                        differ only by their seed, averaged); compare.csv and\n"
		"                        the plots go to -o, else into the one sweep given\n\n"
		"Exit status: 0 every run finished every job, 1 a run failed, 2 bad usage or input.\n",
		CMP_DEFAULT_TOPO, CMP_DEFAULT_WL, CMP_DEFAULT_TOPO, CMP_DEFAULT_WL,
		CMP_DEFAULT_SCHEDS);
}

/* ---- scheduler specs ---- */

static void cmp_run_free(struct cmp_run *r)
{
	int i;

	free(r->label);
	free(r->name);
	for (i = 0; i < r->n_kv; i++)
		free(r->kv[i]);
	free(r->kv);
	free(r->dir);
	free(r->log);
	free(r->jct);
	free(r->cct);
}

/* A directory name for a spec: a plugin's file name without its
 * directory and ".so"; ':' becomes '-'. */
static char *spec_dirname(const char *label)
{
	const char *base = label, *p;
	char *s, *q;
	size_t n;

	for (p = label; *p && *p != ':'; p++)
		if (*p == '/')
			base = p + 1;
	n = (size_t)(p - base);
	s = xmalloc(n + strlen(p) + 1);
	memcpy(s, base, n);
	if (n > 3 && !strncmp(s + n - 3, ".so", 3))
		n -= 3;
	strcpy(s + n, p);
	for (q = s; *q; q++)
		if (*q == ':')
			*q = '-';
	return s;
}

static int parse_specs(const struct cmp_opts *o, struct cmp_run **out, size_t *n_out,
		       char *errbuf)
{
	char *list = xstrdup(o->scheds), *save = NULL, *tok;
	struct cmp_run *runs = NULL;
	size_t n = 0, cap = 0, i;
	int r = 0;

	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct cmp_run *run;
		char *save2 = NULL, *part, *spec = xstrdup(tok);
		struct hyde_sched *s = NULL;
		int k;

		xgrow((void **)&runs, &cap, n + 1, sizeof(*runs));
		run = &runs[n++];
		memset(run, 0, sizeof(*run));
		run->label = xstrdup(tok);
		part = strtok_r(spec, ":", &save2);
		run->name = xstrdup(part ? part : "");
		while ((part = strtok_r(NULL, ":", &save2))) {
			run->kv = xrealloc(run->kv, sizeof(*run->kv) * (run->n_kv + 1));
			run->kv[run->n_kv++] = xstrdup(part);
		}
		free(spec);
		if (!*run->name) {
			errbuf_set(errbuf, "'%s': expected NAME[:KEY=VALUE...]", tok);
			r = -EINVAL;
			break;
		}
		for (i = 0; i + 1 < n; i++)
			if (!strcmp(runs[i].label, run->label)) {
				errbuf_set(errbuf, "'%s' is listed twice", tok);
				r = -EINVAL;
				break;
			}
		if (r)
			break;
		if (sched_is_plugin(run->name)) {
			/* the runs start elsewhere: the plugin's whole path */
			char *abs = realpath(run->name, NULL);

			if (abs) {
				free(run->name);
				run->name = abs;
			}
		}
		/* the options, as the run will get them: the common ones, then
		 * the spec's own */
		{
			char **all = xmalloc(sizeof(*all) * (o->n_kv + run->n_kv + 1));

			for (k = 0; k < o->n_kv; k++)
				all[k] = o->kv[k];
			for (k = 0; k < run->n_kv; k++)
				all[o->n_kv + k] = run->kv[k];
			r = sched_new(run->name, all, o->n_kv + run->n_kv, &s, errbuf);
			free(all);
		}
		if (r)
			break;
		sched_free(s);
	}
	free(list);
	if (!r && !n) {
		errbuf_set(errbuf, "expected at least one scheduler");
		r = -EINVAL;
	}
	if (r) {
		for (i = 0; i < n; i++)
			cmp_run_free(&runs[i]);
		free(runs);
		return r;
	}
	*out = runs;
	*n_out = n;
	return 0;
}

/* ---- running one scheduler ---- */

static void fmt_wall(double s, char *buf, size_t len)
{
	if (s < 60)
		snprintf(buf, len, "%.1fs", s);
	else
		snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
}

/* The last non-empty line of a file, for a failure message. */
static void last_line(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	long n;

	buf[0] = '\0';
	if (!fp)
		return;
	while ((n = read_line(fp, &line, &cap)) >= 0)
		if (n > 0)
			snprintf(buf, len, "%s", line);
	free(line);
	fclose(fp);
}

static int run_one(const struct cmp_opts *o, struct cmp_run *run, bool emul)
{
	const char *argv[64 + 4 * 16];
	int argc = 0, k, fd, status;
	int64_t t0;
	pid_t pid, parent;

	argv[argc++] = "hyde";
	argv[argc++] = emul ? "run" : "sim";
	argv[argc++] = "-t";
	argv[argc++] = o->topo;
	argv[argc++] = "-w";
	argv[argc++] = o->wl;
	argv[argc++] = "-s";
	argv[argc++] = run->name;
	for (k = 0; k < o->n_kv && argc < 60; k++) {
		argv[argc++] = "-S";
		argv[argc++] = o->kv[k];
	}
	for (k = 0; k < run->n_kv && argc < 60; k++) {
		argv[argc++] = "-S";
		argv[argc++] = run->kv[k];
	}
	argv[argc++] = "-o";
	argv[argc++] = run->dir;
	if (o->circuits) {
		argv[argc++] = "-C";
		argv[argc++] = o->circuits;
	}
	if (o->seed) {
		argv[argc++] = "--seed";
		argv[argc++] = o->seed;
	}
	if (o->copies) {
		argv[argc++] = "--copies";
		argv[argc++] = o->copies;
	}
	if (o->heartbeat) {
		argv[argc++] = "--heartbeat";
		argv[argc++] = o->heartbeat;
	}
	if (o->no_io)
		argv[argc++] = "--no-io";
	if (emul && o->prefix) {
		argv[argc++] = "--prefix";
		argv[argc++] = o->prefix;
	}
	argv[argc] = NULL;

	fflush(stdout);
	fflush(stderr);
	t0 = now_ns();
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "hyde compare: fork: %s\n", strerror(errno));
		return -errno;
	}
	if (pid == 0) {
		fd = open(run->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* a compare killed outright (SIGKILL) takes its run along:
		 * the run stops as on SIGTERM and removes its fabric (the
		 * kernel sends it; getppid() tells a parent already gone) */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
			_exit(127);
		execv("/proc/self/exe", (char *const *)argv);
		fprintf(stderr, "hyde compare: exec /proc/self/exe: %s\n", strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "hyde compare: waitpid: %s\n", strerror(errno));
			return -errno;
		}
		/* a terminal's ^C reaches the child too; a kill of the
		 * compare alone is passed on, and the child tears down */
		if (cmp_interrupted == 1) {
			kill(pid, SIGINT);
			cmp_interrupted = 2;
		}
	}
	run->wall_s = (double)(now_ns() - t0) / 1e9;
	run->ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	if (!run->ok) {
		char line[512];

		last_line(run->log, line, sizeof(line));
		if (WIFEXITED(status))
			fprintf(stderr, "hyde compare: %s: exit %d: %s (log: %s)\n", run->label,
				WEXITSTATUS(status), line, run->log);
		else
			fprintf(stderr, "hyde compare: %s: killed by signal %d (log: %s)\n",
				run->label, WTERMSIG(status), run->log);
	}
	return 0;
}

/* ---- reading a run directory ---- */

/* The column of name in c's header (fixed by rundir.h, so always there). */
static int col(const struct csv *c, const char *name)
{
	int k = csv_col(c, name);

	return k < 0 ? 0 : k;
}

static int read_jobs(struct cmp_run *run, char *errbuf)
{
	int64_t arr, end, jct, first = INT64_MAX, last = INT64_MIN;
	uint64_t cross, shuf;
	size_t cap = 0;
	double sum = 0;
	struct csv c;
	int r;

	if ((r = csv_open(&c, run->dir, RUNDIR_JOBS, RUNDIR_JOBS_HEADER, errbuf)))
		return r;
	while ((r = csv_next(&c, errbuf)) > 0) {
		if ((r = csv_ns(&c, col(&c, "arrival_ns"), &arr, errbuf)) ||
		    (r = csv_ns(&c, col(&c, "end_ns"), &end, errbuf)) ||
		    (r = csv_ns(&c, col(&c, "jct_ns"), &jct, errbuf)) ||
		    (r = csv_u64(&c, col(&c, "cross_rack_bytes"), UINT64_MAX, &cross, errbuf)) ||
		    (r = csv_u64(&c, col(&c, "shuffle_bytes"), UINT64_MAX, &shuf, errbuf)))
			goto out;
		run->jobs++;
		if (arr < first)
			first = arr;
		run->cross_rack_bytes += cross;
		run->shuffle_bytes += shuf;
		if (end < 0 || jct < 0)
			continue;
		if (end > last)
			last = end;
		xgrow((void **)&run->jct, &cap, run->jobs_done + 1, sizeof(double));
		run->jct[run->jobs_done++] = (double)jct / 1e9;
		sum += (double)jct / 1e9;
	}
	if (r < 0)
		goto out;
	r = 0;
	run->makespan_s = run->jobs_done ? (double)(last - first) / 1e9 : NAN;
	run->avg_jct_s = run->jobs_done ? sum / (double)run->jobs_done : NAN;
	run->throughput = run->jobs_done && run->makespan_s > 0 ?
		(double)run->jobs_done / run->makespan_s * 3600 : NAN;
out:
	csv_close(&c);
	return r;
}

/* Average CCT over the coflows that moved bytes and completed. */
static int read_coflows(struct cmp_run *run, char *errbuf)
{
	uint64_t bytes;
	size_t cap = 0;
	double sum = 0;
	struct csv c;
	int64_t cct;
	int r;

	if ((r = csv_open(&c, run->dir, RUNDIR_COFLOWS, RUNDIR_COFLOWS_HEADER, errbuf)))
		return r;
	while ((r = csv_next(&c, errbuf)) > 0) {
		if ((r = csv_u64(&c, col(&c, "bytes"), UINT64_MAX, &bytes, errbuf)) ||
		    (r = csv_ns(&c, col(&c, "cct_ns"), &cct, errbuf)))
			goto out;
		if (!bytes)
			continue;
		run->coflows++;
		if (cct < 0)
			continue;
		xgrow((void **)&run->cct, &cap, run->coflows_done + 1, sizeof(double));
		run->cct[run->coflows_done++] = (double)cct / 1e9;
		sum += (double)cct / 1e9;
	}
	if (r < 0)
		goto out;
	r = 0;
	run->avg_cct_s = run->coflows_done ? sum / (double)run->coflows_done : NAN;
out:
	csv_close(&c);
	return r;
}

/* OCS share: payload on the OCS over payload on the OCS and the EPS. */
static int read_flows(struct cmp_run *run, char *errbuf)
{
	uint64_t ocs, eps;
	struct csv c;
	int r;

	if ((r = csv_open(&c, run->dir, RUNDIR_FLOWS, RUNDIR_FLOWS_HEADER, errbuf)))
		return r;
	while ((r = csv_next(&c, errbuf)) > 0) {
		if ((r = csv_u64(&c, col(&c, "ocs_bytes"), UINT64_MAX, &ocs, errbuf)) ||
		    (r = csv_u64(&c, col(&c, "eps_bytes"), UINT64_MAX, &eps, errbuf)))
			goto out;
		run->ocs_bytes += ocs;
		run->eps_bytes += eps;
	}
	if (r < 0)
		goto out;
	r = 0;
	run->ocs_share = run->ocs_bytes + run->eps_bytes ?
		(double)run->ocs_bytes / (double)(run->ocs_bytes + run->eps_bytes) : NAN;
out:
	csv_close(&c);
	return r;
}

/* ---- the table ---- */

static const char *fmt_s(double s, char *buf, size_t len)
{
	if (isnan(s))
		snprintf(buf, len, "-");
	else
		unit_human_time(s * 1e9, buf, len);
	return buf;
}

static const char *fmt_pct(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", 100 * v);
	return buf;
}

static const char *fmt_change(double v, double base, char *buf, size_t len)
{
	if (isnan(v) || isnan(base) || base == 0)
		snprintf(buf, len, "-");
	else {
		double pct = 100 * (v / base - 1);

		/* no "-0.0%" for a change below the last digit */
		snprintf(buf, len, "%+.1f%%", fabs(pct) < 0.05 ? 0.0 : pct);
	}
	return buf;
}

static void print_table(FILE *fp, const struct cmp_run *runs, size_t n)
{
	char a[32], b[32], c[32], d[32], e[32], f[32];
	int w = 11;
	size_t i;

	for (i = 0; i < n; i++)
		if ((int)strlen(runs[i].label) > w)
			w = (int)strlen(runs[i].label);
	fprintf(fp, "%-*s %9s %10s %10s %10s %12s %9s %11s\n", w, "scheduler", "jobs",
		"makespan", "avg JCT", "avg CCT", "throughput", "OCS share", "cross-rack");
	for (i = 0; i < n; i++) {
		const struct cmp_run *r = &runs[i];
		char jobs[32], thr[32];

		if (!r->ok && !r->jobs) {
			fprintf(fp, "%-*s   failed (log: %s)\n", w, r->label, r->log);
			continue;
		}
		snprintf(jobs, sizeof(jobs), "%zu/%zu", r->jobs_done, r->jobs);
		if (isnan(r->throughput))
			snprintf(thr, sizeof(thr), "-");
		else
			snprintf(thr, sizeof(thr), "%.1f job/h", r->throughput);
		fprintf(fp, "%-*s %9s %10s %10s %10s %12s %9s %11s%s\n", w, r->label, jobs,
			fmt_s(r->makespan_s, a, sizeof(a)), fmt_s(r->avg_jct_s, b, sizeof(b)),
			fmt_s(r->avg_cct_s, c, sizeof(c)), thr, fmt_pct(r->ocs_share, d, sizeof(d)),
			unit_human_size((double)r->cross_rack_bytes, e, sizeof(e)),
			r->ok ? "" : "  (failed)");
	}
	if (n < 2 || !runs[0].jobs)
		return;
	fprintf(fp, "\nrelative to %s (negative: shorter; throughput: higher is better)\n",
		runs[0].label);
	fprintf(fp, "%-*s %10s %10s %10s %12s %11s\n", w, "scheduler", "makespan", "avg JCT",
		"avg CCT", "throughput", "cross-rack");
	for (i = 1; i < n; i++) {
		const struct cmp_run *r = &runs[i], *z = &runs[0];

		if (!r->jobs)
			continue;
		fprintf(fp, "%-*s %10s %10s %10s %12s %11s%s\n", w, r->label,
			fmt_change(r->makespan_s, z->makespan_s, a, sizeof(a)),
			fmt_change(r->avg_jct_s, z->avg_jct_s, b, sizeof(b)),
			fmt_change(r->avg_cct_s, z->avg_cct_s, c, sizeof(c)),
			fmt_change(r->throughput, z->throughput, d, sizeof(d)),
			fmt_change((double)r->cross_rack_bytes, (double)z->cross_rack_bytes, f,
				   sizeof(f)),
			r->ok && z->ok ? "" : "  (a failed run: partial figures)");
	}
	(void)e;
}

struct csv_arg {
	const struct cmp_run *runs;
	size_t n;
	const char *backend;
};

static void csv_num(FILE *fp, double v)
{
	if (isnan(v))
		fprintf(fp, ",");
	else
		fprintf(fp, ",%.9g", v);
}

static int write_compare_csv(FILE *fp, void *arg)
{
	const struct csv_arg *a = arg;
	size_t i;

	fprintf(fp, "label,scheduler,backend,ok,jobs,jobs_done,makespan_s,avg_jct_s,avg_cct_s,"
		    "throughput_jobs_per_hour,ocs_share,ocs_bytes,eps_bytes,cross_rack_bytes,"
		    "shuffle_bytes,makespan_vs_base,avg_jct_vs_base,avg_cct_vs_base,wall_s\n");
	for (i = 0; i < a->n; i++) {
		const struct cmp_run *r = &a->runs[i], *z = &a->runs[0];

		fprintf(fp, "%s,%s,%s,%d,%zu,%zu", r->label, r->name, a->backend, r->ok, r->jobs,
			r->jobs_done);
		csv_num(fp, r->makespan_s);
		csv_num(fp, r->avg_jct_s);
		csv_num(fp, r->avg_cct_s);
		csv_num(fp, r->throughput);
		csv_num(fp, r->ocs_share);
		fprintf(fp, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, r->ocs_bytes,
			r->eps_bytes, r->cross_rack_bytes, r->shuffle_bytes);
		csv_num(fp, z->makespan_s > 0 ? r->makespan_s / z->makespan_s : NAN);
		csv_num(fp, z->avg_jct_s > 0 ? r->avg_jct_s / z->avg_jct_s : NAN);
		csv_num(fp, z->avg_cct_s > 0 ? r->avg_cct_s / z->avg_cct_s : NAN);
		csv_num(fp, r->wall_s);
		fputc('\n', fp);
	}
	return ferror(fp) ? -EIO : 0;
}

/* The plots: the papers' normalised bars, and CDFs of JCT and CCT. */
static unsigned write_plots(const char *dir, const struct cmp_run *runs, size_t n)
{
	static const char *const groups[] = { "makespan", "avg JCT", "avg CCT", "cross-rack bytes" };
	const char **series = xcalloc(n, sizeof(*series));
	struct plot_cdf_series *cs = xcalloc(n, sizeof(*cs));
	double *v = xcalloc(4 * n, sizeof(*v));
	char *png = xmalloc(strlen(dir) + 32), errbuf[256], title[160];
	unsigned plots = 0;
	size_t i, k;
	struct plot_bars b = {
		.title = title,
		.ylabel = "relative to baseline",
		.groups = groups,
		.n_groups = 4,
		.series = series,
		.n_series = n,
		.values = v,
		.baseline = 0,
	};

	snprintf(title, sizeof(title), "normalised to %s (lower is better)", runs[0].label);
	for (i = 0; i < n; i++) {
		series[i] = runs[i].label;
		v[0 * n + i] = runs[i].makespan_s;
		v[1 * n + i] = runs[i].avg_jct_s;
		v[2 * n + i] = runs[i].avg_cct_s;
		v[3 * n + i] = (double)runs[i].cross_rack_bytes;
		if (!runs[i].jobs)
			for (k = 0; k < 4; k++)
				v[k * n + i] = NAN;
	}
	sprintf(png, "%s/compare.png", dir);
	if (!plot_bars(png, &b, errbuf))
		plots++;
	else
		fprintf(stderr, "hyde compare: %s: %s\n", png, errbuf);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < n; i++) {
			cs[i].label = runs[i].label;
			cs[i].x = k ? runs[i].cct : runs[i].jct;
			cs[i].n = k ? runs[i].coflows_done : runs[i].jobs_done;
		}
		sprintf(png, "%s/%s", dir, k ? "cct_cdf.png" : "jct_cdf.png");
		if (!plot_cdf(png, k ? "coflow completion time" : "job completion time",
			      k ? "CCT (s)" : "JCT (s)", cs, n, errbuf))
			plots++;
		else
			fprintf(stderr, "hyde compare: %s: %s\n", png, errbuf);
	}
	free(series);
	free(cs);
	free(v);
	free(png);
	return plots;
}

/* mkdir -p for the output directory. */
static int mkdirs(const char *path, char *errbuf)
{
	char *p = xstrdup(path), *s;
	int r = 0;

	for (s = p + 1; ; s++) {
		if (*s == '/' || !*s) {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0755) && errno != EEXIST) {
				r = -errno;
				errbuf_set(errbuf, "%s: %s", p, strerror(errno));
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

/* ---- comparing finished runs (--runs) ---- */

/* Split a line of sweep.csv (fields may be quoted) in place. */
static int split_csv_quoted(char *s, char **f, int max)
{
	int n = 0;

	while (n < max) {
		char *w = s;

		f[n++] = s;
		if (*s == '"') {
			char *r = s + 1;

			for (;;) {
				if (!*r)
					break;
				if (*r == '"' && r[1] == '"') {
					*w++ = '"';
					r += 2;
				} else if (*r == '"') {
					r++;
					break;
				} else {
					*w++ = *r++;
				}
			}
			s = r;
		} else {
			while (*s && *s != ',')
				*w++ = *s++;
		}
		if (*s != ',') {
			*w = '\0';
			return n;
		}
		*w = '\0';
		s++;
	}
	return n;
}

/* One row: the runs of a group (a sweep's runs that differ only by their
 * seed), or one run directory. */
struct cmp_group {
	char *label;
	char **dirs;
	size_t n;
};

static void add_to_group(struct cmp_group **g, size_t *ng, const char *label, const char *dir)
{
	size_t i;

	for (i = 0; i < *ng && strcmp((*g)[i].label, label); i++)
		;
	if (i == *ng) {
		*g = xrealloc(*g, (*ng + 1) * sizeof(**g));
		(*g)[i] = (struct cmp_group){ xstrdup(label), NULL, 0 };
		(*ng)++;
	}
	(*g)[i].dirs = xrealloc((*g)[i].dirs, ((*g)[i].n + 1) * sizeof(char *));
	(*g)[i].dirs[(*g)[i].n++] = xstrdup(dir);
}

/* A sweep's groups, from its sweep.csv (dir and group columns). */
static int read_sweep(const char *dir, struct cmp_group **g, size_t *ng, char *errbuf)
{
	char *path = xasprintf("%s/sweep.csv", dir), *line = NULL, *f[256];
	FILE *fp = fopen(path, "r");
	int cdir = -1, cgroup = -1, nf, k, r = 0;
	size_t cap = 0;
	unsigned no = 0;

	if (!fp) {
		errbuf_set(errbuf, "%s: %s", path, strerror(errno));
		free(path);
		return -errno;
	}
	while (read_line(fp, &line, &cap) >= 0) {
		no++;
		nf = split_csv_quoted(line, f, (int)ARRAY_SIZE(f));
		if (no == 1) {
			for (k = 0; k < nf; k++) {
				if (!strcmp(f[k], "dir"))
					cdir = k;
				if (!strcmp(f[k], "group"))
					cgroup = k;
			}
			if (cdir < 0 || cgroup < 0) {
				errbuf_set(errbuf, "%s:1: expected a header with dir and group (a hyde sweep's sweep.csv)",
					   path);
				r = -EINVAL;
				break;
			}
			continue;
		}
		if (nf <= cdir || nf <= cgroup) {
			errbuf_set(errbuf, "%s:%u: expected %d fields", path, no,
				   (cdir > cgroup ? cdir : cgroup) + 1);
			r = -EINVAL;
			break;
		}
		add_to_group(g, ng, *f[cgroup] ? f[cgroup] : f[cdir], f[cdir]);
	}
	free(line);
	fclose(fp);
	free(path);
	return r;
}

/* The group's figures: the mean over its runs that ran (the CDFs pool
 * them); ok if every run finished every job. */
static void read_group(const struct cmp_group *gr, struct cmp_run *row, char *errbuf)
{
	double mk = 0, jct = 0, cct = 0, thr = 0, ocs = 0, cross = 0, shuf = 0;
	size_t k, n_mk = 0, n_jct = 0, n_cct = 0, n_thr = 0, n_ocs = 0, n = 0, cap_j = 0, cap_c = 0;

	row->label = xasprintf(gr->n > 1 ? "%s (%zu seeds)" : "%s", gr->label, gr->n);
	row->name = xstrdup(gr->label);
	row->dir = xstrdup(gr->dirs[0]);
	row->log = xasprintf("%s.log", gr->dirs[0]);
	row->ok = true;
	for (k = 0; k < gr->n; k++) {
		struct cmp_run one = { .dir = gr->dirs[k] };
		struct stat st;

		if (!sweep_run_done(gr->dirs[k]))
			row->ok = false;
		if (stat(gr->dirs[k], &st) || read_jobs(&one, errbuf) || read_coflows(&one, errbuf) ||
		    read_flows(&one, errbuf)) {
			row->ok = false;
			free(one.jct);
			free(one.cct);
			continue;
		}
		n++;
		row->jobs += one.jobs;
		row->jobs_done += one.jobs_done;
		row->coflows += one.coflows;
		row->coflows_done += one.coflows_done;
		row->ocs_bytes += one.ocs_bytes;
		row->eps_bytes += one.eps_bytes;
#define MEAN(sum, cnt, v) do { if (!isnan(v)) { sum += (v); cnt++; } } while (0)
		MEAN(mk, n_mk, one.makespan_s);
		MEAN(jct, n_jct, one.avg_jct_s);
		MEAN(cct, n_cct, one.avg_cct_s);
		MEAN(thr, n_thr, one.throughput);
		MEAN(ocs, n_ocs, one.ocs_share);
#undef MEAN
		cross += (double)one.cross_rack_bytes;
		shuf += (double)one.shuffle_bytes;
		xgrow((void **)&row->jct, &cap_j, row->jobs_done + 1, sizeof(double));
		memcpy(row->jct + row->jobs_done - one.jobs_done, one.jct, one.jobs_done * sizeof(double));
		xgrow((void **)&row->cct, &cap_c, row->coflows_done + 1, sizeof(double));
		memcpy(row->cct + row->coflows_done - one.coflows_done, one.cct,
		       one.coflows_done * sizeof(double));
		free(one.jct);
		free(one.cct);
	}
	row->makespan_s = n_mk ? mk / (double)n_mk : NAN;
	row->avg_jct_s = n_jct ? jct / (double)n_jct : NAN;
	row->avg_cct_s = n_cct ? cct / (double)n_cct : NAN;
	row->throughput = n_thr ? thr / (double)n_thr : NAN;
	row->ocs_share = n_ocs ? ocs / (double)n_ocs : NAN;
	row->cross_rack_bytes = n ? (uint64_t)(cross / (double)n + 0.5) : 0;
	row->shuffle_bytes = n ? (uint64_t)(shuf / (double)n + 0.5) : 0;
}

static int compare_runs(char **dirs, int n_dirs, const char *outdir, bool quiet)
{
	struct cmp_group *g = NULL;
	struct cmp_run *rows;
	size_t ng = 0, i, k;
	char errbuf[512];
	int d, r = 0, sweeps = 0;
	const char *sweep_dir = NULL;
	bool all_ok = true;

	for (d = 0; d < n_dirs; d++) {
		char *manifest = xasprintf("%s/sweep.csv", dirs[d]);
		struct stat st;

		if (!stat(manifest, &st)) {
			sweeps++;
			sweep_dir = dirs[d];
			if (read_sweep(dirs[d], &g, &ng, errbuf)) {
				fprintf(stderr, "hyde compare: %s\n", errbuf);
				free(manifest);
				r = EXIT_USAGE;
				goto out;
			}
		} else if (stat(dirs[d], &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "hyde compare: %s: not a run directory or a sweep\n", dirs[d]);
			free(manifest);
			r = EXIT_USAGE;
			goto out;
		} else {
			add_to_group(&g, &ng, dirs[d], dirs[d]); /* a row of its own */
		}
		free(manifest);
	}
	rows = xcalloc(ng + 1, sizeof(*rows));
	for (i = 0; i < ng; i++) {
		read_group(&g[i], &rows[i], errbuf);
		if (!rows[i].ok)
			all_ok = false;
	}
	if (!quiet) {
		size_t total = 0;

		for (k = 0; k < ng; k++)
			total += g[k].n;
		printf("compare: %zu run(s) in %zu row(s)%s\n\n", total, ng,
		       all_ok ? "" : "; some did not finish (figures of what they did)");
	}
	print_table(stdout, rows, ng);
	if (!outdir && sweeps == 1 && n_dirs == 1)
		outdir = sweep_dir;
	if (outdir) {
		struct csv_arg a = { rows, ng, "sim" };
		char *path = xasprintf("%s/compare.csv", outdir);
		unsigned plots;

		if (mkdirs(outdir, errbuf) || cli_write_file(path, write_compare_csv, &a, errbuf)) {
			fprintf(stderr, "hyde compare: %s\n", errbuf);
			all_ok = false;
		}
		free(path);
		plots = plot_available() ? write_plots(outdir, rows, ng) : 0;
		if (!quiet)
			printf("\nwritten: %s/compare.csv%s\n", outdir,
			       plots ? ", compare.png, jct_cdf.png, cct_cdf.png" : "");
	}
	for (i = 0; i < ng; i++)
		cmp_run_free(&rows[i]);
	free(rows);
	r = all_ok ? 0 : EXIT_RUN_FAILED;
out:
	for (i = 0; i < ng; i++) {
		for (k = 0; k < g[i].n; k++)
			free(g[i].dirs[k]);
		free(g[i].dirs);
		free(g[i].label);
	}
	free(g);
	return r;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "workload", required_argument, NULL, 'w' },
		{ "schedulers", required_argument, NULL, 's' },
		{ "out", required_argument, NULL, 'o' },
		{ "circuits", required_argument, NULL, 'C' },
		{ "backend", required_argument, NULL, 1 },
		{ "seed", required_argument, NULL, 2 },
		{ "copies", required_argument, NULL, 3 },
		{ "heartbeat", required_argument, NULL, 4 },
		{ "prefix", required_argument, NULL, 5 },
		{ "no-io", no_argument, NULL, 6 },
		{ "runs", no_argument, NULL, 7 },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cmp_opts o = {
		.topo = CMP_DEFAULT_TOPO,
		.wl = CMP_DEFAULT_WL,
		.scheds = CMP_DEFAULT_SCHEDS,
		.backend = "emul",
	};
	struct cmp_run *runs = NULL;
	char errbuf[512], outbuf[128];
	struct sigaction sa, old_int, old_term;
	size_t n = 0, i;
	bool emul, all_ok = true, from_runs = false;
	struct stat st;
	int opt, r = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "t:w:s:o:C:S:qh", longopts, NULL)) != -1) {
		switch (opt) {
		case 't':
			o.topo = optarg;
			break;
		case 'w':
			o.wl = optarg;
			break;
		case 's':
			o.scheds = optarg;
			break;
		case 'o':
			o.outdir = optarg;
			break;
		case 'C':
			o.circuits = optarg;
			break;
		case 'S':
			o.kv = xrealloc(o.kv, sizeof(*o.kv) * (o.n_kv + 1));
			o.kv[o.n_kv++] = optarg;
			break;
		case 1:
			o.backend = optarg;
			break;
		case 2:
			o.seed = optarg;
			break;
		case 3:
			o.copies = optarg;
			break;
		case 4:
			o.heartbeat = optarg;
			break;
		case 5:
			o.prefix = optarg;
			break;
		case 6:
			o.no_io = true;
			break;
		case 7:
			from_runs = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			compare_usage(stdout);
			free(o.kv);
			return 0;
		default:
			compare_usage(stderr);
			free(o.kv);
			return EXIT_USAGE;
		}
	}
	if (from_runs) {
		if (optind >= argc)
			r = cli_usage_error("compare", "--runs: expected run or sweep directories");
		else
			r = compare_runs(argv + optind, argc - optind, o.outdir, o.quiet);
		goto out;
	}
	if (optind < argc) {
		r = cli_usage_error("compare", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (strcmp(o.backend, "emul") && strcmp(o.backend, "sim")) {
		r = cli_usage_error("compare", "--backend: expected emul or sim, got '%s'", o.backend);
		goto out;
	}
	emul = !strcmp(o.backend, "emul");
	if (stat(o.topo, &st) || (strncmp(o.wl, "swim:", 5) && strncmp(o.wl, "coflow:", 7) &&
				  strncmp(o.wl, "wl:", 3) && stat(o.wl, &st))) {
		const char *missing = stat(o.topo, &st) ? o.topo : o.wl;

		fprintf(stderr, "hyde compare: %s: %s%s\n", missing, strerror(errno),
			missing == o.topo && !strcmp(o.topo, CMP_DEFAULT_TOPO) ?
			" (run from the hyde source directory, or give -t and -w)" : "");
		r = EXIT_USAGE;
		goto out;
	}
	if (parse_specs(&o, &runs, &n, errbuf)) {
		fprintf(stderr, "hyde compare: -s: %s\n", errbuf);
		r = EXIT_USAGE;
		goto out;
	}
	if (emul && geteuid() != 0) {
		fprintf(stderr, "hyde compare: the emulation needs root (network namespaces): "
				"run it as root or with sudo, or use --backend sim\n");
		r = EXIT_USAGE;
		goto out;
	}
	if (!o.outdir) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		snprintf(outbuf, sizeof(outbuf), "runs/compare-%04d%02d%02d-%02d%02d%02d",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			 tm.tm_sec);
		o.outdir = outbuf;
	}
	if (mkdirs(o.outdir, errbuf)) {
		fprintf(stderr, "hyde compare: %s\n", errbuf);
		r = EXIT_USAGE;
		goto out;
	}
	for (i = 0; i < n; i++) {
		char *d = spec_dirname(runs[i].label);

		runs[i].dir = xasprintf("%s/%s", o.outdir, d);
		runs[i].log = xasprintf("%s.log", runs[i].dir);
		free(d);
		if (!lstat(runs[i].dir, &st)) {
			fprintf(stderr, "hyde compare: %s exists: give another -o\n", runs[i].dir);
			r = EXIT_USAGE;
			goto out;
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cmp_on_signal;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	if (!o.quiet)
		printf("compare: %s on %s, workload %s, %s, seed %s; output in %s\n", o.scheds,
		       o.topo, o.wl, emul ? "emulation" : "simulation", o.seed ? o.seed : "1",
		       o.outdir);
	for (i = 0; i < n && !cmp_interrupted; i++) {
		char wall[32];

		if (!o.quiet) {
			printf("  [%zu/%zu] %-14s running (log %s) ...", i + 1, n, runs[i].label,
			       runs[i].log);
			fflush(stdout);
		}
		if (run_one(&o, &runs[i], emul)) {
			r = EXIT_RUN_FAILED;
			break;
		}
		if (runs[i].ok || !lstat(runs[i].dir, &st)) {
			if (read_jobs(&runs[i], errbuf) || read_coflows(&runs[i], errbuf) ||
			    read_flows(&runs[i], errbuf)) {
				fprintf(stderr, "\nhyde compare: %s: %s\n", runs[i].label, errbuf);
				runs[i].ok = false;
			}
		}
		if (!runs[i].ok)
			all_ok = false;
		if (!o.quiet) {
			fmt_wall(runs[i].wall_s, wall, sizeof(wall));
			printf(" %s: %zu/%zu jobs in %s\n", runs[i].ok ? "done" : "FAILED",
			       runs[i].jobs_done, runs[i].jobs, wall);
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (cmp_interrupted) {
		fprintf(stderr, "hyde compare: interrupted\n");
		r = EXIT_RUN_FAILED;
		goto out;
	}
	if (r)
		goto out;
	if (!o.quiet)
		putchar('\n');
	print_table(stdout, runs, n);
	{
		struct csv_arg a = { runs, n, o.backend };
		char *path = xasprintf("%s/compare.csv", o.outdir);

		if (cli_write_file(path, write_compare_csv, &a, errbuf)) {
			fprintf(stderr, "hyde compare: %s\n", errbuf);
			all_ok = false;
		}
		free(path);
	}
	{
		unsigned plots = plot_available() ? write_plots(o.outdir, runs, n) : 0;

		if (!o.quiet)
			printf("\nwritten: %s/compare.csv%s; each run's files in %s/<scheduler>/\n",
		       o.outdir, plots ? ", compare.png, jct_cdf.png, cct_cdf.png" :
		       plot_available() ? "" : " (no plots: gnuplot is not installed)", o.outdir);
	}
	r = all_ok ? 0 : EXIT_RUN_FAILED;
out:
	for (i = 0; i < n; i++)
		cmp_run_free(&runs[i]);
	free(runs);
	free(o.kv);
	return r;
}
