/*
 * volley-target, connections: accepting, reading and parsing, the output
 * queue and writing, delayed responses, and closing (politely, with a
 * lingering close). What a request means and what it gets back is
 * request.c's business; this file only feeds it complete requests in order,
 * answers delayed ones when due, and writes what it queues. Over TLS the
 * bytes go through tls.c's helpers instead of read/writev; the rest is the
 * same code.
 */
#define _GNU_SOURCE   /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "vtarget.h"

static const char PATTERN_CHARS[PAT_PERIOD + 1] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-\n";
static char pattern[PAT_LEN + PAT_PERIOD];

static ev_io accept_w;
static ev_timer accept_retry_w;
static struct conn *conns;
static http_parser_settings settings;
static bool tls_on;

static void progress(struct conn *c);

/* ---- output queue ----------------------------------------------------- */

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

void out_append(struct conn *c, const void *data, size_t len)
{
    out_reserve(c, len);
    if (len)
        memcpy(c->out + c->out_len, data, len);
    c->out_len += len;
    c->queued += len;
}

void out_printf(struct conn *c, const char *fmt, ...)
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
void push_mark(struct conn *c, bool counted)
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
void gen_chunks(struct conn *c)
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

/* ---- delayed responses ------------------------------------------------ */

/* ev_timer would round a delay to libev's millisecond-ish resolution and
 * count from the loop's cached time, so delayed responses could be early or
 * up to ~1 ms late. Instead, each connection with a response pending (at most
 * one: a delayed request keeps its connection busy) sits in a min-heap
 * ordered by due time, and one timerfd, armed at an absolute CLOCK_MONOTONIC
 * time, wakes the loop when the earliest is due. The heap array grows
 * geometrically and is never shrunk: no allocation per request. */
static int delay_fd = -1;
static ev_io delay_w;
static struct conn **dheap;
static size_t dheap_len, dheap_cap;
static uint64_t delay_armed;       /* due time the timerfd is set to; 0: disarmed */
static bool in_on_delay;           /* on_delay arms the timerfd once, when it is done */

static void dheap_set(size_t i, struct conn *c)
{
    dheap[i] = c;
    c->heap_pos = i;
}

static void dheap_up(size_t i)
{
    struct conn *c = dheap[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (dheap[parent]->due_ns <= c->due_ns)
            break;
        dheap_set(i, dheap[parent]);
        i = parent;
    }
    dheap_set(i, c);
}

static void dheap_down(size_t i)
{
    struct conn *c = dheap[i];
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= dheap_len)
            break;
        if (k + 1 < dheap_len && dheap[k + 1]->due_ns < dheap[k]->due_ns)
            k++;
        if (c->due_ns <= dheap[k]->due_ns)
            break;
        dheap_set(i, dheap[k]);
        i = k;
    }
    dheap_set(i, c);
}

static void dheap_remove(struct conn *c)
{
    size_t i = c->heap_pos;
    c->delayed = false;
    struct conn *last = dheap[--dheap_len];
    if (i == dheap_len)
        return;
    dheap_set(i, last);
    if (i > 0 && dheap[(i - 1) / 2]->due_ns > last->due_ns)
        dheap_up(i);
    else
        dheap_down(i);
}

/* Point the timerfd at the earliest due time (or disarm it). */
static void delay_arm(void)
{
    uint64_t due = dheap_len ? dheap[0]->due_ns : 0;
    if (due == delay_armed)
        return;
    struct itimerspec its = { 0 };   /* all zero: disarm */
    its.it_value.tv_sec = (time_t)(due / 1000000000u);
    its.it_value.tv_nsec = (long)(due % 1000000000u);
    if (timerfd_settime(delay_fd, TFD_TIMER_ABSTIME, &its, NULL) != 0)
        die("timerfd_settime: %s", strerror(errno));
    delay_armed = due;
}

void delay_response(struct conn *c, uint64_t due_ns)
{
    if (dheap_len == dheap_cap) {
        size_t cap = dheap_cap ? 2 * dheap_cap : 64;
        struct conn **p = realloc(dheap, cap * sizeof *p);
        if (!p)
            die("out of memory");
        dheap = p;
        dheap_cap = cap;
    }
    c->delayed = true;
    c->due_ns = due_ns;
    dheap_set(dheap_len++, c);
    dheap_up(c->heap_pos);
    if (!in_on_delay)              /* a /v1 stream re-schedules from inside on_delay */
        delay_arm();
}

/* The timerfd expired: answer every response that is due, then re-arm. A
 * response is never sent before its due time; the clock is read again for
 * each one, as answering (or a stall) takes time. At most as many as were
 * in the heap: a /v1 stream with no gap is due again at once, and must not
 * keep the loop from reading and accepting. */
static void on_delay(struct ev_loop *l, ev_io *w, int revents)
{
    (void)l, (void)revents;
    uint64_t ticks;
    if (read(w->fd, &ticks, sizeof ticks) < 0 && errno != EAGAIN && errno != EINTR)
        die("read timerfd: %s", strerror(errno));
    delay_armed = 0;               /* it fired (or was reset): arm it afresh */
    in_on_delay = true;
    for (size_t todo = dheap_len; todo && dheap_len && dheap[0]->due_ns <= mono_ns(); todo--) {
        struct conn *c = dheap[0];
        dheap_remove(c);
        respond(c, &c->req);
        progress(c);               /* may close c, or delay its next request */
    }
    in_on_delay = false;
    delay_arm();
}

/* ---- connection state machine ----------------------------------------- */

static void conn_close(struct conn *c)
{
    ev_io_stop(loop, &c->rio);
    ev_io_stop(loop, &c->wio);
    ev_timer_stop(loop, &c->timer);
    if (c->delayed) {              /* the client left: cancel its response */
        dheap_remove(c);
        if (!in_on_delay)
            delay_arm();
    }
    llm_conn_free(c);              /* a stream still going: the client is gone */
    if (c->ssl)
        tls_conn_free(c);
    close(c->fd);
    if (timing_log)
        fprintf(timing_log, "c %" PRIu64 "%s%s\n", mono_ns(), opt.timing_peers ? " " : "", c->peer);
    if (c->prev)
        c->prev->next = c->next;
    else
        conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    request_free(c);
    free(c->in);
    free(c->out);
    free(c);
}

void conn_close_all(void)
{
    while (conns)
        conn_close(conns);
    ev_io_stop(loop, &delay_w);
    close(delay_fd);
    delay_fd = -1;
    free(dheap);
    dheap = NULL;
    dheap_cap = 0;
}

/* Busy: do not parse (or answer) the next pipelined request yet. While busy,
 * the request being answered (c->req and request.c's state) stays intact.
 * A pending stall also stops parsing, so it comes right after the request
 * that asked for it; progress() resumes afterwards. */
static bool busy(const struct conn *c)
{
    return c->delayed || c->streaming || c->lingering || c->never || c->drop_now || c->closing ||
           c->raw_left || c->chunk_active || c->nmarks >= NMARKS ||
           c->out_len - c->out_off > OUT_HIGH || stall_pending;
}

static void parse(struct conn *c)
{
    size_t off = 0;
    while (off < c->in_len && !busy(c)) {
        size_t n = http_parser_execute(&c->parser, &settings, c->in + off, c->in_len - off);
        head_track(c, c->in + off, n);
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
        if (c->raw_left && !(c->tiny && pending)) {
            /* raw body bytes always follow everything in c->out: nothing is
             * queued while a body is streaming (busy). /tiny/N: one byte per
             * write, and not in the same write as the head. */
            size_t pos = (size_t)((c->raw_total - c->raw_left) % PAT_PERIOD);
            size_t k = c->raw_left < PAT_LEN ? (size_t)c->raw_left : PAT_LEN;
            iov[n++] = (struct iovec){ pattern + pos, c->tiny ? 1 : k };
        }
        if (n == 0)
            break;
        /* A /v1 stream's events: the truth log's time is read just before
         * the write that carries them (llm_written, once it carried bytes). */
        uint64_t stamp = c->stamp_wanted ? mono_ns() : 0;
        ssize_t w;
        if (c->ssl) {
            /* One buffer per SSL_write; a retry after WANT_* passes the same
             * first bytes (c->out only grows, the pattern is fixed). */
            size_t put = 0;
            switch (tls_write(c, iov[0].iov_base, iov[0].iov_len, &put)) {
            case TLS_OK:
                w = (ssize_t)put;
                break;
            case TLS_WANT_WRITE:
                ev_io_start(loop, &c->wio);
                return 0;
            case TLS_WANT_READ:
                c->wr_wants_read = true;   /* on_read calls us back */
                ev_io_start(loop, &c->rio);
                return 0;
            case TLS_CLOSED:
            case TLS_ERROR:
            default:
                return -1;
            }
        } else {
            w = writev(c->fd, iov, n);
        }
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                ev_io_start(loop, &c->wio);
                return 0;
            }
            return -1;
        }
        if (c->stamp_wanted && w > 0)
            llm_written(c, stamp);
        size_t from_out = (size_t)w < pending ? (size_t)w : pending;
        c->out_off += from_out;
        c->raw_left -= (size_t)w - from_out;
        c->sent += (uint64_t)w;
        pop_marks(c);
    }
    if (!c->rd_wants_write)
        ev_io_stop(loop, &c->wio);
    if (c->out_cap > OUT_KEEP && !c->streaming) {   /* a big body passed through; give it back */
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
    if (c->ssl)
        tls_notify(c);
    if (c->eof || shutdown(c->fd, SHUT_WR) != 0) {
        conn_close(c);
        return;
    }
    c->lingering = true;
    c->in_len = 0;
    ev_timer_set(&c->timer, LINGER_S, 0.0);
    ev_timer_start(loop, &c->timer);
    ev_io_start(loop, &c->rio);
}

/* Drive a connection after any event: parse what can be answered now,
 * write, and decide whether to continue, wait, or close. May free c; returns
 * false then, or when c is lingering and needs nothing more. */
static bool progress_conn(struct conn *c)
{
    for (;;) {
        parse(c);
        int r = flush(c);
        if (r < 0 || c->drop_now) {
            if (r >= 0 && c->ssl)
                tls_notify(c);
            conn_close(c);
            return false;
        }
        if (r == 0)
            break;                 /* on_write calls us again */
        if (c->drain_wanted) {     /* a /v1 step waited for the client to catch up */
            llm_drained(c);
            continue;
        }
        if (c->closing) {
            linger_start(c);
            return false;
        }
        if (c->in_len && !busy(c))
            continue;              /* pipelined requests waited behind a body */
        if (c->eof && !busy(c)) {
            if (c->ssl)
                tls_notify(c);
            conn_close(c);         /* answered all the client sent before its FIN */
            return false;
        }
        break;
    }
    /* Read while there is room; a full buffer means we are busy and the
     * client must wait (TCP flow control does the rest). */
    bool want = !c->eof && (c->never || c->in_len < IN_CAP);
    if (want && !ev_is_active(&c->rio))
        ev_io_start(loop, &c->rio);
    else if (!want && ev_is_active(&c->rio) && !c->wr_wants_read)
        ev_io_stop(loop, &c->rio);
    /* OpenSSL may hold bytes the kernel will not report again. */
    if (want && c->ssl && tls_pending(c))
        ev_feed_event(loop, &c->rio, EV_READ);
    return true;
}

/* progress_conn, plus --stall-every: dispatch only marks the stall, which
 * happens here once the connection of the request that asked for it has
 * written (or queued) that request's response and closed if it had to. Then
 * the connection goes on with requests that waited behind the stall. */
static void progress(struct conn *c)
{
    while (progress_conn(c) && stall_pending)
        stall();
    if (stall_pending)             /* c is gone or lingering */
        stall();
}

/* ---- event handlers --------------------------------------------------- */

/* One TLS handshake step, on either watcher's event. When it completes,
 * reading starts (fed at once: the request may already be in). A failed
 * handshake closes c. */
static void handshake_step(struct conn *c)
{
    switch (tls_handshake(c)) {
    case TLS_OK:
        c->tls_ready = true;
        ev_io_stop(loop, &c->wio);
        ev_io_start(loop, &c->rio);
        ev_feed_event(loop, &c->rio, EV_READ);
        return;
    case TLS_WANT_READ:
        ev_io_stop(loop, &c->wio);
        ev_io_start(loop, &c->rio);
        return;
    case TLS_WANT_WRITE:
        ev_io_start(loop, &c->wio);
        return;
    case TLS_CLOSED:
    case TLS_ERROR:
    default:
        stats.tls_failed++;        /* bad handshake, or the client left during it */
        conn_close(c);
        return;
    }
}

/* read() for a TLS connection: >0 bytes, 0 the client closed, -1 try
 * again later (with errno EAGAIN), -2 broken. */
static ssize_t tls_read_some(struct conn *c, char *dst, size_t room)
{
    size_t got = 0;
    switch (tls_read(c, dst, room, &got)) {
    case TLS_OK:
        return (ssize_t)got;
    case TLS_WANT_READ:
        break;
    case TLS_WANT_WRITE:
        c->rd_wants_write = true;  /* on_write reads again */
        ev_io_start(loop, &c->wio);
        break;
    case TLS_CLOSED:
        return 0;
    case TLS_ERROR:
    default:
        return -2;
    }
    errno = EAGAIN;
    return -1;
}

static void on_read(struct ev_loop *l, ev_io *w, int revents)
{
    (void)l, (void)revents;
    struct conn *c = w->data;
    if (c->ssl) {
        if (!c->tls_ready) {
            handshake_step(c);
            return;
        }
        if (c->wr_wants_read) {    /* a write waited for this: retry it too */
            c->wr_wants_read = false;
            ev_feed_event(loop, &c->wio, EV_WRITE);
        }
    }
    if (!c->in && !(c->in = malloc(IN_CAP)))
        die("out of memory");
    /* After /never or our FIN, input is only read to notice the client's close. */
    bool discard = c->never || c->lingering;
    size_t room = discard ? IN_CAP : IN_CAP - c->in_len;
    if (room == 0)
        return;                    /* woken for a write that waited (TLS); no room yet */
    char *dst = discard ? c->in : c->in + c->in_len;
    ssize_t n = c->ssl ? tls_read_some(c, dst, room) : read(c->fd, dst, room);
    if (n < 0) {
        if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        conn_close(c);             /* reset by peer */
        return;
    }
    if (n == 0) {
        /* The client is gone (or half-closed). With a delayed response still
         * to come, or nothing ever to come, there is no one to answer. */
        if (discard || c->delayed || c->streaming) {
            conn_close(c);
            return;
        }
        c->eof = true;
        progress(c);
        return;
    }
    if (discard) {
        if (c->ssl && tls_pending(c))
            ev_feed_event(loop, &c->rio, EV_READ);
        return;
    }
    c->in_len += (size_t)n;
    progress(c);
}

static void on_write(struct ev_loop *l, ev_io *w, int revents)
{
    (void)l, (void)revents;
    struct conn *c = w->data;
    if (c->ssl) {
        if (!c->tls_ready) {
            handshake_step(c);
            return;
        }
        if (c->rd_wants_write) {   /* a read waited for this: retry it too */
            c->rd_wants_write = false;
            ev_feed_event(loop, &c->rio, EV_READ);
        }
        if (c->lingering)          /* everything was written before our FIN */
            return;
    }
    progress(c);
}

static void on_linger_timeout(struct ev_loop *l, ev_timer *w, int revents)
{
    (void)l, (void)revents;
    conn_close(w->data);           /* the client never sent its FIN */
}

/* The numeric address of an accepted client, for --timing-peers ("?" if
 * the family is neither IPv4 nor IPv6, which a loopback listener never sees). */
static void peer_name(const struct sockaddr_storage *ss, char *out, size_t size)
{
    const void *a = NULL;
    if (ss->ss_family == AF_INET)
        a = &((const struct sockaddr_in *)ss)->sin_addr;
    else if (ss->ss_family == AF_INET6)
        a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
    if (!a || !inet_ntop(ss->ss_family, a, out, (socklen_t)size))
        snprintf(out, size, "?");
}

static void on_accept(struct ev_loop *l, ev_io *w, int revents)
{
    (void)revents;
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        int fd = accept4(w->fd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
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
        uint64_t accepted = mono_ns();
        struct conn *c = calloc(1, sizeof *c);
        if (!c)
            die("out of memory");
        if (opt.timing_peers)
            peer_name(&ss, c->peer, sizeof c->peer);
        if (timing_log)
            fprintf(timing_log, "a %" PRIu64 "%s%s\n", accepted, opt.timing_peers ? " " : "", c->peer);
        c->fd = fd;
        ev_io_init(&c->rio, on_read, fd, EV_READ);
        ev_io_init(&c->wio, on_write, fd, EV_WRITE);
        ev_init(&c->timer, on_linger_timeout);
        c->rio.data = c->wio.data = c->timer.data = c;
        http_parser_init(&c->parser, HTTP_REQUEST);
        c->parser.data = c;
        c->next = conns;
        if (conns)
            conns->prev = c;
        conns = c;
        stats.connections++;
        c->seq = stats.connections;
        if (tls_on && tls_conn_start(c) != 0) {
            stats.tls_failed++;
            conn_close(c);
            continue;
        }
        ev_io_start(l, &c->rio);
    }
}

static void on_accept_retry(struct ev_loop *l, ev_timer *w, int revents)
{
    (void)w, (void)revents;
    ev_io_start(l, &accept_w);
}

void conn_init(int lfd, bool tls)
{
    tls_on = tls;
    for (size_t i = 0; i < sizeof pattern; i++)
        pattern[i] = PATTERN_CHARS[i % PAT_PERIOD];
    request_parser_settings(&settings);
    ev_io_init(&accept_w, on_accept, lfd, EV_READ);
    ev_io_start(loop, &accept_w);
    ev_timer_init(&accept_retry_w, on_accept_retry, 0.1, 0.0);
    delay_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (delay_fd < 0)
        die("timerfd_create: %s", strerror(errno));
    ev_io_init(&delay_w, on_delay, delay_fd, EV_READ);
    ev_io_start(loop, &delay_w);
}
