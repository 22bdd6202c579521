/* hyde's side of the scheduler API (<hyde/sched.h>): making a scheduler
 * from a name or a plugin's path with its options, and what the
 * controller keeps for it. The API's functions are in sched_api.c. */
#ifndef HYDE_SCHED_HOST_H
#define HYDE_SCHED_HOST_H

#include <stdbool.h>
#include <stdio.h>

#include <hyde/sched.h>

#include "core/cluster.h"
#include "core/opts.h"
#include "core/rng.h"
#include "core/topo.h"

struct ctl;

/* The schedulers that ship with hyde (src/sched/registry.c), in one
 * explicit NULL-terminated table. */
extern const struct hyde_sched_ops *const sched_table[];

/* hyde_fair_next: how many of the first in the fair order fo_collect
 * keeps, in order, as it goes */
enum { SCHED_FO_TOP = 4 };

struct hyde_sched_host {
	struct ctl *ctl;
	struct cluster *c;
	const struct topo *t;
	struct rng rng;
	struct hyde_cluster_info info;
	/* options every scheduler has (-S slowstart=0.05 -S assign=1) */
	double slowstart;
	unsigned assign; /* 0: all */
	struct opt_desc *opts; /* the plugin's table, as core/opts reads it */
	void *dl;	       /* a plugin's handle (dlopen), or NULL */
	char *path;	       /* a plugin's path */
	int32_t placing_job;   /* job_arrived running for it: it may place input */
	unsigned *offered;     /* host mode: containers offered per host */
	uint32_t *active;      /* scratch for hyde_active_jobs */
	size_t cap_active;
	struct hyde_sched_ops *ops_copy; /* a version 1 plugin's table, grown */
	/* hyde_fair_order: the READY jobs by (ready_at, index), kept as they
	 * become ready (a job's place there never changes), and the sorts'
	 * scratch */
	uint32_t *by_ready, *fo_tmp, *fo_cnt;
	size_t n_by_ready, cap_by_ready, cap_fo_tmp, cap_fo_cnt;
	size_t fo_heap_n; /* hyde_fair_next: candidates not returned yet */
	/* candidates; the first few in the fair order, found as they are
	 * collected, and those of them returned (the heap of the rest is
	 * built only when more are asked for: a pick seldom asks past the
	 * first few) */
	size_t fo_n, fo_ntop, fo_served;
	uint32_t fo_top[SCHED_FO_TOP];
	bool fo_built;
	size_t fo_room;	  /* fo_tmp's room per array at the last collect */
	uint8_t *in_by_ready;  /* per job */
	size_t ready_seen;     /* of the cluster's ready_log, those looked at */
};

/* hyde_fair_order's sort: pos[0..n) becomes 0..n-1 ordered by ukey (the
 * user's running tasks), then rkey (the job's), then index; rmax and umax
 * bound the keys; tmp holds n. Two counting sorts, or a merge sort where
 * the keys' range dwarfs n log n (SCHED_SORT_ANY picks): the same order. */
enum sched_sort { SCHED_SORT_ANY, SCHED_SORT_COUNT, SCHED_SORT_MERGE };
void sched_fair_sort(struct hyde_sched_host *h, uint32_t *pos, uint32_t *tmp, size_t n,
		     const uint32_t *rkey, uint32_t rmax, const uint32_t *ukey, uint32_t umax,
		     enum sched_sort how);

/* Is spec a plugin's path rather than a shipped scheduler's name (it has
 * a '/' or ends in ".so")? */
bool sched_is_plugin(const char *spec);
/* The ops of a shipped scheduler, or NULL. */
const struct hyde_sched_ops *sched_find(const char *name);
/* A scheduler by name (shipped) or path (a plugin, loaded with dlopen),
 * with its defaults and the "key=value" options applied; errors name the
 * option, or the plugin and what is wrong with it (-EINVAL: bad input,
 * exit 2). Not bound to a run yet. The caller frees with sched_free. */
int sched_new(const char *name, char *const *kv, int n_kv, struct hyde_sched **out,
	      char *errbuf);
/* The same from an ops table (a program embedding hyde, the tests). */
int sched_new_ops(const struct hyde_sched_ops *ops, char *const *kv, int n_kv,
		  struct hyde_sched **out, char *errbuf);
/* Bind to a run: the cluster, the controller, the seed; then the
 * scheduler's init. */
int sched_bind(struct hyde_sched *s, struct ctl *ctl, struct cluster *c, const struct topo *t,
	       uint64_t seed, int64_t heartbeat, char *errbuf);
/* destroy (if bound), then free; unloads a plugin. */
void sched_free(struct hyde_sched *s);
/* Every shipped scheduler's options with their defaults, for --help. */
void sched_print_options(FILE *fp);
/* The names of the shipped schedulers, ", "-separated, into buf. */
void sched_names(char *buf, size_t len);
/* Its name (a plugin's from its ops). */
static inline const char *sched_name(const struct hyde_sched *s)
{
	return s->ops->name;
}
/* Host mode (next_task and pick_host)? */
static inline bool sched_host_mode(const struct hyde_sched *s)
{
	return s->ops->next_task && s->ops->pick_host;
}

/* The helpers' index of a job's pending maps (hyde_pending_map), kept in
 * the job's map_idx and freed by the controller before the cluster. */
void map_index_free(struct map_index *mi);

/* The controller lets a scheduler place input while job_arrived runs. */
void sched_placing(struct hyde_sched *s, int32_t job);

#endif
