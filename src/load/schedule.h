/* The open model's arrival schedule for one worker (-R).
 *
 * The run's arrivals are numbered k = 0, 1, 2, ... and arrival k is due at
 * t0 + floor(k * 1e9 / rate) ns (CLOCK_MONOTONIC), computed exactly each
 * time, never accumulated, so the schedule cannot drift. Worker w of W takes
 * the arrivals k = w, w + W, w + 2W, ...; its j-th arrival is k = w + j*W.
 *
 * The queue of arrivals that are due but not yet sent is the index range
 * [next, due): an arrival waits there with its clock already running and
 * costs no memory.
 *
 * With --arrivals poisson or gamma:K (sched_arrivals) arrival k is due
 * where the rate's N(t) reaches s_k, the sum of the process's first k gaps
 * (arrivals.h): a worker walks the run's sequence in order, adding every
 * gap, its lane's and the others' (W x N gaps for each of its own
 * arrivals), so that s_k is the exact sum every lane computes alike. The
 * due times of its last SCHED_RING arrivals are kept, so that the oldest
 * due arrival is found without a second walk unless the queue holds more
 * than that; then a second walk follows the queue's tail.
 *
 * Connections that have nothing to send wait on a stack of
 * idle slots: a connection slot is on it at most per_slot times (an HTTP/2
 * connection once for each free stream, --streams), so the stack, sized
 * slots * per_slot, cannot overflow however often a connection comes back
 * to wait (a server that closes idle connections makes it park again with
 * its entries still there). An arrival goes to an idle connection as soon as both exist;
 * after a stall the backlog goes out as fast as connections free up, with no
 * cap on the catch-up rate.
 *
 * The wake-up is a timerfd (CLOCK_MONOTONIC, absolute time) watched by an
 * ev_io: libev's own timers wait in whole milliseconds, a timerfd fires
 * within tens of microseconds of its time.
 *
 * With a spin (--spin T) the timerfd fires T before the next arrival and
 * the worker busy-waits from there until the arrival is due, so the kernel's
 * wake-up latency is paid before the arrival instead of after it. The spin
 * is an ev_idle watcher at the highest priority: each step watches the
 * clock for at most a few microseconds and returns to the loop, which polls
 * the sockets without blocking in between, so responses are still read as
 * they come. A spin never lasts longer than T: it starts only once the
 * arrival is due within T. */
#ifndef VOLLEY_SCHEDULE_H
#define VOLLEY_SCHEDULE_H

#include "arrivals.h"
#include "stages.h"

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

/* Hands the arrival due at intended (monotonic ns) to the idle connection
 * in slot; called from sched_dispatch and the timerfd's callback. */
typedef void (*sched_send_fn)(void *arg, uint32_t slot, int64_t intended, int64_t now);

/* The schedule's end time (-d) has come; called once. */
typedef void (*sched_end_fn)(void *arg);

/* --arrivals: how many of its latest arrivals' due times a worker keeps. */
#define SCHED_RING 64

struct sched {
    int64_t t0;          /* when arrival 0 is due (monotonic ns) */
    uint64_t rate;       /* arrivals per second over the whole run */
    const struct stages *curve; /* --stages: the rate's curve, which decides instead of rate */
    const struct arrivals *proc; /* --arrivals poisson or gamma:K; NULL: fixed (k / rate) */
    struct arrivals_walk front;  /* proc: at the newest arrival whose due time ring holds */
    struct arrivals_walk back;   /* proc: at an arrival older than ring holds */
    uint64_t front_j;            /* proc: ring[j % SCHED_RING] is arrival j's due time (ns from t0) for
                                  * front_j - SCHED_RING < j <= front_j (front_set) */
    bool front_set;
    int64_t ring[SCHED_RING];
    uint64_t first;      /* this worker's first arrival number (w) */
    uint64_t stride;     /* workers (W) */
    uint64_t count;      /* this worker's arrivals in all */
    int64_t end;         /* monotonic ns when the schedule ends (t0 + -d); 0: none */
    uint64_t next;       /* the oldest arrival not yet sent (j) */
    uint64_t due;        /* arrivals j < due are due */
    int64_t last_send;   /* monotonic ns when the last arrival was sent; 0 before the first */
    int64_t last_due;    /* when that arrival was due */
    uint32_t *idle;      /* slots of connections waiting for an arrival (a stack) */
    uint32_t nidle;
    uint32_t *parked;    /* parked[slot]: slot's entries on idle (at most per_slot) */
    uint32_t nslots, per_slot;
    bool stopped;        /* sched_stop was called: nothing more is sent */
    int tfd;             /* the timerfd, -1 when ev_timer is the fallback */
    bool timer_set;      /* the timerfd (or the fallback) is armed, or fired and not yet re-armed */
    int64_t spin;        /* --spin: ns before an arrival when the busy wait starts; 0: none */
    int64_t spin_at;     /* the arrival the spin waits for (valid while spinning or held) */
    bool spinning;       /* the idle watcher spins toward spin_at */
    bool held;           /* within the spin window with no idle connection: the timer waits for
                          * spin_at itself, and the next sched_park starts the spin */
    uint64_t spins;      /* spins that ran up to their arrival's time (read-only to callers) */
    ev_idle spinner;
    ev_io io;
    ev_timer fallback;   /* only when no timerfd could be created */
    struct ev_loop *loop;
    sched_send_fn send;
    sched_end_fn on_end;
    void *send_arg;
};

/* Sets up s for worker `first` of `stride`, with `count` arrivals (its
 * share of the run's), for connection slots 0..nslots-1 that may each wait
 * for up to per_slot arrivals at once (its streams; 1 over HTTP/1). Nothing
 * is armed until sched_start. */
void sched_init(struct sched *s, struct ev_loop *loop, uint64_t rate, uint32_t first, uint32_t stride,
                uint64_t count, uint32_t nslots, uint32_t per_slot, sched_send_fn send, sched_end_fn on_end,
                void *arg);

/* The run's arrivals: N arrivals of -n (0: none given) and those due within
 * duration_ns of -d (0: none given), whichever is fewer. */
uint64_t sched_total(uint64_t rate, uint64_t requests, int64_t duration_ns);

/* How many of total arrivals worker `first` of `stride` takes. */
uint64_t sched_share(uint64_t total, uint32_t first, uint32_t stride);

/* --stages: arrival k is due at t0 + stages_due(curve, k) instead of
 * k / rate (curve outlives s). Call before sched_start. */
void sched_curve(struct sched *s, const struct stages *curve);

/* --arrivals: the due times follow proc's sequence (proc outlives s);
 * NULL or a fixed process: k / rate (or the curve's k). Call before
 * sched_start. */
void sched_arrivals(struct sched *s, const struct arrivals *proc);

/* --spin: from now on, wake spin_ns (> 0) before each arrival and busy-wait
 * until it is due; 0 turns it off. Call before sched_start. */
void sched_spin(struct sched *s, int64_t spin_ns);

/* Starts the schedule: arrival 0 is due at t0; end (0: none) is when
 * on_end is called. Arms the wake-up for the first arrival. */
void sched_start(struct sched *s, int64_t t0, int64_t end);

/* Disarms it; the schedule ends: no arrival is handed out any more. */
void sched_stop(struct sched *s);

/* Frees what sched_init allocated. */
void sched_free(struct sched *s);

/* When arrival j of this worker is due (monotonic ns; INT64_MAX when a
 * curve never gets there). With a random process, cheap for the arrivals
 * around the queue; any other j costs a walk from the start. */
int64_t sched_time(struct sched *s, uint64_t j);

/* Counts every arrival due by now into the queue. */
void sched_advance(struct sched *s, int64_t now);

/* A connection is free at now: takes the oldest due arrival for it and
 * returns true with its intended time, or returns false (the caller then
 * parks it with sched_park). */
bool sched_take(struct sched *s, int64_t now, int64_t *intended);

/* A free connection (or one free stream of it) waits for the next arrival
 * (and starts a spin that was held for want of one). Returns false, and
 * changes nothing, when slot already waits per_slot times: it is waiting
 * already, and its entries hand it the next arrivals. */
bool sched_park(struct sched *s, uint32_t slot);

/* How many times slot waits on the stack now (0..per_slot). */
static inline uint32_t sched_parked(const struct sched *s, uint32_t slot)
{
    return s->parked[slot];
}

/* Arrivals due by now that were never sent (the queue at the end). */
uint64_t sched_backlog(struct sched *s, int64_t now);

/* All of this worker's arrivals have been sent. */
static inline bool sched_done(const struct sched *s)
{
    return s->next >= s->count;
}

#endif
