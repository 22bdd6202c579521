/* Dawn's pure rules (Liu, Shen, Chen et al., "Dependency-aware and
 * network-adaptive task scheduling of job DAGs", [Dawn §3]) apart from any
 * cluster, so tests can drive them on hand-worked tables: the network cost
 * of a stage on a rack (eq. 2, eq. 4's and eq. 7's form), max_map /
 * max_reduce (eq. 3-4), dep_reduce (eq. 5-6), online plan balancing
 * (Alg. 3) and job selection (Alg. 1). Sizes are doubles in any one unit
 * (bytes in dawn.c); racks are 0 .. R-1, at most DAWN_MAX_RACKS. */
#ifndef HYDE_SCHED_DAWN_H
#define HYDE_SCHED_DAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DAWN_MAX_RACKS 64

/* eq. (2) and the cost of eq. (4) / (7) at a given rack: the data not on
 * rack r, |total| - |here[r]|. */
double dawn_cost_at(const double *here, unsigned R, unsigned r);

/* eq. (3) / (4): the rack holding most of the data (max_map, max_reduce;
 * ties to the lower index), and through *cost its R_Cost_min. */
unsigned dawn_max_rack(const double *here, unsigned R, double *cost);

/* One child y of job x (y in Next_x, §3.1) for dep_reduce: the bytes it
 * will read from x (x's output) and the per-rack output of the finished
 * jobs of Prev_{x,y} (R entries; those not finished are left out: Alg. 2's
 * greedy "currently finished jobs"). */
struct dawn_child {
	double from_x;
	const double *prev_out; /* sum over finished i in Prev_{x,y} of Out_i^Rack */
};

/* eq. (5)-(6): Network_Cost_r = sum over y in Next_x of R_Cost_min^y(In),
 * In_y = Out_x (all of it on r, §3.2.4's assumption) + prev_out. */
double dawn_dep_cost(const struct dawn_child *y, size_t n, unsigned R, unsigned r);

/* dep_reduce: the rack minimising eq. (6); ties to `prefer` (max_reduce)
 * if it is among them, else the lower index. *cost: eq. (6) there. */
unsigned dawn_dep_reduce(const struct dawn_child *y, size_t n, unsigned R, unsigned prefer,
			 double *cost);

/* Alg. 3's condition on the free rack i: balance iff P_i < P_max and
 * P_i <= b x P_max (at b = 0: only a rack nobody prefers). */
bool dawn_should_balance(unsigned p_i, unsigned p_max, double b);

/* Alg. 3 over n jobs' preferred-rack masks (bit r: rack r): P_i, P_max and
 * rack max (most preferred, ties to the lower index); if it balances, rack
 * i is added to every job that prefers rack max (the masks change).
 * Returns how many jobs gained rack i. */
unsigned dawn_balance(uint64_t *pref, size_t n, unsigned R, unsigned i, double b);

/* A job that could use the free container (Alg. 1): its preferred racks,
 * its estimated traffic on each rack (R entries: dawn_cost_at of its
 * stage's data), and the cross-node traffic of the task it would run on
 * the free host (line 31's node-level tie-break). */
struct dawn_cand {
	uint64_t pref;
	const double *cost;
	double node_cost;
};

enum dawn_sort {
	DAWN_SORT_RACK,	  /* by the job's traffic on the free rack i */
	DAWN_SORT_MINMAX, /* literal: by its min (saturated) / max over its preferred racks */
};

/* Alg. 1 lines 5-32 for a free container on rack i: the candidates
 * sorted ascending by traffic if saturated, descending if not (stable:
 * ties keep their order, the caller's submission order); the first whose
 * preferred racks hold i, with every other holding i at the same traffic;
 * among those the least (saturated) / most node-level traffic. Returns the
 * index in c[], or -1 (no job prefers rack i: the container stays idle). */
long dawn_select(const struct dawn_cand *c, size_t n, unsigned R, unsigned i, bool saturated,
		 enum dawn_sort sort);

#endif
