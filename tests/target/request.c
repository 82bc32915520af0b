/*
 * volley-target, one request: what http_parser reports about it (URL,
 * headers, the raw head for /echo, the --log line), routing it to a kind,
 * counting it, and queueing its response on the connection's output (conn.c
 * writes it). Paths and their responses are listed in tests/target/README.md.
 */
#define _GNU_SOURCE   /* memmem */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vtarget.h"

/* ---- buffers ------------------------------------------------------------ */

static void buf_add(struct buf *b, const void *data, size_t len)
{
    if (len == 0)
        return;
    if (b->cap - b->len < len) {
        size_t cap = b->cap ? b->cap : 128;
        while (cap - b->len < len)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p)
            die("out of memory");
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, len);
    b->len += len;
}

static void buf_free(struct buf *b)
{
    free(b->p);
    *b = (struct buf){ 0 };
}

void request_free(struct conn *c)
{
    buf_free(&c->raw);
    buf_free(&c->hname);
    buf_free(&c->hval);
    buf_free(&c->logline);
    buf_free(&c->body);
}

/* Case-insensitive: is the n bytes at s the header name `name`? */
static bool name_is(const char *s, size_t n, const char *name)
{
    return n == strlen(name) && strncasecmp(s, name, n) == 0;
}

/* ---- the raw request head, for /echo ------------------------------------ */

/* Copy the request head (request line through the blank line, exactly as
 * received, up to ECHO_MAX bytes) out of the bytes http_parser consumed;
 * parse() calls this after each http_parser_execute, before dispatch. The
 * parser pauses at the end of each request, so one call never sees bytes of
 * two requests. Like http_parser, it skips CR/LF before a request line, and
 * a line that is empty or just CR ends the head; the body (and any chunked
 * trailer) is not copied. The copy stays valid until the next request begins
 * (on_message_begin), which is after this one has been answered. */
void head_track(struct conn *c, const char *p, size_t len)
{
    const char *end = p + len;
    while (p < end && c->hs != HS_AFTER) {
        if (c->hs == HS_BEFORE) {
            if (*p == '\r' || *p == '\n') {
                p++;
                continue;
            }
            c->hs = HS_HEAD;
            c->raw.len = 0;
            c->line_len = 0;
        }
        const char *lf = memchr(p, '\n', (size_t)(end - p));
        const char *stop = lf ? lf + 1 : end;
        size_t k = (size_t)(stop - p);
        if (c->raw.len < ECHO_MAX)
            buf_add(&c->raw, p, k < ECHO_MAX - c->raw.len ? k : ECHO_MAX - c->raw.len);
        if (!lf) {                 /* the line goes on in the next read */
            if (c->line_len == 0)
                c->line_c0 = *p;
            c->line_len += k;
            break;
        }
        size_t ll = c->line_len + (size_t)(lf - p);   /* line length before LF */
        char c0 = c->line_len ? c->line_c0 : *p;
        c->line_len = 0;
        p = stop;
        if (ll == 0 || (ll == 1 && c0 == '\r'))
            c->hs = HS_AFTER;
    }
}

/* ---- http_parser callbacks ---------------------------------------------- */

static void log_add(struct conn *c, const char *s, size_t n)
{
    buf_add(&c->logline, s, n);
}

static int on_message_begin(http_parser *p)
{
    struct conn *c = p->data;
    c->url_len = 0;
    c->hs = HS_BEFORE;             /* head_track copies this request's head */
    c->hname.len = c->hval.len = c->logline.len = 0;
    c->body_len = 0;
    c->body_hash = 2166136261u;    /* FNV-1a's offset basis */
    c->in_value = c->headers_done = false;
    c->req.authorized = c->req.bearer = false;
    c->keep_body = c->body_over = false;
    c->body.len = 0;
    c->req_id[0] = 0;
    return 0;
}

static int on_url(http_parser *p, const char *at, size_t len)
{
    struct conn *c = p->data;
    if (req_log) {                 /* the log has the whole target, untruncated */
        if (c->logline.len == 0) {
            char pre[64];
            int n = snprintf(pre, sizeof pre, "%llu %s ", c->seq,
                             http_method_str((enum http_method)p->method));
            log_add(c, pre, (size_t)n);
        }
        log_add(c, at, len);
    }
    size_t room = URL_MAX - 1 - c->url_len;
    if (len > room)
        len = room;
    memcpy(c->url + c->url_len, at, len);
    c->url_len += len;
    return 0;
}

/* "Bearer tok-" and one or more digits, nothing else (the scheme and the
 * token are matched as written, only header names are case-insensitive). */
static bool bearer_token(const char *v, size_t n)
{
    static const char pre[] = "Bearer tok-";
    size_t pl = sizeof pre - 1;
    if (n <= pl || memcmp(v, pre, pl) != 0)
        return false;
    for (size_t i = pl; i < n; i++)
        if (v[i] < '0' || v[i] > '9')
            return false;
    return true;
}

/* One header of the head is complete (name in c->hname, value in c->hval if
 * keep_value). */
static void header_done(struct conn *c)
{
    const char *name = c->hname.p;
    size_t nl = c->hname.len;
    bool auth = name_is(name, nl, "Authorization");
    if (auth || name_is(name, nl, "X-Token"))
        c->req.authorized = true;
    if (!c->keep_value)
        return;
    /* http_parser drops whitespace before a value, not after it; neither is
     * part of the value (RFC 9110 5.5). */
    const char *v = c->hval.p;
    size_t vl = c->hval.len;
    while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
        vl--;
    if (auth && bearer_token(v, vl))
        c->req.bearer = true;
    if (name_is(name, nl, "X-Request-Id")) {   /* the /v1 truth log's request id */
        size_t n = vl < REQ_ID_MAX ? vl : REQ_ID_MAX;
        for (size_t i = 0; i < n; i++)
            c->req_id[i] = v[i] > ' ' && v[i] < 127 ? v[i] : '?';
        c->req_id[n] = 0;
    }
    if (req_log) {
        log_add(c, " ", 1);
        log_add(c, name, nl);
        log_add(c, "=", 1);
        log_add(c, v, vl);
    }
}

/* A header's name and value may each arrive in several pieces (split
 * reads); a name piece after a value piece starts the next header. */
static int on_header_field(http_parser *p, const char *at, size_t len)
{
    struct conn *c = p->data;
    if (c->headers_done)
        return 0;                  /* a chunked body's trailer: not in the head */
    if (c->in_value) {
        header_done(c);
        c->in_value = false;
        c->hname.len = 0;
    }
    buf_add(&c->hname, at, len);
    return 0;
}

static int on_header_value(http_parser *p, const char *at, size_t len)
{
    struct conn *c = p->data;
    if (c->headers_done)
        return 0;
    if (!c->in_value) {
        /* Keep the value only if something needs it: the /private check, or
         * the log (X-* and Authorization headers). */
        const char *name = c->hname.p;
        size_t nl = c->hname.len;
        c->in_value = true;
        c->hval.len = 0;
        c->keep_value = name_is(name, nl, "Authorization") || name_is(name, nl, "X-Request-Id") ||
                        (req_log && nl >= 2 && (name[0] == 'X' || name[0] == 'x') &&
                         name[1] == '-');
    }
    if (c->keep_value)
        buf_add(&c->hval, at, len);
    return 0;
}

static int on_headers_complete(http_parser *p)
{
    struct conn *c = p->data;
    if (c->in_value)
        header_done(c);
    c->in_value = false;
    c->headers_done = true;
    /* The /v1 paths read their body; the others discard it. */
    c->keep_body = c->url_len >= 4 && memcmp(c->url, "/v1/", 4) == 0;
    return 0;
}

/* A /v1 path's body is kept (up to LLM_BODY_MAX); with --log-bodies, every
 * body's length and FNV-1a hash (32 bits), as decoded from Content-Length
 * or chunked framing. */
static int on_body(http_parser *p, const char *at, size_t len)
{
    struct conn *c = p->data;
    if (c->keep_body && !c->body_over) {
        if (c->body.len + len <= LLM_BODY_MAX)
            buf_add(&c->body, at, len);
        else
            c->body_over = true;
    }
    if (!opt.log_bodies)
        return 0;
    c->body_len += len;
    for (size_t i = 0; i < len; i++)
        c->body_hash = (c->body_hash ^ (unsigned char)at[i]) * 16777619u;
    return 0;
}

/* Pause so http_parser_execute returns right after this request; parse()
 * then handles it before parsing any pipelined request behind it. */
static int on_message_complete(http_parser *p)
{
    struct conn *c = p->data;
    c->req.head = p->method == HTTP_HEAD;
    c->req.post = p->method == HTTP_POST;
    c->req.keep_alive = http_should_keep_alive(p);
    c->req.http10 = p->http_major == 1 && p->http_minor == 0;
    c->req_done = true;
    http_parser_pause(p, 1);
    return 0;
}

void request_parser_settings(http_parser_settings *s)
{
    http_parser_settings_init(s);
    s->on_message_begin = on_message_begin;
    s->on_url = on_url;
    s->on_header_field = on_header_field;
    s->on_header_value = on_header_value;
    s->on_headers_complete = on_headers_complete;
    s->on_message_complete = on_message_complete;
    s->on_body = on_body;
}

/* ---- routing ------------------------------------------------------------ */

/* 0: path is not `name` nor under it; 1: exactly `name`;
 * 2: `name/N` with N parsed; -1: `name/` followed by something else. */
static int match(const char *path, size_t len, const char *name, unsigned long long *num)
{
    size_t nl = strlen(name);
    if (len < nl || memcmp(path, name, nl) != 0)
        return 0;
    if (len == nl)
        return 1;
    if (path[nl] != '/')
        return 0;
    if (len == nl + 1 || len - nl - 1 > 12)
        return -1;
    unsigned long long v = 0;
    for (size_t i = nl + 1; i < len; i++) {
        if (path[i] < '0' || path[i] > '9')
            return -1;
        v = v * 10 + (unsigned)(path[i] - '0');
    }
    *num = v;
    return 2;
}

static void route(struct conn *c, struct req *r)
{
    const char *p = c->url;
    size_t len = c->url_len;
    /* absolute-form request target: skip "scheme://authority" */
    if (len && p[0] != '/') {
        const char *s = memmem(p, len, "://", 3);
        const char *slash = s ? memchr(s + 3, '/', len - (size_t)(s + 3 - p)) : NULL;
        len = slash ? len - (size_t)(slash - p) : 0;
        p = slash ? slash : "/";
    }
    for (size_t i = 0; i < len; i++)
        if (p[i] == '?' || p[i] == '#') {
            len = i;
            break;
        }

    unsigned long long n = 0;
    int m;
    r->n = 0;
    r->kind = K_HELLO;
    if (len <= 1)
        return;                    /* "/": the common case needs no lookup */
    if ((m = match(p, len, "/bytes", &n)) != 0)
        r->kind = (m == 2 && n <= MAX_BYTES) ? K_BYTES : K_BAD;
    else if ((m = match(p, len, "/chunked", &n)) != 0)
        r->kind = (m == 2 && n <= MAX_BYTES) ? K_CHUNKED : K_BAD;
    else if ((m = match(p, len, "/close", &n)) != 0)
        r->kind = (m == 1 || (m == 2 && n > 0)) ? K_CLOSE : K_BAD;
    else if ((m = match(p, len, "/delay", &n)) != 0)
        r->kind = m == 2 ? K_DELAY : K_BAD;
    else if ((m = match(p, len, "/status", &n)) != 0)
        r->kind = (m == 2 && n >= 100 && n <= 599) ? K_STATUS : K_BAD;
    else if ((m = match(p, len, "/json/items", &n)) != 0)
        r->kind = (m == 2 && n <= ITEMS_MAX) ? K_JSON_ITEMS : K_BAD;
    else if (match(p, len, "/json/bad", &n) == 1)
        r->kind = K_JSON_BAD;
    else if (match(p, len, "/never", &n) == 1)
        r->kind = K_NEVER;
    else if (match(p, len, "/drop", &n) == 1)
        r->kind = K_DROP;
    else if (match(p, len, "/http10", &n) == 1)
        r->kind = K_HTTP10;
    else if (match(p, len, "/continue", &n) == 1)
        r->kind = K_CONTINUE;
    else if (match(p, len, "/__stats", &n) == 1)
        r->kind = K_STATS;
    else if (match(p, len, "/authenticate", &n) == 1)
        r->kind = K_AUTHENTICATE;
    else if (match(p, len, "/login", &n) == 1)
        r->kind = K_LOGIN;
    else if (match(p, len, "/private", &n) == 1)
        r->kind = K_PRIVATE;
    else if (match(p, len, "/echo", &n) == 1)
        r->kind = K_ECHO;
    else if ((m = match(p, len, "/late", &n)) != 0)
        r->kind = (m == 2 && n >= 200 && n <= 599 && n != 204 && n != 304) ? K_LATE : K_BAD;
    else if ((m = match(p, len, "/tiny", &n)) != 0)
        r->kind = (m == 2 && n <= TINY_MAX) ? K_TINY : K_BAD;
    else if (match(p, len, "/trailers", &n) == 1)
        r->kind = K_TRAILERS;
    else if ((m = match(p, len, "/cutclose", &n)) != 0)
        r->kind = m == 1 ? K_CUTCLOSE : K_BAD;
    else if ((m = match(p, len, "/cut", &n)) != 0)
        r->kind = (m == 2 && n <= MAX_BYTES) ? K_CUT : K_BAD;
    else if (match(p, len, "/v1/chat/completions", &n) == 1)
        r->kind = K_LLM, n = 1;
    else if (match(p, len, "/v1/completions", &n) == 1)
        r->kind = K_LLM, n = 0;
    r->n = n;
}

/* ---- responses ---------------------------------------------------------- */

const char *status_reason(unsigned code)
{
    switch (code) {
    case 100: return "Continue";          case 200: return "OK";
    case 201: return "Created";           case 202: return "Accepted";
    case 204: return "No Content";        case 301: return "Moved Permanently";
    case 302: return "Found";             case 304: return "Not Modified";
    case 400: return "Bad Request";       case 403: return "Forbidden";
    case 404: return "Not Found";         case 429: return "Too Many Requests";
    case 500: return "Internal Server Error"; case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    }
    static const char *cls[] = { "Unknown", "Informational", "Success",
                                 "Redirection", "Client Error", "Server Error" };
    return cls[code / 100 <= 5 ? code / 100 : 0];
}

static unsigned long long ndigits(unsigned long long v)
{
    unsigned long long d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

/* /json/items/N: {"items":[{"id":1,"name":"item-1"},...]} with no spaces.
 * Its length is computed first so the body can be generated straight into
 * the output queue: 12 bytes of {"items":[ and ]}, 22 + 2 * digits(i) for
 * item i, and a comma between items. */
static void json_items(struct conn *c, const struct req *r, const char *ch)
{
    unsigned long long n = r->n, len = 12 + (n ? n - 1 : 0);
    for (unsigned long long i = 1; i <= n; i++)
        len += 22 + 2 * ndigits(i);
    out_printf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                  "Content-Length: %llu\r\n%s\r\n", len, ch);
    if (!r->head) {
        out_append(c, "{\"items\":[", 10);
        for (unsigned long long i = 1; i <= n; i++)
            out_printf(c, "%s{\"id\":%llu,\"name\":\"item-%llu\"}", i > 1 ? "," : "", i, i);
        out_append(c, "]}", 2);
    }
    push_mark(c, true);
}

/* Does the connection close after this response (c->nresp counts it)? */
static bool closes_after(const struct conn *c, const struct req *r)
{
    return !r->keep_alive || (r->kind == K_CLOSE && !r->n) || r->kind == K_HTTP10 ||
           (c->close_every && c->nresp % c->close_every == 0) ||
           (opt.close_every && c->nresp % opt.close_every == 0);
}

/* Queue the full response for r. Everything for a small response lands in
 * c->out so that it goes out in one write. */
void respond(struct conn *c, const struct req *r)
{
    static const char json[] = "application/json";
    if (c->streaming) {            /* a /v1 response: its next step is due */
        llm_due(c);
        return;
    }
    if (c->late) {                 /* /late/N's body, due now: the response ends */
        c->late = false;
        out_append(c, "hello world", 11);
        push_mark(c, true);
        c->closing = c->late_close;
        return;
    }
    c->nresp++;
    if (r->kind == K_CLOSE && r->n)
        c->close_every = r->n;
    bool close = closes_after(c, r);
    const char *ch = close ? "Connection: close\r\n"
                     : r->http10 ? "Connection: keep-alive\r\n" : "";
    c->closing = close;   /* acted on once everything queued is written */
    char body[STATS_JSON_MAX];
    char extra[64] = "";  /* more header lines, each ending in CRLF */
    const char *b = "hello world";
    size_t blen = SIZE_MAX;   /* SIZE_MAX: strlen(b) */
    const char *type = "text/plain";
    unsigned status = 200;
    bool counted = true;

    switch (r->kind) {
    case K_HTTP10:  /* no Content-Length: the client must read until close */
        out_printf(c, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n%s",
                   r->head ? "" : "hello world");
        push_mark(c, true);
        return;
    case K_BYTES:
    case K_TINY:      /* the body one byte per write: over TLS, a record per byte */
    case K_CUT:       /* half the body announced, then a close without close_notify */
        out_printf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                      "Content-Length: %llu\r\n%s\r\n", r->kind == K_CUT ? 2 * r->n : r->n, ch);
        if (!r->head) {
            c->raw_left = c->raw_total = r->n;
            c->queued += r->n;
            c->tiny = r->kind == K_TINY;
        }
        if (r->kind == K_CUT && !r->head) {
            push_mark(c, false);   /* never complete: not answered */
            c->closing = c->no_notify = true;
            return;
        }
        push_mark(c, true);
        return;
    case K_TRAILERS:  /* a chunked "hello", then a trailer field */
        out_printf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                      "Transfer-Encoding: chunked\r\nTrailer: X-Trailer\r\n%s\r\n%s", ch,
                   r->head ? "" : "5\r\nhello\r\n0\r\nX-Trailer: yes\r\n\r\n");
        push_mark(c, true);
        return;
    case K_CUTCLOSE:  /* read until close, and the close has no close_notify */
        out_printf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                      "Connection: close\r\n\r\n%s", r->head ? "" : "hello world");
        push_mark(c, true);
        c->closing = c->no_notify = true;
        return;
    case K_CHUNKED:
        out_printf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                      "Transfer-Encoding: chunked\r\n%s\r\n", ch);
        if (r->head) {
            push_mark(c, true);
        } else {
            c->chunk_left = r->n;
            c->chunk_pos = 0;
            c->chunk_active = true;
            gen_chunks(c);   /* pushes the mark when the last chunk is queued */
        }
        return;
    case K_JSON_ITEMS:
        json_items(c, r, ch);
        return;
    case K_STATUS:
        status = (unsigned)r->n;
        if (status < 200 || status == 204 || status == 304) {
            out_printf(c, "HTTP/1.1 %u %s\r\n%s\r\n", status, status_reason(status), ch);
            push_mark(c, true);
            return;
        }
        snprintf(body, sizeof body, "status %u\n", status);
        b = body;
        break;
    case K_CONTINUE:
        out_append(c, "HTTP/1.1 100 Continue\r\n\r\n", 25);
        break;
    case K_LATE:      /* the head now, the body LATE_MS later (the c->late branch above) */
        out_printf(c, "HTTP/1.1 %u %s\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n%s\r\n",
                   (unsigned)r->n, status_reason((unsigned)r->n), ch);
        if (r->head) {
            push_mark(c, true);
            return;
        }
        c->late = true;
        c->late_close = close;
        c->closing = false;        /* not before the body */
        delay_response(c, mono_ns() + LATE_MS * 1000000u);
        return;
    case K_STATS:
        stats_json(body, sizeof body);
        b = body;
        type = json;
        counted = false;
        break;
    case K_BAD:
        status = 400;
        b = "bad request\n";
        break;
    case K_AUTHENTICATE:
        snprintf(extra, sizeof extra, "X-Token: token-%llu\r\n", c->seq);
        break;
    case K_LOGIN:
        snprintf(body, sizeof body, "{\"token\":\"tok-%llu\"}", c->seq);
        b = body;
        type = json;
        break;
    case K_PRIVATE:
        status = r->bearer ? 200 : 401;
        b = r->bearer ? "{\"ok\":true}" : "{\"ok\":false}";
        type = json;
        break;
    case K_JSON_BAD:
        b = "{\"items\":[{\"id\":1,";   /* cut short on purpose */
        type = json;
        break;
    case K_ECHO:
        b = c->raw.p ? c->raw.p : "";     /* the head, as head_track copied it */
        blen = c->raw.len;
        break;
    default:
        break;
    }
    if (blen == SIZE_MAX)
        blen = strlen(b);
    out_printf(c, "HTTP/1.1 %u %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s\r\n",
               status, status_reason(status), type, blen, extra, ch);
    if (!r->head)
        out_append(c, b, blen);
    push_mark(c, counted);
}

/* A request was fully read: count it and answer now, later, or never. */
void dispatch(struct conn *c)
{
    uint64_t now = mono_ns();      /* when it was fully read: delays count from here */
    struct req *r = &c->req;
    route(c, r);
    if (r->kind != K_STATS) {
        stats.received++;
        if (r->authorized)
            stats.authorized++;
        if (req_log) {             /* in arrival order: requests are read one at a time */
            if (opt.log_bodies && c->body_len) {
                char b[64];
                int n = snprintf(b, sizeof b, " body=%" PRIu64 ":%08" PRIx32, c->body_len, c->body_hash);
                log_add(c, b, (size_t)n);
            }
            log_add(c, "\n", 1);
            fwrite(c->logline.p, 1, c->logline.len, req_log);
        }
        if (timing_log)
            fprintf(timing_log, "r %" PRIu64 "%s%s\n", now, opt.timing_peers ? " " : "", c->peer);
        /* The stall itself comes once this request's response is written
         * (or queued, if delayed): see progress() in conn.c. */
        if (opt.stall_every && stats.received % opt.stall_every == 0)
            stall_pending = true;
        if ((opt.drop_every && stats.received % opt.drop_every == 0) ||
            (opt.serve_only && c->seq > opt.serve_only)) {
            stats.ignored++;       /* whatever its path: like /never from here on */
            c->never = true;
            return;
        }
    }
    if (r->kind == K_DROP) {
        stats.dropped++;
        c->drop_now = true;
        return;
    }
    if (r->kind == K_NEVER) {
        c->never = true;
        return;
    }
    if (r->kind == K_LLM) {        /* its own timing (vt_first_ms ...), not --delay-ms */
        c->nresp++;
        llm_start(c, now, closes_after(c, r));
        if (c->body.cap > OUT_KEEP)
            buf_free(&c->body);    /* a big body passed through; give it back */
        return;
    }
    unsigned long long delay = r->kind == K_DELAY ? r->n
                             : r->kind == K_STATS ? 0 : opt.delay_ms;
    if (delay) {
        /* Answer when due; the connection stays busy meanwhile, so pipelined
         * requests behind this one wait, keeping responses in order. */
        delay_response(c, now + delay * 1000000u);
        return;
    }
    respond(c, r);
}
