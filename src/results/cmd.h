/* What volley's subcommands (report, compare, merge, help) share: their
 * option words, their one error line, reading a saved result whole, and
 * volley merge's exit statuses (volley report gives a partial merge's
 * again). Below every subcommand, so none includes another's header. */
#ifndef VOLLEY_CMD_H
#define VOLLEY_CMD_H

#include <stdbool.h>
#include <stddef.h>

/* Reads the whole file at path (a saved result: at most JSON_IN_MAX_BYTES) into *text, a
 * malloc'd buffer of *len bytes (not NUL-terminated) that the caller
 * frees. Returns 0, or -1 with err naming path. */
int cmd_read_result(const char *path, char **text, size_t *len, char *err, size_t errlen);

/* Prints "volley CMD: MESSAGE" on stderr (MESSAGE from fmt, escaped: file
 * names and a result's keys may hold control bytes) and returns status. */
int cmd_fail(const char *cmd, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Whether the word a is the option name ("--html") alone or as
 * "--html=VALUE". */
bool cmd_is_option(const char *a, const char *name);

/* The value of the option word argv[*i]: after its '=', or the next word
 * (*i then moves to it), into *value. Returns 0, or cmd_fail's 2 ("--html:
 * needs a value") when no word follows. */
int cmd_option_value(const char *cmd, int argc, char **argv, int *i, const char **value);

/* `volley merge`'s exit statuses for its refusals, one a kind, so a
 * launcher can tell a damaged file from a shard that is missing or of
 * another run; and MERGE_PARTIAL, which `volley report` also exits with
 * for a result that merge made with --partial. */
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

#endif
