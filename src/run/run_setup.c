/* A flow's setup(u) and teardown(data, u) (run_setup.h): the load's own
 * run_execute on a copy of the options bounded to one worker, one
 * connection and one iteration, whose one user's iteration is the hook
 * (bridge.lua's aside_user); its figures become a struct run_aside. */
#include "run_setup.h"

#include "run.h"
#include "script_aside.h"
#include "xalloc.h"

#include <errno.h>
#include <stdbool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* o bounded to one iteration of one user, and nothing of the load's own:
 * no rate, stages, thresholds, shard part, start time, progress or
 * output. */
static struct options aside_options(const struct options *o)
{
    struct options a = *o;
    a.connections = 1;
    a.threads = 1;
    a.iterations = 1;
    a.requests = 0;
    a.duration_ns = 0;
    a.rate = 0;
    a.stages = NULL;
    a.stages_spec = NULL;
    a.spin_ns = 0;
    a.nthresholds = 0;
    a.thresholds = NULL;
    a.shard = (struct shard){0, 1};
    a.start_at_given = false;
    a.progress = OPTIONS_PROGRESS_NONE;
    a.samples = false;
    a.heads = false;
    a.show_errors = 0;
    a.heartbeat = 0;
    a.one_first = false;
    a.targets = NULL;
    a.ntargets = 0;
    return a;
}

/* The run's figures as the aside's. */
static void take_figures(const struct stats *s, struct run_aside *aside)
{
    uint64_t failed = stats_failed(s);
    aside->runs = 1;
    aside->requests = s->completed + failed;
    aside->failed_requests = failed;
    aside->ncodes = 0;
    for (int code = 100; code < STATS_STATUS_MAX && aside->ncodes < RUN_ASIDE_CODES; code++)
        if (s->status[code])
            aside->codes[aside->ncodes++] = (struct run_aside_code){(uint16_t)code, s->status[code]};
}

/* Runs plan's role once. Returns what script_aside_outcome does (1 the
 * hook returned, *text its data; 0 it did not, aside->why says why), or
 * -1 with err when the run could not start. */
static int run_aside(const struct options *o, const struct target *t, struct script *main_script,
                     const struct script_aside *plan, struct run_aside *aside, char **text, size_t *len, char *err,
                     size_t errlen)
{
    struct options a = aside_options(o);
    struct run_result res = {0};
    script_aside_plan(main_script, plan);
    int rc = run_execute(&a, t, main_script, NULL, NULL, NULL, &res, err, errlen);
    script_aside_plan(main_script, NULL);
    memset(aside, 0, sizeof *aside);
    if (rc < 0) {
        run_result_free(&res);
        return -1;
    }
    take_figures(&res.stats, aside);
    int done = 0;
    if (res.script_error[0])
        snprintf(aside->why, sizeof aside->why, "%s", res.script_error);
    else if (res.unreachable)
        snprintf(aside->why, sizeof aside->why, "%s: %s", t->url, strerror(res.unreachable));
    else if (res.interrupted)
        snprintf(aside->why, sizeof aside->why, "interrupted");
    else if (res.nthreads)
        done = script_aside_outcome(res.threads[0].state, text, len, aside->why, sizeof aside->why);
    if (done < 0) {
        snprintf(err, errlen, "%s", aside->why);
        run_result_free(&res);
        return -1;
    }
    aside->failed = !done;
    run_result_free(&res);
    return done;
}

int run_setup(const struct options *o, const struct target *t, struct script *main_script, struct run_aside *aside,
              char **text, size_t *len, char *err, size_t errlen)
{
    memset(aside, 0, sizeof *aside);
    *text = NULL;
    *len = 0;
    if (!o->flow || !script_has_aside(main_script, SCRIPT_ROLE_SETUP))
        return 0;
    struct script_aside plan = {.role = SCRIPT_ROLE_SETUP};
    int done = run_aside(o, t, main_script, &plan, aside, text, len, err, errlen);
    if (done < 0)
        return -1;
    if (!done) {
        snprintf(err, errlen, "%s: setup() failed, the run did not start: %s", script_name(main_script),
                 aside->why);
        return -1;
    }
    return 0;
}

int run_teardown(const struct options *o, const struct target *t, struct script *main_script, const char *text,
                 size_t len, const char *source, struct run_aside *aside, char *err, size_t errlen)
{
    memset(aside, 0, sizeof *aside);
    if (!o->flow || !script_has_aside(main_script, SCRIPT_ROLE_TEARDOWN))
        return 0;
    struct script_aside plan = {.role = SCRIPT_ROLE_TEARDOWN, .text = text, .len = len, .source = source};
    char *none = NULL;
    size_t n = 0;
    int done = run_aside(o, t, main_script, &plan, aside, &none, &n, err, errlen);
    free(none);
    if (done < 0) {
        aside->runs = 1;
        aside->failed = true;
        snprintf(aside->why, sizeof aside->why, "%s", err);
        return -1;
    }
    if (!done) {
        snprintf(err, errlen, "%s: teardown() failed: %s", script_name(main_script), aside->why);
        return -1;
    }
    return 0;
}

/* The bound of --setup-data's file: setup_data.lua's MAX_BYTES. */
#define SETUP_FILE_MAX (16u * 1024 * 1024)

int run_setup_read(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "--setup-data %s: %s", path, strerror(errno));
        return -1;
    }
    char *buf = xmalloc(SETUP_FILE_MAX + 1);
    size_t n = fread(buf, 1, SETUP_FILE_MAX + 1, f);
    bool bad = ferror(f);
    int why = errno;
    fclose(f);
    if (bad || n > SETUP_FILE_MAX) {
        if (bad)
            snprintf(err, errlen, "--setup-data %s: %s", path, strerror(why));
        else
            snprintf(err, errlen, "--setup-data %s: more than %u MiB of setup data", path, SETUP_FILE_MAX >> 20);
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

int run_setup_write(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    bool out = strcmp(path, "-") == 0;
    FILE *f = out ? stdout : fopen(path, "wb");
    if (!f) {
        snprintf(err, errlen, "--setup-only %s: %s", path, strerror(errno));
        return -1;
    }
    /* nil is JSON null: a file that says setup returned nothing */
    bool bad = (text ? fwrite(text, 1, len, f) != len : fputs("null", f) == EOF) || fputc('\n', f) == EOF;
    bad = fflush(f) != 0 || bad;
    int why = errno;
    if (!out && fclose(f) != 0)
        bad = true;
    if (bad) {
        snprintf(err, errlen, "--setup-only %s: %s", path, strerror(why));
        return -1;
    }
    return 0;
}

int run_setup_check(const struct options *o, struct script *main_script, char *err, size_t errlen)
{
    if (main_script && script_check_teardown(main_script, o->flow, err, errlen) < 0)
        return -2;
    const char *opt = o->setup_only ? "--setup-only" : o->setup_data ? "--setup-data"
                      : o->teardown_only ? "--teardown-only" : NULL;
    if (!opt)
        return 0;
    if (!o->flow)
        snprintf(err, errlen, "%s: the script is no flow (a scenario with user(u)): setup(u) and teardown(data, u) "
                              "belong to flows", opt);
    else if (o->setup_only && (o->setup_data || o->teardown_only))
        snprintf(err, errlen, "--setup-only: runs setup alone; not with %s",
                 o->setup_data ? "--setup-data" : "--teardown-only");
    else if (o->teardown_only && !o->setup_data)
        snprintf(err, errlen, "--teardown-only: needs --setup-data FILE (the data teardown(data, u) is given)");
    else if (o->setup_only && !script_has_aside(main_script, SCRIPT_ROLE_SETUP))
        snprintf(err, errlen, "--setup-only: %s has no setup(u)", script_name(main_script));
    else if (o->teardown_only && !script_has_aside(main_script, SCRIPT_ROLE_TEARDOWN))
        snprintf(err, errlen, "--teardown-only: %s has no teardown(data, u)", script_name(main_script));
    else
        return 0;
    return -2;
}

int run_setup_begin(const struct options *o, const struct target *t, struct script *main_script,
                    struct run_setup_state *st, struct run_result *res, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    if (o->setup_data) {
        if (run_setup_read(o->setup_data, &st->text, &st->len, err, errlen) < 0)
            return -1;
        snprintf(st->source, sizeof st->source, "--setup-data %s", o->setup_data);
    } else {
        snprintf(st->source, sizeof st->source, "setup()");
        if (o->flow && o->shard.count > 1 && !o->setup_only && script_has_aside(main_script, SCRIPT_ROLE_SETUP))
            fprintf(stderr, "volley: --shard %u/%u: setup() runs in this shard, once per shard; for one setup over "
                            "all shards run --setup-only FILE once and give each shard --setup-data FILE "
                            "(docs/distributed.md)\n", o->shard.index, o->shard.count);
        if (run_setup(o, t, main_script, &res->setup, &st->text, &st->len, err, errlen) < 0)
            return -1;
    }
    if (o->setup_only)
        return run_setup_write(o->setup_only, st->text, st->len, err, errlen) < 0 ? -1 : 1;
    if (o->teardown_only) {
        run_teardown(o, t, main_script, st->text, st->len, st->source, &res->teardown, err, errlen);
        return 1;
    }
    st->plan = (struct script_aside){SCRIPT_ROLE_RUN, st->text, st->len, st->source};
    if (main_script)
        script_aside_plan(main_script, &st->plan);
    return 0;
}

int run_setup_end(const struct options *o, const struct target *t, struct script *main_script,
                  struct run_setup_state *st, struct run_result *res, char *err, size_t errlen)
{
    int rc = 0;
    if (main_script)
        script_aside_plan(main_script, NULL);
    if (!o->setup_data && !o->setup_only && !o->teardown_only && !res->interrupted)
        rc = run_teardown(o, t, main_script, st->text, st->len, st->source, &res->teardown, err, errlen);
    free(st->text);
    st->text = NULL;
    return rc;
}
