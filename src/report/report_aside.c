/* The reports' block of a flow's setup(u) and teardown(data, u): their
 * requests, counted apart from the run's (never in its counts, per-name
 * tables, thresholds or histograms), and how each ended. */
#include "report.h"
#include "report_internal.h"

#include "json_out.h"
#include "quote.h"

#include <inttypes.h>
#include <stdio.h>

static void aside_text(FILE *out, const char *what, const struct run_aside *a)
{
    if (!a->runs)
        return;
    fprintf(out, "    %-11s %" PRIu64 " request%s, %" PRIu64 " failed", what, a->requests, a->requests == 1 ? "" : "s",
            a->failed_requests);
    for (uint32_t i = 0; i < a->ncodes; i++)
        fprintf(out, "%s%u: %" PRIu64, i ? ", " : "; status ", a->codes[i].code, a->codes[i].n);
    if (a->runs > 1)
        fprintf(out, " (%u runs, one per shard)", a->runs);
    if (a->failed) {
        char q[512];
        fprintf(out, "; failed: %s", quote_printable(q, sizeof q, a->why));
    }
    fputc('\n', out);
}

void report_aside_text(FILE *out, const struct run_result *r)
{
    if (!r->setup.runs && !r->teardown.runs)
        return;
    fprintf(out, "  Apart from the run's figures:\n");
    aside_text(out, "setup():", &r->setup);
    aside_text(out, "teardown():", &r->teardown);
}

static void aside_json(FILE *out, const char *key, const struct run_aside *a)
{
    fprintf(out, "  \"%s\": ", key);
    if (!a->runs) {
        fputs("null,\n", out);
        return;
    }
    fprintf(out, "{\"runs\": %u, \"failed\": %s, \"reason\": ", a->runs, a->failed ? "true" : "false");
    if (a->failed)
        json_out_str(out, a->why);
    else
        fputs("null", out);
    fprintf(out, ", \"requests\": %" PRIu64 ", \"failed_requests\": %" PRIu64 ", \"status\": {", a->requests,
            a->failed_requests);
    for (uint32_t i = 0; i < a->ncodes; i++)
        fprintf(out, "%s\"%u\": %" PRIu64, i ? ", " : "", a->codes[i].code, a->codes[i].n);
    fputs("}},\n", out);
}

void report_aside_json(FILE *out, const struct run_result *r)
{
    aside_json(out, "setup", &r->setup);
    aside_json(out, "teardown", &r->teardown);
}
