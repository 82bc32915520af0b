/* Interval histograms for --hlog: each worker records its values a second
 * time into small per-interval histograms; when an interval ends (seen at
 * the first value after it, or when the worker stops) they are encoded
 * (HdrHistogram V2, hdr_codec.h) and kept as text, and the live histograms
 * start over. After the run, intervals_write merges the workers' intervals
 * of the same number and tag and writes the interval log (hlog.h).
 *
 * Each value goes into the interval in which it was recorded (when its
 * request ended), so the intervals of a tag add up to the whole-run
 * histogram of the same values. */
#ifndef VOLLEY_INTERVALS_H
#define VOLLEY_INTERVALS_H

#include "hist.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The series of the log, in the order their lines are written. */
enum interval_tag {
    IV_LATENCY, /* untagged: latency (from the intended send time with -R) */
    IV_SERVICE, /* Tag=service: first byte written -> last byte read (-R only) */
    IV_SENDLAG, /* Tag=sendlag: actual send - intended send (-R only) */
    IV_TAGS
};

/* One finished interval of one tag, encoded. */
struct interval_blob {
    uint64_t index;
    enum interval_tag tag;
    char *b64;
};

struct intervals {
    int64_t t0;        /* monotonic ns where interval 0 starts */
    int64_t len_ns;    /* interval length */
    int ntags;         /* 1 (closed loop: latency only) or IV_TAGS */
    uint64_t cur;      /* the interval being recorded */
    int64_t cur_end;   /* where it ends (monotonic ns) */
    bool dirty;        /* something was recorded in cur */
    struct hist h[IV_TAGS];
    struct interval_blob *blobs;
    size_t nblobs, cap;
};

/* Sets up iv (allocates its histograms: start-up only). */
void intervals_init(struct intervals *iv, int64_t len_ns, int ntags);

/* Interval 0 starts at t0 (monotonic ns), the run's start. */
void intervals_start(struct intervals *iv, int64_t t0);
void intervals_free(struct intervals *iv);

/* Closes the interval being recorded and moves to the one holding now. */
void intervals_roll(struct intervals *iv, int64_t now);

/* Records value (ns) of tag at monotonic time now. Cheap except when an
 * interval ends, about once per interval length: then the finished
 * interval is encoded (one allocation for its text). */
static inline void intervals_record(struct intervals *iv, int64_t now, enum interval_tag tag, int64_t value)
{
    if (now >= iv->cur_end)
        intervals_roll(iv, now);
    hist_record(&iv->h[tag], value);
    iv->dirty = true;
}

/* Encodes what the interval being recorded holds (the worker stopped). */
void intervals_finish(struct intervals *iv);

/* Writes the interval log of the n workers' intervals ivs[0..n-1] to f: the header
 * with start_epoch (wall-clock seconds of t0) and comment, then for every
 * interval from 0 up to the one holding end (monotonic ns), one line per
 * tag, empty intervals included. Returns 0, or -1 with err. */
int intervals_write(FILE *f, const struct intervals *ivs, size_t n, double start_epoch, int64_t end,
                    const char *comment, char *err, size_t errlen);

#endif
