/* volley's entry point: options, target, run, report, exit status. Exit
 * status: 0 after a run (failed requests included), 1 when the target cannot
 * be reached or the run cannot start, 2 for a bad command line. */
#include "options.h"
#include "report.h"
#include "run.h"
#include "target.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

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

int main(int argc, char **argv)
{
    char err[512];
    struct options o;
    struct target t = {0};
    struct run_result r = {0};
    FILE *json = NULL;
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
    if (target_parse(&t, o.url, err, sizeof err) < 0 || run_check_fd_limit(o.connections, err, sizeof err) < 0 ||
        (o.json_path && !(json = open_json(o.json_path, err, sizeof err)))) {
        status = die(2, err);
        goto out;
    }
    if (run_check_script(&o, &t, err, sizeof err) < 0 || target_resolve(&t, err, sizeof err) < 0 ||
        target_probe(&t, o.timeout_ns, err, sizeof err) < 0) {
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
    if (run_execute(&o, &t, &r, err, sizeof err) < 0) {
        status = die(1, err);
    } else {
        if (text)
            report_text(stdout, &o, &t, &r);
        if (json)
            report_json(json, &o, &t, &r);
        if (report_stop_reason(stderr, &t, &r))
            status = 1;
    }
    stats_free(&r.stats);
out:
    if (json && close_json(json, o.json_path) < 0)
        status = 1;
    target_free(&t);
    options_free(&o);
    return status;
}
