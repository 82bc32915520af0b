/* HTTP/2 framing for connections: a thin layer over libnghttp2's callback
 * API. nghttp2 only turns bytes into frames and back (HPACK, flow control,
 * stream states); the connection owns the socket, the event loop and the
 * timing, feeding what it read to h2_recv and writing what h2_send gives.
 * This is the only file that sees nghttp2.h. */
#ifndef VOLLEY_H2_H
#define VOLLEY_H2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A request body being sent: the caller keeps it (and data) alive until
 * the stream closes. */
struct h2_body {
    const char *data;
    size_t len, off;
};

struct h2_header {
    const char *name, *value;
    size_t name_len, value_len;
};

/* One request; nghttp2 copies the header strings at h2_submit. */
struct h2_request {
    const char *method, *path, *authority, *scheme;
    size_t method_len, path_len, authority_len, scheme_len;
    const struct h2_header *headers; /* regular headers, names in lower case */
    size_t nheaders;
    struct h2_body *body;            /* NULL: no body */
    bool lasting;                    /* the strings outlive the session: nghttp2 need not copy them */
};

/* What the session keeps of one stream's response to check it: the
 * caller embeds one per stream slot and hands it to h2_submit with the
 * stream. Its fields are h2.c's. (volley checks each response's :status and
 * content-length itself, and not nghttp2: see h2.c.) */
struct h2_msg {
    void *stream;           /* the caller's stream pointer, for events */
    int64_t content_length; /* -1: none */
    uint64_t data;          /* DATA bytes received */
    uint16_t status;        /* the final status, 0 before it */
    uint8_t flags;
    bool event_stream;      /* read-only: the final response's content-type is
                             * text/event-stream */
};

/* What the session reports, to the connection (conn) about one of its
 * streams (the pointer given to h2_submit). Called from h2_recv and
 * h2_send only. */
struct h2_events {
    void (*on_begin)(void *conn, void *stream);   /* a response's first frame */
    /* The final status (200-599; 1xx responses are not reported), before
     * the response's fields and content. */
    void (*on_status)(void *conn, void *stream, int status);
    /* A field of the final response (trailer false) or of its trailers
     * (the header block after its content: trailer true), checked; NULL:
     * the caller needs none (they are still checked). */
    void (*on_header)(void *conn, void *stream, const char *name, size_t nlen, const char *value, size_t vlen,
                      bool trailer);
    void (*on_data)(void *conn, void *stream, const char *data, size_t len);
    /* The stream ended: error 0 after its whole response (END_STREAM came),
     * else the RST_STREAM (or GOAWAY) error code; why is NULL, or says how
     * the response broke HTTP (then volley reset the stream: error is
     * PROTOCOL_ERROR), or, with error 0, that the server reset the stream
     * with NO_ERROR before the response ended. */
    void (*on_close)(void *conn, void *stream, uint32_t error, const char *why);
    void (*on_goaway)(void *conn, int32_t last_stream_id, uint32_t error);
    /* The server's SETTINGS arrived: its limit on streams at once. */
    void (*on_settings)(void *conn, uint32_t max_streams);
    /* The server broke the protocol: nghttp2 ends the connection (it sends
     * GOAWAY); reason says how. */
    void (*on_error)(void *conn, const char *reason);
};

struct h2_session;
struct mpool;

/* The error code of a stream the server refused before processing it
 * (RFC 9113 8.7: safe to send again). */
#define H2_REFUSED_STREAM 0x7

/* A client session: the connection preface and SETTINGS (push off, the
 * receive window of window bytes for each stream and for the connection)
 * are queued for h2_send. nghttp2's memory comes from pool (the worker's;
 * NULL: malloc), so the pool must outlive the session. Returns NULL only
 * when out of memory. */
struct h2_session *h2_session_new(const struct h2_events *ev, void *conn, uint32_t window, struct mpool *pool);
void h2_session_free(struct h2_session *s);

/* Queues a request; stream is handed back with its events, and m (the
 * caller's, alive until the stream's on_close or h2_cancel) follows its
 * response. Returns the stream id (> 0), or -1 (no more stream ids, or the
 * session is going away). */
int32_t h2_submit(struct h2_session *s, const struct h2_request *r, void *stream, struct h2_msg *m);

/* Feeds len bytes read from the peer. Returns 0, or -1 when the peer broke
 * the protocol (h2_error says how; the session then only has its GOAWAY
 * left to send). */
int h2_recv(struct h2_session *s, const char *buf, size_t len);

/* The next bytes to write (frames, WINDOW_UPDATEs, acknowledgements):
 * *out points to them until the next call. 0: nothing to write. -1: a
 * session error (h2_error). */
long h2_send(struct h2_session *s, const char **out);

/* The connection is gone from inside one of s's events (a hook error
 * stopped the run, say): s reports nothing more, and the h2_recv or
 * h2_send under way returns at once, the rest of its bytes unread. Only
 * h2_session_free is left to call. */
void h2_halt(struct h2_session *s);

/* Cancels a stream (RST_STREAM CANCEL): a request that timed out. No
 * event names its stream pointer after this. */
void h2_cancel(struct h2_session *s, int32_t stream_id);

/* The streams the server allows at once (SETTINGS_MAX_CONCURRENT_STREAMS;
 * UINT32_MAX until it says). */
uint32_t h2_peer_max_streams(struct h2_session *s);

/* Whether the session has ended: both sides are done (GOAWAY, or a fatal
 * error) and nothing is left to write. */
bool h2_finished(struct h2_session *s);

/* Why the last call failed, as nghttp2 words it. */
const char *h2_error(const struct h2_session *s);

/* The name of an HTTP/2 error code ("REFUSED_STREAM"). */
const char *h2_error_name(uint32_t code);

/* Header bytes received as sent on the wire (HEADERS payloads) and after
 * decoding (names and values, 32 bytes of overhead each, as HPACK counts):
 * their ratio is the compression saving. */
void h2_header_sizes(const struct h2_session *s, uint64_t *wire, uint64_t *decoded);

/* The libnghttp2 volley runs with, "nghttp2 1.52.0" into buf (--version).
 * Returns buf. */
char *h2_library_version(char *buf, size_t len);

#endif
