/* A seeded random number generator (xoshiro256**, seeded by splitmix64), so
 * that a run, a generated workload or a placement is the same for the same
 * seed on every machine. Never rand(). */
#ifndef HYDE_RNG_H
#define HYDE_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
/* An independent stream derived from (seed, stream id). */
void rng_seed2(struct rng *r, uint64_t seed, uint64_t stream);
uint64_t rng_u64(struct rng *r);
/* Uniform in [0, n), n > 0, without modulo bias. */
uint64_t rng_below(struct rng *r, uint64_t n);
/* Uniform in [0, 1). */
double rng_unit(struct rng *r);
/* Exponential with the given mean. */
double rng_exp(struct rng *r, double mean);
/* Fisher-Yates shuffle of n uint32 values. */
void rng_shuffle_u32(struct rng *r, uint32_t *v, uint32_t n);

/* splitmix64 step: also a good 64-bit mixer for hashing. */
uint64_t splitmix64(uint64_t *state);

#endif
