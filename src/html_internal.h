/* Shared by the html*.c files (and their unit test): the SVG line chart,
 * the series' downsampling, and reading typed fields with errors that name
 * them. */
#ifndef VOLLEY_HTML_INTERNAL_H
#define VOLLEY_HTML_INTERNAL_H

#include "hist.h"
#include "json_in.h"

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

/* obj's member key as a count: a whole number from 0 (at most 9e15);
 * absent or null is 0; anything else an error (and 0). */
double html_rd_count(struct html_rd *rd, const struct json *obj, const char *path, const char *key);

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

/* Records an error "PATH.KEY: MESSAGE" (the first one only). */
void html_rd_fail(struct html_rd *rd, const char *path, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* One line of a chart: n values (NAN leaves a gap), drawn in colour
 * `color` (0..7) and named in the legend. */
struct html_line {
    const char *name;
    const double *y;
    int color;
    bool dashed;
};

struct html_tick {
    double x;
    const char *label;
};

/* A line chart: x[0..n) against each line's y, x on a linear or a log10
 * scale from xmin to xmax; y linear from 0 to at least every value. With
 * xticks NULL the x ticks are chosen (linear, labelled with xunit). */
struct html_chart {
    const char *title;
    const char *yunit;
    const char *xunit;
    const double *x;
    size_t n;
    double xmin, xmax;
    bool logx;
    const struct html_tick *xticks;
    size_t nxticks;
    const struct html_line *lines;
    size_t nlines;
};

/* Writes the chart as a <figure> with its legend and an inline <svg>. */
void html_chart(FILE *out, const struct html_chart *c);

/* One column of an over-time chart: consecutive points merged. */
struct html_bin {
    double t;     /* seconds from the start to the column's first point */
    double secs;  /* the seconds it covers (points x interval) */
    int64_t requests, bytes, sent;
    int64_t status[6]; /* 1xx 2xx 3xx 4xx 5xx other */
    int64_t errors[8]; /* by kind, as stats_error_name */
    int64_t lat_count;
    double p50, p90, p99, max; /* us; NAN when lat_count is 0 */
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

/* The over-time section: charts of requests/s by status class, latency
 * percentiles, errors by kind and, with "target_rate", sent vs target. */
void html_series(FILE *out, struct html_rd *rd, const struct json *result);

/* The percentile distribution chart of latency.hdr (and service.hdr, when
 * present) on HdrHistogram's log axis. */
void html_percentiles(FILE *out, struct html_rd *rd, const struct json *result);

#endif
