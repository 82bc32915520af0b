/* The LuaJIT bridge (see script.h): states with the embedded modules, the
 * wrk table, init(). Loading a script and resolving its hooks once into
 * registry references is script_load.c; the one protected-call path that
 * turns any Lua error into one line naming the file, the line and the hook
 * is script_call.c. The per-request hooks are in script_hooks.c, the main
 * state's (options, setup, done) in script_main.c. */
#include "script_internal.h"

#include "embedded_lua.h"
#include "xalloc.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


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
    s->event = LUA_NOREF;
    snprintf(s->name, sizeof s->name, "volley");
    /* First: table walks that LuaJIT compiles wrongly stay out of its
     * traces in everything loaded after (lua/volley/traverse.lua says why);
     * then the count of the script's own coroutine resumes, before the
     * script can keep coroutine.resume (flows refuse a request inside one:
     * lua/volley/coroutines.lua). */
    if (script_require(s, "volley.traverse", err, errlen) < 0)
        goto failed;
    lua_pushcfunction(L, table_walk);
    if (script_pcall(s, 1, 0, NULL, err, errlen) < 0 || script_require(s, "volley.coroutines", err, errlen) < 0)
        goto failed;
    lua_pop(L, 1);
    if (script_require(s, "volley.bridge", err, errlen) < 0)
        goto failed;
    s->bridge = luaL_ref(L, LUA_REGISTRYINDEX);
    script_push_bridge(s, "request");
    s->bridge_request = luaL_ref(L, LUA_REGISTRYINDEX);
    script_push_bridge(s, "request_bytes");
    s->bridge_request_bytes = luaL_ref(L, LUA_REGISTRYINDEX);
    script_push_bridge(s, "conns");
    s->conns = luaL_ref(L, LUA_REGISTRYINDEX);
    script_push_bridge(s, "start");
    lua_pushlightuserdata(L, (void *)script_api());
    if (script_pcall(s, 1, 0, NULL, err, errlen) < 0)
        goto failed;
    return s;
failed:
    script_free(s);
    return NULL;
}

void script_free(struct script *s)
{
    if (!s)
        return;
    lua_close(s->L);
    script_flow_free(s);
    names_cache_free(&s->names.cache);
    free(s);
}

int script_require(struct script *s, const char *module, char *err, size_t errlen)
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
    if (script_require(s, "wrk", err, errlen) < 0)
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
    /* No default Host or User-Agent yet: script_init makes them once the
     * chunk has run, from the wrk.host, wrk.port and wrk.headers the chunk
     * may have changed. */
    lua_newtable(L);                                /* wrk headers */
    for (size_t i = 0; i < r->nheaders; i++)
        set_header(L, r->headers[i]);
    lua_setfield(L, -2, "headers");                 /* wrk */
    script_open_threads(L);
    lua_getfield(L, -1, "_set_protocol");
    lua_pushboolean(L, r->http10);
    lua_pushboolean(L, r->keepalive);
    lua_call(L, 2, 0); /* sets two upvalues: cannot fail */
    lua_getfield(L, -1, "_set_user_agent");
    if (r->user_agent)
        lua_pushstring(L, r->user_agent);
    else
        lua_pushnil(L);
    lua_call(L, 1, 0); /* sets an upvalue: cannot fail */
    lua_getfield(L, -1, "_set_proxy");
    lua_pushstring(L, r->origin);                   /* nil when NULL */
    lua_pushstring(L, r->proxy_auth);
    lua_call(L, 2, 0); /* sets two fields: cannot fail */
    lua_setglobal(L, "wrk");
    script_push_bridge(s, "set_target");
    lua_pushstring(L, w->scheme);
    lua_pushstring(L, w->host);
    lua_pushinteger(L, w->port_number);
    lua_pushstring(L, r->path);
    lua_pushinteger(L, w->shard);
    lua_pushinteger(L, w->shards);
    if (w->allow)
        lua_pushstring(L, w->allow);
    else
        lua_pushnil(L);
    return script_pcall(s, 7, 0, NULL, err, errlen);
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

int script_users_seed(struct script *s, double seed, char *err, size_t errlen)
{
    script_push_bridge(s, "set_users_seed");
    lua_pushnumber(s->L, seed);
    return script_pcall(s, 1, 0, NULL, err, errlen);
}

int script_init(struct script *s, const char *url, char *const *args, int nargs, char *err, size_t errlen)
{
    lua_State *L = s->L;
    script_push_bridge(s, "set_defaults");
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
    if (script_pcall(s, n, 1, script_hook_name(h), err, errlen) < 0)
        return -1;
    int rc = 0;
    if (lua_isnil(L, -1)) {
        snprintf(out, outlen, "%s", "");
    } else if (lua_type(L, -1) == LUA_TSTRING) {
        snprintf(out, outlen, "%s", lua_tostring(L, -1));
    } else {
        snprintf(err, errlen, "%s: in %s(): returned a %s (a string or nil expected)", s->name, script_hook_name(h),
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
