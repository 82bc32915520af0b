/* Unit test for h2.c's own checks of HTTP/2 responses (RFC 9113 8.1-8.3,
 * which volley does instead of nghttp2): a client session talks, without
 * sockets, to a server made with nghttp2 whose own checks are off, so it
 * sends whatever a case asks for. Each case: one request, the server's
 * frames, and what the client must make of them: the status, or the reason
 * the response is malformed. Field names and values are checked at every
 * length and position against a byte-by-byte rule, since h2.c checks them
 * 8 bytes at a time. */
#include "h2.h"
#include "mpool.h"

#include "../check.h"

#include <nghttp2/nghttp2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the client */

struct result {
    int closes;       /* on_close calls */
    uint32_t error;   /* its error code */
    const char *why;  /* its reason, or NULL */
    int status;       /* the last :status handed on */
    size_t data;      /* DATA bytes handed on */
    int headers;      /* regular fields handed on */
    int trailers;     /* of them, trailers */
};

/* A session that on_close halts (h2_halt), as a connection closed from
 * inside an event does; NULL: none. */
static struct h2_session *halt_on_close;

static void on_begin(void *conn, void *stream)
{
    (void)conn;
    (void)stream;
}

static void on_status(void *conn, void *stream, int status)
{
    (void)conn;
    struct result *r = stream;
    CHECK_INT(r->status, 0); /* once */
    CHECK(status >= 200 && status <= 599);
    r->status = status;
}

static void on_header(void *conn, void *stream, const char *name, size_t nlen, const char *value, size_t vlen,
                      bool trailer)
{
    (void)conn;
    struct result *r = stream;
    CHECK(r->status != 0);
    CHECK(nlen > 0 && name[0] != ':');
    r->headers++;
    r->trailers += trailer;
    (void)value;
    (void)vlen;
}

static void on_data(void *conn, void *stream, const char *data, size_t len)
{
    (void)conn;
    (void)data;
    ((struct result *)stream)->data += len;
}

static void on_close(void *conn, void *stream, uint32_t error, const char *why)
{
    (void)conn;
    struct result *r = stream;
    r->closes++;
    r->error = error;
    r->why = why;
    if (halt_on_close)
        h2_halt(halt_on_close);
}

static void on_goaway(void *conn, int32_t last, uint32_t error)
{
    (void)conn;
    (void)last;
    (void)error;
}

static void on_settings(void *conn, uint32_t max)
{
    (void)conn;
    (void)max;
}

static void on_error(void *conn, const char *reason)
{
    (void)conn;
    (void)reason;
}

static const struct h2_events events = {on_begin, on_status, on_header, on_data, on_close, on_goaway, on_settings, on_error};

/* ------------------------------------------------------------ the server */

struct server {
    nghttp2_session *ng;
    int32_t stream; /* the request's stream, once its HEADERS came */
    const char *body;
    size_t body_len, body_off;
    const nghttp2_nv *trailers; /* sent after the body, ending the stream */
    size_t ntrailers;
};

static int srv_frame_recv(nghttp2_session *ng, const nghttp2_frame *f, void *arg)
{
    (void)ng;
    struct server *sv = arg;
    if (f->hd.type == NGHTTP2_HEADERS && f->headers.cat == NGHTTP2_HCAT_REQUEST)
        sv->stream = f->hd.stream_id;
    return 0;
}

static ssize_t srv_read(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                        nghttp2_data_source *src, void *arg)
{
    (void)src;
    struct server *sv = arg;
    size_t n = sv->body_len - sv->body_off < len ? sv->body_len - sv->body_off : len;
    memcpy(buf, sv->body + sv->body_off, n);
    sv->body_off += n;
    if (sv->body_off == sv->body_len) {
        *flags |= NGHTTP2_DATA_FLAG_EOF;
        if (sv->trailers) {
            *flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
            nghttp2_submit_trailer(ng, id, sv->trailers, sv->ntrailers);
        }
    }
    return (ssize_t)n;
}

static void server_new(struct server *sv)
{
    *sv = (struct server){0};
    nghttp2_session_callbacks *cb;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, srv_frame_recv);
    nghttp2_option *opt;
    nghttp2_option_new(&opt);
    nghttp2_option_set_no_http_messaging(opt, 1); /* it sends what it is told */
    nghttp2_session_server_new2(&sv->ng, cb, sv, opt);
    nghttp2_option_del(opt);
    nghttp2_session_callbacks_del(cb);
    nghttp2_submit_settings(sv->ng, NGHTTP2_FLAG_NONE, NULL, 0);
}

/* Moves bytes both ways until neither side has anything to say. */
static void pump(struct h2_session *cl, struct server *sv)
{
    for (int round = 0; round < 50; round++) {
        bool moved = false;
        const char *out;
        long n;
        while ((n = h2_send(cl, &out)) > 0) {
            nghttp2_session_mem_recv(sv->ng, (const uint8_t *)out, (size_t)n);
            moved = true;
        }
        const uint8_t *sout;
        ssize_t sn;
        while ((sn = nghttp2_session_mem_send(sv->ng, &sout)) > 0) {
            h2_recv(cl, (const char *)sout, (size_t)sn);
            moved = true;
        }
        if (!moved)
            return;
    }
}

/* A client with one request (method, GET by default) open as stream 1 on
 * a server that has received it; r gets the stream's events. */
struct pair {
    struct mpool *pool;
    struct h2_session *cl;
    struct server sv;
    struct h2_msg msg;
};

static void pair_open(struct pair *p, struct result *r, const char *method)
{
    p->pool = mpool_new();
    p->cl = h2_session_new(&events, NULL, 65535, p->pool);
    server_new(&p->sv);
    struct h2_request req = {.method = method ? method : "GET",
                             .method_len = method ? strlen(method) : 3,
                             .path = "/",
                             .path_len = 1,
                             .authority = "t",
                             .authority_len = 1,
                             .scheme = "http",
                             .scheme_len = 4};
    CHECK(h2_submit(p->cl, &req, r, &p->msg) == 1);
    pump(p->cl, &p->sv);
    CHECK_INT(p->sv.stream, 1);
}

/* Both sides gone; nghttp2 gave back every block of the pool. */
static void pair_close(struct pair *p)
{
    nghttp2_session_del(p->sv.ng);
    h2_session_free(p->cl);
    CHECK_UINT(mpool_live(p->pool), 0);
    mpool_free(p->pool);
}

/* ------------------------------------------------------------- the cases */

#define NV(n, v) {(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1, NGHTTP2_NV_FLAG_NONE}
#define NVL(n, nl, v, vl) {(uint8_t *)(n), (uint8_t *)(v), (nl), (vl), NGHTTP2_NV_FLAG_NONE}
#define NVI(n, nl, v, vl) {(uint8_t *)(n), (uint8_t *)(v), (nl), (vl), NGHTTP2_NV_FLAG_NO_INDEX}
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct block {
    const nghttp2_nv *nv;
    size_t n;
    bool end; /* END_STREAM on it */
};

/* One exchange: the request (GET, or HEAD), then the server's header
 * blocks in order (the last with the body, if any, unless blocks[i].end),
 * the body, and trailers. */
struct exchange {
    const char *method;
    struct block blocks[3];
    size_t nblocks;
    const char *body;
    const nghttp2_nv *trailers;
    size_t ntrailers;
};

static struct result run(const struct exchange *x)
{
    struct result r = {0};
    struct pair p;
    pair_open(&p, &r, x->method);
    struct server *sv = &p.sv;
    sv->body = x->body ? x->body : "";
    sv->body_len = x->body ? strlen(x->body) : 0;
    sv->trailers = x->trailers;
    sv->ntrailers = x->ntrailers;
    nghttp2_data_provider dp = {.read_callback = srv_read};
    for (size_t i = 0; i < x->nblocks; i++) {
        const struct block *b = &x->blocks[i];
        bool last = i + 1 == x->nblocks;
        if (last && !b->end)
            nghttp2_submit_response(sv->ng, 1, b->nv, b->n, &dp);
        else
            nghttp2_submit_headers(sv->ng, b->end ? NGHTTP2_FLAG_END_STREAM : NGHTTP2_FLAG_NONE, 1, NULL, b->nv, b->n,
                                   NULL);
    }
    pump(p.cl, sv);
    pair_close(&p);
    return r;
}

/* A case that must succeed with status, or fail with a reason holding why. */
static void expect(const struct exchange *x, int status, const char *why, int line)
{
    struct result r = run(x);
    check_ctx("case at line %d", line);
    CHECK_INT(r.closes, 1);
    if (why) {
        CHECK(r.why != NULL);
        if (r.why)
            CHECK_CONTAINS(r.why, why);
        CHECK_UINT(r.error, NGHTTP2_PROTOCOL_ERROR);
    } else {
        CHECK(r.why == NULL);
        CHECK_UINT(r.error, 0);
        CHECK_INT(r.status, status);
    }
    check_ctx(NULL);
}

#define ONE(nv) {.blocks = {{nv, COUNT(nv), false}}, .nblocks = 1}

static void test_cases(void)
{
    static const nghttp2_nv ok[] = {NV(":status", "200"), NV("content-length", "5"), NV("x-tab", "a\tb")};
    struct exchange x = ONE(ok);
    x.body = "hello";
    expect(&x, 200, NULL, __LINE__);
    struct result r = run(&x);
    CHECK_UINT(r.data, 5);
    CHECK_INT(r.headers, 2);

    static const nghttp2_nv nolen[] = {NV(":status", "404"), NV("server", "t")};
    struct exchange y = ONE(nolen);
    y.body = "any length";
    expect(&y, 404, NULL, __LINE__);

    static const nghttp2_nv none[] = {NV("x", "y")};
    struct exchange nost = ONE(none);
    expect(&nost, 0, "a field before :status", __LINE__);
    struct exchange empty = {.blocks = {{NULL, 0, false}}, .nblocks = 1};
    expect(&empty, 0, "no :status", __LINE__);

    static const char *const bad_status[] = {"20", "2000", "099", "600", "2x0", " 200", "abc"};
    for (size_t i = 0; i < COUNT(bad_status); i++) {
        nghttp2_nv nv[] = {NVL(":status", 7, bad_status[i], strlen(bad_status[i]))};
        struct exchange b = ONE(nv);
        check_ctx(":status %s", bad_status[i]);
        expect(&b, 0, "bad :status", __LINE__);
    }
    static const nghttp2_nv s101[] = {NV(":status", "101")};
    struct exchange e101 = ONE(s101);
    expect(&e101, 0, ":status 101", __LINE__);
    static const nghttp2_nv two[] = {NV(":status", "200"), NV(":status", "200")};
    struct exchange etwo = ONE(two);
    expect(&etwo, 0, "two :status", __LINE__);
    static const nghttp2_nv path[] = {NV(":status", "200"), NV(":path", "/")};
    struct exchange epath = ONE(path);
    expect(&epath, 0, "other than :status", __LINE__);
    static const nghttp2_nv late[] = {NV("x", "y"), NV(":status", "200")};
    struct exchange elate = ONE(late);
    expect(&elate, 0, "a field before :status", __LINE__);

    static const char *const conn_specific[] = {"connection", "keep-alive", "proxy-connection", "transfer-encoding",
                                                "upgrade"};
    for (size_t i = 0; i < COUNT(conn_specific); i++) {
        nghttp2_nv nv[] = {NV(":status", "200"), NVL(conn_specific[i], strlen(conn_specific[i]), "x", 1)};
        struct exchange c = ONE(nv);
        check_ctx("%s", conn_specific[i]);
        expect(&c, 0, "connection-specific", __LINE__);
    }

    /* content-length against the DATA */
    static const nghttp2_nv cl5[] = {NV(":status", "200"), NV("content-length", "5")};
    struct exchange shortb = ONE(cl5);
    shortb.body = "hey";
    expect(&shortb, 0, "content-length does not match", __LINE__);
    struct exchange longb = ONE(cl5);
    longb.body = "hello world";
    expect(&longb, 0, "content-length does not match", __LINE__);
    struct exchange noend = {.blocks = {{cl5, COUNT(cl5), true}}, .nblocks = 1};
    expect(&noend, 0, "content-length does not match", __LINE__);
    static const nghttp2_nv cl0[] = {NV(":status", "200"), NV("content-length", "0")};
    struct exchange zero = {.blocks = {{cl0, COUNT(cl0), true}}, .nblocks = 1};
    expect(&zero, 200, NULL, __LINE__);
    static const nghttp2_nv cl_bad[] = {NV(":status", "200"), NV("content-length", "5a")};
    struct exchange bad = ONE(cl_bad);
    expect(&bad, 0, "a bad content-length", __LINE__);
    static const nghttp2_nv cl_two[] = {NV(":status", "200"), NV("content-length", "5"), NV("content-length", "6")};
    struct exchange twocl = ONE(cl_two);
    twocl.body = "hello";
    expect(&twocl, 0, "two different content-lengths", __LINE__);
    static const nghttp2_nv cl_same[] = {NV(":status", "200"), NV("content-length", "5"),
                                         NV("content-length", "5")};
    struct exchange samecl = ONE(cl_same);
    samecl.body = "hello";
    expect(&samecl, 200, NULL, __LINE__);

    /* responses without content */
    struct exchange head = {.method = "HEAD", .blocks = {{cl5, COUNT(cl5), true}}, .nblocks = 1};
    expect(&head, 200, NULL, __LINE__);
    struct exchange headbody = ONE(cl5);
    headbody.method = "HEAD";
    headbody.body = "hello";
    expect(&headbody, 0, "content in a response that has none", __LINE__);
    static const nghttp2_nv s204[] = {NV(":status", "204")};
    struct exchange e204 = ONE(s204);
    e204.body = "x";
    expect(&e204, 0, "content in a response that has none", __LINE__);
    static const nghttp2_nv s304[] = {NV(":status", "304"), NV("content-length", "100")};
    struct exchange e304 = {.blocks = {{s304, COUNT(s304), true}}, .nblocks = 1};
    expect(&e304, 304, NULL, __LINE__);

    /* 1xx, then the final response */
    static const nghttp2_nv s100[] = {NV(":status", "100"), NV("x-interim", "1")};
    struct exchange cont = {.blocks = {{s100, COUNT(s100), false}, {ok, COUNT(ok), false}}, .nblocks = 2};
    cont.body = "hello";
    expect(&cont, 200, NULL, __LINE__);
    r = run(&cont);
    CHECK_INT(r.headers, 2); /* the interim block's field is not handed on */
    struct exchange only100 = {.blocks = {{s100, COUNT(s100), true}}, .nblocks = 1};
    expect(&only100, 0, "ended after a 1xx response", __LINE__);

    /* trailers */
    static const nghttp2_nv trailer[] = {NV("x-checksum", "abc")};
    struct exchange tr = ONE(ok);
    tr.body = "hello";
    tr.trailers = trailer;
    tr.ntrailers = 1;
    expect(&tr, 200, NULL, __LINE__);
    r = run(&tr);
    CHECK_INT(r.headers, 3); /* two fields, then the trailer, told apart */
    CHECK_INT(r.trailers, 1);
    CHECK_UINT(r.data, 5);
    static const nghttp2_nv trailer_status[] = {NV(":status", "200")};
    struct exchange trs = ONE(ok);
    trs.body = "hello";
    trs.trailers = trailer_status;
    trs.ntrailers = 1;
    expect(&trs, 0, ":status in trailers", __LINE__);

    /* content before the final response: a 1xx, then a raw DATA frame
     * (nghttp2 will not send one there). (DATA before any HEADERS never
     * reaches h2.c: nghttp2 drops it while the stream is not open.) */
    struct result early = {0};
    struct pair p;
    pair_open(&p, &early, NULL);
    nghttp2_submit_headers(p.sv.ng, NGHTTP2_FLAG_NONE, 1, NULL, s100, COUNT(s100), NULL);
    pump(p.cl, &p.sv);
    static const char data[] = "\0\0\5\0\0\0\0\0\1hello";
    h2_recv(p.cl, data, sizeof data - 1);
    check_ctx("DATA after a 1xx");
    CHECK_INT(early.closes, 1);
    CHECK(early.why && strstr(early.why, "content outside the final response"));
    CHECK_INT(early.status, 0);
    check_ctx(NULL);
    pair_close(&p);
}

/* One response whose header block is encoded here (nghttp2's submit
 * functions lower-case names, so a server made with them cannot send an
 * upper-case one): HEADERS with END_HEADERS and END_STREAM on stream 1,
 * its fields literal and never indexed, so the client's table stays as the
 * server left it. */
static struct result run_raw(const nghttp2_nv *nv, size_t n)
{
    struct result r = {0};
    struct pair p;
    pair_open(&p, &r, NULL);
    nghttp2_hd_deflater *d;
    nghttp2_hd_deflate_new(&d, 4096);
    uint8_t frame[9 + 512];
    ssize_t len = nghttp2_hd_deflate_hd(d, frame + 9, sizeof frame - 9, (nghttp2_nv *)nv, n);
    CHECK(len > 0);
    nghttp2_hd_deflate_del(d);
    frame[0] = 0;
    frame[1] = (uint8_t)(len >> 8);
    frame[2] = (uint8_t)len;
    frame[3] = NGHTTP2_HEADERS;
    frame[4] = NGHTTP2_FLAG_END_HEADERS | NGHTTP2_FLAG_END_STREAM;
    memcpy(frame + 5, "\0\0\0\1", 4);
    h2_recv(p.cl, (const char *)frame, 9 + (size_t)len);
    pair_close(&p);
    return r;
}

/* The rules byte by byte (RFC 9113 8.2.1, RFC 9110 5.5). */
static bool name_byte(unsigned char b)
{
    return b > 0x20 && b < 0x7f && !(b >= 'A' && b <= 'Z') && b != ':';
}

static bool value_byte(unsigned char b)
{
    return (b >= 0x20 && b != 0x7f) || b == '\t';
}

/* Every length up to 40 with one byte changed at every position, for bytes
 * on both sides of each range's edges: h2.c's verdict is the byte rule's. */
static void test_fields(void)
{
    static const unsigned char probes[] = {0x00, 0x01, 0x09, 0x0a, 0x0d, 0x1f, 0x20, 0x21, 0x30, 0x3a,
                                           0x40, 0x41, 0x5a, 0x5b, 0x60, 0x61, 0x7a, 0x7e, 0x7f, 0x80, 0xff};
    char name[48], value[48];
    int cases = 0;
    for (size_t len = 1; len <= 40; len++)
        for (size_t pos = 0; pos < len; pos++)
            for (size_t k = 0; k < sizeof probes; k++) {
                unsigned char b = probes[k];
                memset(name, 'x', len);
                name[pos] = (char)b;
                memset(value, 'v', len);
                value[pos] = (char)b;
                bool name_good = name_byte(b);
                bool end = pos == 0 || pos == len - 1;
                bool value_good = value_byte(b) && !(end && (b == ' ' || b == '\t'));

                nghttp2_nv nv[] = {NVI(":status", 7, "200", 3), NVI(name, len, "v", 1)};
                struct result r = run_raw(nv, 2);
                check_ctx("name of %zu bytes, 0x%02x at %zu", len, b, pos);
                if (pos == 0 && b == ':') /* a pseudo-header, then */
                    CHECK(r.why && strstr(r.why, "a pseudo-header other than :status"));
                else
                    CHECK(name_good ? r.why == NULL : r.why && strstr(r.why, "a bad field name"));
                CHECK_INT(r.closes, 1);

                nghttp2_nv nv2[] = {NVI(":status", 7, "200", 3), NVI("x-v", 3, value, len)};
                r = run_raw(nv2, 2);
                CHECK_INT(r.closes, 1);
                check_ctx("value of %zu bytes, 0x%02x at %zu", len, b, pos);
                CHECK(value_good ? r.why == NULL : r.why && strstr(r.why, "a bad field value"));
                cases += 2;
            }
    check_ctx(NULL);
    CHECK(cases > 30000);
    /* an empty name is bad; an empty value is not */
    nghttp2_nv e1[] = {NVI(":status", 7, "200", 3), NVI("", 0, "v", 1)};
    CHECK(run_raw(e1, 2).why != NULL);
    nghttp2_nv e2[] = {NVI(":status", 7, "200", 3), NVI("x", 1, "", 0)};
    CHECK(run_raw(e2, 2).why == NULL);
    nghttp2_nv e3[] = {NVI(":status", 7, "200", 3), NVI("Content-Type", 12, "text/plain", 10)};
    CHECK(run_raw(e3, 2).why != NULL);
}

/* A POST (the request stays open, so the server may end the stream
 * first) answered with HEADERS nv, one raw DATA frame, then the server's
 * RST_STREAM NO_ERROR: what the client made of it. */
static struct result reset_after(const nghttp2_nv *nv, size_t n, const char *data, size_t len)
{
    struct result r = {0};
    struct pair p;
    pair_open(&p, &r, "POST");
    nghttp2_submit_headers(p.sv.ng, NGHTTP2_FLAG_NONE, 1, NULL, nv, n, NULL);
    pump(p.cl, &p.sv);
    h2_recv(p.cl, data, len);
    nghttp2_submit_rst_stream(p.sv.ng, NGHTTP2_FLAG_NONE, 1, NGHTTP2_NO_ERROR);
    pump(p.cl, &p.sv);
    pair_close(&p);
    CHECK_INT(r.closes, 1);
    CHECK_UINT(r.error, 0);
    return r;
}

/* A server that resets a stream with NO_ERROR before END_STREAM cut the
 * response short, whatever its content-length says: the stream ends with
 * error 0 and a reason, not as a response. After END_STREAM (a server
 * that needs no more of the request body, RFC 9113 8.1), it is whole. */
static void test_reset_no_error(void)
{
    static const nghttp2_nv cl[] = {NV(":status", "200"), NV("content-length", "1000")};
    static const char data[] = "\0\0\5\0\0\0\0\0\1hello"; /* DATA, 5 bytes, no END_STREAM */
    check_ctx("RST_STREAM NO_ERROR after 5 of 1000 bytes");
    struct result r = reset_after(cl, COUNT(cl), data, sizeof data - 1);
    CHECK(r.why && strcmp(r.why, "reset before the response ended") == 0);
    CHECK_UINT(r.data, 5);
    static const nghttp2_nv cl5[] = {NV(":status", "200"), NV("content-length", "5")};
    static const char end[] = "\0\0\5\0\1\0\0\0\1hello"; /* DATA with END_STREAM */
    check_ctx("RST_STREAM NO_ERROR after END_STREAM");
    r = reset_after(cl5, COUNT(cl5), end, sizeof end - 1);
    CHECK(r.why == NULL);
    CHECK_INT(r.status, 200);
    check_ctx(NULL);
}

/* Two whole responses in one read; the first stream's close halts the
 * session (its connection went, as when a response() hook fails): the
 * second gets no event, and the read stops. */
static void test_halt(void)
{
    struct result r1 = {0}, r2 = {0};
    struct pair p;
    pair_open(&p, &r1, NULL);
    struct h2_request req = {.method = "GET", .method_len = 3, .path = "/", .path_len = 1,
                             .authority = "t", .authority_len = 1, .scheme = "http", .scheme_len = 4};
    struct h2_msg m2;
    CHECK(h2_submit(p.cl, &req, &r2, &m2) == 3);
    pump(p.cl, &p.sv);
    static const nghttp2_nv cl0[] = {NV(":status", "200"), NV("content-length", "0")};
    nghttp2_submit_headers(p.sv.ng, NGHTTP2_FLAG_END_STREAM, 1, NULL, cl0, COUNT(cl0), NULL);
    nghttp2_submit_headers(p.sv.ng, NGHTTP2_FLAG_END_STREAM, 3, NULL, cl0, COUNT(cl0), NULL);
    char both[512];
    size_t n = 0;
    const uint8_t *out;
    ssize_t k;
    while ((k = nghttp2_session_mem_send(p.sv.ng, &out)) > 0) {
        CHECK((size_t)k <= sizeof both - n);
        memcpy(both + n, out, (size_t)k);
        n += (size_t)k;
    }
    halt_on_close = p.cl;
    CHECK_INT(h2_recv(p.cl, both, n), -1); /* stopped inside */
    halt_on_close = NULL;
    CHECK_INT(r1.closes, 1);
    CHECK_INT(r1.status, 200);
    CHECK_INT(r2.closes, 0);
    CHECK_INT(r2.status, 0);
    pair_close(&p);
}

int main(void)
{
    test_cases();
    test_fields();
    test_reset_no_error();
    test_halt();
    return check_exit("test_h2");
}
