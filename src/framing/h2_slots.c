/* HTTP/2's stream slots (h2_internal.h): each connection slot's streams,
 * made once and kept for the slot's life, taken and let go as requests
 * come and end; their buffers, grown to the largest request and response
 * once; and the worker's HTTP/2 state (scratch, nghttp2's memory). */
#include "framings.h"

#include "h2_internal.h"
#include "mpool.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Appends n bytes to a slot buffer grown geometrically (kept for the slot's
 * life). */
void h2c_append(char **buf, size_t *len, size_t *cap, const char *p, size_t n)
{
    if (*len + n > *cap) {
        *cap = xgrow(*cap, *len + n, 1024);
        *buf = xrealloc(*buf, *cap);
    }
    memcpy(*buf + *len, p, n);
    *len += n;
}

/* Every slot of h free again (n of them); slot 0 is taken first. */
void h2c_all_free(struct h2_conn *h, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        h->streams[i].active = false;
        h->free[i] = n - 1 - i;
    }
    h->nfree = n;
}

void *h2c_init(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    struct h2_conn *h = xcalloc(1, sizeof *h);
    h->streams = xcalloc(sh->streams, sizeof *h->streams);
    h->free = xcalloc(sh->streams, sizeof *h->free);
    for (uint32_t i = 0; i < sh->streams; i++) {
        h->streams[i].c = c;
    }
    h2c_all_free(h, sh->streams);
    return h;
}

void h2c_release(struct conn *c, struct h2_stream *st)
{
    struct h2_conn *h = H(c);
    conn_sample_drop(c, &st->shown);
    conn_stream_reset(st->stream);
    st->active = false;
    h->free[h->nfree++] = (uint32_t)(st - h->streams);
}

void h2c_free(struct conn *c, void *fs)
{
    struct h2_conn *h = fs;
    if (!h)
        return;
    for (uint32_t i = 0; i < c->sh->streams; i++) {
        free(h->streams[i].own_req);
        free(h->streams[i].cap);
        conn_stream_free(h->streams[i].stream);
    }
    free(h->streams);
    free(h->free);
    free(h->out);
    h2_session_free(h->session);
    free(h);
}

/* A request's lower-cased header names are made here while it is opened. */
#define H2_SCRATCH (16 * 1024)

void *h2c_shared_new(struct conn_shared *sh)
{
    (void)sh;
    struct h2_shared *s = xcalloc(1, sizeof *s);
    s->scratch_size = H2_SCRATCH;
    s->scratch = xmalloc(s->scratch_size);
    s->pool = mpool_new();
    return s;
}

void h2c_shared_free(struct conn_shared *sh)
{
    struct h2_shared *s = S(sh);
    if (!s)
        return;
    h2c_fixed_free(sh);
    free(s->scratch);
    mpool_free(s->pool); /* after the connections' sessions */
    free(s);
}

/* A free slot, or NULL. */
struct h2_stream *h2c_free_slot(struct conn *c)
{
    struct h2_conn *h = H(c);
    return h->nfree ? &h->streams[h->free[--h->nfree]] : NULL;
}

/* Forgets what the slot's stream received (a new request, or a retry). */
void h2c_fresh_response(struct h2_stream *st)
{
    st->t_sent = 0;
    st->t_first = 0;
    st->status = 0;
    st->rx_bytes = 0;
    st->cap_len = 0;
    st->trailers_at = 0;
    st->body_started = false;
    conn_sample_drop(st->c, &st->shown);
    conn_stream_reset(st->stream);
}
