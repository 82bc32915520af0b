/* Escaping of untrusted text for terminals and one-line messages (see
 * quote.h). */
#include "quote.h"

#include "utf8.h"

#include <string.h>

/* The escaped form of the character at s[0..n) into esc (NUL-terminated);
 * returns how many bytes of s it stands for (>= 1). */
static size_t escape_next(const unsigned char *s, size_t n, char esc[16])
{
    uint32_t cp;
    size_t len = utf8_decode((const char *)s, n, &cp);
    if (len == 0) {
        snprintf(esc, 16, "\\x%02x", s[0]);
        return 1;
    }
    if (cp == '\n')
        strcpy(esc, "\\n");
    else if (cp == '\r')
        strcpy(esc, "\\r");
    else if (cp == '\t')
        strcpy(esc, "\\t");
    else if (cp < 0x20 || cp == 0x7f)
        snprintf(esc, 16, "\\x%02x", (unsigned)cp);
    else if (cp >= 0x80 && cp <= 0x9f) /* C1: CSI is U+009B, as ESC [ */
        snprintf(esc, 16, "\\x%02x\\x%02x", s[0], s[1]);
    else
        memcpy(esc, s, len), esc[len] = '\0';
    return len;
}

char *quote_printable(char *dst, size_t len, const char *src)
{
    size_t o = 0;
    if (len == 0)
        return dst;
    const unsigned char *s = (const unsigned char *)src;
    size_t n = strlen(src);
    while (n > 0) {
        char esc[16];
        size_t used = escape_next(s, n, esc);
        size_t elen = strlen(esc);
        if (o + elen + 4 >= len) {
            if (len >= 4) {
                o = o > len - 4 ? len - 4 : o;
                memcpy(dst + o, "...", 3);
                o += 3;
            }
            break;
        }
        memcpy(dst + o, esc, elen);
        o += elen;
        s += used;
        n -= used;
    }
    dst[o < len ? o : len - 1] = '\0';
    return dst;
}

void quote_write(FILE *out, const char *src)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t n = strlen(src);
    while (n > 0) {
        char esc[16];
        size_t used = escape_next(s, n, esc);
        fputs(esc, out);
        s += used;
        n -= used;
    }
}

size_t quote_columns(const char *src)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t n = strlen(src), cols = 0;
    while (n > 0) {
        char esc[16];
        size_t used = escape_next(s, n, esc);
        for (const unsigned char *e = (const unsigned char *)esc; *e; e++)
            cols += (*e & 0xc0) != 0x80; /* not a continuation byte: a character starts */
        s += used;
        n -= used;
    }
    return cols;
}
