/* HdrHistogram's V2 compressed histogram encoding: counts as ZigZag LEB128
 * varints with zero runs, behind a big-endian header, deflated, in base64.
 * Used for interval logs (hlog.c), so not on the request path. The decoder
 * treats its input as hostile: every length is checked before it is used. */
#include "hdr_codec.h"

#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "xalloc.h"

#define COOKIE_V2 UINT32_C(0x1c849313)
#define COOKIE_V2_COMPRESSED UINT32_C(0x1c849314)
#define OUTER_LEN 8  /* compressed cookie + deflated length */
#define HEADER_LEN 40 /* V2 header before the counts payload */
#define VARINT_MAX 9  /* the 9th byte carries 8 bits and ends the varint */

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static void put_be32(uint8_t *p, uint32_t v)
{
    for (int i = 3; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get_be64(const uint8_t *p)
{
    return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

/* ---- base64 (RFC 4648 standard alphabet, padded) ---- */

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const uint8_t *in, size_t n, size_t *outlen)
{
    size_t len = (n + 2) / 3 * 4;
    char *out = xmalloc(len + 1);
    char *o = out;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        *o++ = b64_alphabet[v >> 18];
        *o++ = b64_alphabet[(v >> 12) & 63];
        *o++ = b64_alphabet[(v >> 6) & 63];
        *o++ = b64_alphabet[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        *o++ = b64_alphabet[v >> 18];
        *o++ = b64_alphabet[(v >> 12) & 63];
        *o++ = i + 1 < n ? b64_alphabet[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
    *o = '\0';
    *outlen = len;
    return out;
}

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

/* Strict: the length is a multiple of 4 and '=' appears only as the last one
 * or two characters. Returns a malloc'd buffer (length in *outlen), or NULL
 * with err set. */
static uint8_t *b64_decode(const char *in, size_t n, size_t *outlen, char *err, size_t errlen)
{
    if (n == 0) {
        set_err(err, errlen, "bad base64: empty input");
        return NULL;
    }
    if (n % 4 != 0) {
        set_err(err, errlen, "bad base64: length %zu is not a multiple of 4", n);
        return NULL;
    }
    size_t pad = in[n - 1] == '=' ? (in[n - 2] == '=' ? 2 : 1) : 0;
    uint8_t *out = xmalloc(n / 4 * 3);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        uint32_t v = 0;
        for (size_t j = 0; j < 4; j++) {
            unsigned char c = (unsigned char)in[i + j];
            int d = b64_value(c);
            if (d < 0 && !(c == '=' && i + j >= n - pad)) {
                if (c == '=')
                    set_err(err, errlen, "bad base64: '=' padding before the end, at offset %zu",
                            i + j);
                else
                    set_err(err, errlen, "bad base64: character 0x%02x at offset %zu", c, i + j);
                free(out);
                return NULL;
            }
            v = v << 6 | (uint32_t)(d < 0 ? 0 : d);
        }
        out[o++] = (uint8_t)(v >> 16);
        out[o++] = (uint8_t)(v >> 8);
        out[o++] = (uint8_t)v;
    }
    *outlen = o - pad;
    return out;
}

/* ---- encoding ---- */

/* ZigZag, then LEB128 with at most 9 bytes: 8 of 7 bits, then one of 8 bits
 * (HdrHistogram's ZigZagEncoding, not protobuf's 10-byte varint). */
static size_t put_varint(uint8_t *p, int64_t v)
{
    uint64_t u = v < 0 ? ~((uint64_t)v << 1) : (uint64_t)v << 1;
    size_t i = 0;
    while (i < VARINT_MAX - 1 && u >= 0x80) {
        p[i++] = (uint8_t)(u | 0x80);
        u >>= 7;
    }
    p[i++] = (uint8_t)u;
    return i;
}

char *hdr_encode(const struct hist *h, size_t *len)
{
    /* Counts up to the max value's bucket, at least one (an empty histogram
     * writes a single zero, as HdrHistogram does). */
    int32_t limit = 1;
    if (h->count > 0) {
        int64_t max = h->max > h->highest ? h->highest : h->max;
        limit = hist_index_of(h, max) + 1;
        if (limit > h->counts_len)
            limit = h->counts_len;
    }

    size_t cap = HEADER_LEN + (size_t)limit * VARINT_MAX;
    uint8_t *raw = xmalloc(cap);
    size_t n = HEADER_LEN;
    for (int32_t i = 0; i < limit;) {
        int64_t c = h->counts[i];
        assert(c >= 0 && "histogram counts are non-negative");
        if (c != 0) {
            n += put_varint(raw + n, c);
            i++;
            continue;
        }
        int32_t run = 1;
        while (i + run < limit && h->counts[i + run] == 0)
            run++;
        /* A lone zero is written as 0 (Java does; the C port writes -1). */
        n += put_varint(raw + n, run > 1 ? -(int64_t)run : 0);
        i += run;
    }

    put_be32(raw, COOKIE_V2);
    put_be32(raw + 4, (uint32_t)(n - HEADER_LEN));
    put_be32(raw + 8, 0); /* normalizing index offset */
    put_be32(raw + 12, (uint32_t)h->digits);
    put_be64(raw + 16, (uint64_t)h->lowest);
    put_be64(raw + 24, (uint64_t)h->highest);
    double ratio = 1.0; /* integer-to-double conversion ratio */
    uint64_t ratio_bits;
    memcpy(&ratio_bits, &ratio, sizeof ratio_bits);
    put_be64(raw + 32, ratio_bits);

    /* Best compression, as Java's HistogramLogWriter: a log line is written
     * once per interval, and smaller lines are worth the little time. */
    uLongf zlen = compressBound((uLong)n);
    uint8_t *blob = xmalloc(OUTER_LEN + zlen);
    int rc = compress2(blob + OUTER_LEN, &zlen, raw, (uLong)n, Z_BEST_COMPRESSION);
    free(raw);
    if (rc != Z_OK) {
        fprintf(stderr, "volley: zlib compress2 failed (%d) on a %zu-byte histogram\n", rc, n);
        abort();
    }
    put_be32(blob, COOKIE_V2_COMPRESSED);
    put_be32(blob + 4, (uint32_t)zlen);

    size_t b64len;
    char *text = b64_encode(blob, OUTER_LEN + zlen, &b64len);
    free(blob);
    if (len)
        *len = b64len;
    return text;
}

/* ---- decoding ---- */

/* Checks the 40-byte V2 header and sets up out from it; the payload length
 * goes to *payload_len, bounded by what a valid payload for out's counts
 * array can need. */
static int parse_header(const uint8_t *p, struct hist *out, size_t *payload_len, char *err,
                        size_t errlen)
{
    uint32_t cookie = get_be32(p);
    int32_t plen = (int32_t)get_be32(p + 4);
    int32_t offset = (int32_t)get_be32(p + 8);
    int32_t digits = (int32_t)get_be32(p + 12);
    int64_t lowest = (int64_t)get_be64(p + 16);
    int64_t highest = (int64_t)get_be64(p + 24);
    /* The conversion ratio at p + 32 only scales DoubleHistogram values; the
     * integer counts do not depend on it. */

    if (cookie != COOKIE_V2) {
        set_err(err, errlen, "inner cookie 0x%08x is not the V2 encoding's 0x1c849313",
                (unsigned)cookie);
        return -1;
    }
    if (offset != 0) {
        set_err(err, errlen, "normalizing index offset %d is not supported (only 0)", (int)offset);
        return -1;
    }
    int32_t counts = hist_counts_len(lowest, highest, digits);
    if (counts > HDR_DECODE_MAX_COUNTS) {
        set_err(err, errlen,
                "histogram configuration too large: lowest %lld, highest %lld, %d digits need %d counts (at most %d)",
                (long long)lowest, (long long)highest, (int)digits, (int)counts, HDR_DECODE_MAX_COUNTS);
        return -1;
    }
    if (counts < 0 || hist_init(out, lowest, highest, digits) != 0) {
        set_err(err, errlen,
                "unsupported histogram configuration: lowest %lld, highest %lld, %d digits",
                (long long)lowest, (long long)highest, (int)digits);
        return -1;
    }
    uint64_t bound = (uint64_t)out->counts_len * VARINT_MAX;
    if (plen < 0 || (uint64_t)plen > bound) {
        set_err(err, errlen, "payload length %d out of range 0..%llu for %d counts", (int)plen,
                (unsigned long long)bound, (int)out->counts_len);
        hist_free(out);
        return -1;
    }
    *payload_len = (size_t)plen;
    return 0;
}

/* Reads one varint at *pos; returns 0, or -1 if the payload ends inside it. */
static int get_varint(const uint8_t *p, size_t n, size_t *pos, int64_t *v)
{
    uint64_t u = 0;
    for (int i = 0; i < VARINT_MAX; i++) {
        if (*pos >= n)
            return -1;
        uint8_t b = p[(*pos)++];
        if (i == VARINT_MAX - 1) {
            u |= (uint64_t)b << 56;
            break;
        }
        u |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80))
            break;
    }
    *v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
    return 0;
}

/* Fills h's counts from the payload, then count, min, max, sum, sum_sq. */
static int decode_counts(const uint8_t *p, size_t n, struct hist *h, char *err, size_t errlen)
{
    size_t pos = 0;
    int64_t idx = 0;
    int64_t total = 0;
    while (pos < n) {
        size_t at = pos;
        int64_t v;
        if (get_varint(p, n, &pos, &v) != 0) {
            set_err(err, errlen, "varint truncated at payload byte %zu of %zu", at, n);
            return -1;
        }
        if (v < 0) {
            uint64_t run = (uint64_t)0 - (uint64_t)v;
            if (run > (uint64_t)(h->counts_len - idx)) {
                set_err(err, errlen,
                        "payload overflows the counts array: a run of %llu zeros at index %lld, "
                        "%d entries",
                        (unsigned long long)run, (long long)idx, (int)h->counts_len);
                return -1;
            }
            idx += (int64_t)run;
            continue;
        }
        if (idx >= h->counts_len) {
            set_err(err, errlen, "payload overflows the counts array: more than %d counts",
                    (int)h->counts_len);
            return -1;
        }
        if (v > INT64_MAX - total) {
            set_err(err, errlen, "total count overflows at index %lld", (long long)idx);
            return -1;
        }
        h->counts[idx++] = v;
        total += v;
    }

    h->count = total;
    for (int32_t i = 0; i < h->counts_len; i++) {
        int64_t c = h->counts[i];
        if (c == 0)
            continue;
        int64_t lo = hist_value_at_index(h, i);
        int64_t hi = hist_highest_equivalent(h, lo);
        if (lo < h->min)
            h->min = lo;
        h->max = hi;
        /* HdrHistogram's medianEquivalentValue. */
        int64_t mid = lo + (hi - lo + 1) / 2;
        h->sum += (__int128)mid * c;
        /* Wraps (unsigned, defined) only for counts no run could record. */
        h->sum_sq += (unsigned __int128)(uint64_t)mid * (uint64_t)mid * (uint64_t)c;
    }
    return 0;
}

/* Inflates into buf until it is full or the stream ends. Returns the bytes
 * written (*ended set when the stream ended), or -1 with err set. */
static long inflate_into(z_stream *zs, uint8_t *buf, size_t n, int *ended, char *err,
                         size_t errlen)
{
    zs->next_out = buf;
    zs->avail_out = (uInt)n;
    *ended = 0;
    while (zs->avail_out > 0) {
        int rc = inflate(zs, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            *ended = 1;
            break;
        }
        if (rc == Z_BUF_ERROR) /* no progress possible: the input is used up */
            break;
        if (rc != Z_OK) {
            set_err(err, errlen, "corrupt zlib data: %s",
                    rc == Z_NEED_DICT ? "needs a preset dictionary"
                                      : (zs->msg ? zs->msg : "inflate failed"));
            return -1;
        }
    }
    return (long)(n - zs->avail_out);
}

/* The compressed form: the header, then the payload inflated into a buffer
 * of exactly the length the header states; the zlib stream must end there
 * and use every deflated byte. */
static int decode_compressed(const uint8_t *raw, size_t n, struct hist *out, char *err,
                             size_t errlen)
{
    if (n < OUTER_LEN) {
        set_err(err, errlen, "compressed blob truncated: %zu bytes, its header needs %d", n,
                OUTER_LEN);
        return -1;
    }
    uint32_t zlen = get_be32(raw + 4);
    size_t present = n - OUTER_LEN;
    if (zlen > present) {
        set_err(err, errlen, "zlib data truncated: header says %u bytes, %zu present",
                (unsigned)zlen, present);
        return -1;
    }
    if (zlen < present) {
        set_err(err, errlen, "%zu bytes after the %u bytes of zlib data the header states",
                present - zlen, (unsigned)zlen);
        return -1;
    }

    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit(&zs) != Z_OK) {
        set_err(err, errlen, "zlib inflateInit failed");
        return -1;
    }
    zs.next_in = (Bytef *)(uintptr_t)(raw + OUTER_LEN); /* zlib does not write it */
    zs.avail_in = (uInt)zlen;

    int rc = -1;
    int ended;
    uint8_t header[HEADER_LEN];
    uint8_t *payload = NULL;
    long got = inflate_into(&zs, header, sizeof header, &ended, err, errlen);
    if (got < 0)
        goto done;
    if (got < HEADER_LEN) {
        set_err(err, errlen, "zlib data %s after %ld bytes, inside the %d-byte V2 header",
                ended ? "ends" : "truncated", got, HEADER_LEN);
        goto done;
    }
    size_t plen;
    if (parse_header(header, out, &plen, err, errlen) != 0)
        goto done;

    payload = xmalloc(plen);
    got = plen ? inflate_into(&zs, payload, plen, &ended, err, errlen) : 0;
    if (got < 0)
        goto fail;
    if ((size_t)got < plen) {
        set_err(err, errlen, "zlib data %s after %ld of the %zu payload bytes",
                ended ? "ends" : "truncated", got, plen);
        goto fail;
    }
    if (!ended) {
        uint8_t extra;
        got = inflate_into(&zs, &extra, 1, &ended, err, errlen);
        if (got < 0)
            goto fail;
        if (got > 0) {
            set_err(err, errlen, "zlib data inflates past the payload length %zu", plen);
            goto fail;
        }
        if (!ended) {
            set_err(err, errlen, "zlib data truncated: the stream does not end");
            goto fail;
        }
    }
    if (zs.avail_in != 0) {
        set_err(err, errlen, "%u bytes after the end of the zlib stream", (unsigned)zs.avail_in);
        goto fail;
    }
    if (decode_counts(payload, plen, out, err, errlen) != 0)
        goto fail;
    rc = 0;
    goto done;
fail:
    hist_free(out);
done:
    free(payload);
    inflateEnd(&zs);
    return rc;
}

static int decode_plain(const uint8_t *raw, size_t n, struct hist *out, char *err,
                        size_t errlen)
{
    if (n < HEADER_LEN) {
        set_err(err, errlen, "V2 blob truncated: %zu bytes, its header needs %d", n, HEADER_LEN);
        return -1;
    }
    size_t plen;
    if (parse_header(raw, out, &plen, err, errlen) != 0)
        return -1;
    if (n - HEADER_LEN != plen) {
        set_err(err, errlen, "V2 blob has %zu payload bytes, its header says %zu",
                n - HEADER_LEN, plen);
        hist_free(out);
        return -1;
    }
    if (decode_counts(raw + HEADER_LEN, plen, out, err, errlen) != 0) {
        hist_free(out);
        return -1;
    }
    return 0;
}

int hdr_decode(const char *b64, size_t len, struct hist *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (err && errlen > 0)
        err[0] = '\0';
    size_t n;
    uint8_t *raw = b64_decode(b64, len, &n, err, errlen);
    if (!raw)
        return -1;
    int rc = -1;
    if (n < 4) {
        set_err(err, errlen, "blob too short: %zu bytes", n);
    } else {
        uint32_t cookie = get_be32(raw);
        if (cookie == COOKIE_V2_COMPRESSED)
            rc = decode_compressed(raw, n, out, err, errlen);
        else if (cookie == COOKIE_V2)
            rc = decode_plain(raw, n, out, err, errlen);
        else
            set_err(err, errlen,
                    "cookie 0x%08x is not HdrHistogram V2 (0x1c849314 compressed, 0x1c849313)",
                    (unsigned)cookie);
    }
    free(raw);
    return rc;
}
