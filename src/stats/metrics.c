/* Named custom metrics: a small array searched by name only when a name is
 * first used (the Lua side keeps the index), merged by name at the end. */
#include "metrics.h"

#include "xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 0.001 .. 2^50/1000 (about 1.1259e12) in thousandths. */
#define RECORD_HIGHEST (INT64_C(1) << 50)

void metrics_init(struct metrics *ms)
{
    memset(ms, 0, sizeof *ms);
}

void metrics_free(struct metrics *ms)
{
    for (size_t i = 0; i < ms->n; i++) {
        free(ms->m[i].name);
        if (ms->m[i].kind == METRIC_RECORD)
            hist_free(&ms->m[i].values);
    }
    free(ms->m);
    memset(ms, 0, sizeof *ms);
}

int metrics_find(const struct metrics *ms, const char *name)
{
    for (size_t i = 0; i < ms->n; i++)
        if (strcmp(ms->m[i].name, name) == 0)
            return (int)i;
    return -1;
}

int metrics_id(struct metrics *ms, const char *name, enum metric_kind kind)
{
    int id = metrics_find(ms, name);
    if (id >= 0)
        return ms->m[id].kind == kind ? id : -1;
    if (ms->n == ms->cap) {
        ms->cap = ms->cap ? ms->cap * 2 : 8;
        ms->m = xrealloc(ms->m, ms->cap * sizeof *ms->m);
    }
    struct metric *m = &ms->m[ms->n];
    memset(m, 0, sizeof *m);
    m->name = xstrdup(name);
    m->kind = kind;
    if (kind == METRIC_RECORD)
        hist_init(&m->values, 1, RECORD_HIGHEST, 3);
    return (int)ms->n++;
}

void metrics_add(struct metrics *ms, int id, double n)
{
    ms->m[id].total += n;
}

void metrics_record(struct metrics *ms, int id, double value)
{
    struct hist *h = &ms->m[id].values;
    double scaled = value * METRIC_SCALE;
    /* Clamped here, in double: llround of a value past int64 is undefined
     * (on x86 it gives INT64_MIN, which the histogram would keep as 0).
     * Above the top it goes in as one past it, so that hist_record stores
     * the top and counts it in h->clamped. */
    if (scaled > (double)h->highest)
        hist_record(h, h->highest + 1);
    else
        hist_record(h, scaled > 0 ? (int64_t)llround(scaled) : 0); /* NaN too */
}

int metrics_merge(struct metrics *dst, const struct metrics *src)
{
    int rc = 0;
    for (size_t i = 0; i < src->n; i++) {
        const struct metric *s = &src->m[i];
        int id = metrics_id(dst, s->name, s->kind);
        if (id < 0) {
            dst->clashes++;
            rc = -1;
            continue;
        }
        dst->m[id].total += s->total;
        if (s->kind == METRIC_RECORD)
            hist_merge(&dst->m[id].values, &s->values);
    }
    return rc;
}

double metrics_value(int64_t v)
{
    return (double)v / METRIC_SCALE;
}

double metrics_percentile(const struct hist *values, double p)
{
    double v = metrics_value(hist_percentile(values, p));
    if (v <= 0)
        return v;
    double scale = pow(10, 2 - floor(log10(v)));
    return round(v * scale) / scale;
}
