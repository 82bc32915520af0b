/* The grammar of threshold expressions (--threshold, --fail-if): FIGURE OP VALUE [or nodata]
 * [abort [after DURATION]], parsed once before the run into a struct
 * threshold, each mistake reported as one line that names the offending
 * part. threshold_eval.c evaluates what this file builds. */
#include "threshold_internal.h"

#include "quote.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The characters operators are made of: a figure ends at the first one
 * outside a quoted string. */
#define OP_CHARS "<>=!"
#define OP_LIST "<, <=, >, >=, ==, !="
#define TIME_UNITS "ns, us, ms, s, m"
#define STAT_LIST "p50, p99.9, p(N), mean, min, max, stdev, count"
#define METRIC_STAT_LIST ".p50, .p99.9, .p(N), .mean, .min, .max, .stdev, .count"

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

const char *const threshold_hist_names[THRESHOLD_HISTS] = {"latency", "service", "connect", "waiting"};

struct parser {
    const char *expr; /* the whole expression */
    const char *p;    /* where parsing is */
    struct threshold *th;
    char *err;
    size_t errlen;
};

/* err = `--threshold "EXPR": ` (the word's option) and the message,
 * control characters escaped (quote.h) so that it stays one line. Returns
 * -1. */
static __attribute__((format(printf, 2, 3))) int fail(struct parser *ps, const char *fmt, ...)
{
    char raw[1024];
    int n = snprintf(raw, sizeof raw, "%s \"%s\": ", threshold_word_option(ps->th->word), ps->expr);
    if (n >= 0 && (size_t)n < sizeof raw) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw + n, sizeof raw - (size_t)n, fmt, ap);
        va_end(ap);
    }
    quote_printable(ps->err, ps->errlen, raw);
    return -1;
}

static void skip_space(struct parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

/* The next blank-delimited word: its start, and its length in *n. */
static const char *next_word(struct parser *ps, size_t *n)
{
    skip_space(ps);
    const char *w = ps->p;
    while (*ps->p && !isspace((unsigned char)*ps->p))
        ps->p++;
    *n = (size_t)(ps->p - w);
    return w;
}

static bool word_is(const char *w, size_t n, const char *s)
{
    return n == strlen(s) && memcmp(w, s, n) == 0;
}

/* A plain decimal number at s ("12", "0.5", "-3" when sign): its value,
 * and where it ends in *end. Returns 0, or -1 if s does not start with
 * one. */
static int parse_number(const char *s, bool sign, double *v, const char **end)
{
    const char *p = s;
    if (sign && *p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return -1;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == '.' && isdigit((unsigned char)p[1]))
        for (p++; isdigit((unsigned char)*p); p++)
            ;
    *v = strtod(s, NULL);
    *end = p;
    return 0;
}

int threshold_parse_stat(const char *s, struct threshold *th)
{
    static const struct {
        const char *name;
        enum threshold_stat stat;
    } named[] = {{"mean", THRESHOLD_MEAN}, {"min", THRESHOLD_MIN}, {"max", THRESHOLD_MAX},
                 {"stdev", THRESHOLD_STDEV}, {"count", THRESHOLD_COUNT}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strcmp(s, named[i].name) == 0) {
            th->stat = named[i].stat;
            return 0;
        }
    if (s[0] != 'p')
        return -1;
    bool paren = s[1] == '(';
    const char *end;
    if (parse_number(s + 1 + paren, false, &th->pct, &end) < 0 || (paren && *end++ != ')') || *end)
        return -1;
    th->stat = THRESHOLD_PCT;
    return 0;
}

/* A quoted string at s ("..." with \" and \\): a new copy of its text,
 * and where it ends (after the closing quote) in *end; NULL if s is not
 * one. The figure's lexer has already found the closing quote. */
static char *unquote(const char *s, const char **end)
{
    if (*s != '"')
        return NULL;
    char *out = xmalloc(strlen(s)), *o = out;
    for (s++; *s && *s != '"'; s++) {
        if (*s == '\\' && s[1])
            s++;
        *o++ = *s;
    }
    if (*s != '"') {
        free(out);
        return NULL;
    }
    *o = '\0';
    *end = s + 1;
    return out;
}

bool threshold_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* metric.NAME[.STAT] or metric["NAME"][.STAT] (rest: what follows "metric"). */
static int parse_metric(struct parser *ps, const char *fig, const char *rest)
{
    struct threshold *th = ps->th;
    const char *end;
    if (rest[0] == '[') {
        if (!(th->name = unquote(rest + 1, &end)) || *end != ']')
            return fail(ps, "\"%s\": expected metric[\"NAME\"]", fig);
        end++;
    } else if (rest[0] == '.') {
        size_t n = strcspn(rest + 1, ".");
        if (n == 0)
            return fail(ps, "\"%s\": the metric's name is missing (metric.NAME)", fig);
        for (size_t i = 0; i < n; i++)
            if (!threshold_name_char(rest[1 + i]))
                return fail(ps,
                            "metric name \"%.*s\" has a character other than letters, digits, _ and - (quote it: "
                            "metric[\"%.*s\"])",
                            (int)n, rest + 1, (int)n, rest + 1);
        th->name = xstrndup(rest + 1, n);
        end = rest + 1 + n;
    } else {
        return fail(ps, "unknown figure \"%s\" (did you mean metric.NAME?)", fig);
    }
    th->source = THRESHOLD_METRIC;
    th->kind = THRESHOLD_VALUE;
    th->stat = THRESHOLD_TOTAL;
    if (!*end)
        return 0;
    if (*end != '.' || threshold_parse_stat(end + 1, th) < 0)
        return fail(ps, "unknown figure \"%s\" (after metric.NAME: %s; metric.NAME alone is a counter's total)", fig,
                    METRIC_STAT_LIST);
    if (th->stat == THRESHOLD_PCT && th->pct > 100)
        return fail(ps, "%s: a percentile is 0..100", fig);
    if (th->stat == THRESHOLD_COUNT)
        th->kind = THRESHOLD_NUM;
    return 0;
}

/* status.5xx or status.404 (rest: what follows "status."). */
static int parse_status(struct parser *ps, const char *fig, const char *rest)
{
    struct threshold *th = ps->th;
    th->source = THRESHOLD_STATUS;
    th->kind = THRESHOLD_NUM;
    if (strlen(rest) == 3 && rest[0] >= '1' && rest[0] <= '5' && tolower((unsigned char)rest[1]) == 'x' &&
        tolower((unsigned char)rest[2]) == 'x') {
        th->status = rest[0] - '0';
        th->status_class = true;
        return 0;
    }
    if (strlen(rest) == 3 && strspn(rest, "0123456789") == 3 && atoi(rest) >= 100 && atoi(rest) <= 599) {
        th->status = atoi(rest);
        return 0;
    }
    return fail(ps, "\"%s\": a status class is 1xx..5xx, a status code 100..599", fig);
}

/* The figure fig, its labels taken out (take_labels), into ps->th;
 * reason: failures{reason=...}'s text (taken over), or NULL. Messages quote
 * shown, the figure as written. */
static int parse_plain(struct parser *ps, const char *fig, const char *shown, char *reason, bool open_model)
{
    struct threshold *th = ps->th;
    if (strncmp(shown, "failures{", 9) == 0) {
        th->name = reason;
        if (!reason || fig[8])
            return fail(ps, "\"%s\": expected failures{reason=\"TEXT\"}", shown);
        th->source = THRESHOLD_REASON;
        th->kind = THRESHOLD_NUM;
        return 0;
    }
    char why[400];
    int flow = threshold_flow_parse(th, fig, shown, why, sizeof why);
    if (flow <= 0)
        return flow < 0 ? fail(ps, "%s", why) : 0;
    for (int i = 0; i < THRESHOLD_HISTS; i++) {
        size_t n = strlen(threshold_hist_names[i]);
        if (strncmp(fig, threshold_hist_names[i], n) != 0 || fig[n] != '.')
            continue;
        th->source = (enum threshold_source)(THRESHOLD_LATENCY + i);
        if (threshold_parse_stat(fig + n + 1, th) < 0)
            return fail(ps, "unknown figure \"%s\" (%s takes %s)", shown, threshold_hist_names[i], STAT_LIST);
        if (th->source == THRESHOLD_SERVICE && !open_model)
            return fail(ps, "%s: service times are kept only with -R (the open model)", shown);
        goto hist;
    }
    if (threshold_parse_stat(fig, th) == 0 && th->stat != THRESHOLD_COUNT) {
        th->source = THRESHOLD_LATENCY;
        goto hist;
    }
    if (strcmp(fig, "errors") == 0 || strncmp(fig, "errors.", 7) == 0) {
        th->source = THRESHOLD_ERRORS;
        th->kind = THRESHOLD_NUM;
        th->error_kind = -1;
        if (!fig[6])
            return 0;
        for (int e = 0; e < STATS_ERR_KINDS; e++)
            if (strcmp(fig + 7, stats_error_name(e)) == 0)
                return th->error_kind = e, 0;
        char kinds[128] = "";
        for (int e = 0; e < STATS_ERR_KINDS; e++)
            snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s", e ? ", " : "", stats_error_name(e));
        return fail(ps, "unknown error kind \"%s\" in %s (%s)", fig + 7, shown, kinds);
    }
    if (strcmp(fig, "rps") == 0) {
        th->source = THRESHOLD_RPS;
        th->kind = THRESHOLD_RATE;
        return 0;
    }
    if (strcmp(fig, "requests") == 0) {
        th->source = THRESHOLD_REQUESTS;
        th->kind = THRESHOLD_NUM;
        return 0;
    }
    if (strncmp(fig, "status.", 7) == 0)
        return parse_status(ps, shown, fig + 7);
    if (strncmp(fig, "metric", 6) == 0 && (fig[6] == '.' || fig[6] == '['))
        return parse_metric(ps, shown, fig + 6);
    char hint[128];
    threshold_suggest(shown, hint, sizeof hint);
    if (hint[0])
        return fail(ps, "unknown figure \"%s\" (did you mean %s?)", shown, hint);
    return fail(ps, "unknown figure \"%s\" (e.g. p99, latency.mean, errors, rps, requests, status.5xx, metric.NAME)",
                shown);
hist:
    if (th->pct > 100)
        return fail(ps, "%s: a percentile is 0..100", shown);
    th->kind = th->stat == THRESHOLD_COUNT ? THRESHOLD_NUM : THRESHOLD_TIME;
    return 0;
}

/* The labels of fig, FAMILY{KEY="TEXT", ...}REST, where FAMILY is what
 * comes before the first '{', '.' or '[': name= into th->request_name,
 * and for failures reason= into *reason. Returns fig without them
 * (FAMILY REST, a new string), or NULL with err. */
static char *take_labels(struct parser *ps, const char *fig, char **reason)
{
    struct threshold *th = ps->th;
    size_t fam = strcspn(fig, "{.[");
    bool failures = word_is(fig, fam, "failures");
    if (fig[fam] == '.' && !word_is(fig, fam, "metric") && strchr(fig, '{'))
        return fail(ps, "\"%s\": {name=\"NAME\"} goes right after the figure's first word, as in "
                        "latency{name=\"NAME\"}.p99",
                    fig),
               NULL;
    if (fig[fam] != '{')
        return xstrdup(fig);
    const char *p = fig + fam + 1, *end;
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        size_t k = strspn(p, "abcdefghijklmnopqrstuvwxyz_");
        const char *key = p, *eq = p + k;
        while (isspace((unsigned char)*eq))
            eq++;
        const char *q = eq + (*eq == '=');
        while (isspace((unsigned char)*q))
            q++;
        char *text;
        if (k == 0 || *eq != '=' || !(text = unquote(q, &end)))
            break;
        char **slot = word_is(key, k, "name") ? &th->request_name : failures && word_is(key, k, "reason") ? reason : NULL;
        if (!slot || *slot) {
            free(text);
            return fail(ps, "\"%s\": %s label \"%.*s\" (%s)", fig, slot ? "a second" : "unknown", (int)k, key,
                        failures ? "failures takes reason=\"TEXT\" and name=\"NAME\"" : "expected name=\"NAME\""),
                   NULL;
        }
        *slot = text;
        for (p = end; isspace((unsigned char)*p); p++)
            ;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p != '}')
            break;
        if (th->request_name && !th->request_name[0])
            return fail(ps, "\"%s\": the %s name is empty", fig,
                        word_is(fig, fam, "checks") ? "check" : word_is(fig, fam, "group") ? "group" : "request"),
                   NULL;
        size_t rest = strlen(p + 1);
        char *plain = xmalloc(fam + rest + 1);
        memcpy(plain, fig, fam);
        memcpy(plain + fam, p + 1, rest + 1);
        return plain;
    }
    if (failures)
        return fail(ps, "\"%s\": expected failures{reason=\"TEXT\"}", fig), NULL;
    return fail(ps, "\"%s\": expected %.*s{name=\"NAME\"}", fig, (int)fam, fig), NULL;
}

/* The figure fig (the text before the operator) into ps->th. */
static int parse_figure(struct parser *ps, const char *fig, bool open_model)
{
    struct threshold *th = ps->th;
    char *reason = NULL;
    char *plain = take_labels(ps, fig, &reason);
    if (!plain) {
        free(reason);
        return -1;
    }
    int rc = parse_plain(ps, plain, fig, reason, open_model); /* reason: taken */
    free(plain);
    if (rc < 0 || !th->request_name)
        return rc;
    static const char *const unnamed[] = {[THRESHOLD_CONNECT] = "connect times", [THRESHOLD_WAITING] = "waiting times",
                                          [THRESHOLD_METRIC] = "metrics"};
    if (th->source == THRESHOLD_CONNECT || th->source == THRESHOLD_WAITING || th->source == THRESHOLD_METRIC)
        return fail(ps,
                    "%s: %s are not kept per request name (latency, service, errors, requests, rps, status and "
                    "failures are)",
                    fig, unnamed[th->source]);
    return 0;
}

/* The figure: up to blank space or an operator character outside a
 * quoted string. A new copy, or NULL with err. */
static char *lex_figure(struct parser *ps)
{
    skip_space(ps);
    const char *start = ps->p;
    bool quoted = false;
    int depth = 0; /* inside failures{...} or metric[...] */
    for (; *ps->p; ps->p++) {
        char c = *ps->p;
        if (quoted) {
            if (c == '\\' && ps->p[1])
                ps->p++;
            else if (c == '"')
                quoted = false;
        } else if (c == '"') {
            quoted = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if ((c == '}' || c == ']') && depth > 0) {
            depth--;
        } else if (depth == 0 && (isspace((unsigned char)c) || strchr(OP_CHARS, c))) {
            break;
        }
    }
    if (quoted)
        return fail(ps, "unterminated string in \"%s\"", start), NULL;
    if (depth)
        return fail(ps, "missing } or ] in \"%s\"", start), NULL;
    if (ps->p == start)
        return fail(ps, "%s (expected FIGURE OP VALUE, e.g. \"p99 < 50ms\")",
                    *start ? "the figure is missing" : "empty"),
               NULL;
    return xstrndup(start, (size_t)(ps->p - start));
}

static int parse_op(struct parser *ps, const char *fig)
{
    skip_space(ps);
    size_t n = strspn(ps->p, OP_CHARS);
    if (n == 0) {
        size_t wn;
        const char *w = next_word(ps, &wn);
        if (wn == 0)
            return fail(ps, "missing operator after %s (%s)", fig, OP_LIST);
        return fail(ps, "expected an operator (%s) after %s, found \"%.*s\"", OP_LIST, fig, (int)wn, w);
    }
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (word_is(ps->p, n, ops[i].name)) {
            ps->th->op = ops[i].op;
            ps->p += n;
            return 0;
        }
    return fail(ps, "unknown operator \"%.*s\"%s", (int)n, ps->p, word_is(ps->p, n, "=") ? " (did you mean ==?)" : "");
}

/* The time unit u[0..n), or NULL if it is not one. */
static const struct time_unit *time_unit(const char *u, size_t n)
{
    for (size_t i = 0; i < sizeof time_units / sizeof time_units[0]; i++)
        if (word_is(u, n, time_units[i].name))
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
static const char *unit_apart(struct parser *ps, const char *w, size_t wn, const char *end, bool pct, size_t *un)
{
    if (end != w + wn)
        return NULL;
    const char *save = ps->p;
    size_t n;
    const char *u = next_word(ps, &n);
    if (time_unit(u, n) || (pct && word_is(u, n, "%"))) {
        *un = n;
        return u;
    }
    ps->p = save;
    return NULL;
}

/* VALUE, checked against the figure's kind. */
static int parse_value(struct parser *ps, const char *fig)
{
    struct threshold *th = ps->th;
    size_t wn;
    const char *w = next_word(ps, &wn), *end;
    if (wn == 0)
        return fail(ps, "missing value after %s", threshold_op_name(th->op));
    double v;
    if (parse_number(w, true, &v, &end) < 0)
        return fail(ps, "\"%.*s\" is not a number", (int)wn, w);
    const char *u = end;
    size_t un = (size_t)(w + wn - end);
    const char *apart = unit_apart(ps, w, wn, end, true, &un);
    if (apart) {
        u = apart;
        wn = (size_t)(apart + un - w); /* the value named in messages is "50 ms" */
    }
    int vn = (int)wn;
    if (v < 0 && th->kind != THRESHOLD_VALUE)
        return fail(ps, "%.*s: %s cannot be negative", vn, w, fig);
    const struct time_unit *tu = time_unit(u, un);
    bool pct = word_is(u, un, "%");
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
        return fail(ps, "unknown unit \"%.*s\" in %.*s: %s is %s", (int)un, u, vn, w, fig, want);
    if (th->kind == THRESHOLD_TIME && !un)
        return fail(ps, "%.*s needs a time unit (" TIME_UNITS ")", vn, w);
    if (th->kind == THRESHOLD_TIME ? !tu : un && !(pct && (share || th->kind == THRESHOLD_SHARE)))
        return fail(ps, "%.*s: %s is %s", vn, w, fig, want);
    if (th->kind == THRESHOLD_SHARE && v > (pct ? 100 : 1)) /* it would hold or fail whatever the run did */
        return fail(ps, "%.*s: %s is %s", vn, w, fig, want);
    th->value_at = (size_t)(w - ps->expr);
    th->value_len = wn;
    th->unit_ns = tu ? tu->ns : 1;
    th->limit = v * th->unit_ns;
    th->percent = pct;
    th->unit = tu ? tu->name : pct ? "%" : NULL;
    return 0;
}

/* What may follow VALUE: [or nodata] [abort [after DURATION]]. */
static int parse_tail(struct parser *ps)
{
    struct threshold *th = ps->th;
    static const char expected[] = "(expected \"or nodata\", \"abort\" or \"abort after DURATION\")";
    size_t n;
    const char *w = next_word(ps, &n);
    if (word_is(w, n, "or")) {
        const char *x = next_word(ps, &n);
        if (!word_is(x, n, "nodata"))
            return fail(ps, "expected nodata after \"or\"%s%.*s%s", n ? ", found \"" : "", (int)n, x, n ? "\"" : "");
        if (th->word == THRESHOLD_FAIL_IF) /* it would say "fail on no data", which is the rule anyway */
            return fail(ps, "\"or nodata\" lets a figure without data pass, and goes with --threshold (a figure "
                            "without data fails the run under either word)");
        th->or_nodata = true;
        w = next_word(ps, &n);
    }
    if (word_is(w, n, "abort")) {
        th->abort = true;
        w = next_word(ps, &n);
        if (word_is(w, n, "after")) {
            const char *d = next_word(ps, &n), *end;
            const struct time_unit *tu = NULL;
            double v;
            if (n == 0)
                return fail(ps, "missing duration after \"abort after\" (e.g. 10s)");
            size_t un = 0;
            bool num = parse_number(d, false, &v, &end) == 0;
            const char *u = num ? unit_apart(ps, d, n, end, false, &un) : NULL;
            if (u)
                n = (size_t)(u + un - d); /* "10 s" */
            else
                u = end, un = num ? (size_t)(d + n - end) : 0;
            if (!num || !(tu = time_unit(u, un)) ||
                v * tu->ns < 1 || v * tu->ns > 1e18)
                return fail(ps, "abort after: \"%.*s\" is not a duration (e.g. 500ms, 10s, 2m)", (int)n, d);
            th->abort_after_ns = (int64_t)(v * tu->ns);
            w = next_word(ps, &n);
        }
    }
    if (n)
        return fail(ps, "unexpected \"%.*s\" %s", (int)n, w, expected);
    return 0;
}

int threshold_parse(struct threshold *th, const char *expr, enum threshold_word word, bool open_model, char *err,
                    size_t errlen)
{
    memset(th, 0, sizeof *th);
    struct parser ps = {.expr = expr, .p = expr, .th = th, .err = err, .errlen = errlen};
    th->unit_ns = 1;
    th->word = word;
    char *fig = lex_figure(&ps);
    if (fig) {
        th->fig_len = strlen(fig);
        th->fig_at = (size_t)(ps.p - expr) - th->fig_len;
    }
    int rc = fig && parse_figure(&ps, fig, open_model) == 0 && parse_op(&ps, fig) == 0 && parse_value(&ps, fig) == 0 &&
                     parse_tail(&ps) == 0
                 ? 0
                 : -1;
    free(fig);
    if (rc < 0) {
        threshold_free(th);
        return -1;
    }
    th->expr = xstrdup(expr);
    return 0;
}

int threshold_parse_all(const struct threshold_expr *exprs, size_t n, bool open_model, struct threshold **out,
                        char *err, size_t errlen)
{
    *out = NULL;
    if (n == 0)
        return 0;
    struct threshold *ths = xcalloc(n, sizeof *ths);
    for (size_t i = 0; i < n; i++)
        if (threshold_parse(&ths[i], exprs[i].expr, exprs[i].word, open_model, err, errlen) < 0) {
            threshold_free_all(ths, i);
            return -1;
        }
    *out = ths;
    return 0;
}

void threshold_free(struct threshold *th)
{
    free(th->expr);
    free(th->name);
    free(th->request_name);
    th->expr = th->name = th->request_name = NULL;
}

void threshold_free_all(struct threshold *ths, size_t n)
{
    for (size_t i = 0; ths && i < n; i++)
        threshold_free(&ths[i]);
    free(ths);
}

const char *threshold_op_name(enum threshold_op op)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i].op == op)
            return ops[i].name;
    return "?";
}

double threshold_in_unit(const struct threshold *th, double v)
{
    return v / th->unit_ns;
}

