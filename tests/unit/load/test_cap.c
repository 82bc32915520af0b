/* unit test for cap.c (--max-rps's token bucket): the first send goes at
 * once, then none closer than the interval to the one before, whatever
 * the clock does (late sends push the next, never crowd it); an idle
 * bucket keeps no credit; a share below 1/s has its long interval; any
 * window of T holds at most T * rate + 1 sends of a bucket asked at every
 * nanosecond-ish step. */
#include "cap.h"

#include "../check.h"

#include <stdint.h>

#define S INT64_C(1000000000)

static void test_spacing(void)
{
    struct cap c;
    cap_init(&c, 10); /* 100 ms */
    CHECK_INT(c.interval_ns, S / 10);
    CHECK(cap_take(&c, 5 * S));
    CHECK(!cap_take(&c, 5 * S));
    CHECK(!cap_take(&c, 5 * S + S / 10 - 1));
    CHECK_INT(cap_next(&c), 5 * S + S / 10);
    CHECK(cap_take(&c, 5 * S + S / 10));
    /* late: the next moves from the late send */
    CHECK(cap_take(&c, 5 * S + S / 2));
    CHECK(!cap_take(&c, 5 * S + S / 2 + S / 10 - 1));
    /* idle for a minute: one send, no burst of credit */
    CHECK(cap_take(&c, 70 * S));
    CHECK(!cap_take(&c, 70 * S + 1));
}

static void test_rates(void)
{
    struct cap c;
    cap_init(&c, 3); /* 333,333,333.3 ns: rounded up, never over the rate */
    CHECK_INT(c.interval_ns, 333333334);
    cap_init(&c, 0.25); /* a thread's share of --max-rps 1 over 4 lanes */
    CHECK_INT(c.interval_ns, 4 * S);
    cap_init(&c, 1e12); /* at least 1 ns */
    CHECK_INT(c.interval_ns, 1);
}

/* Asked every 7 ms for 10 s at 40/s: no 1 s window (from any send) holds
 * more than 41, and 10 s hold about 400. */
static void test_windows(void)
{
    struct cap c;
    cap_init(&c, 40);
    static int64_t sent[1000];
    int n = 0;
    for (int64_t t = 0; t < 10 * S; t += 7000000)
        if (cap_take(&c, t))
            sent[n++] = t;
    CHECK(n >= 350 && n <= 401);
    int most = 0;
    for (int i = 0, j = 0; i < n; i++) {
        while (sent[i] - sent[j] >= S)
            j++;
        if (i - j + 1 > most)
            most = i - j + 1;
    }
    CHECK(most <= 41);
}

int main(void)
{
    test_spacing();
    test_rates();
    test_windows();
    return check_exit("test_cap");
}
