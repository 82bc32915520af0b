/* What the HTML report's files share, below all of them: escaping, the
 * numbers and times as the page writes them, and a table of reasons. */
#ifndef VOLLEY_HTML_COMMON_H
#define VOLLEY_HTML_COMMON_H

#include "html_read.h"

#include <stddef.h>
#include <stdio.h>

/* Writes s[0..n) HTML-escaped for text and attribute values: & < > " '
 * as entities, C0 controls (but tab, LF, CR), DEL and U+0000 as U+FFFD,
 * bytes that are not well-formed UTF-8 as U+FFFD. */
void html_escape(FILE *out, const char *s, size_t n);

/* A number as the JSON had it: whole numbers without decimals, others
 * with up to dec decimals; "-" for absent or null (NAN). */
void html_num(FILE *out, double v, int dec);

/* A time in microseconds as the text report writes times; "-" for NAN. */
void html_us(FILE *out, double v);

/* A reasons object f ({"reasons": [{"reason", "count"}], "other_reasons",
 * "other"}; at path, NULL: none) as a table of id with the column head
 * head: a row per reason (escaped), then "N other reasons", or "none". */
void html_reasons(FILE *out, struct html_rd *rd, const struct json *f, const char *path, const char *id,
                  const char *head);

#endif
