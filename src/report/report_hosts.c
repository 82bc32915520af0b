/* The hosts a flow's requests went to (--allow-host; stats_hosts.h): the
 * text report's Hosts block, and the JSON's "hosts" member (null when the
 * run reached no host but the target's). */
#include "json_out.h"
#include "report_internal.h"

#include <inttypes.h>
#include <string.h>

/* Whether the run reached another host than the target's. */
static bool other_hosts(const struct run_result *r)
{
    return r->stats.hosts && r->stats.hosts->n > 1;
}

void report_hosts_text(FILE *out, const struct run_result *r)
{
    if (!other_hosts(r))
        return;
    const struct stats_hosts *h = r->stats.hosts;
    int width = 5;
    for (uint32_t i = 0; i < h->n; i++)
        if ((int)strlen(h->h[i].origin) > width)
            width = (int)strlen(h->h[i].origin);
    fprintf(out, "  %-*s  %8s  %6s\n", width + 2, "Hosts", "requests", "failed");
    for (uint32_t i = 0; i < h->n; i++)
        fprintf(out, "    %-*s  %8" PRIu64 "  %6" PRIu64 "\n", width, h->h[i].origin, h->h[i].requests,
                h->h[i].failed);
}

void report_hosts_json(FILE *out, const struct run_result *r)
{
    fputs("  \"hosts\": ", out);
    if (!other_hosts(r)) {
        fputs("null,\n", out);
        return;
    }
    const struct stats_hosts *h = r->stats.hosts;
    fputc('[', out);
    for (uint32_t i = 0; i < h->n; i++) {
        fputs(i ? ", {\"origin\": " : "{\"origin\": ", out);
        json_out_str(out, h->h[i].origin);
        fprintf(out, ", \"target\": %s, \"requests\": %" PRIu64 ", \"failed\": %" PRIu64 "}", i == 0 ? "true" : "false",
                h->h[i].requests, h->h[i].failed);
    }
    fputs("],\n", out);
}
