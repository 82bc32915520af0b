/* JSON strings and numbers for the report (see json_out.h). The input is
 * untrusted (validation reasons come from servers through scripts, headers
 * and the URL from the command line), so it is validated here, not
 * trusted to be UTF-8. */
#include "json_out.h"

#include "utf8.h"

#include <math.h>
#include <string.h>

void json_out_strn(FILE *out, const char *s, size_t n)
{
    fputc('"', out);
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = utf8_decode(s + i, n - i, &cp);
        if (len == 0) {
            fputs("\\ufffd", out);
            i++;
            continue;
        }
        if (cp == '"' || cp == '\\')
            fprintf(out, "\\%c", (char)cp);
        else if (cp < 0x20 || cp == 0x7f)
            fprintf(out, "\\u%04x", (unsigned)cp); /* DEL is legal JSON; escaped for terminals */
        else
            fwrite(s + i, 1, len, out);
        i += len;
    }
    fputc('"', out);
}

void json_out_str(FILE *out, const char *s)
{
    json_out_strn(out, s, strlen(s));
}

void json_out_num(FILE *out, double v, int decimals)
{
    if (!isfinite(v))
        fputs("null", out);
    else if (decimals < 0)
        fprintf(out, "%.15g", v);
    else
        fprintf(out, "%.*f", decimals, v);
}

void json_out_u128(FILE *out, unsigned __int128 v)
{
    char d[40]; /* 2^128 has 39 digits */
    size_t n = sizeof d;
    do {
        d[--n] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    fprintf(out, "\"%.*s\"", (int)(sizeof d - n), d + n);
}
