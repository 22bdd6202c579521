/* State shared by the analyzer's passes (analyze.c) and its writers
 * (report.c). Not for use outside src/analyze/. */
#ifndef HYDE_ANALYZE_INT_H
#define HYDE_ANALYZE_INT_H

#include <stdio.h>

#include "analyze/analyze.h"
#include "analyze/runread.h"
#include "analyze/tuplemap.h"

/* Which ToR port a capture was taken on (from its file name). */
enum an_role {
	AN_ROLE_HOST,  /* tor<k>-h<i>: FCT, retransmissions */
	AN_ROLE_UP,    /* tor<k>-up: EPS bytes */
	AN_ROLE_OCS,   /* tor<k>-ocs: OCS bytes */
	AN_ROLE_OTHER, /* anything else: only checked for unknown connections */
};

struct an_capture {
	char *name; /* file name in pcap/ */
	char *path;
	enum an_role role;
	unsigned rack, host;
	uint64_t packets, tcp, other, bad, matched;
	uint64_t wire_bytes, file_bytes;
	int64_t first_ns, last_ns;
	bool cut; /* ended inside a packet (an interrupted run) */
	/* the capture's own counts (pcap/<tor>.capstats): its ring, frames
	 * received and dropped (no room in the ring), and the interface's
	 * drops; has_stats false when the capture wrote none (killed, or a
	 * run of an older hyde) */
	bool has_stats;
	uint64_t ring_bytes, cap_received, cap_dropped, cap_ifdropped;
};

/* A TCP connection the manifest does not list (or one more instance of a
 * listed 4-tuple than it has lines). */
struct an_unknown {
	struct tuple k; /* as first seen: a = source, b = destination */
	size_t capture;
	uint64_t packets, payload;
	int64_t first_ns, last_ns;
	bool in_manifest; /* an extra instance of a listed 4-tuple */
};

/* Manifest lines sharing one 4-tuple (port reuse), sorted by connect_ns. */
struct an_group {
	size_t start, n; /* into an_state.order */
};

struct an_cfres {
	int64_t start_ns, end_ns, cct_ns, app_cct_ns;
	uint64_t flows, bytes, ocs_bytes, eps_bytes;
	bool measured; /* at least one of its flows measured from a capture */
};

struct an_state {
	struct an_run *run;
	struct analyze_opts opts;
	struct analyze_result *res;
	struct an_capture *caps;
	size_t n_caps;
	struct tuplemap index; /* (cli, srv) -> struct an_group */
	struct an_group *groups;
	size_t *order;
	struct tuplemap unknown_map;
	struct an_unknown **unknown;
	size_t n_unknown, cap_unknown;
	char **warnings;
	size_t n_warnings, cap_warnings;
	struct an_cfres *cf;	  /* per coflow */
	uint64_t *job_cross;	  /* per job: cross-rack bytes */
};

void an_warn(struct an_state *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* report.c: the output files (columns: rundir.h) */
int an_write_flows(FILE *fp, void *st);
int an_write_coflows(FILE *fp, void *st);
int an_write_jobs(FILE *fp, void *st);
int an_write_summary(FILE *fp, void *st);
int64_t an_flow_fct(const struct an_flow *f);
int64_t an_flow_app_fct(const struct an_flow *f);
extern const char *const an_status_names[];

/* Output files written as temporaries in the run directory and renamed
 * together at the end. */
struct an_outset {
	char *dir;
	char **final, **tmp;
	size_t n, cap;
};

void an_outset_init(struct an_outset *o, const char *dir);
/* A new temporary for `name`; its path in *tmp_path (owned by o). */
int an_outset_add(struct an_outset *o, const char *name, const char **tmp_path,
		  char *errbuf);
int an_outset_write(struct an_outset *o, const char *name,
		    int (*fn)(FILE *fp, void *arg), void *arg, char *errbuf);
bool an_outset_has(const struct an_outset *o, const char *name);
int an_outset_commit(struct an_outset *o, char *errbuf);
/* Remove every temporary not yet renamed and free o. */
void an_outset_abort(struct an_outset *o);
void an_outset_free(struct an_outset *o);

#endif
