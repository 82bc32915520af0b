/* One name's figures (struct stats_name: a request name's, or a tag's,
 * stats_tags.h): freeing, merging, and renumbering a table of them by
 * name; below stats.c and stats_tags.c, which both keep such tables. */
#include "stats.h"

#include "xalloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void stats_name_free(struct stats_name *n)
{
    free(n->name);
    hist_free(&n->latency);
    hist_free(&n->service);
    for (size_t i = 0; i < n->nreasons; i++)
        free(n->reasons[i].reason);
    free(n->reasons);
    free(n);
}

/* Adds src's figures of one name into dst's (the same configurations). */
void stats_name_merge(struct stats_name *dst, const struct stats_name *src)
{
    dst->started += src->started;
    dst->completed += src->completed;
    dst->cut_off += src->cut_off;
    dst->too_large += src->too_large;
    for (int i = 0; i < STATS_ERR_KINDS; i++)
        dst->errors[i] += src->errors[i];
    for (int i = 0; i < STATS_STATUS_MAX; i++)
        dst->status[i] += src->status[i];
    int rc = hist_merge(&dst->latency, &src->latency);
    if (src->service.counts) {
        if (!dst->service.counts)
            hist_init_default(&dst->service);
        rc |= hist_merge(&dst->service, &src->service);
    }
    assert(rc == 0 && "every name's histograms have the default configuration");
    (void)rc;
    for (size_t i = 0; i < src->nreasons; i++)
        stats_reason_add(&dst->reasons, &dst->nreasons, SIZE_MAX, src->reasons[i].reason, src->reasons[i].count);
    dst->reasons_more += src->reasons_more;
    dst->reasons_more_count += src->reasons_more_count;
}

int stats_align_table(struct stats_name ***src, uint32_t *nsrc, struct stats_name *const *dst, uint32_t ndst,
                      uint32_t max)
{
    if (!*src)
        return 0;
    struct stats_name **by_dst = xcalloc(max, sizeof *by_dst);
    uint32_t next = ndst, top = 0;
    for (uint32_t i = 0; i < *nsrc; i++) {
        struct stats_name *n = (*src)[i];
        if (!n)
            continue;
        uint32_t id = next;
        for (uint32_t j = 0; j < ndst; j++)
            if (dst[j] && strcmp(dst[j]->name, n->name) == 0) {
                id = j;
                break;
            }
        if (id == next && next++ >= max) {
            free(by_dst);
            return -1;
        }
        by_dst[id] = n;
        if (id + 1 > top)
            top = id + 1;
    }
    free(*src);
    *src = by_dst;
    *nsrc = top;
    return 0;
}
