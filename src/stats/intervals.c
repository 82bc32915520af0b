/* Interval histograms for --hlog, the worker's side: recording, encoding a
 * finished interval and handing it to the main thread; see intervals.h. */
#include "intervals.h"

#include "hdr_codec.h"
#include "names.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

void intervals_init(struct intervals *iv, int64_t len_ns, unsigned tags)
{
    memset(iv, 0, sizeof *iv);
    iv->len_ns = len_ns;
    iv->tags = tags | IV_BIT(IV_LATENCY);
    for (int t = 0; t < IV_TAGS; t++)
        if (iv->tags & IV_BIT(t))
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

static void keyed_add(struct interval_keyed *k, uint32_t id)
{
    if (!k->h)
        k->h = xcalloc(NAMES_MAX, sizeof *k->h);
    if (k->h[id])
        return;
    k->h[id] = xmalloc(sizeof *k->h[id]);
    hist_init_default(k->h[id]);
    if (id >= k->n)
        k->n = id + 1;
}

static void keyed_free(struct interval_keyed *k)
{
    for (uint32_t i = 0; i < k->n; i++)
        if (k->h[i]) {
            hist_free(k->h[i]);
            free(k->h[i]);
        }
    free(k->h);
}

void intervals_add_name(struct intervals *iv, uint32_t id)
{
    keyed_add(&iv->names, id);
}

void intervals_add_group(struct intervals *iv, uint32_t id)
{
    keyed_add(&iv->groups, id);
}

void intervals_free(struct intervals *iv)
{
    for (int t = 0; t < IV_TAGS; t++)
        if (iv->tags & IV_BIT(t))
            hist_free(&iv->h[t]);
    keyed_free(&iv->names);
    keyed_free(&iv->groups);
    free(iv->done);
    for (size_t i = 0; i < iv->nblobs; i++)
        free(iv->blobs[i].b64);
    free(iv->blobs);
    pthread_mutex_destroy(&iv->lock);
    memset(iv, 0, sizeof *iv);
}

/* h (of blob tag t), when it holds values, encoded into done[*n] and
 * emptied. */
static void take_hist(const struct intervals *iv, struct hist *h, int t, struct interval_blob *done, size_t *n)
{
    if (!h || h->count == 0)
        return;
    done[(*n)++] = (struct interval_blob){.index = iv->cur, .tag = t, .b64 = hdr_encode(h, NULL)};
    hist_reset(h);
}

/* Hands the non-empty histograms of the current interval over as text. The
 * encoding is done outside the lock; the hand-over array keeps its size,
 * so it grows only while the main thread falls behind. */
static void hand_over(struct intervals *iv)
{
    if (!iv->dirty)
        return;
    size_t most = IV_TAGS + (size_t)iv->names.n + (size_t)iv->groups.n;
    if (most > iv->done_cap) {
        iv->done_cap = most;
        iv->done = xrealloc(iv->done, iv->done_cap * sizeof *iv->done);
    }
    struct interval_blob *done = iv->done;
    size_t n = 0;
    for (int t = 0; t < IV_TAGS; t++)
        if (iv->tags & IV_BIT(t))
            take_hist(iv, &iv->h[t], t, done, &n);
    for (uint32_t id = 0; id < iv->names.n; id++)
        take_hist(iv, iv->names.h[id], IV_NAME(id), done, &n);
    for (uint32_t id = 0; id < iv->groups.n; id++)
        take_hist(iv, iv->groups.h[id], IV_GROUP(id), done, &n);
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
