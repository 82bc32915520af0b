/* Request fields from the user (-m, -H, a --targets file) checked before
 * anything is sent; see field.h. */
#include "field.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool field_is_token(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch <= 32 || ch >= 127 || strchr("\"(),/:;<=>?@[\\]{}", ch))
            return false;
    }
    return true;
}

const char *field_check_header(const char *h)
{
    const char *colon = strchr(h, ':');
    if (!colon || !field_is_token(h, (size_t)(colon - h)))
        return FIELD_NOT_HEADER;
    for (const unsigned char *p = (const unsigned char *)colon + 1; *p; p++)
        if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
            return FIELD_CONTROL;
    return NULL;
}

const char *field_value(const char *h, const char *name)
{
    size_t n = strlen(name);
    if (strncasecmp(h, name, n) != 0 || h[n] != ':')
        return NULL;
    return h + n + 1 + strspn(h + n + 1, " \t");
}

bool field_same_name(const char *h, const char *g)
{
    size_t n = strcspn(h, ":");
    return strncasecmp(h, g, n) == 0 && g[n] == ':';
}

enum field_framing field_framing(const char *h, bool has_body, size_t len, bool any_length, const char **value)
{
    const char *v;
    if ((v = field_value(h, "Transfer-Encoding"))) {
        *value = v;
        return FIELD_FRAMING_CHUNKED;
    }
    if (!(v = field_value(h, "Content-Length")))
        return FIELD_FRAMING_OK;
    *value = v;
    size_t digits = strspn(v, "0123456789");
    errno = 0;
    unsigned long long n = strtoull(v, NULL, 10);
    if (digits == 0 || v[digits + strspn(v + digits, " \t")] || errno)
        return FIELD_FRAMING_NOT_LENGTH;
    if (has_body && n != len)
        return FIELD_FRAMING_DISAGREES;
    if (!has_body && n != 0 && !any_length)
        return FIELD_FRAMING_NO_BODY;
    return FIELD_FRAMING_OK;
}
