/* The connection state machine. libev callbacks are trampolines into one
 * handler per event; every failure goes through conn_fail. On the keep-alive
 * path a request costs one write and one read: the read watcher stays armed
 * for the life of the socket and the write watcher is armed only when a
 * write would block. Nothing here allocates. */
#include "conn.h"

#include "clock.h"
#include "net.h"
#include "xalloc.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

/* Backoff after a failed connect, so a dead server is not hammered. */
#define BACKOFF_FIRST 0.01
#define BACKOFF_MAX 1.0

static void start_request(struct conn *c, int64_t now);
static void begin_request(struct conn *c, int64_t now);

static void close_socket(struct conn *c)
{
    c->table_open = false; /* a scenario's next request opens a new conn table */
    if (c->fd < 0)
        return;
    ev_io_stop(c->sh->loop, &c->rio);
    ev_io_stop(c->sh->loop, &c->wio);
    net_close(c->fd);
    c->fd = -1;
}

/* (Re)starts the one-shot timer to fire after the given seconds. */
static void arm_timer(struct conn *c, double after)
{
    ev_timer_stop(c->sh->loop, &c->timer);
    ev_timer_set(&c->timer, after, 0.);
    ev_timer_start(c->sh->loop, &c->timer);
}

static void go_idle(struct conn *c)
{
    close_socket(c);
    ev_timer_stop(c->sh->loop, &c->timer);
    c->state = CONN_IDLE;
}

/* --one-first: the first answer (or failure) lets the other connections go. */
static void release_rest(struct conn_shared *sh)
{
    if (sh->hold_rest) {
        sh->hold_rest = false;
        sh->start_rest(sh->start_rest_arg);
    }
}

/* The one place requests fail: every request of the batch still in flight
 * is counted as failed for why; then close and go on. */
static void conn_fail(struct conn *c, enum stats_error why)
{
    struct conn_shared *sh = c->sh;
    release_rest(sh);
    if (sh->sched && why == STATS_ERR_TIMEOUT && c->pending) {
        int64_t now = clock_now_ns();
        stats_timed_out(sh->stats, now, now - c->t_intended, c->pending);
        if (c->t_sent)
            stats_open(sh->stats, now, -1, c->t_sent - c->t_intended);
    }
    sh->stats->errors[why] += c->pending;
    sh->in_flight -= c->pending;
    c->pending = 0;
    close_socket(c);
    /* Back off before the next connect, unless there is no next request. */
    if (why == STATS_ERR_CONNECT && sh->budget > 0) {
        c->backoff = c->backoff > 0 ? c->backoff * 2 : BACKOFF_FIRST;
        if (c->backoff > BACKOFF_MAX)
            c->backoff = BACKOFF_MAX;
        c->state = CONN_BACKOFF;
        arm_timer(c, c->backoff);
        return;
    }
    start_request(c, clock_now_ns());
}

/* A connect failed with errno err. When this worker has not connected at
 * all for longer than --timeout, the target is gone: the worker gives up
 * (worker.c stops the run) instead of failing the rest of its budget one
 * backoff at a time. */
static void connect_failed(struct conn *c, int err)
{
    struct conn_shared *sh = c->sh;
    if (clock_now_ns() - sh->last_connect_ok > sh->timeout_ns) {
        sh->gave_up = err ? err : ECONNREFUSED;
        ev_break(sh->loop, EVBREAK_ALL);
    }
    conn_fail(c, STATS_ERR_CONNECT);
}

/* The socket is connected: count it, arm the read watcher for the life of
 * the socket. now: when the connection was known to be up. */
static void mark_connected(struct conn *c, int64_t now)
{
    struct conn_shared *sh = c->sh;
    c->t_connect = now - c->t_connect;
    sh->last_connect_ok = now;
    c->backoff = 0;
    sh->stats->connects++;
    ev_io_start(sh->loop, &c->rio);
    c->state = CONN_WRITING;
}

/* Writes (the rest of) the request. While CONNECTING this is also the
 * probe for the end of the handshake: a write that would block means the
 * socket is still connecting, and the write watcher then waits for both. */
static void write_request(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    bool connecting = c->state == CONN_CONNECTING;
    /* -R's send time is read before the write: on loopback the server may
     * read the request before the write returns. */
    bool first = sh->sched && c->woff == 0;
    int64_t before = connecting || first ? clock_now_ns() : 0;
    size_t n;
    switch (net_write(c->fd, c->req + c->woff, c->req_len - c->woff, &n)) {
    case NET_OK:
        if (connecting)
            mark_connected(c, before);
        if (first)
            c->t_sent = before;
        sh->stats->bytes_written += n;
        c->woff += n;
        if (c->woff < c->req_len) {
            ev_io_start(sh->loop, &c->wio); /* no-op if already armed */
            return;
        }
        if (ev_is_active(&c->wio))
            ev_io_stop(sh->loop, &c->wio);
        c->t_written = clock_now_ns();
        c->state = CONN_READING;
        return;
    case NET_AGAIN:
        ev_io_start(sh->loop, &c->wio);
        return;
    case NET_ERROR:
        if (connecting)
            connect_failed(c, errno);
        else
            conn_fail(c, STATS_ERR_WRITE);
        return;
    }
}

/* A new request: nothing written or read yet. */
static void reset_request(struct conn *c)
{
    c->woff = 0;
    c->t_written = 0;
    c->t_sent = 0;
    c->rx_bytes = 0;
    c->cap_len = 0;
    /* HEAD is known per request: a hook may send any method. (A pipelined
     * batch is taken to use one method throughout.) */
    http_rx_init(&c->rx, c->req_len > 5 && memcmp(c->req, "HEAD ", 5) == 0);
}

/* The write watcher fired while connecting: the handshake ended. */
static void on_connected(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    ev_io_stop(sh->loop, &c->wio);
    int err = net_connect_result(c->fd);
    if (err != 0) {
        connect_failed(c, err);
        return;
    }
    mark_connected(c, clock_now_ns());
    write_request(c);
}

static void begin_connect(struct conn *c, int64_t now)
{
    struct conn_shared *sh = c->sh;
    int fd;
    c->state = CONN_CONNECTING;
    c->t_connect = now; /* the start; mark_connected turns it into the duration */
    switch (net_connect(sh->addr, sh->addrlen, &fd)) {
    case NET_ERROR:
        connect_failed(c, errno);
        return;
    case NET_OK:
    case NET_AGAIN:
        c->fd = fd;
        ev_io_set(&c->rio, fd, EV_READ);
        ev_io_set(&c->wio, fd, EV_WRITE);
        reset_request(c);
        /* On loopback the handshake is usually over by the time connect
         * returns, so the write is tried at once (saving a poll round and
         * a getsockopt); it waits for writability only if it would block. */
        write_request(c);
        return;
    }
}

/* A hook failed (the message is in sh->script_error): nothing more can be
 * sent. The worker stops the run (worker.c); requests still in flight on c
 * are cut off, as they would be by a stop. */
static void script_failed(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    sh->stats->cut_off += c->pending;
    sh->in_flight -= c->pending;
    c->pending = 0;
    go_idle(c);
    ev_break(sh->loop, EVBREAK_ALL);
}

/* Starts the next request on c, or parks c when the budget is spent; the
 * last connection to go quiet ends the worker's loop. With -R the request
 * is the oldest arrival due, and c waits when none is. A scenario's new
 * connection gets its conn table (and connect(conn)) first; with a delay()
 * hook the request then waits its delay in CONN_DELAY. */
static void start_request(struct conn *c, int64_t now)
{
    struct conn_shared *sh = c->sh;
    if (sh->budget == 0) {
        go_idle(c);
        if (sh->in_flight == 0)
            ev_break(sh->loop, EVBREAK_ALL);
        return;
    }
    if (sh->sched && !sched_take(sh->sched, now, &c->t_intended)) {
        c->state = CONN_WAIT; /* nothing due: wait for the schedule (conn_send) */
        sched_park(sh->sched, c->id);
        return;
    }
    begin_request(c, now);
}

/* Starts a request on c now: its hooks, then the connect or the write. */
static void begin_request(struct conn *c, int64_t now)
{
    struct conn_shared *sh = c->sh;
    c->req = sh->req;
    c->req_len = sh->req_len;
    if (sh->script_error[0]) {
        go_idle(c); /* a hook already failed: the run is ending */
        return;
    }
    if (sh->script_conns && c->fd < 0 && !c->table_open) {
        c->table_open = true;
        sh->conn_done[c->id] = 0;
        if (script_conn_open(sh->script, c->id, sh->script_error, sh->script_error_len) < 0) {
            script_failed(c);
            return;
        }
    }
    if (sh->script_delay && c->state != CONN_DELAY) {
        double ms;
        if (script_delay(sh->script, c->id, &ms, sh->script_error, sh->script_error_len) < 0) {
            script_failed(c);
            return;
        }
        if (ms > 0) {
            /* Wait first; the request starts when the timer fires. */
            c->state = CONN_DELAY;
            arm_timer(c, ms / 1e3);
            return;
        }
    }
    unsigned depth = sh->req_depth;
    if (sh->script_request) {
        if (script_request(sh->script, c->id, &c->req, &c->req_len, sh->script_error, sh->script_error_len) < 0) {
            script_failed(c);
            return;
        }
        depth = http_count_requests(c->req, c->req_len);
    }
    /* A pipelined batch is sent whole, even past -n's last request. */
    sh->budget = sh->budget > depth ? sh->budget - depth : 0;
    sh->in_flight += depth;
    sh->stats->started += depth;
    c->pending = depth;
    c->t_start = now;
    /* The request's deadline is t_start + timeout. A timer still armed for
     * an earlier request fires early and is pushed on then (see
     * on_timer_event), so the common case costs nothing here. */
    if (!ev_is_active(&c->timer))
        arm_timer(c, (double)sh->timeout_ns / 1e9);
    if (c->fd < 0) {
        begin_connect(c, now);
    } else {
        c->t_connect = 0;
        c->state = CONN_WRITING;
        reset_request(c);
        write_request(c);
    }
}

/* Keeps n more bytes of the current response for response() (which reads
 * headers or body). Returns false when the response outgrew --max-body. */
static bool capture(struct conn *c, const char *p, size_t n)
{
    struct conn_shared *sh = c->sh;
    if (c->cap_len + n > sh->max_body)
        return false;
    if (c->cap_len + n > c->cap_size) {
        size_t size = c->cap_size ? c->cap_size : 16384;
        while (size < c->cap_len + n)
            size *= 2;
        /* Kept for the connection's life: growth stops at the largest
         * response, so the steady state allocates nothing. */
        c->cap = xrealloc(c->cap, size);
        c->cap_size = size;
    }
    memcpy(c->cap + c->cap_len, p, n);
    c->cap_len += n;
    return true;
}

/* response() for a complete response of len bytes at raw; *failed when
 * the script failed it. Returns false when the hook raised an error. */
static bool check_response(struct conn *c, char *raw, size_t len, int64_t latency, int64_t connect,
                           int64_t waiting, bool *failed)
{
    struct conn_shared *sh = c->sh;
    struct script_res *r = sh->res;
    r->status = c->rx.status;
    r->chunked = c->rx.chunked;
    r->bytes = (double)c->rx_bytes;
    r->latency = (double)latency / 1e3;
    r->connect = (double)connect / 1e3;
    r->waiting = (double)waiting / 1e3;
    r->raw = sh->capture ? raw : NULL;
    r->raw_len = sh->capture ? len : 0;
    r->head_len = 0;
    r->body_len = 0;
    r->body_ready = 0;
    r->serial++;
    return script_response(sh->script, c->id, failed, sh->script_error, sh->script_error_len) == 0;
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
        fprintf(stderr, "Completed %" PRIu64 " requests\n", n);
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
    c->t_connect = 0; /* the batch's later responses came on the same connection */
    bool failed = false, hook_ok = !sh->script_response ||
                                   check_response(c, raw, len, latency, connect, waiting, &failed);
    if (failed) {
        sh->stats->errors[STATS_ERR_VALIDATION]++;
    } else {
        stats_complete(sh->stats, now, c->rx.status, latency, connect, waiting);
        if (sh->sched) {
            int64_t sent = c->t_sent ? c->t_sent : c->t_start;
            /* Taken only once due, sent after: the schedule never runs ahead. */
            assert(sent >= c->t_intended && now >= sent);
            stats_open(sh->stats, now, now - sent, sent - c->t_intended);
        }
    }
    if (sh->samples)
        keep_sample(c, latency, connect, waiting);
    if (sh->heartbeat)
        heartbeat(sh);
    c->pending--;
    sh->in_flight--;
    sh->conn_done[c->id]++;
    if (!hook_ok) {
        script_failed(c);
        return false;
    }
    return true;
}

/* The batch's last response is in: reuse the connection or not, then the
 * next request. */
static void batch_done(struct conn *c, int64_t now, bool reusable)
{
    if (!reusable || !c->sh->keepalive)
        close_socket(c);
    start_request(c, now);
}

/* The current response outgrew --max-body: a validation failure with its
 * own reason; the rest of a batch is lost with the connection. */
static void too_large(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    sh->too_large++;
    sh->stats->errors[STATS_ERR_VALIDATION]++;
    c->pending--;
    sh->in_flight--;
    conn_fail(c, STATS_ERR_READ);
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
        release_rest(sh);
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
    }
    if (!complete_one(c, now, raw, len))
        return 0;
    if (c->pending > 0) {
        if (!c->rx.keepalive) {
            conn_fail(c, STATS_ERR_READ); /* the server closes: the batch's rest is lost */
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

static void on_readable(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    if (c->state == CONN_DELAY || c->state == CONN_WAIT) {
        /* Between requests (a delay() or -R wait) the server closed the kept-alive
         * connection, or sent bytes nobody asked for: no request is in
         * flight, so drop the socket; the next request opens a new one. */
        close_socket(c);
        return;
    }
    assert(c->state == CONN_WRITING || c->state == CONN_READING);
    for (;;) {
        size_t n;
        switch (net_read(c->fd, sh->rbuf, sh->rbuf_size, &n)) {
        case NET_AGAIN:
            return;
        case NET_ERROR:
            conn_fail(c, STATS_ERR_READ);
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
                    conn_fail(c, STATS_ERR_READ);
                else
                    batch_done(c, now, false);
            } else {
                if (c->rx_bytes == 0)
                    sh->stats->closed += c->pending;
                conn_fail(c, STATS_ERR_READ);
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
        if (n < sh->rbuf_size)
            return; /* drained: the next readiness brings the rest */
    }
}

static void on_read_event(EV_P_ ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    on_readable(container_of(w, struct conn, rio));
}

static void on_write_event(EV_P_ ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    struct conn *c = container_of(w, struct conn, wio);
    if (c->state == CONN_CONNECTING)
        on_connected(c);
    else
        write_request(c);
}

/* The timer is one-shot: the backoff, or a request's deadline. It is not
 * re-armed for each request; when it fires for a request that started
 * later, it is armed again for what is left of that request's time (the
 * cheapest of the timeout patterns in libev's ev.pod). */
static void on_timer_event(EV_P_ ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    struct conn *c = container_of(w, struct conn, timer);
    int64_t left;
    switch (c->state) {
    case CONN_BACKOFF:
    case CONN_DELAY:
        start_request(c, clock_now_ns());
        return;
    case CONN_CONNECTING:
    case CONN_WRITING:
    case CONN_READING:
        left = c->t_start + c->sh->timeout_ns - clock_now_ns();
        if (left > 0)
            arm_timer(c, (double)left / 1e9);
        else if (c->state == CONN_CONNECTING)
            connect_failed(c, ETIMEDOUT);
        else
            conn_fail(c, STATS_ERR_TIMEOUT);
        return;
    case CONN_IDLE:
    case CONN_WAIT: /* an earlier request's deadline; the next one arms its own */
        return;
    }
}

void conn_init(struct conn *c, struct conn_shared *sh, uint32_t id)
{
    c->sh = sh;
    c->fd = -1;
    c->state = CONN_IDLE;
    c->id = id;
    c->backoff = 0;
    c->pending = 0;
    c->table_open = false;
    c->cap = NULL;
    c->cap_len = c->cap_size = 0;
    ev_init(&c->rio, on_read_event);
    ev_init(&c->wio, on_write_event);
    ev_init(&c->timer, on_timer_event);
    ev_timer_set(&c->timer, 0., 0.);
}

void conn_start(struct conn *c)
{
    start_request(c, clock_now_ns());
}

void conn_send(struct conn *c, int64_t intended, int64_t now)
{
    c->t_intended = intended;
    begin_request(c, now);
}

unsigned conn_stop(struct conn *c)
{
    unsigned was_in_flight = c->pending;
    c->pending = 0;
    go_idle(c);
    return was_in_flight;
}

void conn_free(struct conn *c)
{
    free(c->cap);
    c->cap = NULL;
    c->cap_size = c->cap_len = 0;
}
