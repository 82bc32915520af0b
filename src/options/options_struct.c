/* What struct options holds beyond argv's words: its defaults, the command
 * line it keeps, and what it owns, freed. */
#include "options.h"
#include "options_internal.h"

#include "hosts.h"
#include "source.h"
#include "targets.h"
#include "threshold.h"
#include "xalloc.h"

#include <stdio.h>
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

/* w, a --proxy value (after "--proxy=" when eq): its copy with the URL's
 * user:password as "***", or NULL when it has none. */
static char *without_credentials(const char *w, size_t eq)
{
    const char *url = w + eq, *sep = strstr(url, "://");
    const char *auth = sep ? sep + 3 : url;
    const char *at = memrchr(auth, '@', strcspn(auth, "/?#"));
    if (!at)
        return NULL;
    size_t cap = strlen(w) + 4;
    char *out = xmalloc(cap);
    snprintf(out, cap, "%.*s***%s", (int)(auth - w), w, at);
    return out;
}

static void own_word(struct options *o, size_t i, char *word)
{
    if (!word)
        return;
    o->command_own = xrealloc(o->command_own, (o->ncommand_own + 1) * sizeof *o->command_own);
    o->command_own[o->ncommand_own++] = word;
    o->command[i] = word;
}

void options_set_command(struct options *o, int argc, char **argv)
{
    free(o->command);
    o->command = xcalloc(argc > 0 ? (size_t)argc : 1, sizeof *o->command);
    for (int i = 0; i < argc; i++)
        o->command[i] = argv[i];
    o->ncommand = argc > 0 ? (size_t)argc : 0;
    /* The proxy's credentials stay out of the result (the JSON's command). */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--proxy") == 0 && i + 1 < argc)
            own_word(o, (size_t)i + 1, without_credentials(argv[i + 1], 0));
        else if (strncmp(argv[i], "--proxy=", 8) == 0)
            own_word(o, (size_t)i, without_credentials(argv[i], 8));
    }
}

void options_free(struct options *o)
{
    if (o->allow_hosts)
        hosts_free(o->allow_hosts);
    free(o->allow_hosts);
    o->allow_hosts = NULL;
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
    for (size_t i = 0; i < o->ncommand_own; i++)
        free(o->command_own[i]);
    free(o->command_own);
    o->command_own = NULL;
    o->ncommand_own = 0;
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
