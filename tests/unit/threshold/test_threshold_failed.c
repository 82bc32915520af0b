/* Unit test for the threshold figure `failed` (k6's http_req_failed): the
 * share of the requests that ended (completed or failed) that failed,
 * every kind together, for the run and for one request name. Its parse
 * (a share: 0..1 plain, 0..100 with %, never a time), its canonical name,
 * its evaluation on hand-built struct stats (cut off requests are in
 * neither part; nothing ended: no data), --fail-if's note and abort. */
#include "threshold.h"

#include "../check.h"

#include <math.h>
#include <string.h>

#define SEC 1000000000.0

static bool parse(struct threshold *th, const char *expr, enum threshold_word word, const char *figure)
{
    char err[512] = "", fig[256];
    check_ctx("parse \"%s\"", expr);
    if (!CHECK_INT(threshold_parse(th, expr, word, false, err, sizeof err), 0)) {
        fprintf(stderr, "    error: %s\n", err);
        return false;
    }
    CHECK_INT(th->source, THRESHOLD_FAILED_SHARE);
    CHECK_INT(th->kind, THRESHOLD_SHARE);
    CHECK_STR(threshold_figure(th, fig, sizeof fig), figure);
    return true;
}

static void parse_bad(const char *expr, const char *message)
{
    struct threshold th;
    char err[512] = "", want[700];
    check_ctx("parse \"%s\" must fail", expr);
    CHECK_INT(threshold_parse(&th, expr, THRESHOLD_MUST_HOLD, false, err, sizeof err), -1);
    snprintf(want, sizeof want, "--threshold \"%s\": %s", expr, message);
    CHECK_STR(err, want);
}

static void test_parse(void)
{
    struct threshold th;
    if (parse(&th, "failed < 1%", THRESHOLD_MUST_HOLD, "failed")) {
        CHECK(th.percent && th.limit == 1 && th.op == THRESHOLD_LT);
        CHECK(th.request_name == NULL);
        threshold_free(&th);
    }
    if (parse(&th, "failed <= 0.5%", THRESHOLD_MUST_HOLD, "failed")) {
        CHECK(th.percent && th.limit == 0.5 && th.op == THRESHOLD_LE);
        threshold_free(&th);
    }
    if (parse(&th, "failed < 0.01", THRESHOLD_MUST_HOLD, "failed")) { /* a plain number is a fraction, as checks' */
        CHECK(!th.percent && th.limit == 0.01);
        threshold_free(&th);
    }
    if (parse(&th, "failed==0", THRESHOLD_MUST_HOLD, "failed")) {
        CHECK(!th.percent && th.limit == 0 && th.op == THRESHOLD_EQ);
        threshold_free(&th);
    }
    if (parse(&th, "failed{name=\"login\"} < 1 %", THRESHOLD_MUST_HOLD, "failed{name=\"login\"}")) {
        CHECK_STR(th.request_name, "login");
        CHECK(th.name == NULL && th.percent);
        threshold_free(&th);
    }
    if (parse(&th, "failed >= 5% abort after 2s", THRESHOLD_FAIL_IF, "failed")) {
        CHECK(th.abort && th.abort_after_ns == (int64_t)(2 * SEC));
        threshold_free(&th);
    }
    parse_bad("failed < 1ms", "1ms: failed is a share (0..1, or a percentage with %: 0.99 or 99%)");
    parse_bad("failed < 2", "2: failed is a share (0..1, or a percentage with %: 0.99 or 99%)");
    parse_bad("failed < 101%", "101%: failed is a share (0..1, or a percentage with %: 0.99 or 99%)");
    parse_bad("failed < -1%", "-1%: failed cannot be negative");
    parse_bad("failed < 1req", "unknown unit \"req\" in 1req: failed is a share (0..1, or a percentage with %: 0.99 "
                               "or 99%)");
    parse_bad("failed.timeout < 1%", "unknown figure \"failed.timeout\" (failed is the share of ended requests that "
                                     "failed, every kind together; one kind's is errors.KIND with %)");
    parse_bad("faild < 1%", "unknown figure \"faild\" (did you mean failed?)");
    parse_bad("faild{name=\"x\"} < 1%", "unknown figure \"faild{name=\"x\"}\" (did you mean failed{name=\"x\"}?)");
    parse_bad("failed{nom=\"x\"} < 1%", "\"failed{nom=\"x\"}\": unknown label \"nom\" (expected name=\"NAME\" or scenario=\"NAME\")");
    parse_bad("failed{name=\"\"} < 1%", "\"failed{name=\"\"}\": the request name is empty");
}

/* expr on s: pass, nodata, observed (in the expression's unit). */
static void eval(const struct stats *s, const char *expr, bool pass, bool nodata, double observed, int line)
{
    struct threshold th;
    char err[256];
    check_ctx("eval \"%s\", line %d", expr, line);
    if (!CHECK_INT(threshold_parse(&th, expr, THRESHOLD_MUST_HOLD, false, err, sizeof err), 0)) {
        fprintf(stderr, "    error: %s\n", err);
        return;
    }
    struct threshold_result r;
    threshold_eval(&th, s, (int64_t)(2 * SEC), &r);
    CHECK_INT(r.pass, pass);
    CHECK_INT(r.nodata, nodata);
    CHECK(!r.note);
    double got = threshold_in_unit(&th, r.observed);
    if (!CHECK(isnan(observed) ? isnan(got) : fabs(got - observed) <= 1e-9 * fabs(observed)))
        fprintf(stderr, "    observed %.17g, expected %.17g\n", got, observed);
    threshold_free(&th);
}

/* 190 completed (20 of them 500s: a status is no failure), 10 failed of
 * five kinds, 7 cut off: 10 of 200 ended requests failed, 5 %. The name
 * "login": 3 of 4 ended failed; "idle" started none. */
static void build(struct stats *s)
{
    stats_init(s);
    s->completed = 190;
    s->status[200] = 170;
    s->status[500] = 22; /* the 2 validation failures had a status too */
    s->errors[STATS_ERR_CONNECT] = 1;
    s->errors[STATS_ERR_READ] = 2;
    s->errors[STATS_ERR_TIMEOUT] = 4;
    s->errors[STATS_ERR_VALIDATION] = 2;
    s->errors[STATS_ERR_TLS] = 1;
    s->cut_off = 7;
    s->started = 207;
    struct stats_name *n = stats_name_add(s, 0, "login");
    n->started = 5;
    n->completed = 1;
    n->cut_off = 1;
    n->errors[STATS_ERR_TIMEOUT] = 2;
    n->errors[STATS_ERR_VALIDATION] = 1;
    stats_name_add(s, 1, "idle");
}

static void test_eval(void)
{
    struct stats s;
    build(&s);
    eval(&s, "failed < 1%", false, false, 5, __LINE__);
    eval(&s, "failed <= 5%", true, false, 5, __LINE__);
    eval(&s, "failed < 5%", false, false, 5, __LINE__);
    eval(&s, "failed <= 0.05", true, false, 0.05, __LINE__);
    eval(&s, "failed < 0.05", false, false, 0.05, __LINE__);
    eval(&s, "failed == 0", false, false, 0.05, __LINE__);
    eval(&s, "failed > 4.9%", true, false, 5, __LINE__);
    /* errors' share is of started requests (cut off ones included); failed's of ended ones */
    eval(&s, "errors < 5%", true, false, 1000.0 / 207, __LINE__);
    eval(&s, "failed{name=\"login\"} == 75%", true, false, 75, __LINE__);
    eval(&s, "failed{name=\"login\"} < 0.5", false, false, 0.75, __LINE__);
    eval(&s, "failed{name=\"idle\"} == 0", false, true, NAN, __LINE__);
    eval(&s, "failed{name=\"idle\"} == 0 or nodata", true, true, NAN, __LINE__);
    eval(&s, "failed{name=\"nosuch\"} < 1%", false, true, NAN, __LINE__);
    stats_free(&s);

    /* Every request failed, none failed, nothing ended (only cut off). */
    stats_init(&s);
    s.errors[STATS_ERR_READ] = 4;
    s.started = 4;
    eval(&s, "failed == 100%", true, false, 100, __LINE__);
    eval(&s, "failed == 1", true, false, 1, __LINE__);
    stats_free(&s);
    stats_init(&s);
    s.completed = 9;
    s.status[503] = 9;
    s.started = 9;
    eval(&s, "failed == 0", true, false, 0, __LINE__);
    eval(&s, "failed < 0.1%", true, false, 0, __LINE__);
    stats_free(&s);
    stats_init(&s);
    s.cut_off = 3;
    s.started = 3;
    eval(&s, "failed < 1%", false, true, NAN, __LINE__);
    eval(&s, "failed < 1% or nodata", true, true, NAN, __LINE__);
    stats_free(&s);
}

/* The report's text of the observed share, and --fail-if's note on a
 * bound from above (failures: lower is better). */
static void test_text_words(void)
{
    struct stats s;
    build(&s);
    struct threshold th;
    struct threshold_result r;
    char buf[400];
    if (parse(&th, "failed < 1%", THRESHOLD_MUST_HOLD, "failed")) {
        threshold_eval(&th, &s, (int64_t)SEC, &r);
        CHECK_STR(threshold_observed_text(buf, sizeof buf, &th, &r), "5%");
        CHECK(!threshold_note(&th, "the run", buf, sizeof buf));
        threshold_free(&th);
    }
    if (parse(&th, "failed < 0.01", THRESHOLD_MUST_HOLD, "failed")) {
        threshold_eval(&th, &s, (int64_t)SEC, &r);
        CHECK_STR(threshold_observed_text(buf, sizeof buf, &th, &r), "0.05");
        threshold_free(&th);
    }
    if (parse(&th, "failed < 1%", THRESHOLD_FAIL_IF, "failed")) {
        threshold_eval(&th, &s, (int64_t)SEC, &r);
        CHECK(r.pass); /* 5 % is not under 1 %: the run passes */
        CHECK(threshold_note(&th, "the run", buf, sizeof buf));
        CHECK_STR(buf, "--fail-if 'failed < 1%' fails the run when failed is under 1%; a limit that must hold is "
                       "--threshold");
        threshold_free(&th);
    }
    /* abort: a share may go either way, so a broken one stops the run */
    if (parse(&th, "failed < 1% abort", THRESHOLD_MUST_HOLD, "failed")) {
        CHECK(threshold_broken_live(&th, &s, (int64_t)(5 * SEC)));
        threshold_free(&th);
    }
    if (parse(&th, "failed < 10% abort", THRESHOLD_MUST_HOLD, "failed")) {
        CHECK(!threshold_broken_live(&th, &s, (int64_t)(5 * SEC)));
        threshold_free(&th);
    }
    stats_free(&s);
}

int main(void)
{
    test_parse();
    test_eval();
    test_text_words();
    return check_exit("test_threshold_failed");
}
