/* The options of a run, in one table (cli_runopts.h): hyde run and hyde
 * sim parse their command line with it, hyde compare the options it
 * passes on. A new run option is one entry here and one case in
 * runopt_apply. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_runopts.h"
#include "core/units.h"
#include "core/util.h"
#include "ctl/ctl.h"
#include "emul/emul.h"
#include "emul/capture.h"
#include "net/netsched.h"

const struct runopt runopt_table[] = {
	{ "topology", 't', required_argument, 't', 0,
	  "  -t, --topology FILE   topology (topologies/*.topo)\n" },
	{ "workload", 'w', required_argument, 'w', 0,
	  "  -w, --workload SPEC   workload: a .wl file, swim:TRACE.tsv or coflow:TRACE;\n"
	  "                        import options after the trace, comma-separated:\n"
	  "                        coflow:TRACE,mb=1MB,min_flow=1MB (hyde import --help);\n"
	  "                        or gen:fb,KEY=VALUE... / gen:dag,... drawn with --seed\n"
	  "                        (hyde gen --help)\n" },
	{ "scheduler", 's', required_argument, 's', 0, NULL },
	{ NULL, 'S', required_argument, 'S', RUNOPT_PASS,
	  "  -S KEY=VALUE          a scheduler option (repeatable; for all: slowstart=0.05,\n"
	  "                        assign=1 containers per heartbeat, or all)\n" },
	{ NULL, 'B', required_argument, 'B', RUNOPT_PASS,
	  "  -B KEY=VALUE          a backend option (repeatable; listed below)\n" },
	{ "circuits", 'C', required_argument, 'C', RUNOPT_PASS,
	  "  -C, --circuits NAME   circuit scheduler: sunflow (default), greedy, none\n" },
	{ "out", 'o', required_argument, 'o', 0,
	  "  -o, --out DIR         run directory: inputs, events.log, app/*.csv,\n"
	  "                        flows.csv, coflows.csv, jobs.csv, summary.json\n" },
	{ "seed", 0, required_argument, OPT_SEED, 0,
	  "      --seed N          seed of every random choice (default 1)\n" },
	{ "horizon", 0, required_argument, OPT_HORIZON, RUNOPT_PASS,
	  "      --horizon TIME    stop the run TIME after its start (no event later is\n"
	  "                        handled): a successful run (run_end horizon) whose\n"
	  "                        jobs, coflows and DAGs not done by then are reported\n"
	  "                        as not done, every average over those done;\n"
	  "                        summary.json says horizon_s. A run that ends before\n"
	  "                        is unchanged. In emulation the tasks are stopped and\n"
	  "                        the fabric torn down as at a run's end\n" },
	{ "copies", 0, required_argument, OPT_COPIES, RUNOPT_PASS,
	  "      --copies N        parallel fetches per reduce (default 5, as Hadoop)\n" },
	{ "ocs-fetch", 0, required_argument, OPT_OCS_FETCH, RUNOPT_PASS,
	  "      --ocs-fetch HOW   circuit (default): a circuit's fetches start when it is\n"
	  "                        up, outside the copies (its reservation is sized for\n"
	  "                        the pair's whole demand); copies: they wait for one\n"
	  "                        of the reduce's copies like any fetch\n" },
	{ "fetch-order", 0, required_argument, OPT_FETCH_ORDER, RUNOPT_PASS,
	  "      --fetch-order HOW which waiting fetch a reduce starts when a copy\n"
	  "                        frees: fifo (default: outputs in the order they\n"
	  "                        reached it, at its start by map) or random (a\n"
	  "                        random one, as Hadoop's fetchers pick a host)\n" },
	{ "heartbeat", 0, required_argument, OPT_HEARTBEAT, RUNOPT_PASS,
	  "      --heartbeat TIME  node managers' heartbeat (default 1s, as YARN): a\n"
	  "                        host's free containers are offered to the\n"
	  "                        scheduler then; 0: at every change, all of them\n" },
	{ "no-io", 0, no_argument, OPT_NO_IO, RUNOPT_PASS,
	  "      --no-io           no HDFS traffic: maps read their input where they\n"
	  "                        run, reduces write one local replica; only the\n"
	  "                        shuffle crosses the network\n" },
	{ "coflow-only", 0, no_argument, OPT_COFLOW_ONLY, RUNOPT_PASS,
	  "      --coflow-only     every job is a bare coflow (pinned tasks, no compute):\n"
	  "                        its CCT runs from its arrival to its last byte, as in\n"
	  "                        Sunflow's simulator, and fetches are not limited\n"
	  "                        (unless --copies says)\n" },
	{ "net", 0, required_argument, OPT_NET, RUNOPT_PASS,
	  "      --net POLICY      how the network schedules flows: fair (default: TCP,\n"
	  "                        max-min), fcfs, srpt (shortest remaining first),\n"
	  "                        las (least attained service first); in emulation\n"
	  "                        by 8 strict priority bands on every link and\n"
	  "                        senders marking their flows as they go\n" },
	{ "coflow", 0, required_argument, OPT_COFLOW, RUNOPT_PASS,
	  "      --coflow POLICY   (sim) schedule coflows instead (a job's flows of\n"
	  "                        one kind): varys (SEBF + MADD), scf (smallest\n"
	  "                        coflow first), fcfs, fair\n" },
	{ "rates", 0, required_argument, OPT_RATES, RUNOPT_PASS,
	  "      --rates MODEL     (sim) the same as --net: maxmin (fair), fcfs, srpt, las\n" },
	{ "rate-quantum", 0, required_argument, OPT_RATE_QUANTUM, RUNOPT_PASS,
	  "      --rate-quantum TIME  (sim) recompute rates at most once per TIME\n"
	  "                        (default 0: at every change, exact); faster,\n"
	  "                        approximate; keep it well below the circuits'\n"
	  "                        reservations (1ms-10ms): a flow waits up to TIME\n"
	  "                        for its rate\n" },
	{ "progress", 0, optional_argument, OPT_PROGRESS, 0,
	  "      --progress[=TIME] the live view on stderr: wall and run time, jobs done\n"
	  "                        with an ETA, flows moving on EPS and OCS, circuits\n"
	  "                        up, the busiest link; refreshed every second on a\n"
	  "                        terminal, else a line every TIME (default 10s). On\n"
	  "                        by default in hyde run (not with -q)\n" },
	{ "no-progress", 0, no_argument, OPT_NO_PROGRESS, 0,
	  "      --no-progress     no live view\n" },
	{ "prefix", 0, required_argument, OPT_PREFIX, RUNOPT_PASS,
	  "      --prefix P        (run) namespace prefix of the fabric (default hyde)\n" },
	{ "no-analyze", 0, no_argument, OPT_NO_ANALYZE, 0,
	  "      --no-analyze      (run) do not analyse the captures at the end\n" },
	{ "snaplen", 0, required_argument, OPT_SNAPLEN, RUNOPT_PASS,
	  "      --snaplen BYTES   (run) bytes the captures keep of each frame (default\n"
	  "                        128: headers); 0: whole frames, payload included\n"
	  "                        (to read the services' requests in Wireshark)\n" },
	{ "capture-window", 0, required_argument, OPT_CAPTURE_WINDOW, RUNOPT_PASS,
	  "      --capture-window TIME\n"
	  "                        (run) how long a capture may go without draining\n"
	  "                        its ports (default 250ms): each port's ring holds\n"
	  "                        what its rate brings in TIME; a full ring drops\n"
	  "                        frames, counted, and the run is marked incomplete\n" },
	{ "estimate", 0, no_argument, OPT_ESTIMATE, 0,
	  "      --estimate        (run) print what the run will cost this box (memory,\n"
	  "                        namespaces, processes, descriptors) and stop; a run\n"
	  "                        the box cannot hold is refused before anything is built\n" },
	{ "replay", 0, required_argument, OPT_REPLAY, 0,
	  "      --replay RUN      (sim) the fluid model's prediction for exactly the\n"
	  "                        flows of a finished run RUN (an emulated one): its\n"
	  "                        flows (names, hosts, paths, bytes) and start times\n"
	  "                        (flows.csv; events.log's flow_start where the\n"
	  "                        captures did not time one) and its circuits (each up\n"
	  "                        from its circuit_up to its circuit_down in events.log)\n"
	  "                        are held equal; no scheduler, circuit scheduler, fetch\n"
	  "                        slots or tasks decide anything. RUN's inputs are the\n"
	  "                        topology and workload (no -t, -w); only -o, --net,\n"
	  "                        --rates, --rate-quantum, -B and -q apply. Writes\n"
	  "                        flows.csv, coflows.csv, events.log (no jobs.csv); an\n"
	  "                        OCS flow with bytes left when its circuit went down\n"
	  "                        for the last time never ends (end -1: stranded)\n" },
	{ "quiet", 'q', no_argument, 'q', 0,
	  "  -q, --quiet           no summary\n" },
	{ 0 },
};

const struct runopt *runopt_find(int code)
{
	const struct runopt *e;

	for (e = runopt_table; e->code; e++)
		if (e->code == code)
			return e;
	return NULL;
}

struct option *runopt_longopts(unsigned flags, const struct option *extra,
			       const char *extra_short, char **shortopts)
{
	size_t n = 0, n_extra = 0, k = 0;
	const struct runopt *e;
	struct option *lo;
	char *s;

	for (e = runopt_table; e->code; e++)
		n++;
	while (extra && extra[n_extra].name)
		n_extra++;
	lo = xcalloc(n + n_extra + 1, sizeof(*lo));
	s = xcalloc(2 * n + strlen(extra_short) + 1, 1);
	*shortopts = s;
	for (e = runopt_table; e->code; e++) {
		if (flags && !(e->flags & flags))
			continue;
		if (e->name)
			lo[k++] = (struct option){ e->name, e->has_arg, NULL, e->code };
		if (e->letter) {
			*s++ = (char)e->letter;
			if (e->has_arg == required_argument)
				*s++ = ':';
		}
	}
	memcpy(lo + k, extra, n_extra * sizeof(*lo));
	strcpy(s, extra_short);
	return lo;
}

void runopt_state_init(struct runopt_state *st, bool emul)
{
	memset(st, 0, sizeof(*st));
	st->emul = emul;
	st->progress = -1;
}

void runopt_state_free(struct runopt_state *st)
{
	while (st->n_owned)
		free(st->owned[--st->n_owned]);
	free(st->owned);
	st->owned = NULL;
	while (st->n_words)
		free(st->words[--st->n_words]);
	free(st->words);
	st->words = NULL;
	st->cap_words = 0;
}

static void add_word(struct runopt_state *st, char *w)
{
	xgrow((void **)&st->words, &st->cap_words, st->n_words + 1, sizeof(*st->words));
	st->words[st->n_words++] = w;
}

/* The option as words for another command line, in the table's spelling
 * (an optional argument as --name=ARG); its argument unchanged. */
static void remember(struct runopt_state *st, const struct runopt *e, const char *arg)
{
	if (e->has_arg == optional_argument) {
		add_word(st, arg ? xasprintf("--%s=%s", e->name, arg) : xasprintf("--%s", e->name));
		return;
	}
	add_word(st, e->name ? xasprintf("--%s", e->name) : xasprintf("-%c", e->letter));
	if (e->has_arg == required_argument)
		add_word(st, xstrdup(arg));
}

/* A backend option, KEY=VALUE (the string lives as long as o needs it). */
static void add_backend_kv(struct ctl_opts *o, char *kv)
{
	o->backend_kv = xrealloc(o->backend_kv, sizeof(*o->backend_kv) * ((size_t)o->n_backend_kv + 1));
	o->backend_kv[o->n_backend_kv++] = kv;
}

/* An alias of a backend option: KEY=VALUE made and kept by st. */
static void add_alias_kv(struct ctl_opts *o, struct runopt_state *st, const char *key,
			 const char *value)
{
	char *kv = xasprintf("%s=%s", key, value);

	st->owned = xrealloc(st->owned, sizeof(*st->owned) * (st->n_owned + 1));
	st->owned[st->n_owned++] = kv;
	add_backend_kv(o, kv);
}

/* The backend's message on an alias' value, as the alias' own:
 * "backend sim: rates: expected ..." -> "--rates: expected ..." */
static int alias_error(const char *cmd, const char *alias, const char *key, const char *msg)
{
	size_t n = strlen(key);
	const char *p;

	for (p = msg; (p = strstr(p, key)); p++)
		if (p[n] == ':' && p[n + 1] == ' ')
			return cli_usage_error(cmd, "--%s: %s", alias, p + n + 2);
	return cli_usage_error(cmd, "--%s: %s", alias, msg);
}

int runopt_apply(struct ctl_opts *o, struct runopt_state *st, const char *cmd, int code,
		 const char *arg)
{
	const struct runopt *e = runopt_find(code);
	char *optarg = (char *)arg;
	bool emul = st->emul;
	uint64_t v;

	if (!e)
		return -ENOENT;
	switch (code) {
	case 't':
		o->topo_path = optarg;
		break;
	case 'w':
		o->wl_spec = optarg;
		break;
	case 's':
		o->sched_name = optarg;
		break;
	case 'S':
		o->sched_kv = xrealloc(o->sched_kv, sizeof(*o->sched_kv) * ((size_t)o->n_sched_kv + 1));
		o->sched_kv[o->n_sched_kv++] = optarg;
		break;
	case 'C':
		o->csched_name = optarg;
		break;
	case 'o':
		o->outdir = optarg;
		break;
	case 'q':
		o->quiet = true;
		break;
	case OPT_REPLAY:
		if (emul)
			return cli_usage_error(cmd, "--replay is hyde sim's: it replays a run in the simulator");
		o->replay = optarg;
		break;
	case OPT_SEED:
		if (parse_uint(optarg, 0, UINT64_MAX, &v))
			return cli_usage_error(cmd, "--seed: expected a whole number, got '%s'", optarg);
		o->seed = v;
		break;
	case OPT_COPIES:
		if (parse_uint(optarg, 1, 1000, &v))
			return cli_usage_error(cmd, "--copies: expected 1 to 1000, got '%s'", optarg);
		o->parallel_copies = (unsigned)v;
		st->copies = true;
		break;
	case OPT_HEARTBEAT:
		/* a bare 0: no heartbeats */
		if (strcmp(optarg, "0") && (unit_parse_time(optarg, &o->heartbeat) || o->heartbeat < 0))
			return cli_usage_error(cmd, "--heartbeat: expected %s (0: none), got '%s'",
					       unit_time_expect, optarg);
		if (!strcmp(optarg, "0"))
			o->heartbeat = 0;
		break;
	case OPT_HORIZON:
		if (unit_parse_time(optarg, &o->horizon) || o->horizon <= 0)
			return cli_usage_error(cmd, "--horizon: expected %s (more than 0), got '%s'",
					       unit_time_expect, optarg);
		break;
	case OPT_PROGRESS:
		if (optarg && (unit_parse_time(optarg, &o->progress_every) || o->progress_every <= 0))
			return cli_usage_error(cmd, "--progress=TIME: expected %s, got '%s'",
					       unit_time_expect, optarg);
		st->progress = 1;
		break;
	case OPT_NO_PROGRESS:
		st->progress = 0;
		break;
	case 'B':
		add_backend_kv(o, optarg);
		if (!strncmp(optarg, "rates=", 6))
			st->rates = optarg + 6;
		else if (!strncmp(optarg, "prefix=", 7))
			st->prefix = optarg + 7;
		break;
	case OPT_PREFIX:
		/* -B prefix=P of the emulator; the simulator has no fabric */
		st->prefix = optarg;
		if (emul)
			add_alias_kv(o, st, "prefix", optarg);
		break;
	case OPT_NO_ANALYZE:
		st->no_analyze = true;
		break;
	case OPT_COFLOW_ONLY:
		o->coflow_only = true;
		break;
	case OPT_NO_IO:
		o->no_io = true;
		break;
	case OPT_OCS_FETCH:
		if (!strcmp(optarg, "circuit"))
			o->ocs_fetch_slots = false;
		else if (!strcmp(optarg, "copies"))
			o->ocs_fetch_slots = true;
		else
			return cli_usage_error(cmd, "--ocs-fetch: expected circuit or copies, got '%s'",
					       optarg);
		break;
	case OPT_FETCH_ORDER:
		if (strcmp(optarg, "fifo") && strcmp(optarg, "random"))
			return cli_usage_error(cmd, "--fetch-order: expected fifo or random, got '%s'",
					       optarg);
		o->fetch_random = !strcmp(optarg, "random");
		break;
	case OPT_SNAPLEN:
		/* 0: whole frames */
		if (parse_uint(optarg, 0, CAPTURE_SNAPLEN_FULL, &v) || (v && v < 64))
			return cli_usage_error(cmd, "--snaplen: expected 0 (whole frames) or 64 to %d bytes, got '%s'",
					       CAPTURE_SNAPLEN_FULL, optarg);
		o->capture_snaplen = v ? (int)v : CAPTURE_SNAPLEN_FULL;
		break;
	case OPT_CAPTURE_WINDOW:
		if (!emul)
			return cli_usage_error(cmd, "--capture-window: only an emulated run (hyde run) has captures to size");
		if (unit_parse_time(optarg, &o->capture_window_ns) || o->capture_window_ns <= 0 ||
		    o->capture_window_ns > 60 * NSEC_PER_SEC)
			return cli_usage_error(cmd, "--capture-window: expected a time from 1us to 60s, got '%s'",
					       optarg);
		break;
	case OPT_ESTIMATE:
		if (!emul)
			return cli_usage_error(cmd, "--estimate: only an emulated run (hyde run) has a fabric to cost");
		st->estimate = true;
		break;
	case OPT_RATES:
		/* -B rates=MODEL of the simulator */
		if (emul) {
			if (strcmp(optarg, "maxmin"))
				return cli_usage_error(cmd, "--rates: the simulator's rate models; the fabric's policy is --net");
			st->rates = optarg;
			break;
		} else {
			char kv[64], msg[HYDE_ERRBUF_SIZE];
			char *one[1] = { kv };

			snprintf(kv, sizeof(kv), "rates=%s", optarg);
			if (backend_opts_check(&backend_sim, one, 1, msg))
				return alias_error(cmd, "rates", "rates", msg);
		}
		add_alias_kv(o, st, "rates", optarg);
		st->rates = optarg;
		break;
	case OPT_NET:
		if (netsched_net_parse(optarg) < 0 || !strcmp(optarg, "maxmin"))
			return cli_usage_error(cmd, "--net: expected fair, fcfs, srpt or las, got '%s'",
					       optarg);
		o->net = optarg;
		if (!emul) { /* the simulator's rate model */
			st->rates = strcmp(optarg, "fair") ? optarg : "maxmin";
			add_alias_kv(o, st, "rates", st->rates);
		}
		break;
	case OPT_COFLOW:
		if (netsched_coflow_parse(optarg) < 0)
			return cli_usage_error(cmd, "--coflow: expected varys, scf, fcfs, fair or none, got '%s'",
					       optarg);
		if (emul && strcmp(optarg, "none"))
			return cli_usage_error(cmd, "--coflow: only the simulator schedules coflows (the fabric enforces flow policies: --net)");
		o->coflow = strcmp(optarg, "none") ? optarg : NULL;
		break;
	case OPT_RATE_QUANTUM: {
		/* -B rate_quantum=TIME of the simulator (the emulator has none) */
		int64_t q;

		if (unit_parse_time(optarg, &q) || q < 0)
			return cli_usage_error(cmd, "--rate-quantum: expected %s, got '%s'",
					       unit_time_expect, optarg);
		if (!emul)
			add_alias_kv(o, st, "rate_quantum", optarg);
		break;
	}
	default:
		return -ENOENT;
	}
	remember(st, e, arg);
	return 0;
}

int runopt_check(const struct ctl_opts *o, const struct runopt_state *st, const char *cmd)
{
	if (o->coflow && st->rates && strcmp(st->rates, "maxmin"))
		return cli_usage_error(cmd, "--coflow %s schedules coflows: it replaces --net %s (give one)",
				       o->coflow, st->rates);
	return 0;
}

void runopt_print_help(FILE *fp, unsigned flags,
		       void (*own)(FILE *fp, const struct runopt *e, void *arg), void *arg)
{
	const struct runopt *e;

	for (e = runopt_table; e->code; e++) {
		if (flags && !(e->flags & flags))
			continue;
		if (e->help)
			fputs(e->help, fp);
		else if (own)
			own(fp, e, arg);
	}
}
