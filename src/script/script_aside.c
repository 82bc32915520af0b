/* A flow's setup and teardown states (script_aside.h): the role and data
 * handed to a worker's Lua state, and what its setup(u) returned, through
 * bridge.set_aside, bridge.has_aside and bridge.aside_outcome. */
#include "script_aside.h"

#include "script_internal.h"
#include "xalloc.h"

#include <stdio.h>
#include <string.h>

static const char *const role_names[] = {NULL, "setup", "teardown"};

/* bridge.has_aside(role, any) */
static bool has_aside(struct script *s, enum script_role role, bool any)
{
    if (!s || role == SCRIPT_ROLE_RUN)
        return false;
    char err[256];
    script_push_bridge(s, "has_aside");
    lua_pushstring(s->L, role_names[role]);
    lua_pushboolean(s->L, any);
    if (script_pcall(s, 2, 1, NULL, err, sizeof err) < 0)
        return false;
    bool has = lua_toboolean(s->L, -1);
    lua_pop(s->L, 1);
    return has;
}

bool script_has_aside(struct script *s, enum script_role role)
{
    return has_aside(s, role, false);
}

int script_check_teardown(struct script *s, bool flow, char *err, size_t errlen)
{
    if (flow ? !has_aside(s, SCRIPT_ROLE_TEARDOWN, true) || has_aside(s, SCRIPT_ROLE_TEARDOWN, false)
             : !has_aside(s, SCRIPT_ROLE_TEARDOWN, true))
        return 0;
    if (flow)
        snprintf(err, errlen, "%s: teardown is not a function (teardown(data, u) runs once after the load)",
                 s->name);
    else
        snprintf(err, errlen, "%s: teardown(data, u) belongs to flows (a scenario with user(u)); a per-connection "
                              "script ends with done()", s->name);
    return -1;
}

void script_aside_plan(struct script *main, const struct script_aside *plan)
{
    main->aside = plan;
}

int script_aside_apply(struct script *worker, const struct script *main, char *err, size_t errlen)
{
    const struct script_aside *a = main ? main->aside : NULL;
    if (!a || (a->role == SCRIPT_ROLE_RUN && !a->text))
        return 0;
    lua_State *L = worker->L;
    script_push_bridge(worker, "set_aside");
    if (a->role == SCRIPT_ROLE_RUN)
        lua_pushnil(L);
    else
        lua_pushstring(L, role_names[a->role]);
    if (a->text)
        lua_pushlstring(L, a->text, a->len);
    else
        lua_pushnil(L);
    lua_pushstring(L, a->source ? a->source : "setup()");
    if (script_pcall(worker, 3, 0, NULL, err, errlen) < 0)
        return -1;
    return 0;
}

int script_aside_outcome(struct script *s, char **text, size_t *len, char *why, size_t whylen)
{
    lua_State *L = s->L;
    *text = NULL;
    *len = 0;
    script_push_bridge(s, "aside_outcome");
    if (script_pcall(s, 0, 3, NULL, why, whylen) < 0)
        return -1;
    int done = lua_toboolean(L, -3);
    size_t n;
    const char *t = lua_tolstring(L, -2, &n);
    if (done && t) {
        *text = xmalloc(n + 1);
        memcpy(*text, t, n);
        (*text)[n] = '\0';
        *len = n;
    }
    if (!done)
        snprintf(why, whylen, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "it did not return");
    lua_pop(L, 3);
    return done;
}
