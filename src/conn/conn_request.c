/* Starting requests on a connection: which request comes next (the
 * budget, the stages, the worker's hold while it opens its connections,
 * -R's schedule, a flow's user), the per-request hooks (connect(conn),
 * delay(), request()), the --targets pick, and the count of a request
 * started; then the framing sends it (framing.h). */
#include "conn.h"

#include "clock.h"
#include "conn_internal.h"
#include "http.h"
#include "rng.h"

static void begin_request(struct conn *c, int64_t now);

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
        /* Refused when c waits already: a multiplexed connection whose free
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

void conn_start(struct conn *c)
{
    next_request(c, clock_now_ns(), true);
}

void conn_send(struct conn *c, int64_t intended, int64_t now)
{
    if (c->sh->flow) {
        conn_flow_send(c, intended, now);
        return;
    }
    c->t_intended = intended;
    begin_request(c, now);
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

/* Starts a request on c now: its hooks, then the framing's start. */
static void begin_request(struct conn *c, int64_t now)
{
    struct conn_shared *sh = c->sh;
    c->req = sh->req;
    c->req_len = sh->req_len;
    c->req_ix = 0;
    c->name = sh->req_name;
    c->stream_asked = false;
    c->stream_call = false;
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
        c->stream_asked = script_request_streams(sh->script);
    } else if (sh->targets) {
        next_target(c);
    }
    conn_start_request(c, now, depth);
}

void conn_count_started(struct conn *c, unsigned depth, uint64_t cost)
{
    struct conn_shared *sh = c->sh;
    if (!sh->flow) /* a flow's budget counts iterations */
        sh->budget = sh->budget > cost ? sh->budget - cost : 0;
    if (sh->sched)
        sh->stats->arrivals++;
    sh->in_flight += depth;
    sh->stats->started += depth;
    sh->stats->batches++;
    stats_name_started(sh->stats, c->name, depth);
}
