/* How late the machine wakes a process that only sleeps: the floor under
 * any client's timing tail. It waits 1 ms in epoll_wait (nothing to wait
 * for, so only the timeout wakes it), again and again for SECONDS, and
 * measures by CLOCK_MONOTONIC how much later than 1 ms each wait returned.
 * It does no work of its own, so each late wake-up is the scheduler's or
 * the hypervisor's: a read that a client had due at that moment would
 * have been stamped as late. Prints one line:
 *
 *   waits N late>1ms N late>5ms N p99 MS max MS lost MS
 *
 * (lost: the sum of the lateness beyond 1 ms, the time the machine held
 * this process away past its deadlines).
 *
 *   wake_late SECONDS
 *
 * Written for tests/bench/streams.sh --llm, run beside the at-scale run. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    double secs = argc == 2 ? atof(argv[1]) : 0;
    if (secs <= 0 || secs > 3600) {
        fprintf(stderr, "usage: wake_late SECONDS (0 < SECONDS <= 3600)\n");
        return 2;
    }
    int ep = epoll_create1(0);
    if (ep < 0) {
        perror("wake_late: epoll_create1");
        return 1;
    }
    size_t cap = (size_t)(secs * 1000) + 16, n = 0;
    long long *late = malloc(cap * sizeof *late);
    if (!late) {
        perror("wake_late");
        return 1;
    }
    long long end = now_ns() + (long long)(secs * 1e9);
    struct epoll_event ev;
    for (long long t = now_ns(); t < end && n < cap; t = now_ns()) {
        epoll_wait(ep, &ev, 1, 1);
        long long l = now_ns() - t - 1000000;
        late[n++] = l > 0 ? l : 0;
    }
    if (!n)
        return 1;
    qsort(late, n, sizeof *late, by_value);
    size_t over1 = 0, over5 = 0;
    long long lost = 0;
    for (size_t i = 0; i < n; i++) {
        over1 += late[i] > 1000000;
        over5 += late[i] > 5000000;
        lost += late[i] > 1000000 ? late[i] - 1000000 : 0;
    }
    printf("waits %zu late>1ms %zu late>5ms %zu p99 %.3f max %.3f lost %.1f\n", n, over1, over5,
           late[(size_t)((double)(n - 1) * 0.99 + 0.5)] / 1e6, late[n - 1] / 1e6, lost / 1e6);
    free(late);
    return 0;
}
