/* Server-sent events parsed incrementally (sse.h): lines found 16 bytes at
 * a time, fields taken as the WHATWG rules say, events handed to the
 * caller with pointers into the fed bytes when they lie whole in one feed,
 * and what outlives a feed kept in one buffer per stream, bounded by max. */
#include "sse.h"

#include "xalloc.h"

#include <assert.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

/* Where a value of the block is: nowhere yet, in the bytes of the feed
 * under way (a pointer, valid until the feed returns), or in buf. */
enum { W_NONE, W_IN, W_BUF };
enum { BOM_DONE = 3 };
enum { FIRST_CAP = 256 };

static const char bom_bytes[3] = {'\xEF', '\xBB', '\xBF'};

/* buf's layout: at the bottom the last event ID, the block's data (each
 * value and its LF) and a line begun in an earlier feed, in that order; at
 * the top (its end) the block's event: and id: values, appended downwards
 * and found by their distance from the end, so that growing buf moves them
 * as one piece and replacing one moves nothing. A value replaced within the
 * block keeps its room (it is counted in kept) until the block ends, so no
 * line costs more than its own length. */
static uint32_t bottom(const struct sse *p)
{
    return p->id_len + (p->data_where == W_BUF ? p->data_len : 0) + p->line_len;
}

/* The event with more bytes (a line, or a value being kept) is within max.
 * This counts the event's bytes wherever they are (in buf or still in the
 * fed bytes), so however the stream is split the answer is the same; and
 * what buf holds is never more than it, so buf never outgrows max. */
static bool fits(const struct sse *p, size_t more)
{
    size_t held = (size_t)p->id_len + p->data_len + p->kept; /* never above max */
    return more <= p->max - held;
}

/* Room for extra more bytes between the bottom and the top of buf. The
 * caller has checked the event with fits(), which bounds what buf holds. */
static void reserve(struct sse *p, size_t extra)
{
    size_t need = (size_t)bottom(p) + p->top_len + extra;
    if (need <= p->cap)
        return;
    assert(need <= p->max && "sse: buffer needed above max; fits() was not asked");
    size_t cap = xgrow(p->cap, need, FIRST_CAP);
    if (cap > p->max)
        cap = p->max;
    char *buf = xrealloc(p->buf, cap);
    memmove(buf + cap - p->top_len, buf + p->cap - p->top_len, p->top_len);
    p->buf = buf;
    p->cap = (uint32_t)cap;
}

/* Appends n bytes below the top part (room reserved); returns their
 * distance from buf's end. */
static uint32_t put_top(struct sse *p, const char *s, uint32_t n)
{
    if (n == 0)
        return p->top_len; /* buf may still be NULL */
    p->top_len += n;
    memmove(p->buf + p->cap - p->top_len, s, n);
    return p->top_len;
}

/* The first CR or LF in s[0, n), or n. SSE2: 16 bytes a compare, the last
 * block overlapping the one before instead of a bytewise tail. */
static size_t find_eol(const char *s, size_t n)
{
#ifdef __SSE2__
    if (n >= 16) {
        const __m128i cr = _mm_set1_epi8('\r'), lf = _mm_set1_epi8('\n');
        for (size_t i = 0;; i += 16) {
            if (i + 16 > n)
                i = n - 16; /* the bytes seen twice held no line end */
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, lf)));
            if (m)
                return i + (size_t)__builtin_ctz(m);
            if (i + 16 == n)
                return n;
        }
    }
#endif
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\r' || s[i] == '\n')
            return i;
    return n;
}

/* Adds n bytes to the line kept in buf (begun in an earlier feed, or the
 * start of the stream). false: the event would outgrow max. */
static bool line_append(struct sse *p, const char *s, size_t n)
{
    if (!fits(p, (size_t)p->line_len + n))
        return false;
    if (n == 0)
        return true;
    reserve(p, n);
    memcpy(p->buf + bottom(p), s, n);
    p->line_len += (uint32_t)n;
    return true;
}

/* Before a feed returns: the block's values still in the caller's bytes
 * are copied into buf. A line kept in buf is never pending here along with
 * them (it was taken first in this feed), so the data goes right after the
 * ID. */
static void keep_inputs(struct sse *p)
{
    size_t need = (p->data_where == W_IN ? p->data_len : 0) + (p->type_where == W_IN ? p->type_len : 0) +
                  (p->pid_where == W_IN ? p->pid_len : 0);
    reserve(p, need);
    if (p->data_where == W_IN) {
        assert(p->line_len == 0);
        memcpy(p->buf + p->id_len, p->in_data, p->data_len - 1);
        p->buf[p->id_len + p->data_len - 1] = '\n';
        p->data_where = W_BUF;
    }
    if (p->type_where == W_IN) {
        p->type_at = put_top(p, p->in_type, p->type_len);
        p->type_where = W_BUF;
    }
    if (p->pid_where == W_IN) {
        p->pid_at = put_top(p, p->in_id, p->pid_len);
        p->pid_where = W_BUF;
    }
    p->in_data = p->in_type = p->in_id = NULL;
}

/* An empty value may have no room in buf (nor buf exist). */
static const char *value_of(const struct sse *p, uint8_t where, const char *in, uint32_t at, uint32_t len)
{
    if (len == 0)
        return "";
    return where == W_IN ? in : p->buf + p->cap - at;
}

/* A blank line: dispatches the block's event if it has data, then commits
 * its id: value as the last event ID and starts a new block. Returns fn's
 * answer (0 when it was not called). */
static int end_block(struct sse *p, sse_event_fn fn, void *ctx)
{
    int stop = 0;
    if (p->data_len > 0) {
        struct sse_event ev = {.type = "message", .type_len = 7, .id = "", .retry = p->retry};
        ev.data = p->data_where == W_IN ? p->in_data : p->buf + p->id_len;
        ev.data_len = p->data_len - 1;
        if (p->type_where != W_NONE && p->type_len > 0) {
            ev.type = value_of(p, p->type_where, p->in_type, p->type_at, p->type_len);
            ev.type_len = p->type_len;
        }
        if (p->pid_where != W_NONE) {
            ev.id = value_of(p, p->pid_where, p->in_id, p->pid_at, p->pid_len);
            ev.id_len = p->pid_len;
        } else if (p->id_len > 0) {
            ev.id = p->buf;
            ev.id_len = p->id_len;
        }
        p->events++;
        stop = fn(ctx, &ev);
    }
    uint8_t pid_where = p->pid_where;
    uint32_t pid_len = p->pid_len, pid_at = p->pid_at;
    const char *in_id = p->in_id;
    p->data_len = p->top_len = p->kept = 0;
    p->data_where = p->type_where = p->pid_where = W_NONE;
    p->retry = -1;
    if (pid_where != W_NONE && pid_len == 0) {
        p->id_len = 0;
    } else if (pid_where == W_BUF) {
        memmove(p->buf, p->buf + p->cap - pid_at, pid_len);
        p->id_len = pid_len;
    } else if (pid_where == W_IN) {
        p->id_len = 0;
        reserve(p, pid_len);
        memcpy(p->buf, in_id, pid_len);
        p->id_len = pid_len;
    }
    return stop;
}

/* An event: or id: value, v[0, n) in line (len bytes). A value in the
 * fed bytes is pointed at; one in a line kept in buf is copied to the top
 * part before the line's room is given back. */
static bool set_value(struct sse *p, bool type, const char *v, uint32_t n, uint32_t len, bool from_buf)
{
    if (!fits(p, (size_t)len + n))
        return false;
    p->kept += n;
    uint8_t where = W_IN;
    uint32_t at = 0;
    if (from_buf) {
        size_t off = (size_t)(v - p->buf); /* reserve may move buf */
        reserve(p, n);
        at = put_top(p, p->buf + off, n);
        where = W_BUF;
    }
    if (type) {
        p->in_type = v;
        p->type_len = n;
        p->type_at = at;
        p->type_where = where;
    } else {
        p->in_id = v;
        p->pid_len = n;
        p->pid_at = at;
        p->pid_where = where;
    }
    return true;
}

/* A data: value: the first one in the fed bytes is pointed at; others are
 * appended in buf with their LF. One from a line kept in buf moves down to
 * the data's end, where that line begins. */
static void data_line(struct sse *p, const char *v, uint32_t n, bool from_buf)
{
    if (from_buf) {
        assert(p->data_where != W_IN);
        uint32_t at = p->id_len + (p->data_where == W_BUF ? p->data_len : 0);
        memmove(p->buf + at, v, n);
        p->buf[at + n] = '\n';
        p->data_len = at - p->id_len + n + 1;
        p->data_where = W_BUF;
        return;
    }
    if (p->data_where == W_NONE) {
        p->in_data = v;
        p->data_len = n + 1;
        p->data_where = W_IN;
        return;
    }
    if (p->data_where == W_IN) {
        reserve(p, (size_t)p->data_len + n + 1);
        memcpy(p->buf + p->id_len, p->in_data, p->data_len - 1);
        p->buf[p->id_len + p->data_len - 1] = '\n';
        p->data_where = W_BUF;
    } else {
        reserve(p, (size_t)n + 1);
    }
    char *end = p->buf + p->id_len + p->data_len;
    memcpy(end, v, n);
    end[n] = '\n';
    p->data_len += n + 1;
}

/* A retry: value of ASCII digits only (at least one); a number past
 * INT64_MAX is taken as INT64_MAX. Anything else is ignored. */
static void take_retry(struct sse *p, const char *v, uint32_t n)
{
    if (n == 0)
        return;
    int64_t ms = 0;
    for (uint32_t i = 0; i < n; i++) {
        int d = v[i] - '0';
        if (d < 0 || d > 9)
            return;
        ms = ms > (INT64_MAX - d) / 10 ? INT64_MAX : ms * 10 + d;
    }
    p->retry = ms;
}

/* One line without its end, in SSE_EVENTS; from_buf: it is the line kept in
 * buf, given back here. */
static enum sse_status take_field(struct sse *p, const char *line, uint32_t len, bool from_buf)
{
    if (!fits(p, len))
        return SSE_TOO_LARGE;
    if (line[0] == ':') {
        p->comments++;
        goto done;
    }
    const char *colon = memchr(line, ':', len), *v = line + len;
    size_t name = len;
    if (colon) {
        name = (size_t)(colon - line);
        v = colon + 1;
        if (v < line + len && *v == ' ')
            v++;
    }
    uint32_t n = (uint32_t)(line + len - v);
    if (name == 4 && memcmp(line, "data", 4) == 0) {
        data_line(p, v, n, from_buf);
    } else if (name == 5 && memcmp(line, "event", 5) == 0) {
        if (!set_value(p, true, v, n, len, from_buf))
            return SSE_TOO_LARGE;
    } else if (name == 2 && line[0] == 'i' && line[1] == 'd') {
        if (!memchr(v, '\0', n) && !set_value(p, false, v, n, len, from_buf))
            return SSE_TOO_LARGE;
    } else if (name == 5 && memcmp(line, "retry", 5) == 0) {
        take_retry(p, v, n);
    }
done:
    if (from_buf)
        p->line_len = 0;
    return SSE_OK;
}

/* One line without its end, in SSE_LINES: an event unless empty. */
static enum sse_status take_record(struct sse *p, const char *line, uint32_t len, bool from_buf, sse_event_fn fn,
                                   void *ctx)
{
    if (len == 0)
        return SSE_OK;
    if (!fits(p, len))
        return SSE_TOO_LARGE;
    struct sse_event ev = {.type = "line", .type_len = 4, .data = line, .data_len = len, .id = "", .retry = -1};
    p->events++;
    int stop = fn(ctx, &ev);
    if (from_buf)
        p->line_len = 0;
    return stop ? SSE_STOPPED : SSE_OK;
}

static enum sse_status take_line(struct sse *p, const char *line, size_t len, bool from_buf, sse_event_fn fn,
                                 void *ctx)
{
    if (len > p->max)
        return SSE_TOO_LARGE; /* also keeps len within uint32_t */
    if (p->mode == SSE_LINES)
        return take_record(p, line, (uint32_t)len, from_buf, fn, ctx);
    if (len == 0)
        return end_block(p, fn, ctx) ? SSE_STOPPED : SSE_OK;
    return take_field(p, line, (uint32_t)len, from_buf);
}

/* Skips a BOM at the stream's start, which may come a byte a feed. Bytes
 * that began like one but are not are the first line's: those of earlier
 * feeds go to the kept line. Returns where parsing goes on, or NULL when
 * they outgrow max. */
static const char *skip_bom(struct sse *p, const char *s, const char *end)
{
    uint8_t had = p->bom;
    const char *q = s;
    while (q < end && p->bom < 3 && *q == bom_bytes[p->bom]) {
        q++;
        p->bom++;
    }
    if (p->bom == 3)
        return q; /* BOM_DONE */
    if (q == end)
        return q; /* a BOM so far: wait for the next bytes */
    p->bom = BOM_DONE;
    if (had && !line_append(p, bom_bytes, had))
        return NULL;
    return s;
}

static enum sse_status fail(struct sse *p, enum sse_status st)
{
    p->status = (uint8_t)st;
    return st;
}

enum sse_status sse_feed(struct sse *p, const char *bytes, size_t n, sse_event_fn fn, void *ctx)
{
    if (p->status != SSE_OK)
        return (enum sse_status)p->status;
    const char *s = bytes, *end = bytes + n;
    if (n == 0)
        return SSE_OK;
    if (p->bom != BOM_DONE) {
        s = skip_bom(p, s, end);
        if (!s)
            return fail(p, SSE_TOO_LARGE);
        if (s == end)
            return SSE_OK;
    }
    if (p->cr) {
        p->cr = 0;
        if (*s == '\n')
            s++; /* the LF of a CRLF split across feeds */
    }
    while (s < end) {
        size_t e = find_eol(s, (size_t)(end - s));
        if (s + e == end) {
            keep_inputs(p);
            if (!line_append(p, s, e))
                return fail(p, SSE_TOO_LARGE);
            return SSE_OK;
        }
        const char *line = s;
        size_t len = e;
        bool from_buf = p->line_len > 0;
        if (from_buf) {
            if (!line_append(p, s, e))
                return fail(p, SSE_TOO_LARGE);
            len = p->line_len;
            line = p->buf + bottom(p) - len;
        }
        s += e;
        if (*s++ == '\r') {
            if (s == end)
                p->cr = 1;
            else if (*s == '\n')
                s++;
        }
        enum sse_status st = take_line(p, line, len, from_buf, fn, ctx);
        if (st != SSE_OK)
            return fail(p, st); /* values left in the bytes are never looked at again */
    }
    if (p->data_where == W_IN || p->type_where == W_IN || p->pid_where == W_IN)
        keep_inputs(p);
    return SSE_OK;
}

enum sse_status sse_finish(struct sse *p, sse_event_fn fn, void *ctx, bool *dropped)
{
    bool drop = false;
    enum sse_status st = (enum sse_status)p->status;
    if (st == SSE_OK && p->bom != BOM_DONE) {
        /* A stream of the first bytes of a BOM and nothing else. */
        if (p->bom > 0 && !line_append(p, bom_bytes, p->bom))
            st = fail(p, SSE_TOO_LARGE);
        p->bom = BOM_DONE;
    }
    if (st == SSE_OK) {
        if (p->mode == SSE_LINES && p->line_len > 0) {
            st = take_record(p, p->buf, p->line_len, true, fn, ctx);
            if (st != SSE_OK)
                fail(p, st);
        } else if (p->mode == SSE_EVENTS) {
            drop = p->line_len > 0 || p->data_len > 0;
        }
    }
    p->line_len = p->data_len = p->top_len = p->kept = 0;
    p->data_where = p->type_where = p->pid_where = W_NONE;
    p->retry = -1;
    p->cr = 0;
    if (dropped)
        *dropped = drop;
    return st;
}

void sse_init(struct sse *p, enum sse_mode mode, size_t max)
{
    char *buf = p->buf;
    uint32_t cap = p->cap;
    if (max > UINT32_MAX / 2)
        max = UINT32_MAX / 2;
    if (buf && cap > max) {
        free(buf);
        buf = NULL;
        cap = 0;
    }
    memset(p, 0, sizeof *p);
    p->buf = buf;
    p->cap = cap;
    p->max = (uint32_t)max;
    p->mode = (uint8_t)mode;
    p->retry = -1;
}

void sse_free(struct sse *p)
{
    free(p->buf);
    p->buf = NULL;
    p->cap = 0;
}

uint64_t sse_comments(const struct sse *p)
{
    return p->comments;
}

uint64_t sse_events(const struct sse *p)
{
    return p->events;
}
