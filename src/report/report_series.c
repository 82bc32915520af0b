/* The JSON's "series": the run's per-second points (series.h), each with
 * its counts and its latency percentiles, and its latencies encoded
 * (HdrHistogram V2) so that longer intervals can be made exactly by
 * merging. */
#include "report_internal.h"

#include "json_out.h"
#include "stats.h"

#include <inttypes.h>
#include <stdlib.h>

/* ", \"key\": " and ns in us. */
static void us(FILE *out, const char *key, int64_t ns)
{
    fprintf(out, ", \"%s\": ", key);
    json_out_num(out, (double)ns / 1e3, 3);
}

/* The streams' figures of a second: events, tokens and streams completed,
 * and the TTFT's p50 and p99 and the inter-token gaps' p99 (us). */
static void stream_json(FILE *out, const struct series_point *p)
{
    fprintf(out, ", \"events\": %" PRIu64 ", \"tokens\": %" PRIu64 ", \"streams\": %" PRIu64
                 ", \"ttft\": {\"count\": %" PRIu64,
            p->c.events, p->c.tokens, p->c.streams, p->ttft_count);
    if (p->ttft_count) {
        us(out, "p50", p->ttft_p50);
        us(out, "p99", p->ttft_p99);
    }
    fprintf(out, "}, \"itl\": {\"count\": %" PRIu64, p->itl_count);
    if (p->itl_count)
        us(out, "p99", p->itl_p99);
    fputc('}', out);
}

/* open: the send lag is measured (-R's requests; a flow's -R starts
 * iterations and has none). streams: the run saw streams. */
static void point_json(FILE *out, const struct options *o, bool open, bool streams, const struct series_point *p,
                       size_t t)
{
    fprintf(out, "    {\"t\": %zu, \"requests\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"status\": {", t,
            p->c.requests, p->c.bytes);
    for (int i = 0; i < SERIES_CLASSES; i++)
        fprintf(out, "%s\"%s\": %" PRIu64, i ? ", " : "", series_class_name(i), p->c.status[i]);
    fprintf(out, "}, \"errors\": {");
    for (int e = 0; e < SERIES_KINDS; e++)
        fprintf(out, "%s\"%s\": %" PRIu64, e ? ", " : "", stats_error_name(e), p->c.errors[e]);
    fprintf(out, "}");
    if (p->span_ns < SERIES_NS) { /* the run ended within this second: its counts are of this much */
        fprintf(out, ", \"span\": ");
        json_out_num(out, (double)p->span_ns / 1e9, 6);
    }
    if (o->stages) { /* what the curve asked for in the time the point covers, and what was achieved */
        const struct stages *st = o->stages;
        int64_t from = (int64_t)t * SERIES_NS, to = from + p->span_ns;
        fprintf(out, ", \"target\": ");
        if (o->rate) {
            json_out_num(out, stages_integral(st, to) - stages_integral(st, from), 3);
        } else {
            json_out_num(out, stages_value(st, from + p->span_ns / 2), 3);
            fprintf(out, ", \"connections\": ");
            /* the mean of its 100 ms samples: 10 in a whole second */
            json_out_num(out, (double)p->c.conn_samples / (10 * (double)p->span_ns / 1e9), 1);
        }
    }
    if (o->rate) {
        fprintf(out, ", \"sent\": %" PRIu64, p->c.sent);
    }
    if (open) {
        fprintf(out, ", \"sendlag\": {\"count\": %" PRIu64, p->sendlag_count);
        if (p->sendlag_count) {
            fprintf(out, ", \"p50\": ");
            json_out_num(out, (double)p->sendlag_p50 / 1e3, 3);
            fprintf(out, ", \"p99\": ");
            json_out_num(out, (double)p->sendlag_p99 / 1e3, 3);
        }
        fprintf(out, "}");
    }
    if (streams)
        stream_json(out, p);
    fprintf(out, ", \"latency\": {\"count\": %" PRIu64, p->latency_count);
    if (p->latency_count) {
        fprintf(out, ", \"p50\": ");
        json_out_num(out, (double)p->p50 / 1e3, 3);
        fprintf(out, ", \"p90\": ");
        json_out_num(out, (double)p->p90 / 1e3, 3);
        fprintf(out, ", \"p99\": ");
        json_out_num(out, (double)p->p99 / 1e3, 3);
        fprintf(out, ", \"max\": ");
        json_out_num(out, (double)p->max / 1e3, 3);
        fprintf(out, ", \"hdr\": ");
        json_out_str(out, p->hist ? p->hist : "");
    }
    fprintf(out, "}}");
}

void report_series_json(FILE *out, const struct options *o, const struct run_result *r)
{
    const struct series *s = &r->series;
    fprintf(out, "  \"series\": {\"interval\": 1, ");
    if (o->rate) {
        fputs("\"target_rate\": ", out);
        report_shard_json_rate(out, o, r);
        fputs(", ", out);
    }
    fprintf(out, "\"points\": [");
    char *hist = NULL; /* each point's text, read back into one buffer */
    size_t cap = 0;
    for (size_t i = 0; i < s->npoints; i++) {
        struct series_point p;
        series_point_get(s, i, &p, &hist, &cap); /* a point that cannot be read is empty (said) */
        fprintf(out, "%s\n", i ? "," : "");
        point_json(out, o, r->stats.open, stats_stream_any(&r->stats.stream), &p, i);
    }
    free(hist);
    fprintf(out, "%s]},\n", s->npoints ? "\n  " : "");
}
