/* Unit test for hist.c: bucket configuration, percentile accuracy against the
 * exact order statistics of seeded sample sets, exact merging, iteration and
 * edge cases (requirements R1 and R2 of
 * shared/reference/latency-and-hdrhistogram.md). */
#include "hist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#define N_SAMPLES 1000000

static int failures;

static int check(int ok, const char *what, const char *file, int line)
{
    if (!ok) {
        failures++;
        fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
    }
    return ok;
}

#define CHECK(cond) check((cond), #cond, __FILE__, __LINE__)

static const double percentiles[] = {0, 50, 90, 99, 99.9, 99.99, 100};
#define N_PERCENTILES (sizeof percentiles / sizeof percentiles[0])

/* splitmix64: a fixed seed makes every run see the same samples, so a failure
 * reproduces. */
#include "../rng.h"

/* Modulo bias is below 2^-30 for these ranges: irrelevant to the test. */
static int64_t rng_range(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng_next() % (uint64_t)(hi - lo + 1));
}

static void fill_constant(int64_t *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = 123456;
}

static void fill_uniform_1e6(int64_t *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = rng_range(1, 1000000);
}

static void fill_uniform_1e9(int64_t *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = rng_range(1, 1000000000);
}

/* 1 us .. 60 s in ns, uniform in log: exercises ~26 buckets. */
static void fill_log_uniform(int64_t *x, int n)
{
    double lo = log(1e3), hi = log(6e10);
    for (int i = 0; i < n; i++)
        x[i] = (int64_t)(exp(lo + rng_unit() * (hi - lo)) + 0.5);
}

/* 90 % near 1 ms, 10 % near 1 s: p90 sits on the boundary, p99 in the slow
 * mode. */
static void fill_bimodal(int64_t *x, int n)
{
    for (int i = 0; i < n; i++) {
        if (rng_next() % 10 != 0)
            x[i] = 1000000 + rng_range(-20000, 20000);
        else
            x[i] = 1000000000 + rng_range(-20000000, 20000000);
    }
}

static int cmp_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void record_all(struct hist *h, const int64_t *x, int n)
{
    for (int i = 0; i < n; i++)
        hist_record(h, x[i]);
}

static void test_config(void)
{
    static const struct {
        int64_t lowest, highest;
        int digits;
        int32_t sub_bucket_count, bucket_count, counts_len;
    } good[] = {
        {1, INT64_C(3600000000000), 3, 2048, 32, 33792}, /* 1 ns .. 1 h */
        {1, INT64_C(3600000000), 3, 2048, 22, 23552},    /* 1 us .. 1 h */
        {1, INT64_C(86400000000), 3, 2048, 27, 28672},   /* 1 us .. 1 day */
        {1, INT64_C(3600000000), 2, 256, 25, 3328},
        {1, INT64_C(3600000000), 4, 32768, 18, 311296},
        {10, 20, 3, 2048, 1, 2048},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct hist h;
        if (!CHECK(hist_init(&h, good[i].lowest, good[i].highest, good[i].digits) == 0))
            continue;
        if (!CHECK(h.sub_bucket_count == good[i].sub_bucket_count) ||
            !CHECK(h.bucket_count == good[i].bucket_count) ||
            !CHECK(h.counts_len == good[i].counts_len))
            fprintf(stderr, "  config %zu: sub %d buckets %d counts %d\n", i,
                    (int)h.sub_bucket_count, (int)h.bucket_count, (int)h.counts_len);
        CHECK(h.sub_bucket_half_count == h.sub_bucket_count / 2);
        CHECK((INT32_C(1) << h.sub_bucket_half_count_magnitude) == h.sub_bucket_half_count);
        CHECK(h.count == 0 && h.min == INT64_MAX && h.max == 0);
        hist_free(&h);
    }

    struct hist h;
    hist_init_default(&h);
    CHECK(h.lowest == HIST_LOWEST && h.highest == HIST_HIGHEST && h.digits == HIST_DIGITS);
    CHECK(h.sub_bucket_count == 2048);
    CHECK(h.sub_bucket_half_count == 1024);
    CHECK(h.sub_bucket_half_count_magnitude == 10);
    CHECK(h.unit_magnitude == 0);
    CHECK(h.sub_bucket_mask == 2047);
    CHECK(h.bucket_count == 32 && h.counts_len == 33792);
    hist_free(&h);

    CHECK(hist_init(&h, 1000, INT64_C(3600000000000), 3) == 0);
    CHECK(h.unit_magnitude == 9);
    CHECK(h.sub_bucket_mask == INT64_C(2047) << 9);
    hist_free(&h);

    static const struct {
        int64_t lowest, highest;
        int digits;
    } bad[] = {
        {0, 100, 3},
        {-1, 100, 3},
        {10, 19, 3},
        {1, 1, 3},
        {1, 100, 0},
        {1, 100, 6},
        {1, 100, -3},
        {INT64_MAX / 2 + 1, INT64_MAX, 3},
        {INT64_C(1) << 52, INT64_MAX, 5}, /* 52 + 17 > 61: mask would overflow */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (!CHECK(hist_init(&h, bad[i].lowest, bad[i].highest, bad[i].digits) == -1)) {
            fprintf(stderr, "  bad config %zu accepted\n", i);
            hist_free(&h);
            continue;
        }
        CHECK(h.counts == NULL);
    }
    CHECK(hist_init(&h, INT64_C(1) << 51, INT64_MAX, 3) == 0);
    hist_free(&h);
}

/* Every index maps to a bucket whose range tiles the value axis without gaps,
 * maps back to the same index, and is at most 1/sub_bucket_half_count of its
 * lowest value wide (1/1024 for 3 digits), or one unit wide in bucket 0. */
static void check_bucket_arithmetic(const struct hist *h)
{
    int64_t unit = INT64_C(1) << h->unit_magnitude;
    int64_t expect_lowest = 0;
    for (int32_t i = 0; i < h->counts_len; i++) {
        int64_t lo = hist_value_at_index(h, i);
        int64_t hi = hist_highest_equivalent(h, lo);
        if (!CHECK(lo == expect_lowest) || !CHECK(hi >= lo) ||
            !CHECK(hist_index_of(h, lo) == i) || !CHECK(hist_index_of(h, hi) == i) ||
            !CHECK(hist_highest_equivalent(h, hi) == hi) ||
            !CHECK(hi - lo + 1 == unit || (hi - lo + 1) * h->sub_bucket_half_count <= lo)) {
            fprintf(stderr, "  lowest %lld unit %lld index %d: [%lld, %lld]\n",
                    (long long)h->lowest, (long long)unit, (int)i, (long long)lo,
                    (long long)hi);
            return;
        }
        if (hi == INT64_MAX) {
            CHECK(i == h->counts_len - 1);
            return;
        }
        expect_lowest = hi + 1;
    }
    CHECK(expect_lowest > h->highest);
}

static void test_bucket_arithmetic(void)
{
    struct hist h;
    hist_init_default(&h);
    for (int64_t v = 0; v < 2048; v++) {
        if (!CHECK(hist_index_of(&h, v) == v) || !CHECK(hist_value_at_index(&h, (int32_t)v) == v) ||
            !CHECK(hist_highest_equivalent(&h, v) == v))
            break;
    }
    /* 1e7 lies in [2^23, 2^24): bucket 13, steps of 2^13 = 8192. */
    CHECK(hist_highest_equivalent(&h, 10000000) == INT64_C(1220) * 8192 + 8191);
    CHECK(hist_value_at_index(&h, hist_index_of(&h, 10000000)) == INT64_C(1220) * 8192);
    CHECK(hist_index_of(&h, HIST_HIGHEST) < h.counts_len);
    check_bucket_arithmetic(&h);
    hist_free(&h);

    static const struct {
        int64_t lowest, highest;
        int digits;
    } configs[] = {
        {1, INT64_C(3600000000), 3},
        {1000, INT64_C(3600000000000), 3},
        {1, INT64_C(3600000000), 2},
        {1, INT64_MAX, 3},
        {INT64_C(1) << 51, INT64_MAX, 3},
    };
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        if (!CHECK(hist_init(&h, configs[i].lowest, configs[i].highest, configs[i].digits) == 0))
            continue;
        check_bucket_arithmetic(&h);
        hist_free(&h);
    }
}

static void check_iteration(const struct hist *h)
{
    struct hist_iter it;
    int64_t total = 0, prev = -1, last_cumulative = 0;
    hist_iter_init(&it, h);
    while (hist_iter_next(&it)) {
        total += it.count;
        if (!CHECK(it.count > 0) || !CHECK(it.value > prev) ||
            !CHECK(it.highest == hist_highest_equivalent(h, it.value)) ||
            !CHECK(hist_index_of(h, it.value) == it.index) || !CHECK(it.cumulative == total))
            return;
        prev = it.value;
        last_cumulative = it.cumulative;
    }
    CHECK(total == h->count);
    CHECK(last_cumulative == h->count);
    CHECK(!hist_iter_next(&it));
}

static void check_percentiles(const char *name, const struct hist *h, const int64_t *sorted,
                              int n)
{
    for (size_t i = 0; i < N_PERCENTILES; i++) {
        double p = percentiles[i];
        int64_t k = (int64_t)(p / 100.0 * n + 0.5);
        if (k < 1)
            k = 1;
        int64_t xk = sorted[k - 1];
        int64_t got = hist_percentile(h, p);
        int ok = p == 0 ? CHECK(got == sorted[0])
                        : CHECK(xk <= got) &&
                              CHECK((long double)got <= (long double)xk * (1 + 1 / 1024.0L));
        if (!ok)
            fprintf(stderr, "  %s p%g: x_k %lld (k %lld) reported %lld\n", name, p,
                    (long long)xk, (long long)k, (long long)got);
    }
}

static void check_moments(const char *name, const struct hist *h, const int64_t *x, int n)
{
    __int128 sum = 0;
    unsigned __int128 sum_sq = 0;
    for (int i = 0; i < n; i++) {
        sum += x[i];
        sum_sq += (unsigned __int128)(uint64_t)x[i] * (uint64_t)x[i];
    }
    CHECK(h->sum == sum);
    CHECK(h->sum_sq == sum_sq);

    long double mean = (long double)sum / n;
    long double dev = 0;
    for (int i = 0; i < n; i++)
        dev += ((long double)x[i] - mean) * ((long double)x[i] - mean);
    long double stdev = sqrtl(dev / n);

    double got_mean = hist_mean(h), got_stdev = hist_stdev(h);
    if (!CHECK(fabsl(got_mean - mean) <= 1e-9L * mean) ||
        !CHECK(fabsl(got_stdev - stdev) <= 1e-6L * stdev))
        fprintf(stderr, "  %s: mean %.17g (exact %.17Lg), stdev %.17g (two-pass %.17Lg)\n",
                name, got_mean, mean, got_stdev, stdev);
}

/* Recording the samples spread over m histograms and merging them must give
 * back the single histogram bit for bit. */
static void check_merge(const char *name, const struct hist *whole, const int64_t *x, int n)
{
    for (int m = 1; m <= 8; m++) {
        struct hist part[8], merged;
        for (int i = 0; i < m; i++)
            hist_init_default(&part[i]);
        for (int j = 0; j < n; j++)
            hist_record(&part[rng_next() % (uint64_t)m], x[j]);
        hist_init_default(&merged);
        for (int i = 0; i < m; i++)
            CHECK(hist_merge(&merged, &part[i]) == 0);

        int ok = CHECK(memcmp(merged.counts, whole->counts,
                              (size_t)whole->counts_len * sizeof *whole->counts) == 0) &&
                 CHECK(merged.count == whole->count) && CHECK(merged.min == whole->min) &&
                 CHECK(merged.max == whole->max) && CHECK(merged.sum == whole->sum) &&
                 CHECK(merged.sum_sq == whole->sum_sq) &&
                 CHECK(merged.clamped == whole->clamped);
        for (size_t i = 0; ok && i < N_PERCENTILES; i++)
            ok = CHECK(hist_percentile(&merged, percentiles[i]) ==
                       hist_percentile(whole, percentiles[i]));
        if (!ok)
            fprintf(stderr, "  %s: merge of %d parts differs\n", name, m);

        for (int i = 0; i < m; i++)
            hist_free(&part[i]);
        hist_free(&merged);
    }
}

static void test_sample_sets(void)
{
    static const struct {
        const char *name;
        void (*fill)(int64_t *x, int n);
    } sets[] = {
        {"constant", fill_constant},
        {"uniform 1..1e6", fill_uniform_1e6},
        {"uniform 1..1e9", fill_uniform_1e9},
        {"log-uniform 1e3..6e10", fill_log_uniform},
        {"bimodal 1ms/1s", fill_bimodal},
    };
    int n = N_SAMPLES;
    int64_t *x = xcalloc((size_t)n, sizeof *x);
    int64_t *sorted = xcalloc((size_t)n, sizeof *sorted);

    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
        const char *name = sets[s].name;
        sets[s].fill(x, n);
        memcpy(sorted, x, (size_t)n * sizeof *x);
        qsort(sorted, (size_t)n, sizeof *sorted, cmp_int64);

        struct hist h;
        hist_init_default(&h);
        record_all(&h, x, n);
        if (!CHECK(h.count == n) || !CHECK(h.min == sorted[0]) ||
            !CHECK(h.max == sorted[n - 1]) || !CHECK(h.clamped == 0))
            fprintf(stderr, "  %s: count %lld min %lld max %lld\n", name, (long long)h.count,
                    (long long)h.min, (long long)h.max);
        check_percentiles(name, &h, sorted, n);
        check_moments(name, &h, x, n);
        check_iteration(&h);
        check_merge(name, &h, x, n);
        hist_free(&h);
    }
    free(x);
    free(sorted);
}

static void test_merge_mismatch(void)
{
    struct hist dst, snapshot;
    hist_init_default(&dst);
    for (int64_t v = 1; v <= 5000; v++)
        hist_record(&dst, v * 997);
    memcpy(&snapshot, &dst, sizeof dst);
    int64_t *counts = xcalloc((size_t)dst.counts_len, sizeof *counts);
    memcpy(counts, dst.counts, (size_t)dst.counts_len * sizeof *counts);

    static const struct {
        int64_t lowest, highest;
        int digits;
    } other[] = {
        {1, INT64_C(3600000000), 3},
        {1, HIST_HIGHEST, 2},
        {2, HIST_HIGHEST, 3},
        {1, HIST_HIGHEST + 1, 3}, /* same layout, different clamp point */
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        struct hist src;
        if (!CHECK(hist_init(&src, other[i].lowest, other[i].highest, other[i].digits) == 0))
            continue;
        hist_record(&src, 1);
        hist_record(&src, 123456789);
        CHECK(hist_merge(&dst, &src) == -1);
        CHECK(memcmp(&dst, &snapshot, sizeof dst) == 0);
        CHECK(memcmp(dst.counts, counts, (size_t)dst.counts_len * sizeof *counts) == 0);
        hist_free(&src);
    }

    /* An empty source changes nothing, min included. */
    struct hist empty;
    hist_init_default(&empty);
    CHECK(hist_merge(&dst, &empty) == 0);
    CHECK(memcmp(&dst, &snapshot, sizeof dst) == 0);
    CHECK(memcmp(dst.counts, counts, (size_t)dst.counts_len * sizeof *counts) == 0);
    hist_free(&empty);

    /* The sample sets never clamp; this source does, and holds a new min. */
    struct hist src;
    hist_init_default(&src);
    hist_record(&src, -7);
    hist_record(&src, HIST_HIGHEST * 2);
    CHECK(hist_merge(&dst, &src) == 0);
    CHECK(dst.count == snapshot.count + 2 && dst.clamped == snapshot.clamped + 1);
    CHECK(dst.min == 0 && dst.max == HIST_HIGHEST);
    CHECK(dst.sum == snapshot.sum + HIST_HIGHEST);
    CHECK(dst.counts[0] == counts[0] + 1);
    hist_free(&src);

    free(counts);
    hist_free(&dst);
}

static void test_edge_cases(void)
{
    struct hist h;
    hist_init_default(&h);

    for (size_t i = 0; i < N_PERCENTILES; i++)
        CHECK(hist_percentile(&h, percentiles[i]) == 0);
    CHECK(hist_mean(&h) == 0 && hist_stdev(&h) == 0);
    CHECK(h.count == 0 && h.min == INT64_MAX && h.max == 0);
    check_iteration(&h);

    hist_record(&h, 0);
    CHECK(h.count == 1 && h.min == 0 && h.max == 0 && h.counts[0] == 1);
    CHECK(hist_percentile(&h, 0) == 0 && hist_percentile(&h, 50) == 0 &&
          hist_percentile(&h, 100) == 0);

    hist_record(&h, -5);
    hist_record(&h, INT64_MIN);
    CHECK(h.count == 3 && h.counts[0] == 3 && h.min == 0 && h.max == 0);
    CHECK(h.sum == 0 && h.sum_sq == 0 && h.clamped == 0);
    CHECK(hist_mean(&h) == 0 && hist_stdev(&h) == 0);

    hist_record(&h, HIST_HIGHEST + 1);
    hist_record(&h, INT64_MAX);
    CHECK(h.count == 5 && h.clamped == 2 && h.max == HIST_HIGHEST);
    CHECK(h.sum == (__int128)HIST_HIGHEST * 2);
    CHECK(h.counts[hist_index_of(&h, HIST_HIGHEST)] == 2);
    CHECK(hist_percentile(&h, 100) == HIST_HIGHEST);
    CHECK(hist_percentile(&h, 0) == 0);
    check_iteration(&h);

    hist_reset(&h);
    CHECK(h.count == 0 && h.min == INT64_MAX && h.max == 0 && h.clamped == 0);
    CHECK(h.sum == 0 && h.sum_sq == 0);
    CHECK(h.bucket_count == 32 && h.counts_len == 33792 && h.counts != NULL);
    int all_zero = 1;
    for (int32_t i = 0; i < h.counts_len; i++)
        all_zero &= h.counts[i] == 0;
    CHECK(all_zero);
    CHECK(hist_percentile(&h, 50) == 0);

    /* Bucket 0 is exact, so small values give exact order statistics. */
    for (int64_t v = 100; v >= 1; v--)
        hist_record(&h, v);
    CHECK(hist_percentile(&h, 0) == 1);
    CHECK(hist_percentile(&h, 0.1) == 1);
    CHECK(hist_percentile(&h, 50) == 50);
    CHECK(hist_percentile(&h, 99) == 99);
    CHECK(hist_percentile(&h, 99.5) == 100);
    CHECK(hist_percentile(&h, 100) == 100);
    CHECK(hist_percentile(&h, 250) == 100);
    CHECK(hist_percentile(&h, -1) == 1);
    CHECK(hist_mean(&h) == 50.5);
    CHECK(fabs(hist_stdev(&h) - sqrt(9999.0 / 12)) < 1e-12);

    /* Above bucket 0 a percentile reports the top of its bucket, but never
     * more than the exact max. */
    hist_reset(&h);
    hist_record(&h, 10000000);
    CHECK(hist_percentile(&h, 50) == 10000000);
    hist_record(&h, 20000000);
    CHECK(hist_percentile(&h, 50) == INT64_C(1220) * 8192 + 8191);
    CHECK(hist_percentile(&h, 100) == 20000000);
    CHECK(hist_percentile(&h, 0) == 10000000);

    /* A small spread far from zero: sum_sq/n - mean^2 would lose it all to
     * cancellation even in long double. */
    hist_reset(&h);
    for (int i = 0; i < 3000; i++)
        hist_record(&h, HIST_HIGHEST - 1 - i % 3);
    CHECK(hist_mean(&h) == (double)(HIST_HIGHEST - 2));
    CHECK(fabs(hist_stdev(&h) - sqrt(2.0 / 3)) < 1e-12);
    hist_reset(&h);
    for (int i = 0; i < 3000; i++)
        hist_record(&h, HIST_HIGHEST - 1);
    CHECK(hist_stdev(&h) == 0);

    hist_free(&h);
    CHECK(h.counts == NULL);
    hist_init_default(&h);
    hist_record(&h, 42);
    CHECK(h.count == 1 && h.min == 42);
    hist_free(&h);

    /* A range reaching INT64_MAX: the top bucket ends exactly there. */
    CHECK(hist_init(&h, 1, INT64_MAX, 3) == 0);
    hist_record(&h, INT64_MAX);
    hist_record(&h, INT64_MAX - 1);
    CHECK(h.clamped == 0 && h.max == INT64_MAX);
    CHECK(hist_highest_equivalent(&h, INT64_MAX) == INT64_MAX);
    CHECK(hist_percentile(&h, 100) == INT64_MAX);
    CHECK(hist_percentile(&h, 50) == INT64_MAX);
    check_iteration(&h);
    hist_free(&h);
}

/* hist_record_n(v, n) is exactly n calls of hist_record(v). */
static void test_record_n(void)
{
    static const int64_t values[] = {0, 1, 2047, 2048, 123456789, -5, HIST_HIGHEST + 7};
    struct hist a, b;
    hist_init_default(&a);
    hist_init_default(&b);
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        int64_t n = (int64_t)i * 1000 + 3;
        hist_record_n(&a, values[i], n);
        for (int64_t k = 0; k < n; k++)
            hist_record(&b, values[i]);
    }
    hist_record_n(&a, 42, 0);
    hist_record_n(&a, 42, -1);
    CHECK(memcmp(a.counts, b.counts, (size_t)a.counts_len * sizeof a.counts[0]) == 0);
    CHECK(a.count == b.count && a.min == b.min && a.max == b.max && a.clamped == b.clamped);
    CHECK(a.sum == b.sum && a.sum_sq == b.sum_sq);
    hist_free(&a);
    hist_free(&b);
}

int main(void)
{
    test_record_n();
    test_config();
    test_bucket_arithmetic();
    test_edge_cases();
    test_merge_mismatch();
    test_sample_sets();
    if (failures) {
        fprintf(stderr, "test_hist: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_hist: ok\n");
    return 0;
}
