/*
 * volley-target: a small single-threaded libev HTTP/1.1 server that volley's
 * tests and demo aim at. It is never installed. It listens on loopback only,
 * exits by itself after --max-seconds, and counts what it received and
 * answered so tests can check volley's report against the server's view.
 *
 * Special paths (/bytes/N, /delay/D, /never, /drop, ...) make it misbehave on
 * demand; see tests/target/README.md.
 *
 * Design: one struct conn per connection. Incoming bytes go into c->in and
 * are parsed with http_parser, which we pause after each complete request so
 * requests are handled one at a time and in order (pipelining). Responses are
 * appended to c->out and written with one writev; a write watcher is armed
 * only on EAGAIN. Large bodies are streamed from a shared static pattern
 * buffer so no connection ever holds a big buffer.
 */
#define _GNU_SOURCE   /* accept4, memmem */
#include <arpa/inet.h>
#include <errno.h>
#include <ev.h>
#include <getopt.h>
#include <http_parser.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define IN_CAP      (16 * 1024)   /* per-connection read buffer */
#define OUT_KEEP    (64 * 1024)   /* out buffers larger than this are freed once drained */
#define OUT_HIGH    (256 * 1024)  /* stop parsing pipelined requests above this backlog */
#define CHUNK_FILL  (32 * 1024)   /* how much chunked body to generate per round */
#define CHUNK_SIZE  1000          /* body bytes per chunk for /chunked/N */
#define NMARKS      64            /* max responses queued but not yet written */
#define PAT_PERIOD  64            /* body byte i of /bytes and /chunked is pattern[i % 64] */
#define PAT_LEN     (64 * 1024)
#define MAX_BYTES   (100ULL * 1024 * 1024)
#define URL_MAX     256           /* longer URLs are truncated: routing needs only a prefix */
#define LINGER_S    2.0           /* how long to wait for the client's FIN after ours */

static const char PATTERN_CHARS[PAT_PERIOD + 1] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-\n";
static char pattern[PAT_LEN + PAT_PERIOD];

enum kind {
    K_HELLO, K_BYTES, K_CHUNKED, K_CLOSE, K_DELAY, K_NEVER, K_DROP,
    K_HTTP10, K_STATUS, K_CONTINUE, K_STATS, K_BAD
};

struct req {
    enum kind kind;
    unsigned long long n;   /* numeric argument of /bytes/N, /status/N, ... */
    bool head;              /* HEAD: headers as for GET, no body */
    bool keep_alive;        /* what the request asked for (version + Connection) */
    bool http10;            /* HTTP/1.0 request: keep-alive must be explicit */
};

enum timer_mode { T_NONE, T_DELAY, T_LINGER };

struct conn {
    int fd;
    ev_io rio, wio;
    ev_timer timer;             /* response delay, or lingering close */
    enum timer_mode tmode;
    http_parser parser;
    struct conn *prev, *next;   /* list of all connections, for cleanup at exit */

    char *in;                   /* received, not yet parsed bytes */
    size_t in_len;
    char url[URL_MAX];
    size_t url_len;
    bool req_done;              /* set by on_message_complete */
    struct req req;             /* request being handled (kept across a delay) */

    char *out;                  /* queued response bytes */
    size_t out_off, out_len, out_cap;
    unsigned long long raw_left, raw_total;   /* /bytes body still to stream */
    unsigned long long chunk_left, chunk_pos; /* /chunked body still to generate */
    bool chunk_active;

    /* Byte positions (in this connection's output stream) where queued
     * responses end, so "answered" counts only fully written responses. */
    uint64_t queued, sent;
    uint64_t mark_end[NMARKS];
    bool mark_counted[NMARKS];
    unsigned mark_head, nmarks;

    unsigned long nresp;        /* responses on this connection, for close-every */
    unsigned long close_every;  /* set by /close/K */
    bool closing;               /* close once everything queued is written */
    bool lingering;             /* we sent FIN; waiting for the client's */
    bool never;                 /* /never: swallow everything, answer nothing */
    bool drop_now;              /* /drop: close without answering */
    bool eof;                   /* client closed its sending side */
};

static struct {
    const char *bind;
    int port;
    const char *port_file, *stats_file;
    double max_seconds;
    unsigned long close_every;
    unsigned long delay_ms;
    bool quiet;
} opt = { "127.0.0.1", 0, NULL, NULL, 60.0, 0, 0, false };

static struct {
    uint64_t received, answered, connections, dropped;
} stats;

static struct ev_loop *loop;
static ev_io accept_w;
static ev_timer accept_retry_w;
static struct conn *conns;
static http_parser_settings settings;

static void progress(struct conn *c);

/* ---- small helpers ---------------------------------------------------- */

__attribute__((noreturn, format(printf, 1, 2)))
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("volley-target: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* Write a whole file under a temporary name, then rename, so a reader
 * polling for the file never sees it half written. */
static int write_file_atomic(const char *path, const char *text)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    bool ok = fputs(text, f) >= 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int stats_json(char *buf, size_t size)
{
    return snprintf(buf, size,
        "{\"received\":%" PRIu64 ",\"answered\":%" PRIu64
        ",\"connections\":%" PRIu64 ",\"dropped\":%" PRIu64 "}",
        stats.received, stats.answered, stats.connections, stats.dropped);
}

static const char *reason(unsigned code)
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

/* ---- output buffer ---------------------------------------------------- */

static void out_reserve(struct conn *c, size_t need)
{
    if (c->out_cap - c->out_len >= need)
        return;
    size_t cap = c->out_cap ? c->out_cap : 4096;
    while (cap - c->out_len < need)
        cap *= 2;
    char *p = realloc(c->out, cap);
    if (!p)
        die("out of memory");
    c->out = p;
    c->out_cap = cap;
}

static void out_append(struct conn *c, const void *data, size_t len)
{
    out_reserve(c, len);
    memcpy(c->out + c->out_len, data, len);
    c->out_len += len;
    c->queued += len;
}

static void out_printf(struct conn *c, const char *fmt, ...)
{
    va_list ap;
    out_reserve(c, 256);
    for (;;) {
        size_t room = c->out_cap - c->out_len;
        va_start(ap, fmt);
        int n = vsnprintf(c->out + c->out_len, room, fmt, ap);
        va_end(ap);
        if (n < 0)
            die("vsnprintf failed");
        if ((size_t)n < room) {
            c->out_len += (size_t)n;
            c->queued += (size_t)n;
            return;
        }
        out_reserve(c, (size_t)n + 1);
    }
}

/* Remember where the response just queued ends; it counts as answered when
 * the write position passes that point. */
static void push_mark(struct conn *c, bool counted)
{
    unsigned i = (c->mark_head + c->nmarks) % NMARKS;
    c->mark_end[i] = c->queued;
    c->mark_counted[i] = counted;
    c->nmarks++;
}

static void pop_marks(struct conn *c)
{
    while (c->nmarks && c->mark_end[c->mark_head] <= c->sent) {
        if (c->mark_counted[c->mark_head])
            stats.answered++;
        c->mark_head = (c->mark_head + 1) % NMARKS;
        c->nmarks--;
    }
}

/* Generate the next slice of a /chunked body into c->out; bounded so a
 * 100 MB chunked body never sits in memory. */
static void gen_chunks(struct conn *c)
{
    while (c->chunk_active && c->out_len - c->out_off < CHUNK_FILL) {
        if (c->chunk_left == 0) {
            out_append(c, "0\r\n\r\n", 5);
            push_mark(c, true);
            c->chunk_active = false;
            break;
        }
        size_t k = c->chunk_left < CHUNK_SIZE ? c->chunk_left : CHUNK_SIZE;
        out_printf(c, "%zx\r\n", k);
        out_append(c, pattern + c->chunk_pos % PAT_PERIOD, k);
        out_append(c, "\r\n", 2);
        c->chunk_left -= k;
        c->chunk_pos += k;
    }
}

/* ---- routing and responses -------------------------------------------- */

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
    r->n = n;
}

/* Queue the full response for r. Everything for a small response lands in
 * c->out so that it goes out in one write. */
static void respond(struct conn *c, const struct req *r)
{
    c->nresp++;
    if (r->kind == K_CLOSE && r->n)
        c->close_every = r->n;
    bool close = !r->keep_alive || (r->kind == K_CLOSE && !r->n) || r->kind == K_HTTP10 ||
                 (c->close_every && c->nresp % c->close_every == 0) ||
                 (opt.close_every && c->nresp % opt.close_every == 0);
    const char *ch = close ? "Connection: close\r\n"
                     : r->http10 ? "Connection: keep-alive\r\n" : "";
    c->closing = close;   /* acted on once everything queued is written */
    char body[160];
    const char *b = "hello world";
    unsigned status = 200;
    bool counted = true;

    switch (r->kind) {
    case K_HTTP10:  /* no Content-Length: the client must read until close */
        out_printf(c, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n%s",
                   r->head ? "" : "hello world");
        push_mark(c, true);
        return;
    case K_BYTES:
        out_printf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                      "Content-Length: %llu\r\n%s\r\n", r->n, ch);
        if (!r->head) {
            c->raw_left = c->raw_total = r->n;
            c->queued += r->n;
        }
        push_mark(c, true);
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
    case K_STATUS:
        status = (unsigned)r->n;
        if (status < 200 || status == 204 || status == 304) {
            out_printf(c, "HTTP/1.1 %u %s\r\n%s\r\n", status, reason(status), ch);
            push_mark(c, true);
            return;
        }
        snprintf(body, sizeof body, "status %u\n", status);
        b = body;
        break;
    case K_CONTINUE:
        out_append(c, "HTTP/1.1 100 Continue\r\n\r\n", 25);
        break;
    case K_STATS:
        stats_json(body, sizeof body);
        b = body;
        counted = false;
        break;
    case K_BAD:
        status = 400;
        b = "bad request\n";
        break;
    default:
        break;
    }
    size_t blen = strlen(b);
    out_printf(c, "HTTP/1.1 %u %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s\r\n",
               status, reason(status), r->kind == K_STATS ? "application/json" : "text/plain",
               blen, ch);
    if (!r->head)
        out_append(c, b, blen);
    push_mark(c, counted);
}

/* A request was fully read: count it and answer now, later, or never. */
static void dispatch(struct conn *c)
{
    struct req *r = &c->req;
    route(c, r);
    if (r->kind != K_STATS)
        stats.received++;
    if (r->kind == K_DROP) {
        stats.dropped++;
        c->drop_now = true;
        return;
    }
    if (r->kind == K_NEVER) {
        c->never = true;
        return;
    }
    unsigned long long delay = r->kind == K_DELAY ? r->n
                             : r->kind == K_STATS ? 0 : opt.delay_ms;
    if (delay) {
        /* Answer from the timer; the connection stays busy meanwhile, so
         * pipelined requests behind this one wait, keeping responses in order. */
        c->tmode = T_DELAY;
        ev_timer_set(&c->timer, (double)delay / 1000.0, 0.0);
        ev_timer_start(loop, &c->timer);
        return;
    }
    respond(c, r);
}

/* ---- http_parser callbacks -------------------------------------------- */

static int on_message_begin(http_parser *p)
{
    struct conn *c = p->data;
    c->url_len = 0;
    return 0;
}

static int on_url(http_parser *p, const char *at, size_t len)
{
    struct conn *c = p->data;
    size_t room = URL_MAX - 1 - c->url_len;
    if (len > room)
        len = room;
    memcpy(c->url + c->url_len, at, len);
    c->url_len += len;
    return 0;
}

/* Pause so http_parser_execute returns right after this request; parse()
 * then handles it before parsing any pipelined request behind it. */
static int on_message_complete(http_parser *p)
{
    struct conn *c = p->data;
    c->req.head = p->method == HTTP_HEAD;
    c->req.keep_alive = http_should_keep_alive(p);
    c->req.http10 = p->http_major == 1 && p->http_minor == 0;
    c->req_done = true;
    http_parser_pause(p, 1);
    return 0;
}

/* ---- connection state machine ----------------------------------------- */

static void conn_close(struct conn *c)
{
    ev_io_stop(loop, &c->rio);
    ev_io_stop(loop, &c->wio);
    ev_timer_stop(loop, &c->timer);
    close(c->fd);
    if (c->prev)
        c->prev->next = c->next;
    else
        conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    free(c->in);
    free(c->out);
    free(c);
}

/* Busy: do not parse (or answer) the next pipelined request yet. */
static bool busy(const struct conn *c)
{
    return ev_is_active(&c->timer) || c->never || c->drop_now || c->closing ||
           c->raw_left || c->chunk_active || c->nmarks >= NMARKS ||
           c->out_len - c->out_off > OUT_HIGH;
}

static void parse(struct conn *c)
{
    size_t off = 0;
    while (off < c->in_len && !busy(c)) {
        size_t n = http_parser_execute(&c->parser, &settings, c->in + off, c->in_len - off);
        off += n;
        enum http_errno e = HTTP_PARSER_ERRNO(&c->parser);
        if (e == HPE_PAUSED && c->req_done) {
            c->req_done = false;
            http_parser_pause(&c->parser, 0);
            dispatch(c);
        } else if (e != HPE_OK || off < c->in_len) {
            /* Malformed (or an upgrade we do not speak): say so and close. */
            static const char bad[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n"
                                      "Connection: close\r\n\r\n";
            out_append(c, bad, sizeof bad - 1);
            push_mark(c, false);
            c->closing = true;
            off = c->in_len;
        }
    }
    if (c->closing || c->never)
        off = c->in_len;   /* nothing after this will ever be answered */
    if (off) {
        memmove(c->in, c->in + off, c->in_len - off);
        c->in_len -= off;
    }
}

/* Write as much as possible. 1: all written; 0: kernel buffer full, write
 * watcher armed; -1: connection is broken. */
static int flush(struct conn *c)
{
    for (;;) {
        if (c->out_off == c->out_len) {
            c->out_off = c->out_len = 0;
            gen_chunks(c);
        }
        struct iovec iov[2];
        int n = 0;
        size_t pending = c->out_len - c->out_off;
        if (pending)
            iov[n++] = (struct iovec){ c->out + c->out_off, pending };
        if (c->raw_left) {
            /* raw body bytes always follow everything in c->out: nothing is
             * queued while a body is streaming (busy) */
            size_t pos = (size_t)((c->raw_total - c->raw_left) % PAT_PERIOD);
            size_t k = c->raw_left < PAT_LEN ? (size_t)c->raw_left : PAT_LEN;
            iov[n++] = (struct iovec){ pattern + pos, k };
        }
        if (n == 0)
            break;
        ssize_t w = writev(c->fd, iov, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                ev_io_start(loop, &c->wio);
                return 0;
            }
            return -1;
        }
        size_t from_out = (size_t)w < pending ? (size_t)w : pending;
        c->out_off += from_out;
        c->raw_left -= (size_t)w - from_out;
        c->sent += (uint64_t)w;
        pop_marks(c);
    }
    ev_io_stop(loop, &c->wio);
    if (c->out_cap > OUT_KEEP) {   /* a big body passed through; give it back */
        free(c->out);
        c->out = NULL;
        c->out_cap = 0;
    }
    return 1;
}

/* Close politely: send our FIN, then wait (briefly) for the client's, so
 * that unread pipelined bytes do not turn our close into an RST that could
 * destroy the response still in flight. */
static void linger_start(struct conn *c)
{
    if (c->eof || shutdown(c->fd, SHUT_WR) != 0) {
        conn_close(c);
        return;
    }
    c->lingering = true;
    c->in_len = 0;
    c->tmode = T_LINGER;
    ev_timer_set(&c->timer, LINGER_S, 0.0);
    ev_timer_start(loop, &c->timer);
    ev_io_start(loop, &c->rio);
}

/* Drive a connection after any event: parse what can be answered now,
 * write, and decide whether to continue, wait, or close. May free c. */
static void progress(struct conn *c)
{
    for (;;) {
        parse(c);
        int r = flush(c);
        if (r < 0 || c->drop_now) {
            conn_close(c);
            return;
        }
        if (r == 0)
            break;                 /* on_write calls us again */
        if (c->closing) {
            linger_start(c);
            return;
        }
        if (c->in_len && !busy(c))
            continue;              /* pipelined requests waited behind a body */
        if (c->eof && !busy(c)) {
            conn_close(c);         /* answered all the client sent before its FIN */
            return;
        }
        break;
    }
    /* Read while there is room; a full buffer means we are busy and the
     * client must wait (TCP flow control does the rest). */
    bool want = !c->eof && (c->never || c->in_len < IN_CAP);
    if (want && !ev_is_active(&c->rio))
        ev_io_start(loop, &c->rio);
    else if (!want && ev_is_active(&c->rio))
        ev_io_stop(loop, &c->rio);
}

/* ---- event handlers --------------------------------------------------- */

static void on_read(struct ev_loop *l, ev_io *w, int revents)
{
    (void)l, (void)revents;
    struct conn *c = w->data;
    if (!c->in && !(c->in = malloc(IN_CAP)))
        die("out of memory");
    /* After /never or our FIN, input is only read to notice the client's close. */
    bool discard = c->never || c->lingering;
    size_t room = discard ? IN_CAP : IN_CAP - c->in_len;
    ssize_t n = read(c->fd, discard ? c->in : c->in + c->in_len, room);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return;
        conn_close(c);             /* reset by peer */
        return;
    }
    if (n == 0) {
        /* The client is gone (or half-closed). With a response still to come
         * from a timer, or nothing ever to come, there is no one to answer. */
        if (discard || ev_is_active(&c->timer)) {
            conn_close(c);
            return;
        }
        c->eof = true;
        progress(c);
        return;
    }
    if (discard)
        return;
    c->in_len += (size_t)n;
    progress(c);
}

static void on_write(struct ev_loop *l, ev_io *w, int revents)
{
    (void)l, (void)revents;
    progress(w->data);
}

static void on_timer(struct ev_loop *l, ev_timer *w, int revents)
{
    (void)l, (void)revents;
    struct conn *c = w->data;
    if (c->tmode == T_LINGER) {    /* the client never sent its FIN */
        conn_close(c);
        return;
    }
    c->tmode = T_NONE;
    respond(c, &c->req);           /* the delayed response is due */
    progress(c);
}

static void on_accept(struct ev_loop *l, ev_io *w, int revents)
{
    (void)revents;
    for (;;) {
        int fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                /* Out of fds: stop accepting for a moment rather than spin;
                 * pending clients wait in the backlog. */
                if (!opt.quiet)
                    fprintf(stderr, "volley-target: accept: %s (pausing)\n", strerror(errno));
                ev_io_stop(l, w);
                ev_timer_start(l, &accept_retry_w);
            }
            return;                /* EAGAIN: backlog drained */
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct conn *c = calloc(1, sizeof *c);
        if (!c)
            die("out of memory");
        c->fd = fd;
        ev_io_init(&c->rio, on_read, fd, EV_READ);
        ev_io_init(&c->wio, on_write, fd, EV_WRITE);
        ev_init(&c->timer, on_timer);
        c->rio.data = c->wio.data = c->timer.data = c;
        http_parser_init(&c->parser, HTTP_REQUEST);
        c->parser.data = c;
        c->next = conns;
        if (conns)
            conns->prev = c;
        conns = c;
        stats.connections++;
        ev_io_start(l, &c->rio);
    }
}

static void on_accept_retry(struct ev_loop *l, ev_timer *w, int revents)
{
    (void)w, (void)revents;
    ev_io_start(l, &accept_w);
}

static void on_signal(struct ev_loop *l, ev_signal *w, int revents)
{
    (void)w, (void)revents;
    ev_break(l, EVBREAK_ALL);      /* SIGTERM/SIGINT: exit cleanly */
}

static void on_max_seconds(struct ev_loop *l, ev_timer *w, int revents)
{
    (void)w, (void)revents;
    ev_break(l, EVBREAK_ALL);      /* safety bound so tests never leave us running */
}

/* ---- setup ------------------------------------------------------------ */

static void usage(FILE *f)
{
    fputs("usage: volley-target [--bind ADDR] [--port N] [--port-file FILE]\n"
          "         [--stats-file FILE] [--max-seconds S] [--close-every K]\n"
          "         [--delay-ms D] [--quiet]\n"
          "Test HTTP server for volley. Listens on loopback only (127.0.0.0/8 or ::1).\n", f);
}

static unsigned long long num_arg(const char *name, const char *s, unsigned long long max)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v > max)
        die("bad value for --%s: '%s'", name, s);
    return v;
}

static int listen_loopback(const char *addr)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
    /* Loopback only: this server must never be reachable from elsewhere. */
    if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
        if ((ntohl(s4->sin_addr.s_addr) >> 24) != 127)
            die("refusing to bind %s: only loopback (127.0.0.0/8, ::1) is allowed", addr);
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)opt.port);
        sl = sizeof *s4;
    } else if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
        if (!IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr))
            die("refusing to bind %s: only loopback (127.0.0.0/8, ::1) is allowed", addr);
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)opt.port);
        sl = sizeof *s6;
    } else {
        die("--bind wants a numeric loopback address (127.0.0.1 or ::1), got '%s'", addr);
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        die("socket: %s", strerror(errno));
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ss.ss_family == AF_INET6 &&
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) != 0)
        die("IPV6_V6ONLY: %s", strerror(errno));
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0)
        die("bind %s port %d: %s", addr, opt.port, strerror(errno));
    if (listen(fd, 4096) != 0)
        die("listen: %s", strerror(errno));
    return fd;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "bind", required_argument, NULL, 'b' },
        { "port", required_argument, NULL, 'p' },
        { "port-file", required_argument, NULL, 'P' },
        { "stats-file", required_argument, NULL, 'S' },
        { "max-seconds", required_argument, NULL, 'm' },
        { "close-every", required_argument, NULL, 'k' },
        { "delay-ms", required_argument, NULL, 'd' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int ch;
    char *end;
    while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (ch) {
        case 'b': opt.bind = optarg; break;
        case 'p': opt.port = (int)num_arg("port", optarg, 65535); break;
        case 'P': opt.port_file = optarg; break;
        case 'S': opt.stats_file = optarg; break;
        case 'm':
            opt.max_seconds = strtod(optarg, &end);
            if (end == optarg || *end || !(opt.max_seconds > 0 && opt.max_seconds < 1e7))
                die("bad value for --max-seconds: '%s'", optarg);
            break;
        case 'k': opt.close_every = (unsigned long)num_arg("close-every", optarg, 1000000000); break;
        case 'd': opt.delay_ms = (unsigned long)num_arg("delay-ms", optarg, 3600000); break;
        case 'q': opt.quiet = true; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc) {
        usage(stderr);
        return 2;
    }

    signal(SIGPIPE, SIG_IGN);      /* a vanished client must not kill us */
    for (size_t i = 0; i < sizeof pattern; i++)
        pattern[i] = PATTERN_CHARS[i % PAT_PERIOD];
    http_parser_settings_init(&settings);
    settings.on_message_begin = on_message_begin;
    settings.on_url = on_url;
    settings.on_message_complete = on_message_complete;

    int lfd = listen_loopback(opt.bind);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getsockname(lfd, (struct sockaddr *)&ss, &sl) != 0)
        die("getsockname: %s", strerror(errno));
    int port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                             : ((struct sockaddr_in6 *)&ss)->sin6_port);

    loop = ev_default_loop(EVFLAG_AUTO);
    if (!loop)
        die("cannot initialise libev");
    ev_io_init(&accept_w, on_accept, lfd, EV_READ);
    ev_io_start(loop, &accept_w);
    ev_timer_init(&accept_retry_w, on_accept_retry, 0.1, 0.0);
    ev_timer max_w;
    ev_timer_init(&max_w, on_max_seconds, opt.max_seconds, 0.0);
    ev_timer_start(loop, &max_w);
    ev_signal term_w, int_w;
    ev_signal_init(&term_w, on_signal, SIGTERM);
    ev_signal_init(&int_w, on_signal, SIGINT);
    ev_signal_start(loop, &term_w);
    ev_signal_start(loop, &int_w);

    /* Announce the port only once we are listening: clients may connect now. */
    char text[64];
    snprintf(text, sizeof text, "%d\n", port);
    if (opt.port_file && write_file_atomic(opt.port_file, text) != 0)
        die("cannot write %s: %s", opt.port_file, strerror(errno));
    printf("port %d\n", port);
    fflush(stdout);
    if (!opt.quiet)
        fprintf(stderr, "volley-target: listening on %s port %d (max %gs)\n",
                opt.bind, port, opt.max_seconds);

    ev_run(loop, 0);

    while (conns)
        conn_close(conns);
    close(lfd);
    char json[160];
    stats_json(json, sizeof json);
    if (!opt.quiet)
        fprintf(stderr, "volley-target: exiting: %s\n", json);
    strcat(json, "\n");
    if (opt.stats_file && write_file_atomic(opt.stats_file, json) != 0)
        fprintf(stderr, "volley-target: cannot write %s: %s\n", opt.stats_file, strerror(errno));
    ev_loop_destroy(loop);
    return 0;
}
