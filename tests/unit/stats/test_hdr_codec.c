/* Unit test for hdr_codec.c and hlog.c: encode -> decode round trips keep
 * every count (empty, single, constant, uniform, log-uniform, at the top of
 * the range, many random values, long zero runs, other configurations);
 * hostile blobs (bad base64, wrong cookies, truncated or oversized zlib data,
 * payloads overflowing the counts array, truncated varints, every truncation,
 * random byte flips) are rejected with a message or decode to a consistent
 * histogram, never crash (run it under ASan too); hlog lines are formatted
 * as Java's HistogramLogWriter formats them. */
#include "hdr_codec.h"
#include "hist.h"
#include "hlog.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "../check.h"

#include "../rng.h"

/* ---- blob construction, independent of the code under test ---- */

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64(const uint8_t *p, size_t n)
{
    char *out = malloc((n + 2) / 3 * 4 + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        out[o++] = alphabet[v >> 18];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? alphabet[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

static uint8_t *unb64(const char *s, size_t *n)
{
    size_t len = strlen(s);
    uint8_t *out = malloc(len / 4 * 3 + 1);
    size_t o = 0;
    uint32_t v = 0;
    int bits = 0;
    for (size_t i = 0; i < len && s[i] != '='; i++) {
        v = v << 6 | (uint32_t)(strchr(alphabet, s[i]) - alphabet);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (uint8_t)(v >> bits);
        }
    }
    *n = o;
    return out;
}

static void be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static void be64(uint8_t *p, uint64_t v)
{
    be32(p, (uint32_t)(v >> 32));
    be32(p + 4, (uint32_t)v);
}

struct inner {
    uint32_t cookie;
    int32_t payload_len; /* INT32_MIN: the real length */
    int32_t offset;
    int32_t digits;
    int64_t lowest, highest;
};

static const struct inner default_inner = {0x1c849313, INT32_MIN, 0, 3, 1, INT64_C(3600000000000)};

/* The uncompressed V2 blob: header + payload; length in *n. */
static uint8_t *make_inner(struct inner in, const uint8_t *payload, size_t plen, size_t *n)
{
    uint8_t *p = malloc(40 + plen);
    be32(p, in.cookie);
    be32(p + 4, (uint32_t)(in.payload_len == INT32_MIN ? (int32_t)plen : in.payload_len));
    be32(p + 8, (uint32_t)in.offset);
    be32(p + 12, (uint32_t)in.digits);
    be64(p + 16, (uint64_t)in.lowest);
    be64(p + 24, (uint64_t)in.highest);
    double one = 1.0;
    uint64_t bits;
    memcpy(&bits, &one, sizeof bits);
    be64(p + 32, bits);
    if (plen)
        memcpy(p + 40, payload, plen);
    *n = 40 + plen;
    return p;
}

/* The compressed blob around raw: cookie, deflated length (or stated_len if
 * >= 0), zlib data, extra trailing bytes. */
static uint8_t *make_outer(uint32_t cookie, const uint8_t *raw, size_t n, long stated_len,
                           size_t trailing, size_t *outn)
{
    uLongf zlen = compressBound((uLong)n);
    uint8_t *p = calloc(8 + zlen + trailing, 1);
    if (compress2(p + 8, &zlen, raw, (uLong)n, 6) != Z_OK)
        abort();
    be32(p, cookie);
    be32(p + 4, (uint32_t)(stated_len >= 0 ? (uLongf)stated_len : zlen));
    *outn = 8 + zlen + trailing;
    return p;
}

/* base64 of the compressed blob of (in, payload). */
static char *make_blob(struct inner in, const uint8_t *payload, size_t plen)
{
    size_t n, m;
    uint8_t *raw = make_inner(in, payload, plen, &n);
    uint8_t *outer = make_outer(0x1c849314, raw, n, -1, 0, &m);
    char *s = b64(outer, m);
    free(raw);
    free(outer);
    return s;
}

/* ---- round trips ---- */

/* Decodes text and checks it is internally consistent: count is the sum of
 * the counts, min and max are the ends of the non-empty buckets. */
static int decode_consistent(const char *text, size_t len, struct hist *out, char *err, size_t errlen)
{
    int rc = hdr_decode(text, len, out, err, errlen);
    if (rc != 0)
        return rc;
    int64_t sum = 0, min = INT64_MAX, max = 0;
    for (int32_t i = 0; i < out->counts_len; i++) {
        if (out->counts[i] == 0)
            continue;
        sum += out->counts[i];
        int64_t v = hist_value_at_index(out, i);
        if (v < min)
            min = v;
        max = hist_highest_equivalent(out, v);
    }
    CHECK_INT(out->count, sum);
    CHECK_INT(out->min, min);
    CHECK_INT(out->max, max);
    return 0;
}

static void check_round_trip(const char *name, const struct hist *h)
{
    check_ctx("round trip: %s", name);
    size_t len = 0;
    char *text = hdr_encode(h, &len);
    CHECK_INT(len, strlen(text));
    CHECK(strncmp(text, "HISTF", 5) == 0);

    struct hist d;
    char err[256];
    if (!CHECK(decode_consistent(text, len, &d, err, sizeof err) == 0)) {
        fprintf(stderr, "    error: %s\n", err);
        free(text);
        return;
    }
    CHECK_INT(d.lowest, h->lowest);
    CHECK_INT(d.highest, h->highest);
    CHECK_INT(d.digits, h->digits);
    CHECK_INT(d.counts_len, h->counts_len);
    CHECK(memcmp(d.counts, h->counts, (size_t)h->counts_len * sizeof *h->counts) == 0);
    CHECK_INT(d.count, h->count);
    if (h->count == 0) {
        CHECK_INT(d.min, INT64_MAX);
        CHECK_INT(d.max, 0);
        CHECK(hist_mean(&d) == 0);
    } else {
        CHECK_INT(d.min, hist_value_at_index(h, hist_index_of(h, h->min)));
        CHECK_INT(d.max, hist_highest_equivalent(h, h->max));
        /* Bucket medians stand in for the values: within a bucket's width. */
        double mean = hist_mean(h);
        CHECK(fabs(hist_mean(&d) - mean) <= mean / 1000 + 1);
        static const double ps[] = {0, 1, 50, 90, 99, 99.9, 99.99, 100};
        for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
            int64_t a = hist_percentile(h, ps[i]), b = hist_percentile(&d, ps[i]);
            /* Identical buckets; only the exact min and max cap differ. */
            CHECK_INT(hist_index_of(&d, b), hist_index_of(h, a));
        }
    }

    /* Decoding loses nothing the encoding holds. */
    char *again = hdr_encode(&d, NULL);
    CHECK_STR(again, text);
    free(again);
    hist_free(&d);
    free(text);
    check_ctx(NULL);
}

static void test_round_trips(void)
{
    struct hist h;
    hist_init_default(&h);

    check_round_trip("empty", &h);

    hist_record(&h, 12345);
    check_round_trip("single value", &h);

    hist_reset(&h);
    hist_record(&h, 0);
    check_round_trip("single zero", &h);

    hist_reset(&h);
    hist_record_n(&h, 777777, 1000000);
    check_round_trip("constant", &h);

    hist_reset(&h);
    for (int i = 0; i < 100000; i++)
        hist_record(&h, 1000 + (int64_t)(rng_next() % 1000000));
    check_round_trip("uniform 1 us .. 1 ms", &h);

    hist_reset(&h);
    for (int i = 0; i < 200000; i++)
        hist_record(&h, (int64_t)exp(rng_unit() * log(6e10)));
    check_round_trip("log-uniform 1 ns .. 60 s", &h);

    hist_reset(&h);
    hist_record(&h, HIST_HIGHEST);
    hist_record(&h, HIST_HIGHEST - 1);
    hist_record(&h, INT64_MAX); /* clamped to HIST_HIGHEST */
    check_round_trip("at HIST_HIGHEST", &h);

    hist_reset(&h);
    for (int i = 0; i < 150000; i++) {
        int64_t v = (int64_t)(rng_next() % (uint64_t)HIST_HIGHEST);
        hist_record_n(&h, v >> (rng_next() % 40), 1 + (int64_t)(rng_next() % 3));
    }
    check_round_trip("150000 random values", &h);

    /* Zero runs longer than anything else in the payload, and huge counts
     * (varints of all lengths up to 9 bytes). */
    hist_reset(&h);
    hist_record(&h, 1);
    hist_record_n(&h, 3, 2);
    hist_record_n(&h, 2047, INT64_C(1) << 40);
    hist_record_n(&h, 40000000, INT64_C(1) << 62);
    hist_record(&h, HIST_HIGHEST);
    check_round_trip("long zero runs, huge counts", &h);
    hist_free(&h);

    static const struct {
        int64_t lowest, highest;
        int digits;
    } configs[] = {{1000, INT64_C(1000000000), 2}, {1, 2, 1}, {1, INT64_C(3600000000), 5},
                   {1, INT64_MAX, 3}};
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        CHECK(hist_init(&h, configs[i].lowest, configs[i].highest, configs[i].digits) == 0);
        for (int k = 0; k < 5000; k++)
            hist_record(&h, (int64_t)(rng_unit() * (double)configs[i].highest));
        hist_record(&h, configs[i].highest);
        char name[96];
        snprintf(name, sizeof name, "lowest %lld highest %lld digits %d",
                 (long long)configs[i].lowest, (long long)configs[i].highest, configs[i].digits);
        check_round_trip(name, &h);
        hist_free(&h);
    }
}

/* The uncompressed V2 blob decodes too; a lone zero may be 0 or -1. */
static void test_uncompressed(void)
{
    static const uint8_t payload[] = {0x01 /* -1: one zero */, 0x04 /* 2 */, 0x00, 0x03 /* -2 */,
                                      0x0a /* 5 */};
    size_t n;
    uint8_t *raw = make_inner(default_inner, payload, sizeof payload, &n);
    char *text = b64(raw, n);
    struct hist d;
    char err[256];
    if (CHECK(decode_consistent(text, strlen(text), &d, err, sizeof err) == 0)) {
        CHECK_INT(d.counts[0], 0);
        CHECK_INT(d.counts[1], 2);
        CHECK_INT(d.counts[5], 5);
        CHECK_INT(d.count, 7);
        CHECK_INT(d.min, 1);
        CHECK_INT(d.max, 5);
        hist_free(&d);
    }
    free(text);
    free(raw);
}

/* ---- hostile input ---- */

static void expect_error(const char *what, const char *text, size_t len, const char *needle)
{
    check_ctx("reject: %s", what);
    struct hist d;
    char err[256] = "";
    memset(&d, 0x55, sizeof d);
    int rc = hdr_decode(text, len, &d, err, sizeof err);
    if (CHECK_INT(rc, -1)) {
        CHECK_CONTAINS(err, needle);
        CHECK(strchr(err, '\n') == NULL);
        CHECK(d.counts == NULL); /* left freed and zeroed */
    } else {
        hist_free(&d);
    }
    check_ctx(NULL);
}

static void expect_error_str(const char *what, const char *text, const char *needle)
{
    expect_error(what, text, strlen(text), needle);
}

static void test_rejects(void)
{
    struct hist h;
    hist_init_default(&h);
    for (int i = 0; i < 1000; i++)
        hist_record(&h, 1000 + (int64_t)(rng_next() % 100000));
    char *good = hdr_encode(&h, NULL);
    size_t goodlen = strlen(good);
    hist_free(&h);

    /* base64 */
    expect_error_str("empty", "", "empty");
    expect_error_str("length", "HISTFAAAA", "multiple of 4");
    expect_error_str("character", "HIST!AAA", "character 0x21 at offset 4");
    expect_error_str("inner padding", "HI==FAAA", "padding before the end");
    expect_error_str("triple padding", "HISTFA==A===", "padding before the end");
    char *bad = strdup(good);
    bad[goodlen / 2] = '\n';
    expect_error_str("newline inside", bad, "character 0x0a");
    free(bad);
    expect_error_str("short blob", "HIST", "too short");

    /* cookies */
    static const uint8_t one_zero[] = {0x00};
    size_t n, m;
    uint8_t *raw = make_inner(default_inner, one_zero, 1, &n);
    uint8_t *outer = make_outer(0x1c849315, raw, n, -1, 0, &m);
    char *text = b64(outer, m);
    expect_error_str("outer cookie", text, "cookie 0x1c849315");
    free(text);
    free(outer);
    outer = make_outer(0x1c849304, raw, n, -1, 0, &m); /* V1 compressed */
    text = b64(outer, m);
    expect_error_str("V1 cookie", text, "cookie 0x1c849304");
    free(text);
    free(outer);
    free(raw);
    struct inner in = default_inner;
    in.cookie = 0x1c849301;
    text = make_blob(in, one_zero, 1);
    expect_error_str("inner cookie", text, "inner cookie 0x1c849301");
    free(text);

    /* header fields */
    in = default_inner;
    in.offset = 3;
    text = make_blob(in, one_zero, 1);
    expect_error_str("normalizing offset", text, "normalizing index offset 3");
    free(text);
    in = default_inner;
    in.digits = 7;
    text = make_blob(in, one_zero, 1);
    expect_error_str("digits", text, "unsupported histogram configuration");
    free(text);
    in = default_inner;
    in.lowest = 0;
    text = make_blob(in, one_zero, 1);
    expect_error_str("lowest 0", text, "lowest 0");
    free(text);
    in = default_inner;
    in.highest = 1;
    text = make_blob(in, one_zero, 1);
    expect_error_str("highest < 2 lowest", text, "highest 1");
    free(text);
    in = default_inner;
    in.payload_len = -5;
    text = make_blob(in, one_zero, 1);
    expect_error_str("negative payload length", text, "payload length -5 out of range");
    free(text);
    in = default_inner;
    in.payload_len = 33792 * 9 + 1;
    text = make_blob(in, one_zero, 1);
    expect_error_str("huge payload length", text, "out of range");
    free(text);

    /* zlib framing */
    raw = make_inner(default_inner, one_zero, 1, &n);
    outer = make_outer(0x1c849314, raw, n, -1, 0, &m);
    size_t zlen = m - 8;
    uint8_t *o2 = make_outer(0x1c849314, raw, n, (long)zlen + 1, 0, &m);
    text = b64(o2, m);
    expect_error_str("stated length past the end", text, "zlib data truncated");
    free(text);
    free(o2);
    o2 = make_outer(0x1c849314, raw, n, -1, 3, &m);
    text = b64(o2, m);
    expect_error_str("bytes after the zlib data", text, "3 bytes after");
    free(text);
    free(o2);
    /* Every cut of the zlib stream, with the length field telling the truth. */
    for (size_t cut = 0; cut < zlen; cut++) {
        uint8_t *c = malloc(8 + cut + 1);
        memcpy(c, outer, 8 + cut);
        be32(c + 4, (uint32_t)cut);
        text = b64(c, 8 + cut);
        char what[64];
        snprintf(what, sizeof what, "zlib stream cut at %zu of %zu", cut, zlen);
        expect_error_str(what, text, "zlib");
        free(text);
        free(c);
    }
    /* A valid zlib stream followed by a second one within the stated length. */
    {
        uLongf z2 = compressBound(1);
        uint8_t *c = malloc(m + z2);
        memcpy(c, outer, 8 + zlen);
        uint8_t tail[1] = {0};
        if (compress2(c + 8 + zlen, &z2, tail, 1, 6) != Z_OK)
            abort();
        be32(c + 4, (uint32_t)(zlen + z2));
        text = b64(c, 8 + zlen + z2);
        expect_error_str("data after the zlib stream", text, "after the end of the zlib stream");
        free(text);
        free(c);
    }
    free(outer);
    free(raw);

    /* Inflated data longer or shorter than the header's payload length. */
    static const uint8_t two[] = {0x02, 0x02};
    in = default_inner;
    in.payload_len = 1;
    text = make_blob(in, two, 2);
    expect_error_str("inflates past the payload", text, "inflates past the payload length 1");
    free(text);
    in.payload_len = 3;
    text = make_blob(in, two, 2);
    expect_error_str("inflates short of the payload", text, "ends after 2 of the 3 payload bytes");
    free(text);
    raw = make_inner(default_inner, two, 2, &n);
    outer = make_outer(0x1c849314, raw, 20, -1, 0, &m);
    text = b64(outer, m);
    expect_error_str("inflates short of the header", text, "inside the 40-byte V2 header");
    free(text);
    free(outer);
    free(raw);

    /* payloads */
    {
        /* 33792 counts for the default configuration: a run that reaches
         * past the end, then one count too many. */
        uint8_t p[32];
        size_t k = 0;
        int64_t runs[] = {-33791, 1, 1};
        for (size_t i = 0; i < 3; i++) {
            uint64_t u = runs[i] < 0 ? ~((uint64_t)runs[i] << 1) : (uint64_t)runs[i] << 1;
            while (u >= 0x80) {
                p[k++] = (uint8_t)(u | 0x80);
                u >>= 7;
            }
            p[k++] = (uint8_t)u;
        }
        text = make_blob(default_inner, p, k);
        expect_error_str("one count too many", text, "overflows the counts array: more than 33792");
        free(text);
        p[0] = 0xff, p[1] = 0x8f, p[2] = 0x04; /* zigzag 67583: -33792 */
        text = make_blob(default_inner, p, 3);
        struct hist d;
        char err[256];
        /* A run covering exactly the array is fine... */
        if (CHECK(hdr_decode(text, strlen(text), &d, err, sizeof err) == 0))
            hist_free(&d);
        free(text);
        p[0] = 0x81, p[1] = 0x90, p[2] = 0x04; /* zigzag 67585: -33793 */
        text = make_blob(default_inner, p, 3);
        expect_error_str("zero run past the end", text, "a run of 33793 zeros at index 0");
        free(text);
    }
    {
        static const uint8_t cut[] = {0x02, 0x80, 0x80};
        text = make_blob(default_inner, cut, sizeof cut);
        expect_error_str("truncated varint", text, "varint truncated at payload byte 1 of 3");
        free(text);
        /* Nine bytes with every bit set: the 9th byte carries 8 bits, no
         * continuation, so this is ZigZag of INT64_MIN, a run of 2^63. */
        static const uint8_t min[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
        text = make_blob(default_inner, min, sizeof min);
        expect_error_str("9-byte varint, run of 2^63", text, "a run of 9223372036854775808 zeros");
        free(text);
        static const uint8_t eight[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
        text = make_blob(default_inner, eight, sizeof eight);
        expect_error_str("varint cut in its 9th byte", text, "varint truncated at payload byte 0");
        free(text);
        /* 2^62 twice: the total overflows. */
        static const uint8_t big[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                      0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
        text = make_blob(default_inner, big, sizeof big);
        expect_error_str("total count overflow", text, "total count overflows");
        free(text);
    }

    /* Every truncation of a valid text. */
    for (size_t len = 0; len < goodlen; len++) {
        struct hist d;
        char err[256];
        int rc = hdr_decode(good, len, &d, err, sizeof err);
        check_ctx("truncated to %zu of %zu", len, goodlen);
        if (!CHECK_INT(rc, -1))
            hist_free(&d);
        CHECK(err[0] != '\0');
    }
    check_ctx(NULL);
    free(good);
}

/* Random damage, outside zlib (mostly caught by the Adler-32 check) and
 * inside it (reaching the header and payload parsers): every result is an
 * error with a message or a consistent histogram. */
static void test_flips(void)
{
    struct hist h;
    hist_init_default(&h);
    for (int i = 0; i < 300; i++)
        hist_record(&h, (int64_t)exp(rng_unit() * log(1e10)));
    char *good = hdr_encode(&h, NULL);
    hist_free(&h);
    size_t n;
    uint8_t *outer = unb64(good, &n);

    size_t rawn = 40 + 300 * 9 + 1024;
    uint8_t *raw = malloc(rawn);
    uLongf got = rawn;
    CHECK(uncompress(raw, &got, outer + 8, n - 8) == Z_OK);
    rawn = got;

    int ok = 0, rejected = 0;
    for (int iter = 0; iter < 6000; iter++) {
        int inside = iter % 2;
        uint8_t *buf = malloc(inside ? rawn : n);
        memcpy(buf, inside ? raw : outer, inside ? rawn : n);
        size_t len = inside ? rawn : n;
        int flips = 1 + (int)(rng_next() % 4);
        for (int f = 0; f < flips; f++) {
            /* Bias toward the headers, where the interesting fields are. */
            size_t at = rng_next() % 3 == 0 ? rng_next() % (inside ? 40 : 8) : rng_next() % len;
            buf[at] ^= (uint8_t)(1 + rng_next() % 255);
        }
        char *text;
        if (inside) {
            size_t m;
            uint8_t *o = make_outer(0x1c849314, buf, len, -1, 0, &m);
            text = b64(o, m);
            free(o);
        } else {
            text = b64(buf, len);
        }
        struct hist d;
        char err[256];
        check_ctx("flip iteration %d", iter);
        if (decode_consistent(text, strlen(text), &d, err, sizeof err) == 0) {
            ok++;
            hist_free(&d);
        } else {
            rejected++;
            CHECK(err[0] != '\0');
        }
        free(text);
        free(buf);
    }
    check_ctx(NULL);
    CHECK(rejected > 0);
    printf("byte flips: %d decoded, %d rejected\n", ok, rejected);

    /* Random garbage that is valid base64. */
    for (int iter = 0; iter < 2000; iter++) {
        uint8_t junk[64];
        size_t len = 1 + rng_next() % sizeof junk;
        for (size_t i = 0; i < len; i++)
            junk[i] = (uint8_t)rng_next();
        if (iter % 2)
            be32(junk, iter % 4 == 1 ? 0x1c849314 : 0x1c849313);
        char *text = b64(junk, len < 4 ? 4 : len);
        struct hist d;
        char err[256];
        if (decode_consistent(text, strlen(text), &d, err, sizeof err) == 0)
            hist_free(&d);
        free(text);
    }
    free(raw);
    free(outer);
    free(good);
}

/* ---- hlog ---- */

static char *hlog_text(void (*write)(FILE *, int *), int *rc)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    write(f, rc);
    fclose(f);
    return buf;
}

static void write_header(FILE *f, int *rc)
{
    *rc = hlog_header(f, 1700000000.1235, "volley test\nsecond line");
}

static void test_hlog_header(void)
{
    setenv("TZ", "UTC", 1);
    tzset();
    int rc;
    char *text = hlog_text(write_header, &rc);
    CHECK_INT(rc, 0);
    CHECK_STR(text, "#[volley test]\n"
                    "#[second line]\n"
                    "#[Histogram log format version 1.3]\n"
                    "#[StartTime: 1700000000.124 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]\n"
                    "#[BaseTime: 1700000000.124 (seconds since epoch)]\n"
                    "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
                    "\"Interval_Compressed_Histogram\"\n");
    free(text);
}

static struct hist line_hist;
static const char *line_tag;
static double line_start, line_length;

static void write_line(FILE *f, int *rc)
{
    *rc = hlog_interval(f, line_tag, line_start, line_length, &line_hist, 1e6);
}

/* Splits "[Tag=t,]start,length,max,blob\n" and checks the blob decodes to
 * line_hist's counts. Returns the line without its blob. */
static char *line_fields(const char *line)
{
    const char *last = strrchr(line, ',');
    if (!CHECK(last && line[strlen(line) - 1] == '\n'))
        return strdup("");
    struct hist d;
    char err[256];
    if (CHECK(hdr_decode(last + 1, strlen(last + 1) - 1, &d, err, sizeof err) == 0)) {
        CHECK(memcmp(d.counts, line_hist.counts, (size_t)d.counts_len * sizeof *d.counts) == 0);
        hist_free(&d);
    } else {
        fprintf(stderr, "    error: %s\n", err);
    }
    return strndup(line, (size_t)(last - line));
}

static void test_hlog_interval(void)
{
    hist_init_default(&line_hist);
    int rc;

    /* Expected strings were checked against Java 17's String.format(Locale.US,
     * "%.3f", x): it rounds the shortest decimal of x half up. */
    static const struct {
        double start, length;
        const char *fields;
    } cases[] = {
        {0, 1, "0.000,1.000,0.000"},
        {1.0005, 0.0625, "1.001,0.063,0.000"},   /* printf: 1.000,0.062 */
        {0.0045, 1.2345, "0.005,1.235,0.000"},   /* printf: 0.004,1.234 */
        {0.00025, 0.0005, "0.000,0.001,0.000"},
        {0.9995, 2.675, "1.000,2.675,0.000"},    /* printf: 0.999 */
        {123456789.0005, 1e20, "123456789.001,100000000000000000000.000,0.000"},
        {-0.0001, 9.9999, "-0.000,10.000,0.000"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_ctx("hlog line %zu", i);
        line_tag = NULL;
        line_start = cases[i].start;
        line_length = cases[i].length;
        char *text = hlog_text(write_line, &rc);
        CHECK_INT(rc, 0);
        char *fields = line_fields(text);
        CHECK_STR(fields, cases[i].fields);
        free(fields);
        free(text);
    }
    check_ctx(NULL);

    /* The max is the top of max's bucket, in ms. */
    hist_record(&line_hist, 1234567); /* bucket 1233920 .. 1234943 */
    hist_record(&line_hist, 5000);
    line_tag = "service";
    line_start = 12.5;
    line_length = 1;
    char *text = hlog_text(write_line, &rc);
    CHECK_INT(rc, 0);
    CHECK(strncmp(text, "Tag=service,12.500,1.000,1.235,HISTF", 36) == 0);
    char *fields = line_fields(text);
    CHECK_STR(fields, "Tag=service,12.500,1.000,1.235");
    free(fields);
    free(text);

    line_tag = "";
    text = hlog_text(write_line, &rc);
    CHECK(strncmp(text, "12.500,1.000,1.235,HISTF", 24) == 0);
    free(text);

    static const char *const bad_tags[] = {"a b", "a,b", "a\nb", "x\r", ","};
    for (size_t i = 0; i < sizeof bad_tags / sizeof bad_tags[0]; i++) {
        line_tag = bad_tags[i];
        errno = 0;
        text = hlog_text(write_line, &rc);
        check_ctx("bad tag %zu", i);
        CHECK_INT(rc, -1);
        CHECK_INT(errno, EINVAL);
        CHECK_STR(text, "");
        free(text);
    }
    check_ctx(NULL);

    /* A write error is reported. */
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        setvbuf(full, NULL, _IONBF, 0);
        CHECK_INT(hlog_interval(full, NULL, 0, 1, &line_hist, 1e6), -1);
        CHECK_INT(hlog_header(full, 0, NULL), -1);
        fclose(full);
    }
    hist_free(&line_hist);
}

int main(void)
{
    test_round_trips();
    test_uncompressed();
    test_rejects();
    test_flips();
    test_hlog_header();
    test_hlog_interval();
    return check_exit("test_hdr_codec");
}
