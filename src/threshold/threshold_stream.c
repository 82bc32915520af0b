/* Streamed responses' figures in the threshold grammar (stats_stream.h):
 * the histograms first_event, service.first_event, event_gap,
 * stream_events (a count), stream (duration), ttft, service.ttft, itl,
 * tpot, e2el, service.e2el with a histogram's STAT, and the counts events,
 * tokens (output tokens) and streams; their names and values. threshold.c
 * calls the parser for figures it does not know itself; threshold_eval.c
 * reads the figure through threshold_stream_figure. */
#include "threshold_internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* The histograms, by th->stream (an index into this table). */
static const struct {
    const char *name;
    size_t off;     /* of the struct hist in struct stats_stream */
    bool count;     /* its values are counts, not ns */
    bool open_only; /* -R's twin (measured with -R only, as service is) */
} hists[] = {
#define H(name, field, count, open) {name, offsetof(struct stats_stream, field), count, open}
    H("first_event", first, false, false), H("service.first_event", first_service, false, true),
    H("event_gap", gap, false, false),     H("stream_events", count, true, false),
    H("stream", duration, false, false),   H("ttft", ttft, false, false),
    H("service.ttft", ttft_service, false, true), H("itl", itl, false, false),
    H("tpot", tpot, false, false),         H("e2el", e2el, false, false),
    H("service.e2el", e2el_service, false, true),
#undef H
};
#define NHISTS (sizeof hists / sizeof hists[0])

/* The counts, by th->stream - NHISTS. */
static const char *const counts[] = {"events", "tokens", "streams"};

int threshold_stream_parse(struct threshold *th, const char *fig, const char *shown, bool open_model, char *why,
                           size_t len)
{
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        if (strcmp(fig, counts[i]) != 0)
            continue;
        if (th->request_name)
            return threshold_say(why, len, "%s: stream figures are not kept per request name", shown);
        th->source = THRESHOLD_STREAM;
        th->stream = (int)(NHISTS + i);
        th->stat = THRESHOLD_TOTAL;
        th->kind = THRESHOLD_NUM;
        return 0;
    }
    /* the longest name first: "service.ttft" before "service" (threshold.c's) */
    for (size_t i = 0; i < NHISTS; i++) {
        if (!threshold_family(fig, hists[i].name))
            continue;
        if (th->request_name)
            return threshold_say(why, len, "%s: stream figures are not kept per request name", shown);
        if (threshold_hist_stat(th, fig + strlen(hists[i].name), shown, hists[i].name, why, len) < 0)
            return -1;
        if (hists[i].open_only && !open_model)
            return threshold_say(why, len, "%s: service times are kept only with -R (the open model)", shown);
        th->source = THRESHOLD_STREAM;
        th->stream = (int)i;
        if (hists[i].count)
            th->kind = THRESHOLD_NUM;
        return 0;
    }
    return 1;
}

bool threshold_stream_is_hist(const struct threshold *th)
{
    return th->source == THRESHOLD_STREAM && th->stream < (int)NHISTS;
}

const char *threshold_stream_name(const struct threshold *th)
{
    return threshold_stream_is_hist(th) ? hists[th->stream].name : counts[th->stream - (int)NHISTS];
}

double threshold_stream_figure(const struct threshold *th, const struct stats_stream *s,
                               double (*hist_figure)(const struct threshold *, const struct hist *))
{
    if (!stats_stream_any(s)) /* no stream: no data, not zeros */
        return NAN;
    if (threshold_stream_is_hist(th))
        return hist_figure(th, (const struct hist *)((const char *)s + hists[th->stream].off));
    switch (th->stream - (int)NHISTS) {
    case 0:
        return (double)s->events;
    case 1:
        return (double)s->tokens_out;
    default:
        return (double)s->streams;
    }
}
