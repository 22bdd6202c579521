#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/tuplemap.h"
#include "core/util.h"

static inline size_t tuple_hash(const struct tuple *k)
{
	uint64_t h = ((uint64_t)k->a_ip << 32 | k->b_ip) * 0x9e3779b97f4a7c15ULL;

	h ^= ((uint64_t)k->a_port << 16 | k->b_port) * 0xc2b2ae3d27d4eb4fULL;
	h ^= h >> 29;
	return (size_t)h;
}

static inline bool tuple_eq(const struct tuple *x, const struct tuple *y)
{
	return x->a_ip == y->a_ip && x->b_ip == y->b_ip &&
	       x->a_port == y->a_port && x->b_port == y->b_port;
}

void tuplemap_init(struct tuplemap *m)
{
	m->cap = 64;
	m->n = 0;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
}

void tuplemap_free(struct tuplemap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

void *tuplemap_get(const struct tuplemap *m, const struct tuple *k)
{
	size_t mask = m->cap - 1, i = tuple_hash(k) & mask;

	for (; m->slots[i].v; i = (i + 1) & mask)
		if (tuple_eq(&m->slots[i].k, k))
			return m->slots[i].v;
	return NULL;
}

static void grow(struct tuplemap *m)
{
	struct tuplemap_slot *old = m->slots;
	size_t i, oldcap = m->cap;

	m->cap *= 2;
	m->n = 0;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	for (i = 0; i < oldcap; i++)
		if (old[i].v)
			tuplemap_put(m, &old[i].k, old[i].v);
	free(old);
}

void tuplemap_put(struct tuplemap *m, const struct tuple *k, void *v)
{
	size_t mask, i;

	if ((m->n + 1) * 4 > m->cap * 3)
		grow(m);
	mask = m->cap - 1;
	for (i = tuple_hash(k) & mask; m->slots[i].v; i = (i + 1) & mask)
		if (tuple_eq(&m->slots[i].k, k)) {
			m->slots[i].v = v;
			return;
		}
	m->slots[i].k = *k;
	m->slots[i].v = v;
	m->n++;
}

void *tuplemap_del(struct tuplemap *m, const struct tuple *k)
{
	size_t mask = m->cap - 1, i = tuple_hash(k) & mask, j;
	void *v;

	for (; m->slots[i].v; i = (i + 1) & mask)
		if (tuple_eq(&m->slots[i].k, k))
			break;
	if (!m->slots[i].v)
		return NULL;
	v = m->slots[i].v;
	/* Backward shift: move later members of the probe run into the
	 * hole when their home slot does not lie between the hole and them. */
	for (j = (i + 1) & mask; m->slots[j].v; j = (j + 1) & mask) {
		size_t home = tuple_hash(&m->slots[j].k) & mask;

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].v = NULL;
	m->n--;
	return v;
}
