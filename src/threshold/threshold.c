/* The grammar of threshold expressions (--threshold, --fail-if): FIGURE OP VALUE [or nodata]
 * [abort [after DURATION]], parsed once before the run into a struct
 * threshold, each mistake reported as one line that names the offending
 * part. This file reads the figure; threshold_value.c what follows it,
 * both with threshold_lex.c's pieces. threshold_eval.c evaluates what this
 * file builds. */
#include "threshold_internal.h"

#include "nearest.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STAT_LIST "p50, p99.9, p(N), mean, min, max, stdev, count"
#define METRIC_STAT_LIST ".p50, .p99.9, .p(N), .mean, .min, .max, .stdev, .count"

/* metric.NAME[.STAT] or metric["NAME"][.STAT] (rest: what follows "metric"). */
static int parse_metric(struct threshold_parser *ps, const char *fig, const char *rest)
{
    struct threshold *th = ps->th;
    const char *end;
    if (rest[0] == '[') {
        if (!(th->name = threshold_unquote(rest + 1, &end)) || *end != ']')
            return threshold_fail(ps, "\"%s\": expected metric[\"NAME\"]", fig);
        end++;
    } else if (rest[0] == '.') {
        size_t n = strcspn(rest + 1, ".");
        if (n == 0)
            return threshold_fail(ps, "\"%s\": the metric's name is missing (metric.NAME)", fig);
        for (size_t i = 0; i < n; i++)
            if (!threshold_name_char(rest[1 + i]))
                return threshold_fail(ps,
                            "metric name \"%.*s\" has a character other than letters, digits, _ and - (quote it: "
                            "metric[\"%.*s\"])",
                            (int)n, rest + 1, (int)n, rest + 1);
        th->name = xstrndup(rest + 1, n);
        end = rest + 1 + n;
    } else {
        return threshold_fail(ps, "unknown figure \"%s\" (did you mean metric.NAME?)", fig);
    }
    th->source = THRESHOLD_METRIC;
    th->kind = THRESHOLD_VALUE;
    th->stat = THRESHOLD_TOTAL;
    if (!*end)
        return 0;
    if (*end != '.' || threshold_parse_stat(end + 1, th) < 0)
        return threshold_fail(ps, "unknown figure \"%s\" (after metric.NAME: %s; metric.NAME alone is a counter's total)", fig,
                    METRIC_STAT_LIST);
    if (th->stat == THRESHOLD_PCT && th->pct > 100)
        return threshold_fail(ps, "%s: a percentile is 0..100", fig);
    if (th->stat == THRESHOLD_COUNT)
        th->kind = THRESHOLD_NUM;
    return 0;
}

/* status.5xx or status.404 (rest: what follows "status."). */
static int parse_status(struct threshold_parser *ps, const char *fig, const char *rest)
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
    return threshold_fail(ps, "\"%s\": a status class is 1xx..5xx, a status code 100..599", fig);
}

/* The figure fig, its labels taken out (take_labels), into ps->th;
 * reason: failures{reason=...}'s text (taken over), or NULL. Messages quote
 * shown, the figure as written. */
static int parse_plain(struct threshold_parser *ps, const char *fig, const char *shown, char *reason, bool open_model)
{
    struct threshold *th = ps->th;
    if (strncmp(shown, "failures{", 9) == 0) {
        th->name = reason;
        if (!reason || fig[8])
            return threshold_fail(ps, "\"%s\": expected failures{reason=\"TEXT\"}", shown);
        th->source = THRESHOLD_REASON;
        th->kind = THRESHOLD_NUM;
        return 0;
    }
    char why[400];
    int flow = threshold_flow_parse(th, fig, shown, why, sizeof why);
    if (flow <= 0)
        return flow < 0 ? threshold_fail(ps, "%s", why) : 0;
    int stream = threshold_stream_parse(th, fig, shown, open_model, why, sizeof why);
    if (stream <= 0)
        return stream < 0 ? threshold_fail(ps, "%s", why) : 0;
    for (int i = 0; i < THRESHOLD_HISTS; i++) {
        size_t n = strlen(threshold_hist_names[i]);
        if (strncmp(fig, threshold_hist_names[i], n) != 0 || fig[n] != '.')
            continue;
        th->source = (enum threshold_source)(THRESHOLD_LATENCY + i);
        if (threshold_parse_stat(fig + n + 1, th) < 0)
            return threshold_fail(ps, "unknown figure \"%s\" (%s takes %s)", shown, threshold_hist_names[i], STAT_LIST);
        if (th->source == THRESHOLD_SERVICE && !open_model)
            return threshold_fail(ps, "%s: service times are kept only with -R (the open model)", shown);
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
        return threshold_fail(ps, "unknown error kind \"%s\" in %s (%s)", fig + 7, shown, kinds);
    }
    if (strcmp(fig, "failed") == 0) {
        th->source = THRESHOLD_FAILED_SHARE;
        th->kind = THRESHOLD_SHARE;
        return 0;
    }
    if (strncmp(fig, "failed.", 7) == 0)
        return threshold_fail(ps, "unknown figure \"%s\" (failed is the share of ended requests that failed, every "
                                  "kind together; one kind's is errors.KIND with %%)", shown);
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
        return threshold_fail(ps, "unknown figure \"%s\" (did you mean %s?)", shown, hint);
    return threshold_fail(ps, "unknown figure \"%s\" (e.g. p99, latency.mean, errors, rps, requests, status.5xx, metric.NAME)",
                shown);
hist:
    if (th->pct > 100)
        return threshold_fail(ps, "%s: a percentile is 0..100", shown);
    th->kind = th->stat == THRESHOLD_COUNT ? THRESHOLD_NUM : THRESHOLD_TIME;
    return 0;
}

/* The labels of fig, FAMILY{KEY="TEXT", ...}REST, where FAMILY is what
 * comes before the first '{', '.' or '[': name= into th->request_name,
 * and for failures reason= into *reason. Returns fig without them
 * (FAMILY REST, a new string), or NULL with err. */
static char *take_labels(struct threshold_parser *ps, const char *fig, char **reason)
{
    struct threshold *th = ps->th;
    size_t fam = strcspn(fig, "{.[");
    bool failures = threshold_is_word(fig, fam, "failures");
    if (fig[fam] == '.' && !threshold_is_word(fig, fam, "metric") && strchr(fig, '{'))
        return threshold_fail(ps, "\"%s\": {name=\"NAME\"} goes right after the figure's first word, as in "
                        "latency{name=\"NAME\"}.p99",
                    fig),
               NULL;
    if (fig[fam] != '{')
        return xstrdup(fig);
    const char *p = fig + fam + 1, *end;
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        size_t k = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
        const char *key = p, *eq = p + k;
        while (isspace((unsigned char)*eq))
            eq++;
        const char *q = eq + (*eq == '=');
        while (isspace((unsigned char)*q))
            q++;
        char *text;
        if (k == 0 || *eq != '=' || !(text = threshold_unquote(q, &end)))
            break;
        char **slot = threshold_is_word(key, k, "name")       ? &th->request_name
                      : threshold_is_word(key, k, "scenario") ? &th->scenario
                      : failures && threshold_is_word(key, k, "reason") ? reason
                                                                 : NULL;
        /* a key a typo away from scenario is that, misspelt, not a tag
         * (short keys near name, as game or page, may be tags) */
        static const char *const near_words[] = {"scenario"};
        char kw[64];
        snprintf(kw, sizeof kw, "%.*s", (int)(k < sizeof kw ? k : sizeof kw - 1), key);
        if (!slot && !failures && nearest_name(kw, near_words, 1)) {
            free(text);
            return threshold_fail(ps, "\"%s\": unknown label \"%s\" (did you mean scenario=\"NAME\"?)", fig, kw), NULL;
        }
        if (!slot && !failures && !threshold_is_word(key, k, "reason")) { /* a tag: KEY=VALUE */
            size_t vlen = strlen(text);
            char *tag = xmalloc(k + vlen + 2);
            memcpy(tag, key, k);
            tag[k] = '=';
            memcpy(tag + k + 1, text, vlen + 1);
            free(text);
            text = tag;
            slot = &th->tag;
        }
        /* a scenario's figures hold its names and tags too: scenario= goes
         * with either, but a name and a tag (or two tags) do not */
        if (slot && slot != &th->scenario && (th->tag || (slot == &th->tag && th->request_name))) {
            free(text);
            return threshold_fail(ps, "\"%s\": one label at a time (name=\"NAME\" or one tag, KEY=\"VALUE\")", fig),
                   NULL;
        }
        if (!slot || *slot) {
            free(text);
            return threshold_fail(ps, "\"%s\": %s label \"%.*s\" (%s)", fig, slot ? "a second" : "unknown", (int)k, key,
                        failures ? "failures takes reason=\"TEXT\", name=\"NAME\" and scenario=\"NAME\""
                                 : "expected name=\"NAME\", scenario=\"NAME\" or a tag, KEY=\"VALUE\""),
                   NULL;
        }
        if (slot == &th->scenario && !text[0]) {
            free(text);
            return threshold_fail(ps, "\"%s\": the scenario name is empty", fig), NULL;
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
            return threshold_fail(ps, "\"%s\": the %s name is empty", fig,
                        threshold_is_word(fig, fam, "checks") ? "check" : threshold_is_word(fig, fam, "group") ? "group" : "request"),
                   NULL;
        size_t rest = strlen(p + 1);
        char *plain = xmalloc(fam + rest + 1);
        memcpy(plain, fig, fam);
        memcpy(plain + fam, p + 1, rest + 1);
        return plain;
    }
    if (failures)
        return threshold_fail(ps, "\"%s\": expected failures{reason=\"TEXT\"}", fig), NULL;
    return threshold_fail(ps, "\"%s\": expected %.*s{name=\"NAME\"}", fig, (int)fam, fig), NULL;
}

/* The figure fig (the text before the operator) into ps->th. */
static int parse_figure(struct threshold_parser *ps, const char *fig, bool open_model)
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
    if (rc == 0 && th->tag && !(th->source == THRESHOLD_LATENCY || th->source == THRESHOLD_SERVICE ||
                                th->source == THRESHOLD_ERRORS || th->source == THRESHOLD_FAILED_SHARE ||
                                th->source == THRESHOLD_RPS || th->source == THRESHOLD_REQUESTS ||
                                th->source == THRESHOLD_STATUS))
        return threshold_fail(ps,
                              "%s: kept per tag are latency, service, errors, failed, requests, rps and status "
                              "(a tag's label, %.*s=, goes on one of them)",
                              fig, (int)strcspn(th->tag, "="), th->tag);
    if (rc < 0 || !th->request_name)
        return rc;
    static const char *const unnamed[] = {[THRESHOLD_CONNECT] = "connect times", [THRESHOLD_WAITING] = "waiting times",
                                          [THRESHOLD_METRIC] = "metrics"};
    if (th->source == THRESHOLD_CONNECT || th->source == THRESHOLD_WAITING || th->source == THRESHOLD_METRIC)
        return threshold_fail(ps,
                    "%s: %s are not kept per request name (latency, service, errors, failed, requests, rps, "
                    "status and failures are)",
                    fig, unnamed[th->source]);
    return 0;
}

/* The figure: up to blank space or an operator character outside a
 * quoted string. A new copy, or NULL with err. */
static char *lex_figure(struct threshold_parser *ps)
{
    threshold_skip_space(ps);
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
        } else if (depth == 0 && (isspace((unsigned char)c) || strchr(THRESHOLD_OP_CHARS, c))) {
            break;
        }
    }
    if (quoted)
        return threshold_fail(ps, "unterminated string in \"%s\"", start), NULL;
    if (depth)
        return threshold_fail(ps, "missing } or ] in \"%s\"", start), NULL;
    if (ps->p == start)
        return threshold_fail(ps, "%s (expected FIGURE OP VALUE, e.g. \"p99 < 50ms\")",
                    *start ? "the figure is missing" : "empty"),
               NULL;
    return xstrndup(start, (size_t)(ps->p - start));
}

int threshold_parse(struct threshold *th, const char *expr, enum threshold_word word, bool open_model, char *err,
                    size_t errlen)
{
    memset(th, 0, sizeof *th);
    struct threshold_parser ps = {.expr = expr, .p = expr, .th = th, .err = err, .errlen = errlen};
    th->unit_ns = 1;
    th->word = word;
    char *fig = lex_figure(&ps);
    if (fig) {
        th->fig_len = strlen(fig);
        th->fig_at = (size_t)(ps.p - expr) - th->fig_len;
    }
    int rc = fig && parse_figure(&ps, fig, open_model) == 0 && threshold_parse_op(&ps, fig) == 0 && threshold_parse_value(&ps, fig) == 0 &&
                     threshold_parse_tail(&ps) == 0
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
    free(th->tag);
    free(th->scenario);
    th->expr = th->name = th->request_name = th->tag = th->scenario = NULL;
}

void threshold_free_all(struct threshold *ths, size_t n)
{
    for (size_t i = 0; ths && i < n; i++)
        threshold_free(&ths[i]);
    free(ths);
}

double threshold_in_unit(const struct threshold *th, double v)
{
    return v / th->unit_ns;
}

