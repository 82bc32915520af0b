/* Result files written whole or not at all (see outfile.h). */
#include "outfile.h"

#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The folder of path, as a new string ("." for a bare name). */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup(".");
    if (slash == path)
        return xstrdup("/");
    size_t n = (size_t)(slash - path);
    char *d = xmalloc(n + 1);
    memcpy(d, path, n);
    d[n] = '\0';
    return d;
}

/* Where the result goes: path with its symlinks resolved, so that the
 * rename replaces the file a link points to, not the link. */
static char *destination(const char *path)
{
    char *real = realpath(path, NULL);
    return real ? real : xstrdup(path);
}

int outfile_check(const char *opt, const char *path, bool allow_stdout, char *err, size_t errlen)
{
    if (strcmp(path, "-") == 0) {
        if (allow_stdout)
            return 0;
        snprintf(err, errlen, "%s: -: stdout has the report; give a file name", opt);
        return -1;
    }
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s: %s: %s", opt, path, strerror(EISDIR));
            return -1;
        }
        if (!S_ISREG(st.st_mode)) {
            if (access(path, W_OK) == 0)
                return 0;
            snprintf(err, errlen, "%s: %s: %s", opt, path, strerror(errno));
            return -1;
        }
    } else if (errno != ENOENT) {
        snprintf(err, errlen, "%s: %s: %s", opt, path, strerror(errno));
        return -1;
    }
    char *dest = destination(path), *dir = folder_of(dest);
    int rc = 0;
    if (access(dir, W_OK | X_OK) < 0) {
        if (errno == ENOENT)
            snprintf(err, errlen, "%s: %s: %s", opt, path, strerror(errno));
        else
            snprintf(err, errlen, "%s: %s: cannot write in its folder %s (the result is written beside it"
                                  " and renamed into place): %s", opt, path, dir, strerror(errno));
        rc = -1;
    }
    free(dir);
    free(dest);
    return rc;
}

/* outfile_open and outfile_open_partial: the temporary file is
 * NAME.partial.XXXXXX when partial, else .NAME.XXXXXX. */
static FILE *open_result(struct outfile *of, const char *opt, const char *path, bool partial, char *err,
                         size_t errlen)
{
    *of = (struct outfile){.opt = opt, .path = path};
    if (strcmp(path, "-") == 0)
        return of->f = stdout;
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device, a pipe, a terminal: written as it is, never replaced. */
        if (!(of->f = fopen(path, "we")))
            snprintf(err, errlen, "%s: %s: %s", opt, path, strerror(errno));
        return of->f;
    }
    of->dest = destination(path);
    char *dir = folder_of(of->dest);
    const char *base = strrchr(of->dest, '/') ? strrchr(of->dest, '/') + 1 : of->dest;
    size_t n = strlen(dir) + strlen(base) + sizeof "/.partial.XXXXXX"; /* the longer of the two */
    of->tmp = xmalloc(n);
    snprintf(of->tmp, n, partial ? "%s/%s.partial.XXXXXX" : "%s/.%s.XXXXXX", dir, base);
    free(dir);
    int fd = mkostemp(of->tmp, O_CLOEXEC); /* not inherited by a script's os.execute() */
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s: %s", opt, path, strerror(errno));
        free(of->tmp);
        of->tmp = NULL;
        return NULL;
    }
    /* The mode a plain fopen would give, or the replaced file's own. No
     * worker runs while a result file is opened (before the run, or after
     * it): nothing else reads the umask now. */
    mode_t mask = umask(0);
    umask(mask);
    mode_t mode = exists ? st.st_mode & 07777 : 0666 & ~mask;
    if (fchmod(fd, mode) < 0 || !(of->f = fdopen(fd, "w"))) {
        snprintf(err, errlen, "%s: %s: %s", opt, of->tmp, strerror(errno));
        close(fd);
        outfile_abandon(of);
        return NULL;
    }
    return of->f;
}

FILE *outfile_open(struct outfile *of, const char *opt, const char *path, char *err, size_t errlen)
{
    return open_result(of, opt, path, false, err, errlen);
}

FILE *outfile_open_partial(struct outfile *of, const char *opt, const char *path, char *err, size_t errlen)
{
    return open_result(of, opt, path, true, err, errlen);
}

void outfile_abandon(struct outfile *of)
{
    if (of->f && of->f != stdout)
        fclose(of->f);
    of->f = NULL;
    if (of->tmp)
        unlink(of->tmp); /* ours: made by mkstemp */
    free(of->tmp);
    free(of->dest);
    of->tmp = of->dest = NULL;
}

int outfile_commit(struct outfile *of, char *err, size_t errlen)
{
    FILE *f = of->f;
    if (f == stdout) {
        of->f = NULL;
        if (fflush(f) == 0)
            return 0;
        snprintf(err, errlen, "%s: stdout: %s", of->opt, strerror(errno));
        return -1;
    }
    /* The data reaches the disk before the name does: after a crash the
     * destination holds the old result or the new one, whole. */
    bool ok = fflush(f) == 0 && !ferror(f) && (!of->tmp || fsync(fileno(f)) == 0);
    int e = errno;
    of->f = NULL;
    if (fclose(f) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (ok && of->tmp && rename(of->tmp, of->dest) < 0) {
        ok = false;
        e = errno;
    }
    if (!ok)
        snprintf(err, errlen, "%s: %s: %s", of->opt, of->path, strerror(e ? e : EIO));
    else if (of->tmp) {
        free(of->tmp); /* renamed: nothing to remove */
        of->tmp = NULL;
    }
    outfile_abandon(of);
    return ok ? 0 : -1;
}
