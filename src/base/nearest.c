/* The nearest known name to a misspelt one (nearest.h): Damerau-Levenshtein
 * distance in its optimal-string-alignment form, three rows of at most 64
 * cells on the stack. */
#include "nearest.h"

#include <stdio.h>
#include <string.h>

#define FAR 64

size_t nearest_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la >= FAR || lb >= FAR)
        return FAR;
    size_t rows[3][FAR], *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            /* "respnose": two neighbours swapped is one edit, not two */
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1;
            cur[j] = best;
        }
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

/* How many edits still read as a typo of a word this long. */
static size_t limit(size_t len)
{
    return len <= 4 ? 1 : len <= 8 ? 2 : 3;
}

const char *nearest_name(const char *word, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_d = limit(strlen(word)) + 1;
    for (size_t i = 0; i < n; i++) {
        size_t d = nearest_distance(word, names[i]);
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best;
}

char *nearest_in_list(const char *word, const char *list, char *buf, size_t len)
{
    char names[32][FAR];
    const char *ptrs[32];
    size_t n = 0;
    for (const char *p = list + strspn(list, " "); *p && n < 32; p += strspn(p, " ")) {
        size_t l = strcspn(p, " ");
        snprintf(names[n], FAR, "%.*s", (int)l, p);
        ptrs[n] = names[n];
        n++;
        p += l;
    }
    const char *best = nearest_name(word, ptrs, n);
    snprintf(buf, len, "%s", best ? best : "");
    return buf;
}
