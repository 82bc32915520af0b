/* json_in: valid documents read back exactly; every kind of error gives its
 * one-line message with the place; the limits hold; the typed accessors
 * name the field. */
#include "json_in.h"

#include "../check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int parse(const char *text, struct json *v, char *err, size_t errlen)
{
    return json_in_parse(text, strlen(text), v, err, errlen);
}

static void valid(void)
{
    struct json v;
    char err[256];
    const char *doc = " {\"a\": [1, -2.5e3, 0, -0, 1E+2, 9007199254740993], \"s\": \"x\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\","
                      " \"t\": true, \"f\": false, \"n\": null, \"o\": {}, \"e\": [], \"u\": \"h\xc3\xa9\", \"a\": 7}\r\n";
    if (!CHECK(parse(doc, &v, err, sizeof err) == 0)) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK_INT(v.type, JSON_OBJECT);
    CHECK_INT(v.len, 9);
    const struct json *a = json_in_get(&v, "a"); /* the first of two */
    CHECK(a && a->type == JSON_ARRAY && a->len == 6);
    CHECK(json_in_at(a, 0)->integral && json_in_at(a, 0)->i == 1);
    CHECK(json_in_at(a, 1)->num == -2500 && !json_in_at(a, 1)->integral);
    CHECK(json_in_at(a, 3)->num == 0 && json_in_at(a, 3)->integral);
    CHECK(json_in_at(a, 4)->num == 100);
    CHECK(json_in_at(a, 5)->integral && json_in_at(a, 5)->i == INT64_C(9007199254740993)); /* exact past 2^53 */
    CHECK(json_in_at(a, 6) == NULL);
    const char *s;
    size_t len;
    CHECK(json_in_string(json_in_get(&v, "s"), "s", &s, &len, err, sizeof err) == 0);
    CHECK_MEM(s, len, "x\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80", 15);
    CHECK_STR(json_in_get(&v, "u")->s, "h\xc3\xa9");
    bool b;
    CHECK(json_in_bool(json_in_get(&v, "t"), "t", &b, err, sizeof err) == 0 && b);
    CHECK(json_in_bool(json_in_get(&v, "f"), "f", &b, err, sizeof err) == 0 && !b);
    CHECK(json_in_is_null(json_in_get(&v, "n")));
    CHECK(json_in_is_null(json_in_get(&v, "missing")));
    CHECK(json_in_get(&v, "o")->type == JSON_OBJECT && json_in_get(&v, "o")->len == 0);
    CHECK(json_in_get(json_in_get(&v, "s"), "x") == NULL); /* not an object */
    json_in_free(&v);

    /* a string holding U+0000 keeps its length */
    CHECK(parse("\"a\\u0000b\"", &v, err, sizeof err) == 0);
    CHECK_MEM(v.s, v.len, "a\0b", 3);
    json_in_free(&v);
    /* scalars at the top */
    CHECK(parse("42", &v, err, sizeof err) == 0 && v.i == 42);
    json_in_free(&v);
    CHECK(parse(" null ", &v, err, sizeof err) == 0 && v.type == JSON_NULL);
    json_in_free(&v);
    /* an integer past int64 is a number, not integral */
    CHECK(parse("123456789012345678901234", &v, err, sizeof err) == 0 && !v.integral && v.num > 1e23);
    json_in_free(&v);
}

/* Each bad document and the message it must give, in full. */
static void errors(void)
{
    static const struct {
        const char *text;
        const char *msg;
    } cases[] = {
        {"", "line 1, column 1 (byte 0): expected a value, found the end of the text"},
        {"   ", "line 1, column 4 (byte 3): expected a value, found the end of the text"},
        {"{\"a\": 1,}", "line 1, column 9 (byte 8): expected '\"' to start a member's name, found '}'"},
        {"{\"a\" 1}", "line 1, column 6 (byte 5): expected ':' after a member's name, found '1'"},
        {"{\"a\": 1\n \"b\": 2}", "line 2, column 2 (byte 9): expected ',' or '}' after an object member, found '\"'"},
        {"[1 2]", "line 1, column 4 (byte 3): expected ',' or ']' after an array element, found '2'"},
        {"[1,]", "line 1, column 4 (byte 3): expected a value (object, array, string, number, true, false or null), found ']'"},
        {"[1", "line 1, column 3 (byte 2): expected ',' or ']' after an array element, found the end of the text"},
        {"tru", "line 1, column 1 (byte 0): expected a value (object, array, string, number, true, false or null), found 't'"},
        {"nul", "line 1, column 1 (byte 0): expected a value (object, array, string, number, true, false or null), found 'n'"},
        {"01", "line 1, column 2 (byte 1): leading zero in a number (expected '.', 'e' or the number's end)"},
        {"1.", "line 1, column 3 (byte 2): expected a digit after the decimal point, found the end of the text"},
        {"1e+", "line 1, column 4 (byte 3): expected a digit in the exponent, found the end of the text"},
        {"-", "line 1, column 2 (byte 1): expected a digit, found the end of the text"},
        {"+1", "line 1, column 1 (byte 0): expected a value (object, array, string, number, true, false or null), found '+'"},
        {"1e999", "line 1, column 1 (byte 0): number 1e999 out of range"},
        {"NaN", "line 1, column 1 (byte 0): expected a value (object, array, string, number, true, false or null), found 'N'"},
        {"\"abc", "line 1, column 1 (byte 0): string not closed: expected '\"' before the end of the text"},
        {"\"a\tb\"", "line 1, column 3 (byte 2): control character 0x09 in a string (expected it escaped)"},
        {"\"\\x\"", "line 1, column 2 (byte 1): unknown escape \\x (expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)"},
        {"\"\\u12G4\"", "line 1, column 6 (byte 5): expected a hex digit in a \\u escape"},
        {"\"\\u12\"", "line 1, column 2 (byte 1): expected 4 hex digits after \\u"},
        {"\"\\udc00\"", "line 1, column 2 (byte 1): lone low surrogate \\udc00 (expected a high surrogate first)"},
        {"\"\\ud800x\"", "line 1, column 2 (byte 1): high surrogate \\ud800 not followed by a low surrogate escape"},
        {"\"\\ud800\\u0041\"", "line 1, column 2 (byte 1): high surrogate \\ud800 not followed by a low surrogate escape"},
        {"\"\xff\"", "line 1, column 2 (byte 1): byte 0xff in a string is not well-formed UTF-8"},
        {"\"\xc0\xaf\"", "line 1, column 2 (byte 1): byte 0xc0 in a string is not well-formed UTF-8"},
        {"\"\xed\xa0\x80\"", "line 1, column 2 (byte 1): byte 0xed in a string is not well-formed UTF-8"},
        {"{} x", "line 1, column 4 (byte 3): expected the end of the text after the value, found 'x'"},
        {"{}{}", "line 1, column 3 (byte 2): expected the end of the text after the value, found '{'"},
        {"\xef\xbb\xbf{}", "line 1, column 1 (byte 0): a UTF-8 byte-order mark (expected the JSON value)"},
        {"[\x01]", "line 1, column 2 (byte 1): expected a value (object, array, string, number, true, false or null), found byte 0x01"},
        {"\"\xc3\xa9\"x", "line 1, column 4 (byte 4): expected the end of the text after the value, found 'x'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_ctx("case %zu: %s", i, cases[i].text);
        struct json v;
        char err[256];
        CHECK(parse(cases[i].text, &v, err, sizeof err) == -1);
        CHECK_STR(err, cases[i].msg);
        CHECK(v.type == JSON_NULL && v.items == NULL && v.members == NULL && v.s == NULL);
    }
    check_ctx(NULL);

    /* A NUL byte in the text (not NUL-terminated input) */
    struct json v;
    char err[256];
    CHECK(json_in_parse("[1,\0]", 5, &v, err, sizeof err) == -1);
    CHECK_CONTAINS(err, "found byte 0x00");
    /* only len bytes are read */
    CHECK(json_in_parse("[1]xyz", 3, &v, err, sizeof err) == 0);
    json_in_free(&v);
    /* a small err buffer is cut, never overrun */
    char small[8];
    CHECK(parse("[", &v, small, sizeof small) == -1);
    CHECK_INT(strlen(small), 7);
}

static void limits(void)
{
    struct json v;
    char err[256];
    /* depth: 64 nested arrays parse, 65 do not */
    char deep[200];
    memset(deep, '[', 64);
    memset(deep + 64, ']', 64);
    deep[128] = '\0';
    CHECK(parse(deep, &v, err, sizeof err) == 0);
    json_in_free(&v);
    memset(deep, '[', 65);
    memset(deep + 65, ']', 65);
    deep[130] = '\0';
    CHECK(parse(deep, &v, err, sizeof err) == -1);
    CHECK_STR(err, "line 1, column 65 (byte 64): nested deeper than 64 arrays and objects");
    /* an unclosed deep nest is refused at the limit too, not read on */
    char *big = malloc(1 << 20);
    memset(big, '[', 1 << 20);
    CHECK(json_in_parse(big, 1 << 20, &v, err, sizeof err) == -1);
    CHECK_CONTAINS(err, "nested deeper than 64");
    /* the size limit: checked before anything is read */
    CHECK(json_in_parse(big, JSON_IN_MAX_BYTES + 1, &v, err, sizeof err) == -1);
    CHECK_STR(err, "268435457 bytes of JSON: more than the 256 MB volley reads");
    free(big);
    /* values: JSON_IN_MAX_VALUES of them parse, one more does not */
    size_t n = JSON_IN_MAX_VALUES - 1; /* elements, plus the array */
    char *arr = malloc(2 * n + 2);
    arr[0] = '[';
    for (size_t i = 0; i < n; i++) {
        arr[1 + 2 * i] = '0';
        arr[2 + 2 * i] = ',';
    }
    arr[2 * n] = ']';
    CHECK(json_in_parse(arr, 2 * n + 1, &v, err, sizeof err) == 0);
    CHECK_INT(v.len, n);
    json_in_free(&v);
    arr[2 * n] = ',';
    arr[2 * n + 1] = '0';
    char *arr2 = realloc(arr, 2 * n + 3);
    arr2[2 * n + 2] = ']';
    CHECK(json_in_parse(arr2, 2 * n + 3, &v, err, sizeof err) == -1);
    CHECK_CONTAINS(err, "more than 5000000 values in the document");
    free(arr2);
    /* a number's length */
    char num[JSON_IN_MAX_NUMBER + 2];
    memset(num, '1', sizeof num - 1);
    num[sizeof num - 1] = '\0';
    CHECK(parse(num, &v, err, sizeof err) == -1);
    CHECK_STR(err, "line 1, column 1 (byte 0): number of 401 characters (at most 400)");
    num[sizeof num - 2] = '\0';
    num[1] = '.'; /* 400 characters within range */
    CHECK(parse(num, &v, err, sizeof err) == 0 && v.type == JSON_NUMBER);
    json_in_free(&v);
}

static void accessors(void)
{
    struct json v;
    char err[256];
    CHECK(parse("{\"n\": 1.5, \"i\": 3, \"s\": \"x\", \"b\": true, \"z\": null, \"a\": [], \"o\": {}}", &v, err,
                sizeof err) == 0);
    double d;
    int64_t i;
    const char *s;
    bool b;
    CHECK(json_in_number(json_in_get(&v, "n"), "n", &d, err, sizeof err) == 0 && d == 1.5);
    CHECK(json_in_int(json_in_get(&v, "i"), "i", &i, err, sizeof err) == 0 && i == 3);
    CHECK(json_in_int(json_in_get(&v, "n"), "requests.completed", &i, err, sizeof err) == -1);
    CHECK_STR(err, "requests.completed: expected an integer, found 1.5");
    CHECK(json_in_number(json_in_get(&v, "s"), "requests.completed", &d, err, sizeof err) == -1);
    CHECK_STR(err, "requests.completed: expected a number, found a string");
    CHECK(json_in_number(json_in_get(&v, "x"), "duration", &d, err, sizeof err) == -1);
    CHECK_STR(err, "duration: missing (expected a number)");
    CHECK(json_in_string(json_in_get(&v, "z"), "target.url", &s, NULL, err, sizeof err) == -1);
    CHECK_STR(err, "target.url: expected a string, found null");
    CHECK(json_in_bool(json_in_get(&v, "a"), "interrupted", &b, err, sizeof err) == -1);
    CHECK_STR(err, "interrupted: expected true or false, found an array");
    CHECK(json_in_string(json_in_get(&v, "o"), "version", &s, NULL, err, sizeof err) == -1);
    CHECK_STR(err, "version: expected a string, found an object");
    CHECK(json_in_number(json_in_get(&v, "b"), "rate", &d, err, sizeof err) == -1);
    CHECK_STR(err, "rate: expected a number, found true");
    json_in_free(&v);
}

int main(void)
{
    valid();
    errors();
    limits();
    accessors();
    return check_exit("test_json_in");
}
