/* A saved result's "stream" member (report_stream.c) back into a struct
 * stats_stream: its counters, and its histograms decoded exactly, so that
 * `volley report` renders the Streams block again and `volley merge` adds
 * shards' streams exactly. The file is untrusted: counts that cannot be a
 * run's are refused, naming the field. */
#include "result_load_internal.h"

#include <inttypes.h>

/* A histogram's count against the counter it must equal (or not exceed). */
static void check_count(struct html_rd *rd, const char *key, const struct hist *h, uint64_t want, bool exact)
{
    if (rd->failed)
        return;
    uint64_t n = (uint64_t)h->count;
    if (exact ? n != want : n > want)
        html_rd_fail(rd, "stream", key, "its histogram holds %" PRIu64 " values, %s %" PRIu64, n,
                     exact ? "but its count is" : "more than", want);
}

void result_load_stream(struct html_rd *rd, const struct json *root, struct stats_stream *st)
{
    const struct json *obj = html_rd_of(rd, root, "", "stream", JSON_OBJECT, false);
    if (!obj)
        return;
    static const struct {
        const char *key;
        size_t off;
    } counters[] = {
#define C(f) {#f, offsetof(struct stats_stream, f)}
        C(streams), C(events), C(closed), C(no_event), C(too_large), C(token_streams), C(usage_streams),
        C(tokens_out), C(tokens_in), C(peak),
#undef C
    };
    for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++)
        *(uint64_t *)((char *)st + counters[i].off) += (uint64_t)html_rd_count(rd, obj, "stream", counters[i].key);
    const struct {
        const char *key;
        struct hist *h;
        double scale;
    } hists[] = {
        {"first_event", &st->first, 1e3},  {"service_first_event", &st->first_service, 1e3},
        {"event_gap", &st->gap, 1e3},      {"events_per_stream", &st->count, 1},
        {"duration", &st->duration, 1e3},  {"ttft", &st->ttft, 1e3},
        {"service_ttft", &st->ttft_service, 1e3}, {"itl", &st->itl, 1e3},
        {"tpot", &st->tpot, 1e3},          {"e2el", &st->e2el, 1e3},
        {"service_e2el", &st->e2el_service, 1e3},
    };
    for (size_t i = 0; i < sizeof hists / sizeof hists[0] && !rd->failed; i++)
        result_load_hist(rd, obj, "stream", hists[i].key, false, hists[i].scale, hists[i].h);
    /* what stats_stream_end records per completed stream */
    if (!rd->failed && (st->closed > st->streams || st->no_event > st->streams || st->token_streams > st->streams ||
                        st->usage_streams > st->token_streams))
        html_rd_fail(rd, "stream", "streams", "fewer than its closed, no_event or token_streams: not a real result");
    check_count(rd, "events_per_stream", &st->count, st->streams, true);
    check_count(rd, "first_event", &st->first, st->streams - st->no_event, true);
    check_count(rd, "duration", &st->duration, st->streams - st->no_event, true);
    check_count(rd, "ttft", &st->ttft, st->token_streams, true);
    check_count(rd, "e2el", &st->e2el, st->token_streams, true);
    check_count(rd, "tpot", &st->tpot, st->token_streams, false);
    check_count(rd, "event_gap", &st->gap, st->events, false);
}
