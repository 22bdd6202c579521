/* Sunflow [Sunflow]: circuit scheduling for coflows, as the authors'
 * simulator runs it [Sunflow-sim] (docs/REFERENCES.md, "Readings").
 * Shortest coflow first by its OCS lower bound T(C) (Co-scheduler §V-A:
 * "shortest lower bound CCT"), non-preemptive, not-all-stop:
 * - the first coflow's demand layer is list-scheduled from now: every pair
 *   whose two ports are idle starts, holding both for delta + bits / bw;
 *   T_plan is the end of the last of them;
 * - each later coflow, in priority order, may only use the idle gaps of its
 *   ports inside [now, T_plan]; a pair taken by a higher-priority coflow is
 *   left out of its layer; bits a gap cannot hold wait for the next plan.
 * Demand is aggregated per pair first (the reference's per-flow "taken"
 * marking drops a second flow on a pair [Sunflow-sim]). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "core/util.h"
#include "net/csched.h"

struct ival {
	int64_t s, e;
};

/* Busy stretches of one side (out or in) of a port, sorted by start. They
 * never overlap (a side carries one circuit at a time) nor touch (tl_add
 * merges them). */
struct timeline {
	struct ival *v;
	size_t n, cap;
	int64_t now_free; /* tl_free_from(now), while now_ok */
	bool now_ok;
};

/* Index of the first interval that starts at or after t. */
static size_t tl_lower(const struct timeline *tl, int64_t t)
{
	size_t lo = 0, hi = tl->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl->v[mid].s < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* An interval [s, e) that overlaps none: merged with a neighbour it
 * touches (e == next start, prev end == s), so that the timeline holds
 * busy stretches, and a stretch's end is one look-up (the first layer
 * lays a port's pairs end to end: a chain of them cost a walk per query).
 * The answers do not change: a stretch starts where its first interval
 * did, its end is where the chain of intervals ended, and an idle t is
 * never inside one (so the first interval starting at or after an idle t
 * starts a stretch). */
static void tl_add(struct timeline *tl, int64_t s, int64_t e)
{
	size_t i = tl_lower(tl, s + 1); /* after those starting at s too */
	bool prev = i > 0 && tl->v[i - 1].e == s, next = i < tl->n && tl->v[i].s == e;

	tl->now_ok = false;
	if (prev && next) {
		tl->v[i - 1].e = tl->v[i].e;
		memmove(tl->v + i, tl->v + i + 1, (tl->n - i - 1) * sizeof(*tl->v));
		tl->n--;
		return;
	}
	if (prev) {
		tl->v[i - 1].e = e;
		return;
	}
	if (next) {
		tl->v[i].s = s;
		return;
	}
	xgrow((void **)&tl->v, &tl->cap, tl->n + 1, sizeof(*tl->v));
	memmove(tl->v + i + 1, tl->v + i, (tl->n - i) * sizeof(*tl->v));
	tl->v[i] = (struct ival){ s, e };
	tl->n++;
}

/* If t is inside a busy stretch, its end; else t. */
static int64_t tl_free_from(const struct timeline *tl, int64_t t)
{
	size_t i = tl_lower(tl, t + 1); /* stretches [i, n) start after t */

	if (i > 0 && t < tl->v[i - 1].e)
		return tl->v[i - 1].e; /* the last one starting at or before t */
	return t;
}

/* Index of the first stretch that starts after t, from i on (i: the first
 * after an earlier instant): the next one checked first, then a binary
 * search of the rest. */
static size_t tl_after(const struct timeline *tl, size_t i, int64_t t)
{
	size_t hi = tl->n;

	if (i >= hi || tl->v[i].s > t)
		return i;
	i++;
	while (i < hi) {
		size_t mid = i + (hi - i) / 2;

		if (tl->v[mid].s <= t)
			i = mid + 1;
		else
			hi = mid;
	}
	return i;
}

/* tl_free_from(now), remembered until the timeline changes: the later
 * layers ask it for every pair. */
static int64_t tl_free_now(struct timeline *tl, int64_t now)
{
	if (!tl->now_ok) {
		tl->now_free = tl_free_from(tl, now);
		tl->now_ok = true;
	}
	return tl->now_free;
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

/* Kept from one plan to the next (cs_plan's cache): each coflow's pairs
 * as aggregated, in layer order, with its T(C). A coflow whose demand has
 * not changed since (a waiting coflow's does not: only pairs moving data
 * shrink) is not sorted again. And scratch of R x R cells, stamped, so
 * that a plan need not clear them. */
struct sf_entry {
	uint32_t coflow;
	size_t off, n;
	double alpha;
};

struct sf_cache {
	struct sf_entry *e;
	size_t ne, cap_e;
	struct pairdem *in, *sorted; /* [e.off, e.off + e.n) of each */
	size_t n, cap_in, cap_sorted;
	unsigned R;
	struct { unsigned stamp; size_t at; } *cells;
	unsigned *taken;
	unsigned cstamp, tstamp;
	/* the arrays of the plan being made, kept with their room */
	struct sf_entry *e2;
	struct pairdem *sorted2, *p; /* p: the plan's input, then the cache's in */
	struct cfinfo *cf;
	size_t cap_e2, cap_sorted2, cap_p, cap_cf;
	struct timeline *outl, *inl;
	/* resort_walk's: places dropped from the last order, pairs added */
	size_t *w_drop;
	struct pairdem *w_add;
	size_t cap_w_drop, cap_w_add;
	struct sf_layer *layer; /* the first layer under way (sf_layer_run) */
};

static struct sf_layer *sf_layer_new(void);
static void sf_layer_drop(struct sf_layer *ly);

static void sf_cache_free(void *p)
{
	struct sf_cache *sc = p;

	sf_layer_drop(sc->layer);

	free(sc->e);
	free(sc->in);
	free(sc->sorted);
	free(sc->cells);
	free(sc->taken);
	free(sc->e2);
	free(sc->sorted2);
	free(sc->p);
	free(sc->cf);
	free(sc->w_drop);
	free(sc->w_add);
	for (unsigned i = 0; i < sc->R; i++) {
		free(sc->outl[i].v);
		free(sc->inl[i].v);
	}
	free(sc->outl);
	free(sc->inl);
	free(sc);
}

static struct sf_cache *sf_cache_of(struct cs_plan *out, unsigned R)
{
	struct sf_cache *sc = out->cache;

	if (sc && sc->R == R)
		return sc;
	if (sc)
		sf_cache_free(sc);
	sc = xcalloc(1, sizeof(*sc));
	sc->R = R;
	sc->cells = xcalloc((size_t)R * R + 1, sizeof(*sc->cells));
	sc->taken = xcalloc((size_t)R * R + 1, sizeof(*sc->taken));
	sc->outl = xcalloc(R + 1, sizeof(*sc->outl));
	sc->inl = xcalloc(R + 1, sizeof(*sc->inl));
	sc->layer = sf_layer_new();
	out->cache = sc;
	out->cache_free = sf_cache_free;
	return sc;
}

static bool same_demand(const struct pairdem *a, const struct pairdem *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i].src != b[i].src || a[i].dst != b[i].dst || a[i].bits != b[i].bits)
			return false;
	return true;
}

/* Larger demand first inside a layer (ties by pair, for determinism). */
static bool bits_before(const struct pairdem *x, const struct pairdem *y)
{
	if (x->bits != y->bits)
		return x->bits > y->bits;
	if (x->src != y->src)
		return x->src < y->src;
	return x->dst < y->dst;
}

static bool size_before(const size_t *x, const size_t *y)
{
	return *x < *y;
}

/* a coflow's pairs in layer order, at every plan */
static HYDE_QSORT(sort_bits_desc, struct pairdem, bits_before)
/* the first layer's candidates, at every instant a port frees; the
 * walk's dropped places */
static HYDE_QSORT(sort_size, size_t, size_before)
/* the ports a matching took, by number (its output's order) */
static bool port_before(const uint32_t *a, const uint32_t *b)
{
	return *a < *b;
}

static HYDE_QSORT(sort_port, uint32_t, port_before)

/* Where x is in v[0..n), sorted in that order (it is there). */
static size_t find_sorted(const struct pairdem *v, size_t n, const struct pairdem *x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (bits_before(&v[mid], x))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* resort's way when the coflow's pairs come in the order they came at the
 * last plan (the controller lists a job's pairs in the order they got
 * demand), less those gone, with those new after: the two lists walked
 * side by side give the pairs gone or changed (dropped from the last
 * order, found by a binary search) and those new or changed (sorted and
 * merged in), without a look-up per pair; into out. Returns false if more
 * than a few differ (the orders differ, or much moved). */
static bool resort_walk(struct sf_cache *sc, const struct sf_entry *e, const struct pairdem *v,
			size_t n, struct pairdem *out)
{
	const struct pairdem *prev = sc->in + e->off, *sorted = sc->sorted + e->off;
	size_t limit = n / 8 + 32, nd = 0, na = 0, i = 0, k, a, b, at, o;

	xgrow((void **)&sc->w_drop, &sc->cap_w_drop, limit + 1, sizeof(*sc->w_drop));
	xgrow((void **)&sc->w_add, &sc->cap_w_add, limit + 1, sizeof(*sc->w_add));
	for (k = 0; k < n; k++) {
		while (i < e->n && (prev[i].src != v[k].src || prev[i].dst != v[k].dst)) {
			if (nd == limit)
				return false;
			sc->w_drop[nd++] = find_sorted(sorted, e->n, &prev[i++]);
		}
		if (i < e->n && prev[i].bits == v[k].bits) {
			i++;
			continue;
		}
		if (nd == limit || na == limit)
			return false;
		if (i < e->n)
			sc->w_drop[nd++] = find_sorted(sorted, e->n, &prev[i++]);
		sc->w_add[na++] = v[k];
	}
	for (; i < e->n; i++) {
		if (nd == limit)
			return false;
		sc->w_drop[nd++] = find_sorted(sorted, e->n, &prev[i]);
	}
	if (nd > 1)
		sort_size(sc->w_drop, nd);
	sort_bits_desc(sc->w_add, na);
	/* the last order without the dropped, merged with the added */
	for (a = 0, b = 0, o = 0, at = 0; o < n; o++) {
		while (a < e->n && at < nd && sc->w_drop[at] == a) {
			a++;
			at++;
		}
		out[o] = b == na || (a < e->n && bits_before(&sorted[a], &sc->w_add[b])) ? sorted[a++]
											     : sc->w_add[b++];
	}
	return true;
}

/* The coflow's pairs v[0..n) in layer order, into out, from its order at
 * the last plan (e): the pairs whose demand is unchanged keep their order;
 * the others (a few: those moving data) are sorted and merged in. The
 * same order as sorting all (a total order), in O(n) plus the few. */
static void resort(struct sf_cache *sc, const struct sf_entry *e, const struct pairdem *v, size_t n,
		   struct pairdem *out)
{
	const struct pairdem *prev = sc->sorted + e->off;
	unsigned R = sc->R;
	struct pairdem *keep, *moved;
	size_t i, nk = 0, nm = 0, a, b;
	bool *used;

	if (resort_walk(sc, e, v, n, out))
		return;
	if (!++sc->cstamp) {
		memset(sc->cells, 0, (size_t)R * R * sizeof(*sc->cells));
		sc->cstamp = 1;
	}
	for (i = 0; i < n; i++) {
		size_t c = (size_t)v[i].src * R + v[i].dst;

		sc->cells[c].stamp = sc->cstamp;
		sc->cells[c].at = i;
	}
	keep = xcalloc(2 * n + 1, sizeof(*keep));
	moved = keep + n;
	used = xcalloc(n + 1, sizeof(bool));
	for (i = 0; i < e->n; i++) {
		size_t c = (size_t)prev[i].src * R + prev[i].dst;

		if (sc->cells[c].stamp != sc->cstamp)
			continue; /* gone */
		if (v[sc->cells[c].at].bits == prev[i].bits) {
			used[sc->cells[c].at] = true;
			keep[nk++] = prev[i];
		}
	}
	for (i = 0; i < n; i++)
		if (!used[i])
			moved[nm++] = v[i];
	sort_bits_desc(moved, nm);
	for (a = 0, b = 0, i = 0; a < nk || b < nm; i++)
		out[i] = b == nm || (a < nk && bits_before(&keep[a], &moved[b])) ? keep[a++] : moved[b++];
	free(keep);
	free(used);
}

static int cmp_cf(const void *a, const void *b)
{
	const struct cfinfo *x = a, *y = b;

	if (x->alpha != y->alpha)
		return x->alpha < y->alpha ? -1 : 1;
	return (x->coflow > y->coflow) - (x->coflow < y->coflow);
}

/* Maximum bipartite matching (Kuhn's augmenting paths) over the candidate
 * pairs cand[] (indices into q[], in ascending order: heaviest first),
 * seeded greedily by weight so the heavy pairs are kept when the size
 * allows. Writes the chosen indices, by destination port; returns how
 * many. The candidates of each source are reached through a list (in
 * candidate order), so a matching costs O(ports x candidates) at worst,
 * and a call touches only the ports of its candidates: the first layer
 * matches at every instant a port frees, most often one or two
 * candidates among hundreds of ports. */
#define M_NONE UINT32_MAX

struct mstate {
	const struct pairdem *q;
	const size_t *cand;
	const uint32_t *head, *next; /* by source port: candidate positions */
	long *by_dst;	 /* dst port -> cand position matched, -1 */
	long *by_src;	 /* src port -> cand position matched, -1 */
	unsigned *seen;	 /* dst port -> visit stamp */
	unsigned stamp;
	uint32_t *mdst; /* the dst ports matched, in the order they were */
	size_t nm;
};

static bool augment(struct mstate *m, uint32_t src)
{
	uint32_t k;

	for (k = m->head[src]; k != M_NONE; k = m->next[k]) {
		const struct pairdem *e = &m->q[m->cand[k]];
		bool to_free;

		if (m->seen[e->dst] == m->stamp)
			continue;
		m->seen[e->dst] = m->stamp;
		to_free = m->by_dst[e->dst] < 0;
		if (to_free || augment(m, m->q[m->cand[m->by_dst[e->dst]]].src)) {
			if (to_free) /* the path's end: one more matched */
				m->mdst[m->nm++] = e->dst;
			m->by_dst[e->dst] = (long)k;
			m->by_src[src] = (long)k;
			return true;
		}
	}
	return false;
}

/* Scratch for match_pairs, kept across the calls of one first layer: the
 * arrays of size R (ports) are set up once (by_dst, by_src all -1, the
 * stamps 0) and a call puts back only what it touched. */
struct mscratch {
	uint32_t *head;	 /* src port -> its first candidate (if hcall) */
	unsigned *hcall; /* src port -> the call its head is of */
	long *by_dst, *by_src;
	/* stamps grow over the calls: no reset (a call adds one, and one
	 * per pair it matches, which is then scheduled: at most twice the
	 * layer's pairs in all) */
	unsigned *seen, stamp;
	unsigned *failed, fstamp; /* src port -> the call its search failed in */
	uint32_t *next, *mdst;	  /* by candidate: the next of its source; dsts matched */
	size_t cap_next, cap_mdst;
};

static void ms_init(struct mscratch *ms, unsigned R)
{
	unsigned v;

	memset(ms, 0, sizeof(*ms));
	ms->head = xcalloc(R, sizeof(*ms->head));
	ms->hcall = xcalloc(R, sizeof(*ms->hcall));
	ms->by_dst = xcalloc(R, sizeof(*ms->by_dst));
	ms->by_src = xcalloc(R, sizeof(*ms->by_src));
	ms->seen = xcalloc(R, sizeof(*ms->seen));
	ms->failed = xcalloc(R, sizeof(*ms->failed));
	for (v = 0; v < R; v++)
		ms->by_dst[v] = ms->by_src[v] = -1;
}

static void ms_free(struct mscratch *ms)
{
	free(ms->head);
	free(ms->hcall);
	free(ms->by_dst);
	free(ms->by_src);
	free(ms->seen);
	free(ms->failed);
	free(ms->next);
	free(ms->mdst);
}

static size_t match_pairs(const struct pairdem *q, const size_t *cand,
			  size_t ncand, struct mscratch *ms, size_t *chosen)
{
	struct mstate m = { q, cand, ms->head, NULL, ms->by_dst, ms->by_src, ms->seen, 0,
			    NULL, 0 };
	size_t k, i;

	if (!ncand)
		return 0;
	ms->fstamp++; /* this call's number */
	xgrow((void **)&ms->next, &ms->cap_next, ncand, sizeof(*ms->next));
	xgrow((void **)&ms->mdst, &ms->cap_mdst, ncand, sizeof(*ms->mdst));
	m.next = ms->next;
	m.mdst = ms->mdst;
	for (k = ncand; k-- > 0;) { /* pushed from the last: lists in order */
		uint32_t src = q[cand[k]].src;

		ms->next[k] = ms->hcall[src] == ms->fstamp ? ms->head[src] : M_NONE;
		ms->head[src] = (uint32_t)k;
		ms->hcall[src] = ms->fstamp;
	}
	for (k = 0; k < ncand; k++) {
		const struct pairdem *e = &q[cand[k]];

		if (m.by_src[e->src] < 0 && m.by_dst[e->dst] < 0) {
			m.by_src[e->src] = (long)k;
			m.by_dst[e->dst] = (long)k;
			m.mdst[m.nm++] = e->dst;
		}
	}
	/* A search that fails changes nothing, and what it visited can reach
	 * no free port while the matching stays as it is: the next search
	 * keeps those marks (the same paths found, fewer visits); a source
	 * that failed fails again (Kuhn: no augmenting path from it appears
	 * as the matching grows), so it is not searched twice. */
	m.stamp = ++ms->stamp;
	for (k = 0; k < ncand; k++) {
		uint32_t src = q[cand[k]].src;

		if (m.by_src[src] >= 0 || ms->failed[src] == ms->fstamp)
			continue;
		if (augment(&m, src))
			m.stamp = ++ms->stamp;
		else
			ms->failed[src] = ms->fstamp;
	}
	ms->stamp = m.stamp;
	/* by destination port; then the ports touched are set back */
	sort_port(m.mdst, m.nm);
	for (i = 0; i < m.nm; i++) {
		size_t kk = (size_t)m.by_dst[m.mdst[i]];

		chosen[i] = cand[kk];
		m.by_dst[m.mdst[i]] = -1;
		m.by_src[q[cand[kk]].src] = -1;
	}
	return m.nm;
}

/* Ports freeing up, by time: a min-heap of (time, out side, in side +
 * R): a pair's two sides free up together, one entry (half the heap's
 * work, which was near half the first layer's). */
struct release {
	int64_t t;
	uint32_t port, port2;
};

struct rheap {
	struct release *v;
	size_t n, cap;
};

static bool rel_before(const struct release *a, const struct release *b)
{
	return a->t < b->t || (a->t == b->t && a->port < b->port);
}

static void rh_push(struct rheap *h, int64_t t, uint32_t port, uint32_t port2)
{
	struct release e = { t, port, port2 };
	size_t i;

	xgrow((void **)&h->v, &h->cap, h->n + 1, sizeof(*h->v));
	i = h->n++;
	while (i > 0 && rel_before(&e, &h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = e;
}

static struct release rh_pop(struct rheap *h)
{
	struct release top = h->v[0], last = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, m = l;

		if (l >= h->n)
			break;
		if (l + 1 < h->n && rel_before(&h->v[l + 1], &h->v[l]))
			m = l + 1;
		if (!rel_before(&h->v[m], &last))
			break;
		h->v[i] = h->v[m];
		i = m;
	}
	if (h->n)
		h->v[i] = last;
	return top;
}

static int64_t hold_time(double bits, double bw)
{
	return (int64_t)ceil(bits / bw);
}

/* The demand per (coflow, pair) in sc->p, grouped by coflow: returns how
 * many. */
static size_t sf_aggregate(const struct cs_input *in, struct sf_cache *sc, unsigned R)
{
	struct pairdem *p;
	size_t np = 0, i, k, gfirst = 0;

	xgrow((void **)&sc->p, &sc->cap_p, in->n_d + 1, sizeof(*sc->p));
	p = sc->p;
	/* aggregate per (coflow, pair): group by coflow (the controller
	 * already lists a coflow's pairs together), then merge a pair's
	 * entries inside its group through a per-cell stamp */
	for (i = 0; i < in->n_d; i++)
		if (in->d[i].bits > 0)
			p[np++] = (struct pairdem){ in->d[i].coflow, in->d[i].src,
						    in->d[i].dst, in->d[i].bits };
	if (in->unique)
		return np; /* (nothing to merge: the pass below would keep p) */
	for (i = 1; i < np && p[i - 1].coflow <= p[i].coflow; i++)
		;
	if (i < np)
		xqsort(p, np, sizeof(*p), cmp_pair);
	for (i = 0, k = 0; i < np; i++) {
		size_t c = (size_t)p[i].src * R + p[i].dst;

		if (!k || p[k - 1].coflow != p[i].coflow) { /* a new coflow */
			if (!++sc->cstamp) { /* wrapped: clear once */
				memset(sc->cells, 0, (size_t)R * R * sizeof(*sc->cells));
				sc->cstamp = 1;
			}
			gfirst = k;
		}
		if (sc->cells[c].stamp == sc->cstamp && sc->cells[c].at >= gfirst) {
			p[sc->cells[c].at].bits += p[i].bits;
			continue;
		}
		sc->cells[c].stamp = sc->cstamp;
		sc->cells[c].at = k;
		p[k++] = p[i];
	}
	return k;
}

/* Each coflow's pairs in layer order (in sc->sorted, at the offsets it
 * has in sc->p; copied from the last plan where its demand is unchanged,
 * not through sc->p) and its T(C), in sc->cf sorted shortest first; this
 * plan's arrays become the cache. Returns how many coflows. */
static size_t sf_coflows(const struct cs_input *in, struct sf_cache *sc, size_t np)
{
	unsigned R = in->ports;
	struct pairdem *p = sc->p;
	struct cfinfo *cf;
	struct sf_cache next = { .e = sc->e2, .cap_e = sc->cap_e2, .sorted = sc->sorted2,
				 .cap_sorted = sc->cap_sorted2 };
	double *srow = xcalloc(R, sizeof(double)), *scol = xcalloc(R, sizeof(double));
	size_t ncf = 0, i, k, old = 0;
	struct pairdem *t;
	size_t cap;

	/* coflows and their T(C), over the pairs in layer order (heaviest
	 * first: a total order, so the sums do not depend on the input's) */
	xgrow((void **)&sc->cf, &sc->cap_cf, np + 1, sizeof(*sc->cf));
	cf = sc->cf;
	for (i = 0; i < np; i = k) {
		struct pairdem *o;
		double best = 0;
		size_t m;

		for (k = i; k < np && p[k].coflow == p[i].coflow; k++)
			;
		while (old < sc->ne && sc->e[old].coflow < p[i].coflow)
			old++;
		xgrow((void **)&next.e, &next.cap_e, next.ne + 1, sizeof(*next.e));
		xgrow((void **)&next.sorted, &next.cap_sorted, next.n + (k - i), sizeof(*next.sorted));
		o = next.sorted + next.n;
		if (old < sc->ne && sc->e[old].coflow == p[i].coflow && sc->e[old].n == k - i &&
		    same_demand(sc->in + sc->e[old].off, p + i, k - i)) {
			/* unchanged since the last plan: its order and T(C) */
			memcpy(o, sc->sorted + sc->e[old].off, (k - i) * sizeof(*p));
			best = sc->e[old].alpha;
		} else {
			if (old < sc->ne && sc->e[old].coflow == p[i].coflow) {
				resort(sc, &sc->e[old], p + i, k - i, o);
			} else {
				memcpy(o, p + i, (k - i) * sizeof(*p));
				sort_bits_desc(o, k - i);
			}
			for (m = 0; m < k - i; m++) {
				double w = o[m].bits / in->bw + (double)in->delta;

				srow[o[m].src] += w;
				scol[o[m].dst] += w;
			}
			for (m = 0; m < k - i; m++) {
				if (srow[o[m].src] > best)
					best = srow[o[m].src];
				if (scol[o[m].dst] > best)
					best = scol[o[m].dst];
			}
			for (m = 0; m < k - i; m++)
				srow[o[m].src] = scol[o[m].dst] = 0;
		}
		next.e[next.ne++] = (struct sf_entry){ p[i].coflow, next.n, k - i, best };
		next.n += k - i;
		cf[ncf++] = (struct cfinfo){ p[i].coflow, best, i, k - i };
	}
	/* this plan's arrays become the cache, the last's the spare; the
	 * input itself (in the controller's order) is the cache's, and the
	 * last one's room takes the next plan's input */
	sc->e2 = sc->e, sc->cap_e2 = sc->cap_e;
	sc->sorted2 = sc->sorted, sc->cap_sorted2 = sc->cap_sorted;
	sc->e = next.e, sc->ne = next.ne, sc->cap_e = next.cap_e;
	sc->sorted = next.sorted, sc->cap_sorted = next.cap_sorted;
	sc->n = next.n;
	t = sc->in, cap = sc->cap_in;
	sc->in = sc->p, sc->cap_in = sc->cap_p;
	sc->p = t, sc->cap_p = cap;
	xqsort(cf, ncf, sizeof(*cf), cmp_cf);
	free(srow);
	free(scol);
	return ncf;
}

/* The first layer (the shortest coflow), list-scheduled from now: see
 * sf_layer_run. Its state lives from one call to the next, so that a plan
 * can be made a part at a time (cs_input.chunk): a plan of one coflow is
 * most often replaced by the next within a few of its instants (at scale
 * 1 a plan lays out some 2,400 pairs over 1.4 s, and the next comes some
 * 50 ms later), and the instants not reached cost nothing. */
struct sf_layer {
	bool on;	/* instants left to lay out */
	bool tl;	/* reservations go in the timelines (later layers read them) */
	const struct pairdem *q0;
	size_t n, left;
	int64_t now, delta, t, t_plan;
	double bw;
	unsigned R;
	bool first;
	size_t *cand, *chosen;
	int64_t *free_at;
	size_t W;
	uint64_t *rem, *freew[2];
	uint32_t *pk;
	unsigned *mark, stamp;
	int32_t *last_out, *last_in;
	struct mscratch ms;
	struct rheap rh;
};

static void sf_layer_free(struct sf_layer *ly)
{
	if (!ly->on)
		return;
	free(ly->cand);
	free(ly->chosen);
	free(ly->free_at);
	free(ly->rem);
	free(ly->freew[0]);
	free(ly->freew[1]);
	free(ly->pk);
	free(ly->mark);
	free(ly->last_out);
	free(ly->last_in);
	ms_free(&ly->ms);
	free(ly->rh.v);
	memset(ly, 0, sizeof(*ly));
}

static struct sf_layer *sf_layer_new(void)
{
	return xcalloc(1, sizeof(struct sf_layer));
}

static void sf_layer_drop(struct sf_layer *ly)
{
	sf_layer_free(ly);
	free(ly);
}

/* The first layer's state at now: the busy ports, the coflow's pairs
 * (its pairs at p + c->first), the circuits up (last_out, last_in, which
 * it takes). */
static void sf_layer_start(struct sf_layer *ly, const struct cs_input *in, const struct cfinfo *c,
			   const struct pairdem *p, int32_t *last_out, int32_t *last_in,
			   int64_t t_plan, bool tl)
{
	unsigned R = in->ports;
	size_t i, k, W = ((size_t)R + 63) / 64;

	sf_layer_free(ly);
	*ly = (struct sf_layer){ .on = true, .tl = tl, .q0 = p + c->first, .n = c->n,
				 .left = c->n, .now = in->now, .delta = in->delta, .t = in->now,
				 .t_plan = t_plan, .bw = in->bw, .R = R, .first = true, .W = W };
	ly->cand = xcalloc(c->n, sizeof(size_t));
	ly->chosen = xcalloc(c->n, sizeof(size_t));
	ly->free_at = xcalloc(2 * (size_t)R, sizeof(int64_t));
	/* the pairs left, as bits: rem[s] the in sides d of out side s's,
	 * rem[R + d] the out sides of in side d's, W words each; which of
	 * the sides are free (released: a side is free from its release,
	 * read at its instant, until it is taken), freew[0] the out sides,
	 * freew[1] the in; pk[s x R + d]: the pair's index (read only for a
	 * pair left). A release then reads the pairs whose other side is
	 * free a word at a time, not each pair of its side. */
	ly->rem = xcalloc(2 * (size_t)R * W, sizeof(uint64_t));
	ly->freew[0] = xcalloc(W, sizeof(uint64_t));
	ly->freew[1] = xcalloc(W, sizeof(uint64_t));
	ly->pk = xmalloc((size_t)R * R * sizeof(uint32_t));
	ly->mark = xcalloc(c->n, sizeof(unsigned));
	ly->last_out = last_out;
	ly->last_in = last_in;
	ms_init(&ly->ms, R);
	for (i = 0; i < 2 * (size_t)R; i++)
		ly->free_at[i] = in->now;
	for (i = 0; i < in->n_busy; i++) {
		const struct cs_busy *b = &in->busy[i];

		if (b->until > in->now) {
			ly->free_at[b->src] = ly->free_at[R + b->dst] = b->until;
			rh_push(&ly->rh, b->until, b->src, R + b->dst);
		}
	}
	for (i = 0; i < R; i++) {
		if (ly->free_at[i] <= ly->t)
			ly->freew[0][i / 64] |= 1ULL << (i % 64);
		if (ly->free_at[R + i] <= ly->t)
			ly->freew[1][i / 64] |= 1ULL << (i % 64);
	}
	for (k = 0; k < c->n; k++) {
		unsigned sp = ly->q0[k].src, dp = ly->q0[k].dst;

		ly->pk[(size_t)sp * R + dp] = (uint32_t)k;
		ly->rem[sp * W + dp / 64] |= 1ULL << (dp % 64);
		ly->rem[(R + dp) * W + sp / 64] |= 1ULL << (sp % 64);
	}
}

/* The first layer's instants from where it stopped, until at least want
 * reservations are added (whole instants) or none is left; then its state
 * is freed. Returns the plan's end so far (t_plan, or later). */
static int64_t sf_layer_run(struct sf_layer *ly, struct cs_plan *out, struct sf_cache *sc,
			    size_t want)
{
	unsigned R = ly->R;
	struct timeline *outl = sc->outl, *inl = sc->inl;
	unsigned *taken = sc->taken;
	const struct pairdem *q0 = ly->q0;
	size_t k, ncand, nch, W = ly->W, made = 0;
	int64_t t = ly->t, t_plan;

	/* list scheduling of the shortest coflow. At each instant the pairs
	 * whose two ports are idle start together; which of them is a
	 * maximum matching on those pairs (heaviest first, then augmented),
	 * so that no port idles when a perfect matching exists
	 * (Co-scheduler §III-B: 6 + 2 delta). A side of a port is free from
	 * the end of its last interval on (free_at: out sides 0..R-1, in
	 * sides R..2R-1). The matching is maximal, so after each instant
	 * every pair left has a busy side: only the instants when a side
	 * frees up (rh) can start pairs, and only pairs on such a side. */
	while (ly->left && made < want) {
		ncand = 0;
		ly->stamp++;
		if (ly->first) {
			for (k = 0; k < ly->n; k++)
				if (ly->free_at[q0[k].src] <= t && ly->free_at[R + q0[k].dst] <= t)
					ly->cand[ncand++] = k;
			ly->first = false;
		} else {
			while (ly->rh.n && ly->rh.v[0].t <= t) {
				struct release e = rh_pop(&ly->rh);
				unsigned sd;

				/* a side released is free (an end at or before
				 * t; a side is taken again only when free, after
				 * the releases up to then are read): its pairs
				 * whose other side is free too (in any order:
				 * the candidates are sorted); a pair whose
				 * other side frees up later at t is read then */
				for (sd = 0; sd < 2; sd++) {
					unsigned port = sd ? e.port2 - R : e.port, w;
					const uint64_t *r = ly->rem + ((size_t)sd * R + port) * W;

					ly->freew[sd][port / 64] |= 1ULL << (port % 64);
					for (w = 0; w < W; w++) {
						uint64_t x = r[w] & ly->freew[!sd][w];

						while (x) {
							unsigned o = w * 64 + (unsigned)__builtin_ctzll(x);
							size_t kk = ly->pk[sd ? (size_t)o * R + port
									      : (size_t)port * R + o];

							x &= x - 1;
							if (ly->mark[kk] == ly->stamp)
								continue;
							ly->mark[kk] = ly->stamp;
							ly->cand[ncand++] = kk;
						}
					}
				}
			}
			sort_size(ly->cand, ncand);
		}
		nch = match_pairs(q0, ly->cand, ncand, &ly->ms, ly->chosen);
		for (k = 0; k < nch; k++) {
			const struct pairdem *q = &q0[ly->chosen[k]];
			int32_t *last_out = ly->last_out, *last_in = ly->last_in;
			int64_t end, d;

			d = (last_out[q->src] == (int32_t)q->dst &&
			     last_in[q->dst] == (int32_t)q->src) ? 0 : ly->delta;
			end = t + d + hold_time(q->bits, ly->bw);
			if (ly->tl) {
				tl_add(&outl[q->src], t, end);
				tl_add(&inl[q->dst], t, end);
			}
			ly->free_at[q->src] = ly->free_at[R + q->dst] = end;
			rh_push(&ly->rh, end, q->src, R + q->dst);
			if (last_out[q->src] >= 0)
				last_in[last_out[q->src]] = -1;
			if (last_in[q->dst] >= 0)
				last_out[last_in[q->dst]] = -1;
			last_out[q->src] = (int32_t)q->dst;
			last_in[q->dst] = (int32_t)q->src;
			cs_plan_add(out, q->coflow, q->src, q->dst, t, end);
			taken[(size_t)q->src * R + q->dst] = sc->tstamp;
			if (end > ly->t_plan)
				ly->t_plan = end;
			ly->freew[0][q->src / 64] &= ~(1ULL << (q->src % 64));
			ly->freew[1][q->dst / 64] &= ~(1ULL << (q->dst % 64));
			ly->rem[(size_t)q->src * W + q->dst / 64] &= ~(1ULL << (q->dst % 64));
			ly->rem[((size_t)R + q->dst) * W + q->src / 64] &= ~(1ULL << (q->src % 64));
			ly->left--;
			made++;
		}
		if (ly->left && !ly->rh.n)
			ly->left = 0; /* cannot happen: a pair left has a busy side */
		if (ly->left)
			t = ly->rh.v[0].t;
	}
	ly->t = t;
	t_plan = ly->t_plan;
	if (!ly->left)
		sf_layer_free(ly);
	return t_plan;
}

/* The later layers: each pair no higher coflow owns, in the first gap of
 * both its ports inside [now, t_plan] long enough for delta. */
static void sf_later_layers(const struct cs_input *in, struct cs_plan *out, struct sf_cache *sc,
			    const struct cfinfo *cf, size_t ncf, const struct pairdem *p,
			    int64_t t_plan)
{
	unsigned R = in->ports;
	struct timeline *outl = sc->outl, *inl = sc->inl;
	unsigned *taken = sc->taken;
	size_t i, k, io, ii;

	/* later layers: gaps inside [now, t_plan] only */
	for (i = 1; i < ncf; i++) {
		const struct cfinfo *c = &cf[i];

		for (k = 0; k < c->n; k++) {
			const struct pairdem *q = &p[c->first + k];
			size_t cell = (size_t)q->src * R + q->dst;
			int64_t t = in->now;

			/* a side busy to t_plan stays so (a plan only adds
			 * to the timelines): no coflow can use the pair,
			 * so whether one owns it does not matter (most
			 * pairs of a plan end here, before the look-up) */
			if (tl_free_now(&outl[q->src], in->now) >= t_plan ||
			    tl_free_now(&inl[q->dst], in->now) >= t_plan)
				continue;
			if (taken[cell] == sc->tstamp)
				continue; /* a higher-priority coflow owns the pair */
			taken[cell] = sc->tstamp;
			/* t only grows: each side's stretches are walked
			 * from a cursor (io, ii: the first stretch starting
			 * after t); an idle t starts none, so the next busy
			 * stretch of a side is its cursor's */
			io = tl_lower(&outl[q->src], t + 1);
			ii = tl_lower(&inl[q->dst], t + 1);
			while (t < t_plan) {
				const struct timeline *to = &outl[q->src], *ti = &inl[q->dst];
				int64_t fo, fi, ge, end;

				io = tl_after(to, io, t);
				fo = io > 0 && t < to->v[io - 1].e ? to->v[io - 1].e : t;
				if (fo >= t_plan)
					break; /* (t would be past t_plan) */
				ii = tl_after(ti, ii, t);
				fi = ii > 0 && t < ti->v[ii - 1].e ? ti->v[ii - 1].e : t;
				if (fo != t || fi != t) {
					t = fo > fi ? fo : fi;
					continue;
				}
				ge = io < to->n && to->v[io].s < t_plan ? to->v[io].s : t_plan;
				end = ii < ti->n && ti->v[ii].s < ge ? ti->v[ii].s : ge;
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
}

static int sunflow_plan(const struct cs_input *in, struct cs_plan *out)
{
	unsigned R = in->ports;
	struct sf_cache *sc = sf_cache_of(out, R);
	struct timeline *outl = sc->outl, *inl = sc->inl;
	struct pairdem *p;
	struct cfinfo *cf;
	int32_t *last_out = xcalloc(R, sizeof(int32_t)), *last_in = xcalloc(R, sizeof(int32_t));
	unsigned *taken = sc->taken;
	size_t np, ncf, i;
	int64_t t_plan = in->now;

	cs_plan_reset(out);
	sf_layer_free(sc->layer); /* the last plan's, if unfinished */
	for (i = 0; i < R; i++) {
		outl[i].n = inl[i].n = 0;
		outl[i].now_ok = inl[i].now_ok = false;
	}
	np = sf_aggregate(in, sc, R);
	if (!++sc->tstamp) {
		memset(taken, 0, (size_t)R * R * sizeof(*taken));
		sc->tstamp = 1;
	}
	ncf = sf_coflows(in, sc, np);
	cf = sc->cf;
	p = sc->sorted; /* the pairs in layer order, where cf says */

	for (i = 0; i < R; i++) {
		last_out[i] = in->out_of ? in->out_of[i] : -1;
		last_in[i] = -1;
	}
	for (i = 0; i < R; i++)
		if (last_out[i] >= 0)
			last_in[last_out[i]] = (int32_t)i;
	if (!ncf) {
		free(last_out);
		free(last_in);
		return 0; /* (replan_at -1: nothing planned) */
	}
	/* the timelines are for the later layers: with one coflow, none */
	if (ncf > 1)
		for (i = 0; i < in->n_busy; i++) {
			const struct cs_busy *b = &in->busy[i];

			if (b->until > in->now) {
				tl_add(&outl[b->src], in->now, b->until);
				tl_add(&inl[b->dst], in->now, b->until);
			}
		}
	sf_layer_start(sc->layer, in, &cf[0], p, last_out, last_in, t_plan, ncf > 1);
	/* one coflow may be laid out a part at a time; later layers need
	 * the first whole (their gaps end at t_plan) */
	t_plan = sf_layer_run(sc->layer, out, sc, ncf == 1 && in->chunk ? in->chunk : SIZE_MAX);
	out->more = sc->layer->on;
	if (out->more)
		return 0;
	sf_later_layers(in, out, sc, cf, ncf, p, t_plan);
	out->replan_at = out->n ? t_plan : -1;
	return 0;
}

/* The next part of a plan of one coflow (out->more). */
static int sunflow_more(struct cs_plan *out, size_t want)
{
	struct sf_cache *sc = out->cache;
	int64_t t_plan;

	if (!out->more || !sc || !sc->layer->on)
		return -EINVAL;
	t_plan = sf_layer_run(sc->layer, out, sc, want ? want : SIZE_MAX);
	out->more = sc->layer->on;
	if (!out->more)
		out->replan_at = out->n ? t_plan : -1;
	return 0;
}

const struct csched_ops csched_sunflow = {
	.name = "sunflow",
	.summary = "Sunflow: shortest coflow first, non-preemptive, not-all-stop (CoNEXT'16)",
	.plan = sunflow_plan,
	.more = sunflow_more,
	.period = 0,
};
