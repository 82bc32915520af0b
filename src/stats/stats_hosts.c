/* A flow's requests per host (stats_hosts.h). */
#include "stats_hosts.h"

#include "xalloc.h"

#include <stdio.h>
#include <string.h>

int stats_hosts_add(struct stats_hosts **hp, const char *origin)
{
    if (!*hp)
        *hp = xcalloc(1, sizeof **hp);
    struct stats_hosts *h = *hp;
    for (uint32_t i = 0; i < h->n; i++)
        if (strcmp(h->h[i].origin, origin) == 0)
            return (int)i;
    if (h->n == STATS_HOSTS_MAX)
        return -1;
    snprintf(h->h[h->n].origin, sizeof h->h[h->n].origin, "%s", origin);
    return (int)h->n++;
}

void stats_hosts_merge(struct stats_hosts **dst, const struct stats_hosts *src)
{
    for (uint32_t i = 0; src && i < src->n; i++) {
        int at = stats_hosts_add(dst, src->h[i].origin);
        if (at < 0)
            continue;
        (*dst)->h[at].requests += src->h[i].requests;
        (*dst)->h[at].failed += src->h[i].failed;
    }
}
