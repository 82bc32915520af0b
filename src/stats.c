/* Merging per-worker results into one, after the workers have stopped. */
#include "stats.h"

#include <assert.h>
#include <string.h>

void stats_init(struct stats *s)
{
    memset(s, 0, sizeof *s);
    hist_init_default(&s->latency);
    hist_init_default(&s->connect);
    hist_init_default(&s->waiting);
}

void stats_free(struct stats *s)
{
    hist_free(&s->latency);
    hist_free(&s->connect);
    hist_free(&s->waiting);
}

void stats_finish(struct stats *s)
{
    hist_record_n(&s->connect, 0, (int64_t)s->reused);
    s->reused = 0;
}

void stats_merge(struct stats *dst, const struct stats *src)
{
    dst->started += src->started;
    dst->completed += src->completed;
    for (int i = 0; i < STATS_ERR_KINDS; i++)
        dst->errors[i] += src->errors[i];
    dst->cut_off += src->cut_off;
    for (int i = 0; i < STATS_STATUS_MAX; i++)
        dst->status[i] += src->status[i];
    dst->bytes_read += src->bytes_read;
    dst->bytes_written += src->bytes_written;
    dst->connects += src->connects;
    int rc = hist_merge(&dst->latency, &src->latency) | hist_merge(&dst->connect, &src->connect) |
             hist_merge(&dst->waiting, &src->waiting);
    assert(rc == 0 && "all workers use the same histogram configuration");
    (void)rc;
}

uint64_t stats_failed(const struct stats *s)
{
    uint64_t n = 0;
    for (int i = 0; i < STATS_ERR_KINDS; i++)
        n += s->errors[i];
    return n;
}

const char *stats_error_name(enum stats_error e)
{
    static const char *const names[STATS_ERR_KINDS] = {"connect", "read", "write", "timeout", "parse"};
    return names[e];
}
