/* `volley compare BASE.json NEW.json [--html FILE] [--threshold EXPR]...
 * [--fail-if EXPR]...`: two saved results side by side, each figure's
 * change judged against the runs' noise, warnings where their settings
 * differ, limits on the changes (a --threshold must hold, a --fail-if
 * fails when it holds), and with --html the same as a page. Exit status:
 * 0, 1 a file unreadable or FILE not written, 2 a bad command line, 99 a
 * limit failed (docs/usage.md#volley-compare). */
#include "cmd_compare.h"

#include "cmd.h"
#include "compare.h"
#include "html_compare.h"
#include "json_in.h"
#include "outfile.h"
#include "quote.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS COMPARE_MAX_ROWS

static const char compare_usage[] =
    "Usage: volley compare BASE.json NEW.json [--html FILE] [--threshold EXPR]... [--fail-if EXPR]...\n"
    "  compares two results saved with --json: each figure of both, its change and a verdict\n"
    "  (better, worse, same within the runs' noise); warns where their settings differ.\n"
    "  --html FILE       also writes the comparison as a self-contained HTML page, with both\n"
    "                    runs' latency distributions and their requests/s and p99 over time\n"
    "  --threshold EXPR  a limit on the change from BASE to NEW that must hold (else exit 99):\n"
    "                    'p99 < +10%', 'rps > -5%', 'p99 < +2ms', 'errors < +0.1%' (points)\n"
    "  --fail-if EXPR    FAIL (exit 99) if the change from BASE to NEW is so:\n"
    "                    'p99 > +10%', 'rps < -5%', 'p99 > +2ms', 'errors > +0.1%' (points)\n";


/* A loaded file: its text, its tree, its figures. */
struct loaded {
    const char *path;
    char *text;
    size_t len;
    struct json root;
    struct compare_run run;
    bool ok;
};

static int load(struct loaded *f, const char *path)
{
    char err[600];
    f->path = path;
    if (cmd_read_result(path, &f->text, &f->len, err, sizeof err) < 0)
        return cmd_fail("compare", 1, "%s", err);
    if (json_in_parse(f->text, f->len, &f->root, err, sizeof err) < 0)
        return cmd_fail("compare", 1, "%s: %s", path, err);
    if (compare_load(&f->run, &f->root, err, sizeof err) < 0)
        return cmd_fail("compare", 1, "%s: %s", path, err);
    f->ok = true;
    return 0;
}

static void unload(struct loaded *f)
{
    if (f->ok)
        compare_free(&f->run);
    json_in_free(&f->root);
    free(f->text);
}

static void print_settings(const struct compare_setting *set)
{
    for (int i = 0; i < COMPARE_SETTINGS; i++)
        if (set[i].differ)
            printf("Warning: %s differ: %s in BASE, %s in NEW\n", set[i].what, set[i].base, set[i].new_);
}

static void print_table(const struct compare_row *rows, size_t nrows)
{
    char change[MAX_ROWS][64];
    int w[4] = {(int)strlen("figure"), (int)strlen("base"), (int)strlen("new"), (int)strlen("change")};
    for (size_t i = 0; i < nrows; i++) {
        const struct compare_row *r = &rows[i];
        char full[sizeof r->diff + sizeof r->rel + 4];
        snprintf(full, sizeof full, *r->rel ? "%s (%s)" : "%s", r->diff, r->rel);
        snprintf(change[i], sizeof change[i], "%.63s", full); /* a cell is at most 63 bytes, as ever */
        const char *cell[4] = {r->name, r->base, r->new_, change[i]};
        for (int c = 0; c < 4; c++)
            if ((int)strlen(cell[c]) > w[c])
                w[c] = (int)strlen(cell[c]);
    }
    printf("%-*s  %-*s  %-*s  %-*s  %s\n", w[0], "figure", w[1], "base", w[2], "new", w[3], "change", "verdict");
    for (size_t i = 0; i < nrows; i++)
        printf("%-*s  %-*s  %-*s  %-*s  %s\n", w[0], rows[i].name, w[1], rows[i].base, w[2], rows[i].new_, w[3],
               change[i], rows[i].verdict_text);
}

/* Limits: the block after the table, then one line on stderr if one
 * failed. */
static void print_limits(const struct compare_limit *ls, const struct compare_judged *j, size_t nl, size_t failed)
{
    if (nl == 0)
        return;
    size_t ew = 0, named = 0;
    char names[1200] = "";
    for (size_t i = 0; i < nl; i++)
        if (strlen(ls[i].expr) > ew)
            ew = strlen(ls[i].expr);
    if (ew > 60)
        ew = 60;
    printf("\nThresholds (the change from BASE to NEW):\n");
    for (size_t i = 0; i < nl; i++) {
        char expr[64];
        quote_printable(expr, sizeof expr, ls[i].expr);
        const char *word = threshold_word_option(ls[i].word);
        if (*j[i].note) /* the verdict on the same figure says otherwise: why */
            printf("  %-11s  %-*s  %10s  %-4s  (%s)\n", word, (int)ew, expr, j[i].change,
                   j[i].fails ? "FAIL" : "pass", j[i].note);
        else
            printf("  %-11s  %-*s  %10s  %s\n", word, (int)ew, expr, j[i].change, j[i].fails ? "FAIL" : "pass");
        if (j[i].fails && named < 5) {
            size_t at = strlen(names);
            snprintf(names + at, sizeof names - at, "%s%s \"%s\"", named++ ? ", " : "", word, expr);
        }
    }
    if (failed) {
        fflush(stdout);
        cmd_fail("compare", 99, "%zu of %zu threshold%s failed: %s%s", failed, nl, nl == 1 ? "" : "s", names,
                 failed > 5 ? " and more" : "");
    }
}

/* What became of --html's page. */
enum page {
    PAGE_NONE,       /* no --html */
    PAGE_READY,      /* rendered, open for outfile_commit */
    PAGE_UNWRITABLE, /* FILE could not be opened: exit 1, the text all the same */
    PAGE_BAD_RESULT, /* a result did not render: a bad file, exit 1, nothing printed */
};

/* --html: the page, rendered into its temporary file before anything is
 * printed, so that a result that does not render is a bad file like any
 * other. Errors are said here. */
static enum page write_page(struct outfile *of, const char *html, const struct loaded *f,
                            const struct compare_setting *set, const struct compare_row *rows, size_t nrows,
                            const struct compare_limit *ls, const struct compare_judged *j, size_t nl)
{
    char err[800];
    FILE *out = outfile_open(of, "--html", html, err, sizeof err);
    if (!out) {
        cmd_fail("compare", 1, "%s", err);
        return PAGE_UNWRITABLE;
    }
    struct html_compare c = {.settings = set, .rows = rows, .nrows = nrows, .limits = ls, .judged = j, .nlimits = nl};
    for (int i = 0; i < 2; i++)
        c.run[i] = (struct html_compare_run){f[i].path, &f[i].root, f[i].text, f[i].len, &f[i].run};
    if (html_compare(out, &c, err, sizeof err) < 0) {
        outfile_abandon(of);
        cmd_fail("compare", 1, "%s", err);
        return PAGE_BAD_RESULT;
    }
    return PAGE_READY;
}

/* Reads both files, prints the comparison (and writes the page when html
 * is not NULL). Returns the exit status: a page not written (1) wins over
 * a failed limit (99). */
static int compare_files(const char *const files[2], const char *html, const struct compare_limit *ls, size_t nl)
{
    struct loaded f[2] = {{0}};
    int status = 0;
    if (load(&f[0], files[0]) != 0 || load(&f[1], files[1]) != 0) {
        unload(&f[0]);
        unload(&f[1]);
        return 1;
    }
    struct compare_setting set[COMPARE_SETTINGS];
    struct compare_row rows[MAX_ROWS];
    struct compare_judged *j = xcalloc(nl ? nl : 1, sizeof *j);
    compare_settings(&f[0].run, &f[1].run, set);
    size_t nrows = compare_table(&f[0].run, &f[1].run, rows, MAX_ROWS);
    size_t failed = compare_judge_limits(ls, nl, &f[0].run, &f[1].run, j);
    struct outfile of;
    enum page page = html ? write_page(&of, html, f, set, rows, nrows, ls, j, nl) : PAGE_NONE;
    if (page == PAGE_BAD_RESULT) {
        status = 1;
    } else {
        char qb[300], qn[300], err[800];
        printf("BASE %s\nNEW  %s\n", quote_printable(qb, sizeof qb, files[0]), quote_printable(qn, sizeof qn, files[1]));
        print_settings(set);
        print_table(rows, nrows);
        print_limits(ls, j, nl, failed);
        if (failed)
            status = 99;
        if (page == PAGE_UNWRITABLE)
            status = 1;
        else if (page == PAGE_READY && outfile_commit(&of, err, sizeof err) < 0)
            status = cmd_fail("compare", 1, "%s", err);
    }
    free(j);
    unload(&f[0]);
    unload(&f[1]);
    return status;
}

int cmd_compare(int argc, char **argv)
{
    const char *files[2] = {NULL, NULL}, *html = NULL;
    size_t nfiles = 0, nl = 0;
    struct compare_limit *ls = xcalloc((size_t)argc, sizeof *ls);
    int status = 0;
    char err[600];
    for (int i = 1; i < argc && status == 0; i++) {
        const char *a = argv[i], *expr = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(compare_usage, stdout);
            goto out;
        }
        bool fail_if = cmd_is_option(a, "--fail-if");
        const char **value = cmd_is_option(a, "--html")                    ? &html
                             : fail_if || cmd_is_option(a, "--threshold") ? &expr
                                                                          : NULL;
        if (value) {
            status = cmd_option_value("compare", argc, argv, &i, value);
        } else if (a[0] == '-' && a[1] != '\0') {
            status = cmd_fail("compare", 2, "%s: unknown option (volley compare takes --html FILE, --threshold EXPR "
                                            "and --fail-if EXPR)", a);
        } else if (nfiles == 2) {
            status = cmd_fail("compare", 2, "%s: two result files only (BASE.json NEW.json)", a);
        } else {
            files[nfiles++] = a;
        }
        if (status == 0 && expr &&
            compare_limit_parse(&ls[nl++], expr, fail_if ? THRESHOLD_FAIL_IF : THRESHOLD_MUST_HOLD, err,
                                sizeof err) < 0) {
            nl--;
            status = cmd_fail("compare", 2, "%s", err);
        }
    }
    if (status == 0 && nfiles < 2)
        status = cmd_fail("compare", 2,
                          "needs two result files (usage: volley compare BASE.json NEW.json [--html FILE] "
                          "[--threshold EXPR]... [--fail-if EXPR]...)");
    for (size_t i = 0; status == 0 && i < nl; i++) {
        char note[700];
        if (compare_limit_note(&ls[i], note, sizeof note))
            fprintf(stderr, "volley compare: %s\n", note);
    }
    /* the text goes to stdout: the page needs a file of its own */
    if (status == 0 && html && (!*html || strcmp(html, "-") == 0))
        status = cmd_fail("compare", 2, "--html: \"%s\" is not a file name", html);
    if (status == 0 && html && outfile_check("--html", html, false, err, sizeof err) < 0)
        status = cmd_fail("compare", 2, "%s", err);
    if (status == 0)
        status = compare_files(files, html, ls, nl);
out:
    for (size_t i = 0; i < nl; i++)
        compare_limit_free(&ls[i]);
    free(ls);
    return status;
}
