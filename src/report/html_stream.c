/* The HTML report's section of streamed responses (the result's "stream"
 * object, report_stream.c): the counts, a table of the stream histograms
 * (events per stream as a count, the others as times) and their
 * distributions by percentile; nothing for a run without streams. The
 * streams' charts over time are html_series.c's. */
#include "html.h"
#include "html_internal.h"

#include <math.h>
#include <stdio.h>

/* The histograms, in the text report's order. */
static const struct {
    const char *key, *label;
    bool count; /* events per stream: a count, not us */
} HISTS[] = {
    {"first_event", "first event", false},   {"service_first_event", "first event (service)", false},
    {"event_gap", "event gap", false},       {"events_per_stream", "events per stream", true},
    {"duration", "stream duration", false},  {"ttft", "TTFT", false},
    {"service_ttft", "TTFT (service)", false}, {"itl", "ITL", false},
    {"tpot", "TPOT", false},                 {"e2el", "E2EL", false},
    {"service_e2el", "E2EL (service)", false},
};
#define NHISTS (sizeof HISTS / sizeof HISTS[0])

static void kv(FILE *out, struct html_rd *rd, const struct json *s, const char *label, const char *key, int dec)
{
    fprintf(out, "<tr><th>%s</th><td><span id=\"stream-%s\">", label, key);
    html_num(out, html_rd_num(rd, s, "stream", key, false), dec);
    fprintf(out, "</span></td></tr>\n");
}

static void counts(FILE *out, struct html_rd *rd, const struct json *s)
{
    fprintf(out, "<h2>Streams</h2>\n<table class=\"kv\" id=\"stream\">\n");
    kv(out, rd, s, "Completed", "streams", 0);
    kv(out, rd, s, "Closed early by the client", "closed", 0);
    kv(out, rd, s, "With no event", "no_event", 0);
    kv(out, rd, s, "Failed: an event larger than --max-body", "too_large", 0);
    kv(out, rd, s, "Events", "events", 0);
    kv(out, rd, s, "Events per second", "events_per_sec", 3);
    kv(out, rd, s, "Most open at once", "peak", 0);
    if (html_rd_num(rd, s, "stream", "token_streams", false) > 0) {
        kv(out, rd, s, "Streams with tokens", "token_streams", 0);
        kv(out, rd, s, "Of them counted by the server", "usage_streams", 0);
        kv(out, rd, s, "Output tokens", "tokens_out", 0);
        kv(out, rd, s, "Output tokens per second", "tokens_per_sec", 3);
        kv(out, rd, s, "Input tokens", "tokens_in", 0);
    }
    fprintf(out, "</table>\n");
}

static void table(FILE *out, struct html_rd *rd, const struct json *s)
{
    static const char *const keys[] = {"p50", "p90", "p99", "p99.9", "max", "mean", "stdev"};
    fprintf(out, "<table id=\"stream-histograms\"><tr><th></th><th class=\"n\">count</th>");
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        fprintf(out, "<th class=\"n\">%s</th>", keys[k]);
    fprintf(out, "</tr>\n");
    for (size_t i = 0; i < NHISTS && !rd->failed; i++) {
        char at[64];
        snprintf(at, sizeof at, "stream.%s", HISTS[i].key);
        const struct json *h = html_rd_of(rd, s, "stream", HISTS[i].key, JSON_OBJECT, false);
        double count = h ? html_rd_num(rd, h, at, "count", true) : NAN;
        if (!(count > 0))
            continue;
        fprintf(out, "<tr><th>%s</th><td class=\"n\">", HISTS[i].label);
        html_num(out, count, 0);
        fprintf(out, "</td>");
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            double v = html_rd_num(rd, h, at, keys[k], false);
            fprintf(out, "<td class=\"n\">");
            if (HISTS[i].count)
                html_num(out, v, 2);
            else
                html_us(out, v);
            fprintf(out, "</td>");
        }
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</table>\n");
}

/* The times' distributions that have values: first event, gap, TTFT, ITL,
 * E2EL. */
static void distributions(FILE *out, struct html_rd *rd, const struct json *s)
{
    static const struct {
        const char *key, *label;
    } which[] = {{"first_event", "first event"}, {"event_gap", "event gap"}, {"ttft", "TTFT"}, {"itl", "ITL"},
                 {"e2el", "E2EL"}};
    enum { N = sizeof which / sizeof which[0] };
    struct hist h[N];
    struct html_dist d[N];
    size_t nd = 0;
    for (size_t k = 0; k < N && !rd->failed; k++) {
        char at[64];
        snprintf(at, sizeof at, "stream.%s", which[k].key);
        const struct json *obj = html_rd_of(rd, s, "stream", which[k].key, JSON_OBJECT, false);
        if (!obj || !(html_rd_num(rd, obj, at, "count", false) > 0) || !html_rd_hist(rd, obj, at, &h[nd]))
            continue;
        double max = html_rd_num(rd, obj, at, "max", false); /* us: the exact max */
        d[nd] = (struct html_dist){which[k].label, &h[nd], isnan(max) ? INFINITY : max / 1e3, (int)k, false};
        nd++;
    }
    if (nd)
        html_dist_chart(out, "Streams by percentile", "stream-percentiles", d, nd);
    for (size_t k = 0; k < nd; k++)
        hist_free(&h[k]);
}

void html_stream(FILE *out, struct html_rd *rd, const struct json *r)
{
    const struct json *s = html_rd_of(rd, r, "", "stream", JSON_OBJECT, false);
    if (rd->failed || !s)
        return;
    counts(out, rd, s);
    table(out, rd, s);
    distributions(out, rd, s);
}
