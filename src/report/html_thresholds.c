/* The HTML report's thresholds table (--threshold, --fail-if): each
 * expression with its word, its observed figure as the text report prints
 * it, the limit and the verdict, from the result's "thresholds". */
#include "html.h"
#include "html_internal.h"
#include "json_in.h"
#include "threshold.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void esc(FILE *out, const char *s)
{
    if (s)
        html_escape(out, s, strlen(s));
}

/* A threshold's observed figure as the text report prints it ("9.18ms"):
 * the expression parsed again for its kind. One it cannot parse (another
 * version's grammar) shows the JSON's number and unit. */
static void observed(FILE *out, struct html_rd *rd, const struct json *t, const char *at, const char *expr,
                     enum threshold_word word, double obs, const char *unit)
{
    struct threshold th;
    char err[8];
    if (threshold_parse(&th, expr, word, true, err, sizeof err) < 0) {
        if (isnan(obs))
            fputs("no data", out);
        else
            fprintf(out, "%.6g", obs);
        esc(out, isnan(obs) ? NULL : unit);
        return;
    }
    const struct json *nodata = html_rd_of(rd, t, at, "nodata", JSON_BOOL, false);
    struct threshold_result res = {
        .observed = obs * th.unit_ns, /* the JSON's is in the expression's unit */
        .nodata = isnan(obs) || (nodata && nodata->b),
        .note = html_rd_str(rd, t, at, "note", false, NULL),
    };
    char buf[64];
    esc(out, threshold_observed_text(buf, sizeof buf, &th, &res));
    threshold_free(&th);
}

void html_thresholds(FILE *out, struct html_rd *rd, const struct json *r)
{
    const struct json *th = html_rd_of(rd, r, "", "thresholds", JSON_ARRAY, false);
    if (!th)
        return;
    fprintf(out, "<h2>Thresholds</h2>\n<p class=\"note\">--threshold: the run fails unless it holds; --fail-if: the run "
                 "fails if it holds.</p>\n<table id=\"thresholds\"><tr><th>word</th><th>threshold</th>"
                 "<th class=\"n\">observed</th><th class=\"n\">limit</th><th>result</th></tr>\n");
    for (size_t i = 0; i < th->len && !rd->failed; i++) {
        char at[48];
        snprintf(at, sizeof at, "thresholds[%zu]", i);
        const struct json *t = &th->items[i];
        if (t->type != JSON_OBJECT) {
            html_rd_fail(rd, at, NULL, "expected an object, found %s", json_in_type_name(t));
            return;
        }
        const char *expr = html_rd_str(rd, t, at, "expr", true, NULL);
        const char *unit = html_rd_str(rd, t, at, "unit", false, NULL);
        /* A result without "word" is older than the word: its expressions must hold. */
        const char *wname = html_rd_str(rd, t, at, "word", false, NULL);
        enum threshold_word word = THRESHOLD_MUST_HOLD;
        if (wname && threshold_word_parse(wname, &word) < 0)
            html_rd_fail(rd, at, "word", "expected \"threshold\" or \"fail-if\"");
        const struct json *pass = html_rd_of(rd, t, at, "pass", JSON_BOOL, true);
        double obs = html_rd_num(rd, t, at, "observed", false);
        double limit = html_rd_num(rd, t, at, "limit", false);
        if (rd->failed)
            return;
        fprintf(out, "<tr><td>%s</td><td><code>", threshold_word_option(word));
        esc(out, expr);
        fprintf(out, "</code></td><td class=\"n\">");
        observed(out, rd, t, at, expr, word, obs, unit);
        fprintf(out, "</td><td class=\"n\">");
        html_num(out, limit, 3);
        esc(out, unit);
        fprintf(out, "</td><td>%s</td></tr>\n", pass->b ? "<span class=\"pass\">pass</span>" : "<span class=\"fail\">FAIL</span>");
    }
    fprintf(out, "</table>\n");
}
