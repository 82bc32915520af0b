/* A flow's part of the reports (a scenario with user(u)): the text
 * report's iterations line, checks table and groups table, and the JSON's
 * "iterations", "checks" and "groups" members, from the merged stats.
 * Check and group names and failure reasons are the script's text: the
 * tables write them through quote.h, the JSON through json_out. */
#include "fmt.h"
#include "json_out.h"
#include "quote.h"
#include "report_internal.h"

#include <inttypes.h>
#include <string.h>

/* Failure reasons of iterations listed; then "N other reasons". */
#define TEXT_REASONS 5

static void percentiles(FILE *out, const struct hist *h)
{
    static const double ps[] = {50, 90, 95, 99};
    char b[32];
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++)
        fprintf(out, " %9s", h->count ? fmt_time(b, sizeof b, (double)hist_percentile(h, ps[k])) : "-");
    fprintf(out, " %9s", h->count ? fmt_time(b, sizeof b, (double)h->max) : "-");
}

static void iterations_text(FILE *out, const struct run_result *r)
{
    const struct stats_flow *f = &r->stats.flow;
    double secs = (double)r->duration_ns / 1e9;
    fprintf(out, "  Iterations: %" PRIu64 " completed, %" PRIu64 " failed, %" PRIu64 " cut off (%.2f/s)\n",
            f->completed, f->failed, f->cut_off, secs > 0 ? (double)f->completed / secs : 0.0);
    if (f->duration.count)
        report_hist_line(out, "Iteration", &f->duration);
    if (f->start_lag.count) /* -R: from each iteration's due time to its start on a free user */
        report_hist_line(out, "Start lag", &f->start_lag);
    uint64_t rest = 0;
    size_t more = f->reasons_more;
    for (size_t i = 0; i < f->nreasons; i++) {
        if (i >= TEXT_REASONS) {
            rest += f->reasons[i].count;
            more++;
            continue;
        }
        fputs("    failed: ", out);
        quote_write(out, f->reasons[i].reason);
        fprintf(out, " (%" PRIu64 ")\n", f->reasons[i].count);
    }
    rest += f->reasons_more_count;
    if (more)
        fprintf(out, "    failed: %zu other reason%s (%" PRIu64 ")\n", more, more == 1 ? "" : "s", rest);
}

static void checks_text(FILE *out, const struct stats_flow *f)
{
    if (!f->nchecks)
        return;
    int width = 6;
    for (uint32_t i = 0; i < f->nchecks; i++)
        if (f->checks[i].name && report_name_width(f->checks[i].name) > width)
            width = report_name_width(f->checks[i].name);
    fprintf(out, "  %-*s %9s %9s %8s\n", width + 2, "Checks", "passed", "failed", "passed%");
    for (uint32_t i = 0; i < f->nchecks; i++) {
        const struct stats_check *c = &f->checks[i];
        if (!c->name)
            continue;
        uint64_t n = c->pass + c->fail;
        report_name_lead(out, 4, width, c->name);
        fprintf(out, " %9" PRIu64 " %9" PRIu64 " %7.2f%%\n", c->pass, c->fail, n ? 100.0 * (double)c->pass / (double)n : 0.0);
    }
}

static void groups_text(FILE *out, const struct stats_flow *f)
{
    if (!f->ngroups)
        return;
    int width = 6;
    for (uint32_t i = 0; i < f->ngroups; i++)
        if (f->groups[i] && report_name_width(f->groups[i]->name) > width)
            width = report_name_width(f->groups[i]->name);
    fprintf(out, "  %-*s %9s %7s %9s %9s %9s %9s %9s\n", width + 2, "Groups", "count", "failed", "p50", "p90", "p95",
            "p99", "max");
    for (uint32_t i = 0; i < f->ngroups; i++) {
        const struct stats_group *g = f->groups[i];
        if (!g)
            continue;
        report_name_lead(out, 4, width, g->name);
        fprintf(out, " %9" PRIu64 " %7" PRIu64, g->count, g->failed);
        percentiles(out, &g->duration);
        fputc('\n', out);
    }
}

/* --max-rps: the cap, and how many requests waited for it and how long. */
static void cap_text(FILE *out, const struct options *o, const struct stats_flow *f)
{
    if (!o->max_rps)
        return;
    fprintf(out, "  Rate cap: %" PRIu64 " requests/s (--max-rps); %" PRId64 " request%s waited for it\n", o->max_rps,
            f->cap_wait.count, f->cap_wait.count == 1 ? "" : "s");
    if (f->cap_wait.count)
        report_hist_line(out, "Cap wait", &f->cap_wait);
}

void report_flow_text(FILE *out, const struct options *o, const struct run_result *r)
{
    const struct stats_flow *f = &r->stats.flow;
    if (!f->on)
        return;
    iterations_text(out, r);
    cap_text(out, o, f);
    checks_text(out, f);
    groups_text(out, f);
}

void report_flow_json(FILE *out, const struct options *o, const struct run_result *r)
{
    report_flow_json_of(out, &r->stats.flow, r->duration_ns, o->rate != 0, o->max_rps != 0);
}

void report_flow_json_of(FILE *out, const struct stats_flow *f, int64_t duration_ns, bool open, bool capped)
{
    if (!f->on) {
        fputs("  \"iterations\": null,\n  \"checks\": null,\n  \"groups\": null,\n", out);
        return;
    }
    double secs = (double)duration_ns / 1e9;
    fprintf(out,
            "  \"iterations\": {\"started\": %" PRIu64 ", \"completed\": %" PRIu64 ", \"failed\": %" PRIu64
            ", \"cut_off\": %" PRIu64 ", \"per_sec\": ",
            f->started, f->completed, f->failed, f->cut_off);
    json_out_num(out, secs > 0 ? (double)f->completed / secs : 0.0, 3);
    fputs(", \"failures\": ", out);
    report_json_reasons(out, f->reasons, f->nreasons, f->reasons_more, f->reasons_more_count);
    fputs(", \"duration\": ", out);
    report_json_hist_obj(out, &f->duration);
    if (open) { /* measured with -R only (stats_flow.h) */
        fputs(", \"start_lag\": ", out);
        report_json_hist_obj(out, &f->start_lag);
    }
    if (capped) { /* the requests that waited for --max-rps */
        fputs(", \"cap_wait\": ", out);
        report_json_hist_obj(out, &f->cap_wait);
    }
    uint64_t pass, fail;
    stats_flow_check_totals(f, &pass, &fail);
    fprintf(out, "},\n  \"checks\": {\"passed\": %" PRIu64 ", \"failed\": %" PRIu64 ", \"rate\": ", pass, fail);
    if (pass + fail)
        json_out_num(out, (double)pass / (double)(pass + fail), 6);
    else
        fputs("null", out);
    fputs(", \"names\": {", out);
    const char *sep = "";
    for (uint32_t i = 0; i < f->nchecks; i++) {
        const struct stats_check *c = &f->checks[i];
        if (!c->name)
            continue;
        fputs(sep, out);
        sep = ", ";
        json_out_str(out, c->name);
        fprintf(out, ": {\"passed\": %" PRIu64 ", \"failed\": %" PRIu64 "}", c->pass, c->fail);
    }
    fputs("}},\n  \"groups\": {", out);
    sep = "";
    for (uint32_t i = 0; i < f->ngroups; i++) {
        const struct stats_group *g = f->groups[i];
        if (!g)
            continue;
        fputs(sep, out);
        sep = ", ";
        json_out_str(out, g->name);
        fprintf(out, ": {\"count\": %" PRIu64 ", \"failed\": %" PRIu64 ", \"duration\": ", g->count, g->failed);
        report_json_hist_obj(out, &g->duration);
        fputc('}', out);
    }
    fputs("},\n", out);
}
