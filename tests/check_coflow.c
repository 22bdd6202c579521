#include "config.h"

#include <string.h>

#include "check_hyde.h"
#include "core/coflow.h"

/* Co-scheduler §III-B: 3 racks, OCS at 1 unit per unit time. Job1 has 9
 * maps and 3 reduces, each map sends 1 unit to each reduce.
 * Case 2 (Fig. 2b): maps 3 per rack, reduces 1 per rack: every rack sends
 * 3 units to each other rack, so a row holds two entries of 3 / 1 + delta:
 * T(C) = 6 + 2 delta (the paper's CCT for Job1 in Case 2 is this bound).
 * A placement with two reduces on rack 0 and one on rack 1 (maps still 3
 * per rack) makes rack 0 receive 6 units from rack 1 and 6 from rack 2:
 * T(C) = 12 + 2 delta, the CCT the paper states for Job1 in Case 1. */
static const struct {
	uint32_t reduce_rack[3];
	double delta;
	double want; /* T(C) */
} cases[] = {
	{ { 0, 1, 2 }, 0.5, 6 + 2 * 0.5 },
	{ { 0, 1, 2 }, 0.0, 6 },
	{ { 0, 0, 1 }, 0.5, 12 + 2 * 0.5 },
	{ { 0, 0, 0 }, 0.1, 18 + 2 * 0.1 },
};

START_TEST(paper_example_units)
{
	struct wl_job j = { .maps = 9, .reduces = 3, .shuffle = 27 };
	uint32_t map_rack[9] = { 0, 0, 0, 1, 1, 1, 2, 2, 2 };
	struct tmatrix tm;
	double c[9];
	unsigned i;

	tm_init(&tm, 3);
	tm_of_placement(&tm, &j, map_rack, cases[_i].reduce_rack);
	for (i = 0; i < 9; i++)
		c[i] = (double)tm.c[i];
	ck_assert_double_eq_tol(tm_lower_bound_units(c, 3, 1.0, cases[_i].delta),
				cases[_i].want, 1e-12);
	tm_free(&tm);
}
END_TEST

/* The same in real units: 1 unit = 1MB, bw_o = 8Mbit/s (1MB/s), delta
 * 10ms: T(C) = 6s + 20ms. Entries below min_bytes do not count. */
START_TEST(paper_example_ns)
{
	struct wl_job j = { .maps = 9, .reduces = 3, .shuffle = 27000000 };
	uint32_t map_rack[9] = { 0, 0, 0, 1, 1, 1, 2, 2, 2 };
	uint32_t red_rack[3] = { 0, 1, 2 };
	struct tmatrix tm;

	tm_init(&tm, 3);
	tm_of_placement(&tm, &j, map_rack, red_rack);
	ck_assert_uint_eq(tm_get(&tm, 0, 1), 3000000);
	ck_assert_uint_eq(tm_get(&tm, 1, 1), 0); /* in-rack traffic is left out */
	ck_assert_int_eq(tm_lower_bound(&tm, 8000000, 10000000, 0), 6020000000LL);
	ck_assert_int_eq(tm_lower_bound(&tm, 8000000, 10000000, 3000001), 0);
	tm_add(&tm, 0, 1, 1); /* one entry above the threshold */
	ck_assert_int_eq(tm_lower_bound(&tm, 8000000, 10000000, 3000001), 3010001000LL);
	tm_free(&tm);
}
END_TEST

/* The bound is the largest row or column: a column can dominate. */
START_TEST(column_dominates)
{
	double c[9] = { 0, 4, 0,
			0, 0, 0,
			0, 5, 0 };

	ck_assert_double_eq_tol(tm_lower_bound_units(c, 3, 1.0, 1.0), 11.0, 1e-12);
	ck_assert_double_eq_tol(tm_lower_bound_units(c, 3, 2.0, 0.0), 4.5, 1e-12);
}
END_TEST

START_TEST(paths)
{
	struct topo t = { .racks = 2, .hosts = 2, .has_ocs = true, .t_e = 100 };

	ck_assert_int_eq(flow_base_path(&t, 0, 0), PATH_HOST);
	ck_assert_int_eq(flow_base_path(&t, 0, 1), PATH_RACK);
	ck_assert_int_eq(flow_base_path(&t, 0, 2), PATH_EPS);
	ck_assert(flow_ocs_eligible(&t, 0, 2, 100));
	ck_assert(!flow_ocs_eligible(&t, 0, 2, 99));
	ck_assert(!flow_ocs_eligible(&t, 0, 1, 1000));
	t.has_ocs = false;
	ck_assert(!flow_ocs_eligible(&t, 0, 2, 1000));
	ck_assert_str_eq(flow_path_name(PATH_OCS), "ocs");
}
END_TEST

Suite *coflow_suite(void)
{
	Suite *s = suite_create("coflow");
	TCase *tc = tcase_create("lower_bound");

	tcase_add_loop_test(tc, paper_example_units, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, paper_example_ns);
	tcase_add_test(tc, column_dominates);
	tcase_add_test(tc, paths);
	suite_add_tcase(s, tc);
	return s;
}
