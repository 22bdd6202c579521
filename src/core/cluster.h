/* Cluster state: containers per host, HDFS-like input blocks with
 * replicas, and the job and task state machines. Shared by both backends;
 * no Linux-specific code. */
#ifndef HYDE_CLUSTER_H
#define HYDE_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "rng.h"
#include "topo.h"
#include "workload.h"

#define CLUSTER_MAX_REPLICAS 10

/* One input block of a job: map task `idx` reads it. */
struct block {
	uint32_t job, idx;
	uint64_t bytes;
	uint32_t n_replicas;
	uint32_t replica[CLUSTER_MAX_REPLICAS]; /* host ids */
};

enum task_kind { TASK_MAP, TASK_REDUCE };
enum task_state { TASK_PENDING, TASK_RUNNING, TASK_DONE, TASK_FAILED };

struct task {
	uint32_t job, idx;
	enum task_kind kind;
	enum task_state state;
	int32_t host; /* -1 until placed */
	int64_t start, end;
};

/* WAITING: not arrived yet, or a parent job is not done.
 * READY: its tasks may be scheduled. DONE / FAILED: final. */
enum job_state { JOB_WAITING, JOB_READY, JOB_DONE, JOB_FAILED };

struct job {
	const struct wl_job *wl;
	uint32_t idx;
	enum job_state state;
	bool arrived;
	uint32_t parents_left;
	struct task *maps, *reduces;
	struct block *blocks; /* one per map */
	uint32_t maps_running, maps_done;
	/* Bumped whenever blocks are (re)placed; lets the schedulers' index of
	 * pending maps by host and rack (sched.c) know when to rebuild. */
	unsigned blocks_version;
	struct map_index *map_idx; /* owned; freed with the cluster */
	uint32_t reduces_running, reduces_done;
	int64_t ready_at, end;
};

struct map_index;
void map_index_free(struct map_index *mi);

struct cluster {
	const struct topo *topo;
	const struct workload *wl;
	unsigned n_hosts;
	unsigned *free_slots; /* per host */
	unsigned *rack_free;  /* per rack */
	unsigned total_free;
	struct job *jobs;
	size_t n_jobs;
	/* children of job i: children[child_off[i] .. child_off[i + 1]) */
	uint32_t *child_off, *children;
};

/* The caller keeps topo and wl alive while the cluster lives. */
struct cluster *cluster_new(const struct topo *t, const struct workload *wl);
void cluster_free(struct cluster *c);

/* Containers. take fails (-EBUSY) when the host has none free. */
int cluster_slot_take(struct cluster *c, unsigned host);
void cluster_slot_release(struct cluster *c, unsigned host);

/* Input placement. random: the HDFS default policy (first replica on a
 * random host, second on a host of another rack, third on another host of
 * the second's rack, further ones anywhere not yet used). racks: replica k
 * of block b on rack sets[k][b % n_racks] (Co-scheduler §IV-C: replicas
 * spread evenly over disjoint rack sets), on a random host of that rack. */
void cluster_place_blocks_random(struct cluster *c, struct job *j,
				 struct rng *rng);
void cluster_place_blocks_racks(struct cluster *c, struct job *j,
				const uint32_t *const *sets, unsigned n_racks,
				struct rng *rng);
/* Is a replica of the block on the host / in the rack? */
bool block_on_host(const struct block *b, unsigned host);
bool block_on_rack(const struct cluster *c, const struct block *b,
		   unsigned rack);

/* State machine. Each returns -EINVAL on a transition that is not legal
 * (and changes nothing), 0 otherwise. */
int job_arrive(struct cluster *c, struct job *j, int64_t now);
/* A parent finished: the child may become READY. */
int job_parent_done(struct cluster *c, struct job *j, int64_t now);
int task_start(struct cluster *c, struct task *t, unsigned host, int64_t now);
/* Finishing the last task makes the job DONE and releases its children. */
int task_finish(struct cluster *c, struct task *t, int64_t now);
int task_fail(struct cluster *c, struct task *t, int64_t now);

static inline bool job_maps_done(const struct job *j)
{
	return j->maps_done == j->wl->maps;
}

const char *task_kind_name(enum task_kind k);
const char *job_state_name(enum job_state s);

/* Pinned racks of the workload (map_racks, reduce_racks) must exist in the
 * topology; a message names the job otherwise. */
int wl_check_topo(const struct workload *wl, const struct topo *t,
		  const char *path, char *errbuf);
/* Coflow-only mode: every job is a bare coflow (pinned maps and reduces,
 * no compute, no parents), so only its shuffle counts. */
int wl_check_coflow_only(const struct workload *wl, const char *path,
			 char *errbuf);

#endif
