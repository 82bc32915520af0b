/* A saved result back into a struct stats; see result_load.h. Fields are
 * read with the HTML report's readers (html_internal.h), which name the
 * field of the first error. */
#include "result_load.h"

#include "html_internal.h"
#include "metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The histogram obj.key's "hdr" decoded and merged into into (a missing
 * optional one leaves it empty). */
static void load_hist(struct html_rd *rd, const struct json *root, const char *key, bool required, struct hist *into)
{
    const struct json *obj = html_rd_of(rd, root, "", key, JSON_OBJECT, required);
    if (!obj)
        return;
    struct hist h;
    if (!html_rd_hist(rd, obj, key, &h))
        return;
    if (hist_merge(into, &h) < 0)
        html_rd_fail(rd, key, "hdr", "a histogram of another configuration");
    hist_free(&h);
}

static void load_status(struct html_rd *rd, const struct json *root, struct stats *s)
{
    const struct json *st = html_rd_of(rd, root, "", "status", JSON_OBJECT, true);
    for (size_t i = 0; st && i < st->len && !rd->failed; i++) {
        const char *key = st->members[i].key;
        char *end;
        long code = strcmp(key, "other") == 0 ? 0 : strtol(key, &end, 10);
        if (code != 0 && (*end || code < 100 || code >= STATS_STATUS_MAX)) {
            html_rd_fail(rd, "status", key, "not a status code");
            return;
        }
        s->status[code] += (uint64_t)html_rd_count(rd, st, "status", key);
    }
}

static void load_reasons(struct html_rd *rd, const struct json *root, struct stats *s)
{
    const struct json *f = html_rd_of(rd, root, "", "failures", JSON_OBJECT, false);
    const struct json *list = f ? html_rd_of(rd, f, "failures", "reasons", JSON_ARRAY, false) : NULL;
    for (size_t i = 0; list && i < list->len && !rd->failed; i++) {
        char path[48];
        snprintf(path, sizeof path, "failures.reasons[%zu]", i);
        const struct json *r = &list->items[i];
        if (r->type != JSON_OBJECT) {
            html_rd_fail(rd, path, NULL, "expected an object");
            return;
        }
        const char *reason = html_rd_str(rd, r, path, "reason", true, NULL);
        double n = html_rd_count(rd, r, path, "count");
        if (reason && !rd->failed)
            stats_add_reason(s, reason, (uint64_t)n);
    }
}

static void load_metrics(struct html_rd *rd, const struct json *root, struct metrics *ms)
{
    const struct json *m = html_rd_of(rd, root, "", "metrics", JSON_OBJECT, false);
    const struct json *counters = m ? html_rd_of(rd, m, "metrics", "counters", JSON_OBJECT, false) : NULL;
    for (size_t i = 0; counters && i < counters->len && !rd->failed; i++) {
        const char *name = counters->members[i].key;
        double v = html_rd_num(rd, counters, "metrics.counters", name, false);
        int id = metrics_id(ms, name, METRIC_COUNTER);
        if (id < 0)
            html_rd_fail(rd, "metrics.counters", name, "also a record");
        else if (!isnan(v))
            metrics_add(ms, id, v);
    }
    const struct json *records = m ? html_rd_of(rd, m, "metrics", "records", JSON_OBJECT, false) : NULL;
    for (size_t i = 0; records && i < records->len && !rd->failed; i++) {
        const char *name = records->members[i].key;
        const struct json *rec = html_rd_of(rd, records, "metrics.records", name, JSON_OBJECT, true);
        int id = metrics_id(ms, name, METRIC_RECORD);
        if (id < 0) {
            html_rd_fail(rd, "metrics.records", name, "also a counter");
            return;
        }
        if (!rec || !json_in_get(rec, "hdr"))
            continue; /* a result from before records kept their values: no data */
        char path[300];
        snprintf(path, sizeof path, "metrics.records.%s", name);
        struct hist h;
        if (!html_rd_hist(rd, rec, path, &h))
            return;
        if (hist_merge(&ms->m[id].values, &h) < 0)
            html_rd_fail(rd, "metrics.records", name, "hdr: a histogram of another configuration");
        hist_free(&h);
    }
}

int result_load(const struct json *root, struct stats *s, int64_t *duration_ns, uint64_t *rate, char *err,
                size_t errlen)
{
    struct html_rd rd = {err, errlen, false};
    if (root->type != JSON_OBJECT) {
        html_rd_fail(&rd, "", NULL, "expected an object (a result saved with --json)");
        return -1;
    }
    const struct json *req = html_rd_of(&rd, root, "", "requests", JSON_OBJECT, true);
    if (req) {
        s->started = (uint64_t)html_rd_count(&rd, req, "requests", "started");
        s->completed = (uint64_t)html_rd_count(&rd, req, "requests", "completed");
        s->cut_off = (uint64_t)html_rd_count(&rd, req, "requests", "cut_off");
    }
    const struct json *errors = html_rd_of(&rd, root, "", "errors", JSON_OBJECT, true);
    for (int k = 0; errors && k < STATS_ERR_KINDS; k++)
        s->errors[k] = (uint64_t)html_rd_count(&rd, errors, "errors", stats_error_name(k));
    load_status(&rd, root, s);
    const struct json *bytes = html_rd_of(&rd, root, "", "bytes", JSON_OBJECT, false);
    if (bytes) {
        s->bytes_read = (uint64_t)html_rd_count(&rd, bytes, "bytes", "read");
        s->bytes_written = (uint64_t)html_rd_count(&rd, bytes, "bytes", "written");
    }
    /* duration_ns exactly (rps as the run judged it), else the seconds */
    double ns = html_rd_count(&rd, root, "", "duration_ns");
    double secs = html_rd_num(&rd, root, "", "duration", true);
    if (!rd.failed && (isnan(secs) || secs < 0 || secs > 1e7))
        html_rd_fail(&rd, "", "duration", "expected seconds from 0");
    *duration_ns = rd.failed ? 0 : ns > 0 ? (int64_t)ns : (int64_t)llround(secs * 1e9);
    const struct json *opts = html_rd_of(&rd, root, "", "options", JSON_OBJECT, true);
    double r = opts ? html_rd_count(&rd, opts, "options", "rate") : 0;
    *rate = (uint64_t)r;
    s->open = *rate != 0;
    load_hist(&rd, root, "latency", true, &s->latency);
    load_hist(&rd, root, "connect", true, &s->connect);
    load_hist(&rd, root, "waiting", true, &s->waiting);
    load_hist(&rd, root, "service", false, &s->service);
    load_hist(&rd, root, "sendlag", false, &s->sendlag);
    load_reasons(&rd, root, s);
    load_metrics(&rd, root, &s->metrics);
    return rd.failed ? -1 : 0;
}
