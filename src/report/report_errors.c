/* What the failed and non-2xx responses said: the report's line on a run
 * whose every response had one 4xx/5xx status (the first body's beginning
 * and the hint it implies), --show-errors' list on stderr, and the JSON's
 * "error_samples". The bytes are the server's: always escaped, bounded. */
#include "report_internal.h"

#include "json_out.h"
#include "quote.h"

#include <inttypes.h>
#include <string.h>
#include <strings.h>

#define FIRST_BODY_SHOWN 160 /* body bytes of the report's first error body */
#define SHOWN_BODY 512       /* body bytes of each --show-errors entry */

/* Writes n bytes at p escaped as quote.h says (a NUL as \x00), at most max
 * of them, then "..." when there were more. */
static void write_escaped(FILE *out, const char *p, size_t n, size_t max)
{
    size_t k = n < max ? n : max;
    char chunk[256];
    for (size_t i = 0; i < k;) {
        if (p[i] == '\0') {
            fputs("\\x00", out);
            i++;
            continue;
        }
        size_t j = 0;
        while (i < k && p[i] != '\0' && j < sizeof chunk - 1)
            chunk[j++] = p[i++];
        chunk[j] = '\0';
        quote_write(out, chunk);
    }
    if (n > max)
        fputs("...", out);
}

/* Whether needle occurs in the n bytes at p, ignoring ASCII case. */
static bool has_words(const char *p, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (strncasecmp(p + i, needle, k) == 0)
            return true;
    return false;
}

/* The hint a response's status and body imply, or NULL. */
static const char *hint(unsigned status, const char *body, size_t n)
{
    if (has_words(body, n, "plain HTTP request was sent to HTTPS port") ||
        has_words(body, n, "speaking plain HTTP to an SSL-enabled server port"))
        return "plain HTTP reached a TLS port: use https:// in the URL";
    switch (status) {
    case 401:
        return "the server wants credentials: send them with -H 'Authorization: ...'";
    case 403:
        return "the server refuses this client or these credentials";
    case 404:
        return "the server has nothing at this path: check the URL's path";
    case 405:
        return "the server does not take this method here: check -m";
    case 413:
        return "the request body is too large for the server: check -b";
    case 415:
        return "the server does not take this body's type: set -H 'Content-Type: ...'";
    case 429:
        return "the server is limiting the rate: lower -R or -c";
    case 500:
        return "the server failed on the request: its log should say why";
    case 502:
    case 504:
        return "a proxy could not get an answer from the server behind it";
    case 503:
        return "the server is unavailable or overloaded";
    }
    return NULL;
}

void report_first_error_text(FILE *out, const struct stats *s)
{
    unsigned only = 0;
    for (unsigned i = 0; i < STATS_STATUS_MAX; i++) {
        if (!s->status[i])
            continue;
        if (only || i < 400)
            return; /* two statuses, or one that is no error */
        only = i;
    }
    const struct errsample *e = NULL;
    for (size_t i = 0; i < s->shown.n && !e; i++)
        if (s->shown.s[i].kind < 0 && s->shown.s[i].status == only)
            e = &s->shown.s[i];
    if (!only || !e)
        return;
    size_t head = errsample_head_len(e);
    fprintf(out, "  Every response was %u; the first one's body began: \"", only);
    write_escaped(out, e->bytes + head, e->len - head, FIRST_BODY_SHOWN);
    fputs("\"\n", out);
    const char *h = hint(only, e->bytes + head, e->len - head);
    if (h)
        fprintf(out, "  Hint: %s\n", h);
}

/* The status line's end (its CRLF or LF) in a sample's head of hn bytes,
 * from p. */
static size_t line_end(const char *b, size_t p, size_t hn)
{
    while (p < hn && b[p] != '\n')
        p++;
    return p;
}

/* Calls fn for each line of e's head (status line first), without its
 * line end, until the blank line. */
static void head_lines(const struct errsample *e, void (*fn)(void *arg, const char *p, size_t n, bool first),
                       void *arg)
{
    size_t hn = errsample_head_len(e);
    for (size_t p = 0, first = 1; p < hn; first = 0) {
        size_t q = line_end(e->bytes, p, hn);
        size_t n = q - p;
        if (n && e->bytes[p + n - 1] == '\r')
            n--;
        if (n == 0)
            break;
        fn(arg, e->bytes + p, n, first);
        p = q + 1;
    }
}

static void text_line(void *arg, const char *p, size_t n, bool first)
{
    FILE *out = arg;
    (void)first;
    fputs("     ", out);
    write_escaped(out, p, n, 1000);
    fputc('\n', out);
}

void report_show_errors(FILE *err, const struct options *o, const struct stats *s)
{
    if (!o->show_errors)
        return;
    if (s->shown.n == 0) {
        fputs("volley: --show-errors: no request failed and every response was 2xx\n", err);
        return;
    }
    if (s->shown.n == 1)
        fprintf(err, "volley: the first failed or non-2xx response (--show-errors %" PRIu64 "):\n", o->show_errors);
    else
        fprintf(err, "volley: the first %zu failed or non-2xx responses (--show-errors %" PRIu64 "):\n", s->shown.n,
                o->show_errors);
    for (size_t i = 0; i < s->shown.n; i++) {
        const struct errsample *e = &s->shown.s[i];
        fprintf(err, "  %zu.", i + 1);
        if (e->kind >= 0) {
            fprintf(err, " failed (%s)", stats_error_name((enum stats_error)e->kind));
            if (e->reason[0]) {
                fputs(": ", err);
                quote_write(err, e->reason);
            }
            fputc('\n', err);
            continue;
        }
        fprintf(err, " status %u\n", e->status);
        head_lines(e, text_line, err);
        size_t head = errsample_head_len(e);
        fputs("     body: \"", err);
        write_escaped(err, e->bytes + head, e->len - head, SHOWN_BODY);
        fputs(e->len == ERRSAMPLE_BYTES ? "\" (its beginning)\n" : "\"\n", err);
    }
}

struct json_lines {
    FILE *out;
    int n;
};

static void json_line(void *arg, const char *p, size_t n, bool first)
{
    struct json_lines *j = arg;
    if (first) {
        fputs("\"status_line\": ", j->out);
        json_out_strn(j->out, p, n);
        fputs(", \"headers\": [", j->out);
        return;
    }
    fputs(j->n++ ? ", " : "", j->out);
    json_out_strn(j->out, p, n);
}

void report_errors_json(FILE *out, const struct stats *s)
{
    fputs("  \"error_samples\": [", out);
    for (size_t i = 0; i < s->shown.n; i++) {
        const struct errsample *e = &s->shown.s[i];
        fputs(i ? ",\n    {" : "\n    {", out);
        if (e->kind >= 0) {
            fprintf(out, "\"status\": null, \"failed\": \"%s\", \"reason\": ", stats_error_name((enum stats_error)e->kind));
            if (e->reason[0])
                json_out_str(out, e->reason);
            else
                fputs("null", out);
            fputs("}", out);
            continue;
        }
        fprintf(out, "\"status\": %u, \"failed\": null, ", e->status);
        struct json_lines j = {out, 0};
        size_t head = errsample_head_len(e);
        head_lines(e, json_line, &j); /* a kept response starts "HTTP/1.": its status line is there */
        fputs("], \"body\": ", out);
        json_out_strn(out, e->bytes + head, e->len - head);
        fprintf(out, ", \"cut\": %s}", e->len == ERRSAMPLE_BYTES ? "true" : "false");
    }
    fputs(s->shown.n ? "\n  ],\n" : "],\n", out);
}
