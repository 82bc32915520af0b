/* libFuzzer target for src/text/json_find.c. The input is a JSON text
 * (or not), in an allocation of exactly its size:
 *   - json_valid must agree with the independent validator json_check.h
 *     wherever their rules are the same: what json_check.h accepts (at
 *     most 64 deep, no lone surrogate escapes) json_valid accepts with the
 *     same type; what json_valid refuses names a byte within the text;
 *   - on an accepted text, json_find at paths made from the text's own
 *     keys and small indexes answers values inside the text, each of
 *     which json_valid accepts as its own text with the same type, and
 *     json_scan of those paths answers what json_find did, path by path;
 *   - on a refused text json_find still reads nothing outside it.
 *
 * Linked with replay_main.c instead of libFuzzer this is a plain program
 * that runs the target over the files (or directories) named on its command
 * line: the ctest unit.fuzz_json_find_corpus. */
#include "json_find.h"

#include "json_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void require(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_json_find: %s\n", what);
        abort();
    }
}

/* The type json_check.h's text starts with, as json_find.h names them. */
static int first_type(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    switch (i < n ? s[i] : 0) {
    case '{':
        return JSON_FIND_OBJECT;
    case '[':
        return JSON_FIND_ARRAY;
    case '"':
        return JSON_FIND_STRING;
    case 't':
        return JSON_FIND_TRUE;
    case 'f':
        return JSON_FIND_FALSE;
    case 'n':
        return JSON_FIND_NULL;
    default:
        return JSON_FIND_NUMBER;
    }
}

/* A found value is inside the text and valid on its own, of its type. */
static void check_found(const char *text, size_t len, int t, size_t off, size_t vlen)
{
    if (t == JSON_FIND_NONE)
        return;
    require(off <= len && vlen <= len - off && vlen > 0, "a found value outside the text");
    char *copy = malloc(vlen);
    memcpy(copy, text + off, vlen);
    require(json_valid(copy, vlen, NULL) == t, "a found value is not valid JSON of its type");
    free(copy);
}

/* Paths made from the input's quoted words and digits: "k", "k.0", "0.k", ... */
static void probe(const char *text, size_t len)
{
    const char *words[8];
    size_t lens[8], nw = 0;
    for (size_t i = 0; i + 1 < len && nw < 8; i++) {
        if (text[i] != '"')
            continue;
        size_t j = i + 1;
        while (j < len && text[j] != '"' && text[j] != '\\' && j - i < 12)
            j++;
        if (j < len && text[j] == '"') {
            words[nw] = text + i + 1;
            lens[nw++] = j - i - 1;
        }
        i = j;
    }
    char path[64];
    /* Every path tried, NUL-ended, with json_find's answers, for json_scan. */
    char all[16 * 64];
    size_t all_len = 0, np = 0, want_spans[32];
    int want[16];
    for (size_t a = 0; a <= nw; a++) {
        for (int idx = -1; idx < 3; idx++) {
            size_t p = 0;
            if (a < nw) {
                memcpy(path, words[a], lens[a]);
                p = lens[a];
            }
            if (idx >= 0)
                p += (size_t)snprintf(path + p, sizeof path - p, "%s%d", p ? "." : "", idx);
            size_t off = 0, vlen = 0;
            int t = json_find(text, len, path, p, &off, &vlen);
            check_found(text, len, t, off, vlen);
            if (np < 16) {
                memcpy(all + all_len, path, p);
                all[all_len + p] = '\0';
                all_len += p + 1;
                want[np] = t;
                want_spans[2 * np] = t ? off : 0;
                want_spans[2 * np + 1] = t ? vlen : 0;
                np++;
            }
            if (t != JSON_FIND_NONE && a < nw) {
                /* One level further: the first word again under it. */
                p += (size_t)snprintf(path + p, sizeof path - p, ".0");
                t = json_find(text, len, path, p, &off, &vlen);
                check_found(text, len, t, off, vlen);
            }
        }
    }
    /* json_scan: json_find's answers, path by path, in one call. */
    int types[16];
    size_t spans[32];
    require(json_scan(text, len, all, all_len, types, spans, NULL) == json_valid(text, len, NULL), "json_scan's type");
    for (size_t k = 0; k < np; k++) {
        require(types[k] == want[k], "json_scan and json_find differ on a type");
        require(spans[2 * k] == want_spans[2 * k] && spans[2 * k + 1] == want_spans[2 * k + 1],
                "json_scan and json_find differ on a span");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1);
    memcpy(text, data, size);
    size_t at = SIZE_MAX;
    int t = json_valid(text, size, &at);
    if (json_check(text, size))
        require(t == first_type(text, size), "json_check.h accepts a text json_valid does not (or another type)");
    if (t == JSON_FIND_NONE) {
        require(at <= size, "the wrong byte is outside the text");
        int types[2];
        size_t spans[4], at_scan = SIZE_MAX;
        require(json_scan(text, size, "a\0b.0", 5, types, spans, &at_scan) == JSON_FIND_NONE && at_scan == at &&
                    types[0] == JSON_FIND_NONE && types[1] == JSON_FIND_NONE,
                "json_scan refuses a text otherwise than json_valid");
        size_t off, vlen;
        json_find(text, size, "a.0.b", 5, &off, &vlen); /* memory-safe only */
    } else {
        size_t off = 0, vlen = 0;
        require(json_find(text, size, "", 0, &off, &vlen) == t, "the empty path is not the whole value");
        probe(text, size);
    }
    free(text);
    return 0;
}
