/* A flow's setup(u) and teardown(data, u), each run once apart from the
 * load (docs/scripting.md, Setup data): one worker, one user, one
 * iteration, through the run's own machinery, so that they send requests
 * as users do; their figures are kept apart (struct run_aside). */
#ifndef VOLLEY_RUN_SETUP_H
#define VOLLEY_RUN_SETUP_H

#include "options.h"
#include "result.h"
#include "script.h"
#include "script_aside.h"
#include "target.h"

#include <stddef.h>

/* Runs main_script's setup(u) once (nothing when the script is no flow or
 * has none: aside->runs 0). *text: what it returned as JSON (malloc'ed;
 * NULL for nil), *len its length. Returns 0 (aside filled), or -1 with err
 * when setup did not return (it raised, u:fail, a value it cannot carry,
 * the run could not start or was stopped): the load must not start;
 * aside is filled all the same. */
int run_setup(const struct options *o, const struct target *t, struct script *main_script, struct run_aside *aside,
              char **text, size_t *len, char *err, size_t errlen);

/* Runs main_script's teardown(data, u) once, data rebuilt from text (len
 * bytes; NULL: nil) named source in messages. aside->runs 0 when there is
 * no teardown. Returns 0, or -1 with err (aside->failed, its why). */
int run_teardown(const struct options *o, const struct target *t, struct script *main_script, const char *text,
                 size_t len, const char *source, struct run_aside *aside, char *err, size_t errlen);

/* --setup-data FILE read whole (at most 16 MiB) into *text (malloc'ed,
 * NUL-terminated), *len. Returns 0, or -1 with err naming the option and
 * the file. Its content is checked when the states rebuild it. */
int run_setup_read(const char *path, char **text, size_t *len, char *err, size_t errlen);

/* --setup-only FILE ("-": stdout): setup's data (text, len; NULL: null)
 * and a newline. Returns 0, or -1 with err. */
int run_setup_write(const char *path, const char *text, size_t len, char *err, size_t errlen);

/* What the load takes from setup: its data, named for messages, and the
 * plan the workers' states are made with (script_aside.h). */
struct run_setup_state {
    char *text; /* JSON (owned), NULL: none */
    size_t len;
    char source[320];
    struct script_aside plan;
};

/* The setup options (--setup-only, --setup-data, --teardown-only) and a
 * scenario's teardown checked against the script (o->flow set), before
 * anything is resolved or sent. Returns 0, or -2 with err: a bad command
 * line or script (exit 2). */
int run_setup_check(const struct options *o, struct script *main_script, char *err, size_t errlen);

/* Before the load: setup(u) run once, or its data read from
 * --setup-data, into st; main_script's workers get the data (its plan
 * points into st: keep st until the run is over). With --setup-only the
 * data is written and 1 returned; with --teardown-only teardown runs and 1
 * is returned (res->teardown says how it ended). -1 with err: setup failed
 * or the data cannot be read; nothing of the load was sent (res->setup
 * holds setup's requests). 0: go on with the load. */
int run_setup_begin(const struct options *o, const struct target *t, struct script *main_script,
                    struct run_setup_state *st, struct run_result *res, char *err, size_t errlen);

/* After the load (its workers are gone): teardown(data, u) once, unless
 * the data came from --setup-data (the once-only teardown is then run
 * apart, --teardown-only). Returns 0, or -1 with err (res->teardown says
 * why too). Frees st's data. */
int run_setup_end(const struct options *o, const struct target *t, struct script *main_script,
                  struct run_setup_state *st, struct run_result *res, char *err, size_t errlen);

#endif
