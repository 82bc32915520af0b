/* Unit test for target.c: URL parsing (fields and every kind of rejection),
 * resolution of numeric and local names, and the start-up probe against
 * sockets of our own on 127.0.0.1. Only loopback addresses are ever used. */
#include "target.h"

#include "../check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SEC INT64_C(1000000000)

/* ---------------------------------------------------------------- parse */

struct url_case {
    const char *url;
    const char *host;
    unsigned port;
    const char *path;
    const char *host_header;
};

static const struct url_case good_urls[] = {
    {"http://127.0.0.1:8080/a/b?x=1", "127.0.0.1", 8080, "/a/b?x=1", "127.0.0.1:8080"},
    {"http://host", "host", 80, "/", "host"},
    {"http://host/", "host", 80, "/", "host"},
    {"http://[::1]:9000/", "::1", 9000, "/", "[::1]:9000"},
    {"http://[::1]/x", "::1", 80, "/x", "[::1]"},
    {"http://[::1]", "::1", 80, "/", "[::1]"},
    {"http://h?q=1", "h", 80, "/?q=1", "h"},
    {"http://h:81?q=1", "h", 81, "/?q=1", "h:81"},
    {"http://h/a#frag", "h", 80, "/a", "h"},
    {"http://h#frag", "h", 80, "/", "h"},
    {"http://h/a?b=1#frag?x", "h", 80, "/a?b=1", "h"},
    {"http://h:65535/", "h", 65535, "/", "h:65535"},
    {"http://h:1", "h", 1, "/", "h:1"},
    {"http://h:80/", "h", 80, "/", "h"},
    {"HTTP://Example.COM/P", "Example.COM", 80, "/P", "Example.COM"},
    {"http://h/%20?a=b&c=%0d", "h", 80, "/%20?a=b&c=%0d", "h"},
};

/* https: port 443 by default (and left out of Host), SNI-worthy names. */
static const struct url_case tls_urls[] = {
    {"https://h/", "h", 443, "/", "h"},
    {"HTTPS://h:8443/x", "h", 8443, "/x", "h:8443"},
    {"https://h:80/", "h", 80, "/", "h:80"},
    {"https://[::1]/", "::1", 443, "/", "[::1]"},
};

static void test_parse_tls(void)
{
    for (size_t i = 0; i < sizeof tls_urls / sizeof tls_urls[0]; i++) {
        const struct url_case *c = &tls_urls[i];
        struct target t;
        char err[256] = "";
        check_ctx("target_parse(\"%s\")", c->url);
        if (!CHECK_INT(target_parse(&t, c->url, err, sizeof err), 0))
            continue;
        CHECK_STR(t.scheme, "https");
        CHECK(t.tls);
        CHECK_INT(t.port, c->port);
        CHECK_STR(t.path, c->path);
        CHECK_STR(t.host_header, c->host_header);
        CHECK(t.host_is_ip == (strchr(c->host, ':') != NULL));
        target_free(&t);
    }
    struct target t;
    char err[256];
    check_ctx("IP literals");
    CHECK_INT(target_parse(&t, "https://127.0.0.1:1/", err, sizeof err), 0);
    CHECK(t.host_is_ip);
    target_free(&t);
    CHECK_INT(target_parse(&t, "http://localhost/", err, sizeof err), 0);
    CHECK(!t.host_is_ip && !t.tls);
    target_free(&t);
    check_ctx(NULL);
}

static void test_parse_good(void)
{
    for (size_t i = 0; i < sizeof good_urls / sizeof good_urls[0]; i++) {
        const struct url_case *c = &good_urls[i];
        struct target t;
        char err[256] = "";
        check_ctx("target_parse(\"%s\")", c->url);
        if (!CHECK_INT(target_parse(&t, c->url, err, sizeof err), 0)) {
            fprintf(stderr, "    err: %s\n", err);
            continue;
        }
        CHECK_STR(t.url, c->url);
        CHECK_STR(t.scheme, "http");
        CHECK_STR(t.host, c->host);
        CHECK_INT(t.port, c->port);
        CHECK_STR(t.path, c->path);
        CHECK_STR(t.host_header, c->host_header);
        CHECK(t.addrs == NULL && t.naddrs == 0);
        target_free(&t);
    }
    check_ctx(NULL);
}

struct bad_case {
    const char *url;
    const char *why; /* a word the message must hold besides the URL */
};

static const struct bad_case bad_urls[] = {
    {"", NULL},
    {"127.0.0.1:80", NULL},
    {"127.0.0.1:80/x", NULL},
    {"ftp://x/", "scheme"},
    {"httpx://x/", "scheme"},
    {"http:/x/", NULL},
    {"http://", "host"},
    {"http:///path", "host"},
    {"http://:80/", "host"},
    {"http://[::1", "IPv6"},
    {"http://[]/", "host"},
    {"http://[::1]x/", NULL},
    /* An IPv6 address without brackets: the URL with them. */
    {"http://::1:8080/", "an IPv6 address goes in brackets (did you mean http://[::1]:8080/ ?)"},
    {"http://::1/x", "(did you mean http://[::1]/x ?)"},
    {"https://fe80::1:2:3:4/?q", "(did you mean https://[fe80::1:2:3]:4/?q ?)"},
    {"http://2001:db8::abcd/", "(did you mean http://[2001:db8::abcd]/ ?)"},
    {"http://a:b:c/", "port"},
    {"http://h:0/", "port"},
    {"http://h:70000/", "port"},
    {"http://h:12ab/", "port"},
    {"http://h:/", "port"},
    {"http://h:-1/", "port"},
    {"http://h:99999999999999999999/", "port"},
    {"http://h: 80/", "port"},
    {"http://h:+80/", "port"},
    {"http://u@h/", "user"},
    {"http://u:p@h/", NULL},
    {"http://h/a b", NULL},
    {"http://h/a\tb", NULL},
    {"http://h/a\r\nX-Injected: 1", NULL},
    {"http://h?a b", NULL},
    /* A host is a name or an address: no spaces or control characters. */
    {"http://a b/", NULL},
    {"http://127.0.0.1 x/", NULL},
    {"http://127.0.0.1\r\nX-Injected: 1/", NULL},
};

/* A URL without its scheme that reads as a host gets the URL it meant;
 * words that cannot be a host get the usual message. */
static void test_scheme_hint(void)
{
    static const char *const hosts[] = {"localhost:8080/", "127.0.0.1:8080", "[::1]:80/x", "example.com/path",
                                        "myhost:8080", "localhost", "a.localhost:80/?q=1"};
    static const char *const words[] = {"help", "s.lua", "example.com", "foo/bar", "a b:80/", "host:99999/",
                                        "[nonsense]:80/", "-x", "x:y/"};
    struct target t;
    char err[256], want[256];
    for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
        check_ctx("hint for %s", hosts[i]);
        CHECK_INT(target_parse(&t, hosts[i], err, sizeof err), -1);
        snprintf(want, sizeof want, "%s: not a URL; did you mean http://%s ?", hosts[i], hosts[i]);
        CHECK_STR(err, want);
    }
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        check_ctx("no hint for %s", words[i]);
        CHECK_INT(target_parse(&t, words[i], err, sizeof err), -1);
        snprintf(want, sizeof want, "%s: not a URL (expected http://host[:port]/path)", words[i]);
        CHECK_STR(err, want);
    }
    check_ctx(NULL);
}

static void test_parse_bad(void)
{
    for (size_t i = 0; i < sizeof bad_urls / sizeof bad_urls[0]; i++) {
        const struct bad_case *c = &bad_urls[i];
        struct target t;
        char err[256] = "";
        check_ctx("target_parse(\"%s\") must fail", c->url);
        int rc = target_parse(&t, c->url, err, sizeof err);
        if (!CHECK_INT(rc, -1)) {
            check_print_bytes("host", t.host, t.host ? strlen(t.host) : 0);
            check_print_bytes("host_header", t.host_header, t.host_header ? strlen(t.host_header) : 0);
            check_print_bytes("path", t.path, t.path ? strlen(t.path) : 0);
            target_free(&t);
            continue;
        }
        CHECK(err[0] != '\0');
        bool plain = true; /* no control characters, so the URL is quoted as is */
        for (const char *p = c->url; *p; p++)
            plain &= (unsigned char)*p >= 0x20 && *p != 0x7f;
        if (c->url[0] && plain)
            CHECK_CONTAINS(err, c->url);
        if (c->why)
            CHECK_CONTAINS(err, c->why);
        bool printable = true; /* one line, control characters escaped */
        for (const char *p = err; *p; p++)
            printable &= (unsigned char)*p >= 0x20 && *p != 0x7f;
        if (!CHECK(printable))
            check_print_bytes("err", err, strlen(err));
        /* Nothing was allocated: target_free on the failed target is a no-op. */
        CHECK(t.url == NULL && t.host == NULL && t.path == NULL && t.host_header == NULL);
    }
    check_ctx(NULL);
}

/* -------------------------------------------------------------- resolve */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool is_loopback(const struct target_addr *a)
{
    if (a->sa.ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&a->sa;
        return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    }
    if (a->sa.ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&a->sa;
        return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
    }
    return false;
}

static unsigned addr_port(const struct target_addr *a)
{
    if (a->sa.ss_family == AF_INET)
        return ntohs(((const struct sockaddr_in *)&a->sa)->sin_port);
    return ntohs(((const struct sockaddr_in6 *)&a->sa)->sin6_port);
}

static void test_resolve(void)
{
    struct target t;
    char err[256] = "";

    check_ctx("resolve 127.0.0.1");
    if (CHECK_INT(target_parse(&t, "http://127.0.0.1:8080/", err, sizeof err), 0)) {
        if (CHECK_INT(target_resolve(&t, err, sizeof err), 0) && CHECK_INT(t.naddrs, 1)) {
            CHECK_INT(t.addrs[0].sa.ss_family, AF_INET);
            CHECK_INT(t.addrs[0].len, sizeof(struct sockaddr_in));
            CHECK(is_loopback(&t.addrs[0]));
            CHECK_INT(addr_port(&t.addrs[0]), 8080);
            socklen_t len = 0;
            const struct sockaddr *sa = target_sockaddr(&t, &len);
            CHECK(sa == (const struct sockaddr *)&t.addrs[0].sa);
            CHECK_INT(len, sizeof(struct sockaddr_in));
        }
        target_free(&t);
    }

    check_ctx("resolve ::1");
    if (CHECK_INT(target_parse(&t, "http://[::1]:9000/", err, sizeof err), 0)) {
        if (CHECK_INT(target_resolve(&t, err, sizeof err), 0) && CHECK_INT(t.naddrs, 1)) {
            CHECK_INT(t.addrs[0].sa.ss_family, AF_INET6);
            CHECK_INT(t.addrs[0].len, sizeof(struct sockaddr_in6));
            CHECK(is_loopback(&t.addrs[0]));
            CHECK_INT(addr_port(&t.addrs[0]), 9000);
        }
        target_free(&t);
    }

    /* localhost is both loopbacks, 127.0.0.1 first, whatever /etc/hosts lists
     * (RFC 6761, as curl); also in other cases, with a trailing dot, and
     * names under .localhost. */
    static const char *const locals[] = {"http://localhost:81/", "http://LocalHost:81/", "http://localhost.:81/",
                                         "http://api.localhost:81/"};
    for (size_t i = 0; i < sizeof locals / sizeof locals[0]; i++) {
        check_ctx("resolve %s", locals[i]);
        if (CHECK_INT(target_parse(&t, locals[i], err, sizeof err), 0)) {
            if (CHECK_INT(target_resolve(&t, err, sizeof err), 0) && CHECK_INT(t.naddrs, 2)) {
                CHECK_INT(t.addrs[0].sa.ss_family, AF_INET);
                CHECK_INT(t.addrs[1].sa.ss_family, AF_INET6);
                for (size_t j = 0; j < t.naddrs; j++) {
                    CHECK(is_loopback(&t.addrs[j]));
                    CHECK_INT(addr_port(&t.addrs[j]), 81);
                }
            }
            target_free(&t);
        }
    }

    /* .invalid never resolves (RFC 6761). */
    check_ctx("resolve nosuch.invalid");
    if (CHECK_INT(target_parse(&t, "http://nosuch.invalid/", err, sizeof err), 0)) {
        double t0 = now_s();
        CHECK_INT(target_resolve(&t, err, sizeof err), -1);
        double took = now_s() - t0;
        CHECK_CONTAINS(err, "nosuch.invalid");
        CHECK_CONTAINS(err, "no such host");
        CHECK(strchr(err, '\n') == NULL);
        if (took > 2.0)
            fprintf(stderr, "test_target: note: resolving nosuch.invalid took %.1f s\n", took);
        target_free(&t);
    }
    check_ctx(NULL);
}

/* ---------------------------------------------------------------- probe */

/* A TCP socket bound to 127.0.0.1 on a free port; listening if asked. */
static int loopback_socket(bool listening, unsigned *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sin;
    if (bind(fd, (struct sockaddr *)&sin, sizeof sin) < 0 || getsockname(fd, (struct sockaddr *)&sin, &len) < 0 ||
        (listening && listen(fd, 8) < 0)) {
        close(fd);
        return -1;
    }
    *port = ntohs(sin.sin_port);
    return fd;
}

/* A port on 127.0.0.1 where nothing listens. */
static unsigned refused_port(void)
{
    unsigned port = 0;
    int fd = loopback_socket(false, &port);
    if (fd >= 0)
        close(fd);
    return port;
}

static bool make_target(struct target *t, unsigned port)
{
    char url[64], err[256] = "";
    snprintf(url, sizeof url, "http://127.0.0.1:%u/", port);
    if (!CHECK_INT(target_parse(t, url, err, sizeof err), 0))
        return false;
    if (!CHECK_INT(target_resolve(t, err, sizeof err), 0) || !CHECK_INT(t->naddrs, 1)) {
        target_free(t);
        return false;
    }
    return true;
}

/* The probe closes its connection at once: the server sees it accepted and
 * then at end of stream. */
static void check_probe_connection_closed(int lfd)
{
    struct pollfd pfd = {.fd = lfd, .events = POLLIN};
    if (!CHECK_INT(poll(&pfd, 1, 2000), 1))
        return;
    int cfd = accept(lfd, NULL, NULL);
    if (!CHECK(cfd >= 0))
        return;
    struct pollfd cp = {.fd = cfd, .events = POLLIN};
    char ch;
    if (CHECK_INT(poll(&cp, 1, 2000), 1))
        CHECK_INT(read(cfd, &ch, 1), 0);
    close(cfd);
}

static void test_probe(void)
{
    struct target t;
    char err[256], where[64];

    check_ctx("probe a port where nothing listens");
    unsigned dead = refused_port();
    if (CHECK(dead != 0) && make_target(&t, dead)) {
        err[0] = '\0';
        CHECK_INT(target_probe(&t, NULL, 0, SEC, err, sizeof err), -1);
        CHECK_CONTAINS(err, "connection refused");
        snprintf(where, sizeof where, "127.0.0.1:%u", dead);
        CHECK_CONTAINS(err, where);
        CHECK(strchr(err, '\n') == NULL);
        target_free(&t);
    }

    check_ctx("probe a listening socket");
    unsigned live = 0;
    int lfd = loopback_socket(true, &live);
    if (CHECK(lfd >= 0) && make_target(&t, live)) {
        err[0] = '\0';
        if (!CHECK_INT(target_probe(&t, NULL, 0, SEC, err, sizeof err), 0))
            fprintf(stderr, "    err: %s\n", err);
        CHECK_INT(t.chosen, 0);
        check_probe_connection_closed(lfd);
        target_free(&t);
    }

    /* Two addresses, the first refusing: the probe chooses the second. The
     * address list is filled by hand, as a name with two addresses would. */
    check_ctx("probe two addresses, first refused");
    if (lfd >= 0 && dead && make_target(&t, dead)) {
        struct target_addr *two = calloc(2, sizeof *two);
        two[0] = two[1] = t.addrs[0];
        ((struct sockaddr_in *)&two[1].sa)->sin_port = htons((uint16_t)live);
        free(t.addrs);
        t.addrs = two;
        t.naddrs = 2;
        err[0] = '\0';
        if (!CHECK_INT(target_probe(&t, NULL, 0, SEC, err, sizeof err), 0))
            fprintf(stderr, "    err: %s\n", err);
        CHECK_INT(t.chosen, 1);
        socklen_t len = 0;
        const struct sockaddr *sa = target_sockaddr(&t, &len);
        CHECK(sa == (const struct sockaddr *)&t.addrs[1].sa);
        CHECK_INT(len, sizeof(struct sockaddr_in));
        check_probe_connection_closed(lfd);

        /* Both refused: the error names the host and how many were tried. */
        check_ctx("probe two addresses, both refused");
        t.addrs[1] = t.addrs[0];
        t.chosen = 0;
        err[0] = '\0';
        CHECK_INT(target_probe(&t, NULL, 0, SEC, err, sizeof err), -1);
        CHECK_CONTAINS(err, "connection refused");
        CHECK_CONTAINS(err, "2 addresses");
        target_free(&t);
    }
    if (lfd >= 0)
        close(lfd);
    check_ctx(NULL);
}

int main(void)
{
    test_parse_tls();
    test_parse_good();
    test_parse_bad();
    test_scheme_hint();
    test_resolve();
    test_probe();
    return check_exit("test_target");
}
