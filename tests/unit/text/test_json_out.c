/* Unit test for json_out.c and utf8.c: strings escaped as JSON requires,
 * each byte outside well-formed UTF-8 (overlongs, surrogates, above
 * U+10FFFF, truncated, stray continuations) as \ufffd, well-formed text
 * kept; non-finite numbers as null. Also checks that the strict validator
 * the fuzz target relies on (tests/fuzz/json_check.h) rejects what the
 * report used to write. */
#include "json_out.h"
#include "utf8.h"

#include "../check.h"
#include "../../fuzz/json_check.h"

#include <math.h>
#include <stdlib.h>

/* json_out_strn(s[0..n)) into a string the caller frees. */
static char *str_n(const char *s, size_t n)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    json_out_strn(f, s, n);
    fclose(f);
    CHECK(json_check(out, len));
    return out;
}

static void expect_str(const char *in, size_t n, const char *want)
{
    char *out = str_n(in, n);
    check_ctx("input of %zu bytes", n);
    CHECK_STR(out, want);
    check_ctx(NULL);
    free(out);
}

#define STR(lit, want) expect_str(lit, sizeof lit - 1, want)

static void expect_num(double v, int decimals, const char *want)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    json_out_num(f, v, decimals);
    fclose(f);
    check_ctx("%g with %d", v, decimals);
    CHECK_STR(out, want);
    CHECK(json_check(out, len));
    check_ctx(NULL);
    free(out);
}

static void test_escapes(void)
{
    STR("", "\"\"");
    STR("plain text", "\"plain text\"");
    STR("q\"b\\s/", "\"q\\\"b\\\\s/\"");
    STR("\x1b[31m\r\n\t\x7f", "\"\\u001b[31m\\u000d\\u000a\\u0009\\u007f\"");
    STR("a\0b", "\"a\\u0000b\""); /* json_out_strn takes embedded NULs */
}

static void test_utf8(void)
{
    /* Well-formed: 2, 3 and 4 bytes, the edges of each length, U+FFFF,
     * U+10FFFF, C1 U+0085, U+E000 just past the surrogates. */
    STR("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
    STR("\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\xc2\x85\xee\x80\x80",
        "\"\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\xc2\x85\xee\x80\x80\"");
    /* The reason: each invalid byte one U+FFFD. */
    STR("bad \xff\xfe", "\"bad \\ufffd\\ufffd\"");
    /* Overlongs: '/' in 2, 3 and 4 bytes; C0 and C1 never start a sequence. */
    STR("\xc0\xaf", "\"\\ufffd\\ufffd\"");
    STR("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");
    STR("\xf0\x80\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
    STR("\xc1\xbf", "\"\\ufffd\\ufffd\"");
    /* Surrogates U+D800 and U+DFFF. */
    STR("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
    STR("\xed\xbf\xbf", "\"\\ufffd\\ufffd\\ufffd\"");
    /* Above U+10FFFF: F4 90.., and F5..FF lead bytes. */
    STR("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
    STR("\xf5\x80", "\"\\ufffd\\ufffd\"");
    /* Truncated at the end and in the middle; a stray continuation. */
    STR("\xe2\x82", "\"\\ufffd\\ufffd\"");
    STR("\xe2\x82x", "\"\\ufffd\\ufffdx\"");
    STR("\x80x", "\"\\ufffdx\"");
    /* A NUL inside a sequence ends it. */
    expect_str("\xc3\0", 2, "\"\\ufffd\\u0000\"");
    /* The NUL-terminated form, through the same path. */
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    json_out_str(f, "x\xff\x1b");
    fclose(f);
    CHECK_STR(out, "\"x\\ufffd\\u001b\"");
    free(out);

    uint32_t cp = 0;
    CHECK_UINT(utf8_decode("\xf4\x8f\xbf\xbf", 4, &cp), 4);
    CHECK_UINT(cp, 0x10ffff);
    CHECK_UINT(utf8_decode("\xf4\x8f\xbf\xbf", 3, &cp), 0);
    CHECK_UINT(utf8_decode("", 0, &cp), 0);
}

static void test_numbers(void)
{
    expect_num(1.5, 3, "1.500");
    expect_num(0.3, 6, "0.300000");
    expect_num(750, JSON_OUT_G, "750");
    expect_num(1125899906842.624, JSON_OUT_G, "1125899906842.62");
    expect_num(1e16, JSON_OUT_G, "1e+16");
    expect_num(INFINITY, 3, "null");
    expect_num(-INFINITY, JSON_OUT_G, "null");
    expect_num(NAN, 3, "null");
    expect_num(-NAN, JSON_OUT_G, "null");
}

/* What the report wrote before json_out: the validator must say no. */
static void test_validator(void)
{
    static const char *const bad[] = {
        "{\"reason\": \"bad \xff\xfe\"}", "{\"n\": inf}", "{\"n\": -nan}", "[NaN]", "[Infinity]",
        "[\"\xc0\xaf\"]", "[\"\xed\xa0\x80\"]", "[\"\\ud800\"]", "[\"a\x1b\"]", "[01]", "[1.]", "[+1]",
        "{\"a\": 1,}", "[1] [2]", "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        check_ctx("%s", bad[i]);
        CHECK(!json_check(bad[i], strlen(bad[i])));
    }
    static const char *const good[] = {
        "{\"a\": [1, -0.5, 1e+16, 2E-3, true, false, null, \"\\ud83d\\ude00 \\u00e9\"]}", " 0 ",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        check_ctx("%s", good[i]);
        CHECK(json_check(good[i], strlen(good[i])));
    }
    check_ctx(NULL);
}

int main(void)
{
    test_escapes();
    test_utf8();
    test_numbers();
    test_validator();
    return check_exit("test_json_out");
}
