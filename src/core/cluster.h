/* Cluster state: containers per host, HDFS-like input blocks with
 * replicas, and the job and task state machines. Shared by both backends;
 * no Linux-specific code. */
#ifndef HYDE_CLUSTER_H
#define HYDE_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include <hyde/model.h>

#include "rng.h"
#include "topo.h"
#include "workload.h"

/* The public model (tasks, jobs, blocks: <hyde/model.h>) is the cluster's
 * own representation: what a scheduler reads is what hyde keeps, no copy.
 * A child job reading its parents' output (input_from_parents) has, per
 * map, the segments of its parents' output parts that make its split. */
struct cluster_seg {
	uint32_t job, part; /* a parent and one of its reduces' output part */
	uint64_t off, len;  /* the range of that part this map reads */
};

struct cluster {
	const struct topo *topo;
	const struct workload *wl;
	unsigned n_hosts;
	unsigned *free_slots; /* per host */
	unsigned *rack_free;  /* per rack */
	unsigned total_free;
	struct hyde_job *jobs;
	size_t n_jobs;
	/* children of job i: children[child_off[i] .. child_off[i + 1]) */
	uint32_t *child_off, *children;
	/* input_from_parents jobs: the segments of map m of job i are
	 * segs[i][seg_off[i][m] .. seg_off[i][m + 1]) (NULL for others) */
	struct cluster_seg **segs;
	uint32_t **seg_off;
	unsigned output_replication;
	/* Tasks run in containers that schedulers hold (containers.c), not
	 * in slots: taking and releasing a slot does nothing. */
	bool unlimited_slots;
	/* per user: the tasks running of its jobs that have not failed (a
	 * failed job's tasks no longer count), kept as tasks start and end */
	unsigned *user_running;
	/* per job, what the fair order reads of it at every pick, kept
	 * as its state and tasks change (in struct hyde_job it is on four
	 * cache lines; a pick of the SWIM day reads hundreds of jobs) */
	struct cluster_jkey {
		uint32_t running;  /* maps and reduces running */
		uint32_t user_idx;
		bool ready;	   /* READY */
		bool pending;	   /* a map or reduce not started */
	} *jkey;
	/* the jobs in the order they became READY (n_ready of them) */
	uint32_t *ready_log;
	size_t n_ready;
	size_t n_ended; /* jobs DONE or FAILED so far */
	/* per job while its tasks live: how many of its maps (racks entries)
	 * then reduces (racks more) got a host on each rack, ever (a task
	 * keeps its host) */
	uint32_t **placed;
};

/* The caller keeps topo and wl alive while the cluster lives. Every job's
 * tasks and blocks are made at once (cluster_new), or when the job comes
 * (cluster_new_lazy, then cluster_job_open): memory follows the jobs in
 * the cluster, not the workload. */
struct cluster *cluster_new(const struct topo *t, const struct workload *wl);
struct cluster *cluster_new_lazy(const struct topo *t, const struct workload *wl);
void cluster_job_open(struct cluster *c, struct hyde_job *j);
/* A job done: its tasks, blocks and splits go (and its output parts if
 * outputs: no child will read them). */
void cluster_job_close(struct cluster *c, struct hyde_job *j, bool outputs);
void cluster_free(struct cluster *c);

/* Containers. take fails (-EBUSY) when the host has none free. */
int cluster_slot_take(struct cluster *c, unsigned host);
void cluster_slot_release(struct cluster *c, unsigned host);

/* Input placement. random: the HDFS default policy (first replica on a
 * random host, second on a host of another rack, third on another host of
 * the second's rack, further ones anywhere not yet used). racks: replica k
 * of block b on rack sets[k][b % n_racks] (Co-scheduler §IV-C: replicas
 * spread evenly over disjoint rack sets), on a random host of that rack. */
void cluster_place_blocks_random(struct cluster *c, struct hyde_job *j,
				 struct rng *rng);
void cluster_place_blocks_racks(struct cluster *c, struct hyde_job *j,
				const uint32_t *const *sets, unsigned n_racks,
				struct rng *rng);
/* Reduce r of j wrote its output part on writer: its replicas, HDFS's
 * policy for output_replication copies (the writer first, the second off
 * its rack, the third on the second's rack). */
void cluster_place_output(struct cluster *c, struct hyde_job *j, uint32_t r,
			  unsigned writer, struct rng *rng);
/* A job reading its parents' output (input_from_parents), once they are
 * done: every map's split (segments of the parents' parts, in parents=
 * then reduce order, cut in equal splits) and its locations. */
void cluster_locate_split(struct cluster *c, struct hyde_job *j);
/* Bytes of map m's input held on a host (rack false) or in a rack. */
uint64_t cluster_input_bytes_on(const struct cluster *c, const struct hyde_job *j, uint32_t m,
				unsigned where, bool rack);
/* Is a replica of the block on the host / in the rack? */
bool block_on_host(const struct hyde_block *b, unsigned host);
bool block_on_rack(const struct cluster *c, const struct hyde_block *b,
		   unsigned rack);

/* State machine. Each returns -EINVAL on a transition that is not legal
 * (and changes nothing), 0 otherwise. */
int job_arrive(struct cluster *c, struct hyde_job *j, int64_t now);
/* A parent finished: the child may become READY. */
int job_parent_done(struct cluster *c, struct hyde_job *j, int64_t now);
int task_start(struct cluster *c, struct hyde_task *t, unsigned host, int64_t now);
/* Finishing the last task makes the job DONE and releases its children. */
int task_finish(struct cluster *c, struct hyde_task *t, int64_t now);
int task_fail(struct cluster *c, struct hyde_task *t, int64_t now);


const char *task_kind_name(enum hyde_task_kind k);
const char *job_state_name(enum hyde_job_state s);

/* Pinned racks of the workload (map_racks, reduce_racks) must exist in the
 * topology; a message names the job otherwise. */
int wl_check_topo(const struct workload *wl, const struct topo *t,
		  const char *path, char *errbuf);
/* Coflow-only mode: every job is a bare coflow (pinned maps and reduces,
 * no compute, no parents), so only its shuffle counts. */
int wl_check_coflow_only(const struct workload *wl, const char *path,
			 char *errbuf);

#endif
