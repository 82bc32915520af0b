/* The run's request names, interned under a lock at each name's first use
 * in a worker, and the default names ("METHOD path") of requests a script
 * sent unnamed, found through each worker's cache; see names.h. */
#include "names.h"

#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* The cache's table: a power of two over twice NAMES_MAX, so that it never
 * fills (it holds at most the run's names) and probes stay short. */
#define NAMES_CACHE_SLOTS 4096

struct names_slot {
    uint64_t hash;
    uint32_t id1; /* id + 1; 0: empty */
};

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

/* Under the lock: the id of the text at name, or -1. A linear search: at
 * most NAMES_MAX names, once per name and worker. */
static int find(const struct names *ns, const char *name, size_t len)
{
    for (uint32_t i = 0; i < ns->n; i++)
        if (strlen(ns->name[i]) == len && memcmp(ns->name[i], name, len) == 0)
            return (int)i;
    return -1;
}

/* Under the lock: name (owned, made by the caller) added as the next id;
 * n is published after name[id] is set. */
static int add(struct names *ns, char *name)
{
    uint32_t id = ns->n;
    ns->name[id] = name;
    __atomic_store_n(&ns->n, id + 1, __ATOMIC_RELEASE);
    return (int)id;
}

int names_intern(struct names *ns, const char *name, size_t len)
{
    pthread_mutex_lock(&ns->lock);
    int id = find(ns, name, len);
    if (id < 0 && ns->n < NAMES_MAX)
        id = add(ns, xstrndup(name, len));
    pthread_mutex_unlock(&ns->lock);
    return id;
}

int names_intern_default(struct names *ns, const char *method, size_t mlen, const char *path, size_t plen)
{
    char *text = xmalloc(mlen + plen + 2);
    memcpy(text, method, mlen);
    text[mlen] = ' ';
    memcpy(text + mlen + 1, path, plen);
    text[mlen + 1 + plen] = '\0';
    pthread_mutex_lock(&ns->lock);
    int id = find(ns, text, mlen + 1 + plen);
    if (id < 0 && ns->ndefault < NAMES_DEFAULT_MAX && ns->n < NAMES_MAX) {
        ns->ndefault++;
        id = add(ns, text);
        text = NULL;
    } else if (id < 0) {
        if (!ns->overflow && ns->n < NAMES_MAX)
            ns->overflow = (uint32_t)add(ns, xstrdup(NAMES_OVERFLOW)) + 1;
        id = (int)ns->overflow - 1;
        __atomic_store_n(&ns->full, true, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&ns->lock);
    free(text);
    return id;
}

bool names_default_full(struct names *ns)
{
    return __atomic_load_n(&ns->full, __ATOMIC_ACQUIRE);
}

/* FNV-1a of "METHOD path", the same over a name's whole text. */
static uint64_t hash_more(uint64_t h, const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)p[i]) * UINT64_C(1099511628211);
    return h;
}

static uint64_t hash_of(const char *method, size_t mlen, const char *path, size_t plen)
{
    uint64_t h = hash_more(UINT64_C(14695981039346656037), method, mlen);
    return hash_more(hash_more(h, " ", 1), path, plen);
}

/* Whether name's text is "METHOD path". */
static bool same(const char *name, const char *method, size_t mlen, const char *path, size_t plen)
{
    return strncmp(name, method, mlen) == 0 && name[mlen] == ' ' && strncmp(name + mlen + 1, path, plen) == 0 &&
           name[mlen + 1 + plen] == '\0';
}

/* The slot of hash h whose name is "METHOD path", or the empty slot where
 * it would go. */
static struct names_slot *probe(struct names_cache *c, uint64_t h, const char *method, size_t mlen, const char *path,
                                size_t plen)
{
    for (size_t i = (size_t)h & (NAMES_CACHE_SLOTS - 1);; i = (i + 1) & (NAMES_CACHE_SLOTS - 1)) {
        struct names_slot *sl = &c->slot[i];
        if (!sl->id1 || (sl->hash == h && same(c->ns->name[sl->id1 - 1], method, mlen, path, plen)))
            return sl;
    }
}

/* Puts the registry's names this cache has not seen into it (without the
 * lock: n is read with acquire order, and name[i] below it is set). A
 * name's text is split at its first space as a default name's would be;
 * names without one can never match and are skipped. */
static void catch_up(struct names_cache *c)
{
    uint32_t n = __atomic_load_n(&c->ns->n, __ATOMIC_ACQUIRE);
    for (; c->seen < n; c->seen++) {
        const char *name = c->ns->name[c->seen];
        const char *sp = strchr(name, ' ');
        if (!sp)
            continue;
        size_t mlen = (size_t)(sp - name);
        uint64_t h = hash_of(name, mlen, sp + 1, strlen(sp + 1));
        struct names_slot *sl = probe(c, h, name, mlen, sp + 1, strlen(sp + 1));
        if (!sl->id1)
            *sl = (struct names_slot){h, c->seen + 1};
    }
}

int names_cache_default(struct names_cache *c, const char *method, size_t mlen, const char *path, size_t plen)
{
    if (!c->slot)
        c->slot = xcalloc(NAMES_CACHE_SLOTS, sizeof *c->slot);
    uint64_t h = hash_of(method, mlen, path, plen);
    struct names_slot *sl = probe(c, h, method, mlen, path, plen);
    if (sl->id1)
        return (int)sl->id1 - 1;
    if (c->seen < __atomic_load_n(&c->ns->n, __ATOMIC_ACQUIRE)) {
        catch_up(c); /* another worker (or a given name) made it, perhaps */
        sl = probe(c, h, method, mlen, path, plen);
        if (sl->id1)
            return (int)sl->id1 - 1;
    }
    /* Once full, no default name is made again: what is not here by now
     * is the overflow's, without the lock. */
    if (names_default_full(c->ns))
        return (int)c->ns->overflow - 1;
    int id = names_intern_default(c->ns, method, mlen, path, plen);
    catch_up(c);
    return id;
}

void names_cache_free(struct names_cache *c)
{
    free(c->slot);
    c->slot = NULL;
    c->seen = 0;
}

uint32_t names_count(struct names *ns)
{
    pthread_mutex_lock(&ns->lock);
    uint32_t n = ns->n;
    pthread_mutex_unlock(&ns->lock);
    return n;
}
