/* What an open connection costs volley: struct conn (embedded in the
 * worker's array) and what its slot allocates once (its framing's slot
 * state, its transport's). Pinned so that it cannot creep again (issue 29,
 * item 16: 0.57 -> 0.66 KiB per connection at 8,000 once flows and the
 * seams added fields every connection paid for; docs/performance.md,
 * Connections and memory). A field that must grow them: measure with
 * tests/bench/conns.sh, then move the bound here and the figures there.
 * What only a flow's user needs belongs in struct conn_user (conn_flow.c). */
#include "../check.h"
#include "conn.h"
#include "framings.h"
#include "transport.h"

#include <malloc.h>
#include <stdlib.h>

/* Bytes, on x86-64 (LP64, glibc's allocator). e84f973, before the seams
 * and flows: struct conn 488 (HTTP/1.1 state inside it), nothing
 * allocated. */
#define CONN_MAX 312      /* sizeof(struct conn) */
#define CONN_H1_MAX 480   /* + HTTP/1.1's slot state + TCP's, as allocated: 464 before streams
                           * (issue 30), which add a sink to the parser and a pointer to the
                           * slot's stream state, made only when a response streams */

/* The bytes p takes from the allocator, or 0 for NULL. */
static size_t usable(void *p)
{
    return p ? malloc_usable_size(p) : 0;
}

static void test_sizes(void)
{
    if (sizeof(void *) != 8) {
        printf("test_conn_size: the bounds are for 64-bit pointers, skipped\n");
        return;
    }
    check_ctx("sizeof(struct conn) = %zu, at most %d", sizeof(struct conn), CONN_MAX);
    CHECK(sizeof(struct conn) <= CONN_MAX);

    struct conn_shared sh = {
        .transport = transport_for(&(struct transport_config){0}) /* http: TCP */,
        .framing = framing_for(false),
        .timeout_ns = 1000000000,
    };
    struct conn c;
    conn_init(&c, &sh, 0);
    CHECK(c.fs == c.fs_own[0]);
    CHECK(c.fs_own[1] == NULL);
    CHECK(c.user == NULL); /* a flow's alone, made at its user's first step */
    size_t total = sizeof c + usable(c.fs_own[0]) + usable(c.tps);
    check_ctx("HTTP/1.1 over TCP: struct conn %zu + slot state %zu + transport %zu = %zu, at most %d", sizeof c,
              usable(c.fs_own[0]), usable(c.tps), total, CONN_H1_MAX);
    CHECK(total <= CONN_H1_MAX);
    check_ctx(NULL);
    conn_free(&c);
    CHECK(c.fs == NULL && c.fs_own[0] == NULL && c.tps == NULL);
}

int main(void)
{
    test_sizes();
    return check_exit("test_conn_size");
}
