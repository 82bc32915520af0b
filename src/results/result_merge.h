/* The shards of one run (`volley merge`), each a saved result read back
 * (result_run), into the result of the whole run: counters, statuses,
 * failures and metrics added, histograms merged by adding their bucket
 * counts (what one process would have recorded, bit for bit), request
 * names and a flow's checks and groups matched by name, the per-second series aligned by absolute time,
 * and the thresholds judged again on the sum. The checks that shards
 * belong together that need the saved text (settings, run id) are here
 * too; cmd_merge.c decides the order and the exit statuses. */
#ifndef VOLLEY_RESULT_MERGE_H
#define VOLLEY_RESULT_MERGE_H

#include "json_in.h"
#include "result_run.h"

#include <stddef.h>
#include <stdint.h>

/* Whether two saved results (parsed JSON) were run with the same settings:
 * the target URL, the model, and the options every shard must share (-c,
 * -d, -n, --iterations, -R, --stages, -m, -H, the body's length, --timeout,
 * keep-alive, the HTTP version, --targets), whether both are a flow's (a
 * scenario with user(u)) or neither, and the run's shard count and start time;
 * not -t, --seed, --source or the output files, which may differ from
 * machine to machine. Returns 0, or -1 with what (len bytes) naming the
 * first field that differs and both values. */
int result_merge_same_settings(const struct json *a, const struct json *b, char *what, size_t len);

/* A shard's length, for how far apart shards of one run may start: the
 * seconds its series covers (in every result volley writes, its duration
 * rounded up to whole seconds), at least 1 s, the series' step. Its
 * series, not its "duration": the merged series is written second by
 * second from the earliest start, so the starts' spread must be bounded
 * by what the files hold, never by a number a file merely claims. */
double result_merge_length(const struct result_run *rr);

/* The merge in progress: into (the first shard read, then the sum) and
 * what is kept aside until the end. */
struct result_merge {
    struct result_run *into;
    uint32_t shards;
    double apart_max;    /* the most two shards' starts may be apart, s */
    double first_start, last_start; /* the earliest and the latest start added, epoch s */
    uint64_t *medians;   /* each shard's median responses per connection */
    size_t nmedians;
};

/* Starts a merge into first (which the merge now owns the figures of).
 * apart_max: the most (s) any shard's start may be from first's or the
 * sum's (the caller's rule, checked on the whole set before: the longest
 * result_merge_length). */
void result_merge_start(struct result_merge *m, struct result_run *first, double apart_max);

/* Adds from (a shard of the same run and settings) into the merge; from
 * is left with nothing worth reporting (free it with result_run_free).
 * Returns 0, or -1 with err: a series point whose histogram does not
 * decode, the two together have more request names (or check or group
 * names) than a run may, a
 * count that added to the other shards' passes what a result may hold,
 * or from starts further than apart_max from the merge's start or end of
 * its starts (nothing is merged then: the series would grow with it). */
int result_merge_add(struct result_merge *m, struct result_run *from, char *err, size_t errlen);

/* Ends the merge: the sum is one run of m->shards shards merged (its
 * thresholds judged again on it). */
void result_merge_finish(struct result_merge *m);

/* After result_merge_finish, for volley merge --partial: the run's shards
 * missing[0..n) (ascending, n >= 1, owned by the result from now) were
 * not merged; the result is of the m->shards merged out of
 * m->shards + n, and says so. */
void result_merge_partial(struct result_merge *m, uint32_t *missing, uint32_t n);

#endif
