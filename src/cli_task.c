/* The processes a run starts inside the fabric's namespaces: `hyde task
 * map|reduce`, `hyde shuffled`, `hyde capture`. They are hyde's own parts,
 * not meant to be run by hand (the controller starts and stops them), but
 * they are plain subcommands so that `ps` shows what they are. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "core/units.h"
#include "core/util.h"
#include "emul/capture.h"
#include "emul/shuffle.h"

static int need_u32(const char *cmd, const char *opt, const char *v, uint32_t *out)
{
	uint64_t x;

	if (!v || parse_uint(v, 0, UINT32_MAX, &x))
		return cli_usage_error(cmd, "%s: expected a whole number, got '%s'", opt, v ? v : "");
	*out = (uint32_t)x;
	return 0;
}

int cmd_task(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "", *reg = NULL, *ctl = NULL, *work = "sleep";
	char errbuf[HYDE_ERRBUF_SIZE];
	uint32_t job = 0, idx = 0;
	uint64_t seed = 1;
	int64_t ns = 0;
	int i, r;

	if (!strcmp(kind, "--help") || !strcmp(kind, "-h")) {
		printf("usage: hyde task map --reg SOCK --job J --map M --ns NS [--work sleep|cpu]\n"
		       "       hyde task reduce --ctl SOCK --job J --reduce R --seed N\n\n"
		       "A task process of a run, started by the controller inside a host's\n"
		       "namespace (see emul/shuffle.h). Not meant to be run by hand.\n");
		return 0;
	}
	for (i = 2; i + 1 < argc; i += 2) {
		const char *o = argv[i], *v = argv[i + 1];

		if (!strcmp(o, "--reg"))
			reg = v;
		else if (!strcmp(o, "--ctl"))
			ctl = v;
		else if (!strcmp(o, "--work"))
			work = v;
		else if (!strcmp(o, "--job")) {
			if ((r = need_u32("task", o, v, &job)))
				return r;
		} else if (!strcmp(o, "--map") || !strcmp(o, "--reduce")) {
			if ((r = need_u32("task", o, v, &idx)))
				return r;
		} else if (!strcmp(o, "--seed")) {
			if (parse_uint(v, 0, UINT64_MAX, &seed))
				return cli_usage_error("task", "--seed: expected a number");
		} else if (!strcmp(o, "--ns")) {
			uint64_t x;

			if (parse_uint(v, 0, INT64_MAX, &x))
				return cli_usage_error("task", "--ns: expected nanoseconds");
			ns = (int64_t)x;
		} else {
			return cli_usage_error("task", "unknown option '%s'", o);
		}
	}
	if (i != argc)
		return cli_usage_error("task", "options come in pairs");
	if (!strcmp(kind, "map") && reg)
		r = shuffle_map_task(reg, job, idx, ns, !strcmp(work, "cpu"), errbuf);
	else if (!strcmp(kind, "reduce") && ctl)
		r = shuffle_reduce_task(ctl, job, idx, seed, errbuf);
	else
		return cli_usage_error("task", "expected 'map --reg ...' or 'reduce --ctl ...'");
	if (r) {
		fprintf(stderr, "hyde: %s\n", errbuf);
		return EXIT_RUN_FAILED;
	}
	return 0;
}

int cmd_shuffled(int argc, char **argv)
{
	struct shuffle_serve_opts o = {
		.request_timeout_ns = SHUFFLE_REQUEST_TIMEOUT,
	};
	const char *reg = NULL;
	char errbuf[HYDE_ERRBUF_SIZE];
	uint64_t seed = 1, port = 13562, v;
	int i;

	for (i = 1; i < argc; i++) {
		const char *opt = argv[i];

		if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
			printf("usage: hyde shuffled --reg SOCK [--seed N] [--port P]\n"
			       "          [--request-timeout TIME] [--send-timeout TIME] [--max-conns N]\n\n"
			       "The shuffle service of a host (as Hadoop's ShuffleHandler): serves\n"
			       "the map outputs registered on SOCK over TCP. Started by a run.\n"
			       "A request must arrive whole within --request-timeout (default 30s);\n"
			       "with --send-timeout, a reader must take data at least that often\n"
			       "(none by default: an OCS fetch waits while its circuit is down);\n"
			       "past --max-conns connections (default 4096) new ones are refused.\n");
			return 0;
		}
		if (i + 1 == argc)
			return cli_usage_error("shuffled", "'%s' needs a value", opt);
		if (!strcmp(opt, "--reg"))
			reg = argv[++i];
		else if (!strcmp(opt, "--seed")) {
			if (parse_uint(argv[++i], 0, UINT64_MAX, &seed))
				return cli_usage_error("shuffled", "--seed: expected a number");
		} else if (!strcmp(opt, "--port")) {
			if (parse_uint(argv[++i], 1, 65535, &port))
				return cli_usage_error("shuffled", "--port: expected 1 to 65535");
		} else if (!strcmp(opt, "--request-timeout") || !strcmp(opt, "--send-timeout")) {
			int64_t t;

			if (unit_parse_time(argv[++i], &t) || t <= 0)
				return cli_usage_error("shuffled", "%s: expected %s, got '%s'", opt,
						       unit_time_expect, argv[i]);
			if (!strcmp(opt, "--request-timeout"))
				o.request_timeout_ns = t;
			else
				o.send_timeout_ns = t;
		} else if (!strcmp(opt, "--max-conns")) {
			if (parse_uint(argv[++i], 1, 1000000, &v))
				return cli_usage_error("shuffled", "--max-conns: expected 1 to 1000000");
			o.max_conns = (unsigned)v;
		} else
			return cli_usage_error("shuffled", "unknown option '%s'", opt);
	}
	if (!reg)
		return cli_usage_error("shuffled", "expected --reg SOCK");
	o.reg_path = reg;
	o.port = (uint16_t)port;
	o.seed = seed;
	shuffle_serve(&o, errbuf);
	fprintf(stderr, "hyde: %s\n", errbuf);
	return EXIT_RUN_FAILED;
}

int cmd_capture(int argc, char **argv)
{
	const char *dir = NULL, *node = NULL;
	char errbuf[HYDE_ERRBUF_SIZE];
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: hyde capture --dir DIR --node NODE IFACE...\n\n"
			       "Capture IFACE... (headers only) into DIR/NODE-IFACE.pcap until\n"
			       "SIGTERM; writes 'ready' on stdout once every interface is open.\n"
			       "A run starts one per ToR, inside its namespace.\n");
			return 0;
		}
		if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--node") && i + 1 < argc)
			node = argv[++i];
		else
			break;
	}
	if (!dir || !node || i == argc)
		return cli_usage_error("capture", "expected --dir DIR --node NODE IFACE...");
	if (capture_run(dir, node, argv + i, argc - i, 1, errbuf)) {
		fprintf(stderr, "hyde: %s\n", errbuf);
		return EXIT_RUN_FAILED;
	}
	return 0;
}
