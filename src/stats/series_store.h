/* Where a series keeps its complete points (series.h): an anonymous
 * temporary file, so that memory does not grow with the run's length.
 * Each point is a fixed-size record in one file (point i at i times its
 * size) and its hist text in another, both made with O_TMPFILE (or made
 * and unlinked at once) in $TMPDIR or /tmp, so nothing is left behind,
 * whatever ends the process. If they cannot be made or written, the
 * points from then on are kept in memory instead, after one line on
 * stderr. Main thread only. */
#ifndef VOLLEY_SERIES_STORE_H
#define VOLLEY_SERIES_STORE_H

#include "series_point.h"

#include <stddef.h>

struct series_store;

/* A new, empty store (its files are made at the first put). */
struct series_store *series_store_new(void);

/* Frees st and closes its files (NULL: nothing). */
void series_store_free(struct series_store *st);

/* Appends a copy of *p and its hist text as the next point. */
void series_store_put(struct series_store *st, const struct series_point *p);

/* Point i (< the points put) into *p; hist and cap as series_point_get's.
 * Returns 0, or -1 on a read error (said once; *p is an empty point). */
int series_store_get(struct series_store *st, size_t i, struct series_point *p, char **hist, size_t *cap);

#endif
