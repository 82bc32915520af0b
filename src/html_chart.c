/* The HTML report's charts as inline SVG, drawn here: a line chart with
 * axes, ticks and a legend, and the latency percentile distribution on
 * HdrHistogram's log axis (x = 1 / (1 - p)). */
#include "hist.h"
#include "html.h"
#include "html_internal.h"

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

static double px_y(double y, double ymax)
{
    return H - BOTTOM - (ymax > 0 ? y / ymax : 0) * (H - TOP - BOTTOM);
}

void html_chart(FILE *out, const struct html_chart *c)
{
    double ymax = 0;
    for (size_t l = 0; l < c->nlines; l++)
        for (size_t i = 0; i < c->n; i++)
            if (isfinite(c->lines[l].y[i]) && c->lines[l].y[i] > ymax)
                ymax = c->lines[l].y[i];
    double ystep = nice_step(ymax, 5);
    double ytop = ymax > 0 ? ceil(ymax / ystep) * ystep : 1;
    if (ymax <= 0)
        ystep = 0.2;

    fprintf(out, "<figure class=\"chart\"><figcaption>");
    html_escape(out, c->title, strlen(c->title));
    fprintf(out, "</figcaption>\n<div class=\"legend\">");
    for (size_t l = 0; l < c->nlines; l++) {
        fprintf(out, "<span class=\"key c%d%s\"><i></i>", c->lines[l].color, c->lines[l].dashed ? " dash" : "");
        html_escape(out, c->lines[l].name, strlen(c->lines[l].name));
        fprintf(out, "</span>");
    }
    fprintf(out, "</div>\n<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\"><title>", W, H);
    html_escape(out, c->title, strlen(c->title));
    fprintf(out, "</title>\n");

    /* y grid and labels */
    /* Counted loops: a hostile result's values may be near DBL_MAX, where
     * y += ystep would reach infinity and never pass it. */
    for (int k = 0; k <= 20 && k * ystep <= ytop * (1 + 1e-9); k++) {
        double y = k * ystep;
        char lab[32];
        num_label(lab, sizeof lab, y);
        double py = px_y(y, ytop);
        fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", LEFT, py, W - RIGHT, py);
        fprintf(out, "<text class=\"yl\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", LEFT - 6, py + 4, lab);
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

    /* the lines: a polyline per run of finite values; dots when few */
    for (size_t l = 0; l < c->nlines; l++) {
        const struct html_line *ln = &c->lines[l];
        fprintf(out, "<g class=\"c%d%s\">", ln->color, ln->dashed ? " dash" : "");
        bool open = false;
        for (size_t i = 0; i < c->n; i++) {
            if (!isfinite(ln->y[i]) || !isfinite(c->x[i])) {
                if (open)
                    fprintf(out, "\"/>");
                open = false;
                continue;
            }
            fprintf(out, "%s%.1f,%.1f", open ? " " : "<polyline points=\"", px_x(c, c->x[i]), px_y(ln->y[i], ytop));
            open = true;
        }
        if (open)
            fprintf(out, "\"/>");
        if (c->n <= 60)
            for (size_t i = 0; i < c->n; i++)
                if (isfinite(ln->y[i]) && isfinite(c->x[i]))
                    fprintf(out, "<circle r=\"2.5\" cx=\"%.1f\" cy=\"%.1f\"/>", px_x(c, c->x[i]), px_y(ln->y[i], ytop));
        fprintf(out, "</g>\n");
    }
    fprintf(out, "</svg></figure>\n");
}

/* The distribution's points: x = 1 / (1 - p) from 1 to 10^decades, log
 * spaced; y = the value at percentile p, in ms. */
#define DIST_POINTS 400

static const struct html_tick dist_ticks[] = {
    {1, "0%"}, {2, "50%"}, {10, "90%"}, {100, "99%"}, {1e3, "99.9%"}, {1e4, "99.99%"}, {1e5, "99.999%"}, {1e6, "99.9999%"},
};

void html_percentiles(FILE *out, struct html_rd *rd, const struct json *result)
{
    static const char *const names[] = {"latency", "service"};
    static const char *const labels[] = {"latency", "service time"};
    struct hist h[2];
    double cap[2]; /* the exact max, ms: the decoded one is its bucket's top */
    int nh = 0, which[2];
    int64_t count = 0;
    for (int k = 0; k < 2; k++) {
        const struct json *obj = html_rd_of(rd, result, "", names[k], JSON_OBJECT, k == 0);
        if (!obj || !html_rd_hist(rd, obj, names[k], &h[nh]))
            continue;
        if (h[nh].count == 0) {
            hist_free(&h[nh]);
            continue;
        }
        double max = html_rd_num(rd, obj, names[k], "max", false);
        cap[nh] = isnan(max) ? INFINITY : max / 1e3;
        if (h[nh].count > count)
            count = h[nh].count;
        which[nh++] = k;
    }
    if (nh == 0) {
        fprintf(out, "<p class=\"none\">No latency was recorded: there is no distribution to draw.</p>\n");
        return;
    }
    /* as many decades as the count resolves, 2 to 6 */
    int decades = (int)ceil(log10((double)count));
    decades = decades < 2 ? 2 : decades > 6 ? 6 : decades;
    double xmax = pow(10, decades);
    double x[DIST_POINTS + 1], y[2][DIST_POINTS + 1];
    for (int i = 0; i <= DIST_POINTS; i++) {
        x[i] = pow(10, decades * (double)i / DIST_POINTS);
        double p = 100 * (1 - 1 / x[i]);
        for (int k = 0; k < nh; k++)
            y[k][i] = fmin((double)hist_percentile(&h[k], p) / 1e6, cap[k]);
    }
    struct html_line lines[2];
    for (int k = 0; k < nh; k++)
        lines[k] = (struct html_line){labels[which[k]], y[k], which[k], which[k] == 1};
    struct html_chart c = {
        .title = nh > 1 ? "Latency and service time by percentile" : "Latency by percentile",
        .yunit = "ms",
        .x = x,
        .n = DIST_POINTS + 1,
        .xmin = 1,
        .xmax = xmax,
        .logx = true,
        .xticks = dist_ticks,
        .nxticks = sizeof dist_ticks / sizeof dist_ticks[0],
        .lines = lines,
        .nlines = (size_t)nh,
    };
    html_chart(out, &c);
    for (int k = 0; k < nh; k++)
        hist_free(&h[k]);
}
