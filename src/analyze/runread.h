/* The run directory as the analyzer sees it: the manifest joined with the
 * application's own records (app/ files) and the topology, validated so that
 * a manifest from another run or another topology is refused before any
 * capture is read. File names and headers: src/core/rundir.h. */
#ifndef HYDE_RUNREAD_H
#define HYDE_RUNREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "core/topo.h"
#include "core/util.h"

enum an_path { AN_PATH_EPS, AN_PATH_OCS, AN_PATH_RACK, AN_PATH_HOST };

/* What the analyzer could establish for a flow. */
enum an_status {
	AN_NOT_CAPTURED, /* no packet of it on the client's host port */
	AN_DONE,	 /* SYN and the ACK of the last data byte seen */
	AN_UNFINISHED,	 /* seen, but the last data byte was never acked */
	AN_NO_SYN,	 /* seen, but its SYN was not captured: no start */
	AN_HOST,	 /* both ends on one host (loopback): app timestamps */
};

struct an_flow {
	/* manifest.csv */
	char *conn;
	char *name; /* NULL: a manifest from before names */
	uint64_t flow, coflow, map, reduce;
	size_t job;	/* index into an_run.jobs */
	size_t cf;	/* index into an_run.coflows */
	unsigned cli_rack, cli_host, srv_rack, srv_host;
	uint32_t cli_ip, srv_ip;
	uint16_t cli_port, srv_port;
	enum an_path path;
	uint64_t bytes;
	bool cross_rack;
	int kind;	       /* enum hyde_flow_kind */
	bool data_from_cli;    /* output: the client sends the data */
	uint64_t req_bytes;    /* output: the request before the data */
	unsigned rcv_rack, rcv_host; /* the data's receiver: measured there */
	size_t line; /* in manifest.csv, for messages */
	/* app/fetches.csv; -1 when the reducer recorded nothing */
	int64_t connect_ns, last_byte_ns;
	/* measured */
	enum an_status status;
	bool taken; /* a connection instance was joined to it */
	int64_t start_ns, end_ns;
	int64_t data_ns; /* its first data byte on the receiver's port, -1 */
	uint64_t ocs_bytes, eps_bytes, retrans_bytes, data_bytes;
};

struct an_coflow {
	uint64_t coflow;
	size_t job;
	uint64_t flows, bytes, ocs_bytes; /* app/coflows.csv */
	int64_t lower_bound_ns, start_ns, end_ns;
};

struct an_job {
	char *job, *user;
	int64_t arrival_ns, start_ns, end_ns;
	int64_t ready_ns, maps_done_ns; /* -1: unknown */
	uint64_t maps, reduces, shuffle_bytes;
};

struct an_run {
	char *dir;
	/* The run was interrupted (killed before its controller wrote
	 * app/jobs.csv): jobs come from inputs/workload.wl and events.log,
	 * coflows from the manifest, and a coflow whose job did not finish is
	 * never complete. `cut`: a file ended in the middle of a line. */
	bool interrupted, cut;
	/* The run stopped at its --horizon (events.log's "horizon" line):
	 * that instant, else -1. A flow whose capture says it ended later
	 * (in the tear-down) did not end within the run. */
	int64_t horizon_ns;
	struct topo *topo;
	struct an_flow *flows; /* manifest order */
	size_t n_flows;
	struct an_coflow *coflows; /* app/coflows.csv order */
	size_t n_coflows;
	struct an_job *jobs; /* app/jobs.csv order */
	size_t n_jobs;
};

extern const char *const an_path_names[];

/* Load and cross-check the topology, app/jobs.csv, app/coflows.csv,
 * manifest.csv and app/fetches.csv of a run directory. On any problem
 * returns -EINVAL with "file:line: what was expected" in errbuf. The caller
 * owns *out (an_run_free). A run directory without app/jobs.csv but with
 * its inputs is an interrupted run: loaded as such (see an_run). */
int an_run_load(const char *dir, struct an_run **out, char *errbuf);
void an_run_free(struct an_run *r);

#endif
