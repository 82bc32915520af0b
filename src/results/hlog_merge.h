/* The shards' --hlog interval logs (`volley merge`) into one log of the
 * whole run: each log read (untrusted: every line checked, an error names
 * the file and line), its intervals placed on the absolute time line
 * (StartTime plus each interval's start), and the intervals that fall in
 * the same slot of the earliest log's grid and carry the same tag merged
 * by adding their bucket counts. With --start-at the shards' intervals
 * start at the same instants, so the merge is exact interval by interval. */
#ifndef VOLLEY_HLOG_MERGE_H
#define VOLLEY_HLOG_MERGE_H

#include "shard.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct hlog_entry;

/* One shard's log, as read. */
struct hlog_in {
    const char *path;
    double start;              /* StartTime (BaseTime when given), epoch seconds */
    char run_id[SHARD_ID_MAX + 1]; /* from volley's comment line: run=ID */
    struct shard shard;        /* and shard=I/N */
    char comment[512];         /* that comment line, without #[ ] */
    struct hlog_entry *e;      /* its intervals (pointing into the text) */
    size_t n;
};

/* Whether text is an interval log (it opens with "#[", as every
 * HdrHistogram log does) rather than a result. */
bool hlog_merge_is_log(const char *text, size_t len);

/* Reads the log text[0..len) of path (text must outlive in, and end with
 * a NUL at text[len]). Returns 0, or -1 with err naming the file and line
 * (call hlog_merge_free in both cases). */
int hlog_merge_read(struct hlog_in *in, const char *path, const char *text, size_t len, char *err,
                    size_t errlen);

enum {
    HLOG_MERGE_FILE = -1,     /* a histogram that does not decode (err names file and line) */
    HLOG_MERGE_SETTINGS = -2, /* the logs' interval lengths or histograms' configurations differ */
};

/* Writes the merge of logs[0..n) to f: volley's comment (merged=N), the
 * header at the earliest start, then the intervals in time order, the
 * untagged one of each slot first and the tags in the order they first
 * appear. Returns 0, HLOG_MERGE_FILE or HLOG_MERGE_SETTINGS with err, or
 * HLOG_MERGE_FILE with err "write error" when f failed. */
int hlog_merge_write(FILE *f, struct hlog_in *logs, size_t n, char *err, size_t errlen);

void hlog_merge_free(struct hlog_in *in);

#endif
