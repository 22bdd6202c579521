/* The node managers' heartbeats (YARN): host h heartbeats at t0 + phase_h
 * + k x period, its phase drawn from the run's seed, and only then are
 * its free containers offered to the scheduler (ctl_node_heartbeat). The
 * hosts sorted by phase make a cycle, so the next heartbeat after any
 * instant is the next host in that cycle; a bitset over the cycle marks
 * the hosts with a free container, so that a host with nothing to offer
 * costs nothing (no event, no visit), and with nothing pending in the
 * whole cluster no heartbeat is even scheduled until a job becomes ready.
 * Ties (two hosts with one phase) go by a seeded draw, never by host
 * number. period 0: no heartbeats; every change offers every free
 * container at once, hosts in the cycle's order (coflow-only runs and
 * tests that want the scheduler alone). */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "ctl/ctl_int.h"

#define NODES_OF_TIMER(t) ((struct ctl *)((char *)(t) - offsetof(struct ctl, nodes.timer)))

static struct nodes *sort_nodes;

static int cmp_phase(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct nodes *n = sort_nodes;

	if (n->phase[x] != n->phase[y])
		return n->phase[x] < n->phase[y] ? -1 : 1;
	if (n->tie[x] != n->tie[y])
		return n->tie[x] < n->tie[y] ? -1 : 1;
	return (x > y) - (x < y);
}

static void heartbeat_fire(struct evloop *l, struct evtimer *tm);

void nodes_init(struct ctl *c)
{
	struct nodes *n = &c->nodes;
	unsigned H = topo_n_hosts(c->t), h;
	struct rng rng;

	n->period = c->opts.heartbeat;
	n->phase = xcalloc(H, sizeof(*n->phase));
	n->tie = xcalloc(H, sizeof(*n->tie));
	n->byrank = xcalloc(H, sizeof(*n->byrank));
	n->rank = xcalloc(H, sizeof(*n->rank));
	n->sphase = xcalloc(H + 1, sizeof(*n->sphase));
	n->words = (H + 63) / 64;
	n->armed = xcalloc(n->words + 1, sizeof(uint64_t));
	rng_seed2(&rng, c->opts.seed, 3);
	for (h = 0; h < H; h++) {
		n->phase[h] = n->period ? (int64_t)rng_below(&rng, (uint64_t)n->period) : 0;
		n->tie[h] = rng_u64(&rng);
		n->byrank[h] = h;
	}
	sort_nodes = n;
	xqsort(n->byrank, H, sizeof(uint32_t), cmp_phase);
	sort_nodes = NULL;
	for (h = 0; h < H; h++) {
		n->rank[n->byrank[h]] = h;
		n->sphase[h] = n->phase[n->byrank[h]];
	}
	evtimer_init(&n->timer, heartbeat_fire);
}

void nodes_free(struct ctl *c)
{
	struct nodes *n = &c->nodes;

	free(n->phase);
	free(n->tie);
	free(n->byrank);
	free(n->rank);
	free(n->sphase);
	free(n->armed);
}

int64_t nodes_phase(const struct ctl *c, unsigned host)
{
	return c->nodes.phase[host];
}

/* The first armed rank at or after r (H if none). */
static uint32_t next_armed(const struct nodes *n, uint32_t r, uint32_t H)
{
	size_t w = r / 64;
	uint64_t bits;

	if (r >= H)
		return H;
	bits = n->armed[w] & (~0ULL << (r % 64));
	for (;;) {
		if (bits) {
			uint32_t k = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));

			return k < H ? k : H;
		}
		if (++w >= n->words)
			return H;
		bits = n->armed[w];
	}
}

/* The first heartbeat of an armed host at or after `from` and at or
 * after the cursor (cycle, pos): the first heartbeat not fired yet; its
 * time in *when, its cycle and rank in (t_cycle, t_rank). False when no
 * host is armed. */
static bool next_beat(struct ctl *c, int64_t from, int64_t *when)
{
	struct nodes *n = &c->nodes;
	uint32_t H = topo_n_hosts(c->t), r, lo, hi;
	int64_t cycle;

	/* heartbeats before `from` were missed (no host armed, or nothing
	 * pending): the cursor skips them, never going back */
	if (n->cycle + n->period <= from) {
		n->cycle = c->t0 + (from - c->t0) / n->period * n->period;
		n->pos = 0;
	}
	lo = n->pos;
	hi = H;
	/* (after a heartbeat the next host is most often already due) */
	if (lo < hi && n->cycle + n->sphase[lo] >= from)
		hi = lo;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (n->cycle + n->sphase[mid] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	n->pos = lo;
	cycle = n->cycle;
	r = next_armed(n, n->pos, H);
	if (r == H) {
		r = next_armed(n, 0, H);
		if (r == H)
			return false; /* every host full: a released container re-arms */
		cycle += n->period;
	}
	n->t_cycle = cycle;
	n->t_rank = r;
	*when = cycle + n->sphase[r];
	return true;
}

/* Arm the timer at the next heartbeat (next_beat); none when no host is
 * armed. */
static void arm(struct ctl *c, int64_t from)
{
	struct nodes *n = &c->nodes;
	int64_t when;

	if (evtimer_armed(&n->timer))
		evloop_cancel(&c->loop, &n->timer);
	if (next_beat(c, from, &when))
		evloop_at(&c->loop, &n->timer, when);
}

/* A heartbeat, and the next ones in a row while nothing else comes
 * between (evloop_take: no trip through the queue, the same order) */
static void heartbeat_fire(struct evloop *l, struct evtimer *tm)
{
	struct ctl *c = NODES_OF_TIMER(tm);
	struct nodes *n = &c->nodes;
	int64_t when;

	do {
		n->cycle = n->t_cycle;
		n->pos = n->t_rank + 1;
		if (n->pos == topo_n_hosts(c->t)) {
			n->pos = 0;
			n->cycle += n->period;
		}
		if (c->failed)
			return;
		if (!ctl_anything_pending(c)) {
			n->sleeping = true; /* until a job becomes ready */
			return;
		}
		ctl_node_heartbeat(c, n->byrank[n->t_rank]);
		if (c->failed || evtimer_armed(&n->timer) || !next_beat(c, evloop_event_time(l), &when))
			return;
	} while (evloop_take(l, when));
	evloop_at(l, &n->timer, when);
}

/* period 0: every free container of every host, in the cycle's order */
static void offer_all(struct ctl *c)
{
	struct nodes *n = &c->nodes;
	uint32_t H = topo_n_hosts(c->t), r;

	if (!ctl_anything_pending(c))
		return;
	if (sched_host_mode(c->sched)) { /* NEAT's way: all hosts, one choice */
		uint32_t *hosts = xcalloc(H + 1, sizeof(uint32_t));
		size_t k = 0;

		for (r = next_armed(n, 0, H); r < H; r = next_armed(n, r + 1, H))
			hosts[k++] = n->byrank[r];
		ctl_offer_all_hosts(c, hosts, k);
		free(hosts);
		return;
	}
	for (r = next_armed(n, 0, H); r < H && !c->failed; r = next_armed(n, r + 1, H))
		ctl_node_heartbeat(c, n->byrank[r]);
}

static void pass_fire(struct evloop *l, struct evtimer *tm)
{
	(void)l;
	offer_all((struct ctl *)((char *)tm - offsetof(struct ctl, nodes.pass)));
}

void nodes_start(struct ctl *c)
{
	struct nodes *n = &c->nodes;
	unsigned H = topo_n_hosts(c->t), h;

	evtimer_init(&n->pass, pass_fire);
	n->cycle = c->t0;
	n->pos = 0;
	for (h = 0; h < H; h++) {
		char name[32];

		if (c->c->free_slots[h])
			n->armed[n->rank[h] / 64] |= 1ULL << (n->rank[h] % 64);
		/* when each host heartbeats: t0 + phase + k x period */
		topo_host_name(c->t, h, name, sizeof(name));
		if (n->period)
			ctl_event(c, "node_phase %s %" PRId64, name, n->phase[h]);
	}
	n->sleeping = true;
}

void nodes_wake(struct ctl *c)
{
	struct nodes *n = &c->nodes;

	if (!n->period) {
		if (!evtimer_armed(&n->pass))
			evloop_at(&c->loop, &n->pass, evloop_event_time(&c->loop));
		return;
	}
	n->sleeping = false;
	arm(c, evloop_event_time(&c->loop));
}

void nodes_slot_changed(struct ctl *c, unsigned host)
{
	struct nodes *n = &c->nodes;
	uint32_t r = n->rank[host];
	uint64_t bit = 1ULL << (r % 64);
	bool was = n->armed[r / 64] & bit;

	if (c->c->free_slots[host])
		n->armed[r / 64] |= bit;
	else
		n->armed[r / 64] &= ~bit;
	if (!n->period) {
		/* no heartbeats: a container freed is offered at once, and
		 * a task ended may have made others startable */
		if (c->c->free_slots[host])
			nodes_wake(c);
		return;
	}
	if (was || !c->c->free_slots[host] || n->sleeping)
		return;
	/* newly armed: it may heartbeat before the host the timer waits for
	 * (arm finds the first again; the cursor has not moved) */
	nodes_wake(c);
}
