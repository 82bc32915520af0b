/* A flow's figures in the threshold grammar (a scenario with user(u)):
 * iterations, iterations.failed, iteration.STAT, checks, checks{name=...},
 * group{name=...}.STAT and .failed; and the refusal of them on a run that
 * is no flow. threshold.c calls the parser for every figure it does not
 * know itself; threshold_eval.c evaluates what is built here. */
#include "threshold_internal.h"

#include "quote.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int threshold_flow_parse(struct threshold *th, const char *fig, const char *shown, char *why, size_t len)
{
    if (threshold_family(fig, "iterations") || threshold_family(fig, "iteration")) {
        if (th->request_name)
            return threshold_say(why, len, "%s: iterations are not kept per name (checks{name=\"NAME\"} and "
                                 "group{name=\"NAME\"} are a check's and a group's)", shown);
        if (strcmp(fig, "iterations") == 0 || strcmp(fig, "iterations.failed") == 0) {
            th->source = THRESHOLD_ITERATIONS;
            th->stat = fig[10] ? THRESHOLD_FAILED : THRESHOLD_TOTAL;
            th->kind = THRESHOLD_NUM;
            return 0;
        }
        if (fig[9] == 's') /* iterations.p99: the durations are iteration's */
            return threshold_say(why, len, "unknown figure \"%s\" (iterations counts completed iterations, "
                                 "iterations.failed failed ones; their durations are iteration.p99 ...)", shown);
        th->source = THRESHOLD_ITERATION;
        return threshold_hist_stat(th, fig + 9, shown, "iteration", why, len);
    }
    if (threshold_family(fig, "checks")) {
        if (fig[6])
            return threshold_say(why, len, "unknown figure \"%s\" (checks is the share of checks that passed, "
                                 "checks{name=\"NAME\"} one check's)", shown);
        th->source = THRESHOLD_CHECKS;
        th->kind = THRESHOLD_SHARE;
        th->name = th->request_name; /* the check's name, not a request's */
        th->request_name = NULL;
        return 0;
    }
    if (!threshold_family(fig, "group"))
        return 1;
    if (!th->request_name)
        return threshold_say(why, len, "%s: which group? (group{name=\"NAME\"}.p95, group{name=\"NAME\"}.failed)", shown);
    th->source = THRESHOLD_GROUP;
    th->name = th->request_name;
    th->request_name = NULL;
    if (strcmp(fig + 5, ".failed") == 0) {
        th->stat = THRESHOLD_FAILED;
        th->kind = THRESHOLD_NUM;
        return 0;
    }
    if (!fig[5])
        return threshold_say(why, len, "%s: which figure of the group? (" THRESHOLD_STATS ", .failed)", shown);
    return threshold_hist_stat(th, fig + 5, shown, "group{name=\"NAME\"}", why, len);
}

bool threshold_is_flow(const struct threshold *th)
{
    return th->source == THRESHOLD_ITERATIONS || th->source == THRESHOLD_ITERATION ||
           th->source == THRESHOLD_CHECKS || th->source == THRESHOLD_GROUP;
}

int threshold_check_flow(const struct threshold *ths, size_t n, bool flow, char *err, size_t errlen)
{
    for (size_t i = 0; !flow && i < n; i++) {
        if (!threshold_is_flow(&ths[i]))
            continue;
        char fig[512], raw[1200];
        snprintf(raw, sizeof raw, "%s \"%s\": %s: a flow's figure, and this run is no flow (no script "
                 "with user(u))", threshold_word_option(ths[i].word), ths[i].expr,
                 threshold_figure(&ths[i], fig, sizeof fig));
        quote_printable(err, errlen, raw); /* names are the script's text: one line */
        return -1;
    }
    return 0;
}
