/* unit test for names.c (the run's request names) and the per-name
 * figures of stats.c: a name gets one id however often and from however
 * many threads it is interned, ids follow first use, the cap refuses new
 * names but keeps the old ones; per-name figures merge by id into the same
 * histograms a whole-run merge gives, and are found by name. */
#include "names.h"
#include "stats.h"

#include "../check.h"

#include <stdio.h>
#include <string.h>

static void test_intern(void)
{
    struct names ns;
    names_init(&ns);
    CHECK_INT(names_intern(&ns, "item", 4), 0);
    CHECK_INT(names_intern(&ns, "login", 5), 1);
    CHECK_INT(names_intern(&ns, "item", 4), 0);
    CHECK_INT(names_intern(&ns, "items", 4), 0); /* len bytes only */
    CHECK_INT(names_intern(&ns, "ite", 3), 2);
    CHECK_STR(ns.name[2], "ite");
    CHECK_UINT(names_count(&ns), 3);
    char buf[32];
    for (int i = 3; i < NAMES_MAX; i++) {
        snprintf(buf, sizeof buf, "n%d", i);
        CHECK_INT(names_intern(&ns, buf, strlen(buf)), i);
    }
    CHECK_INT(names_intern(&ns, "one more", 8), -1);
    CHECK_INT(names_intern(&ns, "login", 5), 1); /* old names still resolve */
    snprintf(buf, sizeof buf, "n%d", NAMES_MAX - 1);
    CHECK_INT(names_intern(&ns, buf, strlen(buf)), NAMES_MAX - 1);
    CHECK_UINT(names_count(&ns), NAMES_MAX);
    names_free(&ns);
}

/* Threads interning the same names at once agree on every id. */
struct racer {
    struct names *ns;
    int ids[64];
};

static void *race(void *arg)
{
    struct racer *r = arg;
    char buf[16];
    for (int i = 0; i < 64; i++) {
        snprintf(buf, sizeof buf, "x%d", i);
        r->ids[i] = names_intern(r->ns, buf, strlen(buf));
    }
    return NULL;
}

static void test_threads(void)
{
    struct names ns;
    names_init(&ns);
    struct racer r[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        r[i].ns = &ns;
        pthread_create(&t[i], NULL, race, &r[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    CHECK_UINT(names_count(&ns), 64);
    for (int i = 1; i < 4; i++)
        CHECK_MEM((const char *)r[i].ids, sizeof r[i].ids, (const char *)r[0].ids, sizeof r[0].ids);
    for (int i = 0; i < 64; i++) {
        char buf[16];
        snprintf(buf, sizeof buf, "x%d", i);
        CHECK_STR(ns.name[r[0].ids[i]], buf);
    }
    names_free(&ns);
}

/* Two workers' named requests: the merge adds them by id; the names'
 * latency histograms merge into the run's exactly. */
static void test_merge(void)
{
    struct stats w[2], all;
    stats_init(&all);
    for (int i = 0; i < 2; i++) {
        stats_init(&w[i]);
        stats_init_slots(&w[i], 1);
    }
    stats_name_add(&w[0], 0, "login");
    stats_name_add(&w[0], 1, "item");
    stats_name_add(&w[1], 1, "item"); /* worker 1 never logs in */
    for (int i = 0; i < 2; i++) {
        for (int k = 0; k < 1000; k++) {
            uint32_t name = i == 0 && k < 3 ? 1 : 2;
            int64_t v = 1000 + (int64_t)k * 7919 % 5000000 + i;
            stats_name_started(&w[i], name, 1);
            stats_complete(&w[i], 0, k % 10 ? 200 : 404, v, 0, 0);
            stats_name_complete(&w[i], name, 0, k % 10 ? 200 : 404, v);
        }
        stats_name_started(&w[i], 2, 2);
        stats_name_rejected(&w[i], 2, true, 500, false);
        stats_name_fail(&w[i], 2, STATS_ERR_TIMEOUT, 1, 0, false, 0);
        stats_name_reason(&w[i], 1, i ? "b" : "a", 1);
    }
    stats_name_reason(&w[0], 1, "b", 1);
    for (int i = 0; i < 2; i++) {
        stats_finish(&w[i]);
        stats_merge(&all, &w[i]);
    }
    stats_sort_reasons(&all);
    CHECK_UINT(all.nnames, 2);
    const struct stats_name *login = stats_name_find(&all, "login"), *item = stats_name_find(&all, "item");
    CHECK(login && item && !stats_name_find(&all, "nope"));
    CHECK(login == all.names[0] && item == all.names[1]);
    CHECK_UINT(login->completed, 3);
    CHECK_UINT(item->completed, 1997);
    CHECK_UINT(item->started, 2001);
    CHECK_UINT(stats_name_failed(item), 4);
    CHECK_UINT(item->errors[STATS_ERR_VALIDATION], 2);
    CHECK_UINT(item->status[500], 2);
    CHECK_UINT(login->status[404], 1);
    CHECK_UINT(item->nreasons, 2);
    CHECK_STR(item->reasons[0].reason, "b"); /* 2 before a's 1 */
    CHECK_UINT(item->reasons[0].count, 2);
    /* The names' histograms merged are the run's. */
    struct hist h;
    hist_init_default(&h);
    hist_merge(&h, &login->latency);
    hist_merge(&h, &item->latency);
    CHECK_INT(h.count, all.latency.count);
    CHECK_INT(h.min, all.latency.min);
    CHECK_INT(h.max, all.latency.max);
    CHECK(h.sum == all.latency.sum && h.sum_sq == all.latency.sum_sq);
    CHECK_MEM((const char *)h.counts, (size_t)h.counts_len * sizeof *h.counts, (const char *)all.latency.counts,
              (size_t)all.latency.counts_len * sizeof *all.latency.counts);
    hist_free(&h);
    for (int i = 0; i < 2; i++)
        stats_free(&w[i]);
    stats_free(&all);
}

/* Default names through two workers' caches: one id per "METHOD path"
 * whoever met it first, a given name of the same text shared, the bound
 * (NAMES_DEFAULT_MAX) then NAMES_OVERFLOW for new texts in both caches,
 * old and given names still found. */
static void test_default(void)
{
    struct names ns;
    names_init(&ns);
    struct names_cache a = {.ns = &ns}, b = {.ns = &ns};
    CHECK_INT(names_intern(&ns, "GET /given", 10), 0);
    CHECK_INT(names_cache_default(&a, "GET", 3, "/x", 2), 1);
    CHECK_STR(ns.name[1], "GET /x");
    CHECK_INT(names_cache_default(&a, "GET", 3, "/x", 2), 1);
    CHECK_INT(names_cache_default(&b, "GET", 3, "/x", 2), 1);     /* made by a, found by b */
    CHECK_INT(names_cache_default(&b, "POST", 4, "/x", 2), 2);
    CHECK_INT(names_cache_default(&a, "GET", 3, "/given", 6), 0); /* a given name of that text */
    char buf[32];
    for (int i = 2; i < NAMES_DEFAULT_MAX; i++) {
        snprintf(buf, sizeof buf, "/p%d", i);
        CHECK_INT(names_cache_default(i % 2 ? &a : &b, "GET", 3, buf, strlen(buf)), i + 1);
    }
    CHECK(!names_default_full(&ns));
    int over = names_cache_default(&a, "GET", 3, "/one/more", 9);
    CHECK_INT(over, NAMES_DEFAULT_MAX + 1);
    CHECK_STR(ns.name[over], NAMES_OVERFLOW);
    CHECK(names_default_full(&ns));
    CHECK_INT(names_cache_default(&b, "GET", 3, "/another", 8), over);
    CHECK_INT(names_cache_default(&a, "GET", 3, "/one/more", 9), over);
    CHECK_INT(names_cache_default(&b, "POST", 4, "/x", 2), 2);    /* old ones still resolve */
    CHECK_INT(names_intern(&ns, "GET /late", 9), over + 1);        /* a given name made after */
    CHECK_INT(names_cache_default(&b, "GET", 3, "/late", 5), over + 1);
    CHECK_UINT(ns.ndefault, NAMES_DEFAULT_MAX);
    names_cache_free(&a);
    names_cache_free(&b);
    names_free(&ns);
}

int main(void)
{
    test_intern();
    test_threads();
    test_merge();
    test_default();
    return check_exit("test_names");
}
