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

static int write_json(const struct options *o, const struct target *t, const struct run_result *r)
{
    if (strcmp(o->json_path, "-") == 0) {
        report_json(stdout, o, t, r);
        return 0;
    }
    FILE *f = fopen(o->json_path, "w");
    if (!f) {
        fprintf(stderr, "volley: --json: %s: %s\n", o->json_path, strerror(errno));
        return -1;
    }
    report_json(f, o, t, r);
    if (fclose(f) != 0) {
        fprintf(stderr, "volley: --json: %s: %s\n", o->json_path, strerror(errno));
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
    if (target_parse(&t, o.url, err, sizeof err) < 0 || run_check_fd_limit(o.connections, err, sizeof err) < 0) {
        status = die(2, err);
        goto out;
    }
    if (target_resolve(&t, err, sizeof err) < 0 || target_probe(&t, o.timeout_ns, err, sizeof err) < 0) {
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
        if (o.json_path && write_json(&o, &t, &r) < 0)
            status = 1;
    }
    stats_free(&r.stats);
out:
    target_free(&t);
    options_free(&o);
    return status;
}
