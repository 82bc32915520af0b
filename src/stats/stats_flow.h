/* A flow's figures (a scenario with user(u)): its iterations (started,
 * completed, failed by reason, cut off, and the durations of the completed
 * ones), its checks (u:check: passes and fails per name) and its groups
 * (u:group: each run's duration and whether it failed, per name). A
 * worker's own, written only by its thread; merged after join, checks and
 * groups by id (a run's workers share one registry of each, names.h) or,
 * for results of separate processes, by name (stats_flow_align). */
#ifndef VOLLEY_STATS_FLOW_H
#define VOLLEY_STATS_FLOW_H

#include "clock.h"
#include "hist.h"
#include "intervals.h"
#include "names.h"
#include "stats_reason.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One check name's counts. */
struct stats_check {
    char *name;          /* owned */
    uint64_t pass, fail;
};

/* One group name's runs. */
struct stats_group {
    char *name;          /* owned */
    uint64_t count;      /* runs of the group that ended (ok or failed) */
    uint64_t failed;     /* of count: a request in it failed, or the iteration ended in it */
    struct hist duration; /* every ended run's duration, ns */
};

struct stats_flow {
    bool on;             /* the run is a flow (the rest is zero otherwise) */
    uint64_t started, completed, failed, cut_off; /* iterations; started = completed + failed
                                                   * + cut_off once the run has ended */
    struct hist duration; /* completed iterations, ns: from the start (with -R from the
                           * scheduled start) to the end of user() */
    struct hist start_lag; /* -R: every started iteration's lag, ns: from its scheduled
                            * start to its start (the wait for a free user); no
                            * counts in a closed loop */
    struct hist cap_wait; /* --max-rps: each request that waited for the cap, its wait, ns
                           * (from when it was ready to its send); no counts without */
    struct stats_reason *reasons; /* failed iterations by reason (filled when the worker ends) */
    size_t nreasons;
    size_t reasons_more;          /* a saved result's reasons not listed one by one, */
    uint64_t reasons_more_count;  /* and their failures */
    struct stats_check *checks;   /* by check id; NULL until the first (NAMES_MAX then) */
    uint32_t nchecks;             /* 1 + the highest id used */
    struct stats_group **groups;  /* by group id; NULL entries for ids not used here */
    uint32_t ngroups;
    struct intervals *intervals;  /* --hlog: the worker's interval histograms, where
                                   * iterations and groups are recorded too (set by
                                   * worker.c; not owned, not merged) */
};

void stats_flow_init(struct stats_flow *f);
void stats_flow_free(struct stats_flow *f);

/* Adds src into dst: counters, the histogram, reasons, and checks and
 * groups by id. */
void stats_flow_merge(struct stats_flow *dst, const struct stats_flow *src);

/* Adds n failed iterations with reason (copied) to f's reasons (not to
 * f->failed, which the worker counts). Returns the reason's count now. */
uint64_t stats_flow_reason(struct stats_flow *f, const char *reason, uint64_t n);

/* The check of id (names.h), made at its first use here (the name
 * copied). */
struct stats_check *stats_flow_check_add(struct stats_flow *f, uint32_t id, const char *name);

/* The group of id, made at its first use here (allocates its histogram;
 * with f->intervals, its interval histogram too). */
struct stats_group *stats_flow_group_add(struct stats_flow *f, uint32_t id, const char *name);

/* Renumbers src's checks and groups to dst's ids, by name (names dst does
 * not have get ids after its own), for results of separate processes
 * (volley merge). Returns 0, or -1 (src unchanged) past NAMES_MAX names of
 * a kind together. */
int stats_flow_align(struct stats_flow *src, const struct stats_flow *dst);

/* Whether src's histograms can be added to dst's (hist_merge_fits). */
bool stats_flow_merge_fits(const struct stats_flow *dst, const struct stats_flow *src);

/* Checks that passed and failed, over every name. */
void stats_flow_check_totals(const struct stats_flow *f, uint64_t *pass, uint64_t *fail);

/* The check or group called name, or NULL. */
const struct stats_check *stats_flow_check_find(const struct stats_flow *f, const char *name);
const struct stats_group *stats_flow_group_find(const struct stats_flow *f, const char *name);

/* The recorders, called by the flow (through the FFI) and by the
 * connection. No allocation. */
static inline void stats_flow_check(struct stats_flow *f, uint32_t id, bool pass)
{
    if (pass)
        f->checks[id].pass++;
    else
        f->checks[id].fail++;
}

static inline void stats_flow_group(struct stats_flow *f, uint32_t id, int64_t ns, bool failed)
{
    struct stats_group *g = f->groups[id];
    g->count++;
    g->failed += failed;
    if (ns < 0)
        ns = 0;
    hist_record(&g->duration, ns);
    /* The group has just ended: its interval is the one holding now. */
    if (f->intervals)
        intervals_record_group(f->intervals, clock_now_ns(), id, ns);
}

/* -R: an iteration started ns after its scheduled start. */
static inline void stats_flow_started_late(struct stats_flow *f, int64_t ns)
{
    hist_record(&f->start_lag, ns < 0 ? 0 : ns);
}

/* An iteration that ended at now (monotonic ns) completed, after ns; with
 * --hlog its duration goes into the interval holding now as well. */
static inline void stats_flow_completed(struct stats_flow *f, int64_t now, int64_t ns)
{
    f->completed++;
    if (ns < 0)
        ns = 0;
    hist_record(&f->duration, ns);
    if (f->intervals)
        intervals_record(f->intervals, now, IV_ITERATION, ns);
}

#endif
