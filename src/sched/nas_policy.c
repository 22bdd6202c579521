/* NAS's pure rules ([NAS §III]); see nas.h. */
#include "config.h"

#include <math.h>

#include "sched/nas.h"

enum nas_class nas_class_of(double shuffle, double light_max, double heavy_min)
{
	if (shuffle < light_max)
		return NAS_LIGHT;
	return shuffle > heavy_min ? NAS_HEAVY : NAS_MEDIUM;
}

double nas_traffic_threshold(unsigned m, const double *s, const double *k, size_t n)
{
	double ss = 0, kk = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		ss += s[i];
		kk += k[i];
	}
	/* eq. (2)-(3): N m sum(S) / sum(K) per wave, over N nodes */
	return kk > 0 ? m * ss / kk : 0;
}

double nas_available_space(double tt, const double *running_out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		tt -= running_out[i];
	return tt;
}

double nas_map_cost(unsigned gamma, double input)
{
	return gamma * input;
}

unsigned nas_mts_category(bool small_input, bool predicted)
{
	return (small_input ? 0 : 2) + (predicted ? 1 : 0);
}

/* a before b among maps of one order key: the output closer to the space
 * left (§III-C: "fully utilize the available shuffle data space") */
static bool closer(double a, double b, double space)
{
	return fabs(space - a) < fabs(space - b);
}

long nas_mts_pick(const struct nas_map_cand *c, size_t n, unsigned *skip, unsigned d_m,
		  double space, enum nas_mts_how *how)
{
	size_t i = 0, k;

	*how = NAS_MTS_NONE;
	while (i < n) {
		unsigned u = c[i].user_rank;
		size_t end = i;
		long best = -1;

		while (end < n && c[end].user_rank == u)
			end++;
		/* lines 3-4: data-local and shuffle-qualified; an unpredicted
		 * job's first (it becomes predicted sooner), then the output
		 * closest to the space */
		for (k = i; k < end; k++) {
			if (c[k].gamma != 0 || c[k].out > space)
				continue;
			if (best < 0 || (!c[k].predicted && c[best].predicted) ||
			    (c[k].predicted == c[best].predicted && closer(c[k].out, c[best].out, space)))
				best = (long)k;
		}
		if (best >= 0) {
			skip[u] = 0;
			*how = NAS_MTS_LOCAL;
			return best;
		}
		if (skip[u] >= d_m) {
			/* lines 7-12: a shuffle-qualified map without
			 * locality, by category, then MapCost, then output
			 * closest to the space */
			for (k = i; k < end; k++) {
				unsigned ck, cb;
				double mk, mb;

				if (c[k].out > space)
					continue;
				if (best < 0) {
					best = (long)k;
					continue;
				}
				ck = nas_mts_category(c[k].small_input, c[k].predicted);
				cb = nas_mts_category(c[best].small_input, c[best].predicted);
				mk = nas_map_cost(c[k].gamma, c[k].input);
				mb = nas_map_cost(c[best].gamma, c[best].input);
				if (ck < cb || (ck == cb && (mk < mb || (mk == mb &&
						closer(c[k].out, c[best].out, space)))))
					best = (long)k;
			}
			if (best >= 0) {
				*how = NAS_MTS_CATEGORY;
				return best;
			}
			/* lines 13-16: none qualified: the data-local map
			 * with the smallest output, else the smallest output */
			for (k = i; k < end; k++) {
				if (best < 0 || (c[k].gamma == 0 && c[best].gamma != 0) ||
				    ((c[k].gamma == 0) == (c[best].gamma == 0) && c[k].out < c[best].out))
					best = (long)k;
			}
			*how = NAS_MTS_FALLBACK;
			return best;
		}
		skip[u]++; /* line 18 */
		i = end;
	}
	return -1;
}

double nas_reduce_num(unsigned total_reduces, double rack_out, double cluster_out,
		      unsigned racks)
{
	double portion = cluster_out > 0 ? rack_out / cluster_out : 1.0 / (racks ? racks : 1);

	return total_reduces * portion; /* eq. (4) */
}

unsigned nas_ca_level(enum nas_class c, bool under)
{
	/* Alg. 3 lines 3-8 */
	if (under)
		return c == NAS_HEAVY ? 0 : c == NAS_MEDIUM ? 1 : 2;
	return c == NAS_LIGHT ? 3 : c == NAS_MEDIUM ? 4 : 5;
}

long nas_ca_pick(const struct nas_red_cand *c, size_t n, bool levels_first)
{
	long best = -1;
	size_t k;

	if (!n)
		return -1;
	/* line 1: the first user in fair order (candidates are grouped), or
	 * every user, a level at a time */
	for (k = 0; k < n && (levels_first || c[k].user_rank == c[0].user_rank); k++) {
		unsigned lk, lb;

		if (best < 0) {
			best = (long)k;
			continue;
		}
		lk = nas_ca_level(c[k].cls, c[k].under);
		lb = nas_ca_level(c[best].cls, c[best].under);
		if (lk != lb) {
			if (lk < lb)
				best = (long)k;
			continue;
		}
		/* same category: delayed, then MapProgressRate = 100%
		 * (§III-D), then fairness, then the larger shuffle */
		if (c[k].delayed != c[best].delayed) {
			if (c[k].delayed)
				best = (long)k;
			continue;
		}
		if (c[k].maps_done != c[best].maps_done) {
			if (c[k].maps_done)
				best = (long)k;
			continue;
		}
		if (c[k].user_rank != c[best].user_rank)
			continue; /* grouped by rank: best's user comes first */
		if (c[k].shuffle > c[best].shuffle)
			best = (long)k;
	}
	return best;
}

long nas_cr_pick(struct nas_red_cand *c, size_t n, unsigned *skip, unsigned d_r)
{
	size_t i = 0, k;

	while (i < n) {
		unsigned u = c[i].user_rank;
		size_t end = i;
		long light = -1;

		while (end < n && c[end].user_rank == u)
			end++;
		for (k = i; k < end; k++) {
			if (c[k].cls != NAS_LIGHT)
				c[k].delayed = true; /* held back while congested */
			else if (light < 0)
				light = (long)k;
		}
		if (skip[u] < d_r) {
			if (light >= 0) { /* lines 3-4 */
				skip[u] = 0;
				return light;
			}
			skip[u]++; /* line 6 */
			i = end;
			continue;
		}
		return (long)i; /* line 8: any job's reduce, fair order */
	}
	return -1;
}

void nas_wait_counters(const int64_t *since, unsigned *skip, size_t n, int64_t now,
		       int64_t wait)
{
	size_t u;

	for (u = 0; u < n; u++)
		skip[u] = since[u] >= 0 && now - since[u] >= wait;
}

void nas_wait_update(int64_t *since, const unsigned *before, const unsigned *after, size_t n,
		     long picked, int64_t now)
{
	size_t u;

	for (u = 0; u < n; u++) {
		if (after[u] < before[u] || ((long)u == picked && before[u] == 0))
			since[u] = -1; /* a qualified launch */
		else if (after[u] > before[u] && since[u] < 0)
			since[u] = now; /* skipped: waits from now */
	}
}
