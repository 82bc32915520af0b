/* The failure path of a connection (conn.c's state machine and the
 * framings come here): the requests in flight on it ended and counted as
 * failed by kind and reason (conn_end_requests, fail), the socket closed,
 * and the next request, after the connect backoff when the connect
 * failed; the reason of a failed I/O call (the transport's, or the
 * socket's errno); a target that refuses every connect for longer than
 * --timeout ends the worker. Nothing here allocates. */
#include "conn.h"

#include "clock.h"
#include "conn_internal.h"

#include <errno.h>
#include <string.h>

void conn_end_requests(struct conn *c, uint32_t name, int32_t item, unsigned n, const struct conn_ending *e)
{
    if (n == 0)
        return;
    if (e->cut_off) {
        stats_name_cut_off(c->sh->stats, name, n);
        return; /* the run is ending: the user is not resumed */
    }
    stats_name_fail(c->sh->stats, name, e->why, n, e->now, e->timed_out, e->latency);
    if (c->sh->flow)
        conn_flow_failed(c, item, e->why);
}

void conn_backoff(struct conn *c)
{
    c->backoff = c->backoff > 0 ? c->backoff * 2 : CONN_BACKOFF_FIRST;
    if (c->backoff > CONN_BACKOFF_MAX)
        c->backoff = CONN_BACKOFF_MAX;
    c->state = CONN_BACKOFF;
    conn_arm_timer(c, c->backoff);
}

/* The one place a connection's requests fail: every request still in
 * flight on it (a pipelined batch, every stream, a flow's batch items) is
 * ended by the framing (conn_end_requests: its name, its flow user) and
 * counted here as failed for why; then close and go on, after the connect
 * backoff when backoff is set (or the budget is spent: then at once). */
static void fail(struct conn *c, enum stats_error why, const char *reason, bool backoff)
{
    struct conn_shared *sh = c->sh;
    conn_release_rest(sh);
    bool timed_out = sh->sched && why == STATS_ERR_TIMEOUT && c->pending;
    int64_t now = timed_out ? clock_now_ns() : 0;
    if (timed_out)
        stats_timed_out(sh->stats, now, now - c->t_intended, c->t_sent ? c->t_sent - c->t_intended : -1, c->pending);
    c->fr->end(c, &(struct conn_ending){false, why, timed_out, now, now - c->t_intended});
    if (c->pending && sh->stats->shown.failures)
        errsamples_failed(&sh->stats->shown, now ? now : clock_now_ns(), why, reason);
    sh->stats->errors[why] += c->pending;
    sh->in_flight -= c->pending;
    c->pending = 0;
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
void conn_connect_failed(struct conn *c, int err)
{
    struct conn_shared *sh = c->sh;
    if (err == ETIMEDOUT)
        sh->stats->connect_timeouts += c->pending;
    /* Another host down is not the target gone: its requests fail, the
     * run goes on. */
    if (c->origin) {
        conn_fail(c, err == EADDRNOTAVAIL ? STATS_ERR_PORTS : STATS_ERR_CONNECT);
        return;
    }
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

/* Why an I/O call of c failed (writing: a write): the transport's reason
 * or NULL, *err the socket's errno (errno as the call left it, unless the
 * transport knows better). */
static const char *io_reason(struct conn *c, bool writing, int *err)
{
    const struct transport_ops *tp = conn_transport(c);
    *err = errno;
    return tp->failure ? tp->failure(c->tps, writing, c->sh->rbuf, c->sh->rbuf_size, err) : NULL;
}

const char *conn_io_reason(struct conn *c, int *err)
{
    return io_reason(c, false, err);
}

void conn_io_failed(struct conn *c, enum stats_error otherwise)
{
    int err;
    const char *reason = io_reason(c, otherwise == STATS_ERR_WRITE, &err);
    if (reason && !err) {
        fail_reason(c, TRANSPORT_FAILED, reason);
        return;
    }
    char buf[96];
    if (otherwise == STATS_ERR_READ)
        conn_fail_read(c, conn_read_errno_reason(err, buf, sizeof buf));
    else
        conn_fail(c, otherwise);
}

/* The handshake failed once connected: the transport's failure, with its
 * reason even when the socket failed (a reset in the handshake is the
 * server refusing it); in a tunnel's stage, a connect failure. */
void conn_handshake_failed(struct conn *c)
{
    int err;
    const char *reason = io_reason(c, false, &err);
    const struct transport_ops *tp = c->sh->transport;
    if (tp->tunnel_failed && tp->tunnel_failed(c->tps)) {
        /* A proxy that refused the tunnel: a connect failure, with the
         * proxy's answer as its reason, backed off as a refused connect. */
        if (c->pending)
            stats_kind_reason(c->sh->stats, STATS_ERR_CONNECT, reason ? reason : "proxy: CONNECT failed", c->pending);
        fail(c, STATS_ERR_CONNECT, reason, true);
        return;
    }
    if (reason)
        fail_reason(c, TRANSPORT_FAILED, reason);
    else
        conn_fail(c, TRANSPORT_FAILED);
}
