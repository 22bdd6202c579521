/* The event queue: a binary min-heap of timed events, intrusive (the node
 * lives in the caller's struct) and indexed (a node knows its slot, so it
 * can be removed or re-timed in O(log n)). Ties in time are broken by a
 * sequence number taken at insertion, so equal-time events come out in the
 * order they went in and runs are deterministic (as libuv's timers). */
#ifndef HYDE_EVQ_H
#define HYDE_EVQ_H

#include <stddef.h>
#include <stdint.h>

#define EVQ_NONE ((size_t)-1)

struct evq_node {
	int64_t t;    /* when, ns */
	uint64_t seq; /* insertion order, for ties */
	size_t slot;  /* position in the heap, EVQ_NONE when not queued */
};

struct evq {
	struct evq_node **heap;
	size_t len, cap;
	uint64_t next_seq;
};

void evq_init(struct evq *q);
void evq_destroy(struct evq *q);

static inline void evq_node_init(struct evq_node *n)
{
	n->slot = EVQ_NONE;
}

static inline int evq_queued(const struct evq_node *n)
{
	return n->slot != EVQ_NONE;
}

/* Queue n at time t (n must not be queued). */
void evq_push(struct evq *q, struct evq_node *n, int64_t t);
/* Earliest node, or NULL. */
static inline struct evq_node *evq_peek(const struct evq *q)
{
	return q->len ? q->heap[0] : NULL;
}
/* Remove and return the earliest node, or NULL. */
struct evq_node *evq_pop(struct evq *q);
/* Remove n if queued. */
void evq_remove(struct evq *q, struct evq_node *n);
/* Move n to time t (queued or not); it goes behind events already at t. */
void evq_update(struct evq *q, struct evq_node *n, int64_t t);
/* A place among ties taken now, for a node queued later by
 * evq_update_seq: it goes where it would have gone had it been queued
 * when the place was taken (numbers skipped change no order). */
static inline uint64_t evq_reserve(struct evq *q)
{
	return q->next_seq++;
}
void evq_update_seq(struct evq *q, struct evq_node *n, int64_t t, uint64_t seq);

static inline size_t evq_len(const struct evq *q)
{
	return q->len;
}

#endif
