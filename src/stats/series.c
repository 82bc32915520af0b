/* The run's time series; see series.h. */
#include "series.h"

#include "series_store.h"
#include "stats_counters.h"
#include "xalloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static_assert(SERIES_KINDS == STATS_ERR_KINDS, "a series point counts every failure kind");
static_assert(SERIES_CODES == STATS_STATUS_MAX, "the totals count every status code");

/* A second's latencies to 2 significant digits (1 %): plenty for a chart,
 * a tenth of the buckets of the run's own histograms (3 digits), so a
 * second costs little to keep and to encode. The run's figures come from
 * the run's histograms, not from these. */
#define SERIES_DIGITS 2

/* Spare histograms a recorder starts with: one second handed over and not
 * yet given back, for latency and send lag, and one more. A run with
 * streams hands over TTFT and ITL too: its first seconds make the spares
 * that needs, given back and kept from then on (SERIES_SPARES). */
#define SPARES_AT_START 3

static void lat_init(struct hist *h)
{
    int rc = hist_init(h, HIST_LOWEST, HIST_HIGHEST, SERIES_DIGITS);
    assert(rc == 0 && "the series histogram configuration must be valid");
    (void)rc;
}

static struct hist *hist_new(void)
{
    struct hist *m = xmalloc(sizeof *m);
    lat_init(m);
    return m;
}

/* The worker's cumulative counts now, but the status classes (a second's
 * come from its codes: classes_of). */
static void counts_of(const struct stats *s, struct series_counts *c)
{
    memset(c, 0, sizeof *c);
    c->requests = s->completed;
    c->bytes = s->bytes_read;
    c->sent = s->arrivals;
    c->conn_samples = s->conn_samples;
    c->events = s->stream.events;
    c->tokens = s->stream.tokens_out;
    c->streams = s->stream.streams;
    for (int e = 0; e < STATS_ERR_KINDS; e++)
        c->errors[e] = s->errors[e];
}

/* The classes of responses counted by code (as stats.status). */
static void classes_of(const uint64_t *codes, uint64_t *classes)
{
    classes[SERIES_CLASSES - 1] = codes[0];
    for (int code = 100; code < SERIES_CODES; code++)
        classes[code / 100 - 1] += codes[code];
}

static void counts_sub(struct series_counts *dst, const struct series_counts *a, const struct series_counts *b)
{
    dst->requests = a->requests - b->requests;
    dst->bytes = a->bytes - b->bytes;
    dst->sent = a->sent - b->sent;
    dst->conn_samples = a->conn_samples - b->conn_samples;
    dst->events = a->events - b->events;
    dst->tokens = a->tokens - b->tokens;
    dst->streams = a->streams - b->streams;
    for (int i = 0; i < SERIES_CLASSES; i++)
        dst->status[i] = a->status[i] - b->status[i];
    for (int e = 0; e < SERIES_KINDS; e++)
        dst->errors[e] = a->errors[e] - b->errors[e];
}

static bool counts_zero(const struct series_counts *c)
{
    static const struct series_counts zero;
    return memcmp(c, &zero, sizeof zero) == 0;
}

void series_rec_init(struct series_rec *r, const struct stats *cum)
{
    memset(r, 0, sizeof *r);
    r->cum = cum;
    lat_init(&r->lat);
    lat_init(&r->lag);
    lat_init(&r->ttft);
    lat_init(&r->itl);
    while (r->nspare < SPARES_AT_START)
        r->spare[r->nspare++] = hist_new();
    pthread_mutex_init(&r->lock, NULL);
    atomic_init(&r->done_below, 0);
    atomic_init(&r->ended, 0);
    atomic_init(&r->iter_done, 0);
    atomic_init(&r->iter_failed, 0);
    atomic_init(&r->finished, false);
}

void series_rec_start(struct series_rec *r, int64_t t0)
{
    r->t0 = t0;
    r->cur = 0;
    r->cur_end = t0 + SERIES_NS;
    counts_of(r->cum, &r->base);
    memcpy(r->base_codes, r->cum->status, sizeof r->base_codes);
}

/* Frees a heap histogram a record or a pending second holds. */
static void hist_drop(struct hist **h)
{
    if (*h) {
        hist_free(*h);
        free(*h);
        *h = NULL;
    }
}

/* The recorder's histogram h, full, goes with the record (returned); an
 * empty spare takes its place, a new one only when the main thread has
 * given none back (it gives each back within a quarter second, so the
 * ones made at the start last unless it falls seconds behind). Called
 * under r->lock. */
static struct hist *hist_swap(struct series_rec *r, struct hist *h)
{
    struct hist *m = r->nspare ? r->spare[--r->nspare] : hist_new();
    struct hist full = *h;
    *h = *m;
    *m = full;
    return m;
}

void series_rec_free(struct series_rec *r)
{
    hist_free(&r->lat);
    hist_free(&r->lag);
    hist_free(&r->ttft);
    hist_free(&r->itl);
    for (size_t i = 0; i < r->nspare; i++)
        hist_drop(&r->spare[i]);
    for (size_t i = 0; i < r->nout; i++) {
        hist_drop(&r->out[i].latency);
        hist_drop(&r->out[i].sendlag);
        hist_drop(&r->out[i].ttft);
        hist_drop(&r->out[i].itl);
    }
    free(r->out);
    pthread_mutex_destroy(&r->lock);
    memset(r, 0, sizeof *r);
}

/* Hands the second being recorded over (if it counted anything) and
 * starts the next one's counts from now's. */
static void hand_over(struct series_rec *r)
{
    struct series_counts now;
    counts_of(r->cum, &now);
    struct series_sec sec = {.index = r->cur};
    counts_sub(&sec.c, &now, &r->base);
    r->base = now;
    for (int i = 0; i < SERIES_CODES; i++)
        sec.codes[i] = r->cum->status[i] - r->base_codes[i];
    memcpy(r->base_codes, r->cum->status, sizeof r->base_codes);
    classes_of(sec.codes, sec.c.status);
    if (!r->dirty && !r->lag_dirty && !r->ttft_dirty && !r->itl_dirty && counts_zero(&sec.c))
        return;
    /* The histograms go with the record; spares take their places. */
    pthread_mutex_lock(&r->lock);
    if (r->dirty)
        sec.latency = hist_swap(r, &r->lat);
    if (r->lag_dirty)
        sec.sendlag = hist_swap(r, &r->lag);
    if (r->ttft_dirty)
        sec.ttft = hist_swap(r, &r->ttft);
    if (r->itl_dirty)
        sec.itl = hist_swap(r, &r->itl);
    r->dirty = r->lag_dirty = r->ttft_dirty = r->itl_dirty = false;
    if (r->nout == r->cap) {
        r->cap = xgrow(r->cap, r->nout + 1, 16);
        r->out = xrealloc(r->out, r->cap * sizeof *r->out);
    }
    r->out[r->nout++] = sec;
    pthread_mutex_unlock(&r->lock);
}

void series_rec_roll(struct series_rec *r, int64_t now)
{
    hand_over(r);
    if (now < r->t0)
        now = r->t0;
    uint64_t next = (uint64_t)((now - r->t0) / SERIES_NS);
    if (next > r->cur)
        r->cur = next;
    r->cur_end = r->t0 + (int64_t)(r->cur + 1) * SERIES_NS;
    atomic_store(&r->done_below, r->cur);
}

void series_rec_tick(struct series_rec *r, int64_t now)
{
    if (now >= r->cur_end)
        series_rec_roll(r, now);
    atomic_store_explicit(&r->ended, r->cum->completed + stats_failed(r->cum), memory_order_relaxed);
    /* Read here, not counted per iteration: the tick runs anyway, so a
     * flow's progress costs its iterations nothing. */
    atomic_store_explicit(&r->iter_done, r->cum->flow.completed, memory_order_relaxed);
    atomic_store_explicit(&r->iter_failed, r->cum->flow.failed, memory_order_relaxed);
}

void series_iterations(const struct series *s, uint64_t *done, uint64_t *failed)
{
    *done = *failed = 0;
    for (uint32_t i = 0; i < s->nrecs; i++) {
        *done += atomic_load_explicit(&s->recs[i]->iter_done, memory_order_relaxed);
        *failed += atomic_load_explicit(&s->recs[i]->iter_failed, memory_order_relaxed);
    }
}

void series_snapshot(const struct series *s, struct stats *snap)
{
    memset(snap, 0, sizeof *snap);
    const struct series_counts *t = &s->total;
    snap->completed = t->requests;
    snap->bytes_read = t->bytes;
    snap->arrivals = t->sent;
    uint64_t failed = 0;
    for (int e = 0; e < SERIES_KINDS; e++)
        failed += snap->errors[e] = t->errors[e];
    snap->started = t->requests + failed;
    memcpy(snap->status, s->total_codes, sizeof snap->status);
    snap->latency = s->total_latency; /* a shallow copy: read only */
    snap->stream.events = t->events;
    snap->stream.tokens_out = t->tokens;
    snap->stream.streams = t->streams;
}

uint64_t series_ended(const struct series *s)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < s->nrecs; i++)
        n += atomic_load_explicit(&s->recs[i]->ended, memory_order_relaxed);
    return n;
}

void series_rec_finish(struct series_rec *r)
{
    hand_over(r);
    atomic_store(&r->finished, true);
}

void series_init(struct series *s, struct series_rec **recs, uint32_t nrecs)
{
    memset(s, 0, sizeof *s);
    s->recs = recs;
    s->nrecs = nrecs;
    lat_init(&s->total_latency);
}

void series_free(struct series *s)
{
    free(s->recs);
    hist_free(&s->total_latency);
    series_store_free(s->store);
    for (size_t i = 0; i < s->npend; i++) {
        hist_drop(&s->pend[i].h);
        hist_drop(&s->pend[i].lag);
        hist_drop(&s->pend[i].ttft);
        hist_drop(&s->pend[i].itl);
    }
    free(s->pend);
    free(s->taken);
    memset(s, 0, sizeof *s);
}

/* The pending slot of second index (>= npoints), made as needed. */
static struct pending *pending_at(struct series *s, uint64_t index)
{
    size_t k = (size_t)(index - s->npoints);
    if (k >= s->npend) {
        s->pend = xrealloc(s->pend, (k + 1) * sizeof *s->pend);
        memset(s->pend + s->npend, 0, (k + 1 - s->npend) * sizeof *s->pend);
        s->npend = k + 1;
    }
    return &s->pend[k];
}

/* from (or NULL) merged into *into, made on this thread when empty: from
 * goes back to its worker. */
static void merge_into(struct hist **into, const struct hist *from)
{
    if (!from)
        return;
    if (!*into)
        *into = hist_new();
    hist_merge(*into, from);
}

/* One worker's second into the pending seconds; its histograms stay in
 * sec (give_back). */
static void take(struct series *s, struct series_sec *sec)
{
    series_counts_add(&s->total, &sec->c);
    for (int i = 0; i < SERIES_CODES; i++)
        s->total_codes[i] += sec->codes[i];
    if (sec->latency)
        hist_merge(&s->total_latency, sec->latency);
    if (sec->index < s->npoints) {
        /* Cannot happen: a second is completed only once every worker is
         * past it. Kept in the totals, dropped from the points. */
        assert(!"series: a second came after it was completed");
    } else {
        struct pending *p = pending_at(s, sec->index);
        series_counts_add(&p->c, &sec->c);
        merge_into(&p->h, sec->latency);
        merge_into(&p->lag, sec->sendlag);
        merge_into(&p->ttft, sec->ttft);
        merge_into(&p->itl, sec->itl);
    }
}

/* A taken second's histogram *h (or NULL), emptied, back to r's spares. */
static void give_back(struct series_rec *r, struct hist **h)
{
    if (!*h)
        return;
    hist_reset(*h);
    pthread_mutex_lock(&r->lock);
    if (r->nspare < SERIES_SPARES) {
        r->spare[r->nspare++] = *h;
        *h = NULL;
    }
    pthread_mutex_unlock(&r->lock);
    hist_drop(h);
}

/* The oldest pending second becomes point npoints. */
static void complete_one(struct series *s)
{
    struct series_point pt = {0};
    if (s->npend) {
        struct pending *p = &s->pend[0];
        pt.c = p->c;
        if (p->h) {
            series_point_latency(&pt, p->h);
            hist_drop(&p->h);
        }
        if (p->lag) {
            pt.sendlag_count = (uint64_t)p->lag->count;
            pt.sendlag_p50 = hist_percentile(p->lag, 50);
            pt.sendlag_p99 = hist_percentile(p->lag, 99);
            hist_drop(&p->lag);
        }
        if (p->ttft) {
            pt.ttft_count = (uint64_t)p->ttft->count;
            pt.ttft_p50 = hist_percentile(p->ttft, 50);
            pt.ttft_p99 = hist_percentile(p->ttft, 99);
            hist_drop(&p->ttft);
        }
        if (p->itl) {
            pt.itl_count = (uint64_t)p->itl->count;
            pt.itl_p99 = hist_percentile(p->itl, 99);
            hist_drop(&p->itl);
        }
        memmove(s->pend, s->pend + 1, (s->npend - 1) * sizeof *s->pend);
        s->npend--;
    }
    series_append(s, &pt);
    free(pt.hist);
}

void series_append(struct series *s, const struct series_point *p)
{
    if (!s->store)
        s->store = series_store_new();
    series_store_put(s->store, p);
    s->last = *p;
    s->last.hist = NULL;
    s->npoints++;
}

int64_t series_point_span(const struct series *s, size_t i)
{
    int64_t from = (int64_t)i * SERIES_NS;
    if (s->end_ns <= from || s->end_ns - from >= SERIES_NS)
        return SERIES_NS; /* whole seconds, or (not made) a point past the end */
    return s->end_ns - from;
}

int series_point_get(const struct series *s, size_t i, struct series_point *p, char **hist, size_t *cap)
{
    assert(i < s->npoints && "series_point_get: no such point");
    int rc = series_store_get(s->store, i, p, hist, cap);
    p->span_ns = series_point_span(s, i);
    return rc;
}

void series_finish(struct series *s)
{
    series_collect(s, true);
    free(s->recs);
    s->recs = NULL;
    s->nrecs = 0;
}

void series_pad(struct series *s, int64_t duration_ns)
{
    size_t want = duration_ns > 0 ? (size_t)((duration_ns + SERIES_NS - 1) / SERIES_NS) : 0;
    while (s->npoints < want)
        complete_one(s);
    s->end_ns = duration_ns > 0 ? duration_ns : 0;
}

void series_collect(struct series *s, bool all)
{
    uint64_t complete_below = UINT64_MAX;
    for (uint32_t w = 0; w < s->nrecs; w++) {
        struct series_rec *r = s->recs[w];
        /* Read before taking the records: what it says is handed over is
         * in out by then. */
        bool finished = atomic_load(&r->finished);
        uint64_t below = atomic_load(&r->done_below);
        /* Copied, not taken away: the worker keeps its array, and grows it
         * only when this thread falls more than 16 seconds behind. */
        pthread_mutex_lock(&r->lock);
        size_t n = r->nout;
        if (n > s->taken_cap) {
            s->taken_cap = xgrow(s->taken_cap, n, 16);
            s->taken = xrealloc(s->taken, s->taken_cap * sizeof *s->taken);
        }
        if (n)
            memcpy(s->taken, r->out, n * sizeof *s->taken);
        r->nout = 0;
        pthread_mutex_unlock(&r->lock);
        for (size_t i = 0; i < n; i++) {
            take(s, &s->taken[i]);
            give_back(r, &s->taken[i].latency);
            give_back(r, &s->taken[i].sendlag);
            give_back(r, &s->taken[i].ttft);
            give_back(r, &s->taken[i].itl);
        }
        if (!finished && below < complete_below)
            complete_below = below;
    }
    if (all)
        complete_below = s->npoints + s->npend;
    while (s->npoints < complete_below && (s->npend > 0 || (!all && complete_below != UINT64_MAX)))
        complete_one(s);
}
