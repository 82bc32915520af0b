/* The selector parser (selector.h): one pass over the text, left to right,
 * into the fixed arrays of struct selector; names and values copied into
 * its text buffer, each NUL-terminated, so the matcher compares C strings.
 * Errors give the 1-based byte where the selector goes wrong. */
#include "selector.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The fixed names of #id and .class, at the start of text. */
#define NAME_ID 1
#define NAME_CLASS 4

struct parse {
    struct selector *out;
    const char *s;
    size_t len;
    size_t pos;
    size_t used; /* of out->text */
    char *err;
    size_t errlen;
};

static int fail(struct parse *p, size_t at, const char *fmt, ...)
{
    char what[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errlen, "%s at %zu", what, at + 1);
    return -1;
}

/* What is at pos, for messages: 'c', or "the end". */
static const char *here(const struct parse *p, char *buf, size_t n)
{
    if (p->pos >= p->len)
        return "the end";
    snprintf(buf, n, "'%c'", p->s[p->pos]);
    return buf;
}

static bool is_name_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c >= 0x80;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static void skip_space(struct parse *p)
{
    while (p->pos < p->len && is_space(p->s[p->pos]))
        p->pos++;
}

/* Copies n bytes at from into text (lower-cased when lower), NUL-terminated;
 * their offset. The buffer holds any selector of SELECTOR_MAX_LEN. */
static uint16_t keep(struct parse *p, const char *from, size_t n, bool lower)
{
    size_t at = p->used;
    for (size_t i = 0; i < n; i++) {
        char c = from[i];
        p->out->text[at + i] = lower && c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
    }
    p->out->text[at + n] = '\0';
    p->used += n + 1;
    return (uint16_t)at;
}

/* A name at pos (one byte at least): its length, 0 when there is none. */
static size_t name_len(const struct parse *p)
{
    size_t n = 0;
    while (p->pos + n < p->len && is_name_byte((unsigned char)p->s[p->pos + n]))
        n++;
    return n;
}

static struct selector_simple *add_simple(struct parse *p, size_t at)
{
    if (p->out->nsimple == SELECTOR_MAX_SIMPLE) {
        fail(p, at, "more than %d #id, .class and [attr] parts", SELECTOR_MAX_SIMPLE);
        return NULL;
    }
    struct selector_simple *s = &p->out->simple[p->out->nsimple++];
    memset(s, 0, sizeof *s);
    return s;
}

/* #id or .class at pos (at its '#' or '.'). */
static int parse_hash_dot(struct parse *p, struct selector_compound *c)
{
    char ch = p->s[p->pos];
    size_t at = p->pos++;
    size_t n = name_len(p);
    if (n == 0) {
        char buf[8];
        return fail(p, p->pos, "%s expected after '%c', not %s", ch == '#' ? "an id" : "a class name", ch,
                    here(p, buf, sizeof buf));
    }
    struct selector_simple *s = add_simple(p, at);
    if (!s)
        return -1;
    s->kind = ch == '#' ? SEL_ID : SEL_CLASS;
    s->name = ch == '#' ? NAME_ID : NAME_CLASS;
    s->value = keep(p, p->s + p->pos, n, false);
    s->value_len = (uint16_t)n;
    p->pos += n;
    c->count++;
    return 0;
}

/* The operator at pos of [attr OP value], or -1 for none. */
static int attr_op(struct parse *p)
{
    if (p->pos >= p->len)
        return -1;
    char c = p->s[p->pos];
    if (c == '=') {
        p->pos++;
        return SEL_EQ;
    }
    if (p->pos + 1 < p->len && p->s[p->pos + 1] == '=') {
        static const char ops[] = "~^$*";
        static const int kinds[] = { SEL_WORD, SEL_PREFIX, SEL_SUFFIX, SEL_CONTAINS };
        const char *o = c ? strchr(ops, c) : NULL;
        if (o) {
            p->pos += 2;
            return kinds[o - ops];
        }
    }
    return -1;
}

/* [attr], [attr=value], [attr="value"], [attr='value'] (and the other
 * operators) at pos (at its '['). */
static int parse_attr(struct parse *p, struct selector_compound *c)
{
    char buf[8];
    size_t at = p->pos++;
    skip_space(p);
    size_t n = name_len(p);
    if (n == 0)
        return fail(p, p->pos, "an attribute name expected, not %s", here(p, buf, sizeof buf));
    struct selector_simple *s = add_simple(p, at);
    if (!s)
        return -1;
    s->kind = SEL_HAS;
    s->name = keep(p, p->s + p->pos, n, true);
    p->pos += n;
    skip_space(p);
    int op = attr_op(p);
    if (op >= 0) {
        s->kind = (uint8_t)op;
        skip_space(p);
        char q = 0;
        if (p->pos < p->len && (p->s[p->pos] == '"' || p->s[p->pos] == '\'')) {
            q = p->s[p->pos];
            size_t open = p->pos++;
            const char *end = memchr(p->s + p->pos, q, p->len - p->pos);
            if (!end)
                return fail(p, open, "the quote %c opened here is not closed", q);
            n = (size_t)(end - (p->s + p->pos));
        } else {
            n = name_len(p);
            if (n == 0 && p->pos >= p->len)
                return fail(p, p->pos, "a value expected");
            if (n == 0)
                return fail(p, p->pos, "a value expected, not %s (quote a value that has other bytes)",
                            here(p, buf, sizeof buf));
        }
        s->value = keep(p, p->s + p->pos, n, false);
        s->value_len = (uint16_t)n;
        p->pos += n;
        if (q)
            p->pos++; /* the closing quote */
        skip_space(p);
    }
    if (p->pos >= p->len || p->s[p->pos] != ']')
        return fail(p, p->pos, "']' expected, not %s", here(p, buf, sizeof buf));
    p->pos++;
    c->count++;
    return 0;
}

/* A compound at pos: a tag or *, then #id, .class and [attr] parts; at
 * least one piece. */
static int parse_compound(struct parse *p, uint8_t comb)
{
    char buf[8];
    if (p->out->ncompound == SELECTOR_MAX_COMPOUND)
        return fail(p, p->pos, "more than %d compounds", SELECTOR_MAX_COMPOUND);
    struct selector_compound *c = &p->out->compound[p->out->ncompound++];
    c->tag = 0;
    c->first = (uint8_t)p->out->nsimple;
    c->count = 0;
    c->comb = comb;
    size_t start = p->pos;
    size_t n = name_len(p);
    if (n > 0) {
        c->tag = keep(p, p->s + p->pos, n, true);
        p->pos += n;
    } else if (p->pos < p->len && p->s[p->pos] == '*') {
        p->pos++;
    }
    while (p->pos < p->len) {
        char ch = p->s[p->pos];
        int rc;
        if (ch == '#' || ch == '.')
            rc = parse_hash_dot(p, c);
        else if (ch == '[')
            rc = parse_attr(p, c);
        else
            break;
        if (rc < 0)
            return -1;
    }
    if (p->pos == start) {
        if (p->pos < p->len && p->s[p->pos] == ':')
            return fail(p, p->pos, "pseudo-classes (':') are not supported");
        return fail(p, p->pos, "a tag, *, #id, .class or [attr] expected, not %s", here(p, buf, sizeof buf));
    }
    return 0;
}

/* One selector of the list: compounds joined by combinators, up to a ','
 * or the end. */
static int parse_complex(struct parse *p)
{
    char buf[8];
    if (p->out->nlist == SELECTOR_MAX_LIST)
        return fail(p, p->pos, "more than %d selectors in the list", SELECTOR_MAX_LIST);
    struct selector_complex *x = &p->out->list[p->out->nlist++];
    x->first = (uint8_t)p->out->ncompound;
    skip_space(p);
    if (parse_compound(p, SEL_FIRST) < 0)
        return -1;
    for (;;) {
        size_t before = p->pos;
        skip_space(p);
        if (p->pos >= p->len || p->s[p->pos] == ',')
            break;
        char ch = p->s[p->pos];
        if (ch == ':')
            return fail(p, p->pos, "pseudo-classes (':') are not supported");
        if (ch == '+' || ch == '~')
            return fail(p, p->pos, "the combinator '%c' is not supported (' ' and '>' are)", ch);
        uint8_t comb = SEL_DESCENDANT;
        if (ch == '>') {
            comb = SEL_CHILD;
            p->pos++;
            skip_space(p);
        } else if (p->pos == before) {
            return fail(p, p->pos, "unexpected %s", here(p, buf, sizeof buf));
        }
        if (parse_compound(p, comb) < 0)
            return -1;
    }
    x->count = (uint8_t)(p->out->ncompound - x->first);
    return 0;
}

int selector_parse(struct selector *out, const char *s, size_t len, char *err, size_t errlen)
{
    struct parse p = { .out = out, .s = s, .len = len, .err = err, .errlen = errlen };
    out->nsimple = out->ncompound = out->nlist = 0;
    if (len > SELECTOR_MAX_LEN)
        return fail(&p, SELECTOR_MAX_LEN, "longer than %d bytes", SELECTOR_MAX_LEN);
    if (memchr(s, '\0', len))
        return fail(&p, (size_t)((const char *)memchr(s, '\0', len) - s), "a NUL byte");
    memcpy(out->text, "\0id\0class", 10);
    p.used = 10;
    skip_space(&p);
    if (p.pos >= len)
        return fail(&p, p.pos, "an empty selector");
    for (;;) {
        if (parse_complex(&p) < 0)
            return -1;
        if (p.pos >= len)
            return 0;
        p.pos++; /* the ',' */
        skip_space(&p);
        if (p.pos >= len)
            return fail(&p, p.pos, "a selector expected after ','");
    }
}
