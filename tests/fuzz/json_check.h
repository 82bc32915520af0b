/* A strict JSON (RFC 8259) validator for the tests of volley's JSON output:
 * one value with optional surrounding whitespace; strings of well-formed
 * UTF-8 without raw control characters, with only the escapes JSON has and
 * no \u escape of a lone surrogate; numbers in JSON's grammar (no NaN,
 * Infinity, leading '+' or '.'). Written apart from src/text/utf8.c, so that a
 * mistake there is not repeated here. Header-only: fuzz_json.c and the unit
 * tests include it. */
#ifndef VOLLEY_TEST_JSON_CHECK_H
#define VOLLEY_TEST_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct json_check {
    const unsigned char *p, *end;
    int depth;
    /* Where json_check_string puts the decoded text of the last string
     * (NULL: not wanted), with its capacity; out_len is its length. */
    unsigned char *out;
    size_t out_cap, out_len;
};

static void jc_ws(struct json_check *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool jc_lit(struct json_check *c, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0)
        return false;
    c->p += n;
    return true;
}

static void jc_emit(struct json_check *c, const unsigned char *b, size_t n)
{
    if (c->out && c->out_len + n <= c->out_cap)
        memcpy(c->out + c->out_len, b, n);
    c->out_len += n;
}

static void jc_emit_cp(struct json_check *c, uint32_t cp)
{
    unsigned char b[4];
    size_t n;
    if (cp < 0x80)
        b[0] = (unsigned char)cp, n = 1;
    else if (cp < 0x800)
        b[0] = (unsigned char)(0xc0 | cp >> 6), b[1] = (unsigned char)(0x80 | (cp & 0x3f)), n = 2;
    else if (cp < 0x10000)
        b[0] = (unsigned char)(0xe0 | cp >> 12), b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f)),
        b[2] = (unsigned char)(0x80 | (cp & 0x3f)), n = 3;
    else
        b[0] = (unsigned char)(0xf0 | cp >> 18), b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f)),
        b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f)), b[3] = (unsigned char)(0x80 | (cp & 0x3f)), n = 4;
    jc_emit(c, b, n);
}

/* One raw (unescaped) UTF-8 character; false if not well-formed. */
static bool jc_utf8(struct json_check *c)
{
    const unsigned char *s = c->p;
    size_t avail = (size_t)(c->end - s), n;
    uint32_t cp, lo;
    if (s[0] < 0x80)
        n = 1, cp = s[0], lo = 0;
    else if ((s[0] & 0xe0) == 0xc0)
        n = 2, cp = s[0] & 0x1fu, lo = 0x80;
    else if ((s[0] & 0xf0) == 0xe0)
        n = 3, cp = s[0] & 0x0fu, lo = 0x800;
    else if ((s[0] & 0xf8) == 0xf0)
        n = 4, cp = s[0] & 0x07u, lo = 0x10000;
    else
        return false;
    if (avail < n)
        return false;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return false;
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    if (cp < lo || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
        return false;
    jc_emit(c, s, n);
    c->p += n;
    return true;
}

static bool jc_hex4(struct json_check *c, uint32_t *v)
{
    if (c->end - c->p < 4)
        return false;
    *v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char h = *c->p++;
        int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (d < 0)
            return false;
        *v = *v << 4 | (uint32_t)d;
    }
    return true;
}

static bool jc_string(struct json_check *c)
{
    c->out_len = 0;
    if (c->p >= c->end || *c->p != '"')
        return false;
    c->p++;
    while (c->p < c->end) {
        unsigned char ch = *c->p;
        if (ch == '"') {
            c->p++;
            return true;
        }
        if (ch < 0x20)
            return false;
        if (ch != '\\') {
            if (!jc_utf8(c))
                return false;
            continue;
        }
        if (++c->p >= c->end)
            return false;
        const char *simple = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *k = strchr(simple, *c->p);
        if (*c->p && k) {
            jc_emit(c, (const unsigned char *)&to[k - simple], 1);
            c->p++;
            continue;
        }
        if (*c->p != 'u')
            return false;
        c->p++;
        uint32_t cp, lo;
        if (!jc_hex4(c, &cp))
            return false;
        if (cp >= 0xdc00 && cp < 0xe000)
            return false;
        if (cp >= 0xd800 && cp < 0xdc00) {
            if (!jc_lit(c, "\\u") || !jc_hex4(c, &lo) || lo < 0xdc00 || lo >= 0xe000)
                return false;
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        }
        jc_emit_cp(c, cp);
    }
    return false;
}

static bool jc_digits(struct json_check *c)
{
    const unsigned char *s = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
        c->p++;
    return c->p > s;
}

static bool jc_number(struct json_check *c)
{
    if (c->p < c->end && *c->p == '-')
        c->p++;
    if (c->p < c->end && *c->p == '0')
        c->p++;
    else if (!(c->p < c->end && *c->p >= '1' && *c->p <= '9') || !jc_digits(c))
        return false;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        if (!jc_digits(c))
            return false;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
            c->p++;
        if (!jc_digits(c))
            return false;
    }
    return true;
}

static bool jc_value(struct json_check *c);

/* An object or array: open ... close with members separated by ','. */
static bool jc_container(struct json_check *c, char close, bool object)
{
    if (++c->depth > 64)
        return false;
    c->p++;
    jc_ws(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        c->depth--;
        return true;
    }
    for (;;) {
        if (object) {
            if (!jc_string(c))
                return false;
            jc_ws(c);
            if (!jc_lit(c, ":"))
                return false;
        }
        if (!jc_value(c))
            return false;
        jc_ws(c);
        if (c->p < c->end && *c->p == close) {
            c->p++;
            c->depth--;
            return true;
        }
        if (!jc_lit(c, ","))
            return false;
        jc_ws(c);
    }
}

static bool jc_value(struct json_check *c)
{
    jc_ws(c);
    if (c->p >= c->end)
        return false;
    switch (*c->p) {
    case '{':
        return jc_container(c, '}', true);
    case '[':
        return jc_container(c, ']', false);
    case '"':
        return jc_string(c);
    case 't':
        return jc_lit(c, "true");
    case 'f':
        return jc_lit(c, "false");
    case 'n':
        return jc_lit(c, "null");
    default:
        return jc_number(c);
    }
}

/* Whether s[0..n) is one valid JSON text. */
static inline bool json_check(const char *s, size_t n)
{
    struct json_check c = {(const unsigned char *)s, (const unsigned char *)s + n, 0, NULL, 0, 0};
    if (!jc_value(&c))
        return false;
    jc_ws(&c);
    return c.p == c.end;
}

/* Whether s[0..n) is exactly one JSON string; its decoded bytes go to
 * out (up to cap) and their number to *out_len. */
static inline bool json_check_string(const char *s, size_t n, unsigned char *out, size_t cap, size_t *out_len)
{
    struct json_check c = {(const unsigned char *)s, (const unsigned char *)s + n, 0, out, cap, 0};
    bool ok = jc_string(&c) && c.p == c.end;
    *out_len = c.out_len;
    return ok;
}

#endif
