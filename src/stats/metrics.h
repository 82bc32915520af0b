/* Custom metrics that scripts keep with volley.counter and volley.record:
 * named counters (a total) and named records (a histogram of values). Each
 * worker owns one set, written only by its own Lua state; the run merges the
 * sets by name after the workers end. */
#ifndef VOLLEY_METRICS_H
#define VOLLEY_METRICS_H

#include "hist.h"

#include <stddef.h>
#include <stdint.h>

enum metric_kind { METRIC_COUNTER, METRIC_RECORD };

/* Records keep values in thousandths (three decimals), from 0.001 to
 * 2^50 / 1000 (about 1.1259e12; larger values are clamped to it), at the
 * histogram's three significant digits. */
#define METRIC_SCALE 1000.0

struct metric {
    char *name;
    enum metric_kind kind;
    double total;      /* counter: the sum of what was added */
    struct hist values; /* record: value * METRIC_SCALE; unused for counters */
};

struct metrics {
    struct metric *m; /* in order of first use */
    size_t n, cap;
    size_t clashes;   /* merges that dropped a metric: its name was a counter
                       * in one thread and a record in another */
};

void metrics_init(struct metrics *ms);
void metrics_free(struct metrics *ms);

/* The index of name, registering it with kind on first use (allocates: once
 * per name, not per value). Returns -1 if name is already a metric of the
 * other kind. */
int metrics_id(struct metrics *ms, const char *name, enum metric_kind kind);

/* The index of name, or -1. */
int metrics_find(const struct metrics *ms, const char *name);

/* Adds n to counter id. No allocation. */
void metrics_add(struct metrics *ms, int id, double n);

/* Records value (>= 0) into record id. A value above the record's top
 * (values.highest, in thousandths) is recorded as the top and counted in
 * values.clamped; a negative value or NaN (which volley.record refuses) as
 * 0. No allocation. */
void metrics_record(struct metrics *ms, int id, double value);

/* A record's value v (in thousandths) in the script's own unit. */
double metrics_value(int64_t v);

/* A record's percentile p (0..100) in the script's own unit. Its histogram
 * holds 3 significant digits, so the bucket's top (11.007 for 11) is
 * rounded to them (11): the figure the report shows and thresholds
 * compare. 0 when empty. */
double metrics_percentile(const struct hist *values, double p);

/* Adds every metric of src into dst by name. Returns 0, or -1 if a name is
 * a counter in one and a record in the other (src's is then dropped and
 * counted in dst->clashes). */
int metrics_merge(struct metrics *dst, const struct metrics *src);

#endif
