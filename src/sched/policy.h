/* The pure decision rules of the schedulers, apart from any cluster so that
 * they can be tested on the papers' worked numbers: Co-scheduler's MTS
 * guideline (eq. 3-6), PSRT (eq. 7 and §IV-D), ExploreSchedule (Alg. 1,
 * eq. 8-9), the task order of OCAS (Alg. 2), and delay scheduling's
 * locality levels ([Delay], in Hadoop's wait-time form). Sizes and times
 * are doubles in any consistent units. */
#ifndef HYDE_POLICY_H
#define HYDE_POLICY_H

#include <stdbool.h>
#include <stddef.h>

/* ---- Co-scheduler §IV-C: MTS ---- */

/* eq. (3)-(6): R_map = sqrt(Input x SIR / T_e), rounded down so that
 * eq. (3) holds with R_red = R_map; 0 when the job cannot reach T_e even
 * on one rack pair (not shuffle-heavy). */
unsigned pol_r_map(double input, double sir, double t_e);

/* ---- Co-scheduler §IV-D: PSRT ---- */

/* eq. (7): the largest R_red, floor(SM_1 / T_e) (0: none). */
unsigned pol_r_red_max(double sm1, double t_e);

/* The placement D of n_red reduces on r_red racks for map output sm[0 ..
 * n_map) (any order): first ceil(T_e n_red / SM_1) reduces on every rack,
 * so that the smallest map rack's output reaches T_e to each of them,
 * then the rest one by one to the rack receiving least (§IV-D). d[] gets
 * r_red counts, in descending order. -1 if r_red racks cannot all get
 * their first share. */
int pol_psrt_place(const double *sm, unsigned n_map, unsigned n_red,
		   unsigned r_red, double t_e, unsigned *d);

/* eq. (1)-(2) for that placement: map rack i sends sm[i] d_j / n_red to
 * reduce rack j (racks taken disjoint, as §IV-D does), each nonzero entry
 * costing size / bw + delta; T(C) is the largest row or column sum. */
double pol_psrt_cct(const double *sm, unsigned n_map, const unsigned *d,
		    unsigned r_red, unsigned n_red, double bw, double delta);

/* One possible schedule [R_red, D, CCT]. */
struct pol_schedule {
	unsigned r_red;
	unsigned *d; /* r_red counts, descending; owned */
	double cct;
};

/* All possible schedules of §IV-D: map output below T_e is left out (it
 * cannot use the OCS whatever the placement), SM sorted ascending, every
 * R_red in [1, floor(SM_1 / T_e)] whose placement exists, and no more
 * than the cluster's max_racks. The caller frees with
 * pol_schedules_free. Returns how many (0: none). */
size_t pol_psrt(const double *sm, unsigned n_map, unsigned n_red, double t_e,
		double bw, double delta, unsigned max_racks,
		struct pol_schedule **out);
void pol_schedules_free(struct pol_schedule *s, size_t n);

/* ---- Co-scheduler §IV-E: SBS ---- */

/* eq. (8): T_rem = t_elapsed (1 - P) / P; 0 once P >= 1, and unknown
 * (infinite) while P <= 0. */
double pol_t_rem(double elapsed, double p);

/* What ExploreSchedule knows of a rack: its free containers now, and the
 * remaining times (eq. 8) of the tasks holding the others, ascending. */
struct pol_rack {
	unsigned free;
	unsigned n_busy;
	const double *release; /* n_busy, ascending */
};

/* The time when the rack has d free containers: 0 if it has them now,
 * the (d - free)-th release otherwise, infinite if it never can. */
double pol_rack_time(const struct pol_rack *r, unsigned d);

/* Alg. 1, ExploreSchedule: d[] (r_red counts, descending) go one by one
 * to the not yet selected rack that can take them earliest; ties go to
 * the rack first in pref[] (a permutation of 0 .. n_racks - 1; NULL:
 * index order). racks_out[] gets the selected racks in d's order; returns
 * CCT + t_max (infinite if some d_i fits no rack). */
double pol_explore_schedule(const unsigned *d, unsigned r_red, double cct,
			    const struct pol_rack *racks, unsigned n_racks,
			    const unsigned *pref, unsigned *racks_out);

/* Alg. 1 lines 15-18: the schedule with the smallest CCT + t_max (first
 * on ties); its racks in racks_out (room for the largest r_red). -1 if
 * no schedule is feasible. */
int pol_select_best(const struct pol_schedule *s, size_t n,
		    const struct pol_rack *racks, unsigned n_racks,
		    const unsigned *pref, unsigned *racks_out, double *t_out);

/* ---- Co-scheduler §IV-F: OCAS ---- */

/* The levels of Alg. 2, lines 4-9, best first. */
enum pol_ocas_level {
	OCAS_HEAVY_REDUCE_SCHEDULED, /* shuffle-heavy, best schedule has this rack */
	OCAS_HEAVY_MAP_GUIDED,	     /* shuffle-heavy, input here, within R_map racks */
	OCAS_LIGHT_REDUCE,	     /* non-shuffle-heavy reduce */
	OCAS_LIGHT_MAP,		     /* non-shuffle-heavy map */
	OCAS_ANY_REDUCE,
	OCAS_ANY_MAP,
	OCAS_NONE,
};

/* The level a task would take on a container: a reduce or map (is_map),
 * of a shuffle-heavy job or not, following its job's guideline / best
 * schedule on this rack (guided) or not. */
enum pol_ocas_level pol_ocas_level(bool is_map, bool heavy, bool guided);

/* How levels and the fair order of users combine. LEVELS: a level is
 * searched over all users (in fair order) before the next level; USERS:
 * the first user in fair order with any task gets the container, its
 * best level first. */
enum pol_ocas_order { OCAS_ORDER_LEVELS, OCAS_ORDER_USERS };

/* A candidate: the best level a job can offer this container, its
 * user's position in the fair order of users and the job's position in
 * the fair order of jobs (0 first). */
struct pol_cand {
	enum pol_ocas_level level;
	unsigned user_rank, fair_rank;
};

/* Alg. 2: the candidate that gets the container, or -1 if none has a
 * task (every level OCAS_NONE). */
long pol_ocas_pick(const struct pol_cand *c, size_t n, enum pol_ocas_order o);

/* ---- Delay scheduling (Zaharia et al.; Hadoop's wait-time form) ---- */

enum pol_locality { POL_NODE, POL_RACK, POL_ANY };

/* The most remote level a job may launch at, given the level of its last
 * launch and how long it has been skipped: after a node-local launch,
 * rack-local after node_wait, anywhere after node_wait + rack_wait; after
 * a rack-local launch, anywhere after rack_wait; after an off-rack
 * launch, anywhere. */
enum pol_locality pol_delay_level(enum pol_locality last, double waited,
				  double node_wait, double rack_wait);

/* ---- Corral ([Corral], a reconstruction: docs/REFERENCES.md) ---- */

/* Latency of a job on r racks of k containers each (uplink bw): maps in
 * waves, the shuffle's cross-rack part S (r-1)/r^2 over one uplink, then
 * reduces in waves. */
double pol_corral_latency(unsigned n_map, double t_map, unsigned n_red,
			  double t_red, double shuffle, unsigned r,
			  unsigned k, double bw);

#endif
