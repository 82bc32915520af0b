/* The first failed or non-2xx responses of a run, kept whole enough to
 * read (--show-errors N, and the report's first error body): a response's
 * first bytes (its head and the beginning of its body), or a failure's
 * kind and reason. A worker keeps its own; the run merges them by time. */
#ifndef VOLLEY_ERRSAMPLE_H
#define VOLLEY_ERRSAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
};

/* Makes room for cap samples (at most ERRSAMPLE_MAX; start-up only);
 * failures: keep failures as well as non-2xx responses. */
void errsamples_init(struct errsamples *e, size_t cap, bool failures);
void errsamples_free(struct errsamples *e);

/* Whether a response whose first len bytes are p is one to keep: room is
 * left and its status line says a status other than 2xx. The request
 * path's cost: a compare, and the status byte once a sample is due. */
static inline bool errsamples_wants(const struct errsamples *e, const char *p, size_t len)
{
    return e->n < e->cap && len >= 12 && p[9] != '2' && p[0] == 'H';
}

/* Keeps a response: its first len bytes at p (at most ERRSAMPLE_BYTES of
 * them are copied), its status read from its status line. */
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
