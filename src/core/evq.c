#include "config.h"

#include <stdlib.h>

#include "evq.h"
#include "util.h"

void evq_init(struct evq *q)
{
	q->heap = NULL;
	q->len = q->cap = 0;
	q->next_seq = 0;
}

void evq_destroy(struct evq *q)
{
	size_t i;

	for (i = 0; i < q->len; i++)
		q->heap[i]->slot = EVQ_NONE;
	free(q->heap);
	evq_init(q);
}

static inline int before(const struct evq_node *a, const struct evq_node *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static inline void put(struct evq *q, size_t i, struct evq_node *n)
{
	q->heap[i] = n;
	n->slot = i;
}

static void sift_up(struct evq *q, size_t i)
{
	struct evq_node *n = q->heap[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!before(n, q->heap[parent]))
			break;
		put(q, i, q->heap[parent]);
		i = parent;
	}
	put(q, i, n);
}

static void sift_down(struct evq *q, size_t i)
{
	struct evq_node *n = q->heap[i];

	for (;;) {
		size_t l = 2 * i + 1, best = i;
		struct evq_node *bn = n;

		if (l < q->len && before(q->heap[l], bn)) {
			best = l;
			bn = q->heap[l];
		}
		if (l + 1 < q->len && before(q->heap[l + 1], bn)) {
			best = l + 1;
			bn = q->heap[l + 1];
		}
		if (best == i)
			break;
		put(q, i, bn);
		i = best;
	}
	put(q, i, n);
}

void evq_push(struct evq *q, struct evq_node *n, int64_t t)
{
	if (q->len == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 64;
		q->heap = xrealloc(q->heap, q->cap * sizeof(*q->heap));
	}
	n->t = t;
	n->seq = q->next_seq++;
	put(q, q->len++, n);
	sift_up(q, n->slot);
}

void evq_remove(struct evq *q, struct evq_node *n)
{
	size_t i = n->slot;
	struct evq_node *last;

	if (i == EVQ_NONE)
		return;
	n->slot = EVQ_NONE;
	last = q->heap[--q->len];
	if (i == q->len)
		return;
	put(q, i, last);
	if (i > 0 && before(last, q->heap[(i - 1) / 2]))
		sift_up(q, i);
	else
		sift_down(q, i);
}

struct evq_node *evq_pop(struct evq *q)
{
	struct evq_node *n = evq_peek(q);

	if (n)
		evq_remove(q, n);
	return n;
}

void evq_update(struct evq *q, struct evq_node *n, int64_t t)
{
	evq_remove(q, n);
	evq_push(q, n, t);
}

void evq_update_seq(struct evq *q, struct evq_node *n, int64_t t, uint64_t seq)
{
	evq_remove(q, n);
	evq_push(q, n, t);
	n->seq = seq; /* earlier than any taken since: it can only move up */
	sift_up(q, n->slot);
}
