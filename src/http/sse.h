/* Server-sent events: an incremental parser for text/event-stream bodies
 * (WHATWG HTML, "Parsing an event stream" and "Interpreting an event
 * stream"), and for line-delimited bodies (NDJSON) as one event a line. It
 * sees only bytes: the framings feed it a response body's bytes as they
 * arrive (HTTP/1.1 after dechunking, HTTP/2 DATA), in pieces of any size. */
#ifndef VOLLEY_SSE_H
#define VOLLEY_SSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sse_mode {
    SSE_EVENTS, /* text/event-stream: fields, events ended by a blank line */
    SSE_LINES,  /* every non-empty line is an event of type "line" */
};

struct sse_event {
    const char *type; size_t type_len; /* the event: field's value; "message" when none */
    const char *data; size_t data_len; /* the data: lines joined with LF, without the last LF */
    const char *id; size_t id_len;     /* the last event ID (kept across events, as the spec says); may be empty */
    int64_t retry;                     /* ms, when this event's block had a valid retry: field; else -1 */
};
/* The pointers are valid only during the callback. */

typedef int (*sse_event_fn)(void *ctx, const struct sse_event *ev); /* nonzero: stop */

/* A stream's parser state, embedded in the stream's own state (112
 * bytes). Callers read only `comments`, `events` and `cap`; everything
 * else is sse.c's.
 *
 * Memory: an event that lies whole in one feed with at most one data line
 * is dispatched with pointers into the fed bytes, and nothing is copied.
 * The buffer is allocated when something must outlive a feed (an event or a
 * line split across feeds, the last event ID) or an event has several data
 * lines; it starts at 256 bytes (or max), grows by doubling up to max, and
 * is kept by sse_init, so a stream (or a slot reused for the next stream)
 * allocates nothing in the steady state. */
struct sse {
    char *buf;            /* owned; NULL until needed */
    const char *in_data;  /* during a feed: values that are still in the fed bytes */
    const char *in_type;
    const char *in_id;
    int64_t retry;        /* this block's valid retry: value, or -1 */
    uint64_t comments;    /* read-only: comment lines (starting with ':') seen, SSE_EVENTS */
    uint64_t events;      /* read-only: events dispatched (fn called) */
    uint32_t cap;         /* read-only: bytes allocated at buf (never above max) */
    uint32_t max;         /* bound on one event's bytes, see sse_feed */
    uint32_t id_len;      /* the last event ID, at buf[0, id_len) */
    uint32_t data_len;    /* the block's data so far, each line's value and its LF */
    uint32_t line_len;    /* a line started in an earlier feed, after the data in buf */
    uint32_t top_len;     /* event: and id: values kept at the end of buf */
    uint32_t type_len, type_at; /* the block's event: value (type_at: its distance from buf's end) */
    uint32_t pid_len, pid_at;   /* the block's id: value, committed when the block ends */
    uint32_t kept;        /* bytes of the block's event: and id: values, counted against max */
    uint8_t mode;         /* enum sse_mode */
    uint8_t status;       /* enum sse_status: not SSE_OK once the stream has failed or stopped */
    uint8_t bom;          /* BOM bytes matched at the stream's start; BOM_DONE past it */
    uint8_t cr;           /* the last feed ended with a CR: a LF first in the next ends the same line */
    uint8_t data_where, type_where, pid_where; /* none, in the fed bytes or in buf */
};

/* Prepares p for a new stream: mode, and max, the most bytes one event may
 * take (its pending line, its data (each line's value and LF), every
 * event: and id: value in its block, and the last event ID, together;
 * at most UINT32_MAX / 2). p must be all zero bytes before its first
 * sse_init (a calloc'd or `= {0}` struct) or have been given to sse_free;
 * a buffer it has is kept for reuse (freed if larger than max). */
void sse_init(struct sse *p, enum sse_mode mode, size_t max);

/* Frees p's buffer; p may be given to sse_init again. */
void sse_free(struct sse *p);

enum sse_status {
    SSE_OK,
    SSE_TOO_LARGE, /* an event outgrew max: the stream cannot be parsed further */
    SSE_STOPPED,   /* the callback asked to stop */
};

/* Feeds n bytes (n may be 0); fn is called for each event completed in them, in order
 * (fn must not feed or finish p).
 * SSE_TOO_LARGE: one event (its pending line, data, type and id bytes together) outgrew max;
 * SSE_STOPPED: fn returned nonzero (the rest of the bytes is not parsed). After either,
 * further feeds return the same status and call nothing. The bytes need to
 * live only during the call. No allocation unless the buffer must grow. */
enum sse_status sse_feed(struct sse *p, const char *bytes, size_t n, sse_event_fn fn, void *ctx);

/* The body ended. SSE_EVENTS: an event not terminated by a blank line is dropped (the spec);
 * SSE_LINES: a last line without its line end is one more event. *dropped (may be NULL): bytes
 * of an unfinished event were pending (for a reason such as "stream ended inside an event"):
 * a line without its end, or data not dispatched (false once the stream has failed or stopped).
 * Returns the status as sse_feed does; after
 * it the parser holds no event (sse_init starts the next stream). */
enum sse_status sse_finish(struct sse *p, sse_event_fn fn, void *ctx, bool *dropped);

/* Counters the caller may read: comments (lines starting with ':') seen, events dispatched. */
uint64_t sse_comments(const struct sse *p);
uint64_t sse_events(const struct sse *p);

#endif
