/* The command line, parsed once into an immutable struct options (the units
 * of its values: units.h).
 * Every bad value is reported as one line naming the option and the value. */
#ifndef VOLLEY_OPTIONS_H
#define VOLLEY_OPTIONS_H

#include "arrivals.h"
#include "http.h"
#include "shard.h"
#include "source.h"

struct hosts; /* hosts.h: --allow-host */
#include "stages.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct threshold;
struct targets;

/* One scenario of a script that returns several (docs/scripting.md
 * "Several scenarios"). main.c fills the fields "as given" from the
 * script's entry; options_scenarios fills the rest. */
struct options_scenario {
    char name[65];
    /* as given (0, "": not given) */
    uint32_t users_given, weight, max_users;
    bool open;             /* it gives a rate: k6's constant- or ramping-arrival-rate */
    uint64_t rate_given;
    uint64_t iterations;   /* its own bound; 0: none */
    char start_text[64], duration_text[64];
    char *stages_spec;     /* owned; NULL: none */
    /* the plan */
    struct stages *stages; /* parsed (owned): the rate's curve when open, else the users' */
    uint32_t users;        /* closed: its users (given, its share of -c by weight, or its
                            * stages' peak); open: the users its arrivals run on (max_users) */
    uint64_t rate;         /* open: iterations per second (its stages' peak); 0: closed */
    uint32_t threads;      /* the worker threads it runs on (the same in every shard) */
    int64_t start_ns;      /* from the run's start */
    int64_t length_ns;     /* from its start to its end; 0: until its iterations are done */
};

struct options {
    const char *url;       /* the one positional argument; NULL only with -s
                            * (the script's options() must give it). With
                            * --targets, their origin (owned by targets) */
    uint32_t connections;  /* -c, >= 1 */
    uint32_t threads;      /* -t, 1..connections */
    int64_t duration_ns;   /* -d; 0 when the run is bounded by -n alone */
    uint64_t requests;     /* -n; 0 = bounded by duration */
    uint64_t iterations;   /* --iterations: a flow's iterations over the run; 0 = bounded by duration */
    bool flow;             /* the script defines user(u) (set by main.c once it has loaded) */
    struct options_scenario *scenarios; /* a script's several scenarios (owned; main.c and
                                         * options_scenarios); NULL: one scenario, the command line's */
    size_t nscenarios;
    bool duration_given, connections_given; /* -d, -c given (not their defaults) */
    uint64_t rate;         /* -R: requests per second over all workers (open model); 0 = closed loop.
                            * With --stages: the curve's peak */
    uint64_t max_rps;      /* --max-rps: a flow's requests per second over all its users, threads
                            * and shards at most (a cap, not a schedule); 0 = none */
    const char *stages_spec; /* --stages as given, NULL if none */
    struct stages *stages; /* --stages parsed (owned): the rate's curve with -R, else the
                            * connections' (then -c is its peak); the run lasts its length */
    int64_t spin_ns;       /* --spin: with -R, busy-wait this long before each arrival; 0 = off */
    struct arrivals_spec arrivals; /* --arrivals: -R's arrival process (arrivals.h); fixed by default */
    bool arrivals_given;   /* --arrivals was given (it needs -R) */
    const char *method;    /* -m, default GET (POST with -b or --body-file) */
    const char **headers;  /* -H values, "Name: value", in order */
    size_t nheaders;
    const char **command;  /* the command line as given, argv[0] first (the array owned, its
                            * strings not, but for command_own): the JSON's "command"; NULL:
                            * not known. A proxy URL's credentials are left out */
    size_t ncommand;
    char **command_own;    /* the words of command made here (a --proxy without its
                            * credentials), owned */
    size_t ncommand_own;
    const char *body;      /* -b or --body-file contents (owned), NULL if none */
    size_t body_len;
    int64_t timeout_ns;    /* --timeout, default 10 s */
    int64_t yield_timeout_ns; /* --yield-timeout: a flow's user() that runs this long without
                               * yielding fails its iteration (default 100 ms; 0: never) */
    uint64_t max_body;     /* --max-body, default 8,000,000 bytes */
    bool samples;          /* --samples: keep every request's timings for done() */
    bool heads;            /* --heads: with --samples, keep each response's first read too */
    uint64_t show_errors;  /* --show-errors N: the first N failed or non-2xx responses on stderr; 0 = off */
    bool one_first;        /* --one-first: the other connections open once the first one gets an answer */
    bool no_probe;         /* --no-probe: no start-up connect; refused connects are connect errors */
    uint64_t heartbeat;    /* --heartbeat N: "Completed N requests" on stderr every N; 0 = off */
    bool keepalive;        /* false with --no-keepalive */
    bool http10;           /* --http1.0 */
    const char *json_path; /* --json FILE or "-", NULL if not asked */
    const char *html_path; /* --html FILE, NULL if not asked */
    const char *hlog_path; /* --hlog FILE or "-", NULL if not asked */
    int64_t hlog_interval_ns; /* --hlog-interval, default 1 s */
    const char *script;    /* -s PATH or NAME, NULL if none */
    const char *targets_path; /* --targets FILE, or "-" for stdin; NULL if none */
    enum options_order {
        OPTIONS_ROUND_ROBIN,   /* the file's order, over and over, dealt to the workers in turn */
        OPTIONS_RANDOM,        /* each request's target drawn at random */
    } targets_order;       /* --targets-order */
    struct targets *targets; /* --targets read and encoded once (owned; targets.h); NULL without
                              * it, and in a saved result (volley report) */
    uint32_t ntargets;     /* how many targets: 0 without --targets (a saved result has it too) */
    uint64_t seed;         /* the run seed of the scripts' math.random (seed.h): --seed, else drawn
                            * by main.c; OPTIONS_NO_SEED until then, and in a result saved before
                            * runs had seeds */
    bool seed_given;       /* --seed (or a script's options() seed) */
    struct sources *sources; /* --source parsed (owned; source.h); NULL: the kernel's choice */
    const char *proxy;     /* --proxy URL (NULL: the environment's; "": none at all) */
    const char *noproxy;   /* --noproxy LIST (NULL: no_proxy / NO_PROXY) */
    const char *unix_socket; /* --unix-socket PATH, or NULL */
    const char *source_spec; /* --source as given, NULL if none */
    struct hosts *allow_hosts; /* --allow-host's hosts (owned; hosts.h), resolved by main
                              * before the run; NULL: the target's host alone */
    struct shard shard;    /* --shard I/N; {0, 1} without it (shard.h) */
    bool start_at_given;   /* --start-at */
    double start_at;       /* --start-at: the start, epoch seconds */
    int64_t start_at_mono; /* --start-at: the same instant on CLOCK_MONOTONIC (ns), converted once */
    const char *run_id;    /* --run-id, NULL: the default (shard_default_id), made at the start */
    const char *setup_only; /* --setup-only FILE ("-": stdout): run a flow's setup(u) once, write its
                             * data there as JSON, and stop (a sharded run's once-only setup) */
    const char *setup_data; /* --setup-data FILE: setup's data from FILE; neither setup nor teardown
                             * runs in this process */
    bool teardown_only;    /* --teardown-only: with --setup-data, run teardown(data, u) once, no load */
    bool quiet;            /* -q: no text report (and no progress) */
    enum options_progress {
        OPTIONS_PROGRESS_AUTO,  /* a bar when stderr is a terminal and not -q */
        OPTIONS_PROGRESS_BAR,   /* the bar wherever stderr goes (a terminal that does not
                                 * say it is one) */
        OPTIONS_PROGRESS_LINES, /* a plain line every 10 s (CI logs) */
        OPTIONS_PROGRESS_NONE,
    } progress;            /* --progress */
    bool latency;          /* -L: the text report adds wrk's latency distribution */
    int verbose;           /* -v count */
    /* https:// only (tls.h) */
    int tls_min, tls_max;  /* --tls-min/--tls-max: 10..13 for TLS 1.0..1.3; 0: OpenSSL's default */
    const char *ciphers;   /* --ciphers (TLS 1.2 and below), NULL: default */
    const char *ciphersuites; /* --ciphersuites (TLS 1.3) */
    const char *groups;    /* --groups (key exchange) */
    const char *sni;       /* --sni NAME: sent instead of the URL's host name */
    bool no_sni;           /* --no-sni */
    bool verify;           /* --verify (also implied by --cacert) */
    const char *cacert;    /* --cacert FILE */
    const char *cert, *key; /* --cert, --key: client certificate (mutual TLS) */
    bool tls_resume;       /* --tls-resume on (default) / off */
    enum options_h2 {
        OPTIONS_H1,        /* HTTP/1.x */
        OPTIONS_H2_ALPN,   /* --http2: https, ALPN offers h2 and http/1.1 */
        OPTIONS_H2_STRICT, /* --http2=strict: https, ALPN offers h2 only */
        OPTIONS_H2C,       /* --h2c: http, HTTP/2 with prior knowledge */
    } http2;
    uint32_t streams;      /* --streams: concurrent streams per HTTP/2 connection, default 1 */
    uint32_t h2_window;    /* --h2-window: HTTP/2 receive window, bytes, default 16 MiB */
    struct threshold_expr *threshold_exprs; /* --threshold and --fail-if values as given, with
                                             * their words, in order (owned array) */
    size_t nthresholds;
    struct threshold *thresholds; /* the same parsed (owned; threshold.h), nthresholds of them */
    char **script_args;    /* the script's arguments (owned array of pointers into argv): the
                            * words after the URL, then those after "--" */
    int nscript_args;
    char **typed;          /* argv as typed, before getopt reordered it (owned array of pointers
                            * into argv): for options_hint_url */
    int url_args;          /* how many of script_args came after the URL without "--" (only
                            * with -s; without a script such words are an error) */
};

/* Highest -R: far above what one machine sends, low enough that the
 * schedule's arithmetic stays exact. */
#define OPTIONS_RATE_MAX UINT64_C(100000000)

/* --max-rps without a flow; checked by main.c once it knows the script. */
#define OPTIONS_MAX_RPS_NEEDS_FLOW                                                                                     \
    "--max-rps: caps a flow's requests (a script with user(u)); other runs are paced by -R N (requests/s on a "       \
    "fixed schedule)"

/* --spin's range: a microsecond at least (the clock's and the loop's own
 * granularity), 10 ms at most (a timer wakes far closer than that). */
#define OPTIONS_SPIN_MIN_NS INT64_C(1000)
#define OPTIONS_SPIN_MAX_NS INT64_C(10000000)

/* --spin without -R; checked by options_parse, and by main.c again after a
 * script's options(), which may give the rate. */
#define OPTIONS_SPIN_NEEDS_RATE "--spin: only with -R (it busy-waits for the open model's next arrival)"

/* The checks of --arrivals against the other options: it needs -R, and
 * a random process split over shards needs --seed (each shard would
 * otherwise draw a sequence of its own). Made by options_parse, and by
 * main.c again after a script's options(), which may give -R or --seed.
 * Returns NULL, or the one error line. */
const char *options_check_arrivals(const struct options *o);

/* A multi-scenario script's plan, once main.c has filled o->scenarios'
 * given fields: the command line's part checked (-R, --stages and
 * --iterations belong to the scenarios; -c is split by weights, exactly;
 * -d bounds the whole run), each start, duration and stages parsed, the
 * users, threads and lengths decided, o->connections and o->threads made
 * the run's totals and o->duration_ns its length. Returns 0, or -1 with
 * one line naming the scenario and the field. */
int options_scenarios(struct options *o, char *err, size_t errlen);

/* The scenario called name in o, or NULL. */
const struct options_scenario *options_scenario_find(const struct options *o, const char *name);

/* options.seed before a seed is known. */
#define OPTIONS_NO_SEED UINT64_MAX

enum options_result { OPTIONS_RUN, OPTIONS_EXIT, OPTIONS_VERSION, OPTIONS_ERROR };

/* Parses argv into *o. OPTIONS_RUN: *o is complete. OPTIONS_EXIT: --help (or
 * -h) was printed on stdout, exit 0. OPTIONS_VERSION: --version was given;
 * the caller prints the versions (cmd_help_version), exit 0. OPTIONS_ERROR:
 * err holds one line (no "volley:" prefix, no newline) naming the option
 * and value; exit 2.
 * Strings in *o point into argv or are owned by *o for the process lifetime. */
enum options_result options_parse(struct options *o, int argc, char **argv, char *err, size_t errlen);

/* The request the command line describes (-m, -H, -b or --body-file,
 * --http1.0, --no-keepalive), without what its URL gives (path, Host):
 * the run's request, and the defaults of --targets. Strings point into o. */
struct http_request_spec options_request(const struct options *o);

/* Keeps argv[0..argc) (the command line as given, before any rewriting)
 * as o->command: the array is copied, the strings must outlive o (a
 * --proxy URL's user:password becomes "***", in a copy o owns). Call
 * after the last options_parse, which would clear it. */
void options_set_command(struct options *o, int argc, char **argv);

/* Frees what options_parse allocated. */
void options_free(struct options *o);

/* The usage text printed by --help. */
extern const char options_usage[];

#endif
