/* Workload generators for COBRA [COBRA], whose applications are
 * Spark-like DAGs of stages with per-task resource demands: hyde writes
 * each application as jobs sharing one app= (a job is up to two stages:
 * its maps and its reduces; a later stage is a job whose parents= are the
 * earlier ones). The same options and seed give a byte-identical file.
 *
 * spark: §VII-A/C's deployment workloads (Table III): Wordcount, TPC-H,
 *     iterative machine learning and PageRank, small / medium / large
 *     inputs in 46 / 40 / 14% of the apps (a workload without that size
 *     in Table III is not drawn for it), exponential arrivals (mean 60s).
 *     The stage shapes, task times and demands are derived here (the
 *     paper gives none): see wl_gen_cobra.c and workloads/README.md.
 * gtrace: a synthetic stand-in for the Google cluster trace of §VII-B
 *     (not available here): Poisson arrivals, heavy-tailed tasks per stage
 *     and task durations, small CPU and memory demands, 1 to 3 stages,
 *     input blocks placed by HDFS's default policy. */
#ifndef HYDE_WL_GEN_COBRA_H
#define HYDE_WL_GEN_COBRA_H

#include <stdint.h>
#include <stdio.h>

#include "workload.h"

struct gen_spark_opts {
	uint64_t seed;
	uint32_t apps;
	int64_t mean_gap;	      /* exponential gaps between apps */
	double small, medium, large;  /* size mix, normalised when used */
	uint32_t iterations;	      /* of ML and PageRank */
	uint64_t block;		      /* input split (HDFS block) */
	double time_scale;	      /* arrivals and task times x this */
	double size_scale;	      /* bytes x this, not tasks or times */
	char only[16];		      /* one workload only: wordcount, tpch, ml, pagerank */
};

struct gen_gtrace_opts {
	uint64_t seed;
	uint32_t apps;
	int64_t mean_gap; /* 0: every app at time 0 */
	double two_stage, three_stage; /* shares of apps with 2 and 3 stages */
	double tasks_median, tasks_sigma; /* lognormal tasks per stage */
	uint32_t tasks_min, tasks_max;
	int64_t dur_median;		  /* lognormal task duration */
	double dur_sigma;
	int64_t dur_min, dur_max;
	double cpu_median, cpu_sigma, cpu_max; /* cores per task */
	uint64_t mem_median, mem_max;	       /* bytes per task */
	double mem_sigma;
	uint64_t task_input;		       /* bytes each task reads */
};

void gen_spark_opts_default(struct gen_spark_opts *o);
void gen_gtrace_opts_default(struct gen_gtrace_opts *o);
int gen_spark_opts_set(struct gen_spark_opts *o, const char *kv, char *errbuf);
int gen_gtrace_opts_set(struct gen_gtrace_opts *o, const char *kv, char *errbuf);
void gen_spark_opts_print(const struct gen_spark_opts *o, FILE *fp);
void gen_gtrace_opts_print(const struct gen_gtrace_opts *o, FILE *fp);

int wl_gen_spark(const struct gen_spark_opts *o, struct workload **out, char *errbuf);
int wl_gen_gtrace(const struct gen_gtrace_opts *o, struct workload **out, char *errbuf);

#endif
