/* hyde topo up|down|show|exec and hyde clean: the emulated fabric by hand,
 * to inspect it with ip, tc, tcpdump and iperf3 (layout: emul/README.md). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "core/topo.h"
#include "core/units.h"
#include "core/util.h"
#include "emul/fabric.h"
#include "emul/prio.h"

static void topo_usage(FILE *fp)
{
	fprintf(fp,
		"usage: hyde topo up -t TOPOLOGY [--prefix P] [--bands]\n"
		"       hyde topo down [--prefix P]\n"
		"       hyde topo show [--prefix P] [--json]\n"
		"       hyde topo exec [--prefix P] NODE -- COMMAND [ARGS...]\n"
		"       hyde topo stats [--prefix P] [--interval TIME] [--count N] [--json]\n\n"
		"Bring the emulated fabric of a topology up by hand (needs root): a\n"
		"network namespace per host (r<k>h<i>), per ToR (tor<k>), for the EPS\n"
		"core (core) and the OCS (ocs), named P-NODE; veth links shaped with\n"
		"HTB at the topology's rates; addresses and routes as emul/README.md\n"
		"says. Inspect it with 'ip -n P-NODE ...', 'tc -n P-NODE ...' or\n"
		"'hyde topo exec NODE -- tcpdump -i IFACE'.\n\n"
		"  up     build the fabric and return (refuses if the prefix is in use)\n"
		"  down   stop the fabric's processes, remove its namespaces\n"
		"  show   nodes (namespace, interfaces, EPS and OCS addresses) and\n"
		"         links with the rates configured in the kernel; --json as JSON\n"
		"  exec   run COMMAND inside NODE; its exit status is the command's\n"
		"  stats  bytes, rate and utilisation of every link, from the kernel's\n"
		"         counters ('hyde topo stats --help')\n\n"
		"  -t, --topology FILE  the topology (up)\n"
		"  -p, --prefix P       namespace prefix, 'hyde' followed by letters or\n"
		"                       digits (default: %s)\n"
		"  -j, --json           (show) JSON instead of text\n"
		"  -b, --bands          (up) 8 strict priority bands on every link, by the\n"
		"                       TOS precedence senders mark (emul/prio.h: what\n"
		"                       'hyde run --net srpt|las|fcfs' builds)\n\n"
		"exit status: 0 done, 1 failed, 2 bad usage or input, or not root\n",
		FABRIC_DEFAULT_PREFIX);
}

static int need_root(const char *cmd)
{
	if (geteuid() == 0)
		return 0;
	fprintf(stderr, "hyde %s: needs root (it creates and removes network namespaces): run it with sudo\n",
		cmd);
	return EXIT_USAGE;
}

static int topo_up(const char *prefix, const char *tpath, bool bands)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct fabric *f;
	struct topo *t;
	int64_t t0;
	int r;

	if (!tpath)
		return cli_usage_error("topo", "up: expected -t TOPOLOGY");
	if (need_root("topo up"))
		return EXIT_USAGE;
	if (topo_load(tpath, &t, errbuf)) {
		fprintf(stderr, "hyde topo up: %s\n", errbuf);
		return EXIT_USAGE;
	}
	t0 = now_ns();
	if ((r = fabric_up(t, prefix, &f, errbuf))) {
		fprintf(stderr, "hyde topo up: %s\n", errbuf);
		topo_free(t);
		return r == -EINVAL ? EXIT_USAGE : EXIT_RUN_FAILED; /* the topology's fault */
	}
	if (bands && prio_bands_add(f, errbuf)) {
		fprintf(stderr, "hyde topo up: priority bands: %s (the fabric is up without them: 'hyde topo down')\n",
			errbuf);
		fabric_free(f);
		topo_free(t);
		return EXIT_RUN_FAILED;
	}
	printf("fabric %s up: topology %s, %zu namespaces, %zu links, %.3f s\n",
	       prefix, t->name, f->n_nodes, f->n_links,
	       (double)(now_ns() - t0) / 1e9);
	fabric_free(f);
	topo_free(t);
	return 0;
}

static int topo_down(const char *prefix)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct hyde_clean_report rep;
	struct fabric *f;
	int64_t t0 = now_ns();
	int r;

	if (need_root("topo down"))
		return EXIT_USAGE;
	r = fabric_open(prefix, &f, errbuf);
	if (r == -EAGAIN) {
		/* Half-built (its builder was killed): down means gone. */
		if (hyde_clean_report(prefix, false, &rep, errbuf)) {
			fprintf(stderr, "hyde topo down: %s\n", errbuf);
			return EXIT_RUN_FAILED;
		}
		printf("fabric %s was incomplete: removed %u namespaces, %u processes\n",
		       prefix, rep.namespaces, rep.processes);
		return 0;
	}
	if (r == -EINVAL) {
		fprintf(stderr, "hyde topo down: %s\n", errbuf);
		return EXIT_USAGE;
	}
	if (r) {
		fprintf(stderr, "hyde topo down: %s\n", errbuf);
		return EXIT_RUN_FAILED;
	}
	r = fabric_down(f, errbuf);
	fabric_free(f);
	if (r) {
		fprintf(stderr, "hyde topo down: %s\n", errbuf);
		return EXIT_RUN_FAILED;
	}
	printf("fabric %s down: %.3f s\n", prefix, (double)(now_ns() - t0) / 1e9);
	return 0;
}

static const char *kind_name(enum topo_node_kind k)
{
	switch (k) {
	case TOPO_NODE_HOST:
		return "host";
	case TOPO_NODE_TOR:
		return "tor";
	case TOPO_NODE_CORE:
		return "core";
	case TOPO_NODE_OCS:
		return "ocs";
	}
	return "?";
}

/* The interfaces of node i, in order: a ToR's bridge first, then the ends
 * of its links. Calls fn for each with the link index (-1 for br0) and
 * which end (0 a, 1 b). */
static void for_each_iface(const struct fabric *f, unsigned i,
			   void (*fn)(void *arg, const char *ifname, long link,
				      int end),
			   void *arg)
{
	size_t l;

	if (f->nodes[i].kind == TOPO_NODE_TOR)
		fn(arg, "br0", -1, 0);
	for (l = 0; l < f->n_links; l++) {
		if (f->links[l].a == i)
			fn(arg, f->links[l].a_if, (long)l, 0);
		else if (f->links[l].b == i)
			fn(arg, f->links[l].b_if, (long)l, 1);
	}
}

struct show_ctx {
	const struct fabric *f;
	const struct fabric_port_state (*st)[2];
	unsigned node;
	char *buf;
	size_t len, cap;
	bool first;
};

static void appendf(struct show_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void appendf(struct show_ctx *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	xgrow((void **)&c->buf, &c->cap, c->len + (size_t)n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(c->buf + c->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	c->len += (size_t)n;
}

static void iface_text(void *arg, const char *ifname, long link, int end)
{
	struct show_ctx *c = arg;
	struct topo_net a[2];
	unsigned n, k;
	char s[16];

	appendf(c, "%s%s", c->first ? "" : " ", ifname);
	c->first = false;
	/* br0's addresses are the node's EPS and OCS columns already. */
	if (link < 0)
		return;
	n = fabric_iface_addrs(c->f, c->node, ifname, a);
	for (k = 0; k < n && c->f->nodes[c->node].kind != TOPO_NODE_HOST; k++)
		appendf(c, "%s%s/%u", k ? "," : "=", topo_addr_str(a[k].addr, s, sizeof(s)),
			a[k].plen);
	if (c->st[link][end].present == false)
		appendf(c, "(MISSING)");
}

static void iface_json(void *arg, const char *ifname, long link, int end)
{
	struct show_ctx *c = arg;
	const struct fabric *f = c->f;
	struct topo_net a[2];
	uint8_t mac[6];
	unsigned n, k;
	char s[16];

	appendf(c, "%s{\"name\":\"%s\",\"addresses\":[", c->first ? "" : ",", ifname);
	c->first = false;
	n = fabric_iface_addrs(f, c->node, ifname, a);
	for (k = 0; k < n; k++)
		appendf(c, "%s\"%s/%u\"", k ? "," : "",
			topo_addr_str(a[k].addr, s, sizeof(s)), a[k].plen);
	appendf(c, "]");
	/* the MAC the permanent neighbour entries name (emul/README.md) */
	if (!fabric_iface_mac(f, c->node, ifname, mac))
		appendf(c, ",\"mac\":\"%02x:%02x:%02x:%02x:%02x:%02x\"", mac[0], mac[1],
			mac[2], mac[3], mac[4], mac[5]);
	if (link >= 0) {
		const struct fabric_link *l = &f->links[link];
		unsigned peer = end ? l->a : l->b;

		appendf(c, ",\"peer\":\"%s:%s\",\"rate_bps\":%" PRIu64
			   ",\"htb_rate_bps\":%" PRIu64 ",\"present\":%s,\"up\":%s",
			f->nodes[peer].name, end ? l->a_if : l->b_if, l->rate,
			c->st[link][end].htb_rate,
			c->st[link][end].present ? "true" : "false",
			c->st[link][end].up ? "true" : "false");
	}
	appendf(c, "}");
}

/* The node's EPS and OCS addresses: a host's own, a ToR's gateways. */
static void node_addrs(const struct fabric *f, unsigned i, char *eps,
		       char *ocs)
{
	struct topo_net a[2];
	unsigned n = 0;

	strcpy(eps, "-");
	strcpy(ocs, "-");
	if (f->nodes[i].kind == TOPO_NODE_HOST)
		n = fabric_iface_addrs(f, i, "eth0", a);
	else if (f->nodes[i].kind == TOPO_NODE_TOR)
		n = fabric_iface_addrs(f, i, "br0", a);
	if (n >= 1)
		topo_addr_str(a[0].addr, eps, 16);
	if (n >= 2)
		topo_addr_str(a[1].addr, ocs, 16);
}

static void rate_or_missing(const struct fabric_port_state *s, char *buf,
			    size_t len)
{
	if (!s->present)
		snprintf(buf, len, "MISSING");
	else if (!s->htb_rate)
		snprintf(buf, len, "unshaped");
	else
		unit_fmt_rate(s->htb_rate, buf, len);
}

static int topo_show(const char *prefix, bool json)
{
	struct fabric_port_state (*st)[2];
	char errbuf[HYDE_ERRBUF_SIZE], eps[16], ocs[16], r0[32], r1[32], r2[32];
	struct show_ctx c = { 0 };
	unsigned bad = 0;
	struct fabric *f;
	size_t i;
	int r;

	if (need_root("topo show"))
		return EXIT_USAGE;
	r = fabric_open(prefix, &f, errbuf);
	if (r) {
		fprintf(stderr, "hyde topo show: %s\n", errbuf);
		return r == -EINVAL ? EXIT_USAGE : EXIT_RUN_FAILED;
	}
	st = xcalloc(f->n_links, sizeof(*st));
	r = fabric_query(f, st, errbuf);
	if (r) {
		fprintf(stderr, "hyde topo show: %s\n", errbuf);
		free(st);
		fabric_free(f);
		return EXIT_RUN_FAILED;
	}
	for (i = 0; i < f->n_links; i++)
		bad += !st[i][0].present + !st[i][1].present;
	c.f = f;
	c.st = (const struct fabric_port_state(*)[2])st;
	if (json) {
		printf("{\"prefix\":\"%s\",\"topology\":\"%s\",\"racks\":%u,\"hosts_per_rack\":%u,"
		       "\"state_dir\":\"%s\",\"complete\":%s,\"nodes\":[",
		       f->prefix, f->topo->name, f->topo->racks, f->topo->hosts,
		       f->state_dir, bad ? "false" : "true");
		for (i = 0; i < f->n_nodes; i++) {
			node_addrs(f, (unsigned)i, eps, ocs);
			c.node = (unsigned)i;
			c.len = 0;
			c.first = true;
			appendf(&c, "%s", "");
			for_each_iface(f, (unsigned)i, iface_json, &c);
			printf("%s{\"name\":\"%s\",\"kind\":\"%s\",\"namespace\":\"%s\","
			       "\"eps\":%s%s%s,\"ocs\":%s%s%s,\"interfaces\":[%s]}",
			       i ? "," : "", f->nodes[i].name,
			       kind_name(f->nodes[i].kind), f->nodes[i].ns,
			       strcmp(eps, "-") ? "\"" : "", strcmp(eps, "-") ? eps : "null",
			       strcmp(eps, "-") ? "\"" : "",
			       strcmp(ocs, "-") ? "\"" : "", strcmp(ocs, "-") ? ocs : "null",
			       strcmp(ocs, "-") ? "\"" : "", c.buf);
		}
		printf("],\"links\":[");
		for (i = 0; i < f->n_links; i++) {
			const struct fabric_link *l = &f->links[i];

			printf("%s{\"a\":\"%s\",\"a_if\":\"%s\",\"b\":\"%s\",\"b_if\":\"%s\","
			       "\"rate_bps\":%" PRIu64 ",\"a_htb_rate_bps\":%" PRIu64
			       ",\"b_htb_rate_bps\":%" PRIu64 "}",
			       i ? "," : "", f->nodes[l->a].name, l->a_if,
			       f->nodes[l->b].name, l->b_if, l->rate, st[i][0].htb_rate,
			       st[i][1].htb_rate);
		}
		printf("]}\n");
	} else {
		printf("fabric %s: topology %s, %u racks x %u hosts, state in %s\n",
		       f->prefix, f->topo->name, f->topo->racks, f->topo->hosts,
		       f->state_dir);
		printf("\n%-8s %-20s %-15s %-15s %s\n", "NODE", "NAMESPACE", "EPS",
		       "OCS", "INTERFACES");
		for (i = 0; i < f->n_nodes; i++) {
			node_addrs(f, (unsigned)i, eps, ocs);
			c.node = (unsigned)i;
			c.len = 0;
			c.first = true;
			appendf(&c, "%s", "");
			for_each_iface(f, (unsigned)i, iface_text, &c);
			printf("%-8s %-20s %-15s %-15s %s\n", f->nodes[i].name,
			       f->nodes[i].ns, eps, ocs, c.buf);
		}
		printf("\n%-22s %-22s %-10s %s\n", "LINK A", "LINK B", "RATE",
		       "HTB A->B / B->A");
		for (i = 0; i < f->n_links; i++) {
			const struct fabric_link *l = &f->links[i];
			char a[48], b[48];

			snprintf(a, sizeof(a), "%s:%s", f->nodes[l->a].name, l->a_if);
			snprintf(b, sizeof(b), "%s:%s", f->nodes[l->b].name, l->b_if);
			unit_fmt_rate(l->rate, r0, sizeof(r0));
			rate_or_missing(&st[i][0], r1, sizeof(r1));
			rate_or_missing(&st[i][1], r2, sizeof(r2));
			printf("%-22s %-22s %-10s %s / %s\n", a, b, r0, r1, r2);
		}
	}
	if (bad)
		fprintf(stderr, "hyde topo show: %u interface(s) of the fabric are missing\n", bad);
	free(c.buf);
	free(st);
	fabric_free(f);
	return bad ? EXIT_RUN_FAILED : 0;
}

static int topo_exec(const char *prefix, int argc, char **argv)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	struct fabric *f;
	int status, r;
	pid_t pid;

	if (argc < 1)
		return cli_usage_error("topo", "exec: expected NODE -- COMMAND");
	if (argc >= 2 && !strcmp(argv[1], "--")) {
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	if (argc < 2)
		return cli_usage_error("topo", "exec: expected a command after '%s --'", argv[0]);
	if (need_root("topo exec"))
		return EXIT_USAGE;
	r = fabric_open(prefix, &f, errbuf);
	if (r) {
		fprintf(stderr, "hyde topo exec: %s\n", errbuf);
		return r == -EINVAL ? EXIT_USAGE : EXIT_RUN_FAILED;
	}
	if (fabric_node_index(f, argv[0]) < 0) {
		fprintf(stderr, "hyde topo exec: no node '%s' in fabric %s (nodes: r<k>h<i>, tor<k>, core%s)\n",
			argv[0], prefix, f->topo->has_ocs ? ", ocs" : "");
		fabric_free(f);
		return EXIT_USAGE;
	}
	/* As system(): ^C and ^\ are for the command, which gets them too. */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	r = fabric_spawn(f, argv[0], argv + 1, -1, -1, &pid, errbuf);
	if (r) {
		fprintf(stderr, "hyde topo exec: %s\n", errbuf);
		fabric_free(f);
		return r == -ENOENT || r == -EACCES ? 127 : EXIT_RUN_FAILED;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	fabric_forget_pid(f, pid);
	fabric_free(f);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int cmd_topo(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "prefix", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "bands", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prefix = FABRIC_DEFAULT_PREFIX, *tpath = NULL, *sub;
	char errbuf[HYDE_ERRBUF_SIZE];
	bool json = false, bands = false;
	int c;

	if (argc < 2) {
		topo_usage(stderr);
		return EXIT_USAGE;
	}
	sub = argv[1];
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
		topo_usage(stdout);
		return 0;
	}
	if (!strcmp(sub, "stats")) /* its own options (cli_topo_stats.c) */
		return cmd_topo_stats(argc - 1, argv + 1);
	if (strcmp(sub, "up") && strcmp(sub, "down") && strcmp(sub, "show") &&
	    strcmp(sub, "exec"))
		return cli_usage_error("topo", "unknown subcommand '%s' (expected up, down, show, exec or stats)",
				       sub);
	argc--;
	argv++;
	optind = 1;
	/* '+': exec's command has options of its own. */
	while ((c = getopt_long(argc, argv, "+t:p:jbh", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			tpath = optarg;
			break;
		case 'b':
			bands = true;
			break;
		case 'p':
			prefix = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			topo_usage(stdout);
			return 0;
		default:
			topo_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (fabric_prefix_check(prefix, errbuf))
		return cli_usage_error("topo", "%s", errbuf);
	if (!strcmp(sub, "exec"))
		return topo_exec(prefix, argc - optind, argv + optind);
	if (optind < argc)
		return cli_usage_error("topo", "%s: unexpected argument '%s'", sub,
				       argv[optind]);
	if (tpath && strcmp(sub, "up"))
		return cli_usage_error("topo", "%s: -t is only for 'up'", sub);
	if (json && strcmp(sub, "show"))
		return cli_usage_error("topo", "%s: --json is only for 'show'", sub);
	if (bands && strcmp(sub, "up"))
		return cli_usage_error("topo", "%s: --bands is only for 'up'", sub);
	if (!strcmp(sub, "up"))
		return topo_up(prefix, tpath, bands);
	if (!strcmp(sub, "down"))
		return topo_down(prefix);
	return topo_show(prefix, json);
}

static void clean_usage(FILE *fp)
{
	fprintf(fp,
		"usage: hyde clean [--prefix P]\n\n"
		"Remove what hyde left behind (say after its controller was killed):\n"
		"every network namespace named hyde* with the interfaces in it, every\n"
		"state directory under %s, and the processes hyde started in them.\n"
		"With --prefix, only those of one fabric (namespaces P-*). Processes\n"
		"are stopped only if recorded in a state directory (and still the same\n"
		"process) or running inside one of those namespaces. Needs root.\n",
		FABRIC_STATE_ROOT);
}

int cmd_clean(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "prefix", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char errbuf[HYDE_ERRBUF_SIZE];
	struct hyde_clean_report rep;
	const char *prefix = NULL;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			prefix = optarg;
			break;
		case 'h':
			clean_usage(stdout);
			return 0;
		default:
			clean_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error("clean", "unexpected argument '%s'", argv[optind]);
	if (prefix && fabric_prefix_check(prefix, errbuf))
		return cli_usage_error("clean", "%s", errbuf);
	if (need_root("clean"))
		return EXIT_USAGE;
	if (hyde_clean_report(prefix, prefix == NULL, &rep, errbuf)) {
		fprintf(stderr, "hyde clean: %s\n", errbuf);
		return EXIT_RUN_FAILED;
	}
	printf("hyde clean: removed %u namespace(s), %u process(es), %u state director%s%s%s\n",
	       rep.namespaces, rep.processes, rep.state_dirs,
	       rep.state_dirs == 1 ? "y" : "ies", prefix ? " of prefix " : "",
	       prefix ? prefix : "");
	return 0;
}
