/* The hooks of a worker's state during the run: connect, delay, request and
 * response, each one protected call through the bridge (lua/volley/bridge.lua),
 * and what the state keeps for the end of the run (failures by reason). */
#include "script_internal.h"

#include <lauxlib.h>
#include <stdio.h>

void script_bind(struct script *s, const struct script_worker *w)
{
    lua_State *L = s->L;
    s->thread = w->thread;
    script_push_bridge(s, "bind");
    lua_pushinteger(L, (lua_Integer)w->thread->index + 1);
    lua_pushinteger(L, (lua_Integer)w->conn_base);
    lua_pushlightuserdata(L, (void *)w->conn_done);
    lua_pushlightuserdata(L, w->res);
    lua_pushlightuserdata(L, w->metrics);
    char err[256];
    /* bind only stores its arguments: it cannot fail short of memory. */
    if (script_pcall(s, 5, 0, NULL, err, sizeof err) < 0)
        fprintf(stderr, "volley: %s\n", err);
    lua_getglobal(L, "wrk");
    script_push_thread(L, w->thread);
    lua_setfield(L, -2, "thread");
    lua_pop(L, 1);
}

/* Pushes the conn table of a scenario script's connection slot. */
static void push_conn(struct script *s, unsigned slot)
{
    lua_State *L = s->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->conns);    /* conns */
    lua_rawgeti(L, -1, (int)slot + 1);              /* conns conn */
    lua_remove(L, -2);                              /* conn */
}

int script_conn_open(struct script *s, unsigned slot, char *err, size_t errlen)
{
    lua_State *L = s->L;
    script_push_bridge(s, "conn_open");
    lua_pushinteger(L, (lua_Integer)slot);
    if (script_has(s, SCRIPT_CONNECT))
        lua_rawgeti(L, LUA_REGISTRYINDEX, s->hooks[SCRIPT_CONNECT]);
    else
        lua_pushnil(L);
    return script_pcall(s, 2, 0, "connect", err, errlen);
}

int script_delay(struct script *s, unsigned slot, double *ms, char *err, size_t errlen)
{
    lua_State *L = s->L;
    *ms = 0;
    if (!script_has(s, SCRIPT_DELAY))
        return 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->hooks[SCRIPT_DELAY]);
    int nargs = 0;
    if (s->scenario) {
        push_conn(s, slot);
        nargs = 1;
    }
    if (script_pcall(s, nargs, 1, "delay", err, errlen) < 0)
        return -1;
    int rc = 0;
    if (lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) >= 0) {
        *ms = lua_tonumber(L, -1);
    } else if (!lua_isnil(L, -1)) {
        snprintf(err, errlen, "%s: in delay(): returned %s%s (milliseconds >= 0 or nil expected)", s->name,
                 lua_type(L, -1) == LUA_TNUMBER ? "a negative number" : "a ",
                 lua_type(L, -1) == LUA_TNUMBER ? "" : luaL_typename(L, -1));
        rc = -1;
    }
    lua_pop(L, 1);
    return rc;
}

int script_request(struct script *s, unsigned slot, const char **req, size_t *len, char *err, size_t errlen)
{
    lua_State *L = s->L;
    if (script_has(s, SCRIPT_REQUEST)) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, s->bridge_request);
        lua_rawgeti(L, LUA_REGISTRYINDEX, s->hooks[SCRIPT_REQUEST]);
        if (s->scenario)
            push_conn(s, slot);
        else
            lua_pushnil(L);
        if (script_pcall(s, 2, 1, "request", err, errlen) < 0)
            return -1;
    } else {
        lua_getglobal(L, "wrk");
        lua_getfield(L, -1, "format");
        lua_remove(L, -2);
        if (script_pcall(s, 0, 1, NULL, err, errlen) < 0)
            return -1;
    }
    /* The string must outlive this call: it is written from its own memory
     * until the next request of this slot replaces it. */
    *req = lua_tolstring(L, -1, len);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->anchors);
    lua_insert(L, -2);                              /* anchors str */
    lua_rawseti(L, -2, (int)slot + 1);
    lua_pop(L, 1);
    return 0;
}

bool script_response_reads(const struct script *s)
{
    return s->response_reads;
}

int script_response(struct script *s, unsigned slot, bool *failed, char *err, size_t errlen)
{
    lua_State *L = s->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->response);
    int nargs = 0;
    if (s->scenario) {
        push_conn(s, slot);
        nargs = 1;
    }
    if (script_pcall(s, nargs, 1, "response", err, errlen) < 0)
        return -1;
    *failed = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return 0;
}

void script_take_reasons(struct script *s, struct stats *st)
{
    lua_State *L = s->L;
    script_push_bridge(s, "failures");              /* failures */
    lua_pushnil(L);
    while (lua_next(L, -2)) {                       /* failures reason count */
        if (lua_type(L, -2) == LUA_TSTRING)
            stats_add_reason(st, lua_tostring(L, -2), (uint64_t)lua_tonumber(L, -1));
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}
