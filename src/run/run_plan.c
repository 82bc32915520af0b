/* The workers of a run, as groups: one group for a run of one scenario
 * (the command line's load), one group per scenario for a script with
 * several (options.scenarios), each with its worker config (its load: rate,
 * stages, start, end, threads) and its exact shares of users, iterations
 * and arrivals (shard_part, sched_share), as a run of that scenario alone
 * would have them. After the join each scenario's workers' stats are
 * merged into its own figures. */
#include "run_internal.h"

#include "schedule.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

void run_plan_make(const struct options *o, const struct worker_config *base, struct run_plan *p)
{
    struct shard sh = o->shard;
    p->n = o->nscenarios ? (uint32_t)o->nscenarios : 1;
    p->g = xcalloc(p->n, sizeof *p->g);
    p->nworkers = 0;
    uint64_t users_before = 0;
    for (uint32_t k = 0; k < p->n; k++) {
        struct run_group *g = &p->g[k];
        g->cfg = *base;
        g->cfg.first_id = p->nworkers;
        if (!o->nscenarios) {
            g->threads = o->threads;
            g->users = o->connections;
            /* A flow's budget counts iterations (--iterations), shared as -n's. */
            g->units = o->flow ? o->iterations : o->requests;
            g->arrivals = run_rate_arrivals(o, g->units);
        } else {
            const struct options_scenario *sc = &o->scenarios[k];
            g->threads = sc->threads;
            g->users = sc->users;
            g->units = sc->iterations;
            g->cfg.rate = sc->rate;
            g->cfg.stages = sc->stages;
            g->cfg.arrivals = NULL;
            g->cfg.nworkers = sc->threads;
            g->cfg.start_ns = sc->start_ns;
            g->cfg.stop_ns = !sc->open && sc->length_ns ? sc->start_ns + sc->length_ns : 0;
            g->arrivals = !sc->open       ? 0
                          : sc->iterations ? sc->iterations
                          : sc->stages     ? stages_arrivals(sc->stages)
                                           : sched_total(sc->rate, 0, sc->length_ns);
        }
        g->first = p->nworkers;
        p->nworkers += g->threads;
        /* The shards before this one hold users users_before + 0 ..
         * conn_offset - 1 of the group (conn.id is the run's number). */
        g->shard_users = (uint32_t)shard_part(g->users, sh);
        g->shard_units = shard_part(g->units, sh);
        g->cfg.conn_offset = (uint32_t)(users_before + shard_first(g->users, sh));
        g->req_base = shard_first(g->units, sh);
        users_before += g->users;
    }
}

void run_plan_start(struct run_plan *p, const struct options *o, int64_t t0)
{
    for (uint32_t k = 0; k < p->n; k++) {
        struct worker_config *c = &p->g[k].cfg;
        c->t0 = t0; /* -R's arrival 0 (a scenario's: at its start) and --hlog's interval 0 */
        int64_t length = o->nscenarios ? o->scenarios[k].length_ns : o->duration_ns;
        c->sched_end = c->rate && length ? t0 + c->start_ns + length : 0;
    }
}

void run_plan_share(const struct run_plan *p, uint32_t k, uint32_t i, struct shard sh, uint32_t *conns,
                    uint64_t *budget)
{
    const struct run_group *g = &p->g[k];
    *conns = g->shard_users / g->threads + (i < g->shard_users % g->threads);
    *budget = g->cfg.rate ? sched_share(g->arrivals, (uint32_t)shard_lane(sh, i), g->threads * shard_count(sh))
              : g->units  ? g->shard_units / g->threads + (i < g->shard_units % g->threads)
                          : UINT64_MAX;
}

void run_plan_collect(const struct run_plan *p, const struct options *o, struct worker *workers, uint32_t started,
                      int64_t t0, struct run_result *res)
{
    if (!o->nscenarios)
        return;
    res->nscenarios = p->n;
    res->scenarios = xcalloc(p->n, sizeof *res->scenarios);
    for (uint32_t k = 0; k < p->n; k++) {
        const struct options_scenario *sc = &o->scenarios[k];
        struct run_scenario *rs = &res->scenarios[k];
        memcpy(rs->name, sc->name, sizeof rs->name);
        rs->open = sc->open;
        rs->rate = sc->rate;
        rs->users = sc->users;
        rs->start_ns = sc->start_ns;
        stats_init(&rs->stats);
        int64_t end = t0 + sc->start_ns;
        for (uint32_t i = p->g[k].first; i < p->g[k].first + p->g[k].threads && i < started; i++) {
            stats_merge(&rs->stats, &workers[i].stats);
            if (workers[i].t_end > end)
                end = workers[i].t_end;
        }
        stats_sort_reasons(&rs->stats);
        rs->duration_ns = end - t0 - sc->start_ns;
    }
}

void run_plan_free(struct run_plan *p)
{
    free(p->g);
    p->g = NULL;
}
