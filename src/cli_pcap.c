/* hyde pcap RUN_DIR [-o FILE]: a run's captures as one annotated pcapng
 * (src/inspect/runpcap.h). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/util.h"
#include "inspect/runlog.h"
#include "inspect/runpcap.h"

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: hyde pcap [-o FILE] [--job JOB] [--flow N[,N...]] [--port PORT[,PORT...]]\n"
		"                 [--window FROM-TO] [--no-ocs] [-q] RUN_DIR\n\n"
		"Merge every capture of an emulated run (RUN_DIR/pcap/*.pcap) into one pcapng\n"
		"for Wireshark and tshark: one interface per ToR port (tor3-up, tor3-ocs,\n"
		"tor3-h1: node, link and rate in its description), packets in time order with\n"
		"their direction, and each TCP segment's comment naming its flow, coflow, job,\n"
		"kind (input, shuffle, output) and path from manifest.csv:\n"
		"  hyde flow=3 coflow=0 job=heavy kind=shuffle path=ocs src=r0h0 dst=r1h0 ...\n"
		"An interface ocs-control holds the OCS crossbar's control conversation and\n"
		"its circuit events (ocs-control.log, ocs-events.log), one record a line with\n"
		"a comment; wireshark/hyde.lua decodes them (and the services' requests).\n\n"
		"  -o, --out FILE      the pcapng (default RUN_DIR/run.pcapng; - for stdout,\n"
		"                      e.g. | wireshark -k -i -)\n"
		"      --job JOB       only the TCP segments of JOB's flows\n"
		"      --flow N,...    only these flows' segments (manifest.csv's flow column)\n"
		"      --port P,...    only these interfaces (tor0-up, tor1-h0, ocs-control)\n"
		"      --window FROM-TO  only this window of run time (from the run's start:\n"
		"                      10s-25s, 1min-, -2s)\n"
		"      --no-ocs        leave the OCS records out\n"
		"  -q, --quiet         print nothing on success\n\n"
		"Filter with the comments: tshark -r run.pcapng -Y 'frame.comment contains \"job=heavy\"'.\n"
		"With --job or --flow, OCS records stay (they say when circuits changed).\n\n"
		"exit status: 0 done, 1 writing failed, 2 bad usage or a run directory that\n"
		"cannot be read (nothing is written then)\n");
}

struct write_arg {
	struct runpcap *rp;
	struct runpcap_result *res;
	char *errbuf;
	int r;
};

static int write_fn(FILE *fp, void *arg)
{
	struct write_arg *a = arg;

	a->r = runpcap_write(a->rp, fp, a->res, a->errbuf);
	return a->r;
}

/* A comma-separated list into an array of strings (pointing into s). */
static size_t split_list(char *s, char ***out, size_t n)
{
	char *save = NULL, *tok;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		*out = xrealloc(*out, (n + 1) * sizeof(**out));
		(*out)[n++] = tok;
	}
	return n;
}

int cmd_pcap(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "job", required_argument, NULL, 1 },
		{ "flow", required_argument, NULL, 2 },
		{ "port", required_argument, NULL, 3 },
		{ "window", required_argument, NULL, 4 },
		{ "no-ocs", no_argument, NULL, 5 },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct runpcap_opts o = { .from = INT64_MIN, .to = INT64_MAX };
	struct runpcap_result res;
	char errbuf[HYDE_ERRBUF_SIZE] = "", *out = NULL, *def = NULL;
	char **flows = NULL, **copies = NULL;
	size_t n_flows = 0, n_copies = 0, i;
	uint64_t *ids = NULL;
	struct runpcap *rp = NULL;
	bool quiet = false;
	int c, r = EXIT_USAGE;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 1:
			o.job = optarg;
			break;
		case 2:
			copies = xrealloc(copies, (n_copies + 1) * sizeof(*copies));
			copies[n_copies] = xstrdup(optarg);
			n_flows = split_list(copies[n_copies++], &flows, n_flows);
			break;
		case 3:
			copies = xrealloc(copies, (n_copies + 1) * sizeof(*copies));
			copies[n_copies] = xstrdup(optarg);
			o.n_ports = split_list(copies[n_copies++], &o.ports, o.n_ports);
			break;
		case 4:
			if (runlog_parse_window(optarg, &o.from, &o.to)) {
				r = cli_usage_error("pcap", "--window: expected FROM-TO, times with units from the run's start (10s-25s, 1min-, -2s), got '%s'",
						    optarg);
				goto out;
			}
			break;
		case 5:
			o.no_ocs = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			r = 0;
			goto out;
		default:
			r = cli_usage_error("pcap", "bad option");
			goto out;
		}
	}
	if (optind == argc) {
		r = cli_usage_error("pcap", "expected RUN_DIR");
		goto out;
	}
	if (argc - optind > 1) {
		r = cli_usage_error("pcap", "unexpected argument '%s'", argv[optind + 1]);
		goto out;
	}
	ids = xcalloc(n_flows + 1, sizeof(*ids));
	for (i = 0; i < n_flows; i++)
		if (parse_uint(flows[i], 0, UINT32_MAX, &ids[i])) {
			r = cli_usage_error("pcap", "--flow: expected flow numbers, got '%s'", flows[i]);
			goto out;
		}
	o.flows = ids;
	o.n_flows = n_flows;
	if (runpcap_open(argv[optind], &o, &rp, errbuf)) {
		fprintf(stderr, "hyde pcap: %s\n", errbuf);
		r = EXIT_USAGE;
		goto out;
	}
	if (!out)
		out = def = xasprintf("%s/run.pcapng", argv[optind]);
	{
		struct write_arg a = { rp, &res, errbuf, 0 };

		if (cli_write_file(out, write_fn, &a, errbuf)) {
			fprintf(stderr, "hyde pcap: %s\n", errbuf);
			r = a.r == -EINVAL ? EXIT_USAGE : EXIT_RUN_FAILED;
			goto out;
		}
	}
	if (!quiet) {
		FILE *fp = strcmp(out, "-") ? stdout : stderr;

		fprintf(fp, "hyde pcap: wrote %s: %" PRIu64 " packets of %u captures on %u interfaces, %" PRIu64 " OCS records\n",
			out, res.packets, res.captures, res.interfaces, res.ocs_records);
		fprintf(fp, "  comments  %" PRIu64 " TCP segments with their flow, %" PRIu64 " in no manifest line\n",
			res.commented, res.unknown);
		if (res.late)
			fprintf(fp, "  order     %" PRIu64 " packet(s) more than 100ms out of time order in their capture: written where they came\n",
				res.late);
		if (res.ocs_unplaced && !o.no_ocs)
			fprintf(fp, "  OCS       %zu crossbar event(s) left out: nothing puts their clock on the captures'\n",
				res.ocs_unplaced);
		else if (res.ocs_clock_how && !strcmp(res.ocs_clock_how, "circuit_up"))
			fprintf(fp, "  OCS       event times placed from the controller's circuit_up lines (no 'time' exchange in ocs-control.log): within its reaction time\n");
	}
	r = 0;
out:
	runpcap_free(rp);
	for (i = 0; i < n_copies; i++)
		free(copies[i]);
	free(copies);
	free(flows);
	free(o.ports);
	free(ids);
	free(def);
	return r;
}
