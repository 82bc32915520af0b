/* What the script*.c files share: the state struct and the protected-call
 * path. Not for the rest of volley, which uses script.h. */
#ifndef VOLLEY_SCRIPT_INTERNAL_H
#define VOLLEY_SCRIPT_INTERNAL_H

#include "script.h"
#include "script_aside.h"

#include <lua.h>
#include <stdatomic.h>
#include <string.h>

struct script {
    lua_State *L;
    int hooks[SCRIPT_HOOKS]; /* registry references, LUA_NOREF when undefined */
    bool scenario;
    unsigned nscenarios;     /* the script's scenarios list: how many (0: none) */
    unsigned pick;           /* script_pick_scenario: the entry this state runs, 1-based; 0: none */
    int bridge;              /* the volley.bridge module table */
    int bridge_request;      /* bridge.request */
    int bridge_request_bytes; /* bridge.request_bytes */
    int response;            /* what C calls per response (bridge.bind_response): the
                              * scenario's wrapper, or a wrk-style hook itself */
    bool response_reads;     /* it reads headers or body */
    int response_arity;      /* wrk style: what response() takes: 1 status, 2 +headers, 3 +body */
    struct script_res *res;  /* a worker's: the response being looked at */
    int event;               /* what C calls per event (bridge.bind_event), LUA_NOREF: none */
    bool stream_asked;       /* the last request request() returned asks to stream */
    struct script_names names; /* a worker's: the next request's name, and where names go */
    int anchors;             /* table: slot+1 -> the request string being written */
    int handler;             /* the message handler of every protected call */
    int conns;               /* bridge.conns: slot+1 -> a scenario's conn table */
    struct script_thread *thread; /* a worker's state: its thread (wrk.thread) */
    struct script_origin *flow_origins[SCRIPT_FLOW_ORIGINS + 1]; /* a flow: the other origins its
                                  * steps named, made at first use (script_flow_origin) */
    lua_State **flow_co;     /* a flow's worker state: per slot, the user's coroutine (NULL
                              * before its first iteration; anchored by the flow module) */
    unsigned flow_nslots;
    bool flow_stops;         /* the flow has on_stop (a leaving user runs it) */
    struct script_res *flow_res; /* per slot: the user's response (conn_shared.flow_res) */
    struct script_flow_names flow_names;
    struct tags *tags;       /* a flow's worker state: the run's request tags (tags.h) */
    char name[256];          /* the script as the user named it, for messages */
    const struct script_aside *aside; /* the main state's: what its workers' states are for
                                       * (script_aside.h); NULL: the run's, no setup data */
    /* script_guard.c: calls into Lua, odd while one runs (written by the
     * worker only), and what other threads ask of the call under way. */
    _Atomic uint64_t calls;
    atomic_bool in_user;     /* the call is a flow user's resume */
    _Atomic uint64_t interrupt_call; /* interrupt this call (script_interrupt) */
    _Atomic int64_t interrupt_ms;    /* the bound it ran past, for the message */
    _Atomic uint64_t park_call;      /* stop for good when this call returns (script_park) */
    atomic_bool parked;      /* the worker stopped for good */
};

/* Around every call into Lua (script_guard.c): the count odd while it
 * runs. On return, a worker the run gave up on during that call stops for
 * good. The return's store and the park check are sequentially consistent,
 * as script_park's are, so that one of the two threads always sees the
 * other. */
static inline void script_guard_enter(struct script *s, bool user)
{
    atomic_store_explicit(&s->in_user, user, memory_order_relaxed);
    atomic_store_explicit(&s->calls, atomic_load_explicit(&s->calls, memory_order_relaxed) + 1,
                          memory_order_release);
}

void script_guard_parked(struct script *s);

static inline void script_guard_leave(struct script *s)
{
    uint64_t call = atomic_load_explicit(&s->calls, memory_order_relaxed);
    atomic_store(&s->calls, call + 1);
    if (atomic_load(&s->park_call) == call)
        script_guard_parked(s);
}

/* The scenario table at the top of the stack: its scenarios list checked
 * (bridge.scenarios_check) and counted; in a state that picked one, that
 * entry's user(u) taken as the flow and the entry set as its scenario.
 * Returns 0, or -2 with err (a bad list: the script is wrong). */
int script_scenarios_take(struct script *s, char *err, size_t errlen);

/* The one way volley calls into Lua: the function and its nargs arguments
 * are on the stack. Returns 0 with nres results pushed, or -1 with err
 * ("file:line: in hook(): message") and nothing pushed. hook: the hook's
 * name for messages, or NULL. */
int script_pcall(struct script *s, int nargs, int nres, const char *hook, char *err, size_t errlen);

/* Pushes require(module), protected (script_pcall's return). */
int script_require(struct script *s, const char *module, char *err, size_t errlen);

/* Pushes bridge[name]. */
void script_push_bridge(struct script *s, const char *name);

/* script_tags.c: puts the tag functions of a flow's requests
 * (c_flow_tag, c_flow_tagset) into the bridge table at the top of L's
 * stack. */
void script_tags_bind(struct script *s, lua_State *L);

/* A Lua error msg as one line into err: "file:line: message" ->
 * "file:line: in hook(): message" (hook NULL: without it); a message
 * without a position gets the script's name in front. */
void script_format_error(const struct script *s, const char *msg, const char *hook, char *err, size_t errlen);

/* The final head (after any 1xx), the (decoded) body of r, and its
 * trailer section (header lines; *len 0 when it has none). */
const char *script_res_head(struct script_res *r, size_t *len);
const char *script_res_body(struct script_res *r, size_t *len);
const char *script_res_trailers(struct script_res *r, size_t *len);

/* One "name: value" line of a head: the name as received and the value
 * without the blanks around it (nlen 0: a line without a colon). */
struct script_field {
    const char *name, *value;
    size_t nlen, vlen;
};

/* The line after the line end at *at (NULL: none) up to end, into f; *at
 * moves to that line's end. Returns false when no whole line is left.
 * Inline: res.headers runs it for every line of a response's head, and a
 * call per line cost a wrk-style response(status, headers, body) about 200
 * instructions a response (docs/performance.md, Hooks). */
static inline bool script_next_field(const char **at, const char *end, struct script_field *f)
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

/* Pushes a table of the "name: value" lines that follow p (a line end,
 * or NULL for none) up to end. */
void script_push_fields(lua_State *L, const char *p, const char *end);

/* Pushes a table of r's header fields (name as received -> value; the last
 * of a repeated name wins, as in wrk). */
void script_push_headers(lua_State *L, struct script_res *r);

/* A flow's worker state (script_flow.c): the per-slot coroutines, and
 * the flow module bound to the slots' responses. Called by script_bind. */
void script_flow_bind(struct script *s, const struct script_worker *w);

/* Frees what script_flow_bind made (the state itself owns the rest). */
void script_flow_free(struct script *s);

/* The failed iterations counted by reason in the state, into st->flow
 * (script_take_reasons calls it). */
void script_flow_take_reasons(struct script *s, struct stats *st);

/* The table of C functions Lua reaches through the FFI (script_api.c). */
const void *script_api(void);

/* Adds wrk.lookup and wrk.connect to the wrk table at the top of the
 * stack, and the thread and address types to the state (script_main.c). */
void script_open_threads(lua_State *L);

/* Pushes the thread object for t (setup's argument, wrk.thread). */
void script_push_thread(lua_State *L, struct script_thread *t);

#endif
