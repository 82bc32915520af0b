/* A saved result back into options, target and run result; see
 * result_run.h. The counters and histograms come through result_load;
 * this file reads the settings, the run's own figures (its times, workers,
 * connections, series) and judges the thresholds again. */
#include "result_run.h"

#include "result_aside.h"

#include "html_internal.h"
#include "result_load.h"
#include "result_load_scen.h"
#include "report.h"
#include "seed.h"
#include "threshold.h"
#include "xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

/* obj's member key as a bool; absent or null is dflt. */
static bool rd_bool(struct html_rd *rd, const struct json *obj, const char *path, const char *key, bool dflt)
{
    const struct json *v = html_rd_of(rd, obj, path, key, JSON_BOOL, false);
    return v ? v->b : dflt;
}

/* obj's member key, seconds (a number or null), as ns in [0, max_s]; null
 * or absent is 0. */
static int64_t rd_seconds(struct html_rd *rd, const struct json *obj, const char *path, const char *key,
                          double max_s)
{
    double v = html_rd_num(rd, obj, path, key, false);
    if (isnan(v))
        return 0;
    if (!(v >= 0 && v <= max_s)) {
        html_rd_fail(rd, path, key, "expected seconds from 0 to %g", max_s);
        return 0;
    }
    return (int64_t)llround(v * 1e9);
}

/* A count that must fit a uint32_t and be at least lo. */
static uint32_t rd_u32(struct html_rd *rd, const struct json *obj, const char *path, const char *key, uint32_t lo)
{
    double v = html_rd_count(rd, obj, path, key);
    if (!rd->failed && (v < lo || v > UINT32_MAX)) {
        html_rd_fail(rd, path, key, "expected a whole number from %u to %u", lo, UINT32_MAX);
        return lo;
    }
    return (uint32_t)v;
}

static void load_options(struct html_rd *rd, const struct json *root, struct options *o)
{
    const struct json *op = html_rd_of(rd, root, "", "options", JSON_OBJECT, true);
    if (!op)
        return;
    o->connections = rd_u32(rd, op, "options", "connections", 1);
    o->threads = rd_u32(rd, op, "options", "threads", 1);
    o->duration_ns = rd_seconds(rd, op, "options", "duration", 1e7);
    o->requests = (uint64_t)html_rd_count(rd, op, "options", "requests");
    o->iterations = (uint64_t)html_rd_count(rd, op, "options", "iterations"); /* null without a flow */
    o->method = html_rd_str(rd, op, "options", "method", true, NULL);
    const struct json *hs = html_rd_of(rd, op, "options", "headers", JSON_ARRAY, false);
    o->headers = xcalloc(hs && hs->len ? hs->len : 1, sizeof *o->headers);
    for (size_t i = 0; hs && i < hs->len && !rd->failed; i++) {
        if (hs->items[i].type != JSON_STRING)
            html_rd_fail(rd, "options", "headers", "item %zu: expected a string", i);
        else
            o->headers[o->nheaders++] = hs->items[i].s;
    }
    /* "command" (null or missing before volley kept it) */
    const struct json *cmd = html_rd_of(rd, root, "", "command", JSON_ARRAY, false);
    if (cmd) {
        o->command = xcalloc(cmd->len ? cmd->len : 1, sizeof *o->command);
        for (size_t i = 0; i < cmd->len && !rd->failed; i++) {
            if (cmd->items[i].type != JSON_STRING)
                html_rd_fail(rd, "", "command", "item %zu: expected a string", i);
            else
                o->command[o->ncommand++] = cmd->items[i].s;
        }
    }
    o->body_len = (size_t)html_rd_count(rd, op, "options", "body_bytes");
    o->timeout_ns = rd_seconds(rd, op, "options", "timeout", 1e7);
    o->keepalive = rd_bool(rd, op, "options", "keepalive", true);
    const char *v = html_rd_str(rd, op, "options", "http_version", false, NULL);
    o->http10 = v && strcmp(v, "1.0") == 0;
    o->rate = (uint64_t)html_rd_count(rd, op, "options", "rate");
    o->max_rps = (uint64_t)html_rd_count(rd, op, "options", "max_rps"); /* absent or null: none */
    o->source_spec = html_rd_str(rd, op, "options", "source", false, NULL);
    o->spin_ns = rd_seconds(rd, op, "options", "spin", 1);
    /* absent (results before --arrivals) or null (no -R): fixed */
    const char *ar = html_rd_str(rd, op, "options", "arrivals", false, NULL);
    if (ar && !rd->failed) {
        char why[300];
        if (arrivals_parse(ar, &o->arrivals, why, sizeof why) < 0)
            html_rd_fail(rd, "options", "arrivals", "%s", why);
    }
    const struct json *sg = html_rd_of(rd, op, "options", "stages", JSON_OBJECT, false);
    const char *spec = sg ? html_rd_str(rd, sg, "options.stages", "spec", true, NULL) : NULL;
    if (spec && !rd->failed) {
        char why[300];
        o->stages_spec = spec;
        o->stages = xmalloc(sizeof *o->stages);
        if (stages_parse(o->stages, spec, html_rd_count(rd, sg, "options.stages", "start"), why, sizeof why) < 0)
            html_rd_fail(rd, "options.stages", "spec", "%s", why);
    }
    o->latency = rd_bool(rd, op, "options", "latency_distribution", false);
    o->verbose = rd_bool(rd, op, "options", "verbose", false);
    const struct json *tg = html_rd_of(rd, op, "options", "targets", JSON_OBJECT, false);
    if (tg) {
        o->targets_path = html_rd_str(rd, tg, "options.targets", "file", true, NULL);
        o->ntargets = rd_u32(rd, tg, "options.targets", "count", 1);
        const char *order = html_rd_str(rd, tg, "options.targets", "order", true, NULL);
        if (order && strcmp(order, "random") == 0)
            o->targets_order = OPTIONS_RANDOM;
        else if (order && strcmp(order, "round-robin") != 0)
            html_rd_fail(rd, "options.targets", "order", "expected \"round-robin\" or \"random\"");
    }
    double seed = html_rd_num(rd, op, "options", "seed", false); /* null before runs had seeds */
    if (isnan(seed))
        o->seed = OPTIONS_NO_SEED;
    else if (seed >= 0 && seed <= (double)SEED_MAX && seed == floor(seed))
        o->seed = (uint64_t)seed;
    else
        html_rd_fail(rd, "options", "seed", "expected a whole number from 0 to 2^53-1, found %.17g", seed);
    const struct json *h2 = html_rd_of(rd, root, "", "http2", JSON_OBJECT, false);
    if (h2) {
        const char *mode = html_rd_str(rd, h2, "http2", "mode", true, NULL);
        o->http2 = !mode                        ? OPTIONS_H2_ALPN
                   : strcmp(mode, "h2c") == 0    ? OPTIONS_H2C
                   : strcmp(mode, "strict") == 0 ? OPTIONS_H2_STRICT
                                                 : OPTIONS_H2_ALPN;
        o->streams = rd_u32(rd, h2, "http2", "streams", 1);
    }
}

/* "127.0.0.1:8080" or "[::1]:8080" (net_addr_string's form) into a. */
static bool parse_address(const char *s, struct target_addr *a)
{
    char host[64];
    if (strncmp(s, "unix:", 5) == 0 && strlen(s + 5) < sizeof(((struct sockaddr_un *)0)->sun_path)) {
        struct sockaddr_un *un = (void *)&a->sa; /* --unix-socket's "unix:PATH" */
        memset(a, 0, sizeof *a);
        un->sun_family = AF_UNIX;
        memcpy(un->sun_path, s + 5, strlen(s + 5) + 1);
        a->len = sizeof *un;
        return true;
    }
    const char *colon = strrchr(s, ':');
    if (!colon || (size_t)(colon - s) >= sizeof host)
        return false;
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end || port < 0 || port > 65535 || end == colon + 1)
        return false;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    memset(a, 0, sizeof *a);
    size_t hl = strlen(host);
    if (hl > 2 && host[0] == '[' && host[hl - 1] == ']') {
        struct sockaddr_in6 *in6 = (void *)&a->sa;
        host[hl - 1] = '\0';
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        a->len = sizeof *in6;
        return inet_pton(AF_INET6, host + 1, &in6->sin6_addr) == 1;
    }
    struct sockaddr_in *in = (void *)&a->sa;
    in->sin_family = AF_INET;
    in->sin_port = htons((uint16_t)port);
    a->len = sizeof *in;
    return inet_pton(AF_INET, host, &in->sin_addr) == 1;
}

static void load_target(struct html_rd *rd, const struct json *root, struct target *t)
{
    const struct json *tg = html_rd_of(rd, root, "", "target", JSON_OBJECT, true);
    const char *url = tg ? html_rd_str(rd, tg, "target", "url", true, NULL) : NULL;
    const char *addr = tg ? html_rd_str(rd, tg, "target", "address", true, NULL) : NULL;
    if (rd->failed)
        return;
    char err[400];
    if (target_parse(t, url, err, sizeof err) < 0) {
        html_rd_fail(rd, "target", "url", "%s", err);
        return;
    }
    t->addrs = xcalloc(1, sizeof *t->addrs);
    if (!parse_address(addr, &t->addrs[0])) {
        html_rd_fail(rd, "target", "address", "expected ADDRESS:PORT (\"127.0.0.1:80\", \"[::1]:80\")");
        return;
    }
    t->naddrs = 1;
    const char *proxy = html_rd_str(rd, tg, "target", "proxy", false, NULL);
    const char *unix_path = html_rd_str(rd, tg, "target", "unix_socket", false, NULL);
    t->proxy = proxy ? xstrdup(proxy) : NULL;
    t->proxy_addr = t->addrs[0]; /* through a proxy, the address was the proxy's */
    t->unix_path = unix_path ? xstrdup(unix_path) : NULL;
}

/* The errno whose strerror is msg (the JSON's "unreachable"); EIO when
 * none is. */
static int errno_of(const char *msg)
{
    for (int e = 1; e < 256; e++)
        if (strcmp(strerror(e), msg) == 0)
            return e;
    return EIO;
}

static void copy_str(struct html_rd *rd, const struct json *obj, const char *key, char *dst, size_t len)
{
    const char *v = html_rd_str(rd, obj, "tls", key, false, NULL);
    snprintf(dst, len, "%s", v ? v : "");
}

static void load_tls(struct html_rd *rd, const struct json *root, struct run_result *r)
{
    const struct json *tls = html_rd_of(rd, root, "", "tls", JSON_OBJECT, false);
    if (!tls)
        return;
    struct tls_info *i = &r->tls;
    copy_str(rd, tls, "protocol", i->protocol, sizeof i->protocol);
    copy_str(rd, tls, "cipher", i->cipher, sizeof i->cipher);
    copy_str(rd, tls, "group", i->group, sizeof i->group);
    copy_str(rd, tls, "sni", i->sni, sizeof i->sni);
    copy_str(rd, tls, "alpn", i->alpn, sizeof i->alpn);
    r->tls_known = i->protocol[0] != '\0'; /* the probe's handshake: null without one */
}

static void load_workers(struct html_rd *rd, const struct json *root, struct run_result *r)
{
    const struct json *ws = html_rd_of(rd, root, "", "workers", JSON_ARRAY, false);
    size_t n = ws ? ws->len : 0;
    if (n > 100000) {
        html_rd_fail(rd, "", "workers", "more threads than volley runs");
        return;
    }
    r->workers = xcalloc(n ? n : 1, sizeof *r->workers);
    for (size_t i = 0; i < n && !rd->failed; i++) {
        char path[48];
        snprintf(path, sizeof path, "workers[%zu]", i);
        const struct json *w = &ws->items[i];
        if (w->type != JSON_OBJECT) {
            html_rd_fail(rd, path, NULL, "expected an object");
            return;
        }
        /* cpu_ns and wall_ns exactly; an older result's seconds and share */
        double cpu = html_rd_count(rd, w, path, "cpu_ns"), wall = html_rd_count(rd, w, path, "wall_ns");
        if (!json_in_get(w, "cpu_ns")) {
            double busy = html_rd_num(rd, w, path, "busy", false);
            cpu = (double)rd_seconds(rd, w, path, "cpu", 1e7);
            wall = busy > 0 ? cpu / busy : 0;
        }
        r->workers[r->nworkers++] = (struct run_worker){(int64_t)cpu, (int64_t)wall};
    }
}

/* A sum of ns the JSON writes as an integer. */
static uint64_t rd_ns(struct html_rd *rd, const struct json *obj, const char *path, const char *key)
{
    const struct json *v = json_in_get(obj, key);
    if (!rd->failed && (!v || v->type != JSON_NUMBER || !v->integral || v->i < 0)) {
        html_rd_fail(rd, path, key, "expected a whole number of ns from 0");
        return 0;
    }
    return rd->failed ? 0 : (uint64_t)v->i;
}

static void load_conns(struct html_rd *rd, const struct json *root, struct run_result *r)
{
    const struct json *c = html_rd_of(rd, root, "", "connections", JSON_OBJECT, false);
    /* Little's law's sums; a result from before them has its busy figure only. */
    r->little_legacy = !json_in_get(c, "busy_ns");
    if (!r->little_legacy) {
        struct stats *s = &r->stats;
        s->busy_ns = rd_ns(rd, c, "connections", "busy_ns");
        s->flight_ns = rd_ns(rd, c, "connections", "in_flight_ns");
        s->queued_ns = rd_ns(rd, c, "connections", "waiting_ns");
        s->batches = rd_ns(rd, c, "connections", "batches");
    }
    const struct json *resp = c ? html_rd_of(rd, c, "connections", "responses", JSON_OBJECT, false) : NULL;
    if (!resp)
        return;
    struct run_conns *k = &r->saved_conns;
    k->min = (uint64_t)html_rd_count(rd, resp, "connections.responses", "min");
    k->median = (uint64_t)html_rd_count(rd, resp, "connections.responses", "median");
    k->max = (uint64_t)html_rd_count(rd, resp, "connections.responses", "max");
    k->by_median = !json_in_get(resp, "sum"); /* from before the mean */
    k->sum = k->by_median ? 0 : (uint64_t)html_rd_count(rd, resp, "connections.responses", "sum");
    k->starved = rd_u32(rd, c, "connections", "starved", 0);
    k->idle_at_end = rd_u32(rd, c, "connections", "idle_at_end", 0);
    k->n = json_in_get(c, "count") ? rd_u32(rd, c, "connections", "count", 1) : 1;
}

/* us (3 decimals, as the series writes them) back to ns. */
static int64_t rd_us(struct html_rd *rd, const struct json *obj, const char *path, const char *key)
{
    double v = html_rd_num(rd, obj, path, key, false);
    if (isnan(v))
        return 0;
    if (!(v >= 0 && v <= 4e9)) {
        html_rd_fail(rd, path, key, "expected microseconds from 0 to 4e9");
        return 0;
    }
    return (int64_t)llround(v * 1e3);
}

/* A point's {count, p50, p99} under key (the send lag, TTFT, ITL: no
 * histogram per second is saved for them), if it has one; p50 NULL: the
 * point keeps no p50 of it. */
static void read_quantiles(struct html_rd *rd, const struct json *p, const char *path, const char *key,
                           uint64_t *count, int64_t *p50, int64_t *p99)
{
    const struct json *q = html_rd_of(rd, p, path, key, JSON_OBJECT, false);
    if (!q)
        return;
    char sub[64];
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    *count = (uint64_t)html_rd_count(rd, q, sub, "count");
    if (p50)
        *p50 = rd_us(rd, q, sub, "p50");
    *p99 = rd_us(rd, q, sub, "p99");
}

/* last: the point is the series' last, the only one that may cover part
 * of its second ("span", seconds; pt->span_ns, SERIES_NS without). */
static void load_point(struct html_rd *rd, const struct json *p, const char *path, bool last,
                       struct series_point *pt)
{
    pt->c.requests = (uint64_t)html_rd_count(rd, p, path, "requests");
    pt->c.bytes = (uint64_t)html_rd_count(rd, p, path, "bytes");
    pt->c.sent = (uint64_t)html_rd_count(rd, p, path, "sent");
    double span = html_rd_num(rd, p, path, "span", false);
    pt->span_ns = SERIES_NS;
    if (!isnan(span) && !(last && span > 0 && span < 1))
        html_rd_fail(rd, path, "span", last ? "expected seconds above 0 and below 1"
                                            : "only the last point may cover part of a second");
    else if (!isnan(span))
        pt->span_ns = llround(span * 1e9);
    /* --stages: the mean of its 100 ms samples, 10 in a whole second */
    double conns = html_rd_num(rd, p, path, "connections", false);
    if (!isnan(conns) && !(conns >= 0 && conns <= 1e7))
        html_rd_fail(rd, path, "connections", "expected a number from 0");
    pt->c.conn_samples =
        isnan(conns) || rd->failed ? 0 : (uint64_t)llround(conns * 10 * (double)pt->span_ns / 1e9);
    char sub[64];
    const struct json *st = html_rd_of(rd, p, path, "status", JSON_OBJECT, false);
    snprintf(sub, sizeof sub, "%s.status", path);
    for (int k = 0; st && k < SERIES_CLASSES; k++)
        pt->c.status[k] = (uint64_t)html_rd_count(rd, st, sub, series_class_name(k));
    const struct json *er = html_rd_of(rd, p, path, "errors", JSON_OBJECT, false);
    snprintf(sub, sizeof sub, "%s.errors", path);
    for (int k = 0; er && k < SERIES_KINDS; k++)
        pt->c.errors[k] = (uint64_t)html_rd_count(rd, er, sub, stats_error_name(k));
    read_quantiles(rd, p, path, "sendlag", &pt->sendlag_count, &pt->sendlag_p50, &pt->sendlag_p99);
    pt->c.events = (uint64_t)html_rd_count(rd, p, path, "events");
    pt->c.tokens = (uint64_t)html_rd_count(rd, p, path, "tokens");
    pt->c.streams = (uint64_t)html_rd_count(rd, p, path, "streams");
    read_quantiles(rd, p, path, "ttft", &pt->ttft_count, &pt->ttft_p50, &pt->ttft_p99);
    read_quantiles(rd, p, path, "itl", &pt->itl_count, NULL, &pt->itl_p99);
    const struct json *lat = html_rd_of(rd, p, path, "latency", JSON_OBJECT, false);
    snprintf(sub, sizeof sub, "%s.latency", path);
    if (lat) {
        pt->latency_count = (uint64_t)html_rd_count(rd, lat, sub, "count");
        pt->p50 = rd_us(rd, lat, sub, "p50");
        pt->p90 = rd_us(rd, lat, sub, "p90");
        pt->p99 = rd_us(rd, lat, sub, "p99");
        pt->max = rd_us(rd, lat, sub, "max");
        /* kept as text: written again as it was, decoded where drawn */
        pt->hist = (char *)html_rd_str(rd, lat, sub, "hdr", false, NULL);
    }
}

/* Into s, empty (series_init'ed with no recorders). */
static void load_series(struct html_rd *rd, const struct json *root, struct series *s)
{
    const struct json *se = html_rd_of(rd, root, "", "series", JSON_OBJECT, false);
    const struct json *pts = se ? html_rd_of(rd, se, "series", "points", JSON_ARRAY, false) : NULL;
    for (size_t i = 0; pts && i < pts->len && !rd->failed; i++) {
        char path[48];
        snprintf(path, sizeof path, "series.points[%zu]", i);
        const struct json *p = &pts->items[i];
        struct series_point pt = {0};
        if (p->type != JSON_OBJECT)
            html_rd_fail(rd, path, NULL, "expected an object");
        else
            load_point(rd, p, path, i + 1 == pts->len, &pt);
        if (!rd->failed)
            series_append(s, &pt); /* copies the hist text */
        if (!rd->failed && pt.span_ns < SERIES_NS)
            s->end_ns = (int64_t)i * SERIES_NS + pt.span_ns;
    }
}

/* The thresholds: exprs, or the saved ones; parsed and judged on r. */
static int judge(struct html_rd *rd, const struct json *root, const struct threshold_expr *exprs, size_t n,
                 struct options *o, struct run_result *r)
{
    const struct json *saved = html_rd_of(rd, root, "", "thresholds", JSON_ARRAY, false);
    bool mine = n > 0;
    if (!mine)
        n = saved ? saved->len : 0;
    if (rd->failed || n == 0)
        return 0;
    o->threshold_exprs = xcalloc(n, sizeof *o->threshold_exprs);
    for (size_t i = 0; i < n && !rd->failed; i++) {
        char path[48];
        snprintf(path, sizeof path, "thresholds[%zu]", i);
        const struct json *th = mine ? NULL : &saved->items[i];
        if (mine) {
            o->threshold_exprs[i] = exprs[i];
            continue;
        }
        if (th->type != JSON_OBJECT) {
            html_rd_fail(rd, path, NULL, "expected an object");
            break;
        }
        struct threshold_expr *e = &o->threshold_exprs[i];
        e->expr = html_rd_str(rd, th, path, "expr", true, NULL);
        const char *word = html_rd_str(rd, th, path, "word", false, NULL);
        if (word && threshold_word_parse(word, &e->word) < 0)
            html_rd_fail(rd, path, "word", "expected \"threshold\" or \"fail-if\"");
    }
    if (rd->failed)
        return RESULT_RUN_FILE;
    char err[600];
    int parsed = threshold_parse_all(o->threshold_exprs, n, o->rate != 0, &o->thresholds, err, sizeof err);
    if (parsed == 0 && threshold_check_flow(o->thresholds, n, r->stats.flow.on, err, sizeof err) < 0) {
        threshold_free_all(o->thresholds, n); /* a flow's figure on a result that is no flow's */
        o->thresholds = NULL;
        parsed = -1;
    }
    if (parsed < 0) {
        snprintf(rd->err, rd->errlen, "%s%s", mine ? "" : "thresholds: ", err);
        rd->failed = true;
        return mine ? RESULT_RUN_EXPR : RESULT_RUN_FILE;
    }
    o->nthresholds = n;
    r->thresholds = xcalloc(n, sizeof *r->thresholds);
    for (size_t i = 0; i < n; i++) {
        int64_t ns;
        const struct stats *s = report_threshold_stats(r, &o->thresholds[i], &ns);
        threshold_eval(&o->thresholds[i], s, ns, &r->thresholds[i]);
        if (!mine) /* a threshold that stopped the run stopped it */
            r->thresholds[i].aborted = rd_bool(rd, &saved->items[i], "thresholds", "aborted", false);
    }
    return 0;
}

/* "run"'s "missing" of a merged result of n shards (volley merge
 * --partial): the shards not merged, ascending, each below n, fewer than
 * n; absent (a result before --partial) or null: none. */
static void load_missing(struct html_rd *rd, const struct json *run, double n, struct run_result *r)
{
    const struct json *m = html_rd_of(rd, run, "run", "missing", JSON_ARRAY, false);
    if (!m || rd->failed || m->len == 0)
        return;
    if ((double)m->len >= n) {
        html_rd_fail(rd, "run", "missing", "%zu of %.0f shards missing: at least one is merged", m->len, n);
        return;
    }
    r->missing = xcalloc(m->len, sizeof *r->missing);
    for (size_t i = 0; i < m->len && !rd->failed; i++) {
        const struct json *v = &m->items[i];
        if (v->type != JSON_NUMBER || v->num < 0 || v->num >= n || v->num != floor(v->num) ||
            (i && v->num <= r->missing[i - 1]))
            html_rd_fail(rd, "run", "missing", "expected shards below run.shards (%.0f), ascending, each once", n);
        else
            r->missing[r->nmissing++] = (uint32_t)v->num;
    }
}

/* "run": the run id, the shard (null: a merged result), the shards
 * missing from a partial merge and the shared start. A result saved
 * before runs had ids has none: shard 0 of 1. */
static void load_run(struct html_rd *rd, const struct json *root, struct options *o, struct run_result *r)
{
    o->shard = (struct shard){0, 1};
    const struct json *run = html_rd_of(rd, root, "", "run", JSON_OBJECT, false);
    if (!run)
        return;
    const char *id = html_rd_str(rd, run, "run", "id", true, NULL);
    if (id && !shard_id_valid(id))
        html_rd_fail(rd, "run", "id", "not a run id (1 to %d letters, digits, '.', '_' or '-')", SHARD_ID_MAX);
    else if (id)
        snprintf(r->run_id, sizeof r->run_id, "%s", id);
    double n = html_rd_count(rd, run, "run", "shards");
    if (!rd->failed && (n < 1 || n > SHARD_MAX))
        html_rd_fail(rd, "run", "shards", "expected a whole number from 1 to %d", SHARD_MAX);
    const struct json *i = json_in_get(run, "shard");
    if (!rd->failed && i && i->type == JSON_NULL) {
        load_missing(rd, run, n, r);
        r->merged = (uint32_t)n - r->nmissing;
        o->shard = (struct shard){0, (uint32_t)n};
    } else if (!rd->failed) {
        double k = html_rd_count(rd, run, "run", "shard");
        if (!rd->failed && !(k < n))
            html_rd_fail(rd, "run", "shard", "expected a shard below run.shards (%.0f)", n);
        else if (!rd->failed)
            o->shard = (struct shard){(uint32_t)k, (uint32_t)n};
    }
    double at = html_rd_num(rd, run, "run", "start_at", false);
    if (!rd->failed && !isnan(at)) {
        o->start_at = at;
        o->start_at_given = true;
    }
    if (rd->failed)
        o->shard = (struct shard){0, 1};
}

int result_run_load(const struct json *root, const struct threshold_expr *exprs, size_t n, struct result_run *rr,
                    char *err, size_t errlen)
{
    memset(rr, 0, sizeof *rr);
    stats_init(&rr->r.stats);
    series_init(&rr->r.series, NULL, 0);
    struct run_result *r = &rr->r;
    uint64_t rate;
    if (result_load(root, &r->stats, &r->duration_ns, &rate, err, errlen) < 0)
        return RESULT_RUN_FILE;
    struct html_rd rd = {err, errlen, false};
    load_options(&rd, root, &rr->o);
    rr->o.flow = r->stats.flow.on;
    load_run(&rd, root, &rr->o, r);
    load_target(&rd, root, &rr->t);
    r->start_epoch = html_rd_num(&rd, root, "", "start_time", false);
    if (isnan(r->start_epoch))
        r->start_epoch = 0;
    r->interrupted = rd_bool(&rd, root, "", "interrupted", false);
    const char *unreachable = html_rd_str(&rd, root, "", "unreachable", false, NULL);
    r->unreachable = unreachable ? errno_of(unreachable) : 0;
    const struct json *rt = html_rd_of(&rd, root, "", "rate", JSON_OBJECT, false);
    if (rt) {
        double span = html_rd_count(&rd, rt, "rate", "sent_span_ns");
        double sent = html_rd_num(&rd, rt, "rate", "sent_per_sec", false);
        if (!json_in_get(rt, "sent_span_ns") && sent > 0) /* an older result */
            span = (double)r->stats.arrivals * 1e9 / sent;
        if (!(span <= 1e16)) /* a double past int64 would not convert: 1e7 s, as "duration" */
            html_rd_fail(&rd, "rate", "sent_per_sec", "%.17g sent over %.17g a second: more than 1e7 s of sending",
                         (double)r->stats.arrivals, sent);
        else
            r->sent_span_ns = (int64_t)span;
        double due = html_rd_count(&rd, rt, "rate", "due_span_ns"); /* 0 when absent: not known */
        if (!(due <= 1e16))
            html_rd_fail(&rd, "rate", "due_span_ns", "%.17g: more than 1e7 s", due);
        else
            r->due_span_ns = (int64_t)due;
    }
    r->t_end = r->duration_ns;
    load_tls(&rd, root, r);
    load_workers(&rd, root, r);
    load_conns(&rd, root, r);
    load_series(&rd, root, &r->series);
    result_aside_load(&rd, root, r);
    if (!rd.failed && result_load_scenarios(root, r, err, errlen) < 0)
        return RESULT_RUN_FILE;
    return rd.failed ? RESULT_RUN_FILE : judge(&rd, root, exprs, n, &rr->o, r);
}

void result_run_free(struct result_run *rr)
{
    stats_free(&rr->r.stats);
    for (uint32_t i = 0; i < rr->r.nscenarios; i++)
        stats_free(&rr->r.scenarios[i].stats);
    free(rr->r.scenarios);
    series_free(&rr->r.series);
    free(rr->r.workers);
    free(rr->r.thresholds);
    free(rr->r.missing);
    target_free(&rr->t);
    options_free(&rr->o);
    memset(rr, 0, sizeof *rr);
}
