/* unit test for series_store.c through series.h: points appended to a
 * series without recorders (as when one is rebuilt from a saved result)
 * read back exactly, hist text included, from the temporary file; the same
 * when the file cannot be made ($TMPDIR missing: memory) and when it stops
 * being writable midway (a file size limit: the rest in memory), with no
 * point lost; the JSON "series" is the same whichever way they were kept;
 * nothing is left in $TMPDIR. */
#include "report_internal.h"
#include "series.h"

#include "../check.h"
#include "xalloc.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define N 40

/* Point i, with a hist text of a length that varies (none for every 5th). */
static struct series_point point(size_t i, char *text, size_t cap)
{
    struct series_point p;
    memset(&p, 0, sizeof p);
    p.c.requests = 1000 + i;
    p.c.bytes = 123456789ull * i;
    p.c.status[1] = 990 + i;
    p.c.errors[2] = i % 3;
    p.c.sent = 7 * i;
    p.latency_count = i % 5 ? 1000 + i : 0;
    p.p50 = 1000 * (int64_t)i;
    p.p90 = 2000 * (int64_t)i;
    p.p99 = 3000 * (int64_t)i;
    p.max = 4000 * (int64_t)i;
    p.sendlag_count = i;
    p.sendlag_p50 = 5 * (int64_t)i;
    p.sendlag_p99 = 9 * (int64_t)i;
    p.span_ns = SERIES_NS; /* what series_point_get says of a whole second */
    if (i % 5) {
        size_t len = (i * 97) % (cap - 1);
        for (size_t k = 0; k < len; k++)
            text[k] = (char)('A' + (i + k) % 26);
        text[len] = '\0';
        p.hist = text;
    }
    return p;
}

static void fill(struct series *s)
{
    static char text[5000];
    series_init(s, NULL, 0);
    for (size_t i = 0; i < N; i++) {
        struct series_point p = point(i, text, sizeof text);
        series_append(s, &p);
        CHECK_UINT(s->npoints, i + 1);
        CHECK_UINT(s->last.c.requests, p.c.requests);
        CHECK(s->last.hist == NULL);
    }
}

static void check_points(const struct series *s, const char *how)
{
    char want_text[5000];
    char *hist = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < N; i++) {
        check_ctx("%s: point %zu", how, i);
        struct series_point want = point(i, want_text, sizeof want_text), got;
        CHECK_INT(series_point_get(s, i, &got, &hist, &cap), 0);
        CHECK_STR(got.hist, want.hist);
        got.hist = want.hist = NULL;
        CHECK(memcmp(&got, &want, sizeof got) == 0);
        CHECK_INT(series_point_get(s, i, &got, NULL, NULL), 0);
        CHECK(got.hist == NULL);
        CHECK_UINT(got.c.requests, 1000 + i);
    }
    check_ctx(NULL);
    free(hist);
}

static char *series_json(const struct series *s)
{
    struct options o;
    memset(&o, 0, sizeof o);
    o.rate = 100;
    struct run_result r;
    memset(&r, 0, sizeof r);
    r.series = *s;
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    report_series_json(f, &o, &r);
    fclose(f);
    return out;
}

/* Entries in dir other than . and .. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

int main(void)
{
    char dir[] = "/tmp/volley-series-test.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    setenv("TMPDIR", dir, 1);

    struct series spooled;
    fill(&spooled);
    check_points(&spooled, "spooled");
    CHECK_INT(entries(dir), 0); /* the files have no name */
    char *json_spooled = series_json(&spooled);
    /* A run that ends 250 ms into its last second: that point covers 250
     * ms, the others a whole second (issue 21, item 15). */
    spooled.end_ns = (int64_t)(N - 1) * SERIES_NS + 250000000;
    struct series_point pt;
    CHECK_INT(series_point_get(&spooled, N - 1, &pt, NULL, NULL), 0);
    CHECK_INT(pt.span_ns, 250000000);
    CHECK_INT(series_point_span(&spooled, N - 2), SERIES_NS);
    CHECK_INT(series_point_span(&spooled, 0), SERIES_NS);
    spooled.end_ns = (int64_t)N * SERIES_NS; /* ends on the second: whole */
    CHECK_INT(series_point_span(&spooled, N - 1), SERIES_NS);
    spooled.end_ns = 0;
    series_free(&spooled);

    /* No temporary folder: in memory (one line on stderr). */
    char missing[sizeof dir + 8];
    snprintf(missing, sizeof missing, "%s/none", dir);
    setenv("TMPDIR", missing, 1);
    struct series mem;
    fill(&mem);
    check_points(&mem, "memory");
    char *json_mem = series_json(&mem);
    series_free(&mem);
    CHECK_STR(json_mem, json_spooled);

    /* Files that stop taking writes midway (a 16 KiB size limit): the
     * points before are read from them, the rest from memory. */
    setenv("TMPDIR", dir, 1);
    struct rlimit old, low;
    getrlimit(RLIMIT_FSIZE, &old);
    low = old;
    low.rlim_cur = 16384;
    signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &low);
    struct series half;
    fill(&half);
    setrlimit(RLIMIT_FSIZE, &old);
    check_points(&half, "half");
    char *json_half = series_json(&half);
    series_free(&half);
    CHECK_STR(json_half, json_spooled);
    CHECK_CONTAINS(json_spooled, "{\"t\": 39, \"requests\": 1039, ");

    /* A series with no points: no file, nothing to free but itself. */
    struct series none;
    series_init(&none, NULL, 0);
    CHECK(none.store == NULL);
    series_free(&none);

    CHECK_INT(entries(dir), 0);
    rmdir(dir);
    free(json_spooled);
    free(json_mem);
    free(json_half);
    return check_exit("test_series_store");
}
