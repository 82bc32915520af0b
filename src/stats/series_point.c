/* One second of the series and its counts (series_point.h): the status
 * classes' names, counts added, and a point's latency figures from its
 * histogram. */
#include "series_point.h"

#include "hdr_codec.h"

const char *series_class_name(int i)
{
    static const char *const names[SERIES_CLASSES] = {"1xx", "2xx", "3xx", "4xx", "5xx", "other"};
    return names[i];
}

void series_counts_add(struct series_counts *dst, const struct series_counts *src)
{
    dst->requests += src->requests;
    dst->bytes += src->bytes;
    dst->sent += src->sent;
    dst->conn_samples += src->conn_samples;
    dst->events += src->events;
    dst->tokens += src->tokens;
    dst->streams += src->streams;
    for (int i = 0; i < SERIES_CLASSES; i++)
        dst->status[i] += src->status[i];
    for (int e = 0; e < SERIES_KINDS; e++)
        dst->errors[e] += src->errors[e];
}

void series_point_latency(struct series_point *p, const struct hist *h)
{
    p->latency_count = (uint64_t)h->count;
    p->p50 = hist_percentile(h, 50);
    p->p90 = hist_percentile(h, 90);
    p->p99 = hist_percentile(h, 99);
    p->max = h->max;
    p->hist = hdr_encode(h, NULL);
}
