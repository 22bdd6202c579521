/* The pure decision rules of the schedulers (policy.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hyde/sched.h>

#include "core/util.h"
#include "sched/policy.h"

unsigned pol_r_map(double input, double sir, double t_e)
{
	double x;

	if (!(t_e > 0) || !(input > 0) || !(sir > 0))
		return 0;
	/* eq. (5)-(6): min(R_map, R_red)^2 <= Input x SIR / T_e, equality
	 * with R_map = R_red; the floor keeps eq. (3) true */
	x = sqrt(input * sir / t_e);
	/* guard the floor against sqrt rounding just below an integer */
	if (x - floor(x) > 1 - 1e-9)
		x = ceil(x);
	return x >= 4e9 ? 4000000000u : (unsigned)floor(x);
}

unsigned pol_r_red_max(double sm1, double t_e)
{
	double x;

	if (!(t_e > 0) || !(sm1 > 0))
		return 0;
	/* eq. (7) */
	x = sm1 / t_e;
	if (x - floor(x) > 1 - 1e-9)
		x = ceil(x);
	return x >= 4e9 ? 4000000000u : (unsigned)floor(x);
}

int pol_psrt_place(const double *sm, unsigned n_map, unsigned n_red,
		   unsigned r_red, double t_e, unsigned *d)
{
	double sm1 = INFINITY, need;
	unsigned i, first, left;

	if (!r_red || !n_map || r_red > n_red)
		return -1;
	for (i = 0; i < n_map; i++)
		if (sm[i] < sm1)
			sm1 = sm[i];
	if (!(sm1 > 0))
		return -1;
	/* a rack with d reduces receives sm1 d / n_red from the smallest map
	 * rack: enough for the OCS once d >= T_e n_red / sm1 */
	need = ceil(t_e * n_red / sm1 - 1e-9);
	first = need < 1 ? 1 : (unsigned)need;
	if ((double)first * r_red > n_red)
		return -1;
	/* every rack receives in proportion to its reduces: the rest go one
	 * by one to the rack with fewest (the first of them on ties), which
	 * comes to left / r_red each and one more for the first left % r_red */
	left = n_red - first * r_red;
	for (i = 0; i < r_red; i++)
		d[i] = first + left / r_red + (i < left % r_red);
	return 0; /* descending already */
}

double pol_psrt_cct(const double *sm, unsigned n_map, const unsigned *d,
		    unsigned r_red, unsigned n_red, double bw, double delta)
{
	double best = 0, *col;
	unsigned i, j;

	if (!n_red)
		return 0;
	col = hyde_calloc(r_red + 1, sizeof(double));
	for (i = 0; i < n_map; i++) {
		double row = 0;

		for (j = 0; j < r_red; j++) {
			double c = sm[i] * d[j] / n_red, t;

			if (!(c > 0))
				continue;
			t = c / bw + delta; /* eq. (1) */
			row += t;
			col[j] += t;
		}
		if (row > best)
			best = row;
	}
	for (j = 0; j < r_red; j++)
		if (col[j] > best)
			best = col[j];
	free(col);
	return best; /* eq. (2) */
}

size_t pol_psrt(const double *sm, unsigned n_map, unsigned n_red, double t_e,
		double bw, double delta, unsigned max_racks,
		struct pol_schedule **out)
{
	double *v = hyde_calloc(n_map + 1, sizeof(double));
	struct pol_schedule *s = NULL;
	unsigned i, k = 0, r, r_max;
	size_t n = 0;

	*out = NULL;
	/* §IV-D: output below T_e is left out; SM sorted ascending */
	for (i = 0; i < n_map; i++)
		if (sm[i] >= t_e && sm[i] > 0)
			v[k++] = sm[i];
	if (!k || !n_red) {
		free(v);
		return 0;
	}
	xqsort(v, k, sizeof(double), cmp_double);
	r_max = pol_r_red_max(v[0], t_e);
	if (r_max > n_red)
		r_max = n_red;
	if (r_max > max_racks)
		r_max = max_racks;
	s = hyde_calloc(r_max + 1, sizeof(*s));
	for (r = 1; r <= r_max; r++) {
		unsigned *d = hyde_calloc(r, sizeof(unsigned));

		if (pol_psrt_place(v, k, n_red, r, t_e, d)) {
			free(d);
			continue;
		}
		s[n].r_red = r;
		s[n].d = d;
		s[n].cct = pol_psrt_cct(v, k, d, r, n_red, bw, delta);
		n++;
	}
	free(v);
	if (!n) {
		free(s);
		return 0;
	}
	*out = s;
	return n;
}

void pol_schedules_free(struct pol_schedule *s, size_t n)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < n; i++)
		free(s[i].d);
	free(s);
}

double pol_t_rem(double elapsed, double p)
{
	if (p >= 1)
		return 0;
	if (!(p > 0))
		return INFINITY;
	return elapsed * (1 - p) / p; /* eq. (8) */
}

double pol_rack_time(const struct pol_rack *r, unsigned d)
{
	if (d <= r->free)
		return 0;
	if (d - r->free > r->n_busy)
		return INFINITY;
	return r->release[d - r->free - 1];
}

double pol_explore_schedule(const unsigned *d, unsigned r_red, double cct,
			    const struct pol_rack *racks, unsigned n_racks,
			    const unsigned *pref, unsigned *racks_out)
{
	bool *taken = hyde_calloc(n_racks + 1, sizeof(bool));
	double t_max = 0;
	unsigned i, k;

	/* d is descending (line 2): the largest demand chooses first */
	for (i = 0; i < r_red; i++) {
		double t_best = INFINITY;
		long best = -1;

		for (k = 0; k < n_racks; k++) {
			unsigned r = pref ? pref[k] : k;
			double t;

			if (taken[r])
				continue;
			t = pol_rack_time(&racks[r], d[i]);
			if (best < 0 || t < t_best) {
				best = r;
				t_best = t;
			}
		}
		if (best < 0 || isinf(t_best)) {
			free(taken);
			return INFINITY;
		}
		taken[best] = true;
		racks_out[i] = (unsigned)best;
		if (t_best > t_max)
			t_max = t_best;
	}
	free(taken);
	return cct + t_max; /* line 12 */
}

int pol_select_best(const struct pol_schedule *s, size_t n,
		    const struct pol_rack *racks, unsigned n_racks,
		    const unsigned *pref, unsigned *racks_out, double *t_out)
{
	unsigned *tmp;
	double best_t = INFINITY;
	int best = -1;
	size_t i;

	tmp = hyde_calloc(n_racks + 1, sizeof(unsigned));
	for (i = 0; i < n; i++) {
		double t;

		if (s[i].r_red > n_racks)
			continue;
		t = pol_explore_schedule(s[i].d, s[i].r_red, s[i].cct, racks,
					 n_racks, pref, tmp);
		if (!isinf(t) && (best < 0 || t < best_t)) {
			best = (int)i;
			best_t = t;
			memcpy(racks_out, tmp, s[i].r_red * sizeof(unsigned));
		}
	}
	free(tmp);
	if (t_out)
		*t_out = best_t;
	return best;
}

enum pol_ocas_level pol_ocas_level(bool is_map, bool heavy, bool guided)
{
	if (heavy && guided)
		return is_map ? OCAS_HEAVY_MAP_GUIDED : OCAS_HEAVY_REDUCE_SCHEDULED;
	if (!heavy)
		return is_map ? OCAS_LIGHT_MAP : OCAS_LIGHT_REDUCE;
	return is_map ? OCAS_ANY_MAP : OCAS_ANY_REDUCE;
}

long pol_ocas_pick(const struct pol_cand *c, size_t n, enum pol_ocas_order o)
{
	long best = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct pol_cand *b;

		if (c[i].level == OCAS_NONE)
			continue;
		if (best < 0) {
			best = (long)i;
			continue;
		}
		b = &c[best];
		if (o == OCAS_ORDER_LEVELS
			    ? (c[i].level < b->level ||
			       (c[i].level == b->level && c[i].fair_rank < b->fair_rank))
			    : (c[i].user_rank < b->user_rank ||
			       (c[i].user_rank == b->user_rank &&
				(c[i].level < b->level ||
				 (c[i].level == b->level && c[i].fair_rank < b->fair_rank)))))
			best = (long)i;
	}
	return best;
}

enum pol_locality pol_delay_level(enum pol_locality last, double waited,
				  double node_wait, double rack_wait)
{
	switch (last) {
	case POL_NODE:
		if (waited >= node_wait + rack_wait)
			return POL_ANY;
		return waited >= node_wait ? POL_RACK : POL_NODE;
	case POL_RACK:
		return waited >= rack_wait ? POL_ANY : POL_RACK;
	default:
		return POL_ANY;
	}
}

double pol_corral_latency(unsigned n_map, double t_map, unsigned n_red,
			  double t_red, double shuffle, unsigned r,
			  unsigned k, double bw)
{
	double slots = (double)r * k, lat;

	if (!r || !k)
		return INFINITY;
	lat = ceil(n_map / slots) * t_map + ceil(n_red / slots) * t_red;
	if (r > 1 && bw > 0)
		lat += shuffle * (r - 1) / ((double)r * r * bw);
	return lat;
}
