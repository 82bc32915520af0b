/* The HTML report: one self-contained file (inline CSS and SVG drawn here,
 * no script, nothing fetched) rendered from a volley result, the parsed
 * JSON that --json writes. Live runs (--html) and saved results (`volley
 * report`) go through the same code. docs/output.md#html-report lists
 * what it shows. */
#ifndef VOLLEY_HTML_H
#define VOLLEY_HTML_H

#include <stddef.h>
#include <stdio.h>

struct json;

/* Writes the page for result (a parsed volley result) to out, with text
 * (text_len bytes, the JSON it was parsed from) embedded whole in a
 * <script type="application/json" id="volley-result"> element with every
 * '<' written as \u003c, so the file alone can be rendered again. Every
 * string of the result is HTML-escaped. Returns 0, or -1 with one line in
 * err naming the field that is missing, of the wrong type or undecodable
 * ("series.points[3].latency.hdr: ..."); out then holds a partial page
 * that the caller discards. */
int html_render(FILE *out, const struct json *result, const char *text, size_t text_len, char *err,
                size_t errlen);

/* Parses text[0..len) with json_in and renders it with html_render.
 * Returns 0, or -1 with err (a JSON error says where: "line 3, column 9
 * (byte 40): ..."). */
int html_write(FILE *out, const char *text, size_t len, char *err, size_t errlen);

#endif
