/* A saved result's "setup" and "teardown" blocks (report_aside.c) read
 * back into a struct run_aside, and added up by volley merge. */
#ifndef VOLLEY_RESULT_ASIDE_H
#define VOLLEY_RESULT_ASIDE_H

#include "html_read.h"
#include "result.h"

/* root's "setup" and "teardown" into r (absent or null: none ran). The
 * file is untrusted: a block that cannot be a run's fails rd, naming the
 * field. */
void result_aside_load(struct html_rd *rd, const struct json *root, struct run_result *r);

/* volley merge: b's blocks added to a's. Each shard that ran its own setup
 * (no --setup-data) sent its requests, so they add up (runs counts them);
 * the first reason of a failure is kept. */
void result_aside_add(struct run_result *a, const struct run_result *b);

#endif
