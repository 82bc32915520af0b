/* The run's request names, interned under a lock at each name's first use
 * in a worker; see names.h. */
#include "names.h"

#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

void names_init(struct names *ns)
{
    memset(ns, 0, sizeof *ns);
    pthread_mutex_init(&ns->lock, NULL);
}

void names_free(struct names *ns)
{
    for (uint32_t i = 0; i < ns->n; i++)
        free(ns->name[i]);
    pthread_mutex_destroy(&ns->lock);
    memset(ns, 0, sizeof *ns);
}

int names_intern(struct names *ns, const char *name, size_t len)
{
    int id = -1;
    pthread_mutex_lock(&ns->lock);
    /* A linear search: at most NAMES_MAX names, once per name and worker. */
    for (uint32_t i = 0; i < ns->n && id < 0; i++)
        if (strlen(ns->name[i]) == len && memcmp(ns->name[i], name, len) == 0)
            id = (int)i;
    if (id < 0 && ns->n < NAMES_MAX) {
        ns->name[ns->n] = xstrndup(name, len);
        id = (int)ns->n++;
    }
    pthread_mutex_unlock(&ns->lock);
    return id;
}

uint32_t names_count(struct names *ns)
{
    pthread_mutex_lock(&ns->lock);
    uint32_t n = ns->n;
    pthread_mutex_unlock(&ns->lock);
    return n;
}
