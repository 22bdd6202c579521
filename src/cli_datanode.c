/* `hyde datanode`: a host's DataNode data service (emul/datanode.h), as
 * `hyde shuffled` is its shuffle service. Started inside a host's
 * namespace; not meant to be run by hand, but a plain subcommand so that
 * `ps` shows what it is. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/units.h"
#include "core/util.h"
#include "emul/datanode.h"

static int usage(void)
{
	printf("usage: hyde datanode --seed N [--port P] [--idle-timeout TIME]\n"
	       "                     [--stall-timeout TIME] [--max-conns N] [--ready]\n"
	       "                     [--net POLICY] [--band-base SIZE] [--fcfs-table PATH]\n\n"
	       "The DataNode data service of a host (HDFS's data-transfer port, %u):\n"
	       "READ serves a block's bytes, WRITE checks every byte it gets and\n"
	       "forwards them along the replication pipeline (emul/datanode.h gives the\n"
	       "protocol). Block bytes are generated from the run's seed, never stored.\n\n"
	       "  --idle-timeout TIME   close a client that sends no request line by then (5s)\n"
	       "  --stall-timeout TIME  close a transfer that moves no byte for this long (60s)\n"
	       "  --max-conns N         clients served at once, the rest wait (4096)\n"
	       "  --ready               write 'ready' on stdout once listening\n"
	       "  --net POLICY          mark READs as they go for the fabric's priority\n"
	       "                        bands (emul/prio.h): srpt (bytes left), las (bytes\n"
	       "                        sent), fcfs (arrival rank: needs --fcfs-table);\n"
	       "                        fair (default): unmarked\n"
	       "  --band-base SIZE      the first band's bound (100KB; x4 per band)\n"
	       "  --fcfs-table PATH     the run's table of flows' start times (shared)\n\n"
	       "Runs until SIGTERM. Started by a run, inside a host's namespace.\n", DN_PORT);
	return 0;
}

static int time_opt(const char *opt, const char *v, int64_t *ns)
{
	if (unit_parse_time(v, ns) || *ns <= 0)
		return cli_usage_error("datanode", "%s: expected %s, got '%s'", opt,
				       unit_time_expect, v);
	return 0;
}

static int datanode_main(struct dn_serve_opts *o, int argc, char **argv)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	bool seed = false;
	uint64_t v;
	int i, r;

	for (i = 1; i < argc; i++) {
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(opt, "--help") || !strcmp(opt, "-h"))
			return usage();
		if (!strcmp(opt, "--ready")) {
			o->ready_fd = STDOUT_FILENO;
			continue;
		}
		if ((r = prio_parse_arg(&o->prio, argc, argv, &i)) < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		if (!val)
			return cli_usage_error("datanode", "'%s' needs a value", opt);
		i++;
		if (!strcmp(opt, "--seed")) {
			if (parse_uint(val, 0, UINT64_MAX, &o->seed))
				return cli_usage_error("datanode", "--seed: expected a number");
			seed = true;
		} else if (!strcmp(opt, "--port")) {
			if (parse_uint(val, 1, 65535, &v))
				return cli_usage_error("datanode", "--port: expected 1 to 65535");
			o->port = (uint16_t)v;
		} else if (!strcmp(opt, "--idle-timeout")) {
			if ((r = time_opt(opt, val, &o->idle_ns)))
				return r;
		} else if (!strcmp(opt, "--stall-timeout")) {
			if ((r = time_opt(opt, val, &o->stall_ns)))
				return r;
		} else if (!strcmp(opt, "--max-conns")) {
			if (parse_uint(val, 1, 1000000, &v))
				return cli_usage_error("datanode", "--max-conns: expected 1 to 1000000");
			o->max_conns = (unsigned)v;
		} else {
			return cli_usage_error("datanode", "unknown option '%s'", opt);
		}
	}
	if (!seed)
		return cli_usage_error("datanode", "expected --seed N (the run's seed)");
	if (o->prio.net == HYDE_NET_FCFS && !o->prio.table)
		return cli_usage_error("datanode", "--net fcfs: expected --fcfs-table PATH (the run's flow ranks)");
	r = dn_serve(o, errbuf);
	if (r) {
		fprintf(stderr, "hyde: %s\n", errbuf);
		return EXIT_RUN_FAILED;
	}
	return 0;
}

int cmd_datanode(int argc, char **argv)
{
	struct dn_serve_opts o;
	int r;

	dn_serve_opts_default(&o);
	r = datanode_main(&o, argc, argv);
	prio_table_close(o.prio.table);
	return r;
}
