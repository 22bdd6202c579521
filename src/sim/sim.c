/* The flow-level simulation backend: a fluid model of the Hybrid-DCN.
 *
 * Links: host -> ToR and ToR -> host at host_rate, ToR -> core and core ->
 * ToR at bw_e, and one circuit per OCS source port at bw_o. A flow crosses
 * its source host's up link, then the EPS (both uplinks) or its circuit,
 * then its destination host's down link; same-rack flows only the host
 * links; same-host flows nothing (they finish at once). Rates are max-min
 * fair (progressive filling), recomputed when the set of flows or circuits
 * changes. A circuit i -> j is usable delta after it is set, and only the
 * ports whose circuit changes pay that (not-all-stop); an OCS flow whose
 * circuit is not usable has rate 0 and keeps its bytes. Tasks' work is a
 * timer. Everything is deterministic: the same inputs give the same run.
 *
 * Beside max-min, rate models that serve flows in an order (as NEAT
 * needs): FCFS (by start), SRPT (by bits left), LAS (by bits sent). On
 * every link the order decides who is served first: taking flows in that
 * order, each gets what the flows before it left on its path (flows tied
 * in the order share that max-min fairly).
 *
 * Coflow models (--coflow, NEAT §4.2): a coflow is a job's flows of one
 * kind (its input reads, its shuffle, its output writes). FCFS (by the
 * job's arrival) and SCF (smallest coflow first: by the bytes of the
 * coflow's flows so far) are orders, as above, every flow of a coflow tied
 * with the others (max-min among themselves); Varys and coflow-fair are
 * allocations (src/net/netsched.h).
 *
 * Rates are recomputed at every change (exact); --rate-quantum trades
 * that for speed: at most one computation per quantum. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/rng.h"
#include "core/util.h"
#include "ctl/ctl.h"
#include "net/netsched.h"

/* Flows with the same source host, destination host and path cross the
 * same links, so max-min gives each of them the same rate: they form a
 * class, and the class is the unit of the rate computation. Inside a class
 * every member receives bits at the same rate, so one counter per class
 * (vt: bits received by each member since the class exists) tells every
 * member's progress, and a member is done when vt reaches its `finish`
 * (vt when it joined + its bits): a heap on finish gives the next one
 * (processor sharing in virtual time). Work per event grows with the
 * classes and links in use, not with the flows, and not with the OCS
 * classes waiting for their circuit (parked, see struct sim). */
struct sim_class;

/* A coflow, for the coflow models: a job's flows of one kind. */
struct sim_coflow {
	double bits;	/* of its flows so far (SCF's size) */
	double arrival; /* its job's, then its kind (FCFS's order) */
	bool seen;
	uint32_t dense; /* scratch: its number among the active coflows */
};

struct sim_flow {
	struct flow *f;
	double finish; /* class vt at which its last bit is in */
	struct sim_class *cl;
	size_t hslot;
};

struct sim_class {
	uint32_t src, dst;
	uint32_t sr, dr; /* their racks */
	uint32_t seq; /* order of creation: the last tie-break */
	bool hashed;  /* in the class table (max-min classes only) */
	enum flow_path path;
	int links[4];
	int nlinks;
	double vt;   /* bits received per member */
	double rate; /* bits per ns per member */
	double cbits, cbits_seen; /* bits its members received, in all; at
				   * the last look of the network view */
	bool frozen;
	bool due;    /* has members done (done_fire) */
	struct sim_flow **h; /* members, min-heap on finish */
	size_t n, cap;
	size_t slot; /* in the active class array */
	size_t rslot; /* in the running array, SIZE_MAX when parked */
	struct sim_class *pnext, *pprev; /* parked on its (sr, dr) list */
	struct sim_class *hnext;
	struct sim_coflow *cf; /* coflow models: its flow's coflow */
};

struct compute {
	struct evtimer tm;
	struct hyde_task *t;
	struct ctl *ctl;
};

struct port_timer {
	struct evtimer tm;
	struct sim *s;
	unsigned port;
};


struct sim {
	struct ctl *ctl;
	const struct topo *t;
	unsigned H, R, L;
	double *cap;	   /* bits per ns, per link */
	double *left;
	double *cnt;	   /* members not yet fixed, per link */
	int *hl, *hpos; /* the heap of links, and where each link is in it */
	double *hkey;
	size_t hn;
	uint32_t *off, *fill, *lcls; /* CSR: classes per link */
	int *used;	   /* links touched by active classes */
	size_t n_used;
	bool *is_used;
	struct sim_class **act;	/* classes with members */
	size_t n_act, cap_act;
	/* Max-min only: an OCS class whose circuit is not usable moves no
	 * data; it is parked on the list of its racks, out of run (the
	 * classes the per-event loops visit), until its circuit comes up. */
	struct sim_class **run;
	size_t n_run, cap_run;
	struct sim_class **parked; /* R x R lists, by (sr, dr) */
	struct sim_class **sorted; /* scratch: run in act order */
	size_t cap_sorted;
	struct sim_class **tab;	/* hash of classes by key */
	size_t tab_mask;
	struct sim_flow **local; /* same-host flows: done at once */
	size_t n_local, cap_local;
	size_t n_flows;
	int64_t last;
	struct evtimer done_timer, rate_timer;
	int32_t *out_of;
	bool *usable;
	struct port_timer *pt;
	uint64_t recomputes, cls_sum;
	const struct rate_model *model;
	uint32_t seq;
	struct evtimer cross_timer; /* an ordered model's order changes */
	int64_t last_cross;
	int64_t quantum, last_compute;
	/* The network view (link_bytes): bits each link carried, in its
	 * order (the first 2H + 3R links are this file's, the last R the
	 * OCS ports' downward direction), from the classes' counters. */
	double *lbits;
	struct sim_coflow *cf; /* coflow models: per job x kind */
};

/* How flows share links: max-min (key NULL), or in the order of a key,
 * lowest first. slope: how the key of a flow at rate r moves per ns (for
 * the instant two flows change places). tol: keys this close are tied. */
struct rate_model {
	const char *name;
	double (*key)(const struct sim_class *c);
	double slope; /* d key / dt = slope x rate */
	double tol;
	/* coflow models (then every flow is its own class, with its
	 * coflow); with no key, an allocation of netsched.h */
	enum hyde_coflow_policy coflow;
};

static double key_fcfs(const struct sim_class *c)
{
	return (double)c->h[0]->f->start;
}

static double key_srpt(const struct sim_class *c)
{
	return c->h[0]->finish - c->vt;
}

static double key_las(const struct sim_class *c)
{
	return c->vt;
}

static double key_cf_fcfs(const struct sim_class *c)
{
	return c->cf->arrival;
}

static double key_cf_scf(const struct sim_class *c)
{
	return c->cf->bits;
}

/* The tolerance of the bit counts covers what a rate of up to 1Tbit/s
 * moves in the nanosecond that event times are rounded to. */
static const struct rate_model rate_models[] = {
	{ "maxmin", NULL, 0, 0, 0 },
	{ "fcfs", key_fcfs, 0, 0, 0 },
	{ "srpt", key_srpt, -1, 1024, 0 },
	{ "las", key_las, 1, 1024, 0 },
	{ "varys", NULL, 0, 0, HYDE_COFLOW_VARYS },
	{ "scf", key_cf_scf, 0, 0, HYDE_COFLOW_SCF },
	{ "fcfs", key_cf_fcfs, 0, 0, HYDE_COFLOW_FCFS },
	{ "fair", NULL, 0, 0, HYDE_COFLOW_FAIR },
	{ NULL, NULL, 0, 0, 0 },
};

/* Every flow its own class (the ordered and coflow models)? */
static bool per_flow(const struct rate_model *m)
{
	return m->key || m->coflow;
}

static inline struct sim *SIM(struct backend *b)
{
	return *(struct sim **)b->priv;
}

#define L_HOST_UP(s, h) ((int)(h))
#define L_HOST_DOWN(s, h) ((int)((s)->H + (h)))
#define L_TOR_UP(s, r) ((int)(2 * (s)->H + (r)))
#define L_TOR_DOWN(s, r) ((int)(2 * (s)->H + (s)->R + (r)))
#define L_CIRCUIT(s, r) ((int)(2 * (s)->H + 2 * (s)->R + (r)))

/* ---- indexed min-heap of link shares: one entry per link, moved in
 * place when its share changes (ties by link: deterministic) ---- */

static bool hless(const struct sim *s, int a, int b)
{
	return s->hkey[a] < s->hkey[b] || (s->hkey[a] == s->hkey[b] && a < b);
}

static void hplace(struct sim *s, size_t i, int l)
{
	s->hl[i] = l;
	s->hpos[l] = (int)i;
}

static void hup(struct sim *s, size_t i)
{
	int l = s->hl[i];

	while (i > 0 && hless(s, l, s->hl[(i - 1) / 2])) {
		hplace(s, i, s->hl[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	hplace(s, i, l);
}

static void hdown(struct sim *s, size_t i)
{
	int l = s->hl[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= s->hn)
			break;
		if (c + 1 < s->hn && hless(s, s->hl[c + 1], s->hl[c]))
			c++;
		if (!hless(s, s->hl[c], l))
			break;
		hplace(s, i, s->hl[c]);
		i = c;
	}
	hplace(s, i, l);
}

static void hset(struct sim *s, int l, double key)
{
	double old = s->hkey[l];

	s->hkey[l] = key;
	if (s->hpos[l] < 0) {
		s->hl[s->hn] = l;
		s->hpos[l] = (int)s->hn;
		hup(s, s->hn++);
	} else if (key < old) {
		hup(s, (size_t)s->hpos[l]);
	} else {
		hdown(s, (size_t)s->hpos[l]);
	}
}

static void hremove(struct sim *s, int l)
{
	size_t i = (size_t)s->hpos[l];
	int last;

	s->hpos[l] = -1;
	last = s->hl[--s->hn];
	if (i == s->hn)
		return;
	hplace(s, i, last);
	hup(s, i);
	hdown(s, (size_t)s->hpos[last]);
}

/* ---- members of a class: min-heap on finish ---- */

static void mh_set(struct sim_class *c, size_t i, struct sim_flow *f)
{
	c->h[i] = f;
	f->hslot = i;
}

static void mh_push(struct sim_class *c, struct sim_flow *f)
{
	size_t i;

	xgrow((void **)&c->h, &c->cap, c->n + 1, sizeof(*c->h));
	i = c->n++;
	while (i > 0 && f->finish < c->h[(i - 1) / 2]->finish) {
		mh_set(c, i, c->h[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	mh_set(c, i, f);
}

static struct sim_flow *mh_pop(struct sim_class *c)
{
	struct sim_flow *top = c->h[0], *last = c->h[--c->n];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, m = l;

		if (l >= c->n)
			break;
		if (l + 1 < c->n && c->h[l + 1]->finish < c->h[l]->finish)
			m = l + 1;
		if (!(c->h[m]->finish < last->finish))
			break;
		mh_set(c, i, c->h[m]);
		i = m;
	}
	if (c->n)
		mh_set(c, i, last);
	return top;
}

/* ---- classes ---- */

static size_t class_hash(const struct sim *s, uint32_t src, uint32_t dst,
			 enum flow_path path)
{
	uint64_t k = ((uint64_t)src * s->H + dst) * 4 + (uint64_t)path;

	return (size_t)(splitmix64(&k) & s->tab_mask);
}

static struct sim_class *class_get(struct sim *s, const struct flow *f)
{
	size_t h = class_hash(s, f->src_host, f->dst_host, f->path);
	struct sim_class *c;

	if (!per_flow(s->model)) /* ordered models: every flow is its own class */
		for (c = s->tab[h]; c; c = c->hnext)
			if (c->src == f->src_host && c->dst == f->dst_host && c->path == f->path)
				return c;
	c = xcalloc(1, sizeof(*c));
	c->seq = s->seq++;
	c->src = f->src_host;
	c->dst = f->dst_host;
	c->sr = topo_host_rack(s->t, f->src_host);
	c->dr = topo_host_rack(s->t, f->dst_host);
	c->path = f->path;
	switch (f->path) {
	case PATH_HOST:
		break;
	case PATH_RACK:
		c->links[c->nlinks++] = L_HOST_UP(s, f->src_host);
		c->links[c->nlinks++] = L_HOST_DOWN(s, f->dst_host);
		break;
	case PATH_EPS:
		c->links[c->nlinks++] = L_HOST_UP(s, f->src_host);
		c->links[c->nlinks++] = L_TOR_UP(s, f->src_rack);
		c->links[c->nlinks++] = L_TOR_DOWN(s, f->dst_rack);
		c->links[c->nlinks++] = L_HOST_DOWN(s, f->dst_host);
		break;
	case PATH_OCS:
		c->links[c->nlinks++] = L_HOST_UP(s, f->src_host);
		c->links[c->nlinks++] = L_CIRCUIT(s, f->src_rack);
		c->links[c->nlinks++] = L_HOST_DOWN(s, f->dst_host);
		break;
	}
	if (!per_flow(s->model)) {
		c->hnext = s->tab[h];
		s->tab[h] = c;
		c->hashed = true;
	}
	c->slot = SIZE_MAX;
	c->rslot = SIZE_MAX;
	return c;
}

static void run_add(struct sim *s, struct sim_class *c)
{
	xgrow((void **)&s->run, &s->cap_run, s->n_run + 1, sizeof(*s->run));
	c->rslot = s->n_run;
	s->run[s->n_run++] = c;
}

static void run_del(struct sim *s, struct sim_class *c)
{
	s->run[c->rslot] = s->run[--s->n_run];
	s->run[c->rslot]->rslot = c->rslot;
	c->rslot = SIZE_MAX;
}

static void park(struct sim *s, struct sim_class *c)
{
	struct sim_class **head = &s->parked[(size_t)c->sr * s->R + c->dr];

	run_del(s, c);
	c->pprev = NULL;
	c->pnext = *head;
	if (*head)
		(*head)->pprev = c;
	*head = c;
}

static void park_unlink(struct sim *s, struct sim_class *c)
{
	if (c->pprev)
		c->pprev->pnext = c->pnext;
	else
		s->parked[(size_t)c->sr * s->R + c->dr] = c->pnext;
	if (c->pnext)
		c->pnext->pprev = c->pprev;
	c->pnext = c->pprev = NULL;
}

/* What the class moved since the last look, onto its links. */
static void account(struct sim *s, struct sim_class *c)
{
	double d = c->cbits - c->cbits_seen;
	int k;

	if (d <= 0)
		return;
	for (k = 0; k < c->nlinks; k++)
		s->lbits[c->links[k]] += d;
	if (c->path == PATH_OCS) /* into its destination's OCS port */
		s->lbits[2 * s->H + 3 * s->R + c->dr] += d;
	c->cbits_seen = c->cbits;
}

/* Out of the table and the arrays; the memory is the caller's to free. */
static void class_drop(struct sim *s, struct sim_class *c)
{
	account(s, c);
	size_t h = class_hash(s, c->src, c->dst, c->path);
	struct sim_class **pp;

	if (c->hashed) {
		for (pp = &s->tab[h]; *pp != c; pp = &(*pp)->hnext)
			;
		*pp = c->hnext;
	}
	if (c->rslot == SIZE_MAX)
		park_unlink(s, c);
	else
		run_del(s, c);
	s->act[c->slot] = s->act[--s->n_act];
	s->act[c->slot]->slot = c->slot;
}

static void class_release(struct sim *s, struct sim_class *c)
{
	class_drop(s, c);
	free(c->h);
	free(c);
}

/* ---- the fluid model ---- */

static void advance(struct sim *s)
{
	int64_t now = ctl_now(s->ctl);
	double dt = (double)(now - s->last);
	size_t i;

	if (dt > 0) /* parked classes have rate 0 */
		for (i = 0; i < s->n_run; i++) {
			struct sim_class *c = s->run[i];
			double d = c->rate * dt;

			c->vt += d;
			c->cbits += d * (double)c->n;
		}
	s->last = now;
}

static bool class_usable(const struct sim *s, const struct sim_class *c)
{
	if (c->path != PATH_OCS)
		return true;
	return s->out_of[c->sr] == (int32_t)c->dr && s->usable[c->sr];
}

/* Rates below this (1kbit/s, in bits per ns) are what float rounding
 * leaves of a link shared out, not bandwidth. */
#define RATE_MIN 1e-6

/* See compute_ordered. */
#define CROSS_QUANTUM (NSEC_PER_SEC / 1000)

struct keyed {
	double key;
	struct sim_class *c;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->c->seq > y->c->seq) - (x->c->seq < y->c->seq);
}

/* Max-min fair rates by progressive filling: repeatedly take the link with
 * the smallest fair share among the flows not yet fixed, fix them at it.
 * Over the classes cls[0..n), on full links (fresh) or on what the links
 * have left (an ordered model's tie group). */
static void fill(struct sim *s, struct sim_class **cls, size_t n, bool fresh)
{
	size_t i, k;

	for (i = 0; i < s->n_used; i++)
		s->is_used[s->used[i]] = false;
	s->n_used = 0;
	memset(s->off, 0, (s->L + 1) * sizeof(uint32_t));
	for (i = 0; i < n; i++) {
		struct sim_class *c = cls[i];

		c->rate = 0;
		c->frozen = !class_usable(s, c);
		if (c->frozen)
			continue;
		for (k = 0; k < (size_t)c->nlinks; k++) {
			int l = c->links[k];

			if (!s->is_used[l]) {
				s->is_used[l] = true;
				s->used[s->n_used++] = l;
				if (fresh)
					s->left[l] = s->cap[l];
				s->cnt[l] = 0;
				s->fill[l] = 0;
			}
			s->cnt[l] += (double)c->n;
			s->off[l + 1]++;
		}
	}
	for (i = 0; i < s->L; i++)
		s->off[i + 1] += s->off[i];
	s->lcls = xrealloc(s->lcls, (s->off[s->L] + 1) * sizeof(uint32_t));
	for (i = 0; i < n; i++) {
		struct sim_class *c = cls[i];

		if (c->frozen)
			continue;
		for (k = 0; k < (size_t)c->nlinks; k++) {
			int l = c->links[k];

			s->lcls[s->off[l] + s->fill[l]++] = (uint32_t)i;
		}
	}
	for (i = 0; i < s->hn; i++)
		s->hpos[s->hl[i]] = -1;
	s->hn = 0;
	for (i = 0; i < s->n_used; i++) {
		int l = s->used[i];

		hset(s, l, (s->left[l] > 0 ? s->left[l] : 0) / s->cnt[l]);
	}
	while (s->hn) {
		int l = s->hl[0];
		double share;

		hremove(s, l);
		if (s->cnt[l] <= 0)
			continue;
		share = s->left[l] / s->cnt[l];
		if (share < RATE_MIN)
			share = 0;
		for (k = s->off[l]; k < s->off[l] + s->fill[l]; k++) {
			struct sim_class *c = cls[s->lcls[k]];
			int m;

			if (c->frozen)
				continue;
			c->rate = share;
			c->frozen = true;
			for (m = 0; m < c->nlinks; m++) {
				int l2 = c->links[m];

				s->left[l2] -= share * (double)c->n;
				s->cnt[l2] -= (double)c->n;
				if (l2 == l)
					continue;
				if (s->cnt[l2] > 0.5)
					hset(s, l2, (s->left[l2] > 0 ? s->left[l2] : 0) / s->cnt[l2]);
				else if (s->hpos[l2] >= 0)
					hremove(s, l2);
			}
		}
	}
}

static void compute_ordered(struct sim *s);

static int cmp_slot(const void *a, const void *b)
{
	const struct sim_class *x = *(struct sim_class *const *)a;
	const struct sim_class *y = *(struct sim_class *const *)b;

	return (x->slot > y->slot) - (x->slot < y->slot);
}

/* Max-min: park the running classes that cannot send, then fill over the
 * rest taken in the order of the active array, so that every float sum
 * is done in the order it would be over all the classes. */
static void compute_maxmin(struct sim *s)
{
	size_t i;

	for (i = 0; i < s->n_run;) {
		struct sim_class *c = s->run[i];

		if (class_usable(s, c)) {
			i++;
			continue;
		}
		c->rate = 0;
		c->frozen = true;
		park(s, c); /* moves another class into slot i */
	}
	xgrow((void **)&s->sorted, &s->cap_sorted, s->n_run + 1, sizeof(*s->sorted));
	if (s->n_run) /* s->run is NULL before the first class runs */
		memcpy(s->sorted, s->run, s->n_run * sizeof(*s->sorted));
	qsort(s->sorted, s->n_run, sizeof(*s->sorted), cmp_slot);
	fill(s, s->sorted, s->n_run, true);
}

static void compute_coflow(struct sim *s);

static void compute_rates(struct sim *s)
{
	s->recomputes++;
	s->cls_sum += s->n_act;
	s->last_compute = ctl_now(s->ctl);
	evloop_cancel(ctl_loop(s->ctl), &s->rate_timer);
	if (s->model->key)
		compute_ordered(s);
	else if (s->model->coflow)
		compute_coflow(s);
	else
		compute_maxmin(s);
}

static int cmp_cf_arrival(const void *a, const void *b)
{
	const struct sim_coflow *x = *(struct sim_coflow *const *)a;
	const struct sim_coflow *y = *(struct sim_coflow *const *)b;

	if (x->arrival != y->arrival)
		return x->arrival < y->arrival ? -1 : 1;
	return (x > y) - (x < y);
}

/* Varys or coflow-fair (netsched.h) over the classes that can send (one
 * flow each), coflows numbered in arrival order. */
static void compute_coflow(struct sim *s)
{
	struct ns_flow *f = xcalloc(s->n_act + 1, sizeof(*f));
	struct sim_class **who = xcalloc(s->n_act + 1, sizeof(*who));
	struct sim_coflow **cfs = xcalloc(s->n_act + 1, sizeof(*cfs));
	double *rate = xcalloc(s->n_act + 1, sizeof(double));
	size_t i, n = 0, ncf = 0;
	int k;

	for (i = 0; i < s->n_act; i++) {
		struct sim_class *c = s->act[i];

		c->rate = 0;
		c->frozen = !class_usable(s, c);
		if (c->frozen || !c->n)
			continue;
		if (!c->cf->seen) {
			c->cf->seen = true;
			cfs[ncf++] = c->cf;
		}
		who[n] = c;
		f[n].nlinks = c->nlinks;
		for (k = 0; k < c->nlinks; k++)
			f[n].links[k] = c->links[k];
		f[n].left = c->h[0]->finish - c->vt;
		if (f[n].left < 1)
			f[n].left = 1; /* a rounding error from its end */
		n++;
	}
	qsort(cfs, ncf, sizeof(*cfs), cmp_cf_arrival);
	for (i = 0; i < ncf; i++) {
		cfs[i]->dense = (uint32_t)i;
		cfs[i]->seen = false;
	}
	for (i = 0; i < n; i++)
		f[i].coflow = who[i]->cf->dense;
	netsched_coflow_rates(s->model->coflow, f, n, ncf, s->cap, s->L, rate);
	for (i = 0; i < n; i++)
		who[i]->rate = rate[i] < RATE_MIN ? 0 : rate[i];
	free(f);
	free(who);
	free(cfs);
	free(rate);
}

/* An ordered model: classes by key; each tie group takes, max-min among
 * itself, what the groups before it left. Then the first instant two
 * neighbours in the order change places, when the rates must be redone. */
static void compute_ordered(struct sim *s)
{
	const struct rate_model *m = s->model;
	struct keyed *g = xcalloc(s->n_act + 1, sizeof(*g));
	struct sim_class **grp = xcalloc(s->n_act + 1, sizeof(*grp));
	double next = INFINITY;
	size_t i, j;
	int k;

	for (i = 0; i < s->n_act; i++) {
		g[i] = (struct keyed){ m->key(s->act[i]), s->act[i] };
		for (k = 0; k < s->act[i]->nlinks; k++)
			s->left[s->act[i]->links[k]] = s->cap[s->act[i]->links[k]];
	}
	qsort(g, s->n_act, sizeof(*g), cmp_keyed);
	for (i = 0; i < s->n_act; i = j) {
		for (j = i + 1; j < s->n_act && g[j].key - g[i].key <= m->tol; j++)
			;
		if (j - i == 1) { /* alone in its place: what its path has left */
			struct sim_class *c = g[i].c;
			double r = INFINITY;

			c->frozen = !class_usable(s, c);
			for (k = 0; k < c->nlinks && !c->frozen; k++)
				if (s->left[c->links[k]] < r)
					r = s->left[c->links[k]];
			/* what rounding leaves of a full link is no rate */
			c->rate = c->frozen || r < RATE_MIN ? 0 : r;
			for (k = 0; k < c->nlinks; k++)
				s->left[c->links[k]] -= c->rate * (double)c->n;
			continue;
		}
		for (k = 0; (size_t)k < j - i; k++)
			grp[k] = g[i + (size_t)k].c;
		fill(s, grp, j - i, false);
	}
	for (i = 0; i + 1 < s->n_act; i++) {
		double gap = g[i + 1].key - g[i].key;
		double closing = m->slope * (g[i].c->rate - g[i + 1].c->rate);

		if (gap > m->tol && closing > 0 && gap / closing < next)
			next = gap / closing;
	}
	free(g);
	free(grp);
	/* Two flows with different bottlenecks can swap places again and
	 * again (each tie lets the slower fall behind): an order change is
	 * acted on at most once per CROSS_QUANTUM, the one approximation of
	 * the ordered models. */
	if (next < INFINITY) {
		int64_t at = ctl_now(s->ctl) + (int64_t)ceil(next);

		if (at < s->last_cross + CROSS_QUANTUM)
			at = s->last_cross + CROSS_QUANTUM;
		evloop_at(ctl_loop(s->ctl), &s->cross_timer, at);
	} else
		evloop_cancel(ctl_loop(s->ctl), &s->cross_timer);
}

static void arm_completion(struct sim *s)
{
	double best = INFINITY;
	size_t i;

	if (s->n_local)
		best = 0;
	for (i = 0; i < s->n_run && best > 0; i++) {
		const struct sim_class *c = s->run[i];

		if (c->rate > 0) {
			double t = (c->h[0]->finish - c->vt) / c->rate;

			if (t < best)
				best = t;
		}
	}
	if (best > 1e18) { /* none, or more than 30 years away */
		evloop_cancel(ctl_loop(s->ctl), &s->done_timer);
		return;
	}
	if (best < 0)
		best = 0;
	evloop_at(ctl_loop(s->ctl), &s->done_timer, ctl_now(s->ctl) + (int64_t)ceil(best - 1e-6));
}

/* Something changed at this instant: recompute once, after every other
 * event of the same instant (they may change more). */
static void rates_dirty(struct sim *s)
{
	int64_t at = ctl_now(s->ctl);

	/* --rate-quantum: at most one computation per quantum; until then
	 * the rates stay as they were (a new flow waits, a finished flow's
	 * share lies idle): fewer events, approximate times */
	if (s->quantum && at < s->last_compute + s->quantum)
		at = s->last_compute + s->quantum;
	if (!evtimer_armed(&s->rate_timer))
		evloop_at(ctl_loop(s->ctl), &s->rate_timer, at);
}

static void rate_fire(struct evloop *l, struct evtimer *t)
{
	struct sim *s = (struct sim *)((char *)t - offsetof(struct sim, rate_timer));

	(void)l;
	advance(s);
	compute_rates(s);
	arm_completion(s);
}

static void cross_fire(struct evloop *l, struct evtimer *t)
{
	struct sim *s = (struct sim *)((char *)t - offsetof(struct sim, cross_timer));

	(void)l;
	s->last_cross = ctl_now(s->ctl);
	advance(s);
	compute_rates(s);
	arm_completion(s);
}

/* A member is done when what is left of it is a rounding error of the
 * float arithmetic (a billionth of what the class has moved), never data. */
static bool member_done(const struct sim_class *c, const struct sim_flow *sf)
{
	return sf->finish - c->vt <= 1e-9 * sf->finish + 1e-3;
}

static void done_fire(struct evloop *l, struct evtimer *t)
{
	struct sim *s = (struct sim *)((char *)t - offsetof(struct sim, done_timer));
	struct sim_flow **done = NULL;
	struct sim_class *dead = NULL;
	size_t n = 0, cap = 0, i, nd;

	(void)l;
	advance(s);
	for (i = 0; i < s->n_local; i++) {
		xgrow((void **)&done, &cap, n + 1, sizeof(*done));
		done[n++] = s->local[i];
	}
	s->n_local = 0;
	/* The classes with members done, visited as a walk over the active
	 * array would: in slot order, and a class moved into the slot of one
	 * released is next (the order of the done calls is the walk's). */
	for (i = 0, nd = 0; i < s->n_run; i++) {
		struct sim_class *c = s->run[i];

		c->due = c->rate > 0 && member_done(c, c->h[0]);
		if (c->due) {
			xgrow((void **)&s->sorted, &s->cap_sorted, nd + 1, sizeof(*s->sorted));
			s->sorted[nd++] = c;
		}
	}
	if (nd > 1) /* s->sorted is NULL until a class was due */
		qsort(s->sorted, nd, sizeof(*s->sorted), cmp_slot);
	for (i = 0; i < nd; i++) {
		struct sim_class *c = s->sorted[i];

		while (c && c->due) {
			struct sim_class *last = s->act[s->n_act - 1];

			c->due = false;
			while (c->n && c->rate > 0 && member_done(c, c->h[0])) {
				xgrow((void **)&done, &cap, n + 1, sizeof(*done));
				done[n++] = mh_pop(c);
			}
			if (c->n)
				break;
			/* moves last into its slot; freed below, as sorted
			 * may still hold it */
			class_drop(s, c);
			c->hnext = dead;
			dead = c;
			c = last != c ? last : NULL;
		}
	}
	while (dead) {
		struct sim_class *c = dead;

		dead = c->hnext;
		free(c->h);
		free(c);
	}
	s->n_flows -= n;
	if (s->quantum && ctl_now(s->ctl) < s->last_compute + s->quantum)
		rates_dirty(s);
	else
		compute_rates(s);
	arm_completion(s);
	for (i = 0; i < n; i++) {
		struct flow *f = done[i]->f;

		f->bpriv = NULL;
		free(done[i]);
		ctl_flow_done(s->ctl, f);
	}
	free(done);
}

static void compute_fire(struct evloop *l, struct evtimer *t)
{
	struct compute *c = (struct compute *)t;
	struct ctl *ctl = c->ctl;
	struct hyde_task *task = c->t;

	(void)l;
	free(c);
	ctl_compute_done(ctl, task);
}

static void port_fire(struct evloop *l, struct evtimer *t)
{
	struct port_timer *pt = (struct port_timer *)t;
	struct sim *s = pt->s;

	(void)l;
	if (s->out_of[pt->port] < 0)
		return;
	advance(s);
	s->usable[pt->port] = true;
	if (s->parked) {
		struct sim_class **head;

		head = &s->parked[(size_t)pt->port * s->R + (size_t)s->out_of[pt->port]];
		while (*head) { /* rate 0 until the rates are computed */
			struct sim_class *c = *head;

			park_unlink(s, c);
			run_add(s, c);
		}
	}
	rates_dirty(s);
	ctl_circuit_up(s->ctl, pt->port, (unsigned)s->out_of[pt->port]);
}

/* ---- backend ops ---- */

static int sim_init(struct backend *b, char *errbuf)
{
	struct sim *s;
	const struct topo *t = ctl_topo(b->ctl);
	const char *rates = ctl_options(b->ctl)->rates;
	const char *coflow = ctl_options(b->ctl)->coflow;
	const struct rate_model *m;
	size_t tab = 1024;
	unsigned i;

	if (coflow && !strcmp(coflow, "none"))
		coflow = NULL;
	for (m = rate_models; m->name; m++)
		if (coflow ? m->coflow && !strcmp(coflow, m->name)
			   : !m->coflow && (!rates || !strcmp(rates, m->name)))
			break;
	if (!m->name) {
		if (coflow)
			errbuf_set(errbuf, "unknown coflow model '%s' (expected varys, scf, fcfs or fair)",
				   coflow);
		else
			errbuf_set(errbuf, "unknown rate model '%s' (expected maxmin, fcfs, srpt or las)",
				   rates);
		return -EINVAL;
	}
	s = xcalloc(1, sizeof(*s));
	s->model = m;
	s->quantum = ctl_options(b->ctl)->rate_quantum;
	*(struct sim **)b->priv = s;
	s->ctl = b->ctl;
	s->t = t;
	s->H = topo_n_hosts(t);
	s->R = t->racks;
	s->L = 2 * s->H + 3 * s->R;
	s->cap = xcalloc(s->L, sizeof(double));
	s->lbits = xcalloc(s->L + s->R, sizeof(double));
	s->left = xcalloc(s->L, sizeof(double));
	s->cnt = xcalloc(s->L, sizeof(double));
	s->hl = xcalloc(s->L, sizeof(int));
	s->hpos = xcalloc(s->L, sizeof(int));
	s->hkey = xcalloc(s->L, sizeof(double));
	for (i = 0; i < s->L; i++)
		s->hpos[i] = -1;
	s->off = xcalloc(s->L + 1, sizeof(uint32_t));
	s->fill = xcalloc(s->L, sizeof(uint32_t));
	s->used = xcalloc(s->L, sizeof(int));
	s->is_used = xcalloc(s->L, sizeof(bool));
	while (tab < 4 * (size_t)s->H)
		tab *= 2;
	s->tab = xcalloc(tab, sizeof(*s->tab));
	s->tab_mask = tab - 1;
	for (i = 0; i < s->H; i++)
		s->cap[L_HOST_UP(s, i)] = s->cap[L_HOST_DOWN(s, i)] = (double)t->host_rate / 1e9;
	for (i = 0; i < s->R; i++) {
		s->cap[L_TOR_UP(s, i)] = s->cap[L_TOR_DOWN(s, i)] = (double)t->uplink_rate / 1e9;
		s->cap[L_CIRCUIT(s, i)] = t->has_ocs ? (double)t->ocs_rate / 1e9 : 0;
	}
	s->out_of = xcalloc(s->R, sizeof(int32_t));
	if (!per_flow(m))
		s->parked = xcalloc((size_t)s->R * s->R, sizeof(*s->parked));
	if (m->coflow)
		s->cf = xcalloc(ctl_cluster(b->ctl)->n_jobs * HYDE_FLOW_KINDS + 1, sizeof(*s->cf));
	s->usable = xcalloc(s->R, sizeof(bool));
	s->pt = xcalloc(s->R, sizeof(*s->pt));
	for (i = 0; i < s->R; i++) {
		s->out_of[i] = -1;
		evtimer_init(&s->pt[i].tm, port_fire);
		s->pt[i].s = s;
		s->pt[i].port = i;
	}
	evtimer_init(&s->done_timer, done_fire);
	evtimer_init(&s->rate_timer, rate_fire);
	evtimer_init(&s->cross_timer, cross_fire);
	s->last = ctl_now(s->ctl);
	s->last_cross = INT64_MIN / 2;
	return 0;
}

static void sim_destroy(struct backend *b)
{
	struct sim *s = SIM(b);
	size_t i, k;

	if (!s)
		return;
	if (getenv("HYDE_SIM_STATS"))
		fprintf(stderr, "sim: %llu rate computations, %.1f active classes on average\n",
			(unsigned long long)s->recomputes,
			s->recomputes ? (double)s->cls_sum / (double)s->recomputes : 0.0);
	while (s->n_act) {
		struct sim_class *c = s->act[0];

		for (k = 0; k < c->n; k++) {
			c->h[k]->f->bpriv = NULL;
			free(c->h[k]);
		}
		c->n = 0;
		class_release(s, c);
	}
	for (i = 0; i < s->n_local; i++) {
		s->local[i]->f->bpriv = NULL;
		free(s->local[i]);
	}
	free(s->local);
	free(s->act);
	free(s->run);
	free(s->parked);
	free(s->sorted);
	free(s->tab);
	free(s->cap);
	free(s->lbits);
	free(s->left);
	free(s->cnt);
	free(s->hl);
	free(s->hpos);
	free(s->hkey);
	free(s->off);
	free(s->fill);
	free(s->lcls);
	free(s->used);
	free(s->is_used);
	free(s->out_of);
	free(s->usable);
	free(s->pt);
	free(s->cf);
	free(s);
	*(struct sim **)b->priv = NULL;
}

static int sim_task_noop(struct backend *b, struct hyde_task *t)
{
	(void)b;
	(void)t;
	return 0;
}

static int sim_task_compute(struct backend *b, struct hyde_task *t, int64_t duration)
{
	struct compute *c = xcalloc(1, sizeof(*c));

	evtimer_init(&c->tm, compute_fire);
	c->t = t;
	c->ctl = b->ctl;
	evloop_at(b->loop, &c->tm, ctl_now(b->ctl) + duration);
	return 0;
}

static int sim_flow_start(struct backend *b, struct flow *f)
{
	struct sim *s = SIM(b);
	struct sim_flow *sf = xcalloc(1, sizeof(*sf));
	struct sim_class *c;

	sf->f = f;
	f->bpriv = sf;
	s->n_flows++;
	if (f->path == PATH_HOST || f->bytes == 0) {
		/* one host: no network; done now, after the caller returns */
		xgrow((void **)&s->local, &s->cap_local, s->n_local + 1, sizeof(*s->local));
		s->local[s->n_local++] = sf;
		evloop_at(b->loop, &s->done_timer, ctl_now(b->ctl));
		return 0;
	}
	advance(s);
	c = class_get(s, f);
	if (c->slot == SIZE_MAX) {
		xgrow((void **)&s->act, &s->cap_act, s->n_act + 1, sizeof(*s->act));
		c->slot = s->n_act;
		s->act[s->n_act++] = c;
		run_add(s, c);
	}
	sf->cl = c;
	sf->finish = c->vt + 8.0 * (double)f->bytes;
	if (s->cf) {
		struct sim_coflow *cf = &s->cf[(size_t)f->job * HYDE_FLOW_KINDS + f->kind];

		if (cf->bits == 0) /* its job's arrival, then input, shuffle, output */
			cf->arrival = (double)ctl_cluster(s->ctl)->jobs[f->job].arrival +
				      0.25 * (double)f->kind;
		cf->bits += 8.0 * (double)f->bytes;
		c->cf = cf;
	}
	mh_push(c, sf);
	rates_dirty(s);
	return 0;
}

static int sim_ocs_set(struct backend *b, const int32_t *out_of)
{
	struct sim *s = SIM(b);
	int64_t now = ctl_now(b->ctl);
	bool changed = false;
	unsigned i;

	advance(s);
	for (i = 0; i < s->R; i++) {
		if (s->out_of[i] == out_of[i])
			continue; /* unchanged circuits keep sending */
		s->out_of[i] = out_of[i];
		s->usable[i] = false;
		changed = true;
		if (out_of[i] >= 0)
			evloop_at(b->loop, &s->pt[i].tm, now + s->t->delta);
		else
			evloop_cancel(b->loop, &s->pt[i].tm);
	}
	if (changed)
		rates_dirty(s);
	return 0;
}

static uint64_t sim_flow_remaining(struct backend *b, struct flow *f)
{
	struct sim *s = SIM(b);
	struct sim_flow *sf = f->bpriv;
	double rem;

	if (!sf || !sf->cl)
		return 0;
	rem = sf->finish - sf->cl->vt - sf->cl->rate * (double)(ctl_now(s->ctl) - s->last);
	return rem > 0 ? (uint64_t)ceil(rem / 8.0) : 0;
}

static void sim_link_bytes(struct backend *b, uint64_t *bytes)
{
	struct sim *s = SIM(b);
	size_t i;

	advance(s);
	for (i = 0; i < s->n_act; i++)
		account(s, s->act[i]);
	for (i = 0; i < s->L + s->R; i++)
		bytes[i] = (uint64_t)(s->lbits[i] / 8.0 + 0.5);
}

static void sim_progress(struct backend *b, char *buf, size_t len)
{
	struct sim *s = SIM(b);

	snprintf(buf, len, "flows %zu active in %zu classes", s->n_flows, s->n_act);
}

const struct backend_ops backend_sim = {
	.name = "sim",
	.priv_size = sizeof(struct sim *),
	.clock = EVLOOP_VIRTUAL,
	.init = sim_init,
	.destroy = sim_destroy,
	.task_start = sim_task_noop,
	.task_compute = sim_task_compute,
	.task_end = sim_task_noop,
	.flow_start = sim_flow_start,
	.ocs_set = sim_ocs_set,
	.flow_remaining = sim_flow_remaining,
	.link_bytes = sim_link_bytes,
	.progress = sim_progress,
};
