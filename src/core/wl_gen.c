#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opts.h"
#include "rng.h"
#include "util.h"
#include "wl_gen.h"

#define FB_TRACE "FB-2010_samples_24_times_1hr_0.tsv"

void gen_fb_opts_default(struct gen_fb_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->jobs = 1000;
	o->users = 20;		/* Co-scheduler §V-A */
	o->light = 0.687;	/* NAS §IV-A, Fig. 2 */
	o->medium = 0.1258;
	o->heavy = 0.1882;
	o->span = 90LL * 60 * NSEC_PER_SEC; /* Co-scheduler §V-A */
	o->scale = 1.0;
	swim_opts_default(&o->derive);
}

void gen_dag_opts_default(struct gen_dag_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->dags = 4;
	o->depth = 5;	/* Dawn §2.2: the median DAG depth */
	o->width = 3;
	o->fan_in = 2;	/* "one job depends on the output of two" is common */
	o->users = 4;
	o->input_min = 64ULL * 1000 * 1000;
	o->input_max = 1000ULL * 1000 * 1000;
	o->sir = 1.0;	/* Dawn §3.2: stage ratio 1:1 */
	o->osr = 0.5;
	o->span = 10LL * 60 * NSEC_PER_SEC;
	swim_opts_default(&o->derive);
	strcpy(o->preset, "random");
}

static const struct opt_desc fb_desc[] = {
	OPT(gen_fb_opts, seed, O_U64, 0, 1.8e19, "random seed"),
	OPT(gen_fb_opts, jobs, O_U32, 1, 10000000, "number of jobs"),
	OPT(gen_fb_opts, users, O_UNS, 1, 1000000, "number of users"),
	OPT(gen_fb_opts, light, O_DOUBLE, 0, 1, "share of shuffle-light jobs (< 1MB)"),
	OPT(gen_fb_opts, medium, O_DOUBLE, 0, 1, "share of shuffle-medium jobs"),
	OPT(gen_fb_opts, heavy, O_DOUBLE, 0, 1, "share of shuffle-heavy jobs (> 100MB)"),
	OPT(gen_fb_opts, span, O_TIME, 0, 0, "arrivals uniform in [0, span]"),
	OPT(gen_fb_opts, mean_gap, O_TIME, 0, 0, "if set: Poisson arrivals, this mean gap"),
	OPT(gen_fb_opts, scale, O_DOUBLE, 1e-12, 1e6, "trace sizes x scale"),
	OPT(gen_fb_opts, max_input, O_SIZE, 0, 1e18, "cap on a job's input (0: none)"),
	OPT(gen_fb_opts, max_shuffle, O_SIZE, 0, 1e18, "cap on a job's shuffle (0: none)"),
	OPT(gen_fb_opts, trace, O_STR, 0, 512, "SWIM trace to sample (default: FB-2010)"),
};

static const struct opt_desc dag_desc[] = {
	OPT(gen_dag_opts, seed, O_U64, 0, 1.8e19, "random seed"),
	OPT(gen_dag_opts, dags, O_U32, 1, 1000000, "number of DAGs"),
	OPT(gen_dag_opts, depth, O_U32, 1, 1000, "levels per DAG"),
	OPT(gen_dag_opts, width, O_U32, 1, 10000, "jobs per level"),
	OPT(gen_dag_opts, fan_in, O_U32, 1, 100, "most parents of a job"),
	OPT(gen_dag_opts, users, O_UNS, 1, 1000000, "number of users (one per DAG, cycled)"),
	OPT(gen_dag_opts, input_min, O_SIZE, 1, 1e18, "smallest first-level input"),
	OPT(gen_dag_opts, input_max, O_SIZE, 1, 1e18, "largest first-level input"),
	OPT(gen_dag_opts, sir, O_DOUBLE, 0, 1e6, "shuffle / input"),
	OPT(gen_dag_opts, osr, O_DOUBLE, 0, 1e6, "output / shuffle"),
	OPT(gen_dag_opts, span, O_TIME, 0, 0, "DAG submissions uniform in [0, span]"),
	OPT(gen_dag_opts, mean_gap, O_TIME, 0, 0, "if set: Poisson DAG arrivals, this mean gap"),
	OPT(gen_dag_opts, preset, O_STR, 0, 16, "random, ml (Dawn Table 2) or tpch (22 queries)"),
};

/* Own keys first, then the SWIM derivation's (block, map_rate, ...). */
int gen_fb_opts_set(struct gen_fb_opts *o, const char *kv, char *errbuf)
{
	int r = opts_try_set(o, fb_desc, ARRAY_SIZE(fb_desc), kv, errbuf);

	if (r != -ENOENT)
		return r;
	r = swim_opts_try_set(&o->derive, kv, errbuf);
	if (r != -ENOENT)
		return r;
	errbuf_set(errbuf, "unknown option '%.*s' (see hyde gen --help)",
		   (int)strcspn(kv, "="), kv);
	return -EINVAL;
}

int gen_dag_opts_set(struct gen_dag_opts *o, const char *kv, char *errbuf)
{
	int r = opts_try_set(o, dag_desc, ARRAY_SIZE(dag_desc), kv, errbuf);

	if (r != -ENOENT)
		return r;
	r = swim_opts_try_set(&o->derive, kv, errbuf);
	if (r != -ENOENT)
		return r;
	errbuf_set(errbuf, "unknown option '%.*s' (see hyde gen --help)",
		   (int)strcspn(kv, "="), kv);
	return -EINVAL;
}

void gen_fb_opts_print(const struct gen_fb_opts *o, FILE *fp)
{
	opts_print(o, fb_desc, ARRAY_SIZE(fb_desc), fp);
}

void gen_dag_opts_print(const struct gen_dag_opts *o, FILE *fp)
{
	opts_print(o, dag_desc, ARRAY_SIZE(dag_desc), fp);
}

int wl_trace_path(const char *name, char *buf, size_t len)
{
	const char *dirs[3];
	size_t i;

	dirs[0] = getenv("HYDE_TRACEDIR");
	dirs[1] = HYDE_PKGDATADIR "/traces";
	dirs[2] = HYDE_SRCDIR "/workloads/traces";
	for (i = 0; i < 3; i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		snprintf(buf, len, "%s/%s", dirs[i], name);
		if (access(buf, R_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Generated times are whole milliseconds: readable files, and no
 * precision anyone could measure is lost. */
static int64_t round_ms(int64_t ns)
{
	return (ns + NSEC_PER_MSEC / 2) / NSEC_PER_MSEC * NSEC_PER_MSEC;
}

static void round_times(struct wl_job *j)
{
	j->arrival = round_ms(j->arrival);
	j->map_time = round_ms(j->map_time);
	j->reduce_time = round_ms(j->reduce_time);
}

static uint64_t scaled(uint64_t v, double scale, uint64_t cap)
{
	uint64_t s = (uint64_t)llround((double)v * scale);

	return cap && s > cap ? cap : s;
}

int wl_gen_fb(const struct gen_fb_opts *o, struct workload **out, char *errbuf)
{
	struct swim_opts so;
	struct workload *trace = NULL, *wl;
	uint32_t *bycls[3] = { NULL, NULL, NULL }, ncls[3] = { 0, 0, 0 };
	double mix[3] = { o->light, o->medium, o->heavy }, total;
	char path[1024];
	int64_t *arrivals;
	struct rng rng;
	uint32_t i;
	int r, c;

	total = mix[0] + mix[1] + mix[2];
	if (total <= 0) {
		errbuf_set(errbuf, "gen fb: light + medium + heavy must be > 0");
		return -EINVAL;
	}
	if (o->trace[0])
		snprintf(path, sizeof(path), "%s", o->trace);
	else if (wl_trace_path(FB_TRACE, path, sizeof(path))) {
		errbuf_set(errbuf, "gen fb: cannot find %s (set HYDE_TRACEDIR or trace=PATH)",
			   FB_TRACE);
		return -ENOENT;
	}
	/* the trace as is: classes are those of the production sizes */
	swim_opts_default(&so);
	r = wl_import_swim(path, &so, &trace, errbuf);
	if (r)
		return r;
	for (c = 0; c < 3; c++)
		bycls[c] = xcalloc(trace->n_jobs, sizeof(uint32_t));
	for (i = 0; i < trace->n_jobs; i++) {
		c = wl_job_class(&trace->jobs[i]);
		bycls[c][ncls[c]++] = i;
	}
	for (c = 0; c < 3; c++)
		if (mix[c] > 0 && ncls[c] == 0) {
			errbuf_set(errbuf, "gen fb: %s has no %s jobs to sample", path,
				   wl_class_name(c));
			r = -EINVAL;
			goto out;
		}

	rng_seed(&rng, o->seed);
	arrivals = xcalloc(o->jobs, sizeof(int64_t));
	if (o->mean_gap > 0) {
		double t = 0;

		for (i = 0; i < o->jobs; i++) {
			arrivals[i] = (int64_t)llround(t);
			t += rng_exp(&rng, (double)o->mean_gap);
		}
	} else {
		for (i = 0; i < o->jobs; i++)
			arrivals[i] = (int64_t)llround(rng_unit(&rng) * (double)o->span);
		xqsort(arrivals, o->jobs, sizeof(int64_t), cmp_i64);
	}
	wl = wl_new();
	for (i = 0; i < o->jobs; i++) {
		double u = rng_unit(&rng) * total;
		const struct wl_job *src;
		struct wl_job *j;
		char id[32], user[32];

		c = u < mix[0] ? WL_LIGHT : u < mix[0] + mix[1] ? WL_MEDIUM : WL_HEAVY;
		if (mix[c] == 0) /* rounding at the edge */
			c = mix[WL_HEAVY] > 0 ? WL_HEAVY : mix[WL_MEDIUM] > 0 ? WL_MEDIUM : WL_LIGHT;
		src = &trace->jobs[bycls[c][rng_below(&rng, ncls[c])]];
		snprintf(id, sizeof(id), "j%" PRIu32, i);
		snprintf(user, sizeof(user), "u%" PRIu64, rng_below(&rng, o->users));
		j = wl_add_job(wl, id, user);
		j->arrival = arrivals[i];
		j->input = scaled(src->input, o->scale, o->max_input);
		if (j->input == 0)
			j->input = 1;
		j->shuffle = scaled(src->shuffle, o->scale, o->max_shuffle);
		j->output = scaled(src->output, o->scale, 0);
		/* scaled, the job keeps the class it was drawn for (NAS §IV's
		 * classes are of the production sizes): said where its
		 * shuffle no longer says it */
		if (wl_shuffle_class(j->shuffle) != (enum wl_class)c) {
			j->has_class = true;
			j->cls = (enum wl_class)c;
		}
		swim_derive(&o->derive, j);
		round_times(j);
	}
	free(arrivals);
	r = wl_finish(wl, "gen fb", errbuf);
	if (r)
		wl_free(wl);
	else
		*out = wl;
out:
	for (c = 0; c < 3; c++)
		free(bycls[c]);
	wl_free(trace);
	return r;
}

int wl_gen_dag(const struct gen_dag_opts *o, struct workload **out,
	       char *errbuf)
{
	struct workload *wl;
	struct rng rng;
	uint32_t d, l, w, k, fan;
	uint32_t *prev, *cur, *pick;
	int64_t gap_t = 0;
	int r;

	if (strcmp(o->preset, "random"))
		return wl_gen_dag_preset(o, out, errbuf);
	if (o->input_min > o->input_max) {
		errbuf_set(errbuf, "gen dag: input_min is larger than input_max");
		return -EINVAL;
	}
	rng_seed(&rng, o->seed);
	wl = wl_new();
	prev = xcalloc(o->width, sizeof(uint32_t));
	cur = xcalloc(o->width, sizeof(uint32_t));
	pick = xcalloc(o->width, sizeof(uint32_t));
	for (d = 0; d < o->dags; d++) {
		int64_t at = (int64_t)llround(rng_unit(&rng) * (double)o->span);
		char user[32], app[32];

		if (o->mean_gap > 0) {
			/* Poisson: the uniform draw above is kept, so that
			 * the sizes are the same as without mean_gap */
			gap_t += d ? (int64_t)llround(rng_exp(&rng, (double)o->mean_gap)) : 0;
			at = gap_t;
		}
		snprintf(user, sizeof(user), "u%u", d % o->users);
		snprintf(app, sizeof(app), "d%" PRIu32, d);
		for (l = 0; l < o->depth; l++) {
			for (w = 0; w < o->width; w++) {
				struct wl_job *j;
				char id[48];

				snprintf(id, sizeof(id), "d%" PRIu32 "l%" PRIu32 "j%" PRIu32, d, l, w);
				j = wl_add_job(wl, id, user);
				j->app = xstrdup(app); /* the DAG: its WCT */
				j->arrival = at;
				if (l == 0) {
					double lo = log((double)o->input_min);
					double hi = log((double)o->input_max);

					/* scale= (the derivation's "byte sizes x
					 * this") applies here as in the presets */
					j->input = (uint64_t)llround(fmax(1, exp(lo + rng_unit(&rng) * (hi - lo)) *
									    o->derive.scale));
				} else {
					/* 1..fan_in distinct parents of the level above */
					fan = 1 + (uint32_t)rng_below(&rng, o->fan_in < o->width ? o->fan_in : o->width);
					for (k = 0; k < o->width; k++)
						pick[k] = k;
					rng_shuffle_u32(&rng, pick, o->width);
					j->parents = xcalloc(fan, sizeof(uint32_t));
					j->n_parents = fan;
					j->input = 0;
					for (k = 0; k < fan; k++) {
						j->parents[k] = prev[pick[k]];
						j->input += wl->jobs[prev[pick[k]]].output;
					}
					/* data lineage: it reads what they wrote */
					j->input_from_parents = j->input > 0;
					if (j->input == 0)
						j->input = 1;
				}
				j->shuffle = (uint64_t)llround((double)j->input * o->sir);
				j->output = (uint64_t)llround((double)j->shuffle * o->osr);
				swim_derive(&o->derive, j);
				round_times(j);
				cur[w] = (uint32_t)(wl->n_jobs - 1);
			}
			memcpy(prev, cur, o->width * sizeof(uint32_t));
		}
	}
	free(prev);
	free(cur);
	free(pick);
	r = wl_finish(wl, "gen dag", errbuf);
	if (r) {
		wl_free(wl);
		return r;
	}
	*out = wl;
	return 0;
}
