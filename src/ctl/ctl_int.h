/* Controller internals shared by the files of src/ctl/ (ctl.c the core;
 * rundir.c, circuits.c, report.c, nodes.c, taskio.c, ...). */
#ifndef HYDE_CTL_INT_H
#define HYDE_CTL_INT_H

#include "ctl/containers.h"
#include "ctl/ctl.h"
#include "ctl/sched_host.h"

/* OCS demand of one job on one rack pair, with the flows waiting for the
 * pair's circuit. Kept up to date as flows come and go, so that a re-plan
 * costs the pairs with demand, not every flow ever made. */
struct ocs_pair {
	uint32_t job, src, dst;
	uint64_t bytes;		 /* of all its flows (for T(C)) */
	uint64_t wait_bytes;	 /* of its flows not started yet */
	unsigned flows_left;
	/* its flows waiting for the circuit, in the order they came (an
	 * array, not a list: a release reads them all at once) */
	struct flow **wait;
	size_t n_wait, cap_wait;
	struct flow **active;	 /* started, not done (remaining from the backend) */
	size_t n_active, cap_active;
	uint32_t *per_host;	 /* flows not done per source host, then per
				  * destination host (hosts of a rack each) */
	uint64_t *src_wait;	 /* wait_bytes per source host (of the rack) */
	uint64_t src_wait_max;	 /* the most of them, unless stale */
	bool src_wait_stale;	 /* that host's share shrank: look again */
	unsigned nsrc, ndst;	 /* hosts with such flows */
	size_t live;		 /* slot in its job's lv, SIZE_MAX when no demand */
	/* hyde sim: bits the active flows had left at the last plan, while
	 * its circuit has not been up since (they cannot have moved) */
	double active_bits;
	double active_src_max;	 /* and the most of them on one source host */
	double *act_host;	 /* and per source host (hosts of a rack each) */
	uint64_t active_epoch;	 /* cexec.up_epoch[src x R + dst] then */
	bool active_known;
	/* -B fetch=rack: its fetches that hold their rack's next outputs
	 * while they wait for the circuit (jobbatch.c): how many, their
	 * partitions' base bytes, and their remainders in order (an output
	 * m adds lz_base and one byte for each remainder above m); its place
	 * in struct jrack's lzp while lz_n > 0 */
	uint32_t lz_n, lz_cap, lz_pos;
	uint64_t lz_base;
	uint32_t *lz_rem;
};

/* A file being written under a temporary name (report.c). */
struct outfile {
	char path[4096], tmp[4200];
	FILE *fp;
};

/* A pair with demand, in its job's list (jstate.lv): what the circuit
 * planner read of it at the last plan (circuits.c), kept while nothing it
 * depends on has changed: its own records (ocspairs_touch marks it) and,
 * for active flows the backend cannot have moved, its circuit's state. */
#define LIVE_GONE UINT32_MAX
struct live_pair {
	uint32_t idx;	/* in the job's pairs; LIVE_GONE: a hole */
	uint32_t src, dst;
	bool fresh;	/* read it again at the next plan */
	bool circ;	/* valid while its circuit stays down and unchanged: */
	uint64_t epoch;	/* cexec.up_epoch[src x R + dst] then */
	double bits;	/* what it had left at the last plan */
};

/* Where a pair is: job and index into its pairs. */
struct pair_ref {
	uint32_t job, idx;
};

struct rstate {
	unsigned active;	     /* parallel copies in use */
	struct flow *wait_head, *wait_tail; /* flows waiting for a copy */
	struct flow **open;	     /* waiting flows per source host, for batching
				      * (the racks': jstate's open_rack) */
	struct flow *open_own;	     /* -B fetch=rack: the one from its own host */
	uint32_t maps_seen;	     /* map outputs handed to this reduce */
	uint32_t flows_left;	     /* flows created and not done */
	uint64_t bytes_done;	     /* of its fetches done, for its progress */
	int64_t compute_start;	     /* when its work began */
	uint64_t part_base;	     /* bytes from each map, */
	uint32_t part_rem;	     /* one more from maps below this */
	bool computing;
	bool opened;		     /* takes map outputs (reduce_open) */
};

/* Map outputs batched per host (hyde sim, jobs whose every partition has
 * bytes): a waiting fetch from host h holds every output of h from its
 * first on, so it is not visited per output: its bytes are worked out
 * when it starts, from prefix counts. A finished map visits only the
 * reduces with no fetch waiting on its host (need), and the waiting OCS
 * fetches only as counts per (host, reduce rack, class), for the pairs'
 * demand. Two classes of reduces: rb = shuffle / reduces, plus one for
 * the first shuffle % reduces (wl_reduce_bytes). */
struct jlazy {
	uint32_t words;		/* 64-bit words of a host's bitset of reduces */
	uint64_t *need;		/* per host: fetching, no fetch waiting on it */
	uint32_t *n_out;	/* per host: outputs there so far */
	uint32_t **below[2];	/* per host: of its first k outputs, how many
				 * have m < rem[class] (k = 0 .. n_out) */
	uint32_t *cap;		/* per host: room in below */
	uint64_t base[2];	/* bytes from any map to a reduce of a class, */
	uint32_t rem[2];	/* one more from maps below this */
	uint32_t *ocs_wait;	/* (host, reduce rack, class): waiting OCS fetches */
	uint32_t *single_n;	/* reduce_open's scratch, per host */
	uint64_t *single_bytes;
};

/* A map's input reads and a reduce's output writes (taskio.c): one per
 * reduce of a job in the cluster, and one per map while it runs (the
 * small fields last: 48 bytes, not 56). */
struct tio {
	uint64_t bytes;	   /* of all its flows */
	uint64_t done;	   /* of its flows done */
	struct flow *pend_head, *pend_tail; /* made, not started yet */
	int64_t work_start; /* a map: when its work began, -1 before */
	uint32_t left;	   /* flows not done */
	bool active;	   /* reading (map) or writing (reduce) */
};
_Static_assert(sizeof(struct tio) <= 48, "a map's tio stays small");
/* The running maps' struct tio, in blocks of TIO_BLOCK that never move
 * (a pointer to one is held across calls that may start another map), as
 * the flow records are; a map's goes back to the free list when it is
 * done. */
#define TIO_BLOCK 8u /* (small: the test crosses blocks; the pool is what runs at once) */
struct tio_pool {
	struct tio **block;
	size_t n_block, cap_block;
	uint32_t n;		 /* made */
	uint32_t *free, n_free; /* (1 + index) */
	size_t cap_free;
};

/* The simulator's lazy rack batching (-B fetch=rack; jobbatch.c): a
 * fetch from a rack that waits for a copy slot, EPS or within the rack,
 * holds the rack's outputs finished while it waits (but its reduce's own
 * host's): they are added when it starts, in their order, not map by map
 * as they finish. The other offers go through ctl_offer_map_output as
 * ever: a reduce's own host's outputs, circuit fetches (their pairs'
 * demand counts while they wait), new fetches. */
struct rk_next {
	uint32_t m, slot;
};

struct jrack {
	uint32_t words;	 /* 64-bit words of a rack's bitset of reduces */
	uint64_t *eager; /* per rack: the fetching reduces with no lazy fetch
			  * waiting on it (its next output is offered) */
	uint32_t **seq;	 /* per rack: its finished maps in order, (map, host) */
	uint32_t *n_seq, *cap_seq;
	/* an even split's: per rack, a bitset of its finished maps by index
	 * (mwords words; NULL until one), so that a reduce's opening reads
	 * each slot's outputs in map order up to where its fetch settles,
	 * not every map (jobbatch_rack_offer_done) */
	uint64_t **rbits;
	uint32_t mwords;
	uint32_t *from;	      /* per slot: the map after the last one it read */
	struct rk_next *nx;   /* the slots' next outputs, a heap by map */
	uint32_t *head;	 /* per host: its fetching reduces by index, or NONE */
	uint32_t *next;	 /* per reduce */
	/* jobbatch_rack_offer_done's scratch, per fetch slot (host or rack):
	 * outputs taken, and of an even split's, those finished and read,
	 * each with those below the reduce's remainder; seen_host per host */
	uint64_t *acc_bytes;
	uint32_t *acc_n, *acc_host, *acc_slots, *total, *below, *seen_n, *seen_below, *seen_host;
	/* an even split's (no per-reduce sizes, else NULL): per host its
	 * finished maps, and per host and per rack those below each kind of
	 * reduce's remainder rem[k] (k = 1: a reduce of one byte more), so
	 * that a reduce's opening counts what is left of a slot's outputs
	 * once each slot's fetch is settled, without reading them */
	uint32_t *done_host, *below_host[2], *below_rack[2], rem[2];
	/* and per host, where its last finished map is in its rack's seq
	 * (if it has one): a waiting rack fetch's outputs are on a host iff
	 * that is in the fetch's window */
	uint32_t *last_at;
	/* per source rack: its pairs (index in jstate.pairs) with circuit
	 * fetches that hold outputs (ocs_pair.lz_n > 0) */
	uint32_t **lzp, *n_lzp, *cap_lzp;
};

struct jstate {
	struct rstate *red;
	/* -B fetch=rack: reduce r's open fetch from rack k (rstate's open
	 * has the source hosts'), at [k * reduces + r]: a map's offers to
	 * its job's reduces read them in a row, where one array per reduce
	 * was a cache miss at every offer */
	struct flow **open_rack;
	/* per map: 1 + where its input reads are in the controller's
	 * tio_pool while it runs, else 0 (the jobs in flight on the SWIM day
	 * hold up to 2.1 M maps, mostly done, their reduces fetching: 4
	 * bytes each here, not a struct tio) */
	uint32_t *map_at;
	struct tio *red_out; /* per reduce: its output pipeline */
	uint64_t *out_rack;  /* shuffle bytes of finished maps per rack */
	/* and per host, once a scheduler asked (ctl_job_map_output; NULL
	 * before, and for the jobs of schedulers that never ask) */
	uint64_t *out_host;
	bool ready_seen;     /* job_ready told */
	struct jlazy *lz;	/* batched outputs, or NULL */
	struct jrack *rk;	/* batched rack fetches, or NULL */
	uint32_t *fetching, n_fetching; /* reduces taking outputs, by index */
	uint32_t *maps_done_rack;	 /* finished maps per rack */
	uint64_t *red_bytes_rack;	 /* shuffle bytes of placed reduces per rack */
	uint32_t reduces_placed;
	bool shuffle_open;	 /* reduces may fetch (barrier passed) */
	bool arrived;
	int64_t start, maps_done_at;
	/* the coflow */
	uint32_t flows, flows_done;
	uint64_t bytes, ocs_bytes, bytes_done, cross_rack_bytes;
	int64_t cf_start, cf_end;
	/* T(C) (Co-scheduler eq. 2) of its flows, worked out when its pairs
	 * go (ocspairs_job_done; the report reads it then) */
	int64_t lower_bound;
	struct ocs_pair *pairs;
	size_t n_pairs, cap_pairs;
	bool pairs_gone;	 /* done, its pairs' records freed */
	uint32_t ocs_flows_left; /* OCS flows made and not done */
	struct live_pair *lv;	 /* its pairs with demand, in the order they got it */
	uint32_t n_lv, n_gone;	 /* slots, holes among them */
	size_t cap_lv;
	bool lv_listed;		 /* in ctl.live_jobs */
	bool ocs_active;
	uint32_t children_done;	 /* its DAG children done */
};

/* The node managers' heartbeats (nodes.c). */
struct nodes {
	int64_t period;	    /* 0: no heartbeats, offers at every change */
	int64_t *phase;	    /* per host, in [0, period) */
	uint64_t *tie;	    /* per host: a seeded draw, for equal phases */
	uint32_t *byrank;   /* hosts by phase: the cycle */
	uint32_t *rank;	    /* per host: its place in the cycle */
	int64_t *sphase;    /* per rank: the phase */
	uint64_t *armed;    /* bitset by rank: hosts with a free container */
	size_t words;
	int64_t cycle;	    /* start of the cursor's period */
	uint32_t pos;	    /* cursor: the first heartbeat not fired yet */
	int64_t t_cycle;    /* the timer's heartbeat */
	uint32_t t_rank;
	bool sleeping;	    /* nothing pending: no heartbeat until a job is ready */
	struct evtimer timer, pass;
};

/* The network view (netview.c): per link, cumulative bytes at the last
 * two samples, taken every heartbeat period on the period's bounds. */
struct netview {
	int64_t period;
	unsigned n_links;
	uint64_t *prev, *last; /* bytes per link at the samples */
	int64_t t_prev, t_last;
	unsigned nsamples;
	unsigned *flows;       /* active flows per link now */
	/* per host, its active flows in over a link (not host-local), oldest
	 * first (hyde_net_flows_into reads them back to front, newest first
	 * as c->active_head); an array, not a list, so that a snapshot asks
	 * memory for all of them at once. A flow that ends leaves a hole
	 * (NULL) at its islot; holes are closed up once they are half. */
	struct into {
		struct flow **v;
		uint32_t n, cap, holes;
		/* in virtual time, what its flows had left (ctl_net_bytes_into)
		 * at the event numbered sum_at - 1; 0: not kept (a flow in
		 * started or ended since) */
		uint64_t sum, sum_at;
		/* its version (ctl_net_into_version) and the event it holds
		 * for, numbered ver_at - 1 (0: none; a flow in started or
		 * ended since); under HYDE_SIM_VERIFY, a digest of its flows */
		uint64_t ver, ver_at, ver_digest;
	} *into;
	uint64_t sums_read; /* ctl_net_bytes_into's sums read afresh (tests) */
	uint64_t versions;  /* the last version given */
	struct flow **rd; /* (ctl_net_flows_into's, with the bytes left) */
	uint64_t *rd_left;
	size_t cap_rd, cap_rd_left;
};

/* A live pair a plan reads again (circuits.c, plan_read_pairs) */
struct plan_read {
	struct live_pair *lp;
	struct ocs_pair *p;
	uint32_t job;
	bool kept;	/* what was kept of it holds (read only to check it) */
	bool reserved;	/* its circuit reserved: only whether it has demand */
	bool gather;	/* its active flows read with the plan's others */
};

/* The circuit executor (circuits.c). */
struct cexec {
	const struct csched_ops *cs;
	void *cs_priv; /* its state, options first (csched_new) */
	int32_t *out_of, *in_of; /* the matching asked for */
	bool *up;		 /* out_of[i] is carrying data */
	uint64_t *up_epoch;	 /* by (src, dst): times its circuit came up */
	bool verify;		 /* HYDE_SIM_VERIFY: a cached pair checked */
	uint32_t *moving;	 /* by (src, dst): the backend moves its flows
				  * though the circuit is down (hyde sim -B
				  * port_queue): nothing of them is kept */
	int32_t *owner;		 /* by source port: the coflow of the reservation */
	int64_t *resv_end;
	struct cs_plan plan;
	size_t next;		 /* next reservation to start */
	/* while the plan has more (cs_plan.more): when it was made, and the
	 * place its re-plan timer takes among the events (evloop_reserve) */
	int64_t plan_now;
	uint64_t replan_seq;
	struct cs_plan vplan;	 /* HYDE_SIM_VERIFY: the plan made whole */
	bool vplan_on;
	struct evtimer resv_timer, replan_timer, soon_timer;
	uint64_t reconfigs;
	uint64_t plans, plan_parts; /* plan_parts: parts made after the first */
	uint64_t plan_live, plan_read, plan_skip, plan_demands, plan_resv; /* summed over the plans */
	/* a plan's demand and busy circuits, kept with their room */
	struct cs_demand *d;
	struct cs_busy *busy;
	size_t cap_d, cap_busy;
	/* a plan's reads (plan_read_pairs): the pairs, their active flows
	 * gathered and those flows' bytes left, read at once */
	struct flow **gat;
	size_t cap_gat;
	uint64_t *rem;
	size_t cap_rem;
	struct plan_read *rd;
	size_t cap_rd;
	/* the merge sort's room for a plan's reservations */
	struct cs_resv *rtmp;
	size_t cap_rtmp;
};

/* The metrics NAS reports, for every run (metrics.c). */
#define METRICS_CONGESTION 0.8
struct paper_metrics {
	uint64_t rack_intervals, rack_congested; /* rack x sample; at or over 0.8 */
	uint64_t node_samples, node_congested;	 /* host x sample; map output over TT */
	uint64_t *host_mo;			 /* per host: running maps' true output */
	uint64_t first_reduces;
	double mpr_sum; /* MapProgressRate at each job's first reduce */
	/* Dawn [Fig. 12]: per job, cross-rack bytes by data: METRICS_DATA */
	uint64_t *job_cross;
};
/* Where reduce r of job `job` keeps its open fetch from `slot` (a source
 * host, or H + a rack under -B fetch=rack; ctl.c's fetch_slot), made
 * room for if `make`, else NULL if it has no room yet. */
struct flow **ctl_open_at(struct ctl *c, uint32_t job, uint32_t r, size_t slot, bool make);

#define CTL_FLOW_BLOCK 4096 /* flow records a block (stream_flows) */

/* Dawn's split of cross-rack bytes: input reads of first-level jobs,
 * reads of parents' output (dependent data), shuffle, output replicas. */
enum { MD_INPUT, MD_DEPENDENT, MD_SHUFFLE, MD_OUTPUT, METRICS_DATA };

struct ctl {
	struct ctl_opts opts;
	struct topo *t;
	struct workload *wl;
	struct cluster *c;
	struct evloop loop;
	struct backend be;
	struct hyde_sched *sched;
	struct rng rng;
	struct rng fetch_rng; /* the hosts a reduce fetches from first */
	struct jstate *js;
	struct tio_pool tio_pool; /* the running maps' input reads (taskio.c) */
	struct flow **flows; /* every flow made, unless stream_flows */
	size_t n_flows, cap_flows;
	/* stream_flows: every flow record, in blocks of CTL_FLOW_BLOCK; a
	 * flow done goes to spare_flows for the next made. The flows
	 * not done yet are the records not forgotten: no list of them (its
	 * neighbours were two cache misses at every flow's end) */
	struct flow **flow_blocks;
	size_t n_flow_blocks, cap_flow_blocks, block_fill;
	struct flow **spare_flows;
	size_t n_spare_flows, cap_spare_flows;
	struct flow *active_head; /* every flow moving bytes now */
	FILE *flows_fp;		 /* stream_flows: flows.csv being written */
	struct outfile flows_out;
	/* pairs by (job, src, dst): open addressing, key 0 is empty */
	uint64_t *ptab_key;
	struct pair_ref *ptab_val;
	size_t ptab_mask, ptab_n;
	/* jobs with pairs with demand (flows not done): [0, live_sorted) in
	 * job order, then those listed since the last plan; a job whose
	 * pairs all ended since stays listed until the next plan */
	uint32_t *live_jobs, *live_tmp;
	/* ctl_release_pair's list of the pair's waiting flows, kept from one
	 * call to the next (NULL while a call holds it) */
	struct flow **rel_v;
	size_t cap_rel_v;
	size_t n_live_jobs, cap_live_jobs, live_sorted, cap_live_tmp;
	size_t n_live; /* pairs with demand, of every job */
	uint32_t *arrival_order;
	size_t next_arrival;
	uint32_t *arrived; /* jobs arrived and maybe not done */
	size_t n_arrived;
	size_t ended_seen; /* the cluster's n_ended when arrived was compacted */
	/* the job that last answered ctl_anything_pending (asked first: it
	 * most often still has a task pending, where the scan walked every
	 * ready job whose tasks all run, at every heartbeat) */
	uint32_t pending_hint;
	struct evtimer arrival_timer, heartbeat_timer, progress_timer;
	struct nodes nodes;
	struct netview net;
	uint64_t tasks_started, stall_tasks;
	int64_t stall_since;
	/* real time: what moved (ctl_motion, and the controller's own task,
	 * flow and circuit events), and its count at the last look */
	uint64_t motion, stall_motion;
	int64_t stall_real; /* its limit (ctl_set_stall; 0: the default) */
	size_t jobs_done, jobs_failed;
	int64_t t0; /* loop time at start */
	int64_t first_arrival, last_end;
	uint64_t ocs_bytes, eps_bytes, rack_bytes, host_bytes, bytes_done;
	uint64_t kind_flows[HYDE_FLOW_KINDS], kind_bytes[HYDE_FLOW_KINDS];
	uint64_t kind_cross_bytes[HYDE_FLOW_KINDS];
	unsigned *host_out, *host_in;
	/* active flows by path (enum flow_path): the live view's counts,
	 * not a walk of the active list four times a second */
	unsigned active_paths[PATH_OCS + 1];
	struct cexec cx;
	bool failed;
	bool at_horizon; /* the run stopped at opts.horizon */
	char failmsg[HYDE_ERRBUF_SIZE];
	FILE *events;
	char *outdir;
	int64_t wall_start;
	int64_t progress_at; /* wall ns since wall_start of the last line */
	int64_t live_at;     /* wall ns since wall_start of the last live status */
	struct conts *conts; /* apps and their containers (containers.c) */
	int64_t stall_limit; /* beyond the default, for schedulers that wait longer */
	struct paper_metrics pm; /* metrics.c */
	bool replay;	    /* ctl_replay: flows as recorded, no fetch logic */
	bool fetch_rack;    /* ctl_set_fetch_rack */
	bool no_flow_log;   /* ctl_set_no_flow_log */
	bool open_batch;    /* ctl_set_open_batch */
	/* a reduce opening under open_batch (reduce_open): its new fetches
	 * wait to the end of its offers, batching what they can; the racks
	 * whose circuit to it was up, released then */
	bool opening;
	uint32_t *opening_src;
	size_t n_opening_src, cap_opening_src;
	uint32_t *rack_of;  /* each host's rack, for the loops of jobbatch.c
			     * (a load, where topo_host_rack divides) */
	size_t replay_left; /* its flows not done */
};

/* The records in use of flow block b (stream_flows). */
static inline size_t ctl_block_len(const struct ctl *c, size_t b)
{
	return b + 1 < c->n_flow_blocks ? CTL_FLOW_BLOCK : c->block_fill;
}

/* replay.c: a replayed flow is done */
void ctl_replay_flow_done(struct ctl *c, struct flow *f);

/* nodes.c */
void nodes_init(struct ctl *c);
void nodes_free(struct ctl *c);
/* The run starts (t0 is set): hosts with free containers are armed. */
void nodes_start(struct ctl *c);
/* Something may be pending (a job became ready): heartbeats resume. */
void nodes_wake(struct ctl *c);
/* A host's free containers changed (a task started or ended there). */
void nodes_slot_changed(struct ctl *c, unsigned host);
int64_t nodes_phase(const struct ctl *c, unsigned host);

/* ctl.c: placement */
bool ctl_anything_pending(struct ctl *c);
void ctl_node_heartbeat(struct ctl *c, unsigned host);
/* Host mode without heartbeats: these hosts offer, then one placement. */
void ctl_offer_all_hosts(struct ctl *c, const uint32_t *hosts, size_t n);
/* The task is over (its work, and a reduce's output written). */
void ctl_task_done(struct ctl *c, struct hyde_task *t);
/* A task the cluster started on host (in a container, containers.c) goes
 * its way: its process, its reads or fetches, its work. */
void ctl_task_launched(struct ctl *c, struct hyde_task *t, unsigned host);
/* for the scheduler API (sched_api.c) */
const uint32_t *ctl_arrived_jobs(struct ctl *c, size_t *n);
uint64_t ctl_map_output_bytes(const struct ctl *c, uint32_t job, uint32_t m);
void ctl_job_map_output(const struct ctl *c, uint32_t job, uint64_t *per_rack,
			uint64_t *per_host);
unsigned ctl_host_flows_out(const struct ctl *c, unsigned host);
unsigned ctl_host_flows_in(const struct ctl *c, unsigned host);

/* ctl.c: flows of any kind (between hosts: no fetch from a rack) */
struct flow *ctl_flow_new(struct ctl *c, enum hyde_flow_kind kind, uint32_t job,
			  uint32_t task, unsigned src_host, unsigned dst_host);
/* Start it now (input and output flows wait for nothing). */
void ctl_flow_start(struct ctl *c, struct flow *f);

/* taskio.c: input reads and output writes */
void taskio_init(struct ctl *c, struct jstate *j, uint32_t job);
void taskio_free(struct jstate *j);
/* Map m's input reads while it runs, NULL before and after. */
struct tio *taskio_map_tio(struct ctl *c, struct jstate *j, uint32_t m);
/* The map is done: its reads' record goes back to the pool. */
void taskio_map_done(struct ctl *c, const struct hyde_task *t);
/* The pool, at the run's end. */
void taskio_pool_free(struct ctl *c);
/* A map started: its input reads, then its work. */
void taskio_map_started(struct ctl *c, struct hyde_task *t);
/* A reduce's work is done: true if it writes output replicas first
 * (ctl_task_done follows their end). */
bool taskio_reduce_computed(struct ctl *c, struct hyde_task *t);
void taskio_flow_done(struct ctl *c, struct flow *f);
/* The fraction of its reads (map) or writes (reduce) done, -1 if none. */
double taskio_progress(const struct ctl *c, const struct hyde_task *t);
/* A map: when its work began (-1 while it reads or before). */
int64_t taskio_work_start(const struct ctl *c, const struct hyde_task *t);
/* ctl.c: the task works for duration (the backend's timer or process). */
void ctl_start_compute(struct ctl *c, struct hyde_task *t, int64_t duration);

/* metrics.c */
void metrics_init(struct ctl *c);
void metrics_free(struct ctl *c);
void metrics_sample(struct ctl *c);
void metrics_task_started(struct ctl *c, const struct hyde_task *t, unsigned host,
			  bool first_reduce);
void metrics_map_ended(struct ctl *c, const struct hyde_task *t, unsigned host);
void metrics_flow_ended(struct ctl *c, const struct flow *f);
void metrics_json(struct ctl *c, FILE *fp);

/* netview.c */
void netview_init(struct ctl *c);
void netview_free(struct ctl *c);
void netview_start(struct ctl *c);
/* A sample, at the cluster-wide tick (every heartbeat period). */
void netview_tick(struct ctl *c);
unsigned netview_n_links(const struct topo *t);
unsigned netview_link_index(const struct topo *t, enum hyde_link_kind kind, unsigned idx);
/* A flow starts (d = 1) or ends (d = -1) on its links. */
void netview_flow(struct ctl *c, struct flow *f, int d);
int ctl_net_link(struct ctl *c, enum hyde_link_kind kind, unsigned idx,
		 struct hyde_link_state *out);
void ctl_net_interval(const struct ctl *c, int64_t *from, int64_t *to);
size_t ctl_net_flows(struct ctl *c, struct hyde_flow_state *out, size_t max);
size_t ctl_net_flows_into(struct ctl *c, unsigned host, struct hyde_flow_state *out, size_t max);
uint64_t ctl_net_bytes_into(struct ctl *c, unsigned host);
uint64_t ctl_net_into_version(struct ctl *c, unsigned host);
bool ctl_flow_crosses(const struct ctl *c, const struct hyde_flow_state *f,
		      enum hyde_link_kind kind, unsigned idx);

/* circuits.c */
int cexec_init(struct ctl *c, const char *name, char *errbuf);
void cexec_destroy(struct ctl *c);
/* Demand changed (a pair's OCS demand appeared, or a coflow's ended):
 * re-plan soon. */
void cexec_demand_changed(struct ctl *c);
/* The circuit of flow f's pair is up and owned by its coflow: may start? */
bool cexec_may_send(struct ctl *c, const struct flow *f);
void cexec_circuit_up(struct ctl *c, unsigned src, unsigned dst);
/* A plan's reservations by start, then source and destination port,
 * stably (as qsort sorted them: equal keys keep their order); tmp has
 * room for n. */
void cexec_sort_resv(struct cs_resv *r, size_t n, struct cs_resv *tmp);

/* ctl.c: start an OCS flow that was waiting for its circuit. */
void ctl_release_pair(struct ctl *c, uint32_t job, uint32_t src, uint32_t dst);

/* ocspairs.c: the job's record of rack pair (src, dst), made on first use */
struct ocs_pair *ctl_pair(struct ctl *c, uint32_t job, uint32_t src, uint32_t dst);
/* the pair's bytes not started grow (or shrink) by d on source host h */
void ctl_pair_wait(struct ctl *c, struct ocs_pair *p, unsigned h, int64_t d);
uint64_t ctl_pair_wait_max(const struct ctl *c, struct ocs_pair *p);
/* a flow of the pair appears (d = +1) or ends (-1) */
void ocspairs_count(struct ctl *c, struct ocs_pair *p, const struct flow *f, int d);
/* What the planner reads of the pair changed (its waiting bytes, hosts or
 * active flows): it is read again at the next plan. ctl_pair_wait and
 * ocspairs_count call it, and a flow's start. */
static inline void ocspairs_touch(struct ctl *c, const struct ocs_pair *p)
{
	if (p->live != SIZE_MAX)
		c->js[p->job].lv[p->live].fresh = true;
}
/* the job's traffic from rack i to rack j is an elephant (goes by OCS) */
bool ocspairs_is_elephant(struct ctl *c, uint32_t job, unsigned i, unsigned j);
/* the job is done: its pairs' records go, T(C) kept (jstate.lower_bound) */
void ocspairs_job_done(struct ctl *c, uint32_t job);
/* the lower bound T(C) of the job's OCS-eligible traffic, from its pairs */
int64_t ocspairs_lower_bound(struct ctl *c, uint32_t job);
/* what a pair's record holds (its own arrays) */
void ocspairs_free_pair(struct ocs_pair *p);

/* ctl.c: a new fetch waits for its circuit (OCS: at the end of its pair's
 * queue) or for a copy slot (EPS and within a rack) */
void ctl_flow_enqueue(struct ctl *c, struct jstate *j, uint32_t job, struct flow *f);

/* jobbatch.c: the simulator's lazy job batching (struct jlazy) */
/* j's batching, if its job can be batched (hyde sim, stream_flows) */
void jobbatch_init(struct ctl *c, struct jstate *j, const struct wl_job *w);
void jobbatch_free(struct ctl *c, struct jstate *j);
/* reduce r needs (on) or has (off) a fetch waiting on host h */
void jobbatch_need(struct jlazy *lz, unsigned h, uint32_t r, bool on);
/* a batched fetch starts: its bytes are final */
void jobbatch_settle(struct ctl *c, struct flow *f);
/* map m of a batched job is done */
void jobbatch_map_done(struct ctl *c, uint32_t job, uint32_t m);
/* reduce r of a batched job takes every finished map's output */
void jobbatch_reduce_open(struct ctl *c, uint32_t job, uint32_t r);
/* a flow's bytes so far (a waiting batched fetch grows) */
uint64_t ctl_flow_bytes_now(const struct ctl *c, const struct flow *f);
/* rack batching (struct jrack): map m is done; reduce r takes every
 * finished map's output (after ctl.c has offered them), or computes (no
 * more fetches); a waiting rack fetch starts: its outputs are added */
void jobbatch_rack_map_done(struct ctl *c, uint32_t job, uint32_t m);
/* reduce r opens: every finished map's output is offered, those that a
 * waiting fetch takes counted up and added once (before jobbatch_rack_open) */
void jobbatch_rack_offer_done(struct ctl *c, uint32_t job, uint32_t r);
void jobbatch_rack_open(struct ctl *c, uint32_t job, uint32_t r);
void jobbatch_rack_close(struct ctl *c, uint32_t job, uint32_t r);
void jobbatch_rack_settle(struct ctl *c, struct flow *f);
void jobbatch_rack_flush(struct ctl *c); /* the run ends */
/* The hosts of a fetch's outputs so far, with one more on host h: none
 * (RK_NO_HOST), the one host, or several (UINT32_MAX), as the link rule of
 * ctl_flow_add_map and ctl_flow_add_bulk reads them. */
#define RK_NO_HOST (UINT32_MAX - 1)
uint32_t jobbatch_hosts(uint32_t so_far, uint32_t h);
/* ctl.c: hand map m's output to reduce r (a waiting fetch from its host,
 * or rack, takes it, or a new fetch); add it to a fetch */
void ctl_offer_map_output(struct ctl *c, uint32_t job, uint32_t m, uint32_t r);
void ctl_flow_add_map(struct ctl *c, struct flow *f, uint32_t m, uint64_t bytes);
void ctl_flow_add_bulk(struct ctl *c, struct flow *f, uint32_t n, uint64_t bytes, uint32_t host,
		       bool counted);

/* rundir.c: make the run directory (opts.outdir; none: nothing) and open
 * events.log. */
int rundir_setup(struct ctl *c, char *errbuf);
void rundir_discard(struct ctl *c);

/* report.c */
int report_flows_begin(struct ctl *c, char *errbuf);
void report_flow_line(struct ctl *c, const struct flow *f);
int report_write_app(struct ctl *c, char *errbuf);
int report_write_analysis(struct ctl *c, char *errbuf);
/* ctl_replay's files: flows.csv and coflows.csv */
int report_write_replay(struct ctl *c, char *errbuf);
/* summary.json's run figures into name (docs/summary-json.md) */
int report_write_summary(struct ctl *c, const char *name, char *errbuf);

/* ctl.c: the "backend_options" line of events.log */
void ctl_event_backend_options(struct ctl *c);
/* and its "run_options" line: the controller's options as the run ran */
void ctl_event_run_options(struct ctl *c);
/* The longest map or reduce time the workload declares (ns): a run is
 * stalled only well past it. */
int64_t ctl_longest_task(const struct ctl *c);

#endif
