/* Result files (--json, --html, --hlog): checked before the run, and never
 * half there under their own name. A regular file (or a new one) is
 * written to a temporary file beside it and renamed into place once
 * complete, so a run that fails, is killed or never starts leaves the
 * previous file as it was.
 *
 * Most results are opened after the run, when they are complete
 * (outfile_open: a hidden temporary .NAME.XXXXXX, so a killed run leaves
 * no file at all). --hlog is written as the run goes (outfile_open_partial:
 * opened when the run starts, to a visible NAME.partial.XXXXXX that its
 * writer flushes as it goes), so a run that is killed leaves what it
 * measured there, and NAME untouched; a run that ends (or is interrupted
 * with SIGINT/SIGTERM) renames it to NAME as the others are.
 *
 * A path that is not a regular file (/dev/null, a pipe, a terminal) is
 * opened and written as it is. volley never removes a path it did not
 * create. */
#ifndef VOLLEY_OUTFILE_H
#define VOLLEY_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct outfile {
    const char *opt;  /* the option, for messages: "--json" */
    const char *path; /* as given; not owned */
    char *dest;       /* where the result goes: path with symlinks resolved (owned) */
    char *tmp;        /* the temporary file while it is open (owned), or NULL */
    FILE *f;          /* open between outfile_open and outfile_commit/abandon */
};

/* Checks before anything is sent that path can be written: a regular or
 * missing file needs a writable folder, anything else write permission.
 * "-" is stdout when allow_stdout. Creates and changes nothing. Returns 0,
 * or -1 with err naming opt and path. */
int outfile_check(const char *opt, const char *path, bool allow_stdout, char *err, size_t errlen);

/* Opens path for the result: stdout for "-", the path itself when it is not
 * a regular file, else a new hidden temporary file in its folder,
 * .NAME.XXXXXX. Returns the stream, or NULL with err (nothing is left
 * behind then). */
FILE *outfile_open(struct outfile *of, const char *opt, const char *path, char *err, size_t errlen);

/* As outfile_open, for a result written as the run goes: the temporary
 * file is NAME.partial.XXXXXX, visible beside the destination, and left
 * there with what it holds if volley is killed before outfile_commit (the
 * caller flushes it as it writes). */
FILE *outfile_open_partial(struct outfile *of, const char *opt, const char *path, char *err, size_t errlen);

/* The result is complete: flushes and closes it and renames the temporary
 * file into place. Returns 0, or -1 with err (the temporary file is
 * removed, the destination untouched). */
int outfile_commit(struct outfile *of, char *err, size_t errlen);

/* The result is not to be kept: closes it and removes the temporary file
 * (a path written directly stays as it is). */
void outfile_abandon(struct outfile *of);

#endif
