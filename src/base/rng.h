/* splitmix64 (Steele, Lea and Flood): a small, fast generator whose
 * outputs pass BigCrush, for choices that need to be fair, not secret:
 * --targets-order random's draw of each request's target (one state per
 * worker, seeded from the run's seed), and the tests' sample sets. Header
 * only: the request path inlines it. */
#ifndef VOLLEY_RNG_H
#define VOLLEY_RNG_H

#include <stdint.h>

/* The next output of the generator whose state is *state. */
static inline uint64_t rng_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A draw in [0, n), n >= 1: the high 64 bits of a 64-bit output times n,
 * uniform to within n / 2^64 (no division). */
static inline uint32_t rng_below(uint64_t *state, uint32_t n)
{
    return (uint32_t)(((unsigned __int128)rng_splitmix64(state) * n) >> 64);
}

#endif
