/* A flow's setup and teardown blocks of saved results (result_aside.h):
 * read back for volley report, added up for volley merge. */
#include "result_aside.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds n responses of status code into a's list (kept ascending, at most
 * RUN_ASIDE_CODES codes: the rest are left out, as a run keeps them). */
static void add_code(struct run_aside *a, uint16_t code, uint64_t n)
{
    uint32_t i = 0;
    while (i < a->ncodes && a->codes[i].code < code)
        i++;
    if (i < a->ncodes && a->codes[i].code == code) {
        a->codes[i].n += n;
        return;
    }
    if (a->ncodes == RUN_ASIDE_CODES)
        return;
    memmove(&a->codes[i + 1], &a->codes[i], (a->ncodes - i) * sizeof a->codes[0]);
    a->codes[i] = (struct run_aside_code){code, n};
    a->ncodes++;
}

static void load_one(struct html_rd *rd, const struct json *root, const char *key, struct run_aside *a)
{
    memset(a, 0, sizeof *a);
    const struct json *o = html_rd_of(rd, root, "", key, JSON_OBJECT, false);
    if (!o)
        return;
    double runs = html_rd_count(rd, o, key, "runs");
    if (!rd->failed && (runs < 1 || runs > UINT32_MAX)) {
        html_rd_fail(rd, key, "runs", "expected 1 or more");
        return;
    }
    a->runs = (uint32_t)runs;
    const struct json *f = html_rd_of(rd, o, key, "failed", JSON_BOOL, false);
    a->failed = f && f->b;
    const char *why = html_rd_str(rd, o, key, "reason", false, NULL);
    if (why)
        snprintf(a->why, sizeof a->why, "%s", why);
    a->requests = (uint64_t)html_rd_count(rd, o, key, "requests");
    a->failed_requests = (uint64_t)html_rd_count(rd, o, key, "failed_requests");
    if (!rd->failed && a->failed_requests > a->requests)
        html_rd_fail(rd, key, "failed_requests", "more than its requests: not a real result");
    const struct json *st = html_rd_of(rd, o, key, "status", JSON_OBJECT, false);
    char path[32];
    snprintf(path, sizeof path, "%s.status", key);
    for (size_t i = 0; st && i < st->len && !rd->failed; i++) {
        const struct json_member *m = &st->members[i];
        char *end;
        long code = strtol(m->key, &end, 10);
        if (*end || end == m->key || code < 100 || code > 599) {
            html_rd_fail(rd, path, m->key, "not a status code (100 to 599)");
            return;
        }
        add_code(a, (uint16_t)code, (uint64_t)html_rd_count(rd, st, path, m->key));
    }
}

void result_aside_load(struct html_rd *rd, const struct json *root, struct run_result *r)
{
    load_one(rd, root, "setup", &r->setup);
    load_one(rd, root, "teardown", &r->teardown);
}

static void add_one(struct run_aside *a, const struct run_aside *b)
{
    if (!b->runs)
        return;
    if (b->failed && !a->failed)
        snprintf(a->why, sizeof a->why, "%s", b->why);
    a->failed |= b->failed;
    a->runs += b->runs;
    a->requests += b->requests;
    a->failed_requests += b->failed_requests;
    for (uint32_t i = 0; i < b->ncodes; i++)
        add_code(a, b->codes[i].code, b->codes[i].n);
}

void result_aside_add(struct run_result *a, const struct run_result *b)
{
    add_one(&a->setup, &b->setup);
    add_one(&a->teardown, &b->teardown);
}
