/* hyde top [PREFIX]: the live view of a fabric that is up (src/ctl/live.h).
 * A run on it (hyde run, or hyde compare's) writes its status into the
 * fabric's state directory every second: hyde top shows that line, the
 * same the run prints. A fabric without a run (hyde topo up) has no jobs
 * or flows to show: hyde top then measures its links itself (the ToRs'
 * counters, as hyde topo stats) and asks its crossbar for the circuits. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "core/units.h"
#include "core/util.h"
#include "ctl/live.h"
#include "emul/fabric.h"
#include "emul/linkstats.h"
#include "emul/shuffle.h"

static volatile sig_atomic_t top_stop;

static void on_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: hyde top [--interval TIME] [--count N] [PREFIX]\n\n"
		"The live view of the fabric of namespace prefix PREFIX (default hyde), until\n"
		"it goes away (or ^C). While a run uses it (hyde run, hyde compare), the\n"
		"run's own status line: wall and run time, jobs done with an ETA, flows\n"
		"moving on the EPS and the OCS, circuits up, the busiest link. A fabric of\n"
		"hyde topo up: its circuits (from its crossbar) and its busiest link (its\n"
		"ToRs' counters over the interval). Refreshed in place on a terminal, a line\n"
		"per interval otherwise.\n\n"
		"  --interval TIME   between lines (default 1s, at least 100ms)\n"
		"  --count N         stop after N lines\n\n"
		"exit status: 0 done (or the fabric went away), 1 the fabric cannot be\n"
		"read, 2 bad usage or no such fabric\n");
}

/* The run's status, if one wrote it lately. */
static bool run_status(const struct fabric *f, int64_t fresh_ns, struct live_status *s)
{
	char *path = xasprintf("%s/%s", f->state_dir, LIVE_FILE), line[512];
	struct timespec now;
	struct stat st;
	FILE *fp;
	bool ok = false;

	clock_gettime(CLOCK_REALTIME, &now);
	if (!stat(path, &st) &&
	    ((int64_t)(now.tv_sec - st.st_mtim.tv_sec) * NSEC_PER_SEC +
	     (now.tv_nsec - st.st_mtim.tv_nsec)) < fresh_ns &&
	    (fp = fopen(path, "r"))) {
		ok = fgets(line, sizeof(line), fp) && !live_parse(line, s);
		fclose(fp);
	}
	free(path);
	return ok;
}

/* Circuits up and set, from the crossbar's "show" (-1 without one). */
static int ocs_circuits(const struct fabric *f, unsigned *up, unsigned *set)
{
	char *path = xasprintf("%s/ocs.sock", f->state_dir), buf[8192];
	size_t got = 0;
	int fd = emul_unix_connect(path), r = -1;
	char *line, *save = NULL;

	free(path);
	if (fd < 0)
		return -1;
	if (emul_write_all(fd, "show\n", 5))
		goto out;
	for (;;) {
		ssize_t n = read(fd, buf + got, sizeof(buf) - 1 - got);

		if (n <= 0)
			goto out;
		got += (size_t)n;
		buf[got] = '\0';
		if (strstr(buf, "\nok ") || !strncmp(buf, "ok ", 3) || strstr(buf, "err"))
			break;
		if (got == sizeof(buf) - 1)
			goto out;
	}
	*up = *set = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned a, b;
		char state[16];

		if (sscanf(line, "circuit %u %u %15s", &a, &b, state) == 3) {
			(*set)++;
			*up += !strcmp(state, "up");
		}
	}
	r = 0;
out:
	close(fd);
	return r;
}

/* A fabric without a run: its circuits and its busiest link. */
static void fabric_line(const struct fabric *f, const struct linkstats *ls,
			const struct linkstats_sample *a, const struct linkstats_sample *b,
			char *buf, size_t len)
{
	char name[48] = "", rate[32], circ[48] = "";
	double best = 0;
	uint64_t best_bps = 0;
	unsigned up, set;
	size_t i;

	for (i = 0; i < linkstats_count(ls); i++) {
		int64_t iv;
		uint64_t bytes = linkstats_bytes(a, b, i, &iv);
		double u = linkstats_util(bytes, linkstats_rate(ls, i), iv);
		enum linkstats_kind k;
		unsigned rack, host;

		if (!bytes || u <= best || linkstats_link(linkstats_racks(ls), linkstats_hosts(ls), i,
							   &k, &rack, &host))
			continue;
		best = u;
		best_bps = linkstats_rate(ls, i);
		linkstats_link_name(k, rack, host, name, sizeof(name));
	}
	if (f->topo->has_ocs && !ocs_circuits(f, &up, &set))
		snprintf(circ, sizeof(circ), "  circuits %u/%u up", up, set);
	else if (f->topo->has_ocs)
		snprintf(circ, sizeof(circ), "  circuits ? (no crossbar)");
	if (name[0])
		snprintf(buf, len, "fabric %s (no run)%s  busiest %s %.0f%% of %s", f->prefix, circ,
			 name, 100 * best, unit_fmt_rate(best_bps, rate, sizeof(rate)));
	else
		snprintf(buf, len, "fabric %s (no run)%s  links idle", f->prefix, circ);
}

static int top_loop(struct fabric *f, int64_t interval, uint64_t count)
{
	char errbuf[HYDE_ERRBUF_SIZE], line[512];
	struct linkstats_sample s[2];
	struct linkstats *ls = NULL;
	bool tty = isatty(STDOUT_FILENO);
	uint64_t n = 0;
	int cur = 0, r = 0;

	if ((r = linkstats_new(f, &ls, errbuf))) {
		fprintf(stderr, "hyde top: %s\n", errbuf);
		return EXIT_RUN_FAILED;
	}
	linkstats_sample_init(ls, &s[0]);
	linkstats_sample_init(ls, &s[1]);
	if (linkstats_sample(ls, &s[0]))
		goto gone;
	while (!top_stop && (!count || n < count)) {
		struct timespec ts = { interval / NSEC_PER_SEC, interval % NSEC_PER_SEC };
		struct live_status st;

		while (nanosleep(&ts, &ts) && !top_stop)
			;
		if (top_stop)
			break;
		if (linkstats_sample(ls, &s[!cur]))
			goto gone;
		cur = !cur;
		if (run_status(f, 3 * (interval > NSEC_PER_SEC ? interval : NSEC_PER_SEC), &st))
			live_format(&st, line, sizeof(line));
		else
			fabric_line(f, ls, &s[!cur], &s[cur], line, sizeof(line));
		if (tty)
			printf("\r%s\033[K", line);
		else
			printf("%s\n", line);
		fflush(stdout);
		n++;
	}
	if (tty)
		printf("\n");
	goto out;
gone:
	printf("%sfabric %s is gone\n", tty && n ? "\n" : "", f->prefix);
out:
	linkstats_sample_fini(&s[0]);
	linkstats_sample_fini(&s[1]);
	linkstats_free(ls);
	return r;
}

int cmd_top(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prefix = FABRIC_DEFAULT_PREFIX;
	char errbuf[HYDE_ERRBUF_SIZE];
	struct sigaction sa = { .sa_handler = on_signal };
	int64_t interval = NSEC_PER_SEC;
	uint64_t count = 0;
	struct fabric *f;
	int c, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (unit_parse_time(optarg, &interval) || interval < 100 * NSEC_PER_MSEC)
				return cli_usage_error("top", "--interval '%s': expected a time of at least 100ms (%s)",
						       optarg, unit_time_expect);
			break;
		case 'c':
			if (parse_uint(optarg, 1, UINT64_MAX, &count))
				return cli_usage_error("top", "--count '%s': expected a positive integer", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind > 1)
		return cli_usage_error("top", "unexpected argument '%s'", argv[optind + 1]);
	if (optind < argc)
		prefix = argv[optind];
	if (fabric_prefix_check(prefix, errbuf))
		return cli_usage_error("top", "%s", errbuf);
	if (geteuid() != 0) {
		fprintf(stderr, "hyde top: needs root (it reads counters inside the fabric's namespaces): run it with sudo\n");
		return EXIT_USAGE;
	}
	r = fabric_open(prefix, &f, errbuf);
	if (r) {
		fprintf(stderr, "hyde top: %s\n", errbuf);
		return r == -ENOENT || r == -EINVAL ? EXIT_USAGE : EXIT_RUN_FAILED;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	r = top_loop(f, interval, count);
	fabric_free(f);
	return r;
}
