/* HTTP/1.1 on a connection (framing.h): writing a request (a pipelined
 * batch is one string, written whole), reading and framing its responses
 * one by one (http.h's parser), the capture of a response for response()
 * or a flow's user, and the reuse of the connection or not. Completed
 * responses go to conn_completed, failures to conn_fail*. Nothing here
 * allocates on the steady path (the capture buffer grows to the largest
 * response once). */
#include "framings.h"

#include "clock.h"
#include "framing.h"
#include "http.h"
#include "xalloc.h"

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A slot's HTTP/1.1 state. */
struct h1_conn {
    struct http_rx rx;
    bool reading;           /* the request is written: its responses are read */
    size_t woff;            /* bytes of the request written */
    uint64_t rx_bytes;      /* bytes of the current response received */
    int64_t t_written;      /* request fully written */
    int64_t t_first;        /* first response byte */
    char *cap;              /* capture buffer (response() reads bodies), grown geometrically */
    size_t cap_len, cap_size;
    int64_t head_off, head_len; /* --heads: the current response's first read in stats.heads */
    struct errsample *shown; /* the current response's sample (conn_sample_open), or NULL */
    struct conn_stream *stream; /* the current response, when it streams (conn_stream.h; made at
                             * the slot's first) */
};

#define H(c) ((struct h1_conn *)(c)->fs)

/* rx's sink: a streamed body's bytes, to the stream of the slot whose rx
 * it is. */
static void sink_body(struct http_rx *rx, const char *p, size_t n)
{
    struct h1_conn *h = (struct h1_conn *)(void *)((char *)rx - offsetof(struct h1_conn, rx));
    conn_stream_feed(h->stream, p, n);
}

static void *h1_init(struct conn *c)
{
    (void)c;
    return xcalloc(1, sizeof(struct h1_conn));
}

static void h1_free(struct conn *c, void *fs)
{
    (void)c;
    struct h1_conn *h = fs;
    if (h) {
        free(h->cap);
        conn_stream_free(h->stream);
    }
    free(h);
}

/* A new response is read: it streams when its type or its request says
 * so (conn_stream.h). */
static void new_response(struct conn *c, bool head)
{
    struct h1_conn *h = H(c);
    conn_stream_reset(h->stream);
    http_rx_init(&h->rx, head);
    http_rx_stream(&h->rx, sink_body, conn_stream_asked(c));
}

/* A new request: nothing written or read yet. */
static void reset_request(struct conn *c)
{
    struct h1_conn *h = H(c);
    h->woff = 0;
    h->reading = false;
    h->t_written = 0;
    h->rx_bytes = 0;
    h->cap_len = 0;
    conn_sample_drop(c, &h->shown);
    /* HEAD is known per request: a hook may send any method. (A pipelined
     * batch is taken to use one method throughout.) */
    new_response(c, c->req_len > 5 && memcmp(c->req, "HEAD ", 5) == 0);
}

/* Writes (the rest of) the request. While CONNECTING this is also the
 * probe for the end of the connect: a write that would block means the
 * socket is still connecting, and the write watcher then waits for both. */
static void write_request(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    struct h1_conn *h = H(c);
    c->write_wants_read = false;
    bool connecting = c->state == CONN_CONNECTING;
    /* -R's send time is read before the write: on loopback the server may
     * read the request before the write returns. */
    bool first = sh->sched && h->woff == 0;
    int64_t before = connecting || first ? clock_now_ns() : 0;
    size_t n;
    enum net_status st = conn_io_write(c, c->req + h->woff, c->req_len - h->woff, &n);
    switch (st) {
    case NET_OK:
        if (connecting)
            conn_connected(c, before);
        if (first)
            c->t_sent = before;
        sh->stats->bytes_written += n;
        h->woff += n;
        if (h->woff < c->req_len) {
            ev_io_start(sh->loop, &c->wio); /* no-op if already armed */
            return;
        }
        if (ev_is_active(&c->wio))
            ev_io_stop(sh->loop, &c->wio);
        h->t_written = clock_now_ns();
        h->reading = true;
        return;
    case NET_AGAIN:
    case NET_WANT_WRITE:
        conn_io_wait_write(c, st);
        return;
    case NET_ERROR:
        if (connecting)
            conn_connect_failed(c, errno);
        else
            conn_io_failed(c, STATS_ERR_WRITE);
        return;
    }
}

/* A pipelined batch is sent whole, even past -n's last request. With -R
 * the budget counts arrivals, and a batch is one arrival's work. */
static void h1_start(struct conn *c, int64_t now, unsigned depth)
{
    struct conn_shared *sh = c->sh;
    conn_count_started(c, depth, sh->sched ? 1 : depth);
    c->pending = depth;
    c->t_start = c->t_answered = now;
    /* The request's deadline is t_start + timeout. A timer still armed for
     * an earlier request fires early and is pushed on then (see h1_timer),
     * so the common case costs nothing here; one armed for later (a
     * longer timeout before) is armed again. */
    conn_arm_deadline(c, now + c->timeout_ns, now);
    if (c->fd < 0) {
        conn_begin_connect(c, now); /* then h1_connecting, or send_first once ready */
    } else {
        c->t_connect = 0;
        c->t_handshake = 0;
        c->state = CONN_OPEN;
        reset_request(c);
        write_request(c);
    }
}

/* A new socket's first write: the request c holds (begun by h1_start, or
 * handed over by another framing's requeue) from its start. */
static void send_first(struct conn *c)
{
    reset_request(c);
    write_request(c);
}

/* On loopback the connect is usually over by the time it returns: the
 * write is tried at once, and tells whether it is (a write that would
 * block waits for writable, then the table's ready writes from the
 * start again: nothing went). */
static void h1_connecting(struct conn *c)
{
    send_first(c);
}

/* Keeps n more bytes of the current response for response() (which reads
 * headers or body). Returns false when the response outgrew --max-body. */
static bool capture(struct conn *c, const char *p, size_t n)
{
    struct conn_shared *sh = c->sh;
    struct h1_conn *h = H(c);
    if (h->cap_len + n > sh->max_body)
        return false;
    if (h->cap_len + n > h->cap_size) {
        /* Kept for the connection's life: growth stops at the largest
         * response, so the steady state allocates nothing. A flow's users
         * may be many and idle: theirs start small. */
        h->cap_size = xgrow(h->cap_size, h->cap_len + n, sh->flow ? 512 : 16384);
        h->cap = xrealloc(h->cap, h->cap_size);
    }
    memcpy(h->cap + h->cap_len, p, n);
    h->cap_len += n;
    return true;
}

/* One response of the batch ended at now; raw/len: its bytes when
 * captured. Returns false if a hook error stopped c. */
static bool complete_one(struct conn *c, int64_t now, char *raw, size_t len)
{
    struct h1_conn *h = H(c);
    if (h->t_written == 0)
        h->t_written = h->t_first; /* answered before the request was fully written */
    struct conn_response r = {
        .status = h->rx.status,
        .chunked = h->rx.chunked,
        .bytes = h->rx_bytes,
        .t_start = c->t_start,
        .t_intended = c->t_intended,
        .t_sent = c->t_sent,
        .waiting = h->t_first - h->t_written,
        .answered = &c->t_answered,
        .name = c->name,
        .item = c->item,
        .raw = raw,
        .len = len,
        .sample = true,
        .body_len = (int64_t)h->rx.body_len,
        .keepalive = h->rx.keepalive,
        .head_off = h->head_off,
        .head_len = h->head_len,
        .shown = h->shown,
        .stream = conn_stream_on(h->stream) ? h->stream : NULL,
    };
    h->shown = NULL; /* conn_completed's */
    if (r.stream && r.stream->verdict == STREAM_HOOK_ERROR) {
        conn_script_failed(c);
        return false;
    }
    bool ok = conn_completed(c, &r, now);
    conn_stream_reset(h->stream);
    if (!ok) {
        conn_script_failed(c);
        return false;
    }
    return true;
}

/* The batch's last response is in: reuse the connection or not, then the
 * next request. */
static void batch_done(struct conn *c, int64_t now, bool reusable)
{
    if (!reusable || !c->sh->keepalive)
        conn_close_socket(c, true);
    conn_next_request(c, now);
}

/* The current response outgrew --max-body: a validation failure with its
 * own reason, counted under its status once its head was read (a head
 * larger than --max-body has none yet); the rest of a batch is lost with
 * the connection. */
static void too_large(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    struct h1_conn *h = H(c);
    sh->too_large++;
    sh->stats->errors[STATS_ERR_VALIDATION]++;
    if (h->rx.status_known)
        stats_status(sh->stats, h->rx.status);
    stats_name_rejected(sh->stats, c->name, h->rx.status_known, h->rx.status, true);
    if (sh->flow)
        conn_flow_failed(c, c->item, STATS_ERR_VALIDATION);
    c->pending--;
    sh->in_flight--;
    conn_fail_read(c, "lost with a response over --max-body");
}

/* The stream under way stopped before its body ended (conn_stream.h): a
 * hook error stops the run; else the response ends now, completed or
 * failed as the stream says, and the connection, its body unread, closes
 * (the rest of a pipelined batch is lost with it). */
static void stream_stopped(struct conn *c, int64_t now)
{
    struct h1_conn *h = H(c);
    if (!complete_one(c, now, h->cap, h->cap_len))
        return;
    if (c->pending > 0)
        conn_fail_read(c, "closed after a stream the client ended");
    else
        batch_done(c, now, false);
}

/* Feeds the n bytes at p (a whole read, or what earlier responses of a
 * pipelined batch left of it) to the current response. Returns how many it
 * used, or 0 when the caller must stop reading for c: the batch ended
 * (failed, or done and the next request started). */
static size_t feed(struct conn *c, char *p, size_t n, int64_t now)
{
    struct conn_shared *sh = c->sh;
    struct h1_conn *h = H(c);
    size_t used;
    if (h->rx_bytes == 0) {
        h->t_first = now;
        conn_release_rest(sh);
        /* A status line read whole and 2xx (the rule) needs no sample. */
        if (n < 12 || p[9] != '2' || p[0] != 'H')
            h->shown = conn_sample_open(c);
        if (sh->heads) {
            size_t k = n < STATS_HEAD_MAX ? n : STATS_HEAD_MAX;
            h->head_off = (int64_t)stats_add_head(sh->stats, p, k);
            h->head_len = (int64_t)k;
        }
        if (sh->first_head_todo) {
            /* The first response's first bytes (its head, as a rule), kept once. */
            size_t k = n < STATS_FIRST_HEAD ? n : STATS_FIRST_HEAD;
            memcpy(sh->stats->first_head, p, k);
            sh->stats->first_head_len = k;
            sh->first_head_todo = false;
        }
    }
    if (h->stream)
        h->stream->now = now;
    switch (http_rx_feed(&h->rx, p, n, &used)) {
    case HTTP_RX_HEAD:
        /* It streams: its head is kept as any (the script's res reads
         * it), its body goes to h->stream and is not kept. */
        h->rx_bytes += used;
        errsample_add(h->shown, p, used);
        if ((sh->capture || sh->flow) && !capture(c, p, used)) {
            too_large(c);
            return 0;
        }
        conn_stream_of(&h->stream, c)->now = now;
        struct stream_request sr = {c->t_start, c->t_intended, c->t_sent, c->item, c->stream_call};
        conn_stream_begin(h->stream, h->rx.event_stream, &sr);
        return used;
    case HTTP_RX_MORE:
        h->rx_bytes += n;
        errsample_add(h->shown, p, n);
        if (conn_stream_on(h->stream)) {
            if (conn_stream_stopped(h->stream)) {
                stream_stopped(c, now);
                return 0;
            }
            return n;
        }
        if (sh->capture && !capture(c, p, n)) {
            too_large(c);
            return 0;
        }
        return n;
    case HTTP_RX_ERROR:
        conn_fail(c, STATS_ERR_PARSE);
        return 0;
    case HTTP_RX_DONE:
        break;
    }
    h->rx_bytes += used;
    errsample_add(h->shown, p, used);
    char *raw = p;
    size_t len = used;
    if (conn_stream_on(h->stream)) {
        conn_stream_finish(h->stream);
        raw = h->cap; /* its head */
        len = h->cap_len;
    } else if (sh->capture && h->cap_len > 0) {
        /* The response spans reads: the rest joins what was kept. */
        if (!capture(c, p, used)) {
            too_large(c);
            return 0;
        }
        raw = h->cap;
        len = h->cap_len;
    } else if (sh->capture && used > sh->max_body) {
        too_large(c); /* arrived in one read, but over the cap all the same */
        return 0;
    } else if (sh->flow) {
        /* The user reads it after the read buffer is reused: a copy. */
        capture(c, p, used);
        raw = h->cap;
        len = h->cap_len;
    }
    if (!complete_one(c, now, raw, len))
        return 0;
    if (c->pending > 0) {
        if (!h->rx.keepalive) {
            conn_fail_read(c, "closed after the response before it"); /* the batch's rest is lost */
            return 0;
        }
        bool head = h->rx.head;
        h->rx_bytes = 0;
        h->cap_len = 0;
        new_response(c, head);
        return used;
    }
    /* Bytes beyond the batch were never asked for: don't reuse. */
    batch_done(c, now, h->rx.keepalive && used == n && c->state == CONN_OPEN && h->reading);
    return 0;
}

static void h1_readable(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    struct h1_conn *h = H(c);
    if (c->write_wants_read) {
        write_request(c); /* the transport's write waited for this */
        if (c->state != CONN_OPEN)
            return;
    }
    for (;;) {
        size_t n;
        switch (conn_io_read(c, sh->rbuf, sh->rbuf_size, &n)) {
        case NET_AGAIN:
            return;
        case NET_WANT_WRITE: /* the write watcher reads again */
            c->read_wants_write = true;
            ev_io_start(sh->loop, &c->wio);
            return;
        case NET_ERROR:
            conn_io_failed(c, STATS_ERR_READ);
            return;
        case NET_OK:
            break;
        }
        int64_t now = clock_now_ns();
        if (n == 0) {
            /* Peer closed: completes a read-until-close body, else a read error. */
            size_t used;
            if (h->stream)
                h->stream->now = now;
            if (h->rx_bytes > 0 && http_rx_feed(&h->rx, NULL, 0, &used) == HTTP_RX_DONE) {
                if (conn_stream_on(h->stream))
                    conn_stream_finish(h->stream);
                if (!complete_one(c, now, h->cap, h->cap_len))
                    return;
                if (c->pending > 0)
                    conn_fail_read(c, "closed after the response before it");
                else
                    batch_done(c, now, false);
            } else {
                char why[64];
                if (h->rx_bytes == 0)
                    sh->stats->closed += c->pending;
                conn_fail_read(c, h->rx_bytes ? http_rx_cut_reason(&h->rx, why, sizeof why)
                                              : "closed before the response");
            }
            return;
        }
        sh->stats->bytes_read += n;
        for (size_t off = 0; off < n;) {
            size_t used = feed(c, sh->rbuf + off, n - off, now);
            if (used == 0)
                return;
            off += used;
        }
        /* Drained: the next readiness brings the rest. A transport may
         * hold bytes it read ahead, which the kernel does not report
         * again: read on while it does. */
        if (!conn_io_more(c, n))
            return;
    }
}

static void h1_writable(struct conn *c)
{
    if (c->read_wants_write) {
        c->read_wants_write = false;
        ev_io_stop(c->sh->loop, &c->wio);
        h1_readable(c);
    } else {
        write_request(c);
    }
}

/* The request's deadline (see h1_start): --timeout after its start, or for
 * a response that streams, after its latest event. */
static void h1_timer(struct conn *c)
{
    const struct conn_stream *s = H(c)->stream;
    int64_t base = conn_stream_on(s) && s->last > c->t_start ? s->last : c->t_start;
    int64_t left = base + c->timeout_ns - clock_now_ns();
    if (left > 0)
        conn_arm_timer(c, (double)left / 1e9);
    else
        conn_fail(c, STATS_ERR_TIMEOUT);
}

static void h1_end(struct conn *c, const struct conn_ending *e)
{
    conn_stream_reset(H(c)->stream);
    conn_sample_drop(c, &H(c)->shown);
    conn_end_requests(c, c->name, c->item, c->pending, e);
}

const struct framing_ops framing_h1 = {
    .name = "HTTP/1.1",
    .init = h1_init,
    .free = h1_free,
    .start = h1_start,
    .connecting = h1_connecting,
    .ready = send_first,
    .readable = h1_readable,
    .writable = h1_writable,
    .timer = h1_timer,
    .end = h1_end,
};
