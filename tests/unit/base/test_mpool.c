/* Unit test for mpool.c: blocks come back from the free lists of their
 * class, realloc keeps contents across classes and into malloc's range,
 * calloc zeroes, alignment is malloc's, and the live count balances. */
#include "mpool.h"

#include "../check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_reuse(void)
{
    struct mpool *p = mpool_new();
    void *a = mpool_alloc(p, 100);
    CHECK_UINT(mpool_live(p), 1);
    mpool_release(p, a);
    CHECK_UINT(mpool_live(p), 0);
    /* the same class (up to 112 bytes after the header): the same block */
    CHECK(mpool_alloc(p, 112) == a);
    /* another class: another block */
    void *b = mpool_alloc(p, 113);
    CHECK(b != a);
    mpool_release(p, a);
    mpool_release(p, b);
    mpool_release(p, NULL);
    CHECK_UINT(mpool_live(p), 0);
    mpool_free(p);
}

static void test_sizes(void)
{
    struct mpool *p = mpool_new();
    enum { N = 64 };
    void *blocks[N];
    size_t sizes[N];
    for (int i = 0; i < N; i++) {
        /* 0, 1, then around every power of two up to 2 MiB (far past
         * the largest class) */
        size_t s = i < 2 ? (size_t)i : ((size_t)1 << (i / 3 + 1)) + (size_t)(i % 3) - 1;
        sizes[i] = s;
        blocks[i] = mpool_alloc(p, s);
        check_ctx("size %zu", s);
        CHECK((uintptr_t)blocks[i] % 16 == 0);
        memset(blocks[i], i, s);
    }
    for (int i = 0; i < N; i++) {
        unsigned char *b = blocks[i];
        check_ctx("size %zu", sizes[i]);
        bool same = true;
        for (size_t k = 0; k < sizes[i]; k++)
            same &= b[k] == (unsigned char)i;
        CHECK(same);
    }
    check_ctx(NULL);
    CHECK_UINT(mpool_live(p), N);
    for (int i = 0; i < N; i++)
        mpool_release(p, blocks[i]);
    CHECK_UINT(mpool_live(p), 0);
    mpool_free(p);
}

static void test_realloc(void)
{
    struct mpool *p = mpool_new();
    /* grows from nothing through every class into malloc's range and back
     * down, keeping the bytes both sizes hold */
    size_t steps[] = {0, 10, 16, 17, 100, 1000, 4000, 16368, 16369, 70000, 200000, 30000, 5000, 40, 1};
    unsigned char *b = NULL;
    size_t have = 0;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        size_t n = steps[i];
        b = mpool_realloc(p, b, n);
        check_ctx("realloc to %zu", n);
        CHECK(b != NULL);
        bool kept = true;
        for (size_t k = 0; k < (have < n ? have : n); k++)
            kept &= b[k] == (unsigned char)(k * 7);
        CHECK(kept);
        for (size_t k = 0; k < n; k++)
            b[k] = (unsigned char)(k * 7);
        have = n;
        CHECK_UINT(mpool_live(p), 1);
    }
    check_ctx(NULL);
    mpool_release(p, b);
    CHECK_UINT(mpool_live(p), 0);
    mpool_free(p);
}

static void test_calloc(void)
{
    struct mpool *p = mpool_new();
    unsigned char *a = mpool_alloc(p, 200);
    memset(a, 0xff, 200);
    mpool_release(p, a);
    unsigned char *z = mpool_calloc(p, 25, 8); /* the dirty block again */
    CHECK(z == a);
    bool zero = true;
    for (int k = 0; k < 200; k++)
        zero &= z[k] == 0;
    CHECK(zero);
    CHECK(mpool_calloc(p, SIZE_MAX / 2, 4) == NULL); /* overflow: no block */
    CHECK_UINT(mpool_live(p), 1);
    mpool_release(p, z);
    mpool_free(p);
}

int main(void)
{
    test_reuse();
    test_sizes();
    test_realloc();
    test_calloc();
    return check_exit("test_mpool");
}
