/* LD_PRELOAD shim for test_no_malloc.sh: counts calls to malloc, calloc,
 * realloc and posix_memalign, apart for the process's main thread and for
 * every other thread (volley's workers), and writes "WORKERS MAIN" to
 * $MALLOC_COUNT_FILE at exit. The workers make every request; the main
 * thread's count grows with the run's seconds (each second's point is
 * encoded and stored there), so only the workers' tells about requests. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_long on_main, on_others;

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

/* The thread's id, asked once per thread; initial-exec TLS, which a
 * preloaded library has, never allocates (the general model may, inside
 * malloc). */
static void count(void)
{
    static __thread __attribute__((tls_model("initial-exec"))) long tid;
    if (!tid)
        tid = syscall(SYS_gettid);
    atomic_fetch_add(tid == getpid() ? &on_main : &on_others, 1);
}

void *malloc(size_t n)
{
    count();
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
    count();
    return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
    count();
    return __libc_realloc(p, n);
}

int posix_memalign(void **p, size_t align, size_t n)
{
    count();
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
        fprintf(f, "%ld %ld\n", atomic_load(&on_others), atomic_load(&on_main));
        fclose(f);
    }
}
