/* Command lines that are wrong in a way with a likely fix: a misspelt long
 * option or command (the nearest name, nearest.h), an ambiguous prefix, a
 * value given to a flag, a command (ab, report, compare, merge, help)
 * given after other words, and habits of other tools (-m post, -b @file). options.c calls these once getopt has refused a
 * word or taken the URL. */
#ifndef VOLLEY_OPTIONS_HINT_H
#define VOLLEY_OPTIONS_HINT_H

#include <stdbool.h>
#include <stddef.h>

/* err for the long option arg that getopt refused ("--conections",
 * "--latency=1", "--tls"), given the names of the long options (without
 * "--"): a value given to a flag, an ambiguous prefix (the options it
 * begins), a misspelt name (the nearest), or an unknown one. */
void options_hint_long(const char *arg, const char *const *names, size_t n, char *err, size_t errlen);

/* The word taken for the URL, checked for a command: one of volley's
 * commands given after before[0..nbefore) (the words before it, as typed),
 * or a word that is no URL but near a command's name ("repot"). Returns 0
 * when it is neither, or -1 with err. */
int options_hint_url(const char *word, char *const *before, int nbefore, char *err, size_t errlen);

/* A note for -m METHOD when METHOD is a standard method in the wrong case
 * ("post"): methods are case-sensitive (RFC 9110 9.1) and volley sends it
 * as typed. Returns true with note filled, else false. */
bool options_hint_method(const char *method, char *note, size_t len);

/* -b's value checked for curl's "@file" habit: returns -1 with err
 * pointing at --body-file, or 0. */
int options_hint_body(const char *body, char *err, size_t errlen);

#endif
