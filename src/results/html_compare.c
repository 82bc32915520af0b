/* The page of `volley compare --html`: both runs' settings, the table and
 * the limits as the text has them (compare_table.c), both latency
 * distributions and both runs over time on shared axes (html_chart.c),
 * and both results embedded. Every string from the files is escaped. */
#include "html_compare.h"

#include "html.h"
#include "html_internal.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const who[2] = {"BASE", "NEW"};
static const int colors[2] = {0, 1}; /* BASE blue, NEW orange, in every chart */

static void esc(FILE *out, const char *s)
{
    if (s)
        html_escape(out, s, strlen(s));
}

/* A row of the settings table: the label, then BASE's and NEW's value. */
static void setting_row(FILE *out, const char *label, const char *const v[2], bool differ)
{
    fprintf(out, "<tr%s><th>", differ ? " class=\"differ\"" : "");
    esc(out, label);
    fprintf(out, "</th>");
    for (int i = 0; i < 2; i++) {
        fprintf(out, "<td>");
        esc(out, v[i] ? v[i] : "-");
        fprintf(out, "</td>");
    }
    fprintf(out, "</tr>\n");
}

static void settings(FILE *out, struct html_rd rd[2], const struct html_compare *c)
{
    fprintf(out, "<h2>Settings</h2>\n");
    for (int k = 0; k < COMPARE_SETTINGS; k++) {
        const struct compare_setting *s = &c->settings[k];
        if (!s->differ)
            continue;
        fprintf(out, "<p class=\"warn\">Warning: %s differ: ", s->what);
        esc(out, s->base);
        fprintf(out, " in BASE, ");
        esc(out, s->new_);
        fprintf(out, " in NEW</p>\n");
    }
    fprintf(out, "<table class=\"kv\" id=\"settings\"><tr><th></th><th>BASE</th><th>NEW</th></tr>\n");
    const char *v[2];
    char buf[2][64];
    for (int i = 0; i < 2; i++)
        v[i] = c->run[i].path;
    setting_row(out, "file", v, false);
    for (int i = 0; i < 2; i++)
        v[i] = html_rd_str(&rd[i], c->run[i].root, "", "version", false, NULL);
    setting_row(out, "volley", v, false);
    for (int i = 0; i < 2; i++)
        v[i] = html_utc(html_rd_num(&rd[i], c->run[i].root, "", "start_time", false), buf[i], sizeof buf[i]);
    setting_row(out, "started", v, false);
    for (int k = 0; k < COMPARE_SETTINGS; k++) {
        const struct compare_setting *s = &c->settings[k];
        const char *sv[2] = {s->base, s->new_};
        setting_row(out, s->name, sv, s->differ);
    }
    for (int i = 0; i < 2; i++) {
        double d = html_rd_num(&rd[i], c->run[i].root, "", "duration", false);
        snprintf(buf[i], sizeof buf[i], "%.3f s", d);
        v[i] = isnan(d) ? NULL : buf[i];
    }
    setting_row(out, "duration", v, false);
    fprintf(out, "</table>\n");
}

static void table(FILE *out, const struct html_compare *c)
{
    static const char *const verdict_class[] = {"nodata", "same", "better", "worse"};
    fprintf(out, "<h2>Comparison</h2>\n<table id=\"comparison\"><tr><th>figure</th><th class=\"n\">BASE</th>"
                 "<th class=\"n\">NEW</th><th class=\"n\">change</th><th class=\"n\">relative</th>"
                 "<th>verdict</th></tr>\n");
    for (size_t i = 0; i < c->nrows; i++) {
        const struct compare_row *r = &c->rows[i];
        const char *cells[] = {r->base, r->new_, r->diff, r->rel};
        fprintf(out, "<tr><td>");
        esc(out, r->name);
        fprintf(out, "</td>");
        for (size_t k = 0; k < sizeof cells / sizeof cells[0]; k++) {
            fprintf(out, "<td class=\"n\">");
            esc(out, cells[k]);
            fprintf(out, "</td>");
        }
        fprintf(out, "<td><span class=\"%s\">", verdict_class[r->verdict]);
        esc(out, r->verdict_text);
        fprintf(out, "</span></td></tr>\n");
    }
    fprintf(out, "</table>\n<p class=\"note\">A change is better or worse when it is larger than the runs' noise "
                 "and than 1 %% of BASE; else it is the same. A percentile's noise comes from both histograms "
                 "(the values around it that as many requests could have given by chance), the other figures' "
                 "from the spread of their seconds (a flow's and a request name's other figures have none: their "
                 "noise is unknown). Shares (errors, non-2xx/3xx, failed iterations, checks passed) change in "
                 "percentage points (pp).</p>\n");
}

static void limits(FILE *out, const struct html_compare *c)
{
    if (c->nlimits == 0)
        return;
    fprintf(out, "<h2>Thresholds</h2>\n<p class=\"note\">On the change from BASE to NEW. --threshold: FAIL unless "
                 "it holds; --fail-if: FAIL if it holds.</p>\n"
                 "<table id=\"limits\"><tr><th>word</th><th>threshold</th><th class=\"n\">change</th>"
                 "<th>result</th></tr>\n");
    for (size_t i = 0; i < c->nlimits; i++) {
        fprintf(out, "<tr><td>%s</td><td><code>", threshold_word_option(c->limits[i].word));
        esc(out, c->limits[i].expr);
        fprintf(out, "</code></td><td class=\"n\">");
        esc(out, c->judged[i].change);
        fprintf(out, "</td><td>%s", c->judged[i].fails ? "<span class=\"fail\">FAIL</span>" : "<span class=\"pass\">pass</span>");
        if (*c->judged[i].note) {
            fprintf(out, " <span class=\"note\">(");
            esc(out, c->judged[i].note);
            fprintf(out, ")</span>");
        }
        fprintf(out, "</td></tr>\n");
    }
    fprintf(out, "</table>\n");
}

static void distributions(FILE *out, const struct html_compare *c)
{
    struct html_dist d[2];
    size_t n = 0;
    for (int i = 0; i < 2; i++) {
        const struct compare_run *r = c->run[i].run;
        const struct compare_dist *l = &r->dist[0];
        if (l->has)
            d[n++] = (struct html_dist){who[i], &l->h, isnan(l->exact_max) ? INFINITY : l->exact_max / 1e6, colors[i],
                                        false};
    }
    fprintf(out, "<h2>Latency</h2>\n");
    html_dist_chart(out, "Latency by percentile", "cmp-percentiles", d, n);
}

/* Both runs' requests/s and latency p99 per column, each at its own
 * seconds from its start. */
static void over_time(FILE *out, struct html_rd rd[2], const struct html_compare *c)
{
    struct html_cols cols[2];
    bool have[2];
    fprintf(out, "<h2>Over time</h2>\n");
    for (int i = 0; i < 2; i++) {
        const char *why;
        have[i] = html_series_cols(&rd[i], c->run[i].root, HTML_SERIES_COLUMNS, &cols[i], &why);
        if (!have[i] && !rd[i].failed)
            fprintf(out, "<p class=\"none\">%s: %s</p>\n", who[i], why);
        else if (have[i] && cols[i].per > 1)
            fprintf(out, "<p class=\"note\">%s: %zu seconds in %zu columns of %zu seconds each: counts are summed "
                         "and latency histograms merged, so every column is exact.</p>\n",
                    who[i], cols[i].npoints, cols[i].n, cols[i].per);
    }
    struct html_line rps[2], p99[2];
    size_t k = 0;
    double xmax = 1;
    for (int i = 0; i < 2; i++) {
        if (!have[i])
            continue;
        double *y = xcalloc(2 * cols[i].n, sizeof *y);
        for (size_t j = 0; j < cols[i].n; j++) {
            y[j] = (double)cols[i].b[j].requests / cols[i].b[j].secs;
            y[cols[i].n + j] = cols[i].b[j].p99 / 1e3;
        }
        rps[k] = (struct html_line){who[i], y, colors[i], false, cols[i].x, cols[i].n};
        p99[k] = (struct html_line){who[i], y + cols[i].n, colors[i], false, cols[i].x, cols[i].n};
        k++;
        xmax = fmax(xmax, cols[i].xmax);
    }
    if (k > 0) {
        fprintf(out, "<p class=\"note\">x: seconds from each run's own start.</p>\n");
        struct html_chart ch = {.title = "Requests per second", .id = "cmp-rps", .yunit = "requests/s", .xunit = "s",
                                .xmin = 0, .xmax = xmax, .lines = rps, .nlines = k};
        html_chart(out, &ch);
        ch.title = "Latency p99 per second";
        ch.id = "cmp-p99";
        ch.yunit = "ms";
        ch.lines = p99;
        html_chart(out, &ch);
    }
    for (size_t i = 0; i < k; i++)
        free((double *)rps[i].y);
    for (int i = 0; i < 2; i++)
        if (have[i])
            html_cols_free(&cols[i]);
}

int html_compare(FILE *out, const struct html_compare *c, char *err, size_t errlen)
{
    char e[2][600];
    struct html_rd rd[2] = {{e[0], sizeof e[0], false}, {e[1], sizeof e[1], false}};
    char title[600];
    snprintf(title, sizeof title, "compare %s %s", c->run[0].path, c->run[1].path);
    html_page_start(out, title, strlen(title));
    fprintf(out, "<h1>volley compare</h1>\n");
    for (int i = 0; i < 2; i++) {
        fprintf(out, "<p class=\"url\"><strong>%s</strong> ", who[i]);
        esc(out, c->run[i].path);
        fprintf(out, ": ");
        esc(out, c->run[i].run->url ? c->run[i].run->url : "(no URL)");
        fprintf(out, "</p>\n");
    }
    settings(out, rd, c);
    table(out, c);
    limits(out, c);
    distributions(out, c);
    over_time(out, rd, c);
    html_embed_json(out, "volley-base", c->run[0].text, c->run[0].len);
    html_embed_json(out, "volley-new", c->run[1].text, c->run[1].len);
    fprintf(out, "</body></html>\n");
    for (int i = 0; i < 2; i++)
        if (rd[i].failed) {
            snprintf(err, errlen, "%s: %s", c->run[i].path, e[i]);
            return -1;
        }
    return 0;
}
