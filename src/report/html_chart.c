/* The HTML pages' charts as inline SVG, drawn here: a chart of lines (or
 * of stacked bands) with axes, ticks and a legend, and latency percentile
 * distributions on HdrHistogram's log axis (x = 1 / (1 - p)). */
#include "hist.h"
#include "html.h"
#include "html_internal.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plot area inside the SVG's viewBox. */
#define W 900.0
#define H 280.0
#define LEFT 70.0
#define RIGHT 40.0
#define TOP 26.0
#define BOTTOM 36.0

/* A "nice" step (1, 2 or 5 times a power of 10) for about `steps` steps up
 * to max. */
static double nice_step(double max, int steps)
{
    if (!(max > 0) || !isfinite(max))
        return 1;
    double raw = max / steps;
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* A tick label: few digits, no trailing zeros. */
static void num_label(char *buf, size_t len, double v)
{
    if (v != 0 && (fabs(v) >= 1e6 || fabs(v) < 1e-3))
        snprintf(buf, len, "%.3g", v);
    else
        snprintf(buf, len, "%.6g", v);
}

static double px_x(const struct html_chart *c, double x)
{
    double lo = c->logx ? log10(c->xmin) : c->xmin, hi = c->logx ? log10(c->xmax) : c->xmax;
    double v = c->logx ? log10(x) : x;
    double f = hi > lo ? (v - lo) / (hi - lo) : 0;
    return LEFT + f * (W - LEFT - RIGHT);
}

/* The y axis: linear from 0 to top in steps of step, or (log) log10 from
 * lo to top, both powers of 10. */
struct yaxis {
    bool log;
    double lo, top, step;
};

/* On a log axis a value at or under lo (0 included) sits on the bottom. */
static double px_y(const struct yaxis *a, double y)
{
    double f;
    if (a->log)
        f = y > a->lo ? (log10(y) - log10(a->lo)) / (log10(a->top) - log10(a->lo)) : 0;
    else
        f = a->top > 0 ? y / a->top : 0;
    return H - BOTTOM - f * (H - TOP - BOTTOM);
}

/* One y grid line and its label at y. */
static void y_tick(FILE *out, const struct yaxis *a, double y)
{
    char lab[32];
    num_label(lab, sizeof lab, y);
    double py = px_y(a, y);
    fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", LEFT, py, W - RIGHT, py);
    fprintf(out, "<text class=\"yl\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", LEFT - 6, py + 4, lab);
}

/* A line's x values and their number: its own, or the chart's. */
static const double *line_x(const struct html_chart *c, const struct html_line *ln, size_t *n)
{
    *n = ln->x ? ln->n : c->n;
    return ln->x ? ln->x : c->x;
}

static void legend(FILE *out, const struct html_chart *c)
{
    fprintf(out, "<div class=\"legend\">");
    for (size_t l = 0; l < c->nlines; l++) {
        fprintf(out, "<span class=\"key c%d%s\"><i></i>", c->lines[l].color, c->lines[l].dashed ? " dash" : "");
        html_escape(out, c->lines[l].name, strlen(c->lines[l].name));
        fprintf(out, "</span>");
    }
    fprintf(out, "</div>\n");
}

static void axes(FILE *out, const struct html_chart *c, const struct yaxis *ya)
{
    /* y grid and labels */
    /* Counted loops: a hostile result's values may be near DBL_MAX, where
     * y += ystep would reach infinity and never pass it. */
    if (ya->log) {
        /* every decade (every k-th past 10 of them); 2 and 5 between when
         * there are at most 3 */
        int d0 = (int)lround(log10(ya->lo)), decades = (int)lround(log10(ya->top)) - d0;
        int every = decades > 10 ? (decades + 9) / 10 : 1;
        for (int d = 0; d <= decades; d += every) {
            y_tick(out, ya, pow(10, d0 + d));
            for (int m = 2; decades <= 3 && d < decades && m <= 5; m += 3)
                y_tick(out, ya, m * pow(10, d0 + d));
        }
    } else {
        for (int k = 0; k <= 20 && k * ya->step <= ya->top * (1 + 1e-9); k++)
            y_tick(out, ya, k * ya->step);
    }
    fprintf(out, "<text class=\"unit\" x=\"4\" y=\"12\">");
    html_escape(out, c->yunit, strlen(c->yunit));
    fprintf(out, "</text>\n");

    /* x ticks */
    if (c->xticks) {
        for (size_t i = 0; i < c->nxticks; i++) {
            if (c->xticks[i].x < c->xmin || c->xticks[i].x > c->xmax)
                continue;
            double px = px_x(c, c->xticks[i].x);
            fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", px, TOP, px, H - BOTTOM);
            fprintf(out, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">", px, H - BOTTOM + 16);
            html_escape(out, c->xticks[i].label, strlen(c->xticks[i].label));
            fprintf(out, "</text>\n");
        }
    } else {
        double span = c->xmax - c->xmin, xstep = nice_step(span, 8), x0 = ceil(c->xmin / xstep) * xstep;
        for (int k = 0; k <= 20 && isfinite(xstep) && x0 + k * xstep <= c->xmax * (1 + 1e-9); k++) {
            double x = x0 + k * xstep;
            char lab[32];
            num_label(lab, sizeof lab, x);
            double px = px_x(c, x);
            fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", px, TOP, px, H - BOTTOM);
            fprintf(out, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">%s%s</text>\n", px, H - BOTTOM + 16, lab,
                    c->xunit ? c->xunit : "");
        }
    }
    fprintf(out, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", LEFT, H - BOTTOM, W - RIGHT,
            H - BOTTOM);
    fprintf(out, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", LEFT, TOP, LEFT, H - BOTTOM);
}

/* The lines: a polyline per run of finite values; dots when few. */
static void draw_lines(FILE *out, const struct html_chart *c, const struct yaxis *ya)
{
    for (size_t l = 0; l < c->nlines; l++) {
        const struct html_line *ln = &c->lines[l];
        size_t n;
        const double *x = line_x(c, ln, &n);
        fprintf(out, "<g class=\"c%d%s\">", ln->color, ln->dashed ? " dash" : "");
        bool open = false;
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(ln->y[i]) || !isfinite(x[i])) {
                if (open)
                    fprintf(out, "\"/>");
                open = false;
                continue;
            }
            fprintf(out, "%s%.1f,%.1f", open ? " " : "<polyline points=\"", px_x(c, x[i]), px_y(ya, ln->y[i]));
            open = true;
        }
        if (open)
            fprintf(out, "\"/>");
        if (n <= 60)
            for (size_t i = 0; i < n; i++)
                if (isfinite(ln->y[i]) && isfinite(x[i]))
                    fprintf(out, "<circle r=\"2.5\" cx=\"%.1f\" cy=\"%.1f\"/>", px_x(c, x[i]), px_y(ya, ln->y[i]));
        fprintf(out, "</g>\n");
    }
}

/* The running sums of the stacked bands: sum[l * n + i] is the sum of
 * lines 0..l-1 at x[i] (NAN and negative values as 0), for l = 0..nlines.
 * Malloc'd; the caller frees. */
static double *stack_sums(const struct html_chart *c)
{
    size_t n = c->n;
    double *sum = xcalloc((c->nlines + 1) * (n ? n : 1), sizeof *sum);
    for (size_t l = 0; l < c->nlines; l++)
        for (size_t i = 0; i < n; i++) {
            double v = c->lines[l].y[i];
            sum[(l + 1) * n + i] = sum[l * n + i] + (isfinite(v) && v > 0 ? v : 0);
        }
    return sum;
}

/* One band: along its top from xmin to xmax, back along its bottom. */
static void draw_bands(FILE *out, const struct html_chart *c, const double *sum, const struct yaxis *ya)
{
    size_t n = c->n;
    for (size_t l = 0; l < c->nlines && n > 0; l++) {
        const double *lo = &sum[l * n], *hi = &sum[(l + 1) * n];
        fprintf(out, "<g class=\"c%d\"><polygon points=\"%.1f,%.1f", c->lines[l].color, px_x(c, c->xmin),
                px_y(ya, hi[0]));
        for (size_t i = 0; i < n; i++)
            fprintf(out, " %.1f,%.1f", px_x(c, c->x[i]), px_y(ya, hi[i]));
        fprintf(out, " %.1f,%.1f %.1f,%.1f", px_x(c, c->xmax), px_y(ya, hi[n - 1]), px_x(c, c->xmax),
                px_y(ya, lo[n - 1]));
        for (size_t i = n; i-- > 0;)
            fprintf(out, " %.1f,%.1f", px_x(c, c->x[i]), px_y(ya, lo[i]));
        fprintf(out, " %.1f,%.1f\"/></g>\n", px_x(c, c->xmin), px_y(ya, lo[0]));
    }
}

void html_chart(FILE *out, const struct html_chart *c)
{
    double *sum = c->stacked ? stack_sums(c) : NULL;
    double ymax = 0, ymin = INFINITY; /* ymin: the least value above 0 (logy) */
    if (sum) {
        for (size_t i = 0; i < c->n; i++)
            if (sum[c->nlines * c->n + i] > ymax)
                ymax = sum[c->nlines * c->n + i];
    } else {
        for (size_t l = 0; l < c->nlines; l++) {
            size_t n;
            line_x(c, &c->lines[l], &n);
            for (size_t i = 0; i < n; i++)
            for (size_t i = 0; i < n; i++) {
                double v = c->lines[l].y[i];
                if (isfinite(v) && v > ymax)
                    ymax = v;
                if (isfinite(v) && v > 0 && v < ymin)
                    ymin = v;
            }
        }
    }
    struct yaxis ya = {.step = nice_step(ymax, 5)};
    ya.top = ymax > 0 && isfinite(ymax) ? ceil(ymax / ya.step) * ya.step : 1;
    if (!(ymax > 0) || !isfinite(ymax))
        ya.step = 0.2;
    if (c->logy && !sum && ymax > 0 && isfinite(ymax)) {
        /* the decades around the values (one at least), within a double's;
         * the least a quarter of a decade above the bottom, off the axis */
        ya.log = true;
        ya.lo = pow(10, fmax(floor(log10(ymin) - 0.25), -300));
        ya.top = pow(10, fmin(ceil(log10(ymax)), 300));
        if (ya.top <= ya.lo)
            ya.top = ya.lo * 10;
    }

    fprintf(out, "<figure class=\"chart%s\"", c->stacked ? " stacked" : "");
    if (c->id)
        fprintf(out, " id=\"%s\"", c->id);
    fprintf(out, "><figcaption>");
    html_escape(out, c->title, strlen(c->title));
    fprintf(out, "</figcaption>\n");
    legend(out, c);
    fprintf(out, "<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\"><title>", W, H);
    html_escape(out, c->title, strlen(c->title));
    fprintf(out, "</title>\n");
    axes(out, c, &ya);
    if (sum)
        draw_bands(out, c, sum, &ya);
    else
        draw_lines(out, c, &ya);
    fprintf(out, "</svg></figure>\n");
    free(sum);
}

/* The distribution's points: x = 1 / (1 - p) from 1 to 10^decades, log
 * spaced; y = the value at percentile p, in ms. */
#define DIST_POINTS 400

static const struct html_tick dist_ticks[] = {
    {1, "0%"}, {2, "50%"}, {10, "90%"}, {100, "99%"}, {1e3, "99.9%"}, {1e4, "99.99%"}, {1e5, "99.999%"}, {1e6, "99.9999%"},
};

void html_dist_chart(FILE *out, const char *title, const char *id, const struct html_dist *d, size_t n)
{
    int64_t count = 0;
    size_t k = 0;
    struct html_line *lines = xcalloc(n ? n : 1, sizeof *lines);
    double *y = xcalloc((n ? n : 1) * (DIST_POINTS + 1), sizeof *y);
    for (size_t i = 0; i < n; i++)
        if (d[i].h->count > count)
            count = d[i].h->count;
    /* as many decades as the count resolves, 2 to 6 */
    int decades = count > 0 ? (int)ceil(log10((double)count)) : 2;
    decades = decades < 2 ? 2 : decades > 6 ? 6 : decades;
    double x[DIST_POINTS + 1];
    for (int j = 0; j <= DIST_POINTS; j++)
        x[j] = pow(10, decades * (double)j / DIST_POINTS);
    for (size_t i = 0; i < n; i++) {
        if (d[i].h->count == 0)
            continue;
        double *yk = &y[k * (DIST_POINTS + 1)];
        for (int j = 0; j <= DIST_POINTS; j++)
            yk[j] = fmin((double)hist_percentile(d[i].h, 100 * (1 - 1 / x[j])) / 1e6, d[i].cap_ms);
        lines[k++] = (struct html_line){d[i].name, yk, d[i].color, d[i].dashed, NULL, 0};
    }
    if (k == 0) {
        fprintf(out, "<p class=\"none\">No latency was recorded: there is no distribution to draw.</p>\n");
    } else {
        struct html_chart c = {
            .title = title,
            .id = id,
            .yunit = "ms",
            .x = x,
            .n = DIST_POINTS + 1,
            .xmin = 1,
            .xmax = pow(10, decades),
            .logx = true,
            .xticks = dist_ticks,
            .nxticks = sizeof dist_ticks / sizeof dist_ticks[0],
            .lines = lines,
            .nlines = k,
        };
        html_chart(out, &c);
    }
    free(lines);
    free(y);
}

void html_percentiles(FILE *out, struct html_rd *rd, const struct json *result)
{
    static const char *const names[] = {"latency", "service"};
    static const char *const labels[] = {"latency", "service time"};
    struct hist h[2];
    struct html_dist d[2];
    size_t nd = 0, drawn = 0;
    for (int k = 0; k < 2; k++) {
        const struct json *obj = html_rd_of(rd, result, "", names[k], JSON_OBJECT, k == 0);
        if (!obj || !html_rd_hist(rd, obj, names[k], &h[nd]))
            continue;
        /* the exact max, ms: the decoded one is its bucket's top */
        double max = html_rd_num(rd, obj, names[k], "max", false);
        d[nd] = (struct html_dist){labels[k], &h[nd], isnan(max) ? INFINITY : max / 1e3, k, k == 1};
        drawn += h[nd].count > 0;
        nd++;
    }
    html_dist_chart(out, drawn > 1 ? "Latency and service time by percentile" : "Latency by percentile",
                    "percentiles", d, nd);
    for (size_t k = 0; k < nd; k++)
        hist_free(&h[k]);
}
