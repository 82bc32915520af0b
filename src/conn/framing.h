/* The framing seam: what turns a connection's requests into bytes and its
 * bytes into responses (HTTP/1.1, HTTP/2; src/framing). A framing is one
 * const table of operations, chosen per worker (sh->framing, and
 * sh->fallback for a socket whose handshake chose another protocol by
 * ALPN) by src/framing/framings.c, which also picks a socket's framing
 * after its handshake (sh->negotiate); the connection state machine calls
 * only the table, so it never names a framing. Each framing owns its state per
 * connection slot (c->fs: stream slots, windows, a pipelined batch's
 * parser) and per worker (sh->framing_shared).
 *
 * Between the two, every completed response goes through conn_completed
 * and every failure through conn_fail*: the one path where hooks, checks
 * and the figures are kept. This header is the whole of what a framing
 * sees of a connection; conn_internal.h is the state machine's own. */
#ifndef VOLLEY_FRAMING_H
#define VOLLEY_FRAMING_H

#include "conn.h"
#include "conn_stream.h"

struct conn_ending;

struct framing_ops {
    const char *name;  /* "HTTP/1.1", "HTTP/2" */
    const char *alpn;  /* the protocol a handshake must choose for it ("h2"); NULL: any */
    bool multiplexed;  /* many requests at once on one connection (streams): a failed
                        * connect's backoff ends only once a request is answered, and a
                        * flow's user stays on its open connection while it sleeps */
    /* Per worker (may be NULL): made after the worker filled sh, freed
     * after every connection. */
    void *(*shared_new)(struct conn_shared *sh);
    void (*shared_free)(struct conn_shared *sh);
    /* Per slot, once: the slot's state (returned, kept in c->fs_own) and
     * its end. */
    void *(*init)(struct conn *c);
    void (*free)(struct conn *c, void *fs);
    /* begin_request made c->req (c->name, c->req_ix, c->t_intended) a
     * request of depth requests (a pipelined string), counted with
     * conn_count_started: it goes out (connecting first when c has no
     * socket). */
    void (*start)(struct conn *c, int64_t now, unsigned depth);
    /* A socket is connecting for c and its transport has no handshake:
     * send now (the write tells whether the connect is over:
     * conn_connected, conn_connect_failed) or wait for writability. */
    void (*connecting)(struct conn *c);
    /* c's connection is up (connected, and any handshake done): c is
     * CONN_OPEN and the framing owns it. */
    void (*ready)(struct conn *c);
    /* Events of c while CONN_OPEN. */
    void (*readable)(struct conn *c);
    void (*writable)(struct conn *c);
    void (*timer)(struct conn *c);
    /* Every request in flight on c ends: each one told to
     * conn_end_requests as e says (its name counted, a flow's user told of
     * its request or batch item), and each let go; the caller counts them
     * all. The one place where a connection's requests end together. */
    void (*end)(struct conn *c, const struct conn_ending *e);
    /* c's socket is closing (may be NULL: nothing to do). */
    void (*closed)(struct conn *c);
    /* The handshake agreed on another framing's protocol (sh->negotiate
     * chose sh->fallback) before anything was sent: the one request
     * queued becomes c's own (c->req, c->name,
     * c->t_start), for the fallback to send (may be NULL: never a
     * framing with a fallback). */
    void (*requeue)(struct conn *c);
    /* The backoff ended with requests still held (c->pending > 0):
     * connect again for them (NULL: never holds any). */
    void (*reconnect)(struct conn *c);
};

/* How requests in flight end (framing_ops.end): cut off, or failed for
 * why (timed_out: with -R, recorded at latency, as stats_timed_out
 * does). */
struct conn_ending {
    bool cut_off;
    enum stats_error why;
    bool timed_out;
    int64_t now, latency;
};

/* n requests named name, carried by c, end as e says: the name's figures
 * (stats_name_cut_off, _fail), and a flow's user told of a failure
 * (item: its batch item, or -1 for the user's own request: its response
 * says so, and the batch's count of ended items moves). Nothing for n 0.
 * The caller counts the kinds, in flight and the slot's pending. */
void conn_end_requests(struct conn *c, uint32_t name, int32_t item, unsigned n, const struct conn_ending *e);

/* A completed response, as the framing that read it tells it. */
struct conn_response {
    int status;
    bool chunked;        /* raw's body is chunk-encoded */
    uint64_t bytes;      /* bytes received for it */
    int64_t t_start, t_intended, t_sent; /* its request's (t_sent: 0 before a byte went) */
    int64_t waiting;     /* from its request written to its first byte */
    int64_t *answered;   /* the mark of its batch for stats_answered */
    uint32_t name;       /* its request's name (id + 1), 0 for none */
    int32_t item;        /* a flow's batch item, -1: the user's own request */
    char *raw;           /* its bytes as HTTP/1 text (when captured), or NULL */
    size_t len;
    size_t trailers_at;  /* where raw's trailers begin; 0: none (HTTP/1: in the body) */
    bool too_large;      /* it outgrew --max-body: failed as validation */
    struct errsample *shown; /* its sample for --show-errors (conn_sample_open), or NULL:
                          * conn_completed keeps it or lets it go */
    bool sample;         /* keep a stats_sample (volley ab) from the fields below */
    int64_t body_len;
    bool keepalive;
    int64_t head_off, head_len;
    struct conn_stream *stream; /* it streamed (conn_stream.h; its figures and verdict), or NULL */
};

/* The samples of --show-errors and the report's first error body, the
 * same for every framing: when a response begins that may be one to keep
 * (its status not 2xx, or not known yet), the framing opens a sample
 * (NULL: none is to be kept, the run's list is full), adds the response's
 * bytes to it as they arrive (errsample_add, errsample.h: as HTTP/1 text,
 * its head then its body, the first ERRSAMPLE_BYTES kept), and hands it to
 * conn_completed in conn_response.shown, which keeps it when the status is
 * not 2xx. A response that ends otherwise (failed, retried) lets it go
 * with conn_sample_drop (*s NULL after; NULL does nothing). */
static inline struct errsample *conn_sample_open(struct conn *c)
{
    return errsamples_open(&c->sh->stats->shown);
}

static inline void conn_sample_drop(struct conn *c, struct errsample **s)
{
    if (*s) {
        errsamples_drop(&c->sh->stats->shown, *s);
        *s = NULL;
    }
}

/* The one path of a completed response: the flow's user or response()
 * told, then the figures (validation failures, statuses, latencies, the
 * open model's), the samples and the heartbeat; c->pending and the run's
 * in-flight count go down by one. Returns false when a hook raised an
 * error: the caller lets its own state of the request go, then calls
 * conn_script_failed. */
bool conn_completed(struct conn *c, const struct conn_response *r, int64_t now);

/* Counts a request (a batch of depth) begin_request made as started:
 * budget (cost of it: a flow's budget counts iterations instead), -R's
 * arrivals, in flight, started, batches, its name. */
void conn_count_started(struct conn *c, unsigned depth, uint64_t cost);

/* Whether c's request asks for its response to stream whatever its type
 * (the script's event() hook, or the request's stream = true;
 * conn_stream.h). */
static inline bool conn_stream_asked(const struct conn *c)
{
    return c->sh->script_event || c->stream_asked;
}

/* The transport's calls on c's socket. */
static inline enum net_status conn_io_read(struct conn *c, char *buf, size_t cap, size_t *n)
{
    return conn_transport(c)->read(c->tps, c->fd, buf, cap, n);
}

static inline enum net_status conn_io_write(struct conn *c, const char *buf, size_t len, size_t *n)
{
    return conn_transport(c)->write(c->tps, c->fd, buf, len, n);
}

/* After a read of n bytes into the worker's buffer: whether more may be
 * there without a readiness event. */
static inline bool conn_io_more(const struct conn *c, size_t n)
{
    return conn_transport(c)->more(c->tps, n, c->sh->rbuf_size);
}

/* A write could not go on (st: NET_AGAIN or NET_WANT_WRITE): waits for
 * what it needs (a transport with a handshake: NET_AGAIN means readable,
 * and the next readable event writes again). */
void conn_io_wait_write(struct conn *c, enum net_status st);

/* A read or write of c failed: the transport's failure counted by its
 * reason (STATS_ERR_TLS), or, when the socket failed (a reset), the kind
 * otherwise. */
void conn_io_failed(struct conn *c, enum stats_error otherwise);

/* Why a read of c failed: the transport's own reason (NULL: none) and
 * *err the socket's errno (0: the failure was the transport's). */
const char *conn_io_reason(struct conn *c, int *err);

/* While CONNECTING: the connect is known to be over at now (the framing's
 * first write went), or failed with errno err. */
void conn_connected(struct conn *c, int64_t now);
void conn_connect_failed(struct conn *c, int err);

/* Closes c's socket (if open) and stops its watchers; the next request of
 * a scenario opens a new conn table. clean: the connection ended normally
 * (a TLS close_notify is sent then). */
void conn_close_socket(struct conn *c, bool clean);

/* (Re)starts c's one-shot timer to fire after the given seconds. */
void conn_arm_timer(struct conn *c, double after);

/* A request's deadline: c's timer fires no later than at (monotonic ns;
 * now: the clock as read). A timer armed already to fire by then is left
 * as it is, so a request costs no timer update (when it fires early, the
 * framing's timer entry arms it again for what is left); one armed for
 * later (an earlier request's longer timeout) is armed again for at. */
void conn_arm_deadline(struct conn *c, int64_t at, int64_t now);

/* --one-first: the first answer (or failure) lets the other connections go. */
void conn_release_rest(struct conn_shared *sh);

/* The one place requests fail: every request of the batch still in flight
 * is counted as failed for why; then close and go on (after the connect
 * backoff for a connect failure). conn_fail_backoff: after the backoff
 * whatever why is (a connection on which no stream could open). */
void conn_fail(struct conn *c, enum stats_error why);
void conn_fail_backoff(struct conn *c, enum stats_error why);

/* conn_fail(c, STATS_ERR_READ), the requests in flight counted under
 * reason (copied) among the read failures' reasons (stats.h's
 * kind_reasons): the failure path only, a new reason allocates. */
void conn_fail_read(struct conn *c, const char *reason);

/* How the report words a read that failed in the socket with errno err
 * ("reset by peer"); buf (n bytes) may hold the words. */
const char *conn_read_errno_reason(int err, char *buf, size_t n);

/* Backoff after a failed connect, so a dead server is not hammered
 * (seconds); a refused stream waits the same steps. */
#define CONN_BACKOFF_FIRST 0.01
#define CONN_BACKOFF_MAX 1.0

/* c waits the connect backoff (10 ms, doubling with each failure in a row
 * up to 1 s) in CONN_BACKOFF; then it connects for the requests it holds
 * (framing_ops.reconnect), or goes on to the next request. */
void conn_backoff(struct conn *c);

/* A hook failed: requests in flight on c are cut off and the worker's loop
 * ends. */
void conn_script_failed(struct conn *c);

/* The next request on c (or c parks: budget spent, or nothing due with -R). */
void conn_next_request(struct conn *c, int64_t now);

/* Starts a request on c now (hooks, budget, then the framing's start). */
void conn_begin_request(struct conn *c, int64_t now);

/* Connects c's socket (a request is counted already). */
void conn_begin_connect(struct conn *c, int64_t now);

/* A flow: the request carried by c (item: a batch's item, or -1 for the
 * slot's own request) failed for why; the user's response says so. */
void conn_flow_failed(struct conn *c, int32_t item, enum stats_error why);

/* A flow over a multiplexed framing: the connection's streams moved; the
 * batch's next items, or the user's next request (room: streams it may
 * open). */
void conn_flow_fill(struct conn *c, uint32_t room);

#endif
