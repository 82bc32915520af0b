/* The result of a run, as the reports read it: the merged stats and what
 * the run knew of itself (its start, length, shards, TLS agreement, the
 * workers' CPU, the series, the thresholds' outcome). run.c fills it after
 * a run; result_run.c and result_merge.c rebuild it from saved results, so
 * the reports print a saved run with the same code. */
#ifndef VOLLEY_RESULT_H
#define VOLLEY_RESULT_H

#include "series.h"
#include "shard.h"
#include "stats.h"
#include "threshold.h"
#include "tls.h"

#include <stdbool.h>
#include <stdint.h>

struct script_thread;

/* A flow's setup(u) or teardown(data, u) (run_setup.c): whether it ran and
 * how it ended, and its requests, counted apart from the run's figures
 * (report_aside.c prints them in a block of their own). */
#define RUN_ASIDE_CODES 16
struct run_aside {
    uint32_t runs;            /* how many times it ran: 0 none (no hook, or the data came from
                               * --setup-data); a merge adds the shards' */
    bool failed;              /* it did not return (why says): the run did not start, or
                               * teardown's failure is reported */
    uint64_t requests;        /* requests it made, answered or failed */
    uint64_t failed_requests; /* of these, failed (any kind, a failed check included) */
    uint32_t ncodes;          /* responses by status code, ascending (the first RUN_ASIDE_CODES) */
    struct run_aside_code {
        uint16_t code;
        uint64_t n;
    } codes[RUN_ASIDE_CODES];
    char why[512];
};

/* One scenario of a run of several (options.scenarios): its load as it
 * ran and its own figures, the run's figures of its workers alone. */
struct run_scenario {
    char name[65];
    bool open;            /* it ran by a rate */
    uint64_t rate;        /* open: iterations per second (its stages' peak) */
    uint32_t users;       /* closed: its users; open: those its arrivals ran on */
    int64_t start_ns;     /* from the run's start */
    int64_t duration_ns;  /* from its start to its last worker's end */
    struct stats stats;   /* its workers' stats merged (stats_free when done) */
};

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
    int64_t due_span_ns;  /* -R: the time those arrivals (and those never sent) were due
                           * over: sent_span_ns but for lateness. --arrivals poisson or
                           * gamma:K's drawn rate is (sent + unsent) / span; 0: not known */
    bool interrupted;    /* stopped by SIGINT/SIGTERM */
    bool tls_known;      /* https: tls holds what the start-up probe's handshake agreed on */
    struct tls_info tls; /* (set by main before the run; run_execute leaves it) */
    int unreachable;     /* errno: stopped because no connect worked for --timeout */
    char script_error[512]; /* non-empty: stopped because a script hook failed */
    struct threshold_result *thresholds; /* --threshold, --fail-if: the outcome of each of o's
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
    struct run_aside setup, teardown; /* a flow's setup(u) and teardown(data, u) */
    struct run_scenario *scenarios; /* a run of several scenarios: each (owned); NULL */
    uint32_t nscenarios;
    /* Private: the workers' script states and thread objects, kept for
     * done() until run_result_free. */
    struct script_thread *threads;
    uint32_t nthreads;
};

#endif
