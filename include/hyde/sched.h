/* hyde's scheduler API: how a job scheduler plugs into hyde, on both
 * backends (the emulated fabric and the simulator), whether it ships with
 * hyde (src/sched/) or is loaded from a shared object (`hyde run -s
 * ./mysched.so`).
 *
 * A scheduler is one `const struct hyde_sched_ops` table (iproute2's
 * qdisc_util and libnl's rtnl_qdisc_ops are the models): hyde calls its
 * hooks when things happen and asks it for decisions; the scheduler reads
 * the cluster only through the functions below and the const model of
 * <hyde/model.h>. It never touches the network or hyde's internals.
 *
 * The cluster runs as YARN does: each host's node manager heartbeats every
 * `heartbeat` (1 s by default, `--heartbeat`) at its own phase, and only
 * then are that host's free containers offered: in container mode
 * (pick_task) at most `assign` of them per heartbeat (1, as the Fair
 * Scheduler without assignmultiple; `-S assign=all`); a NULL answer leaves
 * the container idle until the host's next heartbeat. In host mode
 * (next_task + pick_host, NEAT's way) the scheduler chooses hosts for
 * tasks among those whose heartbeat reported free containers.
 * In container-holding mode (pick_task_in, API version 2) the scheduler
 * asks for containers of any size for applications and packs their tasks
 * in them by their demands (COBRA's reusable multi-task containers, Spark's
 * executors) and hyde counts no slots: the containers bound the tasks.
 *
 * A plugin is a shared object that defines
 *     const struct hyde_sched_ops hyde_sched_plugin = { .api_version = HYDE_SCHED_API_VERSION, ... };
 * built with `cc -shared -fPIC $(pkg-config --cflags hyde) -o x.so x.c`;
 * the hyde_* functions resolve against the hyde executable at load time.
 * See examples/ in hyde's source.
 *
 * Times are nanoseconds on hyde_now()'s clock (virtual in the simulator,
 * CLOCK_REALTIME in emulation); sizes are bytes, rates bit/s. Hosts are
 * numbered rack by rack (host h is in rack h / hosts_per_rack), but no
 * decision of hyde depends on that numbering, and a scheduler's should
 * not either. */
#ifndef HYDE_SCHED_H_PUBLIC
#define HYDE_SCHED_H_PUBLIC

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hyde/model.h>

/* Bumped on any change a built plugin could notice (a struct's layout, a
 * function's meaning). hyde loads plugins built for its version, and for
 * version 1, whose ops table is this one's up to pick_task_in (version 2
 * added fields and ops at the ends of structs, and functions: a version 1
 * plugin's source builds unchanged as version 2). */
#define HYDE_SCHED_API_VERSION 2

/* Room for the message init may write on failure. */
#define HYDE_SCHED_ERRBUF 512

struct hyde_sched;

/* Options, set with `-S key=value` (or `-s name:key=value`): a table of
 * these describes the options struct at the start of the private state. */
enum hyde_opt_kind {
	HYDE_OPT_DOUBLE, /* double */
	HYDE_OPT_SIZE,	 /* uint64_t bytes, with a unit: 10MB */
	HYDE_OPT_RATE,	 /* uint64_t bit/s, with a unit: 1Gbit */
	HYDE_OPT_TIME,	 /* int64_t ns, with a unit: 1.5s */
	HYDE_OPT_U32,	 /* uint32_t */
	HYDE_OPT_UNS,	 /* unsigned */
	HYDE_OPT_BOOL,	 /* bool: yes/no, true/false, 1/0 */
	HYDE_OPT_STR,	 /* char[max] */
};

struct hyde_opt {
	const char *name;
	enum hyde_opt_kind kind;
	size_t offset;	 /* in the private state */
	double min, max; /* range; for HYDE_OPT_STR max is the buffer size */
	const char *help;
};

enum hyde_locality { HYDE_NODE_LOCAL, HYDE_RACK_LOCAL, HYDE_OFF_RACK };

struct hyde_sched_ops {
	unsigned api_version; /* HYDE_SCHED_API_VERSION; first, always */
	const char *name;
	const char *summary;
	/* Bytes of private state (zeroed; s->priv); it starts with the
	 * options struct that opts[] describes. */
	size_t priv_size;
	const struct hyde_opt *opts;
	size_t n_opts;
	/* Defaults of the options (the paper's values), before -S. */
	void (*defaults)(void *priv);
	/* Once, before the run: 0, or negative with a message in errbuf
	 * (HYDE_SCHED_ERRBUF bytes). The workload is known (hyde_job). */
	int (*init)(struct hyde_sched *s, char *errbuf);
	/* Free what init allocated (not priv itself). */
	void (*destroy)(struct hyde_sched *s);

	/* ---- events (each may be NULL) ---- */
	/* The job is submitted. Its input blocks are already placed by
	 * HDFS's default policy; this is the one moment a scheduler may
	 * place them itself (hyde_place_block), as data placement at
	 * upload (Corral, Co-scheduler) does. For a job that reads its
	 * parents' output, the blocks are located when it becomes ready. */
	void (*job_arrived)(struct hyde_sched *s, const struct hyde_job *j);
	/* Its parents are done and it is submitted: its tasks may run. */
	void (*job_ready)(struct hyde_sched *s, const struct hyde_job *j);
	void (*task_finished)(struct hyde_sched *s, const struct hyde_task *t);
	/* Every map (HYDE_MAP) or every reduce (HYDE_REDUCE) is done. */
	void (*stage_finished)(struct hyde_sched *s, const struct hyde_job *j,
			       enum hyde_task_kind stage);
	void (*job_finished)(struct hyde_sched *s, const struct hyde_job *j);
	/* A host's heartbeat, before its free containers are offered. */
	void (*heartbeat)(struct hyde_sched *s, unsigned host);
	/* Periodic work, once per heartbeat period, cluster-wide. */
	void (*tick)(struct hyde_sched *s);

	/* ---- decisions ---- */
	/* Container mode: a free container on host; the task to run there
	 * (pending, of a READY job, allowed on that host), or NULL. */
	const struct hyde_task *(*pick_task)(struct hyde_sched *s, unsigned host);
	/* Host mode (instead of pick_task): the next task to place, or
	 * NULL; then the host for it, one with hyde_host_offered() > 0, or
	 * -1 to wait. */
	const struct hyde_task *(*next_task)(struct hyde_sched *s);
	int (*pick_host)(struct hyde_sched *s, const struct hyde_task *t);
	/* May the job's reduces be placed now? NULL: Hadoop's slowstart
	 * (that fraction of the maps done, -S slowstart=0.05). */
	bool (*reduces_may_start)(struct hyde_sched *s, const struct hyde_job *j);
	/* May the job's placed reduces start fetching map output? Asked when
	 * a reduce of the job starts and each tick until it says yes; NULL:
	 * at once (Hadoop). Once yes, it stays open. */
	bool (*shuffle_may_start)(struct hyde_sched *s, const struct hyde_job *j);

	/* ---- API version 2: container-holding mode ----
	 * Instead of pick_task (one task per container, containers owned
	 * by hyde), the scheduler asks for containers for applications
	 * (hyde_container_request), with any size that fits a host, and
	 * places tasks of the app in them, as many at once as their demands
	 * fit, until it releases them (hyde_container_release): YARN's
	 * resource manager and the applications' own task schedulers
	 * (Spark's executors, COBRA). A container is asked for when the
	 * scheduler likes (a heartbeat, a tick, a task's end) and becomes
	 * usable after the cluster's response time (the topology's
	 * container_delay). pick_task_in is asked for a task to run in a
	 * container when it starts, after a task in it ends, and at its
	 * host's heartbeat, again and again until it returns NULL: a
	 * pending task of a READY job of the container's app whose demand
	 * fits what the container has left. */
	const struct hyde_task *(*pick_task_in)(struct hyde_sched *s,
						const struct hyde_container *c);
};

struct hyde_sched_host; /* hyde's side: opaque */

struct hyde_sched {
	const struct hyde_sched_ops *ops;
	void *priv; /* priv_size bytes, options first */
	struct hyde_sched_host *host;
};

/* ---- the cluster ---- */

/* How the network shares its links (hyde sim|run --net): among flows,
 * max-min fair (TCP, DCTCP), first come first served, shortest remaining
 * first (PASE, pFabric), least attained service first (L2DCT); or, with
 * --coflow (simulation), among coflows: Varys (SEBF + MADD), smallest
 * coflow first, FCFS, fair. What NEAT's predictors model. */
enum hyde_net_policy { HYDE_NET_FAIR, HYDE_NET_FCFS, HYDE_NET_SRPT, HYDE_NET_LAS };
enum hyde_coflow_policy {
	HYDE_COFLOW_NONE, /* flows are scheduled one by one (net) */
	HYDE_COFLOW_VARYS,
	HYDE_COFLOW_SCF,
	HYDE_COFLOW_FCFS,
	HYDE_COFLOW_FAIR,
};

struct hyde_cluster_info {
	unsigned racks, hosts_per_rack, n_hosts;
	unsigned containers; /* per host */
	unsigned replicas;   /* of an input block */
	unsigned output_replication;
	uint64_t host_rate;   /* host <-> ToR */
	bool has_eps;
	uint64_t uplink_rate; /* bw_e, ToR <-> EPS core; 0 without EPS */
	bool has_ocs;
	uint64_t ocs_rate; /* bw_o */
	int64_t delta;	   /* OCS reconfiguration delay */
	uint64_t t_e;	   /* elephant threshold: bytes of a job's rack pair */
	int64_t heartbeat; /* node managers' period; 0: offers at every change */
	unsigned assign;   /* containers offered per heartbeat; 0: all */
	double slowstart;
	size_t n_jobs;
	unsigned n_users;
	const char *const *users;
	/* (added after version 1's first release, at the end: a plugin
	 * built before reads the fields above unchanged) */
	enum hyde_net_policy net;
	enum hyde_coflow_policy coflow;
	/* API version 2 */
	struct hyde_res host_capacity;	/* every host's */
	struct hyde_res container_size; /* a default container: the host over `containers` */
	size_t n_apps;
	int64_t container_delay;	/* mean response time of a container request */
};

const struct hyde_cluster_info *hyde_cluster(const struct hyde_sched *s);
/* Now; while a timer runs (a tick, a node's heartbeat), its deadline: in
 * emulation the clock is then a few ms past it, by a varying amount. */
int64_t hyde_now(const struct hyde_sched *s);

static inline unsigned hyde_rack_of(const struct hyde_cluster_info *ci, unsigned host)
{
	return host / ci->hosts_per_rack;
}

/* Every job of the workload, 0 .. n_jobs - 1 (the model is const). */
const struct hyde_job *hyde_job(const struct hyde_sched *s, uint32_t idx);
/* The jobs submitted and not finished, in submission order: *n of them
 * (valid until the next call). */
const uint32_t *hyde_active_jobs(const struct hyde_sched *s, size_t *n);

/* Free containers now, per host, per rack and in all. */
unsigned hyde_host_free(const struct hyde_sched *s, unsigned host);
unsigned hyde_rack_free(const struct hyde_sched *s, unsigned rack);
unsigned hyde_total_free(const struct hyde_sched *s);
/* Host mode: containers the host reported free at its last heartbeat,
 * less those given out since. */
unsigned hyde_host_offered(const struct hyde_sched *s, unsigned host);

/* ---- data ---- */

/* Place the replicas of block b of job j on hosts[0 .. n) (distinct, n
 * <= HYDE_MAX_REPLICAS). Only from job_arrived. 0, or -EINVAL / -EPERM. */
int hyde_place_block(struct hyde_sched *s, const struct hyde_job *j, uint32_t b,
		     const uint32_t *hosts, unsigned n);
/* Replica k of block b on a random host of rack sets[k][b % n_racks]
 * (Co-scheduler §IV-C's disjoint rack sets). Only from job_arrived. */
int hyde_place_blocks_racks(struct hyde_sched *s, const struct hyde_job *j,
			    const uint32_t *const *sets, unsigned n_racks);
bool hyde_block_on_host(const struct hyde_block *b, unsigned host);
bool hyde_block_on_rack(const struct hyde_sched *s, const struct hyde_block *b, unsigned rack);
/* Bytes of map m's input held on a host (or, _rack, in a rack): all of
 * it for a node-local map, part of it for a split of parents' output. */
uint64_t hyde_input_bytes_on_host(const struct hyde_sched *s, const struct hyde_job *j,
				  uint32_t m, unsigned host);
uint64_t hyde_input_bytes_on_rack(const struct hyde_sched *s, const struct hyde_job *j,
				  uint32_t m, unsigned rack);

/* Shuffle bytes the job's finished maps hold, per rack (racks entries)
 * and per host (n_hosts entries); either may be NULL. */
void hyde_job_map_output(const struct hyde_sched *s, uint32_t job, uint64_t *per_rack,
			 uint64_t *per_host);
/* How many of the job's tasks of this kind got a host on the rack so far
 * (running, done or failed there: a task keeps its host); 0 once the job
 * is done (hyde sim frees its tasks). */
uint32_t hyde_tasks_on_rack(const struct hyde_sched *s, uint32_t job, enum hyde_task_kind kind,
			    unsigned rack);
/* Shuffle bytes map m produced (0 until it is done). */
uint64_t hyde_map_output_bytes(const struct hyde_sched *s, uint32_t job, uint32_t m);

/* A running task's progress as Hadoop's status reports give it: time
 * since it started and the fraction done P in [0, 1] (a map: input read,
 * then its work; a reduce: a third each for fetching, working and writing
 * its output). -EINVAL if the task is not running. */
int hyde_task_progress(const struct hyde_sched *s, const struct hyde_task *t,
		       int64_t *elapsed, double *p);

/* ---- the network view ----
 * Sampled every heartbeat period (on the period's boundaries, both
 * backends): a link's bytes over the last complete interval, from the
 * fabric's interface and crossbar counters in emulation (frames) and the
 * fluid model in simulation (payload). Flows are as of now. */
int hyde_net_link(const struct hyde_sched *s, enum hyde_link_kind kind, unsigned idx,
		  struct hyde_link_state *out);
/* The interval the link states cover: [*from, *to); both -1 before the
 * first sample. */
void hyde_net_interval(const struct hyde_sched *s, int64_t *from, int64_t *to);
/* The active flows (moving bytes now): fills out[0 .. min(n, max)) and
 * returns n, their number. */
size_t hyde_net_flows(const struct hyde_sched *s, struct hyde_flow_state *out, size_t max);
/* Those of them into a host over its link (every path but a host's own
 * reads), in hyde_net_flows's order; kept as flows start and end, so the
 * cost follows the host's flows, not all of them. 0 for a host out of
 * range. */
size_t hyde_net_flows_into(const struct hyde_sched *s, unsigned host, struct hyde_flow_state *out,
			   size_t max);
/* The bytes they have left in all (the sum of their `left`), without a
 * copy of each: in simulation a host's sum is read once an event and kept
 * for the rest of it while no flow into the host starts or ends (nothing
 * moves within an event), so a scheduler may weigh every host at every
 * pick. 0 for a host out of range. */
uint64_t hyde_net_bytes_into(const struct hyde_sched *s, unsigned host);
/* A version of those flows: the same number while hyde_net_flows_into
 * would give the same for the host (in simulation, for the rest of an
 * event while no flow into the host starts or ends; in emulation, where
 * bytes move as time does, a new one at every call), never the same for
 * two hosts, so a scheduler may keep its own copy of a host's flows and
 * read them again only when the version changes. 0 for a host out of
 * range. */
uint64_t hyde_net_into_version(const struct hyde_sched *s, unsigned host);
/* Does the flow cross that link? */
bool hyde_flow_crosses(const struct hyde_sched *s, const struct hyde_flow_state *f,
		       enum hyde_link_kind kind, unsigned idx);
/* Active flows out of / into a host. */
unsigned hyde_host_flows_out(const struct hyde_sched *s, unsigned host);
unsigned hyde_host_flows_in(const struct hyde_sched *s, unsigned host);

/* ---- applications and their containers (API version 2) ---- */

/* Every application of the workload, 0 .. n_apps - 1. */
const struct hyde_app *hyde_app(const struct hyde_sched *s, uint32_t idx);
/* The task's peak demand (its job's map_demand or reduce_demand). */
static inline const struct hyde_res *hyde_task_demand(const struct hyde_job *j,
						      const struct hyde_task *t)
{
	return t->kind == HYDE_MAP ? &j->map_demand : &j->reduce_demand;
}
/* Does a fit in b, resource by resource (with a rounding margin)? */
static inline bool hyde_res_fits(const struct hyde_res *a, const struct hyde_res *b)
{
	int k;

	for (k = 0; k < HYDE_RES_KINDS; k++)
		if (a->v[k] > b->v[k] * (1 + 1e-9) + 1e-9)
			return false;
	return true;
}
/* What the host has not given to containers (container-holding mode). */
void hyde_host_unreserved(const struct hyde_sched *s, unsigned host, struct hyde_res *out);
/* Ask for a container of `size` on host for the app: its resources are
 * taken now, it runs after the response time. Returns its id (>= 0), or
 * -ENOSPC (the host has not that much left), -EINVAL (no such app or
 * host, a size of nothing, not container-holding mode). */
int hyde_container_request(struct hyde_sched *s, uint32_t app, unsigned host,
			   const struct hyde_res *size);
/* Give it back: 0, -EBUSY while tasks run in it, -EINVAL. A container
 * still starting is cancelled. */
int hyde_container_release(struct hyde_sched *s, uint32_t id);
/* A container by id (released ones too), or NULL. */
const struct hyde_container *hyde_container(const struct hyde_sched *s, uint32_t id);
/* The app's containers not released, oldest first: *n of them (valid
 * until the next request or release). */
const uint32_t *hyde_app_containers(const struct hyde_sched *s, uint32_t app, size_t *n);
/* What the app's containers not released hold in all: their sizes'
 * sum, as adding up hyde_app_containers' sizes gives it (kept as
 * containers come and go, not summed at each call). */
void hyde_app_held(const struct hyde_sched *s, uint32_t app, struct hyde_res *held);
/* The containers on a host not released: *n of them (as above). */
const uint32_t *hyde_host_containers(const struct hyde_sched *s, unsigned host, size_t *n);
/* Containers asked for and released so far, every app's (the sum of
 * their held_changes): no app holds other containers while it stays. */
uint64_t hyde_container_changes(const struct hyde_sched *s);
/* How much of its size a running container used, as the node managers'
 * monitors sample it every heartbeat period (1s): the CPU over the last
 * interval, memory at its end, each a fraction of the container's size
 * (the CPU may exceed 1 when a cgroup lets it): measured from the
 * container's cgroup in emulation, from its tasks' demands in simulation
 * (a task uses its cores while it computes, not while it reads or
 * fetches, and its memory from start to end). 0, or -EAGAIN before its
 * first full interval, -EINVAL. */
int hyde_container_usage(const struct hyde_sched *s, uint32_t id, struct hyde_res *util);

/* ---- helpers every scheduler may use ---- */

/* The next pending map of job j for a container on host: node-local
 * first, then rack-local, then any, no further than max; *level says
 * which. NULL if none (pinned maps only on their rack). */
const struct hyde_task *hyde_pending_map(struct hyde_sched *s, const struct hyde_job *j,
					 unsigned host, enum hyde_locality max,
					 enum hyde_locality *level);
/* The next pending reduce of j that may run on host, if its reduces may
 * start (hyde_reduces_may_start). */
const struct hyde_task *hyde_pending_reduce(struct hyde_sched *s, const struct hyde_job *j,
					    unsigned host);
/* May the task run on host (a pinned task only on its rack)? */
bool hyde_task_fits(const struct hyde_sched *s, const struct hyde_task *t, unsigned host);
/* ops->reduces_may_start, or slowstart. */
bool hyde_reduces_may_start(struct hyde_sched *s, const struct hyde_job *j);
/* The Hadoop Fair Scheduler's order: the READY jobs with a pending task,
 * by their user's running tasks, then their own, then readiness, then
 * index. order[] has room for every job, user_running[] for every user
 * (filled here). Returns how many jobs. */
size_t hyde_fair_order(struct hyde_sched *s, uint32_t *order, unsigned *user_running);
/* The same order one job at a time, for a scheduler that takes the first
 * job with a task for the host (most picks read one job or two, where the
 * whole order sorts every ready job): with user_running (filled as
 * hyde_fair_order fills it), the first job; with NULL, the job after the
 * last one returned; UINT32_MAX after the last (and after a call of
 * hyde_fair_order, which ends the walk). */
uint32_t hyde_fair_next(struct hyde_sched *s, unsigned *user_running);
unsigned hyde_user_running(const struct hyde_sched *s, uint32_t user);

/* The run's seeded random numbers (deterministic per seed). */
uint64_t hyde_rand(struct hyde_sched *s);
uint64_t hyde_rand_below(struct hyde_sched *s, uint64_t n);
double hyde_rand_unit(struct hyde_sched *s); /* [0, 1) */
void hyde_shuffle(struct hyde_sched *s, uint32_t *v, size_t n);

/* Memory that never fails (hyde exits with a message if it does). */
void *hyde_calloc(size_t n, size_t size);
void *hyde_realloc(void *p, size_t n, size_t size);
/* Grow *v (of *cap elements of size bytes) to hold at least need. */
void hyde_grow(void **v, size_t *cap, size_t need, size_t size);

/* A line in the run's events.log ("sched <name>: ..."). */
void hyde_log(const struct hyde_sched *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
