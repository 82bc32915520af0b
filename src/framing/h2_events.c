/* HTTP/2 on a connection, what nghttp2 tells of each stream (h2.c's
 * events): the response's first byte, status, fields and data captured for
 * response() as HTTP/1 text (trailers after the body), and how the stream
 * ended: whole (h2c_complete: conn_completed), refused or unprocessed (retried),
 * reset or malformed (failed with the reason); GOAWAY, SETTINGS and a
 * broken protocol marked on the connection for h2_conn.c. */
#include "framings.h"

#include "clock.h"
#include "h2_internal.h"
#include "h2.h"

#include <stdio.h>

static void on_begin(void *conn, void *stream);
static void on_status(void *conn, void *stream, int status);
static void on_header(void *conn, void *stream, const char *name, size_t nlen, const char *value, size_t vlen,
                      bool trailer);
static void on_data(void *conn, void *stream, const char *data, size_t len);
static void on_close(void *conn, void *stream, uint32_t error, const char *why);
static void on_goaway(void *conn, int32_t last_stream_id, uint32_t error);
static void on_settings(void *conn, uint32_t max_streams);
static void on_error(void *conn, const char *reason);


/* The response so far as HTTP/1 text, for response(): "HTTP/1.1 200\r\n",
 * the headers, a blank line, then the body (so the hook sees what it sees
 * over HTTP/1, and the bridge reads it the same way), then any trailers
 * as header lines from trailers_at on (res.trailers; not the body). */
static void capture(struct h2_stream *st, const char *p, size_t n)
{
    /* Past --max-body only the length grows (the stream then fails
     * validation, as over HTTP/1); the buffer stops growing. */
    if (st->cap_len + n > st->c->sh->max_body) {
        st->cap_len += n;
        return;
    }
    h2c_append(&st->cap, &st->cap_len, &st->cap_size, p, n);
}

static void on_begin(void *conn, void *stream)
{
    (void)conn;
    struct h2_stream *st = stream;
    if (st->t_first == 0)
        st->t_first = clock_now_ns();
}

static void on_status(void *conn, void *stream, int status)
{
    struct conn *c = conn;
    struct h2_stream *st = stream;
    st->status = status;
    st->rx_bytes += 7 + 3 + 4; /* as a field would count */
    H(c)->answered = true;
    c->backoff = 0; /* the connection works: the next failure backs off from the start */
    bool sample = status / 100 != 2 && (st->shown = conn_sample_open(c));
    if (c->sh->capture || sample) {
        char line[32];
        int n = snprintf(line, sizeof line, "HTTP/1.1 %d \r\n", status);
        errsample_add(st->shown, line, (size_t)n);
        if (c->sh->capture) {
            st->cap_len = 0;
            capture(st, line, (size_t)n);
        }
    }
}

/* The blank line that ends the captured head and the sample's, once. */
static void end_head(struct conn *c, struct h2_stream *st)
{
    if (!st->body_started) {
        if (c->sh->capture)
            capture(st, "\r\n", 2);
        errsample_add(st->shown, "\r\n", 2);
        st->body_started = true;
    }
}

/* A field of the response's head for its sample (trailers are not kept). */
static void sample_field(struct h2_stream *st, const char *name, size_t nlen, const char *value, size_t vlen,
                         bool trailer)
{
    if (!st->shown || trailer)
        return;
    errsample_add(st->shown, name, nlen);
    errsample_add(st->shown, ": ", 2);
    errsample_add(st->shown, value, vlen);
    errsample_add(st->shown, "\r\n", 2);
}

/* Without a response() hook: only a sample takes the fields. */
static void on_header_sample(void *conn, void *stream, const char *name, size_t nlen, const char *value,
                             size_t vlen, bool trailer)
{
    (void)conn;
    sample_field(stream, name, nlen, value, vlen, trailer);
}

static void on_header(void *conn, void *stream, const char *name, size_t nlen, const char *value, size_t vlen,
                      bool trailer)
{
    struct conn *c = conn;
    struct h2_stream *st = stream;
    st->rx_bytes += nlen + vlen + 4;
    sample_field(st, name, nlen, value, vlen, trailer);
    if (trailer)
        end_head(c, st);
    if (c->sh->capture && trailer && !st->trailers_at) {
        st->trailers_at = st->cap_len; /* the body ends here */
    }
    if (c->sh->capture) {
        capture(st, name, nlen);
        capture(st, ": ", 2);
        capture(st, value, vlen);
        capture(st, "\r\n", 2);
    }
}

/* The stream stopped (conn_stream.h): a hook error stops the run; else
 * the server is told to stop (RST_STREAM CANCEL) and the response ends
 * now, completed or failed as the stream says. */
static void stream_stopped(struct conn *c, struct h2_stream *st)
{
    if (st->stream->verdict == STREAM_HOOK_ERROR) {
        conn_script_failed(c);
        return;
    }
    h2_cancel(H(c)->session, st->id);
    h2c_complete(c, st, H(c)->now);
}

static void on_data(void *conn, void *stream, const char *data, size_t len)
{
    struct conn *c = conn;
    struct conn_shared *sh = c->sh;
    struct h2_stream *st = stream;
    if (!st->body_started && (st->msg.event_stream || st->stream_asked)) {
        struct stream_request sr = {st->t_start, st->t_intended, st->t_sent, st->item, st->stream_call};
        conn_stream_begin(conn_stream_of(&st->stream, c), st->msg.event_stream, &sr);
    }
    end_head(c, st);
    st->rx_bytes += len;
    errsample_add(st->shown, data, len);
    if (conn_stream_on(st->stream)) {
        st->stream->now = H(c)->now;
        conn_stream_feed(st->stream, data, len);
        if (conn_stream_stopped(st->stream))
            stream_stopped(c, st);
        return; /* its body is not kept */
    }
    if (sh->capture)
        capture(st, data, len);
}

static void on_goaway(void *conn, int32_t last_stream_id, uint32_t error)
{
    struct conn *c = conn;
    struct h2_conn *h = H(c);
    h->goaway = true;
    h->last_id = last_stream_id;
    h->goaway_error = error;
}

/* The server's SETTINGS: new streams may go (fill waits for them); a limit
 * below --streams is kept for the report. */
static void on_settings(void *conn, uint32_t max_streams)
{
    struct conn *c = conn;
    struct conn_shared *sh = c->sh;
    H(c)->settings = true;
    if (max_streams < sh->streams && (sh->stats->h2_peer_limit == 0 || max_streams < sh->stats->h2_peer_limit))
        sh->stats->h2_peer_limit = max_streams;
}

/* nghttp2 found the server breaking the protocol: the connection fails
 * once h2_recv returns. */
static void on_error(void *conn, const char *reason)
{
    struct conn *c = conn;
    (void)reason; /* h2_error() keeps it for after h2_recv */
    H(c)->broken = true;
}

static void on_close(void *conn, void *stream, uint32_t error, const char *why)
{
    struct conn *c = conn;
    struct conn_shared *sh = c->sh;
    struct h2_stream *st = stream;
    struct h2_conn *h = H(c);
    int64_t now = clock_now_ns();
    if (why) {
        /* The server answered, but not in HTTP (h2.c's checks). */
        stats_kind_reason(sh->stats, STATS_ERR_PROTOCOL, why, 1);
        h2c_stream_failed(c, st, STATS_ERR_PROTOCOL);
        return;
    }
    if (error != 0 || st->status == 0) {
        bool unprocessed = h->goaway && st->id > h->last_id;
        if (unprocessed || error == H2_REFUSED_STREAM) {
            h2c_retry(c, st, !unprocessed);
            return;
        }
        if (h->broken)
            return; /* the connection failed: counted once it is closed */
        char why[64];
        snprintf(why, sizeof why, "RST_STREAM %s", h2_error_name(error));
        stats_kind_reason(sh->stats, STATS_ERR_PROTOCOL, why, 1);
        h2c_stream_failed(c, st, STATS_ERR_PROTOCOL);
        return;
    }
    end_head(c, st);
    if (conn_stream_on(st->stream)) {
        st->stream->now = now;
        conn_stream_finish(st->stream);
        if (st->stream->verdict == STREAM_HOOK_ERROR) {
            conn_script_failed(c);
            return;
        }
    }
    h2c_complete(c, st, now);
}

void h2c_complete(struct conn *c, struct h2_stream *st, int64_t now)
{
    struct conn_shared *sh = c->sh;
    int64_t mark = st->t_start; /* a stream is a batch of its own */
    struct conn_response r = {
        .status = st->status,
        .bytes = st->rx_bytes,
        .t_start = st->t_start,
        .t_intended = st->t_intended,
        .t_sent = st->t_sent,
        .waiting = st->t_first > st->t_sent ? st->t_first - st->t_sent : 0,
        .answered = &mark,
        .name = st->name,
        .item = st->item,
        .raw = st->cap,
        .len = st->cap_len,
        .trailers_at = st->trailers_at,
        .too_large = (sh->flow || sh->script_response) && sh->capture && st->cap_len > sh->max_body,
        .shown = st->shown,
        .stream = conn_stream_on(st->stream) ? st->stream : NULL,
    };
    st->shown = NULL; /* conn_completed's */
    bool ok = conn_completed(c, &r, now);
    h2c_release(c, st);
    if (!ok)
        conn_script_failed(c);
}

/* With a response() hook, which sees the fields (and their size), and
 * without: then h2.c hands none on. */
const struct h2_events h2c_events = {on_begin, on_status, on_header, on_data,
                                        on_close, on_goaway, on_settings, on_error};
const struct h2_events h2c_events_no_fields = {on_begin, on_status, on_header_sample, on_data,
                                                  on_close, on_goaway, on_settings, on_error};
