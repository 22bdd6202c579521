/* The processes a run starts inside the fabric's namespaces: `hyde task
 * map|reduce`, `hyde shuffled`, `hyde capture`. They are hyde's own parts,
 * not meant to be run by hand (the controller starts and stops them), but
 * they are plain subcommands so that `ps` shows what they are. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hyde/model.h>

#include "cli.h"
#include "core/units.h"
#include "core/util.h"
#include "emul/capture.h"
#include "emul/shuffle.h"
#include "emul/task.h"

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
	const char *kind = argc > 1 ? argv[1] : "";
	struct task_opts o = { .seed = 1 };
	char errbuf[HYDE_ERRBUF_SIZE];
	int i, r;

	if (!strcmp(kind, "--help") || !strcmp(kind, "-h")) {
		printf("usage: hyde task map --ctl SOCK --job J --idx M --seed N --reg SOCK\n"
		       "       hyde task reduce --ctl SOCK --job J --idx R --seed N\n"
		       "       (in a container: --cpu CORES --mem BYTES, what it burns and holds)\n\n"
		       "A task process of a run, started by the controller inside a host's\n"
		       "namespace (see emul/task.h). Not meant to be run by hand.\n");
		return 0;
	}
	if (!strcmp(kind, "map"))
		o.kind = HYDE_MAP;
	else if (!strcmp(kind, "reduce"))
		o.kind = HYDE_REDUCE;
	else
		return cli_usage_error("task", "expected 'map' or 'reduce', got '%s'", kind);
	for (i = 2; i + 1 < argc; i += 2) {
		const char *opt = argv[i], *v = argv[i + 1];

		if (!strcmp(opt, "--reg")) {
			o.reg_path = v;
		} else if (!strcmp(opt, "--ctl")) {
			o.ctl_path = v;
		} else if (!strcmp(opt, "--job")) {
			if ((r = need_u32("task", opt, v, &o.job)))
				return r;
		} else if (!strcmp(opt, "--idx")) {
			if ((r = need_u32("task", opt, v, &o.idx)))
				return r;
		} else if (!strcmp(opt, "--seed")) {
			if (parse_uint(v, 0, UINT64_MAX, &o.seed))
				return cli_usage_error("task", "--seed: expected a number");
		} else if (!strcmp(opt, "--cpu")) {
			if (parse_double(v, 0, 1024, &o.cpu))
				return cli_usage_error("task", "--cpu: expected cores, got '%s'", v);
		} else if (!strcmp(opt, "--mem")) {
			if (parse_uint(v, 0, UINT64_MAX, &o.mem))
				return cli_usage_error("task", "--mem: expected bytes, got '%s'", v);
		} else {
			return cli_usage_error("task", "unknown option '%s'", opt);
		}
	}
	if (i != argc)
		return cli_usage_error("task", "options come in pairs");
	if (!o.ctl_path || (o.kind == HYDE_MAP && !o.reg_path))
		return cli_usage_error("task", "expected --ctl SOCK (and, for a map, --reg SOCK)");
	if ((r = task_process(&o, errbuf))) {
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

	prio_opts_default(&o.prio);
	for (i = 1; i < argc; i++) {
		const char *opt = argv[i];
		int r;

		if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
			printf("usage: hyde shuffled --reg SOCK [--seed N] [--port P]\n"
			       "          [--request-timeout TIME] [--send-timeout TIME] [--max-conns N]\n"
			       "          [--net POLICY] [--band-base SIZE] [--fcfs-table PATH]\n\n"
			       "The shuffle service of a host (as Hadoop's ShuffleHandler): serves\n"
			       "the map outputs registered on SOCK over TCP. Started by a run.\n"
			       "A request must arrive whole within --request-timeout (default 30s);\n"
			       "with --send-timeout, a reader must take data at least that often\n"
			       "(none by default: an OCS fetch waits while its circuit is down);\n"
			       "past --max-conns connections (default 4096) new ones are refused.\n"
			       "--net marks map outputs for the fabric's priority bands as they\n"
			       "go (as 'hyde datanode --net', emul/prio.h).\n");
			return 0;
		}
		if ((r = prio_parse_arg(&o.prio, argc, argv, &i)) < 0)
			return EXIT_USAGE;
		if (r)
			continue;
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
	if (o.prio.net == HYDE_NET_FCFS && !o.prio.table)
		return cli_usage_error("shuffled", "--net fcfs: expected --fcfs-table PATH (the run's flow ranks)");
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
	uint64_t snaplen = CAPTURE_SNAPLEN;
	int64_t window = CAPTURE_WINDOW_NS;
	struct capture_port *ports;
	char **names;
	int i, k, n, r;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: hyde capture --dir DIR --node NODE [--snaplen BYTES] [--window TIME]\n"
			       "                    IFACE[@RATE]...\n\n"
			       "Capture IFACE... (headers only: %d bytes a frame unless --snaplen says,\n"
			       "0 for whole frames) into DIR/NODE-IFACE.pcap until SIGTERM; writes\n"
			       "'ready' on stdout once every interface is open, and at the end each\n"
			       "port's counts (received, dropped: frames its ring had no room for)\n"
			       "into DIR/NODE.capstats. A port's kernel ring holds what RATE (each\n"
			       "direction) brings in --window (default 250ms: how long the capture\n"
			       "may go without draining it); a port without @RATE gets %u MB. A run\n"
			       "starts one per ToR, inside its namespace.\n", CAPTURE_SNAPLEN,
			       CAPTURE_RING_DEFAULT >> 20);
			return 0;
		}
		if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--node") && i + 1 < argc)
			node = argv[++i];
		else if (!strcmp(argv[i], "--snaplen") && i + 1 < argc) {
			if (parse_uint(argv[++i], 0, CAPTURE_SNAPLEN_FULL, &snaplen) ||
			    (snaplen && snaplen < 64))
				return cli_usage_error("capture", "--snaplen: expected 0 (whole frames) or 64 to %d, got '%s'",
						       CAPTURE_SNAPLEN_FULL, argv[i]);
		} else if (!strcmp(argv[i], "--window") && i + 1 < argc) {
			if (unit_parse_time(argv[++i], &window) || window <= 0 || window > 60 * NSEC_PER_SEC)
				return cli_usage_error("capture", "--window: expected a time from 1us to 60s, got '%s'",
						       argv[i]);
		} else
			break;
	}
	if (!dir || !node || i == argc)
		return cli_usage_error("capture", "expected --dir DIR --node NODE IFACE...");
	n = argc - i;
	ports = xcalloc((size_t)n, sizeof(*ports));
	names = xcalloc((size_t)n, sizeof(*names));
	for (k = 0; k < n; k++) {
		char *at;

		names[k] = xstrdup(argv[i + k]);
		at = strchr(names[k], '@');
		if (at) {
			*at = '\0';
			if (unit_parse_rate(at + 1, &ports[k].rate_bps) || !ports[k].rate_bps || !*names[k]) {
				r = cli_usage_error("capture", "'%s': expected IFACE@RATE (e.g. h0@100Mbit)",
						    argv[i + k]);
				goto out;
			}
		}
		ports[k].ifname = names[k];
	}
	r = 0;
	if (capture_run(dir, node, ports, n, 1, (int)snaplen, window, errbuf)) {
		fprintf(stderr, "hyde: %s\n", errbuf);
		r = EXIT_RUN_FAILED;
	}
out:
	for (k = 0; k < n; k++)
		free(names[k]);
	free(names);
	free(ports);
	return r;
}
