/* Interval histograms for --hlog, the main thread's side: the workers'
 * finished intervals taken as the run goes, merged by number and tag once
 * every worker is past them, written to the log and freed; see
 * intervals.h. */
#include "intervals.h"

#include "hdr_codec.h"
#include "hlog.h"
#include "names.h"
#include "xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The Java log processor's default unit: the log's max column in ms. */
#define HLOG_MAX_RATIO 1e6

static const char *const tag_names[IV_TAGS] = {NULL,        "service",      "sendlag", "iteration", "first_event",
                                               "event_gap", "ttft",        "service_ttft", "itl",     "e2el"};

void intervals_tag(const char *prefix, const char *name, char *buf, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = (size_t)snprintf(buf, len, "%s", prefix);
    if (o >= len)
        return;
    for (const unsigned char *p = (const unsigned char *)name; *p && o + 1 < len; p++) {
        if (*p > ' ' && *p != ',' && *p != '%' && *p != 0x7f) {
            buf[o++] = (char)*p;
        } else if (o + 3 < len) {
            buf[o++] = '%';
            buf[o++] = hex[*p >> 4];
            buf[o++] = hex[*p & 15];
        } else {
            break;
        }
    }
    buf[o] = '\0';
}

static void keyed_start(struct interval_keyed_log *k, char *const *names)
{
    k->names = names;
    if (!names)
        return;
    k->first = xmalloc(NAMES_MAX * sizeof *k->first);
    for (size_t i = 0; i < NAMES_MAX; i++)
        k->first[i] = UINT64_MAX;
}

/* A blob of id's series, of interval index, has been taken. */
static void keyed_seen(struct interval_keyed_log *k, uint32_t id, uint64_t index)
{
    if (!k->first)
        return;
    if (index < k->first[id])
        k->first[id] = index;
    if (id >= k->n)
        k->n = id + 1;
}

void intervals_log_start(struct intervals_log *l, FILE *f, struct intervals **ivs, size_t n, int64_t t0,
                         double start_epoch, const char *comment, char *const *names, char *const *groups)
{
    memset(l, 0, sizeof *l);
    l->f = f;
    l->ivs = ivs;
    l->n = n;
    l->t0 = t0;
    l->len_ns = ivs[0]->len_ns;
    l->tags = ivs[0]->tags;
    l->q = xcalloc(n, sizeof *l->q);
    for (int t = 0; t < IV_TAGS; t++)
        l->first[t] = IV_LAZY & IV_BIT(t) ? UINT64_MAX : 0;
    hist_init_default(&l->sum);
    keyed_start(&l->names, names);
    keyed_start(&l->groups, groups);
    if (hlog_header(f, start_epoch, comment) < 0 || fflush(f) != 0)
        snprintf(l->err, sizeof l->err, "--hlog: write error: %s", strerror(errno));
}

/* Worker w's handed-over intervals join the end of its queue. */
static void take(struct intervals_log *l, size_t w)
{
    struct intervals *iv = l->ivs[w];
    struct interval_queue *q = &l->q[w];
    size_t from = q->n;
    pthread_mutex_lock(&iv->lock);
    if (iv->nblobs > 0) {
        if (q->n + iv->nblobs > q->cap) {
            q->cap = xgrow(q->cap, q->n + iv->nblobs, 64);
            q->b = xrealloc(q->b, q->cap * sizeof *q->b);
        }
        memcpy(q->b + q->n, iv->blobs, iv->nblobs * sizeof *iv->blobs);
        q->n += iv->nblobs;
        iv->nblobs = 0;
    }
    pthread_mutex_unlock(&iv->lock);
    /* A name's (a group's, a stream tag's) lines start at its first
     * interval with a value:
     * an interval every worker is past has been taken whole, so this is
     * known before that interval is written. */
    for (size_t i = from; i < q->n; i++) {
        int t = q->b[i].tag;
        if (t >= IV_GROUP(0))
            keyed_seen(&l->groups, (uint32_t)(t - IV_GROUP(0)), q->b[i].index);
        else if (t >= IV_NAME(0))
            keyed_seen(&l->names, (uint32_t)(t - IV_NAME(0)), q->b[i].index);
        else if (q->b[i].index < l->first[t])
            l->first[t] = q->b[i].index;
    }
}

/* Merges tag t of interval idx over the workers, whose queues hold it
 * from from[w] on, and writes its line; end: see write_below. */
static void write_line(struct intervals_log *l, const size_t *from, uint64_t idx, int t, int64_t end)
{
    hist_reset(&l->sum);
    for (size_t w = 0; w < l->n && !l->err[0]; w++) {
        const struct interval_queue *q = &l->q[w];
        for (size_t i = from[w]; i < q->n && q->b[i].index == idx; i++) {
            if (q->b[i].tag != t)
                continue;
            struct hist part;
            if (hdr_decode(q->b[i].b64, strlen(q->b[i].b64), &part, l->err, sizeof l->err) < 0)
                return;
            if (hist_merge(&l->sum, &part) < 0)
                snprintf(l->err, sizeof l->err, "--hlog: interval %llu: histograms of different configurations",
                         (unsigned long long)idx);
            hist_free(&part);
        }
    }
    if (l->err[0])
        return;
    double start = (double)(idx * (uint64_t)l->len_ns) / 1e9;
    /* Only the interval holding the run's end can be shorter. */
    int64_t span = end - l->t0 - (int64_t)idx * l->len_ns;
    double length = (double)(span < l->len_ns ? span : l->len_ns) / 1e9;
    char tag[512];
    if (t >= IV_GROUP(0))
        intervals_tag("group:", l->groups.names[t - IV_GROUP(0)], tag, sizeof tag);
    else if (t >= IV_NAME(0))
        intervals_tag("name:", l->names.names[t - IV_NAME(0)], tag, sizeof tag);
    if (hlog_interval(l->f, t < IV_TAGS ? tag_names[t] : tag, start, length, &l->sum, HLOG_MAX_RATIO) < 0)
        snprintf(l->err, sizeof l->err, "--hlog: write error: %s", strerror(errno));
}

/* Writes intervals next .. below-1 and frees them (a failed log only
 * frees them). end: where the run ended, or INT64_MAX while it goes (an
 * interval every worker is past is whole). */
static void write_below(struct intervals_log *l, uint64_t below, int64_t end)
{
    if (l->next >= below)
        return;
    size_t *pos = xcalloc(l->n, sizeof *pos); /* each queue's first blob not written */
    for (; l->next < below; l->next++) {
        for (int t = 0; t < IV_TAGS && !l->err[0]; t++)
            if ((l->tags & IV_BIT(t)) && l->first[t] <= l->next)
                write_line(l, pos, l->next, t, end);
        for (uint32_t id = 0; id < l->names.n && !l->err[0]; id++)
            if (l->names.first[id] <= l->next)
                write_line(l, pos, l->next, IV_NAME(id), end);
        for (uint32_t id = 0; id < l->groups.n && !l->err[0]; id++)
            if (l->groups.first[id] <= l->next)
                write_line(l, pos, l->next, IV_GROUP(id), end);
        for (size_t w = 0; w < l->n; w++) {
            struct interval_queue *q = &l->q[w];
            for (; pos[w] < q->n && q->b[pos[w]].index <= l->next; pos[w]++)
                free(q->b[pos[w]].b64);
        }
    }
    for (size_t w = 0; w < l->n; w++) {
        struct interval_queue *q = &l->q[w];
        if (pos[w] > 0) {
            memmove(q->b, q->b + pos[w], (q->n - pos[w]) * sizeof *q->b);
            q->n -= pos[w];
        }
    }
    free(pos);
    if (!l->err[0] && fflush(l->f) != 0)
        snprintf(l->err, sizeof l->err, "--hlog: write error: %s", strerror(errno));
}

void intervals_log_collect(struct intervals_log *l)
{
    uint64_t below = UINT64_MAX;
    for (size_t w = 0; w < l->n; w++) {
        /* Read before taking: what it says is handed over is there by then. */
        bool finished = atomic_load(&l->ivs[w]->finished);
        uint64_t done = atomic_load(&l->ivs[w]->done_below);
        take(l, w);
        if (!finished && done < below)
            below = done;
    }
    /* Every worker stopped: the rest waits for the run's end (finish). */
    if (below != UINT64_MAX)
        write_below(l, below, INT64_MAX);
}

int intervals_log_finish(struct intervals_log *l, int64_t end, char *err, size_t errlen)
{
    for (size_t w = 0; w < l->n; w++)
        take(l, w);
    /* Up to the interval holding end; nothing can lie past it. */
    uint64_t last = end > l->t0 ? (uint64_t)((end - l->t0 - 1) / l->len_ns) : 0;
    write_below(l, last + 1, end);
    free(l->ivs);
    l->ivs = NULL;
    if (!l->err[0])
        return 0;
    snprintf(err, errlen, "%s", l->err);
    return -1;
}

void intervals_log_free(struct intervals_log *l)
{
    for (size_t w = 0; l->q && w < l->n; w++) {
        for (size_t i = 0; i < l->q[w].n; i++)
            free(l->q[w].b[i].b64);
        free(l->q[w].b);
    }
    free(l->q);
    free(l->ivs);
    free(l->names.first);
    free(l->groups.first);
    hist_free(&l->sum);
    memset(l, 0, sizeof *l);
}
