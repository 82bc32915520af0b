/* A saved result back into a struct stats; see result_load.h. Fields are
 * read with the HTML report's readers (html_internal.h), which name the
 * field of the first error. */
#include "result_load.h"
#include "result_load_internal.h"

#include "html_internal.h"
#include "metrics.h"
#include "stats_tags.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PARENT.KEY, or KEY at the top ("" parent), into buf. */
static const char *join(char *buf, size_t len, const char *parent, const char *key)
{
    snprintf(buf, len, "%s%s%s", parent, parent[0] ? "." : "", key);
    return buf;
}

/* A histogram of ns, its figures in us. */
static void load_hist(struct html_rd *rd, const struct json *parent, const char *path, const char *key,
                      bool required, struct hist *into)
{
    result_load_hist(rd, parent, path, key, required, 1e3, into);
}

/* parent.status (parent at path) into status[]. */
static void load_status(struct html_rd *rd, const struct json *parent, const char *path, uint64_t *status)
{
    char at[320];
    join(at, sizeof at, path, "status");
    const struct json *st = html_rd_of(rd, parent, path, "status", JSON_OBJECT, true);
    for (size_t i = 0; st && i < st->len && !rd->failed; i++) {
        const char *key = st->members[i].key;
        char *end;
        long code = strcmp(key, "other") == 0 ? 0 : strtol(key, &end, 10);
        if (code != 0 && (*end || code < 100 || code >= STATS_STATUS_MAX)) {
            html_rd_fail(rd, at, key, "not a status code");
            return;
        }
        html_rd_add_count(rd, st, at, key, &status[code]); /* a key given twice adds up */
    }
}

/* A reason's count after a file's count was added (a file may repeat a
 * reason): at most HTML_COUNT_MAX, as every count of a result. */
static void check_reason(struct html_rd *rd, const char *path, uint64_t now)
{
    if ((double)now > HTML_COUNT_MAX)
        html_rd_fail(rd, path, "count", "the reason's counts add up to %llu, more than %.0f, the most a result "
                     "counts: not a real result", (unsigned long long)now, HTML_COUNT_MAX);
}

/* Where a list of failure reasons goes: the run's (id NAMES_MAX), request
 * name id's, or a flow's iterations' (flow not NULL). */
struct reasons_to {
    struct stats *s;
    uint32_t id;
    struct stats_flow *flow;
};

/* parent.failures.reasons (parent at path) into to. */
static void load_reasons(struct html_rd *rd, const struct json *parent, const char *path, struct reasons_to to)
{
    char at[320];
    join(at, sizeof at, path, "failures");
    const struct json *f = html_rd_of(rd, parent, path, "failures", JSON_OBJECT, false);
    const struct json *list = f ? html_rd_of(rd, f, at, "reasons", JSON_ARRAY, false) : NULL;
    for (size_t i = 0; list && i < list->len && !rd->failed; i++) {
        char item[360];
        snprintf(item, sizeof item, "%s.reasons[%zu]", at, i);
        const struct json *r = &list->items[i];
        if (r->type != JSON_OBJECT) {
            html_rd_fail(rd, item, NULL, "expected an object");
            return;
        }
        const char *reason = html_rd_str(rd, r, item, "reason", true, NULL);
        uint64_t n = (uint64_t)html_rd_count(rd, r, item, "count");
        if (!reason || rd->failed)
            return;
        check_reason(rd, item, to.flow             ? stats_flow_reason(to.flow, reason, n)
                               : to.id < NAMES_MAX ? stats_name_reason(to.s, to.id, reason, n)
                                                   : stats_add_reason(to.s, reason, n));
    }
}

/* Member i of obj (at path) as the name of something a run holds at most
 * NAMES_MAX of (request names, check names, group names): its key, or NULL
 * (rd failed) past NAMES_MAX, or when empty or with a NUL. */
static const char *member_name(struct html_rd *rd, const struct json *obj, const char *path, size_t i,
                               const char *what)
{
    const char *name = obj->members[i].key;
    if (i >= NAMES_MAX || !name[0] || strlen(name) != obj->members[i].key_len) {
        html_rd_fail(rd, path, name, "more than %d %s, or a name empty or with a NUL", NAMES_MAX, what);
        return NULL;
    }
    return name;
}

/* One name's or tag's figures (obj, at path at) into n. */
static void load_figures(struct html_rd *rd, const struct json *obj, const char *at, struct stats_name *n)
{
    char rq[340];
    const struct json *req = html_rd_of(rd, obj, at, "requests", JSON_OBJECT, true);
    join(rq, sizeof rq, at, "requests");
    if (req) {
        n->started = (uint64_t)html_rd_count(rd, req, rq, "started");
        n->completed = (uint64_t)html_rd_count(rd, req, rq, "completed");
        n->cut_off = (uint64_t)html_rd_count(rd, req, rq, "cut_off");
    }
    join(rq, sizeof rq, at, "errors");
    const struct json *errors = html_rd_of(rd, obj, at, "errors", JSON_OBJECT, true);
    for (int k = 0; errors && k < STATS_ERR_KINDS; k++)
        n->errors[k] = (uint64_t)html_rd_count(rd, errors, rq, stats_error_name(k));
    load_status(rd, obj, at, n->status);
    join(rq, sizeof rq, at, "failures");
    const struct json *f = html_rd_of(rd, obj, at, "failures", JSON_OBJECT, false);
    if (f) {
        n->reasons_more = (size_t)html_rd_count(rd, f, rq, "other_reasons");
        n->reasons_more_count = (uint64_t)html_rd_count(rd, f, rq, "other");
    }
    load_hist(rd, obj, at, "latency", true, &n->latency);
    if (n->service.counts)
        load_hist(rd, obj, at, "service", false, &n->service);
}

/* "names": each request name's figures, in the file's order (the order of
 * first use), or null. */
static void load_names(struct html_rd *rd, const struct json *root, struct stats *s)
{
    const struct json *names = html_rd_of(rd, root, "", "names", JSON_OBJECT, false);
    for (size_t i = 0; names && i < names->len && !rd->failed; i++) {
        const char *name = names->members[i].key;
        char at[320];
        join(at, sizeof at, "names", name);
        const struct json *obj = html_rd_of(rd, names, "names", name, JSON_OBJECT, true);
        /* Two names can be one key here (invalid UTF-8 written as U+FFFD):
         * each keeps its entry, as the file has them. */
        if (!obj || !member_name(rd, names, "names", i, "names"))
            return;
        struct stats_name *n = stats_name_add(s, (uint32_t)i, name);
        load_reasons(rd, obj, at, (struct reasons_to){s, (uint32_t)i, NULL});
        load_figures(rd, obj, at, n);
    }
}

/* "tags": key -> value -> a tag's figures, in the file's order, or null.
 * Ids in that order, at most TAGS_MAX; a merge matches tags by text. */
static void load_tags(struct html_rd *rd, const struct json *root, struct stats *s)
{
    const struct json *tags = html_rd_of(rd, root, "", "tags", JSON_OBJECT, false);
    uint32_t id = 0;
    for (size_t i = 0; tags && i < tags->len && !rd->failed; i++) {
        const char *key = tags->members[i].key;
        char at[320];
        join(at, sizeof at, "tags", key);
        const struct json *values = html_rd_of(rd, tags, "tags", key, JSON_OBJECT, true);
        for (size_t j = 0; values && j < values->len && !rd->failed; j++) {
            const char *value = values->members[j].key;
            char vat[400], text[400];
            join(vat, sizeof vat, at, value);
            const struct json *obj = html_rd_of(rd, values, at, value, JSON_OBJECT, true);
            if (!obj)
                return;
            if (id >= TAGS_MAX || !key[0] || strchr(key, '=') || strlen(key) != tags->members[i].key_len ||
                strlen(value) != values->members[j].key_len ||
                snprintf(text, sizeof text, "%s=%s", key, value) >= (int)sizeof text) {
                html_rd_fail(rd, at, value, "more than %d tags, or a key empty, with '=' or a NUL, or too long",
                             TAGS_MAX);
                return;
            }
            load_figures(rd, obj, vat, stats_tag_add(s, id++, text));
        }
    }
}

/* The id of the check or group called name in f: the existing one, else
 * the next. */
static uint32_t flow_id(const struct stats_flow *f, const char *name, bool group)
{
    uint32_t n = group ? f->ngroups : f->nchecks;
    for (uint32_t i = 0; i < n; i++) {
        const char *at = group ? (f->groups[i] ? f->groups[i]->name : NULL) : f->checks[i].name;
        if (at && strcmp(at, name) == 0)
            return i;
    }
    return n;
}

/* Member i of obj (at path), one check's or group's: its name (as
 * member_name checks it) in *name, PATH.NAME in at, and its value, an
 * object; NULL with rd failed. */
static const struct json *flow_member(struct html_rd *rd, const struct json *obj, const char *path, size_t i,
                                      const char *what, const char **name, char *at, size_t atlen)
{
    if (!(*name = member_name(rd, obj, path, i, what)))
        return NULL;
    join(at, atlen, path, *name);
    const struct json *v = &obj->members[i].value;
    if (v->type == JSON_OBJECT)
        return v;
    html_rd_fail(rd, at, NULL, "expected an object, found %s", json_in_type_name(v));
    return NULL;
}

/* "checks": each name's passes and fails in the file's order, and the
 * totals beside them, which must be their sums. A name the file repeats
 * (two names can be one key: invalid UTF-8 is written as U+FFFD) adds up
 * into its first: a merge matches checks by name. */
static void load_checks(struct html_rd *rd, const struct json *root, struct stats_flow *f)
{
    const struct json *c = html_rd_of(rd, root, "", "checks", JSON_OBJECT, true);
    const struct json *names = c ? html_rd_of(rd, c, "checks", "names", JSON_OBJECT, true) : NULL;
    uint64_t pass = 0, fail = 0;
    for (size_t i = 0; names && i < names->len && !rd->failed; i++) {
        const char *name;
        char at[320];
        const struct json *obj = flow_member(rd, names, "checks.names", i, "check names", &name, at, sizeof at);
        if (!obj)
            return;
        struct stats_check *k = stats_flow_check_add(f, flow_id(f, name, false), name);
        html_rd_add(rd, at, "passed", &pass, (double)html_rd_add_count(rd, obj, at, "passed", &k->pass));
        html_rd_add(rd, at, "failed", &fail, (double)html_rd_add_count(rd, obj, at, "failed", &k->fail));
    }
    double tp = c ? html_rd_count(rd, c, "checks", "passed") : 0, tf = c ? html_rd_count(rd, c, "checks", "failed") : 0;
    if (!rd->failed && (tp != (double)pass || tf != (double)fail))
        html_rd_fail(rd, "checks", tp != (double)pass ? "passed" : "failed", "%.0f, but its names' add up to %llu",
                     tp != (double)pass ? tp : tf, (unsigned long long)(tp != (double)pass ? pass : fail));
}

/* "groups": each name's runs, failed runs and durations, in the file's
 * order; a name the file repeats adds up into its first, as checks do. */
static void load_groups(struct html_rd *rd, const struct json *root, struct stats_flow *f)
{
    const struct json *gs = html_rd_of(rd, root, "", "groups", JSON_OBJECT, true);
    for (size_t i = 0; gs && i < gs->len && !rd->failed; i++) {
        const char *name;
        char at[320];
        const struct json *obj = flow_member(rd, gs, "groups", i, "group names", &name, at, sizeof at);
        if (!obj)
            return;
        struct stats_group *g = stats_flow_group_add(f, flow_id(f, name, true), name);
        uint64_t count = html_rd_add_count(rd, obj, at, "count", &g->count);
        uint64_t failed = html_rd_add_count(rd, obj, at, "failed", &g->failed);
        int64_t before = g->duration.count;
        load_hist(rd, obj, at, "duration", true, &g->duration);
        /* every run that ended is in both */
        if (!rd->failed && failed > count)
            html_rd_fail(rd, at, "failed", "%llu, more than its count (%llu)", (unsigned long long)failed,
                         (unsigned long long)count);
        else if (!rd->failed && (uint64_t)(g->duration.count - before) != count)
            html_rd_fail(rd, at, "duration", "its histogram holds %lld runs, but count is %llu",
                         (long long)(g->duration.count - before), (unsigned long long)count);
    }
}

/* A flow's figures: "iterations", "checks" and "groups". null (no flow)
 * or absent (a result from before flows) "iterations" leaves f off, and
 * then checks and groups must be null too. */
static void load_flow(struct html_rd *rd, const struct json *root, struct stats_flow *f)
{
    const struct json *it = html_rd_of(rd, root, "", "iterations", JSON_OBJECT, false);
    if (!it) {
        const char *stray = !json_in_is_null(json_in_get(root, "checks"))   ? "checks"
                            : !json_in_is_null(json_in_get(root, "groups")) ? "groups"
                                                                             : NULL;
        if (stray && !rd->failed)
            html_rd_fail(rd, "", stray, "a flow's figures, but \"iterations\" is null: not a real result");
        return;
    }
    f->on = true;
    f->started = (uint64_t)html_rd_count(rd, it, "iterations", "started");
    f->completed = (uint64_t)html_rd_count(rd, it, "iterations", "completed");
    f->failed = (uint64_t)html_rd_count(rd, it, "iterations", "failed");
    f->cut_off = (uint64_t)html_rd_count(rd, it, "iterations", "cut_off");
    load_reasons(rd, it, "iterations", (struct reasons_to){NULL, 0, f});
    const struct json *fl = html_rd_of(rd, it, "iterations", "failures", JSON_OBJECT, false);
    if (fl) {
        f->reasons_more = (size_t)html_rd_count(rd, fl, "iterations.failures", "other_reasons");
        f->reasons_more_count = (uint64_t)html_rd_count(rd, fl, "iterations.failures", "other");
    }
    load_hist(rd, it, "iterations", "duration", true, &f->duration);
    load_hist(rd, it, "iterations", "start_lag", false, &f->start_lag); /* -R only */
    load_hist(rd, it, "iterations", "cap_wait", false, &f->cap_wait); /* --max-rps only */
    /* one lag per started iteration */
    if (!rd->failed && (uint64_t)f->start_lag.count > f->started)
        html_rd_fail(rd, "iterations.start_lag", "count", "%lld, more than the %llu iterations started",
                     (long long)f->start_lag.count, (unsigned long long)f->started);
    /* the durations are the completed iterations' */
    if (!rd->failed && (uint64_t)f->duration.count != f->completed)
        html_rd_fail(rd, "iterations.duration", "count", "%lld, but %llu iterations completed",
                     (long long)f->duration.count, (unsigned long long)f->completed);
    load_checks(rd, root, f);
    load_groups(rd, root, f);
}

static void load_metrics(struct html_rd *rd, const struct json *root, struct metrics *ms)
{
    const struct json *m = html_rd_of(rd, root, "", "metrics", JSON_OBJECT, false);
    const struct json *counters = m ? html_rd_of(rd, m, "metrics", "counters", JSON_OBJECT, false) : NULL;
    const struct json *records = m ? html_rd_of(rd, m, "metrics", "records", JSON_OBJECT, false) : NULL;
    /* "order": the names in the order the text report lists them */
    const struct json *order = m ? html_rd_of(rd, m, "metrics", "order", JSON_ARRAY, false) : NULL;
    for (size_t i = 0; order && i < order->len && !rd->failed; i++) {
        const struct json *name = &order->items[i];
        bool counter = name->type == JSON_STRING && json_in_get(counters, name->s);
        if (name->type != JSON_STRING || (!counter && !json_in_get(records, name->s)))
            html_rd_fail(rd, "metrics", "order", "item %zu: not the name of a counter or a record", i);
        else
            metrics_id(ms, name->s, counter ? METRIC_COUNTER : METRIC_RECORD);
    }
    ms->clashes = m ? (size_t)html_rd_count(rd, m, "metrics", "clashes") : 0;
    for (size_t i = 0; counters && i < counters->len && !rd->failed; i++) {
        const char *name = counters->members[i].key;
        double v = html_rd_num(rd, counters, "metrics.counters", name, false);
        int id = metrics_id(ms, name, METRIC_COUNTER);
        if (id < 0)
            html_rd_fail(rd, "metrics.counters", name, "also a record");
        else if (!isnan(v))
            metrics_add(ms, id, v);
    }
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
        result_load_exact(rd, rec, path, METRIC_SCALE, &h);
        if (!rd->failed && hist_merge(&ms->m[id].values, &h) < 0)
            html_rd_fail(rd, "metrics.records", name,
                         "hdr: a histogram of another configuration, or whose count or sums overflow with the "
                         "record's before it (a name given twice)");
        hist_free(&h);
    }
}

/* A failure kind's reasons ("reasons": [...], "other": N in obj at path). */
static void load_kind_reasons(struct html_rd *rd, const struct json *obj, const char *path, enum stats_error kind,
                              struct stats *s)
{
    const struct json *list = html_rd_of(rd, obj, path, "reasons", JSON_ARRAY, false);
    for (size_t i = 0; list && i < list->len && !rd->failed; i++) {
        char at[48];
        snprintf(at, sizeof at, "%s.reasons[%zu]", path, i);
        const struct json *r = &list->items[i];
        const char *reason = r->type == JSON_OBJECT ? html_rd_str(rd, r, at, "reason", true, NULL) : NULL;
        if (r->type != JSON_OBJECT)
            html_rd_fail(rd, at, NULL, "expected an object");
        double n = r->type == JSON_OBJECT ? html_rd_count(rd, r, at, "count") : 0;
        if (reason && !rd->failed)
            check_reason(rd, at, stats_kind_reason(s, kind, reason, (uint64_t)n));
    }
    /* the reasons past the list's room are in other already */
    html_rd_add_count(rd, obj, path, "other", &s->kind_reasons[kind].other);
}

/* The error samples' responses ("error_samples": [{"status", "status_line",
 * "headers", "body"}], their bytes put together again, as far as
 * ERRSAMPLE_BYTES): the report's first error body. Failures are not read
 * back (only --show-errors, a run's option, lists them). */
static void load_error_samples(struct html_rd *rd, const struct json *root, struct stats *s)
{
    const struct json *list = html_rd_of(rd, root, "", "error_samples", JSON_ARRAY, false);
    if (!list || list->len == 0)
        return;
    errsamples_init(&s->shown, list->len, false);
    for (size_t i = 0; i < list->len && !rd->failed && s->shown.n < s->shown.cap; i++) {
        char at[40];
        snprintf(at, sizeof at, "error_samples[%zu]", i);
        const struct json *e = &list->items[i];
        if (e->type != JSON_OBJECT) {
            html_rd_fail(rd, at, NULL, "expected an object");
            return;
        }
        const struct json *status = json_in_get(e, "status");
        if (!status || status->type != JSON_NUMBER)
            continue; /* a failure */
        char buf[ERRSAMPLE_BYTES];
        size_t n = 0, len;
        const char *line = html_rd_str(rd, e, at, "status_line", true, &len);
        const struct json *headers = html_rd_of(rd, e, at, "headers", JSON_ARRAY, false);
        const char *body = html_rd_str(rd, e, at, "body", false, NULL);
        if (rd->failed || !line || len < 12 || memcmp(line, "HTTP/1.", 7) != 0) {
            if (!rd->failed)
                html_rd_fail(rd, at, "status_line", "expected an HTTP/1.x status line");
            return;
        }
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\r\n", line);
        for (size_t h = 0; headers && h < headers->len && n < sizeof buf; h++)
            if (headers->items[h].type == JSON_STRING)
                n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\r\n", headers->items[h].s);
        if (n < sizeof buf)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "\r\n%s", body ? body : "");
        errsamples_response(&s->shown, 0, buf, n < sizeof buf ? n : sizeof buf - 1);
    }
}

/* The counts beside the headline ones: connections, -R's arrivals, the
 * validation reasons not listed, TLS handshakes and HTTP/2's figures. */
static void load_counts(struct html_rd *rd, const struct json *root, struct stats *s)
{
    s->connects = (uint64_t)html_rd_count(rd, root, "", "connections_opened");
    const struct json *rate = html_rd_of(rd, root, "", "rate", JSON_OBJECT, false);
    if (rate) {
        s->arrivals = (uint64_t)html_rd_count(rd, rate, "rate", "sent");
        s->unsent = (uint64_t)html_rd_count(rd, rate, "rate", "unsent");
    }
    const struct json *f = html_rd_of(rd, root, "", "failures", JSON_OBJECT, false);
    if (f) {
        s->reasons_more = (size_t)html_rd_count(rd, f, "failures", "other_reasons");
        s->reasons_more_count = (uint64_t)html_rd_count(rd, f, "failures", "other");
    }
    load_error_samples(rd, root, s);
    const struct json *cf = html_rd_of(rd, root, "", "connect_failures", JSON_OBJECT, false);
    if (cf) /* saved before connect failures had reasons (a proxy's refusal): none */
        load_kind_reasons(rd, cf, "connect_failures", STATS_ERR_CONNECT, s);
    const struct json *rf = html_rd_of(rd, root, "", "read_failures", JSON_OBJECT, false);
    if (rf) /* a result saved before read failures had reasons has none */
        load_kind_reasons(rd, rf, "read_failures", STATS_ERR_READ, s);
    const struct json *tls = html_rd_of(rd, root, "", "tls", JSON_OBJECT, false);
    if (tls) {
        const struct json *hs = html_rd_of(rd, tls, "tls", "handshakes", JSON_OBJECT, false);
        s->tls_full = hs ? (uint64_t)html_rd_count(rd, hs, "tls.handshakes", "full") : 0;
        s->tls_resumed = hs ? (uint64_t)html_rd_count(rd, hs, "tls.handshakes", "resumed") : 0;
        load_kind_reasons(rd, tls, "tls", STATS_ERR_TLS, s);
    }
    const struct json *h2 = html_rd_of(rd, root, "", "http2", JSON_OBJECT, false);
    if (h2) {
        s->h2_connections = (uint64_t)html_rd_count(rd, h2, "http2", "connections");
        s->h1_fallbacks = (uint64_t)html_rd_count(rd, h2, "http2", "http1_fallbacks");
        s->h2_retried = (uint64_t)html_rd_count(rd, h2, "http2", "retried");
        double most = html_rd_count(rd, h2, "http2", "max_streams_open");
        double limit = html_rd_count(rd, h2, "http2", "server_limit");
        if (most > UINT32_MAX || limit > UINT32_MAX)
            html_rd_fail(rd, "http2", "max_streams_open", "more streams than volley opens");
        s->h2_max_streams = (uint32_t)(most > UINT32_MAX ? 0 : most);
        s->h2_peer_limit = (uint32_t)(limit > UINT32_MAX ? 0 : limit);
        const struct json *hb = html_rd_of(rd, h2, "http2", "header_bytes", JSON_OBJECT, false);
        s->h2_header_wire = hb ? (uint64_t)html_rd_count(rd, hb, "http2.header_bytes", "wire") : 0;
        s->h2_header_decoded = hb ? (uint64_t)html_rd_count(rd, hb, "http2.header_bytes", "decoded") : 0;
        load_kind_reasons(rd, h2, "http2", STATS_ERR_PROTOCOL, s);
    }
}

int result_load(const struct json *root, struct stats *s, int64_t *duration_ns, uint64_t *rate, char *err,
                size_t errlen)
{
    struct html_rd rd = {err, errlen, false};
    if (root->type != JSON_OBJECT) {
        snprintf(err, errlen, "the result: expected an object, found %s", json_in_type_name(root));
        return -1;
    }
    const struct json *req = html_rd_of(&rd, root, "", "requests", JSON_OBJECT, true);
    if (req) {
        html_rd_num(&rd, req, "requests", "started", true); /* present, a number: what everything adds up to */
        html_rd_num(&rd, req, "requests", "completed", true);
        s->started = (uint64_t)html_rd_count(&rd, req, "requests", "started");
        s->completed = (uint64_t)html_rd_count(&rd, req, "requests", "completed");
        s->cut_off = (uint64_t)html_rd_count(&rd, req, "requests", "cut_off");
    }
    const struct json *errors = html_rd_of(&rd, root, "", "errors", JSON_OBJECT, true);
    for (int k = 0; errors && k < STATS_ERR_KINDS; k++)
        s->errors[k] = (uint64_t)html_rd_count(&rd, errors, "errors", stats_error_name(k));
    load_status(&rd, root, "", s->status);
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
    /* open: service and send lag are measured, -R's requests' (a flow's
     * -R starts iterations, and its requests are timed as a closed loop's) */
    const struct json *it = json_in_get(root, "iterations");
    s->open = *rate != 0 && (!it || json_in_is_null(it));
    load_hist(&rd, root, "", "latency", true, &s->latency);
    load_hist(&rd, root, "", "connect", true, &s->connect);
    load_hist(&rd, root, "", "waiting", true, &s->waiting);
    load_hist(&rd, root, "", "service", false, &s->service);
    load_hist(&rd, root, "", "sendlag", false, &s->sendlag);
    load_hist(&rd, root, "", "handshake", false, &s->handshake);
    load_reasons(&rd, root, "", (struct reasons_to){s, NAMES_MAX, NULL});
    load_metrics(&rd, root, &s->metrics);
    load_names(&rd, root, s);
    load_tags(&rd, root, s);
    load_counts(&rd, root, s);
    load_flow(&rd, root, &s->flow);
    result_load_stream(&rd, root, &s->stream);
    result_load_hosts(&rd, root, &s->hosts);
    return rd.failed ? -1 : 0;
}

int result_load_scenario(const struct json *obj, struct stats *s, char *err, size_t errlen)
{
    struct html_rd rd = {err, errlen, false};
    const struct json *req = html_rd_of(&rd, obj, "scenarios[]", "requests", JSON_OBJECT, true);
    if (req) {
        s->started = (uint64_t)html_rd_count(&rd, req, "scenarios[].requests", "started");
        s->completed = (uint64_t)html_rd_count(&rd, req, "scenarios[].requests", "completed");
        s->cut_off = (uint64_t)html_rd_count(&rd, req, "scenarios[].requests", "cut_off");
    }
    const struct json *errors = html_rd_of(&rd, obj, "scenarios[]", "errors", JSON_OBJECT, true);
    for (int k = 0; errors && k < STATS_ERR_KINDS; k++)
        s->errors[k] = (uint64_t)html_rd_count(&rd, errors, "scenarios[].errors", stats_error_name(k));
    const struct json *arr = html_rd_of(&rd, obj, "scenarios[]", "arrivals", JSON_OBJECT, false);
    if (arr) {
        s->arrivals = (uint64_t)html_rd_count(&rd, arr, "scenarios[].arrivals", "sent");
        s->unsent = (uint64_t)html_rd_count(&rd, arr, "scenarios[].arrivals", "unsent");
    }
    load_status(&rd, obj, "scenarios[]", s->status);
    load_reasons(&rd, obj, "scenarios[]", (struct reasons_to){s, NAMES_MAX, NULL});
    load_hist(&rd, obj, "scenarios[]", "latency", true, &s->latency);
    load_flow(&rd, obj, &s->flow);
    return rd.failed ? -1 : 0;
}
