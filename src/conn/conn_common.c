/* What every file of the connection state machine uses, below them all
 * (the entry, conn.c, calls its pieces, and no piece calls back; shared/
 * STYLE.md, "Folders and seams"): a slot made ready, its socket closed,
 * its timer armed, a connection gone idle, --one-first's release, a hook's
 * failure, and a request handed to the framing. It calls nothing of
 * src/conn/ but itself. Nothing here allocates but the slot's state, made
 * once by conn_slot_init. */
#include "conn.h"

#include "conn_internal.h"

/* The slot's framing for its next socket: the worker's own. */
static void framing_reset(struct conn *c)
{
    c->fr = conn_framing(c);
    c->fs = c->fs_own[0];
}

void conn_close_socket(struct conn *c, bool clean)
{
    c->table_open = false; /* a scenario's next request opens a new conn table */
    if (c->fd < 0)
        return;
    if (c->fr->closed)
        c->fr->closed(c);
    framing_reset(c); /* the next socket's handshake chooses again */
    ev_io_stop(c->sh->loop, &c->rio);
    ev_io_stop(c->sh->loop, &c->wio);
    conn_transport(c)->close(c->tps, c->fd, clean);
    c->write_wants_read = c->read_wants_write = false;
    c->fd = -1;
}

void conn_arm_timer(struct conn *c, double after)
{
    ev_timer_stop(c->sh->loop, &c->timer);
    ev_timer_set(&c->timer, after, 0.);
    ev_timer_start(c->sh->loop, &c->timer);
}

void conn_arm_deadline(struct conn *c, int64_t at, int64_t now)
{
    int64_t left = at - now;
    /* ev_timer_remaining counts from the loop's cached time, which is no
     * later than now: an armed timer within left fires by at. */
    if (ev_is_active(&c->timer) && ev_timer_remaining(c->sh->loop, &c->timer) * 1e9 <= (double)left)
        return;
    conn_arm_timer(c, left > 0 ? (double)left / 1e9 : 0.);
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

/* A hook failed (the message is in sh->script_error): nothing more can be
 * sent. The worker stops the run (worker.c); requests still in flight on c
 * are cut off, as they would be by a stop. */
void conn_script_failed(struct conn *c)
{
    struct conn_shared *sh = c->sh;
    c->fr->end(c, &(struct conn_ending){.cut_off = true});
    sh->stats->cut_off += c->pending;
    sh->in_flight -= c->pending;
    c->pending = 0;
    conn_go_idle(c);
    ev_break(sh->loop, EVBREAK_ALL);
}

void conn_start_request(struct conn *c, int64_t now, unsigned depth)
{
    c->t_sent = 0; /* -R: its first byte's time, which the framing sets when it goes */
    c->fr->start(c, now, depth);
}

void conn_slot_init(struct conn *c, struct conn_shared *sh, uint32_t id, uint8_t origin, conn_io_cb on_read,
                    conn_io_cb on_write, conn_timer_cb on_timer)
{
    c->sh = sh;
    c->origin = origin;
    c->fd = -1;
    c->state = CONN_IDLE;
    c->id = id;
    c->backoff = 0;
    c->pending = 0;
    c->name = 0;
    c->timeout_ns = sh->timeout_ns;
    c->flow_live = false;
    c->user = NULL;
    c->item = -1;
    c->table_open = false;
    ev_init(&c->rio, on_read);
    ev_init(&c->wio, on_write);
    ev_init(&c->timer, on_timer);
    ev_timer_set(&c->timer, 0., 0.);
    const struct transport_ops *tp = conn_transport(c);
    void *ctx = origin ? sh->origins[origin].transport_ctx : sh->transport_ctx;
    c->tps = tp->conn_new ? tp->conn_new(ctx) : NULL;
    c->write_wants_read = c->read_wants_write = false;
    c->fs_own[0] = conn_framing(c)->init(c);
    c->fs_own[1] = sh->fallback && !origin ? sh->fallback->init(c) : NULL; /* another origin's: HTTP/1.1 */
    framing_reset(c);
}
