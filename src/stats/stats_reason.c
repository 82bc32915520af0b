/* A list of failure reasons and their counts (stats_reason.h): the one
 * place a reason is found or added. */
#include "stats_reason.h"

#include "xalloc.h"

#include <string.h>

struct stats_reason *stats_reason_add(struct stats_reason **list, size_t *len, size_t max, const char *reason,
                                      uint64_t n)
{
    for (size_t i = 0; i < *len; i++) {
        if (strcmp((*list)[i].reason, reason) == 0) {
            (*list)[i].count += n;
            return &(*list)[i];
        }
    }
    if (*len >= max)
        return NULL;
    *list = xrealloc(*list, (*len + 1) * sizeof **list);
    (*list)[*len] = (struct stats_reason){xstrdup(reason), n};
    return &(*list)[(*len)++];
}
