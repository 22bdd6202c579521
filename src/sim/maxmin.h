/* Max-min fair rates by water-filling, in integers, kept up to date as
 * classes come and go.
 *
 * A class is a set of n flows crossing the same links (at most 4); its
 * level is the rate of each of its flows, in units of 2^-shift bit per ns
 * (an exact integer: sums of rates are exact, so the result does not
 * depend on the order anything is added in). Water-filling: raise every
 * unfrozen class together; a link whose unfrozen classes cannot all get
 * one more unit fires: it freezes them at its share, floor((capacity -
 * rates of the classes frozen before) / flows not frozen). Links whose
 * shares tie fire together.
 *
 * The answer is the unique assignment in which every class's level is
 * the lowest fire level of its links, a link's fire level being the first
 * level v at which floor((cap - F(v)) / U(v)) <= v, with F(v) the rates of
 * its classes below v and U(v) its flows at v or above (see maxmin.c). So
 * after a change only what can differ is recomputed: mm_solve sweeps the
 * levels upwards from the links the change touched, re-examining a link
 * only once a class on it has moved, and leaves the rest as it was. The
 * result is the same, bit for bit, as water-filling from scratch
 * (mm_waterfill), which tests and HYDE_SIM_VERIFY=1 check. */
#ifndef HYDE_MAXMIN_H
#define HYDE_MAXMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MM_NONE UINT64_MAX

struct mm_class {
	uint32_t links[4];
	unsigned nlinks;
	uint8_t st;   /* the solver's (with what the sweep reads, in front) */
	bool in;
	uint8_t user; /* its owner's: the solver never reads it */
	uint64_t n;	/* flows (> 0 while in the solver) */
	uint64_t lv;	/* level: rate of each flow, units */
	/* the solver's */
	uint64_t old;	 /* level when the solve began */
	uint32_t pos[4]; /* place in each link's list */
	uint32_t slot;	 /* place among all classes */
	uint32_t pslot;	 /* place among the classes to place, or UINT32_MAX */
	uint32_t epoch;	 /* the solve that last noted its old level */
};

struct mm;

/* caps: per link, units (at most 2^62). The solver keeps no pointer to
 * caps. */
struct mm *mm_new(unsigned n_links, const uint64_t *caps);
void mm_free(struct mm *m);

/* The class (links, nlinks and n set, n > 0) takes part; its level is 0
 * until the next solve. */
void mm_add(struct mm *m, struct mm_class *c);
/* It leaves (its level becomes 0). */
void mm_remove(struct mm *m, struct mm_class *c);
/* Its number of flows changes (n > 0). */
void mm_set_n(struct mm *m, struct mm_class *c, uint64_t n);
/* The link's capacity becomes cap units (at most 2^62): its classes'
 * levels follow at the next solve. */
void mm_set_cap(struct mm *m, unsigned link, uint64_t cap);
/* What the link carries now: its classes' levels x flows, units. */
uint64_t mm_link_load(const struct mm *m, unsigned link);
/* Whether it is full: what it carries leaves less than a unit per flow. */
bool mm_link_full(const struct mm *m, unsigned link);
/* Its capacity now, units. */
uint64_t mm_link_cap(const struct mm *m, unsigned link);
/* The level at which the link fired in the last solve (what it held its
 * classes at), or MM_NONE if it did not: a class at that level on it is
 * held by it. */
uint64_t mm_link_fired(const struct mm *m, unsigned link);
/* A class added since the last solve (level 0, pending) runs at once at
 * the level its links offer now, until the next solve puts it right: what
 * a link has left (its capacity less its classes' rates, provisional ones
 * included) over the class's flows, and no more than the level it held
 * its classes at in the last solve if it held any. The lowest of its
 * links' (0 where one has nothing left): it puts no link over its
 * capacity. Returns that level, which its links' loads now include. For
 * --rate-quantum's -B join_share; the solve's result does not depend on
 * it. */
uint64_t mm_provisional(struct mm *m, struct mm_class *c);
/* Anything to solve? */
bool mm_pending(const struct mm *m);
/* How many classes are in the solver. */
size_t mm_count(const struct mm *m);
/* Brings every level up to date. Returns the classes whose level changed
 * (their `old` field holds the level before), valid until the next call. */
struct mm_class *const *mm_solve(struct mm *m, size_t *n_changed);

/* Water-filling from scratch of cls[0..n) on the capacities left[] (per
 * link; what the classes take is subtracted): their levels in lv. The
 * reference mm_solve must agree with, and the ordered rate models' fill
 * of a tie group. lv_out[i]: the level of cls[i] (the classes are not
 * changed). */
void mm_waterfill(struct mm *m, struct mm_class *const *cls, size_t n, uint64_t *left,
		  uint64_t *lv_out);
/* Checks every level in the solver against mm_waterfill over all its
 * classes; false (and a message on stderr) if one differs. */
bool mm_verify(struct mm *m);

/* Figures: solves (and sweeps: a solve sweeps again when a link it
 * assumed would not fire does), links swept, classes examined and
 * re-levelled, links left out of a sweep. */
struct mm_stats {
	uint64_t solves, sweeps, links_swept, classes_changed, classes_examined, links_skipped;
};
void mm_get_stats(const struct mm *m, struct mm_stats *st);

#endif
