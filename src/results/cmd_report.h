/* The `volley report` subcommand: a saved result rendered again. */
#ifndef VOLLEY_CMD_REPORT_H
#define VOLLEY_CMD_REPORT_H

/* Runs `volley report ARGS`: argv[0] is "report", the rest its arguments
 * (RESULT.json [--html FILE] [--fail-if EXPR]...). Prints its own errors
 * (one line on stderr) and returns the exit status: 0 done, 1 the result
 * could not be read, parsed or rendered or the file not written, 2 a bad
 * command line (a bad --fail-if included), 99 a threshold failed, 11
 * (MERGE_PARTIAL) a result of volley merge --partial with shards missing. */
int cmd_report(int argc, char **argv);

#include <stdbool.h>
#include <stddef.h>

/* Reads the whole file at path (at most JSON_IN_MAX_BYTES) into *text, a
 * malloc'd buffer of *len bytes (not NUL-terminated) that the caller
 * frees. Returns 0, or -1 with err naming path. Also `volley compare`'s. */
int cmd_report_read(const char *path, char **text, size_t *len, char *err, size_t errlen);

/* Prints "volley CMD: MESSAGE" on stderr (MESSAGE from fmt, escaped: file
 * names and a result's keys may hold control bytes) and returns status.
 * Also `volley compare`'s. */
int cmd_fail(const char *cmd, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Whether the word a is the option name ("--html") alone or as
 * "--html=VALUE". Also `volley merge`'s. */
bool cmd_is_option(const char *a, const char *name);

/* The value of the option word argv[*i]: after its '=', or the next word
 * (*i then moves to it), into *value. Returns 0, or cmd_fail's 2 ("--html:
 * needs a value") when no word follows. Also `volley merge`'s. */
int cmd_option_value(const char *cmd, int argc, char **argv, int *i, const char **value);

#endif
