/* unit test for schedule.c: the exact schedule (no drift, every arrival once
 * over all workers), the run's total and shares, the queue's bookkeeping,
 * the timerfd wake-up handing arrivals to parked connections in order,
 * never before they are due, and the spin (--spin): never early, bounded,
 * yielding to I/O, not starved by a busy loop, held without an idle
 * connection, stopped by sched_stop; and the idle stack's bound: a slot
 * waits at most per_slot times, however often it parks. And -R with
 * --stages (sched_curve): the workers' due times together follow the
 * curve, bin by bin, and the queue counts them due as they come (the
 * ramp of tests/integration/run/test_stages.sh, proved without a clock). */
#include "schedule.h"

#include "../check.h"
#include "clock.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void no_send(void *arg, uint32_t slot, int64_t intended, int64_t now)
{
    (void)arg, (void)slot, (void)intended, (void)now;
}

static void no_end(void *arg)
{
    (void)arg;
}

static void test_times(struct ev_loop *loop)
{
    struct sched s;
    sched_init(&s, loop, 1000, 0, 1, 1000, 1, 1, no_send, no_end, NULL);
    s.t0 = 5;
    CHECK_INT(sched_time(&s, 0), 5);
    CHECK_INT(sched_time(&s, 1), 5 + 1000000);
    CHECK_INT(sched_time(&s, 999), 5 + 999000000);
    sched_free(&s);

    /* 3/s: floor(k * 1e9 / 3), exactly, even far into the run. */
    sched_init(&s, loop, 3, 0, 1, UINT64_MAX, 1, 1, no_send, no_end, NULL);
    CHECK_INT(sched_time(&s, 1), 333333333);
    CHECK_INT(sched_time(&s, 2), 666666666);
    CHECK_INT(sched_time(&s, 3), 1000000000);
    CHECK_INT(sched_time(&s, UINT64_C(3000000000)), INT64_C(1000000000) * 1000000000);
    CHECK_INT(sched_time(&s, UINT64_C(3000000001)), INT64_C(1000000000) * 1000000000 + 333333333);
    sched_free(&s);

    /* Workers of a stride together hold every arrival of the run once. */
    for (uint32_t stride = 1; stride <= 5; stride++) {
        check_ctx("stride %u", stride);
        struct sched w[5];
        uint64_t total = 1003, sum = 0;
        for (uint32_t i = 0; i < stride; i++) {
            sched_init(&w[i], loop, 7919, i, stride, sched_share(total, i, stride), 1, 1, no_send, no_end, NULL);
            sum += w[i].count;
        }
        CHECK_UINT(sum, total);
        struct sched one;
        sched_init(&one, loop, 7919, 0, 1, total, 1, 1, no_send, no_end, NULL);
        for (uint64_t k = 0; k < total; k++)
            CHECK_INT(sched_time(&w[k % stride], k / stride), sched_time(&one, k));
        for (uint32_t i = 0; i < stride; i++)
            sched_free(&w[i]);
        sched_free(&one);
    }
    check_ctx(NULL);
}

static void test_total(void)
{
    CHECK_UINT(sched_total(1000, 500, 0), 500);
    CHECK_UINT(sched_total(1000, 0, INT64_C(1000000000)), 1000);      /* 0 .. 999 ms */
    CHECK_UINT(sched_total(1000, 0, INT64_C(1000000001)), 1001);      /* and the one at 1 s */
    CHECK_UINT(sched_total(1000, 0, INT64_C(999000000)), 999);
    CHECK_UINT(sched_total(1000, 0, INT64_C(999000001)), 1000);
    CHECK_UINT(sched_total(1, 0, 1), 1);                              /* arrival 0 at t0 */
    CHECK_UINT(sched_total(1000, 300, INT64_C(1000000000)), 300);     /* -n first */
    CHECK_UINT(sched_total(3, 0, INT64_C(1000000000)), 3);
    CHECK_UINT(sched_total(100000000, 0, INT64_C(8640000000000000)), UINT64_C(864000000000000));
    CHECK_UINT(sched_share(10, 0, 3), 4);
    CHECK_UINT(sched_share(10, 1, 3), 3);
    CHECK_UINT(sched_share(10, 2, 3), 3);
    CHECK_UINT(sched_share(2, 2, 3), 0);
}

/* due after advance(now) equals a count by brute force. */
static void test_advance(struct ev_loop *loop)
{
    srand(7);
    for (uint32_t stride = 1; stride <= 4; stride++) {
        for (uint32_t first = 0; first < stride; first++) {
            uint64_t rates[] = {1, 3, 1000, 7919, 20000, 1000000};
            for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++) {
                struct sched s;
                sched_init(&s, loop, rates[r], first, stride, 5000, 1, 1, no_send, no_end, NULL);
                s.t0 = 1000;
                int64_t now = 0;
                for (int step = 0; step < 200; step++) {
                    now += rand() % (int)(UINT64_C(3000000000) / rates[r] + 2);
                    sched_advance(&s, now);
                    uint64_t want = 0;
                    while (want < s.count && sched_time(&s, want) <= now)
                        want++;
                    check_ctx("stride %u first %u rate %llu now %lld", stride, first,
                              (unsigned long long)rates[r], (long long)now);
                    CHECK_UINT(s.due, want);
                    if (s.due != want)
                        break;
                }
                sched_free(&s);
            }
        }
    }
    check_ctx(NULL);
}

/* take hands out each due arrival once, oldest first; backlog counts the rest. */
static void test_take(struct ev_loop *loop)
{
    struct sched s;
    sched_init(&s, loop, 1000, 0, 1, 10, 2, 1, no_send, no_end, NULL);
    s.t0 = 0;
    int64_t t;
    CHECK(sched_take(&s, 0, &t));
    CHECK_INT(t, 0);
    CHECK(!sched_take(&s, 999999, &t));
    CHECK_UINT(sched_backlog(&s, 3500000), 3); /* arrivals 1, 2, 3 */
    CHECK(sched_take(&s, 3500000, &t));
    CHECK_INT(t, 1000000);
    CHECK(sched_take(&s, 3500000, &t));
    CHECK_INT(t, 2000000);
    CHECK_INT(s.last_send, 3500000);
    CHECK_UINT(sched_backlog(&s, INT64_C(100000000000)), 7); /* never beyond count */
    sched_stop(&s);
    CHECK(!sched_take(&s, INT64_C(100000000000), &t));
    CHECK(sched_done(&s) == false);
    sched_free(&s);
}

struct sends {
    struct sched *s;
    int n;
    int64_t intended[64];
    int64_t late[64];
    bool bad;
    int ended;
    int64_t ended_at; /* when on_end ran (monotonic ns) */
};

static void record_send(void *arg, uint32_t slot, int64_t intended, int64_t now)
{
    struct sends *r = arg;
    if (r->n < 64) {
        r->intended[r->n] = intended;
        r->late[r->n] = clock_now_ns() - intended;
    }
    if (now < intended)
        r->bad = true;
    r->n++;
    sched_park(r->s, slot); /* done at once: free again */
    if (sched_done(r->s))
        ev_break(r->s->loop, EVBREAK_ALL);
}

static void record_end(void *arg)
{
    struct sends *r = arg;
    r->ended++;
    r->ended_at = clock_now_ns();
    sched_stop(r->s);
    ev_break(r->s->loop, EVBREAK_ALL);
}

/* The timerfd wake-up: 40 arrivals at 10000/s to two parked slots. */
static void test_wake(struct ev_loop *loop)
{
    struct sched s;
    struct sends r = {.s = &s};
    sched_init(&s, loop, 10000, 0, 1, 40, 2, 1, record_send, record_end, &r);
    sched_park(&s, 0);
    sched_park(&s, 1);
    int64_t t0 = clock_now_ns() + 1000000;
    sched_start(&s, t0, 0);
    ev_run(loop, 0);
    CHECK_INT(r.n, 40);
    CHECK(!r.bad);
    for (int i = 0; i < 40 && i < r.n; i++) {
        check_ctx("arrival %d", i);
        CHECK_INT(r.intended[i], t0 + (int64_t)i * 100000);
        CHECK(r.late[i] >= 0);
    }
    check_ctx(NULL);
    sched_stop(&s);
    sched_free(&s);

    /* The end (-d) comes while arrivals remain: on_end, once. */
    struct sched e;
    struct sends re = {.s = &e};
    sched_init(&e, loop, 1000, 0, 1, 1000000, 1, 1, record_send, record_end, &re);
    sched_park(&e, 0);
    t0 = clock_now_ns();
    sched_start(&e, t0, t0 + 5000000);
    ev_run(loop, 0);
    CHECK_INT(re.ended, 1);
    /* Nothing after the end, and nothing before its time: the arrivals
     * sent are at most those due (one each ms from t0) by the time on_end
     * ran, each sent once due. When the loop ran depends on a loaded
     * machine (it may run past 5 ms and send what came due meanwhile), so
     * the bound is taken from on_end's own time, and there is no lower
     * bound. */
    CHECK(re.ended_at >= t0 + 5000000);
    CHECK(re.n <= (int)((re.ended_at - t0) / 1000000) + 1);
    CHECK(!re.bad);
    for (int i = 0; i < re.n && i < 64; i++)
        CHECK(re.intended[i] <= re.ended_at);
    sched_free(&e);
}

static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct spin_run {
    struct sched *s;
    int n;
    bool early;             /* an arrival went out before it was due */
    int64_t cpu_last;       /* thread CPU at the last send */
    int64_t cpu_most;       /* most thread CPU between two sends */
    int pipe_w;             /* >= 0: a send writes a byte here */
    int io_calls;           /* the pipe's watcher ran */
    bool io_late;           /* ... after the next send, or while no spin was under way */
    bool stop_on_io;        /* the second read stops the schedule */
    bool spinner_stopped;   /* ... and the spinner was inactive after */
};

static void spin_send(void *arg, uint32_t slot, int64_t intended, int64_t now)
{
    struct spin_run *r = arg;
    int64_t cpu = thread_cpu_ns();
    if (r->n > 0 && cpu - r->cpu_last > r->cpu_most)
        r->cpu_most = cpu - r->cpu_last;
    r->cpu_last = cpu;
    if (now < intended || clock_now_ns() < intended)
        r->early = true;
    r->n++;
    if (r->pipe_w >= 0 && write(r->pipe_w, "x", 1) != 1)
        r->early = true; /* not expected: fail loudly */
    sched_park(r->s, slot);
    if (sched_done(r->s))
        ev_break(r->s->loop, EVBREAK_ALL);
}

static void on_guard(EV_P_ ev_timer *t, int revents)
{
    (void)t, (void)revents;
    CHECK(!"the schedule did not finish in time");
    ev_break(EV_A, EVBREAK_ALL);
}

/* Spins of 3 ms before arrivals 10 ms apart: every arrival once, in order,
 * never early; most of them end a spin; the thread's CPU between two
 * sends stays near the spin (it sleeps the rest), whatever the load, as a
 * thread cannot use more CPU than the wall time its spin lasts. */
static void test_spin_bounded(struct ev_loop *loop)
{
    struct sched s;
    struct spin_run r = {.s = &s, .pipe_w = -1};
    const int64_t spin = 3000000;
    sched_init(&s, loop, 100, 0, 1, 20, 1, 1, spin_send, no_end, &r);
    sched_spin(&s, spin);
    sched_park(&s, 0);
    ev_timer guard;
    ev_timer_init(&guard, on_guard, 10., 0.);
    ev_timer_start(loop, &guard);
    int64_t t0 = clock_now_ns() + 5000000, cpu0 = thread_cpu_ns(), wall0 = clock_now_ns();
    sched_start(&s, t0, 0);
    ev_run(loop, 0);
    ev_timer_stop(loop, &guard);
    int64_t cpu = thread_cpu_ns() - cpu0, wall = clock_now_ns() - wall0;
    CHECK_INT(r.n, 20);
    CHECK(!r.early);
    CHECK(s.spins >= 1); /* a timerfd 3 ms late twenty times in a row: not a spin at all */
    CHECK(r.cpu_most <= spin + 2000000);
    CHECK(cpu < wall / 2);
    CHECK(!ev_is_active(&s.spinner));
    sched_stop(&s);
    sched_free(&s);
}

static void on_pipe(EV_P_ ev_io *w, int revents)
{
    (void)revents;
    struct spin_run *r = w->data;
    char b;
    if (read(w->fd, &b, 1) != 1)
        return;
    r->io_calls++;
    if (!r->s->spinning || r->io_calls != r->n)
        r->io_late = true;
    if (r->stop_on_io && r->io_calls == 2) {
        sched_stop(r->s);
        r->spinner_stopped = !ev_is_active(&r->s->spinner);
        ev_io_stop(EV_A, w);
        ev_break(EV_A, EVBREAK_ALL);
    }
}

/* Starts s 1 ms from now and runs the loop with a reader cb (data) on fd,
 * under a 10 s guard, until something breaks it. */
static void run_with_reader(struct ev_loop *loop, struct sched *s, int fd, void (*cb)(EV_P_ ev_io *, int), void *data)
{
    ev_io io;
    ev_io_init(&io, cb, fd, EV_READ);
    io.data = data;
    ev_io_start(loop, &io);
    ev_timer guard;
    ev_timer_init(&guard, on_guard, 10., 0.);
    ev_timer_start(loop, &guard);
    sched_start(s, clock_now_ns() + 1000000, 0);
    ev_run(loop, 0);
    ev_timer_stop(loop, &guard);
    ev_io_stop(loop, &io);
}

/* A spin longer than the interval (300 ms at 4/s): the spin for the next
 * arrival starts as soon as one is sent. What a send writes into a pipe is
 * read while the spin goes on, not after it; sched_stop in the middle of
 * a spin ends it, and nothing more is sent. */
static void test_spin_yields(struct ev_loop *loop)
{
    struct sched s;
    int fds[2];
    CHECK(pipe(fds) == 0);
    struct spin_run r = {.s = &s, .pipe_w = fds[1], .stop_on_io = true};
    sched_init(&s, loop, 4, 0, 1, 3, 1, 1, spin_send, no_end, &r);
    sched_spin(&s, 300000000);
    sched_park(&s, 0);
    run_with_reader(loop, &s, fds[0], on_pipe, &r);
    CHECK_INT(r.n, 2);         /* arrival 2 never: stopped during its spin */
    CHECK_INT(r.io_calls, 2);
    CHECK(!r.io_late);
    CHECK(r.spinner_stopped);
    CHECK(!r.early);
    for (int i = 0; i < 3; i++)
        ev_run(loop, EVRUN_NOWAIT);
    CHECK_INT(r.n, 2);
    sched_free(&s);
    close(fds[0]);
    close(fds[1]);
}

static void on_busy(EV_P_ ev_io *w, int revents)
{
    (void)loop, (void)revents;
    (*(int *)w->data)++; /* never reads: the fd stays readable */
}

/* A loop with I/O to handle in every iteration still ends its spins: the
 * spinner's priority is above the sockets'. At priority 0 it would never
 * run, and the guard would end the loop with arrivals unsent. */
static void test_spin_busy_loop(struct ev_loop *loop)
{
    struct sched s;
    int fds[2];
    CHECK(pipe(fds) == 0);
    CHECK(write(fds[1], "x", 1) == 1);
    struct spin_run r = {.s = &s, .pipe_w = -1};
    sched_init(&s, loop, 100, 0, 1, 5, 1, 1, spin_send, no_end, &r);
    sched_spin(&s, 20000000);
    sched_park(&s, 0);
    int busy = 0;
    run_with_reader(loop, &s, fds[0], on_busy, &busy);
    CHECK_INT(r.n, 5);
    CHECK(s.spins >= 1);
    CHECK(busy > 5);
    CHECK(!r.early);
    sched_stop(&s);
    sched_free(&s);
    close(fds[0]);
    close(fds[1]);
}

/* The spin's window opens with no connection idle: no spin (nothing could
 * be sent at its end), the timer waits for the arrival itself; a
 * connection that parks then starts the spin. */
static void test_spin_held(struct ev_loop *loop)
{
    struct sched s;
    struct spin_run r = {.s = &s, .pipe_w = -1};
    sched_init(&s, loop, 10, 0, 1, 1, 1, 1, spin_send, no_end, &r);
    sched_spin(&s, 100000000);
    int64_t t0 = clock_now_ns() + 50000000; /* within the spin already */
    sched_start(&s, t0, 0);
    CHECK(s.held);
    CHECK(!s.spinning);
    CHECK(!ev_is_active(&s.spinner));
    sched_park(&s, 0);
    CHECK(!s.held);
    CHECK(s.spinning);
    ev_timer guard;
    ev_timer_init(&guard, on_guard, 10., 0.);
    ev_timer_start(loop, &guard);
    ev_run(loop, 0);
    ev_timer_stop(loop, &guard);
    CHECK_INT(r.n, 1);
    CHECK_UINT(s.spins, 1);
    CHECK(!r.early);
    sched_stop(&s);
    sched_free(&s);

    /* Without a spin nothing is ever held. */
    struct sched p;
    sched_init(&p, loop, 10, 0, 1, 1, 1, 1, no_send, no_end, NULL);
    sched_start(&p, clock_now_ns() + 50000000, 0);
    CHECK(!p.held);
    sched_park(&p, 0);
    CHECK(!p.spinning);
    sched_stop(&p);
    sched_free(&p);
}

/* Sends of the bound test, by slot; nothing parks again. */
struct by_slot {
    struct sched *s;
    int sent[2];
};

static void slot_send(void *arg, uint32_t slot, int64_t intended, int64_t now)
{
    (void)intended, (void)now;
    struct by_slot *r = arg;
    r->sent[slot]++;
    if (sched_done(r->s))
        ev_break(r->s->loop, EVBREAK_ALL);
}

/* A slot (an HTTP/2 connection with 3 streams) that parks more often than
 * it has streams (its server closed it while it waited, and it came back
 * to wait) is on the stack 3 times, not 5: the stack, sized 2 * 3, holds
 * every entry (ASan sees an overflow otherwise), and the arrivals go to
 * what was parked, once each. */
static void test_park_bounded(struct ev_loop *loop)
{
    struct sched s;
    struct by_slot r = {.s = &s};
    sched_init(&s, loop, 100000, 0, 1, 6, 2, 3, slot_send, no_end, &r);
    int taken = 0;
    for (int i = 0; i < 5; i++)
        taken += sched_park(&s, 0);
    CHECK_INT(taken, 3);
    CHECK_UINT(sched_parked(&s, 0), 3);
    for (int i = 0; i < 4; i++)
        taken += sched_park(&s, 1);
    CHECK_INT(taken, 6);
    CHECK_UINT(sched_parked(&s, 1), 3);
    CHECK_UINT(s.nidle, 6);
    CHECK(!sched_park(&s, 2)); /* no such slot */
    sched_start(&s, clock_now_ns(), 0);
    ev_run(loop, 0);
    CHECK_INT(r.sent[0], 3);
    CHECK_INT(r.sent[1], 3);
    CHECK_UINT(sched_parked(&s, 0), 0);
    CHECK_UINT(sched_parked(&s, 1), 0);
    CHECK_UINT(s.nidle, 0);
    CHECK(sched_park(&s, 0)); /* free again: it may wait again */
    sched_stop(&s);
    sched_free(&s);
}

/* -R 0 --stages 4s:2000,2s:2000 over 2 workers (-t 2): N(t) = 250 t^2 up
 * to 4 s, then 4000 + 2000 (t - 4). Arrival k is due at the first t with
 * N(t) >= k, so the arrivals due by t are floor(N(t)) + 1 (arrival 0 at 0)
 * and those due in a bin [a, b) differ from N(b) - N(a) by less than 1. */
static double ramp_n(double t)
{
    return t <= 4 ? 250.0 * t * t : 4000 + 2000 * (t - 4);
}

static void test_curve(struct ev_loop *loop)
{
    struct stages st;
    char err[300];
    CHECK(stages_parse(&st, "4s:2000,2s:2000", 0, err, sizeof err) == 0);
    uint64_t total = stages_arrivals(&st);
    CHECK_UINT(total, 8000);
    struct sched w[2];
    for (uint32_t i = 0; i < 2; i++) {
        sched_init(&w[i], loop, 0, i, 2, sched_share(total, i, 2), 1, 1, no_send, no_end, NULL);
        sched_curve(&w[i], &st);
        w[i].t0 = 1000;
    }
    CHECK_UINT(w[0].count + w[1].count, 8000);
    /* Every arrival's due time, from its worker, into 200 ms bins. */
    uint64_t bins[30] = {0};
    int64_t prev = -1;
    int order = 0;
    for (uint64_t k = 0; k < total; k++) {
        int64_t t = sched_time(&w[k % 2], k / 2) - 1000;
        order += t < prev;
        prev = t;
        if (t >= 0 && t < INT64_C(6000000000))
            bins[t / 200000000]++;
    }
    CHECK_INT(order, 0);
    uint64_t sum = 0;
    for (int b = 0; b < 30; b++) {
        double want = ramp_n((b + 1) * 0.2) - ramp_n(b * 0.2);
        check_ctx("bin %d: %llu due, the curve %g", b, (unsigned long long)bins[b], want);
        CHECK(fabs((double)bins[b] - want) < 1.0 + 1e-9);
        sum += bins[b];
    }
    check_ctx(NULL);
    CHECK_UINT(sum, 8000);
    /* The queue: advanced to each 100 ms edge, the workers hold the
     * arrivals due by then, floor(N(t)) + 1 of them together. */
    for (int i = 0; i <= 60; i++) {
        int64_t t = (int64_t)i * 100000000;
        sched_advance(&w[0], 1000 + t);
        sched_advance(&w[1], 1000 + t);
        double want = fmin(floor(ramp_n((double)t / 1e9) + 1e-9) + 1, (double)total);
        check_ctx("at %d ms", i * 100);
        CHECK_UINT(w[0].due + w[1].due, (uint64_t)want);
    }
    check_ctx(NULL);
    for (uint32_t i = 0; i < 2; i++)
        sched_free(&w[i]);
}

int main(void)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    test_times(loop);
    test_total();
    test_advance(loop);
    test_curve(loop);
    test_take(loop);
    test_wake(loop);
    test_spin_bounded(loop);
    test_spin_yields(loop);
    test_spin_busy_loop(loop);
    test_spin_held(loop);
    test_park_bounded(loop);
    ev_loop_destroy(loop);
    return check_exit("test_schedule");
}
