/* Does the run add up, and was the server or volley the limit? Little's law
 * (a sum of times over the run's duration is a mean count: the connections
 * that were busy, the requests in flight, with -R those waiting for a
 * connection), the responses each connection got (a server that serves
 * only some connections starves the others, and nobody else says so), and
 * each worker thread's CPU time (a thread busy nearly all the run means the
 * figures may be volley's limit). */
#include "report_internal.h"

#include "json_out.h"

#include <inttypes.h>
#include <stdlib.h>

/* A worker busier than this share of its run: the load may be volley's limit. */
#define BUSY_LIMIT 0.9
/* Runs shorter than this are not judged (start-up dominates them). */
#define JUDGE_NS (2 * SERIES_NS)

struct health {
    double busy;           /* connections busy on average (Little's law over batches) */
    double in_flight;      /* requests in flight on a connection on average */
    double waiting;        /* -R: requests waiting for a free connection on average */
    double batch;          /* requests a batch on average: 1 without pipelining */
    bool legacy;           /* a result from before these sums: busy alone, the old way */
    bool per_conn;         /* the per-connection figures below are set */
    uint32_t nconns;       /* connection slots */
    uint64_t min, median, max;
    uint64_t sum;          /* responses over all connection slots */
    double mean;           /* responses a connection on average: sum / nconns */
    bool by_median;        /* a result from before the mean: starved is against the median */
    uint32_t starved;      /* connections with less than a tenth of the mean's responses */
    uint32_t idle_at_end;  /* connections without a response in the last window */
    int64_t window_ns;     /* that window: a tenth of the run, at least a second */
    double worst_busy;     /* the busiest worker's CPU share */
    uint32_t worst;        /* and which one */
    bool lag_known;        /* -R, long enough: the two below are set */
    int64_t lag_early, lag_late; /* send lag p50: the median second of the first and of the last quarter */
};

/* -R: the send lag grew this many times from the run's first quarter to its
 * last, and to at least LAG_FLOOR_NS: volley fell behind its schedule. The
 * median (p50) of each second, not its tail: a scheduling hiccup of a
 * loaded machine moves a second's p99, falling behind moves every send. */
#define LAG_GROWTH 4
#define LAG_FLOOR_NS 5000000

/* The median of the per-second send lag p50 over points [from, to) that
 * had any; -1 when none had. */
static int64_t lag_median(const struct series *s, size_t from, size_t to)
{
    int64_t v[64];
    size_t n = 0;
    for (size_t i = from; i < to && n < 64; i++) {
        struct series_point p;
        if (series_point_get(s, i, &p, NULL, NULL) == 0 && p.sendlag_count)
            v[n++] = p.sendlag_p50;
    }
    if (n == 0)
        return -1;
    for (size_t i = 1; i < n; i++) /* n <= 64: insertion sort */
        for (size_t k = i; k > 0 && v[k - 1] > v[k]; k--) {
            int64_t t = v[k];
            v[k] = v[k - 1];
            v[k - 1] = t;
        }
    return v[n / 2];
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Little's law: a sum of times (ns) over the run's duration. */
static double mean_count(uint64_t sum_ns, int64_t duration_ns)
{
    return duration_ns > 0 ? (double)sum_ns / (double)duration_ns : 0;
}

static void compute(const struct options *o, const struct run_result *r, struct health *h)
{
    const struct stats *s = &r->stats;
    double secs = (double)r->duration_ns / 1e9;
    *h = (struct health){0};
    h->legacy = r->little_legacy;
    if (h->legacy) { /* completed requests/s x their mean latency, as it was written */
        h->busy = secs > 0 && s->completed ? (double)s->completed / secs * hist_mean(&s->latency) / 1e9 : 0;
        h->in_flight = h->busy;
        h->batch = 1;
    } else {
        h->busy = mean_count(s->busy_ns, r->duration_ns);
        h->in_flight = mean_count(s->flight_ns, r->duration_ns);
        h->waiting = mean_count(s->queued_ns, r->duration_ns);
        h->batch = s->batches ? (double)s->started / (double)s->batches : 1;
    }
    for (uint32_t i = 0; i < r->nworkers; i++) {
        const struct run_worker *w = &r->workers[i];
        double b = w->wall_ns > 0 ? (double)w->cpu_ns / (double)w->wall_ns : 0;
        if (b > h->worst_busy)
            h->worst_busy = b, h->worst = i;
    }
    const struct series *se = &r->series;
    if (o->rate && se->npoints >= 4) {
        size_t q = se->npoints / 4;
        h->lag_early = lag_median(se, 0, q);
        h->lag_late = lag_median(se, se->npoints - q, se->npoints);
        h->lag_known = h->lag_early >= 0 && h->lag_late >= 0;
    }
    h->window_ns = r->duration_ns / 10 > SERIES_NS ? r->duration_ns / 10 : SERIES_NS;
    if (r->nscenarios)
        return; /* users of several scenarios run different loads over different spans: not compared */
    if (s->nslots == 0 && r->saved_conns.n) { /* a saved result read back */
        const struct run_conns *c = &r->saved_conns;
        h->per_conn = true;
        h->nconns = c->n, h->min = c->min, h->median = c->median, h->max = c->max;
        h->sum = c->sum, h->mean = (double)c->sum / c->n, h->by_median = c->by_median;
        h->starved = c->starved, h->idle_at_end = c->idle_at_end;
        return;
    }
    if (s->nslots == 0)
        return;
    h->nconns = s->nslots;
    uint64_t *done = malloc(s->nslots * sizeof *done);
    if (!done)
        return;
    uint64_t sum = 0; /* a run's own counts: far from 2^64 */
    for (uint32_t i = 0; i < s->nslots; i++)
        sum += done[i] = s->slots[i].done;
    qsort(done, s->nslots, sizeof *done, cmp_u64);
    h->per_conn = true;
    h->min = done[0];
    h->median = done[s->nslots / 2]; /* the upper median: half of them got at least this */
    h->max = done[s->nslots - 1];
    h->sum = sum;
    h->mean = (double)sum / s->nslots;
    free(done);
    for (uint32_t i = 0; i < s->nslots; i++) {
        const struct stats_slot *sl = &s->slots[i];
        /* Against the mean, which at least one connection reaches: the
         * median is 0 once most connections starve, and a tenth of it
         * then marks none of them. */
        if ((unsigned __int128)sl->done * 10 * s->nslots < sum)
            h->starved++;
        if (sl->last == 0 || sl->last < r->t_end - h->window_ns)
            h->idle_at_end++;
    }
}

static bool lag_grew(const struct health *h)
{
    return h->lag_known && h->lag_late >= LAG_FLOOR_NS && h->lag_late > LAG_GROWTH * h->lag_early;
}

/* Whether the connection figures are worth a warning: a closed loop (in
 * the open model connections are handed arrivals as they are free, so
 * uneven use is normal; with --stages the curve retires connections) that ran long enough to judge. */
static bool judged(const struct options *o, const struct run_result *r, const struct health *h)
{
    return h->per_conn && !o->rate && !o->stages && h->nconns >= 2 && r->duration_ns >= JUDGE_NS && !r->interrupted &&
           h->max >= 20;
}

/* Each stream slot of an HTTP/2 connection holds a request, each HTTP/1.1
 * connection one: streams are the measure only when connections spoke
 * HTTP/2 (with some that fell back to HTTP/1.1 there is no one capacity,
 * and the callers print requests in flight), connections when none did
 * (--http2 to a server that chose HTTP/1.1). */
static bool streams_measure(const struct options *o, const struct run_result *r)
{
    return o->http2 != OPTIONS_H1 && o->streams > 1 && r->stats.h2_connections > 0;
}

/* The Little's law line of a result from before its sums, as it was. */
static void legacy_text(FILE *out, const struct options *o, const struct run_result *r, const struct health *h)
{
    if (o->rate || (streams_measure(o, r) && r->stats.h1_fallbacks))
        fprintf(out, "  In flight: %.1f on average (requests/s x mean latency)\n", h->busy);
    else if (streams_measure(o, r))
        fprintf(out, "  Busy streams: %.1f of %" PRIu64 " (requests/s x mean latency)\n", h->busy,
                (uint64_t)report_connections(o, r) * o->streams);
    else
        fprintf(out, "  Busy connections: %.1f of %u (requests/s x mean latency)\n", h->busy, report_connections(o, r));
}

/* Little's law over every answered request (completed or failed by the
 * script): what the connections were doing on average. */
static void little_text(FILE *out, const struct options *o, const struct run_result *r, const struct health *h)
{
    uint32_t conns = report_connections(o, r);
    bool pipelined = h->batch > 1.0005;
    if (r->stats.flow.on) {
        /* A flow's users wait between requests (think time) and batch on
         * several connections each: no one capacity to hold it against. */
        fprintf(out, "  In flight: %.1f requests on average, over %u user%s (requests/s x mean latency)\n",
                h->in_flight, conns, conns == 1 ? "" : "s");
    } else if (o->rate) {
        fprintf(out, "  In flight: %.1f on average on %u connection%s", h->in_flight, conns, conns == 1 ? "" : "s");
        if (pipelined)
            fprintf(out, " (%.1f busy, in batches of %.1f pipelined requests)", h->busy, h->batch);
        fprintf(out, ", %.1f more waiting for a free one (requests/s x mean time on a connection, and before it)\n",
                h->waiting);
    } else if (streams_measure(o, r) && r->stats.h1_fallbacks) {
        fprintf(out, "  In flight: %.1f on average (requests/s x mean latency)\n", h->in_flight);
    } else if (streams_measure(o, r)) { /* each stream slot holds a request */
        fprintf(out, "  Busy streams: %.1f of %" PRIu64 " (requests/s x mean latency)\n", h->in_flight,
                (uint64_t)conns * o->streams);
    } else if (pipelined) {
        fprintf(out,
                "  Busy connections: %.1f of %u (batches/s x mean batch time), each batch %.1f pipelined requests: "
                "%.1f requests in flight on average\n",
                h->busy, conns, h->batch, h->in_flight);
    } else {
        fprintf(out, "  Busy connections: %.1f of %u (requests/s x mean latency)\n", h->busy, conns);
    }
}

void report_health_text(FILE *out, const struct options *o, const struct run_result *r)
{
    struct health h;
    compute(o, r, &h);
    if (h.legacy && r->stats.completed)
        legacy_text(out, o, r, &h);
    else if (!h.legacy && (r->stats.busy_ns || r->stats.flight_ns))
        little_text(out, o, r, &h);
    if (o->verbose && h.per_conn && h.by_median)
        fprintf(out, "  Responses per connection: min %" PRIu64 ", median %" PRIu64 ", max %" PRIu64 "\n", h.min,
                h.median, h.max);
    else if (o->verbose && h.per_conn)
        fprintf(out, "  Responses per connection: min %" PRIu64 ", median %" PRIu64 ", mean %.1f, max %" PRIu64 "\n",
                h.min, h.median, h.mean, h.max);
    if (judged(o, r, &h) && (h.starved || h.idle_at_end)) {
        fprintf(out, "  Warning: the server served only some connections:");
        if (h.starved && h.by_median)
            fprintf(out, " %u of %u got less than a tenth of the median's responses (%" PRIu64 ")%s", h.starved,
                    h.nconns, h.median, h.idle_at_end ? ";" : "");
        else if (h.starved)
            fprintf(out, " %u of %u got less than a tenth of the mean's responses (%.1f)%s", h.starved, h.nconns,
                    h.mean, h.idle_at_end ? ";" : "");
        if (h.idle_at_end)
            fprintf(out, " %u of %u got no response in the last %.1fs", h.idle_at_end, h.nconns,
                    (double)h.window_ns / 1e9);
        fprintf(out, "\n");
    }
    if (lag_grew(&h)) {
        char a[32], b[32];
        fprintf(out,
                "  Warning: the send lag grew during the run (p50 %s in its first quarter, %s in its last): volley "
                "fell behind the schedule, and these figures may show its limit (more threads, -t, or more "
                "machines)\n",
                fmt_time(a, sizeof a, (double)h.lag_early), fmt_time(b, sizeof b, (double)h.lag_late));
    }
    if (h.worst_busy >= BUSY_LIMIT && r->duration_ns >= JUDGE_NS)
        fprintf(out,
                "  Warning: volley's thread %u was busy %.0f%% of the run: these figures may show volley's limit, "
                "not the server's (more threads, -t, or more machines)\n",
                h.worst, h.worst_busy * 100);
}

void report_health_json(FILE *out, const struct options *o, const struct run_result *r)
{
    struct health h;
    compute(o, r, &h);
    fprintf(out, "  \"connections\": {\"busy\": ");
    json_out_num(out, h.busy, 3);
    if (!h.legacy) {
        const struct stats *s = &r->stats;
        fprintf(out, ", \"in_flight\": ");
        json_out_num(out, h.in_flight, 3);
        fprintf(out, ", \"waiting\": ");
        json_out_num(out, h.waiting, 3);
        fprintf(out, ", \"batch\": ");
        json_out_num(out, h.batch, 3);
        fprintf(out,
                ", \"busy_ns\": %" PRIu64 ", \"in_flight_ns\": %" PRIu64 ", \"waiting_ns\": %" PRIu64
                ", \"batches\": %" PRIu64,
                s->busy_ns, s->flight_ns, s->queued_ns, s->batches);
    }
    if (h.per_conn) {
        fprintf(out, ", \"count\": %u, \"responses\": {\"min\": %" PRIu64 ", \"median\": %" PRIu64, h.nconns, h.min,
                h.median);
        if (!h.by_median) {
            fprintf(out, ", \"mean\": ");
            json_out_num(out, h.mean, 3);
            fprintf(out, ", \"sum\": %" PRIu64, h.sum);
        }
        fprintf(out, ", \"max\": %" PRIu64 "}, \"starved\": %u, \"idle_at_end\": %u, \"idle_window\": ", h.max,
                h.starved, h.idle_at_end);
        json_out_num(out, (double)h.window_ns / 1e9, 3);
        fprintf(out, ", \"warning\": %s", judged(o, r, &h) && (h.starved || h.idle_at_end) ? "true" : "false");
    }
    fprintf(out, "},\n");
    if (h.lag_known) {
        fprintf(out, "  \"sendlag_trend\": {\"early_p50\": ");
        json_out_num(out, (double)h.lag_early / 1e3, 3);
        fprintf(out, ", \"late_p50\": ");
        json_out_num(out, (double)h.lag_late / 1e3, 3);
        fprintf(out, ", \"grew\": %s},\n", lag_grew(&h) ? "true" : "false");
    }
    fprintf(out, "  \"workers\": [");
    for (uint32_t i = 0; i < r->nworkers; i++) {
        const struct run_worker *w = &r->workers[i];
        fprintf(out, "%s{\"cpu\": ", i ? ", " : "");
        json_out_num(out, (double)w->cpu_ns / 1e9, 6);
        fprintf(out, ", \"busy\": ");
        json_out_num(out, w->wall_ns > 0 ? (double)w->cpu_ns / (double)w->wall_ns : 0, 3);
        fprintf(out, ", \"cpu_ns\": %" PRId64 ", \"wall_ns\": %" PRId64 "}", w->cpu_ns, w->wall_ns);
    }
    fprintf(out, "],\n");
}
