/* HTTP/1.x for connections: response framing, the response-parsing glue
 * around http-parser, and pipelined request strings counted. http.c is the
 * only file that sees http_parser.h, so a move to another parser is a
 * change to http.c alone. What needs no parser has its own file: request
 * strings (http_request.h) and a response received whole (http_raw.h),
 * included here so that one include gives a caller the whole of HTTP/1.x. */
#ifndef VOLLEY_HTTP_H
#define VOLLEY_HTTP_H

#include "http_raw.h"
#include "http_request.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct http_rx;

/* Where a streamed response's body goes (http_rx_stream): its bytes as
 * they arrive, without any chunk framing, in order, with the rx that read
 * them (the caller finds its own state from it). */
typedef void (*http_sink)(struct http_rx *rx, const char *p, size_t n);

/* Incremental response parser state, embedded in each connection. Only
 * http.c knows the layout of the opaque part.
 *
 * Two paths give the same answers: a fast path for the common response
 * (whole head in the first read, Content-Length framing, plain Connection
 * header) that scans lines with memchr and then only counts body bytes, and
 * http-parser for everything else (chunked, read-until-close, 1xx, a head
 * split across reads, anything unusual). The fast path hands over to
 * http-parser before consuming anything, so the choice is invisible. */
struct http_rx {
    uint64_t opaque[4]; /* http_parser */
    uint64_t body_left; /* fast path: body bytes still to come */
    uint64_t body_len;  /* after completion: the body's length (decoded, without chunk framing) */
    uint16_t status;    /* status of the final response, once status_known */
    uint8_t head;       /* the request was HEAD: the response has no body */
    uint8_t keepalive;  /* after completion: the connection may be reused */
    uint8_t done;
    uint8_t mode;       /* fast path or http-parser; private to http.c */
    uint8_t eof;        /* the error was the end of the stream */
    uint8_t chunked;    /* after completion: the body came chunked */
    uint8_t status_known; /* the final response's head has been read (before its body
                           * may be complete): status is set */
    uint8_t event_stream; /* with status_known: its Content-Type is text/event-stream */
    uint8_t streaming;    /* with status_known: its body goes to sink (http_rx_stream) */
    uint8_t stream_asked; /* private: http_rx_stream's asked */
    uint8_t ct_name, ct_value; /* private: the parser's match of a Content-Type header */
    http_sink sink;       /* NULL: no body is streamed */
};

enum http_rx_result {
    HTTP_RX_MORE,  /* everything consumed, response not complete yet */
    HTTP_RX_HEAD,  /* a streamed response's head is complete (streaming set): *used
                    * bytes were its head; feed the rest again, its body goes to the
                    * sink as it comes. Only after http_rx_stream */
    HTTP_RX_DONE,  /* a final (non-1xx) response completed */
    HTTP_RX_ERROR, /* malformed response or unexpected end of stream */
};

/* Prepares rx for a new response; head: the request was a HEAD request.
 * parser_only: skip the fast path (for tests comparing the two). */
void http_rx_init(struct http_rx *rx, bool head);
void http_rx_init_parser_only(struct http_rx *rx, bool head);

/* After http_rx_init: a response whose Content-Type is
 * text/event-stream, or any response when asked, streams its body to sink
 * (HTTP_RX_HEAD first) instead of only counting it; one with no body (a
 * reply to HEAD, 204, 304, Content-Length: 0) does not. */
static inline void http_rx_stream(struct http_rx *rx, http_sink sink, bool asked)
{
    rx->sink = sink;
    rx->stream_asked = asked;
}

/* Feeds len bytes of the response stream; len == 0 means the peer closed
 * (a read-until-close body ends there). On HTTP_RX_DONE, *used is how many of
 * the bytes belonged to the response (any rest is unsolicited data). Interim
 * 1xx responses are skipped. No allocation. */
enum http_rx_result http_rx_feed(struct http_rx *rx, const char *buf, size_t len, size_t *used);

/* How many requests buf holds, for pipelining, framed as a server frames
 * them (http-parser in request mode): bodies by Content-Length or chunked
 * encoding (extensions, trailers), no body without either. Counts every
 * request that completes, also behind one that asks to close. Returns at
 * least 1: bytes after the last complete request that do not form another
 * (cut short, or a parse error) count with the request before them, so a
 * string that is malformed from its start counts as 1. After an upgrade or
 * CONNECT request, the rest is not counted. No allocation. */
unsigned http_count_requests(const char *buf, size_t len);
/* The same without the fast path for one request (for tests comparing the
 * two). */
unsigned http_count_requests_parser_only(const char *buf, size_t len);

/* Short description of the last parse error, for diagnostics. */
const char *http_rx_error(const struct http_rx *rx);

/* Why the end of the stream cut rx's response short (the peer closed it
 * before HTTP_RX_DONE), for the report's read failures: "closed before
 * the response" (no byte of it came), "closed in the head", "body cut
 * short at 5 of 100 bytes", or with a chunked body "body cut short at 5
 * bytes (chunked)". Writes at most n bytes into buf (n >= 64 holds any)
 * and returns buf. No allocation. */
const char *http_rx_cut_reason(const struct http_rx *rx, char *buf, size_t n);

/* The http-parser library volley runs with, "http-parser 2.9.4" into buf
 * (--version). Returns buf. */
char *http_library_version(char *buf, size_t len);

#endif
