/* Log-linear latency histogram with HdrHistogram's bucket layout, so its
 * counts and percentiles match what HdrHistogram tools compute. Recording is
 * allocation-free and branch-light because it runs once per response on the
 * hot path; everything else (percentiles, merge, iteration) is report-time. */
#include "hist.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* Bucket b ends at sub_bucket_count << (b + unit_magnitude), so the bucket
 * follows from the bit length (64 - clz) of value. OR-ing in the mask folds
 * every value below sub_bucket_count units into bucket 0 and keeps clz's
 * argument non-zero. */
static inline int bucket_of(const struct hist *h, int64_t value)
{
    int pow2ceiling = 64 - __builtin_clzll((uint64_t)(value | h->sub_bucket_mask));
    return pow2ceiling - h->unit_magnitude - (h->sub_bucket_half_count_magnitude + 1);
}

static inline int32_t sub_bucket_of(const struct hist *h, int64_t value, int bucket)
{
    return (int32_t)(value >> (bucket + h->unit_magnitude));
}

/* Buckets above 0 only use their upper half of sub-buckets (the lower half
 * is the previous bucket's range at twice the resolution), so each bucket
 * adds sub_bucket_half_count slots to the array. */
static inline int32_t index_of(const struct hist *h, int64_t value)
{
    int bucket = bucket_of(h, value);
    int32_t sub = sub_bucket_of(h, value, bucket);
    return ((int32_t)(bucket + 1) << h->sub_bucket_half_count_magnitude) + sub -
           h->sub_bucket_half_count;
}

static int64_t lowest_equivalent(const struct hist *h, int64_t value)
{
    int bucket = bucket_of(h, value);
    return (int64_t)sub_bucket_of(h, value, bucket) << (bucket + h->unit_magnitude);
}

static int64_t equivalent_range(const struct hist *h, int64_t value)
{
    return INT64_C(1) << (h->unit_magnitude + bucket_of(h, value));
}

/* Smallest b with sub_bucket_count << (unit_magnitude + b - 1) > highest; a
 * shift reaching bit 63 exceeds every int64, so the loop stops there instead
 * of overflowing. */
static int32_t buckets_to_cover(int sub_bucket_count_magnitude, int unit_magnitude,
                                int64_t highest)
{
    int32_t b = 1;
    int shift = sub_bucket_count_magnitude + unit_magnitude;
    while (shift + b - 1 < 63 && (INT64_C(1) << (shift + b - 1)) <= highest)
        b++;
    return b;
}

/* Everything hist_init sets but the counts; -1 for an invalid configuration. */
static int configure(struct hist *h, int64_t lowest, int64_t highest, int digits)
{
    memset(h, 0, sizeof *h);
    if (lowest < 1 || lowest > INT64_MAX / 2 || highest < 2 * lowest)
        return -1;
    if (digits < 1 || digits > 5)
        return -1;

    int64_t single_unit_top = 2;
    for (int i = 0; i < digits; i++)
        single_unit_top *= 10;
    int sub_bucket_count_magnitude = 0;
    while ((INT64_C(1) << sub_bucket_count_magnitude) < single_unit_top)
        sub_bucket_count_magnitude++;
    int unit_magnitude = 63 - __builtin_clzll((uint64_t)lowest);
    /* Past this, sub_bucket_count << unit_magnitude no longer fits an int64. */
    if (unit_magnitude + sub_bucket_count_magnitude - 1 > 61)
        return -1;

    h->lowest = lowest;
    h->highest = highest;
    h->digits = digits;
    h->unit_magnitude = unit_magnitude;
    h->sub_bucket_half_count_magnitude = sub_bucket_count_magnitude - 1;
    h->sub_bucket_count = (int32_t)1 << sub_bucket_count_magnitude;
    h->sub_bucket_half_count = h->sub_bucket_count / 2;
    h->sub_bucket_mask = (int64_t)(h->sub_bucket_count - 1) << unit_magnitude;
    h->bucket_count = buckets_to_cover(sub_bucket_count_magnitude, unit_magnitude, highest);
    h->counts_len = (h->bucket_count + 1) * h->sub_bucket_half_count;
    h->min = INT64_MAX;
    return 0;
}

int hist_init(struct hist *h, int64_t lowest, int64_t highest, int digits)
{
    if (configure(h, lowest, highest, digits) < 0)
        return -1;
    h->counts = xcalloc((size_t)h->counts_len, sizeof *h->counts);
    return 0;
}

int32_t hist_counts_len(int64_t lowest, int64_t highest, int digits)
{
    struct hist h;
    return configure(&h, lowest, highest, digits) < 0 ? -1 : h.counts_len;
}

void hist_init_default(struct hist *h)
{
    int rc = hist_init(h, HIST_LOWEST, HIST_HIGHEST, HIST_DIGITS);
    assert(rc == 0 && "default histogram configuration must be valid");
    (void)rc;
}

void hist_free(struct hist *h)
{
    free(h->counts);
    memset(h, 0, sizeof *h);
}

void hist_reset(struct hist *h)
{
    /* Only the counts in use are written: pages of the (calloc'd) array no
     * value reached stay untouched, so a sparse histogram (a request name's
     * interval histogram) keeps only a few pages resident. */
    for (int32_t i = 0; h->count && i < h->counts_len; i++)
        if (h->counts[i])
            h->counts[i] = 0;
    h->count = 0;
    h->min = INT64_MAX;
    h->max = 0;
    h->clamped = 0;
    h->sum = 0;
    h->sum_sq = 0;
}

/* hist_record_n for n == 1, kept apart: it runs twice per request, and
 * without the multiplications it is about half the instructions. */
void hist_record(struct hist *h, int64_t value)
{
    if (value < 0) {
        value = 0;
    } else if (value > h->highest) {
        value = h->highest;
        h->clamped++;
    }
    h->counts[index_of(h, value)]++;
    h->count++;
    if (value < h->min)
        h->min = value;
    if (value > h->max)
        h->max = value;
    h->sum += value;
    h->sum_sq += (unsigned __int128)(uint64_t)value * (uint64_t)value;
}

void hist_record_n(struct hist *h, int64_t value, int64_t n)
{
    if (n <= 0)
        return;
    if (value < 0) {
        value = 0;
    } else if (value > h->highest) {
        value = h->highest;
        h->clamped += n;
    }
    h->counts[index_of(h, value)] += n;
    h->count += n;
    if (value < h->min)
        h->min = value;
    if (value > h->max)
        h->max = value;
    h->sum += (__int128)value * n;
    h->sum_sq += (unsigned __int128)(uint64_t)value * (uint64_t)value * (uint64_t)n;
}

bool hist_merge_fits(const struct hist *dst, const struct hist *src)
{
    /* Counts are never negative, so no bucket can overflow if the total
     * does not: histograms read from files (volley merge) may claim any
     * count, and any sums (a saved result's "sum" and "sum_sq" are its
     * own). */
    __int128 sum;
    unsigned __int128 sum_sq;
    int64_t clamped;
    return src->count <= INT64_MAX - dst->count && !__builtin_add_overflow(dst->sum, src->sum, &sum) &&
           !__builtin_add_overflow(dst->sum_sq, src->sum_sq, &sum_sq) &&
           !__builtin_add_overflow(dst->clamped, src->clamped, &clamped);
}

int hist_merge(struct hist *dst, const struct hist *src)
{
    /* The derived fields follow from these three. */
    if (dst->lowest != src->lowest || dst->highest != src->highest ||
        dst->digits != src->digits)
        return -1;
    if (!hist_merge_fits(dst, src))
        return -1;
    /* Only dst's counts that change are written (see hist_reset). */
    for (int32_t i = 0; i < dst->counts_len; i++)
        if (src->counts[i])
            dst->counts[i] += src->counts[i];
    dst->count += src->count;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    dst->clamped += src->clamped;
    dst->sum += src->sum;
    dst->sum_sq += src->sum_sq;
    return 0;
}

int64_t hist_percentile(const struct hist *h, double p)
{
    if (h->count == 0)
        return 0;
    /* The first non-empty bucket holds the exact min, so its lowest
     * equivalent value floored at min is min itself. !(p > 0) also sends NaN
     * here rather than into the rank arithmetic. */
    if (!(p > 0))
        return h->min;
    if (p > 100)
        p = 100;

    int64_t rank = (int64_t)(p / 100.0 * (double)h->count + 0.5);
    if (rank < 1)
        rank = 1;
    if (rank > h->count)
        rank = h->count;

    int64_t seen = 0;
    for (int32_t i = 0; i < h->counts_len; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            int64_t v = hist_highest_equivalent(h, hist_value_at_index(h, i));
            return v < h->max ? v : h->max;
        }
    }
    return h->max;
}

double hist_mean(const struct hist *h)
{
    if (h->count == 0)
        return 0;
    return (double)((long double)h->sum / (long double)h->count);
}

/* sum_sq - sum^2/n cancels catastrophically when the spread is small next to
 * the mean (a constant series would show a spurious stdev). Splitting
 * sum = q*n + r gives sum_sq - n*q^2 - 2*q*r = sum (x - q)^2 exactly in
 * integers, leaving only r^2/n (< n) to subtract in floating point. */
double hist_stdev(const struct hist *h)
{
    if (h->count == 0)
        return 0;
    unsigned __int128 n = (unsigned __int128)h->count;
    unsigned __int128 sum = (unsigned __int128)h->sum;
    unsigned __int128 q = sum / n;
    unsigned __int128 r = sum % n;
    unsigned __int128 around_q = h->sum_sq - q * q * n - 2 * q * r;
    long double nl = (long double)h->count;
    long double var = ((long double)around_q - (long double)r * (long double)r / nl) / nl;
    if (var < 0)
        var = 0;
    return (double)sqrtl(var);
}

int32_t hist_index_of(const struct hist *h, int64_t value)
{
    assert(value >= 0 && "histogram values are non-negative");
    return index_of(h, value);
}

int64_t hist_value_at_index(const struct hist *h, int32_t index)
{
    int bucket = (index >> h->sub_bucket_half_count_magnitude) - 1;
    int32_t sub = (index & (h->sub_bucket_half_count - 1)) + h->sub_bucket_half_count;
    if (bucket < 0) {
        sub -= h->sub_bucket_half_count;
        bucket = 0;
    }
    return (int64_t)sub << (bucket + h->unit_magnitude);
}

/* lowest + (range - 1) rather than (lowest + range) - 1: the top bucket of a
 * histogram reaching INT64_MAX ends exactly at INT64_MAX. */
int64_t hist_highest_equivalent(const struct hist *h, int64_t value)
{
    return lowest_equivalent(h, value) + (equivalent_range(h, value) - 1);
}

void hist_iter_init(struct hist_iter *it, const struct hist *h)
{
    memset(it, 0, sizeof *it);
    it->h = h;
    it->index = -1;
}

int hist_iter_next(struct hist_iter *it)
{
    const struct hist *h = it->h;
    for (int32_t i = it->index + 1; i < h->counts_len; i++) {
        if (h->counts[i] == 0)
            continue;
        it->index = i;
        it->value = hist_value_at_index(h, i);
        it->highest = hist_highest_equivalent(h, it->value);
        it->count = h->counts[i];
        it->cumulative += it->count;
        return 1;
    }
    it->index = h->counts_len;
    return 0;
}
