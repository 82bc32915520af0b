/* HTTP/1.x for connections: request encoding and framing, and the
 * response-parsing glue around http-parser. This is the only file that sees
 * http_parser.h, so a move to another parser is a change to http.c alone. */
#ifndef VOLLEY_HTTP_H
#define VOLLEY_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct http_request_spec {
    const char *method;
    const char *path;        /* path and query */
    const char *host_header; /* used unless headers hold a Host header */
    const char **headers;    /* "Name: value" lines without CRLF */
    size_t nheaders;
    const char *body;
    size_t body_len;
    bool http10;
    bool keepalive;          /* false: ask the server to close (HTTP/1.1) */
};

/* A request encoded whole: what is written for it. */
struct http_req {
    const char *bytes;
    size_t len;
};

/* Encodes one request: request line, Host, the given headers, Content-Length
 * when there is a body (unless given), Connection: close when !keepalive on
 * HTTP/1.1 (unless a Connection header is given), blank line, body. Returns a
 * malloc'd buffer (caller frees) and its length in *len. */
char *http_request_encode(const struct http_request_spec *spec, size_t *len);

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
};

enum http_rx_result {
    HTTP_RX_MORE,  /* everything consumed, response not complete yet */
    HTTP_RX_DONE,  /* a final (non-1xx) response completed */
    HTTP_RX_ERROR, /* malformed response or unexpected end of stream */
};

/* Prepares rx for a new response; head: the request was a HEAD request.
 * parser_only: skip the fast path (for tests comparing the two). */
void http_rx_init(struct http_rx *rx, bool head);
void http_rx_init_parser_only(struct http_rx *rx, bool head);

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

/* One HTTP/1 request string taken apart, for HTTP/2 (pointers into the
 * string). Header names keep their case; hop-by-hop headers (Connection,
 * Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade, TE) are left
 * out, Host is kept apart (it becomes :authority), Content-Length too. */
#define HTTP_PARTS_MAX 64
struct http_parts {
    const char *method, *path, *host, *body;
    size_t method_len, path_len, host_len, body_len;
    struct {
        const char *name, *value;
        size_t name_len, value_len;
    } headers[HTTP_PARTS_MAX];
    size_t nheaders;
};

/* Takes req apart into *p. Returns 0, or -1 with *why: not one whole
 * request (pipelined requests, a body longer or shorter than its
 * Content-Length), a chunked body, more than HTTP_PARTS_MAX headers, or a
 * malformed request line. No allocation. */
int http_request_parts(const char *req, size_t len, struct http_parts *p, const char **why);

/* For a response received whole and accepted by http_rx_feed (len bytes
 * from its first byte): the offset just past its final head, skipping any
 * 1xx interim responses before it. The body follows. */
size_t http_final_head_end(const char *raw, size_t len);

/* Decodes the chunked body of such a response in place (the framing is
 * known to be valid) and returns its decoded length. *trailers: where the
 * trailer section begins in body (the field lines after the last chunk,
 * then the blank line, up to len), left in place by the decoding. */
size_t http_dechunk(char *body, size_t len, size_t *trailers);

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
