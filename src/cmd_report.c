/* `volley report RESULT.json --html FILE`: renders a saved result (the
 * --json file of an earlier run, untrusted) as the HTML report, with the
 * same code as a live run's --html. Exit status: 0 written, 1 the result
 * could not be read, parsed or rendered, or FILE not written, 2 a bad
 * command line (docs/usage.md#volley-report). */
#include "cmd_report.h"

#include "html.h"
#include "json_in.h"
#include "outfile.h"
#include "quote.h"
#include "xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char report_usage[] =
    "Usage: volley report RESULT.json --html FILE\n"
    "  renders a result saved with --json as a self-contained HTML report\n"
    "  (volley report supports only --html FILE so far)\n";

int cmd_fail(const char *cmd, int status, const char *fmt, ...)
{
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "volley %s: ", cmd);
    quote_write(stderr, msg); /* file names and the result's keys: no control bytes on the terminal */
    fputc('\n', stderr);
    return status;
}

int cmd_report_read(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory, not a result file", path);
        fclose(f);
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n == cap) {
            if (cap > JSON_IN_MAX_BYTES) {
                snprintf(err, errlen, "%s: more than %zu MB: larger than volley reads", path,
                         JSON_IN_MAX_BYTES >> 20);
                free(buf);
                fclose(f);
                return -1;
            }
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "%s: read error", path);
        free(buf);
        return -1;
    }
    *text = buf;
    *len = n;
    return 0;
}

int cmd_report(int argc, char **argv)
{
    const char *result = NULL, *html = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(report_usage, stdout);
            return 0;
        }
        if (strcmp(a, "--html") == 0) {
            if (i + 1 >= argc)
                return cmd_fail("report", 2, "--html: needs a file name");
            html = argv[++i];
        } else if (strncmp(a, "--html=", 7) == 0) {
            html = a + 7;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cmd_fail("report", 2, "%s: unknown option (volley report supports --html FILE)", a);
        } else if (result) {
            return cmd_fail("report", 2, "%s: one result file at a time (already given %s)", a, result);
        } else {
            result = a;
        }
    }
    if (!result)
        return cmd_fail("report", 2, "missing RESULT.json (usage: volley report RESULT.json --html FILE)");
    if (!html)
        return cmd_fail("report", 2, "--html FILE is needed: volley report supports only --html so far (the text report of "
                       "a saved result is not there yet)");
    if (!*html || strcmp(html, "-") == 0)
        return cmd_fail("report", 2, "--html: \"%s\" is not a file name", html);

    char err[600];
    if (outfile_check("--html", html, false, err, sizeof err) < 0)
        return cmd_fail("report", 2, "%s", err);
    char *text;
    size_t len;
    if (cmd_report_read(result, &text, &len, err, sizeof err) < 0)
        return cmd_fail("report", 1, "%s", err);
    struct json root;
    if (json_in_parse(text, len, &root, err, sizeof err) < 0) {
        free(text);
        return cmd_fail("report", 1, "%s: %s", result, err);
    }
    int status = 0;
    struct outfile of;
    FILE *f = outfile_open(&of, "--html", html, err, sizeof err);
    if (!f) {
        status = cmd_fail("report", 1, "%s", err);
    } else if (html_render(f, &root, text, len, err, sizeof err) < 0) {
        outfile_abandon(&of);
        status = cmd_fail("report", 1, "%s: %s", result, err);
    } else if (outfile_commit(&of, err, sizeof err) < 0) {
        status = cmd_fail("report", 1, "%s", err);
    }
    json_in_free(&root);
    free(text);
    return status;
}
