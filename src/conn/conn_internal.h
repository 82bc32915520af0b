/* Shared by the files of the connection state machine: conn.c
 * (connecting, writing, failures, timers, the open model's hand-over),
 * conn_read.c (reading, framing and completing responses) and HTTP/2's
 * conn_h2.c, conn_h2_req.c and conn_h2_events.c. Nothing else includes
 * it. */
#ifndef VOLLEY_CONN_INTERNAL_H
#define VOLLEY_CONN_INTERNAL_H

#include "conn.h"
#include "net.h"
#include "tls.h"

/* Closes c's socket (if open) and stops its watchers; the next request of
 * a scenario opens a new conn table. clean: the connection ended normally
 * (over TLS, close_notify is sent then). */
void conn_close_socket(struct conn *c, bool clean);

/* TLS: drives the handshake (CONNECTING or HANDSHAKE), then writes the
 * request. */
void conn_handshake(struct conn *c);

/* Writes (the rest of) the request. */
void conn_write_request(struct conn *c);

/* c's transport, TLS for https, else the socket: read and write as
 * net.h's calls (NET_WANT_WRITE only from TLS). */
static inline enum net_status conn_io_read(struct conn *c, char *buf, size_t cap, size_t *n)
{
    return c->tls ? tls_read(c->tls, buf, cap, n) : net_read(c->fd, buf, cap, n);
}

static inline enum net_status conn_io_write(struct conn *c, const char *buf, size_t len, size_t *n)
{
    return c->tls ? tls_write(c->tls, buf, len, n) : net_write(c->fd, buf, len, n);
}

/* After a read of n bytes into the worker's buffer: whether more may be
 * there without a readiness event (the buffer was filled, or OpenSSL read
 * ahead: the kernel will not report those bytes again). */
static inline bool conn_io_more(const struct conn *c, size_t n)
{
    return c->tls ? tls_pending(c->tls) : n == c->sh->rbuf_size;
}

/* A write could not go on (st: NET_AGAIN or NET_WANT_WRITE): waits for
 * what it needs (over TLS, NET_AGAIN means readable: the next readable
 * event writes again). */
void conn_io_wait_write(struct conn *c, enum net_status st);

/* A read or write of c failed: a TLS failure counted by its reason, or,
 * over plain TCP or when the socket failed (a reset), the kind otherwise. */
void conn_io_failed(struct conn *c, enum stats_error otherwise);

/* (Re)starts c's one-shot timer to fire after the given seconds. */
void conn_arm_timer(struct conn *c, double after);

/* Closes c's socket, stops its timer: CONN_IDLE. */
void conn_go_idle(struct conn *c);

/* Counts and starts the request (a batch of depth) that c->req holds:
 * the stream, the connect or the write. */
void conn_start_request(struct conn *c, int64_t now, unsigned depth);

/* Flows (conn_flow.c): the user of c takes its next step, or begins an
 * iteration (conn_flow_begin: -R handed it one, due at c->t_iter); an
 * HTTP/2 connection's streams moved (conn_flow_fill: the batch's next
 * items, or the user's next request; room: streams it may open); the run
 * stops c (conn_flow_stop: the requests its lanes had in flight, which the
 * caller counts as cut off); c is freed (conn_flow_free: lanes, batch). */
void conn_flow_next(struct conn *c, int64_t now);
void conn_flow_begin(struct conn *c, int64_t now);
void conn_flow_fill(struct conn *c, uint32_t room);
unsigned conn_flow_stop(struct conn *c);
void conn_flow_free(struct conn *c);

/* A flow: where the user reads the response of the request carried by c
 * (item: a batch's item, or -1 for the slot's own request). */
struct script_res *conn_flow_res(struct conn *c, int32_t item);

/* A flow: the response of the request carried by c is described in
 * conn_flow_res(c, item) (raw/len: its bytes); a batch item's bytes are
 * copied there (so that c can carry the next), then its check runs.
 * *failed when the check failed it. Returns false when the bridge failed
 * (conn_flow.c). */
bool conn_flow_answered(struct conn *c, int32_t item, const char *raw, size_t len, bool *failed);

/* A flow: the request carried by c (item as above) failed for why; the
 * user's response says so. */
void conn_flow_failed(struct conn *c, int32_t item, enum stats_error why);

/* --one-first: the first answer (or failure) lets the other connections go. */
void conn_release_rest(struct conn_shared *sh);

/* The one place requests fail: every request of the batch still in flight
 * is counted as failed for why; then close and go on (after the connect
 * backoff for a connect failure). conn_fail_backoff: after the backoff
 * whatever why is (an HTTP/2 connection on which no stream could open). */
void conn_fail(struct conn *c, enum stats_error why);

/* conn_fail(c, STATS_ERR_READ), the requests in flight counted under
 * reason (copied) among the read failures' reasons (stats.h's
 * kind_reasons): the failure path only, a new reason allocates. */
void conn_fail_read(struct conn *c, const char *reason);

/* How the report words a read that failed in the socket with errno err
 * ("reset by peer"); buf (n bytes) may hold the words. */
const char *conn_read_errno_reason(int err, char *buf, size_t n);
void conn_fail_backoff(struct conn *c, enum stats_error why);

/* Backoff after a failed connect, so a dead server is not hammered
 * (seconds); an HTTP/2 stream the server refused waits the same steps. */
#define CONN_BACKOFF_FIRST 0.01
#define CONN_BACKOFF_MAX 1.0

/* c waits the connect backoff (10 ms, doubling with each failure in a row
 * up to 1 s) in CONN_BACKOFF; then it connects for the HTTP/2 streams it
 * holds (conn_h2_reconnect), or goes on to the next request. */
void conn_backoff(struct conn *c);

/* A hook failed: requests in flight on c are cut off and the worker's loop
 * ends. */
void conn_script_failed(struct conn *c);

/* The next request on c (or c parks: budget spent, or nothing due with -R). */
void conn_next_request(struct conn *c, int64_t now);

/* The read watcher fired: reads, frames and completes responses. */
void conn_on_readable(struct conn *c);

/* Starts a request on c now (hooks, budget, then the write or the stream). */
void conn_begin_request(struct conn *c, int64_t now);

/* Connects c's socket (a request is counted already). */
void conn_begin_connect(struct conn *c, int64_t now);

/* HTTP/2 stream st ended with its whole response at now: the hook, the
 * stats, the slot freed (conn_read.c). */
void conn_complete_stream(struct conn *c, struct conn_stream *st, int64_t now);

/* HTTP/2 (conn_h2.c): slots made and freed; the request begin_request
 * counted takes a slot (opened now, or when the connection is ready); the
 * connection is ready (the session starts, queued streams open); events of
 * an HTTP/2 connection; every slot let go (the caller counted them). */
void conn_h2_init(struct conn *c);
void conn_h2_free(struct conn *c);
void conn_h2_add(struct conn *c, int64_t now);
void conn_h2_ready(struct conn *c);
void conn_h2_readable(struct conn *c);
void conn_h2_writable(struct conn *c);
void conn_h2_timer(struct conn *c);
void conn_h2_drop(struct conn *c);
/* HTTP/2: c's socket is closed with streams still to open (retried): a new
 * connection for them, on the clock of the oldest. */
void conn_h2_reconnect(struct conn *c);
/* HTTP/2 (conn_h2_req.c): opens the slot's stream on c's session.
 * Returns false when it could not be opened (the request string is not one
 * HTTP/2 can carry, or no more streams): the reason is counted, and the
 * caller fails the request as protocol. */
bool conn_h2_submit(struct conn *c, struct conn_stream *st);
/* HTTP/2: st's request ended; its slot is free. */
void conn_h2_release(struct conn *c, struct conn_stream *st);
/* The socket of an HTTP/2 connection closes: its session goes (after the
 * current nghttp2 call, if inside one). */
void conn_h2_closed(struct conn *c);

/* Between conn_h2.c and conn_h2_events.c: */
/* Appends n bytes to a slot buffer grown geometrically (kept for the
 * slot's life: no allocation once it is as large as the largest). */
void conn_h2_append(char **buf, size_t *len, size_t *cap, const char *p, size_t n);
/* A stream ended without a response (why: a failure kind): counted, its
 * slot freed. */
void conn_h2_stream_failed(struct conn *c, struct conn_stream *st, enum stats_error why);
/* Forgets what the slot's stream received (a new request, or a retry). */
void conn_h2_fresh_response(struct conn_stream *st);
/* st was not processed (refused: RST_STREAM REFUSED_STREAM; or above a
 * GOAWAY's last stream id): sent again, at most CONN_H2_RETRIES times,
 * then failed with the server's reason. */
void conn_h2_retry(struct conn *c, struct conn_stream *st, bool refused);
struct h2_events;
/* h2.c's events for c's session: with the fields (a response() hook reads
 * them) or without. */
extern const struct h2_events conn_h2_events, conn_h2_events_no_fields;

#endif
