/* Time sources. Every latency stamp is CLOCK_MONOTONIC in nanoseconds, read
 * at the event itself: ev_now() is cached per loop iteration and ev_time() is
 * the wall clock, which can step (shared/reference/latency-and-hdrhistogram.md). */
#ifndef VOLLEY_CLOCK_H
#define VOLLEY_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Monotonic nanoseconds; inline because it is read twice per request. */
static inline int64_t clock_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Wall-clock seconds since the epoch, for the report's start time only. */
double clock_epoch_seconds(void);

#endif
