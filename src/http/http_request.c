/* Request strings: encoded from a request's parts, and taken apart for
 * HTTP/2. Plain scanning; no parser is involved. */
#include "http_request.h"

#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool has_header(const struct http_request_spec *s, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < s->nheaders; i++)
        if (strncasecmp(s->headers[i], name, n) == 0 && s->headers[i][n] == ':')
            return true;
    return false;
}

char *http_request_encode(const struct http_request_spec *s, size_t *len)
{
    size_t cap = strlen(s->method) + strlen(s->path) + strlen(s->host_header) + s->body_len + 128;
    if (s->user_agent)
        cap += strlen(s->user_agent) + 14;
    if (s->origin)
        cap += strlen(s->origin) + (s->proxy_auth ? strlen(s->proxy_auth) + 24 : 0);
    for (size_t i = 0; i < s->nheaders; i++)
        cap += strlen(s->headers[i]) + 2;
    char *buf = xmalloc(cap);
    size_t n = (size_t)snprintf(buf, cap, "%s %s%s HTTP/1.%c\r\n", s->method, s->origin ? s->origin : "", s->path,
                                s->http10 ? '0' : '1');
    if (s->origin && s->proxy_auth && !has_header(s, "Proxy-Authorization")) /* as http_request_absolute */
        n += (size_t)snprintf(buf + n, cap - n, "Proxy-Authorization: %s\r\n", s->proxy_auth);
    if (!has_header(s, "Host"))
        n += (size_t)snprintf(buf + n, cap - n, "Host: %s\r\n", s->host_header);
    if (s->user_agent && !has_header(s, "User-Agent"))
        n += (size_t)snprintf(buf + n, cap - n, "User-Agent: %s\r\n", s->user_agent);
    for (size_t i = 0; i < s->nheaders; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s\r\n", s->headers[i]);
    if (s->body_len && !has_header(s, "Content-Length"))
        n += (size_t)snprintf(buf + n, cap - n, "Content-Length: %zu\r\n", s->body_len);
    if (!s->keepalive && !s->http10 && !has_header(s, "Connection"))
        n += (size_t)snprintf(buf + n, cap - n, "Connection: close\r\n");
    n += (size_t)snprintf(buf + n, cap - n, "\r\n");
    if (s->body_len)
        memcpy(buf + n, s->body, s->body_len);
    *len = n + s->body_len;
    return buf;
}

char *http_request_absolute(const char *req, size_t len, const char *origin, const char *auth, size_t *out_len)
{
    const char *sp = memchr(req, ' ', len);
    const char *eol = memchr(req, '\n', len);
    size_t at = sp && eol && sp < eol && sp[1] == '/' ? (size_t)(sp + 1 - req) : 0;
    size_t line_end = eol ? (size_t)(eol + 1 - req) : len;
    size_t olen = at ? strlen(origin) : 0;
    size_t alen = auth ? strlen(auth) + 23 : 0; /* "Proxy-Authorization: " CRLF */
    char *out = xmalloc(len + olen + alen + 1);
    size_t n = 0;
    memcpy(out, req, at);
    n += at;
    memcpy(out + n, origin, olen);
    n += olen;
    memcpy(out + n, req + at, line_end - at);
    n += line_end - at;
    if (auth)
        n += (size_t)sprintf(out + n, "Proxy-Authorization: %s\r\n", auth);
    memcpy(out + n, req + line_end, len - line_end);
    n += len - line_end;
    *out_len = n;
    return out;
}

char *http_request_tunnel(const char *authority, const char *auth, size_t *len)
{
    size_t cap = 2 * strlen(authority) + (auth ? strlen(auth) : 0) + 96;
    char *buf = xmalloc(cap);
    int n = snprintf(buf, cap, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s%s%s\r\n", authority, authority,
                     auth ? "Proxy-Authorization: " : "", auth ? auth : "", auth ? "\r\n" : "");
    *len = (size_t)n;
    return buf;
}

/* Whether the header name [n, n + len) is lower in any case. */
static bool header_is(const char *n, size_t len, const char *lower)
{
    return strlen(lower) == len && strncasecmp(n, lower, len) == 0;
}

int http_request_parts(const char *req, size_t len, struct http_parts *p, const char **why)
{
    const char *end = req + len, *line = req;
    const char *nl = memchr(line, '\n', len);
    const char *sp1 = nl ? memchr(line, ' ', (size_t)(nl - line)) : NULL;
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(nl - sp1 - 1)) : NULL;
    if (!sp2 || sp1 == line || sp2 == sp1 + 1) {
        *why = "not an HTTP request line";
        return -1;
    }
    p->method = line;
    p->method_len = (size_t)(sp1 - line);
    p->path = sp1 + 1;
    p->path_len = (size_t)(sp2 - sp1 - 1);
    p->host = NULL;
    p->host_len = 0;
    p->nheaders = 0;
    uint64_t clen = 0;
    for (line = nl + 1; line < end; line = nl + 1) {
        nl = memchr(line, '\n', (size_t)(end - line));
        if (!nl) {
            *why = "the request's head does not end";
            return -1;
        }
        const char *e = nl > line && nl[-1] == '\r' ? nl - 1 : nl;
        if (e == line)
            break; /* the blank line */
        const char *colon = memchr(line, ':', (size_t)(e - line));
        if (!colon) {
            *why = "a header line without a colon";
            return -1;
        }
        size_t nlen = (size_t)(colon - line);
        const char *v = colon + 1;
        while (v < e && (*v == ' ' || *v == '\t'))
            v++;
        size_t vlen = (size_t)(e - v);
        if (header_is(line, nlen, "host")) {
            p->host = v;
            p->host_len = vlen;
        } else if (header_is(line, nlen, "content-length")) {
            clen = strtoull(v, NULL, 10);
        } else if (header_is(line, nlen, "transfer-encoding")) {
            *why = "a chunked request body is HTTP/1's (give the body whole, with Content-Length)";
            return -1;
        } else if (!header_is(line, nlen, "connection") && !header_is(line, nlen, "keep-alive") &&
                   !header_is(line, nlen, "proxy-connection") && !header_is(line, nlen, "upgrade") &&
                   !header_is(line, nlen, "te")) {
            if (p->nheaders == HTTP_PARTS_MAX) {
                *why = "more than 64 headers";
                return -1;
            }
            p->headers[p->nheaders].name = line;
            p->headers[p->nheaders].name_len = nlen;
            p->headers[p->nheaders].value = v;
            p->headers[p->nheaders].value_len = vlen;
            p->nheaders++;
        }
    }
    if (line >= end) {
        *why = "the request's head does not end";
        return -1;
    }
    p->body = nl + 1;
    p->body_len = (size_t)(end - p->body);
    if (p->body_len != clen) {
        *why = p->body_len > clen ? "more than one request in the string (pipelining is HTTP/1's)"
                                  : "a body shorter than its Content-Length";
        return -1;
    }
    return 0;
}
