/* A response consumed as a stream of events (framing.h's side of it): a
 * text/event-stream body always, and any body when the script asks
 * (stream = true, an event() hook). Each framing keeps one per request
 * slot (HTTP/1.1: one; HTTP/2: one per stream), made when the slot's first
 * response streams (an idle connection pays a pointer), feeds it the
 * body's bytes
 * as they arrive with the time their read returned, and hands it to
 * conn_completed with the response. The events are parsed by sse.h (or
 * split into lines), timed, counted, and handed to the script's event()
 * hook, which may mark tokens on them, fail the request or end it early.
 * Nothing here allocates on the steady path (sse.h keeps one buffer per
 * slot, grown to the largest event). */
#ifndef VOLLEY_CONN_STREAM_H
#define VOLLEY_CONN_STREAM_H

#include "http.h"
#include "sse.h"

#include <stdbool.h>
#include <stdint.h>

struct conn;
struct stats_stream;

/* How a stream stands. Past STREAM_ON the rest of the body is ignored
 * and the framing ends the request at once (conn_stream_stopped). */
enum stream_verdict {
    STREAM_ON,
    STREAM_CLOSE,      /* the hook ended it: completed by the client */
    STREAM_FAILED,     /* the hook failed it (its reason counted) */
    STREAM_TOO_LARGE,  /* an event outgrew --max-body */
    STREAM_HOOK_ERROR, /* the hook raised an error: the run stops */
};

struct conn_stream {
    struct sse sse;         /* the parser (its buffer kept for the slot's life) */
    struct conn *c;
    bool on;                /* the response under way streams */
    uint8_t verdict;        /* enum stream_verdict */
    bool usage;             /* usage_tokens is the server's count (a hook set it) */
    bool call;              /* a flow: its request's stream function takes the events */
    int32_t item;           /* a flow: the batch item the response answers, -1: the user's own */
    int64_t now;            /* the time the read under way returned (set before each feed) */
    int64_t t_start, t_due, t_sent; /* the request's start, due time (-R) and first byte written */
    int64_t first, last, tok_first, tok_last; /* events (0: none yet) */
    uint64_t events, tokens, usage_tokens, prompt_tokens; /* tokens: the marks' sum */
};

/* *s, made for c when NULL (the slot's first streamed response: kept for
 * the slot's life, freed with conn_stream_free; NULL does nothing). */
struct conn_stream *conn_stream_of(struct conn_stream **s, struct conn *c);
void conn_stream_free(struct conn_stream *s);

/* Whether s is a response under way that streams. */
static inline bool conn_stream_on(const struct conn_stream *s)
{
    return s && s->on;
}

/* The request a streamed response answers, as its framing keeps it. */
struct stream_request {
    int64_t t_start, t_intended, t_sent; /* started, due (-R), first byte written (0: unknown) */
    int32_t item;                        /* a flow's batch item, -1: none */
    bool call;                           /* a flow: its stream function takes the events */
};

/* The response's head is whole and it streams: event_stream, its
 * Content-Type is text/event-stream (else it is read line by line); r its
 * request (the figures count from its due time with -R, else from its
 * start). */
void conn_stream_begin(struct conn_stream *s, bool event_stream, const struct stream_request *r);

/* n more bytes of its body, read at s->now. */
void conn_stream_feed(struct conn_stream *s, const char *p, size_t n);

/* The body ended whole (at s->now): a last line of a line stream is one
 * more event. */
void conn_stream_finish(struct conn_stream *s);

/* Whether the stream stopped (a hook's verdict, an event too large): the
 * framing stops reading it and ends the request (conn_completed: completed
 * or failed by the verdict; STREAM_HOOK_ERROR: conn_script_failed). */
static inline bool conn_stream_stopped(const struct conn_stream *s)
{
    return conn_stream_on(s) && s->verdict != STREAM_ON;
}

/* A completed stream's figures into st (conn_completed, at now). */
void conn_stream_record(const struct conn_stream *s, struct stats_stream *st, int64_t now);

/* The response is over (completed, failed or cut off): s is ready for the
 * next one. Nothing for a response that did not stream (or s NULL): inline,
 * as every response passes here. */
void conn_stream_end(struct conn_stream *s);

static inline void conn_stream_reset(struct conn_stream *s)
{
    if (s && s->on)
        conn_stream_end(s);
}

#endif
