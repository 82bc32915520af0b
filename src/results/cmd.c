/* What volley's subcommands share (cmd.h): their option words, their one
 * error line and reading a result file whole. */
#include "cmd.h"

#include "json_in.h"
#include "quote.h"
#include "xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool cmd_is_option(const char *a, const char *name)
{
    size_t n = strlen(name);
    return strncmp(a, name, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

int cmd_option_value(const char *cmd, int argc, char **argv, int *i, const char **value)
{
    const char *a = argv[*i], *eq = strchr(a, '=');
    if (eq) {
        *value = eq + 1;
        return 0;
    }
    if (*i + 1 >= argc)
        return cmd_fail(cmd, 2, "%s: needs a value", a);
    *value = argv[++*i];
    return 0;
}

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

int cmd_read_result(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st = {0};
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory, not a result file", path);
        fclose(f);
        return -1;
    }
    /* A regular file too large is refused before anything is read; any
     * other (a pipe, a device) is read up to one byte past the limit, so
     * memory never exceeds it. */
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > JSON_IN_MAX_BYTES) {
        snprintf(err, errlen, "%s: more than %zu MB: larger than volley reads", path, JSON_IN_MAX_BYTES >> 20);
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
            cap = cap * 2 > JSON_IN_MAX_BYTES ? JSON_IN_MAX_BYTES + 1 : cap * 2;
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
