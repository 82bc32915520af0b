/* What result_load.c and the readers of a saved result's other parts
 * (result_load_stream.c) share, below them (result_load_hist.c): a
 * histogram's reader. */
#ifndef VOLLEY_RESULT_LOAD_INTERNAL_H
#define VOLLEY_RESULT_LOAD_INTERNAL_H

#include "html_internal.h"
#include "stats_hosts.h"
#include "stats_stream.h"

#include <stdbool.h>

/* The exact figures the "hdr" encoding leaves out, when the file has them
 * ("sum" and "sum_sq", written since 0.1.0's report command): min, max
 * (obj's, scale units of a recorded value each), sum, sum of squares and
 * the clamped count, into h (decoded from the same obj). Without them h
 * keeps hdr_decode's bucket estimates. */
void result_load_exact(struct html_rd *rd, const struct json *obj, const char *path, double scale, struct hist *h);

/* The histogram parent.key's "hdr" decoded (parent at path), with its
 * exact figures (min and max written divided by scale: 1e3 for ns written
 * in us, 1 for a count), merged into into; a missing optional one leaves
 * it as it was. */
void result_load_hist(struct html_rd *rd, const struct json *parent, const char *path, const char *key,
                      bool required, double scale, struct hist *into);

/* "stream" (report_stream.c) into st: null or absent (a run without
 * streams, or from before them) leaves it empty. */
void result_load_stream(struct html_rd *rd, const struct json *root, struct stats_stream *st);

/* "hosts" (report_hosts.c) into *hp (made at its first row): null or
 * absent (a run that reached the target alone, or from before hosts)
 * leaves it as it was. */
void result_load_hosts(struct html_rd *rd, const struct json *root, struct stats_hosts **hp);

#endif
