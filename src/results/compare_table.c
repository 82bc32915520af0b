/* `volley compare` as a table: both runs' settings, each figure's values,
 * change and verdict, and the limits' verdicts, formatted once for the
 * text on stdout (cmd_compare.c) and the HTML page (html_compare.c). */
#include "compare.h"

#include "fmt.h"
#include "quote.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Settings. */

/* The model, and -R's arrival process unless evenly spaced (fixed, or a
 * result from before --arrivals): "open model at 1000/s, arrivals poisson". */
static void describe_model(const struct compare_run *r, char *buf, size_t len)
{
    char ar[64] = "";
    if (r->arrivals && strcmp(r->arrivals, "fixed") != 0) {
        char q[40];
        snprintf(ar, sizeof ar, ", arrivals %s", quote_printable(q, sizeof q, r->arrivals));
    }
    if (!isnan(r->rate) && r->flow) /* a flow's -R starts iterations */
        snprintf(buf, len, "open model at %.10g iterations/s%s", r->rate, ar);
    else if (!isnan(r->rate))
        snprintf(buf, len, "open model at %.10g/s%s", r->rate, ar);
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

/* "-n 1000", "1000 iterations", "-d 3s", or both bounds: "-n 1000, -d 3s". */
static void describe_length(const struct compare_run *r, char *buf, size_t len)
{
    char d[32] = "", n[48] = "";
    if (!isnan(r->duration))
        snprintf(d, sizeof d, "-d %.10gs", r->duration);
    if (!isnan(r->requests))
        snprintf(n, sizeof n, "-n %.0f", r->requests);
    else if (!isnan(r->iterations))
        snprintf(n, sizeof n, "%.0f iteration%s", r->iterations, r->iterations == 1 ? "" : "s");
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

/* Setting i of run r into buf. */
static void describe(int i, const struct compare_run *r, char *buf, size_t len)
{
    switch (i) {
    case 0: describe_model(r, buf, len); break;
    case 1: describe_num(r->connections, buf, len); break;
    case 2: describe_num(r->threads, buf, len); break;
    case 3: describe_protocol(r, buf, len); break;
    case 4: describe_str(r->method, buf, len); break;
    case 5: describe_str(r->url, buf, len); break;
    default: describe_length(r, buf, len); break;
    }
}

void compare_settings(const struct compare_run *b, const struct compare_run *n, struct compare_setting *out)
{
    static const char *const name[COMPARE_SETTINGS] = {
        "model", "connections (-c)", "threads (-t)", "protocol", "method", "URL", "length (-d, -n, --iterations)",
    };
    static const char *const what[COMPARE_SETTINGS] = {
        "models", "connections (-c)", "threads (-t)", "protocols", "methods", "URLs",
        "lengths (-d, -n, --iterations)",
    };
    for (int i = 0; i < COMPARE_SETTINGS; i++) {
        struct compare_setting *s = &out[i];
        s->name = name[i];
        s->what = what[i];
        describe(i, b, s->base, sizeof s->base);
        describe(i, n, s->new_, sizeof s->new_);
        s->differ = strcmp(s->base, s->new_) != 0;
    }
}

/* Cells. */

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

static void fmt_rel(enum compare_kind kind, double b, double n, char *buf, size_t len)
{
    if (kind == COMPARE_SHARE || kind == COMPARE_PASS || isnan(b) || isnan(n) || b == 0)
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "%+.1f%%", 100.0 * (n - b) / fabs(b));
}

static void fmt_verdict(enum compare_kind kind, enum compare_verdict v, double b, double noise, char *buf,
                        size_t len)
{
    static const char *const words[] = {"no data", "same", "better", "worse"};
    char band[48];
    if (v == COMPARE_NODATA)
        snprintf(buf, len, "%s", words[v]);
    else if (isnan(noise))
        snprintf(buf, len, "%s (noise unknown)", words[v]);
    else if (v != COMPARE_SAME)
        snprintf(buf, len, "%s", words[v]);
    else if (b == 0 && kind != COMPARE_SHARE && kind != COMPARE_PASS)
        snprintf(buf, len, "same");
    else
        snprintf(buf, len, "same (noise %s)", compare_band_text(kind, b, noise, band, sizeof band));
}

/* The table. */

struct table {
    const struct compare_run *b, *n;
    struct compare_row *rows;
    size_t nrows, max;
};

/* The statistic of a histogram's figure: "p99", "max", "mean". */
static const char *stat_name(const struct compare_figure *f, char *buf, size_t len)
{
    if (f->stat == COMPARE_MAX)
        snprintf(buf, len, "max");
    else if (f->stat == COMPARE_MEAN)
        snprintf(buf, len, "mean");
    else
        snprintf(buf, len, "p%.10g", f->pct);
    return buf;
}

/* A row's name: the limits' figures as compare_figure_name prints them;
 * a flow's and a name's here (no limit names them): "iterations/s",
 * "iteration p99", "checks passed", "group \"checkout\" p99", "name
 * \"home\" requests/s" (the name escaped, cut at 40 bytes). */
static void row_name(const struct compare_figure *f, char *buf, size_t len)
{
    char st[32], nm[41];
    if (f->src <= COMPARE_SENDLAG) {
        compare_figure_name(f, true, buf, len);
        return;
    }
    if (f->name)
        quote_printable(nm, sizeof nm, f->name);
    switch (f->src) {
    case COMPARE_ITER_RATE: snprintf(buf, len, "iterations/s"); break;
    case COMPARE_ITER_FAILED: snprintf(buf, len, "iterations failed"); break;
    case COMPARE_ITERATION: snprintf(buf, len, "iteration %s", stat_name(f, st, sizeof st)); break;
    case COMPARE_CHECKS: snprintf(buf, len, "checks passed"); break;
    case COMPARE_GROUP_RATE: snprintf(buf, len, "group \"%s\" runs/s", nm); break;
    case COMPARE_GROUP_FAILED: snprintf(buf, len, "group \"%s\" failed", nm); break;
    case COMPARE_GROUP: snprintf(buf, len, "group \"%s\" %s", nm, stat_name(f, st, sizeof st)); break;
    case COMPARE_NAME_RATE: snprintf(buf, len, "name \"%s\" requests/s", nm); break;
    case COMPARE_NAME_ERRORS: snprintf(buf, len, "name \"%s\" errors", nm); break;
    default: snprintf(buf, len, "name \"%s\" %s", nm, stat_name(f, st, sizeof st)); break;
    }
}

static void add_row(struct table *t, const struct compare_figure *f)
{
    if (t->nrows >= t->max)
        return;
    struct compare_row *r = &t->rows[t->nrows++];
    enum compare_kind kind = compare_figure_kind(f);
    double vb = compare_value(t->b, f), vn = compare_value(t->n, f);
    double noise = compare_figure_noise(t->b, t->n, f);
    r->fig = *f;
    r->verdict = compare_judge(kind, vb, vn, noise);
    row_name(f, r->name, sizeof r->name);
    fmt_value(kind, vb, r->base, sizeof r->base);
    fmt_value(kind, vn, r->new_, sizeof r->new_);
    fmt_diff(kind, vn - vb, r->diff, sizeof r->diff);
    fmt_rel(kind, vb, vn, r->rel, sizeof r->rel);
    fmt_verdict(kind, r->verdict, vb, noise, r->verdict_text, sizeof r->verdict_text);
}

/* Rows of a histogram's figure: p50, p90, p99, p99.9, max, mean (all), or
 * p50 and p99 (a group's or a name's, of which there may be many). */
static void dist_rows(struct table *t, enum compare_src src, const char *name, bool all)
{
    static const double pcts[4] = {50, 90, 99, 99.9};
    struct compare_figure f = {.src = src, .stat = COMPARE_PCT, .kind = -1, .name = name};
    for (int i = 0; i < 4; i++) {
        f.pct = pcts[i];
        if (all || f.pct == 50 || f.pct == 99)
            add_row(t, &f);
    }
    if (!all)
        return;
    f.stat = COMPARE_MAX;
    add_row(t, &f);
    f.stat = COMPARE_MEAN;
    add_row(t, &f);
}

static void one_row(struct table *t, enum compare_src src, const char *name)
{
    struct compare_figure f = {.src = src, .kind = -1, .name = name};
    add_row(t, &f);
}

/* Both runs' flows: iterations, checks, then the groups both have (BASE's
 * order, the first COMPARE_MAX_NAMED). */
static void flow_rows(struct table *t)
{
    const struct compare_run *b = t->b, *n = t->n;
    if (!b->flow || !n->flow)
        return;
    one_row(t, COMPARE_ITER_RATE, NULL);
    one_row(t, COMPARE_ITER_FAILED, NULL);
    dist_rows(t, COMPARE_ITERATION, NULL, true);
    if (b->checks_passed + b->checks_failed > 0 || n->checks_passed + n->checks_failed > 0)
        one_row(t, COMPARE_CHECKS, NULL);
    size_t shown = 0;
    for (size_t i = 0; i < b->ngroups && shown < COMPARE_MAX_NAMED; i++) {
        const char *name = b->groups[i].name;
        if (!compare_group(n, name) || compare_group(b, name) != &b->groups[i]) /* a repeated key: its first */
            continue;
        shown++;
        one_row(t, COMPARE_GROUP_RATE, name);
        one_row(t, COMPARE_GROUP_FAILED, name);
        dist_rows(t, COMPARE_GROUP, name, false);
    }
}

/* The request names both runs have (BASE's order, the first
 * COMPARE_MAX_NAMED). */
static void name_rows(struct table *t)
{
    size_t shown = 0;
    for (size_t i = 0; i < t->b->nnames && shown < COMPARE_MAX_NAMED; i++) {
        const char *name = t->b->names[i].name;
        if (!compare_name(t->n, name) || compare_name(t->b, name) != &t->b->names[i])
            continue;
        shown++;
        one_row(t, COMPARE_NAME_RATE, name);
        one_row(t, COMPARE_NAME_ERRORS, name);
        dist_rows(t, COMPARE_NAME, name, false);
    }
}

size_t compare_table(const struct compare_run *b, const struct compare_run *n, struct compare_row *rows, size_t max)
{
    struct table t = {b, n, rows, 0, max};
    struct compare_figure f = {.src = COMPARE_RPS, .kind = -1};
    add_row(&t, &f);
    for (int src = COMPARE_LATENCY; src <= COMPARE_SENDLAG; src++) {
        const struct compare_dist *db = &b->dist[src - COMPARE_LATENCY], *dn = &n->dist[src - COMPARE_LATENCY];
        /* service and send lag: both runs' (-R), and not both empty (a
         * flow's result from before they were left out of its JSON) */
        if (src != COMPARE_LATENCY && !(db->has && dn->has && (db->h.count > 0 || dn->h.count > 0)))
            continue;
        dist_rows(&t, (enum compare_src)src, NULL, true);
        if (src == COMPARE_LATENCY) {
            f = (struct compare_figure){.src = COMPARE_ERRORS, .kind = -1};
            add_row(&t, &f);
            for (int k = 0; k < COMPARE_KINDS; k++) {
                if (b->kinds[k] == 0 && n->kinds[k] == 0)
                    continue;
                f.kind = k;
                add_row(&t, &f);
            }
            f = (struct compare_figure){.src = COMPARE_NON2XX, .kind = -1};
            add_row(&t, &f);
        }
    }
    flow_rows(&t);
    name_rows(&t);
    return t.nrows;
}

/* Limits. */

/* Why limit l (failed or not) and the verdict v on its figure disagree,
 * into note (or ""): a limit fails on a change the verdict calls the same
 * or better, or holds on one it calls worse. */
static void disagreement(const struct compare_limit *l, bool fails, enum compare_verdict v, double base,
                         double noise, char *note, size_t len)
{
    enum compare_kind kind = compare_figure_kind(&l->fig);
    char band[48];
    compare_band_text(kind, base, noise, band, sizeof band);
    note[0] = '\0';
    if (v == COMPARE_NODATA || fails == (v == COMPARE_WORSE))
        return;
    if (v == COMPARE_SAME && isnan(noise))
        snprintf(note, len, "verdict: same, within 1%% of BASE (noise unknown)");
    else if (v == COMPARE_SAME)
        snprintf(note, len, "verdict: same, within the noise %s", band);
    else if (v == COMPARE_BETTER)
        snprintf(note, len, "verdict: better");
    else
        snprintf(note, len, "verdict: worse, beyond the noise %s but within this threshold", band);
}

size_t compare_judge_limits(const struct compare_limit *ls, size_t nl, const struct compare_run *b,
                            const struct compare_run *n, struct compare_judged *out)
{
    size_t failed = 0;
    for (size_t i = 0; i < nl; i++) {
        const struct compare_limit *l = &ls[i];
        double c, vb = compare_value(b, &l->fig), vn = compare_value(n, &l->fig);
        double noise = compare_figure_noise(b, n, &l->fig);
        out[i].fails = compare_limit_fails(l, vb, vn, &c);
        out[i].verdict = compare_judge(compare_figure_kind(&l->fig), vb, vn, noise);
        if (isnan(c))
            snprintf(out[i].change, sizeof out[i].change, "no data");
        else if (l->relative)
            snprintf(out[i].change, sizeof out[i].change, "%+.1f%%", c);
        else
            fmt_diff(compare_figure_kind(&l->fig), c, out[i].change, sizeof out[i].change);
        disagreement(l, out[i].fails, out[i].verdict, vb, noise, out[i].note, sizeof out[i].note);
        failed += out[i].fails;
    }
    return failed;
}
