/* Shared by the html*.c files (and their unit test): the pieces html.c
 * calls (the names, thresholds and flow tables), the SVG line chart, the
 * series' downsampling, and the page's frame. What every piece uses is
 * below them all: field reading (html_read.h) and escaping, numbers and
 * the reasons table (html_common.h), included here. */
#ifndef VOLLEY_HTML_INTERNAL_H
#define VOLLEY_HTML_INTERNAL_H

#include "hist.h"
#include "html_common.h"
#include "html_read.h"
#include "json_in.h"
#include "series.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The "Requests by name" table of a result's "names" (nothing when it is
 * null or absent). */
void html_names(FILE *out, struct html_rd *rd, const struct json *r);

/* The thresholds table, when the result has thresholds (html_thresholds.c). */
void html_thresholds(FILE *out, struct html_rd *rd, const struct json *r);

/* A flow's sections (the result's "iterations" an object): the
 * iterations (counts, per second, duration percentiles, failures by
 * reason), the checks table and the groups table; nothing for other runs. */
void html_flow(FILE *out, struct html_rd *rd, const struct json *r);
/* A run of several scenarios: the Scenarios table (html_scenarios.c). */
void html_scenarios(FILE *out, struct html_rd *rd, const struct json *r);

/* Streamed responses' section (the result's "stream" an object): their
 * counts, a table of their histograms and their distributions by
 * percentile; nothing for a run without streams (html_stream.c). */
void html_stream(FILE *out, struct html_rd *rd, const struct json *r);

/* One line of a chart: n values (NAN leaves a gap), drawn in colour
 * `color` (0..7) and named in the legend. x NULL: at the chart's x (n
 * values); else at its own x[0..n), so lines of different lengths (two
 * runs) share the axes. */
struct html_line {
    const char *name;
    const double *y;
    int color;
    bool dashed;
    const double *x;
    size_t n;
};

struct html_tick {
    double x;
    const char *label;
};

/* A line chart: x[0..n) against each line's y, x on a linear or a log10
 * scale from xmin to xmax; y linear from 0 to at least every value, or
 * (logy) log10 over the decades that hold the values above 0 (one at
 * least; 0 sits on the bottom), so that lines far apart can all be read. With
 * xticks NULL the x ticks are chosen (linear, labelled with xunit).
 * stacked: the lines are bands stacked in their order from the bottom,
 * each filled from the sum of those below it to that sum plus its values
 * (NAN counts as 0), so the top edge is their total; the bands are held
 * flat from xmin to the first x and from the last x to xmax (each x is
 * the middle of a column that spans the axis). The lines then all use the
 * chart's x. id, when not NULL, is the figure's id attribute. */
struct html_chart {
    const char *title;
    const char *id;
    const char *yunit;
    const char *xunit;
    const double *x;
    size_t n;
    double xmin, xmax;
    bool logx;
    bool logy;               /* not with stacked */
    bool stacked;
    const struct html_tick *xticks;
    size_t nxticks;
    const struct html_line *lines;
    size_t nlines;
};

/* Writes the chart as a <figure> with its legend and an inline <svg>. */
void html_chart(FILE *out, const struct html_chart *c);

/* One distribution of the percentile chart: h (a histogram in ns, not
 * owned), its values capped at cap_ms (the exact max; INFINITY for none). */
struct html_dist {
    const char *name;
    const struct hist *h;
    double cap_ms;
    int color;
    bool dashed;
};

/* The percentile chart of d[0..n) on HdrHistogram's log axis: x = 1 /
 * (1 - p) with as many nines as the largest count resolves (2 to 6), y in
 * ms. Distributions of count 0 are left out; with none left, a note says
 * so instead. */
void html_dist_chart(FILE *out, const char *title, const char *id, const struct html_dist *d, size_t n);

/* One column of an over-time chart: consecutive points merged. */
struct html_bin {
    double t;     /* seconds from the start to the column's first point */
    double secs;  /* the seconds it covers (points x interval) */
    /* the points' counts summed (html_rd_add_count: at most HTML_COUNT_MAX) */
    uint64_t requests, bytes, sent;
    uint64_t status[6]; /* 1xx 2xx 3xx 4xx 5xx other */
    uint64_t errors[SERIES_KINDS]; /* by kind, as stats_error_name */
    uint64_t lat_count;
    double p50, p90, p99, max; /* us; NAN when lat_count is 0 */
    /* --stages: the points' "target" and "connections" summed, and how many
     * points had each (0: none) */
    double target, conns;
    int ntarget, nconns;
    /* streams: the points' events and tokens summed; their TTFT and ITL
     * counts summed and percentiles the highest point's (a point has no
     * histogram of them: for one point per column, its own) */
    uint64_t events, tokens, ttft_count, itl_count;
    double ttft_p50, ttft_p99, itl_p99; /* us; 0 with no count */
};


/* Reads series.points (an array; path names it in errors) into at most
 * max_bins columns: ceil(n / max_bins) consecutive points each, their
 * counts summed and their latency "hdr" histograms decoded and merged
 * (hist_merge), so a column's percentiles are exact for its points (at the
 * points' precision); its max is the largest of the points' "max". Returns
 * the columns (malloc'd, the caller frees; NULL when there are none) with
 * their number in *nbins; on an error NULL with rd failed. */
struct html_bin *html_series_bins(struct html_rd *rd, const struct json *points, const char *path,
                                  double interval, size_t max_bins, size_t *nbins);

/* A result's series as the columns the charts over time are drawn from:
 * at most HTML_SERIES_COLUMNS (a longer run's columns merge seconds). */
#define HTML_SERIES_COLUMNS 600

struct html_cols {
    struct html_bin *b; /* n columns (owned) */
    size_t n;
    size_t npoints, per; /* the series' points, and points per column */
    double *x;           /* each column's middle, s from the run's start (owned) */
    double xmax;         /* the end of the last column */
    double target;       /* series.target_rate (-R), else NAN */
};

/* Reads result's series into *c in at most max_bins columns
 * (html_series_bins), the last one's span cut to the run's duration (a
 * last part-second's rates are over the part). Returns true, the caller
 * then frees *c with html_cols_free; false when there is nothing to draw,
 * with *why saying so for the page ("The series has no points."), or with
 * rd failed. */
bool html_series_cols(struct html_rd *rd, const struct json *result, size_t max_bins, struct html_cols *c,
                      const char **why);

void html_cols_free(struct html_cols *c);

/* The over-time section: charts of requests/s by status class, latency
 * percentiles, errors by kind and, with "target_rate", sent vs target. */
void html_series(FILE *out, struct html_rd *rd, const struct json *result);

/* The percentile distribution chart of latency.hdr (and service.hdr, when
 * present) on HdrHistogram's log axis. */
void html_percentiles(FILE *out, struct html_rd *rd, const struct json *result);

/* A page's start, up to and with <body>: the doctype, the
 * Content-Security-Policy that lets it fetch nothing, the style sheet, and
 * the title "volley: TITLE" (title[0..len), escaped). */
void html_page_start(FILE *out, const char *title, size_t len);

/* text[0..len), a JSON document, as <script type="application/json"
 * id="ID">, every '<' written \u003c: a browser neither runs nor shows it,
 * nothing in it can end the element, and it parses to the same value. */
void html_embed_json(FILE *out, const char *id, const char *text, size_t len);

/* start (seconds since the epoch) as "2026-01-31 12:00:00 UTC" into buf;
 * NULL when it is not a time (NAN, negative, 1e11 s or later). */
const char *html_utc(double start, char *buf, size_t len);

#endif
