/* The JSON report (docs/output.md) and the HTML page rendered from it:
 * every figure from the merged stats, every string and double through
 * json_out, so that what a server sent cannot break the JSON, and an
 * infinite or NaN value is null. */
#include "report.h"

#include "hdr_codec.h"
#include "html.h"
#include "json_out.h"
#include "net.h"
#include "report_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A JSON number after the literal text before it ("\"min\": "): through
 * json_out_num, as every double in the JSON is, so that an infinite or NaN
 * value is written as null. */
static void json_num(FILE *out, const char *before, double v, int decimals)
{
    fputs(before, out);
    json_out_num(out, v, decimals);
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
        report_json_exact_sums(out, h);
        fputs(", \"hdr\": ", out);
        char *hdr = hdr_encode(h, NULL); /* the values (thousandths), for volley report's thresholds */
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
    char addr[128]; /* "unix:" and a socket path of up to 107 bytes */
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
    if (t->proxy) { /* the proxy's URL without its credentials */
        fprintf(out, ", \"proxy\": ");
        json_out_str(out, t->proxy);
    }
    if (t->unix_path) {
        fprintf(out, ", \"unix_socket\": ");
        json_out_str(out, t->unix_path);
    }
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
    if (o->rate) {
        char ar[48];
        fprintf(out, "\"rate\": %" PRIu64 ", \"arrivals\": ", o->rate);
        json_out_str(out, arrivals_text(o->arrivals, ar, sizeof ar));
    } else {
        fprintf(out, "\"rate\": null, \"arrivals\": null");
    }
    if (o->max_rps)
        fprintf(out, ", \"max_rps\": %" PRIu64, o->max_rps);
    else
        fprintf(out, ", \"max_rps\": null");
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
        fprintf(out, "  \"rate\": {\"of\": \"%s\", \"target\": ", o->flow ? "iterations" : "requests");
        report_shard_json_rate(out, o, r);
        json_num(out, ", \"sent_per_sec\": ", sent, 3);
        fprintf(out, ", \"sent\": %" PRIu64 ", \"unsent\": %" PRIu64 ", \"met\": %s, \"sent_span_ns\": %" PRId64
                     ", \"due_span_ns\": %" PRId64 "},\n",
                s->arrivals, s->unsent, report_rate_met(o, r, sent) ? "true" : "false", r->sent_span_ns,
                r->due_span_ns);
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
    fprintf(out, ",\n  \"connect_failures\": {");
    report_kind_reasons_json(out, s, STATS_ERR_CONNECT);
    fprintf(out, "}");
    fprintf(out, ",\n  \"read_failures\": {");
    report_kind_reasons_json(out, s, STATS_ERR_READ);
    fprintf(out, "},\n");
    report_errors_json(out, s);
    json_metrics(out, &s->metrics);
    report_names_json(out, o, r);
    report_tags_json(out, o, r);
    report_flow_json(out, o, r);
    report_scenarios_json(out, r);
    report_aside_json(out, r);
    report_hosts_json(out, r);
    report_stream_json(out, r);
    report_thresholds_json(out, o, r);
    report_tls_json(out, t, r);
    report_h2_json(out, o, r);
    report_health_json(out, o, r);
    report_series_json(out, o, r);
    report_json_hist(out, "latency", &s->latency, 0);
    report_json_hist(out, "connect", &s->connect, 0);
    /* -R's service time and send lag are requests': a flow's requests go
     * when the flow sends them (its iterations' lag is in "iterations"). */
    report_json_hist(out, "waiting", &s->waiting, !s->open);
    if (s->open) {
        report_json_hist(out, "service", &s->service, 0);
        report_json_hist(out, "sendlag", &s->sendlag, 1);
    }
    fprintf(out, "}\n");
}
