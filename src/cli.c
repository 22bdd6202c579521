#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "core/log.h"
#include "core/util.h"


static const struct hyde_cmd commands[] = {
	{ "run", cmd_run, "run a workload with one scheduler on the emulated fabric", NULL },
	{ "compare", cmd_compare, "run several schedulers on the same inputs and compare them", NULL },
	{ "sim", cmd_sim, "run a workload in the flow-level simulator", NULL },
	{ "sweep", cmd_sweep, "a grid of simulation runs, here, through GNU parallel or Slurm", NULL },
	{ "fidelity", cmd_fidelity, "how far a simulation is from an emulated run, flow by flow", NULL },
	{ "analyze", cmd_analyze, "compute FCT, CCT, JCT and path bytes from a run's pcaps", NULL },
	{ "pcap", cmd_pcap, "merge a run's captures into one pcapng annotated with flows and circuits", NULL },
	{ "topo", cmd_topo, "bring an emulated fabric up or down, show it, exec in a node", NULL },
	{ "ocs", cmd_ocs, "run the OCS crossbar; set, show and watch its circuits", NULL },
	{ "top", cmd_top, "the live view of a running fabric: jobs, flows, circuits, busiest link", NULL },
	{ "clean", cmd_clean, "remove every namespace, interface and process hyde left behind", NULL },
	{ "validate", cmd_validate, "check a topology and a workload and print what was understood", NULL },
	{ "gen", cmd_gen, "generate a workload (FB-like mix or job DAGs) from a seed", NULL },
	{ "import", cmd_import, "convert a SWIM or Coflow-Benchmark trace into a workload file", NULL },
	{ "version", cmd_version, "print the version and which parts are built", NULL },
	{ "task", cmd_task, "(internal) a map or reduce task process of a run", NULL },
	{ "shuffled", cmd_shuffled, "(internal) a host's shuffle service in a run", NULL },
	{ "capture", cmd_capture, "(internal) the packet capture of a ToR in a run", NULL },
	{ "datanode", cmd_datanode, "(internal) a host's DataNode data service (blocks)", NULL },
	{ NULL, NULL, NULL, NULL },
};

const struct hyde_cmd *cli_commands(void)
{
	return commands;
}

static void usage(FILE *fp)
{
	const struct hyde_cmd *c;

	fprintf(fp, "usage: hyde [-v] COMMAND [ARGS]   (hyde COMMAND --help for each)\n\n");
	for (c = commands; c->name; c++)
		fprintf(fp, "  %-9s %s%s\n", c->name, c->summary,
			c->missing ? " [not built yet]" : "");
	fprintf(fp, "\nexit status: 0 done, 1 the run failed, 2 bad usage or input\n");
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hyde %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'hyde %s --help')\n", cmd);
	return EXIT_USAGE;
}

int cmd_version(int argc, char **argv)
{
	const struct hyde_cmd *c;

	if (argc > 1) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			printf("usage: hyde version\n\nPrint the version and, per subcommand, whether it is built.\n");
			return 0;
		}
		return cli_usage_error("version", "unexpected argument '%s'", argv[1]);
	}
	printf("hyde %s\n", PACKAGE_VERSION);
	for (c = commands; c->name; c++)
		printf("  %-9s %s\n", c->name,
		       c->missing ? "not built yet" : "built");
	return 0;
}

/* mkstemp makes files 0600; a written result should get the usual mode. */
static mode_t current_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

int cli_write_file(const char *path, int (*fn)(FILE *fp, void *arg), void *arg,
		   char *errbuf)
{
	char *tmp;
	FILE *fp;
	int fd, r;

	if (!path || !strcmp(path, "-")) {
		r = fn(stdout, arg);
		if (!r && fflush(stdout))
			r = -errno;
		if (r)
			errbuf_set(errbuf, "standard output: %s", strerror(-r));
		return r;
	}
	tmp = xasprintf("%s.tmpXXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		r = -errno;
		errbuf_set(errbuf, "%s: %s", path, strerror(errno));
		free(tmp);
		return r;
	}
	fp = fdopen(fd, "w");
	if (!fp) {
		r = -errno;
		close(fd);
		goto err;
	}
	r = fn(fp, arg);
	if (fflush(fp) && !r)
		r = -errno;
	if (fsync(fileno(fp)) && !r)
		r = -errno;
	if (fclose(fp) && !r)
		r = -errno;
	if (r)
		goto err;
	if (chmod(tmp, 0666 & ~current_umask()) || rename(tmp, path)) {
		r = -errno;
		goto err;
	}
	free(tmp);
	return 0;
err:
	errbuf_set(errbuf, "%s: %s", path, strerror(-r));
	unlink(tmp);
	free(tmp);
	return r;
}

int hyde_main(int argc, char **argv)
{
	const struct hyde_cmd *c;
	int i = 1;

	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-v")) {
			log_set_level(log_get_level() + 1);
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			printf("hyde %s\n", PACKAGE_VERSION);
			return 0;
		} else {
			fprintf(stderr, "hyde: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return EXIT_USAGE;
		}
		i++;
	}
	if (i == argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (c = commands; c->name; c++)
		if (!strcmp(c->name, argv[i]))
			return c->fn(argc - i, argv + i);
	fprintf(stderr, "hyde: unknown command '%s'\n", argv[i]);
	usage(stderr);
	return EXIT_USAGE;
}
