/* Workload generators for COBRA: see wl_gen_cobra.h. What the paper gives
 * is marked as such; every other number is this file's derivation, a
 * reading to be changed with the options or here, not a measurement. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "rng.h"
#include "wl_gen_cobra.h"

#define MB 1000000ULL
#define GB 1000000000ULL

void gen_spark_opts_default(struct gen_spark_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->apps = 30;
	o->mean_gap = 60 * NSEC_PER_SEC; /* §VII-C */
	o->small = 0.46;		 /* §VII-A, after [22] */
	o->medium = 0.40;
	o->large = 0.14;
	o->iterations = 5;
	o->block = 128 * 1024 * 1024; /* HDFS's (Spark's input split) */
	o->time_scale = 1;
	o->size_scale = 1;
}

void gen_gtrace_opts_default(struct gen_gtrace_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->apps = 300;
	o->mean_gap = 4 * NSEC_PER_SEC;
	o->two_stage = 0.2;
	o->three_stage = 0.1;
	o->tasks_median = 8;
	o->tasks_sigma = 1.6;
	o->tasks_min = 1;
	o->tasks_max = 3000;
	o->dur_median = 40 * NSEC_PER_SEC;
	o->dur_sigma = 0.9;
	o->dur_min = 2 * NSEC_PER_SEC;
	o->dur_max = 1800 * NSEC_PER_SEC;
	o->cpu_median = 0.25;
	o->cpu_sigma = 0.6;
	o->cpu_max = 1.0;
	o->mem_median = 400 * MB;
	o->mem_sigma = 0.7;
	o->mem_max = 2 * GB;
	o->task_input = 64 * MB;
}

static const struct opt_desc spark_desc[] = {
	OPT(gen_spark_opts, seed, O_U64, 0, 1.8e19, "random seed"),
	OPT(gen_spark_opts, apps, O_U32, 1, 1000000, "number of applications"),
	OPT(gen_spark_opts, mean_gap, O_TIME, 0, 0, "mean gap between arrivals (exponential; 0: all at 0)"),
	OPT(gen_spark_opts, small, O_DOUBLE, 0, 1, "share of small inputs"),
	OPT(gen_spark_opts, medium, O_DOUBLE, 0, 1, "share of medium inputs"),
	OPT(gen_spark_opts, large, O_DOUBLE, 0, 1, "share of large inputs"),
	OPT(gen_spark_opts, iterations, O_U32, 1, 1000, "iterations of ML and PageRank"),
	OPT(gen_spark_opts, block, O_SIZE, 1, 1e15, "input split (HDFS block)"),
	OPT(gen_spark_opts, time_scale, O_DOUBLE, 1e-6, 1e6, "arrivals and task times x this"),
	OPT(gen_spark_opts, size_scale, O_DOUBLE, 1e-9, 1e6, "bytes x this (tasks and times stay the full size's)"),
	OPT(gen_spark_opts, only, O_STR, 0, 16, "one workload only (wordcount, tpch, ml, pagerank)"),
};

static const struct opt_desc gtrace_desc[] = {
	OPT(gen_gtrace_opts, seed, O_U64, 0, 1.8e19, "random seed"),
	OPT(gen_gtrace_opts, apps, O_U32, 1, 10000000, "number of applications"),
	OPT(gen_gtrace_opts, mean_gap, O_TIME, 0, 0, "mean gap between arrivals (Poisson; 0: all at 0)"),
	OPT(gen_gtrace_opts, two_stage, O_DOUBLE, 0, 1, "share of apps with two stages"),
	OPT(gen_gtrace_opts, three_stage, O_DOUBLE, 0, 1, "share of apps with three stages"),
	OPT(gen_gtrace_opts, tasks_median, O_DOUBLE, 1, 1e6, "median tasks per stage (lognormal)"),
	OPT(gen_gtrace_opts, tasks_sigma, O_DOUBLE, 0, 10, "sigma of log(tasks per stage)"),
	OPT(gen_gtrace_opts, tasks_min, O_U32, 1, 1000000, "fewest tasks in a stage"),
	OPT(gen_gtrace_opts, tasks_max, O_U32, 1, 1000000, "most tasks in a stage"),
	OPT(gen_gtrace_opts, dur_median, O_TIME, 0, 0, "median task duration (lognormal)"),
	OPT(gen_gtrace_opts, dur_sigma, O_DOUBLE, 0, 10, "sigma of log(task duration)"),
	OPT(gen_gtrace_opts, dur_min, O_TIME, 0, 0, "shortest task"),
	OPT(gen_gtrace_opts, dur_max, O_TIME, 0, 0, "longest task"),
	OPT(gen_gtrace_opts, cpu_median, O_DOUBLE, 1e-3, 1024, "median cores a task needs (lognormal)"),
	OPT(gen_gtrace_opts, cpu_sigma, O_DOUBLE, 0, 10, "sigma of log(cores)"),
	OPT(gen_gtrace_opts, cpu_max, O_DOUBLE, 1e-3, 1024, "most cores a task needs"),
	OPT(gen_gtrace_opts, mem_median, O_SIZE, 1, 1e15, "median memory a task needs (lognormal)"),
	OPT(gen_gtrace_opts, mem_sigma, O_DOUBLE, 0, 10, "sigma of log(memory)"),
	OPT(gen_gtrace_opts, mem_max, O_SIZE, 1, 1e15, "most memory a task needs"),
	OPT(gen_gtrace_opts, task_input, O_SIZE, 1, 1e15, "input each task reads"),
};

static int set_or_fail(void *o, const struct opt_desc *d, size_t n, const char *kv, char *errbuf)
{
	int r = opts_try_set(o, d, n, kv, errbuf);

	if (r == -ENOENT) {
		errbuf_set(errbuf, "unknown option '%.*s' (see hyde gen --help)",
			   (int)strcspn(kv, "="), kv);
		return -EINVAL;
	}
	return r;
}

int gen_spark_opts_set(struct gen_spark_opts *o, const char *kv, char *errbuf)
{
	return set_or_fail(o, spark_desc, ARRAY_SIZE(spark_desc), kv, errbuf);
}

int gen_gtrace_opts_set(struct gen_gtrace_opts *o, const char *kv, char *errbuf)
{
	return set_or_fail(o, gtrace_desc, ARRAY_SIZE(gtrace_desc), kv, errbuf);
}

void gen_spark_opts_print(const struct gen_spark_opts *o, FILE *fp)
{
	opts_print(o, spark_desc, ARRAY_SIZE(spark_desc), fp);
}

void gen_gtrace_opts_print(const struct gen_gtrace_opts *o, FILE *fp)
{
	opts_print(o, gtrace_desc, ARRAY_SIZE(gtrace_desc), fp);
}

/* ---- helpers ---- */

static int64_t ms(double ns)
{
	return (int64_t)llround(ns / 1e6) * 1000000;
}

static double cents(double v)
{
	return round(v * 100) / 100;
}

static uint64_t mbytes(double v)
{
	uint64_t m = (uint64_t)llround(v / 1e6) * MB;

	return m ? m : MB;
}

/* time of a task that processes `bytes` at `rate` bytes/s after `base`
 * seconds, scaled */
static int64_t task_time(double base, double bytes, double rate, double scale)
{
	return ms((base + bytes / rate) * 1e9 * scale);
}

static struct wl_job *add(struct workload *wl, const char *app, int k, const char *user,
			  int64_t at)
{
	char id[WL_ID_MAX];
	struct wl_job *j;

	snprintf(id, sizeof(id), "%s.s%d", app, k);
	j = wl_add_job(wl, id, user);
	j->app = xstrdup(app);
	j->arrival = at;
	return j;
}

static void set_parents(struct wl_job *j, const uint32_t *p, uint32_t n)
{
	j->parents = xcalloc(n, sizeof(uint32_t));
	memcpy(j->parents, p, n * sizeof(uint32_t));
	j->n_parents = n;
}

static uint32_t splits(uint64_t bytes, uint64_t block)
{
	uint64_t n = (bytes + block - 1) / block;

	return n ? (uint32_t)n : 1;
}

/* ---- spark: Table III ---- */

enum spark_kind { SK_WORDCOUNT, SK_TPCH, SK_ML, SK_PAGERANK, SK_N };
static const char *const spark_names[SK_N] = { "wordcount", "tpch", "ml", "pagerank" };
/* Table III: input sizes (MB) small, medium, large; 0: N/A */
static const double table3[SK_N][3] = {
	{ 200, 1000, 0 },
	{ 0, 1000, 10000 },
	{ 170, 1000, 0 },
	{ 150, 1000, 0 },
};

/* The derivations, per stage: a task processes its bytes at a rate
 * (MB/s) after a fixed start (s), and needs cores and GB at its peak.
 * Rates are those of one core of the 2-core, 4GB nodes of §VII-A on text
 * (Wordcount), columnar scans (TPC-H), cached vectors (ML) and graph joins
 * (PageRank); a task "is usually far from fully utilizing the container"
 * (§II-B): the demands stay at or under one default container (1 core,
 * 2GB), CPU-bound stages near 0.6 core, shuffle-side stages near 0.3. */
static void wordcount(struct workload *wl, const struct gen_spark_opts *o, const char *app,
		      const char *user, int64_t at, double in)
{
	struct wl_job *j = add(wl, app, 0, user, at);

	j->input = (uint64_t)in;
	j->maps = splits(j->input, o->block);
	j->reduces = j->maps; /* reduceByKey keeps the parent's partitions */
	j->shuffle = (uint64_t)(0.1 * in); /* words after the map-side combine */
	j->output = j->shuffle / 2;
	j->map_time = task_time(1, in / j->maps, 20 * MB, o->time_scale);
	j->reduce_time = task_time(1, (double)j->shuffle / j->reduces, 20 * MB, o->time_scale);
	j->map_cpu = 0.7, j->map_mem = 800 * MB;
	j->reduce_cpu = 0.3, j->reduce_mem = 500 * MB;
}

/* A query of three tables (Q3's shape): two scans repartitioned on the
 * join key, then the join and a final aggregate. */
static void tpch(struct workload *wl, const struct gen_spark_opts *o, const char *app,
		 const char *user, int64_t at, double in)
{
	static const double part[2] = { 0.7, 0.3 }; /* lineitem; orders and customer */
	uint32_t scans[2], p = splits((uint64_t)in, o->block) / 2, k;
	struct wl_job *j;
	double joined = 0;

	if (p < 2)
		p = 2;
	for (k = 0; k < 2; k++) {
		double b = in * part[k];

		j = add(wl, app, (int)k, user, at);
		j->input = (uint64_t)b;
		j->maps = splits(j->input, o->block);
		j->reduces = p;
		j->shuffle = (uint64_t)(0.3 * b); /* the columns the query keeps */
		j->output = j->shuffle;
		j->map_time = task_time(1, b / j->maps, 40 * MB, o->time_scale);
		j->reduce_time = task_time(0.5, (double)j->shuffle / p, 40 * MB, o->time_scale);
		j->map_cpu = 0.5, j->map_mem = 600 * MB;
		j->reduce_cpu = 0.3, j->reduce_mem = 500 * MB;
		joined += (double)j->output;
		scans[k] = (uint32_t)(wl->n_jobs - 1);
	}
	j = add(wl, app, 2, user, at);
	set_parents(j, scans, 2);
	j->input_from_parents = true;
	j->input = (uint64_t)joined;
	j->maps = p;
	j->reduces = 1;
	j->shuffle = (uint64_t)(0.01 * joined) + 1;
	j->output = 1 * MB;
	j->map_time = task_time(1, joined / p, 30 * MB, o->time_scale);
	j->reduce_time = task_time(1, (double)j->shuffle, 30 * MB, o->time_scale);
	j->map_cpu = 0.6, j->map_mem = 1200 * MB; /* the join's hash tables */
	j->reduce_cpu = 0.3, j->reduce_mem = 400 * MB;
}

/* K iterations over the same cached data: the first reads it from HDFS,
 * each aggregates a small gradient (ML) or shuffles contributions
 * (PageRank) and the next waits for it. */
static void iterative(struct workload *wl, const struct gen_spark_opts *o, const char *app,
		      const char *user, int64_t at, double in, bool pagerank)
{
	uint32_t prev = 0, k;

	for (k = 0; k < o->iterations; k++) {
		struct wl_job *j = add(wl, app, (int)k, user, at);

		j->input = (uint64_t)in;
		j->maps = splits(j->input, o->block);
		if (k)
			set_parents(j, &prev, 1);
		if (pagerank) {
			j->reduces = j->maps;
			j->shuffle = (uint64_t)(0.5 * in);
			j->output = (uint64_t)(0.1 * in);
			j->map_time = task_time(1, in / j->maps, (k ? 30 : 20) * MB, o->time_scale);
			j->reduce_time = task_time(0.5, (double)j->shuffle / j->reduces, 30 * MB,
						   o->time_scale);
			j->map_cpu = 0.6, j->map_mem = 1000 * MB;
			j->reduce_cpu = 0.3, j->reduce_mem = 600 * MB;
		} else {
			j->reduces = 1;
			j->shuffle = (uint64_t)j->maps * MB; /* a gradient per partition */
			j->output = 1 * MB;
			j->map_time = task_time(0.5, in / j->maps, (k ? 60 : 30) * MB, o->time_scale);
			j->reduce_time = task_time(0.5, (double)j->shuffle, 60 * MB, o->time_scale);
			j->map_cpu = 0.6, j->map_mem = 1000 * MB;
			j->reduce_cpu = 0.2, j->reduce_mem = 300 * MB;
		}
		prev = (uint32_t)(wl->n_jobs - 1);
	}
}

int wl_gen_spark(const struct gen_spark_opts *o, struct workload **out, char *errbuf)
{
	double mix[3] = { o->small, o->medium, o->large }, sum = mix[0] + mix[1] + mix[2];
	int only = -1, k;
	struct workload *wl;
	struct rng rng;
	int64_t at = 0;
	uint32_t a;
	size_t first;
	int r;

	if (o->only[0]) {
		for (k = 0; k < SK_N; k++)
			if (!strcmp(o->only, spark_names[k]))
				only = k;
		if (only < 0) {
			errbuf_set(errbuf, "gen spark: only: expected wordcount, tpch, ml or pagerank, got '%s'",
				   o->only);
			return -EINVAL;
		}
	}
	if (sum <= 0) {
		errbuf_set(errbuf, "gen spark: small, medium and large are all 0");
		return -EINVAL;
	}
	rng_seed(&rng, o->seed);
	wl = wl_new();
	for (a = 0; a < o->apps; a++) {
		double u = rng_unit(&rng) * sum, in;
		int size = u < mix[0] ? 0 : u < mix[0] + mix[1] ? 1 : 2, kinds[SK_N], nk = 0;
		char app[32];

		/* a workload Table III gives for that size (N/A: not drawn) */
		for (k = 0; k < SK_N; k++)
			if (table3[k][size] > 0 && (only < 0 || only == k))
				kinds[nk++] = k;
		if (!nk) { /* `only` has no such size: its nearest */
			for (k = size; k >= 0 && !nk; k--)
				if (table3[only][k] > 0)
					size = k, kinds[nk++] = only;
			for (k = size; k < 3 && !nk; k++)
				if (table3[only][k] > 0)
					size = k, kinds[nk++] = only;
		}
		k = kinds[rng_below(&rng, (uint64_t)nk)];
		in = table3[k][size] * MB;
		first = wl->n_jobs;
		snprintf(app, sizeof(app), "%s%u", spark_names[k], a);
		switch (k) {
		case SK_WORDCOUNT:
			wordcount(wl, o, app, "u0", at, in);
			break;
		case SK_TPCH:
			tpch(wl, o, app, "u0", at, in);
			break;
		default:
			iterative(wl, o, app, "u0", at, in, k == SK_PAGERANK);
			break;
		}
		/* the bytes alone: tasks and their times are the full size's
		 * (an emulated network slower than the paper's moves less) */
		for (; o->size_scale != 1 && first < wl->n_jobs; first++) {
			struct wl_job *j = &wl->jobs[first];

			j->input = (uint64_t)llround((double)j->input * o->size_scale);
			j->shuffle = (uint64_t)llround((double)j->shuffle * o->size_scale);
			j->output = (uint64_t)llround((double)j->output * o->size_scale);
			if (!j->input)
				j->input = 1;
			if (j->reduces && !j->shuffle)
				j->shuffle = 1;
			if (j->reduces && !j->output)
				j->output = 1;
		}
		if (o->mean_gap > 0)
			at += ms(rng_exp(&rng, (double)o->mean_gap * o->time_scale));
	}
	r = wl_finish(wl, "gen spark", errbuf);
	if (r) {
		wl_free(wl);
		return r;
	}
	*out = wl;
	return 0;
}

/* ---- gtrace: a Google-trace-like stand-in ---- */

static double lognormal(struct rng *rng, double median, double sigma)
{
	/* Box-Muller */
	double u1 = rng_unit(rng), u2 = rng_unit(rng);
	double z = sqrt(-2 * log1p(-u1)) * cos(2 * M_PI * u2);

	return median * exp(sigma * z);
}

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int wl_gen_gtrace(const struct gen_gtrace_opts *o, struct workload **out, char *errbuf)
{
	struct workload *wl;
	struct rng rng;
	int64_t at = 0;
	uint32_t a;
	int r;

	if (o->tasks_min > o->tasks_max || o->dur_min > o->dur_max ||
	    o->two_stage + o->three_stage > 1) {
		errbuf_set(errbuf, "gen gtrace: tasks_min > tasks_max, dur_min > dur_max, or two_stage + three_stage > 1");
		return -EINVAL;
	}
	rng_seed(&rng, o->seed);
	wl = wl_new();
	for (a = 0; a < o->apps; a++) {
		double u = rng_unit(&rng);
		int stages = u < o->three_stage ? 3 : u < o->three_stage + o->two_stage ? 2 : 1, k;
		uint32_t prev = 0;
		char app[32];

		snprintf(app, sizeof(app), "g%u", a);
		for (k = 0; k < stages; k++) {
			struct wl_job *j = add(wl, app, k, "u0", at);

			j->maps = (uint32_t)llround(clamp(lognormal(&rng, o->tasks_median, o->tasks_sigma),
							  o->tasks_min, o->tasks_max));
			j->reduces = 0;
			j->input = (uint64_t)j->maps * o->task_input;
			j->output = 0;
			j->map_time = ms(clamp(lognormal(&rng, (double)o->dur_median, o->dur_sigma),
					       (double)o->dur_min, (double)o->dur_max));
			j->map_cpu = cents(clamp(lognormal(&rng, o->cpu_median, o->cpu_sigma), 0.01,
						 o->cpu_max));
			j->map_mem = mbytes(clamp(lognormal(&rng, (double)o->mem_median, o->mem_sigma),
						  1e6, (double)o->mem_max));
			if (k)
				set_parents(j, &prev, 1);
			prev = (uint32_t)(wl->n_jobs - 1);
		}
		if (o->mean_gap > 0)
			at += ms(rng_exp(&rng, (double)o->mean_gap));
	}
	r = wl_finish(wl, "gen gtrace", errbuf);
	if (r) {
		wl_free(wl);
		return r;
	}
	*out = wl;
	return 0;
}
