/* --max-rps's queue of waiting users on the worker's loop; see
 * conn_cap.h. One timer for the whole queue: it fires at the bucket's
 * next instant and hands that one token to the first waiter. */
#include "conn_cap.h"

#include "clock.h"

#include <stddef.h>

/* Arms the timer for the bucket's next instant (libev waits at least
 * that long; a wake a little early takes no token and arms again). */
static void arm(struct conn_cap *k, int64_t now)
{
    int64_t left = cap_next(&k->bucket) - now;
    ev_timer_set(&k->timer, left > 0 ? (double)left / 1e9 : 0., 0.);
    ev_timer_start(k->loop, &k->timer);
}

static void on_turn(EV_P_ ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    struct conn_cap *k = (struct conn_cap *)((char *)w - offsetof(struct conn_cap, timer));
    int64_t now = clock_now_ns();
    if (k->head && cap_take(&k->bucket, now)) {
        struct conn_cap_wait *first = k->head;
        k->head = first->next;
        if (!k->head)
            k->tail = NULL;
        first->next = NULL;
        hist_record(k->waits, now - first->since);
        /* It may want another token at once (a batch's next item): it
         * queues behind the others. */
        first->granted(first, now);
    }
    if (k->head && !ev_is_active(&k->timer))
        arm(k, now);
}

void conn_cap_init(struct conn_cap *k, struct ev_loop *loop, double rate, struct hist *waits)
{
    cap_init(&k->bucket, rate);
    ev_init(&k->timer, on_turn);
    k->loop = loop;
    k->head = k->tail = NULL;
    k->waits = waits;
}

bool conn_cap_take(struct conn_cap *k, struct conn_cap_wait *w, int64_t now)
{
    if (!k->head && cap_take(&k->bucket, now))
        return true;
    w->since = now;
    w->next = NULL;
    if (k->tail)
        k->tail->next = w;
    else
        k->head = w;
    k->tail = w;
    if (!ev_is_active(&k->timer))
        arm(k, now);
    return false;
}

void conn_cap_stop(struct conn_cap *k)
{
    if (k->loop)
        ev_timer_stop(k->loop, &k->timer);
    k->head = k->tail = NULL;
}
