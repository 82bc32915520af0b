/* A JSON text checked and searched in place: no tree, no allocation, for
 * the request path (a streamed chunk read per token by a script through
 * the FFI, lua/volley/api.lua). json_in.h builds trees for saved results;
 * this answers "is it JSON" and "where is the value at this path". */
#ifndef VOLLEY_JSON_FIND_H
#define VOLLEY_JSON_FIND_H

#include <stddef.h>

#define JSON_FIND_MAX_DEPTH 256 /* nested arrays and objects json_valid accepts */

/* The types json_find answers; 0 is "no value there". */
enum json_find_type {
    JSON_FIND_NONE = 0,
    JSON_FIND_NULL,
    JSON_FIND_FALSE,
    JSON_FIND_TRUE,
    JSON_FIND_NUMBER,
    JSON_FIND_STRING,
    JSON_FIND_ARRAY,
    JSON_FIND_OBJECT,
};

/* Whether text[0..len) (not NUL-terminated) is one JSON value (RFC 8259)
 * with whitespace around it: strings of well-formed UTF-8 with valid
 * escapes and no raw control characters, numbers in the grammar, nesting
 * at most JSON_FIND_MAX_DEPTH. Returns the value's type, or
 * JSON_FIND_NONE with *at (when not NULL) the offset of the first byte
 * that is wrong. Never reads outside text; allocates nothing. */
int json_valid(const char *text, size_t len, size_t *at);

/* The value at path in text[0..len), which json_valid accepted (on other
 * text the answer is unspecified but memory-safe). path[0..path_len) is
 * member names and array indexes (from 0) joined by '.', such as
 * "choices.0.delta.content"; an empty path is the whole value. A member
 * named in the text with escapes is compared as written; the first of
 * repeated names wins. Returns the value's type and its bytes as
 * text[*off, *off + *vlen) (a string with its quotes), or JSON_FIND_NONE
 * when there is none (a missing member, an index past the end, a path
 * through a scalar). */
int json_find(const char *text, size_t len, const char *path, size_t path_len, size_t *off, size_t *vlen);

/* json_valid, then json_find for each of n paths, in one call (one
 * crossing from a script instead of n + 1) and one pass over the text:
 * the paths are followed while it is checked, so that no byte is read
 * twice however many paths lead through it. paths[0..paths_len) holds the
 * paths, each ended by a NUL byte. types[k] is path k's type, and
 * spans[2k], spans[2k + 1] its offset and length; all 0 when the text is
 * not valid. Returns json_valid's answer (with *at, when not NULL, on a
 * text that is not valid). At most JSON_FIND_MAX_PATHS paths are looked
 * up; the others get 0. */
#define JSON_FIND_MAX_PATHS 16
int json_scan(const char *text, size_t len, const char *paths, size_t paths_len, int *types, size_t *spans,
              size_t *at);

#endif
