/* The default name of a request a script sent without one: "METHOD path",
 * the path without its query and fragment, read from the request's own
 * first line and looked up in the worker's cache (names.h), so that a
 * path seen before costs a scan of the line and a hash lookup. */
#include "script_internal.h"

#include "stats.h"

#include <string.h>

/* The longest "authority/path" kept of a default name to another origin. */
#define NAMES_AUTHORITY_PATH_MAX 512

/* A byte of a method or a path: visible ASCII and beyond (no space, no
 * control byte, so no NUL reaches a name). */
static bool visible(unsigned char b)
{
    return b > 0x20 && b != 0x7f;
}

uint32_t script_default_name(struct script_names *sn, const char *req, size_t len)
{
    return script_default_name_at(sn, req, len, NULL);
}

uint32_t script_default_name_at(struct script_names *sn, const char *req, size_t len, const char *authority)
{
    const char *end = req + len, *p = req;
    while (p < end && visible((unsigned char)*p))
        p++;
    if (p == req || p == end || *p != ' ')
        return 0; /* no request line: left unnamed */
    const char *method = req;
    size_t mlen = (size_t)(p - req);
    const char *path = ++p;
    /* An absolute-form target (a proxy's): its path alone. */
    if ((size_t)(end - path) > 8 && (memcmp(path, "http://", 7) == 0 || memcmp(path, "https://", 8) == 0)) {
        const char *q = path + (path[4] == 's' ? 8 : 7);
        while (q < end && visible((unsigned char)*q) && *q != '/' && *q != '?' && *q != '#')
            q++;
        path = q;
    }
    const char *q = path;
    while (q < end && visible((unsigned char)*q) && *q != '?' && *q != '#')
        q++;
    size_t plen = (size_t)(q - path);
    if (!plen) {
        path = "/"; /* "GET ?x" or an authority alone: the root */
        plen = 1;
    }
    char at[NAMES_AUTHORITY_PATH_MAX];
    if (authority) { /* another origin's: "authority/path" (cut to fit) */
        size_t alen = strlen(authority);
        if (alen + plen >= sizeof at)
            plen = alen < sizeof at - 1 ? sizeof at - 1 - alen : 0;
        memcpy(at, authority, alen < sizeof at ? alen : sizeof at - 1);
        memcpy(at + alen, path, plen);
        path = at;
        plen += alen;
    }
    int id = names_cache_default(&sn->cache, method, mlen, path, plen);
    if (id < 0)
        return 0;
    stats_name_add(sn->stats, (uint32_t)id, sn->names->name[id]); /* its figures here, once */
    return (uint32_t)id + 1;
}
