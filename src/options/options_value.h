/* One option's value as getopt reads it (options_value.c): shared by
 * options.c and options_check.c only. */
#ifndef VOLLEY_OPTIONS_VALUE_H
#define VOLLEY_OPTIONS_VALUE_H

#include "options.h"

#include <stddef.h>
#include <stdint.h>

/* err = fmt with the option name and the (escaped) value: fmt takes two
 * %s, opt then val (quote.h escapes val). Returns -1. */
int options_fail(char *err, size_t errlen, const char *fmt, const char *opt, const char *val);

/* A count option in [min, max] into *out. Returns 0, or -1 with err
 * ("-n: must be at least 1", "-c: \"x\" is not a number"). */
int options_parse_bounded(const char *opt, const char *val, uint64_t min, uint64_t max, uint64_t *out,
                          char *err, size_t errlen);

/* A TLS version ("1.2") into *out (12). Returns 0, or -1 with err. */
int options_parse_tls_version(const char *opt, const char *v, int *out, char *err, size_t errlen);

/* --start-at ("+5s" or epoch seconds) into o's start times. Returns 0, or
 * -1 with err. */
int options_parse_start_at(struct options *o, const char *spec, char *err, size_t errlen);

#endif
