/* One connection: an explicit state machine driven by libev events.
 *
 *   IDLE -> [DELAY | WAIT ->] CONNECTING -> [HANDSHAKE (a transport's) ->] OPEN -> (the next request on the
 *   same socket | CONNECTING a new one | IDLE when the budget is spent | HELD until the worker has opened
 *   the others); any failure -> conn_fail -> counted, closed, and the next request (after a backoff for a
 *   connect failure).
 *
 * What carries the bytes is a transport (transport.h: TCP, TLS) and what
 * frames them a framing (framing.h: HTTP/1.1, HTTP/2, in src/framing); in
 * OPEN the framing owns the socket's events. The state machine names
 * neither: it calls their tables.
 *
 * A request starts when its connect starts (new connection) or its write
 * starts (reused connection) and ends in exactly one bucket of struct stats.
 * A request string from a script may hold several requests (pipelining):
 * they start together and end one by one as their responses arrive. */
#ifndef VOLLEY_CONN_H
#define VOLLEY_CONN_H

#include "schedule.h"
#include "script.h"
#include "source.h"
#include "stats.h"
#include "transport.h"

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct conn_cap;    /* conn_cap.h: --max-rps */
struct framing_ops; /* framing.h: what turns requests into bytes and bytes into responses */
struct hosts;       /* hosts.h: --allow-host */

/* Another origin (scheme, host, port) a flow's users reach (--allow-host):
 * where its connections go, what carries and frames them (TCP or TLS with
 * its own context, SNI and verification; HTTP/1.1), and its row of the
 * worker's stats_hosts. Made once per worker, by its first user to reach
 * it (conn_origin.c); its connections are the users' own (conn_flow.c).
 * Read-only after it is made. */
struct conn_origin {
    const struct transport_ops *transport;
    void *transport_ctx;
    const struct framing_ops *framing;
    struct sockaddr_storage addr;
    socklen_t addrlen;
    int stat;               /* its index in stats->hosts, -1: none */
    bool made;              /* tried: made, or broken */
    bool broken;            /* could not be made (its TLS context): its requests fail */
    char host[256];         /* for TLS: the name sent (SNI) and checked */
};

/* What the connections of one worker share. Owned by the worker; the
 * connections read the configuration and update the counters. */
struct conn_shared {
    struct ev_loop *loop;
    const struct sockaddr *addr; /* where connections go, read at each connect: the run's
                                  * target, or the worker's script_thread.addr, which
                                  * only the worker's own thread changes (thread.addr) */
    const struct sources *sources; /* --source: connection src_base + id binds to
                                    * sources_pick of it (read-only, shared); NULL: none */
    uint32_t src_base;           /* the process's number of this worker's first connection */
    const socklen_t *addrlen;    /* addr's length, likewise */
    const char *req;             /* the encoded request, read-only, shared by all threads */
    size_t req_len;
    const struct http_req *targets; /* --targets: the run's requests, one per target (read-only,
                                  * shared by all threads); NULL: req for every request */
    uint32_t ntargets;
    const uint32_t *target_name; /* --targets: each target's name id (read-only, shared) */
    uint32_t target_next;        /* round robin: this worker's next target */
    bool target_random;          /* --targets-order random: each target drawn with rng */
    uint64_t rng;                /* the worker's generator (splitmix64 state) */
    bool keepalive;              /* reuse connections the server keeps open */
    int64_t timeout_ns;          /* --timeout */
    int64_t last_connect_ok;     /* monotonic ns of the last connect that worked (or the start) */
    int64_t failing_since;       /* start of the current streak of failed connects; 0: none */
    int gave_up;                 /* errno of the last connect when the target stayed unreachable */
    struct script *script;       /* the worker's Lua state (-s), or NULL */
    bool script_request;         /* requests come from its request() hook */
    bool script_delay;           /* it has a delay() hook */
    bool script_conns;           /* scenario style: a conn table per connection */
    bool script_response;        /* it has a response() hook */
    bool capture;                /* response() reads headers or body: keep responses whole */
    uint64_t max_body;           /* --max-body: the most bytes of a response kept for it */
    uint64_t too_large;          /* responses failed for outgrowing max_body */
    struct script_res *res;      /* the worker's, filled for each response() call */
    bool script_event;           /* it has an event() hook: every response streams (conn_stream.h) */
    struct script_event *event;  /* the worker's, filled for each event() call */
    _Atomic int64_t *streams_now, *streams_peak; /* streams open at once in the process, and
                                  * the most (the run's; NULL: not counted) */
    uint32_t *conn_done;         /* per slot: responses completed on the open connection */
    unsigned req_depth;          /* requests in req (pipelined), >= 1 */
    uint32_t req_name;           /* req's name (id + 1), 0 for none: a script without request()
                                  * that named its default request */
    bool samples;                /* keep a stats_sample per completed request */
    bool first_head_todo;        /* samples: the first response's bytes are still to keep */
    bool heads;                  /* --heads: keep each response's first read with its sample */
    int64_t epoch_offset_ns;     /* wall clock minus monotonic clock, for sample start times */
    uint64_t heartbeat;          /* --heartbeat: print progress every this many completions */
    bool hold_rest;              /* --one-first: the other connections wait for the first answer */
    void (*start_rest)(void *arg); /* called once, when the first request is answered or fails */
    void *start_rest_arg;
    _Atomic uint64_t *completed_all; /* completions over all workers, for the heartbeat */
    char *script_error;          /* set (non-empty) when a hook failed: the run stops */
    size_t script_error_len;
    char *rbuf;                  /* the worker's read buffer, shared by its connections */
    size_t rbuf_size;
    struct sched *sched;         /* -R: the worker's arrival schedule; NULL in a closed loop */
    const struct transport_ops *transport; /* what carries the bytes (transport_for) */
    void *transport_ctx;         /* its context for this worker, or NULL (TLS's: each worker has
                                  * its own, as OpenSSL 3 locks shared ones) */
    const char *scheme;          /* "http" or "https": the requests' :scheme */
    const struct framing_ops *framing; /* what the requests are framed as (framing_for) */
    const struct framing_ops *fallback; /* what a socket speaks whose handshake chose another
                                  * protocol by ALPN than framing's (NULL: no such choice: a
                                  * transport that agrees on none, or --http2=strict) */
    /* After a handshake that agreed on protocol (ALPN; "": none): the
     * framing that speaks it on the connection, framing or fallback (the
     * registry's framing_negotiated); NULL, with why (n bytes) saying so,
     * fails the connection. NULL entry: framing, whatever was agreed. */
    const struct framing_ops *(*negotiate)(struct conn_shared *sh, const char *protocol, char *why, size_t n);
    bool alpn_strict;            /* --http2=strict: a server that does not choose framing's
                                  * protocol fails instead */
    void *framing_shared;        /* framing's per-worker state (its shared_new), or NULL */
    uint32_t streams;            /* --streams: requests at once per connection of a
                                  * multiplexed framing (1 for the others) */
    uint32_t window;             /* --h2-window: the flow-control window it advertises */
    const char *authority;       /* :authority unless a request has a Host header */
    struct stats *stats;
    uint64_t budget;             /* requests this worker may still start */
    bool holding;                /* the worker is still opening its connections (worker.c,
                                  * OPEN_BATCH): a connection whose request ended waits in
                                  * CONN_HELD, so that every connection's first request comes
                                  * before any connection's second, as when all opened at once */
    uint32_t active;             /* --stages without -R: slots below it may start requests; one
                                  * at or above it closes when its request has ended (UINT32_MAX:
                                  * all may) */
    uint64_t in_flight;          /* started and not yet ended */
    /* A flow (a scenario with user(u)): each slot is a virtual user whose
     * coroutine makes the slot's requests; budget counts iterations. */
    bool flow;
    struct sched *iter_sched;    /* -R with a flow: the iterations' schedule (sched is NULL:
                                  * a flow's requests are timed from their own start) */
    struct script_res *flow_res; /* per slot: the user's latest response, for its coroutine */
    uint64_t live_iters;         /* iterations under way (a user asleep has none in flight) */
    /* A flow's other origins (--allow-host; conn_origin.c): */
    const struct hosts *hosts;   /* the hosts it may reach, resolved (read-only, shared); NULL: none */
    const void *transport_cfg;   /* the run's settings of the transport of https (struct
                                  * tls_config), which an https origin's context starts from
                                  * (read-only, shared; never NULL: run.c always sets it) */
    const struct framing_ops *framing_h1; /* what frames another origin's requests (HTTP/1.1) */
    struct conn_origin *origins; /* [0]: the target's row; [1..SCRIPT_FLOW_ORIGINS]: the
                                  * others, made at the flow's first request (NULL before) */
    struct conn_cap *cap;        /* --max-rps: the worker's share of a flow's cap (conn_cap.h);
                                  * NULL: none */
};

enum conn_state {
    CONN_IDLE, CONN_BACKOFF, CONN_DELAY, CONN_WAIT, CONN_HELD, CONN_CONNECTING, CONN_HANDSHAKE,
    CONN_OPEN /* the socket is up and its framing (conn.fr) owns its events and timer */
};

struct conn_user; /* conn_flow.c: a flow's user (its pause timer, lanes, batch, iteration) */

/* Embedded in the worker's connection array; fields are private to conn.c.
 * Its size is what every open connection costs (with its framing's slot
 * state): ordered so that no field leaves a hole, and what only a flow's
 * user needs is behind c->user, made for a flow's slots alone
 * (tests/unit/framing/test_conn_size.c holds it to its size). */
struct conn {
    struct conn_shared *sh;
    int fd;                 /* -1 when closed */
    enum conn_state state;
    uint32_t id;
    int32_t item;           /* a flow's batch: the item this connection carries, -1: none */
    ev_io rio;              /* EV_READ, armed while the socket is open */
    ev_io wio;              /* EV_WRITE, armed only while connecting or when a write would block */
    ev_timer timer;         /* request deadline, connect backoff, or delay() wait */
    void *tps;              /* sh->transport's state for this slot (made once, reused for
                             * every socket) */
    const struct framing_ops *fr; /* the framing the open socket speaks: sh->framing, or
                             * sh->fallback when its handshake chose that (framing.h) */
    void *fs;               /* fr's state for this slot: fs_own[0] or fs_own[1] */
    void *fs_own[2];        /* the slot's state of sh->framing and of sh->fallback (made
                             * once by each one's init) */
    const char *req;        /* the request being sent: the shared one, a target's, or a hook's */
    size_t req_len;
    uint32_t req_ix;        /* which of the run's requests req is (its --targets index; 0
                             * without), or CONN_REQ_HOOK: a hook's string */
    unsigned pending;       /* requests of the batch not yet ended (0: none in flight) */
    uint32_t name;          /* the batch's name: id + 1, 0 for none (stats.h); multiplexed: of
                             * the request begin_request made last (each stream keeps its own) */
    bool write_wants_read : 1; /* the transport's write waits for readability (a TLS
                             * renegotiation, key update) */
    bool read_wants_write : 1; /* its read waits for writability */
    bool table_open : 1;    /* scenario: the conn table belongs to the open socket */
    bool flow_live : 1;     /* a flow: the slot's user is inside an iteration */
    bool stream_asked : 1;  /* the request begin_request made last asks for its response to
                             * stream whatever its type (stream = true; conn_stream.h) */
    bool stream_call : 1;   /* a flow: and a function of its (opts.stream) takes its events */
    uint8_t origin;         /* a flow: 0 the target, else the other origin its socket goes to
                             * (sh->origins[origin]; a user's connection of its own for it) */
    int64_t t_start;        /* request start (ns): its connect or first write */
    int64_t t_answered;     /* the batch's latest answered response, t_start before one
                             * (stats_answered) */
    int64_t t_intended;     /* -R: when the schedule wanted it sent */
    int64_t t_sent;         /* -R: its first byte written; 0 before */
    int64_t t_connect;      /* connect start, then connect duration; 0 on reuse */
    int64_t t_handshake;    /* TLS handshake start, then its duration; 0 on reuse */
    double backoff;         /* seconds before the next connect after a refused one (or,
                             * HTTP/2, one on which no stream opened or was answered) */
    int64_t timeout_ns;     /* the current request's deadline after its start (--timeout, or
                             * a flow request's own) */
    struct conn_user *user; /* a flow: the user this connection works for (its own, or, a
                             * batch lane, its owner's), made at the user's first step;
                             * NULL before and in every other run */
};

/* What carries c's bytes and what frames its next socket: its origin's
 * (the target's: sh->transport and sh->framing). */
static inline const struct transport_ops *conn_transport(const struct conn *c)
{
    return c->origin ? c->sh->origins[c->origin].transport : c->sh->transport;
}

static inline const struct framing_ops *conn_framing(const struct conn *c)
{
    return c->origin ? c->sh->origins[c->origin].framing : c->sh->framing;
}

/* u:batch over HTTP/1.1: a user's connections besides its own, so that a
 * batch goes out on up to 6 at once, as browsers do. */
#define CONN_FLOW_LANES 5

/* u:batch over HTTP/2: the streams a user's connection opens at once, at
 * least (--streams, if more). */
#define CONN_FLOW_STREAMS 6

/* conn.req_ix of a request a script's request() hook made. */
#define CONN_REQ_HOOK UINT32_MAX

/* Prepares c (no socket yet). */
void conn_init(struct conn *c, struct conn_shared *sh, uint32_t id);

/* Starts the first request: connects. */
void conn_start(struct conn *c);

/* The worker has opened all its connections (conn_shared.holding is
 * false again): c, if it waits in CONN_HELD, starts its next request. */
void conn_resume(struct conn *c);

/* -R: the schedule hands c, waiting in slot c->id, the arrival due at
 * intended; now: the current monotonic time. */
void conn_send(struct conn *c, int64_t intended, int64_t now);

/* Stops c for good: closes the socket and stops its watchers. Returns how
 * many requests were in flight (the caller counts them as cut off). */
unsigned conn_stop(struct conn *c);

/* Frees what c allocated (its capture buffer). */
void conn_free(struct conn *c);

/* Frees what the connections made once for all of them in sh (after
 * conn_free of each). */
void conn_shared_free(struct conn_shared *sh);

#endif
