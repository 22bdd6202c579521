#include "config.h"

#include <math.h>

#include "rng.h"

uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

void rng_seed2(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t mix = seed ^ (stream * 0xd1342543de82ef95ULL);

	rng_seed(r, splitmix64(&mix));
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rng_u64(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t rng_below(struct rng *r, uint64_t n)
{
	/* Lemire's multiply-shift with rejection of the biased low range */
	uint64_t x = rng_u64(r);
	unsigned __int128 m = (unsigned __int128)x * n;
	uint64_t l = (uint64_t)m;

	if (l < n) {
		uint64_t t = -n % n;

		while (l < t) {
			x = rng_u64(r);
			m = (unsigned __int128)x * n;
			l = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

double rng_unit(struct rng *r)
{
	return (double)(rng_u64(r) >> 11) * 0x1.0p-53;
}

double rng_exp(struct rng *r, double mean)
{
	return -mean * log1p(-rng_unit(r));
}

void rng_shuffle_u32(struct rng *r, uint32_t *v, uint32_t n)
{
	uint32_t i, j, t;

	for (i = n; i > 1; i--) {
		j = (uint32_t)rng_below(r, i);
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}
