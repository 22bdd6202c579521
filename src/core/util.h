/* Small helpers shared by every module. */
#ifndef HYDE_UTIL_H
#define HYDE_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Errors are written into a caller-supplied buffer of this size (the
 * libpcap errbuf convention); functions return 0 or a negative errno. */
#define HYDE_ERRBUF_SIZE 512

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NSEC_PER_SEC 1000000000LL
#define NSEC_PER_MSEC 1000000LL
#define NSEC_PER_USEC 1000LL

void errbuf_set(char *errbuf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Open path for reading into *fp: 0, or -errno with "PATH: reason" in
 * errbuf. The caller closes *fp. */
int file_open_read(const char *path, FILE **fp, char *errbuf);

/* Allocation that cannot fail: out of memory is fatal (exit 1); marked
 * returns_nonnull so that the compiler knows it too. */
void *xmalloc(size_t n) __attribute__((malloc, returns_nonnull));
void *xcalloc(size_t nmemb, size_t n) __attribute__((malloc, returns_nonnull));
void *xrealloc(void *p, size_t n) __attribute__((returns_nonnull));
char *xstrdup(const char *s) __attribute__((malloc, returns_nonnull));
/* A new string of the formatted text, exactly as long as it needs (no
 * size to compute beside the format). The caller frees it. */
char *xasprintf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), malloc, returns_nonnull));
/* Grow *arr (of *cap elements of size elsz) so that it holds at least
 * need (the new room zeroed). The check inline: most calls find room, and
 * some come once a flow or a class (a call's own cost was 1.7% of a
 * scale-1 simulation). */
void xgrow_room(void **arr, size_t *cap, size_t need, size_t elsz);
static inline void xgrow(void **arr, size_t *cap, size_t need, size_t elsz)
{
	if (need > *cap)
		xgrow_room(arr, cap, need, elsz);
}
/* ceil(a / d) for 0 <= a < 2^127 and d > 0, exactly. Where the quotient
 * fits in 64 bits, one hardware 128-by-64 division (the library's 128-bit
 * division was 1.4% of a simulation at scale, from the time to each
 * flow's end); none for d = 1. */
static inline unsigned __int128 u128_div_up(unsigned __int128 a, uint64_t d)
{
	unsigned __int128 n;

	if (d == 1)
		return a;
	n = a + d - 1;
#if defined(__x86_64__) && defined(__GNUC__)
	if ((uint64_t)(n >> 64) < d) {
		uint64_t q, r;

		__asm__("divq %4"
			: "=a"(q), "=d"(r)
			: "a"((uint64_t)n), "d"((uint64_t)(n >> 64)), "rm"(d)
			: "cc");
		return q;
	}
#endif
	return n / d;
}
/* qsort, for lists that may be empty: an empty list's array is often
 * NULL (never grown), which qsort must not be given even with n = 0. */
void xqsort(void *base, size_t n, size_t elsz, int (*cmp)(const void *, const void *));
/* qsort's comparison of doubles, ascending. */
int cmp_double(const void *a, const void *b);

/* Split s in place on blanks; returns the number of fields (at most max).
 * A '#' outside a field starts a comment that ends the line. */
int str_split_fields(char *s, char **fields, int max);
/* Split s in place on commas (our CSV files: no quoting, no field holds a
 * comma); returns the number of fields, or max + 1 if there are more. */
int str_split_commas(char *s, char **fields, int max);
/* Read one line of any length into *buf (grown as needed); strips the end
 * of line. Returns its length, -1 at end of file, or -2 if the line holds a
 * NUL byte (the file is not text). */
long read_line(void *fp, char **buf, size_t *cap);

/* Parse an unsigned decimal integer in [min, max], the whole string. */
int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Parse a finite double in [min, max], the whole string. */
int parse_double(const char *s, double min, double max, double *out);

/* Write v in decimal at p (no NUL); return the end. What printf's %PRIu64
 * and %PRId64 write, without a format to read (the simulator writes a
 * line or two per flow: printf was 5-16% of its time). */
char *put_u64(char *p, uint64_t v);
char *put_i64(char *p, int64_t v);
/* Write s at p (no NUL); return the end. */
char *put_str(char *p, const char *s);
/* What vsnprintf writes for fmt, at p (no NUL), its length, where every
 * conversion is %s, %c, %%, or %d, %i or %u with no length or l, ll, z
 * or j (so PRIu32, PRId64, PRIu64), with no flag, width or precision,
 * or %.0f of a number from +0 to 2^63 (other than that, -1);
 * else, for a null %s, or if it needs more than cap bytes, -1 (then use vsnprintf:
 * what it consumed of ap is gone). A format read without printf's
 * locale and stream machinery (the simulator's event lines). */
int put_fmt(char *p, size_t cap, const char *fmt, va_list ap);

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t now_ns(void);

#endif
