/* Several scenarios in one script (scenarios = { {name = ..., user = ...},
 * ... }): the list checked as the script loads (lua/volley/scenarios.lua),
 * each entry read for the run's plan (script_scenario_get), and in a
 * worker's state the entry it runs taken as its scenario: its user(u) is
 * the state's flow and the entry is the table set_scenario keeps (its
 * data, and any other field of a flow), so the rest of the flow's path is
 * a single scenario's. */
#include "script_internal.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void script_pick_scenario(struct script *s, unsigned k)
{
    s->pick = k;
}

unsigned script_scenario_count(const struct script *s)
{
    return s->nscenarios;
}

int script_scenarios_take(struct script *s, char *err, size_t errlen)
{
    lua_State *L = s->L;
    script_push_bridge(s, "scenarios_check");
    lua_pushvalue(L, -2);                           /* table check table */
    if (script_pcall(s, 1, 1, NULL, err, errlen) < 0)
        return -2;
    s->nscenarios = (unsigned)lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (!s->nscenarios || !s->pick)
        return 0;
    if (s->pick > s->nscenarios) {
        snprintf(err, errlen, "%s: scenario %u of %u", s->name, s->pick, s->nscenarios);
        return -1;
    }
    lua_getfield(L, -1, "scenarios");
    lua_rawgeti(L, -1, (int)s->pick);               /* table list entry */
    lua_getfield(L, -1, "user");
    if (lua_isfunction(L, -1))
        s->hooks[SCRIPT_USER] = luaL_ref(L, LUA_REGISTRYINDEX);
    else
        lua_pop(L, 1);
    /* its runner compiled (user, tasks or a sequence); for tasks or a
     * sequence a function stands for user(), as script_load's */
    script_push_bridge(s, "set_scenario");
    lua_pushvalue(L, -2);                           /* table list entry set_scenario entry */
    int rc = script_pcall(s, 1, 1, NULL, err, errlen);
    if (rc == 0) {
        if (lua_isfunction(L, -1) && !script_has(s, SCRIPT_USER))
            s->hooks[SCRIPT_USER] = luaL_ref(L, LUA_REGISTRYINDEX);
        else
            lua_pop(L, 1);
    }
    lua_pop(L, 2);
    return rc < 0 ? -2 : 0;
}

/* entry[key] as text into buf: a string as it is, a number as seconds
 * ("" when absent). */
static void text_field(lua_State *L, const char *key, char *buf, size_t len)
{
    lua_getfield(L, -1, key);
    if (lua_type(L, -1) == LUA_TNUMBER)
        snprintf(buf, len, "%.17gs", lua_tonumber(L, -1));
    else if (lua_type(L, -1) == LUA_TSTRING)
        snprintf(buf, len, "%s", lua_tostring(L, -1));
    else
        buf[0] = '\0';
    lua_pop(L, 1);
}

/* entry[key] as a number; -1 when absent (scenarios.lua checked its range). */
static double num_field(lua_State *L, const char *key)
{
    lua_getfield(L, -1, key);
    double v = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
    lua_pop(L, 1);
    return v;
}

int script_scenario_get(struct script *s, unsigned i, struct script_scenario *out)
{
    lua_State *L = s->L;
    memset(out, 0, sizeof *out);
    if (i >= s->nscenarios)
        return -1;
    script_push_bridge(s, "scenario_list");
    lua_rawgeti(L, -1, (int)i + 1);                 /* list entry */
    lua_getfield(L, -1, "name");
    snprintf(out->name, sizeof out->name, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "");
    lua_pop(L, 1);
    double users = num_field(L, "users"), weight = num_field(L, "weight"), max = num_field(L, "max_users");
    double rate = num_field(L, "rate"), iters = num_field(L, "iterations");
    out->users = users > 0 ? (uint32_t)users : 0;
    out->weight = weight > 0 ? (uint32_t)weight : 0;
    out->max_users = max > 0 ? (uint32_t)max : 0;
    out->open = rate >= 0;
    out->rate = rate > 0 ? (uint64_t)rate : 0;
    out->iterations = iters > 0 ? (uint64_t)iters : 0;
    text_field(L, "start", out->start, sizeof out->start);
    text_field(L, "duration", out->duration, sizeof out->duration);
    text_field(L, "stages", out->stages, sizeof out->stages);
    lua_pop(L, 2);
    return 0;
}
