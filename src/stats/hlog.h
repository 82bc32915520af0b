/* HdrHistogram interval logs ("hlog", format version 1.3), written as Java's
 * org.HdrHistogram.HistogramLogWriter writes them, so HistogramLogProcessor
 * and the other HdrHistogram log readers can read volley's histograms and
 * merge logs from several machines exactly. */
#ifndef VOLLEY_HLOG_H
#define VOLLEY_HLOG_H

#include <stdio.h>

#include "hist.h"

/* Writes the log's header lines:
 *     #[<comment>]                  one per line of comment, if not NULL
 *     #[Histogram log format version 1.3]
 *     #[StartTime: <s> (seconds since epoch), <date>]
 *     #[BaseTime: <s> (seconds since epoch)]
 *     "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 * where <s> is start_epoch_s with three decimals and <date> is that second in
 * local time in Java's Date.toString() form ("Tue Nov 14 22:13:20 UTC 2023").
 * BaseTime is the same instant: interval start times are relative to it.
 * Returns 0, or -1 on a write error (errno as stdio left it). */
int hlog_header(FILE *f, double start_epoch_s, const char *comment);

/* Writes one interval line:
 *     [Tag=<tag>,]<start>,<length>,<max>,<histogram>
 * start_s is seconds since BaseTime, length_s the interval's length in
 * seconds, max the top of the bucket holding h->max (0 when h is empty)
 * divided by max_ratio (1e6 for volley's nanoseconds: milliseconds), all
 * three with three decimals rounded as Java's Formatter does, and histogram
 * is hdr_encode(h). tag NULL or "" writes an untagged line. Returns 0, or -1
 * on a write error, or with errno EINVAL and nothing written if tag contains
 * a comma, space or line break (the log's delimiters). */
int hlog_interval(FILE *f, const char *tag, double start_s, double length_s,
                  const struct hist *h, double max_ratio);

#endif
