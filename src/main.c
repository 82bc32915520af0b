/* volley's entry point: options, script, target, run, report, exit status.
 * Exit status: 0 after a run (failed requests included), 1 when the target
 * cannot be reached, the run cannot start or a script fails, 2 for a bad
 * command line, 3 when -R's target rate was not reached. */
#include "options.h"
#include "report.h"
#include "run.h"
#include "script.h"
#include "target.h"
#include "xalloc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int die(int status, const char *msg)
{
    fprintf(stderr, "volley: %s\n", msg);
    return status;
}

/* Opens the --json destination before anything is sent, so a bad path is a
 * bad option (exit 2), not a lost result after the run. */
static FILE *open_json(const char *path, char *err, size_t errlen)
{
    if (strcmp(path, "-") == 0)
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f)
        snprintf(err, errlen, "--json: %s: %s", path, strerror(errno));
    return f;
}

static int close_json(FILE *f, const char *path)
{
    if (f == stdout)
        return fflush(f) == 0 ? 0 : -1;
    if (fclose(f) != 0) {
        fprintf(stderr, "volley: --json: %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The same for --hlog (never stdout: the report is there). */
static FILE *open_hlog(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f)
        snprintf(err, errlen, "--hlog: %s: %s", path, strerror(errno));
    return f;
}

/* What a script's options() changed: the command line again, with its
 * words after the user's options (so they win) and before the script
 * arguments; its URL, if it gave one, replaces the user's. */
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

/* The script's main state: loaded with the command line's wrk table, its
 * options() applied to o, the wrk table refreshed. Returns 0, or the exit
 * status with err. */
static int load_main_script(struct options *o, struct target *t, int argc, char **argv, struct script **ms,
                            struct reparse *rp, char *err, size_t errlen)
{
    if (target_parse(t, o->url ? o->url : "http://localhost/", err, errlen) < 0)
        return 2;
    if (!(*ms = run_load_script(o, t, err, errlen)))
        return 1;
    bool has_url;
    if (script_options(*ms, o->script_args, o->nscript_args, &rp->words, &rp->nwords, &has_url, err, errlen) < 0)
        return 1;
    if (rp->nwords > 0) {
        int n = 0, nscript = o->nscript_args;
        char *const *script_args = o->script_args;
        rp->argv = xcalloc((size_t)(argc + rp->nwords + 2), sizeof *rp->argv);
        for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
            if (!(has_url && argv[i] == o->url))
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
    if (!o->url) {
        snprintf(err, errlen, "missing URL (give one, or return url from the script's options())");
        return 2;
    }
    target_free(t);
    memset(t, 0, sizeof *t);
    if (target_parse(t, o->url, err, errlen) < 0)
        return 2;
    return run_set_wrk(*ms, o, t, err, errlen) < 0 ? 1 : 0;
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
    char **argv0 = argv;
    argv = ab_command(&argc, argv);
    char err[512];
    struct options o;
    struct target t = {0};
    struct run_result r = {0};
    struct script *ms = NULL;
    struct reparse rp = {0};
    FILE *json = NULL, *hlog = NULL;
    bool json_written = false, hlog_written = false;
    int status = 0;
    signal(SIGPIPE, SIG_IGN);

    switch (options_parse(&o, argc, argv, err, sizeof err)) {
    case OPTIONS_EXIT:
        goto out;
    case OPTIONS_ERROR:
        status = die(2, err);
        goto out;
    case OPTIONS_RUN:
        break;
    }
    if (o.script && (status = load_main_script(&o, &t, argc, argv, &ms, &rp, err, sizeof err)) != 0) {
        status = die(status, err);
        goto out;
    }
    /* -R decides when requests start; a delay() hook would too. Hooks are
     * resolved when the chunk loads, the same in every state. */
    if (o.rate && ms && script_has(ms, SCRIPT_DELAY)) {
        status = die(2, "-R: cannot be combined with the script's delay() hook (the schedule decides when requests start)");
        goto out;
    }
    if ((!o.script && target_parse(&t, o.url, err, sizeof err) < 0) ||
        run_check_fd_limit(o.connections, err, sizeof err) < 0 ||
        (o.json_path && !(json = open_json(o.json_path, err, sizeof err))) ||
        (o.hlog_path && !(hlog = open_hlog(o.hlog_path, err, sizeof err)))) {
        status = die(2, err);
        goto out;
    }
    if (target_resolve(&t, err, sizeof err) < 0 ||
        (!o.no_probe && target_probe(&t, o.timeout_ns, err, sizeof err) < 0)) {
        status = die(1, err);
        goto out;
    }

    /* With --json - the JSON owns stdout; the text report is then not printed. */
    bool json_stdout = o.json_path && strcmp(o.json_path, "-") == 0;
    bool text = !o.quiet && !json_stdout;
    if (text) {
        report_header(stdout, &o, &t);
        fflush(stdout);
    }
    if (run_execute(&o, &t, ms, &r, err, sizeof err) < 0) {
        status = die(1, err);
    } else {
        if (text)
            report_text(stdout, &o, &t, &r);
        if (json) {
            report_json(json, &o, &t, &r);
            json_written = true;
        }
        if (report_rate_missed(stderr, &o, &r))
            status = 3;
        if (hlog) {
            if (run_write_hlog(hlog, &o, &t, &r, err, sizeof err) < 0)
                status = die(1, err);
            hlog_written = true;
        }
        if (report_stop_reason(stderr, &t, &r))
            status = 1;
        fflush(stdout);
        if (run_done(ms, &r, err, sizeof err) < 0)
            status = die(1, err);
    }
    run_result_free(&r);
out:
    script_free(ms);
    reparse_free(&rp);
    if (json && close_json(json, o.json_path) < 0)
        status = 1;
    /* A run that never started leaves no empty --json file behind. */
    if (json && json != stdout && !json_written)
        unlink(o.json_path);
    if (hlog && fclose(hlog) != 0) {
        fprintf(stderr, "volley: --hlog: %s: %s\n", o.hlog_path, strerror(errno));
        status = 1;
    }
    if (hlog && !hlog_written)
        unlink(o.hlog_path);
    target_free(&t);
    options_free(&o);
    if (argv != argv0)
        free(argv);
    return status;
}
