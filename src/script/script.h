/* The LuaJIT bridge: Lua states with volley's embedded Lua modules, loading
 * a script, resolving its hooks once, and calling them protected. Only
 * script*.c include lua.h.
 *
 * Two kinds of state: the main state (options, setup, done; on the main
 * thread) and one state per worker (init and the per-request hooks, on the
 * worker's thread; init runs on the main thread before the workers start).
 * The bridge's Lua half is lua/volley/bridge.lua. */
#ifndef VOLLEY_SCRIPT_H
#define VOLLEY_SCRIPT_H

struct tls_info; /* tls.h */

#include "http.h"
#include "metrics.h"
#include "names.h"
#include "script_flow.h" /* a flow's users: their steps, batches and origins */
#include "tags.h"
#include "stats.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

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
    SCRIPT_USER,     /* a flow: one iteration of a virtual user (scenario tables only) */
    SCRIPT_EVENT,    /* an event of a streamed response (scenario tables only) */
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
 * style). Returns 0, or -1 with err as one line: "file:line: message"
 * (the script does not load or run, or a hook is not a function), or -2
 * when a scenario table has a key that is not a hook ("unknown hook
 * \"respnse\" in the scenario table (did you mean \"response\"?)"): a bad
 * script rather than a failing one. */
int script_load(struct script *s, const char *path_or_name, char *err, size_t errlen);

/* Whether the loaded script defines hook h. */
bool script_has(const struct script *s, enum script_hook h);

/* For a wrk-style script that defines no hook, a global function of its
 * own whose name is near one ("reqest"): the line to warn with
 * ("s.lua: no hook defined; \"reqest\" is near \"request\"") in buf,
 * returned; NULL (buf "") when it has a hook or no such function. */
char *script_hook_near(struct script *s, char *buf, size_t len);

/* True for a scenario-style script (the chunk returned a table). */
bool script_is_scenario(const struct script *s);

/* Several scenarios (scenarios = { {name = ..., user = ...}, ... }; docs/
 * scripting.md "Several scenarios"): one entry as the script gives it,
 * checked by lua/volley/scenarios.lua; its texts as written (a number is
 * seconds, "12s"), parsed with the command line (options_scenarios). */
struct script_scenario {
    char name[65];
    uint32_t users, weight, max_users; /* 0: not given */
    bool open;                         /* it gives a rate */
    uint64_t rate;                     /* iterations per second (0 with stages from 0) */
    uint64_t iterations;               /* 0: not given */
    char start[64], duration[64];      /* "": not given */
    char stages[2048];                 /* "": none */
};

/* How many scenarios the loaded script's list holds; 0: it is one scenario
 * (or no scenario at all). */
unsigned script_scenario_count(const struct script *s);

/* Entry i (0-based) of the list into *out. Returns 0, or -1 past the end. */
int script_scenario_get(struct script *s, unsigned i, struct script_scenario *out);

/* Before script_load: the state runs scenario k (1-based) of a script
 * that has several: its entry's user(u) is the state's flow, and the entry
 * its scenario table (data). 0 (the default): none (the main state). */
void script_pick_scenario(struct script *s, unsigned k);

/* The hook's name as scripts spell it ("request"). */
const char *script_hook_name(enum script_hook h);

/* The script as the user named it (-s), for messages. */
const char *script_name(const struct script *s);

/* What the wrk table of a state starts with (wrk's fields, from the
 * command line). */
struct script_wrk {
    const char *scheme;
    const char *host;
    const char *port;        /* NULL when the URL names no port, as in wrk */
    unsigned port_number;    /* the port used (volley.target.port) */
    unsigned shard, shards;  /* volley.shard.index and .count (--shard; 0 and 1 without) */
    const char *allow;       /* --allow-host's hosts, "host port\n" each (port 0: any); NULL: none */
    const struct http_request_spec *req; /* method, path, headers, body, protocol,
                                          * user_agent (its host_header is not used:
                                          * script_init makes headers.Host from host
                                          * and port) */
};

/* Creates the global wrk table of s from w (call before script_load).
 * Returns 0, or -1 with err. */
int script_set_wrk(struct script *s, const struct script_wrk *w, char *err, size_t errlen);

/* math.randomseed(seed) in s (seed_state's number: before the chunk runs,
 * and in the main state again once options() has run). Returns 0, or -1
 * with err. */
int script_seed(struct script *s, double seed, char *err, size_t errlen);

/* The seed of a flow's users' own generators (their task choices and
 * wait draws: lua/volley/user_rng.lua), seed_state's number for
 * SEED_USERS: the same in every state of a run. Returns 0, or -1 with
 * err. */
int script_users_seed(struct script *s, double seed, char *err, size_t errlen);

/* A worker's state after its chunk has run, as wrk's wrk.init: sets the
 * default wrk.headers.Host from wrk.host and wrk.port, and User-Agent from
 * req->user_agent (each unless the headers have one, in any case), then
 * calls init(args) if the script has it: args[0] is url,
 * args[1..n] the script arguments. Returns 0, or -1 with err. */
int script_init(struct script *s, const char *url, char *const *args, int nargs, char *err, size_t errlen);

/* The response a response() hook looks at, filled by the connection before
 * script_response. raw points at the response's bytes (the worker's read
 * buffer or the connection's capture buffer) and is valid only during the
 * call: the caller sets live before and clears live and raw after, so a res
 * a script kept reads no freed memory. Lua reads this struct through the FFI: its layout is mirrored in
 * lua/volley/bridge.lua, so change both together. */
struct script_res {
    int32_t status;
    int32_t chunked;    /* raw's body is chunk-encoded (decoded in place when read) */
    double bytes;       /* bytes of the response, head included */
    double latency;     /* microseconds: request start -> last byte */
    double connect;     /* microseconds; 0 on a reused connection */
    double waiting;     /* microseconds: request written -> first byte */
    char *raw;          /* NULL when the hook does not read headers or body */
    size_t raw_len;
    size_t head_len;    /* private to the bridge: the final head's end, 0 = not yet known */
    size_t body_len;    /* private: the decoded body's length, once decoded */
    uint32_t serial;    /* changes with every response (Lua caches per response) */
    int32_t body_ready; /* private: the body was decoded */
    int32_t live;       /* 1 during the response() call; a res kept past it raises */
    int32_t name;       /* private: the request's name id + 1, 0: unnamed (per-name reasons) */
    size_t trailers_at; /* where the trailers begin in raw (header lines up to raw_len; the body
                         * ends there): set by the caller for HTTP/2 (0: none), by the decoding
                         * of a chunked body for HTTP/1 */
    int32_t error;      /* a flow's request: 0 answered, else the failure's kind + 1
                         * (enum stats_error): it has no response */
    double events;      /* a streamed response's events (conn_stream.h); 0 for others */
};

/* An event of a streamed response, for event(conn, ev) (conn_stream.c
 * fills it; its strings are valid only during the call, as live says).
 * Lua reads it, and writes tokens, total and prompt, through the FFI:
 * lua/volley/api.lua mirrors the layout, so change both together. */
struct script_event {
    const char *type;   /* "message" unless an event: field named it; "line" for a line stream */
    size_t type_len;
    const char *data;
    size_t data_len;
    const char *id;     /* the last event ID; may be empty */
    size_t id_len;
    double t;           /* microseconds from the request's start to the read that completed it */
    double retry;       /* ms, when the event carried a valid retry: field; else -1 */
    double total;       /* set by the hook: the stream's output tokens as the server counts
                         * them (its usage); -1: not set */
    double prompt;      /* set by the hook: the stream's input tokens; -1: not set */
    int32_t tokens;     /* set by the hook: tokens this event carried (0: none) */
    int32_t live;       /* 1 during the call; an ev kept past it raises */
    uint32_t serial;    /* changes with every event */
    int32_t name;       /* private: the request's name id + 1 */
};

/* event(conn, ev)'s verdicts (script_event). */
enum { SCRIPT_EVENT_GO_ON, SCRIPT_EVENT_CLOSE, SCRIPT_EVENT_FAILED };

/* A worker thread as scripts see it: the thread object of setup(thread) in
 * the main state, and wrk.thread in the worker's own state. Owned by the
 * run. addr may be changed by setup() before the worker starts, and by the
 * worker's own state at any time (init(), then on the worker's thread):
 * the worker's connections read it at each connect. */
struct script_thread {
    unsigned index;                /* 0-based */
    struct sockaddr_storage addr;  /* the address its connections use */
    socklen_t addrlen;
    int family;                    /* the family addr must keep (--source's), or 0: any */
    struct script *state;          /* the worker's Lua state */
    bool started;                  /* the worker runs: only its own state may set addr */
    void (*stop)(void *arg);       /* thread:stop() (thread-safe) */
    void *stop_arg;
};

/* What a worker's state is bound to for the run (script_bind). Pointers
 * stay valid for the state's life. */
struct script_worker {
    struct script_thread *thread;
    unsigned conn_base;            /* conn.id of the worker's slot 0, minus 1 */
    const uint32_t *conn_done;     /* per slot: responses completed on the open connection */
    struct script_res *res;
    struct script_event *event;    /* the worker's, filled for each event() call */
    struct metrics *metrics;
    struct names *names;           /* the run's request names (names.h), shared by the workers */
    struct stats *stats;           /* the worker's: each name's figures are made at its first use */
    /* A flow (user): */
    struct script_res *flow_res;   /* per slot: the user's latest response (the slot's own) */
    unsigned nslots;
    struct names *check_names;     /* the run's check and group names, shared by the workers */
    struct names *group_names;
    struct tags *tags;             /* the run's request tags (tags.h), shared by the workers */
};

/* Where a flow's checks and groups are interned and counted (the FFI's
 * flow_check_id and flow_group_id). */
struct script_flow_names {
    struct names *checks, *groups;
    struct stats_flow *flow;       /* the worker's */
};

/* What a worker's state names requests with: its next request's name,
 * which Lua writes through the FFI (lua/volley/api.lua mirrors the first
 * field: change both together), and where a name is interned at its first
 * use (the FFI's name_id). */
struct script_names {
    int32_t next;         /* id + 1 of the name the next request takes; 0: none */
    int32_t stream;       /* 1: the request request() returned asks to stream (its table's
                           * stream = true); taken by script_request_streams */
    struct names *names;
    struct stats *stats;
    struct names_cache cache; /* default names met by this worker (script_default_name) */
};

/* The default name of the request req[0..len) that a script's request()
 * or a flow sent unnamed: "METHOD path" (the path without its query and
 * fragment), a default name of the run's names (names_intern_default,
 * bounded: past NAMES_DEFAULT_MAX, NAMES_OVERFLOW), its figures made in
 * the worker's stats. Returns its id + 1, or 0 (left unnamed) when req has
 * no request line or the run has NAMES_MAX names. No malloc for a text
 * the worker met before. */
uint32_t script_default_name(struct script_names *sn, const char *req, size_t len);

/* As script_default_name, for a flow's request to another origin:
 * "METHOD authority/path" (authority: host[:port]; NULL: the target's
 * form). */
uint32_t script_default_name_at(struct script_names *sn, const char *req, size_t len, const char *authority);

/* Binds a worker's state to its thread, connections and metrics; from now
 * on volley.counter/record work and the phase is "init". */
void script_bind(struct script *s, const struct script_worker *w);

/* Sets the phase that API calls made in the wrong one name ("setup"). */
void script_set_phase(struct script *s, const char *phase);

/* A scenario's connection slot opens a new connection: a new conn table,
 * and connect(conn) if defined. Returns 0, or -1 with err. */
int script_conn_open(struct script *s, unsigned slot, char *err, size_t errlen);

/* https, scenario style: the connection in slot finished its handshake;
 * conn.tls becomes a table of what it agreed on (protocol, cipher, group,
 * alpn, resumed). A copy: the script never reaches the TLS state. Calls no
 * Lua code (the conn table has no __newindex). */
void script_conn_tls(struct script *s, unsigned slot, const struct tls_info *info);

/* Whether response() reads headers or body, so responses must be kept
 * whole for it: scenario hooks may read them; a wrk-style response() only
 * if it takes more than the status (its declared parameters). */
bool script_response_reads(const struct script *s);

/* Calls response() for the response in the bound script_res (scenario:
 * response(conn, res); wrk: response(status, headers, body)). *failed is
 * set when it returned false (a validation failure, counted by reason in
 * the state). Returns 0, or -1 with err when it raised an error or returned
 * something other than nil, true or false[, reason]. */
int script_response(struct script *s, unsigned slot, bool *failed, char *err, size_t errlen);

/* Calls event(conn, ev) for the event in the bound script_event. *verdict
 * is SCRIPT_EVENT_GO_ON (it returned nothing or true), _CLOSE (it returned
 * "close": the client ends the stream) or _FAILED (false[, reason]: the
 * reason counted as a validation failure's). Returns 0, or -1 with err
 * when it raised an error or returned something else. */
int script_event(struct script *s, unsigned slot, int *verdict, char *err, size_t errlen);

/* Moves the validation failures counted by reason into st->reasons (call
 * when the worker has stopped). */
void script_take_reasons(struct script *s, struct stats *st);

/* Main state: calls options(args) (scenario style) with the words after
 * "--" and turns the table it returns into command-line words (options
 * first, the URL last; *has_url when it gave one) to be parsed after the
 * user's own, so that they win. *words: malloc'd strings in a malloc'd
 * array, NULL when there is no options() or it returned nil. Returns 0;
 * -1 with err when options() raised an error or returned neither a table
 * nor nil; -2 with err ("s.lua: options(): unknown option \"conections\"
 * (did you mean \"connections\"?)", "... keepalive: a boolean expected")
 * when the table has a key or a value of the wrong type that volley does
 * not take (exit 2, as a bad command line). */
int script_options(struct script *s, char *const *args, int nargs, char ***words, int *nwords, bool *has_url,
                   char *err, size_t errlen);

/* Main state: calls setup(thread) for one worker thread. Returns 0, or -1. */
int script_setup(struct script *s, struct script_thread *t, char *err, size_t errlen);

/* Main state: calls done() with the run's results: done(result) for a
 * scenario, done(summary, latency, requests) in wrk style. cpu_ns and
 * wall_ns: the worker threads' CPU time and their spans, summed (the
 * table's cpu). tls: what the probe's handshake agreed on (https), or
 * NULL. The thread objects given to setup() still reach their states.
 * Returns 0, or -1. */
int script_done(struct script *s, const struct stats *st, int64_t duration_ns, int64_t cpu_ns, int64_t wall_ns,
                bool interrupted, const struct tls_info *tls, char *err, size_t errlen);

/* The request a connection sends: the request() hook's result (a string;
 * nil: the default request; a table: merged with the defaults), or, with no
 * hook, wrk.request(): wrk.format() of the wrk fields as the script left
 * them, unless the script replaced wrk.request. *req stays
 * valid until the next call for the same slot (a connection's index in its
 * worker). *name: the request's name (a request table's name, volley.name
 * since the last request, the table form of wrk.format), its id + 1, or 0
 * for none; the next request starts unnamed again. Returns 0, or -1 with
 * err ("file:line: in request(): ..."). */
/* Whether the request script_request returned last asked for its response
 * to stream whatever its type (a request table's stream = true). */
bool script_request_streams(struct script *s);

int script_request(struct script *s, unsigned slot, const char **req, size_t *len, uint32_t *name, char *err,
                   size_t errlen);

/* Calls delay() (delay(conn) for a scenario): *ms is how long the slot's
 * next request waits, 0 when the hook returns nil. Returns 0, or -1 with err
 * when the hook fails or returns something other than a number >= 0. */
int script_delay(struct script *s, unsigned slot, double *ms, char *err, size_t errlen);

/* Calls hook h with string arguments (NULL-terminated list of n strings) and
 * returns its first result as a string copied into out (empty if nil).
 * Returns 0, -1 with err ("file:line: in request(): message") if the hook
 * raised an error or returned something other than a string or nil, or 1
 * if the script has no such hook. For tests of the bridge; the run will
 * call hooks through typed entry points. */
int script_call_strings(struct script *s, enum script_hook h, const char *const *args, int n, char *out,
                        size_t outlen, char *err, size_t errlen);

/* The LuaJIT volley runs with, as its jit.version says ("LuaJIT 2.1.0"),
 * into buf (--version). Returns buf. */
char *script_library_version(char *buf, size_t len);

/* The string module.field of an embedded module (the bundled ab script's
 * usage: "volley.ab.args", "USAGE"), in a new state: a malloc'd copy, or
 * NULL with err. */
char *script_module_string(const char *module, const char *field, char *err, size_t errlen);

/* Runs main(args) of the embedded module (a bundled subcommand such as
 * "volley.convert.main") in a new state of its own: args, n strings the
 * caller keeps, as a list. The module writes its own output. Returns
 * main's exit status (0..255), or -1 with err ("module: in main(): ...")
 * when the module does not load, raises an error or returns no status. */
int script_module_main(const char *module, char *const *args, int nargs, char *err, size_t errlen);

/* How long Lua runs at a stretch (script_guard.c). The signal a worker
 * is interrupted with; script_guard_install sets its handler (once, on the
 * main thread, before the workers start), and each worker names its state
 * with script_guard_bind on its own thread. */
#define SCRIPT_GUARD_SIGNAL SIGUSR2
int script_guard_install(void);
void script_guard_bind(struct script *s);

/* The state's call count (any thread): odd while a call into Lua runs; the
 * same odd value seen twice is the same call. Acquire: what the worker
 * wrote before the call is visible after. */
uint64_t script_busy(struct script *s);

/* Whether the call under way is a flow user's resume. */
bool script_in_user(struct script *s);

/* From another thread: the call numbered call, which has run bound_ns
 * (--yield-timeout), is to be stopped; then signal the worker
 * (SCRIPT_GUARD_SIGNAL). A flow user stopped so fails its iteration with
 * "FILE:LINE: user() ran 100ms without yielding"; a call that has returned
 * meanwhile is left alone. */
void script_interrupt(struct script *s, uint64_t call, int64_t bound_ns);

/* From another thread, for a worker whose call numbered call (odd) will
 * not return: the run goes on without it. When that call returns, if ever,
 * its thread stops there for good and touches nothing more. Returns true
 * when the worker is certainly stopped for good (still in that call, or
 * parked); false when it left the call first (script_parked then tells,
 * later, whether it stopped anyway). */
bool script_park(struct script *s, uint64_t call);
bool script_parked(struct script *s);

#endif
