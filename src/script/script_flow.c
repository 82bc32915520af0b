/* A flow's C side (script.h's script_flow_*): each virtual user is a Lua
 * coroutine made by lua/volley/flow.lua and resumed here at each step of
 * the connection (a new iteration, a response in, a sleep over); what it
 * yields is its next step. lua_resume is protected by itself: an error in
 * the flow module ends up here as one line; user()'s own errors are caught
 * inside the coroutine and end its iteration instead. */
#include "script_internal.h"

#include "stats_tags.h"
#include "units.h"
#include "xalloc.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What flow.lua yields: its first value. */
enum { YIELD_REQUEST = 1, YIELD_SLEEP = 2, YIELD_END = 3, YIELD_BATCH = 4, YIELD_BEGIN = 5 };

/* A request's flags as flow.lua yields them (flags_of there): 1 a check,
 * 2 its response streams, 4 a function takes its events. */
static void flags_of(lua_Integer f, bool *check, uint8_t *stream)
{
    *check = f & 1;
    *stream = (uint8_t)((f & 2 ? SCRIPT_FLOW_STREAM_ASKED : 0) | (f & 4 ? SCRIPT_FLOW_STREAM_CALL : 0));
}

/* The response given as argument 1: a light userdata C handed to the
 * flow (a slot's response, or a batch item's). */
static struct script_res *res_at(lua_State *L)
{
    return lua_touserdata(L, 1);
}

/* bridge.c_flow_values(res, lname): the values of the response's header
 * fields whose name is lname (lower case), in order (Set-Cookie comes many
 * times), as results; none when there is none. */
static int c_values(lua_State *L)
{
    struct script_res *r = res_at(L);
    size_t nlen;
    const char *lname = luaL_checklstring(L, 2, &nlen);
    size_t len;
    const char *head = script_res_head(r, &len);
    const char *p = memchr(head, '\n', len); /* past the status line */
    struct script_field f;
    int n = 0;
    while (script_next_field(&p, head + len, &f)) {
        if (f.nlen != nlen || strncasecmp(f.name, lname, nlen) != 0)
            continue;
        luaL_checkstack(L, 1, "header values");
        lua_pushlstring(L, f.value, f.vlen);
        n++;
    }
    return n;
}

/* bridge.c_flow_headers(res): the response's header table (as res.headers). */
static int c_headers(lua_State *L)
{
    script_push_headers(L, res_at(L));
    return 1;
}

/* bridge.c_flow_trailers(res): the trailer section's fields. */
static int c_trailers(lua_State *L)
{
    size_t len;
    const char *t = script_res_trailers(res_at(L), &len);
    script_push_fields(L, len ? t - 1 : NULL, t + len);
    return 1;
}

void script_flow_bind(struct script *s, const struct script_worker *w)
{
    lua_State *L = s->L;
    s->flow_nslots = w->nslots;
    s->flow_co = xcalloc(w->nslots ? w->nslots : 1, sizeof *s->flow_co);
    s->flow_names = (struct script_flow_names){w->check_names, w->group_names, &w->stats->flow};
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->bridge);
    lua_CFunction fns[] = {c_headers, c_values, c_trailers};
    const char *names[] = {"c_flow_headers", "c_flow_values", "c_flow_trailers"};
    for (int i = 0; i < 3; i++) {
        lua_pushcfunction(L, fns[i]);
        lua_setfield(L, -2, names[i]);
    }
    s->flow_res = w->flow_res;
    s->tags = w->tags;
    script_tags_bind(s, L);
    /* whether users leave through on_stop (not setup's or teardown's
     * user: its runner is their hook alone, bridge.flow_bind) */
    lua_getfield(L, -1, "aside_role");              /* bridge role */
    bool aside = !lua_isnil(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, -1, "runner");                  /* bridge runner */
    if (lua_istable(L, -1) && !aside) {
        lua_getfield(L, -1, "on_stop");
        s->flow_stops = !lua_isnil(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
    script_push_bridge(s, "flow_bind");
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->hooks[SCRIPT_USER]);
    lua_pushlightuserdata(L, &s->flow_names);
    char err[256];
    /* flow_bind only stores its arguments. */
    if (script_pcall(s, 2, 0, NULL, err, sizeof err) < 0)
        fprintf(stderr, "volley: %s\n", err);
}

void script_flow_free(struct script *s)
{
    free(s->flow_co);
    s->flow_co = NULL;
    for (unsigned i = 0; i <= SCRIPT_FLOW_ORIGINS; i++) {
        free(s->flow_origins[i]);
        s->flow_origins[i] = NULL;
    }
}

const struct script_origin *script_flow_origin(struct script *s, unsigned id)
{
    if (id == 0 || id > SCRIPT_FLOW_ORIGINS)
        return NULL;
    if (s->flow_origins[id])
        return s->flow_origins[id];
    lua_State *L = s->L;
    script_push_bridge(s, "flow_origin");
    lua_pushinteger(L, (lua_Integer)id);
    char err[256];
    if (script_pcall(s, 1, 4, NULL, err, sizeof err) < 0)
        return NULL;
    const char *scheme = lua_tostring(L, -4), *host = lua_tostring(L, -3), *auth = lua_tostring(L, -1);
    lua_Integer port = lua_tointeger(L, -2);
    struct script_origin *o = NULL;
    if (scheme && host && auth && port > 0 && port <= 65535 && strlen(host) < sizeof o->host &&
        strlen(auth) < sizeof o->authority) {
        o = s->flow_origins[id] = xcalloc(1, sizeof *o);
        o->https = strcmp(scheme, "https") == 0;
        o->port = (uint16_t)port;
        memcpy(o->host, host, strlen(host) + 1);
        memcpy(o->authority, auth, strlen(auth) + 1);
    }
    lua_pop(L, 4);
    return o;
}

/* The origin a step gives at index at of co (flow.lua's: a number, or
 * the authority of an origin that may not go: SCRIPT_FLOW_REFUSED), and
 * the default name of its request req[0..len) when name is 0: the
 * target's "METHOD path", another's "METHOD authority/path", so that its
 * figures stay apart. */
static uint8_t origin_at(struct script *s, lua_State *co, int at, const char *req, size_t len, uint32_t *name)
{
    const char *authority = NULL;
    uint8_t origin;
    if (lua_type(co, at) == LUA_TSTRING) {
        origin = SCRIPT_FLOW_REFUSED;
        authority = lua_tostring(co, at);
    } else {
        lua_Integer id = lua_tointeger(co, at);
        origin = id > 0 && id <= SCRIPT_FLOW_ORIGINS ? (uint8_t)id : 0;
        const struct script_origin *o = origin ? script_flow_origin(s, origin) : NULL;
        authority = o ? o->authority : NULL;
    }
    if (!*name)
        *name = script_default_name_at(&s->names, req, len, authority);
    return origin;
}

/* The coroutine of slot, made at its first iteration (flow.lua keeps it
 * from the collector). */
static lua_State *user_of(struct script *s, unsigned slot, char *err, size_t errlen)
{
    if (s->flow_co[slot])
        return s->flow_co[slot];
    lua_State *L = s->L;
    script_push_bridge(s, "flow_new");
    lua_pushinteger(L, (lua_Integer)slot);
    lua_pushlightuserdata(L, &s->flow_res[slot]);
    if (script_pcall(s, 2, 1, "user", err, errlen) < 0)
        return NULL;
    s->flow_co[slot] = lua_tothread(L, -1);
    lua_pop(L, 1);
    return s->flow_co[slot];
}

bool script_flow_stops(const struct script *s)
{
    return s->flow_stops;
}

bool script_flow_has_user(const struct script *s, unsigned slot)
{
    return s->flow_co && s->flow_co[slot];
}

int script_flow_resume(struct script *s, unsigned slot, enum script_flow_how how, struct script_res *const *items,
                       unsigned nitems, struct script_flow_step *st, char *err, size_t errlen)
{
    lua_State *co = user_of(s, slot, err, errlen);
    if (!co)
        return -1;
    /* A fresh coroutine holds its function; a suspended one the last
     * step's values (its request string is sent by now). */
    if (lua_status(co) == LUA_YIELD)
        lua_settop(co, 0);
    if (!lua_checkstack(co, (int)nitems + 1)) {
        snprintf(err, errlen, "%s: in user(): a batch of %u is too large for the Lua stack", s->name, nitems);
        return -1;
    }
    lua_pushinteger(co, how);
    for (unsigned i = 0; i < nitems; i++)
        lua_pushlightuserdata(co, items[i]);
    script_guard_enter(s, true);
    int rc = lua_resume(co, 1 + (int)nitems);
    script_guard_leave(s);
    if (rc != LUA_YIELD) {
        const char *msg = rc == 0 ? "the user's coroutine returned" : lua_tostring(co, -1);
        snprintf(err, errlen, "%s: in user(): %s", s->name, msg ? msg : "(error object is not a string)");
        s->flow_co[slot] = NULL;
        return -1;
    }
    memset(st, 0, sizeof *st);
    switch (lua_tointeger(co, 1)) {
    case YIELD_REQUEST:
        st->act = SCRIPT_FLOW_REQUEST;
        st->req = lua_tolstring(co, 2, &st->len); /* stays on co's stack until the next resume */
        st->name = (uint32_t)lua_tointeger(co, 3); /* unnamed: its default (origin_at) */
        st->origin = origin_at(s, co, 6, st->req, st->len, &st->name);
        st->timeout_ns = units_ms_to_ns(lua_tonumber(co, 4)); /* clamped: any number is safe */
        flags_of(lua_tointeger(co, 5), &st->check, &st->stream);
        if (lua_tointeger(co, 7)) /* its tag set: the name (its default too) becomes a label */
            st->name = stats_label(s->names.stats, st->name, (uint32_t)lua_tointeger(co, 7));
        return 0;
    case YIELD_SLEEP:
        st->act = SCRIPT_FLOW_SLEEP;
        st->ms = lua_tonumber(co, 2);
        return 0;
    case YIELD_BATCH:
        st->act = SCRIPT_FLOW_BATCH;
        st->n = (unsigned)lua_tointeger(co, 2);
        return 0;
    case YIELD_END:
        st->act = SCRIPT_FLOW_END;
        st->failed = lua_toboolean(co, 2);
        st->io = lua_toboolean(co, 3);
        st->wait_ms = lua_tonumber(co, 4);
        return 0;
    case YIELD_BEGIN:
        st->act = SCRIPT_FLOW_BEGIN;
        return 0;
    default:
        snprintf(err, errlen, "%s: in user(): coroutine.yield() called by the script (a flow's user yields "
                 "only through u's methods)", s->name);
        return -1;
    }
}

void script_flow_item(struct script *s, unsigned slot, unsigned i, struct script_flow_item *it)
{
    lua_State *co = s->flow_co[slot];
    int at = 3 + 6 * (int)i; /* (BATCH, n, then req, name, timeout_ms, flags, origin, tag set per request) */
    it->req = lua_tolstring(co, at, &it->len);
    it->name = (uint32_t)lua_tointeger(co, at + 1);
    it->origin = origin_at(s, co, at + 4, it->req, it->len, &it->name);
    it->timeout_ns = units_ms_to_ns(lua_tonumber(co, at + 2));
    flags_of(lua_tointeger(co, at + 3), &it->check, &it->stream);
    if (lua_tointeger(co, at + 5))
        it->name = stats_label(s->names.stats, it->name, (uint32_t)lua_tointeger(co, at + 5));
}

int script_flow_event(struct script *s, unsigned slot, int item, int *verdict, char *err, size_t errlen)
{
    lua_State *L = s->L;
    script_push_bridge(s, "flow_event");
    lua_pushinteger(L, (lua_Integer)slot);
    lua_pushinteger(L, item);
    if (script_pcall(s, 2, 1, "user", err, errlen) < 0)
        return -1;
    *verdict = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return 0;
}

int script_flow_check(struct script *s, unsigned slot, int item, struct script_res *res, bool *failed, char *err,
                      size_t errlen)
{
    lua_State *L = s->L;
    script_push_bridge(s, "flow_check");
    lua_pushinteger(L, (lua_Integer)slot);
    lua_pushinteger(L, item);
    lua_pushlightuserdata(L, res);
    if (script_pcall(s, 3, 1, "user", err, errlen) < 0)
        return -1;
    *failed = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return 0;
}

void script_flow_take_reasons(struct script *s, struct stats *st)
{
    lua_State *L = s->L;
    script_push_bridge(s, "iteration_failures");    /* reason -> count */
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    lua_pushnil(L);
    while (lua_next(L, -2)) {                       /* t reason count */
        if (lua_type(L, -2) == LUA_TSTRING)
            stats_flow_reason(&st->flow, lua_tostring(L, -2), (uint64_t)lua_tonumber(L, -1));
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}
