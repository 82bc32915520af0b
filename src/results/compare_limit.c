/* `volley compare --threshold` and `--fail-if`: the grammar of a limit on
 * a change between two runs, FIGURE OP CHANGE, and its evaluation. The
 * words mean what they mean for a run: a --threshold must hold, a
 * --fail-if fails the comparison when it holds. */
#include "compare.h"

#include "stats.h"
#include "threshold.h"

#include "quote.h"
#include "xalloc.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const src_names[] = {"rps", "errors", "non2xx", "latency", "service", "sendlag"};
static const char *const table_names[] = {"requests/s", "errors", "non-2xx/3xx", "latency", "service", "send lag"};

/* err = `--threshold "EXPR": ` (l's word's option) and fmt with part. */
static int bad(const struct compare_limit *l, char *err, size_t errlen, const char *expr, const char *fmt,
               const char *part)
{
    char what[300];
    snprintf(what, sizeof what, fmt, part);
    snprintf(err, errlen, "%s \"%s\": %s", threshold_word_option(l->word), expr, what);
    return -1;
}

/* A decimal number without sign or exponent at s (len bytes); -1 if not. */
static int plain_number(const char *s, size_t len, double *out)
{
    size_t digits = 0, dots = 0;
    for (size_t i = 0; i < len; i++) {
        if (isdigit((unsigned char)s[i]))
            digits++;
        else if (s[i] == '.' && dots == 0)
            dots++;
        else
            return -1;
    }
    if (digits == 0 || len > 30)
        return -1;
    char buf[32];
    memcpy(buf, s, len);
    buf[len] = '\0';
    *out = strtod(buf, NULL);
    return 0;
}

/* Parses the figure name fig[0..len) into *f; -1 if it is none. */
static int parse_figure(const char *fig, size_t len, struct compare_figure *f)
{
    char s[64];
    if (len >= sizeof s)
        return -1;
    memcpy(s, fig, len);
    s[len] = '\0';
    memset(f, 0, sizeof *f);
    f->kind = -1;
    if (strcmp(s, "rps") == 0) {
        f->src = COMPARE_RPS;
        return 0;
    }
    if (strcmp(s, "non2xx") == 0) {
        f->src = COMPARE_NON2XX;
        return 0;
    }
    if (strcmp(s, "errors") == 0) {
        f->src = COMPARE_ERRORS;
        return 0;
    }
    if (strncmp(s, "errors.", 7) == 0) {
        f->src = COMPARE_ERRORS;
        for (int k = 0; k < COMPARE_KINDS; k++)
            if (strcmp(s + 7, stats_error_name(k)) == 0)
                f->kind = k;
        return f->kind < 0 ? -1 : 0;
    }
    const char *stat = s;
    f->src = COMPARE_LATENCY;
    for (int i = COMPARE_LATENCY; i <= COMPARE_SENDLAG; i++) {
        size_t n = strlen(src_names[i]);
        if (strncmp(s, src_names[i], n) == 0 && s[n] == '.') {
            f->src = (enum compare_src)i;
            stat = s + n + 1;
        }
    }
    if (strcmp(stat, "max") == 0) {
        f->stat = COMPARE_MAX;
        return 0;
    }
    if (strcmp(stat, "mean") == 0) {
        f->stat = COMPARE_MEAN;
        return 0;
    }
    if (stat[0] != 'p' || plain_number(stat + 1, strlen(stat + 1), &f->pct) < 0 || f->pct > 100)
        return -1;
    f->stat = COMPARE_PCT;
    return 0;
}

int compare_limit_parse(struct compare_limit *l, const char *expr, enum threshold_word word, char *err,
                        size_t errlen)
{
    memset(l, 0, sizeof *l);
    l->word = word;
    const char *p = expr;
    while (*p == ' ')
        p++;
    const char *fig = p;
    while (*p && (isalnum((unsigned char)*p) || *p == '.' || *p == '_'))
        p++;
    size_t flen = (size_t)(p - fig);
    if (flen == 0)
        return bad(l, err, errlen, expr, "expected a figure (p99, rps, errors, ...) at \"%s\"", fig);
    char figname[64];
    snprintf(figname, sizeof figname, "%.*s", (int)(flen < 60 ? flen : 60), fig);
    if (parse_figure(fig, flen, &l->fig) < 0)
        return bad(l, err, errlen, expr,
                   "unknown figure \"%s\" (rps, p50, p99, p99.9, max, mean, errors, errors.KIND, non2xx, "
                   "service.p99, sendlag.p99, ...)",
                   figname);
    while (*p == ' ')
        p++;
    const char *op = p;
    while (*p && strchr("<>=!", *p))
        p++;
    char opname[8];
    snprintf(opname, sizeof opname, "%.*s", (int)((size_t)(p - op) < 7 ? (size_t)(p - op) : 7), op);
    if (strcmp(opname, "<") == 0)
        l->op = COMPARE_LT;
    else if (strcmp(opname, "<=") == 0)
        l->op = COMPARE_LE;
    else if (strcmp(opname, ">") == 0)
        l->op = COMPARE_GT;
    else if (strcmp(opname, ">=") == 0)
        l->op = COMPARE_GE;
    else if (!*opname)
        return bad(l, err, errlen, expr, "expected an operator (<, <=, >, >=) after the figure, found \"%s\"", p);
    else
        return bad(l, err, errlen, expr, "unknown operator \"%s\" (a change takes <, <=, > or >=)", opname);
    while (*p == ' ')
        p++;
    const char *val = p;
    while (*p && *p != ' ')
        p++;
    const char *end = p;
    while (*p == ' ')
        p++;
    if (*p)
        return bad(l, err, errlen, expr, "unexpected \"%s\" after the change", p);
    char vbuf[64];
    snprintf(vbuf, sizeof vbuf, "%.*s", (int)((size_t)(end - val) < 60 ? (size_t)(end - val) : 60), val);
    if (!*vbuf)
        return bad(l, err, errlen, expr, "expected a change after the operator (+10%%, -5%%, +2ms)%s", "");
    if (*val != '+' && *val != '-')
        return bad(l, err, errlen, expr, "%s: a change needs its sign (+10%% or -10%%, +2ms)", vbuf);
    const char *num = val + 1, *unit = num;
    while (unit < end && (isdigit((unsigned char)*unit) || *unit == '.'))
        unit++;
    double v;
    if (plain_number(num, (size_t)(unit - num), &v) < 0)
        return bad(l, err, errlen, expr, "%s: not a number (digits, one '.', no exponent)", vbuf);
    if (*val == '-')
        v = -v;
    size_t ulen = (size_t)(end - unit);
    enum compare_kind kind = compare_figure_kind(&l->fig);
    if (ulen == 1 && *unit == '%') {
        l->unit = "%";
        l->relative = kind != COMPARE_SHARE;
    } else if (kind == COMPARE_TIME) {
        double ns;
        l->unit = threshold_time_unit(unit, ulen, &ns);
        if (l->unit)
            v *= ns;
        else
            return bad(l, err, errlen, expr,
                       "%s: a time's change takes %% (relative) or a time unit (ns, us, ms, s, m)", vbuf);
    } else if (kind == COMPARE_RATE) {
        if (ulen != 0)
            return bad(l, err, errlen, expr, "%s: rps's change is a plain number (requests/s) or %% (relative)",
                       vbuf);
    } else {
        return bad(l, err, errlen, expr, "%s: a share's change is in percentage points, written with %% (+0.1%%)",
                   vbuf);
    }
    l->value = v;
    l->expr = xstrdup(expr);
    return 0;
}

bool compare_limit_note(const struct compare_limit *l, char *buf, size_t len)
{
    buf[0] = '\0';
    if (l->word != THRESHOLD_FAIL_IF || (l->op != COMPARE_LT && l->op != COMPARE_LE) ||
        compare_figure_kind(&l->fig) == COMPARE_RATE)
        return false;
    /* The figure and the change as written: the expression is FIGURE OP CHANGE. */
    const char *e = l->expr;
    while (*e == ' ')
        e++;
    int fig = (int)strcspn(e, " <>=!");
    const char *change = e + fig + strspn(e + fig, " <>=!");
    int clen = (int)strcspn(change, " ");
    char raw[600];
    snprintf(raw, sizeof raw,
             "--fail-if '%s' fails the comparison when %.*s's change is %s %.*s; a limit that must hold is "
             "--threshold",
             l->expr, fig, e, l->op == COMPARE_LT ? "under" : "at or under", clen, change);
    quote_printable(buf, len, raw);
    return true;
}

void compare_limit_free(struct compare_limit *l)
{
    free(l->expr);
    memset(l, 0, sizeof *l);
}

bool compare_limit_fails(const struct compare_limit *l, double base, double new_, double *change)
{
    if (isnan(base) || isnan(new_)) {
        *change = NAN;
        return true;
    }
    double c = new_ - base;
    if (l->relative)
        c = base != 0 ? 100.0 * c / fabs(base) : c == 0 ? 0 : copysign(INFINITY, c);
    *change = c;
    bool holds = false;
    switch (l->op) {
    case COMPARE_LT:
        holds = c < l->value;
        break;
    case COMPARE_LE:
        holds = c <= l->value;
        break;
    case COMPARE_GT:
        holds = c > l->value;
        break;
    case COMPARE_GE:
        holds = c >= l->value;
        break;
    }
    return l->word == THRESHOLD_FAIL_IF ? holds : !holds;
}

char *compare_figure_name(const struct compare_figure *f, bool table, char *buf, size_t len)
{
    const char *src = table ? table_names[f->src] : src_names[f->src];
    switch (f->src) {
    case COMPARE_RPS:
    case COMPARE_NON2XX:
        snprintf(buf, len, "%s", src);
        return buf;
    case COMPARE_ERRORS:
        if (f->kind < 0)
            snprintf(buf, len, "%s", src);
        else
            snprintf(buf, len, "%s.%s", src, stats_error_name(f->kind));
        return buf;
    default:
        break;
    }
    char stat[32];
    if (f->stat == COMPARE_MAX)
        snprintf(stat, sizeof stat, "max");
    else if (f->stat == COMPARE_MEAN)
        snprintf(stat, sizeof stat, "mean");
    else
        snprintf(stat, sizeof stat, "p%.10g", f->pct);
    if (table)
        snprintf(buf, len, "%s %s", src, stat);
    else if (f->src == COMPARE_LATENCY)
        snprintf(buf, len, "%s", stat);
    else
        snprintf(buf, len, "%s.%s", src, stat);
    return buf;
}

const char *compare_op_name(enum compare_op op)
{
    static const char *const names[] = {"<", "<=", ">", ">="};
    return names[op];
}
