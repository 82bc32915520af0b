/* Merging per-worker results into one, after the workers have stopped. */
#include "stats.h"

#include "stats_tags.h"
#include "xalloc.h"

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void stats_init(struct stats *s)
{
    memset(s, 0, sizeof *s);
    hist_init_default(&s->latency);
    hist_init_default(&s->connect);
    hist_init_default(&s->waiting);
    hist_init_default(&s->handshake);
    hist_init_default(&s->rate);
    hist_init_default(&s->service);
    hist_init_default(&s->sendlag);
    metrics_init(&s->metrics);
    stats_flow_init(&s->flow);
    stats_stream_init(&s->stream);
}

void stats_init_slots(struct stats *s, uint32_t n)
{
    free(s->slots);
    s->slots = xcalloc(n ? n : 1, sizeof *s->slots);
    s->nslots = n;
}

void stats_free(struct stats *s)
{
    errsamples_free(&s->shown);
    free(s->hosts);
    s->hosts = NULL;
    for (uint32_t i = 0; i < s->nnames; i++)
        if (s->names[i])
            stats_name_free(s->names[i]);
    free(s->names);
    s->names = NULL;
    s->nnames = 0;
    stats_tags_free(s);
    free(s->slots);
    s->slots = NULL;
    s->nslots = 0;
    hist_free(&s->latency);
    hist_free(&s->connect);
    hist_free(&s->waiting);
    hist_free(&s->handshake);
    hist_free(&s->rate);
    hist_free(&s->service);
    hist_free(&s->sendlag);
    for (size_t i = 0; i < s->nreasons; i++)
        free(s->reasons[i].reason);
    free(s->reasons);
    s->reasons = NULL;
    s->nreasons = 0;
    for (int k = 0; k < STATS_ERR_KINDS; k++) {
        struct stats_kind_reasons *kr = &s->kind_reasons[k];
        for (size_t i = 0; i < kr->n; i++)
            free(kr->r[i].reason);
        free(kr->r);
        *kr = (struct stats_kind_reasons){0};
    }
    metrics_free(&s->metrics);
    stats_flow_free(&s->flow);
    stats_stream_free(&s->stream);
    free(s->samples);
    s->samples = NULL;
    s->nsamples = s->samples_cap = 0;
    free(s->heads);
    s->heads = NULL;
    s->heads_len = s->heads_cap = 0;
}

size_t stats_add_head(struct stats *s, const char *bytes, size_t n)
{
    if (s->heads_len + n > s->heads_cap) {
        s->heads_cap = xgrow(s->heads_cap, s->heads_len + n, 65536);
        s->heads = xrealloc(s->heads, s->heads_cap);
    }
    memcpy(s->heads + s->heads_len, bytes, n);
    s->heads_len += n;
    return s->heads_len - n;
}

void stats_reserve_samples(struct stats *s, size_t n)
{
    if (n <= s->samples_cap)
        return;
    s->samples = xrealloc(s->samples, n * sizeof *s->samples);
    s->samples_cap = n;
}

void stats_add_sample(struct stats *s, const struct stats_sample *sample)
{
    if (s->nsamples == s->samples_cap)
        stats_reserve_samples(s, xgrow(s->samples_cap, s->nsamples + 1, 4096));
    s->samples[s->nsamples++] = *sample;
}

uint64_t stats_add_reason(struct stats *s, const char *reason, uint64_t n)
{
    return stats_reason_add(&s->reasons, &s->nreasons, SIZE_MAX, reason, n)->count;
}

uint64_t stats_kind_reason(struct stats *s, enum stats_error kind, const char *reason, uint64_t n)
{
    struct stats_kind_reasons *kr = &s->kind_reasons[kind];
    struct stats_reason *r = stats_reason_add(&kr->r, &kr->n, STATS_KIND_REASONS, reason, n);
    if (r)
        return r->count;
    return kr->other += n;
}

struct stats_name *stats_name_add(struct stats *s, uint32_t id, const char *name)
{
    assert(id < NAMES_MAX && "names.c hands out ids below NAMES_MAX");
    if (!s->names)
        s->names = xcalloc(NAMES_MAX, sizeof *s->names);
    if (s->names[id])
        return s->names[id];
    struct stats_name *n = xcalloc(1, sizeof *n);
    n->name = xstrdup(name);
    hist_init_default(&n->latency);
    if (s->open)
        hist_init_default(&n->service);
    s->names[id] = n;
    if (id >= s->nnames)
        s->nnames = id + 1;
    if (s->intervals)
        intervals_add_name(s->intervals, id);
    return n;
}

const struct stats_name *stats_name_find(const struct stats *s, const char *name)
{
    for (uint32_t i = 0; i < s->nnames; i++)
        if (s->names[i] && strcmp(s->names[i]->name, name) == 0)
            return s->names[i];
    return NULL;
}

uint64_t stats_name_reason(struct stats *s, uint32_t id, const char *reason, uint64_t n)
{
    struct stats_name *nm = s->names[id];
    return stats_reason_add(&nm->reasons, &nm->nreasons, SIZE_MAX, reason, n)->count;
}

uint64_t stats_name_failed(const struct stats_name *n)
{
    uint64_t k = 0;
    for (int i = 0; i < STATS_ERR_KINDS; i++)
        k += n->errors[i];
    return k;
}

static int by_count(const void *a, const void *b)
{
    const struct stats_reason *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->reason, y->reason);
}

void stats_sort_reasons(struct stats *s)
{
    if (s->nreasons > 1)
        qsort(s->reasons, s->nreasons, sizeof *s->reasons, by_count);
    for (int k = 0; k < STATS_ERR_KINDS; k++)
        if (s->kind_reasons[k].n > 1)
            qsort(s->kind_reasons[k].r, s->kind_reasons[k].n, sizeof *s->kind_reasons[k].r, by_count);
    for (uint32_t i = 0; i < s->nnames; i++)
        if (s->names[i] && s->names[i]->nreasons > 1)
            qsort(s->names[i]->reasons, s->names[i]->nreasons, sizeof *s->names[i]->reasons, by_count);
    if (s->flow.nreasons > 1)
        qsort(s->flow.reasons, s->flow.nreasons, sizeof *s->flow.reasons, by_count);
}

void stats_finish(struct stats *s)
{
    hist_record_n(&s->connect, 0, (int64_t)s->reused);
    s->reused = 0;
}

void stats_merge(struct stats *dst, struct stats *src)
{
    dst->started += src->started;
    dst->completed += src->completed;
    for (int i = 0; i < STATS_ERR_KINDS; i++)
        dst->errors[i] += src->errors[i];
    dst->cut_off += src->cut_off;
    dst->closed += src->closed;
    errsamples_merge(&dst->shown, &src->shown);
    dst->connect_timeouts += src->connect_timeouts;
    for (int i = 0; i < STATS_STATUS_MAX; i++)
        dst->status[i] += src->status[i];
    dst->bytes_read += src->bytes_read;
    dst->bytes_written += src->bytes_written;
    dst->connects += src->connects;
    dst->open |= src->open;
    dst->arrivals += src->arrivals;
    dst->conn_samples += src->conn_samples;
    dst->flight_ns += src->flight_ns;
    dst->busy_ns += src->busy_ns;
    dst->queued_ns += src->queued_ns;
    dst->batches += src->batches;
    dst->tls_full += src->tls_full;
    dst->tls_resumed += src->tls_resumed;
    for (int k = 0; k < STATS_ERR_KINDS; k++) {
        const struct stats_kind_reasons *kr = &src->kind_reasons[k];
        for (size_t i = 0; i < kr->n; i++)
            stats_kind_reason(dst, (enum stats_error)k, kr->r[i].reason, kr->r[i].count);
        dst->kind_reasons[k].other += kr->other;
    }
    if (src->nslots) {
        dst->slots = xrealloc(dst->slots, (dst->nslots + src->nslots) * sizeof *dst->slots);
        memcpy(dst->slots + dst->nslots, src->slots, src->nslots * sizeof *src->slots);
        dst->nslots += src->nslots;
    }
    dst->h2_connections += src->h2_connections;
    dst->h1_fallbacks += src->h1_fallbacks;
    dst->h2_retried += src->h2_retried;
    if (src->h2_max_streams > dst->h2_max_streams)
        dst->h2_max_streams = src->h2_max_streams;
    if (src->h2_peer_limit && (!dst->h2_peer_limit || src->h2_peer_limit < dst->h2_peer_limit))
        dst->h2_peer_limit = src->h2_peer_limit;
    dst->h2_header_wire += src->h2_header_wire;
    dst->h2_header_decoded += src->h2_header_decoded;
    dst->unsent += src->unsent;
    if (src->last_send > dst->last_send)
        dst->last_send = src->last_send;
    if (src->last_due > dst->last_due)
        dst->last_due = src->last_due;
    int rc = hist_merge(&dst->latency, &src->latency) | hist_merge(&dst->connect, &src->connect) |
             hist_merge(&dst->waiting, &src->waiting) | hist_merge(&dst->rate, &src->rate) |
             hist_merge(&dst->service, &src->service) | hist_merge(&dst->sendlag, &src->sendlag) |
             hist_merge(&dst->handshake, &src->handshake);
    assert(rc == 0 && "all workers use the same histogram configuration");
    (void)rc;
    for (size_t i = 0; i < src->nreasons; i++)
        stats_add_reason(dst, src->reasons[i].reason, src->reasons[i].count);
    dst->reasons_more += src->reasons_more;
    dst->reasons_more_count += src->reasons_more_count;
    if (src->nsamples && !dst->nsamples && !dst->heads_len) {
        /* The first worker's samples: taken over, not copied (a copy would
         * touch as much memory again: a page fault per 64 samples). */
        free(dst->samples);
        free(dst->heads);
        dst->samples = src->samples;
        dst->nsamples = src->nsamples;
        dst->samples_cap = src->samples_cap;
        dst->heads = src->heads;
        dst->heads_len = src->heads_len;
        dst->heads_cap = src->heads_cap;
        src->samples = NULL;
        src->nsamples = src->samples_cap = 0;
        src->heads = NULL;
        src->heads_len = src->heads_cap = 0;
    } else if (src->nsamples) {
        stats_reserve_samples(dst, dst->nsamples + src->nsamples);
        size_t base = src->heads_len ? stats_add_head(dst, src->heads, src->heads_len) : 0;
        for (size_t i = 0; i < src->nsamples; i++) {
            dst->samples[dst->nsamples + i] = src->samples[i];
            dst->samples[dst->nsamples + i].head_off += (int64_t)base;
        }
        dst->nsamples += src->nsamples;
    }
    if (!dst->first_head_len && src->first_head_len) {
        memcpy(dst->first_head, src->first_head, src->first_head_len);
        dst->first_head_len = src->first_head_len;
    }
    /* Within a worker a name keeps its kind (volley.counter/record refuse
     * the other); across workers the first kind merged wins and the report
     * says what was dropped. */
    metrics_merge(&dst->metrics, &src->metrics);
    /* Names by id: the workers of a run share one registry (names.h). */
    for (uint32_t i = 0; i < src->nnames; i++)
        if (src->names[i])
            stats_name_merge(stats_name_add(dst, i, src->names[i]->name), src->names[i]);
    stats_tags_merge(dst, src);
    stats_flow_merge(&dst->flow, &src->flow);
    stats_stream_merge(&dst->stream, &src->stream);
    stats_hosts_merge(&dst->hosts, src->hosts);
}

/* Whether b can be merged into a (its count and sums). */
static bool fits(const struct hist *a, const struct hist *b)
{
    return hist_merge_fits(a, b);
}

bool stats_merge_fits(const struct stats *dst, const struct stats *src)
{
    if (!fits(&dst->latency, &src->latency) || !fits(&dst->connect, &src->connect) ||
        !fits(&dst->waiting, &src->waiting) || !fits(&dst->rate, &src->rate) ||
        !fits(&dst->service, &src->service) || !fits(&dst->sendlag, &src->sendlag) ||
        !fits(&dst->handshake, &src->handshake))
        return false;
    for (uint32_t i = 0; i < src->nnames && i < dst->nnames; i++) {
        const struct stats_name *a = dst->names[i], *b = src->names[i];
        if (a && b && (!fits(&a->latency, &b->latency) || !fits(&a->service, &b->service)))
            return false;
    }
    for (uint32_t i = 0; i < src->ntags && i < dst->ntags; i++) {
        const struct stats_name *a = dst->tags[i], *b = src->tags[i];
        if (a && b && (!fits(&a->latency, &b->latency) || !fits(&a->service, &b->service)))
            return false;
    }
    if (!stats_flow_merge_fits(&dst->flow, &src->flow) || !stats_stream_merge_fits(&dst->stream, &src->stream))
        return false;
    /* the records metrics_merge merges by name */
    for (size_t i = 0; i < src->metrics.n; i++) {
        const struct metric *b = &src->metrics.m[i];
        for (size_t j = 0; b->kind == METRIC_RECORD && j < dst->metrics.n; j++) {
            const struct metric *a = &dst->metrics.m[j];
            if (a->kind == METRIC_RECORD && strcmp(a->name, b->name) == 0 && !fits(&a->values, &b->values))
                return false;
        }
    }
    return true;
}

int stats_align_names(struct stats *src, const struct stats *dst)
{
    return stats_align_table(&src->names, &src->nnames, dst->names, dst->nnames, NAMES_MAX);
}

const char *stats_error_name(enum stats_error e)
{
    static const char *const names[STATS_ERR_KINDS] = {"connect", "read",       "write", "timeout",
                                                            "parse",   "validation", "tls",     "protocol", "ports"};
    return names[e];
}

void stats_cut_off_rest(struct stats *s)
{
    uint64_t failed = 0;
    for (int i = 0; i < STATS_ERR_KINDS; i++)
        failed += s->errors[i];
    uint64_t ended = s->completed + failed + s->cut_off;
    if (s->started > ended)
        s->cut_off += s->started - ended;
    for (uint32_t i = 0; i < s->nnames; i++) {
        struct stats_name *n = s->names[i];
        if (!n)
            continue;
        uint64_t done = n->completed + stats_name_failed(n) + n->cut_off;
        if (n->started > done)
            n->cut_off += n->started - done;
    }
    for (uint32_t i = 0; i < s->ntags; i++) {
        struct stats_name *n = s->tags[i];
        if (!n)
            continue;
        uint64_t done = n->completed + stats_name_failed(n) + n->cut_off;
        if (n->started > done)
            n->cut_off += n->started - done;
    }
    struct stats_flow *f = &s->flow;
    uint64_t iters = f->completed + f->failed + f->cut_off;
    if (f->started > iters)
        f->cut_off += f->started - iters;
}
