/* hyde gen / hyde import: write workload files from a seed or a trace. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/wl_gen.h"
#include "core/wl_gen_cobra.h"
#include "core/wl_import.h"
#include "core/util.h"
#include "core/workload.h"

struct wl_out {
	const struct workload *wl;
	const char *header; /* how it was made, as a comment line */
};

static int write_wl(FILE *fp, void *arg)
{
	const struct wl_out *o = arg;

	fprintf(fp, "# %s\n", o->header);
	return wl_write(o->wl, fp);
}

/* "hyde gen fb seed=1 jobs=10": the command that reproduces the file
 * (without -o, so the file does not depend on where it was written). */
static void join_args(char *buf, size_t len, int argc, char **argv)
{
	int i;

	snprintf(buf, len, "hyde");
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-o")) {
			i++;
			continue;
		}
		strncat(buf, " ", len - strlen(buf) - 1);
		strncat(buf, argv[i], len - strlen(buf) - 1);
	}
}

static void gen_usage(FILE *fp)
{
	struct gen_fb_opts fb;
	struct gen_dag_opts dag;
	struct gen_spark_opts sp;
	struct gen_gtrace_opts gt;

	gen_fb_opts_default(&fb);
	gen_dag_opts_default(&dag);
	gen_spark_opts_default(&sp);
	gen_gtrace_opts_default(&gt);
	fprintf(fp,
		"usage: hyde gen fb|dag|flows|spark|gtrace [KEY=VALUE...] [-o FILE]\n\n"
		"Generate a workload; the same options give a byte-identical file.\n\n"
		"fb: FB-like mix sampled from the SWIM FB-2010 trace by class. Options:\n");
	gen_fb_opts_print(&fb, fp);
	fprintf(fp, "\ndag: multi-level job DAGs (Dawn §2.2). Options:\n");
	gen_dag_opts_print(&dag, fp);
	{
		struct gen_flows_opts fl;

		gen_flows_opts_default(&fl);
		fprintf(fp, "\nflows: a flow-level workload (NEAT §6): one remote map per flow, sizes\n"
			"from an empirical CDF, Poisson arrivals at a load of the host links. Options:\n");
		gen_flows_opts_print(&fl, fp);
	}
	fprintf(fp, "\nfb and dag also take the task derivation options of 'hyde import swim'\n"
		"(block, per_reduce, map_rate, reduce_rate, map_base, reduce_base, ...).\n");
	fprintf(fp, "\nspark: COBRA's deployment apps (Table III: Wordcount, TPC-H, iterative ML,\n"
		"PageRank; small/medium/large 46/40/14%%), each app jobs sharing app=. Options:\n");
	gen_spark_opts_print(&sp, fp);
	fprintf(fp, "\ngtrace: a synthetic stand-in for the Google trace of COBRA's simulations\n"
		"(heavy-tailed tasks and durations, small demands, 1-3 stages). Options:\n");
	gen_gtrace_opts_print(&gt, fp);
}

/* Parses -o FILE and collects KEY=VALUE arguments after argv[first]. */
static int parse_out_and_kvs(const char *cmd, int argc, char **argv, int first,
			     const char **out, char **kvs, int *nkv)
{
	int i;

	*nkv = 0;
	*out = NULL;
	for (i = first; i < argc; i++) {
		if (!strcmp(argv[i], "-o")) {
			if (++i == argc)
				return cli_usage_error(cmd, "-o needs a file name");
			*out = argv[i];
		} else if (strchr(argv[i], '=') && argv[i][0] != '-') {
			kvs[(*nkv)++] = argv[i];
		} else {
			return cli_usage_error(cmd, "unexpected argument '%s' (expected KEY=VALUE or -o FILE)",
					       argv[i]);
		}
	}
	return 0;
}

/* A workload source: a generator (hyde gen) or a trace importer (hyde
 * import), each with its KEY=VALUE options. One driver serves both. */
struct wl_source {
	const char *name;
	size_t opts_size;
	void (*defaults)(void *opts);
	int (*set)(void *opts, const char *kv, char *errbuf);
	/* trace: the trace file of an importer, NULL for a generator. */
	int (*make)(const void *opts, const char *trace, struct workload **out,
		    char *errbuf);
};

/* Each source's typed functions behind the table's void * ones (a call
 * through a cast function pointer would be undefined). */
#define WL_GEN(n)                                                           \
	static void gen_##n##_defaults(void *o) { gen_##n##_opts_default(o); } \
	static int gen_##n##_set(void *o, const char *kv, char *errbuf)      \
	{                                                                   \
		return gen_##n##_opts_set(o, kv, errbuf);                   \
	}                                                                   \
	static int gen_##n##_make(const void *o, const char *trace,          \
				  struct workload **out, char *errbuf)      \
	{                                                                   \
		(void)trace;                                                \
		return wl_gen_##n(o, out, errbuf);                          \
	}
#define WL_IMPORT(n)                                                        \
	static void imp_##n##_defaults(void *o) { n##_opts_default(o); }      \
	static int imp_##n##_set(void *o, const char *kv, char *errbuf)      \
	{                                                                   \
		return n##_opts_set(o, kv, errbuf);                         \
	}                                                                   \
	static int imp_##n##_make(const void *o, const char *trace,          \
				  struct workload **out, char *errbuf)      \
	{                                                                   \
		return wl_import_##n(trace, o, out, errbuf);                \
	}
WL_GEN(fb)
WL_GEN(dag)
WL_GEN(flows)
WL_GEN(spark)
WL_GEN(gtrace)
WL_IMPORT(swim)
WL_IMPORT(coflow)

#define GEN_SOURCE(n)                                                       \
	{ #n, sizeof(struct gen_##n##_opts), gen_##n##_defaults,           \
	  gen_##n##_set, gen_##n##_make }
#define IMPORT_SOURCE(n)                                                    \
	{ #n, sizeof(struct n##_opts), imp_##n##_defaults, imp_##n##_set,  \
	  imp_##n##_make }

static const struct wl_source generators[] = {
	GEN_SOURCE(fb), GEN_SOURCE(dag), GEN_SOURCE(flows), GEN_SOURCE(spark),
	GEN_SOURCE(gtrace), { NULL, 0, NULL, NULL, NULL },
};

static const struct wl_source importers[] = {
	IMPORT_SOURCE(swim), IMPORT_SOURCE(coflow), { NULL, 0, NULL, NULL, NULL },
};

/* hyde gen KIND [KEY=VALUE...] [-o FILE] and hyde import KIND TRACE ...:
 * the source named argv[1] in `sources` (else "unknown WHAT (expected
 * EXPECTED)"), its options from the KEY=VALUE arguments after
 * argv[first], the workload written to -o or stdout. trace is passed on
 * to the source. */
static int wl_source_cmd(const char *cmd, const struct wl_source *sources,
			 const char *what, const char *expected, int argc,
			 char **argv, int first, const char *trace)
{
	char errbuf[HYDE_ERRBUF_SIZE], header[1024];
	const struct wl_source *src;
	struct workload *wl = NULL;
	void *opts = NULL;
	const char *out;
	struct wl_out wo;
	char **kvs;
	int nkv, i, r;

	kvs = xcalloc((size_t)argc, sizeof(char *));
	r = parse_out_and_kvs(cmd, argc, argv, first, &out, kvs, &nkv);
	if (r)
		goto done;
	for (src = sources; src->name && strcmp(src->name, argv[1]); src++)
		;
	if (!src->name) {
		r = cli_usage_error(cmd, "unknown %s '%s' (expected %s)", what, argv[1],
				    expected);
		goto done;
	}
	opts = xcalloc(1, src->opts_size);
	src->defaults(opts);
	for (i = 0; i < nkv; i++)
		if (src->set(opts, kvs[i], errbuf)) {
			/* the option parsers name their --help already (they
			 * serve -w gen:... too): not twice */
			if (strstr(errbuf, "--help)")) {
				fprintf(stderr, "hyde %s: %s\n", cmd, errbuf);
				r = EXIT_USAGE;
			} else {
				r = cli_usage_error(cmd, "%s", errbuf);
			}
			goto done;
		}
	if (src->make(opts, trace, &wl, errbuf)) {
		fprintf(stderr, "hyde: %s\n", errbuf);
		r = EXIT_USAGE;
		goto done;
	}
	join_args(header, sizeof(header), argc, argv);
	wo = (struct wl_out){ wl, header };
	if (cli_write_file(out, write_wl, &wo, errbuf)) {
		fprintf(stderr, "hyde: %s\n", errbuf);
		r = EXIT_RUN_FAILED;
	}
done:
	wl_free(wl);
	free(opts);
	free(kvs);
	return r;
}

int cmd_gen(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		gen_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	return wl_source_cmd("gen", generators, "generator",
			     "fb, dag, flows, spark or gtrace", argc, argv, 2, NULL);
}

static void import_usage(FILE *fp)
{
	struct swim_opts s;
	struct coflow_opts c;

	swim_opts_default(&s);
	coflow_opts_default(&c);
	fprintf(fp,
		"usage: hyde import swim|coflow TRACE [KEY=VALUE...] [-o FILE]\n\n"
		"Convert a trace into a .wl file.\n\n"
		"swim: a SWIM Facebook trace (job submit gap input shuffle output). Tasks\n"
		"and run times are derived (maps = ceil(input / block), reduces =\n"
		"round((shuffle + output) / per_reduce), time = base + bytes / rate).\n"
		"Options:\n");
	swim_opts_print(&s, fp);
	fprintf(fp, "\ncoflow: the Coflow-Benchmark trace (rack-level coflows). Each coflow\n"
		"becomes a job with maps and reduces pinned to its racks. Options:\n");
	coflow_opts_print(&c, fp);
}

int cmd_import(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		import_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	if (argc < 3)
		return cli_usage_error("import", "expected a trace file after '%s'", argv[1]);
	return wl_source_cmd("import", importers, "trace kind", "swim or coflow", argc,
			     argv, 3, argv[2]);
}
