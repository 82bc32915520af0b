/* Several scenarios in one run: each scenario's load decided from what its
 * entry gives and the command line (docs/usage.md "Several scenarios"):
 * users given, or its share of -c by weight; a rate and its max_users; a
 * start, a duration, stages; the threads it runs on. Decided once, before
 * the run, the same in every shard, so that a shard's part of each
 * scenario is shard_part of it, as -c's and -R's are. */
#include "options_internal.h"

#include "units.h"
#include "xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An open scenario without max_users runs on as many users as it starts
 * iterations per second, within these. */
#define OPEN_USERS_MIN 1
#define OPEN_USERS_MAX 1000

/* A default run length when nothing bounds a scenario (-d's default). */
#define DEFAULT_LENGTH_NS (INT64_C(10) * 1000000000)

/* text as a duration: "" is none (0), and "0" or "0s" is 0 too (a start
 * may be the run's). Returns 0, or -1. */
static int duration_of(const char *text, bool zero_ok, int64_t *ns)
{
    *ns = 0;
    if (!text[0])
        return 0;
    char *end;
    double v = strtod(text, &end);
    if (zero_ok && v == 0 && end != text && (!*end || strcmp(end, "s") == 0 || strcmp(end, "ms") == 0))
        return 0;
    return units_parse_duration(text, ns);
}

/* Scenario sc's start, duration and stages parsed; its users and rate
 * from its entry (a weight's share comes later). */
static int parse_one(struct options_scenario *sc, char *err, size_t errlen)
{
    if (duration_of(sc->start_text, true, &sc->start_ns) < 0)
        return snprintf(err, errlen, "scenario \"%s\": start \"%s\" is not a duration (e.g. \"30s\", \"1m\", or "
                        "seconds)", sc->name, sc->start_text), -1;
    int64_t dur = 0;
    if (duration_of(sc->duration_text, false, &dur) < 0)
        return snprintf(err, errlen, "scenario \"%s\": duration \"%s\" is not a duration (e.g. \"30s\", \"1m\", or "
                        "seconds)", sc->name, sc->duration_text), -1;
    sc->length_ns = dur;
    sc->users = sc->open ? sc->max_users : sc->users_given;
    sc->rate = sc->rate_given;
    if (sc->stages_spec) {
        char why[300];
        sc->stages = xmalloc(sizeof *sc->stages);
        double start = sc->open ? (double)sc->rate_given : (double)sc->users_given;
        if (stages_parse(sc->stages, sc->stages_spec, start, why, sizeof why) < 0)
            return snprintf(err, errlen, "scenario \"%s\": stages: %s", sc->name,
                            strncmp(why, "--stages: ", 10) == 0 ? why + 10 : why), -1;
        double peak = stages_peak(sc->stages);
        if (peak < 1 || (!sc->open && peak > 1000000))
            return snprintf(err, errlen, "scenario \"%s\": stages: %s", sc->name,
                            peak < 1 ? "every target is 0: nothing would run" : "more than 1000000 users"), -1;
        if (sc->open)
            sc->rate = (uint64_t)peak;
        else if (sc->weight)
            return snprintf(err, errlen, "scenario \"%s\": stages with weight: the stages give its users (their "
                            "peak)", sc->name), -1;
        else
            sc->users = (uint32_t)peak;
        sc->length_ns = sc->stages->total_ns;
    }
    if (sc->open && !sc->users) {
        uint64_t n = sc->rate < OPEN_USERS_MIN ? OPEN_USERS_MIN : sc->rate > OPEN_USERS_MAX ? OPEN_USERS_MAX : sc->rate;
        sc->users = (uint32_t)n;
    }
    return 0;
}

/* -c split over the scenarios with a weight, exactly: scenario j's share
 * is floor(c * W_j / W) - floor(c * W_{j-1} / W), W_j the weights up to
 * and including j's; the shares add up to -c. */
static int split_weights(struct options *o, char *err, size_t errlen)
{
    uint64_t total = 0, cum = 0;
    for (size_t i = 0; i < o->nscenarios; i++)
        total += o->scenarios[i].weight;
    if (!total) {
        if (o->connections_given)
            return snprintf(err, errlen, "-c: every scenario gives its own users (users = N, or a rate and "
                            "max_users): -c is split only over scenarios with a weight"), -1;
        return 0;
    }
    uint64_t before = 0;
    for (size_t i = 0; i < o->nscenarios; i++) {
        struct options_scenario *sc = &o->scenarios[i];
        if (!sc->weight)
            continue;
        cum += sc->weight;
        uint64_t upto = (uint64_t)o->connections * cum / total;
        sc->users = (uint32_t)(upto - before);
        before = upto;
        if (!sc->users)
            return snprintf(err, errlen, "scenario \"%s\": -c %u split by weight (%u of %" PRIu64 ") gives it no "
                            "user (a larger -c)", sc->name, o->connections, sc->weight, total), -1;
    }
    return 0;
}

int options_scenarios(struct options *o, char *err, size_t errlen)
{
    if (o->rate)
        return snprintf(err, errlen, "-R: the script's scenarios give their own load (an open scenario's rate = N)"),
               -1;
    if (o->stages_spec)
        return snprintf(err, errlen, "--stages: the script's scenarios give their own load (a scenario's stages)"), -1;
    if (o->iterations)
        return snprintf(err, errlen, "--iterations: the script's scenarios give their own bounds (a scenario's "
                        "iterations)"), -1;
    /* The cap's shares are a worker group's (worker.c: max_rps / lanes):
     * with a group per scenario, each would take the whole cap. */
    if (o->max_rps)
        return snprintf(err, errlen, "--max-rps: not with several scenarios yet (the cap is one scenario's); "
                        "give an open scenario a rate = N instead"), -1;
    for (size_t i = 0; i < o->nscenarios; i++)
        if (parse_one(&o->scenarios[i], err, errlen) < 0)
            return -1;
    if (split_weights(o, err, errlen) < 0)
        return -1;
    uint32_t n = shard_count(o->shard);
    uint64_t conns = 0, threads = 0;
    int64_t end = 0;
    bool endless = false;
    for (size_t i = 0; i < o->nscenarios; i++) {
        struct options_scenario *sc = &o->scenarios[i];
        if (o->duration_given && sc->start_ns >= o->duration_ns)
            return snprintf(err, errlen, "scenario \"%s\": start %s is not before the run's end (-d %.3gs)", sc->name,
                            sc->start_text, (double)o->duration_ns / 1e9), -1;
        if (sc->stages && !sc->open && o->http2 != OPTIONS_H1)
            return snprintf(err, errlen, "scenario \"%s\": stages: users that come and go are not there for "
                            "HTTP/2 yet (an open scenario's stages of rates are)", sc->name), -1;
        if (o->one_first && (sc->open || sc->stages))
            return snprintf(err, errlen, "--one-first: cannot be combined with scenario \"%s\"'s %s", sc->name,
                            sc->open ? "rate (the schedule decides when iterations start)" : "stages"), -1;
        if (sc->users < n)
            return snprintf(err, errlen, "scenario \"%s\": %u user%s cannot be split over --shard's %u shards (give "
                            "it at least one for each)", sc->name, sc->users, sc->users == 1 ? "" : "s", n), -1;
        /* Its threads: -t's, but no more than any shard's part of its users
         * (the same count in every shard, so the schedule's lanes agree). */
        uint32_t least = sc->users / n;
        sc->threads = o->threads < least ? o->threads : least;
        if (sc->iterations && sc->threads > sc->iterations)
            sc->threads = (uint32_t)sc->iterations;
        if (!sc->length_ns && !sc->iterations)
            sc->length_ns = o->duration_given ? o->duration_ns - sc->start_ns : DEFAULT_LENGTH_NS;
        if (o->duration_given && sc->length_ns > o->duration_ns - sc->start_ns)
            sc->length_ns = o->duration_ns - sc->start_ns; /* -d bounds the whole run */
        if (sc->length_ns) {
            if (sc->start_ns + sc->length_ns > end)
                end = sc->start_ns + sc->length_ns;
        } else {
            endless = true; /* it ends with its iterations */
        }
        conns += sc->users;
        threads += sc->threads;
    }
    if (conns > 10000000)
        return snprintf(err, errlen, "the scenarios' users add up to %" PRIu64 ", more than 10000000", conns), -1;
    if (!o->duration_given)
        o->duration_ns = endless ? 0 : end;
    o->connections = (uint32_t)conns;
    o->threads = (uint32_t)threads;
    return 0;
}

const struct options_scenario *options_scenario_find(const struct options *o, const char *name)
{
    for (size_t i = 0; i < o->nscenarios; i++)
        if (strcmp(o->scenarios[i].name, name) == 0)
            return &o->scenarios[i];
    return NULL;
}
