/* HTTP/2 framing over libnghttp2 (see h2.h): the session uses nghttp2's
 * memory interface (mem_recv / mem_send), never its own I/O. */
#include "h2.h"

#include "mpool.h"
#include "xalloc.h"

#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFLATE_TABLE 512

struct h2_session {
    nghttp2_session *ng;
    const struct h2_events *ev;
    void *conn;
    struct h2_msg *cur;     /* the stream whose header block is being decoded */
    int32_t cur_id;
    uint64_t wire, decoded; /* header bytes received: on the wire, decoded */
    bool broken;            /* nghttp2 ends the connection: the server broke the protocol */
    bool halted;            /* h2_halt: no more events, the current call fails at once */
    char error[160];
};

/* h2_msg.flags */
enum {
    NO_BODY = 1,      /* a HEAD request: its response has no content */
    IN_BLOCK = 2,     /* this header block had :status */
    REGULAR = 4,      /* this header block had a regular field */
    INTERIM = 8,      /* this header block is a 1xx response */
    TRAILERS = 16,    /* this header block follows the final response */
    ENDED = 32,       /* END_STREAM came, and the response was whole by then */
};

/* What each nghttp2 callback returns once the session is halted: nghttp2
 * then stops the call it is in (mem_recv, mem_send) at once, so no later
 * frame of the same read reaches the connection. */
#define HALTED NGHTTP2_ERR_CALLBACK_FAILURE

/* Why a response is malformed (RFC 9113 8.1-8.3), as reasons in the report. */
#define BAD(what) "malformed response: " what

/* The response's own checks. nghttp2 can check HTTP messages itself, but
 * it spends a sixth of a request's instructions doing so (its header
 * checks go a byte at a time, and each field is looked up and classified
 * twice); volley turns them off (no_http_messaging) and checks the same
 * rules here, 8 bytes at a time, once per field. */
#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
/* Nonzero when a byte of x is below n (n <= 128), or is zero. Exact as
 * tests of the whole word. */
#define HAS_LESS(x, n) (((x) - ONES * (n)) & ~(x) & HIGHS)
#define HAS_ZERO(x) HAS_LESS(x, 1)

/* The bytes of p[0..n) as words for the checks below, 8 at a time, the
 * last word overlapping the one before (a check of a byte twice does no
 * harm); 4 to 7 bytes as two overlapping halves. Calls ok(word) and returns
 * false at the first bad word. Fewer than 4 bytes: the caller's loop. */
#define WORDS_OK(p, n, ok)                                     \
    do {                                                       \
        uint64_t x_;                                           \
        if ((n) >= 8) {                                        \
            size_t i_ = 0;                                     \
            for (; i_ + 8 < (n); i_ += 8) {                    \
                memcpy(&x_, (p) + i_, 8);                      \
                if (!ok(x_))                                   \
                    return false;                              \
            }                                                  \
            memcpy(&x_, (p) + (n) - 8, 8);                     \
        } else {                                               \
            uint32_t lo_, hi_;                                 \
            memcpy(&lo_, (p), 4);                              \
            memcpy(&hi_, (p) + (n) - 4, 4);                    \
            x_ = lo_ | (uint64_t)hi_ << 32;                    \
        }                                                      \
        return ok(x_);                                         \
    } while (0)

/* RFC 9113 8.2.1: a field name has no byte 0x00-0x20, 0x41-0x5a (upper
 * case), 0x7f-0xff, nor a colon (a pseudo-header's leading one is taken
 * off by the caller). */
static bool name_byte_ok(unsigned char b)
{
    return b > 0x20 && b < 0x7f && !(b >= 'A' && b <= 'Z') && b != ':';
}

/* For bytes below 0x80, b + (0x80 - k) sets the byte's high bit exactly
 * when b >= k, with no carry into the next byte: each range test is an
 * addition. */
#define AT_LEAST(x, k) (((x) + ONES * (0x80 - (k))) & HIGHS)

static inline __attribute__((always_inline)) bool name_word_ok(uint64_t x)
{
    if (x & HIGHS)
        return false;
    uint64_t ok = AT_LEAST(x, 0x21) & ~AT_LEAST(x, 0x7f)   /* 0x21..0x7e */
                  & ~(AT_LEAST(x, 'A') & ~AT_LEAST(x, 'Z' + 1)) /* not upper case */
                  & AT_LEAST(x ^ ONES * ':', 1);              /* not a colon */
    return ok == HIGHS;
}

static inline __attribute__((always_inline)) bool name_ok(const uint8_t *p, size_t n)
{
    if (n < 4) {
        for (size_t i = 0; i < n; i++)
            if (!name_byte_ok(p[i]))
                return false;
        return n > 0;
    }
    WORDS_OK(p, n, name_word_ok);
}

/* A field value has no control byte but HTAB (RFC 9110 5.5; RFC 9113
 * 8.2.1 names NUL, CR and LF), and no space or tab at either end. */
static bool value_byte_ok(unsigned char b)
{
    return (b >= 0x20 && b != 0x7f) || b == '\t';
}

/* A word with a tab (or a bad byte) is looked at byte by byte. */
static inline __attribute__((always_inline)) bool value_word_ok(uint64_t x)
{
    if (!(HAS_LESS(x, 0x20) || HAS_ZERO(x ^ ONES * 0x7f)))
        return true;
    for (int k = 0; k < 8; k++, x >>= 8)
        if (!value_byte_ok((unsigned char)x))
            return false;
    return true;
}

static inline __attribute__((always_inline)) bool value_ok(const uint8_t *p, size_t n)
{
    if (n == 0)
        return true;
    if (p[0] == ' ' || p[0] == '\t' || p[n - 1] == ' ' || p[n - 1] == '\t')
        return false;
    if (n < 4) {
        for (size_t i = 0; i < n; i++)
            if (!value_byte_ok(p[i]))
                return false;
        return true;
    }
    WORDS_OK(p, n, value_word_ok);
}

/* A content-length value: digits only, at most 18 (so it fits). */
static int64_t parse_length(const uint8_t *p, size_t n)
{
    if (n == 0 || n > 18)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

/* Fields that HTTP/2 forbids (RFC 9113 8.2.2): they make a response
 * malformed. */
static bool connection_specific(const uint8_t *name, size_t n)
{
    switch (n) {
    case 7:
        return memcmp(name, "upgrade", 7) == 0;
    case 10:
        return memcmp(name, "connection", 10) == 0 || memcmp(name, "keep-alive", 10) == 0;
    case 16:
        return memcmp(name, "proxy-connection", 16) == 0;
    case 17:
        return memcmp(name, "transfer-encoding", 17) == 0;
    default:
        return false;
    }
}

/* The stream's response broke HTTP: volley resets it (PROTOCOL_ERROR) and
 * it ends now, with why; no later event names it. */
static void malformed(struct h2_session *s, int32_t id, struct h2_msg *m, const char *why)
{
    nghttp2_session_set_stream_user_data(s->ng, id, NULL);
    if (s->cur == m)
        s->cur = NULL;
    nghttp2_submit_rst_stream(s->ng, NGHTTP2_FLAG_NONE, id, NGHTTP2_PROTOCOL_ERROR);
    s->ev->on_close(s->conn, m->stream, NGHTTP2_PROTOCOL_ERROR, why);
}

static int on_begin_headers(nghttp2_session *ng, const nghttp2_frame *f, void *arg)
{
    struct h2_session *s = arg;
    if (s->halted)
        return HALTED;
    struct h2_msg *m = nghttp2_session_get_stream_user_data(ng, f->hd.stream_id);
    s->cur = m;
    s->cur_id = f->hd.stream_id;
    if (m && f->hd.type == NGHTTP2_HEADERS) {
        m->flags &= NO_BODY | ENDED;
        if (m->status)
            m->flags |= TRAILERS;
        s->ev->on_begin(s->conn, m->stream);
    }
    return 0;
}

/* One response field: checked, then handed on. Returns why it is
 * malformed, or NULL. */
static const char *check_field(struct h2_msg *m, const uint8_t *name, size_t nlen, const uint8_t *value,
                               size_t vlen)
{
    if (nlen && name[0] == ':') {
        if (nlen != 7 || memcmp(name, ":status", 7) != 0)
            return BAD("a pseudo-header other than :status");
        if (m->flags & TRAILERS)
            return BAD(":status in trailers");
        if (m->flags & IN_BLOCK)
            return BAD("two :status fields");
        if (m->flags & REGULAR)
            return BAD(":status after a regular field");
        if (vlen != 3 || value[0] < '1' || value[0] > '5' || value[1] < '0' || value[1] > '9' || value[2] < '0' ||
            value[2] > '9')
            return BAD("bad :status");
        int status = (value[0] - '0') * 100 + (value[1] - '0') * 10 + (value[2] - '0');
        if (status == 101)
            return BAD(":status 101");
        m->flags |= IN_BLOCK;
        if (status < 200)
            m->flags |= INTERIM;
        else
            m->status = (uint16_t)status;
        return value_ok(value, vlen) ? NULL : BAD("bad :status");
    }
    if (!(m->flags & (IN_BLOCK | TRAILERS)))
        return BAD("a field before :status");
    m->flags |= REGULAR;
    if (!name_ok(name, nlen))
        return BAD("a bad field name");
    if (!value_ok(value, vlen))
        return BAD("a bad field value");
    if (connection_specific(name, nlen))
        return BAD("a connection-specific field");
    if (nlen == 14 && !(m->flags & (INTERIM | TRAILERS)) && memcmp(name, "content-length", 14) == 0) {
        int64_t v = parse_length(value, vlen);
        if (v < 0)
            return BAD("a bad content-length");
        if (m->content_length >= 0 && m->content_length != v)
            return BAD("two different content-lengths");
        m->content_length = v;
    }
    /* Names are lower case (checked above); the media type is not. */
    if (nlen == 12 && !(m->flags & (INTERIM | TRAILERS)) && memcmp(name, "content-type", 12) == 0)
        m->event_stream = vlen >= 17 && strncasecmp((const char *)value, "text/event-stream", 17) == 0 &&
                          (vlen == 17 || value[17] == ';' || value[17] == ' ' || value[17] == '\t');
    return NULL;
}

static int on_header(nghttp2_session *ng, const nghttp2_frame *f, const uint8_t *name, size_t nlen,
                     const uint8_t *value, size_t vlen, uint8_t flags, void *arg)
{
    (void)flags;
    struct h2_session *s = arg;
    if (s->halted)
        return HALTED;
    s->decoded += nlen + vlen + 32;
    int32_t id = f->hd.stream_id;
    struct h2_msg *m = id == s->cur_id ? s->cur : nghttp2_session_get_stream_user_data(ng, id);
    if (!m)
        return 0;
    uint16_t final = m->status;
    const char *why = check_field(m, name, nlen, value, vlen);
    if (why)
        malformed(s, id, m, why);
    else if (m->status != final)
        s->ev->on_status(s->conn, m->stream, m->status);
    else if (s->ev->on_header && !(m->flags & INTERIM))
        s->ev->on_header(s->conn, m->stream, (const char *)name, nlen, (const char *)value, vlen,
                         m->flags & TRAILERS);
    return 0;
}

/* A header block or the stream ended: what the response must have by then. */
static const char *check_end(const struct h2_msg *m, const nghttp2_frame *f)
{
    bool end = f->hd.flags & NGHTTP2_FLAG_END_STREAM;
    if (f->hd.type == NGHTTP2_HEADERS) {
        if (m->flags & TRAILERS) {
            if (!end)
                return BAD("trailers without END_STREAM");
        } else if (!(m->flags & IN_BLOCK)) {
            return BAD("no :status");
        } else if (end && (m->flags & INTERIM)) {
            return BAD("ended after a 1xx response");
        }
    }
    if (!end)
        return NULL;
    bool bodiless = (m->flags & NO_BODY) || m->status == 204 || m->status == 304;
    if (bodiless && m->data > 0)
        return BAD("content in a response that has none");
    if (!bodiless && m->content_length >= 0 && (uint64_t)m->content_length != m->data)
        return BAD("content-length does not match the content");
    return NULL;
}

static int on_frame_recv(nghttp2_session *ng, const nghttp2_frame *f, void *arg)
{
    struct h2_session *s = arg;
    if (s->halted)
        return HALTED;
    int32_t id = f->hd.stream_id;
    if (f->hd.type == NGHTTP2_HEADERS || f->hd.type == NGHTTP2_DATA) {
        if (f->hd.type == NGHTTP2_HEADERS)
            s->wire += f->hd.length;
        struct h2_msg *m = id == s->cur_id ? s->cur : nghttp2_session_get_stream_user_data(ng, id);
        const char *why = m ? check_end(m, f) : NULL;
        if (why)
            malformed(s, id, m, why);
        else if (m && (f->hd.flags & NGHTTP2_FLAG_END_STREAM))
            m->flags |= ENDED;
    } else if (f->hd.type == NGHTTP2_GOAWAY) {
        s->ev->on_goaway(s->conn, f->goaway.last_stream_id, f->goaway.error_code);
    } else if (f->hd.type == NGHTTP2_SETTINGS && !(f->hd.flags & NGHTTP2_FLAG_ACK)) {
        s->ev->on_settings(s->conn, nghttp2_session_get_remote_settings(ng, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS));
    }
    return 0;
}

/* nghttp2 ends a connection the server broke with a GOAWAY of its own. */
static int on_frame_send(nghttp2_session *ng, const nghttp2_frame *f, void *arg)
{
    (void)ng;
    struct h2_session *s = arg;
    if (s->halted)
        return HALTED;
    if (f->hd.type == NGHTTP2_GOAWAY && f->goaway.error_code != NGHTTP2_NO_ERROR) {
        if (!s->error[0])
            snprintf(s->error, sizeof s->error, "the server broke the protocol (%s)",
                     h2_error_name(f->goaway.error_code));
        s->ev->on_error(s->conn, s->error);
    }
    return 0;
}

/* nghttp2 says why it ends a connection (a frame too large, a bad
 * preface...) or resets a stream: kept as the reason. */
static int on_lib_error(nghttp2_session *ng, int lib_error, const char *msg, size_t len, void *arg)
{
    (void)ng;
    struct h2_session *s = arg;
    snprintf(s->error, sizeof s->error, "%.*s", (int)(len < 150 ? len : 150), msg);
    /* A header or messaging error resets one stream; the others end the
     * connection. */
    if (lib_error != NGHTTP2_ERR_HTTP_HEADER && lib_error != NGHTTP2_ERR_HTTP_MESSAGING &&
        lib_error != NGHTTP2_ERR_STREAM_CLOSED && lib_error != NGHTTP2_ERR_CALLBACK_FAILURE)
        s->broken = true;
    return 0;
}

static int on_invalid_frame(nghttp2_session *ng, const nghttp2_frame *f, int lib_error, void *arg)
{
    (void)ng;
    (void)f;
    struct h2_session *s = arg;
    snprintf(s->error, sizeof s->error, "%s", nghttp2_strerror(lib_error));
    return 0;
}

static int on_data_chunk(nghttp2_session *ng, uint8_t flags, int32_t id, const uint8_t *data, size_t len,
                         void *arg)
{
    (void)flags;
    struct h2_session *s = arg;
    if (s->halted)
        return HALTED;
    struct h2_msg *m = nghttp2_session_get_stream_user_data(ng, id);
    if (!m)
        return 0;
    m->data += len;
    if (m->status == 0 || (m->flags & TRAILERS))
        malformed(s, id, m, BAD("content outside the final response"));
    else if (m->content_length >= 0 && m->data > (uint64_t)m->content_length)
        malformed(s, id, m, BAD("content-length does not match the content"));
    else
        s->ev->on_data(s->conn, m->stream, (const char *)data, len);
    return 0;
}

static int on_stream_close(nghttp2_session *ng, int32_t id, uint32_t error, void *arg)
{
    struct h2_session *s = arg;
    if (s->halted)
        return HALTED;
    struct h2_msg *m = nghttp2_session_get_stream_user_data(ng, id);
    if (s->cur_id == id)
        s->cur = NULL;
    if (!m)
        return 0;
    /* The stream goes with this call: no event can name it after. Closed
     * without an error code before END_STREAM (RST_STREAM NO_ERROR): the
     * response is not whole, whatever its content-length said (RFC 9113
     * 8.1: a response ends with END_STREAM; NO_ERROR after it is how a
     * server stops reading a request body it does not need). */
    const char *why = error == NGHTTP2_NO_ERROR && !(m->flags & ENDED) ? "reset before the response ended" : NULL;
    s->ev->on_close(s->conn, m->stream, error, why);
    return 0;
}

static ssize_t read_body(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                         nghttp2_data_source *src, void *arg)
{
    (void)ng;
    (void)id;
    struct h2_session *s = arg;
    if (s->halted)
        return HALTED;
    struct h2_body *b = src->ptr;
    size_t n = b->len - b->off < len ? b->len - b->off : len;
    memcpy(buf, b->data + b->off, n);
    b->off += n;
    if (b->off == b->len)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

/* nghttp2's allocations through the worker's pool (see mpool.h): a
 * stream's few blocks come from its free lists instead of malloc. */
static void *pool_malloc(size_t n, void *pool)
{
    return mpool_alloc(pool, n);
}

static void pool_free(void *p, void *pool)
{
    mpool_release(pool, p);
}

static void *pool_calloc(size_t count, size_t size, void *pool)
{
    return mpool_calloc(pool, count, size);
}

static void *pool_realloc(void *p, size_t n, void *pool)
{
    return mpool_realloc(pool, p, n);
}

struct h2_session *h2_session_new(const struct h2_events *ev, void *conn, uint32_t window, struct mpool *pool)
{
    struct h2_session *s = xcalloc(1, sizeof *s);
    s->ev = ev;
    s->conn = conn;
    /* Once per connection, not per request: nghttp2 copies them. */
    nghttp2_session_callbacks *c;
    if (nghttp2_session_callbacks_new(&c) != 0) {
        free(s);
        return NULL;
    }
    nghttp2_session_callbacks_set_on_begin_headers_callback(c, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(c, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(c, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(c, on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(c, on_stream_close);
    nghttp2_session_callbacks_set_on_frame_send_callback(c, on_frame_send);
    nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(c, on_invalid_frame);
    nghttp2_session_callbacks_set_error_callback2(c, on_lib_error);
    /* A small HPACK table for what volley sends: the headers every request
     * repeats stay indexed, while the paths and values a request() hook
     * varies do not pile up entries that each later header is searched
     * against (with 4096 bytes that search was a third of a hooked
     * request's instructions; see docs/performance.md). */
    nghttp2_option *opt;
    if (nghttp2_option_new(&opt) != 0) {
        nghttp2_session_callbacks_del(c);
        free(s);
        return NULL;
    }
    nghttp2_option_set_max_deflate_dynamic_table_size(opt, DEFLATE_TABLE);
    nghttp2_option_set_no_http_messaging(opt, 1); /* checked here instead: see check_field */
    nghttp2_mem mem = {pool, pool_malloc, pool_free, pool_calloc, pool_realloc};
#ifdef __SANITIZE_ADDRESS__
    pool = NULL; /* every block of nghttp2's under ASan's eye */
#endif
    int rc = nghttp2_session_client_new3(&s->ng, c, s, opt, pool ? &mem : NULL);
    nghttp2_option_del(opt);
    nghttp2_session_callbacks_del(c);
    if (rc != 0) {
        free(s);
        return NULL;
    }
    nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, window},
    };
    nghttp2_submit_settings(s->ng, NGHTTP2_FLAG_NONE, settings, sizeof settings / sizeof settings[0]);
    if (window > NGHTTP2_INITIAL_CONNECTION_WINDOW_SIZE)
        nghttp2_session_set_local_window_size(s->ng, NGHTTP2_FLAG_NONE, 0, (int32_t)window);
    return s;
}

void h2_session_free(struct h2_session *s)
{
    if (!s)
        return;
    nghttp2_session_del(s->ng);
    free(s);
}

#define NV(n, nl, v, vl, flags) ((nghttp2_nv){(uint8_t *)(n), (uint8_t *)(v), (nl), (vl), (flags)})

int32_t h2_submit(struct h2_session *s, const struct h2_request *r, void *stream, struct h2_msg *m)
{
    *m = (struct h2_msg){.stream = stream, .content_length = -1};
    if (r->method_len == 4 && memcmp(r->method, "HEAD", 4) == 0)
        m->flags = NO_BODY;
    nghttp2_nv nv[4 + 64];
    size_t n = 0;
    /* Strings that last are not copied (nor lowered: the caller's names
     * are in lower case); the pseudo-headers' names are literals. */
    uint8_t both = r->lasting ? NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE : NGHTTP2_NV_FLAG_NONE;
    uint8_t pseudo = both | NGHTTP2_NV_FLAG_NO_COPY_NAME;
    nv[n++] = NV(":method", 7, r->method, r->method_len, pseudo);
    nv[n++] = NV(":scheme", 7, r->scheme, r->scheme_len, pseudo);
    nv[n++] = NV(":authority", 10, r->authority, r->authority_len, pseudo);
    nv[n++] = NV(":path", 5, r->path, r->path_len, pseudo);
    for (size_t i = 0; i < r->nheaders && n < sizeof nv / sizeof nv[0]; i++)
        nv[n++] = NV(r->headers[i].name, r->headers[i].name_len, r->headers[i].value, r->headers[i].value_len, both);
    nghttp2_data_provider body = {.source.ptr = r->body, .read_callback = read_body};
    int32_t id = nghttp2_submit_request(s->ng, NULL, nv, n, r->body ? &body : NULL, m);
    if (id < 0) {
        snprintf(s->error, sizeof s->error, "%s", nghttp2_strerror(id));
        return -1;
    }
    return id;
}

int h2_recv(struct h2_session *s, const char *buf, size_t len)
{
    ssize_t rc = nghttp2_session_mem_recv(s->ng, (const uint8_t *)buf, len);
    if (rc < 0) {
        snprintf(s->error, sizeof s->error, "%s", nghttp2_strerror((int)rc));
        return -1;
    }
    return s->broken ? -1 : 0;
}

long h2_send(struct h2_session *s, const char **out)
{
    const uint8_t *data;
    ssize_t n = nghttp2_session_mem_send(s->ng, &data);
    if (n < 0) {
        snprintf(s->error, sizeof s->error, "%s", nghttp2_strerror((int)n));
        return -1;
    }
    *out = (const char *)data;
    return (long)n;
}

void h2_halt(struct h2_session *s)
{
    s->halted = true;
}

void h2_cancel(struct h2_session *s, int32_t stream_id)
{
    if (s->cur_id == stream_id)
        s->cur = NULL;
    nghttp2_session_set_stream_user_data(s->ng, stream_id, NULL); /* no events for it any more */
    nghttp2_submit_rst_stream(s->ng, NGHTTP2_FLAG_NONE, stream_id, NGHTTP2_CANCEL);
}

uint32_t h2_peer_max_streams(struct h2_session *s)
{
    return nghttp2_session_get_remote_settings(s->ng, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
}

bool h2_finished(struct h2_session *s)
{
    return !nghttp2_session_want_read(s->ng) && !nghttp2_session_want_write(s->ng);
}

const char *h2_error(const struct h2_session *s)
{
    return s->error;
}

const char *h2_error_name(uint32_t code)
{
    static const char *const names[] = {
        "NO_ERROR",       "PROTOCOL_ERROR", "INTERNAL_ERROR",      "FLOW_CONTROL_ERROR",  "SETTINGS_TIMEOUT",
        "STREAM_CLOSED",  "FRAME_SIZE_ERROR", "REFUSED_STREAM",    "CANCEL",              "COMPRESSION_ERROR",
        "CONNECT_ERROR",  "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
    };
    return code < sizeof names / sizeof names[0] ? names[code] : "unknown error code";
}

void h2_header_sizes(const struct h2_session *s, uint64_t *wire, uint64_t *decoded)
{
    *wire = s->wire;
    *decoded = s->decoded;
}

char *h2_library_version(char *buf, size_t len)
{
    snprintf(buf, len, "nghttp2 %s", nghttp2_version(0)->version_str);
    return buf;
}
