#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check_hyde.h"
#include "core/units.h"
#include "core/util.h"

static const struct {
	const char *in;
	uint64_t bytes;
} sizes_ok[] = {
	{ "0B", 0 },
	{ "512B", 512 },
	{ "64KB", 64000 },
	{ "4.5MB", 4500000 },
	{ "1.125GB", 1125000000ULL },
	{ "64kB", 64000 },
	{ "128MiB", 134217728ULL },
	{ "1.5KiB", 1536 },
	{ "2TB", 2000000000000ULL },
	{ "1TiB", 1099511627776ULL },
};

START_TEST(size_ok)
{
	uint64_t v = 7;

	ck_assert_int_eq(unit_parse_size(sizes_ok[_i].in, &v), 0);
	ck_assert_uint_eq(v, sizes_ok[_i].bytes);
}
END_TEST

static const char *const sizes_bad[] = {
	"", "5", "MB", "4.5", "1.5B", "0.1B", "4.MB", ".5MB", "-1MB", "1 MB",
	"1Mb", "1mbit", "1.125gb", "1mib", "1e6B", "99999999999999999999B", "20000000TB", "1MBB",
};

START_TEST(size_bad)
{
	uint64_t v = 7;

	ck_assert_int_ne(unit_parse_size(sizes_bad[_i], &v), 0);
	ck_assert_uint_eq(v, 7);
}
END_TEST

static const struct {
	const char *in;
	uint64_t bps;
} rates_ok[] = {
	{ "100Mbit", 100000000ULL },
	{ "100mbit", 100000000ULL },
	{ "10Gbit", 10000000000ULL },
	{ "1Gbps", 1000000000ULL },
	{ "2.5Gbit/s", 2500000000ULL },
	{ "400Mbit", 400000000ULL },
	{ "50MB/s", 400000000ULL },
	{ "1Kbit", 1000 },
	{ "9600bit", 9600 },
};

START_TEST(rate_ok)
{
	uint64_t v = 0;

	ck_assert_int_eq(unit_parse_rate(rates_ok[_i].in, &v), 0);
	ck_assert_uint_eq(v, rates_ok[_i].bps);
}
END_TEST

static const char *const rates_bad[] = {
	"100", "100MB", "100MBps", "100mbps", "1.5bit", "Gbit", "10 Gbit", "10Gbit/h",
};

START_TEST(rate_bad)
{
	uint64_t v = 0;

	ck_assert_int_ne(unit_parse_rate(rates_bad[_i], &v), 0);
}
END_TEST

static const struct {
	const char *in;
	int64_t ns;
} times_ok[] = {
	{ "10ms", 10000000 },
	{ "500us", 500000 },
	{ "2.5s", 2500000000LL },
	{ "1min", 60000000000LL },
	{ "90min", 5400000000000LL },
	{ "0s", 0 },
	{ "1.5ns", -1 }, /* refused: see below */
};

START_TEST(time_ok)
{
	int64_t v = 0;
	int r = unit_parse_time(times_ok[_i].in, &v);

	if (times_ok[_i].ns < 0) {
		ck_assert_int_ne(r, 0);
		return;
	}
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(v, times_ok[_i].ns);
}
END_TEST

static const char *const times_bad[] = { "10", "ms", "10mS", "10 ms", "-1s", "1e3s", "10sec" };

START_TEST(time_bad)
{
	int64_t v = 0;

	ck_assert_int_ne(unit_parse_time(times_bad[_i], &v), 0);
}
END_TEST

/* What the writers print parses back to the same value. */
START_TEST(fmt_roundtrip)
{
	static const uint64_t sizes[] = { 0, 1, 999, 1000, 4500000, 1125000000ULL,
					  123456789, 134217728ULL, 1001 };
	static const int64_t times[] = { 0, 1, 1500, 10000000, 2500000000LL, 123456789 };
	char buf[64];
	uint64_t v;
	int64_t t;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unit_fmt_size(sizes[i], buf, sizeof(buf));
		ck_assert_int_eq(unit_parse_size(buf, &v), 0);
		ck_assert_uint_eq(v, sizes[i]);
	}
	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		unit_fmt_time(times[i], buf, sizeof(buf));
		ck_assert_int_eq(unit_parse_time(buf, &t), 0);
		ck_assert_int_eq(t, times[i]);
	}
	ck_assert_str_eq(unit_fmt_size(4500000, buf, sizeof(buf)), "4.5MB");
	ck_assert_str_eq(unit_fmt_size(1125000000ULL, buf, sizeof(buf)), "1.125GB");
	ck_assert_str_eq(unit_fmt_rate(400000000ULL, buf, sizeof(buf)), "400Mbit");
	ck_assert_str_eq(unit_fmt_time(10000000, buf, sizeof(buf)), "10ms");
}
END_TEST

/* Human figures as the tables print them: three digits, whole numbers
 * past the largest unit. */
START_TEST(human)
{
	char b[32];

	ck_assert_str_eq(unit_human_time(8.54e9, b, sizeof(b)), "8.54s");
	ck_assert_str_eq(unit_human_time(81e6, b, sizeof(b)), "81ms");
	ck_assert_str_eq(unit_human_time(5398.4e9, b, sizeof(b)), "5398s");
	ck_assert_str_eq(unit_human_time(0, b, sizeof(b)), "0ns");
	ck_assert_str_eq(unit_human_size(3.31e9, b, sizeof(b)), "3.31GB");
	ck_assert_str_eq(unit_human_size(2.5e18, b, sizeof(b)), "2500PB");
}
END_TEST

/* put_fmt against vsnprintf: the same bytes for the conversions it
 * takes, -1 for the others and where the line does not fit */
static int fmt_both(size_t cap, char *ours, char *libc, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = put_fmt(ours, cap, fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	vsnprintf(libc, 512, fmt, ap);
	va_end(ap);
	if (n >= 0)
		ours[n] = '\0';
	return n;
}

#define FMT_SAME(...)                                                                         \
	do {                                                                                  \
		char o_[512], l_[512];                                                        \
		int n_ = fmt_both(sizeof(o_) - 1, o_, l_, __VA_ARGS__);                        \
                                                                                              \
		ck_assert_msg(n_ >= 0, "put_fmt refused %s", #__VA_ARGS__);                   \
		ck_assert_str_eq(o_, l_);                                                     \
		ck_assert_int_eq(n_, (int)strlen(l_));                                        \
	} while (0)

#define FMT_REFUSED(cap, ...)                                                                 \
	do {                                                                                  \
		char o_[512], l_[512];                                                        \
                                                                                              \
		ck_assert_int_eq(fmt_both(cap, o_, l_, __VA_ARGS__), -1);                      \
	} while (0)

START_TEST(put_fmt_as_printf)
{
	FMT_SAME("task_start %s %s %u r%uh%u", "j12", "map", 306u, 20u, 1u);
	FMT_SAME("circuit_up %u %u", 0u, UINT_MAX);
	FMT_SAME("%d %i %d %d", 0, -1, INT_MIN, INT_MAX);
	FMT_SAME("%ld %lu %lld %llu", LONG_MIN, ULONG_MAX, LLONG_MIN, ULLONG_MAX);
	FMT_SAME("node_phase %s %" PRId64 " %" PRIu64 " %" PRIu32, "r0h0", INT64_MIN, UINT64_MAX,
		 (uint32_t)4000000000u);
	FMT_SAME("%zu %zd %ju %jd", (size_t)SIZE_MAX, (ptrdiff_t)-5, (uintmax_t)UINTMAX_MAX,
		 (intmax_t)INTMAX_MIN);
	FMT_SAME("100%% %c%c %s", 'o', 'k', "");
	/* %.0f from +0 to 2^63: ties to even, as printf rounds */
	FMT_SAME("predict %s %.0f", "j1", 0.0);
	FMT_SAME("%.0f %.0f %.0f %.0f %.0f", 0.5, 1.5, 2.5, 0.49999999999999994, 2.5000000000000004);
	FMT_SAME("%.0f %.0f %.0f", 1234567.4999, 1e15 + 0.5, 4503599627370497.0);
	FMT_SAME("%.0f %.0f", 0x1p63 - 1024, 9.87654321e17);
	for (int i = 0; i < 2000; i++) { /* seconds as ns, as NEAT's lines */
		double x = (double)((unsigned)i * 2654435761u) / 7919.0 * 1e3 + i / 2.0;

		FMT_SAME("%.0f", x);
		FMT_SAME("%.0f", x * 1e9);
	}
	FMT_REFUSED(511, "%.0f", -0.0);
	FMT_REFUSED(511, "%.0f", -0.4);
	FMT_REFUSED(511, "%.0f", -3.0);
	FMT_REFUSED(511, "%.0f", 0x1p63);
	FMT_REFUSED(511, "%.0f", INFINITY);
	FMT_REFUSED(511, "%.0f", NAN);
	FMT_REFUSED(511, "%.1f", 1.0);
	FMT_REFUSED(511, "%.0g", 1.0);
	FMT_REFUSED(511, "%.0lf", 1.0);
	FMT_REFUSED(511, "%.", 1.0);
	FMT_SAME("no conversion at all");
	FMT_SAME("");
	/* what it leaves to vsnprintf */
	FMT_REFUSED(511, "%.4f", 1.5);
	FMT_REFUSED(511, "%5u", 3u);
	FMT_REFUSED(511, "%-s", "a");
	FMT_REFUSED(511, "%x", 255u);
	FMT_REFUSED(511, "%hu", 3);
	FMT_REFUSED(511, "%ls", L"a");
	FMT_REFUSED(511, "%p", (void *)0);
	FMT_REFUSED(511, "trailing %");
	FMT_REFUSED(511, "%s", (const char *)NULL); /* (glibc: "(null)") */
	/* and what does not fit: 12 bytes, then each kind one byte over */
	{
		char o[16], l[512];

		ck_assert_int_eq(fmt_both(12, o, l, "%s %u %d", "abc", 1234u, -56), 12);
		ck_assert_str_eq(o, "abc 1234 -56");
	}
	FMT_REFUSED(11, "%s %u %d", "abc", 1234u, -56);
	FMT_REFUSED(3, "%s", "abcd");
	FMT_REFUSED(3, "%u", 1234u);
	FMT_REFUSED(3, "abcd");
	FMT_REFUSED(0, "%c", 'x');
	FMT_REFUSED(0, "%%");
}
END_TEST

/* u128_div_up: the hardware division where the quotient fits in 64 bits,
 * the library's past it (the simulator's time to a flow's end), the same
 * rounding up either way, checked against the quotient and remainder. */
static void div_up_is(unsigned __int128 a, uint64_t d)
{
	unsigned __int128 q = u128_div_up(a, d);

	/* q = ceil(a / d): q * d >= a, and (q - 1) * d < a when q > 0 */
	ck_assert_msg(q * d >= a, "u128_div_up(%#llx:%016llx, %llu): too small",
		      (unsigned long long)(a >> 64), (unsigned long long)a, (unsigned long long)d);
	ck_assert_msg(q == 0 || (q - 1) * d < a, "u128_div_up(%#llx:%016llx, %llu): too large",
		      (unsigned long long)(a >> 64), (unsigned long long)a, (unsigned long long)d);
}

START_TEST(div_up_edges)
{
	const unsigned __int128 one = 1;
	const uint64_t ds[] = { 1, 2, 3, 1000000007, (uint64_t)1 << 60, UINT64_MAX - 1, UINT64_MAX };
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	ck_assert(u128_div_up(0, 7) == 0);
	ck_assert(u128_div_up(1, 7) == 1);
	ck_assert(u128_div_up(7, 7) == 1);
	ck_assert(u128_div_up(8, 7) == 2);
	ck_assert(u128_div_up((one << 100) + 5, 1) == (one << 100) + 5);
	/* the largest quotient of 64 bits, and the first past it (the
	 * hardware division would fault there: the library's takes it) */
	ck_assert(u128_div_up((one << 64) * 3 - 3, 3) == (one << 64) - 1);
	ck_assert(u128_div_up((one << 64) * 3 - 2, 3) == one << 64);
	ck_assert(u128_div_up((one << 64) * 3, 3) == one << 64);
	ck_assert(u128_div_up(one << 126, 2) == one << 125);
	for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++) {
		div_up_is(0, ds[i]);
		div_up_is(ds[i], ds[i]);
		div_up_is((unsigned __int128)ds[i] << 64, ds[i]);
		div_up_is(((unsigned __int128)ds[i] << 64) - 1, ds[i]);
		div_up_is(((unsigned __int128)ds[i] << 64) + 1, ds[i]);
		for (int k = 0; k < 2000; k++) {
			unsigned __int128 a;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			a = ((unsigned __int128)x << 64) | (x * 0xd1b54a32d192ed03ULL);
			div_up_is(a >> (1 + k % 66), ds[i]);
			div_up_is(a >> (1 + k % 66), ds[i] - (ds[i] > 1) * (x % ds[i]));
		}
	}
}
END_TEST

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

Suite *units_suite(void)
{
	Suite *s = suite_create("units");
	TCase *tc = tcase_create("parse");

	tcase_add_loop_test(tc, size_ok, 0, N(sizes_ok));
	tcase_add_loop_test(tc, size_bad, 0, N(sizes_bad));
	tcase_add_loop_test(tc, rate_ok, 0, N(rates_ok));
	tcase_add_loop_test(tc, rate_bad, 0, N(rates_bad));
	tcase_add_loop_test(tc, time_ok, 0, N(times_ok));
	tcase_add_loop_test(tc, time_bad, 0, N(times_bad));
	tcase_add_test(tc, fmt_roundtrip);
	tcase_add_test(tc, human);
	suite_add_tcase(s, tc);
	tc = tcase_create("text");
	tcase_add_test(tc, put_fmt_as_printf);
	suite_add_tcase(s, tc);
	tc = tcase_create("arith");
	tcase_add_test(tc, div_up_edges);
	suite_add_tcase(s, tc);
	return s;
}
