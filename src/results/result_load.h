/* A saved result (the JSON of --json, parsed by json_in) back into the
 * figures thresholds are judged on, so that `volley report RESULT.json
 * --threshold EXPR` judges a stored run again without sending anything. */
#ifndef VOLLEY_RESULT_LOAD_H
#define VOLLEY_RESULT_LOAD_H

#include "json_in.h"
#include "stats.h"

#include <stddef.h>
#include <stdint.h>

/* Fills s (from stats_init; the caller stats_frees it) from root: request
 * counts, failures by kind and by reason, statuses, bytes, the latency,
 * connect, waiting, service and sendlag histograms (decoded from their
 * "hdr", exact), the script's counters and records (a record only when
 * the file has its "hdr"), a flow's iterations, checks and groups
 * (s->flow, on when "iterations" is not null; a check or group name the
 * file repeats adds up into one); *duration_ns and *rate (0: closed loop)
 * from the run. The file is untrusted: returns 0, or -1 with err naming the field. */
int result_load(const struct json *root, struct stats *s, int64_t *duration_ns, uint64_t *rate, char *err,
                size_t errlen);

/* One item of a saved result's "scenarios" (the members the run's own
 * have: requests, errors, arrivals, status, failures, latency, iterations,
 * checks, groups) into s (from stats_init). Returns 0, or -1 with err. */
int result_load_scenario(const struct json *obj, struct stats *s, char *err, size_t errlen);

#endif
