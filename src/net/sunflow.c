/* Sunflow (Huang, Sun, Ng, CoNEXT 2016): circuit scheduling for coflows,
 * as ALGORITHMS.md reads it from the public simulator. Shortest coflow
 * first by its OCS lower bound T(C) (Co-scheduler §V-A: "shortest lower
 * bound CCT"), non-preemptive, not-all-stop:
 * - the first coflow's demand layer is list-scheduled from now: every pair
 *   whose two ports are idle starts, holding both for delta + bits / bw;
 *   T_plan is the end of the last of them;
 * - each later coflow, in priority order, may only use the idle gaps of its
 *   ports inside [now, T_plan]; a pair taken by a higher-priority coflow is
 *   left out of its layer; bits a gap cannot hold wait for the next plan.
 * Demand is aggregated per pair first (the reference's per-flow "taken"
 * marking drops a second flow on a pair; ALGORITHMS.md, pitfall). */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "net/csched.h"

struct ival {
	int64_t s, e;
};

/* Busy intervals of one side (out or in) of a port, sorted by start. */
struct timeline {
	struct ival *v;
	size_t n, cap;
};

static void tl_add(struct timeline *tl, int64_t s, int64_t e)
{
	size_t i;

	xgrow((void **)&tl->v, &tl->cap, tl->n + 1, sizeof(*tl->v));
	for (i = tl->n; i > 0 && tl->v[i - 1].s > s; i--)
		tl->v[i] = tl->v[i - 1];
	tl->v[i] = (struct ival){ s, e };
	tl->n++;
}

/* If t is inside a busy interval, its end; else t. */
static int64_t tl_free_from(const struct timeline *tl, int64_t t)
{
	size_t i;
	bool moved = true;

	while (moved) {
		moved = false;
		for (i = 0; i < tl->n; i++)
			if (tl->v[i].s <= t && t < tl->v[i].e) {
				t = tl->v[i].e;
				moved = true;
			}
	}
	return t;
}

/* Start of the first busy interval after t (t idle), or limit. */
static int64_t tl_gap_end(const struct timeline *tl, int64_t t, int64_t limit)
{
	size_t i;
	int64_t end = limit;

	for (i = 0; i < tl->n; i++)
		if (tl->v[i].s >= t && tl->v[i].s < end)
			end = tl->v[i].s;
	return end;
}

struct pairdem {
	uint32_t coflow, src, dst;
	double bits;
};

struct cfinfo {
	uint32_t coflow;
	double alpha; /* T(C) of its remaining demand, ns */
	size_t first, n; /* its pairs in the sorted pair array */
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pairdem *x = a, *y = b;

	if (x->coflow != y->coflow)
		return x->coflow < y->coflow ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

/* Larger demand first inside a layer (ties by pair, for determinism). */
static int cmp_bits_desc(const void *a, const void *b)
{
	const struct pairdem *x = a, *y = b;

	if (x->bits != y->bits)
		return x->bits > y->bits ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

static int cmp_cf(const void *a, const void *b)
{
	const struct cfinfo *x = a, *y = b;

	if (x->alpha != y->alpha)
		return x->alpha < y->alpha ? -1 : 1;
	return (x->coflow > y->coflow) - (x->coflow < y->coflow);
}

/* Maximum bipartite matching (Kuhn's augmenting paths) over the candidate
 * pairs cand[] (indices into q[], sorted heaviest first), seeded greedily
 * by weight so the heavy pairs are kept when the size allows. Writes the
 * chosen indices; returns how many. */
struct mstate {
	const struct pairdem *q;
	const size_t *cand;
	size_t ncand;
	long *by_dst;	 /* dst port -> cand index matched, -1 */
	long *by_src;	 /* src port -> cand index matched, -1 */
	unsigned *seen;	 /* dst port -> visit stamp */
	unsigned stamp;
};

static bool augment(struct mstate *m, uint32_t src)
{
	size_t k;

	for (k = 0; k < m->ncand; k++) {
		const struct pairdem *e = &m->q[m->cand[k]];

		if (e->src != src || m->seen[e->dst] == m->stamp)
			continue;
		m->seen[e->dst] = m->stamp;
		if (m->by_dst[e->dst] < 0 ||
		    augment(m, m->q[m->cand[m->by_dst[e->dst]]].src)) {
			m->by_dst[e->dst] = (long)k;
			m->by_src[src] = (long)k;
			return true;
		}
	}
	return false;
}

static size_t match_pairs(const struct pairdem *q, const size_t *cand,
			  size_t ncand, unsigned R, size_t *chosen)
{
	struct mstate m = { q, cand, ncand, NULL, NULL, NULL, 0 };
	size_t k, n = 0;
	unsigned v;

	if (!ncand)
		return 0;
	m.by_dst = xcalloc(R, sizeof(long));
	m.by_src = xcalloc(R, sizeof(long));
	m.seen = xcalloc(R, sizeof(unsigned));
	for (v = 0; v < R; v++)
		m.by_dst[v] = m.by_src[v] = -1;
	for (k = 0; k < ncand; k++) {
		const struct pairdem *e = &q[cand[k]];

		if (m.by_src[e->src] < 0 && m.by_dst[e->dst] < 0) {
			m.by_src[e->src] = (long)k;
			m.by_dst[e->dst] = (long)k;
		}
	}
	for (k = 0; k < ncand; k++) {
		uint32_t src = q[cand[k]].src;

		if (m.by_src[src] >= 0)
			continue;
		m.stamp++;
		augment(&m, src);
	}
	for (v = 0; v < R; v++)
		if (m.by_dst[v] >= 0)
			chosen[n++] = cand[m.by_dst[v]];
	free(m.by_dst);
	free(m.by_src);
	free(m.seen);
	return n;
}

static int64_t hold_time(double bits, double bw)
{
	return (int64_t)ceil(bits / bw);
}

static int sunflow_plan(const struct cs_input *in, struct cs_plan *out)
{
	unsigned R = in->ports;
	struct timeline *outl = xcalloc(R, sizeof(*outl)), *inl = xcalloc(R, sizeof(*inl));
	struct pairdem *p = xcalloc(in->n_d + 1, sizeof(*p));
	struct cfinfo *cf = NULL;
	int32_t *last_out = xcalloc(R, sizeof(int32_t)), *last_in = xcalloc(R, sizeof(int32_t));
	uint8_t *taken = xcalloc((size_t)R * R, 1);
	double *srow = xcalloc(R, sizeof(double)), *scol = xcalloc(R, sizeof(double));
	size_t np = 0, ncf = 0, i, k;
	int64_t t_plan = in->now;

	cs_plan_reset(out);
	/* aggregate per (coflow, pair) */
	for (i = 0; i < in->n_d; i++)
		if (in->d[i].bits > 0)
			p[np++] = (struct pairdem){ in->d[i].coflow, in->d[i].src,
						    in->d[i].dst, in->d[i].bits };
	qsort(p, np, sizeof(*p), cmp_pair);
	for (i = 0, k = 0; i < np; i++) {
		if (k && p[k - 1].coflow == p[i].coflow && p[k - 1].src == p[i].src &&
		    p[k - 1].dst == p[i].dst)
			p[k - 1].bits += p[i].bits;
		else
			p[k++] = p[i];
	}
	np = k;
	/* coflows and their T(C) */
	cf = xcalloc(np + 1, sizeof(*cf));
	for (i = 0; i < np; i = k) {
		double best = 0;
		size_t m;

		for (k = i; k < np && p[k].coflow == p[i].coflow; k++) {
			double w = p[k].bits / in->bw + (double)in->delta;

			srow[p[k].src] += w;
			scol[p[k].dst] += w;
		}
		for (m = i; m < k; m++) {
			if (srow[p[m].src] > best)
				best = srow[p[m].src];
			if (scol[p[m].dst] > best)
				best = scol[p[m].dst];
		}
		for (m = i; m < k; m++)
			srow[p[m].src] = scol[p[m].dst] = 0;
		cf[ncf++] = (struct cfinfo){ p[i].coflow, best, i, k - i };
		qsort(p + i, k - i, sizeof(*p), cmp_bits_desc);
	}
	qsort(cf, ncf, sizeof(*cf), cmp_cf);

	for (i = 0; i < R; i++) {
		last_out[i] = in->out_of ? in->out_of[i] : -1;
		last_in[i] = -1;
	}
	for (i = 0; i < R; i++)
		if (last_out[i] >= 0)
			last_in[last_out[i]] = (int32_t)i;
	for (i = 0; i < in->n_busy; i++) {
		const struct cs_busy *b = &in->busy[i];

		if (b->until > in->now) {
			tl_add(&outl[b->src], in->now, b->until);
			tl_add(&inl[b->dst], in->now, b->until);
		}
	}

	if (ncf) {
		/* first layer: list scheduling of the shortest coflow. At each
		 * instant the pairs whose two ports are idle start together;
		 * which of them is a maximum matching on those pairs (heaviest
		 * first, then augmented), so that no port idles when a perfect
		 * matching exists (Co-scheduler §III-B: 6 + 2 delta). */
		const struct cfinfo *c = &cf[0];
		bool *done = xcalloc(c->n, sizeof(bool));
		size_t *cand = xcalloc(c->n, sizeof(size_t)), ncand;
		size_t *chosen = xcalloc(c->n, sizeof(size_t)), nch;
		size_t left = c->n;
		int64_t t = in->now;

		while (left) {
			int64_t next = INT64_MAX;

			ncand = 0;
			for (k = 0; k < c->n; k++) {
				const struct pairdem *q = &p[c->first + k];
				int64_t fo, fi;

				if (done[k])
					continue;
				fo = tl_free_from(&outl[q->src], t);
				fi = tl_free_from(&inl[q->dst], t);
				if (fo > t || fi > t) {
					int64_t w = fo > fi ? fo : fi;

					if (w < next)
						next = w;
					continue;
				}
				cand[ncand++] = k;
			}
			nch = match_pairs(p + c->first, cand, ncand, R, chosen);
			for (k = 0; k < nch; k++) {
				const struct pairdem *q = &p[c->first + chosen[k]];
				int64_t end, d;

				d = (last_out[q->src] == (int32_t)q->dst &&
				     last_in[q->dst] == (int32_t)q->src) ? 0 : in->delta;
				end = t + d + hold_time(q->bits, in->bw);
				tl_add(&outl[q->src], t, end);
				tl_add(&inl[q->dst], t, end);
				if (last_out[q->src] >= 0)
					last_in[last_out[q->src]] = -1;
				if (last_in[q->dst] >= 0)
					last_out[last_in[q->dst]] = -1;
				last_out[q->src] = (int32_t)q->dst;
				last_in[q->dst] = (int32_t)q->src;
				cs_plan_add(out, q->coflow, q->src, q->dst, t, end);
				taken[(size_t)q->src * R + q->dst] = 1;
				if (end > t_plan)
					t_plan = end;
				if (end < next)
					next = end;
				done[chosen[k]] = true;
				left--;
			}
			if (left)
				t = next;
		}
		free(done);
		free(cand);
		free(chosen);
	}
	/* later layers: gaps inside [now, t_plan] only */
	for (i = 1; i < ncf; i++) {
		const struct cfinfo *c = &cf[i];

		for (k = 0; k < c->n; k++) {
			const struct pairdem *q = &p[c->first + k];
			size_t cell = (size_t)q->src * R + q->dst;
			int64_t t = in->now;

			if (taken[cell])
				continue; /* a higher-priority coflow owns the pair */
			taken[cell] = 1;
			while (t < t_plan) {
				int64_t fo = tl_free_from(&outl[q->src], t);
				int64_t fi = tl_free_from(&inl[q->dst], t);
				int64_t ge, end;

				if (fo != t || fi != t) {
					t = fo > fi ? fo : fi;
					continue;
				}
				ge = tl_gap_end(&outl[q->src], t, t_plan);
				end = tl_gap_end(&inl[q->dst], t, ge);
				if (end - t > in->delta) {
					int64_t want = t + in->delta + hold_time(q->bits, in->bw);

					if (want < end)
						end = want;
					tl_add(&outl[q->src], t, end);
					tl_add(&inl[q->dst], t, end);
					cs_plan_add(out, q->coflow, q->src, q->dst, t, end);
					break;
				}
				t = end; /* too short a gap: look further */
			}
		}
	}
	out->replan_at = out->n ? t_plan : -1;

	for (i = 0; i < R; i++) {
		free(outl[i].v);
		free(inl[i].v);
	}
	free(outl);
	free(inl);
	free(p);
	free(cf);
	free(last_out);
	free(last_in);
	free(taken);
	free(srow);
	free(scol);
	return 0;
}

const struct csched_ops csched_sunflow = {
	.name = "sunflow",
	.summary = "Sunflow: shortest coflow first, non-preemptive, not-all-stop (CoNEXT'16)",
	.plan = sunflow_plan,
	.period = 0,
};
