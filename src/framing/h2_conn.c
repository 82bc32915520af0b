/* HTTP/2 on a connection (framing.h's framing_h2): the connection carries
 * up to --streams requests at once, each in a stream slot with its own
 * timing, deadline, response capture and accounting. Requests are made as
 * for HTTP/1 (the hooks, the budget, the schedule's arrivals) by
 * conn_request.c's begin_request, which hands each one here as an HTTP/1
 * request string; it is taken apart into HTTP/2 headers when its stream is
 * opened (h2_req.c). http/h2.c does the framing, and its events per stream
 * are taken in h2_events.c; this file owns the slots, the socket I/O, the
 * timers, retries and losses.
 * Nothing here allocates on the steady path: slot buffers grow to the
 * largest request and response once. */
#include "framings.h"

#include "clock.h"
#include "h2_internal.h"
#include "xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool flush(struct conn *c);
static void after_streams(struct conn *c);
static void h2_reconnect(struct conn *c);
static void h2_readable(struct conn *c);

/* Arms c's timer for the earliest deadline of its streams (or the end of
 * a refused stream's backoff), unless it is armed: then it may fire early
 * (for a stream that has ended), and h2_timer arms it again; so a request
 * costs no timer update. A deadline earlier than the armed one comes only
 * with a new stream (add, which arms for it) or a refused one (h2c_retry,
 * which stops the timer). */
static void arm_deadline(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    if (ev_is_active(&c->timer))
        return;
    int64_t at = INT64_MAX;
    for (uint32_t i = 0; i < sh->streams; i++) {
        const struct h2_stream *st = &H(c)->streams[i];
        if (!st->active)
            continue;
        if (h2c_deadline_base(st) + st->timeout_ns < at)
            at = h2c_deadline_base(st) + st->timeout_ns;
        if (st->id == 0 && st->t_retry && st->t_retry < at) /* a refused stream's backoff */
            at = st->t_retry;
    }
    if (at != INT64_MAX)
        conn_arm_deadline(c, at, clock_now_ns());
}

/* A stream ended without a response (why: a failure kind): counted, its
 * slot freed. */
void h2c_stream_failed(struct conn *c, struct h2_stream *st, enum stats_error why)
{
    struct conn_shared *sh = c->sh;
    bool timed_out = sh->sched && why == STATS_ERR_TIMEOUT;
    int64_t now = timed_out ? clock_now_ns() : 0;
    if (timed_out)
        stats_timed_out(sh->stats, now, now - st->t_intended, st->t_sent ? st->t_sent - st->t_intended : -1, 1);
    struct conn_ending e = {false, why, timed_out, now, now - st->t_intended};
    conn_end_requests(c, st->name, st->item, 1, &e);
    sh->stats->errors[why]++;
    h2c_release(c, st);
    c->pending--;
    sh->in_flight--;
}

/* A request with no free slot (a bug if it happens): failed, not lost. */
static void stream_failed_unslotted(struct conn *c)
{
    stats_kind_reason(c->sh->stats, STATS_ERR_PROTOCOL, "no free stream slot", 1);
    c->sh->stats->errors[STATS_ERR_PROTOCOL]++;
    stats_name_fail(c->sh->stats, c->name, STATS_ERR_PROTOCOL, 1, 0, false, 0);
    c->pending--;
    c->sh->in_flight--;
}

/* st was not processed: refused (RST_STREAM REFUSED_STREAM), or above a
 * GOAWAY's last stream id (RFC 9113 8.7: safe to send again). It goes
 * again with its clock still running, at most H2_RETRIES times, then
 * fails with the server's reason. A refused stream waits the connect
 * backoff's steps on this connection (10 ms, 20 ms, 40 ms); one GOAWAY left
 * goes on the next connection, which backs off when this one answered
 * nothing (lost). */
void h2c_retry(struct conn *c, struct h2_stream *st, bool refused)
{
    struct conn_shared *sh = c->sh;
    struct h2_conn *h = H(c);
    if (st->retries >= H2_RETRIES) {
        char why[96];
        if (refused)
            snprintf(why, sizeof why, "refused stream (RST_STREAM REFUSED_STREAM), retried %d times",
                     H2_RETRIES);
        else
            snprintf(why, sizeof why, "GOAWAY %s last_stream_id %d, retried %d times",
                     h2_error_name(h->goaway_error), (int)h->last_id, H2_RETRIES);
        stats_kind_reason(sh->stats, STATS_ERR_PROTOCOL, why, 1);
        h2c_stream_failed(c, st, STATS_ERR_PROTOCOL);
        return;
    }
    st->retries++;
    sh->stats->h2_retried++;
    st->id = 0;
    h2c_fresh_response(st);
    st->t_retry = 0;
    if (refused) {
        st->t_retry = clock_now_ns() + (int64_t)(CONN_BACKOFF_FIRST * 1e9) * (1 << (st->retries - 1));
        ev_timer_stop(sh->loop, &c->timer); /* armed again for the backoff's end (after_streams) */
    }
}

/* A request begin_request made takes a slot: opened now on a ready
 * connection, or queued until the connection is ready (h2_ready). */
static void add(struct conn *c, int64_t now)
{
    struct h2_stream *st = h2c_free_slot(c);
    struct h2_conn *h = H(c);
    /* begin_request counted the request; it gets a slot: fill() and the
     * schedule (its parked entries <= free slots) ask only while one is free. */
    if (!st) {
        stream_failed_unslotted(c);
        return;
    }
    st->active = true;
    st->id = 0;
    st->t_start = now;
    st->t_intended = c->t_intended;
    st->timeout_ns = c->timeout_ns;
    st->item = c->item;
    st->name = c->name;
    st->stream_asked = conn_stream_asked(c);
    st->stream_call = c->stream_call;
    st->retries = 0;
    st->t_retry = 0;
    h2c_fresh_response(st);
    st->req_ix = c->req_ix;
    if (c->req_ix != CONN_REQ_HOOK) {
        st->req = c->req; /* lives as long as the run */
    } else {
        /* A hook's string is anchored only until this connection's next
         * request(): copied. */
        st->own_len = 0;
        h2c_append(&st->own_req, &st->own_len, &st->own_cap, c->req, c->req_len);
        st->req = st->own_req;
    }
    st->req_len = c->req_len;
    /* Its deadline may come before the one the timer is armed for (a
     * shorter timeout than the streams' before it); a timer not armed is
     * armed for the earliest of all by arm_deadline. */
    if (c->state == CONN_OPEN && ev_is_active(&c->timer))
        conn_arm_deadline(c, now + st->timeout_ns, now);
    if (h->session && c->state == CONN_OPEN) {
        if (!h2c_submit(c, st))
            h2c_stream_failed(c, st, STATS_ERR_PROTOCOL);
        /* From fill() the frames go out together afterwards; from the
         * schedule (conn_send) now. */
        if (!h->filling)
            after_streams(c);
    }
    /* else: queued until the connection is ready (h2_ready) */
}

/* The request is a stream of its own (a pipelined string is refused when
 * its stream opens). */
static void h2_start(struct conn *c, int64_t now, unsigned depth)
{
    (void)depth;
    conn_count_started(c, 1, 1);
    c->pending++;
    add(c, now);
    /* In the backoff (-R hands an arrival to a free stream of a
     * connection that failed) the stream waits for its end. */
    if (c->fd < 0 && c->state != CONN_BACKOFF) {
        c->t_start = now;
        conn_arm_timer(c, (double)c->timeout_ns / 1e9);
        conn_begin_connect(c, now);
    }
}

/* h2c: the preface waits for the connect. */
static void h2_connecting(struct conn *c)
{
    ev_io_start(c->sh->loop, &c->wio);
}

/* Each stream ends under its own name and a flow's batch item (so a
 * user's batch hears of every stream the connection took with it), then
 * the rest (none, as a rule) under the connection's; then every slot is
 * free. */
static void h2_end(struct conn *c, const struct conn_ending *e)
{
    struct h2_conn *h = H(c);
    unsigned rest = c->pending;
    for (uint32_t i = 0; i < c->sh->streams && rest; i++) {
        const struct h2_stream *st = &h->streams[i];
        if (!st->active)
            continue;
        conn_end_requests(c, st->name, st->item, 1, e);
        rest--;
    }
    conn_end_requests(c, c->name, -1, rest, e);
    h2c_all_free(h, c->sh->streams);
}

/* The handshake chose HTTP/1.1: the one request queued for the connection
 * becomes its own. */
static void h2_requeue(struct conn *c)
{
    struct h2_stream *st = H(c)->streams;
    while (!st->active)
        st++;
    c->req = st->req;
    c->req_len = st->req_len;
    c->req_ix = st->req_ix;
    c->t_start = c->t_answered = st->t_start;
    c->name = st->name;
    c->item = st->item;     /* a flow's batch item goes on as that item */
    c->timeout_ns = st->timeout_ns;
    h2c_release(c, st);
}

/* Streams of c that the server will still answer: opened, not yet closed,
 * at or below a GOAWAY's last stream id (those above it, even if nghttp2
 * still holds them back, are retried elsewhere). */
static unsigned open_on_wire(const struct conn *c)
{
    struct h2_conn *h = H(c);
    unsigned n = 0;
    for (uint32_t i = 0; i < c->sh->streams; i++)
        n += h->streams[i].active && h->streams[i].id > 0 && h->streams[i].id <= h->last_id;
    return n;
}

/* The session of a closed connection: its header counts kept, freed. Not
 * from inside its own callbacks (h2_recv, h2_send): then when they return,
 * and the session is halted at once, so that the rest of what it was
 * given (more streams' frames of the same read) touches no stream of the
 * closed connection: their slots are free, and the connection counted
 * them (cut off, failed) when it closed. */
static void end_session(struct conn *c)
{
    struct h2_conn *h = H(c);
    if (!h->session)
        return;
    if (h->in_call) {
        h->closed = true;
        h2_halt(h->session);
        return;
    }
    uint64_t wire, decoded;
    h2_header_sizes(h->session, &wire, &decoded);
    c->sh->stats->h2_header_wire += wire;
    c->sh->stats->h2_header_decoded += decoded;
    h2_session_free(h->session);
    h->session = NULL;
    h->closed = false;
}

static void h2_closed(struct conn *c)
{
    struct h2_conn *h = H(c);
    h->out_len = h->out_off = 0; /* unsent frames belong to the closed connection */
    end_session(c);
}

/* c's connection is gone (why: how) with streams still on it: those that
 * GOAWAY left unprocessed are retried on a new connection, the others
 * failed; then a new connection for what is left, or the next request. */
static void lost(struct conn *c, bool clean, enum stats_error why)
{
    struct conn_shared *sh = c->sh;
    struct h2_conn *h = H(c);
    for (uint32_t i = 0; i < sh->streams; i++) {
        struct h2_stream *st = &h->streams[i];
        if (!st->active)
            continue;
        if (h->goaway && st->id > h->last_id)
            h2c_retry(c, st, false); /* sent and not processed */
        else if (h->goaway && st->id == 0)
            h2c_fresh_response(st); /* never sent (or counted as retried already): not a retry */
        else
            h2c_stream_failed(c, st, why);
    }
    conn_close_socket(c, clean);
    if (!h->answered && (c->pending > 0 || sh->budget > 0 || c->flow_live)) {
        /* Nothing was answered here: the next connection (for the retried
         * streams, or the next request) waits the connect backoff, as
         * after a failed connect. */
        conn_backoff(c);
        return;
    }
    h2_reconnect(c);
}

/* lost(c, clean, STATS_ERR_READ), the streams it fails counted under
 * reason among the read failures' reasons. */
static void lost_read(struct conn *c, bool clean, const char *reason)
{
    struct stats *s = c->sh->stats;
    uint64_t before = s->errors[STATS_ERR_READ];
    lost(c, clean, STATS_ERR_READ);
    if (s->errors[STATS_ERR_READ] > before)
        stats_kind_reason(s, STATS_ERR_READ, reason, s->errors[STATS_ERR_READ] - before);
}

static void h2_reconnect(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    int64_t now = clock_now_ns();
    ev_timer_stop(sh->loop, &c->timer);
    /* The retried streams open on the new connection; its connect runs on
     * the oldest one's clock. Those whose time ran out in a backoff fail
     * as timeouts (not as a connect that did not finish). */
    c->t_start = INT64_MAX;
    for (uint32_t i = 0; i < sh->streams; i++) {
        struct h2_stream *st = &H(c)->streams[i];
        if (!st->active)
            continue;
        if (now - st->t_start >= st->timeout_ns)
            h2c_stream_failed(c, st, STATS_ERR_TIMEOUT);
        else if (st->t_start < c->t_start)
            c->t_start = st->t_start;
    }
    if (c->pending == 0) {
        conn_next_request(c, now);
        return;
    }
    arm_deadline(c);
    conn_begin_connect(c, now);
}

/* Gathers what nghttp2 has to send (frames of every stream, acks, window
 * updates) into H(c)->out and writes it in one go: one write (one TLS record)
 * for a round of requests, not one per frame. What the socket does not
 * take waits for writable. Returns false when the connection failed
 * (already handled). */
#define OUT_GATHER (64 * 1024)
static bool flush(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    struct h2_conn *h = H(c);
    for (;;) {
        if (h->out_off == h->out_len)
            h->out_off = h->out_len = 0;
        bool drained = false; /* nghttp2 said it has nothing more */
        while (h->out_len < OUT_GATHER) {
            const char *p;
            h->in_call = true; /* its callbacks may end streams, and a hook fail */
            long n = h2_send(h->session, &p);
            h->in_call = false;
            if (h->closed) {
                end_session(c);
                return false;
            }
            if (n < 0) {
                stats_kind_reason(sh->stats, STATS_ERR_PROTOCOL, h2_error(h->session), c->pending);
                conn_fail(c, STATS_ERR_PROTOCOL);
                return false;
            }
            if (n == 0) {
                drained = true;
                break;
            }
            h2c_append(&h->out, &h->out_len, &h->out_cap, p, (size_t)n);
        }
        if (h->out_off == h->out_len)
            break;
        size_t w = 0, left = h->out_len - h->out_off;
        const char *p = h->out + h->out_off;
        enum net_status st = conn_io_write(c, p, left, &w);
        if (st == NET_OK) {
            sh->stats->bytes_written += w;
            h->out_off += w;
            /* All written, and nothing more to ask for (a write changes
             * nothing in the session): done without asking again. */
            if (h->out_off == h->out_len && drained)
                break;
            continue;
        }
        if (st == NET_AGAIN || st == NET_WANT_WRITE) {
            conn_io_wait_write(c, st);
            return true;
        }
        conn_io_failed(c, STATS_ERR_WRITE);
        return false;
    }
    if (ev_is_active(&c->wio))
        ev_io_stop(sh->loop, &c->wio);
    return true;
}

/* Opens streams while the connection has room and the budget lasts. */
static void fill(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    struct h2_conn *h = H(c);
    uint32_t room = sh->streams, peer = h2_peer_max_streams(h->session);
    if (peer < room)
        room = peer;
    /* A server that allows 0 streams (in its first SETTINGS or lowered to
     * 0 later, whatever it answered before) still gets one request, which
     * waits in its slot (nghttp2 holds it until the limit rises): its
     * --timeout gives the connection up (h2_timer). With none waiting,
     * nothing would ever end the connection, nor the run. */
    if (room == 0)
        room = 1;
    if (c->pending > sh->stats->h2_max_streams)
        sh->stats->h2_max_streams = c->pending;
    h->filling = true;
    /* A flow's user: its batch's next requests, or its next one when the
     * last ended. */
    if (sh->flow && c->state == CONN_OPEN && !h->goaway && room > 0)
        conn_flow_fill(c, room);
    while (!sh->flow && c->state == CONN_OPEN && !h->goaway && c->pending < room && sh->budget > 0 && !sh->script_error[0]) {
        if (sh->sched) {
            /* Free streams beyond those already waiting on the schedule
             * take what is due, and wait when nothing is. */
            if (c->pending + sched_parked(sh->sched, c->id) >= room)
                break;
            int64_t due;
            if (!sched_take(sh->sched, clock_now_ns(), &due)) {
                while (c->pending + sched_parked(sh->sched, c->id) < room && sched_park(sh->sched, c->id))
                    ;
                break;
            }
            c->t_intended = due;
        }
        conn_begin_request(c, clock_now_ns());
    }
    h->filling = false;
    if (c->pending > sh->stats->h2_max_streams)
        sh->stats->h2_max_streams = c->pending;
}

/* After streams ended: more requests, or the connection's end. */
/* Whether nghttp2 ended c's session (after the server's GOAWAY with
 * nothing left, or after a fault it answered with its own GOAWAY); the
 * connection is then let go (lost). */
static bool ended(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    struct h2_conn *h = H(c);
    if (!h2_finished(h->session))
        return false;
    if (!h->goaway && c->pending > 0)
        stats_kind_reason(sh->stats, STATS_ERR_PROTOCOL,
                          h2_error(h->session)[0] ? h2_error(h->session) : "the HTTP/2 session ended", c->pending);
    lost(c, h->goaway, STATS_ERR_PROTOCOL);
    return true;
}

static void after_streams(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    struct h2_conn *h = H(c);
    if (c->state != CONN_OPEN)
        return;
    if (h->goaway && open_on_wire(c) == 0) {
        /* Drained after GOAWAY: a new connection takes the retried
         * streams and the rest. */
        lost_read(c, true, "closed after GOAWAY with streams open");
        return;
    }
    if (!sh->keepalive && c->pending == 0) {
        /* --no-keepalive: a connection for each request. */
        conn_close_socket(c, true);
        ev_timer_stop(sh->loop, &c->timer);
        conn_next_request(c, clock_now_ns());
        return;
    }
    if (ended(c))
        return;
    /* Streams to send again (refused) open first; new streams wait for
     * the server's SETTINGS (its stream limit). */
    int64_t now = 0;
    for (uint32_t i = 0; !h->goaway && i < sh->streams; i++) {
        struct h2_stream *st = &h->streams[i];
        if (!st->active || st->id != 0)
            continue;
        if (st->t_retry) { /* refused: waits its backoff */
            if (!now)
                now = clock_now_ns();
            if (st->t_retry > now)
                continue;
            st->t_retry = 0;
        }
        if (!h2c_submit(c, st))
            h2c_stream_failed(c, st, STATS_ERR_PROTOCOL);
    }
    if (sh->keepalive && h->settings)
        fill(c);
    if (c->pending == 0 && sh->budget == 0 && !c->flow_live) {
        conn_close_socket(c, true);
        ev_timer_stop(sh->loop, &c->timer);
        c->state = CONN_IDLE;
        if (sh->in_flight == 0 && sh->live_iters == 0)
            ev_break(sh->loop, EVBREAK_ALL);
        return;
    }
    if (c->state == CONN_OPEN && flush(c) && !ended(c))
        arm_deadline(c);
}

static void h2_ready(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    struct h2_conn *h = H(c);
    h->session = h2_session_new(sh->script_response || sh->flow ? &h2c_events : &h2c_events_no_fields, c, sh->window, S(sh)->pool);
    if (!h->session) {
        fprintf(stderr, "volley: out of memory (nghttp2 session)\n");
        abort();
    }
    h->goaway = h->settings = h->broken = h->answered = false;
    h->last_id = INT32_MAX;
    h->goaway_error = 0;
    c->state = CONN_OPEN;
    sh->stats->h2_connections++;
    after_streams(c); /* opens the queued streams */
}

static void h2_readable(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    struct h2_conn *h = H(c);
    if (c->write_wants_read && !flush(c))
        return;
    for (;;) {
        size_t n;
        enum net_status st = conn_io_read(c, sh->rbuf, sh->rbuf_size, &n);
        if (st == NET_AGAIN)
            break;
        if (st == NET_WANT_WRITE) {
            c->read_wants_write = true;
            ev_io_start(sh->loop, &c->wio);
            break;
        }
        if (st == NET_ERROR || n == 0) {
            /* The connection ended: streams GOAWAY left unprocessed are
             * retried; the others failed. */
            int err = 0;
            const char *reason = st == NET_ERROR ? conn_io_reason(c, &err) : NULL;
            if (reason && !err) {
                stats_kind_reason(sh->stats, STATS_ERR_TLS, reason, c->pending);
                lost(c, false, STATS_ERR_TLS);
            } else {
                char buf[96];
                lost_read(c, false,
                          st == NET_ERROR ? conn_read_errno_reason(err, buf, sizeof buf) : "closed with streams open");
            }
            return;
        }
        sh->stats->bytes_read += n;
        h->now = clock_now_ns(); /* the time each event completed by this read is given */
        h->in_call = true;
        int rc = h2_recv(h->session, sh->rbuf, n);
        h->in_call = false;
        if (h->closed) { /* a hook failed inside: the run is ending */
            end_session(c);
            return;
        }
        if (rc < 0 || h->broken) {
            stats_kind_reason(sh->stats, STATS_ERR_PROTOCOL, h2_error(h->session), c->pending);
            flush(c); /* nghttp2's GOAWAY tells the server why */
            if (c->state == CONN_OPEN)
                conn_fail(c, STATS_ERR_PROTOCOL);
            return;
        }
        if (!conn_io_more(c, n))
            break;
    }
    after_streams(c);
}

static void h2_writable(struct conn *c)
{
    if (c->read_wants_write) {
        c->read_wants_write = false;
        h2_readable(c);
        return;
    }
    if (flush(c))
        arm_deadline(c);
}

/* Why no stream can open on c (no SETTINGS yet, or a limit of 0), or NULL. */
static const char *cannot_open(struct conn *c)
{
    struct h2_conn *h = H(c);
    if (!h->settings)
        return "no SETTINGS from the server within the timeout";
    if (h->session && h2_peer_max_streams(h->session) == 0)
        return "the server allows 0 streams";
    return NULL;
}

static void h2_timer(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    struct h2_conn *h = H(c);
    int64_t now = clock_now_ns();
    /* A request's time ran out on a connection where no stream can open:
     * the connection is given up, its requests fail with the reason, and
     * the next one waits the connect backoff (a server that never sends
     * SETTINGS, or allows 0 streams, is not asked again at once). */
    const char *why = cannot_open(c);
    for (uint32_t i = 0; why && i < sh->streams; i++) {
        const struct h2_stream *st = &h->streams[i];
        if (st->active && now - h2c_deadline_base(st) >= st->timeout_ns) {
            stats_kind_reason(sh->stats, STATS_ERR_PROTOCOL, why, c->pending);
            conn_fail_backoff(c, STATS_ERR_PROTOCOL);
            return;
        }
    }
    for (uint32_t i = 0; i < sh->streams; i++) {
        struct h2_stream *st = &h->streams[i];
        if (!st->active || now - h2c_deadline_base(st) < st->timeout_ns)
            continue;
        if (st->id > 0 && h->session)
            h2_cancel(h->session, st->id); /* forgets st: its slot may be reused at once */
        st->id = -1; /* its close, if any, is ignored */
        h2c_stream_failed(c, st, STATS_ERR_TIMEOUT);
    }
    after_streams(c);
}

const struct framing_ops framing_h2 = {
    .name = "HTTP/2",
    .alpn = "h2",
    .multiplexed = true,
    .shared_new = h2c_shared_new,
    .shared_free = h2c_shared_free,
    .init = h2c_init,
    .free = h2c_free,
    .start = h2_start,
    .connecting = h2_connecting,
    .ready = h2_ready,
    .readable = h2_readable,
    .writable = h2_writable,
    .timer = h2_timer,
    .end = h2_end,
    .closed = h2_closed,
    .requeue = h2_requeue,
    .reconnect = h2_reconnect,
};
