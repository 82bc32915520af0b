/* A whole run: encodes the request once, starts the workers with their shares
 * of connections and requests, owns the stop conditions (duration, request
 * budget, SIGINT) and merges the workers' stats after they end. */
#ifndef VOLLEY_RUN_H
#define VOLLEY_RUN_H

#include "options.h"
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

struct run_result {
    struct stats stats;  /* merged over workers; stats_free when done */
    double start_epoch;  /* wall clock at the start, seconds since the epoch (--start-at's
                          * own value when given, so every shard's is the same) */
    char run_id[SHARD_ID_MAX + 1]; /* --run-id, or the default made at the start */
    uint32_t merged;     /* volley merge: how many shards this result was merged from;
                          * 0: one process's result */
    uint32_t *missing;   /* volley merge --partial: the run's shards not merged, ascending
                          * (owned; merged + nmissing is the run's shard count) */
    uint32_t nmissing;
    int64_t duration_ns; /* start -> last worker ended */
    int64_t t0, t_end;   /* monotonic ns of the start (-R's arrival 0) and of the end */
    int64_t sent_span_ns; /* -R: the time the arrivals sent went out over (the rate
                           * sent is arrivals / span; 0 with nothing sent) */
    bool interrupted;    /* stopped by SIGINT/SIGTERM */
    bool tls_known;      /* https: tls holds what the start-up probe's handshake agreed on */
    struct tls_info tls; /* (set by main before the run; run_execute leaves it) */
    int unreachable;     /* errno: stopped because no connect worked for --timeout */
    char script_error[512]; /* non-empty: stopped because a script hook failed */
    struct threshold_result *thresholds; /* --fail-if: the outcome of each of o's
                                          * thresholds on stats, in order (owned) */
    char hlog_error[256]; /* --hlog: non-empty: the log could not be written (why) */
    struct series series; /* per-second figures, merged (series_finish'ed) */
    struct run_worker {   /* each worker thread: */
        int64_t cpu_ns;   /* its CPU time */
        int64_t wall_ns;  /* and how long it ran */
    } *workers;
    uint32_t nworkers;
    /* A saved result read back (volley report) has no per-connection counts
     * (stats.nslots is 0): the figures the report derives from them, as the
     * run wrote them. n == 0: none. */
    struct run_conns {
        uint32_t n, starved, idle_at_end;
        uint64_t min, median, max;
        uint64_t sum;     /* responses over all connections (their mean: sum / n) */
        bool by_median;   /* a result from before the mean: starved counted against the
                           * median, and no sum */
    } saved_conns;
    bool little_legacy;   /* a saved result from before stats.flight_ns and its kin: Little's
                           * law from the completed requests' rate and mean latency */
    /* Private: the workers' script states and thread objects, kept for
     * done() until run_result_free. */
    struct script_thread *threads;
    uint32_t nthreads;
};

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
 * limit, raising the soft limit up to the hard one if needed. Returns 0, or
 * -1 with err naming -c and -t. */
int run_check_fd_limit(const struct options *o, char *err, size_t errlen);

/* The libev volley runs with, "libev 4.33" into buf (--version). Returns
 * buf. */
char *run_library_version(char *buf, size_t len);

#endif
