/* --max-rps over a worker's flow users: the worker's share of the cap
 * (cap.h's bucket) and the users waiting their turn, in the order they
 * came, on one timer of the worker's loop. A user whose request finds no
 * token waits here without blocking the loop, as in u:sleep; its request
 * is sent, and its latency starts, when its turn comes. */
#ifndef VOLLEY_CONN_CAP_H
#define VOLLEY_CONN_CAP_H

#include "cap.h"
#include "hist.h"

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

/* A waiter, embedded in what waits (a flow's user). */
struct conn_cap_wait {
    struct conn_cap_wait *next;
    int64_t since;       /* when it began to wait */
    void (*granted)(struct conn_cap_wait *w, int64_t now); /* its turn: one send, now */
};

/* The worker's; fields are conn_cap.c's. */
struct conn_cap {
    struct cap bucket;
    ev_timer timer;      /* armed while someone waits: the bucket's next instant */
    struct ev_loop *loop;
    struct conn_cap_wait *head, *tail;
    struct hist *waits;  /* each wait's length, ns (the worker's stats; not owned) */
};

/* Sets up k for rate sends per second (this worker's share) on loop,
 * recording each wait into waits. */
void conn_cap_init(struct conn_cap *k, struct ev_loop *loop, double rate, struct hist *waits);

/* A send wants to go at now: true if it may (its token taken); false if w
 * now waits (w->granted set by the caller; called from the loop when its
 * turn comes, the token taken for it). Waiters go first come, first
 * served: none passes another. */
bool conn_cap_take(struct conn_cap *k, struct conn_cap_wait *w, int64_t now);

/* Stops the timer and forgets the waiters (the run has ended). */
void conn_cap_stop(struct conn_cap *k);

#endif
