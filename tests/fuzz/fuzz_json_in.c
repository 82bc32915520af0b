/* libFuzzer target for the JSON reader and the HTML report: any bytes go to
 * json_in_parse; it must fail with a message or build a tree, never crash.
 * A tree is rendered by html_render: it must fail with a message naming a
 * field, or write a page with exactly one <script> (the embedded JSON, of
 * type application/json): nothing from the input may open another. It is
 * also loaded as figures for thresholds (result_load) and as a whole run
 * (result_run_load): a result or a message naming a field; a run loaded
 * is printed as the text report and written as JSON, which must be valid
 * again (volley report's two outputs).
 *
 * Linked with replay_main.c instead of libFuzzer this is a plain program over
 * files: the ctest unit.fuzz_json_in_corpus. */
#include "html.h"
#include "json_check.h"
#include "json_in.h"
#include "report.h"
#include "result_load.h"
#include "result_run.h"
#include "stats.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void require(int ok, const char *what, const char *detail)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz_json_in: %s: %.2000s\n", what, detail ? detail : "");
    abort();
}

static size_t count(const char *s, size_t n, const char *needle)
{
    size_t k = 0, m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(s + i, needle, m) == 0)
            k++;
    return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct json v;
    char err[512];
    err[0] = 'x';
    err[1] = '\0';
    if (json_in_parse(text, size, &v, err, sizeof err) < 0) {
        require(strncmp(err, "line ", 5) == 0, "a parse error without its place", err);
        return 0;
    }
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    int rc = html_render(f, &v, text, size, err, sizeof err);
    fclose(f);
    if (rc < 0)
        require(err[0] != '\0' && strchr(err, ':') != NULL, "a render error without a field", err);
    else
        require(count(out, len, "<script") == 1 && count(out, len, "</script") == 1,
                "a page with more than the one script element", out);
    free(out);
    struct stats s;
    stats_init(&s);
    int64_t ns;
    uint64_t rate;
    if (result_load(&v, &s, &ns, &rate, err, sizeof err) < 0)
        require(err[0] != '\0', "a load error without a message", NULL);
    else
        require(ns >= 0, "a negative duration", NULL);
    stats_free(&s);
    struct result_run rr;
    static const struct threshold_expr expr[] = {{"p99 < 1s", THRESHOLD_MUST_HOLD}};
    for (size_t n = 0; n < 2; n++) { /* the saved thresholds, then one of ours */
        if (result_run_load(&v, expr, n, &rr, err, sizeof err) < 0) {
            require(err[0] != '\0', "a run load error without a message", NULL);
        } else {
            f = open_memstream(&out, &len);
            report_header(f, &rr.o, &rr.t, &rr.r);
            report_text(f, &rr.o, &rr.t, &rr.r);
            fclose(f);
            free(out);
            f = open_memstream(&out, &len);
            report_json(f, &rr.o, &rr.t, &rr.r);
            fclose(f);
            require(json_check(out, len), "volley report's JSON is not valid", out);
            free(out);
        }
        result_run_free(&rr);
    }
    json_in_free(&v);
    return 0;
}
