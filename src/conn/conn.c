/* The connection state machine: sockets, connects, handshakes, timers
 * and the events of a connection, and a slot's life (conn_init, conn_stop,
 * conn_free). The entry of src/conn/: it calls its pieces, which never
 * call back (conn_request.c starts requests, conn_complete.c completes
 * them, conn_fail.c fails them, conn_flow.c runs a flow's users, and
 * conn_common.c, below them all, holds what they share). libev callbacks
 * are trampolines into one handler per event; every failure goes through
 * conn_fail.c's fail(). What carries
 * the bytes is sh->transport (transport.h) and what frames them c->fr (framing.h):
 * this file calls their tables and names neither. On the keep-alive path a
 * request costs one write and one read: the read watcher stays armed for
 * the life of the socket and the write watcher is armed only when a write
 * would block. Nothing here allocates. */
#include "conn.h"

#include "clock.h"
#include "conn_internal.h"

#include <errno.h>
#include <stddef.h>

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))


/* The socket is connected: count it, arm the read watcher for the life of
 * the socket; the framing sends next, or the transport's handshake goes
 * on. now: when the connection was known to be up. */
void conn_connected(struct conn *c, int64_t now)
{
    struct conn_shared *sh = c->sh;
    const struct transport_ops *tp = conn_transport(c);
    c->t_connect = now - c->t_connect;
    if (!c->origin) { /* the target's: another host up says nothing of it */
        sh->last_connect_ok = now;
        sh->failing_since = 0;
    }
    /* On a multiplexed connection a connection has worked once the server
     * answers a request (the framing resets the backoff then): one on
     * which no stream opens, or whose streams are all refused, backs off
     * longer each time. The rule is that of the framing the socket
     * speaks (after a handshake, of the one it agreed on:
     * take_negotiated applies it again). */
    if (!c->fr->multiplexed)
        c->backoff = 0;
    sh->stats->connects++;
    ev_io_start(sh->loop, &c->rio);
    c->t_handshake = tp->handshake ? now : 0; /* handshake_done makes it the duration */
    c->state = tp->handshake ? CONN_HANDSHAKE : CONN_OPEN;
}

void conn_io_wait_write(struct conn *c, enum net_status st)
{
    if (st == NET_AGAIN && conn_transport(c)->handshake)
        c->write_wants_read = true;
    else
        ev_io_start(c->sh->loop, &c->wio);
}


/* The framing that speaks what the handshake agreed on takes c (the
 * registry's choice, sh->negotiate): another than the one the request was
 * queued in gets that request. Returns false when there is none: c failed
 * with the reason. */
static bool take_negotiated(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    const struct transport_ops *tp = conn_transport(c);
    if (!sh->negotiate || c->origin) /* another origin's: HTTP/1.1, the one its ALPN offers */
        return true;
    char protocol[32] = "", why[96];
    if (tp->protocol)
        tp->protocol(c->tps, protocol, sizeof protocol);
    const struct framing_ops *fr = sh->negotiate(sh, protocol, why, sizeof why);
    if (!fr) {
        stats_kind_reason(sh->stats, TRANSPORT_FAILED, why, c->pending);
        conn_fail(c, TRANSPORT_FAILED);
        return false;
    }
    if (fr != c->fr) {
        /* For this socket only: the next one offers sh->framing's again. */
        c->fr->requeue(c);
        c->fr = fr;
        c->fs = fr == sh->framing ? c->fs_own[0] : c->fs_own[1];
    }
    if (!fr->multiplexed) /* its rule: it worked once connected (conn_connected) */
        c->backoff = 0;
    return true;
}

/* The handshake is over: timed and counted; the framing that speaks what
 * it agreed on takes the connection. */
static void handshake_done(struct conn *c, int64_t now)
{
    struct conn_shared *sh = c->sh;
    const struct transport_ops *tp = conn_transport(c);
    c->t_handshake = now - c->t_handshake;
    stats_handshake(sh->stats, c->t_handshake, tp->resumed(c->tps));
    if (sh->script_conns) {
        struct tls_info info;
        tp->info(c->tps, &info);
        script_conn_tls(sh->script, c->id, &info);
    }
    if (!take_negotiated(c))
        return;
    c->state = CONN_OPEN;
    c->fr->ready(c);
}

static void handshake(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    const struct transport_ops *tp = conn_transport(c);
    bool connecting = c->state == CONN_CONNECTING;
    int64_t before = connecting ? clock_now_ns() : 0;
    enum net_status st = tp->handshake(c->tps);
    /* While connecting, this is also the probe for the end of the TCP
     * handshake (as the framing's first write is without one): anything
     * but a write that would block or a socket error means the first
     * handshake message went out. */
    int sock_err = st == NET_ERROR ? tp->socket_errno(c->tps, c->fd) : 0;
    /* A reset or a broken pipe means the connect had worked: the server
     * dropped the connection in the handshake (a TLS failure). */
    if (connecting && (sock_err == ECONNRESET || sock_err == EPIPE))
        sock_err = 0;
    if (connecting && st != NET_WANT_WRITE && !sock_err)
        conn_connected(c, before);
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
            conn_connect_failed(c, sock_err);
        else
            conn_handshake_failed(c);
        return;
    }
}

/* The write watcher fired while connecting: the connect ended. */
static void on_connected(struct conn *c)
{
    const struct transport_ops *tp = conn_transport(c);
    ev_io_stop(c->sh->loop, &c->wio);
    int err = tp->connected(c->fd);
    if (err != 0) {
        conn_connect_failed(c, err);
        return;
    }
    conn_connected(c, clock_now_ns());
    if (tp->handshake)
        handshake(c);
    else
        c->fr->ready(c);
}

void conn_begin_connect(struct conn *c, int64_t now)
{
    struct conn_shared *sh = c->sh;
    const struct transport_ops *tp = conn_transport(c);
    int fd;
    c->state = CONN_CONNECTING;
    c->t_connect = now; /* the start; conn_connected turns it into the duration */
    socklen_t srclen;
    const struct sockaddr *src = sources_for(sh->sources, (uint64_t)sh->src_base + c->id, &srclen);
    const struct conn_origin *o = c->origin ? &sh->origins[c->origin] : NULL;
    switch (o ? tp->connect((const struct sockaddr *)&o->addr, o->addrlen, src, srclen, &fd)
              : tp->connect(sh->addr, *sh->addrlen, src, srclen, &fd)) {
    case NET_ERROR:
    case NET_WANT_WRITE: /* not from a connect */
        conn_connect_failed(c, errno);
        return;
    case NET_OK:
    case NET_AGAIN:
        c->fd = fd;
        ev_io_set(&c->rio, fd, EV_READ);
        ev_io_set(&c->wio, fd, EV_WRITE);
        /* On loopback the connect is usually over by the time it returns,
         * so the first write (or the handshake's first message) is tried
         * at once (saving a poll round and a getsockopt); it waits for
         * writability only if it would block. */
        if (tp->handshake) {
            if (tp->start)
                tp->start(c->tps, fd);
            handshake(c);
        } else {
            c->fr->connecting(c);
        }
        return;
    }
}

/* Readable between requests (a delay() or -R wait): the server closed the
 * kept-alive connection, or sent bytes nobody asked for. No request is in
 * flight, so the socket goes; the next request opens a new one. A
 * transport may take in a record that carries no data (a TLS session
 * ticket, a key update): the connection stays then. */
static void readable_between(struct conn *c)
{
    const struct transport_ops *tp = conn_transport(c);
    if (tp->idle_readable && tp->idle_readable(c->tps, c->fd, c->sh->rbuf, c->sh->rbuf_size))
        return;
    conn_close_socket(c, false);
}

static void on_read_event(EV_P_ ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    struct conn *c = container_of(w, struct conn, rio);
    /* A hook failed (here or on another connection of this worker): the
     * run is ending, and what c has in flight is cut off when the worker
     * stops it; no more responses are taken, nor hooks called. */
    if (c->sh->script_error[0])
        return;
    switch (c->state) {
    case CONN_DELAY:
    case CONN_WAIT:
    case CONN_HELD:
        readable_between(c);
        return;
    case CONN_HANDSHAKE:
        handshake(c);
        return;
    case CONN_OPEN:
        c->fr->readable(c);
        return;
    case CONN_IDLE:
    case CONN_BACKOFF:
    case CONN_CONNECTING: /* the read watcher starts once connected */
        return;
    }
}

static void on_write_event(EV_P_ ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    struct conn *c = container_of(w, struct conn, wio);
    if (c->state == CONN_CONNECTING)
        on_connected(c);
    else if (c->state == CONN_HANDSHAKE)
        handshake(c);
    else if (c->state == CONN_OPEN)
        c->fr->writable(c);
}

/* The timer is one-shot: the backoff, a delay() wait, or a request's
 * deadline. It is not re-armed for each request; when it fires for a
 * request that started later, it is armed again for what is left of that
 * request's time (the cheapest of the timeout patterns in libev's ev.pod).
 * Once CONN_OPEN, the framing keeps the deadlines. */
static void on_timer_event(EV_P_ ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    struct conn *c = container_of(w, struct conn, timer);
    int64_t left;
    switch (c->state) {
    case CONN_BACKOFF:
        c->state = CONN_IDLE;
        if (c->pending > 0) { /* a multiplexed framing's requests wait for a new connection */
            c->fr->reconnect(c);
            return;
        }
        conn_next_request(c, clock_now_ns());
        return;
    case CONN_DELAY:
        conn_next_request(c, clock_now_ns());
        return;
    case CONN_CONNECTING:
    case CONN_HANDSHAKE:
        left = c->t_start + c->timeout_ns - clock_now_ns();
        if (left > 0)
            conn_arm_timer(c, (double)left / 1e9);
        else if (c->state == CONN_CONNECTING)
            conn_connect_failed(c, ETIMEDOUT);
        else
            conn_fail(c, STATS_ERR_TIMEOUT);
        return;
    case CONN_OPEN:
        c->fr->timer(c);
        return;
    case CONN_IDLE:
    case CONN_WAIT: /* an earlier request's deadline; the next one arms its own */
    case CONN_HELD:
        return;
    }
}

void conn_init(struct conn *c, struct conn_shared *sh, uint32_t id)
{
    conn_slot_init(c, sh, id, 0, on_read_event, on_write_event, on_timer_event);
}

unsigned conn_stop(struct conn *c)
{
    unsigned was_in_flight = c->pending;
    struct conn *lanes = conn_flow_lanes(c);
    for (int i = 0; lanes && i < CONN_FLOW_LANES; i++)
        was_in_flight += conn_stop(&lanes[i]);
    for (unsigned id = 1; c->user && id <= SCRIPT_FLOW_ORIGINS; id++) {
        struct conn *k = conn_flow_away(c, id);
        if (k)
            was_in_flight += conn_stop(k);
    }
    conn_flow_stop(c);
    if (c->flow_live) { /* the user's iteration is cut off with its request */
        c->flow_live = false;
        c->sh->stats->flow.cut_off++;
        c->sh->live_iters--;
    }
    c->fr->end(c, &(struct conn_ending){.cut_off = true});
    c->pending = 0;
    conn_go_idle(c);
    return was_in_flight;
}

void conn_free(struct conn *c)
{
    const struct transport_ops *tp = conn_transport(c);
    struct conn *lanes = conn_flow_lanes(c);
    for (int i = 0; lanes && i < CONN_FLOW_LANES; i++)
        conn_free(&lanes[i]);
    for (unsigned id = 1; c->user && id <= SCRIPT_FLOW_ORIGINS; id++) {
        struct conn *k = conn_flow_away(c, id);
        if (k)
            conn_free(k); /* conn_flow_free frees its memory */
    }
    conn_flow_free(c);
    conn_framing(c)->free(c, c->fs_own[0]);
    if (c->sh->fallback && !c->origin)
        c->sh->fallback->free(c, c->fs_own[1]);
    c->fs = c->fs_own[0] = c->fs_own[1] = NULL;
    if (tp->conn_free)
        tp->conn_free(c->tps);
    c->tps = NULL;
}

void conn_shared_free(struct conn_shared *sh)
{
    /* sh may be as calloc left it: a worker whose set-up failed early. */
    if (sh->framing && sh->framing->shared_free)
        sh->framing->shared_free(sh);
    sh->framing_shared = NULL;
    conn_origins_free(sh);
}
