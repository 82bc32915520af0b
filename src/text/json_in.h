/* A JSON reader (RFC 8259) for untrusted text: a saved result that
 * `volley report` renders. It builds a tree of values with limits on size,
 * depth and counts, and every error is one line with where it is (line,
 * column, byte offset) and what was expected there. The accessors check
 * types and name the field in their errors ("requests.completed: expected
 * a number"). */
#ifndef VOLLEY_JSON_IN_H
#define VOLLEY_JSON_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_IN_MAX_BYTES ((size_t)256 << 20) /* 256 MB of text */
#define JSON_IN_MAX_DEPTH 64                  /* nested arrays and objects */
#define JSON_IN_MAX_VALUES 5000000            /* values in the whole document */
#define JSON_IN_MAX_NUMBER 400                /* characters of one number */

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json_member;

/* A value. Read-only to callers: the tree is built by json_in_parse and
 * freed by json_in_free. */
struct json {
    enum json_type type;
    bool b;        /* JSON_BOOL */
    bool integral; /* JSON_NUMBER written without fraction or exponent, within int64 */
    int64_t i;     /* JSON_NUMBER: the value when integral */
    double num;    /* JSON_NUMBER: the value (finite) */
    char *s;       /* JSON_STRING: decoded, well-formed UTF-8, NUL-terminated (may hold U+0000) */
    size_t len;    /* JSON_STRING: bytes of s; JSON_ARRAY, JSON_OBJECT: elements */
    struct json *items;          /* JSON_ARRAY: len values */
    struct json_member *members; /* JSON_OBJECT: len members, in the text's order */
};

struct json_member {
    char *key; /* decoded, NUL-terminated (a key holding U+0000 is cut there for lookups) */
    size_t key_len;
    struct json value;
};

/* Parses text[0..len) (not NUL-terminated; one value, whitespace around it)
 * into *out. Returns 0 (the caller then owns *out: json_in_free), or -1 with
 * one line in err: "line L, column C (byte B): expected ..." (*out is then
 * a JSON_NULL that owns nothing). Text above JSON_IN_MAX_BYTES, nesting
 * deeper than JSON_IN_MAX_DEPTH, more than JSON_IN_MAX_VALUES values, a
 * number longer than JSON_IN_MAX_NUMBER characters or out of double's
 * range, text that is not well-formed UTF-8, raw control characters and
 * lone surrogate escapes in strings are errors. Never crashes; aborts only
 * when out of memory (xalloc). */
int json_in_parse(const char *text, size_t len, struct json *out, char *err, size_t errlen);

/* Frees what v owns (not v itself); v becomes JSON_NULL. */
void json_in_free(struct json *v);

/* v's member named key (the first, if the text repeats it), or NULL when v
 * is NULL, not an object or has no such member. */
const struct json *json_in_get(const struct json *v, const char *key);

/* v's element i, or NULL when v is NULL, not an array or too short. */
const struct json *json_in_at(const struct json *v, size_t i);

/* Whether v is absent (NULL) or JSON null. */
bool json_in_is_null(const struct json *v);

/* Typed reads. Each returns 0 and stores the value, or -1 with err:
 * "FIELD: missing" when v is NULL, else "FIELD: expected a number" (a
 * string, true or false, an integer, an array, an object) naming what it
 * found. json_in_int also refuses numbers with a fraction or out of int64
 * range; json_in_string gives a pointer into v (valid while the tree is). */
int json_in_number(const struct json *v, const char *field, double *out, char *err, size_t errlen);
int json_in_int(const struct json *v, const char *field, int64_t *out, char *err, size_t errlen);
int json_in_string(const struct json *v, const char *field, const char **out, size_t *len, char *err,
                   size_t errlen);
int json_in_bool(const struct json *v, const char *field, bool *out, char *err, size_t errlen);

/* "FIELD: expected WHAT, found a string" for a value of another type than
 * the caller wants (v may be NULL: "FIELD: missing"). Returns -1. */
int json_in_type_error(const struct json *v, const char *field, const char *what, char *err, size_t errlen);

/* The type's name with its article, for messages: "a number", "null". */
const char *json_in_type_name(const struct json *v);

#endif
