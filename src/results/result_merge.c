/* Shards' results into the whole run's; see result_merge.h. */
#include "result_merge.h"

#include "result_aside.h"

#include "hdr_codec.h"
#include "html_internal.h"
#include "report.h"
#include "series.h"
#include "stats.h"
#include "stats_tags.h"
#include "threshold.h"
#include "xalloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether two JSON values are the same (numbers by value, objects member
 * by member in order: both were written by volley's one writer). */
static bool same(const struct json *a, const struct json *b)
{
    if (!a || !b)
        return a == b;
    if (a->type != b->type)
        return false;
    switch (a->type) {
    case JSON_NULL:
        return true;
    case JSON_BOOL:
        return a->b == b->b;
    case JSON_NUMBER:
        return a->num == b->num;
    case JSON_STRING:
        return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
    case JSON_ARRAY:
        if (a->len != b->len)
            return false;
        for (size_t i = 0; i < a->len; i++)
            if (!same(&a->items[i], &b->items[i]))
                return false;
        return true;
    case JSON_OBJECT:
        if (a->len != b->len)
            return false;
        for (size_t i = 0; i < a->len; i++)
            if (strcmp(a->members[i].key, b->members[i].key) != 0 ||
                !same(&a->members[i].value, &b->members[i].value))
                return false;
        return true;
    }
    return false;
}

/* A short text of a value for the message: strings and numbers as they
 * are, anything else by its kind. */
static const char *show(const struct json *v, char *buf, size_t len)
{
    if (!v)
        snprintf(buf, len, "none");
    else if (v->type == JSON_STRING)
        snprintf(buf, len, "\"%.60s\"", v->s);
    else if (v->type == JSON_NUMBER)
        snprintf(buf, len, "%.17g", v->num);
    else if (v->type == JSON_BOOL)
        snprintf(buf, len, "%s", v->b ? "true" : "false");
    else if (v->type == JSON_NULL)
        snprintf(buf, len, "null");
    else
        snprintf(buf, len, "another %s", json_in_type_name(v));
    return buf;
}

int result_merge_same_settings(const struct json *a, const struct json *b, char *what, size_t len)
{
    static const struct {
        const char *parent, *key;
    } fields[] = {
        {"target", "url"},       {NULL, "model"},          {"run", "shards"},         {"run", "start_at"},
        {"options", "connections"}, {"options", "duration"}, {"options", "requests"}, {"options", "rate"},
        {"options", "stages"},   {"options", "method"},    {"options", "headers"},    {"options", "body_bytes"},
        {"options", "timeout"},  {"options", "keepalive"}, {"options", "http_version"}, {"options", "targets"},
        {"options", "iterations"}, {"options", "arrivals"},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const char *p = fields[i].parent, *k = fields[i].key;
        const struct json *x = json_in_get(p ? json_in_get(a, p) : a, k);
        const struct json *y = json_in_get(p ? json_in_get(b, p) : b, k);
        if (!same(x, y)) {
            char sx[96], sy[96];
            snprintf(what, len, "%s%s%s: %s and %s", p ? p : "", p ? "." : "", k, show(x, sx, sizeof sx),
                     show(y, sy, sizeof sy));
            return -1;
        }
    }
    /* A random process is one sequence only under one seed (arrivals.h):
     * shards with others drew arrivals that are not the run's. */
    const struct json *ar = json_in_get(json_in_get(a, "options"), "arrivals");
    if (ar && ar->type == JSON_STRING && strcmp(ar->s, "fixed") != 0) {
        const struct json *x = json_in_get(json_in_get(a, "options"), "seed");
        const struct json *y = json_in_get(json_in_get(b, "options"), "seed");
        if (!same(x, y)) {
            char sx[96], sy[96];
            snprintf(what, len, "options.seed: %s and %s (--arrivals %.40s draws the run's arrivals from the seed)",
                     show(x, sx, sizeof sx), show(y, sy, sizeof sy), ar->s);
            return -1;
        }
    }
    /* -d runs of a flow and of another script share every option */
    bool fa = !json_in_is_null(json_in_get(a, "iterations")), fb = !json_in_is_null(json_in_get(b, "iterations"));
    if (fa != fb) {
        snprintf(what, len, "iterations: %s and %s (one is a flow's result, user(u), the other not)",
                 fa ? "a flow's" : "null", fb ? "a flow's" : "null");
        return -1;
    }
    return 0;
}

double result_merge_length(const struct result_run *rr)
{
    size_t n = rr->r.series.npoints;
    return n > 1 ? (double)n : 1;
}

/* What a saved result holds of any count is at most HTML_COUNT_MAX (its
 * readers' limit). The merge adds two such (the sum so far is checked
 * after every shard), so no sum can wrap, and one past the limit is
 * refused: it is no real run, and a merged result must read back. */
static bool over(uint64_t v)
{
    return (double)v > HTML_COUNT_MAX;
}

/* Little's law's sums of nanoseconds (connections.busy_ns ...) are not
 * counts: they pass 9e15 in a real run. Their sum over the shards must
 * still read back (a whole number up to INT64_MAX). Returns true, with err,
 * when it would not. */
static bool sums_over(const struct stats *a, const struct stats *b, char *err, size_t errlen)
{
    const struct {
        const char *name;
        uint64_t a, b;
    } sums[] = {
        {"busy_ns", a->busy_ns, b->busy_ns}, {"in_flight_ns", a->flight_ns, b->flight_ns},
        {"waiting_ns", a->queued_ns, b->queued_ns}, {"batches", a->batches, b->batches},
    };
    for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++) {
        uint64_t t;
        if (__builtin_add_overflow(sums[i].a, sums[i].b, &t) || t > INT64_MAX) {
            snprintf(err, errlen, "connections.%s: added to the other shards', more than %" PRId64 ": not a real result",
                     sums[i].name, INT64_MAX);
            return true;
        }
    }
    return false;
}

/* The first count of a flow's past the limit, named as the JSON names it,
 * into buf; NULL when none is. The checks' totals too: the JSON has them. */
static const char *flow_over(const struct stats_flow *f, char *buf, size_t len)
{
    const struct {
        const char *name;
        uint64_t v;
    } one[] = {
        {"iterations.started", f->started}, {"iterations.completed", f->completed},
        {"iterations.failed", f->failed},   {"iterations.cut_off", f->cut_off},
        {"iterations.failures.other", f->reasons_more_count},
    };
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
        if (over(one[i].v))
            return snprintf(buf, len, "%s", one[i].name), buf;
    for (size_t i = 0; i < f->nreasons; i++)
        if (over(f->reasons[i].count))
            return snprintf(buf, len, "iterations.failures.reasons \"%.60s\"", f->reasons[i].reason), buf;
    uint64_t pass, fail;
    stats_flow_check_totals(f, &pass, &fail);
    if (over(pass) || over(fail))
        return snprintf(buf, len, "checks.%s", over(pass) ? "passed" : "failed"), buf;
    for (uint32_t i = 0; i < f->ngroups; i++) {
        const struct stats_group *g = f->groups[i];
        if (g && (over(g->count) || over(g->failed)))
            return snprintf(buf, len, "groups.%.60s", g->name), buf;
    }
    return NULL;
}

/* The first count of s past the limit, named as the JSON names it into
 * buf; NULL when none is. */
static const char *count_over(const struct stats *s, char *buf, size_t len)
{
    const struct {
        const char *name;
        uint64_t v;
    } one[] = {
        {"requests.started", s->started}, {"requests.completed", s->completed}, {"requests.cut_off", s->cut_off},
        {"bytes.read", s->bytes_read}, {"bytes.written", s->bytes_written}, {"connections_opened", s->connects},
        {"rate.sent", s->arrivals}, {"rate.unsent", s->unsent}, {"tls.handshakes.full", s->tls_full},
        {"tls.handshakes.resumed", s->tls_resumed}, {"http2.connections", s->h2_connections},
        {"http2.http1_fallbacks", s->h1_fallbacks}, {"http2.retried", s->h2_retried},
        {"http2.header_bytes.wire", s->h2_header_wire}, {"http2.header_bytes.decoded", s->h2_header_decoded},
        {"failures.other", s->reasons_more_count},
    };
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
        if (over(one[i].v))
            return snprintf(buf, len, "%s", one[i].name), buf;
    for (int k = 0; k < STATS_ERR_KINDS; k++) {
        if (over(s->errors[k]))
            return snprintf(buf, len, "errors.%s", stats_error_name(k)), buf;
        const struct stats_kind_reasons *kr = &s->kind_reasons[k];
        for (size_t i = 0; i < kr->n; i++)
            if (over(kr->r[i].count))
                return snprintf(buf, len, "%s.reasons \"%.60s\"", stats_error_name(k), kr->r[i].reason), buf;
        if (over(kr->other))
            return snprintf(buf, len, "%s.other", stats_error_name(k)), buf;
    }
    for (int c = 0; c < STATS_STATUS_MAX; c++)
        if (over(s->status[c]))
            return snprintf(buf, len, "status.%d", c), buf;
    for (size_t i = 0; i < s->nreasons; i++)
        if (over(s->reasons[i].count))
            return snprintf(buf, len, "failures.reasons \"%.60s\"", s->reasons[i].reason), buf;
    for (uint32_t i = 0; i < s->nnames; i++) {
        const struct stats_name *n = s->names ? s->names[i] : NULL;
        if (!n)
            continue;
        uint64_t most = n->started > n->completed ? n->started : n->completed;
        if (n->cut_off > most)
            most = n->cut_off;
        if (n->reasons_more_count > most)
            most = n->reasons_more_count;
        for (int k = 0; k < STATS_ERR_KINDS; k++)
            most = n->errors[k] > most ? n->errors[k] : most;
        for (int c = 0; c < STATS_STATUS_MAX; c++)
            most = n->status[c] > most ? n->status[c] : most;
        for (size_t r = 0; r < n->nreasons; r++)
            most = n->reasons[r].count > most ? n->reasons[r].count : most;
        if (over(most))
            return snprintf(buf, len, "names.%.60s", n->name), buf;
    }
    const struct stats_stream *st = &s->stream;
    const struct {
        const char *name;
        uint64_t v;
    } streams[] = {
        {"stream.streams", st->streams}, {"stream.events", st->events}, {"stream.tokens_out", st->tokens_out},
        {"stream.tokens_in", st->tokens_in}, {"stream.peak", st->peak}, {"stream.too_large", st->too_large},
    };
    for (size_t i = 0; i < sizeof streams / sizeof streams[0]; i++)
        if (over(streams[i].v))
            return snprintf(buf, len, "%s", streams[i].name), buf;
    return flow_over(&s->flow, buf, len);
}

/* A second's counts, the same way (each at most the limit). */
static bool point_over(const struct series_point *p)
{
    const struct series_counts *c = &p->c;
    bool o = over(c->requests) || over(c->bytes) || over(c->sent) || over(p->sendlag_count) || over(c->events) ||
             over(c->tokens) || over(c->streams) || over(p->ttft_count) || over(p->itl_count);
    for (int i = 0; i < SERIES_CLASSES; i++)
        o |= over(c->status[i]);
    for (int e = 0; e < SERIES_KINDS; e++)
        o |= over(c->errors[e]);
    return o;
}

void result_merge_start(struct result_merge *m, struct result_run *first, double apart_max)
{
    *m = (struct result_merge){.into = first, .shards = 1, .apart_max = apart_max};
    m->first_start = m->last_start = first->r.start_epoch;
    m->medians = xcalloc(1, sizeof *m->medians);
    if (first->r.saved_conns.n)
        m->medians[m->nmedians++] = first->r.saved_conns.median;
}

/* Adds the second's latencies (HdrHistogram text) into *acc (made at the
 * first). Returns 0, or -1 with err. */
static int add_hist_text(struct hist **acc, const char *text, char *err, size_t errlen)
{
    if (!text || !*text)
        return 0;
    struct hist h;
    if (hdr_decode(text, strlen(text), &h, err, errlen) < 0)
        return -1;
    if (!*acc) {
        *acc = xmalloc(sizeof **acc);
        **acc = h;
        return 0;
    }
    int rc = hist_merge(*acc, &h);
    hist_free(&h);
    if (rc < 0)
        snprintf(err, errlen, "a histogram of another configuration than the other shards', or whose count "
                              "overflows with theirs");
    return rc;
}

/* A per-second figure without a histogram in a saved result: its count
 * the sum, each percentile the higher shard's (an upper bound). */
static void add_bound(uint64_t *count, int64_t *pa, int64_t *pb, uint64_t n, int64_t a, int64_t b)
{
    if (!n)
        return;
    *count += n;
    if (a > *pa)
        *pa = a;
    if (pb && b > *pb)
        *pb = b;
}

/* One second of both series: counts added, latencies merged (the
 * percentiles from the merged histogram). The send lag, the TTFT and the
 * inter-token gaps have no histogram per second in a saved result: their
 * counts are the sums, their p50 and p99 the higher shard's (an upper
 * bound, said in docs/distributed.md). */
static int add_point(struct series_point *acc, struct hist **h, const struct series_point *p, char *err,
                     size_t errlen)
{
    series_counts_add(&acc->c, &p->c);
    add_bound(&acc->sendlag_count, &acc->sendlag_p50, &acc->sendlag_p99, p->sendlag_count, p->sendlag_p50,
              p->sendlag_p99);
    add_bound(&acc->ttft_count, &acc->ttft_p50, &acc->ttft_p99, p->ttft_count, p->ttft_p50, p->ttft_p99);
    add_bound(&acc->itl_count, &acc->itl_p99, NULL, p->itl_count, p->itl_p99, 0);
    if (point_over(acc)) {
        snprintf(err, errlen, "a count, added to the other shards' in that second, is more than %.0f, the most a "
                 "result counts: not a real result", HTML_COUNT_MAX);
        return -1;
    }
    return add_hist_text(h, p->latency_count ? p->hist : NULL, err, errlen);
}

/* Reads point i of s (in range or not: an empty point beyond it) and adds
 * it. */
static int add_from(const struct series *s, long i, struct series_point *acc, struct hist **h, char **buf,
                    size_t *cap, char *err, size_t errlen)
{
    if (i < 0 || (size_t)i >= s->npoints)
        return 0;
    struct series_point p;
    if (series_point_get(s, (size_t)i, &p, buf, cap) < 0) {
        snprintf(err, errlen, "series: a point could not be read back");
        return -1;
    }
    return add_point(acc, h, &p, err, errlen);
}

/* The two series, second by second from the earlier start: into's starts
 * at second a_off of the merged one, from's at b_off. */
static int merge_series(struct series *into, const struct series *from, long a_off, long b_off, char *err,
                        size_t errlen)
{
    struct series out;
    series_init(&out, NULL, 0);
    long n = (long)into->npoints + a_off;
    if ((long)from->npoints + b_off > n)
        n = (long)from->npoints + b_off;
    char *buf = NULL;
    size_t cap = 0;
    int rc = 0;
    for (long j = 0; j < n && rc == 0; j++) {
        struct series_point acc = {0};
        struct hist *h = NULL;
        char why[256];
        rc = add_from(into, j - a_off, &acc, &h, &buf, &cap, why, sizeof why);
        if (rc == 0)
            rc = add_from(from, j - b_off, &acc, &h, &buf, &cap, why, sizeof why);
        if (rc < 0) {
            snprintf(err, errlen, "series.points[%ld]: %s", j, why);
        } else if (h) {
            series_point_latency(&acc, h);
        }
        if (rc == 0)
            series_append(&out, &acc);
        free(acc.hist);
        if (h) {
            hist_free(h);
            free(h);
        }
    }
    free(buf);
    if (rc < 0) {
        series_free(&out);
        return -1;
    }
    /* The merged points end where the later of the two ends; its last
     * point may then cover part of its second. */
    int64_t a_end = a_off * SERIES_NS + (into->end_ns ? into->end_ns : (int64_t)into->npoints * SERIES_NS);
    int64_t b_end = b_off * SERIES_NS + (from->end_ns ? from->end_ns : (int64_t)from->npoints * SERIES_NS);
    out.end_ns = a_end > b_end ? a_end : b_end;
    series_free(into);
    *into = out;
    return 0;
}

/* Each scenario of b into a's of its name (shards of one run have the
 * same scenarios): counts, histograms, iterations, checks and groups
 * added, its length the longer. Returns 0, or -1 with err. */
static int merge_scenarios(struct run_result *a, const struct run_result *b, char *err, size_t errlen)
{
    if (a->nscenarios != b->nscenarios)
        return snprintf(err, errlen, "scenarios: %u in one shard, %u in another: not shards of one run",
                        a->nscenarios, b->nscenarios), -1;
    for (uint32_t i = 0; i < b->nscenarios; i++) {
        struct run_scenario *x = NULL, *y = &b->scenarios[i];
        for (uint32_t j = 0; j < a->nscenarios && !x; j++)
            if (strcmp(a->scenarios[j].name, y->name) == 0)
                x = &a->scenarios[j];
        if (!x)
            return snprintf(err, errlen, "scenarios: \"%s\" is in one shard only: not shards of one run", y->name),
                   -1;
        if (stats_flow_align(&y->stats.flow, &x->stats.flow) < 0 || !stats_merge_fits(&x->stats, &y->stats) ||
            sums_over(&x->stats, &y->stats, err, errlen))
            return snprintf(err, errlen, "scenario \"%s\": its figures added to the other shards' overflow: not a "
                            "real result", y->name), -1;
        stats_merge(&x->stats, &y->stats);
        if (y->duration_ns > x->duration_ns)
            x->duration_ns = y->duration_ns;
        x->users = x->users > y->users ? x->users : y->users; /* the scenario's, the same in each */
    }
    return 0;
}

int result_merge_add(struct result_merge *m, struct result_run *from, char *err, size_t errlen)
{
    struct run_result *a = &m->into->r, *b = &from->r;
    if (stats_align_names(&b->stats, &a->stats) < 0) {
        snprintf(err, errlen, "the shards have more than %d request names together", NAMES_MAX);
        return -1;
    }
    if (stats_align_tags(&b->stats, &a->stats) < 0) {
        snprintf(err, errlen, "the shards have more than %d tags (key and value) together", TAGS_MAX);
        return -1;
    }
    /* a flow's checks and groups matched by name too */
    if (stats_flow_align(&b->stats.flow, &a->stats.flow) < 0) {
        snprintf(err, errlen, "the shards have more than %d check names or group names together", NAMES_MAX);
        return -1;
    }
    if (!stats_merge_fits(&a->stats, &b->stats)) {
        snprintf(err, errlen, "a histogram whose count or sum, added to the other shards', overflows: not a real "
                 "result");
        return -1;
    }
    /* Each shard's span on the wall clock; with --start-at they start
     * together, else the merged run spans from the first start to the
     * last end. Seconds of the series align on the earliest start, so
     * the merged series is as long as the starts' spread plus a shard's
     * series: the spread is bounded first (NaN is refused too). */
    double a0 = a->start_epoch, b0 = b->start_epoch;
    double first = m->first_start < b0 ? m->first_start : b0, last = m->last_start > b0 ? m->last_start : b0;
    if (!(last - first <= m->apart_max)) {
        snprintf(err, errlen, "start_time: %.6f, %.3f s from another shard's start, more than the %.0f s the run "
                 "lasted: not a shard of this run", b0, fabs(b0 - (b0 == first ? last : first)), m->apart_max);
        return -1;
    }
    m->first_start = first;
    m->last_start = last;
    double start = a0 < b0 ? a0 : b0;
    long a_off = lround(a0 - start), b_off = lround(b0 - start);
    if (merge_series(&a->series, &b->series, a_off, b_off, err, errlen) < 0)
        return -1;
    double a_end = a0 + (double)a->duration_ns / 1e9, b_end = b0 + (double)b->duration_ns / 1e9;
    double a_sent = a0 + (double)a->sent_span_ns / 1e9, b_sent = b0 + (double)b->sent_span_ns / 1e9;
    a->duration_ns = llround(((a_end > b_end ? a_end : b_end) - start) * 1e9);
    a->sent_span_ns = llround(((a_sent > b_sent ? a_sent : b_sent) - start) * 1e9);
    double a_due = a0 + (double)a->due_span_ns / 1e9, b_due = b0 + (double)b->due_span_ns / 1e9;
    a->due_span_ns = a->due_span_ns > 0 && b->due_span_ns > 0
                         ? llround(((a_due > b_due ? a_due : b_due) - start) * 1e9)
                         : 0; /* not known for one of them: not for the run */
    a->t_end = a->duration_ns;
    a->start_epoch = start;
    if (sums_over(&a->stats, &b->stats, err, errlen))
        return -1;
    /* The shards' streams were open at once at most all together: the sum
     * of their peaks is an upper bound (stats_stream_merge keeps the
     * larger, a run's workers' rule). */
    uint64_t peak = a->stats.stream.peak + b->stats.stream.peak;
    if (merge_scenarios(a, b, err, errlen) < 0)
        return -1;
    stats_merge(&a->stats, &b->stats);
    a->stats.stream.peak = peak;
    char field[160];
    if (count_over(&a->stats, field, sizeof field)) {
        snprintf(err, errlen, "%s: added to the other shards', more than %.0f, the most a result counts: not a "
                 "real result", field, HTML_COUNT_MAX);
        return -1;
    }
    result_aside_add(a, b);
    a->interrupted |= b->interrupted;
    a->little_legacy |= b->little_legacy;
    if (!a->unreachable)
        a->unreachable = b->unreachable;
    a->workers = xrealloc(a->workers, (a->nworkers + b->nworkers + 1) * sizeof *a->workers);
    memcpy(a->workers + a->nworkers, b->workers, b->nworkers * sizeof *b->workers);
    a->nworkers += b->nworkers;
    struct run_conns *ka = &a->saved_conns, *kb = &b->saved_conns;
    if (kb->n) {
        m->medians = xrealloc(m->medians, (m->nmedians + 1) * sizeof *m->medians);
        m->medians[m->nmedians++] = kb->median;
        if (!ka->n || kb->min < ka->min)
            ka->min = kb->min;
        if (kb->max > ka->max)
            ka->max = kb->max;
        ka->by_median = (ka->n && ka->by_median) || kb->by_median; /* a shard from before the mean */
        /* each shard's starved counted against its own mean */
        if (__builtin_add_overflow(ka->n, kb->n, &ka->n) || __builtin_add_overflow(ka->sum, kb->sum, &ka->sum) ||
            __builtin_add_overflow(ka->starved, kb->starved, &ka->starved) ||
            __builtin_add_overflow(ka->idle_at_end, kb->idle_at_end, &ka->idle_at_end)) {
            snprintf(err, errlen, "connections: more connections or responses with the other shards' than a count holds");
            return -1;
        }
    }
    /* A threshold that stopped one shard stopped part of the run. */
    for (size_t i = 0; i < m->into->o.nthresholds && i < from->o.nthresholds; i++)
        a->thresholds[i].aborted |= b->thresholds[i].aborted;
    /* every shard's threads ran the run */
    if (__builtin_add_overflow(m->into->o.threads, from->o.threads, &m->into->o.threads)) {
        snprintf(err, errlen, "options.threads: more threads with the other shards' than a count holds");
        return -1;
    }
    /* What may differ from shard to shard is the merged run's only when it
     * does not (null in the JSON otherwise): a seed replays one process. */
    struct options *oa = &m->into->o;
    if (oa->seed != from->o.seed)
        oa->seed = OPTIONS_NO_SEED;
    if (oa->source_spec && (!from->o.source_spec || strcmp(oa->source_spec, from->o.source_spec) != 0))
        oa->source_spec = NULL;
    m->shards++;
    return 0;
}

static int by_value(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

void result_merge_finish(struct result_merge *m)
{
    struct result_run *rr = m->into;
    struct run_result *r = &rr->r;
    r->merged = m->shards;
    rr->o.shard = (struct shard){0, m->shards};
    stats_sort_reasons(&r->stats);
    for (uint32_t i = 0; i < r->nscenarios; i++)
        stats_sort_reasons(&r->scenarios[i].stats);
    /* Responses per connection: the shards' counts are not in the file,
     * only their medians; the merged figure is the median of those. */
    if (m->nmedians) {
        qsort(m->medians, m->nmedians, sizeof *m->medians, by_value);
        r->saved_conns.median = m->medians[m->nmedians / 2];
    }
    report_judge_thresholds(&rr->o, r);
    free(m->medians);
    m->medians = NULL;
}

void result_merge_partial(struct result_merge *m, uint32_t *missing, uint32_t n)
{
    struct result_run *rr = m->into;
    free(rr->r.missing);
    rr->r.missing = missing;
    rr->r.nmissing = n;
    rr->o.shard = (struct shard){0, m->shards + n};
}
