/* hyde's cluster model as schedulers see it: tasks, jobs, blocks and their
 * replicas, flows and links. Plain data, no functions: hyde's own model
 * (src/core) is built from these types, and a scheduler reads them
 * through the pointers <hyde/sched.h> hands out (always const: only hyde
 * changes them). Part of the scheduler API; its version is
 * HYDE_SCHED_API_VERSION in <hyde/sched.h>. */
#ifndef HYDE_MODEL_H
#define HYDE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define HYDE_MAX_REPLICAS 10

enum hyde_task_kind { HYDE_MAP, HYDE_REDUCE };

enum hyde_task_state {
	HYDE_TASK_PENDING, /* not placed yet */
	HYDE_TASK_RUNNING, /* holds a container: reading, working, fetching, writing */
	HYDE_TASK_DONE,
	HYDE_TASK_FAILED,
};

/* WAITING: not arrived yet, or a parent job is not done. READY: its tasks
 * may be placed. DONE / FAILED: final. */
enum hyde_job_state {
	HYDE_JOB_WAITING,
	HYDE_JOB_READY,
	HYDE_JOB_DONE,
	HYDE_JOB_FAILED,
};

/* Where data sits, as HDFS reports it. A job's input: one block per map
 * (for a job that reads its parents' output, the map's input split, whose
 * locations are the hosts holding most of its bytes, as Hadoop's
 * CombineFileSplit reports them). A reduce's output part: the block it
 * wrote, with its replicas (the reducer's host first). */
struct hyde_block {
	uint32_t job, idx; /* owner: the map that reads it, or the reduce that wrote it */
	uint64_t bytes;
	uint32_t n_replicas;
	uint32_t replica[HYDE_MAX_REPLICAS]; /* host ids */
};

struct hyde_task {
	uint32_t job, idx;
	enum hyde_task_kind kind;
	enum hyde_task_state state;
	int32_t host;	   /* -1 until placed */
	int64_t start, end; /* hyde_now() clock; -1 until then */
};

/* Resources a host has, a container holds and a task needs at its peak
 * (API version 2): cores (fractions allowed) and bytes of memory. */
enum hyde_res_kind { HYDE_RES_CPU, HYDE_RES_MEM };
#define HYDE_RES_KINDS 2

struct hyde_res {
	double v[HYDE_RES_KINDS];
};

struct wl_job;
struct map_index;

struct hyde_job {
	/* What the workload says. Sizes are the truth, known to hyde; a
	 * scheduler that models prediction (NAS's, Co-scheduler's SIR)
	 * should learn shuffle and output from finished tasks
	 * (hyde_map_output_bytes) rather than read them here. */
	uint32_t idx;
	const char *id, *user;
	uint32_t user_idx;	       /* 0 .. hyde_cluster()->n_users - 1 */
	int64_t submit;		       /* when the workload submits it, from the run's start */
	uint64_t input, shuffle, output; /* bytes */
	uint32_t n_maps, n_reduces;
	int64_t map_time, reduce_time; /* ns of work per task */
	const uint32_t *parents;       /* job indices (a DAG) */
	uint32_t n_parents;
	const uint32_t *children;
	uint32_t n_children;
	const uint32_t *map_racks, *reduce_racks; /* pinned racks per task, or NULL */
	bool input_from_parents; /* its input is its parents' output parts */

	/* State, kept by hyde. */
	enum hyde_job_state state;
	bool arrived;
	uint32_t parents_left;
	int64_t arrival, ready_at, end; /* hyde_now() clock; -1 until then */
	/* From the job's arrival (job_arrived) on; in hyde sim, NULL again
	 * once it is DONE (after job_finished), and its outputs once its
	 * children are DONE too: memory follows the jobs in the cluster. */
	struct hyde_task *maps, *reduces;
	struct hyde_block *blocks;  /* input: one per map (located once READY) */
	struct hyde_block *outputs; /* output parts: one per reduce (once written) */
	uint32_t maps_running, maps_done;
	uint32_t reduces_running, reduces_done;

	/* hyde's own: not part of the API, never read them. */
	const struct wl_job *wl;
	unsigned blocks_version;
	struct map_index *map_idx;

	/* API version 2 (after the fields above, whose layout is version
	 * 1's). Each task's peak demand, and the application the job
	 * belongs to (hyde_app): an app's jobs share its containers, as a
	 * Spark job's stages share its executors. */
	struct hyde_res map_demand, reduce_demand;
	uint32_t app;

	/* hyde sim: its tasks and blocks freed once DONE (cluster_job_close) */
	bool tasks_closed;
};

/* An application (API version 2): jobs that share containers, the
 * workload's app= (a job is its own app without it). COBRA calls it a
 * job; its response time runs from its first job's arrival to its last
 * job's end. */
struct hyde_app {
	uint32_t idx;
	const char *id;
	uint32_t user_idx;
	const uint32_t *jobs; /* its jobs, in workload order */
	uint32_t n_jobs;
	uint32_t jobs_done;
	int64_t submit;	    /* its first job's, from the run's start */
	int64_t arrival, end; /* hyde_now() clock; -1 until then */
	/* containers asked for and released so far: what it holds (its
	 * hyde_app_containers) is as it was while this stays the same */
	uint64_t held_changes;
};

/* A container an application holds (API version 2; container-holding
 * schedulers, <hyde/sched.h>): a share of one host's resources, asked for
 * by the scheduler, running from when the cluster grants it (after the
 * response time) until the scheduler releases it; it runs any number of
 * its app's tasks at once while their demands fit its size. */
enum hyde_container_state {
	HYDE_CONTAINER_STARTING, /* asked for: resources reserved, not usable yet */
	HYDE_CONTAINER_RUNNING,	 /* tasks may run in it */
	HYDE_CONTAINER_RELEASED,
};

struct hyde_container {
	uint32_t id;
	uint32_t app;
	uint32_t host;
	enum hyde_container_state state;
	struct hyde_res size;
	struct hyde_res used;	/* the demands of the tasks running in it */
	uint32_t tasks;		/* running in it now */
	uint32_t tasks_run;	/* started in it so far */
	int64_t requested, ready, released; /* hyde_now() clock; -1 until then */
	int64_t idle_since;	/* when it last became empty; -1 while busy */
};

static inline bool hyde_job_has_pending(const struct hyde_job *j, enum hyde_task_kind kind)
{
	if (kind == HYDE_MAP)
		return j->maps_running + j->maps_done < j->n_maps;
	return j->reduces_running + j->reduces_done < j->n_reduces;
}

static inline bool hyde_job_maps_done(const struct hyde_job *j)
{
	return j->maps_done == j->n_maps;
}

/* What a flow carries: a map reading its input block from a replica
 * holder, a reduce fetching map output, a reduce writing an output
 * replica (HDFS's pipeline: writer -> second replica -> third). */
enum hyde_flow_kind {
	HYDE_FLOW_INPUT,
	HYDE_FLOW_SHUFFLE,
	HYDE_FLOW_OUTPUT,
};
#define HYDE_FLOW_KINDS 3

enum hyde_path {
	HYDE_PATH_HOST, /* both ends on one host: no network */
	HYDE_PATH_RACK, /* same rack: the ToR only */
	HYDE_PATH_EPS,	/* across racks over the packet core */
	HYDE_PATH_OCS,	/* across racks over an optical circuit */
};

/* The links of the fabric, each one direction. Index: a host id for the
 * host links, a rack for the others. */
enum hyde_link_kind {
	HYDE_LINK_HOST_UP,   /* host -> its ToR */
	HYDE_LINK_HOST_DOWN, /* ToR -> host */
	HYDE_LINK_TOR_UP,    /* ToR -> EPS core (bw_e) */
	HYDE_LINK_TOR_DOWN,  /* EPS core -> ToR */
	HYDE_LINK_OCS_UP,    /* ToR -> its OCS port (bw_o) */
	HYDE_LINK_OCS_DOWN,  /* OCS port -> ToR */
};
#define HYDE_LINK_KINDS 6

/* One link over the network view's last interval (see hyde_net_link). */
struct hyde_link_state {
	uint64_t capacity;  /* bit/s */
	uint64_t bytes;	    /* carried during the interval */
	double utilisation; /* bytes x 8 / (capacity x interval): 0 idle, 1 full */
	unsigned flows;	    /* active flows crossing it now */
};

/* One active flow (see hyde_net_flows). */
struct hyde_flow_state {
	uint32_t id;
	uint32_t job;  /* its coflow is the job's */
	uint32_t task; /* the map (input) or the reduce (shuffle, output) */
	enum hyde_flow_kind kind;
	enum hyde_path path;
	uint32_t src_host, dst_host;
	uint64_t bytes, sent, left; /* sent: arrived at the destination so far */
	int64_t start;		    /* hyde_now() clock */
};

#endif
