/* The flow-level simulation backend: a fluid model of the Hybrid-DCN.
 *
 * Links: host -> ToR and ToR -> host at host_rate, ToR -> core and core ->
 * ToR at bw_e, and one circuit per OCS source port at bw_o. A flow crosses
 * its source host's up link, then the EPS (both uplinks) or its circuit,
 * then its destination host's down link; same-rack flows only the host
 * links; same-host flows nothing (they finish at once). Rates are max-min
 * fair (water-filling, maxmin.c), brought up to date when the set of flows
 * or circuits changes. A circuit i -> j is usable delta after it is set,
 * and only the ports whose circuit changes pay that (not-all-stop); an OCS
 * flow whose circuit is not usable has rate 0 and keeps its bytes. Tasks'
 * work is a timer. Everything is deterministic: the same inputs give the
 * same run.
 *
 * Arithmetic is exact: a rate is an integer number of 2^-shift bit per ns
 * (shift from the fastest link: about 1e-16 of it), bits moved are integers
 * of the same unit, so nothing depends on the order sums are made in or on
 * how often the state is looked at; a flow is done when what is left of it
 * is below 2^-20 bit (the rounding down of rates, never data).
 *
 * Beside max-min, rate models that serve flows in an order (as NEAT
 * needs): FCFS (by start), SRPT (by bits left), LAS (by bits sent). On
 * every link the order decides who is served first: taking flows in that
 * order, each gets what the flows before it left on its path (flows tied
 * in the order share that max-min fairly). These are recomputed from
 * scratch at every change.
 *
 * Coflow models (--coflow, NEAT §4.2): a coflow is a job's flows of one
 * kind (its input reads, its shuffle, its output writes). FCFS (by the
 * job's arrival) and SCF (smallest coflow first: by the bytes of the
 * coflow's flows so far) are orders, as above, every flow of a coflow tied
 * with the others (max-min among themselves); Varys and coflow-fair are
 * allocations (src/net/netsched.h), in floating point as netsched.h
 * computes them, each rate then rounded down to the unit. Like the
 * ordered models, they leave the incremental solver out: every flow is
 * its own class, and the rates are recomputed from scratch.
 *
 * Rates are brought up to date once per instant at which something
 * changed, after everything else that happens then (exact);
 * --rate-quantum trades that for speed: flows that start or end wait up
 * to a quantum for the rates (a circuit that changes never does).
 * -B end_grid=G trades it otherwise: a flow ends at the multiple of G
 * nearest its end (up to G/2 early or late, as likely one as the other),
 * so the flows that end within a grid step share one computation; a flow
 * past its end carries nothing while it waits for its point, and one
 * that ends early has what it had left counted as it ends, so the links
 * carry what the flows had. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/opts.h"
#include "core/rng.h"
#include "core/units.h"
#include "core/util.h"
#include "ctl/ctl.h"
#include "net/netsched.h"
#include "sim/maxmin.h"

typedef __int128 i128;

/* Flows with the same source host, destination host and path cross the
 * same links, so max-min gives each of them the same rate: they form a
 * class, the unit of the rate computation. Inside a class every member
 * receives bits at the same rate, so one counter per class (vt: bits
 * received by each member since the class exists) tells every member's
 * progress, and a member is done when vt reaches its `finish` (vt when it
 * joined + its bits): a heap on finish gives the next one (processor
 * sharing in virtual time; under -B flow_jitter a member of weight w
 * receives w bits per unit of vt, so its finish is vt when it joined +
 * its bits / w, and the heap still gives the next). vt is brought up to date only when the
 * class's rate or membership changes, and the classes wait in a heap by
 * the time their next member ends: an event costs the classes whose rate
 * it changes, not every class. */
struct sim_class;
struct chent;

/* A coflow, for the coflow models: a job's flows of one kind. */
struct sim_coflow {
	double bits;	/* of its flows so far (SCF's size) */
	double arrival; /* its job's, then its kind (FCFS's order) */
	bool seen;
	uint32_t dense; /* scratch: its number among the active coflows */
};

struct sim_flow {
	struct flow *f;
	i128 finish; /* class vt at which its last bit is in */
	uint32_t w;  /* -B flow_jitter: its weight among its class's members
		      * (1: even); it receives w bits per unit of vt */
	struct sim_class *cl;
	size_t hslot;
	/* -B setup: its connection being set up, no bytes moving yet */
	bool pending;
	struct evtimer setup_tm;
	struct sim *s;
	struct sim_flow *pnext, *pprev; /* the pending ones (for destroy) */
};

/* -B src_queue: an OCS class and its circuit's VOQ (see q_place) */
enum qphase {
	Q_NONE,	  /* nothing in the VOQ: its path as always */
	Q_HEAD,	  /* circuit down: the source fills the VOQ (the feeder) */
	Q_FULL,	  /* circuit down, the VOQ holds its share: it waits */
	Q_DRAIN,  /* circuit up: across from the VOQ (circuit, destination's
		   * link), the source feeding it while it is not full */
	Q_STEADY, /* circuit up, the VOQ full: its whole path, the VOQ's bits
		   * ahead of it */
};

/* In the order it is read: the fields that a rate change reads and writes
 * (set_rate, touch, arm: for every class the solver moves, and those are
 * seldom in the cache) right after the solver's, in two lines, then those
 * a lookup in the class table reads, then the rest. */
struct sim_class {
	struct mm_class m; /* links, flows, level (for the solver) */
	/* a rate change */
	uint32_t seq;	 /* order of creation: ties */
	uint32_t w;	 /* -B share_jitter: its members' weight (1: even) */
	uint64_t wsum;	 /* its members' own weights (-B flow_jitter; n without) */
	i128 vt;	 /* units x ns received by each member */
	i128 cbits;	 /* by all members, in all */
	i128 top;	 /* h[0]->finish, kept here: arm reads it for every
			  * class whose rate changes, and the member itself
			  * is seldom in the cache */
	uint64_t rate;	 /* units per member, in effect since t_vt */
	int64_t t_vt;
	int64_t done_at; /* when its first member ends; INT64_MAX: never */
	size_t cslot;	 /* in the completion heap, SIZE_MAX when not */
	size_t n;	 /* members */
	/* -B src_queue: where its VOQ stands (enum qphase, see q below), and
	 * whether its feeder is in the solver (fm below) */
	int qph;
	bool feeding;
	uint64_t frate;
	/* the class table */
	uint32_t src, dst;
	enum flow_path path;
	bool no_link;	 /* no source host link: -B fetch=rack, several hosts of a rack */
	bool hashed;	 /* in the class table (max-min classes only) */
	struct sim_class *hnext;
	/* the rest */
	uint32_t sr, dr; /* their racks */
	bool running;	 /* max-min: in the solver (its path is usable) */
	bool due;	 /* done_fire: has members done */
	uint8_t full;	 /* -B extra_full: how many of its links were full */
	bool joining;
	int64_t jend;	 /* -B join_drains: when its joining ends */
	struct sim_class *jnext, *jprev; /* on the joining list until then */
	i128 cbits_seen; /* cbits at the last look */
	struct sim_flow **h; /* members, min-heap on finish */
	size_t cap;
	size_t slot; /* in the active class array */
	struct sim_class *pnext, *pprev; /* OCS: on its (sr, dr) list */
	/* -B port_queue: its circuit is down, and it takes what its
	 * destination's port had queued until tail_end (links: that port) */
	bool tailing;
	int64_t tail_end;
	size_t tslot;
	/* -B src_queue: what its members sent into the crossbar's VOQ that
	 * has not crossed yet (units, the members' together), and where it
	 * stands (qph); q_at: when the VOQ is full (Q_HEAD) or empty
	 * (Q_DRAIN) at the rate in effect */
	i128 q;
	int64_t q_at;
	size_t qslot;
	/* the feeder: the same members, on their source's link, filling the
	 * VOQ at frate units per member (in the solver while `feeding`) */
	struct mm_class fm;
	i128 fbits, fbits_seen;
	/* q_steady_check: Q_STEADY left for Q_DRAIN (q_force: the next
	 * q_place) at this instant, its source's link the one that held it */
	int64_t q_unsteady;
	bool q_force;
	struct sim_coflow *cf; /* coflow models: its flow's coflow */
};

struct compute {
	struct evtimer tm;
	struct hyde_task *t;
	struct ctl *ctl;
};

struct port_timer {
	struct evtimer tm;
	struct sim *s;
	unsigned port;
};

/* The simulator's options (-B KEY=VALUE; --rates and --rate-quantum are
 * their aliases): the start of its state. */
struct sim_opts {
	char rates[64];	      /* a flow rate model; "": maxmin */
	int64_t rate_quantum; /* at most one rate computation per this (ns);
			       * 0: at every change (exact) */
	/* Fidelity to an emulated fabric (hyde fidelity measures them;
	 * default off): the fraction of a link's rate that carries a flow's
	 * bytes (0: all of it), and the time a flow's connection takes to
	 * set up before its first byte moves (0: none) */
	double payload;
	int64_t setup;
	/* --replay: setup is the replayed run's own, as it measured it (in
	 * place of any setup given) */
	bool measured_setup;
	/* and the time an emulated task process takes beyond its work (its
	 * start, its local reads, its report: 3-4 ms measured): a task that
	 * would end on its node's heartbeat then ends after it, as in
	 * emulation, not before (0: none) */
	int64_t task_overhead;
	/* and a spread of it: each task's work ends a further draw in
	 * [0, task_jitter) later, the draw fixed by (jitter_seed, job, kind,
	 * index), whatever the order tasks run in (0: none). An emulated
	 * task process is held up by the box by a varying amount, and a
	 * scheduler whose decisions turn on ms (a task ending before or
	 * after a heartbeat, a period's sample) can part on it: runs of
	 * several jitter_seeds say how far one run's figures can move. */
	int64_t task_jitter;
	uint64_t jitter_seed;
	/* TCP does not share a link evenly between connections: each class
	 * (a host pair's flows while it has some) gets a weight drawn from
	 * [1, 1 + share_jitter), by jitter_seed, and max-min is weighted by
	 * it (0: even, processor sharing) */
	double share_jitter;
	/* and the weights drawn anew for every class at each multiple of
	 * this (0: a class keeps its draw while it has members): TCP's
	 * uneven share of a link is not held for good, so a long flow's
	 * share averages out over the periods (see share_fire) */
	int64_t share_period;
	/* A connection that joins a link others already fill gets far less
	 * than its even share for a while (its slow start overshoots the
	 * full drop-tail queue; the losses and timeouts that follow keep its
	 * window small while the others' are large): for this many drains of
	 * its bottleneck's queue after it is made (its path's slowest link's:
	 * the emulated fabric's FIFO, 5 ms of the rate, at least 256 KiB), a
	 * class across racks over the EPS weighs join_weight of a flow (0:
	 * 0.2) in the max-min share. Flows that start together weigh alike,
	 * and where the others leave room a newcomer takes it whatever its
	 * weight. Measured on the emulated fabric (make bench-share): about
	 * 57 drains, on a 40 Mbit/s uplink (3 s) as on a 100 Mbit/s host link
	 * (1.2 s). Classes in a rack or on a circuit weigh a flow from the
	 * start: weighed so too, the emulated runs' replays moved away. */
	double join_drains;
	double join_weight;
	/* A connection whose path crosses two full drop-tail queues sees
	 * both queues' losses and delays, so TCP gives it less than an even
	 * share at each, where max-min gives it the share of the tighter
	 * one: a class's weight is multiplied by this for each link on its
	 * path beyond the first that max-min alone fills (0: off), so the
	 * rates are solved twice (see extra_full_mark). */
	double extra_full;
	/* TCP does not share a host pair's parallel connections evenly
	 * either (their flows in one class): each flow gets a weight drawn
	 * once from [1, 1 + flow_jitter) by jitter_seed and its id, its
	 * share of its class's rate in proportion, and its class weighs the
	 * sum of its flows' weights (0: even, the class's flows alike) */
	double flow_jitter;
	/* flows end on a grid of this step (0: exactly) */
	int64_t end_grid;
	/* each link's token bucket, as the emulator's HTB has it */
	bool burst;
	/* a destination port's queue still delivers after a circuit goes
	 * down */
	bool port_queue;
	/* what a flow sends into its circuit's VOQ while the circuit is down
	 * (bytes; 0: nothing) */
	uint64_t src_queue;
	/* what a reduce fetches from: "host" (each host with outputs,
	 * exact: "" too) or "rack" (ctl_set_fetch_rack: coarser, fewer
	 * flows) */
	char fetch[8];
	/* false: no flows.csv, no flow events (ctl_set_no_flow_log) */
	bool flow_log;
	/* a reduce's opening batches each source's outputs (ctl_set_open_batch) */
	bool open_batch;
	/* with rate_quantum: a class that starts between two computations
	 * runs at once at what its links have left (mm_provisional), instead
	 * of waiting for the next */
	bool join_share;
};

struct sim {
	struct sim_opts opts; /* first: the backend's options table's */
	struct ctl *ctl;      /* NULL until init and after destroy */
	const struct topo *t;
	unsigned H, R, L;
	unsigned shift;	  /* a rate unit is 2^-shift bit per ns */
	bool setup_measured; /* -B measured_setup took the replayed run's own */
	i128 tol;	  /* what is left of a done flow: 2^-20 bit */
	uint64_t *cap;	  /* units, per link */
	struct mm *mm;
	struct sim_class **act; /* classes with members */
	size_t n_act, cap_act;
	struct sim_class **ocs_cls; /* R x R lists of OCS classes, by (sr, dr) */
	struct chent *cheap; /* classes by done_at, then seq */
	size_t n_cheap, cap_cheap;
	struct sim_class **tab; /* hash of classes by key */
	size_t tab_mask;
	size_t n_hashed; /* classes in it: twice the buckets when it passes them */
	struct sim_flow **local; /* same-host flows: done at once */
	size_t n_local, cap_local;
	struct flow **done; /* scratch of done_fire */
	struct sim_class **dues;
	size_t cap_done, cap_dues;
	size_t n_flows;
	struct evtimer done_timer, rate_timer;
	int32_t *out_of;
	bool *usable;
	struct port_timer *pt;
	uint64_t recomputes, cls_sum;
	const struct rate_model *model;
	uint32_t seq;
	bool verify;
	/* a coflow allocation (varys, fair): its rates are floating point,
	 * rounded down, so a flow ends as the floating-point model ended it
	 * (done_tol) */
	bool cf_alloc;
	struct evtimer cross_timer; /* an ordered model's order changes */
	int64_t last_cross;
	int64_t quantum, last_compute;
	int64_t grid; /* -B end_grid (ns), 0: off */
	/* -B burst: each link's token bucket (units x ns: bits << shift),
	 * brought up to date at every rate computation from what the link
	 * carried since the last one; bkt_max 0: none (a circuit). A link
	 * with tokens sends at BURST_X times its rate until they are gone. */
	i128 *bkt, *bkt_max, bkt_frame;
	uint64_t *bkt_load;
	bool *bursting;
	int64_t bkt_t;
	struct evtimer burst_timer;
	/* -B port_queue: how long a full port queue takes to drain, and the
	 * classes taking theirs */
	int64_t tail_ns;
	bool *port_full; /* per host: its down link full at the last rates */
	/* -B extra_full: per link, full at the rates max-min alone gives */
	bool *lfull;
	struct sim_class **tails;
	size_t n_tails, cap_tails;
	struct evtimer tail_timer;
	/* -B share_period: the weights' next draw */
	struct evtimer share_timer;
	/* -B join_drains: how long a class joins, and those still joining in
	 * the order they were made (all join as long, so the oldest ends
	 * first); the timer at the oldest's end */
	int64_t jdur;
	struct sim_class *jhead, *jtail;
	struct evtimer join_timer;
	/* -B src_queue: a flow's share of a VOQ (units), 0: off; the classes
	 * with bits in one or heading for one */
	i128 qf;
	struct sim_class **qcls;
	size_t n_qcls, cap_qcls;
	struct evtimer q_timer;
	/* done_fire's computation put off (see there): the completion
	 * timer's place among ties, and whether it was armed since */
	uint64_t done_seq;
	bool done_rearmed;
	/* The network view (link_bytes): what each link carried, in its
	 * order (the first 2H + 3R links are this file's, the last R the
	 * OCS ports' downward direction), from the classes' counters. */
	i128 *lbits;
	/* sim_link_bytes's last answer per link, and the bits it was of */
	i128 *lb_bits;
	uint64_t *lb_bytes;
	/* ordered models' scratch */
	uint64_t *left, *olv;
	struct sim_class **grp;
	struct keyed *keyed;
	size_t cap_ord;
	struct sim_flow *pending; /* -B setup: flows setting up */
	/* coflow models: per job x kind; capacities in bits per ns (as
	 * netsched.h takes them); compute_coflow's scratch */
	struct sim_coflow *cf;
	double *fcap;
	struct ns_flow *nsf;
	struct sim_class **who;
	struct sim_coflow **cfs;
	double *frate;
	size_t cap_nsf, cap_who, cap_cfs, cap_frate;
	struct sim_flow *spare; /* flows done, for the next (pnext; see sf_free) */
	struct sim_class *spare_cls; /* classes emptied, with their heaps (hnext) */
};

/* How flows share links: max-min (key NULL), or in the order of a key,
 * lowest first. slope: how the key of a flow at rate r moves per ns (for
 * the instant two flows change places). tol: keys this close are tied
 * (bits). */
struct rate_model {
	const char *name;
	double (*key)(const struct sim *s, const struct sim_class *c);
	double slope; /* d key / dt = slope x rate */
	double tol;
	/* coflow models (then every flow is its own class, with its
	 * coflow); with no key, an allocation of netsched.h */
	enum hyde_coflow_policy coflow;
};

static double bits_of(const struct sim *s, i128 units)
{
	return ldexp((double)units, -(int)s->shift);
}

static double key_fcfs(const struct sim *s, const struct sim_class *c)
{
	(void)s;
	return (double)c->h[0]->f->start;
}

static double key_srpt(const struct sim *s, const struct sim_class *c)
{
	return bits_of(s, c->h[0]->finish - c->vt);
}

static double key_las(const struct sim *s, const struct sim_class *c)
{
	return bits_of(s, c->vt);
}

static double key_cf_fcfs(const struct sim *s, const struct sim_class *c)
{
	(void)s;
	return c->cf->arrival;
}

static double key_cf_scf(const struct sim *s, const struct sim_class *c)
{
	(void)s;
	return c->cf->bits;
}

/* The tolerance of the bit counts covers what a rate of up to 1Tbit/s
 * moves in the nanosecond that event times are rounded to. */
static const struct rate_model rate_models[] = {
	{ "maxmin", NULL, 0, 0, 0 },
	{ "fcfs", key_fcfs, 0, 0, 0 },
	{ "srpt", key_srpt, -1, 1024, 0 },
	{ "las", key_las, 1, 1024, 0 },
	{ "varys", NULL, 0, 0, HYDE_COFLOW_VARYS },
	{ "scf", key_cf_scf, 0, 0, HYDE_COFLOW_SCF },
	{ "fcfs", key_cf_fcfs, 0, 0, HYDE_COFLOW_FCFS },
	{ "fair", NULL, 0, 0, HYDE_COFLOW_FAIR },
	{ NULL, NULL, 0, 0, 0 },
};

/* Every flow its own class, rates from scratch, the incremental solver
 * left out (the ordered and coflow models)? */
static bool per_flow(const struct rate_model *m)
{
	return m->key || m->coflow;
}

static inline struct sim *SIM(struct backend *b)
{
	return b->priv;
}

#define L_HOST_UP(s, h) ((uint32_t)(h))
#define L_HOST_DOWN(s, h) ((uint32_t)((s)->H + (h)))
#define L_TOR_UP(s, r) ((uint32_t)(2 * (s)->H + (r)))
#define L_TOR_DOWN(s, r) ((uint32_t)(2 * (s)->H + (s)->R + (r)))
#define L_CIRCUIT(s, r) ((uint32_t)(2 * (s)->H + 2 * (s)->R + (r)))

/* ---- members of a class: min-heap on finish ---- */

static void mh_set(struct sim_class *c, size_t i, struct sim_flow *f)
{
	c->h[i] = f;
	f->hslot = i;
	if (i == 0)
		c->top = f->finish;
}

static void mh_push(struct sim_class *c, struct sim_flow *f)
{
	size_t i;

	xgrow((void **)&c->h, &c->cap, c->n + 1, sizeof(*c->h));
	i = c->n++;
	c->wsum += f->w;
	while (i > 0 && f->finish < c->h[(i - 1) / 2]->finish) {
		mh_set(c, i, c->h[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	mh_set(c, i, f);
}

static struct sim_flow *mh_pop(struct sim_class *c)
{
	struct sim_flow *top = c->h[0], *last = c->h[--c->n];
	size_t i = 0;

	c->wsum -= top->w;
	for (;;) {
		size_t l = 2 * i + 1, m = l;

		if (l >= c->n)
			break;
		if (l + 1 < c->n && c->h[l + 1]->finish < c->h[l]->finish)
			m = l + 1;
		if (!(c->h[m]->finish < last->finish))
			break;
		mh_set(c, i, c->h[m]);
		i = m;
	}
	if (c->n)
		mh_set(c, i, last);
	return top;
}

/* ---- classes by the time their next member ends (the heap holds the
 * keys, so that comparisons read the heap, not the classes). Four
 * children a node: half the depth of a binary heap over the ten thousand
 * classes of a run at scale, a node's children side by side.
 * The order is total (seq is unique), so the shape changes nothing. ---- */

#define CH_ARITY 4

struct chent {
	int64_t at; /* the class's done_at */
	uint32_t seq;
	struct sim_class *c;
};

static bool cless(const struct chent *a, const struct chent *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void ch_put(struct sim *s, size_t i, struct chent e)
{
	s->cheap[i] = e;
	e.c->cslot = i;
}

static void ch_up(struct sim *s, size_t i)
{
	struct chent e = s->cheap[i];

	while (i > 0 && cless(&e, &s->cheap[(i - 1) / CH_ARITY])) {
		ch_put(s, i, s->cheap[(i - 1) / CH_ARITY]);
		i = (i - 1) / CH_ARITY;
	}
	ch_put(s, i, e);
}

static void ch_down(struct sim *s, size_t i)
{
	struct chent e = s->cheap[i];

	for (;;) {
		size_t k = CH_ARITY * i + 1, j, end = k + CH_ARITY;

		if (k >= s->n_cheap)
			break;
		if (end > s->n_cheap)
			end = s->n_cheap;
		for (j = k + 1; j < end; j++)
			if (cless(&s->cheap[j], &s->cheap[k]))
				k = j;
		if (!cless(&s->cheap[k], &e))
			break;
		ch_put(s, i, s->cheap[k]);
		i = k;
	}
	ch_put(s, i, e);
}

static void ch_remove(struct sim *s, struct sim_class *c)
{
	size_t i = c->cslot;
	struct chent last;

	if (i == SIZE_MAX)
		return;
	c->cslot = SIZE_MAX;
	last = s->cheap[--s->n_cheap];
	if (i == s->n_cheap)
		return;
	ch_put(s, i, last);
	ch_up(s, i);
	ch_down(s, last.c->cslot);
}

/* -B end_grid: what the members of heap subtree i past their end
 * carried in vt (from, to]: none, they are done (the subtree stops at a
 * member not past its end). */
static i128 overshoot(const struct sim_class *c, size_t i, i128 from, i128 to)
{
	i128 f;

	if (i >= c->n || (f = c->h[i]->finish) >= to)
		return 0;
	return (to - (f > from ? f : from)) * (i128)c->h[i]->w + overshoot(c, 2 * i + 1, from, to) +
	       overshoot(c, 2 * i + 2, from, to);
}

/* vt and the bit counters up to now, at the rate in effect (on the grid,
 * a member past its end, waiting for its grid point, carries nothing). */
static void touch(struct sim *s, struct sim_class *c)
{
	int64_t now = ctl_now(s->ctl);

	if (now > c->t_vt && c->feeding && c->frate) { /* -B src_queue: into the VOQ */
		i128 d = (i128)c->frate * (i128)c->n * (now - c->t_vt);

		c->q += d;
		c->fbits += d;
	}
	if (now > c->t_vt && c->rate) {
		i128 dt = now - c->t_vt, vt = c->vt + (i128)c->rate * dt;

		c->cbits += (i128)c->rate * (i128)c->wsum * dt;
		if (c->qph == Q_DRAIN) { /* out of the VOQ: across */
			c->q -= (i128)c->rate * (i128)c->n * dt;
			if (c->q < 0)
				c->q = 0;
		}
		if (s->grid && c->n && c->top < vt)
			c->cbits -= overshoot(c, 0, c->vt, vt);
		c->vt = vt;
	}
	c->t_vt = now;
}

/* What may be left of a member done: 2^-20 bit (the rounding down of
 * exact rates). A coflow allocation's rates are floating point: there, as
 * in the floating-point model, what is within a billionth of the flow's
 * bits (+ 1/1000 bit) of its end is done, and so flows that the allocation
 * ends at one instant (Varys ends a coflow's flows together) end
 * together. */
static i128 done_tol(const struct sim *s, const struct sim_flow *sf)
{
	i128 t;

	if (!s->cf_alloc)
		return s->tol;
	t = (i128)ldexp(1e-9 * bits_of(s, sf->finish) + 1e-3, (int)s->shift);
	return t > s->tol ? t : s->tol;
}

/* -B end_grid: the grid point nearest t (halves go up; t < INT64_MAX). */
static int64_t grid_round(const struct sim *s, int64_t t)
{
	int64_t g = s->grid;

	return (t + g / 2) / g * g;
}

/* The first end time that rounds to a grid point after now: what ends
 * before it is due now. */
static int64_t grid_limit(const struct sim *s, int64_t now)
{
	return (now / s->grid + 1) * s->grid - s->grid / 2;
}

/* Whether a class's flows end on the grid: not over a circuit, whose
 * planner needs a flow it has not heard end to have bytes left (it would
 * plan again and again for a flow past its end). */
static bool on_grid(const struct sim *s, const struct sim_class *c)
{
	return s->grid && c->path != PATH_OCS;
}

/* When its first member ends at the rate in effect (the class is up to
 * date): ceil of what is left over the rate (a coflow allocation's: of
 * the time to its end less 1e-6 ns, as the floating-point model armed
 * it). */
static void q_when(struct sim *s, struct sim_class *c);
static void q_arm(struct sim *s);
static void q_place(struct sim *s, struct sim_class *c);

static void arm(struct sim *s, struct sim_class *c)
{
	int64_t at = INT64_MAX, old = c->done_at;

	if (c->qph != Q_NONE)
		q_when(s, c);
	if (c->n) {
		i128 rem = c->top - c->vt -
			   (s->cf_alloc ? (i128)(c->rate / 1000000) : s->tol);

		/* (a member done stays due, even if its class stops now) */
		if (rem <= 0) {
			at = c->t_vt;
		} else if (c->rate) {
			i128 dt = (i128)u128_div_up((unsigned __int128)rem, c->rate);

			if (dt < (i128)INT64_MAX / 2)
				at = c->t_vt + (int64_t)dt;
		}
	}
	/* on the grid, the point nearest its end, or now if that is past */
	if (at != INT64_MAX && on_grid(s, c)) {
		at = grid_round(s, at);
		if (at < c->t_vt)
			at = c->t_vt;
	}
	c->done_at = at;
	if (at == INT64_MAX) {
		ch_remove(s, c);
		return;
	}
	if (c->cslot == SIZE_MAX) {
		xgrow((void **)&s->cheap, &s->cap_cheap, s->n_cheap + 1, sizeof(*s->cheap));
		ch_put(s, s->n_cheap, (struct chent){ at, c->seq, c });
		ch_up(s, s->n_cheap++);
	} else if (at < old) {
		s->cheap[c->cslot].at = at;
		ch_up(s, c->cslot);
	} else {
		s->cheap[c->cslot].at = at;
		ch_down(s, c->cslot);
	}
}

/* A new rate from now on. */
static void set_rate(struct sim *s, struct sim_class *c, uint64_t rate)
{
	if (rate == c->rate)
		return;
	touch(s, c);
	c->rate = rate;
	arm(s, c);
}

/* The completion timer at the first class due, or now for same-host
 * flows. Re-armed (behind the events already due then) after every rate
 * computation, as it always was: the order of events of one instant is
 * part of what a run does. */
static void arm_done(struct sim *s)
{
	int64_t at = s->n_cheap ? s->cheap[0].at : INT64_MAX;

	if (s->n_local)
		at = ctl_now(s->ctl);
	if (s->qf)
		q_arm(s);
	s->done_rearmed = true;
	if (at == INT64_MAX)
		evloop_cancel(ctl_loop(s->ctl), &s->done_timer);
	else
		evloop_at(ctl_loop(s->ctl), &s->done_timer, at);
}

/* The same, at the place among ties taken by evloop_reserve. */
static void arm_done_seq(struct sim *s, uint64_t seq)
{
	int64_t at = s->n_cheap ? s->cheap[0].at : INT64_MAX;

	if (s->n_local)
		at = ctl_now(s->ctl);
	if (s->qf)
		q_arm(s);
	if (at == INT64_MAX)
		evloop_cancel(ctl_loop(s->ctl), &s->done_timer);
	else
		evloop_at_seq(ctl_loop(s->ctl), &s->done_timer, at, seq);
}

/* ---- classes ---- */

static uint64_t class_key(const struct sim *s, uint32_t src, uint32_t dst,
			  enum flow_path path, bool no_link)
{
	uint64_t k = (((uint64_t)src * s->H + dst) * 4 + (uint64_t)path) * 2 + no_link;

	return splitmix64(&k);
}

static size_t class_hash(const struct sim *s, uint32_t src, uint32_t dst,
			 enum flow_path path, bool no_link)
{
	return (size_t)(class_key(s, src, dst, path, no_link) & s->tab_mask);
}

/* More classes than buckets: twice the buckets. At scale 1 (paper60)
 * ten thousand host pairs carry flows at once, and a flow's class was
 * looked for along chains of several classes, a cache miss each. (The
 * table never shrinks; the order within a chain matters to nothing.) */
static void tab_grow(struct sim *s)
{
	size_t n = 2 * (s->tab_mask + 1), i;
	struct sim_class **tab = xcalloc(n, sizeof(*tab));
	struct sim_class *c, *next;

	for (i = 0; i <= s->tab_mask; i++)
		for (c = s->tab[i]; c; c = next) {
			size_t h = (size_t)(class_key(s, c->src, c->dst, c->path, c->no_link) &
					    (n - 1));

			next = c->hnext;
			c->hnext = tab[h];
			tab[h] = c;
		}
	free(s->tab);
	s->tab = tab;
	s->tab_mask = n - 1;
}

static bool class_usable(const struct sim *s, const struct sim_class *c)
{
	if (c->path != PATH_OCS)
		return true;
	return s->out_of[c->sr] == (int32_t)c->dr && s->usable[c->sr];
}

/* The links its path crosses: its source's up link, the uplinks or the
 * circuit between racks, its destination's down link (a same-host flow
 * none). */
static void class_links(struct sim *s, struct sim_class *c)
{
	c->m.nlinks = 0;
	if (c->path == PATH_HOST)
		return;
	if (!c->no_link)
		c->m.links[c->m.nlinks++] = L_HOST_UP(s, c->src);
	if (c->path == PATH_EPS) {
		c->m.links[c->m.nlinks++] = L_TOR_UP(s, c->sr);
		c->m.links[c->m.nlinks++] = L_TOR_DOWN(s, c->dr);
	} else if (c->path == PATH_OCS) {
		c->m.links[c->m.nlinks++] = L_CIRCUIT(s, c->sr);
	}
	c->m.links[c->m.nlinks++] = L_HOST_DOWN(s, c->dst);
}

/* What the class weighs in the solver: its members (each its own weight,
 * -B flow_jitter) x their class's weight. */
static uint64_t class_n(const struct sim_class *c)
{
	return c->wsum * c->w;
}

/* -B share_jitter: a class's weight in the share period `epoch` (0: the
 * first draw, the one without -B share_period), in 1/SHARE_UNIT of a
 * flow */
#define SHARE_UNIT 1024
static uint32_t weight_full(const struct sim *s, const struct sim_class *c, uint64_t epoch,
			    unsigned full);

static uint32_t class_weight(const struct sim *s, const struct sim_class *c, uint64_t epoch)
{
	return weight_full(s, c, epoch, c->full);
}

/* The same, as if `full` of its links were full (-B extra_full). */
static uint32_t weight_full(const struct sim *s, const struct sim_class *c, uint64_t epoch,
			    unsigned full)
{
	uint64_t k, span, w = SHARE_UNIT;

	if (s->opts.share_jitter <= 0 && !(s->opts.join_drains > 0) && !(s->opts.extra_full > 0))
		return 1;
	if (s->opts.share_jitter > 0) {
		span = (uint64_t)llround(s->opts.share_jitter * SHARE_UNIT);
		k = s->opts.jitter_seed ^ 0x5ea5ed5ea5ed5ea5ULL;
		k = splitmix64(&k) + (uint64_t)c->seq * 0x9e3779b97f4a7c15ULL;
		if (epoch)
			k = splitmix64(&k) + epoch * 0xd1b54a32d192ed03ULL;
		w += span ? splitmix64(&k) % span : 0;
	}
	if (c->joining || full > 1) { /* the factors, rounded once */
		double x = (double)w;

		if (c->joining) /* -B join_drains */
			x *= s->opts.join_weight > 0 ? s->opts.join_weight : 0.2;
		if (full > 1) /* -B extra_full */
			x *= pow(s->opts.extra_full, full - 1);
		w = (uint64_t)llround(x);
		if (!w)
			w = 1;
	}
	return (uint32_t)w;
}

/* -B flow_jitter: a flow's weight among its class's members, drawn once
 * from [1, 1 + flow_jitter) of a flow (in 1/SHARE_UNIT) by jitter_seed and
 * the flow's id (the same flow the same draw, whatever else a run
 * draws); 1 (even) without the option. */
static uint32_t flow_weight(const struct sim *s, const struct flow *f)
{
	uint64_t k, span;

	if (!(s->opts.flow_jitter > 0))
		return 1;
	span = (uint64_t)llround(s->opts.flow_jitter * SHARE_UNIT);
	k = s->opts.jitter_seed ^ 0xf10ef10ef10ef10eULL;
	k = splitmix64(&k) + (uint64_t)f->id * 0x9e3779b97f4a7c15ULL;
	return (uint32_t)(SHARE_UNIT + (span ? splitmix64(&k) % span : 0));
}

/* The period of the weights' draws now in effect. */
static uint64_t share_epoch(const struct sim *s)
{
	return s->opts.share_period ? (uint64_t)(ctl_now(s->ctl) / s->opts.share_period) : 0;
}

/* -B share_period, after every solve: the next draw while some class
 * moves (is in the solver), none once nothing does (a class whose circuit
 * never comes back, left with bytes at the end of a replay, would draw
 * for ever, and a draw after the last flow would end the run late) */
static void share_arm(struct sim *s)
{
	bool armed = evtimer_armed(&s->share_timer);

	if (!s->opts.share_period || !(s->opts.share_jitter > 0))
		return;
	if (!mm_count(s->mm)) {
		if (armed)
			evloop_cancel(ctl_loop(s->ctl), &s->share_timer);
	} else if (!armed) {
		evloop_at(ctl_loop(s->ctl), &s->share_timer,
			  ((int64_t)share_epoch(s) + 1) * s->opts.share_period);
	}
}

/* -B join_drains: the timer at the oldest joining class's end, none
 * while no class joins (a replay would run on to it) */
static void join_arm(struct sim *s)
{
	if (!s->jhead) {
		if (evtimer_armed(&s->join_timer))
			evloop_cancel(ctl_loop(s->ctl), &s->join_timer);
	} else if (!evtimer_armed(&s->join_timer) || s->join_timer.node.t != s->jhead->jend) {
		evloop_at(ctl_loop(s->ctl), &s->join_timer, s->jhead->jend);
	}
}

/* A new class joins: on the list's tail (the newest). */
static void join_add(struct sim *s, struct sim_class *c)
{
	c->joining = true;
	c->jend = ctl_now(s->ctl) + s->jdur;
	c->jnext = NULL;
	c->jprev = s->jtail;
	if (s->jtail)
		s->jtail->jnext = c;
	else
		s->jhead = c;
	s->jtail = c;
	join_arm(s);
}

static void join_remove(struct sim *s, struct sim_class *c)
{
	if (!c->joining)
		return;
	c->joining = false;
	if (c->jprev)
		c->jprev->jnext = c->jnext;
	else
		s->jhead = c->jnext;
	if (c->jnext)
		c->jnext->jprev = c->jprev;
	else
		s->jtail = c->jprev;
	c->jnext = c->jprev = NULL;
	join_arm(s);
}

static struct sim_class *class_get(struct sim *s, const struct flow *f)
{
	/* by the host whose link it leaves by (a fetch from several hosts
	 * of a rack: the rack's key) */
	uint32_t src = f->link_host;
	size_t h = class_hash(s, src, f->dst_host, f->path, f->no_link);
	struct sim_class *c;

	if (!per_flow(s->model)) /* ordered models: every flow is its own class */
		for (c = s->tab[h]; c; c = c->hnext)
			if (c->src == src && c->dst == f->dst_host && c->path == f->path &&
			    c->no_link == f->no_link)
				return c;
	c = s->spare_cls;
	if (c) { /* one emptied, its heap's array kept (see done_fire) */
		struct sim_flow **heap = c->h;
		size_t cap = c->cap;

		s->spare_cls = c->hnext;
		memset(c, 0, sizeof(*c));
		c->h = heap;
		c->cap = cap;
	} else { /* on a line: a rate change reads two (see struct sim_class) */
		if (posix_memalign((void **)&c, 64, sizeof(*c)))
			fatalx("out of memory: a class");
		memset(c, 0, sizeof(*c));
	}
	c->seq = s->seq++;
	c->src = src;
	c->dst = f->dst_host;
	c->sr = topo_host_rack(s->t, src);
	c->dr = topo_host_rack(s->t, f->dst_host);
	c->path = f->path;
	c->no_link = f->no_link;
	if (s->jdur && c->path == PATH_EPS)
		join_add(s, c);
	c->w = class_weight(s, c, share_epoch(s));
	class_links(s, c);
	if (!per_flow(s->model)) {
		c->hnext = s->tab[h];
		s->tab[h] = c;
		c->hashed = true;
		if (++s->n_hashed > s->tab_mask + 1)
			tab_grow(s);
		if (c->path == PATH_OCS) {
			struct sim_class **head = &s->ocs_cls[(size_t)c->sr * s->R + c->dr];

			c->pnext = *head;
			if (*head)
				(*head)->pprev = c;
			*head = c;
		}
	}
	c->t_vt = ctl_now(s->ctl);
	c->done_at = INT64_MAX;
	c->q_at = INT64_MAX;
	c->q_unsteady = INT64_MIN;
	c->qslot = SIZE_MAX;
	c->cslot = SIZE_MAX;
	c->slot = SIZE_MAX;
	xgrow((void **)&s->act, &s->cap_act, s->n_act + 1, sizeof(*s->act));
	c->slot = s->n_act;
	s->act[s->n_act++] = c;
	return c;
}

/* What the class moved since the last look, onto its links. */
static void account(struct sim *s, struct sim_class *c)
{
	i128 d = c->cbits - c->cbits_seen;
	unsigned k;

	if (c->fbits > c->fbits_seen) { /* -B src_queue: into the VOQ, its source's link */
		s->lbits[L_HOST_UP(s, c->src)] += c->fbits - c->fbits_seen;
		c->fbits_seen = c->fbits;
	}
	if (d <= 0)
		return;
	if (c->tailing) { /* what a port delivers crossed the whole path */
		if (!c->no_link)
			s->lbits[L_HOST_UP(s, c->src)] += d;
		s->lbits[L_CIRCUIT(s, c->sr)] += d;
		s->lbits[L_HOST_DOWN(s, c->dst)] += d;
	} else
		for (k = 0; k < c->m.nlinks; k++)
			s->lbits[c->m.links[k]] += d;
	if (c->path == PATH_OCS) /* into its destination's OCS port */
		s->lbits[2 * s->H + 3 * s->R + c->dr] += d;
	c->cbits_seen = c->cbits;
}

/* Max-min: the class takes part in the rates while it has members and
 * its path is usable. */
static void run_class(struct sim *s, struct sim_class *c)
{
	if (per_flow(s->model) || c->running || !c->n || !class_usable(s, c))
		return;
	c->running = true;
	c->m.n = class_n(c);
	mm_add(s->mm, &c->m);
}

static void stop_class(struct sim *s, struct sim_class *c)
{
	if (!c->running)
		return;
	c->running = false;
	mm_remove(s->mm, &c->m);
	set_rate(s, c, 0);
}

/* ---- -B port_queue: what a destination port still delivers ----
 *
 * In the emulated fabric a circuit delivers into the destination ToR's
 * port to the host, whose FIFO holds topo_port_queue(host rate) bytes
 * (256 KiB at 100 Mbit/s) and drains at the host link's rate; TCP keeps
 * such a queue full when that port is the bottleneck, so when the circuit
 * goes down the port still delivers what it holds, for up to the queue /
 * the rate (21 ms). The fluid model has no queue: a flow moves only while
 * its circuit is up, and under --replay a fetch that the emulation ended
 * 9 ms after its circuit went down is left with bytes for ever. With the
 * option, an OCS class whose destination port was full at the rates in
 * effect when its circuit goes down keeps taking its max-min share of
 * that port alone (the bytes are past the circuit) for the time a full
 * queue takes to drain at the port's rate; a flow that joins the class
 * meanwhile, or the circuit coming up again, ends that. Approximations:
 * the queue is taken as full and shared as max-min shares the port (FIFO
 * shares it by arrivals); a port shared with EPS flows delivers less of
 * it in that time, and tails into one port that overlap, or a port with
 * -B burst tokens, more than one queue. The circuit planner keeps nothing
 * of the pair's flows while they move (ctl_pair_moving). */
static void rates_dirty_now(struct sim *s);

/* The timer at `at`, or out of the loop if that is never. */
static void timer_at(struct sim *s, struct evtimer *tm, int64_t at)
{
	if (at == INT64_MAX)
		evloop_cancel(ctl_loop(s->ctl), tm);
	else
		evloop_at(ctl_loop(s->ctl), tm, at);
}

static void tail_arm(struct sim *s)
{
	int64_t at = INT64_MAX;
	size_t i;

	for (i = 0; i < s->n_tails; i++)
		if (s->tails[i]->tail_end < at)
			at = s->tails[i]->tail_end;
	timer_at(s, &s->tail_timer, at);
}

static void tail_start(struct sim *s, struct sim_class *c)
{
	touch(s, c);
	account(s, c); /* what it moved over the circuit */
	mm_remove(s->mm, &c->m);
	c->m.nlinks = 0;
	c->m.links[c->m.nlinks++] = L_HOST_DOWN(s, c->dst);
	c->m.n = class_n(c);
	mm_add(s->mm, &c->m);
	c->tailing = true;
	c->tail_end = ctl_now(s->ctl) + s->tail_ns;
	ctl_pair_moving(s->ctl, c->sr, c->dr, true);
	xgrow((void **)&s->tails, &s->cap_tails, s->n_tails + 1, sizeof(*s->tails));
	c->tslot = s->n_tails;
	s->tails[s->n_tails++] = c;
	tail_arm(s);
}

/* Its tail ends: stopped, its path's links back. */
static void tail_stop(struct sim *s, struct sim_class *c)
{
	touch(s, c);
	account(s, c);
	mm_remove(s->mm, &c->m);
	class_links(s, c);
	c->running = false;
	c->tailing = false;
	s->tails[c->tslot] = s->tails[--s->n_tails];
	s->tails[c->tslot]->tslot = c->tslot;
	set_rate(s, c, 0);
	ctl_pair_moving(s->ctl, c->sr, c->dr, false);
	tail_arm(s);
}

static void tail_fire(struct evloop *l, struct evtimer *t)
{
	struct sim *s = (struct sim *)((char *)t - offsetof(struct sim, tail_timer));
	int64_t now = ctl_now(s->ctl);
	size_t i = 0;

	(void)l;
	while (i < s->n_tails)
		if (s->tails[i]->tail_end <= now) {
			struct sim_class *c = s->tails[i];

			tail_stop(s, c); /* the last comes to i */
			q_place(s, c);	 /* (-B src_queue) its VOQ fills */
		} else {
			i++;
		}
	rates_dirty_now(s);
}

/* ---- -B src_queue: what a source sends into its circuit's VOQ ----
 *
 * In the emulated fabric an OCS flow's sender does not stop when its
 * circuit goes down: TCP keeps sending what its window allows into the
 * crossbar's VOQ for that circuit (lossless, 16 MB by default) over its
 * host's link, and when the circuit is up again those bytes cross without
 * the source's link in their way, while the source keeps sending. The
 * fluid model had a flow move only while its circuit is up, at the least
 * of its links' shares: under --replay a fetch whose source's link was
 * shared, given circuit windows of a few tens of milliseconds, was left
 * with bytes for ever (the emulation ended it). With the option an OCS
 * class has a VOQ, q units (its members' together), and a feeder: the
 * same members on their source's link alone, whose max-min share fills
 * the VOQ. Per phase (enum qphase): circuit not usable, the feeder fills
 * the VOQ until each member has src_queue bytes in it, or all it has
 * left if less (Q_HEAD), then waits (Q_FULL); circuit usable, the class
 * crosses from the VOQ over the circuit and its destination's link alone
 * while the feeder goes on filling it (Q_DRAIN), until the VOQ is empty
 * (its whole path again, Q_NONE) or full (Q_STEADY: its whole path, the
 * VOQ's bits staying ahead, until its members have no more than those
 * left: then Q_DRAIN, not fed, to their end). Approximations: one VOQ per
 * class, its members' shares even; the bound is per flow (TCP's window),
 * not the VOQ's size; what a class's VOQ cannot hold for its members (a
 * member that joins with less left; a member that ends) is taken back
 * from its source's link, so links carry exactly the flows' bytes.
 * Max-min rates only; a fetch from several hosts of a rack (-B
 * fetch=rack: no source link) is left as it is. */
static bool q_ok(const struct sim *s, const struct sim_class *c)
{
	return s->qf && c->path == PATH_OCS && !c->no_link && !per_flow(s->model);
}

/* What the member with the least left has left (units, less the done
 * tolerance; the class is up to date). */
static i128 q_least(const struct sim *s, const struct sim_class *c)
{
	i128 least = c->n ? c->top - c->vt - s->tol : 0;

	return least > 0 ? least : 0;
}

/* The most its VOQ holds now: src_queue per member, or less if the member
 * with the least left has less. */
static i128 q_cap(const struct sim *s, const struct sim_class *c)
{
	i128 least = q_least(s, c);

	return (i128)c->n * (least < s->qf ? least : s->qf);
}

static i128 ceil_div(i128 a, i128 b)
{
	return (a + b - 1) / b;
}

/* When the class's phase ends at the rates in effect (the class is up to
 * date): its VOQ full (Q_HEAD, Q_DRAIN fed), empty (Q_DRAIN), or its
 * members' bits left down to what the VOQ holds (Q_STEADY). */
static void q_when(struct sim *s, struct sim_class *c)
{
	i128 out = (i128)c->rate * (i128)c->n, in = c->feeding ? (i128)c->frate * (i128)c->n : 0;
	i128 nl = (i128)c->n * q_least(s, c), dt = -1, t;

	c->q_at = INT64_MAX;
	switch (c->qph) {
	case Q_HEAD:
		if (c->q >= q_cap(s, c))
			dt = 0;
		else if (in > 0)
			dt = ceil_div(q_cap(s, c) - c->q, in);
		break;
	case Q_DRAIN:
		if (c->q <= 0)
			dt = 0;
		else if (out > in)
			dt = ceil_div(c->q, out - in);
		if (c->feeding && in > 0) {
			/* full: at n x src_queue (if it grows), or at what its
			 * members have left (which falls at out) */
			i128 full = (i128)c->n * s->qf;

			if (full <= c->q)
				t = in > out ? 0 : -1;
			else
				t = in > out ? ceil_div(full - c->q, in - out) : -1;
			if (t >= 0 && (dt < 0 || t < dt))
				dt = t;
			t = nl <= c->q ? 0 : ceil_div(nl - c->q, in);
			if (dt < 0 || t < dt)
				dt = t;
		}
		break;
	case Q_STEADY:
		if (nl <= c->q)
			dt = 0;
		else if (out > 0)
			dt = ceil_div(nl - c->q, out);
		break;
	default:
		return;
	}
	if (dt >= 0 && dt < (i128)INT64_MAX / 2)
		c->q_at = c->t_vt + (int64_t)dt;
}

static void q_list(struct sim *s, struct sim_class *c, bool in)
{
	if (in && c->qslot == SIZE_MAX) {
		xgrow((void **)&s->qcls, &s->cap_qcls, s->n_qcls + 1, sizeof(*s->qcls));
		c->qslot = s->n_qcls;
		s->qcls[s->n_qcls++] = c;
	} else if (!in && c->qslot != SIZE_MAX) {
		s->qcls[c->qslot] = s->qcls[--s->n_qcls];
		s->qcls[c->qslot]->qslot = c->qslot;
		c->qslot = SIZE_MAX;
	}
}

/* The VOQ timer at the first class whose phase ends. */
static void q_arm(struct sim *s)
{
	int64_t at = INT64_MAX;
	size_t i;

	for (i = 0; i < s->n_qcls; i++)
		if (s->qcls[i]->q_at < at)
			at = s->qcls[i]->q_at;
	timer_at(s, &s->q_timer, at);
}

/* What the VOQ holds beyond `keep` was never sent: off its source's link
 * (the class is up to date and accounted). */
static void q_take_back(struct sim *s, struct sim_class *c, i128 keep)
{
	if (keep < 0)
		keep = 0;
	if (c->q <= keep)
		return;
	s->lbits[L_HOST_UP(s, c->src)] -= c->q - keep;
	c->q = keep;
}

/* The feeder in or out of the solver (in: its members' number kept). */
static void q_feed(struct sim *s, struct sim_class *c, bool on)
{
	if (on && c->feeding) {
		mm_set_n(s->mm, &c->fm, c->n);
		return;
	}
	if (on == c->feeding)
		return;
	touch(s, c);
	if (on) {
		c->fm.nlinks = 1;
		c->fm.links[0] = L_HOST_UP(s, c->src);
		c->fm.n = c->n;
		c->fm.user = 1;
		mm_add(s->mm, &c->fm);
	} else {
		mm_remove(s->mm, &c->fm);
		c->frate = 0;
	}
	c->feeding = on;
}

/* The feeder's new rate from now on. */
static void set_frate(struct sim *s, struct sim_class *c, uint64_t rate)
{
	if (rate == c->frate)
		return;
	touch(s, c);
	c->frate = rate;
	arm(s, c);
}

/* Where the class stands with its VOQ, from its circuit, its members and
 * what its VOQ holds: out of the solver, then back in on the links of
 * that phase, the feeder too if it feeds (rates 0 until the rates are
 * computed). Not while it takes what its destination's port queued (-B
 * port_queue). */
static void q_place(struct sim *s, struct sim_class *c)
{
	bool usable, feed = false, run = false;
	int ph = Q_NONE;
	i128 cap;

	if (!q_ok(s, c) || c->tailing)
		return;
	touch(s, c);
	account(s, c); /* what it moved in the phase it was in */
	cap = q_cap(s, c);
	q_take_back(s, c, cap);
	usable = c->n && class_usable(s, c);
	if (!c->n) {
		ph = Q_NONE;
	} else if (!usable) {
		ph = c->q < cap ? Q_HEAD : c->q > 0 ? Q_FULL : Q_NONE;
		feed = ph == Q_HEAD;
	} else if (c->q > 0) {
		run = true;
		/* not full: fed; full at src_queue each: steady, unless its
		 * source's link held it there (then the VOQ drains, fed);
		 * full at what they have left: the rest crosses from it */
		if (c->q < cap || (c->q_force && q_least(s, c) > s->qf)) {
			ph = Q_DRAIN;
			feed = true;
		} else {
			ph = q_least(s, c) <= s->qf ? Q_DRAIN : Q_STEADY;
		}
	} else {
		run = true;
	}
	if (c->running) {
		c->running = false;
		mm_remove(s->mm, &c->m);
		set_rate(s, c, 0);
	}
	class_links(s, c);
	if (ph == Q_DRAIN) {
		c->m.nlinks = 0;
		c->m.links[c->m.nlinks++] = L_CIRCUIT(s, c->sr);
		c->m.links[c->m.nlinks++] = L_HOST_DOWN(s, c->dst);
	}
	q_feed(s, c, feed);
	c->q_force = false;
	c->qph = ph;
	q_list(s, c, ph != Q_NONE);
	if (run) {
		c->running = true;
		c->m.n = class_n(c);
		mm_add(s->mm, &c->m);
	}
	arm(s, c);
}

/* After a solve: a class steady on its whole path that its source's link
 * alone holds would cross faster from its VOQ than its source feeds it
 * (the VOQ drains): Q_DRAIN, fed, and the rates again at this instant.
 * Once per class and instant (a drain that fills the VOQ at once is
 * steady again until the next). */
static void q_steady_check(struct sim *s)
{
	int64_t now = ctl_now(s->ctl);
	bool any = false;
	size_t i;

	for (i = 0; i < s->n_qcls; i++) {
		struct sim_class *c = s->qcls[i];
		uint64_t lv = c->m.lv;

		if (c->qph != Q_STEADY || !c->running || c->q_unsteady == now ||
		    mm_link_fired(s->mm, L_HOST_UP(s, c->src)) != lv ||
		    mm_link_fired(s->mm, L_CIRCUIT(s, c->sr)) == lv ||
		    mm_link_fired(s->mm, L_HOST_DOWN(s, c->dst)) == lv)
			continue;
		c->q_unsteady = now;
		c->q_force = true;
		q_place(s, c); /* (stays in the list: it has bits in its VOQ) */
		any = true;
	}
	if (any)
		rates_dirty_now(s);
}

/* A class's phase ends: its next, and the rates now. */
static void q_fire(struct evloop *l, struct evtimer *t)
{
	struct sim *s = (struct sim *)((char *)t - offsetof(struct sim, q_timer));
	int64_t now = ctl_now(s->ctl);
	size_t i = 0, n = s->n_qcls;
	bool any = false;

	(void)l;
	/* (q_place may take the class out of the list: the last comes to i) */
	while (i < s->n_qcls && n--) {
		struct sim_class *c = s->qcls[i];

		if (c->q_at > now) {
			i++;
			continue;
		}
		c->q_at = INT64_MAX; /* (a tail holds it: its end places it) */
		q_place(s, c);
		any = true;
		if (i < s->n_qcls && s->qcls[i] == c)
			i++;
	}
	if (any)
		rates_dirty_now(s);
	else
		q_arm(s);
}

/* Out of every structure (its members are the caller's); the memory is
 * the caller's to free. */
static void class_drop(struct sim *s, struct sim_class *c)
{
	if (c->tailing)
		tail_stop(s, c);
	touch(s, c);
	account(s, c);
	if (c->qph != Q_NONE || c->feeding) { /* -B src_queue: what its VOQ held was never sent */
		q_feed(s, c, false);
		q_take_back(s, c, 0);
		c->qph = Q_NONE;
		q_list(s, c, false);
	}
	stop_class(s, c);
	ch_remove(s, c);
	join_remove(s, c);
	if (c->hashed) {
		size_t h = class_hash(s, c->src, c->dst, c->path, c->no_link);
		struct sim_class **pp;

		for (pp = &s->tab[h]; *pp != c; pp = &(*pp)->hnext)
			;
		*pp = c->hnext;
		s->n_hashed--;
		if (c->path == PATH_OCS) {
			if (c->pprev)
				c->pprev->pnext = c->pnext;
			else
				s->ocs_cls[(size_t)c->sr * s->R + c->dr] = c->pnext;
			if (c->pnext)
				c->pnext->pprev = c->pprev;
		}
	}
	s->act[c->slot] = s->act[--s->n_act];
	s->act[c->slot]->slot = c->slot;
}

static void class_release(struct sim *s, struct sim_class *c)
{
	class_drop(s, c);
	free(c->h);
	free(c);
}

/* ---- the rates ---- */

/* See compute_ordered. */
#define CROSS_QUANTUM (NSEC_PER_SEC / 1000)

struct keyed {
	double key;
	struct sim_class *c;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->c->seq > y->c->seq) - (x->c->seq < y->c->seq);
}

/* ---- -B burst: the emulator's token buckets ----
 *
 * The emulated fabric shapes each link end with HTB, whose classes hold a
 * bucket of topo_shaper_burst(rate) bytes: a link that has idled sends
 * that much at once, then at its rate. So a flow that starts on idle
 * links ends B / rate sooner than the fluid model says (10 ms on a 100
 * Mbit/s host link, 8% of a 1.5 MB fetch), and under replay a fetch that
 * the emulation fitted into its circuit's reservation is left with bytes
 * when the circuit goes down. The model: a link's bucket fills at its
 * rate less what it carries, up to B; while it holds tokens (a frame's
 * worth to start) the link's capacity is BURST_X times its rate and the
 * bucket drains at what it carries less its rate; when it is empty (an
 * event), the link has its rate again. What a flow gains does not depend
 * on BURST_X (across a burst at x times the rate it moves x B / (x - 1)
 * in B / ((x - 1) rate): B / rate sooner), but a flow smaller than the
 * bucket crosses in its size / (x rate): HTB's ceil bucket (the same B)
 * lets it out at the veth's speed, and the emulated 50 KB fetches of
 * topologies/tiny.topo (a 64 KiB bucket on 20 Mbit/s uplinks) took
 * 0.1-0.6 ms beyond their set-up, 2.5 ms at x = 8 and 0.3 ms at x = 64.
 * (The rate unit follows the fastest link times x.) Circuits have none: the
 * crossbar paces at bw_o from an idle port. The buckets are brought up to
 * date at every rate computation, from the links' loads set at the one
 * before (with --rate-quantum or end_grid, what the flows carried in
 * between is what that computation gave them). */
#define BURST_X 64

static void burst_update(struct sim *s)
{
	int64_t now = ctl_now(s->ctl), dt = now - s->bkt_t;
	unsigned l;

	for (l = 0; l < s->L; l++) {
		i128 b = s->bkt[l];
		bool on;

		if (!s->bkt_max[l])
			continue;
		if (dt > 0) {
			b += ((i128)s->cap[l] - (i128)s->bkt_load[l]) * dt;
			b = b < 0 ? 0 : b > s->bkt_max[l] ? s->bkt_max[l] : b;
			s->bkt[l] = b;
		}
		/* on while it has tokens; back on with a frame's worth */
		on = s->bursting[l] ? b > 0 : b >= s->bkt_frame;
		if (on != s->bursting[l]) {
			s->bursting[l] = on;
			mm_set_cap(s->mm, l, on ? s->cap[l] * BURST_X : s->cap[l]);
		}
	}
	s->bkt_t = now;
}

/* The loads the rates just set, and the first bucket they empty. */
static void burst_arm(struct sim *s)
{
	int64_t now = ctl_now(s->ctl), at = INT64_MAX;
	unsigned l;

	for (l = 0; l < s->L; l++) {
		if (!s->bkt_max[l])
			continue;
		s->bkt_load[l] = mm_link_load(s->mm, l);
		if (s->bursting[l] && s->bkt_load[l] > s->cap[l]) {
			i128 over = (i128)(s->bkt_load[l] - s->cap[l]);
			i128 dt = (s->bkt[l] + over - 1) / over;

			if (dt < (i128)(INT64_MAX / 4) && now + (int64_t)dt < at)
				at = now + (int64_t)dt;
		}
	}
	if (at == INT64_MAX)
		evloop_cancel(ctl_loop(s->ctl), &s->burst_timer);
	else
		evloop_at(ctl_loop(s->ctl), &s->burst_timer, at);
}

static bool class_reweigh(struct sim *s, struct sim_class *c, uint64_t epoch);

/* -B extra_full, before the rates are solved: every class in the solver
 * that was weighed down for its full links weighs as without the option
 * again, so that the first solve says which links max-min alone fills. */
static void extra_full_plain(struct sim *s)
{
	size_t i;

	for (i = 0; i < s->n_act; i++) {
		struct sim_class *c = s->act[i];

		if (c->running && c->full > 1) {
			c->full = 0;
			class_reweigh(s, c, share_epoch(s));
		}
	}
}

/* -B extra_full, after that solve: which links are full (s->lfull), and
 * every class in the solver with two or more of them weighed down. Whether
 * any moved. One look at the rates max-min alone gives, not at the rates
 * the weights give: a weight that empties a link would otherwise flap
 * (the class beaten down at its other full link leaves the first unfilled,
 * and is no longer beaten down), and the weights would hang on how many
 * looks were taken. */
static bool extra_full_mark(struct sim *s)
{
	bool moved = false;
	unsigned l, k;
	size_t i;

	for (l = 0; l < s->L; l++)
		s->lfull[l] = mm_link_full(s->mm, l);
	for (i = 0; i < s->n_act; i++) {
		struct sim_class *c = s->act[i];
		unsigned full = 0;

		if (!c->running)
			continue;
		for (k = 0; k < c->m.nlinks; k++)
			full += s->lfull[c->m.links[k]];
		c->full = (uint8_t)full;
		if (full > 1)
			moved |= class_reweigh(s, c, share_epoch(s));
	}
	return moved;
}

/* HYDE_SIM_VERIFY with -B extra_full: every class in the solver counts
 * the links that water-filling from scratch, every class at its weight
 * without the option, fills (mm_waterfill, apart from the incremental
 * solver and from the look extra_full_mark took). */
static void extra_full_verify(struct sim *s)
{
	struct mm_class *cp = xcalloc(s->n_act + 1, sizeof(*cp));
	struct mm_class **cls = xcalloc(s->n_act + 1, sizeof(*cls));
	struct sim_class **of = xcalloc(s->n_act + 1, sizeof(*of));
	uint64_t *left = xcalloc(s->L + 1, sizeof(uint64_t));
	uint64_t *load = xcalloc(s->L + 1, sizeof(uint64_t));
	uint64_t *nf = xcalloc(s->L + 1, sizeof(uint64_t));
	uint64_t *lv = xcalloc(s->n_act + 1, sizeof(uint64_t));
	size_t i, n = 0;
	unsigned l, k;

	for (i = 0; i < s->n_act; i++) {
		struct sim_class *c = s->act[i];

		if (!c->running)
			continue;
		cp[n] = c->m;
		cp[n].n = c->wsum * weight_full(s, c, share_epoch(s), 0);
		cls[n] = &cp[n];
		of[n++] = c;
	}
	for (l = 0; l < s->L; l++)
		left[l] = mm_link_cap(s->mm, l);
	mm_waterfill(s->mm, cls, n, left, lv);
	for (i = 0; i < n; i++)
		for (k = 0; k < cp[i].nlinks; k++) {
			load[cp[i].links[k]] += lv[i] * cp[i].n;
			nf[cp[i].links[k]] += cp[i].n;
		}
	for (i = 0; i < n; i++) {
		unsigned full = 0;

		for (k = 0; k < cp[i].nlinks; k++) {
			l = cp[i].links[k];
			full += nf[l] && load[l] + nf[l] > mm_link_cap(s->mm, l);
		}
		if (full != of[i]->full)
			fatalx("sim: extra_full: the class from host %u to host %u counts %u full links, water-filling without the option fills %u, at %lld ns",
			       of[i]->src, of[i]->dst, of[i]->full, full, (long long)ctl_now(s->ctl));
	}
	free(cp);
	free(cls);
	free(of);
	free(left);
	free(load);
	free(nf);
	free(lv);
}

static void compute_maxmin(struct sim *s)
{
	struct mm_class *const *chg;
	size_t n, i;
	unsigned pass;

	if (s->bkt)
		burst_update(s);
	if (s->lfull)
		extra_full_plain(s);
	for (pass = 0;; pass++) {
		chg = mm_solve(s->mm, &n);
		if (s->verify && !mm_verify(s->mm))
			fatalx("sim: the incremental rates differ from water-filling at %lld ns",
			       (long long)ctl_now(s->ctl));
		for (i = 0; i < n; i++) {
			struct sim_class *c;

			if (chg[i]->user) { /* a feeder (-B src_queue) */
				c = (struct sim_class *)((char *)chg[i] -
							 offsetof(struct sim_class, fm));
				set_frate(s, c, c->fm.lv);
				continue;
			}
			c = (struct sim_class *)((char *)chg[i] - offsetof(struct sim_class, m));
			set_rate(s, c, c->m.lv * c->w);
		}
		/* -B extra_full: the links max-min alone fills weigh down
		 * the classes that cross two or more, and the rates follow */
		if (!s->lfull || pass == 1 || !extra_full_mark(s))
			break;
	}
	if (s->lfull && s->verify)
		extra_full_verify(s);
	if (s->qf)
		q_steady_check(s);
	if (s->bkt)
		burst_arm(s);
	share_arm(s);
	if (s->port_full) {
		unsigned h;

		for (h = 0; h < s->H; h++)
			s->port_full[h] = mm_link_full(s->mm, L_HOST_DOWN(s, h));
	}
}

/* An ordered model: classes by key; each tie group takes, max-min among
 * itself, what the groups before it left. Then the first instant two
 * neighbours in the order change places, when the rates must be redone. */
static void compute_ordered(struct sim *s)
{
	const struct rate_model *m = s->model;
	double next = INFINITY;
	size_t i, j, n = s->n_act;
	unsigned k;

	xgrow((void **)&s->keyed, &s->cap_ord, n + 1, sizeof(*s->keyed));
	s->grp = xrealloc(s->grp, (s->cap_ord + 1) * sizeof(*s->grp));
	s->olv = xrealloc(s->olv, (s->cap_ord + 1) * sizeof(*s->olv));
	for (i = 0; i < n; i++) {
		struct sim_class *c = s->act[i];

		touch(s, c);
		s->keyed[i] = (struct keyed){ m->key(s, c), c };
		for (k = 0; k < c->m.nlinks; k++)
			s->left[c->m.links[k]] = s->cap[c->m.links[k]];
	}
	xqsort(s->keyed, n, sizeof(*s->keyed), cmp_keyed);
	for (i = 0; i < n; i = j) {
		size_t ng = 0;

		for (j = i + 1; j < n && s->keyed[j].key - s->keyed[i].key <= m->tol; j++)
			;
		for (k = 0; (size_t)k < j - i; k++) {
			struct sim_class *c = s->keyed[i + k].c;

			c->m.n = class_n(c);
			if (class_usable(s, c))
				s->grp[ng++] = c;
			else
				set_rate(s, c, 0);
		}
		/* alone in its place: what its path has left; tied: max-min
		 * among the group on what is left */
		mm_waterfill(s->mm, (struct mm_class *const *)s->grp, ng, s->left, s->olv);
		for (k = 0; (size_t)k < ng; k++)
			set_rate(s, s->grp[k], s->olv[k]);
	}
	for (i = 0; i + 1 < n; i++) {
		double gap = s->keyed[i + 1].key - s->keyed[i].key;
		double closing = m->slope * bits_of(s, (i128)s->keyed[i].c->rate -
							    (i128)s->keyed[i + 1].c->rate);

		if (gap > m->tol && closing > 0 && gap / closing < next)
			next = gap / closing;
	}
	/* Two flows with different bottlenecks can swap places again and
	 * again (each tie lets the slower fall behind): an order change is
	 * acted on at most once per CROSS_QUANTUM, the one approximation of
	 * the ordered models. */
	if (next < INFINITY) {
		int64_t at = ctl_now(s->ctl) + (int64_t)ceil(next);

		if (at < s->last_cross + CROSS_QUANTUM)
			at = s->last_cross + CROSS_QUANTUM;
		evloop_at(ctl_loop(s->ctl), &s->cross_timer, at);
	} else
		evloop_cancel(ctl_loop(s->ctl), &s->cross_timer);
}

static int cmp_cf_arrival(const void *a, const void *b)
{
	const struct sim_coflow *x = *(struct sim_coflow *const *)a;
	const struct sim_coflow *y = *(struct sim_coflow *const *)b;

	if (x->arrival != y->arrival)
		return x->arrival < y->arrival ? -1 : 1;
	return (x > y) - (x < y);
}

/* What rounding leaves of a full link is no rate (bits per ns): the
 * floating-point allocations' threshold. */
#define RATE_MIN 1e-6

/* Varys or coflow-fair (netsched.h) over the classes that can send (one
 * flow each), coflows numbered in arrival order; each rate in bits per ns,
 * rounded down to the unit. */
static void compute_coflow(struct sim *s)
{
	size_t i, n = 0, ncf = 0, na = s->n_act + 1;
	unsigned k;

	xgrow((void **)&s->nsf, &s->cap_nsf, na, sizeof(*s->nsf));
	xgrow((void **)&s->who, &s->cap_who, na, sizeof(*s->who));
	xgrow((void **)&s->cfs, &s->cap_cfs, na, sizeof(*s->cfs));
	xgrow((void **)&s->frate, &s->cap_frate, na, sizeof(*s->frate));
	for (i = 0; i < s->n_act; i++) {
		struct sim_class *c = s->act[i];
		struct ns_flow *f = &s->nsf[n];

		touch(s, c);
		if (!c->n || !class_usable(s, c)) {
			set_rate(s, c, 0);
			continue;
		}
		if (!c->cf->seen) {
			c->cf->seen = true;
			s->cfs[ncf++] = c->cf;
		}
		s->who[n] = c;
		memset(f, 0, sizeof(*f));
		f->nlinks = (int)c->m.nlinks;
		for (k = 0; k < c->m.nlinks; k++)
			f->links[k] = (int)c->m.links[k];
		f->left = bits_of(s, c->h[0]->finish - c->vt);
		if (f->left < 1)
			f->left = 1; /* a rounding error from its end */
		n++;
	}
	xqsort(s->cfs, ncf, sizeof(*s->cfs), cmp_cf_arrival);
	for (i = 0; i < ncf; i++) {
		s->cfs[i]->dense = (uint32_t)i;
		s->cfs[i]->seen = false;
	}
	for (i = 0; i < n; i++)
		s->nsf[i].coflow = s->who[i]->cf->dense;
	memset(s->frate, 0, na * sizeof(*s->frate));
	netsched_coflow_rates(s->model->coflow, s->nsf, n, ncf, s->fcap, s->L, s->frate);
	for (i = 0; i < n; i++) {
		double r = s->frate[i] < RATE_MIN ? 0 : ldexp(s->frate[i], (int)s->shift);

		set_rate(s, s->who[i], r >= 0x1p63 ? UINT64_MAX / 2 : (uint64_t)r);
	}
}

/* The rates; the completion timer is the caller's. */
static void compute_rates_only(struct sim *s)
{
	s->recomputes++;
	s->cls_sum += s->n_act;
	s->last_compute = ctl_now(s->ctl);
	evloop_cancel(ctl_loop(s->ctl), &s->rate_timer);
	if (s->model->key)
		compute_ordered(s);
	else if (s->model->coflow)
		compute_coflow(s);
	else
		compute_maxmin(s);
}

static void compute_rates(struct sim *s)
{
	compute_rates_only(s);
	arm_done(s);
}

/* Something changed at this instant: the rates once, after every other
 * event of the same instant (they may change more). */
static void rates_dirty(struct sim *s)
{
	int64_t at = ctl_now(s->ctl);

	/* --rate-quantum: at most one computation per quantum; until then
	 * the rates stay as they were (a new flow waits, a finished flow's
	 * share lies idle): fewer events, approximate times */
	if (s->quantum && at < s->last_compute + s->quantum)
		at = s->last_compute + s->quantum;
	if (!evtimer_armed(&s->rate_timer))
		evloop_at(ctl_loop(s->ctl), &s->rate_timer, at);
}

/* A circuit changed: the rates at this instant, quantum or not (a
 * reservation can be shorter than the quantum, and its flows would not
 * move in it: the plans would flap). */
static void rates_dirty_now(struct sim *s)
{
	int64_t now = ctl_now(s->ctl);

	if (!evtimer_armed(&s->rate_timer) || s->rate_timer.node.t > now)
		evloop_at(ctl_loop(s->ctl), &s->rate_timer, now);
}

/* A class's weight drawn again (share_jitter's period, join_drains' end,
 * extra_full), its bits so far at the old rate; the solver's count and its
 * rate follow when it moves (its level may stay: the solve reports those
 * that move). Until that solve, at this instant, its rate is the old level
 * times the new weight, which may be more than its links carry (even wrap,
 * a weight grown many times): never used, as no time passes before the
 * solve puts the level right. Whether it moves. */
static bool class_reweigh(struct sim *s, struct sim_class *c, uint64_t epoch)
{
	touch(s, c);
	c->w = class_weight(s, c, epoch);
	if (!c->running)
		return false;
	mm_set_n(s->mm, &c->m, class_n(c));
	set_rate(s, c, c->m.lv * c->w);
	return true;
}

/* -B share_period: every class with members draws its weight anew for
 * the period that starts now, and the rates follow at this instant. A
 * flow that lasts many periods gets about the mean weight, as a long TCP
 * connection gets about its even share, where a weight drawn once would
 * hold it fast or slow for its whole life. */
static void share_fire(struct evloop *l, struct evtimer *t)
{
	struct sim *s = (struct sim *)((char *)t - offsetof(struct sim, share_timer));
	uint64_t epoch = share_epoch(s);
	size_t i;

	(void)l;
	for (i = 0; i < s->n_act; i++)
		class_reweigh(s, s->act[i], epoch);
	rates_dirty_now(s); /* (its solve arms the next draw) */
}

/* -B join_drains: the classes whose joining ends now weigh a whole flow
 * from now, and the rates follow at this instant (join_remove arms the
 * timer for the next). */
static void join_fire(struct evloop *l, struct evtimer *t)
{
	struct sim *s = (struct sim *)((char *)t - offsetof(struct sim, join_timer));
	int64_t now = ctl_now(s->ctl);
	bool moved = false;

	(void)l;
	while (s->jhead && s->jhead->jend <= now) {
		struct sim_class *c = s->jhead;

		join_remove(s, c); /* (not joining: a whole flow's weight) */
		moved |= class_reweigh(s, c, share_epoch(s));
	}
	join_arm(s); /* (join_remove did, but for a head dropped meanwhile) */
	if (moved)
		rates_dirty_now(s);
}

static void rate_fire(struct evloop *l, struct evtimer *t)
{
	struct sim *s = (struct sim *)((char *)t - offsetof(struct sim, rate_timer));

	(void)l;
	compute_rates(s);
}

/* A link's bucket is empty: the rates now. */
static void burst_fire(struct evloop *l, struct evtimer *t)
{
	struct sim *s = (struct sim *)((char *)t - offsetof(struct sim, burst_timer));

	(void)l;
	rates_dirty_now(s);
}

static void cross_fire(struct evloop *l, struct evtimer *t)
{
	struct sim *s = (struct sim *)((char *)t - offsetof(struct sim, cross_timer));

	(void)l;
	s->last_cross = ctl_now(s->ctl);
	compute_rates(s);
}

static int cmp_slot(const void *a, const void *b)
{
	const struct sim_class *x = *(struct sim_class *const *)a;
	const struct sim_class *y = *(struct sim_class *const *)b;

	return (x->slot > y->slot) - (x->slot < y->slot);
}

/* A flow done is kept for the next one (as the controller keeps its
 * struct flow): malloc's free memory grew into lists walked at every
 * allocation when millions came and went. */
static void sf_free(struct sim *s, struct sim_flow *sf)
{
	sf->pnext = s->spare;
	s->spare = sf;
}

static struct sim_flow *sf_new(struct sim *s)
{
	struct sim_flow *sf = s->spare;

	if (!sf)
		return xcalloc(1, sizeof(*sf));
	s->spare = sf->pnext;
	if (s->spare) /* (the next one made: its lines on their way) */
		__builtin_prefetch(s->spare, 1);
	memset(sf, 0, sizeof(*sf));
	return sf;
}

/* Flows end: the same-host ones, and the members of the classes due now
 * (what is left of them is the rounding down of rates). The classes are
 * visited as a walk over the active array would: in slot order, and a
 * class moved into the slot of one released is next; so the controller
 * hears of the flows in the order it always has. */
static void done_fire(struct evloop *l, struct evtimer *t)
{
	struct sim *s = (struct sim *)((char *)t - offsetof(struct sim, done_timer));
	int64_t now = ctl_now(s->ctl);
	size_t n = 0, nd = 0, i;
	bool defer = false;

	(void)l;
	for (i = 0; i < s->n_local; i++) {
		xgrow((void **)&s->done, &s->cap_done, n + 1, sizeof(*s->done));
		s->done[n++] = s->local[i]->f;
		sf_free(s, s->local[i]);
	}
	s->n_local = 0;
	while (s->n_cheap && s->cheap[0].at <= now) {
		struct sim_class *c = s->cheap[0].c;

		ch_remove(s, c);
		c->due = true;
		xgrow((void **)&s->dues, &s->cap_dues, nd + 1, sizeof(*s->dues));
		s->dues[nd++] = c;
	}
	/* a coflow allocation: every flow sending that is within done_tol
	 * of its end too (the allocation is from scratch, O(classes), anyway) */
	for (i = 0; s->cf_alloc && i < s->n_act; i++) {
		struct sim_class *c = s->act[i];

		if (c->due || !c->n || !c->rate)
			continue;
		touch(s, c);
		if (c->h[0]->finish - c->vt <= done_tol(s, c->h[0])) {
			ch_remove(s, c);
			c->due = true;
			xgrow((void **)&s->dues, &s->cap_dues, nd + 1, sizeof(*s->dues));
			s->dues[nd++] = c;
		}
	}
	if (nd > 1)
		xqsort(s->dues, nd, sizeof(*s->dues), cmp_slot);
	for (i = 0; i < nd; i++) {
		struct sim_class *c = s->dues[i];

		while (c && c->due) {
			struct sim_class *last = s->act[s->n_act - 1];
			size_t before = n;
			/* done: what ends before lim (on the grid, what
			 * rounds to now or before) */
			int64_t lim = on_grid(s, c) ? grid_limit(s, now) : now + 1;
			size_t had = c->n; /* (-B src_queue: its VOQ's shares) */

			c->due = false;
			touch(s, c);
			while (c->n && c->h[0]->finish - c->vt <=
						       done_tol(s, c->h[0]) +
							       (i128)c->rate * (lim - now - 1)) {
				struct sim_flow *sf = mh_pop(c);

				/* on the grid, ended early: what it had left
				 * counted now */
				if (on_grid(s, c) && sf->finish > c->vt)
					c->cbits += (sf->finish - c->vt) * (i128)sf->w;
				xgrow((void **)&s->done, &s->cap_done, n + 1, sizeof(*s->done));
				s->done[n++] = sf->f;
				sf_free(s, sf);
			}
			if (c->q) { /* a member done: its share of the VOQ was not sent */
				account(s, c);
				q_take_back(s, c, c->q * (i128)c->n / (i128)had);
			}
			if (c->n) {
				if (c->running)
					mm_set_n(s->mm, &c->m, class_n(c));
				if (c->feeding)
					mm_set_n(s->mm, &c->fm, c->n);
				arm(s, c);
				if (n == before) /* cannot be: it was due */
					fatalx("sim: a class due at %lld ns has no flow done",
					       (long long)now);
				break;
			}
			/* moves last into its slot; onto the spare list, not
			 * reused before this loop ends (dues may still hold
			 * it: its due is false, it is passed over) */
			class_drop(s, c);
			c->hnext = s->spare_cls;
			s->spare_cls = c;
			c = last != c ? last : NULL;
		}
	}
	s->n_flows -= n;
	/* the rates without them, then the controller hears (and may start
	 * flows: the rates again, at this instant, after it) */
	if (s->quantum && now < s->last_compute + s->quantum) {
		rates_dirty(s);
		arm_done(s);
	} else if (!s->quantum && !per_flow(s->model)) {
		/* Max-min: those rates are put off until the controller has
		 * heard. No time passes in between, so nothing can tell (a
		 * flow's bits left and a link's bytes are the same at either
		 * rate), and if it starts or stops flows, the one computation
		 * that follows gives the rates both would have (max-min's are
		 * unique): one solve where there were two. What the
		 * computation did for the order of events is kept: the rate
		 * timer is cancelled now, and the completion timer, unless
		 * armed again since, takes the place among ties it would
		 * have taken now. */
		evloop_cancel(ctl_loop(s->ctl), &s->rate_timer);
		s->done_seq = evloop_reserve(ctl_loop(s->ctl));
		s->done_rearmed = false;
		defer = true;
	} else {
		compute_rates(s);
	}
	for (i = 0; i < n; i++) {
		struct flow *f = s->done[i];

		f->bpriv = NULL;
		ctl_flow_done(s->ctl, f);
	}
	if (defer && !evtimer_armed(&s->rate_timer)) {
		compute_rates_only(s);
		if (!s->done_rearmed)
			arm_done_seq(s, s->done_seq);
	}
}

static void compute_fire(struct evloop *l, struct evtimer *t)
{
	struct compute *c = (struct compute *)t;
	struct ctl *ctl = c->ctl;
	struct hyde_task *task = c->t;

	(void)l;
	free(c);
	ctl_compute_done(ctl, task);
}

static void port_fire(struct evloop *l, struct evtimer *t)
{
	struct port_timer *pt = (struct port_timer *)t;
	struct sim *s = pt->s;

	(void)l;
	if (s->out_of[pt->port] < 0)
		return;
	s->usable[pt->port] = true;
	if (s->ocs_cls) {
		struct sim_class *c;

		for (c = s->ocs_cls[(size_t)pt->port * s->R + (size_t)s->out_of[pt->port]]; c;
		     c = c->pnext) {
			if (c->tailing)
				tail_stop(s, c); /* the circuit takes over */
			if (q_ok(s, c))
				q_place(s, c); /* its VOQ first */
			else
				run_class(s, c); /* rate 0 until the rates are computed */
		}
	}
	rates_dirty_now(s);
	ctl_circuit_up(s->ctl, pt->port, (unsigned)s->out_of[pt->port]);
}

/* ---- backend ops ---- */

static void model_names(bool coflow, char *buf, size_t len);

/* The first option given that only max-min rates take, NULL if none. */
static const char *max_min_only(const struct sim_opts *o)
{
	return o->end_grid ? "end_grid" : o->burst ? "burst" : o->port_queue ? "port_queue"
	       : o->src_queue ? "src_queue" : o->share_jitter > 0 ? "share_jitter"
	       : o->join_drains > 0 ? "join_drains" : o->extra_full > 0 ? "extra_full"
	       : o->flow_jitter > 0 ? "flow_jitter" : o->join_share ? "join_share" : NULL;
}

/* The first option given that weighs flows or classes apart (which a
 * VOQ's feeder under src_queue is not), NULL if none. */
static const char *weights_flows(const struct sim_opts *o)
{
	return o->join_drains > 0 ? "join_drains" : o->extra_full > 0 ? "extra_full"
	       : o->flow_jitter > 0 ? "flow_jitter" : o->share_jitter > 0 ? "share_jitter" : NULL;
}

static int sim_init(struct backend *b, char *errbuf)
{
	struct sim *s = SIM(b);
	const struct topo *t = ctl_topo(b->ctl);
	const char *rates = s->opts.rates[0] ? s->opts.rates : NULL;
	const char *coflow = ctl_options(b->ctl)->coflow;
	const char *what;
	char names[96];
	const struct rate_model *m;
	uint64_t fastest = 1;
	size_t tab = 1024;
	unsigned i;

	if (coflow && !strcmp(coflow, "none"))
		coflow = NULL;
	for (m = rate_models; m->name; m++)
		if (coflow ? m->coflow && !strcmp(coflow, m->name)
			   : !m->coflow && (!rates || !strcmp(rates, m->name)))
			break;
	if (!m->name) {
		model_names(coflow != NULL, names, sizeof(names));
		errbuf_set(errbuf, "unknown %s model '%s' (expected %s)", coflow ? "coflow" : "rate",
			   coflow ? coflow : rates, names);
		return -EINVAL;
	}
	s->model = m;
	s->cf_alloc = m->coflow && !m->key;
	s->quantum = s->opts.rate_quantum;
	s->grid = s->opts.end_grid;
	if ((m->key || m->coflow) && (what = max_min_only(&s->opts))) {
		errbuf_set(errbuf, "%s: only with max-min rates (not '%s')", what, m->name);
		return -EINVAL;
	}
	if (s->opts.measured_setup) {
		const char *run = ctl_options(b->ctl)->replay;
		int64_t ns;
		size_t n;

		if (!run) {
			errbuf_set(errbuf, "measured_setup: only with --replay (the set-up the replayed run measured)");
			return -EINVAL;
		}
		if (rundir_first_byte(run, &ns, &n)) {
			if (ns <= 0) {
				errbuf_set(errbuf, "measured_setup: %s measured a set-up of %" PRId64 " ns: not a time to wait",
					   run, ns);
				return -EINVAL;
			}
			s->opts.setup = ns;
			s->setup_measured = true;
		} else if (s->opts.setup) {
			/* a run with no flow under 100 KB: the set-up given stands,
			 * said here (once: not in --replay's check of the run's
			 * files) and by the events.log's backend_options (no
			 * backend_derived line) */
			char tb[32];

			if (!ctl_options(b->ctl)->replay_check)
				fprintf(stderr, "hyde sim: measured_setup: %s measured no set-up (no flow under 100 KB): -B setup=%s stands\n",
					run, unit_human_time((double)s->opts.setup, tb, sizeof(tb)));
		} else {
			errbuf_set(errbuf, "measured_setup: %s has no measured set-up (summary.json's analysis.first_byte.under_100kb: an emulated run's with flows under 100 KB, from hyde analyze); give -B setup too, for the runs without one",
				   run);
			return -EINVAL;
		}
	}
	if (!strcmp(s->opts.fetch, "rack")) {
		if (ctl_options(b->ctl)->replay) {
			errbuf_set(errbuf, "fetch: not with --replay (the replayed run's flows are as it made them)");
			return -EINVAL;
		}
		ctl_set_fetch_rack(b->ctl);
	}
	if (s->opts.open_batch) {
		if (ctl_options(b->ctl)->replay) {
			errbuf_set(errbuf, "open_batch: not with --replay (the replayed run's flows are as it made them)");
			return -EINVAL;
		}
		ctl_set_open_batch(b->ctl);
	}
	if (!s->opts.flow_log) {
		if (ctl_options(b->ctl)->replay) {
			errbuf_set(errbuf, "flow_log: not with --replay (its flows.csv is what a replay is for)");
			return -EINVAL;
		}
		ctl_set_no_flow_log(b->ctl);
	}
	s->verify = getenv("HYDE_SIM_VERIFY") && strcmp(getenv("HYDE_SIM_VERIFY"), "0");
	s->ctl = b->ctl;
	s->t = t;
	s->H = topo_n_hosts(t);
	s->R = t->racks;
	s->L = 2 * s->H + 3 * s->R;
	/* the finest unit that keeps every capacity within 2^62 */
	if (t->host_rate > fastest)
		fastest = t->host_rate;
	if (t->uplink_rate > fastest)
		fastest = t->uplink_rate;
	if (t->has_ocs && t->ocs_rate > fastest)
		fastest = t->ocs_rate;
	if (s->opts.burst) /* a link bursting: BURST_X times its rate */
		fastest *= BURST_X;
	for (s->shift = 60; s->shift > 0; s->shift--)
		if ((unsigned __int128)fastest << s->shift <= (unsigned __int128)1000000000 << 62)
			break;
	s->tol = s->shift >= 20 ? (i128)1 << (s->shift - 20) : 1;
	s->cap = xcalloc(s->L, sizeof(uint64_t));
	for (i = 0; i < s->L; i++) {
		uint64_t bps = i < 2 * s->H ? t->host_rate
			       : i < 2 * s->H + 2 * s->R ? t->uplink_rate
			       : t->has_ocs ? t->ocs_rate : 0;

		if (s->opts.payload > 0) /* what carries bytes: a share of the frames */
			bps = (uint64_t)((double)bps * s->opts.payload);
		s->cap[i] = (uint64_t)(((unsigned __int128)bps << s->shift) / 1000000000);
	}
	if (s->opts.burst) {
		double pf = s->opts.payload > 0 ? s->opts.payload : 1;
		uint64_t *burst_cap = xcalloc(s->L, sizeof(uint64_t));

		s->bkt = xcalloc(s->L, sizeof(i128));
		s->bkt_max = xcalloc(s->L, sizeof(i128));
		s->bkt_load = xcalloc(s->L, sizeof(uint64_t));
		s->bursting = xcalloc(s->L, sizeof(bool));
		/* a bucket counts frames' bytes; the links' capacities carry
		 * payload: it holds pf of them */
		s->bkt_frame = (i128)llround(1514 * 8 * pf) << s->shift;
		for (i = 0; i < s->L; i++) {
			uint64_t bps = i < 2 * s->H ? t->host_rate : t->uplink_rate;

			burst_cap[i] = s->cap[i];
			if (i >= 2 * s->H + 2 * s->R || !s->cap[i])
				continue; /* a circuit, or no link */
			/* full at the start, as HTB's */
			s->bkt_max[i] = s->bkt[i] =
				(i128)llround((double)topo_shaper_burst(bps) * 8 * pf) << s->shift;
			s->bursting[i] = true;
			burst_cap[i] = s->cap[i] * BURST_X;
		}
		evtimer_init(&s->burst_timer, burst_fire);
		s->mm = mm_new(s->L, burst_cap);
		free(burst_cap);
	} else
		s->mm = mm_new(s->L, s->cap);
	s->left = xcalloc(s->L + 1, sizeof(uint64_t));
	s->lbits = xcalloc(s->L + s->R, sizeof(i128));
	s->lb_bits = xcalloc(s->L + s->R, sizeof(i128));
	s->lb_bytes = xcalloc(s->L + s->R, sizeof(uint64_t));
	while (tab < 4 * (size_t)s->H)
		tab *= 2;
	s->tab = xcalloc(tab, sizeof(*s->tab));
	s->tab_mask = tab - 1;
	s->out_of = xcalloc(s->R, sizeof(int32_t));
	if (!per_flow(m))
		s->ocs_cls = xcalloc((size_t)s->R * s->R, sizeof(*s->ocs_cls));
	if (m->coflow) {
		s->cf = xcalloc(ctl_cluster(b->ctl)->n_jobs * HYDE_FLOW_KINDS + 1, sizeof(*s->cf));
		s->fcap = xcalloc(s->L, sizeof(double));
		for (i = 0; i < s->L; i++) /* as the floating-point model had them */
			s->fcap[i] = (i < 2 * s->H ? (double)t->host_rate / 1e9
				      : i < 2 * s->H + 2 * s->R ? (double)t->uplink_rate / 1e9
				      : t->has_ocs ? (double)t->ocs_rate / 1e9 : 0) *
				     (s->opts.payload > 0 ? s->opts.payload : 1);
	}
	s->usable = xcalloc(s->R, sizeof(bool));
	s->pt = xcalloc(s->R, sizeof(*s->pt));
	for (i = 0; i < s->R; i++) {
		s->out_of[i] = -1;
		evtimer_init(&s->pt[i].tm, port_fire);
		s->pt[i].s = s;
		s->pt[i].port = i;
	}
	if (s->opts.port_queue && t->has_ocs && t->host_rate) {
		s->tail_ns = (int64_t)((unsigned __int128)topo_port_queue(t->host_rate) * 8 *
				       1000000000 / t->host_rate);
		s->port_full = xcalloc(s->H, sizeof(bool));
	}
	if (s->opts.extra_full > 0)
		s->lfull = xcalloc(s->L, sizeof(bool));
	if (s->opts.join_drains > 0) { /* an EPS path's slowest link's queue */
		uint64_t r = t->uplink_rate < t->host_rate ? t->uplink_rate : t->host_rate;
		double d;

		if (!t->has_eps) {
			errbuf_set(errbuf, "join_drains: only with an EPS (the classes it holds back cross racks over it; %s has none)",
				   t->name);
			return -EINVAL;
		}
		d = s->opts.join_drains * (double)topo_port_queue(r) * 8 * 1e9 / (double)r;
		/* (longer than any run: its sum with a time stays in range) */
		s->jdur = d < 1e15 ? llround(d) : (int64_t)1e15;
	}
	if (s->opts.src_queue && t->has_ocs) {
		double pf = s->opts.payload > 0 ? s->opts.payload : 1;

		/* (in payload bits, as the links' capacities are) */
		s->qf = (i128)llround((double)s->opts.src_queue * 8 * pf) << s->shift;
	}
	evtimer_init(&s->tail_timer, tail_fire);
	evtimer_init(&s->share_timer, share_fire);
	evtimer_init(&s->join_timer, join_fire);
	evtimer_init(&s->q_timer, q_fire);
	evtimer_init(&s->done_timer, done_fire);
	evtimer_init(&s->rate_timer, rate_fire);
	evtimer_init(&s->cross_timer, cross_fire);
	s->last_cross = INT64_MIN / 2;
	return 0;
}

static void setup_fire(struct evloop *l, struct evtimer *t);

/* A run stopped before its end (its --horizon, an interrupt) leaves the
 * simulator's timers queued: out of the loop before their memory goes,
 * and the tasks' compute timers (the simulator's own) freed. */
static void sim_timers_drop(struct evloop *l)
{
	struct evtimer **mine = NULL;
	size_t n = 0, cap = 0, i;

	for (i = 0; i < evq_len(&l->q); i++) {
		struct evtimer *t = (struct evtimer *)l->q.heap[i];

		if (t->cb == compute_fire || t->cb == port_fire || t->cb == done_fire ||
		    t->cb == rate_fire || t->cb == cross_fire || t->cb == setup_fire ||
		    t->cb == burst_fire || t->cb == tail_fire || t->cb == q_fire ||
		    t->cb == share_fire || t->cb == join_fire) {
			xgrow((void **)&mine, &cap, n + 1, sizeof(*mine));
			mine[n++] = t;
		}
	}
	for (i = 0; i < n; i++) {
		evloop_cancel(l, mine[i]);
		if (mine[i]->cb == compute_fire)
			free(mine[i]);
	}
	free(mine);
}

static void sim_destroy(struct backend *b)
{
	struct sim *s = SIM(b);
	size_t i, k;

	if (!s->ctl)
		return;
	sim_timers_drop(b->loop);
	/* a tail's class goes as it is (its end would arm the timer again) */
	for (i = 0; i < s->n_tails; i++)
		s->tails[i]->tailing = false;
	s->n_tails = 0;
	if (getenv("HYDE_SIM_STATS")) {
		struct mm_stats st;

		mm_get_stats(s->mm, &st);
		fprintf(stderr, "sim: %llu rate computations, %.1f active classes on average; %llu solves: %.1f links swept, %.1f classes examined, %.1f re-levelled per solve\n",
			(unsigned long long)s->recomputes,
			s->recomputes ? (double)s->cls_sum / (double)s->recomputes : 0.0,
			(unsigned long long)st.solves,
			st.solves ? (double)st.links_swept / (double)st.solves : 0.0,
			st.solves ? (double)st.classes_examined / (double)st.solves : 0.0,
			st.solves ? (double)st.classes_changed / (double)st.solves : 0.0);
	}
	while (s->n_act) {
		struct sim_class *c = s->act[0];

		for (k = 0; k < c->n; k++) {
			c->h[k]->f->bpriv = NULL;
			free(c->h[k]);
		}
		c->n = 0;
		c->wsum = 0;
		class_release(s, c);
	}
	for (i = 0; i < s->n_local; i++) {
		s->local[i]->f->bpriv = NULL;
		free(s->local[i]);
	}
	while (s->pending) {
		struct sim_flow *sf = s->pending;

		s->pending = sf->pnext;
		evloop_cancel(b->loop, &sf->setup_tm);
		sf->f->bpriv = NULL;
		free(sf);
	}
	mm_free(s->mm);
	free(s->local);
	free(s->done);
	free(s->dues);
	free(s->act);
	free(s->ocs_cls);
	free(s->cheap);
	free(s->tab);
	free(s->cap);
	free(s->left);
	free(s->olv);
	free(s->grp);
	free(s->keyed);
	free(s->lbits);
	free(s->lb_bits);
	free(s->lb_bytes);
	free(s->out_of);
	free(s->usable);
	free(s->pt);
	free(s->cf);
	free(s->fcap);
	free(s->nsf);
	free(s->who);
	free(s->cfs);
	free(s->frate);
	free(s->bkt);
	free(s->bkt_max);
	free(s->bkt_load);
	free(s->bursting);
	free(s->tails);
	free(s->port_full);
	free(s->lfull);
	free(s->qcls);
	while (s->spare) {
		struct sim_flow *sf = s->spare;

		s->spare = sf->pnext;
		free(sf);
	}
	while (s->spare_cls) {
		struct sim_class *c = s->spare_cls;

		s->spare_cls = c->hnext;
		free(c->h);
		free(c);
	}
	/* the state is the controller's to free; the options stay */
	memset((char *)s + sizeof(s->opts), 0, sizeof(*s) - sizeof(s->opts));
}

static int sim_task_noop(struct backend *b, struct hyde_task *t)
{
	(void)b;
	(void)t;
	return 0;
}

/* -B task_jitter: this task's draw, in [0, task_jitter) */
static int64_t task_jitter(const struct sim *s, const struct hyde_task *t)
{
	uint64_t k;

	if (s->opts.task_jitter <= 0)
		return 0;
	k = s->opts.jitter_seed;
	k = splitmix64(&k) ^ ((uint64_t)t->job << 33) ^ ((uint64_t)t->kind << 32) ^ t->idx;
	return (int64_t)(splitmix64(&k) % (uint64_t)s->opts.task_jitter);
}

static int sim_task_compute(struct backend *b, struct hyde_task *t, int64_t duration)
{
	struct compute *c = xcalloc(1, sizeof(*c));
	const struct sim *s = SIM(b);

	evtimer_init(&c->tm, compute_fire);
	c->t = t;
	c->ctl = b->ctl;
	evloop_at(b->loop, &c->tm,
		  ctl_now(b->ctl) + duration + s->opts.task_overhead + task_jitter(s, t));
	return 0;
}

/* The flow's bytes start moving: it joins its class (or, on one host, is
 * done at once). */
static void flow_join(struct sim *s, struct sim_flow *sf)
{
	struct flow *f = sf->f;
	struct sim_class *c;

	if (f->path == PATH_HOST || f->bytes == 0) {
		/* one host: no network; done now, after the caller returns */
		xgrow((void **)&s->local, &s->cap_local, s->n_local + 1, sizeof(*s->local));
		s->local[s->n_local++] = sf;
		arm_done(s);
		return;
	}
	c = class_get(s, f);
	touch(s, c);
	sf->cl = c;
	sf->w = flow_weight(s, f);
	/* its bits / its weight, rounded up (ends no earlier than exactly) */
	sf->finish = c->vt + (i128)u128_div_up((unsigned __int128)f->bytes << (s->shift + 3), sf->w);
	if (s->cf) {
		struct sim_coflow *cf = &s->cf[(size_t)f->job * HYDE_FLOW_KINDS + f->kind];

		if (cf->bits == 0) /* its job's arrival, then input, shuffle, output */
			cf->arrival = (double)ctl_cluster(s->ctl)->jobs[f->job].arrival +
				      0.25 * (double)f->kind;
		cf->bits += 8.0 * (double)f->bytes;
		c->cf = cf;
	}
	if (c->tailing) /* its bytes have not crossed the circuit */
		tail_stop(s, c);
	mh_push(c, sf);
	if (c->feeding) /* (-B src_queue) */
		mm_set_n(s->mm, &c->fm, c->n);
	if (c->running)
		mm_set_n(s->mm, &c->m, class_n(c));
	else if (q_ok(s, c))
		q_place(s, c); /* its circuit down: into the VOQ */
	else
		run_class(s, c);
	/* -B join_share: a new class need not wait for the quantum's next
	 * computation (it is touched: its rate starts now), and its first
	 * member may end before it */
	if (s->opts.join_share && c->running && !c->rate) {
		c->rate = mm_provisional(s->mm, &c->m) * c->w;
		arm(s, c);
		arm_done(s);
	} else {
		/* (no member ends before the rates are computed, at this
		 * instant) */
		arm(s, c);
	}
	rates_dirty(s);
}

/* -B setup: the connection is up, the bytes go. */
static void setup_fire(struct evloop *l, struct evtimer *t)
{
	struct sim_flow *sf = (struct sim_flow *)((char *)t - offsetof(struct sim_flow, setup_tm));
	struct sim *s = sf->s;

	(void)l;
	sf->pending = false;
	if (sf->pprev)
		sf->pprev->pnext = sf->pnext;
	else
		s->pending = sf->pnext;
	if (sf->pnext)
		sf->pnext->pprev = sf->pprev;
	sf->pnext = sf->pprev = NULL;
	flow_join(s, sf);
}

static int sim_flow_start(struct backend *b, struct flow *f)
{
	struct sim *s = SIM(b);
	struct sim_flow *sf = sf_new(s);

	sf->f = f;
	sf->s = s;
	f->bpriv = sf;
	s->n_flows++;
	if (s->opts.setup > 0) {
		sf->pending = true;
		sf->pnext = s->pending;
		if (s->pending)
			s->pending->pprev = sf;
		s->pending = sf;
		evtimer_init(&sf->setup_tm, setup_fire);
		evloop_at(b->loop, &sf->setup_tm, ctl_now(b->ctl) + s->opts.setup);
		return 0;
	}
	flow_join(s, sf);
	return 0;
}

static int sim_ocs_set(struct backend *b, const int32_t *out_of)
{
	struct sim *s = SIM(b);
	int64_t now = ctl_now(b->ctl);
	bool changed = false;
	int32_t old;
	unsigned i;

	for (i = 0; i < s->R; i++) {
		if (s->out_of[i] == out_of[i])
			continue; /* unchanged circuits keep sending */
		if (s->ocs_cls && s->out_of[i] >= 0) {
			struct sim_class *c;

			for (c = s->ocs_cls[(size_t)i * s->R + (size_t)s->out_of[i]]; c; c = c->pnext) {
				if (c->tailing)
					continue; /* its circuit went down before */
				if (c->qph != Q_NONE) { /* its VOQ waits (q_place below) */
					touch(s, c);
					account(s, c);
					q_feed(s, c, false);
					c->qph = Q_FULL;
					c->q_at = INT64_MAX;
				}
				if (s->port_full && c->running && s->port_full[c->dst])
					tail_start(s, c);
				else
					stop_class(s, c);
			}
		}
		old = s->out_of[i];
		s->out_of[i] = out_of[i];
		s->usable[i] = false;
		if (s->qf && s->ocs_cls && old >= 0) { /* -B src_queue: into the VOQ */
			struct sim_class *c;

			for (c = s->ocs_cls[(size_t)i * s->R + (size_t)old]; c; c = c->pnext)
				q_place(s, c);
		}
		changed = true;
		if (out_of[i] >= 0)
			evloop_at(b->loop, &s->pt[i].tm, now + s->t->delta);
		else
			evloop_cancel(b->loop, &s->pt[i].tm);
	}
	if (changed)
		rates_dirty_now(s);
	return 0;
}

static uint64_t sim_flow_remaining(struct backend *b, struct flow *f)
{
	struct sim *s = SIM(b);
	struct sim_flow *sf = f->bpriv;
	const struct sim_class *c;
	i128 rem;

	if (sf && sf->pending)
		return f->bytes; /* (still setting up) */
	if (!sf || !sf->cl)
		return 0;
	c = sf->cl;
	rem = (sf->finish - c->vt - (i128)c->rate * (ctl_now(s->ctl) - c->t_vt)) * (i128)sf->w;
	if (rem <= 0)
		return 0;
	return (uint64_t)((rem + ((i128)8 << s->shift) - 1) >> (s->shift + 3));
}

/* flow_remaining of n flows, their flows' records, the fluid model's,
 * then their classes asked of memory a block at a time before any is read
 * (a snapshot of a host's flows in: each of them elsewhere) */
#define SIM_REM_BLOCK 16
static void sim_flows_remaining(struct backend *b, struct flow *const *f, size_t n, uint64_t *left)
{
	size_t i, k, m;

	for (i = 0; i < n; i += m) {
		m = n - i < SIM_REM_BLOCK ? n - i : SIM_REM_BLOCK;
		for (k = 0; k < m; k++)
			__builtin_prefetch(&f[i + k]->bpriv);
		for (k = 0; k < m; k++)
			__builtin_prefetch(f[i + k]->bpriv);
		for (k = 0; k < m; k++) {
			const struct sim_flow *sf = f[i + k]->bpriv;

			if (sf)
				__builtin_prefetch(sf->cl);
		}
		for (k = 0; k < m; k++)
			left[i + k] = sim_flow_remaining(b, f[i + k]);
	}
}

static int64_t sim_link_bytes(struct backend *b, uint64_t *bytes)
{
	struct sim *s = SIM(b);
	i128 byte = (i128)8 << s->shift;
	size_t i;

	for (i = 0; i < s->n_act; i++) {
		touch(s, s->act[i]);
		account(s, s->act[i]);
	}
	for (i = 0; i < s->L + s->R; i++) { /* (a 128-bit division: only for a link that moved) */
		if (s->lbits[i] != s->lb_bits[i]) {
			s->lb_bits[i] = s->lbits[i];
			s->lb_bytes[i] = (uint64_t)((s->lbits[i] + byte / 2) / byte);
		}
		bytes[i] = s->lb_bytes[i];
	}
	return -1;
}

/* What it took for itself: -B measured_setup's set-up. */
static void sim_derived(struct backend *b, char *buf, size_t len)
{
	struct sim *s = SIM(b);

	if (s->setup_measured)
		snprintf(buf, len, "setup=%" PRId64 "ns", s->opts.setup);
}

static void sim_progress(struct backend *b, char *buf, size_t len)
{
	struct sim *s = SIM(b);

	snprintf(buf, len, "flows %zu active in %zu classes", s->n_flows, s->n_act);
}

/* ---- options ---- */

/* The models' names, from the table: "maxmin, fcfs, srpt or las" */
static void model_names(bool coflow, char *buf, size_t len)
{
	const struct rate_model *m;
	size_t n = 0, k = 0;

	for (m = rate_models; m->name; m++)
		n += !m->coflow != coflow;
	buf[0] = '\0';
	for (m = rate_models; m->name; m++) {
		if (!m->coflow == coflow)
			continue;
		k++;
		strncat(buf, k == 1 ? "" : k == n ? " or " : ", ", len - strlen(buf) - 1);
		strncat(buf, m->name, len - strlen(buf) - 1);
	}
}

static const struct rate_model *flow_model(const char *name)
{
	const struct rate_model *m;

	for (m = rate_models; m->name; m++)
		if (!m->coflow && !strcmp(m->name, name))
			return m;
	return NULL;
}

static const struct opt_desc sim_opts[] = {
	OPT(sim_opts, rates, O_STR, 0, sizeof(((struct sim_opts *)0)->rates),
	    "flow rate model (--rates lists them; default: --net's)"),
	OPT(sim_opts, rate_quantum, O_TIME, 0, 0,
	    "recompute rates at most once per this (0: at every change, exact)"),
	OPT(sim_opts, payload, O_DOUBLE, 0, 1,
	    "share of each link's rate that carries bytes (0: all; 0.956: 1448 in 1514-byte frames)"),
	OPT(sim_opts, setup, O_TIME, 0, 0,
	    "a flow's bytes start moving this long after it starts (a connection's set-up, request and reply: hyde analyze's first byte)"),
	OPT(sim_opts, measured_setup, O_BOOL, 0, 0,
	    "with --replay: setup is the replayed run's own, as it measured it, in place of any setup given (hyde analyze: its flows under 100 KB, SYN to first data byte, median; hyde fidelity's Set-up line), which moves with the box's load"),
	OPT(sim_opts, task_overhead, O_TIME, 0, 0,
	    "a task's work ends this long after its nominal time (an emulated task's start and report)"),
	OPT(sim_opts, task_jitter, O_TIME, 0, 0,
	    "and a further draw in [0, this) later, fixed per task by jitter_seed (0: none): runs of several seeds say how far one run's decisions can move"),
	OPT(sim_opts, share_jitter, O_DOUBLE, 0, 16,
	    "each host pair's flows get a weight drawn from [1, 1 + this) by jitter_seed, and max-min is weighted by it, as TCP shares a link unevenly (0: evenly)"),
	OPT(sim_opts, share_period, O_TIME, 0, 0,
	    "and drawn anew for every host pair at each multiple of this (0: once per host pair while it has flows), so that a long flow's share averages out as a long TCP connection's does"),
	OPT(sim_opts, join_drains, O_DOUBLE, 0, 1e6,
	    "for this many drains of its bottleneck's queue after a host pair's flows across racks over the EPS start, they weigh join_weight of a flow in the max-min share, as a TCP connection joining a full link gets little at first (0: off; 57 fits the emulator's: 3 s on a 40 Mbit/s link, 1.2 s on 100 Mbit/s)"),
	OPT(sim_opts, join_weight, O_DOUBLE, 0, 1,
	    "a joining host pair's weight under join_drains (0: 0.2)"),
	OPT(sim_opts, extra_full, O_DOUBLE, 0, 1,
	    "a host pair's flows weigh this (of a flow) in the max-min share for each full link on their path beyond the first, as TCP gives a connection behind two full queues less than an even share at each (0: off)"),
	OPT(sim_opts, flow_jitter, O_DOUBLE, 0, 16,
	    "each flow gets a weight drawn once from [1, 1 + this) by jitter_seed, and the flows of one host pair share their pair's rate by it, as TCP shares a pair's parallel connections unevenly (0: evenly)"),
	OPT(sim_opts, jitter_seed, O_U64, 0, 1e18, "the seed of task_jitter's, share_jitter's and flow_jitter's draws (apart from --seed: the same blocks and placements' ties)"),
	OPT(sim_opts, end_grid, O_TIME, 0, 0,
	    "a flow ends at the nearest multiple of this (0: exactly; up to half of it early or late)"),
	OPT(sim_opts, port_queue, O_BOOL, 0, 0,
	    "after a circuit goes down its flows still get what the destination port queued (5 ms of its rate, at least 256 KiB)"),
	OPT(sim_opts, src_queue, O_SIZE, 0, 1024.0 * 1024 * 1024,
	    "while its circuit is down an OCS flow still sends up to this into the crossbar's VOQ (its TCP window), which crosses without its source's link when the circuit is up (0: nothing)"),
	OPT(sim_opts, burst, O_BOOL, 0, 0,
	    "an idle link sends its token bucket at once, as the emulator's HTB (rate x 10 ms, at least 64 KiB; circuits none)"),
	OPT(sim_opts, fetch, O_STR, 0, sizeof(((struct sim_opts *)0)->fetch),
	    "host: a reduce fetches from each host with outputs (default); rack: from each rack, a coarser model with fewer flows"),
	OPT(sim_opts, open_batch, O_BOOL, 0, 0,
	    "at a reduce's opening, the outputs already done on one host (one rack, with fetch=rack) go in one fetch, also where its circuit is up or a copy is free; no (default): each starts a fetch of its own as it is offered while one can start, a fetch per output on an up circuit (a coarser model with fewer flows)"),
	OPT(sim_opts, join_share, O_BOOL, 0, 0,
	    "with --rate-quantum: a host pair's flows that start while none of its others move run at once, until the next computation, at what their links have left (no more than the share each gave in the last one) instead of waiting for it (a trade, off by default)"),
	OPT(sim_opts, flow_log, O_BOOL, 0, 0,
	    "flows.csv and each flow's start and end in events.log; no: neither (every other file, and every figure, the same), for runs whose flow files would fill the disk (paper60 x 1000 FB jobs at scale 1: 3.2 GB); hyde compare takes the OCS share from summary.json then (hyde fidelity and timelines need the flow files; not with --replay)"),
};

static void sim_opts_default(void *priv)
{
	((struct sim_opts *)priv)->flow_log = true;
}

static int sim_opts_check(const void *priv, char *errbuf)
{
	const struct sim_opts *o = priv;
	const char *what;
	char names[96];

	if (o->fetch[0] && strcmp(o->fetch, "host") && strcmp(o->fetch, "rack")) {
		errbuf_set(errbuf, "fetch: expected host or rack, got '%s'", o->fetch);
		return -EINVAL;
	}
	if (o->rates[0] && !flow_model(o->rates)) {
		model_names(false, names, sizeof(names));
		errbuf_set(errbuf, "rates: expected %s, got '%s'", names, o->rates);
		return -EINVAL;
	}
	/* (as sim_init says it, for a model --net or --coflow gives) */
	if (o->rates[0] && flow_model(o->rates)->key && (what = max_min_only(o))) {
		errbuf_set(errbuf, "%s: only with max-min rates (not '%s')", what, o->rates);
		return -EINVAL;
	}
	if (o->share_period && !(o->share_jitter > 0)) {
		errbuf_set(errbuf, "share_period: only with share_jitter (the weights it draws anew)");
		return -EINVAL;
	}
	if (o->join_share && !o->rate_quantum) {
		errbuf_set(errbuf, "join_share: only with --rate-quantum (without one, every class's rate is computed when it starts)");
		return -EINVAL;
	}
	if (o->join_weight > 0 && !(o->join_drains > 0)) {
		errbuf_set(errbuf, "join_weight: only with join_drains (how long it holds)");
		return -EINVAL;
	}
	if (o->src_queue && (what = weights_flows(o))) {
		errbuf_set(errbuf, "%s: not with src_queue (%s)", what,
			   strcmp(what, "flow_jitter") ? "a VOQ's feeder is not weighted"
						       : "a VOQ's shares are its flows' alike");
		return -EINVAL;
	}
	return 0;
}

/* what the flows' rates follow, for the schedulers (maxmin is fair) */
static int sim_net_policy(const void *priv)
{
	const struct sim_opts *o = priv;

	return o->rates[0] ? netsched_net_parse(o->rates) : -1;
}

const struct backend_ops backend_sim = {
	.name = "sim",
	.priv_size = sizeof(struct sim),
	.clock = EVLOOP_VIRTUAL,
	.init = sim_init,
	.destroy = sim_destroy,
	.task_start = sim_task_noop,
	.task_compute = sim_task_compute,
	.task_end = sim_task_noop,
	.flow_start = sim_flow_start,
	.ocs_set = sim_ocs_set,
	.flow_remaining = sim_flow_remaining,
	.flows_remaining = sim_flows_remaining,
	.derived = sim_derived,
	.link_bytes = sim_link_bytes,
	.progress = sim_progress,
	.opts = sim_opts,
	.n_opts = sizeof(sim_opts) / sizeof(sim_opts[0]),
	.defaults = sim_opts_default,
	.check = sim_opts_check,
	.net_policy = sim_net_policy,
};
