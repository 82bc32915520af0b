/* A whole run: encodes the request once, starts the workers with their shares
 * of connections and requests, owns the stop conditions (duration, request
 * budget, SIGINT) and merges the workers' stats after they end. */
#ifndef VOLLEY_RUN_H
#define VOLLEY_RUN_H

#include "options.h"
#include "stats.h"
#include "target.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct run_result {
    struct stats stats;  /* merged over workers; stats_free when done */
    double start_epoch;  /* wall clock at the start, seconds since the epoch */
    int64_t duration_ns; /* start -> last worker ended */
    bool interrupted;    /* stopped by SIGINT/SIGTERM */
    int unreachable;     /* errno: stopped because no connect worked for --timeout */
    char script_error[512]; /* non-empty: stopped because a script hook failed */
};

/* Runs the load described by o against t's chosen address and fills *res.
 * Returns 0, or -1 with err when the run could not start (threads, loops,
 * a script that fails to load or in init()); nothing was sent then. */
int run_execute(const struct options *o, const struct target *t, struct run_result *res, char *err,
                size_t errlen);

/* Loads the -s script once as a worker would (wrk table, chunk; not init,
 * whose side effects belong to the workers) and discards it, so a broken
 * script is reported before anything is printed or sent. Returns 0 (also without -s), or -1 with err. */
int run_check_script(const struct options *o, const struct target *t, char *err, size_t errlen);

/* Checks that -c connections fit the open-file limit, raising the soft limit
 * up to the hard one if needed. Returns 0, or -1 with err naming -c. */
int run_check_fd_limit(uint32_t connections, char *err, size_t errlen);

#endif
