/* The LuaJIT bridge (see script.h): states with the embedded modules,
 * loading a script, resolving hooks once into registry references, and the
 * one protected-call path that turns any Lua error into one line naming the
 * file, the line and the hook. */
#include "script.h"

#include "embedded_lua.h"
#include "xalloc.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct script {
    lua_State *L;
    int hooks[SCRIPT_HOOKS]; /* registry references, LUA_NOREF when undefined */
    bool scenario;
    char name[256];          /* the script as the user named it, for messages */
};

static const char *const hook_names[SCRIPT_HOOKS] = {
    "options", "setup", "init", "connect", "request", "delay", "response", "done",
};

const char *script_hook_name(enum script_hook h)
{
    return hook_names[h];
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
    return s;
}

void script_free(struct script *s)
{
    if (!s)
        return;
    lua_close(s->L);
    free(s);
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

/* The one way volley calls into Lua: the function and its nargs arguments
 * are on the stack. Returns 0 with nres results pushed, or -1 with err and
 * nothing pushed. hook: the hook's name for messages, or NULL. */
static int protected_call(struct script *s, int nargs, int nres, const char *hook, char *err, size_t errlen)
{
    lua_State *L = s->L;
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, message_handler);
    lua_insert(L, base);                            /* handler f args */
    int rc = lua_pcall(L, nargs, nres, base);
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
            snprintf(err, errlen, "%s: no such bundled script", s->name);
            return -1;
        }
        if (luaL_loadbuffer(L, (const char *)m->code, m->size, m->name) != 0)
            goto failed;
        return 0;
    }
    FILE *f = fopen(path_or_name, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open the script", s->name);
        return -1;
    }
    fclose(f);
    if (luaL_loadfile(L, path_or_name) != 0)
        goto failed;
    return 0;
failed:
    format_error(s, lua_tostring(L, -1), NULL, err, errlen);
    lua_pop(L, 1);
    return -1;
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
    if (load_chunk(s, path_or_name, err, errlen) < 0 || protected_call(s, 0, 1, NULL, err, errlen) < 0)
        return -1;
    s->scenario = lua_istable(L, -1);
    for (int h = 0; h < SCRIPT_HOOKS; h++) {
        if (s->scenario)
            lua_getfield(L, -1, hook_names[h]);
        else
            lua_getglobal(L, hook_names[h]);
        if (take_hook(s, (enum script_hook)h, err, errlen) < 0) {
            lua_pop(L, 1);
            return -1;
        }
    }
    lua_pop(L, 1); /* the chunk's result */
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
    if (protected_call(s, n, 1, hook_names[h], err, errlen) < 0)
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
