#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "rng.h"
#include "units.h"
#include "wl_import.h"

void swim_opts_default(struct swim_opts *o)
{
	*o = (struct swim_opts){
		.scale = 1.0,
		.time_scale = 1.0,
		.block = 128ULL * 1024 * 1024,	      /* HDFS block, as in NAS §IV-A */
		.per_reduce = 1000ULL * 1000 * 1000,  /* Hive's bytes per reducer */
		.map_rate = 10ULL * 1000 * 1000 * 8,  /* 10MB/s */
		.reduce_rate = 10ULL * 1000 * 1000 * 8,
		.map_base = 2 * NSEC_PER_SEC,
		.reduce_base = 2 * NSEC_PER_SEC,
		.users = 20, /* Co-scheduler §V-A */
		.seed = 1,
	};
}

void coflow_opts_default(struct coflow_opts *o)
{
	*o = (struct coflow_opts){
		.mb = 1000000, /* as Sunflow's simulator reads it */
		.min_flow = 0,
		.time_scale = 1.0,
		.users = 1,
		.seed = 1,
	};
}

static const struct opt_desc swim_desc[] = {
	OPT(swim_opts, scale, O_DOUBLE, 1e-12, 1e6, "byte sizes x scale"),
	OPT(swim_opts, time_scale, O_DOUBLE, 0, 1e6, "arrival times x time_scale"),
	OPT(swim_opts, block, O_SIZE, 1, 1e15, "input bytes per map"),
	OPT(swim_opts, per_reduce, O_SIZE, 1, 1e15, "shuffle + output bytes per reduce"),
	OPT(swim_opts, max_maps, O_U32, 0, WL_MAX_TASKS, "cap on maps per job (0: none)"),
	OPT(swim_opts, max_reduces, O_U32, 0, WL_MAX_TASKS, "cap on reduces per job (0: none)"),
	OPT(swim_opts, map_rate, O_RATE, 0, 0, "data a map processes per second"),
	OPT(swim_opts, reduce_rate, O_RATE, 0, 0, "data a reduce processes per second"),
	OPT(swim_opts, map_base, O_TIME, 0, 0, "fixed part of a map's run time"),
	OPT(swim_opts, reduce_base, O_TIME, 0, 0, "fixed part of a reduce's run time"),
	OPT(swim_opts, users, O_UNS, 1, 1000000, "jobs are spread over this many users"),
	OPT(swim_opts, seed, O_U64, 0, 1.8e19, "seed of the user assignment"),
	OPT(swim_opts, first, O_SZ, 0, 1e9, "skip this many jobs of the trace"),
	OPT(swim_opts, count, O_SZ, 0, 1e9, "import at most this many jobs (0: all)"),
};

static const struct opt_desc coflow_desc[] = {
	OPT(coflow_opts, mb, O_SIZE, 1, 1e9, "bytes in the trace's MB (1MB or 1MiB)"),
	OPT(coflow_opts, min_flow, O_SIZE, 0, 1e15, "floor of every flow (0: none)"),
	OPT(coflow_opts, time_scale, O_DOUBLE, 0, 1e6, "arrival times x time_scale"),
	OPT(coflow_opts, users, O_UNS, 1, 1000000, "coflows are spread over this many users"),
	OPT(coflow_opts, seed, O_U64, 0, 1.8e19, "seed of the user assignment"),
	OPT(coflow_opts, first, O_SZ, 0, 1e9, "skip this many coflows"),
	OPT(coflow_opts, count, O_SZ, 0, 1e9, "import at most this many coflows (0: all)"),
};

int swim_opts_set(struct swim_opts *o, const char *kv, char *errbuf)
{
	return opts_set(o, swim_desc, ARRAY_SIZE(swim_desc), kv, errbuf);
}

int swim_opts_try_set(struct swim_opts *o, const char *kv, char *errbuf)
{
	return opts_try_set(o, swim_desc, ARRAY_SIZE(swim_desc), kv, errbuf);
}

void swim_opts_print(const struct swim_opts *o, FILE *fp)
{
	opts_print(o, swim_desc, ARRAY_SIZE(swim_desc), fp);
}

void coflow_opts_print(const struct coflow_opts *o, FILE *fp)
{
	opts_print(o, coflow_desc, ARRAY_SIZE(coflow_desc), fp);
}

int coflow_opts_set(struct coflow_opts *o, const char *kv, char *errbuf)
{
	return opts_set(o, coflow_desc, ARRAY_SIZE(coflow_desc), kv, errbuf);
}

/* ---- SWIM ---- */

static int64_t task_time(int64_t base, uint64_t bytes, uint64_t rate_bps)
{
	return base + (int64_t)((double)bytes * 8.0 / (double)rate_bps * 1e9 + 0.5);
}

void swim_derive(const struct swim_opts *o, struct wl_job *j)
{
	uint64_t maps = (j->input + o->block - 1) / o->block;

	if (maps < 1)
		maps = 1;
	if (o->max_maps && maps > o->max_maps)
		maps = o->max_maps;
	if (maps > WL_MAX_TASKS)
		maps = WL_MAX_TASKS;
	j->maps = (uint32_t)maps;
	if (j->shuffle == 0) {
		j->reduces = 0;
	} else {
		double r = floor((double)(j->shuffle + j->output) /
				 (double)o->per_reduce + 0.5);

		if (r < 1)
			r = 1;
		if (o->max_reduces && r > o->max_reduces)
			r = o->max_reduces;
		if (r > WL_MAX_TASKS)
			r = WL_MAX_TASKS;
		j->reduces = (uint32_t)r;
	}
	j->map_time = task_time(o->map_base, j->input / j->maps, o->map_rate);
	j->reduce_time = j->reduces
		? task_time(o->reduce_base, j->shuffle / j->reduces, o->reduce_rate)
		: 0;
}

static int ierr(char *errbuf, const char *path, unsigned line,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int ierr(char *errbuf, const char *path, unsigned line,
		const char *fmt, ...)
{
	char msg[HYDE_ERRBUF_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	errbuf_set(errbuf, "%s:%u: %s", path, line, msg);
	return -EINVAL;
}

static uint64_t scale_bytes(uint64_t v, double scale)
{
	return (uint64_t)llround((double)v * scale);
}

static void assign_user(struct wl_job *j, struct rng *r, unsigned users)
{
	char name[32];

	snprintf(name, sizeof(name), "u%" PRIu64, rng_below(r, users));
	free(j->user);
	j->user = xstrdup(name);
}

/* A job's arrival in ns from the first line's, as an integer: a time
 * that does not fit (a trace whose submit times span 300 years, found by
 * fuzzing: llround of it is undefined, and then so was the subtraction
 * below) is an error. Within the bound, any two differ by less than
 * INT64_MAX. */
static int arrival_ns(double ns, int64_t *out, char *errbuf, const char *path,
		      unsigned line)
{
	if (!(ns > -4e18 && ns < 4e18))
		return ierr(errbuf, path, line, "arrival %.3gs from the first job's: expected at most a year",
			    ns / 1e9);
	*out = (int64_t)llround(ns);
	return 0;
}

/* Arrival times from the earliest job imported, not the first line: a
 * trace out of order (found by fuzzing: a job submitted before the first
 * line's) would otherwise arrive before the run starts, which a .wl file
 * cannot say. */
static void arrivals_from_earliest(struct workload *wl)
{
	int64_t min = 0;
	size_t i;

	for (i = 0; i < wl->n_jobs; i++)
		if (wl->jobs[i].arrival < min)
			min = wl->jobs[i].arrival;
	for (i = 0; i < wl->n_jobs; i++)
		wl->jobs[i].arrival -= min;
}

int wl_import_swim(const char *path, const struct swim_opts *o,
		   struct workload **out, char *errbuf)
{
	FILE *fp;
	struct workload *wl;
	char *buf = NULL, *f[8];
	size_t cap = 0, idx = 0;
	unsigned line = 0;
	double t0 = -1;
	struct rng rng;
	long n;
	int r = 0, nf, k;

	if ((r = file_open_read(path, &fp, errbuf)))
		return r;
	rng_seed(&rng, o->seed);
	wl = wl_new();
	while ((n = read_line(fp, &buf, &cap)) != -1) {
		uint64_t v[4];
		double submit;
		struct wl_job *j;
		char *s, *save = NULL;

		line++;
		if (n == -2) {
			r = ierr(errbuf, path, line, "not a text file");
			goto err;
		}
		if (n == 0)
			continue;
		nf = 0;
		for (s = strtok_r(buf, "\t", &save); s && nf < 7;
		     s = strtok_r(NULL, "\t", &save))
			f[nf++] = s;
		if (nf != 6)
			{ r = ierr(errbuf, path, line, "expected 6 tab-separated fields (job_id submit_s gap_s input shuffle output), got %d", nf); goto err; }
		if (parse_double(f[1], 0, 1e12, &submit))
			{ r = ierr(errbuf, path, line, "submit time: expected seconds, got '%s'", f[1]); goto err; }
		for (k = 0; k < 4; k++)
			if (parse_uint(f[2 + k], 0, UINT64_MAX / 2, &v[k]))
				{ r = ierr(errbuf, path, line, "field %d: expected a whole number, got '%s'", 3 + k, f[2 + k]); goto err; }
		if (idx++ < o->first)
			continue;
		if (o->count && wl->n_jobs == o->count)
			break;
		if (t0 < 0)
			t0 = submit;
		j = wl_add_job(wl, f[0], NULL);
		j->line = line;
		if ((r = arrival_ns((submit - t0) * o->time_scale * 1e9, &j->arrival, errbuf, path,
				    line)))
			goto err;
		j->input = scale_bytes(v[1], o->scale);
		j->shuffle = scale_bytes(v[2], o->scale);
		j->output = scale_bytes(v[3], o->scale);
		if (j->input == 0)
			j->input = 1; /* a job reads something; SWIM floors it too */
		swim_derive(o, j);
		assign_user(j, &rng, o->users);
	}
	if (ferror(fp)) {
		errbuf_set(errbuf, "%s: read error", path);
		r = -EIO;
		goto err;
	}
	arrivals_from_earliest(wl);
	r = wl_finish(wl, path, errbuf);
	if (r)
		goto err;
	free(buf);
	fclose(fp);
	*out = wl;
	return 0;
err:
	free(buf);
	fclose(fp);
	wl_free(wl);
	return r;
}

/* ---- Coflow-Benchmark ---- */

static int next_tok(char **s, char **tok)
{
	char *p = *s;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return -1;
	*tok = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	if (*p)
		*p++ = '\0';
	*s = p;
	return 0;
}

int wl_import_coflow(const char *path, const struct coflow_opts *o,
		     struct workload **out, char *errbuf)
{
	FILE *fp;
	struct workload *wl;
	char *buf = NULL, *s, *tok;
	size_t cap = 0, idx = 0;
	uint64_t racks = 0, ncoflows = 0, nseen = 0;
	unsigned line = 0;
	struct rng rng;
	int64_t t0 = -1;
	long n;
	int r = 0;

	if ((r = file_open_read(path, &fp, errbuf)))
		return r;
	rng_seed(&rng, o->seed);
	wl = wl_new();
	while ((n = read_line(fp, &buf, &cap)) != -1) {
		uint64_t id, at, nm, nr, k, sum = 0;
		struct wl_job *j;
		char name[32];

		line++;
		if (n == -2) {
			r = ierr(errbuf, path, line, "not a text file");
			goto err;
		}
		s = buf;
		if (line == 1) {
			if (next_tok(&s, &tok) || parse_uint(tok, 1, 1U << 20, &racks) ||
			    next_tok(&s, &tok) || parse_uint(tok, 1, 1U << 30, &ncoflows) ||
			    !next_tok(&s, &tok)) {
				r = ierr(errbuf, path, line, "expected 'num_racks num_coflows'");
				goto err;
			}
			continue;
		}
		if (next_tok(&s, &tok))
			continue; /* blank line */
		if (++nseen > ncoflows) {
			r = ierr(errbuf, path, line, "more coflows than the %" PRIu64 " the header announces", ncoflows);
			goto err;
		}
		if (parse_uint(tok, 0, UINT32_MAX, &id) ||
		    next_tok(&s, &tok) || parse_uint(tok, 0, UINT64_MAX / 2000000, &at) ||
		    next_tok(&s, &tok) || parse_uint(tok, 1, WL_MAX_TASKS, &nm)) {
			r = ierr(errbuf, path, line, "expected 'coflow_id arrival_ms num_mappers ...'");
			goto err;
		}
		snprintf(name, sizeof(name), "c%" PRIu64, id);
		if (idx++ < o->first) {
			continue;
		}
		if (o->count && wl->n_jobs == o->count)
			break;
		j = wl_add_job(wl, name, NULL);
		j->line = line;
		if (t0 < 0)
			t0 = (int64_t)at;
		if ((r = arrival_ns((double)((int64_t)at - t0) * 1e6 * o->time_scale, &j->arrival,
				    errbuf, path, line)))
			goto err;
		j->maps = (uint32_t)nm;
		j->map_racks = xcalloc(nm, sizeof(uint32_t));
		for (k = 0; k < nm; k++) {
			uint64_t rk;

			if (next_tok(&s, &tok) || parse_uint(tok, 0, racks - 1, &rk)) {
				r = ierr(errbuf, path, line, "mapper %" PRIu64 ": expected a rack from 0 to %" PRIu64, k + 1, racks - 1);
				goto err;
			}
			j->map_racks[k] = (uint32_t)rk;
		}
		if (next_tok(&s, &tok) || parse_uint(tok, 1, WL_MAX_TASKS, &nr)) {
			r = ierr(errbuf, path, line, "expected num_reducers after the %" PRIu64 " mappers", nm);
			goto err;
		}
		j->reduces = (uint32_t)nr;
		j->reduce_racks = xcalloc(nr, sizeof(uint32_t));
		j->reduce_bytes = xcalloc(nr, sizeof(uint64_t));
		for (k = 0; k < nr; k++) {
			char *colon;
			uint64_t rk, bytes;
			double mb;

			if (next_tok(&s, &tok) || !(colon = strchr(tok, ':'))) {
				r = ierr(errbuf, path, line, "reducer %" PRIu64 ": expected rack:MB", k + 1);
				goto err;
			}
			*colon = '\0';
			if (parse_uint(tok, 0, racks - 1, &rk) ||
			    parse_double(colon + 1, 0, 1e12, &mb)) {
				r = ierr(errbuf, path, line, "reducer %" PRIu64 ": expected rack:MB with a rack below %" PRIu64, k + 1, racks);
				goto err;
			}
			bytes = (uint64_t)llround(mb * (double)o->mb);
			if (o->min_flow && bytes < o->min_flow * nm)
				bytes = o->min_flow * nm;
			j->reduce_racks[k] = (uint32_t)rk;
			j->reduce_bytes[k] = bytes;
			sum += bytes;
		}
		if (!next_tok(&s, &tok)) {
			r = ierr(errbuf, path, line, "unexpected '%s' after the %" PRIu64 " reducers", tok, nr);
			goto err;
		}
		j->shuffle = sum;
		j->input = sum ? sum : 1;
		j->output = 0;
		j->map_time = 0;
		j->reduce_time = 0;
		assign_user(j, &rng, o->users);
	}
	if (ferror(fp)) {
		errbuf_set(errbuf, "%s: read error", path);
		r = -EIO;
		goto err;
	}
	if (line == 0) {
		r = ierr(errbuf, path, 1, "empty file (expected 'num_racks num_coflows')");
		goto err;
	}
	if (!o->count && !o->first && nseen != ncoflows) {
		r = ierr(errbuf, path, line, "the header announces %" PRIu64 " coflows, the file has %" PRIu64, ncoflows, nseen);
		goto err;
	}
	arrivals_from_earliest(wl);
	r = wl_finish(wl, path, errbuf);
	if (r)
		goto err;
	free(buf);
	fclose(fp);
	*out = wl;
	return 0;
err:
	free(buf);
	fclose(fp);
	wl_free(wl);
	return r;
}
