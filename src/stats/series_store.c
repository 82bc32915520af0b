/* A series' complete points in an anonymous temporary file, or in memory
 * when there is none; see series_store.h. */
#include "series_store.h"

#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A point as its file holds it: hist replaced by where its text is. */
struct record {
    struct series_point p; /* p.hist NULL */
    uint64_t hist_off;     /* in the text file */
    uint64_t hist_len;
    uint8_t has_hist;
};

struct series_store {
    int rec_fd, text_fd;      /* -1: not made (yet, or it failed) */
    uint64_t text_end;
    size_t nfile;             /* points 0 .. nfile-1 are in the files */
    bool in_memory;           /* the files failed: the rest is in mem */
    bool read_failed;         /* said once */
    struct series_point *mem; /* points nfile .. nfile+nmem-1, hist owned */
    size_t nmem, cap;
};

struct series_store *series_store_new(void)
{
    struct series_store *st = xcalloc(1, sizeof *st);
    st->rec_fd = st->text_fd = -1;
    return st;
}

void series_store_free(struct series_store *st)
{
    if (!st)
        return;
    if (st->rec_fd >= 0)
        close(st->rec_fd);
    if (st->text_fd >= 0)
        close(st->text_fd);
    for (size_t i = 0; i < st->nmem; i++)
        free(st->mem[i].hist);
    free(st->mem);
    free(st);
}

static const char *tmp_dir(void)
{
    const char *d = getenv("TMPDIR");
    return d && d[0] ? d : "/tmp";
}

/* A new temporary file in dir that has no name; -1 with errno. */
static int anonymous_file(const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
    /* A file system without O_TMPFILE: a named file, unlinked at once. */
    size_t n = strlen(dir) + sizeof "/volley-series.XXXXXX";
    char *path = xmalloc(n);
    snprintf(path, n, "%s/volley-series.XXXXXX", dir);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0)
        unlink(path);
    free(path);
    return fd;
}

/* Writes (writing) or reads all of buf's len bytes at off; -1 with errno
 * (EIO for a file shorter than what was written to it). */
static int all_at(int fd, bool writing, void *buf, size_t len, uint64_t off)
{
    char *b = buf;
    while (len > 0) {
        ssize_t n = writing ? pwrite(fd, b, len, (off_t)off) : pread(fd, b, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return -1;
        }
        b += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

/* The files failed (what, errno): memory from now on. */
static void fall_back(struct series_store *st, const char *what)
{
    fprintf(stderr, "volley: series: %s in %s: %s (keeping the per-second points in memory)\n", what, tmp_dir(),
            strerror(errno));
    st->in_memory = true;
}

/* Point *p into the files; -1 (said, memory from now on) if it cannot be. */
static int put_file(struct series_store *st, const struct series_point *p)
{
    if (st->rec_fd < 0) {
        st->rec_fd = anonymous_file(tmp_dir());
        if (st->rec_fd >= 0)
            st->text_fd = anonymous_file(tmp_dir());
        if (st->text_fd < 0) {
            fall_back(st, "cannot make a temporary file");
            return -1;
        }
    }
    struct record rec;
    memset(&rec, 0, sizeof rec); /* padding too: the file holds no stray bytes */
    rec.p = *p;
    rec.p.hist = NULL;
    if (p->hist) {
        rec.has_hist = 1;
        rec.hist_off = st->text_end;
        rec.hist_len = strlen(p->hist);
    }
    if ((rec.has_hist && all_at(st->text_fd, true, p->hist, rec.hist_len, rec.hist_off) < 0) ||
        all_at(st->rec_fd, true, &rec, sizeof rec, (uint64_t)st->nfile * sizeof rec) < 0) {
        fall_back(st, "cannot write its temporary file");
        return -1;
    }
    st->text_end += rec.hist_len;
    st->nfile++;
    return 0;
}

void series_store_put(struct series_store *st, const struct series_point *p)
{
    if (!st->in_memory && put_file(st, p) == 0)
        return;
    if (st->nmem == st->cap) {
        st->cap = xgrow(st->cap, st->nmem + 1, 64);
        st->mem = xrealloc(st->mem, st->cap * sizeof *st->mem);
    }
    st->mem[st->nmem] = *p;
    st->mem[st->nmem].hist = p->hist ? xstrdup(p->hist) : NULL;
    st->nmem++;
}

/* text (len bytes, or NULL) into the caller's buffer as p->hist. */
static char *to_buffer(const char *text, size_t len, char **hist, size_t *cap)
{
    if (*cap < len + 1) {
        *cap = xgrow(*cap, len + 1, 4096);
        *hist = xrealloc(*hist, *cap);
    }
    if (text)
        memcpy(*hist, text, len);
    (*hist)[len] = '\0';
    return *hist;
}

int series_store_get(struct series_store *st, size_t i, struct series_point *p, char **hist, size_t *cap)
{
    if (i >= st->nfile) {
        const struct series_point *m = &st->mem[i - st->nfile];
        *p = *m;
        p->hist = hist && m->hist ? to_buffer(m->hist, strlen(m->hist), hist, cap) : NULL;
        return 0;
    }
    struct record rec;
    if (all_at(st->rec_fd, false, &rec, sizeof rec, (uint64_t)i * sizeof rec) < 0)
        goto failed;
    *p = rec.p;
    p->hist = NULL;
    if (hist && rec.has_hist) {
        p->hist = to_buffer(NULL, (size_t)rec.hist_len, hist, cap);
        if (all_at(st->text_fd, false, p->hist, (size_t)rec.hist_len, rec.hist_off) < 0)
            goto failed;
    }
    return 0;
failed:
    if (!st->read_failed)
        fprintf(stderr, "volley: series: cannot read second %zu back from its temporary file: %s\n", i,
                strerror(errno));
    st->read_failed = true;
    memset(p, 0, sizeof *p);
    return -1;
}
