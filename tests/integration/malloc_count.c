/* LD_PRELOAD shim for test_no_malloc.sh: counts calls to malloc, calloc,
 * realloc and friends and writes the total to $MALLOC_COUNT_FILE at exit.
 * Comparing the totals of two runs that differ only in request count shows
 * whether the request path allocates. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_long calls;

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

void *malloc(size_t n)
{
    atomic_fetch_add(&calls, 1);
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
    atomic_fetch_add(&calls, 1);
    return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
    atomic_fetch_add(&calls, 1);
    return __libc_realloc(p, n);
}

int posix_memalign(void **p, size_t align, size_t n)
{
    atomic_fetch_add(&calls, 1);
    *p = __libc_memalign(align, n);
    return *p ? 0 : 12;
}

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("MALLOC_COUNT_FILE");
    if (!path)
        return;
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%ld\n", atomic_load(&calls));
        fclose(f);
    }
}
