/* The `volley merge` subcommand: the shards of a run (--shard) merged into
 * the whole run's result. */
#ifndef VOLLEY_CMD_MERGE_H
#define VOLLEY_CMD_MERGE_H

/* Exit statuses of its refusals, one a kind, so a launcher can tell a
 * damaged file from a shard that is missing or of another run. */
enum {
    MERGE_BAD_FILE = 5,  /* unreadable, not JSON, truncated, a field missing or of the wrong type, a
                          * histogram that does not decode (or claims too much), a merged result */
    MERGE_FOREIGN = 6,   /* a shard of another run (its run id differs) */
    MERGE_SETTINGS = 7,  /* the settings differ: the shard count, -c, -R, the URL..., or the
                          * histograms' configuration, or the logs' interval length */
    MERGE_DUPLICATE = 8, /* a shard given twice */
    MERGE_MISSING = 9,   /* a shard missing: the set is not complete */
    MERGE_APART = 10,    /* the shards' start times further apart than the run lasted */
    MERGE_PARTIAL = 11,  /* merged with --partial, shards missing: a result of part of the run */
};

/* Runs `volley merge ARGS` (argv[0] is "merge"). Prints its own errors (one
 * line on stderr, "volley merge: FILE: ...") and returns the exit status:
 * 0, 1 an output file not written or no response completed, 2 a bad
 * command line, 3 -R's rate not met, 99 a threshold failed, one of the
 * refusals above, or MERGE_PARTIAL (before 3 and 99, after 1). */
int cmd_merge(int argc, char **argv);

#endif
