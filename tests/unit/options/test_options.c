/* Unit test for options.c: the duration and count parsers, and options_parse
 * on argv arrays: defaults, every option in its long and short form, "--",
 * and each kind of command-line error (one line naming the option). */
#include "options.h"

#include "../check.h"
#include "targets.h"
#include "threshold.h"
#include "units.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEC INT64_C(1000000000)
#define URL "http://127.0.0.1:8080/"

/* An argv array with "volley" in front, alive until the end of the enclosing
 * block; getopt_long may permute its elements, so it is not const. */
#define ARGV(...) ((char *[]){"volley", __VA_ARGS__, NULL})

static int argc_of(char **argv)
{
    int n = 0;
    while (argv[n])
        n++;
    return n;
}

static void describe_argv(char **argv)
{
    char buf[400] = "";
    size_t n = 0;
    for (int i = 1; argv[i] && n < sizeof buf - 1; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s'%s'", i > 1 ? " " : "", argv[i]);
    check_ctx("argv: %s", buf);
}

/* ------------------------------------------------------------ durations */

static void duration_ok(const char *s, int64_t expected, int line)
{
    int64_t ns = -12345;
    check_ctx("units_parse_duration(\"%s\"), line %d", s, line);
    if (CHECK_INT(units_parse_duration(s, &ns), 0))
        CHECK_INT(ns, expected);
}

static void duration_bad(const char *s, int line)
{
    int64_t ns = -12345;
    check_ctx("units_parse_duration(\"%s\") must fail, line %d", s, line);
    CHECK_INT(units_parse_duration(s, &ns), -1);
}

static void test_duration(void)
{
    duration_ok("500ms", 500 * INT64_C(1000000), __LINE__);
    duration_ok("10s", 10 * SEC, __LINE__);
    duration_ok("2m", 120 * SEC, __LINE__);
    duration_ok("1h", 3600 * SEC, __LINE__);
    duration_ok("1.5s", 1500 * INT64_C(1000000), __LINE__);
    duration_ok("3", 3 * SEC, __LINE__);
    duration_ok("250us", 250000, __LINE__);
    duration_ok("0.5ms", 500000, __LINE__);
    duration_ok("1.5m", 90 * SEC, __LINE__);

    duration_bad("", __LINE__);
    duration_bad("abc", __LINE__);
    duration_bad("-1s", __LINE__);
    duration_bad("0", __LINE__);
    duration_bad("0s", __LINE__);
    duration_bad("0.0ms", __LINE__);
    duration_bad("10x", __LINE__);
    duration_bad("s", __LINE__);
    duration_bad("ms", __LINE__);
    duration_bad("1e400", __LINE__);
    duration_bad("1e30s", __LINE__); /* does not fit in int64 nanoseconds */
    duration_ok("10 s", 10 * SEC, __LINE__); /* a blank before the unit, as in "p99 < 50 ms" */
    duration_ok("500  ms", 500 * INT64_C(1000000), __LINE__);
    duration_bad("10 ", __LINE__);
    duration_bad("10 x", __LINE__);
    duration_bad("10 s s", __LINE__);
    duration_bad(" 10s", __LINE__);
    duration_bad("10s ", __LINE__);
    duration_bad("10ss", __LINE__);
    duration_bad("nan", __LINE__);
    duration_bad("inf", __LINE__);
    duration_bad("0.1ns", __LINE__);
    check_ctx(NULL);
}

/* --------------------------------------------------------------- counts */

static void count_ok(const char *s, uint64_t expected, int line)
{
    uint64_t n = 12345;
    check_ctx("units_parse_count(\"%s\"), line %d", s, line);
    if (CHECK_INT(units_parse_count(s, &n), 0))
        CHECK_UINT(n, expected);
}

static void count_bad(const char *s, int line)
{
    uint64_t n = 12345;
    check_ctx("units_parse_count(\"%s\") must fail, line %d", s, line);
    CHECK_INT(units_parse_count(s, &n), -1);
}

static void test_count(void)
{
    count_ok("100", 100, __LINE__);
    count_ok("10k", 10000, __LINE__);
    count_ok("2M", 2000000, __LINE__);
    count_ok("1G", 1000000000, __LINE__);
    count_ok("0", 0, __LINE__);
    count_ok("18446744073709551615", UINT64_MAX, __LINE__);
    count_ok("18446744073709551k", UINT64_C(18446744073709551000), __LINE__);

    count_bad("", __LINE__);
    count_bad("-5", __LINE__);
    count_bad("+5", __LINE__);
    count_bad(" 5", __LINE__);
    count_bad("5 ", __LINE__);
    count_bad("1.5", __LINE__);
    count_bad("10q", __LINE__);
    count_bad("10kk", __LINE__);
    count_bad("k", __LINE__);
    count_bad("99999999999999999999", __LINE__);
    count_bad("18446744073709551616", __LINE__);
    count_bad("18446744073709552k", __LINE__); /* overflows only after scaling */
    count_bad("18446744073710G", __LINE__);
    check_ctx(NULL);
}

/* -------------------------------------------------------- options_parse */

static enum options_result parse(struct options *o, char **argv, char *err, size_t errlen)
{
    describe_argv(argv);
    err[0] = '\0';
    return options_parse(o, argc_of(argv), argv, err, errlen);
}

/* Parses argv, which must succeed; the caller checks *o and frees it. */
static bool parse_ok(struct options *o, char **argv, int line)
{
    char err[512];
    enum options_result r = parse(o, argv, err, sizeof err);
    if (r != OPTIONS_RUN) {
        check_where(__FILE__, line, "options_parse() == OPTIONS_RUN");
        fprintf(stderr, "    actual: %d, err: %s\n", (int)r, err);
        options_free(o);
        return false;
    }
    check_count++;
    return true;
}

/* Parses argv, which must fail with one line containing each needle. */
static void parse_error(char **argv, const char *needle1, const char *needle2, int line)
{
    struct options o;
    char err[512];
    enum options_result r = parse(&o, argv, err, sizeof err);
    char ctx[sizeof check_context + 32];
    snprintf(ctx, sizeof ctx, "line %d, %s", line, check_context);
    check_ctx("%s", ctx);
    CHECK_INT(r, OPTIONS_ERROR);
    CHECK(err[0] != '\0');
    CHECK_CONTAINS(err, needle1);
    if (needle2)
        CHECK_CONTAINS(err, needle2);
    /* One printable line: user input in it is escaped. */
    bool printable = true;
    for (const char *p = err; *p; p++)
        printable &= (unsigned char)*p >= 0x20 && *p != 0x7f;
    if (!CHECK(printable))
        check_print_bytes("err", err, strlen(err));
    /* Safe after an error too (and needed for a leak-free run). */
    options_free(&o);
    check_ctx(NULL);
}

static void test_defaults(void)
{
    struct options o;
    if (parse_ok(&o, ARGV(URL), __LINE__)) {
        CHECK_STR(o.url, URL);
        CHECK_INT(o.connections, 10);
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        uint32_t want = cpus < 1 ? 1 : cpus > 10 ? 10 : (uint32_t)cpus;
        CHECK_INT(o.threads, want);
        CHECK_INT(o.duration_ns, 10 * SEC);
        CHECK_UINT(o.requests, 0);
        CHECK_STR(o.method, "GET");
        CHECK_INT(o.nheaders, 0);
        CHECK(o.body == NULL);
        CHECK_INT(o.body_len, 0);
        CHECK_INT(o.timeout_ns, 10 * SEC);
        CHECK(o.keepalive);
        CHECK(!o.http10);
        CHECK(o.json_path == NULL);
        CHECK(!o.quiet);
        CHECK_INT(o.verbose, 0);
        CHECK_INT(o.nscript_args, 0);
        CHECK(o.seed == OPTIONS_NO_SEED); /* main.c draws one */
        CHECK(!o.seed_given);
        options_free(&o);
    }
    /* The default thread count never exceeds the connections. */
    for (int c = 1; c <= 3; c++) {
        char cs[8];
        snprintf(cs, sizeof cs, "%d", c);
        if (parse_ok(&o, ARGV("-c", cs, URL), __LINE__)) {
            CHECK_INT(o.connections, c);
            CHECK(o.threads >= 1 && o.threads <= (uint32_t)c);
            options_free(&o);
        }
    }
    check_ctx(NULL);
}

static void test_each_option(void)
{
    struct options o;

    if (parse_ok(&o, ARGV("-c", "5", URL), __LINE__)) {
        CHECK_INT(o.connections, 5);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--connections", "7", URL), __LINE__)) {
        CHECK_INT(o.connections, 7);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--connections=1k", URL), __LINE__)) {
        CHECK_INT(o.connections, 1000);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-c9", URL), __LINE__)) {
        CHECK_INT(o.connections, 9);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-t", "2", URL), __LINE__)) {
        CHECK_INT(o.threads, 2);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--threads", "3", "-c", "3", URL), __LINE__)) {
        CHECK_INT(o.threads, 3);
        CHECK_INT(o.connections, 3);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-d", "500ms", URL), __LINE__)) {
        CHECK_INT(o.duration_ns, SEC / 2);
        CHECK_UINT(o.requests, 0);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--duration", "2m", URL), __LINE__)) {
        CHECK_INT(o.duration_ns, 120 * SEC);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-n", "10k", URL), __LINE__)) {
        CHECK_UINT(o.requests, 10000);
        CHECK_INT(o.duration_ns, 0); /* bounded by -n alone */
        options_free(&o);
    }
    /* -n below -c: one request is on one connection, so the run opens -n
     * of them and its reports count those (issue 21, item 16). */
    if (parse_ok(&o, ARGV("-n", "5", "-c", "10", URL), __LINE__)) {
        CHECK_UINT(o.connections, 5);
        CHECK_UINT(o.requests, 5);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-n", "10", "-c", "20", "--shard", "1/2", URL), __LINE__)) {
        CHECK_UINT(o.connections, 10); /* the run's: each shard holds its part, 5 of 5 requests */
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-n", "50", "-c", "10", URL), __LINE__)) {
        CHECK_UINT(o.connections, 10);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--requests", "7", URL), __LINE__)) {
        CHECK_UINT(o.requests, 7);
        CHECK_INT(o.duration_ns, 0);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-n", "5", "-d", "1s", URL), __LINE__)) {
        CHECK_UINT(o.requests, 5);
        CHECK_INT(o.duration_ns, SEC);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-H", "X-A: 1", "--header", "X-B: 2", URL, "-H", "x-a: 3", "--header=X-C:4"),
                 __LINE__)) {
        if (CHECK_INT(o.nheaders, 4)) {
            CHECK_STR(o.headers[0], "X-A: 1");
            CHECK_STR(o.headers[1], "X-B: 2");
            CHECK_STR(o.headers[2], "x-a: 3");
            CHECK_STR(o.headers[3], "X-C:4");
        }
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-m", "POST", URL), __LINE__)) {
        CHECK_STR(o.method, "POST");
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--method", "PUT", URL), __LINE__)) {
        CHECK_STR(o.method, "PUT");
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-b", "hi there", URL), __LINE__)) {
        CHECK_MEM(o.body, o.body_len, "hi there", (size_t)8);
        CHECK_STR(o.method, "POST"); /* a body without -m: POST, as curl's -d */
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-b", "x", "-m", "GET", URL), __LINE__)) {
        CHECK_STR(o.method, "GET");
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-m", "PATCH", "-b", "x", URL), __LINE__)) {
        CHECK_STR(o.method, "PATCH");
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--body", "{}", URL), __LINE__)) {
        CHECK_MEM(o.body, o.body_len, "{}", (size_t)2);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--timeout", "250ms", URL), __LINE__)) {
        CHECK_INT(o.timeout_ns, SEC / 4);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--no-keepalive", URL), __LINE__)) {
        CHECK(!o.keepalive);
        CHECK(!o.http10);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--http1.0", URL), __LINE__)) {
        CHECK(o.http10);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--json", "out.json", URL), __LINE__)) {
        CHECK_STR(o.json_path, "out.json");
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--json", "-", URL), __LINE__)) {
        CHECK_STR(o.json_path, "-");
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--html", "out.html", URL), __LINE__)) {
        CHECK_STR(o.html_path, "out.html");
        CHECK(o.json_path == NULL);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-q", URL), __LINE__)) {
        CHECK(o.quiet);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--quiet", URL), __LINE__)) {
        CHECK(o.quiet);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-v", URL), __LINE__)) {
        CHECK_INT(o.verbose, 1);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-vv", "--verbose", URL, "-v"), __LINE__)) {
        CHECK_INT(o.verbose, 4);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-qvc", "4", URL), __LINE__)) {
        CHECK(o.quiet);
        CHECK_INT(o.verbose, 1);
        CHECK_INT(o.connections, 4);
        options_free(&o);
    }
    /* Options after the URL are options too. */
    if (parse_ok(&o, ARGV(URL, "-c", "3", "-q"), __LINE__)) {
        CHECK_STR(o.url, URL);
        CHECK_INT(o.connections, 3);
        CHECK(o.quiet);
        options_free(&o);
    }
    check_ctx(NULL);
}

static void test_body_file(void)
{
    char path[] = "/tmp/volley_test_body_XXXXXX";
    int fd = mkstemp(path);
    if (!CHECK(fd >= 0))
        return;
    /* Larger than the 4 KiB first read, with NUL bytes: the body is bytes. */
    static char data[10000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (char)(i * 7);
    CHECK(write(fd, data, sizeof data) == (ssize_t)sizeof data);
    close(fd);

    struct options o;
    if (parse_ok(&o, ARGV("--body-file", path, URL), __LINE__)) {
        CHECK_MEM(o.body, o.body_len, data, sizeof data);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--body-file=" "/dev/null", URL), __LINE__)) {
        CHECK_INT(o.body_len, 0);
        options_free(&o);
    }
    parse_error(ARGV("-b", "x", "--body-file", path, URL), "-b", "--body-file", __LINE__);
    parse_error(ARGV("--body-file", path, "-b", "x", URL), "-b", "--body-file", __LINE__);
    parse_error(ARGV("--body-file", "/nonexistent/volley-body", URL), "--body-file", "/nonexistent/volley-body",
                __LINE__);
    unlink(path);
}

static void test_script_args(void)
{
    struct options o;
    if (parse_ok(&o, ARGV("-c", "2", URL, "--", "a", "-b", "--c"), __LINE__)) {
        CHECK_STR(o.url, URL);
        CHECK_INT(o.connections, 2);
        CHECK(o.body == NULL); /* -b after -- belongs to the script */
        if (CHECK_INT(o.nscript_args, 3)) {
            CHECK_STR(o.script_args[0], "a");
            CHECK_STR(o.script_args[1], "-b");
            CHECK_STR(o.script_args[2], "--c");
        }
        options_free(&o);
    }
    if (parse_ok(&o, ARGV(URL, "--"), __LINE__)) {
        CHECK_INT(o.nscript_args, 0);
        options_free(&o);
    }
    /* Only the first "--" splits; a later one is a script argument. */
    if (parse_ok(&o, ARGV(URL, "--", "x", "--", "y"), __LINE__)) {
        if (CHECK_INT(o.nscript_args, 3)) {
            CHECK_STR(o.script_args[1], "--");
            CHECK_STR(o.script_args[2], "y");
        }
        options_free(&o);
    }
    check_ctx(NULL);
}

/* wrk's command line: -T, -L, and a script's arguments right after the
 * URL (options among them still count, as with wrk's getopt). */
static void test_wrk_forms(void)
{
    struct options o;
    if (parse_ok(&o, ARGV("-T", "2", URL), __LINE__)) {
        CHECK_INT(o.timeout_ns, 2 * SEC); /* a bare number is seconds, as in wrk */
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-T", "500ms", "-L", URL), __LINE__)) {
        CHECK_INT(o.timeout_ns, SEC / 2);
        CHECK(o.latency);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--latency", URL), __LINE__)) {
        CHECK(o.latency);
        options_free(&o);
    }
    parse_error(ARGV("-T", "soon", URL), "-T", "soon", __LINE__);
    parse_error(ARGV("--timeout", "soon", URL), "--timeout", "soon", __LINE__);
    parse_error(ARGV("--html", "-", URL), "--html", "\"-\" is not a file name", __LINE__);
    parse_error(ARGV("--html", "", URL), "--html", "is not a file name", __LINE__);

    if (parse_ok(&o, ARGV("-s", "s.lua", URL, "a", "-c", "3", "b", "--", "c", "-d"), __LINE__)) {
        CHECK_STR(o.url, URL);
        CHECK_INT(o.connections, 3);
        CHECK_INT(o.url_args, 2);
        if (CHECK_INT(o.nscript_args, 4)) {
            CHECK_STR(o.script_args[0], "a");
            CHECK_STR(o.script_args[1], "b");
            CHECK_STR(o.script_args[2], "c");
            CHECK_STR(o.script_args[3], "-d");
        }
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-s", "s.lua", URL), __LINE__)) {
        CHECK_INT(o.nscript_args, 0);
        CHECK_INT(o.url_args, 0);
        options_free(&o);
    }
    /* `volley ab ...` is `-s ab -- ...`: no URL before "--". */
    if (parse_ok(&o, ARGV("-s", "ab", "--", "-n", "5", URL), __LINE__)) {
        CHECK(o.url == NULL);
        CHECK_INT(o.url_args, 0);
        if (CHECK_INT(o.nscript_args, 3))
            CHECK_STR(o.script_args[2], URL);
        options_free(&o);
    }
    /* Without a script, a word after the URL is still an error. */
    parse_error(ARGV(URL, "extra"), "extra", "unexpected argument", __LINE__);
    parse_error(ARGV("-c", "2", URL, "-t", "1", "x"), "x", NULL, __LINE__);
    check_ctx(NULL);
}

/* -H: control bytes, and the headers that frame the body. */
static void test_header_rules(void)
{
    struct options o;
    parse_error(ARGV("-H", "X-A: 1\x01", URL), "-H", "\\x01", __LINE__);
    parse_error(ARGV("-H", "X-A: a\x7f", URL), "-H", "control character", __LINE__);
    parse_error(ARGV("-H", "X-A: a\x0b" "b", URL), "-H", "\\x0b", __LINE__);
    parse_error(ARGV("-H", "X-A: a\rb", URL), "-H", "\\r", __LINE__);
    parse_error(ARGV("-H", "X\x01A: a", URL), "-H", "'Name: value'", __LINE__);
    if (parse_ok(&o, ARGV("-H", "X-A: a\tb", URL), __LINE__)) {
        CHECK_STR(o.headers[0], "X-A: a\tb");
        options_free(&o);
    }

    /* Content-Length must agree with the body. */
    parse_error(ARGV("-m", "POST", "-H", "Content-Length: 0", "-b", "GET /smuggled HTTP/1.1\r\n\r\n", URL),
                "-H Content-Length: 0 disagrees with the body's length (26 bytes from -b)", NULL, __LINE__);
    parse_error(ARGV("-b", "abc", "-H", "content-length:  4", URL), "-H Content-Length: 4 disagrees", "3 bytes",
                __LINE__);
    parse_error(ARGV("-b", "abc", "-H", "Content-Length: 3x", URL), "-H Content-Length: \"3x\" is not a length",
                NULL, __LINE__);
    parse_error(ARGV("-b", "abc", "-H", "Content-Length: 3, 3", URL), "is not a length", NULL, __LINE__);
    parse_error(ARGV("-H", "Content-Length:", URL), "is not a length", NULL, __LINE__);
    parse_error(ARGV("-H", "Content-Length: 99999999999999999999999", URL), "is not a length", NULL, __LINE__);
    if (parse_ok(&o, ARGV("-b", "abc", "-H", "Content-Length: 3 ", URL), __LINE__)) {
        CHECK_INT(o.body_len, 3);
        options_free(&o);
    }
    /* Without a body: only 0, unless a script builds the requests. */
    parse_error(ARGV("-H", "Content-Length: 5", URL), "-H Content-Length: 5 but there is no body", NULL, __LINE__);
    if (parse_ok(&o, ARGV("-m", "POST", "-H", "Content-Length: 0", URL), __LINE__))
        options_free(&o);
    if (parse_ok(&o, ARGV("-s", "post.lua", "-H", "Content-Length: 5", URL), __LINE__))
        options_free(&o);

    /* Transfer-Encoding: volley never sends a chunked body. */
    parse_error(ARGV("-b", "abc", "-H", "Transfer-Encoding: chunked", URL), "-H", "Transfer-Encoding: chunked",
                __LINE__);
    parse_error(ARGV("-H", "transfer-encoding: chunked", URL), "-H", "never chunked", __LINE__);
    check_ctx(NULL);
}

static void test_errors(void)
{
    /* Bad values name the option and the value; a count out of range
     * says what is allowed instead. */
    parse_error(ARGV("-c", "abc", URL), "-c", "abc", __LINE__);
    parse_error(ARGV("--connections", "0", URL), "-c: must be at least 1", NULL, __LINE__);
    parse_error(ARGV("-c", "-5", URL), "-c: must be at least 1", NULL, __LINE__);
    parse_error(ARGV("-t", "0", URL), "-t: must be at least 1", NULL, __LINE__);
    parse_error(ARGV("-t", "1025", URL), "-t: must be at most 1024", NULL, __LINE__);
    parse_error(ARGV("-d", "10x", URL), "-d", "10x", __LINE__);
    parse_error(ARGV("--duration", "0", URL), "-d", "0", __LINE__);
    parse_error(ARGV("-n", "1.5", URL), "-n", "1.5", __LINE__);
    parse_error(ARGV("--timeout", "soon", URL), "--timeout", "soon", __LINE__);
    parse_error(ARGV("-m", "GE T", URL), "-m", "GE T", __LINE__);
    parse_error(ARGV("-m", "", URL), "-m", NULL, __LINE__);
    parse_error(ARGV("-H", "NoColon", URL), "-H", "NoColon", __LINE__);
    parse_error(ARGV("-H", ": empty name", URL), "-H", NULL, __LINE__);

    /* -t must not exceed -c, in either order. */
    parse_error(ARGV("-t", "4", "-c", "2", URL), "-t", "-c", __LINE__);
    parse_error(ARGV("-c", "2", "--threads", "3", URL), "-t", "-c", __LINE__);

    /* The URL: missing, twice, or stranded behind "--". */
    parse_error(ARGV("-c", "2"), "URL", NULL, __LINE__);
    {
        char *argv[] = {"volley", NULL};
        parse_error(argv, "URL", NULL, __LINE__);
    }
    parse_error(ARGV("--", URL), "URL", NULL, __LINE__);
    parse_error(ARGV("http://a/", "http://b/"), "http://b/", NULL, __LINE__);

    /* Unknown options. */
    parse_error(ARGV("-x", URL), "-x", "unknown", __LINE__);
    parse_error(ARGV("--bogus", URL), "--bogus", "unknown", __LINE__);
    parse_error(ARGV("--bogus=1", URL), "--bogus", NULL, __LINE__);
    parse_error(ARGV("-qx", URL), "-x", "unknown", __LINE__);
    parse_error(ARGV("--quiet=yes", URL), "-q", NULL, __LINE__); /* -q or --quiet */
    parse_error(ARGV("--http1.0=yes", URL), "--http1.0", NULL, __LINE__); /* long only */

    /* Missing values. */
    parse_error(ARGV(URL, "-c"), "-c", NULL, __LINE__);
    parse_error(ARGV(URL, "--connections"), "-c", NULL, __LINE__); /* -c or --connections */
    parse_error(ARGV(URL, "-d"), "-d", NULL, __LINE__);
    parse_error(ARGV(URL, "--timeout"), "--timeout", NULL, __LINE__);
    parse_error(ARGV(URL, "-H"), "-H", NULL, __LINE__);
    parse_error(ARGV(URL, "--body-file"), "--body-file", NULL, __LINE__);
    parse_error(ARGV(URL, "--json"), "--json", NULL, __LINE__);
    parse_error(ARGV(URL, "-qc"), "-c", NULL, __LINE__);
    parse_error(ARGV(URL, "-c", "--", "script-arg"), "-c", NULL, __LINE__);

    /* The error is one line even when the value holds a line break. */
    parse_error(ARGV("-H", "X-A: 1\r\nX-B: 2", URL), "-H", NULL, __LINE__);
    parse_error(ARGV("-c", "5\n", URL), "-c", NULL, __LINE__);
}

/* An unknown option in the middle of a group ("-xq") must be named, and must
 * not leave getopt state behind that the next options_parse() picks up. */
static void test_error_in_group(void)
{
    parse_error(ARGV("-xq", URL), "-x", NULL, __LINE__);
    struct options o;
    if (parse_ok(&o, ARGV(URL), __LINE__)) {
        CHECK(!o.quiet);
        options_free(&o);
    }
    check_ctx(NULL);
}

/* Runs options_parse with stdout captured into out. */
static enum options_result parse_capturing(struct options *o, char **argv, char *out, size_t outlen)
{
    char err[512];
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    FILE *tmp = tmpfile();
    if (saved < 0 || !tmp) {
        CHECK(!"cannot redirect stdout");
        return OPTIONS_ERROR;
    }
    dup2(fileno(tmp), STDOUT_FILENO);
    enum options_result r = parse(o, argv, err, sizeof err);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    rewind(tmp);
    size_t n = fread(out, 1, outlen - 1, tmp);
    out[n] = '\0';
    fclose(tmp);
    return r;
}

static void test_exit(void)
{
    struct options o;
    char out[16384];
    /* --version prints nothing itself: main asks each library (cmd_help.c). */
    CHECK_INT(parse_capturing(&o, ARGV("--version"), out, sizeof out), OPTIONS_VERSION);
    CHECK_STR(out, "");
    options_free(&o);

    CHECK_INT(parse_capturing(&o, ARGV("--help"), out, sizeof out), OPTIONS_EXIT);
    CHECK_STR(out, options_usage);
    CHECK_CONTAINS(out, "Usage:");
    CHECK_CONTAINS(out, "volley ab");
    options_free(&o);
    CHECK_INT(parse_capturing(&o, ARGV("-h"), out, sizeof out), OPTIONS_EXIT);
    CHECK_STR(out, options_usage);
    options_free(&o);

    /* Also with a URL and other options around them. */
    CHECK_INT(parse_capturing(&o, ARGV("-c", "2", URL, "--version"), out, sizeof out), OPTIONS_VERSION);
    options_free(&o);
    CHECK_INT(parse_capturing(&o, ARGV(URL, "--help", "-q"), out, sizeof out), OPTIONS_EXIT);
    options_free(&o);
    check_ctx(NULL);
}

/* --threshold and --fail-if: repeatable, in order and each with its word,
 * parsed once -R is known (wherever it stands), each error one line naming
 * the expression and its option. */
static void test_fail_if(void)
{
    struct options o;
    char err[512];
    CHECK_INT(parse(&o, ARGV(URL), err, sizeof err), OPTIONS_RUN);
    CHECK(o.nthresholds == 0 && o.thresholds == NULL);
    options_free(&o);
    CHECK_INT(parse(&o, ARGV("--threshold", "p99 < 50ms", URL, "--fail-if=errors > 1%", "--threshold",
                             "service.max < 1s", "-R", "100", "--fail-if", "p50 > 1s"),
                    err, sizeof err),
              OPTIONS_RUN);
    if (CHECK_UINT(o.nthresholds, 4)) {
        CHECK_STR(o.threshold_exprs[1].expr, "errors > 1%");
        CHECK_STR(o.thresholds[0].expr, "p99 < 50ms");
        CHECK(o.thresholds[0].word == THRESHOLD_MUST_HOLD && o.thresholds[1].word == THRESHOLD_FAIL_IF &&
              o.thresholds[2].word == THRESHOLD_MUST_HOLD && o.thresholds[3].word == THRESHOLD_FAIL_IF);
        CHECK(o.thresholds[1].source == THRESHOLD_ERRORS && o.thresholds[1].percent);
        CHECK(o.thresholds[2].source == THRESHOLD_SERVICE);
    }
    options_free(&o);
    CHECK(o.thresholds == NULL && o.nthresholds == 0);
    parse_error(ARGV("--threshold", "p99 < 50", URL), "--threshold \"p99 < 50\": 50 needs a time unit", NULL,
                __LINE__);
    parse_error(ARGV("--fail-if", "p99 > 1s or nodata", URL), "--fail-if \"p99 > 1s or nodata\": \"or nodata\"",
                "goes with --threshold", __LINE__);
    parse_error(ARGV(URL, "--threshold"), "--threshold: needs a value", NULL, __LINE__);
    parse_error(ARGV("--fail-if", "p99 < 50", URL), "--fail-if \"p99 < 50\": 50 needs a time unit", NULL, __LINE__);
    parse_error(ARGV("--fail-if", "p99 < 1s", "--fail-if", "service.p99 < 1s", URL),
                "--fail-if \"service.p99 < 1s\": service.p99: service times are kept only with -R", NULL, __LINE__);
    parse_error(ARGV("--fail-if", URL), "missing URL", NULL, __LINE__);
    parse_error(ARGV(URL, "--fail-if"), "--fail-if: needs a value", NULL, __LINE__);
    parse_error(ARGV("--fail-if", "p99\n< 1", URL), "\"p99\\n< 1\"", "needs a time unit", __LINE__);
    parse_error(ARGV("--fail-if", "p\x01 < 1", URL), "unknown figure \"p\\x01\"", NULL, __LINE__);
}

/* --spin: a duration in 1us..10ms, only with -R (or with a script, whose
 * options() may give -R: main.c checks that after it). */
static void test_spin(void)
{
    struct options o;
    if (parse_ok(&o, ARGV(URL), __LINE__)) {
        CHECK_INT(o.spin_ns, 0);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-R", "1000", "--spin", "200us", URL), __LINE__)) {
        CHECK_INT(o.spin_ns, 200000);
        CHECK_UINT(o.rate, 1000);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--spin=1us", "-R", "1", URL), __LINE__)) {
        CHECK_INT(o.spin_ns, 1000);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--spin", "10ms", "-R", "1", URL), __LINE__)) {
        CHECK_INT(o.spin_ns, 10000000);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--spin", "50us", "-s", "x.lua", URL), __LINE__)) {
        CHECK_INT(o.spin_ns, 50000);
        options_free(&o);
    }
    parse_error(ARGV("--spin", "200us", URL), "--spin", "-R", __LINE__);
    parse_error(ARGV("--spin", "200us", "-n", "5", URL), "--spin", "only with -R", __LINE__);
    parse_error(ARGV("-R", "10", "--spin", "fast", URL), "--spin", "\"fast\" is not a duration", __LINE__);
    parse_error(ARGV("-R", "10", "--spin", "0", URL), "--spin", "\"0\"", __LINE__);
    parse_error(ARGV("-R", "10", "--spin", "-5us", URL), "--spin", "-5us", __LINE__);
    parse_error(ARGV("-R", "10", "--spin", "0.5us", URL), "--spin", "out of range (1us..10ms)", __LINE__);
    parse_error(ARGV("-R", "10", "--spin", "11ms", URL), "--spin", "out of range", __LINE__);
    parse_error(ARGV("-R", "10", "--spin", "1s", URL), "--spin", "\"1s\"", __LINE__);
    parse_error(ARGV("-R", "10", URL, "--spin"), "--spin", "needs a value", __LINE__);
}

/* --arrivals: fixed by default; only with -R (or a script's); a random
 * process over shards only with --seed. */
static void test_arrivals(void)
{
    struct options o;
    if (parse_ok(&o, ARGV("-R", "10", URL), __LINE__)) {
        CHECK_INT(o.arrivals.kind, ARRIVALS_FIXED);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-R", "10", "--arrivals", "gamma:0.5", URL), __LINE__)) {
        CHECK_INT(o.arrivals.kind, ARRIVALS_GAMMA);
        CHECK(o.arrivals.shape == 0.5);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("-R", "10", "--arrivals=poisson", "--shard", "1/2", "--seed", "3", URL), __LINE__)) {
        CHECK_INT(o.arrivals.kind, ARRIVALS_POISSON);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--arrivals", "poisson", "-s", "x.lua", URL), __LINE__))
        options_free(&o); /* its options() may give -R: main.c checks after it */
    parse_error(ARGV("--arrivals", "poisson", URL), "--arrivals", "only with -R", __LINE__);
    parse_error(ARGV("-R", "10", "--arrivals", "gama:2", URL), "--arrivals", "\"gama:2\" is not", __LINE__);
    parse_error(ARGV("-R", "10", "--arrivals", "gamma:0", URL), "--arrivals", "K must be", __LINE__);
    parse_error(ARGV("-R", "10", "--arrivals", "poisson", "--shard", "0/2", URL), "--arrivals", "--seed", __LINE__);
}

/* --targets: read at parse time, the URL becomes their origin; the order;
 * what it cannot be combined with. (The file's format: test_targets.c.) */
static void test_targets(void)
{
    char path[] = "/tmp/volley_test_targets_XXXXXX";
    int fd = mkstemp(path);
    static const char text[] = "GET http://127.0.0.1:8080/a\n\nPOST http://127.0.0.1:8080/b\n";
    CHECK(fd >= 0 && write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
    close(fd);
    struct options o;
    if (parse_ok(&o, ARGV("--targets", path), __LINE__)) {
        CHECK_STR(o.url, "http://127.0.0.1:8080");
        CHECK_UINT(o.ntargets, 2);
        CHECK(o.targets && o.targets->n == 2);
        CHECK_INT(o.targets_order, OPTIONS_ROUND_ROBIN);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--targets-order", "random", "--targets", path, URL), __LINE__)) {
        CHECK_STR(o.url, "http://127.0.0.1:8080");
        CHECK_INT(o.targets_order, OPTIONS_RANDOM);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--targets", path, "--targets-order", "round-robin", "-H", "Content-Length: 0"), __LINE__))
        options_free(&o);
    parse_error(ARGV("--targets", path, "http://127.0.0.1:8081/"), "--targets",
                ":1: http://127.0.0.1:8080/a: not the origin", __LINE__);
    parse_error(ARGV("--targets", path, "-s", "x.lua"), "--targets: cannot be combined with -s", "script", __LINE__);
    parse_error(ARGV("--targets-order", "random", URL), "--targets-order", "only with --targets", __LINE__);
    parse_error(ARGV("--targets", path, "--targets-order", "1"), "--targets-order",
                "\"1\" is not round-robin or random", __LINE__);
    parse_error(ARGV("--targets", "", URL), "--targets", "is not a file name", __LINE__);
    parse_error(ARGV("--targets", "/nonexistent/t.txt"), "--targets /nonexistent/t.txt", "No such file", __LINE__);
    parse_error(ARGV("--targets", path, URL, "extra"), "extra", "unexpected argument", __LINE__);
    unlink(path);
}

/* --seed: 0..2^53-1, exact. */
static void test_seed(void)
{
    struct options o;
    if (parse_ok(&o, ARGV("--seed", "0", URL), __LINE__)) {
        CHECK_UINT(o.seed, 0);
        CHECK(o.seed_given);
        options_free(&o);
    }
    if (parse_ok(&o, ARGV("--seed=9007199254740991", URL), __LINE__)) {
        CHECK_UINT(o.seed, UINT64_C(9007199254740991));
        options_free(&o);
    }
    parse_error(ARGV("--seed", "9007199254740992", URL), "--seed", "must be at most 9007199254740991 (2^53 - 1)",
                __LINE__);
    parse_error(ARGV("--seed", "-1", URL), "--seed", "must be at least 0", __LINE__);
    parse_error(ARGV("-n", "0", URL), "-n", "must be at least 1", __LINE__);
    parse_error(ARGV("-c", "2.5", URL), "-c", "\"2.5\" is not a whole number", __LINE__);
    parse_error(ARGV("--seed", "x", URL), "--seed", "\"x\" is not a number", __LINE__);
    parse_error(ARGV(URL, "--seed"), "--seed", "needs a value", __LINE__);
}

int main(void)
{
    test_duration();
    test_count();
    test_defaults();
    test_each_option();
    test_body_file();
    test_script_args();
    test_wrk_forms();
    test_header_rules();
    test_errors();
    test_spin();
    test_arrivals();
    test_seed();
    test_exit();
    test_fail_if();
    test_targets();
    /* Last: if it fails, getopt state may be left behind for later parses. */
    test_error_in_group();
    return check_exit("test_options");
}
