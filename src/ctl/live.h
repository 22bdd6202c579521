/* The live view of a run: one status line, what the run is doing now.
 *
 *   emul 1m23s t=83.2s  jobs 12/30 ETA 1m40s  flows EPS 3 OCS 5 rack 1
 *   circuits 2/3 up  busiest tor3->core 96% of 40Mbit
 *
 * wall time since the run began, run time (simulated in hyde sim), jobs
 * done of all (failed ones counted apart) with a guess of the wall time
 * left, the flows moving bytes now by path, the circuits up of those set,
 * and the link that carried most over the network view's last interval
 * (netview.c: the ToRs' interface counters in emulation) with its
 * utilisation and rate.
 *
 * `hyde run` (and `hyde sim --progress`) print it on stderr: refreshed in
 * place every second on a terminal, a plain line every --progress period
 * otherwise. In emulation the run also writes it, as key=value fields,
 * to its fabric's state directory (LIVE_FILE), where `hyde top PREFIX`
 * and `hyde compare` read it. */
#ifndef HYDE_LIVE_H
#define HYDE_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* in /run/hyde/<prefix>/ */
#define LIVE_FILE "live"

struct live_status {
	char backend[8];    /* emul, sim */
	int64_t wall_ns;    /* since the run began */
	int64_t run_ns;	    /* run time since its start */
	uint64_t jobs, done, failed;
	int64_t eta_ns;	    /* wall time left; -1: no guess yet */
	unsigned flows_eps, flows_ocs, flows_rack, flows_host;
	unsigned circuits_up, circuits_set;
	bool has_ocs;
	char busiest[48];   /* "" when no link carried anything */
	double busiest_util;
	uint64_t busiest_bps;
	uint64_t bytes_done; /* of the flows done */
	bool final;	     /* the run is over */
};

/* The line as above, into buf (at most len bytes, NUL included). */
void live_format(const struct live_status *s, char *buf, size_t len);
/* key=value fields, one line ending in '\n' (the state file). */
void live_serialize(const struct live_status *s, char *buf, size_t len);
/* The inverse: 0, or -EINVAL for a line that is not one (unknown keys are
 * skipped, so that an older reader takes a newer file). */
int live_parse(const char *line, struct live_status *s);

/* ETA: wall time left, guessed as the larger of the run time until the
 * last arrival (emulation: run time is wall time) and the wall time per
 * job done so far times the jobs left; -1 before any job is done and
 * with no arrival to come. */
int64_t live_eta(int64_t wall_ns, int64_t run_ns, int64_t last_arrival_ns,
		 bool realtime, uint64_t jobs, uint64_t done);

#endif
