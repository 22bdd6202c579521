/* hyde validate: parse a topology and a workload and print what was
 * understood, so a researcher can check the inputs before a long run. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "core/cluster.h"
#include "core/topo.h"
#include "core/units.h"
#include "core/workload.h"

static void print_topo(const struct topo *t, const char *path)
{
	char a[32], b[32], c[32], d[32];
	unsigned last = topo_n_hosts(t) - 1;

	printf("topology %s (%s)\n", t->name, path);
	printf("  racks        %u\n", t->racks);
	topo_host_name(t, last, a, sizeof(a));
	printf("  hosts        %u per rack, %u in all (r0h0 .. %s)\n", t->hosts,
	       topo_n_hosts(t), a);
	printf("  containers   %u per host, %u in all\n", t->containers,
	       t->containers * topo_n_hosts(t));
	printf("  resources    %g cores, %s per host; a default container %g cores, %s;\n"
	       "               container response %s%s\n",
	       t->cores, unit_fmt_size(t->memory, a, sizeof(a)), t->cores / t->containers,
	       unit_fmt_size(t->memory / t->containers, b, sizeof(b)),
	       t->container_delay.kind == TOPO_DELAY_TABLE1 ? "COBRA Table I's, mean "
	       : t->container_delay.kind == TOPO_DELAY_EXP ? "exponential, mean " : "",
	       unit_fmt_time(t->container_delay.mean, c, sizeof(c)));
	printf("  replicas     %u per input block\n", t->replicas);
	printf("  host link    %s\n", unit_fmt_rate(t->host_rate, a, sizeof(a)));
	if (t->has_eps)
		printf("  EPS uplink   %s per ToR (oversubscription %.3g:1)\n",
		       unit_fmt_rate(t->uplink_rate, a, sizeof(a)), t->oversub);
	else
		printf("  EPS          none: every cross-rack flow takes the OCS\n");
	if (t->has_ocs && !t->has_eps)
		printf("  OCS          %s per port, delta %s\n",
		       unit_fmt_rate(t->ocs_rate, a, sizeof(a)),
		       unit_fmt_time(t->delta, b, sizeof(b)));
	else if (t->has_ocs)
		printf("  OCS          %s per port, delta %s, T_e %s (T_e / bw_o = %s)\n",
		       unit_fmt_rate(t->ocs_rate, a, sizeof(a)),
		       unit_fmt_time(t->delta, b, sizeof(b)),
		       unit_fmt_size(t->t_e, c, sizeof(c)),
		       unit_human_time((double)t->t_e * 8e9 / (double)t->ocs_rate, d, sizeof(d)));
	else
		printf("  OCS          none\n");
	printf("  addresses    EPS %s/%u (rack k: /%u), OCS %s/%u, links %s/%u\n",
	       topo_addr_str(t->eps_net.addr, a, sizeof(a)), t->eps_net.plen,
	       topo_rack_plen(t),
	       topo_addr_str(t->ocs_net.addr, b, sizeof(b)), t->ocs_net.plen,
	       topo_addr_str(t->link_net.addr, c, sizeof(c)), t->link_net.plen);
	printf("  r0h0         EPS %s, OCS %s, gateway %s\n",
	       topo_addr_str(topo_host_addr(t, &t->eps_net, 0), a, sizeof(a)),
	       topo_addr_str(topo_host_addr(t, &t->ocs_net, 0), b, sizeof(b)),
	       topo_addr_str(topo_rack_gateway(t, &t->eps_net, 0), c, sizeof(c)));
}

static void print_workload(const struct workload *wl, const char *spec,
			   const struct topo *t)
{
	uint64_t input = 0, shuffle = 0, output = 0, maps = 0, reduces = 0;
	unsigned cls[3] = { 0, 0, 0 }, heavy_te = 0, pinned = 0, classed = 0;
	int64_t first = INT64_MAX, last = 0;
	char a[32], b[32], c[32];
	size_t i;

	for (i = 0; i < wl->n_jobs; i++) {
		const struct wl_job *j = &wl->jobs[i];

		input += j->input;
		shuffle += j->shuffle;
		output += j->output;
		maps += j->maps;
		reduces += j->reduces;
		cls[wl_job_class(j)]++;
		if (j->has_class)
			classed++;
		if (t && t->has_ocs && j->shuffle >= t->t_e)
			heavy_te++;
		if (j->map_racks || j->reduce_racks)
			pinned++;
		if (j->arrival < first)
			first = j->arrival;
		if (j->arrival > last)
			last = j->arrival;
	}
	printf("workload (%s)\n", spec);
	printf("  jobs         %zu: light %u, medium %u, heavy %u (shuffle < 1MB, 1MB-100MB, > 100MB",
	       wl->n_jobs, cls[WL_LIGHT], cls[WL_MEDIUM], cls[WL_HEAVY]);
	if (classed)
		printf("; %u by their class=, kept from the trace through scaling", classed);
	printf(")\n");
	if (t && t->has_ocs && t->has_eps)
		printf("  shuffle-heavy %u job(s) with shuffle >= T_e (%s)\n", heavy_te,
		       unit_fmt_size(t->t_e, a, sizeof(a)));
	if (pinned)
		printf("  pinned       %u job(s) with fixed map/reduce racks\n", pinned);
	printf("  users        %zu\n", wl->n_users);
	if (wl->n_apps < wl->n_jobs)
		printf("  apps         %zu (jobs sharing app=)\n", wl->n_apps);
	printf("  tasks        %" PRIu64 " maps, %" PRIu64 " reduces\n", maps, reduces);
	printf("  bytes        input %s, shuffle %s, output %s\n",
	       unit_human_size((double)input, a, sizeof(a)),
	       unit_human_size((double)shuffle, b, sizeof(b)),
	       unit_human_size((double)output, c, sizeof(c)));
	printf("  arrivals     %s .. %s\n", unit_human_time((double)first, a, sizeof(a)),
	       unit_human_time((double)last, b, sizeof(b)));
	printf("  DAG depth    %u\n", wl_dag_depth(wl));
}

static void validate_usage(FILE *fp)
{
	fprintf(fp,
		"usage: hyde validate -t TOPOLOGY [-w WORKLOAD]\n"
		"       hyde validate -w WORKLOAD\n\n"
		"Parse the inputs strictly and print what was understood. A workload\n"
		"is a .wl file, a SWIM trace (.tsv or swim:PATH) or a Coflow-Benchmark\n"
		"trace (coflow:PATH). Exit status 2 on the first error, with file and line.\n");
}

int cmd_validate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "workload", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *tpath = NULL, *wpath = NULL;
	char errbuf[HYDE_ERRBUF_SIZE];
	struct topo *t = NULL;
	struct workload *wl = NULL;
	int c, r = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "t:w:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			tpath = optarg;
			break;
		case 'w':
			wpath = optarg;
			break;
		case 'h':
			validate_usage(stdout);
			return 0;
		default:
			validate_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error("validate", "unexpected argument '%s'", argv[optind]);
	if (!tpath && !wpath)
		return cli_usage_error("validate", "expected -t TOPOLOGY and/or -w WORKLOAD");
	if (tpath && topo_load(tpath, &t, errbuf)) {
		fprintf(stderr, "hyde: %s\n", errbuf);
		return EXIT_USAGE;
	}
	if (wpath) {
		if (wl_open(wpath, &wl, errbuf) ||
		    (t && wl_check_topo(wl, t, wpath, errbuf))) {
			fprintf(stderr, "hyde: %s\n", errbuf);
			r = EXIT_USAGE;
			goto out;
		}
	}
	if (t)
		print_topo(t, tpath);
	if (wl)
		print_workload(wl, wpath, t);
out:
	wl_free(wl);
	topo_free(t);
	return r;
}
