/* Incremental integer water-filling (see maxmin.h).
 *
 * Why the sweep is exact. Water-filling goes up the levels; at a level v
 * the links whose share is v fire and freeze their unfrozen classes at v.
 * A link's share at v depends only on its classes: which are frozen below
 * v and at what level (F), how many flows are not (U). Call a link clean
 * while none of its classes has changed status so far in the sweep (same
 * level, or still unfrozen, as in the last solution): its F and U are then
 * those of the last solution at every level so far, so it fires where it
 * fired (lam) and freezes what it froze. So the sweep only has to follow
 * the dirty links (those a change touched, and those where a class moved):
 * - a dirty link's F and U are kept exact as the sweep goes up, and it
 *   fires when its share is the level;
 * - a class not re-examined keeps its level; one on a dirty link is looked
 *   at when the sweep reaches its old level (the link's list of such
 *   classes, by level): it is still frozen there if one of its links that
 *   fired there is clean, else it is not (yet) frozen: pending, and every
 *   link of it is dirty from there on;
 * - a class frozen at another level than before makes its links dirty
 *   (their F and U are computed afresh from that level), except a link
 *   that did not fire and whose capacity covers its classes' rates plus
 *   one unit per flow (D + N <= cap): it cannot fire, whatever the levels
 *   below (F(v) + (v + 1) U(v) <= D + N). That is checked again with the
 *   final levels; a link that fails it is swept (from the start) in a
 *   second sweep, which leaves nothing out.
 * Ties: links with one share fire together, so the order of links never
 * matters; sums are integers, so nor does the order of additions. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "sim/maxmin.h"

enum { ST_FIXED, ST_DONE, ST_PEND };

struct fixent {
	uint64_t lv;
	struct mm_class *c;
};

struct hent {
	uint64_t key;
	uint32_t l;
};

/* The fields the sweep reads for every class-link pair first, in one
 * cache line (the array is aligned to lines, 128 bytes an entry). */
struct mm_link {
	/* hot: status, F and U, D, lam, the firing list */
	bool dirty, seeded, touched, skipped;
	int hpos;
	uint64_t F, U;
	uint64_t D; /* its classes' rates (level x flows) */
	uint64_t lam; /* where it fired in the current solution, MM_NONE */
	uint64_t phi;
	struct mm_class **cls;
	size_t n;
	/* the rest of the sweep's */
	uint64_t key, fired;
	uint64_t cap;
	uint64_t N; /* its classes' flows */
	size_t fx, fx_end; /* its unexamined classes above the level, in fix[] */
	size_t capn;
	uint64_t pad_;
};
_Static_assert(sizeof(struct mm_link) == 128, "a link entry is two cache lines");

struct mm {
	unsigned L;
	struct mm_link *l;
	struct mm_class **all; /* every class in the solver */
	size_t n_all, cap_all;
	struct mm_class **pend; /* added or resized since the last solve */
	size_t n_pend, cap_pend;
	uint32_t *seed; /* links touched since the last solve */
	size_t n_seed, cap_seed;
	/* sweep scratch */
	uint32_t *dirty;
	size_t n_dirty, cap_dirty;
	struct fixent *fix;
	size_t n_fix, cap_fix;
	struct hent *heap; /* dirty links by key */
	size_t hn;
	uint32_t *batch, *touched;
	size_t n_batch, n_touched;
	struct mm_class **now, **chg, **seen, **out;
	size_t n_now, cap_now, n_chg, cap_chg, n_seen, cap_seen, n_out, cap_out;
	uint32_t *skip; /* links left clean though a class of theirs moved */
	size_t n_skip, cap_skip;
	uint32_t epoch;
	bool may_skip;
	/* mm_waterfill scratch */
	uint64_t *w_cnt, *w_key;
	uint32_t *w_off, *w_fill, *w_lcls, *w_heap, *w_mark;
	int *w_hpos;
	size_t cap_lcls;
	bool *w_frozen, *w_marked;
	size_t cap_frozen;
	struct mm_stats st;
};

struct mm *mm_new(unsigned n_links, const uint64_t *caps)
{
	struct mm *m = xcalloc(1, sizeof(*m));
	unsigned i;

	m->L = n_links;
	if (posix_memalign((void **)&m->l, 64, (n_links + 1) * sizeof(*m->l)))
		fatalx("out of memory: %u links", n_links + 1);
	memset(m->l, 0, (n_links + 1) * sizeof(*m->l));
	for (i = 0; i < n_links; i++) {
		m->l[i].cap = caps[i];
		m->l[i].lam = MM_NONE;
		m->l[i].hpos = -1;
	}
	m->heap = xcalloc(n_links + 1, sizeof(*m->heap));
	m->batch = xcalloc(n_links + 1, sizeof(uint32_t));
	m->touched = xcalloc(n_links + 1, sizeof(uint32_t));
	m->w_cnt = xcalloc(n_links + 1, sizeof(uint64_t));
	m->w_key = xcalloc(n_links + 1, sizeof(uint64_t));
	m->w_off = xcalloc(n_links + 2, sizeof(uint32_t));
	m->w_fill = xcalloc(n_links + 1, sizeof(uint32_t));
	m->w_heap = xcalloc(n_links + 1, sizeof(uint32_t));
	m->w_mark = xcalloc(n_links + 1, sizeof(uint32_t));
	m->w_hpos = xcalloc(n_links + 1, sizeof(int));
	m->w_marked = xcalloc(n_links + 1, sizeof(bool));
	for (i = 0; i <= n_links; i++)
		m->w_hpos[i] = -1;
	return m;
}

void mm_free(struct mm *m)
{
	unsigned i;

	if (!m)
		return;
	for (i = 0; i < m->L; i++)
		free(m->l[i].cls);
	free(m->l);
	free(m->all);
	free(m->pend);
	free(m->seed);
	free(m->dirty);
	free(m->fix);
	free(m->heap);
	free(m->batch);
	free(m->touched);
	free(m->now);
	free(m->chg);
	free(m->seen);
	free(m->out);
	free(m->skip);
	free(m->w_cnt);
	free(m->w_key);
	free(m->w_off);
	free(m->w_fill);
	free(m->w_lcls);
	free(m->w_heap);
	free(m->w_mark);
	free(m->w_hpos);
	free(m->w_frozen);
	free(m->w_marked);
	free(m);
}

void mm_get_stats(const struct mm *m, struct mm_stats *st)
{
	*st = m->st;
}

bool mm_pending(const struct mm *m)
{
	return m->n_seed || m->n_pend;
}

size_t mm_count(const struct mm *m)
{
	return m->n_all;
}

static void seed(struct mm *m, uint32_t l)
{
	if (m->l[l].seeded)
		return;
	m->l[l].seeded = true;
	xgrow((void **)&m->seed, &m->cap_seed, m->n_seed + 1, sizeof(*m->seed));
	m->seed[m->n_seed++] = l;
}

/* Its level before this solve, noted once (for what mm_solve returns). */
static void remember(struct mm *m, struct mm_class *c)
{
	if (c->epoch == m->epoch)
		return;
	c->epoch = m->epoch;
	c->old = c->lv;
	xgrow((void **)&m->seen, &m->cap_seen, m->n_seen + 1, sizeof(*m->seen));
	m->seen[m->n_seen++] = c;
}

/* Its level becomes v: its links' rates follow. */
static void set_level(struct mm *m, struct mm_class *c, uint64_t v)
{
	unsigned k;

	if (c->lv == v)
		return;
	for (k = 0; k < c->nlinks; k++)
		m->l[c->links[k]].D += (v - c->lv) * c->n; /* modulo 2^64: exact */
	c->lv = v;
}

static void pend_add(struct mm *m, struct mm_class *c)
{
	if (c->pslot != UINT32_MAX)
		return;
	xgrow((void **)&m->pend, &m->cap_pend, m->n_pend + 1, sizeof(*m->pend));
	c->pslot = (uint32_t)m->n_pend;
	m->pend[m->n_pend++] = c;
	c->st = ST_PEND;
}

static void pend_del(struct mm *m, struct mm_class *c)
{
	struct mm_class *last;

	if (c->pslot == UINT32_MAX)
		return;
	last = m->pend[--m->n_pend];
	m->pend[c->pslot] = last;
	last->pslot = c->pslot;
	c->pslot = UINT32_MAX;
}

void mm_add(struct mm *m, struct mm_class *c)
{
	unsigned k;

	c->in = true;
	c->lv = c->old = 0;
	c->st = ST_FIXED;
	c->pslot = UINT32_MAX;
	c->epoch = m->epoch - 1;
	xgrow((void **)&m->all, &m->cap_all, m->n_all + 1, sizeof(*m->all));
	c->slot = (uint32_t)m->n_all;
	m->all[m->n_all++] = c;
	for (k = 0; k < c->nlinks; k++) {
		struct mm_link *l = &m->l[c->links[k]];

		xgrow((void **)&l->cls, &l->capn, l->n + 1, sizeof(*l->cls));
		c->pos[k] = (uint32_t)l->n;
		l->cls[l->n++] = c;
		l->N += c->n;
		seed(m, c->links[k]);
	}
	pend_add(m, c);
}

/* The k-th link of x is l: its place in l's list. */
static void link_del(struct mm *m, struct mm_class *c, unsigned k)
{
	struct mm_link *l = &m->l[c->links[k]];
	struct mm_class *last = l->cls[--l->n];
	unsigned j;

	l->cls[c->pos[k]] = last;
	for (j = 0; j < last->nlinks; j++)
		if (last->links[j] == c->links[k]) {
			last->pos[j] = c->pos[k];
			break;
		}
}

void mm_remove(struct mm *m, struct mm_class *c)
{
	struct mm_class *last;
	unsigned k;

	if (!c->in)
		return;
	for (k = 0; k < c->nlinks; k++) {
		link_del(m, c, k);
		m->l[c->links[k]].D -= c->lv * c->n;
		m->l[c->links[k]].N -= c->n;
		seed(m, c->links[k]);
	}
	pend_del(m, c);
	last = m->all[--m->n_all];
	m->all[c->slot] = last;
	last->slot = c->slot;
	c->in = false;
	c->lv = c->old = 0;
	c->st = ST_FIXED;
}

void mm_set_n(struct mm *m, struct mm_class *c, uint64_t n)
{
	unsigned k;

	if (c->n == n)
		return;
	for (k = 0; k < c->nlinks; k++) {
		struct mm_link *l = &m->l[c->links[k]];

		l->D += c->lv * (n - c->n); /* modulo 2^64: exact */
		l->N += n - c->n;
		seed(m, c->links[k]);
	}
	c->n = n;
	pend_add(m, c);
}

void mm_set_cap(struct mm *m, unsigned link, uint64_t cap)
{
	if (m->l[link].cap == cap)
		return;
	/* a dirty link's share is computed afresh from its capacity, as
	 * when a class comes or goes */
	m->l[link].cap = cap;
	seed(m, link);
}

uint64_t mm_link_load(const struct mm *m, unsigned link)
{
	return m->l[link].D;
}

uint64_t mm_link_fired(const struct mm *m, unsigned link)
{
	return m->l[link].lam;
}

uint64_t mm_link_cap(const struct mm *m, unsigned link)
{
	return m->l[link].cap;
}

uint64_t mm_provisional(struct mm *m, struct mm_class *c)
{
	uint64_t v = MM_NONE;
	unsigned k;

	if (!c->in || c->lv || c->st != ST_PEND || !c->n)
		return c->lv;
	for (k = 0; k < c->nlinks; k++) {
		const struct mm_link *l = &m->l[c->links[k]];
		uint64_t x = l->D < l->cap ? (l->cap - l->D) / c->n : 0;

		if (l->lam < x)
			x = l->lam;
		if (x < v)
			v = x;
	}
	set_level(m, c, v == MM_NONE ? 0 : v);
	return c->lv;
}

bool mm_link_full(const struct mm *m, unsigned link)
{
	const struct mm_link *l = &m->l[link];

	return l->N && l->D + l->N > l->cap;
}

/* ---- the sweep's heap of dirty links, by key then index (the key is
 * kept in the heap too, so comparisons stay in the heap's memory) ---- */

static bool hless(struct hent a, struct hent b)
{
	return a.key < b.key || (a.key == b.key && a.l < b.l);
}

static void hput(struct mm *m, size_t i, struct hent h)
{
	m->heap[i] = h;
	m->l[h.l].hpos = (int)i;
}

static void hup(struct mm *m, size_t i)
{
	struct hent h = m->heap[i];

	while (i > 0 && hless(h, m->heap[(i - 1) / 2])) {
		hput(m, i, m->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	hput(m, i, h);
}

static void hdown(struct mm *m, size_t i)
{
	struct hent h = m->heap[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= m->hn)
			break;
		if (c + 1 < m->hn && hless(m->heap[c + 1], m->heap[c]))
			c++;
		if (!hless(m->heap[c], h))
			break;
		hput(m, i, m->heap[c]);
		i = c;
	}
	hput(m, i, h);
}

static void hremove(struct mm *m, uint32_t l)
{
	size_t i = (size_t)m->l[l].hpos;
	struct hent last;

	m->l[l].hpos = -1;
	last = m->heap[--m->hn];
	if (i == m->hn)
		return;
	hput(m, i, last);
	hup(m, i);
	hdown(m, (size_t)m->l[last.l].hpos);
}

/* The link's next event: its share, or the level of its next unexamined
 * class, whichever is lower; out of the heap if neither. */
static void rekey(struct mm *m, uint32_t li)
{
	struct mm_link *l = &m->l[li];
	uint64_t nf = MM_NONE, key;

	while (l->fx < l->fx_end && m->fix[l->fx].c->st != ST_FIXED)
		l->fx++;
	if (l->fx < l->fx_end)
		nf = m->fix[l->fx].lv;
	l->phi = l->U ? (l->F < l->cap ? (l->cap - l->F) / l->U : 0) : MM_NONE;
	key = l->phi < nf ? l->phi : nf;
	if (key == MM_NONE) {
		if (l->hpos >= 0)
			hremove(m, li);
		l->key = key;
		return;
	}
	if (l->hpos < 0) {
		l->key = key;
		m->heap[m->hn] = (struct hent){ key, li };
		l->hpos = (int)m->hn;
		hup(m, m->hn++);
	} else if (key < l->key) {
		l->key = key;
		m->heap[l->hpos].key = key;
		hup(m, (size_t)l->hpos);
	} else if (key > l->key) {
		l->key = key;
		m->heap[l->hpos].key = key;
		hdown(m, (size_t)l->hpos);
	}
}

/* By level: a three-way quicksort (a link's classes often share a few
 * levels), insertion sort for short runs. */
static void sort_fix(struct fixent *v, size_t n)
{
	while (n > 12) {
		uint64_t a = v[0].lv, b = v[n / 2].lv, c = v[n - 1].lv;
		uint64_t p = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		size_t lt = 0, i = 0, gt = n;

		while (i < gt) {
			struct fixent t;

			if (v[i].lv < p) {
				t = v[lt], v[lt++] = v[i], v[i++] = t;
			} else if (v[i].lv > p) {
				t = v[--gt], v[gt] = v[i], v[i] = t;
			} else {
				i++;
			}
		}
		/* recurse into the smaller side, loop on the larger */
		if (lt < n - gt) {
			sort_fix(v, lt);
			v += gt;
			n -= gt;
		} else {
			sort_fix(v + gt, n - gt);
			n = lt;
		}
	}
	for (size_t i = 1; i < n; i++) {
		struct fixent t = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1].lv > t.lv; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

/* The link becomes dirty once the levels up to `v` are done (started:
 * false before any level): its F and U afresh, and its classes still to
 * examine (unexamined, above v) in order. */
static void make_dirty(struct mm *m, uint32_t li, bool started, uint64_t v)
{
	struct mm_link *l = &m->l[li];
	size_t i, first;

	l->dirty = true;
	l->fired = MM_NONE;
	l->F = l->U = 0;
	xgrow((void **)&m->dirty, &m->cap_dirty, m->n_dirty + 1, sizeof(*m->dirty));
	m->dirty[m->n_dirty++] = li;
	xgrow((void **)&m->fix, &m->cap_fix, m->n_fix + l->n, sizeof(*m->fix));
	first = m->n_fix;
	for (i = 0; i < l->n; i++) {
		struct mm_class *c = l->cls[i];
		bool frozen = started && (c->st == ST_DONE || (c->st == ST_FIXED && c->lv <= v));

		if (frozen) {
			l->F += c->lv * c->n;
			continue;
		}
		l->U += c->n;
		if (c->st == ST_FIXED)
			m->fix[m->n_fix++] = (struct fixent){ c->lv, c };
	}
	l->fx = first;
	l->fx_end = m->n_fix;
	sort_fix(m->fix + first, l->fx_end - first);
	m->st.links_swept++;
}

static void note(struct mm_class ***arr, size_t *n, size_t *cap, struct mm_class *c)
{
	xgrow((void **)arr, cap, *n + 1, sizeof(**arr));
	(*arr)[(*n)++] = c;
}

/* Frozen at v by the sweep. */
static void decide(struct mm *m, struct mm_class *c, uint64_t v)
{
	if (c->st == ST_FIXED) {
		remember(m, c);
		if (c->lv != v) /* moved: its links see it */
			note(&m->chg, &m->n_chg, &m->cap_chg, c);
	}
	set_level(m, c, v);
	c->st = ST_DONE;
	note(&m->now, &m->n_now, &m->cap_now, c);
}

/* Did a clean link of c fire at v (and so freeze c there as before)? */
static bool clean_firer(const struct mm *m, const struct mm_class *c, uint64_t v)
{
	unsigned k;

	for (k = 0; k < c->nlinks; k++) {
		const struct mm_link *l = &m->l[c->links[k]];

		if (!l->dirty && l->lam == v)
			return true;
	}
	return false;
}

static void touch(struct mm *m, uint32_t li)
{
	if (m->l[li].touched)
		return;
	m->l[li].touched = true;
	m->touched[m->n_touched++] = li;
}

/* One level of the sweep: fire, examine, then pass the level. */
static void sweep_level(struct mm *m, uint64_t v)
{
	size_t i, k;

	/* the links whose key is v: the top of the heap and the subtree under
	 * it with that key. They stay where they are, and move down once
	 * (rekey) with their next key: taking them out and putting them back
	 * cost a sift down and a sift up each, and the heap was a sixth of the
	 * instructions of a run at scale */
	m->n_batch = m->n_now = m->n_chg = 0;
	if (m->hn && m->heap[0].key == v)
		m->batch[m->n_batch++] = m->heap[0].l;
	for (i = 0; i < m->n_batch; i++) {
		size_t c = 2 * (size_t)m->l[m->batch[i]].hpos + 1;

		for (k = c; k < c + 2 && k < m->hn; k++)
			if (m->heap[k].key == v)
				m->batch[m->n_batch++] = m->heap[k].l;
	}
	/* links whose share is v fire: their unfrozen classes freeze at v */
	for (i = 0; i < m->n_batch; i++) {
		struct mm_link *l = &m->l[m->batch[i]];

		if (l->phi != v)
			continue;
		l->fired = v;
		for (k = 0; k < l->n; k++) {
			struct mm_class *c = l->cls[k];

			if (c->st == ST_PEND || (c->st == ST_FIXED && c->lv >= v))
				decide(m, c, v);
		}
	}
	/* the unexamined classes at v: still frozen there, or pending */
	for (i = 0; i < m->n_batch; i++) {
		struct mm_link *l = &m->l[m->batch[i]];

		while (l->fx < l->fx_end && m->fix[l->fx].lv == v) {
			struct mm_class *c = m->fix[l->fx++].c;

			if (c->st != ST_FIXED)
				continue;
			m->st.classes_examined++;
			if (clean_firer(m, c, v)) {
				decide(m, c, v);
			} else {
				remember(m, c);
				c->st = ST_PEND;
				note(&m->chg, &m->n_chg, &m->cap_chg, c);
			}
		}
	}
	/* pass v: what froze at v leaves the unfrozen of the dirty links */
	m->n_touched = 0;
	for (i = 0; i < m->n_now; i++) {
		struct mm_class *c = m->now[i];

		for (k = 0; k < c->nlinks; k++) {
			struct mm_link *l = &m->l[c->links[k]];

			if (!l->dirty)
				continue;
			l->F += v * c->n;
			l->U -= c->n;
			touch(m, c->links[k]);
		}
	}
	/* a class that moved makes its clean links dirty from here on, but
	 * those that cannot fire */
	for (i = 0; i < m->n_chg; i++) {
		struct mm_class *c = m->chg[i];

		for (k = 0; k < c->nlinks; k++) {
			struct mm_link *l = &m->l[c->links[k]];

			if (l->dirty || l->skipped)
				continue;
			if (m->may_skip && l->lam == MM_NONE) {
				l->skipped = true;
				xgrow((void **)&m->skip, &m->cap_skip, m->n_skip + 1, sizeof(*m->skip));
				m->skip[m->n_skip++] = c->links[k];
				continue;
			}
			make_dirty(m, c->links[k], true, v);
			touch(m, c->links[k]);
		}
	}
	for (i = 0; i < m->n_batch; i++)
		touch(m, m->batch[i]);
	for (i = 0; i < m->n_touched; i++) {
		m->l[m->touched[i]].touched = false;
		rekey(m, m->touched[i]);
	}
}

/* A link left out of a sweep (it had not fired), with the levels now
 * final: true if it still does not fire, or fires exactly at the level
 * of its top classes (then that is its lam); false if it should have
 * frozen some class lower: it must be swept. */
static bool still_idle(struct mm *m, uint32_t li)
{
	struct mm_link *l = &m->l[li];
	uint64_t F = 0, U = l->N;
	size_t i, j, n = l->n;

	if (l->D <= l->cap && l->D + l->N <= l->cap)
		return true; /* F(v) + (v + 1) U(v) <= D + N: never fires */
	m->n_fix = 0;
	xgrow((void **)&m->fix, &m->cap_fix, n + 1, sizeof(*m->fix));
	for (i = 0; i < n; i++)
		m->fix[i] = (struct fixent){ l->cls[i]->lv, l->cls[i] };
	sort_fix(m->fix, n);
	for (i = 0; i < n; i = j) {
		uint64_t a = m->fix[i].lv, at = 0;

		for (j = i; j < n && m->fix[j].lv == a; j++)
			at += m->fix[j].c->n;
		/* between the level below and a: share (cap - F) / U */
		if ((F < l->cap ? (l->cap - F) / U : 0) <= a) {
			if ((F < l->cap ? (l->cap - F) / U : 0) == a && j == n &&
			    (i == 0 || m->fix[i - 1].lv < a)) {
				l->lam = a; /* fires where its top classes are */
				return true;
			}
			return false;
		}
		F += a * at;
		U -= at;
	}
	return true;
}

/* One sweep from the seeds; the skipped links that could fire after all
 * are the seeds of the next. */
static void sweep(struct mm *m)
{
	size_t i;

	m->st.sweeps++;
	m->n_dirty = m->n_fix = m->n_skip = 0;
	for (i = 0; i < m->n_seed; i++) {
		m->l[m->seed[i]].seeded = false;
		make_dirty(m, m->seed[i], false, 0);
	}
	for (i = 0; i < m->n_seed; i++)
		rekey(m, m->seed[i]);
	m->n_seed = 0;
	while (m->hn)
		sweep_level(m, m->heap[0].key);
	for (i = 0; i < m->n_dirty; i++) {
		struct mm_link *l = &m->l[m->dirty[i]];

		l->lam = l->fired;
		l->dirty = false;
	}
	for (i = 0; i < m->n_seen; i++)
		m->seen[i]->st = ST_FIXED;
	m->st.links_skipped += m->n_skip;
	for (i = 0; i < m->n_skip; i++) {
		m->l[m->skip[i]].skipped = false;
		if (!still_idle(m, m->skip[i]))
			seed(m, m->skip[i]);
	}
}

struct mm_class *const *mm_solve(struct mm *m, size_t *n_changed)
{
	size_t i;

	m->n_out = 0;
	*n_changed = 0;
	if (!mm_pending(m))
		return m->out;
	m->st.solves++;
	m->epoch++;
	m->n_seen = 0;
	for (i = 0; i < m->n_pend; i++) {
		struct mm_class *c = m->pend[i];

		remember(m, c);
		c->pslot = UINT32_MAX; /* st is ST_PEND */
	}
	m->n_pend = 0;
	m->may_skip = true;
	sweep(m);
	m->may_skip = false; /* a second sweep leaves nothing out */
	if (m->n_seed)
		sweep(m);
	for (i = 0; i < m->n_seen; i++) {
		struct mm_class *c = m->seen[i];

		if (c->lv != c->old)
			note(&m->out, &m->n_out, &m->cap_out, c);
	}
	m->st.classes_changed += m->n_out;
	*n_changed = m->n_out;
	return m->out;
}

/* ---- water-filling from scratch ---- */

static bool wless(const struct mm *m, uint32_t a, uint32_t b)
{
	return m->w_key[a] < m->w_key[b] || (m->w_key[a] == m->w_key[b] && a < b);
}

static void wput(struct mm *m, size_t i, uint32_t l)
{
	m->w_heap[i] = l;
	m->w_hpos[l] = (int)i;
}

static void wup(struct mm *m, size_t i)
{
	uint32_t l = m->w_heap[i];

	while (i > 0 && wless(m, l, m->w_heap[(i - 1) / 2])) {
		wput(m, i, m->w_heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	wput(m, i, l);
}

static void wdown(struct mm *m, size_t i, size_t n)
{
	uint32_t l = m->w_heap[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && wless(m, m->w_heap[c + 1], m->w_heap[c]))
			c++;
		if (!wless(m, m->w_heap[c], l))
			break;
		wput(m, i, m->w_heap[c]);
		i = c;
	}
	wput(m, i, l);
}

void mm_waterfill(struct mm *m, struct mm_class *const *cls, size_t n, uint64_t *left,
		  uint64_t *lv_out)
{
	size_t i, hn = 0, nmark;
	unsigned k, L = m->L;

	memset(m->w_off, 0, (L + 2) * sizeof(uint32_t));
	for (i = 0; i < n; i++)
		for (k = 0; k < cls[i]->nlinks; k++) {
			m->w_off[cls[i]->links[k] + 1]++;
			m->w_cnt[cls[i]->links[k]] = 0;
		}
	for (k = 0; k < L; k++)
		m->w_off[k + 1] += m->w_off[k];
	xgrow((void **)&m->w_lcls, &m->cap_lcls, m->w_off[L] + 1, sizeof(uint32_t));
	xgrow((void **)&m->w_frozen, &m->cap_frozen, n + 1, sizeof(bool));
	memcpy(m->w_fill, m->w_off, L * sizeof(uint32_t));
	for (i = 0; i < n; i++) {
		m->w_frozen[i] = false;
		for (k = 0; k < cls[i]->nlinks; k++) {
			uint32_t l = cls[i]->links[k];

			m->w_lcls[m->w_fill[l]++] = (uint32_t)i;
			m->w_cnt[l] += cls[i]->n;
		}
	}
	for (k = 0; k < L; k++)
		if (m->w_cnt[k]) {
			m->w_key[k] = left[k] / m->w_cnt[k];
			m->w_heap[hn] = k;
			m->w_hpos[k] = (int)hn;
			wup(m, hn++);
		}
	while (hn) {
		uint64_t v = m->w_key[m->w_heap[0]];

		nmark = 0;
		/* every link whose share is v fires */
		while (hn && m->w_key[m->w_heap[0]] == v) {
			uint32_t l = m->w_heap[0], j;

			m->w_hpos[l] = -1;
			if (--hn) {
				wput(m, 0, m->w_heap[hn]);
				wdown(m, 0, hn);
			}
			for (j = m->w_off[l]; j < m->w_off[l + 1]; j++) {
				uint32_t x = m->w_lcls[j];

				if (m->w_frozen[x])
					continue;
				m->w_frozen[x] = true;
				lv_out[x] = v;
				for (k = 0; k < cls[x]->nlinks; k++) {
					uint32_t l2 = cls[x]->links[k];

					left[l2] -= v * cls[x]->n;
					m->w_cnt[l2] -= cls[x]->n;
					if (m->w_hpos[l2] >= 0 && !m->w_marked[l2]) {
						m->w_marked[l2] = true;
						m->w_mark[nmark++] = l2;
					}
				}
			}
		}
		/* then the shares of the links they leave */
		for (i = 0; i < nmark; i++) {
			uint32_t l = m->w_mark[i];
			int p = m->w_hpos[l];

			m->w_marked[l] = false;
			if (p < 0)
				continue;
			if (!m->w_cnt[l]) {
				size_t q = (size_t)p;

				m->w_hpos[l] = -1;
				if (q != --hn) {
					uint32_t moved = m->w_heap[hn];

					wput(m, q, moved);
					wup(m, q);
					wdown(m, (size_t)m->w_hpos[moved], hn);
				}
				continue;
			}
			m->w_key[l] = left[l] / m->w_cnt[l];
			wup(m, (size_t)p);
			wdown(m, (size_t)m->w_hpos[l], hn);
		}
	}
}

bool mm_verify(struct mm *m)
{
	uint64_t *left = xcalloc(m->L + 1, sizeof(uint64_t));
	uint64_t *lv = xcalloc(m->n_all + 1, sizeof(uint64_t));
	bool ok = true;
	size_t i;

	for (i = 0; i < m->L; i++)
		left[i] = m->l[i].cap;
	mm_waterfill(m, m->all, m->n_all, left, lv);
	for (i = 0; i < m->n_all; i++)
		if (lv[i] != m->all[i]->lv) {
			fprintf(stderr, "maxmin: class %zu (links %u..., %llu flows): level %llu, water-filling says %llu\n",
				i, m->all[i]->links[0], (unsigned long long)m->all[i]->n,
				(unsigned long long)m->all[i]->lv, (unsigned long long)lv[i]);
			ok = false;
		}
	free(left);
	free(lv);
	return ok;
}
