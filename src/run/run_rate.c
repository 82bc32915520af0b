/* -R's figures of a run (run.c): how many arrivals its schedule holds, and
 * once it has ended, from its merged stats, the length it lasted at least
 * and the spans its rates are judged over (sent and due). */
#include "run_internal.h"

#include "arrivals.h"
#include "schedule.h"

uint64_t run_rate_arrivals(const struct options *o, uint64_t units)
{
    if (!o->rate)
        return 0;
    /* A random process's count by -d is not known before it is drawn:
     * the schedule's end (sched_end) bounds it instead. */
    if (arrivals_random(o->arrivals))
        return units ? units : UINT64_MAX;
    return o->stages ? stages_arrivals(o->stages) : sched_total(o->rate, units, o->duration_ns);
}

/* -R: the time the arrivals sent went out over. With arrivals never sent,
 * the run's (at most -d); else through the last arrival's own interval, or
 * later when it went out late (a server or a pool too slow for the rate). */
static int64_t sent_span(const struct options *o, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    if (!o->rate || s->arrivals == 0)
        return 0;
    if (s->unsent > 0) {
        int64_t span = r->t_end - r->t0;
        return o->duration_ns && span > o->duration_ns ? o->duration_ns : span;
    }
    int64_t due_end = s->last_due + (int64_t)(1e9 / (double)o->rate);
    return (s->last_send > due_end ? s->last_send : due_end) - r->t0;
}

/* -R: the time the arrivals handed out were due over: sent_span without
 * the lateness (the last arrival's own interval, 1 / rate on average). */
static int64_t due_span(const struct options *o, const struct run_result *r)
{
    const struct stats *s = &r->stats;
    if (!o->rate || s->arrivals == 0)
        return 0;
    if (s->unsent > 0)
        return sent_span(o, r);
    return s->last_due + (int64_t)(1e9 / (double)o->rate) - r->t0;
}

void run_rate_finish(const struct options *o, uint64_t arrivals, uint64_t units, bool early, struct run_result *res)
{
    if (!o->rate)
        return;
    /* The run lasts at least its schedule's span, which the last arrival's
     * answer may beat: -d when -d bounds the schedule, else the end of the
     * last arrival's own interval (-n N: N / rate; a random process's
     * through its last one's mean gap). */
    if (!early) {
        const struct stats *s = &res->stats;
        bool by_d;
        int64_t span;
        if (arrivals_random(o->arrivals)) {
            by_d = o->duration_ns && (!units || s->arrivals + s->unsent < units);
            span = by_d ? o->duration_ns : s->arrivals ? s->last_due - res->t0 + (int64_t)(1e9 / (double)o->rate) : 0;
        } else {
            by_d = o->duration_ns && (o->stages || arrivals == sched_total(o->rate, 0, o->duration_ns));
            span = by_d ? o->duration_ns : (int64_t)((double)arrivals * 1e9 / (double)o->rate);
        }
        if (res->duration_ns < span)
            res->duration_ns = span;
    }
    res->sent_span_ns = sent_span(o, res);
    res->due_span_ns = due_span(o, res);
}
