/* stages.c: parsing (and its errors), the curve's value and integral, and
 * the due times against the integral: arrival k is due at the first ns
 * where N reaches k, so N(due(k)) >= k > N(due(k) - 1); a constant curve
 * gives plain -R's k / rate and its count of arrivals. */
#include "../check.h"
#include "schedule.h"
#include "stages.h"

#include <math.h>
#include <string.h>

static void test_parse(void)
{
    struct stages st;
    char err[300];
    CHECK(stages_parse(&st, "4s:2000,2s:2000", 0, err, sizeof err) == 0);
    CHECK_UINT(st.n, 2);
    CHECK_INT(st.total_ns, INT64_C(6000000000));
    CHECK(fabs(st.cum[2] - 8000) < 1e-9);
    CHECK(fabs(stages_value(&st, INT64_C(1000000000)) - 500) < 1e-9);
    CHECK(fabs(stages_integral(&st, INT64_C(2000000000)) - 1000) < 1e-9);
    CHECK(fabs(stages_peak(&st) - 2000) < 1e-9);
    static const char *const bad[] = {"", "1s", "1x:5", "0s:5", "1s:-1", "1s:1.5", "1s:5,", "1s:5,,2s:3", "1s:1e9"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        check_ctx("%s", bad[i]);
        err[0] = '\0';
        CHECK(stages_parse(&st, bad[i], 0, err, sizeof err) < 0);
        CHECK(strncmp(err, "--stages: ", 10) == 0);
    }
}

/* N(due(k)) >= k, and one ns earlier it was below k. */
static void check_dues(const char *spec, double start)
{
    struct stages st;
    char err[300];
    check_ctx("%s from %g", spec, start);
    CHECK(stages_parse(&st, spec, start, err, sizeof err) == 0);
    uint64_t n = stages_arrivals(&st);
    int64_t prev = -1;
    int bad = 0;
    for (uint64_t k = 0; k < n; k++) {
        int64_t t = stages_due(&st, k);
        bad += t < prev || t >= st.total_ns || stages_integral(&st, t) < (double)k - 1e-6 ||
               (k > 0 && t > 0 && stages_integral(&st, t - 1) >= (double)k + 1e-6);
        prev = t;
    }
    CHECK_INT(bad, 0);
    CHECK(stages_due(&st, n) >= st.total_ns);
    CHECK(fabs((double)n - st.cum[st.n]) <= 1.0);
}

static void test_dues(void)
{
    check_dues("4s:2000,2s:2000", 0);
    check_dues("1s:500,1s:0", 100);
    check_dues("500ms:7,3s:7,2s:1", 0);
    check_dues("10s:3", 3);
    /* constant: plain -R's schedule and count */
    struct stages st;
    char err[300];
    CHECK(stages_parse(&st, "3s:700", 700, err, sizeof err) == 0);
    CHECK_UINT(stages_arrivals(&st), sched_total(700, 0, INT64_C(3000000000)));
    int bad = 0;
    for (uint64_t k = 0; k < 2100; k++) {
        int64_t plain = (int64_t)(k * 1000000000u / 700);
        int64_t d = stages_due(&st, k);
        bad += d < plain || d > plain + 1; /* k / rate rounded up, not down */
    }
    CHECK_INT(bad, 0);
}

static void test_share(void)
{
    CHECK_UINT(stages_share(10.9, 0, 3), 4);
    CHECK_UINT(stages_share(10.9, 1, 3), 3);
    CHECK_UINT(stages_share(10.9, 2, 3), 3);
    CHECK_UINT(stages_share(0.5, 0, 2), 0);
}

int main(void)
{
    test_parse();
    test_dues();
    test_share();
    return check_exit("test_stages");
}
