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

static void read_hist(struct html_rd *rd, struct compare_run *r, const struct json *root, int i)
{
    const struct json *o = html_rd_of(rd, root, "", hist_keys[i], JSON_OBJECT, i == 0);
    if (!o)
        return;
    if (!html_rd_hist(rd, o, hist_keys[i], &r->hist[i]))
        return;
    r->has_hist[i] = true;
    double count = html_rd_count(rd, o, hist_keys[i], "count");
    if (!rd->failed && count != (double)r->hist[i].count)
        html_rd_fail(rd, hist_keys[i], "count", "%.17g, but its hdr histogram holds %lld values", count,
                     (long long)r->hist[i].count);
    r->exact_max[i] = html_rd_num(rd, o, hist_keys[i], "max", false) * 1e3;
    r->exact_mean[i] = html_rd_num(rd, o, hist_keys[i], "mean", false) * 1e3;
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
    for (int i = 0; i < 3; i++)
        r->exact_max[i] = r->exact_mean[i] = NAN;
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
        read_hist(&rd, r, root, i);
    read_series(&rd, r, root, duration);

    const struct json *opt = html_rd_of(&rd, root, "", "options", JSON_OBJECT, false);
    const struct json *tgt = html_rd_of(&rd, root, "", "target", JSON_OBJECT, false);
    r->model = html_rd_str(&rd, root, "", "model", false, NULL);
    r->scheme = html_rd_str(&rd, tgt, "target", "scheme", false, NULL);
    r->url = html_rd_str(&rd, tgt, "target", "url", false, NULL);
    r->method = html_rd_str(&rd, opt, "options", "method", false, NULL);
    r->rate = html_rd_num(&rd, opt, "options", "rate", false);
    r->connections = html_rd_num(&rd, opt, "options", "connections", false);
    r->threads = html_rd_num(&rd, opt, "options", "threads", false);
    r->duration = html_rd_num(&rd, opt, "options", "duration", false);
    r->requests = html_rd_num(&rd, opt, "options", "requests", false);
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
        if (r->has_hist[i])
            hist_free(&r->hist[i]);
    free(r->points);
    memset(r, 0, sizeof *r);
}

double compare_value(const struct compare_run *r, const struct compare_figure *f)
{
    switch (f->src) {
    case COMPARE_RPS:
        return r->rps;
    case COMPARE_ERRORS:
        return share(f->kind < 0 ? r->failed : r->kinds[f->kind], r->started);
    case COMPARE_NON2XX:
        return share(r->non2xx, r->responses);
    case COMPARE_LATENCY:
    case COMPARE_SERVICE:
    case COMPARE_SENDLAG:
        break;
    }
    int i = (int)f->src - COMPARE_LATENCY;
    const struct hist *h = &r->hist[i];
    if (!r->has_hist[i] || h->count == 0)
        return NAN;
    switch (f->stat) {
    case COMPARE_MAX:
        return isnan(r->exact_max[i]) ? (double)h->max : r->exact_max[i];
    case COMPARE_MEAN:
        return isnan(r->exact_mean[i]) ? hist_mean(h) : r->exact_mean[i];
    case COMPARE_PCT:
        break;
    }
    return (double)hist_percentile(h, f->pct);
}

enum compare_kind compare_figure_kind(const struct compare_figure *f)
{
    switch (f->src) {
    case COMPARE_RPS:
        return COMPARE_RATE;
    case COMPARE_ERRORS:
    case COMPARE_NON2XX:
        return COMPARE_SHARE;
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
    } else if (f->src == COMPARE_SERVICE || f->src == COMPARE_SENDLAG) {
        return 0; /* the series has no per-second service or send lag */
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
