/* The main state's hooks setup and done, and what wrk gives them: thread
 * objects (thread.addr, thread:get/set/stop), addresses (wrk.lookup,
 * wrk.connect), statistics objects. These run on the main thread, outside
 * the request path; values cross between states by copy. (options() is in
 * script_options.c.) */
#include "script_internal.h"

#include "tls.h"

#include "clock.h"
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lauxlib.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define THREAD_MT "volley.thread"
#define ADDR_MT "volley.addr"

/* Tables nested deeper than this cannot cross (and cycles cannot either). */
#define COPY_DEPTH 32

struct addr {
    struct sockaddr_storage sa;
    socklen_t len;
};

static void push_addr(lua_State *L, const struct sockaddr *sa, socklen_t len)
{
    struct addr *a = lua_newuserdata(L, sizeof *a);
    memset(a, 0, sizeof *a);
    memcpy(&a->sa, sa, len);
    a->len = len;
    luaL_getmetatable(L, ADDR_MT);
    lua_setmetatable(L, -2);
}

static int addr_tostring(lua_State *L)
{
    struct addr *a = luaL_checkudata(L, 1, ADDR_MT);
    char buf[80];
    net_addr_string((const struct sockaddr *)&a->sa, buf, sizeof buf);
    lua_pushstring(L, buf);
    return 1;
}

/* wrk.lookup(host, service): every address of host, as wrk.connect and
 * thread.addr take them (localhost: 127.0.0.1 and ::1, as the run's own
 * target). Unlike wrk, which exits, a failure is a Lua error. */
static void lookup_add(void *arg, const struct sockaddr *sa, socklen_t len)
{
    lua_State *L = arg;
    push_addr(L, sa, len);
    lua_rawseti(L, -2, (int)lua_objlen(L, -2) + 1);
}

static int wrk_lookup(lua_State *L)
{
    const char *host = luaL_checkstring(L, 1);
    const char *service = luaL_optstring(L, 2, "http");
    lua_newtable(L);
    int rc = net_resolve(host, service, lookup_add, L);
    if (rc != 0)
        return luaL_error(L, "wrk.lookup: unable to resolve %s:%s: %s", host, service, gai_strerror(rc));
    return 1;
}

/* Waits until fd's connect ends or timeout_ms pass (< 0: no limit).
 * Returns 0 when connected, the connect's errno, or -1 on the timeout. */
static int connect_wait(int fd, int64_t timeout_ms)
{
    int64_t end = clock_now_ns() + timeout_ms * 1000000;
    for (;;) {
        int64_t left = timeout_ms < 0 ? -1 : (end - clock_now_ns() + 999999) / 1000000;
        if (timeout_ms >= 0 && left <= 0)
            return -1;
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int n = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
        if (n > 0)
            return net_connect_result(fd);
        if (n < 0 && errno != EINTR)
            return errno;
    }
}

/* wrk.connect(addr[, seconds]): whether a TCP connection to addr opens
 * within seconds (default 1, as wrk; negative: no limit); it is closed
 * again at once. Returns true; or false, "timeout" when nothing answered in
 * time; or false, the system's message and the errno when the connect
 * failed (volley ab tells these apart as ab does). */
static int wrk_connect(lua_State *L)
{
    struct addr *a = luaL_checkudata(L, 1, ADDR_MT);
    double secs = luaL_optnumber(L, 2, 1.0);
    int64_t timeout_ms = secs < 0 ? -1 : secs > 1e9 ? INT64_C(1000000000000) : (int64_t)(secs * 1000 + 0.5);
    int fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int err = fd < 0 ? errno : 0;
    if (fd >= 0) {
        if (connect(fd, (struct sockaddr *)&a->sa, a->len) < 0)
            err = errno == EINPROGRESS ? connect_wait(fd, timeout_ms) : errno;
        close(fd);
    }
    if (err == 0) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    if (err < 0) {
        lua_pushliteral(L, "timeout");
        return 2;
    }
    lua_pushstring(L, strerror(err));
    lua_pushinteger(L, err);
    return 3;
}

static struct script_thread *check_thread(lua_State *L)
{
    return *(struct script_thread **)luaL_checkudata(L, 1, THREAD_MT);
}

/* Whether v (at idx of L) can cross to another state. */
static const char *untransferable(lua_State *L, int idx, int depth)
{
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
    case LUA_TBOOLEAN:
    case LUA_TNUMBER:
    case LUA_TSTRING:
        return NULL;
    case LUA_TTABLE:
        if (depth >= COPY_DEPTH)
            return "table nested deeper than 32 (or a cycle)";
        idx = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            const char *bad = untransferable(L, -2, depth + 1);
            if (!bad)
                bad = untransferable(L, -1, depth + 1);
            if (bad) {
                lua_pop(L, 2);
                return bad;
            }
            lua_pop(L, 1);
        }
        return NULL;
    default:
        return luaL_typename(L, idx);
    }
}

/* Pushes onto to a copy of the value at idx of from (checked already). */
static void copy_value(lua_State *from, int idx, lua_State *to)
{
    size_t len;
    const char *str;
    switch (lua_type(from, idx)) {
    case LUA_TBOOLEAN:
        lua_pushboolean(to, lua_toboolean(from, idx));
        return;
    case LUA_TNUMBER:
        lua_pushnumber(to, lua_tonumber(from, idx));
        return;
    case LUA_TSTRING:
        str = lua_tolstring(from, idx, &len);
        lua_pushlstring(to, str, len);
        return;
    case LUA_TTABLE:
        idx = idx < 0 ? lua_gettop(from) + idx + 1 : idx;
        lua_newtable(to);
        lua_pushnil(from);
        while (lua_next(from, idx)) {
            copy_value(from, -2, to);
            copy_value(from, -1, to);
            lua_rawset(to, -3);
            lua_pop(from, 1);
        }
        return;
    default:
        lua_pushnil(to);
        return;
    }
}

/* The other state of a thread object may only be touched while its worker
 * is not running: in setup() and done(), or from the thread's own state. */
static lua_State *thread_state(lua_State *L, struct script_thread *t, const char *what)
{
    lua_State *TL = t->state->L;
    if (TL != L && t->started)
        luaL_error(L, "thread:%s: only in setup() and done() (the thread is running)", what);
    return TL;
}

/* thread:get(name): a copy of the thread's global name. */
static int thread_get(lua_State *L)
{
    struct script_thread *t = check_thread(L);
    const char *name = luaL_checkstring(L, 2);
    lua_State *TL = thread_state(L, t, "get");
    if (TL == L) {
        lua_getglobal(L, name);
        return 1;
    }
    lua_getglobal(TL, name);
    const char *bad = untransferable(TL, -1, 0);
    if (bad) {
        lua_pop(TL, 1);
        return luaL_error(L, "thread:get: cannot transfer '%s' from thread", bad);
    }
    copy_value(TL, -1, L);
    lua_pop(TL, 1);
    return 1;
}

/* thread:set(name, value): sets the thread's global name to a copy. */
static int thread_set(lua_State *L)
{
    struct script_thread *t = check_thread(L);
    const char *name = luaL_checkstring(L, 2);
    lua_settop(L, 3);
    lua_State *TL = thread_state(L, t, "set");
    if (TL == L) {
        lua_setglobal(L, name);
        return 0;
    }
    const char *bad = untransferable(L, 3, 0);
    if (bad)
        return luaL_error(L, "thread:set: cannot transfer '%s' to thread", bad);
    copy_value(L, 3, TL);
    lua_setglobal(TL, name);
    return 0;
}

/* thread:stop(): the thread stops; what it had in flight is cut off. */
static int thread_stop(lua_State *L)
{
    struct script_thread *t = check_thread(L);
    if (t->stop)
        t->stop(t->stop_arg);
    return 0;
}

static int thread_index(lua_State *L)
{
    struct script_thread *t = check_thread(L);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "addr") == 0) {
        push_addr(L, (const struct sockaddr *)&t->addr, t->addrlen);
        return 1;
    }
    if (strcmp(k, "id") == 0) {
        lua_pushinteger(L, (lua_Integer)t->index + 1);
        return 1;
    }
    luaL_getmetatable(L, THREAD_MT);
    lua_getfield(L, -1, k); /* a method, or nil */
    return 1;
}

/* thread.addr = addr: where the thread's connections go from now on (those
 * open stay where they are). As in wrk, setup() sets it in the main state
 * and the thread itself may set it in its own state, in init() and in the
 * hooks of the run, which run on the worker's thread: no other thread
 * reads it then (conn_shared.addr). */
static int thread_newindex(lua_State *L)
{
    struct script_thread *t = check_thread(L);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "addr") != 0)
        return luaL_error(L, "cannot set '%s' on thread", k);
    struct addr *a = luaL_testudata(L, 3, ADDR_MT);
    if (!a && lua_type(L, 3) == LUA_TSTRING)
        return luaL_error(L, "thread.addr: \"%s\" is a string, not an address (take one from wrk.lookup)",
                          lua_tostring(L, 3));
    if (!a)
        return luaL_error(L, "thread.addr: a %s is not an address (take one from wrk.lookup)", luaL_typename(L, 3));
    if (t->started && t->state->L != L)
        return luaL_error(L, "thread.addr: the thread is running (set it in setup(), or from the thread's own state)");
    if (t->family && a->sa.ss_family != t->family) {
        char buf[80];
        net_addr_string((const struct sockaddr *)&a->sa, buf, sizeof buf);
        return luaL_error(L, "thread.addr: %s is %s, but --source's addresses are %s", buf,
                          a->sa.ss_family == AF_INET6 ? "IPv6" : "IPv4", t->family == AF_INET6 ? "IPv6" : "IPv4");
    }
    memcpy(&t->addr, &a->sa, a->len);
    t->addrlen = a->len;
    return 0;
}

static int thread_tostring(lua_State *L)
{
    lua_pushfstring(L, "thread %d", (int)check_thread(L)->index + 1);
    return 1;
}

void script_push_thread(lua_State *L, struct script_thread *t)
{
    struct script_thread **u = lua_newuserdata(L, sizeof *u);
    *u = t;
    luaL_getmetatable(L, THREAD_MT);
    lua_setmetatable(L, -2);
}

void script_open_threads(lua_State *L)
{
    if (luaL_newmetatable(L, THREAD_MT)) {
        static const luaL_Reg m[] = {
            {"get", thread_get},           {"set", thread_set},
            {"stop", thread_stop},         {"__index", thread_index},
            {"__newindex", thread_newindex}, {"__tostring", thread_tostring},
            {NULL, NULL},
        };
        luaL_register(L, NULL, m);
    }
    lua_pop(L, 1);
    if (luaL_newmetatable(L, ADDR_MT)) {
        lua_pushcfunction(L, addr_tostring);
        lua_setfield(L, -2, "__tostring");
    }
    lua_pop(L, 1);
    lua_pushcfunction(L, wrk_lookup);
    lua_setfield(L, -2, "lookup");
    lua_pushcfunction(L, wrk_connect);
    lua_setfield(L, -2, "connect");
}

int script_setup(struct script *s, struct script_thread *t, char *err, size_t errlen)
{
    if (!script_has(s, SCRIPT_SETUP))
        return 0;
    lua_rawgeti(s->L, LUA_REGISTRYINDEX, s->hooks[SCRIPT_SETUP]);
    script_push_thread(s->L, t);
    return script_pcall(s, 1, 0, "setup", err, errlen);
}

/* t[k] = n */
static void set_number(lua_State *L, const char *k, double n)
{
    lua_pushnumber(L, n);
    lua_setfield(L, -2, k);
}

/* Pushes a stats object over h (lua/volley/stats.lua); values / scale;
 * wrk: with wrk's whole numbers and unknown fields (wrk-style done()). */
static void push_stats(lua_State *L, int stats_new, const struct hist *h, double scale, bool wrk)
{
    lua_pushvalue(L, stats_new);
    lua_pushlightuserdata(L, (void *)h);
    lua_pushnumber(L, scale);
    lua_pushboolean(L, wrk);
    lua_call(L, 3, 1); /* inside the protected done call */
}

/* The errors table. wrk style: wrk's five kinds (read includes parse
 * errors; status counts responses with a status >= 400) and volley's parse
 * and validation. Scenario style: volley's kinds, as in the JSON, which add
 * up to requests.failed. */
static void push_errors(lua_State *L, const struct stats *st, bool wrk)
{
    lua_newtable(L);
    if (!wrk) {
        for (int e = 0; e < STATS_ERR_KINDS; e++)
            set_number(L, stats_error_name((enum stats_error)e), (double)st->errors[e]);
        return;
    }
    uint64_t status = 0;
    for (int i = 400; i < STATS_STATUS_MAX; i++)
        status += st->status[i];
    set_number(L, "connect", (double)st->errors[STATS_ERR_CONNECT]);
    set_number(L, "read", (double)(st->errors[STATS_ERR_READ] + st->errors[STATS_ERR_PARSE]));
    set_number(L, "write", (double)st->errors[STATS_ERR_WRITE]);
    set_number(L, "status", (double)status);
    set_number(L, "timeout", (double)st->errors[STATS_ERR_TIMEOUT]);
    set_number(L, "parse", (double)st->errors[STATS_ERR_PARSE]);
    set_number(L, "validation", (double)st->errors[STATS_ERR_VALIDATION]);
}

struct done_args {
    const struct stats *st;
    int64_t duration_ns;
    int64_t cpu_ns, wall_ns; /* the worker threads' CPU time and spans, summed */
    bool interrupted;
    bool scenario;
    int bridge;       /* registry reference of the volley.bridge module */
    const struct tls_info *tls; /* https with a probe; NULL otherwise */
};

static void set_string(lua_State *L, const char *k, const char *v)
{
    lua_pushstring(L, v);
    lua_setfield(L, -2, k);
}

/* result.tls: what the handshake agreed on, the handshake counts and times. */
static void push_tls(lua_State *L, const struct done_args *a, int stats_new)
{
    const struct tls_info *i = a->tls;
    lua_newtable(L);
    set_string(L, "protocol", i->protocol);
    set_string(L, "cipher", i->cipher);
    set_string(L, "group", i->group);
    set_string(L, "temp_key", i->temp_key);
    set_string(L, "sni", i->sni);
    set_string(L, "alpn", i->alpn);
    set_number(L, "cipher_bits", i->cipher_bits);
    set_number(L, "peer_key_bits", i->peer_key_bits);
    set_number(L, "full", (double)a->st->tls_full);
    set_number(L, "resumed", (double)a->st->tls_resumed);
    push_stats(L, stats_new, &a->st->handshake, 1e3, false);
    lua_setfield(L, -2, "handshake");
}

/* .stream (streamed responses' counters, and their histograms as stats
 * objects: times in us, events per stream as counts) and .cpu (the worker
 * threads' CPU time, in s, and its share of their spans) into the table on
 * top. */
static void push_stream_cpu(lua_State *L, const struct done_args *a, int stats_new)
{
    const struct stats_stream *ss = &a->st->stream;
    lua_newtable(L);
    const struct {
        const char *name;
        uint64_t v;
    } counts[] = {
        {"streams", ss->streams}, {"events", ss->events}, {"closed", ss->closed}, {"no_event", ss->no_event},
        {"too_large", ss->too_large}, {"token_streams", ss->token_streams}, {"usage_streams", ss->usage_streams},
        {"tokens_out", ss->tokens_out}, {"tokens_in", ss->tokens_in}, {"peak", ss->peak},
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        set_number(L, counts[i].name, (double)counts[i].v);
    const struct {
        const char *name;
        const struct hist *h;
        double scale;
    } hists[] = {
        {"first_event", &ss->first, 1e3}, {"service_first_event", &ss->first_service, 1e3},
        {"event_gap", &ss->gap, 1e3}, {"events_per_stream", &ss->count, 1}, {"duration", &ss->duration, 1e3},
        {"ttft", &ss->ttft, 1e3}, {"service_ttft", &ss->ttft_service, 1e3}, {"itl", &ss->itl, 1e3},
        {"tpot", &ss->tpot, 1e3}, {"e2el", &ss->e2el, 1e3}, {"service_e2el", &ss->e2el_service, 1e3},
    };
    for (size_t i = 0; i < sizeof hists / sizeof hists[0]; i++) {
        push_stats(L, stats_new, hists[i].h, hists[i].scale, false);
        lua_setfield(L, -2, hists[i].name);
    }
    lua_setfield(L, -2, "stream");
    lua_newtable(L);
    set_number(L, "seconds", (double)a->cpu_ns / 1e9);
    set_number(L, "share", a->wall_ns > 0 ? (double)a->cpu_ns / (double)a->wall_ns : 0);
    lua_setfield(L, -2, "cpu");
}

/* Pushes result (scenario) or summary, latency, requests (wrk). */
static int push_done_args(lua_State *L, const struct done_args *a, int stats_new)
{
    const struct stats *st = a->st;
    if (!a->scenario) {
        lua_newtable(L);                            /* summary */
        set_number(L, "duration", (double)(a->duration_ns / 1000));
        set_number(L, "requests", (double)st->completed);
        set_number(L, "bytes", (double)st->bytes_read);
        push_errors(L, st, true);
        lua_setfield(L, -2, "errors");
        push_stream_cpu(L, a, stats_new);
        push_stats(L, stats_new, &st->latency, 1e3, true);
        push_stats(L, stats_new, &st->rate, 1, true);
        return 3;
    }
    lua_newtable(L);                                /* result */
    set_number(L, "duration", (double)a->duration_ns / 1e9);
    lua_pushboolean(L, a->interrupted);
    lua_setfield(L, -2, "interrupted");
    lua_newtable(L);
    set_number(L, "started", (double)st->started);
    set_number(L, "completed", (double)st->completed);
    set_number(L, "failed", (double)stats_failed(st));
    set_number(L, "cut_off", (double)st->cut_off);
    set_number(L, "closed", (double)st->closed);
    set_number(L, "connect_timeouts", (double)st->connect_timeouts);
    set_number(L, "unsent", (double)st->unsent);
    lua_setfield(L, -2, "requests");
    lua_pushstring(L, st->open ? "open" : "closed");
    lua_setfield(L, -2, "model");
    lua_newtable(L);
    set_number(L, "read", (double)st->bytes_read);
    set_number(L, "written", (double)st->bytes_written);
    lua_setfield(L, -2, "bytes");
    set_number(L, "connections", (double)st->connects);
    lua_newtable(L);
    for (int i = 100; i < STATS_STATUS_MAX; i++) {
        if (st->status[i]) {
            lua_pushnumber(L, (double)st->status[i]);
            lua_rawseti(L, -2, i);
        }
    }
    lua_setfield(L, -2, "status");
    push_errors(L, st, false);
    lua_setfield(L, -2, "errors");
    lua_newtable(L);
    for (size_t i = 0; i < st->nreasons; i++)
        set_number(L, st->reasons[i].reason, (double)st->reasons[i].count);
    lua_setfield(L, -2, "failures");
    push_stats(L, stats_new, &st->latency, 1e3, false);
    lua_setfield(L, -2, "latency");
    push_stats(L, stats_new, &st->connect, 1e3, false);
    lua_setfield(L, -2, "connect");
    push_stats(L, stats_new, &st->waiting, 1e3, false);
    lua_setfield(L, -2, "waiting");
    push_stats(L, stats_new, &st->rate, 1, false);
    lua_setfield(L, -2, "rate");
    push_stream_cpu(L, a, stats_new);
    if (a->tls) {
        push_tls(L, a, stats_new);
        lua_setfield(L, -2, "tls");
    }
    if (st->open) {
        push_stats(L, stats_new, &st->service, 1e3, false);
        lua_setfield(L, -2, "service");
        push_stats(L, stats_new, &st->sendlag, 1e3, false);
        lua_setfield(L, -2, "sendlag");
    }
    lua_newtable(L);                                /* result metrics */
    lua_newtable(L);
    lua_newtable(L);                                /* result metrics counters records */
    for (size_t i = 0; i < st->metrics.n; i++) {
        const struct metric *m = &st->metrics.m[i];
        if (m->kind == METRIC_COUNTER) {
            lua_pushnumber(L, m->total);
            lua_setfield(L, -3, m->name);
        } else {
            push_stats(L, stats_new, &m->values, METRIC_SCALE, false);
            lua_setfield(L, -2, m->name);
        }
    }
    lua_setfield(L, -3, "records");
    lua_setfield(L, -2, "counters");
    lua_setfield(L, -2, "metrics");
    if (st->first_head_len) {
        lua_pushlstring(L, st->first_head, st->first_head_len);
        lua_setfield(L, -2, "first_head");
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->bridge);   /* result bridge */
    lua_getfield(L, -1, "samples");
    lua_remove(L, -2);                              /* result samples */
    lua_pushlightuserdata(L, st->samples);
    lua_pushnumber(L, (double)st->nsamples);
    lua_pushlightuserdata(L, st->heads);
    lua_call(L, 3, 1);
    lua_setfield(L, -2, "samples");
    return 1;
}

/* Protected: upvalue-free; stack: done hook, lightuserdata args. */
static int call_done(lua_State *L)
{
    const struct done_args *a = lua_touserdata(L, 2);
    lua_settop(L, 1);                               /* done */
    lua_getglobal(L, "require");
    lua_pushstring(L, "volley.stats");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "new");
    lua_remove(L, -2);                              /* done new */
    lua_pushvalue(L, 1);                            /* done new done */
    int n = push_done_args(L, a, 2);
    lua_call(L, n, 0);
    return 0;
}

int script_done(struct script *s, const struct stats *st, int64_t duration_ns, int64_t cpu_ns, int64_t wall_ns,
                bool interrupted, const struct tls_info *tls, char *err, size_t errlen)
{
    if (!script_has(s, SCRIPT_DONE))
        return 0;
    struct done_args a = {st, duration_ns, cpu_ns, wall_ns, interrupted, s->scenario, s->bridge, tls};
    script_set_phase(s, "done");
    lua_pushcfunction(s->L, call_done);
    lua_rawgeti(s->L, LUA_REGISTRYINDEX, s->hooks[SCRIPT_DONE]);
    lua_pushlightuserdata(s->L, &a);
    return script_pcall(s, 2, 0, "done", err, errlen);
}
