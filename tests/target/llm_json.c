/*
 * volley-target, the body of a /v1 request: a small recursive-descent JSON
 * reader that checks the syntax of the whole body and keeps only the fields
 * the endpoints use (top-level numbers and booleans, "model", "user",
 * stream_options.include_usage) and a word count of the prompt. Nothing is
 * allocated: strings are read in place.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm.h"

#define DEPTH_MAX 64

/* Where a value sits, which decides what is kept of it. */
enum ctx { C_OTHER, C_WORDS, C_SOPTS };

enum vtype { V_NULL, V_BOOL, V_NUM, V_STR, V_CONTAINER };

struct val {
    enum vtype type;
    double num;
    int b;
    const char *s;             /* string: raw text between the quotes */
    size_t slen;
};

struct rd {
    const char *p, *end;
    int depth;
    struct llm_req *r;
};

static int fail(struct rd *d, const char *why)
{
    if (!d->r->err[0])
        snprintf(d->r->err, sizeof d->r->err, "%s", why);
    return -1;
}

static void ws(struct rd *d)
{
    while (d->p < d->end && (*d->p == ' ' || *d->p == '\t' || *d->p == '\n' || *d->p == '\r'))
        d->p++;
}

static int is_space(unsigned c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Words of a string as its text reads once escapes are decoded (\n, \t,
 * \r, \f and \u0020-style spaces separate words, as Python's str.split). */
static unsigned long long count_words(const char *s, size_t n)
{
    unsigned long long words = 0;
    int in_word = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned char)s[i];
        if (c == '\\' && i + 1 < n) {
            char e = s[++i];
            c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'f' ? '\f' : 'x';
            if (e == 'u' && i + 4 < n) {
                c = (memcmp(s + i + 1, "0020", 4) == 0 || memcmp(s + i + 1, "0009", 4) == 0 ||
                     memcmp(s + i + 1, "000a", 4) == 0 || memcmp(s + i + 1, "000A", 4) == 0 ||
                     memcmp(s + i + 1, "000d", 4) == 0 || memcmp(s + i + 1, "000D", 4) == 0)
                    ? ' ' : 'x';
                i += 4;
            }
        }
        if (is_space(c)) {
            in_word = 0;
        } else if (!in_word) {
            in_word = 1;
            words++;
        }
    }
    return words;
}

static int string(struct rd *d, struct val *v)
{
    d->p++;                        /* the opening quote */
    const char *s = d->p;
    while (d->p < d->end && *d->p != '"') {
        unsigned char c = (unsigned char)*d->p;
        if (c < 0x20)
            return fail(d, "control character in a string");
        if (c == '\\') {
            if (++d->p >= d->end)
                break;
            if (!strchr("\"\\/bfnrtu", *d->p))
                return fail(d, "bad escape in a string");
        }
        d->p++;
    }
    if (d->p >= d->end)
        return fail(d, "unterminated string");
    v->type = V_STR;
    v->s = s;
    v->slen = (size_t)(d->p - s);
    d->p++;
    return 0;
}

static int number(struct rd *d, struct val *v)
{
    const char *s = d->p;
    if (d->p < d->end && *d->p == '-')
        d->p++;
    size_t digits = 0;
    while (d->p < d->end && ((*d->p >= '0' && *d->p <= '9') || *d->p == '.' ||
                             *d->p == 'e' || *d->p == 'E' || *d->p == '+' || *d->p == '-')) {
        digits += *d->p >= '0' && *d->p <= '9';
        d->p++;
    }
    char tmp[64];
    size_t n = (size_t)(d->p - s);
    if (digits == 0 || n >= sizeof tmp)
        return fail(d, "bad number");
    memcpy(tmp, s, n);
    tmp[n] = 0;
    char *end;
    v->num = strtod(tmp, &end);
    if (*end)
        return fail(d, "bad number");
    v->type = V_NUM;
    return 0;
}

static int literal(struct rd *d, const char *word, struct val *v, enum vtype t, int b)
{
    size_t n = strlen(word);
    if ((size_t)(d->end - d->p) < n || memcmp(d->p, word, n) != 0)
        return fail(d, "not JSON");
    d->p += n;
    v->type = t;
    v->b = b;
    return 0;
}

static int value(struct rd *d, enum ctx ctx, struct val *v);

static bool key_is(const struct val *k, const char *name)
{
    return k->slen == strlen(name) && memcmp(k->s, name, k->slen) == 0;
}

/* What a member's value is read as, inside an object read as ctx. */
static enum ctx member_ctx(enum ctx ctx, const struct val *k, int top)
{
    if (top)
        return key_is(k, "prompt") || key_is(k, "messages") ? C_WORDS
             : key_is(k, "stream_options") ? C_SOPTS : C_OTHER;
    if (ctx == C_WORDS && (key_is(k, "content") || key_is(k, "text")))
        return C_WORDS;
    return C_OTHER;
}

static void keep_top(struct rd *d, const struct val *k, const struct val *v);

/* An object; top: the body itself, whose members are kept. */
static int object(struct rd *d, enum ctx ctx, int top)
{
    d->p++;
    ws(d);
    if (d->p < d->end && *d->p == '}') {
        d->p++;
        return 0;
    }
    for (;;) {
        struct val k, v;
        ws(d);
        if (d->p >= d->end || *d->p != '"' || string(d, &k) != 0)
            return fail(d, "bad object key");
        ws(d);
        if (d->p >= d->end || *d->p != ':')
            return fail(d, "missing ':' in an object");
        d->p++;
        if (value(d, member_ctx(ctx, &k, top), &v) != 0)
            return -1;
        if (top)
            keep_top(d, &k, &v);
        else if (ctx == C_SOPTS && key_is(&k, "include_usage")) {
            if (v.type == V_BOOL)
                d->r->include_usage = v.b;
            else if (v.type != V_NULL)
                return fail(d, "stream_options.include_usage must be a boolean");
        }
        if (d->r->err[0])
            return -1;
        ws(d);
        if (d->p < d->end && *d->p == ',') {
            d->p++;
            continue;
        }
        if (d->p < d->end && *d->p == '}') {
            d->p++;
            return 0;
        }
        return fail(d, "missing ',' or '}' in an object");
    }
}

static int array(struct rd *d, enum ctx ctx)
{
    d->p++;
    ws(d);
    if (d->p < d->end && *d->p == ']') {
        d->p++;
        return 0;
    }
    for (;;) {
        struct val v;
        if (value(d, ctx == C_WORDS ? C_WORDS : C_OTHER, &v) != 0)
            return -1;
        if (ctx == C_WORDS && v.type == V_NUM)
            d->r->words++;         /* a prompt of token ids: one word each */
        ws(d);
        if (d->p < d->end && *d->p == ',') {
            d->p++;
            continue;
        }
        if (d->p < d->end && *d->p == ']') {
            d->p++;
            return 0;
        }
        return fail(d, "missing ',' or ']' in an array");
    }
}

static int value(struct rd *d, enum ctx ctx, struct val *v)
{
    ws(d);
    *v = (struct val){ .type = V_CONTAINER };
    if (d->p >= d->end)
        return fail(d, "unexpected end of the body");
    if (++d->depth > DEPTH_MAX)
        return fail(d, "nested too deeply");
    int rc;
    switch (*d->p) {
    case '{': rc = object(d, ctx, 0); break;
    case '[': rc = array(d, ctx); break;
    case '"':
        rc = string(d, v);
        if (rc == 0 && ctx == C_WORDS)
            d->r->words += count_words(v->s, v->slen);
        break;
    case 't': rc = literal(d, "true", v, V_BOOL, 1); break;
    case 'f': rc = literal(d, "false", v, V_BOOL, 0); break;
    case 'n': rc = literal(d, "null", v, V_NULL, 0); break;
    default:  rc = number(d, v); break;
    }
    d->depth--;
    return rc;
}

/* A top-level member: keep it if the endpoints use it. A known field of the
 * wrong type refuses the body (null means "not given"). */
static void keep_top(struct rd *d, const struct val *k, const struct val *v)
{
    static const struct { const char *name; size_t off; } nums[] = {
        { "max_tokens", offsetof(struct llm_req, max_tokens) },
        { "max_completion_tokens", offsetof(struct llm_req, max_tokens) },
        { "vt_first_ms", offsetof(struct llm_req, first_ms) },
        { "vt_gap_ms", offsetof(struct llm_req, gap_ms) },
        { "vt_stall_at", offsetof(struct llm_req, stall_at) },
        { "vt_stall_ms", offsetof(struct llm_req, stall_ms) },
        { "vt_error_at", offsetof(struct llm_req, error_at) },
        { "vt_cut_at", offsetof(struct llm_req, cut_at) },
        { "vt_status", offsetof(struct llm_req, status) },
        { "vt_prompt_tokens", offsetof(struct llm_req, prompt_tokens) },
        { "vt_event_bytes", offsetof(struct llm_req, event_bytes) },
    };
    static const struct { const char *name; size_t off; } bools[] = {
        { "stream", offsetof(struct llm_req, stream) },
        { "vt_nodone", offsetof(struct llm_req, nodone) },
        { "vt_silent", offsetof(struct llm_req, silent) },
        { "vt_huge", offsetof(struct llm_req, huge) },
        { "vt_comments_only", offsetof(struct llm_req, comments_only) },
        { "vt_bad_json", offsetof(struct llm_req, bad_json) },
    };
    struct llm_req *r = d->r;
    if (v->type == V_NULL)
        return;
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if (key_is(k, nums[i].name)) {
            if (v->type != V_NUM)
                snprintf(r->err, sizeof r->err, "%s must be a number", nums[i].name);
            else
                *(double *)((char *)r + nums[i].off) = v->num;
            return;
        }
    for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++)
        if (key_is(k, bools[i].name)) {
            if (v->type != V_BOOL)
                snprintf(r->err, sizeof r->err, "%s must be a boolean", bools[i].name);
            else
                *(int *)((char *)r + bools[i].off) = v->b;
            return;
        }
    if (key_is(k, "model")) {
        if (v->type != V_STR)
            snprintf(r->err, sizeof r->err, "model must be a string");
        else if (v->slen >= sizeof r->model)
            snprintf(r->err, sizeof r->err, "model is longer than %d bytes", LLM_MODEL_MAX - 1);
        else {
            memcpy(r->model, v->s, v->slen);
            r->model_len = v->slen;
            r->has_model = true;
        }
    } else if (key_is(k, "user")) {
        if (v->type != V_STR) {
            snprintf(r->err, sizeof r->err, "user must be a string");
            return;
        }
        /* One field of a log line: printable, no spaces, bounded. */
        size_t n = v->slen < LLM_ID_MAX ? v->slen : LLM_ID_MAX;
        for (size_t i = 0; i < n; i++)
            r->user[i] = v->s[i] > ' ' && v->s[i] < 127 ? v->s[i] : '?';
        r->user[n] = 0;
    } else if (key_is(k, "vt_framing")) {
        if (v->type == V_STR && key_is(v, "chunked"))
            r->framing = FR_CHUNKED;
        else if (v->type == V_STR && key_is(v, "length"))
            r->framing = FR_LENGTH;
        else if (v->type == V_STR && key_is(v, "close"))
            r->framing = FR_CLOSE;
        else
            snprintf(r->err, sizeof r->err, "vt_framing must be \"chunked\", \"length\" or \"close\"");
    }
}

int llm_json_parse(const char *p, size_t n, struct llm_req *r)
{
    *r = (struct llm_req){ .max_tokens = NAN, .first_ms = NAN, .gap_ms = NAN, .stall_at = NAN,
                           .stall_ms = NAN, .error_at = NAN, .cut_at = NAN, .status = NAN,
                           .prompt_tokens = NAN, .event_bytes = NAN, .stream = -1,
                           .include_usage = -1, .nodone = -1, .silent = -1, .huge = -1,
                           .comments_only = -1, .bad_json = -1, .framing = FR_UNSET };
    struct rd d = { p, p + n, 0, r };
    ws(&d);
    if (d.p >= d.end || *d.p != '{')
        return fail(&d, "the body is not a JSON object");
    d.depth = 1;
    if (object(&d, C_OTHER, 1) != 0)
        return -1;
    ws(&d);
    if (d.p != d.end)
        return fail(&d, "trailing bytes after the JSON object");
    return r->err[0] ? -1 : 0;
}
