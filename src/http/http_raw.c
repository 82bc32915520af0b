/* A response received whole, taken apart: its heads' ends and its chunked
 * body decoded in place. The framing was checked when it was received
 * (http.c), so nothing here fails. */
#include "http_raw.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

const char *http_head_end(const char *p, const char *end)
{
    for (const char *nl = memchr(p, '\n', (size_t)(end - p)); nl; nl = memchr(nl + 1, '\n', (size_t)(end - nl - 1))) {
        const char *q = nl + 1;
        if (q < end && *q == '\r')
            q++;
        if (q < end && *q == '\n')
            return q + 1;
        if (nl + 1 >= end)
            break;
    }
    return NULL;
}

size_t http_final_head_end(const char *raw, size_t len)
{
    const char *p = raw, *end = raw + len;
    for (;;) {
        const char *e = http_head_end(p, end);
        if (!e)
            return len;
        /* "HTTP/1.x 1yy": an interim response, unless 101 (the final one). */
        bool interim = e - p > 12 && p[9] == '1' && !(p[10] == '0' && p[11] == '1');
        if (!interim)
            return (size_t)(e - raw);
        p = e;
    }
}

size_t http_dechunk(char *body, size_t len, size_t *trailers)
{
    const char *r = body, *end = body + len;
    char *w = body;
    *trailers = len;
    while (r < end) {
        uint64_t size = 0;
        for (; r < end; r++) {
            int d = *r >= '0' && *r <= '9' ? *r - '0'
                  : (*r | 0x20) >= 'a' && (*r | 0x20) <= 'f' ? (*r | 0x20) - 'a' + 10 : -1;
            if (d < 0)
                break;
            size = size * 16 + (uint64_t)d;
        }
        const char *nl = memchr(r, '\n', (size_t)(end - r)); /* past any chunk extension */
        if (nl && size == 0)
            *trailers = (size_t)(nl + 1 - body); /* the last chunk: the trailer section follows */
        if (!nl || size == 0)
            break;
        r = nl + 1;
        if (size > (uint64_t)(end - r))
            size = (uint64_t)(end - r);
        memmove(w, r, size);
        w += size;
        r += size;
        nl = memchr(r, '\n', (size_t)(end - r)); /* the CRLF after the data */
        if (!nl)
            break;
        r = nl + 1;
    }
    return (size_t)(w - body);
}
