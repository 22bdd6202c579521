/* Dawn ([Dawn §2.3, §3]): its rules on the paper's worked examples and
 * hand-made DAGs (dawn.h): Fig. 9 (ShuffleWatcher's 36 GB across racks
 * against Dawn's 20 GB), Table 1's three placements, eq. 2-7, balancing's
 * condition (Alg. 3) and the saturated / unsaturated job selection
 * (Alg. 1). */
#include "config.h"

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_hyde.h"
#include "core/util.h"
#include "core/wl_gen.h"
#include "ctl/ctl.h"
#include "sched/dawn.h"

#define TOL 1e-9

/* ---- eq. (2)-(4), (7): the data not on a rack, and the best rack ---- */

static const struct {
	double here[4];
	unsigned R, at;
	double cost_at;	 /* eq. 2 (or 7) at `at` */
	unsigned max;	 /* eq. 3-4's rack: most data, ties to the lower */
	double cost_min; /* R_Cost_min */
} cost_cases[] = {
	/* a job whose input is spread: any rack reads 3 of 4 GB remotely */
	{ { 1, 1, 1, 1 }, 4, 2, 3, 0, 3 },
	/* input aggregated by the previous level: 0 at its rack */
	{ { 0, 0, 4, 0 }, 4, 2, 0, 2, 0 },
	{ { 0, 0, 4, 0 }, 4, 0, 4, 2, 0 },
	/* intermediate data 7/2/3 GB: max_reduce 0 costs 5 (eq. 4); rack 2 costs 9 (eq. 7) */
	{ { 7, 2, 3 }, 3, 2, 9, 0, 5 },
	/* ties: the lower rack */
	{ { 3, 5, 5 }, 3, 1, 8, 1, 8 },
	/* nothing anywhere */
	{ { 0, 0 }, 2, 1, 0, 0, 0 },
};

START_TEST(eq_2_4)
{
	double c;
	unsigned m;

	ck_assert_double_eq_tol(dawn_cost_at(cost_cases[_i].here, cost_cases[_i].R,
					     cost_cases[_i].at),
				cost_cases[_i].cost_at, TOL);
	m = dawn_max_rack(cost_cases[_i].here, cost_cases[_i].R, &c);
	ck_assert_uint_eq(m, cost_cases[_i].max);
	ck_assert_double_eq_tol(c, cost_cases[_i].cost_min, TOL);
	/* eq. 3 is eq. 2 at max_map, and no rack costs less */
	ck_assert_double_eq_tol(c, dawn_cost_at(cost_cases[_i].here, cost_cases[_i].R, m), TOL);
	for (unsigned r = 0; r < cost_cases[_i].R; r++)
		ck_assert(dawn_cost_at(cost_cases[_i].here, cost_cases[_i].R, r) >= c - TOL);
}
END_TEST

/* ---- eq. (5)-(6) on a hand-made DAG ----
 * Job x (6 GB of output) has three children (Next_x): y1 whose other
 * parent (Prev_{x,y1}) finished with 9 GB on rack 2, y2 whose other
 * parent wrote 5 GB on rack 0, y3 with no other parent. Per candidate
 * rack r, In_y = Out_x on r + the co-parent's (eq. 5) and the children's
 * R_Cost_min summed (eq. 6):
 *   r=0: y1 {6,0,9} 6, y2 {11,0,0} 0, y3 {6,0,0} 0 -> 6
 *   r=1: y1 {0,6,9} 6, y2 {5,6,0} 5, y3 0           -> 11
 *   r=2: y1 {0,0,15} 0, y2 {5,0,6} 5, y3 0          -> 5  (dep_reduce) */
static const double y1_prev[3] = { 0, 0, 9 }, y2_prev[3] = { 5, 0, 0 };
static const struct dawn_child kids3[] = {
	{ 6, y1_prev },
	{ 6, y2_prev },
	{ 6, NULL },
};
static const double dep_costs[3] = { 6, 11, 5 };

START_TEST(eq_5_6)
{
	double c;

	ck_assert_double_eq_tol(dawn_dep_cost(kids3, 3, 3, (unsigned)_i), dep_costs[_i], TOL);
	/* whatever max_reduce is, dep_reduce is the cheapest rack */
	ck_assert_uint_eq(dawn_dep_reduce(kids3, 3, 3, (unsigned)_i, &c), 2);
	ck_assert_double_eq_tol(c, 5, TOL);
}
END_TEST

/* ties keep max_reduce: a child with no co-parent costs 0 anywhere */
START_TEST(dep_tie_keeps_max)
{
	double c;

	ck_assert_uint_eq(dawn_dep_reduce(&kids3[2], 1, 3, 1, &c), 1);
	ck_assert_double_eq_tol(c, 0, TOL);
	ck_assert_uint_eq(dawn_dep_reduce(&kids3[2], 1, 3, 2, &c), 2);
	/* no child at all (a last-level job): max_reduce */
	ck_assert_uint_eq(dawn_dep_reduce(NULL, 0, 3, 1, &c), 1);
}
END_TEST

/* ---- Fig. 9: six jobs on two racks, stage ratio 1:1 ----
 * Level 1: jobs 1 and 2 with one reduce each, intermediate data 10/8 GB
 * and 8/10 GB on racks 1/2 (so their output is 18 GB); jobs 3 and 4,
 * finished, wrote 10 GB on rack 2 and on rack 1. Level 2: job 5 reads
 * jobs 1 and 3, job 6 jobs 2 and 4. ShuffleWatcher puts each reduce on
 * the rack with most intermediate data (8 + 8 GB shuffled) and leaves
 * jobs 5 and 6 to read 10 + 10 GB across: 36 GB. Dawn's dep_reduce puts
 * them with the co-parents' output (10 + 10 GB shuffled, then nothing):
 * 20 GB, 44% less. (The figure's numbers are read from §3.2.2's text: the
 * 8G+8G shuffle, the 10G+10G dependent reads and the 10G+10G of Dawn's
 * shuffle fix them.) */
static const double fig9_p3[2] = { 0, 10 }, fig9_p4[2] = { 10, 0 };
static const struct {
	double inter[2];
	const double *co_out; /* the finished co-parent's output */
	unsigned max_reduce, dep_reduce;
	double sw_shuffle, sw_child, dawn_shuffle, dawn_child;
} fig9[] = {
	{ { 10, 8 }, fig9_p3, 0, 1, 8, 10, 10, 0 }, /* job 1 (child: job 5) */
	{ { 8, 10 }, fig9_p4, 1, 0, 8, 10, 10, 0 }, /* job 2 (child: job 6) */
};

static double fig9_job(unsigned k, bool dawn, bool check)
{
	struct dawn_child y = { fig9[k].inter[0] + fig9[k].inter[1], fig9[k].co_out };
	double eq4, eq7, dep_cost;
	unsigned mx = dawn_max_rack(fig9[k].inter, 2, &eq4);
	unsigned dep = dawn_dep_reduce(&y, 1, 2, mx, &dep_cost);
	double child_at_max = dawn_dep_cost(&y, 1, 2, mx);

	eq7 = dawn_cost_at(fig9[k].inter, 2, dep);
	if (check) {
		ck_assert_uint_eq(mx, fig9[k].max_reduce);
		ck_assert_uint_eq(dep, fig9[k].dep_reduce);
		ck_assert_double_eq_tol(eq4, fig9[k].sw_shuffle, TOL);
		ck_assert_double_eq_tol(child_at_max, fig9[k].sw_child, TOL);
		ck_assert_double_eq_tol(eq7, fig9[k].dawn_shuffle, TOL);
		ck_assert_double_eq_tol(dep_cost, fig9[k].dawn_child, TOL);
	}
	return dawn ? eq7 + dep_cost : eq4 + child_at_max;
}

START_TEST(fig9_jobs)
{
	fig9_job((unsigned)_i, true, true);
}
END_TEST

START_TEST(fig9_totals)
{
	double sw = fig9_job(0, false, false) + fig9_job(1, false, false);
	double dawn = fig9_job(0, true, false) + fig9_job(1, true, false);

	ck_assert_double_eq_tol(sw, 36, TOL);
	ck_assert_double_eq_tol(dawn, 20, TOL);
	ck_assert_double_eq_tol(1 - dawn / sw, 0.44, 0.005); /* "reducing the traffic by 44%" */
}
END_TEST

/* ---- Table 1 (§2.3): four nodes (the case study's "racks"), job 1's
 * four 1 GB maps and job 9, which reads jobs 1 and 2 (2 GB each) ----
 * Dependency-unaware: maps local, job 1's reduces and job 2's where they
 * fell (nodes 0 and 1): job 9's input is 2/2 GB and its reduce stage reads
 * 2 GB remotely. Dependency-aware: job 1's output goes to dep_reduce, with
 * job 2's (node 1): job 9 is local. With map aggregation: job 1's maps on
 * max_map read 3 GB remotely and nothing after. */
static const struct {
	const char *name;
	double in1[4];
	bool aggregate; /* maps aggregated on max_map (§3.2.1) */
	bool aware;	/* job 1's output on dep_reduce (else on out1) */
	double out1[4], out2[4];
	double map1, red1, map9, red9; /* Table 1, GB */
} table1[] = {
	{ "unaware", { 1, 1, 1, 1 }, false, false, { 1, 1, 0, 0 }, { 1, 1, 0, 0 }, 0, 3, 0, 2 },
	{ "aware", { 1, 1, 1, 1 }, false, true, { 0 }, { 0, 2, 0, 0 }, 0, 3, 0, 0 },
	{ "map aggregation", { 1, 1, 1, 1 }, true, true, { 0 }, { 2, 0, 0, 0 }, 3, 0, 0, 0 },
};

/* Stage ratio 1:1: a stage's data sits where the stage before ran. */
static void stage_after(const double *in, bool aggregate, double *inter, double *cost)
{
	double total = in[0] + in[1] + in[2] + in[3];
	unsigned m = dawn_max_rack(in, 4, NULL), r;

	for (r = 0; r < 4; r++)
		inter[r] = aggregate ? (r == m ? total : 0) : in[r];
	*cost = aggregate ? dawn_cost_at(in, 4, m) : 0; /* eq. 3, or node-local maps */
}

START_TEST(table1_rows)
{
	double inter1[4], in9[4], inter9[4], out1[4], map1, red1, map9, red9;
	unsigned mx, dep, r;
	double total1;

	stage_after(table1[_i].in1, table1[_i].aggregate, inter1, &map1);
	total1 = inter1[0] + inter1[1] + inter1[2] + inter1[3];
	mx = dawn_max_rack(inter1, 4, &red1); /* eq. 4 */
	if (table1[_i].aware) {
		struct dawn_child y = { total1 / 2, table1[_i].out2 };

		dep = dawn_dep_reduce(&y, 1, 4, mx, NULL);
		red1 = dawn_cost_at(inter1, 4, dep); /* eq. 7 */
		for (r = 0; r < 4; r++)
			out1[r] = r == dep ? total1 / 2 : 0;
	} else {
		memcpy(out1, table1[_i].out1, sizeof(out1));
	}
	for (r = 0; r < 4; r++) /* eq. 5 */
		in9[r] = out1[r] + table1[_i].out2[r];
	stage_after(in9, table1[_i].aggregate, inter9, &map9);
	dawn_max_rack(inter9, 4, &red9);
	ck_assert_msg(fabs(map1 - table1[_i].map1) < TOL && fabs(red1 - table1[_i].red1) < TOL &&
			      fabs(map9 - table1[_i].map9) < TOL && fabs(red9 - table1[_i].red9) < TOL,
		      "%s: %g/%g/%g/%g GB, Table 1 says %g/%g/%g/%g", table1[_i].name, map1, red1,
		      map9, red9, table1[_i].map1, table1[_i].red1, table1[_i].map9,
		      table1[_i].red9);
}
END_TEST

/* ---- Alg. 3: balancing ---- */

static const struct {
	unsigned p_i, p_max;
	double b;
	bool balance;
} bal_cases[] = {
	{ 0, 5, 0, true },    /* b = 0: a rack nobody prefers (§3.3.2) */
	{ 1, 5, 0, false },   /* ... and only such a rack */
	{ 1, 5, 0.2, true },  /* 1 <= 0.2 x 5 */
	{ 2, 5, 0.2, false }, /* 2 > 1 */
	{ 2, 5, 0.4, true },
	{ 3, 5, 0.6, true },
	{ 4, 5, 0.6, false },
	{ 0, 0, 0, false },   /* nobody prefers anything: no hotspot */
	{ 5, 5, 1, false },   /* rack i is the hotspot itself */
	{ 4, 5, 1, true },
};

START_TEST(balance_condition)
{
	ck_assert_int_eq(dawn_should_balance(bal_cases[_i].p_i, bal_cases[_i].p_max, bal_cases[_i].b),
			 bal_cases[_i].balance);
}
END_TEST

/* Jobs preferring {0}, {0}, {0,1}, {1}: P = 3, 2, 0. */
START_TEST(balance_masks)
{
	uint64_t pref[4] = { 1, 1, 3, 2 };

	/* rack 2, nobody's, at b = 0: the three jobs of rack 0 gain it */
	ck_assert_uint_eq(dawn_balance(pref, 4, 3, 2, 0), 3);
	ck_assert_uint_eq(pref[0], 5);
	ck_assert_uint_eq(pref[1], 5);
	ck_assert_uint_eq(pref[2], 7);
	ck_assert_uint_eq(pref[3], 2);
	/* rack 1 (P_1 = 2 of P_max = 3): not at b = 0, at b = 0.8 */
	ck_assert_uint_eq(dawn_balance(pref, 4, 3, 1, 0), 0);
	ck_assert_uint_eq(dawn_balance(pref, 4, 3, 1, 0.8), 2);
	ck_assert_uint_eq(pref[0], 7);
	ck_assert_uint_eq(pref[1], 7);
	{
		/* every rack of a job's mask counts: {0,1}, {0,1}, {2}
		 * make P = 2, 2, 1, so rack 1 is no hotspot's underdog */
		uint64_t two[3] = { 3, 3, 4 };
		/* and racks past 32: {40,63}, {63}: P_63 = 2, P_40 = 1 */
		uint64_t far[2] = { 1ULL << 40 | 1ULL << 63, 1ULL << 63 };

		ck_assert_uint_eq(dawn_balance(two, 3, 3, 1, 1), 0);
		ck_assert_uint_eq(two[2], 4);
		ck_assert_uint_eq(dawn_balance(far, 2, 64, 40, 0.5), 1);
		ck_assert_uint_eq(far[1], 1ULL << 40 | 1ULL << 63);
	}
}
END_TEST

/* ---- Alg. 1: job selection on rack 0 of two ----
 * A prefers {0,1}, traffic 10 / 2 GB there; B prefers {0}, 5 GB; C
 * prefers {1} only; D prefers {0} at 5 GB like B but its task on the host
 * reads less across nodes. */
static const double cA[2] = { 10, 2 }, cB[2] = { 5, 7 }, cC[2] = { 1, 0 }, cD[2] = { 5, 9 };

static const struct {
	const char *name;
	struct dawn_cand c[4];
	size_t n;
	bool saturated;
	enum dawn_sort sort;
	long pick;
} sel_cases[] = {
	/* saturated: the least traffic on rack 0 (B); C (cheaper, but not
	 * preferring rack 0) is never taken */
	{ "sat", { { 3, cA, 0 }, { 1, cB, 0 }, { 2, cC, 0 } }, 3, true, DAWN_SORT_RACK, 1 },
	/* unsaturated: the most (A) */
	{ "unsat", { { 3, cA, 0 }, { 1, cB, 0 }, { 2, cC, 0 } }, 3, false, DAWN_SORT_RACK, 0 },
	/* literal sort: A's smallest over its racks is 2 < 5 */
	{ "sat minmax", { { 3, cA, 0 }, { 1, cB, 0 } }, 2, true, DAWN_SORT_MINMAX, 0 },
	{ "unsat minmax", { { 3, cA, 0 }, { 1, cB, 0 } }, 2, false, DAWN_SORT_MINMAX, 0 },
	/* equal traffic: the node level, least cross-node when saturated ... */
	{ "tie sat", { { 1, cB, 3 }, { 1, cD, 1 } }, 2, true, DAWN_SORT_RACK, 1 },
	/* ... most when not */
	{ "tie unsat", { { 1, cB, 3 }, { 1, cD, 1 } }, 2, false, DAWN_SORT_RACK, 0 },
	/* full tie: submission order */
	{ "full tie", { { 1, cB, 1 }, { 1, cD, 1 } }, 2, true, DAWN_SORT_RACK, 0 },
	/* nobody prefers rack 0: the container stays idle */
	{ "idle", { { 2, cC, 0 } }, 1, false, DAWN_SORT_RACK, -1 },
};

START_TEST(select_job)
{
	long k = dawn_select(sel_cases[_i].c, sel_cases[_i].n, 2, 0, sel_cases[_i].saturated,
			     sel_cases[_i].sort);

	ck_assert_msg(k == sel_cases[_i].pick, "%s: picked %ld, expected %ld", sel_cases[_i].name,
		      k, sel_cases[_i].pick);
}
END_TEST

/* ---- hyde gen dag preset=ml|tpch (§2.2, §5.2, Table 2) ---- */

static struct workload *gen(const char *preset, unsigned dags)
{
	char errbuf[HYDE_ERRBUF_SIZE], kv[64];
	struct gen_dag_opts o;
	struct workload *wl = NULL;

	gen_dag_opts_default(&o);
	snprintf(kv, sizeof(kv), "preset=%s", preset);
	ck_assert_int_eq(gen_dag_opts_set(&o, kv, errbuf), 0);
	snprintf(kv, sizeof(kv), "dags=%u", dags);
	ck_assert_int_eq(gen_dag_opts_set(&o, kv, errbuf), 0);
	ck_assert_int_eq(gen_dag_opts_set(&o, "mean_gap=24.8s", errbuf), 0);
	ck_assert_msg(wl_gen_dag(&o, &wl, errbuf) == 0, "%s", errbuf);
	return wl;
}

/* Per DAG (app): its depth, first-level input, and the bytes its jobs
 * read from parents plus shuffle (dependent + intermediate data). */
static void dag_stats(const struct workload *wl, unsigned *depth, double *input, double *later)
{
	unsigned *lv = calloc(wl->n_jobs, sizeof(unsigned));
	size_t i;
	uint32_t k;

	for (i = 0; i < wl->n_apps; i++) {
		depth[i] = 0;
		input[i] = later[i] = 0;
	}
	for (i = 0; i < wl->n_jobs; i++) { /* parents come first in a generated file */
		const struct wl_job *j = &wl->jobs[i];
		size_t a = wl->app_of[i];

		lv[i] = 1;
		for (k = 0; k < j->n_parents; k++) {
			ck_assert_uint_lt(j->parents[k], i);
			ck_assert_uint_eq(wl->app_of[j->parents[k]], a); /* a DAG is an app */
			if (lv[j->parents[k]] + 1 > lv[i])
				lv[i] = lv[j->parents[k]] + 1;
		}
		if (lv[i] > depth[a])
			depth[a] = lv[i];
		if (j->n_parents) {
			ck_assert(j->input_from_parents);
			later[a] += (double)j->input;
		} else {
			input[a] += (double)j->input;
		}
		later[a] += (double)j->shuffle;
	}
	free(lv);
}

/* Table 2: each ML DAG has its benchmark's depth and one of its three
 * input sizes; dependent and intermediate data outweigh the input (Fig. 3). */
START_TEST(gen_ml)
{
	static const struct {
		const char *name;
		unsigned depth;
		double in[3];
	} t2[] = {
		{ "kmeans", 11, { 2.5, 6.5, 10.2 } },	{ "bayes", 8, { 5.8, 7.8, 11.9 } },
		{ "pagerank", 11, { 3.4, 6.6, 8.8 } }, { "mf", 21, { 4.5, 5.5, 7.3 } },
		{ "lda", 18, { 6.2, 8.4, 10.1 } },
	};
	struct workload *wl = gen("ml", 60);
	unsigned depth[60], seen[5] = { 0 };
	double input[60], later[60];
	size_t a, i;
	int b;

	ck_assert_uint_eq(wl->n_apps, 60);
	dag_stats(wl, depth, input, later);
	for (a = 0; a < wl->n_apps; a++) {
		for (i = 0; i < wl->n_jobs && wl->app_of[i] != a; i++)
			;
		for (b = 0; b < 5 && !strstr(wl->jobs[i].id, t2[b].name); b++)
			;
		ck_assert_int_lt(b, 5);
		seen[b]++;
		ck_assert_uint_eq(depth[a], t2[b].depth);
		ck_assert_msg(fabs(input[a] - t2[b].in[0] * 1e9) < 1 ||
				      fabs(input[a] - t2[b].in[1] * 1e9) < 1 ||
				      fabs(input[a] - t2[b].in[2] * 1e9) < 1,
			      "%s: input %g", t2[b].name, input[a]);
		ck_assert_msg(later[a] > 3 * input[a], "%s: %g vs %g", t2[b].name, later[a],
			      input[a]);
	}
	for (b = 0; b < 5; b++)
		ck_assert_uint_gt(seen[b], 0);
	wl_free(wl);
}
END_TEST

/* scale= multiplies every generated size, presets and random alike. */
START_TEST(gen_scale)
{
	static const char *const preset[] = { "random", "ml", "tpch" };
	char errbuf[HYDE_ERRBUF_SIZE], kv[32];
	struct gen_dag_opts o;
	struct workload *w1 = NULL, *w2 = NULL;
	size_t i;

	gen_dag_opts_default(&o);
	snprintf(kv, sizeof(kv), "preset=%s", preset[_i]);
	ck_assert_int_eq(gen_dag_opts_set(&o, kv, errbuf), 0);
	ck_assert_int_eq(wl_gen_dag(&o, &w1, errbuf), 0);
	ck_assert_int_eq(gen_dag_opts_set(&o, "scale=0.25", errbuf), 0);
	ck_assert_int_eq(wl_gen_dag(&o, &w2, errbuf), 0);
	ck_assert_uint_eq(w1->n_jobs, w2->n_jobs);
	for (i = 0; i < w1->n_jobs; i++)
		if (!w1->jobs[i].n_parents)
			ck_assert_msg(llabs((long long)w2->jobs[i].input -
					    llround((double)w1->jobs[i].input * 0.25)) <= 1,
				      "%s: %s input %llu, unscaled %llu", preset[_i], w1->jobs[i].id,
				      (unsigned long long)w2->jobs[i].input,
				      (unsigned long long)w1->jobs[i].input);
	wl_free(w1);
	wl_free(w2);
}
END_TEST

/* The 22 queries, once each: §2.2's median depth of 5, and DAGs with
 * joins of two parents. */
START_TEST(gen_tpch)
{
	struct workload *wl = gen("tpch", 22);
	unsigned depth[22], sorted[22], two = 0;
	double input[22], later[22];
	size_t a, i, j;

	ck_assert_uint_eq(wl->n_apps, 22);
	dag_stats(wl, depth, input, later);
	memcpy(sorted, depth, sizeof(sorted));
	for (i = 0; i < 22; i++)
		for (j = i + 1; j < 22; j++)
			if (sorted[j] < sorted[i]) {
				unsigned t = sorted[i];

				sorted[i] = sorted[j];
				sorted[j] = t;
			}
	ck_assert_uint_eq(sorted[10], 5);
	ck_assert_uint_eq(sorted[11], 5);
	for (a = 0; a < 22; a++) {
		ck_assert_uint_ge(depth[a], 3); /* scan, group-by, order-by at least */
		ck_assert(input[a] <= 50e9 * 2); /* 50 GB of tables, a few read twice */
	}
	for (i = 0; i < wl->n_jobs; i++)
		two += wl->jobs[i].n_parents >= 2;
	ck_assert_uint_gt(two, 0);
	wl_free(wl);
}
END_TEST

/* ---- in the simulator ---- */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path);
}

/* Runs the workload; returns the file's text (summary.json or events.log). */
static char *run_sim(const char *sched, const char *topo, const char *wl, uint64_t seed,
		     char *kv, const char *file)
{
	char errbuf[HYDE_ERRBUF_SIZE], dir[] = "/tmp/hyde-dawn-XXXXXX", path[128];
	char *kvs[1] = { kv };
	struct ctl_totals tot;
	struct ctl_opts o;
	struct ctl *c;
	char *text;
	FILE *f;
	long n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ctl_opts_default(&o);
	o.topo_path = topo;
	o.wl_spec = wl;
	o.sched_name = sched;
	o.sched_kv = kvs;
	o.n_sched_kv = kv ? 1 : 0;
	o.outdir = dir;
	o.seed = seed;
	o.quiet = true;
	ck_assert_msg(ctl_new(&o, &c, errbuf) == 0, "%s", errbuf);
	ck_assert_msg(ctl_run(c, errbuf) == 0, "%s", errbuf);
	ctl_totals(c, &tot);
	ck_assert_uint_eq(tot.jobs_done, tot.jobs);
	ctl_free(c);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	ck_assert_uint_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return text;
}

/* paper_metrics.cross_rack_per_dag.<key> of a summary.json */
static double per_dag(const char *json, const char *key)
{
	const char *p = strstr(json, "\"cross_rack_per_dag\"");
	char k[32];

	ck_assert_ptr_nonnull(p);
	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(p, k);
	ck_assert_ptr_nonnull(p);
	return strtod(p + strlen(k), NULL);
}

/* Two racks, one replica: two chains of two jobs (a -> b on rack 0's
 * input, c -> d on rack 1's). Under dawn each chain stays on its rack: its
 * maps on max_map, its reduces on max_reduce = dep_reduce, its child's
 * maps where the output is; nothing crosses the racks. Fair places
 * reduces where containers are free, so children read their parents'
 * output across racks. */
static const char two_topo[] = "name two\nracks 2\nhosts 2\ncontainers 2\nreplicas 1\n"
			       "host_rate 1Gbit\nuplink_rate 1Gbit\nocs no\n";
static const char two_wl[] =
	"job id=a user=u arrival=0s input=400MB shuffle=400MB output=400MB maps=4 reduces=2 map_time=2s reduce_time=2s app=x input_racks=0\n"
	"job id=b user=u arrival=0s input=parents shuffle=400MB output=100MB maps=4 reduces=2 map_time=2s reduce_time=2s app=x parents=a\n"
	"job id=c user=v arrival=0s input=400MB shuffle=400MB output=400MB maps=4 reduces=2 map_time=2s reduce_time=2s app=y input_racks=1\n"
	"job id=d user=v arrival=0s input=parents shuffle=400MB output=100MB maps=4 reduces=2 map_time=2s reduce_time=2s app=y parents=c\n";

START_TEST(chains_stay_local)
{
	char *topo = test_write_tmp("dawn", two_topo, ".topo");
	char *wl = test_write_tmp("dawn", two_wl, ".wl");
	double fair_dep = 0;
	uint64_t seed;

	for (seed = 1; seed <= 4; seed++) {
		char *j = run_sim("dawn", topo, wl, seed, NULL, "summary.json");
		char *log = run_sim("dawn", topo, wl, seed, NULL, "events.log");

		/* Fig. 14's count: every task, each with its data on the rack,
		 * none while saturated (nothing crosses) */
		ck_assert_ptr_nonnull(strstr(log, "tasks input: saturated local=0 cross=0 "
						  "unsaturated local=8 cross=0"));
		ck_assert_ptr_nonnull(strstr(log, "tasks dependent: saturated local=0 cross=0 "
						  "unsaturated local=8 cross=0"));
		ck_assert_ptr_nonnull(strstr(log, "tasks intermediate: saturated local=0 cross=0 "
						  "unsaturated local=8 cross=0"));
		free(log);

		ck_assert_double_eq(per_dag(j, "dependent"), 0);
		ck_assert_double_eq(per_dag(j, "shuffle"), 0);
		ck_assert_double_eq(per_dag(j, "input"), 0);
		free(j);
		j = run_sim("fair", topo, wl, seed, NULL, "summary.json");
		fair_dep += per_dag(j, "dependent");
		free(j);
	}
	ck_assert(fair_dep > 0);
	unlink(topo);
	unlink(wl);
	free(topo);
	free(wl);
}
END_TEST

static double json_after(const char *from, const char *key);

/* Alg. 1's saturation flag from the network view: a job whose blocks
 * alternate between the racks is aggregated on one (max_map) and reads
 * half its input over a 20 Mbit/s uplink while small jobs ask for
 * containers; at theta 0.8 some offers are answered saturated, at a theta
 * no interval reaches (10) none, and as many offers are answered. */
static const char sat_topo[] = "name sat\nracks 2\nhosts 2\ncontainers 2\nreplicas 1\n"
			       "host_rate 100Mbit\nuplink_rate 20Mbit\nocs no\n";
static const char sat_wl[] =
	"job id=big user=u arrival=0s input=64MB shuffle=8MB output=8MB maps=8 reduces=2 map_time=1s reduce_time=1s input_racks=0,1\n"
	"job id=l1 user=v arrival=3s input=1MB shuffle=1MB output=1MB maps=1 reduces=1 map_time=1s reduce_time=1s input_racks=0\n"
	"job id=l2 user=v arrival=4s input=1MB shuffle=1MB output=1MB maps=1 reduces=1 map_time=1s reduce_time=1s input_racks=1\n"
	"job id=l3 user=v arrival=5s input=1MB shuffle=1MB output=1MB maps=1 reduces=1 map_time=1s reduce_time=1s input_racks=0\n";

START_TEST(saturation_flag)
{
	char *topo = test_write_tmp("dawn", sat_topo, ".topo");
	char *wl = test_write_tmp("dawn", sat_wl, ".wl");
	char t1[] = "theta=0.8", t2[] = "theta=10";
	char *l1 = run_sim("dawn", topo, wl, 1, t1, "events.log");
	char *l2 = run_sim("dawn", topo, wl, 1, t2, "events.log");
	double s1 = json_after(l1, "offers saturated="), u1 = json_after(l1, " unsaturated=");
	double s2 = json_after(l2, "offers saturated="), u2 = json_after(l2, " unsaturated=");

	ck_assert(s1 > 0);
	ck_assert_double_eq(s2, 0);
	ck_assert_double_eq(s1 + u1, s2 + u2);
	free(l1);
	free(l2);
	unlink(topo);
	unlink(wl);
	free(topo);
	free(wl);
}
END_TEST

/* paper_metrics.dags: a DAG's WCT runs from its submission to its last
 * job's end (app/jobs.csv's end_ns), whichever scheduler: DAG y arrives
 * at 5 s. */
static const char wct_wl[] =
	"job id=a user=u arrival=0s input=40MB shuffle=40MB output=40MB maps=4 reduces=2 map_time=2s reduce_time=2s app=x\n"
	"job id=b user=u arrival=0s input=parents shuffle=40MB output=10MB maps=4 reduces=2 map_time=2s reduce_time=2s app=x parents=a\n"
	"job id=c user=v arrival=5s input=40MB shuffle=40MB output=40MB maps=4 reduces=2 map_time=3s reduce_time=2s app=y\n"
	"job id=d user=v arrival=5s input=parents shuffle=40MB output=10MB maps=4 reduces=2 map_time=2s reduce_time=2s app=y parents=c\n";

static double json_after(const char *from, const char *key)
{
	const char *p = strstr(from, key);

	ck_assert_msg(p != NULL, "no %s", key);
	return strtod(p + strlen(key), NULL);
}

/* end_ns of a job in app/jobs.csv's text (column 7) */
static double job_end(const char *csv, const char *job)
{
	char pre[16];
	const char *p;
	int k;

	snprintf(pre, sizeof(pre), "\n%s,", job);
	p = strstr(csv, pre);
	ck_assert_ptr_nonnull(p);
	for (k = 0; k < 6; k++)
		p = strchr(p + 1, ',');
	return strtod(p + 1, NULL);
}

START_TEST(wct_per_dag)
{
	static const char *const sched[] = { "dawn", "fair" };
	char *topo = test_write_tmp("dawn", two_topo, ".topo");
	char *wl = test_write_tmp("dawn", wct_wl, ".wl");
	char *j = run_sim(sched[_i], topo, wl, 3, NULL, "summary.json");
	char *csv = run_sim(sched[_i], topo, wl, 3, NULL, "app/jobs.csv");
	const char *x = strstr(j, "\"id\": \"x\""), *y = strstr(j, "\"id\": \"y\"");
	double ex = job_end(csv, "b") / 1e9, ey = job_end(csv, "d") / 1e9;

	ck_assert_ptr_nonnull(x);
	ck_assert_ptr_nonnull(y);
	ck_assert_double_eq_tol(json_after(x, "\"submit_s\": "), 0, 1e-6);
	ck_assert_double_eq_tol(json_after(x, "\"wct_s\": "), ex, 1e-6);
	ck_assert_double_eq_tol(json_after(y, "\"submit_s\": "), 5, 1e-6);
	ck_assert_double_eq_tol(json_after(y, "\"end_s\": "), ey, 1e-6);
	ck_assert_double_eq_tol(json_after(y, "\"wct_s\": "), ey - 5, 1e-6);
	ck_assert_double_eq_tol(json_after(j, "\"avg_wct_s\": "), (ex + ey - 5) / 2, 1e-6);
	ck_assert_double_eq(json_after(j, "\"dags_done\": "), 2);
	free(j);
	free(csv);
	unlink(topo);
	unlink(wl);
	free(topo);
	free(wl);
}
END_TEST

/* The dependency detector and eq. 5-6 wired to the cluster: x's input is
 * on rack 0 (max_reduce 0), its co-parent z (Prev_{x,y}) finished with
 * 800 MB on rack 1, and their child y reads both: dep_reduce is rack 1.
 * dep=no never departs from max_reduce. */
static const char dep_wl[] =
	"job id=z user=u arrival=0s input=10MB shuffle=10MB output=800MB maps=1 reduces=1 map_time=1s reduce_time=1s input_racks=1\n"
	"job id=x user=u arrival=0s input=400MB shuffle=400MB output=400MB maps=4 reduces=2 map_time=8s reduce_time=2s input_racks=0\n"
	"job id=y user=u arrival=0s input=parents shuffle=100MB output=10MB maps=4 reduces=1 map_time=1s reduce_time=1s parents=x,z\n";

static unsigned long long dep_diff(const char *log)
{
	const char *p = strstr(log, "dep_reduce!=max_reduce=");

	ck_assert_ptr_nonnull(p);
	return strtoull(p + strlen("dep_reduce!=max_reduce="), NULL, 10);
}

START_TEST(dep_reduce_in_cluster)
{
	char *topo = test_write_tmp("dawn", two_topo, ".topo");
	char *wl = test_write_tmp("dawn", dep_wl, ".wl");
	char no[] = "dep=no";
	char *log = run_sim("dawn", topo, wl, 1, NULL, "events.log");

	ck_assert_uint_eq(dep_diff(log), 1); /* x, the one job with a co-parent */
	free(log);
	log = run_sim("dawn", topo, wl, 1, no, "events.log");
	ck_assert_uint_eq(dep_diff(log), 0);
	free(log);
	unlink(topo);
	unlink(wl);
	free(topo);
	free(wl);
}
END_TEST

Suite *dawn_suite(void)
{
	Suite *s = suite_create("dawn");
	TCase *tc = tcase_create("rules");

	tcase_add_loop_test(tc, eq_2_4, 0, ARRAY_SIZE(cost_cases));
	tcase_add_loop_test(tc, eq_5_6, 0, 3);
	tcase_add_test(tc, dep_tie_keeps_max);
	tcase_add_loop_test(tc, fig9_jobs, 0, ARRAY_SIZE(fig9));
	tcase_add_test(tc, fig9_totals);
	tcase_add_loop_test(tc, table1_rows, 0, ARRAY_SIZE(table1));
	tcase_add_loop_test(tc, balance_condition, 0, ARRAY_SIZE(bal_cases));
	tcase_add_test(tc, balance_masks);
	tcase_add_loop_test(tc, select_job, 0, ARRAY_SIZE(sel_cases));
	suite_add_tcase(s, tc);
	tc = tcase_create("gen");
	tcase_add_test(tc, gen_ml);
	tcase_add_test(tc, gen_tpch);
	tcase_add_loop_test(tc, gen_scale, 0, 3);
	suite_add_tcase(s, tc);
	tc = tcase_create("sim");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, chains_stay_local);
	tcase_add_test(tc, dep_reduce_in_cluster);
	tcase_add_loop_test(tc, wct_per_dag, 0, 2);
	tcase_add_test(tc, saturation_flag);
	suite_add_tcase(s, tc);
	return s;
}
