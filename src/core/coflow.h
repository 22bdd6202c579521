/* Traffic matrices, flows and coflows. A coflow is one job's shuffle: the
 * flows from every map to every reduce. Its rack-to-rack traffic matrix C
 * gives the OCS lower bound T(C) of Co-scheduler eq. (1)-(2). */
#ifndef HYDE_COFLOW_H
#define HYDE_COFLOW_H

#include <stdint.h>

#include "topo.h"
#include "workload.h"

/* Rack-to-rack bytes, C[i][j] from rack i to rack j. */
struct tmatrix {
	unsigned n;
	uint64_t *c;
};

void tm_init(struct tmatrix *tm, unsigned racks);
void tm_free(struct tmatrix *tm);
void tm_clear(struct tmatrix *tm);
static inline uint64_t tm_get(const struct tmatrix *tm, unsigned i, unsigned j)
{
	return tm->c[(size_t)i * tm->n + j];
}
static inline void tm_add(struct tmatrix *tm, unsigned i, unsigned j,
			  uint64_t bytes)
{
	tm->c[(size_t)i * tm->n + j] += bytes;
}

/* Co-scheduler eq. (1)-(2): t_ij = C_ij / bw_o + delta if C_ij > 0, and
 * T(C) = max(max_i sum_j t_ij, max_j sum_i t_ij). Only entries of at least
 * min_bytes count (pass t_e to keep the OCS-eligible ones, 0 for all).
 * bw_o in bit/s, delta and the result in ns. */
int64_t tm_lower_bound(const struct tmatrix *tm, uint64_t bw_o, int64_t delta,
		       uint64_t min_bytes);
/* The same in any consistent units (the papers' worked examples): c is an
 * n x n row-major matrix of sizes, bw in size per time unit. */
double tm_lower_bound_units(const double *c, unsigned n, double bw,
			    double delta);

/* The cross-rack traffic matrix of a job's shuffle when its maps run on
 * map_rack[] and its reduces on reduce_rack[] (flows inside a rack do not
 * cross the fabric and are left out). */
void tm_of_placement(struct tmatrix *tm, const struct wl_job *j,
		     const uint32_t *map_rack, const uint32_t *reduce_rack);

/* Which way a flow goes. */
enum flow_path {
	PATH_HOST, /* source and destination on one host: no network */
	PATH_RACK, /* same rack: through the ToR only */
	PATH_EPS,  /* across racks over the packet core */
	PATH_OCS,  /* across racks over an optical circuit */
};
const char *flow_path_name(enum flow_path p);
/* input, shuffle, output (enum hyde_flow_kind) */
const char *flow_kind_name(int kind);
/* The name back, or -1. */
int flow_kind_parse(const char *name);

/* The path a flow would take if granted a circuit when it is eligible:
 * at least t_e bytes between two racks of a topology with an OCS. */
int flow_ocs_eligible(const struct topo *t, unsigned src_host,
		      unsigned dst_host, uint64_t bytes);
enum flow_path flow_base_path(const struct topo *t, unsigned src_host,
			      unsigned dst_host);

#endif
