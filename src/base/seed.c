/* Run seeds and the seed of each Lua state (seed.h). */
#include "seed.h"

#include "clock.h"

#include <sys/random.h>
#include <unistd.h>

#define MASK50 ((UINT64_C(1) << 50) - 1)

/* splitmix64's output function (Steele, Lea, Flood 2014). */
static uint64_t splitmix64(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

uint64_t seed_draw(void)
{
    uint64_t v;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
        v = splitmix64((uint64_t)clock_now_ns() ^ ((uint64_t)getpid() << 32));
    return v & SEED_MAX;
}

/* A bijection of 0..2^50-1: xor-shifts and odd multipliers, each
 * invertible modulo 2^50. */
static uint64_t mix50(uint64_t x)
{
    x ^= x >> 26;
    x = (x * UINT64_C(0x2545f4914f6cdd1d)) & MASK50;
    x ^= x >> 23;
    x = (x * UINT64_C(0x9e3779b97f4a7c15)) & MASK50;
    return x ^ (x >> 25);
}

double seed_state(uint64_t run_seed, unsigned index)
{
    uint64_t base = splitmix64(run_seed) >> 14;
    return (double)mix50((base + index) & MASK50);
}
