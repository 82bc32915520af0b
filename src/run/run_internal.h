/* Shared by run.c (the workers' shares, start, wait and merge),
 * run_script.c (the run's Lua states), and run_request.c
 * (run_request_spec) and run_rate.c (-R's figures) below both, only. */
#ifndef VOLLEY_RUN_INTERNAL_H
#define VOLLEY_RUN_INTERNAL_H

#include "http.h"
#include "options.h"
#include "run.h"
#include "script.h"
#include "target.h"
#include "worker.h"

#include <stdint.h>
#include <stddef.h>

/* The request the command line describes with t's path and Host
 * (run_request.c): encoded once for the run, and the starting point of a
 * script's wrk table. Strings point into o and t. */
struct http_request_spec run_request_spec(const struct options *o, const struct target *t);

/* Worker index's script state in th (th->state, owned by the run's
 * result): loaded (run_load_script), its thread:stop() bound to w, and
 * setup(thread) called in main_script; init follows once w has bound the
 * state (run_init_script). Returns 0, or -1 with err. */
int run_prepare_script(const struct options *o, const struct target *t, struct script *main_script,
                       struct script_thread *th, uint32_t index, unsigned pick, struct worker *w, char *err,
                       size_t errlen);

/* init(args) in a worker's bound state (o's script arguments), then the
 * state's phase is "run". Returns 0, or -1 with err. */
int run_init_script(const struct options *o, const struct target *t, struct script_thread *th, char *err,
                    size_t errlen);

/* -R: the arrivals of the run's schedule (run_rate.c): -n's (units:
 * requests or a flow's iterations; 0: none), or what -d's or the stages'
 * schedule holds; UINT64_MAX for a random process bounded by -d alone
 * (its end bounds it); 0 without -R. */
uint64_t run_rate_arrivals(const struct options *o, uint64_t units);

/* -R, once the run has ended and res holds its merged stats, t0 and
 * duration: its length raised to the schedule's span unless it ended
 * early, and res->sent_span_ns and due_span_ns. */
void run_rate_finish(const struct options *o, uint64_t arrivals, uint64_t units, bool early, struct run_result *res);

/* The run's workers as groups (run_plan.c): one for a run of one scenario,
 * one per scenario of a script with several. */
struct run_group {
    struct worker_config cfg; /* the run's, with the group's load */
    uint32_t first, threads;  /* its workers: first .. first + threads - 1 */
    uint32_t users;           /* its users over the whole run (-c, or the scenario's) */
    uint32_t shard_users;     /* this shard's part of them */
    uint64_t units;           /* its bound (-n, --iterations, a scenario's iterations); 0: none */
    uint64_t shard_units;     /* this shard's part of it */
    uint64_t req_base;        /* where this shard's part begins in the group's order */
    uint64_t arrivals;        /* -R, an open scenario: its schedule's arrivals (run_rate_arrivals) */
};

struct run_plan {
    struct run_group *g;      /* owned */
    uint32_t n;
    uint32_t nworkers;        /* the groups' threads together */
};

/* The groups of o's run, each config a copy of base with its load. */
void run_plan_make(const struct options *o, const struct worker_config *base, struct run_plan *p);

/* Once the start is known: each group's t0 and schedule end. */
void run_plan_start(struct run_plan *p, const struct options *o, int64_t t0);

/* Worker i (0-based in group k) of shard sh: its connections and budget. */
void run_plan_share(const struct run_plan *p, uint32_t k, uint32_t i, struct shard sh, uint32_t *conns,
                    uint64_t *budget);

/* After the join: each scenario's figures into res->scenarios (nothing
 * for a run of one scenario); workers 0 .. started - 1 ran. */
void run_plan_collect(const struct run_plan *p, const struct options *o, struct worker *workers, uint32_t started,
                      int64_t t0, struct run_result *res);

void run_plan_free(struct run_plan *p);

#endif
