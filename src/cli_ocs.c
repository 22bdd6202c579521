/* hyde ocs: run the OCS crossbar (serve) and talk to it over its control
 * socket (set, show, stats, watch, events, delta, raw). The protocol is in
 * emul/README.md, "The OCS crossbar". */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli.h"
#include "core/log.h"
#include "core/units.h"
#include "core/util.h"
#include "emul/ocs.h"
#include "emul/shuffle.h"

#define OCS_DEFAULT_PREFIX "hyde"

static void ocs_usage(FILE *fp)
{
	fprintf(fp,
		"usage: hyde ocs serve --ports R --rate RATE --delta TIME [--prefix P | --netns NAME --socket PATH]\n"
		"                      [--voq BYTES] [--log FILE] [--no-pacing] [--no-rt]\n"
		"                      [--request-timeout TIME]\n"
		"       hyde ocs set CIRCUIT... | none      [--prefix P | --socket PATH]\n"
		"       hyde ocs show | stats | events [N] | delta [TIME]\n"
		"       hyde ocs watch [--count N]\n"
		"       hyde ocs raw REQUEST...\n"
		"\n"
		"The software OCS crossbar: R ports p0..p<R-1> in the fabric's ocs namespace,\n"
		"one per ToR. Its configuration is a matching of circuits; reconfiguring\n"
		"stalls only the ports whose circuit changes, for delta, while the others go\n"
		"on; frames without an up circuit wait in a bounded queue per (input port,\n"
		"destination) and are dropped, and counted, past its bound.\n"
		"\n"
		"  serve     run the crossbar in the foreground until SIGINT/SIGTERM\n"
		"  set       replace the configuration: I-J is a circuit both ways, I>J from\n"
		"            port I to port J only, 'none' tears every circuit down;\n"
		"            e.g. 'hyde ocs set 0-1 2-3 4>5'\n"
		"  show      the circuits, up or pending\n"
		"  stats     per-port counters (frames, bytes, queued, dropped) and VOQs\n"
		"  watch     print 'down I J T' / 'up I J T' as circuits change (T:\n"
		"            CLOCK_MONOTONIC ns); --count N stops after N events\n"
		"  events    the circuit events so far (the last N)\n"
		"  delta     show or change delta for the next reconfigurations\n"
		"  raw       send one protocol line and print the reply as it is\n"
		"\n"
		"Where the crossbar is:\n"
		"  --prefix P        the fabric with namespace prefix P: namespace P-ocs,\n"
		"                    socket /run/hyde/P/ocs.sock (default prefix: hyde)\n"
		"  --netns NAME      the namespace holding p0..p<R-1> (serve)\n"
		"  --socket PATH     the control socket (a run uses <rundir>/ocs.sock)\n"
		"serve options:\n"
		"  --ports R         number of ports (2..%d)\n"
		"  --rate RATE       bw_o, each port's rate (e.g. 400Mbit)\n"
		"  --delta TIME      reconfiguration delay (e.g. 10ms)\n"
		"  --voq BYTES       bound of each VOQ (default: delta x bw_o, at least 16MB)\n"
		"  --log FILE        append every circuit event to FILE\n"
		"  --no-pacing       leave bw_o to the ports' qdiscs instead of pacing here\n"
		"  --no-rt           do not run SCHED_FIFO (the default when allowed, so that\n"
		"                    other work on the box does not delay reconfigurations)\n"
		"  --request-timeout TIME  a client that starts a request and does not end\n"
		"                    its line within TIME is answered 'err' and disconnected\n"
		"                    (default 10s); the socket is root's only (0600)\n"
		"\n"
		"exit status: 0 done, 1 the crossbar is unreachable or failed, 2 bad usage\n"
		"or a request the crossbar refused (e.g. a configuration that is not a matching)\n",
		OCS_MAX_PORTS);
}

struct ocs_where {
	const char *prefix, *netns, *socket;
	char netns_buf[256], socket_buf[PATH_MAX];
};

/* Fill in the namespace and socket from --prefix where not given. */
static int where_resolve(struct ocs_where *w)
{
	const char *p = w->prefix ? w->prefix : OCS_DEFAULT_PREFIX;

	if (!*p || strchr(p, '/') || strlen(p) > 64)
		return cli_usage_error("ocs", "--prefix: '%s' is not a namespace prefix", p);
	if (!w->netns) {
		snprintf(w->netns_buf, sizeof(w->netns_buf), "%s-ocs", p);
		w->netns = w->netns_buf;
	}
	if (!w->socket) {
		snprintf(w->socket_buf, sizeof(w->socket_buf), "/run/hyde/%s/ocs.sock", p);
		w->socket = w->socket_buf;
	}
	return 0;
}

/* ---- client side ---- */

static int ctl_connect(const char *path, int *out)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "hyde ocs: %s: path too long\n", path);
		return EXIT_USAGE;
	}
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		fprintf(stderr, "hyde ocs: cannot reach the crossbar at %s: %s (is 'hyde ocs serve' running?)\n",
			path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return EXIT_RUN_FAILED;
	}
	*out = fd;
	return 0;
}

/* A reply: data lines, then one status line "ok ..." or "err ...". */
struct ocs_reply {
	char **lines;
	size_t n, cap;
	char *status;
};

static void reply_free(struct ocs_reply *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->lines[i]);
	free(r->lines);
	free(r->status);
	memset(r, 0, sizeof(*r));
}

static bool is_status(const char *l)
{
	return !strcmp(l, "ok") || !strncmp(l, "ok ", 3) || !strncmp(l, "err ", 4) ||
	       !strcmp(l, "err");
}

/* Send one request line and read its reply. Returns 0 (whatever the
 * status), or an exit code when the crossbar cannot be talked to. */
static int ctl_request(FILE *in, int fd, const char *req, struct ocs_reply *r)
{
	char *line = NULL;
	size_t cap = 0;
	int werr;
	long n;

	memset(r, 0, sizeof(*r));
	/* A refusing crossbar ("err too many clients") answers and closes
	 * before reading: a failed write still leaves its answer to read. */
	werr = emul_write_all(fd, req, strlen(req));
	if (!werr)
		werr = emul_write_all(fd, "\n", 1);
	while ((n = read_line(in, &line, &cap)) >= 0) {
		if (is_status(line)) {
			r->status = line;
			return 0;
		}
		xgrow((void **)&r->lines, &r->cap, r->n + 1, sizeof(*r->lines));
		r->lines[r->n++] = xstrdup(line);
	}
	free(line);
	reply_free(r);
	if (werr)
		fprintf(stderr, "hyde ocs: crossbar connection: %s\n", strerror(-werr));
	else if (ferror(in) && (errno == EAGAIN || errno == EWOULDBLOCK))
		fprintf(stderr, "hyde ocs: the crossbar did not answer within 10 s\n");
	else
		fprintf(stderr, "hyde ocs: the crossbar closed the connection without a reply\n");
	return EXIT_RUN_FAILED;
}

/* One request, the reply handed to `show`. Exit code: 0 ok, 2 err. */
static int ctl_once(const char *path, const char *req,
		    int (*show)(const struct ocs_reply *r, void *arg), void *arg)
{
	/* The crossbar answers within microseconds; one that does not
	 * answer in 10 s is wedged, and a script should learn so. */
	struct timeval tv = { .tv_sec = 10 };
	struct ocs_reply r;
	FILE *in;
	int fd, rc;

	if ((rc = ctl_connect(path, &fd)))
		return rc;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	in = fdopen(fd, "r");
	if (!in) {
		close(fd);
		fatal("fdopen");
	}
	rc = ctl_request(in, fd, req, &r);
	if (!rc) {
		if (!strncmp(r.status, "err", 3)) {
			fprintf(stderr, "hyde ocs: %s\n", r.status[3] ? r.status + 4 : "error");
			rc = EXIT_USAGE;
		} else {
			rc = show(&r, arg);
		}
		reply_free(&r);
	}
	fclose(in);
	return rc;
}

/* Value of key=... in a status or data line, or NULL. */
static const char *kv(const char *line, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, " ");

			if (n >= len)
				n = len - 1;
			memcpy(buf, p + kl + 1, n);
			buf[n] = '\0';
			return buf;
		}
		p += kl;
	}
	return NULL;
}

static int64_t kv_i64(const char *line, const char *key)
{
	char buf[32];

	return kv(line, key, buf, sizeof(buf)) ? strtoll(buf, NULL, 10) : -1;
}

static int show_raw(const struct ocs_reply *r, void *arg)
{
	size_t i;

	(void)arg;
	for (i = 0; i < r->n; i++)
		printf("%s\n", r->lines[i]);
	printf("%s\n", r->status);
	return 0;
}

static int show_data(const struct ocs_reply *r, void *arg)
{
	size_t i;

	(void)arg;
	for (i = 0; i < r->n; i++)
		printf("%s\n", r->lines[i]);
	return 0;
}

static int show_set(const struct ocs_reply *r, void *arg)
{
	char a[32], stalled[OCS_MAX_PORTS * 5 + 2];
	int64_t t = kv_i64(r->status, "t"), ready = kv_i64(r->status, "ready");

	printf("%s: %" PRId64 " down, %" PRId64 " up %s%s, stalled ports: %s\n",
	       (const char *)arg, kv_i64(r->status, "down"), kv_i64(r->status, "up"),
	       ready > t ? "after " : "at once",
	       ready > t ? unit_fmt_time(ready - t, a, sizeof(a)) : "",
	       kv(r->status, "stalled", stalled, sizeof(stalled)) ? stalled : "?");
	return 0;
}

/* "circuit I J STATE T" lines, paired into I-J where both directions
 * share state and time. */
static int show_circuits(const struct ocs_reply *r, void *arg)
{
	struct {
		int j;
		bool up;
		int64_t t;
	} c[OCS_MAX_PORTS];
	char a[32], b[32], d[32], name[16], ports[16], pacing[16];
	int64_t now = kv_i64(r->status, "now");
	unsigned i, n = 0;
	size_t k;

	(void)arg;
	for (i = 0; i < OCS_MAX_PORTS; i++)
		c[i].j = -1;
	for (k = 0; k < r->n; k++) {
		unsigned si, sj;
		char state[16];
		int64_t t;

		if (sscanf(r->lines[k], "circuit %u %u %15s %" SCNd64, &si, &sj, state, &t) != 4 ||
		    si >= OCS_MAX_PORTS || sj >= OCS_MAX_PORTS)
			continue;
		c[si].j = (int)sj;
		c[si].up = !strcmp(state, "up");
		c[si].t = t;
	}
	printf("%s ports, bw_o %s, delta %s, VOQ bound %s, pacing %s\n",
	       kv(r->status, "ports", ports, sizeof(ports)) ? ports : "?",
	       unit_fmt_rate((uint64_t)kv_i64(r->status, "rate"), a, sizeof(a)),
	       unit_fmt_time(kv_i64(r->status, "delta"), b, sizeof(b)),
	       unit_fmt_size((uint64_t)kv_i64(r->status, "voq"), d, sizeof(d)),
	       kv(r->status, "pacing", pacing, sizeof(pacing)) ? pacing : "?");
	for (i = 0; i < OCS_MAX_PORTS; i++) {
		int j = c[i].j;
		bool both;

		if (j < 0)
			continue;
		both = c[j].j == (int)i && c[j].up == c[i].up && c[j].t == c[i].t;
		if (both && (unsigned)j < i)
			continue;
		snprintf(name, sizeof(name), "%u%c%d", i, both ? '-' : '>', j);
		if (c[i].up)
			printf("  %-9s up       since %s ago (T=%" PRId64 ")\n", name,
			       unit_human_time((double)(now - c[i].t), a, sizeof(a)), c[i].t);
		else
			printf("  %-9s pending  up in %s (T=%" PRId64 ")\n", name,
			       unit_human_time((double)(c[i].t > now ? c[i].t - now : 0), a,
					       sizeof(a)),
			       c[i].t);
		n++;
	}
	if (!n)
		printf("  no circuit\n");
	return 0;
}

static int show_delta(const struct ocs_reply *r, void *arg)
{
	char a[32], b[32];

	(void)arg;
	printf("delta %s, VOQ bound %s\n", unit_fmt_time(kv_i64(r->status, "delta"), a, sizeof(a)),
	       unit_fmt_size((uint64_t)kv_i64(r->status, "voq"), b, sizeof(b)));
	return 0;
}

static int ocs_watch(const char *path, uint64_t count)
{
	struct ocs_reply r;
	char *line = NULL;
	size_t cap = 0;
	uint64_t seen = 0;
	FILE *in;
	int fd, rc;

	if ((rc = ctl_connect(path, &fd)))
		return rc;
	in = fdopen(fd, "r");
	if (!in) {
		close(fd);
		fatal("fdopen");
	}
	rc = ctl_request(in, fd, "watch", &r);
	if (rc)
		goto out;
	reply_free(&r);
	fflush(stdout);
	while ((count == 0 || seen < count) && read_line(in, &line, &cap) >= 0) {
		if (strncmp(line, "up ", 3) && strncmp(line, "down ", 5))
			continue;
		printf("%s\n", line);
		fflush(stdout);
		seen++;
	}
	if (count && seen < count) {
		fprintf(stderr, "hyde ocs watch: the crossbar went away after %" PRIu64 " event(s)\n",
			seen);
		rc = EXIT_RUN_FAILED;
	}
out:
	free(line);
	fclose(in);
	return rc;
}

/* ---- serve ---- */

static int ocs_serve_cmd(struct ocs_where *w, struct ocs_opts *o, bool have_rate,
			 bool have_delta)
{
	char errbuf[HYDE_ERRBUF_SIZE], dir[PATH_MAX];
	bool made_dir = false;
	int r;

	if (!o->ports)
		return cli_usage_error("ocs", "serve: expected --ports R");
	if (!have_rate)
		return cli_usage_error("ocs", "serve: expected --rate RATE (bw_o)");
	if (!have_delta)
		return cli_usage_error("ocs", "serve: expected --delta TIME");
	if ((r = where_resolve(w)))
		return r;
	if (w->socket == w->socket_buf) {
		/* /run/hyde/<prefix>/: the fabric's state directory; made (and
		 * removed at the end) if the crossbar runs without hyde topo up. */
		snprintf(dir, sizeof(dir), "/run/hyde");
		if (mkdir(dir, 0755) && errno != EEXIST)
			goto err_dir;
		snprintf(dir, sizeof(dir), "/run/hyde/%s", w->prefix ? w->prefix : OCS_DEFAULT_PREFIX);
		if (!mkdir(dir, 0755))
			made_dir = true;
		else if (errno != EEXIST)
			goto err_dir;
	}
	o->netns = w->netns;
	o->socket = w->socket;
	log_set_prog("hyde ocs");
	if (log_get_level() < LOG_LVL_INFO)
		log_set_level(LOG_LVL_INFO);
	r = ocs_serve(o, errbuf);
	if (made_dir)
		rmdir(dir); /* fails, harmlessly, if something else moved in */
	if (r) {
		fprintf(stderr, "hyde ocs: %s\n", errbuf);
		return r == -EINVAL ? EXIT_USAGE : EXIT_RUN_FAILED;
	}
	return 0;
err_dir:
	fprintf(stderr, "hyde ocs: %s: %s\n", dir, strerror(errno));
	return EXIT_RUN_FAILED;
}

/* Join argv[first..] into one request line after `verb`. */
static char *join_request(const char *verb, int argc, char **argv, int first)
{
	size_t len = strlen(verb) + 1;
	char *s;
	int i;

	for (i = first; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = xmalloc(len);
	strcpy(s, verb);
	for (i = first; i < argc; i++) {
		if (*s)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/* A client's subcommand (set, raw, watch, show, stats, events, delta) on
 * the crossbar's control socket; its words from argv[optind]. */
static int ocs_client(const char *sub, const struct ocs_where *w, uint64_t count, int argc,
		      char **argv)
{
	char *req;
	int rc;

	if (!strcmp(sub, "set")) {
		char *label;

		if (optind == argc)
			return cli_usage_error("ocs", "set: expected circuits such as 0-1 2>3, or 'none'");
		req = join_request("set", argc, argv, optind);
		label = join_request("", argc, argv, optind);
		rc = ctl_once(w->socket, req, show_set, label);
		free(label);
		free(req);
		return rc;
	}
	if (!strcmp(sub, "raw")) {
		if (optind == argc)
			return cli_usage_error("ocs", "raw: expected a request such as 'stats'");
		req = join_request("", argc, argv, optind);
		rc = ctl_once(w->socket, req, show_raw, NULL);
		free(req);
		return rc;
	}
	if (!strcmp(sub, "watch")) {
		if (optind != argc)
			return cli_usage_error("ocs", "watch: unexpected argument '%s'", argv[optind]);
		return ocs_watch(w->socket, count);
	}
	if (!strcmp(sub, "show") || !strcmp(sub, "stats")) {
		if (optind != argc)
			return cli_usage_error("ocs", "%s: unexpected argument '%s'", sub, argv[optind]);
		return ctl_once(w->socket, sub, !strcmp(sub, "show") ? show_circuits : show_data, NULL);
	}
	if (!strcmp(sub, "events") || !strcmp(sub, "delta")) {
		if (argc - optind > 1)
			return cli_usage_error("ocs", "%s: unexpected argument '%s'", sub,
					       argv[optind + 1]);
		req = join_request(sub, argc, argv, optind);
		rc = ctl_once(w->socket, req, !strcmp(sub, "delta") ? show_delta : show_data, NULL);
		free(req);
		return rc;
	}
	return cli_usage_error("ocs", "unknown subcommand '%s'", sub);
}

int cmd_ocs(int argc, char **argv)
{
	enum {
		OPT_PORTS = 256, OPT_RATE, OPT_DELTA, OPT_VOQ, OPT_LOG, OPT_NO_PACING,
		OPT_NO_RT, OPT_PREFIX, OPT_NETNS, OPT_SOCKET, OPT_COUNT, OPT_REQ_TIMEOUT,
	};
	static const struct option longopts[] = {
		{ "ports", required_argument, NULL, OPT_PORTS },
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "delta", required_argument, NULL, OPT_DELTA },
		{ "voq", required_argument, NULL, OPT_VOQ },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "no-pacing", no_argument, NULL, OPT_NO_PACING },
		{ "no-rt", no_argument, NULL, OPT_NO_RT },
		{ "prefix", required_argument, NULL, OPT_PREFIX },
		{ "netns", required_argument, NULL, OPT_NETNS },
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "request-timeout", required_argument, NULL, OPT_REQ_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ocs_where w = { 0 };
	struct ocs_opts o = { 0 };
	bool have_rate = false, have_delta = false;
	uint64_t v, count = 0;
	const char *sub;
	int c, rc;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		ocs_usage(stdout);
		return 0;
	}
	if (argc < 2 || argv[1][0] == '-') {
		ocs_usage(stderr);
		return EXIT_USAGE;
	}
	sub = argv[1];
	/* Parse what follows the subcommand word; getopt moves the circuits
	 * (which never start with '-') after the options, keeping their
	 * order, so options may come before or after them. optind = 0 makes
	 * glibc start afresh. */
	argc--;
	argv++;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_PORTS:
			if (parse_uint(optarg, 2, OCS_MAX_PORTS, &v))
				return cli_usage_error("ocs", "--ports: expected a whole number from 2 to %d, got '%s'",
						       OCS_MAX_PORTS, optarg);
			o.ports = (unsigned)v;
			break;
		case OPT_RATE:
			if (unit_parse_rate(optarg, &o.rate) || !o.rate)
				return cli_usage_error("ocs", "--rate: expected %s, got '%s'",
						       unit_rate_expect, optarg);
			have_rate = true;
			break;
		case OPT_DELTA:
			if (unit_parse_time(optarg, &o.delta) || o.delta > OCS_DELTA_MAX)
				return cli_usage_error("ocs", "--delta: expected a time from 0 to 10s such as 100us or 10ms, got '%s'",
						       optarg);
			have_delta = true;
			break;
		case OPT_VOQ:
			if (unit_parse_size(optarg, &o.voq) || !o.voq)
				return cli_usage_error("ocs", "--voq: expected %s, got '%s'",
						       unit_size_expect, optarg);
			break;
		case OPT_LOG:
			o.log = optarg;
			break;
		case OPT_NO_PACING:
			o.no_pacing = true;
			break;
		case OPT_NO_RT:
			o.no_rt = true;
			break;
		case OPT_REQ_TIMEOUT:
			if (unit_parse_time(optarg, &o.request_timeout) || o.request_timeout <= 0)
				return cli_usage_error("ocs", "--request-timeout: expected %s above 0, got '%s'",
						       unit_time_expect, optarg);
			break;
		case OPT_PREFIX:
			w.prefix = optarg;
			break;
		case OPT_NETNS:
			w.netns = optarg;
			break;
		case OPT_SOCKET:
			w.socket = optarg;
			break;
		case OPT_COUNT:
			if (parse_uint(optarg, 1, UINT64_MAX, &count))
				return cli_usage_error("ocs", "--count: expected a number of 1 or more, got '%s'",
						       optarg);
			break;
		case 'h':
			ocs_usage(stdout);
			return 0;
		case ':':
			return cli_usage_error("ocs", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("ocs", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!strcmp(sub, "serve")) {
		if (optind != argc)
			return cli_usage_error("ocs", "serve: unexpected argument '%s'", argv[optind]);
		return ocs_serve_cmd(&w, &o, have_rate, have_delta);
	}
	if (o.ports || have_rate || have_delta || o.voq || o.log || o.no_pacing || o.no_rt ||
	    w.netns || o.request_timeout)
		return cli_usage_error("ocs", "%s: --ports, --rate, --delta, --voq, --log, --no-pacing, --no-rt, --request-timeout and --netns are for 'serve'",
				       sub);
	if (count && strcmp(sub, "watch"))
		return cli_usage_error("ocs", "%s: --count is for 'watch'", sub);
	if ((rc = where_resolve(&w)))
		return rc;
	return ocs_client(sub, &w, count, argc, argv);
}
