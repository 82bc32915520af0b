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



/* Adds point p (at path) into column b, its histogram into *acc. */
static void add_point(struct html_rd *rd, const struct json *p, const char *path, struct html_bin *b,
                      struct hist *acc, bool *have)
{
    html_rd_add_count(rd, p, path, "requests", &b->requests);
    html_rd_add_count(rd, p, path, "bytes", &b->bytes);
    html_rd_add_count(rd, p, path, "sent", &b->sent);
    double tg = html_rd_num(rd, p, path, "target", false), cn = html_rd_num(rd, p, path, "connections", false);
    if (!isnan(tg))
        b->target += tg, b->ntarget++;
    if (!isnan(cn))
        b->conns += cn, b->nconns++;
    char sub[96];
    html_rd_add_count(rd, p, path, "events", &b->events);
    html_rd_add_count(rd, p, path, "tokens", &b->tokens);
    snprintf(sub, sizeof sub, "%s.ttft", path);
    const struct json *tt = html_rd_of(rd, p, path, "ttft", JSON_OBJECT, false);
    if (tt && html_rd_add_count(rd, tt, sub, "count", &b->ttft_count)) {
        b->ttft_p50 = fmax(b->ttft_p50, html_rd_num(rd, tt, sub, "p50", true));
        b->ttft_p99 = fmax(b->ttft_p99, html_rd_num(rd, tt, sub, "p99", true));
    }
    snprintf(sub, sizeof sub, "%s.itl", path);
    const struct json *it = html_rd_of(rd, p, path, "itl", JSON_OBJECT, false);
    if (it && html_rd_add_count(rd, it, sub, "count", &b->itl_count))
        b->itl_p99 = fmax(b->itl_p99, html_rd_num(rd, it, sub, "p99", true));
    snprintf(sub, sizeof sub, "%s.status", path);
    const struct json *st = html_rd_of(rd, p, path, "status", JSON_OBJECT, false);
    for (int k = 0; k < 6; k++)
        html_rd_add_count(rd, st, sub, series_class_name(k), &b->status[k]);
    snprintf(sub, sizeof sub, "%s.errors", path);
    const struct json *er = html_rd_of(rd, p, path, "errors", JSON_OBJECT, false);
    for (int k = 0; k < SERIES_KINDS; k++)
        html_rd_add_count(rd, er, sub, stats_error_name(k), &b->errors[k]);
    snprintf(sub, sizeof sub, "%s.latency", path);
    const struct json *lat = html_rd_of(rd, p, path, "latency", JSON_OBJECT, false);
    uint64_t n = html_rd_add_count(rd, lat, sub, "count", &b->lat_count);
    if (n == 0 || rd->failed)
        return;
    struct hist h;
    if (!html_rd_hist(rd, lat, sub, &h))
        return;
    if ((uint64_t)h.count != n) { /* the column's count is the points' */
        html_rd_fail(rd, sub, "count", "%llu, but its histogram (hdr) holds %lld values", (unsigned long long)n,
                     (long long)h.count);
        hist_free(&h);
        return;
    }
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
            /* The run's last point may cover part of its interval, and
             * says how much: the column's rates are per second of that. */
            double span = html_rd_span(rd, p, at, interval);
            b->secs += isnan(span) ? interval : span;
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

bool html_series_cols(struct html_rd *rd, const struct json *result, size_t max_bins, struct html_cols *c,
                      const char **why)
{
    memset(c, 0, sizeof *c);
    *why = NULL;
    const struct json *series = html_rd_of(rd, result, "", "series", JSON_OBJECT, false);
    if (!series) {
        *why = "This result has no series (it is from a volley before 0.1.0's series).";
        return false;
    }
    double interval = html_rd_num(rd, series, "series", "interval", false);
    if (isnan(interval))
        interval = 1;
    if (!(interval > 0 && interval <= 86400)) {
        html_rd_fail(rd, "series", "interval", "expected a number of seconds above 0, found %g", interval);
        return false;
    }
    c->target = html_rd_num(rd, series, "series", "target_rate", false);
    const struct json *points = html_rd_of(rd, series, "series", "points", JSON_ARRAY, true);
    c->b = html_series_bins(rd, points, "series.points", interval, max_bins, &c->n);
    if (!c->b) {
        *why = "The series has no points.";
        return false;
    }
    c->npoints = points->len;
    c->per = (points->len + max_bins - 1) / max_bins;
    /* A result from before points had "span": its last ends with the run. */
    double duration = html_rd_num(rd, result, "", "duration", false);
    struct html_bin *last = &c->b[c->n - 1];
    if (duration > last->t && duration < last->t + last->secs)
        last->secs = duration - last->t;
    c->x = xcalloc(c->n, sizeof *c->x);
    for (size_t i = 0; i < c->n; i++) {
        c->x[i] = c->b[i].t + c->b[i].secs / 2; /* a column's figures are over its whole span */
        if (c->b[i].t + c->b[i].secs > c->xmax)
            c->xmax = c->b[i].t + c->b[i].secs;
    }
    return true;
}

void html_cols_free(struct html_cols *c)
{
    free(c->b);
    free(c->x);
    memset(c, 0, sizeof *c);
}

/* Draws one chart of k lines (or stacked bands) over the columns. */
static void chart(FILE *out, const char *title, const char *id, bool stacked, bool logy, const char *yunit,
                  const struct html_cols *cols, const struct html_line *lines, size_t k)
{
    struct html_chart c = {
        .title = title, .id = id, .yunit = yunit, .xunit = "s", .x = cols->x, .n = cols->n, .xmin = 0,
        .xmax = cols->xmax > 0 ? cols->xmax : 1, .logy = logy, .stacked = stacked, .lines = lines, .nlines = k,
    };
    html_chart(out, &c);
}

/* Status classes from the bottom of the stack up: the successes, then the
 * redirects and the errors, the rare 1xx and "other" on top. */
static const int class_order[6] = {1, 2, 3, 4, 0, 5};
static const int class_colors[6] = {5, 2, 6, 1, 3, 7}; /* by class: 1xx brown, 2xx green, ... */

void html_series(FILE *out, struct html_rd *rd, const struct json *result)
{
    struct html_cols cols;
    const char *why;
    if (!html_series_cols(rd, result, HTML_SERIES_COLUMNS, &cols, &why)) {
        if (!rd->failed)
            fprintf(out, "<p class=\"none\">%s</p>\n", why);
        return;
    }
    size_t n = cols.n;
    const struct html_bin *b = cols.b;
    if (cols.per > 1)
        fprintf(out, "<p class=\"note\">%zu seconds in %zu columns of %zu seconds each: counts are summed and "
                     "latency histograms merged, so every column is exact.</p>\n", cols.npoints, n, cols.per);
    double *y = xcalloc(n * 10, sizeof *y);
    struct html_line lines[10];
    size_t k;

    /* responses/s by status class, stacked: the classes that occurred */
    k = 0;
    for (int o = 0; o < 6; o++) {
        int s = class_order[o];
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            y[k * n + i] = (double)b[i].status[s] / b[i].secs;
            any |= b[i].status[s] > 0;
        }
        if (any) {
            lines[k] = (struct html_line){series_class_name(s), &y[k * n], class_colors[s], false, NULL, 0};
            k++;
        }
    }
    if (k == 0) {
        for (size_t i = 0; i < n; i++)
            y[i] = (double)b[i].requests / b[i].secs;
        lines[k++] = (struct html_line){"completed", y, 2, false, NULL, 0};
    }
    chart(out, "Responses per second by status class", "status-classes", true, false, "responses/s", &cols, lines, k);

    /* latency percentiles */
    static const char *const lat_names[] = {"p50", "p90", "p99", "max"};
    for (size_t i = 0; i < n; i++) {
        y[0 * n + i] = b[i].p50 / 1e3;
        y[1 * n + i] = b[i].p90 / 1e3;
        y[2 * n + i] = b[i].p99 / 1e3;
        y[3 * n + i] = b[i].max / 1e3;
    }
    for (k = 0; k < 4; k++)
        lines[k] = (struct html_line){lat_names[k], &y[k * n], (int)k, k == 3, NULL, 0};
    /* On a log scale: one slow outlier in max would flatten the others. */
    chart(out, "Latency over time", "latency", false, true, "ms (log scale)", &cols, lines, 4);

    /* errors by kind: the kinds that occurred */
    k = 0;
    for (int e = 0; e < SERIES_KINDS; e++) {
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            y[k * n + i] = (double)b[i].errors[e] / b[i].secs;
            any |= b[i].errors[e] > 0;
        }
        if (any) {
            lines[k] = (struct html_line){stats_error_name(e), &y[k * n], (3 + e) % 8, false, NULL, 0};
            k++;
        }
    }
    if (k > 0)
        chart(out, "Failed requests per second by kind", "failures", false, false, "failures/s", &cols, lines, k);
    else
        fprintf(out, "<p class=\"none\">No request failed.</p>\n");

    /* -R: sent per second against the target rate */
    if (!isnan(cols.target)) {
        for (size_t i = 0; i < n; i++) {
            /* --stages: the arrivals the curve asked for in the column */
            y[0 * n + i] = b[i].ntarget ? b[i].target / b[i].secs : cols.target;
            y[1 * n + i] = (double)b[i].sent / b[i].secs;
            y[2 * n + i] = (double)b[i].requests / b[i].secs;
        }
        /* A flow's -R starts iterations ("iterations" not null); its
         * requests completed are no measure of that rate, and not drawn. */
        bool flow = html_rd_of(rd, result, "", "iterations", JSON_OBJECT, false) != NULL;
        lines[0] = (struct html_line){"target rate", &y[0], 3, true, NULL, 0};
        lines[1] = (struct html_line){flow ? "started" : "sent", &y[n], 0, false, NULL, 0};
        lines[2] = (struct html_line){"completed", &y[2 * n], 2, false, NULL, 0};
        chart(out, flow ? "Iterations started per second against the target rate (-R)"
                        : "Requests sent per second against the target rate (-R)",
              "sent", false, false, flow ? "iterations/s" : "requests/s", &cols, lines, flow ? 2 : 3);
    }
    /* streams: events (and tokens) per second, TTFT and ITL over time */
    bool events = false, tokens = false, ttft = false, itl = false;
    for (size_t i = 0; i < n; i++) {
        events |= b[i].events > 0;
        tokens |= b[i].tokens > 0;
        ttft |= b[i].ttft_count > 0;
        itl |= b[i].itl_count > 0;
    }
    if (events) {
        for (size_t i = 0; i < n; i++) {
            y[0 * n + i] = (double)b[i].events / b[i].secs;
            y[1 * n + i] = (double)b[i].tokens / b[i].secs;
        }
        lines[0] = (struct html_line){"events", &y[0], 0, false, NULL, 0};
        lines[1] = (struct html_line){"output tokens", &y[n], 2, false, NULL, 0};
        chart(out, "Stream events per second", "stream-rate", false, false, "per second", &cols, lines,
              tokens ? 2 : 1);
    }
    if (ttft || itl) {
        for (size_t i = 0; i < n; i++) {
            y[0 * n + i] = b[i].ttft_count ? b[i].ttft_p50 / 1e3 : NAN;
            y[1 * n + i] = b[i].ttft_count ? b[i].ttft_p99 / 1e3 : NAN;
            y[2 * n + i] = b[i].itl_count ? b[i].itl_p99 / 1e3 : NAN;
        }
        lines[0] = (struct html_line){"TTFT p50", &y[0], 0, false, NULL, 0};
        lines[1] = (struct html_line){"TTFT p99", &y[n], 1, false, NULL, 0};
        lines[2] = (struct html_line){"ITL p99", &y[2 * n], 2, true, NULL, 0};
        chart(out, "Time to first token and inter-token latency over time", "stream-latency", false, true,
              "ms (log scale)", &cols, lines, 3);
    }
    /* --stages without -R: the connections asked for and those open */
    bool conns = false;
    for (size_t i = 0; i < n; i++)
        conns |= b[i].nconns > 0;
    if (conns) {
        for (size_t i = 0; i < n; i++) {
            y[0 * n + i] = b[i].ntarget ? b[i].target / b[i].ntarget : NAN;
            y[1 * n + i] = b[i].nconns ? b[i].conns / b[i].nconns : NAN;
        }
        lines[0] = (struct html_line){"target", &y[0], 3, true, NULL, 0};
        lines[1] = (struct html_line){"open", &y[n], 0, false, NULL, 0};
        chart(out, "Connections against the stages", "connections", false, false, "connections", &cols, lines, 2);
    }
    free(y);
    html_cols_free(&cols);
}
