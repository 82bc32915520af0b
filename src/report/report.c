/* The text report: the "Running ..." header, the figures after the run,
 * and the stderr lines that say why a run ended as it did (the JSON and
 * the HTML: report_json.c). Every figure is computed from the merged
 * stats; docs/output.md says how each one is defined. */
#include "report.h"

#include "fmt.h"
#include "net.h"
#include "quote.h"
#include "report_internal.h"
#include "targets.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* How many reasons of validation failures the text report lists (the
 * JSON: JSON_REASONS); the rest are summed in one line. Reasons, like
 * metric names, the URL and script errors, are untrusted text (often the
 * server's): the text report writes them through quote.h, so that no byte
 * of theirs reaches the terminal as a control character. */
#define TEXT_REASONS 5

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
        report_clamped_note(out, h->clamped, top);
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

/* What -R schedules: a flow's iterations, else requests (o->flow is known
 * before the run, for the header; a loaded result sets it from its figures). */
static const char *arrivals_word(const struct options *o)
{
    return o->flow ? "iterations" : "requests";
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
    else if (!o->duration_ns) /* several scenarios, each bounded by its own iterations */
        fprintf(out, "Running until every scenario is done @ ");
    else
        fprintf(out, "Running %s test @ ", fmt_duration(d, sizeof d, o->duration_ns));
    quote_write(out, t->url); /* its #fragment may hold anything but NUL */
    if (o->targets_path) {
        fprintf(out, " (%u target%s from ", o->ntargets, o->ntargets == 1 ? "" : "s");
        quote_write(out, targets_name(o->targets_path));
        fprintf(out, ", %s)", o->targets_order == OPTIONS_RANDOM ? "random order" : "round robin");
    }
    if (t->proxy) {
        fputs(" through proxy ", out);
        quote_write(out, t->proxy);
    }
    if (t->unix_path) {
        fputs(" over unix socket ", out);
        quote_write(out, t->unix_path);
    }
    fputc('\n', out);
    uint32_t conns = report_connections(o, r);
    fprintf(out, "  %u thread%s and %u connection%s, %s, ", o->threads, o->threads == 1 ? "" : "s", conns,
            conns == 1 ? "" : "s", o->keepalive ? "keep-alive" : "a new connection per request");
    if (o->nscenarios || r->nscenarios) {
        /* each its own load: the Scenarios table after the run */
        fprintf(out, "%u scenarios\n", o->nscenarios ? (unsigned)o->nscenarios : r->nscenarios);
    } else if (o->rate) {
        /* A flow's schedule starts iterations, not requests (conn_flow.c). */
        fprintf(out, "open model at %" PRIu64 " %s/s%s", o->rate, arrivals_word(o), o->stages ? " at most" : "");
        if (arrivals_random(o->arrivals)) {
            char ar[48];
            fprintf(out, ", %s", arrivals_describe(o->arrivals, ar, sizeof ar));
        }
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

bool report_rate_missed(FILE *err, const struct options *o, const struct run_result *r)
{
    if (!o->rate || r->interrupted || r->unreachable || r->script_error[0])
        return false;
    double sent = report_sent_rate(o, r);
    if (report_rate_met(o, r, sent))
        return false;
    bool flow = o->flow;
    const char *verb = flow ? "started" : "sent";
    if (o->stages) {
        fprintf(err, "volley: --stages: target rate not met: %" PRIu64 " of %" PRIu64 " %s never %s\n",
                r->stats.unsent, r->stats.arrivals + r->stats.unsent, flow ? "iterations" : "arrivals", verb);
        return true;
    }
    if (report_drawn_rate(o, r) > 0) {
        char ar[48];
        fprintf(err, "volley: -R %" PRIu64 " (%s, %.2f/s as drawn): target rate not met: %.2f %s/s %s, %" PRIu64
                     " never %s\n",
                o->rate, arrivals_describe(o->arrivals, ar, sizeof ar), report_drawn_rate(o, r), sent,
                arrivals_word(o), verb, r->stats.unsent, verb);
    } else if (o->shard.count > 1 && !r->merged)
        fprintf(err, "volley: -R %" PRIu64 " (--shard %u/%u: %.2f/s of it): target rate not met: %.2f %s/s %s, %" PRIu64 " never %s\n",
                o->rate, o->shard.index, o->shard.count, report_target_rate(o, r), sent, arrivals_word(o), verb,
                r->stats.unsent, verb);
    else
        fprintf(err, "volley: -R %" PRIu64 ": target rate not met: %.2f %s/s %s, %" PRIu64 " never %s\n", o->rate, sent,
                arrivals_word(o), verb, r->stats.unsent, verb);
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
    /* A flow's arrivals are iterations, started on a free user; the lag
     * measured is theirs, from due to start (stats_flow.h). */
    bool flow = o->flow;
    const char *verb = flow ? "started" : "sent";
    const struct hist *lag = flow ? &s->flow.start_lag : &s->sendlag;
    if (o->stages)
        fprintf(out, "  Rate: %" PRIu64 " %s scheduled by the stages, %.2f/s %s on average; %" PRIu64 " %s, %" PRIu64
                     " never %s\n",
                s->arrivals + s->unsent, flow ? "iterations" : "arrivals", sent, verb, s->arrivals, verb, s->unsent,
                verb);
    else if (report_drawn_rate(o, r) > 0)
        fprintf(out, "  Rate: %s%s/s scheduled on average, %.2f/s as drawn, %.2f/s %s; %" PRIu64 " %s, %" PRIu64
                     " never %s\n",
                fmt_rate(rt, sizeof rt, report_target_rate(o, r)), flow ? " iterations" : "", report_drawn_rate(o, r),
                sent, verb, s->arrivals, verb, s->unsent, verb);
    else
        fprintf(out, "  Rate: %s%s/s scheduled, %.2f/s %s; %" PRIu64 " %s, %" PRIu64 " never %s\n",
                fmt_rate(rt, sizeof rt, report_target_rate(o, r)), flow ? " iterations" : "", sent, verb, s->arrivals,
                verb, s->unsent, verb);
    if (report_rate_met(o, r, sent))
        return;
    if (o->stages)
        fprintf(out, "  Target rate NOT met: %" PRIu64 " of %" PRIu64 " %s never %s (", s->unsent,
                s->arrivals + s->unsent, flow ? "iterations" : "arrivals", verb);
    else if (report_drawn_rate(o, r) > 0)
        fprintf(out, "  Target rate NOT met: %.2f/s of %.2f/s as drawn (", sent, report_drawn_rate(o, r));
    else
        fprintf(out, "  Target rate NOT met: %.2f/s of %s/s (", sent, fmt_rate(rt, sizeof rt, report_target_rate(o, r)));
    if (flow ? lag->count != 0 : s->completed != 0) { /* else no timing figures at all (report_text) */
        char p50[32], p99[32];
        fmt_time(p50, sizeof p50, (double)hist_percentile(lag, 50));
        fmt_time(p99, sizeof p99, (double)hist_percentile(lag, 99));
        fprintf(out, "%s lag p50 %s, p99 %s; ", flow ? "start" : "send", p50, p99);
    }
    fprintf(out, "more %s or a faster server are needed)\n", flow ? "users (-c)" : "connections (-c)");
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
        if (s->open) { /* -R's requests; a flow's iterations have their own lag (report_flow.c) */
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
            if ((e != STATS_ERR_TLS || t->tls || s->errors[e]) && (e != STATS_ERR_PROTOCOL || o->http2 != OPTIONS_H1) &&
                (e != STATS_ERR_PORTS || s->errors[e] || o->sources))
                fprintf(out, "%s%s %" PRIu64, e ? ", " : "", stats_error_name(e), s->errors[e]);
        fputs(")\n", out);
        report_kind_reasons(out, s, STATS_ERR_CONNECT); /* a proxy's refusal has one */
        report_kind_reasons(out, s, STATS_ERR_READ);
        if (!t->tls) /* a flow's https host (--allow-host): no TLS block to say why */
            report_kind_reasons(out, s, STATS_ERR_TLS);
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
    report_flow_text(out, o, r);
    report_scenarios_text(out, r);
    report_aside_text(out, r);
    report_hosts_text(out, r);
    report_stream_text(out, r);
    metrics_text(out, &s->metrics);
    if (o->rate)
        rate_text(out, o, r);
    report_health_text(out, o, r);
    fprintf(out, "Requests/sec: %10.2f\n", secs > 0 ? (double)s->completed / secs : 0.0);
    fprintf(out, "Transfer/sec: %10s\n", fmt_bytes(b, sizeof b, secs > 0 ? (double)s->bytes_read / secs : 0));
    report_thresholds_text(out, o, r);
    report_names_overflow_text(out, r);
    report_tags_note_text(out, r);
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
        char where[128]; /* a --unix-socket path too */
        socklen_t alen;
        net_addr_string(target_sockaddr(t, &alen), where, sizeof where);
        if (t->proxy) /* where connections went: the proxy */
            fprintf(err, "volley: proxy %s at", t->proxy);
        else
            fputs("volley:", err);
        fprintf(err, " %s: unreachable for longer than --timeout (%s); run stopped\n", where,
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

/* A flow whose iterations failed, none completing: see report.h. */
static bool no_iteration_completed(FILE *err, const struct stats_flow *f)
{
    if (!f->on || f->completed || !f->failed)
        return false;
    if (f->cut_off)
        fprintf(err, "volley: no iteration completed (%" PRIu64 " failed, %" PRIu64 " cut off)", f->failed,
                f->cut_off);
    else
        fprintf(err, "volley: every iteration failed (%" PRIu64 " of %" PRIu64 ")", f->failed, f->failed);
    const struct stats_reason *most = NULL;
    for (size_t i = 0; i < f->nreasons; i++)
        if (!most || f->reasons[i].count > most->count)
            most = &f->reasons[i];
    if (most) {
        char why[300];
        fprintf(err, "; the most common reason: %s (%" PRIu64 ")", quote_printable(why, sizeof why, most->reason),
                most->count);
    }
    fputc('\n', err);
    return true;
}

bool report_none_completed(FILE *err, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    if (s->completed)
        return no_iteration_completed(err, &s->flow);
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
