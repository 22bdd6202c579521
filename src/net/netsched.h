/* Network scheduling policies (NEAT §4): how links are shared among flows
 * (--net: fair, fcfs, srpt, las) or among coflows (--coflow: varys, scf,
 * fcfs, fair), by name, and the coflow allocations that are not a plain
 * order of flows, as pure functions of the active flows (the simulator
 * applies them; tests drive them with worked examples).
 *
 * Fair, FCFS, SRPT and LAS for flows, and FCFS and SCF for coflows, are
 * orders (the simulator serves flows in the order, ties sharing max-min:
 * sim.c). Coflow fair and Varys are allocations:
 * - fair: coflows share in bytes, each coflow's flows progress in
 *   proportion to what each has left (NEAT §4.2's assumptions (i) and
 *   (ii): a coflow's flows finish together): coflow c gets an aggregate
 *   rate R_c and flow f of c the rate R_c x left_f / left_c; the R_c are
 *   max-min fair under the links' capacities (weighted progressive
 *   filling);
 * - varys: SEBF + MADD ([Varys §5], as its simulator runs it:
 *   docs/REFERENCES.md, "Readings"): coflows in the order of
 *   their bottleneck time alone (Gamma = max over links of bytes_l / cap_l),
 *   each given, on what the coflows before it left, the rates that finish
 *   all its flows at its own bottleneck time (bytes_left_f / Gamma_c); a
 *   coflow one of whose links is full waits.
 * Both then give what is left of each link, coflow by coflow in arrival
 * order (flows in their given order), to flows that can use it (work
 * conservation, as Varys does). */
#ifndef HYDE_NETSCHED_H
#define HYDE_NETSCHED_H

#include <stddef.h>
#include <stdint.h>

#include <hyde/sched.h>

/* HYDE_NET_* by name: fair, fcfs, srpt, las (maxmin is fair); -1 if none. */
int netsched_net_parse(const char *name);
const char *netsched_net_name(enum hyde_net_policy p);
/* HYDE_COFLOW_* by name: varys, scf, fcfs, fair (none: HYDE_COFLOW_NONE);
 * -1 if none. */
int netsched_coflow_parse(const char *name);
const char *netsched_coflow_name(enum hyde_coflow_policy p);

#define NETSCHED_MAX_LINKS 4

/* An active flow: the links it crosses (indices < n_links), the bits it
 * has left (> 0), its coflow (an index < n_coflows; coflows are numbered
 * in arrival order). */
struct ns_flow {
	int links[NETSCHED_MAX_LINKS];
	int nlinks;
	double left;
	uint32_t coflow;
};

/* Rates (bits per unit of time of cap) of flows f[0 .. n) under coflow
 * policy p (HYDE_COFLOW_FAIR or HYDE_COFLOW_VARYS) on links of capacity
 * cap[0 .. n_links), into rate[0 .. n). */
void netsched_coflow_rates(enum hyde_coflow_policy p, const struct ns_flow *f, size_t n,
			   size_t n_coflows, const double *cap, size_t n_links, double *rate);

#endif
