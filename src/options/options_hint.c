/* Hints for a wrong command line (options_hint.h): the words a user most
 * likely meant, so that a misplaced or misspelt word is named for what it
 * is instead of the next word being blamed. */
#include "options_hint.h"

#include "nearest.h"
#include "quote.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void options_hint_long(const char *arg, const char *const *names, size_t n, char *err, size_t errlen)
{
    char name[64], q[80];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
    quote_printable(q, sizeof q, name);
    bool has_value = arg[2 + strlen(name)] == '=';
    size_t prefixed = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(names[i], name) == 0 && has_value) { /* getopt refuses only a flag's =value */
            snprintf(err, errlen, "--%s: takes no value (give --%s alone)", q, q);
            return;
        }
        prefixed += *name && strncmp(names[i], name, strlen(name)) == 0;
    }
    if (prefixed > 1) {
        int at = snprintf(err, errlen, "--%s: ambiguous, the start of", q);
        size_t k = 0;
        for (size_t i = 0; i < n && at >= 0 && (size_t)at < errlen; i++)
            if (strncmp(names[i], name, strlen(name)) == 0) {
                k++;
                at += snprintf(err + at, errlen - (size_t)at, "%s --%s", k == 1 ? "" : k == prefixed ? " and" : ",",
                               names[i]);
            }
        return;
    }
    const char *near = nearest_name(name, names, n);
    if (near)
        snprintf(err, errlen, "--%s: unknown option (did you mean --%s?)", q, near);
    else
        snprintf(err, errlen, "--%s: unknown option", q);
}

static const struct command {
    const char *name, *usage;
} commands[] = {
    {"ab", "volley ab [ab options] URL"},
    {"report", "volley report RESULT.json [options]"},
    {"compare", "volley compare BASE.json NEW.json [options]"},
    {"merge", "volley merge [options] RESULT.json..."},
    {"help", "volley help [TOPIC]"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

int options_hint_url(const char *word, char *const *before, int nbefore, char *err, size_t errlen)
{
    const char *names[NCOMMANDS];
    for (size_t i = 0; i < NCOMMANDS; i++) {
        names[i] = commands[i].name;
        if (strcmp(word, commands[i].name) != 0)
            continue;
        /* The words before it, as typed ("--tls-resume=off"), cut short. */
        char words[200] = "", q[260];
        int at = 0;
        for (int w = 0; w < nbefore && at >= 0 && (size_t)at < sizeof words; w++)
            at += snprintf(words + at, sizeof words - (size_t)at, "%s%s", w ? " " : "", before[w]);
        bool option = nbefore > 0 && before[0][0] == '-';
        const char *what = option ? (nbefore == 1 ? "an option" : "options") : nbefore == 1 ? "a word" : "words";
        snprintf(err, errlen, "%s: %s before the command %s; the command comes first (%s)",
                 quote_printable(q, sizeof q, words), what, word, commands[i].usage);
        return -1;
    }
    /* A URL has a ':', a '/' or a '.' (a host name without a scheme gets
     * target.c's own hint); a bare word near a command is a misspelt one. */
    const char *near = strpbrk(word, ":/.") ? NULL : nearest_name(word, names, NCOMMANDS);
    if (!near)
        return 0;
    char q[80];
    snprintf(err, errlen, "%s: not a URL or a command (did you mean \"%s\"?)", quote_printable(q, sizeof q, word), near);
    return -1;
}

/* The methods of RFC 9110 and PATCH: a lower-case one is a habit of other
 * tools (curl -X post is sent as typed too), not a method of its own. */
static const char *const methods[] = {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"};

bool options_hint_method(const char *method, char *note, size_t len)
{
    char up[16];
    size_t n = strlen(method);
    if (n >= sizeof up)
        return false;
    for (size_t i = 0; i <= n; i++)
        up[i] = (char)toupper((unsigned char)method[i]);
    if (strcmp(up, method) == 0)
        return false;
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strcmp(up, methods[i]) == 0) {
            snprintf(note, len, "-m %s: methods are case-sensitive and it is sent as typed; most servers want -m %s",
                     method, up);
            return true;
        }
    return false;
}

int options_hint_body(const char *body, char *err, size_t errlen)
{
    if (body[0] != '@' || !body[1])
        return 0;
    char q[256];
    snprintf(err, errlen, "-b: \"%s\" is curl's way to name a file; volley sends -b as typed: use --body-file %s",
             quote_printable(q, sizeof q, body), q + 1);
    return -1;
}
