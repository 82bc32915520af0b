/* JSON checked and searched in place (json_find.h): one pass over the
 * bytes, with the open containers kept in a bit stack instead of a
 * recursion, so that a hostile nesting costs no C stack (json_scan
 * recurses only as deep as its paths' names lead it). */
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

/* The bytes a string's plain run stops at: '"', '\\', control
 * characters and the bytes of UTF-8 sequences (0x80 and up). */
#define X16 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
#define O16 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
static const uint8_t string_stop[256] = {
    X16, X16,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x20: '"' */
    O16, O16,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* 0x50: '\\' */
    O16, O16,
    X16, X16, X16, X16, X16, X16, X16, X16,
};
#undef X16
#undef O16

/* A string at s->i (its opening quote); false at the first wrong byte. */
static bool check_string(struct scan *s)
{
    s->i++;
    while (s->i < s->n) {
        /* A run of printable ASCII other than '"' and '\\' (most of a
         * string), in locals. */
        const char *p = s->p;
        size_t i = s->i, n = s->n;
        while (i < n && !string_stop[(unsigned char)p[i]])
            i++;
        s->i = i;
        if (i >= n)
            break;
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
 * the value after them, and the key's text (without its quotes, as
 * written) is s->p[*key, *key + *key_len). false with s->i at the wrong
 * byte. */
static bool member_key(struct scan *s, size_t *key, size_t *key_len)
{
    if (s->i >= s->n || s->p[s->i] != '"')
        return false;
    *key = s->i + 1;
    if (!check_string(s))
        return false;
    *key_len = s->i - 1 - *key;
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
    size_t key, key_len; /* member_key's: not needed here */
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
                if (t == JSON_FIND_OBJECT && !member_key(s, &key, &key_len))
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
            if (object && !member_key(s, &key, &key_len))
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

/* One path of json_scan, followed during its pass: at is where the
 * path's next member name or index begins, as in json_find (nothing is
 * left when at reaches len), n that name's length and next where the one
 * after it begins. */
struct scan_path {
    const char *p;
    size_t len, at, n, next;
};

/* What json_scan fills: each path's type and span. */
struct scan_out {
    struct scan_path *ps;
    int *types;
    size_t *spans;
};

/* Path sp at its name or index from at: n and next found (once per
 * name, not once per member it is compared with). */
static void path_at(struct scan_path *sp, size_t at)
{
    size_t end = at;
    while (end < sp->len && sp->p[end] != '.') /* names are short: no memchr call */
        end++;
    sp->at = at;
    sp->n = end - at;
    sp->next = end < sp->len ? end + 1 : end;
}

static int scan_value(struct scan *s, int max_depth, struct scan_out *o, uint32_t live);

/* After a member or an element: past the comma and the whitespace after
 * it (1), past the closing bracket (0), or -1 at anything else. */
static int next_item(struct scan *s, char close)
{
    skip_ws(s);
    if (s->i < s->n && s->p[s->i] == ',') {
        s->i++;
        skip_ws(s);
        return 1;
    }
    if (s->i < s->n && s->p[s->i] == close) {
        s->i++;
        return 0;
    }
    return -1;
}

/* The object at s->i, checked as check_value checks it; each path of
 * deeper whose next name is a member's key (as written) goes into the
 * first such member, as json_find goes. */
static int scan_object(struct scan *s, int max_depth, struct scan_out *o, uint32_t deeper)
{
    s->i++; /* { */
    skip_ws(s);
    if (s->i < s->n && s->p[s->i] == '}') {
        s->i++;
        return JSON_FIND_OBJECT;
    }
    for (;;) {
        size_t key, key_len;
        if (!member_key(s, &key, &key_len))
            return JSON_FIND_NONE;
        uint32_t into = 0;
        for (uint32_t left = deeper; left; left &= left - 1) {
            struct scan_path *sp = &o->ps[__builtin_ctz(left)];
            if (sp->n == key_len && (key_len == 0 || (sp->p[sp->at] == s->p[key] &&
                                                      memcmp(sp->p + sp->at, s->p + key, key_len) == 0))) {
                path_at(sp, sp->next);
                into |= left & -left;
            }
        }
        deeper &= ~into;
        if ((into ? scan_value(s, max_depth - 1, o, into) : check_value(s, max_depth - 1)) == JSON_FIND_NONE)
            return JSON_FIND_NONE;
        int more = next_item(s, '}');
        if (more < 0)
            return JSON_FIND_NONE;
        if (more == 0)
            return JSON_FIND_OBJECT;
    }
}

/* The array at s->i, checked; each path of deeper whose next part is an
 * index (digits) goes into that element. */
static int scan_array(struct scan *s, int max_depth, struct scan_out *o, uint32_t deeper)
{
    size_t idx[JSON_FIND_MAX_PATHS];
    for (uint32_t left = deeper; left; left &= left - 1) {
        int k = __builtin_ctz(left);
        struct scan_path *sp = &o->ps[k];
        idx[k] = 0;
        for (size_t c = sp->at; c < sp->at + sp->n; c++) {
            if (sp->p[c] < '0' || sp->p[c] > '9' || idx[k] > SIZE_MAX / 10 - 1) {
                deeper &= ~(1u << k); /* a name, or too large: no element (json_find's rule) */
                break;
            }
            idx[k] = idx[k] * 10 + (size_t)(sp->p[c] - '0');
        }
        if (sp->n == 0)
            deeper &= ~(1u << k);
        else
            path_at(sp, sp->next);
    }
    s->i++; /* [ */
    skip_ws(s);
    if (s->i < s->n && s->p[s->i] == ']') {
        s->i++;
        return JSON_FIND_ARRAY;
    }
    for (size_t e = 0;; e++) {
        uint32_t into = 0;
        for (uint32_t left = deeper; left; left &= left - 1)
            if (idx[__builtin_ctz(left)] == e)
                into |= left & -left;
        deeper &= ~into;
        if ((into ? scan_value(s, max_depth - 1, o, into) : check_value(s, max_depth - 1)) == JSON_FIND_NONE)
            return JSON_FIND_NONE;
        int more = next_item(s, ']');
        if (more < 0)
            return JSON_FIND_NONE;
        if (more == 0)
            return JSON_FIND_ARRAY;
    }
}

/* The value at s->i, checked as check_value(s, max_depth) checks it, with
 * the paths of live that lead here: those with nothing left name it (its
 * type and span are noted), the others are followed into it. The
 * recursion goes only as deep as the paths' names lead, and at most
 * max_depth: the text's own nesting is checked by check_value's loop. */
static int scan_value(struct scan *s, int max_depth, struct scan_out *o, uint32_t live)
{
    uint32_t here = 0, deeper = 0;
    for (uint32_t left = live; left; left &= left - 1) {
        const struct scan_path *sp = &o->ps[__builtin_ctz(left)];
        if (sp->at >= sp->len)
            here |= left & -left;
        else
            deeper |= left & -left;
    }
    size_t start = s->i;
    int t;
    char c = s->i < s->n ? s->p[s->i] : 0;
    if (deeper == 0 || (c != '{' && c != '['))
        t = check_value(s, max_depth);
    else if (max_depth == 0)
        t = JSON_FIND_NONE; /* one container too deep */
    else if (c == '{')
        t = scan_object(s, max_depth, o, deeper);
    else
        t = scan_array(s, max_depth, o, deeper);
    if (t != JSON_FIND_NONE)
        for (uint32_t left = here; left; left &= left - 1) {
            int k = __builtin_ctz(left);
            o->types[k] = t;
            o->spans[2 * k] = start;
            o->spans[2 * k + 1] = s->i - start;
        }
    return t;
}

int json_scan(const char *text, size_t len, const char *paths, size_t paths_len, int *types, size_t *spans,
              size_t *at)
{
    struct scan_path ps[JSON_FIND_MAX_PATHS];
    size_t np = 0, i = 0;
    while (i < paths_len && np < JSON_FIND_MAX_PATHS) {
        const char *end = memchr(paths + i, '\0', paths_len - i);
        size_t n = end ? (size_t)(end - (paths + i)) : paths_len - i;
        ps[np] = (struct scan_path){.p = paths + i, .len = n};
        path_at(&ps[np], 0);
        types[np] = JSON_FIND_NONE;
        spans[2 * np] = spans[2 * np + 1] = 0;
        np++;
        i += n + 1;
    }
    struct scan s = {text, len, 0};
    struct scan_out o = {ps, types, spans};
    skip_ws(&s);
    int t = scan_value(&s, JSON_FIND_MAX_DEPTH, &o, np ? (uint32_t)((1ull << np) - 1) : 0);
    skip_ws(&s);
    if (t != JSON_FIND_NONE && s.i == s.n)
        return t;
    /* Not JSON: no path has a value, and json_valid names the wrong byte. */
    for (size_t k = 0; k < np; k++) {
        types[k] = JSON_FIND_NONE;
        spans[2 * k] = spans[2 * k + 1] = 0;
    }
    if (at)
        json_valid(text, len, at);
    return JSON_FIND_NONE;
}
