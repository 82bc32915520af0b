/* A wrk-style script that defines no hook runs with the default request,
 * silently: when one of its own global functions is a hook's name
 * misspelt ("reqest"), that is almost surely why (script.h,
 * script_hook_near). Start-up only, on the main state. */
#include "script_internal.h"

#include "nearest.h"
#include "quote.h"

#include <lua.h>
#include <stdio.h>
#include <string.h>

/* wrk's hooks: those a wrk-style script defines as globals (script.c). */
static const char *const wrk_hooks[] = {"setup", "init", "request", "response", "delay", "done"};
#define NWRK (sizeof wrk_hooks / sizeof wrk_hooks[0])

char *script_hook_near(struct script *s, char *buf, size_t len)
{
    buf[0] = '\0';
    if (s->scenario)
        return NULL; /* a scenario table's unknown keys are errors already */
    for (int h = 0; h < SCRIPT_HOOKS; h++)
        if (script_has(s, (enum script_hook)h))
            return NULL;
    lua_State *L = s->L;
    /* The script's own functions are Lua functions; the libraries' are C
     * functions ("print" is as near "init" as a typo). The first match in
     * wrk's order of hooks, and of names for the same hook, so the line
     * is the same on every run. */
    const char *best = NULL, *best_hook = NULL;
    size_t best_h = NWRK;
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    lua_pushnil(L);
    while (lua_next(L, -2)) {                      /* _G key value */
        if (lua_type(L, -2) == LUA_TSTRING && lua_isfunction(L, -1) && !lua_iscfunction(L, -1)) {
            const char *name = lua_tostring(L, -2);
            const char *hook = nearest_name(name, wrk_hooks, NWRK);
            size_t h = 0;
            while (hook && h < NWRK && strcmp(wrk_hooks[h], hook) != 0)
                h++;
            if (hook && (h < best_h || (h == best_h && strcmp(name, best) < 0))) {
                best = name; /* stays valid: the key is in _G */
                best_hook = hook;
                best_h = h;
            }
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (!best)
        return NULL;
    char q[96];
    snprintf(buf, len, "%s: no hook defined; \"%s\" is near \"%s\"", s->name, quote_printable(q, sizeof q, best),
             best_hook);
    return buf;
}
