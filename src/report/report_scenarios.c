/* Several scenarios in one run (run_result.scenarios): the text report's
 * Scenarios table, the JSON's "scenarios" list (each one's requests,
 * failures, latency and iterations, in the members the run's own have,
 * so that a saved result reads them back the same way), and the figures a
 * {scenario="NAME"} threshold is judged on. */
#include "fmt.h"
#include "json_out.h"
#include "quote.h"
#include "report.h"
#include "report_internal.h"

#include <inttypes.h>
#include <string.h>

const struct stats *report_threshold_stats(const struct run_result *r, const struct threshold *th,
                                           int64_t *duration_ns)
{
    static struct stats none; /* zeroed: a figure with no data */
    *duration_ns = r->duration_ns;
    if (!th->scenario)
        return &r->stats;
    for (uint32_t i = 0; i < r->nscenarios; i++)
        if (strcmp(r->scenarios[i].name, th->scenario) == 0) {
            *duration_ns = r->scenarios[i].duration_ns;
            return &r->scenarios[i].stats;
        }
    return &none;
}

void report_judge_thresholds(const struct options *o, struct run_result *r)
{
    for (size_t i = 0; i < o->nthresholds; i++) {
        bool aborted = r->thresholds[i].aborted;
        int64_t ns;
        const struct stats *s = report_threshold_stats(r, &o->thresholds[i], &ns);
        threshold_eval(&o->thresholds[i], s, ns, &r->thresholds[i]);
        r->thresholds[i].aborted = aborted;
    }
}

/* "closed 10 users" or "open 20/s (50 users)". */
static const char *model_of(const struct run_scenario *sc, char *buf, size_t len)
{
    if (sc->open)
        snprintf(buf, len, "open %" PRIu64 "/s (%u users)", sc->rate, sc->users);
    else
        snprintf(buf, len, "closed %u user%s", sc->users, sc->users == 1 ? "" : "s");
    return buf;
}

void report_scenarios_text(FILE *out, const struct run_result *r)
{
    if (!r->nscenarios)
        return;
    int width = 8;
    for (uint32_t i = 0; i < r->nscenarios; i++)
        if ((int)strlen(r->scenarios[i].name) > width)
            width = (int)strlen(r->scenarios[i].name);
    fprintf(out, "  %-*s %-24s %7s %9s %9s %7s %10s %7s %9s %9s %9s\n", width + 2, "Scenarios", "load", "start",
            "ran", "requests", "failed", "iterations", "failed", "iter/s", "p50", "p99");
    for (uint32_t i = 0; i < r->nscenarios; i++) {
        const struct run_scenario *sc = &r->scenarios[i];
        const struct stats *s = &sc->stats;
        char m[64], st[32], ran[32], p50[32], p99[32];
        double secs = (double)sc->duration_ns / 1e9;
        fprintf(out, "    ");
        quote_write(out, sc->name);
        fprintf(out, "%*s %-24s %7s %9s %9" PRIu64 " %7" PRIu64 " %10" PRIu64 " %7" PRIu64 " %9.2f %9s %9s\n",
                width - (int)strlen(sc->name), "", model_of(sc, m, sizeof m),
                sc->start_ns ? fmt_time(st, sizeof st, (double)sc->start_ns) : "0s", fmt_time(ran, sizeof ran, (double)sc->duration_ns),
                s->started, stats_failed(s), s->flow.completed, s->flow.failed,
                secs > 0 ? (double)s->flow.completed / secs : 0.0,
                s->latency.count ? fmt_time(p50, sizeof p50, (double)hist_percentile(&s->latency, 50)) : "-",
                s->latency.count ? fmt_time(p99, sizeof p99, (double)hist_percentile(&s->latency, 99)) : "-");
    }
}

void report_scenarios_json(FILE *out, const struct run_result *r)
{
    if (!r->nscenarios) {
        fputs("  \"scenarios\": null,\n", out);
        return;
    }
    fputs("  \"scenarios\": [", out);
    for (uint32_t i = 0; i < r->nscenarios; i++) {
        const struct run_scenario *sc = &r->scenarios[i];
        const struct stats *s = &sc->stats;
        double secs = (double)sc->duration_ns / 1e9;
        fputs(i ? ", {\n  \"name\": " : "{\n  \"name\": ", out);
        json_out_str(out, sc->name);
        fprintf(out, ",\n  \"model\": \"%s\", \"users\": %u, \"rate\": ", sc->open ? "open" : "closed", sc->users);
        if (sc->open)
            fprintf(out, "%" PRIu64, sc->rate);
        else
            fputs("null", out);
        fputs(", \"start\": ", out);
        json_out_num(out, (double)sc->start_ns / 1e9, 6);
        fprintf(out, ", \"start_ns\": %" PRId64 ", \"duration\": ", sc->start_ns);
        json_out_num(out, secs, 6);
        fprintf(out, ", \"duration_ns\": %" PRId64 ",\n", sc->duration_ns);
        fprintf(out,
                "  \"requests\": {\"started\": %" PRIu64 ", \"completed\": %" PRIu64 ", \"failed\": %" PRIu64
                ", \"cut_off\": %" PRIu64 "},\n  \"requests_per_sec\": ",
                s->started, s->completed, stats_failed(s), s->cut_off);
        json_out_num(out, secs > 0 ? (double)s->completed / secs : 0.0, 3);
        if (sc->open)
            fprintf(out, ",\n  \"arrivals\": {\"sent\": %" PRIu64 ", \"unsent\": %" PRIu64 "}", s->arrivals,
                    s->unsent);
        fputs(",\n  \"status\": ", out);
        report_json_status(out, s->status);
        fputs(",\n  \"errors\": ", out);
        report_json_errors(out, s->errors);
        fputs(",\n  \"failures\": ", out);
        report_json_reasons(out, s->reasons, s->nreasons, s->reasons_more, s->reasons_more_count);
        fputs(",\n", out);
        report_flow_json_of(out, &s->flow, sc->duration_ns, sc->open, s->flow.cap_wait.count != 0);
        report_json_hist(out, "latency", &s->latency, 1);
        fputs("}", out);
    }
    fputs("],\n", out);
}
