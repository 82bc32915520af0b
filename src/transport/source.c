/* --source's list of local addresses; see source.h. */
#include "source.h"

#include "quote.h"
#include "xalloc.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends one address of s's family (the first item decides it). */
static int add(struct sources *s, const struct sockaddr_storage *a, int family, size_t *cap, const char *item,
               char *err, size_t errlen)
{
    char q[128];
    if (s->n && family != s->family) {
        snprintf(err, errlen, "--source: \"%s\": every address must be of one family (IPv4 or IPv6, as the first)",
                 quote_printable(q, sizeof q, item));
        return -1;
    }
    if (s->n >= SOURCE_MAX) {
        snprintf(err, errlen, "--source: more than %d addresses", SOURCE_MAX);
        return -1;
    }
    if (s->n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        s->addr = xrealloc(s->addr, *cap * sizeof *s->addr);
    }
    s->addr[s->n++] = *a;
    s->family = family;
    s->len = family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    return 0;
}

static struct sockaddr_storage v4(uint32_t host_order)
{
    struct sockaddr_storage ss = {0};
    struct sockaddr_in *in = (struct sockaddr_in *)&ss;
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl(host_order);
    return ss;
}

/* One item: an address or an IPv4 range A-B. */
static int parse_item(struct sources *s, const char *item, size_t *cap, char *err, size_t errlen)
{
    char q[128];
    struct in_addr a4, b4;
    struct in6_addr a6;
    const char *dash = strchr(item, '-');
    if (dash) {
        char lo[INET_ADDRSTRLEN + 1];
        size_t n = (size_t)(dash - item);
        if (n >= sizeof lo)
            n = sizeof lo - 1;
        memcpy(lo, item, n);
        lo[n] = '\0';
        if (inet_pton(AF_INET, lo, &a4) != 1 || inet_pton(AF_INET, dash + 1, &b4) != 1) {
            snprintf(err, errlen, "--source: \"%s\" is not a range of IPv4 addresses (e.g. 127.0.0.2-127.0.0.9)",
                     quote_printable(q, sizeof q, item));
            return -1;
        }
        uint32_t from = ntohl(a4.s_addr), to = ntohl(b4.s_addr);
        if (to < from) {
            snprintf(err, errlen, "--source: \"%s\": the range ends before it starts", quote_printable(q, sizeof q, item));
            return -1;
        }
        if ((uint64_t)to - from >= SOURCE_MAX) {
            snprintf(err, errlen, "--source: \"%s\": more than %d addresses", quote_printable(q, sizeof q, item),
                     SOURCE_MAX);
            return -1;
        }
        for (uint64_t v = from; v <= to; v++) {
            struct sockaddr_storage ss = v4((uint32_t)v);
            if (add(s, &ss, AF_INET, cap, item, err, errlen) < 0)
                return -1;
        }
        return 0;
    }
    struct sockaddr_storage ss = {0};
    if (inet_pton(AF_INET, item, &a4) == 1) {
        ss = v4(ntohl(a4.s_addr));
        return add(s, &ss, AF_INET, cap, item, err, errlen);
    }
    if (inet_pton(AF_INET6, item, &a6) == 1) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
        in6->sin6_family = AF_INET6;
        in6->sin6_addr = a6;
        return add(s, &ss, AF_INET6, cap, item, err, errlen);
    }
    snprintf(err, errlen, "--source: \"%s\" is not a numeric IP address (e.g. 127.0.0.2, ::1, 127.0.0.2-127.0.0.9)",
             quote_printable(q, sizeof q, item));
    return -1;
}

int sources_parse(const char *spec, struct sources *s, char *err, size_t errlen)
{
    *s = (struct sources){0};
    size_t cap = 0;
    const char *p = spec;
    for (;;) {
        size_t n = strcspn(p, ",");
        char item[128];
        if (n == 0 || n >= sizeof item) {
            char q[128];
            snprintf(err, errlen, "--source: \"%s\": %s", quote_printable(q, sizeof q, spec),
                     n == 0 ? "an empty item (addresses are separated by single commas)" : "an item too long");
            sources_free(s);
            return -1;
        }
        memcpy(item, p, n);
        item[n] = '\0';
        if (parse_item(s, item, &cap, err, errlen) < 0) {
            sources_free(s);
            return -1;
        }
        if (p[n] == '\0')
            return 0;
        p += n + 1;
    }
}

void sources_free(struct sources *s)
{
    free(s->addr);
    *s = (struct sources){0};
}
