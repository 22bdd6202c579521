#include "config.h"

#include <stdlib.h>

#include "check_hyde.h"
#include "core/evloop.h"
#include "core/evq.h"
#include "core/rng.h"

struct ev {
	struct evq_node node;
	int id;
};

#define EV(n) ((struct ev *)((char *)(n) - offsetof(struct ev, node)))

START_TEST(order_and_ties)
{
	struct evq q;
	struct ev e[6];
	static const int64_t t[6] = { 30, 10, 20, 10, 10, 5 };
	static const int want[6] = { 5, 1, 3, 4, 2, 0 }; /* ties in insertion order */
	int i;

	evq_init(&q);
	for (i = 0; i < 6; i++) {
		e[i].id = i;
		evq_node_init(&e[i].node);
		evq_push(&q, &e[i].node, t[i]);
	}
	ck_assert_uint_eq(evq_len(&q), 6);
	for (i = 0; i < 6; i++) {
		struct evq_node *n = evq_pop(&q);

		ck_assert_ptr_nonnull(n);
		ck_assert_int_eq(EV(n)->id, want[i]);
		ck_assert(!evq_queued(n));
	}
	ck_assert_ptr_null(evq_pop(&q));
	evq_destroy(&q);
}
END_TEST

/* A place among ties reserved, then used: the node comes out where it
 * would have had it been queued when the place was taken (behind the
 * ties queued before, ahead of those queued after), wherever it was. */
START_TEST(reserved_place_among_ties)
{
	struct evq q;
	struct ev e[5];
	static const int want[5] = { 0, 4, 1, 2, 3 };
	uint64_t seq;
	int i;

	evq_init(&q);
	for (i = 0; i < 5; i++) {
		e[i].id = i;
		evq_node_init(&e[i].node);
	}
	evq_push(&q, &e[4].node, 99); /* queued, elsewhere */
	evq_push(&q, &e[0].node, 10);
	seq = evq_reserve(&q);
	evq_push(&q, &e[1].node, 10);
	evq_push(&q, &e[2].node, 10);
	evq_push(&q, &e[3].node, 10);
	evq_update_seq(&q, &e[4].node, 10, seq);
	ck_assert_uint_eq(evq_len(&q), 5);
	for (i = 0; i < 5; i++) {
		struct evq_node *n = evq_pop(&q);

		ck_assert_ptr_nonnull(n);
		ck_assert_int_eq(EV(n)->id, want[i]);
	}
	/* not queued before: the same */
	evq_push(&q, &e[0].node, 7);
	seq = evq_reserve(&q);
	evq_push(&q, &e[1].node, 7);
	evq_update_seq(&q, &e[2].node, 7, seq);
	ck_assert_int_eq(EV(evq_pop(&q))->id, 0);
	ck_assert_int_eq(EV(evq_pop(&q))->id, 2);
	ck_assert_int_eq(EV(evq_pop(&q))->id, 1);
	evq_destroy(&q);
}
END_TEST

/* Random pushes, removals and updates against a sorted reference. */
START_TEST(random_against_reference)
{
	enum { N = 2000 };
	struct ev *e = calloc(N, sizeof(*e));
	struct evq q;
	struct rng r;
	int64_t last_t = -1;
	uint64_t last_seq = 0;
	int i, live = 0;

	rng_seed(&r, 42);
	evq_init(&q);
	for (i = 0; i < N; i++) {
		e[i].id = i;
		evq_node_init(&e[i].node);
		evq_push(&q, &e[i].node, (int64_t)rng_below(&r, 100));
		live++;
	}
	for (i = 0; i < N; i += 3) {
		evq_remove(&q, &e[i].node);
		live--;
	}
	for (i = 1; i < N; i += 7)
		if (evq_queued(&e[i].node))
			evq_update(&q, &e[i].node, (int64_t)rng_below(&r, 100));
	evq_remove(&q, &e[0].node); /* not queued: nothing happens */
	ck_assert_uint_eq(evq_len(&q), (size_t)live);
	while (evq_len(&q)) {
		struct evq_node *n = evq_pop(&q);

		ck_assert(n->t > last_t || (n->t == last_t && n->seq > last_seq));
		last_t = n->t;
		last_seq = n->seq;
		live--;
	}
	ck_assert_int_eq(live, 0);
	evq_destroy(&q);
	free(e);
}
END_TEST

START_TEST(rng_reproducible)
{
	struct rng a, b;
	uint64_t counts[10] = { 0 };
	int i;

	rng_seed(&a, 1);
	rng_seed(&b, 1);
	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(rng_u64(&a), rng_u64(&b));
	/* the first output of seed 1 is fixed forever: files depend on it */
	rng_seed(&a, 1);
	ck_assert_uint_eq(rng_u64(&a), 0xb3f2af6d0fc710c5ULL);
	for (i = 0; i < 100000; i++)
		counts[rng_below(&a, 10)]++;
	for (i = 0; i < 10; i++)
		ck_assert_uint_gt(counts[i], 9500);
}
END_TEST

/* The horizon (--horizon): in virtual time every timer due at or before
 * `until` fires, a timer re-armed by one of them too, none later; the
 * clock ends at the horizon and the later timers stay queued. */
struct htimer {
	struct evtimer t;
	int64_t every; /* re-arm this much later (0: once) */
	int fired;
};

static void hfire(struct evloop *l, struct evtimer *t)
{
	struct htimer *h = (struct htimer *)t;

	h->fired++;
	if (h->every)
		evloop_at(l, t, l->now + h->every);
}

START_TEST(horizon_virtual)
{
	struct evloop l;
	struct htimer a = { .every = 300 }, b = { .every = 0 }, c = { .every = 0 };

	ck_assert_int_eq(evloop_init(&l, EVLOOP_VIRTUAL), 0);
	evtimer_init(&a.t, hfire);
	evtimer_init(&b.t, hfire);
	evtimer_init(&c.t, hfire);
	evloop_at(&l, &a.t, 0);	  /* 0, 300, 600, 900; not 1200 */
	evloop_at(&l, &b.t, 1000); /* at the horizon: fires */
	evloop_at(&l, &c.t, 1001); /* after it: does not */
	l.until = 1000;
	ck_assert_int_eq(evloop_run(&l), 0);
	ck_assert(l.reached);
	ck_assert_int_eq(a.fired, 4);
	ck_assert_int_eq(b.fired, 1);
	ck_assert_int_eq(c.fired, 0);
	ck_assert_int_eq(l.now, 1000);
	ck_assert(evtimer_armed(&c.t));
	ck_assert(evtimer_armed(&a.t));
	/* no horizon: the same loop runs to its end, not reached */
	a.every = 0;
	l.until = INT64_MAX;
	ck_assert_int_eq(evloop_run(&l), 0);
	ck_assert(!l.reached);
	ck_assert_int_eq(c.fired, 1);
	ck_assert_int_eq(l.now, 1200);
	evloop_destroy(&l);
}
END_TEST

Suite *evq_suite(void)
{
	Suite *s = suite_create("evq");
	TCase *tc = tcase_create("heap");

	tcase_add_test(tc, order_and_ties);
	tcase_add_test(tc, random_against_reference);
	tcase_add_test(tc, reserved_place_among_ties);
	tcase_add_test(tc, rng_reproducible);
	tcase_add_test(tc, horizon_virtual);
	suite_add_tcase(s, tc);
	return s;
}
