/* The `volley compare` subcommand: two saved results side by side. */
#ifndef VOLLEY_CMD_COMPARE_H
#define VOLLEY_CMD_COMPARE_H

/* Runs `volley compare ARGS`: argv[0] is "compare", the rest BASE.json
 * NEW.json and --html FILE, --threshold EXPR and --fail-if EXPR options. Prints the table on
 * stdout (the same with --html, which writes the page as well), its
 * errors (one line) on stderr, and returns the exit status: 0 compared
 * (every limit passed), 1 a file could not be read, parsed or rendered, or
 * FILE could not be written, 2 a bad command line (a bad limit or an
 * --html path that cannot be written included, checked before any file
 * is read), 99 a limit failed. */
int cmd_compare(int argc, char **argv);

#endif
