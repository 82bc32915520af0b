/* `volley compare BASE.json NEW.json [--fail-if EXPR]...`: two saved
 * results side by side, each figure's change judged against the runs'
 * noise, warnings where their settings differ, and limits on the changes.
 * Exit status: 0, 1 a file unreadable, 2 a bad command line, 99 a limit
 * failed (docs/usage.md#volley-compare). */
#include "cmd_compare.h"

#include "cmd_report.h"
#include "compare.h"
#include "fmt.h"
#include "json_in.h"
#include "quote.h"
#include "xalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SAMPLES 100000 /* per-second samples used per run (a day and more) */
#define MAX_ROWS 40

static const char compare_usage[] =
    "Usage: volley compare BASE.json NEW.json [--fail-if EXPR]...\n"
    "  compares two results saved with --json: each figure of both, its change and a verdict\n"
    "  (better, worse, same within the runs' noise); warns where their settings differ.\n"
    "  --fail-if EXPR  FAIL (exit 99) when the change from BASE to NEW is so:\n"
    "                  'p99 > +10%', 'rps < -5%', 'p99 > +2ms', 'errors > +0.1%' (points)\n";


/* A loaded file: its text, its tree, its figures. */
struct loaded {
    const char *path;
    char *text;
    struct json root;
    struct compare_run run;
    bool ok;
};

static int load(struct loaded *f, const char *path)
{
    char err[600];
    size_t len;
    f->path = path;
    if (cmd_report_read(path, &f->text, &len, err, sizeof err) < 0)
        return cmd_fail("compare", 1, "%s", err);
    if (json_in_parse(f->text, len, &f->root, err, sizeof err) < 0)
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

/* Settings. */

static void describe_model(const struct compare_run *r, char *buf, size_t len)
{
    if (!isnan(r->rate))
        snprintf(buf, len, "open model at %.10g/s", r->rate);
    else if (r->model && strcmp(r->model, "open") == 0)
        snprintf(buf, len, "open model");
    else
        snprintf(buf, len, "closed loop");
}

static void describe_protocol(const struct compare_run *r, char *buf, size_t len)
{
    char scheme[24];
    quote_printable(scheme, sizeof scheme, r->scheme ? r->scheme : "http");
    if (r->http2) {
        char mode[24];
        quote_printable(mode, sizeof mode, r->http2);
        snprintf(buf, len, "%s, HTTP/2 (%s)", scheme, mode);
    } else {
        snprintf(buf, len, "%s, HTTP/1.1", scheme);
    }
}

static void describe_length(const struct compare_run *r, char *buf, size_t len)
{
    char d[32] = "", n[32] = "";
    if (!isnan(r->duration))
        snprintf(d, sizeof d, "-d %.10gs", r->duration);
    if (!isnan(r->requests))
        snprintf(n, sizeof n, "-n %.0f", r->requests);
    snprintf(buf, len, "%s%s%s", n, *n && *d ? ", " : "", *d || *n ? d : "unknown");
}

static void describe_num(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "unknown");
    else
        snprintf(buf, len, "%.10g", v);
}

static void describe_str(const char *s, char *buf, size_t len)
{
    quote_printable(buf, len, s ? s : "unknown");
}

static void warn_settings(const struct compare_run *b, const struct compare_run *n)
{
    char vb[300], vn[300];
    struct {
        const char *what;
        int how; /* 0 model, 1 protocol, 2 length, 3 number, 4 string */
        double nb, nn;
        const char *sb, *sn;
    } items[] = {
        {"models", 0, 0, 0, NULL, NULL},
        {"connections (-c)", 3, b->connections, n->connections, NULL, NULL},
        {"threads (-t)", 3, b->threads, n->threads, NULL, NULL},
        {"protocols", 1, 0, 0, NULL, NULL},
        {"methods", 4, 0, 0, b->method, n->method},
        {"URLs", 4, 0, 0, b->url, n->url},
        {"lengths (-d, -n)", 2, 0, 0, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        switch (items[i].how) {
        case 0:
            describe_model(b, vb, sizeof vb);
            describe_model(n, vn, sizeof vn);
            break;
        case 1:
            describe_protocol(b, vb, sizeof vb);
            describe_protocol(n, vn, sizeof vn);
            break;
        case 2:
            describe_length(b, vb, sizeof vb);
            describe_length(n, vn, sizeof vn);
            break;
        case 3:
            describe_num(items[i].nb, vb, sizeof vb);
            describe_num(items[i].nn, vn, sizeof vn);
            break;
        default:
            describe_str(items[i].sb, vb, sizeof vb);
            describe_str(items[i].sn, vn, sizeof vn);
            break;
        }
        if (strcmp(vb, vn) != 0)
            printf("Warning: %s differ: %s in BASE, %s in NEW\n", items[i].what, vb, vn);
    }
}

/* The table. */

static void fmt_value(enum compare_kind kind, double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (kind == COMPARE_TIME)
        fmt_time(buf, len, v);
    else if (kind == COMPARE_RATE)
        snprintf(buf, len, "%.1f", v);
    else
        snprintf(buf, len, "%.3g%%", v);
}

/* A signed absolute change: "+1.32ms", "-1358.3", "+0.05pp". */
static void fmt_diff(enum compare_kind kind, double d, char *buf, size_t len)
{
    char t[32];
    if (isnan(d))
        snprintf(buf, len, "-");
    else if (kind == COMPARE_TIME)
        snprintf(buf, len, "%s%s", d < 0 ? "-" : "+", fmt_time(t, sizeof t, fabs(d)));
    else if (kind == COMPARE_RATE)
        snprintf(buf, len, "%+.1f", d);
    else
        snprintf(buf, len, "%+.3gpp", d);
}

static void fmt_change(enum compare_kind kind, double b, double n, char *buf, size_t len)
{
    char d[48];
    fmt_diff(kind, n - b, d, sizeof d);
    if (kind == COMPARE_SHARE || isnan(b) || isnan(n) || b == 0)
        snprintf(buf, len, "%s", d);
    else
        snprintf(buf, len, "%s (%+.1f%%)", d, 100.0 * (n - b) / fabs(b));
}

static void fmt_verdict(enum compare_kind kind, double b, double n, double noise, char *buf, size_t len)
{
    static const char *const words[] = {"no data", "same", "better", "worse"};
    enum compare_verdict v = compare_judge(kind, b, n, noise);
    if (v == COMPARE_NODATA) {
        snprintf(buf, len, "%s", words[v]);
    } else if (isnan(noise)) {
        snprintf(buf, len, "%s (noise unknown)", words[v]);
    } else if (v != COMPARE_SAME) {
        snprintf(buf, len, "%s", words[v]);
    } else if (kind == COMPARE_SHARE) {
        snprintf(buf, len, "same (noise \u00b1%.2gpp)", noise);
    } else {
        double band = fmax(noise, 0.01 * fabs(b));
        if (b != 0)
            snprintf(buf, len, "same (noise \u00b1%.1f%%)", 100.0 * band / fabs(b));
        else
            snprintf(buf, len, "same");
    }
}

struct row {
    char cell[5][64];
};

static void add_row(struct row *rows, size_t *nrows, const struct compare_run *b, const struct compare_run *n,
                    const struct compare_figure *f, double *sb, double *sn)
{
    if (*nrows >= MAX_ROWS)
        return;
    struct row *r = &rows[(*nrows)++];
    enum compare_kind kind = compare_figure_kind(f);
    double vb = compare_value(b, f), vn = compare_value(n, f);
    size_t nb = compare_samples(b, f, sb, MAX_SAMPLES), nn = compare_samples(n, f, sn, MAX_SAMPLES);
    double noise = compare_noise(sb, nb, vb, sn, nn, vn);
    compare_figure_name(f, true, r->cell[0], sizeof r->cell[0]);
    fmt_value(kind, vb, r->cell[1], sizeof r->cell[1]);
    fmt_value(kind, vn, r->cell[2], sizeof r->cell[2]);
    fmt_change(kind, vb, vn, r->cell[3], sizeof r->cell[3]);
    fmt_verdict(kind, vb, vn, noise, r->cell[4], sizeof r->cell[4]);
}

static void print_table(const struct compare_run *b, const struct compare_run *n)
{
    struct row rows[MAX_ROWS + 1] = {{{"figure", "base", "new", "change", "verdict"}}};
    size_t nrows = 1;
    double *sb = xmalloc(MAX_SAMPLES * sizeof *sb), *sn = xmalloc(MAX_SAMPLES * sizeof *sn);
    static const double pcts[4] = {50, 90, 99, 99.9};
    struct compare_figure f = {.src = COMPARE_RPS, .kind = -1};
    add_row(rows, &nrows, b, n, &f, sb, sn);
    for (int src = COMPARE_LATENCY; src <= COMPARE_SENDLAG; src++) {
        if (src != COMPARE_LATENCY && !(b->has_hist[src - COMPARE_LATENCY] && n->has_hist[src - COMPARE_LATENCY]))
            continue;
        f = (struct compare_figure){.src = (enum compare_src)src, .stat = COMPARE_PCT, .kind = -1};
        for (int i = 0; i < 4; i++) {
            f.pct = pcts[i];
            add_row(rows, &nrows, b, n, &f, sb, sn);
        }
        f.stat = COMPARE_MAX;
        add_row(rows, &nrows, b, n, &f, sb, sn);
        f.stat = COMPARE_MEAN;
        add_row(rows, &nrows, b, n, &f, sb, sn);
        if (src == COMPARE_LATENCY) {
            f = (struct compare_figure){.src = COMPARE_ERRORS, .kind = -1};
            add_row(rows, &nrows, b, n, &f, sb, sn);
            for (int k = 0; k < COMPARE_KINDS; k++) {
                if (b->kinds[k] == 0 && n->kinds[k] == 0)
                    continue;
                f.kind = k;
                add_row(rows, &nrows, b, n, &f, sb, sn);
            }
            f = (struct compare_figure){.src = COMPARE_NON2XX, .kind = -1};
            add_row(rows, &nrows, b, n, &f, sb, sn);
        }
    }
    free(sb);
    free(sn);
    int w[5] = {0};
    for (size_t i = 0; i < nrows; i++)
        for (int c = 0; c < 5; c++)
            if ((int)strlen(rows[i].cell[c]) > w[c])
                w[c] = (int)strlen(rows[i].cell[c]);
    for (size_t i = 0; i < nrows; i++)
        printf("%-*s  %-*s  %-*s  %-*s  %s\n", w[0], rows[i].cell[0], w[1], rows[i].cell[1], w[2], rows[i].cell[2],
               w[3], rows[i].cell[3], rows[i].cell[4]);
}

/* Limits: the block after the table, then one line on stderr if one
 * failed. Returns the number that failed. */
static size_t judge_limits(const struct compare_limit *ls, size_t nl, const struct compare_run *b,
                           const struct compare_run *n)
{
    if (nl == 0)
        return 0;
    size_t failed = 0, ew = 0;
    char names[1000] = "";
    for (size_t i = 0; i < nl; i++)
        if (strlen(ls[i].expr) > ew)
            ew = strlen(ls[i].expr);
    if (ew > 60)
        ew = 60;
    printf("\nFail if (the change from BASE to NEW):\n");
    for (size_t i = 0; i < nl; i++) {
        const struct compare_limit *l = &ls[i];
        double c;
        bool f = compare_limit_fails(l, compare_value(b, &l->fig), compare_value(n, &l->fig), &c);
        enum compare_kind kind = compare_figure_kind(&l->fig);
        char obs[48], expr[64];
        if (isnan(c))
            snprintf(obs, sizeof obs, "no data");
        else if (l->relative)
            snprintf(obs, sizeof obs, "%+.1f%%", c);
        else
            fmt_diff(kind, c, obs, sizeof obs);
        quote_printable(expr, sizeof expr, l->expr);
        printf("  %-*s  %10s  %s\n", (int)ew, expr, obs, f ? "FAIL" : "ok");
        if (f) {
            if (failed < 5) {
                size_t at = strlen(names);
                snprintf(names + at, sizeof names - at, "%s\"%s\"", failed ? ", " : "", expr);
            }
            failed++;
        }
    }
    if (failed) {
        fflush(stdout);
        cmd_fail("compare", 99, "%zu of %zu limits failed: %s%s", failed, nl, names, failed > 5 ? " and more" : "");
    }
    return failed;
}

int cmd_compare(int argc, char **argv)
{
    const char *files[2] = {NULL, NULL};
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
        if (strcmp(a, "--fail-if") == 0) {
            if (i + 1 >= argc) {
                status = cmd_fail("compare", 2, "--fail-if: needs an expression ('p99 > +10%%')");
                break;
            }
            expr = argv[++i];
        } else if (strncmp(a, "--fail-if=", 10) == 0) {
            expr = a + 10;
        } else if (strcmp(a, "--html") == 0 || strncmp(a, "--html=", 7) == 0) {
            status = cmd_fail("compare", 2, "--html: not there yet for volley compare (the text table only)");
        } else if (a[0] == '-' && a[1] != '\0') {
            status = cmd_fail("compare", 2, "%s: unknown option (volley compare takes --fail-if EXPR)", a);
        } else if (nfiles == 2) {
            status = cmd_fail("compare", 2, "%s: two result files only (BASE.json NEW.json)", a);
        } else {
            files[nfiles++] = a;
        }
        if (expr && compare_limit_parse(&ls[nl++], expr, err, sizeof err) < 0) {
            nl--;
            status = cmd_fail("compare", 2, "%s", err);
        }
    }
    if (status == 0 && nfiles < 2)
        status = cmd_fail("compare", 2, "needs two result files (usage: volley compare BASE.json NEW.json [--fail-if EXPR]...)");
    if (status != 0)
        goto out;

    struct loaded base = {0}, new_ = {0};
    if (load(&base, files[0]) == 0 && load(&new_, files[1]) == 0) {
        char qb[300], qn[300];
        printf("BASE %s\nNEW  %s\n", quote_printable(qb, sizeof qb, files[0]), quote_printable(qn, sizeof qn, files[1]));
        warn_settings(&base.run, &new_.run);
        print_table(&base.run, &new_.run);
        if (judge_limits(ls, nl, &base.run, &new_.run) > 0)
            status = 99;
    } else {
        status = 1;
    }
    unload(&base);
    unload(&new_);
out:
    for (size_t i = 0; i < nl; i++)
        compare_limit_free(&ls[i]);
    free(ls);
    return status;
}
