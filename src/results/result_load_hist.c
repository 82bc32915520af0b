/* A saved result's histogram read back (result_load_internal.h): its
 * "hdr" decoded and its exact figures ("sum", "sum_sq", min, max, the
 * clamped count) put back, for result_load.c and the readers of the
 * result's other parts. */
#include "result_load_internal.h"

#include <math.h>
#include <stdio.h>

/* A decimal string of at most 38 digits ("sum", "sum_sq") into *out;
 * false (with rd failed) when it is not one. */
static bool load_u128(struct html_rd *rd, const struct json *obj, const char *path, const char *key,
                      unsigned __int128 *out)
{
    size_t len;
    const char *d = html_rd_str(rd, obj, path, key, true, &len);
    if (!d)
        return false;
    unsigned __int128 v = 0;
    for (size_t i = 0; i < len; i++) {
        if (d[i] < '0' || d[i] > '9' || len > 38) { /* 38 digits stay below 2^127 */
            html_rd_fail(rd, path, key, "expected a string of at most 38 decimal digits");
            return false;
        }
        v = v * 10 + (unsigned)(d[i] - '0');
    }
    if (len == 0) {
        html_rd_fail(rd, path, key, "expected a string of at most 38 decimal digits");
        return false;
    }
    *out = v;
    return true;
}

void result_load_exact(struct html_rd *rd, const struct json *obj, const char *path, double scale, struct hist *h)
{
    /* The count beside the blob is what the run counted: a blob that holds
     * another is an edited or damaged one. */
    const struct json *count = json_in_get(obj, "count");
    if (count && count->type == JSON_NUMBER && count->num != (double)h->count) {
        html_rd_fail(rd, path, "count", "%.17g, but its histogram (hdr) holds %lld values", count->num,
                     (long long)h->count);
        return;
    }
    if (!json_in_get(obj, "sum") || h->count == 0)
        return;
    unsigned __int128 sum, sum_sq;
    if (!load_u128(rd, obj, path, "sum", &sum) || !load_u128(rd, obj, path, "sum_sq", &sum_sq))
        return;
    double min = html_rd_num(rd, obj, path, "min", true), max = html_rd_num(rd, obj, path, "max", true);
    double clamped = html_rd_count(rd, obj, path, "clamped");
    if (rd->failed)
        return;
    int64_t lo = (int64_t)llround(min * scale), hi = (int64_t)llround(max * scale);
    if (!(min * scale >= 0 && max * scale <= (double)h->highest && lo <= hi)) {
        html_rd_fail(rd, path, "min", "min and max out of the histogram's range (or min above max)");
        return;
    }
    h->min = lo;
    h->max = hi;
    h->sum = (__int128)sum;
    h->sum_sq = sum_sq;
    h->clamped = clamped <= (double)h->count ? (int64_t)clamped : h->count;
}

void result_load_hist(struct html_rd *rd, const struct json *parent, const char *path, const char *key,
                      bool required, double scale, struct hist *into)
{
    const struct json *obj = html_rd_of(rd, parent, path, key, JSON_OBJECT, required);
    if (!obj)
        return;
    char at[320];
    snprintf(at, sizeof at, "%s%s%s", path, path[0] ? "." : "", key);
    struct hist h;
    if (!html_rd_hist(rd, obj, at, &h))
        return;
    result_load_exact(rd, obj, at, scale, &h);
    if (!rd->failed && hist_merge(into, &h) < 0)
        html_rd_fail(rd, at, "hdr", "a histogram of another configuration, or whose sums overflow");
    hist_free(&h);
}

