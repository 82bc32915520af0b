/* The open model's arrival schedule; see schedule.h. */
#include "schedule.h"

#include "clock.h"
#include "xalloc.h"

#include <stddef.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

int64_t sched_time(const struct sched *s, uint64_t j)
{
    unsigned __int128 k = (unsigned __int128)s->first + (unsigned __int128)j * s->stride;
    return s->t0 + (int64_t)(k * 1000000000u / s->rate);
}

void sched_advance(struct sched *s, int64_t now)
{
    if (s->due >= s->count || now < sched_time(s, s->due))
        return;
    /* Arrival k is due when floor(k * 1e9 / rate) <= now - t0, that is
     * when k * 1e9 < (now - t0 + 1) * rate: the last due one is
     * ceil((now - t0 + 1) * rate / 1e9) - 1. */
    unsigned __int128 x = (unsigned __int128)(now - s->t0 + 1) * s->rate;
    unsigned __int128 k_last = (x + 999999999u) / 1000000000u - 1;
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
        s->send(s->send_arg, slot, take_next(s, now), now);
    }
}

/* Arms the wake-up for the first arrival not yet due, or for the end. Each
 * timerfd_settime also clears the fd's readiness, so the wake-up needs no
 * read(): with nothing left to wait for, the fd is disarmed the same way. */
static void arm(struct sched *s)
{
    if (s->stopped)
        return;
    bool more = s->due < s->count || s->end;
    int64_t at = s->due < s->count ? sched_time(s, s->due) : s->end;
    if (s->tfd >= 0) {
        struct itimerspec its = {0};
        if (more)
            its.it_value = (struct timespec){.tv_sec = at / 1000000000, .tv_nsec = at % 1000000000};
        timerfd_settime(s->tfd, TFD_TIMER_ABSTIME, &its, NULL);
        return;
    }
    if (!more)
        return;
    double after = (double)(at - clock_now_ns()) / 1e9;
    ev_timer_stop(s->loop, &s->fallback);
    ev_timer_set(&s->fallback, after > 0 ? after : 0, 0.);
    ev_timer_start(s->loop, &s->fallback);
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
    wake(container_of(w, struct sched, fallback));
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
                uint64_t count, uint32_t nconns, sched_send_fn send, sched_end_fn on_end, void *arg)
{
    *s = (struct sched){
        .rate = rate, .first = first, .stride = stride, .count = count,
        .loop = loop, .send = send, .on_end = on_end, .send_arg = arg,
    };
    s->idle = xcalloc(nconns ? nconns : 1, sizeof *s->idle);
    s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    ev_io_init(&s->io, on_timerfd, s->tfd, EV_READ);
    ev_timer_init(&s->fallback, on_fallback, 0., 0.);
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
}

bool sched_take(struct sched *s, int64_t now, int64_t *intended)
{
    sched_advance(s, now);
    if (s->stopped || s->next >= s->due)
        return false;
    *intended = take_next(s, now);
    return true;
}

void sched_park(struct sched *s, uint32_t slot)
{
    s->idle[s->nidle++] = slot;
}

uint64_t sched_backlog(struct sched *s, int64_t now)
{
    sched_advance(s, now);
    return s->due - s->next;
}
