/* The hooks of a worker's state during the run: connect, delay, request and
 * response, each one protected call through the bridge (lua/volley/bridge.lua),
 * and what the state keeps for the end of the run (failures by reason). */
#include "script_internal.h"

#include "tls.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

/* bridge.c_headers() for res.headers: upvalue 1 is the worker's res. */
static int c_headers(lua_State *L)
{
    script_push_headers(L, lua_touserdata(L, lua_upvalueindex(1)));
    return 1;
}

/* bridge.c_trailers() for res.trailers: the same, of the trailer section
 * (which begins with a line of its own, so it is read from one before). */
static int c_trailers(lua_State *L)
{
    size_t len;
    const char *t = script_res_trailers(lua_touserdata(L, lua_upvalueindex(1)), &len);
    script_push_fields(L, len ? t - 1 : NULL, t + len);
    return 1;
}

void script_bind(struct script *s, const struct script_worker *w)
{
    lua_State *L = s->L;
    s->thread = w->thread;
    s->res = w->res;
    s->names = (struct script_names){0, 0, w->names, w->stats, {.ns = w->names}};
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->bridge);
    lua_pushlightuserdata(L, w->res);
    lua_pushcclosure(L, c_headers, 1);
    lua_setfield(L, -2, "c_headers");
    lua_pushlightuserdata(L, w->res);
    lua_pushcclosure(L, c_trailers, 1);
    lua_setfield(L, -2, "c_trailers");
    lua_pop(L, 1);
    script_push_bridge(s, "bind");
    lua_pushinteger(L, (lua_Integer)w->thread->index + 1);
    lua_pushinteger(L, (lua_Integer)w->conn_base);
    lua_pushlightuserdata(L, (void *)w->conn_done);
    lua_pushlightuserdata(L, w->res);
    lua_pushlightuserdata(L, w->metrics);
    lua_pushlightuserdata(L, &s->names);
    lua_pushinteger(L, NAMES_MAX);
    lua_pushlightuserdata(L, w->event);
    char err[256];
    /* bind only stores its arguments: it cannot fail short of memory. */
    if (script_pcall(s, 8, 0, NULL, err, sizeof err) < 0)
        fprintf(stderr, "volley: %s\n", err);
    lua_getglobal(L, "wrk");
    script_push_thread(L, w->thread);
    lua_setfield(L, -2, "thread");
    lua_pop(L, 1);
    if (script_has(s, SCRIPT_USER))
        script_flow_bind(s, w);
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

int script_request(struct script *s, unsigned slot, const char **req, size_t *len, uint32_t *name, char *err,
                   size_t errlen)
{
    lua_State *L = s->L;
    *name = 0;
    if (script_has(s, SCRIPT_REQUEST) && !s->scenario) {
        /* wrk style: the hook itself, as wrk calls it; only what is not a
         * string goes through the bridge (nil, a table, an error). */
        lua_rawgeti(L, LUA_REGISTRYINDEX, s->hooks[SCRIPT_REQUEST]);
        if (script_pcall(s, 0, 1, "request", err, errlen) < 0)
            return -1;
        if (lua_type(L, -1) != LUA_TSTRING) {
            lua_rawgeti(L, LUA_REGISTRYINDEX, s->bridge_request_bytes);
            lua_insert(L, -2);                      /* request_bytes r */
            if (script_pcall(s, 1, 1, "request", err, errlen) < 0)
                return -1;
        }
    } else if (script_has(s, SCRIPT_REQUEST)) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, s->bridge_request);
        lua_rawgeti(L, LUA_REGISTRYINDEX, s->hooks[SCRIPT_REQUEST]);
        push_conn(s, slot);
        if (script_pcall(s, 2, 1, "request", err, errlen) < 0)
            return -1;
    } else {
        /* No request(): wrk.request(), which is wrk.format() of the wrk
         * fields unless the script replaced it (as scripts/ab.lua does). */
        lua_getglobal(L, "wrk");
        lua_getfield(L, -1, "request");
        lua_remove(L, -2);
        if (script_pcall(s, 0, 1, "wrk.request", err, errlen) < 0)
            return -1;
        if (lua_type(L, -1) != LUA_TSTRING) {
            snprintf(err, errlen, "%s: wrk.request() returned a %s (a string expected)", s->name,
                     luaL_typename(L, -1));
            lua_pop(L, 1);
            return -1;
        }
    }
    /* Named by the hook (volley.name, a table's name) or since the last
     * request; the next one starts unnamed. */
    *name = (uint32_t)s->names.next;
    s->names.next = 0;
    s->stream_asked = s->names.stream != 0;
    s->names.stream = 0;
    /* The string must outlive this call: it is written from its own memory
     * until the next request of this slot replaces it. */
    *req = lua_tolstring(L, -1, len);
    if (*len == 0) {
        lua_pop(L, 1);
        snprintf(err, errlen, "%s: in request(): returned an empty string (a request expected)", s->name);
        return -1;
    }
    /* A request() hook's requests are the script's choice: unnamed, they
     * count under their "METHOD path". Without the hook every request is
     * the command line's (or init()'s) one request: its row would be the
     * run's totals, so it stays unnamed (docs/scripting.md#request-names). */
    if (!*name && script_has(s, SCRIPT_REQUEST))
        *name = script_default_name(&s->names, *req, *len);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->anchors);
    lua_insert(L, -2);                              /* anchors str */
    lua_rawseti(L, -2, (int)slot + 1);
    lua_pop(L, 1);
    return 0;
}

void script_conn_tls(struct script *s, unsigned slot, const struct tls_info *info)
{
    lua_State *L = s->L;
    push_conn(s, slot);                             /* conn */
    lua_createtable(L, 0, 5);                       /* conn tls */
    lua_pushstring(L, info->protocol);
    lua_setfield(L, -2, "protocol");
    lua_pushstring(L, info->cipher);
    lua_setfield(L, -2, "cipher");
    lua_pushstring(L, info->group);
    lua_setfield(L, -2, "group");
    lua_pushstring(L, info->alpn);
    lua_setfield(L, -2, "alpn");
    lua_pushboolean(L, info->resumed);
    lua_setfield(L, -2, "resumed");
    lua_setfield(L, -2, "tls");                     /* conn */
    lua_pop(L, 1);
}

bool script_response_reads(const struct script *s)
{
    return s->response_reads;
}

/* wrk style, as wrk calls it: response(status, headers, body) with only
 * the arguments it declares, built here (no Lua in between); false fails
 * the request (counted by bridge.fail). */
static int wrk_response(struct script *s, bool *failed, char *err, size_t errlen)
{
    lua_State *L = s->L;
    struct script_res *r = s->res;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->response);  /* the hook itself */
    lua_pushinteger(L, r->status);
    if (s->response_arity >= 2)
        script_push_headers(L, r);
    if (s->response_arity >= 3) {
        size_t len;
        const char *body = script_res_body(r, &len);
        lua_pushlstring(L, body, len);
    }
    if (script_pcall(s, s->response_arity, 2, "response", err, errlen) < 0)
        return -1;
    *failed = lua_type(L, -2) == LUA_TBOOLEAN && !lua_toboolean(L, -2);
    if (*failed) {
        script_push_bridge(s, "fail");              /* ok reason fail */
        lua_insert(L, -2);                          /* ok fail reason */
        if (script_pcall(s, 1, 0, "response", err, errlen) < 0) {
            lua_pop(L, 1);
            return -1;
        }
        lua_pop(L, 1);
        return 0;
    }
    lua_pop(L, 2);
    return 0;
}

/* Calls the bridge's wrapper ref (bind_response's, bind_event's) with the
 * conn table of slot, protected as hook: its one result is left on the
 * stack. Returns 0, or -1 with err (nothing left). */
static int call_with_conn(struct script *s, int ref, unsigned slot, const char *hook, char *err, size_t errlen)
{
    lua_rawgeti(s->L, LUA_REGISTRYINDEX, ref);
    push_conn(s, slot);
    return script_pcall(s, 1, 1, hook, err, errlen);
}

int script_response(struct script *s, unsigned slot, bool *failed, char *err, size_t errlen)
{
    if (!s->scenario)
        return wrk_response(s, failed, err, errlen);
    if (call_with_conn(s, s->response, slot, "response", err, errlen) < 0)
        return -1;
    *failed = lua_toboolean(s->L, -1);
    lua_pop(s->L, 1);
    return 0;
}

bool script_request_streams(struct script *s)
{
    return s->stream_asked;
}

int script_event(struct script *s, unsigned slot, int *verdict, char *err, size_t errlen)
{
    if (call_with_conn(s, s->event, slot, "event", err, errlen) < 0)
        return -1;
    *verdict = (int)lua_tointeger(s->L, -1);
    lua_pop(s->L, 1);
    return 0;
}

/* Calls add(st, id, reason, count) for each reason of the table on top of
 * the stack (reason -> count), and pops it. add's result (the reason's new
 * count, checked by the readers of saved results) is not needed here: a
 * run's own counts cannot come near a uint64_t's limit. */
static void take_table(lua_State *L, struct stats *st, uint32_t id,
                       uint64_t (*add)(struct stats *, uint32_t, const char *, uint64_t))
{
    lua_pushnil(L);
    while (lua_next(L, -2)) {                       /* t reason count */
        if (lua_type(L, -2) == LUA_TSTRING)
            add(st, id, lua_tostring(L, -2), (uint64_t)lua_tonumber(L, -1));
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static uint64_t add_run_reason(struct stats *st, uint32_t id, const char *reason, uint64_t n)
{
    (void)id;
    return stats_add_reason(st, reason, n);
}

void script_take_reasons(struct script *s, struct stats *st)
{
    lua_State *L = s->L;
    if (script_has(s, SCRIPT_USER))
        script_flow_take_reasons(s, st);
    script_push_bridge(s, "failures");              /* failures */
    take_table(L, st, 0, add_run_reason);
    script_push_bridge(s, "name_failures");         /* name_failures: id -> reasons */
    for (uint32_t id = 0; id < st->nnames; id++) {
        lua_rawgeti(L, -1, (int)id);                /* name_failures reasons */
        if (lua_istable(L, -1) && st->names[id])
            take_table(L, st, id, stats_name_reason);
        else
            lua_pop(L, 1);
    }
    lua_pop(L, 1);
}
