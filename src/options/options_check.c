/* The checks across options, once getopt has read every one of them
 * (options_internal.h), and the settings that follow from several: the
 * body file and -H's framing against it, --stages, a shard's part, -t's
 * default, --threshold and --fail-if, --targets; and the request the command line
 * describes (options_request). */
#include "options.h"
#include "options_internal.h"

#include "field.h"
#include "quote.h"
#include "targets.h"
#include "threshold.h"
#include "xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* -H headers that frame the body must agree with the body volley sends
 * (after -b and --body-file are read): a Content-Length that disagreed
 * would make the server read part of the body as the next request, or the
 * next request as the body. Without a body only 0 is allowed, unless a
 * script builds the requests (wrk.format replaces or drops Content-Length).
 * Transfer-Encoding is refused (field.h). */
static int check_framing(const struct options *o, const char *body_file, char *err, size_t errlen)
{
    char q[256];
    for (size_t i = 0; i < o->nheaders; i++) {
        const char *h = o->headers[i], *v;
        switch (field_framing(h, o->body != NULL, o->body_len, o->script != NULL, &v)) {
        case FIELD_FRAMING_OK:
            continue;
        case FIELD_FRAMING_CHUNKED:
            return options_fail(err, errlen,
                                "%s: \"%s\": volley sends a body with Content-Length, never chunked (a script's request() may "
                                "return a chunked request as a string)",
                                "-H", h);
        case FIELD_FRAMING_NOT_LENGTH:
            return options_fail(err, errlen, "%s Content-Length: \"%s\" is not a length", "-H", v);
        case FIELD_FRAMING_DISAGREES:
            snprintf(err, errlen, "-H Content-Length: %s disagrees with the body's length (%zu bytes from %s)",
                     quote_printable(q, sizeof q, v), o->body_len, body_file ? "--body-file" : "-b");
            return -1;
        case FIELD_FRAMING_NO_BODY:
            snprintf(err, errlen, "-H Content-Length: %s but there is no body (-b or --body-file); only 0 is allowed",
                     quote_printable(q, sizeof q, v));
            return -1;
        }
    }
    return 0;
}

static int read_file(const char *path, const char **data, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        char q[256];
        snprintf(err, errlen, "--body-file: %s: %s", quote_printable(q, sizeof q, path), strerror(errno));
        return -1;
    }
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = xrealloc(buf, cap *= 2);
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        char q[256];
        snprintf(err, errlen, "--body-file: %s: read error", quote_printable(q, sizeof q, path));
        return -1;
    }
    *data = buf;
    *len = n;
    return 0;
}

struct http_request_spec options_request(const struct options *o)
{
    return (struct http_request_spec){
        .method = o->method,
        .user_agent = HTTP_USER_AGENT,
        .headers = o->headers,
        .nheaders = o->nheaders,
        .body = o->body,
        .body_len = o->body_len,
        .http10 = o->http10,
        .keepalive = o->keepalive,
    };
}

/* --targets read and encoded, with -m, -H, -b and the request settings as
 * their defaults; the run's URL becomes their origin. */
static int load_targets(struct options *o, char *err, size_t errlen)
{
    if (o->script) {
        snprintf(err, errlen, "--targets: cannot be combined with -s (a script builds its own requests)");
        return -1;
    }
    struct http_request_spec dflt = options_request(o);
    o->targets = xcalloc(1, sizeof *o->targets);
    if (targets_load(o->targets, o->targets_path, o->url, &dflt, err, errlen) < 0)
        return -1;
    o->ntargets = o->targets->n;
    o->url = o->targets->origin;
    return 0;
}

/* --stages: the curve from -R's or -c's value (0 when not given); with -R
 * the rate's (o->rate becomes its peak), else the connections' (-c
 * becomes its peak). The run lasts the stages. Returns 0, or -1 with err. */
static int apply_stages(struct options *o, bool rate_set, bool connections_set, bool duration_set, char *err,
                        size_t errlen)
{
    const char *why = NULL;
    if (duration_set || o->requests || o->iterations)
        why = "cannot be combined with -d, -n or --iterations (the stages are the run's length)";
    else if (!rate_set && o->http2 != OPTIONS_H1)
        why = "connections that come and go are not there for HTTP/2 yet (a rate, -R with --stages, is)";
    else if (!rate_set && o->one_first)
        why = "cannot be combined with --one-first";
    if (why) {
        snprintf(err, errlen, "--stages: %s", why);
        return -1;
    }
    o->stages = xmalloc(sizeof *o->stages);
    double start = rate_set ? (double)o->rate : connections_set ? (double)o->connections : 0;
    if (stages_parse(o->stages, o->stages_spec, start, err, errlen) < 0)
        return -1;
    double peak = stages_peak(o->stages);
    if (peak < 1 || (!rate_set && peak > 1000000)) {
        snprintf(err, errlen, "--stages: %s", peak < 1 ? "every target is 0: nothing would be sent"
                                                       : "more than 1000000 connections (-c's limit; with -R the "
                                                         "targets are a rate)");
        return -1;
    }
    o->duration_ns = o->stages->total_ns;
    if (rate_set)
        o->rate = (uint64_t)peak;
    else
        o->connections = (uint32_t)peak;
    return 0;
}

const char *options_check_arrivals(const struct options *o)
{
    if (o->arrivals_given && !o->rate)
        return "--arrivals: only with -R (it shapes the open model's arrivals; the closed loop has none)";
    if (arrivals_random(o->arrivals) && o->shard.count > 1 && !o->seed_given)
        return "--arrivals: with --shard every shard needs the same --seed (the shards split one sequence of "
               "arrivals drawn from it)";
    return NULL;
}

enum options_result options_check(struct options *o, struct options_given g, char *err, size_t errlen)
{
    if (g.body_file && read_file(g.body_file, &o->body, &o->body_len, err, errlen) < 0)
        return OPTIONS_ERROR;
    /* A body is sent with POST unless -m says otherwise, as curl's -d is:
     * a GET with a body is seldom what was meant (-m GET still sends one). */
    if (g.body_set && !g.method_set)
        o->method = "POST";
    /* With --targets the headers are checked with each target's body. */
    if (!o->targets_path && check_framing(o, g.body_file, err, errlen) < 0)
        return OPTIONS_ERROR;
    if (o->tls_min && o->tls_max && o->tls_min > o->tls_max)
        return snprintf(err, errlen, "--tls-min 1.%d is above --tls-max 1.%d", o->tls_min - 10, o->tls_max - 10),
               OPTIONS_ERROR;
    if (o->key && !o->cert)
        return options_fail(err, errlen, "%s: needs --cert (the certificate of the key)%s", "--key", ""), OPTIONS_ERROR;
    if (o->cacert && !o->verify)
        o->verify = true; /* a CA file is only given to verify against */
    if (o->stages_spec) {
        if (apply_stages(o, g.rate_set, g.connections_set, g.duration_set, err, errlen) < 0)
            return OPTIONS_ERROR;
        g.duration_set = true;
    } else if (g.rate_set && o->rate == 0) {
        snprintf(err, errlen, "-R: 0 only with --stages (a rate that ramps up from nothing)");
        return OPTIONS_ERROR;
    }
    /* A Unix socket is a path on this machine: no local address to bind,
     * no proxy between (curl goes past a proxy with --unix-socket too). */
    if (o->unix_socket && o->sources)
        return options_fail(err, errlen, "%s: cannot be combined with --source (a Unix socket has no source address)%s",
                            "--unix-socket", ""), OPTIONS_ERROR;
    if (o->unix_socket && o->proxy && *o->proxy)
        return options_fail(err, errlen, "%s: cannot be combined with --unix-socket (connections go to the socket)%s",
                            "--proxy", ""), OPTIONS_ERROR;
    if (o->requests && o->iterations)
        return options_fail(err, errlen, "%s: cannot be combined with -n (a flow counts iterations, other scripts requests)%s",
                            "--iterations", ""), OPTIONS_ERROR;
    if (o->iterations && !o->script)
        return options_fail(err, errlen, "%s: needs a flow (-s with a scenario that defines user(u))%s", "--iterations", ""),
               OPTIONS_ERROR;
    o->duration_given = g.duration_set;
    o->connections_given = g.connections_set;
    if (!g.duration_set && o->requests == 0 && o->iterations == 0)
        o->duration_ns = INT64_C(10) * 1000000000;
    /* -c and -n stay the run's; a shard holds and makes its part of them. */
    uint32_t conns = (uint32_t)shard_part(o->connections, o->shard);
    uint64_t bound = o->requests ? o->requests : o->iterations;
    uint64_t requests = bound ? shard_part(bound, o->shard) : 0;
    if (conns == 0 || (bound && requests == 0)) {
        snprintf(err, errlen, "--shard %u/%u: %s %" PRIu64 " leaves this shard none (give at least one for each of the %u shards)",
                 o->shard.index, o->shard.count, conns == 0 ? "-c" : o->requests ? "-n" : "--iterations",
                 conns == 0 ? (uint64_t)o->connections : bound, o->shard.count);
        return OPTIONS_ERROR;
    }
    if (g.threads_set) {
        if (o->threads > conns) {
            if (o->shard.count > 1)
                snprintf(err, errlen, "-t: %u threads need at least as many connections (--shard %u/%u holds %u of -c %u)",
                         o->threads, o->shard.index, o->shard.count, conns, o->connections);
            else
                snprintf(err, errlen, "-t: %u threads need at least as many connections (-c is %u)", o->threads,
                         o->connections);
            return OPTIONS_ERROR;
        }
    } else {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        o->threads = cpus > 0 ? (uint32_t)cpus : 1;
        if (o->threads > conns)
            o->threads = conns;
    }
    if (requests && o->threads > requests)
        o->threads = (uint32_t)requests;
    /* A request is on one connection: -n N opens at most N of them, and
     * the reports count those (a curve of --stages sets its own). */
    if (bound && o->connections > bound && !o->stages)
        o->connections = (uint32_t)bound;
    if (o->rate && o->one_first) {
        snprintf(err, errlen, "--one-first: cannot be combined with -R (the schedule decides when requests start)");
        return OPTIONS_ERROR;
    }
    /* With a script, its options() may give -R: main.c checks after it. */
    if (o->spin_ns && !o->rate && !o->script) {
        snprintf(err, errlen, "%s", OPTIONS_SPIN_NEEDS_RATE);
        return OPTIONS_ERROR;
    }
    const char *why = o->script ? NULL : options_check_arrivals(o);
    if (why) {
        snprintf(err, errlen, "%s", why);
        return OPTIONS_ERROR;
    }
    if (o->http10 && o->keepalive)
        o->keepalive = false; /* HTTP/1.0 without a Keep-Alive header closes after each response */
    if (threshold_parse_all(o->threshold_exprs, o->nthresholds, o->rate != 0, &o->thresholds, err, errlen) < 0)
        return OPTIONS_ERROR;
    if (g.order_set && !o->targets_path)
        return options_fail(err, errlen, "%s: only with --targets%s", "--targets-order", ""), OPTIONS_ERROR;
    if (o->targets_path && load_targets(o, err, errlen) < 0)
        return OPTIONS_ERROR;
    return OPTIONS_RUN;
}
