/* libFuzzer target for volley merge's readers of other machines' files:
 * an interval log (hlog_merge_read, then hlog_merge_write of it with a
 * copy of itself as the other shard) or a saved result (result_run_load,
 * then result_merge_add of a second load of it, which decodes every
 * series point's histogram). Each must fail with a message or succeed,
 * never crash, and a merge must never lose a request, an iteration or a
 * check: the sum of a result with itself has twice its counts.
 *
 * Linked with replay_main.c instead of libFuzzer this is a plain program over
 * files: the ctest unit.fuzz_merge_corpus. */
#include "hlog_merge.h"
#include "json_in.h"
#include "result_merge.h"
#include "result_run.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void require(int ok, const char *what, const char *detail)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz_merge: %s: %.2000s\n", what, detail ? detail : "");
    abort();
}

static void fuzz_log(const char *text, size_t size)
{
    struct hlog_in logs[2];
    char err[600] = "";
    int a = hlog_merge_read(&logs[0], "a.hlog", text, size, err, sizeof err);
    require(a == 0 || err[0], "a log refused without a message", NULL);
    if (a == 0) {
        require(hlog_merge_read(&logs[1], "b.hlog", text, size, err, sizeof err) == 0, "a log read once only", err);
        FILE *out = fopen("/dev/null", "w");
        err[0] = '\0';
        int rc = hlog_merge_write(out, logs, 2, err, sizeof err);
        require(rc == 0 || err[0], "a merge refused without a message", NULL);
        fclose(out);
        hlog_merge_free(&logs[1]);
    }
    hlog_merge_free(&logs[0]);
}

static void fuzz_result(const char *text, size_t size)
{
    struct json root;
    char err[600];
    if (json_in_parse(text, size, &root, err, sizeof err) < 0)
        return;
    struct result_run a, b;
    err[0] = '\0';
    int ra = result_run_load(&root, NULL, 0, &a, err, sizeof err);
    require(ra == 0 || err[0], "a result refused without a message", NULL);
    if (ra == 0) {
        require(result_run_load(&root, NULL, 0, &b, err, sizeof err) == 0, "a result loaded once only", err);
        char what[300];
        require(result_merge_same_settings(&root, &root, what, sizeof what) == 0, "a result's settings differ from their own", what);
        uint64_t started = a.r.stats.started, completed = a.r.stats.completed;
        uint64_t iterations = a.r.stats.flow.started, checks_pass, checks_fail;
        stats_flow_check_totals(&a.r.stats.flow, &checks_pass, &checks_fail);
        struct result_merge m;
        result_merge_start(&m, &a, result_merge_length(&a));
        err[0] = '\0';
        int rc = result_merge_add(&m, &b, err, sizeof err);
        require(rc == 0 || err[0], "a merge refused without a message", NULL);
        result_merge_finish(&m);
        if (rc == 0) {
            require(a.r.stats.started == 2 * started, "started not added", NULL);
            require(a.r.stats.completed == 2 * completed, "completed not added", NULL);
            uint64_t p, f;
            stats_flow_check_totals(&a.r.stats.flow, &p, &f);
            require(a.r.stats.flow.started == 2 * iterations, "iterations not added", NULL);
            require(p == 2 * checks_pass && f == 2 * checks_fail, "checks not added", NULL);
        }
        result_run_free(&b);
    }
    result_run_free(&a);
    json_in_free(&root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1); /* the readers want a NUL after the text */
    memcpy(text, data, size);
    text[size] = '\0';
    if (hlog_merge_is_log(text, size))
        fuzz_log(text, size);
    else
        fuzz_result(text, size);
    free(text);
    return 0;
}
