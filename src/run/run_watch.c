/* The watch over the workers' calls into Lua (run_watch.h): each look
 * compares a worker's call count (script_busy) with the one seen before,
 * so a call is timed from the look that first saw it, within a look's
 * period of its start. --yield-timeout counts the worker thread's CPU time,
 * not the wall clock's: a loaded machine that leaves the thread waiting
 * for a core must not fail a user that did not run (the wall clock decides
 * only when a stopping run gives up waiting). */
#include "run_watch.h"

#include "script.h"
#include "xalloc.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct run_watch_slot {
    uint64_t call;        /* the call under way (odd), or 0: none */
    int64_t since;        /* when a look first saw it (monotonic ns) */
    int64_t cpu_since;    /* the worker thread's CPU time then (ns), or -1: unknown */
    bool interrupted;     /* script_interrupt was sent for it */
    bool parking;         /* script_park was asked (for this or an earlier call) */
    bool abandoned;
};

void run_watch_init(struct run_watch *rw, uint32_t nworkers)
{
    rw->slots = xcalloc(nworkers ? nworkers : 1, sizeof *rw->slots);
    rw->abandoned = 0;
}

double run_watch_every(int64_t bound_ns)
{
    double every = bound_ns ? (double)bound_ns / 4e9 : 0.05;
    return every < 0.005 ? 0.005 : every > 0.05 ? 0.05 : every;
}

void run_watch_free(struct run_watch *rw)
{
    free(rw->slots);
    rw->slots = NULL;
}

bool run_watch_abandoned(const struct run_watch *rw, uint32_t i)
{
    return rw->slots[i].abandoned;
}

/* The CPU time (ns) of worker w's thread so far, or -1. */
static int64_t thread_cpu(const struct worker *w)
{
    clockid_t id;
    struct timespec ts;
    if (pthread_getcpuclockid(w->thread, &id) != 0 || clock_gettime(id, &ts) != 0)
        return -1;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void abandon(struct run_watch *rw, uint32_t i, int64_t now)
{
    rw->slots[i].abandoned = true;
    rw->abandoned++;
    fprintf(stderr, "volley: thread %u is stuck in its script (one call has run %.1fs); the report leaves it "
            "out from that call on\n", i + 1, (double)(now - rw->slots[i].since) / 1e9);
}

bool run_watch_look(struct run_watch *rw, struct worker *workers, uint32_t n, int64_t bound_ns, int64_t stop_ns,
                    int64_t now)
{
    bool left = false;
    for (uint32_t i = 0; i < n; i++) {
        struct script *s = workers[i].script;
        struct run_watch_slot *w = &rw->slots[i];
        if (!s || w->abandoned)
            continue;
        /* Asked to park, it left the call first and parked at a later one. */
        if (w->parking && script_parked(s)) {
            abandon(rw, i, now);
            left = true;
            continue;
        }
        uint64_t call = script_busy(s);
        if (!(call & 1)) {
            w->call = 0;
            continue;
        }
        if (call != w->call) {
            *w = (struct run_watch_slot){.call = call, .since = now, .cpu_since = bound_ns ? thread_cpu(&workers[i]) : -1,
                                         .parking = w->parking};
            continue;
        }
        int64_t cpu = bound_ns && !w->interrupted && w->cpu_since >= 0 ? thread_cpu(&workers[i]) : -1;
        if (cpu >= 0 && cpu - w->cpu_since >= bound_ns && script_in_user(s)) {
            script_interrupt(s, call, bound_ns);
            w->interrupted = pthread_kill(workers[i].thread, SCRIPT_GUARD_SIGNAL) == 0;
        }
        if (stop_ns && now - stop_ns >= RUN_WATCH_ABANDON_NS && now - w->since >= RUN_WATCH_ABANDON_NS) {
            w->parking = true;
            if (script_park(s, call)) {
                abandon(rw, i, now);
                left = true;
            }
        }
    }
    return left;
}
