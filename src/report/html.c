/* The HTML report's page: the settings and summary, thresholds, a flow's
 * iterations, checks and groups (html_flow.c), latency, the over-time
 * charts (html_series.c) and the tables, with the result's JSON embedded;
 * every string from the result is escaped here. */
#include "html.h"

#include "fmt.h"
#include "html_internal.h"

#include "json_in.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void esc(FILE *out, const char *s)
{
    if (s)
        html_escape(out, s, strlen(s));
}

/* Formatting. */

#define STYLE                                                                                          \
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px auto;max-width:960px;padding:0 12px;color:#222;background:#fff}" \
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}" \
    ".url,.cmd{font-family:monospace;word-break:break-all;margin:0 0 12px}"                          \
    "table{border-collapse:collapse;margin:6px 0 12px}td,th{padding:3px 10px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}" \
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f6f6f6}"           \
    ".kv th{background:none;font-weight:normal;color:#555}.pass{color:#17803d;font-weight:bold}.fail{color:#c62828;font-weight:bold}" \
    ".none,.note{color:#666;font-style:italic}figure{margin:10px 0 22px}figcaption{font-weight:bold}" \
    "svg{width:100%;height:auto;display:block}svg text{font-size:11px;fill:#555}.yl{text-anchor:end}.xl{text-anchor:middle}" \
    ".grid{stroke:#eee}.axis{stroke:#999}polyline{fill:none;stroke-width:1.6;stroke:var(--c)}.dash polyline{stroke-dasharray:5 3}" \
    "polygon{fill:var(--c);stroke:none}circle,.key i{fill:var(--c);background:var(--c)}"              \
    ".legend{margin:2px 0}.key{margin-right:14px;white-space:nowrap}.key i{display:inline-block;width:18px;height:3px;margin:0 5px 4px 0;vertical-align:middle}" \
    ".stacked .key i{height:10px;margin-bottom:1px}"                                                   \
    ".c0{--c:#1f77b4}.c1{--c:#ff7f0e}.c2{--c:#2ca02c}.c3{--c:#d62728}"                                 \
    ".c4{--c:#9467bd}.c5{--c:#8c564b}.c6{--c:#17becf}.c7{--c:#7f7f7f}"                                 \
    ".better{color:#17803d;font-weight:bold}.worse{color:#c62828;font-weight:bold}.same,.nodata{color:#666}" \
    ".warn{color:#a15c00}tr.differ td{background:#fff4e0}"

static void row_start(FILE *out, const char *label)
{
    fprintf(out, "<tr><th>");
    esc(out, label);
    fprintf(out, "</th><td>");
}

/* The summary's first row for a partial merge (run.missing not empty:
 * volley merge --partial): how many shards of how many, and which are
 * missing. Nothing for any other result. */
static void partial_row(FILE *out, struct html_rd *rd, const struct json *r)
{
    const struct json *run = html_rd_of(rd, r, "", "run", JSON_OBJECT, false);
    const struct json *m = html_rd_of(rd, run, "run", "missing", JSON_ARRAY, false);
    double n = html_rd_count(rd, run, "run", "shards");
    if (!m || !m->len || rd->failed)
        return;
    row_start(out, "Partial");
    fprintf(out, "<span id=\"partial\">");
    html_num(out, n - (double)m->len, 0);
    fprintf(out, " of ");
    html_num(out, n, 0);
    fprintf(out, " shards merged (volley merge --partial); missing: shard%s ", m->len == 1 ? "" : "s");
    for (size_t i = 0; i < m->len && i < 50; i++) {
        fprintf(out, "%s", i ? ", " : "");
        html_num(out, m->items[i].type == JSON_NUMBER ? m->items[i].num : NAN, 0);
    }
    fprintf(out, "%s</span></td></tr>\n", m->len > 50 ? ", ..." : "");
}

static void summary(FILE *out, struct html_rd *rd, const struct json *r)
{
    const struct json *opt = html_rd_of(rd, r, "", "options", JSON_OBJECT, true);
    const struct json *req = html_rd_of(rd, r, "", "requests", JSON_OBJECT, true);
    const struct json *bytes = html_rd_of(rd, r, "", "bytes", JSON_OBJECT, false);
    const struct json *tls = html_rd_of(rd, r, "", "tls", JSON_OBJECT, false);
    const struct json *h2 = html_rd_of(rd, r, "", "http2", JSON_OBJECT, false);
    const struct json *rate = html_rd_of(rd, r, "", "rate", JSON_OBJECT, false);
    const char *model = html_rd_str(rd, r, "", "model", false, NULL);
    double completed = html_rd_num(rd, req, "requests", "completed", true);
    double failed = html_rd_num(rd, req, "requests", "failed", true);
    double rps = html_rd_num(rd, r, "", "requests_per_sec", true);
    double dur = html_rd_num(rd, r, "", "duration", true);
    char buf[32];
    if (rd->failed)
        return;

    fprintf(out, "<h2>Settings and summary</h2>\n<table class=\"kv\" id=\"summary\">\n");
    partial_row(out, rd, r);
    row_start(out, "Connections");
    html_num(out, html_rd_num(rd, opt, "options", "connections", false), 0);
    fprintf(out, "</td></tr>\n");
    row_start(out, "Threads");
    html_num(out, html_rd_num(rd, opt, "options", "threads", false), 0);
    fprintf(out, "</td></tr>\n");
    double asked_d = html_rd_num(rd, opt, "options", "duration", false);
    double asked_n = html_rd_num(rd, opt, "options", "requests", false);
    double asked_i = html_rd_num(rd, opt, "options", "iterations", false);
    row_start(out, "Asked for");
    if (!isnan(asked_n)) {
        html_num(out, asked_n, 0);
        fprintf(out, " request%s%s", asked_n == 1 ? "" : "s", isnan(asked_d) ? "" : ", at most ");
    }
    if (!isnan(asked_i)) {
        html_num(out, asked_i, 0);
        fprintf(out, " iteration%s%s", asked_i == 1 ? "" : "s", isnan(asked_d) ? "" : ", at most ");
    }
    if (!isnan(asked_d)) {
        html_num(out, asked_d, 3);
        fprintf(out, " s");
    }
    fprintf(out, "</td></tr>\n");
    double orate = html_rd_num(rd, opt, "options", "rate", false);
    /* a flow's -R starts iterations (its "iterations" is not null) */
    bool flow = html_rd_of(rd, r, "", "iterations", JSON_OBJECT, false) != NULL;
    row_start(out, "Model");
    if (!isnan(orate)) {
        fprintf(out, "open model at ");
        html_num(out, orate, 3);
        fprintf(out, " %s/s", flow ? "iterations" : "requests");
        const char *ar = html_rd_str(rd, opt, "options", "arrivals", false, NULL); /* none before --arrivals */
        if (ar && strcmp(ar, "fixed") != 0) {
            fprintf(out, ", arrivals ");
            esc(out, ar);
        }
    } else {
        esc(out, model ? model : "closed");
        fprintf(out, " loop");
    }
    fprintf(out, "</td></tr>\n");
    row_start(out, "Protocol");
    const char *hv = html_rd_str(rd, opt, "options", "http_version", false, NULL);
    if (h2) {
        fprintf(out, "HTTP/2 (");
        esc(out, html_rd_str(rd, h2, "http2", "mode", false, NULL));
        fprintf(out, "), ");
        html_num(out, html_rd_num(rd, h2, "http2", "streams", false), 0);
        fprintf(out, " streams per connection");
    } else {
        fprintf(out, "HTTP/");
        esc(out, hv ? hv : "1.1");
    }
    if (tls) {
        const char *proto = html_rd_str(rd, tls, "tls", "protocol", false, NULL);
        const char *cipher = html_rd_str(rd, tls, "tls", "cipher", false, NULL);
        fprintf(out, " over ");
        esc(out, proto ? proto : "TLS");
        if (cipher) {
            fprintf(out, " ");
            esc(out, cipher);
        }
    }
    fprintf(out, "</td></tr>\n");
    row_start(out, "Duration");
    html_num(out, dur, 3);
    fprintf(out, " s</td></tr>\n");
    const struct json *intr = html_rd_of(rd, r, "", "interrupted", JSON_BOOL, false);
    if (intr && intr->b) { /* when: the run's end is the interrupt's moment */
        char when[64];
        row_start(out, "Interrupted");
        fprintf(out, "<span id=\"interrupted\" class=\"warn\">by SIGINT or SIGTERM, ");
        html_num(out, dur, 3);
        fprintf(out, " s into the run");
        if (html_utc(html_rd_num(rd, r, "", "start_time", false) + dur, when, sizeof when))
            fprintf(out, ", at %s", when);
        fprintf(out, ": the figures are of that part</span></td></tr>\n");
    }
    row_start(out, "Requests completed");
    fprintf(out, "<span id=\"completed\">");
    html_num(out, completed, 0);
    fprintf(out, "</span></td></tr>\n");
    row_start(out, "Requests failed");
    fprintf(out, "<span id=\"failed\">");
    html_num(out, failed, 0);
    fprintf(out, "</span></td></tr>\n");
    row_start(out, "Cut off");
    html_num(out, html_rd_num(rd, req, "requests", "cut_off", false), 0);
    fprintf(out, "</td></tr>\n");
    row_start(out, "Requests/s");
    html_num(out, rps, 2);
    fprintf(out, "</td></tr>\n");
    double bread = html_rd_num(rd, bytes, "bytes", "read", false);
    double bwritten = html_rd_num(rd, bytes, "bytes", "written", false);
    row_start(out, "Bytes read");
    html_num(out, bread, 0);
    if (!isnan(bread))
        fprintf(out, " (%s)", fmt_bytes(buf, sizeof buf, bread));
    fprintf(out, "</td></tr>\n");
    row_start(out, "Bytes written");
    html_num(out, bwritten, 0);
    fprintf(out, "</td></tr>\n");
    if (rate) {
        bool met = true;
        const struct json *m = html_rd_of(rd, rate, "rate", "met", JSON_BOOL, false);
        if (m)
            met = m->b;
        row_start(out, flow ? "Iterations started" : "Rate sent");
        html_num(out, html_rd_num(rd, rate, "rate", "sent_per_sec", false), 2);
        fprintf(out, "/s of ");
        html_num(out, html_rd_num(rd, rate, "rate", "target", false), 0);
        fprintf(out, "/s: %s</td></tr>\n", met ? "<span class=\"pass\">met</span>" : "<span class=\"fail\">NOT met</span>");
    }
    fprintf(out, "</table>\n");
}

/* One row per histogram of the result that is present. */
static void hist_table(FILE *out, struct html_rd *rd, const struct json *r)
{
    static const char *const names[] = {"latency", "service", "sendlag", "connect", "waiting", "handshake"};
    static const char *const keys[] = {"p50", "p90", "p99", "p99.9", "max", "mean", "stdev"};
    fprintf(out, "<table id=\"histograms\"><tr><th></th><th class=\"n\">count</th>");
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        fprintf(out, "<th class=\"n\">%s</th>", keys[k]);
    fprintf(out, "</tr>\n");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const struct json *h = html_rd_of(rd, r, "", names[i], JSON_OBJECT, i == 0);
        if (!h)
            continue;
        double count = html_rd_num(rd, h, names[i], "count", true);
        if (i > 0 && !(count > 0))
            continue;
        fprintf(out, "<tr><th>%s</th><td class=\"n\">", names[i]);
        html_num(out, count, 0);
        fprintf(out, "</td>");
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            fprintf(out, "<td class=\"n\">");
            html_us(out, html_rd_num(rd, h, names[i], keys[k], false));
            fprintf(out, "</td>");
        }
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</table>\n");
}

/* An object of name -> count as a two-column table (non-numbers refused). */
static void counts_table(FILE *out, struct html_rd *rd, const struct json *r, const char *key, const char *head,
                         const char *id, bool skip_zero)
{
    const struct json *o = html_rd_of(rd, r, "", key, JSON_OBJECT, false);
    fprintf(out, "<table id=\"%s\"><tr><th>%s</th><th class=\"n\">count</th></tr>\n", id, head);
    size_t shown = 0;
    for (size_t i = 0; o && i < o->len && !rd->failed; i++) {
        const struct json_member *m = &o->members[i];
        if (m->value.type != JSON_NUMBER) {
            html_rd_fail(rd, key, m->key, "expected a number, found %s", json_in_type_name(&m->value));
            return;
        }
        if (skip_zero && m->value.num == 0)
            continue;
        fprintf(out, "<tr><td>");
        html_escape(out, m->key, m->key_len);
        fprintf(out, "</td><td class=\"n\">");
        html_num(out, m->value.num, 3);
        fprintf(out, "</td></tr>\n");
        shown++;
    }
    if (!shown)
        fprintf(out, "<tr><td colspan=\"2\" class=\"none\">none</td></tr>\n");
    fprintf(out, "</table>\n");
}

static void metrics_tables(FILE *out, struct html_rd *rd, const struct json *r)
{
    const struct json *m = html_rd_of(rd, r, "", "metrics", JSON_OBJECT, false);
    const struct json *counters = html_rd_of(rd, m, "metrics", "counters", JSON_OBJECT, false);
    const struct json *records = html_rd_of(rd, m, "metrics", "records", JSON_OBJECT, false);
    if (rd->failed || ((!counters || !counters->len) && (!records || !records->len)))
        return;
    fprintf(out, "<h2>Custom metrics</h2>\n");
    if (counters && counters->len) {
        fprintf(out, "<table id=\"counters\"><tr><th>counter</th><th class=\"n\">total</th></tr>\n");
        for (size_t i = 0; i < counters->len && !rd->failed; i++) {
            const struct json_member *c = &counters->members[i];
            double v = html_rd_num(rd, counters, "metrics.counters", c->key, false);
            fprintf(out, "<tr><td>");
            html_escape(out, c->key, c->key_len);
            fprintf(out, "</td><td class=\"n\">");
            if (isnan(v))
                fputs("-", out);
            else
                fprintf(out, "%.15g", v);
            fprintf(out, "</td></tr>\n");
        }
        fprintf(out, "</table>\n");
    }
    if (records && records->len) {
        static const char *const keys[] = {"count", "min", "p50", "p90", "p99", "max", "mean"};
        fprintf(out, "<table id=\"records\"><tr><th>record</th>");
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            fprintf(out, "<th class=\"n\">%s</th>", keys[k]);
        fprintf(out, "</tr>\n");
        for (size_t i = 0; i < records->len && !rd->failed; i++) {
            const struct json_member *rec = &records->members[i];
            const struct json *o = html_rd_of(rd, records, "metrics.records", rec->key, JSON_OBJECT, true);
            if (!o)
                break;
            fprintf(out, "<tr><td>");
            html_escape(out, rec->key, rec->key_len);
            fprintf(out, "</td>");
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
                double v = html_rd_num(rd, o, "metrics.records", keys[k], false);
                fprintf(out, "<td class=\"n\">");
                if (isnan(v))
                    fputs("-", out);
                else
                    fprintf(out, "%.6g", v);
                fprintf(out, "</td>");
            }
            fprintf(out, "</tr>\n");
        }
        fprintf(out, "</table>\n");
    }
}

/* The result's "command" as one line a shell reads back to the same
 * words: a word of only safe characters as it is, any other in single
 * quotes (a quote in it as '\''). Nothing for a result without one. */
static void command_line(FILE *out, struct html_rd *rd, const struct json *r)
{
    const struct json *cmd = html_rd_of(rd, r, "", "command", JSON_ARRAY, false);
    if (!cmd || !cmd->len)
        return;
    fprintf(out, "<p class=\"cmd\" id=\"command\">");
    for (size_t i = 0; i < cmd->len; i++) {
        const struct json *w = &cmd->items[i];
        if (w->type != JSON_STRING) {
            html_rd_fail(rd, "", "command", "item %zu: expected a string", i);
            break;
        }
        if (i)
            fputc(' ', out);
        size_t n = w->len;
        if (n && strspn(w->s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-") == n) {
            html_escape(out, w->s, n);
            continue;
        }
        fputs("&#39;", out);
        for (const char *p = w->s, *end = w->s + n, *q; p <= end; p = q + 1) {
            q = memchr(p, '\'', (size_t)(end - p));
            html_escape(out, p, (size_t)((q ? q : end) - p));
            if (!q)
                break;
            fputs("&#39;\\&#39;&#39;", out);
        }
        fputs("&#39;", out);
    }
    fprintf(out, "</p>\n");
}

void html_page_start(FILE *out, const char *title, size_t len)
{
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                 "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>volley: ");
    html_escape(out, title, len);
    fprintf(out, "</title>\n<style>%s</style></head>\n<body>\n", STYLE);
}

const char *html_utc(double start, char *buf, size_t len)
{
    return fmt_utc(buf, len, start);
}

/* '<' can only stand inside a string in valid JSON, where \u003c is the
 * same character, so the text still parses to the same value, and no
 * "</script" or "<!--" can end or change the element. */
void html_embed_json(FILE *out, const char *id, const char *text, size_t len)
{
    fprintf(out, "<script type=\"application/json\" id=\"%s\">", id);
    size_t from = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '<') {
            fwrite(text + from, 1, i - from, out);
            fputs("\\u003c", out);
            from = i + 1;
        }
    fwrite(text + from, 1, len - from, out);
    fprintf(out, "</script>\n");
}

int html_render(FILE *out, const struct json *r, const char *text, size_t text_len, char *err, size_t errlen)
{
    struct html_rd rd = {err, errlen, false};
    if (errlen > 0)
        err[0] = '\0';
    if (r->type != JSON_OBJECT) {
        snprintf(err, errlen, "the result: expected an object, found %s", json_in_type_name(r));
        return -1;
    }
    const struct json *target = html_rd_of(&rd, r, "", "target", JSON_OBJECT, true);
    size_t url_len;
    const char *url = html_rd_str(&rd, target, "target", "url", true, &url_len);
    const char *version = html_rd_str(&rd, r, "", "version", true, NULL);
    if (rd.failed)
        return -1;

    html_page_start(out, url, url_len);
    fprintf(out, "<h1>volley report</h1>\n<p class=\"url\">");
    html_escape(out, url, url_len);
    fprintf(out, "</p>\n");
    command_line(out, &rd, r);
    fprintf(out, "<p class=\"note\">volley ");
    esc(out, version);
    char when[64];
    if (html_utc(html_rd_num(&rd, r, "", "start_time", false), when, sizeof when))
        fprintf(out, ", started %s", when);
    fprintf(out, "</p>\n");
    summary(out, &rd, r);
    html_thresholds(out, &rd, r);
    html_flow(out, &rd, r);
    html_scenarios(out, &rd, r);
    html_stream(out, &rd, r);
    fprintf(out, "<h2>Latency</h2>\n");
    hist_table(out, &rd, r);
    html_percentiles(out, &rd, r);
    fprintf(out, "<h2>Over time</h2>\n");
    html_series(out, &rd, r);
    fprintf(out, "<h2>Responses and failures</h2>\n");
    counts_table(out, &rd, r, "status", "status", "status", false);
    counts_table(out, &rd, r, "errors", "failed requests by kind", "errors", true);
    html_reasons(out, &rd, html_rd_of(&rd, r, "", "failures", JSON_OBJECT, false), "failures", "reasons",
                 "validation failure reason");
    html_names(out, &rd, r);
    metrics_tables(out, &rd, r);
    html_embed_json(out, "volley-result", text, text_len);
    fprintf(out, "</body></html>\n");
    return rd.failed ? -1 : 0;
}

int html_write(FILE *out, const char *text, size_t len, char *err, size_t errlen)
{
    struct json root;
    if (json_in_parse(text, len, &root, err, errlen) < 0)
        return -1;
    int rc = html_render(out, &root, text, len, err, errlen);
    json_in_free(&root);
    return rc;
}
