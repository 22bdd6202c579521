/* The circuit executor: turns a circuit scheduler's plan into matchings
 * for the backend, and tells the controller when an OCS flow may send.
 *
 * A reservation (coflow, src -> dst, [start, end)) sets the circuit at its
 * start: circuits sharing a port with it are torn down, and only the ports
 * that change pay delta (the backend's not-all-stop OCS). While it lasts,
 * the owning coflow's flows on the pair start as soon as the circuit is up.
 * Plans are made from scratch when demand changes (a coflow's OCS flows
 * appear or finish) and when the plan asks (Sunflow's T_plan, greedy's
 * period); what has started keeps its ports to its end (non-preemptive),
 * what has not is dropped and planned again. A scheduler that can (Sunflow
 * with one coflow) makes its plan a part at a time, the next part when the
 * circuits reach the last reservation made: the same plan, without the
 * cost of the parts a new plan replaces first. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/sort.h"
#include "core/util.h"
#include "ctl/ctl_int.h"

#define CX_CTL(t, field) \
	((struct ctl *)((char *)(t) - offsetof(struct ctl, cx) - offsetof(struct cexec, field)))

static void replan(struct ctl *c);

static void soon_fire(struct evloop *l, struct evtimer *t)
{
	(void)l;
	replan(CX_CTL(t, soon_timer));
}

static void replan_fire(struct evloop *l, struct evtimer *t)
{
	(void)l;
	replan(CX_CTL(t, replan_timer));
}

/* A plan's reservations in the order they start (then by ports). */
static inline bool resv_before(const struct cs_resv *x, const struct cs_resv *y)
{
	if (x->start != y->start)
		return x->start < y->start;
	if (x->src != y->src)
		return x->src < y->src;
	return x->dst < y->dst;
}

static inline bool resv_before_ctx(const void *ctx, const struct cs_resv *x,
				   const struct cs_resv *y)
{
	(void)ctx;
	return resv_before(x, y);
}

/* Stable, so that equal keys keep the planner's order: the order qsort
 * gave. A plan has thousands of reservations in hundreds of runs, and
 * qsort's call per comparison was most of the cost (3% of a scale-1
 * run). */
static HYDE_MSORT(resv_msort, struct cs_resv, const void *, resv_before_ctx)

void cexec_sort_resv(struct cs_resv *r, size_t n, struct cs_resv *tmp)
{
	resv_msort(r, n, tmp, NULL);
}

static void set_circuit(struct ctl *c, unsigned src, unsigned dst, bool *changed)
{
	struct cexec *x = &c->cx;
	int32_t old_dst = x->out_of[src], old_src = x->in_of[dst];

	if (old_dst == (int32_t)dst)
		return;
	if (old_dst >= 0) {
		x->in_of[old_dst] = -1;
		ctl_circuit_down(c, src, (unsigned)old_dst);
	}
	if (old_src >= 0) {
		x->out_of[old_src] = -1;
		x->up[old_src] = false;
		x->owner[old_src] = -1;
		ctl_circuit_down(c, (unsigned)old_src, dst);
	}
	x->out_of[src] = (int32_t)dst;
	x->in_of[dst] = (int32_t)src;
	x->up[src] = false;
	*changed = true;
}

static size_t plan_chunk(const struct ctl *c)
{
	return c->opts.plan_chunk ? c->opts.plan_chunk : CTL_PLAN_CHUNK;
}

/* Reservations [from, n) of the plan in the order they start. Under
 * HYDE_SIM_VERIFY they are held to the plan made whole at once (vplan). */
static void plan_sorted(struct cexec *x, size_t from)
{
	size_t i;

	xgrow((void **)&x->rtmp, &x->cap_rtmp, x->plan.n - from, sizeof(*x->rtmp));
	cexec_sort_resv(x->plan.r + from, x->plan.n - from, x->rtmp);
	if (!x->verify || !x->vplan_on)
		return;
	for (i = from; i < x->plan.n; i++) {
		const struct cs_resv *a = &x->plan.r[i], *b = &x->vplan.r[i];

		if (i >= x->vplan.n || a->coflow != b->coflow || a->src != b->src ||
		    a->dst != b->dst || a->start != b->start || a->end != b->end)
			fatalx("circuits: reservation %zu of the plan made a part at a time "
			       "(%u -> %u of coflow %u, %lld to %lld ns) is not the whole plan's",
			       i, a->src, a->dst, a->coflow, (long long)a->start, (long long)a->end);
	}
	if (!x->plan.more && (x->plan.n != x->vplan.n || x->plan.replan_at != x->vplan.replan_at))
		fatalx("circuits: the plan made a part at a time has %zu reservations and "
		       "re-plans at %lld ns, the whole plan %zu and %lld ns",
		       x->plan.n, (long long)x->plan.replan_at, x->vplan.n,
		       (long long)x->vplan.replan_at);
}

/* The plan's next part, before its last reservation so far has started;
 * once it is whole, its re-plan time is set, in the order it would have
 * had if armed with the plan (the sequence taken then). */
static void plan_more(struct ctl *c)
{
	struct cexec *x = &c->cx;
	size_t from = x->plan.n;
	int e = x->cs->more(&x->plan, plan_chunk(c));

	if (e)
		fatalx("circuits: %s cannot go on with its plan: %s", x->cs->name, strerror(-e));
	x->plan_resv += x->plan.n - from;
	x->plan_parts++;
	plan_sorted(x, from);
	if (!x->plan.more && x->plan.replan_at >= 0)
		evloop_at_seq(&c->loop, &x->replan_timer,
			      x->plan.replan_at > x->plan_now ? x->plan.replan_at : x->plan_now + 1,
			      x->replan_seq);
}

static void resv_fire(struct evloop *l, struct evtimer *t)
{
	struct ctl *c = CX_CTL(t, resv_timer);
	struct cexec *x = &c->cx;
	int64_t now = ctl_now(c);
	bool changed = false;
	size_t first = x->next, i;

	for (;;) {
		const struct cs_resv *r;

		if (x->next == x->plan.n && x->plan.more)
			plan_more(c);
		if (x->next == x->plan.n || x->plan.r[x->next].start > now)
			break;
		r = &x->plan.r[x->next++];

		set_circuit(c, r->src, r->dst, &changed);
		x->owner[r->src] = (int32_t)r->coflow;
		x->resv_end[r->src] = r->end;
	}
	if (changed) {
		int e = c->be.ops->ocs_set(&c->be, x->out_of);

		x->reconfigs++;
		if (e) {
			ctl_fail(c, "OCS: cannot set circuits: %s", strerror(-e));
			return;
		}
	}
	/* a reservation on a circuit that is already up sends at once */
	for (i = first; i < x->next; i++) {
		const struct cs_resv *r = &x->plan.r[i];

		if (x->up[r->src] && x->out_of[r->src] == (int32_t)r->dst)
			ctl_release_pair(c, r->coflow, r->src, r->dst);
	}
	if (x->next < x->plan.n)
		evloop_at(l, t, x->plan.r[x->next].start);
}

int cexec_init(struct ctl *c, const char *name, char *errbuf)
{
	struct cexec *x = &c->cx;
	unsigned R = c->t->racks, i;

	if (!c->t->has_eps && c->t->racks > 1 && (!name || !strcmp(name, "none"))) {
		errbuf_set(errbuf, "topology %s has no EPS: cross-rack flows need circuits (-C sunflow or greedy, not none)",
			   c->t->name);
		return -EINVAL;
	}
	if (!name || !strcmp(name, "none") || !c->t->has_ocs) {
		x->cs = NULL;
	} else {
		int r = csched_new(name, &x->cs, &x->cs_priv, errbuf);

		if (r)
			return r;
	}
	x->out_of = xcalloc(R, sizeof(int32_t));
	x->in_of = xcalloc(R, sizeof(int32_t));
	x->owner = xcalloc(R, sizeof(int32_t));
	x->up = xcalloc(R, sizeof(bool));
	x->up_epoch = xcalloc((size_t)R * R, sizeof(uint64_t));
	x->moving = xcalloc((size_t)R * R, sizeof(uint32_t));
	x->verify = getenv("HYDE_SIM_VERIFY") && strcmp(getenv("HYDE_SIM_VERIFY"), "0");
	x->resv_end = xcalloc(R, sizeof(int64_t));
	for (i = 0; i < R; i++)
		x->out_of[i] = x->in_of[i] = x->owner[i] = -1;
	evtimer_init(&x->resv_timer, resv_fire);
	evtimer_init(&x->replan_timer, replan_fire);
	evtimer_init(&x->soon_timer, soon_fire);
	cs_plan_reset(&x->plan);
	cs_plan_reset(&x->vplan);
	return 0;
}

void cexec_destroy(struct ctl *c)
{
	struct cexec *x = &c->cx;

	free(x->out_of);
	free(x->in_of);
	free(x->owner);
	free(x->up);
	free(x->up_epoch);
	free(x->moving);
	free(x->resv_end);
	free(x->d);
	free(x->busy);
	free(x->rtmp);
	free(x->rem);
	free(x->gat);
	free(x->rd);
	if (x->cs && getenv("HYDE_SIM_STATS"))
		fprintf(stderr,
			"circuits: %llu plans (%.1f pairs with demand, %.1f of them read again, %.1f only for any demand, %.1f demands, %.1f reservations made a plan, %.2f parts after its first), %llu reconfigurations\n",
			(unsigned long long)x->plans,
			x->plans ? (double)x->plan_live / (double)x->plans : 0.0,
			x->plans ? (double)x->plan_read / (double)x->plans : 0.0,
			x->plans ? (double)x->plan_skip / (double)x->plans : 0.0,
			x->plans ? (double)x->plan_demands / (double)x->plans : 0.0,
			x->plans ? (double)x->plan_resv / (double)x->plans : 0.0,
			x->plans ? (double)x->plan_parts / (double)x->plans : 0.0,
			(unsigned long long)x->reconfigs);
	cs_plan_free(&x->plan);
	cs_plan_free(&x->vplan);
	free(x->cs_priv);
	memset(x, 0, sizeof(*x));
}

void cexec_demand_changed(struct ctl *c)
{
	if (c->cx.cs && !evtimer_armed(&c->cx.soon_timer))
		evloop_at(&c->loop, &c->cx.soon_timer, ctl_now(c));
}

bool cexec_may_send(struct ctl *c, const struct flow *f)
{
	const struct cexec *x = &c->cx;

	return x->cs && x->out_of[f->src_rack] == (int32_t)f->dst_rack &&
	       x->up[f->src_rack] && x->owner[f->src_rack] == (int32_t)f->job &&
	       x->resv_end[f->src_rack] > ctl_now(c);
}

void cexec_circuit_up(struct ctl *c, unsigned src, unsigned dst)
{
	struct cexec *x = &c->cx;

	if (!x->cs || x->out_of[src] != (int32_t)dst)
		return;
	x->up[src] = true;
	x->up_epoch[(size_t)src * c->t->racks + dst]++;
	if (x->owner[src] >= 0 && x->resv_end[src] > ctl_now(c))
		ctl_release_pair(c, (uint32_t)x->owner[src], src, dst);
}

void ctl_pair_moving(struct ctl *c, unsigned src, unsigned dst, bool moving)
{
	struct cexec *x = &c->cx;
	size_t k = (size_t)src * c->t->racks + dst;

	if (!x->up_epoch)
		return;
	if (moving) {
		x->moving[k]++;
	} else if (x->moving[k]) {
		x->moving[k]--;
		x->up_epoch[k]++; /* what was kept of its flows is stale */
	}
}

/* Bits still to move on a pair, as the circuit will see them: waiting flows
 * whole, active ones as far as the backend can tell, and stretched to the
 * time the pair's hosts need. Sunflow assumes the circuit is the
 * bottleneck; a pair whose data sits on hosts whose own links are slower
 * than bw_o (few hosts, or one holding more than its share) needs its
 * reservation as long as the busiest source host's link takes, and its
 * destination hosts' together, or it ends with data left and the ports
 * flap. */
/* Every sum here is of whole bits under 2^53 (a pair's demand under a
 * petabyte), so a double holds it exactly and the order of the additions
 * does not matter: the active flows' bits, in all and per source host, can
 * be kept from one plan to the next and added to the waiting ones' (a sum
 * that might not be exact is not kept). They are kept while the fluid
 * model cannot have moved them: the circuit not up since the last plan. */
static bool pair_active_kept(const struct ctl *c, const struct ocs_pair *p)
{
	const struct cexec *x = &c->cx;
	size_t k = (size_t)p->src * c->t->racks + p->dst;

	return c->be.ops == &backend_sim && p->active_known &&
	       !(x->up[p->src] && x->out_of[p->src] == (int32_t)p->dst) &&
	       p->active_epoch == x->up_epoch[k] && !x->moving[k];
}

/* left: the active flows' bytes left, read with the plan's others
 * (plan_read_pairs); NULL: asked of the backend one at a time (one with no
 * flows_remaining) */
static double pair_bits_left(struct ctl *c, struct ocs_pair *p, const uint64_t *left)
{
	const struct cexec *x = &c->cx;
	double bits = 8.0 * (double)p->wait_bytes, bw = (double)c->t->ocs_rate;
	double hr = (double)c->t->host_rate, t, src_max = 0, act = 0, act_max = 0, *ah;
	unsigned H = c->t->hosts, h;
	bool up = x->up[p->src] && x->out_of[p->src] == (int32_t)p->dst;
	uint64_t epoch = x->up_epoch[(size_t)p->src * c->t->racks + p->dst];
	size_t i;

	if (pair_active_kept(c, p)) {
		/* the fluid model moves an OCS flow only while its circuit
		 * is up: what the active flows had left at the last plan */
		act = p->active_bits;
		act_max = p->active_src_max;
		if (x->verify) { /* the cache against the backend's count */
			double a = 0;

			for (i = 0; i < p->n_active; i++) {
				uint64_t rem = c->be.ops->flow_remaining(&c->be, p->active[i]);

				a += 8.0 * (double)(rem ? rem : 1);
			}
			if (a != act)
				fatalx("circuits: pair %u -> %u of job %u: %.0f bits kept since its "
				       "last plan, %.0f left at %lld ns",
				       p->src, p->dst, p->job, act, a, (long long)ctl_now(c));
		}
	} else {
		if (!p->act_host)
			p->act_host = xcalloc(H, sizeof(*p->act_host));
		for (h = 0; h < H; h++)
			p->act_host[h] = 0;
		for (i = 0; i < p->n_active; i++) {
			struct flow *f = p->active[i];
			double b;

			if (c->be.ops->flow_remaining) {
				uint64_t rem = left ? left[i] : c->be.ops->flow_remaining(&c->be, f);

				if (x->verify && left && rem != c->be.ops->flow_remaining(&c->be, f))
					fatalx("circuits: pair %u -> %u of job %u: flow %llu read with "
					       "the plan's others has %llu bytes left, alone %llu",
					       p->src, p->dst, p->job, (unsigned long long)f->id,
					       (unsigned long long)rem,
					       (unsigned long long)c->be.ops->flow_remaining(&c->be, f));

				/* not done yet: it still needs its circuit,
				 * however little the backend says is left */
				b = 8.0 * (double)(rem ? rem : 1);
			} else
				b = 8.0 * (double)f->bytes;
			act += b;
			p->act_host[f->src_host % H] += b;
		}
		for (h = 0; h < H; h++)
			if (p->act_host[h] > act_max)
				act_max = p->act_host[h];
		p->active_known = c->be.ops == &backend_sim && !up && bits + act < 0x1p53;
		p->active_bits = act;
		p->active_src_max = act_max;
		p->active_epoch = epoch;
	}
	ah = p->act_host;
	bits += act;
	if (!p->wait_bytes) {
		src_max = act_max; /* (no host has bits waiting) */
	} else if (p->n_active <= 1) {
		/* at most one active flow: its host's bits, the others'
		 * waiting ones (the most waiting on one host may be the
		 * active one's: adding its bits to its own host's covers
		 * that), without reading every host's */
		src_max = 8.0 * (double)ctl_pair_wait_max(c, p);
		if (p->n_active && 8.0 * (double)p->src_wait[p->active[0]->src_host % H] + act > src_max)
			src_max = 8.0 * (double)p->src_wait[p->active[0]->src_host % H] + act;
	} else {
		for (h = 0; h < H; h++)
			if (8.0 * (double)p->src_wait[h] + ah[h] > src_max)
				src_max = 8.0 * (double)p->src_wait[h] + ah[h];
	}
	/* the circuit's own time, unless a host's link needs longer (and
	 * then exactly the circuit's bits when it does not: exact ns) */
	t = bits / bw;
	/* (under fetch=rack a source is its rack's hosts together) */
	if (hr > 0 && src_max / (c->fetch_rack ? hr * H : hr) > t)
		t = src_max / (c->fetch_rack ? hr * H : hr);
	if (hr > 0 && p->ndst && bits / ((double)p->ndst * hr) > t)
		t = bits / ((double)p->ndst * hr);
	return t > bits / bw ? t * bw : bits;
}

/* What pair_bits_left said of the pair holds until it is touched
 * (ocspairs_touch) if it has no active flow (its bits are its waiting
 * flows', its hosts'); with active flows, while the backend keeps their
 * bits from its last plan (the fluid model, the circuit not up since)
 * and, from then on, the circuit stays down and unchanged; else it is
 * read at every plan. HYDE_SIM_VERIFY reads every pair every time and
 * checks what was kept. */
static void pair_kept(struct live_pair *lp, const struct ocs_pair *p)
{
	lp->circ = p->n_active && p->active_known;
	lp->fresh = p->n_active && !p->active_known;
	lp->epoch = p->active_epoch;
}

static bool pair_still(const struct ctl *c, const struct live_pair *lp)
{
	const struct cexec *x = &c->cx;
	size_t k = (size_t)lp->src * c->t->racks + lp->dst;

	return x->up_epoch[k] == lp->epoch && !x->moving[k] &&
	       !(x->up[lp->src] && x->out_of[lp->src] == (int32_t)lp->dst);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The jobs with demand in job order (the order the circuit scheduler sees
 * coflows in: ties in its choices follow it): those in order since the
 * last plan, without the ones whose pairs all ended, merged with those
 * listed since (sorted). A job's pairs come in the order they got demand,
 * not their records' (the schedulers' answers do not depend on it: a job
 * has one record per pair). */
static void live_jobs_in_order(struct ctl *c)
{
	uint32_t *v = c->live_jobs, *t;
	size_t i, a = 0, b, na, nb, k = 0;

	for (i = 0; i < c->live_sorted; i++)
		if (c->js[v[i]].n_lv)
			v[a++] = v[i];
		else
			c->js[v[i]].lv_listed = false;
	na = a;
	for (b = a; i < c->n_live_jobs; i++)
		if (c->js[v[i]].n_lv)
			v[b++] = v[i];
		else
			c->js[v[i]].lv_listed = false;
	nb = b - na;
	if (nb > 1)
		xqsort(v + na, nb, sizeof(*v), cmp_u32);
	if (na && nb && v[na - 1] > v[na]) {
		xgrow((void **)&c->live_tmp, &c->cap_live_tmp, na + nb, sizeof(*t));
		t = c->live_tmp;
		for (a = 0, b = na; a < na || b < na + nb;)
			t[k++] = b == na + nb || (a < na && v[a] < v[b]) ? v[a++] : v[b++];
		memcpy(v, t, (na + nb) * sizeof(*v));
	}
	c->n_live_jobs = c->live_sorted = na + nb;
}

static bool pair_busy(const struct ctl *c, uint32_t job, const struct live_pair *lp, int64_t now)
{
	const struct cexec *x = &c->cx;

	return x->owner[lp->src] == (int32_t)job && x->out_of[lp->src] == (int32_t)lp->dst &&
	       x->resv_end[lp->src] > now;
}

/* A plan's reads: the live pairs whose bits left may have changed since
 * the last plan, read again (lp->bits). On the Coflow-Benchmark a plan has
 * some 56,000 live pairs and reads 1,500 of them, of one active flow each:
 * read pair by pair, each was a chain of cache misses (the pair, its array
 * of active flows, the flow, the fluid model's flow, its class). Here each
 * link of the chain is asked of memory for every pair before the next
 * link is read: the pairs listed, then their active flows gathered (in
 * the order they are read), their bytes left read in one flows_remaining
 * call, and the pairs read, in the order listed. */
static void plan_read_pairs(struct ctl *c, int64_t now)
{
	struct cexec *x = &c->cx;
	bool gather = c->be.ops->flows_remaining && c->be.ops->flow_remaining;
	const uint64_t *got;
	size_t n = 0, nr = 0, i, j, k;

	for (j = 0; j < c->n_live_jobs; j++) {
		uint32_t job = c->live_jobs[j];
		struct jstate *js = &c->js[job];

		for (i = 0; i < js->n_lv; i++) {
			struct live_pair *lp = &js->lv[i];
			bool kept;

			if (lp->idx == LIVE_GONE)
				continue;
			/* a pair is read again only if something it depends
			 * on changed since (most wait: a plan on the
			 * Coflow-Benchmark has tens of thousands of pairs, a
			 * few hundred moving); verifying, every one is */
			kept = !lp->fresh && (!lp->circ || pair_still(c, lp));
			if (kept && !x->verify)
				continue;
			xgrow((void **)&x->rd, &x->cap_rd, nr + 1, sizeof(*x->rd));
			x->rd[nr++] = (struct plan_read){ lp, &js->pairs[lp->idx], job, kept, false, false };
			__builtin_prefetch(&js->pairs[lp->idx]);
		}
	}
	for (i = 0; i < nr; i++) {
		struct plan_read *r = &x->rd[i];

		/* reserved: the plan keeps its circuit to the reservation's
		 * end and asks only whether it has demand left, which active
		 * flows are; their bits are read at the first plan it is not
		 * reserved */
		r->reserved = !r->kept && !x->verify && r->p->n_active &&
			      pair_busy(c, r->job, r->lp, now);
		r->gather = gather && !r->reserved && r->p->n_active && !pair_active_kept(c, r->p);
		if (r->gather)
			__builtin_prefetch(r->p->active);
	}
	for (i = 0; i < nr; i++) {
		const struct ocs_pair *p = x->rd[i].p;

		if (!x->rd[i].gather)
			continue;
		xgrow((void **)&x->gat, &x->cap_gat, n + p->n_active, sizeof(*x->gat));
		for (k = 0; k < p->n_active; k++) {
			x->gat[n++] = p->active[k];
			__builtin_prefetch(&p->active[k]->src_host); /* (pair_bits_left's) */
		}
	}
	if (n) {
		xgrow((void **)&x->rem, &x->cap_rem, n, sizeof(*x->rem));
		c->be.ops->flows_remaining(&c->be, x->gat, n, x->rem);
	}
	got = x->rem;
	for (i = 0; i < nr; i++) {
		const struct plan_read *r = &x->rd[i];
		struct live_pair *lp = r->lp;
		double b;

		if (r->reserved) {
			lp->bits = 1;
			lp->fresh = true;
			lp->circ = false;
			r->p->active_known = false;
			x->plan_skip++;
			continue;
		}
		b = pair_bits_left(c, r->p, r->gather ? got : NULL);
		if (r->gather)
			got += r->p->n_active;
		x->plan_read++;
		if (r->kept && b != lp->bits)
			fatalx("circuits: pair %u -> %u of job %u: %.0f bits kept "
			       "since the last plan, %.0f left at %lld ns",
			       lp->src, lp->dst, r->job, lp->bits, b, (long long)now);
		lp->bits = b;
		pair_kept(lp, r->p);
	}
	if (n && got != x->rem + n)
		fatalx("circuits: the plan read %zu active flows' bytes at once, used %zu", n,
		       (size_t)(got - x->rem));
}

static void replan(struct ctl *c)
{
	struct cexec *x = &c->cx;
	int64_t now = ctl_now(c);
	struct cs_demand *d;
	struct cs_busy *busy;
	size_t nd = 0, nb = 0, i, j, k;
	struct cs_input in;

	if (!x->cs || c->failed)
		return;
	evloop_cancel(&c->loop, &x->soon_timer);
	evloop_cancel(&c->loop, &x->replan_timer);
	live_jobs_in_order(c);
	plan_read_pairs(c, now);
	/* room for every live pair at once (not a grow per pair: a plan on
	 * the Coflow-Benchmark reads tens of thousands) */
	xgrow((void **)&x->d, &x->cap_d, c->n_live + 1, sizeof(*x->d));
	d = x->d;
	busy = x->busy;
	for (j = 0; j < c->n_live_jobs; j++) {
		uint32_t job = c->live_jobs[j];
		struct jstate *js = &c->js[job];

		for (i = 0; i < js->n_lv; i++) {
			struct live_pair *lp = &js->lv[i];

			if (lp->idx == LIVE_GONE || lp->bits <= 0)
				continue;
			/* a started reservation keeps its circuit to its end */
			if (pair_busy(c, job, lp, now)) {
				xgrow((void **)&x->busy, &x->cap_busy, nb + 1, sizeof(*x->busy));
				busy = x->busy; /* (one per source port at most) */
				busy[nb++] = (struct cs_busy){ lp->src, lp->dst, job,
							       x->resv_end[lp->src] };
				continue;
			}
			d[nd++] = (struct cs_demand){ job, lp->src, lp->dst, lp->bits };
		}
	}
	/* ports whose reservation ended or whose demand is served are free */
	for (i = 0; i < c->t->racks; i++) {
		bool kept = false;

		for (k = 0; k < nb && !kept; k++)
			kept = busy[k].src == i;
		if (!kept) {
			x->owner[i] = -1;
			x->resv_end[i] = 0;
		}
	}
	in = (struct cs_input){
		.now = now,
		.ports = c->t->racks,
		.bw = (double)c->t->ocs_rate / 1e9,
		.delta = c->t->delta,
		.d = d,
		.n_d = nd,
		.unique = true, /* (one record per job and pair, jobs in order) */
		.busy = busy,
		.n_busy = nb,
		.out_of = x->out_of,
		.priv = x->cs_priv,
	};
	if (x->verify && x->cs->more) { /* the whole plan, to hold the parts to */
		x->cs->plan(&in, &x->vplan);
		xgrow((void **)&x->rtmp, &x->cap_rtmp, x->vplan.n, sizeof(*x->rtmp));
		cexec_sort_resv(x->vplan.r, x->vplan.n, x->rtmp);
		x->vplan_on = true;
	}
	in.chunk = x->cs->more && plan_chunk(c) != SIZE_MAX ? plan_chunk(c) : 0;
	x->cs->plan(&in, &x->plan);
	x->plans++;
	x->plan_live += c->n_live;
	x->plan_demands += nd;
	x->plan_resv += x->plan.n;
	plan_sorted(x, 0);
	x->next = 0;
	evloop_cancel(&c->loop, &x->resv_timer);
	if (x->plan.n)
		evloop_at(&c->loop, &x->resv_timer, x->plan.r[0].start);
	if (x->plan.more) { /* its re-plan time comes with its last part */
		x->replan_seq = evloop_reserve(&c->loop);
		x->plan_now = now;
	} else if (x->plan.replan_at >= 0)
		evloop_at(&c->loop, &x->replan_timer,
			  x->plan.replan_at > now ? x->plan.replan_at : now + 1);
	else if (nb) {
		int64_t until = busy[0].until;

		for (k = 1; k < nb; k++)
			if (busy[k].until < until)
				until = busy[k].until;
		evloop_at(&c->loop, &x->replan_timer, until);
	}
}
