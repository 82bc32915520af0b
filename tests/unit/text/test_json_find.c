/* Unit test for json_find.c: json_valid accepts RFC 8259 texts and names
 * the first wrong byte of the others (each given whole and cut at every
 * length, which must never be read past); json_find gives the value at a
 * path, or none. */
#include "json_find.h"

#include "../check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* text must be accepted as a value of type want; every proper prefix of
 * it that is not a value itself must be refused, read within its length
 * (a copy on the heap, so ASan sees a read past it). */
static void valid(const char *text, int want)
{
    check_ctx("valid %s", text);
    size_t n = strlen(text), at = 99;
    CHECK_INT(json_valid(text, n, &at), want);
    for (size_t k = 0; k < n; k++) {
        char *cut = malloc(k ? k : 1);
        memcpy(cut, text, k);
        int t = json_valid(cut, k, &at);
        if (t == JSON_FIND_NONE)
            CHECK(at <= k);
        free(cut);
    }
    check_ctx(NULL);
}

static void invalid(const char *text, size_t want_at)
{
    check_ctx("invalid %s", text);
    size_t at = 99;
    char *copy = malloc(strlen(text) + 1);
    memcpy(copy, text, strlen(text));
    CHECK_INT(json_valid(copy, strlen(text), &at), JSON_FIND_NONE);
    CHECK_UINT(at, want_at);
    free(copy);
    check_ctx(NULL);
}

/* json_find's answer at path, and json_scan's in one pass: for path
 * alone, and among other paths (the same one again, the whole value, and
 * two that lead through the same members or nowhere). */
static void find(const char *text, const char *path, int want, const char *value)
{
    check_ctx("find %s in %s", path, text);
    size_t n = strlen(text), off = 0, len = 0;
    CHECK(json_valid(text, n, NULL) != JSON_FIND_NONE);
    int t = json_find(text, n, path, strlen(path), &off, &len);
    CHECK_INT(t, want);
    if (want != JSON_FIND_NONE)
        CHECK_MEM(text + off, len, value, strlen(value));
    char paths[256];
    size_t plen = (size_t)snprintf(paths, sizeof paths, "%s%c%s%c%c%s.0%cx.%s", path, 0, path, 0, 0, path, 0, path);
    int types[5];
    size_t spans[10];
    CHECK_INT(json_scan(text, n, paths, strlen(path) + 1, types, spans, NULL), json_valid(text, n, NULL));
    CHECK_INT(types[0], want);
    if (want != JSON_FIND_NONE)
        CHECK_MEM(text + spans[0], spans[1], value, strlen(value));
    CHECK_INT(json_scan(text, n, paths, plen, types, spans, NULL), json_valid(text, n, NULL));
    CHECK_INT(types[0], want);
    CHECK_INT(types[1], want);
    if (want != JSON_FIND_NONE)
        CHECK_MEM(text + spans[2], spans[3], value, strlen(value));
    CHECK_INT(types[2], json_valid(text, n, NULL));
    size_t o2, l2;
    char sub[128];
    snprintf(sub, sizeof sub, "%s.0", path);
    CHECK_INT(types[3], json_find(text, n, sub, strlen(sub), &o2, &l2));
    snprintf(sub, sizeof sub, "x.%s", path);
    CHECK_INT(types[4], json_find(text, n, sub, strlen(sub), &o2, &l2));
    check_ctx(NULL);
}

int main(void)
{
    valid("0", JSON_FIND_NUMBER);
    valid(" -12.5e+3 ", JSON_FIND_NUMBER);
    valid("\"a\\u00e9\\n\xc3\xa9\"", JSON_FIND_STRING);
    valid("true", JSON_FIND_TRUE);
    valid("null", JSON_FIND_NULL);
    valid("[]", JSON_FIND_ARRAY);
    valid("{}", JSON_FIND_OBJECT);
    valid("[1, [2, {\"a\": [3]}], {}, \"x\"]", JSON_FIND_ARRAY);
    valid("{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok \"},"
          "\"finish_reason\":null}],\"usage\":null}",
          JSON_FIND_OBJECT);

    invalid("", 0);
    invalid("{not json", 1);
    invalid("{\"a\" 1}", 5);
    invalid("{\"a\":1,}", 7);
    invalid("[1,]", 3);
    invalid("[1 2]", 3);
    invalid("01", 1);
    invalid("1.", 2);
    invalid("-", 1);
    invalid("tru", 0);
    invalid("\"\x01\"", 1);
    invalid("\"\\x\"", 1);
    invalid("\"\\u12g4\"", 1);
    invalid("\"\xc3\"", 1);
    invalid("\"\xed\xa0\x80\"", 1); /* a surrogate in UTF-8 */
    invalid("{} {}", 3);
    invalid("[1]]", 3);
    invalid("{\"a\":1]", 6);
    {
        /* Nesting: JSON_FIND_MAX_DEPTH is accepted, one more is not. */
        char deep[2 * JSON_FIND_MAX_DEPTH + 3];
        memset(deep, '[', JSON_FIND_MAX_DEPTH);
        memset(deep + JSON_FIND_MAX_DEPTH, ']', JSON_FIND_MAX_DEPTH);
        CHECK_INT(json_valid(deep, 2 * JSON_FIND_MAX_DEPTH, NULL), JSON_FIND_ARRAY);
        memset(deep, '[', JSON_FIND_MAX_DEPTH + 1);
        memset(deep + JSON_FIND_MAX_DEPTH + 1, ']', JSON_FIND_MAX_DEPTH + 1);
        size_t at = 0;
        CHECK_INT(json_valid(deep, 2 * JSON_FIND_MAX_DEPTH + 2, &at), JSON_FIND_NONE);
        CHECK_UINT(at, JSON_FIND_MAX_DEPTH);
        /* json_scan follows a path as deep as the text goes, and no
         * deeper than json_valid accepts. */
        char path[2 * JSON_FIND_MAX_DEPTH];
        for (int k = 0; k < JSON_FIND_MAX_DEPTH; k++) {
            path[2 * k] = '0';
            path[2 * k + 1] = k + 1 < JSON_FIND_MAX_DEPTH ? '.' : 0;
        }
        int types[1];
        size_t spans[2];
        CHECK_INT(json_scan(deep, 2 * JSON_FIND_MAX_DEPTH + 2, path, sizeof path, types, spans, &at), JSON_FIND_NONE);
        CHECK_INT(types[0], JSON_FIND_NONE);
        char seven[2 * JSON_FIND_MAX_DEPTH + 1]; /* [[[...[7]...]]] */
        memset(seven, '[', JSON_FIND_MAX_DEPTH);
        seven[JSON_FIND_MAX_DEPTH] = '7';
        memset(seven + JSON_FIND_MAX_DEPTH + 1, ']', JSON_FIND_MAX_DEPTH);
        CHECK_INT(json_scan(seven, sizeof seven, path, sizeof path, types, spans, NULL), JSON_FIND_ARRAY);
        CHECK_INT(types[0], JSON_FIND_NUMBER);
        CHECK_UINT(spans[0], JSON_FIND_MAX_DEPTH);
        CHECK_UINT(at, JSON_FIND_MAX_DEPTH);
    }

    const char *chunk = "{\"id\":\"c-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a \\\"b\\\" ,]}\"},"
                        "\"finish_reason\":null}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":12}}";
    find(chunk, "choices.0.delta.content", JSON_FIND_STRING, "\"a \\\"b\\\" ,]}\"");
    find(chunk, "choices.0.finish_reason", JSON_FIND_NULL, "null");
    find(chunk, "choices.0", JSON_FIND_OBJECT,
         "{\"index\":0,\"delta\":{\"content\":\"a \\\"b\\\" ,]}\"},\"finish_reason\":null}");
    find(chunk, "choices.1", JSON_FIND_NONE, "");
    find(chunk, "choices.x", JSON_FIND_NONE, "");
    find(chunk, "usage.completion_tokens", JSON_FIND_NUMBER, "12");
    find(chunk, "usage.prompt_tokens", JSON_FIND_NUMBER, "5");
    find(chunk, "error", JSON_FIND_NONE, "");
    find(chunk, "id.0", JSON_FIND_NONE, "");
    find(chunk, "", JSON_FIND_OBJECT, chunk);
    find(" [ 1 , [ 2 , 3 ] , true ] ", "1.1", JSON_FIND_NUMBER, "3");
    find(" [ 1 , [ 2 , 3 ] , true ] ", "2", JSON_FIND_TRUE, "true");
    find("[]", "0", JSON_FIND_NONE, "");
    find("{\"a\":1,\"a\":2}", "a", JSON_FIND_NUMBER, "1");
    find("{\"choices\":[]}", "choices.0", JSON_FIND_NONE, "");
    find("{\"e\":{\"\":[-1.5e3]}}", "e..0", JSON_FIND_NUMBER, "-1.5e3");
    /* The first of repeated names wins, even when only a later one has
     * the rest of the path; an index counts elements of any type. */
    find("{\"a\":{\"x\":1},\"a\":{\"b\":2}}", "a.b", JSON_FIND_NONE, "");
    find("{\"a\":[{},[0,{\"b\":[true]}],3]}", "a.1.1.b.0", JSON_FIND_TRUE, "true");
    find("{\"a\":[{},[0,{\"b\":[true]}],3]}", "a.01", JSON_FIND_ARRAY, "[0,{\"b\":[true]}]");
    find("{\"a\":[1,2]}", "a.", JSON_FIND_ARRAY, "[1,2]");
    find("{\"a\":[1,2]}", "a.-1", JSON_FIND_NONE, "");
    find("{\"a\":[1,2]}", "a.99999999999999999999999", JSON_FIND_NONE, "");
    find("{\"a\\\"b\":5}", "a\\\"b", JSON_FIND_NUMBER, "5");
    find("[{\"a\":1},{\"a\":2}]", "1.a", JSON_FIND_NUMBER, "2");
    find(" \"s\" ", "", JSON_FIND_STRING, "\"s\"");
    {
        /* json_scan: the same answers as json_find, path by path, in one call. */
        const char paths[] = "error\0choices.0\0choices.0.finish_reason\0usage.completion_tokens";
        int types[4];
        size_t spans[8], at = 0;
        CHECK_INT(json_scan(chunk, strlen(chunk), paths, sizeof paths - 1, types, spans, &at), JSON_FIND_OBJECT);
        CHECK_INT(types[0], JSON_FIND_NONE);
        CHECK_INT(types[1], JSON_FIND_OBJECT);
        CHECK_INT(types[2], JSON_FIND_NULL);
        CHECK_INT(types[3], JSON_FIND_NUMBER);
        CHECK_MEM(chunk + spans[6], spans[7], "12", 2);
        CHECK_INT(json_scan("{nope", 5, paths, sizeof paths - 1, types, spans, &at), JSON_FIND_NONE);
        CHECK_UINT(at, 1);
        CHECK_INT(types[1], JSON_FIND_NONE);
        CHECK_UINT(spans[2], 0);
    }
    return check_exit("test_json_find");
}
