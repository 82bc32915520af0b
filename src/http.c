/* Request encoding and the http-parser glue. The parser is given only the
 * callbacks the core needs (headers complete, message complete): no header
 * or body callbacks, so parsing a response costs one pass over its bytes. */
#include "http.h"

#include "xalloc.h"

#include <http_parser.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

_Static_assert(sizeof(http_parser) <= sizeof(((struct http_rx *)0)->opaque), "http_rx.opaque too small");

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
    for (size_t i = 0; i < s->nheaders; i++)
        cap += strlen(s->headers[i]) + 2;
    char *buf = xmalloc(cap);
    size_t n = (size_t)snprintf(buf, cap, "%s %s HTTP/1.%c\r\n", s->method, s->path, s->http10 ? '0' : '1');
    if (!has_header(s, "Host"))
        n += (size_t)snprintf(buf + n, cap - n, "Host: %s\r\n", s->host_header);
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

static int on_headers_complete(http_parser *p)
{
    struct http_rx *rx = p->data;
    /* 1: tell the parser that this response has no body. */
    return rx->head && p->status_code / 100 != 1 ? 1 : 0;
}

static int on_message_complete(http_parser *p)
{
    struct http_rx *rx = p->data;
    if (p->status_code / 100 == 1 && p->status_code != 101)
        return 0; /* interim response: the final one follows */
    rx->status = (uint16_t)p->status_code;
    rx->keepalive = (uint8_t)http_should_keep_alive(p);
    rx->done = 1;
    /* Stop here so the caller learns where this response ended. */
    http_parser_pause(p, 1);
    return 0;
}

static const http_parser_settings settings = {
    .on_headers_complete = on_headers_complete,
    .on_message_complete = on_message_complete,
};

void http_rx_init(struct http_rx *rx, bool head)
{
    http_parser *p = (http_parser *)rx->opaque;
    http_parser_init(p, HTTP_RESPONSE);
    p->data = rx;
    rx->status = 0;
    rx->head = head;
    rx->keepalive = 0;
    rx->done = 0;
}

enum http_rx_result http_rx_feed(struct http_rx *rx, const char *buf, size_t len, size_t *used)
{
    http_parser *p = (http_parser *)rx->opaque;
    size_t n = http_parser_execute(p, &settings, buf, len);
    if (rx->done) {
        http_parser_pause(p, 0);
        *used = n;
        return HTTP_RX_DONE;
    }
    if (HTTP_PARSER_ERRNO(p) != HPE_OK)
        return HTTP_RX_ERROR;
    if (len == 0)
        return HTTP_RX_ERROR; /* closed before the response was complete */
    *used = n;
    return HTTP_RX_MORE;
}

const char *http_rx_error(const struct http_rx *rx)
{
    const http_parser *p = (const http_parser *)rx->opaque;
    return http_errno_description(HTTP_PARSER_ERRNO(p));
}
