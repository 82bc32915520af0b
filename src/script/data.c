/* Data files (data.h): read whole into one buffer, parsed once into cells
 * (offset and length into that buffer; a quoted CSV field is unescaped in
 * place, which only ever shortens it), and kept in a process-wide registry
 * so that every Lua state of the process shares the one parsed copy. */
#include "data.h"

#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Offsets fit 32 bits: a file is at most DATA_MAX_BYTES. */
struct cell {
    uint32_t off;
    uint32_t len;
};

struct data {
    struct data *next; /* the registry's list */
    char *path;
    enum data_kind kind;
    int sep;
    char *bytes;        /* the file, unescaped in place */
    struct cell *cells; /* csv: the header's fields, then the rows'; lines: a row each */
    uint32_t rows;
    uint32_t fields;
    atomic_uint_fast64_t iteration;
};

/* Loaded files, until the process ends (reachable from here, so leak
 * checkers see them as in use). One lock for lookups and loads: a second
 * state opening a file waits for the first to finish loading it. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct data *registry;

/* A parse in progress: where it is, the cells so far and the error. */
struct parse {
    const char *path;
    char *buf;
    size_t size;
    size_t pos;
    uint32_t line; /* the line pos is on, 1-based */
    int sep;
    struct cell *cells;
    size_t ncells;
    size_t cap;
    uint32_t rows;
    char *err;
    size_t errlen;
};

/* The whole file at path in a new buffer (NUL-terminated, for nobody's
 * convenience but a debugger's), its size in *size; NULL with err set. A
 * pipe or other non-regular file is read to its end, within the limit. */
static char *read_file(const char *path, size_t *size, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: %s", path, strerror(EISDIR));
        close(fd);
        return NULL;
    }
    bool regular = S_ISREG(st.st_mode);
    if (regular && (uint64_t)st.st_size > DATA_MAX_BYTES)
        goto too_large;
    /* A regular file's size and 2: the NUL, and room for the read that
     * finds the end without growing the buffer. */
    size_t cap = regular ? (size_t)st.st_size + 2 : 64 * 1024, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n > DATA_MAX_BYTES) {
            free(buf);
            goto too_large;
        }
        if (n + 1 == cap) {
            cap = xgrow(cap, cap + 1, cap);
            buf = xrealloc(buf, cap);
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            goto failed;
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *size = n;
    return buf;
failed:
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    free(buf);
    close(fd);
    return NULL;
too_large:
    close(fd);
    snprintf(err, errlen, "%s: larger than 1 GiB (the most a data file may hold)", path);
    return NULL;
}

static __attribute__((format(printf, 2, 3))) int fail(struct parse *p, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errlen, "%s:%" PRIu32 ": %s", p->path, p->line, what);
    return -1;
}

static int fail_nul(struct parse *p)
{
    return fail(p, "a NUL byte (a data file is text)");
}

static void push_cell(struct parse *p, size_t off, size_t len)
{
    if (p->ncells == p->cap) {
        p->cap = xgrow(p->cap, p->ncells + 1, 256);
        p->cells = xrealloc(p->cells, p->cap * sizeof *p->cells);
    }
    p->cells[p->ncells++] = (struct cell){ (uint32_t)off, (uint32_t)len };
}

/* Counts a data row, within the limit (which a file of at most 1 GiB
 * cannot reach: a row takes two bytes at least; kept so that raising the
 * byte limit cannot overflow the row numbers). */
static int add_row(struct parse *p)
{
    if (p->rows == DATA_MAX_ROWS)
        return fail(p, "more than %" PRIu32 " rows (the most a data file may have)", DATA_MAX_ROWS);
    p->rows++;
    return 0;
}

static void skip_bom(struct parse *p)
{
    if (p->size >= 3 && memcmp(p->buf, "\xEF\xBB\xBF", 3) == 0)
        p->pos = 3;
}

/* The length of the line end at pos: 1 for LF, 2 for CRLF, else 0 (a lone
 * CR is data, as RFC 4180 has it). */
static size_t line_end(const struct parse *p, size_t pos)
{
    if (pos < p->size && p->buf[pos] == '\n')
        return 1;
    if (pos + 1 < p->size && p->buf[pos] == '\r' && p->buf[pos + 1] == '\n')
        return 2;
    return 0;
}

/* A quoted field, pos on its opening quote: unescaped in place ("" -> "),
 * its cell pushed; pos after the closing quote, which must end the field. */
static int quoted_field(struct parse *p)
{
    uint32_t opened = p->line;
    size_t start = ++p->pos, w = start;
    for (;;) {
        if (p->pos == p->size) {
            p->line = opened;
            return fail(p, "a quoted field is not closed (it opened here)");
        }
        char c = p->buf[p->pos];
        if (c == '"') {
            if (p->pos + 1 < p->size && p->buf[p->pos + 1] == '"') {
                p->buf[w++] = '"';
                p->pos += 2;
                continue;
            }
            p->pos++;
            break;
        }
        if (c == '\0')
            return fail_nul(p);
        if (c == '\n')
            p->line++;
        p->buf[w++] = c;
        p->pos++;
    }
    push_cell(p, start, w - start);
    if (p->pos < p->size && p->buf[p->pos] != p->sep && !line_end(p, p->pos))
        return fail(p, "text after a quoted field's closing quote (a quote inside quotes is written twice: \"\")");
    return 0;
}

/* An unquoted field from pos to the separator, the line end or the end. */
static int plain_field(struct parse *p)
{
    size_t start = p->pos;
    for (; p->pos < p->size; p->pos++) {
        char c = p->buf[p->pos];
        if (c == p->sep || line_end(p, p->pos))
            break;
        if (c == '"')
            return fail(p, "a quote inside an unquoted field (quote the whole field and write the quote twice: "
                           "\"a\"\"b\")");
        if (c == '\0')
            return fail_nul(p);
    }
    push_cell(p, start, p->pos - start);
    return 0;
}

static bool same_name(const struct parse *p, uint32_t a, uint32_t b)
{
    const struct cell *x = &p->cells[a], *y = &p->cells[b];
    return x->len == y->len && memcmp(p->buf + x->off, p->buf + y->off, x->len) == 0;
}

/* Header fields (indices into cells) by name, then by place. */
static int cmp_name(const void *a, const void *b, void *arg)
{
    const struct parse *p = arg;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    const struct cell *x = &p->cells[i], *y = &p->cells[j];
    int c = memcmp(p->buf + x->off, p->buf + y->off, x->len < y->len ? x->len : y->len);
    if (c == 0)
        c = (x->len > y->len) - (x->len < y->len);
    return c ? c : (i > j) - (i < j);
}

/* The header's names (the first n cells): each non-empty, no two the same.
 * Sorted once, so that a wide header costs n log n rather than n^2; of
 * several names given twice, the one named is the one whose second use
 * comes first. */
static int check_names(struct parse *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (p->cells[i].len == 0)
            return fail(p, "field %" PRIu32 " of the header is empty (each field needs a name)", i + 1);
    uint32_t *order = xmalloc(n * sizeof *order);
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof *order, cmp_name, p);
    uint32_t first = 0, second = UINT32_MAX;
    for (uint32_t i = 1; i < n; i++) {
        /* The second place of a run of one name is its second use. */
        bool run_start = i == 1 || !same_name(p, order[i - 2], order[i - 1]);
        if (run_start && same_name(p, order[i - 1], order[i]) && order[i] < second) {
            first = order[i - 1];
            second = order[i];
        }
    }
    free(order);
    if (second == UINT32_MAX)
        return 0;
    const struct cell *c = &p->cells[first];
    int shown = c->len > 60 ? 60 : (int)c->len;
    return fail(p, "field \"%.*s%s\" is in the header twice (fields %" PRIu32 " and %" PRIu32 ")", shown,
                p->buf + c->off, c->len > 60 ? "..." : "", first + 1, second + 1);
}

/* RFC 4180, with blank lines skipped and either line end. */
static int parse_csv(struct parse *p, uint32_t *fields)
{
    uint32_t nfields = 0;
    bool header = true;
    skip_bom(p);
    while (p->pos < p->size) {
        size_t end = line_end(p, p->pos);
        if (end) { /* a blank line */
            p->pos += end;
            p->line++;
            continue;
        }
        uint32_t row_line = p->line;
        size_t first = p->ncells;
        for (;;) {
            int rc = p->pos < p->size && p->buf[p->pos] == '"' ? quoted_field(p) : plain_field(p);
            if (rc < 0)
                return -1;
            if (p->pos == p->size)
                break;
            if (p->buf[p->pos] == p->sep) {
                p->pos++;
                continue;
            }
            p->pos += line_end(p, p->pos);
            p->line++;
            break;
        }
        /* Errors about the row as a whole name the line it starts on. */
        uint32_t next_line = p->line;
        p->line = row_line;
        size_t count = p->ncells - first; /* < 2^30: the file's size bounds it */
        if (header) {
            nfields = (uint32_t)count;
            if (check_names(p, nfields) < 0)
                return -1;
            header = false;
        } else if (count != nfields) {
            return fail(p, "%zu field%s where the header has %" PRIu32, count, count == 1 ? "" : "s", nfields);
        } else if (add_row(p) < 0) {
            return -1;
        }
        p->line = next_line;
    }
    if (p->rows == 0) {
        snprintf(p->err, p->errlen, "%s: no rows%s", p->path, header ? "" : " after the header");
        return -1;
    }
    *fields = nfields;
    return 0;
}

/* A row per line, its LF or CRLF stripped; blank lines skipped. */
static int parse_lines(struct parse *p)
{
    skip_bom(p);
    while (p->pos < p->size) {
        char *nl = memchr(p->buf + p->pos, '\n', p->size - p->pos);
        size_t end = nl ? (size_t)(nl - p->buf) : p->size;
        size_t len = end - p->pos;
        if (nl && len > 0 && p->buf[end - 1] == '\r')
            len--;
        if (memchr(p->buf + p->pos, '\0', len))
            return fail_nul(p);
        if (len > 0) {
            if (add_row(p) < 0)
                return -1;
            push_cell(p, p->pos, len);
        }
        p->line++;
        p->pos = end + 1;
    }
    if (p->rows == 0) {
        snprintf(p->err, p->errlen, "%s: no rows", p->path);
        return -1;
    }
    return 0;
}

/* A bytes file: one row of one cell, the whole file as it is (NULs, CR
 * and LF included; empty too). */
static int whole(struct parse *p)
{
    if (add_row(p) < 0)
        return -1;
    push_cell(p, 0, p->size);
    return 0;
}

/* Reads and parses a file: a new struct data, or NULL with err set. */
static struct data *load(const char *path, enum data_kind kind, int sep, char *err, size_t errlen)
{
    struct parse p = { .path = path, .line = 1, .sep = sep, .err = err, .errlen = errlen };
    if (!(p.buf = read_file(path, &p.size, err, errlen)))
        return NULL;
    uint32_t fields = 1;
    int rc = kind == DATA_CSV ? parse_csv(&p, &fields) : kind == DATA_LINES ? parse_lines(&p) : whole(&p);
    if (rc < 0) {
        free(p.buf);
        free(p.cells);
        return NULL;
    }
    struct data *d = xcalloc(1, sizeof *d);
    d->path = xstrdup(path);
    d->kind = kind;
    d->sep = sep;
    d->bytes = p.buf;
    d->cells = p.ncells < p.cap ? xrealloc(p.cells, p.ncells * sizeof *p.cells) : p.cells;
    d->rows = p.rows;
    d->fields = fields;
    atomic_init(&d->iteration, 0);
    return d;
}

struct data *data_open(const char *path, enum data_kind kind, int sep, char *err, size_t errlen)
{
    if (kind == DATA_LINES || kind == DATA_BYTES) {
        sep = 0; /* not part of their identity */
    } else if (sep <= 0 || sep > 255 || sep == '"' || sep == '\r' || sep == '\n') {
        snprintf(err, errlen, "%s: the separator must be one byte other than a quote, CR, LF or NUL", path);
        return NULL;
    }
    pthread_mutex_lock(&registry_lock);
    struct data *d;
    for (d = registry; d; d = d->next)
        if (d->kind == kind && d->sep == sep && strcmp(d->path, path) == 0)
            break;
    if (!d && (d = load(path, kind, sep, err, errlen))) {
        d->next = registry;
        registry = d;
    }
    pthread_mutex_unlock(&registry_lock);
    return d;
}

uint32_t data_rows(const struct data *d)
{
    return d->rows;
}

uint32_t data_fields(const struct data *d)
{
    return d->fields;
}

const char *data_field_name(const struct data *d, uint32_t i, size_t *len)
{
    if (d->kind != DATA_CSV || i >= d->fields) {
        *len = 0;
        return NULL;
    }
    *len = d->cells[i].len;
    return d->bytes + d->cells[i].off;
}

const char *data_cell(const struct data *d, uint32_t row, uint32_t col, size_t *len)
{
    if (row >= d->rows || col >= d->fields) {
        *len = 0;
        return NULL;
    }
    size_t header = d->kind == DATA_CSV ? d->fields : 0;
    const struct cell *c = &d->cells[header + (size_t)row * d->fields + col];
    *len = c->len;
    return d->bytes + c->off;
}

uint64_t data_next_iteration(struct data *d)
{
    return atomic_fetch_add_explicit(&d->iteration, 1, memory_order_relaxed);
}

uint32_t data_iteration_row(struct data *d, uint32_t shard, uint32_t shards)
{
    uint64_t j = data_next_iteration(d);
    return (uint32_t)((j * shards + shard) % d->rows);
}
