/* Figures as text: a parsed threshold's figure spelled out the one
 * canonical way (the report's and the JSON's "figure"), and the known
 * figure nearest to a misspelt one (threshold.c's "did you mean"). */
#include "threshold_internal.h"

#include "nearest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void threshold_suggest(const char *fig, char *buf, size_t len)
{
    static const char *const families[] = {"latency", "service", "connect",  "waiting",  "errors",
                                           "status",  "metric",  "failures", "requests", "rps"};
    static const char *const bare[] = {"p50", "p90", "p99", "p99.9", "max", "mean", "min", "stdev",
                                       "errors", "rps", "requests"};
    buf[0] = '\0';
    if (fig[0] == 'p' && isdigit((unsigned char)fig[1])) {
        snprintf(buf, len, "p99");
        return;
    }
    size_t plen = strcspn(fig, ".{[");
    if (fig[plen]) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "%.*s", (int)(plen < 63 ? plen : 63), fig);
        for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
            if (nearest_distance(prefix, families[i]) <= 2) {
                snprintf(buf, len, "%s%s", families[i], fig + plen);
                return;
            }
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
        [THRESHOLD_STDEV] = "stdev", [THRESHOLD_COUNT] = "count",
    };
    size_t n = strlen(buf);
    if (th->stat == THRESHOLD_PCT)
        snprintf(buf + n, len - n, ".p%g", th->pct);
    else if (th->stat != THRESHOLD_TOTAL)
        snprintf(buf + n, len - n, ".%s", names[th->stat]);
}

/* {name="NAME"} when th is about one request name (after the family). */
static void append_name(char *buf, size_t len, const struct threshold *th)
{
    if (!th->request_name)
        return;
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "{name=");
    append_quoted(buf, len, th->request_name);
    n = strlen(buf);
    snprintf(buf + n, len - n, "}");
}

char *threshold_figure(const struct threshold *th, char *buf, size_t len)
{
    buf[0] = '\0';
    switch (th->source) {
    case THRESHOLD_LATENCY:
    case THRESHOLD_SERVICE:
    case THRESHOLD_CONNECT:
    case THRESHOLD_WAITING:
        snprintf(buf, len, "%s", threshold_hist_names[th->source - THRESHOLD_LATENCY]);
        append_name(buf, len, th);
        append_stat(buf, len, th);
        break;
    case THRESHOLD_ERRORS:
        snprintf(buf, len, "errors");
        append_name(buf, len, th);
        if (th->error_kind >= 0)
            snprintf(buf + strlen(buf), len - strlen(buf), ".%s", stats_error_name(th->error_kind));
        break;
    case THRESHOLD_RPS:
    case THRESHOLD_REQUESTS:
        snprintf(buf, len, th->source == THRESHOLD_RPS ? "rps" : "requests");
        append_name(buf, len, th);
        break;
    case THRESHOLD_STATUS:
        snprintf(buf, len, "status");
        append_name(buf, len, th);
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
