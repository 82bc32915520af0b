/* Response parsing: a fast path for the common Content-Length response,
 * and http-parser for everything else; and pipelined request strings
 * framed as a server frames them. The parser is given only the callbacks
 * the core needs (headers complete, body counted, message complete); with
 * a sink for streamed bodies (http_rx_stream) the fields too, matched only
 * for a Content-Type of text/event-stream. Request strings are encoded and taken apart in
 * http_request.c, a response received whole in http_raw.c: neither needs
 * the parser. */
#include "http.h"

#include "http_raw.h"

#include <http_parser.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(http_parser) <= sizeof(((struct http_rx *)0)->opaque), "http_rx.opaque too small");

/* A Content-Type of text/event-stream, matched as http-parser hands the
 * head over (a name or value may come in pieces, split across reads):
 * ct_name is how much of the name matched (CT_MISS: not this one), with
 * CT_VALUE set once its value began; ct_value how much of the media type
 * matched (CT_TYPE_LEN + 1: a parameter or space followed it). */
static const char ct_name_text[] = "content-type", ct_type[] = "text/event-stream";
enum { CT_NAME_LEN = 12, CT_TYPE_LEN = 17, CT_MISS = 0x40, CT_VALUE = 0x80 };

/* The value of a Content-Type header ended. */
static void ct_value_end(struct http_rx *rx)
{
    if (rx->ct_name == (CT_VALUE | CT_NAME_LEN) && rx->ct_value >= CT_TYPE_LEN && rx->ct_value != CT_MISS)
        rx->event_stream = 1;
    rx->ct_name = 0;
    rx->ct_value = 0;
}

static int on_header_field(http_parser *p, const char *at, size_t len)
{
    struct http_rx *rx = p->data;
    if (rx->ct_name & CT_VALUE)
        ct_value_end(rx); /* a new field begins */
    if (rx->ct_name & CT_MISS)
        return 0;
    size_t k = rx->ct_name;
    if (k + len > CT_NAME_LEN) {
        rx->ct_name = CT_MISS;
        return 0;
    }
    for (size_t i = 0; i < len; i++)
        if ((at[i] | 0x20) != ct_name_text[k + i]) {
            rx->ct_name = CT_MISS;
            return 0;
        }
    rx->ct_name = (uint8_t)(k + len);
    return 0;
}

static int on_header_value(http_parser *p, const char *at, size_t len)
{
    struct http_rx *rx = p->data;
    if (!(rx->ct_name & CT_VALUE)) { /* its first piece */
        rx->ct_value = rx->ct_name == CT_NAME_LEN ? 0 : CT_MISS;
        rx->ct_name |= CT_VALUE;
    }
    for (size_t i = 0; i < len && rx->ct_value != CT_MISS && rx->ct_value <= CT_TYPE_LEN; i++) {
        char ch = at[i];
        if (rx->ct_value < CT_TYPE_LEN)
            rx->ct_value = (ch | 0x20) == ct_type[rx->ct_value] ? (uint8_t)(rx->ct_value + 1) : (uint8_t)CT_MISS;
        else
            rx->ct_value = ch == ';' || ch == ' ' || ch == '\t' ? (uint8_t)(CT_TYPE_LEN + 1) : (uint8_t)CT_MISS;
    }
    return 0;
}

/* Whether a final response of status whose head is whole streams its body
 * (http_rx_stream): not when it has none. */
static bool streams(const struct http_rx *rx, unsigned status, bool empty)
{
    return rx->sink && (rx->stream_asked || rx->event_stream) && !rx->head && status != 204 && status != 304 &&
           !empty;
}

static int on_headers_complete(http_parser *p)
{
    struct http_rx *rx = p->data;
    if (rx->ct_name & CT_VALUE)
        ct_value_end(rx);
    if (p->status_code / 100 == 1 && p->status_code != 101) {
        rx->event_stream = 0; /* an interim response's: the final one's counts */
        return 0; /* interim response: the final one follows */
    }
    rx->status = (uint16_t)p->status_code;
    rx->status_known = 1;
    /* 1: tell the parser that this response has no body: a reply to HEAD,
     * or 204/304, whatever Content-Length they carry. */
    if (p->status_code == 101)
        return 0;
    bool empty = !(p->flags & F_CHUNKED) && p->content_length == 0;
    if (streams(rx, p->status_code, empty)) {
        /* Stop at the head's end, so that the caller learns where it is
         * (parser_feed: HTTP_RX_HEAD). */
        rx->streaming = 1;
        http_parser_pause(p, 1);
    }
    return rx->head || p->status_code == 204 || p->status_code == 304 ? 1 : 0;
}

static int on_body(http_parser *p, const char *at, size_t len)
{
    struct http_rx *rx = p->data;
    rx->body_len += len;
    if (rx->streaming)
        rx->sink(rx, at, len);
    return 0;
}

static int on_message_complete(http_parser *p)
{
    struct http_rx *rx = p->data;
    if (p->status_code / 100 == 1 && p->status_code != 101)
        return 0; /* interim response: the final one follows */
    rx->status = (uint16_t)p->status_code;
    rx->status_known = 1;
    rx->chunked = (p->flags & F_CHUNKED) != 0;
    rx->keepalive = (uint8_t)http_should_keep_alive(p);
    rx->done = 1;
    /* Stop here so the caller learns where this response ended. */
    http_parser_pause(p, 1);
    return 0;
}

static const http_parser_settings settings = {
    .on_headers_complete = on_headers_complete,
    .on_body = on_body, /* only counts: the bytes are not kept */
    .on_message_complete = on_message_complete,
};

/* With a sink (http_rx_stream): the fields too, for a Content-Type of
 * text/event-stream. */
static const http_parser_settings stream_settings = {
    .on_header_field = on_header_field,
    .on_header_value = on_header_value,
    .on_headers_complete = on_headers_complete,
    .on_body = on_body, /* counts, and streams the body */
    .on_message_complete = on_message_complete,
};

enum { RX_FRESH, RX_BODY, RX_PARSER };

/* The parser is set up only when a response needs it: most never do. */
static void start_parser(struct http_rx *rx)
{
    http_parser *p = (http_parser *)rx->opaque;
    http_parser_init(p, HTTP_RESPONSE);
    p->data = rx;
    rx->mode = RX_PARSER;
}

void http_rx_init(struct http_rx *rx, bool head)
{
    rx->body_left = 0;
    rx->body_len = 0;
    rx->status = 0;
    rx->head = head;
    rx->keepalive = 0;
    rx->done = 0;
    rx->eof = 0;
    rx->chunked = 0;
    rx->status_known = 0;
    rx->event_stream = 0;
    rx->streaming = 0;
    rx->stream_asked = 0;
    rx->ct_name = 0;
    rx->ct_value = 0;
    rx->sink = NULL;
    rx->mode = RX_FRESH;
}

void http_rx_init_parser_only(struct http_rx *rx, bool head)
{
    http_rx_init(rx, head);
    start_parser(rx);
}

/* Where http-parser would reject a byte, the fast path hands over instead,
 * so that both paths give the same answer however the input is split.
 * Token characters (RFC 9110) of header names: */
enum { OTHER_TCHAR = 1, NAME_CHAR = 2 }; /* NAME_CHAR: the usual ones */
static const uint8_t tchar[256] = {
    ['0' ... '9'] = NAME_CHAR, ['a' ... 'z'] = NAME_CHAR, ['A' ... 'Z'] = NAME_CHAR, ['-'] = NAME_CHAR,
    ['!'] = OTHER_TCHAR, ['#'] = OTHER_TCHAR, ['$'] = OTHER_TCHAR, ['%'] = OTHER_TCHAR,
    ['&'] = OTHER_TCHAR, ['\''] = OTHER_TCHAR, ['*'] = OTHER_TCHAR, ['+'] = OTHER_TCHAR,
    ['.'] = OTHER_TCHAR, ['^'] = OTHER_TCHAR, ['_'] = OTHER_TCHAR, ['`'] = OTHER_TCHAR,
    ['|'] = OTHER_TCHAR, ['~'] = OTHER_TCHAR,
};

static bool text_byte_ok(unsigned char ch)
{
    return (ch >= 32 || ch == '\t') && ch != 127;
}

/* Line text as http-parser accepts it: no control characters but TAB, no
 * DEL (bytes above 0x7f are allowed). Checked a block at a time (16 bytes
 * with SSE2, else 8 in a word); a block is looked at byte by byte only when
 * it holds a suspect byte. The last partial block is read whole when
 * buf_end allows, its extra bytes ignored. This runs over every header
 * byte of every response, so it is the fast path's main cost. */
static bool line_text_ok(const char *s, size_t n, const char *buf_end)
{
#ifdef __SSE2__
    const __m128i flip = _mm_set1_epi8((char)0x80), below = _mm_set1_epi8((char)(0x20 ^ 0x80)),
                  del = _mm_set1_epi8(0x7f);
    for (size_t i = 0; i < n; i += 16) {
        size_t left = n - i;
        unsigned bad;
        if (left >= 16 || s + i + 16 <= buf_end) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            /* unsigned v < 0x20, as a signed compare of v ^ 0x80 */
            __m128i m = _mm_or_si128(_mm_cmplt_epi8(_mm_xor_si128(v, flip), below), _mm_cmpeq_epi8(v, del));
            bad = (unsigned)_mm_movemask_epi8(m);
            if (left < 16)
                bad &= (1u << left) - 1;
        } else {
            bad = 1; /* near the end of the buffer: bytewise */
        }
        if (bad)
            for (size_t k = i; k < n && k < i + 16; k++)
                if (!text_byte_ok((unsigned char)s[k]))
                    return false;
    }
    return true;
#else
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = 'A' * ones, del;
        memcpy(&w, s + i, n - i < 8 ? n - i : 8);
        del = w ^ (0x7f * ones);
        if (((((w - 0x20 * ones) & ~w) | ((del - ones) & ~del)) & highs))
            for (size_t k = i; k < n && k < i + 8; k++)
                if (!text_byte_ok((unsigned char)s[k]))
                    return false;
    }
    (void)buf_end;
    return true;
#endif
}

/* The first byte at or after p that is not a letter, digit or '-' (the
 * usual characters of header names); the line's CR stops it at the latest,
 * and it never reads at or past end. */
static const char *skip_name_chars(const char *p, const char *end)
{
#ifdef __SSE2__
    const __m128i fold = _mm_set1_epi8(0x20), a = _mm_set1_epi8('a' - 1), z = _mm_set1_epi8('z' + 1),
                  d0 = _mm_set1_epi8('0' - 1), d9 = _mm_set1_epi8('9' + 1), dash = _mm_set1_epi8('-');
    while (p + 16 <= end) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i low = _mm_or_si128(v, fold);
        /* Signed compares: bytes above 0x7f are negative and match nothing. */
        __m128i ok = _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi8(low, a), _mm_cmplt_epi8(low, z)),
                                  _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi8(v, d0), _mm_cmplt_epi8(v, d9)),
                                               _mm_cmpeq_epi8(v, dash)));
        unsigned stop = ~(unsigned)_mm_movemask_epi8(ok) & 0xffff;
        if (stop)
            return p + __builtin_ctz(stop);
        p += 16;
    }
#endif
    while (p < end && tchar[(unsigned char)*p] == NAME_CHAR)
        p++;
    return p;
}

/* name (n bytes) equals lower (ln bytes of lowercase letters and '-'),
 * ignoring ASCII case; a word at a time, as names are compared per line. */
static bool name_is(const char *name, size_t n, const char *lower, size_t ln)
{
    if (n != ln)
        return false;
    if (n < 8) {
        for (size_t i = 0; i < n; i++)
            if ((name[i] | 0x20) != lower[i])
                return false;
        return true;
    }
    const uint64_t fold = 0x2020202020202020u;
    for (size_t i = 0;; i += 8) {
        if (i + 8 > n)
            i = n - 8; /* the last word overlaps the one before */
        uint64_t a, b;
        memcpy(&a, name + i, 8);
        memcpy(&b, lower + i, 8);
        if ((a | fold) != b)
            return false;
        if (i + 8 == n)
            return true;
    }
}

/* The fast path's reading of a response head: the whole head must be in
 * buf. Returns the head's length, or 0 to hand the response to http-parser
 * (which then also reports any error). Accepts only what it fully
 * understands: HTTP/1.0 or 1.1, a final status, CRLF line ends, exactly one
 * Content-Length (unless the status or HEAD means no body), no
 * Transfer-Encoding, and a Connection header of just close or keep-alive.
 * Nothing is stored in rx unless the whole head is accepted. */
static size_t fast_head(struct http_rx *rx, const char *buf, size_t len, uint64_t *body)
{
    if (len < 16 || memcmp(buf, "HTTP/1.", 7) != 0 || (buf[7] != '0' && buf[7] != '1') || buf[8] != ' ')
        return 0;
    unsigned status = 0;
    for (int i = 9; i < 12; i++) {
        if (buf[i] < '0' || buf[i] > '9')
            return 0;
        status = status * 10 + (unsigned)(buf[i] - '0');
    }
    if (status < 200 || (buf[12] != ' ' && buf[12] != '\r'))
        return 0;
    if (len > HTTP_MAX_HEADER_SIZE)
        len = HTTP_MAX_HEADER_SIZE; /* a longer head is http-parser's error to report */
    const char *end = buf + len;
    const char *eol = memchr(buf, '\n', len);
    if (!eol || eol[-1] != '\r' || !line_text_ok(buf + 12, (size_t)(eol - 1 - (buf + 12)), end))
        return 0;
    bool http11 = buf[7] == '1', conn_close = false, conn_keep = false, have_length = false, event_stream = false;
    uint64_t length = 0;
    for (const char *q = eol + 1;; q = eol + 1) {
        eol = memchr(q, '\n', (size_t)(end - q));
        if (!eol)
            return 0; /* the head continues in a later read */
        if (eol == q || eol[-1] != '\r')
            return 0;
        if (eol == q + 1)
            break; /* the empty line: end of the head */
        if (!line_text_ok(q, (size_t)(eol - 1 - q), end))
            return 0;
        const char *colon = q;
        for (;;) {
            colon = skip_name_chars(colon, end);
            if (*colon == ':' || !tchar[(unsigned char)*colon])
                break;
            colon++; /* a rarer token character, such as '_' or '.' */
        }
        if (colon == q || *colon != ':')
            return 0; /* also obsolete line folding, which starts with SP or TAB */
        size_t n = (size_t)(colon - q);
        if (n != 14 && n != 17 && n != 10 && n != CT_NAME_LEN)
            continue; /* not a header that framing (or streaming) depends on */
        const char *v = colon + 1, *ve = eol - 1;
        while (v < ve && (*v == ' ' || *v == '\t'))
            v++;
        while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
            ve--;
        size_t vn = (size_t)(ve - v);
        /* http-parser takes only spaces after a Content-Length or a
         * Connection token; a trailing TAB there is its call. */
        bool tab_after = memchr(ve, '\t', (size_t)(eol - 1 - ve)) != NULL;
        if (name_is(q, n, "content-length", 14)) {
            if (have_length || vn == 0 || vn > 18 || tab_after)
                return 0;
            for (size_t i = 0; i < vn; i++) {
                if (v[i] < '0' || v[i] > '9')
                    return 0;
                length = length * 10 + (uint64_t)(v[i] - '0');
            }
            have_length = true;
        } else if (name_is(q, n, "transfer-encoding", 17)) {
            return 0;
        } else if (name_is(q, n, ct_name_text, CT_NAME_LEN)) {
            /* text/event-stream, alone or with parameters */
            event_stream |= vn >= CT_TYPE_LEN && name_is(v, CT_TYPE_LEN, ct_type, CT_TYPE_LEN) &&
                            (vn == CT_TYPE_LEN || v[CT_TYPE_LEN] == ';' || v[CT_TYPE_LEN] == ' ' ||
                             v[CT_TYPE_LEN] == '\t');
        } else if (name_is(q, n, "connection", 10)) {
            if (tab_after)
                return 0;
            if (name_is(v, vn, "close", 5))
                conn_close = true;
            else if (name_is(v, vn, "keep-alive", 10))
                conn_keep = true;
            else
                return 0;
        }
    }
    bool no_body = rx->head || status == 204 || status == 304;
    if (!have_length && !no_body)
        return 0; /* chunked or read-until-close: http-parser's job */
    *body = no_body ? 0 : length;
    rx->status = (uint16_t)status;
    rx->event_stream = event_stream;
    /* As http_should_keep_alive: 1.1 unless close, 1.0 only with keep-alive. */
    rx->keepalive = http11 ? !conn_close : conn_keep;
    return (size_t)(eol + 1 - buf);
}

static enum http_rx_result parser_feed(struct http_rx *rx, const char *buf, size_t len, size_t *used)
{
    http_parser *p = (http_parser *)rx->opaque;
    const http_parser_settings *set = rx->sink ? &stream_settings : &settings;
    bool before = rx->streaming;
    size_t n = http_parser_execute(p, set, buf, len);
    if (rx->streaming && !before) {
        /* Paused in on_headers_complete, on the LF that ends the head: the
         * parser takes that byte again once resumed, so it is given it
         * alone now (no body byte can come of it), and the head ends
         * after it. */
        http_parser_pause(p, 0);
        if (n < len && http_parser_execute(p, set, buf + n, 1) == 1 && HTTP_PARSER_ERRNO(p) == HPE_OK) {
            *used = n + 1;
            return HTTP_RX_HEAD;
        }
        return HTTP_RX_ERROR;
    }
    if (rx->done) {
        http_parser_pause(p, 0);
        *used = n;
        return HTTP_RX_DONE;
    }
    if (HTTP_PARSER_ERRNO(p) != HPE_OK)
        return HTTP_RX_ERROR;
    if (len == 0) {
        rx->eof = 1;
        return HTTP_RX_ERROR;
    }
    *used = n;
    return HTTP_RX_MORE;
}

/* Counts body bytes of a fast-path response; consumed counts what came
 * before them in this buffer. */
static enum http_rx_result body_feed(struct http_rx *rx, size_t consumed, size_t len, size_t *used)
{
    if (len >= rx->body_left) {
        *used = consumed + (size_t)rx->body_left;
        rx->body_left = 0;
        rx->done = 1;
        return HTTP_RX_DONE;
    }
    rx->body_left -= len;
    *used = consumed + len;
    return HTTP_RX_MORE;
}

/* The last head the fast path accepted, per thread. A server under load
 * sends the same head again and again (until its Date changes), so a head
 * equal byte for byte to the last one gets the same reading without being
 * checked again: one memcmp instead of a scan. */
#define HEAD_CACHE_MAX 512
struct head_cache {
    uint32_t len; /* 0: empty */
    uint16_t status;
    uint8_t head;
    uint8_t keepalive;
    uint8_t event_stream;
    uint64_t body;
    char bytes[HEAD_CACHE_MAX];
};
static __thread struct head_cache last_head;

static size_t cached_head(struct http_rx *rx, const char *buf, size_t len, uint64_t *body)
{
    const struct head_cache *h = &last_head;
    if (h->len == 0 || len < h->len || h->head != rx->head || memcmp(buf, h->bytes, h->len) != 0)
        return 0;
    rx->status = h->status;
    rx->keepalive = h->keepalive;
    rx->event_stream = h->event_stream;
    *body = h->body;
    return h->len;
}

static void remember_head(const struct http_rx *rx, const char *buf, size_t head, uint64_t body)
{
    struct head_cache *h = &last_head;
    if (head > HEAD_CACHE_MAX)
        return;
    memcpy(h->bytes, buf, head);
    h->len = (uint32_t)head;
    h->status = rx->status;
    h->head = rx->head;
    h->keepalive = rx->keepalive;
    h->event_stream = rx->event_stream;
    h->body = body;
}

enum http_rx_result http_rx_feed(struct http_rx *rx, const char *buf, size_t len, size_t *used)
{
    switch (rx->mode) {
    case RX_FRESH: {
        uint64_t body;
        size_t head = cached_head(rx, buf, len, &body);
        if (head == 0 && len > 0 && (head = fast_head(rx, buf, len, &body)) > 0)
            remember_head(rx, buf, head, body);
        if (head == 0) {
            start_parser(rx);
            return parser_feed(rx, buf, len, used);
        }
        rx->mode = RX_BODY;
        rx->status_known = 1;
        rx->body_left = body;
        rx->body_len = body;
        if (streams(rx, rx->status, body == 0)) {
            rx->streaming = 1;
            *used = head;
            return HTTP_RX_HEAD;
        }
        return body_feed(rx, head, len - head, used);
    }
    case RX_BODY:
        if (len == 0) {
            rx->eof = 1;
            return HTTP_RX_ERROR;
        }
        if (rx->streaming) /* its head came alone (HTTP_RX_HEAD): the body goes on from buf */
            rx->sink(rx, buf, len < rx->body_left ? len : (size_t)rx->body_left);
        return body_feed(rx, 0, len, used);
    default:
        return parser_feed(rx, buf, len, used);
    }
}

const char *http_rx_error(const struct http_rx *rx)
{
    const http_parser *p = (const http_parser *)rx->opaque;
    if (rx->eof)
        return "connection closed before the response was complete";
    if (rx->mode != RX_PARSER)
        return "no error";
    return http_errno_description(HTTP_PARSER_ERRNO(p));
}

const char *http_rx_cut_reason(const struct http_rx *rx, char *buf, size_t n)
{
    const http_parser *p = (const http_parser *)rx->opaque;
    if (rx->mode == RX_FRESH) /* the fast path hands a partial head to the parser */
        snprintf(buf, n, "closed before the response");
    else if (!rx->status_known)
        snprintf(buf, n, "closed in the head");
    else if (rx->mode == RX_BODY) /* body_len: the Content-Length, body_left: what did not come */
        snprintf(buf, n, "body cut short at %llu of %llu bytes", (unsigned long long)(rx->body_len - rx->body_left),
                 (unsigned long long)rx->body_len);
    else if (p->flags & F_CHUNKED)
        snprintf(buf, n, "body cut short at %llu bytes (chunked)", (unsigned long long)rx->body_len);
    else /* http-parser counts its content_length down as the body comes */
        snprintf(buf, n, "body cut short at %llu of %llu bytes", (unsigned long long)rx->body_len,
                 (unsigned long long)(rx->body_len + p->content_length));
    return buf;
}

/* Pipelined request strings are framed by http-parser in request mode, as
 * a server frames them. It is stopped after each request and started afresh
 * for the next: after a request that asks to close (Connection: close,
 * HTTP/1.0) it would refuse to read on, and a server reads no further
 * either, but the requests behind it were still sent and are counted (they
 * fail when the server closes). */
static int count_request(http_parser *p)
{
    ++*(unsigned *)p->data;
    http_parser_pause(p, 1);
    return 0;
}

static const http_parser_settings request_settings = {
    .on_message_complete = count_request,
};

/* The common string, one request without a body, costs a few memchr calls
 * here instead of http-parser's byte-by-byte walk (some 6 times slower on a
 * typical 70-byte request, and this runs per request() call). It is
 * provably the parser's answer: http-parser completes a request only after
 * the empty line that ends its head, and it enters the state that takes an
 * empty line only just after a line's LF (a CR ends a line only before an
 * LF: elsewhere non-strict http-parser takes any byte after a CR as the LF,
 * hence no bare CR here). So when the first LF followed by LF or CR LF ends
 * exactly at the end of the string, no request completes before the end,
 * at most one completes at all, and the count is 1 whether the string is
 * valid or not (a Content-Length or chunked body would have no bytes: cut
 * short, it counts as 1 too). The unit test and tests/fuzz compare this
 * with http_count_requests_parser_only. */
static bool one_request_at_most(const char *buf, size_t len)
{
    const char *end = buf + len;
    if (http_head_end(buf, end) != end)
        return false;
    for (const char *cr = memchr(buf, '\r', len); cr; cr = memchr(cr + 1, '\r', (size_t)(end - cr - 1)))
        if (cr + 1 == end || cr[1] != '\n')
            return false;
    return true;
}

static unsigned count_requests(const char *buf, size_t len)
{
    http_parser p;
    unsigned n = 0;
    for (size_t off = 0; off < len;) {
        unsigned before = n;
        http_parser_init(&p, HTTP_REQUEST);
        p.data = &n;
        off += http_parser_execute(&p, &request_settings, buf + off, len - off);
        /* No request completed: the rest is malformed or cut short. After an
         * upgrade (or CONNECT) the rest is another protocol's. */
        if (n == before || p.upgrade)
            break;
    }
    return n ? n : 1;
}

unsigned http_count_requests(const char *buf, size_t len)
{
    return one_request_at_most(buf, len) ? 1 : count_requests(buf, len);
}

unsigned http_count_requests_parser_only(const char *buf, size_t len)
{
    return count_requests(buf, len);
}

char *http_library_version(char *buf, size_t len)
{
    unsigned long v = http_parser_version();
    snprintf(buf, len, "http-parser %lu.%lu.%lu", (v >> 16) & 255, (v >> 8) & 255, v & 255);
    return buf;
}
