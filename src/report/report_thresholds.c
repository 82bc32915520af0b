/* The thresholds' part of the reports (--threshold, --fail-if): the text
 * report's closing block, the JSON's "thresholds" member and the stderr
 * line that goes with exit status 99, each expression with the word it
 * came with. The outcomes were computed by the run (run_result.thresholds);
 * this file only shows them. */
#include "report_internal.h"

#include "json_out.h"
#include "quote.h"

#include <string.h>

/* The widest the expression column grows (escaped); a longer expression
 * is written whole on a line of its own, and its figures follow on the
 * next line, in their columns (as report_name_lead's long names). */
#define EXPR_WIDTH 60
/* Where the expression starts: after "  --threshold  " (the word's column). */
#define EXPR_AT 15
/* Failed expressions the stderr line names; the rest are counted. */
#define LINE_EXPRS 5

void report_thresholds_text(FILE *out, const struct options *o, const struct run_result *r)
{
    if (!o->nthresholds)
        return;
    char obs[64];
    int ew = 0, ow = 0;
    for (size_t i = 0; i < o->nthresholds; i++) {
        int e = report_cell_width(o->thresholds[i].expr, EXPR_WIDTH);
        int w = (int)strlen(threshold_observed_text(obs, sizeof obs, &o->thresholds[i], &r->thresholds[i]));
        ew = e > ew ? e : ew;
        ow = w > ow ? w : ow;
    }
    fprintf(out, "Thresholds:\n");
    for (size_t i = 0; i < o->nthresholds; i++) {
        const struct threshold *th = &o->thresholds[i];
        const struct threshold_result *res = &r->thresholds[i];
        fprintf(out, "  %-*s  ", EXPR_AT - 4, threshold_word_option(th->word));
        report_cell(out, EXPR_AT, ew, th->expr);
        fprintf(out, "  %*s  %s", ow, threshold_observed_text(obs, sizeof obs, th, res), res->pass ? "pass" : "FAIL");
        if (res->note)
            fprintf(out, " (the metric is %s)", res->note);
        else if (res->aborted)
            fprintf(out, " (stopped the run)");
        fputc('\n', out);
    }
}

void report_thresholds_json(FILE *out, const struct options *o, const struct run_result *r)
{
    if (!o->nthresholds) {
        fprintf(out, "  \"thresholds\": null,\n");
        return;
    }
    fprintf(out, "  \"thresholds\": [");
    for (size_t i = 0; i < o->nthresholds; i++) {
        const struct threshold *th = &o->thresholds[i];
        const struct threshold_result *res = &r->thresholds[i];
        char fig[512];
        fprintf(out, "%s{\"expr\": ", i ? ", " : "");
        json_out_str(out, th->expr);
        fprintf(out, ", \"word\": \"%s\", \"figure\": ", threshold_word_name(th->word));
        json_out_str(out, threshold_figure(th, fig, sizeof fig));
        fprintf(out, ", \"op\": \"%s\", \"limit\": ", threshold_op_name(th->op));
        json_out_num(out, threshold_in_unit(th, th->limit), JSON_OUT_G);
        fprintf(out, ", \"unit\": ");
        if (th->unit)
            json_out_str(out, th->unit);
        else
            fprintf(out, "null");
        fprintf(out, ", \"observed\": ");
        json_out_num(out, threshold_in_unit(th, res->observed), JSON_OUT_G); /* NAN: null */
        fprintf(out, ", \"pass\": %s, \"nodata\": %s, \"or_nodata\": %s, \"abort\": %s, \"aborted\": %s, \"note\": ",
                res->pass ? "true" : "false", res->nodata ? "true" : "false", th->or_nodata ? "true" : "false",
                th->abort ? "true" : "false", res->aborted ? "true" : "false");
        if (res->note)
            json_out_str(out, res->note);
        else
            fprintf(out, "null");
        fprintf(out, "}");
    }
    fprintf(out, "],\n");
}

bool report_thresholds_failed(FILE *err, const struct options *o, const struct run_result *r)
{
    size_t failed = 0;
    for (size_t i = 0; i < o->nthresholds; i++)
        failed += !r->thresholds[i].pass;
    if (!failed)
        return false;
    fprintf(err, "volley: %zu of %zu threshold%s failed:", failed, o->nthresholds, o->nthresholds == 1 ? "" : "s");
    size_t named = 0;
    for (size_t i = 0; i < o->nthresholds && named < LINE_EXPRS; i++) {
        if (r->thresholds[i].pass)
            continue;
        char expr[EXPR_WIDTH + 5];
        fprintf(err, "%s %s \"%s\"", named++ ? "," : "", threshold_word_option(o->thresholds[i].word),
                quote_printable(expr, sizeof expr, o->thresholds[i].expr));
    }
    if (failed > named)
        fprintf(err, " and %zu more", failed - named);
    fputc('\n', err);
    return true;
}

void report_thresholds(FILE *out, const struct options *o, const struct run_result *r)
{
    report_thresholds_text(out, o, r);
}

void report_threshold_notes(FILE *err, const struct options *o)
{
    char note[1400];
    for (size_t i = 0; i < o->nthresholds; i++)
        if (threshold_note(&o->thresholds[i], "the run", note, sizeof note))
            fprintf(err, "volley: %s\n", note);
}
