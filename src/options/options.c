/* Command-line parsing: argv -> struct options, one word at a time: the
 * getopt table, each option's value parsed and checked as it is read
 * (options_value.c), and the words after the options (the URL, the
 * script's arguments). What depends on several options is checked after,
 * in options_check.c. Values are checked once, so that nothing downstream
 * meets a bad option and nothing is sent when one is wrong. */
#include "options.h"
#include "options_internal.h"

#include "errsample.h"
#include "field.h"
#include "hosts.h"
#include "options_hint.h"
#include "quote.h"
#include "targets.h"
#include "seed.h"
#include "threshold.h"
#include "units.h"
#include "xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_BODY_FILE = 256, OPT_TIMEOUT, OPT_MAX_BODY, OPT_SAMPLES, OPT_HEARTBEAT, OPT_NO_PROBE, OPT_ONE_FIRST, OPT_HEADS, OPT_NO_KEEPALIVE, OPT_HTTP10, OPT_JSON, OPT_HTML, OPT_HLOG, OPT_HLOG_INTERVAL, OPT_VERSION, OPT_HELP,
       OPT_TLS_MIN, OPT_TLS_MAX, OPT_CIPHERS, OPT_CIPHERSUITES, OPT_GROUPS, OPT_SNI, OPT_NO_SNI, OPT_VERIFY, OPT_CACERT,
       OPT_CERT, OPT_KEY, OPT_TLS_RESUME, OPT_HTTP2, OPT_H2C, OPT_STREAMS, OPT_H2_WINDOW, OPT_PROGRESS, OPT_FAIL_IF, OPT_THRESHOLD,
       OPT_SPIN, OPT_MAX_RPS, OPT_TARGETS, OPT_TARGETS_ORDER, OPT_STAGES, OPT_SEED,
       OPT_SOURCE, OPT_SHARD, OPT_START_AT, OPT_RUN_ID, OPT_ITERATIONS, OPT_SHOW_ERRORS,
       OPT_YIELD_TIMEOUT, OPT_ARRIVALS, OPT_SETUP_ONLY, OPT_SETUP_DATA, OPT_TEARDOWN_ONLY, OPT_ALLOW_HOST,
       OPT_PROXY, OPT_NOPROXY, OPT_UNIX_SOCKET };

static const struct option long_options[] = {
    {"connections", required_argument, NULL, 'c'},
    {"threads", required_argument, NULL, 't'},
    {"duration", required_argument, NULL, 'd'},
    {"requests", required_argument, NULL, 'n'},
    {"iterations", required_argument, NULL, OPT_ITERATIONS},
    {"header", required_argument, NULL, 'H'},
    {"script", required_argument, NULL, 's'},
    {"method", required_argument, NULL, 'm'},
    {"body", required_argument, NULL, 'b'},
    {"body-file", required_argument, NULL, OPT_BODY_FILE},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"yield-timeout", required_argument, NULL, OPT_YIELD_TIMEOUT},
    {"latency", no_argument, NULL, 'L'},
    {"max-body", required_argument, NULL, OPT_MAX_BODY},
    {"samples", no_argument, NULL, OPT_SAMPLES},
    {"no-probe", no_argument, NULL, OPT_NO_PROBE},
    {"one-first", no_argument, NULL, OPT_ONE_FIRST},
    {"heads", no_argument, NULL, OPT_HEADS},
    {"show-errors", required_argument, NULL, OPT_SHOW_ERRORS},
    {"heartbeat", required_argument, NULL, OPT_HEARTBEAT},
    {"no-keepalive", no_argument, NULL, OPT_NO_KEEPALIVE},
    {"http1.0", no_argument, NULL, OPT_HTTP10},
    {"json", required_argument, NULL, OPT_JSON},
    {"html", required_argument, NULL, OPT_HTML},
    {"rate", required_argument, NULL, 'R'},
    {"spin", required_argument, NULL, OPT_SPIN},
    {"max-rps", required_argument, NULL, OPT_MAX_RPS},
    {"stages", required_argument, NULL, OPT_STAGES},
    {"arrivals", required_argument, NULL, OPT_ARRIVALS},
    {"hlog", required_argument, NULL, OPT_HLOG},
    {"hlog-interval", required_argument, NULL, OPT_HLOG_INTERVAL},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"version", no_argument, NULL, OPT_VERSION},
    {"help", no_argument, NULL, OPT_HELP},
    {"tls-min", required_argument, NULL, OPT_TLS_MIN},
    {"tls-max", required_argument, NULL, OPT_TLS_MAX},
    {"ciphers", required_argument, NULL, OPT_CIPHERS},
    {"ciphersuites", required_argument, NULL, OPT_CIPHERSUITES},
    {"groups", required_argument, NULL, OPT_GROUPS},
    {"sni", required_argument, NULL, OPT_SNI},
    {"no-sni", no_argument, NULL, OPT_NO_SNI},
    {"verify", no_argument, NULL, OPT_VERIFY},
    {"cacert", required_argument, NULL, OPT_CACERT},
    {"cert", required_argument, NULL, OPT_CERT},
    {"key", required_argument, NULL, OPT_KEY},
    {"tls-resume", required_argument, NULL, OPT_TLS_RESUME},
    {"http2", optional_argument, NULL, OPT_HTTP2},
    {"h2c", no_argument, NULL, OPT_H2C},
    {"streams", required_argument, NULL, OPT_STREAMS},
    {"h2-window", required_argument, NULL, OPT_H2_WINDOW},
    {"progress", required_argument, NULL, OPT_PROGRESS},
    {"fail-if", required_argument, NULL, OPT_FAIL_IF},
    {"threshold", required_argument, NULL, OPT_THRESHOLD},
    {"targets", required_argument, NULL, OPT_TARGETS},
    {"targets-order", required_argument, NULL, OPT_TARGETS_ORDER},
    {"seed", required_argument, NULL, OPT_SEED},
    {"source", required_argument, NULL, OPT_SOURCE},
    {"allow-host", required_argument, NULL, OPT_ALLOW_HOST},
    {"proxy", required_argument, NULL, OPT_PROXY},
    {"noproxy", required_argument, NULL, OPT_NOPROXY},
    {"unix-socket", required_argument, NULL, OPT_UNIX_SOCKET},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"start-at", required_argument, NULL, OPT_START_AT},
    {"run-id", required_argument, NULL, OPT_RUN_ID},
    {"setup-only", required_argument, NULL, OPT_SETUP_ONLY},
    {"setup-data", required_argument, NULL, OPT_SETUP_DATA},
    {"teardown-only", no_argument, NULL, OPT_TEARDOWN_ONLY},
    {NULL, 0, NULL, 0},
};

/* The option getopt stopped at: "-x" inside a cluster such as "-qx", else
 * the long option's name without any "=value". */
static const char *bad_option_name(const char *arg)
{
    static char name[64];
    if (arg[0] == '-' && arg[1] == '-') {
        snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
        return name;
    }
    if (optopt > 0 && optopt < 128) {
        snprintf(name, sizeof name, "-%c", optopt);
        return name;
    }
    return arg;
}

/* err for an unknown, ambiguous or misused long option (options_hint.h). */
static void hint_long(const char *arg, char *err, size_t errlen)
{
    const char *names[sizeof long_options / sizeof long_options[0]];
    size_t n = 0;
    for (const struct option *lo = long_options; lo->name; lo++)
        names[n++] = lo->name;
    options_hint_long(arg, names, n, err, errlen);
}

/* The script's arguments, as in wrk: the words after the URL (getopt has
 * moved the options among them to the front: argv[first..nargs)), then
 * those after "--" (argv[nargs + 1..argc)). */
static void script_args_after_url(struct options *o, int argc, char **argv, int first, int nargs)
{
    if (first > nargs)
        first = nargs;
    int after_dash = nargs < argc ? argc - nargs - 1 : 0;
    o->url_args = nargs - first;
    o->nscript_args = o->url_args + after_dash;
    o->script_args = xcalloc((size_t)o->nscript_args + 1, sizeof *o->script_args);
    for (int i = 0; i < o->url_args; i++)
        o->script_args[i] = argv[first + i];
    for (int i = 0; i < after_dash; i++)
        o->script_args[o->url_args + i] = argv[nargs + 1 + i];
}

enum options_result options_parse(struct options *o, int argc, char **argv, char *err, size_t errlen)
{
    options_defaults(o);
    /* Arguments after "--" belong to the script; getopt must not permute them. */
    int nargs = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            nargs = i;
            break;
        }
    }
    uint64_t n;
    bool threads_set = false, duration_set = false, body_set = false, order_set = false, rate_set = false,
         connections_set = false, method_set = false;
    const char *body_file = NULL;
    o->headers = xcalloc((size_t)argc, sizeof *o->headers);
    o->threshold_exprs = xcalloc((size_t)argc, sizeof *o->threshold_exprs);

    /* argv as typed: getopt moves the options in front of the others. */
    char **typed = o->typed = xcalloc((size_t)argc + 1, sizeof *typed);
    memcpy(typed, argv, (size_t)argc * sizeof *typed);
    opterr = 0;
    optind = 0; /* 0, not 1: glibc then also forgets a half-read option cluster */
    int ch;
    while ((ch = getopt_long(nargs, argv, ":c:t:d:n:R:H:m:b:s:T:Lqvh", long_options, NULL)) != -1) {
        switch (ch) {
        case 'c':
            if (options_parse_bounded("-c", optarg, 1, 1000000, &n, err, errlen) < 0)
                return OPTIONS_ERROR;
            o->connections = (uint32_t)n;
            connections_set = true;
            break;
        case 't':
            if (options_parse_bounded("-t", optarg, 1, 1024, &n, err, errlen) < 0)
                return OPTIONS_ERROR;
            o->threads = (uint32_t)n;
            threads_set = true;
            break;
        case 'd':
            if (units_parse_duration(optarg, &o->duration_ns) < 0)
                return options_fail(err, errlen, "%s: \"%s\" is not a duration (e.g. 500ms, 10s, 2m, 1h)", "-d", optarg),
                       OPTIONS_ERROR;
            duration_set = true;
            break;
        case 'n':
            if (options_parse_bounded("-n", optarg, 1, UINT64_C(1) << 62, &o->requests, err, errlen) < 0)
                return OPTIONS_ERROR;
            break;
        case OPT_ITERATIONS:
            if (options_parse_bounded("--iterations", optarg, 1, UINT64_C(1) << 62, &o->iterations, err, errlen) < 0)
                return OPTIONS_ERROR;
            break;
        case 'R':
            /* 0 only with --stages: a rate that ramps up from nothing */
            if (options_parse_bounded("-R", optarg, 0, OPTIONS_RATE_MAX, &o->rate, err, errlen) < 0)
                return OPTIONS_ERROR;
            rate_set = true;
            break;
        case OPT_STAGES:
            o->stages_spec = optarg;
            break;
        case OPT_ARRIVALS:
            if (arrivals_parse(optarg, &o->arrivals, err, errlen) < 0)
                return OPTIONS_ERROR;
            o->arrivals_given = true;
            break;
        case OPT_MAX_RPS:
            if (options_parse_bounded("--max-rps", optarg, 1, OPTIONS_RATE_MAX, &o->max_rps, err, errlen) < 0)
                return OPTIONS_ERROR;
            break;
        case OPT_SPIN:
            if (units_parse_duration(optarg, &o->spin_ns) < 0)
                return options_fail(err, errlen, "%s: \"%s\" is not a duration (e.g. 50us, 200us)", "--spin", optarg),
                       OPTIONS_ERROR;
            if (o->spin_ns < OPTIONS_SPIN_MIN_NS || o->spin_ns > OPTIONS_SPIN_MAX_NS)
                return options_fail(err, errlen, "%s: \"%s\" is out of range (1us..10ms)", "--spin", optarg), OPTIONS_ERROR;
            break;
        case 's':
            if (!*optarg)
                return options_fail(err, errlen, "%s: \"%s\" is not a script", "-s", optarg), OPTIONS_ERROR;
            o->script = optarg;
            break;
        case 'H': {
            const char *why = field_check_header(optarg);
            if (why) {
                char q[256];
                snprintf(err, errlen, "-H: \"%s\" %s", quote_printable(q, sizeof q, optarg), why);
                return OPTIONS_ERROR;
            }
            o->headers[o->nheaders++] = optarg;
            break;
        }
        case 'm':
            if (!field_is_token(optarg, strlen(optarg)))
                return options_fail(err, errlen, "%s: \"%s\" is not a method name", "-m", optarg), OPTIONS_ERROR;
            o->method = optarg;
            method_set = true;
            break;
        case 'b':
            if (body_set)
                return options_fail(err, errlen, "%s: %s", "-b", body_file ? "cannot be combined with --body-file" : "given twice"),
                       OPTIONS_ERROR;
            if (options_hint_body(optarg, err, errlen) < 0)
                return OPTIONS_ERROR;
            o->body = xstrdup(optarg);
            o->body_len = strlen(optarg);
            body_set = true;
            break;
        case OPT_BODY_FILE:
            if (body_set)
                return options_fail(err, errlen, "%s: %s", "--body-file", body_file ? "given twice" : "cannot be combined with -b"),
                       OPTIONS_ERROR;
            body_file = optarg;
            body_set = true;
            break;
        case 'T': /* wrk's name for --timeout */
        case OPT_TIMEOUT:
            if (units_parse_duration(optarg, &o->timeout_ns) < 0)
                return options_fail(err, errlen, "%s: \"%s\" is not a duration (e.g. 500ms, 10s, 2m, 1h)",
                                    ch == 'T' ? "-T" : "--timeout", optarg),
                       OPTIONS_ERROR;
            break;
        case OPT_YIELD_TIMEOUT:
            if (strcmp(optarg, "0") == 0)
                o->yield_timeout_ns = 0;
            else if (units_parse_duration(optarg, &o->yield_timeout_ns) < 0)
                return options_fail(err, errlen, "%s: \"%s\" is not a duration (e.g. 100ms, 2s; 0 for no limit)",
                                    "--yield-timeout", optarg),
                       OPTIONS_ERROR;
            break;
        case 'L':
            o->latency = true;
            break;
        case OPT_MAX_BODY:
            if (options_parse_bounded("--max-body", optarg, 1, UINT64_C(1) << 40, &o->max_body, err, errlen) < 0)
                return OPTIONS_ERROR;
            break;
        case OPT_SAMPLES:
            o->samples = true;
            break;
        case OPT_SHOW_ERRORS:
            if (options_parse_bounded("--show-errors", optarg, 1, ERRSAMPLE_MAX, &o->show_errors, err, errlen) < 0)
                return OPTIONS_ERROR;
            break;
        case OPT_HEADS:
            o->heads = true;
            o->samples = true;
            break;
        case OPT_ONE_FIRST:
            o->one_first = true;
            break;
        case OPT_NO_PROBE:
            o->no_probe = true;
            break;
        case OPT_HEARTBEAT:
            if (options_parse_bounded("--heartbeat", optarg, 1, UINT64_C(1) << 62, &o->heartbeat, err, errlen) < 0)
                return OPTIONS_ERROR;
            break;
        case OPT_NO_KEEPALIVE:
            o->keepalive = false;
            break;
        case OPT_HTTP10:
            o->http10 = true;
            break;
        case OPT_JSON:
            o->json_path = optarg;
            break;
        case OPT_HTML:
            if (!*optarg || strcmp(optarg, "-") == 0)
                return options_fail(err, errlen, "%s: \"%s\" is not a file name", "--html", optarg), OPTIONS_ERROR;
            o->html_path = optarg;
            break;
        case OPT_HLOG:
            if (!*optarg)
                return options_fail(err, errlen, "%s: \"%s\" is not a file name", "--hlog", optarg), OPTIONS_ERROR;
            o->hlog_path = optarg;
            break;
        case OPT_HLOG_INTERVAL:
            if (units_parse_duration(optarg, &o->hlog_interval_ns) < 0 || o->hlog_interval_ns < 1000000)
                return options_fail(err, errlen, "%s: \"%s\" is not a duration of at least 1ms (e.g. 1s, 500ms)",
                                    "--hlog-interval", optarg),
                       OPTIONS_ERROR;
            break;
        case 'q':
            o->quiet = true;
            break;
        case 'v':
            o->verbose++;
            break;
        case OPT_VERSION:
            return OPTIONS_VERSION;
        case 'h':
        case OPT_HELP:
            fputs(options_usage, stdout);
            return OPTIONS_EXIT;
        case OPT_TLS_MIN:
        case OPT_TLS_MAX:
            if (options_parse_tls_version(ch == OPT_TLS_MIN ? "--tls-min" : "--tls-max", optarg,
                                          ch == OPT_TLS_MIN ? &o->tls_min : &o->tls_max, err, errlen) < 0)
                return OPTIONS_ERROR;
            break;
        case OPT_CIPHERS:
            o->ciphers = optarg;
            break;
        case OPT_CIPHERSUITES:
            o->ciphersuites = optarg;
            break;
        case OPT_GROUPS:
            o->groups = optarg;
            break;
        case OPT_SNI:
            if (!*optarg || strpbrk(optarg, " \t\r\n"))
                return options_fail(err, errlen, "%s: \"%s\" is not a server name", "--sni", optarg), OPTIONS_ERROR;
            o->sni = optarg;
            o->no_sni = false;
            break;
        case OPT_NO_SNI:
            o->no_sni = true;
            o->sni = NULL;
            break;
        case OPT_VERIFY:
            o->verify = true;
            break;
        case OPT_CACERT:
            o->cacert = optarg;
            break;
        case OPT_CERT:
            o->cert = optarg;
            break;
        case OPT_KEY:
            o->key = optarg;
            break;
        case OPT_HTTP2:
            if (optarg && strcmp(optarg, "strict") != 0)
                return options_fail(err, errlen, "%s: \"%s\" is not strict (--http2 or --http2=strict)", "--http2", optarg),
                       OPTIONS_ERROR;
            o->http2 = optarg ? OPTIONS_H2_STRICT : OPTIONS_H2_ALPN;
            break;
        case OPT_H2C:
            o->http2 = OPTIONS_H2C;
            break;
        case OPT_STREAMS:
            if (options_parse_bounded("--streams", optarg, 1, 1000, &n, err, errlen) < 0)
                return OPTIONS_ERROR;
            o->streams = (uint32_t)n;
            break;
        case OPT_H2_WINDOW:
            if (options_parse_bounded("--h2-window", optarg, 65535, INT32_MAX, &n, err, errlen) < 0)
                return OPTIONS_ERROR;
            o->h2_window = (uint32_t)n;
            break;
        case OPT_PROGRESS: {
            static const char *const modes[] = {"auto", "bar", "lines", "none"};
            size_t m = 0;
            while (m < 4 && strcmp(optarg, modes[m]) != 0)
                m++;
            if (m == 4)
                return options_fail(err, errlen, "%s: \"%s\" is not auto, bar, lines or none", "--progress", optarg),
                       OPTIONS_ERROR;
            o->progress = (enum options_progress)m;
            break;
        }
        case OPT_THRESHOLD: /* parsed below, once -R is known */
        case OPT_FAIL_IF:
            o->threshold_exprs[o->nthresholds++] =
                (struct threshold_expr){optarg, ch == OPT_FAIL_IF ? THRESHOLD_FAIL_IF : THRESHOLD_MUST_HOLD};
            break;
        case OPT_TARGETS:
            if (!*optarg)
                return options_fail(err, errlen, "%s: \"%s\" is not a file name (- reads stdin)", "--targets", optarg),
                       OPTIONS_ERROR;
            o->targets_path = optarg;
            break;
        case OPT_TARGETS_ORDER:
            if (strcmp(optarg, "round-robin") != 0 && strcmp(optarg, "random") != 0)
                return options_fail(err, errlen, "%s: \"%s\" is not round-robin or random", "--targets-order", optarg),
                       OPTIONS_ERROR;
            o->targets_order = strcmp(optarg, "random") == 0 ? OPTIONS_RANDOM : OPTIONS_ROUND_ROBIN;
            order_set = true;
            break;
        case OPT_SEED:
            if (options_parse_bounded("--seed", optarg, 0, SEED_MAX, &o->seed, err, errlen) < 0)
                return OPTIONS_ERROR;
            o->seed_given = true;
            break;
        case OPT_SOURCE:
            if (o->sources)
                return options_fail(err, errlen, "%s: given twice (list every address in one: A,B or A-B)%s", "--source", ""),
                       OPTIONS_ERROR;
            o->sources = xmalloc(sizeof *o->sources);
            if (sources_parse(optarg, o->sources, err, errlen) < 0) {
                free(o->sources);
                o->sources = NULL;
                return OPTIONS_ERROR;
            }
            o->source_spec = optarg;
            break;
        case OPT_ALLOW_HOST: /* repeatable: each word adds its hosts */
            if (!o->allow_hosts)
                o->allow_hosts = xcalloc(1, sizeof *o->allow_hosts);
            if (hosts_parse(o->allow_hosts, optarg, err, errlen) < 0)
                return OPTIONS_ERROR;
            break;
        case OPT_PROXY:
            o->proxy = optarg; /* "" is curl's: no proxy, whatever the environment says */
            break;
        case OPT_NOPROXY:
            o->noproxy = optarg;
            break;
        case OPT_UNIX_SOCKET:
            if (!*optarg)
                return options_fail(err, errlen, "%s: \"%s\" is not a path", "--unix-socket", optarg), OPTIONS_ERROR;
            o->unix_socket = optarg;
            break;
        case OPT_SHARD:
            if (shard_parse(optarg, &o->shard, err, errlen) < 0)
                return OPTIONS_ERROR;
            break;
        case OPT_START_AT:
            if (options_parse_start_at(o, optarg, err, errlen) < 0)
                return OPTIONS_ERROR;
            break;
        case OPT_RUN_ID:
            if (!shard_id_valid(optarg))
                return options_fail(err, errlen, "%s: \"%s\" is not a run id (1 to 64 letters, digits, '.', '_' or '-')",
                                    "--run-id", optarg),
                       OPTIONS_ERROR;
            o->run_id = optarg;
            break;
        case OPT_SETUP_ONLY:
            o->setup_only = optarg;
            break;
        case OPT_SETUP_DATA:
            o->setup_data = optarg;
            break;
        case OPT_TEARDOWN_ONLY:
            o->teardown_only = true;
            break;
        case OPT_TLS_RESUME:
            if (strcmp(optarg, "on") != 0 && strcmp(optarg, "off") != 0)
                return options_fail(err, errlen, "%s: \"%s\" is not on or off", "--tls-resume", optarg), OPTIONS_ERROR;
            o->tls_resume = strcmp(optarg, "on") == 0;
            break;
        case ':':
            return options_fail(err, errlen, "%s: needs a value%s", bad_option_name(argv[optind - 1]), ""), OPTIONS_ERROR;
        default:
            if (strncmp(argv[optind - 1], "--", 2) == 0) {
                hint_long(argv[optind - 1], err, errlen);
                return OPTIONS_ERROR;
            }
            return options_fail(err, errlen, "%s: unknown option%s", bad_option_name(argv[optind - 1]), ""), OPTIONS_ERROR;
        }
    }
    /* A command after other words, or a misspelt one, is not a URL. */
    if (optind < nargs && !o->script && !o->targets_path) {
        int at = 1;
        while (at < argc && typed[at] != argv[optind])
            at++;
        if (options_hint_url(argv[optind], typed + 1, at - 1, err, errlen) < 0)
            return OPTIONS_ERROR;
    }
    /* A script's options() may give the URL (main.c checks after it);
     * --targets gives their origin. */
    if (optind >= nargs && !o->script && !o->targets_path)
        return options_fail(err, errlen, "%s%s", "missing URL (volley --help shows the usage)", ""), OPTIONS_ERROR;
    if (optind + 1 < nargs && !o->script) {
        char q[256];
        snprintf(err, errlen, "%s: unexpected argument after the URL (only a script takes arguments)",
                 quote_printable(q, sizeof q, argv[optind + 1]));
        return OPTIONS_ERROR;
    }
    o->url = optind < nargs ? argv[optind] : NULL;
    script_args_after_url(o, argc, argv, optind + 1, nargs);
    struct options_given given = {
        .threads_set = threads_set,
        .duration_set = duration_set,
        .body_set = body_set,
        .order_set = order_set,
        .rate_set = rate_set,
        .connections_set = connections_set,
        .method_set = method_set,
        .body_file = body_file,
    };
    return options_check(o, given, err, errlen);
}
