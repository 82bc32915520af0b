/* "Did you mean ...?": the known name nearest to a misspelt one, by
 * Damerau-Levenshtein distance (optimal string alignment: an insertion, a
 * deletion, a substitution or a swap of two neighbours costs 1). Used for
 * threshold figures, scenario hooks, options() keys, request tables and
 * bundled script names. */
#ifndef VOLLEY_NEAREST_H
#define VOLLEY_NEAREST_H

#include <stddef.h>

/* The edit distance of a and b. Strings longer than 63 bytes are "far":
 * the result is then 64. */
size_t nearest_distance(const char *a, const char *b);

/* The name of names[0..n) nearest to word, if it is close enough to be a
 * typo of it (1 edit for words of up to 4 bytes, 2 up to 8, else 3; the
 * first of equally near ones), else NULL. */
const char *nearest_name(const char *word, const char *const *names, size_t n);

/* The same over a list of at most 32 names separated by spaces ("method
 * path headers"): the nearest one copied into buf (NUL-terminated, cut to
 * len), or "" when none is close. Returns buf. For Lua, through the FFI. */
char *nearest_in_list(const char *word, const char *list, char *buf, size_t len);

#endif
