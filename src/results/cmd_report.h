/* The `volley report` subcommand: a saved result rendered again. */
#ifndef VOLLEY_CMD_REPORT_H
#define VOLLEY_CMD_REPORT_H

/* Runs `volley report ARGS`: argv[0] is "report", the rest its arguments
 * (RESULT.json [--html FILE] [--threshold EXPR]... [--fail-if EXPR]...). Prints its own errors
 * (one line on stderr) and returns the exit status: 0 done, 1 the result
 * could not be read, parsed or rendered or the file not written, 2 a bad
 * command line (a bad --threshold or --fail-if included), 99 a threshold failed, 11
 * (MERGE_PARTIAL, cmd.h) a result of volley merge --partial with shards missing. */
int cmd_report(int argc, char **argv);

#endif
