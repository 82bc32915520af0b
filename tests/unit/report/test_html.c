/* html: hostile strings are escaped, the embedded JSON parses back to the
 * same value, columns of merged points have exactly the percentiles of the
 * merged histograms, stacked bands sit on the sums of those below, lines
 * of their own x share the axes, and a bad field gives one error naming
 * it. */
#include "hdr_codec.h"
#include "hist.h"
#include "html.h"
#include "html_internal.h"
#include "json_in.h"

#include "../check.h"
#include "../rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *render_text(const char *text, int *rc, char *err, size_t errlen)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    *rc = html_write(f, text, strlen(text), err, errlen);
    fclose(f);
    return out;
}

static void escaping(void)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    const char s[] = "<script>&\"'\x01\x7f\xff\xc3\xa9\t\0x";
    html_escape(f, s, sizeof s - 1);
    fclose(f);
    CHECK_STR(out, "&lt;script&gt;&amp;&quot;&#39;\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9\t\xef\xbf\xbdx");
    free(out);
}

/* A result whose every string is hostile. */
static const char hostile[] =
    "{\"version\": \"0.1.0</title><script>alert(1)</script>\",\n"
    " \"target\": {\"url\": \"http://127.0.0.1:1/</script><script>alert(2)</script><!--<script>\"},\n"
    " \"options\": {\"connections\": 2, \"threads\": 1, \"duration\": 1.0, \"requests\": null, \"rate\": null,"
    " \"http_version\": \"1.1<b>\"},\n"
    " \"model\": \"closed<i>\", \"duration\": 1.5, \"start_time\": 1796103230.5,\n"
    " \"requests\": {\"started\": 10, \"completed\": 7, \"failed\": 3, \"cut_off\": 0},\n"
    " \"requests_per_sec\": 4.667, \"bytes\": {\"read\": 700, \"written\": 500},\n"
    " \"status\": {\"200\": 7, \"<b>x</b>\": 1},\n"
    " \"errors\": {\"connect\": 0, \"validation\": 3},\n"
    " \"failures\": {\"reasons\": [{\"reason\": \"<img src=x onerror=alert(3)> & \\u0007bell\", \"count\": 3}],"
    " \"other_reasons\": 0, \"other\": 0},\n"
    " \"metrics\": {\"counters\": {\"<svg onload=alert(4)>\": 2.5}, \"records\": {\"r'\\\"<\": {\"count\": 1, \"min\": 1,"
    " \"p50\": 1, \"p90\": 1, \"p99\": 1, \"max\": 1, \"mean\": 1}}},\n"
    " \"thresholds\": [{\"expr\": \"p99 < 5ms<script>\", \"unit\": \"ms\", \"limit\": 5, \"observed\": 1.25,"
    " \"pass\": true}, {\"expr\": \"errors == 0\", \"unit\": null, \"limit\": 0, \"observed\": 3, \"pass\": false}],\n"
    " \"latency\": {\"count\": 0, \"hdr\": \"%s\"},\n"
    " \"series\": {\"interval\": 1, \"points\": []}\n"
    "}\n";

/* Whether a and b are the same JSON value (members in order). */
static bool same(const struct json *a, const struct json *b)
{
    if (a->type != b->type || a->len != b->len)
        return false;
    switch (a->type) {
    case JSON_NULL: return true;
    case JSON_BOOL: return a->b == b->b;
    case JSON_NUMBER: return a->num == b->num;
    case JSON_STRING: return memcmp(a->s, b->s, a->len) == 0;
    case JSON_ARRAY:
        for (size_t i = 0; i < a->len; i++)
            if (!same(&a->items[i], &b->items[i]))
                return false;
        return true;
    case JSON_OBJECT:
        for (size_t i = 0; i < a->len; i++)
            if (a->members[i].key_len != b->members[i].key_len ||
                memcmp(a->members[i].key, b->members[i].key, a->members[i].key_len) != 0 ||
                !same(&a->members[i].value, &b->members[i].value))
                return false;
        return true;
    }
    return false;
}

static char *empty_hdr(void)
{
    struct hist h;
    hist_init_default(&h);
    char *b64 = hdr_encode(&h, NULL);
    hist_free(&h);
    return b64;
}

static void hostile_result(void)
{
    char *hdr = empty_hdr();
    char *text = malloc(sizeof hostile + strlen(hdr));
    sprintf(text, hostile, hdr);
    int rc;
    char err[400];
    char *out = render_text(text, &rc, err, sizeof err);
    if (!CHECK(rc == 0))
        fprintf(stderr, "%s\n", err);

    /* Outside the embedded JSON nothing of the strings is markup. */
    char *embed = strstr(out, "<script type=\"application/json\" id=\"volley-result\">");
    CHECK(embed != NULL);
    if (!embed)
        return;
    *embed = '\0';
    CHECK(strstr(out, "<script") == NULL);
    CHECK(strstr(out, "<img") == NULL);
    CHECK(strstr(out, "<svg onload") == NULL);
    CHECK(strstr(out, "<b>") == NULL && strstr(out, "<i>") == NULL && strstr(out, "<!--") == NULL);
    CHECK_CONTAINS(out, "&lt;img src=x onerror=alert(3)&gt; &amp; \xef\xbf\xbd" "bell");
    CHECK_CONTAINS(out, "http://127.0.0.1:1/&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;&lt;!--&lt;script&gt;");
    CHECK_CONTAINS(out, "&lt;svg onload=alert(4)&gt;");
    CHECK_CONTAINS(out, "r&#39;&quot;&lt;");
    CHECK_CONTAINS(out, "&lt;b&gt;x&lt;/b&gt;");
    CHECK_CONTAINS(out, "<span id=\"completed\">7</span>");
    CHECK_CONTAINS(out, "<span class=\"pass\">pass</span>");
    CHECK_CONTAINS(out, "<span class=\"fail\">FAIL</span>");
    CHECK_CONTAINS(out, "No latency was recorded");
    CHECK(strstr(out, "https://") == NULL);

    /* The embedded JSON: one element, no '<' inside, and the same value. */
    *embed = '<';
    char *body = strchr(embed, '>') + 1;
    char *end = strstr(body, "</script>");
    CHECK(end != NULL && strstr(end + 1, "<script") == NULL);
    if (end) {
        CHECK(memchr(body, '<', (size_t)(end - body)) == NULL);
        struct json a, b;
        CHECK(json_in_parse(text, strlen(text), &a, err, sizeof err) == 0);
        if (CHECK(json_in_parse(body, (size_t)(end - body), &b, err, sizeof err) == 0)) {
            CHECK(same(&a, &b));
            json_in_free(&b);
        }
        json_in_free(&a);
        /* rendering the embedded text again gives the same page */
        char *again = strndup(body, (size_t)(end - body));
        char *out2 = render_text(again, &rc, err, sizeof err);
        CHECK(rc == 0);
        char *e2 = strstr(out2, "<script type=\"application/json\"");
        CHECK(e2 && (size_t)(e2 - out2) == (size_t)(embed - out) && memcmp(out, out2, (size_t)(embed - out)) == 0);
        free(again);
        free(out2);
    }
    free(out);
    free(text);
    free(hdr);
}

/* Points of random histograms (2 digits, as the series has), merged n at
 * a time: each column's figures must be those of the histograms merged
 * directly, and the counts the sums. */
static void downsampling(void)
{
    enum { POINTS = 1500, MAX_BINS = 600, PER = 3 };
    struct hist *h = calloc(POINTS, sizeof *h);
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    fprintf(f, "[");
    for (int i = 0; i < POINTS; i++) {
        hist_init(&h[i], 1, HIST_HIGHEST, 2);
        int n = i % 7 == 3 ? 0 : 1 + (int)(rng_unit() * 50);
        double scale = 1e5 * (1 + (i / 100)); /* the latency drifts over the run */
        for (int k = 0; k < n; k++)
            hist_record(&h[i], (int64_t)(scale * (1 + 20 * rng_unit() * rng_unit())));
        char *b64 = hdr_encode(&h[i], NULL);
        fprintf(f, "%s{\"t\": %d, \"requests\": %d, \"bytes\": %d, \"status\": {\"2xx\": %d, \"5xx\": 1},"
                   " \"errors\": {\"timeout\": %d}, \"latency\": {\"count\": %lld",
                i ? ", " : "", i, n, 10 * n, n, i % 2, (long long)h[i].count);
        if (n)
            fprintf(f, ", \"max\": %.3f, \"hdr\": \"%s\"", (double)h[i].max / 1e3, b64);
        fprintf(f, "}}");
        free(b64);
    }
    fprintf(f, "]");
    fclose(f);
    struct json pts;
    char err[400];
    if (!CHECK(json_in_parse(text, tlen, &pts, err, sizeof err) == 0)) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    struct html_rd rd = {err, sizeof err, false};
    size_t nb;
    struct html_bin *b = html_series_bins(&rd, &pts, "series.points", 1, MAX_BINS, &nb);
    if (!CHECK(b != NULL && nb == POINTS / PER)) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    for (size_t c = 0; c < nb; c++) {
        check_ctx("column %zu", c);
        struct hist m;
        hist_init(&m, 1, HIST_HIGHEST, 2);
        int64_t req = 0, to = 0;
        double max = -1;
        for (size_t i = c * PER; i < (c + 1) * PER; i++) {
            hist_merge(&m, &h[i]);
            req += h[i].count;
            to += i % 2;
            if (h[i].count && (double)h[i].max / 1e3 > max)
                max = (double)h[i].max / 1e3;
        }
        CHECK(b[c].t == (double)(c * PER) && b[c].secs == PER);
        CHECK_INT(b[c].requests, req);
        CHECK_INT(b[c].bytes, 10 * req);
        CHECK_INT(b[c].status[1], req);
        CHECK_INT(b[c].status[4], PER);
        CHECK_INT(b[c].errors[3], to);
        CHECK_INT(b[c].lat_count, m.count);
        if (m.count) {
            CHECK(b[c].p50 == (double)hist_percentile(&m, 50) / 1e3);
            CHECK(b[c].p90 == (double)hist_percentile(&m, 90) / 1e3);
            CHECK(b[c].p99 == (double)hist_percentile(&m, 99) / 1e3);
            CHECK(fabs(b[c].max - max) < 1e-9);
        } else {
            CHECK(isnan(b[c].p50) && isnan(b[c].max));
        }
        hist_free(&m);
    }
    check_ctx(NULL);
    free(b);
    /* fewer points than columns: one point per column */
    b = html_series_bins(&rd, &pts, "series.points", 1, 5000, &nb);
    CHECK(b && nb == POINTS && b[7].requests == (uint64_t)h[7].count);
    free(b);
    json_in_free(&pts);
    for (int i = 0; i < POINTS; i++)
        hist_free(&h[i]);
    free(h);
    free(text);
}

/* The run's last point covers part of its second and says so ("span"):
 * its column spans that much, so its rates are per second of it; a
 * column of merged points adds the spans (issue 21, item 15). */
static void part_second(void)
{
    static const char text[] = "[{\"t\": 0, \"requests\": 1000}, {\"t\": 1, \"requests\": 1000},"
                               " {\"t\": 2, \"requests\": 250, \"span\": 0.25}]";
    struct json pts;
    char err[400];
    if (!CHECK(json_in_parse(text, strlen(text), &pts, err, sizeof err) == 0))
        return;
    struct html_rd rd = {err, sizeof err, false};
    size_t nb;
    struct html_bin *b = html_series_bins(&rd, &pts, "series.points", 1, 600, &nb);
    if (CHECK(b != NULL && nb == 3)) {
        CHECK(b[0].secs == 1 && b[1].secs == 1 && b[2].secs == 0.25);
        CHECK(b[2].requests / b[2].secs == 1000); /* not a drop to 250/s */
    }
    free(b);
    b = html_series_bins(&rd, &pts, "series.points", 1, 2, &nb); /* two points a column */
    if (CHECK(b != NULL && nb == 2))
        CHECK(b[0].secs == 2 && b[1].secs == 0.25);
    free(b);
    json_in_free(&pts);
    static const char bad[] = "[{\"t\": 0, \"requests\": 1, \"span\": 0}]";
    CHECK(json_in_parse(bad, strlen(bad), &pts, err, sizeof err) == 0);
    b = html_series_bins(&rd, &pts, "series.points", 1, 600, &nb);
    CHECK(b == NULL && rd.failed && strstr(err, "series.points[0].span: expected seconds above 0") != NULL);
    json_in_free(&pts);
}

/* A bad field: one error that names it. */
static void bad_fields(void)
{
    char *hdr = empty_hdr();
    static const struct {
        const char *from, *to, *msg;
    } cases[] = {
        {"\"completed\": 7", "\"completed\": \"7\"", "requests.completed: expected a number, found a string"},
        {"\"target\": {\"url\"", "\"target\": {\"uri\"", "target.url: missing (expected a string)"},
        {"\"points\": []", "\"points\": {}", "series.points: expected an array, found an object"},
        {"\"points\": []", "\"points\": [{\"t\": 0, \"latency\": {\"count\": 1, \"hdr\": \"HISTFAAAAxyz\"}}]",
         "series.points[0].latency.hdr: "},
        {"\"points\": []", "\"points\": [7]", "series.points[0]: expected an object, found a number"},
        {"\"points\": []", "\"points\": [{\"t\": 0, \"requests\": -1}]",
         "series.points[0].requests: expected a count (a whole number from 0), found -1"},
        {"\"latency\": {\"count\": 0, \"hdr\"", "\"latency\": {\"count\": 0, \"hdx\"", "latency.hdr: missing (expected a string)"},
        {"\"pass\": true", "\"pass\": 1", "thresholds[0].pass: expected true or false, found a number"},
        {"{\"reason\": \"<img", "{\"reason\": 5, \"x\": \"<img", "failures.reasons[0].reason: expected a string, found a number"},
    };
    char *base = malloc(sizeof hostile + strlen(hdr));
    sprintf(base, hostile, hdr);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_ctx("case %zu", i);
        char *at = strstr(base, cases[i].from);
        if (!CHECK(at != NULL))
            continue;
        size_t blen = strlen(base), flen = strlen(cases[i].from), tl = strlen(cases[i].to);
        char *doc = malloc(blen - flen + tl + 1);
        memcpy(doc, base, (size_t)(at - base));
        memcpy(doc + (at - base), cases[i].to, tl);
        strcpy(doc + (at - base) + tl, at + flen);
        int rc;
        char err[400];
        free(render_text(doc, &rc, err, sizeof err));
        CHECK(rc == -1);
        CHECK(strncmp(err, cases[i].msg, strlen(cases[i].msg)) == 0);
        if (strncmp(err, cases[i].msg, strlen(cases[i].msg)) != 0)
            fprintf(stderr, "    got: %s\n", err);
        free(doc);
    }
    check_ctx(NULL);
    /* not an object at all; not JSON */
    int rc;
    char err[400];
    free(render_text("[1]", &rc, err, sizeof err));
    CHECK(rc == -1);
    CHECK_STR(err, "the result: expected an object, found an array");
    free(render_text("{\"version\": ", &rc, err, sizeof err));
    CHECK(rc == -1);
    CHECK_STR(err, "line 1, column 13 (byte 12): expected a value, found the end of the text");
    free(base);
    free(hdr);
}

/* Extreme values a hostile file may hold render, and end. */
static void extremes(void)
{
    char *hdr = empty_hdr();
    char *base = malloc(sizeof hostile + strlen(hdr));
    sprintf(base, hostile, hdr);
    const char *from = "\"points\": []";
    const char *to = "\"interval\": 86400, \"points\": [{\"t\": 1e300, \"requests\": 9e15, \"status\": {\"2xx\": 9e15}},"
                     " {\"t\": -1e308, \"errors\": {\"read\": 1}}, {\"t\": 1.7e308}]";
    char *at = strstr(base, from);
    char *doc = malloc(strlen(base) + strlen(to) + 1);
    memcpy(doc, base, (size_t)(at - base));
    strcpy(doc + (at - base), to);
    strcat(doc, at + strlen(from));
    /* the interval key is now there twice: the first one (1) is read */
    int rc;
    char err[400];
    char *out = render_text(doc, &rc, err, sizeof err);
    if (!CHECK(rc == 0))
        fprintf(stderr, "%s\n", err);
    CHECK_CONTAINS(out, "Responses per second by status class");
    free(out);
    free(doc);
    free(base);
    free(hdr);
}

/* The charts' SVG, drawn into a string. */
static char *chart_text(const struct html_chart *c)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    html_chart(f, c);
    fclose(f);
    return out;
}

/* Stacked bands: each from the sum of the bands below to that sum plus its
 * values (NAN as 0), held flat to the axis' ends; the y axis up to their
 * total. Plot area: x 70..860 for 0..2, y 244 (0) up to 26 (the top). */
static void stacked(void)
{
    const double x[2] = {0.5, 1.5}, a[2] = {1, 2}, b[2] = {3, NAN};
    const struct html_line lines[2] = {{"2xx", a, 2, false, NULL, 0}, {"5xx", b, 3, false, NULL, 0}};
    struct html_chart c = {.title = "t", .id = "s", .yunit = "r/s", .xunit = "s", .x = x, .n = 2, .xmin = 0,
                           .xmax = 2, .stacked = true, .lines = lines, .nlines = 2};
    char *out = chart_text(&c);
    CHECK_CONTAINS(out, "<figure class=\"chart stacked\" id=\"s\">");
    /* the total's top, 4, is the axis' top: 244 - 4 x 54.5 = 26 */
    CHECK_CONTAINS(out, ">4</text>");
    CHECK(strstr(out, ">5</text>") == NULL);
    CHECK_CONTAINS(out, "<g class=\"c2\"><polygon points=\"70.0,189.5 267.5,189.5 662.5,135.0 860.0,135.0 "
                        "860.0,244.0 662.5,244.0 267.5,244.0 70.0,244.0\"/></g>");
    CHECK_CONTAINS(out, "<g class=\"c3\"><polygon points=\"70.0,26.0 267.5,26.0 662.5,135.0 860.0,135.0 "
                        "860.0,135.0 662.5,135.0 267.5,189.5 70.0,189.5\"/></g>");
    CHECK(strstr(out, "<polyline") == NULL);
    free(out);
}

/* Lines with x of their own (two runs of different lengths) on one chart:
 * each drawn at its own x, the y axis up to the largest of either. */
static void own_x(void)
{
    const double xa[2] = {0.5, 1.5}, ya[2] = {1, 2}, xb[1] = {1}, yb[1] = {4};
    const struct html_line lines[2] = {{"BASE", ya, 0, false, xa, 2}, {"NEW", yb, 1, false, xb, 1}};
    struct html_chart c = {.title = "t", .yunit = "r/s", .xunit = "s", .xmin = 0, .xmax = 2, .lines = lines,
                           .nlines = 2};
    char *out = chart_text(&c);
    CHECK_CONTAINS(out, "<figure class=\"chart\">");
    CHECK_CONTAINS(out, "<g class=\"c0\"><polyline points=\"267.5,189.5 662.5,135.0\"/>");
    CHECK_CONTAINS(out, "<g class=\"c1\"><polyline points=\"465.0,26.0\"/>");
    free(out);
}

/* Counts a crafted file adds up past what a result holds (9e15, html_rd_count's
 * most): the column refuses with one error naming the point and the field,
 * never an overflow (1100 points of 9e15 passed int64 in one column). */
static void sums_refused(void)
{
    static const struct {
        const char *point, *msg;
    } cases[] = {
        {"{\"t\": %d, \"requests\": 9000000000000000}", "series.points[1].requests: 9000000000000000, added"},
        {"{\"t\": %d, \"sent\": 8000000000000000}", "series.points[1].sent: 8000000000000000, added"},
        {"{\"t\": %d, \"status\": {\"2xx\": 9000000000000000}}", "series.points[1].status.2xx: "},
        {"{\"t\": %d, \"errors\": {\"timeout\": 9000000000000000}}", "series.points[1].errors.timeout: "},
        {"{\"t\": %d, \"latency\": {\"count\": 9000000000000000, \"hdr\": \"%s\"}}",
         "series.points[1].latency.count: 9000000000000000, added"},
    };
    struct hist big; /* 9e15 latencies of 1 ms */
    hist_init_default(&big);
    hist_record_n(&big, 1000000, 9000000000000000LL);
    char *big_hdr = hdr_encode(&big, NULL);
    hist_free(&big);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        check_ctx("case %zu", k);
        char *text = NULL;
        size_t tlen = 0;
        FILE *f = open_memstream(&text, &tlen);
        fputc('[', f);
        for (int i = 0; i < 1100; i++) {
            fputs(i ? ", " : "", f);
            fprintf(f, cases[k].point, i, big_hdr);
        }
        fputc(']', f);
        fclose(f);
        struct json pts;
        char err[400] = "";
        CHECK(json_in_parse(text, tlen, &pts, err, sizeof err) == 0);
        struct html_rd rd = {err, sizeof err, false};
        size_t nb = 7;
        struct html_bin *b = html_series_bins(&rd, &pts, "series.points", 1, 1, &nb);
        CHECK(b == NULL && nb == 0 && rd.failed);
        CHECK_CONTAINS(err, cases[k].msg);
        free(b);
        json_in_free(&pts);
        free(text);
    }
    check_ctx(NULL);
    free(big_hdr);
    /* A point's count that is not its histogram's: the column's would not be. */
    char *hdr = empty_hdr();
    char text[4096];
    snprintf(text, sizeof text, "[{\"t\": 0, \"latency\": {\"count\": 5, \"hdr\": \"%s\"}}]", hdr);
    struct json pts;
    char err[400] = "";
    CHECK(json_in_parse(text, strlen(text), &pts, err, sizeof err) == 0);
    struct html_rd rd = {err, sizeof err, false};
    size_t nb;
    CHECK(html_series_bins(&rd, &pts, "series.points", 1, 600, &nb) == NULL);
    CHECK_CONTAINS(err, "series.points[0].latency.count: 5, but its histogram (hdr) holds 0 values");
    json_in_free(&pts);
    free(hdr);
}

int main(void)
{
    escaping();
    hostile_result();
    downsampling();
    part_second();
    bad_fields();
    extremes();
    stacked();
    own_x();
    sums_refused();
    return check_exit("test_html");
}
