/* A response's head as Lua sees it: its "name: value" lines one at a
 * time, and as tables (res.headers, res.trailers). Below script_hooks.c
 * (the per-request hooks) and script_flow.c (a flow's responses), which
 * both push them. */
#include "script_internal.h"

#include <string.h>

bool script_next_field(const char **at, const char *end, struct script_field *f)
{
    const char *p = *at;
    if (!p || ++p >= end)
        return false;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol)
        return false;
    *at = eol;
    const char *colon = memchr(p, ':', (size_t)(eol - p));
    f->name = p;
    f->nlen = colon ? (size_t)(colon - p) : 0;
    f->value = eol;
    f->vlen = 0;
    if (!colon)
        return true;
    const char *v = colon + 1, *ve = eol;
    while (v < ve && (*v == ' ' || *v == '\t'))
        v++;
    while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t'))
        ve--;
    f->value = v;
    f->vlen = (size_t)(ve - v);
    return true;
}

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
