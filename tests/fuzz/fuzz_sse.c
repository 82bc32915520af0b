/* libFuzzer target for the server-sent events parser (src/http/sse.c). The
 * first 5 bytes are controls, the rest is the stream:
 *   byte 0: bit 0 the mode (SSE_LINES when set), bits 1-3 max (one of
 *           0, 1, 7, 16, 33, 64, 250, 4096), bits 4-6 stop after that many
 *           events (0: never), bit 7 feed byte by byte instead;
 *   bytes 1-4: four split points, each b * len / 256 of the stream.
 * The stream is fed whole, then in the pieces the split points make (or
 * byte by byte), each piece in an allocation of exactly its size freed after
 * its feed, then sse_finish. The two runs must give the same events (a hash
 * of their fields), comments, statuses and dropped flag; and every event and
 * status must keep sse.h's contract (see require()).
 *
 * Linked with replay_main.c instead of libFuzzer this is a plain program
 * that runs the target over the files (or directories) named on its command
 * line: the ctest unit.fuzz_sse_corpus. */
#include "sse.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t maxes[8] = {0, 1, 7, 16, 33, 64, 250, 4096};

struct tally {
    enum sse_mode mode;
    size_t max;
    int stop_after;
    uint64_t hash;
    uint64_t calls;
};

static void require(bool ok, const char *what)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz_sse: contract broken: %s\n", what);
    abort();
}

static uint64_t fnv(uint64_t h, const void *s, size_t n)
{
    const unsigned char *p = s;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

static uint64_t field(uint64_t h, const char *s, size_t n)
{
    h = fnv(h, &n, sizeof n);
    return fnv(h, s, n);
}

static int on_event(void *ctx, const struct sse_event *ev)
{
    struct tally *t = ctx;
    require(ev->type && ev->data && ev->id, "a NULL pointer in an event");
    require(ev->type_len > 0, "an event without a type");
    require(ev->retry >= -1, "retry below -1");
    /* max bounds the event's bytes; the default type is not among them. */
    bool own_type = !(ev->type_len == 7 && memcmp(ev->type, "message", 7) == 0) &&
                    !(ev->type_len == 4 && memcmp(ev->type, "line", 4) == 0);
    require((own_type ? ev->type_len : 0) + ev->data_len + ev->id_len <= t->max, "an event larger than max");
    if (t->mode == SSE_LINES) {
        require(ev->type_len == 4 && memcmp(ev->type, "line", 4) == 0, "a line's type is not \"line\"");
        require(ev->data_len > 0, "an empty line dispatched");
        require(!memchr(ev->data, '\n', ev->data_len) && !memchr(ev->data, '\r', ev->data_len),
                "a line end inside a line");
        require(ev->id_len == 0 && ev->retry == -1, "a line with an id or retry");
    } else {
        require(!memchr(ev->data, '\r', ev->data_len), "a CR inside data");
        require(!memchr(ev->type, '\n', ev->type_len) && !memchr(ev->type, '\r', ev->type_len),
                "a line end inside a type");
        require(!memchr(ev->id, '\0', ev->id_len) && !memchr(ev->id, '\n', ev->id_len) &&
                    !memchr(ev->id, '\r', ev->id_len),
                "NUL or a line end inside an id");
    }
    uint64_t h = t->hash;
    h = field(h, ev->type, ev->type_len);
    h = field(h, ev->data, ev->data_len);
    h = field(h, ev->id, ev->id_len);
    t->hash = fnv(h, &ev->retry, sizeof ev->retry);
    t->calls++;
    return t->stop_after && t->calls >= (uint64_t)t->stop_after;
}

struct result {
    uint64_t hash, calls, events, comments;
    enum sse_status feed_st, finish_st;
    bool dropped;
};

/* Feeds s[0, n) in the pieces that cuts[0, ncuts) make. */
static void run(enum sse_mode mode, size_t max, int stop_after, const char *s, size_t n, const size_t *cuts,
                size_t ncuts, struct result *r)
{
    struct tally t = {mode, max, stop_after, 0xcbf29ce484222325u, 0};
    struct sse p = {0};
    sse_init(&p, mode, max);
    enum sse_status st = SSE_OK;
    size_t from = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : n;
        char *piece = malloc(to > from ? to - from : 1);
        memcpy(piece, s + from, to - from);
        enum sse_status was = st;
        uint64_t calls = t.calls;
        st = sse_feed(&p, piece, to - from, on_event, &t);
        free(piece);
        require(was == SSE_OK || (st == was && t.calls == calls), "a feed after a failure or a stop did something");
        require(st != SSE_STOPPED || (stop_after && t.calls == (uint64_t)stop_after), "STOPPED but fn did not stop");
        require(p.cap <= max, "the buffer grew above max");
        from = to;
    }
    bool dropped = false;
    enum sse_status fin = sse_finish(&p, on_event, &t, &dropped);
    require(st == SSE_OK || fin == st, "sse_finish changed a failed stream's status");
    require(sse_events(&p) == t.calls, "events counted are not the calls");
    *r = (struct result){t.hash, t.calls, sse_events(&p), sse_comments(&p), st, fin, dropped};
    sse_free(&p);
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    const uint8_t ctl = data[0];
    const enum sse_mode mode = ctl & 1 ? SSE_LINES : SSE_EVENTS;
    const size_t max = maxes[(ctl >> 1) & 7];
    const int stop_after = (ctl >> 4) & 7;
    const char *s = (const char *)data + 5;
    const size_t n = size - 5;

    struct result whole, split;
    run(mode, max, stop_after, s, n, NULL, 0, &whole);
    if (ctl & 0x80) {
        size_t *cuts = malloc((n ? n : 1) * sizeof *cuts);
        for (size_t i = 0; i + 1 < n; i++)
            cuts[i] = i + 1;
        run(mode, max, stop_after, s, n, cuts, n ? n - 1 : 0, &split);
        free(cuts);
    } else {
        size_t cuts[4];
        for (int i = 0; i < 4; i++)
            cuts[i] = (size_t)data[1 + i] * n / 256;
        qsort(cuts, 4, sizeof cuts[0], cmp_size);
        run(mode, max, stop_after, s, n, cuts, 4, &split);
    }
    require(whole.hash == split.hash && whole.calls == split.calls, "split feeds gave other events than one feed");
    require(whole.comments == split.comments, "split feeds counted other comments");
    require(whole.feed_st == split.feed_st && whole.finish_st == split.finish_st,
            "split feeds ended with another status");
    require(whole.dropped == split.dropped, "split feeds dropped otherwise");
    return 0;
}
