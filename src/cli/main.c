/* volley's entry point: options, script, target, run, report, exit status.
 * Exit status (docs/usage.md#exit-statuses): 0 after a run (failed requests
 * included), 1 when the target cannot be reached, the run cannot start, a
 * result file cannot be written, a script fails, no response completed or
 * a flow's every iteration failed, 2 for a bad command line (a bad
 * --threshold or --fail-if included, and a script's own: an unknown key in
 * its scenario table or its options()), 3 when -R's target rate was not
 * reached, 99 when a threshold failed (a --threshold that does not hold, a
 * --fail-if that does), 105 when a SIGINT or SIGTERM stopped the run (the
 * report is of a part), 130 on a second one. After a run the most serious
 * applies: 1, 105, 3, then 99. `volley report` (cmd_report.c) has the
 * run's; `volley compare` (cmd_compare.c) 0, 1, 2 or 99; `volley help`
 * (cmd_help.c) 0 or 2; `volley convert` (cmd_convert.c) 0, 1 or 2. */
#include "cmd_compare.h"
#include "cmd_convert.h"
#include "cmd_help.h"
#include "cmd_llm.h"
#include "cmd_merge.h"
#include "cmd_report.h"
#include "h2c_probe.h"
#include "net.h"
#include "hosts.h"
#include "options.h"
#include "options_hint.h"
#include "outfile.h"
#include "proxy.h"
#include "report.h"
#include "run.h"
#include "run_setup.h"
#include "script.h"
#include "seed.h"
#include "target.h"
#include "targets.h"
#include "threshold.h"
#include "tls.h"
#include "xalloc.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int die(int status, const char *msg)
{
    report_error(stderr, msg);
    return status;
}

/* What a result file is made from. */
struct result {
    const struct options *o;
    const struct target *t;
    const struct run_result *r;
};

static int write_json(FILE *f, const struct result *res, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    report_json(f, res->o, res->t, res->r);
    return 0;
}

/* The HTML report is rendered from the JSON text --json writes, parsed
 * back: a live report and `volley report` of a saved one are the same. */
static int write_html(FILE *f, const struct result *res, char *err, size_t errlen)
{
    char why[400];
    int rc = report_html(f, res->o, res->t, res->r, why, sizeof why);
    if (rc < 0)
        snprintf(err, errlen, "--html: %s", why);
    return rc;
}

/* The report's header, once the scripts' setup() and init() have printed
 * what they print (wrk's order). */
static void print_header(void *arg)
{
    const struct result *res = arg;
    report_header(stdout, res->o, res->t, res->r);
    fflush(stdout);
}

/* Writes one result file with write(f, ...), whole or not at all, once the
 * run has a result (never before: a run that does not start leaves the
 * path as it was). Returns 0, or 1 when it could not be written (said). */
static int write_result(const char *opt, const char *path,
                        int (*write)(FILE *f, const struct result *res, char *err, size_t errlen),
                        const struct result *arg)
{
    char err[512];
    struct outfile of;
    FILE *f = outfile_open(&of, opt, path, err, sizeof err);
    if (!f)
        return die(1, err);
    if (write(f, arg, err, sizeof err) < 0) {
        outfile_abandon(&of);
        return die(1, err);
    }
    return outfile_commit(&of, err, sizeof err) < 0 ? die(1, err) : 0;
}

/* The --hlog log the run wrote as it went: renamed into place, or removed
 * if it could not be written whole. Returns 0, or 1 (said). */
static int end_hlog(struct outfile *of, const struct run_result *r)
{
    char err[512];
    if (r->hlog_error[0]) {
        outfile_abandon(of);
        return die(1, r->hlog_error);
    }
    return outfile_commit(of, err, sizeof err) < 0 ? die(1, err) : 0;
}

/* HTTP/2 options against the URL and the script. Returns 0 or 2 with err. */
static int check_http2(const struct options *o, const struct target *t, struct script *ms, char *err, size_t errlen)
{
    const char *why = NULL;
    if ((o->http2 == OPTIONS_H2_ALPN || o->http2 == OPTIONS_H2_STRICT) && !t->tls)
        why = "--http2: needs an https:// URL (HTTP/2 over http:// is --h2c)";
    else if (o->http2 == OPTIONS_H2C && t->tls)
        why = "--h2c: is HTTP/2 over http:// (for https:// URLs use --http2)";
    else if (o->streams > 1 && o->http2 == OPTIONS_H1)
        why = "--streams: needs --http2 or --h2c (HTTP/1 has one request at a time on a connection)";
    else if (o->http2 != OPTIONS_H1 && ms && script_has(ms, SCRIPT_DELAY))
        why = "--http2/--h2c: cannot be combined with the script's delay() hook (streams share a connection)";
    else if (o->http2 != OPTIONS_H1 && (o->samples || o->one_first))
        why = "--http2/--h2c: --samples, --heads and --one-first are HTTP/1 only (volley ab)";
    if (!why)
        return 0;
    snprintf(err, errlen, "%s", why);
    return 2;
}

/* --source against the target, before the probe (which connects from the
 * first source): the target's addresses narrowed to the sources' family
 * (a name with none of it is refused), and each source an address of this
 * machine (a bind that fails now would fail every connect). Returns 0 or 2
 * with err. */
static int check_sources(const struct options *o, struct target *t, char *err, size_t errlen)
{
    socklen_t len;
    const struct sockaddr *sa = target_sockaddr(t, &len);
    char a[80], b[80];
    if (target_keep_family(t, o->sources->family) == 0) {
        snprintf(err, errlen, "--source: %s is %s but the target's address %s is %s",
                 net_addr_string(sources_pick(o->sources, 0), a, sizeof a), o->sources->family == AF_INET ? "IPv4" : "IPv6",
                 net_addr_string(sa, b, sizeof b), sa->sa_family == AF_INET ? "IPv4" : "IPv6");
        return 2;
    }
    for (uint32_t i = 0; i < o->sources->n; i++) {
        const struct sockaddr *src = sources_pick(o->sources, i);
        int e = net_bind_check(src, o->sources->len);
        if (e) {
            snprintf(err, errlen, "--source: cannot bind to %s: %s", net_addr_string(src, a, sizeof a), strerror(e));
            return 2;
        }
    }
    return 0;
}

/* https: the TLS options make main's context (a bad cipher list, version
 * or certificate is a bad option, exit 2); the probe uses it. NULL with
 * err. */
static struct tls_ctx *check_tls(const struct options *o, const struct target *t, char *err, size_t errlen)
{
    struct tls_config cfg;
    run_tls_config(o, t, &cfg);
    return tls_ctx_new(&cfg, err, errlen);
}

/* https: the start-up probe shakes hands with the chosen address, so a
 * TLS-level refusal stops the run at once with its reason; what it agreed
 * on goes into the header and the JSON. */
static int probe_tls(struct tls_ctx *ctx, const struct options *o, const struct target *t, struct run_result *r,
                     char *err, size_t errlen)
{
    socklen_t len;
    const struct sockaddr *sa = target_sockaddr(t, &len);
    socklen_t srclen;
    const struct sockaddr *src = sources_for(o->sources, 0, &srclen);
    int rc = tls_probe(ctx, sa, len, src, srclen, o->timeout_ns, &r->tls, err, errlen);
    r->tls_known = rc == 0;
    return rc;
}

/* --h2c: the start-up probe sends the preface to the chosen address, so a
 * server that speaks only HTTP/1.1 stops the run at once (as a TLS refusal
 * does) instead of failing every request. */
static int probe_h2c(const struct options *o, const struct target *t, char *err, size_t errlen)
{
    socklen_t len, srclen;
    const struct sockaddr *sa = target_sockaddr(t, &len);
    const struct sockaddr *src = sources_for(o->sources, 0, &srclen);
    return h2c_probe(sa, len, src, srclen, o->timeout_ns, err, errlen);
}

/* proxy_select's view of the environment. */
static const char *env_lookup(const char *name)
{
    return getenv(name);
}

/* The proxy the run goes through (proxy.h: --proxy, or the environment as
 * curl reads it), into *px, or none. Returns 0, or 2 with err: a bad
 * proxy URL, or what cannot go through one. */
static int choose_proxy(const struct options *o, const struct target *t, struct proxy **px, char *err, size_t errlen)
{
    if (proxy_select(o->proxy, o->noproxy, t, env_lookup, px, err, errlen) < 0)
        return 2;
    const char *why = NULL;
    if (*px && o->http2 == OPTIONS_H2C)
        why = "HTTP/2 over http:// (--h2c) does not go through a proxy (give --proxy '' or --noproxy HOST)";
    if (!why)
        return 0;
    snprintf(err, errlen, "%s %s (%s): %s", "proxy", (*px)->shown, (*px)->from, why);
    return 2;
}

/* The proxy could not be reached at start: exit 1 with err, naming it. */
static int proxy_die(const struct proxy *px, const char *err)
{
    char line[700];
    snprintf(line, sizeof line, "proxy %s (%s): %s", px->shown, px->from, err);
    return die(1, line);
}

/* What a script's options() changed: the command line again, with its
 * words after the user's options (so they win) and before the script
 * arguments (all of them after "--" now, also those given after the URL);
 * its URL, if it gave one, replaces the user's. */
struct reparse {
    char **argv;
    char **words;
    int nwords;
};

static void reparse_free(struct reparse *rp)
{
    for (int i = 0; i < rp->nwords; i++)
        free(rp->words[i]);
    free(rp->words);
    free(rp->argv);
}

/* Whether a is one of the script arguments given after the URL without
 * "--" (the same pointer into argv). */
static bool is_url_arg(const struct options *o, const char *a)
{
    for (int i = 0; i < o->url_args; i++)
        if (o->script_args[i] == a)
            return true;
    return false;
}

/* The script's main state: loaded with the command line's wrk table and
 * run seed, its options() applied to o, the wrk table refreshed and
 * math.random seeded again from the final run seed (options() may give
 * one). Returns 0, or the exit status with err: 1 for a script that fails,
 * 2 for one that is wrong before it runs (an unknown key, a bad value). */
static int load_main_script(struct options *o, struct target *t, int argc, char **argv, struct script **ms,
                            struct reparse *rp, char *err, size_t errlen)
{
    if (target_parse(t, o->url ? o->url : "http://localhost/", err, errlen) < 0)
        return 2;
    int rc = run_load_script(o, t, 0, ms, err, errlen);
    if (rc < 0)
        return rc == -2 ? 2 : 1;
    bool has_url;
    uint64_t seed = o->seed;
    rc = script_options(*ms, o->script_args, o->nscript_args, &rp->words, &rp->nwords, &has_url, err, errlen);
    if (rc < 0)
        return rc == -2 ? 2 : 1;
    if (rp->nwords > 0) {
        int n = 0, nscript = o->nscript_args;
        char *const *script_args = o->script_args;
        rp->argv = xcalloc((size_t)(argc + rp->nwords + 2), sizeof *rp->argv);
        for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
            if (!(has_url && argv[i] == o->url) && !is_url_arg(o, argv[i]))
                rp->argv[n++] = argv[i];
        for (int i = 0; i < rp->nwords; i++)
            rp->argv[n++] = rp->words[i];
        rp->argv[n++] = "--";
        for (int i = 0; i < nscript; i++)
            rp->argv[n++] = script_args[i];
        options_free(o);
        char perr[400];
        if (options_parse(o, n, rp->argv, perr, sizeof perr) != OPTIONS_RUN) {
            snprintf(err, errlen, "%s: options(): %s", o->script ? o->script : "script", perr);
            return 2;
        }
    }
    if (!o->seed_given)
        o->seed = seed; /* drawn once, before the script loaded */
    if (!o->url) {
        snprintf(err, errlen, "missing URL (give one, or return url from the script's options())");
        return 2;
    }
    target_free(t);
    memset(t, 0, sizeof *t);
    if (target_parse(t, o->url, err, errlen) < 0)
        return 2;
    if (run_set_wrk(*ms, o, t, err, errlen) < 0 || script_seed(*ms, seed_state(o->seed, 0), err, errlen) < 0)
        return 1;
    return 0;
}

/* A script with several scenarios: each entry's load into o->scenarios,
 * planned with the command line (options_scenarios), and the thresholds'
 * {scenario="..."} labels checked against their names. Returns 0, or -1
 * with err. */
static int plan_scenarios(struct options *o, struct script *ms, char *err, size_t errlen)
{
    unsigned n = script_scenario_count(ms);
    o->scenarios = xcalloc(n, sizeof *o->scenarios);
    o->nscenarios = n;
    for (unsigned i = 0; i < n; i++) {
        struct script_scenario in;
        struct options_scenario *sc = &o->scenarios[i];
        script_scenario_get(ms, i, &in);
        snprintf(sc->name, sizeof sc->name, "%s", in.name);
        sc->users_given = in.users;
        sc->weight = in.weight;
        sc->max_users = in.max_users;
        sc->open = in.open;
        sc->rate_given = in.rate;
        sc->iterations = in.iterations;
        snprintf(sc->start_text, sizeof sc->start_text, "%s", in.start);
        snprintf(sc->duration_text, sizeof sc->duration_text, "%s", in.duration);
        sc->stages_spec = in.stages[0] ? xstrdup(in.stages) : NULL;
    }
    char why[400];
    if (options_scenarios(o, why, sizeof why) < 0) {
        snprintf(err, errlen, "%s: %s", o->script, why);
        return -1;
    }
    return 0;
}

/* Every {scenario="NAME"} of a threshold names a scenario of the script.
 * Returns 0, or -1 with err. */
static int check_scenario_labels(const struct options *o, char *err, size_t errlen)
{
    for (size_t i = 0; i < o->nthresholds; i++) {
        const struct threshold *th = &o->thresholds[i];
        if (th->scenario && th->abort)
            return snprintf(err, errlen, "%s \"%s\": abort: a scenario's figures are judged at the run's end "
                            "(the live totals are the whole run's)", threshold_word_option(th->word), th->expr), -1;
        if (!th->scenario || options_scenario_find(o, th->scenario))
            continue;
        if (!o->nscenarios)
            return snprintf(err, errlen, "%s \"%s\": {scenario=\"%s\"}: the script has no scenarios list (a "
                            "scenario's figures are a run of several's)", threshold_word_option(th->word), th->expr,
                            th->scenario), -1;
        char names[400] = "";
        for (size_t k = 0; k < o->nscenarios; k++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
                     o->scenarios[k].name);
        return snprintf(err, errlen, "%s \"%s\": no scenario \"%s\" (the script's are %s)", threshold_word_option(th->word),
                        th->expr, th->scenario, names), -1;
    }
    return 0;
}

/* `volley ab ARGS` and an installed `volley-ab ARGS` run the bundled
 * ApacheBench script: the same as `volley -s ab -- ARGS`. Returns the
 * command line to parse (argv itself, or a new one the caller frees). */
static char **ab_command(int *argc, char **argv)
{
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    int skip = strcmp(base, "volley-ab") == 0 ? 1 : *argc > 1 && strcmp(argv[1], "ab") == 0 ? 2 : 0;
    if (!skip)
        return argv;
    char **v = xcalloc((size_t)*argc + 4, sizeof *v);
    int n = 0;
    v[n++] = argv[0];
    v[n++] = "-s";
    v[n++] = "ab";
    v[n++] = "--";
    for (int i = skip; i < *argc; i++)
        v[n++] = argv[i];
    *argc = n;
    return v;
}

int main(int argc, char **argv)
{
    /* stderr is unbuffered; stdout into a pipe or a file would be held in
     * blocks, and `volley ... 2>&1 | tee log` would show a threshold's
     * stderr line above the report it follows. Line by line (as on a
     * terminal), what volley, and a script's print() and io.stderr, write
     * comes out in the order written, whatever the subcommand. */
    setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
    if (argc > 1 && strcmp(argv[1], "report") == 0)
        return cmd_report(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return cmd_merge(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "compare") == 0)
        return cmd_compare(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "help") == 0)
        return cmd_help(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "convert") == 0)
        return cmd_convert(argc - 1, argv + 1);
    char **argv0 = argv;
    int argc0 = argc;
    char **llm = cmd_llm_argv(&argc, argv);
    argv = llm ? llm : ab_command(&argc, argv);
    char err[512];
    struct options o;
    struct target t = {0};
    struct run_result r = {0};
    struct script *ms = NULL;
    struct reparse rp = {0};
    struct tls_ctx *tls = NULL; /* https: main's context, for the probe */
    struct proxy *proxy = NULL; /* the proxy the run goes through, until proxy_apply */
    int status = 0;
    signal(SIGPIPE, SIG_IGN);

    switch (options_parse(&o, argc, argv, err, sizeof err)) {
    case OPTIONS_EXIT:
        goto out;
    case OPTIONS_VERSION:
        cmd_help_version(stdout);
        goto out;
    case OPTIONS_ERROR:
        status = die(2, err);
        goto out;
    case OPTIONS_RUN:
        break;
    }
    if (!o.seed_given)
        o.seed = seed_draw();
    if (o.script && (status = load_main_script(&o, &t, argc, argv, &ms, &rp, err, sizeof err)) != 0) {
        status = die(status, err);
        goto out;
    }
    /* A script that runs as if it were none, because a hook is misspelt. */
    if (ms && script_hook_near(ms, err, sizeof err))
        report_error(stderr, err);
    /* -m post: sent as typed, which most servers refuse. */
    if (options_hint_method(o.method, err, sizeof err))
        report_error(stderr, err);
    o.flow = ms && (script_has(ms, SCRIPT_USER) || script_scenario_count(ms));
    if ((ms && script_scenario_count(ms) && plan_scenarios(&o, ms, err, sizeof err) < 0) ||
        check_scenario_labels(&o, err, sizeof err) < 0) {
        status = die(2, err);
        goto out;
    }
    options_set_command(&o, argc0, argv0);
    if (o.flow && o.requests) {
        status = die(2, "-n: counts requests; a flow (user(u)) is bounded by --iterations or -d");
        goto out;
    }
    if (!o.flow && o.allow_hosts) {
        status = die(2, "--allow-host: only a flow's users (a script with user(u)) reach other hosts");
        goto out;
    }
    if (!o.flow && o.iterations) {
        status = die(2, "--iterations: the script defines no user(u) (a per-request script is bounded by -n or -d)");
        goto out;
    }
    if (run_setup_check(&o, ms, err, sizeof err) < 0) {
        status = die(2, err);
        goto out;
    }
    if (!o.flow && o.max_rps) {
        status = die(2, OPTIONS_MAX_RPS_NEEDS_FLOW);
        goto out;
    }
    /* A flow's figures, known now that the script is: none without one. */
    if (threshold_check_flow(o.thresholds, o.nthresholds, o.flow, err, sizeof err) < 0) {
        status = die(2, err);
        goto out;
    }
    report_threshold_notes(stderr, &o); /* the script's fail_if included */
    /* options_parse checked this already unless a script could give -R. */
    if (o.spin_ns && !o.rate) {
        status = die(2, OPTIONS_SPIN_NEEDS_RATE);
        goto out;
    }
    if (options_check_arrivals(&o)) {
        status = die(2, options_check_arrivals(&o));
        goto out;
    }
    /* -R decides when requests start; a delay() hook would too. Hooks are
     * resolved when the chunk loads, the same in every state. */
    if (o.rate && ms && script_has(ms, SCRIPT_DELAY)) {
        status = die(2, "-R: cannot be combined with the script's delay() hook (the schedule decides when requests start)");
        goto out;
    }
    if ((!o.script && target_parse(&t, o.url, err, sizeof err) < 0) ||
        run_check_fd_limit(&o, err, sizeof err) < 0 ||
        (o.json_path && outfile_check("--json", o.json_path, true, err, sizeof err) < 0) ||
        (o.html_path && outfile_check("--html", o.html_path, false, err, sizeof err) < 0) ||
        (o.hlog_path && outfile_check("--hlog", o.hlog_path, false, err, sizeof err) < 0)) {
        status = die(2, err);
        goto out;
    }
    if ((status = check_http2(&o, &t, ms, err, sizeof err)) != 0) {
        status = die(status, err);
        goto out;
    }
    if (t.tls && !(tls = check_tls(&o, &t, err, sizeof err))) {
        status = die(2, err);
        goto out;
    }
    /* Where connections go: the Unix socket, the proxy, or the target's
     * own addresses. */
    if (o.unix_socket && target_use_unix(&t, o.unix_socket, err, sizeof err) < 0) {
        status = die(2, err);
        goto out;
    }
    if (!o.unix_socket && (status = choose_proxy(&o, &t, &proxy, err, sizeof err)) != 0) {
        status = die(status, err);
        goto out;
    }
    struct target *where = proxy ? &proxy->t : &t;
    if (!o.unix_socket && target_resolve(where, err, sizeof err) < 0) {
        status = proxy ? proxy_die(proxy, err) : die(1, err);
        goto out;
    }
    /* Another host's connections go straight to it (src/conn/conn_origin.c):
     * through a proxy or a Unix socket they would bypass what the user
     * asked for, so the two are refused together. */
    if (o.allow_hosts && (proxy || o.unix_socket)) {
        status = die(2, o.unix_socket ? "--allow-host: other hosts are not reached over --unix-socket"
                                      : "--allow-host: other hosts are not reached through a proxy (--proxy or the environment's); --proxy '' turns it off");
        goto out;
    }
    /* --allow-host's names, looked up once now: never on a worker's loop. */
    if (o.allow_hosts && hosts_resolve(o.allow_hosts, err, sizeof err) < 0) {
        status = die(1, err);
        goto out;
    }
    /* An https origin's context is made by a worker from the TLS options:
     * a bad one is a bad option now, whatever the target's scheme. */
    if (o.allow_hosts && !t.tls) {
        struct tls_ctx *probe = check_tls(&o, &t, err, sizeof err);
        if (!probe) {
            status = die(2, err);
            goto out;
        }
        tls_ctx_free(probe);
    }
    if (o.sources && (status = check_sources(&o, &t, err, sizeof err)) != 0) {
        status = die(status, err);
        goto out;
    }
    socklen_t srclen;
    const struct sockaddr *src = sources_for(o.sources, 0, &srclen); /* the probes connect from the first */
    if (!o.no_probe && target_probe(where, src, srclen, o.timeout_ns, err, sizeof err) < 0) {
        status = proxy ? proxy_die(proxy, err) : die(1, err);
        goto out;
    }
    if (proxy) { /* TLS is not probed through the tunnel: the first connections tell */
        proxy_apply(proxy, &t);
        if (o.targets && !t.tls) /* encoded before the proxy was known */
            targets_via_proxy(o.targets, t.origin, t.proxy_auth);
    } else if ((t.tls && !o.no_probe && probe_tls(tls, &o, &t, &r, err, sizeof err) < 0) ||
               (o.http2 == OPTIONS_H2C && !o.no_probe && probe_h2c(&o, &t, err, sizeof err) < 0)) {
        status = die(1, err);
        goto out;
    }

    /* A flow's setup(u), once before the load, or its data from
     * --setup-data; every user gets it as u.setup (run_setup.c). */
    struct run_setup_state setup;
    int sr = run_setup_begin(&o, &t, ms, &setup, &r, err, sizeof err);
    if (sr != 0) {
        /* what setup or teardown sent; on stderr when the data went to stdout */
        if (!o.quiet)
            report_aside_text(o.setup_only && strcmp(o.setup_only, "-") == 0 ? stderr : stdout, &r);
        if (sr < 0)
            status = die(1, err);
        else if (r.teardown.failed)
            status = die(1, err);
        free(setup.text);
        run_result_free(&r);
        goto out;
    }
    /* --hlog is written as the run goes: opened now that the run goes (a
     * run that never starts leaves the path as it was). */
    struct outfile hlog_of;
    FILE *hlog = NULL;
    if (o.hlog_path && !(hlog = outfile_open_partial(&hlog_of, "--hlog", o.hlog_path, err, sizeof err))) {
        status = die(1, err);
        goto out;
    }
    /* With --json - the JSON owns stdout; the text report is then not printed. */
    bool json_stdout = o.json_path && strcmp(o.json_path, "-") == 0;
    bool text = !o.quiet && !json_stdout;
    struct result res = {&o, &t, &r};
    int rc = run_execute(&o, &t, ms, hlog, text ? print_header : NULL, &res, &r, err, sizeof err);
    /* teardown(data, u) after the last worker stopped; its failure is a
     * line after the report, which keeps the run's results */
    char teardown_err[512] = "";
    if (rc == 0)
        run_setup_end(&o, &t, ms, &setup, &r, teardown_err, sizeof teardown_err);
    free(setup.text);
    if (rc < 0) {
        status = die(rc == RUN_LATE ? 4 : 1, err);
        if (hlog)
            outfile_abandon(&hlog_of);
    } else {
        if (text)
            report_text(stdout, &o, &t, &r);
        if (o.show_errors) {
            fflush(stdout); /* after the report, on stderr */
            report_show_errors(stderr, &o, &r.stats);
        }
        if (o.json_path && write_result("--json", o.json_path, write_json, &res))
            status = 1;
        if (o.html_path && write_result("--html", o.html_path, write_html, &res))
            status = 1;
        if (report_rate_missed(stderr, &o, &r) && status == 0)
            status = 3; /* 1 wins over 3 */
        if (report_thresholds_failed(stderr, &o, &r) && status == 0)
            status = 99; /* 1 and 3 win: the load was not what was asked */
        if (hlog && end_hlog(&hlog_of, &r))
            status = 1;
        fflush(stdout);
        if (run_done(ms, &r, err, sizeof err) < 0)
            status = die(1, err);
        /* Last, after done(): a script that owns its exit status and its
         * stderr (volley ab) has exited by then. A run stopped early says
         * why, in one line; any other run in which nothing completed says
         * that. */
        if (report_stop_reason(stderr, &t, &r) || report_none_completed(stderr, &r))
            status = 1;
        else if (r.teardown.failed)
            status = die(1, teardown_err);
        else if (report_interrupted(stderr, &r) && status != 1)
            status = REPORT_INTERRUPTED_STATUS; /* 1 wins; 3 and 99 judged a run cut short */
    }
    run_result_free(&r);
out:
    proxy_free(proxy);
    tls_ctx_free(tls);
    script_free(ms);
    reparse_free(&rp);
    target_free(&t);
    options_free(&o);
    if (argv != argv0)
        free(argv);
    return status;
}
