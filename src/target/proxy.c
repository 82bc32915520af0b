/* Which HTTP proxy a run goes through, by curl's rules (proxy.h): the
 * option or the environment, the proxy's URL taken apart (credentials
 * kept apart from what the report shows), and the no-proxy list. */
#include "proxy.h"

#include "quote.h"
#include "xalloc.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* curl's default port for a proxy URL without one. */
#define PROXY_PORT 1080

static int hexval(int ch)
{
    return isdigit(ch) ? ch - '0' : isxdigit(ch) ? (tolower(ch) - 'a' + 10) : -1;
}

/* s[0..n) with %XX decoded, into a new string. */
static char *pct_decode(const char *s, size_t n)
{
    char *out = xmalloc(n + 1), *o = out;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && hexval((unsigned char)s[i + 1]) >= 0 && hexval((unsigned char)s[i + 2]) >= 0) {
            *o++ = (char)(hexval((unsigned char)s[i + 1]) * 16 + hexval((unsigned char)s[i + 2]));
            i += 2;
        } else {
            *o++ = s[i];
        }
    }
    *o = '\0';
    return out;
}

static char *base64(const char *in, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = xmalloc((n + 2) / 3 * 4 + 1), *o = out;
    const unsigned char *p = (const unsigned char *)in;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        *o++ = tab[v >> 18 & 63];
        *o++ = tab[v >> 12 & 63];
        *o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? tab[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

/* The proxy URL url (from: the option or variable, for errors) into p.
 * Returns 0, or -1 with err. */
static int parse_proxy(struct proxy *p, const char *from, const char *url, char *err, size_t errlen)
{
    char q[256], why[400];
    const char *sep = strstr(url, "://");
    if (sep && !((size_t)(sep - url) == 4 && strncasecmp(url, "http", 4) == 0)) {
        snprintf(err, errlen, "%s: %s: only http:// proxies are supported (no https:// or SOCKS proxy)", from,
                 quote_printable(q, sizeof q, url));
        return -1;
    }
    const char *rest = sep ? sep + 3 : url; /* curl: a proxy without a scheme is http:// */
    size_t auth_end = strcspn(rest, "/?#");
    const char *at = memrchr(rest, '@', auth_end);
    size_t cap = strlen(rest) + 16;
    char *bare = xmalloc(cap);
    snprintf(bare, cap, "http://%s", at ? at + 1 : rest);
    int rc = target_parse(&p->t, bare, why, sizeof why);
    free(bare);
    if (rc < 0) {
        snprintf(err, errlen, "%s: %s", from, why);
        return -1;
    }
    if (!p->t.port_given)
        p->t.port = PROXY_PORT;
    bool v6 = strchr(p->t.host, ':') != NULL;
    cap = strlen(p->t.host) + 20;
    p->shown = xmalloc(cap);
    snprintf(p->shown, cap, v6 ? "http://[%s]:%u" : "http://%s:%u", p->t.host, p->t.port);
    if (at) {
        char *user = pct_decode(rest, (size_t)(at - rest));
        char *b = base64(user, strlen(user));
        cap = strlen(b) + 8;
        p->auth = xmalloc(cap);
        snprintf(p->auth, cap, "Basic %s", b);
        free(b);
        free(user);
    }
    p->from = from;
    return 0;
}

/* The first of the variables names that is set and not empty; its name in
 * *name. */
static const char *env_first(proxy_getenv env, const char *const *names, const char **name)
{
    for (; *names; names++) {
        const char *v = env(*names);
        if (v && *v) {
            *name = *names;
            return v;
        }
    }
    return NULL;
}

/* Whether host is in the network addr/bits (bits < 0: the address alone). */
static bool ip_match(const char *host, const char *entry, size_t n)
{
    char addr[64];
    const char *slash = memchr(entry, '/', n);
    size_t alen = slash ? (size_t)(slash - entry) : n;
    if (alen >= sizeof addr)
        return false;
    memcpy(addr, entry, alen);
    addr[alen] = '\0';
    if (addr[0] == '[' && alen > 2 && addr[alen - 1] == ']') { /* [::1] */
        memmove(addr, addr + 1, alen - 2);
        addr[alen - 2] = '\0';
    }
    unsigned char a[16], h[16];
    int family = strchr(addr, ':') ? AF_INET6 : AF_INET;
    int size = family == AF_INET6 ? 16 : 4;
    if (inet_pton(family, addr, a) != 1 || inet_pton(family, host, h) != 1)
        return false;
    long bits = size * 8;
    if (slash) {
        char *end;
        bits = strtol(slash + 1, &end, 10);
        if (end != entry + n || end == slash + 1 || bits < 0 || bits > size * 8)
            return false;
    }
    for (int i = 0; i < size && bits > 0; i++, bits -= 8) {
        unsigned mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
        if ((a[i] & mask) != (h[i] & mask))
            return false;
    }
    return true;
}

bool proxy_no_proxy_match(const char *list, const char *host)
{
    if (!list || !host)
        return false;
    while (*list == ' ' || *list == '\t')
        list++;
    if (strcmp(list, "*") == 0)
        return true;
    size_t hlen = strlen(host);
    if (hlen && host[hlen - 1] == '.')
        hlen--;
    unsigned char buf[16];
    bool host_ip = inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
    for (const char *p = list; *p;) {
        p += strspn(p, ", \t");
        size_t n = strcspn(p, ", \t");
        if (n == 0)
            break;
        const char *e = p;
        p += n;
        if (host_ip) {
            if (ip_match(host, e, n))
                return true;
            continue;
        }
        if (*e == '.') { /* ".example.com" is "example.com" */
            e++;
            n--;
        }
        if (n && e[n - 1] == '.')
            n--;
        if (n == 0 || n > hlen)
            continue;
        if (strncasecmp(host + hlen - n, e, n) == 0 && (n == hlen || host[hlen - n - 1] == '.'))
            return true;
    }
    return false;
}

int proxy_select(const char *opt, const char *noproxy, const struct target *t, proxy_getenv env, struct proxy **out,
                 char *err, size_t errlen)
{
    *out = NULL;
    const char *from = "--proxy", *url = opt;
    if (!url) {
        /* http_proxy only in lower case, as curl: a CGI program gets a
         * request's "Proxy:" header as HTTP_PROXY ("httpoxy"), so the upper
         * case one may be the client's word, not the user's. */
        static const char *const http_vars[] = {"http_proxy", "all_proxy", "ALL_PROXY", NULL};
        static const char *const https_vars[] = {"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", NULL};
        url = env_first(env, t->tls ? https_vars : http_vars, &from);
    }
    if (!url || !*url)
        return 0;
    if (!noproxy) {
        static const char *const no_vars[] = {"no_proxy", "NO_PROXY", NULL};
        const char *name;
        noproxy = env_first(env, no_vars, &name);
    }
    if (proxy_no_proxy_match(noproxy, t->host))
        return 0;
    struct proxy *p = xcalloc(1, sizeof *p);
    if (parse_proxy(p, from, url, err, errlen) < 0) {
        proxy_free(p);
        return -1;
    }
    *out = p;
    return 0;
}

void proxy_apply(const struct proxy *p, struct target *t)
{
    free(t->proxy);
    free(t->proxy_auth);
    t->proxy = xstrdup(p->shown);
    t->proxy_auth = p->auth ? xstrdup(p->auth) : NULL;
    t->proxy_addr = p->t.addrs[p->t.chosen];
}

void proxy_free(struct proxy *p)
{
    if (!p)
        return;
    target_free(&p->t);
    free(p->shown);
    free(p->auth);
    free(p);
}
