/* nas: NAS, the network-aware scheduler (Li, Shen, Sarker; [NAS],
 * §III), every mechanism; the pure rules are in nas_policy.c (nas.h):
 *
 * - Shuffle predictor (§III-A, eq. 1): MapOutput = ratio x MapInput, the
 *   ratio the job's finished maps' output over their input (1.0 until one
 *   is done: an "unpredicted" job). oracle=yes: every job is "predicted"
 *   with its true ratio, shuffle / input, from the start.
 * - Alg. 1: a map request goes to MTS; a reduce request to CA-RTS while
 *   the requesting rack's NetState is under `congestion` (0.8, §IV-A),
 *   else to CR-RTS. NetState is max(uplink, downlink) utilisation of the
 *   rack's EPS link over the network view's last interval (one heartbeat
 *   period); 0 without an EPS.
 * - MTS (Alg. 2, §III-C): TrafficThreshold TT = m sum(S_i) / sum(K_i)
 *   over the jobs in the cluster (eq. 2-3, S_i predicted), recomputed at
 *   each request; a node's available space is TT less the predicted output
 *   of the maps running on it; users in fair order with per-user skip
 *   counters up to D^m = 135; the four categories, MapCost = gamma x input,
 *   ties by the output closest to the space left.
 * - CA-RTS (Alg. 3, eq. 4): ReduceNum(job, R_i) = reduces x the rack's
 *   map-output portion; the six levels; delayed, then maps all done, then
 *   the larger shuffle inside a level.
 * - CR-RTS (Alg. 4): users in fair order, per-user skip counters up to
 *   D^r = 135: a shuffle-light job's reduce, or the user is skipped; the
 *   medium and heavy jobs' reduces of the users it visits are marked
 *   delayed (CA-RTS serves them first later); MTS places no medium/heavy
 *   map on that rack until its NetState is under the threshold again.
 *
 * Where the paper is ambiguous, this file chooses:
 * - Request type. Alg. 1 assumes a node asks for a map or a reduce; a
 *   hyde container is generic. The rule, the same as fair's and delay's
 *   (and shufflewatcher's): the first job in fair order that has work for
 *   the container decides: if it has a pending map the container is a map
 *   request, else a reduce request; when that path places nothing, the
 *   other path is tried. A job's reduces are placed, as in fair and delay,
 *   once its slowstart fraction of maps is done AND all its maps have
 *   started (reduces holding the containers that their job's waiting maps
 *   need can hold every container: Hadoop avoids that with reduce
 *   preemption, which hyde does not model). So "map completion threshold"
 *   is slowstart plus every map started, and MapProgressRate = 100% means
 *   every map done.
 * - Available space counts the maps RUNNING on the node (their predicted
 *   output as predicted when each was placed): a finished map's output is
 *   no longer "being generated" in this wave. It may be negative.
 * - Skip counters are per user (the pseudo-code's D_i), for maps and
 *   reduces apart. A map counter is reset only on a data-local qualified
 *   launch (delay scheduling's rule); at D^m the user keeps launching
 *   without locality until it launches locally again. The same for D^r:
 *   reset on a shuffle-light launch only. counters=job gives each job
 *   its own turn and counters instead (delay scheduling's): an ablation,
 *   not the paper's. Per user, a user's job that has a node-local map
 *   launches it and resets the user's counter, so the user's job first in
 *   fair order, without one, waits for its blocks' hosts.
 * - wait=TIME: the real cluster's form (§IV-A: "rather than using the
 *   maximum skip count D^m and D^r, we set a maximum wait time of 5
 *   seconds"): a user may launch without a qualified map once it has
 *   waited that long since it was first skipped; the same resets
 *   (nas_wait_counters, nas_wait_update).
 * - Alg. 2 lines 13-16 apply per user, as the pseudo-code has them (the
 *   prose says "from all the users"): the user at D^m without a qualified
 *   map launches its data-local map with the smallest output, else its
 *   smallest-output map.
 * - Each job offers MTS its best-locality pending map on the node (maps of
 *   a job have equal input blocks in hyde's workloads).
 * - CA-RTS's map-output portion: finished maps' actual output plus the
 *   running maps' predicted output on the rack, over the same on the
 *   cluster (1 / racks when the job has none); the reduces "on the rack"
 *   are those placed there (running or done); "under" compares reals.
 * - CA-RTS's order of users and levels (Alg. 3 line 1 "select a user",
 *   then its levels): read literally, only the first user in fair order is
 *   served, and with one job per user (200 users, §IV-A) ReduceNum never
 *   changes which job a rack gets, so CA-RTS could not do what §III-D
 *   says it does (place a job's reduces where its map output is). The
 *   default, ca_order=levels, searches each level over every user in fair
 *   order (delayed, then maps all done, then the user first in fair order,
 *   then the larger shuffle); ca_order=users is the literal reading.
 *   With generic containers the default has a cost the paper's separate
 *   map and reduce slots do not: a request is a reduce request when the
 *   job first in fair order has only reduces pending, and CA-RTS then
 *   places a heavy job's reduce (level 0, any user) rather than that
 *   job's, which stays first, so the next request is a reduce request
 *   again: maps wait while any heavy job has reduces under its ReduceNum.
 *   On the FB-2010 trace's first 4,000 jobs, w/o both (tt=no cr_rts=no)
 *   waits 754 s for its first task with levels and 70 s with users (Fair
 *   74 s); repro/nas/RESULTS.md has the ablation.
 *   CR-RTS visits users in order (Alg. 4).
 * - Delayed tags: a job's pending reduces are interchangeable in hyde, so
 *   a job keeps a count of delayed reduces (set to its pending reduces
 *   when CR-RTS marks it, minus one per reduce placed).
 * - The CR-RTS notice to MTS is per rack: set when CR-RTS serves a
 *   reduce request from the rack (some job has a reduce for it), cleared
 *   when that rack's NetState is under the threshold at a request from
 *   it. It holds back medium/heavy maps in MTS (lines 3-16) on that rack.
 * - Shuffle classes and TT use the predicted shuffle S = ratio x input.
 *
 * Ablations (§IV-B, Fig. 3): MTS alone: ca_rts=no cr_rts=no (reduces then
 * go to the first job in fair order, as in delay); MTS + CA-RTS:
 * cr_rts=no; w/o TT: tt=no (every map is shuffle-qualified); "w/o both"
 * (Fig. 3(g)) is read as without TT and without CR-RTS: tt=no cr_rts=no;
 * all: the defaults. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hyde/sched.h>

#include "core/log.h"
#include "core/util.h"
#include "sched/nas.h"

struct nas_opts {
	double congestion;
	uint32_t d_m, d_r;
	int64_t wait; /* > 0: the wait form of the counters */
	uint64_t small_input, light, heavy;
	bool oracle, tt, ca_rts, cr_rts;
	char ca_order[8]; /* levels | users */
	char counters[8]; /* user | job */
};

struct nas_job {
	double in_done, out_done; /* of its finished maps: the ratio */
	uint32_t n_done;	  /* maps counted */
	uint32_t delayed;	  /* reduces marked delayed by CR-RTS */
	float *map_out;		  /* predicted output of each placed map */
	uint32_t run_lo;	  /* once no map is pending: none below runs */
};

struct nas_priv {
	struct nas_opts o; /* first: opts[] offsets are relative to it */
	uint32_t *order;
	unsigned *user_running;
	unsigned *user_rank; /* per user: position in this request's fair order */
	unsigned *rank_user;
	unsigned *skip_m, *skip_r; /* per user: D_i^m, D_i^r */
	int64_t *since_m, *since_r; /* per user, wait form: skipped since (-1 no) */
	unsigned *rank_skip, *rank_before;
	int64_t *rank_since;
	struct nas_job *jobs;
	double *host_out;   /* predicted output of the maps running there */
	bool *rack_cr;	    /* CR-RTS told MTS to hold medium/heavy maps */
	bool ca_levels_first;
	bool by_job; /* counters=job: each job its own "user" */
	struct nas_map_cand *mc;
	struct nas_red_cand *rc;
	uint32_t *cand_job;
	unsigned *rank_of; /* per candidate: its user's rank */
	uint64_t *key;
	void *tmp;
	uint32_t *tmpj;
	uint64_t *per_rack;
	double *rack_pred;
	double *rack_check; /* (verify) */
	bool verify;	    /* HYDE_SIM_VERIFY: eq. (4)'s sums checked */
	double tt;
	int64_t tt_at;
	/* what ran: for the log */
	uint64_t n_mts[4], n_ca, n_cr, n_plain_reduce;
	uint64_t n_ca_choice, n_ca_other; /* CA-RTS with > 1 job; not the fair-order first */
	uint64_t n_held;		   /* map offers a job lost to CR-RTS's notice */
};

static const struct hyde_opt nas_opts[] = {
	{ "congestion", HYDE_OPT_DOUBLE, offsetof(struct nas_opts, congestion), 0, 10,
	  "CongestionThreshold: a rack's EPS utilisation from which reduces go to CR-RTS" },
	{ "dm", HYDE_OPT_U32, offsetof(struct nas_opts, d_m), 0, 1e9,
	  "D^m: times a user is skipped by MTS before it may launch without locality" },
	{ "dr", HYDE_OPT_U32, offsetof(struct nas_opts, d_r), 0, 1e9,
	  "D^r: times a user is skipped by CR-RTS before it may launch any reduce" },
	{ "wait", HYDE_OPT_TIME, offsetof(struct nas_opts, wait), 0, 1e15,
	  "if set: a user is skipped at most this long (the real cluster's 5s) instead of dm/dr times" },
	{ "small_input", HYDE_OPT_SIZE, offsetof(struct nas_opts, small_input), 0, 1e18,
	  "input under which a job is small-input (MTS categories)" },
	{ "light", HYDE_OPT_SIZE, offsetof(struct nas_opts, light), 0, 1e18,
	  "shuffle under which a job is shuffle-light" },
	{ "heavy", HYDE_OPT_SIZE, offsetof(struct nas_opts, heavy), 0, 1e18,
	  "shuffle over which a job is shuffle-heavy" },
	{ "oracle", HYDE_OPT_BOOL, offsetof(struct nas_opts, oracle), 0, 1,
	  "every job predicted with its true output ratio" },
	{ "tt", HYDE_OPT_BOOL, offsetof(struct nas_opts, tt), 0, 1,
	  "MTS keeps each node's map output under TrafficThreshold (no: w/o TT)" },
	{ "ca_rts", HYDE_OPT_BOOL, offsetof(struct nas_opts, ca_rts), 0, 1,
	  "CA-RTS places reduces (no: the first job in fair order)" },
	{ "cr_rts", HYDE_OPT_BOOL, offsetof(struct nas_opts, cr_rts), 0, 1,
	  "CR-RTS when the rack is congested (no: never)" },
	{ "ca_order", HYDE_OPT_STR, offsetof(struct nas_opts, ca_order), 0, 8,
	  "CA-RTS: levels (each level over every user in fair order) or users (the first user only)" },
	{ "counters", HYDE_OPT_STR, offsetof(struct nas_opts, counters), 0, 8,
	  "MTS's and CR-RTS's skip counters and turns: per user (the paper's D_i) or per job (delay's)" },
};

static void nas_defaults(void *priv)
{
	struct nas_priv *p = priv;

	p->o.congestion = 0.8; /* §IV-A */
	p->o.d_m = 135;
	p->o.d_r = 135;
	p->o.small_input = 10000000;
	p->o.light = 1000000;
	p->o.heavy = 100000000;
	p->o.oracle = false;
	p->o.tt = true;
	p->o.ca_rts = true;
	p->o.cr_rts = true;
	strcpy(p->o.ca_order, "levels");
	strcpy(p->o.counters, "user");
}

static int nas_init(struct hyde_sched *s, char *errbuf)
{
	struct nas_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	size_t nj = ci->n_jobs + 1, nu = ci->n_users + 1, i;

	if (!strcmp(p->o.ca_order, "levels")) {
		p->ca_levels_first = true;
	} else if (strcmp(p->o.ca_order, "users")) {
		snprintf(errbuf, HYDE_SCHED_ERRBUF, "ca_order: expected levels or users, got '%s'",
			 p->o.ca_order);
		return -EINVAL;
	}
	if (!strcmp(p->o.counters, "job")) {
		p->by_job = true;
		nu = nj; /* the counters' arrays by job (a workload has no
			  * more users than jobs: the fair order's fit) */
	} else if (strcmp(p->o.counters, "user")) {
		snprintf(errbuf, HYDE_SCHED_ERRBUF, "counters: expected user or job, got '%s'",
			 p->o.counters);
		return -EINVAL;
	}
	p->order = hyde_calloc(nj, sizeof(uint32_t));
	p->user_running = hyde_calloc(nu, sizeof(unsigned));
	p->user_rank = hyde_calloc(nu, sizeof(unsigned));
	p->rank_user = hyde_calloc(nu, sizeof(unsigned));
	p->skip_m = hyde_calloc(nu, sizeof(unsigned));
	p->skip_r = hyde_calloc(nu, sizeof(unsigned));
	p->since_m = hyde_calloc(nu, sizeof(int64_t));
	p->since_r = hyde_calloc(nu, sizeof(int64_t));
	for (i = 0; i < nu; i++)
		p->since_m[i] = p->since_r[i] = -1;
	p->rank_skip = hyde_calloc(nu, sizeof(unsigned));
	p->rank_before = hyde_calloc(nu, sizeof(unsigned));
	p->rank_since = hyde_calloc(nu, sizeof(int64_t));
	p->jobs = hyde_calloc(nj, sizeof(*p->jobs));
	p->host_out = hyde_calloc(ci->n_hosts + 1, sizeof(double));
	p->rack_cr = hyde_calloc(ci->racks + 1, sizeof(bool));
	p->mc = hyde_calloc(nj, sizeof(*p->mc));
	p->rc = hyde_calloc(nj, sizeof(*p->rc));
	p->cand_job = hyde_calloc(nj, sizeof(uint32_t));
	p->rank_of = hyde_calloc(nj, sizeof(unsigned));
	p->key = hyde_calloc(nj, sizeof(uint64_t));
	p->tmp = hyde_calloc(nj, sizeof(struct nas_map_cand) > sizeof(struct nas_red_cand)
					 ? sizeof(struct nas_map_cand)
					 : sizeof(struct nas_red_cand));
	p->tmpj = hyde_calloc(nj, sizeof(uint32_t));
	p->per_rack = hyde_calloc(ci->racks + 1, sizeof(uint64_t));
	p->rack_pred = hyde_calloc(ci->racks + 1, sizeof(double));
	p->rack_check = hyde_calloc(ci->racks + 1, sizeof(double));
	p->verify = getenv("HYDE_SIM_VERIFY") && strcmp(getenv("HYDE_SIM_VERIFY"), "0");
	p->tt_at = -1;
	return 0;
}

static void nas_destroy(struct hyde_sched *s)
{
	struct nas_priv *p = s->priv;
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	size_t i;

	hyde_log(s, "mts local=%llu category=%llu fallback=%llu, ca-rts=%llu cr-rts=%llu plain=%llu"
		    ", ca-choice=%llu ca-other=%llu held-maps=%llu",
		 (unsigned long long)p->n_mts[NAS_MTS_LOCAL],
		 (unsigned long long)p->n_mts[NAS_MTS_CATEGORY],
		 (unsigned long long)p->n_mts[NAS_MTS_FALLBACK], (unsigned long long)p->n_ca,
		 (unsigned long long)p->n_cr, (unsigned long long)p->n_plain_reduce,
		 (unsigned long long)p->n_ca_choice, (unsigned long long)p->n_ca_other,
		 (unsigned long long)p->n_held);
	for (i = 0; p->jobs && i < ci->n_jobs; i++)
		free(p->jobs[i].map_out);
	free(p->order);
	free(p->user_running);
	free(p->user_rank);
	free(p->rank_user);
	free(p->skip_m);
	free(p->skip_r);
	free(p->since_m);
	free(p->since_r);
	free(p->rank_skip);
	free(p->rank_before);
	free(p->rank_since);
	free(p->jobs);
	free(p->host_out);
	free(p->rack_cr);
	free(p->mc);
	free(p->rc);
	free(p->cand_job);
	free(p->rank_of);
	free(p->key);
	free(p->tmp);
	free(p->tmpj);
	free(p->per_rack);
	free(p->rack_pred);
	free(p->rack_check);
}

/* ---- §III-A: the predictor ---- */

static bool predicted(const struct nas_priv *p, const struct hyde_job *j)
{
	return p->o.oracle || p->jobs[j->idx].n_done > 0;
}

/* map output / input ratio (1.0 for an unpredicted job, [5]) */
static double ratio(const struct nas_priv *p, const struct hyde_job *j)
{
	const struct nas_job *nj = &p->jobs[j->idx];

	if (p->o.oracle)
		return j->input ? (double)j->shuffle / (double)j->input : 0;
	if (nj->n_done && nj->in_done > 0)
		return nj->out_done / nj->in_done;
	return 1.0;
}

/* eq. (1) for map m */
static double map_out(const struct nas_priv *p, const struct hyde_job *j, uint32_t m)
{
	double in = j->blocks ? (double)j->blocks[m].bytes : (double)j->input / j->n_maps;

	if (p->o.oracle && !j->input)
		return (double)j->shuffle / (j->n_maps ? j->n_maps : 1);
	return ratio(p, j) * in;
}

/* the job's predicted shuffle S_i */
static double job_shuffle(const struct nas_priv *p, const struct hyde_job *j)
{
	if (p->o.oracle)
		return (double)j->shuffle;
	return ratio(p, j) * (double)j->input;
}

static enum nas_class job_class(const struct nas_priv *p, const struct hyde_job *j)
{
	return nas_class_of(job_shuffle(p, j), (double)p->o.light, (double)p->o.heavy);
}

/* ---- the network view ---- */

static double net_state(struct hyde_sched *s, unsigned rack)
{
	struct hyde_link_state up, down;

	if (!hyde_cluster(s)->has_eps || hyde_net_link(s, HYDE_LINK_TOR_UP, rack, &up) ||
	    hyde_net_link(s, HYDE_LINK_TOR_DOWN, rack, &down))
		return 0;
	return fmax(up.utilisation, down.utilisation);
}

/* ---- eq. (3) ---- */

static double traffic_threshold(struct hyde_sched *s, struct nas_priv *p)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	int64_t now = hyde_now(s);
	const uint32_t *act;
	size_t n, i;
	double ss = 0, kk = 0, sj, kj;

	if (p->tt_at == now)
		return p->tt;
	act = hyde_active_jobs(s, &n);
	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, act[i]);

		sj = job_shuffle(p, j);
		kj = j->n_maps;
		ss += sj;
		kk += kj;
	}
	p->tt = nas_traffic_threshold(ci->containers, &ss, &kk, 1);
	p->tt_at = now;
	return p->tt;
}

/* whose turn and counter a job's tasks take: its user's, or (counters=job)
 * its own */
static uint32_t who(const struct nas_priv *p, const struct hyde_job *j)
{
	return p->by_job ? j->idx : j->user_idx;
}

/* users (or jobs) by their first job in the fair order */
static void rank_users(struct nas_priv *p, struct hyde_sched *s, size_t n, unsigned *n_ranks)
{
	unsigned r = 0;
	size_t i;

	for (i = 0; i < n; i++)
		p->user_rank[who(p, hyde_job(s, p->order[i]))] = UINT32_MAX;
	for (i = 0; i < n; i++) {
		uint32_t u = who(p, hyde_job(s, p->order[i]));

		if (p->user_rank[u] == UINT32_MAX) {
			p->user_rank[u] = r;
			p->rank_user[r++] = u;
		}
	}
	*n_ranks = r;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Candidates grouped by user rank, fair order kept inside a user (the
 * rank, then the position, as one sort key). */
static void group_by_user(struct nas_priv *p, void *cand, size_t n, size_t size,
			  const unsigned *rank_of)
{
	size_t i;

	for (i = 0; i < n; i++)
		p->key[i] = (uint64_t)rank_of[i] << 32 | i;
	xqsort(p->key, n, sizeof(uint64_t), cmp_u64);
	for (i = 0; i < n; i++) {
		uint32_t from = (uint32_t)p->key[i];

		memcpy((char *)p->tmp + i * size, (char *)cand + from * size, size);
		p->tmpj[i] = p->cand_job[from];
	}
	memcpy(cand, p->tmp, n * size);
	memcpy(p->cand_job, p->tmpj, n * sizeof(uint32_t));
}

/* ---- the skip counters, by user rank for a pick ---- */

/* Fill p->rank_skip for the users' ranks from their counters (skip, or
 * the wait form's since); returns the maximum the pick compares with. */
static unsigned counters_in(struct hyde_sched *s, struct nas_priv *p, const unsigned *skip,
			    const int64_t *since, unsigned n_ranks, unsigned d)
{
	unsigned r;

	for (r = 0; r < n_ranks; r++)
		p->rank_skip[r] = skip[p->rank_user[r]];
	if (!p->o.wait)
		return d;
	for (r = 0; r < n_ranks; r++)
		p->rank_since[r] = since[p->rank_user[r]];
	nas_wait_counters(p->rank_since, p->rank_skip, n_ranks, hyde_now(s), p->o.wait);
	memcpy(p->rank_before, p->rank_skip, n_ranks * sizeof(unsigned));
	return 1;
}

/* ... and back, once the pick chose the candidate of user rank picked
 * (-1: none). */
static void counters_out(struct hyde_sched *s, struct nas_priv *p, unsigned *skip, int64_t *since,
			 unsigned n_ranks, long picked)
{
	unsigned r;

	if (p->o.wait) {
		nas_wait_update(p->rank_since, p->rank_before, p->rank_skip, n_ranks, picked,
				hyde_now(s));
		for (r = 0; r < n_ranks; r++)
			since[p->rank_user[r]] = p->rank_since[r];
	}
	for (r = 0; r < n_ranks; r++)
		skip[p->rank_user[r]] = p->rank_skip[r];
}

/* ---- MTS ---- */

static const struct hyde_task *mts(struct hyde_sched *s, struct nas_priv *p, unsigned host,
				   size_t n)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	unsigned rack = hyde_rack_of(ci, host), n_ranks, d;
	double space = p->o.tt ? traffic_threshold(s, p) - p->host_out[host] : INFINITY;
	size_t i, nc = 0;
	enum nas_mts_how how;
	long k;

	rank_users(p, s, n, &n_ranks);
	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, p->order[i]);
		enum hyde_locality lvl;
		const struct hyde_task *t;

		if (!hyde_job_has_pending(j, HYDE_MAP))
			continue;
		if (p->o.cr_rts && p->rack_cr[rack] && job_class(p, j) != NAS_LIGHT) {
			p->n_held++;
			continue; /* CR-RTS's notice */
		}
		t = hyde_pending_map(s, j, host, HYDE_OFF_RACK, &lvl);
		if (!t)
			continue;
		p->mc[nc] = (struct nas_map_cand){
			.user_rank = p->user_rank[who(p, j)],
			.gamma = lvl == HYDE_NODE_LOCAL ? 0 : lvl == HYDE_RACK_LOCAL ? 1 : 2,
			.small_input = j->input < p->o.small_input,
			.predicted = predicted(p, j),
			.input = j->blocks ? (double)j->blocks[t->idx].bytes : 0,
			.out = map_out(p, j, t->idx),
		};
		p->cand_job[nc++] = j->idx;
	}
	if (!nc)
		return NULL;
	for (i = 0; i < nc; i++)
		p->rank_of[i] = p->mc[i].user_rank;
	group_by_user(p, p->mc, nc, sizeof(*p->mc), p->rank_of);
	d = counters_in(s, p, p->skip_m, p->since_m, n_ranks, p->o.d_m);
	k = nas_mts_pick(p->mc, nc, p->rank_skip, d, space, &how);
	counters_out(s, p, p->skip_m, p->since_m, n_ranks, k >= 0 ? (long)p->mc[k].user_rank : -1);
	if (k < 0)
		return NULL;
	{
		const struct hyde_job *j = hyde_job(s, p->cand_job[k]);
		struct nas_job *nj = &p->jobs[j->idx];
		enum hyde_locality lvl;
		const struct hyde_task *t = hyde_pending_map(s, j, host, HYDE_OFF_RACK, &lvl);

		if (!t)
			return NULL;
		if (!nj->map_out)
			nj->map_out = hyde_calloc(j->n_maps, sizeof(float));
		nj->map_out[t->idx] = (float)p->mc[k].out;
		p->host_out[host] += p->mc[k].out;
		p->n_mts[how]++;
		return t;
	}
}

/* ---- CA-RTS / CR-RTS ---- */

/* A running map's predicted output (MTS's when it placed it) */
static double running_out(const struct nas_priv *p, const struct hyde_job *j, uint32_t q)
{
	return p->jobs[j->idx].map_out ? p->jobs[j->idx].map_out[q] : map_out(p, j, q);
}

/* HYDE_SIM_VERIFY: eq. (4)'s per-rack sums as reduce_cands made them,
 * against the loop over every map of the job, to the bit */
static void verify_rack_pred(struct hyde_sched *s, struct nas_priv *p, const struct hyde_job *j)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	uint32_t q;
	unsigned r;

	hyde_job_map_output(s, j->idx, p->per_rack, NULL);
	for (r = 0; r < ci->racks; r++)
		p->rack_check[r] = (double)p->per_rack[r];
	for (q = 0; q < j->n_maps; q++)
		if (j->maps[q].state == HYDE_TASK_RUNNING && j->maps[q].host >= 0)
			p->rack_check[hyde_rack_of(ci, (unsigned)j->maps[q].host)] +=
				running_out(p, j, q);
	for (r = 0; r < ci->racks; r++)
		if (memcmp(&p->rack_check[r], &p->rack_pred[r], sizeof(double)))
			fatalx("nas: job %s's predicted output on rack %u is %.17g, its maps' %.17g",
			       j->id, r, p->rack_pred[r], p->rack_check[r]);
}

/* The jobs of the fair order with a reduce that may run on host (all
 * their maps started): into p->rc / p->cand_job, grouped by user. */
static size_t reduce_cands(struct hyde_sched *s, struct nas_priv *p, unsigned host, size_t n,
			   bool need_num)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	unsigned rack = hyde_rack_of(ci, host), n_ranks;
	size_t i, nc = 0;
	uint32_t q, run;

	rank_users(p, s, n, &n_ranks);
	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, p->order[i]);
		double rack_out = 0, all_out = 0, num;
		unsigned placed = 0, rr;

		if (hyde_job_has_pending(j, HYDE_MAP) || !hyde_pending_reduce(s, j, host))
			continue;
		if (need_num) {
			/* eq. (4): finished maps' output plus running maps'
			 * predicted output, per rack */
			hyde_job_map_output(s, j->idx, p->per_rack, NULL);
			for (rr = 0; rr < ci->racks; rr++)
				p->rack_pred[rr] = (double)p->per_rack[rr];
			/* in map order, from the first that may run (with
			 * no map pending, one done or failed stays so) to the
			 * last running one: the sums the loop over every map
			 * made, without reading the rest */
			q = p->jobs[j->idx].run_lo;
			while (q < j->n_maps && j->maps[q].state != HYDE_TASK_RUNNING)
				q++;
			p->jobs[j->idx].run_lo = q;
			for (run = j->maps_running; q < j->n_maps && run; q++) {
				if (j->maps[q].state != HYDE_TASK_RUNNING)
					continue;
				run--;
				if (j->maps[q].host >= 0)
					p->rack_pred[hyde_rack_of(ci, (unsigned)j->maps[q].host)] +=
						running_out(p, j, q);
			}
			if (p->verify)
				verify_rack_pred(s, p, j);
			for (rr = 0; rr < ci->racks; rr++)
				all_out += p->rack_pred[rr];
			rack_out = p->rack_pred[rack];
			placed = hyde_tasks_on_rack(s, j->idx, HYDE_REDUCE, rack);
		}
		num = nas_reduce_num(j->n_reduces, rack_out, all_out, ci->racks);
		p->rc[nc] = (struct nas_red_cand){
			.user_rank = p->user_rank[who(p, j)],
			.cls = job_class(p, j),
			.under = placed < num,
			.delayed = p->jobs[j->idx].delayed > 0,
			.maps_done = hyde_job_maps_done(j),
			.shuffle = job_shuffle(p, j),
		};
		p->cand_job[nc++] = j->idx;
	}
	for (i = 0; i < nc; i++)
		p->rank_of[i] = p->rc[i].user_rank;
	group_by_user(p, p->rc, nc, sizeof(*p->rc), p->rank_of);
	return nc;
}

static const struct hyde_task *launch_reduce(struct hyde_sched *s, struct nas_priv *p,
					     unsigned host, long k)
{
	const struct hyde_job *j;
	struct nas_job *nj;

	if (k < 0)
		return NULL;
	j = hyde_job(s, p->cand_job[k]);
	nj = &p->jobs[j->idx];
	if (nj->delayed)
		nj->delayed--;
	return hyde_pending_reduce(s, j, host);
}

static const struct hyde_task *reduce_path(struct hyde_sched *s, struct nas_priv *p,
					   unsigned host, size_t n)
{
	unsigned rack = hyde_rack_of(hyde_cluster(s), host), n_ranks, d;
	bool congested = p->o.cr_rts && net_state(s, rack) >= p->o.congestion;
	size_t nc, i;
	long k;

	if (congested) {
		/* Alg. 4; its notice to MTS once it has a reduce request to
		 * serve (a container with no reduce to place is no request) */
		nc = reduce_cands(s, p, host, n, false);
		if (nc)
			p->rack_cr[rack] = true;
		rank_users(p, s, n, &n_ranks);
		d = counters_in(s, p, p->skip_r, p->since_r, n_ranks, p->o.d_r);
		k = nas_cr_pick(p->rc, nc, p->rank_skip, d);
		counters_out(s, p, p->skip_r, p->since_r, n_ranks,
			     k >= 0 ? (long)p->rc[k].user_rank : -1);
		for (i = 0; i < nc; i++) {
			struct nas_job *nj = &p->jobs[p->cand_job[i]];
			const struct hyde_job *j = hyde_job(s, p->cand_job[i]);

			if (p->rc[i].delayed && !nj->delayed)
				nj->delayed = j->n_reduces - j->reduces_running - j->reduces_done;
		}
		if (k >= 0)
			p->n_cr++;
		return launch_reduce(s, p, host, k);
	}
	if (p->o.ca_rts) {
		nc = reduce_cands(s, p, host, n, true); /* Alg. 3 */
		k = nas_ca_pick(p->rc, nc, p->ca_levels_first);
		if (k >= 0)
			p->n_ca++;
		if (nc > 1)
			p->n_ca_choice++;
		if (k > 0) /* candidate 0 is the job first in fair order */
			p->n_ca_other++;
		return launch_reduce(s, p, host, k);
	}
	/* without CA-RTS: the first job in fair order, as delay */
	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, p->order[i]);
		const struct hyde_task *t;

		if (hyde_job_has_pending(j, HYDE_MAP))
			continue;
		t = hyde_pending_reduce(s, j, host);
		if (t) {
			p->n_plain_reduce++;
			return t;
		}
	}
	return NULL;
}

/* ---- Alg. 1 ---- */

static const struct hyde_task *nas_pick(struct hyde_sched *s, unsigned host)
{
	struct nas_priv *p = s->priv;
	unsigned rack = hyde_rack_of(hyde_cluster(s), host);
	size_t n = hyde_fair_order(s, p->order, p->user_running), i;
	const struct hyde_task *t;
	bool map_first = true;

	if (p->rack_cr[rack] && net_state(s, rack) < p->o.congestion)
		p->rack_cr[rack] = false; /* the network is not congested: notice off */
	/* the request's type: the first job in fair order with work here */
	for (i = 0; i < n; i++) {
		const struct hyde_job *j = hyde_job(s, p->order[i]);
		enum hyde_locality lvl;

		if (hyde_job_has_pending(j, HYDE_MAP)) {
			if (hyde_pending_map(s, j, host, HYDE_OFF_RACK, &lvl))
				break;
		} else if (hyde_pending_reduce(s, j, host)) {
			map_first = false;
			break;
		}
	}
	if (i == n)
		return NULL;
	if (map_first) {
		t = mts(s, p, host, n);
		if (!t)
			t = reduce_path(s, p, host, n);
	} else {
		t = reduce_path(s, p, host, n);
		if (!t)
			t = mts(s, p, host, n);
	}
	return t;
}

static void nas_task_finished(struct hyde_sched *s, const struct hyde_task *t)
{
	struct nas_priv *p = s->priv;
	const struct hyde_job *j = hyde_job(s, t->job);
	struct nas_job *nj = &p->jobs[t->job];

	if (t->kind != HYDE_MAP)
		return;
	if (nj->map_out && t->host >= 0) {
		p->host_out[t->host] -= nj->map_out[t->idx];
		if (p->host_out[t->host] < 0)
			p->host_out[t->host] = 0; /* float rounding */
		nj->map_out[t->idx] = 0;
	}
	if (t->state == HYDE_TASK_DONE && j->blocks) {
		nj->in_done += (double)j->blocks[t->idx].bytes;
		nj->out_done += (double)hyde_map_output_bytes(s, t->job, t->idx);
		nj->n_done++;
	}
}

static void nas_job_finished(struct hyde_sched *s, const struct hyde_job *j)
{
	struct nas_priv *p = s->priv;

	free(p->jobs[j->idx].map_out);
	p->jobs[j->idx].map_out = NULL;
}

const struct hyde_sched_ops sched_nas = {
	.api_version = HYDE_SCHED_API_VERSION,
	.name = "nas",
	.summary = "NAS: MTS under a traffic threshold, CA-RTS, CR-RTS on congestion [NAS]",
	.priv_size = sizeof(struct nas_priv),
	.opts = nas_opts,
	.n_opts = sizeof(nas_opts) / sizeof(nas_opts[0]),
	.defaults = nas_defaults,
	.init = nas_init,
	.destroy = nas_destroy,
	.task_finished = nas_task_finished,
	.job_finished = nas_job_finished,
	.pick_task = nas_pick,
};
