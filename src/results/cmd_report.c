/* `volley report RESULT.json`: a saved result (the --json file of an
 * earlier run, untrusted) read back and reported again with the run's own
 * code: the text report byte for byte as the run printed it, the JSON
 * (--json), the HTML report (--html), and the thresholds judged again
 * (the saved ones, or --threshold's and --fail-if's). Exit status as the run's: 0, 1 (also
 * the result unreadable or a file not written), 2 a bad command line, 3
 * -R's rate not met, 99 a threshold failed, 105 the run was interrupted
 * (docs/usage.md#volley-report). */
#include "cmd_report.h"

#include "cmd.h"
#include "html.h"
#include "json_in.h"
#include "options.h"
#include "outfile.h"
#include "report.h"
#include "result_run.h"
#include "run.h"
#include "threshold.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char report_usage[] =
    "Usage: volley report RESULT.json [--json FILE] [--html FILE] [--threshold EXPR]...\n"
    "                     [--fail-if EXPR]... [-q]\n"
    "  prints the text report of a result saved with --json, as the run printed it,\n"
    "  and judges its thresholds again (exit status as the run's: 3 rate not met,\n"
    "  99 a threshold failed, 11 a partial merge); nothing is sent\n"
    "  --json FILE       writes the result again (\"-\": on stdout, instead of the text)\n"
    "  --html FILE       writes the self-contained HTML report\n"
    "  --threshold EXPR  judges this limit, which must hold, instead of the saved\n"
    "                    thresholds; repeatable\n"
    "  --fail-if EXPR    judges this instead of the saved thresholds: fails if EXPR\n"
    "                    holds; repeatable\n"
    "  -q                no text report\n";

/* What to make of the result. */
struct wants {
    const char *json, *html;
    struct threshold_expr *exprs; /* --threshold's and --fail-if's, in order */
    size_t nexprs;
    bool quiet;
};

/* --json: the result written again from what was read back. */
static int write_json(const struct result_run *rr, const char *path, char *err, size_t errlen)
{
    struct outfile of;
    FILE *f = outfile_open(&of, "--json", path, err, errlen);
    if (!f)
        return -1;
    report_json(f, &rr->o, &rr->t, &rr->r);
    return outfile_commit(&of, err, errlen);
}

/* --html: the page of the saved text as it is, or, with other thresholds
 * judged (--threshold, --fail-if), of the result written again with their outcomes. */
static int write_html(const struct result_run *rr, const struct wants *w, const struct json *root,
                      const char *text, size_t len, const char *result, char *err, size_t errlen)
{
    struct outfile of;
    FILE *f = outfile_open(&of, "--html", w->html, err, errlen);
    int rc = -1;
    char why[400];
    if (!f)
        ;
    else if ((w->nexprs ? report_html(f, &rr->o, &rr->t, &rr->r, why, sizeof why)
                        : html_render(f, root, text, len, why, sizeof why)) < 0) {
        outfile_abandon(&of);
        snprintf(err, errlen, "%s: %s", result, why);
    } else {
        rc = outfile_commit(&of, err, errlen);
    }
    return rc;
}

/* Reads result and does what w asks. Returns the exit status. */
static int render(const char *result, const struct wants *w)
{
    char err[600];
    if ((w->html && outfile_check("--html", w->html, false, err, sizeof err) < 0) ||
        (w->json && outfile_check("--json", w->json, true, err, sizeof err) < 0))
        return cmd_fail("report", 2, "%s", err);
    char *text;
    size_t len;
    if (cmd_read_result(result, &text, &len, err, sizeof err) < 0)
        return cmd_fail("report", 1, "%s", err);
    struct json root;
    if (json_in_parse(text, len, &root, err, sizeof err) < 0) {
        free(text);
        return cmd_fail("report", 1, "%s: %s", result, err);
    }
    struct result_run rr;
    int status = 0;
    switch (result_run_load(&root, w->exprs, w->nexprs, &rr, err, sizeof err)) {
    case RESULT_RUN_FILE:
        status = cmd_fail("report", 1, "%s: %s", result, err);
        break;
    case RESULT_RUN_EXPR:
        status = cmd_fail("report", 2, "%s", err);
        break;
    default:
        if (w->nexprs) /* the saved ones had theirs at the run */
            report_threshold_notes(stderr, &rr.o);
        break;
    }
    /* As main does after a run, in its order: the report, the files, the
     * rate, the thresholds, and last why it stopped or that nothing
     * completed. */
    const struct options *o = &rr.o;
    const struct run_result *r = &rr.r;
    if (status == 0) {
        if (!w->quiet && !(w->json && strcmp(w->json, "-") == 0)) {
            report_header(stdout, o, &rr.t, r);
            report_text(stdout, o, &rr.t, r);
        }
        fflush(stdout);
        if (w->json && write_json(&rr, w->json, err, sizeof err) < 0)
            status = cmd_fail("report", 1, "%s", err);
        if (w->html && write_html(&rr, w, &root, text, len, result, err, sizeof err) < 0)
            status = cmd_fail("report", 1, "%s", err);
        if (report_rate_missed(stderr, o, r) && status == 0)
            status = 3;
        if (report_thresholds_failed(stderr, o, r) && status == 0)
            status = 99;
        if (report_partial(stderr, r) && status != 1) /* as volley merge --partial exited */
            status = MERGE_PARTIAL;
        if (report_stop_reason(stderr, &rr.t, r) || report_none_completed(stderr, r))
            status = 1;
        else if (report_interrupted(stderr, r) && status != 1)
            status = REPORT_INTERRUPTED_STATUS;
    }
    result_run_free(&rr);
    json_in_free(&root);
    free(text);
    return status;
}

int cmd_report(int argc, char **argv)
{
    const char *result = NULL;
    struct wants w = {.exprs = xcalloc((size_t)argc, sizeof *w.exprs)}; /* at most one per word */
    int status = 0;
    for (int i = 1; i < argc && status == 0; i++) {
        const char *a = argv[i];
        bool fail_if = cmd_is_option(a, "--fail-if");
        const char **value = cmd_is_option(a, "--html")                  ? &w.html
                             : cmd_is_option(a, "--json")                ? &w.json
                             : fail_if || cmd_is_option(a, "--threshold") ? &w.exprs[w.nexprs].expr
                                                                         : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(report_usage, stdout);
            free(w.exprs);
            return 0;
        }
        if (value) {
            status = cmd_option_value("report", argc, argv, &i, value);
            if (value == &w.exprs[w.nexprs].expr)
                w.exprs[w.nexprs++].word = fail_if ? THRESHOLD_FAIL_IF : THRESHOLD_MUST_HOLD;
        } else if (strcmp(a, "-q") == 0) {
            w.quiet = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            status = cmd_fail("report", 2, "%s: unknown option (volley report takes --json FILE, --html FILE, "
                                           "--threshold EXPR, --fail-if EXPR and -q)", a);
        } else if (result) {
            status = cmd_fail("report", 2, "%s: one result file at a time (already given %s)", a, result);
        } else {
            result = a;
        }
    }
    if (status == 0 && !result)
        status = cmd_fail("report", 2, "missing RESULT.json (usage: volley report RESULT.json [--json FILE] "
                                       "[--html FILE] [--threshold EXPR]... [--fail-if EXPR]... [-q])");
    if (status == 0 && w.html && (!*w.html || strcmp(w.html, "-") == 0))
        status = cmd_fail("report", 2, "--html: \"%s\" is not a file name", w.html);
    if (status == 0 && w.json && !*w.json)
        status = cmd_fail("report", 2, "--json: \"\" is not a file name");
    if (status == 0)
        status = render(result, &w);
    free(w.exprs);
    return status;
}
