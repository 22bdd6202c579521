/* The schedulers: the pure rules of policy.c on hand-worked cases and
 * against brute force, and every scheduler in the simulator. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_hyde.h"
#include "core/rng.h"
#include "core/util.h"
#include "ctl/ctl.h"
#include "sched/policy.h"
#include "ctl/sched_host.h"

/* ---- eq. (3)-(6): R_map ---- */

static const struct {
	double input, sir, t_e;
	unsigned r_map;
} r_map_cases[] = {
	{ 9, 1.0, 1, 3 },	    /* sqrt(9) */
	{ 8.99, 1.0, 1, 2 },	    /* just below: eq. (3) must hold */
	{ 100, 0.5, 2, 5 },	    /* sqrt(25) */
	{ 36, 1.0, 4, 3 },
	{ 0.5, 1.0, 1, 0 },	    /* cannot reach T_e: not shuffle-heavy */
	{ 18e9, 1.0, 1.125e9, 4 },  /* 16 x T_e of the paper */
	{ 10, 0.0, 1, 0 },
	{ 49, 1.0, 0, 0 },	    /* no T_e: no guideline */
};

START_TEST(mts_r_map)
{
	unsigned r = pol_r_map(r_map_cases[_i].input, r_map_cases[_i].sir,
			       r_map_cases[_i].t_e);

	ck_assert_uint_eq(r, r_map_cases[_i].r_map);
	/* eq. (3) with R_red = R_map */
	if (r)
		ck_assert(r_map_cases[_i].input * r_map_cases[_i].sir / ((double)r * r) >=
			  r_map_cases[_i].t_e);
}
END_TEST

/* ---- eq. (7) and (8) ---- */

static const struct {
	double sm1, t_e;
	unsigned r;
} r_red_cases[] = {
	{ 10, 3, 3 }, { 9, 3, 3 }, { 2.9, 3, 0 }, { 3, 3, 1 }, { 1.125e10, 1.125e9, 10 },
};

START_TEST(psrt_r_red_max)
{
	ck_assert_uint_eq(pol_r_red_max(r_red_cases[_i].sm1, r_red_cases[_i].t_e),
			  r_red_cases[_i].r);
}
END_TEST

static const struct {
	double elapsed, p, t_rem;
} t_rem_cases[] = {
	{ 10, 0.25, 30 }, { 4, 0.5, 4 }, { 9, 0.9, 1 }, { 7, 1.0, 0 }, { 3, 1.5, 0 },
	{ 5, 0.0, INFINITY },
};

START_TEST(sbs_t_rem)
{
	double t = pol_t_rem(t_rem_cases[_i].elapsed, t_rem_cases[_i].p);

	if (isinf(t_rem_cases[_i].t_rem))
		ck_assert(isinf(t));
	else
		ck_assert_double_eq_tol(t, t_rem_cases[_i].t_rem, 1e-12);
}
END_TEST

/* ---- PSRT: D and the CCT of eq. (1)-(2), worked by hand ---- */

/* SM = {0.5, 3, 12} with T_e = 1, 7 reduces, bw 1, delta 0. 0.5 < T_e is
 * left out, so SM_1 = 3 and R_red is 1 .. 3. R_red = 1: D = {7}, the
 * rack receives 3 + 12 = 15. R_red = 2: 3 reduces each first (3 x 3/7 >=
 * 1, 2/7 x 3 < 1), the 7th to either: D = {4, 3}; map rack 12 sends 12 x
 * 4/7 + 12 x 3/7 = 12, the rack with 4 receives 15 x 4/7 = 8.57: CCT 12.
 * R_red = 3 needs 9 reduces: no schedule. */
START_TEST(psrt_hand_worked)
{
	const double sm[] = { 12, 0.5, 3 };
	struct pol_schedule *s;
	size_t n = pol_psrt(sm, 3, 7, 1, 1, 0, 60, &s);

	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(s[0].r_red, 1);
	ck_assert_uint_eq(s[0].d[0], 7);
	ck_assert_double_eq_tol(s[0].cct, 15, 1e-9);
	ck_assert_uint_eq(s[1].r_red, 2);
	ck_assert_uint_eq(s[1].d[0], 4);
	ck_assert_uint_eq(s[1].d[1], 3);
	ck_assert_double_eq_tol(s[1].cct, 12, 1e-9);
	pol_schedules_free(s, n);
}
END_TEST

/* SM = {4, 6, 9}, T_e = 2, 6 reduces, bw 1, delta 0.5: R_red in [1, 2].
 * R_red = 1: D = {6}; the rack receives (4 + .5) + (6 + .5) + (9 + .5) =
 * 20.5. R_red = 2: ceil(2 x 6 / 4) = 3 each: D = {3, 3}; map rack 9 sends
 * 2 x (4.5 + .5) = 10, each reduce rack receives 2 + 3 + 4.5 + 1.5 = 11. */
START_TEST(psrt_hand_worked_delta)
{
	const double sm[] = { 4, 6, 9 };
	struct pol_schedule *s;
	size_t n = pol_psrt(sm, 3, 6, 2, 1, 0.5, 60, &s);

	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(s[0].d[0], 6);
	ck_assert_double_eq_tol(s[0].cct, 20.5, 1e-9);
	ck_assert_uint_eq(s[1].d[0], 3);
	ck_assert_uint_eq(s[1].d[1], 3);
	ck_assert_double_eq_tol(s[1].cct, 11, 1e-9);
	pol_schedules_free(s, n);
}
END_TEST

/* R_red stops at the racks there are. */
START_TEST(psrt_max_racks)
{
	const double sm[] = { 100 };
	struct pol_schedule *s;
	size_t n = pol_psrt(sm, 1, 50, 1, 1, 0, 3, &s);

	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(s[2].r_red, 3);
	pol_schedules_free(s, n);
}
END_TEST

/* D: the first share, then one by one to the rack receiving least. */
static const struct {
	double sm[3];
	unsigned n_map, n_red, r_red;
	double t_e;
	int ok;
	unsigned d[4];
} place_cases[] = {
	{ { 10, 10 }, 2, 10, 3, 1, 0, { 4, 3, 3 } },	/* 1 each, then 7 spread */
	{ { 10, 10 }, 2, 11, 3, 1, 0, { 4, 4, 3 } },	/* 2 each (11/10 > 1), then 5 */
	{ { 10, 20 }, 2, 10, 2, 4, 0, { 5, 5 } },	/* 4 each (10 x 4/10 >= 4), then 2 */
	{ { 10, 20 }, 2, 10, 3, 4, -1, { 0 } },		/* 3 x 4 > 10 */
	{ { 9, 9, 9 }, 3, 3, 3, 1, 0, { 1, 1, 1 } },	/* §III-B: one reduce per rack */
	{ { 9, 9, 9 }, 3, 3, 1, 1, 0, { 3 } },
	{ { 6 }, 1, 5, 2, 3, -1, { 0 } },		/* 6 d/5 >= 3 needs d = 3: 3 + 3 > 5 */
	{ { 6 }, 1, 5, 1, 3, 0, { 5 } },
};

START_TEST(psrt_place)
{
	unsigned d[4] = { 0 }, i;
	int r = pol_psrt_place(place_cases[_i].sm, place_cases[_i].n_map,
			       place_cases[_i].n_red, place_cases[_i].r_red,
			       place_cases[_i].t_e, d);

	ck_assert_int_eq(r, place_cases[_i].ok);
	for (i = 0; !r && i < place_cases[_i].r_red; i++)
		ck_assert_uint_eq(d[i], place_cases[_i].d[i]);
}
END_TEST

/* ---- ExploreSchedule against brute force ---- */

#define BF_RACKS 5
#define BF_MAX_RED 4

static double bf_best;

/* every injective assignment of d[k ..] to the racks not used */
static void brute(const unsigned *d, unsigned r_red, unsigned k,
		  const struct pol_rack *racks, unsigned n_racks, bool *used,
		  double t_max)
{
	unsigned r;

	if (k == r_red) {
		if (t_max < bf_best)
			bf_best = t_max;
		return;
	}
	for (r = 0; r < n_racks; r++) {
		double t;

		if (used[r])
			continue;
		t = pol_rack_time(&racks[r], d[k]);
		used[r] = true;
		brute(d, r_red, k + 1, racks, n_racks, used, t > t_max ? t : t_max);
		used[r] = false;
	}
}

START_TEST(explore_schedule_is_optimal)
{
	struct rng rng;
	unsigned trial;

	rng_seed(&rng, 42);
	for (trial = 0; trial < 2000; trial++) {
		double rel[BF_RACKS][6], got, t_chk = 0;
		struct pol_rack racks[BF_RACKS];
		unsigned n_racks = 1 + (unsigned)rng_below(&rng, BF_RACKS);
		unsigned r_red = 1 + (unsigned)rng_below(&rng, n_racks < BF_MAX_RED ? n_racks : BF_MAX_RED);
		unsigned d[BF_MAX_RED], out[BF_MAX_RED], r, k;
		bool used[BF_RACKS] = { false };

		for (r = 0; r < n_racks; r++) {
			unsigned busy = (unsigned)rng_below(&rng, 6);

			for (k = 0; k < busy; k++)
				rel[r][k] = (double)rng_below(&rng, 20);
			/* ascending */
			for (k = 1; k < busy; k++) {
				double x = rel[r][k];
				unsigned b;

				for (b = k; b > 0 && rel[r][b - 1] > x; b--)
					rel[r][b] = rel[r][b - 1];
				rel[r][b] = x;
			}
			racks[r] = (struct pol_rack){ .free = (unsigned)rng_below(&rng, 3),
						      .n_busy = busy, .release = rel[r] };
		}
		for (k = 0; k < r_red; k++)
			d[k] = 1 + (unsigned)rng_below(&rng, 5);
		for (k = 1; k < r_red; k++) { /* descending */
			unsigned x = d[k], b;

			for (b = k; b > 0 && d[b - 1] < x; b--)
				d[b] = d[b - 1];
			d[b] = x;
		}
		bf_best = INFINITY;
		brute(d, r_red, 0, racks, n_racks, used, 0);
		got = pol_explore_schedule(d, r_red, 100, racks, n_racks, NULL, out);
		if (isinf(bf_best)) {
			ck_assert_msg(isinf(got), "trial %u: brute force finds none", trial);
			continue;
		}
		ck_assert_msg(!isinf(got), "trial %u: no schedule, brute force %g", trial, bf_best);
		ck_assert_msg(fabs(got - (100 + bf_best)) < 1e-9,
			      "trial %u: ExploreSchedule %g, optimum %g", trial, got - 100, bf_best);
		/* the racks returned are distinct and give that time */
		for (k = 0; k < r_red; k++) {
			double t = pol_rack_time(&racks[out[k]], d[k]);

			ck_assert(!used[out[k]]);
			used[out[k]] = true;
			if (t > t_chk)
				t_chk = t;
		}
		ck_assert_double_eq_tol(t_chk, bf_best, 1e-9);
	}
}
END_TEST

/* Alg. 1 lines 15-18: the smallest CCT + t_max, not the smallest CCT.
 * Racks: 0 has 1 free container, 1 has 2 free, 2 frees 3 at t = 8.
 * Schedule A (R_red 1, D {3}, CCT 10): only rack 2 holds 3: 10 + 8 = 18.
 * Schedule B (R_red 2, D {2, 1}, CCT 12): racks 1 and 0 now: 12 + 0. */
START_TEST(select_best_schedule)
{
	const double rel2[] = { 8, 8, 8 };
	const struct pol_rack racks[] = {
		{ .free = 1 }, { .free = 2 }, { .free = 0, .n_busy = 3, .release = rel2 },
	};
	unsigned da[] = { 3 }, db[] = { 2, 1 }, out[3];
	struct pol_schedule s[] = { { 1, da, 10 }, { 2, db, 12 } };
	double t;
	int best = pol_select_best(s, 2, racks, 3, NULL, out, &t);

	ck_assert_int_eq(best, 1);
	ck_assert_double_eq_tol(t, 12, 1e-12);
	ck_assert_uint_eq(out[0], 1);
	ck_assert_uint_eq(out[1], 0);
	/* with rack 2 free at 1 instead, A wins: 10 + 1 < 12 */
	{
		const double rel2b[] = { 1, 1, 1 };
		const struct pol_rack racks_b[] = {
			{ .free = 1 }, { .free = 2 }, { .free = 0, .n_busy = 3, .release = rel2b },
		};

		best = pol_select_best(s, 2, racks_b, 3, NULL, out, &t);
		ck_assert_int_eq(best, 0);
		ck_assert_uint_eq(out[0], 2);
		ck_assert_double_eq_tol(t, 11, 1e-12);
	}
}
END_TEST

/* ---- Alg. 2 ---- */

static const struct {
	bool is_map, heavy, guided;
	enum pol_ocas_level level;
} level_cases[] = {
	{ false, true, true, OCAS_HEAVY_REDUCE_SCHEDULED },
	{ true, true, true, OCAS_HEAVY_MAP_GUIDED },
	{ false, false, false, OCAS_LIGHT_REDUCE },
	{ true, false, false, OCAS_LIGHT_MAP },
	{ false, true, false, OCAS_ANY_REDUCE },
	{ true, true, false, OCAS_ANY_MAP },
};

START_TEST(ocas_levels)
{
	ck_assert_int_eq(pol_ocas_level(level_cases[_i].is_map, level_cases[_i].heavy,
					level_cases[_i].guided),
			 level_cases[_i].level);
	/* the lines of Alg. 2 in order */
	ck_assert_int_lt(OCAS_HEAVY_REDUCE_SCHEDULED, OCAS_HEAVY_MAP_GUIDED);
	ck_assert_int_lt(OCAS_HEAVY_MAP_GUIDED, OCAS_LIGHT_REDUCE);
	ck_assert_int_lt(OCAS_LIGHT_REDUCE, OCAS_LIGHT_MAP);
	ck_assert_int_lt(OCAS_LIGHT_MAP, OCAS_ANY_REDUCE);
	ck_assert_int_lt(OCAS_ANY_REDUCE, OCAS_ANY_MAP);
}
END_TEST

START_TEST(ocas_pick_order)
{
	/* users 0 (first in fair order) and 1; jobs in fair order */
	const struct pol_cand c[] = {
		{ OCAS_NONE, 0, 0 },
		{ OCAS_LIGHT_MAP, 0, 1 },
		{ OCAS_HEAVY_MAP_GUIDED, 1, 2 },
		{ OCAS_LIGHT_REDUCE, 0, 3 },
		{ OCAS_HEAVY_MAP_GUIDED, 1, 4 },
	};
	const struct pol_cand none[] = { { OCAS_NONE, 0, 0 }, { OCAS_NONE, 1, 1 } };

	/* the first user, its best level (the reduce before the map) */
	ck_assert_int_eq(pol_ocas_pick(c, 5, OCAS_ORDER_USERS), 3);
	/* levels first: the guided map of user 1, its first job */
	ck_assert_int_eq(pol_ocas_pick(c, 5, OCAS_ORDER_LEVELS), 2);
	ck_assert_int_eq(pol_ocas_pick(c, 3, OCAS_ORDER_USERS), 1);
	ck_assert_int_eq(pol_ocas_pick(none, 2, OCAS_ORDER_USERS), -1);
	ck_assert_int_eq(pol_ocas_pick(none, 2, OCAS_ORDER_LEVELS), -1);
}
END_TEST

/* ---- delay scheduling's levels and waits ---- */

static const struct {
	enum pol_locality last;
	double waited, node_wait, rack_wait;
	enum pol_locality allowed;
} delay_cases[] = {
	{ POL_NODE, 0, 1.5, 1.5, POL_NODE },
	{ POL_NODE, 1.49, 1.5, 1.5, POL_NODE },
	{ POL_NODE, 1.5, 1.5, 1.5, POL_RACK },	  /* after W: rack-local */
	{ POL_NODE, 2.99, 1.5, 1.5, POL_RACK },
	{ POL_NODE, 3.0, 1.5, 1.5, POL_ANY },	  /* after 2W: anywhere */
	{ POL_NODE, 2.0, 1.0, 5.0, POL_RACK },
	{ POL_NODE, 6.0, 1.0, 5.0, POL_ANY },
	{ POL_RACK, 0, 1.5, 1.5, POL_RACK },	  /* after a rack-local launch */
	{ POL_RACK, 1.5, 1.5, 1.5, POL_ANY },	  /* anywhere after W */
	{ POL_RACK, 1.0, 3.0, 2.0, POL_RACK },
	{ POL_ANY, 0, 1.5, 1.5, POL_ANY },
	{ POL_NODE, 0, 0, 0, POL_ANY },		  /* no waits: fair */
};

START_TEST(delay_levels)
{
	ck_assert_int_eq(pol_delay_level(delay_cases[_i].last, delay_cases[_i].waited,
					 delay_cases[_i].node_wait, delay_cases[_i].rack_wait),
			 delay_cases[_i].allowed);
}
END_TEST

/* ---- Corral's latency model ---- */

START_TEST(corral_latency)
{
	/* 20 maps of 2s on 1 rack of 8: 3 waves = 6s; 4 reduces of 1s: 1 wave;
	 * one rack: no cross-rack shuffle */
	ck_assert_double_eq_tol(pol_corral_latency(20, 2, 4, 1, 1000, 1, 8, 10), 7, 1e-12);
	/* 2 racks: 2 waves of maps, 1 of reduces, 1000 x 1/4 / 10 = 25s */
	ck_assert_double_eq_tol(pol_corral_latency(20, 2, 4, 1, 1000, 2, 8, 10), 4 + 1 + 25, 1e-12);
	ck_assert(isinf(pol_corral_latency(1, 1, 1, 1, 1, 0, 8, 10)));
}
END_TEST

/* ---- the fair order's sort (sched_fair_sort): both ways give the order
 * by the user's running tasks, then the job's, then the job's place ---- */

START_TEST(fair_sort_ways)
{
	static const struct {
		size_t n;
		uint32_t range; /* keys below */
	} cases[] = { { 0, 1 }, { 1, 5 }, { 7, 3 }, { 40, 2 }, { 40, 5000 }, { 300, 40 },
		      { 300, 100000 } };
	struct hyde_sched_host h;
	struct rng r;
	size_t k, i, j, way;

	memset(&h, 0, sizeof(h));
	rng_seed(&r, 7);
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		size_t n = cases[k].n;
		uint32_t *rkey = xcalloc(n + 1, sizeof(*rkey)), *ukey = xcalloc(n + 1, sizeof(*ukey));
		uint32_t *want = xcalloc(n + 1, sizeof(*want)), *pos = xcalloc(n + 1, sizeof(*pos));
		uint32_t *tmp = xcalloc(n + 1, sizeof(*tmp)), rmax = 0, umax = 0;

		for (i = 0; i < n; i++) {
			rkey[i] = (uint32_t)rng_below(&r, cases[k].range);
			ukey[i] = (uint32_t)rng_below(&r, cases[k].range);
			rmax = rkey[i] > rmax ? rkey[i] : rmax;
			umax = ukey[i] > umax ? ukey[i] : umax;
		}
		/* by hand: insertion by (user's, job's, index) */
		for (i = 0; i < n; i++) {
			for (j = i; j > 0; j--) {
				uint32_t p = want[j - 1];

				if (ukey[p] < ukey[i] || (ukey[p] == ukey[i] && rkey[p] <= rkey[i]))
					break;
				want[j] = p;
			}
			want[j] = (uint32_t)i;
		}
		for (way = SCHED_SORT_ANY; way <= SCHED_SORT_MERGE; way++) {
			sched_fair_sort(&h, pos, tmp, n, rkey, rmax, ukey, umax, (enum sched_sort)way);
			for (i = 0; i < n; i++)
				ck_assert_msg(pos[i] == want[i],
					      "n %zu, keys < %u, way %zu: place %zu is %u, not %u", n,
					      cases[k].range, way, i, pos[i], want[i]);
		}
		free(rkey);
		free(ukey);
		free(want);
		free(pos);
		free(tmp);
	}
	free(h.fo_cnt);
}
END_TEST

/* ---- in the simulator ---- */

/* Run; fails the test unless every job is done. */
static struct ctl *run(const char *topo_path, const char *wl_path, const char *sched,
		       char **kv, int n_kv)
{
	char errbuf[HYDE_ERRBUF_SIZE];
	struct ctl_totals tot;
	struct ctl_opts o;
	struct ctl *c;

	ctl_opts_default(&o);
	o.topo_path = topo_path;
	o.wl_spec = wl_path;
	o.sched_name = sched;
	o.sched_kv = kv;
	o.n_sched_kv = n_kv;
	ck_assert_msg(ctl_new(&o, &c, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(ctl_run(c, errbuf) == 0, "%s on %s: %s", sched, topo_path, errbuf);
	ctl_totals(c, &tot);
	ck_assert_uint_eq(tot.jobs_done, tot.jobs);
	return c;
}

/* ShuffleWatcher's reduce rule, held at each pick of a run with d too high
 * to give up on it and no congestion: a reduce goes to a rack only while
 * its job's share of the finished maps' output there, in reduces, is more
 * than the reduces placed on the rack (a scan of them), or no rack has
 * output. Jobs of 4 maps and 24 reduces on racks of 18 containers: more
 * reduces can go to a rack than its share, and than its maps. */
extern const struct hyde_sched_ops sched_shufflewatcher;
static unsigned sw_reduces;

static const struct hyde_task *sw_rule_pick(struct hyde_sched *s, unsigned host)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	const struct hyde_task *t = sched_shufflewatcher.pick_task(s, host);
	const struct hyde_job *j;
	uint64_t per_rack[8], total = 0;
	unsigned rack = hyde_rack_of(ci, host), placed = 0, r;
	uint32_t q;

	if (!t || t->kind != HYDE_REDUCE)
		return t;
	j = hyde_job(s, t->job);
	ck_assert_uint_le(ci->racks, 8);
	hyde_job_map_output(s, t->job, per_rack, NULL);
	for (r = 0; r < ci->racks; r++)
		total += per_rack[r];
	for (q = 0; q < j->n_reduces; q++)
		placed += j->reduces[q].host >= 0 &&
			  hyde_rack_of(ci, (unsigned)j->reduces[q].host) == rack;
	ck_assert_msg(!total || (double)j->n_reduces * (double)per_rack[rack] / (double)total -
					placed > 0,
		      "reduce %u of %s to rack %u: %u placed there, a share of %.2f", t->idx, j->id,
		      rack, placed, (double)j->n_reduces * (double)per_rack[rack] / (double)total);
	sw_reduces++;
	return t;
}

/* ShuffleWatcher with d too high to give up on a rack and no congestion,
 * each of its picks through pick (which calls it and checks the pick), on
 * a topology and a workload given as text; every job must end. */
static void sw_run(const char *topo, const char *wl,
		   const struct hyde_task *(*pick)(struct hyde_sched *, unsigned))
{
	char errbuf[HYDE_ERRBUF_SIZE], *kv[] = { "d=1000000000", "congestion=10" };
	struct hyde_sched_ops ops = sched_shufflewatcher;
	char *tp = test_write_tmp("sched", topo, ".topo"), *wp = test_write_tmp("sched", wl, ".wl");
	struct ctl_opts o;
	struct ctl *c;

	ops.pick_task = pick;
	ctl_opts_default(&o);
	o.topo_path = tp;
	o.wl_spec = wp;
	o.sched_ops = &ops;
	o.sched_kv = kv;
	o.n_sched_kv = 2;
	ck_assert_msg(ctl_new(&o, &c, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(ctl_run(c, errbuf) == 0, "%s", errbuf);
	ctl_free(c);
	unlink(tp);
	unlink(wp);
	free(tp);
	free(wp);
}

START_TEST(shufflewatcher_reduce_share)
{
	char *wl = NULL;
	size_t len = 0;
	int k;

	for (k = 0; k < 12; k++)
		test_appendf(&wl, &len,
			     "job id=s%d arrival=%ds input=%dMB shuffle=%dMB output=0B maps=4 reduces=24 "
			     "map_time=1s reduce_time=%ds\n",
			     k, 5 * k, 20 + 10 * (k % 3), 60 + 20 * (k % 4), 2 + k % 3);
	sw_reduces = 0;
	sw_run("racks 3\nhosts 3\ncontainers 6\nhost_rate 1Gbit\nuplink_rate 1Gbit\nocs no\n", wl,
	       sw_rule_pick);
	ck_assert_uint_gt(sw_reduces, 100);
	free(wl);
}
END_TEST

/* ShuffleWatcher's maps, with d too high to give up on a rack: each goes
 * to a rack of its job's greedy cover, worked out here from the job's
 * blocks (a rack at a time, the one holding a replica of most blocks not
 * yet covered, the lowest on a tie; a block with two replicas on a rack,
 * as HDFS's second and third, counts once there). */
static uint32_t sw_cover[64];
static bool sw_cover_made[64];
static unsigned sw_maps;

static uint32_t sw_greedy_cover(const struct hyde_cluster_info *ci, const struct hyde_job *j)
{
	uint32_t cover = 0, m, k;
	bool done[64] = { false };

	ck_assert_uint_le(j->n_maps, 64);
	for (;;) {
		unsigned gain[8] = { 0 }, r, best = 0;

		for (m = 0; m < j->n_maps; m++) {
			uint32_t on = 0;

			for (k = 0; k < j->blocks[m].n_replicas; k++)
				on |= 1u << hyde_rack_of(ci, j->blocks[m].replica[k]);
			for (r = 0; r < ci->racks && !done[m]; r++)
				gain[r] += (on >> r) & 1;
		}
		for (r = 1; r < ci->racks; r++)
			if (gain[r] > gain[best])
				best = r;
		if (!gain[best])
			return cover;
		cover |= 1u << best;
		for (m = 0; m < j->n_maps; m++)
			for (k = 0; k < j->blocks[m].n_replicas; k++)
				if (hyde_rack_of(ci, j->blocks[m].replica[k]) == best)
					done[m] = true;
	}
}

static const struct hyde_task *sw_cover_pick(struct hyde_sched *s, unsigned host)
{
	const struct hyde_cluster_info *ci = hyde_cluster(s);
	const struct hyde_task *t = sched_shufflewatcher.pick_task(s, host);
	const struct hyde_job *j;

	if (!t || t->kind != HYDE_MAP)
		return t;
	j = hyde_job(s, t->job);
	ck_assert_uint_lt(t->job, 64);
	ck_assert_uint_le(ci->racks, 8);
	if (!sw_cover_made[t->job]) {
		sw_cover[t->job] = sw_greedy_cover(ci, j);
		sw_cover_made[t->job] = true;
	}
	ck_assert_msg(sw_cover[t->job] >> hyde_rack_of(ci, host) & 1,
		      "map %u of %s to rack %u, out of its cover (racks 0x%x)", t->idx, j->id,
		      hyde_rack_of(ci, host), sw_cover[t->job]);
	sw_maps++;
	return t;
}

START_TEST(shufflewatcher_map_cover)
{
	char *wl = NULL;
	size_t len = 0;
	int k;

	for (k = 0; k < 40; k++)
		test_appendf(&wl, &len,
			     "job id=c%d arrival=%ds input=%dMB shuffle=1MB output=0B maps=%d reduces=1 "
			     "map_time=1s reduce_time=1s\n",
			     k, 3 * k, 8 * (3 + k % 6), 3 + k % 6);
	sw_maps = 0;
	memset(sw_cover_made, 0, sizeof(sw_cover_made));
	sw_run("racks 6\nhosts 2\ncontainers 2\nreplicas 3\nhost_rate 1Gbit\nuplink_rate 1Gbit\n"
	       "ocs no\n",
	       wl, sw_cover_pick);
	ck_assert_uint_eq(sw_maps, 40 * 3 + 40 / 6 * (0 + 1 + 2 + 3 + 4 + 5) + (0 + 1 + 2 + 3));
	free(wl);
}
END_TEST

/* Every scheduler (and every ablation) takes a small workload to the end. */
static const struct {
	const char *sched;
	const char *kv[4];
} variants[] = {
	{ "fair", { NULL } },
	{ "delay", { NULL } },
	{ "delay", { "node_wait=0s", "rack_wait=0s" } },
	{ "corral", { NULL } },
	{ "corral", { "objective=makespan", "planned=0.5" } },
	{ "coscheduler", { NULL } },
	{ "coscheduler", { "mts=no", "psrt=no" } },		/* OCAS alone */
	{ "coscheduler", { "psrt=no" } },			/* MTS + OCAS */
	{ "coscheduler", { "sbs=no" } },
	{ "coscheduler", { "spill=yes", "levels_first=yes" } },
	{ "coscheduler", { "barrier=no" } },
	{ "coscheduler", { "trem_error=0.5" } },
	{ "neat", { NULL } },
	{ "neat", { "mode=path", "bins=8", "objective=sum", "predictor=las" } },
	{ "minfct", { "fallback=rack" } },
	{ "minload", { "load=util" } },
	{ "mindist", { NULL } },
	{ "delay", { "form=skip" } },				/* D = 135 */
	{ "delay", { "form=skip", "d=0" } },
	{ "nas", { NULL } },					/* all */
	{ "nas", { "ca_rts=no", "cr_rts=no" } },		/* MTS alone */
	{ "nas", { "cr_rts=no" } },				/* MTS + CA-RTS */
	{ "nas", { "tt=no" } },					/* w/o TT */
	{ "nas", { "tt=no", "cr_rts=no" } },			/* w/o both */
	{ "nas", { "oracle=yes" } },
	{ "nas", { "ca_order=users" } },
	{ "nas", { "congestion=0.01", "dm=0", "dr=0" } },	/* CR-RTS everywhere */
	{ "nas", { "congestion=0.01", "oracle=yes", "dm=3", "dr=3" } },
	{ "shufflewatcher", { NULL } },
	{ "shufflewatcher", { "scope=cluster" } },
	{ "shufflewatcher", { "congestion=0.01", "d=3" } },
};

static void run_variant(int i, const char *topo, const char *wl)
{
	char *kv[4];
	int n = 0;
	struct ctl *c;

	while (n < 4 && variants[i].kv[n]) {
		kv[n] = (char *)variants[i].kv[n];
		n++;
	}
	c = run(test_srcpath(topo), test_srcpath(wl), variants[i].sched, kv, n);
	ctl_free(c);
}

START_TEST(all_done_tiny)
{
	run_variant(_i, "topologies/tiny.topo", "workloads/small.wl");
}
END_TEST

START_TEST(all_done_rack8)
{
	run_variant(_i, "topologies/rack8.topo", "workloads/fb-small.wl");
}
END_TEST

/* Maps in waves (20 and 12 maps on tiny's 8 containers): with slowstart,
 * reduces start while maps still run. */
#define WAVES_WL \
	"job id=a user=u1 arrival=0s input=80MB shuffle=40MB output=0B maps=20 reduces=3 " \
	"map_time=1s reduce_time=1s\n" \
	"job id=b user=u2 arrival=0.5s input=48MB shuffle=24MB output=0B maps=12 reduces=2 " \
	"map_time=2s reduce_time=1s\n"

/* Co-scheduler §IV-A in the controller: no reduce before the job's last
 * map ends, no fetch before its last reduce has a container. */
static void check_barrier(const char *topo, const char *wl)
{
	struct ctl *c = run(topo, wl, "coscheduler", NULL, 0);
	struct cluster *cl = ctl_cluster(c);
	struct flow *const *f;
	size_t n, i, checked = 0;

	for (i = 0; i < cl->n_jobs; i++) {
		const struct hyde_job *j = &cl->jobs[i];
		int64_t last_map = -1, last_red = -1, first_red = INT64_MAX;
		uint32_t k;

		for (k = 0; k < j->wl->maps; k++)
			if (j->maps[k].end > last_map)
				last_map = j->maps[k].end;
		for (k = 0; k < j->wl->reduces; k++) {
			if (j->reduces[k].start > last_red)
				last_red = j->reduces[k].start;
			if (j->reduces[k].start < first_red)
				first_red = j->reduces[k].start;
		}
		if (j->wl->reduces)
			ck_assert_msg(first_red >= last_map, "job %s: a reduce before its maps end",
				      j->wl->id);
		f = ctl_flows(c, &n);
		for (k = 0; k < n; k++)
			if (f[k]->job == i && f[k]->kind == HYDE_FLOW_SHUFFLE) {
				ck_assert_msg(f[k]->start >= last_red,
					      "job %s: flow %u starts before its last reduce is placed",
					      j->wl->id, f[k]->id);
				checked++;
			}
	}
	ck_assert_uint_gt(checked, 0);
	ctl_free(c);
}

START_TEST(coscheduler_barrier)
{
	char *wp = test_write_tmp("sched", WAVES_WL, ".wl");

	check_barrier(test_srcpath("topologies/tiny.topo"), wp);
	check_barrier(test_srcpath("topologies/rack8.topo"), test_srcpath("workloads/fb-small.wl"));
	unlink(wp);
	free(wp);
}
END_TEST

/* Fair with slowstart does overlap on the same workload: the check above
 * can fail. */
START_TEST(fair_overlaps)
{
	char *wp = test_write_tmp("sched", WAVES_WL, ".wl");
	struct ctl *c = run(test_srcpath("topologies/tiny.topo"), wp, "fair", NULL, 0);
	struct cluster *cl = ctl_cluster(c);
	size_t i, early = 0;

	for (i = 0; i < cl->n_jobs; i++) {
		const struct hyde_job *j = &cl->jobs[i];
		int64_t last_map = -1;
		uint32_t k;

		for (k = 0; k < j->wl->maps; k++)
			if (j->maps[k].end > last_map)
				last_map = j->maps[k].end;
		for (k = 0; k < j->wl->reduces; k++)
			early += j->reduces[k].start < last_map;
	}
	ck_assert_uint_gt(early, 0);
	ctl_free(c);
	unlink(wp);
	free(wp);
}
END_TEST

/* Node-local share of the maps: delay with long waits runs every map on
 * a host holding its block; without waits it is fair. */
static double node_local(struct ctl *c, size_t *n_maps)
{
	struct cluster *cl = ctl_cluster(c);
	size_t i, local = 0, n = 0;

	for (i = 0; i < cl->n_jobs; i++) {
		const struct hyde_job *j = &cl->jobs[i];
		uint32_t k;

		for (k = 0; k < j->wl->maps; k++, n++)
			local += block_on_host(&j->blocks[k], (unsigned)j->maps[k].host);
	}
	*n_maps = n;
	return n ? (double)local / (double)n : 0;
}

/* No reduce of a job starts while one of its maps has not: reduces taking
 * the containers that waiting maps need can hold them all (fb jobs=1000 on
 * rack8 stalled so). */
static void check_maps_before_reduces(struct ctl *c)
{
	struct cluster *cl = ctl_cluster(c);
	size_t i;

	for (i = 0; i < cl->n_jobs; i++) {
		const struct hyde_job *j = &cl->jobs[i];
		int64_t last_map_start = -1;
		uint32_t k;

		for (k = 0; k < j->wl->maps; k++)
			if (j->maps[k].start > last_map_start)
				last_map_start = j->maps[k].start;
		for (k = 0; k < j->wl->reduces; k++)
			ck_assert_msg(j->reduces[k].start >= last_map_start,
				      "job %s: reduce %u starts before its last map", j->wl->id, k);
	}
}

START_TEST(delay_waits_for_locality)
{
	char *long_wait[] = { "node_wait=1h", "rack_wait=1h" };
	char *no_wait[] = { "node_wait=0s", "rack_wait=0s" };
	struct ctl *c;
	double fair, delay0, delay;
	size_t n;

	c = run(test_srcpath("topologies/rack8.topo"), test_srcpath("workloads/fb-small.wl"),
		"fair", NULL, 0);
	fair = node_local(c, &n);
	ctl_free(c);
	c = run(test_srcpath("topologies/rack8.topo"), test_srcpath("workloads/fb-small.wl"),
		"delay", no_wait, 2);
	delay0 = node_local(c, &n);
	ctl_free(c);
	c = run(test_srcpath("topologies/rack8.topo"), test_srcpath("workloads/fb-small.wl"),
		"delay", long_wait, 2);
	delay = node_local(c, &n);
	check_maps_before_reduces(c);
	ctl_free(c);
	/* maps in waves: a job waits for locality while its reduces may start */
	{
		char *wp = test_write_tmp("sched", WAVES_WL, ".wl");
		char *tp = test_write_tmp("sched", "racks 2\nhosts 4\ncontainers 2\nreplicas 1\nhost_rate 100Mbit\n"
				     "uplink_rate 40Mbit\nocs no\n", ".topo");

		c = run(tp, wp, "delay", long_wait, 2);
		ck_assert_double_eq_tol(node_local(c, &n), 1.0, 1e-12);
		check_maps_before_reduces(c);
		ctl_free(c);
		unlink(wp);
		unlink(tp);
		free(wp);
		free(tp);
	}
	ck_assert_uint_gt(n, 0);
	ck_assert_double_eq_tol(delay, 1.0, 1e-12);
	ck_assert_double_eq_tol(delay0, fair, 1e-12);
	ck_assert_msg(fair < 1.0, "fair ran every map node-local: the test shows nothing");
}
END_TEST

/* Delay's skip-count form (form=skip): a job skipped fewer than d times
 * launches node-local only; d = 0 is fair's choice at every offer. */
START_TEST(delay_skip_counts)
{
	char *forever[] = { "form=skip", "d=1000000" };
	char *none[] = { "form=skip", "d=0" };
	struct ctl *c;
	double fair, d0, dmax;
	size_t n;

	c = run(test_srcpath("topologies/rack8.topo"), test_srcpath("workloads/fb-small.wl"),
		"fair", NULL, 0);
	fair = node_local(c, &n);
	ctl_free(c);
	c = run(test_srcpath("topologies/rack8.topo"), test_srcpath("workloads/fb-small.wl"),
		"delay", none, 2);
	d0 = node_local(c, &n);
	ctl_free(c);
	c = run(test_srcpath("topologies/rack8.topo"), test_srcpath("workloads/fb-small.wl"),
		"delay", forever, 2);
	dmax = node_local(c, &n);
	check_maps_before_reduces(c);
	ctl_free(c);
	ck_assert_double_eq_tol(dmax, 1.0, 1e-12);
	ck_assert_double_eq_tol(d0, fair, 1e-12);
	ck_assert_msg(fair < 1.0, "fair ran every map node-local: the test shows nothing");
}
END_TEST

/* Co-scheduler §III-B: 3 racks, one job of 9 maps and 3 reduces, each map
 * sending 1 unit to each reduce, OCS at 1 unit per unit time (1MB, 8Mbit).
 * Co-scheduler places the input on 3 racks (R_map = sqrt(9MB / 1MB);
 * replicas 1, so the sets fit), 3 maps per rack, and PSRT's best D is one
 * reduce per rack: Case 2 of Fig. 2, whose CCT is T(C) = 6 + 2 delta.
 * Fair packs the maps on the first hosts it is offered: a longer CCT. */
#define III_B_TOPO \
	"racks 3\nhosts 2\ncontainers 4\nreplicas 1\nhost_rate 10Gbit\n" \
	"uplink_rate 1Gbit\nocs yes\nocs_rate 8Mbit\ndelta 100ms\nt_e 1MB\n"
#define III_B_WL \
	"job id=job1 arrival=0s input=9MB shuffle=27MB output=0B maps=9 reduces=3 " \
	"map_time=1s reduce_time=0s\n"

START_TEST(paper_iii_b)
{
	char *tp = test_write_tmp("sched", III_B_TOPO, ".topo");
	char *wp = test_write_tmp("sched", III_B_WL, ".wl");
	int64_t s_cs, e_cs, s_fair, e_fair;
	struct cluster *cl;
	struct ctl *c;
	unsigned per_rack[3] = { 0 }, k;

	c = run(tp, wp, "coscheduler", NULL, 0);
	ctl_coflow_times(c, 0, &s_cs, &e_cs);
	cl = ctl_cluster(c);
	for (k = 0; k < 9; k++)
		per_rack[topo_host_rack(cl->topo, (unsigned)cl->jobs[0].maps[k].host)]++;
	for (k = 0; k < 3; k++)
		ck_assert_uint_eq(per_rack[k], 3);
	memset(per_rack, 0, sizeof(per_rack));
	for (k = 0; k < 3; k++)
		per_rack[topo_host_rack(cl->topo, (unsigned)cl->jobs[0].reduces[k].host)]++;
	for (k = 0; k < 3; k++)
		ck_assert_uint_eq(per_rack[k], 1);
	ctl_free(c);
	c = run(tp, wp, "fair", NULL, 0);
	ctl_coflow_times(c, 0, &s_fair, &e_fair);
	ctl_free(c);
	ck_assert_int_eq(e_cs - s_cs, 6200000000LL);
	ck_assert_msg(e_cs - s_cs < e_fair - s_fair, "coscheduler CCT %lld, fair %lld",
		      (long long)(e_cs - s_cs), (long long)(e_fair - s_fair));
	unlink(tp);
	unlink(wp);
	free(tp);
	free(wp);
}
END_TEST

/* MTS on rack8 (T_e 4.5MB, 3 replicas): 36MB of input gives R_map =
 * floor(sqrt(36 / 4.5)) = 2; replica k of the 8 blocks lies evenly (4
 * blocks each) on the k-th of three disjoint pairs of racks, and the maps
 * run on 2 racks, each holding a replica of the blocks it runs. */
START_TEST(mts_placement)
{
	char *wp = test_write_tmp("sched", "job id=h arrival=0s input=36MB shuffle=36MB output=0B maps=8 reduces=2 "
			     "map_time=1s reduce_time=1s\n", ".wl");
	struct ctl *c = run(test_srcpath("topologies/rack8.topo"), wp, "coscheduler", NULL, 0);
	struct cluster *cl = ctl_cluster(c);
	const struct hyde_job *j = &cl->jobs[0];
	unsigned count[3][8] = { { 0 } }, used[8] = { 0 }, k, r, b, n;

	for (b = 0; b < 8; b++) {
		ck_assert_uint_eq(j->blocks[b].n_replicas, 3);
		for (k = 0; k < 3; k++)
			count[k][topo_host_rack(cl->topo, j->blocks[b].replica[k])]++;
		ck_assert(block_on_rack(cl, &j->blocks[b],
					topo_host_rack(cl->topo, (unsigned)j->maps[b].host)));
		used[topo_host_rack(cl->topo, (unsigned)j->maps[b].host)] = 1;
	}
	for (r = 0; r < 8; r++) {
		unsigned sets = 0;

		for (k = 0; k < 3; k++) {
			ck_assert(count[k][r] == 0 || count[k][r] == 4);
			sets += count[k][r] > 0;
		}
		ck_assert_uint_le(sets, 1); /* disjoint */
	}
	for (k = 0; k < 3; k++) {
		for (n = 0, r = 0; r < 8; r++)
			n += count[k][r] > 0;
		ck_assert_uint_eq(n, 2);
	}
	for (n = 0, r = 0; r < 8; r++)
		n += used[r];
	ck_assert_uint_le(n, 2);
	ctl_free(c);
	unlink(wp);
	free(wp);
}
END_TEST

/* A bad option value: one message naming the scheduler and the option. */
static const struct {
	const char *sched, *kv, *expect;
} bad_opts[] = {
	{ "delay", "node_wait=soon", "node_wait" },
	{ "coscheduler", "mts=maybe", "mts" },
	{ "coscheduler", "sir=-1", "sir" },
	{ "coscheduler", "nosuch=1", "nosuch" },
	{ "corral", "planned=2", "planned" },
	{ "coscheduler", "trem_error=2", "trem_error" },
	{ "nas", "congestion=-1", "congestion" },
	{ "nas", "tt=maybe", "tt" },
	{ "shufflewatcher", "congestion=0", "congestion" },
};

START_TEST(bad_option)
{
	char errbuf[HYDE_ERRBUF_SIZE], *kv = (char *)bad_opts[_i].kv;
	struct hyde_sched *s = NULL;

	ck_assert_int_lt(sched_new(bad_opts[_i].sched, &kv, 1, &s, errbuf), 0);
	ck_assert_ptr_null(s);
	ck_assert_msg(strstr(errbuf, bad_opts[_i].expect) && strstr(errbuf, bad_opts[_i].sched),
		      "%s", errbuf);
}
END_TEST

/* A value only init can judge: the same, from ctl_new. */
START_TEST(bad_option_at_init)
{
	char errbuf[HYDE_ERRBUF_SIZE], *kv = "objective=fast";
	struct ctl_opts o;
	struct ctl *c = NULL;

	ctl_opts_default(&o);
	o.topo_path = test_srcpath("topologies/tiny.topo");
	o.wl_spec = test_srcpath("workloads/small.wl");
	o.sched_name = "corral";
	o.sched_kv = &kv;
	o.n_sched_kv = 1;
	ck_assert_int_lt(ctl_new(&o, &c, errbuf), 0);
	ck_assert_ptr_null(c);
	ck_assert_msg(strstr(errbuf, "corral") && strstr(errbuf, "objective"), "%s", errbuf);
}
END_TEST

Suite *sched_suite(void)
{
	Suite *s = suite_create("sched");
	TCase *tc = tcase_create("policy");
	TCase *ts = tcase_create("sim");

	tcase_add_loop_test(tc, mts_r_map, 0, ARRAY_SIZE(r_map_cases));
	tcase_add_loop_test(tc, psrt_r_red_max, 0, ARRAY_SIZE(r_red_cases));
	tcase_add_loop_test(tc, sbs_t_rem, 0, ARRAY_SIZE(t_rem_cases));
	tcase_add_test(tc, psrt_hand_worked);
	tcase_add_test(tc, psrt_hand_worked_delta);
	tcase_add_loop_test(tc, psrt_place, 0, ARRAY_SIZE(place_cases));
	tcase_add_test(tc, psrt_max_racks);
	tcase_add_test(tc, explore_schedule_is_optimal);
	tcase_add_test(tc, select_best_schedule);
	tcase_add_loop_test(tc, ocas_levels, 0, ARRAY_SIZE(level_cases));
	tcase_add_test(tc, ocas_pick_order);
	tcase_add_loop_test(tc, delay_levels, 0, ARRAY_SIZE(delay_cases));
	tcase_add_test(tc, corral_latency);
	tcase_add_test(tc, fair_sort_ways);
	tcase_add_loop_test(tc, bad_option, 0, ARRAY_SIZE(bad_opts));
	tcase_add_test(tc, bad_option_at_init);
	suite_add_tcase(s, tc);
	tcase_set_timeout(ts, 120);
	tcase_add_loop_test(ts, all_done_tiny, 0, ARRAY_SIZE(variants));
	tcase_add_loop_test(ts, all_done_rack8, 0, ARRAY_SIZE(variants));
	tcase_add_test(ts, coscheduler_barrier);
	tcase_add_test(ts, fair_overlaps);
	tcase_add_test(ts, delay_waits_for_locality);
	tcase_add_test(ts, delay_skip_counts);
	tcase_add_test(ts, paper_iii_b);
	tcase_add_test(ts, mts_placement);
	tcase_add_test(ts, shufflewatcher_reduce_share);
	tcase_add_test(ts, shufflewatcher_map_cover);
	suite_add_tcase(s, ts);
	return s;
}
