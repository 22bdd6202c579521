/* Network scheduling policies: names, and the coflow allocations of
 * netsched.h. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "net/netsched.h"

static const char *const net_names[] = { "fair", "fcfs", "srpt", "las" };
static const char *const coflow_names[] = { "none", "varys", "scf", "fcfs", "fair" };

int netsched_net_parse(const char *name)
{
	size_t i;

	if (!strcmp(name, "maxmin"))
		return HYDE_NET_FAIR;
	for (i = 0; i < ARRAY_SIZE(net_names); i++)
		if (!strcmp(name, net_names[i]))
			return (int)i;
	return -1;
}

const char *netsched_net_name(enum hyde_net_policy p)
{
	return (size_t)p < ARRAY_SIZE(net_names) ? net_names[p] : "?";
}

int netsched_coflow_parse(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(coflow_names); i++)
		if (!strcmp(name, coflow_names[i]))
			return (int)i;
	return -1;
}

const char *netsched_coflow_name(enum hyde_coflow_policy p)
{
	return (size_t)p < ARRAY_SIZE(coflow_names) ? coflow_names[p] : "?";
}

/* Per coflow: bits left in all, and on each link (sparse: a list of
 * (link, bits) built from its flows). */
struct ns_cf {
	double left;
	size_t first, n; /* its entries in the link list */
	double gamma;	 /* Varys: bottleneck time alone */
	double rate;	 /* fair: aggregate rate */
	bool frozen;
	size_t order;
};

struct ns_link_use {
	int link;
	double bits;
};

struct ns_work {
	struct ns_cf *cf;
	struct ns_link_use *use; /* grouped by coflow */
	size_t n_use;
	size_t *by_cf;		 /* flows grouped by coflow */
	size_t *cf_off;
	double *free;
};

/* Group flows by coflow and sum each coflow's bits per link. */
static void work_build(struct ns_work *w, const struct ns_flow *f, size_t n, size_t n_cf,
		       const double *cap, size_t n_links)
{
	size_t i, c, *fill;
	int *seen;

	w->cf = xcalloc(n_cf + 1, sizeof(*w->cf));
	w->cf_off = xcalloc(n_cf + 2, sizeof(size_t));
	w->by_cf = xcalloc(n + 1, sizeof(size_t));
	w->use = xcalloc(n * NETSCHED_MAX_LINKS + 1, sizeof(*w->use));
	w->free = xcalloc(n_links + 1, sizeof(double));
	memcpy(w->free, cap, n_links * sizeof(double));
	for (i = 0; i < n; i++)
		w->cf_off[f[i].coflow + 1]++;
	for (c = 0; c < n_cf; c++)
		w->cf_off[c + 1] += w->cf_off[c];
	fill = xcalloc(n_cf + 1, sizeof(size_t));
	for (i = 0; i < n; i++)
		w->by_cf[w->cf_off[f[i].coflow] + fill[f[i].coflow]++] = i;
	free(fill);
	/* seen[link]: its entry in the current coflow's list, + 1 */
	seen = xcalloc(n_links + 1, sizeof(int));
	w->n_use = 0;
	for (c = 0; c < n_cf; c++) {
		struct ns_cf *cf = &w->cf[c];
		size_t k;

		cf->first = w->n_use;
		for (k = w->cf_off[c]; k < w->cf_off[c + 1]; k++) {
			const struct ns_flow *fl = &f[w->by_cf[k]];
			int m;

			cf->left += fl->left;
			for (m = 0; m < fl->nlinks; m++) {
				int l = fl->links[m];

				if (!seen[l]) {
					w->use[w->n_use] = (struct ns_link_use){ l, 0 };
					seen[l] = (int)(w->n_use - cf->first) + 1;
					w->n_use++;
				}
				w->use[cf->first + (size_t)seen[l] - 1].bits += fl->left;
			}
		}
		cf->n = w->n_use - cf->first;
		for (k = cf->first; k < w->n_use; k++)
			seen[w->use[k].link] = 0;
	}
	free(seen);
}

static void work_free(struct ns_work *w)
{
	free(w->cf);
	free(w->use);
	free(w->by_cf);
	free(w->cf_off);
	free(w->free);
}

/* Rates below this share of a link are what float rounding leaves. */
#define NS_EPS 1e-12

/* Fair: the aggregate rates R_c max-min fair, coflow c loading link l
 * with R_c x w_cl, w_cl = bits of c on l / bits of c (progressive
 * filling: raise every unfrozen R_c alike until a link is full, freeze
 * the coflows on it). */
static void coflow_fair(struct ns_work *w, size_t n_cf, const double *cap, size_t n_links)
{
	double *weight = xcalloc(n_links + 1, sizeof(double));
	size_t c, k, left = 0, rounds = 0;

	for (c = 0; c < n_cf; c++)
		if (w->cf[c].left > 0 && w->cf[c].n)
			left++;
		else
			w->cf[c].frozen = true;
	/* each round freezes at least the coflows of the link that fills */
	while (left && rounds++ <= n_cf) {
		double step = INFINITY;

		memset(weight, 0, n_links * sizeof(double));
		for (c = 0; c < n_cf; c++)
			if (!w->cf[c].frozen)
				for (k = w->cf[c].first; k < w->cf[c].first + w->cf[c].n; k++)
					weight[w->use[k].link] += w->use[k].bits / w->cf[c].left;
		for (k = 0; k < n_links; k++)
			if (weight[k] > 0) {
				double d = (w->free[k] > 0 ? w->free[k] : 0) / weight[k];

				if (d < step)
					step = d;
			}
		if (!(step < INFINITY))
			break;
		for (k = 0; k < n_links; k++)
			w->free[k] -= step * weight[k];
		for (c = 0; c < n_cf; c++) {
			struct ns_cf *cf = &w->cf[c];

			if (cf->frozen)
				continue;
			cf->rate += step;
			for (k = cf->first; k < cf->first + cf->n; k++)
				if (w->free[w->use[k].link] <= NS_EPS * cap[w->use[k].link]) {
					cf->frozen = true;
					left--;
					break;
				}
		}
	}
	free(weight);
}

static const struct ns_cf *sort_cf;

static int cmp_gamma(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (sort_cf[x].gamma != sort_cf[y].gamma)
		return sort_cf[x].gamma < sort_cf[y].gamma ? -1 : 1;
	return (x > y) - (x < y);
}

/* Varys: SEBF order, then MADD on what the coflows before left. */
static void coflow_varys(struct ns_work *w, size_t n_cf, const double *cap, size_t *order)
{
	size_t c, k, i;

	for (c = 0; c < n_cf; c++) {
		struct ns_cf *cf = &w->cf[c];

		order[c] = c;
		cf->gamma = 0;
		for (k = cf->first; k < cf->first + cf->n; k++) {
			double g = w->use[k].bits / cap[w->use[k].link];

			if (g > cf->gamma)
				cf->gamma = g;
		}
	}
	sort_cf = w->cf;
	xqsort(order, n_cf, sizeof(size_t), cmp_gamma);
	sort_cf = NULL;
	for (i = 0; i < n_cf; i++) {
		struct ns_cf *cf = &w->cf[order[i]];
		double g = 0;

		if (!cf->n || cf->left <= 0)
			continue;
		for (k = cf->first; k < cf->first + cf->n; k++) {
			double fr = w->free[w->use[k].link];

			if (fr <= NS_EPS * cap[w->use[k].link]) {
				g = INFINITY; /* a link it needs is full: it waits */
				break;
			}
			if (w->use[k].bits / fr > g)
				g = w->use[k].bits / fr;
		}
		if (!(g < INFINITY) || g <= 0)
			continue;
		cf->gamma = g; /* its flows get left / g */
		cf->rate = 1.0 / g;
		for (k = cf->first; k < cf->first + cf->n; k++)
			w->free[w->use[k].link] -= w->use[k].bits / g;
	}
}

void netsched_coflow_rates(enum hyde_coflow_policy p, const struct ns_flow *f, size_t n,
			   size_t n_coflows, const double *cap, size_t n_links, double *rate)
{
	struct ns_work w;
	size_t *order, c, k;

	if (!n)
		return;
	work_build(&w, f, n, n_coflows, cap, n_links);
	order = xcalloc(n_coflows + 1, sizeof(size_t));
	if (p == HYDE_COFLOW_VARYS) {
		coflow_varys(&w, n_coflows, cap, order);
		for (c = 0; c < n_coflows; c++)
			for (k = w.cf_off[c]; k < w.cf_off[c + 1]; k++)
				rate[w.by_cf[k]] = f[w.by_cf[k]].left * w.cf[c].rate;
	} else {
		coflow_fair(&w, n_coflows, cap, n_links);
		for (c = 0; c < n_coflows; c++)
			for (k = w.cf_off[c]; k < w.cf_off[c + 1]; k++)
				rate[w.by_cf[k]] = w.cf[c].left > 0
							   ? w.cf[c].rate * f[w.by_cf[k]].left / w.cf[c].left
							   : 0;
	}
	/* work conservation: what is left, coflow by coflow in arrival
	 * order, each flow what its path still has */
	for (c = 0; c < n_coflows; c++)
		for (k = w.cf_off[c]; k < w.cf_off[c + 1]; k++) {
			size_t i = w.by_cf[k];
			double more = INFINITY;
			int m;

			for (m = 0; m < f[i].nlinks; m++)
				if (w.free[f[i].links[m]] < more)
					more = w.free[f[i].links[m]];
			if (!(more > 0) || more < NS_EPS * cap[f[i].links[0]])
				continue;
			rate[i] += more;
			for (m = 0; m < f[i].nlinks; m++)
				w.free[f[i].links[m]] -= more;
		}
	free(order);
	work_free(&w);
}
