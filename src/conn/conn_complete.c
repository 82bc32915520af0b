/* The one path of a completed response (framing.h's conn_completed),
 * whatever framing read it: the flow's user or response() is told, then
 * the figures, the samples (volley ab's; --show-errors') and the heartbeat. Nothing here
 * allocates. */
#include "conn.h"

#include "conn_internal.h"
#include "stats_tags.h"

#include <assert.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>

/* What a script is told of a response besides its bytes. */
struct res_info {
    int64_t latency, connect, waiting;
    uint64_t events; /* a streamed response's events */
};

/* res describes r (raw: its bytes when kept for the script, else NULL). */
static void fill_res(const struct stats *st, struct script_res *res, const struct conn_response *r,
                     const struct res_info *i, char *raw)
{
    res->status = r->status;
    res->chunked = r->chunked;
    res->bytes = (double)r->bytes;
    res->latency = (double)i->latency / 1e3;
    res->connect = (double)i->connect / 1e3;
    res->waiting = (double)i->waiting / 1e3;
    res->events = (double)i->events;
    res->raw = raw;
    res->raw_len = raw ? r->len : 0;
    res->head_len = 0;
    res->body_len = 0;
    res->body_ready = 0;
    res->trailers_at = r->trailers_at;
    res->serial++;
    res->live = 1;
    res->name = (int32_t)stats_label_name(st, r->name); /* a tagged request's: its name's */
    res->error = 0;
}

/* A flow: the user's response is the one that just completed (kept by
 * the framing until the user's next request, or copied for a batch's
 * item), and its check, if the request has one, is called now: *failed
 * when it failed. Returns false when the bridge failed. */
static bool flow_response(struct conn *c, const struct conn_response *r, const struct res_info *i, bool *failed)
{
    fill_res(c->sh->stats, conn_flow_res(c, r->item), r, i, r->raw);
    return conn_flow_answered(c, r->item, r->raw, r->len, failed);
}

/* response() for a complete response; *failed when the script failed it.
 * Returns false when the hook raised an error. */
static bool check_response(struct conn *c, const struct conn_response *r, const struct res_info *i, bool *failed)
{
    struct conn_shared *sh = c->sh;
    struct script_res *res = sh->res;
    fill_res(sh->stats, res, r, i, sh->capture ? r->raw : NULL);
    bool ok = script_response(sh->script, c->id, failed, sh->script_error, sh->script_error_len) == 0;
    /* raw is a read or capture buffer, reused by the next read: a res the
     * script kept must not reach it (the bridge raises on a stale res). */
    res->live = 0;
    res->raw = NULL;
    res->raw_len = 0;
    return ok;
}

static void keep_sample(struct conn *c, const struct conn_response *r, int64_t latency, int64_t connect,
                        int64_t waiting)
{
    struct conn_shared *sh = c->sh;
    struct stats_sample s = {
        .start = (double)(r->t_start + sh->epoch_offset_ns) / 1e9,
        .connect = connect / 1000,
        .total = latency / 1000,
        .waiting = waiting / 1000,
        .body = r->body_len,
        .status = r->status,
        .keepalive = r->keepalive && sh->keepalive,
        .head_off = r->head_off,
        .head_len = r->head_len,
    };
    stats_add_sample(sh->stats, &s);
}

/* ab's progress line, counted over every worker. */
static void heartbeat(struct conn_shared *sh)
{
    uint64_t n = atomic_fetch_add(sh->completed_all, 1) + 1;
    if (n % sh->heartbeat == 0)
        fprintf(stderr, "Completed %" PRIu64 " request%s\n", n, n == 1 ? "" : "s");
}

bool conn_completed(struct conn *c, const struct conn_response *r, int64_t now)
{
    struct conn_shared *sh = c->sh;
    int64_t latency = now - (sh->sched ? r->t_intended : r->t_start);
    /* The connection's first response carries its connect time. A sample's
     * connect time runs until the request could be written, TLS handshake
     * included, as ab counts it; the connect histogram is TCP's. */
    int64_t connect = c->t_connect, setup = connect ? connect + c->t_handshake : 0;
    c->t_connect = c->t_handshake = 0; /* the later responses came on the same connection */
    conn_release_rest(sh);
    const struct conn_stream *st = r->stream && r->stream->on ? r->stream : NULL;
    struct res_info info = {latency, connect, r->waiting, st ? st->events : 0};
    bool failed = false, hook_ok = true;
    if (r->too_large || (st && st->verdict == STREAM_TOO_LARGE)) {
        sh->too_large += r->too_large; /* an event's: stats.stream.too_large, counted as it came */
        failed = true;
        if (sh->flow)
            conn_flow_failed(c, r->item, STATS_ERR_VALIDATION);
    } else if (st && st->verdict == STREAM_FAILED) {
        failed = true; /* the event() hook or stream function failed it, its reason counted then */
        if (sh->flow) {
            conn_flow_failed(c, r->item, STATS_ERR_VALIDATION);
            conn_flow_res(c, r->item)->events = (double)st->events;
        }
    } else if (sh->flow) {
        hook_ok = flow_response(c, r, &info, &failed);
    } else if (sh->script_response) {
        hook_ok = check_response(c, r, &info, &failed);
    }
    stats_answered(sh->stats, now, r->t_start, sh->sched ? r->t_intended : r->t_start, r->answered);
    if (failed) {
        sh->stats->errors[STATS_ERR_VALIDATION]++;
        stats_status(sh->stats, r->status); /* the server did answer it */
        stats_name_rejected(sh->stats, r->name, true, r->status, r->too_large);
    } else {
        if (st)
            conn_stream_record(st, &sh->stats->stream, now);
        stats_complete(sh->stats, now, r->status, latency, connect, r->waiting);
        stats_name_complete(sh->stats, r->name, now, r->status, latency);
        if (sh->sched) {
            int64_t sent = r->t_sent ? r->t_sent : r->t_start;
            /* Taken only once due, sent after: the schedule never runs ahead. */
            assert(sent >= r->t_intended && now >= sent);
            stats_open(sh->stats, now, now - sent, sent - r->t_intended);
            stats_name_open(sh->stats, r->name, now - sent);
        }
    }
    if (r->sample && sh->samples)
        keep_sample(c, r, latency, setup, r->waiting);
    if (r->shown)
        errsamples_keep(&sh->stats->shown, r->shown, now, r->status);
    if (sh->heartbeat)
        heartbeat(sh);
    c->pending--;
    sh->in_flight--;
    sh->conn_done[c->id]++;
    stats_slot_done(sh->stats, c->id, now);
    return hook_ok;
}
