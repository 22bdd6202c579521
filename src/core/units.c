#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "units.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

const char unit_size_expect[] =
	"a size such as 512B, 64KB, 4.5MB, 1.125GB or 128MiB";
const char unit_rate_expect[] =
	"a rate such as 100Mbit, 10Gbit, 1Gbps or 50MB/s";
const char unit_time_expect[] = "a time such as 500us, 10ms, 2.5s or 1min";

struct unit {
	const char *name;
	uint64_t mult;
	int icase; /* the name matches in any case */
};

/* A number "123", "123.456" split into an integer and a fraction
 * (digits, count); returns the rest of the string after it. */
static const char *parse_decimal(const char *s, uint64_t *ip, uint64_t *fp,
				 int *fdigits)
{
	uint64_t i = 0, f = 0;
	int nd = 0, fd = 0;

	while (isdigit((unsigned char)*s)) {
		if (i > (UINT64_MAX - 9) / 10)
			return NULL;
		i = i * 10 + (uint64_t)(*s++ - '0');
		nd++;
	}
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s)) {
			if (fd == 18)
				return NULL;
			f = f * 10 + (uint64_t)(*s++ - '0');
			fd++;
		}
		if (!fd)
			return NULL;
	}
	if (!nd)
		return NULL;
	*ip = i;
	*fp = f;
	*fdigits = fd;
	return s;
}

/* value = (i + f / 10^fd) * mult, exactly, or -EINVAL/-ERANGE. */
static int scale_exact(uint64_t i, uint64_t f, int fd, uint64_t mult,
		       uint64_t *out)
{
	uint64_t p10 = 1, frac;
	int k;

	for (k = 0; k < fd; k++)
		p10 *= 10;
	if (i && mult > UINT64_MAX / i)
		return -ERANGE;
	/* f * mult / p10 must be an integer: drop common factors first */
	while (f && f % 10 == 0 && p10 > 1) {
		f /= 10;
		p10 /= 10;
	}
	if (f && mult % p10 != 0) {
		unsigned __int128 prod = (unsigned __int128)f * mult;

		if (prod % p10)
			return -EINVAL;
		frac = (uint64_t)(prod / p10);
	} else {
		frac = f * (mult / p10);
	}
	if (i * mult > UINT64_MAX - frac)
		return -ERANGE;
	*out = i * mult + frac;
	return 0;
}

static int parse_with_units(const char *s, const struct unit *units,
			    uint64_t *out)
{
	uint64_t i, f;
	int fd;
	const char *rest = parse_decimal(s, &i, &f, &fd);
	const struct unit *u;

	if (!rest || !*rest)
		return -EINVAL;
	for (u = units; u->name; u++) {
		int eq = u->icase ? !strcasecmp(rest, u->name)
				  : !strcmp(rest, u->name);
		if (eq)
			return scale_exact(i, f, fd, u->mult, out);
	}
	return -EINVAL;
}

#define K 1000ULL
#define KI 1024ULL

/* Case matters for sizes: "Mb" would be megabits to many readers. */
static const struct unit size_units[] = {
	{ "B", 1, 0 },
	{ "KB", K, 0 },
	{ "kB", K, 0 },
	{ "MB", K * K, 0 },
	{ "GB", K * K * K, 0 },
	{ "TB", K * K * K * K, 0 },
	{ "KiB", KI, 0 },
	{ "MiB", KI * KI, 0 },
	{ "GiB", KI * KI * KI, 0 },
	{ "TiB", KI * KI * KI * KI, 0 },
	{ NULL, 0, 0 },
};

static const struct unit rate_units[] = {
	{ "bit", 1, 1 },	   { "kbit", K, 1 },
	{ "mbit", K * K, 1 },	   { "gbit", K * K * K, 1 },
	{ "tbit", K * K * K * K, 1 },
	{ "bit/s", 1, 1 },	   { "kbit/s", K, 1 },
	{ "mbit/s", K * K, 1 },	   { "gbit/s", K * K * K, 1 },
	{ "tbit/s", K * K * K * K, 1 },
	{ "bps", 1, 0 },	   { "Kbps", K, 0 },
	{ "kbps", K, 0 },	   { "Mbps", K * K, 0 },
	{ "Gbps", K * K * K, 0 },  { "Tbps", K * K * K * K, 0 },
	{ "B/s", 8, 0 },	   { "KB/s", 8 * K, 1 },
	{ "MB/s", 8 * K * K, 1 },  { "GB/s", 8 * K * K * K, 1 },
	{ NULL, 0, 0 },
};

static const struct unit time_units[] = {
	{ "ns", 1, 0 },
	{ "us", 1000, 0 },
	{ "ms", 1000000, 0 },
	{ "s", 1000000000ULL, 0 },
	{ "min", 60ULL * 1000000000ULL, 0 },
	{ "h", 3600ULL * 1000000000ULL, 0 },
	{ NULL, 0, 0 },
};

int unit_parse_size(const char *s, uint64_t *bytes)
{
	return parse_with_units(s, size_units, bytes);
}

int unit_parse_rate(const char *s, uint64_t *bps)
{
	return parse_with_units(s, rate_units, bps);
}

int unit_parse_time(const char *s, int64_t *ns)
{
	uint64_t v;
	int r = parse_with_units(s, time_units, &v);

	if (r)
		return r;
	if (v > (uint64_t)INT64_MAX)
		return -ERANGE;
	*ns = (int64_t)v;
	return 0;
}

/* Shortest exact form: the largest unit (at most the value) in which the
 * value needs at most 6 decimals; "16.459781MB", "2.5s". */
static char *fmt_exact(uint64_t v, const struct unit *units, size_t n,
		       char *buf, size_t len)
{
	size_t k;

	if (v == 0) {
		snprintf(buf, len, "0%s", units[0].name);
		return buf;
	}
	for (k = n; k-- > 0;) {
		uint64_t m = units[k].mult, step = m;
		int digits = 0;

		if (v < m)
			continue;
		/* fewest decimals d (0..6) with v a multiple of m / 10^d */
		while (v % step != 0 && digits < 6 && step % 10 == 0) {
			step /= 10;
			digits++;
		}
		if (v % step != 0)
			continue;
		if (digits == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", v / m, units[k].name);
		} else {
			/* the fraction is below 10^digits: its last `digits`
			 * characters, zero-padded to six, are the decimals
			 * (a fixed width, so the compiler sees the size) */
			char fbuf[24];

			snprintf(fbuf, sizeof(fbuf), "%06" PRIu64,
				 (v % m) / step % 1000000);
			snprintf(buf, len, "%" PRIu64 ".%s%s", v / m,
				 fbuf + 6 - digits, units[k].name);
		}
		return buf;
	}
	snprintf(buf, len, "%" PRIu64 "%s", v, units[0].name);
	return buf;
}

char *unit_fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const struct unit u[] = {
		{ "B", 1, 0 }, { "KB", K, 0 }, { "MB", K * K, 0 },
		{ "GB", K * K * K, 0 }, { "TB", K * K * K * K, 0 },
	};
	return fmt_exact(bytes, u, ARRAY_LEN(u), buf, len);
}

char *unit_fmt_rate(uint64_t bps, char *buf, size_t len)
{
	static const struct unit u[] = {
		{ "bit", 1, 0 }, { "Kbit", K, 0 }, { "Mbit", K * K, 0 },
		{ "Gbit", K * K * K, 0 }, { "Tbit", K * K * K * K, 0 },
	};
	return fmt_exact(bps, u, ARRAY_LEN(u), buf, len);
}

char *unit_fmt_time(int64_t ns, char *buf, size_t len)
{
	static const struct unit u[] = {
		{ "ns", 1, 0 }, { "us", 1000, 0 }, { "ms", 1000000, 0 },
		{ "s", 1000000000ULL, 0 },
	};
	if (ns < 0) {
		snprintf(buf, len, "-%" PRId64 "ns", -ns);
		return buf;
	}
	return fmt_exact((uint64_t)ns, u, ARRAY_LEN(u), buf, len);
}

static char *fmt_human(double v, const char *const *names,
		       const double *mults, size_t n, char *buf, size_t len)
{
	size_t k = 0;

	while (k + 1 < n && v >= mults[k + 1])
		k++;
	/* past the last unit, whole numbers rather than 5.12e+03s */
	snprintf(buf, len, v / mults[k] >= 1000 ? "%.0f%s" : "%.3g%s", v / mults[k], names[k]);
	return buf;
}

char *unit_human_size(double bytes, char *buf, size_t len)
{
	static const char *const names[] = { "B", "KB", "MB", "GB", "TB", "PB" };
	static const double mults[] = { 1, 1e3, 1e6, 1e9, 1e12, 1e15 };

	return fmt_human(bytes, names, mults, ARRAY_LEN(names), buf, len);
}

char *unit_human_time(double ns, char *buf, size_t len)
{
	static const char *const names[] = { "ns", "us", "ms", "s" };
	static const double mults[] = { 1, 1e3, 1e6, 1e9 };

	return fmt_human(ns, names, mults, ARRAY_LEN(names), buf, len);
}
