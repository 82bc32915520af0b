/* HTTP/2 framing over libnghttp2 (see h2.h): the session uses nghttp2's
 * memory interface (mem_recv / mem_send), never its own I/O. */
#include "h2.h"

#include "xalloc.h"

#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFLATE_TABLE 512

struct h2_session {
    nghttp2_session *ng;
    const struct h2_events *ev;
    void *conn;
    uint64_t wire, decoded; /* header bytes received: on the wire, decoded */
    bool broken;            /* nghttp2 ends the connection: the server broke the protocol */
    char error[160];
};

static int on_begin_headers(nghttp2_session *ng, const nghttp2_frame *f, void *arg)
{
    struct h2_session *s = arg;
    void *stream = nghttp2_session_get_stream_user_data(ng, f->hd.stream_id);
    if (stream && f->hd.type == NGHTTP2_HEADERS)
        s->ev->on_begin(s->conn, stream);
    return 0;
}

static int on_header(nghttp2_session *ng, const nghttp2_frame *f, const uint8_t *name, size_t nlen,
                     const uint8_t *value, size_t vlen, uint8_t flags, void *arg)
{
    (void)flags;
    struct h2_session *s = arg;
    s->decoded += nlen + vlen + 32;
    void *stream = nghttp2_session_get_stream_user_data(ng, f->hd.stream_id);
    if (stream)
        s->ev->on_header(s->conn, stream, (const char *)name, nlen, (const char *)value, vlen);
    return 0;
}

static int on_frame_recv(nghttp2_session *ng, const nghttp2_frame *f, void *arg)
{
    (void)ng;
    struct h2_session *s = arg;
    if (f->hd.type == NGHTTP2_HEADERS)
        s->wire += f->hd.length;
    else if (f->hd.type == NGHTTP2_GOAWAY)
        s->ev->on_goaway(s->conn, f->goaway.last_stream_id, f->goaway.error_code);
    else if (f->hd.type == NGHTTP2_SETTINGS && !(f->hd.flags & NGHTTP2_FLAG_ACK))
        s->ev->on_settings(s->conn, nghttp2_session_get_remote_settings(ng, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS));
    return 0;
}

/* nghttp2 ends a connection the server broke with a GOAWAY of its own. */
static int on_frame_send(nghttp2_session *ng, const nghttp2_frame *f, void *arg)
{
    (void)ng;
    struct h2_session *s = arg;
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
    void *stream = nghttp2_session_get_stream_user_data(ng, id);
    if (stream)
        s->ev->on_data(s->conn, stream, (const char *)data, len);
    return 0;
}

static int on_stream_close(nghttp2_session *ng, int32_t id, uint32_t error, void *arg)
{
    struct h2_session *s = arg;
    void *stream = nghttp2_session_get_stream_user_data(ng, id);
    if (stream) {
        nghttp2_session_set_stream_user_data(ng, id, NULL);
        s->ev->on_close(s->conn, stream, error);
    }
    return 0;
}

static ssize_t read_body(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                         nghttp2_data_source *src, void *arg)
{
    (void)ng;
    (void)id;
    (void)arg;
    struct h2_body *b = src->ptr;
    size_t n = b->len - b->off < len ? b->len - b->off : len;
    memcpy(buf, b->data + b->off, n);
    b->off += n;
    if (b->off == b->len)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

struct h2_session *h2_session_new(const struct h2_events *ev, void *conn, uint32_t window)
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
    int rc = nghttp2_session_client_new2(&s->ng, c, s, opt);
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

#define NV(n, nl, v, vl) \
    ((nghttp2_nv){(uint8_t *)(n), (uint8_t *)(v), (nl), (vl), NGHTTP2_NV_FLAG_NONE})

int32_t h2_submit(struct h2_session *s, const struct h2_request *r, void *stream)
{
    nghttp2_nv nv[4 + 64];
    size_t n = 0;
    nv[n++] = NV(":method", 7, r->method, r->method_len);
    nv[n++] = NV(":scheme", 7, r->scheme, r->scheme_len);
    nv[n++] = NV(":authority", 10, r->authority, r->authority_len);
    nv[n++] = NV(":path", 5, r->path, r->path_len);
    for (size_t i = 0; i < r->nheaders && n < sizeof nv / sizeof nv[0]; i++)
        nv[n++] = NV(r->headers[i].name, r->headers[i].name_len, r->headers[i].value, r->headers[i].value_len);
    nghttp2_data_provider body = {.source.ptr = r->body, .read_callback = read_body};
    int32_t id = nghttp2_submit_request(s->ng, NULL, nv, n, r->body ? &body : NULL, stream);
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

void h2_cancel(struct h2_session *s, int32_t stream_id)
{
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
