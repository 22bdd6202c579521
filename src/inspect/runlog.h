/* What a run directory's logs say happened, on the captures' clock, for
 * the tools that show a run (hyde pcap, the timeline of hyde analyze):
 *
 * - from events.log (the controller's): the run's start and end, each
 *   job's phases (its maps, its shuffle's flows, its reduces), and the
 *   circuits the controller set and saw come up;
 * - from ocs-events.log (the crossbar's own "up|down I J T" lines, T its
 *   CLOCK_MONOTONIC ns) put on the realtime clock of the captures by the
 *   "time" exchange recorded in ocs-control.log ("ok mono=M real=R"), or,
 *   in a run directory without one, by the circuit_up lines of events.log
 *   (the earliest a controller can have heard of an "up" is when it
 *   happened: the smallest difference is the offset, to within the
 *   controller's reaction time);
 * - from ocs-control.log, the controller's requests to the crossbar and
 *   its replies.
 *
 * Every time is ns on the run's clock (CLOCK_REALTIME in emulation, the
 * captures' clock; simulated time in hyde sim). Lines that do not parse
 * are skipped: these logs are read to show a run, never to judge it. */
#ifndef HYDE_RUNLOG_H
#define HYDE_RUNLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A directed circuit going up or down. */
struct rl_circuit {
	int64_t t;
	unsigned src, dst;
	bool up;
};

enum rl_ocs_kind {
	RL_OCS_REQUEST, /* controller -> crossbar (control or watch connection) */
	RL_OCS_REPLY,	/* crossbar -> controller: a reply line */
	RL_OCS_EVENT,	/* crossbar -> watcher: "up|down I J T" */
};

/* One line of the crossbar's control protocol (emul/README.md). */
struct rl_ocs_line {
	int64_t t;
	enum rl_ocs_kind kind;
	bool watch; /* on the watch connection */
	char *text; /* without its end of line */
};

/* A job's phases; -1 where it never happened. */
struct rl_job {
	char *id;
	int64_t arrive, done;
	int64_t map_start, map_end;	/* first map started, last map done */
	int64_t shuffle_start, shuffle_end; /* first and last shuffle flow */
	int64_t reduce_start, reduce_end;
	unsigned maps_started, reduces_started;
};

struct runlog {
	int64_t t0, t_end; /* run_start, run_end (-1 if cut short) */
	struct rl_job *jobs; /* in the order they arrived */
	size_t n_jobs;
	/* Circuits as the crossbar saw them (ocs-events.log, when its clock
	 * could be placed), else as the controller did (events.log:
	 * circuit_down when it asked, circuit_up when it heard). */
	struct rl_circuit *circ;
	size_t n_circ;
	bool circ_from_ocs;
	/* ocs-control.log and ocs-events.log, merged in time order */
	struct rl_ocs_line *ocs;
	size_t n_ocs;
	/* realtime - monotonic of the crossbar's clocks; how it was found */
	int64_t ocs_clock_off;
	const char *ocs_clock_how; /* "time", "circuit_up", or NULL: unknown */
	size_t ocs_events_unplaced; /* events left out: no way to place them */
};

/* Read the logs of run directory dir. Returns 0 (the caller owns *out:
 * runlog_free; without events.log, t0 is -1 and there are no jobs), or
 * -EINVAL with errbuf set when a log cannot be read. */
int runlog_load(const char *dir, struct runlog **out, char *errbuf);
void runlog_free(struct runlog *rl);

/* A window of run time, "FROM-TO" with units ("10s-25s", "1min-", "-2s";
 * an open end is the run's): *from and *to relative to the run's start,
 * INT64_MIN / INT64_MAX for open ends. 0, or -EINVAL. */
int runlog_parse_window(const char *s, int64_t *from, int64_t *to);

#endif
