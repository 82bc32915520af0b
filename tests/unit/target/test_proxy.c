/* Unit test for proxy.c: which proxy a target goes through, by curl's
 * rules (the option, the variables and their order, http_proxy in lower
 * case only, --proxy '' and the no-proxy list: "*", domains, IPs and
 * networks), the proxy URL taken apart (default port, credentials kept out
 * of what is shown) and every refusal. The environment is a table here. */
#include "proxy.h"

#include "../check.h"

#include <stdlib.h>
#include <string.h>

static const char *const *env_table;

static const char *fake_env(const char *name)
{
    for (const char *const *e = env_table; e && *e; e += 2)
        if (strcmp(e[0], name) == 0)
            return e[1];
    return NULL;
}

/* The proxy target url goes through with opt, noproxy and env (NAME,
 * VALUE, ..., NULL): its shown URL, or "" for none, or "error: ..." */
static const char *chosen(const char *url, const char *opt, const char *noproxy, const char *const *env)
{
    static char out[512];
    char err[400];
    struct target t;
    env_table = env;
    if (target_parse(&t, url, err, sizeof err) < 0) {
        snprintf(out, sizeof out, "bad test url %s", url);
        return out;
    }
    struct proxy *p;
    if (proxy_select(opt, noproxy, &t, fake_env, &p, err, sizeof err) < 0)
        snprintf(out, sizeof out, "error: %s", err);
    else
        snprintf(out, sizeof out, "%s%s%s%s%s", p ? p->shown : "", p && p->auth ? " auth=" : "",
                 p && p->auth ? p->auth : "", p ? " from=" : "", p ? p->from : "");
    proxy_free(p);
    target_free(&t);
    return out;
}

static void test_select(void)
{
    const char *none[] = {NULL};
    CHECK_STR(chosen("http://a.test/", NULL, NULL, none), "");
    CHECK_STR(chosen("http://a.test/", "http://p:3128", NULL, none), "http://p:3128 from=--proxy");
    /* curl's defaults: no scheme is http://, no port is 1080 */
    CHECK_STR(chosen("http://a.test/", "p", NULL, none), "http://p:1080 from=--proxy");
    CHECK_STR(chosen("http://a.test/", "[::1]:8", NULL, none), "http://[::1]:8 from=--proxy");
    /* credentials: percent-decoded, Basic, never shown */
    CHECK_STR(chosen("http://a.test/", "http://us%3Aer:pa%20ss@p:1/", NULL, none),
              "http://p:1 auth=Basic dXM6ZXI6cGEgc3M= from=--proxy");
    CHECK_STR(chosen("http://a.test/", "http://u:p@p:1", NULL, none), "http://p:1 auth=Basic dTpw from=--proxy");

    /* http:// reads http_proxy, never HTTP_PROXY (httpoxy); then all_proxy, ALL_PROXY */
    const char *upper[] = {"HTTP_PROXY", "http://up:1", NULL};
    CHECK_STR(chosen("http://a.test/", NULL, NULL, upper), "");
    const char *lower[] = {"HTTP_PROXY", "http://up:1", "http_proxy", "http://low:2", NULL};
    CHECK_STR(chosen("http://a.test/", NULL, NULL, lower), "http://low:2 from=http_proxy");
    const char *all[] = {"ALL_PROXY", "http://ALL:3", "all_proxy", "http://all:4", NULL};
    CHECK_STR(chosen("http://a.test/", NULL, NULL, all), "http://all:4 from=all_proxy");
    const char *all_up[] = {"ALL_PROXY", "http://ALL:3", NULL};
    CHECK_STR(chosen("https://a.test/", NULL, NULL, all_up), "http://ALL:3 from=ALL_PROXY");
    /* https:// reads https_proxy, then HTTPS_PROXY, and not http_proxy */
    const char *https[] = {"http_proxy", "http://h:1", "HTTPS_PROXY", "http://S:2", NULL};
    CHECK_STR(chosen("https://a.test/", NULL, NULL, https), "http://S:2 from=HTTPS_PROXY");
    const char *https_both[] = {"HTTPS_PROXY", "http://S:2", "https_proxy", "http://s:3", NULL};
    CHECK_STR(chosen("https://a.test/", NULL, NULL, https_both), "http://s:3 from=https_proxy");
    CHECK_STR(chosen("http://a.test/", NULL, NULL, https), "http://h:1 from=http_proxy");
    /* an empty variable is none */
    const char *empty[] = {"http_proxy", "", "all_proxy", "http://all:4", NULL};
    CHECK_STR(chosen("http://a.test/", NULL, NULL, empty), "http://all:4 from=all_proxy");
    /* --proxy wins over the environment; --proxy '' is none at all */
    CHECK_STR(chosen("http://a.test/", "http://o:5", NULL, lower), "http://o:5 from=--proxy");
    CHECK_STR(chosen("http://a.test/", "", NULL, lower), "");

    /* no_proxy before NO_PROXY; --noproxy before both; it applies to --proxy too */
    const char *np[] = {"http_proxy", "http://p:1", "NO_PROXY", "a.test", NULL};
    CHECK_STR(chosen("http://a.test/", NULL, NULL, np), "");
    CHECK_STR(chosen("http://b.test/", NULL, NULL, np), "http://p:1 from=http_proxy");
    CHECK_STR(chosen("http://a.test/", "http://o:5", NULL, np), "");
    CHECK_STR(chosen("http://a.test/", NULL, "other.test", np), "http://p:1 from=http_proxy");
    CHECK_STR(chosen("http://a.test/", NULL, "", np), "http://p:1 from=http_proxy");
    const char *np2[] = {"http_proxy", "http://p:1", "NO_PROXY", "a.test", "no_proxy", "b.test", NULL};
    CHECK_STR(chosen("http://a.test/", NULL, NULL, np2), "http://p:1 from=http_proxy");
    CHECK_STR(chosen("http://b.test/", NULL, NULL, np2), "");
    /* loopback is not bypassed unless listed (curl) */
    const char *lo[] = {"http_proxy", "http://p:1", NULL};
    CHECK_STR(chosen("http://127.0.0.1:8/", NULL, NULL, lo), "http://p:1 from=http_proxy");
    CHECK_STR(chosen("http://localhost:8/", NULL, NULL, lo), "http://p:1 from=http_proxy");

    /* refusals name the option or variable */
    CHECK_STR(chosen("http://a.test/", "socks5://p:1", NULL, none),
              "error: --proxy: socks5://p:1: only http:// proxies are supported (no https:// or SOCKS proxy)");
    CHECK_STR(chosen("http://a.test/", "https://p:1", NULL, none),
              "error: --proxy: https://p:1: only http:// proxies are supported (no https:// or SOCKS proxy)");
    const char *bad[] = {"http_proxy", "http://p:99999", NULL};
    CHECK_STR(chosen("http://a.test/", NULL, NULL, bad), "error: http_proxy: http://p:99999: bad port (1..65535)");
    CHECK_STR(chosen("http://a.test/", "http://", NULL, none), "error: --proxy: http://: no host");
}

static void test_no_proxy(void)
{
    CHECK(proxy_no_proxy_match("*", "anything.test"));
    CHECK(proxy_no_proxy_match(" *", "1.2.3.4"));
    CHECK(!proxy_no_proxy_match("*.test", "a.test")); /* "*" only alone */
    CHECK(!proxy_no_proxy_match("", "a.test"));
    CHECK(!proxy_no_proxy_match(NULL, "a.test"));
    /* domains: the name itself or under it, any case, a leading dot ignored */
    CHECK(proxy_no_proxy_match("example.com", "example.com"));
    CHECK(proxy_no_proxy_match("example.com", "www.EXAMPLE.com"));
    CHECK(proxy_no_proxy_match(".example.com", "example.com"));
    CHECK(proxy_no_proxy_match(".example.com", "a.b.example.com"));
    CHECK(proxy_no_proxy_match("example.com", "example.com."));
    CHECK(!proxy_no_proxy_match("example.com", "badexample.com"));
    CHECK(!proxy_no_proxy_match("www.example.com", "example.com"));
    /* lists: commas and blanks */
    CHECK(proxy_no_proxy_match("a.test, b.test", "b.test"));
    CHECK(proxy_no_proxy_match("a.test b.test\tc.test", "x.c.test"));
    CHECK(proxy_no_proxy_match(",,a.test,,", "a.test"));
    CHECK(!proxy_no_proxy_match("a.test,b.test", "c.test"));
    /* IP addresses: the address, or in a network; never by suffix */
    CHECK(proxy_no_proxy_match("127.0.0.1", "127.0.0.1"));
    CHECK(!proxy_no_proxy_match("127.0.0.1", "127.0.0.2"));
    CHECK(!proxy_no_proxy_match("0.0.1", "127.0.0.1"));
    CHECK(proxy_no_proxy_match("10.0.0.0/8,127.0.0.0/8", "127.1.2.3"));
    CHECK(!proxy_no_proxy_match("127.0.0.0/24", "127.0.1.1"));
    CHECK(proxy_no_proxy_match("192.168.1.0/23", "192.168.0.9"));
    CHECK(proxy_no_proxy_match("0.0.0.0/0", "8.8.8.8"));
    CHECK(!proxy_no_proxy_match("127.0.0.0/33", "127.0.0.1"));
    CHECK(proxy_no_proxy_match("::1", "::1"));
    CHECK(proxy_no_proxy_match("[::1]", "::1"));
    CHECK(proxy_no_proxy_match("fd00::/8", "fd12::5"));
    CHECK(!proxy_no_proxy_match("fd00::/8", "fe80::1"));
    CHECK(!proxy_no_proxy_match("127.0.0.1", "localhost")); /* no resolving */
    CHECK(proxy_no_proxy_match("localhost", "localhost"));
}

int main(void)
{
    test_select();
    test_no_proxy();
    return check_exit("test_proxy");
}
