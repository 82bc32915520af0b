/* One second of the run's series (series.h) as it is kept and read
 * back: what the second counted (struct series_counts) and its latency
 * figures (struct series_point). The types alone, and the few functions
 * on them, below the series and below where its points are kept
 * (series_store.h), which both hold points. */
#ifndef VOLLEY_SERIES_POINT_H
#define VOLLEY_SERIES_POINT_H

#include "hist.h"

#include <stdint.h>

#define SERIES_NS 1000000000LL /* a point is one second */
#define SERIES_CLASSES 6       /* status 1xx, 2xx, 3xx, 4xx, 5xx, other */
#define SERIES_KINDS 9         /* = STATS_ERR_KINDS (checked in series.c) */
#define SERIES_CODES 600       /* = STATS_STATUS_MAX (checked in series.c) */

/* A status class's name, as the JSON writes it: "1xx" .. "5xx", "other"
 * (i < SERIES_CLASSES). */
const char *series_class_name(int i);

/* What a second counted (or a run, summed). */
struct series_counts {
    uint64_t requests; /* completed */
    uint64_t bytes;    /* read */
    uint64_t status[SERIES_CLASSES];
    uint64_t errors[SERIES_KINDS]; /* failed requests by kind (stats_error_name) */
    uint64_t sent;     /* -R: arrivals sent */
    uint64_t conn_samples; /* --stages without -R: connections open, summed over the
                            * worker's 100 ms samples (a second's / 10 = its mean) */
    uint64_t events;   /* streams' events received */
    uint64_t tokens;   /* output tokens of the token streams that completed */
    uint64_t streams;  /* streams that completed */
};

/* dst += src, count by count. */
void series_counts_add(struct series_counts *dst, const struct series_counts *src);

/* One second of the run, all workers merged. */
struct series_point {
    struct series_counts c;
    uint64_t latency_count; /* latencies recorded (completed; with -R also timed out) */
    int64_t p50, p90, p99, max; /* ns; 0 without latencies */
    uint64_t sendlag_count;     /* -R: send lags recorded */
    int64_t sendlag_p50, sendlag_p99; /* ns */
    uint64_t ttft_count;        /* token streams' times to first token recorded (at their end) */
    int64_t ttft_p50, ttft_p99; /* ns */
    uint64_t itl_count;         /* gaps between token events */
    int64_t itl_p99;            /* ns */
    char *hist;             /* the second's latencies, HdrHistogram V2 (hdr_codec), or NULL */
    int64_t span_ns;        /* the time it covers: SERIES_NS, but for the run's last point,
                             * which may end within its second (series_point_get sets it) */
};

/* p's latency figures from h, the second's latencies: the count, the
 * percentiles and the encoded text (p->hist, malloc'd: the caller frees
 * it once the point is appended). */
void series_point_latency(struct series_point *p, const struct hist *h);

#endif
