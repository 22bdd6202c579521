/* hyde sim (and, with the emulator, hyde run): run a workload with one
 * scheduler and print what happened. */
#include "config.h"

#include <getopt.h>
#include <signal.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "core/units.h"
#include "core/util.h"
#include "analyze/analyze.h"
#include "ctl/ctl.h"
#include "ctl/sched_host.h"
#include "emul/capture.h"
#include "emul/estimate.h"
#include "emul/emul.h"
#include "net/netsched.h"

static void run_usage(FILE *fp, const char *cmd)
{
	size_t i;

	fprintf(fp,
		"usage: hyde %s -t TOPOLOGY -w WORKLOAD [-s SCHEDULER] [-S KEY=VALUE]...\n"
		"          [-C CIRCUITS] [-o DIR] [--seed N] [--copies N] [--ocs-fetch HOW]\n"
		"          [--heartbeat TIME] [--no-io] [--coflow-only] [--net POLICY]\n"
		"          [--coflow POLICY] [--rates MODEL] [--rate-quantum TIME]\n"
		"          [--progress] [-q]\n\n"
		"Run the workload with one scheduler %s and print a summary.\n\n"
		"  -t, --topology FILE   topology (topologies/*.topo)\n"
		"  -w, --workload SPEC   workload: a .wl file, swim:TRACE.tsv or coflow:TRACE;\n"
		"                        import options after the trace, comma-separated:\n"
		"                        coflow:TRACE,mb=1MB,min_flow=1MB (hyde import --help);\n"
		"                        or gen:fb,KEY=VALUE... / gen:dag,... drawn with --seed\n"
		"                        (hyde gen --help)\n"
		"  -s, --scheduler NAME  job scheduler (default fair):",
		cmd, !strcmp(cmd, "sim") ? "in the flow-level simulator" : "on the emulated fabric");
	for (i = 0; sched_table[i]; i++)
		fprintf(fp, " %s", sched_table[i]->name);
	fprintf(fp,
		",\n                        or a plugin built against <hyde/sched.h>: ./mysched.so\n"
		"  -S KEY=VALUE          a scheduler option (repeatable; for all: slowstart=0.05,\n"
		"                        assign=1 containers per heartbeat, or all)\n"
		"  -C, --circuits NAME   circuit scheduler: sunflow (default), greedy, none\n"
		"  -o, --out DIR         run directory: inputs, events.log, app/*.csv,\n"
		"                        flows.csv, coflows.csv, jobs.csv, summary.json\n"
		"      --seed N          seed of every random choice (default 1)\n"
		"      --copies N        parallel fetches per reduce (default 5, as Hadoop)\n"
		"      --ocs-fetch HOW   circuit (default): a circuit's fetches start when it is\n"
		"                        up, outside the copies (its reservation is sized for\n"
		"                        the pair's whole demand); copies: they wait for one\n"
		"                        of the reduce's copies like any fetch\n"
		"      --heartbeat TIME  node managers' heartbeat (default 1s, as YARN): a\n"
		"                        host's free containers are offered to the\n"
		"                        scheduler then; 0: at every change, all of them\n"
		"      --no-io           no HDFS traffic: maps read their input where they\n"
		"                        run, reduces write one local replica; only the\n"
		"                        shuffle crosses the network\n"
		"      --coflow-only     every job is a bare coflow (pinned tasks, no compute):\n"
		"                        its CCT runs from its arrival to its last byte, as in\n"
		"                        Sunflow's simulator, and fetches are not limited\n"
		"                        (unless --copies says)\n"
		"      --net POLICY      how the network schedules flows: fair (default: TCP,\n"
		"                        max-min), fcfs, srpt (shortest remaining first),\n"
		"                        las (least attained service first); in emulation\n"
		"                        by 8 strict priority bands on every link and\n"
		"                        senders marking their flows as they go\n"
		"      --coflow POLICY   (sim) schedule coflows instead (a job's flows of\n"
		"                        one kind): varys (SEBF + MADD), scf (smallest\n"
		"                        coflow first), fcfs, fair\n"
		"      --rates MODEL     (sim) the same as --net: maxmin (fair), fcfs, srpt, las\n"
		"      --rate-quantum TIME  (sim) recompute rates at most once per TIME\n"
		"                        (default 0: at every change, exact); faster,\n"
		"                        approximate; keep it well below the circuits'\n"
		"                        reservations (1ms-10ms): a flow waits up to TIME\n"
		"                        for its rate\n"
		"      --progress[=TIME] the live view on stderr: wall and run time, jobs done\n"
		"                        with an ETA, flows moving on EPS and OCS, circuits\n"
		"                        up, the busiest link; refreshed every second on a\n"
		"                        terminal, else a line every TIME (default 10s). On\n"
		"                        by default in hyde run (not with -q)\n"
		"      --no-progress     no live view\n"
		"      --prefix P        (run) namespace prefix of the fabric (default hyde)\n"
		"      --no-analyze      (run) do not analyse the captures at the end\n"
		"      --snaplen BYTES   (run) bytes the captures keep of each frame (default\n"
		"                        128: headers); 0: whole frames, payload included\n"
		"                        (to read the services' requests in Wireshark)\n"
		"      --estimate        (run) print what the run will cost this box (memory,\n"
		"                        namespaces, processes, descriptors) and stop; a run\n"
		"                        the box cannot hold is refused before anything is built\n"
		"      --capture-window TIME\n"
		"                        (run) how long a capture may go without draining\n"
		"                        its ports (default 250ms): each port's ring holds\n"
		"                        what its rate brings in TIME; a full ring drops\n"
		"                        frames, counted, and the run is marked incomplete\n"
		"  -q, --quiet           no summary\n\n");
	sched_print_options((FILE *)fp);
	fprintf(fp, "\nExit status: 0 every job done, 1 the run failed, 2 bad usage or input.\n");
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

int cli_run_common(int argc, char **argv, const struct backend_ops *backend)
{
	static const struct option longopts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "workload", required_argument, NULL, 'w' },
		{ "scheduler", required_argument, NULL, 's' },
		{ "circuits", required_argument, NULL, 'C' },
		{ "out", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 1 },
		{ "copies", required_argument, NULL, 2 },
		{ "heartbeat", required_argument, NULL, 3 },
		{ "progress", optional_argument, NULL, 4 },
		{ "no-progress", no_argument, NULL, 15 },
		{ "prefix", required_argument, NULL, 5 },
		{ "no-analyze", no_argument, NULL, 6 },
		{ "coflow-only", no_argument, NULL, 7 },
		{ "rates", required_argument, NULL, 8 },
		{ "rate-quantum", required_argument, NULL, 9 },
		{ "no-io", no_argument, NULL, 10 },
		{ "ocs-fetch", required_argument, NULL, 13 },
		{ "net", required_argument, NULL, 11 },
		{ "coflow", required_argument, NULL, 12 },
		{ "snaplen", required_argument, NULL, 14 },
		{ "capture-window", required_argument, NULL, 16 },
		{ "estimate", no_argument, NULL, 17 },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = argv[0];
	char errbuf[HYDE_ERRBUF_SIZE];
	struct ctl_opts o;
	struct ctl_totals tt;
	struct ctl *c = NULL;
	uint64_t v;
	int64_t wall;
	int opt, r;
	bool emul = backend == &backend_emul, no_analyze = false, copies = false;
	bool estimate_only = false;
	int progress = -1; /* -1: the default (emulation: unless -q) */
	char outbuf[256];

	ctl_opts_default(&o);
	o.backend = backend;
	o.stream_flows = !emul;
	o.sched_kv = xcalloc((size_t)argc, sizeof(char *));
	optind = 1;
	while ((opt = getopt_long(argc, argv, "t:w:s:S:C:o:qh", longopts, NULL)) != -1) {
		switch (opt) {
		case 't':
			o.topo_path = optarg;
			break;
		case 'w':
			o.wl_spec = optarg;
			break;
		case 's':
			o.sched_name = optarg;
			break;
		case 'S':
			o.sched_kv[o.n_sched_kv++] = optarg;
			break;
		case 'C':
			o.csched_name = optarg;
			break;
		case 'o':
			o.outdir = optarg;
			break;
		case 1:
			if (parse_uint(optarg, 0, UINT64_MAX, &v)) {
				r = cli_usage_error(cmd, "--seed: expected a whole number, got '%s'", optarg);
				goto out;
			}
			o.seed = v;
			break;
		case 2:
			if (parse_uint(optarg, 1, 1000, &v)) {
				r = cli_usage_error(cmd, "--copies: expected 1 to 1000, got '%s'", optarg);
				goto out;
			}
			o.parallel_copies = (unsigned)v;
			copies = true;
			break;
		case 3:
			/* a bare 0: no heartbeats */
			if (strcmp(optarg, "0") && (unit_parse_time(optarg, &o.heartbeat) || o.heartbeat < 0)) {
				r = cli_usage_error(cmd, "--heartbeat: expected %s (0: none), got '%s'",
						    unit_time_expect, optarg);
				goto out;
			}
			if (!strcmp(optarg, "0"))
				o.heartbeat = 0;
			break;
		case 4:
			if (optarg && (unit_parse_time(optarg, &o.progress_every) || o.progress_every <= 0)) {
				r = cli_usage_error(cmd, "--progress=TIME: expected %s, got '%s'",
						    unit_time_expect, optarg);
				goto out;
			}
			progress = 1;
			break;
		case 15:
			progress = 0;
			break;
		case 5:
			o.prefix = optarg;
			break;
		case 6:
			no_analyze = true;
			break;
		case 7:
			o.coflow_only = true;
			break;
		case 10:
			o.no_io = true;
			break;
		case 13:
			if (!strcmp(optarg, "circuit"))
				o.ocs_fetch_slots = false;
			else if (!strcmp(optarg, "copies"))
				o.ocs_fetch_slots = true;
			else {
				r = cli_usage_error(cmd, "--ocs-fetch: expected circuit or copies, got '%s'",
						    optarg);
				goto out;
			}
			break;
		case 14:
			/* 0: whole frames */
			if (parse_uint(optarg, 0, CAPTURE_SNAPLEN_FULL, &v) || (v && v < 64)) {
				r = cli_usage_error(cmd, "--snaplen: expected 0 (whole frames) or 64 to %d bytes, got '%s'",
						    CAPTURE_SNAPLEN_FULL, optarg);
				goto out;
			}
			o.capture_snaplen = v ? (int)v : CAPTURE_SNAPLEN_FULL;
			break;
		case 17:
			estimate_only = true;
			break;
		case 16:
			if (unit_parse_time(optarg, &o.capture_window_ns) || o.capture_window_ns <= 0 ||
			    o.capture_window_ns > 60 * NSEC_PER_SEC) {
				r = cli_usage_error(cmd, "--capture-window: expected a time from 1us to 60s, got '%s'",
						    optarg);
				goto out;
			}
			break;
		case 8:
			if (strcmp(optarg, "maxmin") && strcmp(optarg, "fcfs") &&
			    strcmp(optarg, "srpt") && strcmp(optarg, "las")) {
				r = cli_usage_error(cmd, "--rates: expected maxmin, fcfs, srpt or las, got '%s'",
						    optarg);
				goto out;
			}
			if (emul && strcmp(optarg, "maxmin")) {
				r = cli_usage_error(cmd, "--rates: the simulator's rate models; the fabric's policy is --net");
				goto out;
			}
			o.rates = optarg;
			break;
		case 11:
			if (netsched_net_parse(optarg) < 0 || !strcmp(optarg, "maxmin")) {
				r = cli_usage_error(cmd, "--net: expected fair, fcfs, srpt or las, got '%s'",
						    optarg);
				goto out;
			}
			o.net = optarg;
			if (!emul) /* the simulator's rate model */
				o.rates = strcmp(optarg, "fair") ? optarg : "maxmin";
			break;
		case 12:
			if (netsched_coflow_parse(optarg) < 0) {
				r = cli_usage_error(cmd, "--coflow: expected varys, scf, fcfs, fair or none, got '%s'",
						    optarg);
				goto out;
			}
			if (emul && strcmp(optarg, "none")) {
				r = cli_usage_error(cmd, "--coflow: only the simulator schedules coflows (the fabric enforces flow policies: --net)");
				goto out;
			}
			o.coflow = strcmp(optarg, "none") ? optarg : NULL;
			break;
		case 9:
			if (unit_parse_time(optarg, &o.rate_quantum) || o.rate_quantum < 0) {
				r = cli_usage_error(cmd, "--rate-quantum: expected %s, got '%s'",
						    unit_time_expect, optarg);
				goto out;
			}
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			run_usage(stdout, cmd);
			r = 0;
			goto out;
		default:
			run_usage(stderr, cmd);
			r = EXIT_USAGE;
			goto out;
		}
	}
	if (optind < argc) {
		r = cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!o.topo_path || !o.wl_spec) {
		r = cli_usage_error(cmd, "expected -t TOPOLOGY and -w WORKLOAD");
		goto out;
	}
	if (o.coflow && o.rates && strcmp(o.rates, "maxmin")) {
		r = cli_usage_error(cmd, "--coflow %s schedules coflows: it replaces --net %s (give one)",
				    o.coflow, o.rates);
		goto out;
	}
	/* the live view: on in emulation (a run of minutes on a real fabric)
	 * unless -q; in the simulator when asked */
	o.progress = progress < 0 ? emul && !o.quiet : progress;
	if (o.coflow_only && !copies)
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
	if (!emul && (estimate_only || o.capture_window_ns)) {
		r = cli_usage_error(cmd, "--%s: only an emulated run (hyde run) has captures to size",
				    estimate_only ? "estimate" : "capture-window");
		goto out;
	}
	/* --estimate needs no root: it builds nothing */
	if (emul && estimate_only) {
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
	if (ctl_new(&o, &c, errbuf)) {
		fprintf(stderr, "hyde: %s\n", errbuf);
		r = EXIT_USAGE;
		goto out;
	}
	if (!emul) {
		/* a long simulation stopped by hand still says how far it got
		 * and writes its files */
		struct sigaction sa = { .sa_handler = on_sigint };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
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
	if (!r && emul && !no_analyze) {
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
