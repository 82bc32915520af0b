/* `volley llm` (cmd_llm.h): sorts a vLLM-style command line into volley's
 * own options, which volley parses, and the words the llm script reads
 * in its options(). Only argv is rearranged: nothing is checked here. */
#include "cmd_llm.h"

#include "xalloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* volley's options that volley llm passes through, and whether each takes
 * a value as the next word (a value may also follow "=" in one word). */
static const struct {
    const char *name;
    bool value;
} passed[] = {
    {"--json", true},     {"--hlog", true},     {"--html", true},      {"--threshold", true},
    {"--fail-if", true},  {"--shard", true},    {"--run-id", true},    {"--timeout", true},
    {"-t", true},         {"--threads", true},  {"--http2", false},    {"--h2c", false},
    {"--streams", true},  {"--verify", false},  {"--cacert", true},    {"--cert", true},
    {"--key", true},      {"--sni", true},      {"--no-sni", false},   {"--max-body", true},
    {"--start-at", true}, {"--source", true},   {"--arrivals", true},  {"--spin", true},
};

/* The entry of passed that word names, as "--name" or "--name=value";
 * *inline_value says which. -1: not one. */
static int passed_option(const char *word, bool *inline_value)
{
    for (size_t i = 0; i < sizeof passed / sizeof passed[0]; i++) {
        size_t n = strlen(passed[i].name);
        if (strncmp(word, passed[i].name, n) != 0)
            continue;
        if (word[n] == '\0' || word[n] == '=') {
            *inline_value = word[n] == '=';
            return (int)i;
        }
    }
    return -1;
}

char **cmd_llm_argv(int *argc, char **argv)
{
    if (*argc < 2 || strcmp(argv[1], "llm") != 0)
        return NULL;
    /* At most every word, plus -s llm --, --json FILE, --streams 1 and three more. */
    char **v = xcalloc((size_t)*argc + 12, sizeof *v);
    char **script = xcalloc((size_t)*argc + 4, sizeof *script);
    int n = 0, ns = 0;
    const char *json = NULL;
    bool save = false, h2 = false, streams = false;
    v[n++] = argv[0];
    for (int i = 2; i < *argc; i++) {
        bool inline_value = false;
        int k = passed_option(argv[i], &inline_value);
        if (strcmp(argv[i], "--") == 0) {
            for (i++; i < *argc; i++) {
                if (strcmp(argv[i], "--json") == 0 && i + 1 < *argc)
                    json = argv[i + 1];
                h2 = h2 || strncmp(argv[i], "--http2", 7) == 0 || strcmp(argv[i], "--h2c") == 0;
                streams = streams || strncmp(argv[i], "--streams", 9) == 0;
                v[n++] = argv[i];
            }
            break;
        }
        if (k >= 0) {
            const char *name = passed[k].name;
            h2 = h2 || strcmp(name, "--http2") == 0 || strcmp(name, "--h2c") == 0;
            streams = streams || strcmp(name, "--streams") == 0;
            v[n++] = argv[i];
            if (strcmp(passed[k].name, "--json") == 0)
                json = inline_value ? argv[i] + 7 : i + 1 < *argc ? argv[i + 1] : NULL;
            if (passed[k].value && !inline_value && i + 1 < *argc)
                v[n++] = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--save-result") == 0 || strcmp(argv[i], "--append-result") == 0)
            save = true;
        script[ns++] = argv[i];
    }
    static char temp[64];
    if (save && !json) {
        /* The run's JSON, for the script to move beside --save-result's file. */
        snprintf(temp, sizeof temp, ".volley-llm-%ld.json", (long)getpid());
        v[n++] = "--json";
        v[n++] = temp;
        json = temp;
        script[ns++] = "--volley-json-temp";
    }
    if (h2 && !streams) {
        /* A request's stream state lives in its connection's conn table:
         * one stream at a time on each (volley llm's connections are its
         * concurrency anyway). */
        v[n++] = "--streams";
        v[n++] = "1";
    }
    v[n++] = "-s";
    v[n++] = "llm";
    v[n++] = "--";
    for (int i = 0; i < ns; i++)
        v[n++] = script[i];
    if (save && json) {
        v[n++] = "--volley-json";
        v[n++] = (char *)json;
    }
    free(script);
    *argc = n;
    return v;
}
