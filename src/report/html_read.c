/* Field reading (html_read.h): the first error is kept and names the
 * field; every later read does nothing. */
#include "html_read.h"

#include "hdr_codec.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

void html_rd_fail(struct html_rd *rd, const char *path, const char *key, const char *fmt, ...)
{
    if (rd->failed)
        return;
    rd->failed = true;
    char what[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (rd->errlen > 0)
        snprintf(rd->err, rd->errlen, "%s%s%s: %s", path, key && *path ? "." : "", key ? key : "", what);
}

const struct json *html_rd_of(struct html_rd *rd, const struct json *obj, const char *path, const char *key,
                              enum json_type type, bool required)
{
    static const char *const names[] = {"null", "true or false", "a number", "a string", "an array", "an object"};
    if (rd->failed)
        return NULL;
    const struct json *v = json_in_get(obj, key);
    if (!v || v->type == JSON_NULL) {
        if (required)
            html_rd_fail(rd, path, key, "%s (expected %s)", v ? "null" : "missing", names[type]);
        return NULL;
    }
    if (v->type != type) {
        html_rd_fail(rd, path, key, "expected %s, found %s", names[type], json_in_type_name(v));
        return NULL;
    }
    return v;
}

double html_rd_num(struct html_rd *rd, const struct json *obj, const char *path, const char *key, bool required)
{
    const struct json *v = html_rd_of(rd, obj, path, key, JSON_NUMBER, required);
    return v ? v->num : NAN;
}

double html_rd_count(struct html_rd *rd, const struct json *obj, const char *path, const char *key)
{
    double v = html_rd_num(rd, obj, path, key, false);
    if (isnan(v))
        return 0;
    if (v < 0 || v > HTML_COUNT_MAX || v != floor(v)) {
        html_rd_fail(rd, path, key, "expected a count (a whole number from 0), found %.17g", v);
        return 0;
    }
    return v;
}

uint64_t html_rd_add(struct html_rd *rd, const char *path, const char *key, uint64_t *sum, double v)
{
    if (rd->failed)
        return 0;
    /* both at most HTML_COUNT_MAX: their sum is far below 2^64 */
    uint64_t n = (uint64_t)v;
    if ((double)(*sum + n) > HTML_COUNT_MAX) {
        html_rd_fail(rd, path, key, "%llu, added to the %llu before it, is more than %.0f, the most a result "
                     "counts: not a real result", (unsigned long long)n, (unsigned long long)*sum, HTML_COUNT_MAX);
        return 0;
    }
    *sum += n;
    return n;
}

uint64_t html_rd_add_count(struct html_rd *rd, const struct json *obj, const char *path, const char *key,
                           uint64_t *sum)
{
    return html_rd_add(rd, path, key, sum, html_rd_count(rd, obj, path, key));
}

double html_rd_span(struct html_rd *rd, const struct json *p, const char *path, double interval)
{
    double span = html_rd_num(rd, p, path, "span", false);
    if (!isnan(span) && !(span > 0 && span <= interval)) {
        html_rd_fail(rd, path, "span", "expected seconds above 0, at most the interval (%.17g)", interval);
        return NAN;
    }
    return span;
}

bool html_rd_hist(struct html_rd *rd, const struct json *obj, const char *path, struct hist *h)
{
    size_t len;
    const char *b64 = html_rd_str(rd, obj, path, "hdr", true, &len);
    if (!b64)
        return false;
    char err[256];
    if (hdr_decode(b64, len, h, err, sizeof err) < 0) {
        html_rd_fail(rd, path, "hdr", "%s", err);
        return false;
    }
    return true;
}

const char *html_rd_str(struct html_rd *rd, const struct json *obj, const char *path, const char *key,
                        bool required, size_t *len)
{
    const struct json *v = html_rd_of(rd, obj, path, key, JSON_STRING, required);
    if (len)
        *len = v ? v->len : 0;
    return v ? v->s : NULL;
}
