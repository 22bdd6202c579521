/* Summary statistics of repeated runs: the mean and the 95% confidence
 * interval of a metric over n independent runs (Student's t, two-sided),
 * and the same for the paired relative change against a baseline run on
 * the same seeds. NaN marks a value that does not exist (a run that did
 * not finish, fewer than two values for an interval). */
#ifndef HYDE_STATS_H
#define HYDE_STATS_H

#include <stddef.h>

struct stat_ci {
	size_t n;	/* values used (NaNs skipped) */
	double mean;
	double sd;	/* sample standard deviation (n - 1) */
	double half;	/* 95% CI half-width: t(0.975, n-1) * sd / sqrt(n) */
};

/* t such that P(T <= t) = 0.975 for Student's t with df degrees of
 * freedom (df >= 1); NaN for df < 1. */
double stat_t975(size_t df);

/* Mean and 95% CI of v[0..n-1], skipping NaNs. With one value: half NaN;
 * with none: mean NaN too. */
void stat_ci(const double *v, size_t n, struct stat_ci *out);

/* The paired relative change of x against base, run by run (x[i] / base[i]
 * - 1, skipping a pair with a NaN or a zero base), as a mean and 95% CI. */
void stat_ci_rel(const double *x, const double *base, size_t n, struct stat_ci *out);

#endif
