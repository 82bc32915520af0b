/* Evaluating parsed thresholds (threshold.c) on a struct stats: the
 * merged results after the run, or a snapshot of a run in progress. A
 * --fail-if is judged as the --threshold of the opposite operator (fail if
 * p99 > 50ms: p99 <= 50ms must hold). A figure without data never passes
 * silently, under either word: only "or nodata" (--threshold) lets it. */
#include "threshold.h"
#include "threshold_internal.h"

#include "stats_tags.h"

#include <math.h>
#include <string.h>

/* What a figure is read from: the whole run's counts, or one request
 * name's (which has no connect and waiting times: the grammar refuses
 * them). */
struct view {
    const struct hist *latency, *service, *connect, *waiting;
    uint64_t started, completed;
    const uint64_t *errors, *status;
    const struct stats_reason *reasons;
    size_t nreasons;
};

static void view_run(struct view *v, const struct stats *s)
{
    *v = (struct view){&s->latency, &s->service, &s->connect, &s->waiting, s->started, s->completed,
                       s->errors,   s->status,   s->reasons,  s->nreasons};
}

static void view_name(struct view *v, const struct stats_name *n)
{
    *v = (struct view){&n->latency, &n->service, NULL,      NULL,       n->started, n->completed,
                       n->errors,   n->status,   n->reasons, n->nreasons};
}

static const struct hist *hist_of(const struct threshold *th, const struct view *v)
{
    switch (th->source) {
    case THRESHOLD_SERVICE:
        return v->service;
    case THRESHOLD_CONNECT:
        return v->connect;
    case THRESHOLD_WAITING:
        return v->waiting;
    default:
        return v->latency;
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

/* A histogram of ns's figure (threshold_stream_figure's reader). */
static double time_figure(const struct threshold *th, const struct hist *h)
{
    return h->counts ? hist_figure(th, h, false) : NAN;
}

/* n of of as a share: a fraction, or a percentage with % (NAN when of is
 * 0: no data). */
static double share(const struct threshold *th, uint64_t n, uint64_t of)
{
    if (of == 0)
        return NAN;
    return (th->percent ? 100.0 : 1.0) * (double)n / (double)of;
}

/* n as a count, or as a percentage of of (NAN when of is 0: no data). */
static double count_or_share(const struct threshold *th, uint64_t n, uint64_t of)
{
    if (of == 0)
        return NAN;
    return th->percent ? 100.0 * (double)n / (double)of : (double)n;
}

/* Every response the server gave: the statuses counted, those a script
 * then failed included (a status share's denominator, so that a share is
 * never above 100 %). */
static uint64_t responses(const struct view *v)
{
    uint64_t n = 0;
    for (int c = 0; c < STATS_STATUS_MAX; c++)
        n += v->status[c];
    return n;
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

/* A flow's figure (threshold_flow.c); NAN on a run that is no flow, or
 * a check or group name the run never used. */
static double flow_figure(const struct threshold *th, const struct stats_flow *f)
{
    if (!f->on)
        return NAN;
    uint64_t pass, fail;
    switch (th->source) {
    case THRESHOLD_ITERATIONS:
        return th->stat == THRESHOLD_FAILED ? count_or_share(th, f->failed, f->started) : (double)f->completed;
    case THRESHOLD_ITERATION:
        return hist_figure(th, &f->duration, false);
    case THRESHOLD_CHECKS:
        if (th->name) {
            const struct stats_check *c = stats_flow_check_find(f, th->name);
            if (!c)
                return NAN;
            pass = c->pass, fail = c->fail;
        } else {
            stats_flow_check_totals(f, &pass, &fail);
        }
        return share(th, pass, pass + fail);
    default: { /* THRESHOLD_GROUP */
        const struct stats_group *g = stats_flow_group_find(f, th->name);
        if (!g)
            return NAN;
        return th->stat == THRESHOLD_FAILED ? count_or_share(th, g->failed, g->count)
                                            : hist_figure(th, &g->duration, false);
    }
    }
}

/* The figure in th's base unit; NAN when there is no data (a request
 * name no request carried has none at all). */
static double figure(const struct threshold *th, const struct stats *s, int64_t duration_ns, const char **note)
{
    struct view v;
    if (th->request_name || th->tag) {
        const struct stats_name *named = th->tag ? stats_tag_find(s, th->tag) : stats_name_find(s, th->request_name);
        if (!named)
            return NAN;
        view_name(&v, named);
    } else {
        view_run(&v, s);
    }
    uint64_t n = 0;
    switch (th->source) {
    case THRESHOLD_LATENCY:
    case THRESHOLD_SERVICE:
    case THRESHOLD_CONNECT:
    case THRESHOLD_WAITING: {
        const struct hist *h = hist_of(th, &v);
        return h && h->counts ? hist_figure(th, h, false) : NAN;
    }
    case THRESHOLD_ERRORS:
        for (int e = 0; e < STATS_ERR_KINDS; e++)
            n += th->error_kind < 0 || th->error_kind == e ? v.errors[e] : 0;
        return count_or_share(th, n, v.started);
    case THRESHOLD_FAILED_SHARE: /* of the requests that ended: cut off ones neither failed nor not */
        for (int e = 0; e < STATS_ERR_KINDS; e++)
            n += v.errors[e];
        return share(th, n, v.completed + n);
    case THRESHOLD_RPS:
        return duration_ns > 0 ? (double)v.completed * 1e9 / (double)duration_ns : NAN;
    case THRESHOLD_REQUESTS:
        return (double)v.completed;
    case THRESHOLD_STATUS:
        if (!th->status_class)
            n = v.status[th->status];
        for (int c = th->status * 100; th->status_class && c < th->status * 100 + 100; c++)
            n += v.status[c];
        return count_or_share(th, n, responses(&v));
    case THRESHOLD_REASON:
        for (size_t i = 0; i < v.nreasons; i++)
            if (strcmp(v.reasons[i].reason, th->name) == 0)
                n = v.reasons[i].count;
        return count_or_share(th, n, v.started);
    case THRESHOLD_METRIC:
        return metric_figure(th, s, note);
    case THRESHOLD_ITERATIONS:
    case THRESHOLD_ITERATION:
    case THRESHOLD_CHECKS:
    case THRESHOLD_GROUP:
        return flow_figure(th, &s->flow);
    case THRESHOLD_STREAM:
        return threshold_stream_figure(th, &s->stream, time_figure);
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

/* The operator that must hold for the run to pass th: its own under
 * --threshold, the opposite under --fail-if. */
static enum threshold_op must_hold(const struct threshold *th)
{
    if (th->word == THRESHOLD_MUST_HOLD)
        return th->op;
    switch (th->op) {
    case THRESHOLD_LT:
        return THRESHOLD_GE;
    case THRESHOLD_LE:
        return THRESHOLD_GT;
    case THRESHOLD_GT:
        return THRESHOLD_LE;
    case THRESHOLD_GE:
        return THRESHOLD_LT;
    case THRESHOLD_EQ:
        return THRESHOLD_NE;
    case THRESHOLD_NE:
        return THRESHOLD_EQ;
    }
    return th->op;
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
        res->pass = holds(must_hold(th), res->observed, th->limit);
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
    case THRESHOLD_ITERATIONS:
        return true;
    case THRESHOLD_STREAM: /* events, tokens, streams; a histogram's count */
        return th->stat == THRESHOLD_TOTAL || th->stat == THRESHOLD_COUNT;
    case THRESHOLD_GROUP:
        return th->stat == THRESHOLD_FAILED || th->stat == THRESHOLD_COUNT;
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
    /* Broken for good only once the count is past what < , <= or == allow
     * (a --fail-if's >, >= or != once past its value). */
    enum threshold_op op = must_hold(th);
    return (op == THRESHOLD_LT || op == THRESHOLD_LE || op == THRESHOLD_EQ) && r.observed >= th->limit;
}
