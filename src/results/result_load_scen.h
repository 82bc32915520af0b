/* A saved result's per-scenario figures (a run of several scenarios). */
#ifndef VOLLEY_RESULT_LOAD_SCEN_H
#define VOLLEY_RESULT_LOAD_SCEN_H

#include "json_in.h"
#include "result.h"

#include <stddef.h>

/* root's "scenarios" (absent or null: none) into r->scenarios and
 * r->nscenarios (owned by r: freed with each one's stats even when this
 * fails). Returns 0, or -1 with err naming the field. */
int result_load_scenarios(const struct json *root, struct run_result *r, char *err, size_t errlen);

#endif
