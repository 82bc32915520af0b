/* Unit test for report.c on results no network test can produce: a latency
 * above the histogram's hour, records past their top, infinite and NaN
 * counters, and hostile text (a reason, a metric name, the URL, a script
 * error). The text report and stderr line must carry no control byte but
 * line ends and must note the clamped values; the JSON must be valid (the
 * fuzz target's strict validator) with "clamped" counts and nulls. */
#include "report.h"

#include "../check.h"
#include "../../fuzz/json_check.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <stdlib.h>

typedef void (*writer)(FILE *out, const struct options *o, const struct target *t, const struct run_result *r);

static char *capture(writer w, const struct options *o, const struct target *t, const struct run_result *r)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    w(f, o, t, r);
    fclose(f);
    return out;
}

static void header(FILE *out, const struct options *o, const struct target *t, const struct run_result *r)
{
    report_header(out, o, t, r);
}

static void stop_reason(FILE *out, const struct options *o, const struct target *t, const struct run_result *r)
{
    (void)o;
    report_stop_reason(out, t, r);
}

static void none_completed(FILE *out, const struct options *o, const struct target *t, const struct run_result *r)
{
    (void)o;
    (void)t;
    report_none_completed(out, r);
}

/* A run in which no response completed: one line instead of the timing
 * lines (no zeros that read as a fast server), null figures in the JSON,
 * and the stderr line main exits 1 with. */
static void test_none_completed(const struct options *base, const struct target *t)
{
    struct options o = *base;
    o.verbose = 1;
    o.latency = true;
    struct run_result r = {.duration_ns = 1000000000};
    struct stats *s = &r.stats;
    stats_init(s);
    s->started = 205;
    s->errors[STATS_ERR_CONNECT] = 160;
    s->errors[STATS_ERR_READ] = 40;
    s->cut_off = 5;
    char *text = capture(report_text, &o, t, &r);
    static const char line[] = "  No response completed: there are no latency figures\n";
    CHECK(strncmp(text, line, sizeof line - 1) == 0);
    CHECK_CONTAINS(text, "\n  Failed requests: 200 (connect 160, read 40, write 0, timeout 0, parse 0, validation 0)\n");
    CHECK(!strstr(text, "Latency") && !strstr(text, "p50") && !strstr(text, "Connect ") && !strstr(text, "Status"));
    free(text);
    char *json = capture(report_json, &o, t, &r);
    CHECK(json_check(json, strlen(json)));
    CHECK_CONTAINS(json, "\"latency\": {\"count\": 0, \"min\": null, \"max\": null, \"mean\": null, \"stdev\": null, "
                         "\"p50\": null, \"p75\": null, \"p90\": null, \"p99\": null, \"p99.9\": null, \"p99.99\": null, "
                         "\"clamped\": 0, \"sum\": \"0\", \"sum_sq\": \"0\", \"hdr\": \"HISTF");
    free(json);
    char *err = capture(none_completed, &o, t, &r);
    CHECK_STR(err, "volley: no response completed (200 requests failed: connect 160, read 40; 5 cut off)\n");
    free(err);
    s->errors[STATS_ERR_CONNECT] = s->errors[STATS_ERR_READ] = 0;
    s->errors[STATS_ERR_TIMEOUT] = 1;
    s->cut_off = 0;
    r.interrupted = true;
    err = capture(none_completed, &o, t, &r);
    CHECK_STR(err, "volley: no response completed (1 request failed: timeout 1; interrupted)\n");
    free(err);
    s->errors[STATS_ERR_TIMEOUT] = 0;
    s->started = 0;
    err = capture(none_completed, &o, t, &r);
    CHECK_STR(err, "volley: no response completed (no request was started; interrupted)\n");
    free(err);
    s->started = s->completed = 1;
    err = capture(none_completed, &o, t, &r);
    CHECK_STR(err, "");
    free(err);
    stats_free(s);
}

/* No byte below 0x20 but '\n', no DEL. */
static bool printable(const char *s)
{
    for (; *s; s++)
        if (((unsigned char)*s < 0x20 && *s != '\n') || *s == 0x7f)
            return false;
    return true;
}

int main(void)
{
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(8080)};
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct target_addr addr = {.len = sizeof sin};
    memcpy(&addr.sa, &sin, sizeof sin);
    struct target t = {.url = "http://127.0.0.1:8080/p\xff#\x1b[2J", .scheme = "http", .host = "127.0.0.1",
                       .port = 8080, .path = "/p\xff", .addrs = &addr, .naddrs = 1};
    const char *headers[] = {"X-High: caf\xe9"};
    struct options o = {.connections = 1, .threads = 1, .method = "GET", .headers = headers, .nheaders = 1,
                        .timeout_ns = 1000000000, .keepalive = true, .requests = 3};
    struct run_result r = {.duration_ns = 1000000000, .start_epoch = 1.5};
    struct stats *s = &r.stats;
    stats_init(s);
    s->started = s->completed = 3;
    s->status[200] = 3;
    hist_record(&s->latency, 1000000);
    hist_record(&s->latency, 2 * HIST_HIGHEST);
    hist_record(&s->latency, INT64_MAX);
    for (int i = 0; i < 3; i++)
        hist_record(&s->connect, 0), hist_record(&s->waiting, 1000);
    s->errors[STATS_ERR_VALIDATION] = 2;
    s->started += 2;
    stats_add_reason(s, "bad \xff\xfe \x1b[31m\r\nFailed 0: forged", 2);
    int id = metrics_id(&s->metrics, "big\x1b[2J", METRIC_RECORD);
    metrics_record(&s->metrics, id, 1e16);
    metrics_record(&s->metrics, id, 5e12);
    metrics_record(&s->metrics, id, 1);
    metrics_add(&s->metrics, metrics_id(&s->metrics, "inf", METRIC_COUNTER), INFINITY);
    int nan_id = metrics_id(&s->metrics, "nan", METRIC_COUNTER);
    metrics_add(&s->metrics, nan_id, INFINITY);
    metrics_add(&s->metrics, nan_id, -INFINITY);
    snprintf(r.script_error, sizeof r.script_error, "s.lua:1: in response(): boom\x1b[31m\rFailed 0:");

    char *text = capture(report_text, &o, &t, &r);
    CHECK(printable(text));
    CHECK(strncmp(text, "  Latency ", 10) == 0);
    CHECK_CONTAINS(text, "\n  Failed requests: 2 (connect 0, read 0, write 0, timeout 0, parse 0, validation 2)\n");
    CHECK_CONTAINS(text, "\n    (2 values above 3600.00s recorded as 3600.00s)\n");
    CHECK_CONTAINS(text, "\n    validation: bad \\xff\\xfe \\x1b[31m\\r\\nFailed 0: forged (2)\n");
    CHECK_CONTAINS(text, "\n    big\\x1b[2J           count 3  min 1  ");
    CHECK_CONTAINS(text, "  max 1.1259e+12  ");
    CHECK_CONTAINS(text, "\n    (2 values above 1.1259e+12 recorded as 1.1259e+12)\n");
    CHECK(!strstr(text, "Connect")); /* not without -v: its clamped note neither */
    free(text);

    char *head = capture(header, &o, &t, &r);
    CHECK_STR(head, "Running 3 requests @ http://127.0.0.1:8080/p\\xff#\\x1b[2J\n"
                    "  1 thread and 1 connection, keep-alive, closed loop\n");
    free(head);

    char *err = capture(stop_reason, &o, &t, &r);
    CHECK_STR(err, "volley: s.lua:1: in response(): boom\\x1b[31m\\rFailed 0:\n");
    free(err);

    char *json = capture(report_json, &o, &t, &r);
    CHECK(json_check(json, strlen(json)));
    CHECK_CONTAINS(json, "\"url\": \"http://127.0.0.1:8080/p\\ufffd#\\u001b[2J\"");
    CHECK_CONTAINS(json, "\"headers\": [\"X-High: caf\\ufffd\"]");
    CHECK_CONTAINS(json, "{\"reason\": \"bad \\ufffd\\ufffd \\u001b[31m\\u000d\\u000aFailed 0: forged\", \"count\": 2}");
    CHECK_CONTAINS(json, "\"counters\": {\"inf\": null, \"nan\": null}");
    CHECK_CONTAINS(json, "\"records\": {\"big\\u001b[2J\": {\"count\": 3, \"min\": 1, \"max\": 1125899906842.62, ");
    CHECK_CONTAINS(json, ", \"clamped\": 2, \"sum\": \""); /* a record's values, for volley report --fail-if */
    CHECK_CONTAINS(json, "\"latency\": {\"count\": 3, \"min\": 1000.000, \"max\": 3600000000.000, ");
    CHECK_CONTAINS(json, ", \"clamped\": 2, \"sum\": \"");
    CHECK_CONTAINS(json, ", \"clamped\": 0, \"sum\": \"");
    free(json);

    /* With -v the other histograms' lines, and their notes, are shown too. */
    o.verbose = 1;
    hist_record(&s->waiting, HIST_HIGHEST + 1);
    text = capture(report_text, &o, &t, &r);
    CHECK_CONTAINS(text, "\n  Waiting ");
    CHECK_CONTAINS(text, "\n    (1 value above 3600.00s recorded as 3600.00s)\n");
    free(text);

    stats_free(s);
    test_none_completed(&o, &t);
    return check_exit("test_report");
}
