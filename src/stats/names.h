/* The run's request names (a request table's `name`, volley.name, the
 * table form of wrk.format): each name interned once into a small id that
 * every worker shares, in order of first use, at most NAMES_MAX of them, so
 * that `name = path` on random ids cannot eat memory. A worker interns a
 * name only at its first use in that worker (the Lua side caches the id),
 * so the lock is never on the request path. */
#ifndef VOLLEY_NAMES_H
#define VOLLEY_NAMES_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Names a run may use. Each costs every worker that uses it its figures
 * (struct stats_name: a latency histogram of up to 270 KB of address
 * space, resident only where values fall; see docs/scripting.md). */
#define NAMES_MAX 1000

/* Default names (names_intern_default: "METHOD path" for a request a
 * script sent without a name) a run makes at most; past them such
 * requests count under NAMES_OVERFLOW. They share the NAMES_MAX ids with
 * the given names. No "METHOD path" can be NAMES_OVERFLOW's text (a
 * method has no parentheses), so a report knows the bound was hit. */
#define NAMES_DEFAULT_MAX 100
#define NAMES_OVERFLOW "(other paths)"

/* Fields are names.c's. name[id] is set once, before n grows past id (n is
 * stored with release order), and never moves: a thread that got id, or
 * read n with acquire order (names_cache), may read name[id] without the
 * lock. */
struct names {
    pthread_mutex_t lock;
    uint32_t n;
    uint32_t ndefault;  /* default names made (at most NAMES_DEFAULT_MAX) */
    uint32_t overflow;  /* NAMES_OVERFLOW's id + 1, 0 until made */
    bool full;          /* a default name was refused: set (release) after overflow */
    char *name[NAMES_MAX];
};

/* A worker's own map from "METHOD path" to the ids of its run's names, so
 * that a default name seen before costs a hash lookup: no lock, no
 * malloc. Fields are names.c's; zero it, then set ns. */
struct names_cache {
    struct names *ns;
    uint32_t seen;      /* ns's names [0, seen) are in slot */
    struct names_slot *slot; /* NAMES_CACHE_SLOTS, made at the first lookup */
};

void names_init(struct names *ns);

/* Frees the names (ids and name[] pointers are invalid afterwards). */
void names_free(struct names *ns);

/* The id (0..NAMES_MAX-1) of the len bytes at name (no NUL among them),
 * made at its first use (a copy). Returns -1 when NAMES_MAX other names
 * exist. Thread-safe. */
int names_intern(struct names *ns, const char *name, size_t len);

/* The id of the default name "METHOD path" (method[0..mlen), a space,
 * path[0..plen)): a name of that text if one exists (given or default),
 * else made, unless NAMES_DEFAULT_MAX default names exist: then
 * NAMES_OVERFLOW's (made at its first use). Returns -1 when NAMES_MAX
 * names exist and the one wanted is not among them. Thread-safe; workers
 * go through names_cache_default. */
int names_intern_default(struct names *ns, const char *method, size_t mlen, const char *path, size_t plen);

/* names_intern_default through the worker's cache c: the lock is taken
 * only for a text this worker has not met while the default names are
 * not all made, at most NAMES_DEFAULT_MAX + 1 times in a worker. The
 * cache's table (about 64 KB) is made at the first call; afterwards no
 * call allocates. */
int names_cache_default(struct names_cache *c, const char *method, size_t mlen, const char *path, size_t plen);

void names_cache_free(struct names_cache *c);

/* Whether the default names ran out in this run (a default name was
 * refused and counted under NAMES_OVERFLOW). Thread-safe. */
bool names_default_full(struct names *ns);

/* How many names exist (thread-safe). */
uint32_t names_count(struct names *ns);

#endif
