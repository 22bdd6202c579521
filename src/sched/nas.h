/* NAS's pure decision rules (Li, Shen, Sarker; [NAS §III]), apart from
 * any cluster so that tests can drive them on hand-worked tables: the
 * TrafficThreshold (eq. 2-3), a node's available space, MTS (Alg. 2) with
 * its skip counters, categories and MapCost, CA-RTS's ReduceNum (eq. 4) and
 * six levels (Alg. 3), CR-RTS's counters and delayed marks (Alg. 4). Sizes
 * are doubles in any consistent unit (bytes in nas.c). */
#ifndef HYDE_SCHED_NAS_H
#define HYDE_SCHED_NAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Shuffle classes (§III-A, §IV-A: light < 1 MB, medium 1-100 MB, heavy). */
enum nas_class { NAS_LIGHT, NAS_MEDIUM, NAS_HEAVY };

enum nas_class nas_class_of(double shuffle, double light_max, double heavy_min);

/* eq. (3): TrafficThreshold = m sum(S_i) / sum(K_i) over the n jobs in the
 * cluster (S_i predicted shuffle bytes, K_i maps), m containers per node.
 * 0 when no job has a map. */
double nas_traffic_threshold(unsigned m, const double *s, const double *k, size_t n);

/* A node's available space: TT less the predicted output of the maps
 * running on it (may be negative: the node is congested). */
double nas_available_space(double tt, const double *running_out, size_t n);

/* MapCost = gamma x MapInputSize, gamma 0 node-local, 1 rack-local, 2
 * remote (§III-C). */
double nas_map_cost(unsigned gamma, double input);

/* Alg. 2 lines 9-12: 0 small-input unpredicted, 1 small-input predicted,
 * 2 large-input unpredicted, 3 large-input predicted. */
unsigned nas_mts_category(bool small_input, bool predicted);

/* One pending map a user could run on the requesting node: the best its
 * job offers there. Candidates of a user are contiguous, users in fair
 * order (user_rank ascending), jobs in fair order inside a user. */
struct nas_map_cand {
	unsigned user_rank; /* position of its user in the fair user list */
	unsigned gamma;	    /* 0 node-local, 1 rack-local, 2 remote */
	bool small_input;   /* its job's input under the small-input size */
	bool predicted;	    /* its job's output ratio is known */
	double input;	    /* the map's input bytes */
	double out;	    /* its predicted output (eq. 1) */
};

/* How MTS chose (for tests and the log). */
enum nas_mts_how {
	NAS_MTS_NONE,	   /* every user skipped */
	NAS_MTS_LOCAL,	   /* lines 3-4: data-local and shuffle-qualified */
	NAS_MTS_CATEGORY,  /* lines 7-12: shuffle-qualified, by category and MapCost */
	NAS_MTS_FALLBACK,  /* lines 13-16: no shuffle-qualified map */
};

/* Alg. 2 over candidates c[0 .. n): skip[u] is user u's map skip counter
 * (indexed by user_rank; updated), d_m the maximum, space the node's
 * available space. Returns the chosen candidate or -1; *how says which
 * line chose it. A user's counter is reset on a data-local qualified
 * launch only (delay scheduling's rule). */
long nas_mts_pick(const struct nas_map_cand *c, size_t n, unsigned *skip, unsigned d_m,
		  double space, enum nas_mts_how *how);

/* eq. (4): ReduceNum = TotalReduceNum x MapOutputPortion, the portion the
 * rack's map output over the cluster's (1 / racks when the job has none
 * yet). A real number: "under ReduceNum" compares without rounding. */
double nas_reduce_num(unsigned total_reduces, double rack_out, double cluster_out,
		      unsigned racks);

/* Alg. 3 lines 3-8: level 0 .. 5 (0 first): heavy, medium, light under
 * ReduceNum, then light, medium, heavy at or over it. */
unsigned nas_ca_level(enum nas_class c, bool under_reduce_num);

/* A job of the selected user with a reduce that may run on the rack. */
struct nas_red_cand {
	unsigned user_rank;
	enum nas_class cls;
	bool under;	/* its reduces on the rack < ReduceNum */
	bool delayed;	/* marked by CR-RTS */
	bool maps_done; /* MapProgressRate = 100% */
	double shuffle; /* predicted shuffle bytes */
};

/* Alg. 3. levels_first: the lowest level over every user's candidates;
 * inside a level delayed first, then all maps done, then the user first
 * in fair order, then (inside a user) the larger shuffle, then fair
 * order. Otherwise (users first) only the first user in fair order is
 * served, its jobs in the same order. -1 if none. */
long nas_ca_pick(const struct nas_red_cand *c, size_t n, bool levels_first);

/* Alg. 4 over the same candidates: users in order; a user under D^r
 * launches its first shuffle-light job (counter reset) or is skipped
 * (counter + 1); at D^r it launches its first job of any class. Every
 * medium or heavy candidate of a user visited gets delayed = true (its
 * reduces were held back while the network was congested). -1 if none. */
long nas_cr_pick(struct nas_red_cand *c, size_t n, unsigned *skip, unsigned d_r);

/* The wait form of the skip counters (§IV-A, the real cluster: "a user
 * cannot be skipped more than 5 seconds", as [39], Delay's wait times).
 * since[u]: when user u was first skipped since its last qualified launch
 * (-1: not waiting). nas_wait_counters fills the counters the pick
 * functions take, with a maximum of 1: 1 for a user that has waited at
 * least `wait`, else 0; after the pick, nas_wait_update reads what the
 * pick did to them: a user skipped starts waiting (if not yet), a user
 * whose counter went down, or the user picked while at 0 (a qualified
 * launch: data-local and shuffle-qualified, or a light reduce), waits no
 * more. picked: the chosen candidate's user rank, or -1. */
void nas_wait_counters(const int64_t *since, unsigned *skip, size_t n, int64_t now,
		       int64_t wait);
void nas_wait_update(int64_t *since, const unsigned *before, const unsigned *after, size_t n,
		     long picked, int64_t now);

#endif
