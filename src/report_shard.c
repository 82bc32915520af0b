/* The reports' parts of a run split over processes (--shard, --start-at,
 * volley merge): the header's lines, the JSON's "run", and what a shard's
 * figures are judged against (its part of -c and of -R's rate). */
#include "report.h"
#include "report_internal.h"

#include "json_out.h"

#include <inttypes.h>
#include <stdio.h>

uint32_t report_connections(const struct options *o, const struct run_result *r)
{
    return r->merged ? o->connections : (uint32_t)shard_part(o->connections, o->shard);
}

double report_target_rate(const struct options *o, const struct run_result *r)
{
    return r->merged ? (double)o->rate : shard_rate((double)o->rate, o->shard);
}

void report_shard_json_rate(FILE *out, const struct options *o, const struct run_result *r)
{
    double rate = report_target_rate(o, r);
    json_out_num(out, rate, rate == (double)o->rate ? 0 : 3);
}

/* The header's line of a shard (--shard) or of shards merged, and of
 * --start-at. */
void report_shard_header(FILE *out, const struct options *o, const struct run_result *r)
{
    if (r->merged) {
        fprintf(out, "  %u shard%s merged (volley merge), run %s\n", r->merged, r->merged == 1 ? "" : "s", r->run_id);
    } else if (o->shard.count > 1) {
        fprintf(out, "  Shard %u of %u (counting from 0): its part of %u connections", o->shard.index,
                o->shard.count, o->connections);
        if (o->requests && !o->rate)
            fprintf(out, " and %" PRIu64 " requests", o->requests);
        if (o->rate)
            fprintf(out, ", the arrivals k with k mod %u = %u", o->shard.count, o->shard.index);
        fputc('\n', out);
    }
    if (o->start_at_given && !r->merged)
        fprintf(out, "  Starts at %.6f (--start-at, seconds since the epoch)\n", o->start_at);
}

/* "run": what volley merge checks the shards of a run by: its id, which
 * shard this is of how many (null: merged), the shared start. */
void report_shard_json(FILE *out, const struct options *o, const struct run_result *r)
{
    fputs("  \"run\": {\"id\": ", out);
    json_out_str(out, r->run_id);
    if (r->merged)
        fprintf(out, ", \"shard\": null, \"shards\": %u", r->merged);
    else
        fprintf(out, ", \"shard\": %u, \"shards\": %u", o->shard.index, shard_count(o->shard));
    fputs(", \"start_at\": ", out);
    if (o->start_at_given)
        json_out_num(out, o->start_at, 6);
    else
        fputs("null", out);
    fputs("},\n", out);
}

