/* Shared by the threshold*.c files only: threshold.c (the grammar's
 * entry and its figures), threshold_value.c (what follows the figure),
 * threshold_flow.c (a flow's figures), threshold_stream.c (streams'),
 * threshold_figure.c (figures as
 * text), and below them all threshold_lex.c (the parser's pieces). */
#ifndef VOLLEY_THRESHOLD_INTERNAL_H
#define VOLLEY_THRESHOLD_INTERNAL_H

#include "threshold.h"

#include <stdbool.h>
#include <stddef.h>

/* The histogram families' words, by source (THRESHOLD_LATENCY ..
 * THRESHOLD_WAITING, in that order). */
#define THRESHOLD_HISTS 4
extern const char *const threshold_hist_names[THRESHOLD_HISTS];

/* The characters operators are made of: a figure ends at the first one
 * outside a quoted string. */
#define THRESHOLD_OP_CHARS "<>=!"

/* One expression being parsed into th (threshold_parse). */
struct threshold_parser {
    const char *expr; /* the whole expression */
    const char *p;    /* where parsing is */
    struct threshold *th;
    char *err;
    size_t errlen;
};

/* threshold_lex.c: */

/* err = `--threshold "EXPR": ` (the word's option) and the message,
 * control characters escaped (quote.h) so that it stays one line. Returns
 * -1. */
__attribute__((format(printf, 2, 3))) int threshold_fail(struct threshold_parser *ps, const char *fmt, ...);

/* Moves ps past blank space. */
void threshold_skip_space(struct threshold_parser *ps);

/* The next blank-delimited word: its start, and its length in *n. */
const char *threshold_next_word(struct threshold_parser *ps, size_t *n);

/* Whether w[0..n) is the string s. */
bool threshold_is_word(const char *w, size_t n, const char *s);

/* A plain decimal number at s ("12", "0.5", "-3" when sign): its value,
 * and where it ends in *end. Returns 0, or -1 if s does not start with
 * one. */
int threshold_parse_number(const char *s, bool sign, double *v, const char **end);

/* A histogram's figure "p99", "p(99.9)", "mean", "min", "max", "stdev",
 * "count" into th's stat (and pct). Returns 0, or -1 if s is none (a
 * percentile above 100 is parsed: the caller refuses it). */
int threshold_parse_stat(const char *s, struct threshold *th);

/* A quoted string at s ("..." with \" and \\): a new copy of its text,
 * and where it ends (after the closing quote) in *end; NULL if s is not
 * one. */
char *threshold_unquote(const char *s, const char **end);

/* A character of a metric name that needs no quotes: a letter, a digit,
 * '_' or '-'. */
bool threshold_name_char(char c);

/* The statistics a histogram's figure takes, for messages. */
#define THRESHOLD_STATS ".p50, .p99.9, .p(N), .mean, .min, .max, .stdev, .count"

/* why (len bytes) as printf formats it; returns -1 (the figure parsers'
 * refusal). */
__attribute__((format(printf, 3, 4))) int threshold_say(char *why, size_t len, const char *fmt, ...);

/* fig begins with name, followed by '.' or its end. */
bool threshold_family(const char *fig, const char *name);

/* ".STAT" at rest as the figure of a histogram called what (in messages):
 * th's stat, and its kind a count for .count, else a time. Returns 0, or
 * -1 with why (an unknown figure, a percentile above 100). */
int threshold_hist_stat(struct threshold *th, const char *rest, const char *shown, const char *what, char *why,
                        size_t len);

/* A flow's figure (iterations, iterations.failed, iteration.STAT, checks,
 * group.STAT, group.failed), fig without its labels and th->request_name
 * the {name="..."} label's text if any (moved into th->name for checks
 * and group). Returns 1 when fig is no flow's figure (th untouched), 0
 * with th's source, stat and kind set, or -1 with why (a message for
 * `--threshold "EXPR": ` or `--fail-if "EXPR": `; shown is the figure as
 * written). */
int threshold_flow_parse(struct threshold *th, const char *fig, const char *shown, char *why, size_t len);

/* A streamed response's figure (threshold_stream.c: first_event.STAT,
 * ttft.STAT, ..., events, tokens, streams), fig without its labels, as
 * threshold_flow_parse: 1 when fig is none (th untouched), 0 with th's
 * source, stream, stat and kind set, or -1 with why. open_model: -R was
 * given (service.ttft and the other twins need it). */
int threshold_stream_parse(struct threshold *th, const char *fig, const char *shown, bool open_model, char *why,
                           size_t len);

/* Whether th is a stream histogram's figure (not a count). */
bool threshold_stream_is_hist(const struct threshold *th);

/* The figure's family as written ("service.ttft", "events"). */
const char *threshold_stream_name(const struct threshold *th);

/* th's figure on s, through hist_figure for a histogram (threshold_eval.c's
 * reading of a STAT); NAN when the run saw no stream. */
double threshold_stream_figure(const struct threshold *th, const struct stats_stream *s,
                               double (*hist_figure)(const struct threshold *, const struct hist *));

/* A figure close to fig (a typo), into buf; "" when none is close. */
void threshold_suggest(const char *fig, char *buf, size_t len);

/* threshold_value.c, after the figure fig (as written, for messages) is
 * in ps->th: the operator, the value (checked against the figure's kind),
 * and what may follow it. Each returns 0, or -1 with ps's err. */
int threshold_parse_op(struct threshold_parser *ps, const char *fig);
int threshold_parse_value(struct threshold_parser *ps, const char *fig);
int threshold_parse_tail(struct threshold_parser *ps);

#endif
