/* A hash map from a TCP 4-tuple to a pointer: the manifest's index and the
 * table of connections open in one capture. Open addressing with linear
 * probing and backward-shift deletion, so lookups on the per-packet path
 * touch one or two cache lines and deleting leaves no tombstones. */
#ifndef HYDE_TUPLEMAP_H
#define HYDE_TUPLEMAP_H

#include <stddef.h>
#include <stdint.h>

struct tuple {
	uint32_t a_ip, b_ip;
	uint16_t a_port, b_port;
};

struct tuplemap_slot {
	struct tuple k;
	void *v; /* NULL: empty slot */
};

struct tuplemap {
	struct tuplemap_slot *slots;
	size_t cap, n; /* cap a power of two */
};

void tuplemap_init(struct tuplemap *m);
void tuplemap_free(struct tuplemap *m);
/* The value for k, or NULL. */
void *tuplemap_get(const struct tuplemap *m, const struct tuple *k);
/* Set k to v (v must not be NULL); replaces an existing value. */
void tuplemap_put(struct tuplemap *m, const struct tuple *k, void *v);
/* Remove k; returns its value or NULL. */
void *tuplemap_del(struct tuplemap *m, const struct tuple *k);

#endif
