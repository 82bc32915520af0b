/* HTML documents for scripts (r:html()): a page parsed as browsers parse
 * it (HTML5, Debian's libgumbo), searched with a selector (selector.h),
 * and its elements' attributes and text read. The only file that sees
 * gumbo. Parsing allocates: it runs only when a script asks for it, never
 * on the request path. Plain C: lua/volley/html.lua reaches it through
 * the FFI (struct volley_api); nothing here raises a Lua error. */
#ifndef VOLLEY_HTML_DOC_H
#define VOLLEY_HTML_DOC_H

#include <stddef.h>

#include "selector.h"

/* A parsed page, owned by its caller (one Lua state); not thread-safe. */
struct html_doc;

/* An element of a document, valid until html_doc_free. */
struct html_node;

/* The page of len bytes at s parsed (s is copied: it may go at once).
 * Malformed HTML is parsed as a browser would (unclosed tags closed,
 * entities decoded); never NULL. */
struct html_doc *html_doc_parse(const char *s, size_t len);

void html_doc_free(struct html_doc *d);

/* The elements of d that match sel (any selector of its list), in
 * document order, each once: their count, and in *nodes an array of them
 * owned by d, valid until the next html_doc_find on d. */
size_t html_doc_find(struct html_doc *d, const struct selector *sel, struct html_node *const **nodes);

/* The value of n's attribute name (lower case, NUL-terminated), entities
 * decoded, NUL-terminated, and its length in *len; NULL when n has none. */
const char *html_node_attr(const struct html_node *n, const char *name, size_t *len);

/* n's text content: the text of all its descendants, in document order
 * (comments left out), in a buffer owned by d, valid until the next
 * html_node_text on d; its length in *len. */
const char *html_node_text(struct html_doc *d, const struct html_node *n, size_t *len);

#endif
