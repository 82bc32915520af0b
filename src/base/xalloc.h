/* Allocation that never returns NULL: out of memory is not a condition the
 * load generator can work around, so it prints one line and aborts. */
#ifndef VOLLEY_XALLOC_H
#define VOLLEY_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* The capacity a buffer of cap grows to so that it holds need (bytes or
 * items): cap doubled, from first when cap is 0, until it does. Geometric
 * growth keeps appending amortized O(1). */
size_t xgrow(size_t cap, size_t need, size_t first);

#endif
