/* Safe echoing of untrusted text (user input in error messages, server data
 * and script strings in the text report): control characters are shown as
 * escapes, so a value holding a line break or a terminal escape sequence
 * cannot split a line, forge another one, or restyle the terminal. */
#ifndef VOLLEY_QUOTE_H
#define VOLLEY_QUOTE_H

#include <stddef.h>
#include <stdio.h>

/* The escaping both functions apply: \r, \n and \t written as \r, \n, \t;
 * other C0 controls (ESC is \x1b), DEL, the C1 controls U+0080..U+009F
 * (as \xc2\x80 ...) and every byte that is not part of well-formed UTF-8
 * written as \xNN; the rest (printable ASCII, well-formed UTF-8) as it is.
 * No quotes are added; a backslash is not escaped, so escaping text twice
 * changes nothing. */

/* Copies src into dst (size len, always terminated) escaped as above;
 * truncates with "..." when long. Returns dst. */
char *quote_printable(char *dst, size_t len, const char *src);

/* Writes src to out escaped as above, whole. */
void quote_write(FILE *out, const char *src);

/* The characters (code points) quote_write writes for src: the columns it
 * takes on a terminal, where each character takes one (text tables pad
 * with it; printf's %-*s counts bytes). */
size_t quote_columns(const char *src);

#endif
