/* URL parsing, name resolution (every address, in order) and the start-up
 * probe that turns an unreachable target into one clear error instead of a
 * run full of connect errors. */
#include "target.h"

#include "clock.h"
#include "net.h"
#include "quote.h"
#include "xalloc.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/un.h>

static int bad_url(char *err, size_t errlen, const char *url, const char *why)
{
    char q[256];
    snprintf(err, errlen, "%s: %s", quote_printable(q, sizeof q, url), why);
    return -1;
}

/* Host names and IP literals: letters, digits, '-', '.', '_' and, inside
 * brackets, the ':' and '%' (zone) of IPv6. */
static bool host_chars_ok(const char *h, size_t n, bool bracketed)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)h[i];
        if (!(isalnum(ch) || ch == '-' || ch == '.' || ch == '_' || (bracketed && (ch == ':' || ch == '%'))))
            return false;
    }
    return true;
}

/* An IPv4 or IPv6 literal (never sent as SNI). */
static bool is_ip_literal(const char *host)
{
    unsigned char buf[sizeof(struct in6_addr)];
    return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1 || strchr(host, ':');
}

/* Whether s, a URL without its scheme, reads as host[:port][/path]: an IP
 * address or localhost, or a name with a port or a path (example.com/x,
 * myhost:8080). So `volley localhost:8080/` gets a hint, and `volley help`
 * or `volley s.lua` do not. */
static bool looks_like_host(const char *s)
{
    char host[256];
    const char *after;
    bool ip = false;
    if (*s == '[') {
        const char *end = strchr(s, ']');
        unsigned char buf[sizeof(struct in6_addr)];
        if (!end || (size_t)(end - s - 1) >= sizeof host)
            return false;
        snprintf(host, sizeof host, "%.*s", (int)(end - s - 1), s + 1);
        if (inet_pton(AF_INET6, host, buf) != 1)
            return false;
        ip = true;
        after = end + 1;
    } else {
        size_t n = strcspn(s, ":/?#");
        if (n == 0 || n >= sizeof host || !host_chars_ok(s, n, false))
            return false;
        snprintf(host, sizeof host, "%.*s", (int)n, s);
        unsigned char buf[sizeof(struct in_addr)];
        ip = net_is_localhost(host) || inet_pton(AF_INET, host, buf) == 1;
        after = s + n;
    }
    bool port = *after == ':';
    if (port) {
        size_t digits = strspn(after + 1, "0123456789");
        if (digits == 0 || digits > 5 || atol(after + 1) > 65535)
            return false;
        after += 1 + digits;
    }
    if (*after && !strchr("/?#", *after))
        return false;
    return ip || port || (*after && strchr(host, '.'));
}

/* An unbracketed IPv6 address at h, the authority of url ("::1:8080/x"):
 * -1 with err suggesting the brackets (the last group read as the port
 * when it is one and the rest is an address), or 0 when h is no such
 * address. */
static int unbracketed_ipv6(const char *url, const char *h, char *err, size_t errlen)
{
    size_t n = strcspn(h, "/?#");
    const char *colon = memchr(h, ':', n);
    if (!colon || !memchr(colon + 1, ':', n - (size_t)(colon + 1 - h)) || n >= 64)
        return 0;
    char addr[64], q[256], fix[320];
    unsigned char buf[sizeof(struct in6_addr)];
    const char *last = h + n;
    while (last[-1] != ':')
        last--;
    size_t digits = (size_t)(h + n - last);
    snprintf(addr, sizeof addr, "%.*s", (int)(last - 1 - h), h);
    if (digits > 0 && digits <= 5 && strspn(last, "0123456789") == digits && atol(last) >= 1 && atol(last) <= 65535 &&
        inet_pton(AF_INET6, addr, buf) == 1) {
        snprintf(fix, sizeof fix, "%.*s[%s]:%s", (int)(h - url), url, addr, last);
    } else {
        snprintf(addr, sizeof addr, "%.*s", (int)n, h);
        if (inet_pton(AF_INET6, addr, buf) != 1)
            return 0;
        snprintf(fix, sizeof fix, "%.*s[%s]%s", (int)(h - url), url, addr, h + n);
    }
    char qf[400];
    snprintf(err, errlen, "%s: an IPv6 address goes in brackets (did you mean %s ?)", quote_printable(q, sizeof q, url),
             quote_printable(qf, sizeof qf, fix));
    return -1;
}

int target_parse(struct target *t, const char *url, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    const char *p = strstr(url, "://");
    if (!p && looks_like_host(url)) {
        char q[256];
        snprintf(err, errlen, "%s: not a URL; did you mean http://%s ?", quote_printable(q, sizeof q, url), q);
        return -1;
    }
    if (!p)
        return bad_url(err, errlen, url, "not a URL (expected http://host[:port]/path)");
    bool tls = (size_t)(p - url) == 5 && strncasecmp(url, "https", 5) == 0;
    if (!tls && ((size_t)(p - url) != 4 || strncasecmp(url, "http", 4) != 0))
        return bad_url(err, errlen, url, "unsupported scheme (only http:// and https://)");
    const char *h = p + 3, *hend, *after;
    if (*h == '[') {
        hend = strchr(h, ']');
        if (!hend)
            return bad_url(err, errlen, url, "unterminated IPv6 address (missing ']')");
        after = hend + 1;
        h++;
    } else {
        if (unbracketed_ipv6(url, h, err, errlen) < 0)
            return -1;
        hend = h + strcspn(h, ":/?#");
        after = hend;
    }
    if (hend == h)
        return bad_url(err, errlen, url, "no host");
    if (memchr(h, '@', (size_t)(hend - h)))
        return bad_url(err, errlen, url, "user info in URLs is not supported");
    if (!host_chars_ok(h, (size_t)(hend - h), h[-1] == '['))
        return bad_url(err, errlen, url, "bad host");
    long port = tls ? 443 : 80;
    int port_given = *after == ':';
    if (port_given) {
        char *end;
        errno = 0;
        port = strtol(after + 1, &end, 10);
        if (after[1] < '0' || after[1] > '9' || end == after + 1 || errno || port < 1 || port > 65535 || (*end && !strchr("/?#", *end)))
            return bad_url(err, errlen, url, "bad port (1..65535)");
        after = end;
    } else if (*after && !strchr("/?#", *after)) {
        return bad_url(err, errlen, url, "bad host");
    }
    size_t plen = strcspn(after, "#");
    for (size_t i = 0; i < plen; i++)
        if ((unsigned char)after[i] <= ' ' || after[i] == 127)
            return bad_url(err, errlen, url, "spaces or control characters in the path");

    t->url = xstrdup(url);
    t->scheme = xstrdup(tls ? "https" : "http");
    t->tls = tls;
    t->host_is_ip = is_ip_literal(t->host = xstrndup(h, (size_t)(hend - h)));
    t->port = (uint16_t)port;
    t->port_given = port_given;
    if (plen == 0 || after[0] == '?') {
        t->path = xmalloc(plen + 2);
        t->path[0] = '/';
        memcpy(t->path + 1, after, plen);
        t->path[plen + 1] = '\0';
    } else {
        t->path = xstrndup(after, plen);
    }
    int v6 = strchr(t->host, ':') != NULL;
    size_t cap = strlen(t->host) + 16;
    t->host_header = xmalloc(cap);
    if (port == (tls ? 443 : 80)) /* the scheme's own port goes unsaid */
        snprintf(t->host_header, cap, v6 ? "[%s]" : "%s", t->host);
    else
        snprintf(t->host_header, cap, v6 ? "[%s]:%ld" : "%s:%ld", t->host, port);
    cap = strlen(t->host_header) + 16;
    t->origin = xmalloc(cap);
    snprintf(t->origin, cap, "%s://%s", t->scheme, t->host_header);
    return 0;
}

/* net_resolve's callback: one more address for the target. */
static void add_addr(void *arg, const struct sockaddr *sa, socklen_t len)
{
    struct target *t = arg;
    if (len > sizeof t->addrs[0].sa)
        return;
    t->addrs = xrealloc(t->addrs, (t->naddrs + 1) * sizeof *t->addrs);
    memset(&t->addrs[t->naddrs], 0, sizeof t->addrs[0]);
    memcpy(&t->addrs[t->naddrs].sa, sa, len);
    t->addrs[t->naddrs++].len = len;
}

int target_resolve(struct target *t, char *err, size_t errlen)
{
    char port[8];
    snprintf(port, sizeof port, "%u", t->port);
    int rc = net_resolve(t->host, port, add_addr, t);
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", t->host,
                 rc == EAI_NONAME || rc == EAI_NODATA ? "no such host" : gai_strerror(rc));
        return -1;
    }
    if (t->naddrs == 0) {
        snprintf(err, errlen, "%s: no usable address", t->host);
        return -1;
    }
    return 0;
}

size_t target_keep_family(struct target *t, int family)
{
    size_t kept = 0;
    for (size_t i = 0; i < t->naddrs; i++)
        kept += t->addrs[i].sa.ss_family == family;
    if (kept == 0)
        return 0;
    kept = 0;
    for (size_t i = 0; i < t->naddrs; i++)
        if (t->addrs[i].sa.ss_family == family)
            t->addrs[kept++] = t->addrs[i];
    t->naddrs = kept;
    t->chosen = 0;
    return kept;
}

/* One blocking-with-deadline connect attempt; 0 or the errno. */
static int try_connect(const struct target_addr *a, const struct sockaddr *src, socklen_t srclen,
                       int64_t timeout_ns)
{
    int fd;
    switch (net_connect_from((const struct sockaddr *)&a->sa, a->len, src, srclen, &fd)) {
    case NET_OK:
        net_close(fd);
        return 0;
    case NET_ERROR:
    case NET_WANT_WRITE: /* not from net_connect_from */
        return errno;
    case NET_AGAIN:
        break;
    }
    int64_t deadline = clock_now_ns() + timeout_ns;
    struct pollfd pfd = {.fd = fd, .events = POLLOUT};
    int rc, left_ms;
    do {
        int64_t left = deadline - clock_now_ns();
        left_ms = left <= 0 ? 0 : (int)((left + 999999) / 1000000);
        rc = poll(&pfd, 1, left_ms);
    } while (rc < 0 && errno == EINTR);
    int result = rc == 0 ? ETIMEDOUT : rc < 0 ? errno : net_connect_result(fd);
    net_close(fd);
    return result;
}

int target_probe(struct target *t, const struct sockaddr *src, socklen_t srclen, int64_t timeout_ns, char *err,
                 size_t errlen)
{
    int last = 0;
    for (size_t i = 0; i < t->naddrs; i++) {
        last = try_connect(&t->addrs[i], src, srclen, timeout_ns);
        if (last == 0) {
            t->chosen = i;
            return 0;
        }
    }
    char where[80];
    net_addr_string((const struct sockaddr *)&t->addrs[t->naddrs - 1].sa, where, sizeof where);
    const char *why = last == ECONNREFUSED ? "connection refused"
                      : last == ETIMEDOUT  ? "connect timed out"
                                           : strerror(last);
    if (t->naddrs > 1)
        snprintf(err, errlen, "%s:%u: %s (tried %zu addresses, last %s)", t->host, t->port, why, t->naddrs, where);
    else
        snprintf(err, errlen, "%s: %s", where, why);
    return -1;
}

int target_use_unix(struct target *t, const char *path, char *err, size_t errlen)
{
    char q[256];
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    struct stat st;
    if (strlen(path) >= sizeof sun.sun_path) {
        snprintf(err, errlen, "--unix-socket: %s: longer than a socket path may be (%zu bytes)",
                 quote_printable(q, sizeof q, path), sizeof sun.sun_path - 1);
        return -1;
    }
    const char *why = stat(path, &st) < 0 ? (errno == ENOENT ? "no such file" : strerror(errno))
                      : !S_ISSOCK(st.st_mode) ? "not a socket"
                                              : NULL;
    if (why) {
        snprintf(err, errlen, "--unix-socket: %s: %s", quote_printable(q, sizeof q, path), why);
        return -1;
    }
    memcpy(sun.sun_path, path, strlen(path) + 1);
    free(t->addrs);
    t->addrs = xcalloc(1, sizeof *t->addrs);
    memcpy(&t->addrs[0].sa, &sun, sizeof sun);
    t->addrs[0].len = (socklen_t)sizeof sun;
    t->naddrs = 1;
    t->chosen = 0;
    free(t->unix_path);
    t->unix_path = xstrdup(path);
    return 0;
}

const struct sockaddr *target_sockaddr(const struct target *t, socklen_t *len)
{
    if (t->proxy) {
        *len = t->proxy_addr.len;
        return (const struct sockaddr *)&t->proxy_addr.sa;
    }
    *len = t->addrs[t->chosen].len;
    return (const struct sockaddr *)&t->addrs[t->chosen].sa;
}

void target_free(struct target *t)
{
    free(t->url);
    free(t->scheme);
    free(t->host);
    free(t->path);
    free(t->host_header);
    free(t->origin);
    free(t->addrs);
    free(t->unix_path);
    free(t->proxy);
    free(t->proxy_auth);
    memset(t, 0, sizeof *t);
}
