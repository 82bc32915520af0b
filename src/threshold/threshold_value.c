/* What follows a threshold's figure: the operator, the value in the
 * figure's unit (times, shares, counts), and the tail ([or nodata]
 * [abort [after DURATION]]); threshold.c calls them after the figure. */
#include "threshold_internal.h"

#include <stdio.h>
#include <string.h>

#define OP_LIST "<, <=, >, >=, ==, !="
#define TIME_UNITS "ns, us, ms, s, m"

static const struct {
    const char *name;
    enum threshold_op op;
} ops[] = {
    {"<", THRESHOLD_LT}, {"<=", THRESHOLD_LE}, {">", THRESHOLD_GT},
    {">=", THRESHOLD_GE}, {"==", THRESHOLD_EQ}, {"!=", THRESHOLD_NE},
};

static const struct time_unit {
    const char *name;
    double ns;
} time_units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}};

int threshold_parse_op(struct threshold_parser *ps, const char *fig)
{
    threshold_skip_space(ps);
    size_t n = strspn(ps->p, THRESHOLD_OP_CHARS);
    if (n == 0) {
        size_t wn;
        const char *w = threshold_next_word(ps, &wn);
        if (wn == 0)
            return threshold_fail(ps, "missing operator after %s (%s)", fig, OP_LIST);
        return threshold_fail(ps, "expected an operator (%s) after %s, found \"%.*s\"", OP_LIST, fig, (int)wn, w);
    }
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (threshold_is_word(ps->p, n, ops[i].name)) {
            ps->th->op = ops[i].op;
            ps->p += n;
            return 0;
        }
    return threshold_fail(ps, "unknown operator \"%.*s\"%s", (int)n, ps->p, threshold_is_word(ps->p, n, "=") ? " (did you mean ==?)" : "");
}

/* The time unit u[0..n), or NULL if it is not one. */
static const struct time_unit *time_unit(const char *u, size_t n)
{
    for (size_t i = 0; i < sizeof time_units / sizeof time_units[0]; i++)
        if (threshold_is_word(u, n, time_units[i].name))
            return &time_units[i];
    return NULL;
}

const char *threshold_time_unit(const char *u, size_t n, double *ns)
{
    const struct time_unit *tu = time_unit(u, n);
    if (tu)
        *ns = tu->ns;
    return tu ? tu->name : NULL;
}

/* A unit written apart from its number ("50 ms", "99 %"): when the number
 * at w[0..wn) ends where its word does and the next word is a time unit
 * (or "%" if pct), that word is taken and returned with its length in *un;
 * else nothing is taken and NULL returned. */
static const char *unit_apart(struct threshold_parser *ps, const char *w, size_t wn, const char *end, bool pct, size_t *un)
{
    if (end != w + wn)
        return NULL;
    const char *save = ps->p;
    size_t n;
    const char *u = threshold_next_word(ps, &n);
    if (time_unit(u, n) || (pct && threshold_is_word(u, n, "%"))) {
        *un = n;
        return u;
    }
    ps->p = save;
    return NULL;
}

/* VALUE, checked against the figure's kind. */
int threshold_parse_value(struct threshold_parser *ps, const char *fig)
{
    struct threshold *th = ps->th;
    size_t wn;
    const char *w = threshold_next_word(ps, &wn), *end;
    if (wn == 0)
        return threshold_fail(ps, "missing value after %s", threshold_op_name(th->op));
    double v;
    if (threshold_parse_number(w, true, &v, &end) < 0)
        return threshold_fail(ps, "\"%.*s\" is not a number", (int)wn, w);
    const char *u = end;
    size_t un = (size_t)(w + wn - end);
    const char *apart = unit_apart(ps, w, wn, end, true, &un);
    if (apart) {
        u = apart;
        wn = (size_t)(apart + un - w); /* the value named in messages is "50 ms" */
    }
    int vn = (int)wn;
    if (v < 0 && th->kind != THRESHOLD_VALUE)
        return threshold_fail(ps, "%.*s: %s cannot be negative", vn, w, fig);
    const struct time_unit *tu = time_unit(u, un);
    bool pct = threshold_is_word(u, un, "%");
    bool share = th->kind == THRESHOLD_NUM && th->stat != THRESHOLD_COUNT &&
                 (th->source == THRESHOLD_ERRORS || th->source == THRESHOLD_STATUS || th->source == THRESHOLD_REASON ||
                  th->stat == THRESHOLD_FAILED);
    const char *want = th->kind == THRESHOLD_TIME    ? "a time (" TIME_UNITS ")"
                       : th->kind == THRESHOLD_SHARE ? "a share (0..1, or a percentage with %: 0.99 or 99%)"
                       : share                       ? "a count (a plain number, or a percentage with %)"
                       : th->kind == THRESHOLD_NUM  ? "a count (a plain number)"
                       : th->kind == THRESHOLD_RATE ? "requests per second (a plain number)"
                                                    : "in the script's own unit (a plain number)";
    if (un && !tu && !pct)
        return threshold_fail(ps, "unknown unit \"%.*s\" in %.*s: %s is %s", (int)un, u, vn, w, fig, want);
    if (th->kind == THRESHOLD_TIME && !un)
        return threshold_fail(ps, "%.*s needs a time unit (" TIME_UNITS ")", vn, w);
    if (th->kind == THRESHOLD_TIME ? !tu : un && !(pct && (share || th->kind == THRESHOLD_SHARE)))
        return threshold_fail(ps, "%.*s: %s is %s", vn, w, fig, want);
    if (th->kind == THRESHOLD_SHARE && v > (pct ? 100 : 1)) /* it would hold or fail whatever the run did */
        return threshold_fail(ps, "%.*s: %s is %s", vn, w, fig, want);
    th->value_at = (size_t)(w - ps->expr);
    th->value_len = wn;
    th->unit_ns = tu ? tu->ns : 1;
    th->limit = v * th->unit_ns;
    th->percent = pct;
    th->unit = tu ? tu->name : pct ? "%" : NULL;
    return 0;
}

/* What may follow VALUE: [or nodata] [abort [after DURATION]]. */
int threshold_parse_tail(struct threshold_parser *ps)
{
    struct threshold *th = ps->th;
    static const char expected[] = "(expected \"or nodata\", \"abort\" or \"abort after DURATION\")";
    size_t n;
    const char *w = threshold_next_word(ps, &n);
    if (threshold_is_word(w, n, "or")) {
        const char *x = threshold_next_word(ps, &n);
        if (!threshold_is_word(x, n, "nodata"))
            return threshold_fail(ps, "expected nodata after \"or\"%s%.*s%s", n ? ", found \"" : "", (int)n, x, n ? "\"" : "");
        if (th->word == THRESHOLD_FAIL_IF) /* it would say "fail on no data", which is the rule anyway */
            return threshold_fail(ps, "\"or nodata\" lets a figure without data pass, and goes with --threshold (a figure "
                            "without data fails the run under either word)");
        th->or_nodata = true;
        w = threshold_next_word(ps, &n);
    }
    if (threshold_is_word(w, n, "abort")) {
        /* A run in progress is judged on what the series has handed over
         * (series_snapshot): the stream counts, not the stream histograms. */
        if (threshold_stream_is_hist(th))
            return threshold_fail(ps, "abort: a stream histogram's figure is judged at the end of the run only "
                                      "(events, tokens and streams can stop it)");
        th->abort = true;
        w = threshold_next_word(ps, &n);
        if (threshold_is_word(w, n, "after")) {
            const char *d = threshold_next_word(ps, &n), *end;
            const struct time_unit *tu = NULL;
            double v;
            if (n == 0)
                return threshold_fail(ps, "missing duration after \"abort after\" (e.g. 10s)");
            size_t un = 0;
            bool num = threshold_parse_number(d, false, &v, &end) == 0;
            const char *u = num ? unit_apart(ps, d, n, end, false, &un) : NULL;
            if (u)
                n = (size_t)(u + un - d); /* "10 s" */
            else
                u = end, un = num ? (size_t)(d + n - end) : 0;
            if (!num || !(tu = time_unit(u, un)) ||
                v * tu->ns < 1 || v * tu->ns > 1e18)
                return threshold_fail(ps, "abort after: \"%.*s\" is not a duration (e.g. 500ms, 10s, 2m)", (int)n, d);
            th->abort_after_ns = (int64_t)(v * tu->ns);
            w = threshold_next_word(ps, &n);
        }
    }
    if (n)
        return threshold_fail(ps, "unexpected \"%.*s\" %s", (int)n, w, expected);
    return 0;
}

const char *threshold_op_name(enum threshold_op op)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i].op == op)
            return ops[i].name;
    return "?";
}
