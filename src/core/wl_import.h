/* Importers for the production traces in workloads/traces/.
 *
 * SWIM Facebook traces (FB-2009, FB-2010): one job a line,
 *   job_id submit_s gap_s input_bytes shuffle_bytes output_bytes
 * Tasks and run times are not in the trace; they are derived as SWIM's
 * replayer (GenerateReplayScript) does, with knobs:
 *   sizes   x scale                  (SWIM: target / original cluster size)
 *   maps    = max(1, ceil(input / block))
 *   reduces = 0 if shuffle == 0, else max(1, round((shuffle + output) /
 *             per_reduce))           (SWIM: data per reduce task)
 *   map_time    = map_base + (input / maps) / map_rate
 *   reduce_time = reduce_base + (shuffle / reduces) / reduce_rate
 *   arrival = (submit - submit of the first imported job) x time_scale
 *   user    = one of `users` users, drawn with `seed`
 *
 * Coflow-Benchmark (FB2010-1Hr-150-0.txt): one coflow a line, rack-level:
 *   id arrival_ms n_mappers m_1..m_k n_reducers r_1:MB_1 .. r_n:MB_n
 * Each coflow becomes a job with one map per mapper rack and one reduce per
 * reducer rack, pinned there (map_racks, reduce_racks); reducer j receives
 * MB_j x mb bytes, split evenly over the mappers (one flow per pair), each
 * flow at least min_flow. No compute: map and reduce times are 0. */
#ifndef HYDE_WL_IMPORT_H
#define HYDE_WL_IMPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "workload.h"

struct swim_opts {
	double scale;	      /* byte sizes are multiplied by this */
	double time_scale;    /* arrival times are multiplied by this */
	uint64_t block;	      /* input bytes per map (after scaling) */
	uint64_t per_reduce;  /* shuffle + output bytes per reduce */
	uint32_t max_maps, max_reduces; /* caps, 0: none */
	uint64_t map_rate, reduce_rate; /* bit/s of data a task processes */
	int64_t map_base, reduce_base;	/* ns */
	unsigned users;
	uint64_t seed;
	size_t first, count; /* slice of the trace's jobs (count 0: all) */
};

struct coflow_opts {
	uint64_t mb;	   /* bytes in the trace's "MB": 1000000 or 1048576 */
	uint64_t min_flow; /* floor of each (mapper, reducer) flow, 0: none */
	double time_scale;
	unsigned users;
	uint64_t seed;
	size_t first, count;
};

void swim_opts_default(struct swim_opts *o);
void coflow_opts_default(struct coflow_opts *o);

int wl_import_swim(const char *path, const struct swim_opts *o,
		   struct workload **out, char *errbuf);
int wl_import_coflow(const char *path, const struct coflow_opts *o,
		     struct workload **out, char *errbuf);

/* Parse "key=value" into the options; unknown key or bad value: -EINVAL
 * with a message. Keys are the struct's field names. */
int swim_opts_set(struct swim_opts *o, const char *kv, char *errbuf);
int coflow_opts_set(struct coflow_opts *o, const char *kv, char *errbuf);
/* Like swim_opts_set, but -ENOENT, silently, for a key it does not know. */
int swim_opts_try_set(struct swim_opts *o, const char *kv, char *errbuf);
void swim_opts_print(const struct swim_opts *o, FILE *fp);
void coflow_opts_print(const struct coflow_opts *o, FILE *fp);

/* SWIM's derivation for one job (shared with the FB-like generator). */
void swim_derive(const struct swim_opts *o, struct wl_job *j);

#endif
