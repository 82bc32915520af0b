/* Shared by the html*.c files (and their unit test): the SVG line chart,
 * the series' downsampling, and reading typed fields with errors that name
 * them. */
#ifndef VOLLEY_HTML_INTERNAL_H
#define VOLLEY_HTML_INTERNAL_H

#include "hist.h"
#include "json_in.h"
#include "series.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Field reading: the first error is kept in err and later reads do
 * nothing, so a renderer reads on and checks rd->failed at the end. */
struct html_rd {
    char *err;
    size_t errlen;
    bool failed;
};

/* obj's member key as a number: NAN when it is null, or when it is absent
 * and not required; an error for any other type, or when required and
 * absent. path names obj in messages ("requests"; "" for the root). */
double html_rd_num(struct html_rd *rd, const struct json *obj, const char *path, const char *key, bool required);

/* The most a saved result counts of anything: every count it holds is at
 * most this (9e15, below 2^53, so a double holds it exactly). */
#define HTML_COUNT_MAX 9e15

/* obj's member key as a count: a whole number from 0 (at most
 * HTML_COUNT_MAX); absent or null is 0; anything else an error (and 0). */
double html_rd_count(struct html_rd *rd, const struct json *obj, const char *path, const char *key);

/* obj's member key as a count (html_rd_count) added into *sum, which
 * stays at most HTML_COUNT_MAX: what a reader adds up from a file (a
 * series' points into a column, a key the file repeats) is a part of one
 * of the result's totals, so a sum past it is no real result and is
 * refused (rd failed, naming PATH.KEY; *sum as it was). No sum of a
 * file's counts can overflow so. Returns the count added (0 on failure). */
uint64_t html_rd_add_count(struct html_rd *rd, const struct json *obj, const char *path, const char *key,
                           uint64_t *sum);

/* The same for a count v already read (at most HTML_COUNT_MAX). */
uint64_t html_rd_add(struct html_rd *rd, const char *path, const char *key, uint64_t *sum, double v);

/* Series point p's "span" (p at path): the seconds the run's last point
 * covers when it ends within its interval. Above 0 and at most interval,
 * or rd fails naming it; NAN when absent (the point covers its interval)
 * or on failure. */
double html_rd_span(struct html_rd *rd, const struct json *p, const char *path, double interval);

/* obj's "hdr" (obj at path) decoded into *h (hdr_decode, capped), which the
 * caller then owns (hist_free). Returns false, with rd failed, when it is
 * missing or does not decode. */
bool html_rd_hist(struct html_rd *rd, const struct json *obj, const char *path, struct hist *h);

/* obj's member key as a string (NULL when null or absent and not
 * required); *len its length when len is not NULL. */
const char *html_rd_str(struct html_rd *rd, const struct json *obj, const char *path, const char *key,
                        bool required, size_t *len);

/* obj's member key when it is of the given type; NULL when null or absent
 * and not required; an error for any other type. */
const struct json *html_rd_of(struct html_rd *rd, const struct json *obj, const char *path, const char *key,
                              enum json_type type, bool required);

/* A number as the JSON had it: whole numbers without decimals, others
 * with up to dec decimals; "-" for absent or null (NAN). */
void html_num(FILE *out, double v, int dec);

/* A time in microseconds as the text report writes times; "-" for NAN. */
void html_us(FILE *out, double v);

/* The "Requests by name" table of a result's "names" (nothing when it is
 * null or absent). */
void html_names(FILE *out, struct html_rd *rd, const struct json *r);

/* The thresholds table, when the result has thresholds (html_thresholds.c). */
void html_thresholds(FILE *out, struct html_rd *rd, const struct json *r);

/* A reasons object f ({"reasons": [{"reason", "count"}], "other_reasons",
 * "other"}; at path, NULL: none) as a table of id with the column head
 * head: a row per reason (escaped), then "N other reasons", or "none". */
void html_reasons(FILE *out, struct html_rd *rd, const struct json *f, const char *path, const char *id,
                  const char *head);

/* A flow's sections (the result's "iterations" an object): the
 * iterations (counts, per second, duration percentiles, failures by
 * reason), the checks table and the groups table; nothing for other runs. */
void html_flow(FILE *out, struct html_rd *rd, const struct json *r);

/* Records an error "PATH.KEY: MESSAGE" (the first one only). */
void html_rd_fail(struct html_rd *rd, const char *path, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

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
