/* Shared by run.c (the workers' shares, start, wait and merge),
 * run_script.c (the run's Lua states) and run_request.c below both
 * (run_request_spec) only. */
#ifndef VOLLEY_RUN_INTERNAL_H
#define VOLLEY_RUN_INTERNAL_H

#include "http.h"
#include "options.h"
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

#endif
