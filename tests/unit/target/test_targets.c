/* Unit test for targets.c, the --targets parser: the exact bytes each
 * target is encoded to (methods, headers merged with -H, bodies from
 * @path and -b, URL-only lines, comments, blank lines, CRLF), each error
 * with its line number, the limits, and hostile input (long lines, NUL
 * bytes, lone CRs, every prefix of a good file, random bytes), and each
 * target's name ("METHOD path", shared by equal ones, "(other targets)"
 * past NAMES_MAX - 1 names). */
#include "targets.h"

#include "../check.h"
#include "names.h"
#include "../rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define O "http://127.0.0.1:8080"

static char dir[] = "/tmp/volley-test-targets.XXXXXX";
static char body_path[256], empty_path[256];

/* The command line's defaults: GET, no -H, no body, HTTP/1.1 keep-alive. */
static struct http_request_spec dflt(void)
{
    return (struct http_request_spec){.method = "GET", .keepalive = true};
}

/* Parses text (NUL-terminated) as "t.txt"; the result in *tg. */
static int parse(struct targets *tg, const char *text, const char *url, const struct http_request_spec *d,
                 char *err, size_t errlen)
{
    return targets_parse(tg, "t.txt", text, strlen(text), url, d, err, errlen);
}

static void check_req(const struct targets *tg, uint32_t i, const char *expected, int line)
{
    check_ctx("target %u (line %d)", i, line);
    if (check_true(i < tg->n, "index in range", __FILE__, line))
        check_mem(tg->reqs[i].bytes, tg->reqs[i].len, expected, strlen(expected), "encoded request", __FILE__, line);
    check_ctx(NULL);
}

/* text must fail with err equal to expected. */
static void check_error(const char *text, const char *url, const struct http_request_spec *d, const char *expected,
                        int line)
{
    struct targets tg;
    char err[512] = "";
    check_ctx("input line %d", line);
    int rc = parse(&tg, text, url, d, err, sizeof err);
    check_int(rc, -1, "fails", __FILE__, line);
    check_str(err, expected, "the message", __FILE__, line);
    check_int(tg.n, 0, "nothing kept", __FILE__, line);
    check_ctx(NULL);
    if (rc == 0)
        targets_free(&tg);
}

static void test_vegeta_format(void)
{
    struct http_request_spec d = dflt();
    struct targets tg;
    char err[512] = "", text[1024];
    snprintf(text, sizeof text,
             "# three targets\n"
             "GET " O "/a\n"
             "\n"
             "POST " O "/b?q=1\n"
             "Content-Type: application/json\n"
             "@%s\n"
             "\n"
             "PUT " O "/c\n"
             "X-Kind: put\n"
             "X-Two:  spaced  \n",
             body_path);
    CHECK_INT(parse(&tg, text, NULL, &d, err, sizeof err), 0);
    CHECK_STR(err, "");
    CHECK_UINT(tg.n, 3);
    CHECK_STR(tg.origin, O);
    check_req(&tg, 0, "GET /a HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", __LINE__);
    check_req(&tg, 1,
              "POST /b?q=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\n"
              "Content-Length: 7\r\n\r\n{\"a\":1}",
              __LINE__);
    check_req(&tg, 2, "PUT /c HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-Kind: put\r\nX-Two:  spaced\r\n\r\n", __LINE__);
    targets_free(&tg);

    /* No blank lines: each request line begins a target (after a body too);
     * CRLF line ends, blanks around lines, comments among the headers. */
    snprintf(text, sizeof text,
             "  GET " O "/a \r\n"
             "# a comment\r\n"
             "\tX-A: 1\r\n"
             "DELETE\t" O "/b\r\n"
             "@ %s\r\n"
             "HEAD " O "/c\r\n",
             empty_path);
    CHECK_INT(parse(&tg, text, NULL, &d, err, sizeof err), 0);
    CHECK_UINT(tg.n, 3);
    check_req(&tg, 0, "GET /a HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-A: 1\r\n\r\n", __LINE__);
    check_req(&tg, 1, "DELETE /b HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", __LINE__);
    check_req(&tg, 2, "HEAD /c HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", __LINE__);
    targets_free(&tg);

    /* A header whose value is a URL stays a header. */
    CHECK_INT(parse(&tg, "GET " O "/\nReferer: " O "/from\nOrigin:" O "\n", NULL, &d, err, sizeof err), 0);
    CHECK_UINT(tg.n, 1);
    check_req(&tg, 0, "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nReferer: " O "/from\r\nOrigin:" O "\r\n\r\n",
              __LINE__);
    targets_free(&tg);
}

static void test_url_lines(void)
{
    struct http_request_spec d = dflt();
    struct targets tg;
    char err[512] = "";
    /* One URL a line: GET, or -m; the file need not end with a newline. */
    CHECK_INT(parse(&tg, O "/a\n" O "/b?x=1\n\n" O, NULL, &d, err, sizeof err), 0);
    CHECK_UINT(tg.n, 3);
    check_req(&tg, 0, "GET /a HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", __LINE__);
    check_req(&tg, 1, "GET /b?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", __LINE__);
    check_req(&tg, 2, "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", __LINE__);
    targets_free(&tg);
    d.method = "HEAD";
    CHECK_INT(parse(&tg, O "/a\nPOST " O "/b\n", NULL, &d, err, sizeof err), 0);
    check_req(&tg, 0, "HEAD /a HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", __LINE__);
    check_req(&tg, 1, "POST /b HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", __LINE__);
    targets_free(&tg);
    /* The origin is the first target's: the scheme's own port unsaid; a
     * host in another case and the port written out are the same origin. */
    d = dflt();
    CHECK_INT(parse(&tg, "http://LocalHost/a\nhttp://localhost:80/b\n", NULL, &d, err, sizeof err), 0);
    CHECK_STR(tg.origin, "http://LocalHost");
    check_req(&tg, 1, "GET /b HTTP/1.1\r\nHost: localhost\r\n\r\n", __LINE__);
    targets_free(&tg);
    CHECK_INT(parse(&tg, "https://[::1]:8443/\n", NULL, &d, err, sizeof err), 0);
    CHECK_STR(tg.origin, "https://[::1]:8443");
    targets_free(&tg);
}

static void test_defaults(void)
{
    struct http_request_spec d = dflt();
    struct targets tg;
    char err[512] = "", text[1024];
    const char *hs[] = {"X-A: from -H", "Host: example", "x-b: from -H"};
    d.headers = hs;
    d.nheaders = 3;
    d.body = "default";
    d.body_len = 7;
    d.http10 = true;
    d.keepalive = false;
    /* -H on every target unless it has its own (any case); -b unless @path. */
    snprintf(text, sizeof text, "POST " O "/a\nX-B: own\n\nPUT " O "/b\nhost: other\n@%s\n", body_path);
    CHECK_INT(parse(&tg, text, NULL, &d, err, sizeof err), 0);
    check_req(&tg, 0,
              "POST /a HTTP/1.0\r\nX-A: from -H\r\nHost: example\r\nX-B: own\r\nContent-Length: 7\r\n\r\ndefault",
              __LINE__);
    check_req(&tg, 1,
              "PUT /b HTTP/1.0\r\nX-A: from -H\r\nx-b: from -H\r\nhost: other\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
              __LINE__);
    targets_free(&tg);
    /* Content-Length must agree with each target's body. */
    d = dflt();
    const char *cl[] = {"Content-Length: 7"};
    d.headers = cl;
    d.nheaders = 1;
    snprintf(text, sizeof text, "POST " O "/a\n@%s\n\nGET " O "/b\n", body_path);
    check_error(text, NULL, &d, "--targets t.txt:4: Content-Length: 7 but the target has no body; only 0 is allowed",
                __LINE__);
    d = dflt();
    snprintf(text, sizeof text, "POST " O "/a\nContent-Length: 3\n@%s\n", body_path);
    char want[800];
    snprintf(want, sizeof want,
             "--targets t.txt:1: Content-Length: 3 disagrees with the body's length (7 bytes from @%s)", body_path);
    check_error(text, NULL, &d, want, __LINE__);
    check_error("GET " O "/a\nTransfer-Encoding: chunked\n", NULL, &d,
                "--targets t.txt:1: \"Transfer-Encoding: chunked\": volley sends a body with Content-Length, never "
                "chunked",
                __LINE__);
    check_error("GET " O "/a\nContent-Length: x\n", NULL, &d,
                "--targets t.txt:1: Content-Length: \"x\" is not a length", __LINE__);
    /* The URL given beside the file: every target must have its origin. */
    CHECK_INT(parse(&tg, "GET " O "/a\n", O "/ignored", &d, err, sizeof err), 0);
    CHECK_STR(tg.origin, O);
    targets_free(&tg);
    check_error("\nGET http://127.0.0.1:8081/a\n", O "/", &d,
                "--targets t.txt:2: http://127.0.0.1:8081/a: not the origin of the URL given (" O
                "); one origin per run",
                __LINE__);
    check_error("GET " O "/a\n", "ftp://x/", &d, "ftp://x/: unsupported scheme (only http:// and https://)",
                __LINE__);
}

static void test_errors(void)
{
    struct http_request_spec d = dflt();
    char text[1024];
    check_error("GET " O "/a\n\nnonsense here\n", NULL, &d,
                "--targets t.txt:3: expected \"METHOD URL\" or a URL, found \"nonsense here\"", __LINE__);
    check_error("X-A: 1\nGET " O "/\n", NULL, &d,
                "--targets t.txt:1: expected \"METHOD URL\" or a URL, found \"X-A: 1\"", __LINE__);
    check_error("GET " O "/a\nGET /relative\n", NULL, &d,
                "--targets t.txt:2: expected a header ('Name: value'), an @path body line or \"METHOD URL\", found "
                "\"GET /relative\"",
                __LINE__);
    check_error("GET " O "/a\nX Y: 1\n", NULL, &d,
                "--targets t.txt:2: expected a header ('Name: value'), an @path body line or \"METHOD URL\", found "
                "\"X Y: 1\"",
                __LINE__);
    check_error("# c\nGET " O "/\n\nPOST " O "/\n\nGET http://other:81/x\n", NULL, &d,
                "--targets t.txt:6: http://other:81/x: a second origin (the first, line 2: " O "); one origin per run",
                __LINE__);
    check_error(O "/\nhttps://127.0.0.1:8080/\n", NULL, &d,
                "--targets t.txt:2: https://127.0.0.1:8080/: a second origin (the first, line 1: " O
                "); one origin per run",
                __LINE__);
    check_error("G@T " O "/\n", NULL, &d, "--targets t.txt:1: \"G@T\" is not a method name", __LINE__);
    check_error("GET ftp://x/\n", NULL, &d,
                "--targets t.txt:1: ftp://x/: unsupported scheme (only http:// and https://)", __LINE__);
    check_error("GET " O "/a b\n", NULL, &d,
                "--targets t.txt:1: " O "/a b: spaces or control characters in the path", __LINE__);
    check_error("POST " O "/\n@/nonexistent/body.json\n", NULL, &d,
                "--targets t.txt:2: @/nonexistent/body.json: No such file or directory", __LINE__);
    check_error("POST " O "/\n@\n", NULL, &d, "--targets t.txt:2: \"@\" names no body file (@path)", __LINE__);
    snprintf(text, sizeof text, "POST " O "/\n@%s\nX-A: 1\n", body_path);
    check_error(text, NULL, &d,
                "--targets t.txt:3: \"X-A: 1\": after the target's @path line, which ends it (a blank line or "
                "\"METHOD URL\" begins the next)",
                __LINE__);
    snprintf(text, sizeof text, "POST " O "/\n@%s\n@%s\n", body_path, body_path);
    char want[800];
    snprintf(want, sizeof want,
             "--targets t.txt:3: \"@%s\": after the target's @path line, which ends it (a blank line or "
             "\"METHOD URL\" begins the next)",
             body_path);
    check_error(text, NULL, &d, want, __LINE__);
    check_error("@x\n", NULL, &d, "--targets t.txt:1: expected \"METHOD URL\" or a URL, found \"@x\"", __LINE__);
    snprintf(text, sizeof text, "POST " O "/\n@%s\n", dir);
    snprintf(want, sizeof want, "--targets t.txt:2: @%s: Is a directory", dir);
    check_error(text, NULL, &d, want, __LINE__);
    check_error("", NULL, &d,
                "--targets t.txt: no targets (the file is empty, or holds only blank lines and comments)", __LINE__);
    check_error("# only\n\n  \n# comments\n", NULL, &d,
                "--targets t.txt: no targets (the file is empty, or holds only blank lines and comments)", __LINE__);
}

/* Lines that could hide something: NUL bytes, lone CRs, other controls,
 * a line past the limit (and one at it). */
static void test_hostile(void)
{
    struct http_request_spec d = dflt();
    struct targets tg;
    char err[512];
    static const char nul[] = "GET " O "/a\nX-A: 1\0\nGET " O "/b\n";
    CHECK_INT(targets_parse(&tg, "t.txt", nul, sizeof nul - 1, NULL, &d, err, sizeof err), -1);
    CHECK_STR(err, "--targets t.txt:2: a NUL byte in the line");
    check_error("GET " O "/a\nX-A: 1\rGET " O "/b\n", NULL, &d,
                "--targets t.txt:2: \"X-A: 1\\rGET " O "/b\" contains a control character (only TAB is allowed)",
                __LINE__);
    check_error("GET " O "/a\r\r\n", NULL, &d,
                "--targets t.txt:1: \"GET " O "/a\\r\" contains a control character (only TAB is allowed)",
                __LINE__);
    check_error("# \x1b[2J\n", NULL, &d,
                "--targets t.txt:1: \"# \\x1b[2J\" contains a control character (only TAB is allowed)", __LINE__);
    /* A line of exactly TARGETS_LINE_MAX bytes is taken; one more is not. */
    size_t max = TARGETS_LINE_MAX;
    char *big = malloc(max + 64);
    int k = snprintf(big, max + 64, "GET " O "/");
    memset(big + k, 'a', max - (size_t)k);
    big[max] = '\n';
    CHECK_INT(targets_parse(&tg, "t.txt", big, max + 1, NULL, &d, err, sizeof err), 0);
    CHECK_UINT(tg.n, 1);
    CHECK_UINT(tg.reqs[0].len, max + strlen(" HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n") - strlen(O));
    targets_free(&tg);
    memmove(big + k + 1, big + k, max - (size_t)k + 1);
    big[k] = 'a';
    CHECK_INT(targets_parse(&tg, "t.txt", big, max + 2, NULL, &d, err, sizeof err), -1);
    CHECK_STR(err, "--targets t.txt:1: a line longer than 65536 bytes");
    free(big);
}

/* Every prefix of a good file, and random lines made of the format's
 * pieces and stray bytes: each parses or fails with one line naming the
 * file, never anything else (ASan and UBSan watch the rest). */
static void test_prefixes_and_noise(void)
{
    struct http_request_spec d = dflt();
    const char *hs[] = {"X-Default: 1"};
    d.headers = hs;
    d.nheaders = 1;
    struct targets tg;
    char err[512], text[1024];
    int n = snprintf(text, sizeof text,
                     "# c\r\nGET " O "/a\r\nX-A: 1\r\n\r\nPOST " O "/b\nContent-Length: 7\n@%s\n\n" O "/c\n",
                     body_path);
    for (int k = 0; k <= n; k++) {
        check_ctx("prefix of %d bytes", k);
        err[0] = '\0';
        int rc = targets_parse(&tg, "t.txt", text, (size_t)k, NULL, &d, err, sizeof err);
        if (rc == 0) {
            CHECK(tg.n >= 1 && tg.n <= 3);
            targets_free(&tg);
        } else {
            CHECK(strncmp(err, "--targets t.txt", 15) == 0);
        }
    }
    static const char *const pieces[] = {"GET ", "POST\t", O, "/p", "http://x:1/", "\n", "\r\n", "\r", ": ",
                                         "X-A", "@", body_path, "#", " ", "\t", "", "\xff", "\x01", "https://"};
    size_t np = sizeof pieces / sizeof pieces[0];
    char buf[2048];
    for (int round = 0; round < 3000; round++) {
        size_t len = 0;
        int parts = 1 + (int)(rng_next() % 40);
        for (int i = 0; i < parts; i++) {
            const char *p = pieces[rng_next() % np];
            size_t pl = strlen(p);
            if (rng_next() % 16 == 0)
                buf[len++] = (char)(rng_next() & 0xff); /* any byte, NUL too */
            else if (len + pl < sizeof buf)
                memcpy(buf + len, p, pl), len += pl;
        }
        check_ctx("noise round %d", round);
        err[0] = '\0';
        int rc = targets_parse(&tg, "t.txt", buf, len, NULL, &d, err, sizeof err);
        if (rc == 0) {
            for (uint32_t i = 0; i < tg.n; i++)
                CHECK(tg.reqs[i].len > 4 && memmem(tg.reqs[i].bytes, tg.reqs[i].len, "\r\n\r\n", 4));
            targets_free(&tg);
        } else {
            CHECK(strncmp(err, "--targets t.txt", 15) == 0 && !strchr(err, '\n') && !strchr(err, '\r'));
        }
    }
    check_ctx(NULL);
}

/* More than TARGETS_MAX targets: the one after the limit is the error. */
static void test_count_limit(void)
{
    struct http_request_spec d = dflt();
    struct targets tg;
    char err[512];
    static const char line[] = "http://h/\n";
    size_t ll = sizeof line - 1, n = (size_t)TARGETS_MAX + 1;
    char *text = malloc(n * ll);
    for (size_t i = 0; i < n; i++)
        memcpy(text + i * ll, line, ll);
    CHECK_INT(targets_parse(&tg, "t.txt", text, (n - 1) * ll, NULL, &d, err, sizeof err), 0);
    CHECK_UINT(tg.n, TARGETS_MAX);
    targets_free(&tg);
    CHECK_INT(targets_parse(&tg, "t.txt", text, n * ll, NULL, &d, err, sizeof err), -1);
    CHECK_STR(err, "--targets t.txt:1000001: more than 1000000 targets");
    free(text);
}

/* Each target's name is its method and path (with the query), in the
 * order of first use; equal ones share it; a URL alone takes -m's method. */
static void test_names(void)
{
    struct http_request_spec d = dflt();
    d.method = "HEAD";
    struct targets tg;
    char err[512];
    CHECK_INT(parse(&tg, "GET " O "/a\nPOST " O "/a\n\n" O "/b?q=1\nGET " O "/a\nget " O "/a\n", NULL, &d, err,
                    sizeof err), 0);
    CHECK_UINT(tg.nnames, 4);
    CHECK_STR(tg.names[0], "GET /a");
    CHECK_STR(tg.names[1], "POST /a");
    CHECK_STR(tg.names[2], "HEAD /b?q=1");
    CHECK_STR(tg.names[3], "get /a");
    uint32_t want[] = {0, 1, 2, 0, 3};
    CHECK_UINT(tg.n, 5);
    for (uint32_t i = 0; i < 5 && i < tg.n; i++)
        CHECK_UINT(tg.name[i], want[i]);
    targets_free(&tg);

    /* Past NAMES_MAX - 1 distinct names, one more for all the rest; a name
     * already made keeps its own. */
    size_t n = NAMES_MAX + 50, len = 0;
    char *text = malloc(n * 40);
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "%s/p/%zu\n", O, i < NAMES_MAX + 40 ? i : 7);
    CHECK_INT(targets_parse(&tg, "t.txt", text, len, NULL, &d, err, sizeof err), 0);
    CHECK_UINT(tg.nnames, NAMES_MAX);
    CHECK_STR(tg.names[NAMES_MAX - 2], "HEAD /p/998");
    CHECK_STR(tg.names[NAMES_MAX - 1], TARGETS_OTHER);
    CHECK_UINT(tg.name[NAMES_MAX - 1], NAMES_MAX - 1);
    CHECK_UINT(tg.name[NAMES_MAX + 39], NAMES_MAX - 1);
    CHECK_UINT(tg.name[NAMES_MAX + 45], 7);
    targets_free(&tg);
    free(text);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(body_path, sizeof body_path, "%s/body.json", dir);
    snprintf(empty_path, sizeof empty_path, "%s/empty", dir);
    FILE *f = fopen(body_path, "w");
    fputs("{\"a\":1}", f);
    fclose(f);
    fclose(fopen(empty_path, "w"));
    test_vegeta_format();
    test_url_lines();
    test_defaults();
    test_errors();
    test_hostile();
    test_prefixes_and_noise();
    test_count_limit();
    test_names();
    unlink(body_path);
    unlink(empty_path);
    rmdir(dir);
    return check_exit("test_targets");
}
