/* JSON checked and searched in place (json_find.h): one pass over the
 * bytes, with the open containers kept in a bit stack instead of a
 * recursion, so that a hostile nesting costs no C stack. */
#include "json_find.h"

#include "utf8.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct scan {
    const char *p;
    size_t n, i;
};

static void skip_ws(struct scan *s)
{
    while (s->i < s->n) {
        char c = s->p[s->i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return;
        s->i++;
    }
}

static bool hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A string at s->i (its opening quote); false at the first wrong byte. */
static bool check_string(struct scan *s)
{
    s->i++;
    while (s->i < s->n) {
        unsigned char c = (unsigned char)s->p[s->i];
        if (c == '"') {
            s->i++;
            return true;
        }
        if (c < 0x20)
            return false;
        if (c == '\\') {
            if (s->i + 1 >= s->n)
                return false;
            char e = s->p[s->i + 1];
            if (e == 'u') {
                if (s->i + 6 > s->n || !hex(s->p[s->i + 2]) || !hex(s->p[s->i + 3]) || !hex(s->p[s->i + 4]) ||
                    !hex(s->p[s->i + 5]))
                    return false;
                s->i += 6;
            } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
                s->i += 2;
            } else {
                return false;
            }
        } else if (c < 0x80) {
            s->i++;
        } else {
            uint32_t cp;
            size_t k = utf8_decode(s->p + s->i, s->n - s->i, &cp);
            if (k == 0)
                return false;
            s->i += k;
        }
    }
    return false;
}

static bool digit(const struct scan *s)
{
    return s->i < s->n && s->p[s->i] >= '0' && s->p[s->i] <= '9';
}

/* A number at s->i: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static bool check_number(struct scan *s)
{
    if (s->p[s->i] == '-')
        s->i++;
    if (!digit(s))
        return false;
    if (s->p[s->i] == '0')
        s->i++;
    else
        while (digit(s))
            s->i++;
    if (s->i < s->n && s->p[s->i] == '.') {
        s->i++;
        if (!digit(s))
            return false;
        while (digit(s))
            s->i++;
    }
    if (s->i < s->n && (s->p[s->i] == 'e' || s->p[s->i] == 'E')) {
        s->i++;
        if (s->i < s->n && (s->p[s->i] == '+' || s->p[s->i] == '-'))
            s->i++;
        if (!digit(s))
            return false;
        while (digit(s))
            s->i++;
    }
    return true;
}

static bool word(struct scan *s, const char *w, size_t n)
{
    if (s->n - s->i < n || memcmp(s->p + s->i, w, n) != 0)
        return false;
    s->i += n;
    return true;
}

/* The scalar or opening bracket at s->i: its type, 0 when wrong. */
static int check_start(struct scan *s)
{
    if (s->i >= s->n)
        return JSON_FIND_NONE;
    switch (s->p[s->i]) {
    case '{':
        s->i++;
        return JSON_FIND_OBJECT;
    case '[':
        s->i++;
        return JSON_FIND_ARRAY;
    case '"':
        return check_string(s) ? JSON_FIND_STRING : JSON_FIND_NONE;
    case 't':
        return word(s, "true", 4) ? JSON_FIND_TRUE : JSON_FIND_NONE;
    case 'f':
        return word(s, "false", 5) ? JSON_FIND_FALSE : JSON_FIND_NONE;
    case 'n':
        return word(s, "null", 4) ? JSON_FIND_NULL : JSON_FIND_NONE;
    default:
        return check_number(s) ? JSON_FIND_NUMBER : JSON_FIND_NONE;
    }
}

/* An object member's key and its colon at s->i, checked; s->i is left at
 * the value after them. false with s->i at the wrong byte. */
static bool member_key(struct scan *s)
{
    if (s->i >= s->n || s->p[s->i] != '"' || !check_string(s))
        return false;
    skip_ws(s);
    if (s->i >= s->n || s->p[s->i] != ':')
        return false;
    s->i++;
    skip_ws(s);
    return true;
}

/* The value at s->i, checked, at most max_depth containers deep; s->i is
 * left past it. Its type, or JSON_FIND_NONE with s->i at the wrong byte. */
static int check_value(struct scan *s, int max_depth)
{
    uint8_t open[JSON_FIND_MAX_DEPTH / 8]; /* bit set: an object at that depth */
    int depth = 0, top = JSON_FIND_NONE;
    /* Each turn reads one value (or closes containers), then what follows it. */
    for (;;) {
        int t = check_start(s);
        if (t == JSON_FIND_NONE)
            return JSON_FIND_NONE;
        if (top == JSON_FIND_NONE)
            top = t;
        if (t == JSON_FIND_OBJECT || t == JSON_FIND_ARRAY) {
            if (depth == max_depth) {
                s->i--; /* the bracket one too deep is the wrong byte */
                return JSON_FIND_NONE;
            }
            if (t == JSON_FIND_OBJECT)
                open[depth / 8] |= (uint8_t)(1u << (depth % 8));
            else
                open[depth / 8] &= (uint8_t)~(1u << (depth % 8));
            depth++;
            skip_ws(s);
            char close = t == JSON_FIND_OBJECT ? '}' : ']';
            if (s->i < s->n && s->p[s->i] == close) {
                s->i++;
                depth--;
            } else {
                if (t == JSON_FIND_OBJECT && !member_key(s))
                    return JSON_FIND_NONE;
                continue; /* the container's first value */
            }
        }
        /* After a value: a comma (then the next member or element), or
         * the containers that end here. */
        for (;;) {
            if (depth == 0)
                return top;
            skip_ws(s);
            bool object = open[(depth - 1) / 8] & (1u << ((depth - 1) % 8));
            if (s->i < s->n && s->p[s->i] == (object ? '}' : ']')) {
                s->i++;
                depth--;
                continue;
            }
            if (s->i >= s->n || s->p[s->i] != ',')
                return JSON_FIND_NONE;
            s->i++;
            skip_ws(s);
            if (object && !member_key(s))
                return JSON_FIND_NONE;
            break;
        }
    }
}

int json_valid(const char *text, size_t len, size_t *at)
{
    struct scan s = {text, len, 0};
    skip_ws(&s);
    int t = check_value(&s, JSON_FIND_MAX_DEPTH);
    if (t != JSON_FIND_NONE) {
        skip_ws(&s);
        if (s.i == s.n)
            return t;
    }
    if (at)
        *at = s.i < s.n ? s.i : s.n;
    return JSON_FIND_NONE;
}

/* Past the string at s->i (its opening quote), in checked text; never
 * past the text's end on any other. */
static void skip_string(struct scan *s)
{
    s->i++;
    while (s->i < s->n && s->p[s->i] != '"')
        s->i += s->p[s->i] == '\\' && s->i + 1 < s->n ? 2 : 1;
    if (s->i < s->n)
        s->i++;
}

static bool ends_scalar(char c)
{
    return c == ',' || c == ':' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Past the value at s->i, in checked text. */
static void skip_value(struct scan *s)
{
    size_t depth = 0;
    do {
        if (s->i >= s->n)
            return;
        char c = s->p[s->i];
        if (c == '"') {
            skip_string(s);
        } else if (c == '{' || c == '[') {
            depth++;
            s->i++;
        } else if (c == '}' || c == ']') {
            depth--;
            s->i++;
        } else if (depth > 0 && (c == ',' || c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
            s->i++;
        } else {
            /* A scalar: up to the byte that ends it. */
            while (s->i < s->n && !ends_scalar(s->p[s->i]))
                s->i++;
        }
    } while (depth > 0);
}

static int type_at(const struct scan *s)
{
    switch (s->p[s->i]) {
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

/* Into the member key[0..klen) of the object at s->i; false if none. */
static bool enter_member(struct scan *s, const char *key, size_t klen)
{
    s->i++; /* { */
    for (;;) {
        skip_ws(s);
        if (s->i >= s->n || s->p[s->i] != '"')
            return false; /* } */
        size_t k = s->i + 1;
        skip_string(s);
        bool match = s->i - 1 - k == klen && memcmp(s->p + k, key, klen) == 0;
        skip_ws(s);
        s->i++; /* : */
        skip_ws(s);
        if (match)
            return true;
        skip_value(s);
        skip_ws(s);
        if (s->i >= s->n || s->p[s->i] != ',')
            return false;
        s->i++;
    }
}

/* Into element idx of the array at s->i; false if none. */
static bool enter_element(struct scan *s, size_t idx)
{
    s->i++; /* [ */
    skip_ws(s);
    if (s->i >= s->n || s->p[s->i] == ']')
        return false;
    for (size_t k = 0; k < idx; k++) {
        skip_value(s);
        skip_ws(s);
        if (s->i >= s->n || s->p[s->i] != ',')
            return false;
        s->i++;
        skip_ws(s);
    }
    return true;
}

int json_find(const char *text, size_t len, const char *path, size_t path_len, size_t *off, size_t *vlen)
{
    struct scan s = {text, len, 0};
    skip_ws(&s);
    size_t at = 0;
    while (at < path_len) {
        const char *dot = memchr(path + at, '.', path_len - at);
        size_t end = dot ? (size_t)(dot - path) : path_len;
        if (s.i >= s.n)
            return JSON_FIND_NONE;
        int t = type_at(&s);
        if (t == JSON_FIND_OBJECT) {
            if (!enter_member(&s, path + at, end - at))
                return JSON_FIND_NONE;
        } else if (t == JSON_FIND_ARRAY) {
            size_t idx = 0;
            if (end == at)
                return JSON_FIND_NONE;
            for (size_t k = at; k < end; k++) {
                if (path[k] < '0' || path[k] > '9' || idx > SIZE_MAX / 10 - 1)
                    return JSON_FIND_NONE;
                idx = idx * 10 + (size_t)(path[k] - '0');
            }
            if (!enter_element(&s, idx))
                return JSON_FIND_NONE;
        } else {
            return JSON_FIND_NONE;
        }
        at = dot ? end + 1 : end;
    }
    if (s.i >= s.n)
        return JSON_FIND_NONE;
    int t = type_at(&s);
    size_t start = s.i;
    skip_value(&s);
    *off = start;
    *vlen = s.i - start;
    return t;
}

/* One path of json_scan: its first member name and the rest. */
struct scan_path {
    const char *head, *rest;
    size_t len, head_len, rest_len; /* len: the whole path's */
    size_t at, end; /* the first member's value named head: its bytes; end 0: none */
};

int json_scan(const char *text, size_t len, const char *paths, size_t paths_len, int *types, size_t *spans,
              size_t *at)
{
    struct scan_path ps[JSON_FIND_MAX_PATHS];
    size_t np = 0, i = 0;
    while (i < paths_len && np < JSON_FIND_MAX_PATHS) {
        const char *end = memchr(paths + i, '\0', paths_len - i);
        size_t n = end ? (size_t)(end - (paths + i)) : paths_len - i;
        const char *dot = memchr(paths + i, '.', n);
        struct scan_path *p = &ps[np];
        p->head = paths + i;
        p->len = n;
        p->head_len = dot ? (size_t)(dot - p->head) : n;
        p->rest = dot ? dot + 1 : paths + i + n;
        p->rest_len = dot ? n - p->head_len - 1 : 0;
        p->at = p->end = 0;
        types[np] = JSON_FIND_NONE;
        spans[2 * np] = spans[2 * np + 1] = 0;
        np++;
        i += n + 1;
    }
    struct scan s = {text, len, 0};
    skip_ws(&s);
    if (s.i >= s.n || s.p[s.i] != '{') {
        int top = json_valid(text, len, at);
        for (size_t k = 0; top != JSON_FIND_NONE && k < np; k++)
            types[k] = json_find(text, len, ps[k].head, ps[k].len, &spans[2 * k], &spans[2 * k + 1]);
        return top;
    }
    /* An object: checked member by member (as json_valid would, one level
     * less deep inside), each path's first name noted on the way. */
    s.i++;
    skip_ws(&s);
    if (s.i < s.n && s.p[s.i] == '}') {
        s.i++;
    } else {
        for (;;) {
            if (s.i >= s.n || s.p[s.i] != '"')
                goto wrong;
            size_t key = s.i + 1;
            if (!check_string(&s))
                goto wrong;
            size_t key_len = s.i - 1 - key;
            skip_ws(&s);
            if (s.i >= s.n || s.p[s.i] != ':')
                goto wrong;
            s.i++;
            skip_ws(&s);
            size_t v = s.i;
            if (check_value(&s, JSON_FIND_MAX_DEPTH - 1) == JSON_FIND_NONE)
                goto wrong;
            for (size_t k = 0; k < np; k++)
                if (ps[k].end == 0 && ps[k].head_len == key_len && memcmp(text + key, ps[k].head, key_len) == 0) {
                    ps[k].at = v;
                    ps[k].end = s.i;
                }
            skip_ws(&s);
            if (s.i < s.n && s.p[s.i] == ',') {
                s.i++;
                skip_ws(&s);
                continue;
            }
            if (s.i < s.n && s.p[s.i] == '}') {
                s.i++;
                break;
            }
            goto wrong;
        }
    }
    skip_ws(&s);
    if (s.i != s.n)
        goto wrong;
    /* Each path found: inside its member's value (an empty path is the
     * whole object). */
    for (size_t k = 0; k < np; k++) {
        if (ps[k].len == 0) {
            types[k] = json_find(text, len, "", 0, &spans[2 * k], &spans[2 * k + 1]);
            continue;
        }
        if (ps[k].end == 0)
            continue;
        size_t off = 0, n = ps[k].end - ps[k].at;
        types[k] = json_find(text + ps[k].at, n, ps[k].rest, ps[k].rest_len, &off, &spans[2 * k + 1]);
        spans[2 * k] = ps[k].at + off;
        if (types[k] == JSON_FIND_NONE)
            spans[2 * k] = spans[2 * k + 1] = 0;
    }
    return JSON_FIND_OBJECT;
wrong:
    if (at)
        *at = s.i < s.n ? s.i : s.n;
    return JSON_FIND_NONE;
}
