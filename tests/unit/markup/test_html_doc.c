/* The selector parser (selector.c) and the HTML documents it searches
 * (html_doc.c over gumbo): each selector form, lists, combinators, the
 * errors with their positions; malformed HTML (unclosed tags, nested
 * tables, entities, comments), attributes and text. */
#include "../check.h"
#include "html_doc.h"
#include "selector.h"

#include <stdlib.h>
#include <string.h>

static struct selector sel;
static char err[256];

/* The matches of s in d (-1 when s does not parse), their nodes in *out. */
static int find(struct html_doc *d, const char *s, struct html_node *const **out)
{
    struct html_node *const *nodes;
    if (selector_parse(&sel, s, strlen(s), err, sizeof err) < 0)
        return -1;
    size_t n = html_doc_find(d, &sel, out ? out : &nodes);
    return (int)n;
}

/* Attribute a of match i of s, or NULL. */
static const char *attr(struct html_doc *d, const char *s, int i, const char *a)
{
    struct html_node *const *nodes;
    int n = find(d, s, &nodes);
    if (n <= i)
        return NULL;
    size_t len;
    return html_node_attr(nodes[i], a, &len);
}

static const char *text(struct html_doc *d, const char *s)
{
    struct html_node *const *nodes;
    if (find(d, s, &nodes) < 1)
        return NULL;
    size_t len;
    return html_node_text(d, nodes[0], &len);
}

static void bad(const char *s, const char *want)
{
    check_ctx("selector %s", s);
    CHECK_INT(selector_parse(&sel, s, strlen(s), err, sizeof err), -1);
    CHECK_STR(err, want);
    check_ctx(NULL);
}

static const char PAGE[] =
    "<!DOCTYPE html><html><head><meta name=csrf-token content='t&amp;k&lt;n'>"
    "<meta NAME=\"other\" content=\"x\"></head><body>"
    "<!-- <input name=authenticity_token value=comment> -->"
    "<div id=main class='box  wide'><p>one <b>bold</b> two<p>unclosed"
    "<form id=login><input type=hidden name=authenticity_token value=\"v1&quot;&amp;\">"
    "<INPUT Type=text NAME=User class=x></form></div>"
    "<table><tr><td>a<table class=inner><tr><td>b</td></tr></table><td>c</table>"
    "<ul><li data-k=\"pre-mid-suf\">1<li>2<li class='x y'>3</ul>"
    "<my-widget Data-X=1>custom</my-widget>"
    "</body></html>";

int main(void)
{
    struct html_doc *d = html_doc_parse(PAGE, strlen(PAGE));

    /* each form of selector */
    CHECK_INT(find(d, "input", NULL), 2);
    CHECK_INT(find(d, "INPUT", NULL), 2);
    CHECK_INT(find(d, "*", NULL) > 20, 1);
    CHECK_INT(find(d, "#main", NULL), 1);
    CHECK_INT(find(d, "#Main", NULL), 0); /* ids are case-sensitive */
    CHECK_INT(find(d, ".wide", NULL), 1);
    CHECK_INT(find(d, ".box.wide", NULL), 1);
    CHECK_INT(find(d, ".bo", NULL), 0);
    CHECK_INT(find(d, "[name]", NULL), 4); /* two metas, two inputs */
    CHECK_INT(find(d, "[NAME=user]", NULL), 0);
    CHECK_INT(find(d, "[name=User]", NULL), 1);
    CHECK_INT(find(d, "input[name=authenticity_token]", NULL), 1); /* not the comment's */
    CHECK_STR(attr(d, "input[name=authenticity_token]", 0, "value"), "v1\"&");
    CHECK_STR(attr(d, "input[name='authenticity_token']", 0, "value"), "v1\"&");
    CHECK_STR(attr(d, "input[ name = \"authenticity_token\" ]", 0, "value"), "v1\"&");
    CHECK_STR(attr(d, "meta[name=csrf-token]", 0, "content"), "t&k<n");
    CHECK_STR(attr(d, "meta[name=other]", 0, "content"), "x");
    CHECK(attr(d, "meta[name=csrf-token]", 0, "nope") == NULL);
    CHECK_STR(attr(d, "input.x[type=text]", 0, "name"), "User");
    CHECK_INT(find(d, "li[data-k^=pre]", NULL), 1);
    CHECK_INT(find(d, "li[data-k$=suf]", NULL), 1);
    CHECK_INT(find(d, "li[data-k*=mid]", NULL), 1);
    CHECK_INT(find(d, "li[data-k*='']", NULL), 0);
    CHECK_INT(find(d, "li[class~=y]", NULL), 1);
    CHECK_INT(find(d, "my-widget", NULL), 1);
    CHECK_INT(find(d, "MY-WIDGET[data-x=\"1\"]", NULL), 1);

    /* combinators, lists, document order */
    CHECK_INT(find(d, "form input", NULL), 2);
    CHECK_INT(find(d, "div input", NULL), 2);
    CHECK_INT(find(d, "div > input", NULL), 0);
    CHECK_INT(find(d, "form>input", NULL), 2);
    CHECK_INT(find(d, "body > div > form > input[type=hidden]", NULL), 1);
    CHECK_INT(find(d, "html div#main form#login input", NULL), 2);
    CHECK_INT(find(d, "table td", NULL), 3);
    CHECK_INT(find(d, "table.inner td", NULL), 1);
    CHECK_INT(find(d, "tr > td", NULL), 3);
    struct html_node *const *nodes;
    CHECK_INT(find(d, "li.x, #main, meta", &nodes), 4);
    size_t len;
    CHECK_STR(html_node_attr(nodes[0], "name", &len), "csrf-token"); /* document order, not the list's */
    CHECK_STR(html_node_attr(nodes[2], "id", &len), "main");
    CHECK_INT(find(d, "p, p", NULL), 2); /* each once */

    /* text: descendants, unclosed tags closed, nested tables */
    CHECK_STR(text(d, "p"), "one bold two");
    CHECK_STR(text(d, "table td"), "ab");
    CHECK_STR(text(d, "table.inner"), "b");
    CHECK_STR(text(d, "li.y"), "3");
    CHECK_STR(text(d, "form"), "");

    /* errors, 1-based positions */
    bad("input[name=", "a value expected at 12");
    bad("input[name=/]", "a value expected, not '/' (quote a value that has other bytes) at 12");
    bad("input[name=x", "']' expected, not the end at 13");
    bad("input[name=\"x]", "the quote \" opened here is not closed at 12");
    bad("input[=x]", "an attribute name expected, not '=' at 7");
    bad("a:first-child", "pseudo-classes (':') are not supported at 2");
    bad("a >", "a tag, *, #id, .class or [attr] expected, not the end at 4");
    bad("a,", "a selector expected after ',' at 3");
    bad("", "an empty selector at 1");
    bad("  ", "an empty selector at 3");
    bad("#", "an id expected after '#', not the end at 2");
    bad("p..x", "a class name expected after '.', not '.' at 3");
    bad("a + b", "the combinator '+' is not supported (' ' and '>' are) at 3");
    bad("a~b", "the combinator '~' is not supported (' ' and '>' are) at 2");
    bad("a]", "unexpected ']' at 2");
    bad("a[x=a b]", "']' expected, not 'b' at 7");
    html_doc_free(d);

    /* an empty page and a deep one (the walk has no recursion) */
    d = html_doc_parse("", 0);
    CHECK_INT(find(d, "p", NULL), 0);
    CHECK_INT(find(d, "html", NULL), 1);
    html_doc_free(d);
    size_t depth = 20000;
    char *deep = malloc(depth * 5 + 32);
    char *p = deep;
    for (size_t i = 0; i < depth; i++)
        p += sprintf(p, "<div>");
    strcpy(p, "<i id=x>deep</i>");
    d = html_doc_parse(deep, strlen(deep));
    free(deep);
    CHECK_INT(find(d, "div > i#x", NULL), 1);
    CHECK_STR(text(d, "body"), "deep");
    html_doc_free(d);
    return check_exit("test_html_doc");
}
