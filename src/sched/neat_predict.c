/* NEAT's predictors (neat_predict.h). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "sched/neat_predict.h"

void neat_bins_init(struct neat_bins *b, unsigned n)
{
	unsigned k;

	memset(b, 0, sizeof(*b));
	if (n < 2)
		n = 2;
	if (n > NEAT_MAX_BINS)
		n = NEAT_MAX_BINS;
	b->n = n;
	/* n - 1 bounds from 1 KB to 10 GB, evenly in log scale */
	for (k = 0; k + 1 < n; k++)
		b->bound[k] = n > 2 ? 1e3 * pow(1e7, (double)k / (double)(n - 2)) : 1e6;
	b->bound[n - 1] = INFINITY;
}

unsigned neat_bins_index(const struct neat_bins *b, double size)
{
	unsigned k = 0;

	while (k + 1 < b->n && size >= b->bound[k])
		k++;
	return k;
}

void neat_bins_add(struct neat_bins *b, const struct neat_comp *c)
{
	unsigned k = neat_bins_index(b, c->size);

	b->c[k] += 1;
	b->b[k] += c->size;
	b->d[k] += c->on_link;
	b->e[k] += c->size > 0 ? c->on_link / c->size : 0;
}

static double secs(double bytes, double cap)
{
	return cap > 0 ? bytes * 8.0 / cap : INFINITY;
}

static void flow_exact(enum neat_model m, const struct neat_link *l, double s0,
		       struct neat_pred *out)
{
	double load = s0, delta = 0;
	size_t i;

	for (i = 0; i < l->n; i++) {
		double s = l->comp[i].size, a = l->comp[i].sent;

		switch (m) {
		case NEAT_FCFS: /* eq. (3): every byte ahead, nobody delayed */
			load += s;
			break;
		case NEAT_SRPT: /* eq. (7), (8) */
			if (s <= s0)
				load += s;
			else
				delta += s0;
			break;
		case NEAT_LAS: { /* served up to min(a + s, s0) in all */
			double upto = a + s < s0 ? a + s : s0;

			if (upto > a)
				load += upto - a;
			delta += a + s < s0 ? a + s : s0;
			break;
		}
		default: /* NEAT_FAIR, eq. (4), (5) */
			load += s < s0 ? s : s0;
			delta += s < s0 ? s : s0;
			break;
		}
	}
	out->t = secs(load, l->cap);
	out->delta = secs(delta, l->cap);
}

/* eq. (18) and its likes: the bin of s0 counts as smaller than s0. */
static void flow_bins(enum neat_model m, const struct neat_link *l, double s0,
		      struct neat_pred *out)
{
	const struct neat_bins *b = l->bins;
	unsigned p = neat_bins_index(b, s0), k;
	double below = 0, above_n = 0, all = 0;

	for (k = 0; k < b->n; k++) {
		all += b->b[k];
		if (k <= p)
			below += b->b[k];
		else
			above_n += b->c[k];
	}
	switch (m) {
	case NEAT_FCFS:
		out->t = secs(s0 + all, l->cap);
		out->delta = 0;
		break;
	case NEAT_SRPT:
		out->t = secs(s0 + below, l->cap);
		out->delta = secs(s0 * above_n, l->cap);
		break;
	default: /* Fair, and LAS without what flows sent */
		out->t = secs(s0 + below + s0 * above_n, l->cap);
		out->delta = secs(below + s0 * above_n, l->cap);
		break;
	}
}

void neat_predict_flow(enum neat_model m, const struct neat_link *l, double s0,
		       struct neat_pred *out)
{
	if (l->bins)
		flow_bins(m, l, s0, out);
	else
		flow_exact(m, l, s0, out);
}

static void coflow_exact(enum neat_model m, const struct neat_link *l, double s0, double s0l,
			 double key0, struct neat_pred *out)
{
	double load = s0l, delta = 0;
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct neat_comp *c = &l->comp[i];

		switch (m) {
		case NEAT_CF_FCFS: /* eq. (10) */
			load += c->on_link;
			break;
		case NEAT_CF_PERM: /* eq. (14), (15) */
			if (c->key <= key0)
				load += c->on_link;
			else
				delta += s0l;
			break;
		default: /* NEAT_CF_FAIR: eq. (11), (13) */
			if (c->size <= s0) {
				load += c->on_link;
				delta += s0 > 0 ? c->size * s0l / s0 : 0;
			} else {
				load += c->size > 0 ? s0 * c->on_link / c->size : 0;
				delta += s0l;
			}
			break;
		}
	}
	out->t = secs(load, l->cap);
	out->delta = secs(delta, l->cap);
}

/* eq. (19), (20), (21) */
static void coflow_bins(enum neat_model m, const struct neat_link *l, double s0, double s0l,
			struct neat_pred *out)
{
	const struct neat_bins *b = l->bins;
	unsigned q = neat_bins_index(b, s0), k;
	double d_below = 0, b_below = 0, e_above = 0, c_above = 0, d_all = 0;

	for (k = 0; k < b->n; k++) {
		d_all += b->d[k];
		if (k <= q) {
			d_below += b->d[k];
			b_below += b->b[k];
		} else {
			e_above += b->e[k];
			c_above += b->c[k];
		}
	}
	switch (m) {
	case NEAT_CF_FCFS:
		out->t = secs(s0l + d_all, l->cap);
		out->delta = 0;
		break;
	case NEAT_CF_PERM: /* by size: TCF, eq. (21) */
		out->t = secs(s0l + d_below, l->cap);
		out->delta = secs(s0l * c_above, l->cap);
		break;
	default: /* eq. (19), (20) */
		out->t = secs(s0l + d_below + s0 * e_above, l->cap);
		out->delta = s0 > 0 ? secs(s0l / s0 * (b_below + s0 * c_above), l->cap) : 0;
		break;
	}
}

void neat_predict_coflow(enum neat_model m, const struct neat_link *l, double s0, double s0l,
			 double key0, struct neat_pred *out)
{
	if (m <= NEAT_LAS) { /* flows scheduled one by one */
		neat_predict_flow(m, l, s0l, out);
		return;
	}
	if (l->bins)
		coflow_bins(m, l, s0, s0l, out);
	else
		coflow_exact(m, l, s0, s0l, key0, out);
}
