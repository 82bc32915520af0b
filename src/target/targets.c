/* --targets: the file read whole, taken line by line into targets, and
 * each target encoded once (see targets.h). A line that cannot be used is
 * one error naming the file, the line and what is wrong; nothing is kept
 * from a file with an error. */
#include "targets.h"

#include "field.h"
#include "names.h"
#include "quote.h"
#include "target.h"
#include "xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The target being read: from its request line to a blank line, its
 * @path line, the next request line or the end of the file. */
struct current {
    bool open;          /* a request line was read and the target is not encoded yet */
    bool body_read;     /* its @path line was read: nothing but a new target may follow */
    unsigned line;      /* its request line */
    struct target url;
    char *method;
    char **headers;     /* its own header lines (owned) */
    size_t nheaders, cap;
    char *body;         /* its @path file (owned); NULL: the default body */
    size_t body_len;
    char *body_path;
};

/* The targets' names in an open-addressed table, so that a million
 * targets are named in one pass: a power of two over twice NAMES_MAX. */
#define NAME_SLOTS 2048

struct parse {
    const char *name;   /* the file, as messages name it */
    const struct http_request_spec *dflt;
    struct target origin; /* the URL argument's, else the first target's */
    bool have_origin;
    unsigned origin_line; /* 0: the URL argument's */
    struct current cur;
    struct targets out;
    uint32_t cap;
    size_t bytes;       /* of the requests encoded so far */
    uint32_t slot[NAME_SLOTS]; /* out.names' index + 1 of a name hashed there; 0: free */
    uint32_t names_cap;
    int64_t other;      /* out.names' index of TARGETS_OTHER; -1: none yet */
    char *err;
    size_t errlen;
};

/* err = "--targets NAME:LINE: " (no LINE when 0) and the message. */
static __attribute__((format(printf, 3, 4))) int fail(struct parse *ps, unsigned line, const char *fmt, ...)
{
    char name[256];
    quote_printable(name, sizeof name, ps->name);
    int n = line ? snprintf(ps->err, ps->errlen, "--targets %s:%u: ", name, line)
                 : snprintf(ps->err, ps->errlen, "--targets %s: ", name);
    if (n >= 0 && (size_t)n < ps->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Reads f to its end into a new buffer. Returns 0; 1 when it holds more
 * than max bytes; -1 with errno when it cannot be read. */
static int read_all(FILE *f, size_t max, char **data, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n == cap) {
            cap = cap > max / 2 ? max + 1 : cap * 2;
            buf = xrealloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n > max) {
            free(buf);
            return 1;
        }
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno ? errno : EIO;
        free(buf);
        errno = e;
        return -1;
    }
    *data = buf;
    *len = n;
    return 0;
}

/* "scheme://host[:port]": the Host header's form, the scheme's own port
 * unsaid. */
static const char *origin_string(const struct target *t, char *buf, size_t len)
{
    char host[256];
    snprintf(buf, len, "%s://%s", t->scheme, quote_printable(host, sizeof host, t->host_header));
    return buf;
}

static bool same_origin(const struct target *a, const struct target *b)
{
    return strcmp(a->scheme, b->scheme) == 0 && strcasecmp(a->host, b->host) == 0 && a->port == b->port;
}

/* "scheme://" begins s (a scheme is a letter, then letters, digits, +, -
 * and .): a URL, whether or not volley takes its scheme. */
static bool looks_like_url(const char *s)
{
    size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.");
    return n > 0 && isalpha((unsigned char)s[0]) && strncmp(s + n, "://", 3) == 0;
}

/* The URL of a request line, a URL alone or a word (the method), blanks
 * and a URL; else NULL. A first word with a colon is a header's name
 * ("Referer: http://..."). */
static const char *request_url(const char *s)
{
    if (looks_like_url(s))
        return s;
    size_t w = strcspn(s, " \t");
    if (!s[w] || memchr(s, ':', w))
        return NULL;
    const char *u = s + w + strspn(s + w, " \t");
    return looks_like_url(u) ? u : NULL;
}

static void current_free(struct current *c)
{
    target_free(&c->url);
    free(c->method);
    for (size_t i = 0; i < c->nheaders; i++)
        free(c->headers[i]);
    free(c->headers);
    free(c->body);
    free(c->body_path);
    memset(c, 0, sizeof *c);
}

/* Checks the headers a target sends against the body it sends. */
static int check_framing(struct parse *ps, const struct current *c, const char *const *hs, size_t n,
                         const char *body, size_t len)
{
    char q[256], src[300];
    for (size_t i = 0; i < n; i++) {
        const char *v;
        switch (field_framing(hs[i], body != NULL, len, false, &v)) {
        case FIELD_FRAMING_OK:
            continue;
        case FIELD_FRAMING_CHUNKED:
            return fail(ps, c->line, "\"%s\": volley sends a body with Content-Length, never chunked",
                        quote_printable(q, sizeof q, hs[i]));
        case FIELD_FRAMING_NOT_LENGTH:
            return fail(ps, c->line, "Content-Length: \"%s\" is not a length", quote_printable(q, sizeof q, v));
        case FIELD_FRAMING_DISAGREES:
            if (c->body_path)
                snprintf(src, sizeof src, "from @%s", c->body_path);
            else
                snprintf(src, sizeof src, "from -b or --body-file");
            return fail(ps, c->line, "Content-Length: %s disagrees with the body's length (%zu bytes %s)",
                        quote_printable(q, sizeof q, v), len, src);
        case FIELD_FRAMING_NO_BODY:
            return fail(ps, c->line, "Content-Length: %s but the target has no body; only 0 is allowed",
                        quote_printable(q, sizeof q, v));
        }
    }
    return 0;
}

/* The index in ps->out.names of "METHOD path", added at its first use;
 * past NAMES_MAX - 1 names, TARGETS_OTHER's. */
static uint32_t name_of(struct parse *ps, const char *method, const char *path)
{
    size_t lm = strlen(method), lp = strlen(path);
    char *label = xmalloc(lm + lp + 2);
    memcpy(label, method, lm);
    label[lm] = ' ';
    memcpy(label + lm + 1, path, lp + 1);
    uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a */
    for (const char *p = label; *p; p++)
        h = (h ^ (unsigned char)*p) * UINT64_C(1099511628211);
    size_t i = (size_t)h & (NAME_SLOTS - 1);
    for (; ps->slot[i]; i = (i + 1) & (NAME_SLOTS - 1)) {
        if (strcmp(ps->out.names[ps->slot[i] - 1], label) == 0) {
            free(label);
            return ps->slot[i] - 1;
        }
    }
    if (ps->out.nnames >= NAMES_MAX - 1) {
        free(label);
        if (ps->other >= 0)
            return (uint32_t)ps->other;
        label = xstrdup(TARGETS_OTHER);
        ps->other = ps->out.nnames;
    } else {
        ps->slot[i] = ps->out.nnames + 1;
    }
    if (ps->out.nnames == ps->names_cap) {
        ps->names_cap = (uint32_t)xgrow(ps->names_cap, ps->out.nnames + 1, 16);
        ps->out.names = xrealloc(ps->out.names, ps->names_cap * sizeof *ps->out.names);
    }
    ps->out.names[ps->out.nnames] = label;
    return ps->out.nnames++;
}

/* The target read so far, if any, encoded and added. */
static int end_target(struct parse *ps)
{
    struct current *c = &ps->cur;
    if (!c->open)
        return 0;
    const struct http_request_spec *d = ps->dflt;
    /* -H's headers first, each unless the target has its own of that name. */
    const char **hs = xcalloc(d->nheaders + c->nheaders + 1, sizeof *hs);
    size_t n = 0;
    for (size_t i = 0; i < d->nheaders; i++) {
        size_t k = 0;
        while (k < c->nheaders && !field_same_name(d->headers[i], c->headers[k]))
            k++;
        if (k == c->nheaders)
            hs[n++] = d->headers[i];
    }
    for (size_t i = 0; i < c->nheaders; i++)
        hs[n++] = c->headers[i];
    const char *body = c->body_path ? c->body : d->body;
    size_t body_len = c->body_path ? c->body_len : d->body_len;
    if (check_framing(ps, c, hs, n, body, body_len) < 0) {
        free(hs);
        return -1;
    }
    struct http_request_spec spec = *d;
    spec.method = c->method;
    spec.path = c->url.path;
    spec.host_header = c->url.host_header;
    spec.headers = hs;
    spec.nheaders = n;
    spec.body = body;
    spec.body_len = body_len;
    size_t len;
    char *req = http_request_encode(&spec, &len);
    free(hs);
    if (len > TARGETS_BYTES_MAX - ps->bytes) {
        free(req);
        return fail(ps, c->line, "the requests come to more than %zu MiB (the limit for all targets together)",
                    TARGETS_BYTES_MAX >> 20);
    }
    ps->bytes += len;
    if (ps->out.n == ps->cap) {
        ps->cap = (uint32_t)xgrow(ps->cap, ps->out.n + 1, 64);
        ps->out.reqs = xrealloc(ps->out.reqs, ps->cap * sizeof *ps->out.reqs);
        ps->out.name = xrealloc(ps->out.name, ps->cap * sizeof *ps->out.name);
    }
    ps->out.name[ps->out.n] = name_of(ps, c->method, c->url.path);
    ps->out.reqs[ps->out.n++] = (struct http_req){req, len};
    current_free(c);
    return 0;
}

/* A request line (s: the line, url: where its URL begins in it) begins a
 * target. */
static int begin_target(struct parse *ps, unsigned no, char *s, const char *url)
{
    struct current *c = &ps->cur;
    char q[256], msg[512];
    if (ps->out.n == TARGETS_MAX)
        return fail(ps, no, "more than %d targets", TARGETS_MAX);
    if (url != s) {
        size_t w = strcspn(s, " \t");
        s[w] = '\0';
        if (!field_is_token(s, w))
            return fail(ps, no, "\"%s\" is not a method name", quote_printable(q, sizeof q, s));
    }
    if (target_parse(&c->url, url, msg, sizeof msg) < 0)
        return fail(ps, no, "%s", msg);
    c->open = true;
    c->line = no;
    c->method = xstrdup(url != s ? s : ps->dflt->method);
    if (!ps->have_origin) {
        target_parse(&ps->origin, url, msg, sizeof msg);
        ps->have_origin = true;
        ps->origin_line = no;
    } else if (!same_origin(&ps->origin, &c->url)) {
        char o[300];
        origin_string(&ps->origin, o, sizeof o);
        quote_printable(q, sizeof q, url);
        if (!ps->origin_line)
            return fail(ps, no, "%s: not the origin of the URL given (%s); one origin per run", q, o);
        return fail(ps, no, "%s: a second origin (the first, line %u: %s); one origin per run", q, ps->origin_line, o);
    }
    return 0;
}

/* An @path line: the target's body, read from path. */
static int read_body(struct parse *ps, unsigned no, const char *path)
{
    struct current *c = &ps->cur;
    char q[256];
    path += strspn(path, " \t");
    if (!*path)
        return fail(ps, no, "\"@\" names no body file (@path)");
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(ps, no, "@%s: %s", quote_printable(q, sizeof q, path), strerror(errno));
    int rc = read_all(f, TARGETS_BODY_MAX, &c->body, &c->body_len);
    int e = errno;
    fclose(f);
    if (rc > 0)
        return fail(ps, no, "@%s: larger than %zu MiB (the limit for a body file)", quote_printable(q, sizeof q, path),
                    TARGETS_BODY_MAX >> 20);
    if (rc < 0)
        return fail(ps, no, "@%s: %s", quote_printable(q, sizeof q, path), strerror(e));
    c->body_path = xstrdup(path);
    c->body_read = true;
    return 0;
}

/* One line of the file, raw[0..n) without its line end; s: room for
 * TARGETS_LINE_MAX + 1 bytes. */
static int one_line(struct parse *ps, unsigned no, const char *raw, size_t n, char *s)
{
    struct current *c = &ps->cur;
    char q[256];
    if (n > TARGETS_LINE_MAX)
        return fail(ps, no, "a line longer than %d bytes", TARGETS_LINE_MAX);
    if (memchr(raw, '\0', n))
        return fail(ps, no, "a NUL byte in the line");
    while (n && (raw[0] == ' ' || raw[0] == '\t'))
        raw++, n--;
    while (n && (raw[n - 1] == ' ' || raw[n - 1] == '\t'))
        n--;
    memcpy(s, raw, n);
    s[n] = '\0';
    quote_printable(q, sizeof q, s);
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
            return fail(ps, no, "\"%s\" %s", q, FIELD_CONTROL);
    if (n == 0)
        return end_target(ps);
    if (s[0] == '#')
        return 0;
    const char *url = request_url(s);
    if (url) {
        if (end_target(ps) < 0)
            return -1;
        return begin_target(ps, no, s, url);
    }
    if (!c->open)
        return fail(ps, no, "expected \"METHOD URL\" or a URL, found \"%s\"", q);
    if (c->body_read)
        return fail(ps, no, "\"%s\": after the target's @path line, which ends it (a blank line or \"METHOD URL\" "
                    "begins the next)", q);
    if (s[0] == '@')
        return read_body(ps, no, s + 1);
    if (field_check_header(s))
        return fail(ps, no, "expected a header ('Name: value'), an @path body line or \"METHOD URL\", found \"%s\"", q);
    if (c->nheaders == c->cap) {
        c->cap = xgrow(c->cap, c->nheaders + 1, 8);
        c->headers = xrealloc(c->headers, c->cap * sizeof *c->headers);
    }
    c->headers[c->nheaders++] = xstrdup(s);
    return 0;
}

int targets_parse(struct targets *tg, const char *name, const char *text, size_t len, const char *url,
                  const struct http_request_spec *dflt, char *err, size_t errlen)
{
    struct parse ps = {.name = name, .dflt = dflt, .other = -1, .err = err, .errlen = errlen};
    memset(tg, 0, sizeof *tg);
    if (url) {
        if (target_parse(&ps.origin, url, err, errlen) < 0)
            return -1;
        ps.have_origin = true;
    }
    char *s = xmalloc(TARGETS_LINE_MAX + 1);
    const char *p = text, *end = text + len;
    unsigned no = 0;
    int rc = 0;
    while (p < end && rc == 0) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        const char *next = nl ? nl + 1 : end;
        if (e > p && e[-1] == '\r')
            e--;
        rc = one_line(&ps, ++no, p, (size_t)(e - p), s);
        p = next;
    }
    free(s);
    if (rc == 0)
        rc = end_target(&ps);
    if (rc == 0 && ps.out.n == 0)
        rc = fail(&ps, 0, "no targets (the file is empty, or holds only blank lines and comments)");
    if (rc == 0) {
        char o[300];
        ps.out.origin = xstrdup(origin_string(&ps.origin, o, sizeof o));
        *tg = ps.out;
    } else {
        targets_free(&ps.out);
    }
    current_free(&ps.cur);
    target_free(&ps.origin);
    return rc;
}

const char *targets_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "stdin" : path;
}

int targets_load(struct targets *tg, const char *path, const char *url, const struct http_request_spec *dflt,
                 char *err, size_t errlen)
{
    char q[256];
    bool in = strcmp(path, "-") == 0;
    memset(tg, 0, sizeof *tg);
    FILE *f = in ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "--targets %s: %s", quote_printable(q, sizeof q, path), strerror(errno));
        return -1;
    }
    char *text;
    size_t len;
    int rc = read_all(f, TARGETS_FILE_MAX, &text, &len);
    int e = errno;
    if (!in)
        fclose(f);
    if (rc > 0) {
        snprintf(err, errlen, "--targets %s: larger than %zu MiB (the limit for a targets file)",
                 quote_printable(q, sizeof q, targets_name(path)), TARGETS_FILE_MAX >> 20);
        return -1;
    }
    if (rc < 0) {
        snprintf(err, errlen, "--targets %s: %s", quote_printable(q, sizeof q, targets_name(path)), strerror(e));
        return -1;
    }
    rc = targets_parse(tg, targets_name(path), text, len, url, dflt, err, errlen);
    free(text);
    return rc;
}

void targets_via_proxy(struct targets *tg, const char *origin, const char *auth)
{
    for (uint32_t i = 0; i < tg->n; i++) {
        size_t len;
        char *abs = http_request_absolute(tg->reqs[i].bytes, tg->reqs[i].len, origin, auth, &len);
        free((void *)tg->reqs[i].bytes);
        tg->reqs[i] = (struct http_req){abs, len};
    }
}

void targets_free(struct targets *tg)
{
    for (uint32_t i = 0; i < tg->n; i++)
        free((char *)tg->reqs[i].bytes);
    free(tg->reqs);
    free(tg->name);
    for (uint32_t i = 0; i < tg->nnames; i++)
        free(tg->names[i]);
    free(tg->names);
    free(tg->origin);
    memset(tg, 0, sizeof *tg);
}
