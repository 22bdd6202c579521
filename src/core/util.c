#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "util.h"

void errbuf_set(char *errbuf, const char *fmt, ...)
{
	va_list ap;

	if (!errbuf)
		return;
	va_start(ap, fmt);
	vsnprintf(errbuf, HYDE_ERRBUF_SIZE, fmt, ap);
	va_end(ap);
}

int file_open_read(const char *path, FILE **fp, char *errbuf)
{
	int r;

	*fp = fopen(path, "r");
	if (*fp)
		return 0;
	r = -errno;
	errbuf_set(errbuf, "%s: %s", path, strerror(-r));
	return r;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fatalx("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t nmemb, size_t n)
{
	void *p = calloc(nmemb ? nmemb : 1, n ? n : 1);

	if (!p)
		fatalx("out of memory (%zu x %zu bytes)", nmemb, n);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		fatalx("out of memory (%zu bytes)", n);
	return q;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		fatalx("out of memory");
	return d;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatalx("out of memory");
	return s;
}

void xgrow_room(void **arr, size_t *cap, size_t need, size_t elsz)
{
	size_t ncap = *cap ? *cap : 8;

	if (need <= *cap)
		return;
	while (ncap < need)
		ncap *= 2;
	*arr = xrealloc(*arr, ncap * elsz);
	memset((char *)*arr + *cap * elsz, 0, (ncap - *cap) * elsz);
	*cap = ncap;
}

void xqsort(void *base, size_t n, size_t elsz, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, elsz, cmp);
}

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int str_split_fields(char *s, char **fields, int max)
{
	int n = 0;

	for (;;) {
		while (*s && isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			break;
		if (n == max)
			return max + 1;
		fields[n++] = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
	return n;
}

int str_split_commas(char *s, char **f, int max)
{
	int n = 0;

	for (;;) {
		if (n == max)
			return max + 1;
		f[n++] = s;
		s = strchr(s, ',');
		if (!s)
			return n;
		*s++ = '\0';
	}
}

long read_line(void *fp, char **buf, size_t *cap)
{
	ssize_t n = getline(buf, cap, (FILE *)fp);

	if (n < 0)
		return -1;
	if (n > 0 && (*buf)[n - 1] == '\n')
		(*buf)[--n] = '\0';
	if (n > 0 && (*buf)[n - 1] == '\r')
		(*buf)[--n] = '\0';
	if ((ssize_t)strlen(*buf) != n)
		return -2; /* NUL inside: not a text file */
	return n;
}

int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!*s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_double(const char *s, double min, double max, double *out)
{
	double v;
	char *end;

	if (!*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

char *put_u64(char *p, uint64_t v)
{
	char t[20];
	int n = 0;

	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = t[--n];
	return p;
}

char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, -(uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

int put_fmt(char *p, size_t cap, const char *fmt, va_list ap)
{
	char *start = p, *end = p + cap, num[24];
	const char *f, *s;

	for (f = fmt; *f; f++) {
		enum { L_INT, L_LONG, L_LLONG, L_SIZE, L_MAX } len = L_INT;
		size_t n;

		if (*f != '%') {
			if (p == end)
				return -1;
			*p++ = *f;
			continue;
		}
		f++;
		if (*f == 'l' && f[1] == 'l')
			len = L_LLONG, f += 2;
		else if (*f == 'l')
			len = L_LONG, f++;
		else if (*f == 'z')
			len = L_SIZE, f++;
		else if (*f == 'j')
			len = L_MAX, f++;
		switch (*f) {
		case '%':
		case 'c':
			if (len != L_INT || p == end)
				return -1;
			*p++ = *f == '%' ? '%' : (char)va_arg(ap, int);
			continue;
		case 's':
			if (len != L_INT)
				return -1;
			s = va_arg(ap, const char *);
			if (!s) /* (glibc writes "(null)") */
				return -1;
			n = strlen(s);
			if (n > (size_t)(end - p))
				return -1;
			memcpy(p, s, n);
			p += n;
			continue;
		case 'd':
		case 'i':
			n = (size_t)(put_i64(num, len == L_INT	   ? (int64_t)va_arg(ap, int)
						  : len == L_LONG  ? (int64_t)va_arg(ap, long)
						  : len == L_LLONG ? (int64_t)va_arg(ap, long long)
						  : len == L_SIZE  ? (int64_t)va_arg(ap, ptrdiff_t)
								   : (int64_t)va_arg(ap, intmax_t)) -
				     num);
			break;
		case 'u':
			n = (size_t)(put_u64(num, len == L_INT	   ? (uint64_t)va_arg(ap, unsigned)
						  : len == L_LONG  ? (uint64_t)va_arg(ap, unsigned long)
						  : len == L_LLONG ? (uint64_t)va_arg(ap, unsigned long long)
						  : len == L_SIZE  ? (uint64_t)va_arg(ap, size_t)
								   : (uint64_t)va_arg(ap, uintmax_t)) -
				     num);
			break;
		case '.': /* %.0f of a whole number of 63 bits or less after
			   * rounding: printf rounds to nearest, ties to even,
			   * in the current mode, as llrint does */
			if (len != L_INT || f[1] != '0' || f[2] != 'f')
				return -1;
			f += 2;
			{
				double x = va_arg(ap, double);

				if (!(x >= 0 && x < 0x1p63) || signbit(x))
					return -1; /* (-0, negatives, NaN, inf, large) */
				n = (size_t)(put_u64(num, (uint64_t)llrint(x)) - num);
			}
			break;
		default: /* a flag, width, precision or another conversion */
			return -1;
		}
		if (n > (size_t)(end - p))
			return -1;
		memcpy(p, num, n);
		p += n;
	}
	return (int)(p - start);
}
