/* Thresholds for CI (--threshold EXPR and --fail-if EXPR, options()
 * thresholds and fail_if): the grammar of an expression, parsed once before
 * the run, and its evaluation on a struct stats, the merged results or a
 * snapshot of a run in progress. This is the only place that knows the
 * grammar (docs/usage.md#thresholds):
 *
 *     FIGURE OP VALUE [or nodata] [abort [after DURATION]]
 *
 * Each expression comes with the word that gave it, which says what it
 * means: under --threshold it must hold, under --fail-if the run fails when
 * it holds.
 */
#ifndef VOLLEY_THRESHOLD_H
#define VOLLEY_THRESHOLD_H

#include "stats.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a figure comes from. */
enum threshold_source {
    THRESHOLD_LATENCY,  /* the four time histograms of struct stats */
    THRESHOLD_SERVICE,  /* (-R only) */
    THRESHOLD_CONNECT,
    THRESHOLD_WAITING,
    THRESHOLD_ERRORS,   /* failed requests, all kinds or one */
    THRESHOLD_FAILED_SHARE, /* failed requests (all kinds) over the requests that ended:
                             * completed or failed (k6's http_req_failed) */
    THRESHOLD_RPS,      /* completed per second over the run */
    THRESHOLD_REQUESTS, /* completed */
    THRESHOLD_STATUS,   /* responses of a class or of one code */
    THRESHOLD_REASON,   /* validation failures with one reason */
    THRESHOLD_METRIC,   /* a script's volley.counter or volley.record */
    THRESHOLD_ITERATIONS, /* a flow's iterations: completed (TOTAL) or failed (FAILED) */
    THRESHOLD_ITERATION,  /* a flow's iteration durations (a histogram's figures) */
    THRESHOLD_CHECKS,     /* the share of a flow's checks that passed, all or one name's */
    THRESHOLD_GROUP,      /* one group's durations (a histogram's figures) or failed runs */
    THRESHOLD_STREAM,     /* streamed responses: a histogram's figure or a count (stream) */
};

/* Which figure of a histogram (or of a record). */
enum threshold_stat {
    THRESHOLD_PCT,   /* the percentile pct */
    THRESHOLD_MEAN,
    THRESHOLD_MIN,
    THRESHOLD_MAX,
    THRESHOLD_STDEV,
    THRESHOLD_COUNT, /* values recorded */
    THRESHOLD_TOTAL, /* a counter's total (metric.NAME); completed iterations */
    THRESHOLD_FAILED, /* failed iterations, a group's failed runs */
};

/* The word an expression was given with: its meaning. */
enum threshold_word {
    THRESHOLD_MUST_HOLD, /* --threshold EXPR, options() thresholds: the run fails unless EXPR holds */
    THRESHOLD_FAIL_IF,   /* --fail-if EXPR, options() fail_if: the run fails if EXPR holds */
};

/* An expression as given, with its word (the command line's, a saved
 * result's). expr is not owned. */
struct threshold_expr {
    const char *expr;
    enum threshold_word word;
};

enum threshold_op { THRESHOLD_LT, THRESHOLD_LE, THRESHOLD_GT, THRESHOLD_GE, THRESHOLD_EQ, THRESHOLD_NE };

/* How the figure's values read, which decides the units VALUE takes. */
enum threshold_kind {
    THRESHOLD_TIME,  /* ns; VALUE needs ns, us, ms, s or m */
    THRESHOLD_NUM,   /* a count; VALUE plain, or % where percent is allowed */
    THRESHOLD_RATE,  /* requests per second; VALUE plain */
    THRESHOLD_VALUE, /* a metric in the script's own unit; VALUE plain, may be negative */
    THRESHOLD_SHARE, /* a share (checks passed, failed): VALUE plain 0..1, or 0..100 with % */
};

/* One parsed expression. Read-only to callers; made by threshold_parse. */
struct threshold {
    char *expr;                 /* as written (owned) */
    enum threshold_word word;   /* what it means: must hold, or fails the run when it holds */
    size_t fig_at, fig_len;     /* the figure and VALUE as written, in expr (the note of */
    size_t value_at, value_len; /* threshold_note) */
    enum threshold_source source;
    enum threshold_stat stat;   /* time histograms and metrics */
    double pct;                 /* THRESHOLD_PCT: 0..100 */
    int error_kind;             /* THRESHOLD_ERRORS: an enum stats_error, or -1 for all kinds */
    int status;                 /* THRESHOLD_STATUS: a class 1..5, or a code 100..599 */
    bool status_class;          /* status is a class (status.5xx) */
    char *name;                 /* metric name, failure reason, or a flow's check or group
                                 * name (checks{name=...}, group{name=...}) (owned), else NULL */
    int stream;                 /* THRESHOLD_STREAM: which figure (threshold_stream.c's) */
    char *request_name;         /* FIGURE{name="NAME"}: the figure of the requests named NAME
                                 * (stats_name); NULL: of the whole run (owned) */
    char *tag;                  /* FIGURE{KEY="VALUE"}, KEY any other label: the figure of
                                 * the requests tagged so, "KEY=VALUE" (stats_tag_find);
                                 * NULL: none (owned). At most one of tag and request_name */
    char *scenario;             /* FIGURE{scenario="NAME"}: the figure of that scenario of a
                                 * run of several (run_result.scenarios); NULL: of the whole
                                 * run (owned) */
    enum threshold_kind kind;
    enum threshold_op op;
    double limit;               /* VALUE in the figure's base unit: ns for times, 0..100
                                 * with percent, else as written */
    bool percent;               /* VALUE ended in %: a share of started (errors,
                                 * failures) requests, of responses (status), of started
                                 * iterations, of a group's runs, of checks (checks), or
                                 * of ended requests (failed) */
    const char *unit;           /* the unit as written ("ms", "%"), NULL for none */
    double unit_ns;             /* THRESHOLD_TIME: nanoseconds per unit; else 1 */
    bool or_nodata;             /* "or nodata": a figure without data passes */
    bool abort;                 /* "abort": broken during the run, it stops the run */
    int64_t abort_after_ns;     /* "abort after D": not before the run is D old; 0 */
};

/* A threshold's outcome. */
struct threshold_result {
    double observed;  /* the figure in the threshold's base unit (see limit); NAN
                       * when there is no data */
    bool nodata;      /* the figure got no data (nothing completed, no such metric...) */
    bool pass;        /* the run passes it: the expression holds under --threshold, does
                       * not under --fail-if; with nodata, only "or nodata" passes */
    bool aborted;     /* it stopped the run early (set by whoever stopped it) */
    const char *note; /* NULL, or why the figure could not be read (a static
                       * string: the metric is of the other kind); it fails */
};

/* Parses expr, given with word, into *th (zeroed first). open_model: -R
 * was given (service.* needs it). Returns 0, or -1 with err holding one
 * line, `--threshold "EXPR": WHAT IS WRONG` (or --fail-if, the word's
 * option), naming the offending part; *th then owns nothing. "or nodata"
 * goes with --threshold only: under --fail-if it would read as failing on
 * no data, which a figure without data does anyway. */
int threshold_parse(struct threshold *th, const char *expr, enum threshold_word word, bool open_model, char *err,
                    size_t errlen);

/* Parses n expressions into a new array (*out, NULL when n is 0) that
 * threshold_free_all releases. Returns 0, or -1 with the first error (and
 * *out NULL). */
int threshold_parse_all(const struct threshold_expr *exprs, size_t n, bool open_model, struct threshold **out,
                        char *err, size_t errlen);

/* The word's option as the command line spells it: "--threshold",
 * "--fail-if" (threshold_word.c). */
const char *threshold_word_option(enum threshold_word word);

/* The word as a saved result names it ("threshold", "fail-if"); and back:
 * 0 with *word, or -1 for a name that is none. */
const char *threshold_word_name(enum threshold_word word);
int threshold_word_parse(const char *name, enum threshold_word *word);

/* Whether th is a --fail-if that bounds a time or a failure count or share
 * from above with < or <=: the form a must-hold limit takes (the meaning
 * --fail-if once had), which now fails the run when the figure is low. If
 * so, one line into buf (always terminated), `--fail-if 'p99 < 50ms' fails
 * the run when p99 is under 50ms; a limit that must hold is --threshold`,
 * for stderr; else buf is "". what is what fails ("the run", "the
 * comparison"). */
bool threshold_note(const struct threshold *th, const char *what, char *buf, size_t len);

/* The time unit u[0..n) of the grammar ("ns", "us", "ms", "s", "m"): its
 * canonical name and, in *ns, nanoseconds per unit; NULL when u is none.
 * Also `volley compare`'s limits use it. */
const char *threshold_time_unit(const char *u, size_t n, double *ns);

/* Frees what threshold_parse allocated. */
void threshold_free(struct threshold *th);

/* Frees an array from threshold_parse_all (NULL is fine). */
void threshold_free_all(struct threshold *ths, size_t n);

/* Evaluates th on s, a run that has lasted duration_ns (for rps). s may be
 * the merged result or a snapshot. Fills *res (aborted false). No
 * allocation. */
void threshold_eval(const struct threshold *th, const struct stats *s, int64_t duration_ns,
                    struct threshold_result *res);

/* Whether th, an abort threshold, is broken on snapshot, a run in progress
 * elapsed_ns old: false unless th has abort, the run is at least
 * abort_after old, the figure has data and fails, and it cannot pass by the
 * end (a count that only grows breaks a < or <= for good, never a > or >=).
 * Data absent from a snapshot (metrics and failure reasons, which workers
 * hand over as they end) is "not broken yet". */
bool threshold_broken_live(const struct threshold *th, const struct stats *snapshot, int64_t elapsed_ns);

/* Whether th is about a flow's figures (iterations, iteration, checks,
 * group), which only a run of a scenario with user(u) has. */
bool threshold_is_flow(const struct threshold *th);

/* Refuses a flow's figure on a run that is no flow: returns 0 when flow is
 * true or none of ths[0..n) is a flow's, else -1 with err (one line,
 * `--threshold "EXPR": FIGURE: ...` with its word's option, the first such
 * threshold). */
int threshold_check_flow(const struct threshold *ths, size_t n, bool flow, char *err, size_t errlen);

/* The figure's canonical name ("latency.p99", "errors.timeout",
 * `metric["a b"].mean`) into buf (always terminated). Returns buf. */
char *threshold_figure(const struct threshold *th, char *buf, size_t len);

/* res's observed figure as the reports show it into buf (always
 * terminated): a time in the text report's units ("9.18ms"), a share
 * ("3.2%"), a count, a rate ("812.50/s"), a metric's value; "no data";
 * "-" with a note. Returns buf. */
char *threshold_observed_text(char *buf, size_t len, const struct threshold *th, const struct threshold_result *res);

/* "<", "<=", ">", ">=", "==", "!=". */
const char *threshold_op_name(enum threshold_op op);

/* v, in th's base unit (ns, percent, count...), in the unit VALUE was
 * written in (ms for "p99 < 50ms"). */
double threshold_in_unit(const struct threshold *th, double v);

#endif
