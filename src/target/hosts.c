/* --allow-host's list (hosts.h): each word split into hosts, each host
 * checked as a URL's host is, then resolved once before the run starts,
 * so that a user reaching it never waits on the resolver. */
#include "hosts.h"

#include "net.h"
#include "quote.h"
#include "xalloc.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(char *err, size_t errlen, const char *what, size_t n, const char *why)
{
    char q[160], w[160];
    snprintf(w, sizeof w, "%.*s", (int)(n < sizeof w - 1 ? n : sizeof w - 1), what);
    snprintf(err, errlen, "--allow-host: %s %s (HOST or HOST:PORT, comma-separated: --allow-host cdn.example,"
             "127.0.0.2:8081)", quote_printable(q, sizeof q, w), why);
    return -1;
}

static bool name_ok(const char *s, size_t n, bool bracketed)
{
    if (n == 0 || n > 253)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!(isalnum(ch) || ch == '-' || ch == '.' || ch == '_' || (bracketed && (ch == ':' || ch == '%'))))
            return false;
    }
    return true;
}

/* One HOST[:PORT] of n bytes at s. */
static int add_one(struct hosts *h, const char *s, size_t n, char *err, size_t errlen)
{
    const char *host = s, *colon = NULL;
    size_t hlen;
    bool bracketed = n > 0 && s[0] == '[';
    if (bracketed) {
        const char *end = memchr(s, ']', n);
        if (!end)
            return bad(err, errlen, s, n, "has no closing ']'");
        host = s + 1;
        hlen = (size_t)(end - host);
        if (end + 1 < s + n) {
            if (end[1] != ':')
                return bad(err, errlen, s, n, "is not a host");
            colon = end + 1;
        }
    } else {
        colon = memchr(s, ':', n);
        hlen = colon ? (size_t)(colon - s) : n;
    }
    if (!name_ok(host, hlen, bracketed))
        return bad(err, errlen, s, n, n == 0 ? "is empty" : "is not a host");
    long port = 0;
    if (colon) {
        const char *p = colon + 1, *end = s + n;
        if (p == end)
            return bad(err, errlen, s, n, "has no port after ':'");
        for (; p < end; p++) {
            if (!isdigit((unsigned char)*p))
                return bad(err, errlen, s, n, "has a port that is not a number");
            port = port * 10 + (*p - '0');
            if (port > 65535)
                break;
        }
        if (port < 1 || port > 65535)
            return bad(err, errlen, s, n, "has a port out of 1-65535");
    }
    if (h->n == HOSTS_MAX) {
        snprintf(err, errlen, "--allow-host: more than %d hosts", HOSTS_MAX);
        return -1;
    }
    struct hosts_entry *e = &h->e[h->n++];
    memset(e, 0, sizeof *e);
    e->name = xstrndup(host, hlen);
    for (char *c = e->name; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    e->port = (uint16_t)port;
    unsigned char buf[sizeof(struct in6_addr)];
    e->is_ip = inet_pton(AF_INET, e->name, buf) == 1 || inet_pton(AF_INET6, e->name, buf) == 1;
    if (bracketed && !e->is_ip) {
        h->n--;
        free(e->name);
        return bad(err, errlen, s, n, "is not an IPv6 address");
    }
    return 0;
}

int hosts_parse(struct hosts *h, const char *list, char *err, size_t errlen)
{
    const char *p = list;
    for (;;) {
        size_t n = strcspn(p, ",");
        if (add_one(h, p, n, err, errlen) < 0)
            return -1;
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

/* net_resolve's callback: the first address is kept. */
static void keep_first(void *arg, const struct sockaddr *addr, socklen_t len)
{
    struct hosts_entry *e = arg;
    if (e->salen || len > sizeof e->sa)
        return;
    memcpy(&e->sa, addr, len);
    e->salen = len;
}

int hosts_resolve(struct hosts *h, char *err, size_t errlen)
{
    for (size_t i = 0; i < h->n; i++) {
        struct hosts_entry *e = &h->e[i];
        if (e->salen)
            continue;
        int rc = net_resolve(e->name, "0", keep_first, e);
        if (rc != 0 || !e->salen) {
            snprintf(err, errlen, "--allow-host: %s: %s", e->name,
                     rc == EAI_NONAME || rc == EAI_NODATA ? "no such host"
                     : rc ? gai_strerror(rc) : "no usable address");
            return -1;
        }
    }
    return 0;
}

const struct hosts_entry *hosts_find(const struct hosts *h, const char *host, uint16_t port)
{
    for (size_t i = 0; h && i < h->n; i++)
        if ((h->e[i].port == 0 || h->e[i].port == port) && strcmp(h->e[i].name, host) == 0)
            return &h->e[i];
    return NULL;
}

void hosts_addr(const struct hosts_entry *e, uint16_t port, struct sockaddr_storage *out, socklen_t *len)
{
    memcpy(out, &e->sa, e->salen);
    *len = e->salen;
    if (out->ss_family == AF_INET)
        ((struct sockaddr_in *)out)->sin_port = htons(port);
    else
        ((struct sockaddr_in6 *)out)->sin6_port = htons(port);
}

void hosts_free(struct hosts *h)
{
    for (size_t i = 0; i < h->n; i++)
        free(h->e[i].name);
    h->n = 0;
}
