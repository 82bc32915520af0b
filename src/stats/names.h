/* The run's request names (a request table's `name`, volley.name, the
 * table form of wrk.format): each name interned once into a small id that
 * every worker shares, in order of first use, at most NAMES_MAX of them, so
 * that `name = path` on random ids cannot eat memory. A worker interns a
 * name only at its first use in that worker (the Lua side caches the id),
 * so the lock is never on the request path. */
#ifndef VOLLEY_NAMES_H
#define VOLLEY_NAMES_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* Names a run may use. Each costs every worker that uses it its figures
 * (struct stats_name: a latency histogram of up to 270 KB of address
 * space, resident only where values fall; see docs/scripting.md). */
#define NAMES_MAX 1000

/* Fields are names.c's. name[id] is set once, before id is handed out, and
 * never moves: a thread that got id (or read it from data handed over
 * under a lock) may read name[id] without the lock. */
struct names {
    pthread_mutex_t lock;
    uint32_t n;
    char *name[NAMES_MAX];
};

void names_init(struct names *ns);

/* Frees the names (ids and name[] pointers are invalid afterwards). */
void names_free(struct names *ns);

/* The id (0..NAMES_MAX-1) of the len bytes at name (no NUL among them),
 * made at its first use (a copy). Returns -1 when NAMES_MAX other names
 * exist. Thread-safe. */
int names_intern(struct names *ns, const char *name, size_t len);

/* How many names exist (thread-safe). */
uint32_t names_count(struct names *ns);

#endif
