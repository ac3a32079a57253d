/* Seeded random numbers for the trace generator: xoshiro256** (public-domain
 * algorithm by Blackman and Vigna), so one seed gives the same trace on every
 * machine and libc. */
#ifndef TRACEGEN_RNG_H
#define TRACEGEN_RNG_H

#include <math.h>
#include <stdint.h>

struct rng {
	uint64_t s[4];
};

static inline uint64_t rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return result;
}

/* splitmix64 expands the user's seed into the four state words. */
static inline void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		r->s[i] = z ^ (z >> 31);
	}
}

/* Uniform in [0, 1). */
static inline double rng_unit(struct rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

static inline double rng_uniform(struct rng *r, double lo, double hi) { return lo + (hi - lo) * rng_unit(r); }

static inline uint32_t rng_below(struct rng *r, uint32_t n) { return (uint32_t)(rng_unit(r) * n); }

static inline double rng_exponential(struct rng *r, double mean) { return -mean * log(1.0 - rng_unit(r)); }

/* Pareto with shape alpha and scale xm: the heavy tail of flow sizes. */
static inline double rng_pareto(struct rng *r, double alpha, double xm)
{
	return xm / pow(1.0 - rng_unit(r), 1.0 / alpha);
}

static inline double rng_normal(struct rng *r)
{
	double u1 = 1.0 - rng_unit(r), u2 = rng_unit(r);
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static inline double rng_lognormal(struct rng *r, double median, double sigma)
{
	return median * exp(sigma * rng_normal(r));
}

#endif
