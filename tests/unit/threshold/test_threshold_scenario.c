/* Unit test for the {scenario="NAME"} label (threshold.c's take_labels,
 * threshold_figure.c's spelling): on every kind of figure, beside name=
 * and reason=, spelled out first in the braces; an empty name, a second
 * one and a misspelt key refused with the labels the figure takes. */
#include "threshold.h"

#include "../check.h"

static void parse_ok(const char *expr, const char *figure, const char *scenario, const char *request_name)
{
    struct threshold th;
    char err[512] = "", fig[256];
    check_ctx("parse \"%s\"", expr);
    if (!CHECK_INT(threshold_parse(&th, expr, THRESHOLD_MUST_HOLD, false, err, sizeof err), 0)) {
        fprintf(stderr, "    error: %s\n", err);
        return;
    }
    CHECK_STR(threshold_figure(&th, fig, sizeof fig), figure);
    CHECK_STR(th.scenario, scenario);
    if (request_name)
        CHECK_STR(th.request_name, request_name);
    else
        CHECK(th.request_name == NULL);
    threshold_free(&th);
}

static void parse_bad(const char *expr, const char *message)
{
    struct threshold th;
    char err[512] = "", want[600];
    check_ctx("parse \"%s\" must fail", expr);
    CHECK_INT(threshold_parse(&th, expr, THRESHOLD_MUST_HOLD, false, err, sizeof err), -1);
    snprintf(want, sizeof want, "--threshold \"%s\": %s", expr, message);
    CHECK_STR(err, want);
}

int main(void)
{
    parse_ok("latency{scenario=\"buy\"}.p99 < 500ms", "latency{scenario=\"buy\"}.p99", "buy", NULL);
    parse_ok("p95{scenario=\"buy\"} < 1s", "latency{scenario=\"buy\"}.p95", "buy", NULL);
    parse_ok("iteration{scenario=\"browse\"}.p95 < 2s", "iteration{scenario=\"browse\"}.p95", "browse", NULL);
    parse_ok("iterations{scenario=\"a\"}.failed == 0", "iterations{scenario=\"a\"}.failed", "a", NULL);
    parse_ok("requests{scenario=\"a\"} > 1", "requests{scenario=\"a\"}", "a", NULL);
    parse_ok("errors{scenario=\"a\"}.timeout == 0", "errors{scenario=\"a\"}.timeout", "a", NULL);
    parse_ok("failed{scenario=\"a\"} < 1%", "failed{scenario=\"a\"}", "a", NULL);
    parse_ok("latency{name=\"item\", scenario=\"a\"}.p99 < 1s", "latency{scenario=\"a\",name=\"item\"}.p99", "a",
             "item");
    parse_ok("status{scenario=\"a\",name=\"x\"}.5xx == 0", "status{scenario=\"a\",name=\"x\"}.5xx", "a", "x");
    parse_ok("failures{reason=\"r\",scenario=\"a\"} == 0", "failures{scenario=\"a\",reason=\"r\"}", "a", NULL);
    parse_ok("checks{scenario=\"a\",name=\"ok\"} > 0.99", "checks{scenario=\"a\",name=\"ok\"}", "a", NULL);
    parse_ok("group{scenario=\"a\",name=\"pay\"}.p95 < 1s", "group{scenario=\"a\",name=\"pay\"}.p95", "a", NULL);

    parse_bad("latency{scenario=\"\"}.p99 < 1s", "\"latency{scenario=\"\"}.p99\": the scenario name is empty");
    parse_bad("latency{scenario=\"a\",scenario=\"b\"}.p99 < 1s",
              "\"latency{scenario=\"a\",scenario=\"b\"}.p99\": a second label \"scenario\" (expected name=\"NAME\", "
              "scenario=\"NAME\" or a tag, KEY=\"VALUE\")");
    parse_bad("latency{sceanrio=\"a\"}.p99 < 1s",
              "\"latency{sceanrio=\"a\"}.p99\": unknown label \"sceanrio\" (did you mean scenario=\"NAME\"?)");
    parse_bad("failures{reason=\"r\",scene=\"a\"} == 0",
              "\"failures{reason=\"r\",scene=\"a\"}\": unknown label \"scene\" (failures takes reason=\"TEXT\", "
              "name=\"NAME\" and scenario=\"NAME\")");
    return check_exit("test_threshold_scenario");
}
