/* unit test for intervals.c and intervals_log.c (--hlog): the log written
 * as the run goes, with collects between the workers' records, is byte for
 * byte the log written at once at the end; collect writes an interval only
 * when every worker still running is past it (one that stopped holds
 * nothing back, one that records nothing moves on at its tick) and frees
 * what it wrote; empty intervals get their lines; only the interval
 * holding the end is shorter; a request name's lines (its tag escaped)
 * start at its first interval with a value, and a group's likewise, after
 * the names; a flow's iterations are a tag of their own; each series'
 * intervals add up to what was recorded of it. */
#include "intervals.h"

#include "../check.h"
#include "hdr_codec.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

#define T0 INT64_C(5000000000)
#define LEN INT64_C(500000000) /* 500 ms */
#define W 3

struct out {
    char *text;
    size_t len;
    FILE *f;
};

static void out_open(struct out *o)
{
    o->text = NULL;
    o->len = 0;
    o->f = open_memstream(&o->text, &o->len);
}

/* Interval lines written so far (flushed). */
static int lines(const struct out *o)
{
    int n = 0;
    for (size_t i = 0; i < o->len; i++)
        if (o->text[i] == '\n' && i + 1 < o->len && o->text[i + 1] != '#' && o->text[i + 1] != '"')
            n++;
    return n;
}

/* The values in the lines tagged tag (NULL: untagged), summed. */
static uint64_t tag_count(const struct out *o, const char *tag)
{
    char want[64];
    snprintf(want, sizeof want, "\n%s%s,", tag ? "Tag=" : "", tag ? tag : "");
    uint64_t n = 0;
    for (const char *p = strstr(o->text, want); p; p = strstr(p + 1, want)) {
        const char *b64 = strstr(p, "HISTF"), *eol = strchr(p + 1, '\n');
        if (!tag && !(p[1] >= '0' && p[1] <= '9'))
            continue;
        CHECK(b64 && eol && b64 < eol);
        if (!b64 || !eol)
            return 0;
        struct hist h;
        char err[256];
        CHECK_INT(hdr_decode(b64, (size_t)(eol - b64), &h, err, sizeof err), 0);
        n += h.count;
        hist_free(&h);
    }
    return n;
}

/* The run's request names and group names (names.h's name[]). */
static char *const names[] = {"item", "a b,c%\n"};
static char *const groups[] = {"checkout", "never"};

/* all: every tag, request names and groups; else latency alone. */
static void start(struct intervals *iv, struct intervals_log *l, struct out *o, bool all)
{
    struct intervals **ivs = xcalloc(W, sizeof *ivs);
    for (int w = 0; w < W; w++) {
        intervals_init(&iv[w], LEN, all ? IV_BIT(IV_TAGS) - 1 : 0);
        intervals_start(&iv[w], T0);
        ivs[w] = &iv[w];
    }
    out_open(o);
    intervals_log_start(l, o->f, ivs, W, T0, 1700000000.25, "test", all ? names : NULL, all ? groups : NULL);
}

static void end(struct intervals *iv, struct intervals_log *l, struct out *o, int64_t at)
{
    char err[256];
    for (int w = 0; w < W; w++)
        intervals_finish(&iv[w]);
    CHECK_INT(intervals_log_finish(l, at, err, sizeof err), 0);
    intervals_log_free(l);
    for (int w = 0; w < W; w++)
        intervals_free(&iv[w]);
    fclose(o->f);
}

/* What run() recorded of the iterations and of group 0. */
static uint64_t recorded_iterations, recorded_group;

/* Worker w's values, in time order over all workers: worker 1 records
 * nothing in intervals 4..6, nobody in interval 8; the run ends at 5.3 s.
 * With stream, the log collects every few records. */
static void run(struct out *o, bool stream)
{
    struct intervals iv[W];
    struct intervals_log l;
    start(iv, &l, o, true);
    recorded_iterations = recorded_group = 0;
    for (int w = 0; w < W; w++) {
        intervals_add_name(&iv[w], 0);
        intervals_add_name(&iv[w], 1);
        intervals_add_group(&iv[w], 0);
        intervals_add_group(&iv[w], 1); /* made, never recorded: no lines */
    }
    for (int64_t now = T0; now < T0 + INT64_C(5300000000); now += 3000000) {
        uint64_t idx = (uint64_t)((now - T0) / LEN);
        for (int w = 0; w < W; w++) {
            int64_t k = (now - T0) / 3000000;
            if ((w == 1 && idx >= 4 && idx <= 6) || idx == 8 || (k + w) % (w + 2))
                continue;
            intervals_record(&iv[w], now, IV_LATENCY, 1000 + k * 12345 + w);
            if (k % 3)
                intervals_record(&iv[w], now, IV_SERVICE, 500 + k * 999);
            intervals_record(&iv[w], now, IV_SENDLAG, 10 + k);
            /* name 0 every time; name 1 from interval 3 on, in worker 2 */
            intervals_record_name(&iv[w], now, 0, 1000 + k * 12345 + w);
            if (w == 2 && idx >= 3)
                intervals_record_name(&iv[w], now, 1, 77 + k);
            /* iterations in every worker; group 0 from interval 2 (1 s) on, in worker 0 */
            if (k % 2) {
                intervals_record(&iv[w], now, IV_ITERATION, 5000 + k * 777);
                recorded_iterations++;
            }
            if (w == 0 && idx >= 2) {
                intervals_record_group(&iv[w], now, 0, 3000 + k);
                recorded_group++;
            }
        }
        if (stream && (now - T0) % 100000000 == 0) {
            for (int w = 0; w < W; w++)
                intervals_tick(&iv[w], now);
            intervals_log_collect(&l);
        }
    }
    if (stream) {
        /* Streamed: everything but the last interval (and the one before,
         * not yet past for all at the last collect) is out already, and
         * every line written is a whole one. */
        CHECK(lines(o) >= 4 * 9);
        CHECK(!strstr(o->text, ",0.300,"));
    }
    end(iv, &l, o, T0 + INT64_C(5300000001));
}

static void test_same_bytes(void)
{
    struct out once, streamed;
    run(&once, false);
    run(&streamed, true);
    CHECK_MEM(streamed.text, streamed.len, once.text, once.len);
    /* 11 intervals (0 .. 10, the last 0.300 s), 4 tags each, 8 empty;
     * name 0 in each, name 1 in 3 .. 10; group 0 in 2 .. 10 */
    CHECK_INT(lines(&once), 44 + 11 + 8 + 9);
    CHECK_CONTAINS(once.text, "\n4.000,0.500,0.000,HISTF");
    CHECK_CONTAINS(once.text, "\nTag=sendlag,5.000,0.300,");
    CHECK_CONTAINS(once.text, "\nTag=sendlag,0.000,0.500,");
    CHECK_CONTAINS(once.text, "\nTag=name:item,0.000,0.500,");
    CHECK_CONTAINS(once.text, "\nTag=name:item,4.000,0.500,0.000,HISTF"); /* empty: its line all the same */
    CHECK_CONTAINS(once.text, "\nTag=name:a%20b%2Cc%25%0A,1.500,0.500,");
    CHECK(!strstr(once.text, "Tag=name:a%20b%2Cc%25%0A,1.000,"));
    /* In each interval the names come after the other tags, in id order. */
    const char *a = strstr(once.text, "\nTag=sendlag,2.000,"), *b = strstr(once.text, "\nTag=name:item,2.000,"),
               *c = strstr(once.text, "\nTag=name:a%20b%2Cc%25%0A,2.000,");
    CHECK(a && b && c && a < b && b < c);
    /* Iterations after the other fixed tags; groups after the names. */
    const char *it = strstr(once.text, "\nTag=iteration,2.000,"), *g = strstr(once.text, "\nTag=group:checkout,2.000,");
    CHECK(it && g && a < it && it < b && c < g);
    CHECK_CONTAINS(once.text, "\nTag=iteration,4.000,0.500,0.000,HISTF"); /* empty: its line all the same */
    CHECK_CONTAINS(once.text, "\nTag=group:checkout,4.000,0.500,0.000,HISTF");
    CHECK(!strstr(once.text, "Tag=group:checkout,0.500,"));
    CHECK(!strstr(once.text, "Tag=group:never"));
    /* Each series' intervals add up to what was recorded of it. */
    CHECK(recorded_iterations > 0 && recorded_group > 0);
    CHECK_UINT(tag_count(&once, "iteration"), recorded_iterations);
    CHECK_UINT(tag_count(&once, "group:checkout"), recorded_group);
    free(once.text);
    free(streamed.text);
}

/* Collect waits for the slowest running worker; a stopped one is past
 * everything; an idle one moves on at its tick; what is written is freed. */
static void test_collect(void)
{
    struct intervals iv[W];
    struct intervals_log l;
    struct out o;
    start(iv, &l, &o, false);
    for (int w = 0; w < W; w++)
        intervals_record(&iv[w], T0 + 1, IV_LATENCY, 1000);
    intervals_record(&iv[0], T0 + 3 * LEN, IV_LATENCY, 1000); /* worker 0 in interval 3 */
    intervals_record(&iv[1], T0 + 2 * LEN, IV_LATENCY, 1000); /* worker 1 in interval 2 */
    intervals_log_collect(&l);
    CHECK_INT(lines(&o), 0); /* worker 2 is still in interval 0 */
    intervals_tick(&iv[2], T0 + LEN + 7);                    /* idle: it moves to interval 1 */
    intervals_log_collect(&l);
    CHECK_INT(lines(&o), 1);
    CHECK_UINT(l.next, 1);
    for (int w = 0; w < W; w++)
        CHECK_UINT(l.q[w].n, 0); /* interval 0 written and freed; nothing else handed over */
    intervals_finish(&iv[2]); /* stops: past everything */
    intervals_log_collect(&l);
    CHECK_INT(lines(&o), 2); /* worker 1 is in interval 2 */
    intervals_record(&iv[1], T0 + 3 * LEN + 5, IV_LATENCY, 1000);
    intervals_log_collect(&l);
    CHECK_INT(lines(&o), 3);
    intervals_record(&iv[0], T0 + 4 * LEN, IV_LATENCY, 1000); /* hands interval 3 over */
    intervals_log_collect(&l);
    CHECK_INT(lines(&o), 3); /* worker 1 is in interval 3 */
    CHECK_UINT(l.q[0].n, 1); /* worker 0's interval 3 waits */
    CHECK_UINT(l.q[1].n, 0);
    intervals_finish(&iv[0]);
    intervals_finish(&iv[1]);
    intervals_log_collect(&l); /* all stopped: the rest waits for the end */
    CHECK_INT(lines(&o), 3);
    end(iv, &l, &o, T0 + 4 * LEN + 1);
    CHECK_INT(lines(&o), 5);
    CHECK_CONTAINS(o.text, "\n2.000,0.000,");
    free(o.text);
}

static void test_name_tag(void)
{
    char buf[16];
    intervals_tag("name:", "item", buf, sizeof buf);
    CHECK_STR(buf, "name:item");
    intervals_tag("name:", "é x\t\x7f", buf, sizeof buf);
    CHECK_STR(buf, "name:\xc3\xa9%20x%09");
    intervals_tag("name:", "abcdefghij", buf, sizeof buf);
    CHECK_STR(buf, "name:abcdefghij");
    intervals_tag("name:", "abcdefghijk", buf, sizeof buf);
    CHECK_STR(buf, "name:abcdefghij"); /* cut at the end of buf */
    intervals_tag("name:", "abcdefgh,", buf, sizeof buf);
    CHECK_STR(buf, "name:abcdefgh"); /* an escape is written whole or not at all */
    intervals_tag("group:", "<b>a,b</b>", buf, sizeof buf);
    CHECK_STR(buf, "group:<b>a%2Cb<");
    intervals_tag("a-prefix-longer-than-buf:", "x", buf, sizeof buf);
    CHECK_STR(buf, "a-prefix-longer"); /* cut, terminated */
}

int main(void)
{
    test_name_tag();
    test_same_bytes();
    test_collect();
    return check_exit("test_intervals");
}
