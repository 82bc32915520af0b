/* Interval histograms for --hlog, the worker's side: recording, encoding a
 * finished interval and handing it to the main thread; see intervals.h. */
#include "intervals.h"

#include "hdr_codec.h"
#include "names.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

void intervals_init(struct intervals *iv, int64_t len_ns, int ntags)
{
    memset(iv, 0, sizeof *iv);
    iv->len_ns = len_ns;
    iv->ntags = ntags;
    for (int t = 0; t < ntags; t++)
        hist_init_default(&iv->h[t]);
    pthread_mutex_init(&iv->lock, NULL);
    atomic_init(&iv->done_below, 0);
    atomic_init(&iv->finished, false);
}

void intervals_start(struct intervals *iv, int64_t t0)
{
    iv->t0 = t0;
    iv->cur = 0;
    iv->cur_end = t0 + iv->len_ns;
}

void intervals_add_name(struct intervals *iv, uint32_t id)
{
    if (!iv->names)
        iv->names = xcalloc(NAMES_MAX, sizeof *iv->names);
    if (iv->names[id])
        return;
    iv->names[id] = xmalloc(sizeof *iv->names[id]);
    hist_init_default(iv->names[id]);
    if (id >= iv->nnames)
        iv->nnames = id + 1;
}

void intervals_free(struct intervals *iv)
{
    for (int t = 0; t < iv->ntags; t++)
        hist_free(&iv->h[t]);
    for (uint32_t i = 0; i < iv->nnames; i++)
        if (iv->names[i]) {
            hist_free(iv->names[i]);
            free(iv->names[i]);
        }
    free(iv->names);
    free(iv->done);
    for (size_t i = 0; i < iv->nblobs; i++)
        free(iv->blobs[i].b64);
    free(iv->blobs);
    pthread_mutex_destroy(&iv->lock);
    memset(iv, 0, sizeof *iv);
}

/* The histogram of tag t (IV_TAGS + id for a request name), or NULL. */
static struct hist *tag_hist(struct intervals *iv, int t)
{
    if (t < iv->ntags)
        return &iv->h[t];
    return t >= IV_TAGS ? iv->names[t - IV_TAGS] : NULL;
}

/* Hands the non-empty histograms of the current interval over as text. The
 * encoding is done outside the lock; the hand-over array keeps its size,
 * so it grows only while the main thread falls behind. */
static void hand_over(struct intervals *iv)
{
    if (!iv->dirty)
        return;
    int ntags = IV_TAGS + (int)iv->nnames;
    if ((size_t)ntags > iv->done_cap) {
        iv->done_cap = (size_t)ntags;
        iv->done = xrealloc(iv->done, iv->done_cap * sizeof *iv->done);
    }
    struct interval_blob *done = iv->done;
    size_t n = 0;
    for (int t = 0; t < ntags; t++) {
        struct hist *h = tag_hist(iv, t);
        if (!h || h->count == 0)
            continue;
        done[n++] = (struct interval_blob){.index = iv->cur, .tag = t, .b64 = hdr_encode(h, NULL)};
        hist_reset(h);
    }
    iv->dirty = false;
    if (n == 0)
        return;
    pthread_mutex_lock(&iv->lock);
    if (iv->nblobs + n > iv->cap) {
        iv->cap = xgrow(iv->cap, iv->nblobs + n, 64);
        iv->blobs = xrealloc(iv->blobs, iv->cap * sizeof *iv->blobs);
    }
    memcpy(iv->blobs + iv->nblobs, done, n * sizeof *done);
    iv->nblobs += n;
    pthread_mutex_unlock(&iv->lock);
}

void intervals_roll(struct intervals *iv, int64_t now)
{
    hand_over(iv);
    if (now < iv->t0)
        now = iv->t0;
    iv->cur = (uint64_t)((now - iv->t0) / iv->len_ns);
    iv->cur_end = iv->t0 + (int64_t)(iv->cur + 1) * iv->len_ns;
    atomic_store(&iv->done_below, iv->cur);
}

void intervals_finish(struct intervals *iv)
{
    hand_over(iv);
    atomic_store(&iv->finished, true);
}
