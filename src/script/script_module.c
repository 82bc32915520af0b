/* The bundled modules run on their own, outside any run: a field of one
 * read (script_module_string), or a subcommand's main(args) (volley
 * convert: script_module_main), each in a state of its own. */
#include "script.h"

#include "script_internal.h"
#include "xalloc.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *script_module_string(const char *module, const char *field, char *err, size_t errlen)
{
    struct script *s = script_new(err, errlen);
    if (!s)
        return NULL;
    char *out = NULL;
    if (script_require(s, module, err, errlen) == 0) {
        lua_getfield(s->L, -1, field);
        if (lua_type(s->L, -1) == LUA_TSTRING)
            out = xstrdup(lua_tostring(s->L, -1));
        else
            snprintf(err, errlen, "%s.%s: not a string", module, field);
    }
    script_free(s);
    return out;
}

int script_module_main(const char *module, char *const *args, int nargs, char *err, size_t errlen)
{
    struct script *s = script_new(err, errlen);
    if (!s)
        return -1;
    lua_State *L = s->L;
    int status = -1;
    snprintf(s->name, sizeof s->name, "%s", module);
    if (script_require(s, module, err, errlen) < 0)
        goto out;
    lua_getfield(L, -1, "main"); /* module main */
    if (!lua_isfunction(L, -1)) {
        snprintf(err, errlen, "%s: has no main function", module);
        goto out;
    }
    lua_createtable(L, nargs, 0);
    for (int i = 0; i < nargs; i++) {
        lua_pushstring(L, args[i]);
        lua_rawseti(L, -2, i + 1);
    }
    if (script_pcall(s, 1, 1, "main", err, errlen) < 0)
        goto out;
    if (lua_type(L, -1) != LUA_TNUMBER || lua_tonumber(L, -1) < 0 || lua_tonumber(L, -1) > 255) {
        snprintf(err, errlen, "%s: main() returned no exit status", module);
        goto out;
    }
    status = (int)lua_tointeger(L, -1);
out:
    script_free(s);
    return status;
}
