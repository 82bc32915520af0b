/* The run's request tags, interned under a lock at each pair's first use
 * in a worker; see tags.h. */
#include "tags.h"

#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tags_init(struct tags *t)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
}

void tags_free(struct tags *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free(t->text[i]);
    for (uint32_t i = 0; i < t->nkeys; i++)
        free(t->key[i]);
    pthread_mutex_destroy(&t->lock);
    memset(t, 0, sizeof *t);
}

bool tags_key_valid(const char *key, size_t klen, const char **why)
{
    static const char *const reserved[] = {"name", "reason", "scenario"};
    bool ok = klen > 0 && klen <= 64 && (key[0] == '_' || ((key[0] | 0x20) >= 'a' && (key[0] | 0x20) <= 'z'));
    for (size_t i = 1; ok && i < klen; i++) {
        char c = key[i];
        ok = c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
    }
    if (!ok) {
        *why = "a tag's key is a label name: a letter or _, then letters, digits or _ (at most 64)";
        return false;
    }
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strlen(reserved[i]) == klen && memcmp(reserved[i], key, klen) == 0) {
            *why = "name, reason and scenario are thresholds' own labels, not tags (a request's name is opts.name)";
            return false;
        }
    return true;
}

/* Under the lock: the group of text, or -1. A linear search: at most
 * TAGS_MAX groups, once per pair and worker. */
static int find(const struct tags *t, const char *text)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (strcmp(t->text[i], text) == 0)
            return (int)i;
    return -1;
}

/* Under the lock: text (owned) added as the next group. */
static uint32_t add(struct tags *t, char *text)
{
    uint32_t id = t->n;
    t->text[id] = text;
    __atomic_store_n(&t->n, id + 1, __ATOMIC_RELEASE);
    return id;
}

/* "KEY=VALUE", made. */
static char *text_of(const char *key, size_t klen, const char *value, size_t vlen)
{
    char *text = xmalloc(klen + vlen + 2);
    memcpy(text, key, klen);
    text[klen] = '=';
    memcpy(text + klen + 1, value, vlen);
    text[klen + 1 + vlen] = '\0';
    return text;
}

uint32_t tags_intern(struct tags *t, const char *key, size_t klen, const char *value, size_t vlen)
{
    char *text = text_of(key, klen, value, vlen);
    pthread_mutex_lock(&t->lock);
    int id = find(t, text);
    if (id < 0) {
        uint32_t k = 0;
        while (k < t->nkeys && !(strlen(t->key[k]) == klen && memcmp(t->key[k], key, klen) == 0))
            k++;
        if (k == t->nkeys && t->nkeys < TAGS_KEYS_MAX)
            t->key[t->nkeys++] = xstrndup(key, klen);
        if (k == t->nkeys) { /* no room for another key */
            if (!t->other_keys)
                t->other_keys = add(t, xstrdup(TAGS_OTHER_KEYS "=" TAGS_OTHER_VALUES)) + 1;
            id = (int)t->other_keys - 1;
            t->full = true;
        } else if (t->values[k] < TAGS_VALUES_MAX) {
            t->values[k]++;
            id = (int)add(t, text);
            text = NULL;
        } else { /* no room for another value of this key */
            if (!t->other[k])
                t->other[k] = add(t, text_of(key, klen, TAGS_OTHER_VALUES, strlen(TAGS_OTHER_VALUES))) + 1;
            id = (int)t->other[k] - 1;
            t->full = true;
        }
    }
    pthread_mutex_unlock(&t->lock);
    free(text);
    return (uint32_t)id;
}

bool tags_full(struct tags *t)
{
    pthread_mutex_lock(&t->lock);
    bool full = t->full;
    pthread_mutex_unlock(&t->lock);
    return full;
}
