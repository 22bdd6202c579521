#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "coflow.h"
#include "util.h"

void tm_init(struct tmatrix *tm, unsigned racks)
{
	tm->n = racks;
	tm->c = xcalloc((size_t)racks * racks, sizeof(uint64_t));
}

void tm_free(struct tmatrix *tm)
{
	free(tm->c);
	tm->c = NULL;
	tm->n = 0;
}

void tm_clear(struct tmatrix *tm)
{
	memset(tm->c, 0, (size_t)tm->n * tm->n * sizeof(uint64_t));
}

int64_t tm_lower_bound(const struct tmatrix *tm, uint64_t bw_o, int64_t delta,
		       uint64_t min_bytes)
{
	unsigned n = tm->n, i, j;
	double *col = xcalloc(n ? n : 1, sizeof(double)), best = 0;

	for (i = 0; i < n; i++) {
		double row = 0;

		for (j = 0; j < n; j++) {
			uint64_t c = tm_get(tm, i, j);
			double t;

			if (!c || c < min_bytes)
				continue;
			/* eq. (1): transfer at bw_o plus one reconfiguration */
			t = (double)c * 8.0 * 1e9 / (double)bw_o + (double)delta;
			row += t;
			col[j] += t;
		}
		if (row > best)
			best = row;
	}
	for (j = 0; j < n; j++)
		if (col[j] > best)
			best = col[j];
	free(col);
	return (int64_t)(best + 0.5);
}

double tm_lower_bound_units(const double *c, unsigned n, double bw,
			    double delta)
{
	double best = 0;
	unsigned i, j;

	for (i = 0; i < n; i++) {
		double row = 0, col = 0;

		for (j = 0; j < n; j++) {
			if (c[i * n + j] > 0)
				row += c[i * n + j] / bw + delta;
			if (c[j * n + i] > 0)
				col += c[j * n + i] / bw + delta;
		}
		if (row > best)
			best = row;
		if (col > best)
			best = col;
	}
	return best;
}

void tm_of_placement(struct tmatrix *tm, const struct wl_job *j,
		     const uint32_t *map_rack, const uint32_t *reduce_rack)
{
	uint32_t m, r;

	for (m = 0; m < j->maps; m++)
		for (r = 0; r < j->reduces; r++)
			if (map_rack[m] != reduce_rack[r])
				tm_add(tm, map_rack[m], reduce_rack[r],
				       wl_partition_bytes(j, m, r));
}

static const char *const kind_names[] = { "input", "shuffle", "output" };

const char *flow_kind_name(int kind)
{
	return kind >= 0 && kind < 3 ? kind_names[kind] : "?";
}

int flow_kind_parse(const char *name)
{
	int k;

	for (k = 0; k < 3; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	return -1;
}

const char *flow_path_name(enum flow_path p)
{
	static const char *const names[] = { "host", "rack", "eps", "ocs" };

	return names[p];
}

enum flow_path flow_base_path(const struct topo *t, unsigned src_host,
			      unsigned dst_host)
{
	if (src_host == dst_host)
		return PATH_HOST;
	if (topo_host_rack(t, src_host) == topo_host_rack(t, dst_host))
		return PATH_RACK;
	return PATH_EPS;
}

int flow_ocs_eligible(const struct topo *t, unsigned src_host,
		      unsigned dst_host, uint64_t bytes)
{
	return t->has_ocs && bytes >= t->t_e &&
	       flow_base_path(t, src_host, dst_host) == PATH_EPS;
}
