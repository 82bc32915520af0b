/* The run's request tags (a flow request's tags = { kind = "api" }): each
 * (key, value) pair interned once into a small id, its group, that every
 * worker shares, in order of first use, so that its figures merge by id.
 * Bounded: TAGS_KEYS_MAX keys, TAGS_VALUES_MAX values a key; past them a
 * pair counts under its key's TAGS_OTHER_VALUES group, or a key under
 * TAGS_OTHER_KEYS's, and the report says so once at the end. A worker
 * interns a pair only at its first use in that worker (the Lua side
 * caches the id), so the lock is never on the request path. */
#ifndef VOLLEY_TAGS_H
#define VOLLEY_TAGS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TAGS_KEYS_MAX 20
#define TAGS_VALUES_MAX 100
/* Groups a run may have: every key's values and its overflow, and the
 * keys' overflow. */
#define TAGS_MAX (TAGS_KEYS_MAX * (TAGS_VALUES_MAX + 1) + 1)
/* The overflows' texts: no tag value can be either (tags_valid refuses
 * parentheses in a key, and a value with them is counted under its key). */
#define TAGS_OTHER_VALUES "(other values)"
#define TAGS_OTHER_KEYS "(other keys)"
/* Tags one request may carry. */
#define TAGS_PER_REQUEST 8

/* A group's text is "KEY=VALUE" (a key holds no '='). Fields are tags.c's;
 * text[id] is set once, before n grows past id (n stored with release
 * order), and never moves. */
struct tags {
    pthread_mutex_t lock;
    uint32_t n;
    char *text[TAGS_MAX];
    uint32_t nkeys;
    char *key[TAGS_KEYS_MAX];
    uint32_t values[TAGS_KEYS_MAX];   /* values made of each key (at most TAGS_VALUES_MAX) */
    uint32_t other[TAGS_KEYS_MAX];    /* each key's TAGS_OTHER_VALUES group id + 1, 0 until made */
    uint32_t other_keys;              /* TAGS_OTHER_KEYS's group id + 1, 0 until made */
    bool full;                        /* a pair went to an overflow group */
};

void tags_init(struct tags *t);
void tags_free(struct tags *t);

/* Whether key (klen bytes) may be a tag's key: a label name as thresholds
 * write them (a letter or '_', then letters, digits, '_'), at most 64
 * bytes, and not one the labels of thresholds already mean (name, reason,
 * scenario). On false, why says so (a static string). */
bool tags_key_valid(const char *key, size_t klen, const char **why);

/* The group id (0..TAGS_MAX-1) of the pair key=value (key valid; value
 * without NUL), made at its first use (a copy), or its overflow's when a
 * bound is reached. Thread-safe. */
uint32_t tags_intern(struct tags *t, const char *key, size_t klen, const char *value, size_t vlen);

/* Whether a pair went to an overflow group (thread-safe). */
bool tags_full(struct tags *t);

#endif
