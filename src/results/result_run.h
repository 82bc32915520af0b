/* A saved result (the JSON of --json, parsed by json_in) read back into
 * what the reports are printed from: the options, the target and the
 * run's result. `volley report RESULT.json` prints the text report from
 * them with the same code as the run did, so it is the run's report byte
 * for byte, and writes the JSON again with `--json`. The file is untrusted:
 * every field is checked and an error names it. */
#ifndef VOLLEY_RESULT_RUN_H
#define VOLLEY_RESULT_RUN_H

#include "json_in.h"
#include "options.h"
#include "run.h"
#include "target.h"
#include "threshold.h"

#include <stddef.h>

struct result_run {
    struct options o;   /* the fields the reports read; strings point into the tree */
    struct target t;    /* the URL parsed again, the chosen address */
    struct run_result r; /* stats, series, workers, thresholds judged again */
};

enum {
    RESULT_RUN_FILE = -1,  /* the result is unreadable (err names the field) */
    RESULT_RUN_EXPR = -2,  /* one of exprs does not parse (err names it) */
};

/* Fills rr from root (which must outlive rr). exprs[0..n): thresholds,
 * with their words, to judge on the result instead of those it was judged
 * on (n == 0: the saved ones, judged again with their saved words; one
 * saved without a word, by a volley older than --threshold, must hold).
 * Returns 0, RESULT_RUN_FILE or RESULT_RUN_EXPR with err; call
 * result_run_free in every case. */
int result_run_load(const struct json *root, const struct threshold_expr *exprs, size_t n, struct result_run *rr,
                    char *err, size_t errlen);

void result_run_free(struct result_run *rr);

#endif
