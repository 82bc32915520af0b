/* The JSON report's two primitives: every string and every non-integer
 * number in it is written through these, so the file is valid JSON
 * (RFC 8259) whatever the server, the script or the command line gave. */
#ifndef VOLLEY_JSON_OUT_H
#define VOLLEY_JSON_OUT_H

#include <stddef.h>
#include <stdio.h>

/* Writes s[0..n) as a JSON string, quotes included: '"' and '\' escaped,
 * control characters (U+0000..U+001F, U+007F) as \uXXXX, well-formed UTF-8
 * as it is, and each byte that is not part of well-formed UTF-8 (see
 * utf8_decode) as \ufffd, the replacement character. */
void json_out_strn(FILE *out, const char *s, size_t n);

/* json_out_strn over a NUL-terminated string. */
void json_out_str(FILE *out, const char *s);

/* json_out_num's decimals for the shortest form of 15 significant digits
 * ("%.15g": 0.5, 750, 1e+16) instead of a fixed number of decimals. */
#define JSON_OUT_G (-1)

/* Writes v with that many decimals ("%.*f"), or with JSON_OUT_G as "%.15g";
 * null when v is infinite or NaN, which JSON cannot represent. */
void json_out_num(FILE *out, double v, int decimals);

/* Writes v as a JSON string of its decimal digits ("123"): a histogram's
 * exact sums outgrow both int64 and double's 53 bits, and a string keeps
 * every digit for any reader. */
void json_out_u128(FILE *out, unsigned __int128 v);

#endif
