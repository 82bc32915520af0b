/* The first failed or non-2xx responses of a run, kept whole enough to
 * read (--show-errors N, and the report's first error body): a response's
 * first bytes (its head and the beginning of its body), or a failure's
 * kind and reason. A worker keeps its own; the run merges them by time.
 * A response's sample is filled as its bytes arrive, in one of the list's
 * spare samples (errsamples_open), and kept once it completed with a
 * status that is not 2xx (errsamples_keep). */
#ifndef VOLLEY_ERRSAMPLE_H
#define VOLLEY_ERRSAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ERRSAMPLE_BYTES 2048 /* bytes kept of each response: its head and its body's beginning */
#define ERRSAMPLE_MAX 100    /* --show-errors' most */

struct errsample {
    int64_t at;        /* monotonic ns when it came (or failed); merging keeps the earliest */
    uint16_t status;   /* the response's status; 0: failed without a response */
    int16_t kind;      /* failed: an enum stats_error; -1: a response */
    char reason[96];   /* failed: the read failure's reason, or "" */
    uint32_t len;      /* bytes kept */
    char bytes[ERRSAMPLE_BYTES];
};

/* A list of samples with room for cap (the rest are not kept). Read-only to
 * callers but through the functions below. */
struct errsamples {
    struct errsample *s;
    size_t n, cap;
    bool failures; /* failures are kept too (--show-errors), not only responses */
    struct errsample *fill;   /* cap samples to fill while their responses arrive */
    struct errsample **spare; /* those of fill not open: nspare of them */
    size_t nspare, open;      /* open: handed out, not yet kept or dropped */
};

/* Makes room for cap samples (at most ERRSAMPLE_MAX; start-up only);
 * failures: keep failures as well as non-2xx responses. */
void errsamples_init(struct errsamples *e, size_t cap, bool failures);
void errsamples_free(struct errsamples *e);

/* A sample to fill with a response that may be one to keep (its status
 * is not 2xx, or not known yet) as its bytes arrive (errsample_add: as
 * HTTP/1 text, its head then its body); NULL when no more can be kept
 * (the samples kept and open fill the list). Its owner hands it back with
 * errsamples_keep or errsamples_drop. The request path's cost: a compare. */
static inline struct errsample *errsamples_open(struct errsamples *e)
{
    if (e->n + e->open >= e->cap || e->nspare == 0)
        return NULL;
    e->open++;
    struct errsample *s = e->spare[--e->nspare];
    s->len = 0;
    return s;
}

/* Appends n bytes at p to s (NULL: none) while it has room: the rest of a
 * long response is not kept. */
static inline void errsample_add(struct errsample *s, const char *p, size_t n)
{
    if (!s || s->len >= ERRSAMPLE_BYTES)
        return;
    size_t room = ERRSAMPLE_BYTES - s->len;
    if (n > room)
        n = room;
    memcpy(s->bytes + s->len, p, n);
    s->len += (uint32_t)n;
}

/* s's response completed at at with status: kept when status is not 2xx
 * (and room is left); s is e's spare again either way. */
void errsamples_keep(struct errsamples *e, struct errsample *s, int64_t at, int status);

/* s's response ended without completing (or its bytes start over): s is
 * e's spare again, nothing kept. */
void errsamples_drop(struct errsamples *e, struct errsample *s);

/* Keeps a response: its first len bytes at p (at most ERRSAMPLE_BYTES of
 * them are copied), its status read from its status line (a result file's
 * samples read back). */
void errsamples_response(struct errsamples *e, int64_t at, const char *p, size_t len);

/* Keeps a failure of kind (an enum stats_error) with reason (NULL: none),
 * when failures are kept and room is left. */
void errsamples_failed(struct errsamples *e, int64_t at, int kind, const char *reason);

/* Adds src's samples to dst's and keeps the earliest (dst's cap and
 * failures become the larger of the two). */
void errsamples_merge(struct errsamples *dst, const struct errsamples *src);

/* Where a sample's head ends (just past its blank line), or its len when
 * the bytes kept end inside the head. */
size_t errsample_head_len(const struct errsample *s);

#endif
