/* The controller: one event loop that runs a workload on a backend, asks
 * the scheduler where tasks go, turns finished maps into fetches (flows),
 * chooses each flow's path (EPS, or OCS for a rack pair of at least T_e),
 * drives the circuit scheduler, and records what happened. The same code
 * drives the simulator and the emulator (backend.h). */
#ifndef HYDE_CTL_H
#define HYDE_CTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/cluster.h"
#include "core/coflow.h"
#include "core/evloop.h"
#include "core/topo.h"
#include "core/workload.h"
#include "ctl/backend.h"
#include "net/csched.h"

enum flow_state {
	FLOW_WAIT_CIRCUIT, /* OCS flow: waits for its circuit */
	FLOW_WAIT_SLOT,	   /* waits for one of the reduce's parallel copies */
	FLOW_ACTIVE,	   /* moving bytes */
	FLOW_DONE,
};

/* A flow is one TCP connection's worth of data, of one of three kinds:
 * - shuffle: one fetch: a reduce task pulls the outputs of one or more maps
 *   of its job that ran on one host (as Hadoop's fetcher does);
 * - input: a map reads (part of) its input split from a replica holder's
 *   data service (HDFS DataNode), when no replica is on its host;
 * - output: a hop of a reduce's HDFS write pipeline (writer -> second
 *   replica -> third ...), one flow per hop, all hops at once.
 * With ctl_opts.stream_flows the controller keeps no list of maps (maps is
 * NULL, n_maps counts them) and frees the flow once it is done and its
 * line is in flows.csv. */
struct flow {
	uint32_t id;
	uint32_t job; /* the coflow is the job's shuffle: same index */
	uint32_t reduce; /* shuffle and output: the reduce; input: the map */
	enum hyde_flow_kind kind;
	/* input: the block read (a map's own, or a parent's output part) and
	 * the range of it; output: the part written */
	uint32_t blk_job, blk_idx;
	bool blk_output;
	uint64_t blk_off;
	struct flow *pipe_next; /* output: the next hop of its pipeline */
	bool pipe_head;		/* output: the writer's own hop */
	uint32_t src_host, dst_host;
	uint32_t src_rack, dst_rack;
	/* a fetch of every output of its reduce's job on a rack (hyde sim -B
	 * fetch=rack): its source is the rack, src_host only its first host
	 * (a key) */
	bool from_rack;
	/* The host whose up link its bytes leave by: src_host, or for a fetch
	 * from a rack whose outputs are all one host's, that host. no_link: a
	 * fetch from a rack of several hosts' outputs, which leaves by no
	 * host's link (link_host is then src_host, the rack's key). */
	uint32_t link_host;
	bool no_link;
	uint32_t *maps;
	uint32_t n_maps;
	uint64_t bytes;
	enum flow_path path;
	enum flow_state state;
	int64_t created, start, end;
	struct flow *next; /* in a wait queue */
	bool forgotten; /* done and kept for the next (stream_flows) */
	struct flow *aprev, *anext; /* active (the network view) */
	uint32_t islot;	/* active into its dst_host over a link: in its into[] */
	uint32_t pair;	   /* OCS: index of its pair in the job's */
	/* batched outputs (ctl_int.h, struct jlazy): while it waits, the flow
	 * holds its host's outputs from lz_from on, less lz_adj_*; a rack
	 * fetch (struct jrack), its rack's from lz_from on but its reduce's
	 * own host's, and of an even split, lz_rk holds the counts its
	 * window is read from (jobbatch.c, rack_window) as they were then */
	bool lz_open;
	uint32_t lz_from;
	union {
		struct {
			uint32_t lz_adj_maps;
			uint64_t lz_adj_bytes;
		};
		struct {
			uint32_t own_done, own_below, rack_below;
		} lz_rk;
	};
	uint32_t pslot;	   /* OCS: in its pair's active flows */
	bool slot;	   /* shuffle: holds one of its reduce's copies */
	bool in_open;	   /* shuffle: its reduce's open fetch from its source */
	void *bpriv;	   /* the backend's */
	/* Its identity beside kind, job and task (ctl_flow_name): shuffle,
	 * the map whose output made the fetch; input, the read's number
	 * among its map's reads; output, the pipeline hop (1: the writer's) */
	uint32_t nth;
};

/* A flow's name: what it is, the same on both backends for the same
 * decisions (flows.csv's name, the manifest's): JOB/KIND/TASK/WHAT@SRC,
 * shuffle j0/shuffle/r3/m5@r1h2 (reduce 3's fetch made by map 5's
 * output, from r1h2), input j0/input/m5/0@r1h3 (map 5's read 0, from
 * r1h3), output j0/output/r3/1@r1h2 (reduce 3's pipeline hop 1, from
 * r1h2). No commas: job ids are letters, digits, '_', '.', '-'. */
#define CTL_FLOW_NAME_MAX 96
void ctl_flow_name(const struct ctl *c, const struct flow *f, char *buf, size_t len);
/* Its source's name: a host's (r1h2), or a rack's (r1) for a fetch from
 * a rack (from_rack). */
void ctl_flow_src_name(const struct ctl *c, const struct flow *f, char *buf, size_t len);

struct hyde_sched;
struct hyde_sched_ops;

/* a few instants of a big coflow's layer ahead of its circuits: the next
 * plan most often replaces the rest before it is reached */
#define CTL_PLAN_CHUNK 16

struct ctl_opts {
	const char *topo_path, *wl_spec;
	const char *sched_name;
	/* A scheduler given as its ops table (a program embedding hyde, the
	 * tests): used instead of sched_name when set. */
	const struct hyde_sched_ops *sched_ops;
	char **sched_kv;
	int n_sched_kv;
	const char *csched_name; /* sunflow, greedy, none */
	const struct backend_ops *backend;
	/* The backend's options, KEY=VALUE (-B; its ops' table): the
	 * simulator's rates and rate_quantum, the emulator's prefix */
	char **backend_kv;
	int n_backend_kv;
	const char *outdir;	/* run directory, or NULL for none */
	uint64_t seed;
	unsigned parallel_copies; /* Hadoop: 5 */
	int64_t heartbeat;	  /* node managers' heartbeat period (YARN: 1s); 0: none */
	bool progress;		  /* a progress line on stderr */
	bool quiet;
	bool replay_check;	  /* --replay's check of the run's files: nothing runs */
	/* Free each flow when it is done, its line streamed to flows.csv,
	 * and keep no map lists: memory stays bounded on long runs (hyde
	 * sim). ctl_flows then lists nothing. */
	bool stream_flows;
	/* How the network schedules flows (--net; both backends: the
	 * simulator's rate model, the fabric's priority bands and the
	 * senders' marking in emulation): fair, fcfs, srpt, las; NULL:
	 * fair, or what the backend's options say (the simulator's
	 * rates) */
	const char *net;
	/* How it schedules coflows (--coflow, simulation): varys, scf,
	 * fcfs, fair; NULL: none (flows, by net) */
	const char *coflow;
	/* No HDFS traffic: maps read their input where they run and
	 * reduces write one local replica; only the shuffle crosses the
	 * network (as the papers' simulators assume). */
	bool no_io;
	/* OCS fetches wait for one of their reduce's copies like any other
	 * (Hadoop's fetchers as they are); by default a circuit's fetches
	 * start when it is up, outside the copies (--ocs-fetch) */
	bool ocs_fetch_slots;
	/* A reduce's next fetch, when a copy frees: a random one of those
	 * waiting, as Hadoop's ShuffleScheduler picks a random host with
	 * output for it (--fetch-order random); by default the first to
	 * wait (outputs in the order they reached the reduce: at its start,
	 * by map). A circuit's fetches waiting for copies go first either way. */
	bool fetch_random;
	/* Coflow-only (Sunflow's simulator): every job is a bare coflow,
	 * and its CCT runs from its arrival, not its first flow's start. */
	bool coflow_only;
	/* Reservations a circuit plan is made of at a time, the rest as
	 * they are reached (cs_input.chunk; the same plan either way): 0
	 * CTL_PLAN_CHUNK, SIZE_MAX whole plans at once (the tests' reference) */
	size_t plan_chunk;
	/* Emulation: bytes the captures keep of each frame (0: the default,
	 * headers only; CAPTURE_SNAPLEN_FULL: whole frames). */
	int capture_snaplen;
	/* Emulation: how long a capture may go without draining its ports'
	 * rings (their size follows; 0: CAPTURE_WINDOW_NS) */
	int64_t capture_window_ns;
	/* The live view (live.h) on stderr when progress is set: refreshed
	 * every second on a terminal, else a line every this (0: 10 s). */
	int64_t progress_every;
	/* hyde sim --replay: a finished run's directory whose flows are
	 * replayed (ctl_replay) instead of running the workload */
	const char *replay;
	/* --horizon: the run stops this long after its start (no event
	 * later is handled), a successful run whose jobs not done by then
	 * are reported as such; 0: none, the run goes to its end */
	int64_t horizon;
};

void ctl_opts_default(struct ctl_opts *o);

struct ctl_totals {
	size_t jobs, jobs_done, jobs_failed;
	uint64_t flows, flows_done;
	uint64_t bytes_done, ocs_bytes, eps_bytes, rack_bytes, host_bytes;
	uint64_t cross_rack_bytes;
	int64_t makespan, first_arrival, last_end;
	double avg_jct, avg_cct;
	uint64_t reconfigurations;
	uint64_t events; /* of the event loop: timers fired */
	/* by kind (enum hyde_flow_kind): flows done, their bytes and the
	 * bytes of those between racks */
	uint64_t kind_flows[HYDE_FLOW_KINDS], kind_bytes[HYDE_FLOW_KINDS];
	uint64_t kind_cross[HYDE_FLOW_KINDS];
	/* --horizon (ns, 0: none), and whether the run stopped there */
	int64_t horizon;
	bool at_horizon;
};

struct ctl;

/* Load inputs, build the run directory, start the backend. Errors in the
 * inputs: -EINVAL with "file:line: ..." in errbuf, nothing created. */
int ctl_new(const struct ctl_opts *o, struct ctl **out, char *errbuf);
/* Run to the end, or to opts.horizon. 0: every job done, or the horizon
 * reached (ctl_totals' at_horizon); -1: the run failed (errbuf says why). */
int ctl_run(struct ctl *c, char *errbuf);

/* Replay opts.replay's flows, starts and circuits on the backend (the
 * simulator; replay.c says what is held equal) instead of ctl_run; the
 * run directory gets flows.csv, coflows.csv and events.log. */
struct ctl_replay_totals {
	size_t flows, flows_done;
	/* what the flows not done had left at the end (the backend's count) */
	uint64_t left_bytes, left_max;
	uint64_t circuit_changes, circuits_up;
	int64_t end; /* the last flow's end, from the start */
};
int ctl_replay(struct ctl *c, struct ctl_replay_totals *t, char *errbuf);
/* Only read and check opts.replay's files (-EINVAL: errbuf says where). */
int ctl_replay_check(struct ctl *c, char *errbuf);
void ctl_totals(const struct ctl *c, struct ctl_totals *t);
/* The backend saw bytes of a flow move (the emulator: a task's progress
 * line): a real-time run that sees nothing move for long is stalled. */
void ctl_motion(struct ctl *c);
/* That limit, in ns (0: 300 s, or 4 x the longest task if more). */
void ctl_set_stall(struct ctl *c, int64_t ns);
/* From a signal handler: the running ctl_run stops at its next heartbeat
 * as a failed run ("interrupted"), its files written (hyde sim's SIGINT). */
void ctl_interrupt(void);
void ctl_free(struct ctl *c);

/* What happened, for tests and reports: every flow made, and each job's
 * coflow start (first flow start) and end (last flow end), -1 if none. */
struct flow *const *ctl_flows(const struct ctl *c, size_t *n);
void ctl_coflow_times(const struct ctl *c, uint32_t job, int64_t *start,
		      int64_t *end);
/* The job's end time, or -1. */
int64_t ctl_job_end(const struct ctl *c, uint32_t job);
/* The job's coflow (its shuffle) is over: every reduce has all its map
 * outputs (a run stopped early leaves some coflows open: no CCT). */
bool ctl_coflow_done(const struct ctl *c, uint32_t job);

/* ---- for backends ---- */
int64_t ctl_now(struct ctl *c);
struct evloop *ctl_loop(struct ctl *c);
const struct topo *ctl_topo(const struct ctl *c);
struct cluster *ctl_cluster(struct ctl *c);
void ctl_compute_done(struct ctl *c, struct hyde_task *t);
void ctl_flow_done(struct ctl *c, struct flow *f);
void ctl_circuit_up(struct ctl *c, unsigned src, unsigned dst);
/* The backend starts (moving true) or stops moving bytes of pair (src,
 * dst)'s flows while its circuit is not up (hyde sim -B port_queue):
 * meanwhile the circuit planner keeps nothing of them. Calls pair up. */
void ctl_pair_moving(struct ctl *c, unsigned src, unsigned dst, bool moving);

/* hyde sim -B fetch=rack, before the run: a reduce fetches the outputs of
 * its job's maps per rack, not per host (one fetch from each rack at a
 * time, batching all of the rack's outputs it has not fetched yet, but
 * those on its own host, which cross no link), a coarser model with fewer
 * flows, for scale. */
void ctl_set_fetch_rack(struct ctl *c);
/* hyde sim -B flow_log=no, before the run: no flows.csv and no flow_start
 * or flow_done in events.log (a long run's flow files can take tens of
 * GB); every other file is as with them. */
void ctl_set_no_flow_log(struct ctl *c);
/* hyde sim -B open_batch: at a reduce's opening, the outputs already done
 * on one host (rack, under fetch=rack) go in one fetch even where its
 * circuit is up, or a copy free (a coarser model: without it each starts
 * its own fetch as it is offered while one can start). */
void ctl_set_open_batch(struct ctl *c);
void ctl_circuit_down(struct ctl *c, unsigned src, unsigned dst);
/* Fail the run: stop the loop, remember why (the first reason wins). */
void ctl_fail(struct ctl *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One line in events.log (if the run has a directory). */
void ctl_event(struct ctl *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A flow's start (with its kind: with_kind) and end, as ctl_event writes
 * them, without printf (rundir.c). */
void ctl_event_flow_start(struct ctl *c, const struct flow *f, bool with_kind);
void ctl_event_flow_done(struct ctl *c, const struct flow *f);
struct live_status;
/* What the run is doing now (live.c; final: the run is over). */
void ctl_live(struct ctl *c, bool final, struct live_status *s);
const char *ctl_outdir(const struct ctl *c);
/* A run directory's measured set-up (hyde analyze: its flows under 100
 * KB, SYN to first data byte, median, in DIR/summary.json): *ns and how
 * many flows in *n; false if it has none (a simulated run, an older
 * analysis). */
bool rundir_first_byte(const char *dir, int64_t *ns, size_t *n);
/* A simulated run's bytes of the flows done over the OCS and over the EPS,
 * every kind (DIR/summary.json: its shuffle's ocs_bytes, and its eps_bytes
 * with the input's and output's cross_rack bytes, which only the EPS
 * carries): what flows.csv's columns add up to in a run that ended (not
 * cut at a horizon: flows.csv counts the flows not done too). False if
 * DIR/summary.json has not the four. */
bool rundir_flow_bytes(const char *dir, uint64_t *ocs, uint64_t *eps);
const struct ctl_opts *ctl_options(const struct ctl *c);
/* The backend's state, its options set (backend.h), from ctl_new on. */
const void *ctl_backend_priv(const struct ctl *c);

/* Progress of a running task as Hadoop's status reports give it (see
 * hyde_task_progress). -EINVAL if the task is not running. */
int ctl_task_progress(struct ctl *c, const struct hyde_task *t, int64_t *elapsed,
		      double *p);

#endif
