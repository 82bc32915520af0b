/* Reading a saved result for `volley compare` into figures and per-second
 * samples (the noise rule that judges a change is compare_noise.c's). The
 * file is untrusted: every field is type-checked and named in errors (the
 * field readers are the HTML report's), every histogram decoded with caps. */
#include "compare.h"

#include "stats.h"

#include "html_internal.h"
#include "xalloc.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static_assert(COMPARE_KINDS == STATS_ERR_KINDS, "a result counts every failure kind");
static const char *const hist_keys[3] = {"latency", "service", "sendlag"};
static const double point_pcts[4] = {50, 90, 99, 99.9};

/* The histogram parent.key (parent at path, "" at the top) into d, with
 * its exact max and mean; absent and not required: d->has stays false. */
static void read_dist(struct html_rd *rd, const struct json *parent, const char *path, const char *key,
                      bool required, struct compare_dist *d)
{
    d->exact_max = d->exact_mean = NAN;
    const struct json *o = html_rd_of(rd, parent, path, key, JSON_OBJECT, required);
    if (!o || rd->failed)
        return;
    char at[400];
    snprintf(at, sizeof at, "%s%s%s", path, *path ? "." : "", key);
    if (!html_rd_hist(rd, o, at, &d->h))
        return;
    d->has = true;
    double count = html_rd_count(rd, o, at, "count");
    if (!rd->failed && count != (double)d->h.count)
        html_rd_fail(rd, at, "count", "%.17g, but its hdr histogram holds %lld values", count,
                     (long long)d->h.count);
    d->exact_max = html_rd_num(rd, o, at, "max", false) * 1e3;
    d->exact_mean = html_rd_num(rd, o, at, "mean", false) * 1e3;
}

static void free_dist(struct compare_dist *d)
{
    if (d->has)
        hist_free(&d->h);
    d->has = false;
}

/* The members of obj (an object of groups or names, at path) into *out
 * (allocated), each by read_one. */
static void read_named(struct html_rd *rd, const struct json *obj, const char *path, struct compare_named **out,
                       size_t *n, void (*read_one)(struct html_rd *, const struct json *, const char *,
                                                   struct compare_named *))
{
    if (!obj || obj->len == 0)
        return;
    *out = xcalloc(obj->len, sizeof **out);
    for (size_t i = 0; i < obj->len && !rd->failed; i++) {
        const struct json *one = &obj->members[i].value;
        char at[400];
        snprintf(at, sizeof at, "%s.%s", path, obj->members[i].key);
        if (one->type != JSON_OBJECT) {
            html_rd_fail(rd, at, NULL, "expected an object, found %s", json_in_type_name(one));
            return;
        }
        struct compare_named *c = &(*out)[(*n)++];
        c->name = obj->members[i].key;
        c->dist.exact_max = c->dist.exact_mean = NAN;
        read_one(rd, one, at, c);
    }
}

/* groups.NAME: {"count", "failed", "duration"} */
static void read_group(struct html_rd *rd, const struct json *g, const char *at, struct compare_named *c)
{
    c->count = c->started = html_rd_count(rd, g, at, "count");
    c->failed = html_rd_count(rd, g, at, "failed");
    read_dist(rd, g, at, "duration", true, &c->dist);
}

/* names.NAME: {"requests": {"started", "completed", "failed"}, "latency"} */
static void read_name(struct html_rd *rd, const struct json *nm, const char *at, struct compare_named *c)
{
    char sub[420];
    snprintf(sub, sizeof sub, "%s.requests", at);
    const struct json *req = html_rd_of(rd, nm, at, "requests", JSON_OBJECT, true);
    c->started = html_rd_count(rd, req, sub, "started");
    c->count = html_rd_count(rd, req, sub, "completed");
    c->failed = html_rd_count(rd, req, sub, "failed");
    read_dist(rd, nm, at, "latency", true, &c->dist);
}

/* A flow's figures ("iterations" not null), and any run's request names. */
static void read_flow(struct html_rd *rd, struct compare_run *r, const struct json *root)
{
    read_named(rd, html_rd_of(rd, root, "", "names", JSON_OBJECT, false), "names", &r->names, &r->nnames,
               read_name);
    const struct json *it = html_rd_of(rd, root, "", "iterations", JSON_OBJECT, false);
    if (!it || rd->failed)
        return;
    r->flow = true;
    r->iter_rate = html_rd_num(rd, it, "iterations", "per_sec", true);
    r->iter_started = html_rd_count(rd, it, "iterations", "started");
    r->iter_failed = html_rd_count(rd, it, "iterations", "failed");
    read_dist(rd, it, "iterations", "duration", true, &r->iteration);
    const struct json *c = html_rd_of(rd, root, "", "checks", JSON_OBJECT, false);
    r->checks_passed = c ? html_rd_count(rd, c, "checks", "passed") : 0;
    r->checks_failed = c ? html_rd_count(rd, c, "checks", "failed") : 0;
    read_named(rd, html_rd_of(rd, root, "", "groups", JSON_OBJECT, false), "groups", &r->groups, &r->ngroups,
               read_group);
}

/* Share in percent of part in whole, NAN when whole is 0. */
static double share(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : NAN;
}

/* Status counts: *all of them, *bad those outside 200..399 ("other" too).
 * The keys are codes ("200") in the result, classes ("2xx") in a point. */
static void read_status(struct html_rd *rd, const struct json *st, const char *path, double *all, double *bad)
{
    *all = *bad = 0;
    for (size_t i = 0; st && i < st->len && !rd->failed; i++) {
        const char *k = st->members[i].key;
        double n = html_rd_count(rd, st, path, k);
        *all += n;
        if (strlen(k) != 3 || (k[0] != '2' && k[0] != '3'))
            *bad += n;
    }
}

static void read_point(struct html_rd *rd, const struct json *p, const char *at, double span,
                       struct compare_point *cp)
{
    double req = html_rd_count(rd, p, at, "requests");
    cp->rps = req / span;
    char sub[96];
    snprintf(sub, sizeof sub, "%s.errors", at);
    const struct json *er = html_rd_of(rd, p, at, "errors", JSON_OBJECT, false);
    double failed = 0;
    for (int k = 0; k < COMPARE_KINDS; k++) {
        cp->kinds[k] = html_rd_count(rd, er, sub, stats_error_name(k));
        failed += cp->kinds[k];
    }
    /* A second's requests started are not in the series: completed + failed
     * stands for them (cut-off requests are only at the end). */
    for (int k = 0; k < COMPARE_KINDS; k++)
        cp->kinds[k] = share(cp->kinds[k], req + failed);
    cp->errors = share(failed, req + failed);
    snprintf(sub, sizeof sub, "%s.status", at);
    double all, bad;
    read_status(rd, html_rd_of(rd, p, at, "status", JSON_OBJECT, false), sub, &all, &bad);
    cp->non2xx = share(bad, all);
    for (int s = 0; s < 6; s++)
        cp->lat[s] = NAN;
    snprintf(sub, sizeof sub, "%s.latency", at);
    const struct json *lat = html_rd_of(rd, p, at, "latency", JSON_OBJECT, false);
    if (!lat || html_rd_count(rd, lat, sub, "count") == 0 || rd->failed)
        return;
    struct hist h;
    if (!html_rd_hist(rd, lat, sub, &h))
        return;
    if (h.count > 0) {
        for (int s = 0; s < 4; s++)
            cp->lat[s] = (double)hist_percentile(&h, point_pcts[s]);
        cp->lat[4] = (double)h.max;
        cp->lat[5] = hist_mean(&h);
    }
    hist_free(&h);
}

/* series.points: one sample per second; the last point's rates are per
 * second of the part it covers ("span"; in a result from before it, what
 * is left of the duration), and a part shorter than half the interval is
 * left out (too short a sample of the run's rate). */
static void read_series(struct html_rd *rd, struct compare_run *r, const struct json *root, double duration)
{
    const struct json *series = html_rd_of(rd, root, "", "series", JSON_OBJECT, false);
    double interval = html_rd_num(rd, series, "series", "interval", false);
    if (isnan(interval))
        interval = 1;
    if (!(interval > 0) || interval > 86400) {
        html_rd_fail(rd, "series", "interval", "expected a positive number of seconds, found %.17g", interval);
        return;
    }
    const struct json *pts = html_rd_of(rd, series, "series", "points", JSON_ARRAY, false);
    if (!pts || pts->len == 0)
        return;
    r->points = xcalloc(pts->len, sizeof *r->points);
    for (size_t i = 0; i < pts->len && !rd->failed; i++) {
        const struct json *p = &pts->items[i];
        char at[64];
        snprintf(at, sizeof at, "series.points[%zu]", i);
        if (p->type != JSON_OBJECT) {
            html_rd_fail(rd, at, NULL, "expected an object, found %s", json_in_type_name(p));
            return;
        }
        double t = html_rd_num(rd, p, at, "t", false);
        double start = (isnan(t) ? (double)i : t) * interval;
        double span = fmin(interval, duration - start), own = html_rd_span(rd, p, at, interval);
        if (rd->failed)
            return;
        if (isnan(duration))
            span = interval;
        if (!isnan(own))
            span = own;
        if (span < interval / 2)
            continue;
        read_point(rd, p, at, span, &r->points[r->npoints++]);
    }
}

int compare_load(struct compare_run *r, const struct json *root, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->iteration.exact_max = r->iteration.exact_mean = NAN;
    struct html_rd rd = {.err = err, .errlen = errlen};
    if (root->type != JSON_OBJECT) {
        snprintf(err, errlen, "expected a result object, found %s", json_in_type_name(root));
        return -1;
    }
    r->rps = html_rd_num(&rd, root, "", "requests_per_sec", true);
    double duration = html_rd_num(&rd, root, "", "duration", true);
    const struct json *req = html_rd_of(&rd, root, "", "requests", JSON_OBJECT, true);
    if (req && !json_in_get(req, "started"))
        html_rd_fail(&rd, "requests", "started", "missing (expected a number)");
    r->started = html_rd_count(&rd, req, "requests", "started");
    r->failed = html_rd_count(&rd, req, "requests", "failed");
    const struct json *er = html_rd_of(&rd, root, "", "errors", JSON_OBJECT, true);
    for (int k = 0; k < COMPARE_KINDS; k++)
        r->kinds[k] = html_rd_count(&rd, er, "errors", stats_error_name(k));
    read_status(&rd, html_rd_of(&rd, root, "", "status", JSON_OBJECT, true), "status", &r->responses,
                &r->non2xx);
    for (int i = 0; i < 3; i++)
        read_dist(&rd, root, "", hist_keys[i], i == 0, &r->dist[i]);
    read_series(&rd, r, root, duration);
    read_flow(&rd, r, root);
    r->secs = duration;

    const struct json *opt = html_rd_of(&rd, root, "", "options", JSON_OBJECT, false);
    const struct json *tgt = html_rd_of(&rd, root, "", "target", JSON_OBJECT, false);
    r->model = html_rd_str(&rd, root, "", "model", false, NULL);
    r->scheme = html_rd_str(&rd, tgt, "target", "scheme", false, NULL);
    r->url = html_rd_str(&rd, tgt, "target", "url", false, NULL);
    r->method = html_rd_str(&rd, opt, "options", "method", false, NULL);
    r->rate = html_rd_num(&rd, opt, "options", "rate", false);
    r->arrivals = html_rd_str(&rd, opt, "options", "arrivals", false, NULL);
    r->connections = html_rd_num(&rd, opt, "options", "connections", false);
    r->threads = html_rd_num(&rd, opt, "options", "threads", false);
    r->duration = html_rd_num(&rd, opt, "options", "duration", false);
    r->requests = html_rd_num(&rd, opt, "options", "requests", false);
    r->iterations = html_rd_num(&rd, opt, "options", "iterations", false);
    const struct json *h2 = html_rd_of(&rd, root, "", "http2", JSON_OBJECT, false);
    r->http2 = h2 ? html_rd_str(&rd, h2, "http2", "mode", false, NULL) : NULL;
    if (h2 && !r->http2)
        r->http2 = "yes";
    if (rd.failed) {
        compare_free(r);
        return -1;
    }
    return 0;
}

void compare_free(struct compare_run *r)
{
    for (int i = 0; i < 3; i++)
        free_dist(&r->dist[i]);
    free_dist(&r->iteration);
    for (size_t i = 0; i < r->ngroups; i++)
        free_dist(&r->groups[i].dist);
    for (size_t i = 0; i < r->nnames; i++)
        free_dist(&r->names[i].dist);
    free(r->groups);
    free(r->names);
    free(r->points);
    memset(r, 0, sizeof *r);
}

/* The group or request name called name in r, or NULL. */
static const struct compare_named *find_named(const struct compare_named *v, size_t n, const char *name)
{
    for (size_t i = 0; name && i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return &v[i];
    return NULL;
}

const struct compare_named *compare_group(const struct compare_run *r, const char *name)
{
    return find_named(r->groups, r->ngroups, name);
}

const struct compare_named *compare_name(const struct compare_run *r, const char *name)
{
    return find_named(r->names, r->nnames, name);
}

/* Per second of the run, NAN without a duration. */
static double per_sec(double n, double secs)
{
    return secs > 0 ? n / secs : NAN;
}

const struct compare_dist *compare_figure_dist(const struct compare_run *r, const struct compare_figure *f)
{
    const struct compare_named *c = NULL;
    const struct compare_dist *d = NULL;
    switch (f->src) {
    case COMPARE_LATENCY:
    case COMPARE_SERVICE:
    case COMPARE_SENDLAG:
        d = &r->dist[f->src - COMPARE_LATENCY];
        break;
    case COMPARE_ITERATION:
        d = r->flow ? &r->iteration : NULL;
        break;
    case COMPARE_GROUP:
        c = compare_group(r, f->name);
        break;
    case COMPARE_NAME:
        c = compare_name(r, f->name);
        break;
    default:
        return NULL;
    }
    if (c)
        d = &c->dist;
    return d && d->has ? d : NULL;
}

double compare_value(const struct compare_run *r, const struct compare_figure *f)
{
    const struct compare_named *g = compare_group(r, f->name), *nm = compare_name(r, f->name);
    switch (f->src) {
    case COMPARE_RPS:
        return r->rps;
    case COMPARE_ERRORS:
        return share(f->kind < 0 ? r->failed : r->kinds[f->kind], r->started);
    case COMPARE_NON2XX:
        return share(r->non2xx, r->responses);
    case COMPARE_ITER_RATE:
        return r->flow ? r->iter_rate : NAN;
    case COMPARE_ITER_FAILED:
        return r->flow ? share(r->iter_failed, r->iter_started) : NAN;
    case COMPARE_CHECKS:
        return r->flow ? share(r->checks_passed, r->checks_passed + r->checks_failed) : NAN;
    case COMPARE_GROUP_RATE:
        return g ? per_sec(g->count, r->secs) : NAN;
    case COMPARE_GROUP_FAILED:
        return g ? share(g->failed, g->count) : NAN;
    case COMPARE_NAME_RATE:
        return nm ? per_sec(nm->count, r->secs) : NAN;
    case COMPARE_NAME_ERRORS:
        return nm ? share(nm->failed, nm->started) : NAN;
    default: /* a histogram's */
        break;
    }
    const struct compare_dist *d = compare_figure_dist(r, f);
    if (!d || d->h.count == 0)
        return NAN;
    const struct hist *h = &d->h;
    switch (f->stat) {
    case COMPARE_MAX:
        return isnan(d->exact_max) ? (double)h->max : d->exact_max;
    case COMPARE_MEAN:
        return isnan(d->exact_mean) ? hist_mean(h) : d->exact_mean;
    case COMPARE_PCT:
        break;
    }
    return (double)hist_percentile(h, f->pct);
}

enum compare_kind compare_figure_kind(const struct compare_figure *f)
{
    switch (f->src) {
    case COMPARE_RPS:
    case COMPARE_ITER_RATE:
    case COMPARE_GROUP_RATE:
    case COMPARE_NAME_RATE:
        return COMPARE_RATE;
    case COMPARE_ERRORS:
    case COMPARE_NON2XX:
    case COMPARE_ITER_FAILED:
    case COMPARE_GROUP_FAILED:
    case COMPARE_NAME_ERRORS:
        return COMPARE_SHARE;
    case COMPARE_CHECKS:
        return COMPARE_PASS;
    default:
        return COMPARE_TIME;
    }
}

size_t compare_samples(const struct compare_run *r, const struct compare_figure *f, double *out, size_t max)
{
    int stat = -1;
    if (f->src == COMPARE_LATENCY) {
        if (f->stat == COMPARE_MAX)
            stat = 4;
        else if (f->stat == COMPARE_MEAN)
            stat = 5;
        for (int s = 0; s < 4; s++)
            if (f->stat == COMPARE_PCT && f->pct == point_pcts[s])
                stat = s;
        if (stat < 0)
            return 0;
    } else if (f->src != COMPARE_RPS && f->src != COMPARE_NON2XX && f->src != COMPARE_ERRORS) {
        return 0; /* the series has no per-second service, send lag, or flow's or name's figures */
    }
    size_t n = 0;
    for (size_t i = 0; i < r->npoints && n < max; i++) {
        const struct compare_point *p = &r->points[i];
        double v = f->src == COMPARE_RPS      ? p->rps
                   : f->src == COMPARE_NON2XX ? p->non2xx
                   : f->src == COMPARE_ERRORS ? (f->kind < 0 ? p->errors : p->kinds[f->kind])
                                              : p->lat[stat];
        if (!isnan(v))
            out[n++] = v;
    }
    return n;
}
