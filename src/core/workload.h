/* A workload: MapReduce-style jobs with their sizes, tasks, run times and
 * dependencies (a DAG). Read from a .wl file (see workloads/README.md), or
 * imported from the SWIM and Coflow-Benchmark traces (wl_import.c), or
 * generated (wl_gen.c). */
#ifndef HYDE_WORKLOAD_H
#define HYDE_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"

#define WL_ID_MAX 64
#define WL_MAX_TASKS 1000000 /* per stage of one job */

/* How a task spends its run time. */
enum wl_work {
	WL_WORK_SLEEP, /* waits: cheap, many tasks per core */
	WL_WORK_CPU,   /* spins: real CPU contention */
};

/* Job classes by shuffle size (NAS §IV: light < 1 MB, heavy > 100 MB). */
enum wl_class {
	WL_LIGHT,
	WL_MEDIUM,
	WL_HEAVY,
};
#define WL_LIGHT_MAX 1000000ULL	   /* shuffle below this: light */
#define WL_HEAVY_MIN 100000000ULL  /* shuffle above this: heavy */

/* A host as a workload names it: r<rack>h<host>. */
struct wl_host {
	uint32_t rack, host;
};

struct wl_job {
	char *id;
	char *user;
	int64_t arrival; /* ns from the start of the run */
	uint64_t input, shuffle, output; /* bytes */
	uint32_t maps, reduces;
	int64_t map_time, reduce_time; /* ns per task */
	enum wl_work work;
	uint32_t *parents; /* indices into workload.jobs */
	uint32_t n_parents;
	/* input=parents: the job reads its parents' output parts (data
	 * lineage); input is then their sum, worked out by wl_finish */
	bool input_from_parents;
	double sir; /* sir= as given (0: none), applied once input is known */
	/* Optional fixed placement (the Coflow-Benchmark gives racks):
	 * map_racks[maps], reduce_racks[reduces]; and per-reducer shuffle
	 * bytes reduce_bytes[reduces] (else shuffle is split evenly). */
	uint32_t *map_racks;
	/* Optional: the racks holding the job's input (every replica of
	 * block b in input_racks[(b + k) % n_input_racks], k the replica),
	 * as data uploaded from there; else HDFS's default placement. */
	uint32_t *input_racks;
	uint32_t n_input_racks;
	uint32_t *reduce_racks;
	uint64_t *reduce_bytes;
	/* Optional, for flow-level workloads (NEAT §6): the one host holding
	 * each block (block b's only replica on input_hosts[b % n]: a flow's
	 * fixed source), each block's size (block_bytes[maps], summing to
	 * input; else input is split evenly), and remote: a map never runs
	 * on a host holding its block, so every input read is a flow whose
	 * destination the scheduler chooses. */
	struct wl_host *input_hosts;
	uint32_t n_input_hosts;
	uint64_t *block_bytes;
	bool remote;
	unsigned line; /* where it was defined, for messages */
	/* Its application (app=; default: its own id): the jobs of one app
	 * share the containers the app holds (a Spark job's stages, COBRA's
	 * "job"). And each task's peak demand: cores and bytes (0: one
	 * default container's worth, the host's cores and memory over its
	 * containers). */
	char *app;
	double map_cpu, reduce_cpu;
	uint64_t map_mem, reduce_mem;
	/* class= (optional): its shuffle class as drawn, which a workload
	 * scaled after the draw keeps (hyde gen fb scale=); else its
	 * shuffle's (wl_job_class) */
	bool has_class;
	enum wl_class cls;
};

struct workload {
	struct wl_job *jobs;
	size_t n_jobs;
	char **users; /* distinct users, in order of first appearance */
	size_t n_users;
	uint32_t *user_of; /* user index of each job */
	char **apps;	   /* distinct applications, in order of first appearance */
	size_t n_apps;
	uint32_t *app_of;  /* app index of each job */
	/* Defaults for task times given as processing rates (bytes/s). */
	uint64_t map_rate, reduce_rate; /* bit/s of data processed; 0: unset */
	int64_t map_base, reduce_base;	/* fixed part of a task's time, ns */
};

/* Parse a .wl file. Errors: negative errno, "path:line: expected ..." in
 * errbuf, nothing allocated. The caller owns *out (wl_free). */
int wl_load(const char *path, struct workload **out, char *errbuf);
int wl_parse(FILE *fp, const char *path, struct workload **out, char *errbuf);
/* Load any supported form: "swim:PATH", "coflow:PATH", "wl:PATH", or a path
 * ending in .tsv (SWIM) or .wl. Trace imports take their options after the
 * path, comma-separated: "coflow:PATH,mb=1MB,min_flow=1MB" (the keys of
 * hyde import); without any, the defaults. */
int wl_open(const char *spec, struct workload **out, char *errbuf);
/* The same, and the generators: "gen:fb[,KEY=VALUE...]" and "gen:dag[,...]"
 * (the keys of hyde gen) draw a workload with `seed` unless the spec sets
 * seed=, so a run's --seed redraws it. wl_open draws with seed 1. */
int wl_open_seed(const char *spec, uint64_t seed, struct workload **out, char *errbuf);
void wl_free(struct workload *wl);

/* Write in the .wl format; the output parses back to the same workload. */
int wl_write(const struct workload *wl, FILE *fp);

/* Construction, for importers and generators. wl_add_job copies id/user. */
struct workload *wl_new(void);
struct wl_job *wl_add_job(struct workload *wl, const char *id,
			  const char *user);
/* Checks a built workload as the parser would (ids, DAG, sizes); errors
 * name the job. Resolves users. */
int wl_finish(struct workload *wl, const char *path, char *errbuf);

/* Shuffle bytes that map m sends to reduce r: the job's shuffle split
 * evenly (or reduce_bytes[r] split over the maps), exactly, so that the
 * sum over all pairs is the shuffle. */
uint64_t wl_partition_bytes(const struct wl_job *j, uint32_t m, uint32_t r);
/* Shuffle bytes map m produces (its partitions for every reduce). */
uint64_t wl_map_output_bytes(const struct wl_job *j, uint32_t m);
/* Bytes of map m's input block (block_bytes, or input split evenly). */
uint64_t wl_block_bytes(const struct wl_job *j, uint32_t m);
/* Total shuffle bytes reduce r receives. */
uint64_t wl_reduce_bytes(const struct wl_job *j, uint32_t r);

/* A job's shuffle class: class= if given, else by its shuffle. */
enum wl_class wl_job_class(const struct wl_job *j);
/* By its shuffle alone (NAS §IV's thresholds). */
enum wl_class wl_shuffle_class(uint64_t shuffle);
const char *wl_class_name(enum wl_class c);

/* Longest chain of jobs in the DAG (1 for independent jobs). */
unsigned wl_dag_depth(const struct workload *wl);

/* Jobs' indices ordered by arrival, ties by position in the file. The
 * caller frees the array. */
uint32_t *wl_arrival_order(const struct workload *wl);

#endif
