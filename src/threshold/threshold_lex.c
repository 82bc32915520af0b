/* The pieces every part of the threshold grammar reads with (threshold.c's
 * figures, threshold_value.c's operator, value and tail, threshold_flow.c's
 * flow figures, threshold_figure.c's names): the parser's error line,
 * words, numbers, quoted strings, names and a histogram's statistics. */
#include "threshold_internal.h"

#include "quote.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const threshold_hist_names[THRESHOLD_HISTS] = {"latency", "service", "connect", "waiting"};

/* err = `--threshold "EXPR": ` (the word's option) and the message,
 * control characters escaped (quote.h) so that it stays one line. Returns
 * -1. */
int threshold_fail(struct threshold_parser *ps, const char *fmt, ...)
{
    char raw[1024];
    int n = snprintf(raw, sizeof raw, "%s \"%s\": ", threshold_word_option(ps->th->word), ps->expr);
    if (n >= 0 && (size_t)n < sizeof raw) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw + n, sizeof raw - (size_t)n, fmt, ap);
        va_end(ap);
    }
    quote_printable(ps->err, ps->errlen, raw);
    return -1;
}

void threshold_skip_space(struct threshold_parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

/* The next blank-delimited word: its start, and its length in *n. */
const char *threshold_next_word(struct threshold_parser *ps, size_t *n)
{
    threshold_skip_space(ps);
    const char *w = ps->p;
    while (*ps->p && !isspace((unsigned char)*ps->p))
        ps->p++;
    *n = (size_t)(ps->p - w);
    return w;
}

bool threshold_is_word(const char *w, size_t n, const char *s)
{
    return n == strlen(s) && memcmp(w, s, n) == 0;
}

/* A plain decimal number at s ("12", "0.5", "-3" when sign): its value,
 * and where it ends in *end. Returns 0, or -1 if s does not start with
 * one. */
int threshold_parse_number(const char *s, bool sign, double *v, const char **end)
{
    const char *p = s;
    if (sign && *p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return -1;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == '.' && isdigit((unsigned char)p[1]))
        for (p++; isdigit((unsigned char)*p); p++)
            ;
    *v = strtod(s, NULL);
    *end = p;
    return 0;
}

int threshold_parse_stat(const char *s, struct threshold *th)
{
    static const struct {
        const char *name;
        enum threshold_stat stat;
    } named[] = {{"mean", THRESHOLD_MEAN}, {"min", THRESHOLD_MIN}, {"max", THRESHOLD_MAX},
                 {"stdev", THRESHOLD_STDEV}, {"count", THRESHOLD_COUNT}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strcmp(s, named[i].name) == 0) {
            th->stat = named[i].stat;
            return 0;
        }
    if (s[0] != 'p')
        return -1;
    bool paren = s[1] == '(';
    const char *end;
    if (threshold_parse_number(s + 1 + paren, false, &th->pct, &end) < 0 || (paren && *end++ != ')') || *end)
        return -1;
    th->stat = THRESHOLD_PCT;
    return 0;
}

/* A quoted string at s ("..." with \" and \\): a new copy of its text,
 * and where it ends (after the closing quote) in *end; NULL if s is not
 * one. The figure's lexer has already found the closing quote. */
char *threshold_unquote(const char *s, const char **end)
{
    if (*s != '"')
        return NULL;
    char *out = xmalloc(strlen(s)), *o = out;
    for (s++; *s && *s != '"'; s++) {
        if (*s == '\\' && s[1])
            s++;
        *o++ = *s;
    }
    if (*s != '"') {
        free(out);
        return NULL;
    }
    *o = '\0';
    *end = s + 1;
    return out;
}

bool threshold_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-';
}

int threshold_say(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return -1;
}

bool threshold_family(const char *fig, const char *name)
{
    size_t n = strlen(name);
    return strncmp(fig, name, n) == 0 && (fig[n] == '\0' || fig[n] == '.');
}

int threshold_hist_stat(struct threshold *th, const char *rest, const char *shown, const char *what, char *why,
                        size_t len)
{
    if (rest[0] != '.' || threshold_parse_stat(rest + 1, th) < 0)
        return threshold_say(why, len, "unknown figure \"%s\" (%s takes " THRESHOLD_STATS ")", shown, what);
    if (th->stat == THRESHOLD_PCT && th->pct > 100)
        return threshold_say(why, len, "%s: a percentile is 0..100", shown);
    th->kind = th->stat == THRESHOLD_COUNT ? THRESHOLD_NUM : THRESHOLD_TIME;
    return 0;
}
