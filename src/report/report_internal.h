/* Shared by report.c (the text report), report_json.c (the JSON) and the
 * other report_*.c files only: the names, flow, TLS, HTTP/2, series,
 * health, threshold and shard parts of the reports. The line and JSON
 * shapes of a histogram and -R's criterion, which all of them use, are
 * below them in report_common.h, included here. */
#ifndef VOLLEY_REPORT_INTERNAL_H
#define VOLLEY_REPORT_INTERNAL_H

#include "fmt.h"
#include "hist.h"
#include "options.h"
#include "report_common.h"
#include "result.h"
#include "target.h"

#include <stdio.h>

/* The widest name column of the text report's tables (request names,
 * checks, groups). A longer name is written whole on a line of its own,
 * and its row's figures follow on the next line, in their columns
 * (report_name_lead). */
#define REPORT_NAME_WIDTH 32

/* The columns text's cell takes in a table: its escaped (quote.h)
 * length, at most max. A table's column is the widest of its rows'. */
int report_cell_width(const char *text, int max);

/* A table's cell at column at (the cursor is there): text escaped
 * (quote.h), whole, padded to width columns. A text wider than width
 * ends its line, and the row goes on under it, at column at + width, so
 * that every row's next cells stay in their columns and nothing is cut. */
void report_cell(FILE *out, int at, int width, const char *text);

/* report_cell_width for a name column (at most REPORT_NAME_WIDTH). */
int report_name_width(const char *name);

/* A table row's lead: indent blanks, then name's cell (report_cell). */
void report_name_lead(FILE *out, int indent, int width, const char *name);

/* Request names: the text report's per-name table (nothing when no
 * request was named) and the JSON's "names" member (null then), followed
 * by ",\n". */
void report_names_text(FILE *out, const struct run_result *r);
/* The text report's last line when requests sent without a name ran past
 * the run's default names (a row NAMES_OVERFLOW): how many, and how to
 * name them. Nothing otherwise. */
void report_names_overflow_text(FILE *out, const struct run_result *r);
void report_names_json(FILE *out, const struct options *o, const struct run_result *r);

/* The JSON's "tags": key -> value -> the figures of the requests that
 * carried it (as a name's), or null when no request was tagged. */
void report_tags_json(FILE *out, const struct options *o, const struct run_result *r);

/* The notes at the end of the text report when tags went past their
 * bounds (tags.h, stats_tags.h). */
void report_tags_note_text(FILE *out, const struct run_result *r);

/* A flow (user(u)): the text report's iterations line, checks and groups
 * tables, and the JSON's "iterations", "checks" and "groups" members (null
 * for other runs), followed by ",\n". */
void report_aside_json(FILE *out, const struct run_result *r);

void report_flow_text(FILE *out, const struct options *o, const struct run_result *r);
void report_flow_json(FILE *out, const struct options *o, const struct run_result *r);
/* The same members of f alone, its rates over duration_ns (open: a rate
 * started its iterations, so their start lag is there; capped: --max-rps
 * held its requests, so their cap wait is there). */
void report_flow_json_of(FILE *out, const struct stats_flow *f, int64_t duration_ns, bool open, bool capped);

/* Several scenarios (report_scenarios.c): the text report's Scenarios
 * table, and the JSON's "scenarios" member (null for a run of one),
 * followed by ",\n". */
void report_scenarios_text(FILE *out, const struct run_result *r);
void report_scenarios_json(FILE *out, const struct run_result *r);

/* A flow's hosts (stats_hosts.h): the text report's "Hosts" block and
 * the JSON's "hosts" member (null when the target's was the only one),
 * followed by ",\n". */
void report_hosts_text(FILE *out, const struct run_result *r);
void report_hosts_json(FILE *out, const struct run_result *r);

/* Streamed responses (stats_stream.h): the text report's "Streams" block
 * and the JSON's "stream" member (null when no stream was seen), followed
 * by ",\n". */
void report_stream_text(FILE *out, const struct run_result *r);
void report_stream_json(FILE *out, const struct run_result *r);

/* "    KIND: REASON (N)" lines for a failure kind counted by reason (tls,
 * protocol), and the JSON members "reasons": [...], "other": N. */
void report_kind_reasons(FILE *out, const struct stats *s, enum stats_error kind);
void report_kind_reasons_json(FILE *out, const struct stats *s, enum stats_error kind);

/* A run whose every response had one 4xx/5xx status: the report's line
 * with the first one's body (its beginning, escaped) and the hint it
 * implies; nothing for other runs. */
void report_first_error_text(FILE *out, const struct stats *s);

/* The JSON's "error_samples" member (the first failed or non-2xx
 * responses the run kept, stats.shown), followed by ",\n". */
void report_errors_json(FILE *out, const struct stats *s);

/* HTTP/2 (--http2, --h2c): the header's line, the report's lines (streams,
 * retries, header compression, protocol failures by reason), the JSON's
 * "http2" member (null otherwise) followed by ",\n". */
void report_h2_header(FILE *out, const struct options *o);
void report_h2_text(FILE *out, const struct options *o, const struct run_result *r);
void report_h2_json(FILE *out, const struct options *o, const struct run_result *r);

/* Little's law, responses per connection (a warning when the server served
 * only some of them) and each worker's CPU (a warning when one was nearly
 * always busy): report lines, and the JSON's "connections" and "workers"
 * members, each followed by ",\n". */
void report_health_text(FILE *out, const struct options *o, const struct run_result *r);
void report_health_json(FILE *out, const struct options *o, const struct run_result *r);

/* The JSON's "series" member (the per-second points), then ",\n". */
void report_series_json(FILE *out, const struct options *o, const struct run_result *r);

/* https: the header's TLS line (what the probe's handshake agreed on). */
void report_tls_header(FILE *out, const struct target *t, const struct run_result *r);

/* https: the handshake counts, the TLS failures by reason, and with
 * verbose the handshake times. */
void report_tls_text(FILE *out, const struct target *t, const struct run_result *r, int verbose);

/* The JSON's "tls" member (null for http) and the "handshake" histogram,
 * each followed by ",\n". */
void report_tls_json(FILE *out, const struct target *t, const struct run_result *r);

/* --threshold, --fail-if: the text report's "Thresholds:" block (nothing without
 * thresholds) and the JSON's "thresholds" member (null without them),
 * followed by ",\n". */
void report_thresholds_text(FILE *out, const struct options *o, const struct run_result *r);
void report_thresholds_json(FILE *out, const struct options *o, const struct run_result *r);

/* The header's lines of a shard (--shard I/N, --start-at) or of shards
 * merged; nothing for one process without them. */
void report_shard_header(FILE *out, const struct options *o, const struct run_result *r);

/* The JSON's "run": {"id", "shard" (null: merged), "shards", "missing", "start_at"},
 * followed by ",\n". */
void report_shard_json(FILE *out, const struct options *o, const struct run_result *r);

/* -R's target as the JSON gives it: this result's (report_target_rate),
 * whole unless a shard's part has a fraction. */
void report_shard_json_rate(FILE *out, const struct options *o, const struct run_result *r);

/* The connections the report's figures are of: a shard's part of -c
 * (--shard), or -c for one process and for shards merged (less the
 * parts of the shards missing from a partial merge). */
uint32_t report_connections(const struct options *o, const struct run_result *r);

#endif
