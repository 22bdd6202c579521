/* hyde analyze RUN_DIR: captures -> flows.csv, coflows.csv, jobs.csv,
 * summary.json and plots, and a short report on stdout. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyze/analyze.h"
#include "cli.h"
#include "core/rundir.h"
#include "core/units.h"
#include "inspect/runlog.h"

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: hyde analyze [--no-plots] [--quiet] [--list-unknown N] [--window FROM-TO]\n"
		"                    RUN_DIR\n\n"
		"Read every capture of RUN_DIR/pcap/ and the run's manifest and app records;\n"
		"write %s, %s, %s, %s and PNG plots (fct_cdf.png, cct_cdf.png,\n"
		"path_bytes.png, timeline.png; gnuplot) into RUN_DIR, all or none.\n\n"
		"timeline.png: per ToR, the EPS uplink's and the OCS port's throughput over\n"
		"time from the captures (into the rack up, out of it down), its circuits\n"
		"with the delta stall before each shaded, and every job's phases as bars.\n\n"
		"FCT: first SYN to the client's first ACK of the last data byte, on the client's\n"
		"ToR host port. CCT: first flow start to last flow end of a coflow. JCT: job\n"
		"arrival to end (app/jobs.csv). summary.json holds the accuracy figure: median\n"
		"and p99 of |pcap - app| for FCT and CCT. First byte: a flow's first SYN to\n"
		"its first data byte on the receiver's port; that of the flows under 100 KB\n"
		"is what hyde sim -B setup stands for.\n\n"
		"  --no-plots        do not run gnuplot (earlier plots are removed)\n"
		"  --quiet, -q       print nothing on success\n"
		"  --list-unknown N  unknown connections listed in summary.json (default 100)\n"
		"  --window FROM-TO  timeline.png shows this window of the run, from its start\n"
		"                    (10s-25s, 2min-, -30s; default the whole run)\n\n"
		"exit status: 0 done, 1 writing the outputs failed, 2 bad usage or a run\n"
		"directory that cannot be analysed (nothing is written then)\n",
		RUNDIR_FLOWS, RUNDIR_COFLOWS, RUNDIR_JOBS, RUNDIR_SUMMARY);
}

static const char *ms(int64_t ns, char *buf, size_t len)
{
	if (ns < 0)
		return "-";
	return unit_human_time((double)ns, buf, len);
}

static void print_dist(const char *name, const struct analyze_dist *d,
		       const char *what)
{
	char a[32], b[32], c[32];

	if (!d->n) {
		printf("  %-10s none %s\n", name, what);
		return;
	}
	printf("  %-10s median %s, p99 %s, max %s (%zu %s)\n", name,
	       ms(d->median, a, sizeof(a)), ms(d->p99, b, sizeof(b)),
	       ms(d->max, c, sizeof(c)), d->n, what);
}

void cli_analyze_print(const char *dir, const struct analyze_result *r)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32];

	printf("hyde analyze %s\n", dir);
	if (r->interrupted)
		printf("  INCOMPLETE the run was interrupted (no %s): what was captured, jobs from its\n"
		       "             inputs and events.log; unfinished jobs and coflows have no JCT or CCT\n",
		       RUNDIR_APP_JOBS);
	if (r->capture_drops)
		printf("  INCOMPLETE the captures dropped %" PRIu64 " frame(s) on %u port(s): their rings were\n"
		       "             full; flows there may be measured wrong (a longer --capture-window\n"
		       "             gives larger rings)\n", r->capture_drops, r->capture_drop_ports);
	printf("  captures   %u files, %" PRIu64 " packets (%" PRIu64 " TCP), %s",
	       r->captures, r->packets, r->tcp_packets,
	       unit_human_size((double)r->capture_bytes, a, sizeof(a)));
	/* the captures' own counts (pcap/NODE.capstats), where they left them */
	if (r->capture_no_stats < r->captures)
		printf("; rings %s, %" PRIu64 " frames dropped",
		       unit_human_size((double)r->capture_ring_bytes, b, sizeof(b)), r->capture_drops);
	if (r->capture_no_stats && r->capture_no_stats < r->captures)
		printf(" (%u port(s) left no counts)", r->capture_no_stats);
	printf("\n");
	printf("  flows      %zu: %zu measured, %zu unfinished, %zu without SYN, %zu not captured, %zu on one host (app timestamps)\n",
	       r->flows, r->flows_done, r->flows_unfinished, r->flows_no_syn,
	       r->flows_not_captured, r->flows_host);
	print_dist("FCT", &r->fct, "flows");
	print_dist("CCT", &r->cct, "complete coflows");
	print_dist("JCT", &r->jct, "finished jobs");
	if (r->makespan_ns >= 0)
		printf("  makespan   %s, %.1f jobs/hour\n", ms(r->makespan_ns, a, sizeof(a)),
		       r->jobs_per_hour);
	printf("  bytes      shuffle %s: OCS %s, EPS %s, in rack %s, on host %s; cross-rack %s, retransmitted %s\n",
	       unit_human_size((double)r->shuffle_bytes, a, sizeof(a)),
	       unit_human_size((double)r->ocs_bytes, b, sizeof(b)),
	       unit_human_size((double)r->eps_bytes, c, sizeof(c)),
	       unit_human_size((double)r->rack_bytes, d, sizeof(d)),
	       unit_human_size((double)r->host_bytes, e, sizeof(e)),
	       unit_human_size((double)r->cross_rack_bytes, f, sizeof(f)),
	       unit_human_size((double)r->retrans_bytes, g, sizeof(g)));
	if (r->ocs_share >= 0)
		printf("  OCS share  %.1f%% of the network traffic\n", 100 * r->ocs_share);
	print_dist("|FCT err|", &r->fct_err, "flows, pcap vs app");
	print_dist("|CCT err|", &r->cct_err, "coflows, pcap vs app");
	print_dist("1st byte", &r->first_byte_small, "flows under 100 KB, first SYN to first data byte");
	print_dist("1st byte", &r->first_byte, "flows");
	if (r->unknown_conns || r->stray_instances)
		printf("  unknown    %zu connection(s) in no manifest line, %zu extra instance(s) (see %s)\n",
		       r->unknown_conns, r->stray_instances, RUNDIR_SUMMARY);
	printf("  wrote      %s %s %s %s and %u plot(s)\n", RUNDIR_FLOWS,
	       RUNDIR_COFLOWS, RUNDIR_JOBS, RUNDIR_SUMMARY, r->plots);
}

int cmd_analyze(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "no-plots", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "list-unknown", required_argument, NULL, 'l' },
		{ "window", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct analyze_opts o = { 0 };
	struct analyze_result res;
	char errbuf[HYDE_ERRBUF_SIZE];
	bool quiet = false;
	uint64_t v;
	int c, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'P':
			o.no_plots = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'l':
			if (parse_uint(optarg, 1, 1000000, &v))
				return cli_usage_error("analyze", "--list-unknown: expected a number from 1 to 1000000, got '%s'", optarg);
			o.list_unknown = (unsigned)v;
			break;
		case 'W':
			if (runlog_parse_window(optarg, &o.window_from, &o.window_to))
				return cli_usage_error("analyze", "--window: expected FROM-TO, times with units from the run's start (10s-25s, 1min-, -2s), got '%s'",
						       optarg);
			o.window = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return cli_usage_error("analyze", "bad option");
		}
	}
	if (optind == argc)
		return cli_usage_error("analyze", "expected RUN_DIR");
	if (argc - optind > 1)
		return cli_usage_error("analyze", "unexpected argument '%s'", argv[optind + 1]);
	r = analyze_run(argv[optind], &o, &res, errbuf);
	if (r) {
		fprintf(stderr, "hyde analyze: %s\n", errbuf);
		return r == -EINVAL ? EXIT_USAGE : EXIT_RUN_FAILED;
	}
	if (!quiet)
		cli_analyze_print(argv[optind], &res);
	return 0;
}
