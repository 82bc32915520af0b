/* The `volley report` subcommand: a saved result rendered again. */
#ifndef VOLLEY_CMD_REPORT_H
#define VOLLEY_CMD_REPORT_H

/* Runs `volley report ARGS`: argv[0] is "report", the rest its arguments
 * (RESULT.json --html FILE). Prints its own errors (one line on stderr)
 * and returns the exit status: 0 written, 1 the result could not be read,
 * parsed or rendered or the file not written, 2 a bad command line. */
int cmd_report(int argc, char **argv);

#endif
