/* A flow's users in the bridge (script_flow.c): what each user's coroutine
 * asks for next, a batch's requests, the other origins it reaches, and the
 * calls that resume it, check its responses and hand it its events. Part
 * of script.h (which includes it), kept apart for its size. */
#ifndef VOLLEY_SCRIPT_FLOW_H
#define VOLLEY_SCRIPT_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct script;
struct script_res;

/* A flow (scenario with user(u)): one Lua coroutine per connection slot,
 * a virtual user. What the user's coroutine asks for next: */
enum script_flow_act {
    SCRIPT_FLOW_REQUEST, /* send req (one request) and resume when it ended */
    SCRIPT_FLOW_SLEEP,   /* resume after ms (u:sleep) */
    SCRIPT_FLOW_END,     /* the iteration ended (failed: u:fail or an error, its reason
                          * counted in the state); resume with start to begin the next */
    SCRIPT_FLOW_BATCH,   /* send n requests together (u:batch; script_flow_item gives
                          * each) and resume with their responses when all have ended */
    SCRIPT_FLOW_BEGIN,   /* on_start is over: the iteration's clock starts now (closed
                          * load); resume at once */
};

/* How a user is resumed: its last step is over, a new iteration begins
 * (the first for the slot makes the user), or the user leaves between
 * iterations (its on_stop runs; an END follows, which is no iteration). */
enum script_flow_how { SCRIPT_FLOW_STEP, SCRIPT_FLOW_START, SCRIPT_FLOW_STOP };

struct script_flow_step {
    enum script_flow_act act;
    const char *req;     /* REQUEST: the bytes, valid until the slot is resumed again */
    size_t len;
    uint32_t name;       /* REQUEST: its name id + 1, 0 for none */
    int64_t timeout_ns;  /* REQUEST: its own timeout (opts.timeout), 0: --timeout */
    bool check;          /* REQUEST: it has a check (script_flow_check when it is answered) */
    uint8_t stream;      /* REQUEST: SCRIPT_FLOW_STREAM bits (opts.stream) */
    uint8_t origin;      /* REQUEST: 0 the target, else another origin (script_flow_origin),
                          * or SCRIPT_FLOW_REFUSED */
    double ms;           /* SLEEP */
    bool failed;         /* END */
    bool io;             /* END: the iteration sent a request or slept */
    double wait_ms;      /* END: the wait rule's time before the next iteration */
    unsigned n;          /* BATCH: how many requests */
};

/* One request of a batch (valid until the slot is resumed again). */
struct script_flow_item {
    const char *req;
    size_t len;
    uint32_t name;
    int64_t timeout_ns;
    bool check;
    uint8_t stream;      /* SCRIPT_FLOW_STREAM bits */
    uint8_t origin;      /* 0 the target, else another origin (script_flow_origin), or
                          * SCRIPT_FLOW_REFUSED */
};

/* The other origins (scheme, host, port) a worker's flow may reach
 * (--allow-host), numbered from 1 by the worker's state as its users
 * first reach them (lua/volley/flow.lua's MAX_ORIGINS). */
#define SCRIPT_FLOW_ORIGINS 16

/* The origin of a request that may not go (a host --allow-host does not
 * list): it fails unsent, counted (its reason the state's). */
#define SCRIPT_FLOW_REFUSED 255

struct script_origin {
    bool https;
    uint16_t port;
    char host[256];         /* lower case, without IPv6 brackets */
    char authority[264];    /* as a Host header gives it: host[:port] (no default port) */
};

/* Origin id (1..SCRIPT_FLOW_ORIGINS) of the worker's state, once a step
 * named it: read from the state at its first use and kept (the pointer
 * stays valid until script_flow_free). NULL for an id the state never
 * gave. */
const struct script_origin *script_flow_origin(struct script *s, unsigned id);

/* A flow request's opts.stream: its response streams (ASKED), and a
 * function takes each event (CALL: script_flow_event). */
enum { SCRIPT_FLOW_STREAM_ASKED = 1, SCRIPT_FLOW_STREAM_CALL = 2 };

/* An event of the streamed response of slot's request (item: its place in
 * a batch, or -1), in the bound script_event: the request's stream
 * function called. *verdict as script_event's. Returns 0, or -1 with err
 * when the bridge failed. */
int script_flow_event(struct script *s, unsigned slot, int item, int *verdict, char *err, size_t errlen);

/* Request i (0-based, below the step's n) of the batch slot's user asked
 * for. */
void script_flow_item(struct script *s, unsigned slot, unsigned i, struct script_flow_item *it);

/* Resumes the user of slot until it asks for its next step. how: START, a
 * new iteration begins (the first for the slot makes the user: u, its
 * coroutine); STEP, the step asked for last is over (the request's outcome
 * is in the slot's flow_res); STOP, the user leaves (only once the slot
 * has a user: script_flow_has_user). Returns 0, or -1 with err when the
 * bridge itself failed (an error in user() is an END with failed, not
 * this). */
int script_flow_resume(struct script *s, unsigned slot, enum script_flow_how how, struct script_res *const *items,
                       unsigned nitems, struct script_flow_step *st, char *err, size_t errlen);

/* Whether the flow has on_stop: a user that waits out its wait rule's time
 * then keeps the run going, to leave (and run on_stop) when it is over. */
bool script_flow_stops(const struct script *s);

/* Whether slot's user has been made (it ran an iteration). */
bool script_flow_has_user(const struct script *s, unsigned slot);

/* The check of the request just answered on slot (item: its place in a
 * batch, or -1 for a request of its own; res: its response): *failed when
 * it returned false or raised an error (the reason counted as a
 * validation failure's). Returns 0, or -1 with err when the bridge failed. */
int script_flow_check(struct script *s, unsigned slot, int item, struct script_res *res, bool *failed, char *err,
                      size_t errlen);

#endif
