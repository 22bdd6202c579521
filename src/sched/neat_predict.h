/* NEAT's completion time predictors on one link (Munir et al., CoNEXT'16,
 * §4 and §5.2), as pure functions of the link's state: what the
 * scheduler (neat.c) evaluates per candidate host, and what the tests
 * drive with the paper's worked numbers (Fig. 1).
 *
 * Sizes are bytes, capacities bit/s, times seconds. For a link l of
 * capacity B and a new flow f0 of s0 bytes, with the flows F_l already on
 * the link (s_f: bytes left; a_f: bytes already sent, for LAS):
 *   FCFS  eq. (3)  FCT = (s0 + sum s_f) / B                 delta = 0
 *   Fair  eq. (4)  FCT = (s0 + sum min(s_f, s0)) / B
 *         eq. (5)  delta = sum min(s_f, s0) / B
 *   SRPT  eq. (7)  FCT = (s0 + sum_{s_f <= s0} s_f) / B
 *         eq. (8)  delta = s0 x |{s_f > s0}| / B
 *   LAS   the paper's remark (§4.1.2): LAS with preemption is fair sharing
 *         among flows that have sent as much. With what each has sent:
 *         f0 (nothing sent) goes ahead of flows that have sent more and
 *         level with the others, so by its end every f has been served up
 *         to min(a_f + s_f, s0) bytes in all:
 *         FCT = (s0 + sum max(0, min(a_f + s_f, s0) - a_f)) / B, and f is
 *         delayed by min(s0, a_f + s_f) / B. With a_f = 0 this is eq. (4)
 *         and (5) exactly.
 * where delta is the sum over F_l of the increase of their completion
 * times, eq. (2)'s second term on this link.
 *
 * Coflows (§4.2): a competitor is a coflow c with s_c bytes left in all and
 * s_cl of them on the link; the new coflow c0 has s0 bytes in all, s0l on
 * the link:
 *   FCFS  eq. (10) CCT = (s0l + sum s_cl) / B                 delta = 0
 *   Fair  eq. (11) CCT = (s0l + sum_{s_c <= s0} s_cl + sum_{s_c > s0} s0 s_cl / s_c) / B
 *         eq. (13) delta = (sum_{s_c <= s0} s_c s0l / s0 + sum_{s_c > s0} s0l) / B
 *   a permutation (eq. 14-16), coflows served one after another in the
 *         order of a key (lowest first; c0 after those of equal key):
 *         CCT = (s0l + sum_{key_c <= key0} s_cl) / B, delta = s0l x |{key_c > key0}| / B.
 *         Varys (SEBF): key = the coflow's bottleneck time alone; TCF/SCF
 *         (eq. 17): key = its size.
 *
 * Compressed state (§5.2, eq. 18-21): instead of every flow, per bin n of
 * sizes the count c_n, the bytes b_n, the bytes on the link d_n and the
 * normalised load e_n = sum s_cl / s_c; the bin of s0, p, counts as
 * smaller than s0 whole: Fair FCT = (s0 + sum_{n<=p} b_n + s0 sum_{n>p} c_n) / B
 * (18), and likewise for the others (coflows: eq. 19-21). LAS needs what
 * each flow sent, which bins do not keep: compressed, it is Fair (as the
 * paper's remark has it); a permutation is by size (TCF) there. */
#ifndef HYDE_NEAT_PREDICT_H
#define HYDE_NEAT_PREDICT_H

#include <stddef.h>

enum neat_model {
	NEAT_FCFS,
	NEAT_FAIR,
	NEAT_SRPT,
	NEAT_LAS,
	NEAT_CF_FCFS,
	NEAT_CF_FAIR,
	NEAT_CF_PERM, /* a permutation by key: Varys (SEBF), TCF/SCF (size) */
};

/* A competitor on the link: a flow (size = bytes left, on_link = the
 * same, sent = bytes sent) or a coflow (size = s_c, on_link = s_cl, key:
 * its place in a permutation). */
struct neat_comp {
	double size, on_link, sent, key;
};

/* The compressed state of a link: bins of sizes with exponentially
 * growing bounds (the paper gives none: bins = N spreads N - 1 bounds
 * evenly in log scale over [1 KB, 10 GB]; the first bin holds what is
 * below 1 KB, the last what is above 10 GB). */
#define NEAT_MAX_BINS 64
struct neat_bins {
	unsigned n;
	double bound[NEAT_MAX_BINS]; /* bin k holds sizes in [bound[k-1], bound[k]) */
	double c[NEAT_MAX_BINS], b[NEAT_MAX_BINS], d[NEAT_MAX_BINS], e[NEAT_MAX_BINS];
};

struct neat_link {
	double cap; /* bit/s */
	const struct neat_comp *comp; /* exact state: n competitors */
	size_t n;
	const struct neat_bins *bins; /* or compressed (comp unused) */
};

struct neat_pred {
	double t;     /* the new flow's (coflow's) completion time on the link */
	double delta; /* the increase of the others' completion times, summed */
};

/* Bounds for n bins (2 <= n <= NEAT_MAX_BINS), counts zeroed. */
void neat_bins_init(struct neat_bins *b, unsigned n);
unsigned neat_bins_index(const struct neat_bins *b, double size);
void neat_bins_add(struct neat_bins *b, const struct neat_comp *c);

/* A new flow of s0 bytes on the link (models NEAT_FCFS .. NEAT_LAS). */
void neat_predict_flow(enum neat_model m, const struct neat_link *l, double s0,
		       struct neat_pred *out);
/* A new coflow of s0 bytes in all, s0l on the link, key0 its key
 * (NEAT_CF_PERM), and the flow models for a coflow policy that schedules
 * flows (each flow its own coflow). */
void neat_predict_coflow(enum neat_model m, const struct neat_link *l, double s0, double s0l,
			 double key0, struct neat_pred *out);

#endif
