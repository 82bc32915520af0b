/* Evaluating parsed thresholds (threshold.c) on a struct stats: the
 * merged results after the run, or a snapshot of a run in progress. A
 * figure without data never passes silently: only "or nodata" lets it. */
#include "threshold.h"

#include <math.h>
#include <string.h>

static const struct hist *hist_of(const struct threshold *th, const struct stats *s)
{
    switch (th->source) {
    case THRESHOLD_SERVICE:
        return &s->service;
    case THRESHOLD_CONNECT:
        return &s->connect;
    case THRESHOLD_WAITING:
        return &s->waiting;
    default:
        return &s->latency;
    }
}

/* A histogram's figure, or NAN when it holds nothing: in ns for the
 * times, in the script's unit for a record (its values are thousandths;
 * its percentiles rounded as the report shows them). */
static double hist_figure(const struct threshold *th, const struct hist *h, bool record)
{
    double scale = record ? METRIC_SCALE : 1;
    if (th->stat == THRESHOLD_COUNT)
        return (double)h->count;
    if (h->count == 0)
        return NAN;
    switch (th->stat) {
    case THRESHOLD_PCT:
        return record ? metrics_percentile(h, th->pct) : (double)hist_percentile(h, th->pct);
    case THRESHOLD_MEAN:
        return hist_mean(h) / scale;
    case THRESHOLD_MIN:
        return (double)h->min / scale;
    case THRESHOLD_MAX:
        return (double)h->max / scale;
    default:
        return hist_stdev(h) / scale;
    }
}

/* n as a count, or as a percentage of of (NAN when of is 0: no data). */
static double count_or_share(const struct threshold *th, uint64_t n, uint64_t of)
{
    if (of == 0)
        return NAN;
    return th->percent ? 100.0 * (double)n / (double)of : (double)n;
}

static double metric_figure(const struct threshold *th, const struct stats *s, const char **note)
{
    int id = metrics_find(&s->metrics, th->name);
    if (id < 0)
        return NAN;
    const struct metric *m = &s->metrics.m[id];
    if (m->kind == METRIC_COUNTER && th->stat != THRESHOLD_TOTAL) {
        *note = "a counter: metric.NAME is its total";
        return NAN;
    }
    if (m->kind == METRIC_RECORD && th->stat == THRESHOLD_TOTAL) {
        *note = "a record: give a figure (.mean, .p99, .max, .count...)";
        return NAN;
    }
    return m->kind == METRIC_COUNTER ? m->total : hist_figure(th, &m->values, true);
}

/* The figure in th's base unit; NAN when there is no data. */
static double figure(const struct threshold *th, const struct stats *s, int64_t duration_ns, const char **note)
{
    uint64_t n = 0;
    switch (th->source) {
    case THRESHOLD_LATENCY:
    case THRESHOLD_SERVICE:
    case THRESHOLD_CONNECT:
    case THRESHOLD_WAITING:
        return hist_figure(th, hist_of(th, s), false);
    case THRESHOLD_ERRORS:
        n = th->error_kind < 0 ? stats_failed(s) : s->errors[th->error_kind];
        return count_or_share(th, n, s->started);
    case THRESHOLD_RPS:
        return duration_ns > 0 ? (double)s->completed * 1e9 / (double)duration_ns : NAN;
    case THRESHOLD_REQUESTS:
        return (double)s->completed;
    case THRESHOLD_STATUS:
        if (!th->status_class)
            n = s->status[th->status];
        for (int c = th->status * 100; th->status_class && c < th->status * 100 + 100; c++)
            n += s->status[c];
        return count_or_share(th, n, s->completed);
    case THRESHOLD_REASON:
        for (size_t i = 0; i < s->nreasons; i++)
            if (strcmp(s->reasons[i].reason, th->name) == 0)
                n = s->reasons[i].count;
        return count_or_share(th, n, s->started);
    case THRESHOLD_METRIC:
        return metric_figure(th, s, note);
    }
    return NAN;
}

static bool holds(enum threshold_op op, double v, double limit)
{
    switch (op) {
    case THRESHOLD_LT:
        return v < limit;
    case THRESHOLD_LE:
        return v <= limit;
    case THRESHOLD_GT:
        return v > limit;
    case THRESHOLD_GE:
        return v >= limit;
    case THRESHOLD_EQ:
        return v == limit;
    case THRESHOLD_NE:
        return v != limit;
    }
    return false;
}

void threshold_eval(const struct threshold *th, const struct stats *s, int64_t duration_ns,
                    struct threshold_result *res)
{
    *res = (struct threshold_result){0};
    res->observed = figure(th, s, duration_ns, &res->note);
    res->nodata = isnan(res->observed) && !res->note;
    if (res->note)
        res->pass = false; /* a misnamed figure: "or nodata" must not hide it */
    else if (res->nodata)
        res->pass = th->or_nodata;
    else
        res->pass = holds(th->op, res->observed, th->limit);
}

/* Whether the figure is a count that can only grow as the run goes on. */
static bool only_grows(const struct threshold *th)
{
    if (th->percent)
        return false;
    switch (th->source) {
    case THRESHOLD_ERRORS:
    case THRESHOLD_REQUESTS:
    case THRESHOLD_STATUS:
    case THRESHOLD_REASON:
        return true;
    default:
        return th->stat == THRESHOLD_COUNT;
    }
}

bool threshold_broken_live(const struct threshold *th, const struct stats *snapshot, int64_t elapsed_ns)
{
    if (!th->abort || elapsed_ns < th->abort_after_ns)
        return false;
    struct threshold_result r;
    threshold_eval(th, snapshot, elapsed_ns, &r);
    if (r.pass || r.nodata || r.note)
        return false;
    if (!only_grows(th))
        return true;
    /* Broken for good only once the count is past what < , <= or == allow. */
    return (th->op == THRESHOLD_LT || th->op == THRESHOLD_LE || th->op == THRESHOLD_EQ) && r.observed >= th->limit;
}
