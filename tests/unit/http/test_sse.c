/* Unit test for sse.c: every rule of the event stream and of the lines mode,
 * each input fed whole, byte by byte, split at every point (and at every
 * pair of points when short), each piece in its own exact allocation freed
 * after its feed, so that ASan sees any read past a piece or of an earlier
 * one. Then the bounds (max, an endless line), stopping, the end of the
 * body, the buffer's reuse and the zero-copy case.
 *
 * VOLLEY_SSE_BENCH=1 in the environment also times the parser (ns per
 * event for a vLLM chunk, one event a feed and many a feed); ctest does not
 * set it. */
#include "sse.h"

#include "../check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define S(lit) lit, sizeof(lit) - 1

/* ------------------------------------------------------------ recording */

/* Events as text, "type|data|id|retry;" each, bytes below 0x20 or above
 * 0x7e and '\\' escaped, so that expectations are written in C strings. */
struct rec {
    char out[8192];
    size_t len;
    int stop_after; /* fn answers nonzero at this event (0: never) */
    int seen;
};

static void put(struct rec *r, const char *s, size_t n)
{
    for (size_t i = 0; i < n && r->len + 5 < sizeof r->out; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n')
            r->len += (size_t)snprintf(r->out + r->len, 3, "\\n");
        else if (c == '\\')
            r->len += (size_t)snprintf(r->out + r->len, 3, "\\\\");
        else if (c < 0x20 || c > 0x7e)
            r->len += (size_t)snprintf(r->out + r->len, 5, "\\x%02x", c);
        else
            r->out[r->len++] = (char)c;
    }
    r->out[r->len] = '\0';
}

static int record(void *ctx, const struct sse_event *ev)
{
    struct rec *r = ctx;
    CHECK(ev->type && ev->data && ev->id); /* empty is "", never NULL */
    put(r, ev->type, ev->type_len);
    put(r, "|", 1);
    put(r, ev->data, ev->data_len);
    put(r, "|", 1);
    put(r, ev->id, ev->id_len);
    char num[32];
    int k = snprintf(num, sizeof num, "|%lld;", (long long)ev->retry);
    put(r, num, (size_t)k);
    r->seen++;
    return r->stop_after && r->seen >= r->stop_after;
}

struct outcome {
    struct rec rec;
    enum sse_status feed_st; /* the last feed's status */
    enum sse_status finish_st;
    bool dropped;
    uint64_t comments, events;
    uint32_t max_cap; /* the largest cap seen after any feed */
};

/* Feeds in[0, n) cut at cuts[0..ncuts) (increasing), each piece copied into
 * an allocation of exactly its size and freed after its feed; then
 * sse_finish. */
static void run(enum sse_mode mode, size_t max, int stop_after, const char *in, size_t n, const size_t *cuts,
                size_t ncuts, struct outcome *o)
{
    memset(o, 0, sizeof *o);
    o->rec.stop_after = stop_after;
    struct sse p = {0};
    sse_init(&p, mode, max);
    size_t from = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : n;
        char *piece = malloc(to - from ? to - from : 1);
        memcpy(piece, in + from, to - from);
        o->feed_st = sse_feed(&p, piece, to - from, record, &o->rec);
        free(piece);
        if (p.cap > o->max_cap)
            o->max_cap = p.cap;
        from = to;
    }
    o->finish_st = sse_finish(&p, record, &o->rec, &o->dropped);
    o->comments = sse_comments(&p);
    o->events = sse_events(&p);
    CHECK(p.cap <= max);
    sse_free(&p);
}

static bool same(const struct outcome *a, const struct outcome *b)
{
    return a->rec.len == b->rec.len && memcmp(a->rec.out, b->rec.out, a->rec.len) == 0 && a->feed_st == b->feed_st &&
           a->finish_st == b->finish_st && a->dropped == b->dropped && a->comments == b->comments &&
           a->events == b->events;
}

static void compare_split(const char *how, const struct outcome *whole, const struct outcome *o)
{
    if (same(whole, o))
        return;
    check_ctx("%s", how);
    CHECK_MEM(o->rec.out, o->rec.len, whole->rec.out, whole->rec.len);
    CHECK_INT(o->feed_st, whole->feed_st);
    CHECK_INT(o->finish_st, whole->finish_st);
    CHECK_INT(o->dropped, whole->dropped);
    CHECK_UINT(o->comments, whole->comments);
    CHECK_UINT(o->events, whole->events);
}

/* The input fed whole must give want (events), st (the last feed's status),
 * comments and dropped; and fed byte by byte, at every split point and
 * (short inputs) at every pair of them, exactly the same. */
static void expect_full(enum sse_mode mode, size_t max, int stop_after, const char *in, size_t n, const char *want,
                        enum sse_status st, uint64_t comments, bool dropped, int line)
{
    static struct outcome whole, o;
    check_ctx("input at line %d, whole", line);
    run(mode, max, stop_after, in, n, NULL, 0, &whole);
    CHECK_STR(whole.rec.out, want);
    CHECK_INT(whole.feed_st, st);
    CHECK_UINT(whole.comments, comments);
    CHECK_INT(whole.dropped, dropped);

    char how[96];
    size_t *cuts = malloc((n + 1) * sizeof *cuts);
    for (size_t i = 0; i < n; i++)
        cuts[i] = i + 1;
    run(mode, max, stop_after, in, n, cuts, n ? n - 1 : 0, &o);
    snprintf(how, sizeof how, "input at line %d, byte by byte", line);
    compare_split(how, &whole, &o);
    for (size_t i = 0; i <= n; i++) {
        size_t c[1] = {i};
        run(mode, max, stop_after, in, n, c, 1, &o);
        snprintf(how, sizeof how, "input at line %d, split at %zu", line, i);
        compare_split(how, &whole, &o);
    }
    for (size_t i = 1; n <= 80 && i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            size_t c[2] = {i, j};
            run(mode, max, stop_after, in, n, c, 2, &o);
            snprintf(how, sizeof how, "input at line %d, split at %zu and %zu", line, i, j);
            compare_split(how, &whole, &o);
        }
    free(cuts);
    check_ctx(NULL);
}

/* Events mode, a generous max, never stopped. */
#define EXPECT(in, want, comments, dropped) \
    expect_full(SSE_EVENTS, 4096, 0, S(in), want, SSE_OK, comments, dropped, __LINE__)
#define EXPECT_LINES(in, want) expect_full(SSE_LINES, 4096, 0, S(in), want, SSE_OK, 0, false, __LINE__)

/* ---------------------------------------------------------------- rules */

static void test_events(void)
{
    EXPECT("data: hello\n\n", "message|hello||-1;", 0, false);
    EXPECT("data: a\n\ndata: b\n\ndata: c\n\n", "message|a||-1;message|b||-1;message|c||-1;", 0, false);
    /* The vLLM chunk this parser is built for. */
    EXPECT("data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"delta\":{\"content\":\"tok \"}}]}\n\ndata: [DONE]\n\n",
           "message|{\"id\":\"chatcmpl-1\",\"choices\":[{\"delta\":{\"content\":\"tok \"}}]}||-1;message|[DONE]||-1;",
           0, false);
    /* Field parsing: one leading space removed, no more; no colon: the whole
     * line is the name; names are case-sensitive; the value keeps colons. */
    EXPECT("data:x\n\n", "message|x||-1;", 0, false);
    EXPECT("data:  x \n\n", "message| x ||-1;", 0, false);
    EXPECT("data:x:y: z\n\n", "message|x:y: z||-1;", 0, false);
    EXPECT("data\n\n", "message|||-1;", 0, false);
    EXPECT("data:\n\n", "message|||-1;", 0, false);
    EXPECT("data : x\n\nDATA: y\n\ndat: z\n\nfoo: w\n\n", "", 0, false);
    /* Multi-line data joined with LF, the last LF removed. */
    EXPECT("data: a\ndata: b\ndata\ndata:\ndata:  c\n\n", "message|a\\nb\\n\\n\\n c||-1;", 0, false);
    EXPECT("data\ndata\n\n", "message|\\n||-1;", 0, false);
    /* Empty data buffer: nothing dispatched, the type reset. */
    EXPECT("event: a\n\n\n\n\ndata: x\n\n", "message|x||-1;", 0, false);
    EXPECT("\n\n\n", "", 0, false);
    /* Unknown fields between data lines change nothing. */
    EXPECT("data: a\nfoo\nbar: baz\ndata: b\n\n", "message|a\\nb||-1;", 0, false);
}

static void test_line_ends(void)
{
    EXPECT("data: a\r\rdata: b\r\n\r\ndata: c\n\n", "message|a||-1;message|b||-1;message|c||-1;", 0, false);
    EXPECT("data: a\r\n\r\n", "message|a||-1;", 0, false);
    /* CR, then CRLF: a line and a blank line. */
    EXPECT("data: a\r\r\ndata: b\n\r\r", "message|a||-1;message|b||-1;", 0, false);
    /* LF CR is two line ends. */
    EXPECT("data: a\n\rdata: b\n\n", "message|a||-1;message|b||-1;", 0, false);
    /* A lone CR in the middle of a line ends it. */
    EXPECT("data: a\rb\n\n", "message|a||-1;", 0, false);
    EXPECT("data: a\ndata: b\r\ndata: c\rdata: d\n\r\n", "message|a\\nb\\nc\\nd||-1;", 0, false);
    /* Long lines (the SSE2 scan's blocks and its overlapping last block). */
    EXPECT("data: 0123456789abcdef0123456789abcdef0\r\n\r\ndata: 0123456789abcdefX\r\r",
           "message|0123456789abcdef0123456789abcdef0||-1;message|0123456789abcdefX||-1;", 0, false);
    EXPECT("data: 0123456789\n\ndata: 0123456789abcdef0123456789abcdef0123\n\n",
           "message|0123456789||-1;message|0123456789abcdef0123456789abcdef0123||-1;", 0, false);
}

/* CR at the end of one feed and LF at the start of the next are one line
 * end: the LF is not a blank line (the splits in expect_full cover it too;
 * this names it). */
static void test_cr_across_feeds(void)
{
    struct sse p = {0};
    struct rec r = {0};
    sse_init(&p, SSE_EVENTS, 1024);
    CHECK_INT(sse_feed(&p, S("data: a\r"), record, &r), SSE_OK);
    CHECK_INT(sse_feed(&p, S("\ndata: b\r"), record, &r), SSE_OK);
    CHECK_INT(sse_feed(&p, "", 0, record, &r), SSE_OK); /* an empty feed keeps the CR pending */
    CHECK_INT(sse_feed(&p, S("\n\r"), record, &r), SSE_OK);
    CHECK_STR(r.out, "message|a\\nb||-1;");
    /* A CR and then a CR in the next feed: two line ends. */
    CHECK_INT(sse_feed(&p, S("data: c\r"), record, &r), SSE_OK);
    CHECK_INT(sse_feed(&p, S("\r"), record, &r), SSE_OK);
    CHECK_STR(r.out, "message|a\\nb||-1;message|c||-1;");
    sse_free(&p);
}

static void test_bom(void)
{
    EXPECT("\xEF\xBB\xBF" "data: x\n\n", "message|x||-1;", 0, false);
    /* Only once: a second BOM is part of the first field's name. */
    EXPECT("\xEF\xBB\xBF\xEF\xBB\xBF" "data: x\n\ndata: y\n\n", "message|y||-1;", 0, false);
    /* Only at the start. */
    EXPECT("data: x\n\n\xEF\xBB\xBF" "data: y\n\n", "message|x||-1;", 0, false);
    EXPECT("data: \xEF\xBB\xBFx\n\n", "message|\\xef\\xbb\\xbfx||-1;", 0, false);
    /* Bytes that begin like a BOM and are not one are the first line's. */
    EXPECT("\xEF\xBB" "data: x\n\ndata: y\n\n", "message|y||-1;", 0, false);
    EXPECT("\xEF\n\ndata: y\n\n", "message|y||-1;", 0, false);
    EXPECT("\xEF\xBB", "", 0, true);
    EXPECT("\xEF\xBB\xBF", "", 0, false);
    EXPECT("\xEF\xBB:c\n", "", 0, false);
    EXPECT(":\xEF\xBB\xBF\n", "", 1, false);
    EXPECT_LINES("\xEF\xBB\xBF{\"a\":1}\n", "line|{\"a\":1}||-1;");
    EXPECT_LINES("\xEF\xBBx\n\xEF\xBB\xBFy", "line|\\xef\\xbbx||-1;line|\\xef\\xbb\\xbfy||-1;");
    EXPECT_LINES("\xEF\xBB", "line|\\xef\\xbb||-1;");
}

static void test_id(void)
{
    /* Kept across events; no colon: set to empty. */
    EXPECT("id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\ndata: d\n\n",
           "message|a|1|-1;message|b|1|-1;message|c||-1;message|d||-1;", 0, false);
    /* A NUL in the value: the line is ignored. */
    EXPECT("id: 2\ndata: a\n\nid: x\0y\ndata: b\n\n", "message|a|2|-1;message|b|2|-1;", 0, false);
    /* Set by a block without data (no event), then reported. */
    EXPECT("id: 5\n\ndata: z\n\n", "message|z|5|-1;", 0, false);
    /* After the data in its block, and the last of several. */
    EXPECT("data: a\nid: 7\nid: 8\n\n", "message|a|8|-1;", 0, false);
    /* Changed in the middle of a split event: the old one until its end. */
    EXPECT("id: old\ndata: a\n\ndata: b\nid: new\ndata: c\n\ndata: d\n\n",
           "message|a|old|-1;message|b\\nc|new|-1;message|d|new|-1;", 0, false);
    EXPECT("id: 1\n\nid:\n\ndata: x\n\n", "message|x||-1;", 0, false);
    /* Empty values split from their event (no buffer yet). */
    EXPECT("id\nevent\ndata: x\n\n", "message|x||-1;", 0, false);
}

static void test_type(void)
{
    EXPECT("event: add\ndata: x\n\ndata: y\n\n", "add|x||-1;message|y||-1;", 0, false);
    EXPECT("event\ndata: x\n\n", "message|x||-1;", 0, false);
    EXPECT("event:\ndata: x\n\n", "message|x||-1;", 0, false);
    EXPECT("event: a\nevent: bb\ndata: x\nevent: c\n\n", "c|x||-1;", 0, false);
    EXPECT("event: a\n\ndata: x\n\n", "message|x||-1;", 0, false);
    EXPECT("event: content_block_delta\ndata: {\"x\":1}\n\nevent: message_stop\ndata: {}\n\n",
           "content_block_delta|{\"x\":1}||-1;message_stop|{}||-1;", 0, false);
}

static void test_retry(void)
{
    EXPECT("retry: 1500\ndata: a\n\ndata: b\n\n", "message|a||1500;message|b||-1;", 0, false);
    EXPECT("retry: 15x\ndata: a\n\n", "message|a||-1;", 0, false);
    EXPECT("retry:\ndata: a\n\nretry\ndata: b\n\n", "message|a||-1;message|b||-1;", 0, false);
    EXPECT("retry: -5\ndata: a\n\nretry:  5\ndata: b\n\n", "message|a||-1;message|b||-1;", 0, false);
    EXPECT("retry: 10\nretry: x\ndata: a\n\n", "message|a||10;", 0, false);
    EXPECT("retry:0\ndata: a\n\n", "message|a||0;", 0, false);
    EXPECT("retry: 99999999999999999999999\ndata: a\n\n", "message|a||9223372036854775807;", 0, false);
    EXPECT("retry: 9223372036854775807\ndata: a\n\n", "message|a||9223372036854775807;", 0, false);
    /* In a block without data: not carried to the next event. */
    EXPECT("retry: 3\n\ndata: a\n\n", "message|a||-1;", 0, false);
}

static void test_comments(void)
{
    EXPECT(":hi\n: there\ndata: a\n:x\n\n", "message|a||-1;", 3, false);
    EXPECT(":\n\n:\r\n", "", 2, false);
    /* A comment line is not data, and its bytes are not the event's. */
    EXPECT("data: a\n: data: b\n\n", "message|a||-1;", 1, false);
}

static void test_finish(void)
{
    /* SSE_EVENTS: an event without its blank line is dropped. */
    EXPECT("data: a\n\ndata: b\n", "message|a||-1;", 0, true);
    EXPECT("data: a\n\ndata: b", "message|a||-1;", 0, true);
    EXPECT("data: a\n\n", "message|a||-1;", 0, false);
    EXPECT(": keep-alive", "", 0, true);
    EXPECT("event: x\nid: 3\n", "", 0, false);
    EXPECT("", "", 0, false);
    /* NULL dropped is allowed; finishing twice finds nothing. */
    struct sse p = {0};
    struct rec r = {0};
    sse_init(&p, SSE_EVENTS, 64);
    sse_feed(&p, S("data: x"), record, &r);
    CHECK_INT(sse_finish(&p, record, &r, NULL), SSE_OK);
    bool dropped = true;
    CHECK_INT(sse_finish(&p, record, &r, &dropped), SSE_OK);
    CHECK(!dropped);
    CHECK_STR(r.out, "");
    sse_free(&p);
}

static void test_lines(void)
{
    EXPECT_LINES("a\n\nb\r\nc\rd", "line|a||-1;line|b||-1;line|c||-1;line|d||-1;");
    EXPECT_LINES("{\"x\":1}\n{\"x\":2}\n", "line|{\"x\":1}||-1;line|{\"x\":2}||-1;");
    /* Nothing is a field or a comment in this mode. */
    EXPECT_LINES(":c\ndata: a\n\n\r\r\n", "line|:c||-1;line|data: a||-1;");
    EXPECT_LINES("\n\n", "");
    EXPECT_LINES("last\r", "line|last||-1;");
}

/* ---------------------------------------------------------------- bounds */

static void test_too_large(void)
{
    /* One data line: the line (6 + k bytes) against max 32. */
    expect_full(SSE_EVENTS, 32, 0, S("data: a\n\ndata: 01234567890123456789012345\n\n"),
                "message|a||-1;message|01234567890123456789012345||-1;", SSE_OK, 0, false, __LINE__);
    expect_full(SSE_EVENTS, 32, 0, S("data: a\n\ndata: 012345678901234567890123456\n\ndata: b\n\n"),
                "message|a||-1;", SSE_TOO_LARGE, 0, false, __LINE__);
    /* Two data lines: the first's 11 bytes of data and the second line's
     * 5 + m bytes together: 32 fits, 33 is one too many. */
    expect_full(SSE_EVENTS, 32, 0, S("data:0123456789\ndata:0123456789abcdef\n\n"),
                "message|0123456789\\n0123456789abcdef||-1;", SSE_OK, 0, false, __LINE__);
    expect_full(SSE_EVENTS, 32, 0, S("data:0123456789\ndata:0123456789abcdefg\n\n"), "", SSE_TOO_LARGE, 0, false,
                __LINE__);
    /* The last event ID counts in every event: 10 + 22 fits, 10 + 23 not. */
    expect_full(SSE_EVENTS, 32, 0, S("id: 0123456789\n\ndata: 0123456789abcdef\n\n"),
                "message|0123456789abcdef|0123456789|-1;", SSE_OK, 0, false, __LINE__);
    expect_full(SSE_EVENTS, 32, 0, S("id: 0123456789\n\ndata: 0123456789abcdefg\n\n"), "", SSE_TOO_LARGE, 0, false,
                __LINE__);
    /* An event: line counts as its line and its value while it is taken
     * in, and a replaced value keeps its room until the event ends: the
     * first value (3), the second line (15) and its value (8) make 26. */
    expect_full(SSE_EVENTS, 26, 0, S("event: abc\nevent: 01234567\n\ndata: x\n\n"), "message|x||-1;", SSE_OK, 0,
                false, __LINE__);
    expect_full(SSE_EVENTS, 25, 0, S("event: abc\nevent: 01234567\n\ndata: x\n\n"), "", SSE_TOO_LARGE, 0, false,
                __LINE__);
    /* A comment line is bounded too (it may never end). */
    expect_full(SSE_EVENTS, 8, 0, S(":1234567\n:12345678\n"), "", SSE_TOO_LARGE, 1, false, __LINE__);
    /* Lines mode: the line alone. */
    expect_full(SSE_LINES, 8, 0, S("12345678\n123456789\nx\n"), "line|12345678||-1;", SSE_TOO_LARGE, 0, false,
                __LINE__);
    expect_full(SSE_LINES, 8, 0, S("12345678"), "line|12345678||-1;", SSE_OK, 0, false, __LINE__);
    expect_full(SSE_LINES, 8, 0, S("123456789"), "", SSE_TOO_LARGE, 0, false, __LINE__);
    /* max 0: blank lines only. */
    expect_full(SSE_EVENTS, 0, 0, S("\n\r\n\r"), "", SSE_OK, 0, false, __LINE__);
    expect_full(SSE_EVENTS, 0, 0, S("\n\nd"), "", SSE_TOO_LARGE, 0, false, __LINE__);
}

/* A line that never ends stays within max: 10 MB in 4 KB pieces against
 * max 64 KB fails at the 17th piece, and the buffer never grows past max. */
static void test_endless_line(void)
{
    static char piece[4096];
    memset(piece, 'x', sizeof piece);
    memcpy(piece, "data: ", 6);
    struct sse p = {0};
    struct rec r = {0};
    sse_init(&p, SSE_EVENTS, 65536);
    int failed_at = -1;
    uint32_t cap = 0;
    for (int i = 0; i < 10 * 256; i++) {
        enum sse_status st = sse_feed(&p, piece, sizeof piece, record, &r);
        if (p.cap > cap)
            cap = p.cap;
        if (st != SSE_OK && failed_at < 0)
            failed_at = i;
        if (failed_at >= 0)
            CHECK_INT(st, SSE_TOO_LARGE);
    }
    CHECK_INT(failed_at, 16);
    CHECK(cap <= 65536);
    CHECK_UINT(sse_events(&p), 0);
    bool dropped = true;
    CHECK_INT(sse_finish(&p, record, &r, &dropped), SSE_TOO_LARGE);
    sse_free(&p);

    /* The same in lines mode. */
    sse_init(&p, SSE_LINES, 65536);
    failed_at = -1;
    for (int i = 0; i < 64; i++)
        if (sse_feed(&p, piece, sizeof piece, record, &r) != SSE_OK && failed_at < 0)
            failed_at = i;
    CHECK_INT(failed_at, 16);
    CHECK(p.cap <= 65536);
    sse_free(&p);
}

static void test_stopped(void)
{
    expect_full(SSE_EVENTS, 4096, 1, S("data: a\n\ndata: b\n\n"), "message|a||-1;", SSE_STOPPED, 0, false,
                __LINE__);
    expect_full(SSE_EVENTS, 4096, 2, S("id: 1\ndata: a\n\ndata: b\ndata: c\n\ndata: d\n\n"),
                "message|a|1|-1;message|b\\nc|1|-1;", SSE_STOPPED, 0, false, __LINE__);
    expect_full(SSE_LINES, 4096, 2, S("a\nb\nc\nd"), "line|a||-1;line|b||-1;", SSE_STOPPED, 0, false, __LINE__);
    /* The last line of a lines stream, dispatched by sse_finish, may stop it. */
    struct sse p = {0};
    struct rec r = {.stop_after = 1};
    sse_init(&p, SSE_LINES, 64);
    CHECK_INT(sse_feed(&p, S("tail"), record, &r), SSE_OK);
    CHECK_INT(sse_finish(&p, record, &r, NULL), SSE_STOPPED);
    CHECK_INT(sse_feed(&p, S("more\n"), record, &r), SSE_STOPPED);
    CHECK_STR(r.out, "line|tail||-1;");
    sse_free(&p);
    /* After a stop, feeds return it and call nothing. */
    struct rec r2 = {.stop_after = 1};
    sse_init(&p, SSE_EVENTS, 64);
    CHECK_INT(sse_feed(&p, S("data: a\n\ndata: b\n\n"), record, &r2), SSE_STOPPED);
    CHECK_INT(sse_feed(&p, S("data: c\n\n"), record, &r2), SSE_STOPPED);
    CHECK_INT(sse_finish(&p, record, &r2, NULL), SSE_STOPPED);
    CHECK_INT(r2.seen, 1);
    sse_free(&p);
}

/* ---------------------------------------------------------------- memory */

struct where {
    const char *lo, *hi; /* the fed bytes */
    int inside;          /* events whose data pointed into them */
};

static int note_where(void *ctx, const struct sse_event *ev)
{
    struct where *w = ctx;
    w->inside += ev->data >= w->lo && ev->data + ev->data_len <= w->hi;
    return 0;
}

static void test_zero_copy(void)
{
    /* Events whole in one feed, one data line each: pointers into the fed
     * bytes, and no buffer at all. */
    static const char in[] = "data: a\n\nevent: t\ndata: b\r\n\r\n: c\ndata: c\n\n";
    struct sse p = {0};
    struct where w = {in, in + sizeof in - 1, 0};
    sse_init(&p, SSE_EVENTS, 1 << 20);
    CHECK_INT(sse_feed(&p, in, sizeof in - 1, note_where, &w), SSE_OK);
    CHECK_INT(w.inside, 3);
    CHECK(p.buf == NULL);
    CHECK_UINT(p.cap, 0);
    sse_free(&p);
    sse_init(&p, SSE_LINES, 1 << 20);
    w.inside = 0;
    CHECK_INT(sse_feed(&p, in, sizeof in - 1, note_where, &w), SSE_OK);
    CHECK_INT(w.inside, 5); /* blank lines are no events */
    CHECK(p.buf == NULL);
    sse_free(&p);
}

/* An event split across feeds allocates the buffer (256 bytes first); it
 * grows by doubling up to max, no further; sse_init keeps it, and the next
 * stream's split events reuse it without a new allocation. */
static void test_reuse(void)
{
    struct sse p = {0};
    struct rec r = {0};
    sse_init(&p, SSE_EVENTS, 1000);
    sse_feed(&p, S("data: a"), record, &r);
    CHECK(p.buf != NULL);
    CHECK_UINT(p.cap, 256);
    sse_feed(&p, S("b\n\n"), record, &r);
    CHECK_STR(r.out, "message|ab||-1;");
    static char big[900];
    memset(big, 'y', sizeof big);
    memcpy(big, "data: ", 6);
    sse_feed(&p, big, sizeof big, record, &r);
    CHECK_UINT(p.cap, 1000); /* 256, 512, then max instead of 1024 */
    CHECK_INT(sse_feed(&p, S("\n\n"), record, &r), SSE_OK);
    CHECK_UINT(sse_events(&p), 2);

    char *buf = p.buf;
    sse_init(&p, SSE_EVENTS, 1000);
    CHECK(p.buf == buf);
    CHECK_UINT(p.cap, 1000);
    CHECK_UINT(sse_events(&p), 0);
    memset(&r, 0, sizeof r);
    for (int i = 0; i < 100; i++) {
        sse_feed(&p, S("id: 4\nevent: e\ndata: 1\nda"), record, &r);
        sse_feed(&p, S("ta: 2\n\n"), record, &r);
    }
    CHECK(p.buf == buf);
    CHECK_UINT(sse_events(&p), 100);
    CHECK_CONTAINS(r.out, "e|1\\n2|4|-1;e|1\\n2|4|-1;");
    /* A smaller max on the next stream lets a larger buffer go. */
    sse_init(&p, SSE_EVENTS, 100);
    CHECK(p.buf == NULL);
    CHECK_UINT(p.cap, 0);
    sse_free(&p);
    CHECK(p.buf == NULL);
}

/* What a stream costs: the struct, and a vLLM stream split anywhere keeps
 * to the first 256 bytes of buffer (10,000 streams in well under 2 KB
 * each). */
static void test_footprint(void)
{
    CHECK(sizeof(struct sse) <= 128);
    static const char chunk[] = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":0,"
                                "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok12 \"},"
                                "\"logprobs\":null,\"finish_reason\":null}]}\n\n";
    struct sse p = {0};
    struct rec r = {0};
    uint32_t cap = 0;
    sse_init(&p, SSE_EVENTS, 1 << 20);
    for (size_t cut = 0; cut < sizeof chunk - 1; cut++) {
        sse_feed(&p, chunk, cut, record, &r);
        sse_feed(&p, chunk + cut, sizeof chunk - 1 - cut, record, &r);
        if (p.cap > cap)
            cap = p.cap;
        r.len = 0;
    }
    CHECK_UINT(sse_events(&p), sizeof chunk - 1);
    CHECK_UINT(cap, 256);
    sse_free(&p);
}

/* ----------------------------------------------------------------- bench */

static const char vllm[] = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"m\","
                           "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok12 \"},\"logprobs\":null,"
                           "\"finish_reason\":null}]}\n\n";

static int count_event(void *ctx, const struct sse_event *ev)
{
    *(size_t *)ctx += ev->data_len;
    return 0;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ns per event: the best of 5 rounds of `rounds` passes over `events`
 * chunks, fed `per_feed` events at a time. */
static double bench(enum sse_mode mode, const char *all, size_t events, size_t per_feed, int rounds)
{
    const size_t len = sizeof vllm - 1;
    struct sse p = {0};
    sse_init(&p, mode, 1 << 16);
    size_t sink = 0;
    double best = 1e30;
    for (int k = 0; k < 5; k++) {
        double t0 = now_ns();
        for (int round = 0; round < rounds; round++)
            for (size_t i = 0; i < events; i += per_feed)
                sse_feed(&p, all + i * len, per_feed * len, count_event, &sink);
        double ns = (now_ns() - t0) / ((double)rounds * (double)events);
        if (ns < best)
            best = ns;
    }
    if (sink == 0 || p.buf != NULL)
        printf("bench: unexpected: no events, or a buffer was allocated\n");
    sse_free(&p);
    return best;
}

/* The same, each event fed in two pieces cut in its data line: the
 * buffered path. */
static double bench_split(const char *all, size_t events, int rounds)
{
    const size_t len = sizeof vllm - 1, cut = len / 2;
    struct sse p = {0};
    sse_init(&p, SSE_EVENTS, 1 << 16);
    size_t sink = 0;
    double best = 1e30;
    for (int k = 0; k < 5; k++) {
        double t0 = now_ns();
        for (int round = 0; round < rounds; round++)
            for (size_t i = 0; i < events; i++) {
                sse_feed(&p, all + i * len, cut, count_event, &sink);
                sse_feed(&p, all + i * len + cut, len - cut, count_event, &sink);
            }
        double ns = (now_ns() - t0) / ((double)rounds * (double)events);
        if (ns < best)
            best = ns;
    }
    sse_free(&p);
    return sink ? best : -1;
}

static void run_bench(void)
{
    const size_t events = 1024, len = sizeof vllm - 1;
    char *all = malloc(events * len);
    for (size_t i = 0; i < events; i++)
        memcpy(all + i * len, vllm, len);
    printf("bench: vLLM chunk of %zu bytes\n", len);
    printf("bench: one event a feed:     %.1f ns/event\n", bench(SSE_EVENTS, all, events, 1, 200));
    printf("bench: 64 events a feed:     %.1f ns/event\n", bench(SSE_EVENTS, all, events, 64, 200));
    printf("bench: split in two feeds:   %.1f ns/event\n", bench_split(all, events, 200));
    printf("bench: lines mode, 64 a feed: %.1f ns/chunk\n", bench(SSE_LINES, all, events, 64, 200));
    free(all);
}

int main(void)
{
    test_events();
    test_line_ends();
    test_cr_across_feeds();
    test_bom();
    test_id();
    test_type();
    test_retry();
    test_comments();
    test_finish();
    test_lines();
    test_too_large();
    test_endless_line();
    test_stopped();
    test_zero_copy();
    test_reuse();
    test_footprint();
    const char *b = getenv("VOLLEY_SSE_BENCH");
    if (b && *b && strcmp(b, "0") != 0)
        run_bench();
    return check_exit("test_sse");
}
