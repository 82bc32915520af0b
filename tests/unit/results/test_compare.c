/* Unit test for compare.c, compare_limit.c and the --html page: the
 * verdict's direction per kind of figure, the noise rule and its floor, the
 * limits' grammar (every error with its message), relative and absolute
 * limits, reading a hand-made result (figures, per-second samples, errors
 * naming fields), and a page of hostile results whose strings are all
 * escaped, both results embedded whole. */
#include "compare.h"
#include "html_compare.h"
#include "json_in.h"

#include "../check.h"
#include "hdr_codec.h"
#include "xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000.0

static void test_judge(void)
{
    /* times: lower is better; 1 % of base is the floor */
    CHECK_INT(compare_judge(COMPARE_TIME, 100, 120, 5), COMPARE_WORSE);
    CHECK_INT(compare_judge(COMPARE_TIME, 100, 80, 5), COMPARE_BETTER);
    CHECK_INT(compare_judge(COMPARE_TIME, 100, 104, 5), COMPARE_SAME);
    CHECK_INT(compare_judge(COMPARE_TIME, 100, 105, 5), COMPARE_SAME); /* the band's edge is in it */
    CHECK_INT(compare_judge(COMPARE_TIME, 100, 100.9, 0), COMPARE_SAME);
    CHECK_INT(compare_judge(COMPARE_TIME, 100, 101.5, 0), COMPARE_WORSE);
    CHECK_INT(compare_judge(COMPARE_TIME, 100, 101.5, NAN), COMPARE_WORSE);
    CHECK_INT(compare_judge(COMPARE_TIME, 100, 100.5, NAN), COMPARE_SAME);
    /* rates: higher is better */
    CHECK_INT(compare_judge(COMPARE_RATE, 1000, 900, 10), COMPARE_WORSE);
    CHECK_INT(compare_judge(COMPARE_RATE, 1000, 1100, 10), COMPARE_BETTER);
    CHECK_INT(compare_judge(COMPARE_RATE, 1000, 1009, 0), COMPARE_SAME);
    /* shares: lower is better, no floor */
    CHECK_INT(compare_judge(COMPARE_SHARE, 0, 0.001, 0), COMPARE_WORSE);
    CHECK_INT(compare_judge(COMPARE_SHARE, 0, 0, 0), COMPARE_SAME);
    CHECK_INT(compare_judge(COMPARE_SHARE, 1, 0.5, 0.2), COMPARE_BETTER);
    CHECK_INT(compare_judge(COMPARE_SHARE, 1, 1.1, 0.2), COMPARE_SAME);
    /* no data */
    CHECK_INT(compare_judge(COMPARE_TIME, NAN, 1, 0), COMPARE_NODATA);
    CHECK_INT(compare_judge(COMPARE_RATE, 1, NAN, 0), COMPARE_NODATA);
}

static void test_noise(void)
{
    double a[] = {90, 100, 110}, flat[] = {100, 100, 100}, zeros[] = {0, 0, 0, 0};
    /* fewer than 3 samples in either run: unknown */
    CHECK(isnan(compare_noise(a, 2, 100, a, 3, 100)));
    CHECK(isnan(compare_noise(a, 3, 100, a, 1, 100)));
    CHECK(isnan(compare_noise(a, 3, NAN, a, 3, 100)));
    /* sd 10 around a mean of 100: spread 10 % of the figure; twice the larger */
    CHECK(fabs(compare_noise(a, 3, 100, flat, 3, 100) - 20) < 1e-9);
    CHECK(fabs(compare_noise(flat, 3, 100, a, 3, 100) - 20) < 1e-9);
    /* applied to the run's own figure (a p99 whose per-second mean differs) */
    CHECK(fabs(compare_noise(a, 3, 200, flat, 3, 100) - 40) < 1e-9);
    CHECK(compare_noise(flat, 3, 100, flat, 3, 100) == 0);
    /* all-zero samples have no spread */
    CHECK(compare_noise(zeros, 4, 0, zeros, 4, 0) == 0);
    CHECK(compare_noise(zeros, 4, 0, a, 3, 1) > 0);
}

/* Parses expr and checks the figure's limit name, value and unit. */
static void limit_ok(const char *expr, const char *name, double value, bool relative, int line)
{
    struct compare_limit l;
    char err[512] = "", buf[64];
    check_ctx("compare_limit_parse(\"%s\"), line %d", expr, line);
    if (!CHECK_INT(compare_limit_parse(&l, expr, THRESHOLD_FAIL_IF, err, sizeof err), 0)) {
        fprintf(stderr, "    error: %s\n", err);
        return;
    }
    CHECK_STR(compare_figure_name(&l.fig, false, buf, sizeof buf), name);
    CHECK(fabs(l.value - value) < 1e-6 * fmax(1, fabs(value)));
    CHECK_INT(l.relative, relative);
    CHECK_STR(l.expr, expr);
    compare_limit_free(&l);
    check_ctx(NULL);
}

static void limit_bad(const char *expr, const char *msg, int line)
{
    struct compare_limit l;
    char err[512] = "";
    check_ctx("compare_limit_parse(\"%s\"), line %d", expr, line);
    CHECK_INT(compare_limit_parse(&l, expr, THRESHOLD_FAIL_IF, err, sizeof err), -1);
    CHECK_STR(err, msg);
    CHECK(l.expr == NULL);
    check_ctx(NULL);
}

static void test_parse(void)
{
    limit_ok("p99 > +10%", "p99", 10, true, __LINE__);
    limit_ok("p99>+10%", "p99", 10, true, __LINE__);
    limit_ok("latency.p99.9 >= +2.5ms", "p99.9", 2.5 * MS, false, __LINE__);
    limit_ok("mean > +250us", "mean", 250e3, false, __LINE__);
    limit_ok("max > +1s", "max", 1e9, false, __LINE__);
    limit_ok("p95 > +1m", "p95", 60e9, false, __LINE__);
    limit_ok("rps < -5%", "rps", -5, true, __LINE__);
    limit_ok("rps <= -500", "rps", -500, false, __LINE__);
    limit_ok("errors > +0.1%", "errors", 0.1, false, __LINE__); /* percentage points */
    limit_ok("errors.timeout > +1%", "errors.timeout", 1, false, __LINE__);
    limit_ok("non2xx > +0%", "non2xx", 0, false, __LINE__);
    limit_ok("service.p99 > +10%", "service.p99", 10, true, __LINE__);
    limit_ok("sendlag.max > +1ms", "sendlag.max", MS, false, __LINE__);

    limit_bad("p99 > 10%", "--fail-if \"p99 > 10%\": 10%: a change needs its sign (+10% or -10%, +2ms)", __LINE__);
    limit_bad("p100x > +1%",
              "--fail-if \"p100x > +1%\": unknown figure \"p100x\" (rps, p50, p99, p99.9, max, mean, errors, "
              "errors.KIND, non2xx, service.p99, sendlag.p99, ...)",
              __LINE__);
    limit_bad("p101 > +1%",
              "--fail-if \"p101 > +1%\": unknown figure \"p101\" (rps, p50, p99, p99.9, max, mean, errors, "
              "errors.KIND, non2xx, service.p99, sendlag.p99, ...)",
              __LINE__);
    limit_bad("errors.nope > +1%",
              "--fail-if \"errors.nope > +1%\": unknown figure \"errors.nope\" (rps, p50, p99, p99.9, max, mean, "
              "errors, errors.KIND, non2xx, service.p99, sendlag.p99, ...)",
              __LINE__);
    limit_bad("> +1%", "--fail-if \"> +1%\": expected a figure (p99, rps, errors, ...) at \"> +1%\"", __LINE__);
    limit_bad("p99 == +1%", "--fail-if \"p99 == +1%\": unknown operator \"==\" (a change takes <, <=, > or >=)",
              __LINE__);
    limit_bad("p99", "--fail-if \"p99\": expected an operator (<, <=, >, >=) after the figure, found \"\"", __LINE__);
    limit_bad("p99 >", "--fail-if \"p99 >\": expected a change after the operator (+10%, -5%, +2ms)", __LINE__);
    limit_bad("p99 > +5",
              "--fail-if \"p99 > +5\": +5: a time's change takes % (relative) or a time unit (ns, us, ms, s, m)",
              __LINE__);
    limit_bad("p99 > +1e3ms", "--fail-if \"p99 > +1e3ms\": +1e3ms: a time's change takes % (relative) or a time "
                              "unit (ns, us, ms, s, m)",
              __LINE__);
    limit_bad("p99 > +.ms", "--fail-if \"p99 > +.ms\": +.ms: not a number (digits, one '.', no exponent)", __LINE__);
    limit_bad("rps < -5ms",
              "--fail-if \"rps < -5ms\": -5ms: rps's change is a plain number (requests/s) or % (relative)", __LINE__);
    limit_bad("errors > +1",
              "--fail-if \"errors > +1\": +1: a share's change is in percentage points, written with % (+0.1%)",
              __LINE__);
    limit_bad("p99 > +1% abort", "--fail-if \"p99 > +1% abort\": unexpected \"abort\" after the change", __LINE__);
}

static bool fails_as(const char *expr, enum threshold_word word, double base, double new_, double *change)
{
    struct compare_limit l;
    char err[256];
    if (!CHECK_INT(compare_limit_parse(&l, expr, word, err, sizeof err), 0))
        return false;
    bool f = compare_limit_fails(&l, base, new_, change);
    compare_limit_free(&l);
    return f;
}

static bool fails(const char *expr, double base, double new_, double *change)
{
    return fails_as(expr, THRESHOLD_FAIL_IF, base, new_, change);
}

/* The words: --fail-if fails when its expression holds, --threshold when
 * it does not; both fail without data. The case: p99 from 4.60ms
 * to 142.87ms. */
static void test_words(void)
{
    double c;
    CHECK(fails_as("p99 > +10%", THRESHOLD_FAIL_IF, 4.60 * MS, 142.87 * MS, &c));
    CHECK(fails_as("p99 < +10%", THRESHOLD_MUST_HOLD, 4.60 * MS, 142.87 * MS, &c));
    CHECK(!fails_as("p99 < +10%", THRESHOLD_FAIL_IF, 4.60 * MS, 142.87 * MS, &c)); /* it says: fail if under */
    CHECK(!fails_as("p99 > +10%", THRESHOLD_MUST_HOLD, 4.60 * MS, 142.87 * MS, &c));
    CHECK(!fails_as("p99 < +10%", THRESHOLD_MUST_HOLD, 4.60 * MS, 4.7 * MS, &c));
    CHECK(fails_as("rps > -5%", THRESHOLD_MUST_HOLD, 1000, 900, &c));
    CHECK(!fails_as("rps > -5%", THRESHOLD_MUST_HOLD, 1000, 990, &c));
    CHECK(fails_as("service.p99 < +10%", THRESHOLD_MUST_HOLD, NAN, 5, &c));
    CHECK(fails_as("service.p99 > +10%", THRESHOLD_FAIL_IF, NAN, 5, &c));

    struct compare_limit l;
    char err[256], note[400];
    CHECK_INT(compare_limit_parse(&l, "p99 < +1ms", THRESHOLD_MUST_HOLD, err, sizeof err), 0);
    CHECK(!compare_limit_note(&l, note, sizeof note) && !*note);
    compare_limit_free(&l);
    CHECK_INT(compare_limit_parse(&l, "p99 < +10%", THRESHOLD_FAIL_IF, err, sizeof err), 0);
    CHECK(compare_limit_note(&l, note, sizeof note));
    CHECK_STR(note, "--fail-if 'p99 < +10%' fails the comparison when p99's change is under +10%; a limit that "
                    "must hold is --threshold");
    compare_limit_free(&l);
    CHECK_INT(compare_limit_parse(&l, "rps < -5%", THRESHOLD_FAIL_IF, err, sizeof err), 0);
    CHECK(!compare_limit_note(&l, note, sizeof note)); /* a fall in rps: meant */
    compare_limit_free(&l);
    CHECK_INT(compare_limit_parse(&l, "p99 >", THRESHOLD_MUST_HOLD, err, sizeof err), -1);
    CHECK_STR(err, "--threshold \"p99 >\": expected a change after the operator (+10%, -5%, +2ms)");
}

static void test_limits(void)
{
    double c;
    CHECK(fails("p99 > +10%", 4.8 * MS, 6.12 * MS, &c));
    CHECK(fabs(c - 27.5) < 1e-9);
    CHECK(!fails("p99 > +10%", 100, 109, &c));
    CHECK(!fails("p99 > +10%", 100, 110, &c)); /* > is strict */
    CHECK(fails("p99 >= +10%", 100, 110, &c));
    CHECK(!fails("p99 > +10%", 100, 50, &c));
    CHECK(fails("rps < -5%", 1000, 940, &c));
    CHECK(fabs(c + 6) < 1e-9);
    CHECK(!fails("rps < -5%", 1000, 960, &c));
    CHECK(fails("rps < -50", 1000, 940, &c));
    CHECK(fabs(c + 60) < 1e-9);
    CHECK(fails("p99 > +5ms", 1 * MS, 6.5 * MS, &c));
    CHECK(fabs(c - 5.5 * MS) < 1e-3);
    CHECK(!fails("p99 > +5ms", 1 * MS, 5.5 * MS, &c));
    /* shares change in percentage points */
    CHECK(fails("errors > +0.1%", 0, 0.2, &c));
    CHECK(fabs(c - 0.2) < 1e-12);
    CHECK(!fails("errors > +0.1%", 5, 5.05, &c));
    /* a relative change from 0 */
    CHECK(fails("p99 > +10%", 0, 1, &c));
    CHECK(isinf(c) && c > 0);
    CHECK(!fails("p99 > +10%", 0, 0, &c));
    CHECK(c == 0);
    /* no data fails */
    CHECK(fails("service.p99 > +10%", NAN, 5, &c));
    CHECK(isnan(c));
}

/* A result whose latency histogram holds us[0..n) (µs), its "count" written
 * as latency_count, and npts points of 300 + 10 t requests each: with split
 * false every one with the run's histogram, with split true point t with
 * the t-th of npts equal chunks of us. Returns malloc'd text. */
static char *result_text_of(const double *us, size_t n, size_t npts, const char *latency_count, bool split)
{
    struct hist h;
    hist_init_default(&h);
    for (size_t i = 0; i < n; i++)
        hist_record(&h, (int64_t)(us[i] * 1e3));
    char *b64 = hdr_encode(&h, NULL);
    size_t cap = 4096 + npts * (strlen(b64) + 400);
    char *t = xmalloc(cap);
    size_t at = (size_t)snprintf(t, cap,
                                 "{\"target\": {\"url\": \"http://127.0.0.1:1/\", \"scheme\": \"http\"},"
                                 "\"options\": {\"connections\": 10, \"threads\": 2, \"duration\": 3, \"method\": \"GET\"},"
                                 "\"model\": \"closed\", \"duration\": %zu.0, \"requests_per_sec\": 1000,"
                                 "\"requests\": {\"started\": 1000, \"completed\": 990, \"failed\": 10, \"cut_off\": 0},"
                                 "\"status\": {\"200\": 980, \"503\": 10},"
                                 "\"errors\": {\"connect\": 0, \"timeout\": 10},"
                                 "\"latency\": {\"count\": %s, \"max\": null, \"mean\": null, \"hdr\": \"%s\"},"
                                 "\"series\": {\"interval\": 1, \"points\": [",
                                 npts, latency_count, b64);
    for (size_t i = 0; i < npts; i++) {
        struct hist c;
        hist_init_default(&c);
        for (size_t k = i * n / npts; split && k < (i + 1) * n / npts; k++)
            hist_record(&c, (int64_t)(us[k] * 1e3));
        char *own = split ? hdr_encode(&c, NULL) : NULL;
        at += (size_t)snprintf(t + at, cap - at,
                               "%s{\"t\": %zu, \"requests\": %zu, \"status\": {\"2xx\": %zu, \"5xx\": 1},"
                               "\"errors\": {\"timeout\": %d}, \"latency\": {\"count\": %lld, \"hdr\": \"%s\"}}",
                               i ? "," : "", i, 300 + 10 * i, 300 + 10 * i, (int)(i % 2),
                               (long long)(split ? c.count : h.count), split ? own : b64);
        free(own);
        hist_free(&c);
    }
    snprintf(t + at, cap - at, "]}}");
    free(b64);
    hist_free(&h);
    return t;
}

static char *result_text(const double *us, size_t n, size_t npts, const char *latency_count)
{
    return result_text_of(us, n, npts, latency_count, false);
}

static int load_text(const char *text, struct compare_run *r, char *err, size_t errlen, struct json *root)
{
    if (json_in_parse(text, strlen(text), root, err, errlen) < 0)
        return -2;
    return compare_load(r, root, err, errlen);
}

static void test_load(void)
{
    double us[100];
    for (int i = 0; i < 100; i++)
        us[i] = 100 + i; /* 100..199 us */
    char err[512] = "", *t = result_text(us, 100, 4, "100");
    struct json root;
    struct compare_run r;
    if (CHECK_INT(load_text(t, &r, err, sizeof err, &root), 0)) {
        struct compare_figure p50 = {.src = COMPARE_LATENCY, .stat = COMPARE_PCT, .pct = 50, .kind = -1};
        CHECK(fabs(compare_value(&r, &p50) - 149.0e3) < 200);
        struct compare_figure mx = {.src = COMPARE_LATENCY, .stat = COMPARE_MAX, .kind = -1};
        CHECK(fabs(compare_value(&r, &mx) - 199e3) < 200); /* max null: the histogram's */
        struct compare_figure er = {.src = COMPARE_ERRORS, .kind = -1};
        CHECK(fabs(compare_value(&r, &er) - 1.0) < 1e-12); /* 10 of 1000 started */
        er.kind = 3;
        CHECK(fabs(compare_value(&r, &er) - 1.0) < 1e-12);
        struct compare_figure nx = {.src = COMPARE_NON2XX, .kind = -1};
        CHECK(fabs(compare_value(&r, &nx) - 100.0 * 10 / 990) < 1e-12);
        struct compare_figure svc = {.src = COMPARE_SERVICE, .stat = COMPARE_PCT, .pct = 99, .kind = -1};
        CHECK(isnan(compare_value(&r, &svc)));
        struct compare_figure rps = {.src = COMPARE_RPS, .kind = -1};
        CHECK(compare_value(&r, &rps) == 1000);
        double s[8];
        CHECK_INT(compare_samples(&r, &rps, s, 8), 4);
        CHECK(s[0] == 300 && s[3] == 330);
        CHECK_INT(compare_samples(&r, &p50, s, 8), 4);
        CHECK_INT(compare_samples(&r, &svc, s, 8), 0);
        struct compare_figure p95 = {.src = COMPARE_LATENCY, .stat = COMPARE_PCT, .pct = 95, .kind = -1};
        CHECK_INT(compare_samples(&r, &p95, s, 8), 0);
        CHECK_STR(r.method, "GET");
        CHECK(r.connections == 10);
        compare_free(&r);
    } else {
        fprintf(stderr, "    error: %s\n", err);
    }
    json_in_free(&root);
    free(t);

    /* the count must be what the histogram holds */
    t = result_text(us, 100, 0, "7");
    CHECK_INT(load_text(t, &r, err, sizeof err, &root), -1);
    CHECK_STR(err, "latency.count: 7, but its hdr histogram holds 100 values");
    json_in_free(&root);
    free(t);

    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"[1]", "expected a result object, found an array"},
        {"{}", "requests_per_sec: missing (expected a number)"},
        {"{\"requests_per_sec\": 1, \"duration\": 1, \"requests\": {}}", "requests.started: missing (expected a number)"},
        {"{\"requests_per_sec\": 1, \"duration\": 1, \"requests\": {\"started\": -1}}",
         "requests.started: expected a count (a whole number from 0), found -1"},
        {"{\"requests_per_sec\": 1, \"duration\": 1, \"requests\": {\"started\": 1}, \"errors\": {}, \"status\": {},"
         " \"latency\": {\"count\": 0, \"hdr\": \"HISTFAAAAzz\"}}",
         NULL},
        {"{\"requests_per_sec\": \"x\"}", "requests_per_sec: expected a number, found a string"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        check_ctx("bad result %zu", i);
        err[0] = '\0';
        CHECK_INT(load_text(bad[i].text, &r, err, sizeof err, &root), -1);
        if (bad[i].msg)
            CHECK_STR(err, bad[i].msg);
        else
            CHECK_CONTAINS(err, "latency.hdr: ");
        json_in_free(&root);
    }
    check_ctx(NULL);
}

/* n latencies (µs) of 8 ms plus an exponential tail of mean 0.65 ms
 * (p99 about 11 ms), plus shift_us each: a fixed seed, the same draws. */
static double *draws(size_t n, uint64_t seed, double shift_us)
{
    double *us = xmalloc(n * sizeof *us);
    uint64_t x = seed;
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        double u = (double)(x >> 11) * 0x1p-53;
        us[i] = 8000 - 650 * log(1 - u) + shift_us;
    }
    return us;
}

static void hist_of(struct hist *h, const double *us, size_t n)
{
    hist_init_default(h);
    for (size_t i = 0; i < n; i++)
        hist_record(h, (int64_t)(us[i] * 1e3));
}

/* The percentile rule on histograms alone: a 3 ms shift on every request
 * is worse at every percentile, two samples of one distribution the same,
 * and the noise shrinks as the samples grow. */
static void test_pct_noise(void)
{
    static const double pcts[] = {50, 90, 99, 99.9};
    double *a = draws(20000, 1, 0), *b = draws(20000, 2, 0), *slow = draws(20000, 1, 3000);
    struct hist ha, hb, hs, small_a, small_b;
    hist_of(&ha, a, 20000);
    hist_of(&hb, b, 20000);
    hist_of(&hs, slow, 20000);
    hist_of(&small_a, a, 200);
    hist_of(&small_b, b, 200);
    for (size_t i = 0; i < sizeof pcts / sizeof pcts[0]; i++) {
        check_ctx("p%g", pcts[i]);
        double va = (double)hist_percentile(&ha, pcts[i]), vs = (double)hist_percentile(&hs, pcts[i]);
        double vb = (double)hist_percentile(&hb, pcts[i]);
        double shift = compare_pct_noise(&ha, &hs, pcts[i]), same = compare_pct_noise(&ha, &hb, pcts[i]);
        CHECK(shift > 0 && shift < 0.25 * (vs - va));
        CHECK_INT(compare_judge(COMPARE_TIME, va, vs, shift), COMPARE_WORSE);
        CHECK_INT(compare_judge(COMPARE_TIME, vs, va, compare_pct_noise(&hs, &ha, pcts[i])), COMPARE_BETTER);
        CHECK_INT(compare_judge(COMPARE_TIME, va, vb, same), COMPARE_SAME);
        CHECK(compare_pct_noise(&small_a, &small_b, pcts[i]) > same);
        CHECK(compare_pct_noise(&ha, &ha, pcts[i]) >= 0);
    }
    check_ctx(NULL);
    /* p99 here: about +27 %, the figure, and the noise a few % */
    double p99a = (double)hist_percentile(&ha, 99), p99s = (double)hist_percentile(&hs, 99);
    CHECK(p99s / p99a > 1.2 && p99s / p99a < 1.35);
    CHECK(compare_pct_noise(&ha, &hs, 99) < 0.05 * p99a);
    struct hist empty;
    hist_init_default(&empty);
    CHECK(isnan(compare_pct_noise(&ha, &empty, 99)));
    hist_free(&empty);
    hist_free(&ha);
    hist_free(&hb);
    hist_free(&hs);
    hist_free(&small_a);
    hist_free(&small_b);
    free(a);
    free(b);
    free(slow);
}

static int ascending(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The row whose name is name in rows[0..n), or NULL. */
static const struct compare_row *row(const struct compare_row *rows, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}

/* Whole results: seconds that disagree (each holds a sorted quarter of
 * the run, so its p99 is far from the next one's) do not hide a 3 ms
 * shift, and a limit that disagrees with the verdict says why. */
static void test_verdicts(void)
{
    double *a = draws(20000, 1, 0), *b = draws(20000, 2, 0), *slow = draws(20000, 1, 3000);
    qsort(a, 20000, sizeof *a, ascending);
    qsort(slow, 20000, sizeof *slow, ascending);
    char *ta = result_text_of(a, 20000, 4, "20000", true), *tb = result_text_of(b, 20000, 4, "20000", true);
    char *ts = result_text_of(slow, 20000, 4, "20000", true);
    const char *texts[3] = {ta, tb, ts};
    struct json root[3];
    struct compare_run r[3];
    char err[512];
    for (int i = 0; i < 3; i++)
        if (!CHECK_INT(load_text(texts[i], &r[i], err, sizeof err, &root[i]), 0)) {
            fprintf(stderr, "    error: %s\n", err);
            return;
        }
    struct compare_row rows[COMPARE_MAX_ROWS];
    size_t n = compare_table(&r[0], &r[2], rows, COMPARE_MAX_ROWS);
    static const char *const worse[] = {"latency p50", "latency p90", "latency p99", "latency p99.9"};
    for (size_t i = 0; i < 4; i++) {
        const struct compare_row *w = row(rows, n, worse[i]);
        check_ctx("%s", worse[i]);
        if (CHECK(w != NULL)) {
            CHECK_INT(w->verdict, COMPARE_WORSE);
            CHECK_STR(w->verdict_text, "worse");
        }
    }
    check_ctx(NULL);
    n = compare_table(&r[0], &r[1], rows, COMPARE_MAX_ROWS);
    const struct compare_row *p99 = row(rows, n, "latency p99");
    if (CHECK(p99 != NULL))
        CHECK_CONTAINS(p99->verdict_text, "same (noise \u00b1");

    static const char *const exprs[] = {"p99 > +10%", "p99 > +50%", "p95 > +10%", "p99 >= -50%"};
    struct compare_limit l[4];
    struct compare_judged j[4];
    for (int i = 0; i < 4; i++)
        CHECK_INT(compare_limit_parse(&l[i], exprs[i], THRESHOLD_FAIL_IF, err, sizeof err), 0);
    /* +27 %: fails, worse: they agree, no note */
    CHECK_INT(compare_judge_limits(l, 3, &r[0], &r[2], j), 2);
    CHECK(j[0].fails && j[0].verdict == COMPARE_WORSE);
    CHECK_STR(j[0].note, "");
    /* holds, but worse beyond the noise: said */
    CHECK(!j[1].fails && j[1].verdict == COMPARE_WORSE);
    CHECK_CONTAINS(j[1].note, "verdict: worse, beyond the noise \u00b1");
    CHECK_CONTAINS(j[1].note, "% but within this threshold");
    /* a percentile the table has no row for is judged all the same */
    CHECK(j[2].fails && j[2].verdict == COMPARE_WORSE);
    /* fails on a change within the noise: said */
    CHECK_INT(compare_judge_limits(l + 3, 1, &r[0], &r[1], j), 1);
    CHECK_INT(j[0].verdict, COMPARE_SAME);
    CHECK_CONTAINS(j[0].note, "verdict: same, within the noise \u00b1");
    for (int i = 0; i < 4; i++)
        compare_limit_free(&l[i]);
    for (int i = 0; i < 3; i++) {
        compare_free(&r[i]);
        json_in_free(&root[i]);
    }
    free(ta);
    free(tb);
    free(ts);
    free(a);
    free(b);
    free(slow);
}

/* text with every "from" replaced by "to" (malloc'd). */
static char *replace(const char *text, const char *from, const char *to)
{
    size_t n = 0, fl = strlen(from), tl = strlen(to);
    for (const char *p = strstr(text, from); p; p = strstr(p + fl, from))
        n++;
    char *out = xmalloc(strlen(text) + n * tl + 1), *o = out;
    for (const char *p = text, *q; *p; p = q + fl) {
        q = strstr(p, from);
        if (!q) {
            strcpy(o, p);
            return out;
        }
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, tl);
        o += tl;
    }
    *o = '\0';
    return out;
}

/* The text of the <script type="application/json" id="ID"> element of page
 * (malloc'd), or NULL; its element is blanked out of page. */
static char *embedded(char *page, const char *id)
{
    char tag[96];
    snprintf(tag, sizeof tag, "<script type=\"application/json\" id=\"%s\">", id);
    char *at = strstr(page, tag), *end = at ? strstr(at, "</script>") : NULL;
    if (!end)
        return NULL;
    char *body = strndup(at + strlen(tag), (size_t)(end - at - strlen(tag)));
    memset(at, ' ', (size_t)(end + strlen("</script>") - at));
    return body;
}

/* Both results' JSON as the same value: equal texts once \u003c is '<'. */
static bool same_json(const char *embedded_text, const char *file_text)
{
    char *back = replace(embedded_text, "\\u003c", "<");
    bool same = strcmp(back, file_text) == 0 && strchr(embedded_text, '<') == NULL;
    free(back);
    return same;
}

static void test_page(void)
{
    double us[100];
    for (int i = 0; i < 100; i++)
        us[i] = 100 + 3 * i;
    char *plain = result_text(us, 100, 4, "100");
    char *t1 = replace(plain, "http://127.0.0.1:1/", "http://127.0.0.1:1/</script><script>alert(1)</script><!--");
    char *t2 = replace(plain, "\"GET\"", "\"<b>POST\\u0007</b>\"");
    const char *texts[2] = {t1, t2}, *paths[2] = {"<i>base</i>.json", "new'\".json"};
    struct json root[2];
    struct compare_run r[2];
    char err[512];
    for (int i = 0; i < 2; i++) {
        if (!CHECK_INT(load_text(texts[i], &r[i], err, sizeof err, &root[i]), 0)) {
            fprintf(stderr, "    error: %s\n", err);
            return;
        }
    }
    struct compare_setting set[COMPARE_SETTINGS];
    struct compare_row rows[COMPARE_MAX_ROWS];
    struct compare_limit l[2];
    struct compare_judged j[2];
    compare_settings(&r[0], &r[1], set);
    size_t nrows = compare_table(&r[0], &r[1], rows, COMPARE_MAX_ROWS);
    CHECK(compare_limit_parse(&l[0], "p99 < +10%", THRESHOLD_MUST_HOLD, err, sizeof err) == 0);
    CHECK(compare_limit_parse(&l[1], "errors >= +0%", THRESHOLD_FAIL_IF, err, sizeof err) == 0);
    CHECK_INT(compare_judge_limits(l, 2, &r[0], &r[1], j), 1);
    struct html_compare c = {.settings = set, .rows = rows, .nrows = nrows, .limits = l, .judged = j, .nlimits = 2};
    for (int i = 0; i < 2; i++)
        c.run[i] = (struct html_compare_run){paths[i], &root[i], texts[i], strlen(texts[i]), &r[i]};
    char *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    CHECK_INT(html_compare(f, &c, err, sizeof err), 0);
    fclose(f);

    char *base = embedded(page, "volley-base"), *new_ = embedded(page, "volley-new");
    CHECK(base && same_json(base, t1));
    CHECK(new_ && same_json(new_, t2));
    /* outside the two results nothing of the strings is markup */
    CHECK(strstr(page, "<script") == NULL);
    CHECK(strstr(page, "<!--") == NULL && strstr(page, "<b>") == NULL && strstr(page, "<i>base") == NULL);
    CHECK_CONTAINS(page, "&lt;i&gt;base&lt;/i&gt;.json");
    CHECK_CONTAINS(page, "new&#39;&quot;.json");
    CHECK_CONTAINS(page, "http://127.0.0.1:1/&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;!--");
    /* the method as the warning describes it: control bytes as \x07 */
    CHECK_CONTAINS(page, "<p class=\"warn\">Warning: methods differ: GET in BASE, &lt;b&gt;POST\\x07&lt;/b&gt; in NEW</p>");
    CHECK_CONTAINS(page, "<tr class=\"differ\"><th>method</th>");
    CHECK_CONTAINS(page, "<tr><td>--threshold</td><td><code>p99 &lt; +10%</code></td><td class=\"n\">+0.0%</td>"
                         "<td><span class=\"pass\">pass</span></td></tr>");
    /* it fails on a change the verdict calls the same: said */
    CHECK_CONTAINS(page, "<tr><td>--fail-if</td><td><code>errors &gt;= +0%</code></td><td class=\"n\">+0pp</td>"
                         "<td><span class=\"fail\">FAIL</span> <span class=\"note\">(verdict: same, within the "
                         "noise \u00b1");
    /* a row per figure, the same results: every verdict the same */
    size_t trs = 0;
    for (const char *p = strstr(page, "<tr><td>"); p; p = strstr(p + 1, "<tr><td>"))
        trs++;
    CHECK_INT(trs, nrows + 2); /* and the two limits */
    CHECK_CONTAINS(page, "<tr><td>latency p99</td><td class=\"n\">");
    CHECK(strstr(page, "class=\"worse\"") == NULL && strstr(page, "class=\"better\"") == NULL);
    CHECK_CONTAINS(page, "id=\"cmp-percentiles\"");
    CHECK_CONTAINS(page, "id=\"cmp-rps\"");
    CHECK_CONTAINS(page, "id=\"cmp-p99\"");

    free(base);
    free(new_);
    free(page);
    for (int i = 0; i < 2; i++) {
        compare_limit_free(&l[i]);
        compare_free(&r[i]);
        json_in_free(&root[i]);
    }
    free(t1);
    free(t2);
    free(plain);
}

int main(void)
{
    test_judge();
    test_noise();
    test_pct_noise();
    test_verdicts();
    test_parse();
    test_limits();
    test_words();
    test_load();
    test_page();
    return check_exit("test_compare");
}
