/* The reports' parts of a run split over processes (--shard, --start-at,
 * volley merge): the header's lines, the JSON's "run", and what a shard's
 * figures are judged against (its part of -c and of -R's rate; a partial
 * merge's, the merged shards' parts). */
#include "report.h"
#include "report_internal.h"

#include "json_out.h"

#include <inttypes.h>
#include <stdio.h>

/* A merge's part of a total split over its shards: the whole, less the
 * parts of the shards missing from a partial merge. */
static uint64_t merged_part(uint64_t total, const struct options *o, const struct run_result *r)
{
    uint64_t gone = 0;
    for (uint32_t i = 0; i < r->nmissing; i++)
        gone += shard_part(total, (struct shard){r->missing[i], o->shard.count});
    return total - gone;
}

uint32_t report_connections(const struct options *o, const struct run_result *r)
{
    return r->merged ? (uint32_t)merged_part(o->connections, o, r) : (uint32_t)shard_part(o->connections, o->shard);
}

double report_target_rate(const struct options *o, const struct run_result *r)
{
    if (r->merged) /* each shard's part is rate / N */
        return (double)o->rate * (o->shard.count - r->nmissing) / shard_count(o->shard);
    return shard_rate((double)o->rate, o->shard);
}

/* The first few shards missing from a partial merge, "1, 3, ..." into buf. */
static const char *missing_list(const struct run_result *r, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < r->nmissing && i < 8 && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%u", i ? ", " : "", r->missing[i]);
    if (r->nmissing > 8 && at < len)
        snprintf(buf + at, len - at, ", ...");
    return buf;
}

bool report_partial(FILE *err, const struct run_result *r)
{
    if (!r->nmissing)
        return false;
    char list[128];
    fprintf(err, "volley merge: partial: %u of %u shards missing (shard%s %s; shards count from 0): the report is "
                 "of the %u merged\n", r->nmissing, r->merged + r->nmissing, r->nmissing == 1 ? "" : "s",
            missing_list(r, list, sizeof list), r->merged);
    return true;
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
    char list[128];
    if (r->nmissing) {
        fprintf(out, "  Partial: %u of %u shards merged (volley merge --partial), run %s; missing: shard%s %s\n",
                r->merged, r->merged + r->nmissing, r->run_id, r->nmissing == 1 ? "" : "s",
                missing_list(r, list, sizeof list));
    } else if (r->merged) {
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
 * shard this is of how many (null: merged), the shards missing from a
 * partial merge ([] for any other result), the shared start. */
void report_shard_json(FILE *out, const struct options *o, const struct run_result *r)
{
    fputs("  \"run\": {\"id\": ", out);
    json_out_str(out, r->run_id);
    if (r->merged)
        fprintf(out, ", \"shard\": null, \"shards\": %u", r->merged + r->nmissing);
    else
        fprintf(out, ", \"shard\": %u, \"shards\": %u", o->shard.index, shard_count(o->shard));
    fputs(", \"missing\": [", out);
    for (uint32_t i = 0; i < r->nmissing; i++)
        fprintf(out, "%s%u", i ? ", " : "", r->missing[i]);
    fputc(']', out);
    fputs(", \"start_at\": ", out);
    if (o->start_at_given)
        json_out_num(out, o->start_at, 6);
    else
        fputs("null", out);
    fputs("},\n", out);
}

