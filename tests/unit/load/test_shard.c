/* unit test for shard.c, source.c and the shards' part of schedule.c and
 * stats.c: --shard's and --source's parsing and every error; the parts of
 * a split count add up to it; the union of every shard's workers' lanes is
 * the one-process schedule, arrival for arrival; the default run id
 * follows the settings and the start; request names of two results line
 * up by name. */
#include "schedule.h"
#include "shard.h"
#include "source.h"
#include "stats.h"

#include "../check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>

static void test_parse(void)
{
    struct shard s;
    char err[256];
    CHECK_INT(shard_parse("0/1", &s, err, sizeof err), 0);
    CHECK_UINT(s.index, 0);
    CHECK_UINT(s.count, 1);
    CHECK_INT(shard_parse("2/3", &s, err, sizeof err), 0);
    CHECK_UINT(s.index, 2);
    CHECK_UINT(s.count, 3);
    CHECK_INT(shard_parse("99999/100000", &s, err, sizeof err), 0);
    static const struct {
        const char *spec, *msg;
    } bad[] = {
        {"3/3", "--shard: \"3/3\": I must be below N (shards count from 0: 0/3 .. 2/3)"},
        {"0/0", "--shard: \"0/0\": N is out of range (1..100000)"},
        {"0/100001", "--shard: \"0/100001\": N is out of range (1..100000)"},
        {"1", "--shard: \"1\" is not I/N (shard I of N, counting from 0: 0/3, 1/3, 2/3)"},
        {"-1/3", "--shard: \"-1/3\" is not I/N (shard I of N, counting from 0: 0/3, 1/3, 2/3)"},
        {"1/3x", "--shard: \"1/3x\" is not I/N (shard I of N, counting from 0: 0/3, 1/3, 2/3)"},
        {"/3", "--shard: \"/3\" is not I/N (shard I of N, counting from 0: 0/3, 1/3, 2/3)"},
        {"1/", "--shard: \"1/\" is not I/N (shard I of N, counting from 0: 0/3, 1/3, 2/3)"},
        {"99999999999/3", "--shard: \"99999999999/3\" is not I/N (shard I of N, counting from 0: 0/3, 1/3, 2/3)"},
        {"1 /3", "--shard: \"1 /3\" is not I/N (shard I of N, counting from 0: 0/3, 1/3, 2/3)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        check_ctx("%s", bad[i].spec);
        CHECK_INT(shard_parse(bad[i].spec, &s, err, sizeof err), -1);
        CHECK_STR(err, bad[i].msg);
    }
    check_ctx(NULL);
}

/* The parts of any total over any count add up to it and differ by at
 * most one, the larger first. */
static void test_parts(void)
{
    static const uint64_t totals[] = {0, 1, 2, 5, 6, 7, 1000, 3001, 100000, UINT64_C(1) << 62};
    static const uint32_t counts[] = {1, 2, 3, 6, 7, 1000, 100000};
    for (size_t i = 0; i < sizeof totals / sizeof totals[0]; i++)
        for (size_t j = 0; j < sizeof counts / sizeof counts[0]; j++) {
            uint64_t sum = 0, first = shard_part(totals[i], (struct shard){0, counts[j]});
            check_ctx("total %llu over %u", (unsigned long long)totals[i], counts[j]);
            for (uint32_t k = 0; k < counts[j]; k++) {
                uint64_t p = shard_part(totals[i], (struct shard){k, counts[j]});
                CHECK(p == first || p + 1 == first);
                sum += p;
            }
            CHECK_UINT(sum, totals[i]);
        }
    check_ctx(NULL);
    CHECK_UINT(shard_part(3001, (struct shard){0, 3}), 1001);
    CHECK_UINT(shard_part(3001, (struct shard){1, 3}), 1000);
    CHECK_UINT(shard_part(7, (struct shard){0, 0}), 7); /* a zeroed struct: the whole run */
}

static void no_send(void *arg, uint32_t slot, int64_t intended, int64_t now)
{
    (void)arg, (void)slot, (void)intended, (void)now;
}

static void no_end(void *arg)
{
    (void)arg;
}

/* N shards of W workers each: every arrival of the one-process schedule
 * of a run (rate, total) is sent by exactly one worker of one shard, at
 * the same due time. */
static void check_union(struct ev_loop *loop, uint64_t rate, uint64_t total, uint32_t n, uint32_t w)
{
    check_ctx("rate %llu, %llu arrivals, %u shards of %u workers", (unsigned long long)rate,
              (unsigned long long)total, n, w);
    struct sched one;
    sched_init(&one, loop, rate, 0, 1, total, 1, 1, no_send, no_end, NULL);
    unsigned char *seen = calloc(total ? total : 1, 1);
    uint64_t sent = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < w; k++) {
            struct shard sh = {i, n};
            uint64_t count = sched_share(total, (uint32_t)shard_lane(sh, k), w * n);
            struct sched s;
            sched_init(&s, loop, rate, (uint32_t)shard_lane(sh, k), w * n, count, 1, 1, no_send, no_end, NULL);
            for (uint64_t j = 0; j < count; j++) {
                uint64_t g = shard_lane(sh, k) + j * (uint64_t)w * n; /* the global arrival */
                CHECK(g < total);
                if (g >= total)
                    break;
                CHECK_INT(g % n, i); /* shard i owns k mod N == i */
                CHECK_INT(seen[g], 0);
                seen[g] = 1;
                CHECK_INT(sched_time(&s, j), sched_time(&one, g));
            }
            sent += count;
            sched_free(&s);
        }
    CHECK_UINT(sent, total);
    free(seen);
    sched_free(&one);
    check_ctx(NULL);
}

static void test_union(void)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    check_union(loop, 300, 600, 3, 1);
    check_union(loop, 300, 601, 3, 2);
    check_union(loop, 7, 1000, 6, 2);
    check_union(loop, 100000, 12345, 7, 3);
    check_union(loop, 3, 10, 4, 4);
    check_union(loop, 1000, 5, 8, 1); /* fewer arrivals than lanes: some send none */
    ev_loop_destroy(loop);
}

static void test_ids(void)
{
    char a[SHARD_ID_MAX + 1], b[SHARD_ID_MAX + 1], c[SHARD_ID_MAX + 1];
    shard_default_id("http://x/|GET|c=6", 1767225600.25, a, sizeof a);
    shard_default_id("http://x/|GET|c=6", 1767225600.25, b, sizeof b);
    CHECK_STR(a, b);
    CHECK_INT((long long)strlen(a), 17);
    CHECK(a[0] == 'r');
    CHECK(shard_id_valid(a));
    shard_default_id("http://x/|GET|c=7", 1767225600.25, c, sizeof c);
    CHECK(strcmp(a, c) != 0);
    shard_default_id("http://x/|GET|c=6", 1767225600.250001, c, sizeof c);
    CHECK(strcmp(a, c) != 0);
    CHECK(shard_id_valid("nightly-2026.12.01_a"));
    CHECK(!shard_id_valid(""));
    CHECK(!shard_id_valid("a b"));
    CHECK(!shard_id_valid("a/b"));
    CHECK(!shard_id_valid("\xc3\xa9"));
    CHECK(!shard_id_valid("0123456789012345678901234567890123456789012345678901234567890123x"));
    CHECK(shard_id_valid("0123456789012345678901234567890123456789012345678901234567890123"));
}

static const char *v4s(const struct sources *s, uint64_t c, char *buf)
{
    const struct sockaddr_in *in = (const struct sockaddr_in *)sources_pick(s, c);
    return inet_ntop(AF_INET, &in->sin_addr, buf, INET_ADDRSTRLEN);
}

static void test_sources(void)
{
    struct sources s;
    char err[256], buf[INET6_ADDRSTRLEN];
    CHECK_INT(sources_parse("127.0.0.2-127.0.0.4,127.0.0.9", &s, err, sizeof err), 0);
    CHECK_UINT(s.n, 4);
    CHECK_INT(s.family, AF_INET);
    CHECK_INT(s.len, (int)sizeof(struct sockaddr_in));
    CHECK_STR(v4s(&s, 0, buf), "127.0.0.2");
    CHECK_STR(v4s(&s, 2, buf), "127.0.0.4");
    CHECK_STR(v4s(&s, 3, buf), "127.0.0.9");
    CHECK_STR(v4s(&s, 5, buf), "127.0.0.3"); /* round robin */
    CHECK_INT(((const struct sockaddr_in *)sources_pick(&s, 1))->sin_port, 0);
    sources_free(&s);
    CHECK_INT(sources_parse("127.0.0.255-127.0.1.1", &s, err, sizeof err), 0); /* across an octet */
    CHECK_UINT(s.n, 3);
    CHECK_STR(v4s(&s, 1, buf), "127.0.1.0");
    sources_free(&s);
    CHECK_INT(sources_parse("::1", &s, err, sizeof err), 0);
    CHECK_INT(s.family, AF_INET6);
    CHECK_INT(s.len, (int)sizeof(struct sockaddr_in6));
    sources_free(&s);
    CHECK_INT(sources_parse("127.0.0.0-127.0.255.255", &s, err, sizeof err), 0);
    CHECK_UINT(s.n, SOURCE_MAX);
    sources_free(&s);
    static const struct {
        const char *spec, *msg;
    } bad[] = {
        {"", "--source: \"\": an empty item (addresses are separated by single commas)"},
        {"127.0.0.2,", "--source: \"127.0.0.2,\": an empty item (addresses are separated by single commas)"},
        {"127.0.0.2,,127.0.0.3", "--source: \"127.0.0.2,,127.0.0.3\": an empty item (addresses are separated by single commas)"},
        {"localhost", "--source: \"localhost\" is not a numeric IP address (e.g. 127.0.0.2, ::1, 127.0.0.2-127.0.0.9)"},
        {"127.0.0.300", "--source: \"127.0.0.300\" is not a numeric IP address (e.g. 127.0.0.2, ::1, 127.0.0.2-127.0.0.9)"},
        {"127.0.0.9-127.0.0.2", "--source: \"127.0.0.9-127.0.0.2\": the range ends before it starts"},
        {"127.0.0.1-x", "--source: \"127.0.0.1-x\" is not a range of IPv4 addresses (e.g. 127.0.0.2-127.0.0.9)"},
        {"::1-::2", "--source: \"::1-::2\" is not a range of IPv4 addresses (e.g. 127.0.0.2-127.0.0.9)"},
        {"127.0.0.1,::1", "--source: \"::1\": every address must be of one family (IPv4 or IPv6, as the first)"},
        {"127.0.0.0-127.1.0.0", "--source: \"127.0.0.0-127.1.0.0\": more than 65536 addresses"},
        {"127.0.0.0-127.0.255.255,127.1.0.0", "--source: more than 65536 addresses"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        check_ctx("%s", bad[i].spec);
        CHECK_INT(sources_parse(bad[i].spec, &s, err, sizeof err), -1);
        CHECK_STR(err, bad[i].msg);
        CHECK(s.addr == NULL);
    }
    check_ctx(NULL);
}

/* Two results' names: "b" and "a" in one, "a" and "c" in the other. */
static void test_align_names(void)
{
    struct stats dst, src;
    stats_init(&dst);
    stats_init(&src);
    stats_name_add(&dst, 0, "b")->started = 1;
    stats_name_add(&dst, 1, "a")->started = 2;
    stats_name_add(&src, 0, "a")->started = 10;
    stats_name_add(&src, 1, "c")->started = 20;
    CHECK_INT(stats_align_names(&src, &dst), 0);
    stats_merge(&dst, &src);
    CHECK_UINT(dst.nnames, 3);
    CHECK_STR(dst.names[0]->name, "b");
    CHECK_UINT(dst.names[0]->started, 1);
    CHECK_STR(dst.names[1]->name, "a");
    CHECK_UINT(dst.names[1]->started, 12);
    CHECK_STR(dst.names[2]->name, "c");
    CHECK_UINT(dst.names[2]->started, 20);
    stats_free(&src);
    stats_free(&dst);
}

int main(void)
{
    test_parse();
    test_parts();
    test_union();
    test_ids();
    test_sources();
    test_align_names();
    return check_exit("test_shard");
}
