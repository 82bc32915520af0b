/* The run's watch over its workers' calls into Lua (script_guard.c): a
 * flow user that runs past --yield-timeout without yielding is
 * interrupted; once the run is stopping, a call that has not returned
 * RUN_WATCH_ABANDON_NS after the stop is left behind, so that -d and the
 * first Ctrl-C always end a run with its report. Main thread only. */
#ifndef VOLLEY_RUN_WATCH_H
#define VOLLEY_RUN_WATCH_H

#include "worker.h"

#include <stdbool.h>
#include <stdint.h>

#define RUN_WATCH_ABANDON_NS INT64_C(1000000000)

struct run_watch_slot;

struct run_watch {
    struct run_watch_slot *slots; /* per worker */
    uint32_t abandoned;           /* workers left behind (read-only to callers) */
};

void run_watch_init(struct run_watch *rw, uint32_t nworkers);

/* Seconds between looks for a bound of bound_ns (0: none): a quarter of
 * it, within 5-50 ms. */
double run_watch_every(int64_t bound_ns);
void run_watch_free(struct run_watch *rw);

/* One look at workers[0..n) at now: interrupts a flow user that has run
 * bound_ns (0: none is) without yielding, and with stop_ns (when the run
 * was asked to stop; 0: it was not) leaves behind a worker whose call has
 * not returned RUN_WATCH_ABANDON_NS after it, with one stderr line.
 * Returns true when it left one behind at this look. */
bool run_watch_look(struct run_watch *rw, struct worker *workers, uint32_t n, int64_t bound_ns, int64_t stop_ns,
                    int64_t now);

/* Whether worker i was left behind: its thread runs on, stopped for good
 * when its call returns; its memory and its script state must stay. */
bool run_watch_abandoned(const struct run_watch *rw, uint32_t i);

#endif
