/* The arithmetic behind hyde compare --runs: means, 95% confidence
 * intervals (Student's t) and paired relative changes. */
#include "config.h"

#include <math.h>

#include "check_hyde.h"
#include "core/stats.h"

/* t(0.975, df): the table's values, and the expansion beyond it against
 * published quantiles (df 40: 2.0211, 60: 2.0003, 120: 1.9799, large:
 * 1.9600). */
START_TEST(t_quantiles)
{
	ck_assert(isnan(stat_t975(0)));
	ck_assert_double_eq_tol(stat_t975(1), 12.7062, 1e-4);
	ck_assert_double_eq_tol(stat_t975(4), 2.7764, 1e-4);
	ck_assert_double_eq_tol(stat_t975(19), 2.0930, 1e-4);
	ck_assert_double_eq_tol(stat_t975(30), 2.0423, 1e-4);
	ck_assert_double_eq_tol(stat_t975(31), 2.0395, 2e-4);
	ck_assert_double_eq_tol(stat_t975(40), 2.0211, 2e-4);
	ck_assert_double_eq_tol(stat_t975(60), 2.0003, 2e-4);
	ck_assert_double_eq_tol(stat_t975(120), 1.9799, 2e-4);
	ck_assert_double_eq_tol(stat_t975(100000), 1.9600, 1e-4);
}
END_TEST

/* 1..5: mean 3, sd sqrt(2.5), half-width t(4) sd / sqrt(5) = 1.9632;
 * NaNs (runs that did not finish) are left out, not counted as zero. */
START_TEST(ci_of_values)
{
	const double v[] = { 1, NAN, 2, 3, 4, 5, NAN };
	const double one[] = { NAN, 7 };
	struct stat_ci c;

	stat_ci(v, 7, &c);
	ck_assert_uint_eq(c.n, 5);
	ck_assert_double_eq_tol(c.mean, 3, 1e-12);
	ck_assert_double_eq_tol(c.sd, sqrt(2.5), 1e-12);
	ck_assert_double_eq_tol(c.half, 2.7764 * sqrt(2.5) / sqrt(5), 1e-4);
	/* one value: a mean, no interval */
	stat_ci(one, 2, &c);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_double_eq(c.mean, 7);
	ck_assert(isnan(c.half));
	stat_ci(one, 1, &c);
	ck_assert_uint_eq(c.n, 0);
	ck_assert(isnan(c.mean));
}
END_TEST

/* Relative changes are paired by seed: a scheduler always 10% faster than
 * the baseline on runs whose lengths vary widely has a mean change of -10%
 * with no spread, though the unpaired means' intervals overlap. A pair
 * with a missing value or a zero base is left out. */
START_TEST(ci_paired_relative)
{
	const double base[] = { 10, 100, 40, 0, 20 };
	const double x[] = { 9, 90, 36, 5, NAN };
	const double y[] = { 12, 100, 40, 1, 1 };
	struct stat_ci c, cb;

	stat_ci_rel(x, base, 5, &c);
	ck_assert_uint_eq(c.n, 3);
	ck_assert_double_eq_tol(c.mean, -0.1, 1e-12);
	ck_assert_double_eq_tol(c.half, 0, 1e-12);
	stat_ci(base, 3, &cb);
	ck_assert(cb.half > 30);
	/* changes +20%, 0, 0, -95%: mean -18.75% */
	stat_ci_rel(y, base, 5, &c);
	ck_assert_uint_eq(c.n, 4);
	ck_assert_double_eq_tol(c.mean, (0.2 + 0 + 0 - 0.95) / 4, 1e-12);
	ck_assert(c.half > fabs(c.mean)); /* an interval that includes zero */
}
END_TEST

Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("ci");

	tcase_add_test(tc, t_quantiles);
	tcase_add_test(tc, ci_of_values);
	tcase_add_test(tc, ci_paired_relative);
	suite_add_tcase(s, tc);
	return s;
}
