/* First contact: `volley help [TOPIC]` and --version. */
#ifndef VOLLEY_CMD_HELP_H
#define VOLLEY_CMD_HELP_H

#include <stdio.h>

/* Runs `volley help [TOPIC]`: argv[0] is "help". No topic: volley's usage
 * (as --help); "ab": volley ab's (the bundled ab script's options);
 * "report", "compare": those subcommands' usage. Prints on stdout and
 * returns 0; an unknown topic is one line on stderr and 2. */
int cmd_help(int argc, char **argv);

/* --version: volley's version, then the version of each library as it
 * reports itself at run time (libev, LuaJIT, http-parser, nghttp2, the TLS
 * library), one per line. */
void cmd_help_version(FILE *out);

#endif
