/* --max-rps: one worker's share of a flow's request cap, a token bucket
 * of burst 1 (GCRA with no tolerance): a request may go when the clock has
 * reached the bucket's next instant, which it then moves one interval
 * past its own send. Sends of one bucket are thus never closer than an
 * interval: any window of T seconds holds at most T * rate + 1 of them,
 * however late a wait ends (a late send delays the next, never crowds
 * it). A bucket idle for a while keeps no credit. No clock is read here:
 * callers pass monotonic nanoseconds. */
#ifndef VOLLEY_CAP_H
#define VOLLEY_CAP_H

#include <stdbool.h>
#include <stdint.h>

struct cap {
    int64_t interval_ns; /* 1 / rate, rounded up (so never a little over the rate) */
    int64_t next;        /* the earliest instant of the next send; 0: the first goes at once */
};

/* A bucket of rate sends per second (> 0; a worker's share may be below
 * 1). */
void cap_init(struct cap *c, double rate);

/* Whether a send may go at now; if so it is counted (next moves to now +
 * the interval). */
bool cap_take(struct cap *c, int64_t now);

/* The earliest instant cap_take can succeed. */
static inline int64_t cap_next(const struct cap *c)
{
    return c->next;
}

#endif
