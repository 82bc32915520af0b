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
                       struct script_thread *th, uint32_t index, struct worker *w, char *err, size_t errlen);

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

#endif
