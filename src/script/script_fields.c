/* A response's head as Lua sees it: as tables (res.headers,
 * res.trailers), from its "name: value" lines (script_next_field, inline in
 * script_internal.h: a call per line cost response() ~220 instructions). Below script_hooks.c
 * (the per-request hooks) and script_flow.c (a flow's responses), which
 * both push them. */
#include "script_internal.h"

#include <string.h>

/* Pushes a table of the "name: value" lines that follow p (a line end, or
 * NULL for none) up to end; a line without a colon (the blank line) adds
 * nothing. */
void script_push_fields(lua_State *L, const char *p, const char *end)
{
    lua_createtable(L, 0, 8);
    struct script_field f;
    while (script_next_field(&p, end, &f)) {
        if (!f.nlen)
            continue;
        lua_pushlstring(L, f.name, f.nlen);
        lua_pushlstring(L, f.value, f.vlen);
        lua_rawset(L, -3);
    }
}

void script_push_headers(lua_State *L, struct script_res *r)
{
    size_t len;
    const char *head = script_res_head(r, &len);
    script_push_fields(L, memchr(head, '\n', len), head + len); /* past the status line */
}
