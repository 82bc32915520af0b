/* Shared by threshold.c (the grammar) and threshold_figure.c (figures as
 * text) only. */
#ifndef VOLLEY_THRESHOLD_INTERNAL_H
#define VOLLEY_THRESHOLD_INTERNAL_H

#include "threshold.h"

#include <stdbool.h>
#include <stddef.h>

/* The histogram families' words, by source (THRESHOLD_LATENCY ..
 * THRESHOLD_WAITING, in that order). */
#define THRESHOLD_HISTS 4
extern const char *const threshold_hist_names[THRESHOLD_HISTS];

/* A character of a metric name that needs no quotes: a letter, a digit,
 * '_' or '-'. */
bool threshold_name_char(char c);

/* A histogram's figure "p99", "p(99.9)", "mean", "min", "max", "stdev",
 * "count" into th's stat (and pct). Returns 0, or -1 if s is none (a
 * percentile above 100 is parsed: the caller refuses it). */
int threshold_parse_stat(const char *s, struct threshold *th);

/* A flow's figure (iterations, iterations.failed, iteration.STAT, checks,
 * group.STAT, group.failed), fig without its labels and th->request_name
 * the {name="..."} label's text if any (moved into th->name for checks
 * and group). Returns 1 when fig is no flow's figure (th untouched), 0
 * with th's source, stat and kind set, or -1 with why (a message for
 * `--threshold "EXPR": ` or `--fail-if "EXPR": `; shown is the figure as
 * written). */
int threshold_flow_parse(struct threshold *th, const char *fig, const char *shown, char *why, size_t len);

/* A figure close to fig (a typo), into buf; "" when none is close. */
void threshold_suggest(const char *fig, char *buf, size_t len);

#endif
