/* A flow's users on their connections (a scenario with user(u)): each
 * connection slot is a virtual user whose coroutine (script_flow_*) says
 * what comes next: a request, a batch of requests, a sleep, or the end of
 * its iteration. Iterations are counted here and started as the load says
 * (closed: at once; -R: when the schedule hands one over). A batch goes out
 * together: over HTTP/2 as streams of the user's connection, over HTTP/1.1
 * on the user's connection and up to CONN_FLOW_LANES more of its own (its
 * lanes, made at its first batch and kept open between batches), each
 * item's response copied for the user as it ends. A request to another
 * origin (--allow-host) goes on the user's connection to it, one per
 * origin, made when the user first reaches it, kept open between its
 * requests (the user's own waits meanwhile) and closed when the user
 * leaves. Nothing here allocates once a user's lanes, other origins'
 * connections and batch have grown to their size. */
#include "conn.h"

#include "clock.h"
#include "conn_cap.h"
#include "conn_flow_user.h"
#include "conn_internal.h"
#include "xalloc.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void on_granted(struct conn_cap_wait *w, int64_t now);

/* Over a multiplexed connection: the user's sleep is over. */
static void on_pause(EV_P_ ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    struct conn_user *u = (struct conn_user *)((char *)w - offsetof(struct conn_user, pause));
    u->paused = false;
    conn_flow_next(u->conn, clock_now_ns()); /* what conn_next_request does for a flow */
}

/* The user that c works for: c's own (made now, at its first step), or,
 * c a lane, its owner's. */
static struct conn_user *user_of(struct conn *c)
{
    if (!c->user) {
        struct conn_user *u = c->user = xcalloc(1, sizeof *u);
        u->conn = c;
        u->wait.granted = on_granted;
        ev_init(&u->pause, on_pause);
    }
    return c->user;
}

unsigned conn_flow_slot(const struct conn *c)
{
    return c->user ? c->user->conn->id : c->id;
}

/* Whether c's requests go as streams of one connection (HTTP/2). */
static bool multiplexed(const struct conn *c)
{
    return c->fr->multiplexed;
}

/* A flow's user waits secs before its next step (at least secs): over HTTP/1 in
 * CONN_DELAY (a server that closes the idle socket meanwhile is reconnected
 * by the next request); over HTTP/2 on the pause timer, the connection left
 * in its state, where the server's frames (PING, GOAWAY) are still read. */
static void flow_wait(struct conn *c, double secs)
{
    /* A wait counts from when it is asked, not from the loop's cached
     * time (older by whatever ran since the loop woke): so a u:sleep or a
     * wait rule's time is never cut short. */
    if (secs > 0)
        ev_now_update(c->sh->loop);
    if (multiplexed(c)) {
        struct conn_user *u = user_of(c);
        u->paused = true;
        ev_timer_set(&u->pause, secs, 0.);
        ev_timer_start(c->sh->loop, &u->pause);
        return;
    }
    c->state = CONN_DELAY;
    conn_arm_timer(c, secs);
}

/* c (the user's connection, or a lane) sends item i of the user's batch
 * (whose check, if any, conn_flow_answered finds in the item). */
static void carry(struct conn *c, uint32_t i, int64_t now)
{
    const struct conn_flow_item *it = &user_of(c)->batch->items[i];
    c->req = it->req;
    c->req_len = it->len;
    c->req_ix = CONN_REQ_HOOK;
    c->name = it->name;
    c->timeout_ns = it->timeout_ns > 0 ? it->timeout_ns : c->sh->timeout_ns;
    c->stream_asked = it->stream & SCRIPT_FLOW_STREAM_ASKED;
    c->stream_call = (it->stream & SCRIPT_FLOW_STREAM_CALL) != 0;
    c->item = (int32_t)i;
    conn_start_request(c, now, 1);
    if (multiplexed(c))
        c->item = -1; /* the stream keeps it; the connection carries many */
}

static void flow_next(struct conn *c, int64_t now);
static void flow_step(struct conn *c, int64_t now, enum script_flow_how how);
static void res_failed(struct conn *c, int32_t item, enum stats_error why);
static void refuse(struct conn *c, uint32_t name, int32_t item);

/* --max-rps: whether user u may send a request now: with a token its turn
 * gave it, or one taken now; else it waits in the cap's queue (once,
 * however often its carriers ask) until on_granted. Without the cap,
 * always. */
static bool cap_allows(struct conn_user *u, int64_t now)
{
    struct conn_cap *k = u->conn->sh->cap;
    if (!k)
        return true;
    if (u->token) {
        u->token = false;
        return true;
    }
    if (u->capped)
        return false;
    if (conn_cap_take(k, &u->wait, now))
        return true;
    u->capped = true;
    return false;
}

/* The user's batch (made at its first, grown to the largest) for n items
 * from its coroutine. */
static struct conn_flow_batch *batch_for(struct conn *c, unsigned n)
{
    struct conn_user *u = user_of(c);
    struct conn_flow_batch *b = u->batch;
    if (!b)
        b = u->batch = xcalloc(1, sizeof *b);
    if (n > b->cap) {
        b->items = xrealloc(b->items, n * sizeof *b->items);
        memset(b->items + b->cap, 0, (n - b->cap) * sizeof *b->items);
        b->ptrs = xrealloc(b->ptrs, n * sizeof *b->ptrs);
        b->cap = n;
    }
    for (unsigned i = 0; i < n; i++) {
        struct script_flow_item it;
        script_flow_item(c->sh->script, c->id, i, &it);
        struct conn_flow_item *d = &b->items[i];
        d->req = it.req;
        d->len = it.len;
        d->name = it.name;
        d->timeout_ns = it.timeout_ns;
        d->check = it.check;
        d->stream = it.stream;
        d->origin = it.origin;
        d->sent = false;
        d->res.error = 0;
        d->res.raw = NULL;
        d->res.raw_len = 0;
        b->ptrs[i] = &d->res;
    }
    b->n = n;
    b->next = b->ended = 0;
    b->live = true;
    return b;
}

/* The user's lanes, made at its first batch over HTTP/1: connections of
 * its own, numbered as it is (its source address, its figures' slot),
 * whose events go to the handlers of the user's connection (conn.c's). */
static void make_lanes(struct conn_user *u)
{
    struct conn *c = u->conn;
    if (u->lanes)
        return;
    u->lanes = xcalloc(CONN_FLOW_LANES, sizeof *u->lanes);
    for (int i = 0; i < CONN_FLOW_LANES; i++) {
        conn_slot_init(&u->lanes[i], c->sh, c->id, 0, ev_cb(&c->rio), ev_cb(&c->wio), ev_cb(&c->timer));
        u->lanes[i].user = u;
    }
}

/* The user's connection to other origin id (made now, at its first use):
 * numbered as the user's own, its events going to the handlers of the
 * user's connection, as a lane's do. */
static struct conn *away_conn(struct conn_user *u, unsigned id)
{
    struct conn *c = u->conn;
    if (!u->away[id]) {
        struct conn *k = u->away[id] = xcalloc(1, sizeof *k);
        conn_slot_init(k, c->sh, c->id, (uint8_t)id, ev_cb(&c->rio), ev_cb(&c->wio), ev_cb(&c->timer));
        k->user = u;
    }
    return u->away[id];
}

/* Whether carrier c may take an item now: a connection of HTTP/2 while it
 * holds fewer than room streams (in its backoff too: they wait for its
 * reconnect); one of HTTP/1.1 when it carries nothing and is not waiting
 * out a connect backoff (it takes one when the backoff ends). */
/* Whether c's framing is c's for good: it is open, or no handshake can
 * still hand it to a fallback (sh->fallback is NULL where none can: TCP,
 * --http2=strict). */
static bool framing_settled(const struct conn *c)
{
    return c->state == CONN_OPEN || !c->sh->fallback;
}

static bool carrier_free(const struct conn *c, uint32_t room)
{
    /* Until its handshake has chosen (the fallback, HTTP/1.1, takes over
     * one request: framing.h's requeue), a connection carries one; the
     * rest go when it is open (its fill) or, after a fallback, one after
     * another and on lanes. */
    if (multiplexed(c))
        return c->pending < (framing_settled(c) ? room : 1);
    return c->pending == 0 && c->state != CONN_BACKOFF;
}

/* A carrier of the user's free now for item it (room: as hand_out's):
 * for the target, the user's connection or a lane; for another origin,
 * the user's connection to it. NULL: none is. */
static struct conn *free_carrier(struct conn_user *u, const struct conn_flow_item *it, uint32_t room)
{
    struct conn *c = u->conn;
    if (it->origin) {
        struct conn *k = away_conn(u, it->origin);
        return carrier_free(k, 1) ? k : NULL;
    }
    if (carrier_free(c, room))
        return c;
    for (int i = 0; u->lanes && !multiplexed(c) && i < CONN_FLOW_LANES; i++)
        if (carrier_free(&u->lanes[i], room))
            return &u->lanes[i];
    return NULL;
}

/* The user's free carriers (its connection, and over HTTP/1.1 its lanes;
 * its connection to another origin for that origin's items) take the
 * batch's items not yet sent, in order (an item whose carrier is busy
 * waits, the later ones may go); once every item has ended, the user goes
 * on with their responses (room: streams the user's connection may hold).
 *
 * One hand-out at a time per batch. A carry may end its request at once
 * (a connect refused on the spot, no local port left, a write that
 * fails) and come back here through conn_flow_next: that inner call only
 * marks a carrier freed, and the loop below goes round again, so no item
 * is taken twice or past the batch's end, the stack does not grow with
 * the batch, and the user's next step (which may start another batch on
 * the same items) never runs under a loop that is still handing out this
 * one. An HTTP/2 connection's fill inside a carry, which has room for
 * more streams, takes them there (its frames go out together), and
 * leaves the batch's end to the outer call. */
static void hand_out(struct conn_user *u, uint32_t room, int64_t now)
{
    struct conn *c = u->conn;
    struct conn_flow_batch *b = u->batch;
    if (b->handing) {
        b->freed = true;
        for (uint32_t i = b->next; multiplexed(c) && i < b->n && carrier_free(c, room); i++) {
            struct conn_flow_item *it = &b->items[i];
            if (!it->sent && !it->origin) {
                if (!cap_allows(u, now))
                    break;
                it->sent = true;
                carry(c, i, now);
            }
        }
        return;
    }
    b->handing = true;
    if (!multiplexed(c) && b->n > 1)
        make_lanes(u); /* also after a fallback from HTTP/2 (none was made then) */
    do {
        b->freed = false;
        for (uint32_t i = b->next; i < b->n; i++) {
            struct conn_flow_item *it = &b->items[i];
            if (it->sent)
                continue;
            if (it->origin == SCRIPT_FLOW_REFUSED) {
                it->sent = true;
                refuse(c, it->name, (int32_t)i);
                continue;
            }
            if (it->origin && !conn_origin_get(c->sh, it->origin)) {
                it->sent = true; /* its origin cannot be reached: failed, not sent */
                res_failed(c, (int32_t)i, STATS_ERR_CONNECT);
                continue;
            }
            struct conn *k = free_carrier(u, it, room);
            if (!k)
                continue;
            if (!cap_allows(u, now))
                break; /* on_granted hands out the rest */
            it->sent = true;
            carry(k, i, now);
        }
        while (b->next < b->n && b->items[b->next].sent)
            b->next++;
    } while (b->freed && b->next < b->n);
    b->handing = false;
    if (b->ended == b->n && b->live && c->pending == 0) {
        b->live = false;
        flow_step(c, now, SCRIPT_FLOW_STEP);
    }
}

/* The user of c sends a batch of n requests: over HTTP/2 as streams of
 * its connection, as many as it may open (the rest as streams end:
 * conn_flow_fill); over HTTP/1.1 on its connection and its lanes. */
static void batch_start(struct conn *c, unsigned n, int64_t now)
{
    batch_for(c, n);
    hand_out(user_of(c), c->sh->streams, now);
}

/* A carrier of the user's batch (the user's connection or a lane) is free:
 * the next item goes out on it, or on any carrier free; it waits with its
 * socket open for the next batch when none is left (an HTTP/2 connection
 * stays in its state). */
static void carrier_next(struct conn *c, int64_t now)
{
    c->item = -1;
    if (!multiplexed(c) && c->state != CONN_BACKOFF)
        c->state = CONN_WAIT;
    hand_out(user_of(c), c->sh->streams, now);
}

void conn_flow_fill(struct conn *c, uint32_t room)
{
    struct conn_user *u = user_of(c);
    struct conn_flow_batch *b = u->batch;
    int64_t now = clock_now_ns();
    if (b && b->live) {
        hand_out(u, room, now);
        return;
    }
    if (c->pending == 0)
        conn_flow_next(c, now); /* what conn_next_request does for a flow */
}

/* The user's lanes and its connections to other origins close (its
 * iterations are over). */
static void lanes_idle(struct conn *c)
{
    struct conn_user *u = user_of(c);
    for (int i = 0; u->lanes && i < CONN_FLOW_LANES; i++)
        conn_go_idle(&u->lanes[i]);
    for (unsigned id = 1; id <= SCRIPT_FLOW_ORIGINS; id++)
        if (u->away[id])
            conn_go_idle(u->away[id]);
}

/* A request of the user of c that may not go (SCRIPT_FLOW_REFUSED; item:
 * its place in the batch, or -1) is counted started and failed by
 * validation (its reason counted by the script), unsent. */
static void refuse(struct conn *c, uint32_t name, int32_t item)
{
    struct stats *s = c->sh->stats;
    s->started++;
    s->batches++; /* a batch of one, as conn_count_started counts a request */
    stats_name_started(s, name, 1);
    s->errors[STATS_ERR_VALIDATION]++;
    stats_name_fail(s, name, STATS_ERR_VALIDATION, 1, 0, false, 0);
    res_failed(c, item, STATS_ERR_VALIDATION);
}

/* The user's connection to other origin id for its request, the user's
 * own waiting meanwhile (as a lane between batches: a server that closes
 * it is seen); NULL when the origin cannot be reached. */
static struct conn *away_for(struct conn_user *u, unsigned id)
{
    struct conn *c = u->conn;
    if (id == SCRIPT_FLOW_REFUSED || !conn_origin_get(c->sh, id))
        return NULL;
    if (!multiplexed(c) && c->state == CONN_OPEN)
        c->state = CONN_WAIT;
    return u->carrying = away_conn(u, id);
}

/* k (the user's own connection, or its connection to another origin; NULL:
 * that origin cannot be reached, and the request fails unsent, the user
 * going on after a turn of the loop) sends the user's request st. */
static void request_on(struct conn_user *u, struct conn *k, const struct script_flow_step *st, int64_t now)
{
    if (!k) {
        res_failed(u->conn, -1, STATS_ERR_CONNECT);
        flow_wait(u->conn, 0);
        return;
    }
    k->req = st->req;
    k->req_len = st->len;
    k->req_ix = CONN_REQ_HOOK;
    k->name = st->name;
    k->stream_asked = st->stream & SCRIPT_FLOW_STREAM_ASKED;
    k->stream_call = (st->stream & SCRIPT_FLOW_STREAM_CALL) != 0;
    k->item = -1;
    k->timeout_ns = st->timeout_ns > 0 ? st->timeout_ns : k->sh->timeout_ns;
    if (!cap_allows(u, now)) {
        /* Until its turn (on_granted, which starts it on u->carrying or the
         * user's own) the socket stays open, as a user's between
         * iterations; HTTP/2 stays in its state. */
        if (!multiplexed(k) || k->state != CONN_OPEN)
            k->state = CONN_WAIT;
        return;
    }
    conn_start_request(k, now, 1);
}

/* The user of c goes idle (it left, or the run is over); the last user
 * of a spent budget to go ends the worker's loop. */
static void leave(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    conn_go_idle(c);
    lanes_idle(c);
    if (sh->budget == 0 && sh->in_flight == 0 && sh->live_iters == 0)
        ev_break(sh->loop, EVBREAK_ALL);
}

/* The longest wait a rule may ask for (as u:sleep's: 100 days). */
#define THINK_MAX (100. * 24 * 3600)

/* The user of c takes its next step (the coroutine resumed; how: a new
 * iteration, a step over, or the user leaving). A request goes out as any
 * other; a batch on its carriers; a sleep waits; on_start's end restarts
 * the iteration's clock; an iteration's end is counted, and the next
 * begins after the wait rule's time (or after a turn of the loop when it
 * did nothing, so that a user() that makes no request cannot hold the
 * loop); the end of on_stop is no iteration: the user goes idle. */
static void flow_step(struct conn *c, int64_t now, enum script_flow_how how)
{
    struct conn_shared *sh = c->sh;
    struct script_flow_step st;
    if (sh->script_error[0]) {
        conn_go_idle(c);
        return;
    }
    struct conn_user *u = user_of(c);
    struct conn_flow_batch *b = u->batch;
    bool answers = how == SCRIPT_FLOW_STEP && b && b->n; /* the batch that just ended, for the coroutine */
    for (;;) {
        if (script_flow_resume(sh->script, c->id, how, answers ? b->ptrs : NULL, answers ? b->n : 0, &st,
                               sh->script_error, sh->script_error_len) < 0) {
            conn_script_failed(c);
            return;
        }
        if (st.act != SCRIPT_FLOW_BEGIN)
            break;
        if (!sh->iter_sched) /* -R: the iteration stays timed from when it was due */
            u->t_iter = clock_now_ns();
        how = SCRIPT_FLOW_STEP;
        answers = false;
    }
    if (b)
        b->n = 0;
    switch (st.act) {
    case SCRIPT_FLOW_REQUEST:
        u->check = st.check;
        if (st.origin == SCRIPT_FLOW_REFUSED) {
            refuse(c, st.name, -1);
            flow_wait(c, 0); /* the user goes on after a turn of the loop */
            return;
        }
        request_on(u, st.origin ? away_for(u, st.origin) : c, &st, now);
        return;
    case SCRIPT_FLOW_BATCH:
        batch_start(c, st.n, now);
        return;
    case SCRIPT_FLOW_SLEEP:
        flow_wait(c, st.ms / 1e3);
        return;
    case SCRIPT_FLOW_END:
    case SCRIPT_FLOW_BEGIN:
        break;
    }
    c->flow_live = false;
    sh->live_iters--;
    if (u->stopping) {
        u->stopping = false;
        u->stopped = true;
        leave(c);
        return;
    }
    struct stats_flow *f = &sh->stats->flow;
    int64_t end = clock_now_ns();
    if (st.failed) {
        f->failed++;
    } else {
        stats_flow_completed(f, end, end - u->t_iter);
    }
    u->think = st.wait_ms > 0 ? (st.wait_ms < THINK_MAX * 1e3 ? st.wait_ms / 1e3 : THINK_MAX) : 0;
    if (!st.io && u->think == 0) {
        flow_wait(c, 0);
        return;
    }
    flow_next(c, end);
}

static void flow_begin(struct conn *c, int64_t now)
{
    struct conn_shared *sh = c->sh;
    struct conn_user *u = user_of(c);
    u->parked = false;
    sh->budget--;
    if (sh->iter_sched) {
        sh->stats->arrivals++;
        stats_flow_started_late(&sh->stats->flow, now - u->t_iter); /* t_iter: its due time */
    }
    sh->stats->flow.started++;
    sh->live_iters++;
    c->flow_live = true;
    u->stopped = false;
    flow_step(c, now, SCRIPT_FLOW_START);
}

void conn_flow_send(struct conn *c, int64_t intended, int64_t now)
{
    user_of(c)->t_iter = intended;
    flow_begin(c, now);
}

static void flow_next(struct conn *c, int64_t now)
{
    struct conn_shared *sh = c->sh;
    struct conn_user *u = user_of(c);
    /* An HTTP/2 connection asks for its next request whenever its streams
     * move (framing/h2_conn.c's fill): a user asleep or waiting on the schedule is
     * woken by its own timer or by the schedule instead. */
    if (u->paused || u->parked || u->carrying || u->capped)
        return;
    if (u->holding) { /* its wait rule's time is over */
        u->holding = false;
        sh->live_iters--;
    }
    if (c->flow_live) {
        flow_step(c, now, SCRIPT_FLOW_STEP);
        return;
    }
    /* Users leave between iterations (--stages), and when the budget of
     * iterations is spent; a user that ran an iteration runs its on_stop
     * first (as a step that is no iteration: live, so the loop waits for
     * it), once until it begins again. */
    if (c->id >= sh->active || sh->budget == 0 || sh->script_error[0]) {
        u->think = 0;
        if (!sh->script_error[0] && !u->stopped && script_flow_has_user(sh->script, c->id)) {
            u->stopping = true;
            c->flow_live = true;
            sh->live_iters++;
            flow_step(c, now, SCRIPT_FLOW_STOP);
            return;
        }
        leave(c);
        return;
    }
    /* The wait rule's time after the last iteration (volley.wait): the
     * user comes back here when it is over, and may leave then. */
    if (u->think > 0) {
        double secs = u->think;
        u->think = 0;
        if (script_flow_stops(sh->script)) {
            /* the run's end (a spent budget) waits for it: it leaves then,
             * with its on_stop */
            u->holding = true;
            sh->live_iters++;
        }
        flow_wait(c, secs);
        return;
    }
    if (sh->iter_sched) {
        if (!sched_take(sh->iter_sched, now, &u->t_iter)) {
            /* The user's socket stays open while it waits; an HTTP/2
             * connection stays in its state, reading the server's frames. */
            if (!multiplexed(c) || c->state != CONN_OPEN)
                c->state = CONN_WAIT;
            u->parked = sched_park(sh->iter_sched, c->id);
            return;
        }
    } else {
        u->t_iter = now;
    }
    flow_begin(c, now);
}

/* --max-rps: user u's turn has come (the cap's timer; the token is its):
 * its request goes out, or its batch's next item (the token kept until a
 * carrier is free, if none is). */
static void on_granted(struct conn_cap_wait *w, int64_t now)
{
    struct conn_user *u = (struct conn_user *)((char *)w - offsetof(struct conn_user, wait));
    struct conn *c = u->conn;
    u->capped = false;
    if (u->batch && u->batch->live) {
        u->token = true;
        hand_out(u, c->sh->streams, now);
        return;
    }
    if (c->sh->script_error[0]) {
        conn_go_idle(c);
        return;
    }
    conn_start_request(u->carrying ? u->carrying : c, now, 1); /* request_on's carrier */
}

void conn_flow_next(struct conn *c, int64_t now)
{
    struct conn_user *u = user_of(c);
    if (u->batch && u->batch->live) {
        carrier_next(c, now);
        return;
    }
    if (u->carrying == c) { /* its request to another origin ended: the user goes on */
        u->carrying = NULL;
        c->item = -1;
        if (c->state != CONN_BACKOFF)
            c->state = CONN_WAIT; /* its socket, if open, kept for the user's next request there */
        flow_next(u->conn, now);
        return;
    }
    if (u->conn != c) { /* a lane, or a connection to another origin, between batches (its
                         * request failed late) */
        conn_go_idle(c);
        return;
    }
    flow_next(c, now);
}

struct script_res *conn_flow_res(struct conn *c, int32_t item)
{
    if (item < 0)
        return &c->sh->flow_res[c->id];
    return &user_of(c)->batch->items[item].res;
}

bool conn_flow_answered(struct conn *c, int32_t item, const char *raw, size_t len, bool *failed)
{
    struct conn_user *u = user_of(c);
    struct script_res *r = conn_flow_res(c, item);
    bool check = u->check;
    if (item >= 0) {
        /* Copied: the carrier's buffer takes its next item's response. */
        struct conn_flow_item *it = &u->batch->items[item];
        if (len > it->cap) {
            it->cap = xgrow(it->cap, len, 512);
            it->buf = xrealloc(it->buf, it->cap);
        }
        memcpy(it->buf, raw, len);
        r->raw = it->buf;
        check = it->check;
        u->batch->ended++;
    }
    *failed = false;
    if (check && script_flow_check(c->sh->script, u->conn->id, item, r, failed, c->sh->script_error,
                                   c->sh->script_error_len) < 0)
        return false;
    conn_origin_count(c, *failed);
    return true;
}

/* The request carried by c (item: as conn_flow_res's) failed for why. */
static void res_failed(struct conn *c, int32_t item, enum stats_error why)
{
    struct script_res *r = conn_flow_res(c, item);
    r->error = (int32_t)why + 1;
    r->raw = NULL;
    r->raw_len = 0;
    r->serial++;
    if (item >= 0)
        user_of(c)->batch->ended++;
}

void conn_flow_failed(struct conn *c, int32_t item, enum stats_error why)
{
    res_failed(c, item, why);
    conn_origin_count(c, true);
}

struct conn *conn_flow_away(const struct conn *c, unsigned id)
{
    const struct conn_user *u = c->user;
    return u && u->conn == c && id <= SCRIPT_FLOW_ORIGINS ? u->away[id] : NULL;
}

struct conn *conn_flow_lanes(const struct conn *c)
{
    const struct conn_user *u = c->user;
    return u && u->conn == c ? u->lanes : NULL;
}

void conn_flow_stop(struct conn *c)
{
    struct conn_user *u = c->user;
    if (!u || u->conn != c) /* no user yet, or c is a lane: its owner stops the user */
        return;
    ev_timer_stop(c->sh->loop, &u->pause);
    u->paused = u->parked = u->capped = u->token = false;
    u->carrying = NULL;
    /* The run stops it: its on_stop or its wait are cut, and neither is
     * an iteration (conn_stop counts a live one as cut off). */
    if (u->stopping) {
        u->stopping = false;
        c->flow_live = false;
        c->sh->live_iters--;
    }
    if (u->holding) {
        u->holding = false;
        c->sh->live_iters--;
    }
}

void conn_flow_free(struct conn *c)
{
    struct conn_user *u = c->user;
    c->user = NULL;
    if (!u || u->conn != c)
        return;
    ev_timer_stop(c->sh->loop, &u->pause);
    free(u->lanes); /* each freed already by conn_free */
    for (unsigned id = 1; id <= SCRIPT_FLOW_ORIGINS; id++)
        free(u->away[id]); /* likewise */
    struct conn_flow_batch *b = u->batch;
    if (b) {
        for (uint32_t i = 0; i < b->cap; i++)
            free(b->items[i].buf);
        free(b->items);
        free(b->ptrs);
        free(b);
    }
    free(u);
}
