/* HTML documents (html_doc.h) over libgumbo: the parse, a walk of the
 * tree in document order that tests each element against a selector from
 * the right (an element's compound, then its parent's or ancestors' for
 * the combinator on its left), and attribute and text reads. No
 * recursion over the tree (a page may nest thousands deep): the walk
 * follows parent links and index_within_parent. */
#include "html_doc.h"

#include "xalloc.h"

#include <gumbo.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct html_doc {
    GumboOutput *out;
    char *src;              /* the page's copy: gumbo's original_* point into it */
    GumboNode **found;      /* html_doc_find's result */
    size_t found_cap;
    char *text;             /* html_node_text's result */
    size_t text_cap;
};

static GumboOptions options(void)
{
    GumboOptions o = kGumboDefaultOptions;
    o.max_errors = 0; /* parse errors are not kept: a script cannot see them */
    return o;
}

struct html_doc *html_doc_parse(const char *s, size_t len)
{
    struct html_doc *d = xcalloc(1, sizeof *d);
    d->src = xmalloc(len + 1);
    memcpy(d->src, s, len);
    d->src[len] = '\0';
    GumboOptions o = options();
    d->out = gumbo_parse_with_options(&o, d->src, len);
    if (!d->out) { /* gumbo's only failure: its allocations */
        fputs("volley: out of memory (the HTML parser)\n", stderr);
        abort();
    }
    return d;
}

void html_doc_free(struct html_doc *d)
{
    if (!d)
        return;
    GumboOptions o = options();
    gumbo_destroy_output(&o, d->out);
    free(d->src);
    free(d->found);
    free(d->text);
    free(d);
}

static bool is_element(const GumboNode *n)
{
    return n && (n->type == GUMBO_NODE_ELEMENT || n->type == GUMBO_NODE_TEMPLATE);
}

/* Whether element e's tag is name (lower case, NUL-terminated). */
static bool tag_is(const GumboElement *e, const char *name)
{
    if (e->tag != GUMBO_TAG_UNKNOWN)
        return strcmp(gumbo_normalized_tagname(e->tag), name) == 0;
    GumboStringPiece t = e->original_tag;
    gumbo_tag_from_original_text(&t);
    return t.length == strlen(name) && strncasecmp(t.data, name, t.length) == 0;
}

/* Whether the space-separated words of v include w (wlen bytes). */
static bool has_word(const char *v, const char *w, size_t wlen)
{
    if (wlen == 0)
        return false;
    const char *p = v;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f')
            p++;
        const char *start = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && *p != '\f')
            p++;
        if ((size_t)(p - start) == wlen && memcmp(start, w, wlen) == 0)
            return true;
    }
    return false;
}

static bool simple_matches(const struct selector *sel, const struct selector_simple *s, const GumboElement *e)
{
    GumboAttribute *a = gumbo_get_attribute(&e->attributes, sel->text + s->name);
    if (!a)
        return false;
    const char *v = a->value, *w = sel->text + s->value;
    size_t vlen = strlen(v), wlen = s->value_len;
    switch (s->kind) {
    case SEL_HAS:
        return true;
    case SEL_ID:
    case SEL_EQ:
        return vlen == wlen && memcmp(v, w, wlen) == 0;
    case SEL_CLASS:
    case SEL_WORD:
        return has_word(v, w, wlen);
    case SEL_PREFIX:
        return wlen > 0 && vlen >= wlen && memcmp(v, w, wlen) == 0;
    case SEL_SUFFIX:
        return wlen > 0 && vlen >= wlen && memcmp(v + vlen - wlen, w, wlen) == 0;
    case SEL_CONTAINS:
        return wlen > 0 && memmem(v, vlen, w, wlen) != NULL;
    }
    return false;
}

static bool compound_matches(const struct selector *sel, const struct selector_compound *c, const GumboNode *n)
{
    if (!is_element(n))
        return false;
    const GumboElement *e = &n->v.element;
    if (c->tag && !tag_is(e, sel->text + c->tag))
        return false;
    for (int i = 0; i < c->count; i++)
        if (!simple_matches(sel, &sel->simple[c->first + i], e))
            return false;
    return true;
}

/* Whether n matches compounds first .. i of a selector, right to left: i
 * at n, the ones on its left at n's parent (>) or some ancestor (space).
 * Depth: at most SELECTOR_MAX_COMPOUND calls. */
static bool matches_from(const struct selector *sel, int first, int i, const GumboNode *n)
{
    const struct selector_compound *c = &sel->compound[i];
    if (!compound_matches(sel, c, n))
        return false;
    if (i == first)
        return true;
    if (c->comb == SEL_CHILD)
        return matches_from(sel, first, i - 1, n->parent);
    for (const GumboNode *a = n->parent; is_element(a); a = a->parent)
        if (matches_from(sel, first, i - 1, a))
            return true;
    return false;
}

static bool matches(const struct selector *sel, const GumboNode *n)
{
    for (int k = 0; k < sel->nlist; k++) {
        const struct selector_complex *x = &sel->list[k];
        if (matches_from(sel, x->first, x->first + x->count - 1, n))
            return true;
    }
    return false;
}

static const GumboVector *children_of(const GumboNode *n)
{
    if (n->type == GUMBO_NODE_DOCUMENT)
        return &n->v.document.children;
    if (is_element(n))
        return &n->v.element.children;
    return NULL;
}

/* The node after n in document order under root, or NULL. */
static const GumboNode *next_node(const GumboNode *n, const GumboNode *root)
{
    const GumboVector *kids = children_of(n);
    if (kids && kids->length > 0)
        return kids->data[0];
    while (n != root) {
        const GumboNode *p = n->parent;
        const GumboVector *sibs = children_of(p);
        size_t next = n->index_within_parent + 1;
        if (next < sibs->length)
            return sibs->data[next];
        n = p;
    }
    return NULL;
}

size_t html_doc_find(struct html_doc *d, const struct selector *sel, struct html_node *const **nodes)
{
    size_t count = 0;
    const GumboNode *root = d->out->document;
    for (const GumboNode *n = root; n; n = next_node(n, root)) {
        if (!is_element(n) || !matches(sel, n))
            continue;
        if (count == d->found_cap) {
            d->found_cap = d->found_cap ? 2 * d->found_cap : 16;
            d->found = xrealloc(d->found, d->found_cap * sizeof *d->found);
        }
        d->found[count++] = (GumboNode *)n;
    }
    *nodes = (struct html_node *const *)d->found;
    return count;
}

const char *html_node_attr(const struct html_node *hn, const char *name, size_t *len)
{
    const GumboNode *n = (const GumboNode *)hn;
    GumboAttribute *a = is_element(n) ? gumbo_get_attribute(&n->v.element.attributes, name) : NULL;
    *len = a ? strlen(a->value) : 0;
    return a ? a->value : NULL;
}

const char *html_node_text(struct html_doc *d, const struct html_node *hn, size_t *len)
{
    const GumboNode *root = (const GumboNode *)hn;
    size_t used = 0;
    for (const GumboNode *n = root; n; n = next_node(n, root)) {
        if (n->type != GUMBO_NODE_TEXT && n->type != GUMBO_NODE_WHITESPACE && n->type != GUMBO_NODE_CDATA)
            continue;
        size_t k = strlen(n->v.text.text);
        if (used + k + 1 > d->text_cap) {
            while (used + k + 1 > d->text_cap)
                d->text_cap = d->text_cap ? 2 * d->text_cap : 256;
            d->text = xrealloc(d->text, d->text_cap);
        }
        memcpy(d->text + used, n->v.text.text, k);
        used += k;
    }
    if (!d->text) {
        d->text_cap = 1;
        d->text = xmalloc(1);
    }
    d->text[used] = '\0';
    *len = used;
    return d->text;
}
