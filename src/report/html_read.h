/* Reading a parsed volley result's fields with their types and ranges
 * checked, each error naming the field ("series.points[3].latency.hdr:
 * ..."). Below the HTML report's files and the readers of saved results
 * (src/results/), which all read through these. */
#ifndef VOLLEY_HTML_READ_H
#define VOLLEY_HTML_READ_H

#include "hist.h"
#include "json_in.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Records an error "PATH.KEY: MESSAGE" (the first one only). */
void html_rd_fail(struct html_rd *rd, const char *path, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
