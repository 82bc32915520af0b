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
        "model", "connections (-c)", "threads (-t)", "protocol", "method", "URL", "length (-d, -n)",
    };
    static const char *const what[COMPARE_SETTINGS] = {
        "models", "connections (-c)", "threads (-t)", "protocols", "methods", "URLs", "lengths (-d, -n)",
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
    if (kind == COMPARE_SHARE || isnan(b) || isnan(n) || b == 0)
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
    else if (b == 0 && kind != COMPARE_SHARE)
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
    compare_figure_name(f, true, r->name, sizeof r->name);
    fmt_value(kind, vb, r->base, sizeof r->base);
    fmt_value(kind, vn, r->new_, sizeof r->new_);
    fmt_diff(kind, vn - vb, r->diff, sizeof r->diff);
    fmt_rel(kind, vb, vn, r->rel, sizeof r->rel);
    fmt_verdict(kind, r->verdict, vb, noise, r->verdict_text, sizeof r->verdict_text);
}

size_t compare_table(const struct compare_run *b, const struct compare_run *n, struct compare_row *rows, size_t max)
{
    struct table t = {b, n, rows, 0, max};
    static const double pcts[4] = {50, 90, 99, 99.9};
    struct compare_figure f = {.src = COMPARE_RPS, .kind = -1};
    add_row(&t, &f);
    for (int src = COMPARE_LATENCY; src <= COMPARE_SENDLAG; src++) {
        if (src != COMPARE_LATENCY && !(b->has_hist[src - COMPARE_LATENCY] && n->has_hist[src - COMPARE_LATENCY]))
            continue;
        f = (struct compare_figure){.src = (enum compare_src)src, .stat = COMPARE_PCT, .kind = -1};
        for (int i = 0; i < 4; i++) {
            f.pct = pcts[i];
            add_row(&t, &f);
        }
        f.stat = COMPARE_MAX;
        add_row(&t, &f);
        f.stat = COMPARE_MEAN;
        add_row(&t, &f);
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
