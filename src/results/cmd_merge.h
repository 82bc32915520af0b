/* The `volley merge` subcommand: the shards of a run (--shard) merged into
 * the whole run's result. */
#ifndef VOLLEY_CMD_MERGE_H
#define VOLLEY_CMD_MERGE_H

#include "cmd.h" /* its exit statuses: MERGE_BAD_FILE ... MERGE_PARTIAL */

/* Runs `volley merge ARGS` (argv[0] is "merge"). Prints its own errors (one
 * line on stderr, "volley merge: FILE: ...") and returns the exit status:
 * 0, 1 an output file not written or no response completed, 2 a bad
 * command line, 3 -R's rate not met, 99 a threshold failed, one of the
 * refusals (cmd.h), or MERGE_PARTIAL (before 3 and 99, after 1). */
int cmd_merge(int argc, char **argv);

#endif
