/* What the report's files share, below all of them (report.c, report_json.c
 * and the other report_*.c files call it; it calls none of them back but
 * report_shard.c's target rate): a histogram's text line, the JSON's
 * shapes of a histogram, statuses, failures and reasons, and -R's
 * criterion. */
#ifndef VOLLEY_REPORT_COMMON_H
#define VOLLEY_REPORT_COMMON_H

#include "hist.h"
#include "options.h"
#include "result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "  Name      p50 ...  max ...  mean ...  stdev ..." and any clamped note. */
void report_hist_line(FILE *out, const char *name, const struct hist *h);

/* Under a histogram's line, when values were above its top: how many, and
 * that they count as the top (in the max, the mean and the percentiles). */
void report_clamped_note(FILE *out, int64_t clamped, const char *top);

/* -R with --arrivals poisson or gamma:K: the rate the drawn schedule
 * asked for over its span (due_span_ns), which is -R only on average;
 * 0 for fixed arrivals, or when not known. */
double report_drawn_rate(const struct options *o, const struct run_result *r);

/* -R: whether sent (report_sent_rate) reached the target: the text
 * report's, the JSON's and the exit status's one criterion (99 % of
 * report_target_rate; with --stages, 99 % of the arrivals sent; with a
 * random process, 99 % of report_drawn_rate). */
bool report_rate_met(const struct options *o, const struct run_result *r, double sent);

/* "  \"name\": {...}" with a comma unless last, and a newline. */
void report_json_hist(FILE *out, const char *name, const struct hist *h, int last);

/* A histogram's JSON object alone, "{\"count\": ...}": its figures (min,
 * max, mean, stdev, percentiles) in us; the _scaled form divides the
 * recorded values by scale instead (1: a count, written as recorded).
 * "sum", "sum_sq" and "hdr" are the recorded values either way. */
void report_json_hist_obj(FILE *out, const struct hist *h);
void report_json_hist_scaled(FILE *out, const struct hist *h, double scale);

/* ", \"sum\": \"N\", \"sum_sq\": \"N\"": the exact sums the mean and
 * the standard deviation come from, which the "hdr" encoding leaves out;
 * with them a saved result gives the same figures again (volley report). */
void report_json_exact_sums(FILE *out, const struct hist *h);

/* The JSON objects of the statuses ({"200": n, ...}, only codes that
 * occurred), of the failures by kind (every kind), and of validation
 * failures by reason ({"reasons": [...], "other_reasons": N, "other": M}:
 * the first 20 of reasons, which are sorted; more and more_count: a saved
 * result's reasons it did not list). */
void report_json_status(FILE *out, const uint64_t *status);
void report_json_errors(FILE *out, const uint64_t *errors);
void report_json_reasons(FILE *out, const struct stats_reason *reasons, size_t n, size_t more, uint64_t more_count);

#endif
