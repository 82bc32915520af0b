/* A flow request's tags (opts.tags = { kind = "api" }) on the C side of
 * the bridge: a pair's group in the run's registry (tags.h) with its
 * figures in the worker's stats, and a set of groups' id (stats_tags.h).
 * The Lua side (lua/volley/flow_tags.lua) calls these once per pair and
 * per set in a worker and caches what they return, so a tagged request
 * costs no call here. */
#include "script_internal.h"

#include "stats_tags.h"

#include <lauxlib.h>
#include <string.h>

/* bridge.c_flow_tag(key, value): the group id of the pair, or nil and why
 * the key cannot be a tag's (the caller names the request). */
static int c_tag(lua_State *L)
{
    struct script *s = lua_touserdata(L, lua_upvalueindex(1));
    size_t klen, vlen;
    const char *key = luaL_checklstring(L, 1, &klen);
    const char *value = luaL_checklstring(L, 2, &vlen);
    const char *why;
    if (!tags_key_valid(key, klen, &why)) {
        lua_pushnil(L);
        lua_pushstring(L, why);
        return 2;
    }
    uint32_t id = tags_intern(s->tags, key, klen, value, vlen);
    stats_tag_add(s->names.stats, id, s->tags->text[id]); /* its figures here, once */
    lua_pushinteger(L, (lua_Integer)id);
    return 1;
}

/* bridge.c_flow_tagset(g1, ..., gn): the id of the set of those groups
 * (1 <= n <= TAGS_PER_REQUEST, from c_tag): stats_tagset's, which is one
 * of no set when the worker's sets ran out (the requests' tags then go
 * uncounted, and counted as such). */
static int c_tagset(lua_State *L)
{
    struct script *s = lua_touserdata(L, lua_upvalueindex(1));
    int n = lua_gettop(L);
    uint32_t groups[TAGS_PER_REQUEST];
    luaL_argcheck(L, n >= 1 && n <= TAGS_PER_REQUEST, 1, "1 to TAGS_PER_REQUEST groups");
    for (int i = 0; i < n; i++) {
        lua_Integer g = luaL_checkinteger(L, i + 1);
        luaL_argcheck(L, g >= 0 && g < (lua_Integer)__atomic_load_n(&s->tags->n, __ATOMIC_ACQUIRE), i + 1, "not a tag's group");
        groups[i] = (uint32_t)g;
    }
    lua_pushinteger(L, (lua_Integer)stats_tagset(s->names.stats, groups, (unsigned)n));
    return 1;
}

void script_tags_bind(struct script *s, lua_State *L)
{
    lua_pushlightuserdata(L, s);
    lua_pushcclosure(L, c_tag, 1);
    lua_setfield(L, -2, "c_flow_tag");
    lua_pushlightuserdata(L, s);
    lua_pushcclosure(L, c_tagset, 1);
    lua_setfield(L, -2, "c_flow_tagset");
    lua_pushinteger(L, TAGS_PER_REQUEST);
    lua_setfield(L, -2, "TAGS_PER_REQUEST");
}
