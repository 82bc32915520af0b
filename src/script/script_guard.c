/* How long Lua may run at a stretch (issue 29, item 5). Every call into
 * Lua (script_pcall, a flow user's resume) moves the state's call count to
 * odd on entry and to even on return, so another thread sees a call that
 * has not returned. The run's main thread (run/run_watch.c) watches the
 * counts: a flow user that runs past --yield-timeout without yielding is
 * interrupted through a signal to its worker, whose handler sets a count
 * hook (what lua.c does for Ctrl-C); the hook raises an error naming the
 * script's line, which fails the iteration. A call that cannot be
 * interrupted (compiled code, a long C function) is parked instead when the
 * run must end: its worker stops at the end of that call for good, and the
 * run reports without it. Nothing here costs more than two plain stores and
 * a load per call while no one asks. */
#include "script_internal.h"

#include <errno.h>
#include <lauxlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The worker thread's own state, for the signal handler. */
static _Thread_local struct script *running;

/* Where in the script's own file the interrupted code is: the innermost
 * frame whose chunk is the script (not a bundled module); its "file:line"
 * into buf, or "" when none is (the user was in volley's own code). */
static void script_line(lua_State *L, const struct script *s, char *buf, size_t len)
{
    lua_Debug ar;
    buf[0] = '\0';
    for (int level = 0; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0 || ar.source[0] != '@')
            continue;
        if (strcmp(ar.source + 1, s->name) == 0) {
            snprintf(buf, len, "%s:%d", ar.short_src, ar.currentline);
            return;
        }
    }
}

/* The count hook the handler sets: once, in whichever of the state's
 * coroutines runs next; it raises only if the call it was set for is still
 * the one under way (the user may have yielded between the watcher's look
 * and the signal). */
static void over_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    struct script *s = running;
    if (!s || atomic_load_explicit(&s->calls, memory_order_relaxed) !=
                  atomic_load_explicit(&s->interrupt_call, memory_order_relaxed))
        return;
    char where[300];
    script_line(L, s, where, sizeof where);
    lua_pushfstring(L, "%s%suser() ran %dms without yielding (--yield-timeout)", where, where[0] ? ": " : "",
                    (int)atomic_load_explicit(&s->interrupt_ms, memory_order_relaxed));
    lua_error(L);
}

/* Async-signal-safe: lua_sethook is the one Lua call made for this (it
 * only stores the hook and switches the dispatch table). */
static void on_interrupt(int sig)
{
    (void)sig;
    struct script *s = running;
    int saved = errno;
    if (s && atomic_load_explicit(&s->in_user, memory_order_relaxed) && atomic_load_explicit(&s->calls, memory_order_relaxed) ==
                               atomic_load_explicit(&s->interrupt_call, memory_order_relaxed))
        lua_sethook(s->L, over_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
    errno = saved;
}

int script_guard_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(SCRIPT_GUARD_SIGNAL, &sa, NULL);
}

void script_guard_bind(struct script *s)
{
    running = s;
}

uint64_t script_busy(struct script *s)
{
    return atomic_load_explicit(&s->calls, memory_order_acquire);
}

bool script_in_user(struct script *s)
{
    return (atomic_load_explicit(&s->calls, memory_order_acquire) & 1) && atomic_load_explicit(&s->in_user, memory_order_relaxed);
}

void script_interrupt(struct script *s, uint64_t call, int64_t bound_ns)
{
    atomic_store_explicit(&s->interrupt_ms, bound_ns / 1000000, memory_order_relaxed);
    atomic_store_explicit(&s->interrupt_call, call, memory_order_release);
}

bool script_park(struct script *s, uint64_t call)
{
    atomic_store(&s->park_call, call);
    return atomic_load(&s->calls) == call || atomic_load_explicit(&s->parked, memory_order_acquire);
}

bool script_parked(struct script *s)
{
    return atomic_load_explicit(&s->parked, memory_order_acquire);
}

void script_guard_parked(struct script *s)
{
    /* The run reports without this worker: it must touch nothing more.
     * The process ends soon; until then the thread sleeps. */
    atomic_store_explicit(&s->parked, true, memory_order_release);
    for (;;)
        pause();
}
