/* Unit test for http.c: the exact bytes of encoded requests, and the response
 * glue fed each response whole, byte by byte and split in two at every point,
 * checking that HTTP_RX_DONE comes exactly once, where the response ends, with
 * the right status and keep-alive flag; then malformed and truncated input. */
#include "http.h"

#include "../check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S(lit) lit, sizeof(lit) - 1

/* --------------------------------------------------------------- encode */

static void expect_request(const struct http_request_spec *spec, const char *want, size_t want_len, int line)
{
    size_t len = 0;
    char *buf = http_request_encode(spec, &len);
    check_ctx("request at line %d", line);
    CHECK_MEM(buf, len, want, want_len);
    free(buf);
    check_ctx(NULL);
}

static void test_encode(void)
{
    struct http_request_spec s = {.method = "GET", .path = "/", .host_header = "h:8080", .keepalive = true};
    expect_request(&s, S("GET / HTTP/1.1\r\nHost: h:8080\r\n\r\n"), __LINE__);

    const char *hdrs[] = {"X-B: 2", "Accept: */*", "X-A: 1"};
    s.headers = hdrs;
    s.nheaders = 3;
    s.path = "/a/b?x=1";
    expect_request(&s, S("GET /a/b?x=1 HTTP/1.1\r\nHost: h:8080\r\nX-B: 2\r\nAccept: */*\r\nX-A: 1\r\n\r\n"),
                   __LINE__);

    /* A Host header of the user's replaces the default, any case, in place. */
    const char *host[] = {"X-A: 1", "host: other.example", "X-B: 2"};
    s.headers = host;
    s.path = "/";
    expect_request(&s, S("GET / HTTP/1.1\r\nX-A: 1\r\nhost: other.example\r\nX-B: 2\r\n\r\n"), __LINE__);

    /* A header whose name only starts with "Host" is not a Host header. */
    const char *hostname[] = {"Hostname: x"};
    s.headers = hostname;
    s.nheaders = 1;
    expect_request(&s, S("GET / HTTP/1.1\r\nHost: h:8080\r\nHostname: x\r\n\r\n"), __LINE__);

    /* user_agent: sent after Host, unless a User-Agent header is given (any
     * case, empty or not: it is sent in place instead); a name that only
     * starts with "User-Agent" is another header. */
    struct http_request_spec u = {.method = "GET", .path = "/", .host_header = "h", .user_agent = HTTP_USER_AGENT,
                                  .keepalive = true};
    expect_request(&u, S("GET / HTTP/1.1\r\nHost: h\r\nUser-Agent: volley/" VOLLEY_VERSION "\r\n\r\n"), __LINE__);
    const char *ua[] = {"X-A: 1", "user-AGENT: mine/1"};
    u.headers = ua;
    u.nheaders = 2;
    expect_request(&u, S("GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\nuser-AGENT: mine/1\r\n\r\n"), __LINE__);
    const char *ua_empty[] = {"User-Agent:"};
    u.headers = ua_empty;
    u.nheaders = 1;
    expect_request(&u, S("GET / HTTP/1.1\r\nHost: h\r\nUser-Agent:\r\n\r\n"), __LINE__);
    const char *ua_other[] = {"User-Agents: x"};
    u.headers = ua_other;
    expect_request(&u, S("GET / HTTP/1.1\r\nHost: h\r\nUser-Agent: volley/" VOLLEY_VERSION "\r\nUser-Agents: x\r\n\r\n"),
                   __LINE__);

    /* A body adds Content-Length, unless given; the body is bytes. */
    struct http_request_spec p = {.method = "POST", .path = "/p", .host_header = "h", .body = "a\0b\r\n",
                                  .body_len = 5, .keepalive = true};
    expect_request(&p, S("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\na\0b\r\n"), __LINE__);
    const char *cl[] = {"content-length: 5"};
    p.headers = cl;
    p.nheaders = 1;
    expect_request(&p, S("POST /p HTTP/1.1\r\nHost: h\r\ncontent-length: 5\r\n\r\na\0b\r\n"), __LINE__);

    /* An empty body (non-NULL, length 0) is no body. */
    struct http_request_spec e = {.method = "POST", .path = "/", .host_header = "h", .body = "", .keepalive = true};
    expect_request(&e, S("POST / HTTP/1.1\r\nHost: h\r\n\r\n"), __LINE__);

    /* keepalive = false: Connection: close on HTTP/1.1 only, after the
     * headers and Content-Length, and not when a Connection header is given. */
    struct http_request_spec k = {.method = "GET", .path = "/", .host_header = "h", .keepalive = false};
    expect_request(&k, S("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"), __LINE__);
    k.body = "xy";
    k.body_len = 2;
    expect_request(&k, S("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nConnection: close\r\n\r\nxy"), __LINE__);
    k.body = NULL;
    k.body_len = 0;
    const char *conn[] = {"connection: keep-alive"};
    k.headers = conn;
    k.nheaders = 1;
    expect_request(&k, S("GET / HTTP/1.1\r\nHost: h\r\nconnection: keep-alive\r\n\r\n"), __LINE__);
    k.headers = NULL;
    k.nheaders = 0;
    k.http10 = true;
    expect_request(&k, S("GET / HTTP/1.0\r\nHost: h\r\n\r\n"), __LINE__);

    /* The HTTP/1.0 request line; keepalive does not change a 1.0 request. */
    struct http_request_spec t = {.method = "HEAD", .path = "/x", .host_header = "[::1]:9000", .http10 = true,
                                  .keepalive = true};
    expect_request(&t, S("HEAD /x HTTP/1.0\r\nHost: [::1]:9000\r\n\r\n"), __LINE__);

    /* Long values are not truncated. */
    static char longpath[5000];
    memset(longpath, 'a', sizeof longpath - 1);
    longpath[0] = '/';
    const char *many[40];
    for (size_t i = 0; i < 40; i++)
        many[i] = "X-Some-Header: some value that is not short";
    struct http_request_spec l = {.method = "GET", .path = longpath, .host_header = "h", .headers = many,
                                  .nheaders = 40, .keepalive = false};
    size_t len = 0;
    char *buf = http_request_encode(&l, &len);
    size_t want = strlen("GET ") + strlen(longpath) + strlen(" HTTP/1.1\r\nHost: h\r\n") +
                  40 * (strlen(many[0]) + 2) + strlen("Connection: close\r\n\r\n");
    CHECK_UINT(len, want);
    CHECK(len >= 4 && memcmp(buf + len - 4, "\r\n\r\n", 4) == 0);
    free(buf);
}

/* --------------------------------------------------------------- decode */

struct expect {
    uint16_t status;
    uint8_t keepalive;
    size_t len; /* bytes of the stream that belong to this response */
};

/* A stream of one or more responses; after the last, the stream either ends
 * with the peer closing (eof) or the last response completes by itself. */
struct stream_case {
    const char *name;
    const char *data;
    size_t len;
    bool head;
    bool eof; /* the last response completes only at end of stream */
    size_t nresp;
    struct expect resp[3];
};

#define R200_11 "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world"
#define R404_0 "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
#define RCHUNKED                                                                                          \
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n" \
    "1a;ext=1\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\n\r\n"
#define R100 "HTTP/1.1 100 Continue\r\n\r\n"
#define R103 "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n"
#define R200_2 "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
#define R304_CL "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n"
#define R204_CL "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n"

static const struct stream_case streams[] = {
    {"200 Content-Length 11", S(R200_11), false, false, 1, {{200, 1, sizeof R200_11 - 1}}},
    {"200 Connection: close, Content-Length",
     S("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello"), false, false, 1,
     {{200, 0, 62}}},
    {"200 Connection: close, until close", S("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nhello"), false, true, 1,
     {{200, 0, 43}}},
    {"HTTP/1.0 200 Content-Length", S("HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello"), false, false, 1,
     {{200, 0, 43}}},
    {"HTTP/1.0 200 keep-alive", S("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 5\r\n\r\nhello"),
     false, false, 1, {{200, 1, 67}}},
    {"chunked", S(RCHUNKED), false, false, 1, {{200, 1, sizeof RCHUNKED - 1}}},
    {"chunked with trailer",
     S("HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-Trailer: 1\r\n\r\n"), false,
     false, 1, {{201, 1, 79}}},
    {"HTTP/1.0 read until close", S("HTTP/1.0 200 OK\r\n\r\nhello"), false, true, 1, {{200, 0, 24}}},
    {"HTTP/1.1 read until close", S("HTTP/1.1 200 OK\r\n\r\nhello"), false, true, 1, {{200, 0, 24}}},
    {"HEAD, Content-Length 1000", S("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"), true, false, 1,
     {{200, 1, 41}}},
    {"HEAD, chunked", S("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), true, false, 1, {{200, 1, 47}}},
    {"204", S("HTTP/1.1 204 No Content\r\n\r\n"), false, false, 1, {{204, 1, 27}}},
    {"304", S("HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n"), false, false, 1, {{304, 1, 40}}},
    /* 204 and 304 have no body even with a Content-Length (RFC 9110 8.6,
     * 15.3.5, 15.4.5): a 304 may carry the representation's length. */
    {"304 with Content-Length, then 200", S(R304_CL R200_2), false, false, 2,
     {{304, 1, sizeof R304_CL - 1}, {200, 1, sizeof R200_2 - 1}}},
    {"204 with Content-Length, then 200", S(R204_CL R200_2), false, false, 2,
     {{204, 1, sizeof R204_CL - 1}, {200, 1, sizeof R200_2 - 1}}},
    {"100 Continue, then 200", S(R100 R200_2), false, false, 1, {{200, 1, sizeof(R100 R200_2) - 1}}},
    {"100 and 103, then 200", S(R100 R103 R200_2), false, false, 1, {{200, 1, sizeof(R100 R103 R200_2) - 1}}},
    {"two responses back to back", S(R200_11 R404_0), false, false, 2,
     {{200, 1, sizeof R200_11 - 1}, {404, 1, sizeof R404_0 - 1}}},
    {"chunked, 100+200, 404", S(RCHUNKED R100 R200_2 R404_0), false, false, 3,
     {{200, 1, sizeof RCHUNKED - 1}, {200, 1, sizeof(R100 R200_2) - 1}, {404, 1, sizeof R404_0 - 1}}},
    {"HEAD twice", S("HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n"),
     true, false, 2, {{200, 1, 38}, {200, 1, 38}}},
    {"200, then read until close", S(R200_2 "HTTP/1.1 500 Oops\r\n\r\nbye"), false, true, 2,
     {{200, 1, sizeof R200_2 - 1}, {500, 0, 24}}},
};

/* Both paths behind http_rx_feed must give the same answers: each stream is
 * also fed with the fast path switched off. */
static void rx_init(struct http_rx *rx, bool head, bool parser_only)
{
    if (parser_only)
        http_rx_init_parser_only(rx, head);
    else
        http_rx_init(rx, head);
}

static const char *result_name(enum http_rx_result r)
{
    return r == HTTP_RX_MORE ? "MORE" : r == HTTP_RX_DONE ? "DONE" : r == HTTP_RX_ERROR ? "ERROR" : "?";
}

/* Feeds c->data in the pieces [cuts[k], cuts[k+1]), then the end of stream if
 * c->eof, re-initializing after each DONE and going on with the rest of the
 * piece. Checks every result against c. Returns false at the first failure. */
static bool feed_stream(const struct stream_case *c, const size_t *cuts, size_t ncuts, bool parser_only,
                        const char *how)
{
    struct http_rx rx;
    rx_init(&rx, c->head, parser_only);
    size_t r = 0, start = 0; /* current response, where it began */
    check_ctx("%s, fed %s%s", c->name, how, parser_only ? ", parser only" : "");
    for (size_t k = 0; k + 1 < ncuts; k++) {
        size_t off = cuts[k], end = cuts[k + 1];
        while (off < end) {
            if (!CHECK(r < c->nresp)) /* bytes after the last response: its DONE came early */
                return false;
            size_t used = SIZE_MAX;
            enum http_rx_result res = http_rx_feed(&rx, c->data + off, end - off, &used);
            if (res == HTTP_RX_MORE) {
                if (!CHECK_UINT(used, end - off)) /* MORE: everything consumed */
                    return false;
                off = end;
                continue;
            }
            if (res != HTTP_RX_DONE) {
                check_where(__FILE__, __LINE__, "http_rx_feed() returned MORE or DONE");
                fprintf(stderr, "    actual: %s (%s) at offset %zu, response %zu\n", result_name(res),
                        http_rx_error(&rx), off, r);
                return false;
            }
            if (!CHECK(used >= 1 && used <= end - off))
                return false;
            off += used;
            bool ok = CHECK_UINT(off - start, c->resp[r].len);
            ok &= CHECK_INT(rx.status, c->resp[r].status);
            ok &= CHECK_INT(rx.keepalive, c->resp[r].keepalive);
            ok &= CHECK(!c->eof || r + 1 < c->nresp); /* the last one needs the end of stream */
            if (!ok) {
                fprintf(stderr, "    (response %zu)\n", r);
                return false;
            }
            r++;
            start = off;
            rx_init(&rx, c->head, parser_only);
        }
    }
    if (c->eof) {
        size_t used = SIZE_MAX;
        enum http_rx_result res = http_rx_feed(&rx, NULL, 0, &used);
        if (!CHECK_INT(res, HTTP_RX_DONE)) {
            fprintf(stderr, "    actual: %s (%s)\n", result_name(res), http_rx_error(&rx));
            return false;
        }
        bool ok = CHECK_UINT(used, 0);
        ok &= CHECK(r < c->nresp) && CHECK_UINT(c->len - start, c->resp[r].len) &&
              CHECK_INT(rx.status, c->resp[r].status) && CHECK_INT(rx.keepalive, c->resp[r].keepalive);
        if (!ok)
            return false;
        r++;
    }
    return CHECK_UINT(r, c->nresp); /* each response completed exactly once */
}

static void test_streams(void)
{
    size_t *cuts = malloc(4096 * sizeof *cuts);
    for (size_t i = 0; i < sizeof streams / sizeof streams[0]; i++) {
        const struct stream_case *c = &streams[i];
        size_t sum = 0;
        for (size_t j = 0; j < c->nresp; j++)
            sum += c->resp[j].len;
        check_ctx("%s: table", c->name);
        if (!CHECK_UINT(sum, c->len) || !CHECK(c->len + 1 < 4096))
            continue;

        for (int parser_only = 0; parser_only <= 1; parser_only++) {
            size_t whole[] = {0, c->len};
            feed_stream(c, whole, 2, parser_only, "whole");

            for (size_t k = 0; k <= c->len; k++)
                cuts[k] = k;
            feed_stream(c, cuts, c->len + 1, parser_only, "byte by byte");

            for (size_t at = 1; at < c->len; at++) {
                size_t two[] = {0, at, c->len};
                char how[64];
                snprintf(how, sizeof how, "split at %zu", at);
                if (!feed_stream(c, two, 3, parser_only, how))
                    break; /* one failing split point is enough to show */
            }
        }
    }
    free(cuts);
    check_ctx(NULL);
}

/* Malformed or truncated streams: ERROR, never DONE, however they are split;
 * if all bytes are taken, the end of stream must give ERROR. */
struct error_case {
    const char *name;
    const char *data;
    size_t len;
    bool head;
};

static const struct error_case errors[] = {
    {"HTTP/9", S("HTTP/9 abc\r\n\r\n"), false},
    {"hello", S("hello\r\n\r\n"), false},
    {"bad status code", S("HTTP/1.1 2x0 OK\r\n\r\n"), false},
    {"bad chunk size", S("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"), false},
    {"bad Content-Length", S("HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\nhello world!"), false},
    {"EOF in Content-Length body", S("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello"), false},
    {"EOF in chunked body", S("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel"), false},
    {"EOF after last chunk, before final CRLF", S("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"),
     false},
    {"EOF in headers", S("HTTP/1.1 200 OK\r\nContent-Le"), false},
    {"EOF in status line", S("HTTP/1.1 20"), false},
    {"EOF in HEAD headers", S("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"), true},
    {"EOF before any byte", "", 0, false},
};

static void feed_error(const struct error_case *c, const size_t *cuts, size_t ncuts, bool parser_only,
                       const char *how)
{
    struct http_rx rx;
    rx_init(&rx, c->head, parser_only);
    check_ctx("%s, fed %s%s", c->name, how, parser_only ? ", parser only" : "");
    enum http_rx_result res = HTTP_RX_MORE;
    for (size_t k = 0; k + 1 < ncuts && res == HTTP_RX_MORE; k++) {
        size_t used = SIZE_MAX;
        res = http_rx_feed(&rx, c->data + cuts[k], cuts[k + 1] - cuts[k], &used);
        if (res == HTTP_RX_MORE)
            CHECK_UINT(used, cuts[k + 1] - cuts[k]);
    }
    if (res == HTTP_RX_MORE) {
        size_t used = SIZE_MAX;
        res = http_rx_feed(&rx, NULL, 0, &used);
    }
    if (!CHECK_INT(res, HTTP_RX_ERROR)) {
        fprintf(stderr, "    actual: %s\n", result_name(res));
        return;
    }
    const char *msg = http_rx_error(&rx);
    if (CHECK(msg != NULL && msg[0] != '\0'))
        /* The description must describe an error, not http-parser's HPE_OK. */
        if (!CHECK(strcmp(msg, "success") != 0))
            fprintf(stderr, "    http_rx_error(): \"%s\"\n", msg);
}

static void test_errors(void)
{
    size_t cuts[512];
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
        const struct error_case *c = &errors[i];
        for (int parser_only = 0; parser_only <= 1; parser_only++) {
            size_t whole[] = {0, c->len};
            feed_error(c, whole, 2, parser_only, "whole");
            if (c->len + 1 > sizeof cuts / sizeof cuts[0])
                continue;
            for (size_t k = 0; k <= c->len; k++)
                cuts[k] = k;
            feed_error(c, cuts, c->len + 1, parser_only, "byte by byte");
            for (size_t at = 1; at < c->len; at++) {
                size_t two[] = {0, at, c->len};
                char how[64];
                snprintf(how, sizeof how, "split at %zu", at);
                feed_error(c, two, 3, parser_only, how);
            }
        }
    }
    check_ctx(NULL);
}

/* Unusual or malformed heads: whatever the answer, it must not depend on how
 * the bytes are split into reads (nor on which path parses them). */
struct outcome {
    enum http_rx_result res;
    size_t end; /* DONE: where the response ended */
    uint16_t status;
    uint8_t keepalive;
};

static struct outcome feed_outcome(const char *data, size_t len, size_t step, size_t at, bool parser_only)
{
    struct http_rx rx;
    rx_init(&rx, false, parser_only);
    struct outcome o = {HTTP_RX_MORE, 0, 0, 0};
    size_t off = 0;
    while (off < len && o.res == HTTP_RX_MORE) {
        size_t n = len - off;
        if (step && step < n)
            n = step;
        if (at && off < at && at - off < n)
            n = at - off;
        size_t used = 0;
        o.res = http_rx_feed(&rx, data + off, n, &used);
        if (o.res == HTTP_RX_DONE)
            o.end = off + used;
        off += n;
    }
    if (o.res == HTTP_RX_MORE) {
        size_t used = 0;
        o.res = http_rx_feed(&rx, NULL, 0, &used);
        o.end = len;
    }
    if (o.res == HTTP_RX_DONE) {
        o.status = rx.status;
        o.keepalive = rx.keepalive;
    }
    return o;
}

static bool same_outcome(struct outcome a, struct outcome b)
{
    if (a.res != b.res)
        return false;
    return a.res != HTTP_RX_DONE || (a.end == b.end && a.status == b.status && a.keepalive == b.keepalive);
}

static void print_outcome(const char *label, struct outcome o)
{
    fprintf(stderr, "    %s: %s", label, result_name(o.res));
    if (o.res == HTTP_RX_DONE)
        fprintf(stderr, " at %zu, status %u, keepalive %u", o.end, o.status, o.keepalive);
    fputc('\n', stderr);
}

static void check_invariant(const char *name, const char *data, size_t len, bool every_split)
{
    struct outcome whole = feed_outcome(data, len, 0, 0, false);
    struct outcome other[3] = {
        feed_outcome(data, len, 1, 0, false),
        feed_outcome(data, len, 0, 0, true),
        feed_outcome(data, len, 0, 20, false),
    };
    static const char *const labels[] = {"byte by byte", "parser only", "split at 20"};
    check_ctx("%s: fed whole vs other ways", name);
    for (int i = 0; i < 3; i++) {
        if (!CHECK(same_outcome(whole, other[i]))) {
            print_outcome("whole", whole);
            print_outcome(labels[i], other[i]);
            return; /* one difference is enough to show */
        }
    }
    for (size_t at = 1; every_split && at < len; at++) {
        struct outcome o = feed_outcome(data, len, 0, at, false);
        check_ctx("%s: fed whole vs split at %zu", name, at);
        if (!CHECK(same_outcome(whole, o))) {
            print_outcome("whole", whole);
            print_outcome("split", o);
            return;
        }
    }
}

static void test_split_invariance(void)
{
    static const struct {
        const char *name;
        const char *data;
        size_t len;
    } odd[] = {
        {"control character in a header value", S("HTTP/1.1 200 OK\r\nX: a\001b\r\nContent-Length: 0\r\n\r\n")},
        {"NUL in a header name", S("HTTP/1.1 200 OK\r\nX\0Y: 1\r\nContent-Length: 0\r\n\r\n")},
        {"space in a header name", S("HTTP/1.1 200 OK\r\nX Y: 1\r\nContent-Length: 0\r\n\r\n")},
        {"space before the colon of Transfer-Encoding",
         S("HTTP/1.1 200 OK\r\nTransfer-Encoding : chunked\r\nContent-Length: 0\r\n\r\n0\r\n\r\n")},
        {"space before the colon of Content-Length", S("HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nok")},
        {"space before the colon of Connection",
         S("HTTP/1.1 200 OK\r\nConnection : close\r\nContent-Length: 0\r\n\r\n")},
        {"HTTP/1.0 with Connection keep-alive and close",
         S("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")},
        {"Connection: close with trailing space",
         S("HTTP/1.1 200 OK\r\nConnection: close \r\nContent-Length: 0\r\n\r\n")},
        {"two Content-Length headers", S("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok")},
        {"Content-Length and chunked",
         S("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")},
        {"control character in the reason phrase", S("HTTP/1.1 200 O\001K\r\nContent-Length: 0\r\n\r\n")},
        {"bare CR in the status line", S("HTTP/1.1 200 OK\rX-A: 1\r\nContent-Length: 2\r\n\r\nok")},
        {"bare CR in a header line", S("HTTP/1.1 200 OK\r\nX-A: 1\rContent-Length: 2\r\n\r\nok")},
        {"CR CR LF ending the status line", S("HTTP/1.1 204\r\r\n\r\n")},
        {"no reason phrase", S("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n")},
        {"status 099", S("HTTP/1.1 099 X\r\nContent-Length: 0\r\n\r\n")},
        {"status 999", S("HTTP/1.1 999 X\r\nContent-Length: 0\r\n\r\n")},
        {"HTTP/1.2", S("HTTP/1.2 200 OK\r\nContent-Length: 0\r\n\r\n")},
        {"bare LF line ends", S("HTTP/1.1 200 OK\nContent-Length: 2\n\nok")},
        {"Content-Length with 19 digits", S("HTTP/1.1 200 OK\r\nContent-Length: 0000000000000000002\r\n\r\nok")},
        {"huge Content-Length", S("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nok")},
        {"101 Switching Protocols",
         S("HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: x\r\n\r\nrest")},
    };
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        check_invariant(odd[i].name, odd[i].data, odd[i].len, true);

    /* A head larger than http-parser's 80 KiB limit. */
    static const char start[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Big: ";
    size_t big = 90 * 1024, n = 0;
    char *buf = malloc(big + 64);
    memcpy(buf, start, sizeof start - 1);
    n = sizeof start - 1;
    memset(buf + n, 'a', big);
    n += big;
    memcpy(buf + n, "\r\n\r\nok", 6);
    n += 6;
    check_invariant("90 KiB header", buf, n, false);
    free(buf);
    check_ctx(NULL);
}

/* A response that ends before its bytes are all fed: the rest is left to the
 * caller, and a fresh parser takes it from there. */
static void test_rest_after_done(void)
{
    static const char two[] = R200_2 "garbage";
    struct http_rx rx;
    http_rx_init(&rx, false);
    size_t used = SIZE_MAX;
    check_ctx("response then garbage");
    CHECK_INT(http_rx_feed(&rx, two, sizeof two - 1, &used), HTTP_RX_DONE);
    CHECK_UINT(used, sizeof R200_2 - 1);
    CHECK_INT(rx.status, 200);
    CHECK_INT(rx.done, 1);
    http_rx_init(&rx, false);
    CHECK_INT(rx.done, 0);
    CHECK_INT(rx.status, 0);
    CHECK_INT(http_rx_feed(&rx, two + used, sizeof two - 1 - used, &used), HTTP_RX_ERROR);
    check_ctx(NULL);
}

/* The status is known once the final response's head is read, before its
 * body is complete (a response failed for --max-body mid-body is still
 * counted by status), on both paths; not for an interim 1xx head, nor
 * before the head is whole. */
static void test_status_known(void)
{
    static const struct {
        const char *data;
        int status;
    } cases[] = {
        {"HTTP/1.1 404 Not Found\r\nContent-Length: 10\r\n\r\nabc", 404},                   /* fast path */
        {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", 200},             /* http-parser */
        {"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 503 x\r\nContent-Length: 4\r\n\r\nz", 503}, /* after a 1xx */
        {"HTTP/1.1 100 Continue\r\n\r\n", 0},
        {"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n", 0}, /* the head goes on */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int parser_only = 0; parser_only < 2; parser_only++) {
            struct http_rx rx;
            if (parser_only)
                http_rx_init_parser_only(&rx, false);
            else
                http_rx_init(&rx, false);
            size_t used = 0;
            check_ctx(cases[i].data);
            CHECK_INT(http_rx_feed(&rx, cases[i].data, strlen(cases[i].data), &used), HTTP_RX_MORE);
            CHECK_INT(rx.status_known, cases[i].status != 0);
            if (cases[i].status)
                CHECK_INT(rx.status, cases[i].status);
            http_rx_init(&rx, false);
            CHECK_INT(rx.status_known, 0);
        }
    }
    check_ctx(NULL);
}

/* One whole-read feed; DONE expected. */
static struct http_rx feed_once(const char *data, bool head, size_t *used)
{
    struct http_rx rx;
    http_rx_init(&rx, head);
    *used = 0;
    CHECK_INT(http_rx_feed(&rx, data, strlen(data), used), HTTP_RX_DONE);
    return rx;
}

/* The per-thread cache of the last accepted head gives the same reading as
 * a fresh scan, and never answers for a head that differs. */
static void test_head_cache(void)
{
    static const char a[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\nhello";
    static const char b[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello";
    static const char c[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive\r\nX: 1\r\n\r\nhello";
    size_t used;
    for (int round = 0; round < 2; round++) { /* the second round hits the cache */
        check_ctx("head cache, round %d", round);
        struct http_rx rx = feed_once(a, false, &used);
        CHECK_UINT(used, sizeof a - 1);
        CHECK_INT(rx.status, 200);
        CHECK_INT(rx.keepalive, 1);
    }
    check_ctx("head cache: same prefix, other Connection");
    struct http_rx rx = feed_once(b, false, &used);
    CHECK_INT(rx.keepalive, 0);
    CHECK_UINT(used, sizeof b - 1);
    check_ctx("head cache: the cached head is a prefix of a longer one");
    feed_once(b, false, &used);
    rx = feed_once(a, false, &used);
    rx = feed_once(c, false, &used);
    CHECK_UINT(used, sizeof c - 1);
    check_ctx("head cache: HEAD request, same bytes");
    rx = feed_once(c, false, &used);
    rx = feed_once(c, true, &used); /* a HEAD reply: the 5 bytes are not its body */
    CHECK_UINT(used, sizeof c - 1 - 5);
    check_ctx("head cache: cut short after a hit would have matched");
    struct http_rx short_rx;
    http_rx_init(&short_rx, false);
    CHECK_INT(http_rx_feed(&short_rx, a, 20, &used), HTTP_RX_MORE);
    check_ctx(NULL);
}

/* Pipelined request strings: how many requests one string holds, framed as
 * a server (http-parser in request mode) frames them. */

/* The count of buf, with and without the fast path for one request. */
static void expect_count(const char *buf, size_t len, unsigned want, int line)
{
    check_ctx("count at line %d", line);
    CHECK_INT(http_count_requests(buf, len), want);
    CHECK_INT(http_count_requests_parser_only(buf, len), want);
    check_ctx(NULL);
}
#define COUNT(buf, want) expect_count(buf, strlen(buf), want, __LINE__)

/* buf is parts[0..n) back to back: each prefix counts the parts that end
 * within it (at least 1), as bytes cut short count with the request before. */
static void expect_prefix_counts(const char *const *parts, size_t n, int line)
{
    char buf[1024];
    size_t ends[16], len = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(parts[i]);
        memcpy(buf + len, parts[i], k);
        len += k;
        ends[i] = len;
    }
    for (size_t cut = 0; cut <= len; cut++) {
        unsigned want = 0;
        for (size_t i = 0; i < n; i++)
            want += ends[i] <= cut;
        if (want == 0)
            want = 1;
        check_ctx("prefix of %zu bytes, line %d", cut, line);
        CHECK_INT(http_count_requests(buf, cut), want);
        CHECK_INT(http_count_requests_parser_only(buf, cut), want);
    }
    check_ctx(NULL);
}
#define PREFIXES(...)                                                                                  \
    do {                                                                                               \
        static const char *const parts_[] = {__VA_ARGS__};                                             \
        expect_prefix_counts(parts_, sizeof parts_ / sizeof parts_[0], __LINE__);                      \
    } while (0)

static void test_count_requests(void)
{
#define GET "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
#define POST_CL "POST /p HTTP/1.1\r\nHost: h\r\ncontent-length: 5\r\n\r\nab\r\n\r"
    /* The body is a chunk whose data is a whole request: no boundary in it. */
#define POST_CHUNKED "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" \
                     "12\r\nGET / HTTP/1.1\r\n\r\n\r\n0\r\n\r\n"
    /* Chunk extensions, upper-case hex, and a trailer. */
#define POST_TRAILER "POST /t HTTP/1.1\r\nHost: h\r\ntransfer-encoding: chunked\r\n\r\n" \
                     "5;name=\"v\";x\r\nhello\r\nA\r\n\r\n\r\nGET /x\r\n0;last\r\nX-Sum: 1\r\nX-More: \r\n\r\n"
    COUNT(GET, 1);
    COUNT(GET GET GET, 3);
    /* A body that looks like a blank line is not a request boundary. */
    COUNT(POST_CL GET, 2);
    COUNT(POST_CHUNKED, 1);
    COUNT(POST_CHUNKED POST_CHUNKED, 2);
    COUNT(POST_TRAILER, 1);
    COUNT(POST_TRAILER GET, 2);
    COUNT(GET POST_CHUNKED POST_CL POST_TRAILER GET, 5);
    /* Every cut of a mixed batch, with and without bodies. */
    PREFIXES(POST_CHUNKED, GET, POST_CL, POST_TRAILER, POST_CHUNKED);
    PREFIXES(GET, GET);
    /* Requests with Content-Length: 0 and with no body at all. */
    COUNT("POST /e HTTP/1.1\r\nContent-Length: 0\r\n\r\n" GET, 2);
    COUNT("DELETE /d HTTP/1.1\r\nHost: h\r\n\r\n" GET, 2);
    /* Bare LF line ends, and empty lines between requests, as a server
     * takes them. */
    COUNT("GET / HTTP/1.1\nHost: h\n\nGET / HTTP/1.1\nHost: h\n\n", 2);
    COUNT(GET "\r\n\r\n" GET "\r\n", 2);
    /* Requests that ask to close still count, and so do the ones behind
     * them (they fail when the server closes). */
    COUNT("GET / HTTP/1.1\r\nConnection: close\r\n\r\n" GET, 2);
    COUNT("GET / HTTP/1.0\r\n\r\nGET / HTTP/1.0\r\n\r\n", 2);
    COUNT("POST / HTTP/1.0\r\nContent-Length: 2\r\n\r\nhi" POST_CHUNKED, 2);
    /* Cut short, or malformed: counts what completed before, at least 1. */
    COUNT(GET "GET /b HTTP/1.1\r\n", 1);
    COUNT(POST_CL "GET /b", 1);
    COUNT("POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", 1);
    COUNT(GET "POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n" GET, 1);
    COUNT(GET "JUNK\r\n\r\n" GET, 1);
    COUNT("junk", 1);
    COUNT("", 1);
    COUNT("\r\n\r\n", 1);
    COUNT("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 99\r\n\r\n", 1);
    /* A Transfer-Encoding that does not end in chunked: a server answers
     * 400 (RFC 9112 6.3). */
    COUNT(GET "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\nxx" GET, 1);
    /* After CONNECT or an upgrade the rest is another protocol. */
    COUNT("CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n" GET, 1);
    COUNT("GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n" GET, 1);
    /* A lone CR: http-parser takes CR and any byte as a line end, so a
     * head may end without an empty line (the fast path must not answer). */
    COUNT("GET /a HTTP/1.1\r\nHost: h\r\n\rXGET /b HTTP/1.1\r\n\r\n", 2);
    COUNT("GET /a HTTP/1.1\r\nHost: h\r\n\r", 1);
#undef GET
#undef POST_CL
#undef POST_CHUNKED
#undef POST_TRAILER
}

/* The final head after 1xx responses, and chunked bodies decoded in place. */
static void test_response_parts(void)
{
    static const char plain[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";
    CHECK_INT(http_final_head_end(plain, strlen(plain)), strlen(plain) - 2);
    static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";
    CHECK_INT(http_final_head_end(cont, strlen(cont)), strlen(cont) - 2);
    static const char sw[] = "HTTP/1.1 101 Switching\r\nUpgrade: x\r\n\r\n";
    CHECK_INT(http_final_head_end(sw, strlen(sw)), strlen(sw));
    char body[] = "5\r\nhello\r\n1;ext=1\r\n \r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n";
    size_t len = strlen(body), tr;
    size_t n = http_dechunk(body, len, &tr);
    CHECK_INT(n, 16);
    CHECK(memcmp(body, "hello 0123456789", 16) == 0);
    CHECK_INT(len - tr, strlen("Trailer: x\r\n\r\n"));
    CHECK(memcmp(body + tr, "Trailer: x\r\n\r\n", len - tr) == 0); /* intact after decoding */
    char empty[] = "0\r\n\r\n";
    CHECK_INT(http_dechunk(empty, strlen(empty), &tr), 0);
    CHECK_INT(tr, 3);
}

/* http_request_parts: an HTTP/1 request string taken apart for HTTP/2. */
static void test_request_parts(void)
{
    struct http_parts p;
    const char *why = NULL;
    static const char req[] = "POST /a?b=1 HTTP/1.1\r\nHost: h:81\r\nConnection: keep-alive\r\nX-One: 1\r\n"
                              "Keep-Alive: 5\r\nContent-Length: 4\r\nTE: trailers\r\nx-two:  two\r\n\r\nbody";
    check_ctx("request_parts: a whole request");
    CHECK_INT(http_request_parts(req, sizeof req - 1, &p, &why), 0);
    CHECK(p.method_len == 4 && memcmp(p.method, "POST", 4) == 0);
    CHECK(p.path_len == 6 && memcmp(p.path, "/a?b=1", 6) == 0);
    CHECK(p.host_len == 4 && memcmp(p.host, "h:81", 4) == 0);
    CHECK_INT((long)p.nheaders, 2); /* Connection, Keep-Alive, TE, Host, Content-Length left out */
    CHECK(p.headers[0].name_len == 5 && memcmp(p.headers[0].value, "1", 1) == 0);
    CHECK(p.headers[1].value_len == 3 && memcmp(p.headers[1].value, "two", 3) == 0);
    CHECK(p.body_len == 4 && memcmp(p.body, "body", 4) == 0);
    static const char bare[] = "GET / HTTP/1.1\n\n";
    check_ctx("request_parts: LF line ends, no headers");
    CHECK_INT(http_request_parts(bare, sizeof bare - 1, &p, &why), 0);
    CHECK(p.host == NULL && p.nheaders == 0 && p.body_len == 0);
    static const struct { const char *req, *why; } bad[] = {
        {"GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n", "pipelining"},
        {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "chunked"},
        {"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc", "shorter"},
        {"GET / HTTP/1.1\r\nX: 1\r\n", "does not end"},
        {"GET\r\n\r\n", "request line"},
        {"GET / HTTP/1.1\r\nNoColon\r\n\r\n", "colon"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        check_ctx("request_parts: %s", bad[i].why);
        why = NULL;
        CHECK_INT(http_request_parts(bad[i].req, strlen(bad[i].req), &p, &why), -1);
        CHECK(why && strstr(why, bad[i].why));
    }
    check_ctx(NULL);
}

/* Through an HTTP proxy: an http:// request in absolute-form, with the
 * proxy's credentials (unless a Proxy-Authorization is given); the CONNECT
 * request of an https:// one's tunnel. */
static void test_encode_proxy(void)
{
    struct http_request_spec s = {.method = "GET", .path = "/a?b=1", .host_header = "h:8080", .keepalive = true,
                                  .origin = "http://h:8080"};
    expect_request(&s, S("GET http://h:8080/a?b=1 HTTP/1.1\r\nHost: h:8080\r\n\r\n"), __LINE__);
    s.proxy_auth = "Basic dTpw";
    expect_request(&s, S("GET http://h:8080/a?b=1 HTTP/1.1\r\nProxy-Authorization: Basic dTpw\r\nHost: h:8080\r\n\r\n"),
                   __LINE__);
    const char *given[] = {"proxy-authorization: Basic other"};
    s.headers = given;
    s.nheaders = 1;
    expect_request(&s, S("GET http://h:8080/a?b=1 HTTP/1.1\r\nHost: h:8080\r\nproxy-authorization: Basic other\r\n\r\n"),
                   __LINE__);
    size_t len;
    /* An encoded request made absolute (--targets' requests, encoded before
     * the proxy is known): the same bytes as encoding it so. */
    struct http_request_spec b = {.method = "POST", .path = "/p", .host_header = "h", .keepalive = true,
                                  .body = "xy", .body_len = 2};
    size_t blen, want_len;
    char *plain = http_request_encode(&b, &blen);
    b.origin = "http://h";
    b.proxy_auth = "Basic dTpw";
    char *want = http_request_encode(&b, &want_len);
    char *abs = http_request_absolute(plain, blen, "http://h", "Basic dTpw", &len);
    CHECK_MEM(abs, len, want, want_len);
    free(abs);
    free(want);
    b.proxy_auth = NULL;
    want = http_request_encode(&b, &want_len);
    abs = http_request_absolute(plain, blen, "http://h", NULL, &len);
    CHECK_MEM(abs, len, want, want_len);
    free(abs);
    free(want);
    free(plain);
    char *c = http_request_tunnel("[::1]:443", NULL, &len);
    const char want6[] = "CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\n\r\n";
    CHECK_MEM(c, len, want6, sizeof want6 - 1);
    free(c);
    c = http_request_tunnel("h:8443", "Basic dTpw", &len);
    const char want_auth[] = "CONNECT h:8443 HTTP/1.1\r\nHost: h:8443\r\nProxy-Authorization: Basic dTpw\r\n\r\n";
    CHECK_MEM(c, len, want_auth, sizeof want_auth - 1);
    free(c);
}

int main(void)
{
    test_encode_proxy();
    test_count_requests();
    test_response_parts();
    test_request_parts();
    test_head_cache();
    test_encode();
    test_streams();
    test_errors();
    test_split_invariance();
    test_rest_after_done();
    test_status_known();
    return check_exit("test_http");
}
