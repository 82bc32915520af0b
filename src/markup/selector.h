/* CSS selectors, the subset scripts use to find things in an HTML page
 * (r:html():find): a tag or *, #id, .class, [attr], [attr=value] (and
 * ~= ^= $= *=), compounds of those (input.x[name=y]), the descendant
 * (space) and child (>) combinators, and lists (a, b). Parsed into one
 * fixed-size struct, no allocation; html_doc.c matches it. Plain C. */
#ifndef VOLLEY_SELECTOR_H
#define VOLLEY_SELECTOR_H

#include <stddef.h>
#include <stdint.h>

/* The longest selector, and the most pieces one may have. */
#define SELECTOR_MAX_LEN 512
#define SELECTOR_MAX_SIMPLE 64
#define SELECTOR_MAX_COMPOUND 32
#define SELECTOR_MAX_LIST 16

enum selector_kind {
    SEL_ID,       /* #id: the id attribute equals */
    SEL_CLASS,    /* .c: the class attribute has the word */
    SEL_HAS,      /* [a] */
    SEL_EQ,       /* [a=v] */
    SEL_WORD,     /* [a~=v]: v is one of the value's space-separated words */
    SEL_PREFIX,   /* [a^=v] */
    SEL_SUFFIX,   /* [a$=v] */
    SEL_CONTAINS, /* [a*=v] */
};

/* The combinator between a compound and the one on its left. */
enum selector_comb {
    SEL_FIRST,      /* none: the leftmost compound */
    SEL_DESCENDANT, /* a b */
    SEL_CHILD,      /* a > b */
};

/* Names and values are offsets into text, each NUL-terminated there; tag
 * and attribute names are lower case (HTML's are case-insensitive), ids,
 * classes and values as written (quotes taken off). */
struct selector_simple {
    uint8_t kind;      /* enum selector_kind */
    uint16_t name;     /* the attribute's name (SEL_ID: "id", SEL_CLASS: "class") */
    uint16_t value;    /* the value, id or class; unused for SEL_HAS */
    uint16_t value_len;
};

struct selector_compound {
    uint16_t tag;   /* the tag name in text, or 0 for any (* or none given) */
    uint8_t first;  /* its simples: simple[first .. first + count - 1] */
    uint8_t count;
    uint8_t comb;   /* enum selector_comb: how it relates to the compound on its left */
};

/* One selector of a list: compound[first .. first + count - 1], left to right. */
struct selector_complex {
    uint8_t first;
    uint8_t count;
};

struct selector {
    char text[SELECTOR_MAX_LEN + 2 * SELECTOR_MAX_SIMPLE + SELECTOR_MAX_COMPOUND + 16]; /* text[0] is "" */
    struct selector_simple simple[SELECTOR_MAX_SIMPLE];
    struct selector_compound compound[SELECTOR_MAX_COMPOUND];
    struct selector_complex list[SELECTOR_MAX_LIST];
    int nsimple, ncompound, nlist;
};

/* Parses the selector s (len bytes) into *out. Returns 0, or -1 with one
 * line in err (cut to errlen) saying what was expected and where, as a
 * 1-based byte position of s ("']' expected at 12"). */
int selector_parse(struct selector *out, const char *s, size_t len, char *err, size_t errlen);

#endif
