/* --stages T:N[,T:N...]: a load that changes over the run. N is the target
 * at the end of each stage (requests per second with -R, connections
 * without), reached linearly from the one before (the first from the
 * start value: -R's or -c's when given, else 0); the run lasts the sum of
 * the stages.
 *
 * In the open model the arrivals follow the integral of the rate curve:
 * with N(t) the arrivals the curve asks for by t (seconds from the start),
 * arrival k (0, 1, 2, ...) is due at the first t where N(t) >= k, computed
 * from k each time (never accumulated): no drift, and no burst at a stage's
 * edge, where the curve is continuous. A constant curve gives k / rate,
 * the schedule of a plain -R. */
#ifndef VOLLEY_STAGES_H
#define VOLLEY_STAGES_H

#include <stddef.h>
#include <stdint.h>

#define STAGES_MAX 100             /* stages in one --stages */
#define STAGES_MAX_TARGET 100000000 /* the highest N (-R's limit) */

struct stage {
    int64_t dur_ns; /* > 0 */
    double target;  /* at the stage's end */
};

struct stages {
    size_t n;
    struct stage s[STAGES_MAX];
    double start;     /* the value at t = 0 */
    int64_t total_ns; /* the sum of the stages */
    double cum[STAGES_MAX + 1]; /* N at each stage's start (cum[n]: at the end) */
    int64_t at[STAGES_MAX + 1]; /* each stage's start, ns from the run's start */
};

/* Parses spec ("30s:200,2m:200,30s:0"; durations with a unit: ms, s, m, h)
 * into *st, starting from start. Returns 0, or -1 with err naming the
 * offending stage ("--stages: \"2x:100\": ..."). */
int stages_parse(struct stages *st, const char *spec, double start, char *err, size_t errlen);

/* The target at t ns from the start (the last stage's beyond the end). */
double stages_value(const struct stages *st, int64_t t);

/* N(t): the arrivals the rate curve asks for from the start to t ns. */
double stages_integral(const struct stages *st, int64_t t);

/* When arrival k is due, ns from the start (rounded up to the ns):
 * the first t with N(t) >= k; INT64_MAX when the curve never gets there. */
int64_t stages_due(const struct stages *st, uint64_t k);

/* The same for a point kd >= 0 of N that need not be whole (--arrivals'
 * operational time): the first t with N(t) >= kd. */
int64_t stages_due_at(const struct stages *st, double kd);

/* The arrivals due before the run's end (every k with stages_due(k) <
 * total_ns). */
uint64_t stages_arrivals(const struct stages *st);

/* The highest target of the curve (its start included). */
double stages_peak(const struct stages *st);

/* How many of n connections (targets rounded down) worker `first` of
 * `stride` holds when the curve's value is v: its share of floor(v). */
uint32_t stages_share(double v, uint32_t first, uint32_t stride);

#endif
