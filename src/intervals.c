/* Interval histograms for --hlog; see intervals.h. */
#include "intervals.h"

#include "hdr_codec.h"
#include "hlog.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* The Java log processor's default unit: the log's max column in ms. */
#define HLOG_MAX_RATIO 1e6

static const char *const tag_names[IV_TAGS] = {NULL, "service", "sendlag"};

void intervals_init(struct intervals *iv, int64_t len_ns, int ntags)
{
    memset(iv, 0, sizeof *iv);
    iv->len_ns = len_ns;
    iv->ntags = ntags;
    for (int t = 0; t < ntags; t++)
        hist_init_default(&iv->h[t]);
}

void intervals_start(struct intervals *iv, int64_t t0)
{
    iv->t0 = t0;
    iv->cur = 0;
    iv->cur_end = t0 + iv->len_ns;
}

void intervals_free(struct intervals *iv)
{
    for (int t = 0; t < iv->ntags; t++)
        hist_free(&iv->h[t]);
    for (size_t i = 0; i < iv->nblobs; i++)
        free(iv->blobs[i].b64);
    free(iv->blobs);
    iv->blobs = NULL;
    iv->nblobs = iv->cap = 0;
}

/* Keeps the non-empty histograms of the current interval as text. */
static void keep_current(struct intervals *iv)
{
    if (!iv->dirty)
        return;
    for (int t = 0; t < iv->ntags; t++) {
        if (iv->h[t].count == 0)
            continue;
        if (iv->nblobs == iv->cap) {
            iv->cap = iv->cap ? iv->cap * 2 : 64;
            iv->blobs = xrealloc(iv->blobs, iv->cap * sizeof *iv->blobs);
        }
        iv->blobs[iv->nblobs++] = (struct interval_blob){.index = iv->cur, .tag = t, .b64 = hdr_encode(&iv->h[t], NULL)};
        hist_reset(&iv->h[t]);
    }
    iv->dirty = false;
}

void intervals_roll(struct intervals *iv, int64_t now)
{
    keep_current(iv);
    if (now < iv->t0)
        now = iv->t0;
    iv->cur = (uint64_t)((now - iv->t0) / iv->len_ns);
    iv->cur_end = iv->t0 + (int64_t)(iv->cur + 1) * iv->len_ns;
}

void intervals_finish(struct intervals *iv)
{
    keep_current(iv);
}

int intervals_write(FILE *f, const struct intervals *ivs, size_t n, double start_epoch, int64_t end,
                    const char *comment, char *err, size_t errlen)
{
    if (n == 0)
        return 0;
    const struct intervals *first = &ivs[0];
    int64_t len_ns = first->len_ns;
    uint64_t last = end > first->t0 ? (uint64_t)((end - first->t0 - 1) / len_ns) : 0;
    hlog_header(f, start_epoch, comment);
    struct hist sum, part;
    hist_init_default(&sum);
    /* Each worker's blobs are in interval order: walk them with a cursor each. */
    size_t *pos = xcalloc(n, sizeof *pos);
    int rc = 0;
    for (uint64_t idx = 0; idx <= last && rc == 0; idx++) {
        for (int t = 0; t < first->ntags && rc == 0; t++) {
            hist_reset(&sum);
            for (size_t w = 0; w < n && rc == 0; w++) {
                for (size_t i = pos[w]; i < ivs[w].nblobs && ivs[w].blobs[i].index == idx; i++) {
                    const struct interval_blob *b = &ivs[w].blobs[i];
                    if (b->tag != (enum interval_tag)t)
                        continue;
                    if (hdr_decode(b->b64, strlen(b->b64), &part, err, errlen) < 0) {
                        rc = -1;
                        break;
                    }
                    if (hist_merge(&sum, &part) < 0) {
                        snprintf(err, errlen, "--hlog: interval %llu: histograms of different configurations",
                                 (unsigned long long)idx);
                        rc = -1;
                    }
                    hist_free(&part);
                }
            }
            if (rc == 0) {
                double start = (double)(idx * (uint64_t)len_ns) / 1e9;
                int64_t span = end - first->t0 - (int64_t)idx * len_ns;
                double length = (double)(span < len_ns ? span : len_ns) / 1e9;
                if (hlog_interval(f, tag_names[t], start, length, &sum, HLOG_MAX_RATIO) < 0) {
                    snprintf(err, errlen, "--hlog: write error");
                    rc = -1;
                }
            }
        }
        for (size_t w = 0; w < n; w++)
            while (pos[w] < ivs[w].nblobs && ivs[w].blobs[pos[w]].index == idx)
                pos[w]++;
    }
    free(pos);
    hist_free(&sum);
    return rc;
}
