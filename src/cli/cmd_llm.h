/* `volley llm ARGS`: the bundled vLLM bench serve script (scripts/llm.lua)
 * with volley's own options taken out of its command line. */
#ifndef VOLLEY_CMD_LLM_H
#define VOLLEY_CMD_LLM_H

/* When argv is `volley llm ...`, returns the command line volley parses
 * instead (argc updated; the caller frees the array, not its words):
 * volley's own options found among ARGS (a fixed set: --json, --hlog,
 * --html, --threshold, --fail-if, --shard, --run-id, --timeout, -t,
 * --http2, ...; see docs/llm.md) and every word after a "--" first, then
 * `-s llm --` and the other words for the script. With --save-result or
 * --append-result the script is told volley's --json file (its own, or a
 * temporary one it moves beside the result). --http2 or --h2c without
 * --streams gets --streams 1 (the script keeps a request's stream state in
 * its connection). Returns NULL otherwise. */
char **cmd_llm_argv(int *argc, char **argv);

#endif
