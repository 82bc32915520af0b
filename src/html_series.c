/* The HTML report over time, from the result's "series": columns of
 * consecutive seconds (exactly merged, never sampled) and the charts drawn
 * from them. */
#include "hist.h"
#include "html.h"
#include "html_internal.h"

#include "series.h"
#include "stats.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLUMNS 600


/* Adds point p (at path) into column b, its histogram into *acc. */
static void add_point(struct html_rd *rd, const struct json *p, const char *path, struct html_bin *b,
                      struct hist *acc, bool *have)
{
    b->requests += (int64_t)html_rd_count(rd, p, path, "requests");
    b->bytes += (int64_t)html_rd_count(rd, p, path, "bytes");
    b->sent += (int64_t)html_rd_count(rd, p, path, "sent");
    char sub[96];
    snprintf(sub, sizeof sub, "%s.status", path);
    const struct json *st = html_rd_of(rd, p, path, "status", JSON_OBJECT, false);
    for (int k = 0; k < 6; k++)
        b->status[k] += (int64_t)html_rd_count(rd, st, sub, series_class_name(k));
    snprintf(sub, sizeof sub, "%s.errors", path);
    const struct json *er = html_rd_of(rd, p, path, "errors", JSON_OBJECT, false);
    for (int k = 0; k < 8; k++)
        b->errors[k] += (int64_t)html_rd_count(rd, er, sub, stats_error_name(k));
    snprintf(sub, sizeof sub, "%s.latency", path);
    const struct json *lat = html_rd_of(rd, p, path, "latency", JSON_OBJECT, false);
    int64_t n = (int64_t)html_rd_count(rd, lat, sub, "count");
    if (n == 0 || rd->failed)
        return;
    struct hist h;
    if (!html_rd_hist(rd, lat, sub, &h))
        return;
    if (!*have) {
        *acc = h;
        *have = true;
    } else {
        if (hist_merge(acc, &h) < 0)
            html_rd_fail(rd, sub, "hdr", "a histogram of another configuration than the points' before it");
        hist_free(&h);
    }
    double max = html_rd_num(rd, lat, sub, "max", false);
    if (!isnan(max) && (isnan(b->max) || max > b->max))
        b->max = max;
    b->lat_count += n;
}

struct html_bin *html_series_bins(struct html_rd *rd, const struct json *points, const char *path,
                                  double interval, size_t max_bins, size_t *nbins)
{
    *nbins = 0;
    if (!points || points->len == 0 || rd->failed)
        return NULL;
    size_t n = points->len, per = (n + max_bins - 1) / max_bins, nb = (n + per - 1) / per;
    struct html_bin *bins = xcalloc(nb, sizeof *bins);
    for (size_t c = 0; c < nb && !rd->failed; c++) {
        struct html_bin *b = &bins[c];
        struct hist acc;
        bool have = false;
        b->max = NAN;
        for (size_t i = c * per; i < n && i < (c + 1) * per && !rd->failed; i++) {
            const struct json *p = &points->items[i];
            char at[64];
            snprintf(at, sizeof at, "%s[%zu]", path, i);
            if (p->type != JSON_OBJECT) {
                html_rd_fail(rd, at, NULL, "expected an object, found %s", json_in_type_name(p));
                break;
            }
            if (i == c * per) {
                double t = html_rd_num(rd, p, at, "t", true);
                b->t = isnan(t) ? (double)i * interval : t * interval;
            }
            b->secs += interval;
            add_point(rd, p, at, b, &acc, &have);
        }
        if (have) {
            /* The decoded max is its bucket's top; capped at the points'
             * exact max, the percentiles are what the run's own histogram
             * gives (it caps them at its exact max too). */
            double cap = isnan(b->max) ? INFINITY : b->max;
            b->p50 = fmin((double)hist_percentile(&acc, 50) / 1e3, cap);
            b->p90 = fmin((double)hist_percentile(&acc, 90) / 1e3, cap);
            b->p99 = fmin((double)hist_percentile(&acc, 99) / 1e3, cap);
            if (isnan(b->max))
                b->max = (double)acc.max / 1e3;
            hist_free(&acc);
        } else {
            b->p50 = b->p90 = b->p99 = b->max = NAN;
        }
    }
    if (rd->failed) {
        free(bins);
        return NULL;
    }
    *nbins = nb;
    return bins;
}

/* Draws one chart of k lines over the columns. */
static void chart(FILE *out, const char *title, const char *yunit, const double *x, size_t n, double xmax,
                  const struct html_line *lines, size_t k)
{
    struct html_chart c = {
        .title = title, .yunit = yunit, .xunit = "s", .x = x, .n = n,
        .xmin = 0, .xmax = xmax > 0 ? xmax : 1, .lines = lines, .nlines = k,
    };
    html_chart(out, &c);
}

void html_series(FILE *out, struct html_rd *rd, const struct json *result)
{
    const struct json *series = html_rd_of(rd, result, "", "series", JSON_OBJECT, false);
    if (!series) {
        fprintf(out, "<p class=\"none\">This result has no series (it is from a volley before 0.1.0's series).</p>\n");
        return;
    }
    double interval = html_rd_num(rd, series, "series", "interval", false);
    if (isnan(interval))
        interval = 1;
    if (!(interval > 0 && interval <= 86400)) {
        html_rd_fail(rd, "series", "interval", "expected a number of seconds above 0, found %g", interval);
        return;
    }
    double target = html_rd_num(rd, series, "series", "target_rate", false);
    const struct json *points = html_rd_of(rd, series, "series", "points", JSON_ARRAY, true);
    size_t n;
    struct html_bin *b = html_series_bins(rd, points, "series.points", interval, MAX_COLUMNS, &n);
    if (!b) {
        if (!rd->failed)
            fprintf(out, "<p class=\"none\">The series has no points.</p>\n");
        return;
    }
    size_t per = (points->len + MAX_COLUMNS - 1) / MAX_COLUMNS;
    if (per > 1)
        fprintf(out, "<p class=\"note\">%zu seconds in %zu columns of %zu seconds each: counts are summed and "
                     "latency histograms merged, so every column is exact.</p>\n", points->len, n, per);
    /* The last point is a part-second: its rates are over the part. */
    double duration = html_rd_num(rd, result, "", "duration", false);
    struct html_bin *last = &b[n - 1];
    if (duration > last->t && duration < last->t + last->secs)
        last->secs = duration - last->t;
    double *x = xcalloc(n, sizeof *x), *y = xcalloc(n * 10, sizeof *y);
    double xmax = 0;
    for (size_t i = 0; i < n; i++) {
        x[i] = b[i].t + b[i].secs / 2; /* a column's figures are over its whole span */
        if (b[i].t + b[i].secs > xmax)
            xmax = b[i].t + b[i].secs;
    }
    struct html_line lines[10];
    size_t k;

    /* requests/s by status class: the classes that occurred */
    k = 0;
    for (int s = 0; s < 6; s++) {
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            y[k * n + i] = (double)b[i].status[s] / b[i].secs;
            any |= b[i].status[s] > 0;
        }
        if (any) {
            static const int colors[6] = {5, 2, 6, 4, 3, 7};
            lines[k] = (struct html_line){series_class_name(s), &y[k * n], colors[s], false};
            k++;
        }
    }
    if (k == 0) {
        for (size_t i = 0; i < n; i++)
            y[i] = (double)b[i].requests / b[i].secs;
        lines[k++] = (struct html_line){"completed", y, 2, false};
    }
    chart(out, "Responses per second by status class", "responses/s", x, n, xmax, lines, k);

    /* latency percentiles */
    static const char *const lat_names[] = {"p50", "p90", "p99", "max"};
    for (size_t i = 0; i < n; i++) {
        y[0 * n + i] = b[i].p50 / 1e3;
        y[1 * n + i] = b[i].p90 / 1e3;
        y[2 * n + i] = b[i].p99 / 1e3;
        y[3 * n + i] = b[i].max / 1e3;
    }
    for (k = 0; k < 4; k++)
        lines[k] = (struct html_line){lat_names[k], &y[k * n], (int)k, k == 3};
    chart(out, "Latency over time", "ms", x, n, xmax, lines, 4);

    /* errors by kind: the kinds that occurred */
    k = 0;
    for (int e = 0; e < 8; e++) {
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            y[k * n + i] = (double)b[i].errors[e] / b[i].secs;
            any |= b[i].errors[e] > 0;
        }
        if (any) {
            lines[k] = (struct html_line){stats_error_name(e), &y[k * n], (3 + e) % 8, false};
            k++;
        }
    }
    if (k > 0)
        chart(out, "Failed requests per second by kind", "failures/s", x, n, xmax, lines, k);
    else
        fprintf(out, "<p class=\"none\">No request failed.</p>\n");

    /* -R: sent per second against the target rate */
    if (!isnan(target)) {
        for (size_t i = 0; i < n; i++) {
            y[0 * n + i] = target;
            y[1 * n + i] = (double)b[i].sent / b[i].secs;
            y[2 * n + i] = (double)b[i].requests / b[i].secs;
        }
        lines[0] = (struct html_line){"target rate", &y[0], 3, true};
        lines[1] = (struct html_line){"sent", &y[n], 0, false};
        lines[2] = (struct html_line){"completed", &y[2 * n], 2, false};
        chart(out, "Requests sent per second against the target rate (-R)", "requests/s", x, n, xmax, lines, 3);
    }
    free(x);
    free(y);
    free(b);
}
