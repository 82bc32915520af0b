/* Unit test for threshold_stream.c: the stream figures' parse (each
 * family, its canonical name, kind and unit checks, -R's twins, the
 * refusals), their evaluation on a hand-built struct stats_stream (no
 * stream: no data), the nearest-figure hints, and the live check: counts
 * can stop a run, a stream histogram's figure is refused with abort. */
#include "threshold.h"

#include "../check.h"

#include <math.h>

#define MS 1000000.0
#define SEC 1000000000.0

static void parse_ok(const char *expr, bool rate, const char *figure, enum threshold_kind kind)
{
    struct threshold th;
    char err[512] = "", fig[256];
    check_ctx("parse \"%s\"", expr);
    if (!CHECK_INT(threshold_parse(&th, expr, THRESHOLD_MUST_HOLD, rate, err, sizeof err), 0)) {
        fprintf(stderr, "    error: %s\n", err);
        return;
    }
    CHECK_INT(th.source, THRESHOLD_STREAM);
    CHECK_STR(threshold_figure(&th, fig, sizeof fig), figure);
    CHECK_INT(th.kind, kind);
    threshold_free(&th);
}

static void parse_bad(const char *expr, bool rate, const char *message)
{
    struct threshold th;
    char err[512] = "", want[600];
    check_ctx("parse \"%s\" must fail", expr);
    CHECK_INT(threshold_parse(&th, expr, THRESHOLD_MUST_HOLD, rate, err, sizeof err), -1);
    snprintf(want, sizeof want, "--threshold \"%s\": %s", expr, message);
    CHECK_STR(err, want);
}

static void test_parse(void)
{
    parse_ok("first_event.p99 < 1s", false, "first_event.p99", THRESHOLD_TIME);
    parse_ok("service.first_event.max < 1s", true, "service.first_event.max", THRESHOLD_TIME);
    parse_ok("event_gap.p(99.9) < 20ms", false, "event_gap.p99.9", THRESHOLD_TIME);
    parse_ok("stream_events.p50 >= 5", false, "stream_events.p50", THRESHOLD_NUM);
    parse_ok("stream_events.mean > 2", false, "stream_events.mean", THRESHOLD_NUM);
    parse_ok("stream.max < 30s", false, "stream.max", THRESHOLD_TIME);
    parse_ok("ttft.p99 < 500ms", false, "ttft.p99", THRESHOLD_TIME);
    parse_ok("service.ttft.p50 < 500ms", true, "service.ttft.p50", THRESHOLD_TIME);
    parse_ok("itl.stdev < 5ms", false, "itl.stdev", THRESHOLD_TIME);
    parse_ok("tpot.min < 5ms", false, "tpot.min", THRESHOLD_TIME);
    parse_ok("e2el.mean < 5s", false, "e2el.mean", THRESHOLD_TIME);
    parse_ok("service.e2el.p90 < 5s", true, "service.e2el.p90", THRESHOLD_TIME);
    parse_ok("ttft.count >= 10", false, "ttft.count", THRESHOLD_NUM);
    parse_ok("events > 100", false, "events", THRESHOLD_NUM);
    parse_ok("tokens >= 1000", false, "tokens", THRESHOLD_NUM);
    parse_ok("streams == 20", false, "streams", THRESHOLD_NUM);
    /* the latency's own service.* is still service's */
    struct threshold th;
    char err[256];
    if (CHECK_INT(threshold_parse(&th, "service.p99 < 1s", THRESHOLD_MUST_HOLD, true, err, sizeof err), 0)) {
        CHECK_INT(th.source, THRESHOLD_SERVICE);
        threshold_free(&th);
    }

    parse_bad("service.ttft.p99 < 1s", false, "service.ttft.p99: service times are kept only with -R (the open model)");
    parse_bad("ttft < 1s", false,
              "unknown figure \"ttft\" (ttft takes .p50, .p99.9, .p(N), .mean, .min, .max, .stdev, .count)");
    parse_bad("ttft.p101 < 1s", false, "ttft.p101: a percentile is 0..100");
    parse_bad("ttft.p99 < 5", false, "5 needs a time unit (ns, us, ms, s, m)");
    parse_bad("stream_events.p50 < 3ms", false, "3ms: stream_events.p50 is a count (a plain number)");
    parse_bad("events < 5%", false, "5%: events is a count (a plain number)");
    parse_bad("ttft{name=\"a\"}.p99 < 1s", false, "ttft{name=\"a\"}.p99: stream figures are not kept per request name");
    parse_bad("ttft.p99 < 1s abort", false, "abort: a stream histogram's figure is judged at the end of the run "
                                            "only (events, tokens and streams can stop it)");
    parse_bad("tft.p99 < 1s", false, "unknown figure \"tft.p99\" (did you mean ttft.p99?)");
    parse_bad("evnts > 1", false, "unknown figure \"evnts\" (did you mean events?)");
    parse_bad("event_gpa.max < 1s", false, "unknown figure \"event_gpa.max\" (did you mean event_gap.max?)");
}

static bool holds(const struct stats *s, const char *expr, double *observed, bool *nodata)
{
    struct threshold th;
    char err[256];
    check_ctx("eval \"%s\"", expr);
    if (!CHECK_INT(threshold_parse(&th, expr, THRESHOLD_MUST_HOLD, true, err, sizeof err), 0)) {
        fprintf(stderr, "    error: %s\n", err);
        return false;
    }
    struct threshold_result r;
    threshold_eval(&th, s, (int64_t)(2 * SEC), &r);
    threshold_free(&th);
    *observed = r.observed;
    *nodata = r.nodata;
    return r.pass;
}

static void test_eval(void)
{
    struct stats s;
    stats_init(&s);
    double v;
    bool nodata;
    /* No stream at all: every figure has no data, but "or nodata" passes. */
    CHECK(!holds(&s, "ttft.p99 < 1s", &v, &nodata) && nodata);
    CHECK(!holds(&s, "events < 1", &v, &nodata) && nodata);
    CHECK(holds(&s, "events < 1 or nodata", &v, &nodata) && nodata);

    /* Two streams: 3 and 5 events, TTFT 10 ms and 30 ms, 8 tokens. */
    struct stats_stream *st = &s.stream;
    struct stream_end a = {.start = 0, .end = 50 * MS, .first = 10 * MS, .last = 40 * MS, .tok_first = 10 * MS,
                           .tok_last = 40 * MS, .events = 3, .tokens = 3};
    struct stream_end b = {.start = 0, .end = 90 * MS, .first = 30 * MS, .last = 80 * MS, .tok_first = 30 * MS,
                           .tok_last = 80 * MS, .events = 5, .tokens = 5};
    stats_stream_end(st, &a);
    stats_stream_end(st, &b);
    st->events = 8;
    stats_stream_gap(st, 0, 10 * MS);
    CHECK(holds(&s, "streams == 2", &v, &nodata) && v == 2);
    CHECK(holds(&s, "events == 8", &v, &nodata) && v == 8);
    CHECK(holds(&s, "tokens == 8", &v, &nodata) && v == 8);
    CHECK(!holds(&s, "events < 1", &v, &nodata) && !nodata);
    CHECK(holds(&s, "ttft.max == 30ms", &v, &nodata) && v == 30 * MS);
    CHECK(holds(&s, "ttft.min == 10ms", &v, &nodata));
    CHECK(holds(&s, "ttft.mean == 20ms", &v, &nodata));
    CHECK(holds(&s, "first_event.count == 2", &v, &nodata));
    CHECK(holds(&s, "stream_events.max == 5", &v, &nodata) && v == 5);
    CHECK(holds(&s, "stream_events.mean == 4", &v, &nodata));
    CHECK(holds(&s, "e2el.max == 90ms", &v, &nodata));
    CHECK(holds(&s, "stream.max == 60ms", &v, &nodata)); /* 30 ms -> 90 ms */
    CHECK(holds(&s, "tpot.max == 15ms", &v, &nodata));   /* (40 - 10) / 2 */
    CHECK(holds(&s, "event_gap.count == 1", &v, &nodata));
    CHECK(!holds(&s, "itl.p99 < 1s", &v, &nodata) && nodata); /* no token gap recorded */
    CHECK(holds(&s, "itl.count == 0", &v, &nodata) && !nodata);
    CHECK(!holds(&s, "service.ttft.p99 < 1s", &v, &nodata) && nodata); /* not -R's */

    /* Live: a count that only grows breaks "< N" for good once past it. */
    struct threshold th;
    char err[256];
    check_ctx("live");
    if (CHECK_INT(threshold_parse(&th, "events < 5 abort", THRESHOLD_MUST_HOLD, false, err, sizeof err), 0)) {
        CHECK(threshold_broken_live(&th, &s, (int64_t)SEC));
        threshold_free(&th);
    }
    if (CHECK_INT(threshold_parse(&th, "tokens > 100 abort", THRESHOLD_MUST_HOLD, false, err, sizeof err), 0)) {
        CHECK(!threshold_broken_live(&th, &s, (int64_t)SEC)); /* may still pass by the end */
        threshold_free(&th);
    }
    stats_free(&s);
}

int main(void)
{
    test_parse();
    test_eval();
    return check_exit("test_threshold_stream");
}
