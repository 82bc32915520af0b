/* Interval histograms for --hlog: each worker records its values a second
 * time into small per-interval histograms; when an interval ends (seen at
 * the first value after it, or at the worker's 100 ms tick, or when the
 * worker stops) they are encoded (HdrHistogram V2, hdr_codec.h) and handed
 * to the main thread under a short lock, and the live histograms start
 * over. The main thread (struct intervals_log, intervals_log.c) merges the
 * workers' intervals of the same number and tag as soon as every worker is
 * past them and writes them to the interval log (hlog.h), so the log grows
 * as the run goes and memory does not.
 *
 * Each value goes into the interval in which it was recorded (when its
 * request ended), so the intervals of a tag add up to the whole-run
 * histogram of the same values. */
#ifndef VOLLEY_INTERVALS_H
#define VOLLEY_INTERVALS_H

#include "hist.h"

#include <pthread.h>
#include <stdatomic.h>
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

/* One finished interval of one tag, encoded. tag: an enum interval_tag,
 * or IV_TAGS + a request name's id (names.h): that name's latency. */
struct interval_blob {
    uint64_t index;
    int tag;
    char *b64;
};

/* A worker's interval histograms. Fields are intervals.c's: the worker's
 * thread records, the main thread takes finished intervals
 * (intervals_log_collect). */
struct intervals {
    int64_t t0;        /* monotonic ns where interval 0 starts */
    int64_t len_ns;    /* interval length */
    int ntags;         /* 1 (closed loop: latency only) or IV_TAGS */
    uint64_t cur;      /* the interval being recorded */
    int64_t cur_end;   /* where it ends (monotonic ns) */
    bool dirty;        /* something was recorded in cur */
    struct hist h[IV_TAGS];
    struct hist **names;         /* by request name id: its latency (NULL: a name this worker
                                  * did not use; the array NULL until the first name) */
    uint32_t nnames;             /* 1 + the highest id in names */
    struct interval_blob *done;  /* hand_over's scratch, grown to IV_TAGS + nnames */
    size_t done_cap;
    pthread_mutex_t lock;        /* guards blobs and nblobs */
    struct interval_blob *blobs; /* finished, not taken yet, in interval order */
    size_t nblobs, cap;          /* cap stays: taking them allocates nothing here */
    _Atomic uint64_t done_below; /* every interval below it has been handed over */
    atomic_bool finished;        /* the worker has stopped: all is handed over */
};

/* Sets up iv (allocates its histograms: start-up only). */
void intervals_init(struct intervals *iv, int64_t len_ns, int ntags);

/* Interval 0 starts at t0 (monotonic ns), the run's start. */
void intervals_start(struct intervals *iv, int64_t t0);

/* Frees iv's histograms and whatever it still holds. */
void intervals_free(struct intervals *iv);

/* Closes the interval being recorded (handing it over) and moves to the
 * one holding now. */
void intervals_roll(struct intervals *iv, int64_t now);

/* Records value (ns) of tag at monotonic time now. Cheap except when an
 * interval ends, about once per interval length: then the finished
 * interval is encoded (one allocation for its text per tag) and handed
 * over. */
static inline void intervals_record(struct intervals *iv, int64_t now, enum interval_tag tag, int64_t value)
{
    if (now >= iv->cur_end)
        intervals_roll(iv, now);
    hist_record(&iv->h[tag], value);
    iv->dirty = true;
}

/* Adds the interval histogram of request name id (names.h), at the
 * name's first use in the worker (allocates). */
void intervals_add_name(struct intervals *iv, uint32_t id);

/* Records a latency of request name id (added) at monotonic time now, as
 * intervals_record does. */
static inline void intervals_record_name(struct intervals *iv, int64_t now, uint32_t id, int64_t value)
{
    if (now >= iv->cur_end)
        intervals_roll(iv, now);
    hist_record(iv->names[id], value);
    iv->dirty = true;
}

/* The worker's 100 ms tick: a worker that records nothing still moves past
 * the intervals that have ended, so the log does not wait for it. */
static inline void intervals_tick(struct intervals *iv, int64_t now)
{
    if (now >= iv->cur_end)
        intervals_roll(iv, now);
}

/* The worker stopped: the interval being recorded is handed over, and
 * with it everything. */
void intervals_finish(struct intervals *iv);

/* The interval log being written (main thread only). Fields are
 * intervals_log.c's. */
struct intervals_log {
    FILE *f;                 /* the log; not owned */
    struct intervals **ivs;  /* the workers' (the array is owned, not they) */
    size_t n;
    int64_t t0, len_ns;
    int ntags;
    uint64_t next;           /* the first interval not written yet */
    struct interval_queue {  /* per worker: intervals taken, not written yet */
        struct interval_blob *b;
        size_t n, cap;
    } *q;
    struct hist sum;         /* an interval's tag, merged */
    char *const *names;      /* the run's request names (names.h's name[]), or NULL */
    uint64_t *name_first;    /* by name id: the first interval with a value of it
                              * (UINT64_MAX: none yet); a name's line is written from
                              * there on */
    uint32_t nnames;         /* 1 + the highest name id seen */
    char err[256];           /* non-empty: the log failed; nothing more is written */
};

/* Starts the log of the n workers' intervals ivs[0..n-1] (an array the log
 * owns from now on; n >= 1, each set up by intervals_init with the same
 * length and tags) on f: writes the header with start_epoch (wall-clock
 * seconds of t0, where interval 0 starts) and comment, and flushes it.
 * names: the run's request names by id (names.h's name[], read only for
 * ids the workers handed intervals of), or NULL when no request can be
 * named. Each name's latency gets lines of its own, tagged
 * "name:NAME" (intervals_name_tag), from the first interval that has a
 * value of it on, after the other tags' and in id order. */
void intervals_log_start(struct intervals_log *l, FILE *f, struct intervals **ivs, size_t n, int64_t t0,
                         double start_epoch, const char *comment, char *const *names);

/* The --hlog tag of request name name into buf (len > 0; always
 * terminated, cut at len - 1): "name:" and the name with '%', ',', every
 * byte up to ' ' and DEL written %XX (two upper-case hex digits), as a log
 * line's tag may not hold a comma, a blank or a line break. */
void intervals_name_tag(const char *name, char *buf, size_t len);

/* Takes what the workers handed over and writes every interval that all of
 * them are past (one that stopped is past all), each with a line per tag,
 * empty intervals included, in order; flushes what it wrote. */
void intervals_log_collect(struct intervals_log *l);

/* The workers have stopped: writes the rest, up to the interval holding end
 * (monotonic ns), and flushes. The workers' intervals are not touched
 * again. Returns 0, or -1 with err if anything could not be written (at
 * any time during the run). */
int intervals_log_finish(struct intervals_log *l, int64_t end, char *err, size_t errlen);

/* Frees what the log holds (not f). */
void intervals_log_free(struct intervals_log *l);

#endif
