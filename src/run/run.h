/* A whole run: encodes the request once, starts the workers with their shares
 * of connections and requests, owns the stop conditions (duration, request
 * budget, SIGINT) and merges the workers' stats after they end. */
#ifndef VOLLEY_RUN_H
#define VOLLEY_RUN_H

#include "options.h"
#include "result.h"
#include "script.h"
#include "series.h"
#include "shard.h"
#include "stats.h"
#include "target.h"
#include "threshold.h"
#include "tls.h"

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

/* Called once on the main thread when every worker is ready (the script's
 * setup() and init() have run in each) and before any of them starts: what
 * it prints comes after what those hooks printed, as in wrk. */
typedef void (*run_ready_fn)(void *arg);

/* Runs the load described by o against t's chosen address and fills *res.
 * main_script: the script's main state (run_load_script), or NULL without
 * -s; its setup() is called for each thread. hlog: with --hlog, the open
 * file the interval log is written to as the run goes (the header when the
 * workers start, then each interval every worker is past, flushed; the
 * rest after they stop), else NULL; the caller closes it (a failure to
 * write it is in res->hlog_error). ready (may be NULL) is called
 * with ready_arg just before the workers start. Returns 0, or -1 with err when
 * the run could not start (threads, loops, a script that fails to load or
 * in setup() or init()), or RUN_LATE; nothing was sent then. With
 * --start-at the workers start at that instant, after everything else is
 * ready (a SIGINT or SIGTERM while waiting for it is -1). o's thresholds are
 * evaluated on the merged stats (res->thresholds). Call run_result_free
 * after. */
/* run_execute's status when --start-at had passed by the time the run was
 * ready (err says by how much): nothing was sent. */
#define RUN_LATE (-2)

int run_execute(const struct options *o, const struct target *t, struct script *main_script, FILE *hlog,
                run_ready_fn ready, void *ready_arg, struct run_result *res, char *err, size_t errlen);

/* Calls the script's done() with the results (after the report). Returns
 * 0, or -1 with err. */
int run_done(struct script *main_script, const struct run_result *res, char *err, size_t errlen);

/* Frees the stats and the workers' script states of res. */
void run_result_free(struct run_result *res);

/* A Lua state with the wrk table from o and t, math.random seeded for
 * state index (0: the main state, i + 1: worker i's; seed_state of o's run
 * seed) and o's script loaded, in *out. Returns 0, or script_load's -1 or
 * -2 with err (*out NULL). */
int run_load_script(const struct options *o, const struct target *t, unsigned index, struct script **out,
                    char *err, size_t errlen);

/* Refreshes the wrk table and volley.target of a state after the options
 * (options()) changed. Returns 0, or -1 with err. */
int run_set_wrk(struct script *s, const struct options *o, const struct target *t, char *err, size_t errlen);

struct tls_config;

/* The TLS settings of an https run: o's TLS options, SNI from t's host name
 * (unless an IP literal, --sni or --no-sni). Strings point into o and t. */
void run_tls_config(const struct options *o, const struct target *t, struct tls_config *cfg);

/* Checks that every descriptor the run needs (o's connections, each
 * worker's loop, wake-up and timer, the main thread's) fits the open-file
 * limit, raising the soft limit up to the hard one if needed, and sizes
 * the descriptor table for them (fdtable_reserve: call it before any
 * thread starts). Returns 0, or -1 with err naming -c and -t. */
int run_check_fd_limit(const struct options *o, char *err, size_t errlen);

/* The libev volley runs with, "libev 4.33" into buf (--version). Returns
 * buf. */
char *run_library_version(char *buf, size_t len);

#endif
