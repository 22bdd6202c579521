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
 * timer. Everything is deterministic: the same inputs give the same run. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "ctl/ctl.h"

struct sim_flow {
	struct flow *f;
	double rem;  /* bits left */
	double rate; /* bits per ns */
	int links[4];
	int nlinks;
	size_t slot; /* in the active array */
	bool frozen;
};

struct compute {
	struct evtimer tm;
	struct task *t;
	struct ctl *ctl;
};

struct port_timer {
	struct evtimer tm;
	struct sim *s;
	unsigned port;
};

struct heap_ent {
	double share;
	int link;
	unsigned ver;
};

struct sim {
	struct ctl *ctl;
	const struct topo *t;
	unsigned H, R, L;
	double *cap;	   /* bits per ns, per link */
	double *left;
	unsigned *cnt, *ver;
	uint32_t *off, *fill, *lflows; /* CSR: flows per link */
	struct sim_flow **act;
	size_t n_act, cap_act;
	int64_t last;
	struct evtimer done_timer, rate_timer;
	int32_t *out_of;
	bool *usable;
	struct port_timer *pt;
	struct heap_ent *heap;
	size_t n_heap, cap_heap;
	uint64_t recomputes;
};

static inline struct sim *SIM(struct backend *b)
{
	return *(struct sim **)b->priv;
}

#define L_HOST_UP(s, h) ((int)(h))
#define L_HOST_DOWN(s, h) ((int)((s)->H + (h)))
#define L_TOR_UP(s, r) ((int)(2 * (s)->H + (r)))
#define L_TOR_DOWN(s, r) ((int)(2 * (s)->H + (s)->R + (r)))
#define L_CIRCUIT(s, r) ((int)(2 * (s)->H + 2 * (s)->R + (r)))

/* ---- lazy min-heap of link shares ---- */

static void heap_push(struct sim *s, double share, int link)
{
	size_t i;

	xgrow((void **)&s->heap, &s->cap_heap, s->n_heap + 1, sizeof(*s->heap));
	i = s->n_heap++;
	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (s->heap[p].share < share ||
		    (s->heap[p].share == share && s->heap[p].link <= link))
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = (struct heap_ent){ share, link, s->ver[link] };
}

static struct heap_ent heap_pop(struct sim *s)
{
	struct heap_ent top = s->heap[0], last = s->heap[--s->n_heap];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, m = i;
		const struct heap_ent *best = &last;

		if (l < s->n_heap && (s->heap[l].share < best->share ||
				      (s->heap[l].share == best->share && s->heap[l].link < best->link))) {
			m = l;
			best = &s->heap[l];
		}
		if (l + 1 < s->n_heap && (s->heap[l + 1].share < best->share ||
					  (s->heap[l + 1].share == best->share &&
					   s->heap[l + 1].link < best->link)))
			m = l + 1;
		if (m == i)
			break;
		s->heap[i] = s->heap[m];
		i = m;
	}
	if (s->n_heap)
		s->heap[i] = last;
	return top;
}

/* ---- the fluid model ---- */

static void advance(struct sim *s)
{
	int64_t now = ctl_now(s->ctl);
	double dt = (double)(now - s->last);
	size_t i;

	if (dt > 0)
		for (i = 0; i < s->n_act; i++)
			s->act[i]->rem -= s->act[i]->rate * dt;
	s->last = now;
}

static bool flow_usable(const struct sim *s, const struct sim_flow *sf)
{
	const struct flow *f = sf->f;

	if (f->path != PATH_OCS)
		return true;
	return s->out_of[f->src_rack] == (int32_t)f->dst_rack && s->usable[f->src_rack];
}

/* Max-min fair rates by progressive filling: repeatedly take the link with
 * the smallest fair share among the flows not yet fixed, fix them at it. */
static void compute_rates(struct sim *s)
{
	size_t i, k;

	s->recomputes++;
	for (i = 0; i < s->L; i++) {
		s->left[i] = s->cap[i];
		s->cnt[i] = 0;
		s->ver[i]++;
		s->off[i] = 0;
	}
	s->off[s->L] = 0;
	for (i = 0; i < s->n_act; i++) {
		struct sim_flow *sf = s->act[i];

		sf->rate = 0;
		sf->frozen = !flow_usable(s, sf) || sf->nlinks == 0;
		if (sf->frozen)
			continue;
		for (k = 0; k < (size_t)sf->nlinks; k++) {
			s->cnt[sf->links[k]]++;
			s->off[sf->links[k] + 1]++;
		}
	}
	for (i = 0; i < s->L; i++)
		s->off[i + 1] += s->off[i];
	s->lflows = xrealloc(s->lflows, (s->off[s->L] + 1) * sizeof(uint32_t));
	memset(s->fill, 0, s->L * sizeof(uint32_t));
	for (i = 0; i < s->n_act; i++) {
		struct sim_flow *sf = s->act[i];

		if (sf->frozen)
			continue;
		for (k = 0; k < (size_t)sf->nlinks; k++) {
			int l = sf->links[k];

			s->lflows[s->off[l] + s->fill[l]++] = (uint32_t)i;
		}
	}
	s->n_heap = 0;
	for (i = 0; i < s->L; i++)
		if (s->cnt[i])
			heap_push(s, s->left[i] / s->cnt[i], (int)i);
	while (s->n_heap) {
		struct heap_ent e = heap_pop(s);
		int l = e.link;
		double share;

		if (e.ver != s->ver[l] || !s->cnt[l])
			continue;
		share = s->left[l] / s->cnt[l];
		if (share < 0)
			share = 0;
		for (k = s->off[l]; k < s->off[l + 1]; k++) {
			struct sim_flow *sf = s->act[s->lflows[k]];
			int m;

			if (sf->frozen)
				continue;
			sf->rate = share;
			sf->frozen = true;
			for (m = 0; m < sf->nlinks; m++) {
				int l2 = sf->links[m];

				s->left[l2] -= share;
				s->cnt[l2]--;
				s->ver[l2]++;
				if (l2 != l && s->cnt[l2])
					heap_push(s, (s->left[l2] > 0 ? s->left[l2] : 0) / s->cnt[l2], l2);
			}
		}
	}
}

static void arm_completion(struct sim *s)
{
	double best = INFINITY;
	size_t i;

	for (i = 0; i < s->n_act; i++) {
		const struct sim_flow *sf = s->act[i];

		if (sf->nlinks == 0)
			best = 0; /* a same-host flow: done now */
		else if (sf->rate > 0) {
			double t = sf->rem / sf->rate;

			if (t < best)
				best = t;
		}
	}
	if (best == INFINITY) {
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
	if (!evtimer_armed(&s->rate_timer))
		evloop_at(ctl_loop(s->ctl), &s->rate_timer, ctl_now(s->ctl));
}

static void rate_fire(struct evloop *l, struct evtimer *t)
{
	struct sim *s = (struct sim *)((char *)t - offsetof(struct sim, rate_timer));

	(void)l;
	advance(s);
	compute_rates(s);
	arm_completion(s);
}

static void act_remove(struct sim *s, struct sim_flow *sf)
{
	size_t i = sf->slot;

	s->act[i] = s->act[--s->n_act];
	s->act[i]->slot = i;
}

/* Flows whose last bit is in: done. What is left may be a rounding error
 * of the float arithmetic (a billionth of the flow), never data. */
static void done_fire(struct evloop *l, struct evtimer *t)
{
	struct sim *s = (struct sim *)((char *)t - offsetof(struct sim, done_timer));
	struct sim_flow **done = NULL;
	size_t n = 0, cap = 0, i;

	(void)l;
	advance(s);
	for (i = 0; i < s->n_act; i++) {
		struct sim_flow *sf = s->act[i];

		if (sf->nlinks == 0 ||
		    (sf->rate > 0 && sf->rem <= 8e-9 * (double)sf->f->bytes + 1e-3)) {
			xgrow((void **)&done, &cap, n + 1, sizeof(*done));
			done[n++] = sf;
		}
	}
	for (i = 0; i < n; i++)
		act_remove(s, done[i]);
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
	struct task *task = c->t;

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
	s->usable[pt->port] = true;
	advance(s);
	rates_dirty(s);
	ctl_circuit_up(s->ctl, pt->port, (unsigned)s->out_of[pt->port]);
}

/* ---- backend ops ---- */

static int sim_init(struct backend *b, char *errbuf)
{
	struct sim *s = xcalloc(1, sizeof(*s));
	const struct topo *t = ctl_topo(b->ctl);
	unsigned i;

	(void)errbuf;
	*(struct sim **)b->priv = s;
	s->ctl = b->ctl;
	s->t = t;
	s->H = topo_n_hosts(t);
	s->R = t->racks;
	s->L = 2 * s->H + 3 * s->R;
	s->cap = xcalloc(s->L, sizeof(double));
	s->left = xcalloc(s->L, sizeof(double));
	s->cnt = xcalloc(s->L, sizeof(unsigned));
	s->ver = xcalloc(s->L, sizeof(unsigned));
	s->off = xcalloc(s->L + 1, sizeof(uint32_t));
	s->fill = xcalloc(s->L, sizeof(uint32_t));
	for (i = 0; i < s->H; i++)
		s->cap[L_HOST_UP(s, i)] = s->cap[L_HOST_DOWN(s, i)] = (double)t->host_rate / 1e9;
	for (i = 0; i < s->R; i++) {
		s->cap[L_TOR_UP(s, i)] = s->cap[L_TOR_DOWN(s, i)] = (double)t->uplink_rate / 1e9;
		s->cap[L_CIRCUIT(s, i)] = t->has_ocs ? (double)t->ocs_rate / 1e9 : 0;
	}
	s->out_of = xcalloc(s->R, sizeof(int32_t));
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
	s->last = ctl_now(s->ctl);
	return 0;
}

static void sim_destroy(struct backend *b)
{
	struct sim *s = SIM(b);
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n_act; i++) {
		s->act[i]->f->bpriv = NULL;
		free(s->act[i]);
	}
	free(s->act);
	free(s->cap);
	free(s->left);
	free(s->cnt);
	free(s->ver);
	free(s->off);
	free(s->fill);
	free(s->lflows);
	free(s->out_of);
	free(s->usable);
	free(s->pt);
	free(s->heap);
	free(s);
	*(struct sim **)b->priv = NULL;
}

static int sim_task_noop(struct backend *b, struct task *t)
{
	(void)b;
	(void)t;
	return 0;
}

static int sim_task_compute(struct backend *b, struct task *t, int64_t duration)
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

	sf->f = f;
	sf->rem = 8.0 * (double)f->bytes;
	switch (f->path) {
	case PATH_HOST:
		break;
	case PATH_RACK:
		sf->links[sf->nlinks++] = L_HOST_UP(s, f->src_host);
		sf->links[sf->nlinks++] = L_HOST_DOWN(s, f->dst_host);
		break;
	case PATH_EPS:
		sf->links[sf->nlinks++] = L_HOST_UP(s, f->src_host);
		sf->links[sf->nlinks++] = L_TOR_UP(s, f->src_rack);
		sf->links[sf->nlinks++] = L_TOR_DOWN(s, f->dst_rack);
		sf->links[sf->nlinks++] = L_HOST_DOWN(s, f->dst_host);
		break;
	case PATH_OCS:
		sf->links[sf->nlinks++] = L_HOST_UP(s, f->src_host);
		sf->links[sf->nlinks++] = L_CIRCUIT(s, f->src_rack);
		sf->links[sf->nlinks++] = L_HOST_DOWN(s, f->dst_host);
		break;
	}
	f->bpriv = sf;
	if (sf->nlinks == 0) {
		/* one host: no network; done now, after the caller returns */
		sf->rem = 0;
		sf->rate = 1;
	}
	advance(s);
	xgrow((void **)&s->act, &s->cap_act, s->n_act + 1, sizeof(*s->act));
	sf->slot = s->n_act;
	s->act[s->n_act++] = sf;
	if (sf->nlinks == 0)
		evloop_at(b->loop, &s->done_timer, ctl_now(b->ctl));
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

	if (!sf)
		return 0;
	rem = sf->rem - sf->rate * (double)(ctl_now(s->ctl) - s->last);
	return rem > 0 ? (uint64_t)ceil(rem / 8.0) : 0;
}

static void sim_progress(struct backend *b, char *buf, size_t len)
{
	struct sim *s = SIM(b);

	snprintf(buf, len, "flows %zu active, %llu rate computations", s->n_act,
		 (unsigned long long)s->recomputes);
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
	.progress = sim_progress,
};
