/* Keeping the first failed or non-2xx responses of a run (errsample.h):
 * the copies are made only while a worker's list has room, so a run of a
 * million errors copies N responses, not a million. */
#include "errsample.h"

#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void errsamples_init(struct errsamples *e, size_t cap, bool failures)
{
    if (cap > ERRSAMPLE_MAX)
        cap = ERRSAMPLE_MAX;
    errsamples_free(e);
    e->s = cap ? xcalloc(cap, sizeof *e->s) : NULL;
    e->fill = cap ? xcalloc(cap, sizeof *e->fill) : NULL;
    e->spare = cap ? xcalloc(cap, sizeof *e->spare) : NULL;
    for (size_t i = 0; i < cap; i++)
        e->spare[i] = &e->fill[i];
    e->nspare = cap;
    e->n = 0;
    e->cap = cap;
    e->failures = failures;
}

void errsamples_free(struct errsamples *e)
{
    free(e->s);
    free(e->fill);
    free(e->spare);
    *e = (struct errsamples){0};
}

void errsamples_drop(struct errsamples *e, struct errsample *s)
{
    e->spare[e->nspare++] = s;
    e->open--;
}

void errsamples_keep(struct errsamples *e, struct errsample *s, int64_t at, int status)
{
    if (status / 100 != 2 && e->n < e->cap) {
        struct errsample *k = &e->s[e->n++];
        memset(k, 0, offsetof(struct errsample, bytes));
        k->at = at;
        k->kind = -1;
        k->status = (uint16_t)status;
        k->len = s->len;
        memcpy(k->bytes, s->bytes, s->len);
    }
    errsamples_drop(e, s);
}

void errsamples_response(struct errsamples *e, int64_t at, const char *p, size_t len)
{
    if (e->n >= e->cap)
        return;
    struct errsample *s = &e->s[e->n++];
    memset(s, 0, offsetof(struct errsample, bytes));
    s->at = at;
    s->kind = -1;
    unsigned status = 0;
    for (size_t i = 9; i < 12 && i < len && p[i] >= '0' && p[i] <= '9'; i++)
        status = status * 10 + (unsigned)(p[i] - '0');
    s->status = (uint16_t)status;
    s->len = (uint32_t)(len < ERRSAMPLE_BYTES ? len : ERRSAMPLE_BYTES);
    memcpy(s->bytes, p, s->len);
}

void errsamples_failed(struct errsamples *e, int64_t at, int kind, const char *reason)
{
    if (!e->failures || e->n >= e->cap)
        return;
    struct errsample *s = &e->s[e->n++];
    memset(s, 0, offsetof(struct errsample, bytes));
    s->at = at;
    s->kind = (int16_t)kind;
    snprintf(s->reason, sizeof s->reason, "%s", reason ? reason : "");
}

static int by_time(const void *a, const void *b)
{
    const struct errsample *x = a, *y = b;
    return (x->at > y->at) - (x->at < y->at);
}

void errsamples_merge(struct errsamples *dst, const struct errsamples *src)
{
    size_t cap = dst->cap > src->cap ? dst->cap : src->cap;
    if (src->n == 0 && cap == dst->cap) {
        dst->failures |= src->failures;
        return;
    }
    struct errsample *all = xcalloc(dst->n + src->n ? dst->n + src->n : 1, sizeof *all);
    if (dst->n)
        memcpy(all, dst->s, dst->n * sizeof *all);
    if (src->n)
        memcpy(all + dst->n, src->s, src->n * sizeof *all);
    size_t n = dst->n + src->n;
    qsort(all, n, sizeof *all, by_time);
    free(dst->s);
    dst->s = xcalloc(cap ? cap : 1, sizeof *dst->s);
    dst->n = n < cap ? n : cap;
    memcpy(dst->s, all, dst->n * sizeof *all);
    dst->cap = cap;
    dst->failures |= src->failures;
    free(all);
}

size_t errsample_head_len(const struct errsample *s)
{
    for (size_t i = 0; i + 3 < s->len; i++)
        if (memcmp(s->bytes + i, "\r\n\r\n", 4) == 0)
            return i + 4;
    return s->len;
}
