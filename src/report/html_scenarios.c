/* The HTML report's Scenarios section (a run of several scenarios): one
 * row per scenario from the result's "scenarios", with the text report's
 * columns: its load, start, length, requests, failures, iterations and
 * its requests' latency. Names are the script's text: escaped. */
#include "html.h"
#include "html_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Percentile p (0..100) of the histogram object h (at path), in us; NAN
 * when it counts nothing. */
static double pct(struct html_rd *rd, const struct json *h, const char *path, double p)
{
    struct hist hist;
    if (!(html_rd_count(rd, h, path, "count") > 0) || !html_rd_hist(rd, h, path, &hist))
        return NAN;
    double v = (double)hist_percentile(&hist, p) / 1e3;
    hist_free(&hist);
    return v;
}

static void num_cell(FILE *out, double v, int decimals, bool fail)
{
    fprintf(out, "<td class=\"n%s\">", fail ? " fail" : "");
    html_num(out, v, decimals);
    fprintf(out, "</td>");
}

void html_scenarios(FILE *out, struct html_rd *rd, const struct json *r)
{
    const struct json *list = html_rd_of(rd, r, "", "scenarios", JSON_ARRAY, false);
    if (rd->failed || !list || !list->len)
        return;
    fprintf(out, "<h2>Scenarios</h2>\n<table id=\"scenarios\"><tr><th>scenario</th><th>load</th>"
                 "<th class=\"n\">start</th><th class=\"n\">ran</th><th class=\"n\">requests</th>"
                 "<th class=\"n\">failed</th><th class=\"n\">iterations</th><th class=\"n\">failed</th>"
                 "<th class=\"n\">per second</th><th class=\"n\">p50</th><th class=\"n\">p99</th></tr>\n");
    for (size_t i = 0; i < list->len && !rd->failed; i++) {
        const struct json *sc = &list->items[i];
        if (sc->type != JSON_OBJECT) {
            html_rd_fail(rd, "scenarios", "[]", "expected an object");
            return;
        }
        size_t nlen;
        const char *name = html_rd_str(rd, sc, "scenarios[]", "name", true, &nlen);
        const char *model = html_rd_str(rd, sc, "scenarios[]", "model", true, NULL);
        const struct json *req = html_rd_of(rd, sc, "scenarios[]", "requests", JSON_OBJECT, true);
        const struct json *it = html_rd_of(rd, sc, "scenarios[]", "iterations", JSON_OBJECT, false);
        const struct json *lat = html_rd_of(rd, sc, "scenarios[]", "latency", JSON_OBJECT, true);
        if (rd->failed)
            return;
        fprintf(out, "<tr><td>");
        html_escape(out, name, nlen);
        bool open = model && strcmp(model, "open") == 0;
        fprintf(out, "</td><td>%s ", open ? "open" : "closed");
        if (open) {
            html_num(out, html_rd_num(rd, sc, "scenarios[]", "rate", false), 0);
            fprintf(out, "/s (");
            html_num(out, html_rd_count(rd, sc, "scenarios[]", "users"), 0);
            fprintf(out, " users)");
        } else {
            html_num(out, html_rd_count(rd, sc, "scenarios[]", "users"), 0);
            fprintf(out, " users");
        }
        fprintf(out, "</td><td class=\"n\">");
        html_us(out, html_rd_num(rd, sc, "scenarios[]", "start", false) * 1e6);
        fprintf(out, "</td><td class=\"n\">");
        html_us(out, html_rd_num(rd, sc, "scenarios[]", "duration", false) * 1e6);
        fprintf(out, "</td>");
        num_cell(out, html_rd_count(rd, req, "scenarios[].requests", "started"), 0, false);
        double failed = html_rd_count(rd, req, "scenarios[].requests", "failed");
        num_cell(out, failed, 0, failed > 0);
        double ic = it ? html_rd_count(rd, it, "scenarios[].iterations", "completed") : NAN;
        double ifl = it ? html_rd_count(rd, it, "scenarios[].iterations", "failed") : NAN;
        num_cell(out, ic, 0, false);
        num_cell(out, ifl, 0, ifl > 0);
        num_cell(out, it ? html_rd_num(rd, it, "scenarios[].iterations", "per_sec", false) : NAN, 2, false);
        fprintf(out, "<td class=\"n\">");
        html_us(out, pct(rd, lat, "scenarios[].latency", 50));
        fprintf(out, "</td><td class=\"n\">");
        html_us(out, pct(rd, lat, "scenarios[].latency", 99));
        fprintf(out, "</td></tr>\n");
    }
    fprintf(out, "</table>\n");
}
