/* A response consumed as a stream of events (conn_stream.h): the body's
 * bytes parsed into events (sse.h), each timed by the read that completed
 * it, counted, and handed to the script's event() hook, which may mark
 * tokens on it, fail the request or end it; the stream's figures recorded
 * when it completes (conn_completed calls conn_stream_record). */
#include "conn_stream.h"

#include "conn_internal.h"
#include "stats_tags.h"
#include "xalloc.h"

#include <stdatomic.h>
#include <stdlib.h>

/* The streams open at once over the worker's process, and the most. */
static void count_open(struct conn_shared *sh, int64_t d)
{
    if (!sh->streams_now)
        return;
    int64_t n = atomic_fetch_add(sh->streams_now, d) + d;
    int64_t peak = atomic_load(sh->streams_peak);
    while (n > peak && !atomic_compare_exchange_weak(sh->streams_peak, &peak, n))
        ;
}

struct conn_stream *conn_stream_of(struct conn_stream **s, struct conn *c)
{
    if (!*s) {
        *s = xcalloc(1, sizeof **s);
        (*s)->c = c;
    }
    return *s;
}

void conn_stream_free(struct conn_stream *s)
{
    if (!s)
        return;
    sse_free(&s->sse);
    free(s);
}

void conn_stream_begin(struct conn_stream *s, bool event_stream, const struct stream_request *r)
{
    struct conn_shared *sh = s->c->sh;
    sse_init(&s->sse, event_stream ? SSE_EVENTS : SSE_LINES, sh->max_body);
    s->on = true;
    s->verdict = STREAM_ON;
    s->usage = false;
    s->call = r->call;
    s->item = r->item;
    s->t_start = r->t_start;
    s->t_due = sh->sched ? r->t_intended : r->t_start;
    s->t_sent = r->t_sent;
    s->first = s->last = s->tok_first = s->tok_last = 0;
    s->events = s->tokens = s->prompt_tokens = 0;
    count_open(sh, 1);
}

void conn_stream_end(struct conn_stream *s)
{
    count_open(s->c->sh, -1);
    s->on = false;
}

/* The event hook's verdict on ev (event(conn, ev), or a flow request's
 * stream function); marks its tokens. Returns nonzero to stop. */
static int call_hook(struct conn_stream *s, const struct sse_event *ev)
{
    struct conn *c = s->c;
    struct conn_shared *sh = c->sh;
    struct script_event *e = sh->event;
    *e = (struct script_event){
        .type = ev->type,
        .type_len = ev->type_len,
        .data = ev->data,
        .data_len = ev->data_len,
        .id = ev->id,
        .id_len = ev->id_len,
        .t = (double)(s->now - s->t_start) / 1e3,
        .retry = (double)ev->retry,
        .live = 1,
        .serial = e->serial + 1,
        .name = (int32_t)stats_label_name(sh->stats, c->name),
        .total = -1,
        .prompt = -1,
    };
    int verdict = 0;
    int rc = sh->flow ? script_flow_event(sh->script, conn_flow_slot(c), s->item, &verdict, sh->script_error,
                                          sh->script_error_len)
                      : script_event(sh->script, c->id, &verdict, sh->script_error, sh->script_error_len);
    e->live = 0;
    if (rc < 0) {
        s->verdict = STREAM_HOOK_ERROR;
        return 1;
    }
    if (e->tokens > 0) {
        if (s->tok_first == 0)
            s->tok_first = s->now;
        else
            stats_stream_itl(&sh->stats->stream, s->now, s->now - s->tok_last);
        s->tok_last = s->now;
        s->tokens += (uint64_t)e->tokens;
    }
    if (e->total >= 0) {
        s->usage = true;
        s->usage_tokens = (uint64_t)e->total;
    }
    if (e->prompt >= 0)
        s->prompt_tokens = (uint64_t)e->prompt;
    if (verdict == SCRIPT_EVENT_CLOSE)
        s->verdict = STREAM_CLOSE;
    else if (verdict == SCRIPT_EVENT_FAILED)
        s->verdict = STREAM_FAILED;
    return s->verdict != STREAM_ON;
}

/* One event, completed by the read of s->now. */
static int on_event(void *ctx, const struct sse_event *ev)
{
    struct conn_stream *s = ctx;
    struct conn_shared *sh = s->c->sh;
    sh->stats->stream.events++;
    if (s->events++ == 0)
        s->first = s->now;
    else
        stats_stream_gap(&sh->stats->stream, s->now, s->now - s->last);
    s->last = s->now;
    return (sh->flow ? s->call : sh->script_event) ? call_hook(s, ev) : 0;
}

static void take_status(struct conn_stream *s, enum sse_status st)
{
    if (st == SSE_TOO_LARGE && s->verdict == STREAM_ON) {
        s->verdict = STREAM_TOO_LARGE;
        s->c->sh->stats->stream.too_large++;
    }
}

void conn_stream_feed(struct conn_stream *s, const char *p, size_t n)
{
    if (s->verdict != STREAM_ON)
        return; /* stopped: the framing ends the request once its read is taken */
    take_status(s, sse_feed(&s->sse, p, n, on_event, s));
}

void conn_stream_finish(struct conn_stream *s)
{
    if (s->verdict == STREAM_ON)
        take_status(s, sse_finish(&s->sse, on_event, s, NULL));
}

void conn_stream_record(const struct conn_stream *s, struct stats_stream *st, int64_t now)
{
    struct stream_end e = {
        .start = s->t_due,
        .sent = s->c->sh->sched ? (s->t_sent ? s->t_sent : s->t_start) : 0,
        .end = now,
        .first = s->first,
        .last = s->last,
        .tok_first = s->tok_first,
        .tok_last = s->tok_last,
        .events = s->events,
        .tokens = s->usage ? s->usage_tokens : s->tokens,
        .prompt_tokens = s->prompt_tokens,
        .usage = s->usage,
        .closed = s->verdict == STREAM_CLOSE,
    };
    stats_stream_end(st, &e);
}
