/* Shared by the files of HTTP/2 on a connection only: h2_conn.c (socket
 * I/O, timers, retries, losses: the framing's table), h2_slots.c (the
 * stream slots), h2_events.c (what nghttp2 tells of each stream) and
 * h2_req.c (a request taken apart into a stream). The framing's state
 * lives here: per slot (struct h2_conn, c->fs) and per worker (struct
 * h2_shared, sh->framing_shared). */
#ifndef VOLLEY_H2_INTERNAL_H
#define VOLLEY_H2_INTERNAL_H

#include "framing.h"
#include "h2.h"

struct mpool;
struct h2_fixed;

/* One request in flight on a connection. */
struct h2_stream {
    struct conn *c;
    bool active;            /* a request holds the slot */
    bool body_started;      /* the capture and the sample have their blank line */
    int32_t id;             /* its stream id; 0 before it is opened (or to retry), -1 when cancelled */
    int status;             /* the final status, 0 before it */
    int64_t t_start, t_intended, t_sent, t_first;
    uint32_t name;          /* its request's name: id + 1, 0 for none (stats.h) */
    uint64_t rx_bytes;      /* header and body bytes received */
    const char *req;        /* the request as HTTP/1 text (kept: streams open later or again):
                             * the run's own request, or a hook's copied into own_req */
    size_t req_len;
    uint32_t req_ix;        /* as conn.req_ix */
    char *own_req;
    size_t own_len, own_cap;
    struct h2_body body;    /* the part of req being sent as DATA */
    struct h2_msg msg;      /* h2.c's checks of the response */
    char *cap;              /* the response as HTTP/1 text, for response() */
    size_t cap_len, cap_size;
    unsigned retries;       /* times it was refused or left unprocessed and sent again
                             * (at most H2_RETRIES) */
    int64_t t_retry;        /* refused: not sent again before this (monotonic ns); 0: at once */
    size_t trailers_at;     /* where its trailers begin in cap (the body's end); 0: none */
    int64_t timeout_ns;     /* its deadline after its start (the connection's, when it was made) */
    int32_t item;           /* a flow's batch: the item it carries (conn.item when it was made), -1: none */
    struct errsample *shown; /* its response's sample (conn_sample_open), or NULL */
    bool stream_asked;      /* its response streams whatever its type (conn_stream_asked) */
    bool stream_call;       /* a flow: a function of its request takes the events (conn.stream_call) */
    struct conn_stream *stream; /* its response, when it streams (conn_stream.h; made at the
                             * slot's first) */
};

/* A connection slot's HTTP/2 state. */
struct h2_conn {
    struct h2_session *session; /* the open connection's, or NULL */
    struct h2_stream *streams;  /* sh->streams slots, made once */
    uint32_t *free;         /* indices of the free slots (a stack) */
    uint32_t nfree;
    bool goaway, in_call, closed, filling, settings, broken;
    int32_t last_id;        /* GOAWAY's last stream id */
    uint32_t goaway_error;  /* and its error code */
    bool answered;          /* the server answered a stream (a status) on this connection */
    int64_t now;            /* when the read being handed to nghttp2 returned */
    char *out;              /* frames the socket did not take yet */
    size_t out_len, out_off, out_cap;
};

/* A worker's HTTP/2 state. */
struct h2_shared {
    char *scratch;          /* lower-cased header names while a request is opened */
    size_t scratch_size;
    struct mpool *pool;     /* nghttp2's memory (see mpool.h) */
    struct h2_fixed **fixed; /* the run's requests (req, or each target's) taken apart, each
                             * made once when first sent (h2_req.c) */
};

#define H(c) ((struct h2_conn *)(c)->fs)

/* Where a stream's --timeout counts from: its start, or for a response that
 * streams, its latest event (each event moves the deadline on). */
static inline int64_t h2c_deadline_base(const struct h2_stream *st)
{
    return conn_stream_on(st->stream) && st->stream->last > st->t_start ? st->stream->last : st->t_start;
}
#define S(sh) ((struct h2_shared *)(sh)->framing_shared)

/* How many times one request is sent again after the server refused it
 * (REFUSED_STREAM) or left it unprocessed (above a GOAWAY's last stream
 * id) before it fails with the server's reason. */
#define H2_RETRIES 3

/* The slots (h2_slots.c): a connection slot's state made and freed, the
 * worker's made and freed; every slot of h free again (n of them; slot 0
 * is taken first); a free slot of c, or NULL. */
void *h2c_init(struct conn *c);
void h2c_free(struct conn *c, void *fs);
void *h2c_shared_new(struct conn_shared *sh);
void h2c_shared_free(struct conn_shared *sh);
void h2c_all_free(struct h2_conn *h, uint32_t n);
struct h2_stream *h2c_free_slot(struct conn *c);

/* Opens the slot's stream on c's session (h2_req.c). Returns false when it
 * could not be opened (the request string is not one HTTP/2 can carry, or
 * no more streams): the reason is counted, and the caller fails the
 * request as protocol. */
bool h2c_submit(struct conn *c, struct h2_stream *st);
/* Frees what h2_req.c made for the worker (the requests taken apart). */
void h2c_fixed_free(struct conn_shared *sh);
/* st's request ended; its slot is free. */
void h2c_release(struct conn *c, struct h2_stream *st);
/* Appends n bytes to a slot buffer grown geometrically (kept for the
 * slot's life: no allocation once it is as large as the largest). */
void h2c_append(char **buf, size_t *len, size_t *cap, const char *p, size_t n);
/* A stream ended without a response (why: a failure kind): counted, its
 * slot freed. */
void h2c_stream_failed(struct conn *c, struct h2_stream *st, enum stats_error why);
/* Stream st ended with its whole response at now: told to conn_completed,
 * the slot freed. */
void h2c_complete(struct conn *c, struct h2_stream *st, int64_t now);
/* Forgets what the slot's stream received (a new request, or a retry). */
void h2c_fresh_response(struct h2_stream *st);
/* st was not processed (refused: RST_STREAM REFUSED_STREAM; or above a
 * GOAWAY's last stream id): sent again, at most H2_RETRIES times, then
 * failed with the server's reason. */
void h2c_retry(struct conn *c, struct h2_stream *st, bool refused);
/* h2.c's events for c's session: with the fields (a response() hook reads
 * them) or without (then only a response's sample takes them). */
extern const struct h2_events h2c_events, h2c_events_no_fields;

#endif
