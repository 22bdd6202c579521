/* PNG plots through gnuplot (pngcairo when it has it, else png): CDFs for
 * hyde analyze, grouped bars normalised to a baseline for hyde compare (the
 * papers plot makespan, JCT and CCT normalised to Fair). The PNG is written
 * exactly at the path given: callers that want atomic outputs pass a
 * temporary and rename it. */
#ifndef HYDE_PLOT_H
#define HYDE_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/util.h"

/* Whether a gnuplot program is in PATH. */
bool plot_available(void);

struct plot_cdf_series {
	const char *label;
	const double *x; /* n values, any order (copied and sorted) */
	size_t n;
};

/* Empirical CDFs of one or more series on one chart; a log x axis when the
 * values span more than two decades. Returns 0, -ENOENT without gnuplot,
 * or -EIO with gnuplot's first error line in errbuf. */
int plot_cdf(const char *png, const char *title, const char *xlabel,
	     const struct plot_cdf_series *s, size_t n_series, char *errbuf);

struct plot_bars {
	const char *title, *ylabel;
	const char *const *groups; /* clusters along x (metrics, job classes) */
	size_t n_groups;
	const char *const *series; /* bars in a cluster (schedulers) */
	size_t n_series;
	const double *values; /* n_groups x n_series, row-major; NAN: none */
	/* Series every group is divided by (its bar is then 1), or -1 for
	 * the raw values. A group whose baseline is 0 or NAN is left empty. */
	int baseline;
	/* Optional, added at the end: half-widths of an interval around
	 * each value (same shape and units, divided by the baseline like the
	 * values), drawn as error bars; NAN: none. */
	const double *errors;
	/* A dashed line at this height (with baseline -1; 0: none). */
	double hline;
};

/* Grouped bar chart; same returns as plot_cdf. */
int plot_bars(const char *png, const struct plot_bars *b, char *errbuf);

/* Run gnuplot on the script body writes (a chart of another module's
 * making: the timeline); same returns as plot_cdf. gp_str-quoted strings:
 * plot_quote. */
int plot_script(const char *png, void (*body)(FILE *fp, const void *arg),
		const void *arg, char *errbuf);
/* s as a gnuplot string literal. */
void plot_quote(FILE *fp, const char *s);

/* The gnuplot scripts the two run (for tests, and to keep next to a
 * figure when it is to be restyled by hand). */
void plot_cdf_script(FILE *fp, const char *png, const char *title,
		     const char *xlabel, const struct plot_cdf_series *s,
		     size_t n_series);
void plot_bars_script(FILE *fp, const char *png, const struct plot_bars *b);

#endif
