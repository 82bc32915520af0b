/* What conn_flow.c keeps for a flow's user beyond its connection: the
 * user itself, its batch and the batch's items. Private to conn_flow.c
 * (its own header, so that the file holds the behaviour and this one the
 * state it works on). */
#ifndef VOLLEY_CONN_FLOW_USER_H
#define VOLLEY_CONN_FLOW_USER_H

#include "conn_cap.h"
#include "conn_internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One request of a batch, and its outcome for the user. */
struct conn_flow_item {
    const char *req;        /* on the user's coroutine's stack until it is resumed */
    size_t len;
    uint32_t name;
    int64_t timeout_ns;
    bool check;
    uint8_t stream;         /* SCRIPT_FLOW_STREAM bits */
    uint8_t origin;         /* 0 the target, else the other origin it goes to */
    bool sent;              /* handed to a carrier (or failed without one) */
    struct script_res res;  /* its response, or its failure */
    char *buf;              /* the response's bytes, copied when it ended */
    size_t cap;
};

struct conn_flow_batch {
    struct conn_flow_item *items;
    struct script_res **ptrs; /* &items[i].res, handed to the coroutine */
    uint32_t cap;           /* items made */
    uint32_t n, next, ended; /* the batch under way: its items, the first not yet sent (those
                             * before it all are), those ended */
    bool live;
    bool handing;           /* hand_out is under way (further up the stack) */
    bool freed;             /* a carrier came free meanwhile: hand_out goes round again */
};

/* A flow's user: what its connection keeps beyond a request's. Made at
 * the user's first step and shared by its lanes, so that no other run's
 * connection pays for it (struct conn is every connection's cost). */
struct conn_user {
    struct conn *conn;      /* the user's own connection */
    ev_timer pause;         /* over HTTP/2: u:sleep, and the turn of the loop after an
                             * iteration that did nothing */
    struct conn *lanes;     /* over HTTP/1: the user's other CONN_FLOW_LANES connections
                             * for u:batch, made at its first batch; NULL before */
    struct conn_flow_batch *batch; /* the user's batch, made at its first */
    struct conn *away[SCRIPT_FLOW_ORIGINS + 1]; /* [id]: its connection to other origin id,
                             * made when it first reaches it; NULL before ([0] unused) */
    struct conn *carrying;  /* the connection to another origin that carries the user's
                             * request (not a batch's) while it is in flight; NULL: none */
    struct conn_cap_wait wait; /* --max-rps: its place in the cap's queue */
    int64_t t_iter;         /* the iteration's start (-R: when it was due) */
    double think;           /* seconds the wait rule asked for before the next iteration */
    bool paused;            /* over a multiplexed framing: asleep on pause (the connection
                             * stays CONN_OPEN for the server's frames) */
    bool parked;            /* -R: on the schedule's idle stack */
    bool check;             /* the user's own request (not a batch's item) has a check to
                             * call when answered */
    bool capped;            /* --max-rps: waiting in the cap's queue for its turn */
    bool token;             /* --max-rps: its turn came while no carrier of its batch was free */
    bool stopping;          /* leaving: its on_stop runs (flow_live, no iteration) */
    bool stopped;           /* left, its on_stop run: until it begins an iteration again */
    bool holding;           /* waiting out the wait rule's time, counted in live_iters so
                             * that the run waits for it to leave (a flow with on_stop) */
};

#endif
