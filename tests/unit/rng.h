/* A seeded splitmix64 generator for tests: the same sequence on every run
 * and machine, so a failing sample set can be reproduced. One stream per
 * program (the state is file-static). */
#ifndef VOLLEY_TEST_RNG_H
#define VOLLEY_TEST_RNG_H

#include "../../src/base/rng.h"

#include <stdint.h>

static uint64_t rng_state = UINT64_C(0x5eed0f0011e7);

static inline uint64_t rng_next(void)
{
    return rng_splitmix64(&rng_state);
}

/* Uniform in [0, 1). */
static inline double rng_unit(void)
{
    return (double)(rng_next() >> 11) * 0x1p-53;
}

#endif
