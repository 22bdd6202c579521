/* Sorts with the comparison inline, for the hot sorts of the simulator's
 * planners and schedulers (through qsort's callback, a call per
 * comparison was most of their time). Each macro defines a function
 * `name`; put `static` before it for a file's own. */
#ifndef HYDE_CORE_SORT_H
#define HYDE_CORE_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* name(type *v, size_t n): a quicksort in place by before(x, y) (pointers
 * to two elements), not stable: for a total order, so that any sort gives
 * the same. */
#define HYDE_QSORT(name, type, before)                                                      \
	void name(type *v, size_t n)                                                        \
	{                                                                                   \
		while (n > 16) {                                                            \
			type *a = &v[0], *b = &v[n / 2], *c = &v[n - 1], piv, t;           \
			size_t i = 0, j = n - 1;                                            \
                                                                                            \
			if (before(b, a))                                                   \
				t = *a, *a = *b, *b = t;                                    \
			if (before(c, b)) {                                                 \
				t = *b, *b = *c, *c = t;                                    \
				if (before(b, a))                                           \
					t = *a, *a = *b, *b = t;                            \
			}                                                                   \
			piv = *b;                                                           \
			for (;;) { /* Hoare: [0, i) before or equal, (j, n) after or equal */ \
				while (before(&v[i], &piv))                                 \
					i++;                                                \
				while (before(&piv, &v[j]))                                 \
					j--;                                                \
				if (i >= j)                                                 \
					break;                                              \
				t = v[i], v[i] = v[j], v[j] = t;                            \
				i++;                                                        \
				j--;                                                        \
			}                                                                   \
			/* [0, j] and [j + 1, n): recurse into the smaller */               \
			if (j + 1 < n - j - 1) {                                            \
				name(v, j + 1);                                             \
				v += j + 1;                                                 \
				n -= j + 1;                                                 \
			} else {                                                            \
				name(v + j + 1, n - j - 1);                                 \
				n = j + 1;                                                  \
			}                                                                   \
		}                                                                           \
		for (size_t i = 1; i < n; i++) {                                            \
			type t = v[i];                                                      \
			size_t j = i;                                                       \
                                                                                            \
			for (; j > 0 && before(&t, &v[j - 1]); j--)                         \
				v[j] = v[j - 1];                                            \
			v[j] = t;                                                           \
		}                                                                           \
	}

/* name(type *v, size_t n, type *tmp, ctx_type ctx): stable, by
 * before(ctx, x, y) (x and y pointers to two elements): equal elements
 * keep their order, so the result is the one any stable sort gives (the C
 * library's qsort is one here, a merge sort). Runs of 16 by insertion,
 * then bottom-up merges through tmp (room for n); on a tie the left
 * run's goes first. */
#define HYDE_MSORT(name, type, ctx_type, before)                                            \
	void name(type *v, size_t n, type *tmp, ctx_type ctx)                               \
	{                                                                                   \
		type *from = v, *to = tmp, *sw;                                             \
		size_t i, j, w, lo;                                                         \
                                                                                            \
		for (lo = 0; lo < n; lo += 16) {                                            \
			size_t hi = lo + 16 < n ? lo + 16 : n;                              \
                                                                                            \
			for (i = lo + 1; i < hi; i++) {                                     \
				type t = v[i];                                              \
                                                                                            \
				for (j = i; j > lo && before(ctx, &t, &v[j - 1]); j--)      \
					v[j] = v[j - 1];                                    \
				v[j] = t;                                                   \
			}                                                                   \
		}                                                                           \
		for (w = 16; w < n; w *= 2) {                                               \
			for (lo = 0; lo < n; lo += 2 * w) {                                 \
				size_t mid = lo + w < n ? lo + w : n;                       \
				size_t hi = lo + 2 * w < n ? lo + 2 * w : n;                \
				size_t a = lo, b = mid, k = lo;                             \
                                                                                            \
				while (a < mid && b < hi)                                   \
					to[k++] = before(ctx, &from[b], &from[a]) ? from[b++] \
										   : from[a++]; \
				while (a < mid)                                             \
					to[k++] = from[a++];                                \
				while (b < hi)                                              \
					to[k++] = from[b++];                                \
			}                                                                   \
			sw = from, from = to, to = sw;                                      \
		}                                                                           \
		if (from != v)                                                              \
			memcpy(v, from, n * sizeof(*v));                                    \
	}

#endif
