/* The timeline of an emulated run (timeline.png, drawn by hyde analyze):
 * one panel per ToR with the throughput of its EPS uplink and its OCS
 * port over time, both directions (into the rack above the axis, out of
 * it below), measured from the captures of tor<k>-up and tor<k>-ocs
 * (whole frames, as the link counters count them); the circuits of its
 * OCS port as bands (out of the rack, into it) with the delta stalls
 * before each circuit came up shaded; and a last panel with every job's
 * phases as bars: maps (first map started to last map done), shuffle
 * (first to last shuffle flow) and reduces. Times are seconds from the
 * run's start (run_start in events.log); the circuits come from the
 * crossbar's own events when their clock is known (src/inspect/runlog.h),
 * else from the controller's. */
#ifndef HYDE_TIMELINE_H
#define HYDE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/topo.h"

struct tl_span {
	int64_t a, b; /* ns, absolute */
	unsigned peer; /* the other end's rack (circuits) */
};

struct tl_rack {
	/* bytes per bin (frames' wire length) */
	double *eps_in, *eps_out, *ocs_in, *ocs_out;
	struct tl_span *circ_out, *circ_in, *stall;
	size_t n_out, n_in, n_stall;
};

struct tl_job {
	char *id;
	int64_t map[2], shuffle[2], reduce[2]; /* -1: never */
};

struct timeline {
	int64_t t0;	  /* the run's start */
	int64_t from, to; /* the window drawn, absolute ns */
	int64_t bin;	  /* ns per bin */
	size_t n_bins;
	unsigned racks;
	struct tl_rack *rack;
	struct tl_job *jobs;
	size_t n_jobs;
	uint64_t bw_e, bw_o; /* bit/s */
	int64_t delta;
	bool circ_from_ocs;
	uint64_t packets;    /* frames binned */
	char *title;
};

/* Build the timeline of run directory dir (topology t) over the window
 * [from, to) from the run's start (INT64_MIN / INT64_MAX: the whole run).
 * 0, or -EINVAL with errbuf set (no events.log, a capture that cannot be
 * read, a window outside the run). The caller owns *out
 * (timeline_free). */
int timeline_build(const char *dir, const struct topo *t, int64_t from, int64_t to,
		   struct timeline **out, char *errbuf);
/* The bin width for a window of w ns: about 400 bins, a round 1, 2 or 5
 * times a power of ten, at least 1 ms. */
int64_t timeline_bin_width(int64_t w);
/* Draw it with gnuplot into png; returns as plot_cdf. */
int timeline_plot(const struct timeline *tl, const char *png, char *errbuf);
/* The gnuplot script (for tests). */
void timeline_script(FILE *fp, const struct timeline *tl, const char *png);
void timeline_free(struct timeline *tl);

#endif
