/* libFuzzer target for the HTTP/2 read path (src/http/h2.c over nghttp2), without
 * sockets: a client session opens four streams (two with bodies), sends its
 * preface and requests, then reads the input as the server's bytes in pieces,
 * sending whatever the session has to say between pieces. The first input
 * byte chooses the piece sizes and a few variations (see README.md). h2_recv
 * may refuse the bytes (a protocol error ends the run); nothing may crash or
 * leak, and the events must keep the contract of h2.h (see require()).
 *
 * Linked with replay_main.c instead of libFuzzer this is a plain program over
 * files: the ctest unit.fuzz_h2_corpus, and a way to replay a crash. */
#include "h2.h"
#include "mpool.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STREAMS 24 /* the first four, then reopened ones (control bit 6) */
#define BIG_BODY 70000 /* more than the peer's default window: needs WINDOW_UPDATEs */

struct stream {
    int32_t id;     /* from h2_submit */
    bool closed;    /* on_close was called */
    bool cancelled; /* h2_cancel was called: no event may name it after */
    bool begun;     /* on_begin was called */
    int status;     /* from on_status */
    struct h2_body body;
    struct h2_msg msg;
};

/* VOLLEY_FUZZ_H2_LIVENESS=1: also require that the session closes the
 * streams it will never answer (see the end of LLVMFuzzerTestOneInput).
 * Off by default: nghttp2 1.52 breaks it (tests/fuzz/README.md), and a
 * fuzzer stops at the first failure. VOLLEY_FUZZ_H2_TRACE=1: print the
 * events on stderr. */
static int liveness = -1, trace = -1;

struct harness {
    struct stream st[MAX_STREAMS];
    size_t n;        /* streams submitted */
    bool goaway;     /* on_goaway was called */
    int32_t last_id; /* the lowest last stream id of the GOAWAYs */
    size_t off;      /* input bytes fed so far, for messages */
    uint32_t sum;    /* of every byte an event handed over, so ASan checks they are readable */
};

static void require(bool ok, const struct harness *h, const char *what)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz_h2: contract broken after %zu input bytes: %s\n", h->off, what);
    abort();
}

static void touch(struct harness *h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h->sum += (unsigned char)p[i];
}

/* The stream behind an event's pointer: one of ours, submitted, not closed,
 * not cancelled. */
static struct stream *check_stream(struct harness *h, void *p, const char *event)
{
    char why[96];
    struct stream *st = p;
    bool ours = st >= h->st && st < h->st + h->n && (size_t)((char *)p - (char *)h->st) % sizeof *st == 0;
    snprintf(why, sizeof why, "%s: a stream pointer that was never submitted", event);
    require(ours, h, why);
    snprintf(why, sizeof why, "%s: stream %d after its on_close", event, (int)st->id);
    require(!st->closed, h, why);
    snprintf(why, sizeof why, "%s: stream %d after h2_cancel", event, (int)st->id);
    require(!st->cancelled, h, why);
    return st;
}

static void on_begin(void *conn, void *stream)
{
    struct harness *h = conn;
    struct stream *st = check_stream(h, stream, "on_begin");
    st->begun = true;
    if (trace)
        fprintf(stderr, "  on_begin %d\n", (int)st->id);
}

static void on_status(void *conn, void *stream, int status)
{
    struct harness *h = conn;
    struct stream *st = check_stream(h, stream, "on_status");
    require(st->begun, h, "on_status before on_begin");
    require(st->status == 0, h, "on_status twice");
    require(status >= 200 && status <= 599, h, "on_status: not a final status");
    st->status = status;
    if (trace)
        fprintf(stderr, "  on_status %d %d\n", (int)st->id, status);
}

static void on_header(void *conn, void *stream, const char *name, size_t nlen, const char *value, size_t vlen,
                      bool trailer)
{
    (void)trailer;
    struct harness *h = conn;
    struct stream *st = check_stream(h, stream, "on_header");
    require(st->begun, h, "on_header before on_begin");
    require(st->status != 0, h, "on_header before on_status");
    require(nlen > 0 && name[0] != ':', h, "on_header: a pseudo-header");
    touch(h, name, nlen);
    touch(h, value, vlen);
    if (trace)
        fprintf(stderr, "  on_header %d %.*s: %.*s\n", (int)st->id, (int)nlen, name, (int)vlen, value);
}

static void on_data(void *conn, void *stream, const char *data, size_t len)
{
    struct harness *h = conn;
    struct stream *st = check_stream(h, stream, "on_data");
    require(st->begun, h, "on_data before on_begin");
    require(st->status != 0, h, "on_data before on_status");
    touch(h, data, len);
    if (trace)
        fprintf(stderr, "  on_data %d %zu bytes\n", (int)st->id, len);
}

static void on_close(void *conn, void *stream, uint32_t error, const char *why)
{
    struct harness *h = conn;
    struct stream *st = check_stream(h, stream, "on_close");
    st->closed = true;
    /* A reason comes with PROTOCOL_ERROR (volley reset a malformed
     * response) or NO_ERROR (the server reset the stream before its end). */
    require(!why || (why[0] && (error == 1 || error == 0)), h, "on_close: a reason with another error code");
    if (trace)
        fprintf(stderr, "  on_close %d %s%s%s\n", (int)st->id, h2_error_name(error), why ? " " : "", why ? why : "");
}

static void on_goaway(void *conn, int32_t last_stream_id, uint32_t error)
{
    struct harness *h = conn;
    if (trace)
        fprintf(stderr, "  on_goaway last %d %s\n", (int)last_stream_id, h2_error_name(error));
    require(last_stream_id >= 0, h, "on_goaway: negative last stream id");
    if (!h->goaway || last_stream_id < h->last_id)
        h->last_id = last_stream_id;
    h->goaway = true;
}

static void on_settings(void *conn, uint32_t max_streams)
{
    struct harness *h = conn;
    (void)max_streams;
    if (trace)
        fprintf(stderr, "  on_settings max %u\n", max_streams);
    (void)h;
}

static void on_error(void *conn, const char *reason)
{
    (void)conn;
    require(reason && reason[0], conn, "on_error: no reason");
    if (trace)
        fprintf(stderr, "  on_error %s\n", reason);
}

static const struct h2_events events = {on_begin, on_status, on_header, on_data, on_close, on_goaway, on_settings, on_error};

/* Submits request i % 4: GET /, GET /a with headers, POST /p with 5 bytes,
 * POST /big with BIG_BODY bytes. Returns false when the session refused it
 * (no stream ids left, or going away). */
static bool submit(struct harness *h, struct h2_session *s, unsigned i)
{
    static const struct h2_header hdrs[] = {{"user-agent", "volley", 10, 6}, {"accept", "*/*", 6, 3}};
    static char big[BIG_BODY];
    static const char *const paths[] = {"/", "/a", "/p", "/big"};
    if (h->n == MAX_STREAMS)
        return false;
    if (!big[0])
        memset(big, 'b', sizeof big);
    struct stream *st = &h->st[h->n];
    *st = (struct stream){0};
    struct h2_request r = {.method = i % 4 < 2 ? "GET" : "POST",
                           .method_len = i % 4 < 2 ? 3 : 4,
                           .path = paths[i % 4],
                           .path_len = strlen(paths[i % 4]),
                           .authority = "127.0.0.1:8080",
                           .authority_len = 14,
                           .scheme = "http",
                           .scheme_len = 4};
    if (i % 4 == 1) {
        r.headers = hdrs;
        r.nheaders = 2;
    } else if (i % 4 >= 2) {
        st->body = i % 4 == 2 ? (struct h2_body){"hello", 5, 0} : (struct h2_body){big, sizeof big, 0};
        r.body = &st->body;
    }
    int32_t id = h2_submit(s, &r, st, &st->msg);
    if (id < 0) {
        require(h2_error(s)[0] != '\0', h, "h2_submit failed without a description");
        return false;
    }
    require(id > 0 && id % 2 == 1, h, "h2_submit gave a stream id that is not odd and positive");
    require(h->n == 0 || id > h->st[h->n - 1].id, h, "h2_submit gave a stream id that does not increase");
    st->id = id;
    h->n++;
    if (trace)
        fprintf(stderr, "submit %d %s %s\n", (int)id, r.method, r.path);
    return true;
}

/* Writes out what the session has to send (to nowhere). Returns false on a
 * session error. */
static bool drain(struct harness *h, struct h2_session *s)
{
    for (;;) {
        const char *p;
        long n = h2_send(s, &p);
        if (n < 0) {
            require(h2_error(s)[0] != '\0', h, "h2_send failed without a description");
            return false;
        }
        if (n == 0)
            break;
        if (trace)
            fprintf(stderr, "send %ld bytes\n", n);
        h->sum += (unsigned char)p[0] + (unsigned char)p[n - 1];
    }
    for (size_t i = 0; i < h->n; i++)
        require(h->st[i].body.off <= h->st[i].body.len, h, "a request body read past its end");
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size)
{
    static struct harness h;
    if (liveness < 0) {
        const char *l = getenv("VOLLEY_FUZZ_H2_LIVENESS"), *t = getenv("VOLLEY_FUZZ_H2_TRACE");
        liveness = l && l[0] == '1';
        trace = t && t[0] == '1';
    }
    if (size == 0)
        return 0;
    const unsigned control = input[0], k = control & 0x1f;
    const uint32_t window = control & 0x20 ? 16u << 20 : 65535;
    const bool reopen = control & 0x40, cancel = control & 0x80;
    const char *data = (const char *)input + 1;
    const size_t len = size - 1;

    h = (struct harness){0};
    struct mpool *pool = mpool_new();
    struct h2_session *s = h2_session_new(&events, &h, window, pool);
    require(s != NULL, &h, "h2_session_new failed");
    for (unsigned i = 0; i < 4; i++)
        require(submit(&h, s, i), &h, "a fresh session refused a request");
    bool alive = drain(&h, s), failed = false;
    require(alive, &h, "a fresh session failed to send");

    /* Piece sizes from a small xorshift seeded by the control byte: k = 0
     * feeds the input whole, k = 1 byte by byte, else 1 .. 4k^2 bytes. */
    uint32_t rng = control * 2654435761u | 1;
    bool first = true;
    while (alive && h.off < len) {
        size_t n = len - h.off;
        if (k) {
            rng ^= rng << 13;
            rng ^= rng >> 17;
            rng ^= rng << 5;
            size_t want = 1 + rng % (4 * k * k);
            n = want < n ? want : n;
        }
        if (trace)
            fprintf(stderr, "recv %zu bytes at %zu\n", n, h.off);
        if (h2_recv(s, data + h.off, n) < 0) {
            if (trace)
                fprintf(stderr, "h2_recv failed: %s\n", h2_error(s));
            require(h2_error(s)[0] != '\0', &h, "h2_recv failed without a description");
            failed = true;
            break;
        }
        h.off += n;
        alive = drain(&h, s);
        if (!alive)
            break;
        if (first && cancel && !h.st[1].closed) {
            h2_cancel(s, h.st[1].id); /* a request that timed out */
            h.st[1].cancelled = true;
        }
        first = false;
        if (reopen) {
            /* As the connection refills its free slots; these stay queued
             * until after the next piece. */
            size_t open = 0;
            for (size_t i = 0; i < h.n; i++)
                open += !h.st[i].closed && !h.st[i].cancelled;
            while (open < 4 && submit(&h, s, (unsigned)h.n))
                open++;
        }
    }
    if (alive && !failed)
        alive = drain(&h, s);

    /* Liveness: a session that did not fail must have closed every stream
     * it will never answer, or the connection would wait for them until its
     * timeout: those above a GOAWAY's last stream id, and all of them once
     * the session has finished (nothing left to read or write). */
    if (liveness && alive && !failed)
        for (size_t i = 0; i < h.n; i++) {
            const struct stream *st = &h.st[i];
            char why[128];
            if (st->closed || st->cancelled)
                continue;
            snprintf(why, sizeof why, "stream %d above GOAWAY's last stream id %d was never closed", (int)st->id,
                     (int)h.last_id);
            require(!h.goaway || st->id <= h.last_id, &h, why);
            snprintf(why, sizeof why, "the session finished with stream %d never closed", (int)st->id);
            require(!h2_finished(s), &h, why);
        }

    uint64_t wire, decoded;
    h2_header_sizes(s, &wire, &decoded);
    if (trace)
        fprintf(stderr, "end: %s, finished %d, header bytes %llu on the wire, %llu decoded\n",
                failed ? "h2_recv failed" : alive ? "ok" : "h2_send failed", (int)h2_finished(s),
                (unsigned long long)wire, (unsigned long long)decoded);
    (void)h2_peer_max_streams(s);
    h2_session_free(s);
    require(mpool_live(pool) == 0, &h, "nghttp2 left blocks of the pool behind");
    mpool_free(pool);
    return 0;
}
