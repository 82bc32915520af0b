/* The LuaJIT bridge (see script.h): states with the embedded modules,
 * loading a script, resolving hooks once into registry references, and the
 * one protected-call path that turns any Lua error into one line naming the
 * file, the line and the hook. The per-request hooks are in script_hooks.c,
 * the main state's (options, setup, done) in script_main.c. */
#include "script_internal.h"

#include "embedded_lua.h"
#include "nearest.h"
#include "quote.h"
#include "xalloc.h"

#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int require_module(struct script *s, const char *module, char *err, size_t errlen);

static const char *const hook_names[SCRIPT_HOOKS] = {
    "options", "setup", "init", "connect", "request", "delay", "response", "done", "user",
};

/* Keys of a scenario table that are not hooks: a flow's data file
 * (volley.data, read by the flow when each iteration starts). */
static const char *const table_fields[] = {"data"};

const char *script_hook_name(enum script_hook h)
{
    return hook_names[h];
}

const char *script_name(const struct script *s)
{
    return s->name;
}

/* package.preload loader for an embedded module: upvalue 1 is its index. */
static int load_embedded(lua_State *L)
{
    const struct embedded_lua *m = &embedded_lua[lua_tointeger(L, lua_upvalueindex(1))];
    if (luaL_loadbuffer(L, (const char *)m->code, m->size, m->name) != 0)
        return lua_error(L);
    lua_call(L, 0, 1); /* inside require, itself protected by its caller */
    return 1;
}

static void preload_embedded(lua_State *L)
{
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");                 /* package preload */
    for (size_t i = 0; i < embedded_lua_count; i++) {
        lua_pushinteger(L, (lua_Integer)i);
        lua_pushcclosure(L, load_embedded, 1);
        lua_setfield(L, -2, embedded_lua[i].name);
    }
    lua_pop(L, 2);
}

/* next(t, k) for lua/volley/traverse.lua, in C: a call the JIT does not
 * compile into its traces (it stitches around it). lua_next raises
 * "invalid key to 'next'" as the builtin does. */
static int table_walk(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    if (lua_next(L, 1))
        return 2;
    lua_pushnil(L);
    return 1;
}

/* Message handler for lua_pcall: makes any error object a string. */
static int message_handler(lua_State *L)
{
    if (lua_type(L, 1) == LUA_TSTRING)
        return 1;
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
        return 1;
    lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    return 1;
}

struct script *script_new(char *err, size_t errlen)
{
    lua_State *L = luaL_newstate();
    if (!L) {
        snprintf(err, errlen, "cannot create a Lua state (out of memory)");
        return NULL;
    }
    luaL_openlibs(L);
    preload_embedded(L);
    struct script *s = xcalloc(1, sizeof *s);
    s->L = L;
    for (int h = 0; h < SCRIPT_HOOKS; h++)
        s->hooks[h] = LUA_NOREF;
    lua_newtable(L);
    s->anchors = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushcfunction(L, message_handler);
    s->handler = luaL_ref(L, LUA_REGISTRYINDEX);
    s->response = LUA_NOREF;
    snprintf(s->name, sizeof s->name, "volley");
    /* First: table walks that LuaJIT compiles wrongly stay interpreted in
     * everything loaded after (lua/volley/traverse.lua says why). */
    if (require_module(s, "volley.traverse", err, errlen) < 0) {
        script_free(s);
        return NULL;
    }
    lua_pushcfunction(L, table_walk);
    if (script_pcall(s, 1, 0, NULL, err, errlen) < 0) {
        script_free(s);
        return NULL;
    }
    if (require_module(s, "volley.bridge", err, errlen) < 0) {
        script_free(s);
        return NULL;
    }
    s->bridge = luaL_ref(L, LUA_REGISTRYINDEX);
    script_push_bridge(s, "request");
    s->bridge_request = luaL_ref(L, LUA_REGISTRYINDEX);
    script_push_bridge(s, "request_bytes");
    s->bridge_request_bytes = luaL_ref(L, LUA_REGISTRYINDEX);
    script_push_bridge(s, "conns");
    s->conns = luaL_ref(L, LUA_REGISTRYINDEX);
    script_push_bridge(s, "start");
    lua_pushlightuserdata(L, (void *)script_api());
    if (script_pcall(s, 1, 0, NULL, err, errlen) < 0) {
        script_free(s);
        return NULL;
    }
    return s;
}

void script_push_bridge(struct script *s, const char *name)
{
    lua_rawgeti(s->L, LUA_REGISTRYINDEX, s->bridge);
    lua_getfield(s->L, -1, name);
    lua_remove(s->L, -2);
}

void script_set_phase(struct script *s, const char *phase)
{
    lua_State *L = s->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->bridge);
    lua_pushstring(L, phase);
    lua_setfield(L, -2, "phase");
    lua_pop(L, 1);
}

void script_free(struct script *s)
{
    if (!s)
        return;
    lua_close(s->L);
    script_flow_free(s);
    free(s);
}

/* "file:line: message" -> "file:line: in hook(): message"; a message
 * without a position gets the script's name in front. */
static void format_error(const struct script *s, const char *msg, const char *hook, char *err, size_t errlen)
{
    const char *p = msg;
    /* A position is "chunk:digits: " at the start. */
    const char *colon = strchr(msg, ':');
    while (colon) {
        const char *d = colon + 1;
        while (*d >= '0' && *d <= '9')
            d++;
        if (d > colon + 1 && d[0] == ':' && d[1] == ' ') {
            p = d + 2;
            break;
        }
        colon = strchr(colon + 1, ':');
    }
    int poslen = (int)(p - msg);
    const char *nl = strchr(p, '\n');
    int restlen = nl ? (int)(nl - p) : (int)strlen(p);
    if (poslen == 0 && hook)
        snprintf(err, errlen, "%s: in %s(): %.*s", s->name, hook, restlen, p);
    else if (poslen == 0)
        snprintf(err, errlen, "%s: %.*s", s->name, restlen, p);
    else if (hook)
        snprintf(err, errlen, "%.*sin %s(): %.*s", poslen, msg, hook, restlen, p); /* the position ends in ": " */
    else
        snprintf(err, errlen, "%.*s%.*s", poslen, msg, restlen, p);
}

/* The one way volley calls into Lua (script_internal.h). */
int script_pcall(struct script *s, int nargs, int nres, const char *hook, char *err, size_t errlen)
{
    lua_State *L = s->L;
    int base = lua_gettop(L) - nargs;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->handler); /* made once: a C closure per call would be garbage */
    lua_insert(L, base);                            /* handler f args */
    script_guard_enter(s, false);
    int rc = lua_pcall(L, nargs, nres, base);
    script_guard_leave(s);
    lua_remove(L, base);
    if (rc != 0) {
        format_error(s, lua_tostring(L, -1), hook, err, errlen);
        lua_pop(L, 1);
        return -1;
    }
    return 0;
}

static const struct embedded_lua *find_embedded(const char *name)
{
    for (size_t i = 0; i < embedded_lua_count; i++)
        if (strcmp(embedded_lua[i].name, name) == 0)
            return &embedded_lua[i];
    return NULL;
}

/* Pushes require(module), protected. */
static int require_module(struct script *s, const char *module, char *err, size_t errlen)
{
    lua_getglobal(s->L, "require");
    lua_pushstring(s->L, module);
    return script_pcall(s, 1, 1, NULL, err, errlen);
}

/* headers[name] = value for "Name: value" (value without leading spaces). */
static void set_header(lua_State *L, const char *line)
{
    const char *colon = strchr(line, ':');
    const char *v = colon + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    lua_pushlstring(L, line, (size_t)(colon - line));
    lua_pushstring(L, v);
    lua_settable(L, -3);
}

int script_set_wrk(struct script *s, const struct script_wrk *w, char *err, size_t errlen)
{
    lua_State *L = s->L;
    if (require_module(s, "wrk", err, errlen) < 0)
        return -1;                                  /* wrk */
    lua_pushstring(L, w->scheme);
    lua_setfield(L, -2, "scheme");
    lua_pushstring(L, w->host);
    lua_setfield(L, -2, "host");
    if (w->port)
        lua_pushstring(L, w->port);
    else
        lua_pushnil(L);
    lua_setfield(L, -2, "port");
    const struct http_request_spec *r = w->req;
    lua_pushstring(L, r->method);
    lua_setfield(L, -2, "method");
    lua_pushstring(L, r->path);
    lua_setfield(L, -2, "path");
    if (r->body)
        lua_pushlstring(L, r->body, r->body_len);
    else
        lua_pushnil(L);
    lua_setfield(L, -2, "body");
    /* No default Host yet: script_init makes it once the chunk has run,
     * from the wrk.host and wrk.port the chunk may have changed. */
    lua_newtable(L);                                /* wrk headers */
    for (size_t i = 0; i < r->nheaders; i++)
        set_header(L, r->headers[i]);
    lua_setfield(L, -2, "headers");                 /* wrk */
    script_open_threads(L);
    lua_getfield(L, -1, "_set_protocol");
    lua_pushboolean(L, r->http10);
    lua_pushboolean(L, r->keepalive);
    lua_call(L, 2, 0); /* sets two upvalues: cannot fail */
    lua_setglobal(L, "wrk");
    script_push_bridge(s, "set_target");
    lua_pushstring(L, w->scheme);
    lua_pushstring(L, w->host);
    lua_pushinteger(L, w->port_number);
    lua_pushstring(L, r->path);
    lua_pushinteger(L, w->shard);
    lua_pushinteger(L, w->shards);
    return script_pcall(s, 6, 0, NULL, err, errlen);
}

int script_seed(struct script *s, double seed, char *err, size_t errlen)
{
    lua_State *L = s->L;
    lua_getglobal(L, "math");
    lua_getfield(L, -1, "randomseed");
    lua_remove(L, -2);                              /* math.randomseed */
    lua_pushnumber(L, seed);
    return script_pcall(s, 1, 0, NULL, err, errlen);
}

int script_init(struct script *s, const char *url, char *const *args, int nargs, char *err, size_t errlen)
{
    lua_State *L = s->L;
    script_push_bridge(s, "set_host");
    if (script_pcall(s, 0, 0, NULL, err, errlen) < 0)
        return -1;
    if (!script_has(s, SCRIPT_INIT))
        return 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->hooks[SCRIPT_INIT]);
    lua_createtable(L, nargs, 1);                   /* init args */
    lua_pushstring(L, url);
    lua_rawseti(L, -2, 0);
    for (int i = 0; i < nargs; i++) {
        lua_pushstring(L, args[i]);
        lua_rawseti(L, -2, i + 1);
    }
    if (script_pcall(s, 1, 0, "init", err, errlen) < 0)
        return -1;
    return 0;
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
    format_error(s, lua_tostring(L, -1), NULL, err, errlen);
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
        "the hooks are options, setup, init, connect, request, delay, response, done and user";
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
        const char *near = key ? nearest_name(key, hook_names, SCRIPT_HOOKS) : NULL;
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
    static const enum script_hook per_request[] = {SCRIPT_REQUEST, SCRIPT_RESPONSE, SCRIPT_DELAY, SCRIPT_CONNECT};
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
        else if (h == SCRIPT_OPTIONS || h == SCRIPT_CONNECT || h == SCRIPT_USER)
            lua_pushnil(L); /* not wrk hooks: bridge.run_chunk refused such globals */
        else
            lua_getglobal(L, hook_names[h]);
        if (take_hook(s, (enum script_hook)h, err, errlen) < 0) {
            lua_pop(L, 1);
            return -1;
        }
    }
    if (script_has(s, SCRIPT_USER)) {
        script_push_bridge(s, "set_scenario");
        lua_pushvalue(L, -2);                       /* table set_scenario table */
        if (script_pcall(s, 1, 0, NULL, err, errlen) < 0) {
            lua_pop(L, 1);
            return -2;
        }
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
    return 0;
}

bool script_has(const struct script *s, enum script_hook h)
{
    return s->hooks[h] != LUA_NOREF;
}

bool script_is_scenario(const struct script *s)
{
    return s->scenario;
}

int script_call_strings(struct script *s, enum script_hook h, const char *const *args, int n, char *out,
                        size_t outlen, char *err, size_t errlen)
{
    lua_State *L = s->L;
    if (!script_has(s, h))
        return 1;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->hooks[h]);
    for (int i = 0; i < n; i++)
        lua_pushstring(L, args[i]);
    if (script_pcall(s, n, 1, hook_names[h], err, errlen) < 0)
        return -1;
    int rc = 0;
    if (lua_isnil(L, -1)) {
        snprintf(out, outlen, "%s", "");
    } else if (lua_type(L, -1) == LUA_TSTRING) {
        snprintf(out, outlen, "%s", lua_tostring(L, -1));
    } else {
        snprintf(err, errlen, "%s: in %s(): returned a %s (a string or nil expected)", s->name, hook_names[h],
                 luaL_typename(L, -1));
        rc = -1;
    }
    lua_pop(L, 1);
    return rc;
}

char *script_library_version(char *buf, size_t len)
{
    lua_State *L = luaL_newstate();
    snprintf(buf, len, "LuaJIT (unknown version)");
    if (!L)
        return buf;
    luaL_openlibs(L);
    lua_getglobal(L, "jit");
    if (lua_istable(L, -1)) {
        lua_getfield(L, -1, "version");
        if (lua_type(L, -1) == LUA_TSTRING)
            snprintf(buf, len, "%s", lua_tostring(L, -1));
    }
    lua_close(L);
    return buf;
}

char *script_module_string(const char *module, const char *field, char *err, size_t errlen)
{
    struct script *s = script_new(err, errlen);
    if (!s)
        return NULL;
    char *out = NULL;
    if (require_module(s, module, err, errlen) == 0) {
        lua_getfield(s->L, -1, field);
        if (lua_type(s->L, -1) == LUA_TSTRING)
            out = xstrdup(lua_tostring(s->L, -1));
        else
            snprintf(err, errlen, "%s.%s: not a string", module, field);
    }
    script_free(s);
    return out;
}
