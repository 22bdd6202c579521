/* hyde analyze: a run directory's captures -> flows.csv, coflows.csv,
 * jobs.csv, summary.json and plots (file names and columns:
 * src/core/rundir.h; the exact FCT definition: analyze/tcpconn.h).
 *
 * Captures are read one at a time, packet by packet; what is kept is one
 * record per manifest line and one per TCP connection open in the capture
 * being read, so memory follows the number of flows and of connections open
 * at once, never the size of the captures. */
#ifndef HYDE_ANALYZE_H
#define HYDE_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

struct analyze_opts {
	bool no_plots;	       /* skip the PNGs (and gnuplot) */
	unsigned list_unknown; /* unknown connections listed one by one in
				* summary.json; 0: the default, 100 */
	/* timeline.png over [window_from, window_to) from the run's start
	 * (when window is set; else the whole run) */
	bool window;
	int64_t window_from, window_to;
};

/* A distribution of durations, or of |pcap - app| differences, in ns.
 * Percentiles are nearest-rank (the median of 2 values is the lower). All
 * -1 when n is 0. */
struct analyze_dist {
	size_t n;
	int64_t median, p99, max;
	double mean;
};

struct analyze_result {
	unsigned captures;
	uint64_t packets, tcp_packets, capture_bytes; /* bytes: file sizes */
	/* What the captures say of themselves (pcap/NODE.capstats): the
	 * frames their rings had no room for (dropped: the run is then
	 * incomplete: a flow on such a port may be measured wrong), on how
	 * many ports, the rings' total size, and the ports that left no
	 * counts (a capture killed before its end, or an older run). */
	uint64_t capture_drops, capture_ring_bytes;
	unsigned capture_drop_ports, capture_no_stats;
	/* flows by what could be measured (an_status) */
	size_t flows, flows_done, flows_unfinished, flows_no_syn,
		flows_not_captured, flows_host, flows_path_mismatch;
	/* measured flows whose distinct payload seen on the client's port is
	 * not the manifest's bytes (capture loss, or a wrong manifest) */
	size_t flows_bytes_mismatch;
	size_t coflows, coflows_complete;
	size_t jobs, jobs_finished;
	struct analyze_dist fct, cct, jct;
	int64_t makespan_ns;   /* last job end - first arrival; -1: none ended */
	double jobs_per_hour;  /* finished jobs / makespan */
	uint64_t shuffle_bytes;	 /* sum of the manifest's shuffle flow bytes */
	/* every kind (enum hyde_flow_kind): flows, bytes, bytes between racks */
	uint64_t kind_flows[3], kind_bytes[3], kind_cross[3];
	uint64_t ocs_bytes, eps_bytes; /* payload seen on OCS / EPS ports */
	uint64_t rack_bytes, host_bytes; /* flows inside a rack / on one host */
	uint64_t cross_rack_bytes, retrans_bytes;
	/* OCS share of the network (cross-rack) traffic, ocs / (ocs + eps), as
	 * Co-scheduler Fig. 3(b) reports it; -1 with no such traffic. */
	double ocs_share;
	/* accuracy: |pcap - app| per flow (FCT) and per coflow (CCT) */
	struct analyze_dist fct_err, cct_err;
	/* a measured flow's first byte: its first SYN to its first data byte
	 * on the receiver's port (the connection's set-up, the request and
	 * the sender's reply; for a flow on busy links, the queues too):
	 * all measured flows, and those under 100 KB */
	struct analyze_dist first_byte, first_byte_small;
#define FIRST_BYTE_SMALL 100000 /* bytes: "under 100 KB" */
	size_t unknown_conns;	  /* TCP connections in no manifest line */
	size_t stray_instances;	  /* more instances of a 4-tuple than lines */
	size_t peak_conns;	  /* most connection records one capture
				   * held at once (streaming: bounded by the
				   * connections open, plus those closed in
				   * the last 2 minutes) */
	unsigned plots;		  /* PNGs written */
	/* The run was interrupted (killed before its controller wrote
	 * app/jobs.csv): what was captured is analysed; jobs and coflows
	 * that did not finish have no JCT or CCT, and nothing says how
	 * many flows never started. Marked in summary.json. */
	bool incomplete;
	bool interrupted; /* incomplete for that reason (else: capture drops) */
};

/* Analyse the run directory `rundir` and write its outputs there
 * atomically (temporary files renamed at the end; on error none is left and
 * earlier outputs are untouched). Returns 0; -EINVAL when the run directory
 * is unusable (missing, truncated or corrupt file, wrong link type, a
 * manifest that does not match), or another -errno when writing failed;
 * errbuf says which file and why. res (may be NULL) gets the figures. */
int analyze_run(const char *rundir, const struct analyze_opts *o,
		struct analyze_result *res, char *errbuf);

/* Percentiles of a set of values (sorted in place), as in the results. */
void analyze_dist_of(int64_t *v, size_t n, struct analyze_dist *d);

#endif
