/* HTTP/1 request strings, without a parser: a request encoded from its
 * parts (what is written for it), and a request string taken apart again
 * for HTTP/2 (http.c, with http-parser, frames and counts them). */
#ifndef VOLLEY_HTTP_REQUEST_H
#define VOLLEY_HTTP_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct http_request_spec {
    const char *method;
    const char *path;        /* path and query */
    const char *host_header; /* used unless headers hold a Host header */
    const char *user_agent;  /* used unless headers hold a User-Agent header; NULL: none */
    const char **headers;    /* "Name: value" lines without CRLF */
    size_t nheaders;
    const char *body;
    size_t body_len;
    bool http10;
    bool keepalive;          /* false: ask the server to close (HTTP/1.1) */
    const char *origin;      /* through an HTTP proxy: "http://host[:port]", put before the
                              * path (absolute-form, RFC 9112 3.2.2); NULL: origin-form */
    const char *proxy_auth;  /* with origin: a Proxy-Authorization value, or NULL */
};

/* A request encoded whole: what is written for it. */
struct http_req {
    const char *bytes;
    size_t len;
};

/* volley's own User-Agent value: what `volley --version` names. */
#define HTTP_USER_AGENT "volley/" VOLLEY_VERSION

/* Encodes one request: request line, Host, User-Agent (when user_agent is
 * set), the given headers (a Host or User-Agent among them, in any case,
 * replaces the default), Content-Length when there is a body (unless
 * given), Connection: close when !keepalive on HTTP/1.1 (unless a
 * Connection header is given), blank line, body. Returns a malloc'd buffer
 * (caller frees) and its length in *len. */
char *http_request_encode(const struct http_request_spec *spec, size_t *len);

/* An encoded request (req, len: one, from http_request_encode) again in
 * absolute-form for an HTTP proxy: origin ("http://host[:port]") put
 * before its origin-form target, and a Proxy-Authorization: auth line
 * after the request line when auth is not NULL. Returns a malloc'd buffer
 * (caller frees), its length in *out_len. */
char *http_request_absolute(const char *req, size_t len, const char *origin, const char *auth, size_t *out_len);

/* The CONNECT request that asks an HTTP proxy for a tunnel to
 * authority ("host:port", an IPv6 host bracketed), with a
 * Proxy-Authorization value when auth is not NULL. Returns a malloc'd
 * buffer (caller frees), its length in *len. */
char *http_request_tunnel(const char *authority, const char *auth, size_t *len);

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

#endif
