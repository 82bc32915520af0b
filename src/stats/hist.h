/* HdrHistogram-compatible log-linear histogram with fixed memory.
 *
 * Bucket layout, indexing and percentile definition follow HdrHistogram
 * (see shared/reference/latency-and-hdrhistogram.md): with 3 significant
 * digits there are 2048 sub-buckets, bucket 0 is exact, and every value is
 * stored with a relative error below 1/1024. Beside the buckets the histogram
 * keeps exact count, min, max, sum and sum of squares, so mean and standard
 * deviation are exact, not bucket estimates.
 *
 * Values are plain non-negative integers; volley records nanoseconds with
 * HIST_LOWEST=1, HIST_HIGHEST=1 hour, HIST_DIGITS=3. */
#ifndef VOLLEY_HIST_H
#define VOLLEY_HIST_H

#include <stdbool.h>
#include <stdint.h>

#define HIST_LOWEST 1
#define HIST_HIGHEST INT64_C(3600000000000) /* 1 h in ns */
#define HIST_DIGITS 3

/* Fields are read-only to callers; change them only through hist_*. */
struct hist {
    int64_t lowest;           /* lowest discernible value (>= 1) */
    int64_t highest;          /* highest trackable value */
    int digits;               /* significant digits, 1..5 */
    int unit_magnitude;       /* floor(log2(lowest)) */
    int sub_bucket_half_count_magnitude;
    int32_t sub_bucket_count; /* 2048 for 3 digits */
    int32_t sub_bucket_half_count;
    int64_t sub_bucket_mask;
    int32_t bucket_count;
    int32_t counts_len;
    int64_t *counts;          /* counts_len entries, owned */
    int64_t count;            /* exact number of values recorded */
    int64_t min;              /* exact; INT64_MAX when empty */
    int64_t max;              /* exact; 0 when empty */
    int64_t clamped;          /* values above highest, recorded as highest */
    __int128 sum;             /* exact sum of recorded values (after clamping) */
    unsigned __int128 sum_sq; /* exact sum of squares */
};

/* Sets up h for values in [lowest, highest] with the given significant digits
 * (1..5), allocating its counts (aborts on OOM). Returns 0, or -1 if the
 * configuration is invalid (lowest < 1, highest < 2 * lowest, digits out of
 * range). */
int hist_init(struct hist *h, int64_t lowest, int64_t highest, int digits);

/* The number of counts hist_init would allocate for this configuration
 * (allocating nothing), or -1 if it is invalid. */
int32_t hist_counts_len(int64_t lowest, int64_t highest, int digits);

/* Same as hist_init(h, HIST_LOWEST, HIST_HIGHEST, HIST_DIGITS). */
void hist_init_default(struct hist *h);

/* Frees the counts; h may be initialised again afterwards. */
void hist_free(struct hist *h);

/* Forgets every recorded value; keeps the configuration and memory. */
void hist_reset(struct hist *h);

/* Records one value. Negative values are recorded as 0; values above highest
 * are recorded as highest and counted in h->clamped. No allocation. */
void hist_record(struct hist *h, int64_t value);

/* Records value n times (n <= 0: nothing), exactly as n calls would. */
void hist_record_n(struct hist *h, int64_t value, int64_t n);

/* Adds every count of src into dst (element-wise), and merges count, min,
 * max, sum, sum_sq, clamped. Returns 0, or -1 (dst untouched) if the two
 * configurations differ (merging across configurations would move values
 * between buckets) or the total count, sum, sum of squares or clamped
 * count would overflow (histograms read from files may claim any). */
int hist_merge(struct hist *dst, const struct hist *src);

/* Whether src's count, sum, sum of squares and clamped count can be added
 * to dst's without overflow (hist_merge's check, the configurations aside). */
bool hist_merge_fits(const struct hist *dst, const struct hist *src);

/* HdrHistogram's value_at_percentile: p in [0, 100]; the rank is
 * max(1, (int64)(p / 100 * count + 0.5)); the answer is the highest value
 * equivalent to the bucket holding that rank (for p == 0, the lowest
 * equivalent value of the first non-empty bucket), capped at h->max.
 * Returns 0 for an empty histogram. */
int64_t hist_percentile(const struct hist *h, double p);

/* Exact mean and population standard deviation of what was recorded; 0 when
 * empty. */
double hist_mean(const struct hist *h);
double hist_stdev(const struct hist *h);

/* Bucket arithmetic, exposed for iteration and encoders. */
int32_t hist_index_of(const struct hist *h, int64_t value);
int64_t hist_value_at_index(const struct hist *h, int32_t index);     /* lowest equivalent */
int64_t hist_highest_equivalent(const struct hist *h, int64_t value); /* top of value's bucket */

/* Iteration over non-empty buckets in increasing value order:
 *     struct hist_iter it; hist_iter_init(&it, h);
 *     while (hist_iter_next(&it)) use(it.value, it.highest, it.count, it.cumulative);
 * value is the bucket's lowest equivalent value, highest its highest. */
struct hist_iter {
    const struct hist *h;
    int32_t index;
    int64_t value;
    int64_t highest;
    int64_t count;
    int64_t cumulative;
};
void hist_iter_init(struct hist_iter *it, const struct hist *h);
int hist_iter_next(struct hist_iter *it);

#endif
