/* Loading a script (a file, or a bundled one by name) and resolving its
 * hooks once into registry references: a scenario table's keys checked,
 * a flow's hooks against the per-request ones, response() bound. */
#include "script_internal.h"

#include "embedded_lua.h"
#include "nearest.h"
#include "quote.h"

#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const hook_names[SCRIPT_HOOKS] = {
    "options", "setup", "init", "connect", "request", "delay", "response", "done", "user", "event",
};

/* Keys of a scenario table that are not hooks resolved here: a flow's data
 * file (volley.data, read by the flow when each iteration starts), what a
 * flow runs besides user(u) (lua/volley/runner.lua checks them), its
 * teardown(data, u) (bridge.lua reads it from the table, script_aside.c),
 * and the list of several scenarios (script_scenarios.c). */
static const char *const table_fields[] = {"data", "tasks", "sequence", "wait", "on_start", "on_stop", "teardown",
                                           "scenarios"};

const char *script_hook_name(enum script_hook h)
{
    return hook_names[h];
}

static const struct embedded_lua *find_embedded(const char *name)
{
    for (size_t i = 0; i < embedded_lua_count; i++)
        if (strcmp(embedded_lua[i].name, name) == 0)
            return &embedded_lua[i];
    return NULL;
}

/* err for a bundled script NAME that does not exist: a bundled name close
 * to it, or a file of that name that needs a '/' to be read as one. */
static void no_bundled(const struct script *s, const char *name, char *err, size_t errlen)
{
    const char *names[64];
    size_t n = 0;
    for (size_t i = 0; i < embedded_lua_count && n < sizeof names / sizeof names[0]; i++)
        if (strncmp(embedded_lua[i].name, "scripts.", 8) == 0)
            names[n++] = embedded_lua[i].name + 8;
    const char *near = nearest_name(name, names, n);
    if (near)
        snprintf(err, errlen, "-s %s: no such bundled script (did you mean \"%s\"?)", s->name, near);
    else if (access(name, F_OK) == 0)
        snprintf(err, errlen, "-s %s: no such bundled script (for the file, write -s ./%s)", s->name, s->name);
    else
        snprintf(err, errlen, "-s %s: no such bundled script", s->name);
}

/* Pushes the script's chunk. */
static int load_chunk(struct script *s, const char *path_or_name, char *err, size_t errlen)
{
    lua_State *L = s->L;
    size_t n = strlen(path_or_name);
    bool is_path = strchr(path_or_name, '/') || (n > 4 && strcmp(path_or_name + n - 4, ".lua") == 0);
    if (!is_path) {
        char module[300];
        snprintf(module, sizeof module, "scripts.%s", path_or_name);
        const struct embedded_lua *m = find_embedded(module);
        if (!m) {
            no_bundled(s, path_or_name, err, errlen);
            return -1;
        }
        if (luaL_loadbuffer(L, (const char *)m->code, m->size, m->name) != 0)
            goto failed;
        return 0;
    }
    /* Why it cannot be read, in the system's words (a missing file, a
     * directory, no permission), before Lua's own longer message. */
    FILE *f = fopen(path_or_name, "r");
    bool unreadable = !f || (getc(f) == EOF && ferror(f));
    int why = errno;
    if (f)
        fclose(f);
    if (unreadable) {
        /* "-s ab.lua" for the bundled ab: no file of that name, a bundled
         * script of the name without ".lua". */
        char module[300] = "";
        if (!strchr(path_or_name, '/')) /* then it ends in ".lua" */
            snprintf(module, sizeof module, "scripts.%.*s", (int)(n - 4), path_or_name);
        if (why == ENOENT && *module && find_embedded(module))
            snprintf(err, errlen, "-s %s: %s (the bundled script is -s %.*s)", s->name, strerror(why), (int)(n - 4),
                     path_or_name);
        else
            snprintf(err, errlen, "-s %s: %s", s->name, strerror(why));
        return -1;
    }
    if (luaL_loadfile(L, path_or_name) != 0)
        goto failed;
    return 0;
failed:
    script_format_error(s, lua_tostring(L, -1), NULL, err, errlen);
    lua_pop(L, 1);
    return -1;
}

/* A scenario table (at the top of the stack) holds hooks only: any other
 * key is a misspelt hook (or a helper that belongs in a local), an error
 * before the run. Returns 0, or -1 with err naming the key and the nearest
 * hook. */
static int check_hook_keys(struct script *s, char *err, size_t errlen)
{
    static const char hooks[] =
        "the hooks are options, setup, init, connect, request, delay, response, event, done and user";
    lua_State *L = s->L;
    lua_pushnil(L);
    while (lua_next(L, -2)) {                       /* table key value */
        lua_pop(L, 1);
        const char *key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        bool known = false;
        for (int h = 0; h < SCRIPT_HOOKS && key && !known; h++)
            known = strcmp(key, hook_names[h]) == 0;
        for (size_t i = 0; i < sizeof table_fields / sizeof table_fields[0] && key && !known; i++)
            known = strcmp(key, table_fields[i]) == 0;
        if (known)
            continue;
        char q[96];
        /* a misspelt flow field (tasks, on_start) is named as a hook is */
        const char *keys[SCRIPT_HOOKS + sizeof table_fields / sizeof table_fields[0]];
        size_t nkeys = 0;
        for (int h = 0; h < SCRIPT_HOOKS; h++)
            keys[nkeys++] = hook_names[h];
        for (size_t i = 0; i < sizeof table_fields / sizeof table_fields[0]; i++)
            keys[nkeys++] = table_fields[i];
        const char *near = key ? nearest_name(key, keys, nkeys) : NULL;
        if (!key)
            snprintf(err, errlen, "%s: a %s key in the scenario table (%s)", s->name, luaL_typename(L, -1), hooks);
        else if (near)
            snprintf(err, errlen, "%s: unknown hook \"%s\" in the scenario table (did you mean \"%s\"?)", s->name,
                     quote_printable(q, sizeof q, key), near);
        else
            snprintf(err, errlen, "%s: unknown hook \"%s\" in the scenario table (%s)", s->name,
                     quote_printable(q, sizeof q, key), hooks);
        lua_pop(L, 1);
        return -1;
    }
    return 0;
}

/* A flow (user) makes its own requests and reads its own responses: the
 * per-request hooks would fight it for the connection. Returns 0, or -1
 * with err naming the hook to drop. */
static int check_flow_hooks(struct script *s, char *err, size_t errlen)
{
    static const enum script_hook per_request[] = {SCRIPT_REQUEST, SCRIPT_RESPONSE, SCRIPT_DELAY, SCRIPT_CONNECT,
                                                   SCRIPT_EVENT};
    for (size_t i = 0; i < sizeof per_request / sizeof per_request[0]; i++) {
        if (!script_has(s, per_request[i]))
            continue;
        const char *h = hook_names[per_request[i]];
        snprintf(err, errlen,
                 "%s: the scenario defines both user() and %s(): choose one (user() is a flow that sends its own "
                 "requests and reads their responses; %s() belongs to per-connection scripts)",
                 s->name, h, h);
        return -1;
    }
    return 0;
}

/* Takes the hook h from the value at the top of the stack (nil: none). */
static int take_hook(struct script *s, enum script_hook h, char *err, size_t errlen)
{
    lua_State *L = s->L;
    switch (lua_type(L, -1)) {
    case LUA_TNIL:
        lua_pop(L, 1);
        return 0;
    case LUA_TFUNCTION:
        s->hooks[h] = luaL_ref(L, LUA_REGISTRYINDEX);
        return 0;
    default:
        snprintf(err, errlen, "%s: %s is a %s, not a function", s->name, hook_names[h], luaL_typename(L, -1));
        lua_pop(L, 1);
        return -1;
    }
}

int script_load(struct script *s, const char *path_or_name, char *err, size_t errlen)
{
    lua_State *L = s->L;
    snprintf(s->name, sizeof s->name, "%s", path_or_name);
    script_push_bridge(s, "run_chunk");
    if (load_chunk(s, path_or_name, err, errlen) < 0) {
        lua_pop(L, 1);
        return -1;
    }
    if (script_pcall(s, 1, 2, NULL, err, errlen) < 0)
        return -1;
    if (lua_isstring(L, -1)) {                      /* result why */
        snprintf(err, errlen, "%s: %s", s->name, lua_tostring(L, -1));
        lua_pop(L, 2);
        return -1;
    }
    lua_pop(L, 1);                                  /* result */
    s->scenario = lua_istable(L, -1);
    if (s->scenario && check_hook_keys(s, err, errlen) < 0) {
        lua_pop(L, 1);
        return -2;
    }
    for (int h = 0; h < SCRIPT_HOOKS; h++) {
        if (s->scenario)
            lua_getfield(L, -1, hook_names[h]);
        else if (h == SCRIPT_OPTIONS || h == SCRIPT_CONNECT || h == SCRIPT_USER || h == SCRIPT_EVENT)
            lua_pushnil(L); /* not wrk hooks: bridge.run_chunk refused such globals */
        else
            lua_getglobal(L, hook_names[h]);
        if (take_hook(s, (enum script_hook)h, err, errlen) < 0) {
            lua_pop(L, 1);
            return -1;
        }
    }
    if (s->scenario && script_scenarios_take(s, err, errlen) < 0) {
        lua_pop(L, 1);
        return -2;
    }
    if (s->scenario && !s->nscenarios) {
        /* A flow's runner compiled (user, tasks or sequence); for tasks
         * or a sequence, a function stands for user() (SCRIPT_USER is how
         * C knows a flow). */
        script_push_bridge(s, "set_scenario");
        lua_pushvalue(L, -2);                       /* table set_scenario table */
        if (script_pcall(s, 1, 1, NULL, err, errlen) < 0) {
            lua_pop(L, 1);
            return -2;
        }
        if (lua_isfunction(L, -1) && !script_has(s, SCRIPT_USER))
            s->hooks[SCRIPT_USER] = luaL_ref(L, LUA_REGISTRYINDEX);
        else
            lua_pop(L, 1);
    }
    lua_pop(L, 1); /* the chunk's result */
    if (script_has(s, SCRIPT_USER) && check_flow_hooks(s, err, errlen) < 0)
        return -2;
    if (script_has(s, SCRIPT_RESPONSE)) {
        script_push_bridge(s, "bind_response");
        lua_rawgeti(L, LUA_REGISTRYINDEX, s->hooks[SCRIPT_RESPONSE]);
        lua_pushboolean(L, s->scenario);
        if (script_pcall(s, 2, 3, NULL, err, errlen) < 0)
            return -1;
        s->response_arity = (int)lua_tointeger(L, -1);
        s->response_reads = lua_toboolean(L, -2);
        lua_pop(L, 2);
        s->response = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    if (script_has(s, SCRIPT_EVENT)) {
        script_push_bridge(s, "bind_event");
        lua_rawgeti(L, LUA_REGISTRYINDEX, s->hooks[SCRIPT_EVENT]);
        if (script_pcall(s, 1, 1, NULL, err, errlen) < 0)
            return -1;
        s->event = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    return 0;
}
