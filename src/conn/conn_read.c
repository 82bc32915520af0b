/* Reading a connection's responses: framing, capture for response(), the
 * completion of each response of a batch (stats, samples, hooks) and the
 * next request. The other half of the state machine is conn.c. Nothing here
 * allocates on the steady path (the capture buffer grows to the largest
 * response once). */
#include "conn.h"

#include "clock.h"
#include "conn_internal.h"
#include "net.h"
#include "tls.h"
#include "xalloc.h"

#include <assert.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* Keeps n more bytes of the current response for response() (which reads
 * headers or body). Returns false when the response outgrew --max-body. */
static bool capture(struct conn *c, const char *p, size_t n)
{
    struct conn_shared *sh = c->sh;
    if (c->cap_len + n > sh->max_body)
        return false;
    if (c->cap_len + n > c->cap_size) {
        /* Kept for the connection's life: growth stops at the largest
         * response, so the steady state allocates nothing. A flow's users
         * may be many and idle: theirs start small. */
        c->cap_size = xgrow(c->cap_size, c->cap_len + n, sh->flow ? 512 : 16384);
        c->cap = xrealloc(c->cap, c->cap_size);
    }
    memcpy(c->cap + c->cap_len, p, n);
    c->cap_len += n;
    return true;
}

/* What response() is told of a response besides its bytes. */
struct res_info {
    int status;
    bool chunked;    /* raw's body is chunk-encoded */
    uint64_t bytes;  /* bytes received for it */
    int64_t latency, connect, waiting;
    uint32_t name;   /* its request's name (id + 1), 0 for none */
    size_t trailers_at; /* HTTP/2: where raw's trailers begin; 0: none (HTTP/1: found in the body) */
};

/* r describes the response of i and raw/len. */
static void fill_res(struct script_res *r, const struct res_info *i, char *raw, size_t len)
{
    r->status = i->status;
    r->chunked = i->chunked;
    r->bytes = (double)i->bytes;
    r->latency = (double)i->latency / 1e3;
    r->connect = (double)i->connect / 1e3;
    r->waiting = (double)i->waiting / 1e3;
    r->raw = raw;
    r->raw_len = raw ? len : 0;
    r->head_len = 0;
    r->body_len = 0;
    r->body_ready = 0;
    r->trailers_at = i->trailers_at;
    r->serial++;
    r->live = 1;
    r->name = (int32_t)i->name;
    r->error = 0;
}

/* A flow: the user's response is the one that just completed (kept in
 * the connection's capture buffer until the user's next request, or
 * copied for a batch's item), and its check, if the request has one, is
 * called now: *failed when it failed. Returns false when the bridge
 * failed. */
static bool flow_response(struct conn *c, int32_t item, const struct res_info *i, char *raw, size_t len,
                          bool *failed)
{
    fill_res(conn_flow_res(c, item), i, raw, len);
    return conn_flow_answered(c, item, raw, len, failed);
}

/* response() for a complete response of len bytes at raw; *failed when
 * the script failed it. Returns false when the hook raised an error. */
static bool check_response(struct conn *c, const struct res_info *i, char *raw, size_t len, bool *failed)
{
    struct conn_shared *sh = c->sh;
    struct script_res *r = sh->res;
    fill_res(r, i, sh->capture ? raw : NULL, len);
    bool ok = script_response(sh->script, c->id, failed, sh->script_error, sh->script_error_len) == 0;
    /* raw is the read or capture buffer, reused by the next read: a res the
     * script kept must not reach it (the bridge raises on a stale res). */
    r->live = 0;
    r->raw = NULL;
    r->raw_len = 0;
    return ok;
}

static void keep_sample(struct conn *c, int64_t latency, int64_t connect, int64_t waiting)
{
    struct conn_shared *sh = c->sh;
    struct stats_sample s = {
        .start = (double)(c->t_start + sh->epoch_offset_ns) / 1e9,
        .connect = connect / 1000,
        .total = latency / 1000,
        .waiting = waiting / 1000,
        .body = (int64_t)c->rx.body_len,
        .status = c->rx.status,
        .keepalive = c->rx.keepalive && sh->keepalive,
        .head_off = c->head_off,
        .head_len = c->head_len,
    };
    stats_add_sample(sh->stats, &s);
}

/* ab's progress line, counted over every worker. */
static void heartbeat(struct conn_shared *sh)
{
    uint64_t n = atomic_fetch_add(sh->completed_all, 1) + 1;
    if (n % sh->heartbeat == 0)
        fprintf(stderr, "Completed %" PRIu64 " request%s\n", n, n == 1 ? "" : "s");
}

/* One response of the batch ended at now; raw/len: its bytes when
 * captured. Returns false if a hook error stopped c. */
static bool complete_one(struct conn *c, int64_t now, char *raw, size_t len)
{
    struct conn_shared *sh = c->sh;
    if (c->t_written == 0)
        c->t_written = c->t_first; /* answered before the request was fully written */
    int64_t latency = now - (sh->sched ? c->t_intended : c->t_start), connect = c->t_connect,
            waiting = c->t_first - c->t_written;
    /* A sample's connect time runs until the request could be written, TLS
     * handshake included, as ab counts it; the connect histogram is TCP's. */
    int64_t setup = connect ? connect + c->t_handshake : 0;
    c->t_connect = c->t_handshake = 0; /* the batch's later responses came on the same connection */
    struct res_info info = {c->rx.status, c->rx.chunked, c->rx_bytes, latency, connect, waiting, c->name, 0};
    bool failed = false, hook_ok = sh->flow             ? flow_response(c, c->item, &info, raw, len, &failed)
                                   : !sh->script_response || check_response(c, &info, raw, len, &failed);
    stats_answered(sh->stats, now, c->t_start, sh->sched ? c->t_intended : c->t_start, &c->t_answered);
    if (failed) {
        sh->stats->errors[STATS_ERR_VALIDATION]++;
        stats_status(sh->stats, c->rx.status); /* the server did answer it */
        stats_name_rejected(sh->stats, c->name, true, c->rx.status, false);
    } else {
        stats_complete(sh->stats, now, c->rx.status, latency, connect, waiting);
        stats_name_complete(sh->stats, c->name, now, c->rx.status, latency);
        if (sh->sched) {
            int64_t sent = c->t_sent ? c->t_sent : c->t_start;
            /* Taken only once due, sent after: the schedule never runs ahead. */
            assert(sent >= c->t_intended && now >= sent);
            stats_open(sh->stats, now, now - sent, sent - c->t_intended);
            stats_name_open(sh->stats, c->name, now - sent);
        }
    }
    if (sh->samples)
        keep_sample(c, latency, setup, waiting);
    if (sh->heartbeat)
        heartbeat(sh);
    c->pending--;
    sh->in_flight--;
    sh->conn_done[c->id]++;
    stats_slot_done(sh->stats, c->id, now);
    if (!hook_ok) {
        conn_script_failed(c);
        return false;
    }
    return true;
}

void conn_complete_stream(struct conn *c, struct conn_stream *st, int64_t now)
{
    struct conn_shared *sh = c->sh;
    int64_t latency = now - (sh->sched ? st->t_intended : st->t_start);
    /* The connection's first response carries its connect time. */
    int64_t connect = c->t_connect, waiting = st->t_first > st->t_sent ? st->t_first - st->t_sent : 0;
    c->t_connect = c->t_handshake = 0;
    conn_release_rest(sh);
    struct res_info info = {st->status, false, st->rx_bytes, latency, connect, waiting, st->name, st->trailers_at};
    bool failed = false, big = false, hook_ok = true;
    if ((sh->flow || sh->script_response) && sh->capture && st->cap_len > sh->max_body) {
        sh->too_large++;
        failed = big = true;
        if (sh->flow)
            conn_flow_failed(c, st->item, STATS_ERR_VALIDATION);
    } else if (sh->flow) {
        hook_ok = flow_response(c, st->item, &info, st->cap, st->cap_len, &failed);
    } else if (sh->script_response) {
        hook_ok = check_response(c, &info, st->cap, st->cap_len, &failed);
    }
    int64_t mark = st->t_start; /* a stream is a batch of its own */
    stats_answered(sh->stats, now, st->t_start, sh->sched ? st->t_intended : st->t_start, &mark);
    if (failed) {
        sh->stats->errors[STATS_ERR_VALIDATION]++;
        stats_status(sh->stats, st->status); /* the server did answer it */
        stats_name_rejected(sh->stats, st->name, true, st->status, big);
    } else {
        stats_complete(sh->stats, now, st->status, latency, connect, waiting);
        stats_name_complete(sh->stats, st->name, now, st->status, latency);
        if (sh->sched) {
            int64_t sent = st->t_sent ? st->t_sent : st->t_start;
            stats_open(sh->stats, now, now - sent, sent - st->t_intended);
            stats_name_open(sh->stats, st->name, now - sent);
        }
    }
    if (sh->heartbeat)
        heartbeat(sh);
    conn_h2_release(c, st);
    c->pending--;
    sh->in_flight--;
    sh->conn_done[c->id]++;
    stats_slot_done(sh->stats, c->id, now);
    if (!hook_ok)
        conn_script_failed(c);
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
    sh->too_large++;
    sh->stats->errors[STATS_ERR_VALIDATION]++;
    if (c->rx.status_known)
        stats_status(sh->stats, c->rx.status);
    stats_name_rejected(sh->stats, c->name, c->rx.status_known, c->rx.status, true);
    if (sh->flow)
        conn_flow_failed(c, c->item, STATS_ERR_VALIDATION);
    c->pending--;
    sh->in_flight--;
    conn_fail_read(c, "lost with a response over --max-body");
}

/* Feeds the n bytes at p (a whole read, or what earlier responses of a
 * pipelined batch left of it) to the current response. Returns how many it
 * used, or 0 when the caller must stop reading for c: the batch ended
 * (failed, or done and the next request started). */
static size_t feed(struct conn *c, char *p, size_t n, int64_t now)
{
    struct conn_shared *sh = c->sh;
    size_t used;
    if (c->rx_bytes == 0) {
        c->t_first = now;
        conn_release_rest(sh);
        if (errsamples_wants(&sh->stats->shown, p, n))
            errsamples_response(&sh->stats->shown, now, p, n);
        if (sh->heads) {
            size_t k = n < STATS_HEAD_MAX ? n : STATS_HEAD_MAX;
            c->head_off = (int64_t)stats_add_head(sh->stats, p, k);
            c->head_len = (int64_t)k;
        }
        if (sh->first_head_todo) {
            /* The first response's first bytes (its head, as a rule), kept once. */
            size_t k = n < STATS_FIRST_HEAD ? n : STATS_FIRST_HEAD;
            memcpy(sh->stats->first_head, p, k);
            sh->stats->first_head_len = k;
            sh->first_head_todo = false;
        }
    }
    switch (http_rx_feed(&c->rx, p, n, &used)) {
    case HTTP_RX_MORE:
        c->rx_bytes += n;
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
    c->rx_bytes += used;
    char *raw = p;
    size_t len = used;
    if (sh->capture && c->cap_len > 0) {
        /* The response spans reads: the rest joins what was kept. */
        if (!capture(c, p, used)) {
            too_large(c);
            return 0;
        }
        raw = c->cap;
        len = c->cap_len;
    } else if (sh->capture && used > sh->max_body) {
        too_large(c); /* arrived in one read, but over the cap all the same */
        return 0;
    } else if (sh->flow) {
        /* The user reads it after the read buffer is reused: a copy. */
        capture(c, p, used);
        raw = c->cap;
        len = c->cap_len;
    }
    if (!complete_one(c, now, raw, len))
        return 0;
    if (c->pending > 0) {
        if (!c->rx.keepalive) {
            conn_fail_read(c, "closed after the response before it"); /* the batch's rest is lost */
            return 0;
        }
        bool head = c->rx.head;
        c->rx_bytes = 0;
        c->cap_len = 0;
        http_rx_init(&c->rx, head);
        return used;
    }
    /* Bytes beyond the batch were never asked for: don't reuse. */
    batch_done(c, now, c->rx.keepalive && used == n && c->state == CONN_READING);
    return 0;
}

/* Readable between requests (a delay() or -R wait): the server closed the
 * kept-alive connection, or sent bytes nobody asked for. No request is in
 * flight, so the socket goes; the next request opens a new one. Over TLS
 * it may be a record that carries no data (a session ticket, a key
 * update), which OpenSSL takes in and the connection stays. */
static void readable_between(struct conn *c)
{
    size_t n;
    if (c->tls && conn_io_read(c, c->sh->rbuf, c->sh->rbuf_size, &n) == NET_AGAIN)
        return;
    conn_close_socket(c, false);
}

void conn_on_readable(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    /* A hook failed (here or on another connection of this worker): the
     * run is ending, and what c has in flight is cut off when the worker
     * stops it; no more responses are taken, nor hooks called. */
    if (sh->script_error[0])
        return;
    if (c->state == CONN_DELAY || c->state == CONN_WAIT || c->state == CONN_HELD) {
        readable_between(c);
        return;
    }
    if (c->state == CONN_HANDSHAKE) {
        conn_handshake(c);
        return;
    }
    if (c->state == CONN_H2) {
        conn_h2_readable(c);
        return;
    }
    if (c->write_wants_read) {
        conn_write_request(c); /* TLS: the write waited for this */
        if (c->state != CONN_WRITING && c->state != CONN_READING)
            return;
    }
    assert(c->state == CONN_WRITING || c->state == CONN_READING);
    for (;;) {
        size_t n;
        switch (conn_io_read(c, sh->rbuf, sh->rbuf_size, &n)) {
        case NET_AGAIN:
            return;
        case NET_WANT_WRITE: /* TLS: on_write_event reads again */
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
            if (c->rx_bytes > 0 && http_rx_feed(&c->rx, NULL, 0, &used) == HTTP_RX_DONE) {
                if (!complete_one(c, now, c->cap, c->cap_len))
                    return;
                if (c->pending > 0)
                    conn_fail_read(c, "closed after the response before it");
                else
                    batch_done(c, now, false);
            } else {
                char why[64];
                if (c->rx_bytes == 0)
                    sh->stats->closed += c->pending;
                conn_fail_read(c, c->rx_bytes ? http_rx_cut_reason(&c->rx, why, sizeof why)
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
        /* Drained: the next readiness brings the rest. Over TLS the kernel
         * does not report what OpenSSL already read ahead: read on while it
         * holds some. */
        if (!conn_io_more(c, n))
            return;
    }
}
