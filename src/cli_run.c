/* hyde sim (and, with the emulator, hyde run): run a workload with one
 * scheduler and print what happened. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_runopts.h"
#include "core/rundir.h"
#include "core/units.h"
#include "core/util.h"
#include "analyze/analyze.h"
#include "ctl/ctl.h"
#include "ctl/sched_host.h"
#include "emul/capture.h"
#include "emul/estimate.h"
#include "emul/emul.h"
#include "net/csched.h"
#include "net/netsched.h"

/* -s: the schedulers built in, by name */
static void sched_help(FILE *fp, const struct runopt *e, void *arg)
{
	size_t i;

	(void)e;
	(void)arg;
	fprintf(fp, "  -s, --scheduler NAME  job scheduler (default fair):");
	for (i = 0; sched_table[i]; i++)
		fprintf(fp, " %s", sched_table[i]->name);
	fprintf(fp,
		",\n                        or a plugin built against <hyde/sched.h>: ./mysched.so\n");
}

static void run_usage(FILE *fp, const char *cmd, const struct backend_ops *backend)
{
	fprintf(fp,
		"usage: hyde %s -t TOPOLOGY -w WORKLOAD [-s SCHEDULER] [-S KEY=VALUE]...\n"
		"          [-C CIRCUITS] [-o DIR] [--seed N] [--copies N] [--ocs-fetch HOW]\n"
		"          [--fetch-order HOW] [--heartbeat TIME] [--no-io] [--coflow-only]\n"
		"          [--net POLICY] [--coflow POLICY] [--rates MODEL]\n"
		"          [--rate-quantum TIME] [--horizon TIME] [--progress] [-q]\n%s\n"
		"Run the workload with one scheduler %s and print a summary.\n\n",
		cmd,
		!strcmp(cmd, "sim") ? "       hyde sim --replay RUN [-o DIR] [--net POLICY] [--rates MODEL]\n"
				      "          [--rate-quantum TIME] [-B KEY=VALUE]... [-q]\n" : "",
		!strcmp(cmd, "sim") ? "in the flow-level simulator" : "on the emulated fabric");
	runopt_print_help(fp, 0, sched_help, NULL);
	fputc('\n', fp);
	sched_print_options((FILE *)fp);
	fprintf(fp, "\nOptions of the circuit schedulers (-C NAME:KEY=VALUE[:KEY=VALUE...]):\n");
	csched_print_options(fp);
	if (backend->n_opts) {
		fprintf(fp, "\nOptions of the %s backend (-B KEY=VALUE):\n",
			!strcmp(cmd, "sim") ? "simulator" : "emulator");
		backend_print_options(backend, fp);
	}
	fprintf(fp, "\nExit status: 0 every job done, 1 the run failed, 2 bad usage or input.\n");
}

/* What the run cost: events handled, and the process's peak memory. */
static void print_cost(const struct ctl_totals *t, double wall)
{
	struct rusage ru;
	char a[32];

	printf("  events           %" PRIu64 ", %.0f per second\n", t->events,
	       wall > 0 ? (double)t->events / wall : 0);
	if (!getrusage(RUSAGE_SELF, &ru))
		printf("  peak memory      %s\n",
		       unit_human_size((double)ru.ru_maxrss * 1024, a, sizeof(a)));
}

static void print_summary(const struct ctl_opts *o, const struct ctl_totals *t,
			  double wall, const char *cmd)
{
	if (o->coflow_only) {
		printf("%s: coflows of %s on %s, circuits %s\n", cmd, o->wl_spec,
		       o->topo_path, o->csched_name);
		printf("  coflows          %zu of %zu done\n", t->jobs_done, t->jobs);
		printf("  average CCT      %.6fs (arrival to last byte)\n", t->avg_cct / 1e9);
		printf("  last coflow end  %.6fs\n", (double)t->last_end / 1e9);
		printf("  flows            %" PRIu64 "\n", t->flows);
		printf("  reconfigurations %" PRIu64 "\n", t->reconfigurations);
		printf("  wall time        %.2fs\n", wall);
		print_cost(t, wall);
		if (o->outdir)
			printf("  run directory    %s (coflows.csv: cct_ns per coflow)\n", o->outdir);
		return;
	}
	char a[32], b[32];
	double total = (double)(t->ocs_bytes + t->eps_bytes + t->rack_bytes + t->host_bytes);

	printf("%s: %s on %s, workload %s, circuits %s\n", cmd, o->sched_name,
	       o->topo_path, o->wl_spec, o->csched_name);
	printf("  jobs             %zu of %zu done\n", t->jobs_done, t->jobs);
	if (t->at_horizon)
		printf("  horizon          %s: the run stopped there (averages over the jobs done)\n",
		       unit_human_time((double)t->horizon, a, sizeof(a)));
	printf("  makespan         %s\n", unit_human_time((double)t->makespan, a, sizeof(a)));
	printf("  average JCT      %s\n", unit_human_time(t->avg_jct, a, sizeof(a)));
	printf("  average CCT      %s\n", unit_human_time(t->avg_cct, a, sizeof(a)));
	printf("  throughput       %.1f jobs/hour\n",
	       t->makespan > 0 ? (double)t->jobs_done * 3600e9 / (double)t->makespan : 0);
	printf("  shuffle          %s in %" PRIu64 " flows: OCS %.1f%%, EPS %.1f%%, in-rack %.1f%%, in-host %.1f%%\n",
	       unit_human_size(total, a, sizeof(a)), t->kind_flows[HYDE_FLOW_SHUFFLE],
	       total ? 100.0 * (double)t->ocs_bytes / total : 0,
	       total ? 100.0 * (double)t->eps_bytes / total : 0,
	       total ? 100.0 * (double)t->rack_bytes / total : 0,
	       total ? 100.0 * (double)t->host_bytes / total : 0);
	printf("  OCS share        %.1f%% of %s cross-rack\n",
	       t->cross_rack_bytes ? 100.0 * (double)t->ocs_bytes / (double)t->cross_rack_bytes : 0,
	       unit_human_size((double)t->cross_rack_bytes, b, sizeof(b)));
	printf("  HDFS input       %s in %" PRIu64 " remote reads, %s of it cross-rack\n",
	       unit_human_size((double)t->kind_bytes[HYDE_FLOW_INPUT], a, sizeof(a)),
	       t->kind_flows[HYDE_FLOW_INPUT],
	       unit_human_size((double)t->kind_cross[HYDE_FLOW_INPUT], b, sizeof(b)));
	printf("  HDFS output      %s in %" PRIu64 " replica writes, %s of it cross-rack\n",
	       unit_human_size((double)t->kind_bytes[HYDE_FLOW_OUTPUT], a, sizeof(a)),
	       t->kind_flows[HYDE_FLOW_OUTPUT],
	       unit_human_size((double)t->kind_cross[HYDE_FLOW_OUTPUT], b, sizeof(b)));
	printf("  reconfigurations %" PRIu64 "\n", t->reconfigurations);
	printf("  wall time        %.2fs\n", wall);
	print_cost(t, wall);
	if (o->outdir)
		printf("  run directory    %s\n", o->outdir);
}

static void on_sigint(int sig)
{
	(void)sig;
	ctl_interrupt();
}

void cli_catch_interrupts(void)
{
	/* the handler once: a second signal takes its default action, so a
	 * run stuck inside one event (the flag is read between events)
	 * still ends on a second Ctrl-C */
	struct sigaction sa = { .sa_handler = on_sigint, .sa_flags = SA_RESETHAND };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Before anything is built: what the run will cost this box, refused
 * (exit 2, nothing made) when the box cannot hold it; with --estimate,
 * printed, and that is all. -1: go on; else the exit status. */
static int check_estimate(const char *cmd, const struct ctl_opts *o, bool only)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct workload *wl = NULL;
	uint64_t tasks = 0;
	struct estimate e;
	struct topo *t = NULL;
	size_t j;

	if (topo_load(o->topo_path, &t, errbuf) ||
	    wl_open_seed(o->wl_spec, o->seed, &wl, errbuf)) {
		fprintf(stderr, "hyde: %s\n", errbuf);
		if (wl)
			wl_free(wl);
		if (t)
			topo_free(t);
		return EXIT_USAGE;
	}
	for (j = 0; j < wl->n_jobs; j++)
		tasks += (uint64_t)wl->jobs[j].maps + wl->jobs[j].reduces;
	estimate_run(t, tasks, true, o->capture_snaplen, o->capture_window_ns, &e);
	wl_free(wl);
	topo_free(t);
	if (only) {
		estimate_print(&e, stdout);
		printf("available  %.1f MB\n", (double)estimate_mem_available() / (1 << 20));
		return 0;
	}
	if (estimate_check(&e, errbuf)) {
		fprintf(stderr, "hyde %s: %s\n", cmd, errbuf);
		return EXIT_USAGE;
	}
	return -1;
}

/* hyde sim --replay RUN (src/ctl/replay.c): RUN's inputs, its flows,
 * starts and circuits; only the rate model's options and -o, -q apply. */
static int cli_replay(const char *cmd, struct ctl_opts *o, struct runopt_state *st,
		      struct option *longopts, char *shortopts)
{
	static const int allowed[] = { OPT_REPLAY, OPT_NET, OPT_RATES, OPT_RATE_QUANTUM, 'B', 'o',
				       'q', OPT_PROGRESS, OPT_NO_PROGRESS };
	char errbuf[HYDE_ERRBUF_SIZE], *topo = NULL, *wl = NULL;
	struct ctl_replay_totals rt;
	struct ctl *c = NULL;
	struct stat sb;
	size_t i, k;
	int r = 0;

	/* anything that would decide is the replayed run's */
	for (i = 0; i < st->n_words; i++) {
		const char *w = st->words[i], *eq;
		const struct runopt *e;
		char name[40];
		bool ok = false;

		if (w[0] != '-' || !w[1])
			continue; /* (a value) */
		snprintf(name, sizeof(name), "%s", w); /* --progress=TIME */
		if ((eq = strchr(name, '=')))
			name[eq - name] = '\0';
		w = name;
		for (e = runopt_table; e->code; e++)
			if (w[1] == '-' ? e->name && !strcmp(w + 2, e->name)
					: e->letter && w[1] == e->letter && !w[2])
				break;
		if (!e->code)
			continue;
		for (k = 0; k < ARRAY_SIZE(allowed); k++)
			ok |= e->code == allowed[k];
		if (!ok) {
			r = cli_usage_error(cmd, "--replay: %s does not apply: the replayed run's decisions and inputs stand", w);
			goto out;
		}
	}
	if (o->topo_path || o->wl_spec) {
		r = cli_usage_error(cmd, "--replay: -t and -w do not apply: the replayed run's inputs stand");
		goto out;
	}
	if (stat(o->replay, &sb) || !S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "hyde %s: --replay %s: not a run directory\n", cmd, o->replay);
		r = EXIT_USAGE;
		goto out;
	}
	topo = xasprintf("%s/%s", o->replay, RUNDIR_INPUT_TOPO);
	wl = xasprintf("%s/%s", o->replay, RUNDIR_INPUT_WL);
	o->topo_path = topo;
	o->wl_spec = wl;
	o->stream_flows = false;
	o->csched_name = "none";
	o->progress = false;
	/* the run's files checked before anything is made */
	{
		const char *outdir = o->outdir;

		o->outdir = NULL;
		o->replay_check = true;
		if (ctl_new(o, &c, errbuf) || ctl_replay_check(c, errbuf)) {
			fprintf(stderr, "hyde %s: --replay: %s\n", cmd, errbuf);
			r = EXIT_USAGE;
			goto out;
		}
		ctl_free(c);
		c = NULL;
		o->outdir = outdir;
		o->replay_check = false;
	}
	if (ctl_new(o, &c, errbuf)) {
		fprintf(stderr, "hyde %s: --replay: %s\n", cmd, errbuf);
		r = EXIT_USAGE;
		goto out;
	}
	r = ctl_replay(c, &rt, errbuf);
	if (r == -EINVAL) {
		fprintf(stderr, "hyde %s: --replay: %s\n", cmd, errbuf);
		r = EXIT_USAGE;
		goto out;
	}
	if (!o->quiet) {
		char a[32];

		printf("%s: replay of %s (its flows, starts and circuits held equal)\n", cmd, o->replay);
		printf("  flows            %zu of %zu done\n", rt.flows_done, rt.flows);
		if (rt.flows_done < rt.flows) {
			char b[32], m[32];

			printf("  stranded         %zu: OCS flows with bytes left when their circuit went\n"
			       "                   down for the last time in the run (end -1 in flows.csv):\n"
			       "                   %s left in all, %s at most in one\n",
			       rt.flows - rt.flows_done, unit_human_size((double)rt.left_bytes, b, sizeof(b)),
			       unit_human_size((double)rt.left_max, m, sizeof(m)));
		}
		printf("  circuits         %" PRIu64 " up, %" PRIu64 " reconfigurations\n",
		       rt.circuits_up, rt.circuit_changes);
		printf("  last flow end    %s\n", unit_human_time((double)rt.end, a, sizeof(a)));
		if (o->outdir)
			printf("  run directory    %s (flows.csv, coflows.csv, events.log)\n", o->outdir);
	}
	if (r) {
		fprintf(stderr, "hyde %s: the replay failed: %s\n", cmd, errbuf);
		r = EXIT_RUN_FAILED;
	}
out:
	ctl_free(c);
	free(topo);
	free(wl);
	free(o->sched_kv);
	free(o->backend_kv);
	runopt_state_free(st);
	free(longopts);
	free(shortopts);
	return r;
}

int cli_run_common(int argc, char **argv, const struct backend_ops *backend)
{
	static const struct option help_opt[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = argv[0];
	char errbuf[HYDE_ERRBUF_SIZE];
	struct runopt_state st;
	struct ctl_opts o;
	struct ctl_totals tt;
	struct ctl *c = NULL;
	struct option *longopts;
	char *shortopts;
	int64_t wall;
	int opt, r = 0;
	bool emul = backend == &backend_emul;
	char outbuf[256];

	ctl_opts_default(&o);
	o.backend = backend;
	o.stream_flows = !emul;
	runopt_state_init(&st, emul);
	longopts = runopt_longopts(0, help_opt, "h", &shortopts);
	optind = 1;
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (opt == 'h') {
			run_usage(stdout, cmd, backend);
			r = 0;
			goto out;
		}
		r = runopt_apply(&o, &st, cmd, opt, optarg);
		if (r == -ENOENT) {
			run_usage(stderr, cmd, backend);
			r = EXIT_USAGE;
		}
		if (r)
			goto out;
	}
	if (optind < argc) {
		r = cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (o.replay)
		return cli_replay(cmd, &o, &st, longopts, shortopts);
	if (!o.topo_path || !o.wl_spec) {
		r = cli_usage_error(cmd, "expected -t TOPOLOGY and -w WORKLOAD");
		goto out;
	}
	if ((r = runopt_check(&o, &st, cmd)))
		goto out;
	/* the live view: on in emulation (a run of minutes on a real fabric)
	 * unless -q; in the simulator when asked */
	o.progress = st.progress < 0 ? emul && !o.quiet : st.progress;
	if (o.coflow_only && !st.copies)
		o.parallel_copies = UINT_MAX; /* Sunflow's model: no fetch limit */
	if (emul && !o.outdir) {
		/* an emulation always leaves its captures somewhere */
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		snprintf(outbuf, sizeof(outbuf), "runs/%s-%04d%02d%02d-%02d%02d%02d", o.sched_name,
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
		o.outdir = outbuf;
	}
	/* --estimate needs no root: it builds nothing */
	if (st.estimate) {
		r = check_estimate(cmd, &o, true);
		goto out;
	}
	if (emul && geteuid() != 0) {
		fprintf(stderr, "hyde %s: the emulation needs root (network namespaces): run it as root or with sudo\n", cmd);
		r = EXIT_USAGE;
		goto out;
	}
	if (emul && (r = check_estimate(cmd, &o, false)) >= 0)
		goto out;
	r = 0;
	if (ctl_new(&o, &c, errbuf)) {
		fprintf(stderr, "hyde: %s\n", errbuf);
		r = EXIT_USAGE;
		goto out;
	}
	if (!emul) /* a long simulation stopped by hand still says how far
		    * it got and writes its files */
		cli_catch_interrupts();
	wall = now_ns();
	r = ctl_run(c, errbuf);
	wall = now_ns() - wall;
	ctl_totals(c, &tt);
	if (!o.quiet)
		print_summary(&o, &tt, (double)wall / 1e9, cmd);
	if (r) {
		fprintf(stderr, "hyde %s: the run failed: %s\n", cmd, errbuf);
		r = EXIT_RUN_FAILED;
	}
	/* the backend's teardown stops the captures (they flush): only then
	 * can the analyzer read them */
	ctl_free(c);
	c = NULL;
	if (!r && emul && !st.no_analyze) {
		struct analyze_opts ao = { 0 };
		struct analyze_result ar;

		if (analyze_run(o.outdir, &ao, &ar, errbuf)) {
			fprintf(stderr, "hyde %s: analysis of %s failed: %s\n", cmd, o.outdir, errbuf);
			r = EXIT_RUN_FAILED;
		} else if (!o.quiet) {
			cli_analyze_print(o.outdir, &ar);
		}
	}
out:
	ctl_free(c);
	free(o.sched_kv);
	free(o.backend_kv);
	runopt_state_free(&st);
	free(longopts);
	free(shortopts);
	return r;
}

int cmd_run(int argc, char **argv)
{
	return cli_run_common(argc, argv, &backend_emul);
}

int cmd_sim(int argc, char **argv)
{
	return cli_run_common(argc, argv, &backend_sim);
}
