/* The connection state machine: connecting, writing, failures, timers and
 * the open model's hand-over (conn_read.c reads and completes responses).
 * libev callbacks are trampolines into one handler per event; every failure
 * goes through conn_fail. On the keep-alive path a request costs one write
 * and one read: the read watcher stays armed for the life of the socket and
 * the write watcher is armed only when a write would block. Nothing here
 * allocates. */
#include "conn.h"

#include "clock.h"
#include "conn_internal.h"
#include "net.h"
#include "rng.h"
#include "tls.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

static void begin_request(struct conn *c, int64_t now);

void conn_close_socket(struct conn *c, bool clean)
{
    c->table_open = false; /* a scenario's next request opens a new conn table */
    if (c->fd < 0)
        return;
    if (c->tls) {
        tls_conn_close(c->tls, clean);
        c->write_wants_read = c->read_wants_write = false;
    }
    if (c->h2)
        conn_h2_closed(c);
    c->h1_alpn = false; /* the next socket's handshake chooses again */
    ev_io_stop(c->sh->loop, &c->rio);
    ev_io_stop(c->sh->loop, &c->wio);
    net_close(c->fd);
    c->fd = -1;
}

void conn_arm_timer(struct conn *c, double after)
{
    ev_timer_stop(c->sh->loop, &c->timer);
    ev_timer_set(&c->timer, after, 0.);
    ev_timer_start(c->sh->loop, &c->timer);
}

void conn_go_idle(struct conn *c)
{
    conn_close_socket(c, c->pending == 0);
    ev_timer_stop(c->sh->loop, &c->timer);
    c->state = CONN_IDLE;
}

/* --one-first: the first answer (or failure) lets the other connections go. */
void conn_release_rest(struct conn_shared *sh)
{
    if (sh->hold_rest) {
        sh->hold_rest = false;
        sh->start_rest(sh->start_rest_arg);
    }
}

/* The names of the requests in flight on c (each HTTP/2 stream's, then
 * the batch's for the rest) get their ending: cut off, or failed for why
 * (timed_out: with -R, recorded at latency, as stats_timed_out does). */
static void end_names(struct conn *c, bool cut_off, enum stats_error why, bool timed_out, int64_t now,
                      int64_t latency)
{
    struct stats *s = c->sh->stats;
    unsigned rest = c->pending;
    for (uint32_t i = 0; c->streams && i < c->sh->streams && rest; i++) {
        const struct conn_stream *st = &c->streams[i];
        if (!st->active)
            continue;
        if (cut_off)
            stats_name_cut_off(s, st->name, 1);
        else
            stats_name_fail(s, st->name, why, 1, now, timed_out, latency);
        rest--;
    }
    if (cut_off)
        stats_name_cut_off(s, c->name, rest);
    else
        stats_name_fail(s, c->name, why, rest, now, timed_out, latency);
}

void conn_backoff(struct conn *c)
{
    c->backoff = c->backoff > 0 ? c->backoff * 2 : CONN_BACKOFF_FIRST;
    if (c->backoff > CONN_BACKOFF_MAX)
        c->backoff = CONN_BACKOFF_MAX;
    c->state = CONN_BACKOFF;
    conn_arm_timer(c, c->backoff);
}

/* The one place requests fail: every request of the batch still in flight
 * is counted as failed for why; then close and go on, after the connect
 * backoff when backoff is set (or the budget is spent: then at once). */
static void fail(struct conn *c, enum stats_error why, const char *reason, bool backoff)
{
    struct conn_shared *sh = c->sh;
    conn_release_rest(sh);
    bool timed_out = sh->sched && why == STATS_ERR_TIMEOUT && c->pending;
    int64_t now = timed_out ? clock_now_ns() : 0;
    if (timed_out)
        stats_timed_out(sh->stats, now, now - c->t_intended, c->t_sent ? c->t_sent - c->t_intended : -1, c->pending);
    end_names(c, false, why, timed_out, now, now - c->t_intended);
    if (sh->flow && c->pending)
        conn_flow_failed(c, c->item, why);
    if (c->pending && sh->stats->shown.failures)
        errsamples_failed(&sh->stats->shown, now ? now : clock_now_ns(), why, reason);
    sh->stats->errors[why] += c->pending;
    sh->in_flight -= c->pending;
    c->pending = 0;
    conn_h2_drop(c);
    conn_close_socket(c, false);
    /* Back off before the next connect, unless there is no next request
     * (a flow's user inside an iteration has one). */
    if (backoff && (sh->budget > 0 || c->flow_live)) {
        conn_backoff(c);
        return;
    }
    conn_next_request(c, clock_now_ns());
}

void conn_fail(struct conn *c, enum stats_error why)
{
    fail(c, why, NULL, why == STATS_ERR_CONNECT || why == STATS_ERR_PORTS);
}

/* A failure of a kind counted by reason (read, tls): the reason counted
 * for the requests in flight, and kept with them for --show-errors. */
static void fail_reason(struct conn *c, enum stats_error why, const char *reason)
{
    if (c->pending)
        stats_kind_reason(c->sh->stats, why, reason, c->pending);
    fail(c, why, reason, false);
}

void conn_fail_read(struct conn *c, const char *reason)
{
    fail_reason(c, STATS_ERR_READ, reason);
}

const char *conn_read_errno_reason(int err, char *buf, size_t n)
{
    if (err == ECONNRESET)
        return "reset by peer";
    /* GNU strerror_r: thread-safe, may return a static string instead of buf */
    const char *s = strerror_r(err, buf, n);
    return s;
}

void conn_fail_backoff(struct conn *c, enum stats_error why)
{
    fail(c, why, NULL, true);
}

/* A connect (started at c->t_connect) failed with errno err. When every
 * connect of this worker has failed for longer than --timeout, the target
 * is gone: the worker gives up (worker.c stops the run) instead of failing
 * the rest of its budget one backoff at a time. The streak starts with the
 * first failed attempt (not before the last connect that worked), so a
 * server that restarts within --timeout does not end the run however long
 * the keep-alive connections lived before. */
static void connect_failed(struct conn *c, int err)
{
    struct conn_shared *sh = c->sh;
    if (err == ETIMEDOUT)
        sh->stats->connect_timeouts += c->pending;
    if (sh->failing_since == 0)
        sh->failing_since = c->t_connect > sh->last_connect_ok ? c->t_connect : sh->last_connect_ok;
    if (clock_now_ns() - sh->failing_since > sh->timeout_ns) {
        sh->gave_up = err ? err : ECONNREFUSED;
        ev_break(sh->loop, EVBREAK_ALL);
    }
    /* Out of local ports is this machine's limit, counted apart so the
     * report can say what to do about it. */
    conn_fail(c, err == EADDRNOTAVAIL ? STATS_ERR_PORTS : STATS_ERR_CONNECT);
}

/* The socket is connected: count it, arm the read watcher for the life of
 * the socket; the request is written next, or over TLS the handshake goes
 * on. now: when the connection was known to be up. */
static void mark_connected(struct conn *c, int64_t now)
{
    struct conn_shared *sh = c->sh;
    c->t_connect = now - c->t_connect;
    sh->last_connect_ok = now;
    sh->failing_since = 0;
    /* Over HTTP/2 a connection has worked once the server answers a
     * stream (conn_h2.c): one on which no stream opens, or whose streams
     * are all refused, backs off longer each time. */
    if (!sh->h2)
        c->backoff = 0;
    sh->stats->connects++;
    ev_io_start(sh->loop, &c->rio);
    c->t_handshake = c->tls ? now : 0; /* handshake_done makes it the duration */
    c->state = c->tls ? CONN_HANDSHAKE : CONN_WRITING;
}

void conn_io_wait_write(struct conn *c, enum net_status st)
{
    if (st == NET_AGAIN && c->tls)
        c->write_wants_read = true;
    else
        ev_io_start(c->sh->loop, &c->wio);
}

void conn_io_failed(struct conn *c, enum stats_error otherwise)
{
    /* A TLS write that failed in the socket (the server closed it): the
     * server may have said why first. A TLS 1.3 server refuses a client
     * certificate with an alert after the client's handshake is over; such
     * an alert, still readable, makes it a TLS failure with that reason. */
    size_t n;
    if (c->tls && otherwise == STATS_ERR_WRITE && tls_socket_errno(c->tls))
        tls_read(c->tls, c->sh->rbuf, c->sh->rbuf_size, &n); /* keeps the alert's reason, if any */
    int err = c->tls ? tls_socket_errno(c->tls) : errno;
    if (!c->tls || (err && otherwise != STATS_ERR_TLS)) {
        char buf[96];
        if (otherwise == STATS_ERR_READ)
            conn_fail_read(c, conn_read_errno_reason(err, buf, sizeof buf));
        else
            conn_fail(c, otherwise);
        return;
    }
    fail_reason(c, STATS_ERR_TLS, tls_reason(c->tls));
}

static void write_request(struct conn *c);
static void reset_request(struct conn *c);


/* The handshake is over: timed and counted; the request goes out. */
static void handshake_done(struct conn *c, int64_t now)
{
    struct conn_shared *sh = c->sh;
    c->t_handshake = now - c->t_handshake;
    hist_record(&sh->stats->handshake, c->t_handshake);
    if (tls_resumed(c->tls))
        sh->stats->tls_resumed++;
    else
        sh->stats->tls_full++;
    if (sh->script_conns) {
        struct tls_info info;
        tls_get_info(c->tls, &info);
        script_conn_tls(sh->script, c->id, &info);
    }
    if (sh->h2 && tls_chose_h2(c->tls)) {
        conn_h2_ready(c);
        return;
    }
    if (sh->h2) {
        /* The server chose HTTP/1.1: this connection goes on in HTTP/1.1
         * (counted, each connection by what its own handshake agreed on),
         * the queued request first; the next socket offers h2 again. */
        if (sh->h2_strict) {
            stats_kind_reason(sh->stats, STATS_ERR_TLS, "the server did not choose h2 (--http2=strict)", c->pending);
            conn_fail(c, STATS_ERR_TLS);
            return;
        }
        c->h1_alpn = true;
        sh->stats->h1_fallbacks++;
        struct conn_stream *st = c->streams;
        while (!st->active) /* the one request queued for the connection */
            st++;
        c->req = st->req;
        c->req_len = st->req_len;
        c->req_ix = st->req_ix;
        c->t_start = c->t_answered = st->t_start;
        c->name = st->name;
        conn_h2_release(c, st);
        reset_request(c);
    }
    c->state = CONN_WRITING;
    write_request(c);
}

void conn_handshake(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    bool connecting = c->state == CONN_CONNECTING;
    int64_t before = connecting ? clock_now_ns() : 0;
    enum net_status st = tls_handshake(c->tls);
    /* While connecting, this is also the probe for the end of the TCP
     * handshake (as write_request is for plain HTTP): anything but a write
     * that would block or a socket error means the ClientHello went out. */
    int sock_err = st == NET_ERROR ? tls_socket_errno(c->tls) : 0;
    /* A reset or a broken pipe means the connect had worked: the server
     * dropped the connection in the handshake (a TLS failure). */
    if (connecting && (sock_err == ECONNRESET || sock_err == EPIPE))
        sock_err = 0;
    if (connecting && st != NET_WANT_WRITE && !sock_err)
        mark_connected(c, before);
    switch (st) {
    case NET_OK:
        if (ev_is_active(&c->wio))
            ev_io_stop(sh->loop, &c->wio);
        handshake_done(c, clock_now_ns());
        return;
    case NET_AGAIN: /* the read watcher is armed */
        if (ev_is_active(&c->wio))
            ev_io_stop(sh->loop, &c->wio);
        return;
    case NET_WANT_WRITE:
        ev_io_start(sh->loop, &c->wio);
        return;
    case NET_ERROR:
        if (connecting && sock_err)
            connect_failed(c, sock_err);
        else
            conn_io_failed(c, STATS_ERR_TLS); /* a reset in the handshake too: its reason says so */
        return;
    }
}

/* Writes (the rest of) the request. While CONNECTING this is also the
 * probe for the end of the handshake: a write that would block means the
 * socket is still connecting, and the write watcher then waits for both. */
static void write_request(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    c->write_wants_read = false;
    bool connecting = c->state == CONN_CONNECTING;
    /* -R's send time is read before the write: on loopback the server may
     * read the request before the write returns. */
    bool first = sh->sched && c->woff == 0;
    int64_t before = connecting || first ? clock_now_ns() : 0;
    size_t n;
    enum net_status st = conn_io_write(c, c->req + c->woff, c->req_len - c->woff, &n);
    switch (st) {
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
    case NET_WANT_WRITE:
        conn_io_wait_write(c, st);
        return;
    case NET_ERROR:
        if (connecting)
            connect_failed(c, errno);
        else
            conn_io_failed(c, STATS_ERR_WRITE);
        return;
    }
}

void conn_write_request(struct conn *c)
{
    write_request(c);
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
    if (c->tls)
        conn_handshake(c);
    else if (c->sh->h2)
        conn_h2_ready(c);
    else
        write_request(c);
}

static void begin_connect(struct conn *c, int64_t now)
{
    struct conn_shared *sh = c->sh;
    int fd;
    c->state = CONN_CONNECTING;
    c->t_connect = now; /* the start; mark_connected turns it into the duration */
    socklen_t srclen;
    const struct sockaddr *src = sources_for(sh->sources, (uint64_t)sh->src_base + c->id, &srclen);
    switch (net_connect_from(sh->addr, *sh->addrlen, src, srclen, &fd)) {
    case NET_ERROR:
    case NET_WANT_WRITE: /* not from net_connect_from */
        connect_failed(c, errno);
        return;
    case NET_OK:
    case NET_AGAIN:
        c->fd = fd;
        ev_io_set(&c->rio, fd, EV_READ);
        ev_io_set(&c->wio, fd, EV_WRITE);
        reset_request(c);
        /* On loopback the handshake is usually over by the time connect
         * returns, so the write (or the ClientHello) is tried at once
         * (saving a poll round and a getsockopt); it waits for writability
         * only if it would block. */
        if (c->tls) {
            tls_conn_start(c->tls, fd);
            conn_handshake(c);
        } else if (sh->h2) {
            ev_io_start(sh->loop, &c->wio); /* h2c: the preface waits for the connect */
        } else {
            write_request(c);
        }
        return;
    }
}

void conn_begin_connect(struct conn *c, int64_t now)
{
    begin_connect(c, now);
}

/* A hook failed (the message is in sh->script_error): nothing more can be
 * sent. The worker stops the run (worker.c); requests still in flight on c
 * are cut off, as they would be by a stop. */
void conn_script_failed(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    end_names(c, true, STATS_ERR_KINDS, false, 0, 0);
    sh->stats->cut_off += c->pending;
    sh->in_flight -= c->pending;
    c->pending = 0;
    conn_h2_drop(c);
    conn_go_idle(c);
    ev_break(sh->loop, EVBREAK_ALL);
}

/* Starts the next request on c, or parks c when the budget is spent; the
 * last connection to go quiet ends the worker's loop. While the worker is
 * still opening connections, c waits in CONN_HELD unless this is its first
 * request (first: conn_start). With -R the request is the oldest arrival
 * due, and c waits when none is. A scenario's new connection gets its conn
 * table (and connect(conn)) first; with a delay() hook the request then
 * waits its delay in CONN_DELAY. */
static void next_request(struct conn *c, int64_t now, bool first)
{
    struct conn_shared *sh = c->sh;
    if (sh->flow) {
        conn_flow_next(c, now);
        return;
    }
    if (c->id >= sh->active) { /* retired by the stages, its request ended: closes */
        conn_go_idle(c);
        return;
    }
    if (sh->budget == 0) {
        conn_go_idle(c);
        if (sh->in_flight == 0)
            ev_break(sh->loop, EVBREAK_ALL);
        return;
    }
    if (sh->holding && !first) {
        c->state = CONN_HELD; /* until conn_resume */
        return;
    }
    if (sh->sched && !sched_take(sh->sched, now, &c->t_intended)) {
        c->state = CONN_WAIT; /* nothing due: wait for the schedule (conn_send) */
        /* Refused when c waits already: an HTTP/2 connection whose free
         * streams were parked, and that the server then closed. */
        sched_park(sh->sched, c->id);
        return;
    }
    begin_request(c, now);
}

void conn_next_request(struct conn *c, int64_t now)
{
    next_request(c, now, false);
}

void conn_resume(struct conn *c)
{
    if (c->state == CONN_HELD)
        next_request(c, clock_now_ns(), false);
}

void conn_begin_request(struct conn *c, int64_t now)
{
    begin_request(c, now);
}

/* --targets: c sends the next target's request, encoded before the run;
 * choosing it is an index, in the run's order (this worker's place in it,
 * then round the list) or drawn at random. */
static void next_target(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    uint32_t i;
    if (sh->target_random) {
        i = rng_below(&sh->rng, sh->ntargets);
    } else {
        i = sh->target_next;
        sh->target_next = i + 1 == sh->ntargets ? 0 : i + 1;
    }
    c->req = sh->targets[i].bytes;
    c->req_len = sh->targets[i].len;
    c->req_ix = i;
    c->name = sh->target_name[i] + 1;
}

/* Starts a request on c now: its hooks, then the connect or the write. */
static void begin_request(struct conn *c, int64_t now)
{
    struct conn_shared *sh = c->sh;
    c->req = sh->req;
    c->req_len = sh->req_len;
    c->req_ix = 0;
    c->name = sh->req_name;
    if (sh->script_error[0]) {
        conn_go_idle(c); /* a hook already failed: the run is ending */
        return;
    }
    if (sh->script_conns && c->fd < 0 && !c->table_open) {
        c->table_open = true;
        sh->conn_done[c->id] = 0;
        if (script_conn_open(sh->script, c->id, sh->script_error, sh->script_error_len) < 0) {
            conn_script_failed(c);
            return;
        }
    }
    if (sh->script_delay && c->state != CONN_DELAY) {
        double ms;
        if (script_delay(sh->script, c->id, &ms, sh->script_error, sh->script_error_len) < 0) {
            conn_script_failed(c);
            return;
        }
        if (ms > 0) {
            /* Wait first; the request starts when the timer fires. */
            c->state = CONN_DELAY;
            conn_arm_timer(c, ms / 1e3);
            return;
        }
    }
    unsigned depth = sh->req_depth;
    if (sh->script_request) {
        if (script_request(sh->script, c->id, &c->req, &c->req_len, &c->name, sh->script_error,
                           sh->script_error_len) < 0) {
            conn_script_failed(c);
            return;
        }
        depth = http_count_requests(c->req, c->req_len);
        c->req_ix = CONN_REQ_HOOK;
    } else if (sh->targets) {
        next_target(c);
    }
    conn_start_request(c, now, depth);
}

void conn_start_request(struct conn *c, int64_t now, unsigned depth)
{
    struct conn_shared *sh = c->sh;
    if (sh->h2 && !c->h1_alpn) {
        /* HTTP/2: the request is a stream of its own (a pipelined string is
         * refused when its stream opens). */
        if (!sh->flow)
            sh->budget--;
        if (sh->sched)
            sh->stats->arrivals++;
        sh->in_flight++;
        sh->stats->started++;
        sh->stats->batches++;
        stats_name_started(sh->stats, c->name, 1);
        c->pending++;
        conn_h2_add(c, now);
        /* In the backoff (-R hands an arrival to a free stream of a
         * connection that failed) the stream waits for its end. */
        if (c->fd < 0 && c->state != CONN_BACKOFF) {
            c->t_start = now;
            conn_arm_timer(c, (double)c->timeout_ns / 1e9);
            begin_connect(c, now);
        }
        return;
    }
    /* A pipelined batch is sent whole, even past -n's last request. With -R
     * the budget counts arrivals, and a batch is one arrival's work. */
    unsigned cost = sh->sched ? 1 : depth;
    if (!sh->flow) /* a flow's budget counts iterations */
        sh->budget = sh->budget > cost ? sh->budget - cost : 0;
    if (sh->sched)
        sh->stats->arrivals++;
    sh->in_flight += depth;
    sh->stats->started += depth;
    sh->stats->batches++;
    stats_name_started(sh->stats, c->name, depth);
    c->pending = depth;
    c->t_start = c->t_answered = now;
    /* The request's deadline is t_start + timeout. A timer still armed for
     * an earlier request fires early and is pushed on then (see
     * on_timer_event), so the common case costs nothing here. */
    if (!ev_is_active(&c->timer) || c->timeout_ns != sh->timeout_ns)
        conn_arm_timer(c, (double)c->timeout_ns / 1e9);
    if (c->fd < 0) {
        begin_connect(c, now);
    } else {
        c->t_connect = 0;
        c->t_handshake = 0;
        c->state = CONN_WRITING;
        reset_request(c);
        write_request(c);
    }
}

static void on_read_event(EV_P_ ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    conn_on_readable(container_of(w, struct conn, rio));
}

static void on_write_event(EV_P_ ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    struct conn *c = container_of(w, struct conn, wio);
    if (c->state == CONN_CONNECTING) {
        on_connected(c);
    } else if (c->state == CONN_H2) {
        conn_h2_writable(c);
    } else if (c->state == CONN_HANDSHAKE) {
        conn_handshake(c);
    } else if (c->read_wants_write) {
        c->read_wants_write = false;
        ev_io_stop(c->sh->loop, &c->wio);
        conn_on_readable(c);
    } else {
        write_request(c);
    }
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
        c->state = CONN_IDLE;
        if (c->pending > 0) { /* HTTP/2: streams wait for a new connection */
            conn_h2_reconnect(c);
            return;
        }
        conn_next_request(c, clock_now_ns());
        return;
    case CONN_DELAY:
        conn_next_request(c, clock_now_ns());
        return;
    case CONN_CONNECTING:
    case CONN_HANDSHAKE:
    case CONN_WRITING:
    case CONN_READING:
        left = c->t_start + c->timeout_ns - clock_now_ns();
        if (left > 0)
            conn_arm_timer(c, (double)left / 1e9);
        else if (c->state == CONN_CONNECTING)
            connect_failed(c, ETIMEDOUT);
        else
            conn_fail(c, STATS_ERR_TIMEOUT);
        return;
    case CONN_H2:
        conn_h2_timer(c);
        return;
    case CONN_IDLE:
    case CONN_WAIT: /* an earlier request's deadline; the next one arms its own */
    case CONN_HELD:
        return;
    }
}

/* A flow over HTTP/2: the user's sleep is over. */
static void on_pause_event(EV_P_ ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    struct conn *c = container_of(w, struct conn, pause);
    c->flow_paused = false;
    conn_next_request(c, clock_now_ns());
}

void conn_init(struct conn *c, struct conn_shared *sh, uint32_t id)
{
    c->sh = sh;
    c->fd = -1;
    c->state = CONN_IDLE;
    c->id = id;
    c->backoff = 0;
    c->pending = 0;
    c->name = 0;
    c->timeout_ns = sh->timeout_ns;
    c->flow_live = c->flow_check = c->flow_paused = c->flow_parked = false;
    c->owner = c->lanes = NULL;
    c->batch = NULL;
    c->item = -1;
    ev_init(&c->pause, on_pause_event);
    c->t_iter = 0;
    c->table_open = false;
    c->cap = NULL;
    c->cap_len = c->cap_size = 0;
    ev_init(&c->rio, on_read_event);
    ev_init(&c->wio, on_write_event);
    ev_init(&c->timer, on_timer_event);
    ev_timer_set(&c->timer, 0., 0.);
    c->tls = sh->tls ? tls_conn_new(sh->tls) : NULL;
    c->write_wants_read = c->read_wants_write = false;
    c->h1_alpn = false;
    c->h2 = NULL;
    c->streams = NULL;
    c->h2_free = NULL;
    c->h2_nfree = 0;
    c->out = NULL;
    c->out_len = c->out_off = c->out_cap = 0;
    c->h2_goaway = c->h2_in_call = c->h2_closed = c->h2_filling = c->h2_settings = c->h2_broken = false;
    if (sh->h2)
        conn_h2_init(c);
}

void conn_start(struct conn *c)
{
    next_request(c, clock_now_ns(), true);
}

void conn_send(struct conn *c, int64_t intended, int64_t now)
{
    if (c->sh->flow) {
        c->flow_parked = false;
        c->t_iter = intended;
        conn_flow_begin(c, now);
        return;
    }
    c->t_intended = intended;
    begin_request(c, now);
}

unsigned conn_stop(struct conn *c)
{
    unsigned was_in_flight = c->pending + conn_flow_stop(c);
    ev_timer_stop(c->sh->loop, &c->pause);
    c->flow_paused = c->flow_parked = false;
    if (c->flow_live) { /* the user's iteration is cut off with its request */
        c->flow_live = false;
        c->sh->stats->flow.cut_off++;
        c->sh->live_iters--;
    }
    end_names(c, true, STATS_ERR_KINDS, false, 0, 0);
    c->pending = 0;
    conn_h2_drop(c);
    conn_go_idle(c);
    return was_in_flight;
}

void conn_free(struct conn *c)
{
    conn_flow_free(c);
    conn_h2_free(c);
    tls_conn_free(c->tls);
    c->tls = NULL;
    free(c->cap);
    c->cap = NULL;
    c->cap_size = c->cap_len = 0;
}
