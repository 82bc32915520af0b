/* Strict UTF-8 decoding (see utf8.h), as RFC 3629 and Unicode's table 3-7
 * define well-formed sequences: a decoder that accepts overlongs or
 * surrogates lets through text that a strict JSON parser rejects. */
#include "utf8.h"

size_t utf8_decode(const char *s, size_t n, uint32_t *cp)
{
    if (n == 0)
        return 0;
    const unsigned char *p = (const unsigned char *)s;
    size_t len;
    uint32_t c, min;
    if (p[0] < 0x80) {
        *cp = p[0];
        return 1;
    } else if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        len = 2, c = p[0] & 0x1f, min = 0x80;
    } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        len = 3, c = p[0] & 0x0f, min = 0x800;
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        len = 4, c = p[0] & 0x07, min = 0x10000;
    } else {
        return 0; /* a continuation byte, C0/C1 (always overlong), F5..FF */
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (p[i] & 0x3f);
    }
    /* Overlong forms decode below their length's minimum. */
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}
