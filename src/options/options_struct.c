/* What struct options holds beyond argv's words: its defaults, the command
 * line it keeps, and what it owns, freed. */
#include "options.h"
#include "options_internal.h"

#include "source.h"
#include "targets.h"
#include "threshold.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

void options_defaults(struct options *o)
{
    memset(o, 0, sizeof *o);
    o->connections = 10;
    o->method = "GET";
    o->timeout_ns = INT64_C(10) * 1000000000;
    o->yield_timeout_ns = INT64_C(100) * 1000000;
    o->keepalive = true;
    o->max_body = UINT64_C(8000000);
    o->hlog_interval_ns = 1000000000;
    o->tls_resume = true;
    o->streams = 1;
    o->h2_window = UINT32_C(1) << 24;
    o->seed = OPTIONS_NO_SEED;
    o->shard = (struct shard){0, 1};
}

void options_set_command(struct options *o, int argc, char **argv)
{
    free(o->command);
    o->command = xcalloc(argc > 0 ? (size_t)argc : 1, sizeof *o->command);
    for (int i = 0; i < argc; i++)
        o->command[i] = argv[i];
    o->ncommand = argc > 0 ? (size_t)argc : 0;
}

void options_free(struct options *o)
{
    if (o->sources)
        sources_free(o->sources);
    free(o->sources);
    o->sources = NULL;
    free(o->stages);
    o->stages = NULL;
    for (size_t i = 0; i < o->nscenarios; i++) {
        free(o->scenarios[i].stages_spec);
        free(o->scenarios[i].stages);
    }
    free(o->scenarios);
    o->scenarios = NULL;
    o->nscenarios = 0;
    free((void *)o->body);
    free(o->headers);
    free(o->command);
    free(o->script_args);
    free(o->typed);
    o->typed = NULL;
    free(o->threshold_exprs);
    threshold_free_all(o->thresholds, o->nthresholds);
    if (o->targets)
        targets_free(o->targets);
    free(o->targets);
    o->targets = NULL;
    o->threshold_exprs = NULL;
    o->thresholds = NULL;
    o->nthresholds = 0;
    o->body = NULL;
    o->headers = NULL;
    o->command = NULL;
    o->ncommand = 0;
    o->script_args = NULL;
}
