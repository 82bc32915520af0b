/* The one protected-call path into Lua, and what every caller of a hook
 * asks of the state: whether the hook is there, the bridge's fields, the
 * phase. Any Lua error becomes one line naming the file, the line and the
 * hook. Below script.c and every script_*.c that calls into Lua. */
#include "script_internal.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <string.h>

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

/* "file:line: message" -> "file:line: in hook(): message"; a message
 * without a position gets the script's name in front. */
void script_format_error(const struct script *s, const char *msg, const char *hook, char *err, size_t errlen)
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
        script_format_error(s, lua_tostring(L, -1), hook, err, errlen);
        lua_pop(L, 1);
        return -1;
    }
    return 0;
}

bool script_has(const struct script *s, enum script_hook h)
{
    return s->hooks[h] != LUA_NOREF;
}
