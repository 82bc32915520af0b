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
 * request, iteration or group ended), so the intervals of a tag add up to
 * the whole-run histogram of the same values. */
#ifndef VOLLEY_INTERVALS_H
#define VOLLEY_INTERVALS_H

#include "hist.h"
#include "names.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The series of the log, in the order their lines are written (then
 * the request names', then the groups'). */
enum interval_tag {
    IV_LATENCY,   /* untagged: latency (from the intended send time with -R) */
    IV_SERVICE,   /* Tag=service: first byte written -> last byte read (-R only) */
    IV_SENDLAG,   /* Tag=sendlag: actual send - intended send (-R only) */
    IV_ITERATION, /* Tag=iteration: a flow's completed iterations' durations */
    /* Streams (stats_stream.h), each written from the first interval that
     * holds a value of it on (a run without streams has none of them): */
    IV_FIRST_EVENT,   /* Tag=first_event: a completed stream's time to its first event */
    IV_EVENT_GAP,     /* Tag=event_gap: between two events of a stream */
    IV_TTFT,          /* Tag=ttft: a token stream's time to its first token event */
    IV_SERVICE_TTFT,  /* Tag=service_ttft: the same from the first byte written (-R only) */
    IV_ITL,           /* Tag=itl: between two token events of a stream */
    IV_E2EL,          /* Tag=e2el: a token stream from its start to its end */
    IV_TAGS
};

/* The tags whose lines start at their first value (the streams'). */
#define IV_LAZY (IV_BIT(IV_FIRST_EVENT) | IV_BIT(IV_EVENT_GAP) | IV_BIT(IV_TTFT) | IV_BIT(IV_SERVICE_TTFT) | \
                 IV_BIT(IV_ITL) | IV_BIT(IV_E2EL))

/* The set of tags a run records: a bit per enum interval_tag. */
#define IV_BIT(tag) (1u << (tag))

/* A blob's tag for request name id's latency, and for group id's
 * durations (ids from names.h, below NAMES_MAX). */
#define IV_NAME(id) (IV_TAGS + (int)(id))
#define IV_GROUP(id) (IV_TAGS + NAMES_MAX + (int)(id))

/* One finished interval of one tag, encoded. tag: an enum interval_tag,
 * IV_NAME(id) or IV_GROUP(id). */
struct interval_blob {
    uint64_t index;
    int tag;
    char *b64;
};

/* Histograms by id (a request name's, a group's), each made at the id's
 * first use in the worker. */
struct interval_keyed {
    struct hist **h; /* NAMES_MAX of them (NULL: an id this worker did not use); the
                      * array NULL until the first */
    uint32_t n;      /* 1 + the highest id made */
};

/* A worker's interval histograms. Fields are intervals.c's: the worker's
 * thread records, the main thread takes finished intervals
 * (intervals_log_collect). */
struct intervals {
    int64_t t0;        /* monotonic ns where interval 0 starts */
    int64_t len_ns;    /* interval length */
    unsigned tags;     /* IV_BIT of each tag recorded (latency always) */
    uint64_t cur;      /* the interval being recorded */
    int64_t cur_end;   /* where it ends (monotonic ns) */
    bool dirty;        /* something was recorded in cur */
    struct hist h[IV_TAGS];
    struct interval_keyed names;  /* by request name id: its latency */
    struct interval_keyed groups; /* by group id: its durations */
    struct interval_blob *done;  /* hand_over's scratch, grown to IV_TAGS + names.n + groups.n */
    size_t done_cap;
    pthread_mutex_t lock;        /* guards blobs and nblobs */
    struct interval_blob *blobs; /* finished, not taken yet, in interval order */
    size_t nblobs, cap;          /* cap stays: taking them allocates nothing here */
    _Atomic uint64_t done_below; /* every interval below it has been handed over */
    atomic_bool finished;        /* the worker has stopped: all is handed over */
};

/* Sets up iv to record the tags of the set tags (IV_BIT each; latency is
 * always in it) and allocates their histograms (start-up only). */
void intervals_init(struct intervals *iv, int64_t len_ns, unsigned tags);

/* Interval 0 starts at t0 (monotonic ns), the run's start. */
void intervals_start(struct intervals *iv, int64_t t0);

/* Frees iv's histograms and whatever it still holds. */
void intervals_free(struct intervals *iv);

/* Closes the interval being recorded (handing it over) and moves to the
 * one holding now. */
void intervals_roll(struct intervals *iv, int64_t now);

/* Records value (ns) of tag (one of iv's set) at monotonic time now (the
 * _in form: into h, one of iv's histograms). Cheap except when an
 * interval ends, about once per interval length: then the finished
 * interval is encoded (one allocation for its text per tag) and handed
 * over. */
static inline void intervals_record_in(struct intervals *iv, int64_t now, struct hist *h, int64_t value)
{
    if (now >= iv->cur_end)
        intervals_roll(iv, now);
    hist_record(h, value);
    iv->dirty = true;
}

static inline void intervals_record(struct intervals *iv, int64_t now, enum interval_tag tag, int64_t value)
{
    intervals_record_in(iv, now, &iv->h[tag], value);
}

/* Adds the interval histogram of request name id (names.h), at the
 * name's first use in the worker (allocates). */
void intervals_add_name(struct intervals *iv, uint32_t id);

/* Records a latency of request name id (added) at monotonic time now, as
 * intervals_record does. */
static inline void intervals_record_name(struct intervals *iv, int64_t now, uint32_t id, int64_t value)
{
    intervals_record_in(iv, now, iv->names.h[id], value);
}

/* Adds the interval histogram of group id (names.h: the run's group
 * names), at the group's first use in the worker (allocates). */
void intervals_add_group(struct intervals *iv, uint32_t id);

/* Records a duration of group id (added) that ended at monotonic time now,
 * as intervals_record does. */
static inline void intervals_record_group(struct intervals *iv, int64_t now, uint32_t id, int64_t value)
{
    intervals_record_in(iv, now, iv->groups.h[id], value);
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

/* Series by id in the log (request names, groups): each id's lines are
 * written from its first interval with a value on. */
struct interval_keyed_log {
    char *const *names;      /* by id (names.h's name[]), or NULL: no ids */
    uint64_t *first;         /* by id: the first interval with a value of it
                              * (UINT64_MAX: none yet) */
    uint32_t n;              /* 1 + the highest id seen */
};

/* The interval log being written (main thread only). Fields are
 * intervals_log.c's. */
struct intervals_log {
    FILE *f;                 /* the log; not owned */
    struct intervals **ivs;  /* the workers' (the array is owned, not they) */
    size_t n;
    int64_t t0, len_ns;
    unsigned tags;           /* the workers' set of tags */
    uint64_t first[IV_TAGS]; /* by tag: the first interval with a line (IV_LAZY's: the first
                              * with a value; UINT64_MAX: none yet; the others: 0) */
    uint64_t next;           /* the first interval not written yet */
    struct interval_queue {  /* per worker: intervals taken, not written yet */
        struct interval_blob *b;
        size_t n, cap;
    } *q;
    struct hist sum;         /* an interval's tag, merged */
    struct interval_keyed_log names;  /* request names' latencies (Tag=name:NAME) */
    struct interval_keyed_log groups; /* groups' durations (Tag=group:NAME) */
    char err[256];           /* non-empty: the log failed; nothing more is written */
};

/* Starts the log of the n workers' intervals ivs[0..n-1] (an array the log
 * owns from now on; n >= 1, each set up by intervals_init with the same
 * length and tags) on f: writes the header with start_epoch (wall-clock
 * seconds of t0, where interval 0 starts) and comment, and flushes it.
 * names: the run's request names by id (names.h's name[], read only for
 * ids the workers handed intervals of), or NULL when no request can be
 * named; groups likewise the run's group names (a flow's u:group), or
 * NULL. Each name's latency gets lines of its own, tagged "name:NAME"
 * (intervals_tag), from the first interval that has a value of it on,
 * after the fixed tags' and in id order; then each group's durations,
 * tagged "group:NAME", the same way. */
void intervals_log_start(struct intervals_log *l, FILE *f, struct intervals **ivs, size_t n, int64_t t0,
                         double start_epoch, const char *comment, char *const *names, char *const *groups);

/* The --hlog tag of a series by name into buf (len > 0; always
 * terminated, cut at len - 1): prefix ("name:", "group:") and the name
 * with '%', ',', every byte up to ' ' and DEL written %XX (two upper-case
 * hex digits), as a log line's tag may not hold a comma, a blank or a line
 * break; an escape is written whole or not at all. */
void intervals_tag(const char *prefix, const char *name, char *buf, size_t len);

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
