/* What the report's files share (report_common.h): a histogram's text
 * line, the JSON's shapes of a histogram, statuses, failures and reasons,
 * and -R's criterion. */
#include "report_common.h"

#include "fmt.h"
#include "hdr_codec.h"
#include "json_out.h"
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>

/* -R is missed when fewer than this share of the scheduled rate was sent. */
#define RATE_MET_SHARE 0.99

/* How many reasons of validation failures the JSON lists (the text report
 * lists fewer, report.c); the rest are summed in its "other". */
#define JSON_REASONS 20

void report_clamped_note(FILE *out, int64_t clamped, const char *top)
{
    if (clamped)
        fprintf(out, "    (%" PRId64 " value%s above %s recorded as %s)\n", clamped, clamped == 1 ? "" : "s", top,
                top);
}

void report_hist_line(FILE *out, const char *name, const struct hist *h)
{
    static const double ps[] = {50, 90, 99, 99.9};
    char b[32];
    fprintf(out, "  %-9s", name);
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        fprintf(out, " p%g %s ", ps[i], fmt_time(b, sizeof b, (double)hist_percentile(h, ps[i])));
    fprintf(out, " max %s ", fmt_time(b, sizeof b, (double)(h->count ? h->max : 0)));
    fprintf(out, " mean %s ", fmt_time(b, sizeof b, hist_mean(h)));
    fprintf(out, " stdev %s\n", fmt_time(b, sizeof b, hist_stdev(h)));
    report_clamped_note(out, h->clamped, fmt_time(b, sizeof b, (double)h->highest));
}

/* ", \"key\": " and a histogram's figure v divided by scale (ns into us:
 * 1e3; a count: 1); null when the histogram is empty: a 0 there would
 * read as a fast response. */
static void hist_figure(FILE *out, const char *key, const struct hist *h, double v, double scale)
{
    fprintf(out, ", \"%s\": ", key);
    if (h->count)
        json_out_num(out, v / scale, 3);
    else
        fputs("null", out);
}

void report_json_exact_sums(FILE *out, const struct hist *h)
{
    fputs(", \"sum\": ", out);
    json_out_u128(out, (unsigned __int128)h->sum);
    fputs(", \"sum_sq\": ", out);
    json_out_u128(out, h->sum_sq);
}

void report_json_hist(FILE *out, const char *name, const struct hist *h, int last)
{
    fprintf(out, "  \"%s\": ", name);
    report_json_hist_obj(out, h);
    fprintf(out, "%s\n", last ? "" : ",");
}

void report_json_hist_obj(FILE *out, const struct hist *h)
{
    report_json_hist_scaled(out, h, 1e3);
}

void report_json_hist_scaled(FILE *out, const struct hist *h, double scale)
{
    static const struct { const char *key; double p; } ps[] = {
        {"p50", 50}, {"p75", 75}, {"p90", 90}, {"p99", 99}, {"p99.9", 99.9}, {"p99.99", 99.99},
    };
    fprintf(out, "{\"count\": %" PRId64, h->count);
    hist_figure(out, "min", h, (double)h->min, scale);
    hist_figure(out, "max", h, (double)h->max, scale);
    hist_figure(out, "mean", h, hist_mean(h), scale);
    hist_figure(out, "stdev", h, hist_stdev(h), scale);
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        hist_figure(out, ps[i].key, h, (double)hist_percentile(h, ps[i].p), scale);
    fprintf(out, ", \"clamped\": %" PRId64, h->clamped);
    report_json_exact_sums(out, h);
    fputs(", \"hdr\": ", out);
    char *hdr = hdr_encode(h, NULL);
    json_out_str(out, hdr);
    fputc('}', out);
    free(hdr);
}

void report_json_status(FILE *out, const uint64_t *status)
{
    fputc('{', out);
    int first = 1;
    for (int i = 0; i < STATS_STATUS_MAX; i++) {
        if (!status[i])
            continue;
        fprintf(out, "%s\"%s%.0d\": %" PRIu64, first ? "" : ", ", i ? "" : "other", i, status[i]);
        first = 0;
    }
    fputc('}', out);
}

void report_json_errors(FILE *out, const uint64_t *errors)
{
    fputc('{', out);
    for (int e = 0; e < STATS_ERR_KINDS; e++)
        fprintf(out, "%s\"%s\": %" PRIu64, e ? ", " : "", stats_error_name(e), errors[e]);
    fputc('}', out);
}

void report_json_reasons(FILE *out, const struct stats_reason *reasons, size_t n, size_t more, uint64_t more_count)
{
    fputs("{\"reasons\": [", out);
    uint64_t rest = 0;
    for (size_t i = 0; i < n; i++) {
        if (i >= JSON_REASONS) {
            rest += reasons[i].count;
            continue;
        }
        fprintf(out, "%s{\"reason\": ", i ? ", " : "");
        json_out_str(out, reasons[i].reason);
        fprintf(out, ", \"count\": %" PRIu64 "}", reasons[i].count);
    }
    fprintf(out, "], \"other_reasons\": %zu, \"other\": %" PRIu64 "}",
            (n > JSON_REASONS ? n - JSON_REASONS : 0) + more, rest + more_count);
}

double report_sent_rate(const struct options *o, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    if (!o->rate || s->arrivals == 0 || r->sent_span_ns <= 0)
        return 0;
    return (double)s->arrivals * 1e9 / (double)r->sent_span_ns;
}

double report_drawn_rate(const struct options *o, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    if (!o->rate || !arrivals_random(o->arrivals) || r->due_span_ns <= 0)
        return 0;
    return (double)(s->arrivals + s->unsent) * 1e9 / (double)r->due_span_ns;
}

bool report_rate_met(const struct options *o, const struct run_result *r, double sent)
{
    const struct stats *s = &r->stats;
    if (o->stages) /* a curve has no one rate: what it asked for by the end went out */
        return (double)s->arrivals >= RATE_MET_SHARE * (double)(s->arrivals + s->unsent);
    double drawn = report_drawn_rate(o, r);
    if (drawn > 0) /* a random process's rate is -R's on average only: its own draw is the target */
        return sent >= RATE_MET_SHARE * drawn;
    return sent >= RATE_MET_SHARE * report_target_rate(o, r);
}
