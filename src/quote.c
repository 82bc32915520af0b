/* Escaping of user-supplied text for error messages (see quote.h). */
#include "quote.h"

#include <stdio.h>
#include <string.h>

char *quote_printable(char *dst, size_t len, const char *src)
{
    size_t o = 0;
    if (len == 0)
        return dst;
    for (const unsigned char *s = (const unsigned char *)src; *s; s++) {
        char esc[5];
        if (*s == '\n')
            strcpy(esc, "\\n");
        else if (*s == '\r')
            strcpy(esc, "\\r");
        else if (*s == '\t')
            strcpy(esc, "\\t");
        else if (*s < 0x20 || *s == 0x7f)
            snprintf(esc, sizeof esc, "\\x%02x", *s);
        else
            esc[0] = (char)*s, esc[1] = '\0';
        size_t n = strlen(esc);
        if (o + n + 4 >= len) {
            if (len >= 4) {
                o = o > len - 4 ? len - 4 : o;
                memcpy(dst + o, "...", 3);
                o += 3;
            }
            break;
        }
        memcpy(dst + o, esc, n);
        o += n;
    }
    dst[o < len ? o : len - 1] = '\0';
    return dst;
}
