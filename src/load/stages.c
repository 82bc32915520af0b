/* The load's curve over the run (--stages); see stages.h. Times inside are
 * seconds (doubles) from the run's start: a run of hours in ns keeps its
 * nanoseconds in a double's 53 bits. */
#include "stages.h"

#include "units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int stages_parse(struct stages *st, const char *spec, double start, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    st->start = start;
    const char *p = spec;
    if (!*p) {
        snprintf(err, errlen, "--stages: empty (give DURATION:TARGET[,DURATION:TARGET...], e.g. 30s:200,1m:200)");
        return -1;
    }
    while (*p) {
        size_t len = strcspn(p, ",");
        char one[64];
        if (len == 0 || len >= sizeof one) {
            snprintf(err, errlen, "--stages: \"%.*s\": expected DURATION:TARGET, e.g. 30s:200", (int)(len < 40 ? len : 40), p);
            return -1;
        }
        memcpy(one, p, len);
        one[len] = '\0';
        if (st->n == STAGES_MAX) {
            snprintf(err, errlen, "--stages: more than %d stages", STAGES_MAX);
            return -1;
        }
        char *colon = strchr(one, ':');
        struct stage *sg = &st->s[st->n];
        char *end = NULL;
        if (colon)
            *colon = '\0';
        if (!colon || units_parse_duration(one, &sg->dur_ns) < 0 || sg->dur_ns <= 0) {
            if (colon)
                *colon = ':';
            snprintf(err, errlen, "--stages: \"%s\": %s", one,
                     colon ? "the duration before ':' needs a unit and must be above 0 (e.g. 500ms, 30s, 2m)"
                           : "expected DURATION:TARGET, e.g. 30s:200");
            return -1;
        }
        double v = strtod(colon + 1, &end);
        if (end == colon + 1 || *end || !(v >= 0 && v <= STAGES_MAX_TARGET) || v != floor(v)) {
            *colon = ':';
            snprintf(err, errlen, "--stages: \"%s\": the target after ':' must be a whole number from 0 to %d", one,
                     STAGES_MAX_TARGET);
            return -1;
        }
        sg->target = v;
        st->n++;
        p += len;
        if (*p == ',' && !*++p) {
            snprintf(err, errlen, "--stages: ends with ','");
            return -1;
        }
    }
    double prev = start, cum = 0;
    int64_t at = 0;
    for (size_t i = 0; i < st->n; i++) {
        st->cum[i] = cum;
        st->at[i] = at;
        double d = (double)st->s[i].dur_ns / 1e9;
        cum += (prev + st->s[i].target) / 2 * d; /* a trapezoid */
        at += st->s[i].dur_ns;
        prev = st->s[i].target;
        if (at > INT64_C(86400) * 1000000000 * 30) {
            snprintf(err, errlen, "--stages: longer than 30 days in all");
            return -1;
        }
    }
    st->cum[st->n] = cum;
    st->at[st->n] = at;
    st->total_ns = at;
    return 0;
}

/* The stage holding t (ns, 0 <= t), n when at or past the end. */
static size_t stage_of(const struct stages *st, int64_t t)
{
    size_t i = 0;
    while (i < st->n && t >= st->at[i + 1])
        i++;
    return i;
}

static double from_value(const struct stages *st, size_t i)
{
    return i == 0 ? st->start : st->s[i - 1].target;
}

double stages_value(const struct stages *st, int64_t t)
{
    if (t <= 0)
        return st->start;
    size_t i = stage_of(st, t);
    if (i == st->n)
        return st->n ? st->s[st->n - 1].target : st->start;
    double v0 = from_value(st, i), v1 = st->s[i].target;
    return v0 + (v1 - v0) * (double)(t - st->at[i]) / (double)st->s[i].dur_ns;
}

double stages_integral(const struct stages *st, int64_t t)
{
    if (t <= 0)
        return 0;
    size_t i = stage_of(st, t);
    if (i == st->n)
        return st->cum[st->n];
    double tau = (double)(t - st->at[i]) / 1e9;
    return st->cum[i] + (from_value(st, i) + stages_value(st, t)) / 2 * tau;
}

int64_t stages_due(const struct stages *st, uint64_t k)
{
    return stages_due_at(st, (double)k);
}

int64_t stages_due_at(const struct stages *st, double kd)
{
    if (kd <= 0)
        return 0;
    if (kd > st->cum[st->n])
        return INT64_MAX;
    size_t i = 0; /* the stage in which N reaches k: cum[i] < k <= cum[i + 1] */
    while (i + 1 < st->n && st->cum[i + 1] < kd)
        i++;
    double r0 = from_value(st, i), r1 = st->s[i].target, d = (double)st->s[i].dur_ns / 1e9;
    double a = (r1 - r0) / d, x = kd - st->cum[i];
    /* N = cum + r0 tau + a tau^2 / 2 = k: tau = 2x / (r0 + sqrt(r0^2 + 2 a x)),
     * the form without cancellation for a rising, flat or falling rate. */
    double disc = r0 * r0 + 2 * a * x;
    double den = r0 + sqrt(disc > 0 ? disc : 0);
    double tau = x <= 0 ? 0 : den > 0 ? 2 * x / den : d;
    if (tau > d)
        tau = d;
    double t = (double)st->at[i] + ceil(tau * 1e9);
    return t >= (double)INT64_MAX ? INT64_MAX : (int64_t)t;
}

uint64_t stages_arrivals(const struct stages *st)
{
    /* N(end) rounded down, corrected by the due times themselves (the
     * same ceil as the schedule uses) */
    double n = floor(st->cum[st->n]);
    uint64_t k = n > 0 ? (uint64_t)n : 0;
    while (k > 0 && stages_due(st, k) >= st->total_ns)
        k--;
    while (stages_due(st, k + 1) < st->total_ns)
        k++;
    return stages_due(st, 0) < st->total_ns ? k + 1 : 0; /* arrivals 0..k */
}

double stages_peak(const struct stages *st)
{
    double p = st->start;
    for (size_t i = 0; i < st->n; i++)
        if (st->s[i].target > p)
            p = st->s[i].target;
    return p;
}

uint32_t stages_share(double v, uint32_t first, uint32_t stride)
{
    uint64_t n = v > 0 ? (uint64_t)floor(v) : 0;
    return (uint32_t)(n / stride + (first < n % stride));
}
