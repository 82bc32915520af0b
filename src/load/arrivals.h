/* --arrivals fixed|poisson|gamma:K: the arrival process of the open model
 * (-R), one global sequence for the whole run.
 *
 * Arrivals are placed in "operational time": arrival k (0, 1, 2, ...) is at
 * s_k = g_0 + g_1 + ... + g_(k-1) (s_0 = 0), a sum of gaps of mean 1, and is
 * due where the rate's cumulative N(t) reaches s_k (t0 + s_k / R for a
 * constant rate; --stages' curve inverted otherwise). fixed: every gap is
 * 1 (s_k = k, the exact schedule of -R); poisson: Exp(1) gaps; gamma:K:
 * Gamma(shape K, scale 1/K) gaps (variance 1/K: below 1 burstier than
 * Poisson, above 1 more regular; gamma:1 is Poisson).
 *
 * Gap k is a pure function of the run seed and k: nothing depends on which
 * process, thread or order computes it, so shards and threads that take
 * the lanes k mod (W x N) of one sequence take exactly the one-process
 * run's arrivals. Two things keep it bit-identical across processes and
 * machines: the sampler uses only IEEE-754 basic operations (its own log
 * and exp; this file is built with -ffp-contract=off, see CMakeLists.txt),
 * never libm's, whose results may differ between CPUs (glibc picks its
 * FMA code at run time); and each gap is rounded once to a fixed-point
 * count of ARRIVALS_ONE-ths of a mean gap, so that s_k is an exact sum of
 * integers: no rounding accumulates, whatever the order of the additions. */
#ifndef VOLLEY_ARRIVALS_H
#define VOLLEY_ARRIVALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The unit of operational time: one mean gap is 2^32 of them. */
#define ARRIVALS_ONE (UINT64_C(1) << 32)

/* gamma:K's range: below 0.001 nearly every gap rounds to nothing and one
 * in a thousand holds the run; above 1e6 the process is fixed's. */
#define ARRIVALS_SHAPE_MIN 0.001
#define ARRIVALS_SHAPE_MAX 1000000.0

enum arrivals_kind {
    ARRIVALS_FIXED,   /* the default: s_k = k */
    ARRIVALS_POISSON, /* Exp(1) gaps */
    ARRIVALS_GAMMA,   /* Gamma(K, 1/K) gaps */
};

/* --arrivals as given: what the options, the JSON and the merge compare. */
struct arrivals_spec {
    enum arrivals_kind kind;
    double shape; /* gamma's K; 1 for poisson, 0 for fixed */
};

/* The process ready to draw: a spec, the run seed's key and the sampler's
 * constants. Read-only once made; shared by the workers. */
struct arrivals {
    enum arrivals_kind kind;
    double shape;     /* K */
    uint64_t key;     /* from the run seed (arrivals_init) */
    double mt_d, mt_c; /* Marsaglia-Tsang's d = a - 1/3 and c = 1 / sqrt(9 d), a = K (K + 1 below 1) */
    double inv_shape; /* 1 / K: the boost below 1 and the scale */
};

/* Where a walk along the sequence is: s (in ARRIVALS_ONE units) of arrival k. */
struct arrivals_walk {
    uint64_t k;
    unsigned __int128 s;
};

/* "fixed", "poisson" or "gamma:K" (0.001 <= K <= 1e6, a decimal number)
 * into *out. Returns 0, or -1 with err naming --arrivals and the value. */
int arrivals_parse(const char *spec, struct arrivals_spec *out, char *err, size_t errlen);

/* The process of spec under run seed `seed` into *a. */
void arrivals_init(struct arrivals *a, struct arrivals_spec spec, uint64_t seed);

/* Not fixed: the due times come from a walk, not from k alone. */
static inline bool arrivals_random(struct arrivals_spec spec)
{
    return spec.kind != ARRIVALS_FIXED;
}

/* Gap k (between arrivals k and k + 1) in ARRIVALS_ONE units: a pure
 * function of the process (its seed) and k. */
uint64_t arrivals_gap(const struct arrivals *a, uint64_t k);

/* Moves w (at arrival w->k, from {0, 0} at the start) forward to arrival
 * k >= w->k, adding every gap in between: its cost is k - w->k gaps. */
void arrivals_walk_to(const struct arrivals *a, struct arrivals_walk *w, uint64_t k);

/* A sum of units as mean gaps (a double, for a rate curve's inverse). */
static inline double arrivals_units(unsigned __int128 s)
{
    return (double)s / (double)ARRIVALS_ONE;
}

/* How the text report names the process: "Poisson arrivals",
 * "gamma(0.5) arrivals", "fixed arrivals", into buf. Returns buf. */
const char *arrivals_describe(struct arrivals_spec spec, char *buf, size_t len);

/* The JSON's and --arrivals' word: "fixed", "poisson", "gamma:0.5", into
 * buf (arrivals_parse reads it back to the same spec). Returns buf. */
const char *arrivals_text(struct arrivals_spec spec, char *buf, size_t len);

#endif
