/* Safe echoing of user input in one-line error messages: control characters
 * are shown as escapes, so a value holding a line break cannot split the
 * message or forge another line. */
#ifndef VOLLEY_QUOTE_H
#define VOLLEY_QUOTE_H

#include <stddef.h>

/* Copies src into dst (size len, always terminated) with \r, \n, \t and other
 * control bytes written as \r, \n, \t, \xNN; truncates with "..." when long.
 * Returns dst. */
char *quote_printable(char *dst, size_t len, const char *src);

#endif
