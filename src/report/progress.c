/* The live progress line; see progress.h. */
#include "progress.h"

#include "fmt.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#define BAR_WIDTH 20
#define LINE_EVERY_NS (10 * SERIES_NS)

void progress_init(struct progress *p, const struct options *o, FILE *out, bool tty, bool no_color)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->o = o;
    p->next_line_ns = LINE_EVERY_NS;
    if (o->quiet || o->progress == OPTIONS_PROGRESS_NONE)
        p->mode = PROGRESS_OFF;
    else if (o->progress == OPTIONS_PROGRESS_LINES)
        p->mode = PROGRESS_LINES;
    else if (o->progress == OPTIONS_PROGRESS_BAR)
        p->mode = PROGRESS_BAR; /* asked for: a terminal that does not say it is one */
    else
        p->mode = tty ? PROGRESS_BAR : PROGRESS_OFF; /* auto: a bar only on a terminal */
    p->color = p->mode == PROGRESS_BAR && tty && !no_color;
}

static uint64_t errors_of(const struct series_counts *c)
{
    uint64_t n = 0;
    for (int e = 0; e < SERIES_KINDS; e++)
        n += c->errors[e];
    return n;
}

/* A flow's iterations ended so far (completed or failed). */
static uint64_t iterations_ended(const struct series *s)
{
    uint64_t done, failed;
    series_iterations(s, &done, &failed);
    return done + failed;
}

/* How far the run is, 0..1, and "3.2s/10s" or "1234/5000" (requests, or
 * a flow's iterations) into buf. */
static double how_far(const struct progress *p, const struct series *s, int64_t elapsed_ns, char *buf, size_t len)
{
    const struct options *o = p->o;
    uint64_t units = o->flow ? o->iterations : o->requests; /* -n's or --iterations' bound */
    if (units && !o->rate) {
        uint64_t ended = o->flow ? iterations_ended(s) : series_ended(s);
        uint64_t mine = shard_part(units, o->shard); /* a shard's part */
        snprintf(buf, len, "%" PRIu64 "/%" PRIu64, ended, mine);
        return (double)ended / (double)mine;
    }
    int64_t total = o->duration_ns ? o->duration_ns
                    : o->rate      ? (int64_t)((double)units * 1e9 / (double)o->rate)
                                   : 0;
    if (total)
        snprintf(buf, len, "%.1fs/%.0fs", (double)elapsed_ns / 1e9, (double)total / 1e9);
    else
        snprintf(buf, len, "%.1fs", (double)elapsed_ns / 1e9);
    return total ? (double)elapsed_ns / (double)total : 0;
}

/* The latest complete second, or NULL before the first. */
static const struct series_point *last_second(const struct series *s)
{
    return s->npoints ? &s->last : NULL;
}

/* "12345 req/s (target 20000)  errors 3  p50 1.2ms  p99 4.5ms": the rate
 * given (rps < 0: none yet), the errors so far, the last second's
 * percentiles; once streams were seen, the last second's events and
 * tokens after the rate ("812 ev/s  640 tok/s"); a flow's iterations so
 * far ("iterations 120 done, 3 failed"). */
static void figures(const struct progress *p, const struct series *s, double rps, int64_t elapsed_ns, size_t holding,
                    size_t nth, char *buf, size_t len)
{
    const struct series_point *pt = last_second(s);
    char p50[32], p99[32];
    uint64_t errors = errors_of(&s->total);
    int n = rps < 0 ? snprintf(buf, len, "- req/s") : snprintf(buf, len, "%.0f req/s", rps);
    const struct stages *st = p->o->stages; /* the curve's target now */
    if (p->o->rate && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " (target %.0f)",
                      shard_rate(st ? stages_value(st, elapsed_ns) : (double)p->o->rate, p->o->shard));
    else if (st && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "  connections %.0f", floor(stages_value(st, elapsed_ns)));
    /* streams seen so far: the last second's events (and tokens, when marked) */
    if (s->total.events && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "  %" PRIu64 " ev/s", pt ? pt->c.events : 0);
    if (s->total.tokens && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "  %" PRIu64 " tok/s", pt ? pt->c.tokens : 0);
    if (p->o->flow && n >= 0 && (size_t)n < len) {
        uint64_t done, failed;
        series_iterations(s, &done, &failed);
        n += snprintf(buf + n, len - (size_t)n, "  iterations %" PRIu64 " done, %s%" PRIu64 " failed%s", done,
                      p->color && failed ? "\033[31m" : "", failed, p->color && failed ? "\033[0m" : "");
    }
    if (n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "  %serrors %" PRIu64 "%s", p->color && errors ? "\033[31m" : "",
                      errors, p->color && errors ? "\033[0m" : "");
    if (pt && pt->latency_count && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "  p50 %s  p99 %s", fmt_time(p50, sizeof p50, (double)pt->p50),
                      fmt_time(p99, sizeof p99, (double)pt->p99));
    bool broken = holding < nth;
    if (nth && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "  %sthresholds %zu/%zu pass%s", p->color && broken ? "\033[31m" : "",
                 holding, nth, p->color && broken ? "\033[0m" : "");
}

void progress_update(struct progress *p, const struct series *s, int64_t elapsed_ns, size_t holding,
                     size_t nthresholds)
{
    char where[64], figs[256];
    if (p->mode == PROGRESS_BAR) {
        const struct series_point *pt = last_second(s);
        double done = how_far(p, s, elapsed_ns, where, sizeof where);
        if (done > 1)
            done = 1;
        /* before the first whole second: the rate so far */
        double rps = pt ? (double)pt->c.requests
                     : elapsed_ns > 0 ? (double)series_ended(s) * 1e9 / (double)elapsed_ns
                                      : -1;
        figures(p, s, rps, elapsed_ns, holding, nthresholds, figs, sizeof figs);
        char bar[BAR_WIDTH + 1];
        int full = (int)(done * BAR_WIDTH);
        for (int i = 0; i < BAR_WIDTH; i++)
            bar[i] = i < full ? '=' : i == full ? '>' : ' ';
        bar[BAR_WIDTH] = '\0';
        /* \r and erase to the end of the line: the line redrawn in place */
        fprintf(p->out, "\r%s [%s] %s\033[K", where, bar, figs);
        fflush(p->out);
        p->drawn = true;
    } else if (p->mode == PROGRESS_LINES && elapsed_ns >= p->next_line_ns) {
        /* requests per second over the last 10 complete seconds */
        uint64_t n = 0;
        size_t k = 0;
        for (; k < 10 && k < s->npoints; k++) {
            struct series_point pt;
            series_point_get(s, s->npoints - 1 - k, &pt, NULL, NULL); /* empty if it cannot be read */
            n += pt.c.requests;
        }
        how_far(p, s, elapsed_ns, where, sizeof where);
        figures(p, s, k ? (double)n / (double)k : -1, elapsed_ns, holding, nthresholds, figs, sizeof figs);
        fprintf(p->out, "volley: %s  %s\n", where, figs);
        fflush(p->out);
        while (p->next_line_ns <= elapsed_ns)
            p->next_line_ns += LINE_EVERY_NS;
    }
}

void progress_end(struct progress *p)
{
    if (p->mode == PROGRESS_BAR && p->drawn) {
        fputs("\r\033[K", p->out);
        fflush(p->out);
        p->drawn = false;
    }
}
