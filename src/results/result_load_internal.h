/* What result_load.c shares with the readers of a saved result's other
 * parts (result_load_stream.c): a histogram's reader. */
#ifndef VOLLEY_RESULT_LOAD_INTERNAL_H
#define VOLLEY_RESULT_LOAD_INTERNAL_H

#include "html_internal.h"
#include "stats_stream.h"

#include <stdbool.h>

/* The histogram parent.key's "hdr" decoded (parent at path), with its
 * exact figures (min and max written divided by scale: 1e3 for ns written
 * in us, 1 for a count), merged into into; a missing optional one leaves
 * it as it was. */
void result_load_hist(struct html_rd *rd, const struct json *parent, const char *path, const char *key,
                      bool required, double scale, struct hist *into);

/* "stream" (report_stream.c) into st: null or absent (a run without
 * streams, or from before them) leaves it empty. */
void result_load_stream(struct html_rd *rd, const struct json *root, struct stats_stream *st);

#endif
