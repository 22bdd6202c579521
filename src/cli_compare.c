/* hyde compare: the main job. Runs each scheduler on the same topology,
 * workload and seeds, each run in its own `hyde run` (emulation) or `hyde
 * sim` child with its own run directory, then reads the run directories'
 * flows.csv, coflows.csv and jobs.csv (the same columns from both backends,
 * src/core/rundir.h) and prints one table, absolute and normalised to the
 * first scheduler, as the papers report them; writes compare.csv and the
 * plots next to the runs.
 *
 * With --runs N every scheduler runs on seeds seed..seed+N-1 (a generated
 * workload, -w gen:..., is redrawn with each), simulations -j at a time,
 * and each figure is a mean with its 95% confidence interval; relative
 * figures are paired by seed (the same workload and random choices), the
 * way the papers average their repeated runs. Where each job's time goes
 * (jobs.csv's breakdown, by class) is averaged per scheduler.
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
#include "cli_runopts.h"
#include "ctl/ctl.h"
#include "core/breakdown.h"
#include "net/csched.h"
#include "net/netsched.h"
#include "core/csv.h"
#include "core/rundir.h"
#include "core/stats.h"
#include "core/units.h"
#include "core/workload.h"
#include "core/util.h"
#include "ctl/live.h"
#include "ctl/sched_host.h"
#include "emul/emul.h"
#include "emul/fabric.h"

#define CMP_DEFAULT_TOPO "topologies/rack8.topo"
#define CMP_DEFAULT_WL "workloads/fb-small.wl"
#define CMP_DEFAULT_SCHEDS "fair,coscheduler"
#define CMP_MAX_RUNS 10000
#define CMP_CSV_HEADER \
	"label,scheduler,backend,ok,jobs,jobs_done,makespan_s,avg_jct_s,avg_cct_s," \
	"throughput_jobs_per_hour,ocs_share,ocs_bytes,eps_bytes,cross_rack_bytes," \
	"shuffle_bytes,makespan_vs_base,avg_jct_vs_base,avg_cct_vs_base,wall_s,seed"

/* The figures of a run, and of a scheduler over its runs. */
enum {
	M_MAKESPAN, M_JCT, M_CCT, M_THROUGHPUT, M_OCS_SHARE, M_CROSS,
	M_MAIN, /* the table's; then by class (summary.csv), Co-scheduler Fig. 4 */
	M_JCT_HEAVY = M_MAIN, M_JCT_LIGHT, M_CCT_HEAVY, M_CCT_LIGHT, M_N
};

static const char *const metric_key[M_N] = {
	"makespan_s", "avg_jct_s", "avg_cct_s", "throughput_jobs_per_hour", "ocs_share",
	"cross_rack_bytes", "avg_jct_heavy_s", "avg_jct_light_s", "avg_cct_heavy_s",
	"avg_cct_light_s",
};

/* Job classes of the breakdown (jobs.csv's class), and all jobs. */
enum { CL_HEAVY, CL_LIGHT, CL_ALL, CL_N };

static const char *const class_name[CL_N] = { "heavy", "light", "all" };

struct cmp_run {
	uint64_t seed;
	char *dir;	/* run directory */
	char *log;	/* the child's output */
	pid_t pid;	/* while it runs */
	bool ran, ok;
	double wall_s;
	int64_t t0;
	/* figures, from the run directory */
	size_t jobs, jobs_done, coflows, coflows_done;
	double m[M_N];
	uint64_t shuffle_bytes, cross_rack_bytes, ocs_bytes, eps_bytes;
	double *jct, *cct; /* seconds, for the CDFs */
	/* the breakdown: sums of each part and of the JCT (s), jobs counted */
	double bd[CL_N][BD_PARTS + 1];
	size_t bd_n[CL_N];
};

struct cmp_spec {
	char *label;	/* the spec as given */
	char *name;	/* scheduler */
	char **kv;	/* its options */
	int n_kv;
	struct cmp_run *runs; /* one per seed */
	/* over the runs that finished: each figure, and its paired change
	 * against the baseline's run on the same seed */
	struct stat_ci ci[M_N], rel[M_N];
};

struct cmp_opts {
	const char *topo, *wl, *scheds, *outdir, *backend;
	const char *from, *baseline;
	uint64_t seed;
	unsigned runs, jobs;
	/* the run options (cli_runopts.h's RUNOPT_PASS), parsed as each
	 * run will parse them (run.sched_kv: -S for every scheduler), and
	 * their words, handed to every run unchanged */
	struct ctl_opts run;
	struct runopt_state st;
	bool quiet;
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
		"          [--backend emul|sim|both] [-o DIR] [-S KEY=VALUE]... [-C CIRCUITS]\n"
		"          [--seed N] [--runs N] [-j K] [--copies N] [--ocs-fetch HOW]\n"
		"          [--fetch-order HOW] [--heartbeat TIME] [--no-io] [--prefix P]\n"
		"          [--net POLICY] [--coflow POLICY] [--horizon TIME] [--baseline LABEL]\n"
		"          [--draws N] [-q]\n"
		"       hyde compare --from DIR -o OUT [--baseline LABEL] [-q]\n\n"
		"Run each scheduler on the same topology, workload and seeds, then print one\n"
		"table (makespan, average JCT, average CCT, throughput, OCS share of the\n"
		"cross-rack bytes, cross-rack bytes), absolute and relative to the first\n"
		"scheduler, where each job's time goes by class, and write compare.csv,\n"
		"summary.csv, breakdown.csv and plots. With no options: fair and\n"
		"coscheduler on %s with %s, in emulation (root).\n\n"
		"  -t, --topology FILE   topology (default %s)\n"
		"  -w, --workload SPEC   workload: a file, or gen:fb,KEY=VALUE... /\n"
		"                        gen:dag,... drawn anew with each run's seed\n"
		"                        (default %s)\n"
		"  -s, --schedulers LIST comma-separated specs NAME[:KEY=VALUE...]\n"
		"                        (default %s); the first is the baseline;\n"
		"                        another -s adds to the list\n"
		"      --backend B       emul (default: hyde run, needs root), sim (hyde sim),\n"
		"                        or both: the compare in each (DIR/emul, DIR/sim), then\n"
		"                        each emulated run against the simulated one of its\n"
		"                        scheduler and seed (hyde fidelity; DIR/fidelity/)\n"
		"      --draws N         (--backend sim or both) the simulation N more times,\n"
		"                        each drawing task delays and uneven link shares\n"
		"                        anew (-B task_jitter=10ms, share_jitter=2 unless -B\n"
		"                        gives them; jitter_seed 1..N; DIR/draws/): how far\n"
		"                        each simulated run's averages would move, and how\n"
		"                        often each scheduler is the fastest; with both,\n"
		"                        where each emulated run's averages fall among them,\n"
		"                        and its flows against its replays (the plain model\n"
		"                        and the median of N with shares drawn; -B\n"
		"                        sim:measured_setup=yes: the replays' alone)\n"
		"  -o, --out DIR         where the runs, compare.csv and the plots go\n"
		"                        (default runs/compare-DATE-TIME)\n"
		"  -S KEY=VALUE          an option for every scheduler (e.g. slowstart=0.05)\n"
		"  -C, --circuits NAME   circuit scheduler (default sunflow)\n"
		"      --seed N          seed of every random choice (default 1)\n"
		"      --runs N          run each scheduler on seeds N..N+runs-1 and report\n"
		"                        means with 95%% confidence intervals (default 1)\n"
		"  -j, --jobs K          simulations at a time (default: the cores); the\n"
		"                        emulation runs one at a time\n"
		"      --copies N        parallel fetches per reduce (default 5)\n"
		"      --ocs-fetch HOW   circuit (default) or copies (hyde run --help)\n"
		"      --fetch-order HOW fifo (default) or random (hyde run --help)\n"
		"      --heartbeat TIME  node managers' heartbeat (default 1s; 0: none)\n"
		"      --no-io           no HDFS traffic: only the shuffle crosses the network\n"
		"      --net POLICY      how the network schedules flows: fair (default),\n"
		"                        fcfs, srpt, las (hyde run --help)\n"
		"      --coflow POLICY   (sim) schedule coflows: varys, scf, fcfs, fair\n"
		"      --horizon TIME    every run stops TIME after its start; what is not\n"
		"                        done by then is not done (hyde sim --help)\n"
		"      --prefix P        (emul) namespace prefix of the fabric\n"
		"  -B KEY=VALUE, --coflow-only, --rates MODEL, --rate-quantum TIME,\n"
		"      --snaplen BYTES, --capture-window TIME\n"
		"                        as in hyde run and hyde sim (hyde sim --help);\n"
		"                        every run gets them as given\n"
		"  -q, --quiet           only the tables\n"
		"      --baseline LABEL  the spec the others are compared with (default: the first)\n"
		"      --from DIR        run nothing: read the finished runs of an earlier compare\n"
		"                        in DIR (with -o, --baseline, -q only), e.g. to compare\n"
		"                        them against another baseline; or of a hyde sweep (its\n"
		"                        sweep.csv: one spec per group of runs that differ only\n"
		"                        by their seed, the seeds as the runs)\n\n"
		"Exit status: 0 every run finished every job (or ran to --horizon), 1 a run failed, 2 bad usage or input.\n",
		CMP_DEFAULT_TOPO, CMP_DEFAULT_WL, CMP_DEFAULT_TOPO, CMP_DEFAULT_WL,
		CMP_DEFAULT_SCHEDS);
}

/* ---- scheduler specs ---- */

static void cmp_spec_free(struct cmp_spec *sp, unsigned runs)
{
	unsigned k;
	int i;

	free(sp->label);
	free(sp->name);
	for (i = 0; i < sp->n_kv; i++)
		free(sp->kv[i]);
	free(sp->kv);
	for (k = 0; sp->runs && k < runs; k++) {
		free(sp->runs[k].dir);
		free(sp->runs[k].log);
		free(sp->runs[k].jct);
		free(sp->runs[k].cct);
	}
	free(sp->runs);
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

static int parse_specs(const struct cmp_opts *o, struct cmp_spec **out, size_t *n_out,
		       char *errbuf)
{
	char *list = xstrdup(o->scheds), *save = NULL, *tok;
	struct cmp_spec *runs = NULL;
	size_t n = 0, cap = 0, i;
	int r = 0;

	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct cmp_spec *run;
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
			int n_kv = o->run.n_sched_kv;
			char **all = xmalloc(sizeof(*all) * ((size_t)n_kv + (size_t)run->n_kv + 1));

			for (k = 0; k < n_kv; k++)
				all[k] = o->run.sched_kv[k];
			for (k = 0; k < run->n_kv; k++)
				all[n_kv + k] = run->kv[k];
			r = sched_new(run->name, all, n_kv + run->n_kv, &s, errbuf);
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
			cmp_spec_free(&runs[i], 0);
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

/* Wait for a run's child. In emulation on a terminal, the compare's line
 * shows the run's live view meanwhile (its fabric's state file, written
 * every second, src/ctl/live.h), and gets its own text back at the end. A
 * kill of the compare alone is passed on; the child tears down. */
static int wait_run(const struct cmp_opts *o, const struct cmp_run *run, bool emul,
		    const char *head, pid_t pid, int *status)
{
	bool live = emul && head && isatty(STDOUT_FILENO);
	char *path = xasprintf("%s/%s/%s", FABRIC_STATE_ROOT,
			       o->st.prefix ? o->st.prefix : FABRIC_DEFAULT_PREFIX, LIVE_FILE);
	int64_t last = 0;
	bool shown = false;

	for (;;) {
		struct timespec ts = { 0, 100 * NSEC_PER_MSEC };
		pid_t w = waitpid(pid, status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			fprintf(stderr, "hyde compare: waitpid: %s\n", strerror(errno));
			free(path);
			return -errno;
		}
		if (cmp_interrupted == 1) {
			kill(pid, SIGINT);
			cmp_interrupted = 2;
		}
		if (live && now_ns() - last >= NSEC_PER_SEC) {
			char line[512], text[400];
			struct live_status s;
			FILE *fp = fopen(path, "r");

			last = now_ns();
			if (fp) {
				if (fgets(line, sizeof(line), fp) && !live_parse(line, &s)) {
					live_format(&s, text, sizeof(text));
					printf("\r%s%s\033[K", head, text);
					fflush(stdout);
					shown = true;
				}
				fclose(fp);
			}
		}
		nanosleep(&ts, NULL);
	}
	if (shown) {
		printf("\r%srunning (log %s) ...\033[K", head, run->log);
		fflush(stdout);
	}
	free(path);
	return 0;
}

/* Start one run as a child, its output in run->log; 0 or -errno. Its
 * command line: what compare chooses (topology, workload, scheduler, run
 * directory, seed), the run options in the user's words and order, then
 * the spec's own -S (after the common ones: the spec's win). */
static int start_run(const struct cmp_opts *o, const struct cmp_spec *sp, struct cmp_run *run,
		     bool emul)
{
	size_t argc = 0, k, max = 12 + o->st.n_words + 2 * (size_t)sp->n_kv + 1; /* NULL */
	const char **argv = xmalloc(sizeof(*argv) * max);
	char seed[32];
	int fd;
	pid_t pid, parent;

	argv[argc++] = "hyde";
	argv[argc++] = emul ? "run" : "sim";
	argv[argc++] = "-t";
	argv[argc++] = o->topo;
	argv[argc++] = "-w";
	argv[argc++] = o->wl;
	argv[argc++] = "-s";
	argv[argc++] = sp->name;
	argv[argc++] = "-o";
	argv[argc++] = run->dir;
	snprintf(seed, sizeof(seed), "%" PRIu64, run->seed);
	argv[argc++] = "--seed";
	argv[argc++] = seed;
	for (k = 0; k < o->st.n_words; k++)
		argv[argc++] = o->st.words[k];
	for (k = 0; k < (size_t)sp->n_kv; k++) {
		argv[argc++] = "-S";
		argv[argc++] = sp->kv[k];
	}
	argv[argc] = NULL;

	fflush(stdout);
	fflush(stderr);
	run->t0 = now_ns();
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		int e = errno;

		fprintf(stderr, "hyde compare: fork: %s\n", strerror(e));
		free(argv);
		return -e;
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
	free(argv);
	run->pid = pid;
	run->ran = true;
	return 0;
}

/* A run's child has ended with status. */
static void end_run(const struct cmp_spec *sp, struct cmp_run *run, int status, unsigned runs)
{
	run->pid = 0;
	run->wall_s = (double)(now_ns() - run->t0) / 1e9;
	run->ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	if (!run->ok) {
		char line[512], which[48] = "";

		if (runs > 1)
			snprintf(which, sizeof(which), " (seed %" PRIu64 ")", run->seed);
		last_line(run->log, line, sizeof(line));
		if (WIFEXITED(status))
			fprintf(stderr, "hyde compare: %s%s: exit %d: %s (log: %s)\n", sp->label,
				which, WEXITSTATUS(status), line, run->log);
		else
			fprintf(stderr, "hyde compare: %s%s: killed by signal %d (log: %s)\n",
				sp->label, which, WTERMSIG(status), run->log);
	}
}

/* ---- reading a run directory ---- */

/* The column of name in c's header (fixed by rundir.h, so always there). */
static int col(const struct csv *c, const char *name)
{
	int k = csv_col(c, name);

	return k < 0 ? 0 : k;
}

/* Each job's class, by id, for its coflow's. */
struct job_class {
	char *id;
	int cl;
};

static int jc_cmp(const void *a, const void *b)
{
	return strcmp(((const struct job_class *)a)->id, ((const struct job_class *)b)->id);
}

static double avg_or_nan(double sum, size_t n)
{
	return n ? sum / (double)n : NAN;
}

static int read_jobs(struct cmp_run *run, struct job_class **jcp, size_t *n_jc, char *errbuf)
{
	size_t jc_cap = 0;
	int64_t arr, end, jct, part, first = INT64_MAX, last = INT64_MIN;
	int c_class, c_part[BD_PARTS];
	uint64_t cross, shuf;
	size_t cap = 0;
	double sum = 0;
	struct csv c;
	int r, k;

	if ((r = csv_open(&c, run->dir, RUNDIR_JOBS, RUNDIR_JOBS_HEADER, errbuf)))
		return r;
	c_class = col(&c, "class");
	for (k = 0; k < BD_PARTS; k++) {
		char name[32];

		snprintf(name, sizeof(name), "%s_ns", breakdown_part_names[k]);
		c_part[k] = col(&c, name);
	}
	while ((r = csv_next(&c, errbuf)) > 0) {
		double parts[BD_PARTS];
		int cl;

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
		if (!strcmp(c.f[c_class], "heavy"))
			cl = CL_HEAVY;
		else if (!strcmp(c.f[c_class], "light"))
			cl = CL_LIGHT;
		else {
			r = csv_err(&c, c_class, "heavy or light", errbuf);
			goto out;
		}
		xgrow((void **)jcp, &jc_cap, *n_jc + 1, sizeof(**jcp));
		(*jcp)[*n_jc].id = xstrdup(c.f[0]);
		(*jcp)[(*n_jc)++].cl = cl;
		if (end < 0 || jct < 0)
			continue;
		if (end > last)
			last = end;
		xgrow((void **)&run->jct, &cap, run->jobs_done + 1, sizeof(double));
		run->jct[run->jobs_done++] = (double)jct / 1e9;
		sum += (double)jct / 1e9;
		/* where its time went: a finished job has every part */
		for (k = 0; k < BD_PARTS; k++) {
			if ((r = csv_ns(&c, c_part[k], &part, errbuf)))
				goto out;
			if (part < 0) {
				r = csv_err(&c, c_part[k], "the part of a finished job (ns)", errbuf);
				goto out;
			}
			parts[k] = (double)part / 1e9;
		}
		for (k = 0; k < BD_PARTS; k++) {
			run->bd[cl][k] += parts[k];
			run->bd[CL_ALL][k] += parts[k];
		}
		run->bd[cl][BD_PARTS] += (double)jct / 1e9;
		run->bd[CL_ALL][BD_PARTS] += (double)jct / 1e9;
		run->bd_n[cl]++;
		run->bd_n[CL_ALL]++;
	}
	if (r < 0)
		goto out;
	r = 0;
	run->m[M_MAKESPAN] = run->jobs_done ? (double)(last - first) / 1e9 : NAN;
	run->m[M_JCT] = run->jobs_done ? sum / (double)run->jobs_done : NAN;
	run->m[M_THROUGHPUT] = run->jobs_done && run->m[M_MAKESPAN] > 0 ?
		(double)run->jobs_done / run->m[M_MAKESPAN] * 3600 : NAN;
	run->m[M_CROSS] = (double)run->cross_rack_bytes;
	run->m[M_JCT_HEAVY] = avg_or_nan(run->bd[CL_HEAVY][BD_PARTS], run->bd_n[CL_HEAVY]);
	run->m[M_JCT_LIGHT] = avg_or_nan(run->bd[CL_LIGHT][BD_PARTS], run->bd_n[CL_LIGHT]);
	xqsort(*jcp, *n_jc, sizeof(**jcp), jc_cmp);
out:
	csv_close(&c);
	return r;
}

/* Average CCT over the coflows that moved bytes and completed, and by
 * their job's class. */
static int read_coflows(struct cmp_run *run, const struct job_class *jc, size_t n_jc,
			char *errbuf)
{
	double sum = 0, sum_cl[2] = { 0, 0 };
	size_t cap = 0, n_cl[2] = { 0, 0 };
	int r, c_job, c_bytes, c_cct;
	uint64_t bytes;
	struct csv c;
	int64_t cct;

	if ((r = csv_open(&c, run->dir, RUNDIR_COFLOWS, RUNDIR_COFLOWS_HEADER, errbuf)))
		return r;
	c_job = col(&c, "job");
	c_bytes = col(&c, "bytes");
	c_cct = col(&c, "cct_ns");
	while ((r = csv_next(&c, errbuf)) > 0) {
		struct job_class key = { c.f[c_job], 0 }, *hit;

		if ((r = csv_u64(&c, c_bytes, UINT64_MAX, &bytes, errbuf)) ||
		    (r = csv_ns(&c, c_cct, &cct, errbuf)))
			goto out;
		if (!bytes)
			continue;
		run->coflows++;
		if (cct < 0)
			continue;
		xgrow((void **)&run->cct, &cap, run->coflows_done + 1, sizeof(double));
		run->cct[run->coflows_done++] = (double)cct / 1e9;
		sum += (double)cct / 1e9;
		hit = bsearch(&key, jc, n_jc, sizeof(*jc), jc_cmp);
		if (!hit) {
			r = csv_err(&c, c_job, "a job of jobs.csv", errbuf);
			goto out;
		}
		sum_cl[hit->cl] += (double)cct / 1e9;
		n_cl[hit->cl]++;
	}
	if (r < 0)
		goto out;
	r = 0;
	run->m[M_CCT] = avg_or_nan(sum, run->coflows_done);
	run->m[M_CCT_HEAVY] = avg_or_nan(sum_cl[CL_HEAVY], n_cl[CL_HEAVY]);
	run->m[M_CCT_LIGHT] = avg_or_nan(sum_cl[CL_LIGHT], n_cl[CL_LIGHT]);
out:
	csv_close(&c);
	return r;
}

/* OCS share: payload on the OCS over payload on the OCS and the EPS. A
 * simulated run without flows.csv (-B flow_log=no) has it in its
 * summary.json, of the flows done. */
static int read_flows(struct cmp_run *run, char *errbuf)
{
	uint64_t ocs, eps;
	struct csv c;
	struct stat st;
	char *path;
	int r;

	char err2[512];

	path = xasprintf("%s/%s", run->dir, RUNDIR_FLOWS);
	r = stat(path, &st) && errno == ENOENT;
	free(path);
	if (r && rundir_flow_bytes(run->dir, &run->ocs_bytes, &run->eps_bytes))
		goto share;
	/* a run from before flows had names reads as well */
	if ((r = csv_open(&c, run->dir, RUNDIR_FLOWS, RUNDIR_FLOWS_HEADER, errbuf)) &&
	    csv_open(&c, run->dir, RUNDIR_FLOWS, RUNDIR_FLOWS_HEADER_V1, err2))
		return r;
	while ((r = csv_next(&c, errbuf)) > 0) {
		if ((r = csv_u64(&c, col(&c, "ocs_bytes"), UINT64_MAX, &ocs, errbuf)) ||
		    (r = csv_u64(&c, col(&c, "eps_bytes"), UINT64_MAX, &eps, errbuf)))
			goto out;
		run->ocs_bytes += ocs;
		run->eps_bytes += eps;
	}
	csv_close(&c);
	if (r < 0)
		return r;
share:
	run->m[M_OCS_SHARE] = run->ocs_bytes + run->eps_bytes ?
		(double)run->ocs_bytes / (double)(run->ocs_bytes + run->eps_bytes) : NAN;
	return 0;
out:
	csv_close(&c);
	return r;
}

/* A run's figures from its directory, once its child has ended (a failed
 * run's partial files, if it left any). */
static void read_run(const struct cmp_spec *sp, struct cmp_run *run)
{
	struct job_class *jc = NULL;
	size_t n_jc = 0;
	char errbuf[512];
	struct stat st;
	int k;

	for (k = 0; k < M_N; k++)
		run->m[k] = NAN;
	if (!run->ok && lstat(run->dir, &st))
		return;
	if (read_jobs(run, &jc, &n_jc, errbuf) || read_coflows(run, jc, n_jc, errbuf) ||
	    read_flows(run, errbuf)) {
		fprintf(stderr, "hyde compare: %s: %s\n", sp->label, errbuf);
		run->ok = false;
	}
	while (n_jc)
		free(jc[--n_jc].id);
	free(jc);
}

/* Means and intervals over the runs that finished, and the paired changes
 * against the baseline's runs on the same seeds. */
static void summarise(struct cmp_spec *specs, size_t n, unsigned runs)
{
	double *v = xcalloc(runs, sizeof(*v)), *b = xcalloc(runs, sizeof(*b));
	size_t i;
	unsigned k;
	int m;

	for (i = 0; i < n; i++)
		for (m = 0; m < M_N; m++) {
			for (k = 0; k < runs; k++) {
				v[k] = specs[i].runs[k].ok ? specs[i].runs[k].m[m] : NAN;
				b[k] = specs[0].runs[k].ok ? specs[0].runs[k].m[m] : NAN;
			}
			stat_ci(v, runs, &specs[i].ci[m]);
			stat_ci_rel(v, b, runs, &specs[i].rel[m]);
		}
	free(v);
	free(b);
}

/* ---- the tables ---- */

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

/* A change in percent, no "-0.0%" for one below the last digit. */
static double pct_change(double rel)
{
	double pct = 100 * rel;

	return fabs(pct) < 0.05 ? 0.0 : pct;
}

static const char *fmt_change(double v, double base, char *buf, size_t len)
{
	if (isnan(v) || isnan(base) || base == 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", pct_change(v / base - 1));
	return buf;
}

/* A metric's value in its unit. */
static const char *fmt_metric(int m, double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (m == M_OCS_SHARE)
		fmt_pct(v, buf, len);
	else if (m == M_THROUGHPUT)
		snprintf(buf, len, "%.1f job/h", v);
	else if (m == M_CROSS)
		unit_human_size(v, buf, len);
	else
		fmt_s(v, buf, len);
	return buf;
}

/* mean±half, the interval in the metric's unit (OCS share: points). */
static const char *fmt_ci(int m, const struct stat_ci *c, char *buf, size_t len)
{
	char a[24], b[24];

	fmt_metric(m, c->mean, a, sizeof(a));
	if (isnan(c->mean) || isnan(c->half)) {
		snprintf(buf, len, "%s", a);
		return buf;
	}
	if (m == M_OCS_SHARE)
		snprintf(b, sizeof(b), "%.1f", 100 * c->half);
	else if (m == M_THROUGHPUT)
		snprintf(b, sizeof(b), "%.1f", c->half);
	else
		fmt_metric(m, c->half, b, sizeof(b));
	snprintf(buf, len, "%s±%s", a, b);
	return buf;
}

/* A paired change: +x.x%±y.y, with * when the interval excludes 0. */
static const char *fmt_rel(const struct stat_ci *c, char *buf, size_t len)
{
	if (isnan(c->mean))
		snprintf(buf, len, "-");
	else if (isnan(c->half))
		snprintf(buf, len, "%+.1f%%", pct_change(c->mean));
	else
		snprintf(buf, len, "%+.1f%%±%.1f%s", pct_change(c->mean), 100 * c->half,
			 fabs(c->mean) > c->half ? "*" : "");
	return buf;
}

static size_t runs_ok(const struct cmp_spec *sp, unsigned runs)
{
	size_t k, n = 0;

	for (k = 0; k < runs; k++)
		n += sp->runs[k].ok;
	return n;
}

static int label_width(const struct cmp_spec *specs, size_t n)
{
	int w = 11;
	size_t i;

	for (i = 0; i < n; i++)
		if ((int)strlen(specs[i].label) > w)
			w = (int)strlen(specs[i].label);
	return w;
}

/* One run per scheduler: its figures, and the change against the first. */
static void print_table_one(FILE *fp, const struct cmp_spec *specs, size_t n)
{
	static const int rel_metrics[] = { M_MAKESPAN, M_JCT, M_CCT, M_THROUGHPUT, M_CROSS };
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32];
	int w = label_width(specs, n);
	size_t i, k;

	fprintf(fp, "%-*s %9s %10s %10s %10s %12s %9s %11s\n", w, "scheduler", "jobs",
		"makespan", "avg JCT", "avg CCT", "throughput", "OCS share", "cross-rack");
	for (i = 0; i < n; i++) {
		const struct cmp_run *r = &specs[i].runs[0];
		char jobs[32];

		if (!r->ok && !r->jobs) {
			fprintf(fp, "%-*s   failed (log: %s)\n", w, specs[i].label, r->log);
			continue;
		}
		snprintf(jobs, sizeof(jobs), "%zu/%zu", r->jobs_done, r->jobs);
		fprintf(fp, "%-*s %9s %10s %10s %10s %12s %9s %11s%s\n", w, specs[i].label, jobs,
			fmt_metric(M_MAKESPAN, r->m[M_MAKESPAN], a, sizeof(a)),
			fmt_metric(M_JCT, r->m[M_JCT], b, sizeof(b)),
			fmt_metric(M_CCT, r->m[M_CCT], c, sizeof(c)),
			fmt_metric(M_THROUGHPUT, r->m[M_THROUGHPUT], d, sizeof(d)),
			fmt_metric(M_OCS_SHARE, r->m[M_OCS_SHARE], e, sizeof(e)),
			fmt_metric(M_CROSS, r->m[M_CROSS], f, sizeof(f)), r->ok ? "" : "  (failed)");
	}
	if (n < 2 || !specs[0].runs[0].jobs)
		return;
	fprintf(fp, "\nrelative to %s (negative: shorter; throughput: higher is better)\n",
		specs[0].label);
	fprintf(fp, "%-*s %10s %10s %10s %12s %11s\n", w, "scheduler", "makespan", "avg JCT",
		"avg CCT", "throughput", "cross-rack");
	for (i = 1; i < n; i++) {
		const struct cmp_run *r = &specs[i].runs[0], *z = &specs[0].runs[0];
		char *cell[5] = { a, b, c, d, g };

		if (!r->jobs)
			continue;
		for (k = 0; k < 5; k++)
			fmt_change(r->m[rel_metrics[k]], z->m[rel_metrics[k]], cell[k], 32);
		fprintf(fp, "%-*s %10s %10s %10s %12s %11s%s\n", w, specs[i].label, a, b, c, d, g,
			r->ok && z->ok ? "" : "  (a failed run: partial figures)");
	}
}

/* Repeated runs: means and intervals, and the paired changes. */
static void print_table_ci(FILE *fp, const struct cmp_spec *specs, size_t n, unsigned runs)
{
	static const char *const head[M_MAIN] = {
		"makespan", "avg JCT", "avg CCT", "throughput", "OCS share", "cross-rack",
	};
	static const int width[M_MAIN] = { 16, 16, 16, 18, 12, 16 };
	int w = label_width(specs, n), m;
	char cell[64], okn[32];
	size_t i;

	fprintf(fp, "%-*s %7s", w, "scheduler", "runs");
	for (m = 0; m < M_MAIN; m++)
		fprintf(fp, " %*s", width[m], head[m]);
	fputc('\n', fp);
	for (i = 0; i < n; i++) {
		snprintf(okn, sizeof(okn), "%zu/%u", runs_ok(&specs[i], runs), runs);
		fprintf(fp, "%-*s %7s", w, specs[i].label, okn);
		for (m = 0; m < M_MAIN; m++)
			fprintf(fp, " %*s", width[m], fmt_ci(m, &specs[i].ci[m], cell, sizeof(cell)));
		fputc('\n', fp);
	}
	if (n >= 2) {
		fprintf(fp, "\nrelative to %s, paired by seed (negative: shorter; throughput: "
			    "higher is better)\n", specs[0].label);
		fprintf(fp, "%-*s %7s", w, "scheduler", "pairs");
		for (m = 0; m < M_MAIN; m++)
			if (m != M_OCS_SHARE)
				fprintf(fp, " %*s", width[m], head[m]);
		fputc('\n', fp);
		for (i = 1; i < n; i++) {
			snprintf(okn, sizeof(okn), "%zu", specs[i].rel[M_JCT].n);
			fprintf(fp, "%-*s %7s", w, specs[i].label, okn);
			for (m = 0; m < M_MAIN; m++)
				if (m != M_OCS_SHARE)
					fprintf(fp, " %*s", width[m],
						fmt_rel(&specs[i].rel[m], cell, sizeof(cell)));
			fputc('\n', fp);
		}
	}
	fprintf(fp, "\n±: 95%% confidence interval over the runs (Student's t)%s\n",
		n >= 2 ? "; *: the change's interval excludes 0" : "");
}

/* The breakdown of a scheduler's class over its finished runs: the
 * average per job of each part and of the JCT; jobs, per run. */
static void class_breakdown(const struct cmp_spec *sp, unsigned runs, int cl, double *avg,
			    double *jobs_per_run)
{
	double sum[BD_PARTS + 1] = { 0 };
	size_t n = 0, used = 0, k;
	int p;

	for (k = 0; k < runs; k++) {
		const struct cmp_run *r = &sp->runs[k];

		if (!r->ok)
			continue;
		used++;
		n += r->bd_n[cl];
		for (p = 0; p <= BD_PARTS; p++)
			sum[p] += r->bd[cl][p];
	}
	for (p = 0; p <= BD_PARTS; p++)
		avg[p] = n ? sum[p] / (double)n : NAN;
	*jobs_per_run = used ? (double)n / (double)used : NAN;
}

static void print_breakdown(FILE *fp, const struct cmp_spec *specs, size_t n, unsigned runs)
{
	int w = label_width(specs, n), cl, p;
	double avg[BD_PARTS + 1], jobs;
	char cell[32];
	size_t i;

	fprintf(fp, "\nwhere the time goes: average per finished job%s (heavy: shuffle >= T_e)\n",
		runs > 1 ? ", over the runs" : "");
	fprintf(fp, "%-*s %5s %7s", w, "scheduler", "class", "jobs");
	for (p = 0; p < BD_PARTS; p++)
		fprintf(fp, " %8s", breakdown_part_names[p]);
	fprintf(fp, " %8s\n", "JCT");
	for (i = 0; i < n; i++)
		for (cl = 0; cl < CL_N; cl++) {
			class_breakdown(&specs[i], runs, cl, avg, &jobs);
			if (isnan(jobs) || jobs == 0)
				continue;
			fprintf(fp, "%-*s %5s %7.*f", w, specs[i].label, class_name[cl],
				runs > 1 ? 1 : 0, jobs);
			for (p = 0; p <= BD_PARTS; p++)
				fprintf(fp, " %8s", fmt_s(avg[p], cell, sizeof(cell)));
			fputc('\n', fp);
		}
}

struct csv_arg {
	const struct cmp_spec *specs;
	size_t n;
	unsigned runs;
	const char *backend;
};

static void csv_num(FILE *fp, double v)
{
	if (isnan(v))
		fprintf(fp, ",");
	else
		fprintf(fp, ",%.9g", v);
}

/* One row per run; the changes against the baseline's run on its seed. */
static int write_compare_csv(FILE *fp, void *arg)
{
	const struct csv_arg *a = arg;
	size_t i;
	unsigned k;

	fprintf(fp, "%s\n", CMP_CSV_HEADER);
	for (i = 0; i < a->n; i++)
		for (k = 0; k < a->runs; k++) {
			const struct cmp_run *r = &a->specs[i].runs[k], *z = &a->specs[0].runs[k];
			int m;

			fprintf(fp, "%s,%s,%s,%d,%zu,%zu", a->specs[i].label, a->specs[i].name,
				a->backend, r->ok, r->jobs, r->jobs_done);
			for (m = M_MAKESPAN; m <= M_OCS_SHARE; m++)
				csv_num(fp, r->m[m]);
			fprintf(fp, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, r->ocs_bytes,
				r->eps_bytes, r->cross_rack_bytes, r->shuffle_bytes);
			for (m = M_MAKESPAN; m <= M_CCT; m++)
				csv_num(fp, z->m[m] > 0 ? r->m[m] / z->m[m] : NAN);
			csv_num(fp, r->wall_s);
			fprintf(fp, ",%" PRIu64 "\n", r->seed);
		}
	return ferror(fp) ? -EIO : 0;
}

/* One row per scheduler and metric: mean, interval, paired change. */
static int write_summary_csv(FILE *fp, void *arg)
{
	const struct csv_arg *a = arg;
	size_t i;
	int m;

	fprintf(fp, "label,scheduler,metric,runs,mean,sd,ci95,vs_base_pairs,vs_base_mean,"
		    "vs_base_ci95\n");
	for (i = 0; i < a->n; i++)
		for (m = 0; m < M_N; m++) {
			const struct stat_ci *c = &a->specs[i].ci[m], *r = &a->specs[i].rel[m];

			fprintf(fp, "%s,%s,%s,%zu", a->specs[i].label, a->specs[i].name, metric_key[m],
				c->n);
			csv_num(fp, c->mean);
			csv_num(fp, c->sd);
			csv_num(fp, c->half);
			fprintf(fp, ",%zu", r->n);
			csv_num(fp, r->mean);
			csv_num(fp, r->half);
			fputc('\n', fp);
		}
	return ferror(fp) ? -EIO : 0;
}

static int write_breakdown_csv(FILE *fp, void *arg)
{
	const struct csv_arg *a = arg;
	double avg[BD_PARTS + 1], jobs;
	size_t i;
	int cl, p;

	fprintf(fp, "label,scheduler,class,jobs_per_run");
	for (p = 0; p < BD_PARTS; p++)
		fprintf(fp, ",%s_s", breakdown_part_names[p]);
	fprintf(fp, ",jct_s\n");
	for (i = 0; i < a->n; i++)
		for (cl = 0; cl < CL_N; cl++) {
			class_breakdown(&a->specs[i], a->runs, cl, avg, &jobs);
			fprintf(fp, "%s,%s,%s", a->specs[i].label, a->specs[i].name, class_name[cl]);
			csv_num(fp, jobs);
			for (p = 0; p <= BD_PARTS; p++)
				csv_num(fp, avg[p]);
			fputc('\n', fp);
		}
	return ferror(fp) ? -EIO : 0;
}

/* The plots: the papers' normalised bars (with the paired intervals over
 * repeated runs), and CDFs of JCT and CCT (every run's jobs). */
static unsigned write_plots(const char *dir, const struct cmp_spec *specs, size_t n,
			    unsigned runs)
{
	static const char *const groups[] = { "makespan", "avg JCT", "avg CCT", "cross-rack bytes" };
	static const int gm[] = { M_MAKESPAN, M_JCT, M_CCT, M_CROSS };
	const char **series = xcalloc(n, sizeof(*series));
	struct plot_cdf_series *cs = xcalloc(n, sizeof(*cs));
	double *v = xcalloc(4 * n, sizeof(*v)), *e = xcalloc(4 * n, sizeof(*e));
	char *png = xmalloc(strlen(dir) + 32), errbuf[256], title[160];
	double **pool = xcalloc(n, sizeof(*pool));
	unsigned plots = 0, r;
	size_t i, k, cnt, cap;
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

	if (runs > 1) {
		snprintf(title, sizeof(title),
			 "relative to %s, mean of %u paired runs, 95%% CI (lower is better)",
			 specs[0].label, runs);
		b.baseline = -1;
		b.errors = e;
		b.hline = 1;
	} else {
		snprintf(title, sizeof(title), "normalised to %s (lower is better)", specs[0].label);
	}
	for (i = 0; i < n; i++) {
		series[i] = specs[i].label;
		for (k = 0; k < 4; k++) {
			const struct cmp_run *r0 = &specs[i].runs[0];

			if (runs > 1) {
				v[k * n + i] = 1 + specs[i].rel[gm[k]].mean;
				e[k * n + i] = specs[i].rel[gm[k]].half;
			} else {
				v[k * n + i] = r0->jobs ? r0->m[gm[k]] : NAN;
			}
		}
	}
	sprintf(png, "%s/compare.png", dir);
	if (!plot_bars(png, &b, errbuf))
		plots++;
	else
		fprintf(stderr, "hyde compare: %s: %s\n", png, errbuf);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < n; i++) {
			cnt = cap = 0;
			for (r = 0; r < runs; r++) {
				const struct cmp_run *x = &specs[i].runs[r];
				size_t m = k ? x->coflows_done : x->jobs_done;

				if (!m)
					continue;
				xgrow((void **)&pool[i], &cap, cnt + m, sizeof(double));
				memcpy(pool[i] + cnt, k ? x->cct : x->jct, m * sizeof(double));
				cnt += m;
			}
			cs[i].label = specs[i].label;
			cs[i].x = pool[i];
			cs[i].n = cnt;
		}
		sprintf(png, "%s/%s", dir, k ? "cct_cdf.png" : "jct_cdf.png");
		if (!plot_cdf(png, k ? "coflow completion time" : "job completion time",
			      k ? "CCT (s)" : "JCT (s)", cs, n, errbuf))
			plots++;
		else
			fprintf(stderr, "hyde compare: %s: %s\n", png, errbuf);
		for (i = 0; i < n; i++) {
			free(pool[i]);
			pool[i] = NULL;
		}
	}
	free(pool);
	free(series);
	free(cs);
	free(v);
	free(e);
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

/* Split a line of a hyde sweep's sweep.csv (fields may be quoted, "" a
 * quote) in place; the number of fields. */
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

/* --from a hyde sweep: its sweep.csv (id, dir, group, label, then a column
 * per dimension: scheduler, seed, ...). A spec per group (the runs that
 * differ only by their seed; its label the group's, commas made ';' for
 * compare.csv), a run per seed, in the sweep's order (the seed varies
 * fastest: every group has the same seeds in the same order). A run is ok
 * when its events.log ends with run_end ok; its directory is DIR/runs/ and
 * the name sweep.csv gives it (the sweep may have moved since). */
static int load_sweep(const char *dir, struct cmp_spec **out, size_t *n_out,
		      unsigned *runs_out, char **backend, char *errbuf)
{
	char *path = xasprintf("%s/sweep.csv", dir), *line = NULL, *f[256];
	struct cmp_spec *specs = NULL;
	size_t n = 0, cap = 0, lcap = 0, i;
	int cdir = -1, cgroup = -1, csched = -1, cseed = -1, nf, k, r = 0;
	unsigned no = 0, u;
	FILE *fp = fopen(path, "r");

	if (!fp) {
		errbuf_set(errbuf, "%s: %s", path, strerror(errno));
		free(path);
		return -ENOENT;
	}
	while (r == 0 && read_line(fp, &line, &lcap) >= 0) {
		struct cmp_spec *sp = NULL;
		struct cmp_run *run;
		char *label, *p, *end;
		const char *base;
		unsigned long long seed;
		struct stat st;

		no++;
		nf = split_csv_quoted(line, f, (int)ARRAY_SIZE(f));
		if (no == 1) {
			for (k = 0; k < nf; k++) {
				if (!strcmp(f[k], "dir"))
					cdir = k;
				else if (!strcmp(f[k], "group"))
					cgroup = k;
				else if (!strcmp(f[k], "scheduler"))
					csched = k;
				else if (!strcmp(f[k], "seed"))
					cseed = k;
			}
			if (cdir < 0 || cgroup < 0 || csched < 0 || cseed < 0) {
				errbuf_set(errbuf, "%s:1: expected a header with dir, group, scheduler and seed (a hyde sweep's sweep.csv)",
					   path);
				r = -EINVAL;
			}
			continue;
		}
		if (nf <= cdir || nf <= cgroup || nf <= csched || nf <= cseed || !*f[cdir]) {
			errbuf_set(errbuf, "%s:%u: expected the header's fields, got %d", path, no, nf);
			r = -EINVAL;
			break;
		}
		errno = 0;
		seed = strtoull(f[cseed], &end, 10);
		if (errno || end == f[cseed] || *end || *f[cseed] == '-') {
			errbuf_set(errbuf, "%s:%u: seed: expected a number, got '%s'", path, no,
				   f[cseed]);
			r = -EINVAL;
			break;
		}
		label = xstrdup(*f[cgroup] ? f[cgroup] : f[csched]);
		for (p = label; *p; p++)
			if (*p == ',' || *p == '\n' || *p == '"')
				*p = ';';
		for (i = 0; i < n; i++)
			if (!strcmp(specs[i].label, label))
				sp = &specs[i];
		if (!sp) {
			xgrow((void **)&specs, &cap, n + 1, sizeof(*specs));
			sp = &specs[n++];
			memset(sp, 0, sizeof(*sp));
			sp->label = label;
			sp->name = xasprintf("%.*s", (int)strcspn(f[csched], ":"), f[csched]);
		} else {
			free(label);
		}
		/* runs: n_kv counts them here, until the specs are complete */
		sp->runs = xrealloc(sp->runs, sizeof(*sp->runs) * (size_t)(sp->n_kv + 1));
		run = &sp->runs[sp->n_kv++];
		memset(run, 0, sizeof(*run));
		run->seed = seed;
		/* <out>/runs/<name>: under DIR, wherever the sweep ran */
		base = strrchr(f[cdir], '/') ? strrchr(f[cdir], '/') + 1 : f[cdir];
		run->dir = xasprintf("%s/runs/%s", dir, base);
		run->log = xasprintf("%s.log", run->dir);
		run->ran = !stat(run->dir, &st);
		run->ok = sweep_run_done(run->dir);
	}
	free(line);
	fclose(fp);
	if (!r && !n) {
		errbuf_set(errbuf, "%s: no runs", path);
		r = -EINVAL;
	}
	for (i = 0; !r && i < n; i++) {
		if (specs[i].n_kv != specs[0].n_kv) {
			errbuf_set(errbuf, "%s: %s has %d runs, %s %d: not paired", path,
				   specs[i].label, specs[i].n_kv, specs[0].label, specs[0].n_kv);
			r = -EINVAL;
			break;
		}
		for (u = 0; u < (unsigned)specs[i].n_kv; u++)
			if (specs[i].runs[u].seed != specs[0].runs[u].seed) {
				errbuf_set(errbuf, "%s: %s and %s ran on other seeds: not paired",
					   path, specs[i].label, specs[0].label);
				r = -EINVAL;
				break;
			}
	}
	free(path);
	if (r) {
		for (i = 0; i < n; i++) {
			unsigned runs = (unsigned)specs[i].n_kv;

			specs[i].n_kv = 0;
			cmp_spec_free(&specs[i], runs);
		}
		free(specs);
		return r;
	}
	*runs_out = (unsigned)specs[0].n_kv;
	for (i = 0; i < n; i++)
		specs[i].n_kv = 0;
	*backend = xstrdup("sim"); /* a sweep runs hyde sim */
	*out = specs;
	*n_out = n;
	return 0;
}

/* A hyde sweep's output (its sweep.csv; a compare's output has none)? */
static bool is_sweep_dir(const char *dir)
{
	char *sw = xasprintf("%s/sweep.csv", dir);
	struct stat st;
	bool sweep = !stat(sw, &st);

	free(sw);
	return sweep;
}

/* --from: the specs and runs of an earlier compare, from its compare.csv;
 * every spec must have run on the same seeds (the changes are paired). A
 * hyde sweep's directory (sweep.csv): load_sweep. */
static int load_from(const char *dir, struct cmp_spec **out, size_t *n_out, unsigned *runs_out,
		     char **backend, char *errbuf)
{
	struct cmp_spec *specs = NULL;
	size_t n = 0, cap = 0, i;
	unsigned k;
	struct csv c;
	int r;

	if (is_sweep_dir(dir))
		return load_sweep(dir, out, n_out, runs_out, backend, errbuf);
	if ((r = csv_open(&c, dir, "compare.csv", CMP_CSV_HEADER, errbuf)))
		return r;
	while ((r = csv_next(&c, errbuf)) > 0) {
		struct cmp_spec *sp = NULL;
		struct cmp_run *run;
		uint64_t ok, seed;

		if ((r = csv_u64(&c, 3, 1, &ok, errbuf)) ||
		    (r = csv_u64(&c, 19, UINT64_MAX, &seed, errbuf)))
			break;
		for (i = 0; i < n; i++)
			if (!strcmp(specs[i].label, c.f[0]))
				sp = &specs[i];
		if (!sp) {
			xgrow((void **)&specs, &cap, n + 1, sizeof(*specs));
			sp = &specs[n++];
			memset(sp, 0, sizeof(*sp));
			sp->label = xstrdup(c.f[0]);
			sp->name = xstrdup(c.f[1]);
			if (!*backend)
				*backend = xstrdup(c.f[2]);
		}
		/* runs: n_kv counts them here, until the specs are complete */
		sp->runs = xrealloc(sp->runs, sizeof(*sp->runs) * (size_t)(sp->n_kv + 1));
		run = &sp->runs[sp->n_kv++];
		memset(run, 0, sizeof(*run));
		run->seed = seed;
		run->ok = ok;
		run->ran = true;
	}
	csv_close(&c);
	if (r >= 0 && !n) {
		errbuf_set(errbuf, "%s/compare.csv: no runs", dir);
		r = -EINVAL;
	}
	for (i = 0; r >= 0 && i < n; i++) {
		if (specs[i].n_kv != specs[0].n_kv) {
			errbuf_set(errbuf, "%s/compare.csv: %s has %d runs, %s %d: not paired", dir,
				   specs[i].label, specs[i].n_kv, specs[0].label, specs[0].n_kv);
			r = -EINVAL;
			break;
		}
		for (k = 0; k < (unsigned)specs[i].n_kv; k++)
			if (specs[i].runs[k].seed != specs[0].runs[k].seed) {
				errbuf_set(errbuf, "%s/compare.csv: %s and %s ran on other seeds: "
					   "not paired", dir, specs[i].label, specs[0].label);
				r = -EINVAL;
				break;
			}
	}
	if (r < 0) {
		for (i = 0; i < n; i++) {
			unsigned runs = (unsigned)specs[i].n_kv;

			specs[i].n_kv = 0;
			cmp_spec_free(&specs[i], runs);
		}
		free(specs);
		return r;
	}
	*runs_out = (unsigned)specs[0].n_kv;
	for (i = 0; i < n; i++) {
		char *d = spec_dirname(specs[i].label);

		specs[i].n_kv = 0;
		for (k = 0; k < *runs_out; k++) {
			struct cmp_run *run = &specs[i].runs[k];

			run->dir = *runs_out == 1 ? xasprintf("%s/%s", dir, d) :
				xasprintf("%s/%s/seed-%" PRIu64, dir, d, run->seed);
			run->log = xasprintf("%s.log", run->dir);
		}
		free(d);
	}
	*out = specs;
	*n_out = n;
	return 0;
}

/* --baseline: that spec first, the others in their order. */
static int set_baseline(struct cmp_spec *specs, size_t n, const char *label, char *errbuf)
{
	struct cmp_spec tmp;
	size_t i;

	for (i = 0; i < n && strcmp(specs[i].label, label); i++)
		;
	if (i == n) {
		errbuf_set(errbuf, "--baseline %s: not one of the compared specs", label);
		return -EINVAL;
	}
	tmp = specs[i];
	memmove(specs + 1, specs, i * sizeof(*specs));
	specs[0] = tmp;
	return 0;
}

/* The runs under way, started -j at a time, seed by seed. */

static void progress_line(const struct cmp_opts *o, const struct cmp_spec *sp,
			  const struct cmp_run *r, unsigned idx, unsigned total, bool inline_)
{
	char wall[32];

	if (o->quiet)
		return;
	fmt_wall(r->wall_s, wall, sizeof(wall));
	if (!inline_) {
		printf("  [%u/%u] %-14s", idx, total, sp->label);
		if (o->runs > 1)
			printf(" seed %-4" PRIu64, r->seed);
	}
	printf(" %s: %zu/%zu jobs in %s\n", r->ok ? "done" : "FAILED", r->jobs_done, r->jobs, wall);
	fflush(stdout);
}

/* Run every (scheduler, seed) pair, at most o->jobs at a time; -errno if
 * one could not be started. */
static int run_all(const struct cmp_opts *o, struct cmp_spec *specs, size_t n, bool emul)
{
	unsigned total = (unsigned)n * o->runs, next = 0, done = 0, running = 0;
	bool inline_ = o->jobs == 1;
	int r = 0, status;
	char head[128] = "";

	while (done < total) {
		struct cmp_run *last = NULL;
		pid_t pid;
		size_t i;
		unsigned k;

		while (!r && !cmp_interrupted && running < o->jobs && next < total) {
			struct cmp_spec *sp = &specs[next % n];
			struct cmp_run *run = &sp->runs[next / n];

			if (inline_ && !o->quiet) {
				int len = snprintf(head, sizeof(head), "  [%u/%u] %-14s ", next + 1, total,
						   sp->label);

				if (o->runs > 1 && len > 0 && (size_t)len < sizeof(head))
					snprintf(head + len, sizeof(head) - (size_t)len,
						 "seed %-4" PRIu64 " ", run->seed);
				printf("%srunning (log %s) ...", head, run->log);
				fflush(stdout);
			}
			if ((r = start_run(o, sp, run, emul)))
				break;
			last = run;
			next++;
			running++;
		}
		if (!running)
			break;
		if (inline_ && last) {
			/* one at a time: in emulation on a terminal, the line
			 * shows the run's live view while it runs */
			pid = last->pid;
			if ((r = wait_run(o, last, emul, o->quiet ? NULL : head, pid, &status)))
				return r;
		} else {
			pid = waitpid(-1, &status, 0);
		}
		if (pid < 0) {
			if (errno != EINTR) {
				fprintf(stderr, "hyde compare: waitpid: %s\n", strerror(errno));
				return -errno;
			}
			/* a terminal's ^C reaches the children too; a kill
			 * of the compare alone is passed on, and they tear
			 * down */
			if (cmp_interrupted == 1) {
				for (i = 0; i < n; i++)
					for (k = 0; k < o->runs; k++)
						if (specs[i].runs[k].pid > 0)
							kill(specs[i].runs[k].pid, SIGINT);
				cmp_interrupted = 2;
			}
			continue;
		}
		for (i = 0; i < n; i++)
			for (k = 0; k < o->runs; k++) {
				struct cmp_run *run = &specs[i].runs[k];

				if (run->pid != pid)
					continue;
				running--;
				done++;
				end_run(&specs[i], run, status, o->runs);
				read_run(&specs[i], run);
				progress_line(o, &specs[i], run, done, total, inline_);
			}
	}
	return r;
}

/* The run options of compare's command line, in order, until the backend
 * they are checked against is known. */
struct cmp_pass {
	int code;
	const char *arg;
};

/* -B sim:KEY=VALUE and -B emul:KEY=VALUE (--backend both): an option of
 * one backend only. The backend it names (0 emul, 1 sim) and where its
 * KEY=VALUE starts; -1 for an option of both. */
static int scoped_kv(const char *v, const char **kv)
{
	*kv = v;
	if (!strncmp(v, "emul:", 5)) {
		*kv = v + 5;
		return 0;
	}
	if (!strncmp(v, "sim:", 4)) {
		*kv = v + 4;
		return 1;
	}
	return -1;
}

/* -B sim:measured_setup=...: the set-up an emulated run measured, for
 * its replays alone (a simulation of the workload has no run to take it
 * from). */
static bool replay_only_kv(const char *kv)
{
	return !strncmp(kv, "measured_setup=", 15);
}

/* An option as getopt_long gave it: its code and argument. */
struct cmp_word {
	int code;
	const char *arg;
};

/* Check the run options as the runs will (for their backend) and keep
 * their words: 0 or EXIT_USAGE. */
static int cmp_run_opts(struct cmp_opts *o, const struct cmp_pass *pass, size_t n, bool emul)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	size_t i;
	int r;

	runopt_state_init(&o->st, emul);
	for (i = 0; i < n; i++)
		if ((r = runopt_apply(&o->run, &o->st, "compare", pass[i].code, pass[i].arg)))
			return r;
	if ((r = runopt_check(&o->run, &o->st, "compare")))
		return r;
	/* the circuit scheduler and its options, and the backend's, as
	 * each run will take them */
	if (o->run.csched_name && strcmp(o->run.csched_name, "none")) {
		const struct csched_ops *cs;
		void *priv;

		if (csched_new(o->run.csched_name, &cs, &priv, errbuf)) {
			fprintf(stderr, "hyde compare: -C: %s\n", errbuf);
			return EXIT_USAGE;
		}
		free(priv);
	}
	for (int k = 0; k < o->run.n_backend_kv; k++) {
		const char *kv;

		if (scoped_kv(o->run.backend_kv[k], &kv) >= 0) {
			fprintf(stderr, "hyde compare: -B %s: an option of one backend (emul: or sim:) "
				"goes with --backend both\n", o->run.backend_kv[k]);
			return EXIT_USAGE;
		}
		if (!emul && replay_only_kv(kv)) {
			fprintf(stderr, "hyde compare: -B %s: an option of an emulated run's replays, which only --backend both --draws N makes (there: -B sim:%s)\n",
				kv, kv);
			return EXIT_USAGE;
		}
	}
	if (backend_opts_check(emul ? &backend_emul : &backend_sim, o->run.backend_kv,
			       o->run.n_backend_kv, errbuf)) {
		fprintf(stderr, "hyde compare: %s\n", errbuf);
		return EXIT_USAGE;
	}
	return 0;
}

/* --from DIR: the finished runs of an earlier compare (or a sweep), read
 * as if they had just run; the tables go to -o. 0, or the exit status. */
static int compare_load_from(struct cmp_opts *o, struct cmp_spec **specs, size_t *n,
			     char **from_backend)
{
	char errbuf[512];
	struct stat st;
	unsigned k;
	size_t i;
	int r;

	if (!o->outdir)
		return cli_usage_error("compare", "--from: give -o, where the tables go");
	if (load_from(o->from, specs, n, &o->runs, from_backend, errbuf)) {
		fprintf(stderr, "hyde compare: --from: %s\n", errbuf);
		return EXIT_USAGE;
	}
	o->backend = *from_backend;
	if (o->baseline && set_baseline(*specs, *n, o->baseline, errbuf)) {
		fprintf(stderr, "hyde compare: %s\n", errbuf);
		return EXIT_USAGE;
	}
	{
		char *csv = xasprintf("%s/compare.csv", o->outdir);

		r = !lstat(csv, &st);
		if (r)
			fprintf(stderr, "hyde compare: %s exists: give another -o\n", csv);
		free(csv);
		if (r)
			return EXIT_USAGE;
	}
	if (mkdirs(o->outdir, errbuf)) {
		fprintf(stderr, "hyde compare: %s\n", errbuf);
		return EXIT_USAGE;
	}
	for (i = 0; i < *n; i++)
		for (k = 0; k < o->runs; k++)
			read_run(&(*specs)[i], &(*specs)[i].runs[k]);
	return 0;
}

/* --seed, --runs and -j: 0, or the exit status. */
static int compare_counts(struct cmp_opts *o, const char *seed_arg, const char *runs_arg,
			  const char *jobs_arg, bool emul)
{
	char *end;

	if (seed_arg) {
		errno = 0;
		o->seed = strtoull(seed_arg, &end, 10);
		if (errno || end == seed_arg || *end || *seed_arg == '-') {
			return cli_usage_error("compare", "--seed: expected a number, got '%s'", seed_arg);
		}
	}
	if (runs_arg) {
		unsigned long v = strtoul(runs_arg, &end, 10);

		if (end == runs_arg || *end || *runs_arg == '-' || v < 1 || v > CMP_MAX_RUNS) {
			return cli_usage_error("compare", "--runs: expected 1 to %d, got '%s'",
					       CMP_MAX_RUNS, runs_arg);
		}
		o->runs = (unsigned)v;
		if (o->seed > UINT64_MAX - o->runs) {
			return cli_usage_error("compare", "--seed %" PRIu64 " + --runs %u overflows",
					       o->seed, o->runs);
		}
	}
	if (jobs_arg) {
		unsigned long v = strtoul(jobs_arg, &end, 10);

		if (end == jobs_arg || *end || *jobs_arg == '-' || v < 1 || v > 1024) {
			return cli_usage_error("compare", "-j: expected 1 to 1024, got '%s'", jobs_arg);
		}
		if (emul && v > 1) {
			return cli_usage_error("compare", "-j %lu: the emulation runs one at a time "
					       "(each run has the machine to itself)", v);
		}
		o->jobs = (unsigned)v;
	} else {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		o->jobs = emul || c < 1 ? 1 : (unsigned)c;
	}
	return 0;
}

/* The topology and the workload, read once before any run: a bad one is
 * one message, not a failure per run. 0, or the exit status. */
static int compare_check_inputs(const struct cmp_opts *o)
{
	char errbuf[512];
	struct stat st;

	if (stat(o->topo, &st) || (strncmp(o->wl, "swim:", 5) && strncmp(o->wl, "coflow:", 7) &&
				  strncmp(o->wl, "wl:", 3) && strncmp(o->wl, "gen:", 4) &&
				  stat(o->wl, &st))) {
		const char *missing = stat(o->topo, &st) ? o->topo : o->wl;

		fprintf(stderr, "hyde compare: %s: %s%s\n", missing, strerror(errno),
			missing == o->topo && !strcmp(o->topo, CMP_DEFAULT_TOPO) ?
			" (run from the hyde source directory, or give -t and -w)" : "");
		return EXIT_USAGE;
	}
	{
		/* the workload too, as the first run will read it: a bad
		 * one is one message, not a failure per run */
		struct workload *wl = NULL;

		if (wl_open_seed(o->wl, o->seed, &wl, errbuf)) {
			fprintf(stderr, "hyde compare: -w: %s\n", errbuf);
			return EXIT_USAGE;
		}
		wl_free(wl);
	}
	return 0;
}

/* Every run's directory, <out>/<spec> or <out>/<spec>/seed-N, none of
 * them there before. 0, or the exit status. */
static int compare_make_dirs(const struct cmp_opts *o, struct cmp_spec *specs, size_t n)
{
	char errbuf[512];
	struct stat st;
	unsigned k;
	size_t i;

	/* every run's directory: <out>/<spec>, or <out>/<spec>/seed-N */
	for (i = 0; i < n; i++) {
		char *d = spec_dirname(specs[i].label), *top = xasprintf("%s/%s", o->outdir, d);

		free(d);
		if (!lstat(top, &st)) {
			fprintf(stderr, "hyde compare: %s exists: give another -o\n", top);
			free(top);
			return EXIT_USAGE;
		}
		specs[i].runs = xcalloc(o->runs, sizeof(*specs[i].runs));
		for (k = 0; k < o->runs; k++) {
			struct cmp_run *run = &specs[i].runs[k];

			run->seed = o->seed + k;
			run->dir = o->runs == 1 ? xstrdup(top) :
				xasprintf("%s/seed-%" PRIu64, top, run->seed);
			run->log = xasprintf("%s.log", run->dir);
			for (int m = 0; m < M_N; m++)
				run->m[m] = NAN;
		}
		free(top);
	}
	if (mkdirs(o->outdir, errbuf)) {
		fprintf(stderr, "hyde compare: %s\n", errbuf);
		return EXIT_USAGE;
	}
	for (i = 0; o->runs > 1 && i < n; i++) {
		char *top = xasprintf("%s", specs[i].runs[0].dir);

		*strrchr(top, '/') = '\0';
		if (mkdirs(top, errbuf)) {
			fprintf(stderr, "hyde compare: %s\n", errbuf);
			free(top);
			return EXIT_USAGE;
		}
		free(top);
	}
	return 0;
}

/* The tables, the CSV files and the plots of the runs, finished or read
 * (--from). Whether every run and file went well. */
static bool compare_report(const struct cmp_opts *o, struct cmp_spec *specs, size_t n)
{
	char errbuf[512];
	bool all_ok = true;
	unsigned k;
	size_t i;

	for (i = 0; i < n; i++)
		for (k = 0; k < o->runs; k++)
			if (!specs[i].runs[k].ok)
				all_ok = false;
	summarise(specs, n, o->runs);
	if (!o->quiet)
		putchar('\n');
	if (o->runs > 1) {
		print_table_ci(stdout, specs, n, o->runs);
	} else {
		print_table_one(stdout, specs, n);
		/* one run says nothing of its spread: the same main job in
		 * emulation moved its average CCT by tens of percent between
		 * runs */
		printf("\none run per scheduler: no confidence interval; --runs N (N >= 2) "
		       "tells how much these figures move from run to run\n");
	}
	print_breakdown(stdout, specs, n, o->runs);
	{
		static const char *const files[] = { "compare.csv", "summary.csv", "breakdown.csv" };
		int (*const fns[])(FILE *, void *) = { write_compare_csv, write_summary_csv,
						       write_breakdown_csv };
		struct csv_arg a = { specs, n, o->runs, o->backend };

		for (k = 0; k < 3; k++) {
			char *path = xasprintf("%s/%s", o->outdir, files[k]);

			if (cli_write_file(path, fns[k], &a, errbuf)) {
				fprintf(stderr, "hyde compare: %s\n", errbuf);
				all_ok = false;
			}
			free(path);
		}
	}
	{
		bool any = false;
		unsigned plots;

		for (i = 0; i < n; i++)
			any |= runs_ok(&specs[i], o->runs) > 0 || specs[i].runs[0].jobs_done > 0;
		plots = plot_available() && any ? write_plots(o->outdir, specs, n, o->runs) : 0;

		if (!o->quiet)
			printf("\nwritten: %s/compare.csv, summary.csv, breakdown.csv%s; each run's "
			       "files in %s/%s%s\n", o->outdir,
			       plots ? ", compare.png, jct_cdf.png, cct_cdf.png" :
			       plot_available() ? "" : " (no plots: gnuplot is not installed)",
			       o->from ? o->from : o->outdir,
			       o->from && is_sweep_dir(o->from) ? "runs/" : "<scheduler>/",
			       o->from && is_sweep_dir(o->from) ? "" : o->runs > 1 ? "seed-N/" : "");
	}
	return all_ok;
}

/* Every run (run_all), SIGINT and SIGTERM stopping them: 0, or the exit
 * status. */
static int compare_run(struct cmp_opts *o, struct cmp_spec *specs, size_t n, bool emul)
{
	struct sigaction sa, old_int, old_term;
	int r = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cmp_on_signal;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	if (!o->quiet) {
		printf("compare: %s on %s, workload %s, %s, ", o->scheds, o->topo, o->wl,
		       emul ? "emulation" : "simulation");
		if (o->runs > 1)
			printf("seeds %" PRIu64 "..%" PRIu64 ", %u at a time", o->seed,
			       o->seed + o->runs - 1, o->jobs);
		else
			printf("seed %" PRIu64, o->seed);
		printf("; output in %s\n", o->outdir);
	}
	if (run_all(o, specs, n, emul))
		r = EXIT_RUN_FAILED;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (cmp_interrupted) {
		fprintf(stderr, "hyde compare: interrupted\n");
		r = EXIT_RUN_FAILED;
	}
	return r;
}

/* A child hyde with args, its output into log if given (a draw's): its
 * pid, or -errno. */
static pid_t start_child(const char **args, const char *log)
{
	pid_t pid, parent = getpid();

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = log ? open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;

		if (log && (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0))
			_exit(127);
		/* a compare killed takes its children along (SIGTERM: each
		 * stops its runs as it would on its own) */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
			_exit(127);
		execv("/proc/self/exe", (char *const *)args);
		_exit(127);
	}
	return pid;
}

/* The same, waited for: its exit status, or -errno. */
static int run_child(const char **args, const char *log)
{
	pid_t pid = start_child(args, log);
	int st;

	if (pid < 0)
		return (int)pid;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_RUN_FAILED;
}

static void fmt_ratio(double med, double p90, char *buf, size_t len)
{
	if (isnan(med))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3f/%.3f", med, p90);
}

/* Each backend's -B options, checked before anything runs (the
 * simulation runs after the emulation: an option it does not take must
 * not wait that long to be refused); the replays' options only where
 * there are replays (--draws). */
static int check_both_kv(const struct cmp_word *w, size_t n_w, unsigned draws)
{
	static const struct backend_ops *const ops[2] = { &backend_emul, &backend_sim };
	char **kv = xcalloc(n_w + 1, sizeof(char *)), errbuf[512];
	size_t i, n;
	int b, r = 0;

	for (i = 0; i < n_w && !r; i++) {
		const char *k;
		int sc;

		if (w[i].code != 'B')
			continue;
		sc = scoped_kv(w[i].arg, &k);
		if (!replay_only_kv(k))
			continue;
		if (sc != 1) {
			fprintf(stderr, "hyde compare: -B %s: an option of the replays, which are the simulation's: -B sim:%s\n",
				w[i].arg, k);
			r = EXIT_USAGE;
		} else if (!draws) {
			fprintf(stderr, "hyde compare: -B %s: an option of the replays, which run with --draws N\n",
				w[i].arg);
			r = EXIT_USAGE;
		}
	}
	for (b = 0; b < 2 && !r; b++) {
		n = 0;
		for (i = 0; i < n_w; i++) {
			const char *k;
			int sc;

			if (w[i].code != 'B')
				continue;
			sc = scoped_kv(w[i].arg, &k);
			if (sc < 0 || sc == b)
				kv[n++] = (char *)k;
		}
		if (backend_opts_check(ops[b], kv, n, errbuf)) {
			fprintf(stderr, "hyde compare: the %s's -B: %s\n",
				b ? "simulation" : "emulation", errbuf);
			r = EXIT_USAGE;
		}
	}
	free(kv);
	return r;
}

/* The words that give option w back to a child hyde compare, into args
 * (a string made for them in *keep, the caller's to free); their count. */
static int word_args(const struct cmp_word *w, const struct option *lo, const char **args,
		     char **keep)
{
	*keep = NULL;
	if (w->code > 0 && w->code < 256) {
		*keep = xasprintf("-%c", w->code);
		args[0] = *keep;
		if (!w->arg)
			return 1;
		args[1] = w->arg;
		return 2;
	}
	for (; lo->name; lo++)
		if (lo->val == w->code && !lo->flag) {
			*keep = w->arg ? xasprintf("--%s=%s", lo->name, w->arg)
				       : xasprintf("--%s", lo->name);
			args[0] = *keep;
			return 1;
		}
	return 0;
}

/* The arguments of a child hyde compare for backend b (0 emul, 1 sim)
 * into args: "hyde compare", then the options as parsed (a cluster such
 * as -qBsim:x=1 is two), less --backend, -o and --draws, which the caller
 * sets; a backend's own -B goes to it alone, unprefixed (the simulation's
 * replay_only_kv, to the replays alone). Strings made for them go to
 * keep[*n_keep...]. Their count. */
static int child_args(const struct cmp_word *w, size_t n_w, const struct option *lo, int b,
		      const char **args, char **keep, size_t *n_keep)
{
	size_t i;
	int na = 0;

	args[na++] = "hyde";
	args[na++] = "compare";
	for (i = 0; i < n_w; i++) {
		const char *kv;
		int sc;

		if (w[i].code == OPT_BACKEND || w[i].code == 'o' || w[i].code == OPT_DRAWS)
			continue;
		if (w[i].code == 'B' && (sc = scoped_kv(w[i].arg, &kv)) >= 0) {
			if (sc == b && !replay_only_kv(kv)) {
				args[na++] = "-B";
				args[na++] = kv;
			}
			continue;
		}
		na += word_args(&w[i], lo, args + na, &keep[*n_keep]);
		if (keep[*n_keep])
			(*n_keep)++;
	}
	return na;
}

/* The simulation's -B that gives key (KEY=...; -B sim:KEY=... with
 * --backend both), as given; NULL if none does. */
static const char *sim_kv(const struct cmp_word *w, size_t n_w, const char *key)
{
	size_t i, n = strlen(key);
	const char *kv;

	for (i = 0; i < n_w; i++)
		if (w[i].code == 'B' && scoped_kv(w[i].arg, &kv) != 0 && !strncmp(kv, key, n) &&
		    kv[n] == '=')
			return w[i].arg;
	return NULL;
}

/* The draws' spread unless -B gives it. task_jitter: what an emulated
 * map process takes beyond the model's task_overhead of 3 ms, measured on
 * the main job (hyde fidelity's Tasks: line, fair: median 4.9 ms, p90
 * 14.7): a draw from [0, 10 ms) has that median. share_jitter: the draws
 * of fair, delay and coscheduler then spread as their emulated runs do
 * (README, Fidelity). */
#define DRAWS_TASK_JITTER "task_jitter=10ms"
#define DRAWS_SHARE_JITTER "share_jitter=2"

/* A draw's -B words after args[na]: the defaults asked for (task_jitter,
 * share_jitter: those -B does not give) and jitter_seed=J in seed (the
 * caller's, len bytes). The new count. */
static int draw_words(const char **args, int na, bool task, bool share, unsigned j, char *seed,
		      size_t len)
{
	if (task) {
		args[na++] = "-B";
		args[na++] = DRAWS_TASK_JITTER;
	}
	if (share) {
		args[na++] = "-B";
		args[na++] = DRAWS_SHARE_JITTER;
	}
	snprintf(seed, len, "jitter_seed=%u", j);
	args[na++] = "-B";
	args[na++] = seed;
	return na;
}

/* How many draws run at once: -j's (the last given), else the cores. */
static unsigned draws_at_once(const struct cmp_word *w, size_t n_w, unsigned draws)
{
	unsigned long v = 0;
	size_t i;

	for (i = 0; i < n_w; i++)
		if (w[i].code == 'j')
			v = strtoul(w[i].arg, NULL, 10);
	if (!v) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		v = c < 1 ? 1 : (unsigned long)c;
	}
	return v < draws ? (unsigned)v : draws;
}

/* --draws: the simulation again, N times, each its own child hyde compare
 * into OUT/draws/J (its output in OUT/draws/J.log) with task delays and
 * link shares drawn by jitter_seed J, -j of them at once (each with -j 1:
 * as many simulations at a time as one compare runs). Their specs into
 * dspecs[J - 1] (NULL where a draw failed to run or load); 0, or 1 if one
 * failed. */
static int run_draws(const struct cmp_word *w, size_t n_w, const struct option *lo,
		     const char *outdir, unsigned draws, struct cmp_spec **dspecs, size_t *dn,
		     unsigned *druns)
{
	const char **args = xcalloc(2 * n_w + 18, sizeof(char *));
	char **keep = xcalloc(2 * n_w + 1, sizeof(char *));
	char *dir = xasprintf("%s/draws", outdir), errbuf[512], seed[32];
	bool tj = sim_kv(w, n_w, "task_jitter"), sj = sim_kv(w, n_w, "share_jitter");
	pid_t *pids = xcalloc(draws, sizeof(pid_t));
	unsigned j, next = 1, running = 0, at_once = draws_at_once(w, n_w, draws);
	size_t n_keep = 0, i;
	int na, failed = 0;

	if (mkdirs(dir, errbuf)) {
		fprintf(stderr, "hyde compare: %s\n", errbuf);
		failed = 1;
		goto out;
	}
	while (next <= draws || running) {
		char *sub, *log, *bk = NULL;
		int st, r;
		pid_t pid;

		if (next <= draws && running < at_once) {
			j = next++;
			for (i = 0; i < n_keep; i++)
				free(keep[i]);
			n_keep = 0;
			na = child_args(w, n_w, lo, 1, args, keep, &n_keep);
			na = draw_words(args, na, !tj, !sj, j, seed, sizeof(seed));
			args[na++] = "--backend";
			args[na++] = "sim";
			args[na++] = "-j";
			args[na++] = "1";
			args[na++] = "-o";
			sub = xasprintf("%s/%u", dir, j);
			log = xasprintf("%s/%u.log", dir, j);
			args[na++] = sub;
			args[na] = NULL;
			/* (the child has its own copy of args: they may change now) */
			pids[j - 1] = start_child(args, log);
			if (pids[j - 1] < 0) {
				fprintf(stderr, "hyde compare: draw %u: %s\n", j, strerror((int)-pids[j - 1]));
				failed = 1;
			} else {
				running++;
			}
			free(sub);
			free(log);
			continue;
		}
		pid = waitpid(-1, &st, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "hyde compare: waitpid: %s\n", strerror(errno));
			failed = 1;
			break;
		}
		for (j = 1; j <= draws && pids[j - 1] != pid; j++)
			;
		if (j > draws)
			continue; /* not a draw */
		running--;
		r = WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_RUN_FAILED;
		sub = xasprintf("%s/%u", dir, j);
		log = xasprintf("%s/%u.log", dir, j);
		if (r || load_from(sub, &dspecs[j - 1], &dn[j - 1], &druns[j - 1], &bk, errbuf)) {
			fprintf(stderr, "hyde compare: draw %u (%s) failed: see %s\n", j, sub, log);
			dspecs[j - 1] = NULL;
			dn[j - 1] = 0;
			failed = 1;
		}
		free(bk);
		free(sub);
		free(log);
	}
out:
	for (i = 0; i < n_keep; i++)
		free(keep[i]);
	free(keep);
	free(args);
	free(pids);
	free(dir);
	return failed;
}

/* The draws' tables' figures: average JCT, average CCT (draws.csv names) */
static const int draw_metric[2] = { M_JCT, M_CCT };
static const char *const draw_mname[2] = { "avg_jct_s", "avg_cct_s" };

/* A draws.csv with its header, or NULL (said on stderr: the table is
 * printed all the same). */
static FILE *draws_csv(const char *path, const char *header)
{
	FILE *fp = fopen(path, "w");

	if (!fp)
		fprintf(stderr, "hyde compare: %s: %s\n", path, strerror(errno));
	else
		fprintf(fp, "%s\n", header);
	return fp;
}

/* Each draw's runs' figures, read once. */
static void draws_read(struct cmp_spec **dspecs, const size_t *dn, const unsigned *druns,
		       unsigned draws)
{
	unsigned j, x;
	size_t d;

	for (j = 0; j < draws; j++)
		for (d = 0; dspecs[j] && d < dn[j]; d++)
			for (x = 0; x < druns[j]; x++)
				if (dspecs[j][d].runs[x].ok)
					read_run(&dspecs[j][d], &dspecs[j][d].runs[x]);
}

/* The draws' specs, and the arrays that hold them. */
static void draws_free(struct cmp_spec **dspecs, size_t *dn, unsigned *druns, unsigned draws)
{
	unsigned j;
	size_t i;

	for (j = 0; dspecs && j < draws; j++) {
		for (i = 0; i < dn[j]; i++)
			cmp_spec_free(&dspecs[j][i], druns[j]);
		free(dspecs[j]);
	}
	free(dspecs);
	free(dn);
	free(druns);
}

/* One scheduler's (label) figure over the draws, on one seed. */
struct draw_stats {
	size_t n;
	double min, med, max, mean, cv;
};

/* The draw's run of label on seed (NULL: it did not run or failed). */
static const struct cmp_run *draw_run(struct cmp_spec *const *dspecs, const size_t *dn,
				      const unsigned *druns, unsigned j, const char *label,
				      uint64_t seed)
{
	size_t d;
	unsigned x;

	for (d = 0; dspecs[j] && d < dn[j]; d++) {
		if (strcmp(dspecs[j][d].label, label))
			continue;
		for (x = 0; x < druns[j]; x++)
			if (dspecs[j][d].runs[x].seed == seed && dspecs[j][d].runs[x].ok)
				return &dspecs[j][d].runs[x];
		break;
	}
	return NULL;
}

/* Metric m of label on seed in each draw, sorted into v (draws long), and
 * their min, median, max, mean and CV (standard deviation / mean) in st;
 * their count. */
static size_t draw_values(struct cmp_spec *const *dspecs, const size_t *dn,
			  const unsigned *druns, unsigned draws, const char *label, uint64_t seed,
			  int m, double *v, struct draw_stats *st)
{
	double sum = 0, sq = 0, var;
	size_t nv = 0, x;
	unsigned j;

	memset(st, 0, sizeof(*st));
	for (j = 0; j < draws; j++) {
		const struct cmp_run *r = draw_run(dspecs, dn, druns, j, label, seed);

		if (r)
			v[nv++] = r->m[m];
	}
	if (!nv)
		return 0;
	xqsort(v, nv, sizeof(double), cmp_double);
	for (x = 0; x < nv; x++) {
		sum += v[x];
		sq += v[x] * v[x];
	}
	st->n = nv;
	st->min = v[0];
	st->max = v[nv - 1];
	st->med = nv % 2 ? v[nv / 2] : (v[nv / 2 - 1] + v[nv / 2]) / 2;
	st->mean = sum / (double)nv;
	var = sq / (double)nv - st->mean * st->mean;
	st->cv = st->mean > 0 ? sqrt(var > 0 ? var : 0) / st->mean : 0;
	return nv;
}

/* The draws' table: each emulated run's average JCT and CCT against the
 * same scheduler's and seed's draws (min, median, max; emulated / median;
 * draws below it), also into OUT/fidelity/draws.csv. */
static void report_draws(struct cmp_spec *const specs[2], const size_t n[2], const unsigned runs[2],
			 struct cmp_spec **dspecs, const size_t *dn, const unsigned *druns,
			 unsigned draws, const char *fdir)
{
	const int *metric = draw_metric;
	const char *const *mname = draw_mname;
	double *v = xcalloc(draws, sizeof(double));
	char *path = xasprintf("%s/draws.csv", fdir);
	FILE *fp = draws_csv(path, "scheduler,seed,metric,emulated,simulated,draws,min,median,max,below");
	size_t i, x;
	unsigned k;
	int m;

	draws_read(dspecs, dn, druns, draws);
	printf("\ndraws: the simulation %u more times, drawing task delays and link shares anew\n"
	       "(jitter_seed 1..%u); each emulated run's average against the draws of its\n"
	       "scheduler and seed: min, median, max, emulated / median, draws below it\n",
	       draws, draws);
	printf("%-16s %6s %-4s %9s %9s | %9s %9s %9s %9s %9s\n", "scheduler", "seed", "avg",
	       "emulated", "plain", "min", "median", "max", "/median", "below");
	for (i = 0; i < n[0] && i < n[1]; i++)
		for (k = 0; k < runs[0] && k < runs[1]; k++) {
			struct cmp_run *re = &specs[0][i].runs[k], *rs = &specs[1][i].runs[k];

			if (!re->ok || !rs->ok)
				continue;
			for (m = 0; m < 2; m++) {
				struct draw_stats st;
				size_t below = 0;

				if (!draw_values(dspecs, dn, druns, draws, specs[0][i].label, re->seed,
						 metric[m], v, &st)) {
					printf("%-16s %6" PRIu64 " %-4s (no draw ran)\n", specs[0][i].label,
					       re->seed, m ? "CCT" : "JCT");
					continue;
				}
				for (x = 0; x < st.n; x++)
					below += v[x] < re->m[metric[m]];
				printf("%-16s %6" PRIu64 " %-4s %9.3f %9.3f | %9.3f %9.3f %9.3f %9.3f %4zu of %zu\n",
				       m ? "" : specs[0][i].label, re->seed, m ? "CCT" : "JCT",
				       re->m[metric[m]], rs->m[metric[m]], st.min, st.med, st.max,
				       st.med > 0 ? re->m[metric[m]] / st.med : 0, below, st.n);
				if (fp)
					fprintf(fp, "%s,%" PRIu64 ",%s,%.6f,%.6f,%zu,%.6f,%.6f,%.6f,%zu\n",
						specs[0][i].label, re->seed, mname[m], re->m[metric[m]],
						rs->m[metric[m]], st.n, st.min, st.med, st.max, below);
			}
		}
	if (fp && fclose(fp))
		fprintf(stderr, "hyde compare: %s: %s\n", path, strerror(errno));
	free(path);
	free(v);
}

/* A run's directory under OUT/fidelity: FDIR/<scheduler>, with several
 * seeds FDIR/<scheduler>-seed-N. The caller frees it. */
static char *fidelity_dir(const char *fdir, const char *label, unsigned runs, uint64_t seed)
{
	char *d = spec_dirname(label), *fo;

	fo = runs == 1 ? xasprintf("%s/%s", fdir, d) : xasprintf("%s/%s-seed-%" PRIu64, fdir, d, seed);
	free(d);
	return fo;
}

/* --backend both --draws N: emulated run EMUL replayed (hyde sim --replay:
 * its flows, start times and circuits held) with the simulation's -B,
 * once as the model is (FO/replay) and N times with link shares drawn
 * (share_jitter, 2 unless -B gives it; jitter_seed J: FO/replay-draws/J),
 * then hyde fidelity of EMUL against the plain replay (its files in
 * FO/replay) and against the median of the draws (FO/replay-draws). The
 * two joins' figures into *fs; 0, or 1 if a replay or a join failed (said
 * on stderr: the replays' output is in FO/replay.log). */
static int replay_run(const struct cmp_word *w, size_t n_w, const char *emul, const char *fo,
		      unsigned draws, struct fidelity_summary fs[2])
{
	const char **args = xcalloc(2 * n_w + 16, sizeof(char *));
	char **dirs = xcalloc(draws + 1, sizeof(char *)), seed[32];
	char *log = xasprintf("%s/replay.log", fo), *ddir = xasprintf("%s/replay-draws", fo);
	char errbuf[512];
	bool sj = sim_kv(w, n_w, "share_jitter");
	int na, failed = 0, r;
	unsigned j;
	size_t i;

	dirs[0] = xasprintf("%s/replay", fo);
	if (mkdirs(ddir, errbuf)) {
		fprintf(stderr, "hyde compare: %s\n", errbuf);
		failed = 1;
	}
	for (j = 0; j <= draws && !failed; j++) {
		na = 0;
		args[na++] = "hyde";
		args[na++] = "sim";
		args[na++] = "--replay";
		args[na++] = emul;
		args[na++] = "-q";
		for (i = 0; i < n_w; i++) {
			const char *kv;

			/* the simulation's -B: both backends' and its own */
			if (w[i].code == 'B' && scoped_kv(w[i].arg, &kv) != 0) {
				args[na++] = "-B";
				args[na++] = kv;
			}
		}
		if (j) {
			na = draw_words(args, na, false, !sj, j, seed, sizeof(seed));
			dirs[j] = xasprintf("%s/%u", ddir, j);
		}
		args[na++] = "-o";
		args[na++] = dirs[j];
		args[na] = NULL;
		r = run_child(args, log);
		if (r) { /* (its reason: e.g. a run that measured no set-up) */
			char line[512];

			last_line(log, line, sizeof(line));
			fprintf(stderr, "hyde compare: the replay of %s (%s) failed: %s (log: %s)\n", emul,
				dirs[j], line, log);
			failed = 1;
		}
	}
	if (!failed && (fidelity_run(emul, dirs[0], dirs[0], true, &fs[0]) ||
			fidelity_run_n(emul, (const char *const *)dirs + 1, draws, ddir, true, &fs[1])))
		failed = 1;
	for (j = 0; j <= draws; j++)
		free(dirs[j]);
	free(dirs);
	free(ddir);
	free(log);
	free(args);
	return failed;
}

/* --backend both --draws N: each emulated run against its replays (the
 * per-flow goal's figures: FCT ratio over the flows between hosts, median
 * and p90, against the plain model and against the median of N draws of
 * link shares; and the flows the model did not end), also into
 * FIDELITY/replay.csv. 0, or 1 if one failed. */
static int report_replays(const struct cmp_word *w, size_t n_w, struct cmp_spec *const specs[2],
			  const size_t n[2], const unsigned runs[2], unsigned draws,
			  const char *fdir)
{
	char *path = xasprintf("%s/replay.csv", fdir);
	FILE *fp = draws_csv(path, "scheduler,seed,flows,plain_median,plain_p90,plain_stranded,draws,draws_median,draws_p90,draws_stranded,draws_own_p90");
	size_t i;
	unsigned k;
	int failed = 0;

	printf("\nreplay: each emulated run's flows with its decisions held (hyde sim --replay, the\n"
	       "simulation's -B), against the plain model and against the median of %u replays\n"
	       "with link shares drawn (%s unless -B gives it): FCT ratio emulated /\n"
	       "simulated over the flows between hosts, median/p90 (the per-flow goal: median\n"
	       "0.9-1.1, p90 under 1.5); stranded: flows the model did not end; own p90: each\n"
	       "draw against the median of the others, the median of their p90s (with 3 draws\n"
	       "or more: how far one draw of the model lies from its median, as the emulated\n"
	       "run, one draw of what TCP does, is held against it)\n",
	       draws, DRAWS_SHARE_JITTER);
	printf("%-16s %6s %6s %15s %9s %17s %9s %8s\n", "scheduler", "seed", "flows", "plain model",
	       "stranded", "median of draws", "stranded", "own p90");
	for (i = 0; i < n[0] && i < n[1]; i++)
		for (k = 0; k < runs[0]; k++) {
			struct cmp_run *re = &specs[0][i].runs[k];
			struct fidelity_summary fs[2];
			char *fo, c[3][32];

			if (!re->ok)
				continue;
			fo = fidelity_dir(fdir, specs[0][i].label, runs[0], re->seed);
			if (replay_run(w, n_w, re->dir, fo, draws, fs)) {
				printf("%-16s %6" PRIu64 " (no replay: see above)\n", specs[0][i].label,
				       re->seed);
				failed = 1;
				free(fo);
				continue;
			}
			fmt_ratio(fs[0].hosts_med, fs[0].hosts_p90, c[0], sizeof(c[0]));
			fmt_ratio(fs[1].hosts_med, fs[1].hosts_p90, c[1], sizeof(c[1]));
			if (fs[1].spread_n)
				snprintf(c[2], sizeof(c[2]), "%.3f", fs[1].spread_p90);
			else
				snprintf(c[2], sizeof(c[2]), "-");
			printf("%-16s %6" PRIu64 " %6zu %15s %9zu %17s %9zu %8s\n", specs[0][i].label,
			       re->seed, fs[1].hosts_n, c[0], fs[0].untimed_s, c[1], fs[1].untimed_s,
			       c[2]);
			if (fp)
				fprintf(fp, "%s,%" PRIu64 ",%zu,%.6f,%.6f,%zu,%u,%.6f,%.6f,%zu,",
					specs[0][i].label, re->seed, fs[1].hosts_n, fs[0].hosts_med,
					fs[0].hosts_p90, fs[0].untimed_s, draws, fs[1].hosts_med,
					fs[1].hosts_p90, fs[1].untimed_s);
			if (fp && fs[1].spread_n) /* (empty: under 3 draws) */
				fprintf(fp, "%.6f", fs[1].spread_p90);
			if (fp)
				fputc('\n', fp);
			free(fo);
		}
	if (fp && fclose(fp))
		fprintf(stderr, "hyde compare: %s: %s\n", path, strerror(errno));
	free(path);
	return failed;
}

/* --backend sim --draws: how far each scheduler's averages move over the
 * draws (min, median, max, mean, CV; the plain run / median), and in how
 * many draws of each seed each scheduler had the lowest average, also
 * into OUT/draws.csv. */
static void report_sim_draws(struct cmp_spec *specs, size_t n, unsigned runs,
			     struct cmp_spec **dspecs, const size_t *dn, const unsigned *druns,
			     unsigned draws, const char *outdir)
{
	const int *metric = draw_metric;
	const char *const *mname = draw_mname;
	double *v = xcalloc(draws, sizeof(double));
	/* best[(m * runs + k) * n + i]: the draws of seed k in which scheduler
	 * i had the lowest average of metric m, out of contests[m * runs + k]
	 * (those in which every scheduler ran) */
	size_t *best = xcalloc(2 * (size_t)runs * n, sizeof(size_t));
	size_t *contests = xcalloc(2 * (size_t)runs, sizeof(size_t));
	char *path = xasprintf("%s/draws.csv", outdir);
	FILE *fp = draws_csv(path, "scheduler,seed,metric,plain,draws,min,median,max,mean,cv,lowest,of");
	size_t i;
	unsigned k, j;
	int m;

	draws_read(dspecs, dn, druns, draws);
	printf("\ndraws: the simulation %u more times, drawing task delays and link shares anew\n"
	       "(jitter_seed 1..%u): each scheduler's averages over the draws (min, median, max,\n"
	       "mean, CV), the plain run's against their median, and in how many draws it had\n"
	       "the lowest average of the schedulers (a tie: the first listed)\n",
	       draws, draws);
	printf("%-16s %6s %-4s %9s | %9s %9s %9s %9s %6s %7s %9s\n", "scheduler", "seed", "avg",
	       "plain", "min", "median", "max", "mean", "CV", "/median", "lowest");
	for (m = 0; m < 2; m++)
		for (j = 0; j < draws; j++)
			for (k = 0; k < runs; k++) {
				const struct cmp_run *r;
				double lo = INFINITY;
				size_t arg = SIZE_MAX;

				for (i = 0; i < n; i++) {
					r = draw_run(dspecs, dn, druns, j, specs[i].label, specs[i].runs[k].seed);
					if (!r || isnan(r->m[metric[m]]))
						break; /* a scheduler missing: no contest */
					if (r->m[metric[m]] < lo) {
						lo = r->m[metric[m]];
						arg = i;
					}
				}
				if (i < n || arg == SIZE_MAX)
					continue;
				best[((size_t)m * runs + k) * n + arg]++;
				contests[(size_t)m * runs + k]++;
			}
	for (i = 0; i < n; i++)
		for (k = 0; k < runs; k++) {
			struct cmp_run *rp = &specs[i].runs[k];

			if (!rp->ok)
				continue;
			for (m = 0; m < 2; m++) {
				struct draw_stats st;
				size_t bk = ((size_t)m * runs + k) * n + i, ck = (size_t)m * runs + k;
				char lowest[48];

				if (!draw_values(dspecs, dn, druns, draws, specs[i].label, rp->seed,
						 metric[m], v, &st)) {
					printf("%-16s %6" PRIu64 " %-4s (no draw ran)\n", specs[i].label,
					       rp->seed, m ? "CCT" : "JCT");
					continue;
				}
				snprintf(lowest, sizeof(lowest), "%zu of %zu", best[bk], contests[ck]);
				printf("%-16s %6" PRIu64 " %-4s %9.3f | %9.3f %9.3f %9.3f %9.3f %5.1f%% %7.3f %9s\n",
				       m ? "" : specs[i].label, rp->seed, m ? "CCT" : "JCT",
				       rp->m[metric[m]], st.min, st.med, st.max, st.mean, 100 * st.cv,
				       st.med > 0 ? rp->m[metric[m]] / st.med : 0, lowest);
				if (fp)
					fprintf(fp, "%s,%" PRIu64 ",%s,%.6f,%zu,%.6f,%.6f,%.6f,%.6f,%.6f,%zu,%zu\n",
						specs[i].label, rp->seed, mname[m], rp->m[metric[m]], st.n,
						st.min, st.med, st.max, st.mean, st.cv, best[bk],
						contests[ck]);
			}
		}
	if (fp && fclose(fp))
		fprintf(stderr, "hyde compare: %s: %s\n", path, strerror(errno));
	printf("(also in %s)\n", path);
	free(path);
	free(best);
	free(contests);
	free(v);
}

/* --backend sim --draws N: the draws, into OUT/draws, and their table;
 * 0, or 1 if a draw failed. */
static int compare_sim_draws(const struct cmp_word *w, size_t n_w, const struct option *lo,
			     const struct cmp_opts *o, struct cmp_spec *specs, size_t n,
			     unsigned draws)
{
	struct cmp_spec **dspecs = xcalloc(draws, sizeof(*dspecs));
	size_t *dn = xcalloc(draws, sizeof(*dn));
	unsigned *druns = xcalloc(draws, sizeof(*druns));
	int failed;

	if (!o->quiet)
		printf("\ncompare --backend sim: %u draws of the simulation, in %s/draws\n", draws,
		       o->outdir);
	fflush(stdout);
	failed = run_draws(w, n_w, lo, o->outdir, draws, dspecs, dn, druns);
	report_sim_draws(specs, n, o->runs, dspecs, dn, druns, draws, o->outdir);
	draws_free(dspecs, dn, druns, draws);
	return failed;
}

/* --backend both: the same compare once in emulation (OUT/emul) and once
 * in the simulator (OUT/sim), each its own hyde compare with every other
 * option as given, then each run's fidelity (hyde fidelity: the emulated
 * run against the simulated one of the same scheduler and seed, free
 * decisions) into OUT/fidelity/, and one table of them. */
static int compare_both(const struct cmp_word *w, size_t n_w, const struct option *lo,
			const char *outdir, unsigned draws, bool quiet)
{
	struct cmp_spec **dspecs = NULL;
	size_t *dn = NULL;
	unsigned *druns = NULL;
	static const char *const be[2] = { "emul", "sim" };
	const char **args = xcalloc(2 * n_w + 8, sizeof(char *));
	char **keep = xcalloc(2 * n_w + 1, sizeof(char *));
	char *sub[2], errbuf[512], *fdir = NULL;
	struct cmp_spec *specs[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 }, i, n_keep = 0;
	unsigned runs[2] = { 0, 0 }, k;
	int b, r = 0, na;
	bool failed = false;

	if ((r = check_both_kv(w, n_w, draws))) {
		free(args);
		free(keep);
		return r;
	}
	dspecs = xcalloc(draws + 1, sizeof(*dspecs));
	dn = xcalloc(draws + 1, sizeof(*dn));
	druns = xcalloc(draws + 1, sizeof(*druns));
	sub[0] = xasprintf("%s/emul", outdir);
	sub[1] = xasprintf("%s/sim", outdir);
	for (b = 0; b < 2; b++) {
		char *bk = NULL;

		na = child_args(w, n_w, lo, b, args, keep, &n_keep);
		args[na++] = (char *)"--backend";
		args[na++] = (char *)be[b];
		args[na++] = (char *)"-o";
		args[na++] = sub[b];
		args[na] = NULL;
		if (!quiet)
			printf("compare --backend both: %s, in %s\n",
			       b ? "the simulation" : "the emulation", sub[b]);
		r = run_child(args, NULL);
		if (r == EXIT_USAGE || r < 0) {
			if (r < 0)
				fprintf(stderr, "hyde compare: /proc/self/exe: %s\n", strerror(-r));
			r = EXIT_USAGE;
			goto out;
		}
		failed |= r != 0;
		if (load_from(sub[b], &specs[b], &n[b], &runs[b], &bk, errbuf)) {
			fprintf(stderr, "hyde compare: %s\n", errbuf);
			free(bk);
			r = EXIT_RUN_FAILED;
			goto out;
		}
		free(bk);
	}
	r = 0;
	if (draws) {
		if (!quiet)
			printf("compare --backend both: %u draws of the simulation, in %s/draws\n", draws,
			       outdir);
		failed |= run_draws(w, n_w, lo, outdir, draws, dspecs, dn, druns) != 0;
	}
	fdir = xasprintf("%s/fidelity", outdir);
	if (mkdirs(fdir, errbuf)) {
		fprintf(stderr, "hyde compare: %s\n", errbuf);
		r = EXIT_RUN_FAILED;
		goto out;
	}
	printf("\nfidelity: each emulated run against its simulation (free decisions; ratio emulated /\n"
	       "simulated, median/p90 over the flows, coflows, jobs joined; avg: of the run's averages;\n"
	       "jobs alike: those that placed every task on the same host in both)\n");
	printf("%-16s %6s %12s %15s %15s %15s %10s %10s %11s\n", "scheduler", "seed", "flows joined",
	       "FCT ratio", "CCT ratio", "JCT ratio", "avg JCT", "avg CCT", "jobs alike");
	for (i = 0; i < n[0] && i < n[1]; i++)
		for (k = 0; k < runs[0] && k < runs[1]; k++) {
			struct cmp_run *re = &specs[0][i].runs[k], *rs = &specs[1][i].runs[k];
			struct fidelity_summary fs;
			char *fo, c1[32], c2[32], c3[32], jj[16], cc[16], ja[32];

			if (!re->ok || !rs->ok) {
				printf("%-16s %6" PRIu64 " (a run failed: no fidelity)\n", specs[0][i].label,
				       re->seed);
				continue;
			}
			fo = fidelity_dir(fdir, specs[0][i].label, runs[0], re->seed);
			if (mkdirs(fo, errbuf) || fidelity_run(re->dir, rs->dir, fo, true, &fs)) {
				printf("%-16s %6" PRIu64 " (no fidelity: see above)\n", specs[0][i].label,
				       re->seed);
				free(fo);
				failed = true;
				continue;
			}
			read_run(&specs[0][i], re);
			read_run(&specs[1][i], rs);
			fmt_ratio(fs.ratio_med[0], fs.ratio_p90[0], c1, sizeof(c1));
			fmt_ratio(fs.ratio_med[1], fs.ratio_p90[1], c2, sizeof(c2));
			fmt_ratio(fs.ratio_med[2], fs.ratio_p90[2], c3, sizeof(c3));
			snprintf(jj, sizeof(jj), "%.3f", re->m[M_JCT] / rs->m[M_JCT]);
			snprintf(cc, sizeof(cc), "%.3f", re->m[M_CCT] / rs->m[M_CCT]);
			snprintf(ja, sizeof(ja), "%zu of %zu", fs.jobs_alike, fs.jobs_placed);
			printf("%-16s %6" PRIu64 " %5zu of %-5zu %15s %15s %15s %10s %10s %11s\n",
			       specs[0][i].label, re->seed, fs.joined[0], fs.flows_e, c1, c2, c3, jj, cc, ja);
			free(fo);
		}
	if (draws) {
		report_draws(specs, n, runs, dspecs, dn, druns, draws, fdir);
		failed |= report_replays(w, n_w, specs, n, runs, draws, fdir) != 0;
	}
	printf("\nper run: %s/<scheduler>[-seed-N]/fidelity.csv, fidelity.png (hyde fidelity EMUL_RUN SIM_RUN for the tables)%s\n",
	       fdir, draws ? "; draws.csv; replay.csv, and per run replay/ and replay-draws/ (their fidelity.csv, fidelity.png)" : "");
	r = failed ? EXIT_RUN_FAILED : 0;
out:
	draws_free(dspecs, dn, druns, draws);
	for (b = 0; b < 2; b++) {
		for (i = 0; i < n[b]; i++)
			cmp_spec_free(&specs[b][i], runs[b]);
		free(specs[b]);
		free(sub[b]);
	}
	free(fdir);
	for (i = 0; i < n_keep; i++)
		free(keep[i]);
	free(keep);
	free(args);
	return r;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option own[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "workload", required_argument, NULL, 'w' },
		{ "schedulers", required_argument, NULL, 's' },
		{ "out", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "runs", required_argument, NULL, OPT_RUNS },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "draws", required_argument, NULL, OPT_DRAWS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cmp_opts o = {
		.topo = CMP_DEFAULT_TOPO,
		.wl = CMP_DEFAULT_WL,
		.scheds = CMP_DEFAULT_SCHEDS,
		.backend = "emul",
		.seed = 1,
		.runs = 1,
	};
	struct cmp_spec *specs = NULL;
	char errbuf[512], outbuf[128];
	const char *jobs_arg = NULL, *runs_arg = NULL, *seed_arg = NULL, *draws_arg = NULL, *js;
	unsigned draws = 0;
	char *from_backend = NULL;
	char *scheds_acc = NULL; /* -s given more than once: the lists joined */
	bool scheds_given = false;
	bool run_opts = false; /* options that make runs, refused with --from */
	struct cmp_pass *pass = NULL;
	size_t n_pass = 0, cap_pass = 0;
	struct cmp_word *words = NULL; /* every option, for --backend both */
	size_t n_words = 0, cap_words = 0;
	struct option *longopts;
	char *shortopts;
	size_t n = 0, i;
	bool emul, all_ok = true;
	int opt, r = 0;

	ctl_opts_default(&o.run);
	runopt_state_init(&o.st, false);
	longopts = runopt_longopts(RUNOPT_PASS, own, "t:w:s:o:j:qh", &shortopts);
	optind = 1;
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (!(opt < 256 && strchr("oqh", opt)) && opt != OPT_FROM && opt != OPT_BASELINE)
			run_opts = true;
		xgrow((void **)&words, &cap_words, n_words + 1, sizeof(*words));
		words[n_words++] = (struct cmp_word){ opt, optarg };
		switch (opt) {
		case 't':
			o.topo = optarg;
			break;
		case 'w':
			o.wl = optarg;
			break;
		case 's':
			if (scheds_given) {
				/* another -s adds to the list, it does not replace it */
				char *j = xasprintf("%s,%s", o.scheds, optarg);

				free(scheds_acc);
				o.scheds = scheds_acc = j;
			} else
				o.scheds = optarg;
			scheds_given = true;
			break;
		case 'o':
			o.outdir = optarg;
			break;
		case 'j':
			jobs_arg = optarg;
			break;
		case OPT_BACKEND:
			o.backend = optarg;
			break;
		case OPT_SEED:
			seed_arg = optarg;
			break;
		case OPT_RUNS:
			runs_arg = optarg;
			break;
		case OPT_FROM:
			o.from = optarg;
			break;
		case OPT_BASELINE:
			o.baseline = optarg;
			break;
		case OPT_DRAWS:
			draws_arg = optarg;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			compare_usage(stdout);
			goto out;
		default:
			if (opt != '?' && runopt_find(opt)) {
				xgrow((void **)&pass, &cap_pass, n_pass + 1, sizeof(*pass));
				pass[n_pass++] = (struct cmp_pass){ opt, optarg };
				break;
			}
			compare_usage(stderr);
			r = EXIT_USAGE;
			goto out;
		}
	}
	if (optind < argc) {
		r = cli_usage_error("compare", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (o.from) {
		if (run_opts || draws_arg) {
			r = cli_usage_error("compare", "--from reads finished runs: only -o, "
					    "--baseline and -q go with it");
			goto out;
		}
		if ((r = compare_load_from(&o, &specs, &n, &from_backend)))
			goto out;
		goto report;
	}
	if (draws_arg) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(draws_arg, &end, 10);
		if (strcmp(o.backend, "both") && strcmp(o.backend, "sim")) {
			r = cli_usage_error("compare", "--draws goes with --backend sim or both (the "
					    "simulation drawn again)");
			goto out;
		}
		if (errno || end == draws_arg || *end || draws_arg[0] == '-' || v < 2 || v > 1000) {
			r = cli_usage_error("compare", "--draws: expected a count from 2 to 1000, got '%s'",
					    draws_arg);
			goto out;
		}
		draws = (unsigned)v;
		if ((js = sim_kv(words, n_words, "jitter_seed"))) {
			r = cli_usage_error("compare", "--draws sets each draw's jitter_seed: "
					    "-B %s does not go with it", js);
			goto out;
		}
	}
	if (!strcmp(o.backend, "both")) {
		if (!o.outdir) {
			time_t now = time(NULL);
			struct tm tm;

			localtime_r(&now, &tm);
			snprintf(outbuf, sizeof(outbuf), "runs/compare-%04d%02d%02d-%02d%02d%02d",
				 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
				 tm.tm_min, tm.tm_sec);
			o.outdir = outbuf;
		}
		r = compare_both(words, n_words, longopts, o.outdir, draws, o.quiet);
		goto out;
	}
	if (strcmp(o.backend, "emul") && strcmp(o.backend, "sim")) {
		r = cli_usage_error("compare", "--backend: expected emul, sim or both, got '%s'", o.backend);
		goto out;
	}
	emul = !strcmp(o.backend, "emul");
	if ((r = cmp_run_opts(&o, pass, n_pass, emul)))
		goto out;
	if ((r = compare_counts(&o, seed_arg, runs_arg, jobs_arg, emul)))
		goto out;
	if ((r = compare_check_inputs(&o)))
		goto out;
	if (parse_specs(&o, &specs, &n, errbuf)) {
		fprintf(stderr, "hyde compare: -s: %s\n", errbuf);
		r = EXIT_USAGE;
		goto out;
	}
	if (o.baseline && set_baseline(specs, n, o.baseline, errbuf)) {
		fprintf(stderr, "hyde compare: %s\n", errbuf);
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
	if ((r = compare_make_dirs(&o, specs, n)))
		goto out;

	if ((r = compare_run(&o, specs, n, emul)))
		goto out;
report:
	all_ok = compare_report(&o, specs, n);
	if (draws && (r = compare_sim_draws(words, n_words, longopts, &o, specs, n, draws)))
		all_ok = false;
	r = all_ok ? 0 : EXIT_RUN_FAILED;
out:
	for (i = 0; i < n; i++)
		cmp_spec_free(&specs[i], o.runs);
	free(specs);
	free(o.run.sched_kv);
	free(o.run.backend_kv);
	runopt_state_free(&o.st);
	free(pass);
	free(words);
	free(longopts);
	free(shortopts);
	free(from_backend);
	free(scheds_acc);
	return r;
}
