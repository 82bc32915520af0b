/* Seeds for the scripts' math.random. A run has one seed (--seed, a
 * script's options() seed, or drawn from the kernel), saved in the JSON;
 * each Lua state of the run gets its own seed made from it and its index,
 * so threads draw different sequences and the same run seed replays a
 * run's choices exactly. */
#ifndef VOLLEY_SEED_H
#define VOLLEY_SEED_H

#include <stdint.h>

/* The largest run seed: 2^53 - 1, so that a seed is exact as a JSON
 * number and as a Lua number. */
#define SEED_MAX ((UINT64_C(1) << 53) - 1)

/* A new run seed in 0..SEED_MAX, from getrandom (the clock and the pid if
 * that fails). */
uint64_t seed_draw(void);

/* The math.randomseed argument of Lua state index (0: the main state;
 * i + 1: worker i's) in a run with run_seed. A whole number below 2^50:
 * LuaJIT seeds from a double d through d * pi + e, which keeps such numbers
 * apart (larger ones can round together), so different indexes of one run
 * always get different sequences. The run seed goes through splitmix64
 * and the index through a bijection of 50-bit numbers, so neighbouring
 * seeds or indexes give unrelated sequences. */
double seed_state(uint64_t run_seed, unsigned index);

/* The index whose seed_state seeds a flow's users' own generators (one
 * per user, from this seed and the user's id): no Lua state's. */
#define SEED_USERS 0xffffffffu

#endif
