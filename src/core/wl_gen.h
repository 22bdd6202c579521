/* Seeded workload generators. The same options and seed give a
 * byte-identical .wl file.
 *
 * fb: an FB-like mix. Each job draws its class with the NAS paper's mix
 *     (shuffle-light < 1MB 68.7%, medium 12.58%, heavy > 100MB 18.82%, §IV
 *     Fig. 2), then a job of that class uniformly from the SWIM FB-2010
 *     trace (its input, shuffle and output, so sizes within a class follow
 *     the production distribution); sizes are scaled, tasks and run times
 *     derived as the SWIM importer does; arrivals uniform in [0, span]
 *     (Co-scheduler §V-A: 1000 jobs in 90 min, 20 users) or Poisson.
 * dag: multi-level job DAGs (Dawn §2.2: median depth 5): `dags` DAGs of
 *     `depth` levels of `width` jobs; a job of level l > 1 has 1..fan_in
 *     parents in level l - 1 and reads their outputs as its input. */
#ifndef HYDE_WL_GEN_H
#define HYDE_WL_GEN_H

#include <stdint.h>
#include <stdio.h>

#include "wl_import.h"
#include "workload.h"

struct gen_fb_opts {
	uint64_t seed;
	uint32_t jobs;
	unsigned users;
	double light, medium, heavy; /* class mix, normalised when used */
	int64_t span;		     /* arrivals uniform in [0, span] */
	int64_t mean_gap;	     /* if > 0: Poisson arrivals instead */
	double scale;		     /* sizes x scale */
	uint64_t max_input, max_shuffle; /* caps after scaling, 0: none */
	struct swim_opts derive;	 /* block, per_reduce, rates, caps */
	char trace[512];		 /* SWIM trace sampled from */
};

struct gen_dag_opts {
	uint64_t seed;
	uint32_t dags;
	uint32_t depth, width, fan_in;
	unsigned users;
	uint64_t input_min, input_max; /* first-level input, log-uniform */
	double sir, osr; /* shuffle / input, output / shuffle */
	int64_t span;	 /* DAG submissions uniform in [0, span] */
	struct swim_opts derive;
	/* Dawn's workloads (wl_gen_dawn.c): random (the shape above), ml
	 * (Table 2's benchmarks), tpch (the 22 queries) */
	char preset[16];
	int64_t mean_gap; /* > 0: Poisson DAG arrivals, this mean gap */
};

void gen_fb_opts_default(struct gen_fb_opts *o);
void gen_dag_opts_default(struct gen_dag_opts *o);
int gen_fb_opts_set(struct gen_fb_opts *o, const char *kv, char *errbuf);
int gen_dag_opts_set(struct gen_dag_opts *o, const char *kv, char *errbuf);
void gen_fb_opts_print(const struct gen_fb_opts *o, FILE *fp);
void gen_dag_opts_print(const struct gen_dag_opts *o, FILE *fp);

/* Build the workload; the caller owns *out. */
int wl_gen_fb(const struct gen_fb_opts *o, struct workload **out, char *errbuf);
int wl_gen_dag(const struct gen_dag_opts *o, struct workload **out,
	       char *errbuf);
/* preset=ml|tpch (wl_gen_dawn.c); wl_gen_dag calls it. */
int wl_gen_dag_preset(const struct gen_dag_opts *o, struct workload **out, char *errbuf);

/* flows: a flow-level workload (NEAT §6.1, wl_flows.c): jobs of `width`
 * remote maps without compute (one input read each, a flow from a random
 * host to wherever the scheduler puts the map), sizes from an empirical
 * CDF, Poisson arrivals loading the host links to `load`. */
struct gen_flows_opts {
	uint64_t seed;
	char topo[512]; /* the hosts and their link rate */
	char cdf[512];	/* websearch, datamining (shipped) or a file */
	double load;
	uint32_t flows, width;
	double scale;
	uint64_t min_size, max_size;
	int64_t start;
};

/* An empirical CDF of flow sizes: points (size in bytes, cumulative
 * probability), piecewise linear between them. */
struct flow_cdf {
	size_t n;
	double *size, *p;
};

void gen_flows_opts_default(struct gen_flows_opts *o);
int gen_flows_opts_set(struct gen_flows_opts *o, const char *kv, char *errbuf);
void gen_flows_opts_print(const struct gen_flows_opts *o, FILE *fp);
int wl_gen_flows(const struct gen_flows_opts *o, struct workload **out, char *errbuf);

/* Strict: "path:line: what was expected", nothing allocated on error. */
int flow_cdf_load(const char *path, struct flow_cdf **out, char *errbuf);
void flow_cdf_free(struct flow_cdf *c);
/* The size at cumulative probability u in [0, 1]. */
double flow_cdf_sample(const struct flow_cdf *c, double u);
double flow_cdf_mean(const struct flow_cdf *c);

/* Where the shipped traces are: $HYDE_TRACEDIR, the installed data
 * directory, or the source tree. Writes the path of `name` into buf;
 * returns -ENOENT if none has it. */
int wl_trace_path(const char *name, char *buf, size_t len);

#endif
