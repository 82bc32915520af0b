/* Reports of a finished run: the text report on stdout (wrk's familiar lines
 * kept) and the --json object. Both only read the merged results. */
#ifndef VOLLEY_REPORT_H
#define VOLLEY_REPORT_H

#include "options.h"
#include "result.h"
#include "target.h"

#include <stdio.h>

/* The "Running ..." header, printed before the run starts (r: only its
 * TLS details are read). */
void report_header(FILE *out, const struct options *o, const struct target *t, const struct run_result *r);

/* The figures a threshold is judged on in r: a scenario's with
 * {scenario="NAME"} (report_scenarios.c; an empty stats when r has no such
 * scenario, so that it has no data), else the run's, and their length. */
const struct stats *report_threshold_stats(const struct run_result *r, const struct threshold *th,
                                           int64_t *duration_ns);

/* Every threshold of o judged on r into r->thresholds (each one's aborted
 * kept). */
void report_judge_thresholds(const struct options *o, struct run_result *r);

/* The text report of a run. */
void report_text(FILE *out, const struct options *o, const struct target *t, const struct run_result *r);

/* A flow's setup() and teardown() requests, apart from the run's figures
 * (report_aside.c; nothing when neither ran in this process). */
void report_aside_text(FILE *out, const struct run_result *r);

/* Writes "volley: MSG" and a newline on err, MSG with its control
 * characters escaped (quote.h): error messages carry untrusted text, such
 * as the string a script's hook gave error(). */
void report_error(FILE *err, const char *msg);

/* Why a run ended early, as "volley: ..." lines on err: the target went
 * away (r->unreachable) or a script hook failed (r->script_error). Returns
 * true if there was such a reason (the exit status is then 1). */
bool report_stop_reason(FILE *err, const struct target *t, const struct run_result *r);

/* When nothing the run was asked for succeeded, says so on err and returns
 * true: the exit status is then 1. That is a run in which no request
 * completed (all failed or were cut off, or the run was interrupted before
 * an answer: none of the report's timings measures anything), "volley: no
 * response completed (N requests failed: KIND n, ...; M cut off[;
 * interrupted])"; or a flow in which iterations failed and none completed,
 * whatever its responses were, "volley: every iteration failed (N of N);
 * the most common reason: REASON (n)" (with iterations cut off, "no
 * iteration completed (N failed, M cut off); ..."). A response with any
 * status completes (ab and wrk count them, and so does volley ab). Else
 * prints nothing and returns false. */
bool report_none_completed(FILE *err, const struct run_result *r);

/* The exit status of a run stopped by SIGINT or SIGTERM whose report was
 * printed (k6's for an aborted test): a CI job killed by its time limit
 * does not pass on a partial run. */
#define REPORT_INTERRUPTED_STATUS 105

/* A run stopped by SIGINT or SIGTERM says so on err, "volley: interrupted
 * (SIGINT or SIGTERM) 3.20s into the run: the report is of that part",
 * and true is returned (the exit status is then REPORT_INTERRUPTED_STATUS
 * unless a more serious one applies). Else nothing, false. */
bool report_interrupted(FILE *err, const struct run_result *r);

/* -R: the rate the run sent at, requests per second: those sent over the
 * schedule's span, from arrival 0 to the end of the last sent arrival's
 * interval (or to its actual send, if that was later), or to the end of -d
 * when arrivals were left unsent. 0 without -R. */
double report_sent_rate(const struct options *o, const struct run_result *r);

/* -R: the rate this result was to send: -R's, or a shard's part of it
 * (-R / N with --shard I/N; shards merged: -R's again, less the parts of
 * the shards missing from a partial merge). */
double report_target_rate(const struct options *o, const struct run_result *r);

/* -R: whether the target rate was missed (sent below 99 % of -R, in a run
 * that was not interrupted); if so, says it on err as "volley: -R ...".
 * The exit status is then 3. */
bool report_rate_missed(FILE *err, const struct options *o, const struct run_result *r);

/* A partial merge (volley merge --partial, shards missing): says so on err
 * ("volley merge: partial: ...", naming the first few missing) and returns
 * true; false for any other result. */
bool report_partial(FILE *err, const struct run_result *r);

/* --threshold, --fail-if: whether a threshold failed; if so, says which on
 * err as "volley: N of M thresholds failed: --threshold \"EXPR\", ...". The
 * exit status is then 99 (unless a more serious one applies). */
bool report_thresholds_failed(FILE *err, const struct options *o, const struct run_result *r);

/* The report's Thresholds block alone (nothing without thresholds): for
 * `volley report RESULT.json --threshold`. */
void report_thresholds(FILE *out, const struct options *o, const struct run_result *r);

/* One line on err for each of o's thresholds that threshold_note flags (a
 * --fail-if written as a must-hold limit is, "p99 < 50ms"): what it
 * fails the run on, and that a limit that must hold is --threshold. */
void report_threshold_notes(FILE *err, const struct options *o);

/* --show-errors N: the first N failed or non-2xx responses (status,
 * headers, the body's beginning, escaped) on err; nothing without it. */
void report_show_errors(FILE *err, const struct options *o, const struct stats *s);

/* The JSON object documented in docs/output.md, followed by a newline. */
void report_json(FILE *out, const struct options *o, const struct target *t, const struct run_result *r);

/* The HTML report, rendered from the JSON report_json writes (into
 * memory, parsed back), so a live page, `volley report`'s and `volley
 * merge`'s come from the same text. Returns 0, or -1 with why (a bug:
 * volley's own JSON always renders; or no memory for the text). */
int report_html(FILE *out, const struct options *o, const struct target *t, const struct run_result *r, char *why,
                size_t len);

#endif
