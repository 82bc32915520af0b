/* The run's time series: per-second figures from exact per-second
 * histograms and counts, for the live progress line and the JSON's
 * "series". Each worker records into its own recorder (struct series_rec)
 * and, when a second ends, hands that second to the main thread (a short
 * lock, once a second); the main thread merges the workers' seconds into
 * the run's points (struct series) as they become complete. Complete
 * points are spooled to an anonymous temporary file (series_store.c) and
 * read back when the report is written, so memory does not grow with the
 * run's length; only the running totals and the latest point stay in
 * memory, for the progress line and the live thresholds.
 *
 * A second's counts are the worker's cumulative counters at its end minus
 * those at its start, so the points of a run add up to its totals exactly.
 * Latencies go into the second in which their request ended; counters are
 * read when the second is closed, at the first completion after it or at
 * the worker's next 100 ms tick, so a failure may land in the second before
 * its own (by at most that tick). */
#ifndef VOLLEY_SERIES_H
#define VOLLEY_SERIES_H

#include "hist.h"
#include "series_point.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SERIES_SPARES 10       /* a recorder's spare histograms, at most */

struct stats; /* stats_counters.h: a worker's counters, read by its recorder */

/* One worker's second, handed to the main thread. */
struct series_sec {
    uint64_t index;        /* seconds since the run's start */
    struct series_counts c;
    uint64_t codes[SERIES_CODES]; /* responses by status code, as stats.status */
    struct hist *latency;  /* owned by whoever holds the record */
    struct hist *sendlag;  /* -R: likewise */
    struct hist *ttft, *itl; /* streams: likewise */
};

/* A worker's recorder. Fields are series.c's; the worker's thread records,
 * the main thread takes finished seconds (series_collect). */
struct series_rec {
    const struct stats *cum;   /* the worker's stats (its thread only) */
    int64_t t0, cur_end;
    uint64_t cur;              /* the second being recorded */
    struct hist lat;           /* its latencies */
    struct hist lag;           /* -R: its send lags */
    bool lag_dirty;
    struct hist ttft, itl;     /* streams: its TTFTs and inter-token gaps */
    bool ttft_dirty, itl_dirty;
    struct series_counts base; /* the cumulative counts when it began */
    uint64_t base_codes[SERIES_CODES];
    bool dirty;                /* a latency was recorded in it */
    pthread_mutex_t lock;      /* guards out and spare */
    struct series_sec *out;    /* handed over, not yet taken (kept: the main thread copies) */
    size_t nout, cap;
    /* Empty histograms for the next second's: the main thread gives a
     * second's back once merged, so once a second costs no allocation on
     * the worker's thread (test_no_malloc.sh counts that thread's). */
    struct hist *spare[SERIES_SPARES];
    size_t nspare;
    _Atomic uint64_t done_below; /* every second below it has been handed over */
    _Atomic uint64_t ended;      /* requests completed or failed, as of the last tick */
    _Atomic uint64_t iter_done, iter_failed; /* a flow's iterations completed and failed,
                                              * likewise */
    atomic_bool finished;        /* the worker has stopped: all is handed over */
};

/* Sets up r for a worker whose stats are cum (allocates: start-up only). */
void series_rec_init(struct series_rec *r, const struct stats *cum);
/* Second 0 starts at t0 (the run's start). */
void series_rec_start(struct series_rec *r, int64_t t0);
void series_rec_free(struct series_rec *r);

/* Closes the second being recorded (handing it over if it counted
 * anything) and moves to the one holding now. */
void series_rec_roll(struct series_rec *r, int64_t now);

/* The worker's 100 ms tick: closes the second if it has ended, and
 * publishes how many requests (and a flow's iterations) have ended so far
 * (for the progress line). */
void series_rec_tick(struct series_rec *r, int64_t now);

/* Records a latency (ns) of a request that ended at now. Hot path: a
 * comparison and a histogram record; at most once a second a roll. */
static inline void series_rec_latency(struct series_rec *r, int64_t now, int64_t latency, int64_t n)
{
    if (now >= r->cur_end)
        series_rec_roll(r, now);
    hist_record_n(&r->lat, latency, n);
    r->dirty = true;
}

/* v into the second's histogram h (of r), at now; *dirty: h holds values. */
static inline void series_rec_into(struct series_rec *r, int64_t now, struct hist *h, bool *dirty, int64_t v)
{
    if (now >= r->cur_end)
        series_rec_roll(r, now);
    hist_record(h, v);
    *dirty = true;
}

/* -R: records the send lag (ns) of a request that ended at now. */
static inline void series_rec_sendlag(struct series_rec *r, int64_t now, int64_t lag)
{
    series_rec_into(r, now, &r->lag, &r->lag_dirty, lag);
}

/* A stream's TTFT (ns), recorded when it ended at now; an inter-token gap
 * read at now. As series_rec_latency. */
static inline void series_rec_ttft(struct series_rec *r, int64_t now, int64_t ttft)
{
    series_rec_into(r, now, &r->ttft, &r->ttft_dirty, ttft);
}

static inline void series_rec_itl(struct series_rec *r, int64_t now, int64_t gap)
{
    series_rec_into(r, now, &r->itl, &r->itl_dirty, gap);
}

/* The worker has stopped: its last second is handed over. */
void series_rec_finish(struct series_rec *r);

struct series_store;

/* The run's series, on the main thread. Callers may read npoints, last,
 * total and total_codes (read-only); the rest is series.c's. */
struct series {
    struct series_rec **recs; /* the workers' recorders */
    uint32_t nrecs;
    size_t npoints;              /* complete seconds, 0 .. npoints-1 (series_point_get) */
    struct series_point last;    /* the latest of them (hist NULL; zero before the first) */
    struct series_store *store;  /* where the points are kept (series_store.c); NULL before the first */
    int64_t end_ns;              /* the points cover [0, end_ns) from the start, so the last
                                  * may cover part of its second; 0: whole seconds (set by
                                  * series_pad, or by the reader of a saved result) */
    struct series_counts total;  /* everything handed over so far */
    uint64_t total_codes[SERIES_CODES];
    struct hist total_latency;   /* and its latencies (the points' precision) */
    /* Seconds handed over but not complete yet (a worker may still add to
     * them): merged here, from second npoints on. */
    struct pending {
        struct series_counts c;
        struct hist *h, *lag, *ttft, *itl;
    } *pend;
    size_t npend;
    struct series_sec *taken; /* series_collect's copy of a recorder's out */
    size_t taken_cap;
};

/* recs: an array the series owns from now on (NULL with nrecs 0: a series
 * filled by series_append alone, such as one read back from a result). */
void series_init(struct series *s, struct series_rec **recs, uint32_t nrecs);
void series_free(struct series *s);

/* Appends *p as point npoints, copying it and its hist text (the caller
 * keeps p). The point goes to the series' temporary file (made at the
 * first point, in $TMPDIR or /tmp, unlinked at once so nothing is left
 * behind); if that file cannot be made or written, to memory from then
 * on, after one line on stderr ("volley: series: ..."). No point is ever
 * lost. */
void series_append(struct series *s, const struct series_point *p);

/* The time point i covers, ns: SERIES_NS, or less for a last point that
 * ends with the run within its second. */
int64_t series_point_span(const struct series *s, size_t i);

/* Reads point i (< npoints) into *p (p->span_ns: series_point_span). With hist non-NULL, p->hist is its
 * text (or NULL: it had none) in *hist, a buffer of *cap bytes the call
 * grows as needed (xrealloc; start with NULL and 0, free when done), valid
 * until the next call with it; with hist NULL, p->hist is NULL. Returns 0,
 * or -1 when the temporary file cannot be read (said on stderr once; *p is
 * then an empty point). */
int series_point_get(const struct series *s, size_t i, struct series_point *p, char **hist, size_t *cap);

/* Takes what the workers handed over and completes the seconds every
 * worker is past; with all (the workers have stopped), every second. */
void series_collect(struct series *s, bool all);

/* Requests ended (completed or failed) over all workers, as of their last
 * 100 ms tick: fresher than the points, for the progress line. */
uint64_t series_ended(const struct series *s);

/* A flow's iterations completed (*done) and failed (*failed) over all
 * workers, as of their last 100 ms tick, as series_ended. */
void series_iterations(const struct series *s, uint64_t *done, uint64_t *failed);

/* A view of what has been handed over so far as run totals, for checks
 * during the run (thresholds that abort): requests started (= ended),
 * completed, failed by kind, statuses, the latency histogram (2
 * significant digits; it points into s: valid until the next collect) and
 * the streams' counts (events, output tokens, streams completed).
 * Everything else in *snap is zero. Not to be stats_free'd. */
void series_snapshot(const struct series *s, struct stats *snap);

/* The workers have stopped: everything collected; the recorders are not
 * touched again (the workers may be freed). */
void series_finish(struct series *s);

/* Empty points added so that the points cover duration_ns, which becomes
 * end_ns: the last point covers what is left of duration_ns in its second. */
void series_pad(struct series *s, int64_t duration_ns);

#endif
