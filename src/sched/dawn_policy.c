/* Dawn's pure rules (dawn.h): [Dawn §3.2, §3.3, Alg. 1 and 3]. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "sched/dawn.h"

double dawn_cost_at(const double *here, unsigned R, unsigned r)
{
	double total = 0;
	unsigned k;

	for (k = 0; k < R; k++)
		total += here[k];
	/* eq. (2): |In_x^Rack| - |In_{x,r}^Node|; eq. (4)/(7): the sum of the
	 * racks other than r (the same number) */
	return total - here[r];
}

unsigned dawn_max_rack(const double *here, unsigned R, double *cost)
{
	unsigned best = 0, k;

	for (k = 1; k < R; k++)
		if (here[k] > here[best])
			best = k;
	if (cost)
		*cost = dawn_cost_at(here, R, best);
	return best;
}

double dawn_dep_cost(const struct dawn_child *y, size_t n, unsigned R, unsigned r)
{
	double sum = 0;
	size_t c;
	unsigned k;

	for (c = 0; c < n; c++) {
		double in[DAWN_MAX_RACKS], min;

		/* eq. (5): In_y = Out_x + sum of Out_i, i in Prev_{x,y} */
		for (k = 0; k < R; k++)
			in[k] = y[c].prev_out ? y[c].prev_out[k] : 0;
		in[r] += y[c].from_x;
		/* eq. (3) on it, summed over Next_x: eq. (6) */
		dawn_max_rack(in, R, &min);
		sum += min;
	}
	return sum;
}

unsigned dawn_dep_reduce(const struct dawn_child *y, size_t n, unsigned R, unsigned prefer,
			 double *cost)
{
	unsigned best = prefer < R ? prefer : 0, k;
	double bc = dawn_dep_cost(y, n, R, best);

	for (k = 0; k < R; k++) {
		double c = dawn_dep_cost(y, n, R, k);

		/* strictly less: a tie keeps max_reduce (no extra shuffle
		 * for nothing), else the lower index */
		if (c < bc - 1e-9 * fmax(1, fabs(bc))) {
			bc = c;
			best = k;
		}
	}
	if (cost)
		*cost = bc;
	return best;
}

bool dawn_should_balance(unsigned p_i, unsigned p_max, double b)
{
	/* Alg. 3 line 6 read as the text says it (§3.3.2): rack max is a
	 * hotspot when P_i is at most b x P_max; at b = 0 only when nobody
	 * prefers rack i. The literal "if P_max x b <= P_i return" never
	 * balances at the default b = 0. */
	return p_i < p_max && (double)p_i <= b * (double)p_max;
}

unsigned dawn_balance(uint64_t *pref, size_t n, unsigned R, unsigned i, double b)
{
	unsigned cnt[DAWN_MAX_RACKS] = { 0 }, mx = 0, k, gained = 0;
	size_t j;

	/* (a job prefers a few racks: their bits one by one) */
	for (j = 0; j < n; j++)
		for (uint64_t x = pref[j] & (R < 64 ? (1ULL << R) - 1 : ~0ULL); x; x &= x - 1)
			cnt[__builtin_ctzll(x)]++;
	for (k = 1; k < R; k++)
		if (cnt[k] > cnt[mx])
			mx = k;
	if (!dawn_should_balance(cnt[i], cnt[mx], b))
		return 0;
	for (j = 0; j < n; j++)
		if ((pref[j] >> mx & 1) && !(pref[j] >> i & 1)) {
			pref[j] |= 1ULL << i;
			gained++;
		}
	return gained;
}

/* The traffic a candidate is sorted by (Alg. 1 lines 6-9 / 14-17). */
static double sort_key(const struct dawn_cand *c, unsigned R, unsigned i, bool saturated,
		       enum dawn_sort sort)
{
	double v = saturated ? INFINITY : -INFINITY;
	unsigned k;

	if (sort == DAWN_SORT_RACK)
		return c->cost[i];
	for (k = 0; k < R; k++)
		if (c->pref >> k & 1)
			v = saturated ? fmin(v, c->cost[k]) : fmax(v, c->cost[k]);
	return v;
}

long dawn_select(const struct dawn_cand *c, size_t n, unsigned R, unsigned i, bool saturated,
		 enum dawn_sort sort)
{
	long best = -1;
	double bkey = 0, bnode = 0;
	size_t j;

	/* The sorted list's first job holding rack i, then the others
	 * holding i at the same traffic (lines 22-27), then the node level
	 * (line 31): one pass, keeping the earliest on full ties (a stable
	 * sort of the caller's order). */
	for (j = 0; j < n; j++) {
		double key, node;
		bool better;

		if (!(c[j].pref >> i & 1))
			continue;
		key = sort_key(&c[j], R, i, saturated, sort);
		node = c[j].node_cost;
		if (best < 0) {
			better = true;
		} else if (key != bkey) {
			better = saturated ? key < bkey : key > bkey;
		} else {
			better = saturated ? node < bnode : node > bnode;
		}
		if (better) {
			best = (long)j;
			bkey = key;
			bnode = node;
		}
	}
	return best;
}
