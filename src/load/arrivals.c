/* The open model's arrival process (--arrivals): the gaps, each a pure
 * function of the run seed and its index, and the walk that sums them;
 * see arrivals.h. Built with -ffp-contract=off: every floating operation
 * below is rounded as written, on every machine. */
#include "arrivals.h"

#include "quote.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN UINT64_C(0x9e3779b97f4a7c15)

/* splitmix64's output function (Steele, Lea, Flood 2014). */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* The next output of the splitmix64 stream at *state. */
static uint64_t next64(uint64_t *state)
{
    return mix64(*state += GOLDEN);
}

/* A uniform draw in (0, 1]: 53 bits, never 0 (its log is finite). */
static double uniform_open0(uint64_t *state)
{
    return (double)((next64(state) >> 11) + 1) * 0x1p-53;
}

/* ln 2 in two parts: n * LN2_HI is exact for |n| < 2^11 (fdlibm's split). */
#define LN2_HI 6.93147180369123816490e-01
#define LN2_LO 1.90821492927058770002e-10

/* ln(x) for a finite x > 0, from basic operations only (libm's log may
 * round differently from one CPU to another). x = m 2^e with m in
 * [sqrt(1/2), sqrt(2)) (frexp is exact), and ln(m) = 2 atanh(f) with
 * f = (m - 1) / (m + 1), |f| < 0.1716: the series to f^23 leaves under
 * 1e-18 of ln(m). Within a few ulps of the true value. */
static double det_log(double x)
{
    int e;
    double m = frexp(x, &e);
    if (m < 0.70710678118654752440) {
        m *= 2;
        e--;
    }
    double f = (m - 1) / (m + 1), f2 = f * f;
    static const double inv_odd[] = {1.0 / 1,  1.0 / 3,  1.0 / 5,  1.0 / 7,  1.0 / 9,  1.0 / 11,
                                     1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21, 1.0 / 23};
    double p = inv_odd[11];
    for (int i = 10; i >= 0; i--)
        p = p * f2 + inv_odd[i];
    return (double)e * LN2_HI + ((double)e * LN2_LO + 2 * f * p);
}

/* e^x for x <= 0 (the boost's U^(1/K)), from basic operations only:
 * x = n ln2 + r with |r| <= ln2 / 2, e^r by its series to r^16 (the rest
 * under 1e-19), scaled by 2^n (ldexp is exact, or rounds a subnormal as
 * IEEE says). 0 below the smallest subnormal. */
static double det_exp(double x)
{
    if (x < -745.2)
        return 0;
    double n = floor(x * 1.44269504088896340736 + 0.5);
    double r = (x - n * LN2_HI) - n * LN2_LO;
    static const double inv[] = {1.0 / 1,  1.0 / 2,  1.0 / 3,  1.0 / 4,  1.0 / 5,  1.0 / 6,
                                 1.0 / 7,  1.0 / 8,  1.0 / 9,  1.0 / 10, 1.0 / 11, 1.0 / 12,
                                 1.0 / 13, 1.0 / 14, 1.0 / 15, 1.0 / 16};
    double p = 1;
    for (int i = 15; i >= 0; i--)
        p = 1 + p * r * inv[i];
    return ldexp(p, (int)n);
}

/* A standard normal draw: Marsaglia's polar method (a sqrt and a log,
 * both exact or deterministic; no sine). */
static double normal(uint64_t *state)
{
    for (;;) {
        double u = 2 * ((double)(next64(state) >> 11) * 0x1p-53) - 1;
        double v = 2 * ((double)(next64(state) >> 11) * 0x1p-53) - 1;
        double q = u * u + v * v;
        if (q > 0 && q < 1)
            return u * sqrt(-2 * det_log(q) / q);
    }
}

/* Gamma(a, 1) with a = K (K >= 1) or K + 1 (K < 1): Marsaglia and Tsang
 * (2000), d and c precomputed. Accepts about 95 % of tries or more. */
static double gamma_mt(const struct arrivals *a, uint64_t *state)
{
    double d = a->mt_d, c = a->mt_c;
    for (;;) {
        double x, v;
        do {
            x = normal(state);
            v = 1 + c * x;
        } while (v <= 0);
        v = v * v * v;
        double u = uniform_open0(state);
        double x2 = x * x;
        if (u < 1 - 0.0331 * x2 * x2)
            return d * v;
        if (det_log(u) < 0.5 * x2 + d * (1 - v + det_log(v)))
            return d * v;
    }
}

/* A gap in mean gaps into units, rounded to the nearest; a gap past 2^31
 * mean gaps (beyond any run) is held there. */
static uint64_t to_units(double g)
{
    if (!(g < 2147483648.0))
        g = 2147483648.0;
    return (uint64_t)(g * (double)ARRIVALS_ONE + 0.5);
}

uint64_t arrivals_gap(const struct arrivals *a, uint64_t k)
{
    /* Gap k's own substream: the k-th output of the seed's stream seeds a
     * stream of its own, so a gap that needs several draws (gamma's
     * rejections) takes none of another gap's. */
    uint64_t state = mix64(a->key + (k + 1) * GOLDEN);
    switch (a->kind) {
    case ARRIVALS_FIXED:
        break;
    case ARRIVALS_POISSON:
        return to_units(-det_log(uniform_open0(&state)));
    case ARRIVALS_GAMMA: {
        double g = gamma_mt(a, &state);
        if (a->shape < 1) /* Gamma(K) = Gamma(K + 1) U^(1/K) */
            g *= det_exp(det_log(uniform_open0(&state)) * a->inv_shape);
        return to_units(g * a->inv_shape); /* scale 1/K: mean 1 */
    }
    }
    return ARRIVALS_ONE;
}

void arrivals_walk_to(const struct arrivals *a, struct arrivals_walk *w, uint64_t k)
{
    if (a->kind == ARRIVALS_FIXED) {
        w->k = k;
        w->s = (unsigned __int128)k * ARRIVALS_ONE;
        return;
    }
    unsigned __int128 s = w->s;
    for (uint64_t i = w->k; i < k; i++)
        s += arrivals_gap(a, i);
    w->s = s;
    w->k = k;
}

void arrivals_init(struct arrivals *a, struct arrivals_spec spec, uint64_t seed)
{
    double shape = spec.kind == ARRIVALS_GAMMA ? spec.shape : 1;
    double boosted = shape < 1 ? shape + 1 : shape;
    double d = boosted - 1.0 / 3;
    *a = (struct arrivals){
        .kind = spec.kind,
        .shape = shape,
        /* apart from the scripts' seeds (seed_state), which start from the
         * same run seed */
        .key = mix64(seed ^ UINT64_C(0x6172726976616c73)),
        .mt_d = d,
        .mt_c = 1 / sqrt(9 * d),
        .inv_shape = 1 / shape,
    };
}

/* K as its shortest decimal that reads back to the same double. */
static void shape_text(double k, char *buf, size_t len)
{
    snprintf(buf, len, "%.15g", k);
    if (strtod(buf, NULL) != k)
        snprintf(buf, len, "%.17g", k);
}

int arrivals_parse(const char *spec, struct arrivals_spec *out, char *err, size_t errlen)
{
    char q[128];
    if (strcmp(spec, "fixed") == 0) {
        *out = (struct arrivals_spec){ARRIVALS_FIXED, 0};
        return 0;
    }
    if (strcmp(spec, "poisson") == 0) {
        *out = (struct arrivals_spec){ARRIVALS_POISSON, 1};
        return 0;
    }
    if (strncmp(spec, "gamma:", 6) == 0) {
        const char *v = spec + 6;
        char *end = NULL;
        double k = (*v >= '0' && *v <= '9') || *v == '.' ? strtod(v, &end) : NAN;
        if (!end || *end || !(k >= ARRIVALS_SHAPE_MIN && k <= ARRIVALS_SHAPE_MAX)) {
            snprintf(err, errlen, "--arrivals: \"%s\": K must be a number from 0.001 to 1000000 (gamma:0.5 is "
                     "burstier than Poisson, gamma:1 is Poisson, gamma:4 more regular)",
                     quote_printable(q, sizeof q, spec));
            return -1;
        }
        *out = (struct arrivals_spec){ARRIVALS_GAMMA, k};
        return 0;
    }
    snprintf(err, errlen, "--arrivals: \"%s\" is not fixed, poisson or gamma:K (e.g. gamma:0.5)",
             quote_printable(q, sizeof q, spec));
    return -1;
}

const char *arrivals_describe(struct arrivals_spec spec, char *buf, size_t len)
{
    char k[32];
    switch (spec.kind) {
    case ARRIVALS_FIXED:
        snprintf(buf, len, "fixed arrivals");
        break;
    case ARRIVALS_POISSON:
        snprintf(buf, len, "Poisson arrivals");
        break;
    case ARRIVALS_GAMMA:
        shape_text(spec.shape, k, sizeof k);
        snprintf(buf, len, "gamma(%s) arrivals", k);
        break;
    }
    return buf;
}

const char *arrivals_text(struct arrivals_spec spec, char *buf, size_t len)
{
    char k[32];
    switch (spec.kind) {
    case ARRIVALS_FIXED:
        snprintf(buf, len, "fixed");
        break;
    case ARRIVALS_POISSON:
        snprintf(buf, len, "poisson");
        break;
    case ARRIVALS_GAMMA:
        shape_text(spec.shape, k, sizeof k);
        snprintf(buf, len, "gamma:%s", k);
        break;
    }
    return buf;
}
