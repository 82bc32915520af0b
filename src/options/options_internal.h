/* Shared by options.c (getopt), options_check.c (the checks across
 * options once all are read) and the files below them (options_value.c,
 * options_struct.c) only. */
#ifndef VOLLEY_OPTIONS_INTERNAL_H
#define VOLLEY_OPTIONS_INTERNAL_H

#include "options.h"
#include "options_value.h"

#include <stdbool.h>
#include <stddef.h>

/* *o at its defaults, every option unset (options_struct.c). */
void options_defaults(struct options *o);

/* What getopt saw beside the values it stored in struct options: which
 * options were given rather than left at their defaults, which the checks
 * across options turn on. */
struct options_given {
    bool threads_set, duration_set, body_set, order_set, rate_set, connections_set, method_set;
    const char *body_file; /* --body-file's path (in argv), NULL without it */
};

/* The checks across the options of *o, parsed one by one from argv with
 * g, and what follows from them: --body-file read, -H's framing against
 * the body, POST for a body, the TLS version range, --stages applied, the
 * default duration, a shard's part of -c and -n, -t's default and bound,
 * --threshold and --fail-if parsed (they need -R), --targets loaded. Returns OPTIONS_RUN
 * (o complete), or OPTIONS_ERROR with err as options_parse's. */
enum options_result options_check(struct options *o, struct options_given g, char *err, size_t errlen);

#endif
