/* Means and confidence intervals over repeated runs (stats.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "core/stats.h"
#include "core/util.h"

/* t(0.975, df) for df = 1..30, to 4 decimals (any statistics table). */
static const double t975_table[30] = {
	12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
	2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
	2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
};

double stat_t975(size_t df)
{
	/* beyond the table: the Cornish-Fisher expansion of t around the
	 * normal quantile, within 1e-4 from df = 31 on */
	const double z = 1.959963984540054;
	double d, z3, z5, z7;

	if (df < 1)
		return NAN;
	if (df <= 30)
		return t975_table[df - 1];
	d = (double)df;
	z3 = z * z * z;
	z5 = z3 * z * z;
	z7 = z5 * z * z;
	return z + (z3 + z) / (4 * d) + (5 * z5 + 16 * z3 + 3 * z) / (96 * d * d) +
	       (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * d * d * d);
}

void stat_ci(const double *v, size_t n, struct stat_ci *out)
{
	double sum = 0, ss = 0;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (!isnan(v[i])) {
			sum += v[i];
			k++;
		}
	out->n = k;
	out->mean = k ? sum / (double)k : NAN;
	if (k < 2) {
		out->sd = out->half = NAN;
		return;
	}
	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			ss += (v[i] - out->mean) * (v[i] - out->mean);
	out->sd = sqrt(ss / (double)(k - 1));
	out->half = stat_t975(k - 1) * out->sd / sqrt((double)k);
}

void stat_ci_rel(const double *x, const double *base, size_t n, struct stat_ci *out)
{
	double *r = xcalloc(n ? n : 1, sizeof(*r));
	size_t i;

	for (i = 0; i < n; i++)
		r[i] = isnan(x[i]) || isnan(base[i]) || base[i] == 0 ? NAN : x[i] / base[i] - 1;
	stat_ci(r, n, out);
	free(r);
}
