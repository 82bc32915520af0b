/* Figures as text: a parsed threshold's figure spelled out the one
 * canonical way (the report's and the JSON's "figure"), its observed
 * value as the reports show it, and the known figure nearest to a
 * misspelt one (threshold.c's "did you mean"). */
#include "threshold_internal.h"

#include "fmt.h"
#include "nearest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void threshold_suggest(const char *fig, char *buf, size_t len)
{
    static const char *const families[] = {"latency",  "service",  "connect",   "waiting",    "errors", "failed",
                                           "status",   "metric",   "failures",  "requests",   "rps",
                                           "iteration", "iterations", "checks", "group",
                                           "first_event", "event_gap", "stream_events", "stream",
                                           "ttft", "itl", "tpot", "e2el"};
    static const char *const bare[] = {"p50", "p90", "p99", "p99.9", "max", "mean", "min", "stdev",
                                       "errors", "failed", "rps", "requests", "iterations", "checks",
                                       "events", "tokens", "streams"};
    buf[0] = '\0';
    if (fig[0] == 'p' && isdigit((unsigned char)fig[1])) {
        snprintf(buf, len, "p99");
        return;
    }
    size_t plen = strcspn(fig, ".{[");
    if (fig[plen]) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "%.*s", (int)(plen < 63 ? plen : 63), fig);
        /* the nearest family (iteration and iterations are one apart) */
        size_t best = 0, dist = 3;
        for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
            size_t d = nearest_distance(prefix, families[i]);
            if (d < dist)
                best = i, dist = d;
        }
        if (dist <= 2)
            snprintf(buf, len, "%s%s", families[best], fig + plen);
        return;
    }
    const char *near = nearest_name(fig, bare, sizeof bare / sizeof bare[0]);
    if (near)
        snprintf(buf, len, "%s", near);
}

/* s as a quoted string ("..." with " and \ escaped) at the end of buf. */
static void append_quoted(char *buf, size_t len, const char *s)
{
    size_t n = strlen(buf);
    if (n + 1 < len)
        buf[n++] = '"';
    for (; *s && n + 2 < len; s++) {
        if (*s == '"' || *s == '\\')
            buf[n++] = '\\';
        buf[n++] = *s;
    }
    if (n + 1 < len)
        buf[n++] = '"';
    buf[n < len ? n : len - 1] = '\0';
}

static void append_stat(char *buf, size_t len, const struct threshold *th)
{
    static const char *const names[] = {
        [THRESHOLD_MEAN] = "mean",   [THRESHOLD_MIN] = "min",     [THRESHOLD_MAX] = "max",
        [THRESHOLD_STDEV] = "stdev", [THRESHOLD_COUNT] = "count",   [THRESHOLD_FAILED] = "failed",
    };
    size_t n = strlen(buf);
    if (th->stat == THRESHOLD_PCT)
        snprintf(buf + n, len - n, ".p%g", th->pct);
    else if (th->stat != THRESHOLD_TOTAL)
        snprintf(buf + n, len - n, ".%s", names[th->stat]);
}

/* {name="NAME"} when the figure is about one name (after the family): a
 * request name, or a flow's check or group. */
static void append_label(char *buf, size_t len, const char *name)
{
    if (!name)
        return;
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "{name=");
    append_quoted(buf, len, name);
    n = strlen(buf);
    snprintf(buf + n, len - n, "}");
}

/* The label of a figure of some requests: {name="NAME"}, or a tag's
 * {KEY="VALUE"}; nothing for the whole run's. */
static void append_request_label(char *buf, size_t len, const struct threshold *th)
{
    if (!th->tag) {
        append_label(buf, len, th->request_name);
        return;
    }
    size_t k = strcspn(th->tag, "="), n = strlen(buf);
    snprintf(buf + n, len - n, "{%.*s=", (int)k, th->tag);
    append_quoted(buf, len, th->tag + k + 1);
    n = strlen(buf);
    snprintf(buf + n, len - n, "}");
}

static char *figure(const struct threshold *th, char *buf, size_t len);

/* {scenario="NAME"} right after the figure's first word: into its braces
 * when it has labels already. */
char *threshold_figure(const struct threshold *th, char *buf, size_t len)
{
    figure(th, buf, len);
    if (!th->scenario)
        return buf;
    char label[200] = "scenario=";
    append_quoted(label, sizeof label, th->scenario);
    size_t fam = strcspn(buf, "{.[");
    bool braces = buf[fam] == '{';
    char rest[512];
    snprintf(rest, sizeof rest, "%s", buf + fam + braces);
    if (braces)
        snprintf(buf + fam, len - fam, "{%s,%s", label, rest);
    else
        snprintf(buf + fam, len - fam, "{%s}%s", label, rest);
    return buf;
}

static char *figure(const struct threshold *th, char *buf, size_t len)
{
    buf[0] = '\0';
    switch (th->source) {
    case THRESHOLD_LATENCY:
    case THRESHOLD_SERVICE:
    case THRESHOLD_CONNECT:
    case THRESHOLD_WAITING:
        snprintf(buf, len, "%s", threshold_hist_names[th->source - THRESHOLD_LATENCY]);
        append_request_label(buf, len, th);
        append_stat(buf, len, th);
        break;
    case THRESHOLD_ERRORS:
        snprintf(buf, len, "errors");
        append_request_label(buf, len, th);
        if (th->error_kind >= 0)
            snprintf(buf + strlen(buf), len - strlen(buf), ".%s", stats_error_name(th->error_kind));
        break;
    case THRESHOLD_FAILED_SHARE:
    case THRESHOLD_RPS:
    case THRESHOLD_REQUESTS:
        snprintf(buf, len, th->source == THRESHOLD_RPS ? "rps" : th->source == THRESHOLD_REQUESTS ? "requests" : "failed");
        append_request_label(buf, len, th);
        break;
    case THRESHOLD_STATUS:
        snprintf(buf, len, "status");
        append_request_label(buf, len, th);
        snprintf(buf + strlen(buf), len - strlen(buf), th->status_class ? ".%dxx" : ".%d", th->status);
        break;
    case THRESHOLD_REASON:
        snprintf(buf, len, "failures{reason=");
        append_quoted(buf, len, th->name);
        if (th->request_name) {
            snprintf(buf + strlen(buf), len - strlen(buf), ",name=");
            append_quoted(buf, len, th->request_name);
        }
        snprintf(buf + strlen(buf), len - strlen(buf), "}");
        break;
    case THRESHOLD_ITERATIONS:
        snprintf(buf, len, th->stat == THRESHOLD_FAILED ? "iterations.failed" : "iterations");
        break;
    case THRESHOLD_ITERATION:
        snprintf(buf, len, "iteration");
        append_stat(buf, len, th);
        break;
    case THRESHOLD_CHECKS:
    case THRESHOLD_GROUP:
        snprintf(buf, len, th->source == THRESHOLD_CHECKS ? "checks" : "group");
        append_label(buf, len, th->name);
        if (th->source == THRESHOLD_GROUP)
            append_stat(buf, len, th);
        break;
    case THRESHOLD_STREAM:
        snprintf(buf, len, "%s", threshold_stream_name(th));
        if (threshold_stream_is_hist(th))
            append_stat(buf, len, th);
        break;
    case THRESHOLD_METRIC: {
        bool bare = th->name[0] != '\0';
        for (const char *c = th->name; *c; c++)
            bare = bare && threshold_name_char(*c);
        if (bare) {
            snprintf(buf, len, "metric.%s", th->name);
        } else {
            snprintf(buf, len, "metric[");
            append_quoted(buf, len, th->name);
            snprintf(buf + strlen(buf), len - strlen(buf), "]");
        }
        append_stat(buf, len, th);
        break;
    }
    }
    return buf;
}

char *threshold_observed_text(char *buf, size_t len, const struct threshold *th, const struct threshold_result *res)
{
    if (res->note)
        snprintf(buf, len, "-");
    else if (res->nodata)
        snprintf(buf, len, "no data");
    else if (th->kind == THRESHOLD_TIME)
        fmt_time(buf, len, res->observed);
    else if (th->percent)
        snprintf(buf, len, "%.3g%%", res->observed);
    else if (th->kind == THRESHOLD_NUM)
        snprintf(buf, len, "%.0f", res->observed);
    else if (th->kind == THRESHOLD_RATE)
        snprintf(buf, len, "%.2f/s", res->observed);
    else
        snprintf(buf, len, "%.6g", res->observed);
    return buf;
}
