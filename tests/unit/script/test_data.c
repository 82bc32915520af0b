/* unit test for data.c: every CSV rule (header, quotes holding separators
 * and line ends, "" escapes, CRLF, BOM, blank lines, a last line without
 * its end) and lines files; each error with its line; one load per (path,
 * kind, separator), from several threads too; the iteration counter from 4
 * threads (no value twice, none skipped) and the shard rule. Inputs are
 * files in a temporary folder, which is the current directory. */
#include "data.h"

#include "../check.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/volley-test-data.XXXXXX";

/* Writes name (in the current directory) with n bytes. */
static void put_n(const char *name, const char *bytes, size_t n)
{
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(bytes, 1, n, f) != n || fclose(f) != 0) {
        perror(name);
        exit(1);
    }
}

static void put(const char *name, const char *text)
{
    put_n(name, text, strlen(text));
}

static struct data *csv_sep(const char *name, const char *text, int sep)
{
    char err[256] = "";
    put(name, text);
    struct data *d = data_open(name, DATA_CSV, sep, err, sizeof err);
    if (!d)
        fprintf(stderr, "    %s: %s\n", name, err);
    return d;
}

static struct data *csv(const char *name, const char *text)
{
    return csv_sep(name, text, ',');
}

/* The error data_open gives for a file of n bytes (NULL: it opened). */
static const char *open_error(const char *name, const char *bytes, size_t n, enum data_kind kind)
{
    static char err[256];
    put_n(name, bytes, n);
    err[0] = '\0';
    return data_open(name, kind, ',', err, sizeof err) ? NULL : err;
}

static const char *csv_error(const char *name, const char *text)
{
    return open_error(name, text, strlen(text), DATA_CSV);
}

#define CHECK_CELL(d, row, col, want)                                            \
    do {                                                                         \
        size_t len_;                                                             \
        const char *p_ = data_cell((d), (row), (col), &len_);                    \
        CHECK_MEM(p_, len_, (want), sizeof(want) - 1);                           \
    } while (0)

/* Every cell of d, row by row, is want[0..n), and there are no more rows. */
#define CHECK_CELLS(d, ...) check_cells((d), (const char *const[]){ __VA_ARGS__ }, \
                                        sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *), __LINE__)

static void check_cells(const struct data *d, const char *const *want, size_t n, int line)
{
    check_ctx("the cells checked on line %d", line);
    CHECK_UINT(data_rows(d), n / data_fields(d));
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *p = data_cell(d, (uint32_t)(i / data_fields(d)), (uint32_t)(i % data_fields(d)), &len);
        CHECK_MEM(p, len, want[i], strlen(want[i]));
    }
    check_ctx(NULL);
}

#define CHECK_NAME(d, i, want)                                                   \
    do {                                                                         \
        size_t len_;                                                             \
        const char *p_ = data_field_name((d), (i), &len_);                       \
        CHECK_MEM(p_, len_, (want), sizeof(want) - 1);                           \
    } while (0)

static void test_csv_basic(void)
{
    struct data *d = csv("basic.csv", "id,user,pass\n1,ann,a1\n2,bob,\n");
    if (!CHECK(d != NULL))
        return;
    CHECK_UINT(data_fields(d), 3);
    CHECK_NAME(d, 0, "id");
    CHECK_NAME(d, 1, "user");
    CHECK_NAME(d, 2, "pass");
    CHECK_CELLS(d, "1", "ann", "a1", "2", "bob", ""); /* an empty last field */
    size_t len = 9;
    CHECK(data_cell(d, 2, 0, &len) == NULL);
    CHECK_UINT(len, 0);
    CHECK(data_cell(d, 0, 3, &len) == NULL);
    CHECK(data_field_name(d, 3, &len) == NULL);
}

static void test_csv_line_ends(void)
{
    /* CRLF, a BOM, blank lines (LF and CRLF) skipped, the last line
     * without an end; a lone CR is data. */
    struct data *d = csv("ends.csv", "\xEF\xBB\xBFk,v\r\n\r\na,1\r\n\n\nb,x\ry\r\nc,3");
    if (!CHECK(d != NULL))
        return;
    CHECK_NAME(d, 0, "k");
    CHECK_CELLS(d, "a", "1", "b", "x\ry", "c", "3");
    /* A BOM only at the very start: elsewhere it is data. */
    d = csv("bom2.csv", "k\n\xEF\xBB\xBFx\n");
    if (CHECK(d != NULL))
        CHECK_CELL(d, 0, 0, "\xEF\xBB\xBFx");
    /* A trailing separator at the end of the file is one more empty field. */
    d = csv("trail.csv", "a,b\n1,");
    if (CHECK(d != NULL))
        CHECK_CELLS(d, "1", "");
}

static void test_csv_quotes(void)
{
    struct data *d = csv("quotes.csv", "\"na,me\",\"q\"\"\"\n"
                                       "\"a,b\",\"say \"\"hi\"\"\"\n"
                                       "\"two\r\nlines\",\"\"\n"
                                       "\"lf\nonly\",\"\"\"\"\n"
                                       "x,\"\"\"quoted\"\"\"\r\n");
    if (!CHECK(d != NULL))
        return;
    CHECK_NAME(d, 0, "na,me");
    CHECK_NAME(d, 1, "q\"");
    CHECK_CELLS(d, "a,b", "say \"hi\"", "two\r\nlines", "", "lf\nonly", "\"", "x", "\"quoted\"");
    /* A quoted field may close the file. */
    d = csv("quotes_end.csv", "a\n\"x\"");
    if (CHECK(d != NULL))
        CHECK_CELL(d, 0, 0, "x");
    /* Line numbers count the lines inside quoted fields. */
    CHECK_STR(csv_error("quotes_line.csv", "a,b\n\"1\n2\n3\",x\n4\n"), "quotes_line.csv:5: 1 field where the header has 2");
}

static void test_separator(void)
{
    struct data *d = csv_sep("sep.csv", "a;b,c\n\"x;y\";2,3\n", ';');
    if (CHECK(d != NULL)) {
        CHECK_UINT(data_fields(d), 2);
        CHECK_NAME(d, 1, "b,c");
        CHECK_CELL(d, 0, 0, "x;y");
        CHECK_CELL(d, 0, 1, "2,3");
    }
    struct data *c = csv_sep("sep.csv", "a;b,c\nx;y,3\n", ',');
    if (CHECK(c != NULL)) {
        CHECK(c != d); /* another separator, another load */
        CHECK_NAME(c, 0, "a;b");
        CHECK_CELL(c, 0, 0, "x;y");
        CHECK_CELL(c, 0, 1, "3");
    }
    d = csv_sep("tab.csv", "a\tb\n1\t2\n", '\t');
    if (CHECK(d != NULL))
        CHECK_CELL(d, 0, 1, "2");
    char err[256];
    const int bad[] = { '"', '\r', '\n', 0, 256, -1 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        check_ctx("separator %d", bad[i]);
        CHECK(data_open("tab.csv", DATA_CSV, bad[i], err, sizeof err) == NULL);
        CHECK_STR(err, "tab.csv: the separator must be one byte other than a quote, CR, LF or NUL");
    }
    check_ctx(NULL);
}

static void test_csv_errors(void)
{
    static const struct {
        const char *text, *msg;
    } bad[] = {
        { "a,b,c\n1,2,3\n4,5,6\n7,8,9\n\n1,2,3\n1,2\n", "e.csv:7: 2 fields where the header has 3" },
        { "a,b\n1,2,3\n", "e.csv:2: 3 fields where the header has 2" },
        { "a,b\r\n1\r\n", "e.csv:2: 1 field where the header has 2" },
        { "a\n1\n\"open\n\nstill\n", "e.csv:3: a quoted field is not closed (it opened here)" },
        { "a,b\n1,\"x\n", "e.csv:2: a quoted field is not closed (it opened here)" },
        { "a\nx\"y\n", "e.csv:2: a quote inside an unquoted field (quote the whole field and write the quote "
                       "twice: \"a\"\"b\")" },
        { "a,b\n1,2\n\"x\"y,3\n", "e.csv:3: text after a quoted field's closing quote (a quote inside quotes "
                                  "is written twice: \"\")" },
        { "a\n\"x\" \n", "e.csv:2: text after a quoted field's closing quote (a quote inside quotes is written "
                         "twice: \"\")" },
        { "a,,c\n1,2,3\n", "e.csv:1: field 2 of the header is empty (each field needs a name)" },
        { "\n\na,b,\n", "e.csv:3: field 3 of the header is empty (each field needs a name)" },
        { "a,b,c,b,a\n", "e.csv:1: field \"b\" is in the header twice (fields 2 and 4)" },
        { "\"id\",x,id\n", "e.csv:1: field \"id\" is in the header twice (fields 1 and 3)" },
        { "", "e.csv: no rows" },
        { "\xEF\xBB\xBF", "e.csv: no rows" },
        { "\n\r\n\n", "e.csv: no rows" },
        { "a,b\n", "e.csv: no rows after the header" },
        { "a,b\r\n\r\n", "e.csv: no rows after the header" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        check_ctx("case %zu", i);
        CHECK_STR(csv_error("e.csv", bad[i].text), bad[i].msg);
    }
    /* NUL bytes, in a plain field, a quoted one and a header. */
    CHECK_STR(open_error("nul.csv", "a\nx\0y\n", 6, DATA_CSV), "nul.csv:2: a NUL byte (a data file is text)");
    CHECK_STR(open_error("nul.csv", "a\n1\n\"x\n\0\"\n", 10, DATA_CSV), "nul.csv:4: a NUL byte (a data file is text)");
    CHECK_STR(open_error("nul.csv", "\0\n", 2, DATA_CSV), "nul.csv:1: a NUL byte (a data file is text)");
    check_ctx(NULL);
}

static void test_file_errors(void)
{
    char err[256];
    CHECK(data_open("missing.csv", DATA_CSV, ',', err, sizeof err) == NULL);
    CHECK_STR(err, "missing.csv: No such file or directory");
    CHECK(data_open("missing.txt", DATA_LINES, 0, err, sizeof err) == NULL);
    CHECK_STR(err, "missing.txt: No such file or directory");
    if (mkdir("adir", 0700) == 0) {
        CHECK(data_open("adir", DATA_LINES, 0, err, sizeof err) == NULL);
        CHECK_STR(err, "adir: Is a directory");
    }
    put("unreadable.txt", "x\n");
    if (chmod("unreadable.txt", 0) == 0 && access("unreadable.txt", R_OK) != 0) { /* not as root */
        CHECK(data_open("unreadable.txt", DATA_LINES, 0, err, sizeof err) == NULL);
        CHECK_STR(err, "unreadable.txt: Permission denied");
    }
    /* Larger than the limit: a sparse file, refused before it is read. */
    int fd = open("huge.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (CHECK(fd >= 0) && CHECK(ftruncate(fd, (off_t)DATA_MAX_BYTES + 1) == 0)) {
        CHECK(data_open("huge.txt", DATA_LINES, 0, err, sizeof err) == NULL);
        CHECK_STR(err, "huge.txt: larger than 1 GiB (the most a data file may hold)");
    }
    if (fd >= 0)
        close(fd);
    unlink("huge.txt");
    /* A failed open is not remembered: fixed, the file loads. */
    CHECK_STR(csv_error("fixed.csv", "a,b\n1\n"), "fixed.csv:2: 1 field where the header has 2");
    struct data *d = csv("fixed.csv", "a,b\n1,2\n");
    if (CHECK(d != NULL))
        CHECK_UINT(data_rows(d), 1);
}

static void test_lines(void)
{
    char err[256];
    put("l.txt", "\xEF\xBB\xBF/a\n/b\r\n\n\r\n/c d,\"e\"\r\n/last");
    struct data *d = data_open("l.txt", DATA_LINES, 0, err, sizeof err);
    if (!CHECK(d != NULL))
        return;
    CHECK_UINT(data_fields(d), 1);
    size_t len;
    CHECK(data_field_name(d, 0, &len) == NULL);
    CHECK_CELLS(d, "/a", "/b", "/c d,\"e\"", "/last"); /* quotes and commas are data */
    CHECK(data_cell(d, 0, 1, &len) == NULL);
    CHECK(data_cell(d, 4, 0, &len) == NULL);
    /* The separator is no part of a lines file's identity. */
    CHECK(data_open("l.txt", DATA_LINES, ';', err, sizeof err) == d);
    /* A lone CR is data; a line of one is not blank. */
    put("cr.txt", "a\rb\n\r\r\n");
    d = data_open("cr.txt", DATA_LINES, 0, err, sizeof err);
    if (CHECK(d != NULL))
        CHECK_CELLS(d, "a\rb", "\r");
    CHECK_STR(open_error("le.txt", "", 0, DATA_LINES), "le.txt: no rows");
    CHECK_STR(open_error("le.txt", "\n\r\n\n", 4, DATA_LINES), "le.txt: no rows");
    CHECK_STR(open_error("le.txt", "a\nb\n\nc\0d\n", 9, DATA_LINES), "le.txt:4: a NUL byte (a data file is text)");
}

/* A bytes file (volley.file's uploads): one cell, the file as it is, NULs,
 * CR and LF included; an empty one too; one copy per process, whatever its
 * other kinds; a missing one names its path. */
static void test_bytes(void)
{
    char err[256];
    size_t len;
    put_n("b.bin", "a\0\r\n,\"\n", 7);
    struct data *d = data_open("b.bin", DATA_BYTES, 0, err, sizeof err);
    if (!CHECK(d != NULL))
        return;
    CHECK_UINT(data_rows(d), 1);
    CHECK_UINT(data_fields(d), 1);
    const char *p = data_cell(d, 0, 0, &len);
    CHECK_MEM(p, len, "a\0\r\n,\"\n", 7);
    CHECK(data_open("b.bin", DATA_BYTES, ',', err, sizeof err) == d);
    CHECK(data_open("b.bin", DATA_LINES, 0, err, sizeof err) == NULL); /* as lines, its NUL is refused */
    put_n("e.bin", "", 0);
    d = data_open("e.bin", DATA_BYTES, 0, err, sizeof err);
    if (CHECK(d != NULL)) {
        CHECK(data_cell(d, 0, 0, &len) != NULL);
        CHECK_UINT(len, 0);
    }
    CHECK(data_open("no.bin", DATA_BYTES, 0, err, sizeof err) == NULL);
    CHECK_STR(err, "no.bin: No such file or directory");
}

/* Writes 20000 lines ("0\n" ...) into the FIFO fifo.txt: 108890 bytes,
 * more than the first buffer for a file of unknown size. */
static void *fill_fifo(void *arg)
{
    (void)arg;
    FILE *f = fopen("fifo.txt", "w");
    for (int i = 0; f && i < 20000; i++)
        fprintf(f, "%d\n", i);
    if (f)
        fclose(f);
    return NULL;
}

static void test_fifo(void)
{
    if (!CHECK(mkfifo("fifo.txt", 0600) == 0))
        return;
    pthread_t t;
    pthread_create(&t, NULL, fill_fifo, NULL);
    char err[256];
    struct data *d = data_open("fifo.txt", DATA_LINES, 0, err, sizeof err);
    pthread_join(t, NULL);
    if (!CHECK(d != NULL))
        return;
    CHECK_UINT(data_rows(d), 20000);
    CHECK_CELL(d, 0, 0, "0");
    CHECK_CELL(d, 19999, 0, "19999");
}

static void test_one_load(void)
{
    char err[256];
    struct data *a = csv("once.csv", "a\n1\n");
    /* The file changes, but the process keeps its first load. */
    put("once.csv", "b\n2\n3\n");
    struct data *b = data_open("once.csv", DATA_CSV, ',', err, sizeof err);
    CHECK(a != NULL && a == b);
    CHECK_UINT(data_rows(b), 1);
    /* The path as given is the key: another spelling is another load. */
    struct data *c = data_open("./once.csv", DATA_CSV, ',', err, sizeof err);
    CHECK(c != NULL && c != a);
    if (c)
        CHECK_UINT(data_rows(c), 2);
    /* The same path as lines: another load. */
    struct data *l = data_open("once.csv", DATA_LINES, 0, err, sizeof err);
    CHECK(l != NULL && l != a);
    if (l)
        CHECK_UINT(data_rows(l), 3);
}

#define THREADS 4
#define PER_THREAD 50000

struct worker {
    pthread_t t;
    struct data *d;
    const char *path;
    uint64_t *seen;
};

static void *open_same(void *arg)
{
    struct worker *w = arg;
    char err[256];
    w->d = data_open(w->path, DATA_LINES, 0, err, sizeof err);
    return NULL;
}

static void *count(void *arg)
{
    struct worker *w = arg;
    for (int i = 0; i < PER_THREAD; i++)
        w->seen[i] = data_next_iteration(w->d);
    return NULL;
}

static void test_threads(void)
{
    /* Opened from 4 threads at once: one load. */
    put("threads.txt", "1\n2\n3\n");
    struct worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (struct worker){ .path = "threads.txt" };
        pthread_create(&w[i].t, NULL, open_same, &w[i]);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(w[i].t, NULL);
    for (int i = 0; i < THREADS; i++)
        CHECK(w[i].d != NULL && w[i].d == w[0].d);
    if (!w[0].d)
        return;
    /* The counter from 4 threads: every value from 0 once. */
    uint8_t *hits = calloc(THREADS * PER_THREAD, 1);
    for (int i = 0; i < THREADS; i++) {
        w[i].seen = malloc(PER_THREAD * sizeof *w[i].seen);
        pthread_create(&w[i].t, NULL, count, &w[i]);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(w[i].t, NULL);
    int bad = 0;
    for (int i = 0; i < THREADS; i++) {
        for (int k = 0; k < PER_THREAD; k++) {
            uint64_t v = w[i].seen[k];
            if (v >= THREADS * PER_THREAD || hits[v]++)
                bad++;
            /* Each thread's own values only grow. */
            if (k > 0 && v <= w[i].seen[k - 1])
                bad++;
        }
        free(w[i].seen);
    }
    CHECK_INT(bad, 0);
    int missing = 0;
    for (int v = 0; v < THREADS * PER_THREAD; v++)
        missing += hits[v] != 1;
    CHECK_INT(missing, 0);
    CHECK_UINT(data_next_iteration(w[0].d), THREADS * PER_THREAD);
    free(hits);
}

/* 3 shards (3 processes: 3 loads of one file, under 3 paths) take 200
 * iterations each of a 600-row file: every row once; then the file wraps. */
static void test_shard_rule(void)
{
    char text[600 * 5], *p = text;
    for (int i = 0; i < 600; i++)
        p += sprintf(p, "%d\n", i);
    put("ids.txt", text);
    const char *paths[3] = { "ids.txt", "./ids.txt", "././ids.txt" };
    struct data *d[3];
    char err[256];
    for (int s = 0; s < 3; s++)
        if (!CHECK((d[s] = data_open(paths[s], DATA_LINES, 0, err, sizeof err)) != NULL))
            return;
    int hits[600] = { 0 };
    for (int k = 0; k < 200; k++)
        for (int s = 0; s < 3; s++) {
            uint32_t row = data_iteration_row(d[s], (uint32_t)s, 3);
            if (CHECK(row < 600))
                hits[row]++;
            if (k == 0)
                CHECK_UINT(row, s); /* iteration s of the whole run */
        }
    int off = 0;
    for (int i = 0; i < 600; i++)
        off += hits[i] != 1;
    CHECK_INT(off, 0);
    CHECK_UINT(data_iteration_row(d[1], 1, 3), 1); /* wrapped: 200 * 3 + 1 = 601 */
    /* One shard: the rows in order. */
    put("one.txt", "a\nb\nc\n");
    struct data *o = data_open("one.txt", DATA_LINES, 0, err, sizeof err);
    if (CHECK(o != NULL))
        for (uint32_t k = 0; k < 7; k++)
            CHECK_UINT(data_iteration_row(o, 0, 1), k % 3);
}

int main(void)
{
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror(dir);
        return 1;
    }
    test_csv_basic();
    test_csv_line_ends();
    test_csv_quotes();
    test_separator();
    test_csv_errors();
    test_file_errors();
    test_lines();
    test_bytes();
    test_fifo();
    test_one_load();
    test_threads();
    test_shard_rule();
    /* The files go; their loads stay in memory. */
    char rm[64];
    snprintf(rm, sizeof rm, "rm -rf -- '%s'", dir);
    if (chdir("/") != 0 || system(rm) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_exit("test_data");
}
