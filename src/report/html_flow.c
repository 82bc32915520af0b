/* The HTML report's sections of a flow (a scenario with user(u)): its
 * iterations, the checks table and the groups table, read from the
 * result's "iterations", "checks" and "groups" with the text report's
 * columns. Check and group names and failure reasons are the script's
 * text: escaped. */
#include "html.h"
#include "html_internal.h"

#include <math.h>
#include <stdio.h>

/* The percentiles of a duration column, then its max. */
static const double PCTS[] = {50, 90, 95, 99};
#define NPCTS (sizeof PCTS / sizeof PCTS[0])

static void pct_heads(FILE *out)
{
    for (size_t k = 0; k < NPCTS; k++)
        fprintf(out, "<th class=\"n\">p%.0f</th>", PCTS[k]);
    fprintf(out, "<th class=\"n\">max</th>");
}

/* Duration histogram object h (at path) as cells: its percentiles from
 * its "hdr" (the JSON lists no p95; decoded, the others are the JSON's
 * own), each at most the exact "max", then the max; "-" when it counts
 * nothing. */
static void pct_cells(FILE *out, struct html_rd *rd, const struct json *h, const char *path)
{
    double count = html_rd_count(rd, h, path, "count");
    double max = html_rd_num(rd, h, path, "max", false);
    struct hist hist;
    bool have = count > 0 && html_rd_hist(rd, h, path, &hist);
    for (size_t k = 0; k < NPCTS; k++) {
        fprintf(out, "<td class=\"n\">");
        double v = have ? (double)hist_percentile(&hist, PCTS[k]) / 1e3 : NAN;
        html_us(out, isnan(max) ? v : fmin(v, max));
        fprintf(out, "</td>");
    }
    fprintf(out, "<td class=\"n\">");
    html_us(out, have ? max : NAN);
    fprintf(out, "</td>");
    if (have)
        hist_free(&hist);
}

/* A table row's start: the member's name (escaped), a count and a count
 * of failures (marked when above 0). */
static void name_row(FILE *out, const struct json_member *m, double count, double failed)
{
    fprintf(out, "<tr><td>");
    html_escape(out, m->key, m->key_len);
    fprintf(out, "</td><td class=\"n\">");
    html_num(out, count, 0);
    fprintf(out, "</td><td class=\"n%s\">", failed > 0 ? " fail" : "");
    html_num(out, failed, 0);
    fprintf(out, "</td>");
}

static void kv_count(FILE *out, struct html_rd *rd, const struct json *it, const char *label, const char *key)
{
    fprintf(out, "<tr><th>%s</th><td><span id=\"iterations-%s\">", label, key);
    html_num(out, html_rd_count(rd, it, "iterations", key), 0);
    fprintf(out, "</span></td></tr>\n");
}

/* One row of the iterations' table: a histogram h (at path, for
 * messages) under label: its count, percentiles and mean. */
static void hist_row(FILE *out, struct html_rd *rd, const struct json *h, const char *label, const char *path)
{
    fprintf(out, "<tr><th>%s</th><td class=\"n\">", label);
    html_num(out, html_rd_count(rd, h, path, "count"), 0);
    fprintf(out, "</td>");
    pct_cells(out, rd, h, path);
    fprintf(out, "<td class=\"n\">");
    html_us(out, html_rd_num(rd, h, path, "mean", false));
    fprintf(out, "</td></tr>\n");
}

static void iterations(FILE *out, struct html_rd *rd, const struct json *r, const struct json *it)
{
    const struct json *opt = html_rd_of(rd, r, "", "options", JSON_OBJECT, false);
    bool scheduled = !isnan(html_rd_num(rd, opt, "options", "rate", false));
    fprintf(out, "<h2>Iterations</h2>\n<table class=\"kv\" id=\"iterations\">\n");
    kv_count(out, rd, it, "Completed", "completed");
    kv_count(out, rd, it, "Failed", "failed");
    kv_count(out, rd, it, "Cut off", "cut_off");
    kv_count(out, rd, it, "Started", "started");
    fprintf(out, "<tr><th>Per second</th><td><span id=\"iterations-per_sec\">");
    html_num(out, html_rd_num(rd, it, "iterations", "per_sec", false), 3);
    fprintf(out, "</span> completed</td></tr>\n</table>\n");

    const struct json *d = html_rd_of(rd, it, "iterations", "duration", JSON_OBJECT, true);
    if (rd->failed)
        return;
    fprintf(out, "<table id=\"iteration-duration\"><tr><th>duration of completed iterations%s</th>"
                 "<th class=\"n\">count</th>", scheduled ? ", from the scheduled start" : "");
    pct_heads(out);
    fprintf(out, "<th class=\"n\">mean</th></tr>\n");
    hist_row(out, rd, d, "iteration", "iterations.duration");
    /* -R: each started iteration's wait from its due time for a free user */
    const struct json *lag = html_rd_of(rd, it, "iterations", "start_lag", JSON_OBJECT, false);
    if (lag)
        hist_row(out, rd, lag, "start lag (due to start)", "iterations.start_lag");
    fprintf(out, "</table>\n");

    html_reasons(out, rd, html_rd_of(rd, it, "iterations", "failures", JSON_OBJECT, false), "iterations.failures",
                 "iteration-failures", "failed iterations by reason");
}

static void checks(FILE *out, struct html_rd *rd, const struct json *r)
{
    const struct json *c = html_rd_of(rd, r, "", "checks", JSON_OBJECT, false);
    const struct json *names = html_rd_of(rd, c, "checks", "names", JSON_OBJECT, false);
    if (rd->failed || !names || !names->len)
        return;
    fprintf(out, "<h2>Checks</h2>\n<table id=\"checks\"><tr><th>check</th><th class=\"n\">passed</th>"
                 "<th class=\"n\">failed</th><th class=\"n\">passed share</th></tr>\n");
    for (size_t i = 0; i < names->len && !rd->failed; i++) {
        const struct json_member *m = &names->members[i];
        char at[300];
        snprintf(at, sizeof at, "checks.names.%s", m->key);
        const struct json *n = html_rd_of(rd, names, "checks.names", m->key, JSON_OBJECT, true);
        double pass = html_rd_count(rd, n, at, "passed"), fail = html_rd_count(rd, n, at, "failed");
        if (rd->failed)
            return;
        name_row(out, m, pass, fail);
        fprintf(out, "<td class=\"n\">");
        if (pass + fail > 0)
            fprintf(out, "%.2f%%", 100 * pass / (pass + fail));
        else
            fputs("-", out);
        fprintf(out, "</td></tr>\n");
    }
    double rate = html_rd_num(rd, c, "checks", "rate", false);
    fprintf(out, "<tr><th>all checks</th><td class=\"n\">");
    html_num(out, html_rd_count(rd, c, "checks", "passed"), 0);
    fprintf(out, "</td><td class=\"n\">");
    html_num(out, html_rd_count(rd, c, "checks", "failed"), 0);
    fprintf(out, "</td><td class=\"n\">");
    if (isnan(rate))
        fputs("-", out);
    else
        fprintf(out, "%.2f%%", 100 * rate);
    fprintf(out, "</td></tr>\n</table>\n");
}

static void groups(FILE *out, struct html_rd *rd, const struct json *r)
{
    const struct json *g = html_rd_of(rd, r, "", "groups", JSON_OBJECT, false);
    if (rd->failed || !g || !g->len)
        return;
    fprintf(out, "<h2>Groups</h2>\n<table id=\"groups\"><tr><th>group</th><th class=\"n\">count</th>"
                 "<th class=\"n\">failed</th>");
    pct_heads(out);
    fprintf(out, "</tr>\n");
    for (size_t i = 0; i < g->len && !rd->failed; i++) {
        const struct json_member *m = &g->members[i];
        char at[300], dur[320];
        snprintf(at, sizeof at, "groups.%s", m->key);
        snprintf(dur, sizeof dur, "%s.duration", at);
        const struct json *one = html_rd_of(rd, g, "groups", m->key, JSON_OBJECT, true);
        const struct json *d = html_rd_of(rd, one, at, "duration", JSON_OBJECT, true);
        double count = html_rd_count(rd, one, at, "count"), failed = html_rd_count(rd, one, at, "failed");
        if (rd->failed)
            return;
        name_row(out, m, count, failed);
        pct_cells(out, rd, d, dur);
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</table>\n");
}

void html_flow(FILE *out, struct html_rd *rd, const struct json *r)
{
    const struct json *it = html_rd_of(rd, r, "", "iterations", JSON_OBJECT, false);
    if (rd->failed || !it)
        return;
    iterations(out, rd, r, it);
    checks(out, rd, r);
    groups(out, rd, r);
}
