/* `volley convert`: a HAR recording or a curl command line into a flow,
 * by the bundled Lua of lua/volley/convert/ (docs/convert.md). */
#ifndef VOLLEY_CMD_CONVERT_H
#define VOLLEY_CMD_CONVERT_H

/* argv[0] is "convert", the rest its options. Returns the exit status: 0,
 * 1 when the input cannot be converted or the output written, 2 for a bad
 * command line. Messages are one line on stderr. */
int cmd_convert(int argc, char **argv);

#endif
