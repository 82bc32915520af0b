/* `volley compare`: two saved results (untrusted --json files) read into
 * figures, the change of each figure judged better, worse or the same
 * within the runs' noise (a percentile's from the histograms, the other
 * figures' from the per-second samples), and the --threshold and
 * --fail-if limits on those changes (docs/usage.md#volley-compare). */
#ifndef VOLLEY_COMPARE_H
#define VOLLEY_COMPARE_H

#include "hist.h"
#include "json_in.h"
#include "threshold.h"

#include <stdbool.h>
#include <stddef.h>

#define COMPARE_KINDS 9 /* error kinds, in the JSON's order */

/* Where a figure comes from. */
enum compare_src {
    COMPARE_RPS,     /* requests_per_sec */
    COMPARE_ERRORS,  /* failed / started, in percent (one kind, or all) */
    COMPARE_NON2XX,  /* responses outside 200..399 / all responses, percent */
    COMPARE_LATENCY, /* the histograms, values in ns */
    COMPARE_SERVICE, /* (-R) */
    COMPARE_SENDLAG, /* (-R) */
    /* A flow's (user(u)): rows of the table only (no limit names them). */
    COMPARE_ITER_RATE,   /* iterations.per_sec: completed per second */
    COMPARE_ITER_FAILED, /* iterations.failed / started, percent */
    COMPARE_ITERATION,   /* iterations.duration, the completed ones' (ns) */
    COMPARE_CHECKS,      /* checks.passed / (passed + failed), percent */
    COMPARE_GROUP_RATE,  /* groups[name].count per second of the run */
    COMPARE_GROUP_FAILED, /* groups[name].failed / count, percent */
    COMPARE_GROUP,       /* groups[name].duration (ns) */
    /* Per request name (names, any run that names requests). */
    COMPARE_NAME_RATE,   /* names[name].requests.completed per second of the run */
    COMPARE_NAME_ERRORS, /* names[name].requests.failed / started, percent */
    COMPARE_NAME,        /* names[name].latency (ns) */
};

enum compare_stat { COMPARE_PCT, COMPARE_MAX, COMPARE_MEAN };

/* How a figure's values read: the units of its limits, how it prints. */
enum compare_kind {
    COMPARE_TIME,  /* ns */
    COMPARE_RATE,  /* requests per second; higher is better */
    COMPARE_SHARE, /* a percentage 0..100; changes in percentage points */
    COMPARE_PASS,  /* a share where higher is better (checks passed) */
};

struct compare_figure {
    enum compare_src src;
    enum compare_stat stat; /* histograms */
    double pct;             /* COMPARE_PCT: 0..100 */
    int kind;               /* COMPARE_ERRORS: 0..7, or -1 for all kinds */
    const char *name;       /* COMPARE_GROUP*, COMPARE_NAME*: the group's or request name's
                             * (in the JSON tree of BASE; looked up by name in each run) */
};

/* One second of a run (series.points), as figures; NAN where the second
 * has no data for it. lat: latency p50 p90 p99 p99.9 max mean, ns. */
struct compare_point {
    double rps, errors, kinds[COMPARE_KINDS], non2xx, lat[6];
};

/* A histogram of a result (a flow's, a name's) with its exact max and
 * mean (ns, NAN when the file has none). */
struct compare_dist {
    struct hist h;
    bool has;
    double exact_max, exact_mean;
};

/* A group of a flow, or a request name: its counts and its times. */
struct compare_named {
    const char *name; /* into the JSON tree */
    double count;     /* a group's runs; a name's requests completed */
    double failed;    /* of count (a group), or of started (a name) */
    double started;   /* a name's requests started; a group's count */
    struct compare_dist dist;
};

/* A result file read for comparison. Read-only to callers; filled by
 * compare_load. The strings point into the JSON tree it was read from
 * (valid while that tree is). NAN or NULL: absent from the file. */
struct compare_run {
    struct compare_dist dist[3]; /* latency, service, sendlag (ns; service, sendlag: -R) */
    double rps, started, failed, kinds[COMPARE_KINDS], responses, non2xx;
    struct compare_point *points; /* whole seconds only (owned) */
    size_t npoints;
    /* settings, for the warnings */
    const char *model, *scheme, *method, *url, *http2;
    double rate, connections, threads, duration, requests, iterations;
    const char *arrivals; /* options.arrivals: "poisson", "gamma:K"; NULL or "fixed": evenly spaced */
    double secs; /* the run's duration (seconds; NAN when absent) */
    /* A flow's (iterations not null): the iterations, checks and groups. */
    bool flow;
    double iter_rate, iter_started, iter_failed, checks_passed, checks_failed;
    struct compare_dist iteration;
    struct compare_named *groups, *names; /* owned arrays, in the file's order */
    size_t ngroups, nnames;
};

/* Reads root, a parsed result, into *r. Returns 0 (the caller then frees
 * *r with compare_free), or -1 with one line in err naming the field
 * ("latency.hdr: ...", "requests.started: missing (expected a number)");
 * *r then owns nothing. */
int compare_load(struct compare_run *r, const struct json *root, char *err, size_t errlen);

void compare_free(struct compare_run *r);

/* The group (a flow's) or the request name called name in r, or NULL. */
const struct compare_named *compare_group(const struct compare_run *r, const char *name);
const struct compare_named *compare_name(const struct compare_run *r, const char *name);

/* The histogram figure f reads in r (latency, service, send lag, a flow's
 * iterations, a group's or a name's), or NULL: not a histogram's figure,
 * or r has none. */
const struct compare_dist *compare_figure_dist(const struct compare_run *r, const struct compare_figure *f);

/* The figure's value in r (ns, 1/s or percent), or NAN when r has no data
 * for it (nothing completed, nothing started, no service histogram). */
double compare_value(const struct compare_run *r, const struct compare_figure *f);

/* The figure's kind (TIME, RATE, SHARE) and whether a lower value is better
 * (every figure but requests/s). */
enum compare_kind compare_figure_kind(const struct compare_figure *f);

/* The figure's per-second values in r into out (up to max), returning how
 * many there are: only for the figures the text table shows (other
 * percentiles have none). */
size_t compare_samples(const struct compare_run *r, const struct compare_figure *f, double *out, size_t max);

/* The noise rule (compare_noise.c, docs/usage.md#volley-compare): the
 * change between two runs that is within their noise, in the figure's
 * unit. */

/* A percentile's noise for base -> new: each run's distribution-free 95 %
 * interval for its percentile pct (the values at the ranks n q -+ 1.96
 * sqrt(n q (1 - q)) of its histogram of n values, q = pct / 100), the
 * sides that face the other run's value combined as sqrt(a^2 + b^2):
 * base's upper and new's lower margin when new is the larger. NAN when
 * either histogram is empty. */
double compare_pct_noise(const struct hist *hb, const struct hist *hn, double pct);

/* The other figures' noise, from each run's per-second samples (s, n
 * values) and its whole-run value v: a run's spread is the (sample)
 * standard deviation of its samples relative to their mean, times v; the
 * noise is twice the larger of the two runs' spreads. NAN (unknown) when
 * either run has fewer than 3 samples. */
double compare_noise(const double *sb, size_t nb, double vb, const double *sn, size_t nn, double vn);

/* The noise of figure f for b -> n: compare_pct_noise on the runs'
 * histograms for a percentile (latency, service or send lag), else
 * compare_noise on their per-second samples (compare_samples). */
double compare_figure_noise(const struct compare_run *b, const struct compare_run *n, const struct compare_figure *f);

enum compare_verdict { COMPARE_NODATA, COMPARE_SAME, COMPARE_BETTER, COMPARE_WORSE };

/* The verdict on base -> new for a figure of that kind: NODATA when either
 * is NAN; SAME when |new - base| is within noise (NAN: unknown, then only
 * the floor counts) or the floor, 1 % of base for times and rates (none
 * for shares); else BETTER or WORSE by the figure's direction. */
enum compare_verdict compare_judge(enum compare_kind kind, double base, double new_, double noise);

/* The band a verdict used, as the table prints it, into buf: "±45.7%" of
 * base (the floor's 1 % when larger), "±0.2pp" for shares, "unknown"
 * (noise NAN). Returns buf. */
char *compare_band_text(enum compare_kind kind, double base, double noise, char *buf, size_t len);

/* Limits: `FIGURE OP CHANGE` on the change from BASE to NEW, with the
 * run's words (docs/usage.md#volley-compare): under --threshold it must
 * hold, under --fail-if the comparison fails when it holds. */
enum compare_op { COMPARE_LT, COMPARE_LE, COMPARE_GT, COMPARE_GE };

struct compare_limit {
    char *expr; /* as written (owned) */
    enum threshold_word word;
    struct compare_figure fig;
    enum compare_op op;
    double value;  /* the change: percent (relative, or points for shares),
                    * or ns, or requests/s */
    bool relative; /* VALUE ended in % on a time or a rate */
    const char *unit; /* as written: "%", "ms", NULL */
};

/* Parses expr, given with word, into *l. Returns 0, or -1 with one line
 * in err: `--threshold "EXPR": WHAT IS WRONG` (the word's option) naming
 * the part; *l owns nothing. */
int compare_limit_parse(struct compare_limit *l, const char *expr, enum threshold_word word, char *err,
                        size_t errlen);

/* Whether l is a --fail-if bounding a time or a share (errors, non-2xx)
 * from above with < or <=, the form a must-hold limit takes; if so, one
 * line into buf (always terminated), as threshold_note's: `--fail-if 'p99
 * < +10%' fails the comparison when p99's change is under +10%; a limit
 * that must hold is --threshold`; else buf is "". */
bool compare_limit_note(const struct compare_limit *l, char *buf, size_t len);

void compare_limit_free(struct compare_limit *l);

/* Whether l fails for base -> new: a --threshold whose expression does
 * not hold, a --fail-if whose expression does. The change it judged (in
 * l's unit: percent, percentage points, ns or 1/s) in *change, NAN with no
 * data (a limit on a figure without data fails, under either word). A
 * relative change from a base of 0 is +inf (or 0 when new is 0 too). */
bool compare_limit_fails(const struct compare_limit *l, double base, double new_, double *change);

/* The figure's name as limits spell it ("p99", "service.p99.9",
 * "errors.timeout", "rps") into buf; with table true as the text table
 * prints it ("latency p99", "send lag p99", "requests/s"). Returns buf. */
char *compare_figure_name(const struct compare_figure *f, bool table, char *buf, size_t len);

/* "<", "<=", ">", ">=". */
const char *compare_op_name(enum compare_op op);

/* The comparison as the table shows it (compare_table.c), for the text
 * on stdout and the HTML page alike. */

#define COMPARE_SETTINGS 7 /* model, -c, -t, protocol, method, URL, length */

/* One setting of both runs, described as the warnings name it ("open
 * model at 1000/s", "-d 3s", "unknown"), control bytes escaped. */
struct compare_setting {
    const char *name; /* "connections (-c)", "model" */
    const char *what; /* as a warning names them: "connections (-c)", "models" */
    char base[300], new_[300];
    bool differ;
};

/* Fills out[0..COMPARE_SETTINGS) with the settings of b and n. */
void compare_settings(const struct compare_run *b, const struct compare_run *n, struct compare_setting *out);

/* Groups and request names the table compares (the first of BASE's that
 * NEW has too), and so its rows at most. */
#define COMPARE_MAX_NAMED 20
#define COMPARE_MAX_ROWS (40 + 10 + 8 * COMPARE_MAX_NAMED)

/* One figure of the table: each cell as the text table prints it. */
struct compare_row {
    struct compare_figure fig;
    enum compare_verdict verdict;
    char name[96];    /* "latency p99", "group \"checkout\" p99" (a name cut at 40 bytes) */
    char base[64];    /* "62.0us", "174777.3", "0.1%", "-" (no data) */
    char new_[64];
    char diff[48];    /* the absolute change: "+5.32ms", "-1358.3", "+0.2pp" */
    char rel[64];     /* relative to BASE, "+8576.6%"; "" for a share, no data or a BASE of 0 */
    char verdict_text[64]; /* "worse", "same (noise ±87.6%)", "better (noise unknown)", "no data" */
};

/* The table's rows, in its order (docs/usage.md#volley-compare: the rows
 * of figures neither run has are left out), into rows (up to max).
 * Returns their number. */
size_t compare_table(const struct compare_run *b, const struct compare_run *n, struct compare_row *rows, size_t max);

/* A limit judged on b -> n. */
struct compare_judged {
    bool fails;
    char change[48]; /* the change it judged: "+8576.6%", "+0pp", "+2.10ms", "no data" */
    enum compare_verdict verdict; /* the figure's, as the table judges it */
    /* Why the limit and the verdict disagree, or "": a limit that fails on
     * a change the verdict calls same or better ("verdict: same, within
     * the noise ±45.7%"), one that holds on a change it calls worse. */
    char note[128];
};

/* Judges ls[0..nl) into out[0..nl). Returns how many failed. */
size_t compare_judge_limits(const struct compare_limit *ls, size_t nl, const struct compare_run *b,
                            const struct compare_run *n, struct compare_judged *out);

#endif
