/* The JSON reader: a recursive-descent parser over a byte buffer, bounded in
 * depth (so the recursion is), in values and in the text's size, that stops
 * at the first error with its line, column and byte offset. */
#include "json_in.h"

#include "utf8.h"
#include "xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    const char *p;
    size_t len;
    size_t pos;
    size_t values;
    int depth;
    char *err;
    size_t errlen;
    bool failed;
};

/* Records the first error at byte `at`: "line L, column C (byte B): ...". */
static __attribute__((format(printf, 3, 4))) int fail_at(struct parser *ps, size_t at, const char *fmt, ...)
{
    if (ps->failed)
        return -1;
    ps->failed = true;
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at && i < ps->len; i++) {
        if (ps->p[i] == '\n') {
            line++;
            col = 1;
        } else if (((unsigned char)ps->p[i] & 0xc0) != 0x80) { /* columns count characters */
            col++;
        }
    }
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (ps->errlen > 0)
        snprintf(ps->err, ps->errlen, "line %zu, column %zu (byte %zu): %s", line, col, at, what);
    return -1;
}

/* What is at pos, for "expected X, found Y". */
static const char *found(const struct parser *ps, char *buf, size_t len)
{
    if (ps->pos >= ps->len)
        return "the end of the text";
    unsigned char c = (unsigned char)ps->p[ps->pos];
    if (c >= 0x21 && c < 0x7f)
        snprintf(buf, len, "'%c'", c);
    else
        snprintf(buf, len, "byte 0x%02x", c);
    return buf;
}

static int expected(struct parser *ps, const char *what)
{
    char buf[32];
    return fail_at(ps, ps->pos, "expected %s, found %s", what, found(ps, buf, sizeof buf));
}

static void skip_ws(struct parser *ps)
{
    while (ps->pos < ps->len) {
        char c = ps->p[ps->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        ps->pos++;
    }
}

static int parse_value(struct parser *ps, struct json *v);

static int hex4(struct parser *ps, size_t at, uint32_t *out)
{
    if (ps->len - at < 4)
        return fail_at(ps, at, "expected 4 hex digits after \\u, found the end of the text");
    uint32_t u = 0;
    for (size_t i = 0; i < 4; i++) {
        char c = ps->p[at + i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return fail_at(ps, at + i, "expected a hex digit in a \\u escape");
        u = u << 4 | (uint32_t)d;
    }
    *out = u;
    return 0;
}

static void put_utf8(char *o, size_t *n, uint32_t cp)
{
    if (cp < 0x80) {
        o[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        o[(*n)++] = (char)(0xc0 | cp >> 6);
        o[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        o[(*n)++] = (char)(0xe0 | cp >> 12);
        o[(*n)++] = (char)(0x80 | (cp >> 6 & 0x3f));
        o[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        o[(*n)++] = (char)(0xf0 | cp >> 18);
        o[(*n)++] = (char)(0x80 | (cp >> 12 & 0x3f));
        o[(*n)++] = (char)(0x80 | (cp >> 6 & 0x3f));
        o[(*n)++] = (char)(0x80 | (cp & 0x3f));
    }
}

/* A string at pos (on its '"'): decoded into a new buffer. The decoded form
 * is never longer than the text, so one allocation of that size does. */
static int parse_string(struct parser *ps, char **out, size_t *out_len)
{
    size_t start = ps->pos++;
    size_t end = ps->pos;
    while (end < ps->len && ps->p[end] != '"') /* the closing quote: the first not escaped */
        end += ps->p[end] == '\\' ? 2 : 1;
    if (end >= ps->len)
        return fail_at(ps, start, "string not closed: expected '\"' before the end of the text");
    char *o = xmalloc(end - ps->pos + 1);
    size_t n = 0;
    while (ps->pos < end) {
        unsigned char c = (unsigned char)ps->p[ps->pos];
        if (c < 0x20) {
            fail_at(ps, ps->pos, "control character 0x%02x in a string (expected it escaped)", c);
            goto fail;
        }
        if (c != '\\') {
            uint32_t cp;
            size_t k = utf8_decode(ps->p + ps->pos, end - ps->pos, &cp);
            if (k == 0) {
                fail_at(ps, ps->pos, "byte 0x%02x in a string is not well-formed UTF-8", c);
                goto fail;
            }
            memcpy(o + n, ps->p + ps->pos, k);
            n += k;
            ps->pos += k;
            continue;
        }
        size_t at = ps->pos;
        char e = ps->p[at + 1]; /* at + 1 < end: end skipped the escaped byte */
        ps->pos += 2;
        switch (e) {
        case '"': o[n++] = '"'; break;
        case '\\': o[n++] = '\\'; break;
        case '/': o[n++] = '/'; break;
        case 'b': o[n++] = '\b'; break;
        case 'f': o[n++] = '\f'; break;
        case 'n': o[n++] = '\n'; break;
        case 'r': o[n++] = '\r'; break;
        case 't': o[n++] = '\t'; break;
        case 'u': {
            uint32_t u, lo;
            if (ps->pos + 4 > end) {
                fail_at(ps, at, "expected 4 hex digits after \\u");
                goto fail;
            }
            if (hex4(ps, ps->pos, &u) < 0)
                goto fail;
            ps->pos += 4;
            if (u >= 0xdc00 && u <= 0xdfff) {
                fail_at(ps, at, "lone low surrogate \\u%04x (expected a high surrogate first)", (unsigned)u);
                goto fail;
            }
            if (u >= 0xd800 && u <= 0xdbff) {
                if (ps->pos + 6 > end || ps->p[ps->pos] != '\\' || ps->p[ps->pos + 1] != 'u' ||
                    hex4(ps, ps->pos + 2, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff) {
                    ps->failed = false; /* a hex error inside says less than this */
                    fail_at(ps, at, "high surrogate \\u%04x not followed by a low surrogate escape", (unsigned)u);
                    goto fail;
                }
                ps->pos += 6;
                u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
            }
            put_utf8(o, &n, u); /* at most 4 bytes for 6 (or 12) of text */
            break;
        }
        default:
            fail_at(ps, at, "unknown escape \\%c (expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)",
                    e >= 0x21 && e < 0x7f ? e : '?');
            goto fail;
        }
    }
    ps->pos = end + 1;
    o[n] = '\0';
    *out = o;
    *out_len = n;
    return 0;
fail:
    free(o);
    return -1;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* A number in JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int parse_number(struct parser *ps, struct json *v)
{
    size_t start = ps->pos, i = ps->pos;
    bool integral = true;
    if (i < ps->len && ps->p[i] == '-')
        i++;
    if (i >= ps->len || !is_digit(ps->p[i])) {
        ps->pos = i;
        return expected(ps, "a digit");
    }
    if (ps->p[i] == '0') {
        i++;
        if (i < ps->len && is_digit(ps->p[i]))
            return fail_at(ps, i, "leading zero in a number (expected '.', 'e' or the number's end)");
    } else {
        while (i < ps->len && is_digit(ps->p[i]))
            i++;
    }
    if (i < ps->len && ps->p[i] == '.') {
        integral = false;
        i++;
        if (i >= ps->len || !is_digit(ps->p[i])) {
            ps->pos = i;
            return expected(ps, "a digit after the decimal point");
        }
        while (i < ps->len && is_digit(ps->p[i]))
            i++;
    }
    if (i < ps->len && (ps->p[i] == 'e' || ps->p[i] == 'E')) {
        integral = false;
        i++;
        if (i < ps->len && (ps->p[i] == '+' || ps->p[i] == '-'))
            i++;
        if (i >= ps->len || !is_digit(ps->p[i])) {
            ps->pos = i;
            return expected(ps, "a digit in the exponent");
        }
        while (i < ps->len && is_digit(ps->p[i]))
            i++;
    }
    size_t n = i - start;
    if (n > JSON_IN_MAX_NUMBER)
        return fail_at(ps, start, "number of %zu characters (at most %d)", n, JSON_IN_MAX_NUMBER);
    char buf[JSON_IN_MAX_NUMBER + 1];
    memcpy(buf, ps->p + start, n);
    buf[n] = '\0';
    errno = 0;
    double d = strtod(buf, NULL);
    if (!isfinite(d))
        return fail_at(ps, start, "number %.40s%s out of range", buf, n > 40 ? "..." : "");
    v->type = JSON_NUMBER;
    v->num = d;
    if (integral) {
        errno = 0;
        long long ll = strtoll(buf, NULL, 10);
        v->integral = errno != ERANGE;
        v->i = ll;
    }
    ps->pos = i;
    return 0;
}

static int parse_literal(struct parser *ps, struct json *v, const char *word, enum json_type type, bool b)
{
    size_t n = strlen(word);
    if (ps->len - ps->pos < n || memcmp(ps->p + ps->pos, word, n) != 0)
        return expected(ps, "a value (object, array, string, number, true, false or null)");
    ps->pos += n;
    v->type = type;
    v->b = b;
    return 0;
}

static int enter(struct parser *ps)
{
    if (++ps->depth > JSON_IN_MAX_DEPTH)
        return fail_at(ps, ps->pos, "nested deeper than %d arrays and objects", JSON_IN_MAX_DEPTH);
    return 0;
}

static int parse_array(struct parser *ps, struct json *v)
{
    if (enter(ps) < 0)
        return -1;
    v->type = JSON_ARRAY;
    size_t cap = 0;
    ps->pos++;
    skip_ws(ps);
    if (ps->pos < ps->len && ps->p[ps->pos] == ']') {
        ps->pos++;
        ps->depth--;
        return 0;
    }
    for (;;) {
        if (v->len == cap) {
            cap = xgrow(cap, v->len + 1, 4);
            v->items = xrealloc(v->items, cap * sizeof *v->items);
        }
        struct json *item = &v->items[v->len];
        memset(item, 0, sizeof *item);
        v->len++;
        skip_ws(ps);
        if (parse_value(ps, item) < 0)
            return -1;
        skip_ws(ps);
        if (ps->pos < ps->len && ps->p[ps->pos] == ',') {
            ps->pos++;
            continue;
        }
        if (ps->pos < ps->len && ps->p[ps->pos] == ']') {
            ps->pos++;
            ps->depth--;
            return 0;
        }
        return expected(ps, "',' or ']' after an array element");
    }
}

static int parse_object(struct parser *ps, struct json *v)
{
    if (enter(ps) < 0)
        return -1;
    v->type = JSON_OBJECT;
    size_t cap = 0;
    ps->pos++;
    skip_ws(ps);
    if (ps->pos < ps->len && ps->p[ps->pos] == '}') {
        ps->pos++;
        ps->depth--;
        return 0;
    }
    for (;;) {
        skip_ws(ps);
        if (ps->pos >= ps->len || ps->p[ps->pos] != '"')
            return expected(ps, "'\"' to start a member's name");
        char *key;
        size_t key_len;
        if (parse_string(ps, &key, &key_len) < 0)
            return -1;
        if (v->len == cap) {
            cap = xgrow(cap, v->len + 1, 4);
            v->members = xrealloc(v->members, cap * sizeof *v->members);
        }
        struct json_member *m = &v->members[v->len];
        memset(m, 0, sizeof *m);
        m->key = key;
        m->key_len = key_len;
        v->len++;
        skip_ws(ps);
        if (ps->pos >= ps->len || ps->p[ps->pos] != ':')
            return expected(ps, "':' after a member's name");
        ps->pos++;
        skip_ws(ps);
        if (parse_value(ps, &m->value) < 0)
            return -1;
        skip_ws(ps);
        if (ps->pos < ps->len && ps->p[ps->pos] == ',') {
            ps->pos++;
            continue;
        }
        if (ps->pos < ps->len && ps->p[ps->pos] == '}') {
            ps->pos++;
            ps->depth--;
            return 0;
        }
        return expected(ps, "',' or '}' after an object member");
    }
}

static int parse_value(struct parser *ps, struct json *v)
{
    if (++ps->values > JSON_IN_MAX_VALUES)
        return fail_at(ps, ps->pos, "more than %d values in the document", JSON_IN_MAX_VALUES);
    if (ps->pos >= ps->len)
        return expected(ps, "a value");
    switch (ps->p[ps->pos]) {
    case '{':
        return parse_object(ps, v);
    case '[':
        return parse_array(ps, v);
    case '"':
        v->type = JSON_STRING;
        return parse_string(ps, &v->s, &v->len);
    case 't':
        return parse_literal(ps, v, "true", JSON_BOOL, true);
    case 'f':
        return parse_literal(ps, v, "false", JSON_BOOL, false);
    case 'n':
        return parse_literal(ps, v, "null", JSON_NULL, false);
    default:
        if (ps->p[ps->pos] == '-' || is_digit(ps->p[ps->pos]))
            return parse_number(ps, v);
        return expected(ps, "a value (object, array, string, number, true, false or null)");
    }
}

int json_in_parse(const char *text, size_t len, struct json *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct parser ps = {.p = text, .len = len, .err = err, .errlen = errlen};
    if (errlen > 0)
        err[0] = '\0';
    if (len > JSON_IN_MAX_BYTES) {
        snprintf(err, errlen, "%zu bytes of JSON: more than the %zu MB volley reads", len, JSON_IN_MAX_BYTES >> 20);
        return -1;
    }
    /* A byte-order mark is not JSON (RFC 8259 8.1 lets a parser ignore it;
     * volley never writes one, so say what it is). */
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        return fail_at(&ps, 0, "a UTF-8 byte-order mark (expected the JSON value)");
    skip_ws(&ps);
    int rc = parse_value(&ps, out);
    if (rc == 0) {
        skip_ws(&ps);
        if (ps.pos < ps.len)
            rc = expected(&ps, "the end of the text after the value");
    }
    if (rc < 0)
        json_in_free(out);
    return rc;
}

void json_in_free(struct json *v)
{
    if (!v)
        return;
    free(v->s);
    if (v->type == JSON_ARRAY)
        for (size_t i = 0; i < v->len; i++)
            json_in_free(&v->items[i]);
    if (v->type == JSON_OBJECT)
        for (size_t i = 0; i < v->len; i++) {
            free(v->members[i].key);
            json_in_free(&v->members[i].value);
        }
    free(v->items);
    free(v->members);
    memset(v, 0, sizeof *v);
}

const struct json *json_in_get(const struct json *v, const char *key)
{
    if (!v || v->type != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->members[i].key, key) == 0)
            return &v->members[i].value;
    return NULL;
}

const struct json *json_in_at(const struct json *v, size_t i)
{
    if (!v || v->type != JSON_ARRAY || i >= v->len)
        return NULL;
    return &v->items[i];
}

bool json_in_is_null(const struct json *v)
{
    return !v || v->type == JSON_NULL;
}

const char *json_in_type_name(const struct json *v)
{
    if (!v)
        return "nothing";
    switch (v->type) {
    case JSON_NULL: return "null";
    case JSON_BOOL: return v->b ? "true" : "false";
    case JSON_NUMBER: return "a number";
    case JSON_STRING: return "a string";
    case JSON_ARRAY: return "an array";
    case JSON_OBJECT: return "an object";
    }
    return "?";
}

int json_in_type_error(const struct json *v, const char *field, const char *what, char *err, size_t errlen)
{
    if (!v)
        snprintf(err, errlen, "%s: missing (expected %s)", field, what);
    else
        snprintf(err, errlen, "%s: expected %s, found %s", field, what, json_in_type_name(v));
    return -1;
}

int json_in_number(const struct json *v, const char *field, double *out, char *err, size_t errlen)
{
    if (!v || v->type != JSON_NUMBER)
        return json_in_type_error(v, field, "a number", err, errlen);
    *out = v->num;
    return 0;
}

int json_in_int(const struct json *v, const char *field, int64_t *out, char *err, size_t errlen)
{
    if (!v || v->type != JSON_NUMBER)
        return json_in_type_error(v, field, "an integer", err, errlen);
    if (!v->integral) {
        snprintf(err, errlen, "%s: expected an integer, found %.17g", field, v->num);
        return -1;
    }
    *out = v->i;
    return 0;
}

int json_in_string(const struct json *v, const char *field, const char **out, size_t *len, char *err,
                   size_t errlen)
{
    if (!v || v->type != JSON_STRING)
        return json_in_type_error(v, field, "a string", err, errlen);
    *out = v->s;
    if (len)
        *len = v->len;
    return 0;
}

int json_in_bool(const struct json *v, const char *field, bool *out, char *err, size_t errlen)
{
    if (!v || v->type != JSON_BOOL)
        return json_in_type_error(v, field, "true or false", err, errlen);
    *out = v->b;
    return 0;
}
