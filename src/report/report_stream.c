/* Streamed responses' part of the reports (stats_stream.h): the text
 * report's "Streams" block and the JSON's "stream" member, from the merged
 * stats; nothing (null in the JSON) for a run that saw no stream. */
#include "json_out.h"
#include "report_internal.h"

#include <inttypes.h>

/* A count's line in report_hist_line's layout (events per stream). */
static void count_line(FILE *out, const char *name, const struct hist *h)
{
    static const double ps[] = {50, 90, 99, 99.9};
    fprintf(out, "  %-9s", name);
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        fprintf(out, " p%g %" PRId64 " ", ps[i], hist_percentile(h, ps[i]));
    fprintf(out, " max %" PRId64 " ", h->count ? h->max : 0);
    fprintf(out, " mean %.2f ", hist_mean(h));
    fprintf(out, " stdev %.2f\n", hist_stdev(h));
}

/* A histogram's line when it holds values (an -R twin has none else). */
static void line(FILE *out, const char *name, const struct hist *h)
{
    if (h->count)
        report_hist_line(out, name, h);
}

static double per_sec(uint64_t n, const struct run_result *r)
{
    double secs = (double)r->duration_ns / 1e9;
    return secs > 0 ? (double)n / secs : 0.0;
}

void report_stream_text(FILE *out, const struct run_result *r)
{
    const struct stats_stream *s = &r->stats.stream;
    if (!stats_stream_any(s))
        return;
    fprintf(out,
            "  Streams: %" PRIu64 " completed (%" PRIu64 " closed early by the client, %" PRIu64
            " with no event), %" PRIu64 " events (%.2f/s), at most %" PRIu64 " open at once\n",
            s->streams, s->closed, s->no_event, s->events, per_sec(s->events, r), s->peak);
    line(out, "First evt", &s->first);
    line(out, "Svc first", &s->first_service);
    line(out, "Event gap", &s->gap);
    if (s->count.count)
        count_line(out, "Events", &s->count);
    line(out, "Stream", &s->duration);
    if (!s->token_streams)
        return;
    fprintf(out,
            "  Tokens: %" PRIu64 " out (%.2f/s), %" PRIu64 " in, of %" PRIu64 " streams (%" PRIu64
            " counted by the server)\n",
            s->tokens_out, per_sec(s->tokens_out, r), s->tokens_in, s->token_streams, s->usage_streams);
    line(out, "TTFT", &s->ttft);
    line(out, "Svc TTFT", &s->ttft_service);
    line(out, "ITL", &s->itl);
    line(out, "TPOT", &s->tpot);
    line(out, "E2EL", &s->e2el);
    line(out, "Svc E2EL", &s->e2el_service);
}

/* ", \"name\": {...}": a histogram in us (scale 1e3) or a count (1). */
static void hist_member(FILE *out, const char *name, const struct hist *h, double scale)
{
    fprintf(out, ",\n    \"%s\": ", name);
    report_json_hist_scaled(out, h, scale);
}

void report_stream_json(FILE *out, const struct run_result *r)
{
    const struct stats_stream *s = &r->stats.stream;
    if (!stats_stream_any(s)) {
        fputs("  \"stream\": null,\n", out);
        return;
    }
    fprintf(out,
            "  \"stream\": {\"streams\": %" PRIu64 ", \"events\": %" PRIu64 ", \"closed\": %" PRIu64
            ", \"no_event\": %" PRIu64 ", \"too_large\": %" PRIu64 ", \"token_streams\": %" PRIu64
            ", \"usage_streams\": %" PRIu64 ", \"tokens_out\": %" PRIu64 ", \"tokens_in\": %" PRIu64
            ", \"peak\": %" PRIu64 ", \"events_per_sec\": ",
            s->streams, s->events, s->closed, s->no_event, s->too_large, s->token_streams, s->usage_streams,
            s->tokens_out, s->tokens_in, s->peak);
    json_out_num(out, per_sec(s->events, r), 3);
    fputs(", \"tokens_per_sec\": ", out);
    json_out_num(out, per_sec(s->tokens_out, r), 3);
    /* -R's twins are measured with -R's requests only (stats.open), as
     * "service" is */
    bool open = r->stats.open;
    hist_member(out, "first_event", &s->first, 1e3);
    if (open)
        hist_member(out, "service_first_event", &s->first_service, 1e3);
    hist_member(out, "event_gap", &s->gap, 1e3);
    hist_member(out, "events_per_stream", &s->count, 1);
    hist_member(out, "duration", &s->duration, 1e3);
    hist_member(out, "ttft", &s->ttft, 1e3);
    if (open)
        hist_member(out, "service_ttft", &s->ttft_service, 1e3);
    hist_member(out, "itl", &s->itl, 1e3);
    hist_member(out, "tpot", &s->tpot, 1e3);
    hist_member(out, "e2el", &s->e2el, 1e3);
    if (open)
        hist_member(out, "service_e2el", &s->e2el_service, 1e3);
    fputs("},\n", out);
}
