/* The network view's pure parts (emul/linkstats.h): the link indexing,
 * names, counter deltas and utilisation. Reading the kernel's counters
 * needs root: tests/linkstats.sh. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_hyde.h"
#include "emul/linkstats.h"

/* The header's formula on rack8 (8 x 4) and rack16x8 (16 x 8), and on the
 * smallest fabric, 1 x 1. */
static const struct {
	unsigned racks, hosts;
	enum linkstats_kind kind;
	unsigned rack, host;
	size_t index;
} idx_cases[] = {
	{ 8, 4, LINKSTATS_HOST_UP, 0, 0, 0 },
	{ 8, 4, LINKSTATS_HOST_UP, 1, 2, 6 },
	{ 8, 4, LINKSTATS_HOST_UP, 7, 3, 31 },
	{ 8, 4, LINKSTATS_HOST_DOWN, 0, 0, 32 },
	{ 8, 4, LINKSTATS_HOST_DOWN, 2, 1, 41 },
	{ 8, 4, LINKSTATS_HOST_DOWN, 7, 3, 63 },
	{ 8, 4, LINKSTATS_TOR_UP, 0, 0, 64 },
	{ 8, 4, LINKSTATS_TOR_UP, 7, 0, 71 },
	{ 8, 4, LINKSTATS_TOR_DOWN, 3, 0, 75 },
	{ 8, 4, LINKSTATS_OCS_OUT, 0, 0, 80 },
	{ 8, 4, LINKSTATS_OCS_IN, 7, 0, 95 },
	{ 16, 8, LINKSTATS_HOST_UP, 15, 7, 127 },
	{ 16, 8, LINKSTATS_HOST_DOWN, 0, 0, 128 },
	{ 16, 8, LINKSTATS_TOR_UP, 0, 0, 256 },
	{ 16, 8, LINKSTATS_TOR_DOWN, 15, 0, 287 },
	{ 16, 8, LINKSTATS_OCS_OUT, 1, 0, 289 },
	{ 16, 8, LINKSTATS_OCS_IN, 15, 0, 319 },
	{ 1, 1, LINKSTATS_HOST_UP, 0, 0, 0 },
	{ 1, 1, LINKSTATS_HOST_DOWN, 0, 0, 1 },
	{ 1, 1, LINKSTATS_TOR_UP, 0, 0, 2 },
	{ 1, 1, LINKSTATS_OCS_IN, 0, 0, 5 },
};

START_TEST(index_table)
{
	enum linkstats_kind kind;
	unsigned rack, host;
	size_t got;

	got = linkstats_index(idx_cases[_i].racks, idx_cases[_i].hosts,
			      idx_cases[_i].kind, idx_cases[_i].rack, idx_cases[_i].host);
	ck_assert_uint_eq(got, idx_cases[_i].index);
	/* ... and back (the inverse is what a reader of a sample uses). */
	ck_assert_int_eq(linkstats_link(idx_cases[_i].racks, idx_cases[_i].hosts, got, &kind,
					&rack, &host),
			 0);
	ck_assert_int_eq(kind, idx_cases[_i].kind);
	ck_assert_uint_eq(rack, idx_cases[_i].rack);
	ck_assert_uint_eq(host, idx_cases[_i].host);
}
END_TEST

START_TEST(n_links)
{
	ck_assert_uint_eq(linkstats_n_links(8, 4), 96);
	ck_assert_uint_eq(linkstats_n_links(16, 8), 320);
	ck_assert_uint_eq(linkstats_n_links(1, 1), 6);
	ck_assert_uint_eq(linkstats_n_links(60, 10), 1440); /* paper60 */
}
END_TEST

/* Every link has one index, every index one link, in [0, n), for shapes
 * where racks and hosts differ, are equal, or one is 1. */
START_TEST(bijection)
{
	static const unsigned dims[][2] = { { 8, 4 }, { 16, 8 }, { 1, 1 }, { 1, 7 },
					    { 7, 1 }, { 3, 3 }, { 60, 10 } };
	unsigned R = dims[_i][0], H = dims[_i][1], k, i, rack, host;
	size_t n = linkstats_n_links(R, H), x;
	enum linkstats_kind kind, kd;
	unsigned char *hit = calloc(n, 1);

	for (kd = 0; kd < LINKSTATS_N_KINDS; kd++)
		for (k = 0; k < R; k++)
			for (i = 0; i < (kd <= LINKSTATS_HOST_DOWN ? H : 1); i++) {
				x = linkstats_index(R, H, kd, k, i);
				ck_assert_msg(x < n, "%ux%u kind %d %u/%u: %zu >= %zu", R, H,
					      kd, k, i, x, n);
				ck_assert_msg(!hit[x], "%ux%u: index %zu twice", R, H, x);
				hit[x] = 1;
				ck_assert_int_eq(linkstats_link(R, H, x, &kind, &rack, &host), 0);
				ck_assert(kind == kd && rack == k && host == i);
			}
	for (x = 0; x < n; x++)
		ck_assert_msg(hit[x], "%ux%u: index %zu has no link", R, H, x);
	ck_assert_int_eq(linkstats_link(R, H, n, &kind, &rack, &host), -ERANGE);
	ck_assert_int_eq(linkstats_link(R, H, SIZE_MAX, &kind, &rack, &host), -ERANGE);
	free(hit);
}
END_TEST

START_TEST(names)
{
	static const struct {
		enum linkstats_kind kind;
		unsigned rack, host;
		const char *kname, *link, *counter;
	} c[] = {
		{ LINKSTATS_HOST_UP, 3, 1, "host_up", "r3h1->tor3", "tor3:h1 rx" },
		{ LINKSTATS_HOST_DOWN, 3, 1, "host_down", "tor3->r3h1", "tor3:h1 tx" },
		{ LINKSTATS_TOR_UP, 12, 0, "tor_up", "tor12->core", "tor12:up tx" },
		{ LINKSTATS_TOR_DOWN, 12, 0, "tor_down", "core->tor12", "tor12:up rx" },
		{ LINKSTATS_OCS_OUT, 0, 0, "ocs_out", "tor0->ocs", "tor0:ocs tx" },
		{ LINKSTATS_OCS_IN, 0, 0, "ocs_in", "ocs->tor0", "tor0:ocs rx" },
	};
	char buf[48];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ck_assert_str_eq(linkstats_kind_name(c[i].kind), c[i].kname);
		ck_assert_str_eq(linkstats_link_name(c[i].kind, c[i].rack, c[i].host, buf,
						     sizeof(buf)),
				 c[i].link);
		ck_assert_str_eq(linkstats_counter_name(c[i].kind, c[i].rack, c[i].host, buf,
							sizeof(buf)),
				 c[i].counter);
	}
	ck_assert_str_eq(linkstats_kind_name(LINKSTATS_N_KINDS), "?");
}
END_TEST

/* A counter only grows, unless its interface was made again. */
START_TEST(delta)
{
	static const struct {
		uint64_t before, after, delta;
	} c[] = {
		{ 0, 0, 0 },
		{ 100, 1600, 1500 },
		{ 1600, 1600, 0 },
		{ 5000000, 42, 42 }, /* re-created: counts from 0 again */
		{ UINT64_MAX - 10, UINT64_MAX, 10 },
		{ 0, UINT64_MAX, UINT64_MAX },
	};

	ck_assert_uint_eq(linkstats_delta(c[_i].before, c[_i].after), c[_i].delta);
}
END_TEST

/* bytes x 8 / (rate x interval). */
START_TEST(util)
{
	static const struct {
		uint64_t bytes, rate;
		int64_t ns;
		double util;
	} c[] = {
		{ 5000000, 40000000, 1000000000, 1.0 },	 /* rack8's uplink, full */
		{ 2500000, 100000000, 500000000, 0.4 },	 /* half a second */
		{ 500000, 40000000, 100000000, 1.0 },	 /* 100 ms */
		{ 0, 40000000, 1000000000, 0.0 },
		{ 12500000, 100000000, 1000000000, 1.0 },
		{ 13125000, 100000000, 1000000000, 1.05 }, /* above: HTB's burst */
		{ 5000000, 0, 1000000000, 0.0 },	 /* no rate: no such link */
		{ 5000000, 40000000, 0, 0.0 },		 /* no interval */
		{ 5000000, 40000000, -1000, 0.0 },
		{ 50000000000ULL, 400000000000ULL, 1000000000, 1.0 }, /* 400 Gbit/s */
	};

	ck_assert_double_eq_tol(linkstats_util(c[_i].bytes, c[_i].rate, c[_i].ns), c[_i].util,
				1e-12);
}
END_TEST

START_TEST(util_extremes)
{
	double u = linkstats_util(UINT64_MAX, 1, 1);

	ck_assert(isfinite(u) && u > 1e20);
	ck_assert(linkstats_util(1, UINT64_MAX, INT64_MAX) >= 0);
}
END_TEST

/* Each link's interval is its own rack's, not the sample's. */
START_TEST(bytes_per_rack_interval)
{
	struct linkstats_counter la[6] = { { 0 } }, lb[6] = { { 0 } };
	int64_t ra[1] = { 1000 }, rb[1] = { 1000 + 250000000 };
	struct linkstats_sample a = { .racks = 1, .hosts = 1, .n_links = 6, .link = la,
				      .rack_mono_ns = ra, .mono_ns = 900 },
				b = { .racks = 1, .hosts = 1, .n_links = 6, .link = lb,
				      .rack_mono_ns = rb, .mono_ns = 900 + 300000000 };
	size_t up = linkstats_index(1, 1, LINKSTATS_TOR_UP, 0, 0);
	int64_t dt = 0;

	la[up].bytes = 1000;
	lb[up].bytes = 1000 + 1250000;
	ck_assert_uint_eq(linkstats_bytes(&a, &b, up, &dt), 1250000);
	ck_assert_int_eq(dt, 250000000);
	ck_assert_double_eq_tol(linkstats_util(1250000, 40000000, dt), 1.0, 1e-12);
	ck_assert_uint_eq(linkstats_bytes(&a, &b, up, NULL), 1250000);
	ck_assert_uint_eq(linkstats_bytes(&a, &b, 0, NULL), 0);
}
END_TEST

Suite *linkstats_suite(void)
{
	Suite *s = suite_create("linkstats");
	TCase *tc = tcase_create("pure");

	tcase_add_loop_test(tc, index_table, 0, sizeof(idx_cases) / sizeof(idx_cases[0]));
	tcase_add_test(tc, n_links);
	tcase_add_loop_test(tc, bijection, 0, 7);
	tcase_add_test(tc, names);
	tcase_add_loop_test(tc, delta, 0, 6);
	tcase_add_loop_test(tc, util, 0, 10);
	tcase_add_test(tc, util_extremes);
	tcase_add_test(tc, bytes_per_rack_interval);
	suite_add_tcase(s, tc);
	return s;
}
