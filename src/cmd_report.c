/* `volley report RESULT.json --html FILE`: renders a saved result (the
 * --json file of an earlier run, untrusted) as the HTML report, with the
 * same code as a live run's --html. Exit status: 0 written, 1 the result
 * could not be read, parsed or rendered, or FILE not written, 2 a bad
 * command line (docs/usage.md#volley-report). */
#include "cmd_report.h"

#include "html.h"
#include "json_in.h"
#include "options.h"
#include "outfile.h"
#include "quote.h"
#include "report.h"
#include "result_load.h"
#include "run.h"
#include "threshold.h"
#include "xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char report_usage[] =
    "Usage: volley report RESULT.json [--html FILE] [--fail-if EXPR]...\n"
    "  --html FILE     renders a result saved with --json as a self-contained HTML report\n"
    "  --fail-if EXPR  judges a threshold again on the saved result (as a run's\n"
    "                  --fail-if; exit 99 when one fails); repeatable\n";

int cmd_fail(const char *cmd, int status, const char *fmt, ...)
{
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "volley %s: ", cmd);
    quote_write(stderr, msg); /* file names and the result's keys: no control bytes on the terminal */
    fputc('\n', stderr);
    return status;
}

int cmd_report_read(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory, not a result file", path);
        fclose(f);
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n == cap) {
            if (cap > JSON_IN_MAX_BYTES) {
                snprintf(err, errlen, "%s: more than %zu MB: larger than volley reads", path,
                         JSON_IN_MAX_BYTES >> 20);
                free(buf);
                fclose(f);
                return -1;
            }
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "%s: read error", path);
        free(buf);
        return -1;
    }
    *text = buf;
    *len = n;
    return 0;
}

static int render(const char *result, const char *html, const char **exprs, size_t n);

/* --fail-if: the thresholds judged again on the saved result; their block
 * on stdout, the failures' line on stderr. Returns 0, 99 (one failed), 1
 * (the result is unreadable) or 2 (a bad expression). */
static int judge(const char *result, const struct json *root, const char **exprs, size_t n)
{
    char err[600];
    struct stats s;
    stats_init(&s);
    int64_t duration_ns;
    uint64_t rate;
    int status = 0;
    struct options o = {.fail_if = exprs, .nfail_if = n};
    struct run_result r = {0};
    if (result_load(root, &s, &duration_ns, &rate, err, sizeof err) < 0) {
        status = cmd_fail("report", 1, "%s: %s", result, err);
    } else if (threshold_parse_all(exprs, n, rate != 0, &o.thresholds, err, sizeof err) < 0) {
        status = cmd_fail("report", 2, "%s", err);
    } else {
        r.thresholds = xcalloc(n, sizeof *r.thresholds);
        for (size_t i = 0; i < n; i++)
            threshold_eval(&o.thresholds[i], &s, duration_ns, &r.thresholds[i]);
        report_thresholds(stdout, &o, &r);
        fflush(stdout);
        if (report_thresholds_failed(stderr, &o, &r))
            status = 99;
    }
    free(r.thresholds);
    threshold_free_all(o.thresholds, n);
    stats_free(&s);
    return status;
}

int cmd_report(int argc, char **argv)
{
    const char *result = NULL, *html = NULL;
    const char **exprs = xcalloc((size_t)argc, sizeof *exprs); /* --fail-if's, at most one per word */
    size_t nexprs = 0;
    int status = 0;
    for (int i = 1; i < argc && status == 0; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(report_usage, stdout);
            free(exprs);
            return 0;
        }
        if (strcmp(a, "--html") == 0 || strcmp(a, "--fail-if") == 0) {
            if (i + 1 >= argc)
                status = cmd_fail("report", 2, "%s: needs a value", a);
            else if (a[2] == 'h')
                html = argv[++i];
            else
                exprs[nexprs++] = argv[++i];
        } else if (strncmp(a, "--html=", 7) == 0) {
            html = a + 7;
        } else if (strncmp(a, "--fail-if=", 10) == 0) {
            exprs[nexprs++] = a + 10;
        } else if (a[0] == '-' && a[1] != '\0') {
            status = cmd_fail("report", 2, "%s: unknown option (volley report supports --html FILE and --fail-if EXPR)", a);
        } else if (result) {
            status = cmd_fail("report", 2, "%s: one result file at a time (already given %s)", a, result);
        } else {
            result = a;
        }
    }
    if (status == 0 && !result)
        status = cmd_fail("report", 2, "missing RESULT.json (usage: volley report RESULT.json [--html FILE] [--fail-if EXPR]...)");
    if (status == 0 && !html && !nexprs)
        status = cmd_fail("report", 2, "--html FILE or --fail-if EXPR is needed: those are what volley report does so "
                                       "far (the text report of a saved result is not there yet)");
    if (status == 0 && html && (!*html || strcmp(html, "-") == 0))
        status = cmd_fail("report", 2, "--html: \"%s\" is not a file name", html);
    if (status != 0) {
        free(exprs);
        return status;
    }
    status = render(result, html, exprs, nexprs);
    free(exprs);
    return status;
}

/* Reads result and writes the HTML (html may be NULL) and judges the
 * thresholds (exprs; n may be 0). Returns the exit status. */
static int render(const char *result, const char *html, const char **exprs, size_t n)
{
    char err[600];
    if (html && outfile_check("--html", html, false, err, sizeof err) < 0)
        return cmd_fail("report", 2, "%s", err);
    char *text;
    size_t len;
    if (cmd_report_read(result, &text, &len, err, sizeof err) < 0)
        return cmd_fail("report", 1, "%s", err);
    struct json root;
    if (json_in_parse(text, len, &root, err, sizeof err) < 0) {
        free(text);
        return cmd_fail("report", 1, "%s: %s", result, err);
    }
    int status = 0;
    struct outfile of;
    FILE *f = html ? outfile_open(&of, "--html", html, err, sizeof err) : NULL;
    if (html && !f) {
        status = cmd_fail("report", 1, "%s", err);
    } else if (html && html_render(f, &root, text, len, err, sizeof err) < 0) {
        outfile_abandon(&of);
        status = cmd_fail("report", 1, "%s: %s", result, err);
    } else if (html && outfile_commit(&of, err, sizeof err) < 0) {
        status = cmd_fail("report", 1, "%s", err);
    }
    if (status == 0 && n)
        status = judge(result, &root, exprs, n);
    json_in_free(&root);
    free(text);
    return status;
}
