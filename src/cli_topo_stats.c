/* hyde topo stats: the bytes each link of a fabric carried, and its rate
 * and utilisation over each interval, from the kernel's counters
 * (emul/linkstats.h) -- `ip -s link`, but per fabric link. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "core/units.h"
#include "core/util.h"
#include "emul/fabric.h"
#include "emul/linkstats.h"

static void stats_usage(FILE *fp)
{
	fprintf(fp,
		"usage: hyde topo stats [--prefix P] [--interval TIME] [--count N] [--active] [--json]\n\n"
		"Bytes and packets each link of fabric P has carried, read from the kernel's\n"
		"counters of the ToRs' interfaces (needs root). Links are directed:\n"
		"r<k>h<i>->tor<k> (counter tor<k>:h<i> rx), tor<k>->r<k>h<i> (h<i> tx),\n"
		"tor<k>->core (up tx), core->tor<k> (up rx), tor<k>->ocs (ocs tx),\n"
		"ocs->tor<k> (ocs rx). Bytes are whole frames, headers included.\n\n"
		"Without --interval or --count: one reading, cumulative since the fabric\n"
		"was built. With them: a reading, then every TIME a report of the\n"
		"cumulative counters and, over the interval, the bytes carried, the rate\n"
		"and the utilisation (bytes x 8 / (link rate x interval)), N reports\n"
		"(--count) or until interrupted. A link saturated by bulk TCP reads about\n"
		"0.956 (one header per GSO frame; HTB counts one per segment).\n\n"
		"  -p, --prefix P       the fabric's namespace prefix (default: %s)\n"
		"  -i, --interval TIME  time between reports (default 1s with --count)\n"
		"  -c, --count N        number of reports (default: until SIGINT/SIGTERM)\n"
		"  -a, --active         only the links that carried something (in the\n"
		"                       interval; since the fabric was built for one reading)\n"
		"  -j, --json           one JSON object per report, one line each\n\n"
		"exit status: 0 done, 1 failed (no such fabric, an interface gone), 2 bad\n"
		"usage, or not root\n",
		FABRIC_DEFAULT_PREFIX);
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct stats_out {
	const struct fabric *f;
	const struct linkstats *ls;
	bool json;
	bool active;
};

/* Whether report() shows link i: it exists (an OCS slot of a fabric
 * without an OCS does not) and, with --active, it carried something. */
static bool shown(const struct stats_out *o, const struct linkstats_sample *prev,
		  const struct linkstats_sample *cur, size_t i)
{
	if (!linkstats_rate(o->ls, i))
		return false;
	if (!o->active)
		return true;
	return prev ? cur->link[i].packets != prev->link[i].packets
		    : cur->link[i].packets != 0;
}

static void fmt_real(int64_t real_ns, char *buf, size_t len)
{
	time_t sec = (time_t)(real_ns / NSEC_PER_SEC);
	struct tm tm;
	size_t n;

	localtime_r(&sec, &tm);
	n = strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03d",
		 (int)(real_ns % NSEC_PER_SEC / NSEC_PER_MSEC));
}

/* One report: a's counters alone (prev NULL: cumulative), or cur against
 * prev over the interval between them. */
static void report_text(const struct stats_out *o,
			const struct linkstats_sample *prev,
			const struct linkstats_sample *cur)
{
	char when[40], name[48], ctr[48], rate[32];
	enum linkstats_kind kind;
	unsigned rack, host;
	size_t i;

	fmt_real(cur->real_ns, when, sizeof(when));
	if (!prev)
		printf("fabric %s: %u racks x %u hosts, counters at %s (read in %.2f ms)\n",
		       o->f->prefix, cur->racks, cur->hosts, when,
		       (double)cur->span_ns / 1e6);
	else
		printf("fabric %s: %s, interval %.3f s (read in %.2f ms)\n",
		       o->f->prefix, when, (double)(cur->mono_ns - prev->mono_ns) / 1e9,
		       (double)cur->span_ns / 1e6);
	printf("%-16s %-14s %-8s %14s %11s", "LINK", "COUNTER", "RATE", "BYTES",
	       "PACKETS");
	printf(prev ? " %12s %9s %6s\n" : "\n", "+BYTES", "MBIT/S", "UTIL");
	for (i = 0; i < cur->n_links; i++) {
		uint64_t r = linkstats_rate(o->ls, i), d;
		int64_t dt;

		if (!shown(o, prev, cur, i))
			continue;
		linkstats_link(cur->racks, cur->hosts, i, &kind, &rack, &host);
		printf("%-16s %-14s %-8s %14" PRIu64 " %11" PRIu64,
		       linkstats_link_name(kind, rack, host, name, sizeof(name)),
		       linkstats_counter_name(kind, rack, host, ctr, sizeof(ctr)),
		       unit_fmt_rate(r, rate, sizeof(rate)), cur->link[i].bytes,
		       cur->link[i].packets);
		if (prev) {
			d = linkstats_bytes(prev, cur, i, &dt);
			printf(" %12" PRIu64 " %9.3f %6.3f", d,
			       dt > 0 ? (double)d * 8e3 / (double)dt : 0.0,
			       linkstats_util(d, r, dt));
		}
		printf("\n");
	}
	printf("\n");
}

static void report_json(const struct stats_out *o,
			const struct linkstats_sample *prev,
			const struct linkstats_sample *cur)
{
	char name[48], ctr[48];
	enum linkstats_kind kind;
	unsigned rack, host;
	bool first = true;
	size_t i;

	printf("{\"prefix\":\"%s\",\"topology\":\"%s\",\"racks\":%u,\"hosts\":%u,"
	       "\"mono_ns\":%" PRId64 ",\"real_ns\":%" PRId64 ",\"span_ns\":%" PRId64,
	       o->f->prefix, o->f->topo->name, cur->racks, cur->hosts, cur->mono_ns,
	       cur->real_ns, cur->span_ns);
	if (prev)
		printf(",\"interval_ns\":%" PRId64, cur->mono_ns - prev->mono_ns);
	printf(",\"links\":[");
	for (i = 0; i < cur->n_links; i++) {
		uint64_t r = linkstats_rate(o->ls, i), d;
		int64_t dt;

		if (!shown(o, prev, cur, i))
			continue;
		linkstats_link(cur->racks, cur->hosts, i, &kind, &rack, &host);
		printf("%s{\"index\":%zu,\"link\":\"%s\",\"kind\":\"%s\",\"rack\":%u",
		       first ? "" : ",", i,
		       linkstats_link_name(kind, rack, host, name, sizeof(name)),
		       linkstats_kind_name(kind), rack);
		first = false;
		if (kind == LINKSTATS_HOST_UP || kind == LINKSTATS_HOST_DOWN)
			printf(",\"host\":%u", host);
		printf(",\"counter\":\"%s\",\"rate_bps\":%" PRIu64 ",\"bytes\":%" PRIu64
		       ",\"packets\":%" PRIu64,
		       linkstats_counter_name(kind, rack, host, ctr, sizeof(ctr)), r,
		       cur->link[i].bytes, cur->link[i].packets);
		if (prev) {
			d = linkstats_bytes(prev, cur, i, &dt);
			printf(",\"interval_ns\":%" PRId64 ",\"interval_bytes\":%" PRIu64
			       ",\"interval_packets\":%" PRIu64 ",\"bps\":%.0f,\"util\":%.4f",
			       dt, d,
			       linkstats_delta(prev->link[i].packets, cur->link[i].packets),
			       dt > 0 ? (double)d * 8e9 / (double)dt : 0.0,
			       linkstats_util(d, r, dt));
		}
		printf("}");
	}
	printf("]}\n");
}

static void report(const struct stats_out *o, const struct linkstats_sample *prev,
		   const struct linkstats_sample *cur)
{
	if (o->json)
		report_json(o, prev, cur);
	else
		report_text(o, prev, cur);
	fflush(stdout);
}

/* Sleep until the absolute CLOCK_MONOTONIC instant at; false if a signal
 * asked to stop first. */
static bool sleep_until(int64_t at)
{
	struct timespec ts = { .tv_sec = at / NSEC_PER_SEC, .tv_nsec = at % NSEC_PER_SEC };

	while (!stop) {
		int e = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);

		if (!e)
			return !stop;
		if (e != EINTR)
			return false;
	}
	return false;
}

/* Reports every interval_ns, count of them (0: until a signal). */
static int stats_loop(const struct stats_out *o, struct linkstats *ls,
		      int64_t interval_ns, uint64_t count)
{
	struct linkstats_sample s[2], *prev = &s[0], *cur = &s[1], *t;
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART */
	int64_t next, now;
	uint64_t n;
	int r;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	linkstats_sample_init(ls, prev);
	linkstats_sample_init(ls, cur);
	r = linkstats_sample(ls, prev);
	next = now_ns();
	for (n = 0; !r && (!count || n < count); n++) {
		/* Deadlines on a fixed grid, so that reports do not drift; a
		 * sampler late by whole intervals skips them (the interval is
		 * measured, not assumed). */
		next += interval_ns;
		now = now_ns();
		if (next <= now)
			next += (now - next) / interval_ns * interval_ns + interval_ns;
		if (!sleep_until(next))
			break;
		r = linkstats_sample(ls, cur);
		if (r)
			break;
		report(o, prev, cur);
		t = prev;
		prev = cur;
		cur = t;
	}
	if (r)
		fprintf(stderr, "hyde topo stats: %s\n", linkstats_geterr(ls));
	linkstats_sample_fini(&s[0]);
	linkstats_sample_fini(&s[1]);
	return r ? EXIT_RUN_FAILED : 0;
}

static int stats_once(const struct stats_out *o, struct linkstats *ls)
{
	struct linkstats_sample s;
	int r;

	linkstats_sample_init(ls, &s);
	r = linkstats_sample(ls, &s);
	if (r)
		fprintf(stderr, "hyde topo stats: %s\n", linkstats_geterr(ls));
	else
		report(o, NULL, &s);
	linkstats_sample_fini(&s);
	return r ? EXIT_RUN_FAILED : 0;
}

static int stats_run(const char *prefix, int64_t interval_ns, uint64_t count,
		     bool json, bool active)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct stats_out o = { .json = json, .active = active };
	struct linkstats *ls;
	struct fabric *f;
	int r;

	r = fabric_open(prefix, &f, errbuf);
	if (r) {
		fprintf(stderr, "hyde topo stats: %s\n", errbuf);
		return r == -EINVAL ? EXIT_USAGE : EXIT_RUN_FAILED;
	}
	r = linkstats_new(f, &ls, errbuf);
	if (r) {
		fprintf(stderr, "hyde topo stats: %s\n", errbuf);
		fabric_free(f);
		return EXIT_RUN_FAILED;
	}
	o.f = f;
	o.ls = ls;
	if (interval_ns)
		r = stats_loop(&o, ls, interval_ns, count);
	else
		r = stats_once(&o, ls);
	linkstats_free(ls);
	fabric_free(f);
	return r;
}

int cmd_topo_stats(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "prefix", required_argument, NULL, 'p' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "active", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prefix = FABRIC_DEFAULT_PREFIX;
	char errbuf[HYDE_ERRBUF_SIZE];
	int64_t interval_ns = 0;
	uint64_t count = 0;
	bool json = false, active = false;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:i:c:ajh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			prefix = optarg;
			break;
		case 'i':
			/* 10 ms: below that a sample's own cost (tens of us
			 * per ToR) and timer slack blur the interval. */
			if (unit_parse_time(optarg, &interval_ns) ||
			    interval_ns < 10 * NSEC_PER_MSEC)
				return cli_usage_error("topo stats",
						       "--interval '%s': expected a time of at least 10ms (%s)",
						       optarg, unit_time_expect);
			break;
		case 'c':
			if (parse_uint(optarg, 1, UINT64_MAX, &count))
				return cli_usage_error("topo stats",
						       "--count '%s': expected a positive integer",
						       optarg);
			break;
		case 'j':
			json = true;
			break;
		case 'a':
			active = true;
			break;
		case 'h':
			stats_usage(stdout);
			return 0;
		default:
			stats_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error("topo stats", "unexpected argument '%s'", argv[optind]);
	if (fabric_prefix_check(prefix, errbuf))
		return cli_usage_error("topo stats", "%s", errbuf);
	if (count && !interval_ns)
		interval_ns = NSEC_PER_SEC;
	if (geteuid() != 0) {
		fprintf(stderr, "hyde topo stats: needs root (it reads counters inside the fabric's namespaces): run it with sudo\n");
		return EXIT_USAGE;
	}
	return stats_run(prefix, interval_ns, count, json, active);
}
