/* Text and JSON reports. Every figure is computed from the merged stats;
 * docs/output.md says how each one is defined. */
#include "report.h"

#include "fmt.h"
#include "hdr_codec.h"
#include "html.h"
#include "json_out.h"
#include "net.h"
#include "quote.h"
#include "report_internal.h"
#include "targets.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* -R is missed when fewer than this share of the scheduled rate was sent. */
#define RATE_MET_SHARE 0.99

/* Under a histogram's line, when values were above its top: how many, and
 * that they count as the top (in the max, the mean and the percentiles). */
static void clamped_note(FILE *out, int64_t clamped, const char *top)
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
    clamped_note(out, h->clamped, fmt_time(b, sizeof b, (double)h->highest));
}

/* How many reasons of validation failures each report lists; the rest are
 * summed in one line. Reasons, like metric names, the URL and script errors,
 * are untrusted text (often the server's): the text report writes them
 * through quote.h, so that no byte of theirs reaches the terminal as a
 * control character. */
#define TEXT_REASONS 5
#define JSON_REASONS 20

static void reasons_text(FILE *out, const struct stats *s)
{
    uint64_t rest = 0;
    size_t more = 0;
    for (size_t i = 0; i < s->nreasons; i++) {
        if (i < TEXT_REASONS) {
            fputs("    validation: ", out);
            quote_write(out, s->reasons[i].reason);
            fprintf(out, " (%" PRIu64 ")\n", s->reasons[i].count);
        } else {
            rest += s->reasons[i].count;
            more++;
        }
    }
    more += s->reasons_more; /* a saved result's reasons past the ones it lists */
    rest += s->reasons_more_count;
    if (more)
        fprintf(out, "    validation: %zu other reason%s (%" PRIu64 ")\n", more, more == 1 ? "" : "s", rest);
}

static void metrics_text(FILE *out, const struct metrics *ms)
{
    if (!ms->n)
        return;
    fprintf(out, "  Metrics\n");
    if (ms->clashes)
        fprintf(out, "    (%zu thread%s values dropped: a name was a counter in one thread and a record in another)\n",
                ms->clashes, ms->clashes == 1 ? "'s" : "s'");
    for (size_t i = 0; i < ms->n; i++) {
        const struct metric *m = &ms->m[i];
        char name[256]; /* escaped, and cut with "..." past it (the JSON has the whole name) */
        quote_printable(name, sizeof name, m->name);
        if (m->kind == METRIC_COUNTER) {
            fprintf(out, "    %-20s %.15g\n", name, m->total);
            continue;
        }
        const struct hist *h = &m->values;
        fprintf(out, "    %-20s count %" PRId64 "  min %.6g  p50 %.6g  p90 %.6g  p99 %.6g  max %.6g  mean %.6g\n",
                name, h->count, metrics_value(h->count ? h->min : 0), metrics_percentile(h, 50),
                metrics_percentile(h, 90), metrics_percentile(h, 99),
                metrics_value(h->count ? h->max : 0), hist_mean(h) / METRIC_SCALE);
        char top[32];
        snprintf(top, sizeof top, "%.6g", metrics_value(h->highest));
        clamped_note(out, h->clamped, top);
    }
}

/* A requested duration as the user would write it: "10s", "500ms", "2m". */
static const char *fmt_duration(char *buf, size_t len, int64_t ns)
{
    if (ns % INT64_C(3600000000000) == 0)
        snprintf(buf, len, "%" PRId64 "h", ns / INT64_C(3600000000000));
    else if (ns % INT64_C(60000000000) == 0)
        snprintf(buf, len, "%" PRId64 "m", ns / INT64_C(60000000000));
    else if (ns % 1000000000 == 0)
        snprintf(buf, len, "%" PRId64 "s", ns / 1000000000);
    else if (ns % 1000000 == 0)
        snprintf(buf, len, "%" PRId64 "ms", ns / 1000000);
    else
        snprintf(buf, len, "%.6fs", (double)ns / 1e9);
    return buf;
}

/* --stages: ", stages from S: D to N, D to N" (unit after each value). */
static void stages_text(FILE *out, const struct options *o, const char *unit)
{
    const struct stages *st = o->stages;
    if (!st)
        return;
    char d[32];
    fprintf(out, ", %sstages from %.0f%s:", o->rate ? "" : "connections in ", st->start, unit);
    for (size_t i = 0; i < st->n; i++)
        fprintf(out, "%s %s to %.0f%s", i ? "," : "", fmt_duration(d, sizeof d, st->s[i].dur_ns), st->s[i].target,
                unit);
}

void report_header(FILE *out, const struct options *o, const struct target *t, const struct run_result *r)
{
    char d[32];
    /* -n's requests, or a flow's --iterations */
    uint64_t bound = o->requests ? o->requests : o->iterations;
    const char *unit = o->requests ? "request" : "iteration";
    if (bound && o->duration_ns)
        fprintf(out, "Running %" PRIu64 " %s%s (at most %s) @ ", bound, unit, bound == 1 ? "" : "s",
                fmt_duration(d, sizeof d, o->duration_ns));
    else if (bound)
        fprintf(out, "Running %" PRIu64 " %s%s @ ", bound, unit, bound == 1 ? "" : "s");
    else
        fprintf(out, "Running %s test @ ", fmt_duration(d, sizeof d, o->duration_ns));
    quote_write(out, t->url); /* its #fragment may hold anything but NUL */
    if (o->targets_path) {
        fprintf(out, " (%u target%s from ", o->ntargets, o->ntargets == 1 ? "" : "s");
        quote_write(out, targets_name(o->targets_path));
        fprintf(out, ", %s)", o->targets_order == OPTIONS_RANDOM ? "random order" : "round robin");
    }
    fputc('\n', out);
    uint32_t conns = report_connections(o, r);
    fprintf(out, "  %u thread%s and %u connection%s, %s, ", o->threads, o->threads == 1 ? "" : "s", conns,
            conns == 1 ? "" : "s", o->keepalive ? "keep-alive" : "a new connection per request");
    if (o->rate) {
        fprintf(out, "open model at %" PRIu64 " requests/s%s", o->rate, o->stages ? " at most" : "");
        stages_text(out, o, "/s");
        if (o->spin_ns % 1000 == 0 && o->spin_ns)
            fprintf(out, ", spin %" PRId64 "us", o->spin_ns / 1000);
        else if (o->spin_ns)
            fprintf(out, ", spin %.3fus", (double)o->spin_ns / 1e3);
        fputc('\n', out);
    } else {
        fprintf(out, "closed loop");
        stages_text(out, o, "");
        fputc('\n', out);
    }
    report_shard_header(out, o, r);
    report_tls_header(out, t, r);
    report_h2_header(out, o);
}

double report_sent_rate(const struct options *o, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    if (!o->rate || s->arrivals == 0 || r->sent_span_ns <= 0)
        return 0;
    return (double)s->arrivals * 1e9 / (double)r->sent_span_ns;
}

/* -R: whether the rate sent reached the target (the report's, the JSON's
 * and the exit status's one criterion). */
static bool rate_met(const struct options *o, const struct run_result *r, double sent)
{
    const struct stats *s = &r->stats;
    if (o->stages) /* a curve has no one rate: what it asked for by the end went out */
        return (double)s->arrivals >= RATE_MET_SHARE * (double)(s->arrivals + s->unsent);
    return sent >= RATE_MET_SHARE * report_target_rate(o, r);
}

bool report_rate_missed(FILE *err, const struct options *o, const struct run_result *r)
{
    if (!o->rate || r->interrupted || r->unreachable || r->script_error[0])
        return false;
    double sent = report_sent_rate(o, r);
    if (rate_met(o, r, sent))
        return false;
    if (o->stages) {
        fprintf(err, "volley: --stages: target rate not met: %" PRIu64 " of %" PRIu64 " arrivals never sent\n",
                r->stats.unsent, r->stats.arrivals + r->stats.unsent);
        return true;
    }
    if (o->shard.count > 1 && !r->merged)
        fprintf(err, "volley: -R %" PRIu64 " (--shard %u/%u: %.2f/s of it): target rate not met: %.2f requests/s sent, %" PRIu64 " never sent\n",
                o->rate, o->shard.index, o->shard.count, report_target_rate(o, r), sent, r->stats.unsent);
    else
        fprintf(err, "volley: -R %" PRIu64 ": target rate not met: %.2f requests/s sent, %" PRIu64 " never sent\n",
                o->rate, sent, r->stats.unsent);
    return true;
}

/* A target rate as the report prints it: whole (as -R gives it) unless a
 * shard's part has a fraction. */
static char *fmt_rate(char *buf, size_t len, double rate)
{
    if (rate == floor(rate))
        snprintf(buf, len, "%.0f", rate);
    else
        snprintf(buf, len, "%.2f", rate);
    return buf;
}

/* -R: what was scheduled against what was sent, said plainly when short. */
static void rate_text(FILE *out, const struct options *o, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    double sent = report_sent_rate(o, r);
    char rt[32];
    if (o->stages)
        fprintf(out, "  Rate: %" PRIu64 " scheduled by the stages, %.2f/s sent on average; %" PRIu64 " sent, %" PRIu64
                     " never sent\n",
                s->arrivals + s->unsent, sent, s->arrivals, s->unsent);
    else
        fprintf(out, "  Rate: %s/s scheduled, %.2f/s sent; %" PRIu64 " sent, %" PRIu64 " never sent\n",
                fmt_rate(rt, sizeof rt, report_target_rate(o, r)), sent, s->arrivals, s->unsent);
    if (rate_met(o, r, sent))
        return;
    if (o->stages)
        fprintf(out, "  Target rate NOT met: %" PRIu64 " of %" PRIu64 " arrivals never sent (", s->unsent,
                s->arrivals + s->unsent);
    else
        fprintf(out, "  Target rate NOT met: %.2f/s of %s/s (", sent, fmt_rate(rt, sizeof rt, report_target_rate(o, r)));
    if (s->completed) { /* else no timing figures at all (report_text) */
        char p50[32], p99[32];
        fmt_time(p50, sizeof p50, (double)hist_percentile(&s->sendlag, 50));
        fmt_time(p99, sizeof p99, (double)hist_percentile(&s->sendlag, 99));
        fprintf(out, "send lag p50 %s, p99 %s; ", p50, p99);
    }
    fprintf(out, "more connections (-c) or a faster server are needed)\n");
}

/* -L: wrk's "Latency Distribution" block, in wrk's layout (the percentile
 * right-aligned in 7 columns, the time in wrk's units with two decimals,
 * right-aligned in 10 columns counting its unit as 2). */
static void latency_distribution(FILE *out, const struct hist *h)
{
    static const double ps[] = {50, 75, 90, 99};
    fprintf(out, "  Latency Distribution\n");
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        double v = (double)hist_percentile(h, ps[i]) / 1e3; /* us */
        const char *unit = "us";
        if (v >= 60e6) {
            v /= 60e6, unit = "m";
            if (v >= 60)
                v /= 60, unit = "h";
        } else if (v >= 1e6) {
            v /= 1e6, unit = "s";
        } else if (v >= 1e3) {
            v /= 1e3, unit = "ms";
        }
        int pad = unit[1] ? 0 : 1;
        fprintf(out, "%7.0f%%%*.2f%s%*s\n", ps[i], 10 - pad - (int)strlen(unit), v, unit, pad, "");
    }
}

void report_text(FILE *out, const struct options *o, const struct target *t, const struct run_result *r)
{
    (void)t;
    const struct stats *s = &r->stats;
    double secs = (double)r->duration_ns / 1e9;
    char b[32];
    if (s->completed) {
        report_hist_line(out, "Latency", &s->latency);
        if (o->rate) {
            report_hist_line(out, "Service", &s->service);
            report_hist_line(out, "Send lag", &s->sendlag);
        }
        if (o->verbose) {
            report_hist_line(out, "Connect", &s->connect);
            report_hist_line(out, "Waiting", &s->waiting);
        }
        if (o->latency)
            latency_distribution(out, &s->latency);
    } else {
        /* Zeros here would read as a fast server; with -R the latency
         * would be the timeouts alone. No timing line at all then. */
        fprintf(out, "  No response completed: there are no latency figures\n");
    }
    fprintf(out, "  %" PRIu64 " request%s in %.2fs, %s read\n", s->completed, s->completed == 1 ? "" : "s", secs,
            fmt_bytes(b, sizeof b, (double)s->bytes_read));
    if (r->interrupted) { /* when: the run's end is the interrupt's moment */
        char when[64];
        fprintf(out, "  Interrupted (SIGINT or SIGTERM) %.2fs into the run", secs);
        if (fmt_utc(when, sizeof when, r->start_epoch + secs))
            fprintf(out, ", at %s", when);
        fputs(": the figures are of that part\n", out);
    }
    /* Every response by what the server answered: completed ones and those
     * a script (or --max-body) failed, so these may sum past N requests. */
    uint64_t responses = 0, non_ok = 0;
    for (int i = 0; i < STATS_STATUS_MAX; i++) {
        responses += s->status[i];
        if (i < 200 || i > 399)
            non_ok += s->status[i];
    }
    if (responses) {
        fprintf(out, "  Status");
        const char *sep = " ";
        for (int i = 0; i < STATS_STATUS_MAX; i++) {
            if (!s->status[i])
                continue;
            if (i)
                fprintf(out, "%s%d: %" PRIu64, sep, i, s->status[i]);
            else
                fprintf(out, "%sother: %" PRIu64, sep, s->status[i]);
            sep = "  ";
        }
        fputc('\n', out);
    }
    uint64_t failed = stats_failed(s);
    if (failed) {
        /* "Failed requests: N (connect a, ...)": a status code never
         * follows the word Failed, so the line cannot read as "status N
         * failed". */
        fprintf(out, "  Failed requests: %" PRIu64 " (", failed);
        for (int e = 0; e < STATS_ERR_KINDS; e++)
            /* http runs keep their six kinds; https adds tls, HTTP/2 protocol */
            if ((e != STATS_ERR_TLS || t->tls) && (e != STATS_ERR_PROTOCOL || o->http2 != OPTIONS_H1) &&
                (e != STATS_ERR_PORTS || s->errors[e] || o->sources))
                fprintf(out, "%s%s %" PRIu64, e ? ", " : "", stats_error_name(e), s->errors[e]);
        fputs(")\n", out);
        report_kind_reasons(out, s, STATS_ERR_READ);
        reasons_text(out, s);
        if (s->errors[STATS_ERR_PORTS])
            fprintf(out,
                    "  Local ports ran out (EADDRNOTAVAIL) for %" PRIu64 " request%s: this machine's limit, not the "
                    "target's; bind to more local addresses (--source 127.0.0.2-127.0.0.9) or widen "
                    "net.ipv4.ip_local_port_range\n",
                    s->errors[STATS_ERR_PORTS], s->errors[STATS_ERR_PORTS] == 1 ? "" : "s");
    }
    if (non_ok)
        fprintf(out, "  Non-2xx or 3xx responses: %" PRIu64 "\n", non_ok);
    report_first_error_text(out, s);
    if (s->cut_off)
        fprintf(out, "  Cut off: %" PRIu64 " request%s in flight when the run %s (not counted)\n", s->cut_off,
                s->cut_off == 1 ? " was" : "s were", r->interrupted ? "was interrupted" : "ended");
    report_tls_text(out, t, r, o->verbose && s->completed); /* its Handshake line is a timing line */
    report_h2_text(out, o, r);
    if (o->verbose && o->seed != OPTIONS_NO_SEED)
        fprintf(out, "  Seed %" PRIu64 " (--seed %" PRIu64 " replays a script's math.random choices)\n", o->seed,
                o->seed);
    if (o->verbose)
        fprintf(out, "  Started %" PRIu64 " = completed %" PRIu64 " + failed %" PRIu64 " + cut off %" PRIu64
                     "; %" PRIu64 " connection%s opened, %s written\n",
                s->started, s->completed, failed, s->cut_off, s->connects, s->connects == 1 ? "" : "s",
                fmt_bytes(b, sizeof b, (double)s->bytes_written));
    report_names_text(out, r);
    report_flow_text(out, r);
    metrics_text(out, &s->metrics);
    if (o->rate)
        rate_text(out, o, r);
    report_health_text(out, o, r);
    fprintf(out, "Requests/sec: %10.2f\n", secs > 0 ? (double)s->completed / secs : 0.0);
    fprintf(out, "Transfer/sec: %10s\n", fmt_bytes(b, sizeof b, secs > 0 ? (double)s->bytes_read / secs : 0));
    report_thresholds_text(out, o, r);
}

void report_error(FILE *err, const char *msg)
{
    fputs("volley: ", err);
    quote_write(err, msg);
    fputc('\n', err);
}

bool report_stop_reason(FILE *err, const struct target *t, const struct run_result *r)
{
    if (r->unreachable) {
        char where[80];
        socklen_t alen;
        net_addr_string(target_sockaddr(t, &alen), where, sizeof where);
        fprintf(err, "volley: %s: unreachable for longer than --timeout (%s); run stopped\n", where,
                strerror(r->unreachable));
    }
    if (r->script_error[0])
        report_error(err, r->script_error);
    return r->unreachable || r->script_error[0];
}

bool report_interrupted(FILE *err, const struct run_result *r)
{
    if (r->interrupted)
        fprintf(err, "volley: interrupted (SIGINT or SIGTERM) %.2fs into the run: the report is of that part\n",
                (double)r->duration_ns / 1e9);
    return r->interrupted;
}

bool report_none_completed(FILE *err, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    if (s->completed)
        return false;
    uint64_t failed = stats_failed(s);
    fputs("volley: no response completed (", err);
    if (s->started == 0) {
        fputs(r->interrupted ? "no request was started; interrupted)\n" : "no request was started)\n", err);
        return true;
    }
    if (failed)
        fprintf(err, "%" PRIu64 " request%s failed", failed, failed == 1 ? "" : "s");
    else
        fputs("no request failed", err);
    const char *sep = ": ";
    for (int e = 0; e < STATS_ERR_KINDS; e++) {
        if (s->errors[e]) {
            fprintf(err, "%s%s %" PRIu64, sep, stats_error_name(e), s->errors[e]);
            sep = ", ";
        }
    }
    if (s->cut_off)
        fprintf(err, "; %" PRIu64 " cut off", s->cut_off);
    fputs(r->interrupted ? "; interrupted)\n" : ")\n", err);
    return true;
}

/* A JSON number after the literal text before it ("\"min\": "): through
 * json_out_num, as every double in the JSON is, so that an infinite or NaN
 * value is written as null. */
static void json_num(FILE *out, const char *before, double v, int decimals)
{
    fputs(before, out);
    json_out_num(out, v, decimals);
}

/* ", \"key\": " and a histogram's figure (ns) in us; null when the
 * histogram is empty: a 0 there would read as a fast response. */
static void hist_figure(FILE *out, const char *key, const struct hist *h, double ns)
{
    fprintf(out, ", \"%s\": ", key);
    if (h->count)
        json_out_num(out, ns / 1e3, 3);
    else
        fputs("null", out);
}

/* ", \"sum\": \"N\", \"sum_sq\": \"N\"": the exact sums the mean and
 * the standard deviation come from, which the "hdr" encoding leaves out;
 * with them a saved result gives the same figures again (volley report). */
static void json_exact_sums(FILE *out, const struct hist *h)
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
    static const struct { const char *key; double p; } ps[] = {
        {"p50", 50}, {"p75", 75}, {"p90", 90}, {"p99", 99}, {"p99.9", 99.9}, {"p99.99", 99.99},
    };
    fprintf(out, "{\"count\": %" PRId64, h->count);
    hist_figure(out, "min", h, (double)h->min);
    hist_figure(out, "max", h, (double)h->max);
    hist_figure(out, "mean", h, hist_mean(h));
    hist_figure(out, "stdev", h, hist_stdev(h));
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        hist_figure(out, ps[i].key, h, (double)hist_percentile(h, ps[i].p));
    fprintf(out, ", \"clamped\": %" PRId64, h->clamped);
    json_exact_sums(out, h);
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

static void json_metrics(FILE *out, const struct metrics *ms)
{
    static const struct { const char *key; double p; } ps[] = {{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p99.9", 99.9}};
    /* "order": every name in the order the text report lists them (first
     * use), which the split into counters and records loses. */
    fprintf(out, "  \"metrics\": {\"order\": [");
    for (size_t i = 0; i < ms->n; i++) {
        fputs(i ? ", " : "", out);
        json_out_str(out, ms->m[i].name);
    }
    fprintf(out, "], \"clashes\": %zu, \"counters\": {", ms->clashes);
    int n = 0;
    for (size_t i = 0; i < ms->n; i++) {
        const struct metric *m = &ms->m[i];
        if (m->kind != METRIC_COUNTER)
            continue;
        fprintf(out, n++ ? ", " : "");
        json_out_str(out, m->name);
        json_num(out, ": ", m->total, JSON_OUT_G);
    }
    fprintf(out, "}, \"records\": {");
    n = 0;
    for (size_t i = 0; i < ms->n; i++) {
        const struct metric *m = &ms->m[i];
        if (m->kind != METRIC_RECORD)
            continue;
        const struct hist *h = &m->values;
        fprintf(out, n++ ? ", " : "");
        json_out_str(out, m->name);
        fprintf(out, ": {\"count\": %" PRId64, h->count);
        json_num(out, ", \"min\": ", metrics_value(h->count ? h->min : 0), JSON_OUT_G);
        json_num(out, ", \"max\": ", metrics_value(h->count ? h->max : 0), JSON_OUT_G);
        json_num(out, ", \"mean\": ", hist_mean(h) / METRIC_SCALE, JSON_OUT_G);
        json_num(out, ", \"stdev\": ", hist_stdev(h) / METRIC_SCALE, JSON_OUT_G);
        for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
            fprintf(out, ", \"%s\": ", ps[k].key);
            json_out_num(out, metrics_percentile(h, ps[k].p), JSON_OUT_G);
        }
        fprintf(out, ", \"clamped\": %" PRId64, h->clamped);
        json_exact_sums(out, h);
        fputs(", \"hdr\": ", out);
        char *hdr = hdr_encode(h, NULL); /* the values (thousandths), for volley report --fail-if */
        json_out_str(out, hdr);
        free(hdr);
        fprintf(out, "}");
    }
    fprintf(out, "}},\n");
}

/* ", \"stages\": {...}" (null without --stages): the spec as given, what
 * its targets are, the start, and each stage. */
static void json_stages(FILE *out, const struct options *o)
{
    const struct stages *st = o->stages;
    if (!st) {
        fputs(", \"stages\": null", out);
        return;
    }
    fputs(", \"stages\": {\"spec\": ", out);
    json_out_str(out, o->stages_spec);
    fprintf(out, ", \"of\": \"%s\", \"start\": %.0f, \"stages\": [", o->rate ? "rate" : "connections", st->start);
    for (size_t i = 0; i < st->n; i++) {
        json_num(out, i ? ", {\"duration\": " : "{\"duration\": ", (double)st->s[i].dur_ns / 1e9, 6);
        fprintf(out, ", \"target\": %.0f}", st->s[i].target);
    }
    fputs("]}", out);
}

int report_html(FILE *out, const struct options *o, const struct target *t, const struct run_result *r, char *why,
                size_t len)
{
    char *json = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&json, &n);
    if (!m) {
        snprintf(why, len, "%s", strerror(errno));
        return -1;
    }
    report_json(m, o, t, r);
    fclose(m);
    int rc = html_write(out, json, n, why, len);
    free(json);
    return rc;
}

void report_json(FILE *out, const struct options *o, const struct target *t, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    double secs = (double)r->duration_ns / 1e9;
    char addr[80];
    socklen_t alen;
    net_addr_string(target_sockaddr(t, &alen), addr, sizeof addr);

    fprintf(out, "{\n  \"version\": \"%s\",\n  \"command\": ", VOLLEY_VERSION);
    if (o->command) {
        for (size_t i = 0; i < o->ncommand; i++) {
            fputs(i ? ", " : "[", out);
            json_out_str(out, o->command[i]);
        }
        fputs(o->ncommand ? "],\n" : "[],\n", out);
    } else {
        fputs("null,\n", out);
    }
    report_shard_json(out, o, r);
    fprintf(out, "  \"target\": {\"url\": ");
    json_out_str(out, t->url);
    fprintf(out, ", \"scheme\": ");
    json_out_str(out, t->scheme);
    fprintf(out, ", \"host\": ");
    json_out_str(out, t->host);
    fprintf(out, ", \"port\": %u, \"path\": ", t->port);
    json_out_str(out, t->path);
    fprintf(out, ", \"address\": ");
    json_out_str(out, addr);
    fprintf(out, "},\n");

    fprintf(out, "  \"options\": {\"connections\": %u, \"threads\": %u, ", o->connections, o->threads);
    if (o->duration_ns)
        json_num(out, "\"duration\": ", (double)o->duration_ns / 1e9, 6);
    else
        fprintf(out, "\"duration\": null");
    if (o->requests)
        fprintf(out, ", \"requests\": %" PRIu64, o->requests);
    else
        fprintf(out, ", \"requests\": null");
    if (o->iterations)
        fprintf(out, ", \"iterations\": %" PRIu64, o->iterations);
    else
        fprintf(out, ", \"iterations\": null");
    fprintf(out, ", \"method\": ");
    json_out_str(out, o->method);
    fprintf(out, ", \"headers\": [");
    for (size_t i = 0; i < o->nheaders; i++) {
        fprintf(out, i ? ", " : "");
        json_out_str(out, o->headers[i]);
    }
    fprintf(out, "], \"body_bytes\": %zu", o->body_len);
    json_num(out, ", \"timeout\": ", (double)o->timeout_ns / 1e9, 6);
    fprintf(out, ", \"keepalive\": %s, \"http_version\": \"%s\", ", o->keepalive ? "true" : "false",
            o->http10 ? "1.0" : "1.1");
    fprintf(out, "\"latency_distribution\": %s, \"verbose\": %s, ", o->latency ? "true" : "false",
            o->verbose ? "true" : "false");
    if (o->rate)
        fprintf(out, "\"rate\": %" PRIu64, o->rate);
    else
        fprintf(out, "\"rate\": null");
    if (o->spin_ns)
        json_num(out, ", \"spin\": ", (double)o->spin_ns / 1e9, 9);
    else
        fprintf(out, ", \"spin\": null");
    json_stages(out, o);
    if (o->targets_path) {
        fprintf(out, ", \"targets\": {\"file\": ");
        json_out_str(out, o->targets_path);
        fprintf(out, ", \"count\": %u, \"order\": \"%s\"}", o->ntargets,
                o->targets_order == OPTIONS_RANDOM ? "random" : "round-robin");
    } else {
        fprintf(out, ", \"targets\": null");
    }
    fputs(", \"source\": ", out);
    if (o->source_spec)
        json_out_str(out, o->source_spec);
    else
        fputs("null", out);
    if (o->seed != OPTIONS_NO_SEED)
        fprintf(out, ", \"seed\": %" PRIu64 "},\n", o->seed);
    else
        fprintf(out, ", \"seed\": null},\n");
    fprintf(out, "  \"model\": \"%s\",\n", o->rate ? "open" : "closed");
    if (o->rate) {
        double sent = report_sent_rate(o, r);
        fputs("  \"rate\": {\"target\": ", out);
        report_shard_json_rate(out, o, r);
        json_num(out, ", \"sent_per_sec\": ", sent, 3);
        fprintf(out, ", \"sent\": %" PRIu64 ", \"unsent\": %" PRIu64 ", \"met\": %s, \"sent_span_ns\": %" PRId64 "},\n",
                s->arrivals, s->unsent, rate_met(o, r, sent) ? "true" : "false", r->sent_span_ns);
    }

    json_num(out, "  \"start_time\": ", r->start_epoch, 6);
    json_num(out, ",\n  \"duration\": ", secs, 6);
    fprintf(out, ",\n  \"duration_ns\": %" PRId64, r->duration_ns);
    fprintf(out, ",\n  \"interrupted\": %s,\n", r->interrupted ? "true" : "false");
    fprintf(out, "  \"unreachable\": ");
    if (r->unreachable)
        json_out_str(out, strerror(r->unreachable));
    else
        fprintf(out, "null");
    fprintf(out, ",\n");
    uint64_t failed = stats_failed(s);
    fprintf(out,
            "  \"requests\": {\"started\": %" PRIu64 ", \"completed\": %" PRIu64 ", \"failed\": %" PRIu64
            ", \"cut_off\": %" PRIu64 "},\n",
            s->started, s->completed, failed, s->cut_off);
    json_num(out, "  \"requests_per_sec\": ", secs > 0 ? (double)s->completed / secs : 0.0, 3);
    fprintf(out, ",\n  \"bytes\": {\"read\": %" PRIu64 ", \"written\": %" PRIu64 "},\n", s->bytes_read,
            s->bytes_written);
    json_num(out, "  \"bytes_read_per_sec\": ", secs > 0 ? (double)s->bytes_read / secs : 0.0, 3);
    fprintf(out, ",\n  \"connections_opened\": %" PRIu64 ",\n", s->connects);
    fprintf(out, "  \"status\": ");
    report_json_status(out, s->status);
    fprintf(out, ",\n  \"errors\": ");
    report_json_errors(out, s->errors);
    fprintf(out, ",\n  \"failures\": ");
    report_json_reasons(out, s->reasons, s->nreasons, s->reasons_more, s->reasons_more_count);
    fprintf(out, ",\n  \"read_failures\": {");
    report_kind_reasons_json(out, s, STATS_ERR_READ);
    fprintf(out, "},\n");
    report_errors_json(out, s);
    json_metrics(out, &s->metrics);
    report_names_json(out, o, r);
    report_flow_json(out, r);
    report_thresholds_json(out, o, r);
    report_tls_json(out, t, r);
    report_h2_json(out, o, r);
    report_health_json(out, o, r);
    report_series_json(out, o, r);
    report_json_hist(out, "latency", &s->latency, 0);
    report_json_hist(out, "connect", &s->connect, 0);
    report_json_hist(out, "waiting", &s->waiting, !o->rate);
    if (o->rate) {
        report_json_hist(out, "service", &s->service, 0);
        report_json_hist(out, "sendlag", &s->sendlag, 1);
    }
    fprintf(out, "}\n");
}
