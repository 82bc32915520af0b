/* Strict UTF-8 decoding, one sequence at a time, for the writers that must
 * not pass invalid text on: the JSON report (json_out.c) and the escaping of
 * untrusted text for a terminal (quote.c). */
#ifndef VOLLEY_UTF8_H
#define VOLLEY_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The length (1..4) of the well-formed UTF-8 sequence at s[0..n), storing
 * its code point in *cp; 0 if s[0] starts none (n == 0, a stray
 * continuation byte, a truncated sequence, an overlong form, a surrogate,
 * a code point above U+10FFFF, the bytes C0, C1, F5..FF). The input is
 * not NUL-terminated: a 0 byte is U+0000, of length 1. */
size_t utf8_decode(const char *s, size_t n, uint32_t *cp);

#endif
