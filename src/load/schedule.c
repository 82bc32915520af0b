/* The open model's arrival schedule; see schedule.h. */
#include "schedule.h"

#include "clock.h"
#include "xalloc.h"

#include <stddef.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

/* When the point `units` of operational time (arrivals.h) is due, ns
 * from t0: where N(t) = units / ARRIVALS_ONE; INT64_MAX: never. */
static int64_t units_offset(const struct sched *s, unsigned __int128 units)
{
    if (s->curve)
        return stages_due_at(s->curve, arrivals_units(units));
    unsigned __int128 ns = units * 1000000000u / ((unsigned __int128)s->rate * ARRIVALS_ONE);
    return ns >= INT64_MAX ? INT64_MAX : (int64_t)ns;
}

/* A random process's due time of this worker's arrival j (ns from t0,
 * so that nothing kept depends on when the schedule starts): from the
 * ring when it holds it; past it, the front walks on to j, keeping each
 * of this worker's due times on the way; before it, the back walk (from
 * the start when j is behind it too). */
static int64_t walked_offset(struct sched *s, uint64_t j)
{
    if (s->front_set && j <= s->front_j && s->front_j - j < SCHED_RING)
        return s->ring[j % SCHED_RING];
    if (!s->front_set || j > s->front_j) {
        uint64_t from = s->front_set ? s->front_j + 1 : 0;
        if (j - from >= SCHED_RING)
            from = j - (SCHED_RING - 1); /* those before would leave the ring at once */
        for (uint64_t i = from; i <= j; i++) {
            arrivals_walk_to(s->proc, &s->front, s->first + i * s->stride);
            s->ring[i % SCHED_RING] = units_offset(s, s->front.s);
        }
        s->front_j = j;
        s->front_set = true;
        return s->ring[j % SCHED_RING];
    }
    uint64_t k = s->first + j * s->stride;
    if (s->back.k > k)
        s->back = (struct arrivals_walk){0};
    arrivals_walk_to(s->proc, &s->back, k);
    return units_offset(s, s->back.s);
}

/* A random process's due time of arrival j (monotonic ns; INT64_MAX: never). */
static int64_t walked_time(struct sched *s, uint64_t j)
{
    int64_t off = walked_offset(s, j);
    return off >= INT64_MAX - s->t0 ? INT64_MAX : s->t0 + off;
}

int64_t sched_time(struct sched *s, uint64_t j)
{
    if (s->proc)
        return walked_time(s, j);
    unsigned __int128 k = (unsigned __int128)s->first + (unsigned __int128)j * s->stride;
    if (s->curve) {
        int64_t t = stages_due(s->curve, (uint64_t)k);
        return t == INT64_MAX ? INT64_MAX : s->t0 + t;
    }
    return s->t0 + (int64_t)(k * 1000000000u / s->rate);
}

/* --stages: the last arrival of the run due by t ns from the start (one is:
 * arrival 0 is due at 0). N(t) rounded down is it but for rounding; the
 * due times themselves decide. */
static uint64_t curve_last_due(const struct stages *curve, int64_t t)
{
    double n = stages_integral(curve, t);
    uint64_t k = n > 0 ? (uint64_t)n : 0;
    while (stages_due(curve, k + 1) <= t)
        k++;
    while (k > 0 && stages_due(curve, k) > t)
        k--;
    return k;
}

void sched_advance(struct sched *s, int64_t now)
{
    if (s->proc) {
        /* Counted one by one, each due time walked to; an arrival due at
         * or after the end (-d) never is (fixed's count stops before it). */
        while (s->due < s->count) {
            int64_t t = walked_time(s, s->due);
            if (t > now || (s->end && t >= s->end))
                break;
            s->due++;
        }
        return;
    }
    if (s->due >= s->count || now < sched_time(s, s->due))
        return;
    /* Arrival k is due when floor(k * 1e9 / rate) <= now - t0, that is
     * when k * 1e9 < (now - t0 + 1) * rate: the last due one is
     * ceil((now - t0 + 1) * rate / 1e9) - 1. */
    unsigned __int128 k_last;
    if (s->curve) {
        k_last = curve_last_due(s->curve, now - s->t0);
    } else {
        unsigned __int128 x = (unsigned __int128)(now - s->t0 + 1) * s->rate;
        k_last = (x + 999999999u) / 1000000000u - 1;
    }
    uint64_t due = (uint64_t)((k_last - s->first) / s->stride) + 1; /* k_last >= first: arrival `due` was due */
    s->due = due < s->count ? due : s->count;
}

/* The oldest due arrival leaves the queue, sent at now; its due time. */
static int64_t take_next(struct sched *s, int64_t now)
{
    s->last_send = now;
    s->last_due = sched_time(s, s->next++);
    return s->last_due;
}

/* Hands due arrivals to idle connections while both exist. A send may end
 * at once (a failed connect) and take or park again: the indexes are
 * updated before each call. */
static void dispatch(struct sched *s, int64_t now)
{
    while (!s->stopped && s->next < s->due && s->nidle > 0) {
        uint32_t slot = s->idle[--s->nidle];
        s->parked[slot]--;
        s->send(s->send_arg, slot, take_next(s, now), now);
    }
}

/* --spin: how long one spin step watches the clock before it hands the
 * thread back to the loop, which then polls the sockets without blocking
 * (an epoll_wait with a zero timeout, about 0.1 us here). A response that
 * arrives during a spin is read within this much of its arrival: the spin
 * yields to I/O rather than delay another request's measurement, and an
 * arrival that falls due while a callback runs goes out when it returns. */
#define SPIN_STEP_NS 2000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* Sets the wake-up at `at` (monotonic ns), or disarms it (more false).
 * Each timerfd_settime also clears the fd's readiness, so the wake-up needs
 * no read(): with nothing left to wait for, the fd is disarmed the same way. */
static void set_timer(struct sched *s, bool more, int64_t at)
{
    s->timer_set = more;
    if (s->tfd >= 0) {
        struct itimerspec its = {0};
        if (more)
            its.it_value = (struct timespec){.tv_sec = at / 1000000000, .tv_nsec = at % 1000000000};
        timerfd_settime(s->tfd, TFD_TIMER_ABSTIME, &its, NULL);
        return;
    }
    ev_timer_stop(s->loop, &s->fallback);
    if (!more)
        return;
    double after = (double)(at - clock_now_ns()) / 1e9;
    ev_timer_set(&s->fallback, after > 0 ? after : 0, 0.);
    ev_timer_start(s->loop, &s->fallback);
}

/* Busy-waits (in steps, see on_spin) for the arrival due at `at`. The
 * timer is disarmed first when it may be set: a fired timerfd stays
 * readable until re-armed. At a rate whose interval is shorter than the
 * spin, one spin follows the other and the timer is never touched. */
static void start_spin(struct sched *s, int64_t at)
{
    s->held = false;
    s->spinning = true;
    s->spin_at = at;
    if (s->timer_set)
        set_timer(s, false, 0);
    ev_idle_start(s->loop, &s->spinner);
}

/* Arms the wake-up for the first arrival not yet due, or for the end. With
 * a spin, the wake-up is spin before the arrival, and the spin starts at
 * once when that time has come; unless no connection is idle to take the
 * arrival: then the timer waits for the arrival itself and a connection
 * that parks meanwhile starts the spin (sched_park). */
static void arm(struct sched *s)
{
    s->held = false;
    if (s->stopped)
        return;
    bool arrival = s->due < s->count;
    int64_t at = arrival ? sched_time(s, s->due) : s->end;
    if (arrival && s->end && at >= s->end) { /* a random process's next one is past the end */
        arrival = false;
        at = s->end;
    }
    if (arrival && s->spin) {
        if (at - s->spin > clock_now_ns()) {
            set_timer(s, true, at - s->spin);
            return;
        }
        if (s->nidle > 0) {
            start_spin(s, at);
            return;
        }
        s->held = true;
        s->spin_at = at;
    }
    set_timer(s, arrival || s->end, at);
}

static void wake(struct sched *s)
{
    int64_t now = clock_now_ns();
    sched_advance(s, now);
    dispatch(s, now);
    if (s->end && now >= s->end && !s->stopped) {
        s->on_end(s->send_arg); /* the worker counts what is left and stops s */
        return;
    }
    arm(s);
}

static void on_timerfd(EV_P_ ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    wake(container_of(w, struct sched, io)); /* it re-arms or disarms the fd: readiness cleared */
}

static void on_fallback(EV_P_ ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    struct sched *s = container_of(w, struct sched, fallback);
    s->timer_set = false;
    wake(s);
}

/* One spin step: watches the clock until the arrival is due or for
 * SPIN_STEP_NS, whichever is first. The idle watcher keeps the loop from
 * blocking, so the next step follows the loop's next non-blocking poll. */
static void on_spin(EV_P_ ev_idle *w, int revents)
{
    (void)revents;
    struct sched *s = container_of(w, struct sched, spinner);
    int64_t now = clock_now_ns();
    int64_t stop = s->spin_at - now > SPIN_STEP_NS ? now + SPIN_STEP_NS : s->spin_at;
    while (now < stop) {
        cpu_relax();
        now = clock_now_ns();
    }
    if (now < s->spin_at)
        return;
    ev_idle_stop(EV_A, w);
    s->spinning = false;
    s->spins++;
    wake(s);
}

uint64_t sched_total(uint64_t rate, uint64_t requests, int64_t duration_ns)
{
    uint64_t total = requests ? requests : UINT64_MAX;
    if (duration_ns > 0) {
        /* Arrival k is due before the end when k * 1e9 / rate < duration:
         * k < duration * rate / 1e9, so ceil(duration * rate / 1e9) of them. */
        unsigned __int128 x = (unsigned __int128)duration_ns * rate;
        unsigned __int128 n = (x + 999999999u) / 1000000000u;
        if (n < total)
            total = (uint64_t)n;
    }
    return total;
}

uint64_t sched_share(uint64_t total, uint32_t first, uint32_t stride)
{
    return total / stride + (first < total % stride);
}

void sched_init(struct sched *s, struct ev_loop *loop, uint64_t rate, uint32_t first, uint32_t stride,
                uint64_t count, uint32_t nslots, uint32_t per_slot, sched_send_fn send, sched_end_fn on_end,
                void *arg)
{
    *s = (struct sched){
        .rate = rate, .first = first, .stride = stride, .count = count, .nslots = nslots,
        .per_slot = per_slot ? per_slot : 1, .loop = loop, .send = send, .on_end = on_end, .send_arg = arg,
    };
    /* Each slot is on the stack at most per_slot times (sched_park): this
     * is all the room it can need. */
    s->idle = xcalloc(nslots ? (size_t)nslots * s->per_slot : 1, sizeof *s->idle);
    s->parked = xcalloc(nslots ? nslots : 1, sizeof *s->parked);
    s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    ev_io_init(&s->io, on_timerfd, s->tfd, EV_READ);
    ev_timer_init(&s->fallback, on_fallback, 0., 0.);
    ev_idle_init(&s->spinner, on_spin);
    /* Above the sockets' priority: an idle watcher of priority 0 would not
     * run in a loop iteration that has I/O to handle, and a busy loop could
     * then hold an arrival back indefinitely. */
    ev_set_priority(&s->spinner, EV_MAXPRI);
}

void sched_curve(struct sched *s, const struct stages *curve)
{
    s->curve = curve;
}

void sched_arrivals(struct sched *s, const struct arrivals *proc)
{
    s->proc = proc && proc->kind != ARRIVALS_FIXED ? proc : NULL;
    s->front = s->back = (struct arrivals_walk){0};
    s->front_set = false;
}

void sched_spin(struct sched *s, int64_t spin_ns)
{
    s->spin = spin_ns > 0 ? spin_ns : 0;
}

void sched_start(struct sched *s, int64_t t0, int64_t end)
{
    s->t0 = t0;
    s->end = end;
    if (s->tfd >= 0)
        ev_io_start(s->loop, &s->io);
    arm(s);
}

void sched_stop(struct sched *s)
{
    s->stopped = true;
    s->held = false;
    s->spinning = false;
    ev_idle_stop(s->loop, &s->spinner);
    s->timer_set = false;
    if (s->tfd >= 0) {
        struct itimerspec off = {0};
        timerfd_settime(s->tfd, TFD_TIMER_ABSTIME, &off, NULL);
        ev_io_stop(s->loop, &s->io);
    }
    ev_timer_stop(s->loop, &s->fallback);
}

void sched_free(struct sched *s)
{
    if (s->tfd >= 0)
        close(s->tfd);
    s->tfd = -1;
    free(s->idle);
    s->idle = NULL;
    free(s->parked);
    s->parked = NULL;
}

bool sched_take(struct sched *s, int64_t now, int64_t *intended)
{
    sched_advance(s, now);
    if (s->stopped || s->next >= s->due)
        return false;
    *intended = take_next(s, now);
    return true;
}

bool sched_park(struct sched *s, uint32_t slot)
{
    if (slot >= s->nslots || s->parked[slot] >= s->per_slot)
        return false;
    s->parked[slot]++;
    s->idle[s->nidle++] = slot;
    if (s->held)
        start_spin(s, s->spin_at); /* its window began when the timer was armed: within spin still */
    return true;
}

uint64_t sched_backlog(struct sched *s, int64_t now)
{
    sched_advance(s, now);
    return s->due - s->next;
}
