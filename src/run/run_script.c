/* The Lua states of a run and their hooks outside the request path: the
 * main state and each worker's loaded with the wrk table (run_load_script,
 * run_set_wrk), setup(thread) and init(args) as the workers are made
 * (run_internal.h), done() after the report (run_done). */
#include "run.h"

#include "run_internal.h"
#include "seed.h"
#include "worker.h"

#include <stdio.h>
#include <string.h>

int run_set_wrk(struct script *s, const struct options *o, const struct target *t, char *err, size_t errlen)
{
    char port[8];
    snprintf(port, sizeof port, "%u", t->port);
    struct http_request_spec spec = run_request_spec(o, t);
    struct script_wrk w = {
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

int run_load_script(const struct options *o, const struct target *t, unsigned index, struct script **out,
                    char *err, size_t errlen)
{
    struct script *s = script_new(err, errlen);
    *out = NULL;
    if (!s)
        return -1;
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

/* thread:stop() of a worker's thread object. */
static void stop_thread(void *arg)
{
    worker_stop(arg);
}

int run_prepare_script(const struct options *o, const struct target *t, struct script *main_script,
                       struct script_thread *th, uint32_t index, struct worker *w, char *err, size_t errlen)
{
    socklen_t len;
    const struct sockaddr *sa = target_sockaddr(t, &len);
    *th = (struct script_thread){.index = index,
                                 .addrlen = len,
                                 .family = o->sources ? o->sources->family : 0,
                                 .stop = stop_thread,
                                 .stop_arg = w};
    memcpy(&th->addr, sa, len);
    if (run_load_script(o, t, index + 1, &th->state, err, errlen) < 0)
        return -1;
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
