/* Size-class free lists (see mpool.h). Each block carries a 16-byte header
 * with its class, so release and realloc need no size and blocks stay
 * aligned as malloc's are. Classes are powers of two from 32 to 16 KiB,
 * header included: a block wastes at most half its size, and the lists
 * only ever hold what was once in use at the same time. */
#include "mpool.h"

#include "xalloc.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MIN_SHIFT 5  /* 32 bytes */
#define CLASSES 10   /* up to 32 << 9 = 16 KiB */
#define BIG CLASSES  /* the class of a block that came from malloc */
#define HEADER 16

struct block {
    union {
        struct block *next; /* on a free list */
        uint32_t cls;       /* handed out */
    };
};

struct mpool {
    struct block *free[CLASSES];
    size_t live;
};

static_assert(sizeof(struct block) <= HEADER, "the header holds a block's link or class");

struct mpool *mpool_new(void)
{
    return xcalloc(1, sizeof(struct mpool));
}

void mpool_free(struct mpool *p)
{
    if (!p)
        return;
    for (int c = 0; c < CLASSES; c++)
        while (p->free[c]) {
            struct block *b = p->free[c];
            p->free[c] = b->next;
            free(b);
        }
    free(p);
}

/* The smallest class whose blocks hold n bytes after the header, or BIG. */
static uint32_t class_of(size_t n)
{
    size_t need = n + HEADER;
    if (need <= (size_t)1 << MIN_SHIFT)
        return 0;
    if (n > ((size_t)1 << (MIN_SHIFT + CLASSES - 1)) - HEADER)
        return BIG;
    /* bits of need - 1: a power of two p needs class log2(p) - MIN_SHIFT */
    return (uint32_t)(64 - __builtin_clzll((unsigned long long)(need - 1))) - MIN_SHIFT;
}

static size_t room(uint32_t cls)
{
    return ((size_t)1 << (cls + MIN_SHIFT)) - HEADER;
}

void *mpool_alloc(struct mpool *p, size_t n)
{
    uint32_t c = class_of(n);
    struct block *b;
    if (c == BIG) {
        b = xmalloc(n + HEADER);
    } else if (p->free[c]) {
        b = p->free[c];
        p->free[c] = b->next;
    } else {
        b = xmalloc((size_t)1 << (c + MIN_SHIFT));
    }
    b->cls = c;
    p->live++;
    return (char *)b + HEADER;
}

void *mpool_calloc(struct mpool *p, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *m = mpool_alloc(p, count * size);
    memset(m, 0, count * size);
    return m;
}

void mpool_release(struct mpool *p, void *block)
{
    if (!block)
        return;
    struct block *b = (struct block *)((char *)block - HEADER);
    uint32_t c = b->cls;
    assert(c <= BIG && "mpool_release: not a pool block");
    p->live--;
    if (c == BIG) {
        free(b);
        return;
    }
    b->next = p->free[c];
    p->free[c] = b;
}

void *mpool_realloc(struct mpool *p, void *block, size_t n)
{
    if (!block)
        return mpool_alloc(p, n);
    struct block *b = (struct block *)((char *)block - HEADER);
    uint32_t c = b->cls;
    if (c == BIG && class_of(n) == BIG) {
        b = xrealloc(b, n + HEADER);
        return (char *)b + HEADER;
    }
    if (c != BIG && n <= room(c))
        return block;
    void *m = mpool_alloc(p, n);
    /* A BIG block is larger than any class, and n is more than a class
     * block holds: copy what both hold. */
    size_t keep = c == BIG ? n : room(c);
    memcpy(m, block, keep < n ? keep : n);
    mpool_release(p, block);
    return m;
}

size_t mpool_live(const struct mpool *p)
{
    return p->live;
}
