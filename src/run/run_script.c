/* The Lua states of a run and their hooks outside the request path: the
 * main state and each worker's loaded with the wrk table (run_load_script,
 * run_set_wrk), setup(thread) and init(args) as the workers are made
 * (run_internal.h), done() after the report (run_done). */
#include "run.h"

#include "run_internal.h"
#include "script_aside.h"
#include "hosts.h"
#include "seed.h"
#include "worker.h"

#include <stdio.h>
#include <string.h>

int run_set_wrk(struct script *s, const struct options *o, const struct target *t, char *err, size_t errlen)
{
    char port[8];
    snprintf(port, sizeof port, "%u", t->port);
    struct http_request_spec spec = run_request_spec(o, t);
    char allow[HOSTS_MAX * 280] = "";
    size_t at = 0;
    for (size_t i = 0; o->allow_hosts && i < o->allow_hosts->n && at < sizeof allow; i++)
        at += (size_t)snprintf(allow + at, sizeof allow - at, "%s %u\n", o->allow_hosts->e[i].name,
                               o->allow_hosts->e[i].port);
    struct script_wrk w = {
        .allow = at ? allow : NULL,
        .scheme = t->scheme,
        .host = t->host,
        .port = t->port_given ? port : NULL,
        .port_number = t->port,
        .shard = o->shard.index,
        .shards = o->shard.count,
        .req = &spec,
    };
    return script_set_wrk(s, &w, err, errlen);
}

/* run_load_script, the state running scenario pick (1-based; 0: none) of
 * a script with several. */
static int load_script(const struct options *o, const struct target *t, unsigned index, unsigned pick,
                       struct script **out, char *err, size_t errlen)
{
    struct script *s = script_new(err, errlen);
    *out = NULL;
    if (!s)
        return -1;
    script_pick_scenario(s, pick);
    int rc = run_set_wrk(s, o, t, err, errlen);
    if (rc == 0)
        rc = script_seed(s, seed_state(o->seed, index), err, errlen);
    if (rc == 0)
        rc = script_users_seed(s, seed_state(o->seed, SEED_USERS), err, errlen);
    if (rc == 0)
        rc = script_load(s, o->script, err, errlen);
    if (rc < 0) {
        script_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int run_load_script(const struct options *o, const struct target *t, unsigned index, struct script **out,
                    char *err, size_t errlen)
{
    return load_script(o, t, index, 0, out, err, errlen);
}

/* thread:stop() of a worker's thread object. */
static void stop_thread(void *arg)
{
    worker_stop(arg);
}

int run_prepare_script(const struct options *o, const struct target *t, struct script *main_script,
                       struct script_thread *th, uint32_t index, unsigned pick, struct worker *w, char *err,
                       size_t errlen)
{
    socklen_t len;
    const struct sockaddr *sa = target_sockaddr(t, &len);
    *th = (struct script_thread){.index = index,
                                 .addrlen = len,
                                 .family = o->sources ? o->sources->family : 0,
                                 .stop = stop_thread,
                                 .stop_arg = w};
    memcpy(&th->addr, sa, len);
    if (load_script(o, t, index + 1, pick, &th->state, err, errlen) < 0 ||
        script_aside_apply(th->state, main_script, err, errlen) < 0)
        return -1;
    /* A flow's setup is setup(u), run once apart (run_setup.c), not
     * setup(thread) for each thread. */
    if (o->flow)
        return 0;
    script_set_phase(main_script, "setup");
    return script_setup(main_script, th, err, errlen);
}

int run_init_script(const struct options *o, const struct target *t, struct script_thread *th, char *err,
                    size_t errlen)
{
    script_set_phase(th->state, "init");
    if (script_init(th->state, t->url, o->script_args, o->nscript_args, err, errlen) < 0)
        return -1;
    script_set_phase(th->state, "run");
    return 0;
}

int run_done(struct script *main_script, const struct run_result *res, char *err, size_t errlen)
{
    if (!main_script)
        return 0;
    int64_t cpu = 0, wall = 0;
    for (uint32_t i = 0; i < res->nworkers; i++) {
        cpu += res->workers[i].cpu_ns;
        wall += res->workers[i].wall_ns;
    }
    return script_done(main_script, &res->stats, res->duration_ns, cpu, wall, res->interrupted,
                       res->tls_known ? &res->tls : NULL, err, errlen);
}
