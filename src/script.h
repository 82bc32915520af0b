/* The LuaJIT bridge: Lua states with volley's embedded Lua modules, loading
 * a script, resolving its hooks once, and calling them protected. Only
 * script*.c include lua.h.
 *
 * This is the base the scripting features (docs/scripting.md, issue 3)
 * build on; it is not wired into the run yet. */
#ifndef VOLLEY_SCRIPT_H
#define VOLLEY_SCRIPT_H

#include "http.h"

#include <stdbool.h>
#include <stddef.h>

struct script;

/* The hooks a script may define, wrk-style globals or the table a
 * scenario-style chunk returns. */
enum script_hook {
    SCRIPT_OPTIONS,
    SCRIPT_SETUP,
    SCRIPT_INIT,
    SCRIPT_CONNECT,
    SCRIPT_REQUEST,
    SCRIPT_DELAY,
    SCRIPT_RESPONSE,
    SCRIPT_DONE,
    SCRIPT_HOOKS
};

/* A new Lua state with the standard libraries and every embedded module
 * (lua/ and scripts/) loadable with require. Returns NULL with err when the
 * state cannot be created. */
struct script *script_new(char *err, size_t errlen);

void script_free(struct script *s);

/* Loads and runs a script chunk: a path (it has a '/' or ends in ".lua"),
 * or the NAME of a bundled script (scripts/NAME.lua). Then resolves its
 * hooks: if the chunk returned a table, its functions are the hooks
 * (scenario style); otherwise the globals of the same names are (wrk
 * style). Returns 0, or -1 with err as one line: "file:line: message". */
int script_load(struct script *s, const char *path_or_name, char *err, size_t errlen);

/* Whether the loaded script defines hook h. */
bool script_has(const struct script *s, enum script_hook h);

/* True for a scenario-style script (the chunk returned a table). */
bool script_is_scenario(const struct script *s);

/* The hook's name as scripts spell it ("request"). */
const char *script_hook_name(enum script_hook h);

/* What the wrk table of a state starts with (wrk's fields, from the
 * command line). */
struct script_wrk {
    const char *scheme;
    const char *host;
    const char *port;        /* NULL when the URL names no port, as in wrk */
    const struct http_request_spec *req; /* method, path, headers, body; its
                                          * host_header becomes headers.Host
                                          * unless a header gives one */
};

/* Creates the global wrk table of s from w (call before script_load).
 * Returns 0, or -1 with err. */
int script_set_wrk(struct script *s, const struct script_wrk *w, char *err, size_t errlen);

/* Calls init(args) if the script has it: args[0] is url, args[1..n] the
 * script arguments. Returns 0, or -1 with err. */
int script_init(struct script *s, const char *url, char *const *args, int nargs, char *err, size_t errlen);

/* The request a connection sends: the request() hook's result (a string;
 * nil: the default request; a table: merged with the defaults), or, with no
 * hook, wrk.format() of the wrk fields as the script left them. *req stays
 * valid until the next call for the same slot (a connection's index in its
 * worker). Returns 0, or -1 with err ("file:line: in request(): ..."). */
int script_request(struct script *s, unsigned slot, const char **req, size_t *len, char *err, size_t errlen);

/* Calls delay() (delay(conn) for a scenario): *ms is how long the slot's
 * next request waits, 0 when the hook returns nil. Returns 0, or -1 with err
 * when the hook fails or returns something other than a number >= 0. */
int script_delay(struct script *s, unsigned slot, double *ms, char *err, size_t errlen);

/* A connection was (re)opened: a scenario script's next request(conn) gets
 * a new conn table. */
void script_conn_opened(struct script *s, unsigned slot);

/* Calls hook h with string arguments (NULL-terminated list of n strings) and
 * returns its first result as a string copied into out (empty if nil).
 * Returns 0, -1 with err ("file:line: in request(): message") if the hook
 * raised an error or returned something other than a string or nil, or 1
 * if the script has no such hook. For tests of the bridge; the run will
 * call hooks through typed entry points. */
int script_call_strings(struct script *s, enum script_hook h, const char *const *args, int n, char *out,
                        size_t outlen, char *err, size_t errlen);

#endif
