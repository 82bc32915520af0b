/* A per-thread allocator of small blocks kept on free lists by size class,
 * for a library that allocates per request (nghttp2 makes and frees a few
 * blocks for every stream): once the lists hold what the busiest moment
 * needed, the request path no longer reaches malloc. */
#ifndef VOLLEY_MPOOL_H
#define VOLLEY_MPOOL_H

#include <stddef.h>

struct mpool;

/* A pool for one thread: no locking; every call on a pool comes from the
 * thread that uses it. */
struct mpool *mpool_new(void);

/* Frees the blocks the lists keep, then the pool. Blocks still handed out
 * are the caller's leak (every user of the pool is gone first). */
void mpool_free(struct mpool *p);

/* malloc, calloc, realloc and free over the pool, with their contracts
 * (the x family's: they never return NULL; n == 0 gives a valid block).
 * Blocks above the largest class (16 KiB) go to malloc and back. */
void *mpool_alloc(struct mpool *p, size_t n);
void *mpool_calloc(struct mpool *p, size_t count, size_t size);
void *mpool_realloc(struct mpool *p, void *block, size_t n);
void mpool_release(struct mpool *p, void *block);

/* Blocks handed out and not released (for tests). */
size_t mpool_live(const struct mpool *p);

#endif
